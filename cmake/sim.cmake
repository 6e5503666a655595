# SPDX-License-Identifier: BSD-3-Clause
# The simulated variant of the tool for the `sim` tests (tests/sim/README.md): where SimGrid
# is installed (smpicc, smpirun, libsimgrid, a C++ compiler), a second build of this source
# tree with -DFAB_SIM=ON in build/sim, made at build time so the tests only run it. Without
# SimGrid the sim tests skip and say why. -DFAB_SIM_TESTS=OFF leaves the variant out.
option(FAB_SIM_TESTS "Build the SimGrid variant for the sim tests when SimGrid is installed" ON)
set(FAB_SIM_DIR ${CMAKE_BINARY_DIR}/sim)
set(FAB_SIM_MISSING "")
if(FAB_SIM_TESTS)
  find_program(FAB_SMPICC smpicc)
  find_program(FAB_SMPIRUN smpirun)
  find_program(FAB_SIM_CXX NAMES c++ g++)
  find_library(FAB_SIMGRID_LIB simgrid)
  find_path(FAB_SIMGRID_INC simgrid/s4u.hpp)
  foreach(v FAB_SMPICC FAB_SMPIRUN FAB_SIM_CXX FAB_SIMGRID_LIB FAB_SIMGRID_INC)
    if(NOT ${v})
      string(APPEND FAB_SIM_MISSING " ${v}")
    endif()
  endforeach()
else()
  set(FAB_SIM_MISSING " (FAB_SIM_TESTS=OFF)")
endif()
if(FAB_SIM_MISSING STREQUAL "")
  include(ExternalProject)
  ExternalProject_Add(fabricbench_sim
    SOURCE_DIR ${CMAKE_SOURCE_DIR}
    BINARY_DIR ${FAB_SIM_DIR}
    CMAKE_ARGS -DFAB_SIM=ON -DCMAKE_C_COMPILER=${FAB_SMPICC} -DCMAKE_CXX_COMPILER=${FAB_SIM_CXX}
               -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE} -DFAB_WERROR=${FAB_WERROR}
    INSTALL_COMMAND ""
    BUILD_ALWAYS ON # the sources are this tree's: let its own build decide what is stale
    USES_TERMINAL_BUILD OFF)
else()
  message(STATUS "SimGrid not found (missing:${FAB_SIM_MISSING}): the sim tests will skip "
                 "(apt-get install libsimgrid-dev g++)")
endif()
