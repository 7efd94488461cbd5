#!/usr/bin/env bash
# Sets up the machine, builds everything and runs every test. The exit status is ctest's.
# VMGPU_BUILD_DIR picks another build directory (default: build/ in the repository).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${VMGPU_BUILD_DIR:-build}

scripts/setup.sh
# -DVMGPU_BITSTREAM_TESTS=ON: the run also synthesises, places, routes and times the ULX3S
# bitstream (ctest bitstream_<part>, 5-10 minutes per placement seed on two cores, up to three
# seeds); it fails when the design misses 50 MHz. The 25F (whole design) for now: the 85F misses
# 50 MHz with every seed tried (docs/board.md); VMGPU_BITSTREAM_PARTS="85F;25F" runs both.
cmake -S . -B "$build" -DVMGPU_BITSTREAM_TESTS=ON -DVMGPU_BITSTREAM_PARTS="${VMGPU_BITSTREAM_PARTS:-25F}"
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j2
