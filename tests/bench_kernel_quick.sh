#!/usr/bin/env bash
# The kernel benchmark in --quick mode on the shared 100 s PREM databases: it must run and write a
# valid report (JSON with every configuration and sane numbers, the Markdown table spliced between
# its markers without disturbing the rest of the file, the PNG plot). It never judges a speed.
# usage: bench_kernel_quick.sh AXIBULK
set -u
AXB=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shared="$root/../shared/data/axisem-prem-100s"
if [ ! -d "$shared/100s_db_fwd" ] || [ ! -d "$shared/100s_db_bwd_displ_only" ]; then
    echo "shared 100 s PREM databases not found in $shared: skipped"
    exit 77
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axb-kbenchq-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cp "$root/docs/benchmarks.md" "$TMP/benchmarks.md"
python3 "$root/bench/kernel_bench.py" --quick --axibulk "$AXB" --fwd "$shared/100s_db_fwd" \
    --bwd "$shared/100s_db_bwd_displ_only" --out "$TMP/out" --md "$TMP/benchmarks.md" ||
    { echo "kernel_bench failed"; echo "0 passed, 1 failed"; exit 1; }
python3 - "$TMP" "$root/docs/benchmarks.md" <<'PY'
import json, math, os, sys
tmp, orig_md = sys.argv[1], sys.argv[2]
out = os.path.join(tmp, "out")
rep = json.load(open(os.path.join(out, "kernel_bench.json")))
fails = []
def check(cond, what):
    if not cond: fails.append(what)
want = {("merged", "warm", 1), ("merged", "warm", 2), ("original", "warm", 2), ("merged", "cold", 2), ("original", "cold", 2)}
have = {(r["layout"], r["cache"], r["ranks"]) for r in rep["runs"]}
check(have == want, f"runs {sorted(have)}, expected {sorted(want)}")
job = rep["job"]
check(len(job["kernels"]) == 6 * len(job["receivers"]) and job["columns"] == 3 * len(job["kernels"]), "kernels of the job")
for k in job["kernels"]:
    check(k["window"][0] < k["arrival"] < k["window"][1], f"window of {k['name']} misses its arrival")
for r in rep["runs"]:
    for key in ("cells_per_s", "kernels_per_s", "wall_s", "cores_busy", "background_cores"):
        check(isinstance(r[key], (int, float)) and math.isfinite(r[key]) and r[key] >= 0, f"{key} of {r['layout']} {r['cache']} {r['ranks']}: {r[key]}")
    check(r["cells_per_s"] > 0 and r["kernels"] == len(job["kernels"]), f"no kernels in {r['layout']} {r['cache']} {r['ranks']}")
    if rep["stats"]:
        check(r.get("element_reads_per_cell", 0) > 0 and r.get("bytes_read_per_kernel", 0) > 0, f"I/O counters of {r['layout']} {r['cache']} {r['ranks']}")
        check(abs(sum(r.get("time_share", {}).values()) - 1) < 1e-3, f"time shares of {r['layout']} {r['cache']} {r['ranks']}")
for name in ("ranks_2_vs_1_merged_warm", "merged_vs_original_warm_2", "warm_vs_cold_merged_2"):
    check(rep["ratios"].get(name, {}).get("value", 0) > 0, f"ratio {name}")
md = open(os.path.join(out, "kernel_bench.md")).read()
check(md.count("\n| ") >= len(rep["runs"]) + 1, "Markdown table incomplete")
spliced, before = open(os.path.join(tmp, "benchmarks.md")).read(), open(orig_md).read()
b, e = "<!-- bench/kernel_bench.py: begin -->", "<!-- bench/kernel_bench.py: end -->"
check(spliced.count(b) == 1 and spliced.count(e) == 1, "markers in benchmarks.md")
check(md in spliced and "bench_kernel.png" in spliced, "report not spliced")
outside = lambda t: t[:t.index(b)] + t[t.index(e):]
if b in before:
    check(outside(spliced) == outside(before), "text outside the markers changed")
else:
    check(spliced.startswith(before.rstrip("\n")), "text before the new section changed")
for png in (os.path.join(out, "kernel.png"), os.path.join(tmp, "bench_kernel.png")):
    check(os.path.exists(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", f"{png} missing or not a PNG")
for f in fails: print("FAIL:", f)
print(f"{len(rep['runs'])} runs checked; {0 if fails else 1} passed, {len(fails)} failed")
sys.exit(1 if fails else 0)
PY
