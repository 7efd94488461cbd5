#!/bin/sh
# Run on the GPU machine from the repository root (the `run` tool's device machine): builds
# tests/cuda/probe/cuda_probe.c against NVIDIA's own cuda.h and libcuda and records the
# vmmstate_* sections (VMM answers by state, docs/cuda.md) with record_nvidia.py.
# Output in ${OUT:-/tmp/nvidia-out}: nvidia_vmmstate.txt, vmmstate_build_info.txt, record_log.txt.
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
pcmd="$cc -O1 -I$inc tests/cuda/probe/cuda_probe.c -o /tmp/cuda_probe $lib"
echo "probe command: $pcmd" > "$out/vmmstate_build_info.txt"
$pcmd 2>> "$out/vmmstate_build_info.txt" || exit 1
sections=$(/tmp/cuda_probe --list | grep '^vmmstate_' | tr '\n' ' ')
echo "sections: $sections" >> "$out/vmmstate_build_info.txt"
start=$(date +%s)
PROBE_SECTIONS="$sections" python3 tests/cuda/probe/record_nvidia.py /tmp/cuda_probe "$out/nvidia_vmmstate.txt" \
    "tests/cuda/probe/cuda_probe.c (sections vmmstate_*) against NVIDIA's libcuda: $gpu, driver $driver" \
    "built with: $(echo "$pcmd" | sed "s|$lib|libcuda.so.$driver|") ($($cc --version | head -1)), header CUDA_VERSION $ver" \
    "recorded by tests/cuda/probe/record_vmmstate.sh (record_nvidia.py: sections in separate processes; CRASH/HANG: that case killed the driver's process)" \
    2> "$out/record_log.txt"
echo "recorded in $(($(date +%s) - start)) s" >> "$out/vmmstate_build_info.txt"
cat "$out/vmmstate_build_info.txt" "$out/record_log.txt"
grep -c . "$out/nvidia_vmmstate.txt"
grep -E 'CRASH|HANG|NA$|SETUP_FAILED|teardown|ended with' "$out/nvidia_vmmstate.txt" | head -40
