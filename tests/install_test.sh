#!/usr/bin/env bash
# The installed library as another project sees it: `cmake --install` into a temporary prefix;
# the files a user expects are there; every installed header compiles on its own and includes only
# installed headers; docs/example builds out of the tree with find_package(axibulk) AND with
# `pkg-config --cflags --libs axibulk`; both programs run (on a database made with the mkdb API,
# then on it and on the in-memory database with 2 ranks); the installed axibulk runs; the installed
# job scripts run the installed axibulk; the installed Python reader reads their output.
# usage: install_test.sh CMAKE BUILD_DIR SOURCE_DIR CC MPIEXEC
set -u
CMAKE=$1 BUILD=$2 SRC=$3 CC=$4 MPIEXEC=$5
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axb-install-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { # description command...
    local what=$1; shift
    if "$@" >"$TMP/log" 2>&1; then ok; else bad "$what"; tail -n 30 "$TMP/log" >&2; fi
}
P=$TMP/prefix
check "cmake --install" "$CMAKE" --install "$BUILD" --prefix "$P"
libdir=$(dirname "$(find "$P" -name 'axibulk.pc' | head -n 1)")
libdir=${libdir%/pkgconfig}
for f in bin/axibulk include/axibulk/axibulk.h include/axibulk/version.h include/axibulk/db.h \
         share/axibulk/docs/testing.md share/axibulk/docs/example/extract_inprocess.c; do
    if [ -e "$P/$f" ]; then ok; else bad "$f not installed"; fi
done
if ls "$P"/share/axibulk/slurm/*.sbatch >/dev/null 2>&1; then ok; else bad "no SLURM job scripts in share/axibulk/slurm"; fi
if ls "$libdir"/libaxibulk.* >/dev/null 2>&1 && [ -f "$libdir/cmake/axibulk/axibulkConfig.cmake" ]; then ok
else bad "library or CMake package missing under $libdir"; fi
# private headers stay private: no installed header names one that is not installed
for h in "$P"/include/axibulk/*.h; do
    for inc in $(sed -n 's/^#include "\(.*\)"/\1/p' "$h"); do
        if [ -f "$P/include/$inc" ]; then ok; else bad "$(basename "$h") includes $inc, which is not installed"; fi
    done
done
export PKG_CONFIG_PATH=$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
# a static library (BUILD_SHARED_LIBS=OFF) needs its private libraries on the link line too
static=; [ -e "$libdir/libaxibulk.so" ] || static=--static
flags=$(pkg-config --cflags --libs $static axibulk) && ok || bad "pkg-config axibulk"
for h in "$P"/include/axibulk/*.h; do
    printf '#include <axibulk/%s>\nint axb_probe(void);\nint axb_probe(void) { return 0; }\n' "$(basename "$h")" >"$TMP/h.c"
    check "$(basename "$h") on its own" "$CC" -std=c17 -Wall -Wextra -Werror -pedantic -c "$TMP/h.c" -o "$TMP/h.o" $(pkg-config --cflags axibulk)
done
# out-of-tree builds, both ways
check "example: cmake configure" "$CMAKE" -S "$SRC/docs/example" -B "$TMP/ex" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_COMPILER="$CC"
check "example: cmake build" "$CMAKE" --build "$TMP/ex"
# shellcheck disable=SC2086
check "example: pkg-config build" "$CC" -std=c17 -Wall -Wextra -Werror -o "$TMP/ex_pc" \
    "$SRC/docs/example/extract_inprocess.c" $flags -lm -Wl,-rpath,"$libdir"
cd "$TMP" || exit 1
check "example (find_package) makes a database and extracts" "$MPIEXEC" -n 1 "$TMP/ex/extract_inprocess"
grep -q "peak" "$TMP/log" && ok || bad "no peaks printed"
check "example (pkg-config) on that database, 2 ranks" "$MPIEXEC" -n 2 "$TMP/ex_pc" "$TMP/extract_inprocess_db"
check "example (pkg-config) on memory:bwd" "$MPIEXEC" -n 2 "$TMP/ex_pc" memory:bwd
check "installed axibulk --version" "$P/bin/axibulk" --version
grep -q "axibulk $(sed -n 's/^#define AXB_VERSION_STRING "\(.*\)"/\1/p' "$P/include/axibulk/version.h")" "$TMP/log" && ok || bad "version mismatch"
# The job scripts as installed find the installed axibulk without PATH or AXIBULK, and the installed
# Python reader reads what they wrote (where Debian's python3-h5py/numpy are present).
check "installed extract.sbatch records the installed binary" grep -qx "AXB_INSTALLED='$P/bin/axibulk'" "$P/share/axibulk/slurm/extract.sbatch"
check "installed mkdb" "$P/bin/axibulk" mkdb -o "$TMP/sdb" --period 100 --length 300 --rmin-km 5800 --points-per-wavelength 6 -q
check "installed extract.sbatch, run from the prefix with a PATH without axibulk" \
    env -u AXIBULK PATH=/usr/bin:/bin DB="$TMP/sdb" CMT="$SRC/inputs/CMTSOLUTION" STATIONS="$SRC/inputs/STATIONS" \
    OUTPUT="$TMP/sbatch_out/cat.h5" LAUNCHER="$MPIEXEC -n 2" bash "$P/share/axibulk/slurm/extract.sbatch"
grep -q "$MPIEXEC -n 2 $P/bin/axibulk extract" "$TMP/log" && ok || bad "extract.sbatch did not run $P/bin/axibulk"
if [ -f "$P/share/axibulk/python/axibulk_read.py" ]; then ok; else bad "share/axibulk/python/axibulk_read.py not installed"; fi
PY=/usr/bin/python3; [ -x "$PY" ] || PY=python3
if "$PY" -c "import h5py, numpy" 2>/dev/null; then
    check "installed axibulk_read.py reads the extract.sbatch output" env PYTHONPATH="$P/share/axibulk/python" "$PY" -c "
import axibulk_read
with axibulk_read.open('$TMP/sbatch_out/cat.h5') as f:
    assert len(f) == 12 and len(list(f.rows(station='IU.ANMO'))) == 2, len(f)
    assert f[0].data.shape == (len(f.components), f.npts)"
else
    echo "note: no h5py/numpy for $PY, the installed reader is not run (jobs/install-deps.sh --tests)"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
