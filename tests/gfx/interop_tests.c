/*
 * CUDA graphics interop with vgfx (cudaVgfx.h) on the simulated device: every error of the
 * cuGraphics* seed page, data written by CUDA kernels and copies and read back by vgfx (and the
 * other way), the ordering promises of map/unmap kept by fences between rings with no host
 * wait in between, and vgfx refusing a resource while CUDA has it mapped.
 *
 * Usage: vmgpu_gfx_interop_tests CASE   (CASE: errors, data, images, ordering, fault, threads)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#include "cudaVgfx.h"
#include "vmgpu_builtin.h"
#include "../cuda/cu_check.h"

#define GOK(call) do { checks++; vgfxStatus st_ = (call); if (st_ != VGFX_SUCCESS) { \
    printf("  FAIL %s:%d: %s -> %s (%s)\n", __FILE__, __LINE__, #call, vgfxGetErrorString(st_), \
           vgfxGetLastErrorMessage()); fails++; } } while (0)
#define GEXPECT(call, want) do { checks++; vgfxStatus st_ = (call); if (st_ != (want)) { \
    printf("  FAIL %s:%d: %s -> %s, want %s\n", __FILE__, __LINE__, #call, vgfxGetErrorString(st_), \
           vgfxGetErrorString(want)); fails++; } } while (0)

static CUcontext g_ctx;
static CUmodule g_mod;

static void setup(void)
{
    CUdevice dev;
    MUST(cuInit(0));
    MUST(cuDeviceGet(&dev, 0));
    MUST(cuCtxCreate(&g_ctx, NULL, 0, dev));
    MUST(cuModuleLoadData(&g_mod, VMGPU_BUILTIN_IMAGE));
}

/* A built-in kernel over n words. */
static CUresult launch(const char *name, CUdeviceptr dst, CUdeviceptr a, int n, int scalar, CUstream s)
{
    CUfunction f;
    CUresult rc = cuModuleGetFunction(&f, g_mod, name);
    if (rc) return rc;
    CUdeviceptr b = 0;
    void *params[5] = {&dst, &a, &b, &n, &scalar};
    unsigned blocks = (unsigned)((n + 255) / 256);
    return cuLaunchKernel(f, blocks ? blocks : 1, 1, 1, 256, 1, 1, 0, s, params, NULL);
}

/* tests/gfx/probe/gl_interop_probe.c's cases in its order, on vgfx objects of the same shape (a
 * 64 KiB buffer, a 256x256 RGBA8 image with 9 levels), so docs/graphics.md's table puts each
 * answer of nvidia_gl_interop_h100_580.159.04.txt next to one checked here. Where NVIDIA died
 * (SIGSEGV), vmgpu's answer is checked together with what it left behind. Needs vgfx and a
 * current context; leaves no resource behind. */
static void probe_cases(void)
{
    NOTE("the GL probe's cases in its order (NVIDIA's answers: nvidia_gl_interop_h100_580.159.04.txt)");
    vgfxBuffer buf;
    vgfxImage tex;
    vgfxImageDesc d = {256, 256, VGFX_FORMAT_RGBA8_UNORM, 9, 1, 0};
    GOK(vgfxCreateBuffer(&buf, 65536));
    GOK(vgfxCreateImage(&tex, &d));
    uint32_t pattern[4] = {0x01020304, 0x05060708, 0x090a0b0c, 0x0d0e0f10};
    GOK(vgfxBufferWrite(buf, 0, pattern, sizeof pattern));
    CUgraphicsResource r1 = NULL, r2 = NULL, rt = NULL;
    CUdeviceptr p = 0;
    size_t sz = 0;
    CUarray a = NULL;
    CUmipmappedArray m = NULL;
    OK(cuGraphicsVgfxRegisterBuffer(&r1, buf, 0));
    OK(cuGraphicsVgfxRegisterBuffer(&r2, buf, 0));
    OK(cuGraphicsVgfxRegisterImage(&rt, tex, CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST));
    EXPECT(cuGraphicsUnmapResources(1, &r1, 0), CUDA_ERROR_NOT_MAPPED);      /* unmap unmapped buffer */
    OK(cuGraphicsMapResources(1, &r1, 0));
    EXPECT(cuGraphicsSubResourceGetMappedArray(&a, r1, 0, 0), CUDA_ERROR_NOT_MAPPED_AS_ARRAY);
    EXPECT(cuGraphicsResourceGetMappedMipmappedArray(&m, r1), CUDA_ERROR_NOT_MAPPED_AS_ARRAY);
    EXPECT(cuGraphicsResourceSetMapFlags(r1, CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY), CUDA_ERROR_ALREADY_MAPPED);
    OK(cuGraphicsUnmapResources(1, &r1, 0));
    OK(cuGraphicsResourceSetMapFlags(r1, CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY));
    OK(cuGraphicsMapResources(1, &r1, 0));
    OK(cuGraphicsResourceGetMappedPointer(&p, &sz, r1));
    CHECK(sz == 65536);
    /* The one deviation: NVIDIA lets the memset write (its "READ_ONLY memset visible: yes");
     * vmgpu refuses it, and the bytes and the context stay as they were. */
    EXPECT(cuMemsetD32(p, 0x5a5a5a5a, 4), CUDA_ERROR_INVALID_VALUE);
    OK(cuCtxSynchronize());
    uint32_t back[4] = {0};
    OK(cuMemcpyDtoH(back, p, sizeof back));
    CHECK(memcmp(back, pattern, sizeof back) == 0);
    /* The refused unregister leaves it mapped, with the same pointer. */
    EXPECT(cuGraphicsUnregisterResource(r1), CUDA_ERROR_ALREADY_MAPPED);
    CUdeviceptr p_after = 0;
    OK(cuGraphicsResourceGetMappedPointer(&p_after, &sz, r1));
    CHECK(p_after == p);
    EXPECT(cuGraphicsMapResources(1, &r1, 0), CUDA_ERROR_ALREADY_MAPPED);
    OK(cuGraphicsUnmapResources(1, &r1, 0));
    OK(cuGraphicsUnregisterResource(r2));
    /* NVIDIA: SIGSEGV. vmgpu: the registration refused before is an ordinary unmapped one. */
    OK(cuGraphicsUnregisterResource(r1));
    GOK(vgfxDestroyBuffer(buf));  /* IN_USE if either registration were left */

    OK(cuGraphicsMapResources(1, &rt, 0));
    EXPECT(cuGraphicsResourceGetMappedPointer(&p, &sz, rt), CUDA_ERROR_NOT_MAPPED_AS_POINTER);
    OK(cuGraphicsSubResourceGetMappedArray(&a, rt, 0, 8));
    EXPECT(cuGraphicsSubResourceGetMappedArray(&a, rt, 0, 9), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphicsSubResourceGetMappedArray(&a, rt, 1, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphicsSubResourceGetMappedArray(NULL, rt, 0, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphicsResourceGetMappedMipmappedArray(NULL, rt), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphicsSubResourceGetMappedArray(&a, rt, 0, 0));
    CUDA_ARRAY3D_DESCRIPTOR ad;
    memset(&ad, 0xff, sizeof ad);
    OK(cuArray3DGetDescriptor(&ad, a));
    CHECK(ad.Width == 256 && ad.Height == 256 && ad.Depth == 0 && ad.Format == CU_AD_FORMAT_UNSIGNED_INT8 &&
          ad.NumChannels == 4 && ad.Flags == CUDA_ARRAY3D_SURFACE_LDST);
    CUarray a2 = NULL;
    OK(cuGraphicsSubResourceGetMappedArray(&a2, rt, 0, 0));
    CHECK(a2 == a);
    OK(cuGraphicsResourceGetMappedMipmappedArray(&m, rt));
    OK(cuGraphicsUnmapResources(1, &rt, 0));
    EXPECT(cuGraphicsUnmapResources(1, &rt, 0), CUDA_ERROR_NOT_MAPPED);
    OK(cuGraphicsUnregisterResource(rt));
    /* NVIDIA: SIGSEGV. vmgpu looks the handle up and finds no live registration. */
    EXPECT(cuGraphicsUnregisterResource(rt), CUDA_ERROR_INVALID_HANDLE);

    CUgraphicsResource rd = NULL;
    OK(cuGraphicsVgfxRegisterImage(&rd, tex, 0));
    OK(cuGraphicsMapResources(1, &rd, 0));
    OK(cuGraphicsSubResourceGetMappedArray(&a, rd, 0, 0));
    OK(cuArrayDestroy(a));
    CUarray a3 = NULL;
    OK(cuGraphicsSubResourceGetMappedArray(&a3, rd, 0, 0));
    CHECK(a3 == a);
    OK(cuGraphicsUnmapResources(1, &rd, 0));
    /* NVIDIA: SIGSEGV. vmgpu never freed the view, so the unregister is an ordinary one. */
    OK(cuGraphicsUnregisterResource(rd));
    GOK(vgfxDestroyImage(tex));  /* IN_USE if a registration were left */
}

static void case_errors(void)
{
    NOTE("every cuGraphics* error of the seed page; vgfx works before cuInit");
    GOK(vgfxInit());
    vgfxBuffer buf;
    vgfxImage img;
    vgfxImageDesc d = {16, 8, VGFX_FORMAT_RGBA8_UNORM, 3, 2, 0};
    GOK(vgfxCreateBuffer(&buf, 8192));
    GOK(vgfxCreateImage(&img, &d));
    CUgraphicsResource r = NULL, r2 = NULL, ri = NULL;
    EXPECT(cuGraphicsVgfxRegisterBuffer(&r, buf, 0), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuGraphicsUnregisterResource(r), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuGraphicsMapResources(1, &r, 0), CUDA_ERROR_NOT_INITIALIZED);
    MUST(cuInit(0));
    EXPECT(cuGraphicsVgfxRegisterBuffer(&r, buf, 0), CUDA_ERROR_INVALID_CONTEXT);
    setup();
    /* Registration. */
    EXPECT(cuGraphicsVgfxRegisterBuffer(NULL, buf, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphicsVgfxRegisterBuffer(&r, buf, 0x10), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphicsVgfxRegisterBuffer(&r, buf, CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY |
                                        CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphicsVgfxRegisterBuffer(&r, buf, CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphicsVgfxRegisterImage(&r, img, 0x100), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphicsVgfxRegisterBuffer(&r, (vgfxBuffer)(void *)img, 0), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuGraphicsVgfxRegisterImage(&r, (vgfxImage)(void *)buf, 0), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuGraphicsVgfxRegisterBuffer(&r, (vgfxBuffer)(uintptr_t)0x5000, 0), CUDA_ERROR_INVALID_HANDLE);
    CHECK(r == NULL);
    OK(cuGraphicsVgfxRegisterBuffer(&r, buf, 0));
    OK(cuGraphicsVgfxRegisterBuffer(&r2, buf, 0));  /* twice: a second, separate registration */
    CHECK(r && r2 && r != r2);
    OK(cuGraphicsVgfxRegisterImage(&ri, img, CU_GRAPHICS_REGISTER_FLAGS_SURFACE_LDST));
    /* Not mapped yet. */
    CUdeviceptr p = 0;
    size_t sz = 0;
    CUarray arr = NULL;
    CUmipmappedArray mip = NULL;
    EXPECT(cuGraphicsResourceGetMappedPointer(&p, &sz, r), CUDA_ERROR_NOT_MAPPED);
    EXPECT(cuGraphicsSubResourceGetMappedArray(&arr, ri, 0, 0), CUDA_ERROR_NOT_MAPPED);
    EXPECT(cuGraphicsResourceGetMappedMipmappedArray(&mip, ri), CUDA_ERROR_NOT_MAPPED);
    EXPECT(cuGraphicsUnmapResources(1, &r, 0), CUDA_ERROR_NOT_MAPPED);
    EXPECT(cuGraphicsResourceGetMappedPointer(&p, &sz, ri), CUDA_ERROR_NOT_MAPPED);  /* before "as pointer" */
    EXPECT(cuGraphicsSubResourceGetMappedArray(&arr, ri, 5, 0), CUDA_ERROR_NOT_MAPPED);  /* before the index */
    /* A NULL output is accepted (NVIDIA, measured through OpenGL), so not being mapped is the error. */
    EXPECT(cuGraphicsResourceGetMappedPointer(&p, NULL, r), CUDA_ERROR_NOT_MAPPED);
    EXPECT(cuGraphicsVgfxRegisterBuffer(&r2, buf, CU_GRAPHICS_REGISTER_FLAGS_TEXTURE_GATHER), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphicsMapResources(0, &r, 0), CUDA_ERROR_INVALID_VALUE);  /* an empty list (NVIDIA, measured) */
    EXPECT(cuGraphicsUnmapResources(0, &r, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphicsResourceGetMappedPointer(&p, &sz, r), CUDA_ERROR_NOT_MAPPED);
    /* Both registrations of one buffer in one call: two mappings of the same memory. */
    CUgraphicsResource pair[2] = {r, r2};
    OK(cuGraphicsMapResources(2, pair, 0));
    CUdeviceptr p1 = 0, p2 = 0;
    OK(cuGraphicsResourceGetMappedPointer(&p1, &sz, r));
    OK(cuGraphicsResourceGetMappedPointer(&p2, &sz, r2));
    CHECK(p1 && p2 && p1 != p2);
    OK(cuMemsetD32(p1, 0x61626364, 1));
    uint32_t seen = 0;
    OK(cuMemcpyDtoH(&seen, p2, 4));
    CHECK(seen == 0x61626364u);
    OK(cuGraphicsUnmapResources(2, pair, 0));
    seen = 0;
    GOK(vgfxBufferRead(buf, 0, &seen, 4));
    CHECK(seen == 0x61626364u);
    /* Map flags. */
    EXPECT(cuGraphicsResourceSetMapFlags(r, 3), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphicsResourceSetMapFlags(NULL, 0), CUDA_ERROR_INVALID_HANDLE);
    OK(cuGraphicsResourceSetMapFlags(r, CU_GRAPHICS_MAP_RESOURCE_FLAGS_WRITE_DISCARD));
    OK(cuGraphicsResourceSetMapFlags(r, CU_GRAPHICS_MAP_RESOURCE_FLAGS_NONE));
    /* Map lists: duplicates, bad handles, a bad stream: nothing gets mapped. */
    CUgraphicsResource dup[2] = {r, r}, bogus[2] = {r, (CUgraphicsResource)(uintptr_t)0x77};
    EXPECT(cuGraphicsMapResources(2, dup, 0), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuGraphicsMapResources(2, bogus, 0), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuGraphicsMapResources(1, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphicsMapResources(1, &r, (CUstream)(uintptr_t)0x99), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuGraphicsResourceGetMappedPointer(&p, &sz, r), CUDA_ERROR_NOT_MAPPED);
    GOK(vgfxBufferWrite(buf, 0, "abcd", 4));  /* still vgfx's */
    /* Mapped. */
    CUgraphicsResource both[2] = {r, ri};
    OK(cuGraphicsMapResources(2, both, 0));
    EXPECT(cuGraphicsMapResources(1, &r, 0), CUDA_ERROR_ALREADY_MAPPED);
    CUgraphicsResource part[2] = {r2, r};  /* r2 is free, r is not: neither changes */
    EXPECT(cuGraphicsMapResources(2, part, 0), CUDA_ERROR_ALREADY_MAPPED);
    EXPECT(cuGraphicsResourceGetMappedPointer(&p, &sz, r2), CUDA_ERROR_NOT_MAPPED);
    EXPECT(cuGraphicsResourceSetMapFlags(r, CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY), CUDA_ERROR_ALREADY_MAPPED);
    EXPECT(cuGraphicsResourceSetMapFlags(r, 7), CUDA_ERROR_INVALID_VALUE);
    /* NULL outputs: the other one is still written (NVIDIA: SUCCESS for each, measured). */
    sz = 0;
    OK(cuGraphicsResourceGetMappedPointer(NULL, &sz, r));
    CHECK(sz == 8192);
    p = 0;
    OK(cuGraphicsResourceGetMappedPointer(&p, NULL, r));
    CHECK(p != 0);
    OK(cuGraphicsResourceGetMappedPointer(NULL, NULL, r));
    CUdeviceptr p_first = p;
    OK(cuGraphicsResourceGetMappedPointer(&p, &sz, r));
    CHECK(p == p_first && sz == 8192);
    EXPECT(cuGraphicsResourceGetMappedPointer(&p, &sz, ri), CUDA_ERROR_NOT_MAPPED_AS_POINTER);
    EXPECT(cuGraphicsSubResourceGetMappedArray(&arr, r, 0, 0), CUDA_ERROR_NOT_MAPPED_AS_ARRAY);
    EXPECT(cuGraphicsResourceGetMappedMipmappedArray(&mip, r), CUDA_ERROR_NOT_MAPPED_AS_ARRAY);
    EXPECT(cuGraphicsSubResourceGetMappedArray(&arr, ri, 2, 0), CUDA_ERROR_INVALID_VALUE);  /* 2 layers */
    EXPECT(cuGraphicsSubResourceGetMappedArray(&arr, ri, 0, 3), CUDA_ERROR_INVALID_VALUE);  /* 3 levels */
    EXPECT(cuGraphicsSubResourceGetMappedArray(NULL, ri, 0, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuGraphicsResourceGetMappedMipmappedArray(NULL, ri), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphicsSubResourceGetMappedArray(&arr, ri, 1, 2));
    CUDA_ARRAY3D_DESCRIPTOR ad;
    OK(cuArray3DGetDescriptor(&ad, arr));
    CHECK(ad.Width == 4 && ad.Height == 2 && ad.Depth == 0 && ad.Format == CU_AD_FORMAT_UNSIGNED_INT8 &&
          ad.NumChannels == 4 && (ad.Flags & CUDA_ARRAY3D_SURFACE_LDST));
    /* NVIDIA answers SUCCESS (measured; its next unregister crashed). The view belongs to the
     * mapping, so it is left alone: still usable, and handed out again. */
    OK(cuArrayDestroy(arr));
    OK(cuArray3DGetDescriptor(&ad, arr));
    CHECK(ad.Width == 4 && ad.Height == 2);
    CUarray arr_again = NULL;
    OK(cuGraphicsSubResourceGetMappedArray(&arr_again, ri, 1, 2));
    CHECK(arr_again == arr);
    OK(cuGraphicsResourceGetMappedMipmappedArray(&mip, ri));
    CUarray lvl;
    OK(cuMipmappedArrayGetLevel(&lvl, mip, 1));
    OK(cuArray3DGetDescriptor(&ad, lvl));
    CHECK(ad.Width == 8 && ad.Height == 4 && ad.Depth == 2 && (ad.Flags & CUDA_ARRAY3D_LAYERED));
    /* vgfx keeps its hands off while CUDA has them. */
    uint32_t w = 0;
    GEXPECT(vgfxBufferWrite(buf, 0, &w, 4), VGFX_ERROR_MAPPED_BY_CUDA);
    CHECK(strstr(vgfxGetLastErrorMessage(), "mapped by CUDA") != NULL);
    GEXPECT(vgfxBufferRead(buf, 0, &w, 4), VGFX_ERROR_MAPPED_BY_CUDA);
    GEXPECT(vgfxClearImage(img, VGFX_ALL, VGFX_ALL, 0), VGFX_ERROR_MAPPED_BY_CUDA);
    vgfxRect rc1 = {0, 0, 1, 1};
    GEXPECT(vgfxFillRect(img, 0, 0, &rc1, 0), VGFX_ERROR_MAPPED_BY_CUDA);
    GEXPECT(vgfxGenerateMipmaps(img, 0), VGFX_ERROR_MAPPED_BY_CUDA);
    GEXPECT(vgfxBlit(img, 0, 0, NULL, img, 1, 0, NULL), VGFX_ERROR_MAPPED_BY_CUDA);
    GEXPECT(vgfxImageRead(img, 0, 0, &w), VGFX_ERROR_MAPPED_BY_CUDA);
    GEXPECT(vgfxCaptureImagePNG(img, 0, 0, "/tmp/never.png"), VGFX_ERROR_MAPPED_BY_CUDA);
    GEXPECT(vgfxDestroyBuffer(buf), VGFX_ERROR_MAPPED_BY_CUDA);
    /* Unmap lists. */
    EXPECT(cuGraphicsUnmapResources(2, dup, 0), CUDA_ERROR_INVALID_HANDLE);
    CUgraphicsResource half[2] = {r, r2};
    EXPECT(cuGraphicsUnmapResources(2, half, 0), CUDA_ERROR_NOT_MAPPED);
    OK(cuGraphicsResourceGetMappedPointer(&p, &sz, r));  /* still mapped after the refusals */
    OK(cuGraphicsUnmapResources(1, &r, 0));
    EXPECT(cuGraphicsUnmapResources(1, &r, 0), CUDA_ERROR_NOT_MAPPED);
    EXPECT(cuGraphicsResourceGetMappedPointer(&p, &sz, r), CUDA_ERROR_NOT_MAPPED);
    GOK(vgfxBufferRead(buf, 0, &w, 4));
    CHECK(memcmp(&w, "abcd", 4) == 0);
    /* Registered but unmapped: vgfx works, but may not destroy it. */
    GEXPECT(vgfxDestroyBuffer(buf), VGFX_ERROR_IN_USE);
    GEXPECT(vgfxShutdown(), VGFX_ERROR_IN_USE);
    /* Unregistering a mapped resource is refused (NVIDIA, measured through OpenGL); it stays
     * registered and mapped, vgfx still keeps off. */
    EXPECT(cuGraphicsUnregisterResource(ri), CUDA_ERROR_ALREADY_MAPPED);
    OK(cuGraphicsSubResourceGetMappedArray(&arr, ri, 1, 2));
    CHECK(arr == arr_again);
    GEXPECT(vgfxClearImage(img, VGFX_ALL, VGFX_ALL, 5), VGFX_ERROR_MAPPED_BY_CUDA);
    EXPECT(cuGraphicsMapResources(1, &ri, 0), CUDA_ERROR_ALREADY_MAPPED);
    OK(cuGraphicsUnmapResources(1, &ri, 0));
    OK(cuGraphicsUnregisterResource(ri));
    GOK(vgfxClearImage(img, VGFX_ALL, VGFX_ALL, 5));
    EXPECT(cuGraphicsUnregisterResource(ri), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuGraphicsMapResources(1, &ri, 0), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuGraphicsSubResourceGetMappedArray(&arr, ri, 0, 0), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuGraphicsUnregisterResource(NULL), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuGraphicsUnregisterResource((CUgraphicsResource)(uintptr_t)0x1234), CUDA_ERROR_INVALID_HANDLE);
    OK(cuGraphicsUnregisterResource(r));
    GEXPECT(vgfxDestroyBuffer(buf), VGFX_ERROR_IN_USE);  /* r2 still registered */
    OK(cuGraphicsUnregisterResource(r2));
    GOK(vgfxDestroyBuffer(buf));
    GOK(vgfxDestroyImage(img));
    probe_cases();
    /* Without a current context. */
    CUcontext popped;
    OK(cuCtxPopCurrent(&popped));
    GOK(vgfxCreateBuffer(&buf, 64));
    EXPECT(cuGraphicsVgfxRegisterBuffer(&r, buf, 0), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuGraphicsMapResources(0, NULL, 0), CUDA_ERROR_INVALID_VALUE);  /* arguments before the context */
    EXPECT(cuGraphicsResourceGetMappedPointer(&p, &sz, NULL), CUDA_ERROR_INVALID_HANDLE);
    OK(cuCtxPushCurrent(popped));
    GOK(vgfxShutdown());
}

static void case_data(void)
{
    NOTE("buffer: vgfx writes, CUDA reads and writes with built-in kernels, vgfx reads back");
    setup();
    GOK(vgfxInit());
    enum { N = 20000 };
    vgfxBuffer buf;
    GOK(vgfxCreateBuffer(&buf, N * 4));
    int32_t *h = malloc(N * 4), *got = malloc(N * 4);
    for (int i = 0; i < N; i++) h[i] = i * 3 - 7;
    GOK(vgfxBufferWrite(buf, 0, h, N * 4));
    CUgraphicsResource r;
    OK(cuGraphicsVgfxRegisterBuffer(&r, buf, CU_GRAPHICS_REGISTER_FLAGS_NONE));
    CUstream s;
    OK(cuStreamCreate(&s, 0));
    OK(cuGraphicsMapResources(1, &r, s));
    CUdeviceptr p;
    size_t sz;
    OK(cuGraphicsResourceGetMappedPointer(&p, &sz, r));
    CHECK(sz == N * 4);
    OK(cuMemcpyDtoH(got, p, N * 4));
    CHECK(memcmp(got, h, N * 4) == 0);
    /* In place: x = 5 * x on the first half, a fill on the second. */
    OK(launch(VMGPU_BUILTIN_SCALE_I32, p, p, N / 2, 5, s));
    OK(launch(VMGPU_BUILTIN_FILL_I32, p + N / 2 * 4, 0, N / 2, 0x1234567, s));
    for (int i = 0; i < N / 2; i++) h[i] *= 5;
    for (int i = N / 2; i < N; i++) h[i] = 0x1234567;
    OK(cuGraphicsUnmapResources(1, &r, s));
    GOK(vgfxBufferRead(buf, 0, got, N * 4));  /* no cuStreamSynchronize: the unmap orders it */
    int bad = 0;
    for (int i = 0; i < N; i++) bad += got[i] != h[i];
    CHECK(bad == 0);
    NOTE("%d of %d words as the kernels wrote them, read by vgfx after the unmap", N - bad, N);
    /* The pointer stays the same from map to map; a READ_ONLY map refuses CUDA copies into it. */
    OK(cuGraphicsResourceSetMapFlags(r, CU_GRAPHICS_MAP_RESOURCE_FLAGS_READ_ONLY));
    OK(cuGraphicsMapResources(1, &r, s));
    CUdeviceptr p2;
    OK(cuGraphicsResourceGetMappedPointer(&p2, &sz, r));
    CHECK(p2 == p);
    EXPECT(cuMemsetD32(p2, 0, 4), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemcpyDtoH(got, p2, 16));
    CHECK(memcmp(got, h, 16) == 0);
    OK(cuGraphicsUnmapResources(1, &r, s));
    OK(cuGraphicsUnregisterResource(r));
    /* Registered READ_ONLY: the same even with map flags NONE. */
    OK(cuGraphicsVgfxRegisterBuffer(&r, buf, CU_GRAPHICS_REGISTER_FLAGS_READ_ONLY));
    OK(cuGraphicsMapResources(1, &r, 0));
    OK(cuGraphicsResourceGetMappedPointer(&p2, &sz, r));
    EXPECT(cuMemsetD32(p2, 0, 4), CUDA_ERROR_INVALID_VALUE);
    OK(cuGraphicsUnmapResources(1, &r, 0));
    OK(cuGraphicsUnregisterResource(r));
    /* Exported memory: a memfd naming the buffer's allocation ... */
    int fd;
    uint64_t esz;
    GOK(vgfxExportMemoryFd(buf, &fd, &esz));
    CHECK(fd >= 0 && esz >= N * 4);
    /* ... and CUDA's external-memory import maps those bytes (the driver owns the fd then). */
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC ed;
    memset(&ed, 0, sizeof ed);
    ed.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
    ed.handle.fd = fd;
    ed.size = esz;
    CUexternalMemory em = NULL;
    if (cuImportExternalMemory(&em, &ed) == CUDA_SUCCESS) {
        checks++;
        CUDA_EXTERNAL_MEMORY_BUFFER_DESC bd;
        memset(&bd, 0, sizeof bd);
        bd.size = N * 4;
        CUdeviceptr ep = 0;
        OK(cuExternalMemoryGetMappedBuffer(&ep, em, &bd));
        memset(got, 0, N * 4);
        OK(cuMemcpyDtoH(got, ep, N * 4));
        CHECK(memcmp(got, h, N * 4) == 0);
        /* vgfx destroys the buffer while CUDA maps its memory: the memory stays. */
        int fd2 = -1;
        GOK(vgfxExportMemoryFd(buf, &fd2, &esz));
        GOK(vgfxDestroyBuffer(buf));
        memset(got, 0, N * 4);
        OK(cuMemcpyDtoH(got, ep, N * 4));
        CHECK(memcmp(got, h, N * 4) == 0);
        OK(cuMemFree(ep));
        OK(cuDestroyExternalMemory(em));
        /* An fd still open names it too: imported again after its resource is gone. */
        ed.handle.fd = fd2;
        em = NULL;
        OK(cuImportExternalMemory(&em, &ed));
        ep = 0;
        OK(cuExternalMemoryGetMappedBuffer(&ep, em, &bd));
        memset(got, 0, N * 4);
        OK(cuMemcpyDtoH(got, ep, N * 4));
        CHECK(memcmp(got, h, N * 4) == 0);
        OK(cuMemFree(ep));
        OK(cuDestroyExternalMemory(em));
        buf = NULL;
    } else {
        printf("  FAIL cuImportExternalMemory of a vgfx export\n");
        fails++;
        close(fd);
    }
    OK(cuStreamDestroy(s));
    if (buf) GOK(vgfxDestroyBuffer(buf));
    /* Nothing holds the old memory now: the same big buffer fits again and again. */
    for (int i = 0; i < 3; i++) {
        vgfxBuffer big;
        GOK(vgfxCreateBuffer(&big, 8u << 20));
        GOK(vgfxDestroyBuffer(big));
    }
    GOK(vgfxShutdown());
    free(h);
    free(got);
}

static void case_images(void)
{
    NOTE("image: CUDA copies into a mapped subresource, vgfx mipmaps and reads; vgfx fills, CUDA reads");
    setup();
    GOK(vgfxInit());
    vgfxImageDesc d = {64, 64, VGFX_FORMAT_RGBA8_UNORM, 7, 6, VGFX_IMAGE_CUBE};
    vgfxImage img;
    GOK(vgfxCreateImage(&img, &d));
    vgfxRect rr = {8, 8, 16, 4};
    GOK(vgfxClearImage(img, CU_CUBEMAP_FACE_NEGATIVE_Y, 1, VGFX_RGBA(9, 8, 7, 6)));
    GOK(vgfxFillRect(img, CU_CUBEMAP_FACE_NEGATIVE_Y, 1, &rr, VGFX_RGBA(1, 2, 3, 4)));
    CUgraphicsResource r;
    OK(cuGraphicsVgfxRegisterImage(&r, img, CU_GRAPHICS_REGISTER_FLAGS_NONE));
    OK(cuGraphicsMapResources(1, &r, 0));
    CUarray face;
    OK(cuGraphicsSubResourceGetMappedArray(&face, r, CU_CUBEMAP_FACE_NEGATIVE_Y, 1));
    uint32_t *px = malloc(32 * 32 * 4);
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = face;
    c.dstMemoryType = CU_MEMORYTYPE_HOST;
    c.dstHost = px;
    c.dstPitch = 32 * 4;
    c.WidthInBytes = 32 * 4;
    c.Height = 32;
    OK(cuMemcpy2D(&c));
    int bad = 0;
    for (int y = 0; y < 32; y++)
        for (int x = 0; x < 32; x++) {
            int in = x >= 8 && x < 24 && y >= 8 && y < 12;
            bad += px[y * 32 + x] != (in ? VGFX_RGBA(1, 2, 3, 4) : VGFX_RGBA(9, 8, 7, 6));
        }
    CHECK(bad == 0);
    NOTE("face -Y level 1 as CUDA sees it: %d of 1024 pixels as vgfx cleared and filled them", 1024 - bad);
    /* CUDA writes level 0 of face +Z: vertical colour bars. */
    CUarray z0;
    OK(cuGraphicsSubResourceGetMappedArray(&z0, r, CU_CUBEMAP_FACE_POSITIVE_Z, 0));
    uint32_t *bars = malloc(64 * 64 * 4);
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) bars[y * 64 + x] = VGFX_RGBA((x / 8) * 32, 255 - y * 4, (x * y) & 255, 255);
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = bars;
    c.srcPitch = 64 * 4;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = z0;
    c.WidthInBytes = 64 * 4;
    c.Height = 64;
    OK(cuMemcpy2D(&c));
    OK(cuGraphicsUnmapResources(1, &r, 0));
    GOK(vgfxGenerateMipmaps(img, CU_CUBEMAP_FACE_POSITIVE_Z));
    uint32_t *got = malloc(64 * 64 * 4);
    GOK(vgfxImageRead(img, CU_CUBEMAP_FACE_POSITIVE_Z, 0, got));
    CHECK(memcmp(got, bars, 64 * 64 * 4) == 0);
    /* Level 1 is the box filter of the bars. */
    GOK(vgfxImageRead(img, CU_CUBEMAP_FACE_POSITIVE_Z, 1, got));
    bad = 0;
    for (int y = 0; y < 32; y++)
        for (int x = 0; x < 32; x++) {
            uint32_t p[4] = {bars[2 * y * 64 + 2 * x], bars[2 * y * 64 + 2 * x + 1], bars[(2 * y + 1) * 64 + 2 * x],
                             bars[(2 * y + 1) * 64 + 2 * x + 1]};
            uint32_t want = 0;
            for (int ch = 0; ch < 4; ch++) {
                unsigned sum = 2;
                for (int k = 0; k < 4; k++) sum += (p[k] >> (8 * ch)) & 255;
                want |= (sum >> 2 & 255u) << (8 * ch);
            }
            bad += got[y * 32 + x] != want;
        }
    CHECK(bad == 0);
    NOTE("face +Z: CUDA's bars read back by vgfx, level 1 mipmapped by the engine: %d bad pixels", bad);
    OK(cuGraphicsUnregisterResource(r));
    GOK(vgfxDestroyImage(img));
    GOK(vgfxShutdown());
    free(px);
    free(bars);
    free(got);
}

static void case_ordering(void)
{
    NOTE("ordering by fences: graphics before map -> CUDA after; CUDA before unmap -> graphics after");
    setup();
    GOK(vgfxInit());
    CUstream s;
    OK(cuStreamCreate(&s, 0));
    /* 1024 x 1024 pixels (4 MiB): the engine needs about a million cycles to fill it. */
    vgfxImageDesc d = {1024, 1024, VGFX_FORMAT_RGBA8_UNORM, 1, 1, 0};
    vgfxImage img, copy;
    GOK(vgfxCreateImage(&img, &d));
    GOK(vgfxCreateImage(&copy, &d));
    CUgraphicsResource r;
    OK(cuGraphicsVgfxRegisterImage(&r, img, 0));
    GOK(vgfxFinish());
    CUdeviceptr dbuf;
    OK(cuMemAlloc(&dbuf, 1024 * 1024 * 4));

    /* Graphics -> CUDA. */
    /* Row by row, top to bottom: the command processor takes commands from the rings in turn,
     * so without the fence the CUDA copy of the last row would run long before its fill. */
    for (uint32_t y = 0; y < 1024; y++) {
        vgfxRect row = {0, y, 1024, 1};
        GOK(vgfxFillRect(img, 0, 0, &row, 0xa5a50f0fu));
    }
    OK(cuGraphicsMapResources(1, &r, s));
    GEXPECT(vgfxQuery(), VGFX_ERROR_NOT_READY);  /* the map did not wait for the fills */
    CUarray a;
    OK(cuGraphicsSubResourceGetMappedArray(&a, r, 0, 0));
    /* The last row first: without the fence the copy would reach it long before the clear. */
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = a;
    c.srcY = 1023;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = dbuf;
    c.dstPitch = 4096;
    c.WidthInBytes = 4096;
    c.Height = 1;
    OK(cuMemcpy2DAsync(&c, s));
    uint32_t *h = malloc(1024 * 1024 * 4);
    OK(cuMemcpyDtoHAsync(h, dbuf, 4096, s));
    OK(cuStreamSynchronize(s));
    int last_bad = 0;
    for (int i = 0; i < 1024; i++) last_bad += h[i] != 0xa5a50f0fu;
    CHECK(last_bad == 0);
    NOTE("a copy of the last row queued right after the map saw %d of 1024 filled pixels", 1024 - last_bad);
    c.srcY = 0;
    c.Height = 1024;
    OK(cuMemcpy2DAsync(&c, s));
    OK(cuStreamSynchronize(s));
    OK(cuMemcpyDtoH(h, dbuf, 1024 * 1024 * 4));
    int bad = 0;
    for (int i = 0; i < 1024 * 1024; i++) bad += h[i] != 0xa5a50f0fu;
    CHECK(bad == 0);
    NOTE("CUDA copy after the map saw %d of %d filled pixels (the fills were still queued at the map)",
         1024 * 1024 - bad, 1024 * 1024);

    /* CUDA -> graphics: a kernel fills the device buffer, a copy puts it into the image, the
     * unmap follows at once and vgfx blits the image without any CUDA synchronisation. */
    OK(launch(VMGPU_BUILTIN_FILL_I32, dbuf, 0, 1024 * 1024, 0x3c3c7e7e, s));
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = dbuf;
    c.srcPitch = 4096;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = a;
    c.WidthInBytes = 4096;
    c.Height = 1024;
    OK(cuMemcpy2DAsync(&c, s));
    OK(cuGraphicsUnmapResources(1, &r, s));
    EXPECT(cuStreamQuery(s), CUDA_ERROR_NOT_READY);  /* the unmap did not wait for the stream */
    GOK(vgfxBlit(img, 0, 0, NULL, copy, 0, 0, NULL));
    GOK(vgfxImageRead(copy, 0, 0, h));
    bad = 0;
    for (int i = 0; i < 1024 * 1024; i++) bad += h[i] != 0x3c3c7e7eu;
    CHECK(bad == 0);
    NOTE("graphics blit after the unmap saw %d of %d pixels the kernel wrote", 1024 * 1024 - bad, 1024 * 1024);
    OK(cuStreamSynchronize(s));
    OK(cuGraphicsUnregisterResource(r));
    OK(cuMemFree(dbuf));
    OK(cuStreamDestroy(s));
    GOK(vgfxDestroyImage(img));
    GOK(vgfxDestroyImage(copy));
    GOK(vgfxShutdown());
    free(h);
}

static void case_fault(void)
{
    NOTE("after the unmap the pages have no access: a kernel touching them faults");
    setup();
    GOK(vgfxInit());
    vgfxBuffer buf;
    GOK(vgfxCreateBuffer(&buf, 4096));
    CUgraphicsResource r;
    OK(cuGraphicsVgfxRegisterBuffer(&r, buf, 0));
    OK(cuGraphicsMapResources(1, &r, 0));
    CUdeviceptr p;
    size_t sz;
    OK(cuGraphicsResourceGetMappedPointer(&p, &sz, r));
    OK(launch(VMGPU_BUILTIN_FILL_I32, p, 0, 16, 42, 0));
    OK(cuCtxSynchronize());
    OK(cuGraphicsUnmapResources(1, &r, 0));
    int32_t v[16];
    GOK(vgfxBufferRead(buf, 0, v, sizeof v));
    CHECK(v[0] == 42 && v[15] == 42);
    OK(launch(VMGPU_BUILTIN_FILL_I32, p, 0, 16, 7, 0));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    GOK(vgfxBufferRead(buf, 0, v, sizeof v));
    CHECK(v[0] == 42);  /* the faulting kernel wrote nothing */
    /* vgfx goes on; the registration can still be dropped. */
    OK(cuGraphicsUnregisterResource(r));
    GOK(vgfxDestroyBuffer(buf));
    GOK(vgfxShutdown());
}

/* vgfx in one thread, CUDA (with interop on another resource) in another: one lock, one device. */
struct thread_result { int bad, steps; };

static void *vgfx_thread(void *arg)
{
    struct thread_result *res = arg;
    vgfxImageDesc d = {96, 64, VGFX_FORMAT_RGBA8_UNORM, 1, 1, 0};
    vgfxImage img;
    if (vgfxCreateImage(&img, &d) != VGFX_SUCCESS) {
        res->bad++;
        return NULL;
    }
    uint32_t *px = malloc(96 * 64 * 4);
    for (uint32_t i = 0; i < 40; i++) {
        vgfxRect r = {i, i % 32, 50, 30};
        uint32_t color = 0x01010101u * i + 0x00100000u;
        res->bad += vgfxFillRect(img, 0, 0, &r, color) != VGFX_SUCCESS;
        res->bad += vgfxImageRead(img, 0, 0, px) != VGFX_SUCCESS;
        res->bad += px[(i % 32 + 29) * 96 + i + 49] != color || px[(i % 32) * 96 + i] != color;
        res->steps++;
    }
    free(px);
    res->bad += vgfxDestroyImage(img) != VGFX_SUCCESS;
    return NULL;
}

static void *cuda_thread(void *arg)
{
    struct thread_result *res = arg;
    if (cuCtxSetCurrent(g_ctx) != CUDA_SUCCESS) {
        res->bad++;
        return NULL;
    }
    vgfxBuffer buf;
    CUgraphicsResource r;
    if (vgfxCreateBuffer(&buf, 4096) || cuGraphicsVgfxRegisterBuffer(&r, buf, 0)) {
        res->bad++;
        return NULL;
    }
    for (int i = 0; i < 40; i++) {
        CUdeviceptr p;
        size_t sz;
        int32_t v[4] = {0};
        res->bad += cuGraphicsMapResources(1, &r, 0) != CUDA_SUCCESS;
        res->bad += cuGraphicsResourceGetMappedPointer(&p, &sz, r) != CUDA_SUCCESS;
        res->bad += launch(VMGPU_BUILTIN_FILL_I32, p, 0, 1024, i * 7, 0) != CUDA_SUCCESS;
        res->bad += cuGraphicsUnmapResources(1, &r, 0) != CUDA_SUCCESS;
        res->bad += vgfxBufferRead(buf, 4080, v, 16) != VGFX_SUCCESS;
        res->bad += v[0] != i * 7 || v[3] != i * 7;
        res->steps++;
    }
    res->bad += cuGraphicsUnregisterResource(r) != CUDA_SUCCESS;
    res->bad += vgfxDestroyBuffer(buf) != VGFX_SUCCESS;
    return NULL;
}

static void case_threads(void)
{
    NOTE("two threads: vgfx fills and reads an image while CUDA maps, fills and unmaps a buffer");
    setup();
    GOK(vgfxInit());
    struct thread_result a = {0, 0}, b = {0, 0};
    pthread_t ta, tb;
    CHECK(pthread_create(&ta, NULL, vgfx_thread, &a) == 0);
    CHECK(pthread_create(&tb, NULL, cuda_thread, &b) == 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    CHECK(a.bad == 0 && a.steps == 40);
    CHECK(b.bad == 0 && b.steps == 40);
    NOTE("vgfx thread: %d steps, %d bad; CUDA thread: %d map/fill/unmap/read rounds, %d bad", a.steps, a.bad,
         b.steps, b.bad);
    GOK(vgfxShutdown());
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s errors|data|images|ordering|fault|threads\n", argv[0]);
        return 2;
    }
    const char *c = argv[1];
    printf("interop test %s\n", c);
    if (!strcmp(c, "errors")) case_errors();
    else if (!strcmp(c, "data")) case_data();
    else if (!strcmp(c, "images")) case_images();
    else if (!strcmp(c, "ordering")) case_ordering();
    else if (!strcmp(c, "fault")) case_fault();
    else if (!strcmp(c, "threads")) case_threads();
    else {
        fprintf(stderr, "unknown case %s\n", c);
        return 2;
    }
    printf("%s: %d checks, %d failed\n", c, checks, fails);
    return fails ? 1 : 0;
}
