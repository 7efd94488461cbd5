/*
 * CUDA arrays inside libcuda (sw/cuda): the objects behind CUarray and CUmipmappedArray, and
 * the internal calls other parts of the library use to present memory the array code does not
 * own (graphics interop, external memory) as arrays.
 *
 * Layout (the driver's choice; applications never see it): pitch-linear. Row pitch = width in
 * bytes rounded up to VMGPU_ARRAY_PITCH_ALIGN; layers, cube faces (+X, -X, +Y, -Y, +Z, -Z, then
 * the next layer's six) and depth slices are stacked at a fixed slice stride (pitch x rows);
 * the levels of a mipmapped array follow each other in one allocation, each starting at a
 * multiple of VMGPU_ARRAY_PITCH_ALIGN. No tiling.
 *
 * Every function here must be called with the library lock held (from inside an entry point).
 */
#ifndef VMGPU_CUDA_ARRAY_H
#define VMGPU_CUDA_ARRAY_H

#include "cuda_internal.h"

#define ARRAY_MAGIC 0x41525221u
#define MIPMAP_MAGIC 0x4d495021u
/* Row pitch alignment of arrays the driver allocates: the DMA engine needs none, but a fixed
 * alignment keeps rows of every format on the same boundary, as texture hardware wants. */
#define VMGPU_ARRAY_PITCH_ALIGN 256u

enum { ARR_OWNED, ARR_LEVEL, ARR_VIEW };

/* Device memory an array (or a mipmapped array's levels) owns: mapped read-write everywhere. */
typedef struct cu_amem {
    cu_alloc *alloc;
    uint32_t va, size;
} cu_amem;

struct CUarray_st {
    uint32_t magic;
    int live;
    int kind;                      /* ARR_OWNED, ARR_LEVEL (of a mipmapped array), ARR_VIEW */
    CUDA_ARRAY3D_DESCRIPTOR desc;  /* as created: Height/Depth 0 for the missing dimensions */
    unsigned esize;                /* bytes per element (format size x channels) */
    uint32_t va;                   /* element (0, 0, layer 0) */
    uint32_t pitch;                /* bytes from one row to the next */
    uint32_t slice;                /* bytes from one layer/face/depth slice to the next */
    cu_amem mem;                   /* ARR_OWNED only */
    struct CUmipmappedArray_st *parent; /* ARR_LEVEL only */
    struct CUctx_st *ctx;          /* made in (NULL for views) */
    struct CUarray_st *next;       /* every array ever made (dead ones stay: stale handles) */
};

struct CUmipmappedArray_st {
    uint32_t magic;
    int live;
    int view;                      /* levels over memory owned elsewhere */
    int app_destroyable;           /* cuMipmappedArrayDestroy allowed (views: external memory) */
    CUDA_ARRAY3D_DESCRIPTOR desc;
    unsigned nlevels;
    struct CUarray_st **levels;
    cu_amem mem;                   /* owned memory (not for views) */
    void (*on_destroy)(void *);    /* views: called once when destroyed (e.g. unmap) */
    void *on_destroy_arg;
    struct CUctx_st *ctx;
    struct CUmipmappedArray_st *next;
};

/* Bytes per element of format x channels; 0 when the pair is not valid. *supported (may be
 * NULL) is 0 for valid formats vmgpu does not implement (block-compressed, YUV). */
unsigned cu_array_elem_size(CUarray_format f, unsigned channels, int *supported);

/* Check a 3D descriptor as cuArray3DCreate does (shape, flags, format, limits). */
CUresult cu_array_check_desc(const CUDA_ARRAY3D_DESCRIPTOR *d);

/* Extent of mip level `level` of d: width, rows (>= 1) and slices (layers/faces/depth, >= 1). */
void cu_array_level_extent(const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned level, size_t *w, size_t *h,
                           size_t *n);
/* Pitch and total bytes the driver's own layout gives level extent (w, h, n) of d. */
uint64_t cu_array_layout(const CUDA_ARRAY3D_DESCRIPTOR *d, size_t w, size_t h, size_t n, uint32_t *pitch);

/*
 * An array over memory the caller owns, already mapped in the process-wide VA space: element
 * (x, y, layer z) is at va + z * layer_stride + y * pitch + x * esize. The view does not keep
 * the memory alive; the caller retires it with cu_array_view_destroy before the memory goes.
 * cuArrayDestroy of a view answers CUDA_SUCCESS, as NVIDIA's does for an array from
 * cuGraphicsSubResourceGetMappedArray (measured), but leaves it alone: the view belongs to the
 * mapping it came from and stays valid until the owner's cu_array_view_destroy.
 */
CUresult cu_array_view_create(const CUDA_ARRAY3D_DESCRIPTOR *d, CUdeviceptr va, size_t pitch,
                              size_t layer_stride, CUarray *out);
void cu_array_view_destroy(CUarray a);

/*
 * A mipmapped array over caller-owned memory: level i at va[i] with pitch[i] and
 * layer_stride[i]. app_destroyable: cuMipmappedArrayDestroy may destroy it (external memory,
 * whose mipmapped arrays the application frees) and then calls on_destroy(arg) (may be NULL);
 * otherwise that call answers CUDA_ERROR_ARRAY_IS_MAPPED and the owner calls
 * cu_mipmapped_view_destroy.
 */
CUresult cu_mipmapped_view_create(const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned levels, const CUdeviceptr *va,
                                  const size_t *pitch, const size_t *layer_stride, int app_destroyable,
                                  void (*on_destroy)(void *), void *arg, CUmipmappedArray *out);
void cu_mipmapped_view_destroy(CUmipmappedArray m);

/* Live array / mipmapped array behind a handle, or NULL (bogus, destroyed). */
struct CUarray_st *cu_array_lookup(CUarray h);
struct CUmipmappedArray_st *cu_mipmapped_lookup(CUmipmappedArray h);

#endif
