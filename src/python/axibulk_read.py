"""Read axibulk's bulk seismogram files (file_format "axibulk-seismograms", docs/output-format.md).

Needs h5py and numpy; ObsPy only for Stream output.

    import axibulk_read
    with axibulk_read.open("out.h5") as f:
        for row in f.rows(station="IU.ANMO"):          # or source="NAME", or nothing for all
            print(row.source["name"], row.receiver["station"], row.times[0], row.data.shape)
        st = f.stream(source=0)                        # obspy Stream (needs ObsPy)

Source and receiver records are plain dicts holding every field of the file's tables by name
(strings decoded), so columns added by newer writers come through without a change here.
"""

import sys

import h5py
import numpy as np

__all__ = ["open", "BulkFile", "Row", "band_code"]

FORMAT = "axibulk-seismograms"


def band_code(dt):
    """SEED band code for a sampling interval dt (s), the rule the ASDF writer uses."""
    if dt <= 0.001:
        return "F"
    if dt <= 0.004:
        return "C"
    if dt <= 0.0125:
        return "H"
    if dt <= 0.1:
        return "B"
    if dt < 1:
        return "M"
    return "L"


def _text(v):
    # h5py gives fixed-length strings as bytes, variable-length attributes as str
    if isinstance(v, bytes):
        return v.rstrip(b"\0").decode("utf-8")
    return v


def _by_index(n, spec):
    """All n entries for None, entry spec for an index; None for a name (the caller matches it)."""
    if spec is None:
        return np.ones(n, bool)
    if isinstance(spec, (int, np.integer)):
        m = np.zeros(n, bool)
        m[spec] = True
        return m
    return None


def _record(table, i):
    # every field by name: a column the reader does not know is passed through as it is
    rec = table[i]
    out = {}
    for name in table.dtype.names:
        v = rec[name]
        if isinstance(v, (bytes, np.bytes_)):
            out[name] = _text(bytes(v))
        elif isinstance(v, np.generic):
            out[name] = v.item()
        else:
            out[name] = v
    return out


class Row:
    """One source-receiver pair: data[c, k] is sample k of component components[c]."""

    def __init__(self, f, index):
        self.file = f
        self.index = index
        self.source_index = int(f.row_source[index])
        self.receiver_index = int(f.row_receiver[index])
        self.source = f.source(self.source_index)
        self.receiver = f.receiver(self.receiver_index)
        self.written = bool(f.row_written[index])
        self._data = None

    @property
    def data(self):
        """(components, samples) numpy array, read on first use."""
        if self._data is None:
            self._data = self.file.data(self.index)
        return self._data

    @property
    def starttime_ns(self):
        """Time of the first sample, int nanoseconds since 1970-01-01T00:00:00Z."""
        return self.file.starttime_ns(self.index)

    @property
    def times(self):
        """numpy datetime64[ns] time of every sample."""
        return self.file.times(self.index)

    def trace_id(self, component):
        r = self.receiver
        return "%s.%s.%s.%s" % (r["network"], r["station"], r["location"],
                                band_code(self.file.dt) + "X" + component)

    def __repr__(self):
        return "Row(%d, source=%r, receiver=%r)" % (
            self.index, self.source.get("name"),
            "%s.%s" % (self.receiver.get("network"), self.receiver.get("station")))


class BulkFile:
    """An open bulk file. Tables are read once; samples are read row by row when asked for."""

    def __init__(self, path):
        self.path = path
        self.h5 = h5py.File(path, "r")
        try:
            fmt = _text(self.h5.attrs.get("file_format", ""))
            if fmt != FORMAT:
                raise ValueError("%s: file_format is %r, not %r (ASDF files: use pyasdf)"
                                 % (path, fmt, FORMAT))
            self.attrs = {k: _text(v) for k, v in self.h5.attrs.items()}
            self.seismograms = self.h5["seismograms"]
            a = self.seismograms.attrs
            self.components = _text(a["components"])
            self.kind = _text(a["kind"])
            self.units = _text(a["units"])
            self.dt = float(a["dt"])
            self.npts = int(a["npts"])
            self.start_offset = float(a["start_offset"])
            self.sources = self.h5["sources"][:]
            self.receivers = self.h5["receivers"][:]
            self.row_source = self.h5["row_source"][:]
            self.row_receiver = self.h5["row_receiver"][:]
            self.row_written = self.h5["row_written"][:]
        except Exception:
            self.h5.close()
            raise

    def close(self):
        self.h5.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __len__(self):
        return len(self.row_source)

    def __getitem__(self, i):
        if not -len(self) <= i < len(self):
            raise IndexError("row %d of %d" % (i, len(self)))
        return Row(self, i % len(self))

    def source(self, i):
        return _record(self.sources, i)

    def receiver(self, i):
        return _record(self.receivers, i)

    def data(self, i):
        return self.seismograms[i, :, :]

    @property
    def offsets(self):
        """Seconds of every sample after its row's origin time (the same for all rows)."""
        return self.start_offset + self.dt * np.arange(self.npts)

    def starttime_ns(self, i):
        origin = int(self.sources["origin_time"][self.row_source[i]])
        return origin + int(round(self.start_offset * 1e9))

    def times(self, i):
        k = np.rint(np.arange(self.npts) * (self.dt * 1e9)).astype(np.int64)
        return (self.starttime_ns(i) + k).astype("datetime64[ns]")

    def _source_matches(self, spec):
        m = _by_index(len(self.sources), spec)
        if m is not None:
            return m
        names = np.array([_text(bytes(n)) for n in self.sources["name"]])
        if not (names == spec).any():
            raise KeyError("no source named %r in %s" % (spec, self.path))
        return names == spec

    def _receiver_matches(self, spec):
        m = _by_index(len(self.receivers), spec)
        if m is not None:
            return m
        sta = np.array([_text(bytes(s)) for s in self.receivers["station"]])
        parts = spec.split(".")
        if len(parts) > 3:
            raise ValueError("station %r: expected STA, NET.STA or NET.STA.LOC" % spec)
        if len(parts) == 1:
            m = sta == spec
        else:
            net = np.array([_text(bytes(s)) for s in self.receivers["network"]])
            m = (net == parts[0]) & (sta == parts[1])
        if len(parts) == 3:
            loc = np.array([_text(bytes(s)) for s in self.receivers["location"]])
            m &= loc == parts[2]
        if not m.any():
            raise KeyError("no station %r in %s" % (spec, self.path))
        return m

    def select(self, source=None, station=None, written_only=True):
        """Row indices (numpy array, file order) of the rows of a source (name or table index)
        and/or a station ("ANMO", "IU.ANMO", "IU.ANMO.00" or receiver table index). Rows a
        partial file does not hold yet are left out unless written_only is False."""
        m = self._source_matches(source)[self.row_source]
        m &= self._receiver_matches(station)[self.row_receiver]
        if written_only:
            m &= self.row_written != 0
        return np.flatnonzero(m)

    def rows(self, source=None, station=None, written_only=True):
        """Iterate Row objects, as select()."""
        for i in self.select(source, station, written_only):
            yield Row(self, int(i))

    def stream(self, source=None, station=None, components=None):
        """obspy Stream of the selected rows: one Trace per row and component with network,
        station, location, channel (band code + X + component, as in axibulk's ASDF files),
        starttime, delta, npts; stats.axibulk holds the row, kind, units and the source and
        receiver records."""
        import obspy
        from obspy.core.util import AttribDict

        comps = self.components if components is None else components
        traces = []
        for row in self.rows(source, station):
            for c in comps:
                ci = self.components.index(c)
                r = row.receiver
                header = {
                    "network": r["network"], "station": r["station"],
                    "location": r["location"],
                    "channel": band_code(self.dt) + "X" + c,
                    "starttime": obspy.UTCDateTime(ns=row.starttime_ns),
                    "delta": self.dt,
                    "axibulk": AttribDict({"row": row.index, "kind": self.kind,
                                           "units": self.units, "source": row.source,
                                           "receiver": r}),
                }
                traces.append(obspy.Trace(np.ascontiguousarray(row.data[ci]), header=header))
        return obspy.Stream(traces)


def open(path):  # noqa: A001 - the module's entry point reads as axibulk_read.open
    return BulkFile(path)


def _main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print("usage: axibulk_read.py FILE.h5   (lists the rows of an axibulk bulk file)")
        return 0 if len(argv) == 2 else 2
    with open(argv[1]) as f:
        print("%s: %d rows, components %s, %s in %s, dt %g s, %d samples, start offset %g s"
              % (argv[1], len(f), f.components, f.kind, f.units, f.dt, f.npts, f.start_offset))
        for row in f.rows(written_only=False):
            t0 = np.datetime64(row.starttime_ns, "ns")
            print("%6d  %-24s %-16s %s%s" % (row.index, row.source["name"],
                                            "%s.%s" % (row.receiver["network"], row.receiver["station"]),
                                            t0, "" if row.written else "  (not written)"))
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
