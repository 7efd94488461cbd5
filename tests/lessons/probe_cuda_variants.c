/*
 * lesson_probe_cuda: lesson 02's "Try this" changes on a copy of examples/cuda_vmm_walkthrough's
 * steps, so that their answers (docs/lessons/answers.md) come from a run.
 *   lesson_probe_cuda read_only     cuMemSetAccess with CU_MEM_ACCESS_FLAGS_PROT_READ, then
 *                                   cuMemcpyHtoD into the range
 *   lesson_probe_cuda out_unmapped  the kernel's out pointer at va + size (reserved, not mapped)
 *   lesson_probe_cuda sixteen       16 granules mapped at once: link round trips per call
 * Run with VMGPU_TRACE=1 for the PTE_FILL lines. Output: "key value" lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "vmgpu_builtin.h"
#include "vmgpu_cuda_internal.h"

static const char *name(CUresult r)
{
    const char *n = "?";
    cuGetErrorName(r, &n);
    return n;
}

#define TRY(call) do { CUresult rc_ = (call); if (rc_) { printf("FAILED: %s -> %s\n", #call, name(rc_)); return 1; } } while (0)

int main(int argc, char **argv)
{
    const char *v = argc > 1 ? argv[1] : "";
    if (strcmp(v, "read_only") && strcmp(v, "out_unmapped") && strcmp(v, "sixteen")) {
        fprintf(stderr, "usage: %s read_only|out_unmapped|sixteen\n", argv[0]);
        return 2;
    }
    CUdevice dev;
    CUcontext ctx;
    TRY(cuInit(0));
    TRY(cuDeviceGet(&dev, 0));
    TRY(cuDevicePrimaryCtxRetain(&ctx, dev));
    TRY(cuCtxSetCurrent(ctx));
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    size_t gran;
    TRY(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    size_t granules = strcmp(v, "sixteen") ? 1 : 16;
    size_t size = granules * gran, resv = 2 * size;
    CUdeviceptr va;
    CUmemGenericAllocationHandle h;
    TRY(cuMemAddressReserve(&va, resv, 0, 0, 0));
    TRY(cuMemCreate(&h, size, &prop, 0));
    vmgpu_dev *cd = vmgpu_cuda_core_device();
    uint64_t r0 = vmgpu_dev_hal(cd)->round_trips;
    TRY(cuMemMap(va, size, 0, h, 0));
    uint64_t r1 = vmgpu_dev_hal(cd)->round_trips;
    CUmemAccessDesc acc = {{CU_MEM_LOCATION_TYPE_DEVICE, 0},
                           strcmp(v, "read_only") ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE : CU_MEM_ACCESS_FLAGS_PROT_READ};
    TRY(cuMemSetAccess(va, size, &acc, 1));
    uint64_t r2 = vmgpu_dev_hal(cd)->round_trips;
    printf("granules %zu\n", granules);
    printf("map_round_trips %llu\n", (unsigned long long)(r1 - r0));
    printf("setaccess_round_trips %llu\n", (unsigned long long)(r2 - r1));
    static int x[2048];
    if (!strcmp(v, "read_only")) {
        CUresult r = cuMemcpyHtoD(va, x, sizeof x);
        printf("htod_into_read_only %s\n", name(r));
        int back[4] = {0};
        r = cuMemcpyDtoH(back, va, sizeof back);
        printf("dtoh_from_read_only %s\n", name(r));
    } else if (!strcmp(v, "out_unmapped")) {
        CUmodule mod;
        CUfunction axpy;
        TRY(cuModuleLoadData(&mod, VMGPU_BUILTIN_IMAGE));
        TRY(cuModuleGetFunction(&axpy, mod, VMGPU_BUILTIN_AXPY_I32));
        CUdeviceptr out = va + size, a = va, b = va + 8192;
        int n = 2048, s = 3;
        void *params[] = {&out, &a, &b, &n, &s};
        CUresult r = cuLaunchKernel(axpy, 8, 1, 1, 256, 1, 1, 0, NULL, params, NULL);
        printf("launch %s\n", name(r));
        r = cuCtxSynchronize();
        printf("synchronize %s\n", name(r));
        r = cuMemcpyDtoH(x, va, 16);
        printf("later_memcpy %s\n", name(r));
        r = cuCtxSynchronize();
        printf("later_synchronize %s\n", name(r));
    }
    printf("lesson_probe_cuda: done\n");
    return 0;
}
