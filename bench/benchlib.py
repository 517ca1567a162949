"""What the benchmark scripts share (bench/suite.py, bench/kernel_bench.py): the MPI environment,
running a command with a one-line failure, the database files of a folder, and putting those files
out of or into the page cache. Only the Python standard library."""
import os
import subprocess
import sys
import time


def env():
    e = dict(os.environ)
    if os.geteuid() == 0:
        e.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    e["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
    return e


def run(cmd, **kw):
    """Runs cmd and returns its stdout; on failure exits with the command and its error lines."""
    p = subprocess.run(cmd, env=env(), capture_output=True, text=True, **kw)
    if p.returncode:
        why = [l for l in p.stderr.splitlines() if "error" in l] or p.stderr.strip().splitlines()[-1:]
        me = "bench/" + os.path.basename(sys.argv[0])
        sys.exit(f"{me}: {' '.join(cmd)}: exit {p.returncode}: {' | '.join(why)[:600]}")
    return p.stdout


def db_files(path):
    out = []
    for d, _, fs in os.walk(path):
        out += [os.path.join(d, f) for f in fs if f.endswith(".nc4")]
    return sorted(out)


def drop(files):
    """Cold: the files' pages dropped from the page cache."""
    for f in files:
        fd = os.open(f, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)


def warm(files):
    """Warm: the files read once, so their pages are cached."""
    for f in files:
        with open(f, "rb", buffering=0) as h:
            while h.read(8 << 20):
                pass


def seq_read(files, cold=True):
    """MB/s of reading the files in 8 MB pieces, from the storage (cold) or the page cache."""
    if cold:
        drop(files)
    t, n = time.perf_counter(), 0
    for f in files:
        with open(f, "rb", buffering=0) as h:
            while True:
                b = h.read(8 << 20)
                if not b:
                    break
                n += len(b)
    return n / (time.perf_counter() - t) / 1e6


def splice(path, md, begin, end, title):
    """Replace the block between the markers in a Markdown report, or append it under a new heading."""
    text = open(path).read() if os.path.exists(path) else ""
    block = f"{begin}\n{md}{end}"
    if begin in text and end in text:
        text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + f"\n\n## {title}\n\n" + block + "\n"
    with open(path, "w") as f:
        f.write(text)


class ThrottledDisk:
    """A disk of a given read speed, for machines whose own disk is served from a host's cache: the
    kernel's block throttle (cgroup v1 blkio.throttle.read_bps_device, or v2 io.max) on the device
    that holds @p path, for the processes started through wrap(). Needs root and a cgroup file
    system that allows it; available() says whether it does. Only reads are throttled."""

    def __init__(self, path, mbps):
        self.mbps, self.dir = mbps, None
        st = os.stat(path)
        dev = f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
        # partitions are throttled on their disk
        if os.path.exists(f"/sys/dev/block/{dev}/partition"):
            disk = os.path.basename(os.path.realpath(f"/sys/dev/block/{dev}/.."))
            dev = open(f"/sys/block/{disk}/dev").read().strip()
        self.dev = dev
        name = f"axb-bench-{os.getpid()}-{mbps}"
        for root, knob, rule in (("/sys/fs/cgroup/blkio", "blkio.throttle.read_bps_device", f"{dev} {mbps * 10**6}"),
                                 ("/sys/fs/cgroup", "io.max", f"{dev} rbps={mbps * 10**6}")):
            if not os.path.exists(os.path.join(root, knob if root.endswith("blkio") else "cgroup.controllers")):
                continue
            try:
                d = os.path.join(root, name)
                os.makedirs(d, exist_ok=True)
                with open(os.path.join(d, knob), "w") as f:
                    f.write(rule)
                self.dir = d
                break
            except OSError:
                continue

    def available(self):
        return self.dir is not None

    def wrap(self, cmd):
        """cmd run inside the throttled group (its children too)."""
        return ["bash", "-c", f'echo $$ > {self.dir}/cgroup.procs && exec "$@"', "throttled"] + cmd

    def read_mb_s(self, files):
        """Cold sequential read of the files through the throttled device, MB/s."""
        drop(files)
        code = ("import sys,time\nt=time.perf_counter();n=0\nfor f in sys.argv[1:]:\n"
                " h=open(f,'rb',buffering=0)\n while True:\n  b=h.read(8<<20)\n  if not b: break\n  n+=len(b)\n"
                "print(n/(time.perf_counter()-t)/1e6)")
        return float(run(self.wrap([sys.executable, "-c", code] + files)))

    def close(self):
        if self.dir:
            try:
                os.rmdir(self.dir)
            except OSError:
                pass
