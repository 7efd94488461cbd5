#!/usr/bin/env bash
# Sets up the machine, builds everything and runs every test. The exit status is ctest's
# (nonzero when either run below fails).
# VMGPU_BUILD_DIR picks another build directory (default: build/ in the repository).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${VMGPU_BUILD_DIR:-build}
# Each phase's wall-clock time, on stderr as it ends (where a run's time goes: README's table).
t0=$SECONDS
phase() { echo "test.sh: $1 took $((SECONDS - t0)) s (total $SECONDS s)" >&2; t0=$SECONDS; }

scripts/setup.sh
phase set-up
# -DVMGPU_BITSTREAM_TESTS=ON: the run also synthesises, places, routes and times the ULX3S
# bitstream for the default part (85F, with the SIMT unit: about 25 minutes of one core) and the
# 25F (about 10), ctests bitstream_85f and bitstream_25f; each tries up to three placement seeds
# and fails when the design misses 50 MHz. VMGPU_BITSTREAM_PARTS="25F" (say) builds fewer.
cmake -S . -B "$build" -DVMGPU_BITSTREAM_TESTS=ON -DVMGPU_BITSTREAM_PARTS="${VMGPU_BITSTREAM_PARTS:-85F;25F}"
cmake --build "$build" -j"$(nproc)"
phase "configure and build"
status=0
ctest --test-dir "$build" --output-on-failure -j2 || status=$?
phase ctest
# The sanitizer configuration (cmake/sanitize.cmake): the driver, the tests and the model built
# with ASan + UBSan in a second directory, only what the tests labelled `sanitize` need (the
# suites' subset in tests/sanitize/CMakeLists.txt and the fuzzers), then those tests. A few
# minutes; VMGPU_SANITIZE=0 skips it, VMGPU_SANITIZE_BUILD_DIR picks the directory.
if [ "${VMGPU_SANITIZE:-1}" != 0 ]; then
  san=${VMGPU_SANITIZE_BUILD_DIR:-build-sanitize}
  cmake -S . -B "$san" -DVMGPU_SANITIZE=ON -DVMGPU_BITSTREAM_TESTS=OFF
  cmake --build "$san" --target vmgpu_sanitize_tests -j"$(nproc)"
  ctest --test-dir "$san" -L sanitize --output-on-failure -j2 || status=$?
  phase "sanitizer build and tests"
fi
exit "$status"
