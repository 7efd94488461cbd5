#!/bin/sh
# Run on the GPU machine from the repository root (one batch, a few minutes). Records with
# NVIDIA's cuda.h, libcuda and NVRTC:
#   1. kernel_probe.c's launchex section (cuLaunchKernelEx) -> ${OUT}/nvidia_launchex.txt, the
#      section appended to nvidia_kernels_*.txt;
#   2. the sregs kernel's %laneid/%warpid (tests/cuda/cuda_kernels.c sregs) -> sregs.txt;
#   3. examples/vectorAddMMAP against NVIDIA's driver -> vectorAddMMAP.txt;
#   4. lesson 09's program (tests/lessons/kernel_fault.c) -> kernel_fault.txt;
#   5. tests/python/test_bindings_kernels.py with NVIDIA's cuda-bindings -> python_kernels.txt.
# The PTX fixtures are NVRTC 13.5's (.version 9.5); driver 580 takes up to 9.0, so they run
# with .version lowered to 8.0 (the instructions are the same).
set -u
out=${OUT:-.}
T=$(mktemp -d)
mkdir -p "$T/ptx/fixtures" "$T/cuda/fixtures"
for f in tests/ptx/fixtures/*.ptx; do sed 's/^\.version .*/.version 8.0/' "$f" >"$T/ptx/fixtures/$(basename "$f")"; done
for f in tests/cuda/fixtures/*.ptx; do sed 's/^\.version .*/.version 8.0/' "$f" >"$T/cuda/fixtures/$(basename "$f")"; done
sed 's/^\.version .*/.version 8.0/' examples/vectorAddMMAP/vectorAdd_kernel.ptx >"$T/vectorAdd_kernel.ptx"
h=$(readlink -f /usr/local/cuda/include/cuda.h)
inc=$(dirname "$h")
lib=$(readlink -f "$(ldconfig -p | awk '/libcuda\.so\.1 .*x86-64/ {print $NF; exit}')")
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64"

# 1. cuLaunchKernelEx
cmd="gcc -O1 -I$inc tests/cuda/probe/kernel_probe.c -o /tmp/kernel_probe $lib"
$cmd >"$out/gcc_probe.txt" 2>&1
PROBE_PTX_DIR="$T/ptx/fixtures" PROBE_KERNEL_DIR="$T/cuda/fixtures" PROBE_SECTIONS=launchex \
    timeout 120 python3 tests/cuda/probe/record_nvidia.py /tmp/kernel_probe "$out/nvidia_launchex.txt" \
    "tests/cuda/probe/kernel_probe.c section launchex against NVIDIA's libcuda: $gpu, driver $driver" \
    "built with: $cmd, header CUDA_VERSION $(awk '/^#define CUDA_VERSION / {print $3}' "$h")" \
    "recorded by tests/cuda/probe/record_launchex_nvidia.sh (fixtures with .version 8.0)"

# 2. %laneid / %warpid
gcc -O1 -I"$inc" tests/cuda/cuda_kernels.c -o /tmp/cuda_kernels "$lib" >"$out/sregs.txt" 2>&1 &&
    FIXTURES="$T" timeout 60 /tmp/cuda_kernels sregs >>"$out/sregs.txt" 2>&1

# 3. vectorAddMMAP
g++ -std=c++17 -O1 -I"$inc" examples/vectorAddMMAP/vectorAddMMAP.cpp -o /tmp/vectorAddMMAP "$lib" \
    >"$out/vectorAddMMAP.txt" 2>&1 && timeout 60 /tmp/vectorAddMMAP "$T/vectorAdd_kernel.ptx" >>"$out/vectorAddMMAP.txt" 2>&1
echo "exit $?" >>"$out/vectorAddMMAP.txt"

# 4. lesson 09's program
gcc -O1 -I"$inc" -DFIXTURES="\"$T/ptx/fixtures\"" tests/lessons/kernel_fault.c -o /tmp/kernel_fault "$lib" \
    >"$out/kernel_fault.txt" 2>&1 && timeout 60 /tmp/kernel_fault >>"$out/kernel_fault.txt" 2>&1
echo "exit $?" >>"$out/kernel_fault.txt"
timeout 60 /tmp/kernel_fault --blocks 1 --threads 12 >>"$out/kernel_fault.txt" 2>&1

# 5. the Python test's kernels with NVIDIA's stack
(cd tests/python && PYTHONDONTWRITEBYTECODE=1 timeout 120 python3 test_bindings_kernels.py) >"$out/python_kernels.txt" 2>&1
echo "exit $?" >>"$out/python_kernels.txt"
for f in "$out"/*.txt; do echo "=== $f"; cat "$f"; done
