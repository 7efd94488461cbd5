/*
 * vmgpu's CUDA driver API: CUDA arrays (cuArrayCreate, cuArray3DCreate, mipmapped arrays) and
 * the copies that take arrays or pitched memory (cuMemcpy2D/3D, cuMemcpyHtoA and friends).
 *
 * An array is device memory the driver allocates and maps (read-write, in every context, like
 * cuMemAlloc memory) at a VA of its choosing, laid out pitch-linear (cuda_array.h). Every copy
 * becomes, per 2D slice, one DMA_COPY command with source and destination pitches, translated
 * by the MMU; pageable host memory goes through the registered staging buffer as cuMemcpy's
 * does, pinned/registered host memory is read or written in place through the host aperture.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "cuda_array.h"
#include "cuda_internal.h"
#include "cuda_priv.h"

#define GRAN VMGPU_GRANULE
#define PA VMGPU_ARRAY_PITCH_ALIGN

/* Limits checked by cuArray3DCreate (texture limits of a compute capability 5.x device). */
#define LIM_1D 65536u
#define LIM_2D 65536u
#define LIM_3D 4096u
#define LIM_LAYERED 16384u
#define LIM_LAYERS 2048u
#define LIM_CUBE 16384u
#define LIM_CUBE_LAYERS 2046u

static struct CUarray_st *g_arrays;
static struct CUmipmappedArray_st *g_mipmaps;

static uint64_t rup(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/* ------------------------------------------------------------------ descriptors */

unsigned cu_array_elem_size(CUarray_format f, unsigned ch, int *supported)
{
    unsigned base = 0, want_ch = 0;
    if (supported) *supported = 1;
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8: case CU_AD_FORMAT_SIGNED_INT8: base = 1; break;
    case CU_AD_FORMAT_UNSIGNED_INT16: case CU_AD_FORMAT_SIGNED_INT16: case CU_AD_FORMAT_HALF: base = 2; break;
    case CU_AD_FORMAT_UNSIGNED_INT32: case CU_AD_FORMAT_SIGNED_INT32: case CU_AD_FORMAT_FLOAT: base = 4; break;
    /* The normalised formats name their channel count: NumChannels must agree. */
    case CU_AD_FORMAT_UNORM_INT8X1: case CU_AD_FORMAT_SNORM_INT8X1: base = 1; want_ch = 1; break;
    case CU_AD_FORMAT_UNORM_INT8X2: case CU_AD_FORMAT_SNORM_INT8X2: base = 1; want_ch = 2; break;
    case CU_AD_FORMAT_UNORM_INT8X4: case CU_AD_FORMAT_SNORM_INT8X4: base = 1; want_ch = 4; break;
    case CU_AD_FORMAT_UNORM_INT16X1: case CU_AD_FORMAT_SNORM_INT16X1: base = 2; want_ch = 1; break;
    case CU_AD_FORMAT_UNORM_INT16X2: case CU_AD_FORMAT_SNORM_INT16X2: base = 2; want_ch = 2; break;
    case CU_AD_FORMAT_UNORM_INT16X4: case CU_AD_FORMAT_SNORM_INT16X4: base = 2; want_ch = 4; break;
    /* Block-compressed formats name their channel count too (NVIDIA refuses BC1 with one
     * channel: INVALID_VALUE, measured); with the right count they are valid but not implemented. */
    case CU_AD_FORMAT_BC1_UNORM: case CU_AD_FORMAT_BC1_UNORM_SRGB: case CU_AD_FORMAT_BC2_UNORM:
    case CU_AD_FORMAT_BC2_UNORM_SRGB: case CU_AD_FORMAT_BC3_UNORM: case CU_AD_FORMAT_BC3_UNORM_SRGB:
    case CU_AD_FORMAT_BC7_UNORM: case CU_AD_FORMAT_BC7_UNORM_SRGB: want_ch = 4; break;
    case CU_AD_FORMAT_BC4_UNORM: case CU_AD_FORMAT_BC4_SNORM: want_ch = 1; break;
    case CU_AD_FORMAT_BC5_UNORM: case CU_AD_FORMAT_BC5_SNORM: want_ch = 2; break;
    case CU_AD_FORMAT_BC6H_UF16: case CU_AD_FORMAT_BC6H_SF16: want_ch = 3; break;
    default:
        /* YUV and packed formats: valid names, not implemented by vmgpu. */
        if ((f >= CU_AD_FORMAT_BC1_UNORM && f <= CU_AD_FORMAT_Y444_PLANAR10) || f == CU_AD_FORMAT_NV12 ||
            f == CU_AD_FORMAT_YUV444_8bit_SemiPlanar || f == CU_AD_FORMAT_YUV444_16bit_SemiPlanar ||
            f == CU_AD_FORMAT_UNORM_INT_101010_2) {
            if (supported) *supported = 0;
        }
        return 0;
    }
    if (!base) {
        if (supported && ch == want_ch) *supported = 0;
        return 0;
    }
    if (ch != 1 && ch != 2 && ch != 4) return 0;
    if (want_ch && ch != want_ch) return 0;
    return base * ch;
}

#define KNOWN_FLAGS (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_CUBEMAP | \
                     CUDA_ARRAY3D_TEXTURE_GATHER | CUDA_ARRAY3D_DEPTH_TEXTURE | CUDA_ARRAY3D_COLOR_ATTACHMENT | \
                     CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING | CUDA_ARRAY3D_VIDEO_ENCODE_DECODE)

CUresult cu_array_check_desc(const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    int supported;
    if (!cu_array_elem_size(d->Format, d->NumChannels, &supported))
        return supported ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_SUPPORTED;
    unsigned fl = d->Flags;
    if (fl & ~(unsigned)KNOWN_FLAGS) return CUDA_ERROR_INVALID_VALUE;
    /* NVIDIA refuses a (float, 2D) depth-texture array with INVALID_VALUE (measured); vmgpu has
     * no depth textures at all, so it refuses every one the same way. */
    if (fl & CUDA_ARRAY3D_DEPTH_TEXTURE) return CUDA_ERROR_INVALID_VALUE;
    /* Sparse and deferred-mapping arrays need tile mapping (cuMemMapArrayAsync), which vmgpu
     * does not have (CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED is 0); arrays for video
     * encoders and decoders need an engine it does not have either. */
    if (fl & (CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING | CUDA_ARRAY3D_VIDEO_ENCODE_DECODE))
        return CUDA_ERROR_NOT_SUPPORTED;
    size_t w = d->Width, h = d->Height, n = d->Depth;
    if (w == 0) return CUDA_ERROR_INVALID_VALUE;
    int layered = (fl & CUDA_ARRAY3D_LAYERED) != 0, cube = (fl & CUDA_ARRAY3D_CUBEMAP) != 0;
    if ((fl & CUDA_ARRAY3D_TEXTURE_GATHER) && (h == 0 || n != 0 || layered || cube))
        return CUDA_ERROR_INVALID_VALUE;  /* gather: 2D arrays only */
    if (cube) {
        if (w != h || n == 0 || n % 6 || (!layered && n != 6)) return CUDA_ERROR_INVALID_VALUE;
        if (w > LIM_CUBE || n / 6 > LIM_CUBE_LAYERS) return CUDA_ERROR_INVALID_VALUE;
    } else if (layered) {
        if (n == 0 || n > LIM_LAYERS || w > LIM_LAYERED || h > LIM_LAYERED) return CUDA_ERROR_INVALID_VALUE;
    } else if (n) {
        if (h == 0 || w > LIM_3D || h > LIM_3D || n > LIM_3D) return CUDA_ERROR_INVALID_VALUE;
    } else if (h) {
        if (w > LIM_2D || h > LIM_2D) return CUDA_ERROR_INVALID_VALUE;
    } else if (w > LIM_1D) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

void cu_array_level_extent(const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned l, size_t *w, size_t *h, size_t *n)
{
    int stack = (d->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) != 0;
    *w = d->Width >> l ? d->Width >> l : 1;
    *h = d->Height ? (d->Height >> l ? d->Height >> l : 1) : 1;
    if (!d->Depth) *n = 1;
    else if (stack) *n = d->Depth;             /* layers and faces are not mip-reduced */
    else *n = d->Depth >> l ? d->Depth >> l : 1;
}

uint64_t cu_array_layout(const CUDA_ARRAY3D_DESCRIPTOR *d, size_t w, size_t h, size_t n, uint32_t *pitch)
{
    uint64_t p = rup((uint64_t)w * cu_array_elem_size(d->Format, d->NumChannels, NULL), PA);
    *pitch = (uint32_t)p;
    return p * h * n;
}

/* The descriptor a level (or a view's level) reports. */
static CUDA_ARRAY3D_DESCRIPTOR level_desc(const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned l)
{
    size_t w, h, n;
    cu_array_level_extent(d, l, &w, &h, &n);
    CUDA_ARRAY3D_DESCRIPTOR r = *d;
    r.Width = w;
    r.Height = d->Height ? h : 0;
    r.Depth = d->Depth ? n : 0;
    return r;
}

static unsigned max_levels(const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    size_t m = d->Width;
    if (d->Height > m) m = d->Height;
    if (d->Depth > m && !(d->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP))) m = d->Depth;
    unsigned l = 1;
    while (m >>= 1) l++;
    return l;
}

/* ------------------------------------------------------------------ memory */

static CUresult amem_alloc(uint64_t bytes, cu_amem *m)
{
    uint64_t size = rup(bytes ? bytes : 1, GRAN);
    if (size > g_info.user_bytes) return CUDA_ERROR_OUT_OF_MEMORY;
    CUmemAllocationProp prop = {0};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    CUresult rc;
    cu_alloc *a = cu_alloc_new((uint32_t)size, &prop, 1, &rc);
    if (!a) return rc;
    uint32_t va;
    rc = cu_va_reserve(size, GRAN, 0, 1, &va);
    if (!rc) {
        rc = cu_map_add(va, (uint32_t)size, a->pa, 0, a, NULL);
        if (!rc) {
            rc = cu_set_access(va, size, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
            if (rc) cu_map_remove(cu_map_find(va));
        }
        if (rc) cu_va_free(cu_resv_find(va, size));
    }
    if (rc) {
        a->refs = 0;
        cu_alloc_maybe_free(a);
        return rc;
    }
    m->alloc = a;
    m->va = va;
    m->size = (uint32_t)size;
    return CUDA_SUCCESS;
}

static void amem_free(cu_amem *m)
{
    if (!m->alloc) return;
    cu_map *mp = cu_map_find(m->va);
    if (mp) cu_map_remove(mp);
    cu_resv *r = cu_resv_find(m->va, m->size);
    if (r) cu_va_free(r);
    m->alloc->refs--;
    cu_alloc_maybe_free(m->alloc);
    m->alloc = NULL;
}

/* ------------------------------------------------------------------ registries */

struct CUarray_st *cu_array_lookup(CUarray h)
{
    for (struct CUarray_st *a = g_arrays; a; a = a->next)
        if (a == h) return a->live && a->magic == ARRAY_MAGIC ? a : NULL;
    return NULL;
}

struct CUmipmappedArray_st *cu_mipmapped_lookup(CUmipmappedArray h)
{
    for (struct CUmipmappedArray_st *m = g_mipmaps; m; m = m->next)
        if (m == h) return m->live && m->magic == MIPMAP_MAGIC ? m : NULL;
    return NULL;
}

/* The answer for a handle that names no live array or mipmapped array: NVIDIA answers
 * CONTEXT_IS_DESTROYED for one that was destroyed (measured for cuArrayDestroy,
 * cuArray3DGetDescriptor, cuMipmappedArrayDestroy and cuMipmappedArrayGetLevel); records stay,
 * so a destroyed handle is told apart from NULL and made-up ones (INVALID_HANDLE). */
static CUresult dead_array_err(CUarray h)
{
    for (struct CUarray_st *a = g_arrays; h && a; a = a->next)
        if (a == h) return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    return CUDA_ERROR_INVALID_HANDLE;
}

static CUresult dead_mipmap_err(CUmipmappedArray h)
{
    for (struct CUmipmappedArray_st *m = g_mipmaps; h && m; m = m->next)
        if (m == h) return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    return CUDA_ERROR_INVALID_HANDLE;
}

static struct CUarray_st *array_new(const CUDA_ARRAY3D_DESCRIPTOR *d, int kind, uint32_t va, uint32_t pitch,
                                    uint32_t slice)
{
    struct CUarray_st *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->magic = ARRAY_MAGIC;
    a->kind = kind;
    a->desc = *d;
    a->esize = cu_array_elem_size(d->Format, d->NumChannels, NULL);
    a->va = va;
    a->pitch = pitch;
    a->slice = slice;
    a->ctx = cu_current_raw();
    return a;
}

/* Objects are linked only once everything succeeded (a failing call leaves no trace). */
static void array_link(struct CUarray_st *a)
{
    a->live = 1;
    a->next = g_arrays;
    g_arrays = a;
}

static void mipmap_link(struct CUmipmappedArray_st *m)
{
    m->live = 1;
    m->next = g_mipmaps;
    g_mipmaps = m;
    for (unsigned i = 0; i < m->nlevels; i++) array_link(m->levels[i]);
}

static void mipmap_kill(struct CUmipmappedArray_st *m)
{
    for (unsigned i = 0; i < m->nlevels; i++) m->levels[i]->live = 0;
    m->live = 0;
    amem_free(&m->mem);
    if (m->on_destroy) m->on_destroy(m->on_destroy_arg);
    m->on_destroy = NULL;
}

/* A mipmapped array's record and level arrays, levels placed by place(i, &va, &pitch, &slice). */
static CUresult mipmap_build(const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned n, const CUdeviceptr *va,
                             const size_t *pitch, const size_t *slice, uint32_t base,
                             struct CUmipmappedArray_st **out)
{
    struct CUmipmappedArray_st *m = calloc(1, sizeof *m);
    struct CUarray_st **lv = calloc(n, sizeof *lv);
    if (!m || !lv) goto oom;
    m->magic = MIPMAP_MAGIC;
    m->desc = *d;
    m->nlevels = n;
    m->levels = lv;
    m->ctx = cu_current_raw();
    uint64_t off = 0;
    for (unsigned i = 0; i < n; i++) {
        CUDA_ARRAY3D_DESCRIPTOR ld = level_desc(d, i);
        size_t w, h, k;
        cu_array_level_extent(d, i, &w, &h, &k);
        uint32_t p, lva, ls;
        if (va) {
            lva = (uint32_t)va[i];
            p = (uint32_t)pitch[i];
            ls = (uint32_t)slice[i];
        } else {
            uint64_t bytes = cu_array_layout(d, w, h, k, &p);
            lva = base + (uint32_t)off;
            ls = p * (uint32_t)h;
            off += rup(bytes, PA);
        }
        lv[i] = array_new(&ld, ARR_LEVEL, lva, p, ls);
        if (!lv[i]) goto oom;
        lv[i]->parent = m;
    }
    *out = m;
    return CUDA_SUCCESS;
oom:
    if (lv)
        for (unsigned i = 0; i < n; i++) free(lv[i]);
    free(lv);
    free(m);
    return CUDA_ERROR_OUT_OF_MEMORY;
}

/* Bytes a mipmapped array of d with n levels takes in the driver's layout. */
static uint64_t mipmap_bytes(const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned n)
{
    uint64_t total = 0;
    for (unsigned i = 0; i < n; i++) {
        size_t w, h, k;
        uint32_t p;
        cu_array_level_extent(d, i, &w, &h, &k);
        total += rup(cu_array_layout(d, w, h, k, &p), PA);
    }
    return total;
}

/* ------------------------------------------------------------------ create, destroy */

static CUresult array3d_create(CUarray *ph, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!ph || !d) return CUDA_ERROR_INVALID_VALUE;
    rc = cu_array_check_desc(d);
    if (rc) return rc;
    size_t w, h, n;
    uint32_t pitch;
    cu_array_level_extent(d, 0, &w, &h, &n);
    uint64_t bytes = cu_array_layout(d, w, h, n, &pitch);
    if (bytes > g_info.user_bytes) return CUDA_ERROR_OUT_OF_MEMORY;
    cu_amem mem;
    rc = amem_alloc(bytes, &mem);
    if (rc) return rc;
    struct CUarray_st *a = array_new(d, ARR_OWNED, mem.va, pitch, pitch * (uint32_t)h);
    if (!a) {
        amem_free(&mem);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    a->mem = mem;
    array_link(a);
    *ph = a;
    cu_trace("array %p: %zux%zux%zu elements of %u bytes, pitch %u, slice %u bytes at VA 0x%08x (pa 0x%08x)",
             (void *)a, d->Width, d->Height, d->Depth, a->esize, a->pitch, a->slice, a->va, mem.alloc->pa);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuArray3DCreate(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray)
{
    LOCKED("cuArray3DCreate", array3d_create(pHandle, pAllocateArray));
}

static CUresult array_create(CUarray *ph, const CUDA_ARRAY_DESCRIPTOR *d)
{
    if (!d) {
        struct CUctx_st *c;
        CUresult rc = cu_current(&c);
        return rc ? rc : CUDA_ERROR_INVALID_VALUE;
    }
    CUDA_ARRAY3D_DESCRIPTOR d3 = {d->Width, d->Height, 0, d->Format, d->NumChannels, 0};
    return array3d_create(ph, &d3);
}
CUresult CUDAAPI cuArrayCreate(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray)
{
    LOCKED("cuArrayCreate", array_create(pHandle, pAllocateArray));
}

static CUresult array_get3d(CUDA_ARRAY3D_DESCRIPTOR *out, CUarray h)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!out) return CUDA_ERROR_INVALID_VALUE;
    struct CUarray_st *a = cu_array_lookup(h);
    if (!a) return dead_array_err(h);
    *out = a->desc;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuArray3DGetDescriptor(CUDA_ARRAY3D_DESCRIPTOR *pArrayDescriptor, CUarray hArray)
{
    LOCKED("cuArray3DGetDescriptor", array_get3d(pArrayDescriptor, hArray));
}

static CUresult array_get(CUDA_ARRAY_DESCRIPTOR *out, CUarray h)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!out) return CUDA_ERROR_INVALID_VALUE;
    struct CUarray_st *a = cu_array_lookup(h);
    if (!a) return dead_array_err(h);
    /* A 3D or layered array too: its first slice's shape (NVIDIA answers SUCCESS, measured). */
    out->Width = a->desc.Width;
    out->Height = a->desc.Height;
    out->Format = a->desc.Format;
    out->NumChannels = a->desc.NumChannels;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuArrayGetDescriptor(CUDA_ARRAY_DESCRIPTOR *pArrayDescriptor, CUarray hArray)
{
    LOCKED("cuArrayGetDescriptor", array_get(pArrayDescriptor, hArray));
}

static CUresult array_destroy(CUarray h)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    struct CUarray_st *a = cu_array_lookup(h);
    if (!a) return dead_array_err(h);
    /* A view belongs to the mapping it came from, a level to its mipmapped array: NVIDIA
     * answers SUCCESS for both (measured; for a graphics mapping's array its next unregister
     * then crashed), so here neither is freed: it stays usable until its owner retires it. */
    if (a->kind == ARR_VIEW) {
        cu_trace("array %p is a view of a graphics mapping: nothing to destroy (it goes at the unmap)", (void *)a);
        return CUDA_SUCCESS;
    }
    if (a->kind == ARR_LEVEL) {
        cu_trace("array %p is level of mipmapped array %p: nothing to destroy (it goes with that array)",
                 (void *)a, (void *)a->parent);
        return CUDA_SUCCESS;
    }
    rc = cu_ctx_sync(c);
    if (rc) return rc;
    a->live = 0;
    amem_free(&a->mem);
    cu_trace("array %p destroyed: its memory unmapped and freed", (void *)a);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuArrayDestroy(CUarray hArray) { LOCKED("cuArrayDestroy", array_destroy(hArray)); }

static CUresult mipmap_create(CUmipmappedArray *ph, const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned n)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!ph || !d) return CUDA_ERROR_INVALID_VALUE;
    rc = cu_array_check_desc(d);
    if (rc) return rc;
    /* Clamped to [1, 1 + log2(largest extent)] as the runtime's cudaMallocMipmappedArray
     * documents; NVIDIA's driver accepts 0 and too many levels alike (measured). */
    if (n == 0) n = 1;
    if (n > max_levels(d)) n = max_levels(d);
    uint64_t bytes = mipmap_bytes(d, n);
    if (bytes > g_info.user_bytes) return CUDA_ERROR_OUT_OF_MEMORY;
    cu_amem mem;
    rc = amem_alloc(bytes, &mem);
    if (rc) return rc;
    struct CUmipmappedArray_st *m;
    rc = mipmap_build(d, n, NULL, NULL, NULL, mem.va, &m);
    if (rc) {
        amem_free(&mem);
        return rc;
    }
    m->mem = mem;
    m->app_destroyable = 1;
    mipmap_link(m);
    *ph = m;
    cu_trace("mipmapped array %p: %u levels in one allocation of 0x%llx bytes at VA 0x%08x", (void *)m, n,
             (unsigned long long)bytes, mem.va);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMipmappedArrayCreate(CUmipmappedArray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc,
                                        unsigned int numMipmapLevels)
{
    LOCKED("cuMipmappedArrayCreate", mipmap_create(pHandle, pMipmappedArrayDesc, numMipmapLevels));
}

static CUresult mipmap_level(CUarray *out, CUmipmappedArray h, unsigned level)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!out) return CUDA_ERROR_INVALID_VALUE;
    struct CUmipmappedArray_st *m = cu_mipmapped_lookup(h);
    if (!m) return dead_mipmap_err(h);
    if (level >= m->nlevels) return CUDA_ERROR_INVALID_VALUE;
    *out = m->levels[level];
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMipmappedArrayGetLevel(CUarray *pLevelArray, CUmipmappedArray hMipmappedArray, unsigned int level)
{
    LOCKED("cuMipmappedArrayGetLevel", mipmap_level(pLevelArray, hMipmappedArray, level));
}

static CUresult mipmap_destroy(CUmipmappedArray h)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    struct CUmipmappedArray_st *m = cu_mipmapped_lookup(h);
    if (!m) return dead_mipmap_err(h);
    if (!m->app_destroyable) return CUDA_ERROR_ARRAY_IS_MAPPED;
    rc = cu_ctx_sync(c);
    if (rc) return rc;
    mipmap_kill(m);
    cu_trace("mipmapped array %p destroyed", (void *)m);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray)
{
    LOCKED("cuMipmappedArrayDestroy", mipmap_destroy(hMipmappedArray));
}

/* Arrays made in a context go with it (as its cuMemAlloc memory does); views stay. */
void cu_array_ctx_release(struct CUctx_st *c)
{
    for (struct CUarray_st *a = g_arrays; a; a = a->next)
        if (a->live && a->kind == ARR_OWNED && a->ctx == c) {
            a->live = 0;
            amem_free(&a->mem);
        }
    for (struct CUmipmappedArray_st *m = g_mipmaps; m; m = m->next)
        if (m->live && !m->view && m->ctx == c) mipmap_kill(m);
}

/* ------------------------------------------------------------------ views */

CUresult cu_array_view_create(const CUDA_ARRAY3D_DESCRIPTOR *d, CUdeviceptr va, size_t pitch, size_t layer_stride,
                              CUarray *out)
{
    if (!d || !out || !va) return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = cu_array_check_desc(d);
    if (rc) return rc;
    unsigned es = cu_array_elem_size(d->Format, d->NumChannels, NULL);
    size_t h = d->Height ? d->Height : 1;
    if (pitch < d->Width * es || pitch > 0xffffffffu || layer_stride > 0xffffffffu ||
        (d->Depth > 1 && layer_stride < pitch * h) || va >= CU_VA_HI)
        return CUDA_ERROR_INVALID_VALUE;
    struct CUarray_st *a = array_new(d, ARR_VIEW, (uint32_t)va, (uint32_t)pitch,
                                     (uint32_t)(layer_stride ? layer_stride : pitch * h));
    if (!a) return CUDA_ERROR_OUT_OF_MEMORY;
    a->ctx = NULL;
    array_link(a);
    *out = a;
    return CUDA_SUCCESS;
}

void cu_array_view_destroy(CUarray h)
{
    struct CUarray_st *a = cu_array_lookup(h);
    if (a && a->kind == ARR_VIEW) a->live = 0;
}

CUresult cu_mipmapped_view_create(const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned levels, const CUdeviceptr *va,
                                  const size_t *pitch, const size_t *layer_stride, int app_destroyable,
                                  void (*on_destroy)(void *), void *arg, CUmipmappedArray *out)
{
    if (!d || !va || !pitch || !layer_stride || !out) return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = cu_array_check_desc(d);
    if (rc) return rc;
    if (levels == 0 || levels > max_levels(d)) return CUDA_ERROR_INVALID_VALUE;
    unsigned es = cu_array_elem_size(d->Format, d->NumChannels, NULL);
    for (unsigned i = 0; i < levels; i++) {
        size_t w, h, n;
        cu_array_level_extent(d, i, &w, &h, &n);
        if (!va[i] || va[i] >= CU_VA_HI || pitch[i] < w * es || pitch[i] > 0xffffffffu ||
            layer_stride[i] > 0xffffffffu || (n > 1 && layer_stride[i] < pitch[i] * h))
            return CUDA_ERROR_INVALID_VALUE;
    }
    size_t *ls = calloc(levels, sizeof *ls);
    if (!ls) return CUDA_ERROR_OUT_OF_MEMORY;
    for (unsigned i = 0; i < levels; i++) {
        size_t w, h, n;
        cu_array_level_extent(d, i, &w, &h, &n);
        ls[i] = layer_stride[i] ? layer_stride[i] : pitch[i] * h;
    }
    struct CUmipmappedArray_st *m;
    rc = mipmap_build(d, levels, va, pitch, ls, 0, &m);
    free(ls);
    if (rc) return rc;
    m->view = 1;
    m->app_destroyable = app_destroyable;
    m->on_destroy = on_destroy;
    m->on_destroy_arg = arg;
    m->ctx = NULL;
    for (unsigned i = 0; i < levels; i++) m->levels[i]->ctx = NULL;
    mipmap_link(m);
    *out = m;
    return CUDA_SUCCESS;
}

void cu_mipmapped_view_destroy(CUmipmappedArray h)
{
    struct CUmipmappedArray_st *m = cu_mipmapped_lookup(h);
    if (m && m->view) mipmap_kill(m);
}

/* ------------------------------------------------------------------ copies */

/* One side of a copy, resolved: where byte (x, y, z) of the box is and how rows/slices step. */
typedef struct xep {
    int host;               /* host memory (pageable or registered) */
    int staged;             /* pageable host memory: goes through the staging buffer */
    uint8_t *hp;            /* host: first byte of the box */
    uint64_t va;            /* device-addressable: first byte of the box */
    uint64_t pitch, slice;
    uint64_t span;          /* bytes from the first to one past the last byte of the box */
    struct CUarray_st *arr;
} xep;

typedef struct box {
    size_t w, h, d;         /* WidthInBytes, Height, Depth */
} box;

/* Check and resolve one side. linear_height: rows per slice of linear memory (3D copies).
 * elem_x: an array's x offset must be a whole number of elements (2D/3D copies; NVIDIA checks
 * it there but not the width, nor the byte offset of the 1D array copies: measured). */
static CUresult resolve(xep *e, CUmemorytype type, const void *host, CUdeviceptr dev, CUarray arr, size_t x,
                        size_t y, size_t z, size_t pitch, size_t linear_height, const box *b, int is_dst,
                        int elem_x)
{
    memset(e, 0, sizeof *e);
    if (type == CU_MEMORYTYPE_UNIFIED) {
        /* Unified addressing: a device mapping or else a host pointer (srcDevice/dstDevice). */
        if (cu_map_find(dev)) type = CU_MEMORYTYPE_DEVICE;
        else {
            type = CU_MEMORYTYPE_HOST;
            host = (const void *)(uintptr_t)dev;
        }
    }
    uint64_t w = b->w, h = b->h, d = b->d;
    switch (type) {
    case CU_MEMORYTYPE_HOST:
    case CU_MEMORYTYPE_DEVICE: {
        if (type == CU_MEMORYTYPE_HOST ? !host : !dev) return CUDA_ERROR_INVALID_VALUE;
        if (pitch > 0x7fffffffu) return CUDA_ERROR_INVALID_VALUE;  /* CU_DEVICE_ATTRIBUTE_MAX_PITCH */
        if (pitch == 0 && h == 1 && d == 1) pitch = w;
        if (pitch < w) return CUDA_ERROR_INVALID_VALUE;
        if (d > 1 && linear_height < h) return CUDA_ERROR_INVALID_VALUE;
        e->pitch = pitch;
        e->slice = (uint64_t)pitch * (d > 1 ? linear_height : h);
        uint64_t start = z * e->slice + y * pitch + x;
        e->span = (d - 1) * e->slice + (h - 1) * pitch + w;
        if (start + e->span >= (1ull << 47)) return CUDA_ERROR_INVALID_VALUE;
        if (type == CU_MEMORYTYPE_HOST) {
            /* In the reserved device window: an unmapped device address, not host memory. */
            if (cu_window_owns((uint64_t)(uintptr_t)host + start, e->span)) return CUDA_ERROR_INVALID_VALUE;
            e->host = 1;
            e->hp = (uint8_t *)(uintptr_t)host + start;
            cu_dalloc *hd = cu_dalloc_host(e->hp, e->span);
            if (hd) e->va = hd->va + (uint64_t)(e->hp - (uint8_t *)hd->host);
            else e->staged = 1;
        } else {
            e->va = dev + start;
            if (!(is_dst ? cu_dev_dst_ok(e->va, e->span) : cu_dev_src_ok(e->va, e->span)))
                return CUDA_ERROR_INVALID_VALUE;
        }
        return CUDA_SUCCESS;
    }
    case CU_MEMORYTYPE_ARRAY: {
        if (!arr) return CUDA_ERROR_INVALID_VALUE;  /* NVIDIA, measured (a NULL array is a missing argument) */
        struct CUarray_st *a = cu_array_lookup(arr);
        if (!a) return CUDA_ERROR_INVALID_HANDLE;
        uint64_t rowb = (uint64_t)a->desc.Width * a->esize;
        uint64_t rows = a->desc.Height ? a->desc.Height : 1, slices = a->desc.Depth ? a->desc.Depth : 1;
        if (elem_x && x % a->esize) return CUDA_ERROR_INVALID_VALUE;
        if (x + w > rowb || y + h > rows || z + d > slices) return CUDA_ERROR_INVALID_VALUE;
        e->arr = a;
        e->pitch = a->pitch;
        e->slice = a->slice;
        e->va = a->va + z * a->slice + y * a->pitch + x;
        e->span = (d - 1) * e->slice + (h - 1) * e->pitch + w;
        return CUDA_SUCCESS;
    }
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

/* Do the two boxes share a byte of device memory? Rows of both sides step by a multiple of the
 * pitch; with equal pitches, boxes side by side in the same rows do not overlap. Only traced:
 * NVIDIA's driver accepts overlapping boxes (measured, 2D device memory, one array, 1D array
 * copies); vmgpu copies them too, in its usual order, and makes no promise about the result. */
static int overlaps(const xep *s, const xep *d, const box *b)
{
    if (s->staged || d->staged) return 0;
    if (s->host != d->host) return 0;
    if (s->host && s->hp + s->span <= d->hp) return 0;
    if (s->host && d->hp + d->span <= s->hp) return 0;
    if (!s->host && (s->va + s->span <= d->va || d->va + d->span <= s->va)) return 0;
    if (s->pitch == d->pitch && s->slice % s->pitch == 0 && d->slice % d->pitch == 0 &&
        (b->h > 1 || b->d > 1)) {
        uint64_t r = (d->va - s->va) % s->pitch;
        if (s->host) r = (uint64_t)(d->hp - s->hp) % s->pitch;
        if (r >= b->w && s->pitch - r >= b->w) return 0;
    }
    return 1;
}

/* Pageable host rows <-> device rows through the staging buffer, synchronously. */
static CUresult staged_rows(struct CUctx_st *c, vmgpu_stream *s, const xep *dev, uint64_t dva, uint8_t *hp,
                            uint64_t hpitch, const box *b, int to_dev)
{
    cu_dalloc *bb = cu_bounce();
    uint64_t w = b->w;
    for (uint64_t r = 0; r < b->h;) {
        if (w <= BOUNCE_BYTES) {
            uint64_t n = BOUNCE_BYTES / w;
            if (n > b->h - r) n = b->h - r;
            int rc;
            if (to_dev) {
                for (uint64_t i = 0; i < n; i++) memcpy((uint8_t *)bb->host + i * w, hp + (r + i) * hpitch, w);
                CUresult pr = cu_bounce_put(c, n * w);
                if (pr) return pr;
                rc = vmgpu_cmd_copy_2d(s, (uint32_t)(dva + r * dev->pitch), (uint32_t)dev->pitch, bb->va,
                                       (uint32_t)w, (uint32_t)w, (uint32_t)n);
            } else {
                rc = vmgpu_cmd_copy_2d(s, bb->va, (uint32_t)w, (uint32_t)(dva + r * dev->pitch),
                                       (uint32_t)dev->pitch, (uint32_t)w, (uint32_t)n);
            }
            if (!rc) rc = vmgpu_stream_sync(s);
            if (rc) return cu_core_err(c, rc);
            if (!to_dev) {
                CUresult gr = cu_bounce_get(c, n * w);
                if (gr) return gr;
                for (uint64_t i = 0; i < n; i++) memcpy(hp + (r + i) * hpitch, (uint8_t *)bb->host + i * w, w);
            }
            r += n;
        } else {
            /* A row longer than the staging buffer: in pieces. */
            for (uint64_t off = 0; off < w;) {
                uint64_t n = w - off > BOUNCE_BYTES ? BOUNCE_BYTES : w - off;
                uint64_t dv = dva + r * dev->pitch + off;
                int rc;
                if (to_dev) {
                    memcpy(bb->host, hp + r * hpitch + off, n);
                    CUresult pr = cu_bounce_put(c, n);
                    if (pr) return pr;
                    rc = vmgpu_cmd_copy(s, (uint32_t)dv, bb->va, (uint32_t)n);
                } else {
                    rc = vmgpu_cmd_copy(s, bb->va, (uint32_t)dv, (uint32_t)n);
                }
                if (!rc) rc = vmgpu_stream_sync(s);
                if (rc) return cu_core_err(c, rc);
                if (!to_dev) {
                    CUresult gr = cu_bounce_get(c, n);
                    if (gr) return gr;
                    memcpy(hp + r * hpitch + off, bb->host, n);
                }
                off += n;
            }
            r++;
        }
    }
    return CUDA_SUCCESS;
}

static CUresult run_copy(struct CUctx_st *c, vmgpu_stream *s, const xep *src, const xep *dst, const box *b,
                         int async)
{
    if (src->host && dst->host && (src->staged || dst->staged)) {
        /* Host to host: the CPU copies, after the work queued before it. */
        CUresult rc = cu_ctx_sync(c);
        if (rc) return rc;
        for (uint64_t z = 0; z < b->d; z++)
            for (uint64_t y = 0; y < b->h; y++)
                memmove(dst->hp + z * dst->slice + y * dst->pitch, src->hp + z * src->slice + y * src->pitch, b->w);
        return CUDA_SUCCESS;
    }
    int staged = src->staged || dst->staged;
    for (uint64_t z = 0; z < b->d; z++) {
        CUresult rc = CUDA_SUCCESS;
        if (src->staged)
            rc = staged_rows(c, s, dst, dst->va + z * dst->slice, src->hp + z * src->slice, src->pitch, b, 1);
        else if (dst->staged)
            rc = staged_rows(c, s, src, src->va + z * src->slice, dst->hp + z * dst->slice, dst->pitch, b, 0);
        else {
            int crc = vmgpu_cmd_copy_2d(s, (uint32_t)(dst->va + z * dst->slice), (uint32_t)dst->pitch,
                                        (uint32_t)(src->va + z * src->slice), (uint32_t)src->pitch,
                                        (uint32_t)b->w, (uint32_t)b->h);
            if (crc) rc = cu_core_err(c, crc);
        }
        if (rc) return rc;
    }
    if (staged) return CUDA_SUCCESS;
    return cu_core_err(c, async ? vmgpu_stream_submit(s, NULL) : vmgpu_stream_sync(s));
}

/* The whole of cuMemcpy2D/3D and the array copies: check everything first, then copy. */
static CUresult copy3d_x(const CUDA_MEMCPY3D *p, CUstream hs, int async, int elem_x)
{
    struct CUctx_st *c;
    vmgpu_stream *s;
    CUresult rc = cu_stream_resolve(hs, &c, &s);
    if (rc) return rc;
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    /* srcLOD/dstLOD and reserved0/1 "must be" 0/NULL, but NVIDIA's driver ignores them
     * (measured), and so does vmgpu. */
    box b = {p->WidthInBytes, p->Height, p->Depth};
    if (b.w >= (1ull << 32) || b.h >= (1ull << 32) || b.d >= (1ull << 32)) return CUDA_ERROR_INVALID_VALUE;
    box chk = {b.w, b.h ? b.h : 1, b.d ? b.d : 1};
    xep src, dst;
    rc = resolve(&src, p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcXInBytes, p->srcY, p->srcZ,
                 p->srcPitch, p->srcHeight, &chk, 0, elem_x);
    if (rc) return rc;
    rc = resolve(&dst, p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, p->dstXInBytes, p->dstY, p->dstZ,
                 p->dstPitch, p->dstHeight, &chk, 1, elem_x);
    if (rc) return rc;
    if (!b.w || !b.h || !b.d) return CUDA_SUCCESS;
    if (overlaps(&src, &dst, &b)) cu_trace("source and destination overlap: the result is undefined");
    cu_trace("copy box %zu bytes x %zu rows x %zu slices: %zu DMA_COPY command(s), pitches %llu -> %llu", b.w, b.h,
             b.d, b.d, (unsigned long long)src.pitch, (unsigned long long)dst.pitch);
    return run_copy(c, s, &src, &dst, &b, async);
}
static CUresult copy3d(const CUDA_MEMCPY3D *p, CUstream hs, int async) { return copy3d_x(p, hs, async, 1); }

static CUresult copy2d(const CUDA_MEMCPY2D *p, CUstream hs, int async)
{
    if (!p) {
        struct CUctx_st *c;
        vmgpu_stream *s;
        CUresult rc = cu_stream_resolve(hs, &c, &s);
        return rc ? rc : CUDA_ERROR_INVALID_VALUE;
    }
    CUDA_MEMCPY3D q;
    memset(&q, 0, sizeof q);
    q.srcXInBytes = p->srcXInBytes;
    q.srcY = p->srcY;
    q.srcMemoryType = p->srcMemoryType;
    q.srcHost = p->srcHost;
    q.srcDevice = p->srcDevice;
    q.srcArray = p->srcArray;
    q.srcPitch = p->srcPitch;
    q.dstXInBytes = p->dstXInBytes;
    q.dstY = p->dstY;
    q.dstMemoryType = p->dstMemoryType;
    q.dstHost = p->dstHost;
    q.dstDevice = p->dstDevice;
    q.dstArray = p->dstArray;
    q.dstPitch = p->dstPitch;
    q.WidthInBytes = p->WidthInBytes;
    q.Height = p->Height;
    q.Depth = 1;
    return copy3d(&q, hs, async);
}

#define NS CU_STREAM_LEGACY
CUresult CUDAAPI cuMemcpy2D(const CUDA_MEMCPY2D *pCopy) { LOCKED("cuMemcpy2D", copy2d(pCopy, NS, 0)); }
CUresult CUDAAPI cuMemcpy2DUnaligned(const CUDA_MEMCPY2D *pCopy)
{
    LOCKED("cuMemcpy2DUnaligned", copy2d(pCopy, NS, 0));
}
CUresult CUDAAPI cuMemcpy2DAsync(const CUDA_MEMCPY2D *pCopy, CUstream hStream)
{
    LOCKED("cuMemcpy2DAsync", copy2d(pCopy, hStream, 1));
}
CUresult CUDAAPI cuMemcpy3D(const CUDA_MEMCPY3D *pCopy) { LOCKED("cuMemcpy3D", copy3d(pCopy, NS, 0)); }
CUresult CUDAAPI cuMemcpy3DAsync(const CUDA_MEMCPY3D *pCopy, CUstream hStream)
{
    LOCKED("cuMemcpy3DAsync", copy3d(pCopy, hStream, 1));
}

/* The 1D array copies: a byte range of the array's first row. */
static CUresult copy_1d(int st, const void *sh, CUdeviceptr sd, CUarray sa, size_t soff, int dt, void *dh,
                        CUdeviceptr dd, CUarray da, size_t doff, size_t n, CUstream hs, int async)
{
    CUDA_MEMCPY3D q;
    memset(&q, 0, sizeof q);
    q.srcMemoryType = (CUmemorytype)st;
    q.srcHost = sh;
    q.srcDevice = sd;
    q.srcArray = sa;
    q.srcXInBytes = sa ? soff : 0;
    if (!sa && st == CU_MEMORYTYPE_DEVICE && sd) q.srcDevice = sd;
    q.dstMemoryType = (CUmemorytype)dt;
    q.dstHost = dh;
    q.dstDevice = dd;
    q.dstArray = da;
    q.dstXInBytes = da ? doff : 0;
    q.WidthInBytes = n;
    q.Height = 1;
    q.Depth = 1;
    return copy3d_x(&q, hs, async, 0);
}
#define H CU_MEMORYTYPE_HOST
#define D CU_MEMORYTYPE_DEVICE
#define A CU_MEMORYTYPE_ARRAY
CUresult CUDAAPI cuMemcpyHtoA(CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount)
{
    LOCKED("cuMemcpyHtoA", copy_1d(H, srcHost, 0, NULL, 0, A, NULL, 0, dstArray, dstOffset, ByteCount, NS, 0));
}
CUresult CUDAAPI cuMemcpyAtoH(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount)
{
    LOCKED("cuMemcpyAtoH", copy_1d(A, NULL, 0, srcArray, srcOffset, H, dstHost, 0, NULL, 0, ByteCount, NS, 0));
}
CUresult CUDAAPI cuMemcpyAtoD(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset, size_t ByteCount)
{
    LOCKED("cuMemcpyAtoD", copy_1d(A, NULL, 0, srcArray, srcOffset, D, NULL, dstDevice, NULL, 0, ByteCount, NS, 0));
}
CUresult CUDAAPI cuMemcpyDtoA(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice, size_t ByteCount)
{
    LOCKED("cuMemcpyDtoA", copy_1d(D, NULL, srcDevice, NULL, 0, A, NULL, 0, dstArray, dstOffset, ByteCount, NS, 0));
}
CUresult CUDAAPI cuMemcpyAtoA(CUarray dstArray, size_t dstOffset, CUarray srcArray, size_t srcOffset, size_t ByteCount)
{
    LOCKED("cuMemcpyAtoA",
           copy_1d(A, NULL, 0, srcArray, srcOffset, A, NULL, 0, dstArray, dstOffset, ByteCount, NS, 0));
}
CUresult CUDAAPI cuMemcpyHtoAAsync(CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount,
                                   CUstream hStream)
{
    LOCKED("cuMemcpyHtoAAsync",
           copy_1d(H, srcHost, 0, NULL, 0, A, NULL, 0, dstArray, dstOffset, ByteCount, hStream, 1));
}
CUresult CUDAAPI cuMemcpyAtoHAsync(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount,
                                   CUstream hStream)
{
    LOCKED("cuMemcpyAtoHAsync",
           copy_1d(A, NULL, 0, srcArray, srcOffset, H, dstHost, 0, NULL, 0, ByteCount, hStream, 1));
}

/* ------------------------------------------------------- the calls' other exports */

/* Per-thread default stream (_ptds/_ptsz): the context's NULL stream, as in cuda_compat.c. */
CUresult CUDAAPI cuMemcpyHtoA_v2_ptds(CUarray a, size_t o, const void *h, size_t n) { return cuMemcpyHtoA(a, o, h, n); }
CUresult CUDAAPI cuMemcpyAtoH_v2_ptds(void *h, CUarray a, size_t o, size_t n) { return cuMemcpyAtoH(h, a, o, n); }
CUresult CUDAAPI cuMemcpyAtoD_v2_ptds(CUdeviceptr d, CUarray a, size_t o, size_t n) { return cuMemcpyAtoD(d, a, o, n); }
CUresult CUDAAPI cuMemcpyDtoA_v2_ptds(CUarray a, size_t o, CUdeviceptr d, size_t n) { return cuMemcpyDtoA(a, o, d, n); }
CUresult CUDAAPI cuMemcpyAtoA_v2_ptds(CUarray da, size_t doff, CUarray sa, size_t soff, size_t n)
{
    return cuMemcpyAtoA(da, doff, sa, soff, n);
}
CUresult CUDAAPI cuMemcpyHtoAAsync_v2_ptsz(CUarray a, size_t o, const void *h, size_t n, CUstream s)
{
    return cuMemcpyHtoAAsync(a, o, h, n, s);
}
CUresult CUDAAPI cuMemcpyAtoHAsync_v2_ptsz(void *h, CUarray a, size_t o, size_t n, CUstream s)
{
    return cuMemcpyAtoHAsync(h, a, o, n, s);
}
CUresult CUDAAPI cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *p) { return cuMemcpy2D(p); }
CUresult CUDAAPI cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *p) { return cuMemcpy2DUnaligned(p); }
CUresult CUDAAPI cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *p) { return cuMemcpy3D(p); }
CUresult CUDAAPI cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *p, CUstream s) { return cuMemcpy2DAsync(p, s); }
CUresult CUDAAPI cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *p, CUstream s) { return cuMemcpy3DAsync(p, s); }

/* Names from before CUDA 3.2 (32-bit descriptor fields): no 11.x-13.x header references them
 * (exports.txt); they are exported with the current behaviour, as the other pre-3.2 names. */
#undef cuArrayCreate
#undef cuArrayGetDescriptor
#undef cuArray3DCreate
#undef cuArray3DGetDescriptor
#undef cuMemcpyHtoA
#undef cuMemcpyAtoH
#undef cuMemcpyAtoD
#undef cuMemcpyDtoA
#undef cuMemcpyAtoA
#undef cuMemcpyHtoAAsync
#undef cuMemcpyAtoHAsync
#undef cuMemcpy2D
#undef cuMemcpy2DUnaligned
#undef cuMemcpy2DAsync
#undef cuMemcpy3D
#undef cuMemcpy3DAsync
CUresult CUDAAPI cuArrayCreate(CUarray *p, const CUDA_ARRAY_DESCRIPTOR *d) { return cuArrayCreate_v2(p, d); }
CUresult CUDAAPI cuArrayGetDescriptor(CUDA_ARRAY_DESCRIPTOR *d, CUarray a) { return cuArrayGetDescriptor_v2(d, a); }
CUresult CUDAAPI cuArray3DCreate(CUarray *p, const CUDA_ARRAY3D_DESCRIPTOR *d) { return cuArray3DCreate_v2(p, d); }
CUresult CUDAAPI cuArray3DGetDescriptor(CUDA_ARRAY3D_DESCRIPTOR *d, CUarray a) { return cuArray3DGetDescriptor_v2(d, a); }
CUresult CUDAAPI cuMemcpyHtoA(CUarray a, size_t o, const void *h, size_t n) { return cuMemcpyHtoA_v2(a, o, h, n); }
CUresult CUDAAPI cuMemcpyAtoH(void *h, CUarray a, size_t o, size_t n) { return cuMemcpyAtoH_v2(h, a, o, n); }
CUresult CUDAAPI cuMemcpyAtoD(CUdeviceptr d, CUarray a, size_t o, size_t n) { return cuMemcpyAtoD_v2(d, a, o, n); }
CUresult CUDAAPI cuMemcpyDtoA(CUarray a, size_t o, CUdeviceptr d, size_t n) { return cuMemcpyDtoA_v2(a, o, d, n); }
CUresult CUDAAPI cuMemcpyAtoA(CUarray da, size_t doff, CUarray sa, size_t soff, size_t n)
{
    return cuMemcpyAtoA_v2(da, doff, sa, soff, n);
}
CUresult CUDAAPI cuMemcpyHtoAAsync(CUarray a, size_t o, const void *h, size_t n, CUstream s)
{
    return cuMemcpyHtoAAsync_v2(a, o, h, n, s);
}
CUresult CUDAAPI cuMemcpyAtoHAsync(void *h, CUarray a, size_t o, size_t n, CUstream s)
{
    return cuMemcpyAtoHAsync_v2(h, a, o, n, s);
}
CUresult CUDAAPI cuMemcpy2D(const CUDA_MEMCPY2D *p) { return cuMemcpy2D_v2(p); }
CUresult CUDAAPI cuMemcpy2DUnaligned(const CUDA_MEMCPY2D *p) { return cuMemcpy2DUnaligned_v2(p); }
CUresult CUDAAPI cuMemcpy2DAsync(const CUDA_MEMCPY2D *p, CUstream s) { return cuMemcpy2DAsync_v2(p, s); }
CUresult CUDAAPI cuMemcpy3D(const CUDA_MEMCPY3D *p) { return cuMemcpy3D_v2(p); }
CUresult CUDAAPI cuMemcpy3DAsync(const CUDA_MEMCPY3D *p, CUstream s) { return cuMemcpy3DAsync_v2(p, s); }
