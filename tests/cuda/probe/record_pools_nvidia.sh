#!/bin/sh
# Run on the GPU machine from the repository root: builds tests/cuda/probe/pool_probe.c against
# NVIDIA's cuda.h and libcuda, records its answers with record_nvidia.py into
# ${OUT:-/tmp/nvidia-out}/nvidia_pools.txt (committed as tests/cuda/probe/nvidia_pools_*.txt), and
# runs it once more with POOL_PROBE_RAW=1 for the driver's own sizes (pools_raw.txt, for docs).
set -u
out=${OUT:-/tmp/nvidia-out}
mkdir -p "$out"
h=$(readlink -f /usr/local/cuda/include/cuda.h)
inc=$(dirname "$h")
lib=$(readlink -f "$(ldconfig -p | awk '/libcuda\.so\.1 .*x86-64/ {print $NF; exit}')")
cc=${CC:-gcc}
ver=$(awk '/^#define CUDA_VERSION / {print $3; exit}' "$h")
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
cmd="$cc -O1 -I$inc -Itests/cuda/probe tests/cuda/probe/pool_probe.c -o /tmp/pool_probe $lib"
echo "pool probe command: $cmd"
$cmd || exit 1
python3 tests/cuda/probe/record_nvidia.py /tmp/pool_probe "$out/nvidia_pools.txt" \
    "tests/cuda/probe/pool_probe.c against NVIDIA's libcuda: $gpu, driver $driver" \
    "built with: $(echo "$cmd" | sed "s|$lib|libcuda.so.$driver|") ($($cc --version | head -1)), header CUDA_VERSION $ver" \
    "recorded by tests/cuda/probe/record_pools_nvidia.sh (record_nvidia.py: sections in separate processes; CRASH/HANG: that case killed the driver's process)"
echo "pool probe: $(grep -vc '^#' "$out/nvidia_pools.txt") answers"
grep -E 'CRASH|HANG|NA$' "$out/nvidia_pools.txt"
for sec in $(/tmp/pool_probe --list); do
    POOL_PROBE_RAW=1 timeout 60 /tmp/pool_probe "$sec" > /dev/null 2>> "$out/pools_raw.txt"
done
cat "$out/pools_raw.txt"
