/*
 * The stream-ordered allocator on vmgpu's libcuda: cuMemAllocAsync/cuMemFreeAsync/
 * cuMemAllocFromPoolAsync and the cuMemPool* calls. `vmgpu_cuda_pools <case>`.
 *
 * What NVIDIA's driver answers is recorded in probe/nvidia_pools_*.txt (pool_probe.c); these
 * cases check vmgpu's own promises on top: data written through pool memory reads back, the
 * pool's counters and the device's free memory follow every allocation, free, synchronize and
 * trim granule by granule, reuse follows the pool's rules, sharing maps the same memory, and every
 * refused call leaves the pools, their counters and the device's memory as they were.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "cu_check.h"

/* The per-thread-default-stream exports (cuda.h names them only under
 * CUDA_API_PER_THREAD_DEFAULT_STREAM). */
CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream);
CUresult CUDAAPI cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream);
CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream);

#define MIB ((size_t)1 << 20)
#define KEEP_ALL (~(cuuint64_t)0)

static CUdevice g_dev;
static CUcontext g_ctx;
static size_t g_gran; /* the device's allocation granularity: a pool maps that much at a time */

static CUresult ctx_create(CUcontext *c)
{
#if CUDA_VERSION >= 13000
    return cuCtxCreate(c, NULL, 0, g_dev);
#else
    return cuCtxCreate(c, 0, g_dev);
#endif
}

static void init(void)
{
    MUST(cuInit(0));
    MUST(cuDeviceGet(&g_dev, 0));
    MUST(ctx_create(&g_ctx));
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    MUST(cuMemGetAllocationGranularity(&g_gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
}

static size_t free_mem(void)
{
    size_t f = 0, t = 0;
    cuMemGetInfo(&f, &t);
    return f;
}

static CUmemPoolProps props(unsigned handle_types)
{
    CUmemPoolProps p;
    memset(&p, 0, sizeof p);
    p.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.handleTypes = (CUmemAllocationHandleType)handle_types;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = g_dev;
    return p;
}

static cuuint64_t a64(CUmemoryPool p, CUmemPool_attribute a)
{
    cuuint64_t v = 0xdeadbeef;
    MUST(cuMemPoolGetAttribute(p, a, &v));
    return v;
}
#define RESERVED(p) a64(p, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)
#define USED(p) a64(p, CU_MEMPOOL_ATTR_USED_MEM_CURRENT)

static void set_i(CUmemoryPool p, CUmemPool_attribute a, int v) { MUST(cuMemPoolSetAttribute(p, a, &v)); }
static void set_u(CUmemoryPool p, CUmemPool_attribute a, cuuint64_t v) { MUST(cuMemPoolSetAttribute(p, a, &v)); }

static CUmemoryPool new_pool(int follow, int opp, int internal, cuuint64_t threshold, size_t max_size)
{
    CUmemoryPool p;
    CUmemPoolProps pp = props(CU_MEM_HANDLE_TYPE_NONE);
    pp.maxSize = max_size;
    MUST(cuMemPoolCreate(&p, &pp));
    set_i(p, CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, follow);
    set_i(p, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, opp);
    set_i(p, CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, internal);
    set_u(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, threshold);
    return p;
}

static int words_are(CUdeviceptr p, uint32_t v, size_t n)
{
    uint32_t buf[1024];
    if (n > 1024 || cuMemcpyDtoH(buf, p, n * 4)) return 0;
    for (size_t i = 0; i < n; i++)
        if (buf[i] != v) return 0;
    return 1;
}

/* Everything a refused call must leave as it was: the device's free memory and a pool's
 * attributes (counters, high-water marks, reuse policy, threshold). */
typedef struct state {
    size_t free;
    cuuint64_t v[8];
} state;
static state take(CUmemoryPool p)
{
    state s;
    memset(&s, 0, sizeof s);
    s.free = free_mem();
    for (int a = 1; a <= 8 && p; a++) {
        union { cuuint64_t u; int i; } v = {0};
        cuMemPoolGetAttribute(p, (CUmemPool_attribute)a, &v);
        s.v[a - 1] = a <= 3 ? (cuuint64_t)v.i : v.u;
    }
    return s;
}
static int nref;
#define REFUSE(pool, call, want) do { state s0_ = take(pool); EXPECT(call, want); state s1_ = take(pool); \
    nref++; if (memcmp(&s0_, &s1_, sizeof s0_)) { \
        printf("  FAIL %s:%d: %s changed the pool or the device's memory\n", __FILE__, __LINE__, #call); fails++; } \
    } while (0)

/* ------------------------------------------------------------------ flows */

static void t_flows(void)
{
    init();
    CUstream s;
    MUST(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUmemoryPool d, cur;
    OK(cuDeviceGetDefaultMemPool(&d, g_dev));
    OK(cuDeviceGetMemPool(&cur, g_dev));
    CHECK(cur == d);
    int v = 0;
    OK(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, g_dev));
    CHECK(v == 1);

    /* The default pool: allocate, fill in the stream, read back, free, synchronize. */
    size_t f0 = free_mem();
    CUdeviceptr a = 0, b = 0;
    OK(cuMemAllocAsync(&a, 3 * g_gran + 100, s));
    CHECK(a != 0 && a % 512 == 0);
    CHECK(USED(d) == 3 * g_gran + 100);
    CHECK(RESERVED(d) == 4 * g_gran);               /* four granules mapped for it */
    CHECK(free_mem() == f0 - 4 * g_gran);
    OK(cuMemsetD32Async(a, 0x600df00d, (3 * g_gran + 100) / 4, s));
    OK(cuStreamSynchronize(s));
    CHECK(words_are(a + 3 * g_gran - 256, 0x600df00d, 64));
    /* The same memory seen through a copy to another allocation of the pool. */
    OK(cuMemAllocAsync(&b, 4096, s));
    CHECK(b >= a + 3 * g_gran + 100 && b < a + 4 * g_gran); /* placed in the granule already mapped */
    CHECK(RESERVED(d) == 4 * g_gran);
    OK(cuMemcpyDtoDAsync(b, a + 8, 4096, s));
    OK(cuStreamSynchronize(s));
    CHECK(words_are(b, 0x600df00d, 1024));

    /* Pointer queries. */
    CUmemoryPool pp = NULL;
    OK(cuPointerGetAttribute(&pp, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, a + 12));
    CHECK(pp == d);
    CUdeviceptr base = 0;
    size_t size = 0;
    OK(cuMemGetAddressRange(&base, &size, a + 3 * g_gran));
    CHECK(base == a && size == 3 * g_gran + 100);
    EXPECT(cuMemGetAddressRange(&base, &size, a + 3 * g_gran + 100), CUDA_ERROR_NOT_FOUND);
    CUcontext pc = (CUcontext)1;
    OK(cuPointerGetAttribute(&pc, CU_POINTER_ATTRIBUTE_CONTEXT, a));
    CHECK(pc == NULL);
    unsigned long long acc = 9;
    OK(cuMemGetAccess(&acc, &(CUmemLocation){CU_MEM_LOCATION_TYPE_DEVICE, 0}, a));
    CHECK(acc == 0); /* NVIDIA's answer for pool memory */
    CUmemGenericAllocationHandle h;
    EXPECT(cuMemRetainAllocationHandle(&h, (void *)(uintptr_t)a), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemUnmap(a, g_gran), CUDA_ERROR_INVALID_VALUE);

    OK(cuMemFreeAsync(a, s));
    OK(cuMemFreeAsync(b, s));
    CHECK(USED(d) == 0);
    CHECK(RESERVED(d) == 4 * g_gran);               /* until the synchronize */
    OK(cuStreamSynchronize(s));
    CHECK(RESERVED(d) == 0);                         /* threshold 0: all given back */
    CHECK(free_mem() == f0);
    EXPECT(cuPointerGetAttribute(&pp, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, a), CUDA_ERROR_INVALID_VALUE);

    /* A pool of its own, made current: cuMemAllocAsync takes from it. */
    CUmemoryPool p = new_pool(1, 1, 1, KEEP_ALL, 0);
    OK(cuDeviceSetMemPool(g_dev, p));
    OK(cuDeviceGetMemPool(&cur, g_dev));
    CHECK(cur == p);
    OK(cuMemAllocAsync(&a, MIB, NULL));
    CHECK(USED(p) == MIB && USED(d) == 0);
    OK(cuMemsetD8(a, 0x5a, MIB));
    CHECK(words_are(a + MIB - 4096, 0x5a5a5a5a, 1024));
    /* cuMemFree of pool memory: after the context's work, back to its pool. */
    OK(cuMemFree(a));
    CHECK(USED(p) == 0);
    CHECK(RESERVED(p) == MIB);                      /* kept: threshold is the maximum */
    OK(cuMemAllocFromPoolAsync(&a, MIB, p, NULL));  /* warm: no new memory */
    CHECK(RESERVED(p) == MIB);
    OK(cuMemFreeAsync(a, NULL));
    /* Destroying the current pool makes the default pool current again. */
    OK(cuMemPoolDestroy(p));
    OK(cuDeviceGetMemPool(&cur, g_dev));
    CHECK(cur == d);
    OK(cuCtxSynchronize());
    CHECK(free_mem() == f0);

    /* cuMemFreeAsync frees cuMemAlloc memory as well (as NVIDIA's does). */
    CUdeviceptr m = 0;
    OK(cuMemAlloc(&m, 5000));
    OK(cuMemFreeAsync(m, s));
    EXPECT(cuMemFree(m), CUDA_ERROR_INVALID_VALUE);

    /* Size 0: success and a NULL pointer, nothing allocated. */
    a = 77;
    OK(cuMemAllocAsync(&a, 0, s));
    CHECK(a == 0 && USED(d) == 0);
    /* The per-thread default stream names. */
    OK(cuMemAllocAsync_ptsz(&a, 100, CU_STREAM_PER_THREAD));
    OK(cuMemFreeAsync_ptsz(a, CU_STREAM_PER_THREAD));
    OK(cuMemAllocFromPoolAsync_ptsz(&a, 100, d, NULL));
    OK(cuMemFreeAsync_ptsz(a, NULL));
    OK(cuStreamSynchronize(NULL));
    CHECK(free_mem() == f0);
    OK(cuStreamDestroy(s));
    NOTE("default and created pools: data, counters, queries and free memory follow each call");
}

/* ------------------------------------------------------------------ ordering */

/* A in s1 freed in s1, then `between`, then B in sb: did B get A's address? */
static int reuse(CUmemoryPool p, CUstream s1, CUstream sb, void (*between)(CUstream, CUstream, CUevent), CUstream s2)
{
    CUevent e;
    MUST(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
    CUdeviceptr a = 0, b = 0;
    MUST(cuMemAllocFromPoolAsync(&a, 2 * g_gran, p, s1));
    MUST(cuMemsetD32Async(a, 0x11, 2 * g_gran / 4, s1));
    MUST(cuMemFreeAsync(a, s1));
    if (between) between(s1, s2, e);
    MUST(cuMemAllocFromPoolAsync(&b, 2 * g_gran, p, sb));
    MUST(cuMemFreeAsync(b, sb));
    MUST(cuCtxSynchronize());
    MUST(cuEventDestroy(e));
    return a == b;
}
static void b_sync(CUstream s1, CUstream s2, CUevent e) { (void)s2, (void)e; MUST(cuStreamSynchronize(s1)); }
static void b_wait(CUstream s1, CUstream s2, CUevent e)
{
    MUST(cuEventRecord(e, s1));
    MUST(cuStreamWaitEvent(s2, e, 0));
}
static void b_event_sync(CUstream s1, CUstream s2, CUevent e)
{
    (void)s2;
    MUST(cuEventRecord(e, s1));
    MUST(cuEventSynchronize(e));
}
static void b_legacy_sync(CUstream s1, CUstream s2, CUevent e) { (void)s1, (void)s2, (void)e; MUST(cuStreamSynchronize(CU_STREAM_LEGACY)); }

static void t_ordering(void)
{
    init();
    CUstream s1, s2, b1;
    MUST(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    MUST(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    MUST(cuStreamCreate(&b1, 0));
    struct {
        int f, o, i;
        CUstream a, b;
        void (*between)(CUstream, CUstream, CUevent);
        int want;
        const char *what;
    } c[] = {
        {0, 0, 0, s1, s1, NULL, 1, "same stream, reuse all off"},
        {0, 0, 0, s1, s2, NULL, 0, "other stream, all off"},
        {1, 1, 1, s1, s2, NULL, 0, "other stream, defaults, free not known complete"},
        {0, 0, 0, s1, s2, b_sync, 1, "other stream after s1 synchronized"},
        {0, 0, 0, s1, s2, b_wait, 0, "event waited, follow off"},
        {1, 0, 0, s1, s2, b_wait, 1, "event waited, follow on"},
        {1, 0, 0, s1, s2, b_event_sync, 1, "event synchronized"},
        {0, 0, 1, s1, s2, NULL, 0, "internal dependencies while the pool can grow"},
        {1, 0, 0, b1, CU_STREAM_LEGACY, NULL, 1, "legacy stream after a blocking stream's free"},
        {1, 0, 0, CU_STREAM_LEGACY, b1, NULL, 1, "blocking stream after a legacy free"},
        {1, 0, 0, CU_STREAM_LEGACY, s2, NULL, 0, "non-blocking stream after a legacy free"},
        {0, 0, 0, b1, s2, b_legacy_sync, 1, "legacy synchronize completes a blocking stream's free"},
        {0, 0, 0, s1, s2, b_legacy_sync, 0, "legacy synchronize leaves a non-blocking stream's free"},
    };
    for (unsigned k = 0; k < sizeof c / sizeof c[0]; k++) {
        CUmemoryPool p = new_pool(c[k].f, c[k].o, c[k].i, KEEP_ALL, 0);
        int got = reuse(p, c[k].a, c[k].b, c[k].between, s2);
        if (got != c[k].want) {
            printf("  FAIL reuse: %s: %s, want %s\n", c[k].what, got ? "reused" : "new memory", c[k].want ? "reused" : "new memory");
            fails++;
        }
        checks++;
        OK(cuMemPoolDestroy(p));
    }
    NOTE("%u reuse rules checked", (unsigned)(sizeof c / sizeof c[0]));

    /* Opportunistic reuse: once the device has passed the free (the ring's fence), and only then. */
    CUmemoryPool p = new_pool(0, 1, 0, KEEP_ALL, 0);
    CUdeviceptr a = 0, b = 0;
    OK(cuMemAllocFromPoolAsync(&a, g_gran, p, s1));
    OK(cuMemFreeAsync(a, s1));
    CUevent e;
    OK(cuEventCreate(&e, 0));
    OK(cuEventRecord(e, s1));
    while (cuEventQuery(e) == CUDA_ERROR_NOT_READY) {
    }
    OK(cuMemAllocFromPoolAsync(&b, g_gran, p, s2));
    CHECK(b == a);
    OK(cuMemFreeAsync(b, s2));
    OK(cuCtxSynchronize());
    OK(cuMemPoolDestroy(p));

    /* Internal dependencies when the pool cannot grow: a full pool (maxSize 2 granules). */
    for (int internal = 0; internal <= 1; internal++) {
        p = new_pool(0, 0, internal, KEEP_ALL, 2 * g_gran);
        CUdeviceptr x, y, z = 0;
        OK(cuMemAllocFromPoolAsync(&x, g_gran, p, s1));
        OK(cuMemAllocFromPoolAsync(&y, g_gran, p, s1));
        OK(cuMemsetD32Async(x, 0x22, g_gran / 4, s1));
        OK(cuMemFreeAsync(x, s1));
        OK(cuMemFreeAsync(y, s1));
        if (internal) {
            OK(cuMemAllocFromPoolAsync(&z, g_gran, p, s2));
            CHECK(z == x || z == y);
            /* ordered after the free: what s2 writes is what stays */
            OK(cuMemsetD32Async(z, 0x33, g_gran / 4, s2));
            OK(cuStreamSynchronize(s2));
            CHECK(words_are(z, 0x33, 256));
            OK(cuMemFreeAsync(z, s2));
        } else {
            REFUSE(p, cuMemAllocFromPoolAsync(&z, g_gran, p, s2), CUDA_ERROR_OUT_OF_MEMORY);
        }
        OK(cuCtxSynchronize());
        OK(cuMemPoolDestroy(p));
    }

    /* Smaller allocations inside a freed larger one; live blocks never handed out twice. */
    p = new_pool(1, 1, 1, KEEP_ALL, 0);
    CUdeviceptr big, q[8];
    OK(cuMemAllocFromPoolAsync(&big, 4 * g_gran, p, s1));
    OK(cuMemFreeAsync(big, s1));
    for (int i = 0; i < 8; i++) {
        OK(cuMemAllocFromPoolAsync(&q[i], g_gran / 2, p, s1));
        CHECK(q[i] >= big && q[i] + g_gran / 2 <= big + 4 * g_gran);
        OK(cuMemsetD32Async(q[i], (unsigned)i, g_gran / 8, s1));
    }
    CHECK(RESERVED(p) == 4 * g_gran);
    OK(cuStreamSynchronize(s1));
    for (int i = 0; i < 8; i++) CHECK(words_are(q[i], (unsigned)i, 1024));
    for (int i = 0; i < 8; i++) OK(cuMemFreeAsync(q[i], s1));
    OK(cuStreamSynchronize(s1));
    OK(cuMemPoolDestroy(p));
    OK(cuEventDestroy(e));
    OK(cuStreamDestroy(s1));
    OK(cuStreamDestroy(s2));
    OK(cuStreamDestroy(b1));
}

/* ------------------------------------------------------------------ release and trim */

static void t_release(void)
{
    init();
    CUstream s, s2;
    MUST(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    MUST(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
    size_t f0 = free_mem();
    CUmemoryPool p = new_pool(1, 1, 1, 0, 0);
    CUdeviceptr u[6];

    /* Threshold 0: everything unused goes back at a synchronize, not at a query, and not at
     * another stream's synchronize. */
    for (int i = 0; i < 4; i++) OK(cuMemAllocFromPoolAsync(&u[i], g_gran, p, s));
    CHECK(RESERVED(p) == 4 * g_gran && a64(p, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH) == 4 * g_gran);
    CHECK(free_mem() == f0 - 4 * g_gran);
    for (int i = 0; i < 4; i++) OK(cuMemFreeAsync(u[i], s));
    (void)cuStreamQuery(s);
    CHECK(RESERVED(p) == 4 * g_gran);
    OK(cuStreamSynchronize(s2));
    CHECK(RESERVED(p) == 4 * g_gran);
    OK(cuStreamSynchronize(s));
    CHECK(RESERVED(p) == 0 && free_mem() == f0);
    CHECK(a64(p, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH) == 4 * g_gran);

    /* A live allocation keeps its granule. */
    for (int i = 0; i < 5; i++) OK(cuMemAllocFromPoolAsync(&u[i], g_gran, p, s));
    for (int i = 1; i < 5; i++) OK(cuMemFreeAsync(u[i], s));
    OK(cuCtxSynchronize());
    CHECK(RESERVED(p) == g_gran && USED(p) == g_gran);
    OK(cuMemFreeAsync(u[0], s));

    /* Threshold 2.5 granules: 2 kept. Lowering it releases at the next synchronize. */
    set_u(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, 2 * g_gran + g_gran / 2);
    for (int i = 0; i < 4; i++) OK(cuMemAllocFromPoolAsync(&u[i], g_gran, p, s));
    for (int i = 0; i < 4; i++) OK(cuMemFreeAsync(u[i], s));
    OK(cuStreamSynchronize(s));
    CHECK(RESERVED(p) == 2 * g_gran);
    CHECK(free_mem() == f0 - 2 * g_gran);
    set_u(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, 0);
    CHECK(RESERVED(p) == 2 * g_gran);
    OK(cuStreamSynchronize(s));
    CHECK(RESERVED(p) == 0);

    /* Trim: never below what is asked to be kept; live memory stays. */
    set_u(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, KEEP_ALL);
    for (int i = 0; i < 4; i++) OK(cuMemAllocFromPoolAsync(&u[i], g_gran, p, s));
    for (int i = 0; i < 4; i++) OK(cuMemFreeAsync(u[i], s));
    OK(cuStreamSynchronize(s));
    CHECK(RESERVED(p) == 4 * g_gran);
    OK(cuMemPoolTrimTo(p, 3 * g_gran));
    CHECK(RESERVED(p) == 3 * g_gran);
    OK(cuMemPoolTrimTo(p, g_gran + g_gran / 2));
    CHECK(RESERVED(p) == 2 * g_gran);
    OK(cuMemPoolTrimTo(p, 0));
    CHECK(RESERVED(p) == 0 && free_mem() == f0);
    CHECK(a64(p, CU_MEMPOOL_ATTR_USED_MEM_HIGH) == 5 * g_gran);
    set_u(p, CU_MEMPOOL_ATTR_USED_MEM_HIGH, 0);
    CHECK(a64(p, CU_MEMPOOL_ATTR_USED_MEM_HIGH) == 0);
    OK(cuMemAllocFromPoolAsync(&u[0], 3 * g_gran, p, s));
    OK(cuMemsetD32Async(u[0], 0x44, 3 * g_gran / 4, s));
    OK(cuMemPoolTrimTo(p, 0));
    CHECK(RESERVED(p) == 3 * g_gran);
    OK(cuStreamSynchronize(s));
    CHECK(words_are(u[0] + 2 * g_gran, 0x44, 1024));

    /* The high-water marks reset to the current amounts. */
    CHECK(a64(p, CU_MEMPOOL_ATTR_USED_MEM_HIGH) == 3 * g_gran);
    OK(cuMemFreeAsync(u[0], s));
    OK(cuMemAllocFromPoolAsync(&u[0], 100, p, s));
    set_u(p, CU_MEMPOOL_ATTR_USED_MEM_HIGH, 0);
    CHECK(a64(p, CU_MEMPOOL_ATTR_USED_MEM_HIGH) == 100);
    OK(cuStreamSynchronize(s));
    OK(cuMemPoolTrimTo(p, 0));
    set_u(p, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, 0);
    CHECK(a64(p, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH) == RESERVED(p) && RESERVED(p) == g_gran);
    OK(cuMemFreeAsync(u[0], s));
    OK(cuStreamSynchronize(s));
    OK(cuMemPoolTrimTo(p, 0));

    /* Under memory pressure a pool gives back what another pool holds unused. */
    CUmemoryPool q = new_pool(1, 1, 1, KEEP_ALL, 0);
    size_t avail = free_mem() / g_gran * g_gran;
    CUdeviceptr big;
    OK(cuMemAllocFromPoolAsync(&big, avail - 2 * g_gran, q, s));
    OK(cuMemFreeAsync(big, s));
    OK(cuStreamSynchronize(s));
    CHECK(RESERVED(q) == avail - 2 * g_gran);        /* kept by q */
    OK(cuMemAllocFromPoolAsync(&big, 4 * g_gran, p, s)); /* needs memory q holds */
    CHECK(RESERVED(q) < avail - 2 * g_gran);
    OK(cuMemFreeAsync(big, s));
    OK(cuStreamSynchronize(s));
    OK(cuMemPoolDestroy(q));
    OK(cuMemPoolTrimTo(p, 0));
    CHECK(free_mem() == f0);
    OK(cuMemPoolDestroy(p));
    OK(cuStreamDestroy(s));
    OK(cuStreamDestroy(s2));
    NOTE("threshold, synchronize, trim and memory pressure: granule by granule");
}

/* ------------------------------------------------------------------ sharing */

static void t_ipc(void)
{
    init();
    size_t f0 = free_mem();
    CUmemoryPool np = new_pool(1, 1, 1, 0, 0), fp, ip = NULL, d;
    CUmemPoolProps pp = props(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    OK(cuMemPoolCreate(&fp, &pp));
    OK(cuDeviceGetDefaultMemPool(&d, g_dev));
    int fd = -1;
    REFUSE(np, cuMemPoolExportToShareableHandle(&fd, np, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
           CUDA_ERROR_INVALID_VALUE);
    REFUSE(d, cuMemPoolExportToShareableHandle(&fd, d, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
           CUDA_ERROR_INVALID_VALUE);
    OK(cuMemPoolExportToShareableHandle(&fd, fp, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    CHECK(fd >= 0 && fcntl(fd, F_GETFD) != -1);
    OK(cuMemPoolImportFromShareableHandle(&ip, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    CHECK(ip && ip != fp);

    CUdeviceptr a = 0, q = 0, q2 = 0, x = 0;
    OK(cuMemAllocFromPoolAsync(&a, 2 * g_gran + 300, fp, NULL));
    OK(cuMemsetD32(a, 0x0ddba11, (2 * g_gran + 300) / 4));
    CUmemPoolPtrExportData data;
    OK(cuMemPoolExportPointer(&data, a));
    OK(cuMemPoolImportPointer(&q, ip, &data));
    CHECK(q && q != a && q % g_gran == a % g_gran);
    CHECK(words_are(q + 2 * g_gran, 0x0ddba11, 64));
    OK(cuMemsetD32(q + 64, 0xfeedbeef, 16)); /* the same memory: seen through a */
    CHECK(words_are(a + 64, 0xfeedbeef, 16));
    OK(cuMemPoolImportPointer(&q2, ip, &data)); /* imported once: the same pointer */
    CHECK(q2 == q);
    CUmemoryPool qp = NULL;
    OK(cuPointerGetAttribute(&qp, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, q + 5));
    CHECK(qp == ip);
    CHECK(USED(fp) == 2 * g_gran + 300);
    EXPECT(cuMemPoolGetAttribute(ip, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &(cuuint64_t){0}), CUDA_ERROR_INVALID_VALUE);
    REFUSE(fp, cuMemAllocFromPoolAsync(&x, 4096, ip, NULL), CUDA_ERROR_INVALID_VALUE);
    REFUSE(fp, cuMemPoolImportPointer(&x, fp, &data), CUDA_ERROR_INVALID_VALUE);
    CUmemPoolPtrExportData junk;
    memset(&junk, 0x3c, sizeof junk);
    REFUSE(fp, cuMemPoolImportPointer(&x, ip, &junk), CUDA_ERROR_INVALID_VALUE);
    REFUSE(fp, cuMemPoolExportPointer(&junk, a + 4), CUDA_ERROR_INVALID_VALUE);
    REFUSE(fp, cuMemPoolTrimTo(ip, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemPoolSetAccess(ip, &(CUmemAccessDesc){{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE}, 1));

    /* The importer frees first; the memory stays the exporter's. */
    size_t f1 = free_mem();
    OK(cuMemFreeAsync(q, NULL));
    REFUSE(fp, cuMemFreeAsync(q, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK(free_mem() == f1);
    CHECK(words_are(a + 64, 0xfeedbeef, 16));
    OK(cuMemFreeAsync(a, NULL));
    OK(cuStreamSynchronize(NULL));
    REFUSE(fp, cuMemPoolExportPointer(&data, a), CUDA_ERROR_INVALID_VALUE);
    REFUSE(fp, cuMemPoolImportPointer(&x, ip, &data), CUDA_ERROR_INVALID_VALUE); /* freed since */

    /* The exporter frees first: an imported mapping keeps the memory alive. */
    OK(cuMemAllocFromPoolAsync(&a, g_gran, fp, NULL));
    OK(cuMemsetD32(a, 0x77777777, g_gran / 4));
    OK(cuMemPoolExportPointer(&data, a));
    OK(cuMemPoolImportPointer(&q, ip, &data));
    OK(cuMemFreeAsync(a, NULL));
    OK(cuStreamSynchronize(NULL));                 /* threshold 0: the pool gives its granule back */
    CHECK(RESERVED(fp) == 0);
    CHECK(words_are(q, 0x77777777, 256));          /* the import still maps the memory */
    OK(cuMemFreeAsync(q, NULL));
    OK(cuMemPoolDestroy(ip));
    OK(cuMemPoolDestroy(fp));
    OK(cuMemPoolDestroy(np));
    close(fd);
    CHECK(free_mem() == f0);
    NOTE("pool and pointer export/import within the process: one memory, two addresses");
}

/* ------------------------------------------------------------------ contexts */

static void t_contexts(void)
{
    init();
    size_t f0 = free_mem();
    CUcontext c2;
    CUstream s1;
    MUST(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
    MUST(ctx_create(&c2)); /* pushed: c2 current */
    CUmemoryPool p = new_pool(1, 1, 1, KEEP_ALL, 0);
    CUdeviceptr a = 0, b = 0;
    /* an allocation in g_ctx's stream while c2 is current, used from both */
    OK(cuMemAllocFromPoolAsync(&a, 3 * g_gran, p, s1));
    OK(cuMemsetD32Async(a, 0x1234, 3 * g_gran / 4, s1));
    OK(cuStreamSynchronize(s1));
    CHECK(words_are(a + g_gran, 0x1234, 256));     /* read in c2 */
    /* a context made after the pool mapped its memory sees it too */
    CUcontext c3;
    MUST(ctx_create(&c3));
    CHECK(words_are(a + 2 * g_gran, 0x1234, 256));
    OK(cuMemAllocFromPoolAsync(&b, g_gran, p, NULL)); /* grows while c3 exists: mapped there too */
    OK(cuMemsetD32(b, 0x4321, g_gran / 4));
    MUST(cuCtxPopCurrent(NULL));
    CHECK(words_are(b, 0x4321, 256));                /* read in c2 */
    OK(cuCtxDestroy(c3));
    /* a context destroyed with pool memory outstanding: the memory stays */
    MUST(cuCtxSetCurrent(g_ctx));
    OK(cuStreamDestroy(s1));
    MUST(cuCtxSetCurrent(c2));
    OK(cuCtxDestroy(g_ctx));
    CHECK(words_are(a, 0x1234, 256));
    CHECK(USED(p) == 4 * g_gran);
    /* a pool destroyed with allocations outstanding: freed later, then everything goes back */
    OK(cuMemPoolDestroy(p));
    CHECK(words_are(b, 0x4321, 256));
    REFUSE(NULL, cuMemPoolGetAttribute(p, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &(cuuint64_t){0}), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFreeAsync(a, NULL));
    CHECK(free_mem() < f0);
    OK(cuMemFreeAsync(b, NULL));
    OK(cuCtxSynchronize());
    CHECK(free_mem() == f0);
    NOTE("pool memory is the device's: every context maps it, it outlives contexts and its pool");
}

/* ------------------------------------------------------------------ bad inputs */

static void t_bad_inputs(void)
{
    init();
    CUstream s, dead;
    MUST(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    MUST(cuStreamCreate(&dead, 0));
    MUST(cuStreamDestroy(dead));
    CUmemoryPool d, p = new_pool(1, 1, 1, KEEP_ALL, 0), gone = new_pool(1, 1, 1, 0, 0), x = NULL;
    OK(cuMemPoolDestroy(gone));
    OK(cuDeviceGetDefaultMemPool(&d, g_dev));
    CUmemoryPool bogus = (CUmemoryPool)(uintptr_t)0x5a5a5a5a0ull;
    CUstream bogus_s = (CUstream)(uintptr_t)0x5a5a5a5a0ull;
    CUdeviceptr a = 0, live = 0, m = 0;
    OK(cuMemAllocFromPoolAsync(&live, 5000, p, s)); /* state to keep: one live allocation */
    OK(cuMemAlloc(&m, 4096));
    cuuint64_t u = 0;
    int iv = 1;
    CUmemAccess_flags af;
    CUmemLocation l0 = {CU_MEM_LOCATION_TYPE_DEVICE, 0}, l1 = {CU_MEM_LOCATION_TYPE_DEVICE, 1},
                  lbad = {CU_MEM_LOCATION_TYPE_INVALID, 0};
    CUmemAccessDesc rw = {l0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE}, ro = {l0, CU_MEM_ACCESS_FLAGS_PROT_READ},
                    none = {l0, CU_MEM_ACCESS_FLAGS_PROT_NONE}, f2 = {l0, (CUmemAccess_flags)2},
                    dev1 = {l1, CU_MEM_ACCESS_FLAGS_PROT_READWRITE},
                    host = {{CU_MEM_LOCATION_TYPE_HOST, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};

    /* devices */
    REFUSE(p, cuDeviceGetDefaultMemPool(NULL, g_dev), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuDeviceGetDefaultMemPool(&x, 1), CUDA_ERROR_INVALID_DEVICE);
    REFUSE(p, cuDeviceGetMemPool(NULL, g_dev), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuDeviceGetMemPool(&x, 1), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuDeviceSetMemPool(1, p), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuDeviceSetMemPool(g_dev, NULL), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuDeviceSetMemPool(g_dev, gone), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuDeviceSetMemPool(g_dev, bogus), CUDA_ERROR_INVALID_VALUE);
    OK(cuDeviceGetMemPool(&x, g_dev));
    CHECK(x == d);

    /* create / destroy */
    CUmemPoolProps pp = props(0);
    REFUSE(p, cuMemPoolCreate(NULL, &pp), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolCreate(&x, NULL), CUDA_ERROR_INVALID_VALUE);
    pp.allocType = CU_MEM_ALLOCATION_TYPE_INVALID;
    REFUSE(p, cuMemPoolCreate(&x, &pp), CUDA_ERROR_INVALID_VALUE);
    pp = props(0);
    pp.allocType = CU_MEM_ALLOCATION_TYPE_MANAGED;
    REFUSE(p, cuMemPoolCreate(&x, &pp), CUDA_ERROR_NOT_SUPPORTED);
    pp = props(0);
    pp.location.id = 1;
    REFUSE(p, cuMemPoolCreate(&x, &pp), CUDA_ERROR_INVALID_VALUE);
    pp = props(0);
    pp.location.type = CU_MEM_LOCATION_TYPE_INVALID;
    REFUSE(p, cuMemPoolCreate(&x, &pp), CUDA_ERROR_INVALID_VALUE);
    pp = props(0);
    pp.location.type = CU_MEM_LOCATION_TYPE_HOST;
    REFUSE(p, cuMemPoolCreate(&x, &pp), CUDA_ERROR_NOT_SUPPORTED);
    pp = props(CU_MEM_HANDLE_TYPE_WIN32);
    REFUSE(p, cuMemPoolCreate(&x, &pp), CUDA_ERROR_INVALID_VALUE);
    pp = props(0);
    pp.reserved[53] = 1;
    REFUSE(p, cuMemPoolCreate(&x, &pp), CUDA_ERROR_INVALID_VALUE);
    pp = props(0);
    pp.maxSize = (size_t)1 << 50;
    REFUSE(p, cuMemPoolCreate(&x, &pp), CUDA_ERROR_OUT_OF_MEMORY);
    REFUSE(p, cuMemPoolDestroy(NULL), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolDestroy(d), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolDestroy(gone), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolDestroy(bogus), CUDA_ERROR_INVALID_VALUE);

    /* attributes */
    REFUSE(p, cuMemPoolGetAttribute(NULL, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &u), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolGetAttribute(gone, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &u), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolGetAttribute(bogus, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &u), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolGetAttribute(p, (CUmemPool_attribute)0, &u), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolGetAttribute(p, (CUmemPool_attribute)9, &u), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolGetAttribute(p, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, NULL), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, NULL), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolSetAttribute(gone, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &iv), CUDA_ERROR_INVALID_VALUE);
    u = 0;
    REFUSE(p, cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &u), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &u), CUDA_ERROR_INVALID_VALUE);
    u = 5;
    REFUSE(p, cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &u), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolSetAttribute(p, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &u), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolSetAttribute(p, (CUmemPool_attribute)9, &u), CUDA_ERROR_INVALID_VALUE);

    /* trim, access */
    REFUSE(p, cuMemPoolTrimTo(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolTrimTo(gone, 0), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolSetAccess(NULL, &rw, 1), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolSetAccess(p, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolSetAccess(p, &ro, 1), CUDA_ERROR_NOT_SUPPORTED);
    REFUSE(p, cuMemPoolSetAccess(p, &none, 1), CUDA_ERROR_INVALID_DEVICE);
    REFUSE(p, cuMemPoolSetAccess(p, &f2, 1), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolSetAccess(p, &dev1, 1), CUDA_ERROR_INVALID_DEVICE);
    REFUSE(p, cuMemPoolSetAccess(p, &host, 1), CUDA_ERROR_NOT_SUPPORTED);
    REFUSE(p, cuMemPoolSetAccess(p, (CUmemAccessDesc[]){rw, host}, 2), CUDA_ERROR_NOT_SUPPORTED);
    REFUSE(p, cuMemPoolSetAccess(gone, &rw, 1), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolGetAccess(NULL, p, &l0), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolGetAccess(&af, NULL, &l0), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolGetAccess(&af, p, NULL), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolGetAccess(&af, p, &l1), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolGetAccess(&af, p, &lbad), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolGetAccess(&af, gone, &l0), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemPoolSetAccess(p, &rw, 1));
    OK(cuMemPoolGetAccess(&af, p, &l0));
    CHECK(af == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);

    /* allocation */
    REFUSE(p, cuMemAllocAsync(NULL, 4096, s), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemAllocAsync(&a, (size_t)1 << 40, s), CUDA_ERROR_OUT_OF_MEMORY);
    REFUSE(p, cuMemAllocAsync(&a, ~(size_t)0, s), CUDA_ERROR_OUT_OF_MEMORY);
    REFUSE(p, cuMemAllocAsync(&a, 4096, dead), CUDA_ERROR_INVALID_HANDLE);
    REFUSE(p, cuMemAllocAsync(&a, 4096, bogus_s), CUDA_ERROR_INVALID_HANDLE);
    REFUSE(p, cuMemAllocFromPoolAsync(&a, 4096, NULL, s), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemAllocFromPoolAsync(&a, 4096, gone, s), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemAllocFromPoolAsync(&a, 4096, bogus, s), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemAllocFromPoolAsync(NULL, 4096, p, s), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemAllocFromPoolAsync(&a, (size_t)1 << 33, p, s), CUDA_ERROR_OUT_OF_MEMORY);

    /* free */
    REFUSE(p, cuMemFreeAsync(live + 512, s), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemFreeAsync(live, dead), CUDA_ERROR_INVALID_HANDLE);
    REFUSE(p, cuMemFreeAsync(live, bogus_s), CUDA_ERROR_INVALID_HANDLE);
    REFUSE(p, cuMemFreeAsync((CUdeviceptr)(uintptr_t)&u, s), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemFreeAsync(m + 64, s), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFreeAsync(0, s));
    CUdeviceptr twice = 0;
    OK(cuMemAllocFromPoolAsync(&twice, 100, p, s));
    OK(cuMemFreeAsync(twice, s));
    REFUSE(p, cuMemFreeAsync(twice, s), CUDA_ERROR_INVALID_VALUE);
    OK(cuStreamSynchronize(s));
    REFUSE(p, cuMemFreeAsync(twice, s), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemFree(live + 8), CUDA_ERROR_INVALID_VALUE);

    /* no context */
    CUcontext popped;
    MUST(cuCtxPopCurrent(&popped));
    REFUSE(p, cuMemAllocAsync(&a, 4096, NULL), CUDA_ERROR_INVALID_CONTEXT);
    REFUSE(p, cuMemFreeAsync(live, NULL), CUDA_ERROR_INVALID_CONTEXT);
    MUST(cuCtxPushCurrent(popped));

    /* sharing */
    int fd = -1;
    REFUSE(p, cuMemPoolExportToShareableHandle(NULL, p, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolExportToShareableHandle(&fd, p, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolExportToShareableHandle(&fd, gone, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolImportFromShareableHandle(&x, (void *)(intptr_t)-1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
           CUDA_ERROR_INVALID_VALUE);
    int devnull = open("/dev/null", O_RDONLY);
    REFUSE(p, cuMemPoolImportFromShareableHandle(&x, (void *)(intptr_t)devnull, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
           CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolImportFromShareableHandle(NULL, (void *)(intptr_t)devnull, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
           CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolImportFromShareableHandle(&x, (void *)(intptr_t)devnull, CU_MEM_HANDLE_TYPE_NONE, 0),
           CUDA_ERROR_INVALID_VALUE);
    close(devnull);
    CUmemPoolPtrExportData data;
    REFUSE(p, cuMemPoolExportPointer(NULL, live), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolExportPointer(&data, live), CUDA_ERROR_INVALID_VALUE); /* not shareable */
    REFUSE(p, cuMemPoolExportPointer(&data, m), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolImportPointer(&a, p, &data), CUDA_ERROR_INVALID_VALUE);
    REFUSE(p, cuMemPoolImportPointer(&a, NULL, &data), CUDA_ERROR_INVALID_VALUE);

    CHECK(USED(p) == 5000);
    OK(cuMemFreeAsync(live, s));
    OK(cuMemFree(m));
    OK(cuStreamSynchronize(s));
    OK(cuMemPoolDestroy(p));
    OK(cuStreamDestroy(s));
    NOTE("%d refusals: each with its error, the pool's attributes and the device's memory unchanged", nref);
}

/* ------------------------------------------------------------------ trace */

/* VMGPU_TRACE=1 (set by the ctest): the pool's growth and shrinking are in the trace. */
static void t_trace(void)
{
    init();
    char path[] = "/tmp/vmgpu-pool-trace-XXXXXX";
    int tfd = mkstemp(path);
    MUST(tfd < 0 ? CUDA_ERROR_OPERATING_SYSTEM : CUDA_SUCCESS);
    fflush(stderr);
    int saved = dup(2);
    dup2(tfd, 2);
    CUmemoryPool p = new_pool(1, 1, 1, 0, 0);
    CUdeviceptr a, b;
    OK(cuMemAllocFromPoolAsync(&a, g_gran + 1, p, NULL)); /* two granules */
    OK(cuMemAllocFromPoolAsync(&b, 64, p, NULL));          /* warm */
    OK(cuMemFreeAsync(a, NULL));
    OK(cuMemFreeAsync(b, NULL));
    OK(cuStreamSynchronize(NULL));                         /* both given back */
    OK(cuMemPoolDestroy(p));
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    off_t len = lseek(tfd, 0, SEEK_END);
    char *buf = calloc(1, (size_t)(len > 0 ? len : 0) + 1);
    MUST(buf ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY);
    ssize_t n = pread(tfd, buf, (size_t)(len > 0 ? len : 0), 0);
    close(tfd);
    unlink(path);
    buf[n > 0 ? n : 0] = 0;
    int grows = 0, shrinks = 0, warm = 0;
    for (char *q = buf; (q = strstr(q, "grows: granule")); q++) grows++;
    for (char *q = buf; (q = strstr(q, "shrinks: granule")); q++) shrinks++;
    for (char *q = buf; (q = strstr(q, "no page-table change")); q++) warm++;
    CHECK(grows == 2);
    CHECK(shrinks == 2);
    CHECK(warm == 1);
    NOTE("trace: %d granules mapped, %d unmapped, %d allocation served warm", grows, shrinks, warm);
    free(buf);
}

static const struct { const char *name; void (*fn)(void); } cases[] = {
    {"flows", t_flows},       {"ordering", t_ordering},     {"release", t_release}, {"ipc", t_ipc},
    {"contexts", t_contexts}, {"bad_inputs", t_bad_inputs}, {"trace", t_trace},
};

int main(int argc, char **argv)
{
    unsigned n = sizeof cases / sizeof cases[0];
    for (unsigned i = 0; argc == 2 && i < n; i++) {
        if (strcmp(argv[1], cases[i].name) != 0) continue;
        printf("cuda pools test %s\n", cases[i].name);
        cases[i].fn();
        printf("%s: %d checks, %s\n", cases[i].name, checks, fails ? "FAILED" : "passed");
        return fails ? 1 : 0;
    }
    printf("usage: %s <case>:", argv[0]);
    for (unsigned i = 0; i < n; i++) printf(" %s", cases[i].name);
    printf("\n");
    return 2;
}
