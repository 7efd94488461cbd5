/*
 * External memory on vmgpu's libcuda: a cuMemCreate allocation exported as a POSIX fd,
 * imported with cuImportExternalMemory (OPAQUE_FD) in another context, mapped as buffers and as
 * a mipmapped array. `vmgpu_cuda_extmem <case>`. Checks the data both ways (zero copy), the
 * lifetime rules (buffers keep the memory after cuDestroyExternalMemory until cuMemFree), the
 * fd's ownership, and every refusal with the free memory unchanged.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>
#include <stdint.h>
#include <unistd.h>

#include "cu_check.h"

#define G 65536u

static CUcontext c1, c2;
static CUdevice dv;

static size_t free_mem(void)
{
    size_t f = 0, t = 0;
    cuMemGetInfo(&f, &t);
    return f;
}

#define REFUSE(call, want) do { size_t f0_ = free_mem(); EXPECT(call, want); \
    if (free_mem() != f0_) { printf("  FAIL %s:%d: free memory changed by %s\n", __FILE__, __LINE__, #call); fails++; } \
    nref++; } while (0)
static int nref;

static int fd_open(int fd) { return fcntl(fd, F_GETFD) != -1; }

/* An exportable allocation of n granules mapped read-write at *va in the current context. */
static CUmemGenericAllocationHandle make_alloc(size_t n, CUdeviceptr *va)
{
    CUmemAllocationProp p;
    memset(&p, 0, sizeof p);
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    CUmemGenericAllocationHandle h;
    MUST(cuMemCreate(&h, n * G, &p, 0));
    MUST(cuMemAddressReserve(va, n * G, 0, 0, 0));
    MUST(cuMemMap(*va, n * G, 0, h, 0));
    CUmemAccessDesc a;
    memset(&a, 0, sizeof a);
    a.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    MUST(cuMemSetAccess(*va, n * G, &a, 1));
    return h;
}

static int export_fd(CUmemGenericAllocationHandle h)
{
    int fd = -1;
    MUST(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    return fd;
}

static CUDA_EXTERNAL_MEMORY_HANDLE_DESC hdesc(int fd, unsigned long long size)
{
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC d;
    memset(&d, 0, sizeof d);
    d.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
    d.handle.fd = fd;
    d.size = size;
    return d;
}

static CUDA_EXTERNAL_MEMORY_BUFFER_DESC bdesc(unsigned long long off, unsigned long long size)
{
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC b;
    memset(&b, 0, sizeof b);
    b.offset = off;
    b.size = size;
    return b;
}

static void init(void)
{
    MUST(cuInit(0));
    MUST(cuDeviceGet(&dv, 0));
    MUST(cuCtxCreate(&c1, NULL, 0, dv));
    MUST(cuCtxCreate(&c2, NULL, 0, dv));
    MUST(cuCtxSetCurrent(c1));
}

/* ------------------------------------------------------------------ import */

static void t_import(void)
{
    init();
    CUdeviceptr va;
    CUmemGenericAllocationHandle h = make_alloc(4, &va);
    size_t f0 = free_mem();
    int fd = export_fd(h);
    MUST(cuCtxSetCurrent(c2));
    CUexternalMemory em = NULL;
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC d = hdesc(fd, 4 * G), b;

    REFUSE(cuImportExternalMemory(NULL, &d), CUDA_ERROR_INVALID_VALUE);
    REFUSE(cuImportExternalMemory(&em, NULL), CUDA_ERROR_INVALID_VALUE);
    b = d; b.size = 0;
    REFUSE(cuImportExternalMemory(&em, &b), CUDA_ERROR_INVALID_VALUE);
    b = d; b.flags = 2;
    REFUSE(cuImportExternalMemory(&em, &b), CUDA_ERROR_INVALID_VALUE);
    /* Valid types of other systems: NOT_SUPPORTED (NVIDIA on Linux, measured); the Direct3D
     * resource types without DEDICATED: INVALID_VALUE first. */
    b = d; b.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32;
    REFUSE(cuImportExternalMemory(&em, &b), CUDA_ERROR_NOT_SUPPORTED);
    b = d; b.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_HEAP;
    REFUSE(cuImportExternalMemory(&em, &b), CUDA_ERROR_NOT_SUPPORTED);
    b = d; b.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE;
    REFUSE(cuImportExternalMemory(&em, &b), CUDA_ERROR_INVALID_VALUE);
    b.flags = CUDA_EXTERNAL_MEMORY_DEDICATED;
    REFUSE(cuImportExternalMemory(&em, &b), CUDA_ERROR_NOT_SUPPORTED);
    b = d; b.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD;
    REFUSE(cuImportExternalMemory(&em, &b), CUDA_ERROR_NOT_SUPPORTED);
    b = d; b.type = (CUexternalMemoryHandleType)0;
    REFUSE(cuImportExternalMemory(&em, &b), CUDA_ERROR_INVALID_VALUE);
    b = d; b.handle.fd = -1;
    REFUSE(cuImportExternalMemory(&em, &b), CUDA_ERROR_INVALID_VALUE);
    int other = memfd_create("not-cuda", 0);
    b = d; b.handle.fd = other;
    REFUSE(cuImportExternalMemory(&em, &b), CUDA_ERROR_INVALID_VALUE);  /* a memfd nobody exported */
    close(other);
    CHECK(fd_open(fd));
    NOTE("%d refusals; the fd is still the application's after each (open: %s)", nref, fd_open(fd) ? "yes" : "no");

    /* Smaller than the export, DEDICATED: fine. The driver owns the fd from now on and closes
     * it at once, as NVIDIA's does (measured): importing the same fd again fails. */
    b = d; b.size = 3 * G; b.flags = CUDA_EXTERNAL_MEMORY_DEDICATED;
    OK(cuImportExternalMemory(&em, &b));
    CHECK(!fd_open(fd));
    CUexternalMemory em3 = NULL;
    REFUSE(cuImportExternalMemory(&em3, &b), CUDA_ERROR_INVALID_VALUE);
    CHECK(free_mem() == f0);
    NOTE("imported 3 granules of a 4-granule export with DEDICATED: nothing allocated, the fd closed by the "
         "import, a second import of it refused");
    /* The same memory imported twice (another export fd): two objects. */
    int fd2 = export_fd(h);
    CUexternalMemory em2;
    d.handle.fd = fd2;
    OK(cuImportExternalMemory(&em2, &d));
    CHECK(em2 != em);
    OK(cuDestroyExternalMemory(em));
    /* Dead, NULL and made-up handles: INVALID_VALUE (NVIDIA, measured for NULL and for buffers
     * of a destroyed one; destroying one twice aborts NVIDIA's process). */
    REFUSE(cuDestroyExternalMemory(em), CUDA_ERROR_INVALID_VALUE);
    REFUSE(cuDestroyExternalMemory(NULL), CUDA_ERROR_INVALID_VALUE);
    REFUSE(cuDestroyExternalMemory((CUexternalMemory)(uintptr_t)0x7777), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr p;
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC bd = bdesc(0, G);
    REFUSE(cuExternalMemoryGetMappedBuffer(&p, em, &bd), CUDA_ERROR_INVALID_VALUE);
    OK(cuDestroyExternalMemory(em2));

    /* A declared size larger than the export is accepted (NVIDIA, measured), but only memory
     * that exists is mapped. */
    int fd4 = export_fd(h);
    b = hdesc(fd4, 4 * G + 1);
    OK(cuImportExternalMemory(&em, &b));
    CHECK(!fd_open(fd4));
    bd = bdesc(4 * G, 1);
    REFUSE(cuExternalMemoryGetMappedBuffer(&p, em, &bd), CUDA_ERROR_INVALID_VALUE);
    bd = bdesc(3 * G, G + 1);
    REFUSE(cuExternalMemoryGetMappedBuffer(&p, em, &bd), CUDA_ERROR_INVALID_VALUE);
    bd = bdesc(3 * G, G);
    OK(cuExternalMemoryGetMappedBuffer(&p, em, &bd));
    OK(cuMemFree(p));
    OK(cuDestroyExternalMemory(em));
    CHECK(free_mem() == f0);
    NOTE("declared 4 granules + 1 byte: imported; buffers past the exported memory refused, the last granule mapped");

    /* An import keeps the allocation alive after the exporter released and unmapped it. */
    int fd3 = export_fd(h);
    d.handle.fd = fd3;
    OK(cuImportExternalMemory(&em, &d));
    MUST(cuCtxSetCurrent(c1));
    OK(cuMemUnmap(va, 4 * G));
    OK(cuMemRelease(h));
    OK(cuMemAddressFree(va, 4 * G));
    CHECK(free_mem() == f0);
    OK(cuDestroyExternalMemory(em));
    CHECK(free_mem() == f0 + 4 * G);
    NOTE("released and unmapped by the exporter: memory stays while imported, freed at cuDestroyExternalMemory");
}

/* ------------------------------------------------------------------ buffers */

static void t_buffer(void)
{
    init();
    size_t base_free = free_mem();
    CUdeviceptr va;
    CUmemGenericAllocationHandle h = make_alloc(4, &va);
    uint32_t *w = malloc(4 * G);
    for (uint32_t i = 0; i < G; i++) w[i] = i * 2654435761u;
    OK(cuMemcpyHtoD(va, w, 4 * G));
    int fd = export_fd(h);
    MUST(cuCtxSetCurrent(c2));
    CUexternalMemory em;
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC d = hdesc(fd, 4 * G);
    MUST(cuImportExternalMemory(&em, &d));

    /* A buffer at an offset: the exporter's data, and writes go both ways. */
    const size_t off = G + 4096 + 256, n = 2 * G;
    CUdeviceptr b1;
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC bd = bdesc(off, n);
    OK(cuExternalMemoryGetMappedBuffer(&b1, em, &bd));
    uint8_t *r = malloc(n);
    OK(cuMemcpyDtoH(r, b1, n));
    CHECK(memcmp(r, (uint8_t *)w + off, n) == 0);
    NOTE("buffer at offset 0x%zx (+0x%zx) in context 2 reads what context 1 wrote: %s", off, n,
         memcmp(r, (uint8_t *)w + off, n) == 0 ? "match" : "MISMATCH");
    OK(cuMemsetD32(b1 + 64, 0xabcd1234u, 16));
    MUST(cuCtxSetCurrent(c1));
    uint32_t got[16];
    OK(cuMemcpyDtoH(got, va + off + 64, sizeof got));
    int ok = 1;
    for (int i = 0; i < 16; i++) ok &= got[i] == 0xabcd1234u;
    CHECK(ok);
    uint32_t mark = 0x5eed5eedu;
    OK(cuMemcpyHtoD(va + off + 8, &mark, 4));
    MUST(cuCtxSetCurrent(c2));
    uint32_t seen = 0;
    OK(cuMemcpyDtoH(&seen, b1 + 8, 4));
    CHECK(seen == mark);
    NOTE("write through the buffer seen at the exporter's VA, and the other way: %s", ok && seen == mark ? "yes" : "NO");

    /* Overlapping buffers: both valid, same memory. */
    CUdeviceptr b2;
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC bd2 = bdesc(off + 8, 64);
    OK(cuExternalMemoryGetMappedBuffer(&b2, em, &bd2));
    seen = 0;
    OK(cuMemcpyDtoH(&seen, b2, 4));
    CHECK(seen == mark);
    NOTE("an overlapping buffer at offset 0x%zx sees the same bytes", off + 8);
    /* Copies and fills stay inside a buffer, even where its pages map more of the memory
     * (NVIDIA refuses bytes past a small buffer: measured). */
    OK(cuMemcpyDtoH(&seen, b2 + 60, 4));
    REFUSE(cuMemcpyDtoH(&seen, b2 + 61, 4), CUDA_ERROR_INVALID_VALUE);
    REFUSE(cuMemcpyDtoH(&seen, b2 + 64, 4), CUDA_ERROR_INVALID_VALUE);
    REFUSE(cuMemsetD8(b2 + 63, 0, 2), CUDA_ERROR_INVALID_VALUE);
    REFUSE(cuMemcpyHtoD(b2 - 4, &mark, 4), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemcpyDtoH(&seen, b1 + 8, 4));
    CHECK(seen == mark);
    NOTE("bytes past the 64-byte buffer (or before it) refused for copies and fills; the memory unchanged");

    /* Refusals. */
    CUdeviceptr p;
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC bb;
    REFUSE(cuExternalMemoryGetMappedBuffer(NULL, em, &bd), CUDA_ERROR_INVALID_VALUE);
    REFUSE(cuExternalMemoryGetMappedBuffer(&p, em, NULL), CUDA_ERROR_INVALID_VALUE);
    REFUSE(cuExternalMemoryGetMappedBuffer(&p, NULL, &bd), CUDA_ERROR_INVALID_VALUE);
    bb = bd; bb.flags = 1;
    REFUSE(cuExternalMemoryGetMappedBuffer(&p, em, &bb), CUDA_ERROR_INVALID_VALUE);
    bb = bdesc(0, 0);
    REFUSE(cuExternalMemoryGetMappedBuffer(&p, em, &bb), CUDA_ERROR_INVALID_VALUE);
    bb = bdesc(3 * G, G + 1);
    REFUSE(cuExternalMemoryGetMappedBuffer(&p, em, &bb), CUDA_ERROR_INVALID_VALUE);  /* runs past the end */
    bb = bdesc(4 * G, 1);
    REFUSE(cuExternalMemoryGetMappedBuffer(&p, em, &bb), CUDA_ERROR_INVALID_VALUE);
    bb = bdesc(~0ull - 10, 100);
    REFUSE(cuExternalMemoryGetMappedBuffer(&p, em, &bb), CUDA_ERROR_INVALID_VALUE);  /* wraps */
    NOTE("%d refusals checked (error code, free memory unchanged)", nref);

    /* Lifetime: destroy the import and drop the exporter's side; the buffers keep the memory. */
    OK(cuDestroyExternalMemory(em));
    MUST(cuCtxSetCurrent(c1));
    OK(cuMemUnmap(va, 4 * G));
    OK(cuMemRelease(h));
    OK(cuMemAddressFree(va, 4 * G));
    MUST(cuCtxSetCurrent(c2));
    seen = 0;
    OK(cuMemcpyDtoH(&seen, b1 + 8, 4));
    CHECK(seen == mark);
    CHECK(free_mem() < base_free);
    OK(cuMemFree(b1));
    CHECK(free_mem() < base_free);
    OK(cuMemFree(b2));
    CHECK(free_mem() == base_free);
    EXPECT(cuMemFree(b2), CUDA_ERROR_INVALID_VALUE);
    NOTE("after cuDestroyExternalMemory and the exporter's release the buffers still read; memory freed with the last cuMemFree");
    free(w);
    free(r);
}

/* ------------------------------------------------------------------ mipmapped arrays */

static void t_mipmap(void)
{
    init();
    size_t base_free = free_mem();
    CUdeviceptr va;
    CUmemGenericAllocationHandle h = make_alloc(2, &va);
    MUST(cuMemsetD8(va, 0, 2 * G));
    int fd = export_fd(h);
    MUST(cuCtxSetCurrent(c2));
    CUexternalMemory em;
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC d = hdesc(fd, 2 * G);
    MUST(cuImportExternalMemory(&em, &d));

    CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC md;
    memset(&md, 0, sizeof md);
    md.offset = 4096;
    md.arrayDesc.Width = 64;
    md.arrayDesc.Height = 16;
    md.arrayDesc.Format = CU_AD_FORMAT_UNSIGNED_INT32;
    md.arrayDesc.NumChannels = 1;
    md.numLevels = 3;
    CUmipmappedArray mm;
    OK(cuExternalMemoryGetMappedMipmappedArray(&mm, em, &md));
    /* Level 1 (32x8 uint): write it through the array, read it at the exporter's VA. Level 0
     * takes 64*4 = 256-byte rows x 16 = 4 KiB, so level 1 starts 4 KiB after the offset. */
    CUarray l1;
    OK(cuMipmappedArrayGetLevel(&l1, mm, 1));
    CUDA_ARRAY3D_DESCRIPTOR ld;
    OK(cuArray3DGetDescriptor(&ld, l1));
    CHECK(ld.Width == 32 && ld.Height == 8);
    uint32_t img[32 * 8];
    for (int i = 0; i < 32 * 8; i++) img[i] = 0x1000u + (uint32_t)i;
    CUDA_MEMCPY2D p;
    memset(&p, 0, sizeof p);
    p.srcMemoryType = CU_MEMORYTYPE_HOST; p.srcHost = img; p.srcPitch = 128;
    p.dstMemoryType = CU_MEMORYTYPE_ARRAY; p.dstArray = l1;
    p.WidthInBytes = 128; p.Height = 8;
    OK(cuMemcpy2D(&p));
    MUST(cuCtxSetCurrent(c1));
    uint32_t row[32];
    int ok = 1;
    for (int y = 0; y < 8; y++) {
        /* the driver's layout: pitch 256 (32*4 rounded up to 256 bytes) */
        OK(cuMemcpyDtoH(row, va + 4096 + 4096 + (CUdeviceptr)y * 256, 128));
        for (int x = 0; x < 32; x++) ok &= row[x] == img[y * 32 + x];
    }
    CHECK(ok);
    NOTE("mipmapped array (64x16 uint, 3 levels) over the import at offset 4096: level 1 written through the array "
         "is at the exporter's VA +8 KiB with pitch 256: %s", ok ? "match" : "MISMATCH");

    /* Refusals. */
    CUmipmappedArray x;
    CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC b;
    REFUSE(cuExternalMemoryGetMappedMipmappedArray(NULL, em, &md), CUDA_ERROR_INVALID_VALUE);
    REFUSE(cuExternalMemoryGetMappedMipmappedArray(&x, em, NULL), CUDA_ERROR_INVALID_VALUE);
    REFUSE(cuExternalMemoryGetMappedMipmappedArray(&x, NULL, &md), CUDA_ERROR_INVALID_VALUE);
    b = md; b.numLevels = 0;
    REFUSE(cuExternalMemoryGetMappedMipmappedArray(&x, em, &b), CUDA_ERROR_INVALID_VALUE);
    b = md; b.numLevels = 8;
    REFUSE(cuExternalMemoryGetMappedMipmappedArray(&x, em, &b), CUDA_ERROR_INVALID_VALUE);
    b = md; b.offset = 2 * G - 4096;
    REFUSE(cuExternalMemoryGetMappedMipmappedArray(&x, em, &b), CUDA_ERROR_INVALID_VALUE);  /* past the end */
    b = md; b.arrayDesc.NumChannels = 3;
    REFUSE(cuExternalMemoryGetMappedMipmappedArray(&x, em, &b), CUDA_ERROR_INVALID_VALUE);
    NOTE("%d refusals checked (error code, free memory unchanged)", nref);

    OK(cuDestroyExternalMemory(em));
    MUST(cuCtxSetCurrent(c1));
    OK(cuMemUnmap(va, 2 * G));
    OK(cuMemRelease(h));
    OK(cuMemAddressFree(va, 2 * G));
    CHECK(free_mem() < base_free);
    OK(cuMipmappedArrayDestroy(mm));
    CHECK(free_mem() == base_free);
    EXPECT(cuMipmappedArrayGetLevel(&l1, mm, 0), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    NOTE("the mipmapped array kept the memory after the import and the allocation went; freed by cuMipmappedArrayDestroy");
}

static const struct { const char *name; void (*fn)(void); } cases[] = {
    {"import", t_import},
    {"buffer", t_buffer},
    {"mipmap", t_mipmap},
};

int main(int argc, char **argv)
{
    unsigned n = sizeof cases / sizeof cases[0];
    for (unsigned i = 0; argc == 2 && i < n; i++) {
        if (strcmp(argv[1], cases[i].name) != 0) continue;
        printf("cuda extmem test %s\n", cases[i].name);
        cases[i].fn();
        printf("%s: %d checks, %s\n", cases[i].name, checks, fails ? "FAILED" : "passed");
        return fails ? 1 : 0;
    }
    printf("usage: %s <case>:", argv[0]);
    for (unsigned i = 0; i < n; i++) printf(" %s", cases[i].name);
    printf("\n");
    return 2;
}
