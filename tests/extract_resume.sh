#!/usr/bin/env bash
# Kill an extraction with SIGKILL part-way (a real signal, wherever it is), then --resume: the
# finished file must equal, value for value, the file of an uninterrupted run of the same job.
# usage: extract_resume.sh AXIBULK MPIEXEC
set -u
AXB=$1 MPIEXEC=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axb-xresume-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; echo "0 passed, 1 failed"; exit 1; }
"$MPIEXEC" -n 2 "$AXB" mkdb -o "$TMP/db" --kind reciprocal --period 40 --length 1200 --rmin-km 5000 --points-per-wavelength 6 >/dev/null || fail "mkdb"
python3 - > "$TMP/pairs.txt" <<'PY'
import math, random
random.seed(11)
for i in range(150000):
    sl = math.degrees(math.asin(2 * random.random() - 1)); so = 360 * random.random() - 180
    rl = math.degrees(math.asin(2 * random.random() - 1)); ro = 360 * random.random() - 180
    print(f"mt {sl:.4f} {so:.4f} {random.uniform(0, 1000e3):.0f} 1e18 -5e17 -5e17 2e17 -1e17 3e17 {rl:.4f} {ro:.4f}")
PY
args=(extract --db "$TMP/db" --pairs "$TMP/pairs.txt" --components ZNE --precision float64 --batch-mb 1 -q)
"$MPIEXEC" -n 2 "$AXB" "${args[@]}" -o "$TMP/ref.h5" >/dev/null || fail "reference run"
# the killed run writes collectively, the resumed one independently (the default on one node):
# both write the same file layout and record rows the same way
"$MPIEXEC" -n 2 "$AXB" "${args[@]}" --write-mode collective -o "$TMP/out.h5" >/dev/null 2>&1 &
pid=$!
killed=0
for _ in $(seq 1 20000); do
    if [ -s "$TMP/out.h5.partial.record" ] && [ "$(stat -c %s "$TMP/out.h5.partial.record")" -gt 400000 ]; then
        kill -9 "$pid" 2>/dev/null; pkill -9 -f "pairs $TMP/pairs.txt" 2>/dev/null; killed=1; break
    fi
    sleep 0.01
done
wait "$pid" 2>/dev/null
[ $killed = 1 ] && [ ! -e "$TMP/out.h5" ] || fail "the extraction could not be interrupted part-way"
echo "killed with $(stat -c %s "$TMP/out.h5.partial.record") bytes of row records"
"$MPIEXEC" -n 2 "$AXB" "${args[@]}" -o "$TMP/out.h5" --resume >/dev/null || fail "--resume failed"
[ -e "$TMP/out.h5" ] && [ ! -e "$TMP/out.h5.partial" ] && [ ! -e "$TMP/out.h5.partial.record" ] || fail "not committed"
h5diff "$TMP/ref.h5" "$TMP/out.h5" /seismograms /seismograms >/dev/null || fail "resumed file differs from an uninterrupted run"
# a second resume has nothing to do and says so
if "$MPIEXEC" -n 2 "$AXB" "${args[@]}" -o "$TMP/out.h5" --resume >/dev/null 2>"$TMP/err"; then fail "resume of a complete file accepted"; fi
grep -q "nothing to resume" "$TMP/err" || fail "unexpected message: $(cat "$TMP/err")"

# The same for ASDF (one dataset per trace, all created up front; rows recorded as for bulk)
head -8000 "$TMP/pairs.txt" > "$TMP/pairs8k.txt"
aargs=(extract --db "$TMP/db" --pairs "$TMP/pairs8k.txt" --components ZNE --format asdf --batch-mb 1 -q)
"$MPIEXEC" -n 2 "$AXB" "${aargs[@]}" -o "$TMP/ref.asdf.h5" >/dev/null || fail "ASDF reference run"
"$MPIEXEC" -n 2 "$AXB" "${aargs[@]}" -o "$TMP/out.asdf.h5" >/dev/null 2>&1 &
pid=$!
killed=0
for _ in $(seq 1 20000); do
    if [ -s "$TMP/out.asdf.h5.partial.record" ] && [ "$(stat -c %s "$TMP/out.asdf.h5.partial.record")" -gt 30000 ]; then
        kill -9 "$pid" 2>/dev/null; pkill -9 -f "pairs $TMP/pairs8k.txt" 2>/dev/null; killed=1; break
    fi
    sleep 0.01
done
wait "$pid" 2>/dev/null
[ $killed = 1 ] && [ ! -e "$TMP/out.asdf.h5" ] || fail "the ASDF extraction could not be interrupted part-way"
echo "ASDF: killed with $(stat -c %s "$TMP/out.asdf.h5.partial.record") bytes of row records"
"$MPIEXEC" -n 2 "$AXB" "${aargs[@]}" -o "$TMP/out.asdf.h5" --resume >/dev/null || fail "ASDF --resume failed"
[ -e "$TMP/out.asdf.h5" ] && [ ! -e "$TMP/out.asdf.h5.partial" ] || fail "ASDF not committed"
h5diff "$TMP/ref.asdf.h5" "$TMP/out.asdf.h5" /Waveforms /Waveforms >/dev/null || fail "resumed ASDF file differs from an uninterrupted run"
# a resume against another job's unfinished file is refused, not half overwritten
"$MPIEXEC" -n 2 "$AXB" "${aargs[@]}" -o "$TMP/x.asdf.h5" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 20000); do [ -s "$TMP/x.asdf.h5.partial.record" ] && break; sleep 0.01; done
kill -9 "$pid" 2>/dev/null; pkill -9 -f "pairs $TMP/pairs8k.txt" 2>/dev/null; wait "$pid" 2>/dev/null
if [ -e "$TMP/x.asdf.h5.partial" ]; then
    if "$MPIEXEC" -n 2 "$AXB" "${aargs[@]}" --components Z -o "$TMP/x.asdf.h5" --resume >/dev/null 2>"$TMP/err"; then
        fail "resume of a different job accepted"
    fi
    grep -q "cannot resume" "$TMP/err" || fail "unexpected message: $(cat "$TMP/err")"
fi
echo "6 passed, 0 failed"
