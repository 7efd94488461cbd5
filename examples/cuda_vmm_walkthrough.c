/*
 * cuda_vmm_walkthrough: the CUDA virtual memory management calls one at a time, on vmgpu.
 *
 * reserve -> create -> map -> set access -> kernel -> unmap -> release, with the CUDA driver
 * API only (NVIDIA's names and types; built against sw/include/cuda.h and vmgpu's libcuda.so).
 * Each step prints what it asked for and what the call answered. Run it with VMGPU_TRACE=1 to
 * see, under each call, the PTEs the driver wrote, the commands it queued and the TLB fills the
 * MMU reported (docs/lessons/02-cumemmap-all-the-way-down walks through that trace).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "vmgpu_builtin.h"

#define N 2048  /* int32 elements per array: 8 KiB, two 4 KiB pages */

static int failed;

/* Print the call and its answer; a call that does not answer `want` ends the walkthrough. */
static CUresult step(const char *what, CUresult rc, CUresult want)
{
    const char *name = "?";
    cuGetErrorName(rc, &name);
    printf("  %-58s -> %s\n", what, name);
    if (rc != want) {
        const char *wname = "?";
        cuGetErrorName(want, &wname);
        printf("FAILED: expected %s\n", wname);
        exit(1);
    }
    return rc;
}
#define CALL(call) step(#call, (call), CUDA_SUCCESS)

static const char *access_name(unsigned long long f)
{
    return f == CU_MEM_ACCESS_FLAGS_PROT_READWRITE ? "read-write"
         : f == CU_MEM_ACCESS_FLAGS_PROT_READ      ? "read-only"
         : f == CU_MEM_ACCESS_FLAGS_PROT_NONE      ? "none" : "?";
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    char name[64];
    size_t free_b, total_b;

    printf("0. device and context\n");
    CALL(cuInit(0));  /* opens the device VMGPU_DEVICE names (default: the simulated one) */
    CALL(cuDeviceGet(&dev, 0));
    CALL(cuDeviceGetName(name, sizeof name, dev));
    CALL(cuDevicePrimaryCtxRetain(&ctx, dev));
    CALL(cuCtxSetCurrent(ctx));
    CUmodule mod;
    CUfunction axpy;
    CALL(cuModuleLoadData(&mod, VMGPU_BUILTIN_IMAGE));
    CALL(cuModuleGetFunction(&axpy, mod, VMGPU_BUILTIN_AXPY_I32));
    CALL(cuMemGetInfo(&free_b, &total_b));
    printf("   device 0 \"%s\": %zu KiB total, %zu KiB free\n", name, total_b >> 10, free_b >> 10);

    /* Physical memory is described by a property block: pinned, on device 0. */
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t gran = 0;
    printf("1. granularity\n");
    CALL(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    printf("   allocation granularity %zu bytes (%zu KiB): every address, size and offset below is a "
           "multiple of it; the MMU page is 4 KiB, so one granule is %zu PTEs\n", gran, gran >> 10, gran / 4096);

    /* Reserve two granules of address space but back only the first: a reservation is only a
     * range nobody else gets; nothing is written into the page tables yet. */
    const size_t resv_size = 2 * gran, size = gran;
    CUdeviceptr va = 0;
    printf("2. reserve %zu KiB of virtual addresses\n", resv_size >> 10);
    CALL(cuMemAddressReserve(&va, resv_size, 0, 0, 0));
    printf("   VA [0x%08llx, 0x%08llx) reserved; no PTE written\n", (unsigned long long)va,
           (unsigned long long)(va + resv_size));

    printf("3. create %zu KiB of physical memory\n", size >> 10);
    CUmemGenericAllocationHandle h = 0;
    CALL(cuMemCreate(&h, size, &prop, 0));
    CALL(cuMemGetInfo(&free_b, &total_b));
    printf("   handle 0x%llx: %zu KiB of device memory, not yet visible at any address (%zu KiB free)\n",
           (unsigned long long)h, size >> 10, free_b >> 10);

    printf("4. map the handle at the start of the reservation\n");
    /* An address inside a granule is refused: mappings start on granule boundaries
     * (INVALID_VALUE for the whole allocation, as NVIDIA's driver answers). */
    step("cuMemMap(va + 4096, size, 0, h, 0)  [not granule-aligned]", cuMemMap(va + 4096, size, 0, h, 0),
         CUDA_ERROR_INVALID_VALUE);
    CALL(cuMemMap(va, size, 0, h, 0));
    unsigned long long acc = 99;
    CUmemLocation loc = {CU_MEM_LOCATION_TYPE_DEVICE, dev};
    CALL(cuMemGetAccess(&acc, &loc, va));
    printf("   VA 0x%08llx -> handle 0x%llx: %zu PTEs valid, access %s (the device may not touch it yet)\n",
           (unsigned long long)va, (unsigned long long)h, size / 4096, access_name(acc));
    if (acc != CU_MEM_ACCESS_FLAGS_PROT_NONE) failed = 1;

    printf("5. grant the device read-write access\n");
    CUmemAccessDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.location = loc;
    desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CALL(cuMemSetAccess(va, size, &desc, 1));
    CALL(cuMemGetAccess(&acc, &loc, va));
    printf("   access of VA 0x%08llx now %s: the same %zu PTEs rewritten with the R%s bits\n",
           (unsigned long long)va, access_name(acc), size / 4096, acc == CU_MEM_ACCESS_FLAGS_PROT_READWRITE ? " and W" : "");
    if (acc != CU_MEM_ACCESS_FLAGS_PROT_READWRITE) failed = 1;

    /* Three arrays of N int32 inside the one mapping: x at +0, y at +8 KiB, out at +16 KiB. */
    CUdeviceptr x = va, y = va + N * 4, out = va + 2 * N * 4;
    static int x_h[N], y_h[N], out_h[N];
    for (int i = 0; i < N; i++) {
        x_h[i] = i;
        y_h[i] = 1000000 - 7 * i;
    }
    printf("6. copy x and y in, run vmgpu_axpy_i32 (out = 3*x + y), copy out back\n");
    CALL(cuMemcpyHtoD(x, x_h, sizeof x_h));
    CALL(cuMemcpyHtoD(y, y_h, sizeof y_h));
    int n = N, scalar = 3;
    void *params[VMGPU_BUILTIN_NPARAMS] = {&out, &x, &y, &n, &scalar};
    CALL(cuLaunchKernel(axpy, N / 256, 1, 1, 256, 1, 1, 0, NULL, params, NULL));
    CALL(cuCtxSynchronize());
    CALL(cuMemcpyDtoH(out_h, out, sizeof out_h));
    int good = 0;
    for (int i = 0; i < N; i++)
        if (out_h[i] == 3 * x_h[i] + y_h[i]) good++;
    printf("   data check: %d of %d elements match 3*x + y (out[0] = %d, out[%d] = %d)\n", good, N, out_h[0],
           N - 1, out_h[N - 1]);
    if (good != N) failed = 1;

    printf("7. unmap\n");
    CALL(cuMemUnmap(va, size));
    step("cuMemGetAccess(&acc, &loc, va)  [after unmap]", cuMemGetAccess(&acc, &loc, va), CUDA_ERROR_INVALID_VALUE);
    /* The handle still holds the physical memory: only cuMemRelease gives it back. */
    CALL(cuMemGetInfo(&free_b, &total_b));
    printf("   VA [0x%08llx, +%zu KiB): PTEs invalid and the TLB entries of the range invalidated; the "
           "handle still owns its memory (%zu KiB free)\n", (unsigned long long)va, size >> 10, free_b >> 10);

    printf("8. release the handle and free the addresses\n");
    CALL(cuMemRelease(h));
    CALL(cuMemAddressFree(va, resv_size));
    size_t free_after;
    CALL(cuMemGetInfo(&free_after, &total_b));
    printf("   device memory free again: %zu KiB (%s)\n", free_after >> 10,
           free_after == free_b + size ? "the granule came back" : "MEMORY NOT RETURNED");
    if (free_after != free_b + size) failed = 1;

    CALL(cuModuleUnload(mod));
    CALL(cuDevicePrimaryCtxRelease(dev));
    printf(failed ? "walkthrough FAILED\n" : "walkthrough complete: every call answered as expected\n");
    return failed;
}
