#!/usr/bin/env bash
# Quickstart: installs what is missing, builds axibulk, and runs its main job on a small default.
#
#   jobs/quickstart.sh [DB]
#
# Today the main job is `axibulk info`: with DB, on that database; otherwise on every database in
# ../shared/data when present, else on a small synthetic AxiSEM-format database it writes itself.
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
    echo "== $(basename "$db")"
    "${mpirun[@]}" "$axb" info "$db"
    echo
done
