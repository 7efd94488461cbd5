/*
 * cuda_vector_add: c = a + b, written the way CUDA programs that manage their own memory with
 * cuMemMap are written (NVIDIA's vectorAddMMAP sample is the classic): one helper allocates
 * (cuMemCreate + cuMemAddressReserve + cuMemMap + cuMemSetAccess), another frees in reverse
 * order; the kernel is vmgpu's built-in vmgpu_add_i32. Only the CUDA driver API is used, so the
 * same source builds against NVIDIA's cuda.h (with a kernel of your own in place of the
 * built-in module). VMGPU_TRACE=1 shows the PTEs each helper writes and the TLB fills of the
 * kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "vmgpu_builtin.h"

#define N 50000  /* elements: 195.3 KiB per array, not a multiple of the granularity */

#define CHECK(call) do { CUresult rc_ = (call); if (rc_ != CUDA_SUCCESS) { const char *n_ = "?"; \
    cuGetErrorName(rc_, &n_); printf("FAILED: %s -> %s (line %d)\n", #call, n_, __LINE__); exit(1); } } while (0)

/* Round size up to the allocation granularity: cuMemCreate, cuMemAddressReserve and cuMemMap
 * take whole granules only. */
static size_t round_to_granularity(size_t size, CUdevice dev)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t gran = 0;
    CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    return (size + gran - 1) / gran * gran;
}

/* Device memory the cuMemMap way: physical memory, a VA range, the mapping, then access.
 * The handle can be released as soon as it is mapped: the mapping keeps the memory alive. */
static CUdeviceptr simple_malloc(size_t size, CUdevice dev, size_t *mapped)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t bytes = round_to_granularity(size, dev);
    CUmemGenericAllocationHandle h;
    CUdeviceptr ptr;
    CHECK(cuMemCreate(&h, bytes, &prop, 0));
    CHECK(cuMemAddressReserve(&ptr, bytes, 0, 0, 0));
    CHECK(cuMemMap(ptr, bytes, 0, h, 0));
    CHECK(cuMemRelease(h));
    CUmemAccessDesc acc;
    memset(&acc, 0, sizeof acc);
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK(cuMemSetAccess(ptr, bytes, &acc, 1));
    printf("simple_malloc(%zu): %zu KiB (%zu granules, %zu pages) at VA 0x%08llx, handle 0x%llx (released, "
           "kept alive by the mapping)\n", size, bytes >> 10, bytes / (64 << 10), bytes / 4096,
           (unsigned long long)ptr, (unsigned long long)h);
    *mapped = bytes;
    return ptr;
}

/* Reverse order: unmap (the last reference frees the physical memory), then the addresses. */
static void simple_free(CUdeviceptr ptr, size_t mapped)
{
    CHECK(cuMemUnmap(ptr, mapped));
    CHECK(cuMemAddressFree(ptr, mapped));
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate(&ctx, NULL, 0, dev));
    CUmodule mod;
    CUfunction add;
    CHECK(cuModuleLoadData(&mod, VMGPU_BUILTIN_IMAGE));
    CHECK(cuModuleGetFunction(&add, mod, VMGPU_BUILTIN_ADD_I32));

    size_t bytes = N * sizeof(int), free0 = 0, free1 = 0, total;
    int *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    if (!a || !b || !c) return 1;
    for (int i = 0; i < N; i++) {
        a[i] = rand() - RAND_MAX / 2;
        b[i] = rand() - RAND_MAX / 2;
    }
    size_t ma, mb, mc;
    CUdeviceptr da = simple_malloc(bytes, dev, &ma);
    CUdeviceptr db = simple_malloc(bytes, dev, &mb);
    CUdeviceptr dc = simple_malloc(bytes, dev, &mc);

    CHECK(cuMemcpyHtoD(da, a, bytes));
    CHECK(cuMemcpyHtoD(db, b, bytes));
    int n = N, unused = 0;
    void *args[VMGPU_BUILTIN_NPARAMS] = {&dc, &da, &db, &n, &unused};
    unsigned threads = 256, blocks = (N + threads - 1) / threads;
    CHECK(cuLaunchKernel(add, blocks, 1, 1, threads, 1, 1, 0, NULL, args, NULL));
    CHECK(cuCtxSynchronize());
    printf("vmgpu_add_i32 launched with %u blocks of %u threads for %d elements\n", blocks, threads, N);
    CHECK(cuMemcpyDtoH(c, dc, bytes));
    /* Taken after the launch: the first launch also gives the context its kernel-argument
     * granule, which lives as long as the context. */
    CHECK(cuMemGetInfo(&free0, &total));

    int wrong = 0;
    for (int i = 0; i < N; i++)
        if (c[i] != (int)((unsigned)a[i] + (unsigned)b[i])) {
            if (wrong < 5) printf("  c[%d] = %d, expected %d\n", i, c[i], (int)((unsigned)a[i] + (unsigned)b[i]));
            wrong++;
        }
    printf("result: %d of %d sums %s\n", N - wrong, N, wrong ? "correct, RESULT WRONG" : "correct (c = a + b)");

    simple_free(dc, mc);
    simple_free(db, mb);
    simple_free(da, ma);
    CHECK(cuMemGetInfo(&free1, &total));
    size_t want = free0 + ma + mb + mc;
    printf("freed in reverse order: %zu KiB free before, %zu KiB after (%s)\n", free0 >> 10, free1 >> 10,
           free1 == want ? "all three allocations came back" : "MEMORY LEAKED");
    CHECK(cuModuleUnload(mod));
    CHECK(cuCtxDestroy(ctx));
    free(a);
    free(b);
    free(c);
    int ok = !wrong && free1 == want;
    printf(ok ? "vector add PASSED\n" : "vector add FAILED\n");
    return ok ? 0 : 1;
}
