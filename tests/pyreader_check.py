"""The shipped Python reader (src/python/axibulk_read.py) against the C output.

usage: pyreader_check.py numpy|obspy AXIBULK MPIEXEC READER_DIR SOURCE_DIR WORKDIR

Makes a small database with `axibulk mkdb` (2400 s, so every trace holds waves), extracts inputs/CMTSOLUTION x inputs/STATIONS with 2
ranks (once as it comes, once keeping the source shift so start_offset is not 0), and checks
the reader against independent references: h5py's direct reads of the same datasets, start times
worked out here from the CMTSOLUTION text, station/source codes from the input files.
  numpy  needs h5py and numpy (Debian python3-h5py, python3-numpy): skipped (77) without them.
  obspy  the Stream output; skipped (77) where `import obspy` fails.
"""

import calendar
import os
import shutil
import subprocess
import sys

SKIP = 77
failures = []
passed = 0


def check(cond, what):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(what)
        print("FAIL:", what)


def finish():
    print("%d passed, %d failed" % (passed, len(failures)))
    sys.exit(1 if failures else 0)


mode, axb, mpiexec, reader_dir, src, work = sys.argv[1:7]
try:
    import h5py
    import numpy as np
except ImportError as e:
    print("skipped: %s (install python3-h5py and python3-numpy)" % e)
    sys.exit(SKIP)
if mode == "obspy":
    try:
        import obspy
    except ImportError as e:
        print("skipped: %s (ObsPy is optional; docs/testing.md says how to run this)" % e)
        sys.exit(SKIP)
sys.path.insert(0, reader_dir)
import axibulk_read  # noqa: E402

env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
db = os.path.join(work, "db")
cmt = os.path.join(src, "inputs", "CMTSOLUTION")
stations = os.path.join(src, "inputs", "STATIONS")


def run(*args):
    r = subprocess.run(list(args), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if r.returncode != 0:
        print(r.stdout)
        check(False, "%s exited %d" % (" ".join(args), r.returncode))
        finish()


# 2400 s: long enough for the P and S waves to reach every station, so no trace is all zeros
run(axb, "mkdb", "-o", db, "--period", "100", "--length", "2400", "--rmin-km", "5800",
    "--points-per-wavelength", "6", "-q")
outs = {}
for name, extra in (("plain", []), ("shift", ["--no-remove-source-shift"])):
    outs[name] = os.path.join(work, name + ".h5")
    run(mpiexec, "-n", "2", axb, "extract", "--db", db, "--cmt", cmt, "--stations", stations,
        "-o", outs[name], "-q", *extra)

# independent references from the input files
events = []  # (name, origin ns)
with open(cmt) as f:
    pde = None
    for line in f:
        if line.strip().startswith("PDE"):
            pde = line.split()
        elif line.startswith("event name:"):
            name = line.split(":", 1)[1].strip()
        elif line.startswith("time shift:"):
            y, mo, d, h, mi = (int(v) for v in pde[1:6])
            sec = float(pde[6]) + float(line.split(":", 1)[1])
            ns = calendar.timegm((y, mo, d, h, mi, 0)) * 10**9 + int(round(sec * 1e9))
            events.append((name, ns))
codes = []  # (network, station)
with open(stations) as f:
    for line in f:
        if line.split():
            codes.append((line.split()[1], line.split()[0]))
nrows = len(events) * len(codes)


def check_file(path):
    with axibulk_read.open(path) as f, h5py.File(path, "r") as h:
        seis = h["seismograms"]
        a = seis.attrs
        check(len(f) == nrows == seis.shape[0], "%s: %d rows, expected %d" % (path, len(f), nrows))
        check(f.components == a["components"] and f.dt == a["dt"] and f.npts == a["npts"]
              and f.start_offset == a["start_offset"] and f.kind == a["kind"]
              and f.units == a["units"], "metadata of %s" % path)
        check(f.attrs["file_format"] == "axibulk-seismograms", "file attributes")
        src_tab = h["sources"][:]
        rec_tab = h["receivers"][:]
        rs = h["row_source"][:]
        rr = h["row_receiver"][:]
        seen = []
        for row in f.rows():
            i = row.index
            seen.append(i)
            check(np.array_equal(row.data, seis[i, :, :]), "row %d: samples differ from h5py" % i)
            check(np.abs(row.data).max() > 0, "row %d: all zeros (the comparison would be empty)" % i)
            check(row.data.shape == (len(f.components), f.npts), "row %d: shape" % i)
            # every field of both tables by name, strings decoded
            for tab, idx, rec in ((src_tab, rs[i], row.source), (rec_tab, rr[i], row.receiver)):
                check(set(rec) == set(tab.dtype.names), "row %d: fields %s" % (i, sorted(rec)))
                for k in tab.dtype.names:
                    v = tab[idx][k]
                    if isinstance(v, bytes):
                        check(rec[k] == v.rstrip(b"\0").decode(), "row %d: %s" % (i, k))
                    else:
                        check(rec[k] == v or (v != v and rec[k] != rec[k]), "row %d: %s" % (i, k))
            name, origin = events[rs[i]]
            check(row.source["name"] == name, "row %d: source %s, expected %s"
                  % (i, row.source["name"], name))
            check((row.receiver["network"], row.receiver["station"]) == codes[rr[i]],
                  "row %d: receiver" % i)
            start = origin + int(round(float(a["start_offset"]) * 1e9))
            check(row.starttime_ns == start, "row %d: start %d, expected %d"
                  % (i, row.starttime_ns, start))
            t = row.times
            check(t.dtype == np.dtype("datetime64[ns]") and len(t) == f.npts
                  and int(t[0].astype(np.int64)) == start
                  and int(t[-1].astype(np.int64)) == start + int(round((f.npts - 1) * a["dt"] * 1e9)),
                  "row %d: times" % i)
        check(seen == list(range(nrows)), "%s: rows() visits every row once, in order" % path)
        check(np.allclose(f.offsets, a["start_offset"] + a["dt"] * np.arange(a["npts"]),
                          rtol=0, atol=1e-9), "offsets")
        # selection, against a plain scan of the tables
        for j, (net, sta) in enumerate(codes):
            want = [i for i in range(nrows) if rr[i] == j]
            check(list(f.select(station=sta)) == want, "select station %s" % sta)
            check(list(f.select(station=net + "." + sta)) == want, "select %s.%s" % (net, sta))
            check(list(f.select(station=j)) == want, "select receiver %d" % j)
        for j, (name, _) in enumerate(events):
            want = [i for i in range(nrows) if rs[i] == j]
            check(list(f.select(source=name)) == want, "select source %s" % name)
            check([r.index for r in f.rows(source=j)] == want, "rows(source=%d)" % j)
        both = [r.index for r in f.rows(source=events[1][0], station="IU.HRV")]
        check(len(both) == 1 and rs[both[0]] == 1 and codes[rr[both[0]]] == ("IU", "HRV"),
              "source and station together: %s" % both)
        for bad in ({"station": "XX.NOPE"}, {"source": "NO_SUCH_EVENT"}):
            try:
                f.select(**bad)
                check(False, "unknown %s accepted" % bad)
            except KeyError:
                check(True, "")
        return a["start_offset"]


def check_extensions(path):
    # a file with an extra receivers column and a row not written yet (a .partial of a killed run)
    ext = os.path.join(work, "extended.h5")
    shutil.copy(path, ext)
    with h5py.File(ext, "r+") as h:
        old = h["receivers"][:]
        dt = np.dtype([(k, old.dtype[k]) for k in old.dtype.names] + [("future_column", "<f8")])
        new = np.zeros(len(old), dt)
        for k in old.dtype.names:
            new[k] = old[k]
        new["future_column"] = 100.0 + np.arange(len(old))
        del h["receivers"]
        h["receivers"] = new
        h["row_written"][3] = 0
    with axibulk_read.open(ext) as f:
        check(f[4].receiver["future_column"] == 100.0 + f.row_receiver[4], "extra column passed through")
        check(3 not in f.select(), "an unwritten row is left out")
        check(3 in f.select(written_only=False) and not f[3].written, "written_only=False keeps it")
    try:
        axibulk_read.open(db + "/" + sorted(os.listdir(db))[0])
        check(False, "a database file opened as a bulk file")
    except (ValueError, OSError) as e:
        check("file_format" in str(e) or isinstance(e, OSError), "refusal names the format: %s" % e)


def check_obspy(path):
    with axibulk_read.open(path) as f, h5py.File(path, "r") as h:
        a = h["seismograms"].attrs
        st = f.stream()
        check(len(st) == nrows * len(f.components), "%d traces" % len(st))
        rs = h["row_source"][:]
        rr = h["row_receiver"][:]
        n = 0
        for i in range(nrows):
            for c, comp in enumerate(a["components"]):
                tr = st[n]
                n += 1
                s = tr.stats
                net, sta = codes[rr[i]]
                start = events[rs[i]][1] + int(round(float(a["start_offset"]) * 1e9))
                check(s.network == net and s.station == sta and s.location == "", "trace %d codes" % n)
                # dt 25 s: band L, as the ASDF writer names channels
                check(s.channel == "LX" + comp, "trace %d channel %s" % (n, s.channel))
                check(s.starttime == obspy.UTCDateTime(ns=start) and s.starttime.ns == start,
                      "trace %d starttime %s" % (n, s.starttime))
                check(s.delta == a["dt"] and s.npts == a["npts"], "trace %d delta/npts" % n)
                check(np.array_equal(tr.data, h["seismograms"][i, c, :]), "trace %d data" % n)
                check(s.axibulk.row == i and s.axibulk.source["name"] == events[rs[i]][0]
                      and s.axibulk.units == a["units"], "trace %d stats.axibulk" % n)
        sel = f.stream(station="II.BFO", components="Z")
        check(len(sel) == len(events) and all(tr.id == "II.BFO..LXZ" for tr in sel),
              "selected stream: %s" % [tr.id for tr in sel])


for name, path in outs.items():
    off = check_file(path)
    if name == "shift":
        check(off < 0, "--no-remove-source-shift gives a negative start_offset (%g)" % off)
    if mode == "obspy":
        check_obspy(path)
if mode == "numpy":
    check_extensions(outs["plain"])
finish()
