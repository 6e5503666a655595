# SPDX-License-Identifier: BSD-3-Clause
# Run by `cmake --install` (and CPack) after the files: what names the prefix it installs to
# (the real one: --prefix, CMAKE_INSTALL_PREFIX, /usr for the .deb), written then and installed
# like the other files (install_manifest.txt lists them). FAB_I_* come from the build's
# generated/install_vars.cmake (cmake/install.cmake).
#   bin/fabricbench-analyze    runs the package with the build's Python; it adds the package's
#                              directory to PYTHONPATH only where that Python does not look
#   the job scripts            the installed fabricbench as their default FB_BIN
#   the modulefile             PATH, MANPATH, PYTHONPATH (where needed), XDG_DATA_DIRS
set(_prefix "${CMAKE_INSTALL_PREFIX}")
cmake_path(NORMAL_PATH _prefix)
string(REGEX REPLACE "(.)/$" "\\1" _prefix "${_prefix}")

function(fab_abs var rel)
  if(IS_ABSOLUTE "${rel}")
    set(p "${rel}")
  else()
    set(p "${_prefix}/${rel}")
  endif()
  cmake_path(NORMAL_PATH p)
  string(REGEX REPLACE "(.)/$" "\\1" p "${p}")
  set(${var} "${p}" PARENT_SCOPE)
endfunction()

fab_abs(_bindir "${FAB_I_BINDIR}")
fab_abs(_pydir "${FAB_I_PYTHONDIR}")
set(_gen "${FAB_I_GEN}/install-time")
file(MAKE_DIRECTORY "${_gen}")

# Does the Python look in the package's directory by itself (the .deb: /usr/lib/python3/
# dist-packages)? Then nothing is added: a PYTHONPATH entry would go before the standard
# library.
set(_on_path OFF)
foreach(p IN LISTS FAB_I_PYTHON_SYSPATH)
  cmake_path(NORMAL_PATH p)
  string(REGEX REPLACE "(.)/$" "\\1" p "${p}")
  if(p STREQUAL _pydir)
    set(_on_path ON)
  endif()
endforeach()

# bin/fabricbench-analyze
set(FAB_PYTHON "${FAB_I_PYTHON}")
set(FAB_I_PYDIR "${_pydir}")
set(FAB_I_PYFLAGS "")
if(FAB_I_SAFEPATH)
  set(FAB_I_PYFLAGS "-P ") # the current directory is not searched for the package
endif()
if(_on_path)
  set(FAB_I_SETPATH "")
else()
  file(RELATIVE_PATH _rel "${_bindir}" "${_pydir}")
  set(FAB_I_SETPATH "# That Python does not look there by itself: the directory, found from this file (a
# moved tree still works), goes first on PYTHONPATH.
here=$(dirname -- \"$(readlink -f -- \"$0\")\")
PYTHONPATH=\"$here/${_rel}\${PYTHONPATH:+:$PYTHONPATH}\"
export PYTHONPATH
")
endif()
configure_file("${FAB_I_SOURCE}/cmake/fabricbench-analyze.in" "${_gen}/fabricbench-analyze" @ONLY)
file(INSTALL DESTINATION "${_bindir}" TYPE PROGRAM FILES "${_gen}/fabricbench-analyze")

# The job scripts
file(MAKE_DIRECTORY "${_gen}/jobscripts")
foreach(js IN LISTS FAB_I_JOBSCRIPTS)
  get_filename_component(_name "${js}" NAME)
  file(READ "${FAB_I_SOURCE}/${js}" _text)
  string(REPLACE "@FAB_INSTALL_BINDIR@" "${_bindir}" _text "${_text}")
  file(WRITE "${_gen}/jobscripts/${_name}" "${_text}")
  fab_abs(_jobdir "${FAB_I_JOBDIR}")
  file(INSTALL DESTINATION "${_jobdir}" TYPE PROGRAM FILES "${_gen}/jobscripts/${_name}")
endforeach()

# The modulefile: MODULEDIR/fabricbench/VERSION
set(FAB_VERSION "${FAB_I_VERSION}")
set(FAB_PREFIX "${_prefix}")
foreach(d BINDIR MANDIR DATADIR JOBDIR MODULEDIR COMPLDIR)
  fab_abs(_abs "${FAB_I_${d}}")
  file(RELATIVE_PATH FAB_${d} "${_prefix}" "${_abs}")
endforeach()
file(RELATIVE_PATH _relpy "${_prefix}" "${_pydir}")
if(_on_path)
  set(FAB_I_MODPYTHON "# the Python package: in ${_pydir}, where ${FAB_I_PYTHON} looks by itself")
else()
  set(FAB_I_MODPYTHON "# the Python package (import fabricbench_analysis)
prepend-path PYTHONPATH $prefix/${_relpy}")
endif()
configure_file("${FAB_I_SOURCE}/cmake/modulefile.tcl.in" "${_gen}/modulefile/${FAB_VERSION}" @ONLY)
fab_abs(_moddir "${FAB_I_MODULEDIR}")
file(INSTALL DESTINATION "${_moddir}/fabricbench" TYPE FILE FILES "${_gen}/modulefile/${FAB_VERSION}")
