/*
 * Conformance probe: one line "case ANSWER" per case, the same program against NVIDIA's libcuda
 * (on a GPU machine, built with NVIDIA's cuda.h) and against vmgpu's, so that the answers can be
 * compared (compare.py; NVIDIA's are recorded in nvidia_*.txt by record_nvidia.py).
 *
 *   cuda_probe --list      the sections, one a line
 *   cuda_probe SECTION     run one section (each section sets up its own context and state)
 *   cuda_probe             run every section in this process
 *
 * ANSWER is a CUresult name, or for a value line (name starting with two blanks, about the case
 * above it) a value printed so that it is the same on both drivers when they behave alike
 * (yes/no, or a number that does not depend on the granularity). The driver's own granularity is
 * used throughout, so every case means the same on both.
 *
 * A case's name is printed before the call is made: if the call crashes, the runner sees which
 * case it was; PROBE_SKIP="name|name" makes the probe print "name SKIPPED" instead of calling.
 *
 * Kernels: vmgpu's built-in module (vmgpu_builtin.h) where cuModuleLoadData accepts it, else the
 * same two functions written in PTX below (NVIDIA's driver compiles PTX when loading).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cuda.h>

static const char *rcname(CUresult rc)
{
    const char *n = NULL;
    cuGetErrorName(rc, &n);
    return n ? n : "?";
}

/* ------------------------------------------------------------------ case output */

#define NOT_RUN ((CUresult)0x7fffffff)
static int last_skipped;

#include "probe_skip.h"

static void pre(const char *name) { printf("%-48s ", name); fflush(stdout); }
static CUresult post(CUresult rc)
{
    printf("%s\n", rcname(rc));
    return rc;
}

/* P(name, call): print the case, make the call, print its answer; returns the answer. */
#define P(name, call) ({ CUresult r_ = NOT_RUN; last_skipped = skipped(name); \
    if (last_skipped) printf("%-48s SKIPPED\n", name); else { pre(name); r_ = post(call); } r_; })
/* A value line about the case above (SKIPPED when that case was not run). */
#define V(name, ...) do { if (last_skipped) printf("%-48s SKIPPED\n", name); else { \
    printf("%-48s ", name); printf(__VA_ARGS__); printf("\n"); } } while (0)
#define YN(name, cond) V(name, "%s", (cond) ? "yes" : "no")

/* ------------------------------------------------------------------ shared set-up */

static CUdevice dev;
static size_t g;
static CUmemAllocationProp prop;
static CUmemAccessDesc rw, ro, pnone, bad;
static CUmemLocation loc0;

static CUresult ctx_create_flags(CUcontext *c, unsigned flags)
{
#if CUDA_VERSION >= 13000
    return cuCtxCreate(c, NULL, flags, dev); /* cuCtxCreate_v4 */
#else
    return cuCtxCreate(c, flags, dev);
#endif
}
static CUresult ctx_create(CUcontext *c) { return ctx_create_flags(c, 0); }

/* cuInit, a fresh context current, the granularity and the usual descriptors. */
static CUcontext setup(void)
{
    CUcontext c;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || ctx_create(&c)) {
        printf("no device\n");
        exit(1);
    }
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    memset(&loc0, 0, sizeof loc0);
    loc0.type = CU_MEM_LOCATION_TYPE_DEVICE;
    loc0.id = dev;
    memset(&rw, 0, sizeof rw);
    rw.location = loc0;
    rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    ro = rw;
    ro.flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
    pnone = rw;
    pnone.flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    bad = rw;
    bad.flags = (CUmemAccess_flags)2;
    return c;
}

/* All words of [p, p+4n) equal v (read with cuMemcpyDtoH). */
static int words_are(CUdeviceptr p, uint32_t v, size_t n)
{
    uint32_t buf[256];
    if (n > 256 || cuMemcpyDtoH(buf, p, n * 4)) return 0;
    for (size_t i = 0; i < n; i++)
        if (buf[i] != v) return 0;
    return 1;
}

/* Reserve + create + map + set access read-write, size k granules (a VMM "allocation"). */
static CUdeviceptr vmm_rw(size_t k, CUmemGenericAllocationHandle *hout)
{
    CUdeviceptr va = 0;
    CUmemGenericAllocationHandle h = 0;
    if (cuMemAddressReserve(&va, k * g, 0, 0, 0) || cuMemCreate(&h, k * g, &prop, 0) ||
        cuMemMap(va, k * g, 0, h, 0) || cuMemSetAccess(va, k * g, &rw, 1)) {
        printf("vmm set-up failed\n");
        exit(1);
    }
    if (hout) *hout = h;
    return va;
}

/* ------------------------------------------------------------------ kernels */

/* The built-in functions the probe uses, in PTX, with the built-in parameter list
 * (dst, a, b, n, scalar): vmgpu_fill_i32 dst[i] = scalar, vmgpu_copy_i32 dst[i] = a[i]. */
static const char ptx_src[] =
    ".version 7.8\n.target sm_75\n.address_size 64\n"
    ".visible .entry vmgpu_fill_i32(.param .u64 p_dst, .param .u64 p_a, .param .u64 p_b,\n"
    "    .param .u32 p_n, .param .u32 p_s)\n"
    "{\n .reg .pred %p<2>;\n .reg .b32 %r<8>;\n .reg .b64 %rd<6>;\n"
    " ld.param.u64 %rd1, [p_dst];\n ld.param.u32 %r1, [p_n];\n ld.param.u32 %r2, [p_s];\n"
    " mov.u32 %r3, %ctaid.x;\n mov.u32 %r4, %ntid.x;\n mov.u32 %r5, %tid.x;\n"
    " mad.lo.s32 %r6, %r3, %r4, %r5;\n setp.ge.s32 %p1, %r6, %r1;\n @%p1 bra FILL_DONE;\n"
    " cvta.to.global.u64 %rd2, %rd1;\n mul.wide.s32 %rd3, %r6, 4;\n add.s64 %rd4, %rd2, %rd3;\n"
    " st.global.u32 [%rd4], %r2;\nFILL_DONE:\n ret;\n}\n"
    ".visible .entry vmgpu_copy_i32(.param .u64 p_dst, .param .u64 p_a, .param .u64 p_b,\n"
    "    .param .u32 p_n, .param .u32 p_s)\n"
    "{\n .reg .pred %p<2>;\n .reg .b32 %r<8>;\n .reg .b64 %rd<8>;\n"
    " ld.param.u64 %rd1, [p_dst];\n ld.param.u64 %rd5, [p_a];\n ld.param.u32 %r1, [p_n];\n"
    " mov.u32 %r3, %ctaid.x;\n mov.u32 %r4, %ntid.x;\n mov.u32 %r5, %tid.x;\n"
    " mad.lo.s32 %r6, %r3, %r4, %r5;\n setp.ge.s32 %p1, %r6, %r1;\n @%p1 bra COPY_DONE;\n"
    " cvta.to.global.u64 %rd2, %rd1;\n cvta.to.global.u64 %rd6, %rd5;\n mul.wide.s32 %rd3, %r6, 4;\n"
    " add.s64 %rd4, %rd2, %rd3;\n add.s64 %rd7, %rd6, %rd3;\n"
    " ld.global.u32 %r2, [%rd7];\n st.global.u32 [%rd4], %r2;\nCOPY_DONE:\n ret;\n}\n";

static CUresult load_kernels(CUmodule *m)
{
    if (cuModuleLoadData(m, "vmgpu-builtin-v1") == CUDA_SUCCESS) return CUDA_SUCCESS;
    return cuModuleLoadData(m, ptx_src);
}

static CUresult launch(CUfunction f, CUstream s, CUdeviceptr dst, CUdeviceptr a, int n, int scalar)
{
    CUdeviceptr b = 0;
    void *args[5] = {&dst, &a, &b, &n, &scalar};
    return cuLaunchKernel(f, (unsigned)(n + 63) / 64, 1, 1, 64, 1, 1, 0, s, args, NULL);
}

/* ------------------------------------------------------------------ sections */

static void s_vmm_args(void)
{
    setup();
    CUdeviceptr x = 0;
    CUmemGenericAllocationHandle hx = 0;
    size_t gg = 0, gr = 0;
    printf("%-48s %zu\n", "granularity", g);
    P("granularity minimum", cuMemGetAllocationGranularity(&gg, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    YN("  power of two, multiple of 4 KiB", gg && (gg & (gg - 1)) == 0 && gg % 4096 == 0);
    P("granularity recommended", cuMemGetAllocationGranularity(&gr, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    YN("  recommended is a multiple of minimum", gr >= gg && gg && gr % gg == 0);
    P("granularity out NULL", cuMemGetAllocationGranularity(NULL, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    P("granularity prop NULL", cuMemGetAllocationGranularity(&gg, NULL, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    P("granularity option 7", cuMemGetAllocationGranularity(&gg, &prop, (CUmemAllocationGranularity_flags)7));
    CUmemAllocationProp p2 = prop;
    p2.location.id = 1;
    P("granularity location device 1", cuMemGetAllocationGranularity(&gg, &p2, CU_MEM_ALLOC_GRANULARITY_MINIMUM));

    P("reserve size g+1", cuMemAddressReserve(&x, g + 1, 0, 0, 0));
    P("reserve size g/2", cuMemAddressReserve(&x, g / 2, 0, 0, 0));
    P("reserve size 0", cuMemAddressReserve(&x, 0, 0, 0, 0));
    P("reserve flags 1", cuMemAddressReserve(&x, g, 0, 0, 1));
    P("reserve alignment 3g", cuMemAddressReserve(&x, g, 3 * g, 0, 0));
    P("reserve ptr NULL", cuMemAddressReserve(NULL, g, 0, 0, 0));
    if (P("reserve alignment g/2", cuMemAddressReserve(&x, g, g / 2, 0, 0)) == CUDA_SUCCESS) cuMemAddressFree(x, g);
    if (P("reserve alignment 4g", cuMemAddressReserve(&x, g, 4 * g, 0, 0)) == CUDA_SUCCESS) {
        YN("  address aligned to 4g", x % (4 * g) == 0);
        cuMemAddressFree(x, g);
    } else YN("  address aligned to 4g", 0);
    if (P("reserve hint misaligned (g/2)", cuMemAddressReserve(&x, g, 0, g / 2, 0)) == CUDA_SUCCESS)
        cuMemAddressFree(x, g);
    if (P("reserve 2^40 bytes", cuMemAddressReserve(&x, (size_t)1 << 40, 0, 0, 0)) == CUDA_SUCCESS)
        cuMemAddressFree(x, (size_t)1 << 40);

    P("create size g/2", cuMemCreate(&hx, g / 2, &prop, 0));
    P("create size g+4096", cuMemCreate(&hx, g + 4096, &prop, 0));
    P("create size 0", cuMemCreate(&hx, 0, &prop, 0));
    P("create flags 1", cuMemCreate(&hx, g, &prop, 1));
    P("create prop NULL", cuMemCreate(&hx, g, NULL, 0));
    P("create handle NULL", cuMemCreate(NULL, g, &prop, 0));
    P("create 1 TiB", cuMemCreate(&hx, (size_t)1 << 40, &prop, 0));
    p2 = prop;
    p2.location.id = 1;
    P("create location device 1", cuMemCreate(&hx, g, &p2, 0));
    p2 = prop;
    p2.type = CU_MEM_ALLOCATION_TYPE_INVALID;
    P("create type invalid", cuMemCreate(&hx, g, &p2, 0));
    p2 = prop;
    p2.location.type = CU_MEM_LOCATION_TYPE_INVALID;
    P("create location type invalid", cuMemCreate(&hx, g, &p2, 0));
    p2 = prop;
    p2.requestedHandleTypes = CU_MEM_HANDLE_TYPE_WIN32;
    P("create handle type win32", cuMemCreate(&hx, g, &p2, 0));
    p2 = prop;
    p2.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;
    if (P("create handle type none", cuMemCreate(&hx, g, &p2, 0)) == CUDA_SUCCESS) cuMemRelease(hx);
    if (P("create size 3g", cuMemCreate(&hx, 3 * g, &prop, 0)) == CUDA_SUCCESS) cuMemRelease(hx);
}

static void s_vmm_map(void)
{
    setup();
    CUdeviceptr va, x;
    CUmemGenericAllocationHandle h, h1;
    cuMemAddressReserve(&va, 8 * g, 0, 0, 0);
    cuMemCreate(&h, 2 * g, &prop, 0);
    cuMemCreate(&h1, g, &prop, 0);
    cuMemMap(va, g, 0, h1, 0);
    cuMemSetAccess(va, g, &rw, 1);
    CUdeviceptr sp = va + g;
    P("map ptr +4096", cuMemMap(sp + 4096, g, 0, h, 0));
    P("map ptr +g/2", cuMemMap(sp + g / 2, g, 0, h, 0));
    P("map size g+4096", cuMemMap(sp, g + 4096, 0, h, 0));
    P("map size g/2", cuMemMap(sp, g / 2, 0, h, 0));
    P("map offset 4096", cuMemMap(sp, g, 4096, h, 0));
    P("map offset g/2", cuMemMap(sp, g, g / 2, h, 0));
    if (P("map offset g", cuMemMap(sp, g, g, h, 0)) == CUDA_SUCCESS) cuMemUnmap(sp, g);
    P("map flags 1", cuMemMap(sp, g, 0, h, 1));
    P("map size 0", cuMemMap(sp, 0, 0, h, 0));
    P("map size > allocation", cuMemMap(sp, 4 * g, 0, h, 0));
    P("map over a mapping", cuMemMap(va, g, 0, h, 0));
    if (P("map past reservation", cuMemMap(va + 7 * g, 2 * g, 0, h, 0)) == CUDA_SUCCESS) cuMemUnmap(va + 7 * g, 2 * g);
    P("map outside reservations", cuMemMap(va + 64 * g, g, 0, h, 0));
    P("map ptr 0", cuMemMap(0, g, 0, h, 0));

    P("setaccess unmapped", cuMemSetAccess(sp, g, &rw, 1));
    P("setaccess flags 2", cuMemSetAccess(va, g, &bad, 1));
    P("setaccess desc NULL", cuMemSetAccess(va, g, NULL, 1));
    P("setaccess count 0", cuMemSetAccess(va, g, &rw, 0));
    P("setaccess ptr +4096", cuMemSetAccess(va + 4096, g, &rw, 1));
    P("setaccess size g/2", cuMemSetAccess(va, g / 2, &rw, 1));
    P("setaccess size 0", cuMemSetAccess(va, 0, &rw, 1));
    P("setaccess partly unmapped", cuMemSetAccess(va, 2 * g, &rw, 1));
    CUmemAccessDesc d1 = rw;
    d1.location.id = 1;
    P("setaccess device 1", cuMemSetAccess(va, g, &d1, 1));
    d1 = rw;
    d1.location.type = CU_MEM_LOCATION_TYPE_INVALID;
    P("setaccess location type invalid", cuMemSetAccess(va, g, &d1, 1));

    unsigned long long fl = 99;
    CUmemLocation l1 = loc0;
    l1.id = 1;
    P("getaccess unmapped", cuMemGetAccess(&fl, &loc0, sp));
    P("getaccess flags NULL", cuMemGetAccess(NULL, &loc0, va));
    P("getaccess location NULL", cuMemGetAccess(&fl, NULL, va));
    P("getaccess location device 1", cuMemGetAccess(&fl, &l1, va));
    P("getaccess outside reservations", cuMemGetAccess(&fl, &loc0, va + 64 * g));
    cuMemMap(sp, 2 * g, 0, h, 0);
    fl = 99;
    P("getaccess before setaccess", cuMemGetAccess(&fl, &loc0, sp));
    V("  value", "%llu", fl);
    P("setaccess first granule of a mapping", cuMemSetAccess(sp, g, &ro, 1));
    fl = 99;
    P("getaccess second granule", cuMemGetAccess(&fl, &loc0, sp + g));
    V("  second granule value", "%llu", fl);
    fl = 99;
    P("getaccess first granule inner address", cuMemGetAccess(&fl, &loc0, sp + 4096));
    V("  first granule value", "%llu", fl);
    P("setaccess across two mappings", cuMemSetAccess(va, 3 * g, &rw, 1));
    fl = 99;
    P("getaccess after setaccess rw", cuMemGetAccess(&fl, &loc0, sp + g));
    V("  rw value", "%llu", fl);
    P("setaccess PROT_NONE", cuMemSetAccess(sp, 2 * g, &pnone, 1));
    fl = 99;
    P("getaccess after PROT_NONE", cuMemGetAccess(&fl, &loc0, sp));
    V("  none value", "%llu", fl);

    P("map overlapping a mapping's tail", cuMemMap(va + 2 * g, 2 * g, 0, h, 0));
    P("map same handle adjacent", cuMemMap(va + 3 * g, 2 * g, 0, h, 0));
    P("unmap half a mapping", cuMemUnmap(sp, g));
    P("unmap second half", cuMemUnmap(sp + g, g));
    P("unmap size 0", cuMemUnmap(sp, 0));
    P("unmap across two mappings", cuMemUnmap(sp, 4 * g));
    fl = 99;
    P("  getaccess after unmap", cuMemGetAccess(&fl, &loc0, va + 3 * g));
    cuMemMap(sp, 2 * g, 0, h, 0);
    P("unmap past the mapping", cuMemUnmap(sp, 3 * g));
    cuMemMap(sp, 2 * g, 0, h, 0);
    P("unmap ptr +4096", cuMemUnmap(sp + 4096, g));
    P("unmap never mapped", cuMemUnmap(va + 5 * g, g));
    P("unmap outside reservations", cuMemUnmap(va + 64 * g, g));
    P("unmap whole", cuMemUnmap(sp, 2 * g));
    P("unmap repeated", cuMemUnmap(sp, 2 * g));

    P("addressfree while mapped", cuMemAddressFree(va, 8 * g));
    P("addressfree wrong size", cuMemAddressFree(va, 4 * g));
    P("addressfree inner ptr", cuMemAddressFree(va + g, 7 * g));
    P("addressfree size 0", cuMemAddressFree(va, 0));
    P("addressfree never reserved", cuMemAddressFree(va + 64 * g, g));
    cuMemUnmap(va, g);
    P("addressfree", cuMemAddressFree(va, 8 * g));
    P("addressfree twice", cuMemAddressFree(va, 8 * g));
    P("map after addressfree", cuMemMap(va, g, 0, h, 0));

    /* two reservations back to back (where the driver honours the hint) */
    CUdeviceptr a = 0, b = 0;
    cuMemAddressReserve(&a, 2 * g, 0, 0, 0);
    cuMemAddressReserve(&b, 2 * g, 0, a + 2 * g, 0);
    printf("%-48s %s\n", "  second reservation at the hint", b == a + 2 * g ? "yes" : "no");
    if (b == a + 2 * g) {
        if (P("map across two reservations", cuMemMap(a + g, 2 * g, 0, h, 0)) == CUDA_SUCCESS) cuMemUnmap(a + g, 2 * g);
    }
    cuMemAddressFree(b, 2 * g);
    cuMemAddressFree(a, 2 * g);
    (void)x;
}

static void s_vmm_handles(void)
{
    setup();
    CUdeviceptr va, va2;
    CUmemGenericAllocationHandle h, hr = 0, hi = 0, hn = 0, hx = 0;
    cuMemAddressReserve(&va, 4 * g, 0, 0, 0);
    cuMemAddressReserve(&va2, 2 * g, 0, 0, 0);
    cuMemCreate(&h, 2 * g, &prop, 0);
    cuMemMap(va, 2 * g, 0, h, 0);
    cuMemSetAccess(va, 2 * g, &rw, 1);
    cuMemsetD32(va, 0x11111111u, 64);

    P("map same handle at a second address", cuMemMap(va2, 2 * g, 0, h, 0));
    P("  setaccess second address", cuMemSetAccess(va2, 2 * g, &rw, 1));
    YN("  data seen through the second address", words_are(va2, 0x11111111u, 64));
    cuMemsetD32(va2 + 256, 0x22222222u, 16);
    YN("  fill through the second seen through the first", words_are(va + 256, 0x22222222u, 16));

    hr = 0;
    P("retain mapped address", cuMemRetainAllocationHandle(&hr, (void *)(uintptr_t)va));
    YN("  retained handle is the handle", hr == h);
    hr = 0;
    P("retain inner address", cuMemRetainAllocationHandle(&hr, (void *)(uintptr_t)(va + g + 4096)));
    YN("  inner retained handle is the handle", hr == h);
    P("retain second address", cuMemRetainAllocationHandle(&hx, (void *)(uintptr_t)va2));
    P("retain handle NULL", cuMemRetainAllocationHandle(NULL, (void *)(uintptr_t)va));
    P("retain unmapped address", cuMemRetainAllocationHandle(&hx, (void *)(uintptr_t)(va + 3 * g)));
    P("release retained", cuMemRelease(h));
    P("release retained 2", cuMemRelease(h));
    P("release retained 3", cuMemRelease(h));

    CUmemAllocationProp pp;
    memset(&pp, 0x5a, sizeof pp);
    P("props of handle", cuMemGetAllocationPropertiesFromHandle(&pp, h));
    YN("  props type pinned", pp.type == CU_MEM_ALLOCATION_TYPE_PINNED);
    YN("  props location device", pp.location.type == CU_MEM_LOCATION_TYPE_DEVICE && pp.location.id == dev);
    YN("  props handle types posix fd", pp.requestedHandleTypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    P("props out NULL", cuMemGetAllocationPropertiesFromHandle(NULL, h));

    int fd = -1, fd2 = -1;
    P("export fd", cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    YN("  fd is open", fd >= 0 && fcntl(fd, F_GETFD) >= 0);
    P("export out NULL", cuMemExportToShareableHandle(NULL, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    P("export win32", cuMemExportToShareableHandle(&fd2, h, CU_MEM_HANDLE_TYPE_WIN32, 0));
    P("export fd flags 1", cuMemExportToShareableHandle(&fd2, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1));
    CUmemAllocationProp pn = prop;
    pn.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;
    cuMemCreate(&hn, g, &pn, 0);
    P("export handle made without fd type", cuMemExportToShareableHandle(&fd2, hn, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    cuMemRelease(hn);
    P("import exported fd", cuMemImportFromShareableHandle(&hi, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    P("map imported handle", cuMemMap(va + 2 * g, 2 * g, 0, hi, 0));
    cuMemSetAccess(va + 2 * g, 2 * g, &rw, 1);
    YN("  imported mapping sees the data", words_are(va + 2 * g, 0x11111111u, 64));
    P("import fd 0", cuMemImportFromShareableHandle(&hx, (void *)(uintptr_t)0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    P("import fd -1", cuMemImportFromShareableHandle(&hx, (void *)(intptr_t)-1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    P("import unopened fd 1000", cuMemImportFromShareableHandle(&hx, (void *)(uintptr_t)1000, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    int mfd = memfd_create("not-cuda", 0);
    if (ftruncate(mfd, (off_t)g)) { /* only its identity matters */ }
    P("import memfd not from the driver", cuMemImportFromShareableHandle(&hx, (void *)(uintptr_t)mfd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    close(mfd);
    P("import win32 type", cuMemImportFromShareableHandle(&hx, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_WIN32));
    P("import out NULL", cuMemImportFromShareableHandle(NULL, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    close(fd);
    P("release imported", cuMemRelease(hi));

    P("release while mapped", cuMemRelease(h));
    YN("  memory readable after release", words_are(va, 0x11111111u, 64));
    P("props after release (still mapped)", cuMemGetAllocationPropertiesFromHandle(&pp, h));
    hr = 0;
    P("retain after release (still mapped)", cuMemRetainAllocationHandle(&hr, (void *)(uintptr_t)va));
    YN("  retained after release is the handle", hr == h);
    P("release that retained handle", cuMemRelease(hr));
    P("unmap first address", cuMemUnmap(va, 2 * g));
    YN("  second address still readable", words_are(va2, 0x11111111u, 64));
    P("unmap imported mapping", cuMemUnmap(va + 2 * g, 2 * g));
    P("unmap last mapping", cuMemUnmap(va2, 2 * g));
    P("retain after last unmap", cuMemRetainAllocationHandle(&hx, (void *)(uintptr_t)va2));
    P("release again", cuMemRelease(h));
    P("release 0", cuMemRelease(0));
    P("map released handle", cuMemMap(va, g, 0, h, 0));
    P("export released handle", cuMemExportToShareableHandle(&fd2, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    P("props released handle", cuMemGetAllocationPropertiesFromHandle(&pp, h));
    cuMemCreate(&hx, g, &prop, 0);
    P("release never-mapped handle", cuMemRelease(hx));
    P("release never-mapped handle again", cuMemRelease(hx));
    CUdeviceptr p;
    cuMemAlloc(&p, 4096);
    P("retain cuMemAlloc address", cuMemRetainAllocationHandle(&hx, (void *)(uintptr_t)p));
    P("unmap cuMemAlloc memory", cuMemUnmap(p, g));
    P("memfree VMM memory", cuMemFree(va2));
    cuMemAddressFree(va, 4 * g);
    cuMemAddressFree(va2, 2 * g);
}

static void s_vmm_access(void)
{
    CUcontext c = setup(), c2;
    CUdeviceptr va, tmp;
    CUmemGenericAllocationHandle h;
    uint32_t buf[64] = {0};
    cuMemAddressReserve(&va, 3 * g, 0, 0, 0);
    cuMemCreate(&h, 2 * g, &prop, 0);
    cuMemMap(va, 2 * g, 0, h, 0);
    cuMemAlloc(&tmp, 4096);
    cuMemsetD32(tmp, 0x5555aaaau, 1024);
    P("memcpyDtoH before setaccess", cuMemcpyDtoH(buf, va, 64));
    P("memsetD32 before setaccess", cuMemsetD32(va, 1, 16));
    P("memcpyDtoD from no-access memory", cuMemcpyDtoD(tmp, va, 64));
    P("setaccess read-write", cuMemSetAccess(va, 2 * g, &rw, 1));
    P("memsetD32 after setaccess", cuMemsetD32(va, 0x0badf00du, 64));
    P("setaccess read-only", cuMemSetAccess(va, 2 * g, &ro, 1));
    unsigned long long fl = 99;
    cuMemGetAccess(&fl, &loc0, va);
    V("  getaccess read-only value", "%llu", fl);
    P("memsetD32 into read-only", cuMemsetD32(va, 1, 16));
    P("memsetD8 into read-only", cuMemsetD8(va, 1, 16));
    P("memsetD32Async into read-only", cuMemsetD32Async(va, 1, 16, NULL));
    P("memcpyHtoD into read-only", cuMemcpyHtoD(va, buf, 64));
    P("memcpyHtoDAsync into read-only", cuMemcpyHtoDAsync(va, buf, 64, NULL));
    P("dtod write to read-only", cuMemcpyDtoD(va, tmp, 4));
    P("memcpyDtoH from read-only", cuMemcpyDtoH(buf, va, 64));
    YN("  read-only memory unchanged", buf[0] == 0x0badf00du && buf[15] == 0x0badf00du);
    P("memcpyDtoD from read-only", cuMemcpyDtoD(tmp, va, 64));
    P("  then synchronize", cuCtxSynchronize());
    CUdeviceptr x;
    P("  then memalloc", cuMemAlloc(&x, 64));
    P("setaccess first granule rw", cuMemSetAccess(va, g, &rw, 1));
    P("memsetD32 across rw and read-only", cuMemsetD32(va + g - 64, 2, 32));
    P("memsetD32 into the rw granule", cuMemsetD32(va + g - 64, 3, 16));
    YN("  rw granule written", words_are(va + g - 64, 3, 16));
    P("memcpyHtoD past the mapping's end", cuMemcpyHtoD(va + 2 * g - 4, buf, 8));
    P("memcpyDtoH from reserved unmapped", cuMemcpyDtoH(buf, va + 2 * g, 4));
    P("setaccess back to rw", cuMemSetAccess(va, 2 * g, &rw, 1));
    P("memsetD32 across granules after rw", cuMemsetD32(va + g - 64, 4, 32));
    YN("  both granules written", words_are(va + g - 64, 4, 32));
    cuMemSetAccess(va, 2 * g, &pnone, 1);
    P("memcpyDtoH from PROT_NONE", cuMemcpyDtoH(buf, va, 64));
    P("memsetD32 into PROT_NONE", cuMemsetD32(va, 1, 16));
    cuMemSetAccess(va, 2 * g, &rw, 1);
    ctx_create(&c2);
    P("other context memcpyDtoH of VMM memory", cuMemcpyDtoH(buf, va + g - 64, 16));
    YN("  other context sees the data", buf[0] == 4);
    P("other context memsetD32 into VMM memory", cuMemsetD32(va, 6, 16));
    P("other context memcpy of cuMemAlloc memory", cuMemcpyDtoH(buf, tmp + 2048, 16));
    YN("  other context sees cuMemAlloc data", buf[0] == 0x5555aaaau);
    P("other context memfree of cuMemAlloc memory", cuMemFree(tmp));
    cuCtxPopCurrent(NULL);
    P("first context synchronize", cuCtxSynchronize());
    YN("  fill of the other context seen", words_are(va, 6, 16));
    (void)c;
}

static void s_alloc(void)
{
    setup();
    CUdeviceptr p = 0, p1 = 0, base = 0;
    size_t sz = 0;
    uint32_t buf[64] = {0};
    P("memalloc dptr NULL", cuMemAlloc(NULL, 64));
    if (P("memalloc 1 byte", cuMemAlloc(&p1, 1)) == CUDA_SUCCESS) cuMemFree(p1);
    P("memalloc 100", cuMemAlloc(&p, 100));
    P("getaddressrange inner", cuMemGetAddressRange(&base, &sz, p + 50));
    YN("  base is the allocation start", base == p);
    YN("  size is the requested size", sz == 100);
    P("getaddressrange NULL outputs", cuMemGetAddressRange(NULL, NULL, p + 4));
    P("getaddressrange one past the end", cuMemGetAddressRange(&base, &sz, p + 100));
    P("getaddressrange unknown", cuMemGetAddressRange(&base, &sz, 0x7fff0000u));
    P("memfree inner pointer", cuMemFree(p + 4));
    P("memsetD8 unaligned", cuMemsetD8(p + 1, 7, 3));
    P("memsetD8 count 0", cuMemsetD8(p, 7, 0));
    P("memsetD16 misaligned", cuMemsetD16(p + 1, 1, 4));
    P("memsetD32 misaligned", cuMemsetD32(p + 2, 1, 4));
    P("memsetD32Async NULL stream", cuMemsetD32Async(p, 9, 8, NULL));
    P("  synchronize", cuCtxSynchronize());
    YN("  async fill done", words_are(p, 9, 8));
    P("memcpyHtoD NULL src", cuMemcpyHtoD(p, NULL, 4));
    P("memcpyHtoD 0 bytes", cuMemcpyHtoD(p, buf, 0));
    P("memcpyDtoH NULL dst", cuMemcpyDtoH(NULL, p, 4));
    P("memcpyDtoH bad device ptr", cuMemcpyDtoH(buf, 0x7fff0000u, 4));
    P("memcpyDtoD 0 bytes", cuMemcpyDtoD(p, p, 0));
    for (int i = 0; i < 16; i++) buf[i] = 100u + (uint32_t)i;
    P("memcpy unified host to device", cuMemcpy(p, (CUdeviceptr)(uintptr_t)buf, 64));
    memset(buf, 0, sizeof buf);
    P("memcpy unified device to host", cuMemcpy((CUdeviceptr)(uintptr_t)buf, p, 64));
    YN("  unified round trip", buf[0] == 100 && buf[15] == 115);
    size_t fr = 0, tot = 0;
    P("memgetinfo", cuMemGetInfo(&fr, &tot));
    YN("  free <= total", fr <= tot && tot > 0);
    P("memgetinfo NULL free", cuMemGetInfo(NULL, &tot));
    P("memfree", cuMemFree(p));
    P("memfree again", cuMemFree(p));
    P("getaddressrange freed", cuMemGetAddressRange(&base, &sz, p));
    P("memfree 0", cuMemFree(0));
    P("memalloc 0", cuMemAlloc(&p, 0));
    P("memalloc 1 TiB", cuMemAlloc(&p, (size_t)1 << 40));
}

static void s_host(void)
{
    setup();
    static char page[4 * 4096] __attribute__((aligned(4096)));
    CUdeviceptr dp = 0, d;
    void *hp = NULL, *hp2 = NULL;
    unsigned fl = 99;
    cuMemAlloc(&d, 4096);
    P("hostregister", cuMemHostRegister(page + 52, 4000, 0));
    P("hostregister overlap", cuMemHostRegister(page + 100, 16, 0));
    P("hostunregister inner pointer", cuMemHostUnregister(page + 100));
    P("hostunregister", cuMemHostUnregister(page + 52));
    P("hostunregister again", cuMemHostUnregister(page + 52));
    P("hostregister NULL", cuMemHostRegister(NULL, 4096, 0));
    P("hostregister size 0", cuMemHostRegister(page, 0, 0));
    P("hostregister flags 0x80", cuMemHostRegister(page, 4096, 0x80));
    if (P("hostregister IOMEMORY on normal memory", cuMemHostRegister(page, 4096, CU_MEMHOSTREGISTER_IOMEMORY)) == CUDA_SUCCESS)
        cuMemHostUnregister(page);
    if (P("hostregister READ_ONLY", cuMemHostRegister(page, 4096, CU_MEMHOSTREGISTER_READ_ONLY)) == CUDA_SUCCESS) {
        P("  copy from read-only registered", cuMemcpyHtoD(d, page, 64));
        cuMemHostUnregister(page);
    } else {
        V("  copy from read-only registered", "-");
    }
    P("hostregister whole pages DEVICEMAP", cuMemHostRegister(page, 2 * 4096, CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_PORTABLE));
    P("hostgetdeviceptr registered", cuMemHostGetDevicePointer(&dp, page, 0));
    YN("  devptr equals hostptr", dp == (CUdeviceptr)(uintptr_t)page);
    P("hostgetdeviceptr inner", cuMemHostGetDevicePointer(&dp, page + 100, 0));
    P("hostgetdeviceptr flags 1", cuMemHostGetDevicePointer(&dp, page, 1));
    P("hostgetdeviceptr NULL out", cuMemHostGetDevicePointer(NULL, page, 0));
    memset(page, 0x3c, 64);
    P("memcpyHtoD from registered", cuMemcpyHtoD(d, page, 64));
    YN("  registered data arrived", words_are(d, 0x3c3c3c3cu, 16));
    P("memcpyDtoH into registered", cuMemcpyDtoH(page + 4096, d, 64));
    P("memsetD32 into registered via devptr", cuMemsetD32(dp + 128, 0x01010101u, 4));
    YN("  host sees the device's fill", ((uint32_t *)(void *)(page + 228))[0] == 0x01010101u);
    P("hostgetflags registered", cuMemHostGetFlags(&fl, page));
    P("memfreehost registered memory", cuMemFreeHost(page));
    P("hostunregister whole", cuMemHostUnregister(page));
    P("memfreehost non-pinned", cuMemFreeHost(page));
    P("hostgetdeviceptr unregistered", cuMemHostGetDevicePointer(&dp, page, 0));
    P("hostgetflags pageable", cuMemHostGetFlags(&fl, page));

    P("memallochost", cuMemAllocHost(&hp, 10000));
    P("memallochost NULL out", cuMemAllocHost(NULL, 4096));
    P("hostregister of pinned memory", cuMemHostRegister(hp, 4096, 0));
    P("hostunregister pinned memory", cuMemHostUnregister(hp));
    fl = 99;
    P("hostgetflags pinned", cuMemHostGetFlags(&fl, hp));
    V("  pinned flags", "%u", fl);
    P("hostgetdeviceptr pinned", cuMemHostGetDevicePointer(&dp, hp, 0));
    memset(hp, 0x42, 64);
    P("memcpyHtoDAsync from pinned", cuMemcpyHtoDAsync(d, hp, 64, NULL));
    cuCtxSynchronize();
    YN("  pinned data arrived", words_are(d, 0x42424242u, 16));
    P("memhostalloc flags 0x10", cuMemHostAlloc(&hp2, 4096, 0x10));
    P("memhostalloc DEVICEMAP|WRITECOMBINED", cuMemHostAlloc(&hp2, 4096, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED));
    fl = 99;
    P("hostgetflags hostalloc", cuMemHostGetFlags(&fl, hp2));
    V("  hostalloc flags", "%u", fl);
    P("memfreehost inner pointer", cuMemFreeHost((char *)hp + 64));
    P("memfreehost", cuMemFreeHost(hp));
    P("memfreehost twice", cuMemFreeHost(hp));
    P("memfreehost hostalloc", cuMemFreeHost(hp2));
    P("memfreehost NULL", cuMemFreeHost(NULL));
    P("hostunregister NULL", cuMemHostUnregister(NULL));
}

static const char *ctxname(CUcontext x, CUcontext c)
{
    return x == c ? "current" : x == NULL ? "null" : "other";
}

/* Attributes of ptr (probe name prefix kind); base/size: the range it lies in. */
static void attrs(const char *kind, CUdeviceptr ptr, CUdeviceptr base, size_t size, CUcontext c, int full)
{
    char n[96];
    unsigned mt = 99;
    CUcontext xc = (CUcontext)(uintptr_t)1;
    CUdeviceptr dv = 1, rs = 1;
    void *hv = (void *)1;
    size_t rsz = 1;
    int im = 99, ord = 99, mapped = 99;
    unsigned acc = 99;
    CUresult r;
#define A(attr, var, ...) do { snprintf(n, sizeof n, "pointerattr %s %s", kind, #attr + 21); \
    r = P(n, cuPointerGetAttribute(&var, attr, ptr)); snprintf(n, sizeof n, "  %s %s", kind, #attr + 21); \
    if (r == CUDA_SUCCESS) V(n, __VA_ARGS__); else V(n, "-"); } while (0)
    A(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, mt, "%u", mt);
    A(CU_POINTER_ATTRIBUTE_CONTEXT, xc, "%s", ctxname(xc, c));
    A(CU_POINTER_ATTRIBUTE_IS_MANAGED, im, "%d", im);
    A(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ord, "%d", ord);
    if (!full) return;
    A(CU_POINTER_ATTRIBUTE_DEVICE_POINTER, dv, "%s", dv == ptr ? "same" : "other");
    A(CU_POINTER_ATTRIBUTE_HOST_POINTER, hv, "%s", (CUdeviceptr)(uintptr_t)hv == ptr ? "same" : "other");
    A(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, rs, "%s", rs == base ? "base" : "other");
    A(CU_POINTER_ATTRIBUTE_RANGE_SIZE, rsz, "%s", rsz == size ? "size" : rsz > size ? "larger" : "smaller");
    A(CU_POINTER_ATTRIBUTE_MAPPED, mapped, "%d", mapped);
    A(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, acc, "%u", acc);
#undef A
}

static void s_ptrattr(void)
{
    CUcontext c = setup();
    CUdeviceptr p, va;
    cuMemAlloc(&p, 1000);
    attrs("memalloc", p + 16, p, 1000, c, 1);
    void *hp = NULL;
    cuMemAllocHost(&hp, 1000);
    attrs("pinned", (CUdeviceptr)(uintptr_t)hp + 16, (CUdeviceptr)(uintptr_t)hp, 1000, c, 1);
    static char reg[2 * 4096] __attribute__((aligned(4096)));
    cuMemHostRegister(reg + 100, 3000, 0);
    attrs("registered", (CUdeviceptr)(uintptr_t)reg + 200, (CUdeviceptr)(uintptr_t)reg + 100, 3000, c, 1);
    va = vmm_rw(2, NULL);
    attrs("vmm", va + g + 16, va, 2 * g, c, 1);
    char *pageable = malloc(4096);
    attrs("pageable", (CUdeviceptr)(uintptr_t)pageable, 0, 0, c, 0);
    attrs("unknown", 0x7fff0000u, 0, 0, c, 0);
    unsigned mt;
    P("pointerattr data NULL", cuPointerGetAttribute(NULL, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p));
    P("pointerattr attribute 999", cuPointerGetAttribute(&mt, (CUpointer_attribute)999, p));
    free(pageable);
}

static void s_streams(void)
{
    setup();
    CUstream s = NULL, s2 = NULL, sx = NULL;
    CUevent e0, e1, en, ex;
    unsigned fl = 99;
    float ms = -1;
    CUdeviceptr p;
    cuMemAlloc(&p, 1 << 16);
    P("streamcreate NULL out", cuStreamCreate(NULL, 0));
    P("streamcreate flags 8", cuStreamCreate(&sx, 8));
    P("streamcreate NON_BLOCKING", cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    P("streamgetflags", cuStreamGetFlags(s, &fl));
    V("  stream flags", "%u", fl);
    fl = 99;
    P("streamgetflags NULL stream", cuStreamGetFlags(NULL, &fl));
    V("  NULL stream flags", "%u", fl);
    if (P("streamcreatewithpriority -100", cuStreamCreateWithPriority(&sx, 0, -100)) == CUDA_SUCCESS) cuStreamDestroy(sx);
    P("streamcreate default", cuStreamCreate(&s2, 0));
    P("streamquery idle", cuStreamQuery(s));
    P("streamquery NULL stream", cuStreamQuery(NULL));
    P("streamsynchronize NULL stream", cuStreamSynchronize(NULL));
    P("streamsynchronize legacy stream", cuStreamSynchronize(CU_STREAM_LEGACY));

    P("eventcreate NULL out", cuEventCreate(NULL, 0));
    P("eventcreate flags 0x40", cuEventCreate(&ex, 0x40));
    P("eventcreate BLOCKING_SYNC|DISABLE_TIMING", cuEventCreate(&en, CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING));
    cuEventCreate(&e0, 0);
    cuEventCreate(&e1, 0);
    P("eventquery unrecorded", cuEventQuery(e0));
    P("eventsynchronize unrecorded", cuEventSynchronize(e0));
    P("elapsed unrecorded", cuEventElapsedTime(&ms, e0, e1));
    P("streamwaitevent unrecorded event", cuStreamWaitEvent(s, e0, 0));
    P("streamwaitevent flags 2", cuStreamWaitEvent(s, e0, 2));
    P("eventrecord", cuEventRecord(e0, s));
    P("elapsed end unrecorded", cuEventElapsedTime(&ms, e0, e1));
    cuMemsetD32Async(p, 1, 1 << 14, s);
    P("eventrecord second", cuEventRecord(e1, s));
    P("streamwaitevent other stream", cuStreamWaitEvent(s2, e1, 0));
    P("eventrecord NULL stream", cuEventRecord(en, NULL));
    P("eventsynchronize", cuEventSynchronize(e1));
    P("eventquery completed", cuEventQuery(e1));
    P("streamsynchronize second stream", cuStreamSynchronize(s2));
    P("elapsed", cuEventElapsedTime(&ms, e0, e1));
    YN("  elapsed >= 0", ms >= 0);
    P("elapsed same event", cuEventElapsedTime(&ms, e1, e1));
    YN("  same event is 0 ms", ms == 0);
    P("elapsed reversed", cuEventElapsedTime(&ms, e1, e0));
    YN("  reversed <= 0", ms <= 0);
    cuEventSynchronize(en);
    P("elapsed disable-timing", cuEventElapsedTime(&ms, e0, en));
    P("elapsed NULL ms", cuEventElapsedTime(NULL, e0, e1));
    P("eventrecord twice", cuEventRecord(e1, s));
    P("streamsynchronize", cuStreamSynchronize(s));
    P("eventdestroy", cuEventDestroy(e0));
    P("streamdestroy", cuStreamDestroy(s2));
    P("streamdestroy with work done", cuStreamDestroy(s));
}

static void s_contexts(void)
{
    CUcontext c = setup(), c2, cur = NULL, pr = NULL, pr2 = NULL;
    CUstream s;
    CUevent ea, eb;
    CUdeviceptr pa, pb;
    CUmodule ma;
    CUfunction fa = NULL;
    cuStreamCreate(&s, 0);
    cuEventCreate(&ea, 0);
    cuMemAlloc(&pa, 4096);
    load_kernels(&ma);
    cuModuleGetFunction(&fa, ma, "vmgpu_fill_i32");
    P("ctxcreate second", ctx_create(&c2));
    cuCtxGetCurrent(&cur);
    YN("  new context is current", cur == c2 && cur != c);
    cuEventCreate(&eb, 0);
    cuMemAlloc(&pb, 4096);
    P("eventrecord other ctx's stream", cuEventRecord(eb, s));
    P("eventrecord own event on other ctx's stream", cuEventRecord(ea, s));
    P("streamsynchronize other ctx's stream", cuStreamSynchronize(s));
    P("streamquery other ctx's stream (idle)", cuStreamQuery(s));
    P("memsetD32Async on other ctx's stream", cuMemsetD32Async(pb, 1, 16, s));
    P("streamwaitevent other ctx's event", cuStreamWaitEvent(NULL, ea, 0));
    P("eventsynchronize other ctx's event", cuEventSynchronize(ea));
    P("eventquery other ctx's event", cuEventQuery(ea));
    P("launch other ctx's function", launch(fa, NULL, pb, 0, 16, 1));
    P("  synchronize", cuCtxSynchronize());
    P("memcpy other ctx's allocation", cuMemcpyDtoD(pb, pa, 64));
    P("memfree other ctx's allocation", cuMemFree(pa));
    P("streamdestroy other ctx's stream", cuStreamDestroy(s));
    P("ctxdestroy non-current context", cuCtxDestroy(c));
    cuCtxGetCurrent(&cur);
    YN("  current unchanged", cur == c2);
    P("ctxdestroy current context", cuCtxDestroy(c2));
    cur = (CUcontext)1;
    P("ctxgetcurrent after destroying it", cuCtxGetCurrent(&cur));
    V("  current after destroy", "%s", cur == NULL ? "null" : "set");
    cuCtxSetCurrent(NULL);
    P("ctxpopcurrent empty stack", cuCtxPopCurrent(&cur));
    cur = (CUcontext)1;
    P("ctxgetcurrent none", cuCtxGetCurrent(&cur));
    YN("  current is NULL", cur == NULL);
    CUdeviceptr x;
    CUdevice d;
    size_t a, b;
    CUstream sx;
    CUmemGenericAllocationHandle hx;
    P("memalloc without context", cuMemAlloc(&x, 64));
    P("ctxsynchronize without context", cuCtxSynchronize());
    P("ctxgetdevice without context", cuCtxGetDevice(&d));
    P("streamcreate without context", cuStreamCreate(&sx, 0));
    P("memgetinfo without context", cuMemGetInfo(&a, &b));
    P("granularity without context", cuMemGetAllocationGranularity(&a, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    if (P("reserve without context", cuMemAddressReserve(&x, g, 0, 0, 0)) == CUDA_SUCCESS) cuMemAddressFree(x, g);
    if (P("create without context", cuMemCreate(&hx, g, &prop, 0)) == CUDA_SUCCESS) cuMemRelease(hx);

    P("primary release unretained", cuDevicePrimaryCtxRelease(dev));
    P("primary retain", cuDevicePrimaryCtxRetain(&pr, dev));
    P("primary retain twice", cuDevicePrimaryCtxRetain(&pr2, dev));
    YN("  same primary context", pr == pr2 && pr != NULL);
    unsigned pf = 99;
    int active = 99;
    P("primary getstate", cuDevicePrimaryCtxGetState(dev, &pf, &active));
    V("  primary active", "%d", active);
    P("ctxdestroy primary", cuCtxDestroy(pr));
    P("ctxsetcurrent primary", cuCtxSetCurrent(pr));
    P("memalloc in primary", cuMemAlloc(&x, 64));
    P("primary release", cuDevicePrimaryCtxRelease(dev));
    P("primary release 2", cuDevicePrimaryCtxRelease(dev));
    active = 99;
    P("primary getstate after release", cuDevicePrimaryCtxGetState(dev, &pf, &active));
    V("  primary active after release", "%d", active);
    P("primary release again", cuDevicePrimaryCtxRelease(dev));
    P("primary reset", cuDevicePrimaryCtxReset(dev));
    cuCtxSetCurrent(NULL);
    P("ctxpushcurrent NULL", cuCtxPushCurrent(NULL));
    P("ctxsetcurrent NULL", cuCtxSetCurrent(NULL));
    int v;
    char name[8];
    if (P("ctxcreate flags 0x100", ctx_create_flags(&c2, 0x100)) == CUDA_SUCCESS) cuCtxDestroy(c2);
    P("deviceget ordinal 1", cuDeviceGet(&d, 1));
    P("deviceget ordinal -1", cuDeviceGet(&d, -1));
    P("devicegetcount NULL", cuDeviceGetCount(NULL));
    P("devicegetattribute attribute 9999", cuDeviceGetAttribute(&v, (CUdevice_attribute)9999, dev));
    P("devicegetattribute device 5", cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 5));
    P("devicegetname len 0", cuDeviceGetName(name, 0, dev));
    P("devicegetname short buffer", cuDeviceGetName(name, sizeof name, dev));
    P("devicetotalmem NULL", cuDeviceTotalMem(NULL, dev));
}

static void s_modules(void)
{
    setup();
    CUmodule m = NULL, m2 = NULL;
    CUfunction f = NULL, fx = NULL;
    CUdeviceptr p;
    cuMemAlloc(&p, 4096);
    P("moduleloaddata garbage", cuModuleLoadData(&m2, "not a module"));
    P("moduleloaddata NULL", cuModuleLoadData(&m2, NULL));
    P("moduleloaddata out NULL", cuModuleLoadData(NULL, "not a module"));
    P("kernel module load", load_kernels(&m));
    P("modulegetfunction", cuModuleGetFunction(&f, m, "vmgpu_fill_i32"));
    P("modulegetfunction unknown name", cuModuleGetFunction(&fx, m, "no_such_function"));
    P("modulegetfunction NULL name", cuModuleGetFunction(&fx, m, NULL));
    P("modulegetfunction out NULL", cuModuleGetFunction(NULL, m, "vmgpu_fill_i32"));
    CUdeviceptr dst = p, a = 0, b = 0;
    int n = 64, sc = 5;
    void *args[5] = {&dst, &a, &b, &n, &sc};
    P("launch", cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    P("  synchronize", cuCtxSynchronize());
    YN("  kernel wrote", words_are(p, 5, 64));
    P("launch grid 0", cuLaunchKernel(f, 0, 1, 1, 64, 1, 1, 0, NULL, args, NULL));
    P("launch block 0", cuLaunchKernel(f, 1, 1, 1, 0, 1, 1, 0, NULL, args, NULL));
    P("launch block 2048", cuLaunchKernel(f, 1, 1, 1, 2048, 1, 1, 0, NULL, args, NULL));
    P("launch block z 128", cuLaunchKernel(f, 1, 1, 1, 1, 1, 128, 0, NULL, args, NULL));
    P("launch shared memory 1 MiB", cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 1 << 20, NULL, args, NULL));
    P("launch grid y 65536", cuLaunchKernel(f, 1, 65536, 1, 64, 1, 1, 0, NULL, args, NULL));
    P("  synchronize after refusals", cuCtxSynchronize());
    P("moduleunload", cuModuleUnload(m));
}

/* A kernel in context B touches memory it may not: B's calls fail from then on, A goes on. */
static void kfault(int kind)
{
    CUcontext a = setup(), b;
    CUdeviceptr pa, pb, va;
    CUmemGenericAllocationHandle h;
    CUmodule ma, mb;
    CUfunction fill_a, fill_b, copy_b;
    cuMemAlloc(&pa, 4096);
    cuMemsetD32(pa, 7, 64);
    cuMemAddressReserve(&va, 2 * g, 0, 0, 0);
    cuMemCreate(&h, g, &prop, 0);
    if (kind != 1) {
        cuMemMap(va, g, 0, h, 0);
        cuMemSetAccess(va, g, &rw, 1);
        cuMemsetD32(va, 0x77777777u, 64);
        cuMemSetAccess(va, g, kind == 0 ? &ro : &pnone, 1);
    }
    load_kernels(&ma);
    cuModuleGetFunction(&fill_a, ma, "vmgpu_fill_i32");
    ctx_create(&b);
    cuMemAlloc(&pb, 4096);
    P("kernel module load (B)", load_kernels(&mb));
    cuModuleGetFunction(&fill_b, mb, "vmgpu_fill_i32");
    cuModuleGetFunction(&copy_b, mb, "vmgpu_copy_i32");
    P("kernel fill own memory", launch(fill_b, NULL, pb, 0, 64, 3));
    P("  synchronize", cuCtxSynchronize());
    YN("  kernel wrote", words_are(pb, 3, 64));
    if (kind == 0) P("kernel write to read-only", launch(fill_b, NULL, va, 0, 64, 9));
    if (kind == 1) P("kernel read of reserved unmapped", launch(copy_b, NULL, pb, va, 64, 0));
    if (kind == 2) P("kernel write without access", launch(fill_b, NULL, va, 0, 64, 9));
    P("  then ctxsynchronize", cuCtxSynchronize());
    CUdeviceptr x;
    P("  then memalloc", cuMemAlloc(&x, 64));
    P("  then ctxsynchronize again", cuCtxSynchronize());
    P("  then launch", launch(fill_b, NULL, pb, 0, 64, 4));
    cuCtxPopCurrent(NULL);
    P("other context synchronize", cuCtxSynchronize());
    P("other context memcpy", cuMemcpyDtoD(pa + 1024, pa, 256));
    YN("  other context data intact", words_are(pa + 1024, 7, 64));
    if (kind != 1) {
        cuMemSetAccess(va, g, &ro, 1);
        YN("  faulted range unchanged", words_are(va, 0x77777777u, 64));
    }
    P("other context launch", launch(fill_a, NULL, pa, 0, 64, 8));
    P("  other context synchronize after launch", cuCtxSynchronize());
    YN("  other context kernel wrote", words_are(pa, 8, 64));
    P("ctxdestroy faulted context", cuCtxDestroy(b));
    (void)a;
}
static void s_kfault_ro(void) { kfault(0); }
static void s_kfault_unmapped(void) { kfault(1); }
static void s_kfault_noaccess(void) { kfault(2); }

/* Stale and made-up handles (NVIDIA's driver may crash on some: the runner records that). */
static void s_bogus(void)
{
    setup();
    CUstream s;
    CUevent e;
    CUcontext c2;
    CUmodule m;
    CUfunction f = NULL;
    CUdeviceptr p;
    CUmemAllocationProp pp;
    int fd;
    CUdeviceptr va;
    cuMemAddressReserve(&va, g, 0, 0, 0);
    cuMemAlloc(&p, 4096);
    cuStreamCreate(&s, 0);
    cuStreamDestroy(s);
    cuEventCreate(&e, 0);
    cuEventDestroy(e);
    load_kernels(&m);
    cuModuleGetFunction(&f, m, "vmgpu_fill_i32");
    cuModuleUnload(m);
    P("streamsynchronize destroyed stream", cuStreamSynchronize(s));
    P("streamquery destroyed stream", cuStreamQuery(s));
    P("streamdestroy destroyed stream", cuStreamDestroy(s));
    P("memcpyHtoDAsync destroyed stream", cuMemcpyHtoDAsync(p, &fd, 4, s));
    P("eventrecord destroyed event", cuEventRecord(e, NULL));
    P("eventquery destroyed event", cuEventQuery(e));
    P("eventdestroy destroyed event", cuEventDestroy(e));
    P("modulegetfunction unloaded module", cuModuleGetFunction(&f, m, "vmgpu_fill_i32"));
    P("moduleunload twice", cuModuleUnload(m));
    P("launch function of unloaded module", launch(f, NULL, p, 0, 16, 1));
    P("launch NULL function", launch(NULL, NULL, p, 0, 16, 1));
    P("streamsynchronize bogus stream", cuStreamSynchronize((CUstream)(uintptr_t)0x5a5a5a5a0ull));
    P("eventquery bogus event", cuEventQuery((CUevent)(uintptr_t)0x5a5a5a5a0ull));
    P("eventdestroy NULL", cuEventDestroy(NULL));
    P("eventrecord NULL event", cuEventRecord(NULL, NULL));
    P("streamwaitevent NULL event", cuStreamWaitEvent(NULL, NULL, 0));
    P("map handle 0", cuMemMap(va, g, 0, 0, 0));
    P("map bogus handle", cuMemMap(va, g, 0, 0xdead0000beefull, 0));
    P("release bogus handle", cuMemRelease(0xdead0000beefull));
    P("props bogus handle", cuMemGetAllocationPropertiesFromHandle(&pp, 0xdead0000beefull));
    P("export bogus handle", cuMemExportToShareableHandle(&fd, 0xdead0000beefull, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    ctx_create(&c2);
    cuCtxDestroy(c2);
    P("ctxpushcurrent destroyed context", cuCtxPushCurrent(c2));
    P("ctxsetcurrent destroyed context", cuCtxSetCurrent(c2));
    P("ctxdestroy destroyed context", cuCtxDestroy(c2));
    P("ctxpushcurrent bogus context", cuCtxPushCurrent((CUcontext)(uintptr_t)0x5a5a5a5a0ull));
}

/* ------------------------------------------------------------------ main */

/* CUDA arrays and their copies (sw/cuda/cuda_array.c). */
static CUDA_ARRAY3D_DESCRIPTOR a3(size_t w, size_t h, size_t d, CUarray_format f, unsigned ch, unsigned fl)
{
    CUDA_ARRAY3D_DESCRIPTOR x;
    memset(&x, 0, sizeof x);
    x.Width = w, x.Height = h, x.Depth = d, x.Format = f, x.NumChannels = ch, x.Flags = fl;
    return x;
}
#define ACREATE(name, w, h, d, f, ch, fl) do { CUarray a_ = NULL; CUDA_ARRAY3D_DESCRIPTOR d_ = a3(w, h, d, f, ch, fl); \
    if (P(name, cuArray3DCreate(&a_, &d_)) == CUDA_SUCCESS) cuArrayDestroy(a_); } while (0)

static void s_arrays(void)
{
    setup();
    CUarray a = NULL, dead = NULL, lvl = NULL;
    CUDA_ARRAY3D_DESCRIPTOR d = a3(64, 16, 0, CU_AD_FORMAT_FLOAT, 1, 0), back;
    CUDA_ARRAY_DESCRIPTOR d2;
    P("array3d create 2D float", cuArray3DCreate(&a, &d));
    P("array3d create handle NULL", cuArray3DCreate(NULL, &d));
    P("array3d create desc NULL", cuArray3DCreate(&a, NULL));
    P("array create desc NULL", cuArrayCreate(&a, NULL));
    ACREATE("array3d width 0", 0, 16, 0, CU_AD_FORMAT_FLOAT, 1, 0);
    ACREATE("array3d channels 3", 64, 16, 0, CU_AD_FORMAT_FLOAT, 3, 0);
    ACREATE("array3d channels 0", 64, 16, 0, CU_AD_FORMAT_FLOAT, 0, 0);
    ACREATE("array3d format 0x77", 64, 16, 0, (CUarray_format)0x77, 1, 0);
    ACREATE("array3d unorm8x2 with 4 channels", 64, 16, 0, CU_AD_FORMAT_UNORM_INT8X2, 4, 0);
    ACREATE("array3d unorm8x4 4 channels", 64, 16, 0, CU_AD_FORMAT_UNORM_INT8X4, 4, 0);
    ACREATE("array3d BC1", 64, 16, 0, CU_AD_FORMAT_BC1_UNORM, 1, 0);
    ACREATE("array3d flags 0x10000", 64, 16, 0, CU_AD_FORMAT_FLOAT, 1, 0x10000);
    ACREATE("array3d sparse", 64, 64, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_SPARSE);
    ACREATE("array3d depth texture float", 64, 64, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_DEPTH_TEXTURE);
    ACREATE("array3d surface ldst", 64, 16, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_SURFACE_LDST);
    ACREATE("array3d cubemap", 8, 8, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP);
    ACREATE("array3d cubemap not square", 8, 4, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP);
    ACREATE("array3d cubemap depth 5", 8, 8, 5, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP);
    ACREATE("array3d cubemap depth 12 unlayered", 8, 8, 12, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP);
    ACREATE("array3d cubemap layered 12", 8, 8, 12, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED);
    ACREATE("array3d layered depth 0", 8, 8, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_LAYERED);
    ACREATE("array3d 1D layered", 8, 0, 4, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_LAYERED);
    ACREATE("array3d gather 3D", 8, 8, 4, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_TEXTURE_GATHER);
    ACREATE("array3d gather 2D", 8, 8, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_TEXTURE_GATHER);
    ACREATE("array3d depth without height", 8, 0, 4, CU_AD_FORMAT_FLOAT, 1, 0);
    ACREATE("array3d 1D width 2^20", (size_t)1 << 20, 0, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0);
    ACREATE("array3d 3D 8192 wide", 8192, 8, 8, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0);
    ACREATE("array3d 2D 1 TiB", (size_t)1 << 16, (size_t)1 << 16, 0, CU_AD_FORMAT_FLOAT, 4, 0);
    P("array3d getdescriptor", cuArray3DGetDescriptor(&back, a));
    YN("  descriptor as created", back.Width == 64 && back.Height == 16 && back.Depth == 0 && back.NumChannels == 1);
    P("array3d getdescriptor NULL", cuArray3DGetDescriptor(NULL, a));
    P("array getdescriptor 2D", cuArrayGetDescriptor(&d2, a));
    CUarray a3d = NULL;
    CUDA_ARRAY3D_DESCRIPTOR dd = a3(8, 8, 4, CU_AD_FORMAT_FLOAT, 1, 0);
    P("array3d create 3D", cuArray3DCreate(&a3d, &dd));
    P("array getdescriptor of 3D", cuArrayGetDescriptor(&d2, a3d));
    P("array3d create for destroy", cuArray3DCreate(&dead, &d));
    P("arraydestroy", cuArrayDestroy(dead));
    P("arraydestroy again", cuArrayDestroy(dead));
    P("arraydestroy NULL", cuArrayDestroy(NULL));
    P("array3d getdescriptor destroyed", cuArray3DGetDescriptor(&back, dead));

    /* Copies. */
    float host[64 * 16];
    for (int i = 0; i < 64 * 16; i++) host[i] = (float)i;
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST, c.srcHost = host, c.srcPitch = 256;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY, c.dstArray = a;
    c.WidthInBytes = 256, c.Height = 16;
    CUDA_MEMCPY2D x = c;
    P("memcpy2D host to array", cuMemcpy2D(&x));
    float back2[64 * 16];
    memset(back2, 0, sizeof back2);
    CUDA_MEMCPY2D r;
    memset(&r, 0, sizeof r);
    r.srcMemoryType = CU_MEMORYTYPE_ARRAY, r.srcArray = a;
    r.dstMemoryType = CU_MEMORYTYPE_HOST, r.dstHost = back2, r.dstPitch = 256;
    r.WidthInBytes = 256, r.Height = 16;
    P("memcpy2D array to host", cuMemcpy2D(&r));
    YN("  round trip", memcmp(host, back2, sizeof host) == 0);
    P("memcpy2D NULL", cuMemcpy2D(NULL));
    x = c, x.dstXInBytes = 2;
    P("memcpy2D array x not element aligned", cuMemcpy2D(&x));
    x = c, x.WidthInBytes = 6, x.Height = 1;
    P("memcpy2D array width not element aligned", cuMemcpy2D(&x));
    x = c, x.dstXInBytes = 4;
    P("memcpy2D array x+width past row", cuMemcpy2D(&x));
    x = c, x.dstY = 1;
    P("memcpy2D array y+height past rows", cuMemcpy2D(&x));
    x = c, x.srcPitch = 128;
    P("memcpy2D pitch < width", cuMemcpy2D(&x));
    x = c, x.srcHost = NULL;
    P("memcpy2D host NULL", cuMemcpy2D(&x));
    x = c, x.srcMemoryType = (CUmemorytype)7;
    P("memcpy2D memory type 7", cuMemcpy2D(&x));
    x = c, x.dstArray = NULL;
    P("memcpy2D array NULL", cuMemcpy2D(&x));
    x = c, x.dstArray = dead;
    P("memcpy2D destroyed array", cuMemcpy2D(&x));
    x = c, x.WidthInBytes = 0;
    P("memcpy2D width 0", cuMemcpy2D(&x));
    x = c, x.Height = 0;
    P("memcpy2D height 0", cuMemcpy2D(&x));
    x = c, x.srcPitch = 0, x.Height = 1;
    P("memcpy2D pitch 0 one row", cuMemcpy2D(&x));
    x = c, x.srcPitch = (size_t)1 << 31;
    P("memcpy2D pitch 2^31", cuMemcpy2D(&x));
    CUdeviceptr dp = 0;
    P("memalloc for 2D", cuMemAlloc(&dp, 64 * 1024));
    CUDA_MEMCPY2D o;
    memset(&o, 0, sizeof o);
    o.srcMemoryType = CU_MEMORYTYPE_DEVICE, o.srcDevice = dp, o.srcPitch = 512;
    o.dstMemoryType = CU_MEMORYTYPE_DEVICE, o.dstDevice = dp + 512 + 8, o.dstPitch = 512;
    o.WidthInBytes = 64, o.Height = 4;
    P("memcpy2D device overlapping", cuMemcpy2D(&o));
    o.dstDevice = dp + 256;
    P("memcpy2D device side by side", cuMemcpy2D(&o));
    o.dstDevice = 0;
    P("memcpy2D device 0", cuMemcpy2D(&o));
    CUDA_MEMCPY2D aa;
    memset(&aa, 0, sizeof aa);
    aa.srcMemoryType = CU_MEMORYTYPE_ARRAY, aa.srcArray = a;
    aa.dstMemoryType = CU_MEMORYTYPE_ARRAY, aa.dstArray = a, aa.dstXInBytes = 8, aa.dstY = 1;
    aa.WidthInBytes = 64, aa.Height = 4;
    P("memcpy2D same array overlapping", cuMemcpy2D(&aa));
    aa.dstXInBytes = 128, aa.dstY = 0;
    P("memcpy2D same array disjoint", cuMemcpy2D(&aa));
    CUDA_MEMCPY3D t;
    memset(&t, 0, sizeof t);
    t.srcMemoryType = CU_MEMORYTYPE_HOST, t.srcHost = host, t.srcPitch = 32, t.srcHeight = 8;
    t.dstMemoryType = CU_MEMORYTYPE_ARRAY, t.dstArray = a3d;
    t.WidthInBytes = 32, t.Height = 8, t.Depth = 4;
    CUDA_MEMCPY3D u = t;
    P("memcpy3D host to 3D array", cuMemcpy3D(&u));
    P("memcpy3D NULL", cuMemcpy3D(NULL));
    u = t, u.srcLOD = 1;
    P("memcpy3D srcLOD 1", cuMemcpy3D(&u));
    u = t, u.reserved0 = &u;
    P("memcpy3D reserved0 set", cuMemcpy3D(&u));
    u = t, u.dstZ = 1;
    P("memcpy3D z+depth past slices", cuMemcpy3D(&u));
    u = t, u.srcHeight = 4;
    P("memcpy3D srcHeight < height", cuMemcpy3D(&u));
    u = t, u.Depth = 0;
    P("memcpy3D depth 0", cuMemcpy3D(&u));
    u = t, u.dstArray = a;
    P("memcpy3D into 2D array depth 4", cuMemcpy3D(&u));
    CUarray a1 = NULL;
    CUDA_ARRAY_DESCRIPTOR d1 = {256, 0, CU_AD_FORMAT_UNSIGNED_INT16, 1};
    P("array create 1D", cuArrayCreate(&a1, &d1));
    P("memcpyHtoA", cuMemcpyHtoA(a1, 0, host, 512));
    P("memcpyHtoA offset odd", cuMemcpyHtoA(a1, 1, host, 4));
    P("memcpyHtoA past end", cuMemcpyHtoA(a1, 510, host, 4));
    P("memcpyAtoH NULL", cuMemcpyAtoH(NULL, a1, 0, 4));
    P("memcpyAtoD", cuMemcpyAtoD(dp, a1, 0, 512));
    P("memcpyDtoA NULL array", cuMemcpyDtoA(NULL, 0, dp, 4));
    P("memcpyAtoA overlapping", cuMemcpyAtoA(a1, 0, a1, 64, 128));
    P("memcpyAtoA disjoint", cuMemcpyAtoA(a1, 0, a1, 256, 128));
    P("memcpyHtoA on 2D array", cuMemcpyHtoA(a, 0, host, 64));

    /* Mipmapped arrays. */
    CUmipmappedArray mm = NULL;
    CUDA_ARRAY3D_DESCRIPTOR md = a3(64, 32, 0, CU_AD_FORMAT_FLOAT, 1, 0);
    P("mipmapped create 7 levels", cuMipmappedArrayCreate(&mm, &md, 7));
    CUmipmappedArray m2 = NULL;
    if (P("mipmapped create 8 levels", cuMipmappedArrayCreate(&m2, &md, 8)) == CUDA_SUCCESS) cuMipmappedArrayDestroy(m2);
    P("mipmapped create 0 levels", cuMipmappedArrayCreate(&m2, &md, 0));
    P("mipmapped create NULL", cuMipmappedArrayCreate(NULL, &md, 1));
    P("mipmapped getlevel 6", cuMipmappedArrayGetLevel(&lvl, mm, 6));
    P("  level 6 descriptor", cuArray3DGetDescriptor(&back, lvl));
    YN("  level 6 is 1x1", back.Width == 1 && back.Height == 1);
    P("mipmapped getlevel 3", cuMipmappedArrayGetLevel(&lvl, mm, 3));
    P("  level 3 descriptor", cuArray3DGetDescriptor(&back, lvl));
    YN("  level 3 is 8x4", back.Width == 8 && back.Height == 4);
    P("mipmapped getlevel 7", cuMipmappedArrayGetLevel(&lvl, mm, 7));
    P("mipmapped getlevel NULL out", cuMipmappedArrayGetLevel(NULL, mm, 0));
    P("mipmapped getlevel 0", cuMipmappedArrayGetLevel(&lvl, mm, 0));
    P("arraydestroy of a level", cuArrayDestroy(lvl));
    CUDA_ARRAY3D_DESCRIPTOR m3 = a3(32, 16, 8, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0);
    CUmipmappedArray mm3 = NULL;
    P("mipmapped create 3D 6 levels", cuMipmappedArrayCreate(&mm3, &m3, 6));
    P("mipmapped 3D getlevel 2", cuMipmappedArrayGetLevel(&lvl, mm3, 2));
    P("  3D level 2 descriptor", cuArray3DGetDescriptor(&back, lvl));
    YN("  3D level 2 is 8x4x2", back.Width == 8 && back.Height == 4 && back.Depth == 2);
    P("mipmapped destroy 3D", cuMipmappedArrayDestroy(mm3));
    CUDA_ARRAY3D_DESCRIPTOR ml = a3(32, 16, 3, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_LAYERED);
    P("mipmapped create layered 5 levels", cuMipmappedArrayCreate(&mm3, &ml, 5));
    P("mipmapped layered getlevel 4", cuMipmappedArrayGetLevel(&lvl, mm3, 4));
    P("  layered level 4 descriptor", cuArray3DGetDescriptor(&back, lvl));
    YN("  layered level 4 is 2x1, 3 layers", back.Width == 2 && back.Height == 1 && back.Depth == 3);
    P("mipmapped destroy layered", cuMipmappedArrayDestroy(mm3));
    P("mipmapped destroy", cuMipmappedArrayDestroy(mm));
    P("mipmapped destroy again", cuMipmappedArrayDestroy(mm));
    P("mipmapped getlevel destroyed", cuMipmappedArrayGetLevel(&lvl, mm, 0));
    P("mipmapped destroy NULL", cuMipmappedArrayDestroy(NULL));
    P("arraydestroy 1D", cuArrayDestroy(a1));
    P("arraydestroy 3D", cuArrayDestroy(a3d));
    P("arraydestroy 2D", cuArrayDestroy(a));
    /* Added after the H100 recording: what the accepted level counts made, and what is left of
     * a level after cuArrayDestroy of it (vmgpu: clamped to [1, 7]; nothing destroyed). */
    CUmipmappedArray mz = NULL;
    if (P("mipmapped create 0 levels (kept)", cuMipmappedArrayCreate(&mz, &md, 0)) == CUDA_SUCCESS) {
        P("  0 levels asked: getlevel 0", cuMipmappedArrayGetLevel(&lvl, mz, 0));
        P("  0 levels asked: getlevel 1", cuMipmappedArrayGetLevel(&lvl, mz, 1));
        cuMipmappedArrayDestroy(mz);
    }
    if (P("mipmapped create 8 levels (kept)", cuMipmappedArrayCreate(&mz, &md, 8)) == CUDA_SUCCESS) {
        P("  8 levels asked: getlevel 6", cuMipmappedArrayGetLevel(&lvl, mz, 6));
        P("  8 levels asked: getlevel 7", cuMipmappedArrayGetLevel(&lvl, mz, 7));
        P("  level 3 for destroy", cuMipmappedArrayGetLevel(&lvl, mz, 3));
        P("  arraydestroy of level 3", cuArrayDestroy(lvl));
        P("  level 3 descriptor after its arraydestroy", cuArray3DGetDescriptor(&back, lvl));
        P("  getlevel 3 again", cuMipmappedArrayGetLevel(&lvl, mz, 3));
        P("  destroy the mipmapped array after", cuMipmappedArrayDestroy(mz));
    }
    ACREATE("array3d depth texture uint16", 64, 64, 0, CU_AD_FORMAT_UNSIGNED_INT16, 1, CUDA_ARRAY3D_DEPTH_TEXTURE);
    ACREATE("array3d BC1 4 channels", 64, 16, 0, CU_AD_FORMAT_BC1_UNORM, 4, 0);
    cuMemFree(dp);
}

/* External memory over an exported cuMemCreate allocation (sw/cuda/cuda_extmem.c). */
static void s_extmem(void)
{
    setup();
    CUmemGenericAllocationHandle h;
    CUdeviceptr va = 0, b = 0, b2 = 0;
    P("create exportable 2g", cuMemCreate(&h, 2 * g, &prop, 0));
    P("reserve 2g", cuMemAddressReserve(&va, 2 * g, 0, 0, 0));
    P("map 2g", cuMemMap(va, 2 * g, 0, h, 0));
    P("setaccess rw", cuMemSetAccess(va, 2 * g, &rw, 1));
    uint32_t mark = 0x5eed5eedu, seen = 0;
    P("write mark at g+64", cuMemcpyHtoD(va + g + 64, &mark, 4));
    int fd = -1;
    P("export fd", cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    CUexternalMemory em = NULL, em2 = NULL;
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC d, x;
    memset(&d, 0, sizeof d);
    d.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD, d.handle.fd = fd, d.size = 2 * g;
    P("import NULL out", cuImportExternalMemory(NULL, &d));
    P("import NULL desc", cuImportExternalMemory(&em, NULL));
    x = d, x.size = 2 * g + 1;
    P("import size > export", cuImportExternalMemory(&em, &x));
    YN("  fd still open after failed import", fcntl(fd, F_GETFD) != -1);
    x = d, x.size = 0;
    P("import size 0", cuImportExternalMemory(&em, &x));
    x = d, x.flags = 2;
    P("import flags 2", cuImportExternalMemory(&em, &x));
    x = d, x.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32;
    P("import type OPAQUE_WIN32", cuImportExternalMemory(&em, &x));
    x = d, x.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE;
    P("import type D3D12_RESOURCE", cuImportExternalMemory(&em, &x));
    x = d, x.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD;
    P("import type DMABUF_FD", cuImportExternalMemory(&em, &x));
    x = d, x.type = (CUexternalMemoryHandleType)0;
    P("import type 0", cuImportExternalMemory(&em, &x));
    x = d, x.type = (CUexternalMemoryHandleType)99;
    P("import type 99", cuImportExternalMemory(&em, &x));
    int other = memfd_create("probe-other", 0);
    if (ftruncate(other, 2 * g)) other = -1;
    x = d, x.handle.fd = other;
    P("import foreign memfd", cuImportExternalMemory(&em, &x));
    if (other >= 0) close(other);
    x = d, x.handle.fd = -1;
    P("import fd -1", cuImportExternalMemory(&em, &x));
    x = d, x.size = g, x.flags = CUDA_EXTERNAL_MEMORY_DEDICATED;
    P("import size g dedicated", cuImportExternalMemory(&em, &x));
    YN("  fd still open after import (driver owns it)", fcntl(fd, F_GETFD) != -1);
    if (em) cuDestroyExternalMemory(em);
    em = NULL;
    YN("  fd closed by destroy", fcntl(fd, F_GETFD) == -1);
    fd = -1;
    P("export fd again", cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    d.handle.fd = fd;
    P("import", cuImportExternalMemory(&em, &d));
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC bd, y;
    memset(&bd, 0, sizeof bd);
    bd.offset = g, bd.size = g;
    P("mapped buffer at g", cuExternalMemoryGetMappedBuffer(&b, em, &bd));
    P("  read mark through it", cuMemcpyDtoH(&seen, b + 64, 4));
    YN("  mark seen", seen == mark);
    P("mapped buffer NULL out", cuExternalMemoryGetMappedBuffer(NULL, em, &bd));
    P("mapped buffer NULL desc", cuExternalMemoryGetMappedBuffer(&b2, em, NULL));
    P("mapped buffer NULL handle", cuExternalMemoryGetMappedBuffer(&b2, NULL, &bd));
    y = bd, y.flags = 1;
    P("mapped buffer flags 1", cuExternalMemoryGetMappedBuffer(&b2, em, &y));
    y = bd, y.size = 0;
    P("mapped buffer size 0", cuExternalMemoryGetMappedBuffer(&b2, em, &y));
    y = bd, y.size = g + 1;
    P("mapped buffer past the end", cuExternalMemoryGetMappedBuffer(&b2, em, &y));
    y = bd, y.offset = 2 * g;
    P("mapped buffer offset = size", cuExternalMemoryGetMappedBuffer(&b2, em, &y));
    y = bd, y.offset = 4096, y.size = 4096;
    if (P("mapped buffer offset 4096", cuExternalMemoryGetMappedBuffer(&b2, em, &y)) == CUDA_SUCCESS) cuMemFree(b2);
    y = bd, y.offset = g + 4, y.size = 60;
    if (P("mapped buffer offset g+4 size 60", cuExternalMemoryGetMappedBuffer(&b2, em, &y)) == CUDA_SUCCESS) {
        seen = 0;
        P("  read mark through the small buffer", cuMemcpyDtoH(&seen, b2 + 60, 4));
        YN("  overlapping buffer sees the mark", seen == mark);
        cuMemFree(b2);
    }
    CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC md, z;
    memset(&md, 0, sizeof md);
    md.offset = 0;
    md.arrayDesc = a3(64, 64, 0, CU_AD_FORMAT_FLOAT, 1, 0);
    md.numLevels = 1;
    CUmipmappedArray mm = NULL;
    P("mapped mipmapped array", cuExternalMemoryGetMappedMipmappedArray(&mm, em, &md));
    P("mapped mipmapped NULL out", cuExternalMemoryGetMappedMipmappedArray(NULL, em, &md));
    P("mapped mipmapped NULL desc", cuExternalMemoryGetMappedMipmappedArray(&mm, em, NULL));
    P("mapped mipmapped NULL handle", cuExternalMemoryGetMappedMipmappedArray(&mm, NULL, &md));
    z = md, z.numLevels = 0;
    P("mapped mipmapped 0 levels", cuExternalMemoryGetMappedMipmappedArray(&mm, em, &z));
    z = md, z.arrayDesc.NumChannels = 3;
    P("mapped mipmapped 3 channels", cuExternalMemoryGetMappedMipmappedArray(&mm, em, &z));
    z = md, z.offset = 2 * g - 4096;
    P("mapped mipmapped past the end", cuExternalMemoryGetMappedMipmappedArray(&mm, em, &z));
    if (mm) P("mipmapped destroy (external)", cuMipmappedArrayDestroy(mm));
    P("destroy external memory", cuDestroyExternalMemory(em));
    P("destroy external memory again", cuDestroyExternalMemory(em));
    P("destroy external memory NULL", cuDestroyExternalMemory(NULL));
    P("mapped buffer after destroy", cuExternalMemoryGetMappedBuffer(&b2, em, &bd));
    seen = 0;
    P("  buffer still readable", cuMemcpyDtoH(&seen, b + 64, 4));
    YN("  mark still there", seen == mark);
    P("memfree mapped buffer", cuMemFree(b));
    fd = -1;
    P("export fd third", cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    d.handle.fd = fd;
    P("import twice: first", cuImportExternalMemory(&em, &d));
    P("import twice: same fd again", cuImportExternalMemory(&em2, &d));
    if (em2) cuDestroyExternalMemory(em2);
    if (em) cuDestroyExternalMemory(em);
    /* Added after the H100 recording: "import size > export" succeeded there and took the fd,
     * so the cases after it imported a closed fd. The same questions with fresh fds, and
     * buffers past the exported memory of an import declared larger than it. */
    CUexternalMemory em3 = NULL;
    fd = -1;
    P("export fd fourth", cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    x = d, x.handle.fd = fd, x.size = g, x.flags = CUDA_EXTERNAL_MEMORY_DEDICATED;
    P("import fresh fd size g dedicated", cuImportExternalMemory(&em3, &x));
    YN("  fresh fd still open after import", fcntl(fd, F_GETFD) != -1);
    if (em3) cuDestroyExternalMemory(em3);
    em3 = NULL;
    fd = -1;
    P("export fd fifth", cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    x = d, x.handle.fd = fd, x.size = 2 * g + 4096;
    if (P("import declared 2g+4096", cuImportExternalMemory(&em3, &x)) == CUDA_SUCCESS) {
        y = bd, y.offset = 2 * g, y.size = 4096;
        b2 = 0;
        if (P("  mapped buffer past the exported memory", cuExternalMemoryGetMappedBuffer(&b2, em3, &y)) == CUDA_SUCCESS)
            cuMemFree(b2);
        y = bd, y.offset = 2 * g - 4096, y.size = 8192;
        b2 = 0;
        if (P("  mapped buffer across the export's end", cuExternalMemoryGetMappedBuffer(&b2, em3, &y)) == CUDA_SUCCESS)
            cuMemFree(b2);
        y = bd, y.offset = g, y.size = g;
        b2 = 0;
        if (P("  mapped buffer inside", cuExternalMemoryGetMappedBuffer(&b2, em3, &y)) == CUDA_SUCCESS) {
            seen = 0;
            P("  read mark through it (declared larger)", cuMemcpyDtoH(&seen, b2 + 64, 4));
            YN("  mark seen (declared larger)", seen == mark);
            cuMemFree(b2);
        }
        cuDestroyExternalMemory(em3);
    }
    cuMemUnmap(va, 2 * g);
    cuMemRelease(h);
    cuMemAddressFree(va, 2 * g);
}

/* Graphics interop calls that need no graphics API: NULL, made-up handles and empty lists
 * (what registering needs is GL on NVIDIA and vgfx on vmgpu: not comparable here). */
static void s_graphics(void)
{
    setup();
    CUgraphicsResource none = NULL, bogus = (CUgraphicsResource)(uintptr_t)0x5a5a5a5a0ull;
    CUdeviceptr p = 0;
    size_t sz = 0;
    CUarray a = NULL;
    CUmipmappedArray m = NULL;
    P("graphics unregister NULL", cuGraphicsUnregisterResource(NULL));
    P("graphics map count 0", cuGraphicsMapResources(0, NULL, NULL));
    P("graphics map NULL list", cuGraphicsMapResources(1, NULL, NULL));
    P("graphics map NULL entry", cuGraphicsMapResources(1, &none, NULL));
    P("graphics unmap count 0", cuGraphicsUnmapResources(0, NULL, NULL));
    P("graphics unmap NULL list", cuGraphicsUnmapResources(1, NULL, NULL));
    P("graphics unmap NULL entry", cuGraphicsUnmapResources(1, &none, NULL));
    P("graphics setmapflags NULL", cuGraphicsResourceSetMapFlags(NULL, 0));
    P("graphics setmapflags NULL bad flags", cuGraphicsResourceSetMapFlags(NULL, 7));
    P("graphics mapped pointer NULL", cuGraphicsResourceGetMappedPointer(&p, &sz, NULL));
    P("graphics mapped pointer NULL outs", cuGraphicsResourceGetMappedPointer(NULL, NULL, NULL));
    P("graphics subresource array NULL", cuGraphicsSubResourceGetMappedArray(&a, NULL, 0, 0));
    P("graphics mipmapped array NULL", cuGraphicsResourceGetMappedMipmappedArray(&m, NULL));
    P("graphics unregister bogus", cuGraphicsUnregisterResource(bogus));
    P("graphics map bogus", cuGraphicsMapResources(1, &bogus, NULL));
    P("graphics mapped pointer bogus", cuGraphicsResourceGetMappedPointer(&p, &sz, bogus));
    CUcontext c;
    cuCtxPopCurrent(&c);
    P("graphics unregister NULL no context", cuGraphicsUnregisterResource(NULL));
    P("graphics map count 0 no context", cuGraphicsMapResources(0, NULL, NULL));
    P("graphics mapped pointer NULL no context", cuGraphicsResourceGetMappedPointer(&p, &sz, NULL));
    cuCtxPushCurrent(c);
}

/* ------------------------------------------------------------------ VMM answers by state */

/*
 * The vmmstate_* sections: each VMM call against the state it meets. Every case builds its state
 * fresh (st_build), makes its call (or a short sequence, one line a step), prints what the call
 * left behind, and tears the state down again, checking each step (st_teardown; a failed
 * teardown is printed and makes the section exit 3), so that no case depends on the one before.
 *
 * A state is a spec string, in granules of the driver's own granularity g:
 *   A2      handle A of 2 granules (handles A..H, created in the order written)
 *   A@4     A mapped whole at R + 4g (R: a reservation of VS_R granules); A@e0: at E + 0 (E: a
 *           separate reservation of VS_E granules, "elsewhere")
 *   r1:4    a second reservation of 4 granules right after R, so a range can run from R into it
 *           (A@11 then crosses the boundary)
 *   rw      every mapping read-write, and each handle's granules hold a marker (16 words each)
 *   relA    A released after all that (its mappings keep the memory)
 * X is a range of VS_X granules reserved and freed again (outside every reservation). The granules
 * just before and after R are not the probe's (vmmstate_pad asks about fresh reservations' edges).
 * Only whole handles are mapped in a state: NVIDIA refuses part of one. (A hint for R is no way
 * to control its edges: NVIDIA does not hand out VA at a hint inside a range freed moments
 * before, measured.)
 *
 * Value lines (names "  <case>: ..."):
 *   layout  the granule before R | R's granules | R1's | the granule after | E's: the handle
 *           mapped there (cuMemRetainAllocationHandle, the reference released again) or '-'
 *   access  the same granules: cuMemGetAccess's flags (0, 1, 3) or '-' where it fails
 *   data    one letter per mapping of the state: y when its marker words read back (rw states)
 */
#define VS_R 12
#define VS_E 4
#define VS_X 8
#define VS_NH 8
#define VS_NM 16

typedef struct {
    CUdeviceptr va;
    size_t size;
    int h;
} vs_map;

static struct {
    CUdeviceptr r, r1, e, x;
    size_t r1n;
    int x_reserved;
    CUmemGenericAllocationHandle h[VS_NH];
    size_t hn[VS_NH];         /* granules; 0: no such handle */
    int refs[VS_NH];          /* references the probe holds (released at teardown) */
    vs_map m[VS_NM];          /* live mappings, as far as the probe knows */
    int nm;
    vs_map m0[VS_NM];         /* the state's own mappings, as built */
    int n0;
    int rw;
} S;
static char st_err[96];
static int st_failed;

/* Where the call under test runs: the section's own context, the primary context, another
 * created context, or none current. The state is always built in the section's own. */
enum { VS_HOME, VS_PRIMARY, VS_OTHER, VS_NONE };
static int vs_mode;
static CUcontext vs_home, vs_primary, vs_other;

static CUdeviceptr R(long n) { return S.r + (CUdeviceptr)(n * (long)g); }
static CUdeviceptr E(long n) { return S.e + (CUdeviceptr)(n * (long)g); }
static CUdeviceptr X(long n) { return S.x + (CUdeviceptr)(n * (long)g); }
static CUmemGenericAllocationHandle H(char c) { return S.h[c - 'A']; }

static int st_index(CUmemGenericAllocationHandle h)
{
    for (int i = 0; i < VS_NH; i++)
        if (S.hn[i] && S.h[i] == h) return i;
    return -1;
}

static uint32_t st_marker(int h, size_t k) { return 0x5a000000u | (uint32_t)h << 16 | (uint32_t)k; }

static void st_add(CUdeviceptr va, size_t size, int h)
{
    if (S.nm < VS_NM) S.m[S.nm++] = (vs_map){va, size, h};
}

/* After a successful cuMemUnmap: the mappings inside [va, va+size) are gone. */
static void st_unmapped(CUdeviceptr va, size_t size)
{
    int j = 0;
    for (int k = 0; k < S.nm; k++)
        if (!(S.m[k].va >= va && S.m[k].va + S.m[k].size <= va + size)) S.m[j++] = S.m[k];
    S.nm = j;
}

/* After cuMemAddressFree: the reservations inside [va, va+size) are gone. */
static void st_freed(CUresult rc, CUdeviceptr va, size_t size)
{
    if (rc != CUDA_SUCCESS) return;
    if (S.r && S.r >= va && S.r < va + size) S.r = 0;
    if (S.r1 && S.r1 >= va && S.r1 < va + size) S.r1 = 0;
    if (S.e && S.e >= va && S.e < va + size) S.e = 0;
}

static int st_fail(const char *what, CUresult rc)
{
    if (rc == CUDA_SUCCESS) snprintf(st_err, sizeof st_err, "%s", what);
    else snprintf(st_err, sizeof st_err, "%s:%s", what, rcname(rc));
    return 1;
}

static int is_handle_token(const char *t) { return t[0] >= 'A' && t[0] <= 'H' && t[1] >= '0' && t[1] <= '9'; }
static int is_map_token(const char *t) { return t[0] >= 'A' && t[0] <= 'H' && t[1] == '@'; }

/* Build the state spec describes (0), or name the step that failed in st_err (1). */
static int st_build(const char *spec)
{
    char buf[256], *save = NULL, *t;
    CUresult rc;
    memset(&S, 0, sizeof S);
    const char *r1 = strstr(spec, "r1:");
    S.r1n = r1 ? (size_t)atoi(r1 + 3) : 0;
    if (strstr(spec, "@e") && (rc = cuMemAddressReserve(&S.e, VS_E * g, 0, 0, 0))) return st_fail("reserve E", rc);
    if ((rc = cuMemAddressReserve(&S.x, VS_X * g, 0, 0, 0))) return st_fail("reserve X", rc);
    S.x_reserved = 1;
    if ((rc = cuMemAddressReserve(&S.r, VS_R * g, 0, 0, 0))) return st_fail("reserve R", rc);
    if (S.r1n) {
        if ((rc = cuMemAddressReserve(&S.r1, S.r1n * g, 0, R(VS_R), 0))) return st_fail("reserve R1", rc);
        if (S.r1 != R(VS_R)) return st_fail("R1_not_at_its_hint", CUDA_SUCCESS);
    }
    if ((rc = cuMemAddressFree(S.x, VS_X * g))) return st_fail("free X", rc);
    S.x_reserved = 0;
    snprintf(buf, sizeof buf, "%s", spec);
    for (t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        if (!is_handle_token(t)) continue;
        int i = t[0] - 'A';
        if ((rc = cuMemCreate(&S.h[i], (size_t)atoi(t + 1) * g, &prop, 0))) return st_fail("create", rc);
        S.hn[i] = (size_t)atoi(t + 1);
        S.refs[i] = 1;
    }
    snprintf(buf, sizeof buf, "%s", spec);
    for (t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        if (!is_map_token(t)) continue;
        int i = t[0] - 'A';
        CUdeviceptr va = t[2] == 'e' ? E(atol(t + 3)) : R(atol(t + 2));
        if ((rc = cuMemMap(va, S.hn[i] * g, 0, S.h[i], 0))) return st_fail("map", rc);
        st_add(va, S.hn[i] * g, i);
    }
    if (strstr(spec, "rw")) {
        S.rw = 1;
        for (int k = 0; k < S.nm; k++)
            if ((rc = cuMemSetAccess(S.m[k].va, S.m[k].size, &rw, 1))) return st_fail("setaccess", rc);
        for (int i = 0; i < VS_NH; i++) {
            int k = 0;
            while (k < S.nm && S.m[k].h != i) k++;
            for (size_t j = 0; k < S.nm && j < S.hn[i]; j++)
                if ((rc = cuMemsetD32(S.m[k].va + j * g, st_marker(i, j), 16))) return st_fail("fill", rc);
        }
        if ((rc = cuCtxSynchronize())) return st_fail("synchronize", rc);
    }
    snprintf(buf, sizeof buf, "%s", spec);
    for (t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        if (strncmp(t, "rel", 3) != 0) continue;
        int i = t[3] - 'A';
        if ((rc = cuMemRelease(S.h[i]))) return st_fail("release", rc);
        S.refs[i]--;
    }
    memcpy(S.m0, S.m, sizeof S.m);
    S.n0 = S.nm;
    return 0;
}

/* Undo the state: every mapping the probe knows of, then whatever else is left in R, R1 and E,
 * every reference the probe holds, every reservation. Returns the first failure. */
static CUresult st_teardown(void)
{
    CUresult first = CUDA_SUCCESS, rc;
#define ST_TD(call) do { rc = (call); if (rc != CUDA_SUCCESS && first == CUDA_SUCCESS) first = rc; } while (0)
    for (int k = S.nm - 1; k >= 0; k--) ST_TD(cuMemUnmap(S.m[k].va, S.m[k].size));
    if (S.r) cuMemUnmap(S.r, VS_R * g);
    if (S.r1) cuMemUnmap(S.r1, S.r1n * g);
    if (S.e) cuMemUnmap(S.e, VS_E * g);
    for (int i = 0; i < VS_NH; i++)
        for (; S.refs[i] > 0; S.refs[i]--) ST_TD(cuMemRelease(S.h[i]));
    if (S.x_reserved) ST_TD(cuMemAddressFree(S.x, VS_X * g));
    if (S.r) ST_TD(cuMemAddressFree(S.r, VS_R * g));
    if (S.r1) ST_TD(cuMemAddressFree(S.r1, S.r1n * g));
    if (S.e) ST_TD(cuMemAddressFree(S.e, VS_E * g));
#undef ST_TD
    memset(&S, 0, sizeof S);
    return first;
}

static unsigned long long vs_flags;
static CUmemGenericAllocationHandle vs_h;

/* A case begins: its state built (1), or its line printed as skipped / set-up failed (0). */
static int vbegin(const char *name, const char *spec)
{
    last_skipped = skipped(name);
    if (last_skipped) {
        printf("%-48s SKIPPED\n", name);
        return 0;
    }
    vs_flags = 99;
    vs_h = 0;
    if (st_build(spec)) {
        printf("%-48s SETUP_FAILED:%s\n", name, st_err);
        if (st_teardown() != CUDA_SUCCESS) st_failed = 1;
        return 0;
    }
    return 1;
}

static void vend(const char *name)
{
    CUresult rc = st_teardown();
    if (rc != CUDA_SUCCESS) {
        printf("  %s: teardown %s\n", name, rcname(rc));
        st_failed = 1;
    }
}

static void vline(const char *name, const char *what, const char *val)
{
    char key[160];
    snprintf(key, sizeof key, "  %s: %s", name, what);
    printf("%-48s %s\n", key, val);
}

/* The handle mapped at va ('A'.., '?' another one) or '-'. */
static char st_which(CUdeviceptr va)
{
    CUmemGenericAllocationHandle h = 0;
    if (cuMemRetainAllocationHandle(&h, (void *)(uintptr_t)va) != CUDA_SUCCESS) return '-';
    if (cuMemRelease(h) != CUDA_SUCCESS) st_failed = 1;
    int i = st_index(h);
    return i < 0 ? '?' : (char)('A' + i);
}

static char st_acc(CUdeviceptr va)
{
    unsigned long long f = 99;
    if (cuMemGetAccess(&f, &loc0, va) != CUDA_SUCCESS) return '-';
    return f <= 9 ? (char)('0' + f) : '?';
}

/* Per granule around R (and R1) and in E: the layout string described above. */
static void st_granules(const char *name, const char *what, char (*fn)(CUdeviceptr))
{
    char s[64];
    size_t n = 0;
    if (!S.r) {
        vline(name, what, "R_freed");
        return;
    }
    s[n++] = fn(R(-1));
    s[n++] = '|';
    for (long k = 0; k < VS_R; k++) s[n++] = fn(R(k));
    if (S.r1n) {
        s[n++] = '|';
        for (long k = 0; k < (long)S.r1n; k++) s[n++] = fn(R(VS_R + k));
    }
    s[n++] = '|';
    s[n++] = fn(R(VS_R + (long)S.r1n));
    if (S.e) {
        s[n++] = '|';
        for (long k = 0; k < VS_E; k++) s[n++] = fn(E(k));
    }
    s[n] = 0;
    vline(name, what, s);
}
static void show_layout(const char *name) { st_granules(name, "layout", st_which); }
static void show_access(const char *name) { st_granules(name, "access", st_acc); }

static void show_data(const char *name)
{
    char s[VS_NM + 1];
    int n = 0;
    if (!S.rw) return;
    for (int k = 0; k < S.n0; k++) {
        int ok = 1;
        for (size_t j = 0; ok && j < S.m0[k].size / g; j++)
            ok = words_are(S.m0[k].va + j * g, st_marker(S.m0[k].h, j), 16);
        s[n++] = ok ? 'y' : 'n';
    }
    s[n] = 0;
    vline(name, "data", s);
}

static void show_flags(const char *name, CUresult rc)
{
    char v[32];
    if (rc != CUDA_SUCCESS) return;
    snprintf(v, sizeof v, "%llu", vs_flags);
    vline(name, "flags", v);
}

/* A retained handle: which one it is; the probe now holds the reference. */
static void show_retained(const char *name, CUresult rc)
{
    char v[2] = {'-', 0};
    if (rc != CUDA_SUCCESS) return;
    int i = st_index(vs_h);
    if (i >= 0) {
        S.refs[i]++;
        v[0] = (char)('A' + i);
    } else {
        v[0] = '?';
        cuMemRelease(vs_h);
    }
    vline(name, "retained", v);
}

static void ctx_in(void)
{
    if (vs_mode == VS_PRIMARY) cuCtxPushCurrent(vs_primary);
    if (vs_mode == VS_OTHER) cuCtxPushCurrent(vs_other);
    if (vs_mode == VS_NONE) cuCtxPopCurrent(NULL);
}
static void ctx_out(void)
{
    if (vs_mode == VS_PRIMARY || vs_mode == VS_OTHER) cuCtxPopCurrent(NULL);
    if (vs_mode == VS_NONE) cuCtxPushCurrent(vs_home);
}
/* P() in the context vs_mode names. */
#define PC(name, call) ({ ctx_in(); CUresult rc__ = P(name, call); ctx_out(); rc__; })

/* One case: state `spec`, the call, then `after` (rc_ holds the answer, n_ the name). */
#define VCASE(name, spec, call, after) do { const char *n_ = (name); if (vbegin(n_, spec)) { \
    CUresult rc_ = PC(n_, call); (void)rc_; after; vend(n_); } } while (0)
#define MAPC(name, spec, ptr, size, off, h, fl) VCASE(name, spec, cuMemMap((ptr), (size), (off), (h), (fl)), \
    { if (rc_ == CUDA_SUCCESS) st_add((ptr), (size), st_index(h)); show_layout(n_); show_data(n_); })
#define UNMAPC(name, spec, ptr, size) VCASE(name, spec, cuMemUnmap((ptr), (size)), \
    { if (rc_ == CUDA_SUCCESS) st_unmapped((ptr), (size)); show_layout(n_); show_data(n_); })
#define SETC(name, spec, ptr, size, desc, count) VCASE(name, spec, cuMemSetAccess((ptr), (size), (desc), (count)), \
    { show_access(n_); show_data(n_); })
#define GETC(name, spec, ptr) VCASE(name, spec, cuMemGetAccess(&vs_flags, &loc0, (ptr)), show_flags(n_, rc_))
#define RETC(name, spec, ptr) VCASE(name, spec, cuMemRetainAllocationHandle(&vs_h, (void *)(uintptr_t)(ptr)), \
    show_retained(n_, rc_))
#define RELC(name, spec, hc) VCASE(name, spec, cuMemRelease(H(hc)), \
    { if (rc_ == CUDA_SUCCESS) S.refs[(hc) - 'A']--; show_layout(n_); show_data(n_); })
#define FREEC(name, spec, ptr, size) VCASE(name, spec, cuMemAddressFree((ptr), (size)), \
    { st_freed(rc_, (ptr), (size)); show_layout(n_); })

static void vs_setup(void)
{
    vs_home = setup();
    st_failed = 0;
    vs_mode = VS_HOME;
}
static void vs_finish(void)
{
    if (st_failed) exit(3);
}

/* cuMemMap: the size and offset asked for against the handle's state (target free), then the
 * target's state: a mapping of the same handle or another one, exactly there, straddling an
 * edge, around or inside the range, two mappings, two reservations, past R's end. */
static void s_vmmstate_map(void)
{
    vs_setup();
    static const struct { const char *what; size_t n, off; } sz[] = {
        {"whole", 4, 0},          {"first half", 2, 0},           {"first granule", 1, 0},
        {"offset 2g, second half", 2, 2}, {"offset g, middle half", 2, 1}, {"offset g to the end", 3, 1},
        {"5 granules of 4", 5, 0}, {"offset 2g, 4 granules", 4, 2},
    };
    static const struct { const char *what, *spec; } hs[] = {
        {"A unmapped", "A4"},
        {"A mapped in E", "A4 A@e0"},
        {"A mapped in R", "A4 A@0"},
        {"A released, mapped in E", "A4 A@e0 relA"},
        {"A mapped in E, rw", "A4 A@e0 rw"},
    };
    char n[160];
    for (size_t i = 0; i < sizeof hs / sizeof hs[0]; i++)
        for (size_t j = 0; j < sizeof sz / sizeof sz[0]; j++) {
            snprintf(n, sizeof n, "map A(4) %s, free target, %s", sz[j].what, hs[i].what);
            MAPC(n, hs[i].spec, R(6), sz[j].n * g, sz[j].off * g, H('A'), 0);
        }
    MAPC("map A(1) whole, free target", "A1", R(4), g, 0, H('A'), 0);
    MAPC("map A released (never mapped)", "A2 relA", R(4), 2 * g, 0, H('A'), 0);

    static const struct { const char *name, *spec; char where; long at; size_t n, off; char h; } ov[] = {
        /* another handle there */
        {"map A over B exact", "A2 B2 B@4", 'r', 4, 2, 0, 'A'},
        {"map A over B starting inside it", "A2 B2 B@4", 'r', 5, 2, 0, 'A'},
        {"map A over B ending inside it", "A2 B2 B@4", 'r', 3, 2, 0, 'A'},
        {"map A over D(1) starting at its start", "A2 D1 D@4", 'r', 4, 2, 0, 'A'},
        {"map A over D(1) ending at its end", "A2 D1 D@5", 'r', 4, 2, 0, 'A'},
        {"map F(4) covering D(1)", "F4 D1 D@5", 'r', 4, 4, 0, 'F'},
        {"map F(4) covering B", "F4 B2 B@5", 'r', 4, 4, 0, 'F'},
        {"map A inside F(4) at its start", "A2 F4 F@4", 'r', 4, 2, 0, 'A'},
        {"map A inside F(4) in its middle", "A2 F4 F@4", 'r', 5, 2, 0, 'A'},
        {"map A inside F(4) at its end", "A2 F4 F@4", 'r', 6, 2, 0, 'A'},
        {"map A adjacent after B", "A2 B2 B@4", 'r', 6, 2, 0, 'A'},
        {"map A adjacent before B", "A2 B2 B@4", 'r', 2, 2, 0, 'A'},
        {"map A over B and C (B mapped first)", "A2 B2 C2 B@4 C@6", 'r', 5, 2, 0, 'A'},
        {"map A over B and C (C mapped first)", "A2 B2 C2 C@6 B@4", 'r', 5, 2, 0, 'A'},
        {"map F(4) over B and C exactly", "F4 B2 C2 B@4 C@6", 'r', 4, 4, 0, 'F'},
        {"map F(4) over B and C and a free granule", "F4 B2 C2 B@4 C@6", 'r', 5, 4, 0, 'F'},
        {"map A over D and G, 1 granule each", "A2 D1 G1 D@4 G@5", 'r', 4, 2, 0, 'A'},
        {"map A over D and G (G mapped first)", "A2 D1 G1 G@5 D@4", 'r', 4, 2, 0, 'A'},
        /* the same handle there */
        {"map A over A exact", "A2 A@4", 'r', 4, 2, 0, 'A'},
        {"map A over A starting inside it", "A2 A@4", 'r', 5, 2, 0, 'A'},
        {"map A over A ending inside it", "A2 A@4", 'r', 3, 2, 0, 'A'},
        {"map A adjacent after A", "A2 A@4", 'r', 6, 2, 0, 'A'},
        {"map A adjacent before A", "A2 A@4", 'r', 2, 2, 0, 'A'},
        {"map F(4) over F starting inside it", "F4 F@4", 'r', 6, 4, 0, 'F'},
        {"map F(4) over F ending inside it", "F4 F@4", 'r', 2, 4, 0, 'F'},
        {"map F(4) over F starting 1g into it", "F4 F@4", 'r', 5, 4, 0, 'F'},
        {"map A over A then B", "A2 B2 A@4 B@6", 'r', 5, 2, 0, 'A'},
        {"map A over B then A", "A2 B2 B@4 A@6", 'r', 5, 2, 0, 'A'},
        {"map A over A then B (B mapped first)", "A2 B2 B@6 A@4", 'r', 5, 2, 0, 'A'},
        {"map A over B then A (A mapped first)", "A2 B2 A@6 B@4", 'r', 5, 2, 0, 'A'},
        /* the handle mapped somewhere else too */
        {"map A over B exact, A mapped in E", "A2 B2 A@e0 B@4", 'r', 4, 2, 0, 'A'},
        {"map A over B starting inside, A mapped in E", "A2 B2 A@e0 B@4", 'r', 5, 2, 0, 'A'},
        {"map A over B ending inside, A mapped in E", "A2 B2 A@e0 B@4", 'r', 3, 2, 0, 'A'},
        {"map A over B and C, A mapped in E", "A2 B2 C2 A@e0 B@4 C@6", 'r', 5, 2, 0, 'A'},
        {"map A over B exact, A mapped in R", "A2 B2 A@0 B@4", 'r', 4, 2, 0, 'A'},
        {"map A over B starting inside, A mapped in R", "A2 B2 A@0 B@4", 'r', 5, 2, 0, 'A'},
        {"map A over B ending inside, A mapped in R", "A2 B2 A@0 B@4", 'r', 3, 2, 0, 'A'},
        {"map A over B exact, B mapped in E too", "A2 B2 B@4 B@e0", 'r', 4, 2, 0, 'A'},
        {"map A over B starting inside, B in E too", "A2 B2 B@4 B@e0", 'r', 5, 2, 0, 'A'},
        {"map A over A starting inside, A in E too", "A2 A@4 A@e0", 'r', 5, 2, 0, 'A'},
        {"map A into free E, A mapped in R", "A2 B1 A@4 B@e0", 'e', 2, 2, 0, 'A'},
        /* after cuMemSetAccess */
        {"map A over B exact, rw", "A2 B2 B@4 rw", 'r', 4, 2, 0, 'A'},
        {"map A over B starting inside, rw", "A2 B2 B@4 rw", 'r', 5, 2, 0, 'A'},
        {"map A over B ending inside, rw", "A2 B2 B@4 rw", 'r', 3, 2, 0, 'A'},
        {"map A over B and C, rw", "A2 B2 C2 B@4 C@6 rw", 'r', 5, 2, 0, 'A'},
        {"map A over A exact, rw", "A2 A@4 rw", 'r', 4, 2, 0, 'A'},
        {"map A over A starting inside, rw", "A2 A@4 rw", 'r', 5, 2, 0, 'A'},
        {"map A over A ending inside, rw", "A2 A@4 rw", 'r', 3, 2, 0, 'A'},
        {"map A adjacent after A, rw", "A2 A@4 rw", 'r', 6, 2, 0, 'A'},
        /* released handles still mapped */
        {"map A over B exact, B released", "A2 B2 B@4 relB", 'r', 4, 2, 0, 'A'},
        {"map A over B starting inside, B released", "A2 B2 B@4 relB", 'r', 5, 2, 0, 'A'},
        {"map A over A exact, A released", "A2 A@4 relA", 'r', 4, 2, 0, 'A'},
        {"map A over A starting inside, A released", "A2 A@4 relA", 'r', 5, 2, 0, 'A'},
        {"map A free target, A released, mapped in R", "A2 A@4 relA", 'r', 8, 2, 0, 'A'},
        /* part of a larger allocation over a mapping */
        {"map A(4) first half over B exact", "A4 B2 B@4", 'r', 4, 2, 0, 'A'},
        {"map A(4) first half starting inside B", "A4 B2 B@4", 'r', 5, 2, 0, 'A'},
        {"map A(4) first half starting inside A", "A4 A@4", 'r', 6, 2, 0, 'A'},
        {"map A(4) offset 2g over its own second half", "A4 A@4", 'r', 6, 2, 2, 'A'},
        {"map A(4) offset 2g over B exact", "A4 B2 B@4", 'r', 4, 2, 2, 'A'},
        {"map A(4) 5 granules over B", "A4 B2 B@4", 'r', 4, 5, 0, 'A'},
        {"map A(4) first half over B and C (B first)", "A4 B2 C2 B@4 C@6", 'r', 5, 2, 0, 'A'},
        {"map A(4) first half over B and C (C first)", "A4 B2 C2 C@6 B@4", 'r', 5, 2, 0, 'A'},
        {"map A released, still mapped, first half", "A4 A@0 relA", 'r', 6, 2, 0, 'A'},
        /* two reservations back to back */
        {"map A across R into R1", "A2 r1:4", 'r', 11, 2, 0, 'A'},
        {"map A across R into R1 ending inside B", "A2 B2 r1:4 B@12", 'r', 11, 2, 0, 'A'},
        {"map A across R into R1 starting inside B", "A2 B2 r1:4 B@10", 'r', 11, 2, 0, 'A'},
        {"map F(4) across R into R1", "F4 r1:4", 'r', 10, 4, 0, 'F'},
        {"map F(4) across R1 past its end", "F4 r1:4", 'r', 14, 4, 0, 'F'},
        {"map A at R1's start", "A2 r1:4", 'r', 12, 2, 0, 'A'},
        /* R's edges and outside */
        {"map A past R's end by a granule", "A2", 'r', 11, 2, 0, 'A'},
        {"map D(1) just after R", "D1", 'r', 12, 1, 0, 'D'},
        {"map D(1) just before R", "D1", 'r', -1, 1, 0, 'D'},
        {"map A from before R into it", "A2", 'r', -1, 2, 0, 'A'},
        {"map A outside every reservation (X)", "A2", 'x', 2, 2, 0, 'A'},
        {"map A past R's end by a granule, B there", "A2 B1 B@10", 'r', 11, 2, 0, 'A'},
    };
    for (size_t i = 0; i < sizeof ov / sizeof ov[0]; i++) {
        long at = ov[i].at;
        char w = ov[i].where, hc = ov[i].h;
        MAPC(ov[i].name, ov[i].spec, w == 'e' ? E(at) : w == 'x' ? X(at) : R(at), ov[i].n * g,
             ov[i].off * g, H(hc), 0);
    }
    vs_finish();
}

/* cuMemMap with two things wrong at once: which answer wins tells the order of the checks.
 * Base: A (2 granules, unmapped) to a free target R+8 (succeeds); B at R+2, C at R+4; Z freed. */
enum { F_FLAGS, F_H0, F_HFREED, F_P0, F_PPAGE, F_POUT, F_PPAST, F_POVER, F_PTWO, F_PEND, F_PSAME,
       F_PSAMEIN, F_PSAMEEND, F_S0, F_SPAGE, F_SPART, F_SBIG, F_OPAGE, F_OG, NFAULT };
static const struct { const char *name; int group; } faults[NFAULT] = {
    {"flags 1", 0},           {"handle 0", 1},         {"freed handle", 1},
    {"ptr 0", 2},             {"ptr +4096", 2},        {"outside (X)", 2},
    {"past R's end", 2},      {"over B exact", 2},     {"inside B into C", 2},
    {"ending inside B", 2},   {"over A exact", 2},     {"inside A", 2},
    {"ending inside A", 2},   {"size 0", 3},           {"size +4096", 3},
    {"size g (part)", 3},     {"size 3g (too big)", 3}, {"offset 4096", 4},
    {"offset g", 4},
};

static void vs_order_case(int f1, int f2)
{
    char n[160];
    int same = (f1 >= F_PSAME && f1 <= F_PSAMEEND) || (f2 >= F_PSAME && f2 <= F_PSAMEEND);
    const char *spec = same ? "A2 B2 H1 A@2 relH" : "A2 B2 C2 H1 B@2 C@4 relH";
    if (f2 < 0) snprintf(n, sizeof n, "order: %s", faults[f1].name);
    else snprintf(n, sizeof n, "order: %s + %s", faults[f1].name, faults[f2].name);
    if (!vbegin(n, spec)) return;
    CUdeviceptr ptr = R(8);
    size_t size = 2 * g, off = 0;
    CUmemGenericAllocationHandle h = H('A');
    unsigned long long fl = 0;
    for (int k = 0; k < 2; k++) {
        switch (k ? f2 : f1) {
        case F_FLAGS: fl = 1; break;
        case F_H0: h = 0; break;
        case F_HFREED: h = H('H'); break;
        case F_P0: ptr = 0; break;
        case F_PPAGE: ptr = R(8) + 4096; break;
        case F_POUT: ptr = X(2); break;
        case F_PPAST: ptr = R(11); break;
        case F_POVER: ptr = R(2); break;
        case F_PTWO: ptr = R(3); break;
        case F_PEND: ptr = R(1); break;
        case F_PSAME: ptr = R(2); break;
        case F_PSAMEIN: ptr = R(3); break;
        case F_PSAMEEND: ptr = R(1); break;
        case F_S0: size = 0; break;
        case F_SPAGE: size = 2 * g + 4096; break;
        case F_SPART: size = g; break;
        case F_SBIG: size = 3 * g; break;
        case F_OPAGE: off = 4096; break;
        case F_OG: off = g; break;
        default: break;
        }
    }
    if (PC(n, cuMemMap(ptr, size, off, h, fl)) == CUDA_SUCCESS) st_add(ptr, size, st_index(h));
    show_layout(n);
    vend(n);
}

static void s_vmmstate_order(void)
{
    vs_setup();
    for (int f = 0; f < NFAULT; f++) vs_order_case(f, -1);
    for (int f1 = 0; f1 < NFAULT; f1++)
        for (int f2 = f1 + 1; f2 < NFAULT; f2++)
            if (faults[f1].group != faults[f2].group) vs_order_case(f1, f2);
    vs_finish();
}

/* cuMemUnmap: the range against the mappings in it, R's edges, unaligned starts and sizes, two
 * reservations, handles mapped twice or released. */
static void s_vmmstate_unmap(void)
{
    vs_setup();
    const char *ab = "A2 B2 A@4 B@8";
    UNMAPC("unmap A exact", ab, R(4), 2 * g);
    UNMAPC("unmap A and the free granule after it", ab, R(4), 3 * g);
    UNMAPC("unmap the free granule before A and A", ab, R(3), 3 * g);
    UNMAPC("unmap free granules only", ab, R(6), 2 * g);
    UNMAPC("unmap A's first half", ab, R(4), g);
    UNMAPC("unmap A's second half", ab, R(5), g);
    UNMAPC("unmap straddling A's end", ab, R(5), 2 * g);
    UNMAPC("unmap straddling A's start", ab, R(3), 2 * g);
    UNMAPC("unmap A, the gap and B", ab, R(4), 6 * g);
    UNMAPC("unmap A, the gap and half of B", ab, R(4), 5 * g);
    UNMAPC("unmap half of A, the gap and B", ab, R(5), 5 * g);
    UNMAPC("unmap A and B adjacent", "A2 B2 A@4 B@6", R(4), 4 * g);
    UNMAPC("unmap A and B adjacent, half of B", "A2 B2 A@4 B@6", R(4), 3 * g);
    UNMAPC("unmap the whole of R", ab, R(0), VS_R * g);
    UNMAPC("unmap R and a granule past its end", ab, R(0), (VS_R + 1) * g);
    UNMAPC("unmap from the granule before R", ab, R(-1), (VS_R + 1) * g);
    UNMAPC("unmap free, running past R's end", ab, R(10), 4 * g);
    UNMAPC("unmap outside every reservation (X)", ab, X(2), 2 * g);
    UNMAPC("unmap ptr 0", ab, 0, 2 * g);
    UNMAPC("unmap size 0", ab, R(4), 0);
    /* unaligned */
    UNMAPC("unmap free, ptr +4096", ab, R(10) + 4096, g);
    UNMAPC("unmap free, ptr +4096, ending on a granule", ab, R(10) + 4096, g - 4096);
    UNMAPC("unmap free, ptr +g/2", ab, R(10) + g / 2, g);
    UNMAPC("unmap from 4096 before A over A", ab, R(4) - 4096, 2 * g + 4096);
    UNMAPC("unmap ptr +4096 inside A to its end", ab, R(4) + 4096, 2 * g - 4096);
    UNMAPC("unmap ptr +4096 at R's last granule", ab, R(VS_R - 1) + 4096, g);
    UNMAPC("unmap ptr +4096 at R's last, ending in R", ab, R(VS_R - 1) + 4096, g - 4096);
    UNMAPC("unmap ptr +4096 before A, size 2g", ab, R(3) + 4096, 2 * g);
    UNMAPC("unmap A plus a page", ab, R(4), 2 * g + 4096);
    UNMAPC("unmap A less a page", ab, R(4), 2 * g - 4096);
    UNMAPC("unmap free, size g/2", ab, R(10), g / 2);
    UNMAPC("unmap free, size 4096", ab, R(10), 4096);
    /* states of the mapping and its handle */
    UNMAPC("unmap A exact, rw", "A2 B2 A@4 B@8 rw", R(4), 2 * g);
    UNMAPC("unmap A's first half, rw", "A2 B2 A@4 B@8 rw", R(4), g);
    UNMAPC("unmap A in R, A mapped in E too", "A2 A@4 A@e0 rw", R(4), 2 * g);
    UNMAPC("unmap A in E, A mapped in R too", "A2 A@4 A@e0 rw", E(0), 2 * g);
    UNMAPC("unmap A released while mapped", "A2 A@4 relA", R(4), 2 * g);
    UNMAPC("unmap A in R, released, mapped in E too", "A2 A@4 A@e0 relA rw", R(4), 2 * g);
    UNMAPC("unmap F(4) exact", "F4 F@4", R(4), 4 * g);
    UNMAPC("unmap F(4)'s middle", "F4 F@4", R(5), 2 * g);
    /* two reservations back to back, A crossing from R into R1 */
    UNMAPC("unmap A across R and R1 exact", "A2 r1:4 A@11", R(11), 2 * g);
    UNMAPC("unmap R's part of A across R and R1", "A2 r1:4 A@11", R(11), g);
    UNMAPC("unmap R1's part of A across R and R1", "A2 r1:4 A@11", R(12), g);
    UNMAPC("unmap the whole of R1, A crossing into it", "A2 r1:4 A@11", R(12), 4 * g);
    UNMAPC("unmap the whole of R, A crossing out of it", "A2 r1:4 A@11", R(0), VS_R * g);
    UNMAPC("unmap R and R1 as one range", "A2 r1:4 A@11", R(0), (VS_R + 4) * g);
    UNMAPC("unmap R and R1 as one range, A in R1", "A2 r1:4 A@13", R(0), (VS_R + 4) * g);
    UNMAPC("unmap free range across R and R1", "A2 r1:4 A@4", R(10), 4 * g);
    vs_finish();
}

/* cuMemSetAccess and cuMemGetAccess against the mappings in the range. */
static void s_vmmstate_access(void)
{
    vs_setup();
    const char *ab = "A2 B2 A@4 B@6", *agb = "A2 B2 A@4 B@8";
    CUmemAccessDesc rw_ro[2] = {rw, ro}, ro_rw[2] = {ro, rw}, rw_bad[2] = {rw, bad};
    SETC("setaccess A exact", ab, R(4), 2 * g, &rw, 1);
    SETC("setaccess A's first half", ab, R(4), g, &rw, 1);
    SETC("setaccess A's second half", ab, R(5), g, &rw, 1);
    SETC("setaccess A and B adjacent", ab, R(4), 4 * g, &rw, 1);
    SETC("setaccess A, B and the granule after", ab, R(4), 5 * g, &rw, 1);
    SETC("setaccess straddling A's end into B", ab, R(5), 2 * g, &rw, 1);
    SETC("setaccess A, the gap and B", agb, R(4), 6 * g, &rw, 1);
    SETC("setaccess A, the gap and B (B mapped first)", "A2 B2 B@8 A@4", R(4), 6 * g, &rw, 1);
    SETC("setaccess A, B, a gap and C", "A2 B2 C2 A@4 B@6 C@10", R(4), 8 * g, &rw, 1);
    SETC("setaccess A, a gap, B and C", "A2 B2 C2 A@2 B@6 C@8", R(2), 8 * g, &rw, 1);
    SETC("setaccess A, gap, B, gap, C", "A2 B2 C2 A@0 B@4 C@8", R(0), 10 * g, &rw, 1);
    SETC("setaccess A, a 3-granule gap and B", "A2 B2 A@2 B@7", R(2), 7 * g, &rw, 1);
    SETC("setaccess A, the gap and half of B", "A2 B2 A@4 B@8", R(4), 5 * g, &rw, 1);
    SETC("setaccess half of A, the gap and B", "A2 B2 A@4 B@8", R(5), 5 * g, &rw, 1);
    SETC("setaccess A, the gap and A again", "A2 A@4 A@8", R(4), 6 * g, &rw, 1);
    SETC("setaccess A, the gap and B, rw before", "A2 B2 A@4 B@8 rw", R(4), 6 * g, &ro, 1);
    SETC("setaccess A, a gap, B in R1", "A2 B2 r1:4 A@9 B@13", R(9), 6 * g, &rw, 1);
    SETC("setaccess A and the free granule after", agb, R(4), 3 * g, &rw, 1);
    SETC("setaccess the free granule before and A", agb, R(3), 3 * g, &rw, 1);
    SETC("setaccess free granules only", agb, R(6), 2 * g, &rw, 1);
    SETC("setaccess the whole of R", agb, R(0), VS_R * g, &rw, 1);
    SETC("setaccess ptr 0", agb, 0, 2 * g, &rw, 1);
    SETC("setaccess outside every reservation (X)", agb, X(2), 2 * g, &rw, 1);
    SETC("setaccess A, ptr +4096", agb, R(4) + 4096, 2 * g - 4096, &rw, 1);
    SETC("setaccess A plus a page", agb, R(4), 2 * g + 4096, &rw, 1);
    SETC("setaccess A less a page", agb, R(4), 2 * g - 4096, &rw, 1);
    SETC("setaccess A, descriptors rw then ro", agb, R(4), 2 * g, rw_ro, 2);
    SETC("setaccess A, descriptors ro then rw", agb, R(4), 2 * g, ro_rw, 2);
    SETC("setaccess A, descriptors rw then flags 2", "A2 B2 A@4 B@8 rw", R(4), 2 * g, rw_bad, 2);
    SETC("setaccess A read-only, rw before", "A2 B2 A@4 B@8 rw", R(4), 2 * g, &ro, 1);
    SETC("setaccess A PROT_NONE, rw before", "A2 B2 A@4 B@8 rw", R(4), 2 * g, &pnone, 1);
    SETC("setaccess A rw again, rw before", "A2 B2 A@4 B@8 rw", R(4), 2 * g, &rw, 1);
    SETC("setaccess A's first half read-only, rw", "A2 B2 A@4 B@8 rw", R(4), g, &ro, 1);
    SETC("setaccess A in R, A mapped in E too", "A2 A@4 A@e0", R(4), 2 * g, &rw, 1);
    SETC("setaccess A in R read-only, A in E too, rw", "A2 A@4 A@e0 rw", R(4), 2 * g, &ro, 1);
    SETC("setaccess A released while mapped", "A2 A@4 relA", R(4), 2 * g, &rw, 1);
    SETC("setaccess F(4)'s middle", "F4 F@4", R(5), 2 * g, &rw, 1);
    SETC("setaccess A across R and R1", "A2 r1:4 A@11", R(11), 2 * g, &rw, 1);
    SETC("setaccess R's part of A across R and R1", "A2 r1:4 A@11", R(11), g, &rw, 1);
    SETC("setaccess R1's part of A across R and R1", "A2 r1:4 A@11", R(12), g, &rw, 1);
    SETC("setaccess A and B across R and R1", "A2 B2 r1:4 A@10 B@12", R(10), 4 * g, &rw, 1);

    /* an argument wrong and the range wrong too: which answer comes first */
    CUmemAccessDesc d1 = rw;
    d1.location.id = 1;
    CUmemLocation l1 = loc0;
    l1.id = 1;
    SETC("setaccess device 1, A exact", agb, R(4), 2 * g, &d1, 1);
    SETC("setaccess device 1, free granules", agb, R(6), 2 * g, &d1, 1);
    SETC("setaccess flags 2, free granules", agb, R(6), 2 * g, &bad, 1);
    SETC("setaccess count 0, free granules", agb, R(6), 2 * g, &rw, 0);
    VCASE("getaccess device 1, A", agb, cuMemGetAccess(&vs_flags, &l1, R(4)), {});
    VCASE("getaccess device 1, free granule", agb, cuMemGetAccess(&vs_flags, &l1, R(10)), {});
    VCASE("getaccess device 1, outside (X)", agb, cuMemGetAccess(&vs_flags, &l1, X(2)), {});
    VCASE("getaccess location NULL, free granule", agb, cuMemGetAccess(&vs_flags, NULL, R(10)), {});
    VCASE("getaccess flags NULL, free granule", agb, cuMemGetAccess(NULL, &loc0, R(10)), {});
    VCASE("retain handle NULL, free granule", agb, cuMemRetainAllocationHandle(NULL, (void *)(uintptr_t)R(10)), {});

    GETC("getaccess A's start, no access", agb, R(4));
    GETC("getaccess A's start, rw", "A2 B2 A@4 B@8 rw", R(4));
    GETC("getaccess A's last byte, rw", "A2 B2 A@4 B@8 rw", R(6) - 1);
    GETC("getaccess the byte after A, rw", "A2 B2 A@4 B@8 rw", R(6));
    GETC("getaccess inside A, unaligned, rw", "A2 B2 A@4 B@8 rw", R(4) + g + 12345);
    GETC("getaccess free granule of R", agb, R(10));
    GETC("getaccess R's last byte, free", agb, R(VS_R) - 1);
    GETC("getaccess the byte before R", agb, R(0) - 1);
    GETC("getaccess outside every reservation (X)", agb, X(2));
    GETC("getaccess ptr 0", agb, 0);
    GETC("getaccess A in E, set in R only", "A2 A@4 A@e0 rw", E(0));
    GETC("getaccess A released while mapped, rw", "A2 A@4 relA rw", R(4));
    GETC("getaccess R1's part of A across R and R1", "A2 r1:4 A@11 rw", R(12));
    vs_finish();
}

/* cuMemRetainAllocationHandle, cuMemRelease, cuMemGetAllocationPropertiesFromHandle and
 * cuMemAddressFree against the handle's and the reservation's state. */
static void s_vmmstate_handles(void)
{
    vs_setup();
    const char *a = "A2 B2 A@4 B@8";
    RETC("retain A's start", a, R(4));
    RETC("retain A's last byte", a, R(6) - 1);
    RETC("retain the byte after A", a, R(6));
    RETC("retain a free granule of R", a, R(10));
    RETC("retain outside every reservation (X)", a, X(2));
    RETC("retain ptr 0", a, 0);
    RETC("retain A's start, rw", "A2 B2 A@4 B@8 rw", R(4));
    RETC("retain A in E, A mapped in R too", "A2 A@4 A@e0", E(1));
    RETC("retain A released while mapped", "A2 A@4 relA", R(4));
    RETC("retain R1's part of A across R and R1", "A2 r1:4 A@11", R(12));

    RELC("release A unmapped", "A2", 'A');
    RELC("release A mapped", "A2 A@4 rw", 'A');
    RELC("release A mapped in R and E", "A2 A@4 A@e0 rw", 'A');
    RELC("release A mapped, released before", "A2 A@4 relA rw", 'A');
    RELC("release A unmapped, released before", "A2 relA", 'A');
    if (vbegin("release A mapped, after a retain", "A2 A@4 rw")) {
        if (P("release A mapped, after a retain", cuMemRetainAllocationHandle(&vs_h, (void *)(uintptr_t)R(4))) ==
            CUDA_SUCCESS)
            S.refs[0]++;
        if (P("  after a retain: release", cuMemRelease(H('A'))) == CUDA_SUCCESS) S.refs[0]--;
        if (P("  after a retain: release again", cuMemRelease(H('A'))) == CUDA_SUCCESS) S.refs[0]--;
        if (P("  after a retain: release a third time", cuMemRelease(H('A'))) == CUDA_SUCCESS) S.refs[0]--;
        show_layout("release A mapped, after a retain");
        show_data("release A mapped, after a retain");
        vend("release A mapped, after a retain");
    }
    MAPC("released A, still mapped: map it again", "A2 A@4 relA rw", R(8), 2 * g, 0, H('A'), 0);
    MAPC("released A, still mapped: map it in E", "A2 B1 A@4 B@e2 relA", E(0), 2 * g, 0, H('A'), 0);
    if (vbegin("released A: unmap, then map it", "A2 A@4 relA")) {
        if (P("released A: unmap, then map it", cuMemUnmap(R(4), 2 * g)) == CUDA_SUCCESS) st_unmapped(R(4), 2 * g);
        if (P("  unmapped released A: map", cuMemMap(R(4), 2 * g, 0, H('A'), 0)) == CUDA_SUCCESS)
            st_add(R(4), 2 * g, 0);
        if (P("  unmapped released A: release", cuMemRelease(H('A'))) == CUDA_SUCCESS) S.refs[0]--;
        show_layout("released A: unmap, then map it");
        vend("released A: unmap, then map it");
    }
    if (vbegin("released A: retain, unmap, map again", "A2 A@4 relA")) {
        if (P("released A: retain, unmap, map again", cuMemRetainAllocationHandle(&vs_h, (void *)(uintptr_t)R(4))) ==
            CUDA_SUCCESS)
            S.refs[0]++;
        YN("  retained is A", vs_h == H('A'));
        if (P("  retained released A: unmap", cuMemUnmap(R(4), 2 * g)) == CUDA_SUCCESS) st_unmapped(R(4), 2 * g);
        if (P("  retained released A: map again", cuMemMap(R(6), 2 * g, 0, H('A'), 0)) == CUDA_SUCCESS)
            st_add(R(6), 2 * g, 0);
        show_layout("released A: retain, unmap, map again");
        vend("released A: retain, unmap, map again");
    }
    CUmemAllocationProp pp;
    VCASE("props of A unmapped", "A2", cuMemGetAllocationPropertiesFromHandle(&pp, H('A')), {});
    VCASE("props of A mapped", "A2 A@4", cuMemGetAllocationPropertiesFromHandle(&pp, H('A')), {});
    VCASE("props of A released while mapped", "A2 A@4 relA", cuMemGetAllocationPropertiesFromHandle(&pp, H('A')), {});
    VCASE("props of A released, mapped in R and E", "A2 A@4 A@e0 relA",
          cuMemGetAllocationPropertiesFromHandle(&pp, H('A')), {});

    FREEC("addressfree R empty", "", R(0), VS_R * g);
    FREEC("addressfree R with A mapped", "A2 A@4", R(0), VS_R * g);
    FREEC("addressfree R with A mapped, rw", "A2 A@4 rw", R(0), VS_R * g);
    FREEC("addressfree R with A released, mapped", "A2 A@4 relA", R(0), VS_R * g);
    FREEC("addressfree R, A mapped in E only", "A2 A@e0", R(0), VS_R * g);
    FREEC("addressfree E, A mapped in R and E", "A2 A@4 A@e0", E(0), VS_E * g);
    FREEC("addressfree R a granule short", "", R(0), (VS_R - 1) * g);
    FREEC("addressfree R a granule long", "", R(0), (VS_R + 1) * g);
    FREEC("addressfree R a page short", "", R(0), VS_R * g - 4096);
    FREEC("addressfree R's second granule on", "", R(1), (VS_R - 1) * g);
    FREEC("addressfree R, ptr +4096", "", R(0) + 4096, VS_R * g);
    FREEC("addressfree ptr 0", "", 0, VS_R * g);
    FREEC("addressfree size 0", "", R(0), 0);
    FREEC("addressfree outside every reservation (X)", "", X(0), VS_X * g);
    FREEC("addressfree R and R1 as one range", "r1:4", R(0), (VS_R + 4) * g);
    FREEC("addressfree R1 alone", "r1:4", R(VS_R), 4 * g);
    FREEC("addressfree R1, A crossing into it", "A2 r1:4 A@11", R(VS_R), 4 * g);
    FREEC("addressfree R, A crossing out of it", "A2 r1:4 A@11", R(0), VS_R * g);
    FREEC("addressfree R1, A mapped in R only", "A2 r1:4 A@4", R(VS_R), 4 * g);
    if (vbegin("addressfree R after unmapping A", "A2 A@4 rw")) {
        if (P("addressfree R after unmapping A", cuMemUnmap(R(4), 2 * g)) == CUDA_SUCCESS) st_unmapped(R(4), 2 * g);
        CUdeviceptr r0 = R(0);
        CUresult rc = P("  after unmapping A: addressfree", cuMemAddressFree(r0, VS_R * g));
        st_freed(rc, r0, VS_R * g);
        P("  after unmapping A: addressfree again", cuMemAddressFree(r0, VS_R * g));
        vend("addressfree R after unmapping A");
    }
    vs_finish();
}

/* cuMemsetD32, then (if it was accepted) cuCtxSynchronize in the same context: its answer. */
static CUresult memset_sync(CUdeviceptr p, uint32_t v, size_t n)
{
    CUresult rc = cuMemsetD32(p, v, n);
    return rc != CUDA_SUCCESS ? rc : cuCtxSynchronize();
}

/* The calls made in the primary context, another created context and with none current, on
 * state built in the section's own context; and mappings of a context destroyed since. */
static void s_vmmstate_ctx(void)
{
    vs_setup();
    static const char *mname[] = {"home", "primary", "other context", "no context"};
    char n[160];
    uint32_t buf[16];
    size_t gg = 0;
    CUmemAllocationProp pp;
    CUdeviceptr va;
    cuDevicePrimaryCtxRetain(&vs_primary, dev);
    ctx_create(&vs_other);
    cuCtxPopCurrent(NULL);
#define NM(s) (snprintf(n, sizeof n, "%s: %s", mname[md], s), n)
    for (int md = VS_PRIMARY; md <= VS_NONE; md++) {
        vs_mode = md;
        MAPC(NM("map A free"), "A2", R(4), 2 * g, 0, H('A'), 0);
        MAPC(NM("map A over B exact"), "A2 B2 B@4", R(4), 2 * g, 0, H('A'), 0);
        MAPC(NM("map A over B starting inside"), "A2 B2 B@4", R(5), 2 * g, 0, H('A'), 0);
        MAPC(NM("map A(4) first half"), "A4", R(4), 2 * g, 0, H('A'), 0);
        SETC(NM("setaccess A"), "A2 A@4", R(4), 2 * g, &rw, 1);
        SETC(NM("setaccess A's first half"), "A2 A@4", R(4), g, &rw, 1);
        GETC(NM("getaccess A, rw"), "A2 A@4 rw", R(4));
        RETC(NM("retain A"), "A2 A@4", R(4));
        UNMAPC(NM("unmap A, rw"), "A2 A@4 rw", R(4), 2 * g);
        UNMAPC(NM("unmap A's first half, rw"), "A2 A@4 rw", R(4), g);
        RELC(NM("release A mapped, rw"), "A2 A@4 rw", 'A');
        RELC(NM("release A unmapped"), "A2", 'A');
        FREEC(NM("addressfree R empty"), "", R(0), VS_R * g);
        FREEC(NM("addressfree R with A mapped"), "A2 A@4", R(0), VS_R * g);
        VCASE(NM("props of A"), "A2", cuMemGetAllocationPropertiesFromHandle(&pp, H('A')), {});
        VCASE(NM("granularity"), "", cuMemGetAllocationGranularity(&gg, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), {});
        VCASE(NM("reserve"), "", cuMemAddressReserve(&va, g, 0, 0, 0), {
            if (rc_ == CUDA_SUCCESS && cuMemAddressFree(va, g) != CUDA_SUCCESS) st_failed = 1;
        });
        VCASE(NM("create"), "", cuMemCreate(&vs_h, g, &prop, 0), {
            if (rc_ == CUDA_SUCCESS && cuMemRelease(vs_h) != CUDA_SUCCESS) st_failed = 1;
        });
        VCASE(NM("memcpyDtoH of A, rw"), "A2 A@4 rw", cuMemcpyDtoH(buf, R(4), sizeof buf), {
            if (rc_ == CUDA_SUCCESS) vline(n_, "marker read", buf[0] == st_marker(0, 0) ? "yes" : "no");
        });
        VCASE(NM("memsetD32 into A, rw, synchronized"), "A2 A@4 rw", memset_sync(R(4), 7, 16), {
            if (rc_ == CUDA_SUCCESS) vline(n_, "fill seen", words_are(R(4), 7, 16) ? "yes" : "no");
        });
    }
#undef NM
    vs_mode = VS_HOME;
    /* a mapping made while another context was current, that context destroyed since */
    CUcontext c3;
    const char *dn = "destroyed context's mapping";
    ctx_create(&c3);
    if (vbegin(dn, "A2 A@4 rw")) {
        cuCtxDestroy(c3);
        c3 = NULL;
        unsigned long long fl = 99;
        P(dn, cuMemGetAccess(&fl, &loc0, R(4)));
        V("  destroyed context's mapping: flags", "%llu", fl);
        show_data(dn);
        if (P("  destroyed context's mapping: unmap", cuMemUnmap(R(4), 2 * g)) == CUDA_SUCCESS)
            st_unmapped(R(4), 2 * g);
        show_layout(dn);
        vend(dn);
    }
    if (c3) cuCtxDestroy(c3);
    if (vbegin("mapping seen from a context created after it", "A2 A@4 rw")) {
        CUcontext c4;
        ctx_create(&c4);
        P("mapping seen from a context created after it", cuMemcpyDtoH(buf, R(4), sizeof buf));
        YN("  context created after: marker read", buf[0] == st_marker(0, 0));
        cuCtxDestroy(c4);
        vend("mapping seen from a context created after it");
    }
    cuCtxDestroy(vs_other);
    cuDevicePrimaryCtxRelease(dev);
    vs_finish();
}

/* A mapping that runs past the end of its reservation (NVIDIA maps it: only its start has to lie
 * in a reservation): what the rest of the driver makes of the part past the end. Each state's
 * steps run in order; the copies and fills come last, in a state of their own. */
static void s_vmmstate_overhang(void)
{
    vs_setup();
    const char *n = "overhang: map A over R's last granule";
    CUdeviceptr x = 0;
    uint32_t buf[16] = {0};
    CUresult rc;
    if (vbegin(n, "A2 B2 B@4")) {
        if (P(n, cuMemMap(R(11), 2 * g, 0, H('A'), 0)) == CUDA_SUCCESS) st_add(R(11), 2 * g, 0);
        show_layout(n);
        if (P("  overhang: retain past the end", cuMemRetainAllocationHandle(&vs_h, (void *)(uintptr_t)R(12))) ==
            CUDA_SUCCESS) {
            YN("  overhang: retained past the end is A", vs_h == H('A'));
            cuMemRelease(vs_h);
        }
        P("  overhang: getaccess past the end", cuMemGetAccess(&vs_flags, &loc0, R(12)));
        P("  overhang: setaccess the mapping", cuMemSetAccess(R(11), 2 * g, &rw, 1));
        show_access(n);
        vs_flags = 99;
        if (P("  overhang: getaccess past the end, rw", cuMemGetAccess(&vs_flags, &loc0, R(12))) == CUDA_SUCCESS)
            V("  overhang: flags past the end", "%llu", vs_flags);
        P("  overhang: setaccess past the end only", cuMemSetAccess(R(12), g, &ro, 1));
        P("  overhang: setaccess R's last granule only", cuMemSetAccess(R(11), g, &ro, 1));
        P("  overhang: unmap from past the end", cuMemUnmap(R(12), g));
        P("  overhang: unmap R's last granule", cuMemUnmap(R(11), g));
        rc = P("  overhang: addressfree R", cuMemAddressFree(R(0), VS_R * g));
        st_freed(rc, R(0), VS_R * g);
        if (S.r) {
            if (P("  overhang: unmap the mapping", cuMemUnmap(R(11), 2 * g)) == CUDA_SUCCESS) st_unmapped(R(11), 2 * g);
            st_granules(n, "layout at the end", st_which);
        }
        vend(n);
    }
    n = "overhang: copies and fills past the end";
    if (vbegin(n, "A2")) {
        if (P(n, cuMemMap(R(11), 2 * g, 0, H('A'), 0)) == CUDA_SUCCESS) st_add(R(11), 2 * g, 0);
        P("  overhang data: setaccess", cuMemSetAccess(R(11), 2 * g, &rw, 1));
        P("  overhang data: memsetD32 in R", memset_sync(R(11), 9, 16));
        YN("  overhang data: fill in R reads back", words_are(R(11), 9, 16));
        P("  overhang data: memsetD32 past the end", memset_sync(R(12), 8, 16));
        P("  overhang data: memcpyDtoH past the end", cuMemcpyDtoH(buf, R(12), sizeof buf));
        YN("  overhang data: fill past the end reads back", buf[0] == 8 && buf[15] == 8);
        P("  overhang data: memsetD32 across the end", memset_sync(R(12) - 64, 7, 32));
        YN("  overhang data: fill across the end reads back", words_are(R(12) - 64, 7, 32));
        if (P("  overhang data: unmap", cuMemUnmap(R(11), 2 * g)) == CUDA_SUCCESS) st_unmapped(R(11), 2 * g);
        vend(n);
    }
    /* Last: NVIDIA lets a reservation at a hint take the VA past the end (measured in an earlier
     * recording, where VA left behind there then held stale mappings for later cases). */
    n = "overhang: reserve past the end while mapped";
    if (vbegin(n, "A2 D1")) {
        if (cuMemMap(R(11), 2 * g, 0, H('A'), 0) == CUDA_SUCCESS) st_add(R(11), 2 * g, 0);
        if (P(n, cuMemAddressReserve(&x, g, 0, R(12), 0)) == CUDA_SUCCESS) {
            YN("  overhang: reserved at the hint", x == R(12));
            if (x == R(12)) {
                rc = P("  overhang: map D in that reservation", cuMemMap(x, g, 0, H('D'), 0));
                show_layout(n);
                if (rc == CUDA_SUCCESS) P("  overhang: unmap D there", cuMemUnmap(x, g));
            }
            if (P("  overhang: unmap A", cuMemUnmap(R(11), 2 * g)) == CUDA_SUCCESS) st_unmapped(R(11), 2 * g);
            P("  overhang: addressfree that reservation", cuMemAddressFree(x, g));
        }
        vend(n);
    }
    vs_finish();
}

/* cuMemMap of one granule past the end of a reservation of n granules (NVIDIA maps past the end
 * of its reservations: how far?), and before its start. Reservations made fresh for each case. */
static void s_vmmstate_pad(void)
{
    vs_setup();
    static const size_t rn[] = {1, 2, 3, 5, 8, 12, 16};
    static const long past[] = {-2, -1, 0, 1, 2, 3, 5, 8, 13, 16, 24, 32};
    char n[160];
    for (size_t i = 0; i < sizeof rn / sizeof rn[0]; i++)
        for (size_t j = 0; j < sizeof past / sizeof past[0]; j++) {
            CUdeviceptr r = 0;
            CUmemGenericAllocationHandle d = 0;
            long k = past[j] < 0 ? past[j] : (long)rn[i] + past[j];
            snprintf(n, sizeof n, "pad: R of %zu, a granule at R%+ld", rn[i], k);
            if (skipped(n)) {
                last_skipped = 1;
                printf("%-48s SKIPPED\n", n);
                continue;
            }
            if (cuMemAddressReserve(&r, rn[i] * g, 0, 0, 0) || cuMemCreate(&d, g, &prop, 0)) {
                printf("%-48s SETUP_FAILED\n", n);
                st_failed = 1;
                continue;
            }
            CUdeviceptr at = r + (CUdeviceptr)(k * (long)g);
            if (P(n, cuMemMap(at, g, 0, d, 0)) == CUDA_SUCCESS) {
                char key[200];
                snprintf(key, sizeof key, "  %s: setaccess", n);
                printf("%-48s %s\n", key, rcname(cuMemSetAccess(at, g, &rw, 1)));
                snprintf(key, sizeof key, "  %s: unmap", n);
                printf("%-48s %s\n", key, rcname(cuMemUnmap(at, g)));
            }
            if (cuMemRelease(d) || cuMemAddressFree(r, rn[i] * g)) {
                printf("  %s: teardown failed\n", n);
                st_failed = 1;
            }
        }
    vs_finish();
}

static const struct { const char *name; void (*fn)(void); } sections[] = {
    {"vmm_args", s_vmm_args},         {"vmm_map", s_vmm_map},     {"vmm_handles", s_vmm_handles},
    {"vmm_access", s_vmm_access},     {"alloc", s_alloc},         {"host", s_host},
    {"ptrattr", s_ptrattr},           {"streams", s_streams},     {"contexts", s_contexts},
    {"modules", s_modules},           {"kfault_ro", s_kfault_ro}, {"kfault_unmapped", s_kfault_unmapped},
    {"kfault_noaccess", s_kfault_noaccess}, {"bogus", s_bogus}, {"arrays", s_arrays},
    {"extmem", s_extmem},             {"graphics", s_graphics},
    {"vmmstate_map", s_vmmstate_map}, {"vmmstate_order", s_vmmstate_order},
    {"vmmstate_unmap", s_vmmstate_unmap}, {"vmmstate_access", s_vmmstate_access},
    {"vmmstate_handles", s_vmmstate_handles}, {"vmmstate_ctx", s_vmmstate_ctx},
    {"vmmstate_overhang", s_vmmstate_overhang}, {"vmmstate_pad", s_vmmstate_pad},
};
#define NSECT (sizeof sections / sizeof sections[0])

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < NSECT; i++) printf("%s\n", sections[i].name);
        return 0;
    }
    for (size_t i = 0; i < NSECT; i++)
        if (argc < 2 || strcmp(argv[1], sections[i].name) == 0) {
            if (argc < 2) printf("# section %s\n", sections[i].name);
            sections[i].fn();
            if (argc > 1) return 0;
        }
    if (argc > 1) {
        fprintf(stderr, "cuda_probe: no section %s (--list lists them)\n", argv[1]);
        return 2;
    }
    return 0;
}
