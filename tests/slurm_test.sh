#!/usr/bin/env bash
# Runs the SLURM job scripts of jobs/slurm/ on a private single-node SLURM cluster
# (tests/slurm/cluster.sh) with small `axibulk mkdb` databases, and checks what they leave:
# exit codes, rows and shapes of the outputs (srun --mpi=pmix and LAUNCHER=mpirun), check_parts.sh (complete, and with a part missing,
# a .partial left, wrong rows), resubmission of part of an array, a repack killed part-way
# (scancel) and resumed by resubmitting, jobs with bad input failing with status 2, and
# kernel.sbatch: one kernel job and an array over two events on a forward/reciprocal database
# pair (the datasets, equal across rank counts), a resubmission with the output complete, a bad
# job and a bad variable, and a kernel job cancelled after its first checkpoint and resubmitted:
# it resumes and equals an uninterrupted run.
#
#   slurm_test.sh AXIBULK
#
# Needs root (slurmd), Slurm, munge and h5ls; installs slurm-wlm, munge and hdf5-tools when
# missing and it runs as root with apt-get; otherwise it exits 77 (skipped). The cluster lives in
# one temporary folder, listens on private ports, is reached through 127.0.0.1 only, and is torn
# down on exit whatever happens. About 40 s. AXB_KEEP=1 keeps the folder for inspection.
set -uo pipefail
if [ $# != 1 ]; then echo "usage: slurm_test.sh AXIBULK" >&2; exit 2; fi
AXB=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
SCRIPTS="$ROOT/jobs/slurm"
. "$HERE/record_units.sh"
[ -x "$AXB" ] || { echo "slurm_test: $AXB: not an executable" >&2; exit 2; }

skip() { echo "slurm_test: skipped: $*"; exit 77; }

# a test run inside a SLURM job must not talk to the outer cluster
while read -r v; do unset "$v"; done < <(compgen -e | grep '^SLURM_' || true)

need=()
for b in munged slurmctld slurmd sbatch; do command -v "$b" >/dev/null 2>&1 || { need+=(slurm-wlm munge); break; }; done
command -v h5ls >/dev/null 2>&1 && command -v h5diff >/dev/null 2>&1 || need+=(hdf5-tools)
if [ "$(id -u)" != 0 ]; then skip "needs root (slurmd starts the jobs)"; fi
if [ ${#need[@]} -gt 0 ]; then
    command -v apt-get >/dev/null 2>&1 || skip "${need[*]} missing and no apt-get to install them"
    echo "slurm_test: installing ${need[*]}"
    apt-get update -qq >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null 2>&1 ||
        skip "could not install ${need[*]} (apt-get failed; offline?)"
fi

# shellcheck source-path=SCRIPTDIR
source "$HERE/slurm/cluster.sh"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axb-slurm-XXXXXX")
CL="$TMP/cluster"
cleanup() {
    cluster_down "$CL"
    if [ "${AXB_KEEP:-0}" = 1 ]; then echo "slurm_test: kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pass=0 fail=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
ko() { echo "FAIL: $*"; fail=$((fail + 1)); }
check() { # DESCRIPTION COMMAND...
    local d=$1; shift
    if "$@"; then ok "$d"; else ko "$d"; fi
}
finish() {
    if [ "$fail" != 0 ]; then
        for f in "$TMP"/logs/*; do [ -e "$f" ] && { echo "----- $f"; cat "$f"; }; done
    fi
    echo "$pass passed, $fail failed"
    [ "$fail" = 0 ] && exit 0 || exit 1
}
# "12,3,73" for FILE's seismograms, empty if h5ls cannot read it
dims() { h5ls "$1/seismograms" 2>/dev/null | sed -n 's/.*Dataset {\([^}]*\)}.*/\1/p' | tr -d ' '; }
has_dims() { [ "$(dims "$1")" = "$2" ] || { echo "  $1: dims '$(dims "$1")', expected $2"; return 1; }; }
# the rows of FILE are R and it has C components (any number of samples)
has_rows_comps() { local d; d=$(dims "$1"); [[ "$d" == "$2,$3,"* ]] || { echo "  $1: dims '$d', expected $2,$3,*"; return 1; }; }
grep_q() { grep -q "$@" || { echo "  no '$1' in ${*: -1}"; return 1; }; }

# the jobs' environment (sbatch --export=ALL): root may run Open MPI; loopback only
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
export AXIBULK="$AXB"
mkdir -p "$TMP/logs" "$TMP/out"
cd "$TMP" || exit 1
t0=$(date +%s)

if ! cluster_up "$CL" >"$TMP/logs/cluster-up.log" 2>&1; then
    cat "$TMP/logs/cluster-up.log"
    ko "private SLURM cluster starts"
    finish
fi
ok "private SLURM cluster starts ($(sinfo -h -o '%n %c CPUs %t'))"

# sbatch --wait in the background: bg NAME SBATCH-ARGS... ; wait_bg NAME -> its exit status
declare -A bgpid=()
bg() { local n=$1; shift; sbatch --wait --export=ALL --chdir="$TMP" "$@" >"$TMP/logs/$n.sbatch" 2>&1 & bgpid[$n]=$!; }
wait_bg() { wait "${bgpid[$1]}"; }

# --- a small database, made by srun --mpi=pmix on the cluster
DB="$TMP/db"
mkdb() { srun --mpi=pmix -n 2 "$AXB" mkdb -o "$DB" --period 50 --length 900 --rmin-km 5500 --points-per-wavelength 6 -q >"$TMP/logs/mkdb.log" 2>&1 || { cat "$TMP/logs/mkdb.log"; return 1; }; }
check "srun --mpi=pmix -n 2 axibulk mkdb" mkdb
[ -d "$DB" ] || finish

# --- inputs: the examples in inputs/, a synthetic pairs file (10 pairs), 3 one-point SRF faults
CMT="$ROOT/inputs/CMTSOLUTION" STA="$ROOT/inputs/STATIONS"
nev=$(awk 'NF {n++} END {print n / 13}' "$CMT")
nsta=$(awk 'NF && $1 !~ /^#/' "$STA" | wc -l)
{
    echo "# synthetic pairs for slurm_test.sh"
    for i in $(seq 0 9); do
        echo "mt $((i * 7 - 30)).5 $((i * 31 - 150)).0 $((10000 + i * 5000)) 1e18 -1e18 0 0 0 0  $((40 - i * 5)).0 $((i * 17 - 80)).0"
        [ "$i" = 4 ] && echo "   # a comment and a blank line in the middle" && echo
    done
} >"$TMP/pairs10.txt"
: >"$TMP/faults.txt"
for k in 0 1 2; do
    cat >"$TMP/fault$k.srf" <<SRF
1.0
POINTS 1
    $((k * 20 + 5)).00000    $((k * 15 - 10)).00000    $((k * 20 + 10)).00000    90.00000    90.00000 100000000000000.00000     0.00000     5.00000
    0.00000    10.00000     4     0.00000     0     0.00000     0
    0.00000     0.10000     0.10000     0.00000
SRF
    echo "$TMP/fault$k.srf" >>"$TMP/faults.txt"
done
sed -i '2i # faults for slurm_test.sh' "$TMP/faults.txt"

# --- kernel inputs: a forward and a reciprocal mkdb database of a small planet (R 2000 km, shell
# 1500..2000 km, 20 s period, 200 s; the forward source at 12 km), two events at 12 km, a voxel
# slab between them and a receiver 5 degrees away; jobs name their inputs relative to themselves
K="$TMP/kern"
mkdir -p "$K/jobs"
kdbs() {
    local common=(--period 20 --length 200 --radius-km 2000 --rmin-km 1500 --points-per-wavelength 6 -q)
    if ! "$AXB" mkdb -o "$K/fwd" --kind forward --source-depth-km 12 "${common[@]}" >"$TMP/logs/kdb.log" 2>&1 ||
        ! "$AXB" mkdb -o "$K/bwd" --kind reciprocal "${common[@]}" >>"$TMP/logs/kdb.log" 2>&1; then
        cat "$TMP/logs/kdb.log"
        return 1
    fi
}
check "axibulk mkdb: forward and reciprocal kernel databases" kdbs
for ev in A:0.0:0.0 B:1.0:0.5; do
    IFS=: read -r name lat lon <<<"$ev"
    printf '%s\n' " PDE 2014  1  5  0  0  0.00  $lat  $lon  12.0 5.7 5.7 SLURM TEST" "event name:     EV$name" \
        "time shift:      0.0000" "half duration:   1.0000" "latitude:        $lat" "longitude:       $lon" \
        "depth:          12.0000" "Mrr:       1.000000e+24" "Mtt:      -0.500000e+24" "Mpp:      -0.500000e+24" \
        "Mrt:       0.200000e+24" "Mrp:      -0.100000e+24" "Mtp:       0.300000e+24" >"$K/CMT_$name"
done
printf 'A    XX   0.0   5.0   0.0   0.0\nB    XX   2.0   4.0   0.0   0.0\n' >"$K/STATIONS"
kjob() { # NAME EVENT COUNTS RECEIVER [OUTPUT]: jobs/NAME.yaml, a P travel-time kernel for vp and vs
    cat >"$K/jobs/$1.yaml" <<YAML
# slurm_test.sh: kernel job $1
forward-db: ../fwd
backward-db: ../bwd
event: ../CMT_$2
receivers: ../STATIONS
mesh:
  voxels: {lat: [-2, 2], lon: [-1, 6], depth-km: [20, 300], counts: [$3]}
max-points: 64
${5:+output: $5   # relative to this file}
kernels:
  - name: P_Z
    receiver: $4
    component: Z
    lowpass: 0.01
    zerophase: true
    window: [10, 90]
    misfit: cc
    parameters: [vp, vs]
YAML
}
kjob evA A "4, 8, 4" XX.A "../results/evA.h5"
kjob evB B "4, 8, 4" XX.A
kjob bad A "4, 8, 4" XX.NOPE
kjob big A "8, 16, 16" XX.A             # 2048 cells: a few seconds, killed part-way below
# its uninterrupted run, for comparing the resumed one with; in the background meanwhile
"$AXB" kernel --job "$K/jobs/big.yaml" -o "$TMP/out/kern_big_ref.h5" -q >"$TMP/logs/kern_big_ref.log" 2>&1 &
kref=$!
printf '# kernel jobs, one event each\n%s\n\n%s\n' "kern/jobs/evA.yaml" "kern/jobs/evB.yaml" >"$K/jobs.txt"

# --- phase 1, all at once: two single extractions, two arrays of 3 tasks, a job with bad input
DB=$DB CMT=$CMT STATIONS=$STA OUTPUT="$TMP/out/cat.h5" COMPONENTS=ZNE KIND=velocity DT=5 \
    bg cat -n 2 -o "$TMP/logs/cat-%j.out" "$SCRIPTS/extract.sbatch"
DB=$DB PAIRS="$TMP/pairs10.txt" OUTPUT="$TMP/out/pairs.h5" COMPONENTS=ZNERT PRECISION=float64 LAUNCHER=mpirun \
    bg pairs -n 2 -o "$TMP/logs/pairs-%j.out" "$SCRIPTS/extract.sbatch"
DB=$DB PAIRS="$TMP/pairs10.txt" OUT_DIR="$TMP/out/pairs_parts" COMPONENTS=Z \
    bg arr_pairs -n 1 --array=0-2 -o "$TMP/logs/arr_pairs-%A_%a.out" "$SCRIPTS/extract_array.sbatch"
DB=$DB LIST="$TMP/faults.txt" STATIONS=$STA OUT_DIR="$TMP/out/fault_parts" \
    bg arr_faults -n 1 --array=0-2 -o "$TMP/logs/arr_faults-%A_%a.out" "$SCRIPTS/extract_array.sbatch"
DB="$TMP/no-such-db" PAIRS="$TMP/pairs10.txt" OUTPUT="$TMP/out/bad.h5" \
    bg bad -n 1 -o "$TMP/logs/bad-%j.out" "$SCRIPTS/extract.sbatch"
# kernels: one job on 2 ranks (its own output: relative to the job file), an array over the two
# events, a job axibulk refuses, a bad variable
JOB=kern/jobs/evA.yaml bg kern1 -n 2 -o "$TMP/logs/kern1-%j.out" "$SCRIPTS/kernel.sbatch"
JOBS=kern/jobs.txt OUT_DIR=out/kern_arr QUIET=1 \
    bg kern_arr -n 1 --array=0-1 -o "$TMP/logs/kern_arr-%A_%a.out" "$SCRIPTS/kernel.sbatch"
JOB=kern/jobs/bad.yaml OUTPUT=out/kern_bad.h5 bg kern_bad -n 1 -o "$TMP/logs/kern_bad-%j.out" "$SCRIPTS/kernel.sbatch"
JOB=kern/jobs/evB.yaml CACHE_MB=lots bg kern_badvar -n 1 -o "$TMP/logs/kern_badvar-%j.out" "$SCRIPTS/kernel.sbatch"

wait_bg cat; rc=$?
check "extract.sbatch CMT x STATIONS, 2 ranks: exit 0 (got $rc)" [ "$rc" = 0 ]
check "extract.sbatch output: $((nev * nsta)) rows x 3 components" has_rows_comps "$TMP/out/cat.h5" $((nev * nsta)) 3
check "extract.sbatch output: dt 5 s, velocity" \
    bash -c "h5dump -a /seismograms/dt '$TMP/out/cat.h5' | grep -q '(0): 5\$' && h5dump -a /seismograms/kind '$TMP/out/cat.h5' | grep -q velocity"
"$AXB" extract --db "$DB" --cmt "$CMT" --stations "$STA" --components ZNE --kind velocity --dt 5 \
    -o "$TMP/out/cat_ref.h5" -q >"$TMP/logs/cat_ref.log" 2>&1
check "extract.sbatch output equals a direct 1-rank run (h5diff)" \
    h5diff -q "$TMP/out/cat.h5" "$TMP/out/cat_ref.h5" /seismograms /seismograms

wait_bg pairs; rc=$?
check "extract.sbatch PAIRS, LAUNCHER=mpirun, 2 ranks: exit 0 (got $rc)" [ "$rc" = 0 ]
check "extract.sbatch PAIRS output: 10 rows x 5 components" has_rows_comps "$TMP/out/pairs.h5" 10 5

wait_bg arr_pairs; rc=$?
check "extract_array.sbatch PAIRS --array=0-2: exit 0 (got $rc)" [ "$rc" = 0 ]
P="$TMP/out/pairs_parts"
pairs_parts_ok() { has_dims "$P/part_0.h5" 3,1,67 && has_dims "$P/part_1.h5" 3,1,67 && has_dims "$P/part_2.h5" 4,1,67; }
check "array parts of 3+3+4 pairs x Z x 67 samples" pairs_parts_ok
check "check_parts.sh passes on the complete PAIRS batch" bash "$SCRIPTS/check_parts.sh" "$P"
# the parts hold the same Z traces as the single run, in order
"$AXB" extract --db "$DB" --pairs "$TMP/pairs10.txt" --components Z -o "$TMP/out/pairs_z.h5" -q >/dev/null 2>&1
cmp_parts() {
    local i lo=0 n
    for i in 0 1 2; do
        n=$(dims "$P/part_$i.h5"); n=${n%%,*}
        h5dump -d "/seismograms[$lo,0,0;;$n,1,67]" -y -w 0 "$TMP/out/pairs_z.h5" | sed -n '/DATA {/,/}/p' | tail -n +2 | head -n -1 | tr -s ' ,\n' ' ' >"$TMP/a"
        h5dump -d /seismograms -y -w 0 "$P/part_$i.h5" | sed -n '/DATA {/,/}/p' | tail -n +2 | head -n -1 | tr -s ' ,\n' ' ' >"$TMP/b"
        cmp -s "$TMP/a" "$TMP/b" || { echo "  part $i differs from rows $lo.. of the single run"; return 1; }
        lo=$((lo + n))
    done
}
check "the parts equal the rows of one single run, in order" cmp_parts

wait_bg arr_faults; rc=$?
check "extract_array.sbatch LIST of 3 faults --array=0-2: exit 0 (got $rc)" [ "$rc" = 0 ]
F="$TMP/out/fault_parts"
fault_parts_ok() { local i; for i in 0 1 2; do has_dims "$F/part_$i.h5" "$nsta,3,73" || return 1; done; }
check "fault parts: $nsta rows x 3 components x 73 samples each" fault_parts_ok
check "check_parts.sh passes on the complete fault batch" bash "$SCRIPTS/check_parts.sh" "$F"

wait_bg bad; rc=$?
check "extract.sbatch with a missing DB: the job fails with status 2 (got $rc)" [ "$rc" = 2 ]
check "... and its log names the problem" grep_q "no-such-db: no such database" "$TMP"/logs/bad-*.out

# --- kernel.sbatch
# "NAME Dataset {DIMS}" lines of FILE's GROUP, sorted, one per line: "P_Z_vp {128}"
h5list() { h5ls "$1/$2" 2>/dev/null | sed -n 's/^\([^ ]*\) *Dataset \({[^}]*}\).*/\1 \2/p' | sort | tr '\n' ';'; }
kernel_file_ok() { # FILE NCELL
    local want="P_Z_vp {$2};P_Z_vs {$2};" g
    for g in kernels errors; do
        [ "$(h5list "$1" $g)" = "$want" ] || { echo "  $1/$g: '$(h5list "$1" $g)', expected '$want'"; return 1; }
    done
    [[ "$(h5list "$1" mesh)" == "cells {$2, 8};points {$2};vertices {"*"volume {$2};" ]] ||
        { echo "  $1/mesh: '$(h5list "$1" mesh)'"; return 1; }
    [ -s "${1%.h5}.xdmf" ] || { echo "  no ${1%.h5}.xdmf"; return 1; }
}
wait_bg kern1; rc=$?
check "kernel.sbatch JOB, 2 ranks: exit 0 (got $rc)" [ "$rc" = 0 ]
check "... the job's own output (relative to the job file): kernels, errors of 128 cells, mesh, XDMF" \
    kernel_file_ok "$K/results/evA.h5" 128
JOB=kern/jobs/evA.yaml sbatch --wait --export=ALL --chdir="$TMP" -n 1 -o "$TMP/logs/kern1_again-%j.out" \
    "$SCRIPTS/kernel.sbatch" >"$TMP/logs/kern1_again.sbatch" 2>&1; rc=$?
check "kernel.sbatch resubmitted with the output complete: exit 0 (got $rc), 'already complete'" \
    bash -c "[ $rc = 0 ] && grep -q 'already complete' '$TMP'/logs/kern1_again-*.out"

wait_bg kern_arr; rc=$?
check "kernel.sbatch JOBS --array=0-1 (2 events): exit 0 (got $rc)" [ "$rc" = 0 ]
kern_arr_ok() { kernel_file_ok "$TMP/out/kern_arr/evA.h5" 128 && kernel_file_ok "$TMP/out/kern_arr/evB.h5" 128; }
check "... OUT_DIR/evA.h5 and OUT_DIR/evB.h5, 128 cells each" kern_arr_ok
check "... evA on 1 rank (array) equals evA on 2 ranks (h5diff /kernels, /errors)" \
    bash -c "h5diff -q '$K/results/evA.h5' '$TMP/out/kern_arr/evA.h5' /kernels /kernels && h5diff -q '$K/results/evA.h5' '$TMP/out/kern_arr/evA.h5' /errors /errors"
check "... the two events' kernels differ" \
    bash -c "! h5diff -q '$TMP/out/kern_arr/evA.h5' '$TMP/out/kern_arr/evB.h5' /kernels /kernels"

wait_bg kern_bad; rc=$?
check "kernel.sbatch with a bad job (unknown receiver): status 2 (got $rc)" [ "$rc" = 2 ]
check "... its log names the problem, no output left" \
    bash -c "grep -q \"'XX.NOPE' is not in the receivers file\" '$TMP'/logs/kern_bad-*.out && ! ls '$TMP'/out/kern_bad* >/dev/null 2>&1"
wait_bg kern_badvar; rc=$?
check "kernel.sbatch with CACHE_MB=lots: status 2 (got $rc), one line naming it" \
    bash -c "[ $rc = 2 ] && [ \"\$(grep -c . '$TMP'/logs/kern_badvar-*.out)\" = 1 ] && grep -q 'CACHE_MB=lots: not a number' '$TMP'/logs/kern_badvar-*.out"

# --- check_parts.sh on damaged batches must fail and name the part
cp -r "$F" "$TMP/out/broken"
rm "$TMP/out/broken/part_1.h5"
out=$(bash "$SCRIPTS/check_parts.sh" "$TMP/out/broken" 2>&1); rc=$?
check "check_parts.sh fails with part_1.h5 missing (status $rc)" [ "$rc" = 1 ]
check "... naming part_1.h5 and --array=1" bash -c "grep -q 'part_1.h5: missing' <<<'$out' && grep -q -- '--array=1\$' <<<'$out'"
cp "$F/part_1.h5" "$TMP/out/broken/part_1.h5"; : >"$TMP/out/broken/part_2.h5.partial"
out=$(bash "$SCRIPTS/check_parts.sh" "$TMP/out/broken" 2>&1); rc=$?
check "check_parts.sh fails with a .partial left (status $rc), naming it" \
    bash -c "[ $rc = 1 ] && grep -q 'part_2.h5.partial: left by an unfinished task' <<<'$out'"
rm "$TMP/out/broken/part_2.h5.partial"; head -c 1000 "$F/part_2.h5" >"$TMP/out/broken/part_2.h5"
out=$(bash "$SCRIPTS/check_parts.sh" "$TMP/out/broken" 2>&1); rc=$?
check "check_parts.sh fails on a truncated part (status $rc)" bash -c "[ $rc = 1 ] && grep -q 'part_2.h5: cannot be read' <<<'$out'"
out=$(bash "$SCRIPTS/check_parts.sh" --rows 5 "$F" 2>&1); rc=$?
check "check_parts.sh fails on wrong row counts (status $rc)" bash -c "[ $rc = 1 ] && grep -q 'part_0.h5: $nsta rows, expected 5' <<<'$out'"

# --- resubmitting only task 1 of the PAIRS array: same chunking (from the manifest), part rebuilt
rm "$P/part_1.h5"; : >"$P/part_1.h5.partial"
mtime0=$(stat -c %Y.%y "$P/part_0.h5")
DB=$DB PAIRS="$TMP/pairs10.txt" OUT_DIR="$P" COMPONENTS=Z \
    sbatch --wait --export=ALL --chdir="$TMP" -n 1 --array=1 -o "$TMP/logs/arr_pairs_again-%A_%a.out" \
    "$SCRIPTS/extract_array.sbatch" >"$TMP/logs/arr_pairs_again.sbatch" 2>&1; rc=$?
check "resubmitting task 1 (--array=1) after a kill: exit 0 (got $rc)" [ "$rc" = 0 ]
check "... it resumed the .partial (which records nothing) and made 3 rows again" \
    bash -c "grep -q 'resuming it' '$TMP'/logs/arr_pairs_again-*_1.out && h5ls '$P/part_1.h5/seismograms' | grep -q '{3, 1, 67}'"
check "... and check_parts.sh passes again, other parts untouched" \
    bash -c "bash '$SCRIPTS/check_parts.sh' '$P' && [ \"\$(stat -c %Y.%y '$P/part_0.h5')\" = '$mtime0' ]"

# --- repack: killed part-way by scancel, then resubmitted: resumes, verifies, completes
M="$TMP/merged"
jid=$(SRC=$DB DST=$M MEMORY=64K CHECKPOINT=0 sbatch --parsable --export=ALL --chdir="$TMP" -n 2 \
    -o "$TMP/logs/repack1-%j.out" "$SCRIPTS/repack.sbatch" 2>"$TMP/logs/repack1.sbatch"); rc=$?
interrupted=0
if [ "$rc" = 0 ]; then
    for _ in $(seq 1 400); do
        # the record (core/partial.h) holds a header line of < 64 bytes, then lists of finished elements
        rec_size=$(stat -c %s "$M/merged_output.nc4.partial.record" 2>/dev/null || echo 0)
        if [ "$rec_size" -gt 64 ]; then scancel "$jid"; interrupted=1; break; fi
        [ -n "$(squeue -h -j "$jid" 2>/dev/null)" ] || break
        sleep 0.05
    done
    for _ in $(seq 1 200); do [ -n "$(squeue -h -j "$jid" 2>/dev/null)" ] || break; sleep 0.1; done
fi
check "repack.sbatch cancelled part-way leaves a .partial, no output" \
    bash -c "[ $interrupted = 1 ] && [ -e '$M/merged_output.nc4.partial' ] && [ ! -e '$M/merged_output.nc4' ]"
SRC=$DB DST=$M sbatch --wait --export=ALL --chdir="$TMP" -n 2 -o "$TMP/logs/repack2-%j.out" \
    "$SCRIPTS/repack.sbatch" >"$TMP/logs/repack2.sbatch" 2>&1; rc=$?
check "repack.sbatch resubmitted: exit 0 (got $rc)" [ "$rc" = 0 ]
check "... it resumed (--resume) and verified" \
    bash -c "grep -q -- '--resume' '$TMP'/logs/repack2-*.out && grep -q 'verified' '$TMP'/logs/repack2-*.out"
check "... no .partial left, merged_output.nc4 complete" \
    bash -c "[ -e '$M/merged_output.nc4' ] && [ ! -e '$M/merged_output.nc4.partial' ]"
"$AXB" info "$M" >"$TMP/logs/info-merged.txt" 2>&1
check "axibulk info: merged layout, 530 elements, 73 samples" \
    bash -c "grep -q '^layout *merged' '$TMP/logs/info-merged.txt' && grep -q '^elements *530\$' '$TMP/logs/info-merged.txt' && grep -q '^samples *73\$' '$TMP/logs/info-merged.txt'"
SRC=$DB DST=$M sbatch --wait --export=ALL --chdir="$TMP" -n 1 -o "$TMP/logs/repack3-%j.out" \
    "$SCRIPTS/repack.sbatch" >"$TMP/logs/repack3.sbatch" 2>&1; rc=$?
check "repack.sbatch a third time: nothing to do, exit 0 (got $rc)" \
    bash -c "[ $rc = 0 ] && grep -q 'already complete' '$TMP'/logs/repack3-*.out"

# --- kernel.sbatch: cancelled part-way, after checkpoints have recorded a quarter of the cells in
# OUT.partial.record, then resubmitted with 1 rank instead of 2: it resumes, computes only the
# rest, and the result equals the uninterrupted run's
KB="$TMP/out/kern_big.h5"
jid=$(JOB=kern/jobs/big.yaml OUTPUT=out/kern_big.h5 CHECKPOINT=0.2 sbatch --parsable --export=ALL --chdir="$TMP" \
    -n 2 -o "$TMP/logs/kern_big1-%j.out" "$SCRIPTS/kernel.sbatch" 2>"$TMP/logs/kern_big1.sbatch"); rc=$?
interrupted=0
if [ "$rc" = 0 ]; then
    for _ in $(seq 1 600); do
        # about a quarter of the cells recorded
        if [ "$(record_units "$KB.partial.record")" -ge 512 ]; then
            scancel "$jid"; interrupted=1; break
        fi
        [ -n "$(squeue -h -j "$jid" 2>/dev/null)" ] || break
        sleep 0.05
    done
    for _ in $(seq 1 200); do [ -n "$(squeue -h -j "$jid" 2>/dev/null)" ] || break; sleep 0.1; done
fi
check "kernel.sbatch cancelled part-way leaves OUT.partial, .record, .cells, no OUT" \
    bash -c "[ $interrupted = 1 ] && [ -e '$KB.partial' ] && [ -s '$KB.partial.record' ] && [ -e '$KB.partial.cells' ] && [ ! -e '$KB' ]"
nrec=$(record_units "$KB.partial.record")
JOB=kern/jobs/big.yaml OUTPUT=out/kern_big.h5 STATS=1 sbatch --wait --export=ALL --chdir="$TMP" -n 1 \
    -o "$TMP/logs/kern_big2-%j.out" "$SCRIPTS/kernel.sbatch" >"$TMP/logs/kern_big2.sbatch" 2>&1; rc=$?
check "kernel.sbatch resubmitted (1 rank): exit 0 (got $rc), resumed (--resume)" \
    bash -c "[ $rc = 0 ] && grep -q 'resuming it' '$TMP'/logs/kern_big2-*.out && grep -q -- '--resume' '$TMP'/logs/kern_big2-*.out"
# "cells": 2048, "cells_computed": N
computed() { tr -d ' \n' <"${KB%.h5}.stats.json" | sed -n 's/.*"cells_computed":\([0-9]*\).*/\1/p'; }
check "... it computed exactly the $((2048 - nrec)) cells not recorded (got $(computed)), no .partial left" \
    bash -c "[ '$nrec' -gt 0 ] && [ '$(computed)' = $((2048 - nrec)) ] && [ -e '$KB' ] && ! ls '$KB'.partial* >/dev/null 2>&1"
wait "$kref"; rc=$?
check "the uninterrupted run: exit 0 (got $rc)" [ "$rc" = 0 ]
same_groups() { local g; for g in /kernels /errors /mesh /seismograms; do h5diff "$1" "$2" $g $g || return 1; done; }
check "... the resumed output equals it (h5diff /kernels, /errors, /mesh, /seismograms)" \
    same_groups "$KB" "$TMP/out/kern_big_ref.h5"

echo "slurm_test: $(($(date +%s) - t0)) s"
finish
