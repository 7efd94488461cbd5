/*
 * graphics_interop: CUDA draws a picture into a graphics image, the graphics engine makes its
 * mip chain and lays every level out side by side in a frame, and the frame becomes a PNG.
 *
 *   1. vgfx (vmgpu's small graphics API, vmgpu_gfx.h) creates a 256x256 RGBA8 image with its
 *      full mip chain (9 levels) and a frame image.
 *   2. The image is registered with CUDA (cudaVgfx.h) and mapped: from now on CUDA may use it
 *      and vgfx may not. Level 0 is handed to CUDA as an array.
 *   3. CUDA draws: built-in kernels (vmgpu_fill_i32, vmgpu_copy_i32) paint colour bars in the
 *      top half and a checkerboard in the bottom half of a device buffer, a row at a time and
 *      then by doubling copies; cuMemcpy2DAsync puts the buffer into the image's level 0.
 *   4. Unmap: the graphics engine's later work waits (on the device, by a fence) for that CUDA
 *      work. vgfxGenerateMipmaps writes levels 1..8, each a 2x2 box filter of the one above.
 *   5. vgfxBlit copies every level into the frame at its own size (top row) and scaled up to
 *      64x64 with nearest-neighbour sampling (bottom row), so the averaging shows.
 *   6. vgfxCaptureImagePNG writes the frame: argv[1], default graphics_interop.png.
 *
 * Everything runs on the one simulated vmgpu (VMGPU_DEVICE, default sim): vgfx lives in
 * libcuda.so next to CUDA, so the image's memory is never copied between the two APIs.
 * VMGPU_TRACE=1 shows the page-table changes of map/unmap and the engine commands.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "cudaVgfx.h"
#include "vmgpu_builtin.h"

#define SIZE 256u
#define LEVELS 9u
#define GAP 4u
#define THUMB 64u

#define CHECK(call) do { CUresult rc_ = (call); if (rc_ != CUDA_SUCCESS) { const char *n_ = "?"; \
    cuGetErrorName(rc_, &n_); printf("FAILED: %s -> %s (line %d)\n", #call, n_, __LINE__); exit(1); } } while (0)
#define VCHECK(call) do { vgfxStatus st_ = (call); if (st_ != VGFX_SUCCESS) { \
    printf("FAILED: %s -> %s: %s (line %d)\n", #call, vgfxGetErrorString(st_), vgfxGetLastErrorMessage(), \
           __LINE__); exit(1); } } while (0)

static CUmodule g_mod;

static void kernel(const char *name, CUdeviceptr dst, CUdeviceptr src, int n, int value, CUstream s)
{
    CUfunction f;
    CHECK(cuModuleGetFunction(&f, g_mod, name));
    CUdeviceptr b = 0;
    void *params[5] = {&dst, &src, &b, &n, &value};
    CHECK(cuLaunchKernel(f, (unsigned)(n + 255) / 256, 1, 1, 256, 1, 1, 0, s, params, NULL));
}

/* Rows [y0, y0 + rows) of the buffer get copies of row y0 (1, 2, 4, ... rows per copy). */
static void replicate_rows(CUdeviceptr buf, unsigned y0, unsigned rows, CUstream s)
{
    for (unsigned have = 1; have < rows; have *= 2) {
        unsigned n = have < rows - have ? have : rows - have;
        kernel(VMGPU_BUILTIN_COPY_I32, buf + (CUdeviceptr)(y0 + have) * SIZE * 4, buf + (CUdeviceptr)y0 * SIZE * 4,
               (int)(n * SIZE), 0, s);
    }
}

static const uint32_t k_bars[8] = {
    VGFX_RGBA(235, 235, 235, 255), VGFX_RGBA(235, 235, 16, 255), VGFX_RGBA(16, 235, 235, 255),
    VGFX_RGBA(16, 235, 16, 255),   VGFX_RGBA(235, 16, 235, 255), VGFX_RGBA(235, 16, 16, 255),
    VGFX_RGBA(16, 16, 235, 255),   VGFX_RGBA(16, 16, 16, 255),
};
#define CHECK_DARK VGFX_RGBA(24, 24, 64, 255)
#define CHECK_LIGHT VGFX_RGBA(250, 200, 40, 255)

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "graphics_interop.png";

    printf("1. vgfx: a %ux%u RGBA8 image with its full mip chain (%u levels) and a frame\n", SIZE, SIZE, LEVELS);
    VCHECK(vgfxInit());
    vgfxImageDesc d = {SIZE, SIZE, VGFX_FORMAT_RGBA8_UNORM, LEVELS, 1, 0};
    vgfxImage img, frame;
    VCHECK(vgfxCreateImage(&img, &d));
    vgfxImageInfo info;
    VCHECK(vgfxImageGetInfo(img, &info));
    for (unsigned l = 0; l < LEVELS; l++) {
        vgfxSubresourceLayout lay;
        VCHECK(vgfxImageGetSubresourceLayout(img, 0, l, &lay));
        printf("   level %u: %3ux%-3u at offset %6llu, row pitch %4u bytes\n", l, lay.width, lay.height,
               (unsigned long long)lay.offset, lay.rowPitch);
    }
    unsigned fw = 0;
    for (unsigned l = 0; l < LEVELS; l++) fw += (SIZE >> l) + GAP;
    fw += GAP;
    unsigned fw2 = LEVELS * (THUMB + GAP) + GAP;
    if (fw2 > fw) fw = fw2;
    unsigned fh = GAP + SIZE + GAP + THUMB + GAP;
    vgfxImageDesc fd = {fw, fh, VGFX_FORMAT_RGBA8_UNORM, 1, 1, 0};
    VCHECK(vgfxCreateImage(&frame, &fd));
    printf("   image memory: %llu bytes; frame %ux%u\n", (unsigned long long)info.size, fw, fh);

    printf("2. CUDA: register the image (one CUgraphicsResource) and map it in a stream\n");
    CUdevice dev;
    CUcontext ctx;
    CUstream s;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate(&ctx, NULL, 0, dev));
    CHECK(cuStreamCreate(&s, 0));
    CHECK(cuModuleLoadData(&g_mod, VMGPU_BUILTIN_IMAGE));
    CUgraphicsResource res;
    CHECK(cuGraphicsVgfxRegisterImage(&res, img, CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD));
    CHECK(cuGraphicsMapResources(1, &res, s));
    CUarray level0;
    CHECK(cuGraphicsSubResourceGetMappedArray(&level0, res, 0, 0));
    CUDA_ARRAY3D_DESCRIPTOR ad;
    CHECK(cuArray3DGetDescriptor(&ad, level0));
    printf("   level 0 as a CUDA array: %zux%zu, %u channels of 8 bits\n", ad.Width, ad.Height, ad.NumChannels);
    vgfxRect probe = {0, 0, 1, 1};
    vgfxStatus st = vgfxFillRect(img, 0, 0, &probe, 0);
    printf("   vgfx meanwhile: vgfxFillRect -> %s\n", vgfxGetErrorString(st));

    printf("3. CUDA draws with built-in kernels: colour bars on top, a checkerboard below\n");
    CUdeviceptr buf;
    CHECK(cuMemAlloc(&buf, SIZE * SIZE * 4));
    for (unsigned k = 0; k < 8; k++)  /* row 0: eight bars of 32 pixels */
        kernel(VMGPU_BUILTIN_FILL_I32, buf + k * 32 * 4, 0, 32, (int)k_bars[k], s);
    replicate_rows(buf, 0, SIZE / 2, s);
    unsigned y0 = SIZE / 2;
    for (unsigned band = 0; band < 4; band++) {  /* four bands of 32 rows, squares of 32 */
        unsigned y = y0 + band * 32;
        for (unsigned k = 0; k < 8; k++)
            kernel(VMGPU_BUILTIN_FILL_I32, buf + ((CUdeviceptr)y * SIZE + k * 32) * 4, 0, 32,
                   (int)((k + band) % 2 ? CHECK_LIGHT : CHECK_DARK), s);
        replicate_rows(buf, y, 32, s);
    }
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = buf;
    c.srcPitch = SIZE * 4;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = level0;
    c.WidthInBytes = SIZE * 4;
    c.Height = SIZE;
    CHECK(cuMemcpy2DAsync(&c, s));
    printf("   queued: fills and doubling copies, then one 2D copy into level 0 (not waited for)\n");

    printf("4. unmap; the graphics engine waits for the stream on the device, then makes the mipmaps\n");
    CHECK(cuGraphicsUnmapResources(1, &res, s));
    VCHECK(vgfxGenerateMipmaps(img, 0));

    printf("5. every level into the frame: at its own size, and scaled to %ux%u\n", THUMB, THUMB);
    VCHECK(vgfxClearImage(frame, 0, 0, VGFX_RGBA(48, 48, 48, 255)));
    unsigned x = GAP;
    for (unsigned l = 0; l < LEVELS; l++) {
        unsigned w = SIZE >> l;
        vgfxRect at = {x, GAP, w, w};
        VCHECK(vgfxBlit(img, 0, l, NULL, frame, 0, 0, &at));
        vgfxRect thumb = {GAP + l * (THUMB + GAP), GAP + SIZE + GAP, THUMB, THUMB};
        VCHECK(vgfxBlit(img, 0, l, NULL, frame, 0, 0, &thumb));
        printf("   level %u (%ux%u) -> (%u,%u) and (%u,%u) %ux%u\n", l, w, w, x, GAP, thumb.x, thumb.y, THUMB, THUMB);
        x += w + GAP;
    }

    printf("6. capture the frame: %s\n", path);
    VCHECK(vgfxCaptureImagePNG(frame, 0, 0, path));

    /* Check what a viewer will see: bars and squares in level 0, their averages below. */
    uint32_t *px = malloc((size_t)fw * fh * 4);
    VCHECK(vgfxImageRead(frame, 0, 0, px));
    int bad = 0;
    for (unsigned k = 0; k < 8; k++) bad += px[(GAP + 10) * fw + GAP + k * 32 + 16] != k_bars[k];
    bad += px[(GAP + 128 + 16) * fw + GAP + 16] != CHECK_DARK;
    bad += px[(GAP + 128 + 16) * fw + GAP + 48] != CHECK_LIGHT;
    uint32_t last = px[GAP * fw + GAP + 256 + GAP + 128 + GAP + 64 + GAP + 32 + GAP + 16 + GAP + 8 + GAP + 4 + GAP + 2 + GAP];
    printf("   frame: %d of 10 probed pixels as drawn; the 1x1 level is 0x%08x (the average of the picture)\n",
           10 - bad, last);
    free(px);

    CHECK(cuGraphicsUnregisterResource(res));
    CHECK(cuMemFree(buf));
    CHECK(cuStreamDestroy(s));
    CHECK(cuCtxDestroy(ctx));
    VCHECK(vgfxDestroyImage(img));
    VCHECK(vgfxDestroyImage(frame));
    VCHECK(vgfxShutdown());
    if (bad) {
        printf("graphics_interop FAILED\n");
        return 1;
    }
    printf("graphics_interop PASSED: open %s to see the picture and its mip chain\n", path);
    return 0;
}
