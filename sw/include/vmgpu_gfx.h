/*
 * vmgpu_gfx.h -- "vgfx", vmgpu's small graphics API: buffers, images with mip levels, array
 * layers and cube faces, and the graphics engine's operations on them (clear, fill, scaled
 * blit, mipmap generation), a PNG capture and an export of a resource's memory.
 *
 * Where it lives and why: vgfx is implemented inside libcuda.so (link with -lcuda, as a CUDA
 * program does). On a real machine a graphics driver and CUDA share one GPU through one kernel
 * driver, so a GL buffer and the CUDA pointer it is mapped to are the same memory. vgfx and
 * CUDA likewise drive one and the same vmgpu device of the process: whichever of vgfxInit and
 * cuInit comes first opens it (VMGPU_DEVICE picks it, as for CUDA), the other uses it, and both
 * serialise on the same library lock. That is what makes CUDA interop (cudaVgfx.h) zero-copy:
 * a registered vgfx resource is mapped into CUDA's address space, never copied.
 *
 * Model (docs/graphics.md explains it for learners):
 * - vgfx has one driver-core context of its own (its own ASID, page tables and VA space, as a
 *   GL context has) and one stream on a hardware ring (the device's last ring). Every resource
 *   is one contiguous physical allocation mapped read/write into that context; the graphics
 *   engine reaches it through the MMU by virtual address, like every other engine.
 * - Engine operations (vgfxClearImage, vgfxFillRect, vgfxBlit, vgfxGenerateMipmaps) are queued
 *   and handed to the device at once; they run asynchronously. vgfxFinish waits for all of
 *   them; vgfxQuery asks without waiting. Host transfers (vgfxBufferWrite/Read,
 *   vgfxImageWrite/Read, vgfxCaptureImagePNG) wait for earlier engine work on their own.
 * - Pixels are 32-bit words. VGFX_FORMAT_RGBA8_UNORM: R in byte 0, G byte 1, B byte 2, A byte 3
 *   (VGFX_RGBA(r,g,b,a) builds one). VGFX_FORMAT_R32_UINT: one 32-bit integer per pixel.
 * - Image memory is pitch-linear, 4 bytes per pixel, rows tightly packed (row pitch = level
 *   width * 4). Layer by layer (a cube's faces are layers 0..5 in CUarray_cubemap_face order:
 *   +X, -X, +Y, -Y, +Z, -Z), and within a layer level 0 first, then level 1, ...; every level
 *   starts at a multiple of VGFX_SUBRESOURCE_ALIGN bytes and every layer too. Level l is
 *   max(1, width >> l) x max(1, height >> l). vgfxImageGetSubresourceLayout gives the numbers.
 *
 * Conventions: every call returns a vgfxStatus; every argument is checked first and a failing
 * call changes nothing. vgfxGetLastErrorMessage says why the last call failed. A resource that
 * CUDA has mapped (cuGraphicsMapResources) may not be used by vgfx until it is unmapped:
 * VGFX_ERROR_MAPPED_BY_CUDA. Thread-safe (one lock, shared with libcuda).
 */
#ifndef VMGPU_GFX_H
#define VMGPU_GFX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vgfxStatus {
    VGFX_SUCCESS = 0,
    VGFX_ERROR_INVALID_VALUE = 1,    /* a bad argument (NULL, size, rectangle, level, ...) */
    VGFX_ERROR_INVALID_HANDLE = 2,   /* not a live buffer/image of vgfx (destroyed, bogus) */
    VGFX_ERROR_OUT_OF_MEMORY = 3,    /* no device memory (or host memory) for it */
    VGFX_ERROR_DEVICE = 4,           /* no device, the device faulted or timed out */
    VGFX_ERROR_MAPPED_BY_CUDA = 5,   /* the resource is mapped by CUDA right now */
    VGFX_ERROR_NOT_INITIALIZED = 6,  /* vgfxInit has not been called (or vgfxShutdown was) */
    VGFX_ERROR_IN_USE = 7,           /* still registered with CUDA (destroy, shutdown) */
    VGFX_ERROR_NOT_SUPPORTED = 8,    /* valid but not for this format (e.g. mipmaps of R32_UINT),
                                        or vgfxInit on a device without the graphics engine */
    VGFX_ERROR_FILE = 9,             /* a file could not be written */
    VGFX_ERROR_NOT_READY = 10        /* vgfxQuery: engine work has not completed yet */
} vgfxStatus;

typedef enum vgfxFormat {
    VGFX_FORMAT_RGBA8_UNORM = 1,
    VGFX_FORMAT_R32_UINT = 2
} vgfxFormat;

/* A pixel of VGFX_FORMAT_RGBA8_UNORM as the 32-bit word the engine reads and writes. */
#define VGFX_RGBA(r, g, b, a) \
    ((uint32_t)(uint8_t)(r) | (uint32_t)(uint8_t)(g) << 8 | (uint32_t)(uint8_t)(b) << 16 | \
     (uint32_t)(uint8_t)(a) << 24)

/* Levels and layers start at multiples of this many bytes inside an image's memory. */
#define VGFX_SUBRESOURCE_ALIGN 256u
/* Largest width/height, mip levels (a full chain of the largest size), layers. */
#define VGFX_MAX_DIMENSION 8192u
#define VGFX_MAX_MIP_LEVELS 14u
#define VGFX_MAX_LAYERS 2048u
/* vgfxClearImage: every layer / every level. */
#define VGFX_ALL 0xffffffffu

typedef struct vgfxBuffer_st *vgfxBuffer;
typedef struct vgfxImage_st *vgfxImage;
/* Either kind of resource, where a call takes both (vgfxExportMemoryFd). */
typedef void *vgfxResource;

/* Image descriptor. mipLevels: 1 .. 1 + floor(log2(max(width, height))) (the full chain).
 * arrayLayers: >= 1; a cube (VGFX_IMAGE_CUBE) has width == height and exactly 6 layers. */
#define VGFX_IMAGE_CUBE 0x1u
typedef struct vgfxImageDesc {
    uint32_t width, height;
    vgfxFormat format;
    uint32_t mipLevels;
    uint32_t arrayLayers;
    uint32_t flags;          /* 0 or VGFX_IMAGE_CUBE */
} vgfxImageDesc;

/* Where one subresource (layer, level) lies in the image's memory. */
typedef struct vgfxSubresourceLayout {
    uint64_t offset;         /* bytes from the start of the image's memory */
    uint32_t width, height;  /* pixels */
    uint32_t rowPitch;       /* bytes from one row to the next (width * 4) */
    uint64_t size;           /* rowPitch * height */
} vgfxSubresourceLayout;

typedef struct vgfxImageInfo {
    vgfxImageDesc desc;
    uint64_t size;           /* bytes of the image's memory (all layers and levels) */
    uint64_t layerStride;    /* bytes from one layer to the next */
} vgfxImageInfo;

/* A pixel rectangle of one subresource. */
typedef struct vgfxRect {
    uint32_t x, y, width, height;
} vgfxRect;

const char *vgfxGetErrorString(vgfxStatus status);
/* Why the calling thread's last failing vgfx call failed ("" after a success). */
const char *vgfxGetLastErrorMessage(void);

/* Opens the process's vmgpu device if CUDA has not yet, creates vgfx's context and stream.
 * Counted: each vgfxInit needs a vgfxShutdown. */
vgfxStatus vgfxInit(void);
/* The last one destroys every remaining resource (VGFX_ERROR_IN_USE, nothing changed, while
 * CUDA still has one registered) and vgfx's context. The device stays open for CUDA. */
vgfxStatus vgfxShutdown(void);

/* size: 1 .. device memory; the contents start as zero. */
vgfxStatus vgfxCreateBuffer(vgfxBuffer *buffer, uint64_t size);
vgfxStatus vgfxDestroyBuffer(vgfxBuffer buffer);
vgfxStatus vgfxBufferGetSize(vgfxBuffer buffer, uint64_t *size);
vgfxStatus vgfxBufferWrite(vgfxBuffer buffer, uint64_t offset, const void *data, uint64_t bytes);
vgfxStatus vgfxBufferRead(vgfxBuffer buffer, uint64_t offset, void *data, uint64_t bytes);

/* The contents start as zero. */
vgfxStatus vgfxCreateImage(vgfxImage *image, const vgfxImageDesc *desc);
vgfxStatus vgfxDestroyImage(vgfxImage image);
vgfxStatus vgfxImageGetInfo(vgfxImage image, vgfxImageInfo *info);
vgfxStatus vgfxImageGetSubresourceLayout(vgfxImage image, uint32_t layer, uint32_t level,
                                         vgfxSubresourceLayout *layout);
/* One whole subresource from/to host memory, rows tightly packed (width * 4 bytes each). */
vgfxStatus vgfxImageWrite(vgfxImage image, uint32_t layer, uint32_t level, const void *pixels);
vgfxStatus vgfxImageRead(vgfxImage image, uint32_t layer, uint32_t level, void *pixels);

/* Engine operations (queued, asynchronous). layer/level VGFX_ALL: every one. */
vgfxStatus vgfxClearImage(vgfxImage image, uint32_t layer, uint32_t level, uint32_t color);
/* rect must lie inside the subresource and be nonempty. */
vgfxStatus vgfxFillRect(vgfxImage image, uint32_t layer, uint32_t level, const vgfxRect *rect,
                        uint32_t color);
/* Nearest-neighbour scaled copy: dst pixel (x, y) of dstRect takes source pixel
 * (x * srcW / dstW, y * srcH / dstH) of srcRect (rounded down). NULL rect: the whole
 * subresource. Same format on both sides; the two rectangles may not overlap in one
 * subresource. */
vgfxStatus vgfxBlit(vgfxImage src, uint32_t srcLayer, uint32_t srcLevel, const vgfxRect *srcRect,
                    vgfxImage dst, uint32_t dstLayer, uint32_t dstLevel, const vgfxRect *dstRect);
/* Levels 1 .. mipLevels-1 of the layer (VGFX_ALL: of every layer), each from the one above
 * with a 2x2 box filter per 8-bit channel, rounded ((sum + 2) >> 2), source coordinates
 * clamped at the last column/row. RGBA8 only (VGFX_ERROR_NOT_SUPPORTED for R32_UINT). */
vgfxStatus vgfxGenerateMipmaps(vgfxImage image, uint32_t layer);
/* Wait until every queued engine operation has completed. */
vgfxStatus vgfxFinish(void);
/* VGFX_SUCCESS when every engine operation has completed, VGFX_ERROR_NOT_READY when not yet
 * (does not wait, does not let the device run). */
vgfxStatus vgfxQuery(void);

/* Write one RGBA8 subresource as a PNG file (8-bit RGBA, non-interlaced). */
vgfxStatus vgfxCaptureImagePNG(vgfxImage image, uint32_t layer, uint32_t level, const char *path);

/* A file descriptor naming the resource's memory (a memfd; the caller owns and closes it) and
 * the size of that memory in bytes (the allocation: a multiple of 64 KiB). CUDA's external-memory
 * import (cuImportExternalMemory with an opaque fd) recognises it and maps the same memory, in
 * this process. The memory outlives vgfxDestroy* of its resource while an fd naming it is open
 * in the process or CUDA still maps it; vgfx frees it at a later call once neither holds. */
vgfxStatus vgfxExportMemoryFd(vgfxResource resource, int *fd, uint64_t *size);

#ifdef __cplusplus
}
#endif
#endif /* VMGPU_GFX_H */
