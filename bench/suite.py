#!/usr/bin/env python3
"""The benchmark suite: Instaseis' access patterns as axibulk extraction workloads, over layouts,
cache states, rank counts and read modes of one database, measured side by side in one run.

    bench/suite.py [--quick] [--axibulk PATH] [--work DIR] [--out DIR] [--md FILE] [--reps N]

Writes OUT/bench.json, OUT/bench.md (also spliced into --md, docs/benchmarks.md by default, between
the suite's markers) and OUT/throughput.png, OUT/size_vs_speed.png (gnuplot). The default runs
on a multi-GB `axibulk mkdb` database in well under 15 minutes on a 2-core machine; --quick uses a
small mkdb one alone and few pairs (about a minute; CI runs it to keep the harness working, never
to judge a speed). Only the Python standard library is used; plots need gnuplot (skipped with a note if absent).

Patterns (reference notes §4; pairs files unless noted, moment-tensor sources, ZNE):
  fixed      one source-receiver pair repeated (the buffered best case)
  scatter2   sources scattered 2 deg in lat/lon and 20 km in depth around one point, one receiver
  scatter05  the same at 0.5 deg / 5 km (source inversion)
  random     fully random sources (0-600 km) and receivers (the worst case)
  finite     consecutive nearby sources on a 1 km grid stepping along a line (finite-source emulation)
  events     S random events x R random stations (--cmt/--stations cross product)
  nepal      the Nepal finite fault (USGS .param, ../shared/data) at R stations, if present
Conditions: layouts original, merged element-chunked (--deflate 1), merged contiguous; cold (the
database files' pages dropped with posix_fadvise DONTNEED before the run and, for the unbuffered
patterns, before every batch: extract --cold-batches; axibulk's element cache, which only serves
finite faults, is off everywhere) and warm (files read just before); 1 and 2
ranks (more oversubscribed ones are labelled); collective and independent reads (2 ranks, random).
"""
import argparse
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import db_files, drop, env, run, seq_read, splice, warm

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUMMARY = re.compile(r"wrote (\d+) rows .* in ([0-9.]+) s \(([0-9.]+) rows/s, (\d+) element reads in "
                     r"(\d+) read calls, ([0-9.]+) MB")
MARK_BEGIN = "<!-- bench/suite.py: begin -->"
MARK_END = "<!-- bench/suite.py: end -->"

FULL = dict(db=["--period", "15", "--length", "1800", "--rmin-km", "3800", "--points-per-wavelength", "6"],
            npairs=20000, nfixed=4000, events=(100, 200), nepal_stations=100, reps=2)
QUICK = dict(db=["--period", "60", "--length", "1200", "--rmin-km", "5000", "--points-per-wavelength", "6"],
             npairs=1000, nfixed=500, events=(20, 50), nepal_stations=20, reps=1)


def rand_point(rng):
    return math.degrees(math.asin(2 * rng.random() - 1)), 360 * rng.random() - 180


MT = "1e18 -5e17 -5e17 2e17 -1e17 3e17"


def workloads(work, cfg, rng, shared):
    """Each workload: name -> list of axibulk extract input arguments."""
    w = {}

    def pairs(name, lines):
        p = os.path.join(work, f"{name}.pairs")
        with open(p, "w") as f:
            f.write("\n".join(lines) + "\n")
        w[name] = ["--pairs", p]

    n = cfg["npairs"]
    pairs("fixed", [f"mt 10 20 100000 {MT} 40 60"] * cfg["nfixed"])
    for name, deg, dz in (("scatter2", 2.0, 20e3), ("scatter05", 0.5, 5e3)):
        pairs(name, [f"mt {10 + rng.uniform(-deg, deg):.5f} {20 + rng.uniform(-deg, deg):.5f} "
                     f"{100e3 + rng.uniform(-dz, dz):.1f} {MT} 40 60" for _ in range(n)])
    lines = []
    for _ in range(n):
        sl, so = rand_point(rng)
        rl, ro = rand_point(rng)
        lines.append(f"mt {sl:.5f} {so:.5f} {rng.uniform(0, 600e3):.1f} {MT} {rl:.5f} {ro:.5f}")
    pairs("random", lines)
    # consecutive nearby sources, each to the same receiver: a 200 km line walked in 1 km steps,
    # one km deeper on every pass (a fault plane sampled the way a finite source is)
    step = 1.0 / 111.19
    pairs("finite", [f"mt {10 + (k % 200) * step * 0.6:.6f} {20 + (k % 200) * step * 0.8:.6f} "
                     f"{50e3 + (k // 200 % 40) * 1e3:.1f} {MT} 40 60" for k in range(n)])
    ne, ns = cfg["events"]
    cmt = os.path.join(work, "events.cmt")
    with open(cmt, "w") as f:
        for k in range(ne):
            la, lo = rand_point(rng)
            f.write(f" PDE 2020  1  1  0  0  0.00 {la:.4f} {lo:.4f} 50.0 6.0 6.0 E{k}\n"
                    f"event name: E{k:05d}\ntime shift: 0\nhalf duration: 0\nlatitude: {la:.4f}\n"
                    f"longitude: {lo:.4f}\ndepth: {rng.uniform(0, 600):.1f}\n"
                    "Mrr: 1e25\nMtt: -5e24\nMpp: -5e24\nMrt: 2e24\nMrp: -1e24\nMtp: 3e24\n\n")
    sta = os.path.join(work, "events.stations")
    with open(sta, "w") as f:
        for k in range(ns):
            la, lo = rand_point(rng)
            f.write(f"S{k:04d} XX {la:.4f} {lo:.4f} 0 0\n")
    w["events"] = ["--cmt", cmt, "--stations", sta]
    nepal = os.path.join(shared, "sources", "nepal.param")
    if os.path.exists(nepal):
        st = os.path.join(work, "nepal.stations")
        with open(st, "w") as f:
            for k in range(cfg["nepal_stations"]):
                la, lo = rand_point(rng)
                f.write(f"N{k:04d} XX {la:.4f} {lo:.4f} 0 0\n")
        w["nepal"] = ["--finite", nepal, "--stations", st]
    return w


def extract(axb, db, args, ranks, out, extra=()):
    cmd = ["mpirun", "-n", str(ranks), axb, "extract", "--db", db, *args, "--components", "ZNE",
           "-o", out, "--force", "-q", "--cache-mb", "0", *extra]
    t = time.perf_counter()
    line = run(cmd)
    wall = time.perf_counter() - t
    m = SUMMARY.search(line)
    if not m:
        sys.exit(f"bench/suite.py: unexpected summary: {line!r}")
    rows, secs, rate, elems, calls, mb = (int(m[1]), float(m[2]), float(m[3]), int(m[4]), int(m[5]), float(m[6]))
    return dict(rows=rows, seconds=secs, wall=wall, seismograms_per_s=rate, element_reads=elems,
                read_calls=calls, mb_read=mb)


def du(path):
    return sum(os.path.getsize(f) for f in db_files(path))


def percentile(xs, q):
    xs = sorted(xs)
    k = (len(xs) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small database, few pairs (CI)")
    ap.add_argument("--axibulk", default=os.path.join(ROOT, "build", "release", "src", "axibulk"))
    ap.add_argument("--work", help="scratch folder (default: a temporary one, removed)")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench"))
    ap.add_argument("--md", help="Markdown file to splice the table into (default docs/benchmarks.md; "
                                 "'-' for none; --quick never touches docs/)")
    ap.add_argument("--reps", type=int, help="repetitions per run (default 2, quick 1)")
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared", "data"))
    a = ap.parse_args()
    cfg = QUICK if a.quick else FULL
    reps = a.reps or cfg["reps"]
    axb = os.path.abspath(a.axibulk)
    if not os.access(axb, os.X_OK):
        sys.exit(f"bench/suite.py: no axibulk at {axb} (build it first: jobs/quickstart.sh)")
    os.makedirs(a.out, exist_ok=True)
    work = a.work or tempfile.mkdtemp(prefix="axb-suite-")
    os.makedirs(work, exist_ok=True)
    out_h5 = os.path.join("/dev/shm" if os.access("/dev/shm", os.W_OK) else work, f"axb-suite-{os.getpid()}.h5")
    t0 = time.perf_counter()
    try:
        # database sets: the mkdb one (multi-GB in full mode) and, when the shared data are there,
        # the shared PREM 50 s database (AxiSEM's deflated original files); each as original,
        # merged element-chunked and merged contiguous (made here by axibulk repack)
        sets = {"mkdb": os.path.join(work, "db")}
        if not os.path.exists(sets["mkdb"]):
            run(["mpirun", "-n", "2", axb, "mkdb", "-o", sets["mkdb"], "--kind", "reciprocal", *cfg["db"], "-q"])
        # --quick keeps the harness working on the mkdb set alone: the shared set runs the same
        # code, and it doubled the CI test's time (bench_realdata_quick covers that database)
        prem = os.path.join(a.shared, "axisem-prem-50s", "prem_50s_bwd_displ_only")
        if os.path.isdir(prem) and not a.quick:
            sets["prem50s"] = prem
        dbs = {}
        for name, orig in sets.items():
            dbs[(name, "original")] = orig
            for layout, opt in (("merged-chunked", ["--deflate", "1"]), ("merged-contiguous", ["--contiguous"])):
                d = os.path.join(work, f"{name}-{layout}")
                if not os.path.exists(os.path.join(d, "merged_output.nc4")):
                    run(["mpirun", "-n", "2", axb, "repack", orig, d, *opt, "-q", "--force"])
                dbs[(name, layout)] = d
        sizes = {k: du(v) for k, v in dbs.items()}
        files = {k: db_files(v) for k, v in dbs.items()}
        seq = {k: statistics.median(seq_read(files[k]) for _ in range(reps)) for k in dbs}
        loads = workloads(work, cfg, random.Random(7), a.shared)
        results = []
        # A repetition covers every configuration, so drifts of the machine hit all alike. Runs are
        # grouped by layout and cache state: warm runs follow one read of the files, cold runs
        # drop the files' pages before each run.
        configs = []
        for key in dbs:
            for cache in ("cold", "warm"):
                for pattern in loads:
                    for ranks in (1, 2):
                        configs.append((key, pattern, cache, ranks, "collective"))
                    if key[1] == "merged-contiguous" and cache == "warm":
                        configs.append((key, pattern, cache, 2, "independent"))
        raw = {c: [] for c in configs}
        for _ in range(reps):
            block = None
            for c in configs:
                key, pattern, cache, ranks, mode = c
                if cache == "cold":
                    drop(files[key])
                elif block != (key, cache):
                    warm(files[key])
                block = (key, cache)
                extra = ["--independent-reads"] if mode == "independent" else []
                # unbuffered patterns read cold before every batch too (the fixed pair is the
                # buffered best case, the finite fault is one batch per station)
                if cache == "cold" and pattern not in ("fixed", "nepal"):
                    extra.append("--cold-batches")
                raw[c].append(extract(axb, dbs[key], loads[pattern], ranks, out_h5, extra))
        for c in configs:
            key, pattern, cache, ranks, mode = c
            v = raw[c]
            per = [1.0 / r["seismograms_per_s"] for r in v]  # the rate carries the timer's full precision
            rate = statistics.median(r["seismograms_per_s"] for r in v)
            r0 = v[0]
            secs = statistics.median(r["seconds"] for r in v)
            results.append(dict(
                database=key[0], pattern=pattern, layout=key[1], cache=cache, ranks=ranks, reads=mode,
                oversubscribed=ranks > (os.cpu_count() or 1), repetitions=len(v),
                seismograms=r0["rows"], seismograms_per_s=round(rate, 1),
                seismograms_per_s_per_rank=round(rate / ranks, 1),
                s_per_seismogram_median=statistics.median(per), s_per_seismogram_p10=percentile(per, 0.1),
                s_per_seismogram_p90=percentile(per, 0.9),
                kb_read_per_seismogram=round(r0["mb_read"] * 1e3 / r0["rows"], 3),
                read_calls_per_seismogram=round(r0["read_calls"] / r0["rows"], 5),
                element_reads=r0["element_reads"], read_calls=r0["read_calls"],
                db_bytes=sizes[key],
                read_mb_s=round(r0["mb_read"] / secs, 1),
                fraction_of_sequential_read=round(r0["mb_read"] / secs / seq[key], 3)))
        by = {(r["database"], r["pattern"], r["layout"], r["cache"], r["ranks"], r["reads"]): r for r in results}
        for r in results:
            o = by.get((r["database"], r["pattern"], "original", r["cache"], r["ranks"], "collective"))
            r["ratio_to_original"] = round(r["seismograms_per_s"] / o["seismograms_per_s"], 2) if o else None
        report = dict(
            date=time.strftime("%Y-%m-%d"), mode="quick" if a.quick else "full", cores=os.cpu_count(),
            databases={name: dict(source=("axibulk mkdb " + " ".join(cfg["db"])) if name == "mkdb" else sets[name],
                                  bytes={k[1]: sizes[k] for k in dbs if k[0] == name},
                                  sequential_read_mb_s_cold={k[1]: round(seq[k], 1) for k in dbs if k[0] == name})
                       for name in sets},
            output=os.path.dirname(out_h5), repetitions=reps,
            seconds_total=round(time.perf_counter() - t0, 1), runs=results)
    finally:
        if os.path.exists(out_h5):
            os.remove(out_h5)
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    with open(os.path.join(a.out, "bench.json"), "w") as f:
        json.dump(report, f, indent=1)
    md = markdown(report)
    with open(os.path.join(a.out, "bench.md"), "w") as f:
        f.write(md)
    plots(report, a.out)
    target = a.md if a.md else (None if a.quick else os.path.join(ROOT, "docs", "benchmarks.md"))
    if target and target != "-":
        # the plots go beside the Markdown file that shows them
        pngs = [f for f in ("throughput.png", "size_vs_speed.png") if os.path.exists(os.path.join(a.out, f))]
        for f in pngs:
            shutil.copyfile(os.path.join(a.out, f), os.path.join(os.path.dirname(os.path.abspath(target)), "bench_" + f))
        md += "".join(f"\n![{f[:-4]}](bench_{f})\n" for f in pngs)
        splice(target, md, MARK_BEGIN, MARK_END, "Suite (`bench/suite.py`)")
    print(f"bench/suite.py: {len(results)} runs in {report['seconds_total']} s; {a.out}/bench.json, bench.md"
          + ("" if not shutil.which("gnuplot") else ", throughput.png, size_vs_speed.png"))


def markdown(rep):
    L = [f"Suite run {rep['date']} ({rep['mode']}, {rep['cores']} cores, {rep['repetitions']} repetition(s), "
         f"{rep['seconds_total']} s; outputs written to `{rep['output']}`). Databases, sizes and cold "
         "sequential read speed (the physical reference):", "",
         "| database | layout | size on disk | cold sequential read |", "|---|---|---|---|"]
    for name, d in rep["databases"].items():
        for k, b in d["bytes"].items():
            L.append(f"| {name} | {k} | {b / 1e6:.0f} MB | {d['sequential_read_mb_s_cold'][k]:.0f} MB/s |")
    L += [""] + [f"- {name}: {d['source']}" for name, d in rep["databases"].items()]
    L += ["", "| database | pattern | layout | cache | ranks | reads | seismograms/s | per rank | s/seismogram median (p10–p90) "
          "| kB read/seismogram | read calls/seismogram | × original | fraction of seq. read |",
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rep["runs"]:
        ranks = f"{r['ranks']}{' (oversubscribed)' if r['oversubscribed'] else ''}"
        L.append(f"| {r['database']} | {r['pattern']} | {r['layout']} | {r['cache']} | {ranks} | {r['reads']} | {r['seismograms_per_s']:.0f} "
                 f"| {r['seismograms_per_s_per_rank']:.0f} | {r['s_per_seismogram_median']:.2e} "
                 f"({r['s_per_seismogram_p10']:.2e}–{r['s_per_seismogram_p90']:.2e}) | {r['kb_read_per_seismogram']:.2f} "
                 f"| {r['read_calls_per_seismogram']:.4f} | {r['ratio_to_original'] if r['ratio_to_original'] is not None else '–'} "
                 f"| {r['fraction_of_sequential_read']:.3f} |")
    return "\n".join(L) + "\n"


def plots(rep, out):
    gp = shutil.which("gnuplot")
    if not gp:
        print("bench/suite.py: gnuplot not found: no plots", file=sys.stderr)
        return
    layouts = list(rep["databases"]["mkdb"]["bytes"])
    patterns = list(dict.fromkeys(r["pattern"] for r in rep["runs"]))
    by = {(r["pattern"], r["layout"], r["cache"], r["ranks"], r["reads"]): r for r in rep["runs"] if r["database"] == "mkdb"}
    dat = os.path.join(out, "throughput.dat")
    with open(dat, "w") as f:
        f.write("pattern " + " ".join(layouts) + "\n")
        for p in patterns:
            f.write(p + " " + " ".join(str(by[(p, l, "warm", 1, "collective")]["seismograms_per_s"]) for l in layouts) + "\n")
    dat2 = os.path.join(out, "size_vs_speed.dat")
    with open(dat2, "w") as f:
        for l in layouts:
            r = by[("random", l, "cold", 1, "collective")]
            f.write(f"{l} {rep['databases']['mkdb']['bytes'][l] / 1e6:.1f} {r['seismograms_per_s']}\n")
    script = f"""
set terminal png size 1000,600
set output '{out}/throughput.png'
set title 'axibulk extract: seismograms/s per pattern and layout (mkdb database, warm cache, 1 rank)'
set style data histograms
set style histogram cluster gap 1
set style fill solid border -1
set logscale y
set ylabel 'seismograms/s'
set key top right
plot for [i=2:{len(layouts) + 1}] '{dat}' using i:xtic(1) title columnheader(i)
set output '{out}/size_vs_speed.png'
unset logscale y
set style data points
set title 'size on disk vs speed (mkdb database, random pairs, cold cache, 1 rank)'
set xlabel 'database size (MB)'
set ylabel 'seismograms/s'
set xrange [0:*]
set yrange [0:*]
set offsets graph 0.05, graph 0.25, graph 0.15, 0
plot '{dat2}' using 2:3:1 with labels point pt 7 offset 1,1 notitle
"""
    subprocess.run([gp], input=script, text=True, check=True)


if __name__ == "__main__":
    main()
