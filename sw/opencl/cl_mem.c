/*
 * Buffers and sub-buffers, and the commands on them: read/write/copy/fill (and the Rect
 * forms), map/unmap.
 *
 * Storage
 * - Device buffers: pages of device memory mapped read/write at a VA of the context. A map
 *   copies device -> host staging with the DMA engine (skipped for WRITE_INVALIDATE_REGION) and
 *   an unmap of a write map copies back; the staging memory is registered host memory mapped
 *   into the context, so both copies are DMA through the MMU into the host aperture.
 * - CL_MEM_USE_HOST_PTR and CL_MEM_ALLOC_HOST_PTR buffers: the host memory itself is
 *   registered and mapped through the host aperture; the device reads and writes it in place,
 *   so map/unmap move no data at all and return host_ptr + offset.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cl_internal.h"

#define PAGE VMGPU_PAGE_SIZE
#define ALIGN_BYTES (VCL_BASE_ADDR_ALIGN_BITS / 8)

static vcl_hostreg *g_regs;

/* The object that owns the storage: a sub-buffer's buffer; a 1D image buffer's buffer, or that
 * buffer's own parent when it is a sub-buffer (origin is always counted from the root). */
cl_mem vcl_root_of(cl_mem m)
{
    while (m->parent) m = m->parent;
    return m;
}
uint32_t vcl_mem_va(cl_mem m) { return vcl_root_of(m)->va + (uint32_t)m->origin; }

/* CL_DEVICE_MAX_MEM_ALLOC_SIZE: half the device memory (the spec's minimum is a quarter, or
 * 1 MiB): one object that large still leaves room for a second to copy it into, and a 64^3
 * CL_RGBA/CL_FLOAT image (4 MiB, which the OpenCL-CTS map test creates) fits. */
cl_ulong vcl_max_alloc(void)
{
    cl_ulong g = vcl_info.user_bytes;
    return g / 2 > (1u << 20) ? g / 2 : (g < (1u << 20) ? g : 1u << 20);
}

/* --------------------------------------------------------- host registrations */

static void hostreg_put(vcl_hostreg *r)
{
    if (--r->refs) return;
    vmgpu_host_unregister(vcl_dev, r->page);
    for (vcl_hostreg **pp = &g_regs; *pp; pp = &(*pp)->next)
        if (*pp == r) {
            *pp = r->next;
            break;
        }
    free(r);
}

/* Maps host memory [h, h+size) at a fresh VA of ctx through the host aperture. Pages already
 * registered (another buffer's memory shares them) are reused, the rest registered anew. */
int vcl_map_host(cl_context ctx, uint8_t *h, size_t size, cl_mem m)
{
    uint8_t *p0 = (uint8_t *)((uintptr_t)h & ~(uintptr_t)(PAGE - 1));
    uint8_t *p1 = (uint8_t *)(((uintptr_t)h + size + PAGE - 1) & ~(uintptr_t)(PAGE - 1));
    uint32_t bytes = (uint32_t)(p1 - p0), va;
    int rc = vmgpu_va_reserve(ctx->core, bytes, PAGE, 0, &va);
    if (rc) return rc;
    size_t maxregs = bytes / PAGE;
    m->regs = calloc(maxregs, sizeof *m->regs);
    if (!m->regs) {
        vmgpu_va_free(ctx->core, va);
        return VMGPU_ERR_NOMEM;
    }
    m->nregs = 0;
    uint8_t *p = p0;
    while (p < p1 && !rc) {
        vcl_hostreg *r = NULL;
        for (vcl_hostreg *x = g_regs; x; x = x->next)
            if (p >= x->page && p < x->page + x->bytes) r = x;
        if (!r) {
            uint8_t *end = p1;
            for (vcl_hostreg *x = g_regs; x; x = x->next)
                if (x->page > p && x->page < end) end = x->page;
            r = calloc(1, sizeof *r);
            if (!r) { rc = VMGPU_ERR_NOMEM; break; }
            r->page = p;
            r->bytes = (size_t)(end - p);
            rc = vmgpu_host_register(vcl_dev, p, r->bytes, &r->haddr);
            if (rc) { free(r); break; }
            r->next = g_regs;
            g_regs = r;
        }
        r->refs++;
        m->regs[m->nregs++] = r;
        uint8_t *end = r->page + r->bytes < p1 ? r->page + r->bytes : p1;
        rc = vmgpu_map(ctx->core, va + (uint32_t)(p - p0), r->haddr + (uint32_t)(p - r->page),
                       (uint32_t)(end - p), VMGPU_MAP_READ | VMGPU_MAP_WRITE | VMGPU_MAP_HOST);
        if (!rc) p = end;
    }
    if (rc) {
        if (p > p0) vmgpu_unmap(ctx->core, va, (uint32_t)(p - p0));
        for (unsigned i = 0; i < m->nregs; i++) hostreg_put(m->regs[i]);
        free(m->regs);
        m->regs = NULL;
        m->nregs = 0;
        vmgpu_va_free(ctx->core, va);
        return rc;
    }
    m->va_base = va;
    m->va_bytes = bytes;
    m->va = va + (uint32_t)(h - p0);
    m->host = h;
    m->zero_copy = 1;
    vcl_trace("buffer %p: zero copy, host %p (%zu bytes) at va 0x%08x", (void *)m, (void *)h, size, m->va);
    return VMGPU_OK;
}

int vcl_map_device(cl_context ctx, size_t size, cl_mem m)
{
    uint32_t bytes = (uint32_t)((size + PAGE - 1) & ~(size_t)(PAGE - 1)), va, pa;
    int rc = vmgpu_phys_alloc(vcl_dev, bytes, PAGE, &pa);
    if (rc) return rc;
    rc = vmgpu_va_reserve(ctx->core, bytes, PAGE, 0, &va);
    if (rc) {
        vmgpu_phys_free(vcl_dev, pa);
        return rc;
    }
    rc = vmgpu_map(ctx->core, va, pa, bytes, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    if (rc) {
        vmgpu_va_free(ctx->core, va);
        vmgpu_phys_free(vcl_dev, pa);
        return rc;
    }
    m->va = m->va_base = va;
    m->va_bytes = bytes;
    m->pa = pa;
    vcl_trace("buffer %p: device memory pa 0x%08x at va 0x%08x (%zu bytes)", (void *)m, pa, va, size);
    return VMGPU_OK;
}

/* ------------------------------------------------------------ kernel view */

/* What a kernel may do with an object: CL_MEM_READ_ONLY drops the PTE's W bit, WRITE_ONLY its
 * R bit (the MMU checks R and W separately), so a kernel breaking the promise faults. */
unsigned vcl_kernel_access(cl_mem_flags f)
{
    if (f & CL_MEM_READ_ONLY) return VMGPU_MAP_READ;
    if (f & CL_MEM_WRITE_ONLY) return VMGPU_MAP_WRITE;
    return VMGPU_MAP_READ | VMGPU_MAP_WRITE;
}

/* Maps the pages under bytes [off, off+size) of root's storage a second time, at a fresh VA
 * with vcl_kernel_access(m->flags), and makes that m's kernel view. */
int vcl_kview_make(cl_mem root, cl_mem m, size_t off, size_t size)
{
    uint32_t rel = (root->va - root->va_base) + (uint32_t)off;
    uint32_t start = rel & ~(PAGE - 1), end = (uint32_t)((rel + size + PAGE - 1) & ~(size_t)(PAGE - 1));
    uint32_t bytes = end - start, kva;
    unsigned acc = vcl_kernel_access(m->flags);
    vmgpu_ctx *core = root->ctx->core;
    int rc = vmgpu_va_reserve(core, bytes, PAGE, 0, &kva);
    if (rc) return rc;
    uint32_t done = 0;  /* bytes of [start, end) mapped, from the front (device) */
    if (!root->zero_copy) {
        rc = vmgpu_map(core, kva, root->pa + start, bytes, acc);
        if (!rc) done = bytes;
    } else {
        /* The registrations hold the host pages in order; map each one's part. */
        uint8_t *p0 = root->host - (root->va - root->va_base);
        for (unsigned i = 0; i < root->nregs && !rc; i++) {
            vcl_hostreg *r = root->regs[i];
            uint8_t *a = p0 + start > r->page ? p0 + start : r->page;
            uint8_t *b = p0 + end < r->page + r->bytes ? p0 + end : r->page + r->bytes;
            if (a >= b) continue;
            rc = vmgpu_map(core, kva + (uint32_t)(a - (p0 + start)), r->haddr + (uint32_t)(a - r->page),
                           (uint32_t)(b - a), acc | VMGPU_MAP_HOST);
            if (!rc) done = (uint32_t)(b - (p0 + start));
        }
    }
    if (rc) {
        if (done) vmgpu_unmap(core, kva, done);
        vmgpu_va_free(core, kva);
        return rc;
    }
    m->kva_base = kva;
    m->kva_bytes = bytes;
    m->kva = kva + (rel - start);
    vcl_trace("mem %p: kernel view at va 0x%08x (%s)", (void *)m, m->kva,
              acc == VMGPU_MAP_READ ? "read only, PTE without W" : "write only, PTE without R");
    return VMGPU_OK;
}

static void kview_free(cl_mem m)
{
    if (!m->kva_bytes) return;
    vmgpu_unmap(m->ctx->core, m->kva_base, m->kva_bytes);
    vmgpu_va_free(m->ctx->core, m->kva_base);
    m->kva_bytes = 0;
}

uint32_t vcl_mem_kva(cl_mem m)
{
    if (m->kva_bytes) return m->kva;
    cl_mem r = vcl_root_of(m);
    if (r->kva_bytes) return r->kva + (uint32_t)m->origin;
    return vcl_mem_va(m);
}

/* Host staging of a device buffer's maps: registered, mapped into the context once. Its pages
 * come from mmap, not the heap: a program may free its CL_MEM_USE_HOST_PTR memory right after
 * clReleaseMemObject while the buffer still waits for its commands (and so stays registered),
 * and a heap allocation could then land on those very addresses. */
int vcl_staging_ready(cl_mem r)
{
    if (r->staging) return VMGPU_OK;
    void *p = mmap(NULL, r->va_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return VMGPU_ERR_NOMEM;
    uint32_t haddr, va;
    int rc = vmgpu_host_register(vcl_dev, p, r->va_bytes, &haddr);
    if (rc) { munmap(p, r->va_bytes); return rc; }
    rc = vmgpu_va_reserve(r->ctx->core, r->va_bytes, PAGE, 0, &va);
    if (rc) {
        vmgpu_host_unregister(vcl_dev, p);
        munmap(p, r->va_bytes);
        return rc;
    }
    rc = vmgpu_map(r->ctx->core, va, haddr, r->va_bytes,
                   VMGPU_MAP_READ | VMGPU_MAP_WRITE | VMGPU_MAP_HOST);
    if (rc) {
        vmgpu_va_free(r->ctx->core, va);
        vmgpu_host_unregister(vcl_dev, p);
        munmap(p, r->va_bytes);
        return rc;
    }
    r->staging = p;
    r->staging_va = va;
    return VMGPU_OK;
}

void vcl_storage_free(cl_mem m)
{
    vmgpu_ctx *core = m->ctx->core;
    kview_free(m);
    if (m->staging) {
        vmgpu_unmap(core, m->staging_va, m->va_bytes);
        vmgpu_va_free(core, m->staging_va);
        vmgpu_host_unregister(vcl_dev, m->staging);
        munmap(m->staging, m->va_bytes);
        m->staging = NULL;
    }
    if (m->va_bytes) {
        vmgpu_unmap(core, m->va_base, m->va_bytes);
        vmgpu_va_free(core, m->va_base);
    }
    if (m->pa) vmgpu_phys_free(vcl_dev, m->pa);
    for (unsigned i = 0; i < m->nregs; i++) hostreg_put(m->regs[i]);
    free(m->regs);
    m->regs = NULL;
    free(m->host_alloc);
    m->host_alloc = NULL;
}

/* ------------------------------------------------------------ create/release */

#define ACCESS_FLAGS (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)
#define HOSTPTR_FLAGS (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)
#define HOSTACC_FLAGS (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)

static int popcount(cl_mem_flags f) { return __builtin_popcountll(f); }

cl_mem vcl_mem_new(cl_context c, cl_mem_flags flags, size_t size)
{
    cl_mem m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->dispatch = &vcl_dispatch;
    m->magic = VCL_MEM;
    m->live = 1;
    m->refs = 1;
    m->ctx = c;
    m->type = CL_MEM_OBJECT_BUFFER;
    m->flags = flags;
    m->size = size;
    return m;
}

/* Flags of an object made from buffer b (a sub-buffer, a 1D image buffer): access flags may
 * narrow b's, never widen them; host-pointer flags cannot be given and come from b; what is not
 * given is b's. CL_INVALID_VALUE or CL_SUCCESS with *out set. */
cl_int vcl_derived_flags(cl_mem b, cl_mem_flags flags, cl_mem_flags *out)
{
    const cl_mem_flags known = ACCESS_FLAGS | HOSTPTR_FLAGS | HOSTACC_FLAGS;
    if ((flags & ~known) || (flags & HOSTPTR_FLAGS) || popcount(flags & ACCESS_FLAGS) > 1 ||
        popcount(flags & HOSTACC_FLAGS) > 1)
        return CL_INVALID_VALUE;
    if (((b->flags & CL_MEM_WRITE_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY))) ||
        ((b->flags & CL_MEM_READ_ONLY) && (flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY))) ||
        ((b->flags & CL_MEM_HOST_WRITE_ONLY) && (flags & CL_MEM_HOST_READ_ONLY)) ||
        ((b->flags & CL_MEM_HOST_READ_ONLY) && (flags & CL_MEM_HOST_WRITE_ONLY)) ||
        ((b->flags & CL_MEM_HOST_NO_ACCESS) && (flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY))))
        return CL_INVALID_VALUE;
    cl_mem_flags f = flags;
    if (!(f & ACCESS_FLAGS)) f |= b->flags & ACCESS_FLAGS;
    if (!(f & HOSTACC_FLAGS)) f |= b->flags & HOSTACC_FLAGS;
    f |= b->flags & HOSTPTR_FLAGS;
    *out = f;
    return CL_SUCCESS;
}

int vcl_check_mem_flags(cl_mem_flags flags)
{
    const cl_mem_flags known = ACCESS_FLAGS | HOSTPTR_FLAGS | HOSTACC_FLAGS;
    if ((flags & ~known) || popcount(flags & ACCESS_FLAGS) > 1 || popcount(flags & HOSTACC_FLAGS) > 1 ||
        ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR))))
        return CL_INVALID_VALUE;
    return CL_SUCCESS;
}

cl_mem CL_API_CALL vcl_CreateBuffer(cl_context c, cl_mem_flags flags, size_t size, void *host_ptr,
                                    cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = NULL;
    vcl_enter();
    if (!vcl_valid(c, VCL_CONTEXT)) { err = CL_INVALID_CONTEXT; goto out; }
    if ((err = vcl_check_mem_flags(flags))) goto out;
    if (size == 0 || size > vcl_max_alloc()) { err = CL_INVALID_BUFFER_SIZE; goto out; }
    int wants_ptr = (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) != 0;
    if (wants_ptr != (host_ptr != NULL)) { err = CL_INVALID_HOST_PTR; goto out; }
    m = vcl_mem_new(c, flags, size);
    if (!m) { err = CL_OUT_OF_HOST_MEMORY; goto out; }
    int rc;
    if (flags & CL_MEM_USE_HOST_PTR) {
        m->host_ptr = host_ptr;
        rc = vcl_map_host(c, host_ptr, size, m);
    } else if (flags & CL_MEM_ALLOC_HOST_PTR) {
        size_t bytes = (size + PAGE - 1) & ~(size_t)(PAGE - 1);
        if (posix_memalign(&m->host_alloc, PAGE, bytes)) {
            m->host_alloc = NULL;
            rc = VMGPU_ERR_NOMEM;
        } else {
            memset(m->host_alloc, 0, bytes);
            if (flags & CL_MEM_COPY_HOST_PTR) memcpy(m->host_alloc, host_ptr, size);
            rc = vcl_map_host(c, m->host_alloc, size, m);
        }
    } else {
        rc = vcl_map_device(c, size, m);
        if (!rc && (flags & CL_MEM_COPY_HOST_PTR)) rc = vmgpu_phys_write(vcl_dev, m->pa, host_ptr, size);
    }
    if (!rc && vcl_kernel_access(flags) != (VMGPU_MAP_READ | VMGPU_MAP_WRITE)) rc = vcl_kview_make(m, m, 0, size);
    if (rc) {
        vcl_storage_free(m);
        free(m);
        m = NULL;
        err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        goto out;
    }
    c->attached++;
    vcl_register(m, VCL_MEM);
out:
    vcl_leave();
    if (errcode_ret) *errcode_ret = err;
    return m;
}

cl_mem CL_API_CALL vcl_CreateSubBuffer(cl_mem b, cl_mem_flags flags, cl_buffer_create_type type,
                                       const void *info, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = NULL;
    vcl_enter();
    if (!vcl_valid(b, VCL_MEM) || b->parent || b->type != CL_MEM_OBJECT_BUFFER) {
        err = CL_INVALID_MEM_OBJECT;
        goto out;
    }
    cl_mem_flags f;
    if ((err = vcl_derived_flags(b, flags, &f))) goto out;
    if (type != CL_BUFFER_CREATE_TYPE_REGION || !info) { err = CL_INVALID_VALUE; goto out; }
    const cl_buffer_region *r = info;
    if (r->size == 0) { err = CL_INVALID_BUFFER_SIZE; goto out; }
    if (r->origin > b->size || r->size > b->size - r->origin) { err = CL_INVALID_VALUE; goto out; }
    if (r->origin % ALIGN_BYTES) { err = CL_MISALIGNED_SUB_BUFFER_OFFSET; goto out; }
    m = vcl_mem_new(b->ctx, f, r->size);
    if (!m) { err = CL_OUT_OF_HOST_MEMORY; goto out; }
    m->parent = b;
    m->origin = r->origin;
    if (b->flags & CL_MEM_USE_HOST_PTR) m->host_ptr = (uint8_t *)b->host_ptr + r->origin;
    /* Narrower kernel access than the parent's: a kernel view of its own. */
    if (vcl_kernel_access(f) != vcl_kernel_access(b->flags) && vcl_kview_make(b, m, r->origin, r->size)) {
        free(m);
        m = NULL;
        err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        goto out;
    }
    b->attached++;
    b->ctx->attached++;
    m->sub_next = b->subs;
    b->subs = m;
    vcl_register(m, VCL_MEM);
out:
    vcl_leave();
    if (errcode_ret) *errcode_ret = err;
    return m;
}

static void mem_maybe_destroy(cl_mem m)
{
    if (m->refs || m->attached || !m->live) return;
    m->live = 0;
    if (!m->parent) vcl_storage_free(m);
    else kview_free(m);
    for (vcl_mapping *x = m->maps, *n; x; x = n) {
        n = x->next;
        free(x);
    }
    m->maps = NULL;
    /* Newest first: the spec's reverse order of registration. */
    for (vcl_dtor *d = m->dtors, *n; d; d = n) {
        n = d->next;
        vcl_defer_dtor(d, m);
        free(d);
    }
    m->dtors = NULL;
    if (m->parent) vcl_mem_release_internal(m->parent);
    vcl_context_release(m->ctx);
}

void vcl_mem_retain_internal(cl_mem m) { m->attached++; }

void vcl_mem_release_internal(cl_mem m)
{
    if (m->attached) m->attached--;
    mem_maybe_destroy(m);
}

cl_int CL_API_CALL vcl_RetainMemObject(cl_mem m)
{
    vcl_enter();
    cl_int rc = vcl_valid(m, VCL_MEM) ? CL_SUCCESS : CL_INVALID_MEM_OBJECT;
    if (!rc) m->refs++;
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_ReleaseMemObject(cl_mem m)
{
    vcl_enter();
    cl_int rc = vcl_valid(m, VCL_MEM) && m->refs ? CL_SUCCESS : CL_INVALID_MEM_OBJECT;
    if (!rc) {
        m->refs--;
        mem_maybe_destroy(m);
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_SetMemObjectDestructorCallback(cl_mem m, void(CL_CALLBACK *fn)(cl_mem, void *),
                                                      void *user)
{
    vcl_enter();
    cl_int rc = CL_SUCCESS;
    if (!vcl_valid(m, VCL_MEM)) rc = CL_INVALID_MEM_OBJECT;
    else if (!fn) rc = CL_INVALID_VALUE;
    else {
        vcl_dtor *d = calloc(1, sizeof *d);
        if (!d) rc = CL_OUT_OF_HOST_MEMORY;
        else {
            d->fn = fn;
            d->user = user;
            d->next = m->dtors;
            m->dtors = d;
        }
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_GetMemObjectInfo(cl_mem m, cl_mem_info p, size_t size, void *value, size_t *ret)
{
    vcl_enter();
    cl_int rc;
    cl_uint u;
    size_t z;
    void *ptr;
    if (!vcl_valid(m, VCL_MEM)) rc = CL_INVALID_MEM_OBJECT;
    else switch (p) {
    case CL_MEM_TYPE: rc = vcl_info_out(&m->type, sizeof m->type, size, value, ret); break;
    case CL_MEM_FLAGS: rc = vcl_info_out(&m->flags, sizeof m->flags, size, value, ret); break;
    case CL_MEM_SIZE: rc = vcl_info_out(&m->size, sizeof m->size, size, value, ret); break;
    case CL_MEM_HOST_PTR:
        ptr = m->host_ptr;
        rc = vcl_info_out(&ptr, sizeof ptr, size, value, ret);
        break;
    case CL_MEM_MAP_COUNT: u = m->map_count; rc = vcl_info_out(&u, sizeof u, size, value, ret); break;
    case CL_MEM_REFERENCE_COUNT: u = m->refs; rc = vcl_info_out(&u, sizeof u, size, value, ret); break;
    case CL_MEM_CONTEXT: rc = vcl_info_out(&m->ctx, sizeof m->ctx, size, value, ret); break;
    case CL_MEM_ASSOCIATED_MEMOBJECT: rc = vcl_info_out(&m->parent, sizeof m->parent, size, value, ret); break;
    case CL_MEM_OFFSET: z = m->type == CL_MEM_OBJECT_BUFFER ? m->origin : 0; rc = vcl_info_out(&z, sizeof z, size, value, ret); break;
    default: rc = CL_INVALID_VALUE;
    }
    vcl_leave();
    return rc;
}

/* ------------------------------------------------------------------ commands */

void vcl_cmd_free(vcl_cmd *c)
{
    if (!c) return;
    for (cl_uint i = 0; i < c->nwait; i++) vcl_event_release(c->wait[i]);
    free(c->wait);
    for (int i = 0; i < 2; i++)
        if (c->mem[i]) vcl_mem_release_internal(c->mem[i]);
    for (int i = 0; i < 3; i++)
        if (c->kmem[i]) vcl_mem_release_internal(c->kmem[i]);
    for (unsigned i = 0; i < c->nkmems; i++)
        if (c->kmems[i]) vcl_mem_release_internal(c->kmems[i]);
    free(c->kmems);
    free(c->kblock);
    if (c->kernel) vcl_kernel_release_internal(c->kernel);
    free(c->mapping);
    if (c->ev) vcl_event_release(c->ev);
    free(c);
}

/* Device work of one command: with profiling, TIMESTAMPs around it give START and END. */

int vcl_dev_begin(cl_command_queue q, prof *p)
{
    p->start = NULL;
    if (!(q->props & CL_QUEUE_PROFILING_ENABLE)) return VMGPU_OK;
    int rc = vmgpu_event_create(vcl_dev, &p->start);
    if (!rc) rc = vmgpu_event_record(p->start, q->s);
    return rc;
}

int vcl_dev_end(cl_command_queue q, prof *p, cl_event e, int rc)
{
    if (!p->start) {
        if (!rc) rc = vmgpu_stream_sync(q->s);
        return rc;
    }
    vmgpu_event *end = NULL;
    if (!rc) rc = vmgpu_event_create(vcl_dev, &end);
    if (!rc) rc = vmgpu_event_record(end, q->s);
    if (!rc) rc = vmgpu_event_wait(end);
    uint64_t a, b;
    if (!rc && !vmgpu_event_cycles(p->start, &a) && !vmgpu_event_cycles(end, &b)) {
        e->t[2] = vcl_cycles_ns(a);
        e->t[3] = vcl_cycles_ns(b);
    }
    if (rc) vmgpu_stream_sync(q->s);  /* drain what was queued */
    vmgpu_event_destroy(end);
    vmgpu_event_destroy(p->start);
    return rc;
}

int vcl_dma_copy(cl_command_queue q, uint32_t dst, uint32_t src, size_t n)
{
    int rc = VMGPU_OK;
    for (size_t off = 0; off < n && !rc;) {
        uint32_t chunk = n - off > 0x40000000u ? 0x40000000u : (uint32_t)(n - off);
        rc = vmgpu_cmd_copy(q->s, dst + (uint32_t)off, src + (uint32_t)off, chunk);
        off += chunk;
    }
    return rc;
}

int vcl_host_read(cl_command_queue q, cl_mem m, size_t off, void *dst, size_t n)
{
    cl_mem r = vcl_root_of(m);
    if (r->zero_copy) {
        memcpy(dst, r->host + m->origin + off, n);
        return VMGPU_OK;
    }
    return vmgpu_ctx_read(q->ctx->core, vcl_mem_va(m) + (uint32_t)off, dst, n);
}

int vcl_host_write(cl_command_queue q, cl_mem m, size_t off, const void *src, size_t n)
{
    cl_mem r = vcl_root_of(m);
    if (r->zero_copy) {
        memcpy(r->host + m->origin + off, src, n);
        return VMGPU_OK;
    }
    return vmgpu_ctx_write(q->ctx->core, vcl_mem_va(m) + (uint32_t)off, src, n);
}

cl_int vcl_run_mem_cmd(cl_command_queue q, vcl_cmd *c)
{
    cl_event e = c->ev;
    cl_mem m = c->mem[0];
    int rc = VMGPU_OK;
    prof p;
    e->t[2] = vcl_q_now(q);
    switch (c->op) {
    case OP_READ: rc = vcl_host_read(q, m, c->off[0], c->ptr, c->size); break;
    case OP_WRITE: rc = vcl_host_write(q, m, c->off[0], c->cptr, c->size); break;
    case OP_READ_RECT:
    case OP_WRITE_RECT:
        for (size_t z = 0; z < c->region[2] && !rc; z++)
            for (size_t y = 0; y < c->region[1] && !rc; y++) {
                size_t bo = (c->o[0][2] + z) * c->pitch[1] + (c->o[0][1] + y) * c->pitch[0] + c->o[0][0];
                size_t ho = (c->o[1][2] + z) * c->pitch[3] + (c->o[1][1] + y) * c->pitch[2] + c->o[1][0];
                rc = c->op == OP_READ_RECT ? vcl_host_read(q, m, bo, (uint8_t *)c->ptr + ho, c->region[0])
                                           : vcl_host_write(q, m, bo, (const uint8_t *)c->cptr + ho, c->region[0]);
            }
        break;
    case OP_COPY:
        rc = vcl_dev_begin(q, &p);
        if (!rc) rc = vcl_dev_end(q, &p, e, vcl_dma_copy(q, vcl_mem_va(c->mem[1]) + (uint32_t)c->off[1],
                                                 vcl_mem_va(m) + (uint32_t)c->off[0], c->size));
        break;
    case OP_COPY_RECT: {
        /* mem[0] src, mem[1] dst; pitches: src row, src slice, dst row, dst slice. */
        rc = vcl_dev_begin(q, &p);
        int r2 = rc;
        for (size_t z = 0; z < c->region[2] && !r2; z++) {
            uint32_t s = vcl_mem_va(m) + (uint32_t)((c->o[0][2] + z) * c->pitch[1] +
                                                    c->o[0][1] * c->pitch[0] + c->o[0][0]);
            uint32_t d = vcl_mem_va(c->mem[1]) + (uint32_t)((c->o[1][2] + z) * c->pitch[3] +
                                                            c->o[1][1] * c->pitch[2] + c->o[1][0]);
            r2 = vmgpu_cmd_copy_2d(q->s, d, (uint32_t)c->pitch[2], s, (uint32_t)c->pitch[0],
                                   (uint32_t)c->region[0], (uint32_t)c->region[1]);
        }
        if (!rc) rc = vcl_dev_end(q, &p, e, r2);
        break;
    }
    case OP_FILL: {
        uint32_t va = vcl_mem_va(m) + (uint32_t)c->off[0];
        size_t ps = c->pattern_size;
        rc = vcl_dev_begin(q, &p);
        int r2 = rc;
        if (!r2 && ps <= 4) {
            uint32_t pat = 0;
            memcpy(&pat, c->pattern, ps);
            r2 = vmgpu_cmd_fill(q->s, va, (uint32_t)c->size, pat, (unsigned)ps);
        } else if (!r2) {
            /* Wider patterns: one copy written by the host, then doubled by DMA copies. */
            r2 = vcl_host_write(q, m, c->off[0], c->pattern, ps);
            for (size_t done = ps; done < c->size && !r2;) {
                size_t n = done < c->size - done ? done : c->size - done;
                r2 = vmgpu_cmd_copy(q->s, va + (uint32_t)done, va, (uint32_t)n);
                if (!r2) r2 = vmgpu_stream_sync(q->s);  /* the next doubling reads this one */
                done += n;
            }
        }
        if (!rc) rc = vcl_dev_end(q, &p, e, r2);
        break;
    }
    case OP_MAP: {
        cl_mem r = vcl_root_of(m);
        /* Zero copy: the pointer is the memory itself, nothing moves. */
        if (r->zero_copy || (c->map_flags & CL_MAP_WRITE_INVALIDATE_REGION)) break;
        rc = vcl_dev_begin(q, &p);
        if (rc) break;
        if (m->type != CL_MEM_OBJECT_BUFFER)  /* the mapped box only, same layout */
            rc = vcl_dev_end(q, &p, e, vcl_image_copy_box(q, m, r->staging_va + (uint32_t)m->origin, vcl_mem_va(m),
                                                          c->off[0], c->region[0], c->region[1], c->region[2]));
        else
            rc = vcl_dev_end(q, &p, e, vcl_dma_copy(q, r->staging_va + (uint32_t)(m->origin + c->off[0]),
                                                    vcl_mem_va(m) + (uint32_t)c->off[0], c->size));
        break;
    }
    case OP_UNMAP: {
        cl_mem r = vcl_root_of(m);
        vcl_mapping *x = c->mapping;
        if (m->map_count) m->map_count--;
        if (r->zero_copy || !(x->flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION))) break;
        rc = vcl_dev_begin(q, &p);
        if (rc) break;
        if (x->rows)
            rc = vcl_dev_end(q, &p, e, vcl_image_copy_box(q, m, vcl_mem_va(m), r->staging_va + (uint32_t)m->origin,
                                                          x->off, x->row_bytes, x->rows, x->slices));
        else
            rc = vcl_dev_end(q, &p, e, vcl_dma_copy(q, vcl_mem_va(m) + (uint32_t)x->off,
                                                    r->staging_va + (uint32_t)(m->origin + x->off), x->size));
        break;
    }
    case OP_IMG_READ:
    case OP_IMG_WRITE:
    case OP_IMG_FILL: rc = vcl_run_image_cmd(q, c, &p); break;
    default: break;
    }
    /* Device work set START/END from its TIMESTAMPs; host-only work ends now. */
    if (!e->t[3]) e->t[3] = vcl_q_now(q);
    if (e->t[3] < e->t[2]) e->t[3] = e->t[2];
    return vcl_core_err(q, rc);
}

/* Common checks of the enqueue calls: queue, memory objects, same context. */
static cl_int check_q_mem(cl_command_queue q, cl_mem a, cl_mem b)
{
    if (!vcl_valid(q, VCL_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
    if (!vcl_valid(a, VCL_MEM) || a->type != CL_MEM_OBJECT_BUFFER) return CL_INVALID_MEM_OBJECT;
    if (b && (!vcl_valid(b, VCL_MEM) || b->type != CL_MEM_OBJECT_BUFFER)) return CL_INVALID_MEM_OBJECT;
    if (a->ctx != q->ctx || (b && b->ctx != q->ctx)) return CL_INVALID_CONTEXT;
    return CL_SUCCESS;
}

static int misaligned(cl_mem m) { return m->parent && (m->origin % ALIGN_BYTES); }

int vcl_out_of(size_t off, size_t n, size_t size) { return off > size || n > size - off; }

vcl_cmd *vcl_cmd_new(int op, cl_mem a, cl_mem b)
{
    vcl_cmd *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->op = op;
    if (a) { c->mem[0] = a; vcl_mem_retain_internal(a); }
    if (b) { c->mem[1] = b; vcl_mem_retain_internal(b); }
    return c;
}

static cl_int rw_buffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t off, size_t n,
                        void *ptr, const void *cptr, cl_uint nw, const cl_event *w, cl_event *e,
                        int write)
{
    vcl_enter();
    cl_int rc = check_q_mem(q, m, NULL);
    if (!rc && ((write ? cptr : ptr) == NULL || n == 0 || vcl_out_of(off, n, m->size))) rc = CL_INVALID_VALUE;
    if (!rc) rc = vcl_check_wait_list(q->ctx, nw, w);
    if (!rc && misaligned(m)) rc = CL_MISALIGNED_SUB_BUFFER_OFFSET;
    if (!rc && (m->flags & (write ? (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)
                                  : (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS))))
        rc = CL_INVALID_OPERATION;
    if (!rc) {
        vcl_cmd *c = vcl_cmd_new(write ? OP_WRITE : OP_READ, m, NULL);
        if (!c) rc = CL_OUT_OF_HOST_MEMORY;
        else {
            c->off[0] = off;
            c->size = n;
            c->ptr = ptr;
            c->cptr = cptr;
            rc = vcl_submit(q, c, write ? CL_COMMAND_WRITE_BUFFER : CL_COMMAND_READ_BUFFER, nw, w, e, blocking);
        }
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_EnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t off,
                                         size_t n, void *ptr, cl_uint nw, const cl_event *w, cl_event *e)
{
    return rw_buffer(q, m, blocking, off, n, ptr, NULL, nw, w, e, 0);
}

cl_int CL_API_CALL vcl_EnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t off,
                                          size_t n, const void *ptr, cl_uint nw, const cl_event *w,
                                          cl_event *e)
{
    return rw_buffer(q, m, blocking, off, n, NULL, ptr, nw, w, e, 1);
}

cl_int CL_API_CALL vcl_EnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst, size_t so,
                                         size_t dso, size_t n, cl_uint nw, const cl_event *w,
                                         cl_event *e)
{
    vcl_enter();
    cl_int rc = check_q_mem(q, src, dst);
    if (!rc && (n == 0 || vcl_out_of(so, n, src->size) || vcl_out_of(dso, n, dst->size))) rc = CL_INVALID_VALUE;
    if (!rc) rc = vcl_check_wait_list(q->ctx, nw, w);
    if (!rc && (misaligned(src) || misaligned(dst))) rc = CL_MISALIGNED_SUB_BUFFER_OFFSET;
    if (!rc && vcl_root_of(src) == vcl_root_of(dst)) {
        size_t a = src->origin + so, b = dst->origin + dso;
        if (a < b + n && b < a + n) rc = CL_MEM_COPY_OVERLAP;
    }
    if (!rc) {
        vcl_cmd *c = vcl_cmd_new(OP_COPY, src, dst);
        if (!c) rc = CL_OUT_OF_HOST_MEMORY;
        else {
            c->off[0] = so;
            c->off[1] = dso;
            c->size = n;
            rc = vcl_submit(q, c, CL_COMMAND_COPY_BUFFER, nw, w, e, 0);
        }
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_EnqueueFillBuffer(cl_command_queue q, cl_mem m, const void *pat, size_t ps,
                                         size_t off, size_t n, cl_uint nw, const cl_event *w,
                                         cl_event *e)
{
    vcl_enter();
    cl_int rc = check_q_mem(q, m, NULL);
    if (!rc && (!pat || ps == 0 || ps > 128 || (ps & (ps - 1)) || off % ps || n % ps || n == 0 ||
                vcl_out_of(off, n, m->size)))
        rc = CL_INVALID_VALUE;
    if (!rc) rc = vcl_check_wait_list(q->ctx, nw, w);
    if (!rc && misaligned(m)) rc = CL_MISALIGNED_SUB_BUFFER_OFFSET;
    if (!rc) {
        vcl_cmd *c = vcl_cmd_new(OP_FILL, m, NULL);
        if (!c) rc = CL_OUT_OF_HOST_MEMORY;
        else {
            c->off[0] = off;
            c->size = n;
            memcpy(c->pattern, pat, ps);
            c->pattern_size = ps;
            rc = vcl_submit(q, c, CL_COMMAND_FILL_BUFFER, nw, w, e, 0);
        }
    }
    vcl_leave();
    return rc;
}

/* Rect geometry: 0 pitches take their defaults; the spec's pitch rules give CL_INVALID_VALUE.
 * Returns the byte just past the last one touched (for the bounds check). */
static cl_int rect_geometry(const size_t *origin, const size_t *region, size_t *row, size_t *slice,
                            size_t *end)
{
    if (!origin || !region || region[0] == 0 || region[1] == 0 || region[2] == 0)
        return CL_INVALID_VALUE;
    if (*row == 0) *row = region[0];
    else if (*row < region[0]) return CL_INVALID_VALUE;
    if (*slice == 0) *slice = region[1] * *row;
    else if (*slice < region[1] * *row || *slice % *row) return CL_INVALID_VALUE;
    *end = (origin[2] + region[2] - 1) * *slice + (origin[1] + region[1] - 1) * *row + origin[0] + region[0];
    return CL_SUCCESS;
}

/* The two origins, the region and the four pitches of a rectangular command. */
static void rect_cmd_geometry(vcl_cmd *c, const size_t *o0, const size_t *o1, const size_t *region,
                              size_t row0, size_t slice0, size_t row1, size_t slice1)
{
    for (int i = 0; i < 3; i++) {
        c->o[0][i] = o0[i];
        c->o[1][i] = o1[i];
        c->region[i] = region[i];
    }
    c->pitch[0] = row0;
    c->pitch[1] = slice0;
    c->pitch[2] = row1;
    c->pitch[3] = slice1;
}

static cl_int rw_rect(cl_command_queue q, cl_mem m, cl_bool blocking, const size_t *bo,
                      const size_t *ho, const size_t *region, size_t brp, size_t bsp, size_t hrp,
                      size_t hsp, void *ptr, const void *cptr, cl_uint nw, const cl_event *w,
                      cl_event *e, int write)
{
    vcl_enter();
    size_t bend, hend;
    cl_int rc = check_q_mem(q, m, NULL);
    if (!rc && !(write ? cptr : ptr)) rc = CL_INVALID_VALUE;
    if (!rc) rc = rect_geometry(bo, region, &brp, &bsp, &bend);
    if (!rc) rc = rect_geometry(ho, region, &hrp, &hsp, &hend);
    if (!rc && bend > m->size) rc = CL_INVALID_VALUE;
    if (!rc) rc = vcl_check_wait_list(q->ctx, nw, w);
    if (!rc && misaligned(m)) rc = CL_MISALIGNED_SUB_BUFFER_OFFSET;
    if (!rc && (m->flags & (write ? (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)
                                  : (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS))))
        rc = CL_INVALID_OPERATION;
    if (!rc) {
        vcl_cmd *c = vcl_cmd_new(write ? OP_WRITE_RECT : OP_READ_RECT, m, NULL);
        if (!c) rc = CL_OUT_OF_HOST_MEMORY;
        else {
            rect_cmd_geometry(c, bo, ho, region, brp, bsp, hrp, hsp);
            c->ptr = ptr;
            c->cptr = cptr;
            rc = vcl_submit(q, c, write ? CL_COMMAND_WRITE_BUFFER_RECT : CL_COMMAND_READ_BUFFER_RECT,
                            nw, w, e, blocking);
        }
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_EnqueueReadBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking,
                                             const size_t *bo, const size_t *ho, const size_t *region,
                                             size_t brp, size_t bsp, size_t hrp, size_t hsp, void *ptr,
                                             cl_uint nw, const cl_event *w, cl_event *e)
{
    return rw_rect(q, m, blocking, bo, ho, region, brp, bsp, hrp, hsp, ptr, NULL, nw, w, e, 0);
}

cl_int CL_API_CALL vcl_EnqueueWriteBufferRect(cl_command_queue q, cl_mem m, cl_bool blocking,
                                              const size_t *bo, const size_t *ho, const size_t *region,
                                              size_t brp, size_t bsp, size_t hrp, size_t hsp,
                                              const void *ptr, cl_uint nw, const cl_event *w,
                                              cl_event *e)
{
    return rw_rect(q, m, blocking, bo, ho, region, brp, bsp, hrp, hsp, NULL, ptr, nw, w, e, 1);
}

static long long floor_div(long long a, long long b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

/* Byte k of a box's row order (k < region[1] * region[2]): where row k starts. */
static size_t row_start(size_t base, size_t row, size_t slice, size_t h, size_t k)
{
    return base + (k / h) * slice + (k % h) * row;
}

/* Do two boxes of region[0] bytes x region[1] rows x region[2] slices share a byte? Box A
 * starts at byte a, its rows ar bytes apart and its slices as apart (box B: b, br, bs);
 * rect_geometry made every row pitch >= region[0] and every slice pitch >= region[1] * row
 * pitch, so the rows of a box ascend and never overlap one another. Boxes whose spans overlap
 * may still share no byte (side by side in the same rows, or interleaved rows): the spec's
 * CL_MEM_COPY_OVERLAP is for regions that overlap, not for spans. */
static int rects_overlap(size_t a, size_t ar, size_t as, size_t b, size_t br, size_t bs, const size_t *region)
{
    size_t w = region[0], h = region[1], d = region[2];
    if (row_start(a, ar, as, h, h * d - 1) + w <= b || row_start(b, br, bs, h, h * d - 1) + w <= a) return 0;
    if (ar == br && as == bs) {
        /* One layout: B is A moved by delta bytes, so they share a byte exactly when delta is
         * dz * as + dy * ar + dx with |dz| < d, |dy| < h, |dx| < w. The rest after the slices,
         * |dy * ar + dx|, is below h * ar <= as, so dz is one of two values; likewise dy. */
        long long delta = (long long)b - (long long)a, S = (long long)as, R = (long long)ar;
        long long q = floor_div(delta, S);
        for (long long dz = q; dz <= q + 1; dz++) {
            if (dz <= -(long long)d || dz >= (long long)d) continue;
            long long rest = delta - dz * S, y0 = floor_div(rest, R);
            for (long long dy = y0; dy <= y0 + 1; dy++) {
                long long dx = rest - dy * R;
                if (dy > -(long long)h && dy < (long long)h && dx > -(long long)w && dx < (long long)w) return 1;
            }
        }
        return 0;
    }
    /* Two layouts (two sub-buffers of one buffer): each row of A against the last row of B
     * that starts before A's row ends, the only one that can reach into it. */
    size_t n = h * d;
    for (size_t k = 0; k < n; k++) {
        size_t lo = row_start(a, ar, as, h, k), hi = lo + w;
        if (row_start(b, br, bs, h, 0) >= hi) continue;
        size_t l = 0, r = n - 1;  /* the last row of B starting below hi */
        while (l < r) {
            size_t mid = l + (r - l + 1) / 2;
            if (row_start(b, br, bs, h, mid) < hi) l = mid;
            else r = mid - 1;
        }
        if (row_start(b, br, bs, h, l) + w > lo) return 1;
    }
    return 0;
}

cl_int CL_API_CALL vcl_EnqueueCopyBufferRect(cl_command_queue q, cl_mem src, cl_mem dst,
                                             const size_t *so, const size_t *dso, const size_t *region,
                                             size_t srp, size_t ssp, size_t drp, size_t dsp,
                                             cl_uint nw, const cl_event *w, cl_event *e)
{
    vcl_enter();
    size_t send, dend;
    cl_int rc = check_q_mem(q, src, dst);
    if (!rc) rc = rect_geometry(so, region, &srp, &ssp, &send);
    if (!rc) rc = rect_geometry(dso, region, &drp, &dsp, &dend);
    if (!rc && (send > src->size || dend > dst->size)) rc = CL_INVALID_VALUE;
    /* Same buffer: the spec asks for equal pitches, and reports overlap. */
    if (!rc && src == dst && (srp != drp || ssp != dsp)) rc = CL_INVALID_VALUE;
    if (!rc) rc = vcl_check_wait_list(q->ctx, nw, w);
    if (!rc && (misaligned(src) || misaligned(dst))) rc = CL_MISALIGNED_SUB_BUFFER_OFFSET;
    if (!rc && vcl_root_of(src) == vcl_root_of(dst)) {
        size_t sb = src->origin + so[2] * ssp + so[1] * srp + so[0];
        size_t db = dst->origin + dso[2] * dsp + dso[1] * drp + dso[0];
        if (rects_overlap(sb, srp, ssp, db, drp, dsp, region)) rc = CL_MEM_COPY_OVERLAP;
    }
    if (!rc) {
        vcl_cmd *c = vcl_cmd_new(OP_COPY_RECT, src, dst);
        if (!c) rc = CL_OUT_OF_HOST_MEMORY;
        else {
            rect_cmd_geometry(c, so, dso, region, srp, ssp, drp, dsp);
            rc = vcl_submit(q, c, CL_COMMAND_COPY_BUFFER_RECT, nw, w, e, 0);
        }
    }
    vcl_leave();
    return rc;
}

/* ------------------------------------------------------------------ map/unmap */

/* The bytes a mapping covers, as a box in its root's bytes: [x0, x1) within rows [y0, y1) of
 * slices [z0, z1). A buffer map is one row; an image map is its pixel box (rows step by rstep,
 * slices by sstep, so the byte offset of its origin splits into the three coordinates). */
typedef struct map_box { size_t x0, x1, y0, y1, z0, z1; } map_box;

static map_box box_of(cl_mem o, const vcl_mapping *x)
{
    map_box b = {o->origin + x->off, o->origin + x->off + x->size, 0, 1, 0, 1};
    if (x->rows && o->rstep && o->sstep) {
        size_t in_slice = x->off % o->sstep;
        b.x0 = o->origin + in_slice % o->rstep;
        b.x1 = b.x0 + x->row_bytes;
        b.y0 = in_slice / o->rstep;
        b.y1 = b.y0 + x->rows;
        b.z0 = x->off / o->sstep;
        b.z1 = b.z0 + x->slices;
    }
    return b;
}

#define MAPS_FOR_WRITING(f) (((f) & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) != 0)

/* Overlapping regions of an object and the objects sharing its memory (sub-buffers) may be
 * mapped together for reading only: a map for writing over any mapped byte, or any map over a
 * byte mapped for writing, is an error (OpenCL 3.0 5.5.4; 1.2 leaves it undefined, and a
 * staging copy read back over the first map's writes would lose them at unmap). */
int vcl_map_conflict(cl_mem m, const vcl_mapping *want)
{
    cl_mem r = vcl_root_of(m);
    map_box a = box_of(m, want);
    for (cl_mem o = r; o; o = o == r ? r->subs : o->sub_next)
        for (const vcl_mapping *x = o->maps; x; x = x->next) {
            if (!MAPS_FOR_WRITING(want->flags) && !MAPS_FOR_WRITING(x->flags)) continue;
            map_box b = box_of(o, x);
            if (a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 && a.z0 < b.z1 && b.z0 < a.z1)
                return 1;
        }
    return 0;
}

void *CL_API_CALL vcl_EnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool blocking,
                                       cl_map_flags flags, size_t off, size_t n, cl_uint nw,
                                       const cl_event *w, cl_event *e, cl_int *errcode_ret)
{
    vcl_enter();
    void *ptr = NULL;
    const cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    cl_int rc = check_q_mem(q, m, NULL);
    if (!rc && ((flags & ~known) ||
                ((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE))) ||
                n == 0 || vcl_out_of(off, n, m->size)))
        rc = CL_INVALID_VALUE;
    if (!rc) rc = vcl_check_wait_list(q->ctx, nw, w);
    if (!rc && misaligned(m)) rc = CL_MISALIGNED_SUB_BUFFER_OFFSET;
    if (!rc && (((flags & CL_MAP_READ) && (m->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS))) ||
                ((flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) &&
                 (m->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)))))
        rc = CL_INVALID_OPERATION;
    vcl_mapping want = {.off = off, .size = n, .flags = flags};
    if (!rc && vcl_map_conflict(m, &want)) rc = CL_INVALID_OPERATION;
    cl_mem r = rc ? NULL : vcl_root_of(m);
    if (!rc && !r->zero_copy && vcl_staging_ready(r)) rc = CL_MAP_FAILURE;
    vcl_mapping *x = NULL;
    if (!rc && !(x = calloc(1, sizeof *x))) rc = CL_OUT_OF_HOST_MEMORY;
    if (!rc) {
        ptr = (r->zero_copy ? r->host : r->staging) + m->origin + off;
        *x = want;
        x->ptr = ptr;
        x->next = m->maps;
        m->maps = x;
        m->map_count++;
        vcl_cmd *c = vcl_cmd_new(OP_MAP, m, NULL);
        if (!c) rc = CL_OUT_OF_HOST_MEMORY;
        else {
            c->off[0] = off;
            c->size = n;
            c->map_flags = flags;
            vcl_trace("map %p [%zu, +%zu) flags 0x%x: %s", (void *)m, off, n, (unsigned)flags,
                      r->zero_copy ? "zero copy (host memory in place)"
                      : (flags & CL_MAP_WRITE_INVALIDATE_REGION) ? "staging, no read-back (invalidate)"
                                                                 : "staging, DMA device -> host");
            rc = vcl_submit(q, c, CL_COMMAND_MAP_BUFFER, nw, w, e, blocking);
        }
        if (rc) {
            /* The map did not happen: no mapping stays behind. */
            m->maps = x->next;
            m->map_count--;
            free(x);
            ptr = NULL;
        }
    }
    vcl_leave();
    if (errcode_ret) *errcode_ret = rc;
    return ptr;
}

cl_int CL_API_CALL vcl_EnqueueUnmapMemObject(cl_command_queue q, cl_mem m, void *ptr, cl_uint nw,
                                             const cl_event *w, cl_event *e)
{
    vcl_enter();
    cl_int rc = CL_SUCCESS;
    if (!vcl_valid(q, VCL_QUEUE)) rc = CL_INVALID_COMMAND_QUEUE;
    else if (!vcl_valid(m, VCL_MEM)) rc = CL_INVALID_MEM_OBJECT;
    else if (m->ctx != q->ctx) rc = CL_INVALID_CONTEXT;
    vcl_mapping **pp = NULL;
    if (!rc) {
        for (pp = &m->maps; *pp && (*pp)->ptr != ptr; pp = &(*pp)->next) {}
        if (!*pp) rc = CL_INVALID_VALUE;
    }
    if (!rc) rc = vcl_check_wait_list(q->ctx, nw, w);
    if (!rc) {
        vcl_cmd *c = vcl_cmd_new(OP_UNMAP, m, NULL);
        if (!c) rc = CL_OUT_OF_HOST_MEMORY;
        else {
            vcl_mapping *x = *pp;
            *pp = x->next;
            x->next = NULL;
            c->mapping = x;
            vcl_trace("unmap %p ptr %p: %s", (void *)m, ptr,
                      vcl_root_of(m)->zero_copy ? "zero copy, nothing to copy"
                      : (x->flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION))
                          ? (x->rows ? "staging, 2D DMA host -> device" : "staging, DMA host -> device")
                          : "read map, nothing to copy back");
            rc = vcl_submit(q, c, CL_COMMAND_UNMAP_MEM_OBJECT, nw, w, e, 0);
        }
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_EnqueueMigrateMemObjects(cl_command_queue q, cl_uint n, const cl_mem *ms,
                                                cl_mem_migration_flags f, cl_uint nw,
                                                const cl_event *w, cl_event *e)
{
    vcl_enter();
    cl_int rc = vcl_valid(q, VCL_QUEUE) ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
    if (!rc && (n == 0 || !ms || (f & ~(cl_mem_migration_flags)(CL_MIGRATE_MEM_OBJECT_HOST |
                                                                 CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))))
        rc = CL_INVALID_VALUE;
    for (cl_uint i = 0; !rc && i < n; i++)
        if (!vcl_valid(ms[i], VCL_MEM)) rc = CL_INVALID_MEM_OBJECT;
        else if (ms[i]->ctx != q->ctx) rc = CL_INVALID_CONTEXT;
    if (!rc) rc = vcl_check_wait_list(q->ctx, nw, w);
    if (!rc) {
        /* One device and memory it can always reach: migration moves nothing. */
        vcl_cmd *c = calloc(1, sizeof *c);
        if (!c) rc = CL_OUT_OF_HOST_MEMORY;
        else rc = vcl_submit(q, c, CL_COMMAND_MIGRATE_MEM_OBJECTS, nw, w, e, 0);
    }
    vcl_leave();
    return rc;
}
