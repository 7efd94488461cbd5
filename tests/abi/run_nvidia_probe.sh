#!/bin/sh
# Run on a machine with NVIDIA's CUDA toolkit and driver (the device machine):
# records NVIDIA's answers for every header in /usr/local/cuda*/include into
# ${OUT:-.}/nvidia-cuda-<CUDA_VERSION>.txt.  See cuda_abi_nvidia_probe.py.
set -u
out=${OUT:-.}
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
lib=$(ldconfig -p | awk '/libcuda\.so\.1 .*x86-64/ {print $NF; exit}')
lib=$(readlink -f "$lib")
echo "driver $driver gpu $gpu libcuda $lib"
seen=""
for h in /usr/local/cuda*/include/cuda.h; do
    real=$(readlink -f "$h")
    case " $seen " in *" $real "*) continue ;; esac
    seen="$seen $real"
    ver=$(awk '/^#define CUDA_VERSION / {print $3; exit}' "$real")
    f="$out/nvidia-cuda-$ver.txt"
    {
        echo "# NVIDIA answers for vmgpu's cuda.h names, recorded by tests/abi/run_nvidia_probe.sh"
        echo "# header CUDA_VERSION $ver ($real), driver $driver, $gpu, $(basename "$lib")"
    } > "$f"
    python3 tests/abi/cuda_abi_nvidia_probe.py "$(dirname "$real")" "$f.body" "$lib" && cat "$f.body" >> "$f"
    rm -f "$f.body"
    echo "== $f: $(wc -l < "$f") lines"
    grep -E '^(missing|signature .* (conflict|error)|symbol)' "$f" | grep -v '^symbol-ptds' | head -200
done
