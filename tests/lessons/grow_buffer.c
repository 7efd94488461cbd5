/*
 * lesson_grow_buffer: a buffer that grows from 1 to 8 granules, twice (docs/lessons/06-growing-a-
 * buffer-in-place):
 *   - the old way: cuMemAlloc of the new size, cuMemcpyDtoD of the old contents, cuMemFree of the
 *     old buffer; the pointer changes at every step and the copy grows with the buffer;
 *   - in place: cuMemAddressReserve of the largest size once, then for every step cuMemCreate of
 *     the new granules, cuMemMap right after the mapped part and cuMemSetAccess of the new
 *     range; the pointer stays, nothing is copied, and a step costs the same whatever the size.
 * Each step is measured in device cycles (the cycle counter of libcuda's device, read between
 * the calls, as vmgpu-bench does) and link round trips; the first granule's contents are checked
 * after the last step. Output: one "step" line per step and method, and a summary.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "vmgpu_cuda_internal.h"

#define MAX_STEPS 8
static int by_one; /* --by-one: grow one granule at a time (1, 2, ... 8) instead of doubling */
static size_t next_size(size_t size, size_t gran) { return by_one ? size + gran : 2 * size; }

static vmgpu_dev *cdev;

static void die(const char *what, CUresult rc)
{
    const char *n = "?";
    cuGetErrorName(rc, &n);
    fprintf(stderr, "lesson_grow_buffer: %s: %s\n", what, n);
    exit(1);
}
#define TRY(call) do { CUresult rc_ = (call); if (rc_ != CUDA_SUCCESS) die(#call, rc_); } while (0)

static uint64_t cycles(void)
{
    uint64_t c = 0;
    vmgpu_dev_cycles(cdev, &c);
    return c;
}

static uint64_t round_trips(void)
{
    return vmgpu_dev_hal(cdev)->round_trips;
}

int main(int argc, char **argv)
{
    by_one = argc > 1 && !strcmp(argv[1], "--by-one");
    CUdevice dev;
    CUcontext ctx;
    TRY(cuInit(0));
    TRY(cuDeviceGet(&dev, 0));
    TRY(cuDevicePrimaryCtxRetain(&ctx, dev));
    TRY(cuCtxSetCurrent(ctx));
    cdev = vmgpu_cuda_core_device();
    if (!cdev) die("vmgpu_cuda_core_device", CUDA_ERROR_NOT_INITIALIZED);
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran;
    TRY(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    printf("granularity: %zu KiB; the buffer grows %s to 8 granules (%zu -> %zu KiB)\n", gran / 1024,
           by_one ? "one granule at a time" : "1 -> 2 -> 4 -> 8 granules, doubling,", gran / 1024, 8 * gran / 1024);
    /* What the first granule holds: checked after the last step. */
    static unsigned char pattern[65536 * 4];
    if (gran > sizeof pattern) die("granule larger than the test pattern", CUDA_ERROR_INVALID_VALUE);
    for (size_t i = 0; i < gran; i++) pattern[i] = (unsigned char)(i * 7 + 3);
    uint64_t overhead = cycles(), t0 = cycles();
    overhead = t0 - overhead;  /* one counter read */

    /* The old way. */
    CUdeviceptr buf;
    size_t size = gran;
    TRY(cuMemAlloc(&buf, size));
    TRY(cuMemcpyHtoD(buf, pattern, gran));
    uint64_t total_copy = 0;
    printf("alloc+copy: start with %zu KiB at 0x%llx\n", size / 1024, (unsigned long long)buf);
    int steps = 0;
    for (; size < 8 * gran; steps++) {
        size_t nsize = next_size(size, gran);
        CUdeviceptr nbuf;
        uint64_t c0 = cycles(), r0 = round_trips();
        TRY(cuMemAlloc(&nbuf, nsize));
        TRY(cuMemcpyDtoD(nbuf, buf, size));
        TRY(cuMemFree(buf));
        uint64_t c = cycles() - c0 - overhead, r = round_trips() - r0;
        total_copy += c;
        printf("step alloc+copy %zu -> %zu KiB: %llu cycles, %llu link round trips, pointer 0x%llx -> 0x%llx "
               "(%zu KiB copied)\n", size / 1024, nsize / 1024, (unsigned long long)c, (unsigned long long)r,
               (unsigned long long)buf, (unsigned long long)nbuf, size / 1024);
        buf = nbuf;
        size = nsize;
    }
    static unsigned char back[65536 * 4];
    TRY(cuMemcpyDtoH(back, buf, gran));
    int copy_ok = !memcmp(back, pattern, gran);
    TRY(cuMemFree(buf));

    /* In place. */
    CUdeviceptr va;
    size_t max = 8 * gran;
    TRY(cuMemAddressReserve(&va, max, 0, 0, 0));
    CUmemAccessDesc rw = {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    CUmemGenericAllocationHandle h[MAX_STEPS];
    size_t hoff[MAX_STEPS], hsize[MAX_STEPS];
    int nh = 1;
    hoff[0] = 0;
    hsize[0] = gran;
    TRY(cuMemCreate(&h[0], gran, &prop, 0));
    TRY(cuMemMap(va, gran, 0, h[0], 0));
    TRY(cuMemSetAccess(va, gran, &rw, 1));
    TRY(cuMemcpyHtoD(va, pattern, gran));
    printf("in place: reserve %zu KiB at 0x%llx, map the first %zu KiB\n", max / 1024, (unsigned long long)va,
           gran / 1024);
    uint64_t total_map = 0;
    size = gran;
    while (size < 8 * gran) {
        size_t add = next_size(size, gran) - size;
        int k = nh++;
        hoff[k] = size;
        hsize[k] = add;
        uint64_t c0 = cycles(), r0 = round_trips();
        TRY(cuMemCreate(&h[k], add, &prop, 0));
        TRY(cuMemMap(va + size, add, 0, h[k], 0));
        TRY(cuMemSetAccess(va + size, add, &rw, 1));
        uint64_t c = cycles() - c0 - overhead, r = round_trips() - r0;
        total_map += c;
        printf("step in place %zu -> %zu KiB: %llu cycles, %llu link round trips, pointer 0x%llx unchanged "
               "(%zu KiB mapped, 0 copied)\n", size / 1024, (size + add) / 1024, (unsigned long long)c,
               (unsigned long long)r, (unsigned long long)va, add / 1024);
        size += add;
    }
    TRY(cuMemcpyDtoH(back, va, gran));
    int map_ok = !memcmp(back, pattern, gran);
    /* The whole range is one buffer now: a copy across the granules' seams works. */
    TRY(cuMemsetD32(va, 0x5eed5eed, size / 4));
    uint32_t last = 0;
    TRY(cuMemcpyDtoH(&last, va + size - 4, 4));
    for (int k = 0; k < nh; k++) {
        TRY(cuMemUnmap(va + hoff[k], hsize[k]));
        TRY(cuMemRelease(h[k]));
    }
    TRY(cuMemAddressFree(va, max));
    printf("first granule after growing: alloc+copy %s, in place %s; one cuMemsetD32 over all %zu KiB in place: "
           "last word 0x%08x\n", copy_ok ? "intact" : "CHANGED", map_ok ? "intact" : "CHANGED", max / 1024, last);
    printf("total over %d steps: alloc+copy %llu cycles, in place %llu cycles (%.1fx)\n", steps,
           (unsigned long long)total_copy, (unsigned long long)total_map, total_map ? (double)total_copy / (double)total_map : 0.0);
    TRY(cuDevicePrimaryCtxRelease(dev));
    printf("lesson_grow_buffer: %s\n", copy_ok && map_ok && last == 0x5eed5eed ? "done" : "FAILED");
    return copy_ok && map_ok ? 0 : 1;
}
