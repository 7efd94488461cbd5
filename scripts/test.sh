#!/usr/bin/env bash
# Sets up the machine, builds everything and runs every test. The exit status is ctest's.
# VMGPU_BUILD_DIR picks another build directory (default: build/ in the repository).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${VMGPU_BUILD_DIR:-build}

scripts/setup.sh
cmake -S . -B "$build"
cmake --build "$build" -j"$(nproc)"
ctest --test-dir "$build" --output-on-failure -j2
