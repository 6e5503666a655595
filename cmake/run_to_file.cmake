# SPDX-License-Identifier: BSD-3-Clause
# cmake -DOUT=FILE -P run_to_file.cmake -- COMMAND [ARG...]: the command's stdout into FILE,
# replaced only when the command succeeds (the build's generated bash completion).
set(_cmd "")
set(_seen OFF)
math(EXPR _last "${CMAKE_ARGC} - 1")
foreach(i RANGE 0 ${_last})
  if(_seen)
    list(APPEND _cmd "${CMAKE_ARGV${i}}")
  elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
    set(_seen ON)
  endif()
endforeach()
execute_process(COMMAND ${_cmd} OUTPUT_FILE "${OUT}.tmp" RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  file(REMOVE "${OUT}.tmp")
  message(FATAL_ERROR "'${_cmd}' failed (${_rc})")
endif()
file(RENAME "${OUT}.tmp" "${OUT}")
