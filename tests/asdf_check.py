"""An ASDF file of `axibulk extract --format asdf` (2 ranks, a small mkdb database, the example
CMTSOLUTION and a copy of the example STATIONS with one buried sensor) read back as users read it.

  asdf_check.py metadata AXIBULK MPIEXEC WORKDIR
      h5py and lxml only (CI): every station has a StationXML document that parses and holds the
      STATIONS input's codes, WGS84 latitude, longitude, elevation and burial, one channel per
      component with its orientation, the sampling rate and dates covering the traces; the
      provenance document names axibulk's version, the database and the command line; the bulk
      file of the same run keeps geographic latitude, elevation and burial beside the geocentric
      latitude. Skipped (77) without h5py or lxml.
  asdf_check.py pyasdf AXIBULK MPIEXEC WORKDIR
      the same file through pyasdf: validate() reports nothing missing, ObsPy reads the inventory
      (and finds it valid against the StationXML schema) and prov reads the provenance. Skipped
      (77) when pyasdf cannot be imported (it is no Debian package: docs/testing.md).
"""

import calendar
import contextlib
import datetime
import io
import math
import os
import shutil
import subprocess
import sys

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
INPUTS = os.path.join(os.path.dirname(HERE), "inputs")
PROV_NS = "http://seisprov.org/seis_prov/0.1/#"
SXML_NS = "{http://www.fdsn.org/xml/station/1}"
# One sensor buried, so the test tells burial from elevation and from the receiver's depth.
BURIED = ("ANMO", 145.5)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def geocentric(lat):
    # WGS84 flattening, as axibulk and Instaseis convert; only used to check the table's column.
    f = 1 / 298.257223563
    if abs(lat) < 1e-6 or abs(abs(lat) - 90) < 1e-6:
        return lat
    return math.degrees(math.atan((1 - f) ** 2 * math.tan(math.radians(lat))))


def read_stations(path):
    rows = []
    with open(path) as f:
        for line in f:
            tok = line.split()
            if len(tok) == 6 and not tok[0].startswith("#"):
                rows.append((tok[0], tok[1], float(tok[2]), float(tok[3]), float(tok[4]), float(tok[5])))
    return rows


def make_inputs(axb, mpiexec, work):
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    stations = []
    for sta, net, lat, lon, elev, burial in read_stations(os.path.join(INPUTS, "STATIONS")):
        if sta == BURIED[0]:
            burial = BURIED[1]
        stations.append((sta, net, lat, lon, elev, burial))
    spath = os.path.join(work, "STATIONS")
    with open(spath, "w") as f:
        for s in stations:
            f.write("%s %s %r %r %r %r\n" % s)
    db = os.path.join(work, "db")
    # 3000 s: long enough for the waves to reach the example stations, so the rotation check
    # compares non-zero samples
    run([axb, "mkdb", "-o", db, "--period", "100", "--length", "3000", "--rmin-km", "5800",
         "--points-per-wavelength", "6"])
    out = {}
    for fmt in ("asdf", "bulk"):
        out[fmt] = os.path.join(work, fmt + ".h5")
        run([mpiexec, "-n", "2", axb, "extract", "--db", db, "--cmt", os.path.join(INPUTS, "CMTSOLUTION"),
             "--stations", spath, "--components", "ZNERT", "--precision", "float64", "--format", fmt,
             "-o", out[fmt]])
    return stations, db, out


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    if p.returncode != 0:
        fail("%s exited %d:\n%s" % (" ".join(cmd), p.returncode, p.stdout))


def text(ds):
    return ds[()].tobytes().decode("utf-8")


def epoch_ns(chan):
    def ns(s):
        d = datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ")
        return calendar.timegm(d.timetuple()) * 10**9 + d.microsecond * 1000

    return ns(chan.get("startDate")), ns(chan.get("endDate"))


def traces_of(group, comp):
    """(first sample ns, last sample ns, name) of every trace of one component."""
    out = []
    for name, ds in group.items():
        if name == "StationXML" or name.split("__")[0].split(".")[3][-1] != comp:
            continue
        t0 = int(ds.attrs["starttime"])
        out.append((t0, t0 + int(round((ds.shape[0] - 1) / float(ds.attrs["sampling_rate"]) * 1e9)), name))
    return out


def check_channel_dates(group, chans, comp):
    """Z/N/E: one epoch covering every trace of the component. R/T: one epoch per trace, covering
    it and no other (their orientation belongs to one event)."""
    traces = traces_of(group, comp)
    epochs = [epoch_ns(c) for c in chans]
    if not traces:
        fail("no trace for component %s" % comp)
    for t0, t1, name in traces:
        hits = [e for e in epochs if e[0] <= t0 and t1 <= e[1]]
        if len(hits) != 1:
            fail("trace %s lies in %d epochs of channel %s" % (name, len(hits), chans[0].get("code")))
    if comp in "RT" and len(epochs) != len(traces):
        fail("%d %s epochs for %d traces" % (len(epochs), comp, len(traces)))


def check_rotation(group, chans, comp):
    """An R or T trace equals N cos(az) + E sin(az) with the azimuth of its epoch: the StationXML
    orientation is the one the samples were rotated to."""
    import numpy as np

    ne = {c: {t0: group[name][()] for t0, _, name in traces_of(group, c)} for c in "NE"}
    for t0, t1, name in traces_of(group, comp):
        chan = [c for c in chans if epoch_ns(c)[0] <= t0 and t1 <= epoch_ns(c)[1]][0]
        az = math.radians(float(chan.find(SXML_NS + "Azimuth").text))
        want = ne["N"][t0] * math.cos(az) + ne["E"][t0] * math.sin(az)
        got = group[name][()]
        scale = max(np.abs(want).max(), np.abs(got).max())
        if scale == 0 or np.abs(got - want).max() > 1e-9 * scale:
            fail("%s is not N cos(az) + E sin(az) for azimuth %s: %r vs %r"
                 % (name, chan.find(SXML_NS + "Azimuth").text, got, want))


def check_metadata(axb, mpiexec, work):
    try:
        import h5py
        from lxml import etree
    except ImportError as e:
        print("SKIP: %s (Debian: python3-h5py, python3-lxml)" % e)
        return SKIP
    stations, db, out = make_inputs(axb, mpiexec, work)
    with h5py.File(out["asdf"], "r") as f:
        for sta, net, lat, lon, elev, burial in stations:
            g = f["Waveforms/%s.%s" % (net, sta)]
            if "StationXML" not in g:
                fail("%s.%s has no StationXML" % (net, sta))
            doc = etree.fromstring(g["StationXML"][()].tobytes())
            if doc.tag != SXML_NS + "FDSNStationXML" or doc.get("schemaVersion") != "1.1":
                fail("%s.%s: root %s" % (net, sta, doc.tag))
            n = doc.find(SXML_NS + "Network")
            s = n.find(SXML_NS + "Station")
            if n.get("code") != net or s.get("code") != sta:
                fail("codes %s.%s, expected %s.%s" % (n.get("code"), s.get("code"), net, sta))

            def num(e, tag):
                return float(e.find(SXML_NS + tag).text)

            got = (num(s, "Latitude"), num(s, "Longitude"), num(s, "Elevation"))
            if got != (lat, lon, elev):
                fail("%s.%s: station (lat, lon, elevation) %r, STATIONS has %r" % (net, sta, got, (lat, lon, elev)))
            chans = s.findall(SXML_NS + "Channel")
            comps = "".join(c.get("code")[2] for c in chans)
            if comps != "ZNERRTT":
                fail("%s.%s: channels %s, expected ZNE and R, T for each of the 2 events" % (net, sta, comps))
            orient = {"Z": ("0", "-90"), "N": ("0", "0"), "E": ("90", "0")}
            for c in chans:
                comp = c.get("code")[2]
                got = (c.find(SXML_NS + "Azimuth").text, c.find(SXML_NS + "Dip").text)
                if comp in orient and got != orient[comp]:
                    fail("%s.%s.%s: azimuth/dip %r, expected %r" % (net, sta, c.get("code"), got, orient[comp]))
                if comp in "RT" and (got[1] != "0" or not 0 <= float(got[0]) < 360):
                    fail("%s.%s.%s: azimuth/dip %r" % (net, sta, c.get("code"), got))
                got = (num(c, "Latitude"), num(c, "Longitude"), num(c, "Elevation"), num(c, "Depth"))
                if got != (lat, lon, elev, burial):
                    fail("%s.%s.%s: (lat, lon, elevation, depth) %r, STATIONS has %r"
                         % (net, sta, c.get("code"), got, (lat, lon, elev, burial)))
                if c.get("code")[:2] != "LX" or c.get("locationCode") != "":
                    fail("%s.%s: channel code %s" % (net, sta, c.get("code")))
                sr = num(c, "SampleRate")
            for comp in "ZNERT":
                cc = [c for c in chans if c.get("code")[2] == comp]
                check_channel_dates(g, cc, comp)
                if comp in "RT":
                    check_rotation(g, cc, comp)
                    az = [float(c.find(SXML_NS + "Azimuth").text) for c in cc]
                    if comp == "T":
                        raz = [float(c.find(SXML_NS + "Azimuth").text) for c in chans if c.get("code")[2] == "R"]
                        if any(abs((t - r) % 360 - 90) > 1e-9 for t, r in zip(az, raz)):
                            fail("%s.%s: T azimuths %r are not R's %r + 90" % (net, sta, az, raz))
            for name, ds in g.items():
                if name != "StationXML" and abs(float(ds.attrs["sampling_rate"]) - sr) > 1e-12 * sr:
                    fail("%s: sampling_rate %r, StationXML says %r" % (name, ds.attrs["sampling_rate"], sr))
        if sorted(f["Waveforms"]) != sorted("%s.%s" % (s[1], s[0]) for s in stations):
            fail("stations in the file: %s" % sorted(f["Waveforms"]))
        prov = etree.fromstring(f["Provenance/axibulk_extract"][()].tobytes())
        want = {"software_name": "axibulk", "path": db, "database_kind": "reciprocal",
                "model": "homogeneous_fullspace", "dominant_period_s": "100", "file_version": "10",
                "quantity": "displacement", "components": "ZNERT"}
        got = {e.tag.split("}")[1]: e.text for e in prov.iter("{%s}*" % PROV_NS)}
        for k, v in want.items():
            if got.get(k) != v:
                fail("provenance %s = %r, expected %r" % (k, got.get(k), v))
        # through mpiexec like every run here (a singleton MPI start under LeakSanitizer fails)
        version = subprocess.run([mpiexec, "-n", "1", axb, "--version"], stdout=subprocess.PIPE,
                                 universal_newlines=True).stdout
        if not got.get("software_version") or got["software_version"] not in version:
            fail("provenance software_version %r, axibulk --version says %r" % (got.get("software_version"), version))
        if "--format asdf" not in got.get("command_line", ""):
            fail("provenance command_line %r" % got.get("command_line"))
        for name, ds in f["Waveforms/IU.ANMO"].items():
            if name != "StationXML" and ds.attrs["provenance_id"].decode() != "{%s}sp004_wf_a8b1c0e" % PROV_NS:
                fail("%s: provenance_id %r" % (name, ds.attrs["provenance_id"]))
    with h5py.File(out["bulk"], "r") as f:
        v = f.attrs["file_format_version"]
        if (v.decode() if isinstance(v, bytes) else v) != "1.1":
            fail("bulk file_format_version %r" % f.attrs["file_format_version"])
        rec = f["receivers"][()]
        for sta, net, lat, lon, elev, burial in stations:
            r = [x for x in rec if x["station"].decode() == sta and x["network"].decode() == net]
            if len(r) != 1:
                fail("bulk receivers: %d rows for %s.%s" % (len(r), net, sta))
            r = r[0]
            if (r["latitude_geographic"], r["longitude"], r["elevation"], r["burial"]) != (lat, lon, elev, burial):
                fail("bulk receiver %s.%s: %r, STATIONS has %r" % (net, sta, r, (lat, lon, elev, burial)))
            if abs(r["latitude"] - geocentric(lat)) > 1e-9 or not math.isnan(r["depth"]):
                fail("bulk receiver %s.%s: geocentric latitude %r (expected %r), depth %r (expected NaN: "
                     "burial is metadata)" % (net, sta, r["latitude"], geocentric(lat), r["depth"]))
    print("PASS: %d stations: StationXML, provenance and bulk receiver metadata as the inputs give them"
          % len(stations))
    return 0


def check_pyasdf(axb, mpiexec, work):
    try:
        import pyasdf
        from obspy.io.stationxml.core import validate_stationxml
    except ImportError as e:
        print("SKIP: pyasdf/ObsPy not importable (%s); see docs/testing.md" % e)
        return SKIP
    stations, db, out = make_inputs(axb, mpiexec, work)
    ds = pyasdf.ASDFDataSet(out["asdf"], mode="r")
    try:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            ds.validate()
        report = buf.getvalue()
        want = ["Checked %d station(s):" % len(stations), "0 station(s) have no available station information",
                "0 station(s) with no waveforms", "%d good station(s)" % len(stations)]
        lines = [x.strip() for x in report.splitlines() if x.strip()]
        if lines != want:
            fail("pyasdf validate() reported:\n" + report)
        for sta, net, lat, lon, elev, burial in stations:
            w = ds.waveforms["%s.%s" % (net, sta)]
            c = w.coordinates
            if (c["latitude"], c["longitude"], c["elevation_in_m"]) != (lat, lon, elev):
                fail("pyasdf %s.%s coordinates %r" % (net, sta, c))
            inv = w.StationXML
            cha = inv[0][0].channels
            if [x.code for x in cha] != ["LXZ", "LXN", "LXE", "LXR", "LXR", "LXT", "LXT"] or cha[0].depth != burial:
                fail("ObsPy %s.%s channels %r" % (net, sta, cha))
            st = w.synthetic
            if len(st) != 10:
                fail("%s.%s: %d traces" % (net, sta, len(st)))
            for tr in st:
                r = inv.get_coordinates(tr.id, tr.stats.starttime)
                r2 = inv.get_coordinates(tr.id, tr.stats.endtime)
                if r != r2 or r["latitude"] != lat or r["local_depth"] != burial:
                    fail("%s: inventory coordinates %r at the trace's times" % (tr.id, r))
                o = inv.get_orientation(tr.id, tr.stats.starttime)
                if o != inv.get_orientation(tr.id, tr.stats.endtime) or o["dip"] != (-90 if tr.id[-1] == "Z" else 0):
                    fail("%s: inventory orientation %r at the trace's times" % (tr.id, o))
            ok, errors = validate_stationxml(io.BytesIO(ds._ASDFDataSet__file["Waveforms"]["%s.%s" % (net, sta)]
                                                        ["StationXML"][()].tobytes()))
            if not ok:
                fail("%s.%s StationXML against the schema: %s" % (net, sta, errors))
        if ds.provenance.list() != ["axibulk_extract"]:
            fail("provenance documents %r" % ds.provenance.list())
        doc = ds.provenance["axibulk_extract"]
        provn = doc.get_provn()
        for s in ('seis_prov:software_name="axibulk"', 'seis_prov:path="%s"' % db, "wasGeneratedBy", "used("):
            if s not in provn:
                fail("provenance lacks %s:\n%s" % (s, provn))
        if len(ds.events) != 2:
            fail("%d events" % len(ds.events))
    finally:
        del ds
    print("PASS: pyasdf %s validate(): %s" % (getattr(pyasdf, "__version__", "(source)"), "; ".join(want)))
    return 0


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("metadata", "pyasdf"):
        print("usage: asdf_check.py metadata|pyasdf AXIBULK MPIEXEC WORKDIR")
        return 2
    mode, axb, mpiexec, work = sys.argv[1:]
    return (check_metadata if mode == "metadata" else check_pyasdf)(axb, mpiexec, work)


if __name__ == "__main__":
    sys.exit(main())
