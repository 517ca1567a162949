#!/usr/bin/env bash
# One libFuzzer target over its seed corpus (docs/testing.md, "Fuzz tests").
#   run_fuzz.sh BUILD_DIR TARGET [SHARED_DATA] [libFuzzer options...]
# BUILD_DIR holds fuzz_TARGET (built by tests/fuzz/CMakeLists.txt); without it (no clang with
# libFuzzer) the test is skipped (77). Seeds: tests/fuzz/corpus/TARGET plus the small source files
# of SHARED_DATA/sources, copied into a scratch folder so new inputs never land in the repository.
# Without options it runs 2 s (the ctest); give e.g. -runs=1000000 for a long run.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=$1/fuzz_$2
target=$2
data=${3:-}
shift 3 || shift $#
[ -x "$bin" ] || { echo "fuzz_$target not built (needs clang with libFuzzer): skipped"; exit 77; }

# Every input is written to a file, so the scratch folder goes to memory when it can: on a disk
# /tmp the writes, not the readers, set the pace (30 times slower here).
scratch=${TMPDIR:-/tmp}
[ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && scratch=/dev/shm
work=$(mktemp -d "$scratch/axb_fuzz_${target}.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$work/artifacts"
cp "$here/corpus/$target/"* "$work/corpus/"
src=$data/sources
if [ -n "$data" ] && [ -d "$src" ]; then
  case $target in
    quakeml) cp "$src/quake.xml" "$src/GCMT_event_STRAIT_OF_GIBRALTAR.xml" "$work/corpus/" ;;
    stationxml) cp "$src/TA.Q56A..BH.xml" "$work/corpus/" ;;
    srf) cp "$src/strike_slip_eq_2pts.srf" "$src/strike_slip_eq_10pts.srf" "$work/corpus/" ;;
    usgs_param) cp "$src/nepal.param" "$work/corpus/" ;;
  esac
fi
[ $# -gt 0 ] || set -- -max_total_time=2
export TMPDIR=$work
# UBSan findings abort (the build has -fno-sanitize-recover); leaks are reported by ASan at exit of
# each input's run, so a leaking reader fails too. -timeout: a hang is a finding, not a slow test.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
cd "$work"
"$bin" -timeout=10 -rss_limit_mb=1024 -max_len=65536 -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
  "$@" "$work/corpus" 2>&1 | grep -v -E '^(#[0-9]+[[:space:]]+(NEW|REDUCE|pulse|RELOAD)|"|###### )' | tail -n 60 || {
  echo "fuzz_$target: FAILED; the input that triggered it:"
  for f in "$work"/artifacts/*; do [ -e "$f" ] && { echo "$f"; od -c "$f" | head -20; cp "$f" "${FUZZ_KEEP:-/tmp}/" || true; }; done
  exit 1
}
