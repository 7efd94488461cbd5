"""Growing a buffer in place with CUDA's virtual memory calls, from Python, on vmgpu.

Run (after scripts/setup.sh and a build):
    LD_LIBRARY_PATH=build/sw/cuda .venv/bin/python examples/python/vmm_walkthrough.py
    VMGPU_TRACE=1 ...   # the same, with every PTE the driver writes

NVIDIA's own bindings (PyPI cuda-bindings) load vmgpu's libcuda.so.1 as they would load NVIDIA's:
they find every call through cuGetProcAddress. The cells below (# %%) read like a notebook: each
prints what it did. The output is committed beside this file (vmm_walkthrough.out) and checked
by ctest python_example_vmm_walkthrough.
"""
# %% The driver and the device
import numpy as np
from cuda.bindings import driver as cu


def ok(result):
    """A call's values, or an exception naming its CUresult."""
    result = result if isinstance(result, tuple) else (result,)
    if result[0] != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(result[0].name)
    return result[1] if len(result) == 2 else result[1:]


ok(cu.cuInit(0))
dev = ok(cu.cuDeviceGet(0))
ctx = ok(cu.cuCtxCreate(None, 0, dev))
print("driver version:", ok(cu.cuDriverGetVersion()))
print("device:", ok(cu.cuDeviceGetName(64, dev)).rstrip(b"\0 ").decode())

# %% What the allocation granularity is (the page is 4 KiB; a mapping's unit is larger)
prop = cu.CUmemAllocationProp()
prop.type = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
prop.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
prop.location.id = 0
gran = ok(cu.cuMemGetAllocationGranularity(prop, cu.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM))
print("allocation granularity: %d KiB" % (gran // 1024))

# %% Reserve room for 8 granules, but back only the first one with memory
reserved = 8 * gran
base = int(ok(cu.cuMemAddressReserve(reserved, 0, 0, 0)))
print("reserved [0x%x, 0x%x): %d KiB of addresses, no memory yet" % (base, base + reserved, reserved // 1024))
access = cu.CUmemAccessDesc()
access.location = prop.location
access.flags = cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
handles = []


def grow(to_granules):
    """Map new physical granules at the end of the buffer: its address never changes."""
    while len(handles) < to_granules:
        h = ok(cu.cuMemCreate(gran, prop, 0))
        va = base + len(handles) * gran
        ok(cu.cuMemMap(va, gran, 0, h, 0))
        ok(cu.cuMemSetAccess(va, gran, [access], 1))
        handles.append(h)
    print("buffer at 0x%x now %d KiB (%d granule%s mapped)"
          % (base, len(handles) * gran // 1024, len(handles), "" if len(handles) == 1 else "s"))


grow(1)
data = np.arange(gran // 4, dtype=np.uint32)
ok(cu.cuMemcpyHtoD(base, data, gran))

# %% Grow it to 3 granules: the data written before stays where it was
grow(3)
more = np.arange(gran // 4, 3 * gran // 4, dtype=np.uint32)
ok(cu.cuMemcpyHtoD(base + gran, more, 2 * gran))
back = np.zeros(3 * gran // 4, dtype=np.uint32)
ok(cu.cuMemcpyDtoH(back, base, 3 * gran))
print("read back 3 granules in one copy: values 0..%d in order: %s"
      % (back[-1], bool((back == np.arange(3 * gran // 4)).all())))

# %% What the driver reports about the memory
free_b, total = ok(cu.cuMemGetInfo())
print("device memory: %d KiB in use of %d KiB" % ((total - free_b) // 1024, total // 1024))
err = cu.cuMemMap(base, gran, 0, handles[0], 0)[0]
print("mapping over a mapped granule is refused:", err.name)

# %% Take it all down again
for i, h in enumerate(handles):
    ok(cu.cuMemUnmap(base + i * gran, gran))
    ok(cu.cuMemRelease(h))
ok(cu.cuMemAddressFree(base, reserved))
free_after = ok(cu.cuMemGetInfo())[0]
print("after teardown: %d KiB in use" % ((total - free_after) // 1024))
ok(cu.cuCtxDestroy(ctx))
