# SPDX-License-Identifier: BSD-3-Clause
# Run at build time (cmake -P): write fab_version.h with the project version (VERSION) and
# the git commit of the source tree,
# touching the file only when the text changes, so a new commit shows in --version without
# re-running CMake and an unchanged one rebuilds nothing.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT commit)
  set(commit "unknown")
else()
  execute_process(COMMAND git diff --quiet HEAD -- WORKING_DIRECTORY ${SRC}
                  RESULT_VARIABLE dirty ERROR_QUIET)
  if(NOT dirty EQUAL 0)
    string(APPEND commit "-dirty")
  endif()
endif()
file(WRITE ${OUT}.tmp "#define FAB_VERSION \"${VERSION}\"\n#define FAB_GIT_COMMIT \"${commit}\"\n")
configure_file(${OUT}.tmp ${OUT} COPYONLY)
