#!/usr/bin/env bash
# Sets up the machine, builds everything and runs every test. The exit status is ctest's.
# VMGPU_BUILD_DIR picks another build directory (default: build/ in the repository).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${VMGPU_BUILD_DIR:-build}

scripts/setup.sh
# -DVMGPU_BITSTREAM_TESTS=ON: the run also synthesises, places, routes and times the ULX3S
# bitstream (ctest bitstream_<part>, a few minutes each on two cores); it fails when the design
# misses 50 MHz. Only the 25F for now: the 85F build (the whole design) does not meet 50 MHz yet
# (docs/board.md); VMGPU_BITSTREAM_PARTS="85F;25F" runs both.
cmake -S . -B "$build" -DVMGPU_BITSTREAM_TESTS=ON -DVMGPU_BITSTREAM_PARTS="${VMGPU_BITSTREAM_PARTS:-25F}"
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j2
