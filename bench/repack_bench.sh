#!/usr/bin/env bash
# Repack throughput beside the plain sequential read speed of the same input files, measured in
# one run with the page cache of the input dropped before every measurement
# (posix_fadvise DONTNEED, no root needed). Reports MB/s of input and the ratio, for 1 and 2
# ranks with the default (direct) writes and for 2 ranks with --write-mode collective, and each
# run against the machine's I/O floor (the same bytes read and written at once, no computation).
#
#   bench/repack_bench.sh [DB] [AXIBULK]
#
# DB defaults to the shared 50 s PREM database; AXIBULK to build/release/src/axibulk.
# Results: JSON on stdout; a Markdown table is appended to the file in $AXB_BENCH_MD if set.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DB=${1:-$root/../shared/data/axisem-prem-50s/prem_50s_bwd_displ_only}
AXB=${2:-$root/build/release/src/axibulk}
[ -x "$AXB" ] || { echo "build axibulk first (jobs/quickstart.sh)" >&2; exit 2; }
[ -d "$DB" ] || { echo "no database at $DB" >&2; exit 2; }
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMPI_MCA_rmaps_base_oversubscribe=1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/axb-bench-XXXXXX")
trap 'rm -rf "$TMP"' EXIT
mapfile -t files < <(find -L "$DB" -name ordered_output.nc4 | sort)
bytes=$(stat -L -c %s "${files[@]}" | awk '{s+=$1} END {printf "%.0f\n", s}')

# Pages of the input are dropped with posix_fadvise (no root needed); as root the whole page
# cache is dropped too (the output of the previous run would otherwise compete). A virtual
# machine's host may still cache the disk: then "cold" reads run at memory speed. Repetitions
# (AXB_BENCH_REPS, default 3) interleave the reference read and the repacks; medians are reported.
drop() { python3 - "$@" <<'PY'
import os, sys
for f in sys.argv[1:]:
    fd = os.open(f, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)
PY
    sync
    if [ "$(id -u)" = 0 ] && [ -w /proc/sys/vm/drop_caches ]; then echo 3 > /proc/sys/vm/drop_caches; fi
}
seqread() { python3 - "$@" <<'PY'
import os, sys, time
t = time.perf_counter(); n = 0
for f in sys.argv[1:]:
    with open(f, 'rb', buffering=0) as h:
        while True:
            b = h.read(8 << 20)
            if not b: break
            n += len(b)
print(f"{time.perf_counter() - t:.6f}")
PY
}
# The machine's own floor for a repack: the input read sequentially (8 MB reads) while a file of
# the output's size is written with O_DIRECT (8 MB writes) beside it, no computation at all. A
# repack cannot beat this however it issues its I/O; the ratio floor/repack says how close it is.
iofloor() { # OUTBYTES OUTFILE INPUT...
    python3 - "$@" <<'PY'
import mmap, os, sys, threading, time
nout, path, inputs = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
buf = mmap.mmap(-1, 8 << 20)  # page-aligned, as O_DIRECT wants
def reader():
    for f in inputs:
        with open(f, 'rb', buffering=0) as h:
            while h.read(8 << 20): pass
t = time.perf_counter()
th = threading.Thread(target=reader); th.start()
try:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_DIRECT, 0o644)
except OSError:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
left = nout - nout % 4096
while left > 0:
    left -= os.write(fd, memoryview(buf)[:min(left, 8 << 20)])
os.fdatasync(fd); os.close(fd)
th.join()
print(f"{time.perf_counter() - t:.6f}")
os.unlink(path)
PY
}
now() { date +%s.%N; }

results=()
for rep in $(seq "${AXB_BENCH_REPS:-3}"); do
    drop "${files[@]}"
    results+=("seq $(seqread "${files[@]}")")
    for run in 1:auto 2:auto 2:collective; do
        np=${run%%:*} mode=${run#*:}
        rm -rf "$TMP/out"
        drop "${files[@]}"
        t0=$(now)
        mpirun -n "$np" "$AXB" repack "$DB" "$TMP/out" --force --memory "${AXB_BENCH_MEMORY:-1G}" \
            --write-mode "$mode" -q >/dev/null
        t1=$(now)
        results+=("$run $(python3 -c "print($t1 - $t0)")")
    done
    outbytes=$(du -sb "$TMP/out" | cut -f1) # the same file in every mode
    rm -rf "$TMP/out"
    drop "${files[@]}"
    results+=("floor $(iofloor "$outbytes" "$TMP/floor.bin" "${files[@]}")")
done
python3 - "$bytes" "${results[@]}" <<'PY'
import json, sys, os, statistics
nbytes = int(sys.argv[1])
rows = [r.split() for r in sys.argv[2:]]
tseq = statistics.median(float(t) for k, t in rows if k == "seq")
seq = nbytes / tseq / 1e6
out = {"input_bytes": nbytes, "repetitions": sum(k == "seq" for k, t in rows),
       "sequential_read_mb_s": round(seq, 1),
       "sequential_read_mb_s_each": [round(nbytes / float(t) / 1e6, 1) for k, t in rows if k == "seq"],
       "runs": []}
# the floor is measured at the end of each repetition
floors = [float(t) for k, t in rows if k == "floor"]
for run in ("1:auto", "2:auto", "2:collective"):
    ts = [float(t) for k, t in rows if k == run]
    # each run against the reference read of its own repetition (the host's cache may serve one
    # repetition's reads and not the next one's)
    paired, tref = [], None
    for k, t in rows:
        if k == "seq": tref = float(t)
        elif k == run: paired.append(round(tref / float(t), 3))
    t = statistics.median(ts)
    mb = nbytes / t / 1e6
    np_, mode = run.split(":")
    out["runs"].append({"ranks": int(np_), "write_mode": mode, "seconds": round(t, 3),
                        "seconds_each": [round(x, 3) for x in ts],
                        "input_mb_s": round(mb, 1), "fraction_of_sequential_read": round(mb / seq, 3),
                        "fraction_each_repetition": paired,
                        "fraction_of_io_floor_each_repetition": [round(f / x, 3) for f, x in zip(floors, ts)]})
out["io_floor_seconds_each"] = [round(f, 3) for f in floors]
out["io_floor_seconds"] = round(statistics.median(out["io_floor_seconds_each"]), 3)
print(json.dumps(out, indent=1))
md = os.environ.get("AXB_BENCH_MD")
if md:
    with open(md, "a") as f:
        each = ", ".join(f"{x:.0f}" for x in out["sequential_read_mb_s_each"])
        fl = ", ".join(f"{x:.1f}" for x in out["io_floor_seconds_each"])
        f.write(f"\n| ranks | --write-mode | seconds | input MB/s | fraction of cold sequential read ({seq:.0f} MB/s; {each}) | each repetition against its own read | I/O floor / repack, each repetition (floor {fl} s) |\n|---|---|---|---|---|---|---|\n")
        for r in out["runs"]:
            f.write(f"| {r['ranks']} | {r['write_mode']} | {r['seconds']} | {r['input_mb_s']} | {r['fraction_of_sequential_read']} | {', '.join(map(str, r['fraction_each_repetition']))} | {', '.join(map(str, r['fraction_of_io_floor_each_repetition']))} |\n")
PY
