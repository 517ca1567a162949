#!/usr/bin/env bash
# Checks that a batch written by extract_array.sbatch is complete, before anything uses it:
# every expected part OUT_DIR/part_<i>.h5 (i = 0..N-1) exists, no .partial file is left, each part
# opens with h5ls and its "seismograms" dataset has the expected number of rows, and all parts
# have the same components and samples. Every problem is named, one line each.
#
#   check_parts.sh [--parts N] [--rows R | --rows R0,R1,...] OUT_DIR
#
# N and the rows per part come from OUT_DIR/manifest.txt (written by the array tasks) unless
# given; --rows R expects R rows in every part. Run it on the login node, or as a job after the
# array: sbatch --dependency=afterany:ARRAY_JOB_ID --wrap "jobs/slurm/check_parts.sh OUT_DIR"
# Exit status: 0 complete, 1 something missing or wrong, 2 bad usage.
set -euo pipefail

usage() { echo "usage: check_parts.sh [--parts N] [--rows R | --rows R0,R1,...] OUT_DIR" >&2; exit 2; }
parts='' rows='' dir=''
while [ $# -gt 0 ]; do
    case "$1" in
        --parts) [ $# -ge 2 ] || usage; parts=$2; shift 2 ;;
        --rows) [ $# -ge 2 ] || usage; rows=$2; shift 2 ;;
        -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "check_parts: unknown option $1" >&2; usage ;;
        *) [ -z "$dir" ] || usage; dir=$1; shift ;;
    esac
done
[ -n "$dir" ] || usage
[ -d "$dir" ] || { echo "check_parts: $dir: no such folder" >&2; exit 1; }
command -v h5ls >/dev/null 2>&1 || { echo "check_parts: h5ls not found (install hdf5-tools or load an HDF5 module)" >&2; exit 2; }

man="$dir/manifest.txt"
declare -A want=()
if [ -r "$man" ]; then
    [ -n "$parts" ] || parts=$(awk '$1 == "parts" {print $2}' "$man")
    while read -r name r; do want[$name]=$r; done < <(awk '$1 ~ /^part_[0-9]+\.h5$/ {print $1, $2}' "$man")
fi
if [ -z "$parts" ]; then
    echo "check_parts: $dir has no manifest.txt (did any array task start?); give --parts N" >&2
    exit 2
fi
if ! [[ "$parts" =~ ^[0-9]+$ ]] || [ "$parts" -lt 1 ]; then echo "check_parts: --parts $parts: not a positive number" >&2; exit 2; fi
if [ -n "$rows" ]; then
    IFS=, read -r -a rl <<<"$rows"
    if [ "${#rl[@]}" = 1 ]; then
        for ((i = 0; i < parts; i++)); do want[part_$i.h5]=${rl[0]}; done
    elif [ "${#rl[@]}" = "$parts" ]; then
        for ((i = 0; i < parts; i++)); do want[part_$i.h5]=${rl[$i]}; done
    else
        echo "check_parts: --rows gives ${#rl[@]} counts for $parts parts" >&2; exit 2
    fi
fi

bad=0 total=0 shape0='' missing=()
problem() { echo "check_parts: $*" >&2; bad=$((bad + 1)); }
for ((i = 0; i < parts; i++)); do
    f="$dir/part_$i.h5"
    if [ -e "$f.partial" ]; then
        problem "$f.partial: left by an unfinished task (killed or timed out): resubmit task $i"
        missing+=("$i")
        continue
    fi
    if [ ! -e "$f" ]; then
        problem "$f: missing (task $i did not finish)"
        missing+=("$i")
        continue
    fi
    if ! line=$(h5ls "$f/seismograms" 2>&1); then
        problem "$f: cannot be read by h5ls (damaged?): $(echo "$line" | head -n 1)"
        missing+=("$i")
        continue
    fi
    # "seismograms              Dataset {12, 3, 73}"
    dims=$(sed -n 's/.*Dataset {\([^}]*\)}.*/\1/p' <<<"$line" | tr -d ' ')
    IFS=, read -r -a d <<<"$dims"
    if [ "${#d[@]}" != 3 ]; then
        problem "$f: no 3-D seismograms dataset (h5ls says: $line); is it a bulk-format file?"
        missing+=("$i")
        continue
    fi
    r=${d[0]%/*}
    exp=${want[part_$i.h5]:-}
    if [ -n "$exp" ] && [ "$exp" != "?" ] && [ "$r" != "$exp" ]; then
        problem "$f: $r rows, expected $exp"
        missing+=("$i")
        continue
    fi
    shape="${d[1]%/*} components x ${d[2]%/*} samples"
    if [ -z "$shape0" ]; then shape0=$shape
    elif [ "$shape" != "$shape0" ]; then problem "$f: $shape, but part_0.h5 has $shape0"; fi
    total=$((total + r))
done
for f in "$dir"/part_*.h5.partial; do
    [ -e "$f" ] || continue
    n=${f##*/part_}; n=${n%.h5.partial}
    [ "$n" -lt "$parts" ] 2>/dev/null || problem "$f: a .partial file outside the $parts expected parts"
done
for f in "$dir"/part_*.h5; do
    [ -e "$f" ] || continue
    n=${f##*/part_}; n=${n%.h5}
    [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -lt "$parts" ] || echo "check_parts: warning: $f is not one of the $parts expected parts (left from another batch?)" >&2
done

if [ "$bad" != 0 ]; then
    if [ "${#missing[@]}" -gt 0 ]; then
        echo "check_parts: $dir: ${#missing[@]} of $parts parts incomplete; resubmit with --array=$(IFS=,; echo "${missing[*]}")" >&2
    fi
    echo "check_parts: $dir: INCOMPLETE ($bad problems)" >&2
    exit 1
fi
echo "check_parts: $dir: all $parts parts complete, $total rows, $shape0"
