#!/usr/bin/env bash
# The test command (README, .ci/run): installs what is missing, builds with warnings as errors,
# runs the whole ctest suite (MPI tests at 1, 2 and 4 ranks; 4 is oversubscribed on 2 cores), then
# builds the suite with AddressSanitizer + UndefinedBehaviorSanitizer and runs it again.
# Exits non-zero on any failure. Build trees go to build/ci-release and build/ci-sanitize.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=$(nproc)

bash "$root/jobs/install-deps.sh" --tests

if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMPI_MCA_rmaps_base_oversubscribe=1
# a refused command would otherwise cost 2 s in mpiexec at exit (tests/CMakeLists.txt, AXB_MPI_ENV)
export OMPI_MCA_odls_base_sigkill_timeout=0

echo "== Release build (-Werror)"
cmake -S "$root" -B "$root/build/ci-release" -DCMAKE_BUILD_TYPE=Release -DAXB_WERROR=ON >/dev/null
cmake --build "$root/build/ci-release" -j "$jobs"
# Tests run two at a time: most of a pass is spent waiting (mpiexec start-up, I/O, the kills of
# the resume tests), and ctest keeps multi-rank tests from oversubscribing (PROCESSORS).
(cd "$root/build/ci-release" && ctest --output-on-failure -j "$jobs")
# each pass must stay under 10 minutes on the 2-core CI machine (docs/testing.md): say where it is
echo "== Release pass: ${SECONDS} s"
SECONDS=0

echo "== Sanitize build (ASan + UBSan, -Werror)"
cmake -S "$root" -B "$root/build/ci-sanitize" -DCMAKE_BUILD_TYPE=Sanitize -DAXB_WERROR=ON >/dev/null
cmake --build "$root/build/ci-sanitize" -j "$jobs"
# Open MPI keeps allocations until exit; its plugins stay mapped (disable_dlclose) and full
# unwinding is on so tests/lsan.supp can name them, while leaks in axibulk's code still fail.
export OMPI_MCA_mca_base_component_disable_dlclose=1
# ASan keeps its shadow memory off huge pages by default; where a page fault is as dear as on this
# VM, the shadow's 4 KiB faults took half of a test's time (test_extract_reference: 53 s, 11 s
# with them allowed; docs/testing.md). Detection is the same.
export ASAN_OPTIONS=fast_unwind_on_malloc=0:detect_leaks=1:no_huge_pages_for_shadow=0
export LSAN_OPTIONS=suppressions=$root/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# A singleton (axibulk run without mpirun, as several tests do) lets hwloc discover the machine
# itself, and its OpenCL and OpenGL components load those libraries; at exit LeakSanitizer then
# read a dynamic-TLS range of theirs that is not one (here from 2026-12-05 on: "Tracer caught
# signal 11", exit 1). Without either component it does not. They find no GPU on a CI machine.
export HWLOC_COMPONENTS=-opencl,-gl
# The SLURM job-script test, the benchmark, the install tests and the kernel sum-rule check run
# once, in the release pass: shell scripts, a private cluster, timed runs, programs built outside
# the tree (which would need the sanitizer runtime too) and a compute-bound physics check whose
# code the other kernel tests run under the sanitizers gain nothing from them. The fuzz targets are
# built with ASan + UBSan in both passes already, so they run once.
(cd "$root/build/ci-sanitize" && ctest --output-on-failure -j "$jobs" -LE "slurm|bench|install|physics|fuzz")
echo "== Sanitize pass: ${SECONDS} s"
