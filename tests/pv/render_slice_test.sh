#!/usr/bin/env bash
# tests/pv/render_slice.py draws the kernel pictures of the documentation: it must produce a PNG
# from kernel files the writer made (voxels with cell values, tetrahedra with vertex values).
# Debian's ParaView renders through GLX only, so without a display the test starts its own Xvfb.
#   render_slice_test.sh FIXTURE_EXE RENDER_SCRIPT
# Exits 77 (skipped) without pvpython (python3-paraview) or, with no DISPLAY, Xvfb (xvfb).
set -u
fixture=$1 render=$2
pv=$(command -v pvpython) || { echo "pvpython not installed (apt-get install python3-paraview): skipped"; exit 77; }
dir=$(mktemp -d /tmp/axb_kslice.XXXXXX) || exit 1
xpid=
trap '[ -n "$xpid" ] && kill "$xpid" 2>/dev/null; rm -rf "$dir"' EXIT
if [ -z "${DISPLAY:-}" ]; then
    command -v Xvfb >/dev/null 2>&1 || { echo "no DISPLAY and no Xvfb (apt-get install xvfb): skipped"; exit 77; }
    # -displayfd: Xvfb picks a free display and prints its number once it accepts clients
    # and -noreset keeps it from resetting whenever its last client leaves: a client connecting
    # during a reset is refused ("bad X server connection"), which xvfb-run ran into now and then
    Xvfb -displayfd 1 -screen 0 1280x1024x24 -nolisten tcp -noreset >"$dir/display" 2>"$dir/xvfb.log" &
    xpid=$!
    for _ in $(seq 100); do
        [ -s "$dir/display" ] && break
        kill -0 "$xpid" 2>/dev/null || break
        sleep 0.1
    done
    [ -s "$dir/display" ] || { echo "Xvfb did not start:"; cat "$dir/xvfb.log"; exit 1; }
    export DISPLAY=":$(tr -d '[:space:]' <"$dir/display")"
fi
"$fixture" "$dir" || { echo "the fixture writer failed"; exit 1; }
passed=0 failed=0
check() { # NAME COLUMN NORMAL...
    local name=$1 column=$2
    shift 2
    local png="$dir/$name-$column.png"
    if timeout 60 "$pv" "$render" "$dir/$name.xdmf" "$column" "$png" --normal "$@" --size 640 480 &&
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
if timeout 60 "$pv" "$render" "$dir/vox.xdmf" nosuch "$dir/x.png" 2>&1 | grep -q "no array 'nosuch'" &&
    [ ! -e "$dir/x.png" ]; then
    passed=$((passed + 1))
else
    echo "an unknown column was not refused"
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
