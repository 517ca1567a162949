#!/usr/bin/env bash
# The benchmark's kernel job (bench/kernel_bench.py, written into its --work folder) as a tomographer
# runs it: through jobs/slurm/kernel.sbatch on the private single-node SLURM cluster
# (tests/slurm/cluster.sh). One job runs uninterrupted; a second is cancelled with scancel once a
# third of its cells are recorded, then resubmitted, which resumes it. Checks: both exit 0, the
# resumed run computed only the cells not recorded before the cancel, and its /kernels, /errors and
# /mesh/points equal the uninterrupted run's (h5diff). Prints a Markdown summary for
# docs/benchmarks.md. Not a test (minutes, hundreds of MB); needs root and Slurm as slurm_test.sh.
#
#   bench/kernel_slurm.sh AXIBULK WORK [RANKS [CACHE_MB]]
#
# WORK: kernel_bench.py's --work folder (job-merged/job.yaml must exist). Outputs go to
# WORK/slurm/ and are removed at the end unless AXB_KEEP=1.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: kernel_slurm.sh AXIBULK WORK [RANKS [CACHE_MB]]" >&2; exit 2; }
AXB=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
WORK=$(cd "$2" && pwd) RANKS=${3:-2} CACHE=${4:-1024}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
JOB="$WORK/job-merged/job.yaml"
[ -r "$JOB" ] || { echo "kernel_slurm: $JOB missing (run bench/kernel_bench.py --work $WORK first)" >&2; exit 2; }
while read -r v; do unset "$v"; done < <(compgen -e | grep '^SLURM_' || true)
# shellcheck source-path=SCRIPTDIR
source "$ROOT/tests/slurm/cluster.sh"
OUT="$WORK/slurm" CL=$(mktemp -d /tmp/axb-kslurm-XXXXXX)
rm -rf "$OUT" && mkdir -p "$OUT"
cleanup() { cluster_down "$CL" >/dev/null 2>&1; rm -rf "$CL"; [ "${AXB_KEEP:-0}" = 1 ] || rm -rf "$OUT"; }
trap cleanup EXIT
fail() { echo "kernel_slurm: FAIL: $*" >&2; for f in "$OUT"/*.out; do [ -e "$f" ] && { echo "----- $f"; cat "$f"; }; done; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export AXIBULK="$AXB" JOB CACHE_MB=$CACHE STATS=1 QUIET=1
cluster_up "$CL" >"$OUT/cluster.log" 2>&1 || fail "the private SLURM cluster did not start"
ncell=$(sed -n 's/.*counts: \[\([0-9]*\), *\([0-9]*\), *\([0-9]*\)\].*/\1 \2 \3/p' "$JOB" | awk '{print $1 * $2 * $3}')
seconds() { sed -n 's/.*"seconds": \([0-9.]*\).*/\1/p' "$1"; }
computed() { sed -n 's/.*"cells_computed": \([0-9]*\).*/\1/p' "$1"; }

t0=$(date +%s)
OUTPUT="$OUT/ref.h5" sbatch --wait --export=ALL -n "$RANKS" -o "$OUT/ref-%j.out" "$ROOT/jobs/slurm/kernel.sbatch" \
    >/dev/null 2>&1 || fail "the uninterrupted job failed"
t1=$(date +%s)
jid=$(OUTPUT="$OUT/run.h5" sbatch --parsable --export=ALL -n "$RANKS" -o "$OUT/run1-%j.out" \
    "$ROOT/jobs/slurm/kernel.sbatch") || fail "sbatch"
rec="$OUT/run.h5.partial.record" cancelled=0
while [ -n "$(squeue -h -j "$jid" 2>/dev/null)" ]; do
    if [ -s "$rec" ]; then
        head=$(head -1 "$rec" | wc -c)
        if [ "$(stat -c %s "$rec")" -ge $((head + 8 * ncell / 3)) ]; then scancel "$jid"; cancelled=1; break; fi
    fi
    sleep 1
done
while [ -n "$(squeue -h -j "$jid" 2>/dev/null)" ]; do sleep 1; done
t2=$(date +%s)
[ $cancelled = 1 ] && [ -e "$OUT/run.h5.partial.cells" ] && [ ! -e "$OUT/run.h5" ] || fail "the job was not cancelled part-way"
OUTPUT="$OUT/run.h5" sbatch --wait --export=ALL -n "$RANKS" -o "$OUT/run2-%j.out" "$ROOT/jobs/slurm/kernel.sbatch" \
    >/dev/null 2>&1 || fail "the resubmitted job failed"
t3=$(date +%s)
grep -q -- "--resume" "$OUT"/run2-*.out || fail "the resubmitted job did not resume"
same=yes
for g in /kernels /errors /mesh/points; do h5diff "$OUT/ref.h5" "$OUT/run.h5" "$g" "$g" >/dev/null || same=no; done
[ "$same" = yes ] || fail "the resumed output differs from the uninterrupted one"
left=$(computed "$OUT/run.stats.json")
[ "$left" -lt "$ncell" ] && [ "$left" -le $((ncell - ncell / 3)) ] || fail "the resume computed $left of $ncell cells"
cat <<EOF
Under SLURM (\`bench/kernel_slurm.sh\`, private single-node cluster, \`jobs/slurm/kernel.sbatch\`,
$RANKS ranks, \`CACHE_MB=$CACHE\`, axibulk $(git -C "$ROOT" rev-parse --short HEAD), $(date -u +%F)): the
job above ($ncell cells) ran uninterrupted in $((t1 - t0)) s (engine $(seconds "$OUT/ref.stats.json") s); a second submission
was cancelled (\`scancel\`) after $((t2 - t1)) s with a third of its cells recorded, and resubmitted: it resumed
(\`--resume\`), computed the $left cells not recorded, finished in $((t3 - t2)) s, and its /kernels,
/errors and /mesh/points equal the uninterrupted run's (\`h5diff\`).
EOF
