#!/bin/sh
# Run on the GPU machine from the repository root: compiles the test kernels with this machine's
# NVRTC (NVIDIA's driver JITs PTX up to its own CUDA version's ISA; the fixtures are NVRTC
# 13.5's), makes fat binaries and cubins of vadd with nvcc, builds kernel_probe.c against
# NVIDIA's cuda.h and libcuda and records its answers into ${OUT:-.}/nvidia_kernels.txt. The
# JIT's log texts, the fat binaries and the PTX go into ${OUT:-.}/kernels_rec.tgz.
set -u
out=${OUT:-.}
T=$(mktemp -d)
mkdir -p "$T/ptx" "$T/kptx" "$T/fb" "$T/logs"
h=$(readlink -f /usr/local/cuda/include/cuda.h)
inc=$(dirname "$h")
lib=$(readlink -f "$(ldconfig -p | awk '/libcuda\.so\.1 .*x86-64/ {print $NF; exit}')")
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
py=python3
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64"
{ $py tests/ptx/gen_ptx.py --out "$T/ptx"; $py tests/cuda/gen_kernels.py --out "$T/kptx"; } >"$T/logs/gen.log" 2>&1
if [ ! -s "$T/ptx/vadd.ptx" ]; then
    echo "no NVRTC here: the fixtures with .version lowered to 8.0" >>"$T/logs/gen.log"
    for f in tests/ptx/fixtures/*.ptx; do sed 's/^\.version .*/.version 8.0/' "$f" >"$T/ptx/$(basename "$f")"; done
    for f in tests/cuda/fixtures/*.ptx; do sed 's/^\.version .*/.version 8.0/' "$f" >"$T/kptx/$(basename "$f")"; done
fi
nv() { echo "nvcc $*" >>"$T/logs/nvcc.log"; nvcc "$@" >>"$T/logs/nvcc.log" 2>&1; }
src=tests/ptx/kernels/vadd.cu
nv -fatbin -arch=compute_75 --compress-mode=none -o "$T/fb/vadd_ptx.fatbin" $src ||
    nv -fatbin -arch=compute_75 -o "$T/fb/vadd_ptx.fatbin" $src
nv -fatbin -arch=compute_75 --compress-mode=size -o "$T/fb/vadd_ptx_z.fatbin" $src ||
    nv -fatbin -arch=compute_75 -Xfatbin=-compress-all -o "$T/fb/vadd_ptx_z.fatbin" $src
nv -fatbin -arch=compute_75 -o "$T/fb/vadd_ptx_default.fatbin" $src
nv -fatbin -gencode arch=compute_90,code=sm_90 -gencode arch=compute_75,code=compute_75 --compress-mode=none \
    -o "$T/fb/vadd_mixed.fatbin" $src
nv -fatbin -gencode arch=compute_90,code=sm_90 -o "$T/fb/vadd_sm90.fatbin" $src
nv -cubin -arch=sm_90 -o "$T/fb/vadd_sm90.cubin" $src
nv -cubin -arch=sm_75 -o "$T/fb/vadd_sm75.cubin" $src
for f in "$T"/fb/*; do echo "== $f"; od -A x -t x4 "$f" | head -12; done >"$T/logs/fatbin_hex.txt" 2>&1
cmd="gcc -O1 -I$inc tests/cuda/probe/kernel_probe.c -o /tmp/kernel_probe $lib"
$cmd 2>"$T/logs/gcc.log" || { cat "$T/logs/gcc.log"; tar czf "$out/kernels_rec.tgz" -C "$T" .; exit 1; }
export PROBE_PTX_DIR="$T/ptx" PROBE_KERNEL_DIR="$T/kptx" PROBE_FATBIN_DIR="$T/fb"
python3 tests/cuda/probe/record_nvidia.py /tmp/kernel_probe "$out/nvidia_kernels.txt" \
    "tests/cuda/probe/kernel_probe.c against NVIDIA's libcuda: $gpu, driver $driver" \
    "built with: $cmd, header CUDA_VERSION $(awk '/^#define CUDA_VERSION / {print $3}' "$h")" \
    "PTX from this machine's NVRTC ($(grep -m1 -o 'NVRTC [0-9.]*' "$T/logs/gen.log")); fat binaries and cubins from nvcc $(nvcc --version | grep -o 'V[0-9][0-9.]*' | tail -1)" \
    "recorded by tests/cuda/probe/record_kernels_nvidia.sh (sections in separate processes)"
/tmp/kernel_probe ptxload >/dev/null 2>"$T/logs/jit_logs.txt"
tar czf "$out/kernels_rec.tgz" -C "$T" .
cat "$out/nvidia_kernels.txt"
