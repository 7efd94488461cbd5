/* Contexts: ASIDs, page directories, VA reservations, and the page-table builder. Every
 * PDE/PTE the device holds has a copy in the host shadow (ctx->pde, ctx->pt); updates are
 * computed against the shadow, turned into PTE_FILL runs, and sent through a ring. */
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"
#include "remote.h"

#define PAGE VMGPU_PAGE_SIZE

unsigned vmgpu_ctx_asid(const vmgpu_ctx *ctx) { return ctx ? ctx->asid : 0; }
uint32_t vmgpu_ctx_root(const vmgpu_ctx *ctx) { return ctx ? ctx->root : 0; }
vmgpu_dev *vmgpu_ctx_dev(const vmgpu_ctx *ctx) { return ctx ? ctx->dev : NULL; }

int vmgpu_ctx_status(const vmgpu_ctx *ctx, char *msg, size_t msglen)
{
    if (ctx && ctx->dev->remote) return remote_ctx_status(ctx, msg, msglen);
    if (!ctx) return VMGPU_ERR_INVALID;
    if (msg && msglen) snprintf(msg, msglen, "%s", ctx->faulted ? ctx->fault_msg : "");
    return ctx->faulted ? VMGPU_ERR_CTX_FAULTED : VMGPU_OK;
}

int vmgpu_ctx_clear_fault(vmgpu_ctx *ctx)
{
    if (ctx && ctx->dev->remote) return remote_ctx_clear_fault(ctx);
    if (!ctx) return VMGPU_ERR_INVALID;
    ctx->faulted = 0;
    ctx->fault_msg[0] = 0;
    return VMGPU_OK;
}

static uint64_t fnv32(uint64_t h, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t ctx_hash(const vmgpu_ctx *ctx, uint64_t h)
{
    h = fnv32(h, ctx->asid);
    h = fnv32(h, ctx->root);
    h = fnv32(h, (uint32_t)ctx->faulted);
    h = fnv32(h, ctx->args_va);
    h = fnv32(h, ctx->stack_va);
    for (unsigned i = 0; i < PDE_COUNT; i++) {
        h = fnv32(h, ctx->pde[i]);
        if (ctx->pt[i])
            for (unsigned j = 0; j < PTE_COUNT; j++) h = fnv32(h, ctx->pt[i][j]);
    }
    return rs_hash(&ctx->va, h);
}

/* ------------------------------------------------------------ command builder */

typedef struct cmdbuf {
    uint32_t *w;
    size_t n, cap;
    int oom;
} cmdbuf;

static void cb_put(cmdbuf *cb, const uint32_t *w, size_t n)
{
    if (cb->oom) return;
    if (cb->n + n > cb->cap) {
        size_t nc = cb->cap ? cb->cap * 2 : 64;
        while (nc < cb->n + n) nc *= 2;
        uint32_t *nw = realloc(cb->w, nc * 4);
        if (!nw) {
            cb->oom = 1;
            return;
        }
        cb->w = nw;
        cb->cap = nc;
    }
    memcpy(&cb->w[cb->n], w, n * 4);
    cb->n += n;
}

static void cb_pte_fill(cmdbuf *cb, uint32_t pa, uint32_t count, uint32_t value, uint32_t inc)
{
    uint32_t w[5] = {VMGPU_CMD_HEADER(VMGPU_OP_PTE_FILL, 4, 0), pa, count, value, inc};
    cb_put(cb, w, 5);
}

static void cb_tlb_inv(cmdbuf *cb, unsigned mode, unsigned asid, uint32_t va, uint32_t size)
{
    uint32_t w[4] = {VMGPU_CMD_HEADER(VMGPU_OP_TLB_INV, 3, mode), asid, va, size};
    cb_put(cb, w, 4);
}

static int emit_all(vmgpu_dev *dev, unsigned r, const cmdbuf *cb)
{
    size_t i = 0;
    while (i < cb->n) {
        size_t len = 1 + ((cb->w[i] >> 8) & 0xff);
        int rc = ring_emit(dev, r, &cb->w[i], len);
        if (rc) return rc;
        i += len;
    }
    return VMGPU_OK;
}

/* Run a batch of physical commands on ring r and wait. When another context's fault on the same
 * ring dropped the batch, it is sent once more: that fault is not ours. */
static int run_sync(vmgpu_ctx *ctx, unsigned r, const cmdbuf *cb)
{
    vmgpu_dev *dev = ctx->dev;
    for (int attempt = 0; attempt < 2; attempt++) {
        uint32_t f;
        int rc = emit_all(dev, r, cb);
        if (!rc) rc = ring_submit(dev, r, &f, ctx);
        if (!rc) rc = vmgpu_fence_wait(dev, r, f);
        if (rc != VMGPU_ERR_FAULT || ctx->faulted) return rc;
    }
    return VMGPU_ERR_FAULT;
}

static void trace_ptes(uint32_t va, uint32_t n, uint32_t pte, int inc)
{
    if (!vmgpu_trace_enabled()) return;
    uint32_t last = pte + (inc ? (n - 1) * PAGE : 0);
    if (!(pte & VMGPU_PTE_V)) {
        core_trace("  pte  va 0x%08x..0x%08x (%u pages) -> invalid", va, va + n * PAGE - 1, n);
        return;
    }
    core_trace("  pte  va 0x%08x..0x%08x (%u pages) -> %s frame 0x%05x..0x%05x %s%s", va,
               va + n * PAGE - 1, n, pte & VMGPU_PTE_HOST ? "host" : "dev ", pte >> 12, last >> 12,
               pte & VMGPU_PTE_R ? "R" : "-", pte & VMGPU_PTE_W ? "W" : "-");
}

/* PTE_FILL runs for pages [va, va+n*PAGE): value(k) = first + k*inc, split at page-table
 * boundaries (each table is its own run of words) and where the values stop being consecutive.
 * vals[k] gives the new PTE of page k. */
static void build_runs(vmgpu_ctx *ctx, cmdbuf *cb, uint32_t va, uint32_t n, const uint32_t *vals)
{
    uint32_t k = 0;
    while (k < n) {
        uint32_t v = va + k * PAGE;
        unsigned pdi = v >> 22, pti = (v >> 12) & 1023;
        uint32_t len = 1;
        int inc = 0;
        uint32_t step = (vals[k] & VMGPU_PTE_V) ? PAGE : 0;  /* invalid runs: same word */
        while (k + len < n && pti + len < PTE_COUNT && vals[k + len] == vals[k] + len * step) len++;
        inc = step != 0;
        uint32_t table = ctx->pde[pdi] & ~(PAGE - 1);
        cb_pte_fill(cb, table + pti * 4, len, vals[k], step);
        trace_ptes(v, len, vals[k], inc);
        k += len;
    }
}

/* ------------------------------------------------------------ contexts */

static int ctx_list_add(vmgpu_dev *dev, vmgpu_ctx *ctx)
{
    if (dev->nctx == dev->capctx) {
        size_t nc = dev->capctx ? dev->capctx * 2 : 8;
        vmgpu_ctx **n = realloc(dev->ctxs, nc * sizeof *n);
        if (!n) return -1;
        dev->ctxs = n;
        dev->capctx = nc;
    }
    dev->ctxs[dev->nctx++] = ctx;
    return 0;
}

int vmgpu_ctx_create(vmgpu_dev *dev, int home_ring, vmgpu_ctx **out)
{
    if (dev && dev->remote) return remote_ctx_create(dev, home_ring, out);
    if (!dev || !out || home_ring < -1 || home_ring >= (int)dev->info.n_rings)
        return core_fail(dev, VMGPU_ERR_INVALID, "ctx_create: bad argument (home_ring %d)", home_ring);
    unsigned asid = 0;
    for (unsigned a = 1; a < MAX_ASIDS; a++)
        if (!dev->ctx_by_asid[a]) {
            asid = a;
            break;
        }
    if (!asid) return core_fail(dev, VMGPU_ERR_NOMEM, "ctx_create: all 255 ASIDs in use");
    vmgpu_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return core_fail(dev, VMGPU_ERR_NOMEM, "out of host memory");
    ctx->dev = dev;
    ctx->asid = asid;
    ctx->home_ring = home_ring >= 0 ? (unsigned)home_ring : dev->next_home_ring;
    rs_init(&ctx->va, VMGPU_VA_BASE, 1ull << 32);
    if (rs_alloc(&dev->ptpool, PAGE, PAGE, 0, &ctx->root)) {
        free(ctx);
        return core_fail(dev, VMGPU_ERR_NOMEM, "ctx_create: page-table pool full");
    }
    if (ctx_list_add(dev, ctx)) {
        rs_remove(&dev->ptpool, (size_t)rs_find_start(&dev->ptpool, ctx->root));
        free(ctx);
        return core_fail(dev, VMGPU_ERR_NOMEM, "out of host memory");
    }
    dev->ctx_by_asid[asid] = ctx;
    core_trace("ctx_create: asid %u, page directory at pa 0x%08x, home ring %u", asid, ctx->root,
               ctx->home_ring);
    /* An empty page directory, and no TLB entry left from an earlier owner of the ASID. */
    cmdbuf cb = {0};
    cb_pte_fill(&cb, ctx->root, PDE_COUNT, 0, 0);
    cb_tlb_inv(&cb, VMGPU_INV_ASID, asid, 0, 0);
    int rc = cb.oom ? VMGPU_ERR_NOMEM : run_sync(ctx, ctx->home_ring, &cb);
    free(cb.w);
    if (rc) {
        dev->ctx_by_asid[asid] = NULL;
        dev->nctx--;
        rs_remove(&dev->ptpool, (size_t)rs_find_start(&dev->ptpool, ctx->root));
        free(ctx);
        return rc;
    }
    if (home_ring < 0) dev->next_home_ring = (dev->next_home_ring + 1) % dev->info.n_rings;
    *out = ctx;
    return VMGPU_OK;
}

/* Drop the reference a mapped page holds on its allocation or registration. */
static void unref_page(vmgpu_dev *dev, uint32_t pte)
{
    if (!(pte & VMGPU_PTE_V)) return;
    range_set *rs = (pte & VMGPU_PTE_HOST) ? &dev->hostf : &dev->phys;
    uint32_t key = (pte & VMGPU_PTE_HOST) ? pte >> 12 : pte & ~(PAGE - 1);
    long i = rs_find(rs, key);
    if (i >= 0 && rs->r[i].refs) rs->r[i].refs--;
}

void ctx_free_all(vmgpu_ctx *ctx)
{
    vmgpu_dev *dev = ctx->dev;
    for (unsigned i = 0; i < PDE_COUNT; i++) {
        if (!ctx->pt[i]) continue;
        for (unsigned j = 0; j < PTE_COUNT; j++) unref_page(dev, ctx->pt[i][j]);
        long k = rs_find_start(&dev->ptpool, ctx->pde[i] & ~(PAGE - 1));
        if (k >= 0) rs_remove(&dev->ptpool, (size_t)k);
        free(ctx->pt[i]);
        ctx->pt[i] = NULL;
        ctx->pde[i] = 0;
    }
    long k = rs_find_start(&dev->ptpool, ctx->root);
    if (k >= 0) rs_remove(&dev->ptpool, (size_t)k);
    if (ctx->args_pa) {
        long a = rs_find_start(&dev->phys, ctx->args_pa);
        if (a >= 0) rs_remove(&dev->phys, (size_t)a);
    }
    if (ctx->stack_pa) {
        long a = rs_find_start(&dev->phys, ctx->stack_pa);
        if (a >= 0) rs_remove(&dev->phys, (size_t)a);
    }
    rs_free_all(&ctx->va);
    dev->ctx_by_asid[ctx->asid] = NULL;
    for (unsigned r = 0; r < dev->info.n_rings; r++)
        if (dev->ring[r].bound == ctx) dev->ring[r].bound = NULL;
}

int vmgpu_ctx_destroy(vmgpu_ctx *ctx)
{
    if (ctx && ctx->dev->remote) return remote_ctx_destroy(ctx);
    if (!ctx) return VMGPU_OK;
    vmgpu_dev *dev = ctx->dev;
    if (ctx->nstreams)
        return core_fail(dev, VMGPU_ERR_BUSY, "ctx_destroy: asid %u still has %u streams",
                         ctx->asid, ctx->nstreams);
    /* Forget the ASID's TLB entries so its next owner starts clean (also done at create). */
    cmdbuf cb = {0};
    cb_tlb_inv(&cb, VMGPU_INV_ASID, ctx->asid, 0, 0);
    if (!cb.oom) {
        int was = ctx->faulted;
        ctx->faulted = 0;
        run_sync(ctx, ctx->home_ring, &cb);  /* best effort: the device may be gone */
        ctx->faulted = was;
    }
    free(cb.w);
    core_trace("ctx_destroy: asid %u", ctx->asid);
    ctx_free_all(ctx);
    for (size_t i = 0; i < dev->nctx; i++)
        if (dev->ctxs[i] == ctx) {
            memmove(&dev->ctxs[i], &dev->ctxs[i + 1], (dev->nctx - i - 1) * sizeof *dev->ctxs);
            dev->nctx--;
            break;
        }
    free(ctx);
    return VMGPU_OK;
}

/* ------------------------------------------------------------ VA reservations */

int vmgpu_va_reserve(vmgpu_ctx *ctx, uint32_t size, uint32_t align, uint32_t fixed, uint32_t *va)
{
    if (ctx && ctx->dev->remote) return remote_va_reserve(ctx, size, align, fixed, va);
    if (!ctx || !va) return core_fail(ctx ? ctx->dev : NULL, VMGPU_ERR_INVALID, "va_reserve: NULL");
    vmgpu_dev *dev = ctx->dev;
    if (align == 0) align = VMGPU_GRANULE;
    if (size == 0 || (size & (PAGE - 1)) || align < PAGE || (align & (align - 1)) ||
        (fixed & (PAGE - 1)) || (fixed & (align - 1)))
        return core_fail(dev, VMGPU_ERR_INVALID, "va_reserve: size 0x%x, align 0x%x, fixed 0x%x "
                         "must be page multiples (align a power of two, fixed aligned)",
                         size, align, fixed);
    if (fixed && (fixed < VMGPU_VA_BASE || (uint64_t)fixed + size > (1ull << 32)))
        return core_fail(dev, VMGPU_ERR_INVALID, "va_reserve: fixed 0x%x+0x%x outside the VA space",
                         fixed, size);
    uint32_t v;
    if (rs_alloc(&ctx->va, size, align, fixed, &v))
        return core_fail(dev, fixed ? VMGPU_ERR_OVERLAP : VMGPU_ERR_NOVA,
                         "va_reserve: no room for 0x%x bytes%s", size, fixed ? " at that address" : "");
    *va = v;
    core_trace("va_reserve(asid %u, 0x%x, align 0x%x) -> va 0x%08x", ctx->asid, size, align, v);
    return VMGPU_OK;
}

/* Is any page of [va, va+size) mapped? */
static int range_has_mapping(const vmgpu_ctx *ctx, uint32_t va, uint32_t size)
{
    for (uint64_t v = va; v < (uint64_t)va + size; v += PAGE) {
        const uint32_t *t = ctx->pt[v >> 22];
        if (!t) {
            v = ((v >> 22) + 1) << 22;
            v -= PAGE;
            continue;
        }
        if (t[(v >> 12) & 1023] & VMGPU_PTE_V) return 1;
    }
    return 0;
}

int vmgpu_va_free(vmgpu_ctx *ctx, uint32_t va)
{
    if (ctx && ctx->dev->remote) return remote_va_free(ctx, va);
    if (!ctx) return VMGPU_ERR_INVALID;
    long i = rs_find_start(&ctx->va, va);
    if (i < 0) return core_fail(ctx->dev, VMGPU_ERR_NOT_FOUND, "va_free: no reservation at 0x%08x", va);
    if (range_has_mapping(ctx, va, ctx->va.r[i].size))
        return core_fail(ctx->dev, VMGPU_ERR_BUSY, "va_free: 0x%08x still has mapped pages", va);
    rs_remove(&ctx->va, (size_t)i);
    core_trace("va_free(asid %u, va 0x%08x)", ctx->asid, va);
    return VMGPU_OK;
}

int vmgpu_va_stats(const vmgpu_ctx *ctx, uint32_t *reserved_bytes, unsigned *n_ranges)
{
    if (ctx && ctx->dev->remote) return remote_va_stats(ctx, reserved_bytes, n_ranges);
    if (!ctx) return VMGPU_ERR_INVALID;
    if (reserved_bytes) *reserved_bytes = (uint32_t)rs_used(&ctx->va);
    if (n_ranges) *n_ranges = (unsigned)ctx->va.n;
    return VMGPU_OK;
}

/* ------------------------------------------------------------ map / unmap / protect */

/* [va, va+size) lies inside reservations of ctx (possibly several adjacent ones). */
static int va_reserved(const vmgpu_ctx *ctx, uint32_t va, uint32_t size)
{
    uint64_t v = va, end = (uint64_t)va + size;
    while (v < end) {
        long i = rs_find(&ctx->va, (uint32_t)v);
        if (i < 0) return 0;
        v = (uint64_t)ctx->va.r[i].start + ctx->va.r[i].size;
    }
    return 1;
}

static uint32_t pte_of(const vmgpu_ctx *ctx, uint32_t va)
{
    const uint32_t *t = ctx->pt[va >> 22];
    return t ? t[(va >> 12) & 1023] : 0;
}

/* Check a range for map-like operations; 0 or an error. */
static int check_range(vmgpu_ctx *ctx, const char *who, uint32_t va, uint32_t size)
{
    vmgpu_dev *dev = ctx->dev;
    if (ctx->faulted)
        return core_fail(dev, VMGPU_ERR_CTX_FAULTED, "%s: asid %u faulted earlier: %s", who,
                         ctx->asid, ctx->fault_msg);
    if (size == 0 || (va & (PAGE - 1)) || (size & (PAGE - 1)) || (uint64_t)va + size > (1ull << 32))
        return core_fail(dev, VMGPU_ERR_INVALID, "%s: va 0x%08x size 0x%x must be nonzero page "
                         "multiples inside the 4 GiB VA space", who, va, size);
    if (!va_reserved(ctx, va, size))
        return core_fail(dev, VMGPU_ERR_INVALID, "%s: [0x%08x, +0x%x) is not inside VA "
                         "reservations of asid %u", who, va, size, ctx->asid);
    return VMGPU_OK;
}

/* ring < 0: synchronous on the home ring; else queued on that ring (stream order). */
static int do_map(vmgpu_ctx *ctx, int ring, uint32_t va, uint32_t pa, uint32_t size, unsigned flags)
{
    if (!ctx) return VMGPU_ERR_INVALID;
    vmgpu_dev *dev = ctx->dev;
    int rc = check_range(ctx, "map", va, size);
    if (rc) return rc;
    if (flags & ~(VMGPU_MAP_READ | VMGPU_MAP_WRITE | VMGPU_MAP_HOST | VMGPU_MAP_REPLACE |
                  VMGPU_MAP_NO_TLB_INV))
        return core_fail(dev, VMGPU_ERR_INVALID, "map: unknown flags 0x%x", flags);
    if (pa & (PAGE - 1)) return core_fail(dev, VMGPU_ERR_INVALID, "map: pa 0x%08x not page aligned", pa);
    int host = (flags & VMGPU_MAP_HOST) != 0;
    range_set *owner = host ? &dev->hostf : &dev->phys;
    uint32_t key = host ? pa >> 12 : pa;
    uint64_t key_end = host ? (uint64_t)(pa >> 12) + size / PAGE : (uint64_t)pa + size;
    long oi = rs_find(owner, key);
    if (oi < 0 || key_end > (uint64_t)owner->r[oi].start + owner->r[oi].size)
        return core_fail(dev, VMGPU_ERR_INVALID, "map: %s 0x%08x+0x%x is not inside one %s", host ?
                         "host address" : "pa", pa, size, host ? "host registration" : "allocation");
    uint32_t npages = size / PAGE;
    unsigned replaced = 0;
    for (uint32_t k = 0; k < npages; k++)
        if (pte_of(ctx, va + k * PAGE) & VMGPU_PTE_V) replaced++;
    if (replaced && !(flags & VMGPU_MAP_REPLACE))
        return core_fail(dev, VMGPU_ERR_OVERLAP, "map: %u pages of [0x%08x, +0x%x) are already "
                         "mapped", replaced, va, size);

    /* Page tables this range still needs, all taken before anything changes. */
    unsigned pd0 = va >> 22, pd1 = (uint32_t)(((uint64_t)va + size - 1) >> 22);
    uint32_t newpt_pa[PDE_COUNT];
    uint32_t *newpt[PDE_COUNT];
    unsigned nnew = 0;
    for (unsigned d = pd0; d <= pd1; d++) {
        if (ctx->pt[d]) continue;
        uint32_t *t = calloc(PTE_COUNT, 4);
        uint32_t tpa;
        if (!t || rs_alloc(&dev->ptpool, PAGE, PAGE, 0, &tpa)) {
            free(t);
            for (unsigned i = 0; i < nnew; i++) {
                rs_remove(&dev->ptpool, (size_t)rs_find_start(&dev->ptpool, newpt_pa[i]));
                free(newpt[i]);
            }
            return core_fail(dev, VMGPU_ERR_NOMEM, "map: page-table pool full");
        }
        newpt_pa[nnew] = tpa;
        newpt[nnew++] = t;
    }
    uint32_t *vals = malloc((size_t)npages * 4);
    cmdbuf cb = {0};
    if (!vals) cb.oom = 1;
    if (cb.oom) {
        for (unsigned i = 0; i < nnew; i++) {
            rs_remove(&dev->ptpool, (size_t)rs_find_start(&dev->ptpool, newpt_pa[i]));
            free(newpt[i]);
        }
        return core_fail(dev, VMGPU_ERR_NOMEM, "out of host memory");
    }

    uint32_t bits = VMGPU_PTE_V | ((flags & VMGPU_MAP_READ) ? VMGPU_PTE_R : 0) |
                    ((flags & VMGPU_MAP_WRITE) ? VMGPU_PTE_W : 0) | (host ? VMGPU_PTE_HOST : 0);
    core_trace("map(asid %u, va 0x%08x, size 0x%x) -> %s 0x%08x %s%s%s", ctx->asid, va, size,
               host ? "host" : "pa", pa, flags & VMGPU_MAP_READ ? "R" : "-",
               flags & VMGPU_MAP_WRITE ? "W" : "-", flags & VMGPU_MAP_NO_TLB_INV ? " (no TLB_INV)" : "");
    /* New tables: zeroed first, then filled, then made visible through the PDE. */
    unsigned ni = 0;
    for (unsigned d = pd0; d <= pd1; d++) {
        if (ctx->pt[d]) continue;
        ctx->pt[d] = newpt[ni];
        ctx->pde[d] = newpt_pa[ni] | VMGPU_PTE_V;
        cb_pte_fill(&cb, newpt_pa[ni], PTE_COUNT, 0, 0);
        core_trace("  pde  va 0x%08x..0x%08x -> page table at pa 0x%08x (new)", d << 22,
                   (d << 22) + 0x3fffff, newpt_pa[ni]);
        ni++;
    }
    for (uint32_t k = 0; k < npages; k++) {
        uint32_t v = va + k * PAGE;
        uint32_t *slot = &ctx->pt[v >> 22][(v >> 12) & 1023];
        unref_page(dev, *slot);
        vals[k] = (host ? ((pa >> 12) + k) << 12 : pa + k * PAGE) | bits;
        *slot = vals[k];
    }
    owner->r[oi].refs += npages;
    build_runs(ctx, &cb, va, npages, vals);
    ni = 0;
    for (unsigned d = pd0; d <= pd1; d++)
        if (ni < nnew && ctx->pde[d] == (newpt_pa[ni] | VMGPU_PTE_V)) {
            cb_pte_fill(&cb, ctx->root + d * 4, 1, ctx->pde[d], 0);
            ni++;
        }
    if (!(flags & VMGPU_MAP_NO_TLB_INV)) cb_tlb_inv(&cb, VMGPU_INV_RANGE, ctx->asid, va, size);
    free(vals);
    if (cb.oom) rc = core_fail(dev, VMGPU_ERR_NOMEM, "out of host memory");
    else if (ring < 0) rc = run_sync(ctx, ctx->home_ring, &cb);
    else rc = emit_all(dev, (unsigned)ring, &cb);
    free(cb.w);
    return rc;
}

int vmgpu_map(vmgpu_ctx *ctx, uint32_t va, uint32_t pa, uint32_t size, unsigned flags)
{
    if (ctx && ctx->dev->remote) return remote_map(ctx, va, pa, size, flags);
    return do_map(ctx, -1, va, pa, size, flags);
}

int vmgpu_stream_map(vmgpu_stream *s, uint32_t va, uint32_t pa, uint32_t size, unsigned flags)
{
    if (s && s->ctx->dev->remote) return remote_stream_map(s, va, pa, size, flags);
    if (!s) return VMGPU_ERR_INVALID;
    return do_map(s->ctx, (int)s->ring, va, pa, size, flags);
}

/* Shared by unmap and protect: every page must be mapped; new PTE = f(old). */
static int rewrite(vmgpu_ctx *ctx, const char *who, uint32_t va, uint32_t size, int unmap,
                   unsigned flags)
{
    if (!ctx) return VMGPU_ERR_INVALID;
    vmgpu_dev *dev = ctx->dev;
    int rc = check_range(ctx, who, va, size);
    if (rc) return rc;
    if (!unmap && (flags & ~(VMGPU_MAP_READ | VMGPU_MAP_WRITE)))
        return core_fail(dev, VMGPU_ERR_INVALID, "%s: flags 0x%x (only READ|WRITE)", who, flags);
    uint32_t npages = size / PAGE;
    for (uint32_t k = 0; k < npages; k++)
        if (!(pte_of(ctx, va + k * PAGE) & VMGPU_PTE_V))
            return core_fail(dev, VMGPU_ERR_NOT_MAPPED, "%s: va 0x%08x is not mapped", who,
                             va + k * PAGE);
    uint32_t *vals = malloc((size_t)npages * 4);
    if (!vals) return core_fail(dev, VMGPU_ERR_NOMEM, "out of host memory");
    uint32_t bits = ((flags & VMGPU_MAP_READ) ? VMGPU_PTE_R : 0) | ((flags & VMGPU_MAP_WRITE) ? VMGPU_PTE_W : 0);
    core_trace("%s(asid %u, va 0x%08x, size 0x%x)%s%s%s", who, ctx->asid, va, size,
               unmap ? "" : " -> ", unmap ? "" : (bits & VMGPU_PTE_R ? "R" : "-"),
               unmap ? "" : (bits & VMGPU_PTE_W ? "W" : "-"));
    for (uint32_t k = 0; k < npages; k++) {
        uint32_t v = va + k * PAGE;
        uint32_t *slot = &ctx->pt[v >> 22][(v >> 12) & 1023];
        if (unmap) {
            unref_page(dev, *slot);
            vals[k] = 0;
        } else {
            vals[k] = (*slot & ~(uint32_t)(VMGPU_PTE_R | VMGPU_PTE_W)) | bits;
        }
        *slot = vals[k];
    }
    cmdbuf cb = {0};
    build_runs(ctx, &cb, va, npages, vals);
    cb_tlb_inv(&cb, VMGPU_INV_RANGE, ctx->asid, va, size);
    free(vals);
    rc = cb.oom ? core_fail(dev, VMGPU_ERR_NOMEM, "out of host memory")
                : run_sync(ctx, ctx->home_ring, &cb);
    free(cb.w);
    return rc;
}

int vmgpu_unmap(vmgpu_ctx *ctx, uint32_t va, uint32_t size)
{
    if (ctx && ctx->dev->remote) return remote_unmap(ctx, va, size);
    return rewrite(ctx, "unmap", va, size, 1, 0);
}

int vmgpu_protect(vmgpu_ctx *ctx, uint32_t va, uint32_t size, unsigned flags)
{
    if (ctx && ctx->dev->remote) return remote_protect(ctx, va, size, flags);
    return rewrite(ctx, "protect", va, size, 0, flags);
}

int vmgpu_query(const vmgpu_ctx *ctx, uint32_t va, uint32_t *pte)
{
    if (ctx && ctx->dev->remote) return remote_query(ctx, va, pte);
    if (!ctx || !pte) return VMGPU_ERR_INVALID;
    *pte = pte_of(ctx, va);
    return VMGPU_OK;
}

/* ------------------------------------------------------------ host access by VA */

static int ctx_access(vmgpu_ctx *ctx, uint32_t va, void *buf, size_t bytes, int write)
{
    if (!ctx || (!buf && bytes)) return VMGPU_ERR_INVALID;
    vmgpu_dev *dev = ctx->dev;
    if ((uint64_t)va + bytes > (1ull << 32))
        return core_fail(dev, VMGPU_ERR_INVALID, "ctx_%s: range past 4 GiB", write ? "write" : "read");
    uint32_t need = write ? VMGPU_PTE_W : VMGPU_PTE_R;
    for (uint64_t v = va & ~(uint64_t)(PAGE - 1); v < (uint64_t)va + bytes; v += PAGE) {
        uint32_t p = pte_of(ctx, (uint32_t)v);
        if (!(p & VMGPU_PTE_V) || !(p & need))
            return core_fail(dev, (p & VMGPU_PTE_V) ? VMGPU_ERR_INVALID : VMGPU_ERR_NOT_MAPPED,
                             "ctx_%s: va 0x%08x is %s", write ? "write" : "read", (uint32_t)v,
                             (p & VMGPU_PTE_V) ? "not accessible that way" : "not mapped");
    }
    uint8_t *b = buf;
    size_t done = 0;
    while (done < bytes) {
        uint32_t v = va + (uint32_t)done;
        uint32_t p = pte_of(ctx, v);
        size_t chunk = PAGE - (v & (PAGE - 1));
        if (chunk > bytes - done) chunk = bytes - done;
        uint32_t addr = (p & ~(PAGE - 1)) | (v & (PAGE - 1));
        int rc;
        if (p & VMGPU_PTE_HOST) {
            rc = host_copy(dev, addr, b + done, chunk, write);
            if (rc == VMGPU_ERR_NOT_MAPPED)
                return core_fail(dev, rc, "host frame of va 0x%08x gone", v);
            if (rc) return core_fail(dev, rc, "host memory of va 0x%08x unreachable", v);
        } else {
            /* Extend over following pages that are physically contiguous: fewer bursts. */
            while (done + chunk < bytes) {
                uint32_t nv = v + (uint32_t)chunk;
                uint32_t np = pte_of(ctx, nv);
                if ((np & ~(PAGE - 1)) != (addr + chunk) || (np & VMGPU_PTE_HOST)) break;
                size_t more = bytes - done - chunk;
                chunk += more < PAGE ? more : PAGE;
            }
            rc = write ? vmgpu_phys_write(dev, addr, b + done, chunk)
                       : vmgpu_phys_read(dev, addr, b + done, chunk);
        }
        if (rc) return rc;
        done += chunk;
    }
    return VMGPU_OK;
}

int vmgpu_ctx_write(vmgpu_ctx *ctx, uint32_t va, const void *src, size_t bytes)
{
    if (ctx && ctx->dev->remote) return remote_ctx_write(ctx, va, src, bytes);
    return ctx_access(ctx, va, (void *)src, bytes, 1);
}

int vmgpu_ctx_read(vmgpu_ctx *ctx, uint32_t va, void *dst, size_t bytes)
{
    if (ctx && ctx->dev->remote) return remote_ctx_read(ctx, va, dst, bytes);
    return ctx_access(ctx, va, dst, bytes, 0);
}
