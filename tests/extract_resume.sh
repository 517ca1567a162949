#!/usr/bin/env bash
# Kill an extraction with SIGKILL part-way (a real signal, wherever it is), then --resume: the
# finished file must equal, value for value, the file of an uninterrupted run of the same job.
# usage: extract_resume.sh AXIBULK MPIEXEC [small|large]
# The size (or AXB_RESUME_SIZE) picks the job: large (the release pass) or small (the default for
# a binary built with AddressSanitizer, which runs ~10x slower). Both are many batches per rank
# (the mesh's 1188 elements of 60 kB, 17 per 1 MB batch), so the kill, which waits until a
# quarter of the rows is recorded as on disk, always lands with batches left to do.
set -u
AXB=$1 MPIEXEC=$2
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/record_units.sh"
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/leak_checked.sh"
size=${3:-${AXB_RESUME_SIZE:-}}
if [ -z "$size" ]; then
    if ldd "$AXB" 2>/dev/null | grep -q libasan; then size=small; else size=large; fi
fi
case $size in
    large) npairs=12000 nasdf=600 ;;
    small) npairs=4000 nasdf=300 ;;
    *) echo "unknown size '$size' (small or large)"; exit 2 ;;
esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_odls_base_sigkill_timeout=0 # tests/CMakeLists.txt
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axb-xresume-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; echo "0 passed, 1 failed"; exit 1; }
echo "size $size: $npairs pairs (bulk), $nasdf pairs (ASDF)"
"$MPIEXEC" -n 2 "$AXB" mkdb -o "$TMP/db" --kind reciprocal --period 40 --length 1200 --rmin-km 5000 --points-per-wavelength 6 >/dev/null || fail "mkdb"
python3 - "$npairs" > "$TMP/pairs.txt" <<'PY'
import math, random, sys
random.seed(11)
for i in range(int(sys.argv[1])):
    sl = math.degrees(math.asin(2 * random.random() - 1)); so = 360 * random.random() - 180
    rl = math.degrees(math.asin(2 * random.random() - 1)); ro = 360 * random.random() - 180
    print(f"mt {sl:.4f} {so:.4f} {random.uniform(0, 1000e3):.0f} 1e18 -5e17 -5e17 2e17 -1e17 3e17 {rl:.4f} {ro:.4f}")
PY

# Runs "$@" in the background and kills it (every rank, SIGKILL) once the record OUT.partial.record
# lists at least ROWS rows. OUT must then be unfinished. The killed runs checkpoint after
# every batch (--checkpoint 0), so their record grows while they run; the default 10 s could
# record nothing before so short a run ends.
kill_at_rows() {
    local out=$1 rows=$2 tag=$3
    shift 3
    "$@" >/dev/null 2>&1 &
    local pid=$! killed=0 rec="$out.partial.record"
    for _ in $(seq 1 30000); do
        if [ "$(record_units "$rec")" -ge "$rows" ]; then
            kill -9 "$pid" 2>/dev/null; pkill -9 -f "$tag" 2>/dev/null; killed=1; break
        fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.01
    done
    { wait "$pid"; } 2>/dev/null
    [ $killed = 1 ] && [ ! -e "$out" ] || fail "the extraction of $out could not be interrupted part-way"
    echo "$(basename "$out"): killed with $(record_units "$rec") rows recorded"
}

args=(extract --db "$TMP/db" --pairs "$TMP/pairs.txt" --components ZNE --precision float64 --batch-mb 1 -q)
"$MPIEXEC" -n 2 "$AXB" "${args[@]}" -o "$TMP/ref.h5" >/dev/null || fail "reference run"
# the killed run writes collectively, the resumed one independently (the default on one node):
# both write the same file layout and record rows the same way; the resumed one checkpoints at
# the default interval (rows not recorded by the end are published by the commit all the same)
kill_at_rows "$TMP/out.h5" $((npairs / 4)) "pairs $TMP/pairs.txt" \
    "$MPIEXEC" -n 2 "$AXB" "${args[@]}" --write-mode collective --checkpoint 0 -o "$TMP/out.h5"
leak_checked "$MPIEXEC" -n 2 "$AXB" "${args[@]}" -o "$TMP/out.h5" --resume >"$TMP/summary" || fail "--resume failed"
# the summary tells the rows of this run from those of the killed one
grep -q "^wrote $npairs rows ([1-9][0-9]* of them written before the resume)" "$TMP/summary" ||
    fail "resume summary: $(cat "$TMP/summary")"
[ -e "$TMP/out.h5" ] && [ ! -e "$TMP/out.h5.partial" ] && [ ! -e "$TMP/out.h5.partial.record" ] || fail "not committed"
h5diff "$TMP/ref.h5" "$TMP/out.h5" /seismograms /seismograms >/dev/null || fail "resumed file differs from an uninterrupted run"
# a second resume has nothing to do and says so
if "$MPIEXEC" -n 2 "$AXB" "${args[@]}" -o "$TMP/out.h5" --resume >/dev/null 2>"$TMP/err"; then fail "resume of a complete file accepted"; fi
grep -q "nothing to resume" "$TMP/err" || fail "unexpected message: $(cat "$TMP/err")"

# The same for ASDF (one dataset per trace, all created up front; rows recorded as for bulk)
head -"$nasdf" "$TMP/pairs.txt" > "$TMP/pairs_asdf.txt"
aargs=(extract --db "$TMP/db" --pairs "$TMP/pairs_asdf.txt" --components ZNE --format asdf --batch-mb 1 -q)
"$MPIEXEC" -n 2 "$AXB" "${aargs[@]}" -o "$TMP/ref.asdf.h5" >/dev/null || fail "ASDF reference run"
kill_at_rows "$TMP/out.asdf.h5" $((nasdf / 4)) "pairs $TMP/pairs_asdf.txt" \
    "$MPIEXEC" -n 2 "$AXB" "${aargs[@]}" --checkpoint 0 -o "$TMP/out.asdf.h5"
"$MPIEXEC" -n 2 "$AXB" "${aargs[@]}" -o "$TMP/out.asdf.h5" --resume >/dev/null || fail "ASDF --resume failed"
[ -e "$TMP/out.asdf.h5" ] && [ ! -e "$TMP/out.asdf.h5.partial" ] || fail "ASDF not committed"
# every trace; each station's StationXML document differs by its <Created> time only (two runs)
xargs=()
for g in $(h5ls "$TMP/ref.asdf.h5/Waveforms" | awk '{print $1}'); do xargs+=(--exclude-path "/$g/StationXML"); done
h5diff "${xargs[@]}" "$TMP/ref.asdf.h5" "$TMP/out.asdf.h5" /Waveforms /Waveforms >/dev/null ||
    fail "resumed ASDF file differs from an uninterrupted run"
# killed before its first record (here: a leftover with no record, even a damaged one): --resume
# starts again from nothing and gives the uninterrupted run's file
head -c 100000 "$TMP/ref.h5" > "$TMP/early.h5.partial"
"$MPIEXEC" -n 2 "$AXB" "${args[@]}" -o "$TMP/early.h5" --resume >/dev/null 2>"$TMP/err" ||
    fail "--resume of a leftover without a record refused: $(cat "$TMP/err")"
h5diff "$TMP/ref.h5" "$TMP/early.h5" /seismograms /seismograms >/dev/null || fail "restarted file differs"
# a resume against another job's unfinished file is refused, not half overwritten
kill_at_rows "$TMP/x.asdf.h5" 1 "pairs $TMP/pairs_asdf.txt" \
    "$MPIEXEC" -n 2 "$AXB" "${aargs[@]}" --checkpoint 0 -o "$TMP/x.asdf.h5"
if "$MPIEXEC" -n 2 "$AXB" "${aargs[@]}" --components Z -o "$TMP/x.asdf.h5" --resume >/dev/null 2>"$TMP/err"; then
    fail "resume of a different job accepted"
fi
grep -q "cannot resume" "$TMP/err" || fail "unexpected message: $(cat "$TMP/err")"
# nor a resume of the same shape whose values would differ: another filter, another database
# (same mesh and sampling, another shear modulus), named in the message
if "$MPIEXEC" -n 2 "$AXB" "${aargs[@]}" --lowpass 0.01 -o "$TMP/x.asdf.h5" --resume >/dev/null 2>"$TMP/err"; then
    fail "resume with another filter accepted"
fi
grep -q "filter: none, now" "$TMP/err" || fail "unexpected message for another filter: $(cat "$TMP/err")"
"$MPIEXEC" -n 2 "$AXB" mkdb -o "$TMP/db2" --kind reciprocal --period 40 --length 1200 --rmin-km 5000 \
    --points-per-wavelength 6 --rho 3000 >/dev/null || fail "mkdb db2"
a2=("${aargs[@]}")
for i in "${!a2[@]}"; do [ "${a2[$i]}" = "$TMP/db" ] && a2[$i]="$TMP/db2"; done
if "$MPIEXEC" -n 2 "$AXB" "${a2[@]}" -o "$TMP/x.asdf.h5" --resume >/dev/null 2>"$TMP/err"; then
    fail "resume with another database accepted"
fi
grep -q "(database: [0-9a-f]*, now [0-9a-f]*)" "$TMP/err" || fail "unexpected message for another database: $(cat "$TMP/err")"
echo "9 passed, 0 failed"
