#!/bin/sh
# Run on the GPU machine from the repository root (the device machine; see tests/abi/README.md):
#  - compiles tests/abi/nvidia_header_program.c against NVIDIA's own cuda.h into
#    nvidia_header_program.o (the object committed as tests/abi/nvidia_header_program.o),
#  - links that object against NVIDIA's libcuda and runs it (it must print PASS there too),
#  - builds tests/cuda/probe/cuda_probe.c against NVIDIA's cuda.h and libcuda and records its
#    answers with record_nvidia.py.
# Everything lands in ${OUT:-/tmp/nvidia-out}.
set -u
out=${OUT:-/tmp/nvidia-out}
mkdir -p "$out"
h=/usr/local/cuda/include/cuda.h
[ -f "$h" ] || h=$(ls /usr/local/cuda*/include/cuda.h | head -1)
h=$(readlink -f "$h")
inc=$(dirname "$h")
lib=$(readlink -f "$(ldconfig -p | awk '/libcuda\.so\.1 .*x86-64/ {print $NF; exit}')")
cc=${CC:-gcc}
ver=$(awk '/^#define CUDA_VERSION / {print $3; exit}' "$h")
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
info="$out/nvidia_build_info.txt"
{
    echo "compiler: $($cc --version | head -1)"
    echo "header: $h (CUDA_VERSION $ver)"
    echo "driver: $driver, $gpu, $(basename "$lib")"
} > "$info"

cmd="$cc -c -O1 -fPIC -I$inc tests/abi/nvidia_header_program.c -o nvidia_header_program.o"
echo "object command: $cmd" | tee -a "$info"
$cmd && cp nvidia_header_program.o "$out/" || echo "OBJECT BUILD FAILED" | tee -a "$info"
echo "undefined symbols:" >> "$info"
nm -u nvidia_header_program.o >> "$info"
$cc nvidia_header_program.o -o /tmp/nvidia_header_program "$lib" &&
    /tmp/nvidia_header_program > "$out/nvidia_header_program_on_nvidia.txt" 2>&1
echo "run against NVIDIA's libcuda: exit $?" | tee -a "$info"
cat "$out/nvidia_header_program_on_nvidia.txt"

pcmd="$cc -O1 -I$inc tests/cuda/probe/cuda_probe.c -o /tmp/cuda_probe $lib"
if ! $pcmd 2> "$out/probe_build_errors.txt"; then
    pcmd="$cc -O1 -Isw/include tests/cuda/probe/cuda_probe.c -o /tmp/cuda_probe $lib"
    $pcmd
fi
echo "probe command: $pcmd" | tee -a "$info"
python3 tests/cuda/probe/record_nvidia.py /tmp/cuda_probe "$out/nvidia_probe.txt" \
    "tests/cuda/probe/cuda_probe.c against NVIDIA's libcuda: $gpu, driver $driver" \
    "built with: $(echo "$pcmd" | sed "s|$lib|libcuda.so.$driver|") ($($cc --version | head -1)), header CUDA_VERSION $ver" \
    "recorded by tests/cuda/probe/record_nvidia.py (sections in separate processes; CRASH/HANG: that case killed the driver's process)"
echo "probe: $(grep -vc '^#' "$out/nvidia_probe.txt") answers"
grep -E 'CRASH|HANG|NA$' "$out/nvidia_probe.txt"
