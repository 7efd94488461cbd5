#!/bin/sh
# Run on the GPU machine from the repository root: builds ipc_probe.c (two processes, SCM_RIGHTS)
# against NVIDIA's cuda.h and libcuda and records its answers into ${OUT:-.}/nvidia_ipc.txt.
set -u
out=${OUT:-.}
h=$(readlink -f /usr/local/cuda/include/cuda.h)
inc=$(dirname "$h")
lib=$(readlink -f "$(ldconfig -p | awk '/libcuda\.so\.1 .*x86-64/ {print $NF; exit}')")
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
cmd="gcc -O1 -I$inc tests/cuda/probe/ipc_probe.c -o /tmp/ipc_probe $lib"
$cmd || exit 1
python3 tests/cuda/probe/record_nvidia.py /tmp/ipc_probe "$out/nvidia_ipc.txt" \
    "tests/cuda/probe/ipc_probe.c against NVIDIA's libcuda: $gpu, driver $driver" \
    "built with: $cmd, header CUDA_VERSION $(awk '/^#define CUDA_VERSION / {print $3}' "$h")" \
    "recorded by tests/cuda/probe/record_nvidia.py (sections in separate processes; each starts its second process)"
