#!/bin/sh
# Run on the GPU machine from the repository root: records, into ${OUT:-.},
#  - pfn_versions.txt: "NAME VERSION" for every PFN_<NAME>_v<VERSION> typedef of NVIDIA's
#    cudaTypedefs.h (the CUDA release that introduced each variant of each call), names only;
#  - cuda13_symbol_map.txt: "NAME SYMBOL" for each #define of cuda.h that renames a call;
#  - nvidia_procaddr.txt: what NVIDIA's cuGetProcAddress answers (procaddr_probe.c).
set -u
out=${OUT:-.}
inc=$(dirname "$(readlink -f /usr/local/cuda/include/cuda.h)")
grep -o 'PFN_cu[A-Za-z0-9_]*_v[0-9][0-9]*' "$inc/cudaTypedefs.h" | sort -u |
  sed -E 's/^PFN_(.*)_v([0-9]+)$/\1 \2/' > "$out/pfn_versions.txt"
grep -E '^[[:space:]]*#[[:space:]]*define[[:space:]]+cu[A-Za-z0-9_]+[[:space:]]+(cu[A-Za-z0-9_]+|__CUDA_API_[A-Z0-9_]+\(cu[A-Za-z0-9_]+\))[[:space:]]*$' "$inc/cuda.h" |
  awk '{print $2, $3}' | sort -u > "$out/cuda13_symbol_map.txt"
gcc -O1 -I"$inc" tests/cuda/procaddr/procaddr_probe.c -o /tmp/procaddr_probe -ldl || exit 1
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
{ echo "# NVIDIA cuGetProcAddress answers: driver $driver, $gpu, header $(awk '/^#define CUDA_VERSION / {print $3}' "$inc/cuda.h")"
  /tmp/procaddr_probe < "$out/pfn_versions.txt"; } > "$out/nvidia_procaddr.txt" 2>&1
echo "rc=$? lines=$(wc -l < "$out/nvidia_procaddr.txt") pfn=$(wc -l < "$out/pfn_versions.txt") defines=$(wc -l < "$out/cuda13_symbol_map.txt")"
# per-thread macros in cuda.h name the ptds/ptsz symbol through a helper macro: record its lines' names too
grep -n -E '__CUDA_API_PTDS|__CUDA_API_PTSZ|__CUDA_API_VERSION' "$inc/cuda.h" | head -5
# Signatures and type layouts of the calls vmgpu adds (names, types and values: what an ABI needs).
python3 - "$inc/cuda.h" > "$out/api_decls.txt" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
funcs = """cuGetProcAddress cuGetProcAddress_v2 cuGetExportTable cuDeviceCanAccessPeer cuCtxEnablePeerAccess
cuCtxDisablePeerAccess cuModuleLoad cuModuleLoadDataEx cuModuleLoadFatBinary cuOccupancyMaxActiveBlocksPerMultiprocessor
cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags cuOccupancyMaxPotentialBlockSize cuCtxGetStreamPriorityRange
cuStreamGetCtx cuStreamGetCtx_v2 cuStreamGetPriority cuStreamCreateWithPriority cuStreamGetId cuStreamGetDevice cuDeviceGetMemPool cuDeviceSetMemPool
cuDeviceGetDefaultMemPool cuMemAllocAsync cuMemFreeAsync cuMemAllocFromPoolAsync cuMemPoolCreate cuMemPoolDestroy
cuMemPoolSetAttribute cuMemPoolGetAttribute cuMemPoolTrimTo cuMemPoolSetAccess cuMemPoolGetAccess
cuMemPoolExportToShareableHandle cuMemPoolImportFromShareableHandle cuMemPoolExportPointer cuMemPoolImportPointer
cuMemGetDefaultMemPool cuMemGetMemPool cuMemSetMemPool cuCtxCreate_v4 cuDeviceGetP2PAttribute cuDevicePrimaryCtxRetain
cuCtxGetId cuCtxGetDevice_v2 cuCtxSynchronize_v2 cuFuncGetAttribute cuFuncSetAttribute cuFuncGetName cuDeviceGetLuid
cuMemGetAccess cuPointerGetAttributes cuLibraryLoadData cuKernelGetFunction cuLaunchKernelEx cuCtxGetFlags cuCtxSetFlags
cuStreamBeginCapture cuStreamIsCapturing cuThreadExchangeStreamCaptureMode cuMemcpyBatchAsync cuCtxRecordEvent""".split()
for f in funcs:
    for m in re.finditer(r'CUresult\s+CUDAAPI\s+' + f + r'\s*\([^;]*\);', src):
        print(re.sub(r'\s+', ' ', m.group(0)))
types = """CUdriverProcAddressQueryResult CUdriverProcAddress_flags CUmemPool_attribute CUmemPoolProps_v1 CUmemPoolPtrExportData_v1
CUmemLocationType CUmemAllocationHandleType CUmemAccess_flags CUfunction_attribute CUoccupancy_flags CUstreamCaptureMode CUjit_option CUmemLocation_v1
CUmemAllocationProp_v1 CUmemPoolProps CUmemPoolPtrExportData""".split()
for t in types:
    m = re.search(r'typedef\s+(enum|struct)\s+\w*\s*\{[^}]*\}\s*' + t + r'\s*;', src)
    if m: print(re.sub(r'/\*.*?\*/', '', m.group(0), flags=re.S))
for m in re.finditer(r'#define\s+(CU_GET_PROC_ADDRESS_\w+|CU_MEMPOOL_\w+|CU_STREAM_\w+|CU_IPC_\w+|CU_OCCUPANCY\w*)\s+(\S+)', src):
    print('#define', m.group(1), m.group(2))
PY
echo "decls=$(wc -l < "$out/api_decls.txt")"
