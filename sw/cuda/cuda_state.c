/*
 * libcuda's state: the process's device as CUDA sees it, the current-context lookups, and the
 * address-space book every context mirrors: VA reservations, mappings, allocation handles,
 * cuMemAlloc-style records, streams by handle.
 *
 * CUDA promises one unified VA space per process; the core gives every context its own page
 * tables. So the library keeps the reservations and mappings here, process-wide, and replays
 * each change into every live context (and a new context replays them all): a pointer means the
 * same memory in every context, while faults stay per context (per ASID). Every entry point
 * holds the library lock (the process device's) for its whole duration. This file calls only
 * the bottom of libcuda (cuda_errors.c, cuda_window.c): cuInit and the context calls, which
 * call into every other part, are cuda_ctx.c.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "cuda_priv.h"

int g_inited;           /* 1 after a successful cuInit */
CUresult g_init_rc = CUDA_ERROR_NOT_INITIALIZED;
vmgpu_dev *g_dev;
vmgpu_dev_info g_info;
char g_spec[128];
struct CUctx_st *g_ctxs;
cu_alloc *g_allocs;
cu_resv *g_resvs;
cu_map *g_maps;
cu_dalloc *g_dallocs;
static uint64_t g_next_handle = 0x1000;

__thread struct CUctx_st *t_stack[CTX_STACK_MAX];
__thread int t_depth;

/*
 * The process's one device (sw/core/procdev.c: vgfx, linked into this library, uses the same
 * one), as CUDA sees it. Opening it sets up no CUDA state. Called with the lock held; NULL (err
 * filled) when there is no device.
 */
vmgpu_dev *cu_device_open(char *err, size_t errlen)
{
    if (g_dev) return g_dev;
    const char *spec = getenv("VMGPU_DEVICE");
    snprintf(g_spec, sizeof g_spec, "%s", spec && spec[0] ? spec : "sim");
    g_dev = vmgpu_process_dev(err, errlen);
    if (g_dev) vmgpu_dev_get_info(g_dev, &g_info);
    return g_dev;
}

CUresult cu_need_init(void)
{
    if (g_inited) return CUDA_SUCCESS;
    return g_init_rc == CUDA_SUCCESS ? CUDA_ERROR_NOT_INITIALIZED : g_init_rc;
}

/* ------------------------------------------------------------------ contexts */

struct CUctx_st *cu_ctx_lookup(CUcontext c)
{
    for (struct CUctx_st *x = g_ctxs; x; x = x->next)
        if (x == c && x->live) return x;
    return NULL;
}


/* The calling thread's current context: *out may be NULL when none is current. */
struct CUctx_st *cu_current_raw(void) { return t_depth ? t_stack[t_depth - 1] : NULL; }

CUresult cu_current(struct CUctx_st **out)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUctx_st *c = cu_current_raw();
    if (!c || !cu_ctx_lookup(c)) return CUDA_ERROR_INVALID_CONTEXT;
    if (c->sticky) return c->sticky;
    *out = c;
    return CUDA_SUCCESS;
}

/* For calls that work without a context: fail only on a sticky error of the current one. */
CUresult cu_current_opt(struct CUctx_st **out)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUctx_st *c = cu_current_raw();
    if (c && !cu_ctx_lookup(c)) c = NULL;
    if (c && c->sticky) return c->sticky;
    if (out) *out = c;
    return CUDA_SUCCESS;
}

/* Faults the core saw become sticky CUDA errors of their context; the core's own flag is
 * cleared so that process-wide mapping changes can still be mirrored into that context. */
void cu_sweep_faults(void)
{
    for (struct CUctx_st *c = g_ctxs; c; c = c->next) {
        if (!c->live) continue;
        char msg[256];
        if (vmgpu_ctx_status(c->core, msg, sizeof msg) == VMGPU_ERR_CTX_FAULTED) {
            if (!c->sticky) {
                c->sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
                cu_trace("context %p (asid %u) is now in error CUDA_ERROR_ILLEGAL_ADDRESS (sticky): %s",
                         (void *)c, vmgpu_ctx_asid(c->core), msg);
            }
            vmgpu_ctx_clear_fault(c->core);
        }
    }
}

CUresult cu_core_err(struct CUctx_st *c, int rc)
{
    switch (rc) {
    case VMGPU_OK: return CUDA_SUCCESS;
    case VMGPU_ERR_FAULT:
    case VMGPU_ERR_CTX_FAULTED:
        cu_sweep_faults();
        if (c && c->sticky) return c->sticky;
        /* Our work was dropped by another context's fault on a shared ring. */
        return CUDA_ERROR_LAUNCH_FAILED;
    case VMGPU_ERR_INVALID: return CUDA_ERROR_INVALID_VALUE;
    case VMGPU_ERR_NOMEM:
    case VMGPU_ERR_NOVA: return CUDA_ERROR_OUT_OF_MEMORY;
    case VMGPU_ERR_OVERLAP: return CUDA_ERROR_INVALID_VALUE;
    case VMGPU_ERR_NOT_MAPPED: return CUDA_ERROR_INVALID_VALUE;
    case VMGPU_ERR_TIMEOUT: return CUDA_ERROR_LAUNCH_TIMEOUT;
    case VMGPU_ERR_NOT_READY: return CUDA_ERROR_NOT_READY;
    case VMGPU_ERR_BUSY: return CUDA_ERROR_INVALID_VALUE;
    case VMGPU_ERR_NOT_FOUND: return CUDA_ERROR_INVALID_VALUE;
    default: return CUDA_ERROR_OPERATING_SYSTEM;  /* transport failure */
    }
}

/* Wait for everything this context queued so far; faults become sticky. */
CUresult cu_ctx_sync(struct CUctx_st *c)
{
    int rc = vmgpu_stream_sync(c->null_s);
    return cu_core_err(c, rc);
}

/* Let pending work of every context surface its faults before process-wide page-table
 * changes are mirrored (a mirror must not fail because of an earlier asynchronous fault). */
void cu_drain_all(void)
{
    for (unsigned r = 0; r < g_info.n_rings; r++) {
        uint32_t f = vmgpu_fence_last(g_dev, r);
        if (f && vmgpu_fence_query(g_dev, r, f) != VMGPU_OK) vmgpu_fence_wait(g_dev, r, f);
    }
    cu_sweep_faults();
}

/* ---------------------------------------------- process-wide VA space mirroring */

static unsigned acc_flags(unsigned acc)
{
    return (acc & 1 ? VMGPU_MAP_READ : 0) | (acc & 2 ? VMGPU_MAP_WRITE : 0);
}

/* Apply one mapping's page-table state (map with no access, then protect runs) to ctx. */
static int mirror_map_one(vmgpu_ctx *core, const cu_map *m)
{
    int rc = vmgpu_map(core, m->va, m->pa, m->size, m->host ? VMGPU_MAP_HOST : 0);
    for (uint32_t g = 0; !rc && g < (m->size + VMGPU_GRANULE - 1) / VMGPU_GRANULE; g++) {
        uint32_t len = m->size - g * VMGPU_GRANULE;
        if (len > VMGPU_GRANULE) len = VMGPU_GRANULE;
        if (m->acc[g]) rc = vmgpu_protect(core, m->va + g * VMGPU_GRANULE, len, acc_flags(m->acc[g]));
    }
    return rc;
}

/* Replay the whole VA space into a new context. */
int cu_mirror_replay(vmgpu_ctx *core)
{
    uint32_t x;
    for (cu_resv *r = g_resvs; r; r = r->next) {
        int rc = vmgpu_va_reserve(core, r->size, 0, r->va, &x);
        if (rc) return rc;
    }
    for (cu_map *m = g_maps; m; m = m->next) {
        int rc = mirror_map_one(core, m);
        if (rc) return rc;
    }
    return VMGPU_OK;
}

/* A free process-wide range of size bytes, aligned, preferring hint; then reserved in every
 * context. Returns a CUresult. */
CUresult cu_va_reserve(uint64_t size, uint64_t align, uint64_t hint, int internal, uint32_t *out)
{
    if (align < VMGPU_GRANULE) align = VMGPU_GRANULE;
    if (size == 0 || size > CU_VA_HI - CU_VA_LO) return CUDA_ERROR_OUT_OF_MEMORY;
    uint64_t cand = hint && !(hint % align) && hint >= CU_VA_LO ? hint : CU_VA_LO;
    int tried_hint = cand == hint;
    for (;;) {
        if (cand + size > CU_VA_HI) {
            if (tried_hint) {
                cand = CU_VA_LO;
                tried_hint = 0;
                continue;
            }
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        uint64_t bump = 0;
        for (cu_resv *r = g_resvs; r; r = r->next)
            if (cand < (uint64_t)r->va + r->size && r->va < cand + size) {
                uint64_t e = (uint64_t)r->va + r->size;
                if (e > bump) bump = e;
            }
        if (!bump) bump = cu_window_next(cand, size);  /* host memory sits there */
        if (!bump) {
            /* Every context must have it free too (the core's own argument granule). */
            struct CUctx_st *bad = NULL;
            uint32_t x;
            for (struct CUctx_st *c = g_ctxs; c; c = c->next) {
                if (!c->live) continue;
                if (vmgpu_va_reserve(c->core, (uint32_t)size, 0, (uint32_t)cand, &x)) {
                    bad = c;
                    break;
                }
            }
            if (!bad) break;
            for (struct CUctx_st *c = g_ctxs; c && c != bad; c = c->next)
                if (c->live) vmgpu_va_free(c->core, (uint32_t)cand);
            bump = cand + VMGPU_GRANULE;
        }
        cand = (bump + align - 1) / align * align;
    }
    cu_resv *r = calloc(1, sizeof *r);
    if (!r) {
        for (struct CUctx_st *c = g_ctxs; c; c = c->next)
            if (c->live) vmgpu_va_free(c->core, (uint32_t)cand);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    r->va = (uint32_t)cand;
    r->size = (uint32_t)size;
    r->internal = internal;
    r->next = g_resvs;
    g_resvs = r;
    *out = r->va;
    return CUDA_SUCCESS;
}

cu_resv *cu_resv_find(uint64_t va, uint64_t size)
{
    for (cu_resv *r = g_resvs; r; r = r->next)
        if (va >= r->va && va + size <= (uint64_t)r->va + r->size && va < (uint64_t)r->va + r->size)
            return r;
    return NULL;
}

void cu_va_free(cu_resv *r)
{
    for (struct CUctx_st *c = g_ctxs; c; c = c->next)
        if (c->live) vmgpu_va_free(c->core, r->va);
    for (cu_resv **p = &g_resvs; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    free(r);
}

/* Map in every context (no access yet). On failure nothing stays mapped. */
CUresult cu_map_add(uint32_t va, uint32_t size, uint32_t pa, int host, cu_alloc *a, cu_map **out)
{
    cu_map *m = calloc(1, sizeof *m);
    uint8_t *acc = calloc((size + VMGPU_GRANULE - 1) / VMGPU_GRANULE, 1);
    if (!m || !acc) {
        free(m);
        free(acc);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    cu_drain_all();
    m->va = va;
    m->size = size;
    m->pa = pa;
    m->host = host;
    m->alloc = a;
    m->acc = acc;
    int rc = VMGPU_OK;
    struct CUctx_st *c;
    for (c = g_ctxs; c; c = c->next) {
        if (!c->live) continue;
        rc = vmgpu_map(c->core, va, pa, size, host ? VMGPU_MAP_HOST : 0);
        if (rc) break;
    }
    if (rc) {
        for (struct CUctx_st *d = g_ctxs; d && d != c; d = d->next)
            if (d->live) vmgpu_unmap(d->core, va, size);
        free(acc);
        free(m);
        return cu_core_err(NULL, rc);
    }
    m->next = g_maps;
    g_maps = m;
    if (a) a->nmaps++;
    if (out) *out = m;
    return CUDA_SUCCESS;
}

/* The mapping containing va (NULL: none). */
cu_map *cu_map_find(uint64_t va)
{
    for (cu_map *m = g_maps; m; m = m->next)
        if (va >= m->va && va < (uint64_t)m->va + m->size) return m;
    return NULL;
}

/* Every byte of [va, va+size) lies in mappings. */
int cu_range_mapped(uint64_t va, uint64_t size)
{
    uint64_t v = va, end = va + size;
    if (size == 0) return cu_map_find(va) != NULL;
    while (v < end) {
        cu_map *m = cu_map_find(v);
        if (!m) return 0;
        v = (uint64_t)m->va + m->size;
    }
    return 1;
}

void cu_alloc_maybe_free(cu_alloc *a)
{
    if (a->refs > 0 || a->nmaps > 0 || a->holders > 0) return;
    if (!a->foreign) vmgpu_phys_free(g_dev, a->pa);
    if (a->memfd >= 0) close(a->memfd);
    for (cu_alloc **p = &g_allocs; *p; p = &(*p)->next)
        if (*p == a) {
            *p = a->next;
            break;
        }
    cu_alloc *origin = a->origin;
    if (origin)
        cu_trace("allocation handle 0x%llx (imported from handle 0x%llx) gone", (unsigned long long)a->id,
                 (unsigned long long)origin->id);
    else
        cu_trace("allocation handle 0x%llx: device memory pa 0x%08x (+0x%x) freed",
                 (unsigned long long)a->id, a->pa, a->size);
    free(a);
    if (origin) {
        origin->holders--;
        cu_alloc_maybe_free(origin);
    }
}

/* Unmap one mapping everywhere; frees the allocation when it was the last use. */
void cu_map_remove(cu_map *m)
{
    cu_drain_all();
    for (struct CUctx_st *c = g_ctxs; c; c = c->next)
        if (c->live) vmgpu_unmap(c->core, m->va, m->size);
    for (cu_map **p = &g_maps; *p; p = &(*p)->next)
        if (*p == m) {
            *p = m->next;
            break;
        }
    cu_alloc *a = m->alloc;
    free(m->acc);
    free(m);
    if (a) {
        a->nmaps--;
        cu_alloc_maybe_free(a);
    }
}

/* Set the access of [va, va+size) (granule aligned, inside mappings) in every context. */
CUresult cu_set_access(uint64_t va, uint64_t size, unsigned acc)
{
    cu_drain_all();
    int rc = VMGPU_OK;
    for (struct CUctx_st *c = g_ctxs; c && !rc; c = c->next)
        if (c->live) rc = vmgpu_protect(c->core, (uint32_t)va, (uint32_t)size, acc_flags(acc));
    if (rc) return cu_core_err(NULL, rc);
    for (uint64_t v = va; v < va + size; v += VMGPU_GRANULE) {
        cu_map *m = cu_map_find(v);
        m->acc[(v - m->va) / VMGPU_GRANULE] = (uint8_t)acc;
    }
    return CUDA_SUCCESS;
}

cu_alloc *cu_alloc_new(uint32_t size, const CUmemAllocationProp *prop, int internal, CUresult *err)
{
    cu_alloc *a = calloc(1, sizeof *a);
    if (!a) {
        *err = CUDA_ERROR_OUT_OF_MEMORY;
        return NULL;
    }
    int rc = vmgpu_phys_alloc(g_dev, size, VMGPU_GRANULE, &a->pa);
    if (rc) {
        free(a);
        *err = CUDA_ERROR_OUT_OF_MEMORY;
        return NULL;
    }
    a->id = g_next_handle++;
    a->size = size;
    a->refs = 1;
    a->internal = internal;
    a->memfd = -1;
    if (prop) a->prop = *prop;
    a->next = g_allocs;
    g_allocs = a;
    *err = CUDA_SUCCESS;
    return a;
}

/* A handle for memory another process allocated and exported (imported through the device
 * server, which now counts this process among its holders): freeing it drops that hold. */
cu_alloc *cu_alloc_adopt(uint32_t pa, uint32_t size, const CUmemAllocationProp *prop)
{
    cu_alloc *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->id = g_next_handle++;
    a->pa = pa;
    a->size = size;
    a->refs = 1;
    a->memfd = -1;
    if (prop) a->prop = *prop;
    a->next = g_allocs;
    g_allocs = a;
    return a;
}

uint64_t g_next_handle_value(void) { return g_next_handle; }

cu_alloc *cu_alloc_lookup(CUmemGenericAllocationHandle h)
{
    for (cu_alloc *a = g_allocs; a; a = a->next)
        if (a->id == h && !a->internal && a->refs > 0) return a;
    return NULL;
}


/* ------------------------------------------------- allocations by address (cu_dalloc) */

/* cuMemAlloc/cuMemAllocHost/cuMemHostRegister records, the bounce buffer among them: what a
 * pointer is, for the copies, the pointer queries, the pools and the arrays. */
void cu_dalloc_link(cu_dalloc *d)
{
    d->next = g_dallocs;
    g_dallocs = d;
}

cu_dalloc *cu_dalloc_at(uint64_t va, int kind_mask)
{
    for (cu_dalloc *d = g_dallocs; d; d = d->next)
        if ((kind_mask >> d->kind) & 1 && d->va == va) return d;
    return NULL;
}

/* The allocation (any kind but the bounce buffer) whose device range holds va. */
cu_dalloc *cu_dalloc_containing(uint64_t va)
{
    for (cu_dalloc *d = g_dallocs; d; d = d->next)
        if (d->kind != DA_BOUNCE && va >= d->va && va < d->va + (d->bytes ? d->bytes : 1)) return d;
    return NULL;
}

/* Host kinds: the registration holding host bytes [p, p+n). */
cu_dalloc *cu_dalloc_host(const void *p, size_t n)
{
    const uint8_t *q = p;
    for (cu_dalloc *d = g_dallocs; d; d = d->next) {
        if (d->kind == DA_DEVICE || d->kind == DA_BOUNCE) continue;
        const uint8_t *h = d->host;
        if (q >= h && q + n <= h + d->bytes && q < h + (d->bytes ? d->bytes : 1)) return d;
    }
    return NULL;
}

void cu_dalloc_free(cu_dalloc *d)
{
    cu_map *m = cu_map_find(d->map_va);
    if (m) cu_map_remove(m);
    cu_resv *r = cu_resv_find(d->map_va, d->map_size);
    if (r) cu_va_free(r);
    if (d->kind == DA_DEVICE) {
        d->alloc->refs--;
        cu_alloc_maybe_free(d->alloc);
    } else {
        vmgpu_host_unregister(g_dev, d->host_page);
        if (d->kind != DA_HOST_REGISTER) free(d->host_page);
    }
    for (cu_dalloc **p = &g_dallocs; *p; p = &(*p)->next)
        if (*p == d) {
            *p = d->next;
            break;
        }
    free(d);
}

cu_dalloc *cu_dalloc_device_at(uint64_t va) { return cu_dalloc_at(va, 1 << DA_DEVICE); }

/* ------------------------------------------------------------------- streams by handle */

struct CUstream_st *g_streams;

struct CUstream_st *cu_stream_lookup(CUstream h)
{
    for (struct CUstream_st *s = g_streams; s; s = s->next)
        if (s == h && s->live) return s;
    return NULL;
}

CUresult cu_stream_resolve(CUstream h, struct CUctx_st **ctx, vmgpu_stream **s)
{
    if (h == NULL || h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD) {
        struct CUctx_st *c;
        CUresult rc = cu_current(&c);
        if (rc) return rc;
        *ctx = c;
        *s = c->null_s;
        return CUDA_SUCCESS;
    }
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUstream_st *st = cu_stream_lookup(h);
    if (!st) return CUDA_ERROR_INVALID_HANDLE;
    if (st->ctx->sticky) return st->ctx->sticky;
    *ctx = st->ctx;
    *s = st->core;
    return CUDA_SUCCESS;
}
