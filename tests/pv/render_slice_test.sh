#!/usr/bin/env bash
# tests/pv/render_slice.py draws the kernel pictures of the documentation: it must produce a PNG
# from kernel files the writer made (voxels with cell values, tetrahedra with vertex values).
# Debian's ParaView renders through GLX only, so without a display it runs under xvfb-run.
#   render_slice_test.sh FIXTURE_EXE RENDER_SCRIPT
# Exits 77 (skipped) without pvpython (python3-paraview) or, with no DISPLAY, xvfb-run (xvfb).
set -u
fixture=$1 render=$2
pv=$(command -v pvpython) || { echo "pvpython not installed (apt-get install python3-paraview): skipped"; exit 77; }
run=()
if [ -z "${DISPLAY:-}" ]; then
    command -v xvfb-run >/dev/null 2>&1 || { echo "no DISPLAY and no xvfb-run (apt-get install xvfb xauth): skipped"; exit 77; }
    run=(xvfb-run -a -s "-screen 0 1280x1024x24")
fi
dir=$(mktemp -d /tmp/axb_kslice.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
"$fixture" "$dir" || { echo "the fixture writer failed"; exit 1; }
passed=0 failed=0
check() { # NAME COLUMN NORMAL...
    local name=$1 column=$2
    shift 2
    local png="$dir/$name-$column.png"
    if timeout 60 "${run[@]}" "$pv" "$render" "$dir/$name.xdmf" "$column" "$png" --normal "$@" --size 640 480 &&
        [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && [ "$(stat -c %s "$png")" -gt 2000 ]; then
        passed=$((passed + 1))
    else
        echo "$name $column: no PNG made"
        failed=$((failed + 1))
    fi
}
check vox P30_vp 0 1 0
check tetv S40_am_rho 1 0.2 0.3
# a column that does not exist is refused with a message, not a picture
if timeout 60 "${run[@]}" "$pv" "$render" "$dir/vox.xdmf" nosuch "$dir/x.png" 2>&1 | grep -q "no array 'nosuch'" &&
    [ ! -e "$dir/x.png" ]; then
    passed=$((passed + 1))
else
    echo "an unknown column was not refused"
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
