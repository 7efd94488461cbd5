/*
 * cudaVgfx.h -- CUDA interop with vmgpu's graphics API (vmgpu_gfx.h), in the manner of
 * NVIDIA's cudaGL.h: a vgfx buffer or image is registered once, then mapped and unmapped
 * around the CUDA work that uses it with the generic calls of cuda.h
 * (cuGraphicsMapResources, cuGraphicsResourceGetMappedPointer for buffers,
 * cuGraphicsSubResourceGetMappedArray / cuGraphicsResourceGetMappedMipmappedArray for images,
 * cuGraphicsUnmapResources, cuGraphicsUnregisterResource).
 *
 * Zero copy: vgfx and CUDA drive the same device (both live in libcuda.so), and mapping puts
 * the resource's own memory into CUDA's address space.
 *
 * Flags (CUgraphicsRegisterFlags): NONE; READ_ONLY (CUDA only reads: mapped read-only in the
 * page tables, a CUDA write faults); WRITE_DISCARD (CUDA will overwrite everything: a hint);
 * SURFACE_LDST and TEXTURE_GATHER (images only: carried into the arrays' CUDA_ARRAY3D_*
 * flags). READ_ONLY with WRITE_DISCARD, unknown bits, or an image-only flag on a buffer:
 * CUDA_ERROR_INVALID_VALUE. A resource may be registered more than once; each registration
 * is its own CUgraphicsResource, mapped and unmapped on its own. While any registration
 * exists, vgfxDestroy* of the resource answers VGFX_ERROR_IN_USE; while one is mapped, every
 * vgfx use of it answers VGFX_ERROR_MAPPED_BY_CUDA.
 *
 * Needs a current CUDA context (CUDA_ERROR_INVALID_CONTEXT otherwise); a handle that is not a
 * live vgfx buffer/image of the right kind: CUDA_ERROR_INVALID_HANDLE.
 */
#ifndef VMGPU_CUDA_VGFX_H
#define VMGPU_CUDA_VGFX_H

#include "cuda.h"
#include "vmgpu_gfx.h"

#ifdef __cplusplus
extern "C" {
#endif

CUresult CUDAAPI cuGraphicsVgfxRegisterBuffer(CUgraphicsResource *pCudaResource, vgfxBuffer buffer,
                                              unsigned int Flags);
CUresult CUDAAPI cuGraphicsVgfxRegisterImage(CUgraphicsResource *pCudaResource, vgfxImage image,
                                             unsigned int Flags);

#ifdef __cplusplus
}
#endif
#endif /* VMGPU_CUDA_VGFX_H */
