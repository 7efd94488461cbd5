#!/usr/bin/env bash
# Sets up the machine, builds the demo and runs it on the simulated device.
# Arguments are passed on to the demo. VMGPU_BUILD_DIR picks another build directory.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${VMGPU_BUILD_DIR:-build}
demo=dma_through_mmu

scripts/setup.sh
cmake -S . -B "$build"
# Build only the demo: the full tree (every RTL test) takes much longer.
targets=$(cmake --build "$build" --target help)
if ! grep -qw -- "$demo" <<<"$targets"; then
  echo "demo.sh: this tree has no '$demo' target (examples/$demo is not written yet)." >&2
  echo "demo.sh: scripts/test.sh builds and tests what exists." >&2
  exit 1
fi
cmake --build "$build" --target "$demo" -j"$(nproc)"
if [ ! -x "$build/examples/$demo" ]; then
  echo "demo.sh: built '$demo' but $build/examples/$demo is missing" >&2
  exit 1
fi
export VMGPU_DEVICE=${VMGPU_DEVICE:-sim}
exec "$build/examples/$demo" "$@"
