# SPDX-License-Identifier: BSD-3-Clause
# What the build makes from the tool itself (man pages, bash completion) and what
# `cmake --install` puts where; docs/DEVELOPING.md, "Installed files", lists it.
set(FAB_INSTALL_PYTHONDIR "lib/python3/dist-packages" CACHE STRING
    "Where fabricbench_analysis is installed (relative to the prefix, or absolute)")
set(FAB_INSTALL_JOBDIR ${CMAKE_INSTALL_DATADIR}/fabricbench/jobscripts)
set(FAB_INSTALL_MODULEDIR ${CMAKE_INSTALL_DATADIR}/fabricbench/modulefiles)
set(FAB_INSTALL_COMPLDIR ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
set(FAB_GEN ${CMAKE_BINARY_DIR}/generated)
set(FAB_JOBSCRIPTS jobscripts/fabricbench.sbatch jobscripts/fabric-sweep.sbatch
    jobscripts/health.sbatch)

# ---- man pages from --help (cmake/manpage.py), the completion from `fabricbench completion
# bash`: made by the built tool, so a new option, kernel or command is in them by itself.
string(TIMESTAMP FAB_MAN_DATE "%Y-%m-%d" UTC) # SOURCE_DATE_EPOCH, when set
file(GLOB_RECURSE FAB_ANALYSIS_PY CONFIGURE_DEPENDS
     ${CMAKE_SOURCE_DIR}/analysis/fabricbench_analysis/*.py)
add_custom_command(OUTPUT ${FAB_GEN}/man/fabricbench.1
  COMMAND ${CMAKE_COMMAND} -E make_directory ${FAB_GEN}/man
  COMMAND ${FAB_PYTHON} ${CMAKE_SOURCE_DIR}/cmake/manpage.py -o ${FAB_GEN}/man/fabricbench.1
          --name fabricbench --source "fabricbench ${PROJECT_VERSION}" --date ${FAB_MAN_DATE}
          --include ${CMAKE_SOURCE_DIR}/docs/man/fabricbench.h2m -- $<TARGET_FILE:fabricbench>
  DEPENDS fabricbench ${CMAKE_SOURCE_DIR}/cmake/manpage.py
          ${CMAKE_SOURCE_DIR}/docs/man/fabricbench.h2m
  COMMENT "Man page fabricbench(1) from --help" VERBATIM)
add_custom_command(OUTPUT ${FAB_GEN}/man/fabricbench-analyze.1
  COMMAND ${CMAKE_COMMAND} -E make_directory ${FAB_GEN}/man
  COMMAND ${FAB_PYTHON} ${CMAKE_SOURCE_DIR}/cmake/manpage.py
          -o ${FAB_GEN}/man/fabricbench-analyze.1 --name fabricbench-analyze
          --source "fabricbench ${PROJECT_VERSION}" --date ${FAB_MAN_DATE}
          --include ${CMAKE_SOURCE_DIR}/docs/man/fabricbench-analyze.h2m
          -- ${FAB_PYTHON} ${CMAKE_SOURCE_DIR}/analysis/fabricbench-analyze
  DEPENDS ${FAB_ANALYSIS_PY} ${CMAKE_SOURCE_DIR}/analysis/fabricbench-analyze
          ${CMAKE_SOURCE_DIR}/cmake/manpage.py ${CMAKE_SOURCE_DIR}/docs/man/fabricbench-analyze.h2m
  COMMENT "Man page fabricbench-analyze(1) from --help" VERBATIM)
add_custom_command(OUTPUT ${FAB_GEN}/completion/fabricbench
  COMMAND ${CMAKE_COMMAND} -E make_directory ${FAB_GEN}/completion
  COMMAND ${CMAKE_COMMAND} -DOUT=${FAB_GEN}/completion/fabricbench
          -P ${CMAKE_SOURCE_DIR}/cmake/run_to_file.cmake -- $<TARGET_FILE:fabricbench> completion bash
  DEPENDS fabricbench ${CMAKE_SOURCE_DIR}/cmake/run_to_file.cmake
          ${CMAKE_SOURCE_DIR}/share/fabricbench/fabrics.conf
  COMMENT "Bash completion from fabricbench completion bash" VERBATIM)
add_custom_target(fab_install_files ALL DEPENDS ${FAB_GEN}/man/fabricbench.1
  ${FAB_GEN}/man/fabricbench-analyze.1 ${FAB_GEN}/completion/fabricbench)

# ---- installed as they are
install(TARGETS fabricbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES share/fabricbench/fabrics.conf DESTINATION ${CMAKE_INSTALL_DATADIR}/fabricbench)
# the package with its subpackages (model, reading, checks, render) and schema.json
install(DIRECTORY analysis/fabricbench_analysis DESTINATION ${FAB_INSTALL_PYTHONDIR}
        PATTERN __pycache__ EXCLUDE)
install(FILES ${FAB_GEN}/man/fabricbench.1 ${FAB_GEN}/man/fabricbench-analyze.1
        DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${FAB_GEN}/completion/fabricbench DESTINATION ${FAB_INSTALL_COMPLDIR})
install(FILES jobscripts/README.md DESTINATION ${FAB_INSTALL_JOBDIR})
# the documentation, in the source tree's layout (README.md's links keep working)
file(GLOB FAB_DOCS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/*.md)
install(FILES README.md LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
# Debian's machine-readable copyright file (DEP-5), where a .deb keeps it: doc/<package>/copyright
install(FILES cmake/deb/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${FAB_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(FILES jobscripts/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/jobscripts)

# ---- written at install time for the prefix installed to (cmake/install_time.cmake):
# bin/fabricbench-analyze, the job scripts, the modulefile
execute_process(COMMAND ${FAB_PYTHON} -c "import sys; print(';'.join(p for p in sys.path if p))"
                OUTPUT_VARIABLE FAB_PYTHON_SYSPATH OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${FAB_PYTHON} does not run (FAB_PYTHON): fabricbench-analyze needs it")
endif()
execute_process(COMMAND ${FAB_PYTHON} -P -c "" RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
if(_rc EQUAL 0)
  set(FAB_PYTHON_SAFEPATH ON) # Python 3.11 and later
else()
  set(FAB_PYTHON_SAFEPATH OFF)
endif()
file(WRITE ${FAB_GEN}/install_vars.cmake
"# Generated by CMake (cmake/install.cmake) for cmake/install_time.cmake: do not edit.
set(FAB_I_SOURCE [==[${CMAKE_SOURCE_DIR}]==])
set(FAB_I_GEN [==[${FAB_GEN}]==])
set(FAB_I_VERSION [==[${PROJECT_VERSION}]==])
set(FAB_I_PYTHON [==[${FAB_PYTHON}]==])
set(FAB_I_PYTHON_SYSPATH [==[${FAB_PYTHON_SYSPATH}]==])
set(FAB_I_SAFEPATH ${FAB_PYTHON_SAFEPATH})
set(FAB_I_PYTHONDIR [==[${FAB_INSTALL_PYTHONDIR}]==])
set(FAB_I_BINDIR [==[${CMAKE_INSTALL_BINDIR}]==])
set(FAB_I_MANDIR [==[${CMAKE_INSTALL_MANDIR}]==])
set(FAB_I_DATADIR [==[${CMAKE_INSTALL_DATADIR}]==])
set(FAB_I_JOBDIR [==[${FAB_INSTALL_JOBDIR}]==])
set(FAB_I_MODULEDIR [==[${FAB_INSTALL_MODULEDIR}]==])
set(FAB_I_COMPLDIR [==[${FAB_INSTALL_COMPLDIR}]==])
set(FAB_I_JOBSCRIPTS [==[${FAB_JOBSCRIPTS}]==])
")
install(CODE "include([==[${FAB_GEN}/install_vars.cmake]==])")
install(SCRIPT cmake/install_time.cmake)
