#!/usr/bin/env bash
# The benchmark suite in --quick mode: it must run and write a valid report (JSON with every
# configuration and sane numbers, the Markdown table, PNG plots). It never judges a speed.
# usage: bench_quick.sh AXIBULK
set -u
AXB=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axb-benchq-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
python3 "$root/bench/suite.py" --quick --axibulk "$AXB" --out "$TMP/out" --md - || { echo "suite failed"; echo "0 passed, 1 failed"; exit 1; }
python3 - "$TMP/out" "$root/../shared/data" <<'PY'
import json, math, os, sys
out, shared = sys.argv[1], sys.argv[2]
nepal = os.path.join(shared, "sources", "nepal.param")
rep = json.load(open(os.path.join(out, "bench.json")))
fails = []
def check(cond, what):
    if not cond: fails.append(what)
patterns = {"fixed", "scatter2", "scatter05", "random", "finite", "events"} | ({"nepal"} if os.path.exists(nepal) else set())
layouts = {"original", "merged-chunked", "merged-contiguous"}
sets = ["mkdb"]  # --quick leaves the shared 50 s database to bench_realdata_quick
check(sorted(rep["databases"]) == sorted(sets), f"databases {sorted(rep['databases'])}, expected {sets}")
for db in sets:
  have = {(r["pattern"], r["layout"], r["cache"], r["ranks"], r["reads"]) for r in rep["runs"] if r["database"] == db}
  for p in patterns:
    for l in layouts:
        for c in ("cold", "warm"):
            for n in (1, 2):
                check((p, l, c, n, "collective") in have, f"missing run {db} {p} {l} {c} {n}")
    check((p, "merged-contiguous", "warm", 2, "independent") in have, f"missing independent run {db} {p}")
for r in rep["runs"]:
    for k in ("seismograms_per_s", "s_per_seismogram_median", "kb_read_per_seismogram", "read_calls_per_seismogram", "db_bytes"):
        check(isinstance(r[k], (int, float)) and math.isfinite(r[k]) and r[k] >= 0, f"{k} of {r['pattern']} {r['layout']}: {r[k]}")
    check(r["seismograms_per_s"] > 0 and r["seismograms"] > 0, f"no seismograms in {r['pattern']} {r['layout']}")
    check(r["s_per_seismogram_p10"] <= r["s_per_seismogram_median"] <= r["s_per_seismogram_p90"], "percentiles out of order")
    if r["layout"] == "original" and r["reads"] == "collective":
        check(r["ratio_to_original"] == 1.0, "ratio of the original layout to itself")
for db in sets:
    for l in layouts:
        d = rep["databases"][db]
        check(d["sequential_read_mb_s_cold"][l] > 0 and d["bytes"][l] > 0, f"reference read of {db} {l}")
md = open(os.path.join(out, "bench.md")).read()
check(md.count("\n| ") >= len(rep["runs"]) + 3, "Markdown table incomplete")
for png in ("throughput.png", "size_vs_speed.png"):
    p = os.path.join(out, png)
    check(os.path.exists(p) and open(p, "rb").read(8) == b"\x89PNG\r\n\x1a\n", f"{png} missing or not a PNG")
for f in fails: print("FAIL:", f)
print(f"{len(rep['runs'])} runs checked; {0 if fails else 1} passed, {len(fails)} failed")
sys.exit(1 if fails else 0)
PY
