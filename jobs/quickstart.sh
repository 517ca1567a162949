#!/usr/bin/env bash
# Quickstart: installs what is missing, builds axibulk, and runs its main job on a small default.
#
#   jobs/quickstart.sh [DB]
#
# With the shared test data (../shared/data): describes the databases (`axibulk info`), then
# extracts seismograms for the example events and stations in inputs/ from the 100 s PREM
# database (`axibulk extract`, bulk HDF5 and ASDF, into build/quickstart/). With DB: describes
# that database and extracts the same from it. Without either: describes a small synthetic
# AxiSEM-format database it writes itself (`axibulk mkdb` will make that an analytic one).
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
dbs=()
if [ $# -gt 0 ]; then
    dbs=("$@")
elif [ -d "$root/../shared/data/axisem-prem-100s" ]; then
    shared=$(cd "$root/../shared/data" && pwd)
    dbs=("$shared"/axisem-prem-100s/* "$shared"/axisem-prem-50s/* "$shared"/instaseis-merged/*)
else
    # No shared data: a tiny synthetic database in AxiSEM's format (the test fixture writer;
    # `axibulk mkdb` will replace it with an analytic one).
    out="$root/build/quickstart-db"
    rm -rf "$out"
    "$build/tests/mkfixture" "$out" bwd
    dbs=("$out")
fi
for db in "${dbs[@]}"; do
    [ -d "$db" ] || [ -f "$db" ] || continue
    echo "== axibulk info $(basename "$db")"
    "${mpirun[@]}" "$axb" info "$db"
    echo
done

# The main job: seismograms for events x stations.
extract_db=""
if [ $# -gt 0 ]; then extract_db=$1
elif [ -n "${shared:-}" ]; then extract_db="$shared/axisem-prem-100s/100s_db_bwd_displ_only"; fi
if [ -n "$extract_db" ]; then
    out="$root/build/quickstart"
    mkdir -p "$out"
    echo "== axibulk extract: inputs/CMTSOLUTION x inputs/STATIONS from $(basename "$extract_db")"
    "${mpirun[@]}" "$axb" extract --db "$extract_db" --cmt "$root/inputs/CMTSOLUTION" \
        --stations "$root/inputs/STATIONS" --components ZNE --kind displacement --dt 5 \
        -o "$out/seismograms.h5" --force
    "${mpirun[@]}" "$axb" extract --db "$extract_db" --cmt "$root/inputs/CMTSOLUTION" \
        --stations "$root/inputs/STATIONS" --components ZNE --format asdf \
        -o "$out/seismograms.asdf.h5" --force -q
    if command -v h5ls >/dev/null; then
        echo
        echo "bulk layout (docs/output-format.md):"
        h5ls "$out/seismograms.h5"
        echo "ASDF waveforms of the first station:"
        h5ls "$out/seismograms.asdf.h5/Waveforms" | head -1
    fi
fi
