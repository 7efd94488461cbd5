/*
 * CUDA arrays on vmgpu's libcuda: cuArrayCreate/cuArray3DCreate and descriptors, mipmapped
 * arrays, and cuMemcpy2D/3D and the 1D array copies between host (pageable and pinned), device
 * memory and arrays. `vmgpu_cuda_arrays <case>`; every copy is checked byte by byte against a
 * host model, every failing call against the free memory (nothing leaked) and the destination's
 * contents (nothing written).
 */
#define _GNU_SOURCE
#include <stdint.h>

#include "cu_check.h"

static CUcontext g_ctx;

static void init(void)
{
    CUdevice d;
    MUST(cuInit(0));
    MUST(cuDeviceGet(&d, 0));
    MUST(cuCtxCreate(&g_ctx, NULL, 0, d));
}

static size_t free_mem(void)
{
    size_t f = 0, t = 0;
    cuMemGetInfo(&f, &t);
    return f;
}

static uint8_t pat(size_t i, unsigned seed) { return (uint8_t)((i * 131u + seed * 7u + (i >> 8) * 17u) ^ seed); }

static CUDA_ARRAY3D_DESCRIPTOR d3(size_t w, size_t h, size_t d, CUarray_format f, unsigned ch, unsigned flags)
{
    CUDA_ARRAY3D_DESCRIPTOR x;
    memset(&x, 0, sizeof x);
    x.Width = w;
    x.Height = h;
    x.Depth = d;
    x.Format = f;
    x.NumChannels = ch;
    x.Flags = flags;
    return x;
}

/* A failing call: the expected error, and no device memory gained or lost. */
#define REFUSE(call, want) do { size_t f0_ = free_mem(); EXPECT(call, want); \
    if (free_mem() != f0_) { printf("  FAIL %s:%d: free memory changed by %s\n", __FILE__, __LINE__, #call); fails++; } \
    nref++; } while (0)
static int nref;

/* ------------------------------------------------------------------ create */

static void t_create(void)
{
    init();
    size_t f0 = free_mem();
    struct { CUDA_ARRAY3D_DESCRIPTOR d; const char *what; } ok[] = {
        {d3(100, 0, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0), "1D u8"},
        {d3(64, 48, 0, CU_AD_FORMAT_FLOAT, 4, 0), "2D float4"},
        {d3(16, 8, 5, CU_AD_FORMAT_HALF, 2, 0), "3D half2"},
        {d3(33, 0, 7, CU_AD_FORMAT_SIGNED_INT16, 1, CUDA_ARRAY3D_LAYERED), "1D layered s16"},
        {d3(17, 9, 3, CU_AD_FORMAT_UNSIGNED_INT32, 2, CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST), "2D layered"},
        {d3(8, 8, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP), "cubemap"},
        {d3(8, 8, 12, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED), "cubemap layered"},
        {d3(32, 32, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_TEXTURE_GATHER), "2D gather"},
        {d3(10, 10, 0, CU_AD_FORMAT_UNORM_INT8X4, 4, 0), "2D unorm8x4"},
    };
    for (unsigned i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        CUarray a = NULL;
        CUDA_ARRAY3D_DESCRIPTOR back;
        EXPECT(cuArray3DCreate(&a, &ok[i].d), CUDA_SUCCESS);
        if (!a) continue;
        OK(cuArray3DGetDescriptor(&back, a));
        CHECK(memcmp(&back, &ok[i].d, sizeof back) == 0);
        /* The 2D descriptor of a 3D/layered array too (its depth left out), as NVIDIA answers. */
        CUDA_ARRAY_DESCRIPTOR b2;
        OK(cuArrayGetDescriptor(&b2, a));
        CHECK(b2.Width == ok[i].d.Width && b2.Height == ok[i].d.Height && b2.Format == ok[i].d.Format &&
              b2.NumChannels == ok[i].d.NumChannels);
        CHECK(free_mem() < f0);
        OK(cuArrayDestroy(a));
        CHECK(free_mem() == f0);
        NOTE("%-16s created, descriptor read back, destroyed (memory returned)", ok[i].what);
    }
    CUDA_ARRAY_DESCRIPTOR ad = {200, 10, CU_AD_FORMAT_SIGNED_INT32, 2};
    CUarray a2;
    OK(cuArrayCreate(&a2, &ad));
    CUDA_ARRAY3D_DESCRIPTOR back;
    OK(cuArray3DGetDescriptor(&back, a2));
    CHECK(back.Width == 200 && back.Height == 10 && back.Depth == 0 && back.Flags == 0 && back.NumChannels == 2);
    OK(cuArrayDestroy(a2));

    /* Refusals, each leaving the free memory as it was. */
    CUarray a = NULL;
    CUDA_ARRAY3D_DESCRIPTOR g = d3(16, 16, 0, CU_AD_FORMAT_FLOAT, 1, 0), b;
    REFUSE(cuArray3DCreate(NULL, &g), CUDA_ERROR_INVALID_VALUE);
    REFUSE(cuArray3DCreate(&a, NULL), CUDA_ERROR_INVALID_VALUE);
    REFUSE(cuArrayCreate(&a, NULL), CUDA_ERROR_INVALID_VALUE);
    b = g; b.Width = 0;
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_INVALID_VALUE);
    b = g; b.NumChannels = 3;
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_INVALID_VALUE);
    b = g; b.NumChannels = 0;
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_INVALID_VALUE);
    b = g; b.Format = (CUarray_format)0x77;
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_INVALID_VALUE);
    b = g; b.Format = CU_AD_FORMAT_UNORM_INT8X2; b.NumChannels = 4;
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_INVALID_VALUE);
    b = g; b.Format = CU_AD_FORMAT_BC1_UNORM;
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_INVALID_VALUE);  /* BC1 has 4 channels */
    b = g; b.Format = CU_AD_FORMAT_BC1_UNORM; b.NumChannels = 4;
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_NOT_SUPPORTED);  /* valid, not implemented */
    b = g; b.Format = CU_AD_FORMAT_BC6H_UF16; b.NumChannels = 3;
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_NOT_SUPPORTED);
    b = g; b.Flags = CUDA_ARRAY3D_DEPTH_TEXTURE;
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_INVALID_VALUE);
    b = g; b.Flags = 0x10000;
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_INVALID_VALUE);
    b = g; b.Flags = CUDA_ARRAY3D_SPARSE;
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_NOT_SUPPORTED);
    b = g; b.Flags = CUDA_ARRAY3D_VIDEO_ENCODE_DECODE;
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_NOT_SUPPORTED);  /* no video engine */
    b = d3(8, 4, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP);
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_INVALID_VALUE);  /* not square */
    b = d3(8, 8, 5, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP);
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_INVALID_VALUE);  /* not 6 faces */
    b = d3(8, 8, 12, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP);
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_INVALID_VALUE);  /* 12 faces without LAYERED */
    b = d3(8, 8, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_LAYERED);
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_INVALID_VALUE);  /* no layers */
    b = d3(8, 8, 4, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_TEXTURE_GATHER);
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_INVALID_VALUE);  /* gather on 3D */
    b = d3(8, 0, 4, CU_AD_FORMAT_FLOAT, 1, 0);
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_INVALID_VALUE);  /* depth without height */
    b = d3(65537, 0, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0);
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_INVALID_VALUE);  /* past the 1D limit */
    b = d3(4097, 8, 8, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0);
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_INVALID_VALUE);  /* past the 3D limit */
    b = d3(4096, 4096, 0, CU_AD_FORMAT_FLOAT, 4, 0);
    REFUSE(cuArray3DCreate(&a, &b), CUDA_ERROR_OUT_OF_MEMORY);  /* 256 MiB on a 16 MiB device */

    /* Handles: made-up, destroyed (CONTEXT_IS_DESTROYED, as NVIDIA answers), NULL. */
    CUarray x;
    OK(cuArray3DCreate(&x, &g));
    OK(cuArrayDestroy(x));
    REFUSE(cuArrayDestroy(x), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    REFUSE(cuArray3DGetDescriptor(&b, x), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    CUDA_ARRAY_DESCRIPTOR bd2;
    REFUSE(cuArrayGetDescriptor(&bd2, x), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    REFUSE(cuArray3DGetDescriptor(&b, (CUarray)(uintptr_t)0x1234), CUDA_ERROR_INVALID_HANDLE);
    REFUSE(cuArrayDestroy((CUarray)(uintptr_t)0x1234), CUDA_ERROR_INVALID_HANDLE);
    REFUSE(cuArrayDestroy(NULL), CUDA_ERROR_INVALID_HANDLE);
    OK(cuArray3DCreate(&x, &g));
    REFUSE(cuArray3DGetDescriptor(NULL, x), CUDA_ERROR_INVALID_VALUE);
    OK(cuArrayDestroy(x));
    CHECK(free_mem() == f0);

    /* An array goes with the context it was made in. */
    CUcontext c2;
    CUdevice dv;
    MUST(cuDeviceGet(&dv, 0));
    MUST(cuCtxCreate(&c2, NULL, 0, dv));
    OK(cuArray3DCreate(&x, &g));
    CHECK(free_mem() < f0);
    OK(cuCtxDestroy(c2));
    OK(cuCtxSetCurrent(g_ctx));
    CHECK(free_mem() == f0);
    REFUSE(cuArrayDestroy(x), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    NOTE("%d refusals checked (error code, free memory unchanged)", nref);
}

/* ------------------------------------------------------------------ 2D copies */

static CUDA_MEMCPY2D c2(void)
{
    CUDA_MEMCPY2D p;
    memset(&p, 0, sizeof p);
    return p;
}

/* Host model of an array's first slice: rows of rowb bytes. */
static void t_copy2d(void)
{
    init();
    const size_t W = 100, H = 37, E = 4, RB = W * E;
    CUDA_ARRAY3D_DESCRIPTOR ad = d3(W, H, 0, CU_AD_FORMAT_FLOAT, 1, 0);
    CUarray A, B;
    MUST(cuArray3DCreate(&A, &ad));
    MUST(cuArray3DCreate(&B, &ad));
    uint8_t *model = calloc(RB * H, 1), *back = malloc(RB * H);
    size_t f_arrays = free_mem();

    /* Whole array from pageable host memory with a wider pitch (500 bytes). */
    const size_t HP = 500;
    uint8_t *host = malloc(HP * H);
    for (size_t i = 0; i < HP * H; i++) host[i] = pat(i, 1);
    CUDA_MEMCPY2D p = c2();
    p.srcMemoryType = CU_MEMORYTYPE_HOST; p.srcHost = host; p.srcPitch = HP;
    p.dstMemoryType = CU_MEMORYTYPE_ARRAY; p.dstArray = A;
    p.WidthInBytes = RB; p.Height = H;
    OK(cuMemcpy2D(&p));
    for (size_t y = 0; y < H; y++) memcpy(model + y * RB, host + y * HP, RB);
    CUDA_MEMCPY2D r = c2();
    r.srcMemoryType = CU_MEMORYTYPE_ARRAY; r.srcArray = A;
    r.dstMemoryType = CU_MEMORYTYPE_HOST; r.dstHost = back; r.dstPitch = RB;
    r.WidthInBytes = RB; r.Height = H;
    memset(back, 0, RB * H);
    OK(cuMemcpy2D(&r));
    CHECK(memcmp(back, model, RB * H) == 0);
    NOTE("host (pitch %zu) -> 2D array %zux%zu float -> host: %zu bytes match", HP, W, H, RB * H);

    /* A sub-rectangle with offsets on both sides (cuMemcpy2DUnaligned: same rules on vmgpu). */
    p = c2();
    p.srcMemoryType = CU_MEMORYTYPE_HOST; p.srcHost = host; p.srcPitch = HP; p.srcXInBytes = 12; p.srcY = 5;
    p.dstMemoryType = CU_MEMORYTYPE_ARRAY; p.dstArray = A; p.dstXInBytes = 8; p.dstY = 3;
    p.WidthInBytes = 200; p.Height = 20;
    OK(cuMemcpy2DUnaligned(&p));
    for (size_t y = 0; y < 20; y++) memcpy(model + (y + 3) * RB + 8, host + (y + 5) * HP + 12, 200);
    memset(back, 0, RB * H);
    OK(cuMemcpy2D(&r));
    CHECK(memcmp(back, model, RB * H) == 0);
    NOTE("sub-rectangle 200 bytes x 20 rows, src (12,5) -> dst (8,3): whole array matches the model");

    /* Array -> pitched device memory -> array, array -> array, through device memory. */
    const size_t DP = 512;
    CUdeviceptr dev;
    MUST(cuMemAlloc(&dev, DP * H));
    MUST(cuMemsetD8(dev, 0, DP * H));
    p = c2();
    p.srcMemoryType = CU_MEMORYTYPE_ARRAY; p.srcArray = A; p.srcXInBytes = 40; p.srcY = 2;
    p.dstMemoryType = CU_MEMORYTYPE_DEVICE; p.dstDevice = dev; p.dstPitch = DP; p.dstXInBytes = 4; p.dstY = 1;
    p.WidthInBytes = 300; p.Height = 30;
    OK(cuMemcpy2D(&p));
    uint8_t *dback = malloc(DP * H);
    OK(cuMemcpyDtoH(dback, dev, DP * H));
    int good = 1;
    for (size_t y = 0; y < 30; y++) good &= memcmp(dback + (y + 1) * DP + 4, model + (y + 2) * RB + 40, 300) == 0;
    CHECK(good && dback[0] == 0 && dback[DP + 3] == 0 && dback[DP + 304] == 0);
    NOTE("array (40,2) -> device memory pitch %zu at (4,1): 300 x 30 bytes match, bytes around untouched", DP);
    p = c2();
    p.srcMemoryType = CU_MEMORYTYPE_DEVICE; p.srcDevice = dev; p.srcPitch = DP;
    p.dstMemoryType = CU_MEMORYTYPE_ARRAY; p.dstArray = B;
    p.WidthInBytes = RB; p.Height = H;
    OK(cuMemcpy2D(&p));
    uint8_t *bmodel = malloc(RB * H);
    for (size_t y = 0; y < H; y++) memcpy(bmodel + y * RB, dback + y * DP, RB);
    CUDA_MEMCPY2D aa = c2();
    aa.srcMemoryType = CU_MEMORYTYPE_ARRAY; aa.srcArray = A; aa.srcXInBytes = 0; aa.srcY = 10;
    aa.dstMemoryType = CU_MEMORYTYPE_ARRAY; aa.dstArray = B; aa.dstXInBytes = 200; aa.dstY = 0;
    aa.WidthInBytes = 120; aa.Height = 7;
    OK(cuMemcpy2D(&aa));
    for (size_t y = 0; y < 7; y++) memcpy(bmodel + y * RB + 200, model + (y + 10) * RB, 120);
    r.srcArray = B;
    OK(cuMemcpy2D(&r));
    CHECK(memcmp(back, bmodel, RB * H) == 0);
    r.srcArray = A;
    NOTE("device -> array B, then array A (0,10) -> array B (200,0) 120 x 7: B matches its model");

    /* Pinned host memory (read in place through the host aperture), async on a stream. */
    uint8_t *pin;
    MUST(cuMemAllocHost((void **)&pin, RB * H));
    CUstream st;
    MUST(cuStreamCreate(&st, 0));
    p = c2();
    p.srcMemoryType = CU_MEMORYTYPE_ARRAY; p.srcArray = A;
    p.dstMemoryType = CU_MEMORYTYPE_HOST; p.dstHost = pin; p.dstPitch = RB;
    p.WidthInBytes = RB; p.Height = H;
    memset(pin, 0, RB * H);
    OK(cuMemcpy2DAsync(&p, st));
    OK(cuStreamSynchronize(st));
    CHECK(memcmp(pin, model, RB * H) == 0);
    /* UNIFIED: the driver tells device from host pointers. */
    p = c2();
    p.srcMemoryType = CU_MEMORYTYPE_UNIFIED; p.srcDevice = (CUdeviceptr)(uintptr_t)pin; p.srcPitch = RB;
    p.dstMemoryType = CU_MEMORYTYPE_UNIFIED; p.dstDevice = dev; p.dstPitch = DP;
    p.WidthInBytes = RB; p.Height = H;
    OK(cuMemcpy2D(&p));
    OK(cuMemcpyDtoH(dback, dev, DP * H));
    good = 1;
    for (size_t y = 0; y < H; y++) good &= memcmp(dback + y * DP, model + y * RB, RB) == 0;
    CHECK(good);
    NOTE("array -> pinned host (cuMemcpy2DAsync, stream), pinned -> device with CU_MEMORYTYPE_UNIFIED: match");

    /* Rows longer than the 256 KiB staging buffer (pageable host <-> device). */
    const size_t LW = 300000;
    CUdeviceptr big;
    MUST(cuMemAlloc(&big, 2 * LW + 64));
    uint8_t *lh = malloc(2 * LW), *lb = malloc(2 * LW);
    for (size_t i = 0; i < 2 * LW; i++) lh[i] = pat(i, 9);
    p = c2();
    p.srcMemoryType = CU_MEMORYTYPE_HOST; p.srcHost = lh; p.srcPitch = LW;
    p.dstMemoryType = CU_MEMORYTYPE_DEVICE; p.dstDevice = big; p.dstPitch = LW + 32;
    p.WidthInBytes = LW; p.Height = 2;
    OK(cuMemcpy2D(&p));
    p = c2();
    p.srcMemoryType = CU_MEMORYTYPE_DEVICE; p.srcDevice = big; p.srcPitch = LW + 32;
    p.dstMemoryType = CU_MEMORYTYPE_HOST; p.dstHost = lb; p.dstPitch = LW;
    p.WidthInBytes = LW; p.Height = 2;
    OK(cuMemcpy2D(&p));
    CHECK(memcmp(lh, lb, 2 * LW) == 0);
    NOTE("rows of %zu bytes (longer than the staging buffer) host -> device -> host: match", LW);
    OK(cuMemFree(big));

    /* Refusals: error code, free memory unchanged, destination unchanged. */
    CUDA_MEMCPY2D g = c2();
    g.srcMemoryType = CU_MEMORYTYPE_HOST; g.srcHost = host; g.srcPitch = HP;
    g.dstMemoryType = CU_MEMORYTYPE_ARRAY; g.dstArray = A;
    g.WidthInBytes = 16; g.Height = 2;
    CUDA_MEMCPY2D b;
    /* A width that is not whole elements is copied (NVIDIA accepts it; only x must be whole). */
    b = g; b.WidthInBytes = 6; b.Height = 1;
    OK(cuMemcpy2D(&b));
    memcpy(model, host, 6);
    memset(back, 0, RB * H);
    OK(cuMemcpy2D(&r));
    CHECK(memcmp(back, model, RB * H) == 0);
    NOTE("6 bytes (one and a half floats) host -> array: copied, the rest of the row untouched");
    REFUSE(cuMemcpy2D(NULL), CUDA_ERROR_INVALID_VALUE);
    b = g; b.dstXInBytes = 2;
    REFUSE(cuMemcpy2D(&b), CUDA_ERROR_INVALID_VALUE);  /* not a whole element */
    b = g; b.dstXInBytes = RB - 12;
    REFUSE(cuMemcpy2D(&b), CUDA_ERROR_INVALID_VALUE);  /* past the row */
    b = g; b.dstY = H - 1;
    REFUSE(cuMemcpy2D(&b), CUDA_ERROR_INVALID_VALUE);  /* past the last row */
    b = g; b.srcPitch = 8;
    REFUSE(cuMemcpy2D(&b), CUDA_ERROR_INVALID_VALUE);  /* pitch < width */
    b = g; b.srcHost = NULL;
    REFUSE(cuMemcpy2D(&b), CUDA_ERROR_INVALID_VALUE);
    b = g; b.srcMemoryType = (CUmemorytype)7;
    REFUSE(cuMemcpy2D(&b), CUDA_ERROR_INVALID_VALUE);
    b = g; b.dstArray = NULL;
    REFUSE(cuMemcpy2D(&b), CUDA_ERROR_INVALID_VALUE);  /* a missing argument, as NVIDIA answers */
    b = g; b.dstArray = (CUarray)(uintptr_t)0x4321;
    REFUSE(cuMemcpy2D(&b), CUDA_ERROR_INVALID_HANDLE);
    b = g; b.dstMemoryType = CU_MEMORYTYPE_DEVICE; b.dstDevice = 0; b.dstPitch = 64;
    REFUSE(cuMemcpy2D(&b), CUDA_ERROR_INVALID_VALUE);
    b = g; b.dstMemoryType = CU_MEMORYTYPE_DEVICE; b.dstDevice = dev + 65536 - 512; b.dstPitch = 1024;
    REFUSE(cuMemcpy2D(&b), CUDA_ERROR_INVALID_VALUE);  /* second row past the allocation's mapping */
    b = g; b.srcPitch = 0x80000000u;
    REFUSE(cuMemcpy2D(&b), CUDA_ERROR_INVALID_VALUE);  /* above CU_DEVICE_ATTRIBUTE_MAX_PITCH */
    /* Overlapping boxes in the same memory are accepted as NVIDIA accepts them (the result is
     * not defined: not checked); side by side in the same rows is an ordinary copy. */
    b = c2();
    b.srcMemoryType = CU_MEMORYTYPE_DEVICE; b.srcDevice = dev; b.srcPitch = DP;
    b.dstMemoryType = CU_MEMORYTYPE_DEVICE; b.dstDevice = dev + DP + 8; b.dstPitch = DP;
    b.WidthInBytes = 64; b.Height = 4;
    OK(cuMemcpy2D(&b));
    b.dstDevice = dev + 256;
    OK(cuMemcpy2D(&b));
    b = c2();
    b.srcMemoryType = CU_MEMORYTYPE_ARRAY; b.srcArray = B; b.srcXInBytes = 0;
    b.dstMemoryType = CU_MEMORYTYPE_ARRAY; b.dstArray = B; b.dstXInBytes = 8; b.dstY = 1;
    b.WidthInBytes = 64; b.Height = 4;
    OK(cuMemcpy2D(&b));
    /* Zero-sized copies do nothing and succeed. */
    b = g; b.WidthInBytes = 0;
    OK(cuMemcpy2D(&b));
    b = g; b.Height = 0;
    OK(cuMemcpy2D(&b));
    memset(back, 0, RB * H);
    OK(cuMemcpy2D(&r));
    CHECK(memcmp(back, model, RB * H) == 0);
    NOTE("%d refusals (error code, free memory unchanged); array A unchanged by them", nref);

    /* A destroyed array. */
    f_arrays = free_mem();
    OK(cuArrayDestroy(B));
    CHECK(free_mem() > f_arrays);
    b = g; b.dstArray = B;
    REFUSE(cuMemcpy2D(&b), CUDA_ERROR_INVALID_HANDLE);
    OK(cuArrayDestroy(A));
    OK(cuMemFree(dev));
    OK(cuMemFreeHost(pin));
    OK(cuStreamDestroy(st));
    free(model), free(back), free(host), free(dback), free(bmodel), free(lh), free(lb);
}

/* ------------------------------------------------------------------ 3D copies */

static CUDA_MEMCPY3D c3(void)
{
    CUDA_MEMCPY3D p;
    memset(&p, 0, sizeof p);
    return p;
}

/* Fill every slice of array a (rowb bytes x rows x n) from a host model and read each slice
 * back with its own 3D copy. */
static int roundtrip(CUarray a, size_t rowb, size_t rows, size_t n, unsigned seed)
{
    size_t hp = rowb + 24, hh = rows + 3;  /* host box with its own pitch and slice height */
    uint8_t *h = malloc(hp * hh * n), *bk = malloc(rowb * rows);
    for (size_t i = 0; i < hp * hh * n; i++) h[i] = pat(i, seed);
    CUDA_MEMCPY3D p = c3();
    p.srcMemoryType = CU_MEMORYTYPE_HOST; p.srcHost = h; p.srcPitch = hp; p.srcHeight = hh;
    p.dstMemoryType = CU_MEMORYTYPE_ARRAY; p.dstArray = a;
    p.WidthInBytes = rowb; p.Height = rows; p.Depth = n;
    int ok = cuMemcpy3D(&p) == CUDA_SUCCESS;
    for (size_t z = 0; z < n && ok; z++) {
        CUDA_MEMCPY3D r = c3();
        r.srcMemoryType = CU_MEMORYTYPE_ARRAY; r.srcArray = a; r.srcZ = z;
        r.dstMemoryType = CU_MEMORYTYPE_HOST; r.dstHost = bk; r.dstPitch = rowb; r.dstHeight = rows;
        r.WidthInBytes = rowb; r.Height = rows; r.Depth = 1;
        memset(bk, 0, rowb * rows);
        ok &= cuMemcpy3D(&r) == CUDA_SUCCESS;
        for (size_t y = 0; y < rows; y++) ok &= memcmp(bk + y * rowb, h + z * hp * hh + y * hp, rowb) == 0;
    }
    free(h);
    free(bk);
    return ok;
}

static void t_copy3d(void)
{
    init();
    size_t f0 = free_mem();
    struct { CUDA_ARRAY3D_DESCRIPTOR d; size_t rowb, rows, n; const char *what; } cs[] = {
        {d3(20, 10, 6, CU_AD_FORMAT_UNSIGNED_INT16, 2, 0), 80, 10, 6, "3D ushort2 20x10x6"},
        {d3(33, 9, 4, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_LAYERED), 132, 9, 4, "2D layered 33x9, 4 layers"},
        {d3(50, 0, 5, CU_AD_FORMAT_UNSIGNED_INT8, 4, CUDA_ARRAY3D_LAYERED), 200, 1, 5, "1D layered 50, 5 layers"},
        {d3(16, 16, 6, CU_AD_FORMAT_HALF, 4, CUDA_ARRAY3D_CUBEMAP), 128, 16, 6, "cubemap 16, 6 faces"},
        {d3(8, 8, 12, CU_AD_FORMAT_SIGNED_INT8, 1, CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED), 8, 8, 12,
         "cubemap layered 8, 2 layers x 6 faces"},
    };
    for (unsigned i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        CUarray a;
        MUST(cuArray3DCreate(&a, &cs[i].d));
        int ok = roundtrip(a, cs[i].rowb, cs[i].rows, cs[i].n, i + 3);
        CHECK(ok);
        NOTE("%-38s every slice written in one cuMemcpy3D, read back one by one: %s", cs[i].what,
             ok ? "match" : "MISMATCH");
        OK(cuArrayDestroy(a));
    }

    /* A sub-box with offsets on both sides: 3D array -> pitched device memory. */
    const size_t W = 24, Hh = 12, D = 7, E = 4, RB = W * E;
    CUarray a;
    CUDA_ARRAY3D_DESCRIPTOR ad = d3(W, Hh, D, CU_AD_FORMAT_SIGNED_INT32, 1, 0);
    MUST(cuArray3DCreate(&a, &ad));
    uint8_t *m = malloc(RB * Hh * D);
    for (size_t i = 0; i < RB * Hh * D; i++) m[i] = pat(i, 77);
    CUDA_MEMCPY3D p = c3();
    p.srcMemoryType = CU_MEMORYTYPE_HOST; p.srcHost = m; p.srcPitch = RB; p.srcHeight = Hh;
    p.dstMemoryType = CU_MEMORYTYPE_ARRAY; p.dstArray = a;
    p.WidthInBytes = RB; p.Height = Hh; p.Depth = D;
    OK(cuMemcpy3D(&p));
    const size_t DP = 128, DH = 9;
    CUdeviceptr dev;
    MUST(cuMemAlloc(&dev, DP * DH * 6));
    MUST(cuMemsetD8(dev, 0xee, DP * DH * 6));
    p = c3();
    p.srcMemoryType = CU_MEMORYTYPE_ARRAY; p.srcArray = a; p.srcXInBytes = 8; p.srcY = 2; p.srcZ = 1;
    p.dstMemoryType = CU_MEMORYTYPE_DEVICE; p.dstDevice = dev; p.dstPitch = DP; p.dstHeight = DH;
    p.dstXInBytes = 4; p.dstY = 1; p.dstZ = 1;
    p.WidthInBytes = 40; p.Height = 6; p.Depth = 5;
    CUstream st;
    MUST(cuStreamCreate(&st, 0));
    OK(cuMemcpy3DAsync(&p, st));
    OK(cuStreamSynchronize(st));
    uint8_t *dk = malloc(DP * DH * 6);
    OK(cuMemcpyDtoH(dk, dev, DP * DH * 6));
    int good = 1;
    for (size_t z = 0; z < 5; z++)
        for (size_t y = 0; y < 6; y++)
            good &= memcmp(dk + (z + 1) * DP * DH + (y + 1) * DP + 4, m + (z + 1) * RB * Hh + (y + 2) * RB + 8, 40) == 0;
    CHECK(good && dk[0] == 0xee && dk[DP * DH + DP + 3] == 0xee && dk[DP * DH + DP + 44] == 0xee);
    NOTE("3D array box (8,2,1) 40 bytes x 6 x 5 -> device pitch %zu height %zu at (4,1,1), async: match", DP, DH);

    /* The 1D calls on a 1D array: byte offsets within it. */
    CUarray l;
    CUDA_ARRAY_DESCRIPTOR ld = {1000, 0, CU_AD_FORMAT_UNSIGNED_INT16, 1};
    MUST(cuArrayCreate(&l, &ld));
    uint8_t h1[2000], h2[2000];
    for (int i = 0; i < 2000; i++) h1[i] = pat((size_t)i, 5);
    OK(cuMemcpyHtoA(l, 0, h1, 2000));
    memset(h2, 0, sizeof h2);
    OK(cuMemcpyAtoH(h2 + 100, l, 100, 500));
    CHECK(memcmp(h2 + 100, h1 + 100, 500) == 0 && h2[99] == 0 && h2[600] == 0);
    OK(cuMemcpyAtoD(dev, l, 200, 300));
    OK(cuMemcpyDtoA(l, 1000, dev, 300));
    OK(cuMemcpyAtoA(l, 1600, l, 0, 100));
    memcpy(h1 + 1000, h1 + 200, 300);
    memcpy(h1 + 1600, h1, 100);
    memset(h2, 0, sizeof h2);
    OK(cuMemcpyAtoHAsync(h2, l, 0, 2000, st));
    OK(cuStreamSynchronize(st));
    CHECK(memcmp(h1, h2, 2000) == 0);
    OK(cuMemcpyHtoAAsync(l, 4, h1, 8, st));
    OK(cuStreamSynchronize(st));
    memmove(h1 + 4, h1, 8);
    NOTE("1D array: HtoA, AtoH at offset, AtoD, DtoA, AtoA, AtoHAsync, HtoAAsync: contents match the model");
    /* Byte offsets need not be whole elements (NVIDIA accepts them, measured). */
    uint8_t odd[5] = {0xa1, 0xa2, 0xa3, 0xa4, 0xa5};
    OK(cuMemcpyHtoA(l, 1, odd, 5));
    memcpy(h1 + 1, odd, 5);
    memset(h2, 0, sizeof h2);
    OK(cuMemcpyAtoH(h2, l, 0, 2000));
    CHECK(memcmp(h1, h2, 2000) == 0);
    NOTE("5 bytes at byte offset 1 of a 16-bit array: written, the bytes around untouched");
    REFUSE(cuMemcpyHtoA(l, 1998, h1, 4), CUDA_ERROR_INVALID_VALUE);  /* past the end */
    REFUSE(cuMemcpyAtoH(NULL, l, 0, 4), CUDA_ERROR_INVALID_VALUE);
    REFUSE(cuMemcpyAtoD(0, l, 0, 4), CUDA_ERROR_INVALID_VALUE);
    REFUSE(cuMemcpyDtoA(NULL, 0, dev, 4), CUDA_ERROR_INVALID_VALUE);  /* as NVIDIA answers */
    REFUSE(cuMemcpyDtoA((CUarray)(uintptr_t)0x4321, 0, dev, 4), CUDA_ERROR_INVALID_HANDLE);
    /* Overlapping ranges of one array: accepted as NVIDIA accepts them (result not defined). */
    OK(cuMemcpyAtoA(l, 0, l, 50, 100));

    /* 3D refusals. */
    CUDA_MEMCPY3D g = c3();
    g.srcMemoryType = CU_MEMORYTYPE_HOST; g.srcHost = m; g.srcPitch = RB; g.srcHeight = Hh;
    g.dstMemoryType = CU_MEMORYTYPE_ARRAY; g.dstArray = a;
    g.WidthInBytes = 8; g.Height = 2; g.Depth = 2;
    CUDA_MEMCPY3D b;
    REFUSE(cuMemcpy3D(NULL), CUDA_ERROR_INVALID_VALUE);
    /* srcLOD/dstLOD/reserved0 "must be" 0, but NVIDIA ignores them (measured): so does vmgpu. */
    b = g; b.srcLOD = 1;
    OK(cuMemcpy3D(&b));
    b = g; b.dstLOD = 1;
    OK(cuMemcpy3D(&b));
    b = g; b.reserved0 = &b;
    OK(cuMemcpy3D(&b));
    b = g; b.dstZ = D - 1;
    REFUSE(cuMemcpy3D(&b), CUDA_ERROR_INVALID_VALUE);  /* past the last slice */
    b = g; b.srcHeight = 1;
    REFUSE(cuMemcpy3D(&b), CUDA_ERROR_INVALID_VALUE);  /* slice height < Height */
    b = g; b.Depth = 0;
    OK(cuMemcpy3D(&b));
    OK(cuMemcpy3D(&g));
    NOTE("%d refusals checked (error code, free memory unchanged)", nref);
    OK(cuArrayDestroy(a));
    OK(cuArrayDestroy(l));
    OK(cuMemFree(dev));
    OK(cuStreamDestroy(st));
    CHECK(free_mem() == f0);
    free(m);
    free(dk);
}

/* ------------------------------------------------------------------ mipmapped arrays */

static void t_mipmap(void)
{
    init();
    size_t f0 = free_mem();
    CUmipmappedArray mm;
    CUDA_ARRAY3D_DESCRIPTOR md = d3(64, 32, 0, CU_AD_FORMAT_FLOAT, 1, 0);
    OK(cuMipmappedArrayCreate(&mm, &md, 7));
    size_t f1 = free_mem();
    CHECK(f1 < f0);
    CUarray lv[7];
    int sizes_ok = 1, data_ok = 1;
    for (unsigned i = 0; i < 7; i++) {
        OK(cuMipmappedArrayGetLevel(&lv[i], mm, i));
        CUDA_ARRAY3D_DESCRIPTOR ld;
        OK(cuArray3DGetDescriptor(&ld, lv[i]));
        size_t w = 64 >> i, h = 32 >> i ? 32 >> i : 1;
        sizes_ok &= ld.Width == w && ld.Height == h && ld.Depth == 0 && ld.Format == CU_AD_FORMAT_FLOAT;
    }
    /* Every level its own pattern; then all read back (no level overwrote another). */
    for (unsigned i = 0; i < 7; i++) {
        size_t w = 64 >> i, h = 32 >> i ? 32 >> i : 1;
        uint8_t *hb = malloc(w * 4 * h);
        for (size_t k = 0; k < w * 4 * h; k++) hb[k] = pat(k, 20 + i);
        CUDA_MEMCPY2D p = c2();
        p.srcMemoryType = CU_MEMORYTYPE_HOST; p.srcHost = hb; p.srcPitch = w * 4;
        p.dstMemoryType = CU_MEMORYTYPE_ARRAY; p.dstArray = lv[i];
        p.WidthInBytes = w * 4; p.Height = h;
        OK(cuMemcpy2D(&p));
        free(hb);
    }
    for (unsigned i = 0; i < 7; i++) {
        size_t w = 64 >> i, h = 32 >> i ? 32 >> i : 1;
        uint8_t *hb = malloc(w * 4 * h);
        CUDA_MEMCPY2D p = c2();
        p.srcMemoryType = CU_MEMORYTYPE_ARRAY; p.srcArray = lv[i];
        p.dstMemoryType = CU_MEMORYTYPE_HOST; p.dstHost = hb; p.dstPitch = w * 4;
        p.WidthInBytes = w * 4; p.Height = h;
        OK(cuMemcpy2D(&p));
        for (size_t k = 0; k < w * 4 * h; k++) data_ok &= hb[k] == pat(k, 20 + i);
        free(hb);
    }
    CHECK(sizes_ok && data_ok);
    NOTE("2D 64x32 float, 7 levels: sizes 64x32 ... 1x1 %s, each level's own data intact: %s",
         sizes_ok ? "right" : "WRONG", data_ok ? "yes" : "NO");

    /* Refusals. */
    CUarray x;
    CUmipmappedArray m2;
    REFUSE(cuMipmappedArrayGetLevel(&x, mm, 7), CUDA_ERROR_INVALID_VALUE);
    REFUSE(cuMipmappedArrayGetLevel(NULL, mm, 0), CUDA_ERROR_INVALID_VALUE);
    REFUSE(cuMipmappedArrayCreate(NULL, &md, 1), CUDA_ERROR_INVALID_VALUE);
    REFUSE(cuMipmappedArrayCreate(&m2, NULL, 1), CUDA_ERROR_INVALID_VALUE);
    REFUSE(cuMipmappedArrayDestroy(NULL), CUDA_ERROR_INVALID_HANDLE);
    REFUSE(cuMipmappedArrayGetLevel(&x, (CUmipmappedArray)(uintptr_t)0x999, 0), CUDA_ERROR_INVALID_HANDLE);
    /* Level counts are clamped to [1, 1 + log2(64)] (NVIDIA accepts 0 and 8 here, measured). */
    unsigned want[2] = {1, 7}, asked[2] = {0, 8};
    for (int k = 0; k < 2; k++) {
        OK(cuMipmappedArrayCreate(&m2, &md, asked[k]));
        EXPECT(cuMipmappedArrayGetLevel(&x, m2, want[k] - 1), CUDA_SUCCESS);
        EXPECT(cuMipmappedArrayGetLevel(&x, m2, want[k]), CUDA_ERROR_INVALID_VALUE);
        OK(cuMipmappedArrayDestroy(m2));
        CHECK(free_mem() == f1);
    }
    NOTE("0 levels asked: 1 made; 8 asked of 64x32: 7 made; memory returned");
    /* A level belongs to its mipmapped array: destroying it does nothing (NVIDIA: SUCCESS). */
    OK(cuArrayDestroy(lv[3]));
    CHECK(free_mem() == f1);
    CUDA_ARRAY3D_DESCRIPTOR ld;
    OK(cuArray3DGetDescriptor(&ld, lv[3]));
    CHECK(ld.Width == 8 && ld.Height == 4);
    OK(cuMipmappedArrayDestroy(mm));
    CHECK(free_mem() == f0);
    REFUSE(cuMipmappedArrayDestroy(mm), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    REFUSE(cuMipmappedArrayGetLevel(&x, mm, 0), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    REFUSE(cuArray3DGetDescriptor(&ld, lv[0]), CUDA_ERROR_CONTEXT_IS_DESTROYED);  /* levels went with it */

    /* 3D levels halve the depth; layers and cube faces stay. */
    struct { CUDA_ARRAY3D_DESCRIPTOR d; unsigned n; size_t w4, h4, d4; const char *what; } ms[] = {
        {d3(32, 16, 8, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0), 6, 2, 1, 1, "3D 32x16x8"},
        {d3(32, 16, 3, CU_AD_FORMAT_UNSIGNED_INT8, 1, CUDA_ARRAY3D_LAYERED), 6, 2, 1, 3, "2D layered 32x16, 3 layers"},
        {d3(16, 16, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP), 5, 1, 1, 6, "cubemap 16"},
    };
    for (unsigned i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        CUmipmappedArray m3;
        OK(cuMipmappedArrayCreate(&m3, &ms[i].d, ms[i].n));
        CUarray l4;
        OK(cuMipmappedArrayGetLevel(&l4, m3, 4));
        OK(cuArray3DGetDescriptor(&ld, l4));
        CHECK(ld.Width == ms[i].w4 && ld.Height == ms[i].h4 && ld.Depth == ms[i].d4);
        size_t rowb = ld.Width * (ms[i].d.Format == CU_AD_FORMAT_FLOAT ? 4 : ms[i].d.NumChannels);
        CHECK(roundtrip(l4, rowb, ld.Height, ld.Depth, 50 + i));
        CUarray l0;
        OK(cuMipmappedArrayGetLevel(&l0, m3, 0));
        CHECK(roundtrip(l0, ms[i].d.Width * (ms[i].d.Format == CU_AD_FORMAT_FLOAT ? 4 : ms[i].d.NumChannels),
                        ms[i].d.Height, ms[i].d.Depth, 60 + i));
        NOTE("%-28s level 4 is %zux%zux%zu; levels 0 and 4 written and read back slice by slice",
             ms[i].what, ld.Width, ld.Height, ld.Depth);
        OK(cuMipmappedArrayDestroy(m3));
    }
    CHECK(free_mem() == f0);
    NOTE("%d refusals checked; all memory returned", nref);
}

static const struct { const char *name; void (*fn)(void); } cases[] = {
    {"create", t_create},
    {"copy2d", t_copy2d},
    {"copy3d", t_copy3d},
    {"mipmap", t_mipmap},
};

int main(int argc, char **argv)
{
    unsigned n = sizeof cases / sizeof cases[0];
    for (unsigned i = 0; argc == 2 && i < n; i++) {
        if (strcmp(argv[1], cases[i].name) != 0) continue;
        printf("cuda arrays test %s\n", cases[i].name);
        cases[i].fn();
        printf("%s: %d checks, %s\n", cases[i].name, checks, fails ? "FAILED" : "passed");
        return fails ? 1 : 0;
    }
    printf("usage: %s <case>:", argv[0]);
    for (unsigned i = 0; i < n; i++) printf(" %s", cases[i].name);
    printf("\n");
    return 2;
}
