#!/usr/bin/env bash
# The real-database benchmark in --quick mode on the shared 50 s PREM database: it must run and
# write a valid report (JSON with every configuration and sane numbers, the decoding threads' time
# split where AxiSEM's deflated chunks were read, the Markdown spliced between its markers without
# disturbing the rest of the file). It never judges a speed.
# usage: bench_realdata_quick.sh AXIBULK
set -u
AXB=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
db="$root/../shared/data/axisem-prem-50s/prem_50s_bwd_displ_only"
if [ ! -d "$db" ]; then
    echo "shared 50 s PREM database not found at $db: skipped"
    exit 77
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axb-rdbenchq-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
cp "$root/docs/benchmarks.md" "$TMP/benchmarks.md"
python3 "$root/bench/realdata_bench.py" --quick --axibulk "$AXB" --db "$db" --work "$TMP/work" --out "$TMP/out" \
    --md "$TMP/benchmarks.md" >"$TMP/log" 2>&1 ||
    { tail -5 "$TMP/log"; echo "realdata_bench failed"; echo "0 passed, 1 failed"; exit 1; }
python3 - "$TMP" "$root/docs/benchmarks.md" <<'PY'
import json, os, sys
tmp, orig_md = sys.argv[1], sys.argv[2]
rep = json.load(open(os.path.join(tmp, "out", "realdata.json")))
fails = []
checked = 0
def check(cond, what):
    global checked
    checked += 1
    if not cond: fails.append(what)
check(len(rep) == 1, f"{len(rep)} databases")
r = rep[0]
check(r["elements"] == 4992 and r["samples"] == 146 and r["deflate"] == 2, "database facts")
check(r["cold_read_mb_s"] > 0, "cold read")
check({(p["mode"], p["ranks"]) for p in r["repack"]} == {("--contiguous", 1), ("--deflate 2", 1)}, "repack runs")
for p in r["repack"]:
    check(p["read_mb_s"] > 0 and p["of_cold_read"] > 0, f"repack {p['mode']} rate")
    d = p["decode"]
    # every chunk of the 5 variables decoded once at least: 1452 chunks of 56 points per variable
    check(d is not None and d["chunks"] >= 5 * 1452 and d["inflate"] > 0 and d["checksum"] > 0,
          f"repack {p['mode']} decode split {d}")
    c = p.get("cpu")
    check(c is not None and c["cpu_s"] > 0 and 0 < c["busy"] <= 1.05, f"repack {p['mode']} CPU use {c}")
    w = p["encode"]
    check(w is not None and w["write"] > 0 and (w["compress"] > 0) == (p["mode"] == "--deflate 2"),
          f"repack {p['mode']} write split {w}")
# the 200-row jobs, and the larger ones (--scale, 2 in --quick: 400 pairs, 20 events x 20 stations)
want = {(k, lay, 1, pin) for k in ("pairs", "bulk", "pairs-scaled", "bulk-scaled") for lay in ("original", "merged")
        for pin in (False, True)}
got = [(e["rows_from"], e["layout"], e["ranks"], e["pinned"]) for e in r["extract"]]
check(len(got) == 16 and set(got) == want, f"extract runs {got}")
check(r["bulk_shape"] == [10, 20] and r.get("scale") == 2, f"events x stations {r['bulk_shape']}, scale")
for e in r["extract"]:
    rows = 400 if e["rows_from"].endswith("-scaled") else 200
    check(e["rows"] == rows and e["rows_s"] > 0 and e["element_reads"] > 0, f"extract {e}")
    check((e["decode"] is not None) == (e["layout"] == "original"), f"decode line on {e['layout']}")
    g = e.get("stages")
    # printed to the millisecond, so on these 20-100 ms jobs any stage but opening the database can
    # round to 0 (test_db_memory checks every stage at full precision)
    check(g is not None and all(g[k] >= 0 for k in g) and g["open"] > 0
          and abs(sum(g.values()) - e["seconds"]) <= 0.01, f"stage split {g} of {e['seconds']} s")
    if e["pinned"] and e["decode"]:
        check(e["decode"]["threads"] == 1, "--threads 1 reported")
b = r["bound"]
check(b["cache_read_mb_s"] > 0 and 0 < b["fraction"] < 5 and 0 < b["served_fraction"] < 5, f"bound {b}")
# bytes per element x seismograms/s: the merged file's element size times the 1-rank pairs rate
one = next(e for e in r["extract"] if e["rows_from"] == "pairs" and e["layout"] == "merged" and not e["pinned"])
check(abs(b["served_mb_s"] - b["element_kb"] * 1e3 * one["rows_s"] / 1e6) < 1e-6 * b["served_mb_s"], "served rate")
md = open(os.path.join(tmp, "benchmarks.md")).read()
orig = open(orig_md).read()
begin, end = "<!-- bench/realdata_bench.py: begin -->", "<!-- bench/realdata_bench.py: end -->"
check(md.count(begin) == 1 and md.count(end) == 1, "one marked block")
outside = md[:md.index(begin)] + md[md.index(end) + len(end):]
if begin in orig:
    check(outside == orig[:orig.index(begin)] + orig[orig.index(end) + len(end):], "rest of the file unchanged")
else:
    check(outside.startswith(orig.rstrip("\n")), "rest of the file unchanged")
check("of the copy bound" in md and "prem_50s_bwd_displ_only" in md and "400 random pairs" in md, "report text")
for f in fails: print("FAIL:", f)
print(f"{checked - len(fails)} passed, {len(fails)} failed")
sys.exit(1 if fails else 0)
PY
