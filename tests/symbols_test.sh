#!/usr/bin/env bash
# Every global symbol the installed libaxibulk defines starts with axb_, so linking it into a
# program cannot clash with the program's own names or other libraries'.
# usage: symbols_test.sh CMAKE BUILD_DIR
set -u
CMAKE=$1 BUILD=$2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axb-symbols-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
"$CMAKE" --install "$BUILD" --prefix "$TMP/p" >"$TMP/log" 2>&1 || { cat "$TMP/log"; exit 1; }
lib=$(find "$TMP/p" -name 'libaxibulk.so' -o -name 'libaxibulk.a' | head -n 1)
[ -n "$lib" ] || { echo "FAIL: no libaxibulk installed"; exit 1; }
case $lib in
    *.so) nm -D --defined-only "$lib" ;;
    *) nm -g --defined-only "$lib" ;;
esac | awk 'NF >= 3 { print $3 }' | sort -u >"$TMP/syms"
total=$(wc -l <"$TMP/syms")
grep -v '^axb_' "$TMP/syms" >"$TMP/foreign"
if [ "$total" -gt 100 ] && [ ! -s "$TMP/foreign" ]; then
    echo "$total global symbols, all axb_*"
    echo "1 passed, 0 failed"
    exit 0
fi
echo "FAIL: $total global symbols; without the axb_ prefix:"
head -n 50 "$TMP/foreign"
echo "0 passed, 1 failed"
exit 1
