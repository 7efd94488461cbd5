/*
 * external_memory: one piece of device memory seen through two CUDA contexts.
 *
 * Context A makes an exportable allocation (cuMemCreate with POSIX_FILE_DESCRIPTOR), maps it and
 * exports it as a file descriptor. Context B imports that fd as external memory, maps a buffer
 * over part of it (at an offset) and a mipmapped array over another part. Nothing is copied:
 * both contexts' page tables point at the same physical pages, so what one writes the other
 * reads. Run with VMGPU_TRACE=1 to see the PTEs each mapping writes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#define CK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { const char *n_ = "?"; \
    cuGetErrorName(r_, &n_); printf("FAILED: %s -> %s\n", #call, n_); exit(1); } } while (0)

int main(void)
{
    CUdevice dev;
    CUcontext a, b;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuCtxCreate(&a, NULL, 0, dev));
    CK(cuCtxCreate(&b, NULL, 0, dev));

    /* Context A: an exportable allocation of 4 granules, mapped read-write. */
    CK(cuCtxSetCurrent(a));
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t gran;
    CK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    size_t size = 4 * gran;
    CUmemGenericAllocationHandle h;
    CUdeviceptr va;
    CK(cuMemCreate(&h, size, &prop, 0));
    CK(cuMemAddressReserve(&va, size, 0, 0, 0));
    CK(cuMemMap(va, size, 0, h, 0));
    CUmemAccessDesc acc;
    memset(&acc, 0, sizeof acc);
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CK(cuMemSetAccess(va, size, &acc, 1));
    printf("context A: cuMemCreate %zu bytes, mapped at VA 0x%llx\n", size, (unsigned long long)va);
    int fd = -1;
    CK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    printf("context A: exported as file descriptor %d\n", fd);

    /* Context B: import the fd; the driver owns it from now on. */
    CK(cuCtxSetCurrent(b));
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC hd;
    memset(&hd, 0, sizeof hd);
    hd.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
    hd.handle.fd = fd;
    hd.size = size;
    CUexternalMemory ext;
    CK(cuImportExternalMemory(&ext, &hd));
    printf("context B: cuImportExternalMemory(OPAQUE_FD %d, %zu bytes): the driver owns the fd now\n", fd, size);

    /* A buffer over the second granule. */
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC bd;
    memset(&bd, 0, sizeof bd);
    bd.offset = gran;
    bd.size = gran;
    CUdeviceptr buf;
    CK(cuExternalMemoryGetMappedBuffer(&buf, ext, &bd));
    printf("context B: buffer over [+%zu, +%zu) mapped at VA 0x%llx (same physical pages, no copy)\n", gran,
           2 * gran, (unsigned long long)buf);

    /* B writes through its buffer, A reads at its own address. */
    const int n = 1024;
    int *w = malloc(n * sizeof *w), *r = malloc(n * sizeof *r);
    for (int i = 0; i < n; i++) w[i] = i * 7 - 3;
    CK(cuMemcpyHtoD(buf, w, n * sizeof *w));
    CK(cuCtxSetCurrent(a));
    memset(r, 0, n * sizeof *r);
    CK(cuMemcpyDtoH(r, va + gran, n * sizeof *r));
    int same = 0;
    for (int i = 0; i < n; i++) same += r[i] == w[i];
    printf("B wrote %d ints through the buffer; A read them at VA 0x%llx: %d of %d match\n", n,
           (unsigned long long)(va + gran), same, n);

    /* A writes, B reads. */
    CK(cuMemsetD32(va + gran + 64, 0x0badcafe, 4));
    CK(cuCtxSetCurrent(b));
    unsigned back[4] = {0};
    CK(cuMemcpyDtoH(back, buf + 64, sizeof back));
    printf("A filled 4 words with 0x0badcafe; B reads 0x%08x 0x%08x 0x%08x 0x%08x through its buffer\n", back[0],
           back[1], back[2], back[3]);
    int ok = same == n && back[0] == 0x0badcafe && back[3] == 0x0badcafe;

    /* A mipmapped array (64x64 float, 3 levels) over the third granule. */
    CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC md;
    memset(&md, 0, sizeof md);
    md.offset = 2 * gran;
    md.arrayDesc.Width = 64;
    md.arrayDesc.Height = 64;
    md.arrayDesc.Format = CU_AD_FORMAT_FLOAT;
    md.arrayDesc.NumChannels = 1;
    md.numLevels = 3;
    CUmipmappedArray mm;
    CK(cuExternalMemoryGetMappedMipmappedArray(&mm, ext, &md));
    CUarray level0;
    CK(cuMipmappedArrayGetLevel(&level0, mm, 0));
    float img[64];
    for (int i = 0; i < 64; i++) img[i] = 0.5f * (float)i;
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = img;
    c.srcPitch = sizeof img;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = level0;
    c.WidthInBytes = sizeof img;
    c.Height = 1;
    CK(cuMemcpy2D(&c));
    CK(cuCtxSetCurrent(a));
    float seen[64];
    CK(cuMemcpyDtoH(seen, va + 2 * gran, sizeof seen));
    int rows_ok = memcmp(seen, img, sizeof img) == 0;
    printf("B wrote row 0 of level 0 of a mipmapped array over [+%zu, ...); A reads it at VA 0x%llx: %s\n",
           2 * gran, (unsigned long long)(va + 2 * gran), rows_ok ? "match" : "MISMATCH");
    ok &= rows_ok;

    /* Clean up: the buffer and the array keep the memory alive until they go. */
    CK(cuCtxSetCurrent(b));
    CK(cuMipmappedArrayDestroy(mm));
    CK(cuDestroyExternalMemory(ext));
    CK(cuMemFree(buf));
    CK(cuCtxSetCurrent(a));
    CK(cuMemUnmap(va, size));
    CK(cuMemRelease(h));
    CK(cuMemAddressFree(va, size));
    CK(cuCtxDestroy(b));
    CK(cuCtxDestroy(a));
    printf("cleaned up: mipmapped array, external memory, buffer, mapping, allocation, contexts\n");
    free(w);
    free(r);
    printf(ok ? "external memory PASSED\n" : "external memory FAILED\n");
    return ok ? 0 : 1;
}
