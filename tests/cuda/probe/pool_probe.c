/*
 * Conformance probe of the stream-ordered allocator (cuMemAllocAsync, cuMemFreeAsync and the
 * cuMemPool* calls): one line "case ANSWER" per case, in the format and with the section rules
 * of cuda_probe.c, so that record_nvidia.py records NVIDIA's answers (nvidia_pools_*.txt) and
 * compare.py compares vmgpu's with them.
 *
 *   pool_probe --list      the sections, one a line
 *   pool_probe SECTION     run one section (its own context and pools)
 *   pool_probe             run every section in this process
 *
 * Value lines print what is the same on both drivers when they behave alike: yes/no about
 * addresses and the pools' memory counters, never the sizes a driver picks for itself (NVIDIA
 * maps 2 MiB at a time, vmgpu 64 KiB). Reuse cases use pools whose release threshold is the
 * maximum, so that an address seen again means memory handed out again, not memory released and
 * mapped anew at the same place.
 *
 * The section "pool_ipc" also starts this program again as a second process (argument
 * "child FD DATA"): it imports the pool from the exported file descriptor and the exported
 * pointer, and reads what the parent wrote there.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

#define P(name, call) ({ CUresult r_ = NOT_RUN; last_skipped = skipped(name); \
    if (last_skipped) printf("%-48s SKIPPED\n", name); else { pre(name); r_ = post(call); } r_; })
#define V(name, ...) do { if (last_skipped) printf("%-48s SKIPPED\n", name); else { \
    printf("%-48s ", name); printf(__VA_ARGS__); printf("\n"); } } while (0)
#define YN(name, cond) V(name, "%s", (cond) ? "yes" : "no")
/* POOL_PROBE_RAW=1: the driver-specific numbers behind some answers, on stderr (not compared). */
#define RAW(...) do { if (getenv("POOL_PROBE_RAW")) { fprintf(stderr, "raw: " __VA_ARGS__); \
    fprintf(stderr, "\n"); } } while (0)

/* ------------------------------------------------------------------ shared set-up */

#define MIB ((size_t)1 << 20)
#define KEEP_ALL (~(cuuint64_t)0)

static CUdevice dev;
static CUmemLocation loc0;
static CUmemAccessDesc rw, ro, pnone;

static CUresult ctx_create(CUcontext *c)
{
#if CUDA_VERSION >= 13000
    return cuCtxCreate(c, NULL, 0, dev); /* cuCtxCreate_v4 */
#else
    return cuCtxCreate(c, 0, dev);
#endif
}

static CUcontext setup(void)
{
    CUcontext c;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || ctx_create(&c)) {
        printf("no device\n");
        exit(1);
    }
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
    return c;
}

static CUmemPoolProps props(unsigned handle_types)
{
    CUmemPoolProps p;
    memset(&p, 0, sizeof p);
    p.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.handleTypes = (CUmemAllocationHandleType)handle_types;
    p.location = loc0;
    return p;
}

static CUmemoryPool new_pool(unsigned handle_types)
{
    CUmemoryPool p = NULL;
    CUmemPoolProps pp = props(handle_types);
    if (cuMemPoolCreate(&p, &pp)) {
        printf("pool set-up failed\n");
        exit(1);
    }
    return p;
}

static cuuint64_t attr64(CUmemoryPool p, CUmemPool_attribute a)
{
    cuuint64_t v = 0xdeadbeef;
    cuMemPoolGetAttribute(p, a, &v);
    return v;
}
static int attr_int(CUmemoryPool p, CUmemPool_attribute a)
{
    int v = -7;
    cuMemPoolGetAttribute(p, a, &v);
    return v;
}
#define RESERVED(p) attr64(p, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)
#define USED(p) attr64(p, CU_MEMPOOL_ATTR_USED_MEM_CURRENT)

static void set_int(CUmemoryPool p, CUmemPool_attribute a, int v) { cuMemPoolSetAttribute(p, a, &v); }
static void set64(CUmemoryPool p, CUmemPool_attribute a, cuuint64_t v) { cuMemPoolSetAttribute(p, a, &v); }

/* A pool that keeps its memory (threshold: the maximum) with the given reuse policy. */
static CUmemoryPool reuse_pool(int follow, int opportunistic, int internal)
{
    CUmemoryPool p = new_pool(CU_MEM_HANDLE_TYPE_NONE);
    set64(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, KEEP_ALL);
    set_int(p, CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, follow);
    set_int(p, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, opportunistic);
    set_int(p, CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, internal);
    return p;
}

/* The driver's unit of pool growth: what a fresh pool reserves for a one-byte allocation
 * (NVIDIA maps pools in chunks of its own choosing, vmgpu one 64 KiB granule at a time). Cases
 * about how much a pool keeps count in these units, so that they mean the same on both. */
static size_t chunk;
static void measure_chunk(void)
{
    CUmemoryPool p = NULL;
    CUmemPoolProps pp = props(CU_MEM_HANDLE_TYPE_NONE);
    CUdeviceptr a = 0;
    cuMemPoolCreate(&p, &pp);
    cuMemAllocFromPoolAsync(&a, 1, p, NULL);
    chunk = (size_t)RESERVED(p);
    cuMemFreeAsync(a, NULL);
    cuStreamSynchronize(NULL);
    cuMemPoolDestroy(p);
    RAW("pool chunk (reserved for one byte): %zu", chunk);
    if (!chunk) {
        printf("pool chunk not measurable\n");
        exit(1);
    }
}
#define CHUNKS(p) (unsigned long long)(RESERVED(p) / chunk)
#define CHUNKS_EXACT(p) (RESERVED(p) % chunk == 0)

static int words_are(CUdeviceptr p, uint32_t v, size_t n)
{
    uint32_t buf[256];
    if (n > 256 || cuMemcpyDtoH(buf, p, n * 4)) return 0;
    for (size_t i = 0; i < n; i++)
        if (buf[i] != v) return 0;
    return 1;
}

/* ------------------------------------------------------------------ sections */

static void s_pool_default(void)
{
    CUcontext c = setup();
    CUmemoryPool d = NULL, cur = NULL, x = NULL;
    P("default pool", cuDeviceGetDefaultMemPool(&d, dev));
    YN("  default pool not NULL", d != NULL);
    P("default pool NULL out", cuDeviceGetDefaultMemPool(NULL, dev));
    P("default pool device 1", cuDeviceGetDefaultMemPool(&x, 1));
    P("default pool device -1", cuDeviceGetDefaultMemPool(&x, -1));
    P("current pool", cuDeviceGetMemPool(&cur, dev));
    YN("  current pool is the default pool", cur == d);
    P("current pool NULL out", cuDeviceGetMemPool(NULL, dev));
    P("current pool device 1", cuDeviceGetMemPool(&x, 1));
    x = NULL;
    P("default pool again", cuDeviceGetDefaultMemPool(&x, dev));
    YN("  same handle again", x == d);

    int v = -7;
    P("get REUSE_FOLLOW_EVENT_DEPENDENCIES", cuMemPoolGetAttribute(d, CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, &v));
    V("  default follow", "%d", v);
    v = -7;
    P("get REUSE_ALLOW_OPPORTUNISTIC", cuMemPoolGetAttribute(d, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &v));
    V("  default opportunistic", "%d", v);
    v = -7;
    P("get REUSE_ALLOW_INTERNAL_DEPENDENCIES", cuMemPoolGetAttribute(d, CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, &v));
    V("  default internal", "%d", v);
    cuuint64_t u = 77;
    P("get RELEASE_THRESHOLD", cuMemPoolGetAttribute(d, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &u));
    V("  default threshold", "%llu", (unsigned long long)u);
    u = 77;
    P("get RESERVED_MEM_CURRENT", cuMemPoolGetAttribute(d, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &u));
    V("  reserved before any allocation", "%llu", (unsigned long long)u);
    u = 77;
    P("get RESERVED_MEM_HIGH", cuMemPoolGetAttribute(d, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &u));
    V("  reserved high before any allocation", "%llu", (unsigned long long)u);
    u = 77;
    P("get USED_MEM_CURRENT", cuMemPoolGetAttribute(d, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &u));
    V("  used before any allocation", "%llu", (unsigned long long)u);
    u = 77;
    P("get USED_MEM_HIGH", cuMemPoolGetAttribute(d, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &u));
    V("  used high before any allocation", "%llu", (unsigned long long)u);

    P("get attribute 0", cuMemPoolGetAttribute(d, (CUmemPool_attribute)0, &u));
    P("get attribute 9", cuMemPoolGetAttribute(d, (CUmemPool_attribute)9, &u));
    P("get attribute NULL value", cuMemPoolGetAttribute(d, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, NULL));
    P("get attribute NULL pool", cuMemPoolGetAttribute(NULL, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &u));

    int attr = -1;
    P("device attribute MEMORY_POOLS_SUPPORTED", cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, dev));
    V("  pools supported", "%d", attr);
    attr = -1;
    P("device attribute MEMPOOL_SUPPORTED_HANDLE_TYPES",
      cuDeviceGetAttribute(&attr, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, dev));
    YN("  POSIX fd among the pool handle types", attr >= 0 && (attr & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));

    CUcontext popped;
    cuCtxPopCurrent(&popped);
    x = NULL;
    P("default pool no context", cuDeviceGetDefaultMemPool(&x, dev));
    YN("  same pool without a context", x == d);
    P("current pool no context", cuDeviceGetMemPool(&x, dev));
    u = 77;
    P("get attribute no context", cuMemPoolGetAttribute(d, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &u));
    cuCtxPushCurrent(popped);
    (void)c;

    P("destroy the default pool", cuMemPoolDestroy(d));
    x = NULL;
    P("default pool after destroying it", cuDeviceGetDefaultMemPool(&x, dev));
    YN("  still the same handle", x == d);
    CUdeviceptr a = 0;
    if (P("alloc from the default pool after destroy", cuMemAllocAsync(&a, MIB, NULL)) == CUDA_SUCCESS) {
        cuMemFreeAsync(a, NULL);
        cuStreamSynchronize(NULL);
    }
}

static void s_pool_create(void)
{
    setup();
    CUmemoryPool p = NULL;
    CUmemPoolProps pp;
    pp = props(CU_MEM_HANDLE_TYPE_NONE);
    if (P("create", cuMemPoolCreate(&p, &pp)) == CUDA_SUCCESS) {
        YN("  pool not NULL", p != NULL);
        CUmemoryPool d = NULL;
        cuDeviceGetDefaultMemPool(&d, dev);
        YN("  not the default pool", p != d);
        P("destroy", cuMemPoolDestroy(p));
    }
    P("create NULL out", cuMemPoolCreate(NULL, &pp));
    P("create NULL props", cuMemPoolCreate(&p, NULL));
    pp = props(CU_MEM_HANDLE_TYPE_NONE);
    pp.allocType = CU_MEM_ALLOCATION_TYPE_INVALID;
    P("create allocType invalid", cuMemPoolCreate(&p, &pp));
    pp = props(CU_MEM_HANDLE_TYPE_NONE);
    pp.allocType = CU_MEM_ALLOCATION_TYPE_MANAGED;
    P("create allocType managed", cuMemPoolCreate(&p, &pp));
    pp = props(CU_MEM_HANDLE_TYPE_NONE);
    pp.allocType = (CUmemAllocationType)7;
    P("create allocType 7", cuMemPoolCreate(&p, &pp));
    pp = props(CU_MEM_HANDLE_TYPE_NONE);
    pp.location.type = CU_MEM_LOCATION_TYPE_INVALID;
    P("create location type invalid", cuMemPoolCreate(&p, &pp));
    pp = props(CU_MEM_HANDLE_TYPE_NONE);
    pp.location.id = 1;
    P("create location device 1", cuMemPoolCreate(&p, &pp));
    pp = props(CU_MEM_HANDLE_TYPE_NONE);
    pp.location.id = -1;
    P("create location device -1", cuMemPoolCreate(&p, &pp));
    pp = props(CU_MEM_HANDLE_TYPE_NONE);
    pp.location.type = CU_MEM_LOCATION_TYPE_HOST;
    pp.location.id = 0;
    if (P("create location host", cuMemPoolCreate(&p, &pp)) == CUDA_SUCCESS) cuMemPoolDestroy(p);
    pp = props(CU_MEM_HANDLE_TYPE_NONE);
    pp.location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
    pp.location.id = 0;
    if (P("create location host numa 0", cuMemPoolCreate(&p, &pp)) == CUDA_SUCCESS) cuMemPoolDestroy(p);
    pp = props(CU_MEM_HANDLE_TYPE_WIN32);
    P("create handle type win32", cuMemPoolCreate(&p, &pp));
    pp = props(CU_MEM_HANDLE_TYPE_WIN32_KMT);
    P("create handle type win32 kmt", cuMemPoolCreate(&p, &pp));
    pp = props(CU_MEM_HANDLE_TYPE_FABRIC);
    if (P("create handle type fabric", cuMemPoolCreate(&p, &pp)) == CUDA_SUCCESS) cuMemPoolDestroy(p);
    pp = props(0x10);
    P("create handle type 0x10", cuMemPoolCreate(&p, &pp));
    pp = props(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    if (P("create handle type posix fd", cuMemPoolCreate(&p, &pp)) == CUDA_SUCCESS) cuMemPoolDestroy(p);
    pp = props(CU_MEM_HANDLE_TYPE_NONE);
    pp.usage = 1;
    if (P("create usage 1", cuMemPoolCreate(&p, &pp)) == CUDA_SUCCESS) cuMemPoolDestroy(p);
    pp = props(CU_MEM_HANDLE_TYPE_NONE);
    pp.usage = 0x8000;
    if (P("create usage 0x8000", cuMemPoolCreate(&p, &pp)) == CUDA_SUCCESS) cuMemPoolDestroy(p);
    pp = props(CU_MEM_HANDLE_TYPE_NONE);
    pp.reserved[0] = 1;
    if (P("create reserved byte set", cuMemPoolCreate(&p, &pp)) == CUDA_SUCCESS) cuMemPoolDestroy(p);
    pp = props(CU_MEM_HANDLE_TYPE_NONE);
    pp.win32SecurityAttributes = &pp;
    if (P("create win32 attributes set", cuMemPoolCreate(&p, &pp)) == CUDA_SUCCESS) cuMemPoolDestroy(p);

    /* maxSize: a pool that cannot grow past it (in units of the driver's chunk) */
    measure_chunk();
    pp = props(CU_MEM_HANDLE_TYPE_NONE);
    pp.maxSize = 2 * chunk;
    if (P("create maxSize 2 chunks", cuMemPoolCreate(&p, &pp)) == CUDA_SUCCESS) {
        CUdeviceptr a = 0, b = 0, c = 0;
        P("  alloc 1 chunk from maxSize 2 chunks", cuMemAllocFromPoolAsync(&a, chunk, p, NULL));
        P("  alloc a second chunk", cuMemAllocFromPoolAsync(&b, chunk, p, NULL));
        if (P("  alloc a third chunk", cuMemAllocFromPoolAsync(&c, chunk, p, NULL)) == CUDA_SUCCESS)
            cuMemFreeAsync(c, NULL);
        if (P("  alloc 1 byte more", cuMemAllocFromPoolAsync(&c, 1, p, NULL)) == CUDA_SUCCESS) cuMemFreeAsync(c, NULL);
        if (a) cuMemFreeAsync(a, NULL);
        if (b) cuMemFreeAsync(b, NULL);
        if (P("  alloc 3 chunks at once", cuMemAllocFromPoolAsync(&c, 3 * chunk, p, NULL)) == CUDA_SUCCESS)
            cuMemFreeAsync(c, NULL);
        cuStreamSynchronize(NULL);
        cuMemPoolDestroy(p);
    }
    pp = props(CU_MEM_HANDLE_TYPE_NONE);
    pp.maxSize = 1;
    if (P("create maxSize 1", cuMemPoolCreate(&p, &pp)) == CUDA_SUCCESS) {
        CUdeviceptr a = 0, b = 0;
        if (P("  alloc 1 chunk from maxSize 1", cuMemAllocFromPoolAsync(&a, chunk, p, NULL)) != CUDA_SUCCESS) a = 0;
        if (P("  and a second chunk", cuMemAllocFromPoolAsync(&b, chunk, p, NULL)) == CUDA_SUCCESS)
            cuMemFreeAsync(b, NULL);
        if (a) cuMemFreeAsync(a, NULL);
        cuStreamSynchronize(NULL);
        cuMemPoolDestroy(p);
    }
    pp = props(CU_MEM_HANDLE_TYPE_NONE);
    pp.maxSize = chunk + 1;
    if (P("create maxSize 1 chunk + 1", cuMemPoolCreate(&p, &pp)) == CUDA_SUCCESS) {
        CUdeviceptr a = 0, b = 0;
        if (P("  alloc 2 chunks from maxSize 1 chunk + 1", cuMemAllocFromPoolAsync(&a, 2 * chunk, p, NULL)) ==
            CUDA_SUCCESS)
            cuMemFreeAsync(a, NULL);
        if (P("  alloc 1 chunk + 1 from it", cuMemAllocFromPoolAsync(&b, chunk + 1, p, NULL)) == CUDA_SUCCESS)
            cuMemFreeAsync(b, NULL);
        cuStreamSynchronize(NULL);
        cuMemPoolDestroy(p);
    }
    pp = props(CU_MEM_HANDLE_TYPE_NONE);
    pp.maxSize = (size_t)1 << 50;
    if (P("create maxSize 2^50", cuMemPoolCreate(&p, &pp)) == CUDA_SUCCESS) cuMemPoolDestroy(p);

    /* many pools */
    CUmemoryPool many[8];
    int made = 0;
    pp = props(CU_MEM_HANDLE_TYPE_NONE);
    for (int i = 0; i < 8; i++)
        if (cuMemPoolCreate(&many[i], &pp) == CUDA_SUCCESS) made++;
    V("  pools made of 8", "%d", made);
    for (int i = 0; i < made; i++) cuMemPoolDestroy(many[i]);

    /* destroy: twice, NULL, with an allocation outstanding */
    pp = props(CU_MEM_HANDLE_TYPE_NONE);
    cuMemPoolCreate(&p, &pp);
    P("destroy NULL", cuMemPoolDestroy(NULL));
    CUdeviceptr a = 0;
    P("alloc before destroy", cuMemAllocFromPoolAsync(&a, MIB, p, NULL));
    cuMemsetD32Async(a, 0x5a5a5a5a, MIB / 4, NULL);
    P("destroy with an allocation outstanding", cuMemPoolDestroy(p));
    YN("  allocation still readable", words_are(a, 0x5a5a5a5a, 64));
    P("free after its pool was destroyed", cuMemFreeAsync(a, NULL));
    P("synchronize after that free", cuStreamSynchronize(NULL));
}

static void s_pool_attrs(void)
{
    setup();
    CUmemoryPool p = new_pool(CU_MEM_HANDLE_TYPE_NONE);
    CUstream s;
    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    int v;
    cuuint64_t u;
    v = 0;
    P("set follow 0", cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, &v));
    V("  follow now", "%d", attr_int(p, CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES));
    v = 5;
    P("set follow 5", cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, &v));
    V("  follow after 5", "%d", attr_int(p, CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES));
    v = -1;
    P("set follow -1", cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, &v));
    V("  follow after -1", "%d", attr_int(p, CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES));
    v = 0;
    P("set opportunistic 0", cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &v));
    V("  opportunistic now", "%d", attr_int(p, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC));
    v = 0;
    P("set internal 0", cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, &v));
    V("  internal now", "%d", attr_int(p, CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES));
    u = 12345;
    P("set threshold 12345", cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &u));
    V("  threshold now", "%llu", (unsigned long long)attr64(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD));
    u = KEEP_ALL;
    P("set threshold max", cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &u));
    YN("  threshold is the maximum", attr64(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) == KEEP_ALL);
    u = 0;
    P("set RESERVED_MEM_CURRENT 0", cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &u));
    P("set USED_MEM_CURRENT 0", cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &u));
    u = 5;
    P("set RESERVED_MEM_HIGH 5", cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &u));
    P("set USED_MEM_HIGH 5", cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &u));
    u = 0;
    P("set RESERVED_MEM_HIGH 0", cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &u));
    P("set USED_MEM_HIGH 0", cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &u));
    P("set attribute 0", cuMemPoolSetAttribute(p, (CUmemPool_attribute)0, &u));
    P("set attribute 9", cuMemPoolSetAttribute(p, (CUmemPool_attribute)9, &u));
    P("set attribute NULL value", cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, NULL));
    P("set attribute NULL pool", cuMemPoolSetAttribute(NULL, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &u));

    /* the counters through allocations and frees */
    CUdeviceptr a = 0, b = 0, c = 0;
    P("alloc 1 MiB", cuMemAllocFromPoolAsync(&a, MIB, p, s));
    YN("  used is 1 MiB", USED(p) == MIB);
    YN("  used high is 1 MiB", attr64(p, CU_MEMPOOL_ATTR_USED_MEM_HIGH) == MIB);
    YN("  reserved at least 1 MiB", RESERVED(p) >= MIB);
    RAW("reserved after a 1 MiB allocation: %llu", (unsigned long long)RESERVED(p));
    YN("  reserved high equals reserved", attr64(p, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH) == RESERVED(p));
    P("alloc 256 KiB", cuMemAllocFromPoolAsync(&b, MIB / 4, p, s));
    YN("  used is 1.25 MiB", USED(p) == MIB + MIB / 4);
    P("free 1 MiB", cuMemFreeAsync(a, s));
    YN("  used is 256 KiB right after the free", USED(p) == MIB / 4);
    YN("  used high still 1.25 MiB", attr64(p, CU_MEMPOOL_ATTR_USED_MEM_HIGH) == MIB + MIB / 4);
    cuStreamSynchronize(s);
    cuuint64_t res = RESERVED(p);
    YN("  reserved kept (threshold max)", res >= MIB + MIB / 4);
    u = 0;
    P("reset USED_MEM_HIGH", cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &u));
    u = attr64(p, CU_MEMPOOL_ATTR_USED_MEM_HIGH);
    YN("  used high is now the current use", u == MIB / 4);
    YN("  used high is now 0", u == 0);
    P("reset RESERVED_MEM_HIGH", cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &(cuuint64_t){0}));
    u = attr64(p, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH);
    YN("  reserved high is now the current reserve", u == RESERVED(p));
    YN("  reserved high is now 0", u == 0);
    P("alloc 1000 bytes", cuMemAllocFromPoolAsync(&c, 1000, p, s));
    V("  used grew by", "%llu", (unsigned long long)(USED(p) - MIB / 4));
    RAW("1000 bytes at 0x%llx, 1 MiB at 0x%llx, 256 KiB at 0x%llx, reserved %llu", (unsigned long long)c,
        (unsigned long long)a, (unsigned long long)b, (unsigned long long)RESERVED(p));
    YN("  used high follows", attr64(p, CU_MEMPOOL_ATTR_USED_MEM_HIGH) == USED(p));
    cuMemFreeAsync(c, s);
    P("alloc 1 byte", cuMemAllocFromPoolAsync(&c, 1, p, s));
    V("  used grew by (1 byte)", "%llu", (unsigned long long)(USED(p) - MIB / 4));
    cuMemFreeAsync(c, s);
    P("alloc 4097 bytes", cuMemAllocFromPoolAsync(&c, 4097, p, s));
    V("  used grew by (4097 bytes)", "%llu", (unsigned long long)(USED(p) - MIB / 4));
    YN("  address aligned to 256", c % 256 == 0);
    YN("  address aligned to 512", c % 512 == 0);
    cuMemFreeAsync(c, s);
    cuMemFreeAsync(b, s);
    cuStreamSynchronize(s);
    YN("  used is 0 at the end", USED(p) == 0);
    cuStreamDestroy(s);
    cuMemPoolDestroy(p);
}

static void s_pool_alloc(void)
{
    CUcontext c = setup();
    CUstream s, dead;
    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    cuStreamCreate(&dead, 0);
    cuStreamDestroy(dead);
    CUmemoryPool d;
    cuDeviceGetDefaultMemPool(&d, dev);
    CUdeviceptr a = 0, b = 0;
    size_t f0 = 0, f1 = 0, t = 0;
    if (P("alloc async", cuMemAllocAsync(&a, MIB, s)) == CUDA_SUCCESS) {
        YN("  address not 0", a != 0);
        P("memset it", cuMemsetD32Async(a, 0x11223344, MIB / 4, s));
        P("synchronize", cuStreamSynchronize(s));
        YN("  contents", words_are(a, 0x11223344, 256));
        YN("  default pool counts it", USED(d) == MIB);
        P("free async", cuMemFreeAsync(a, s));
        P("synchronize after free", cuStreamSynchronize(s));
    }
    P("alloc async NULL out", cuMemAllocAsync(NULL, MIB, s));
    a = 77;
    P("alloc async size 0", cuMemAllocAsync(&a, 0, s));
    V("  pointer after size 0", "%s", a == 77 ? "unchanged" : a == 0 ? "0" : "other");
    P("alloc async 2^40 bytes", cuMemAllocAsync(&a, (size_t)1 << 40, s));
    P("alloc async SIZE_MAX", cuMemAllocAsync(&a, ~(size_t)0, s));
    P("alloc async destroyed stream", cuMemAllocAsync(&a, MIB, dead));
    if (P("alloc async legacy stream", cuMemAllocAsync(&a, MIB, CU_STREAM_LEGACY)) == CUDA_SUCCESS)
        cuMemFreeAsync(a, CU_STREAM_LEGACY);
    if (P("alloc async per-thread stream", cuMemAllocAsync(&a, MIB, CU_STREAM_PER_THREAD)) == CUDA_SUCCESS)
        cuMemFreeAsync(a, CU_STREAM_PER_THREAD);
    if (P("alloc async NULL stream", cuMemAllocAsync(&a, MIB, NULL)) == CUDA_SUCCESS) cuMemFreeAsync(a, NULL);
    cuCtxSynchronize();

    P("alloc from pool NULL pool", cuMemAllocFromPoolAsync(&a, MIB, NULL, s));
    P("alloc from pool NULL out", cuMemAllocFromPoolAsync(NULL, MIB, d, s));
    P("alloc from pool size 0", cuMemAllocFromPoolAsync(&a, 0, d, s));
    if (P("alloc from pool default pool", cuMemAllocFromPoolAsync(&a, MIB, d, s)) == CUDA_SUCCESS)
        cuMemFreeAsync(a, s);
    cuStreamSynchronize(s);

    /* no current context */
    CUcontext popped;
    cuCtxPopCurrent(&popped);
    P("alloc async no context NULL stream", cuMemAllocAsync(&a, MIB, NULL));
    if (P("alloc async no context explicit stream", cuMemAllocAsync(&a, MIB, s)) == CUDA_SUCCESS) {
        P("free async no context explicit stream", cuMemFreeAsync(a, s));
        cuStreamSynchronize(s);
    }
    P("free async no context NULL stream", cuMemFreeAsync(0x1000, NULL));
    cuCtxPushCurrent(popped);

    /* a stream of another context while this one is current */
    CUcontext c2;
    CUstream s2;
    ctx_create(&c2);
    cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING);
    cuCtxPopCurrent(NULL);
    cuCtxSetCurrent(c);
    if (P("alloc async other context's stream", cuMemAllocAsync(&a, MIB, s2)) == CUDA_SUCCESS) {
        P("  memset in this context", cuMemsetD32(a, 7, 64));
        YN("  readable in this context", words_are(a, 7, 64));
        P("free async in this context's stream", cuMemFreeAsync(a, s));
        cuStreamSynchronize(s);
    }

    /* memory use: the device's free memory goes down while allocated */
    cuMemGetInfo(&f0, &t);
    cuMemAllocAsync(&b, 4 * MIB, s);
    cuStreamSynchronize(s);
    cuMemGetInfo(&f1, &t);
    YN("  free memory went down by at least 4 MiB", f0 >= f1 + 4 * MIB);
    cuMemFreeAsync(b, s);
    cuStreamSynchronize(s);
    cuMemGetInfo(&f1, &t);
    YN("  free memory back after free + synchronize", f1 >= f0);
    cuStreamDestroy(s);
}

static void s_pool_free(void)
{
    setup();
    CUstream s, dead;
    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    cuStreamCreate(&dead, 0);
    cuStreamDestroy(dead);
    CUmemoryPool d;
    cuDeviceGetDefaultMemPool(&d, dev);
    CUdeviceptr a = 0, m = 0;
    cuMemAllocAsync(&a, MIB, s);
    cuMemAlloc(&m, MIB);
    P("free async 0", cuMemFreeAsync(0, s));
    P("free async cuMemAlloc memory", cuMemFreeAsync(m, s));
    P("free async inner pointer", cuMemFreeAsync(a + 4096, s));
    P("free async unallocated address", cuMemFreeAsync(a + 64 * MIB, s));
    P("free async host pointer", cuMemFreeAsync((CUdeviceptr)(uintptr_t)&a, s));
    P("free async destroyed stream", cuMemFreeAsync(a, dead));
    YN("  still counted after refused frees", USED(d) == MIB);
    P("free async", cuMemFreeAsync(a, s));
    P("synchronize", cuStreamSynchronize(s));
    YN("  used 0 after the free", USED(d) == 0);
    P("cuMemFree of cuMemAlloc memory", cuMemFree(m));

    /* cuMemFree (not async) of pool memory */
    a = 0;
    cuMemAllocAsync(&a, MIB, s);
    cuStreamSynchronize(s);
    P("cuMemFree of pool memory", cuMemFree(a));
    YN("  used after cuMemFree", USED(d) == 0);
    CUdeviceptr b = 0;
    cuMemAllocAsync(&b, MIB, s);
    P("cuMemFree of pool memory not synchronized", cuMemFree(b));
    cuStreamSynchronize(s);
    /* last: a pointer freed twice */
    cuMemAllocAsync(&a, MIB, s);
    cuMemFreeAsync(a, s);
    P("free async twice", cuMemFreeAsync(a, s));
    P("synchronize after double free", cuStreamSynchronize(s));
    cuMemAllocAsync(&a, MIB, s);
    cuMemFreeAsync(a, s);
    cuStreamSynchronize(s);
    P("free async after synchronize (freed before)", cuMemFreeAsync(a, s));
    P("synchronize at the end", cuStreamSynchronize(s));
}

static void s_pool_ptr(void)
{
    setup();
    CUstream s;
    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    CUmemoryPool d, p = new_pool(CU_MEM_HANDLE_TYPE_NONE);
    cuDeviceGetDefaultMemPool(&d, dev);
    CUdeviceptr a = 0, b = 0, base = 0;
    size_t size = 0;
    cuMemAllocAsync(&a, MIB, s);
    cuMemAllocFromPoolAsync(&b, 3000, p, s);
    cuStreamSynchronize(s);
    CUmemoryPool ph = NULL;
    P("ptrattr MEMPOOL_HANDLE", cuPointerGetAttribute(&ph, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, a));
    YN("  is the default pool", ph == d);
    ph = NULL;
    P("ptrattr MEMPOOL_HANDLE created pool", cuPointerGetAttribute(&ph, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, b));
    YN("  is the created pool", ph == p);
    ph = NULL;
    P("ptrattr MEMPOOL_HANDLE inner pointer", cuPointerGetAttribute(&ph, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, a + 8));
    YN("  inner pointer's pool", ph == d);
    CUdeviceptr m = 0;
    cuMemAlloc(&m, 4096);
    ph = (CUmemoryPool)1;
    P("ptrattr MEMPOOL_HANDLE cuMemAlloc memory", cuPointerGetAttribute(&ph, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, m));
    YN("  NULL for cuMemAlloc memory", ph == NULL);
    unsigned mt = 0;
    P("ptrattr MEMORY_TYPE", cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a));
    V("  memory type", "%u", mt);
    CUcontext pc = (CUcontext)1;
    P("ptrattr CONTEXT", cuPointerGetAttribute(&pc, CU_POINTER_ATTRIBUTE_CONTEXT, a));
    YN("  context is NULL", pc == NULL);
    CUdeviceptr start = 0;
    P("ptrattr RANGE_START_ADDR", cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, a + 100));
    YN("  range starts at the allocation", start == a);
    size = 0;
    P("ptrattr RANGE_SIZE", cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, b));
    YN("  range size is the request", size == 3000);
    unsigned long long acc = 99;
    P("ptrattr ACCESS_FLAGS", cuPointerGetAttribute(&acc, CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, a));
    V("  access flags", "%llu", acc);
    int mapped = -1;
    P("ptrattr MAPPED", cuPointerGetAttribute(&mapped, CU_POINTER_ATTRIBUTE_MAPPED, a));
    V("  mapped", "%d", mapped);
    P("address range", cuMemGetAddressRange(&base, &size, a + 5));
    YN("  base is the allocation", base == a);
    YN("  size is the request", size == MIB);
    P("address range small allocation", cuMemGetAddressRange(&base, &size, b + 2999));
    YN("  small size is the request", size == 3000);
    P("address range just past small", cuMemGetAddressRange(&base, &size, b + 3000));

    unsigned long long fl = 99;
    P("getaccess on pool memory", cuMemGetAccess(&fl, &loc0, a));
    V("  access", "%llu", fl);
    CUmemGenericAllocationHandle h = 0;
    if (P("retain handle of pool memory", cuMemRetainAllocationHandle(&h, (void *)(uintptr_t)a)) == CUDA_SUCCESS)
        cuMemRelease(h);
    P("setaccess on pool memory", cuMemSetAccess(a, MIB, &ro, 1));
    P("unmap pool memory", cuMemUnmap(a, MIB));
    P("cuMemFree inner pointer", cuMemFree(a + 16));
    P("memset still works", cuMemsetD32(a, 3, 64));
    YN("  contents", words_are(a, 3, 64));

    cuMemFreeAsync(a, s);
    cuMemFreeAsync(b, s);
    cuStreamSynchronize(s);
    ph = (CUmemoryPool)1;
    P("ptrattr MEMPOOL_HANDLE after free", cuPointerGetAttribute(&ph, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, a));
    P("address range after free", cuMemGetAddressRange(&base, &size, a));
    cuMemFree(m);
    cuStreamDestroy(s);
    cuMemPoolDestroy(p);
}

/* One reuse case: allocation A in s1, free in s1, then `between`, then allocation B of the
 * same size in s2 (or s1); prints whether B got A's address. */
enum { B_NOTHING, B_SYNC_S1, B_CTX_SYNC, B_EVENT_WAIT, B_EVENT_BEFORE_FREE, B_EVENT_SYNC, B_SAME_STREAM,
       B_LEGACY_SYNC };
static void reuse_case(const char *name, const char *yn, int follow, int opp, int internal, int between,
                       CUstream s1, CUstream s2)
{
    CUmemoryPool p = reuse_pool(follow, opp, internal);
    CUevent e;
    cuEventCreate(&e, CU_EVENT_DISABLE_TIMING);
    CUdeviceptr a = 0, b = 0;
    cuMemAllocFromPoolAsync(&a, MIB, p, s1);
    cuMemsetD32Async(a, 1, MIB / 4, s1);
    if (between == B_EVENT_BEFORE_FREE) cuEventRecord(e, s1);
    cuMemFreeAsync(a, s1);
    switch (between) {
    case B_SYNC_S1: cuStreamSynchronize(s1); break;
    case B_CTX_SYNC: cuCtxSynchronize(); break;
    case B_LEGACY_SYNC: cuStreamSynchronize(CU_STREAM_LEGACY); break;
    case B_EVENT_WAIT:
        cuEventRecord(e, s1);
        cuStreamWaitEvent(s2, e, 0);
        break;
    case B_EVENT_BEFORE_FREE: cuStreamWaitEvent(s2, e, 0); break;
    case B_EVENT_SYNC:
        cuEventRecord(e, s1);
        cuEventSynchronize(e);
        break;
    default: break;
    }
    CUstream sb = between == B_SAME_STREAM ? s1 : s2;
    if (P(name, cuMemAllocFromPoolAsync(&b, MIB, p, sb)) == CUDA_SUCCESS) {
        YN(yn, b == a);
        cuMemFreeAsync(b, sb);
    } else YN(yn, 0);
    cuCtxSynchronize();
    cuEventDestroy(e);
    cuMemPoolDestroy(p);
}

static void s_pool_reuse(void)
{
    setup();
    CUstream s1, s2, b1;
    cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING);
    cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING);
    cuStreamCreate(&b1, 0); /* blocking: ordered with the legacy NULL stream */
    reuse_case("same stream, all reuse off", "  same stream gets it again", 0, 0, 0, B_SAME_STREAM, s1, s2);
    reuse_case("same stream, defaults", "  same stream gets it again (defaults)", 1, 1, 1, B_SAME_STREAM, s1, s2);
    reuse_case("other stream, all off", "  other stream gets it", 0, 0, 0, B_NOTHING, s1, s2);
    reuse_case("other stream, all off, s1 synchronized", "  other stream gets it after s1 sync", 0, 0, 0,
               B_SYNC_S1, s1, s2);
    reuse_case("other stream, all off, context synchronized", "  other stream gets it after ctx sync", 0, 0, 0,
               B_CTX_SYNC, s1, s2);
    reuse_case("other stream, all off, event waited", "  other stream gets it after event wait (follow off)",
               0, 0, 0, B_EVENT_WAIT, s1, s2);
    reuse_case("other stream, follow, event waited", "  other stream gets it after event wait", 1, 0, 0,
               B_EVENT_WAIT, s1, s2);
    reuse_case("other stream, follow, event before the free", "  gets it with an event before the free", 1, 0,
               0, B_EVENT_BEFORE_FREE, s1, s2);
    reuse_case("other stream, follow, no wait", "  gets it with follow and no wait", 1, 0, 0, B_NOTHING, s1, s2);
    reuse_case("other stream, follow, event synchronized", "  gets it after event sync (follow)", 1, 0, 0,
               B_EVENT_SYNC, s1, s2);
    reuse_case("other stream, opportunistic, s1 synchronized", "  gets it after s1 sync (opportunistic)", 0, 1,
               0, B_SYNC_S1, s1, s2);
    reuse_case("other stream, opportunistic, event synchronized", "  gets it after event sync (opportunistic)",
               0, 1, 0, B_EVENT_SYNC, s1, s2);
    reuse_case("other stream, internal only", "  gets it with internal dependencies", 0, 0, 1, B_NOTHING, s1, s2);
    reuse_case("other stream, defaults, s1 synchronized", "  gets it after s1 sync (defaults)", 1, 1, 1,
               B_SYNC_S1, s1, s2);
    reuse_case("legacy stream after blocking stream, follow", "  legacy stream gets it (follow)", 1, 0, 0,
               B_NOTHING, b1, CU_STREAM_LEGACY);
    reuse_case("legacy stream after blocking stream, all off", "  legacy stream gets it (all off)", 0, 0, 0,
               B_NOTHING, b1, CU_STREAM_LEGACY);
    reuse_case("blocking stream after legacy stream, follow", "  blocking stream gets it (follow)", 1, 0, 0,
               B_NOTHING, CU_STREAM_LEGACY, b1);
    reuse_case("non-blocking after legacy stream, follow", "  non-blocking stream gets it (follow)", 1, 0, 0,
               B_NOTHING, CU_STREAM_LEGACY, s2);
    reuse_case("blocking stream's free, legacy synchronized", "  other stream gets it after legacy sync", 0, 0, 0,
               B_LEGACY_SYNC, b1, s2);
    reuse_case("non-blocking stream's free, legacy synchronized", "  gets it after legacy sync (non-blocking free)",
               0, 0, 0, B_LEGACY_SYNC, s1, s2);

    /* Internal dependencies when the pool cannot grow: maxSize 2 chunks, both freed in s1. */
    measure_chunk();
    for (int internal = 0; internal <= 1; internal++) {
        CUmemPoolProps pp = props(CU_MEM_HANDLE_TYPE_NONE);
        pp.maxSize = 2 * chunk;
        CUmemoryPool q = NULL;
        cuMemPoolCreate(&q, &pp);
        set64(q, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, KEEP_ALL);
        set_int(q, CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, 0);
        set_int(q, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, 0);
        set_int(q, CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, internal);
        CUdeviceptr x = 0, y = 0, z = 0;
        cuMemAllocFromPoolAsync(&x, chunk, q, s1);
        cuMemAllocFromPoolAsync(&y, chunk, q, s1);
        cuMemsetD32Async(x, 1, chunk / 4, s1);
        cuMemFreeAsync(x, s1);
        cuMemFreeAsync(y, s1);
        if (P(internal ? "full pool, other stream, internal only" : "full pool, other stream, all off",
              cuMemAllocFromPoolAsync(&z, chunk, q, s2)) == CUDA_SUCCESS) {
            YN(internal ? "  reuses a block freed in s1 (internal)" : "  reuses a block freed in s1 (all off)",
               z == x || z == y);
            cuMemFreeAsync(z, s2);
        } else YN(internal ? "  reuses a block freed in s1 (internal)" : "  reuses a block freed in s1 (all off)", 0);
        cuCtxSynchronize();
        cuMemPoolDestroy(q);
    }

    /* A smaller allocation inside a freed larger one, same stream. */
    CUmemoryPool p = reuse_pool(0, 0, 0);
    CUdeviceptr a = 0, b = 0, c = 0;
    cuMemAllocFromPoolAsync(&a, 2 * MIB, p, s1);
    cuMemFreeAsync(a, s1);
    P("smaller allocation after a larger free", cuMemAllocFromPoolAsync(&b, MIB, p, s1));
    YN("  inside the freed range", b >= a && b + MIB <= a + 2 * MIB);
    P("second smaller allocation", cuMemAllocFromPoolAsync(&c, MIB, p, s1));
    YN("  also inside the freed range", c >= a && c + MIB <= a + 2 * MIB);
    cuMemFreeAsync(b, s1);
    cuMemFreeAsync(c, s1);
    cuStreamSynchronize(s1);
    cuMemPoolDestroy(p);

    /* A freed block is not handed out twice at once. */
    p = reuse_pool(1, 1, 1);
    cuMemAllocFromPoolAsync(&a, MIB, p, s1);
    cuMemFreeAsync(a, s1);
    cuStreamSynchronize(s1);
    cuMemAllocFromPoolAsync(&b, MIB, p, s1);
    P("second allocation while the first is live", cuMemAllocFromPoolAsync(&c, MIB, p, s1));
    YN("  distinct addresses", b != c && (b + MIB <= c || c + MIB <= b));
    cuMemFreeAsync(b, s1);
    cuMemFreeAsync(c, s1);
    cuStreamSynchronize(s1);
    cuMemPoolDestroy(p);
    cuStreamDestroy(s1);
    cuStreamDestroy(s2);
    cuStreamDestroy(b1);
}

static void s_pool_release(void)
{
    setup();
    measure_chunk();
    CUstream s;
    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    CUmemoryPool p = new_pool(CU_MEM_HANDLE_TYPE_NONE);
    CUdeviceptr a = 0, b = 0, u[4] = {0};
    CUevent e;
    cuEventCreate(&e, CU_EVENT_DISABLE_TIMING);

    P("alloc 4 chunks (threshold 0)", cuMemAllocFromPoolAsync(&a, 4 * chunk, p, s));
    cuMemFreeAsync(a, s);
    YN("  reserved before synchronize", RESERVED(p) >= 4 * chunk);
    P("stream synchronize", cuStreamSynchronize(s));
    YN("  reserved 0 after stream synchronize", RESERVED(p) == 0);
    YN("  reserved high kept", attr64(p, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH) >= 4 * chunk);

    cuMemAllocFromPoolAsync(&a, 4 * chunk, p, s);
    cuMemFreeAsync(a, s);
    P("context synchronize", cuCtxSynchronize());
    YN("  reserved 0 after context synchronize", RESERVED(p) == 0);

    cuMemAllocFromPoolAsync(&a, 4 * chunk, p, s);
    cuMemFreeAsync(a, s);
    cuEventRecord(e, s);
    P("event synchronize", cuEventSynchronize(e));
    YN("  reserved 0 after event synchronize", RESERVED(p) == 0);

    cuMemAllocFromPoolAsync(&a, 4 * chunk, p, s);
    cuEventRecord(e, s);
    cuMemFreeAsync(a, s);
    P("event synchronize, event before the free", cuEventSynchronize(e));
    YN("  kept: the free came after the event", RESERVED(p) >= 4 * chunk);
    cuStreamSynchronize(s);

    cuMemAllocFromPoolAsync(&a, 4 * chunk, p, s);
    cuMemFreeAsync(a, s);
    cuEventRecord(e, s);
    while (cuEventQuery(e) == CUDA_ERROR_NOT_READY) {
    }
    YN("  reserved kept after event query only", RESERVED(p) >= 4 * chunk);
    while (cuStreamQuery(s) == CUDA_ERROR_NOT_READY) {
    }
    YN("  reserved kept after stream query only", RESERVED(p) >= 4 * chunk);
    cuStreamSynchronize(s);
    YN("  reserved 0 after the later synchronize", RESERVED(p) == 0);

    /* a synchronize of another stream: that stream's frees only */
    CUstream s2, b1;
    cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING);
    cuStreamCreate(&b1, 0);
    cuMemAllocFromPoolAsync(&a, 4 * chunk, p, s);
    cuMemFreeAsync(a, s);
    P("synchronize an unrelated stream", cuStreamSynchronize(s2));
    YN("  reserved 0 after an unrelated stream synchronize", RESERVED(p) == 0);
    cuStreamSynchronize(s);
    cuMemAllocFromPoolAsync(&a, 4 * chunk, p, b1);
    cuMemFreeAsync(a, b1);
    P("legacy stream synchronize, free in a blocking stream", cuStreamSynchronize(CU_STREAM_LEGACY));
    YN("  released by the legacy stream's synchronize", RESERVED(p) == 0);
    cuStreamSynchronize(b1);
    cuMemAllocFromPoolAsync(&a, 4 * chunk, p, s);
    cuMemFreeAsync(a, s);
    P("legacy stream synchronize, free in a non-blocking stream", cuStreamSynchronize(CU_STREAM_LEGACY));
    YN("  released by the legacy stream's synchronize (non-blocking)", RESERVED(p) == 0);
    cuStreamSynchronize(s);
    cuMemAllocFromPoolAsync(&a, 4 * chunk, p, CU_STREAM_LEGACY);
    cuMemFreeAsync(a, CU_STREAM_LEGACY);
    P("blocking stream synchronize, free in the legacy stream", cuStreamSynchronize(b1));
    YN("  released by a blocking stream's synchronize", RESERVED(p) == 0);
    cuCtxSynchronize();

    /* memory still allocated is kept */
    cuMemAllocFromPoolAsync(&a, chunk, p, s);
    for (int i = 0; i < 4; i++) cuMemAllocFromPoolAsync(&u[i], chunk, p, s);
    V("  chunks for 5 one-chunk allocations", "%llu", CHUNKS(p));
    for (int i = 0; i < 4; i++) cuMemFreeAsync(u[i], s);
    cuStreamSynchronize(s);
    V("  chunks kept for the live one", "%llu", CHUNKS(p));
    RAW("1 chunk live, 4 freed, threshold 0, after synchronize: reserved %llu", (unsigned long long)RESERVED(p));
    cuMemFreeAsync(a, s);
    cuStreamSynchronize(s);
    YN("  all released", RESERVED(p) == 0);

    /* threshold: kept up to it */
    cuuint64_t th = 2 * chunk;
    cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &th);
    cuMemAllocFromPoolAsync(&a, chunk, p, s);
    cuMemFreeAsync(a, s);
    cuStreamSynchronize(s);
    V("  chunks kept below the threshold (2)", "%llu", CHUNKS(p));
    for (int i = 0; i < 4; i++) cuMemAllocFromPoolAsync(&u[i], chunk, p, s);
    for (int i = 0; i < 4; i++) cuMemFreeAsync(u[i], s);
    cuStreamSynchronize(s);
    V("  chunks kept after 4 freed (threshold 2)", "%llu", CHUNKS(p));
    th = 2 * chunk + chunk / 2;
    cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &th);
    for (int i = 0; i < 4; i++) cuMemAllocFromPoolAsync(&u[i], chunk, p, s);
    for (int i = 0; i < 4; i++) cuMemFreeAsync(u[i], s);
    cuStreamSynchronize(s);
    V("  chunks kept after 4 freed (threshold 2.5)", "%llu", CHUNKS(p));
    th = 0;
    cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &th);
    V("  chunks right after lowering the threshold", "%llu", CHUNKS(p));
    cuStreamSynchronize(s);
    V("  chunks after the next synchronize", "%llu", CHUNKS(p));

    /* the default pool: threshold 0 as well */
    CUmemoryPool d;
    cuDeviceGetDefaultMemPool(&d, dev);
    cuMemAllocAsync(&b, 4 * chunk, s);
    cuMemFreeAsync(b, s);
    cuStreamSynchronize(s);
    YN("  default pool released at synchronize", RESERVED(d) == 0);
    cuEventDestroy(e);
    cuStreamDestroy(s);
    cuStreamDestroy(s2);
    cuStreamDestroy(b1);
    cuMemPoolDestroy(p);
}

static void s_pool_trim(void)
{
    setup();
    measure_chunk();
    CUstream s;
    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    CUmemoryPool p = reuse_pool(1, 1, 1);
    CUdeviceptr a = 0, u[4] = {0};
    size_t f0 = 0, f1 = 0, t = 0;
    cuMemGetInfo(&f0, &t);
    for (int i = 0; i < 4; i++) cuMemAllocFromPoolAsync(&u[i], chunk, p, s);
    for (int i = 0; i < 4; i++) cuMemFreeAsync(u[i], s);
    cuStreamSynchronize(s);
    V("  chunks kept after synchronize (threshold max)", "%llu", CHUNKS(p));
    P("trim to 2^40", cuMemPoolTrimTo(p, (size_t)1 << 40));
    V("  chunks after trim to 2^40", "%llu", CHUNKS(p));
    P("trim to 3 chunks", cuMemPoolTrimTo(p, 3 * chunk));
    V("  chunks after trim to 3", "%llu", CHUNKS(p));
    P("trim to 1.5 chunks", cuMemPoolTrimTo(p, chunk + chunk / 2));
    V("  chunks after trim to 1.5", "%llu", CHUNKS(p));
    P("trim to 0", cuMemPoolTrimTo(p, 0));
    YN("  all released", RESERVED(p) == 0);
    cuMemGetInfo(&f1, &t);
    YN("  device free memory back", f1 >= f0);
    P("trim to 0 again", cuMemPoolTrimTo(p, 0));

    cuMemAllocFromPoolAsync(&a, chunk, p, s);
    for (int i = 0; i < 4; i++) cuMemAllocFromPoolAsync(&u[i], chunk, p, s);
    for (int i = 0; i < 4; i++) cuMemFreeAsync(u[i], s);
    cuStreamSynchronize(s);
    P("trim to 0 with a live allocation", cuMemPoolTrimTo(p, 0));
    V("  chunks kept for the live allocation", "%llu", CHUNKS(p));
    RAW("trim to 0 with 1 chunk live: reserved %llu", (unsigned long long)RESERVED(p));
    YN("  live allocation readable", cuMemsetD32(a, 9, 64) == CUDA_SUCCESS && words_are(a, 9, 64));
    cuMemFreeAsync(a, s);
    cuStreamSynchronize(s);

    /* frees not yet known complete */
    cuMemAllocFromPoolAsync(&a, chunk, p, s);
    cuMemsetD32Async(a, 1, chunk / 4, s);
    cuMemFreeAsync(a, s);
    P("trim to 0 right after a free", cuMemPoolTrimTo(p, 0));
    cuStreamSynchronize(s);
    P("trim to 0 after its synchronize", cuMemPoolTrimTo(p, 0));
    YN("  all released at the end", RESERVED(p) == 0);

    P("trim NULL pool", cuMemPoolTrimTo(NULL, 0));
    CUmemoryPool d;
    cuDeviceGetDefaultMemPool(&d, dev);
    P("trim default pool", cuMemPoolTrimTo(d, 0));
    cuStreamDestroy(s);
    cuMemPoolDestroy(p);
}

static void s_pool_access(void)
{
    setup();
    CUmemoryPool p = new_pool(CU_MEM_HANDLE_TYPE_NONE), d;
    cuDeviceGetDefaultMemPool(&d, dev);
    CUmemAccess_flags f = (CUmemAccess_flags)99;
    P("pool getaccess own device", cuMemPoolGetAccess(&f, p, &loc0));
    V("  own device access", "%d", (int)f);
    f = (CUmemAccess_flags)99;
    P("default pool getaccess own device", cuMemPoolGetAccess(&f, d, &loc0));
    V("  default pool own device access", "%d", (int)f);
    CUmemLocation l = loc0;
    l.id = 1;
    P("pool getaccess device 1", cuMemPoolGetAccess(&f, p, &l));
    l = loc0;
    l.type = CU_MEM_LOCATION_TYPE_HOST;
    l.id = 0;
    f = (CUmemAccess_flags)99;
    P("pool getaccess host", cuMemPoolGetAccess(&f, p, &l));
    V("  host access", "%d", (int)f);
    l = loc0;
    l.type = CU_MEM_LOCATION_TYPE_INVALID;
    P("pool getaccess location type invalid", cuMemPoolGetAccess(&f, p, &l));
    P("pool getaccess NULL flags", cuMemPoolGetAccess(NULL, p, &loc0));
    P("pool getaccess NULL location", cuMemPoolGetAccess(&f, p, NULL));
    P("pool getaccess NULL pool", cuMemPoolGetAccess(&f, NULL, &loc0));

    P("pool setaccess own device rw", cuMemPoolSetAccess(p, &rw, 1));
    P("pool setaccess own device read", cuMemPoolSetAccess(p, &ro, 1));
    P("pool setaccess own device none", cuMemPoolSetAccess(p, &pnone, 1));
    f = (CUmemAccess_flags)99;
    cuMemPoolGetAccess(&f, p, &loc0);
    V("  own device access after those", "%d", (int)f);
    CUmemAccessDesc x = rw;
    x.flags = (CUmemAccess_flags)2;
    P("pool setaccess flags 2", cuMemPoolSetAccess(p, &x, 1));
    x = rw;
    x.location.id = 1;
    P("pool setaccess device 1", cuMemPoolSetAccess(p, &x, 1));
    x = rw;
    x.location.type = CU_MEM_LOCATION_TYPE_HOST;
    x.location.id = 0;
    P("pool setaccess host rw", cuMemPoolSetAccess(p, &x, 1));
    x = rw;
    x.location.type = CU_MEM_LOCATION_TYPE_INVALID;
    P("pool setaccess location type invalid", cuMemPoolSetAccess(p, &x, 1));
    P("pool setaccess count 0", cuMemPoolSetAccess(p, &rw, 0));
    P("pool setaccess NULL map count 0", cuMemPoolSetAccess(p, NULL, 0));
    P("pool setaccess NULL map count 1", cuMemPoolSetAccess(p, NULL, 1));
    P("pool setaccess NULL pool", cuMemPoolSetAccess(NULL, &rw, 1));
    CUmemAccessDesc two[2] = {rw, x};
    P("pool setaccess second entry bad", cuMemPoolSetAccess(p, two, 2));
    P("default pool setaccess own device rw", cuMemPoolSetAccess(d, &rw, 1));

    /* pool memory is read-write for the device */
    CUdeviceptr a = 0;
    cuMemAllocFromPoolAsync(&a, MIB, p, NULL);
    P("memset pool memory", cuMemsetD32(a, 0xabcdef01, MIB / 4));
    YN("  contents", words_are(a, 0xabcdef01, 256));
    cuMemFreeAsync(a, NULL);
    cuStreamSynchronize(NULL);
    cuMemPoolDestroy(p);
}

static void child_import(int fd, const char *hex)
{
    setup();
    CUmemoryPool ip = NULL;
    CUdeviceptr q = 0;
    CUmemPoolPtrExportData data;
    memset(&data, 0, sizeof data);
    for (unsigned i = 0; i < sizeof data.reserved && hex[2 * i] && hex[2 * i + 1]; i++) {
        unsigned v = 0;
        sscanf(hex + 2 * i, "%2x", &v);
        data.reserved[i] = (unsigned char)v;
    }
    if (P("child: import pool", cuMemPoolImportFromShareableHandle(&ip, (void *)(intptr_t)fd,
                                                                      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0)) ==
        CUDA_SUCCESS) {
        if (P("child: import pointer", cuMemPoolImportPointer(&q, ip, &data)) == CUDA_SUCCESS) {
            YN("child:   reads the parent's data", words_are(q, 0x600df00d, 64));
            P("child: write through the imported pointer", cuMemsetD32(q + 1024, 0x0badcafe, 16));
            CUdeviceptr n = 0;
            P("child: allocate from the imported pool", cuMemAllocFromPoolAsync(&n, MIB, ip, NULL));
            unsigned long long u = 77;
            P("child: imported pool USED_MEM_CURRENT", cuMemPoolGetAttribute(ip, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &u));
            P("child: free the imported pointer", cuMemFreeAsync(q, NULL));
            P("child: synchronize", cuStreamSynchronize(NULL));
        }
        P("child: destroy the imported pool", cuMemPoolDestroy(ip));
    }
}

static void s_pool_ipc(void)
{
    setup();
    CUmemoryPool np = new_pool(CU_MEM_HANDLE_TYPE_NONE), fp = new_pool(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    CUmemoryPool d, ip = NULL;
    cuDeviceGetDefaultMemPool(&d, dev);
    int fd = -1;
    P("export pool without handle types", cuMemPoolExportToShareableHandle(&fd, np, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    P("export default pool", cuMemPoolExportToShareableHandle(&fd, d, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    P("export NULL out", cuMemPoolExportToShareableHandle(NULL, fp, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    P("export NULL pool", cuMemPoolExportToShareableHandle(&fd, NULL, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    P("export handle type none", cuMemPoolExportToShareableHandle(&fd, fp, CU_MEM_HANDLE_TYPE_NONE, 0));
    P("export handle type win32", cuMemPoolExportToShareableHandle(&fd, fp, CU_MEM_HANDLE_TYPE_WIN32, 0));
    P("export flags 1", cuMemPoolExportToShareableHandle(&fd, fp, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1));
    fd = -1;
    P("export", cuMemPoolExportToShareableHandle(&fd, fp, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    YN("  fd valid", fd >= 0 && fcntl(fd, F_GETFD) != -1);
    int fd2 = -1;
    P("export again", cuMemPoolExportToShareableHandle(&fd2, fp, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    YN("  another fd", fd2 >= 0 && fd2 != fd);
    if (fd2 >= 0) close(fd2);

    int devnull = open("/dev/null", O_RDONLY);
    P("import NULL out", cuMemPoolImportFromShareableHandle(NULL, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    P("import fd -1", cuMemPoolImportFromShareableHandle(&ip, (void *)(intptr_t)-1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    P("import /dev/null", cuMemPoolImportFromShareableHandle(&ip, (void *)(intptr_t)devnull, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    P("import handle type none", cuMemPoolImportFromShareableHandle(&ip, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_NONE, 0));
    P("import flags 1", cuMemPoolImportFromShareableHandle(&ip, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1));
    close(devnull);
    ip = NULL;
    CUresult imp = P("import in the same process", cuMemPoolImportFromShareableHandle(&ip, (void *)(intptr_t)fd,
                                                                                      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    if (imp == CUDA_SUCCESS) YN("  a handle of its own", ip != NULL && ip != fp);
    else YN("  a handle of its own", 0);

    /* pointers */
    CUdeviceptr a = 0, na = 0, m = 0;
    cuMemAllocFromPoolAsync(&a, MIB, fp, NULL);
    cuMemAllocFromPoolAsync(&na, MIB, np, NULL);
    cuMemAlloc(&m, 4096);
    cuMemsetD32(a, 0x600df00d, MIB / 4);
    CUmemPoolPtrExportData data;
    memset(&data, 0, sizeof data);
    P("export pointer", cuMemPoolExportPointer(&data, a));
    P("export pointer NULL out", cuMemPoolExportPointer(NULL, a));
    CUmemPoolPtrExportData junk;
    P("export pointer of a pool without handle types", cuMemPoolExportPointer(&junk, na));
    P("export pointer cuMemAlloc memory", cuMemPoolExportPointer(&junk, m));
    P("export pointer inner", cuMemPoolExportPointer(&junk, a + 4096));
    P("export pointer 0", cuMemPoolExportPointer(&junk, 0));
    CUdeviceptr q = 0;
    if (imp == CUDA_SUCCESS) {
        if (P("import pointer in the same process", cuMemPoolImportPointer(&q, ip, &data)) == CUDA_SUCCESS) {
            YN("  same address", q == a);
            YN("  reads the exported data", words_are(q, 0x600df00d, 64));
            CUmemoryPool qp = NULL;
            P("ptrattr MEMPOOL_HANDLE imported pointer", cuPointerGetAttribute(&qp, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, q));
            YN("  the imported pool", qp == ip);
            YN("  the exporting pool", qp == fp);
            CUdeviceptr qb = 0;
            size_t qs = 0;
            P("address range imported pointer", cuMemGetAddressRange(&qb, &qs, q + 8));
            YN("  imported range is the allocation", qb == q && qs == MIB);
            if (P("import pointer twice", cuMemPoolImportPointer(&qb, ip, &data)) == CUDA_SUCCESS) {
                YN("  a second address", qb != q);
                cuMemFreeAsync(qb, NULL);
            } else YN("  a second address", 0);
            P("free the imported pointer", cuMemFreeAsync(q, NULL));
            P("free the imported pointer twice", cuMemFreeAsync(q, NULL));
            cuStreamSynchronize(NULL);
        }
        P("import pointer NULL data", cuMemPoolImportPointer(&q, ip, NULL));
        P("import pointer NULL out", cuMemPoolImportPointer(NULL, ip, &data));
        memset(&junk, 0x3c, sizeof junk);
        P("import pointer junk data", cuMemPoolImportPointer(&q, ip, &junk));
        P("alloc from an imported pool", cuMemAllocFromPoolAsync(&q, MIB, ip, NULL));
        P("set access of an imported pool", cuMemPoolSetAccess(ip, &rw, 1));
        CUmemAccess_flags af = (CUmemAccess_flags)99;
        P("get access of an imported pool", cuMemPoolGetAccess(&af, ip, &loc0));
        V("  imported pool access", "%d", (int)af);
        cuuint64_t u = 77;
        P("get attribute of an imported pool", cuMemPoolGetAttribute(ip, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &u));
        int one = 1;
        P("set attribute of an imported pool", cuMemPoolSetAttribute(ip, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &one));
        P("trim an imported pool", cuMemPoolTrimTo(ip, 0));
        int fd3 = -1;
        P("export an imported pool", cuMemPoolExportToShareableHandle(&fd3, ip, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
        if (fd3 >= 0) close(fd3);
        P("set mempool to an imported pool", cuDeviceSetMemPool(dev, ip));
        cuDeviceSetMemPool(dev, d);
        P("destroy the imported pool", cuMemPoolDestroy(ip));
    }
    P("import pointer into the exporting pool", cuMemPoolImportPointer(&q, fp, &data));
    P("import pointer NULL pool", cuMemPoolImportPointer(&q, NULL, &data));

    /* another process imports the pool and the pointer */
    char hex[2 * sizeof data.reserved + 1], fds[16], self[64];
    for (unsigned i = 0; i < sizeof data.reserved; i++) sprintf(hex + 2 * i, "%02x", data.reserved[i]);
    int cfd = dup(fd); /* without FD_CLOEXEC: the child inherits it */
    snprintf(fds, sizeof fds, "%d", cfd);
    snprintf(self, sizeof self, "/proc/%d/exe", (int)getpid());
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, "child", fds, hex, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    V("  child exit", "%d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    close(cfd);
    YN("  child's write seen", words_are(a + 1024, 0x0badcafe, 16));
    P("free the exported allocation", cuMemFreeAsync(a, NULL));
    cuStreamSynchronize(NULL);
    P("export pointer after its free", cuMemPoolExportPointer(&junk, a));
    cuMemFreeAsync(na, NULL);
    cuStreamSynchronize(NULL);
    close(fd);
    cuMemFree(m);
    P("destroy the exporting pool", cuMemPoolDestroy(fp));
    cuMemPoolDestroy(np);
}

static void s_pool_setpool(void)
{
    setup();
    CUmemoryPool d, p = new_pool(CU_MEM_HANDLE_TYPE_NONE), cur = NULL, dead = new_pool(CU_MEM_HANDLE_TYPE_NONE);
    cuMemPoolDestroy(dead);
    cuDeviceGetDefaultMemPool(&d, dev);
    P("set mempool", cuDeviceSetMemPool(dev, p));
    cuDeviceGetMemPool(&cur, dev);
    YN("  current pool is the new pool", cur == p);
    CUdeviceptr a = 0;
    P("alloc async after set mempool", cuMemAllocAsync(&a, MIB, NULL));
    YN("  taken from the new pool", USED(p) == MIB);
    YN("  not from the default pool", USED(d) == 0);
    P("set mempool device 1", cuDeviceSetMemPool(1, p));
    P("set mempool NULL", cuDeviceSetMemPool(dev, NULL));
    cuDeviceGetMemPool(&cur, dev);
    YN("  current pool unchanged by refusals", cur == p);
    P("destroy the current pool", cuMemPoolDestroy(p));
    cur = NULL;
    P("current pool after destroying it", cuDeviceGetMemPool(&cur, dev));
    YN("  back to the default pool", cur == d);
    YN("  still the destroyed pool", cur == p);
    CUdeviceptr b = 0;
    if (P("alloc async after the current pool was destroyed", cuMemAllocAsync(&b, MIB, NULL)) == CUDA_SUCCESS) {
        YN("  from the default pool", USED(d) == MIB);
        cuMemFreeAsync(b, NULL);
    }
    P("free from the destroyed pool", cuMemFreeAsync(a, NULL));
    cuStreamSynchronize(NULL);
    P("set mempool back to the default", cuDeviceSetMemPool(dev, d));
    CUcontext popped;
    cuCtxPopCurrent(&popped);
    P("set mempool no context", cuDeviceSetMemPool(dev, d));
    cuCtxPushCurrent(popped);
    /* last: NVIDIA takes a destroyed pool here */
    P("set mempool destroyed pool", cuDeviceSetMemPool(dev, dead));
}

static void s_pool_contexts(void)
{
    CUcontext c1 = setup(), c2;
    CUstream s1;
    cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING);
    ctx_create(&c2); /* c2 current */
    CUmemoryPool p = reuse_pool(1, 1, 1);
    CUdeviceptr a = 0;
    cuCtxSetCurrent(c1);
    P("alloc in context 1", cuMemAllocFromPoolAsync(&a, MIB, p, s1));
    cuMemsetD32Async(a, 0x77, 256, s1);
    cuStreamSynchronize(s1);
    cuCtxSetCurrent(c2);
    YN("  readable in context 2", words_are(a, 0x77, 64));
    P("free in context 2's NULL stream", cuMemFreeAsync(a, NULL));
    cuCtxSynchronize();
    cuCtxSetCurrent(c1);
    P("alloc in context 1 again", cuMemAllocFromPoolAsync(&a, MIB, p, s1));
    cuStreamSynchronize(s1);
    cuStreamDestroy(s1);
    cuCtxSetCurrent(c2);
    P("destroy context 1 with an allocation outstanding", cuCtxDestroy(c1));
    P("  memset after its context was destroyed", cuMemsetD32(a, 0x99, 64));
    YN("  allocation still usable", words_are(a, 0x99, 64));
    YN("  still counted", USED(p) == MIB);
    P("free after its context was destroyed", cuMemFreeAsync(a, NULL));
    cuCtxSynchronize();
    YN("  used 0", USED(p) == 0);
    cuMemPoolDestroy(p);
}

static void s_pool_stale(void)
{
    setup();
    CUmemoryPool p = new_pool(CU_MEM_HANDLE_TYPE_NONE);
    CUdeviceptr a = 0;
    cuMemPoolDestroy(p);
    cuuint64_t u = 0;
    int v = 0;
    CUmemAccess_flags f;
    P("destroyed pool destroy again", cuMemPoolDestroy(p));
    P("destroyed pool get attribute", cuMemPoolGetAttribute(p, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &u));
    P("destroyed pool set attribute", cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &v));
    P("destroyed pool trim", cuMemPoolTrimTo(p, 0));
    P("destroyed pool get access", cuMemPoolGetAccess(&f, p, &loc0));
    P("destroyed pool set access", cuMemPoolSetAccess(p, &rw, 1));
    int fd;
    P("destroyed pool export", cuMemPoolExportToShareableHandle(&fd, p, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    P("destroyed pool alloc", cuMemAllocFromPoolAsync(&a, MIB, p, NULL));
    CUmemoryPool bogus = (CUmemoryPool)(uintptr_t)0x5a5a5a5a0ull;
    P("bogus pool get attribute", cuMemPoolGetAttribute(bogus, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &u));
    P("bogus pool alloc", cuMemAllocFromPoolAsync(&a, MIB, bogus, NULL));
    P("bogus pool destroy", cuMemPoolDestroy(bogus));
    CUstream bs = (CUstream)(uintptr_t)0x5a5a5a5a0ull;
    P("bogus stream alloc", cuMemAllocAsync(&a, MIB, bs));
    P("bogus stream free", cuMemFreeAsync(0x1000, bs));
}

static const struct { const char *name; void (*fn)(void); } sections[] = {
    {"pool_default", s_pool_default}, {"pool_create", s_pool_create},   {"pool_attrs", s_pool_attrs},
    {"pool_alloc", s_pool_alloc},     {"pool_free", s_pool_free},       {"pool_ptr", s_pool_ptr},
    {"pool_reuse", s_pool_reuse},     {"pool_release", s_pool_release}, {"pool_trim", s_pool_trim},
    {"pool_access", s_pool_access},   {"pool_ipc", s_pool_ipc},         {"pool_setpool", s_pool_setpool},
    {"pool_contexts", s_pool_contexts}, {"pool_stale", s_pool_stale},
};
#define NSECT (sizeof sections / sizeof sections[0])

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < NSECT; i++) printf("%s\n", sections[i].name);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "child") == 0) {
        child_import(atoi(argv[2]), argv[3]);
        return 0;
    }
    for (size_t i = 0; i < NSECT; i++)
        if (argc < 2 || strcmp(argv[1], sections[i].name) == 0) {
            if (argc < 2) printf("# section %s\n", sections[i].name);
            sections[i].fn();
            if (argc > 1) return 0;
        }
    if (argc > 1) {
        fprintf(stderr, "pool_probe: no section %s (--list lists them)\n", argv[1]);
        return 2;
    }
    return 0;
}
