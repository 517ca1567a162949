#!/usr/bin/env python3
"""mkdb databases in Instaseis itself: opens reciprocal, forward, strain_only and merged databases
written by `axibulk mkdb`, and a `repack --deflate 2` copy (chunks compressed by axibulk's threads
and stored with direct chunk writes), with `instaseis.open_db`, extracts the same seismograms with Instaseis
and with `axibulk extract`, and requires them to agree to 1e-10 of the peak on Z, N, E, R, T with
identical time axes.

    tests/instaseis_check.py AXIBULK WORKDIR

Needs an importable `instaseis` (and its ObsPy); neither comes from Debian's packages, so without
them the check exits 77 (reported by ctest as skipped, never as passed). docs/testing.md says how
the check was run on this machine.

Latitudes: Instaseis' Source/ForceSource/Receiver constructors take geocentric latitudes, like
axibulk's pairs files; Source.parse/Receiver.parse convert a CMTSOLUTION/STATIONS file's
geographic latitudes, like axibulk's --cmt/--stations. Both pairings are compared.
"""
import os
import subprocess
import sys

try:
    import h5py
    import numpy as np
    import instaseis
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"instaseis_check: skipped: {e}")
    sys.exit(77)

TOL = 1e-10
COMPS = "ZNERT"
SRC = dict(latitude=10.0, longitude=20.0, depth_in_m=300e3)
MT = dict(m_rr=1e18, m_tt=-3e17, m_pp=-7e17, m_rt=4e17, m_rp=-2e17, m_tp=5e17)
FORCE = dict(f_r=1e12, f_t=-2e12, f_p=1.5e12)
REC = dict(latitude=25.0, longitude=38.0)


def sh(cmd):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"instaseis_check: {' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")


def inputs(work):
    cmt, sta = os.path.join(work, "CMTSOLUTION"), os.path.join(work, "STATIONS")
    with open(cmt, "w") as f:
        f.write(f" PDE 1970  1  1  0  0  0.00 {SRC['latitude']:.4f} {SRC['longitude']:.4f} 300.0 0.0 0.0 X\n")
        f.write("event name: x\ntime shift: 0\nhalf duration: 0\n")
        f.write(f"latitude: {SRC['latitude']}\nlongitude: {SRC['longitude']}\ndepth: 300.0\n")
        for name, key in [("Mrr", "m_rr"), ("Mtt", "m_tt"), ("Mpp", "m_pp"), ("Mrt", "m_rt"),
                          ("Mrp", "m_rp"), ("Mtp", "m_tp")]:
            f.write(f"{name}: {MT[key] * 1e7:.6e}\n")  # N m -> dyne cm
    with open(sta, "w") as f:
        f.write(f"RCV XX {REC['latitude']:.4f} {REC['longitude']:.4f} 0.0 0.0\n")
    pm, pf = os.path.join(work, "pairs_mt.txt"), os.path.join(work, "pairs_force.txt")
    s, r = SRC, REC
    with open(pm, "w") as f:
        m = " ".join(repr(MT[k]) for k in ("m_rr", "m_tt", "m_pp", "m_rt", "m_rp", "m_tp"))
        f.write(f"mt {s['latitude']!r} {s['longitude']!r} {s['depth_in_m']!r} {m} "
                f"{r['latitude']!r} {r['longitude']!r} - XX.RCV\n")
    with open(pf, "w") as f:
        fo = " ".join(repr(FORCE[k]) for k in ("f_r", "f_t", "f_p"))
        f.write(f"force {s['latitude']!r} {s['longitude']!r} {s['depth_in_m']!r} {fo} "
                f"{r['latitude']!r} {r['longitude']!r} - XX.RCV\n")
    return cmt, sta, pm, pf


def axibulk(axb, db, out, args):
    sh([axb, "extract", "--db", db, *args, "--components", COMPS, "--no-remove-source-shift",
        "-o", out, "--force", "--precision", "float64", "-q"])
    with h5py.File(out, "r") as f:
        s = f["seismograms"]
        comps = s.attrs["components"]
        comps = comps.decode() if isinstance(comps, bytes) else str(comps)
        return ({c: s[0][i] for i, c in enumerate(comps)}, float(s.attrs["start_offset"]),
                float(s.attrs["dt"]), int(s.attrs["npts"]))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    axb, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    common = ["--period", "100", "--length", "1500", "--rmin-km", "5800", "-q", "--force"]
    made = {
        "reciprocal": [],
        "merged": ["--layout", "merged"],
        "strain": ["--dump", "strain_only"],
        "forward": ["--kind", "forward", "--source-depth-km", "300"],
    }
    for name, extra in made.items():
        sh([axb, "mkdb", "-o", os.path.join(work, name), *common, *extra])
    sh([axb, "repack", os.path.join(work, "reciprocal"), os.path.join(work, "deflated"), "--deflate", "2", "-q",
        "--force"])
    cmt, sta, pm, pf = inputs(work)
    ctor = (instaseis.Source(**SRC, **MT), instaseis.Receiver(**REC))
    parsed = (instaseis.Source.parse(cmt), instaseis.Receiver.parse(sta)[0])
    force = (instaseis.ForceSource(**SRC, **FORCE), instaseis.Receiver(**REC))
    cases = [(db, "moment tensor, parsed files", parsed, ["--cmt", cmt, "--stations", sta])
             for db in made]
    cases += [(db, "moment tensor, constructors", ctor, ["--pairs", pm]) for db in made]
    cases += [(db, "force, constructors", force, ["--pairs", pf]) for db in ("reciprocal", "merged")]
    cases += [("deflated", "moment tensor, constructors", ctor, ["--pairs", pm])]
    failed = 0
    opened = {}
    for k, (name, what, (src, rec), args) in enumerate(cases):
        path = os.path.join(work, name)
        if name not in opened:
            opened[name] = instaseis.open_db(path)
        st = opened[name].get_seismograms(source=src, receiver=rec, components=COMPS,
                                          kind="displacement", remove_source_shift=False)
        ins = {tr.stats.channel[-1]: tr.data.astype(np.float64) for tr in st}
        ax, offset, dt, npts = axibulk(axb, path, os.path.join(work, f"out{k}.h5"), args)
        t_ins = st[0].stats.starttime - src.origin_time
        worst = max(np.max(np.abs(ax[c] - ins[c])) / np.max(np.abs(ins[c])) for c in COMPS)
        same_axis = abs(t_ins - offset) < 1e-9 and abs(st[0].stats.delta - dt) < 1e-12 and st[0].stats.npts == npts
        ok = worst < TOL and same_axis
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name:10s} {what:28s} max rel. difference {worst:.1e}, "
              f"start {offset:g} s / {t_ins:g} s, dt {dt:g}, npts {npts}")
    print(f"instaseis_check: {len(cases) - failed} of {len(cases)} agree to {TOL:g} (Instaseis {instaseis.__version__})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
