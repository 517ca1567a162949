# Sourced by the shell-driven tests (kill and resume, full disk), which start 10-20 axibulk
# processes each. Under the sanitizers, LeakSanitizer's check at exit and the full unwinding of
# every malloc that tests/lsan.supp needs to name Open MPI's allocations cost 1-2 s per process
# (on the 2-core CI machine: extract_resume 56 s with them, 19 s without; docs/testing.md). Those
# runs check addresses and undefined behaviour only; one run of each kind the C tests do not drive
# in-process (a resume, an error exit on a full disk) keeps the leak check: leak_checked CMD...
# Without ASAN_OPTIONS (a release build) both are plain runs.
AXB_LEAK_ASAN_OPTIONS=${ASAN_OPTIONS:-}
if [[ $AXB_LEAK_ASAN_OPTIONS == *detect_leaks=1* ]]; then
    ASAN_OPTIONS=${AXB_LEAK_ASAN_OPTIONS//detect_leaks=1/detect_leaks=0}
    ASAN_OPTIONS=${ASAN_OPTIONS//fast_unwind_on_malloc=0/fast_unwind_on_malloc=1}
    export ASAN_OPTIONS
fi
leak_checked() { ASAN_OPTIONS=$AXB_LEAK_ASAN_OPTIONS "$@"; }
