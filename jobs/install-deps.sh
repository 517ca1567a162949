#!/usr/bin/env bash
# Installs the Debian packages axibulk needs, only those missing. Called by jobs/quickstart.sh and
# tests/run.sh; safe to run again.
#
#   jobs/install-deps.sh            build and run dependencies
#   jobs/install-deps.sh --tests    ... plus what the test suite uses (python3 for JSON checks,
#                                   python3-h5py, python3-numpy and python3-lxml for the Python reader's test
#                                   and to read ASDF files' documents,
#                                   gnuplot for the benchmark suite's plots, clang-format for the
#                                   style check, python3-paraview's pvpython to read kernel files'
#                                   XDMF as ParaView does, xvfb to render its pictures without a
#                                   display, clang and its libFuzzer runtime for the readers'
#                                   fuzz targets)
#
# As root it uses apt-get directly, otherwise sudo if that works without a password. On a machine
# without dpkg (a cluster with environment modules, say) it installs nothing and says so: load
# Open MPI, parallel HDF5, netCDF-C (MPI build) and FFTW3 yourself. AXB_NO_INSTALL=1 skips it.
set -euo pipefail

pkgs=(gcc libc6-dev make cmake pkg-config
      openmpi-bin libopenmpi-dev
      libhdf5-openmpi-dev libhdf5-mpi-dev hdf5-tools
      libnetcdf-mpi-dev netcdf-bin
      libfftw3-dev libyaml-dev libxml2-dev libdeflate-dev libisal-dev)
[ "${1:-}" = "--tests" ] && pkgs+=(python3 python3-h5py python3-numpy python3-lxml gnuplot-nox clang-format python3-paraview xvfb xauth clang libclang-rt-14-dev)

if [ "${AXB_NO_INSTALL:-0}" = 1 ]; then exit 0; fi
if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-deps: no dpkg here; make sure MPI, parallel HDF5, netCDF-C (MPI) and FFTW3 are loaded" >&2
    exit 0
fi

missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
if [ "$(id -u)" = 0 ]; then
    sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
else
    echo "install-deps: missing packages and no root rights; ask for: apt-get install ${missing[*]}" >&2
    exit 1
fi
# libnetcdf-dev is deliberately absent: it pulls in serial HDF5, which CMake would then pick.
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
