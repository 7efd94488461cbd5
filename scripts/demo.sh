#!/usr/bin/env bash
# Sets up the machine, builds every program and tool the lessons use (docs/lessons/) and shows
# what vmgpu is for in a few lines, from real runs on the simulated device: a cuMemMap from the
# call to its PTEs and the TLB fill, a clEnqueueMapBuffer zero-copy against copy, and a fault.
# After it, each lesson's Run commands work as written. VMGPU_BUILD_DIR picks another build
# directory; --no-run only builds.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${VMGPU_BUILD_DIR:-build}

scripts/setup.sh
cmake -S . -B "$build"

# Only what the lessons use: the full tree (every RTL test) takes much longer.
wanted=(
  dma_through_mmu cuda_vmm_walkthrough cl_map_buffer vmgpu_opencl external_memory graphics_interop
  vmgpu-bench vmgpu-pt vmgpu-quiz vmgpu-fst-dump
  lesson_stale_tlb lesson_grow_buffer lesson_faults lesson_kernel_fault
  lesson_probe_dma lesson_probe_cuda lesson_probe_cl
)
available=$(cmake --build "$build" --target help)
targets=()
for t in "${wanted[@]}"; do
  if grep -qw -- "$t" <<<"$available"; then targets+=("$t"); fi
done
if ! grep -qw dma_through_mmu <<<"$available"; then
  echo "demo.sh: this tree has no 'dma_through_mmu' target; scripts/test.sh builds and tests what exists." >&2
  exit 1
fi
cmake --build "$build" --target "${targets[@]}" -j"$(nproc)"
[ "${1:-}" = "--no-run" ] && exit 0

export VMGPU_DEVICE=${VMGPU_DEVICE:-sim}
case "$build" in /*) absbuild=$build ;; *) absbuild=$PWD/$build ;; esac
export OCL_ICD_VENDORS=$absbuild/sw/opencl/vendors
unset VMGPU_WAVES
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
VMGPU_TRACE=1 "$build/examples/cuda_vmm_walkthrough" >"$tmp/cuda.out" 2>"$tmp/cuda.err" || true
if [ -x "$build/examples/cl_map_buffer" ]; then
  "$build/examples/cl_map_buffer" >"$tmp/cl.out" 2>"$tmp/cl.err" || true
fi
VMGPU_TRACE=1 "$build/examples/dma_through_mmu" >"$tmp/dma.out" 2>"$tmp/dma.err" || true
exec python3 tools/demo_summary.py "$tmp"
