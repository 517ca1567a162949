#!/usr/bin/env python3
"""Speed on real AxiSEM databases (chunks deflated, shuffled and fletcher32-checked, as AxiSEM
writes them), measured side by side in one run.

    bench/realdata_bench.py [--db DIR ...] [--axibulk PATH] [--work DIR] [--out DIR] [--md FILE]
                            [--pairs N] [--instaseis DIR] [--quick]

For each database (default: the shared 50 s PREM database in ../shared/data):
  read       cold sequential read of its files: what the disk gives (MB/s)
  repack     --contiguous and --deflate 2, 1 and 2 ranks, cold: input MB/s, its fraction of the
             cold read, and the time per stage the decoding threads report
  extract    N random source-receiver pairs (ZNE), warm: the original layout against the merged
             copy the contiguous repack wrote, 1 and 2 ranks, and 1 rank pinned to one core with
             --threads 1 (the per-core comparison); then a bulk batch of the same size, events x
             stations (CMTSOLUTION x STATIONS), 1 rank and pinned
  scale      the same comparison for a job --scale times larger (random pairs and events x
             stations, 1 rank and pinned): the original layout decodes each chunk it needs once per
             job, so its cost over the merged copy's falls as a job's rows share elements
  bound      warm merged extraction (random pairs, 1 rank) as bytes per element x seismograms/s,
             and as element bytes actually read per second, against a plain read of the merged
             file from the page cache in the same run (the copy bound)
  disk       with --disk-mbps N[,M...] (root, a cgroup block throttle): the repacks again against
             this machine's disk throttled by the kernel to N MB/s of reads, standing in for a real
             disk where the virtual one is served from the host's cache: the cold read and the
             repacks' input MB/s by the repack's own clock and over the whole process (mpirun and
             MPI's start-up included), through the same throttle; on databases under 1 GB (runs of
             about a second) the median of three runs, with their range
  instaseis  with --instaseis DIR (a folder with env.sh and run_pattern.py: Instaseis built from its
             public source outside this repository), Instaseis' UnbufferedFullyRandom pattern on the
             same original and merged databases, pinned to the same core, alternating three times with
             axibulk's one-core random pairs (both rates drift by a quarter over a run of this script):
             seismograms/s and the ratio of the medians, with their ranges; axibulk's by its job's
             clock (database opened to output renamed) and over its whole process (MPI's start-up and
             reading the pairs file included)

Writes OUT/realdata.json, OUT/realdata.md (also spliced into --md, docs/benchmarks.md by default,
between this script's markers). --quick (CI: keeps the harness working, never judges a speed) uses
the 50 s database, 200 pairs (400 for the larger jobs), 1 rank. Only the Python standard library.
"""
import argparse
import json
import math
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import ThrottledDisk, db_files, drop, env, run, seq_read, splice, warm

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARK_BEGIN = "<!-- bench/realdata_bench.py: begin -->"
MARK_END = "<!-- bench/realdata_bench.py: end -->"
EXTRACT = re.compile(r"wrote (\d+) rows .* in ([0-9.]+) s \(([0-9.]+) rows/s, (\d+) element reads in (\d+) read calls")
REPACK = re.compile(r"in ([0-9.]+) s: ([0-9.]+) MB/s read, ([0-9.]+) MB/s written")
DECODED = re.compile(r"decoded (\d+) chunks \(([0-9.]+) MB stored\) with (\d+) threads per rank; seconds summed over "
                     r"threads: read ([0-9.]+) \(wall\), checksum ([0-9.]+), inflate ([0-9.]+), unshuffle ([0-9.]+), "
                     r"transpose ([0-9.]+) \(CPU\)")
WROTE = re.compile(r"wrote (?:(\d+) chunks \(([0-9.]+) MB stored\) compressed by \d+ threads per rank|([0-9.]+) MB); "
                   r"seconds summed over ranks: (?:compress ([0-9.]+) \(CPU, summed over threads\), exchange ([0-9.]+), )?"
                   r"write ([0-9.]+), sync ([0-9.]+)")
INSTASEIS = re.compile(r"seismograms_per_second=([0-9.]+)")
STAGES = re.compile(r"time on rank 0 \(s\): open ([0-9.]+), locate ([0-9.]+), read ([0-9.]+), compute ([0-9.]+), "
                    r"write ([0-9.]+), close ([0-9.]+), other ([0-9.]+)")


def mpirun(n, args):
    return ["mpirun", "-n", str(n)] + args if n > 1 else args


def timed_run(cmd):
    """run(cmd), with the CPU seconds (user + system) of everything it started and its wall time."""
    before, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    out = run(cmd)
    wall, after = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return out, {"cpu_s": cpu, "wall_s": wall, "busy": cpu / (wall * (os.cpu_count() or 1))}


def info(axb, db):
    return json.loads(run([axb, "info", "--json", db]))


def decoded(out):
    m = DECODED.search(out)
    if not m:
        return None
    k = ["chunks", "stored_mb", "threads", "read", "checksum", "inflate", "unshuffle", "transpose"]
    return {a: (int(v) if a in ("chunks", "threads") else float(v)) for a, v in zip(k, m.groups())}


def stages(out):
    """An extraction's time per stage on rank 0 (wall, s), or None."""
    m = STAGES.search(out)
    k = ["open", "locate", "read", "compute", "write", "close", "other"]
    return dict(zip(k, map(float, m.groups()))) if m else None


def encoded(out):
    """The write side's seconds per stage (summed over ranks), or None."""
    m = WROTE.search(out)
    if not m:
        return None
    f = lambda g: float(m.group(g)) if m.group(g) else 0.0
    return {"compress": f(4), "exchange": f(5), "write": f(6), "sync": f(7)}


def make_pairs(path, db, n, rng):
    """Fully random pairs: sources anywhere (forward databases: at their source depth; reciprocal:
    0-600 km), receivers anywhere at the surface."""
    def point():
        return math.degrees(math.asin(2 * rng.random() - 1)), 360 * rng.random() - 180

    with open(path, "w") as f:
        for _ in range(n):
            (slat, slon), (rlat, rlon) = point(), point()
            depth = db["source_depth_km"] * 1e3 if db["kind"] == "forward" else rng.uniform(0, 600e3)
            m = " ".join(f"{rng.uniform(-1e18, 1e18):.4e}" for _ in range(6))
            f.write(f"mt {slat:.4f} {slon:.4f} {depth:.0f} {m} {rlat:.4f} {rlon:.4f}\n")


def make_bulk(cmt, stations, db, nev, nsta, rng):
    """Events x stations: events anywhere (forward databases: at their source depth; reciprocal:
    0-600 km), stations anywhere at the surface."""
    with open(cmt, "w") as f:
        for e in range(nev):
            lat, lon = math.degrees(math.asin(2 * rng.random() - 1)), 360 * rng.random() - 180
            depth = db["source_depth_km"] if db["kind"] == "forward" else rng.uniform(0, 600)
            f.write(f" PDE 2020  1  1  0  0  0.00 {lat:8.4f} {lon:9.4f} {depth:6.1f} 6.0 6.0 BENCH\n"
                    f"event name:     B{e:05d}\ntime shift:      0.0000\nhalf duration:   0.0000\n"
                    f"latitude:       {lat:.4f}\nlongitude:      {lon:.4f}\ndepth:          {depth:.4f}\n")
            for c in ("Mrr", "Mtt", "Mpp", "Mrt", "Mrp", "Mtp"):
                f.write(f"{c}:       {rng.uniform(-1e25, 1e25):.6e}\n")
            f.write("\n")
    with open(stations, "w") as f:
        for k in range(nsta):
            lat, lon = math.degrees(math.asin(2 * rng.random() - 1)), 360 * rng.random() - 180
            f.write(f"S{k:04d} XX {lat:.4f} {lon:.4f} 0.0 0.0\n")


def bench_db(a, db, work, rng):
    axb = a.axibulk
    name = os.path.basename(os.path.normpath(db))
    meta = info(axb, db)
    files = db_files(db)
    size_mb = sum(os.path.getsize(f) for f in files) / 1e6
    r = {"db": db, "name": name, "size_mb": size_mb, "elements": meta["elements"], "samples": meta["samples"],
         "kind": meta["kind"], "deflate": meta["deflate"]}
    reps = 1 if a.quick else 2
    r["cold_read_mb_s"] = max(seq_read(files) for _ in range(reps))
    print(f"{name}: {size_mb:.0f} MB, cold read {r['cold_read_mb_s']:.0f} MB/s", flush=True)

    merged = os.path.join(work, f"{name}-merged")
    r["repack"] = []
    ranks = [1] if a.quick else [1, 2]
    for mode in (["--contiguous"], ["--deflate", "2"]):
        for n in ranks:
            dst = os.path.join(work, f"{name}-repack")
            drop(files)
            out, use = timed_run(mpirun(n, [axb, "repack", db, dst, "--force", "-q"] + mode))
            m = REPACK.search(out)
            row = {"mode": " ".join(mode), "ranks": n, "seconds": float(m.group(1)), "read_mb_s": float(m.group(2)),
                   "written_mb_s": float(m.group(3)), "decode": decoded(out), "encode": encoded(out), "cpu": use}
            row["of_cold_read"] = row["read_mb_s"] / r["cold_read_mb_s"]
            r["repack"].append(row)
            print(f"  repack {row['mode']} {n} rank(s): {row['read_mb_s']:.0f} MB/s read "
                  f"({row['of_cold_read']:.2f} of the cold read)", flush=True)
            if mode == ["--contiguous"] and n == ranks[-1]:
                shutil.rmtree(merged, ignore_errors=True)
                os.rename(dst, merged)
            else:
                shutil.rmtree(dst, ignore_errors=True)

    r["throttled"] = []
    # a repack of a small database takes about a second, and one run of it says little on a
    # machine whose speed drifts: such runs are repeated and the median reported, with the range
    runs = 1 if a.quick or size_mb >= 1000 else 3
    for mbps in a.disk_mbps:
        disk = ThrottledDisk(db, mbps)
        if not disk.available():
            print(f"  disk throttle to {mbps} MB/s: not available here (needs root and a cgroup blkio/io controller)")
            continue
        try:
            t = {"mbps": mbps, "read_mb_s": max(disk.read_mb_s(files) for _ in range(reps)), "repack": []}
            for mode in (["--contiguous"], ["--deflate", "2"]):
                for n in ranks:
                    tries = []
                    for _ in range(runs):
                        dst = os.path.join(work, f"{name}-throttled")
                        drop(files)
                        out, use = timed_run(disk.wrap(mpirun(n, [axb, "repack", db, dst, "--force", "-q"] + mode)))
                        m = REPACK.search(out)
                        secs = float(m.group(1))
                        row = {"mode": " ".join(mode), "ranks": n, "seconds": secs, "input_mb_s": size_mb / secs,
                               "decode": decoded(out), "encode": encoded(out), "cpu": use}
                        row["of_disk"] = row["input_mb_s"] / t["read_mb_s"]
                        # the process's wall time too: mpirun and MPI's start-up (a third of a second
                        # here) belong to what a user waits for, not to the repack's own clock
                        row["process_mb_s"] = size_mb / use["wall_s"]
                        row["of_disk_process"] = row["process_mb_s"] / t["read_mb_s"]
                        tries.append(row)
                        shutil.rmtree(dst, ignore_errors=True)
                    # the median run, with the others' range
                    tries.sort(key=lambda x: x["seconds"])
                    row = tries[len(tries) // 2]
                    row["of_disk_all"] = [x["of_disk"] for x in tries]
                    t["repack"].append(row)
                    print(f"  disk {mbps} MB/s: repack {row['mode']} {n} rank(s): {row['input_mb_s']:.0f} MB/s "
                          f"({row['of_disk']:.2f} of its cold read, {t['read_mb_s']:.0f} MB/s)", flush=True)
            r["throttled"].append(t)
        finally:
            disk.close()

    pairs = os.path.join(work, f"{name}.pairs")
    make_pairs(pairs, meta, a.pairs, rng)
    out_h5 = os.path.join(a.scratch_out, f"axb-realdata-{os.getpid()}.h5")
    mfiles = db_files(merged)
    r["extract"] = []
    nsta = 400 if a.pairs >= 4000 else 20
    nev = max(1, a.pairs // nsta)
    cmt, stations = os.path.join(work, f"{name}.cmt"), os.path.join(work, f"{name}.stations")
    make_bulk(cmt, stations, meta, nev, nsta, rng)
    r["bulk_shape"] = [nev, nsta]
    cases = [("pairs", lay, n, False) for n in ranks for lay in ("original", "merged")]
    cases += [("pairs", lay, 1, True) for lay in ("original", "merged")]
    cases += [("bulk", lay, 1, pinned) for pinned in (False, True) for lay in ("original", "merged")]
    inputs = {"pairs": ["--pairs", pairs], "bulk": ["--cmt", cmt, "--stations", stations]}
    if a.scale > 1:
        spairs = os.path.join(work, f"{name}-x{a.scale}.pairs")
        make_pairs(spairs, meta, a.pairs * a.scale, rng)
        scmt = os.path.join(work, f"{name}-x{a.scale}.cmt")
        make_bulk(scmt, os.devnull, meta, nev * a.scale, nsta, rng)  # the same stations
        inputs["pairs-scaled"] = ["--pairs", spairs]
        inputs["bulk-scaled"] = ["--cmt", scmt, "--stations", stations]
        r["scale"] = a.scale
        cases += [(f"{w}-scaled", lay, 1, pinned) for w in ("pairs", "bulk") for pinned in (False, True)
                  for lay in ("original", "merged")]
    for rows, lay, n, pinned in cases:
        path, fs = (db, files) if lay == "original" else (merged, mfiles)
        warm(fs)
        what = inputs[rows]
        cmd = [axb, "extract", "--db", path] + what + ["--components", "ZNE", "-o", out_h5, "--force", "-q"]
        if pinned:
            cmd = ["taskset", "-c", "1"] + cmd + ["--threads", "1"]
        best = None
        for _ in range(reps):
            if os.path.exists(out_h5):  # replacing a big file costs its unlink in the rename: not extraction
                os.unlink(out_h5)
            out = run(mpirun(n, cmd))
            m = EXTRACT.search(out)
            row = {"rows_from": rows, "layout": lay, "ranks": n, "pinned": pinned, "rows": int(m.group(1)),
                   "seconds": float(m.group(2)),
                   "rows_s": float(m.group(3)), "element_reads": int(m.group(4)), "decode": decoded(out),
                   "stages": stages(out)}
            if best is None or row["rows_s"] > best["rows_s"]:
                best = row
        r["extract"].append(best)
        print(f"  extract {rows} {lay} {n} rank(s){' 1 core' if pinned else ''}: {best['rows_s']:.0f} rows/s",
              flush=True)
    if os.path.exists(out_h5):
        os.unlink(out_h5)

    mmeta = info(axb, merged)
    elem_bytes = mmeta["size_bytes"] / mmeta["elements"]  # the mesh is a small part of the file
    warm(mfiles)
    cache = max(seq_read(mfiles, cold=False) for _ in range(reps))
    one = next(e for e in r["extract"]
               if e["rows_from"] == "pairs" and e["layout"] == "merged" and e["ranks"] == 1 and not e["pinned"])
    moved = one["element_reads"] * elem_bytes / one["seconds"] / 1e6
    # the measure: every seismogram needs its element, so bytes per element x seismograms/s
    served = elem_bytes * one["rows_s"] / 1e6
    r["bound"] = {"cache_read_mb_s": cache, "element_kb": elem_bytes / 1e3, "moved_mb_s": moved,
                  "fraction": moved / cache, "served_mb_s": served, "served_fraction": served / cache}

    if a.instaseis and meta["kind"] == "reciprocal":  # Instaseis' pattern places sources: reciprocal only
        r["instaseis"] = []
        out_h5 = os.path.join(a.scratch_out, f"axb-realdata-{os.getpid()}.h5")
        for lay, path in (("original", db), ("merged", merged)):
            fs = files if lay == "original" else mfiles
            script = (f"source {a.instaseis}/env.sh && taskset -c 1 /usr/bin/python3 {a.instaseis}/run_pattern.py "
                      f"{path} {a.instaseis_seconds}")
            mine_cmd = ["taskset", "-c", "1", axb, "extract", "--db", path, "--pairs", pairs, "--components", "ZNE",
                        "-o", out_h5, "--force", "-q", "--threads", "1"]
            theirs, mine, mine_whole, failed = [], [], [], None
            # alternating, so that both see the same drift of this machine's speed
            for _ in range(1 if a.quick else 3):
                warm(fs)
                p = subprocess.run(["bash", "-c", script], env=env(), capture_output=True, text=True)
                m = INSTASEIS.search(p.stdout)
                if not m:
                    failed = p.stderr.strip()[-200:]
                    break
                theirs.append(float(m.group(1)))
                warm(fs)
                if os.path.exists(out_h5):
                    os.unlink(out_h5)
                out, use = timed_run(mine_cmd)
                m = EXTRACT.search(out)
                mine.append(float(m.group(3)))
                # the measure: the whole process, start-up and reading the pairs file included
                mine_whole.append(int(m.group(1)) / use["wall_s"])
            if os.path.exists(out_h5):
                os.unlink(out_h5)
            row = {"layout": lay, "rows_s": None}
            if theirs:
                rate, ax = statistics.median(theirs), statistics.median(mine)
                row = {"layout": lay, "rows_s": rate, "rows_s_all": theirs, "axibulk_rows_s": ax,
                       "axibulk_rows_s_all": mine, "ratio": ax / rate,
                       "axibulk_whole_rows_s_all": mine_whole,
                       "ratio_whole": statistics.median(mine_whole) / rate,
                       "ratio_range": [min(mine) / max(theirs), max(mine) / min(theirs)]}
            r["instaseis"].append(row)
            print(f"  instaseis {lay}: {theirs if theirs else 'failed: ' + str(failed)}, axibulk {mine}", flush=True)
    return r


def busy(p):
    """A repack's CPU seconds over its whole process (start-up included) and the share of the
    machine's cores they kept busy: near 100 % the run is CPU-bound, and only more cores help."""
    c = p.get("cpu")
    return f"{c['cpu_s']:.1f} ({100 * c['busy']:.0f} %)" if c else "–"


def report(results, a):
    L = [f"Measured {time.strftime('%Y-%m-%d')} by `bench/realdata_bench.py{' --quick' if a.quick else ''}` "
         f"({a.pairs} random pairs or about as many events × stations per extraction"
         f"{f', and {a.scale} times as many for the larger jobs' if a.scale > 1 else ''}; best of "
         f"{1 if a.quick else 2} runs; {os.cpu_count()}-core machine).", ""]
    for r in results:
        L += [f"### {r['name']} ({r['kind']}, {r['elements']} elements, {r['samples']} samples, "
              f"{r['size_mb']:.0f} MB, deflate {r['deflate']})", "",
              f"Cold sequential read of the files: **{r['cold_read_mb_s']:.0f} MB/s**.", "",
              "| repack | ranks | input MB/s | of the cold read | written MB/s | decode s: read (wall) / checksum / "
              "inflate / unshuffle / transpose (CPU) | write side s: compress (CPU) / exchange / write / sync | "
              "process CPU s (cores busy) |",
              "|---|---|---|---|---|---|---|---|"]
        for p in r["repack"]:
            d, w = p["decode"], p.get("encode")
            split = (f"{d['read']:.2f} / {d['checksum']:.2f} / {d['inflate']:.2f} / {d['unshuffle']:.2f} / "
                     f"{d['transpose']:.2f} ({d['threads']} threads)") if d else "–"
            wsplit = (f"{w['compress']:.2f} / {w['exchange']:.2f} / {w['write']:.2f} / {w['sync']:.2f}") if w else "–"
            L.append(f"| `{p['mode']}` | {p['ranks']} | {p['read_mb_s']:.0f} | {p['of_cold_read']:.2f} | "
                     f"{p['written_mb_s']:.0f} | {split} | {wsplit} | {busy(p)} |")
        for t in r.get("throttled", []):
            L += ["", f"Against a disk of {t['mbps']} MB/s (this machine's disk throttled by the kernel's block "
                  f"throttle; its cold sequential read of the files: **{t['read_mb_s']:.0f} MB/s**):", "",
                  "| repack | ranks | input MB/s (repack's clock) | of the disk's cold read | whole process: MB/s, "
                  "of the disk | decode s: read (wall) / checksum / inflate (CPU) | write side s: compress (CPU) / "
                  "exchange / write / sync | process CPU s (cores busy) |", "|---|---|---|---|---|---|---|---|"]
            for p in t["repack"]:
                d, w = p["decode"], p.get("encode")
                split = f"{d['read']:.2f} / {d['checksum']:.2f} / {d['inflate']:.2f}" if d else "–"
                wsplit = (f"{w['compress']:.2f} / {w['exchange']:.2f} / {w['write']:.2f} / {w['sync']:.2f}") if w else "–"
                whole = (f"{p['process_mb_s']:.0f}, {p['of_disk_process']:.2f}" if "process_mb_s" in p else "–")
                of = p["of_disk_all"] if len(p.get("of_disk_all", [])) > 1 else None
                ofs = f"{p['of_disk']:.2f}" + (f" (median of {len(of)}: {min(of):.2f}–{max(of):.2f})" if of else "")
                L.append(f"| `{p['mode']}` | {p['ranks']} | {p['input_mb_s']:.0f} | {ofs} | {whole} | "
                         f"{split} | {wsplit} | {busy(p)} |")
        nev, nsta = r["bulk_shape"]
        L += ["", "| extract | rows | ranks | seismograms/s | original ÷ merged time | element reads | rank 0 s: open / "
              "locate / read / compute / write / close |", "|---|---|---|---|---|---|---|"]
        for e in r["extract"]:
            other = next(x for x in r["extract"] if x["ranks"] == e["ranks"] and x["pinned"] == e["pinned"]
                         and x["rows_from"] == e["rows_from"] and x["layout"] == "merged")
            ratio = f"{other['rows_s'] / e['rows_s']:.2f}" if e["layout"] == "original" else ""
            who = f"{e['ranks']}" + (" (1 core, --threads 1)" if e["pinned"] else "")
            k = r.get("scale", 1) if e["rows_from"].endswith("-scaled") else 1
            rows = (f"{a.pairs * k:,} random pairs" if e["rows_from"].startswith("pairs")
                    else f"{nev * k} events × {nsta} stations")
            g = e.get("stages")
            split = " / ".join(f"{g[x]:.2f}" for x in ("open", "locate", "read", "compute", "write", "close")) if g else "–"
            L.append(f"| {e['layout']} | {rows} | {who} | {e['rows_s']:,.0f} | {ratio} | {e['element_reads']:,} | "
                     f"{split} |")
        b = r["bound"]
        L += ["", f"Warm merged extraction, random pairs, 1 rank, against {b['cache_read_mb_s']:,.0f} MB/s for a plain "
              f"read of the merged file from the page cache: {b['element_kb']:.0f} KB per element × seismograms/s = "
              f"{b['served_mb_s']:,.0f} MB/s, **{b['served_fraction']:.2f}** of the copy bound; element data actually "
              f"read (each element once per batch): {b['moved_mb_s']:,.0f} MB/s, {b['fraction']:.2f}.", ""]
        if r.get("instaseis"):
            rng = lambda v: f"{min(v):,.0f}–{max(v):,.0f}"
            L += ["| layout | Instaseis (1 core): median (range) | axibulk (1 core, its job's clock): median (range) | "
                  "ratio of the medians (range) | axibulk's whole process: median (range) | ratio |",
                  "|---|---|---|---|---|---|"]
            for i in r["instaseis"]:
                whole = (f"{statistics.median(i['axibulk_whole_rows_s_all']):,.0f} "
                         f"({rng(i['axibulk_whole_rows_s_all'])}) | {i['ratio_whole']:.0f}×"
                         if i.get("axibulk_whole_rows_s_all") else "– | –")
                L.append(f"| {i['layout']} | {i['rows_s']:,.0f} ({rng(i['rows_s_all'])}) | "
                         f"{i['axibulk_rows_s']:,.0f} ({rng(i['axibulk_rows_s_all'])}) | {i['ratio']:.0f}× "
                         f"({i['ratio_range'][0]:.0f}–{i['ratio_range'][1]:.0f}×) | {whole} |"
                         if i["rows_s"] else f"| {i['layout']} | failed | | | | |")
            L.append("")
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", action="append", help="original-layout database folder (repeatable)")
    ap.add_argument("--axibulk", default=os.path.join(ROOT, "build", "release", "src", "axibulk"))
    ap.add_argument("--work", help="folder for the merged copies (default: a temporary one, removed)")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench-realdata"))
    ap.add_argument("--md", help="Markdown file to splice the report into (default docs/benchmarks.md; '-': none)")
    ap.add_argument("--pairs", type=int, default=20000)
    ap.add_argument("--scale", type=int, default=10,
                    help="also extract from jobs this many times larger, 1 rank (default 10; 1: not)")
    ap.add_argument("--instaseis", help="folder with env.sh and run_pattern.py (Instaseis built outside the repository)")
    ap.add_argument("--instaseis-seconds", type=float, default=10)
    ap.add_argument("--disk-mbps", default="",
                    help="comma-separated read speeds (MB/s) of a throttled disk to repack against again (root)")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    a.disk_mbps = [int(x) for x in a.disk_mbps.split(",") if x.strip()]
    if a.quick:
        a.pairs = min(a.pairs, 200)
        a.scale = min(a.scale, 2)
    dbs = a.db or [os.path.join(ROOT, "..", "shared", "data", "axisem-prem-50s", "prem_50s_bwd_displ_only")]
    for d in dbs:
        if not db_files(d):
            sys.exit(f"bench/realdata_bench.py: {d}: no database files")
    a.scratch_out = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
    os.makedirs(a.out, exist_ok=True)
    work = a.work or tempfile.mkdtemp(prefix="axb-realdata-")
    os.makedirs(work, exist_ok=True)
    rng = random.Random(18)
    try:
        results = [bench_db(a, d, work, rng) for d in dbs]
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    md = report(results, a)
    with open(os.path.join(a.out, "realdata.json"), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(a.out, "realdata.md"), "w") as f:
        f.write(md)
    target = a.md if a.md else (None if a.quick else os.path.join(ROOT, "docs", "benchmarks.md"))
    if target and target != "-":
        splice(target, md, MARK_BEGIN, MARK_END, "Real AxiSEM databases (`bench/realdata_bench.py`)")
    print(md)


if __name__ == "__main__":
    main()
