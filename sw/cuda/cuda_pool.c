/*
 * vmgpu's CUDA driver API: the stream-ordered allocator (cuMemAllocAsync, cuMemFreeAsync,
 * cuMemAllocFromPoolAsync) and its memory pools (cuDeviceGetDefaultMemPool, cuMemPool*).
 *
 * A pool is built on the VMM machinery of cuda_mem.c/cuda_state.c: at creation it reserves a
 * VA range (internal: no VMM call can name it) as large as its maxSize, or as the device's
 * memory. The range is cut into segments (used, free, or freed in a stream and not yet known
 * complete). Each 64 KiB granule of the range gets its physical memory (cu_alloc_new), its
 * mapping in every context (cu_map_add) and read-write access (cu_set_access) when an
 * allocation first needs it, and gives them back (unmap, release) when the pool shrinks: at a
 * synchronize down to the release threshold, at cuMemPoolTrimTo down to what is asked.
 *
 * Stream order, as NVIDIA's driver behaves (measured, tests/cuda/probe/pool_probe.c): memory
 * freed in a stream is handed out again at once to that stream; to another stream only when
 * - a synchronize (stream, event, context) has shown the free complete; or
 * - REUSE_FOLLOW_EVENT_DEPENDENCIES and the allocating stream waited on an event recorded after
 *   the free in the freeing stream (the legacy NULL stream and the blocking streams of its
 *   context count as ordered with each other); or
 * - REUSE_ALLOW_OPPORTUNISTIC and the free's place in its ring has been passed on the device; or
 * - REUSE_ALLOW_INTERNAL_DEPENDENCIES, only when the pool could not grow otherwise: the
 *   allocating stream is made to wait (WAIT_FENCE) for the free.
 * Every stream of a context queues on the context's one ring, so the device runs them in order
 * anyway; the rules decide which addresses a program sees, as on NVIDIA's driver.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "cuda_internal.h"
#include "cuda_priv.h"

#define GRAN VMGPU_GRANULE
#define POOL_ALIGN 512u /* NVIDIA's pool pointers are 512-byte aligned (measured) */
#define POOL_MAGIC 0x504f4c21u
#define EXPORT_MAGIC "vmgpuPP1"

enum { SEG_FREE, SEG_USED, SEG_PENDING };

/* A piece of a pool's range: [off, off + len), pool-relative, POOL_ALIGN multiples. */
typedef struct pool_seg {
    uint32_t off, len;
    int state;
    size_t bytes;             /* SEG_USED: the size asked for */
    uint64_t serial;          /* SEG_USED: the allocation's number (pointer export data) */
    struct CUctx_st *ctx;     /* SEG_PENDING: where the free is in stream order */
    CUstream stream;          /* NULL: the context's NULL (legacy) stream */
    int blocking;             /* a stream that is ordered with the legacy stream */
    uint64_t seq;             /* the free's place among frees and event records */
    unsigned ring;
    uint32_t fence;           /* the ring's fence after the work queued before the free */
    int done;                 /* the device has passed that fence (known once, kept) */
    struct pool_seg *next;
} pool_seg;

struct CUmemPoolHandle_st {
    uint32_t magic;
    int live;                 /* 0 after cuMemPoolDestroy (the struct stays: stale handles) */
    int is_default;
    struct CUmemPoolHandle_st *origin; /* an imported pool: the pool it stands for */
    uint64_t serial;
    CUmemPoolProps props;
    uint32_t va, size;        /* the reserved range (size 0: none, imported pools) */
    cu_alloc **gran;          /* per granule: its memory while mapped, else NULL */
    pool_seg *segs;           /* sorted, covering [0, size) */
    int follow, opportunistic, internal;
    uint64_t threshold, used, used_high, reserved, reserved_high;
    int memfd;                /* -1 until exported */
    dev_t fd_dev;
    ino_t fd_ino;
    struct CUmemPoolHandle_st *next;
};

/* A pointer of an imported pool (cuMemPoolImportPointer): the exporter's granules mapped again. */
typedef struct pool_import {
    uint32_t va, map_size;    /* granule-rounded reservation */
    uint32_t ptr;
    size_t bytes;
    uint64_t alloc_serial;    /* the exporter's allocation (imported once: NVIDIA, measured) */
    struct CUmemPoolHandle_st *pool;
    struct pool_import *next;
} pool_import;

/* Stream order: where each event was last recorded and which events each stream waited on. */
typedef struct pool_event {
    struct CUevent_st *e;
    struct CUctx_st *ctx;
    CUstream stream;
    int blocking;
    uint64_t seq;
    struct pool_event *next;
} pool_event;
typedef struct pool_wait {
    struct CUctx_st *wctx, *sctx;
    CUstream waiter, source;
    uint64_t seq;             /* the waiter is ordered after the source's work up to here */
    struct pool_wait *next;
} pool_wait;

/* What cuMemPoolExportPointer hands out (inside CUmemPoolPtrExportData's 64 bytes). */
typedef struct pool_ptr_data {
    char magic[8];
    uint64_t pool_serial, alloc_serial, bytes;
    uint32_t off, pad;
} pool_ptr_data;
_Static_assert(sizeof(pool_ptr_data) <= sizeof(((CUmemPoolPtrExportData *)0)->reserved),
               "the export data fits in CUmemPoolPtrExportData");

static struct CUmemPoolHandle_st *g_pools, *g_default, *g_current;
static pool_import *g_imports;
static pool_event *g_pevents;
static pool_wait *g_waits;
static uint64_t g_serial, g_seq;

static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
static uint32_t ngran(const struct CUmemPoolHandle_st *p) { return p->size / GRAN; }

/* ---------------------------------------------------------------- look-ups */

static struct CUmemPoolHandle_st *pool_any(CUmemoryPool h)
{
    for (struct CUmemPoolHandle_st *p = g_pools; p; p = p->next)
        if (p == h && p->magic == POOL_MAGIC) return p;
    return NULL;
}
static struct CUmemPoolHandle_st *pool_live(CUmemoryPool h)
{
    struct CUmemPoolHandle_st *p = pool_any(h);
    return p && p->live ? p : NULL;
}
/* A live pool that owns memory (not an imported one). */
static struct CUmemPoolHandle_st *pool_own(CUmemoryPool h)
{
    struct CUmemPoolHandle_st *p = pool_live(h);
    return p && !p->origin ? p : NULL;
}

/* The stream identity a free or an event remembers: NULL for the NULL/legacy/per-thread
 * stream (one stream per context in vmgpu), else the handle (never reused: streams are only
 * marked dead). */
static CUstream stream_key(CUstream h, int *blocking)
{
    if (h == NULL || h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD) {
        *blocking = 0;
        return NULL;
    }
    *blocking = !(h->flags & CU_STREAM_NON_BLOCKING);
    return h;
}

/* The live allocation holding va (any pool, destroyed ones with allocations left included). */
static pool_seg *seg_at(uint64_t va, struct CUmemPoolHandle_st **pool)
{
    for (struct CUmemPoolHandle_st *p = g_pools; p; p = p->next) {
        if (!p->size || va < p->va || va >= (uint64_t)p->va + p->size) continue;
        *pool = p;
        for (pool_seg *s = p->segs; s; s = s->next)
            if (va >= p->va + s->off && va < (uint64_t)p->va + s->off + s->len)
                return s->state == SEG_USED && va < (uint64_t)p->va + s->off + s->bytes ? s : NULL;
        return NULL;
    }
    *pool = NULL;
    return NULL;
}

static pool_import *import_at(uint64_t va)
{
    for (pool_import *i = g_imports; i; i = i->next)
        if (va >= i->ptr && va < (uint64_t)i->ptr + i->bytes) return i;
    return NULL;
}

/* ---------------------------------------------------------------- segments */

static pool_seg *seg_new(uint32_t off, uint32_t len)
{
    pool_seg *s = calloc(1, sizeof *s);
    if (s) {
        s->off = off;
        s->len = len;
    }
    return s;
}

/* Split s at pool offset at (inside it): s keeps the front, a copy the back. */
static int seg_split(pool_seg *s, uint32_t at)
{
    pool_seg *b = malloc(sizeof *b);
    if (!b) return -1;
    *b = *s;
    b->off = at;
    b->len = s->off + s->len - at;
    s->len = at - s->off;
    s->next = b;
    return 0;
}

static void seg_coalesce(struct CUmemPoolHandle_st *p)
{
    for (pool_seg *s = p->segs; s && s->next;) {
        pool_seg *n = s->next;
        if (s->state == SEG_FREE && n->state == SEG_FREE) {
            s->len += n->len;
            s->next = n->next;
            free(n);
        } else s = n;
    }
}

static int gran_mapped(const struct CUmemPoolHandle_st *p, uint32_t off, uint32_t len)
{
    for (uint32_t g = off / GRAN; g <= (off + len - 1) / GRAN; g++)
        if (!p->gran[g]) return 0;
    return 1;
}

/* One register read the first time; remembered once true. */
static int fence_passed(pool_seg *s)
{
    if (!s->done) s->done = vmgpu_fence_query(g_dev, s->ring, s->fence) == VMGPU_OK;
    return s->done;
}

/* The allocating stream (ctx, key) waited on an event recorded after free s in its stream. */
static int waited_for(const pool_seg *s, struct CUctx_st *ctx, CUstream key)
{
    for (pool_wait *w = g_waits; w; w = w->next)
        if (w->wctx == ctx && w->waiter == key && w->sctx == s->ctx && w->source == s->stream && w->seq > s->seq)
            return 1;
    return 0;
}

/* May memory freed as s go to an allocation in stream (ctx, key) now? */
static int reusable(const struct CUmemPoolHandle_st *p, pool_seg *s, struct CUctx_st *ctx, CUstream key,
                    int blocking)
{
    if (s->state == SEG_FREE) return 1;
    if (s->state != SEG_PENDING) return 0;
    if (!s->ctx->live) return 1;                              /* its context's work is all done */
    if (s->ctx == ctx && s->stream == key) return 1;          /* the same stream */
    if (p->follow) {
        if (waited_for(s, ctx, key)) return 1;
        /* The legacy stream and the blocking streams of a context wait for each other. */
        if (s->ctx == ctx && ((key == NULL && s->blocking) || (s->stream == NULL && blocking))) return 1;
    }
    return p->opportunistic && fence_passed(s);
}

/* ---------------------------------------------------------------- granules */

static CUresult gran_map(struct CUmemPoolHandle_st *p, uint32_t g)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    CUresult rc;
    cu_alloc *a = cu_alloc_new(GRAN, &prop, 1, &rc);
    if (!a) return rc;
    uint32_t va = p->va + g * GRAN;
    cu_map *m = NULL;
    rc = cu_map_add(va, GRAN, a->pa, 0, a, &m);
    if (!rc) {
        rc = cu_set_access(va, GRAN, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
        if (rc) cu_map_remove(m);
    }
    if (rc) {
        a->refs = 0;
        cu_alloc_maybe_free(a);
        return rc;
    }
    p->gran[g] = a;
    p->reserved += GRAN;
    if (p->reserved > p->reserved_high) p->reserved_high = p->reserved;
    cu_trace("pool %p grows: granule %u created (pa 0x%08x) and mapped read-write at VA 0x%08x in every context; "
             "reserved %llu KiB", (void *)p, g, a->pa, va, (unsigned long long)p->reserved >> 10);
    return CUDA_SUCCESS;
}

static void gran_unmap(struct CUmemPoolHandle_st *p, uint32_t g)
{
    uint32_t va = p->va + g * GRAN;
    cu_alloc *a = p->gran[g];
    uint32_t pa = a->pa;
    cu_map *m = cu_map_find(va);
    if (m) cu_map_remove(m);
    a->refs--;
    cu_alloc_maybe_free(a);
    p->gran[g] = NULL;
    p->reserved -= GRAN;
    cu_trace("pool %p shrinks: granule %u at VA 0x%08x unmapped in every context, its memory (pa 0x%08x) "
             "released; reserved %llu KiB", (void *)p, g, va, pa, (unsigned long long)p->reserved >> 10);
}

/* Map every granule of [off, off+len) that is not mapped yet; all or nothing. */
static CUresult range_map(struct CUmemPoolHandle_st *p, uint32_t off, uint32_t len, unsigned *made)
{
    uint32_t g0 = off / GRAN, g1 = (off + len - 1) / GRAN;
    uint8_t *mine = calloc(g1 - g0 + 1, 1);
    if (!mine) return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult rc = CUDA_SUCCESS;
    *made = 0;
    for (uint32_t g = g0; g <= g1 && !rc; g++) {
        if (p->gran[g]) continue;
        rc = gran_map(p, g);
        if (!rc) {
            mine[g - g0] = 1;
            (*made)++;
        }
    }
    if (rc) {
        for (uint32_t g = g0; g <= g1; g++)
            if (mine[g - g0]) gran_unmap(p, g);
        *made = 0;
    }
    free(mine);
    return rc;
}

/* Granule g holds no allocation and no free still outstanding (fenced: a free whose place in
 * its ring has been passed counts as done). */
static int gran_idle(struct CUmemPoolHandle_st *p, uint32_t g, int fenced)
{
    for (pool_seg *s = p->segs; s; s = s->next) {
        if (s->off >= (g + 1) * GRAN || g * GRAN >= s->off + s->len) continue;
        if (s->state == SEG_USED) return 0;
        if (s->state == SEG_PENDING && s->ctx->live && !(fenced && fence_passed(s))) return 0;
    }
    return 1;
}

/* Give back idle granules, highest first: down to at most `limit` bytes reserved (a release
 * threshold), or (trim) as long as at least `limit` bytes stay (NVIDIA, measured: a threshold
 * of 2.5 granules keeps 2, cuMemPoolTrimTo(2.5 granules) keeps 3). */
static void pool_shrink(struct CUmemPoolHandle_st *p, uint64_t limit, int fenced, int trim)
{
    for (uint32_t g = ngran(p); g-- > 0 && (trim ? p->reserved >= GRAN && p->reserved - GRAN >= limit : p->reserved > limit);)
        if (p->gran[g] && gran_idle(p, g, fenced)) gran_unmap(p, g);
    /* A free whose memory is all given back is no longer tied to its stream. */
    for (pool_seg *s = p->segs; s; s = s->next) {
        if (s->state != SEG_PENDING) continue;
        int any = 0;
        for (uint32_t g = s->off / GRAN; g <= (s->off + s->len - 1) / GRAN; g++) any |= p->gran[g] != NULL;
        if (!any) s->state = SEG_FREE;
    }
    seg_coalesce(p);
}

/* A destroyed pool whose last allocation went: everything back, the range freed. */
static void pool_finish(struct CUmemPoolHandle_st *p)
{
    for (pool_seg *s = p->segs; s; s = s->next)
        if (s->state == SEG_PENDING) s->state = SEG_FREE; /* unmapping drains every ring first */
    pool_shrink(p, 0, 1, 1);
    cu_resv *r = cu_resv_find(p->va, p->size);
    if (r) cu_va_free(r);
    while (p->segs) {
        pool_seg *n = p->segs->next;
        free(p->segs);
        p->segs = n;
    }
    free(p->gran);
    p->gran = NULL;
    p->size = 0;
    if (p->memfd >= 0) close(p->memfd);
    p->memfd = -1;
    cu_trace("pool %p: destroyed and its last allocation freed: VA range given back", (void *)p);
}

/* ---------------------------------------------------------------- pools */

static CUresult pool_new(const CUmemPoolProps *props, int is_default, struct CUmemPoolHandle_st **out)
{
    uint64_t want = props->maxSize ? props->maxSize : g_info.user_bytes;
    if (want > CU_VA_HI - CU_VA_LO) return CUDA_ERROR_OUT_OF_MEMORY;
    uint32_t size = (uint32_t)round_up(want, GRAN);
    struct CUmemPoolHandle_st *p = calloc(1, sizeof *p);
    cu_alloc **gran = calloc(size / GRAN, sizeof *gran);
    pool_seg *s = seg_new(0, size);
    uint32_t va = 0;
    CUresult rc = p && gran && s ? cu_va_reserve(size, GRAN, 0, 1, &va) : CUDA_ERROR_OUT_OF_MEMORY;
    if (rc) {
        free(p);
        free(gran);
        free(s);
        return rc;
    }
    p->magic = POOL_MAGIC;
    p->live = 1;
    p->is_default = is_default;
    p->serial = ++g_serial;
    p->props = *props;
    p->va = va;
    p->size = size;
    p->gran = gran;
    p->segs = s;
    p->follow = p->opportunistic = p->internal = 1; /* NVIDIA's defaults (measured) */
    p->memfd = -1;
    p->next = g_pools;
    g_pools = p;
    cu_trace("pool %p%s: VA [0x%08x, 0x%08llx) reserved, no memory yet (granules are mapped on demand)",
             (void *)p, is_default ? " (the device's default pool)" : "", va, (unsigned long long)va + size);
    *out = p;
    return CUDA_SUCCESS;
}

static CUresult default_pool(struct CUmemPoolHandle_st **out)
{
    if (!g_default) {
        CUmemPoolProps props;
        memset(&props, 0, sizeof props);
        props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
        props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        CUresult rc = pool_new(&props, 1, &g_default);
        if (rc) return rc;
    }
    *out = g_default;
    return CUDA_SUCCESS;
}

static CUresult current_pool(struct CUmemPoolHandle_st **out)
{
    if (g_current && g_current->live) {
        *out = g_current;
        return CUDA_SUCCESS;
    }
    return default_pool(out);
}

/* ---------------------------------------------------------------- allocating */

/* The lowest start in s where len bytes fit in granules mapped already, or ~0u. */
static uint32_t warm_start(const struct CUmemPoolHandle_st *p, const pool_seg *s, uint32_t len)
{
    uint64_t end = (uint64_t)s->off + s->len;
    if (len > s->len) return ~0u;
    if (gran_mapped(p, s->off, len)) return s->off;
    for (uint32_t g = s->off / GRAN + 1; (uint64_t)g * GRAN + len <= end; g++)
        if (p->gran[g] && !p->gran[g - 1] && gran_mapped(p, g * GRAN, len)) return g * GRAN;
    return ~0u;
}

/* [start, start+len) of s as a segment of its own (NULL: out of host memory). */
static pool_seg *seg_carve(pool_seg *s, uint32_t start, uint32_t len)
{
    if (start > s->off) {
        if (seg_split(s, start)) return NULL;
        s = s->next;
    }
    if (len < s->len && seg_split(s, start + len)) return NULL;
    return s;
}

/* Memory pressure: every pool gives back the granules nothing needs. */
static void shrink_all_pools(void)
{
    for (struct CUmemPoolHandle_st *q = g_pools; q; q = q->next)
        if (q->size) pool_shrink(q, 0, 1, 1);
}

static CUresult pool_alloc(struct CUmemPoolHandle_st *p, size_t bytes, struct CUctx_st *c, CUstream key,
                           int blocking, vmgpu_stream *vs, CUdeviceptr *out)
{
    if (bytes > p->size) return CUDA_ERROR_OUT_OF_MEMORY;
    uint32_t len = (uint32_t)round_up(bytes, POOL_ALIGN), at = 0;
    unsigned made = 0;
    pool_seg *pick = NULL;
    const char *how = "served from memory already mapped";
    /* 1. Memory mapped already that this stream may reuse. */
    for (pool_seg *s = p->segs; s && !pick; s = s->next)
        if (reusable(p, s, c, key, blocking) && (at = warm_start(p, s, len)) != ~0u) pick = s;
    /* 2. The lowest range this stream may use, its missing granules mapped now (under memory
     *    pressure after every pool gave back what it holds unused). */
    for (int attempt = 0; !pick && attempt < 2; attempt++) {
        pool_seg *cand = NULL;
        for (pool_seg *s = p->segs; s && !cand; s = s->next)
            if (s->len >= len && reusable(p, s, c, key, blocking)) cand = s;
        if (!cand) break;
        CUresult rc = range_map(p, cand->off, len, &made);
        if (!rc) {
            pick = cand;
            at = cand->off;
            how = "the pool grew";
        } else if (rc != CUDA_ERROR_OUT_OF_MEMORY) return rc;
        else shrink_all_pools();
    }
    /* 3. Internal dependencies: memory another stream freed, this stream made to wait for it. */
    for (pool_seg *s = p->segs; !pick && p->internal && s; s = s->next) {
        if (s->state != SEG_PENDING || s->len < len || range_map(p, s->off, len, &made)) continue;
        if (s->ring != vmgpu_stream_ring(vs)) {
            int crc = vmgpu_cmd_wait_fence(vs, s->ring, s->fence);
            if (crc) return cu_core_err(c, crc);
        }
        pick = s;
        at = s->off;
        how = "reused memory freed in another stream (internal dependency: the stream waits for the free)";
    }
    if (!pick) return CUDA_ERROR_OUT_OF_MEMORY;
    pool_seg *u = seg_carve(pick, at, len);
    if (!u) return CUDA_ERROR_OUT_OF_MEMORY;
    u->state = SEG_USED;
    u->bytes = bytes;
    u->serial = ++g_serial;
    u->ctx = NULL;
    u->stream = NULL;
    p->used += bytes;
    if (p->used > p->used_high) p->used_high = p->used;
    *out = (CUdeviceptr)p->va + at;
    cu_trace("pool %p: %zu bytes at VA 0x%08x: %s%s (%u granule%s mapped)", (void *)p, bytes, p->va + at, how,
             made ? "" : ", no page-table change", made, made == 1 ? "" : "s");
    return CUDA_SUCCESS;
}

/* Free in stream order: the memory waits in the stream (a place after all work submitted so far). */
static void seg_free_in_stream(struct CUmemPoolHandle_st *p, pool_seg *s, struct CUctx_st *c, CUstream key,
                               int blocking, vmgpu_stream *vs)
{
    unsigned ring = vmgpu_stream_ring(vs);
    p->used -= s->bytes;
    s->state = SEG_PENDING;
    s->bytes = 0;
    s->serial = 0;
    s->ctx = c;
    s->stream = key;
    s->blocking = blocking;
    s->seq = ++g_seq;
    s->ring = ring;
    s->fence = vmgpu_fence_last(g_dev, ring);
    s->done = 0;
    cu_trace("pool %p: VA 0x%08x freed in stream order (ring %u after fence %u): reused at once by that "
             "stream, by others per the pool's reuse rules", (void *)p, p->va + s->off, ring, s->fence);
    if (!p->live && !p->used) pool_finish(p);
}

static void import_release(pool_import *i)
{
    for (uint32_t v = i->va; v < i->va + i->map_size; v += GRAN) {
        cu_map *m = cu_map_find(v);
        if (m) cu_map_remove(m);
    }
    cu_resv *r = cu_resv_find(i->va, i->map_size);
    if (r) cu_va_free(r);
    for (pool_import **q = &g_imports; *q; q = &(*q)->next)
        if (*q == i) {
            *q = i->next;
            break;
        }
    cu_trace("imported pointer 0x%08x freed: its mappings of the exporter's memory removed", i->ptr);
    free(i);
}

/* ---------------------------------------------------------------- synchronization */

/* After a synchronize: frees shown complete are free for every stream, and each pool gives
 * back what it holds above its release threshold. */
static void after_sync(void)
{
    for (struct CUmemPoolHandle_st *p = g_pools; p; p = p->next)
        if (p->size) pool_shrink(p, p->threshold, 0, 0);
}

/* A stream's synchronize completes its own frees; the legacy stream's also those of the
 * blocking streams (it waits for them), a blocking stream's not the legacy stream's (measured). */
void cu_pool_synced_stream(struct CUctx_st *c, CUstream h)
{
    int blocking;
    CUstream key = stream_key(h, &blocking);
    for (struct CUmemPoolHandle_st *p = g_pools; p; p = p->next)
        for (pool_seg *s = p->segs; s; s = s->next)
            if (s->state == SEG_PENDING && s->ctx == c && (s->stream == key || (key == NULL && s->blocking)))
                s->state = SEG_FREE;
    after_sync();
}

void cu_pool_synced_ctx(struct CUctx_st *c)
{
    for (struct CUmemPoolHandle_st *p = g_pools; p; p = p->next)
        for (pool_seg *s = p->segs; s; s = s->next)
            if (s->state == SEG_PENDING && s->ctx == c) s->state = SEG_FREE;
    after_sync();
}

static pool_event *pevent_find(struct CUevent_st *e)
{
    for (pool_event *x = g_pevents; x; x = x->next)
        if (x->e == e) return x;
    return NULL;
}

void cu_pool_synced_event(struct CUevent_st *e)
{
    pool_event *pe = pevent_find(e);
    if (pe)
        for (struct CUmemPoolHandle_st *p = g_pools; p; p = p->next)
            for (pool_seg *s = p->segs; s; s = s->next)
                if (s->state == SEG_PENDING && s->ctx == pe->ctx && s->stream == pe->stream && s->seq < pe->seq)
                    s->state = SEG_FREE;
    after_sync();
}

void cu_pool_event_recorded(struct CUevent_st *e, struct CUctx_st *c, CUstream h)
{
    pool_event *pe = pevent_find(e);
    if (!pe) {
        pe = calloc(1, sizeof *pe);
        if (!pe) return; /* reuse then simply does not follow this event */
        pe->e = e;
        pe->next = g_pevents;
        g_pevents = pe;
    }
    pe->ctx = c;
    pe->stream = stream_key(h, &pe->blocking);
    pe->seq = ++g_seq;
}

void cu_pool_stream_waits(struct CUctx_st *c, CUstream h, struct CUevent_st *e)
{
    pool_event *pe = pevent_find(e);
    if (!pe) return;
    int blocking;
    CUstream key = stream_key(h, &blocking);
    for (pool_wait *w = g_waits; w; w = w->next)
        if (w->wctx == c && w->waiter == key && w->sctx == pe->ctx && w->source == pe->stream) {
            if (pe->seq > w->seq) w->seq = pe->seq;
            return;
        }
    pool_wait *w = calloc(1, sizeof *w);
    if (!w) return;
    w->wctx = c;
    w->waiter = key;
    w->sctx = pe->ctx;
    w->source = pe->stream;
    w->seq = pe->seq;
    w->next = g_waits;
    g_waits = w;
}

/* ---------------------------------------------------------------- pointer queries */

/* 1: ptr lies in a live pool allocation or an imported pointer (its start, size, pool);
 * -1: in a pool's range but in no allocation; 0: not pool memory. */
int cu_pool_range(uint64_t ptr, CUdeviceptr *base, size_t *bytes, CUmemoryPool *pool)
{
    struct CUmemPoolHandle_st *p;
    pool_seg *s = seg_at(ptr, &p);
    if (s) {
        if (base) *base = (CUdeviceptr)p->va + s->off;
        if (bytes) *bytes = s->bytes;
        if (pool) *pool = p;
        return 1;
    }
    pool_import *i = import_at(ptr);
    if (i) {
        if (base) *base = i->ptr;
        if (bytes) *bytes = i->bytes;
        if (pool) *pool = i->pool;
        return 1;
    }
    return p ? -1 : 0;
}

/* cuPointerGetAttribute for pool memory (*handled = 0: not pool memory, cuda_mem.c answers). */
CUresult cu_pool_ptr_attr(void *data, int attr, uint64_t ptr, int *handled)
{
    CUdeviceptr base;
    size_t bytes;
    CUmemoryPool pool;
    int r = cu_pool_range(ptr, &base, &bytes, &pool);
    *handled = r != 0;
    if (r <= 0) return CUDA_ERROR_INVALID_VALUE;
    switch (attr) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: *(CUcontext *)data = NULL; break; /* NVIDIA: no context */
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: *(unsigned *)data = CU_MEMORYTYPE_DEVICE; break;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *(CUdeviceptr *)data = ptr; break;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *(CUdeviceptr *)data = base; break;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data = bytes; break;
    case CU_POINTER_ATTRIBUTE_MAPPED: *(int *)data = 1; break;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: *(int *)data = 0; break;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data = 0; break;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: *(unsigned *)data = CU_MEM_ACCESS_FLAGS_PROT_READWRITE; break;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID: *(unsigned long long *)data = base; break;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: *(CUmemoryPool *)data = pool; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

/* cuMemFree of the start of a pool allocation: after the context's work, free for every stream. */
CUresult cu_pool_free_now(struct CUctx_st *c, uint64_t ptr, int *handled)
{
    struct CUmemPoolHandle_st *p;
    pool_seg *s = seg_at(ptr, &p);
    pool_import *i = s ? NULL : import_at(ptr);
    *handled = (s && ptr == (uint64_t)p->va + s->off) || (i && i->ptr == ptr);
    if (!*handled) return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = cu_ctx_sync(c);
    if (rc) return rc;
    if (i) {
        import_release(i);
        return CUDA_SUCCESS;
    }
    p->used -= s->bytes;
    s->state = SEG_FREE;
    s->bytes = 0;
    s->serial = 0;
    seg_coalesce(p);
    if (!p->live && !p->used) pool_finish(p);
    else pool_shrink(p, p->threshold, 0, 0);
    return CUDA_SUCCESS;
}

/* ---------------------------------------------------------------- entry points: devices */

static CUresult dev_default_pool(CUmemoryPool *out, CUdevice dev)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    if (!out) return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    struct CUmemPoolHandle_st *p;
    rc = default_pool(&p);
    if (!rc) *out = p;
    return rc;
}
CUresult CUDAAPI cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
    LOCKED("cuDeviceGetDefaultMemPool", dev_default_pool(pool_out, dev));
}

static CUresult dev_get_pool(CUmemoryPool *out, CUdevice dev)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    /* A device that does not exist: INVALID_VALUE here, not INVALID_DEVICE (NVIDIA, measured). */
    if (!out || dev != 0) return CUDA_ERROR_INVALID_VALUE;
    struct CUmemPoolHandle_st *p;
    rc = current_pool(&p);
    if (!rc) *out = p;
    return rc;
}
CUresult CUDAAPI cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev) { LOCKED("cuDeviceGetMemPool", dev_get_pool(pool, dev)); }

static CUresult dev_set_pool(CUdevice dev, CUmemoryPool pool)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    if (dev != 0) return CUDA_ERROR_INVALID_VALUE; /* measured */
    /* A destroyed pool: NVIDIA takes it (and crashes at the next cuMemAllocAsync, measured);
     * vmgpu refuses it, and a pool allocations cannot come from (imported), as well. */
    struct CUmemPoolHandle_st *p = pool_own(pool);
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    g_current = p;
    cu_trace("device 0: cuMemAllocAsync now allocates from pool %p", (void *)p);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool) { LOCKED("cuDeviceSetMemPool", dev_set_pool(dev, pool)); }

/* ---------------------------------------------------------------- entry points: allocation */

static CUresult alloc_async(CUdeviceptr *dptr, size_t bytes, int from_pool, CUmemoryPool hp, CUstream h)
{
    struct CUctx_st *c;
    vmgpu_stream *vs;
    CUresult rc = cu_stream_resolve(h, &c, &vs);
    if (rc) return rc;
    struct CUmemPoolHandle_st *p = NULL;
    /* A destroyed or imported pool gives no allocations (NVIDIA: INVALID_VALUE, measured). */
    if (from_pool && !(p = pool_own(hp))) return CUDA_ERROR_INVALID_VALUE;
    if (!dptr) return CUDA_ERROR_INVALID_VALUE;
    if (!from_pool && (rc = current_pool(&p))) return rc;
    if (bytes == 0) {
        *dptr = 0; /* as NVIDIA: success, a NULL pointer (measured) */
        return CUDA_SUCCESS;
    }
    int blocking;
    CUstream key = stream_key(h, &blocking);
    return pool_alloc(p, bytes, c, key, blocking, vs, dptr);
}
CUresult CUDAAPI cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    LOCKED("cuMemAllocAsync", alloc_async(dptr, bytesize, 0, NULL, hStream));
}
CUresult CUDAAPI cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    LOCKED("cuMemAllocAsync_ptsz", alloc_async(dptr, bytesize, 0, NULL, hStream));
}
CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream)
{
    LOCKED("cuMemAllocFromPoolAsync", alloc_async(dptr, bytesize, 1, pool, hStream));
}
CUresult CUDAAPI cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                              CUstream hStream)
{
    LOCKED("cuMemAllocFromPoolAsync_ptsz", alloc_async(dptr, bytesize, 1, pool, hStream));
}

static CUresult free_async(CUdeviceptr ptr, CUstream h)
{
    struct CUctx_st *c;
    vmgpu_stream *vs;
    CUresult rc = cu_stream_resolve(h, &c, &vs);
    if (rc) return rc;
    if (ptr == 0) return CUDA_SUCCESS; /* measured */
    int blocking;
    CUstream key = stream_key(h, &blocking);
    struct CUmemPoolHandle_st *p;
    pool_seg *s = seg_at(ptr, &p);
    if (s && ptr == (uint64_t)p->va + s->off) {
        seg_free_in_stream(p, s, c, key, blocking, vs);
        return CUDA_SUCCESS;
    }
    pool_import *i = import_at(ptr);
    if (i && i->ptr == ptr) {
        import_release(i); /* unmapping waits for the work submitted before */
        return CUDA_SUCCESS;
    }
    /* cuMemAlloc memory too (NVIDIA frees it, measured); unmapping waits for the work before. */
    cu_dalloc *d = cu_dalloc_device_at(ptr);
    if (d) {
        cu_dalloc_free(d);
        return CUDA_SUCCESS;
    }
    /* Not the start of a live allocation: inner pointers, pointers freed already, host memory. */
    return CUDA_ERROR_INVALID_VALUE;
}
CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) { LOCKED("cuMemFreeAsync", free_async(dptr, hStream)); }
CUresult CUDAAPI cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
    LOCKED("cuMemFreeAsync_ptsz", free_async(dptr, hStream));
}

/* ---------------------------------------------------------------- entry points: pools */

static CUresult pool_create(CUmemoryPool *out, const CUmemPoolProps *pp)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    if (!out || !pp) return CUDA_ERROR_INVALID_VALUE;
    /* Managed and host-memory pools exist on NVIDIA (measured: SUCCESS); vmgpu has neither
     * managed memory nor host pools (its device attributes say so): NOT_SUPPORTED. */
    if (pp->allocType == CU_MEM_ALLOCATION_TYPE_MANAGED) return CUDA_ERROR_NOT_SUPPORTED;
    if (pp->allocType != CU_MEM_ALLOCATION_TYPE_PINNED) return CUDA_ERROR_INVALID_VALUE;
    switch (pp->location.type) {
    case CU_MEM_LOCATION_TYPE_DEVICE:
        if (pp->location.id != 0) return CUDA_ERROR_INVALID_VALUE; /* measured: not INVALID_DEVICE */
        break;
    case CU_MEM_LOCATION_TYPE_HOST:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT: return CUDA_ERROR_NOT_SUPPORTED;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    /* POSIX fd and fabric handles may be asked for (fabric exports are refused later); Windows
     * handle types are INVALID_VALUE on Linux (measured). usage and win32SecurityAttributes are
     * ignored, reserved bytes must be zero (measured). */
    if (pp->handleTypes & ~(unsigned)(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR | CU_MEM_HANDLE_TYPE_FABRIC))
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof pp->reserved; i++)
        if (pp->reserved[i]) return CUDA_ERROR_INVALID_VALUE;
    struct CUmemPoolHandle_st *p;
    rc = pool_new(pp, 0, &p);
    if (!rc) *out = p;
    return rc;
}
CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)
{
    LOCKED("cuMemPoolCreate", pool_create(pool, poolProps));
}

static CUresult pool_destroy(CUmemoryPool hp)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    struct CUmemPoolHandle_st *p = pool_live(hp);
    if (!p || p->is_default) return CUDA_ERROR_INVALID_VALUE; /* the default pool stays (measured) */
    p->live = 0;
    if (g_current == p) g_current = NULL; /* cuMemAllocAsync goes back to the default pool */
    if (p->origin) return CUDA_SUCCESS;    /* its imported pointers stay until freed */
    /* Allocations still outstanding keep their memory until freed (as NVIDIA: measured). */
    for (pool_seg *s = p->segs; s; s = s->next)
        if (s->state == SEG_PENDING) s->state = SEG_FREE; /* unmapping drains every ring first */
    if (!p->used) pool_finish(p);
    else pool_shrink(p, 0, 1, 1);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool) { LOCKED("cuMemPoolDestroy", pool_destroy(pool)); }

static int attr_known(CUmemPool_attribute a)
{
    return a >= CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES && a <= CU_MEMPOOL_ATTR_USED_MEM_HIGH;
}

static CUresult pool_get_attr(CUmemoryPool hp, CUmemPool_attribute a, void *v)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    /* An imported pool has no attributes of its own (NVIDIA: INVALID_VALUE, measured). */
    struct CUmemPoolHandle_st *p = pool_own(hp);
    if (!p || !attr_known(a) || !v) return CUDA_ERROR_INVALID_VALUE;
    switch (a) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: *(int *)v = p->follow; break;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC: *(int *)v = p->opportunistic; break;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: *(int *)v = p->internal; break;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: *(cuuint64_t *)v = p->threshold; break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: *(cuuint64_t *)v = p->reserved; break;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: *(cuuint64_t *)v = p->reserved_high; break;
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: *(cuuint64_t *)v = p->used; break;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH: *(cuuint64_t *)v = p->used_high; break;
    }
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    LOCKED("cuMemPoolGetAttribute", pool_get_attr(pool, attr, value));
}

static CUresult pool_set_attr(CUmemoryPool hp, CUmemPool_attribute a, void *v)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    /* NULL value: NVIDIA crashes (SIGSEGV, measured); INVALID_VALUE here. */
    struct CUmemPoolHandle_st *p = pool_own(hp);
    if (!p || !attr_known(a) || !v) return CUDA_ERROR_INVALID_VALUE;
    switch (a) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: p->follow = *(int *)v != 0; break;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC: p->opportunistic = *(int *)v != 0; break;
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: p->internal = *(int *)v != 0; break;
    /* A new threshold releases nothing by itself: the next synchronize does (measured). */
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: p->threshold = *(cuuint64_t *)v; break;
    /* The high-water marks can only be reset, to what is reserved/used now (measured). */
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
        if (*(cuuint64_t *)v) return CUDA_ERROR_INVALID_VALUE;
        p->reserved_high = p->reserved;
        break;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
        if (*(cuuint64_t *)v) return CUDA_ERROR_INVALID_VALUE;
        p->used_high = p->used;
        break;
    default: return CUDA_ERROR_INVALID_VALUE; /* the current amounts are read-only */
    }
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    LOCKED("cuMemPoolSetAttribute", pool_set_attr(pool, attr, value));
}

static CUresult pool_trim(CUmemoryPool hp, size_t keep)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    struct CUmemPoolHandle_st *p = pool_own(hp); /* imported pools: INVALID_VALUE (measured) */
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    cu_trace("cuMemPoolTrimTo: pool %p keeps at most %zu bytes (%llu reserved)", (void *)p, keep,
             (unsigned long long)p->reserved);
    pool_shrink(p, keep, 1, 1);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
    LOCKED("cuMemPoolTrimTo", pool_trim(pool, minBytesToKeep));
}

/* One access grant for a pool (codes as NVIDIA answers them, measured). The owning device
 * always has read-write access; vmgpu has no other device and no host access to pools. */
static CUresult access_check(const CUmemAccessDesc *d)
{
    if (d->flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && d->flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
        d->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
        return CUDA_ERROR_INVALID_VALUE;
    if (d->location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_NOT_SUPPORTED;
    if (d->location.id != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (d->flags == CU_MEM_ACCESS_FLAGS_PROT_READ) return CUDA_ERROR_NOT_SUPPORTED;
    if (d->flags == CU_MEM_ACCESS_FLAGS_PROT_NONE) return CUDA_ERROR_INVALID_DEVICE;
    return CUDA_SUCCESS;
}

static CUresult pool_set_access(CUmemoryPool hp, const CUmemAccessDesc *map, size_t count)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    /* A destroyed pool: NVIDIA answers SUCCESS (reads the freed record, measured); refused here. */
    if (!pool_live(hp) || !map) return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < count; i++)
        if ((rc = access_check(&map[i]))) return rc;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)
{
    LOCKED("cuMemPoolSetAccess", pool_set_access(pool, map, count));
}

static CUresult pool_get_access(CUmemAccess_flags *flags, CUmemoryPool hp, CUmemLocation *loc)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    if (!flags || !pool_live(hp) || !loc) return CUDA_ERROR_INVALID_VALUE;
    switch (loc->type) {
    case CU_MEM_LOCATION_TYPE_DEVICE:
        if (loc->id != 0) return CUDA_ERROR_INVALID_VALUE; /* measured */
        *flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        return CUDA_SUCCESS;
    case CU_MEM_LOCATION_TYPE_HOST:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
        *flags = CU_MEM_ACCESS_FLAGS_PROT_NONE; /* measured for the host */
        return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}
CUresult CUDAAPI cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool memPool, CUmemLocation *location)
{
    LOCKED("cuMemPoolGetAccess", pool_get_access(flags, memPool, location));
}

/* ---------------------------------------------------------------- entry points: sharing */

/*
 * A shareable pool is exported as a POSIX fd of a memfd made at its first export (named
 * "vmgpu-pool-<n>"; each export hands out a dup() the caller owns); import recognises the pool
 * by the fd's inode and returns a new handle standing for it. As for cuMemExportToShareableHandle
 * the simulated device lives in this process, so sharing works within one process for now.
 */
static CUresult pool_export(void *out, CUmemoryPool hp, CUmemAllocationHandleType type, unsigned long long flags)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    struct CUmemPoolHandle_st *p = pool_own(hp);
    if (!out || !p || flags) return CUDA_ERROR_INVALID_VALUE;
    if (type == CU_MEM_HANDLE_TYPE_FABRIC && (p->props.handleTypes & CU_MEM_HANDLE_TYPE_FABRIC))
        return CUDA_ERROR_NOT_SUPPORTED; /* no fabric (multi-node) memory on vmgpu */
    /* A pool made without this handle type (the default pool among them): INVALID_VALUE (measured). */
    if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || !(p->props.handleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
        return CUDA_ERROR_INVALID_VALUE;
    if (p->memfd < 0) {
        char name[64];
        snprintf(name, sizeof name, "vmgpu-pool-%llu", (unsigned long long)p->serial);
        int fd = memfd_create(name, MFD_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st)) {
            if (fd >= 0) close(fd);
            return CUDA_ERROR_OPERATING_SYSTEM;
        }
        p->memfd = fd;
        p->fd_dev = st.st_dev;
        p->fd_ino = st.st_ino;
    }
    int fd = dup(p->memfd);
    if (fd < 0) return CUDA_ERROR_OPERATING_SYSTEM;
    *(int *)out = fd;
    cu_trace("pool %p exported as fd %d", (void *)p, fd);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolExportToShareableHandle(void *handle_out, CUmemoryPool pool,
                                                  CUmemAllocationHandleType handleType, unsigned long long flags)
{
    LOCKED("cuMemPoolExportToShareableHandle", pool_export(handle_out, pool, handleType, flags));
}

static CUresult pool_import_fd(CUmemoryPool *out, void *handle, CUmemAllocationHandleType type, unsigned long long flags)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    if (!out || type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR || flags) return CUDA_ERROR_INVALID_VALUE;
    /* An fd that is no exported pool: NVIDIA answers CUDA_ERROR_UNKNOWN (measured). */
    int fd = (int)(intptr_t)handle;
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) return CUDA_ERROR_INVALID_VALUE;
    struct CUmemPoolHandle_st *o = NULL;
    for (struct CUmemPoolHandle_st *p = g_pools; p && !o; p = p->next)
        if (p->live && !p->origin && p->memfd >= 0 && p->fd_dev == st.st_dev && p->fd_ino == st.st_ino) o = p;
    if (!o) return CUDA_ERROR_INVALID_VALUE;
    struct CUmemPoolHandle_st *ip = calloc(1, sizeof *ip);
    if (!ip) return CUDA_ERROR_OUT_OF_MEMORY;
    ip->magic = POOL_MAGIC;
    ip->live = 1;
    ip->origin = o;
    ip->serial = ++g_serial;
    ip->props = o->props;
    ip->memfd = -1;
    ip->next = g_pools;
    g_pools = ip;
    *out = ip;
    cu_trace("pool %p imported from fd %d: stands for pool %p", (void *)ip, fd, (void *)o);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out, void *handle,
                                                    CUmemAllocationHandleType handleType, unsigned long long flags)
{
    LOCKED("cuMemPoolImportFromShareableHandle", pool_import_fd(pool_out, handle, handleType, flags));
}

static CUresult ptr_export(CUmemPoolPtrExportData *out, CUdeviceptr ptr)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    if (!out) return CUDA_ERROR_INVALID_VALUE;
    struct CUmemPoolHandle_st *p;
    pool_seg *s = seg_at(ptr, &p);
    /* The start of a live allocation of a shareable pool only (measured). */
    if (!s || ptr != (uint64_t)p->va + s->off || !(p->props.handleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
        return CUDA_ERROR_INVALID_VALUE;
    pool_ptr_data d;
    memset(&d, 0, sizeof d);
    memcpy(d.magic, EXPORT_MAGIC, sizeof d.magic);
    d.pool_serial = p->serial;
    d.alloc_serial = s->serial;
    d.bytes = s->bytes;
    d.off = s->off;
    memset(out, 0, sizeof *out);
    memcpy(out->reserved, &d, sizeof d);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolExportPointer(CUmemPoolPtrExportData *shareData_out, CUdeviceptr ptr)
{
    LOCKED("cuMemPoolExportPointer", ptr_export(shareData_out, ptr));
}

/* Map the exporter's granules under [off, off+bytes) again at a VA of their own, read-write. */
static CUresult import_map(struct CUmemPoolHandle_st *o, uint32_t off, size_t bytes, pool_import *i)
{
    uint32_t g0 = off / GRAN, g1 = (uint32_t)((off + bytes - 1) / GRAN);
    uint32_t size = (g1 - g0 + 1) * GRAN, va;
    CUresult rc = cu_va_reserve(size, GRAN, 0, 1, &va);
    if (rc) return rc;
    uint32_t done = 0;
    for (uint32_t g = g0; g <= g1 && !rc; g++, done += GRAN)
        rc = cu_map_add(va + done, GRAN, o->gran[g]->pa, 0, o->gran[g], NULL);
    if (!rc) rc = cu_set_access(va, size, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    if (rc) {
        for (uint32_t v = va; v < va + size; v += GRAN) {
            cu_map *m = cu_map_find(v);
            if (m) cu_map_remove(m);
        }
        cu_va_free(cu_resv_find(va, size));
        return rc;
    }
    i->va = va;
    i->map_size = size;
    i->ptr = va + off % GRAN;
    i->bytes = bytes;
    return CUDA_SUCCESS;
}

static CUresult ptr_import(CUdeviceptr *out, CUmemoryPool hp, CUmemPoolPtrExportData *data)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    struct CUmemPoolHandle_st *ip = pool_live(hp);
    /* Into an imported pool only, not into the exporting pool itself (measured). */
    if (!out || !data || !ip || !ip->origin) return CUDA_ERROR_INVALID_VALUE;
    pool_ptr_data d;
    memcpy(&d, data->reserved, sizeof d);
    struct CUmemPoolHandle_st *o = ip->origin;
    if (memcmp(d.magic, EXPORT_MAGIC, sizeof d.magic) || d.pool_serial != o->serial || !o->size)
        return CUDA_ERROR_INVALID_VALUE;
    pool_seg *s = NULL;
    for (pool_seg *x = o->segs; x && !s; x = x->next)
        if (x->off == d.off && x->state == SEG_USED && x->serial == d.alloc_serial) s = x;
    if (!s) return CUDA_ERROR_INVALID_VALUE; /* freed since, or not an exported allocation */
    /* Imported again: the same pointer, still freed once (NVIDIA, measured). */
    for (pool_import *x = g_imports; x; x = x->next)
        if (x->alloc_serial == s->serial) {
            *out = x->ptr;
            return CUDA_SUCCESS;
        }
    pool_import *i = calloc(1, sizeof *i);
    if (!i) return CUDA_ERROR_OUT_OF_MEMORY;
    rc = import_map(o, s->off, s->bytes, i);
    if (rc) {
        free(i);
        return rc;
    }
    i->pool = ip;
    i->alloc_serial = s->serial;
    i->next = g_imports;
    g_imports = i;
    *out = i->ptr;
    cu_trace("pool %p: imported pointer 0x%08x maps the %zu bytes at 0x%08x of pool %p again", (void *)ip, i->ptr,
             i->bytes, o->va + s->off, (void *)o);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemPoolImportPointer(CUdeviceptr *ptr_out, CUmemoryPool pool, CUmemPoolPtrExportData *shareData)
{
    LOCKED("cuMemPoolImportPointer", ptr_import(ptr_out, pool, shareData));
}
