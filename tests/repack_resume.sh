#!/usr/bin/env bash
# Kill a repack with SIGKILL part-way (a real signal, at whatever point it is), then --resume and
# --verify: the result must be complete and equal to the source element by element.
# usage: repack_resume.sh AXIBULK SHARED_DATA MPIEXEC
set -u
AXB=$1 DATA=$2 MPIEXEC=$3
SRC="$DATA/axisem-prem-50s/prem_50s_bwd_displ_only"
if [ ! -d "$SRC" ]; then echo "shared data not found: skipped"; exit 77; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_odls_base_sigkill_timeout=0 # tests/CMakeLists.txt
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/leak_checked.sh"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axb-resume-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# elements in the record (core/partial.h): a header line, then lists of int64 magic, count,
# units and a checksum; a torn last list is not counted
COUNT="$TMP/count.py"
cat >"$COUNT" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
i, n = d.index(b'\n') + 1, 0
while i + 16 <= len(d):
    magic, c = struct.unpack_from('<qq', d, i)
    if c <= 0 or i + 16 + 8 * c + 8 > len(d):
        break
    n += c
    i += 16 + 8 * c + 8
print(n)
PY
# Three times: killed while writing directly (the default), resumed directly; killed while writing
# collectively, resumed directly (the modes share the file layout and the record); and deflated
# output killed while rank 0 stores the ranks' compressed chunks, resumed the same way.
passed=0
for kill_mode in direct collective chunks; do
storage=()
mode=$kill_mode
if [ $kill_mode = chunks ]; then storage=(--deflate 2); mode=direct; fi
DST="$TMP/merged-$kill_mode"
REC="$DST/merged_output.nc4.partial.record"
# 1 MiB slabs: some hundred slabs, each recorded once on disk (--checkpoint 0)
"$MPIEXEC" -n 2 "$AXB" repack "$SRC" "$DST" "${storage[@]}" --memory 1M --checkpoint 0 --write-mode $mode -q \
    >"$TMP/log1" 2>&1 &
pid=$!
killed=0
for _ in $(seq 1 600); do
    if [ -s "$REC" ]; then
        n=$(python3 "$COUNT" "$REC" 2>/dev/null || echo 0)
        if [ "${n:-0}" -ge 200 ]; then kill -9 "$pid" 2>/dev/null; pkill -9 -f "repack $SRC $DST" 2>/dev/null; killed=1; break; fi
    fi
    sleep 0.02
done
wait "$pid" 2>/dev/null
if [ $killed = 0 ] || [ -e "$DST/merged_output.nc4" ]; then
    echo "FAIL ($kill_mode): the repack could not be interrupted part-way"; echo "$passed passed, 1 failed"; exit 1
fi
echo "$kill_mode: killed after $n of 4992 elements"
check=()
[ $kill_mode = direct ] && check=(leak_checked) # one resume keeps the leak check (tests/leak_checked.sh)
if "${check[@]}" "$MPIEXEC" -n 2 "$AXB" repack "$SRC" "$DST" "${storage[@]}" --memory 1M --resume --verify -q &&
   [ -e "$DST/merged_output.nc4" ] && [ ! -e "$DST/merged_output.nc4.partial" ]; then
    passed=$((passed + 1))
else
    echo "FAIL ($kill_mode): resume or verify failed"; echo "$passed passed, 1 failed"; exit 1
fi
done
# killed before anything was recorded (a leftover without a record): --resume starts again
rm -rf "$DST" && mkdir -p "$DST" && head -c 100000 "$SRC/PZ/Data/ordered_output.nc4" > "$DST/merged_output.nc4.partial"
if "$MPIEXEC" -n 2 "$AXB" repack "$SRC" "$DST" --resume --verify -q && [ -e "$DST/merged_output.nc4" ]; then
    passed=$((passed + 1))
else
    echo "FAIL: --resume of a leftover without a record"; echo "$passed passed, 1 failed"; exit 1
fi
echo "$passed passed, 0 failed"
