#!/usr/bin/env bash
# Extraction throughput measured side by side in one run: original vs merged layout of the same
# database, 1 vs 2 ranks, fully random source-receiver pairs, warm page cache (files read just
# before each run). Reports seismograms/s, per core, read calls per element read, and ratios;
# every configuration runs AXB_BENCH_REPS times (default 3), interleaved, medians reported.
#
#   bench/extract_bench.sh [NPAIRS] [AXIBULK]
#
# The output (NPAIRS x 3 x 235 float32, 0.56 GB at the default 200,000 pairs) goes to
# AXB_BENCH_OUT, by default /dev/shm (memory): on this 2-core machine writing it to the ext4 disk
# costs kernel time (page cache copies, writeback threads) that competes with the second rank for
# the second core, so a disk output measures the disk, not the extraction (docs/benchmarks.md).
#
# Makes its own database with `axibulk mkdb` and merged copy with `axibulk repack`, in a temporary
# folder: uncompressed, 4.8 GB original and 7.3 GB merged at the default AXB_BENCH_PERIOD=10 (s;
# 20 gives 0.6 and 0.9 GB), so ~12 GB of free disk and as much page cache to keep them warm.
# JSON on stdout; a Markdown table is appended to $AXB_BENCH_MD if set.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NPAIRS=${1:-200000}
AXB=${2:-$root/build/release/src/axibulk}
[ -x "$AXB" ] || { echo "build axibulk first (jobs/quickstart.sh)" >&2; exit 2; }
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMPI_MCA_rmaps_base_oversubscribe=1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axb-xbench-XXXXXX")
OUTDIR=${AXB_BENCH_OUT:-}
if [ -z "$OUTDIR" ]; then if [ -w /dev/shm ]; then OUTDIR=/dev/shm; else OUTDIR=$TMP; fi; fi
OUT="$OUTDIR/axb-xbench-$$.h5"
trap 'rm -rf "$TMP" "$OUT"' EXIT
mpirun -n 2 "$AXB" mkdb -o "$TMP/db" --kind reciprocal --period "${AXB_BENCH_PERIOD:-10}" --length 1200 --rmin-km 4000 --points-per-wavelength 6 >/dev/null
mpirun -n 2 "$AXB" repack "$TMP/db" "$TMP/merged" -q >/dev/null
sync    # the new databases' writeback would otherwise run (and take CPU) during the first runs
python3 - "$NPAIRS" > "$TMP/pairs.txt" <<'PY'
import math, random, sys
random.seed(7)
for i in range(int(sys.argv[1])):
    sl = math.degrees(math.asin(2 * random.random() - 1)); so = 360 * random.random() - 180
    rl = math.degrees(math.asin(2 * random.random() - 1)); ro = 360 * random.random() - 180
    d = random.uniform(0, 2000e3)
    print(f"mt {sl:.5f} {so:.5f} {d:.1f} 1e18 -5e17 -5e17 2e17 -1e17 3e17 {rl:.5f} {ro:.5f}")
PY
warm() { find -L "$1" -type f -name '*.nc4' -exec cat {} + > /dev/null; }
results=()
for rep in $(seq "${AXB_BENCH_REPS:-3}"); do
    for layout in original merged; do
        db=$TMP/db; [ $layout = merged ] && db=$TMP/merged
        for np in 1 2; do
            warm "$db"
            rm -f "$OUT"    # freeing the previous output's pages is not part of this run
            line=$(mpirun -n "$np" "$AXB" extract --db "$db" --pairs "$TMP/pairs.txt" --components ZNE \
                   -o "$OUT" --force -q)
            results+=("$layout $np $line")
        done
    done
done
# Read system calls (strace -c, 1 rank, a separate untimed run per layout): positional reads
# (pread64/preadv: HDF5 and MPI-IO read the database with them; text inputs use read(2), not
# counted) per element read. "-" when strace is missing.
sys_reads=()
for layout in original merged; do
    db=$TMP/db; [ $layout = merged ] && db=$TMP/merged
    if command -v strace >/dev/null; then
        strace -f -c -e trace=pread64,preadv,preadv2 -o "$TMP/strace.$layout" \
            "$AXB" extract --db "$db" --pairs "$TMP/pairs.txt" --components ZNE -o "$OUT" --force -q >/dev/null
        sys_reads+=("$layout $(awk '$NF ~ /^(pread64|preadv|preadv2)$/ {s += $4} END {print s + 0}' "$TMP/strace.$layout")")
    else
        sys_reads+=("$layout -")
    fi
done
AXB_DB_ORIG=$TMP/db AXB_DB_MERGED=$TMP/merged \
python3 - "$NPAIRS" "$OUTDIR" "${sys_reads[@]}" "${results[@]}" <<'PY'
import json, os, re, statistics, sys
n = int(sys.argv[1]); raw = {}
sysreads = dict(a.split() for a in sys.argv[3:5])
for r in sys.argv[5:]:
    layout, np_, line = r.split(" ", 2)
    m = re.search(r"in ([0-9.]+) s \(([0-9.]+) rows/s, (\d+) element reads in (\d+) read calls", line)
    raw.setdefault((layout, int(np_)), []).append((float(m[1]), float(m[2]), int(m[3]), int(m[4])))
runs = []
for (layout, np_), v in raw.items():
    secs = statistics.median(x[0] for x in v); rate = statistics.median(x[1] for x in v)
    elems, calls = v[0][2], v[0][3]
    runs.append({"layout": layout, "ranks": np_, "seconds": secs, "seismograms_per_s": rate,
                 "seismograms_per_s_each": [x[1] for x in v],
                 "per_core": round(rate / np_, 1), "element_reads": elems, "read_calls": calls,
                 "read_calls_per_element": round(calls / max(elems, 1), 4),
                 "read_syscalls_1_rank": None if sysreads[layout] == "-" else int(sysreads[layout]),
                 "read_syscalls_per_element_1_rank": None if sysreads[layout] == "-" else round(int(sysreads[layout]) / max(elems, 1), 3)})
by = {(r["layout"], r["ranks"]): r for r in runs}
dbs = {l: sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(p) for f in fs if f.endswith(".nc4"))
       for l, p in (("original", os.environ["AXB_DB_ORIG"]), ("merged", os.environ["AXB_DB_MERGED"]))}
out = {"pairs": n, "output_folder": sys.argv[2], "database_bytes": dbs, "runs": runs,
       "speedup_2_vs_1": {l: round(by[(l, 2)]["seismograms_per_s"] / by[(l, 1)]["seismograms_per_s"], 2) for l in ("original", "merged")},
       "merged_vs_original_1_rank": round(by[("merged", 1)]["seismograms_per_s"] / by[("original", 1)]["seismograms_per_s"], 2)}
print(json.dumps(out, indent=1))
md = os.environ.get("AXB_BENCH_MD")
if md:
    with open(md, "a") as f:
        f.write(f"\nDatabase: {dbs['original'] / 1e9:.2f} GB original, {dbs['merged'] / 1e9:.2f} GB merged; {n} pairs.\n")
        f.write("\n| layout | ranks | seconds | seismograms/s | per core | element reads | read calls |\n|---|---|---|---|---|---|---|\n")
        for r in runs:
            f.write(f"| {r['layout']} | {r['ranks']} | {r['seconds']} | {r['seismograms_per_s']} | {r['per_core']} | {r['element_reads']} | {r['read_calls']} |\n")
        f.write(f"\n2 ranks vs 1: original {out['speedup_2_vs_1']['original']}x, merged {out['speedup_2_vs_1']['merged']}x; merged vs original (1 rank): {out['merged_vs_original_1_rank']}x.\n")
PY
