#!/usr/bin/env python3
"""Kernels at scale: kernels per second and cells per second of one realistic `axibulk kernel`
job, over layouts, rank counts and cache states, measured side by side in one run (issue #17).

    bench/kernel_bench.py [--fwd DB] [--bwd DB] [--work DIR] [--quick] [--axibulk PATH] [--out DIR]
                          [--md FILE] [--reps N] [--counts NLAT,NLON,NDEPTH] [--points N] [--runs LIST]

The job: one event (30N 20E, at the forward database's source depth), 20 receivers 30-90 deg
away spread in azimuth, a P window on Z and an S window on T per receiver in 3 period bands suited
to the databases (120 kernels, parameters vp, vs, rho: 360 columns), cross-correlation misfit, on a
global voxel mesh of the whole mantle (default 36 x 72 x 40 = 103,680 cells, depth 0-2880 km),
a fixed number of Monte Carlo points per cell (default 2: points-per-step = min = max; the cost is
linear in it, so --points 4 doubles every run). Windows are placed around P and S times
interpolated from a small table of surface-focus times (10 deg steps, iasp91-like) corrected for
the source depth.

Runs (each repetition covers all of them, in this order; --runs chooses others):
  merged   warm 1 rank, merged warm 2 ranks      -> 2 ranks vs 1 (issue's goal >= 1.8x)
  original warm 2 ranks                          -> merged vs original
  merged   cold 2 ranks                          -> cold vs warm
(--quick adds original cold 2 ranks.) A 1-rank run costs as much as two 2-rank ones and an
original-layout run about three (inflating AxiSEM's deflated chunks), so each is measured once,
where the issue's question is asked. On the 25 s PREM pair the default takes about 30 minutes.
"cold": the pages of both databases' files are dropped with posix_fadvise(DONTNEED) just before
the run (as bench/suite.py does); "warm": the files are read just before. Merged copies are made
in --work by `axibulk repack` (kept for the next run). With `axibulk kernel --stats` the engine's
own counters are used (element reads, bytes read, time per stage); without it only wall times.
Before each run the machine's other load is sampled (/proc/stat); runs that did not start on a
quiet machine are flagged in the report.

Writes OUT/kernel_bench.json, OUT/kernel_bench.md (also spliced into --md, docs/benchmarks.md by
default, between this script's markers) and OUT/kernel.png (gnuplot; copied beside the Markdown
as bench_kernel.png). --quick: a 96-cell mesh, 4 receivers, every run above plus original cold
(seconds on the shared 100 s databases; CI checks the harness, never a speed). Only the Python
standard library is used.
"""
import argparse
import glob
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import db_files, drop, env, run, splice, warm

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARK_BEGIN = "<!-- bench/kernel_bench.py: begin -->"
MARK_END = "<!-- bench/kernel_bench.py: end -->"
DEFAULT_DB = "/work/scratch/axisem/db"

FULL = dict(counts=(36, 72, 40), receivers=20, points=2, reps=1,
            runs="merged:warm:1,merged:warm:2,original:warm:2,merged:cold:2")
QUICK = dict(counts=(4, 8, 3), receivers=4, points=4, reps=1,
             runs="merged:warm:1,merged:warm:2,original:warm:2,merged:cold:2,original:cold:2")

# Surface-focus travel times (s) every 10 deg, rounded values of the kind iasp91 tables give;
# P beyond ~98 deg is the core-diffracted wave. Good to a few seconds, which is all windows need.
TT_DEG = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
TT_P = [0, 143, 276, 372, 457, 536, 607, 672, 730, 780, 823]
TT_S = [0, 251, 497, 669, 826, 966, 1096, 1212, 1319, 1412, 1495]
# velocities (km/s) near the sources' depths (PREM upper mantle) for the depth correction
V_SRC = dict(P=8.05, S=4.45)
KM_PER_DEG = 6371.0 * math.pi / 180.0


# ---- travel times, geometry, the job ---------------------------------------------------------

def interp(xs, ys, x):
    for k in range(1, len(xs)):
        if x <= xs[k]:
            f = (x - xs[k - 1]) / (xs[k] - xs[k - 1])
            return ys[k - 1] + f * (ys[k] - ys[k - 1])
    f = (x - xs[-2]) / (xs[-1] - xs[-2])
    return ys[-2] + f * (ys[-1] - ys[-2])


def arrival(phase, dist_deg, depth_km):
    """Approximate first-arrival time (s) of P or S at dist_deg from a source depth_km deep: the
    surface-focus time minus the upgoing leg the deeper source saves, h * sqrt(1/v^2 - p^2), with
    the ray parameter p from the table's slope."""
    ys = TT_P if phase == "P" else TT_S
    t = interp(TT_DEG, ys, dist_deg)
    d = 2.0
    p = (interp(TT_DEG, ys, dist_deg + d) - interp(TT_DEG, ys, dist_deg - d)) / (2 * d) / KM_PER_DEG
    eta = math.sqrt(max(0.0, 1.0 / V_SRC[phase] ** 2 - p * p))
    return t - depth_km * eta


def destination(lat, lon, az_deg, dist_deg):
    """The point dist_deg away from (lat, lon) along azimuth az_deg, on the sphere."""
    la, lo, az, d = (math.radians(v) for v in (lat, lon, az_deg, dist_deg))
    la2 = math.asin(math.sin(la) * math.cos(d) + math.cos(la) * math.sin(d) * math.cos(az))
    lo2 = lo + math.atan2(math.sin(az) * math.sin(d) * math.cos(la), math.cos(d) - math.sin(la) * math.sin(la2))
    return math.degrees(la2), (math.degrees(lo2) + 540.0) % 360.0 - 180.0


def bands_for(period):
    """Three pass bands (s) for a database of this dominant period: the shortest starts at the
    period itself; the others overlap it (e.g. 50 s: 50-100, 80-160, 120-240)."""
    return [(period, 2 * period), (1.6 * period, 3.2 * period), (2.4 * period, 4.8 * period)]


def window(phase, t_arr, band, t_max):
    """Window around an arrival: from half a centre period before to one centre period after,
    kept inside the record."""
    tc = math.sqrt(band[0] * band[1])
    t1, t2 = max(1.0, t_arr - 0.6 * tc), min(t_max, t_arr + 1.2 * tc)
    return round(t1, 1), round(t2, 1)


EVENT = (30.0, 20.0)
# the moment tensor of Instaseis' reference seismograms, in dyn*cm (CMTSOLUTION units)
MT = (4.71e24, 3.81e22, -4.74e24, 3.99e23, -8.05e23, -1.23e24)


def make_job(work, info_f, info_b, fwd, bwd, nrec, counts, points, order):
    """Writes the CMTSOLUTION, STATIONS and job YAML into work; returns the job's description."""
    depth = info_f["source_depth_km"]
    # the mantle down to 2880 km, or as deep as both databases reach (shell databases)
    zmax = min([2880.0] + [i["planet_radius_km"] - i["min_radius_km"] - 1.0 for i in (info_f, info_b)])
    period = info_f["dominant_period"]
    t_max = info_f["length"] - info_f["source_shift"] - 1.0  # the record after the origin
    with open(os.path.join(work, "CMTSOLUTION"), "w") as f:
        f.write(f" PDE 2020  1  1  0  0  0.00 {EVENT[0]:.4f} {EVENT[1]:.4f} {depth:.3f} 6.5 6.5 KBENCH\n"
                f"event name:     KBENCH\ntime shift:      0.0000\nhalf duration:   0.0000\n"
                f"latitude:       {EVENT[0]:.4f}\nlongitude:      {EVENT[1]:.4f}\n"
                f"depth:          {depth:.6f}\n")
        for k, v in zip(("Mrr", "Mtt", "Mpp", "Mrt", "Mrp", "Mtp"), MT):
            f.write(f"{k}:       {v:e}\n")
    recs = []
    golden = 180.0 * (3.0 - math.sqrt(5.0))  # the golden angle spreads azimuths evenly for any count
    for i in range(nrec):
        dist = 30.0 + 60.0 * (i + 0.5) / nrec
        az = (i * golden) % 360.0
        lat, lon = destination(EVENT[0], EVENT[1], az, dist)
        recs.append(dict(name=f"R{i:02d}", net="KB", lat=lat, lon=lon, dist=dist, az=az))
    with open(os.path.join(work, "STATIONS"), "w") as f:
        for r in recs:
            f.write(f"{r['name']} {r['net']} {r['lat']:.5f} {r['lon']:.5f} 0.0 0.0\n")
    bands = bands_for(period)
    kernels = []
    for r in recs:
        for phase, comp in (("P", "Z"), ("S", "T")):
            t = arrival(phase, r["dist"], depth)
            for b in bands:
                w = window(phase, t, b, t_max)
                kernels.append(dict(name=f"{r['name']}_{phase}{comp}_{b[0]:g}-{b[1]:g}s", receiver=f"{r['net']}.{r['name']}",
                                    component=comp, band=b, window=w, arrival=round(t, 1)))
    L = ["# generated by bench/kernel_bench.py: one event, %d receivers, P (Z) and S (T) in %d bands" % (nrec, len(bands)),
         f"forward-db: {fwd}", f"backward-db: {bwd}", "event: CMTSOLUTION", "receivers: STATIONS", "mesh:",
         f"  voxels: {{lat: [-90, 90], lon: [-180, 180], depth-km: [0, {zmax:g}], counts: [{counts[0]}, {counts[1]}, {counts[2]}]}}",
         "values: cells", "perturbations: relative", "stf: database", "points: halton",
         f"points-per-step: {points}", f"min-points: {points}", f"max-points: {points}", "output: kernels.h5", "kernels:"]
    for k in kernels:
        L += [f"  - name: {k['name']}", f"    receiver: {k['receiver']}", f"    component: {k['component']}",
              f"    bandpass: [{1.0 / k['band'][1]:.6g}, {1.0 / k['band'][0]:.6g}]", f"    filter-order: {order}",
              "    zerophase: true", f"    window: [{k['window'][0]}, {k['window'][1]}]", "    misfit: cc",
              "    parameters: [vp, vs, rho]"]
    with open(os.path.join(work, "job.yaml"), "w") as f:
        f.write("\n".join(L) + "\n")
    return dict(event=dict(lat=EVENT[0], lon=EVENT[1], depth_km=depth), receivers=recs, bands=bands,
                kernels=kernels, counts=list(counts), depth_km=[0, zmax], cells=counts[0] * counts[1] * counts[2], points_per_cell=points,
                filter_order=order, columns=3 * len(kernels))


# ---- databases, caches -----------------------------------------------------------------------

def info(axb, db):
    return json.loads(run([axb, "info", "--json", db]))


def du(files):
    return sum(os.path.getsize(f) for f in files)


# ---- runs ------------------------------------------------------------------------------------

def num(d, *keys, default=None):
    """The first of keys present in d (field names of --stats may vary a little)."""
    for k in keys:
        if isinstance(d, dict) and k in d and d[k] is not None:
            return d[k]
    return default


def cpu_busy():
    """Seconds of CPU the whole machine has been busy (all cores, /proc/stat)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    return (sum(v) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def background(seconds=2.0):
    """Cores kept busy by other processes while this bench waits (a quiet machine: ~0)."""
    b, t = cpu_busy(), time.perf_counter()
    time.sleep(seconds)
    return (cpu_busy() - b) / (time.perf_counter() - t)


def kernel_run(axb, job, ranks, out_h5, stats, extra=()):
    cmd = ["mpirun", "-n", str(ranks), axb, "kernel", "--job", job, "-o", out_h5, "--force", "-q", *extra]
    if stats:
        cmd += ["--stats", stats]
        if os.path.exists(stats):
            os.remove(stats)
    b, t = cpu_busy(), time.perf_counter()
    run(cmd)
    wall = time.perf_counter() - t
    busy = (cpu_busy() - b) / wall
    st = None
    if stats:
        with open(stats) as f:
            st = json.load(f)
    return wall, busy, st


def derive(job, wall, st):
    """One run's numbers: from --stats when there, else from the job and the wall clock."""
    r = dict(wall_s=round(wall, 2))
    cells, kernels = job["cells"], len(job["kernels"])
    if st is None:
        r.update(seconds=round(wall, 2), cells=cells, kernels=kernels, cells_per_s=cells / wall,
                 kernels_per_s=kernels / wall)
        return r
    secs = num(st, "seconds", "wall", default=wall)
    cells = num(st, "cells", default=cells)
    kernels = num(st, "kernels", default=kernels)
    computed = num(st, "cells_computed", default=cells)
    r.update(seconds=secs, cells=cells, cells_computed=computed, kernels=kernels,
             columns=num(st, "columns"), ranks_reported=num(st, "ranks"),
             cells_per_s=num(st, "cells_per_s", default=cells / secs),
             kernels_per_s=num(st, "kernels_per_s", default=kernels / secs),
             points=num(st, "points"), channel_points=num(st, "channel_points"),
             channel_cells_skipped=num(st, "channel_cells_skipped"))
    io = {}
    for side in ("fwd", "bwd"):
        s = num(st, side, side + "_io", default={}) or {}
        io[side] = dict(read_calls=num(s, "read_calls", "reads"), element_reads=num(s, "element_reads", "elements"),
                        bytes_read=num(s, "bytes_read", "bytes"), chunks_decoded=num(s, "chunks_decoded"))
    r["io"] = io
    er = [io[s]["element_reads"] for s in io if io[s]["element_reads"] is not None]
    by = [io[s]["bytes_read"] for s in io if io[s]["bytes_read"] is not None]
    rc = [io[s]["read_calls"] for s in io if io[s]["read_calls"] is not None]
    if er and computed:
        r["element_reads_per_cell"] = sum(er) / computed
    if by and kernels:
        r["bytes_read_per_kernel"] = sum(by) / kernels
        r["bytes_read"] = sum(by)
    if rc:
        r["read_calls"] = sum(rc)
    tm = num(st, "time", "times", default={}) or {}
    tm = {k: float(v) for k, v in tm.items() if isinstance(v, (int, float))}
    # the parts add up to "total" (the ranks' whole run times) where the engine gives it
    tot = tm.pop("total", None) or sum(tm.values())
    if tot > 0:
        r["time_s"] = dict(tm, total=tot)
        r["time_share"] = {k: v / tot for k, v in tm.items()}
    return r


def commit():
    """The repository's commit (the binary is assumed built from it), '+' if the tree has changes."""
    try:
        h = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty=+"], capture_output=True, text=True)
        return h.stdout.strip() or "?"
    except OSError:
        return "?"


def parse_runs(text):
    out = []
    for item in text.split(","):
        layout, cache, ranks = item.strip().split(":")
        if layout not in ("merged", "original") or cache not in ("warm", "cold"):
            sys.exit(f"bench/kernel_bench.py: bad run '{item}' (layout:cache:ranks, e.g. merged:warm:2)")
        out.append((layout, cache, int(ranks)))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fwd", help="forward database, original layout (default: " + os.path.join(DEFAULT_DB, "prem_25s_fwd")
                    + "; --quick: the shared 100 s one)")
    ap.add_argument("--bwd", help="reciprocal database, original layout (default: " + os.path.join(DEFAULT_DB, "prem_25s_bwd")
                    + "; --quick: the shared 100 s one)")
    ap.add_argument("--quick", action="store_true", help="tiny mesh, 4 receivers (CI)")
    ap.add_argument("--axibulk", default=os.path.join(ROOT, "build", "release", "src", "axibulk"))
    ap.add_argument("--work", help="folder for the merged copies and the job (default: a temporary one, removed)")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench"))
    ap.add_argument("--md", help="Markdown file to splice the report into (default docs/benchmarks.md; "
                                 "'-' for none; --quick never touches docs/)")
    ap.add_argument("--reps", type=int, help="repetitions of the whole matrix (default 1)")
    ap.add_argument("--counts", help="voxel counts NLAT,NLON,NDEPTH (default 36,72,40; quick 4,8,3)")
    ap.add_argument("--receivers", type=int, help="receivers (default 20; quick 4)")
    ap.add_argument("--points", type=int, help="Monte Carlo points per cell (default 2; quick 4)")
    ap.add_argument("--filter-order", type=int, default=8, help="Butterworth order (default 8)")
    ap.add_argument("--cache-mb", type=int, help="axibulk kernel --cache-mb (default: the engine's)")
    ap.add_argument("--runs", help="layout:cache:ranks,... (default: " + FULL["runs"] + ")")
    a = ap.parse_args()
    cfg = QUICK if a.quick else FULL
    shared = os.path.join(ROOT, "..", "shared", "data", "axisem-prem-100s")
    a.fwd = a.fwd or (os.path.join(shared, "100s_db_fwd") if a.quick else os.path.join(DEFAULT_DB, "prem_25s_fwd"))
    a.bwd = a.bwd or (os.path.join(shared, "100s_db_bwd_displ_only") if a.quick else os.path.join(DEFAULT_DB, "prem_25s_bwd"))
    reps = a.reps or cfg["reps"]
    counts = tuple(int(x) for x in a.counts.split(",")) if a.counts else cfg["counts"]
    nrec = a.receivers or cfg["receivers"]
    points = a.points or cfg["points"]
    configs = parse_runs(a.runs or cfg["runs"])
    axb = os.path.abspath(a.axibulk)
    if not os.access(axb, os.X_OK):
        sys.exit(f"bench/kernel_bench.py: no axibulk at {axb} (build it first, or --axibulk PATH)")
    has_stats = "--stats" in subprocess.run([axb, "kernel", "--help"], capture_output=True, text=True).stdout
    os.makedirs(a.out, exist_ok=True)
    work = os.path.abspath(a.work or tempfile.mkdtemp(prefix="axb-kbench-"))
    os.makedirs(work, exist_ok=True)
    t0 = time.perf_counter()
    # the output (cells x columns x 16 bytes: ~0.6 GB at the default) in memory where possible, as
    # bench/suite.py does: the disk's writeback would take from the ranks' cores on this machine
    out_h5 = os.path.join("/dev/shm" if os.access("/dev/shm", os.W_OK) else work, f"axb-kbench-{os.getpid()}.h5")
    try:
        orig = dict(fwd=os.path.abspath(a.fwd), bwd=os.path.abspath(a.bwd))
        for s, d in orig.items():
            if not os.path.isdir(d):
                sys.exit(f"bench/kernel_bench.py: no database at {d} (--{s} DIR: an AxiSEM "
                         f"{'forward' if s == 'fwd' else 'reciprocal'} database in the original layout)")
        infos = {s: info(axb, orig[s]) for s in orig}
        for s in orig:
            if infos[s]["layout"] != "original":
                sys.exit(f"bench/kernel_bench.py: --{s} {orig[s]} is not in the original layout")
        dbs = {("original", s): orig[s] for s in orig}
        for s in orig:
            d = os.path.join(work, os.path.basename(orig[s].rstrip("/")) + "-merged")
            if not os.path.exists(os.path.join(d, "merged_output.nc4")):
                print(f"bench/kernel_bench.py: repacking {orig[s]} into {d}", file=sys.stderr)
                run(["mpirun", "-n", "2", axb, "repack", orig[s], d, "-q", "--force"])
            dbs[("merged", s)] = d
        files = {k: db_files(v) for k, v in dbs.items()}
        sizes = {k: du(files[k]) for k in dbs}
        jobs = {}
        for layout in ("original", "merged"):
            jd = os.path.join(work, "job-" + layout)
            os.makedirs(jd, exist_ok=True)
            jobs[layout] = os.path.join(jd, "job.yaml")
            desc = make_job(jd, infos["fwd"], infos["bwd"], dbs[(layout, "fwd")], dbs[(layout, "bwd")], nrec, counts, points,
                            a.filter_order)
        raw = {c: [] for c in configs}
        done = []
        extra = ["--cache-mb", str(a.cache_mb)] if a.cache_mb is not None else []
        for rep in range(reps):
            for c in configs:
                layout, cache, ranks = c
                fl = files[(layout, "fwd")] + files[(layout, "bwd")]
                if cache == "cold":
                    drop(fl)
                else:
                    warm(fl)
                stats = os.path.join(work, "stats.json") if has_stats else None
                bg = background(0.5 if a.quick else 2.0)
                if cache == "cold":
                    drop(fl)  # again: the pause may have let something read them
                wall, busy, st = kernel_run(axb, jobs[layout], ranks, out_h5, stats, extra)
                d = derive(desc, wall, st)
                d.update(background_cores=round(bg, 2), cores_busy=round(busy, 2))
                print(f"bench/kernel_bench.py: {layout} {cache} {ranks} rank(s): {wall:.1f} s, "
                      f"{d['cells_per_s']:.1f} cells/s, {d['kernels_per_s']:.3f} kernels/s; cores busy {busy:.2f}, "
                      f"before the run {bg:.2f}" + ("  (machine not quiet)" if bg > 0.1 else ""), file=sys.stderr)
                raw[c].append(d)
                done.append((c, wall))
                left = [x for x in configs[configs.index(c) + 1:]] + configs * (reps - rep - 1)
                if left:
                    # a guess from the runs so far: one rank's time per layout as measured (any
                    # layout's if that one has not run yet), 2 ranks ~1.8x
                    speedup = lambda x: 1 if x[2] == 1 else 0.9 * x[2]
                    t1 = {}
                    for x, w in done:
                        t1.setdefault(x[0], []).append(w * speedup(x))
                    # the original layout inflates every chunk it reads: about 3x the merged time
                    # (measured on the 25 s pair) until it has run
                    rel = {"merged": 1.0, "original": 3.0}
                    anyone = statistics.median(v / rel[l] for l, vs in t1.items() for v in vs)
                    eta = sum(statistics.median(t1.get(x[0], [anyone * rel[x[0]]])) / speedup(x) for x in left)
                    print(f"bench/kernel_bench.py: {len(left)} run(s) left, about {eta / 60:.0f} min", file=sys.stderr)
        # keep the last output's reference seismograms for a look at the windows
        if os.path.exists(out_h5):
            shutil.copyfile(out_h5, os.path.join(a.out, "kernel_bench.h5"))
        results = []
        for c in configs:
            v = raw[c]
            med = dict(sorted(v, key=lambda x: x["cells_per_s"])[(len(v) - 1) // 2])  # its counters
            med["cells_per_s"] = statistics.median(x["cells_per_s"] for x in v)
            med["kernels_per_s"] = statistics.median(x["kernels_per_s"] for x in v)
            med["wall_s_each"] = [x["wall_s"] for x in v]
            med["background_cores_max"] = max(x["background_cores"] for x in v)
            med.update(layout=c[0], cache=c[1], ranks=c[2], oversubscribed=c[2] > (os.cpu_count() or 1),
                       repetitions=len(v))
            results.append(med)
        by = {(r["layout"], r["cache"], r["ranks"]): r for r in results}
        ratios = {}

        def ratio(name, num_key, den_key, what):
            if num_key in by and den_key in by:
                ratios[name] = dict(value=round(by[num_key]["cells_per_s"] / by[den_key]["cells_per_s"], 3),
                                    what=what)
        ratio("ranks_2_vs_1_merged_warm", ("merged", "warm", 2), ("merged", "warm", 1), "merged, warm: 2 ranks / 1 rank")
        ratio("ranks_2_vs_1_original_warm", ("original", "warm", 2), ("original", "warm", 1), "original, warm: 2 ranks / 1 rank")
        ratio("merged_vs_original_warm_2", ("merged", "warm", 2), ("original", "warm", 2), "warm, 2 ranks: merged / original")
        ratio("merged_vs_original_cold_2", ("merged", "cold", 2), ("original", "cold", 2), "cold, 2 ranks: merged / original")
        ratio("merged_vs_original_warm_1", ("merged", "warm", 1), ("original", "warm", 1), "warm, 1 rank: merged / original")
        ratio("warm_vs_cold_merged_2", ("merged", "warm", 2), ("merged", "cold", 2), "merged, 2 ranks: warm / cold")
        ratio("warm_vs_cold_original_2", ("original", "warm", 2), ("original", "cold", 2), "original, 2 ranks: warm / cold")
        report = dict(
            date=time.strftime("%Y-%m-%d"), mode="quick" if a.quick else "full", cores=os.cpu_count(),
            axibulk=axb, stats=has_stats, repetitions=reps, cache_mb=a.cache_mb, commit=commit(),
            output_dir=os.path.dirname(out_h5),
            databases={f"{k[0]}-{k[1]}": dict(path=dbs[k], bytes=sizes[k]) for k in dbs},
            database_info=dict(period=infos["fwd"]["dominant_period"], dt=infos["fwd"]["dt"],
                               samples=infos["fwd"]["samples"], elements=infos["fwd"]["elements"],
                               source_depth_km=infos["fwd"]["source_depth_km"],
                               model=infos["fwd"]["background_model"], fwd=orig["fwd"], bwd=orig["bwd"]),
            job=desc, runs=results, ratios=ratios, seconds_total=round(time.perf_counter() - t0, 1))
    finally:
        for f in [out_h5, out_h5[:-3] + ".xdmf"] + glob.glob(out_h5 + ".partial*"):
            if os.path.exists(f):
                os.remove(f)
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    with open(os.path.join(a.out, "kernel_bench.json"), "w") as f:
        json.dump(report, f, indent=1)
    md = markdown(report)
    with open(os.path.join(a.out, "kernel_bench.md"), "w") as f:
        f.write(md)
    png = plots(report, a.out)
    target = a.md if a.md else (None if a.quick else os.path.join(ROOT, "docs", "benchmarks.md"))
    if target and target != "-":
        if png:
            shutil.copyfile(png, os.path.join(os.path.dirname(os.path.abspath(target)), "bench_kernel.png"))
            md += "\n![kernel benchmark](bench_kernel.png)\n"
        splice(target, md, MARK_BEGIN, MARK_END, "Kernels (`bench/kernel_bench.py`)")
    print(f"bench/kernel_bench.py: {len(results)} runs in {report['seconds_total']} s; {a.out}/kernel_bench.json, "
          "kernel_bench.md" + (", kernel.png" if png else ""))


# ---- report ----------------------------------------------------------------------------------

def fmt(x, spec, none="–"):
    return none if x is None else format(x, spec)


def markdown(rep):
    j, di = rep["job"], rep["database_info"]
    bands = ", ".join(f"{b[0]:g}–{b[1]:g} s" for b in j["bands"])
    sz = rep["databases"]
    L = [f"Kernel run {rep['date']} ({rep['mode']}, {rep['cores']} cores, {rep['repetitions']} repetition(s), "
         f"{rep['seconds_total']} s in all; engine counters: {'`--stats`' if rep['stats'] else 'none (wall clock only)'}).", "",
         f"- Databases: {di['model']}, {di['period']:g} s, {di['elements']} elements, {di['samples']} samples at "
         f"{di['dt']:.2f} s, forward source {di['source_depth_km']:.3f} km deep; `{di['fwd']}`, `{di['bwd']}`. "
         f"Sizes: original {(sz['original-fwd']['bytes'] + sz['original-bwd']['bytes']) / 1e6:.0f} MB "
         f"(forward + reciprocal), merged {(sz['merged-fwd']['bytes'] + sz['merged-bwd']['bytes']) / 1e6:.0f} MB.",
         f"- Job: event {j['event']['lat']:g}N {j['event']['lon']:g}E, {len(j['receivers'])} receivers "
         f"{min(r['dist'] for r in j['receivers']):.1f}–{max(r['dist'] for r in j['receivers']):.1f}° away, azimuths "
         f"spread by the golden angle; P on Z and S on T in {len(j['bands'])} bands ({bands}; zero-phase Butterworth order "
         f"{j['filter_order']}), cc misfit, vp/vs/rho: {len(j['kernels'])} kernels, {j['columns']} columns.",
         f"- Mesh: global voxels, depth {j['depth_km'][0]:g}–{j['depth_km'][1]:g} km, {j['counts'][0]} × {j['counts'][1]} × {j['counts'][2]} = "
         f"{j['cells']:,} cells; {j['points_per_cell']} Monte Carlo points per cell (points-per-step = min-points = "
         f"max-points; cells holding the source or a receiver take up to 32×).",
         f"- Each run: `mpirun -n RANKS axibulk kernel --job job.yaml -o OUT --force -q --stats FILE"
         f"{' --cache-mb ' + str(rep['cache_mb']) if rep.get('cache_mb') is not None else ''}` (strain cache "
         f"{'the engine default' if rep.get('cache_mb') is None else str(rep['cache_mb']) + ' MB'} per database), "
         f"axibulk {rep.get('commit', '?')}; output in `{rep.get('output_dir', '?')}`.", "",
         "| layout | cache | ranks | wall s | cells/s | kernels/s | points/s | per rank cells/s | element reads/cell "
         "| MB read/kernel | read | strain | FFT | integrate | wait | other | cores busy (others before) |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    shown = ("read", "strain", "fft", "integrate", "wait")
    for r in rep["runs"]:
        sh = r.get("time_share") or {}
        other = 1 - sum(sh.get(k, 0) for k in shown) if sh else None
        walls = ", ".join(f"{w:.1f}" for w in r["wall_s_each"])
        L.append(f"| {r['layout']} | {r['cache']} | {r['ranks']}{' (oversubscribed)' if r['oversubscribed'] else ''} "
                 f"| {walls} | {r['cells_per_s']:.0f} | {r['kernels_per_s']:.3f} "
                 f"| {fmt(r['points'] / r['seconds'] if r.get('points') else None, ',.0f')} | {r['cells_per_s'] / r['ranks']:.0f} "
                 f"| {fmt(r.get('element_reads_per_cell'), '.2f')} "
                 f"| {fmt(r['bytes_read_per_kernel'] / 1e6 if r.get('bytes_read_per_kernel') is not None else None, '.2f')} "
                 + "".join(f"| {fmt(100 * sh[k] if k in sh else None, '.0f')} % " for k in shown)
                 + f"| {fmt(100 * other if other is not None else None, '.0f')} % "
                 f"| {r['cores_busy']:.2f} ({r['background_cores_max']:.2f}) |")
    if rep["stats"]:
        L += ["", "Engine counters (the repetition with the median rate; reads and bytes summed over ranks):", "",
              "| layout | cache | ranks | engine s | cells computed | points | channel points | channel cells skipped "
              "| forward: element reads, read calls, MB, chunks decoded | reciprocal: element reads, read calls, MB, chunks decoded |",
              "|---|---|---|---|---|---|---|---|---|---|"]
        for r in rep["runs"]:
            io = r.get("io", {})
            side = lambda s: ", ".join(fmt(v, f) for v, f in ((io.get(s, {}).get("element_reads"), ","),
                                                              (io.get(s, {}).get("read_calls"), ","),
                                                              (None if io.get(s, {}).get("bytes_read") is None
                                                               else io[s]["bytes_read"] / 1e6, ",.0f"),
                                                              (io.get(s, {}).get("chunks_decoded"), ",")))
            L.append(f"| {r['layout']} | {r['cache']} | {r['ranks']} | {fmt(r.get('seconds'), '.1f')} "
                     f"| {fmt(r.get('cells_computed'), ',')} | {fmt(r.get('points'), ',')} | {fmt(r.get('channel_points'), ',')} "
                     f"| {fmt(r.get('channel_cells_skipped'), ',')} | {side('fwd')} | {side('bwd')} |")
    busy = [r for r in rep["runs"] if r["background_cores_max"] > 0.1]
    if busy:
        L += ["", f"**Not a quiet machine**: other processes kept up to {max(r['background_cores_max'] for r in busy):.2f} "
                  "cores busy just before some runs; the ratios below are not final numbers."]
    L += ["", "Ratios of cells/s, same run:", ""]
    for k, v in rep["ratios"].items():
        L.append(f"- {v['what']}: **{v['value']:.2f}×**")
    if not rep["stats"]:
        L += ["", "Without `--stats` the element reads, bytes and time shares are unknown (–); the rates use the wall "
                  "time of `mpirun`, start-up included."]
    else:
        L += ["", "Rates use the engine's own time (rank 0, job read to output written); wall s includes `mpirun` "
                  "start-up. Time shares are of the seconds summed over ranks; 'wait' is time a rank waited for "
                  "the others, 'other' everything else (locating points, checkpoints, the rest)."]
    return "\n".join(L) + "\n"


def plots(rep, out):
    gp = shutil.which("gnuplot")
    if not gp:
        print("bench/kernel_bench.py: gnuplot not found: no plot", file=sys.stderr)
        return None
    runs = rep["runs"]
    dat = os.path.join(out, "kernel.dat")
    keys = ("read", "strain", "fft", "integrate", "locate", "wait")
    shares = any(r.get("time_share") for r in runs)
    with open(dat, "w") as f:
        f.write("# run cells/s " + " ".join(keys) + " other (% of the time summed over ranks)\n")
        for r in runs:
            sh = r.get("time_share") or {}
            parts = [100 * sh.get(k, 0) for k in keys]
            other = (100 - sum(parts)) if sh else 0
            f.write(f"\"{r['layout']}\\n{r['cache']}\\n{r['ranks']} rank{'s' if r['ranks'] > 1 else ''}\" "
                    f"{r['cells_per_s']:.3f} " + " ".join(f"{p:.2f}" for p in parts) + f" {other:.2f}\n")
    png = os.path.join(out, "kernel.png")
    j = rep["job"]
    k_per_cell = len(j["kernels"]) / j["cells"]  # kernels/s = cells/s x kernels / cells (one job)
    ymax = 1.15 * max(r["cells_per_s"] for r in runs)
    title = (f"axibulk kernel, {rep['mode']} run {rep['date']}: {len(j['kernels'])} kernels (vp, vs, rho) on "
             f"{j['cells']:,} voxels, {j['points_per_cell']} points per cell, {rep['database_info']['period']:g} s PREM")
    right = (f"plot for [i=3:9] '{dat}' using i:xtic(1) title word('read strain FFT integrate locate wait other', i-2)"
             if shares else
             "set label 1 'no engine counters (axibulk kernel --stats)' at graph 0.5, 0.5 center\n"
             f"plot '{dat}' using (0):xtic(1) notitle")
    script = f"""
set terminal png size 1300,600
set output '{png}'
set multiplot layout 1,2 title '{title}'
set bmargin 5
set style data histograms
set style histogram cluster gap 1
set style fill solid border -1
set boxwidth 0.7
set ylabel 'cells/s'
set y2label 'kernels/s'
set ytics nomirror
set y2tics
set yrange [0:{ymax!r}]
set y2range [0:{ymax * k_per_cell!r}]
set xrange [-0.6:{len(runs) - 0.4}]
set title 'throughput (one bar: cells/s on the left axis = kernels/s on the right)'
plot '{dat}' using 2:xtic(1) notitle lc rgb '#4477aa', '' using 0:2:(sprintf('%.0f', $2)) with labels offset 0,0.8 notitle
unset y2label
unset y2tics
set ytics mirror
set title 'share of time (seconds summed over ranks)'
set style histogram rowstacked
set ylabel '%'
set yrange [0:100]
set key outside right top
{right}
unset multiplot
"""
    subprocess.run([gp], input=script, text=True, check=True)
    return png


if __name__ == "__main__":
    main()
