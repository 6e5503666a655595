# SPDX-License-Identifier: BSD-3-Clause
# The Debian package: `cpack -G DEB` in the build directory writes fabricbench_VERSION_ARCH.deb
# with what `cmake --install` installs, for the prefix /usr (docs/DEVELOPING.md, "Installed
# files"). Its library dependencies come from dpkg-shlibdeps (dpkg-dev); the programs it runs
# (mpirun) and the analysis's Python modules are listed.
set(FAB_PACKAGE_MAINTAINER "fabricbench developers <fabricbench@invalid>" CACHE STRING
    "The .deb's Maintainer field: set a site's own (Name <address>)")
set(CPACK_PACKAGE_NAME fabricbench)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "fabricbench")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "MPI benchmark for HPC and AI-cluster interconnects")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# cmake --install runs with CMAKE_INSTALL_PREFIX /usr into a staging DESTDIR, so that what it
# writes for its prefix (cmake/install_time.cmake) says /usr, not the staging directory.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES OFF) # RelWithDebInfo: keep what a crash report needs
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${FAB_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# the first line of Description is CPACK_PACKAGE_DESCRIPTION_SUMMARY
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "fabricbench measures point-to-point latency, bandwidth and message rate and
collectives (algbw and busbw as nccl-tests reports them) over UCX transports
(InfiniBand, RoCE, Alibaba eRDMA, TCP, shared memory), with per-iteration
percentiles, crash-safe HDF5 result files, fabric selection with verified
transports, an all-pairs health check naming the bad node, link or switch,
Slurm job scripts, and fabricbench-analyze for summaries, comparisons, plots,
reports and baseline checks.")
# libopenmpi3, libucx0, libhwloc15, libibverbs1, libc6: from the binary. HDF5 is loaded with
# dlopen (src/output/h5load.c), so the package that has its SONAME is named here.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(_fab_hdf5_pkg "")
foreach(_lib IN LISTS HDF5_C_LIBRARIES)
  get_filename_component(_name ${_lib} NAME)
  if(_name MATCHES "^libhdf5(_serial)?\\.so")
    get_filename_component(_real ${_lib} REALPATH)
    get_filename_component(_dir ${_real} DIRECTORY)
    execute_process(COMMAND dpkg-query -S ${_dir}/${FAB_HDF5_SONAME}
                    OUTPUT_VARIABLE _owner ERROR_QUIET)
    if(_owner MATCHES "^([^:, ]+)")
      set(_fab_hdf5_pkg "${CMAKE_MATCH_1}, ")
    endif()
  endif()
endforeach()
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "${_fab_hdf5_pkg}openmpi-bin, python3, python3-h5py, python3-numpy, python3-matplotlib")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "bash-completion, hdf5-tools")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "environment-modules | lmod, slurm-client, ucx-utils")
# postinst/prerm: byte-compile the Python package and remove what that wrote, as Debian's own
# Python packages do (py3compile, py3clean of python3-minimal)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_SOURCE_DIR}/cmake/deb/postinst ${CMAKE_SOURCE_DIR}/cmake/deb/prerm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
