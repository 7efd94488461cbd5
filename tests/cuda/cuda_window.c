/*
 * Unified addressing: a device address is never taken for host memory.
 *
 * cuMemcpy/cuMemcpyAsync tell device from host pointers by value. vmgpu reserves its device
 * address window in the host process at cuInit (sw/cuda/cuda_window.c), as NVIDIA's driver
 * reserves its unified range, so an unmapped device address (a freed cuMemAlloc pointer, a hole
 * in a reservation) is answered with CUDA_ERROR_INVALID_VALUE instead of a crash or a silent
 * write into whatever host memory sat at that address. Cases:
 *   unmapped   freed and never-mapped device addresses in every copy that takes a host side
 *   aliasing   host memory cannot be placed at a device address any more
 *   taken      host memory inside the window before cuInit: device memory avoids it, and a
 *              copy to it is an ordinary host copy
 * `vmgpu_cuda_window <case>`; exit status nonzero on any failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>

#include "cu_check.h"

#define G 65536u
#define WIN_LO 0x10000000ull  /* sw/cuda/cuda_internal.h CU_VA_LO */
#define WIN_HI 0x100000000ull /* CU_VA_HI */

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static CUcontext g_ctx;

static void init(void)
{
    CUdevice d;
    MUST(cuInit(0));
    MUST(cuDeviceGet(&d, 0));
    MUST(cuCtxCreate(&g_ctx, NULL, 0, d));
}

static size_t free_mem(void)
{
    size_t f = 0, t = 0;
    cuMemGetInfo(&f, &t);
    return f;
}

static int all(const uint8_t *p, size_t n, uint8_t v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v) return 0;
    return 1;
}

/* Try to put host memory at a given address (what a host allocation could do by chance). */
static void *host_at(uint64_t addr, size_t n)
{
    void *p = mmap((void *)(uintptr_t)addr, n, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED) return NULL;
    if (p != (void *)(uintptr_t)addr) {  /* placed elsewhere: not what was asked */
        munmap(p, n);
        return NULL;
    }
    return p;
}

static void t_unmapped(void)
{
    init();
    enum { N = 4096 };
    uint8_t host[N], back[N];
    memset(host, 0x5a, N);
    CUdeviceptr d, live;
    MUST(cuMemAlloc(&live, G));  /* first, so that it cannot reuse d's addresses */
    MUST(cuMemAlloc(&d, 2 * G));
    OK(cuMemcpyHtoD(d, host, N));
    size_t before = free_mem();
    OK(cuMemFree(d));
    CHECK(free_mem() > before);
    NOTE("freed cuMemAlloc pointer 0x%llx", (unsigned long long)d);

    /* Freed: every copy that would take it for host memory refuses it. */
    memset(back, 0xc3, N);
    EXPECT(cuMemcpy(d, (CUdeviceptr)(uintptr_t)host, N), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpy((CUdeviceptr)(uintptr_t)back, d, N), CUDA_ERROR_INVALID_VALUE);
    CHECK(all(back, N, 0xc3));
    EXPECT(cuMemcpyAsync(d, (CUdeviceptr)(uintptr_t)host, N, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyAsync((CUdeviceptr)(uintptr_t)back, d, N, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK(all(back, N, 0xc3));
    EXPECT(cuMemcpy(d, d + N, N), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemcpy(d, (CUdeviceptr)(uintptr_t)host, 0));  /* nothing to copy: as every copy call */
    /* Explicit directions whose host side is the device address. */
    OK(cuMemcpyHtoD(live, host, N));
    EXPECT(cuMemcpyHtoD(live, (const void *)(uintptr_t)d, N), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyDtoH((void *)(uintptr_t)d, live, N), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyHtoDAsync(live, (const void *)(uintptr_t)d, N, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyDtoHAsync((void *)(uintptr_t)d, live, N, NULL), CUDA_ERROR_INVALID_VALUE);
    /* cuMemcpy2D with unified addressing (CU_MEMORYTYPE_UNIFIED) sorts pointers the same way. */
    CUDA_MEMCPY2D m;
    memset(&m, 0, sizeof m);
    m.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
    m.srcDevice = d;
    m.srcPitch = 256;
    m.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
    m.dstDevice = live;
    m.dstPitch = 256;
    m.WidthInBytes = 256;
    m.Height = 4;
    EXPECT(cuMemcpy2D(&m), CUDA_ERROR_INVALID_VALUE);
    m.srcDevice = (CUdeviceptr)(uintptr_t)host;
    m.dstDevice = d;
    EXPECT(cuMemcpy2D(&m), CUDA_ERROR_INVALID_VALUE);
    /* The live allocation kept its data through the refused calls. */
    OK(cuMemcpyDtoH(back, live, N));
    CHECK(all(back, N, 0x5a));

    /* A hole in a reservation: reserved, partly mapped. */
    CUdeviceptr r;
    CUmemGenericAllocationHandle h;
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    CUmemAccessDesc acc;
    memset(&acc, 0, sizeof acc);
    acc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    MUST(cuMemAddressReserve(&r, 4 * G, 0, 0, 0));
    MUST(cuMemCreate(&h, G, &prop, 0));
    MUST(cuMemMap(r, G, 0, h, 0));
    MUST(cuMemSetAccess(r, G, &acc, 1));
    OK(cuMemcpy(r, (CUdeviceptr)(uintptr_t)host, N));
    EXPECT(cuMemcpy(r + 2 * G, (CUdeviceptr)(uintptr_t)host, N), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpy((CUdeviceptr)(uintptr_t)back, r + 3 * G, N), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpy(r + G - N / 2, (CUdeviceptr)(uintptr_t)host, N), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyAsync(r + G, r, N, NULL), CUDA_ERROR_INVALID_VALUE);
    memset(back, 0, N);
    OK(cuMemcpy((CUdeviceptr)(uintptr_t)back, r, N));
    CHECK(all(back, N, 0x5a));
    OK(cuMemUnmap(r, G));
    /* Unmapped again: the whole reservation is a hole now. */
    EXPECT(cuMemcpy((CUdeviceptr)(uintptr_t)back, r, N), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemRelease(h));
    OK(cuMemAddressFree(r, 4 * G));
    EXPECT(cuMemcpy(r, (CUdeviceptr)(uintptr_t)host, N), CUDA_ERROR_INVALID_VALUE);

    /* Host to host through cuMemcpy still works. */
    memset(back, 0, N);
    OK(cuMemcpy((CUdeviceptr)(uintptr_t)back, (CUdeviceptr)(uintptr_t)host, N));
    CHECK(all(back, N, 0x5a));
    OK(cuMemFree(live));
    OK(cuCtxDestroy(g_ctx));
    NOTE("unmapped device addresses: CUDA_ERROR_INVALID_VALUE in cuMemcpy/Async, HtoD/DtoH(Async), 2D");
}

static void t_aliasing(void)
{
    init();
    CUdeviceptr d;
    MUST(cuMemAlloc(&d, G));
    OK(cuMemFree(d));
    /* Before the window was reserved, host memory could land at a freed device address, and
     * cuMemcpy then "succeeded" by writing it. Now the address is not free in the host. */
    void *h = host_at(d, G);
    CHECK(h == NULL);
    if (h) {
        memset(h, 0, G);
        uint8_t src[256];
        memset(src, 0x77, sizeof src);
        CUresult rc = cuMemcpy(d, (CUdeviceptr)(uintptr_t)src, sizeof src);
        printf("  FAIL host memory mapped at device address 0x%llx; cuMemcpy there -> %s, host byte 0x%02x\n",
               (unsigned long long)d, ename(rc), ((uint8_t *)h)[0]);
        munmap(h, G);
    }
    /* Nor anywhere else in the window, however the host asks. */
    unsigned landed = 0;
    for (uint64_t a = WIN_LO; a < WIN_HI; a += 0x08000000ull) {
        void *p = host_at(a, 4096);
        if (p) {
            landed++;
            munmap(p, 4096);
        }
    }
    CHECK(landed == 0);
    void *big[16];
    for (int i = 0; i < 16; i++) {
        big[i] = mmap(NULL, 64u << 20, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        CHECK(big[i] != MAP_FAILED);
        uint64_t a = (uint64_t)(uintptr_t)big[i];
        CHECK(a + (64u << 20) <= WIN_LO || a >= WIN_HI);
    }
    for (int i = 0; i < 16; i++)
        if (big[i] != MAP_FAILED) munmap(big[i], 64u << 20);
    OK(cuCtxDestroy(g_ctx));
    NOTE("no host mapping can be placed inside [0x%llx, 0x%llx) (%u of 30 fixed tries landed)", WIN_LO,
         WIN_HI, landed);
}

/* Host memory already inside the window before cuInit: the library reserves around it. */
static void t_taken(void)
{
    const uint64_t at = 0x20000000ull;
    const size_t len = 4 * G;
    uint8_t *h = host_at(at, len);
    if (!h) {
        /* Something else holds it (a sanitizer's shadow, say): the case cannot be set up. */
        NOTE("0x%llx not free before cuInit (%s); nothing to check", (unsigned long long)at, strerror(errno));
        return;
    }
    memset(h, 0x11, len);
    init();
    size_t before = free_mem();
    /* Ask for device addresses right there: the hint cannot be honoured. */
    CUdeviceptr r;
    OK(cuMemAddressReserve(&r, len, 0, (CUdeviceptr)at, 0));
    CHECK(r + len <= at || r >= at + len);
    NOTE("reservation with hint 0x%llx (host memory there) -> 0x%llx", (unsigned long long)at,
         (unsigned long long)r);
    /* Allocations fill the window around it and never touch it. */
    CUdeviceptr d[8];
    int nd = 0;
    for (; nd < 8; nd++) {
        if (cuMemAlloc(&d[nd], G) != CUDA_SUCCESS) break;
        CHECK(d[nd] + G <= at || d[nd] >= at + len);
    }
    CHECK(nd == 8);
    /* The host memory there is still host memory to cuMemcpy, in both directions. */
    uint8_t buf[1024];
    memset(buf, 0x99, sizeof buf);
    OK(cuMemcpyHtoD(d[0], buf, sizeof buf));
    OK(cuMemcpy((CUdeviceptr)at + 100, d[0], sizeof buf));
    CHECK(all(h + 100, sizeof buf, 0x99) && h[99] == 0x11 && h[100 + sizeof buf] == 0x11);
    memset(h, 0x44, 512);
    OK(cuMemcpy(d[0], (CUdeviceptr)at, 512));
    OK(cuMemcpyDtoH(buf, d[0], 512));
    CHECK(all(buf, 512, 0x44));
    for (int i = 0; i < nd; i++) OK(cuMemFree(d[i]));
    OK(cuMemAddressFree(r, len));
    CHECK(free_mem() == before);
    OK(cuCtxDestroy(g_ctx));
    munmap(h, len);
    NOTE("host memory inside the window before cuInit: device memory placed around it");
}

static const struct { const char *name; void (*fn)(void); } cases[] = {
    {"unmapped", t_unmapped},
    {"aliasing", t_aliasing},
    {"taken", t_taken},
};

int main(int argc, char **argv)
{
    unsigned n = sizeof cases / sizeof cases[0];
    for (unsigned i = 0; argc == 2 && i < n; i++) {
        if (strcmp(argv[1], cases[i].name) != 0) continue;
        printf("cuda window test %s\n", cases[i].name);
        cases[i].fn();
        printf("%s: %d checks, %s\n", cases[i].name, checks, fails ? "FAILED" : "passed");
        return fails ? 1 : 0;
    }
    printf("usage: %s <case>:", argv[0]);
    for (unsigned i = 0; i < n; i++) printf(" %s", cases[i].name);
    printf("\n");
    return 2;
}
