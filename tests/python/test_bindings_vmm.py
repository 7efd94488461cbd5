"""NVIDIA's cuda-bindings (PyPI) drive vmgpu's libcuda: driver version, entry points, a whole VMM
flow with data checked through two mappings, streams and events, and refused calls that change
nothing."""
import numpy as np
from cuda.bindings import driver as cu

from vmgpu_pytest import check, expect, ok, run

R = cu.CUresult


def setup():
    ok(cu.cuInit(0), "cuInit")
    dev = ok(cu.cuDeviceGet(0))
    ctx = ok(cu.cuCtxCreate(None, 0, dev), "cuCtxCreate")
    return dev, ctx


def prop_for(dev):
    p = cu.CUmemAllocationProp()
    p.type = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    p.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    p.location.id = int(dev)
    return p


def rw_desc(dev):
    d = cu.CUmemAccessDesc()
    d.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    d.location.id = int(dev)
    d.flags = cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
    return d


def driver_and_entry_points():
    ok(cu.cuInit(0))
    check("cuDriverGetVersion is 13000", ok(cu.cuDriverGetVersion()) == 13000)
    err, pfn, status = cu.cuGetProcAddress(b"cuMemMap", 13000, 0)
    check("cuGetProcAddress(cuMemMap) found", err == R.CUDA_SUCCESS and pfn != 0 and
          status == cu.CUdriverProcAddressQueryResult.CU_GET_PROC_ADDRESS_SUCCESS)
    err, pfn, status = cu.cuGetProcAddress(b"cuMemMap", 10000, 0)
    check("cuGetProcAddress(cuMemMap, 10000): version not sufficient", err == R.CUDA_SUCCESS and pfn == 0 and
          status == cu.CUdriverProcAddressQueryResult.CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT)
    err, pfn, status = cu.cuGetProcAddress(b"cuNoSuchCall", 13000, 0)
    check("cuGetProcAddress(unknown name): symbol not found", err == R.CUDA_SUCCESS and pfn == 0 and
          status == cu.CUdriverProcAddressQueryResult.CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND)
    expect("cuGetProcAddress(cuInit, 13010)", cu.cuGetProcAddress(b"cuInit", 13010, 0), R.CUDA_ERROR_INVALID_VALUE)
    name = ok(cu.cuDeviceGetName(64, ok(cu.cuDeviceGet(0))))
    check("device name says vmgpu", name.startswith(b"vmgpu"), name)


def vmm_flow():
    dev, ctx = setup()
    prop = prop_for(dev)
    gran = ok(cu.cuMemGetAllocationGranularity(
        prop, cu.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM))
    check("granularity is 64 KiB", gran == 65536, gran)
    free0, total = ok(cu.cuMemGetInfo())
    size = 2 * gran
    h = ok(cu.cuMemCreate(size, prop, 0), "cuMemCreate")
    va = ok(cu.cuMemAddressReserve(2 * size, 0, 0, 0), "cuMemAddressReserve")
    va2 = int(va) + size
    ok(cu.cuMemMap(va, size, 0, h, 0), "cuMemMap")
    ok(cu.cuMemMap(va2, size, 0, h, 0), "cuMemMap (alias)")
    ok(cu.cuMemSetAccess(va, 2 * size, [rw_desc(dev)], 1), "cuMemSetAccess")
    flags = ok(cu.cuMemGetAccess(rw_desc(dev).location, va))
    check("cuMemGetAccess says read-write", flags == int(cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE))
    a = (np.arange(size // 4, dtype=np.uint32) * 2654435761).astype(np.uint32)
    ok(cu.cuMemcpyHtoD(va, a, size), "cuMemcpyHtoD")
    b = np.zeros_like(a)
    ok(cu.cuMemcpyDtoH(b, va2, size), "cuMemcpyDtoH (alias)")
    check("data written through one mapping reads back through the other", (a == b).all())
    ok(cu.cuMemsetD32(va2 + 4096, 0xdeadbeef, 16))
    ok(cu.cuMemcpyDtoH(b, va, size))
    check("a fill through the alias is seen through the first mapping",
          (b[1024:1040] == 0xdeadbeef).all() and b[1040] == a[1040])
    used = ok(cu.cuMemGetInfo())[0]
    check("the allocation is counted by cuMemGetInfo", free0 - used >= size, (free0, used))
    # Refused calls leave everything as it was.
    # (which error depends on the state: docs/cuda.md, "VMM answers by state")
    check("cuMemMap over a mapped range is refused", cu.cuMemMap(va, size, 0, h, 0)[0] != R.CUDA_SUCCESS)
    expect("cuMemUnmap of a part of a mapping", cu.cuMemUnmap(va, gran), R.CUDA_ERROR_INVALID_VALUE)
    expect("cuMemCreate of size 0", cu.cuMemCreate(0, prop, 0), R.CUDA_ERROR_INVALID_VALUE)
    ok(cu.cuMemcpyDtoH(b, va, size))
    check("memory unchanged after the refused calls", b[0] == a[0] and b[-1] == a[-1])
    ok(cu.cuMemUnmap(va, size))
    ok(cu.cuMemUnmap(va2, size))
    ok(cu.cuMemRelease(h))
    ok(cu.cuMemAddressFree(va, 2 * size))
    check("teardown gives the memory back", ok(cu.cuMemGetInfo())[0] == free0)
    expect("cuMemRelease of a released handle", cu.cuMemRelease(h), R.CUDA_ERROR_INVALID_VALUE)
    ok(cu.cuCtxDestroy(ctx))


def streams_and_events():
    dev, ctx = setup()
    n = 1 << 18
    d = ok(cu.cuMemAlloc(n), "cuMemAlloc")
    host = ok(cu.cuMemAllocHost(n), "cuMemAllocHost")
    hview = np.ctypeslib.as_array((np.ctypeslib.ctypes.c_uint8 * n).from_address(int(host)))
    hview[:] = np.arange(n) % 253
    s = ok(cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate")
    check("cuStreamGetCtx names the context", int(ok(cu.cuStreamGetCtx(s))) == int(ctx))
    least, greatest = ok(cu.cuCtxGetStreamPriorityRange())
    check("stream priority range of a device without priorities is 0..0", (least, greatest) == (0, 0))
    e0 = ok(cu.cuEventCreate(0))
    e1 = ok(cu.cuEventCreate(0))
    ok(cu.cuEventRecord(e0, s))
    ok(cu.cuMemcpyHtoDAsync(d, host, n, s))
    ok(cu.cuMemsetD8Async(d, 0x5a, 1000, s))
    ok(cu.cuEventRecord(e1, s))
    ok(cu.cuEventSynchronize(e1))
    expect("cuStreamQuery after the last event", cu.cuStreamQuery(s), R.CUDA_SUCCESS)
    ms = ok(cu.cuEventElapsedTime(e0, e1))
    check("elapsed time is positive", ms > 0, ms)
    back = np.zeros(n, dtype=np.uint8)
    ok(cu.cuMemcpyDtoH(back, d, n))
    check("async copy then fill, in stream order", (back[:1000] == 0x5a).all() and
          (back[1000:] == hview[1000:]).all())
    expect("cuEventElapsedTime with a destroyed event",
           (ok(cu.cuEventDestroy(e1)), cu.cuEventElapsedTime(e0, e1))[1], R.CUDA_ERROR_INVALID_HANDLE)
    ok(cu.cuEventDestroy(e0))
    ok(cu.cuStreamDestroy(s))
    ok(cu.cuMemFreeHost(host))
    ok(cu.cuMemFree(d))
    ok(cu.cuCtxDestroy(ctx))


if __name__ == "__main__":
    run([driver_and_entry_points, vmm_flow, streams_and_events])
