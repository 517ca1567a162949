#!/usr/bin/env bash
# Kill a kernel run with SIGKILL part-way (a real signal, wherever it is), then --resume on another
# rank count: the finished file's kernels, errors and point counts must equal, value for value, an
# uninterrupted run's. Also: a plain rerun over the leftover is refused, a resume of a changed job is
# refused (its fingerprint differs), and a resume of a complete output is refused.
# usage: kernel_resume.sh AXIBULK MPIEXEC SHARED_DATA
# The job is the shared 100 s PREM example on an 8 x 12 x 5 voxel grid with few points per cell and
# checkpoints every 0.2 s, so the kill (once a quarter of the cells are recorded) always lands with
# cells left to do.
set -u
AXB=$1 MPIEXEC=$2 DATA=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_odls_base_sigkill_timeout=0 # tests/CMakeLists.txt
FWD=$DATA/axisem-prem-100s/100s_db_fwd BWD=$DATA/axisem-prem-100s/100s_db_bwd_displ_only
[ -d "$FWD" ] && [ -d "$BWD" ] || { echo "skipped: no shared 100 s PREM databases under $DATA"; exit 77; }
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/record_units.sh"
. "$HERE/leak_checked.sh"
INPUTS=$(cd "$HERE/../inputs" && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axb-kresume-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; echo "0 passed, 1 failed"; exit 1; }
ncell=480

job() { # job MAXPOINTS
    cat <<EOF
forward-db: $FWD
backward-db: $BWD
event: $INPUTS/CMTSOLUTION_kernel
receivers: $INPUTS/STATIONS_kernel
mesh:
  voxels: {lat: [0, 20], lon: [15, 50], depth-km: [0, 360], counts: [8, 12, 5]}
points-per-step: 4
min-points: 8
max-points: $1
abs-error: 1e-4
rel-error: 1e-3
kernels:
  - name: P
    receiver: XK.KRN1
    component: Z
    bandpass: 0.004,0.008
    zerophase: true
    window: [280, 420]
    misfit: cc
    parameters: [vp, vs, rho]
  - name: S
    receiver: XK.KRN1
    component: T
    bandpass: 0.004,0.008
    zerophase: true
    window: [540, 720]
    misfit: cc
    parameters: vs
EOF
}
job 24 > "$TMP/job.yaml"
job 28 > "$TMP/job_changed.yaml"
run() { "$MPIEXEC" -n "$1" "$AXB" kernel --job "$2" -q --checkpoint-s 0.2 "${@:3}"; }

run 2 "$TMP/job.yaml" -o "$TMP/ref.h5" >/dev/null || fail "reference run"

out=$TMP/out.h5 rec=$TMP/out.h5.partial.record
run 2 "$TMP/job.yaml" -o "$out" >/dev/null 2>&1 &
pid=$! killed=0
for _ in $(seq 1 30000); do
    if [ "$(record_units "$rec")" -ge $((ncell / 4)) ]; then
        kill -9 "$pid" 2>/dev/null; pkill -9 -f "kernel --job $TMP/job.yaml" 2>/dev/null; killed=1; break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
done
{ wait "$pid"; } 2>/dev/null
[ $killed = 1 ] && [ ! -e "$out" ] && [ -e "$out.partial" ] && [ -e "$out.partial.cells" ] ||
    fail "the kernel run could not be interrupted part-way"
echo "killed with $(record_units "$rec") of $ncell cells recorded"

# the leftover blocks a plain rerun, and a changed job cannot resume it
if run 1 "$TMP/job.yaml" -o "$out" >/dev/null 2>"$TMP/err"; then fail "a rerun over the leftover was accepted"; fi
grep -q "use --resume" "$TMP/err" || fail "unexpected message for a plain rerun: $(cat "$TMP/err")"
if run 1 "$TMP/job_changed.yaml" -o "$out" --resume >/dev/null 2>"$TMP/err"; then fail "a changed job resumed"; fi
grep -q "(job: [0-9a-f]*, now [0-9a-f]*)" "$TMP/err" || fail "unexpected message for a changed job: $(cat "$TMP/err")"
[ -e "$out.partial.record" ] || fail "the refused resume removed the record"

# resume on one rank (the cells are dealt anew; each cell's values depend on the cell alone)
leak_checked run 1 "$TMP/job.yaml" -o "$out" --resume --stats "$TMP/stats.json" >/dev/null || fail "--resume failed"
[ -e "$out" ] && [ ! -e "$out.partial" ] && [ ! -e "$out.partial.record" ] && [ ! -e "$out.partial.cells" ] ||
    fail "not committed, or the checkpoint left behind"
computed=$(sed -n 's/.*"cells_computed": \([0-9]*\).*/\1/p' "$TMP/stats.json")
[ -n "$computed" ] && [ "$computed" -gt 0 ] && [ "$computed" -le $((ncell * 3 / 4)) ] ||
    fail "the resume computed $computed of $ncell cells (at most 3/4 were left)"
for g in /kernels /errors /mesh/points; do
    h5diff "$TMP/ref.h5" "$out" "$g" "$g" >/dev/null || fail "$g of the resumed file differs from an uninterrupted run"
done
if run 1 "$TMP/job.yaml" -o "$out" --resume >/dev/null 2>"$TMP/err"; then fail "resume of a complete file accepted"; fi
grep -q "nothing to resume" "$TMP/err" || fail "unexpected message: $(cat "$TMP/err")"
echo "resumed: $computed of $ncell cells computed again, kernels identical"
echo "1 passed, 0 failed"
