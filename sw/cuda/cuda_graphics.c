/*
 * vmgpu's CUDA graphics interop: cuGraphicsVgfxRegisterBuffer/Image (cudaVgfx.h) and the
 * generic cuGraphics* calls, over the graphics API linked into this library (sw/gfx).
 *
 * Registration maps the resource's physical memory (one allocation) into the process-wide VA
 * space, in every CUDA context, with no access (valid PTEs, R and W clear): the pointer stays
 * the same from map to map. Map and unmap change only the access, and only as commands in the
 * stream they are given (vmgpu_stream_map with REPLACE, ordered with that stream's work), and
 * order the two engines with fences between rings instead of host waits:
 *   map:   the CUDA stream waits (WAIT_FENCE) for vgfx's ring to pass everything vgfx queued,
 *          then the access is granted (R, or R+W);
 *   unmap: the access is revoked after the stream's earlier work, and vgfx's stream waits for
 *          the CUDA stream's fence before any later graphics work.
 * So a kernel touching the resource while it is not mapped faults, as a learner would expect.
 * Arrays of a mapped image are views (cuda_array.h) over its memory, made on first request
 * and retired at unmap.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "cudaVgfx.h"
#include "cuda_array.h"
#include "cuda_internal.h"
#include "cuda_priv.h"
#include "gfx_internal.h"

#define GRES_MAGIC 0x47524521u

struct CUgraphicsResource_st {
    uint32_t magic;
    int live;
    gfx_res *res;
    int image;
    unsigned reg_flags, map_flags;
    uint32_t va, size;              /* process-wide VA of the whole allocation */
    cu_map *m;
    int mapped;
    struct CUctx_st *map_ctx;       /* whose page tables got the access */
    CUarray *views;                 /* [layer * levels + level], made on demand while mapped */
    CUmipmappedArray mip_view;
    struct CUgraphicsResource_st *next;
};

static struct CUgraphicsResource_st *g_gres;  /* every registration ever (dead ones stay) */

static struct CUgraphicsResource_st *gres_lookup(CUgraphicsResource h)
{
    if (!h) return NULL;
    for (struct CUgraphicsResource_st *r = g_gres; r; r = r->next)
        if (r == h && r->live) return r;
    return NULL;
}

/* ---------------------------------------------------------------- register */

#define REG_FLAGS_ALL (CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY | CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD | \
                       CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST | CU_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER)

static CUresult do_register(CUgraphicsResource *out, const void *handle, unsigned flags, int kind)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!out) return CUDA_ERROR_INVALID_VALUE;
    if (flags & ~(unsigned)REG_FLAGS_ALL) return CUDA_ERROR_INVALID_VALUE;
    if ((flags & CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY) && (flags & CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD))
        return CUDA_ERROR_INVALID_VALUE;
    if (kind == GFX_BUFFER &&
        (flags & (CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST | CU_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER)))
        return CUDA_ERROR_INVALID_VALUE;
    gfx_res *res = gfx_res_lookup(handle, kind);
    if (!res) return CUDA_ERROR_INVALID_HANDLE;
    struct CUgraphicsResource_st *g = calloc(1, sizeof *g);
    size_t nviews = kind == GFX_IMAGE ? (size_t)res->desc.arrayLayers * res->desc.mipLevels : 0;
    CUarray *views = nviews ? calloc(nviews, sizeof *views) : NULL;
    if (!g || (nviews && !views)) {
        free(g);
        free(views);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    uint32_t va;
    rc = cu_va_reserve(res->alloc_size, 0, 0, 1, &va);
    if (!rc) {
        rc = cu_map_add(va, res->alloc_size, res->pa, 0, NULL, &g->m);
        if (rc) cu_va_free(cu_resv_find(va, res->alloc_size));
    }
    if (rc) {
        free(g);
        free(views);
        return rc;
    }
    g->magic = GRES_MAGIC;
    g->live = 1;
    g->res = res;
    g->image = kind == GFX_IMAGE;
    g->reg_flags = flags;
    g->va = va;
    g->size = res->alloc_size;
    g->views = views;
    g->next = g_gres;
    g_gres = g;
    res->cuda_registrations++;
    *out = g;
    cu_trace("cuGraphicsVgfxRegister%s: vgfx %s %p (pa 0x%08x) at VA [0x%08x, +0x%x) in every context, "
             "no access until mapped", g->image ? "Image" : "Buffer", g->image ? "image" : "buffer", handle,
             res->pa, va, res->alloc_size);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphicsVgfxRegisterBuffer(CUgraphicsResource *pCudaResource, vgfxBuffer buffer,
                                              unsigned int Flags)
{
    LOCKED("cuGraphicsVgfxRegisterBuffer", do_register(pCudaResource, buffer, Flags, GFX_BUFFER));
}
CUresult CUDAAPI cuGraphicsVgfxRegisterImage(CUgraphicsResource *pCudaResource, vgfxImage image,
                                             unsigned int Flags)
{
    LOCKED("cuGraphicsVgfxRegisterImage", do_register(pCudaResource, image, Flags, GFX_IMAGE));
}

/* ------------------------------------------------------------ map, unmap */

static void views_retire(struct CUgraphicsResource_st *g)
{
    size_t n = g->image ? (size_t)g->res->desc.arrayLayers * g->res->desc.mipLevels : 0;
    for (size_t i = 0; i < n; i++)
        if (g->views[i]) {
            cu_array_view_destroy(g->views[i]);
            g->views[i] = NULL;
        }
    if (g->mip_view) cu_mipmapped_view_destroy(g->mip_view);
    g->mip_view = NULL;
}

static void acc_record(struct CUgraphicsResource_st *g, unsigned acc)
{
    for (uint32_t i = 0; i < (g->size + VMGPU_GRANULE - 1) / VMGPU_GRANULE; i++) g->m->acc[i] = (uint8_t)acc;
}

/* The list itself: nonempty (NVIDIA answers INVALID_VALUE for count 0, measured, even without a
 * context), every entry registered, no duplicates. */
static CUresult check_handles(unsigned count, CUgraphicsResource *res)
{
    if (count == 0 || !res) return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < count; i++) {
        if (!gres_lookup(res[i])) return CUDA_ERROR_INVALID_HANDLE;
        for (unsigned j = 0; j < i; j++)
            if (res[j] == res[i]) return CUDA_ERROR_INVALID_HANDLE;
    }
    return CUDA_SUCCESS;
}

/* want_mapped: each must be (not) mapped. */
static CUresult check_list(unsigned count, CUgraphicsResource *res, int want_mapped)
{
    for (unsigned i = 0; i < count; i++) {
        struct CUgraphicsResource_st *g = gres_lookup(res[i]);
        if (want_mapped && !g->mapped) return CUDA_ERROR_NOT_MAPPED;
        if (!want_mapped && g->mapped) return CUDA_ERROR_ALREADY_MAPPED;
    }
    return CUDA_SUCCESS;
}

static CUresult map_resources(unsigned count, CUgraphicsResource *res, CUstream hs)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    if ((rc = check_handles(count, res))) return rc;
    struct CUctx_st *c;
    vmgpu_stream *s;
    rc = cu_stream_resolve(hs, &c, &s);
    if (rc) return rc;
    rc = check_list(count, res, 0);
    if (rc) return rc;
    /* Graphics work issued so far completes before the stream's later work: a fence wait on
     * the device, the host does not wait. */
    vmgpu_stream *gs = gfx_stream();
    int crc = gs ? vmgpu_stream_wait_stream(s, gs) : VMGPU_OK;
    unsigned done = 0;
    for (; !crc && done < count; done++) {
        struct CUgraphicsResource_st *g = res[done];
        int ro = (g->reg_flags & CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY) ||
                 g->map_flags == CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY;
        crc = vmgpu_stream_map(s, g->va, g->res->pa, g->size,
                               VMGPU_MAP_REPLACE | VMGPU_MAP_READ | (ro ? 0 : VMGPU_MAP_WRITE));
    }
    if (crc) {
        /* Take back what was granted (same stream, so in order). */
        for (unsigned i = 0; i + 1 < done; i++) vmgpu_stream_map(s, res[i]->va, res[i]->res->pa, res[i]->size, VMGPU_MAP_REPLACE);
        return cu_core_err(c, crc);
    }
    crc = vmgpu_stream_submit(s, NULL);
    for (unsigned i = 0; i < count; i++) {
        struct CUgraphicsResource_st *g = res[i];
        int ro = (g->reg_flags & CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY) ||
                 g->map_flags == CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY;
        g->mapped = 1;
        g->map_ctx = c;
        acc_record(g, ro ? CU_MEM_ACCESS_FLAGS_PROT_READ : CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
        g->res->cuda_mapped++;
        cu_trace("cuGraphicsMapResources: VA [0x%08x, +0x%x) now %s in asid %u (stream order, after a "
                 "WAIT_FENCE on the graphics ring)", g->va, g->size, ro ? "R" : "RW", vmgpu_ctx_asid(c->core));
    }
    return cu_core_err(c, crc);
}
CUresult CUDAAPI cuGraphicsMapResources(unsigned int count, CUgraphicsResource *resources, CUstream hStream)
{
    LOCKED("cuGraphicsMapResources", map_resources(count, resources, hStream));
}
CUresult CUDAAPI cuGraphicsMapResources_ptsz(unsigned int count, CUgraphicsResource *resources, CUstream hStream)
{
    LOCKED("cuGraphicsMapResources_ptsz", map_resources(count, resources, hStream));
}

/* Revoke the access in stream order (s: a stream of the mapping context, else its NULL
 * stream), let vgfx wait for that stream, and forget the mapping. */
static int unmap_one(struct CUgraphicsResource_st *g, vmgpu_stream *s, struct CUctx_st *c)
{
    int crc = VMGPU_OK;
    views_retire(g);
    struct CUctx_st *mc = g->map_ctx && cu_ctx_lookup(g->map_ctx) ? g->map_ctx : NULL;
    if (mc) {
        vmgpu_stream *rs = mc == c ? s : mc->null_s;
        crc = vmgpu_stream_map(rs, g->va, g->res->pa, g->size, VMGPU_MAP_REPLACE);
        vmgpu_stream *gs = gfx_stream();
        if (gs && !crc) crc = vmgpu_stream_wait_stream(gs, rs);
        if (gs && rs != s && !crc) crc = vmgpu_stream_wait_stream(gs, s);
    }
    g->mapped = 0;
    g->map_ctx = NULL;
    acc_record(g, 0);
    g->res->cuda_mapped--;
    cu_trace("cuGraphicsUnmapResources: VA [0x%08x, +0x%x) no access (after the stream's work); graphics "
             "waits for the stream's fence", g->va, g->size);
    return crc;
}

static CUresult unmap_resources(unsigned count, CUgraphicsResource *res, CUstream hs)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    if ((rc = check_handles(count, res))) return rc;
    struct CUctx_st *c;
    vmgpu_stream *s;
    rc = cu_stream_resolve(hs, &c, &s);
    if (rc) return rc;
    rc = check_list(count, res, 1);
    if (rc) return rc;
    int crc = VMGPU_OK;
    for (unsigned i = 0; i < count; i++) {
        int r = unmap_one(res[i], s, c);
        if (!crc) crc = r;
    }
    return cu_core_err(c, crc);
}
CUresult CUDAAPI cuGraphicsUnmapResources(unsigned int count, CUgraphicsResource *resources, CUstream hStream)
{
    LOCKED("cuGraphicsUnmapResources", unmap_resources(count, resources, hStream));
}
CUresult CUDAAPI cuGraphicsUnmapResources_ptsz(unsigned int count, CUgraphicsResource *resources, CUstream hStream)
{
    LOCKED("cuGraphicsUnmapResources_ptsz", unmap_resources(count, resources, hStream));
}

/* ---------------------------------------------------------------- unregister */

static CUresult unregister(CUgraphicsResource h)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUgraphicsResource_st *g = gres_lookup(h);
    if (!g) return CUDA_ERROR_INVALID_HANDLE;
    /* NVIDIA (measured through OpenGL) refuses a mapped resource and leaves it registered and
     * mapped: unmap first. */
    if (g->mapped) return CUDA_ERROR_ALREADY_MAPPED;
    /* Everything queued anywhere completes before the pages go (cu_map_remove drains). */
    cu_map_remove(g->m);
    cu_resv *r = cu_resv_find(g->va, g->size);
    if (r) cu_va_free(r);
    g->res->cuda_registrations--;
    g->live = 0;
    free(g->views);
    g->views = NULL;
    cu_trace("cuGraphicsUnregisterResource: VA [0x%08x, +0x%x) unmapped from every context", g->va, g->size);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphicsUnregisterResource(CUgraphicsResource resource)
{
    LOCKED("cuGraphicsUnregisterResource", unregister(resource));
}

/* ------------------------------------------------------------------- queries */

static CUresult mapped_pointer(CUdeviceptr *p, size_t *size, CUgraphicsResource h)
{
    /* The handle first, then the outputs, then the context (NVIDIA, measured: a NULL handle is
     * INVALID_HANDLE with NULL outputs and without a context). */
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUgraphicsResource_st *g = gres_lookup(h);
    if (!g) return CUDA_ERROR_INVALID_HANDLE;
    /* NULL for either output is accepted, that one is just not written (NVIDIA, measured
     * through OpenGL: SUCCESS for each when mapped, NOT_MAPPED when not). */
    struct CUctx_st *c;
    if ((rc = cu_current(&c))) return rc;
    if (!g->mapped) return CUDA_ERROR_NOT_MAPPED;
    if (g->image) return CUDA_ERROR_NOT_MAPPED_AS_POINTER;
    if (p) *p = g->va;
    if (size) *size = (size_t)g->res->size;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphicsResourceGetMappedPointer(CUdeviceptr *pDevPtr, size_t *pSize, CUgraphicsResource resource)
{
    LOCKED("cuGraphicsResourceGetMappedPointer", mapped_pointer(pDevPtr, pSize, resource));
}

/* The array descriptor of an image's level 0 (whole: all layers) or of one 2D subresource. */
static CUDA_ARRAY3D_DESCRIPTOR image_desc(const struct CUgraphicsResource_st *g, int whole, uint32_t level)
{
    const vgfxImageDesc *d = &g->res->desc;
    CUDA_ARRAY3D_DESCRIPTOR a;
    memset(&a, 0, sizeof a);
    a.Width = d->width >> level ? d->width >> level : 1;
    a.Height = d->height >> level ? d->height >> level : 1;
    if (d->format == VGFX_FORMAT_RGBA8_UNORM) {
        a.Format = CU_AD_FORMAT_UNSIGNED_INT8;
        a.NumChannels = 4;
    } else {
        a.Format = CU_AD_FORMAT_UNSIGNED_INT32;
        a.NumChannels = 1;
    }
    if (g->reg_flags & CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST) a.Flags |= CUDA_ARRAY3D_SURFACE_LDST;
    if (whole && (d->flags & VGFX_IMAGE_CUBE)) {
        a.Depth = 6;
        a.Flags |= CUDA_ARRAY3D_CUBEMAP;
    } else if (whole && d->arrayLayers > 1) {
        a.Depth = d->arrayLayers;
        a.Flags |= CUDA_ARRAY3D_LAYERED;
    } else if (g->reg_flags & CU_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER) {
        a.Flags |= CUDA_ARRAY3D_TEXTURE_GATHER;  /* plain 2D arrays only */
    }
    return a;
}

static CUresult mapped_array(CUarray *out, CUgraphicsResource h, unsigned layer, unsigned level)
{
    /* Same order as the pointer query. */
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUgraphicsResource_st *g = gres_lookup(h);
    if (!g) return CUDA_ERROR_INVALID_HANDLE;
    if (!out) return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *c;
    if ((rc = cu_current(&c))) return rc;
    if (!g->mapped) return CUDA_ERROR_NOT_MAPPED;
    if (!g->image) return CUDA_ERROR_NOT_MAPPED_AS_ARRAY;
    if (layer >= g->res->desc.arrayLayers || level >= g->res->desc.mipLevels) return CUDA_ERROR_INVALID_VALUE;
    CUarray *slot = &g->views[layer * g->res->desc.mipLevels + level];
    if (!*slot) {
        vgfxSubresourceLayout l;
        gfx_subresource(g->res, layer, level, &l);
        CUDA_ARRAY3D_DESCRIPTOR d = image_desc(g, 0, level);
        rc = cu_array_view_create(&d, g->va + l.offset, l.rowPitch, 0, slot);
        if (rc) return rc;
    }
    *out = *slot;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphicsSubResourceGetMappedArray(CUarray *pArray, CUgraphicsResource resource,
                                                     unsigned int arrayIndex, unsigned int mipLevel)
{
    LOCKED("cuGraphicsSubResourceGetMappedArray", mapped_array(pArray, resource, arrayIndex, mipLevel));
}

static CUresult mapped_mipmapped(CUmipmappedArray *out, CUgraphicsResource h)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUgraphicsResource_st *g = gres_lookup(h);
    if (!g) return CUDA_ERROR_INVALID_HANDLE;
    if (!out) return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *c;
    if ((rc = cu_current(&c))) return rc;
    if (!g->mapped) return CUDA_ERROR_NOT_MAPPED;
    if (!g->image) return CUDA_ERROR_NOT_MAPPED_AS_ARRAY;
    if (!g->mip_view) {
        unsigned n = g->res->desc.mipLevels;
        CUdeviceptr va[VGFX_MAX_MIP_LEVELS];
        size_t pitch[VGFX_MAX_MIP_LEVELS], stride[VGFX_MAX_MIP_LEVELS];
        for (unsigned i = 0; i < n; i++) {
            vgfxSubresourceLayout l;
            gfx_subresource(g->res, 0, i, &l);
            va[i] = g->va + l.offset;
            pitch[i] = l.rowPitch;
            stride[i] = (size_t)g->res->layer_stride;
        }
        CUDA_ARRAY3D_DESCRIPTOR d = image_desc(g, 1, 0);
        rc = cu_mipmapped_view_create(&d, n, va, pitch, stride, 0, NULL, NULL, &g->mip_view);
        if (rc) {
            g->mip_view = NULL;
            return rc;
        }
    }
    *out = g->mip_view;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphicsResourceGetMappedMipmappedArray(CUmipmappedArray *pMipmappedArray,
                                                           CUgraphicsResource resource)
{
    LOCKED("cuGraphicsResourceGetMappedMipmappedArray", mapped_mipmapped(pMipmappedArray, resource));
}

static CUresult set_map_flags(CUgraphicsResource h, unsigned flags)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    struct CUgraphicsResource_st *g = gres_lookup(h);
    if (!g) return CUDA_ERROR_INVALID_HANDLE;
    if (flags != CU_GRAPHICS_MAP_RESOURCE_FLAGS_NONE && flags != CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY &&
        flags != CU_GRAPHICS_MAP_RESOURCE_FLAGS_WRITE_DISCARD)
        return CUDA_ERROR_INVALID_VALUE;
    if (g->mapped) return CUDA_ERROR_ALREADY_MAPPED;
    g->map_flags = flags;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuGraphicsResourceSetMapFlags(CUgraphicsResource resource, unsigned int flags)
{
    LOCKED("cuGraphicsResourceSetMapFlags", set_map_flags(resource, flags));
}

/* The names from before the _v2 exports (3.2 / 6.5): same arguments, same behaviour. */
#undef cuGraphicsResourceGetMappedPointer
#undef cuGraphicsResourceSetMapFlags
CUresult CUDAAPI cuGraphicsResourceGetMappedPointer(CUdeviceptr *pDevPtr, size_t *pSize, CUgraphicsResource resource)
{
    LOCKED("cuGraphicsResourceGetMappedPointer", mapped_pointer(pDevPtr, pSize, resource));
}
CUresult CUDAAPI cuGraphicsResourceSetMapFlags(CUgraphicsResource resource, unsigned int flags)
{
    LOCKED("cuGraphicsResourceSetMapFlags", set_map_flags(resource, flags));
}
