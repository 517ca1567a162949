#!/usr/bin/env bash
# ParaView decides whether a kernel file's XDMF description is right: the fixture writes kernel
# outputs with known values (tetrahedra per cell and per vertex, voxels) and pvpython reads them
# with both of ParaView's XDMF readers; every number must come back exactly.
#   kernel_xdmf_test.sh FIXTURE_EXE CHECK_SCRIPT
# Exits 77 (skipped) without pvpython (Debian package python3-paraview).
set -u
fixture=$1 check=$2
pv=$(command -v pvpython) || { echo "pvpython not installed (apt-get install python3-paraview): skipped"; exit 77; }
dir=$(mktemp -d /tmp/axb_kxdmf.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
"$fixture" "$dir" || { echo "the fixture writer failed"; exit 1; }
passed=0 failed=0
for name in tet tetv vox; do
    # no rendering happens; offscreen keeps pvpython from looking for a display all the same
    if timeout 60 "$pv" --force-offscreen-rendering "$check" "$dir/$name.xdmf" "$dir/$name.expect"; then
        passed=$((passed + 1))
    else
        echo "$name: ParaView read something else than was written"
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
