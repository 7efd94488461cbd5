/*
 * vmgpu's CUDA driver API: external memory (cuImportExternalMemory and the buffers and
 * mipmapped arrays mapped over it).
 *
 * Handle type CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD only: the fd of a cuMemCreate allocation
 * exported with cuMemExportToShareableHandle (POSIX_FILE_DESCRIPTOR), or of a vgfx resource
 * exported with vgfxExportMemoryFd. Both are memfds recognised by inode; the memory behind them
 * is device memory of this process's device. Importing maps nothing yet; each mapped buffer or
 * mipmapped array maps the exporter's physical pages at a new VA (every context, read-write):
 * zero copy, so writes through either side are seen by the other. Each mapping holds a
 * reference on the memory, so it stays until the buffer is freed (cuMemFree) or the mipmapped
 * array destroyed (cuMipmappedArrayDestroy), even after cuDestroyExternalMemory.
 *
 * The fd: on success the driver owns it and, as NVIDIA's driver does (measured), closes it at
 * once (importing the same fd again then fails); on failure the application still owns it. The
 * memory of a vgfx export is kept by the import through a private duplicate of the fd (vgfx
 * frees a destroyed resource's memory once no fd names it and nothing maps it), closed by
 * cuDestroyExternalMemory.
 *
 * The declared size: NVIDIA accepts one larger than the exported allocation (measured); so does
 * vmgpu, but it maps only memory that exists, so buffers and mipmapped arrays must also fit in
 * the allocation (INVALID_VALUE otherwise).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuda_array.h"
#include "cuda_internal.h"
#include "cuda_priv.h"
#ifdef VMGPU_HAVE_GFX
#include "../gfx/gfx_internal.h"
#endif

#define EXTMEM_MAGIC 0x45584d21u
#define GRAN VMGPU_GRANULE
#define PAGE VMGPU_PAGE_SIZE

struct CUextMemory_st {
    uint32_t magic;
    int live;
    cu_alloc *alloc;        /* one reference held while live */
    uint64_t size;          /* the size the application declared */
    int fd;                 /* private duplicate (vgfx exports), -1 otherwise */
    unsigned flags;
    struct CUextMemory_st *next;  /* every object ever made (dead ones stay: stale handles) */
};

static struct CUextMemory_st *g_ext;

static uint64_t rup(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

static struct CUextMemory_st *ext_lookup(CUexternalMemory h)
{
    for (struct CUextMemory_st *e = g_ext; e; e = e->next)
        if (e == h) return e->live && e->magic == EXTMEM_MAGIC ? e : NULL;
    return NULL;
}

/* The allocation an exported fd names: a cuMemExportToShareableHandle memfd (the allocation
 * gains a reference), or a vgfx export (a record of memory vgfx owns). NULL: neither. */
static cu_alloc *fd_memory(int fd)
{
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) return NULL;
    for (cu_alloc *a = g_allocs; a; a = a->next)
        if (a->memfd >= 0 && !a->internal && a->fd_dev == st.st_dev && a->fd_ino == st.st_ino) {
            a->refs++;
            return a;
        }
#ifdef VMGPU_HAVE_GFX
    /* vgfx (sw/gfx) exports: its memory, same device. */
    uint32_t pa;
    uint64_t size;
    if (vgfx_lookup_export_fd(fd, &pa, &size) == 0 && size && size <= 0xffffffffu) {
        cu_alloc *a = calloc(1, sizeof *a);
        if (!a) return NULL;
        a->id = 0;
        a->pa = pa;
        a->size = (uint32_t)size;
        a->refs = 1;
        a->internal = 1;
        a->foreign = 1;
        a->memfd = -1;
        a->next = g_allocs;
        g_allocs = a;
        return a;
    }
#endif
    /* Through the device server: another process's export (cuMemExportToShareableHandle or
     * vgfxExportMemoryFd there); this process now holds that memory too. */
    uint32_t rpa, rsize;
    if (vmgpu_dev_is_remote(g_dev) && vmgpu_phys_import(g_dev, fd, &rpa, &rsize) == VMGPU_OK) {
        cu_alloc *a = cu_alloc_adopt(rpa, rsize, NULL);
        if (!a) {
            vmgpu_phys_free(g_dev, rpa);
            return NULL;
        }
        a->internal = 1;
        return a;
    }
    return NULL;
}

/* Bytes [off, off+len) lie inside the declared size and inside the exported memory (the
 * declared size may be larger: see above). */
static int fits(const struct CUextMemory_st *e, uint64_t off, uint64_t len)
{
    return off < e->size && len <= e->size - off && off < e->alloc->size && len <= e->alloc->size - off;
}

static void drop_ref(cu_alloc *a)
{
    a->refs--;
    cu_alloc_maybe_free(a);
}

static CUresult ext_import(CUexternalMemory *out, const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *d)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!out || !d) return CUDA_ERROR_INVALID_VALUE;
    /* Valid handle types that do not exist here: NOT_SUPPORTED, as NVIDIA answers on Linux for
     * OPAQUE_WIN32 and DMABUF_FD (measured); the Direct3D resource types demand the DEDICATED
     * flag first (INVALID_VALUE without it, measured for D3D12_RESOURCE). */
    switch (d->type) {
    case CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD:
        break;
    case CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_RESOURCE:
    case CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_RESOURCE:
    case CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D11_RESOURCE_KMT:
        if (!(d->flags & CUDA_EXTERNAL_MEMORY_DEDICATED)) return CUDA_ERROR_INVALID_VALUE;
        return CUDA_ERROR_NOT_SUPPORTED;
    case CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32:
    case CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32_KMT:
    case CU_EXTERNAL_MEMORY_HANDLE_TYPE_D3D12_HEAP:
    case CU_EXTERNAL_MEMORY_HANDLE_TYPE_NVSCIBUF:
    case CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD:
        return CUDA_ERROR_NOT_SUPPORTED;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (d->flags & ~(unsigned)CUDA_EXTERNAL_MEMORY_DEDICATED) return CUDA_ERROR_INVALID_VALUE;
    if (d->size == 0) return CUDA_ERROR_INVALID_VALUE;
    /* NVIDIA answers UNKNOWN for fds it cannot import (-1, closed, not an export: measured);
     * vmgpu answers INVALID_VALUE, the documented error for a bad handle description. */
    cu_alloc *a = fd_memory(d->handle.fd);
    if (!a) return CUDA_ERROR_INVALID_VALUE;
    struct CUextMemory_st *e = calloc(1, sizeof *e);
    int keep = a->foreign ? fcntl(d->handle.fd, F_DUPFD_CLOEXEC, 0) : -1;
    if (!e || (a->foreign && keep < 0)) {
        free(e);
        drop_ref(a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    e->magic = EXTMEM_MAGIC;
    e->live = 1;
    e->alloc = a;
    e->size = d->size;
    e->fd = keep;
    e->flags = d->flags;
    e->next = g_ext;
    g_ext = e;
    *out = e;
    close(d->handle.fd);
    cu_trace("cuImportExternalMemory: fd %d -> device memory pa 0x%08x, 0x%llx bytes (fd closed: the driver owned it)",
             d->handle.fd, a->pa, (unsigned long long)d->size);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuImportExternalMemory(CUexternalMemory *extMem_out, const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *memHandleDesc)
{
    LOCKED("cuImportExternalMemory", ext_import(extMem_out, memHandleDesc));
}

/* Map bytes [off, off+len) of e's memory read-write at a new VA (pages rounded out); *va is
 * where byte off lies. The mapping holds a reference on the memory. */
typedef struct ext_map {
    cu_alloc *alloc;
    uint32_t map_va, resv_size;
} ext_map;

static CUresult map_range(struct CUextMemory_st *e, uint64_t off, uint64_t len, ext_map *m, uint32_t *va)
{
    uint64_t first = off / PAGE * PAGE, last = rup(off + len, PAGE);
    uint64_t msize = last - first, rsize = rup(msize, GRAN);
    uint32_t base;
    CUresult rc = cu_va_reserve(rsize, GRAN, 0, 1, &base);
    if (rc) return rc;
    rc = cu_map_add(base, (uint32_t)msize, e->alloc->pa + (uint32_t)first, 0, e->alloc, NULL);
    if (!rc) {
        rc = cu_set_access(base, msize, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
        if (rc) cu_map_remove(cu_map_find(base));
    }
    if (rc) {
        cu_va_free(cu_resv_find(base, rsize));
        return rc;
    }
    e->alloc->refs++;
    m->alloc = e->alloc;
    m->map_va = base;
    m->resv_size = (uint32_t)rsize;
    *va = base + (uint32_t)(off - first);
    return CUDA_SUCCESS;
}

static CUresult ext_buffer(CUdeviceptr *dp, CUexternalMemory h, const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *d)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!dp || !d) return CUDA_ERROR_INVALID_VALUE;
    struct CUextMemory_st *e = ext_lookup(h);
    if (!e) return CUDA_ERROR_INVALID_VALUE;  /* NULL or destroyed: NVIDIA, measured */
    if (d->flags != 0 || d->size == 0) return CUDA_ERROR_INVALID_VALUE;
    if (!fits(e, d->offset, d->size)) return CUDA_ERROR_INVALID_VALUE;
    cu_dalloc *da = calloc(1, sizeof *da);
    if (!da) return CUDA_ERROR_OUT_OF_MEMORY;
    ext_map m;
    uint32_t va;
    rc = map_range(e, d->offset, d->size, &m, &va);
    if (rc) {
        free(da);
        return rc;
    }
    /* A cuMemAlloc-like record: cuMemFree unmaps it and drops its reference. */
    da->kind = DA_DEVICE;
    da->va = va;
    da->map_va = m.map_va;
    da->map_size = m.resv_size;
    da->bytes = d->size;
    da->exact = 1;
    da->alloc = m.alloc;
    da->ctx = c;
    cu_dalloc_link(da);
    *dp = va;
    cu_trace("cuExternalMemoryGetMappedBuffer: [+0x%llx, +0x%llx) of pa 0x%08x mapped at VA 0x%08x (zero copy)",
             (unsigned long long)d->offset, (unsigned long long)(d->offset + d->size), e->alloc->pa, va);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuExternalMemoryGetMappedBuffer(CUdeviceptr *devPtr, CUexternalMemory extMem,
                                                 const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *bufferDesc)
{
    LOCKED("cuExternalMemoryGetMappedBuffer", ext_buffer(devPtr, extMem, bufferDesc));
}

/* cuMipmappedArrayDestroy of an external-memory mipmapped array: its mapping goes. */
static void unmap_range(void *arg)
{
    ext_map *m = arg;
    cu_map *mp = cu_map_find(m->map_va);
    if (mp) cu_map_remove(mp);
    cu_resv *r = cu_resv_find(m->map_va, m->resv_size);
    if (r) cu_va_free(r);
    drop_ref(m->alloc);
    free(m);
}

static CUresult ext_mipmap(CUmipmappedArray *out, CUexternalMemory h, const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC *d)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!out || !d) return CUDA_ERROR_INVALID_VALUE;
    struct CUextMemory_st *e = ext_lookup(h);
    if (!e) return CUDA_ERROR_INVALID_VALUE;  /* NULL or destroyed: NVIDIA, measured */
    const CUDA_ARRAY3D_DESCRIPTOR *ad = &d->arrayDesc;
    rc = cu_array_check_desc(ad);
    if (rc) return rc;
    unsigned n = d->numLevels;
    if (n == 0 || n > 32) return CUDA_ERROR_INVALID_VALUE;
    /* The levels in the driver's own layout (cuda_array.h), from offset on. */
    CUdeviceptr va[32];
    size_t pitch[32], stride[32];
    uint64_t off[32], total = 0;
    for (unsigned i = 0; i < n; i++) {
        size_t w, hh, k;
        uint32_t p;
        cu_array_level_extent(ad, i, &w, &hh, &k);
        uint64_t bytes = cu_array_layout(ad, w, hh, k, &p);
        off[i] = total;
        pitch[i] = p;
        stride[i] = (size_t)p * hh;
        total += rup(bytes, VMGPU_ARRAY_PITCH_ALIGN);
    }
    if (!fits(e, d->offset, total)) return CUDA_ERROR_INVALID_VALUE;
    ext_map *m = calloc(1, sizeof *m);
    if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
    uint32_t base;
    rc = map_range(e, d->offset, total, m, &base);
    if (rc) {
        free(m);
        return rc;
    }
    for (unsigned i = 0; i < n; i++) va[i] = base + off[i];
    /* Too many levels for the size is refused here, after the mapping: undo it. */
    rc = cu_mipmapped_view_create(ad, n, va, pitch, stride, 1, unmap_range, m, out);
    if (rc) {
        unmap_range(m);
        return rc;
    }
    cu_trace("cuExternalMemoryGetMappedMipmappedArray: %u level(s) over [+0x%llx, +0x%llx) at VA 0x%08x", n,
             (unsigned long long)d->offset, (unsigned long long)(d->offset + total), base);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuExternalMemoryGetMappedMipmappedArray(CUmipmappedArray *mipmap, CUexternalMemory extMem,
                                                         const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC *mipmapDesc)
{
    LOCKED("cuExternalMemoryGetMappedMipmappedArray", ext_mipmap(mipmap, extMem, mipmapDesc));
}

static CUresult ext_destroy(CUexternalMemory h)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    /* NULL: INVALID_VALUE (NVIDIA, measured); destroyed: NVIDIA aborts the process, vmgpu answers
     * the same INVALID_VALUE. */
    struct CUextMemory_st *e = ext_lookup(h);
    if (!e) return CUDA_ERROR_INVALID_VALUE;
    e->live = 0;
    if (e->fd >= 0) close(e->fd);
    e->fd = -1;
    /* Buffers and mipmapped arrays still mapped keep their own references. */
    drop_ref(e->alloc);
    e->alloc = NULL;
    cu_trace("cuDestroyExternalMemory: %p destroyed", (void *)e);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDestroyExternalMemory(CUexternalMemory extMem)
{
    LOCKED("cuDestroyExternalMemory", ext_destroy(extMem));
}
