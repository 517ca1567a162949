# The libraries axibulk links, located the same way when axibulk is built (top-level
# CMakeLists.txt) and when a program uses an installed axibulk (axibulkConfig.cmake), so the two
# cannot drift apart. The caller has already found MPI (C), HDF5 (C, HDF5_PREFER_PARALLEL set),
# Threads and PkgConfig. Defines the imported targets axibulk's targets link to:
# hdf5::hdf5 (CMake's FindHDF5), PkgConfig::AXB_FFTW3, PkgConfig::AXB_FFTW3F, PkgConfig::AXB_YAML,
# PkgConfig::AXB_XML2, PkgConfig::AXB_DEFLATE, PkgConfig::AXB_ISAL and axibulk::netcdf_mpi.

# Debian ships serial and parallel HDF5 side by side; the serial one would silently break
# collective I/O.
if(NOT HDF5_IS_PARALLEL)
  message(FATAL_ERROR "axibulk needs a parallel (MPI) build of HDF5, but CMake found a serial one "
          "(${HDF5_C_LIBRARIES}). On Debian install libhdf5-openmpi-dev (and do not install "
          "libnetcdf-dev, which pulls in serial HDF5).")
endif()
if(NOT TARGET hdf5::hdf5)
  message(FATAL_ERROR "CMake's FindHDF5 did not define hdf5::hdf5 (CMake 3.19 or newer needed)")
endif()

# The prefix keeps these imported targets apart from a using program's own pkg-config targets.
foreach(_axb_mod IN ITEMS "AXB_FFTW3;fftw3" "AXB_FFTW3F;fftw3f" "AXB_YAML;yaml-0.1" "AXB_XML2;libxml-2.0"
                          "AXB_DEFLATE;libdeflate" "AXB_ISAL;libisal")
  list(GET _axb_mod 0 _axb_prefix)
  list(GET _axb_mod 1 _axb_name)
  if(NOT TARGET PkgConfig::${_axb_prefix})
    pkg_check_modules(${_axb_prefix} REQUIRED IMPORTED_TARGET ${_axb_name})
  endif()
endforeach()

# The netCDF MPI build's pkg-config file and CMake package point at /usr/include, where Debian
# keeps no netcdf.h, so the header directory is located explicitly.
find_path(NETCDF_MPI_INCLUDE_DIR netcdf_par.h
          HINTS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/netcdf/mpi/include
          NO_DEFAULT_PATH)
find_path(NETCDF_MPI_INCLUDE_DIR netcdf_par.h)
find_library(NETCDF_MPI_LIBRARY NAMES netcdf_mpi netcdf)
if(NOT NETCDF_MPI_INCLUDE_DIR OR NOT NETCDF_MPI_LIBRARY)
  message(FATAL_ERROR "netCDF-C with parallel support not found. On Debian install libnetcdf-mpi-dev.")
endif()
file(STRINGS "${NETCDF_MPI_INCLUDE_DIR}/netcdf_meta.h" _axb_nc_par REGEX "define NC_HAS_PARALLEL4 +1")
if(NOT _axb_nc_par)
  message(FATAL_ERROR "netCDF-C in ${NETCDF_MPI_INCLUDE_DIR} was built without NC_HAS_PARALLEL4.")
endif()
if(NOT TARGET axibulk::netcdf_mpi)
  add_library(axibulk::netcdf_mpi UNKNOWN IMPORTED)
  set_target_properties(axibulk::netcdf_mpi PROPERTIES
    IMPORTED_LOCATION "${NETCDF_MPI_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NETCDF_MPI_INCLUDE_DIR}")
endif()
