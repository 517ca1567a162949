#!/usr/bin/env bash
# Quickstart: installs what is missing, builds axibulk, and runs its main job on a small default.
#
#   jobs/quickstart.sh [DB]
#
# The built-in default needs no data: `axibulk mkdb` writes a small analytic database (a
# homogeneous full space, AxiSEM's format, 40 GLL points per wavelength so that seismograms are
# within 1e-4 of the closed form; about 140 MB, about a second), `axibulk info` describes
# it, and `axibulk extract` computes seismograms for the example events and stations in inputs/
# into build/quickstart/ (bulk HDF5 and ASDF), then prints a summary. With the shared test data
# (../shared/data) it also describes those databases and extracts from the 100 s PREM one; with
# DB it extracts from that database instead.
# Runs with 2 MPI ranks (AXB_NP to change). Works as root and as a normal user.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
np=${AXB_NP:-2}
build="$root/build/release"

bash "$root/jobs/install-deps.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null
axb="$build/src/axibulk"

mpirun=(mpirun -n "$np")
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
[ "$np" -gt "$(nproc)" ] && export OMPI_MCA_rmaps_base_oversubscribe=1

"$axb" --version
echo
out="$root/build/quickstart"
mkdir -p "$out"

# 1. the built-in default: an analytic database made on the spot
echo "== axibulk mkdb: a small full-space database"
"${mpirun[@]}" "$axb" mkdb -o "$out/fullspace_db" --kind reciprocal --period 100 --length 2400 \
    --rmin-km 5700 --force
echo
"${mpirun[@]}" "$axb" info "$out/fullspace_db"
echo

extract_from() { # DB LABEL
    echo "== axibulk extract: inputs/CMTSOLUTION x inputs/STATIONS from $2"
    "${mpirun[@]}" "$axb" extract --db "$1" --cmt "$root/inputs/CMTSOLUTION" \
        --stations "$root/inputs/STATIONS" --components ZNE --kind displacement \
        -o "$out/$2.h5" --force
    "${mpirun[@]}" "$axb" extract --db "$1" --cmt "$root/inputs/CMTSOLUTION" \
        --stations "$root/inputs/STATIONS" --components ZNE --format asdf \
        -o "$out/$2.asdf.h5" --force -q
    if command -v h5ls >/dev/null; then
        echo "   $out/$2.h5:"
        h5ls "$out/$2.h5" | sed 's/^/     /'
        echo "   $out/$2.asdf.h5: ASDF, $(h5ls "$out/$2.asdf.h5/Waveforms" | wc -l) stations"
    fi
    echo
}
extract_from "$out/fullspace_db" fullspace

# 2. real databases, when there are any
dbs=()
if [ $# -gt 0 ]; then
    dbs=("$@")
elif [ -d "$root/../shared/data/axisem-prem-100s" ]; then
    shared=$(cd "$root/../shared/data" && pwd)
    dbs=("$shared"/axisem-prem-100s/* "$shared"/axisem-prem-50s/* "$shared"/instaseis-merged/*)
fi
for db in "${dbs[@]}"; do
    [ -d "$db" ] || [ -f "$db" ] || continue
    echo "== axibulk info $(basename "$db")"
    "${mpirun[@]}" "$axb" info "$db"
    echo
done
if [ $# -gt 0 ]; then extract_from "$1" "$(basename "$1")"
elif [ -n "${shared:-}" ]; then extract_from "$shared/axisem-prem-100s/100s_db_bwd_displ_only" prem100s; fi
echo "quickstart done: outputs in $out"
