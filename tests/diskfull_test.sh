#!/usr/bin/env bash
# A full disk, for real: an 8 MiB tmpfs as the target of mkdb, repack and extract (bulk and ASDF)
# at 2 ranks. Each must stop at once with exit status 1 (the machine's failure, docs/cli.md), one
# error line that says the disk is full, and nothing published. Needs root and a kernel that lets
# it mount a tmpfs; skipped (77) otherwise.
# usage: diskfull_test.sh AXIBULK MPIEXEC
set -u
AXB=$1 MPIEXEC=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_odls_base_sigkill_timeout=0 # tests/CMakeLists.txt
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/leak_checked.sh"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axb-diskfull-XXXXXX")
FULL="$TMP/full"
mkdir -p "$FULL"
cleanup() { umount "$FULL" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=8m tmpfs "$FULL" 2>/dev/null; then
    echo "skipped: cannot mount a tmpfs here (needs root)"
    exit 77
fi
passed=0 failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

"$MPIEXEC" -n 2 "$AXB" mkdb -o "$TMP/db" --period 40 --length 1200 --rmin-km 5000 --points-per-wavelength 6 \
    >/dev/null 2>&1 || { echo "FAIL: mkdb outside the tmpfs"; echo "0 passed, 1 failed"; exit 1; }
python3 - > "$TMP/pairs.txt" <<'PY'
import random
random.seed(3)
for i in range(12000):
    print(f"mt {random.uniform(-80, 80):.3f} {random.uniform(-180, 180):.3f} 10000 1e18 -5e17 -5e17 2e17 -1e17 3e17 "
          f"{random.uniform(-80, 80):.3f} {random.uniform(-180, 180):.3f}")
PY

# [leak_checked] NAME FINAL COMMAND...: run under mpirun -q (Open MPI's own lines off), check status,
# line, leftovers
check() {
    local pre=()
    if [ "$1" = leak_checked ]; then pre=(leak_checked); shift; fi
    local name=$1 final=$2
    shift 2
    rm -rf "${FULL:?}"/*
    "${pre[@]}" timeout 60 "$MPIEXEC" -q -n 2 "$AXB" "$@" >/dev/null 2>"$TMP/err"
    local rc=$?
    local lines; lines=$(grep -c "error" "$TMP/err")
    if [ $rc != 1 ]; then fail "$name: exit status $rc (want 1): $(cat "$TMP/err")"; return; fi
    if [ "$lines" != 1 ]; then fail "$name: $lines error lines (want 1): $(cat "$TMP/err")"; return; fi
    if ! grep -q "not enough free disk\|No space left\|disk full" "$TMP/err"; then fail "$name: $(cat "$TMP/err")"; return; fi
    if [ -e "$final" ]; then fail "$name: $final published"; return; fi
    echo "$name: $(grep error "$TMP/err")"
    passed=$((passed + 1))
}

check "mkdb" "$FULL/db" mkdb -o "$FULL/db" --period 40 --length 1200 --rmin-km 5000 --points-per-wavelength 6
check "repack" "$FULL/m/merged_output.nc4" repack "$TMP/db" "$FULL/m" -q
check leak_checked "extract bulk" "$FULL/out.h5" extract --db "$TMP/db" --pairs "$TMP/pairs.txt" -o "$FULL/out.h5" -q
check "extract asdf" "$FULL/out.asdf.h5" extract --db "$TMP/db" --pairs "$TMP/pairs.txt" --format asdf \
    -o "$FULL/out.asdf.h5" -q
# (a disk that fills up in the middle of a run goes through the same write paths that
# test_fault_inject fails one rank at a time)
echo "$passed passed, $failed failed"
[ $failed = 0 ]
