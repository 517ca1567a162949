#!/usr/bin/env bash
# The C sources follow .clang-format (the style the code was written in, applied once): a change
# that drifts from it fails here, with the files and lines clang-format would change.
#   format_check.sh SOURCE_DIR
# Exits 77 (skipped) where clang-format or git is missing (tests/run.sh installs clang-format).
set -u
src=$1
command -v clang-format >/dev/null 2>&1 || { echo "clang-format not installed: skipped"; exit 77; }
git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "not a git checkout: skipped"; exit 77; }
mapfile -t files < <(git -C "$src" ls-files '*.c' '*.h')
[ ${#files[@]} -gt 0 ] || { echo "no sources found"; exit 1; }
cd "$src" || exit 1
if clang-format --dry-run --Werror "${files[@]}" 2>/tmp/axb-format.$$; then
    rm -f /tmp/axb-format.$$
    echo "${#files[@]} passed, 0 failed"
    exit 0
fi
grep -E '^[^ ].*: error:' /tmp/axb-format.$$ | head -20
bad=$(grep -E '^[^ ].*: error:' /tmp/axb-format.$$ | cut -d: -f1 | sort -u | wc -l)
rm -f /tmp/axb-format.$$
echo "$((${#files[@]} - bad)) passed, $bad failed (run: clang-format -i FILE)"
exit 1
