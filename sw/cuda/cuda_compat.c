/*
 * The other exported names of the calls (sw/cuda/exports.txt): the unsuffixed names that
 * binaries built against old headers reference, with their old argument types (32-bit
 * CUdeviceptr and sizes: vmgpu's device addresses are 32-bit, so they lose nothing), and the
 * per-thread-default-stream names (_ptds/_ptsz). vmgpu's per-thread default stream is the
 * context's NULL stream: every stream of a context runs in order on the context's ring anyway.
 */
#include "cuda_internal.h"

typedef unsigned int dptr32;

/* Same arguments as the current export. */
#undef cuDeviceGetUuid
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) { return cuDeviceGetUuid_v2(uuid, dev); }
#undef cuDevicePrimaryCtxRelease
CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev) { return cuDevicePrimaryCtxRelease_v2(dev); }
#undef cuDevicePrimaryCtxReset
CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev) { return cuDevicePrimaryCtxReset_v2(dev); }
#undef cuDevicePrimaryCtxSetFlags
CUresult CUDAAPI cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int f) { return cuDevicePrimaryCtxSetFlags_v2(dev, f); }
#undef cuCtxCreate
CUresult CUDAAPI cuCtxCreate(CUcontext *p, unsigned int f, CUdevice d) { return cuCtxCreate_v2(p, f, d); }
#undef cuCtxDestroy
CUresult CUDAAPI cuCtxDestroy(CUcontext c) { return cuCtxDestroy_v2(c); }
#undef cuCtxPushCurrent
CUresult CUDAAPI cuCtxPushCurrent(CUcontext c) { return cuCtxPushCurrent_v2(c); }
#undef cuCtxPopCurrent
CUresult CUDAAPI cuCtxPopCurrent(CUcontext *c) { return cuCtxPopCurrent_v2(c); }
#undef cuMemHostRegister
CUresult CUDAAPI cuMemHostRegister(void *p, size_t n, unsigned int f) { return cuMemHostRegister_v2(p, n, f); }
#undef cuStreamDestroy
CUresult CUDAAPI cuStreamDestroy(CUstream s) { return cuStreamDestroy_v2(s); }
#undef cuEventDestroy
CUresult CUDAAPI cuEventDestroy(CUevent e) { return cuEventDestroy_v2(e); }

CUresult CUDAAPI cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params, unsigned int flags, CUdevice dev)
{
    if (params && (params->numExecAffinityParams || params->execAffinityParams || params->cigParams))
        return CUDA_ERROR_NOT_SUPPORTED;
    return cuCtxCreate_v2(pctx, flags, dev);
}

/* Old 32-bit forms. */
#undef cuDeviceTotalMem
CUresult CUDAAPI cuDeviceTotalMem(unsigned int *bytes, CUdevice dev)
{
    size_t b;
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = cuDeviceTotalMem_v2(&b, dev);
    if (!rc) *bytes = (unsigned int)b;
    return rc;
}
#undef cuMemGetInfo
CUresult CUDAAPI cuMemGetInfo(unsigned int *free_b, unsigned int *total)
{
    size_t f, t;
    if (!free_b || !total) return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = cuMemGetInfo_v2(&f, &t);
    if (!rc) {
        *free_b = (unsigned int)f;
        *total = (unsigned int)t;
    }
    return rc;
}
#undef cuMemAlloc
CUresult CUDAAPI cuMemAlloc(dptr32 *dptr, unsigned int bytes)
{
    CUdeviceptr d;
    if (!dptr) return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = cuMemAlloc_v2(&d, bytes);
    if (!rc) *dptr = (dptr32)d;
    return rc;
}
#undef cuMemFree
CUresult CUDAAPI cuMemFree(dptr32 d) { return cuMemFree_v2(d); }
#undef cuMemGetAddressRange
CUresult CUDAAPI cuMemGetAddressRange(dptr32 *pbase, unsigned int *psize, dptr32 d)
{
    CUdeviceptr b;
    size_t s;
    CUresult rc = cuMemGetAddressRange_v2(&b, &s, d);
    if (!rc) {
        if (pbase) *pbase = (dptr32)b;
        if (psize) *psize = (unsigned int)s;
    }
    return rc;
}
#undef cuMemAllocHost
CUresult CUDAAPI cuMemAllocHost(void **pp, unsigned int bytes) { return cuMemAllocHost_v2(pp, bytes); }
#undef cuMemHostGetDevicePointer
CUresult CUDAAPI cuMemHostGetDevicePointer(dptr32 *pd, void *p, unsigned int f)
{
    CUdeviceptr d;
    if (!pd) return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = cuMemHostGetDevicePointer_v2(&d, p, f);
    if (!rc) *pd = (dptr32)d;
    return rc;
}
#undef cuMemcpyHtoD
CUresult CUDAAPI cuMemcpyHtoD(dptr32 d, const void *s, unsigned int n) { return cuMemcpyHtoD_v2(d, s, n); }
#undef cuMemcpyDtoH
CUresult CUDAAPI cuMemcpyDtoH(void *d, dptr32 s, unsigned int n) { return cuMemcpyDtoH_v2(d, s, n); }
#undef cuMemcpyDtoD
CUresult CUDAAPI cuMemcpyDtoD(dptr32 d, dptr32 s, unsigned int n) { return cuMemcpyDtoD_v2(d, s, n); }
#undef cuMemcpyHtoDAsync
CUresult CUDAAPI cuMemcpyHtoDAsync(dptr32 d, const void *s, unsigned int n, CUstream st)
{
    return cuMemcpyHtoDAsync_v2(d, s, n, st);
}
#undef cuMemcpyDtoHAsync
CUresult CUDAAPI cuMemcpyDtoHAsync(void *d, dptr32 s, unsigned int n, CUstream st)
{
    return cuMemcpyDtoHAsync_v2(d, s, n, st);
}
#undef cuMemcpyDtoDAsync
CUresult CUDAAPI cuMemcpyDtoDAsync(dptr32 d, dptr32 s, unsigned int n, CUstream st)
{
    return cuMemcpyDtoDAsync_v2(d, s, n, st);
}
#undef cuMemsetD8
CUresult CUDAAPI cuMemsetD8(dptr32 d, unsigned char v, unsigned int n) { return cuMemsetD8_v2(d, v, n); }
#undef cuMemsetD16
CUresult CUDAAPI cuMemsetD16(dptr32 d, unsigned short v, unsigned int n) { return cuMemsetD16_v2(d, v, n); }
#undef cuMemsetD32
CUresult CUDAAPI cuMemsetD32(dptr32 d, unsigned int v, unsigned int n) { return cuMemsetD32_v2(d, v, n); }

/* Per-thread default stream names. */
CUresult CUDAAPI cuMemcpy_ptds(CUdeviceptr d, CUdeviceptr s, size_t n) { return cuMemcpy(d, s, n); }
CUresult CUDAAPI cuMemcpyHtoD_v2_ptds(CUdeviceptr d, const void *s, size_t n) { return cuMemcpyHtoD_v2(d, s, n); }
CUresult CUDAAPI cuMemcpyDtoH_v2_ptds(void *d, CUdeviceptr s, size_t n) { return cuMemcpyDtoH_v2(d, s, n); }
CUresult CUDAAPI cuMemcpyDtoD_v2_ptds(CUdeviceptr d, CUdeviceptr s, size_t n) { return cuMemcpyDtoD_v2(d, s, n); }
CUresult CUDAAPI cuMemcpyAsync_ptsz(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st)
{
    return cuMemcpyAsync(d, s, n, st);
}
CUresult CUDAAPI cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr d, const void *s, size_t n, CUstream st)
{
    return cuMemcpyHtoDAsync_v2(d, s, n, st);
}
CUresult CUDAAPI cuMemcpyDtoHAsync_v2_ptsz(void *d, CUdeviceptr s, size_t n, CUstream st)
{
    return cuMemcpyDtoHAsync_v2(d, s, n, st);
}
CUresult CUDAAPI cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st)
{
    return cuMemcpyDtoDAsync_v2(d, s, n, st);
}
CUresult CUDAAPI cuMemsetD8_v2_ptds(CUdeviceptr d, unsigned char v, size_t n) { return cuMemsetD8_v2(d, v, n); }
CUresult CUDAAPI cuMemsetD16_v2_ptds(CUdeviceptr d, unsigned short v, size_t n) { return cuMemsetD16_v2(d, v, n); }
CUresult CUDAAPI cuMemsetD32_v2_ptds(CUdeviceptr d, unsigned int v, size_t n) { return cuMemsetD32_v2(d, v, n); }
CUresult CUDAAPI cuMemsetD8Async_ptsz(CUdeviceptr d, unsigned char v, size_t n, CUstream st)
{
    return cuMemsetD8Async(d, v, n, st);
}
CUresult CUDAAPI cuMemsetD16Async_ptsz(CUdeviceptr d, unsigned short v, size_t n, CUstream st)
{
    return cuMemsetD16Async(d, v, n, st);
}
CUresult CUDAAPI cuMemsetD32Async_ptsz(CUdeviceptr d, unsigned int v, size_t n, CUstream st)
{
    return cuMemsetD32Async(d, v, n, st);
}
