/*
 * A CUDA driver API program meant to be compiled against NVIDIA's own cuda.h (not vmgpu's), and
 * then linked against and run on either NVIDIA's libcuda or vmgpu's. It checks its own results
 * and ends with one line "nvidia_header_program: PASS" or "... FAIL".
 *
 * Built with NVIDIA's header, every call below references the symbol that header maps the name
 * to (cuMemAlloc -> cuMemAlloc_v2, cuCtxCreate -> cuCtxCreate_v4 in 13.x, cuEventElapsedTime ->
 * cuEventElapsedTime_v2, ...) and every struct it passes (CUmemAllocationProp, CUmemAccessDesc,
 * CUmemLocation, CUuuid) has NVIDIA's layout: running it on vmgpu tests the ABI, not the API.
 *
 * Built-in kernels exist on vmgpu only: the program detects vmgpu by cuModuleLoadData accepting
 * vmgpu's built-in module image (the string documented in vmgpu_builtin.h, written out here so
 * that no vmgpu header is needed); on NVIDIA's driver that image is refused and the kernel part
 * is skipped.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>

/* vmgpu's built-in module (sw/include/vmgpu_builtin.h). */
#define BUILTIN_IMAGE "vmgpu-builtin-v1"
#define BUILTIN_ADD "vmgpu_add_i32"
#define BUILTIN_SCALE "vmgpu_scale_i32"
#define BUILTIN_FILL "vmgpu_fill_i32"

static int checks, fails;

static const char *ename(CUresult rc)
{
    const char *n = NULL;
    if (cuGetErrorName(rc, &n) != CUDA_SUCCESS || !n) return "?";
    return n;
}

#define EXPECT(call, want) do { checks++; CUresult rc_ = (call); if (rc_ != (want)) { \
    printf("  FAIL line %d: %s -> %s, want %s\n", __LINE__, #call, ename(rc_), ename(want)); \
    fails++; } } while (0)
#define OK(call) EXPECT(call, CUDA_SUCCESS)
#define CHECK(c) do { checks++; if (!(c)) { printf("  FAIL line %d: %s\n", __LINE__, #c); fails++; } } while (0)
#define MUST(call) do { CUresult rc_ = (call); if (rc_ != CUDA_SUCCESS) { \
    printf("  FATAL line %d: %s -> %s\nnvidia_header_program: FAIL\n", __LINE__, #call, ename(rc_)); exit(1); } } while (0)

#define N 4096 /* int32 elements of each test buffer */

static CUresult new_context(CUcontext *c, CUdevice dev)
{
#if CUDA_VERSION >= 13000
    return cuCtxCreate(c, NULL, 0, dev); /* cuCtxCreate_v4 */
#else
    return cuCtxCreate(c, 0, dev);
#endif
}

/* Reads n words at p and counts those that differ from want[i] (or from fill if want is NULL). */
static int mismatches(CUdeviceptr p, const int32_t *want, int32_t fill, size_t n)
{
    int32_t *got = malloc(n * sizeof *got);
    if (!got || cuMemcpyDtoH(got, p, n * sizeof *got) != CUDA_SUCCESS) {
        free(got);
        return -1;
    }
    int bad = 0;
    for (size_t i = 0; i < n; i++) bad += got[i] != (want ? want[i] : fill);
    free(got);
    return bad;
}

static CUresult launch5(CUfunction f, CUstream s, CUdeviceptr dst, CUdeviceptr a, CUdeviceptr b, int n, int scalar)
{
    void *args[5] = {&dst, &a, &b, &n, &scalar};
    return cuLaunchKernel(f, (unsigned)(n + 255) / 256, 1, 1, 256, 1, 1, 0, s, args, NULL);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    printf("nvidia_header_program: built against cuda.h CUDA_VERSION %d\n", CUDA_VERSION);

    /* ---- init, device queries (cuDeviceTotalMem_v2, cuDeviceGetUuid_v2) */
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_NOT_INITIALIZED);
    MUST(cuInit(0));
    int ver = 0, count = 0;
    OK(cuDriverGetVersion(&ver));
    CHECK(ver >= 1000);
    OK(cuDeviceGetCount(&count));
    CHECK(count >= 1);
    CUdevice dev;
    MUST(cuDeviceGet(&dev, 0));
    EXPECT(cuDeviceGet(&dev, count), CUDA_ERROR_INVALID_DEVICE);
    MUST(cuDeviceGet(&dev, 0));
    char name[256] = {0};
    OK(cuDeviceGetName(name, sizeof name, dev));
    CHECK(name[0] != 0);
    size_t total = 0;
    OK(cuDeviceTotalMem(&total, dev));
    CHECK(total > 0);
    CUuuid uuid;
    memset(&uuid, 0, sizeof uuid);
    OK(cuDeviceGetUuid(&uuid, dev));
    int major = 0, minor = -1;
    OK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    OK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    CHECK(major >= 1 && minor >= 0);
    printf("  driver %d, device \"%s\", %zu bytes, compute capability %d.%d\n", ver, name, total, major, minor);
    const char *s = NULL;
    OK(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &s));
    CHECK(s && strcmp(s, "CUDA_ERROR_INVALID_VALUE") == 0);
    OK(cuGetErrorString(CUDA_ERROR_ILLEGAL_ADDRESS, &s));
    CHECK(s && s[0]);

    /* ---- primary context (cuDevicePrimaryCtxRelease_v2), own context (cuCtxCreate_v4 on 13.x) */
    CUcontext pctx = NULL, ctx = NULL, cur = NULL;
    OK(cuDevicePrimaryCtxRetain(&pctx, dev));
    CHECK(pctx != NULL);
    OK(cuDevicePrimaryCtxRelease(dev));
    MUST(new_context(&ctx, dev));
    OK(cuCtxGetCurrent(&cur));
    CHECK(cur == ctx);
    CUdevice cdev = -1;
    OK(cuCtxGetDevice(&cdev));
    CHECK(cdev == dev);
    EXPECT(cuCtxPushCurrent(NULL), CUDA_ERROR_INVALID_VALUE);

    /* ---- VMM: granularity with NVIDIA's CUmemAllocationProp layout */
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t g = 0, grec = 0;
    MUST(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    OK(cuMemGetAllocationGranularity(&grec, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    CHECK(g >= 4096 && (g & (g - 1)) == 0 && grec >= g && grec % g == 0);
    EXPECT(cuMemGetAllocationGranularity(&g, NULL, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_ERROR_INVALID_VALUE);
    printf("  allocation granularity %zu (recommended %zu)\n", g, grec);

    /* ---- VMM walkthrough: reserve -> create -> map -> set access */
    CUdeviceptr va = 0, va2 = 0;
    CUmemGenericAllocationHandle h = 0, hr = 0, hi = 0;
    MUST(cuMemAddressReserve(&va, 4 * g, 0, 0, 0));
    MUST(cuMemAddressReserve(&va2, 2 * g, 0, 0, 0));
    CHECK(va % g == 0 && va2 % g == 0);
    MUST(cuMemCreate(&h, 2 * g, &prop, 0));
    CUmemAllocationProp back;
    memset(&back, 0x5a, sizeof back);
    OK(cuMemGetAllocationPropertiesFromHandle(&back, h));
    CHECK(back.type == CU_MEM_ALLOCATION_TYPE_PINNED);
    CHECK(back.location.type == CU_MEM_LOCATION_TYPE_DEVICE && back.location.id == dev);
    CHECK(back.requestedHandleTypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    EXPECT(cuMemMap(va, 2 * g, 0, h, 1), CUDA_ERROR_INVALID_VALUE);          /* flags must be 0 */
    MUST(cuMemMap(va, 2 * g, 0, h, 0));
    EXPECT(cuMemMap(va, g, 0, h, 0), CUDA_ERROR_NOT_SUPPORTED);              /* over a mapping */
    CUmemLocation loc;
    memset(&loc, 0, sizeof loc);
    loc.type = CU_MEM_LOCATION_TYPE_DEVICE;
    loc.id = dev;
    unsigned long long acc = 99;
    OK(cuMemGetAccess(&acc, &loc, va));
    CHECK(acc == CU_MEM_ACCESS_FLAGS_PROT_NONE);
    CUmemAccessDesc rw, ro;
    memset(&rw, 0, sizeof rw);
    rw.location = loc;
    rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    ro = rw;
    ro.flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
    EXPECT(cuMemSetAccess(va, 2 * g, &rw, 0), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemSetAccess(va, 2 * g, &rw, 1));
    OK(cuMemGetAccess(&acc, &loc, va + g));
    CHECK(acc == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);

    int32_t *pat = malloc(N * sizeof *pat), *pat2 = malloc(N * sizeof *pat2);
    if (!pat || !pat2) return 1;
    for (int i = 0; i < N; i++) {
        pat[i] = i * 7 - 1000;
        pat2[i] = 3 * i + 11;
    }
    OK(cuMemcpyHtoD(va, pat, N * sizeof *pat));
    CHECK(mismatches(va, pat, 0, N) == 0);
    OK(cuMemsetD32(va + g, 0xA5A5A5A5u, N));
    CHECK(mismatches(va + g, NULL, (int32_t)0xA5A5A5A5u, N) == 0);

    /* one allocation at two addresses: retain, export to a POSIX fd, import, map again */
    OK(cuMemRetainAllocationHandle(&hr, (void *)(uintptr_t)(va + g + 64)));
    CHECK(hr == h);
    OK(cuMemRelease(hr));
    int fd = -1;
    OK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    CHECK(fd >= 0);
    OK(cuMemImportFromShareableHandle(&hi, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    if (fd >= 0) close(fd);
    OK(cuMemMap(va2, 2 * g, 0, hi, 0));
    OK(cuMemSetAccess(va2, 2 * g, &rw, 1));
    CHECK(mismatches(va2, pat, 0, N) == 0);                     /* written through va */
    OK(cuMemsetD32(va2, 0x01020304u, 16));
    CHECK(mismatches(va, NULL, 0x01020304, 16) == 0);           /* written through va2 */
    OK(cuMemRelease(hi));

    /* read-only: copies and fills into it are refused, reads still work */
    OK(cuMemSetAccess(va2, 2 * g, &ro, 1));
    OK(cuMemGetAccess(&acc, &loc, va2));
    CHECK(acc == CU_MEM_ACCESS_FLAGS_PROT_READ);
    EXPECT(cuMemsetD32(va2, 0, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyHtoD(va2, pat, 64), CUDA_ERROR_INVALID_VALUE);
    CHECK(mismatches(va2 + g, NULL, (int32_t)0xA5A5A5A5u, N) == 0);
    OK(cuCtxSynchronize());                                      /* refusals are not sticky */

    /* release while mapped: the memory lives until its last mapping goes */
    OK(cuMemRelease(h));
    EXPECT(cuMemRelease(h), CUDA_ERROR_INVALID_VALUE);
    CHECK(mismatches(va + g, NULL, (int32_t)0xA5A5A5A5u, N) == 0);

    /* ---- cuMemAlloc family (_v2 names) */
    CUdeviceptr da = 0, db = 0, dc = 0, base = 0;
    size_t bsz = 0, freeb = 0, totb = 0;
    MUST(cuMemAlloc(&da, N * 4));
    MUST(cuMemAlloc(&db, N * 4));
    MUST(cuMemAlloc(&dc, N * 4));
    OK(cuMemGetAddressRange(&base, &bsz, da + 40));
    CHECK(base == da && bsz >= N * 4);
    OK(cuMemGetInfo(&freeb, &totb));
    CHECK(totb > 0 && freeb <= totb);
    unsigned int mtype = 0;
    OK(cuPointerGetAttribute(&mtype, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, da));
    CHECK(mtype == CU_MEMORYTYPE_DEVICE);
    CUcontext actx = NULL;
    OK(cuPointerGetAttribute(&actx, CU_POINTER_ATTRIBUTE_CONTEXT, da));
    CHECK(actx == ctx);
    EXPECT(cuMemsetD32(da + 2, 1, 4), CUDA_ERROR_INVALID_VALUE);  /* misaligned */

    /* ---- pinned host memory (cuMemAllocHost_v2, cuMemHostGetDevicePointer_v2) */
    int32_t *hp = NULL;
    MUST(cuMemAllocHost((void **)&hp, N * 4));
    CUdeviceptr hdp = 0;
    OK(cuMemHostGetDevicePointer(&hdp, hp, 0));
    CHECK(hdp != 0);
    OK(cuPointerGetAttribute(&mtype, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)hp));
    CHECK(mtype == CU_MEMORYTYPE_HOST);
    memcpy(hp, pat2, N * 4);
    OK(cuMemcpyHtoD(db, hp, N * 4));
    CHECK(mismatches(db, pat2, 0, N) == 0);
    OK(cuMemcpyHtoD(da, pat, N * 4));

    /* ---- registered host memory (cuMemHostRegister_v2) */
    static int32_t reg[2048] __attribute__((aligned(4096)));
    OK(cuMemHostRegister(reg, sizeof reg, 0));
    EXPECT(cuMemHostRegister(reg, sizeof reg, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    OK(cuMemcpyDtoH(reg, da, sizeof reg));
    CHECK(memcmp(reg, pat, sizeof reg) == 0);
    OK(cuMemHostUnregister(reg));
    EXPECT(cuMemHostUnregister(reg), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);

    /* ---- streams and events (cuStreamDestroy_v2, cuEventDestroy_v2, cuEventElapsedTime_v2 on 13.x) */
    CUstream st = NULL;
    CUevent e0 = NULL, e1 = NULL;
    OK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
    unsigned sflags = 99;
    OK(cuStreamGetFlags(st, &sflags));
    CHECK(sflags == CU_STREAM_NON_BLOCKING);
    OK(cuEventCreate(&e0, CU_EVENT_DEFAULT));
    OK(cuEventCreate(&e1, CU_EVENT_DEFAULT));
    OK(cuEventRecord(e0, st));
    OK(cuMemsetD32Async(dc, 0x33333333u, N, st));
    OK(cuMemcpyDtoDAsync(dc, db, 64 * 4, st));
    OK(cuMemcpyDtoHAsync(hp, dc, N * 4, st));
    OK(cuEventRecord(e1, st));
    OK(cuStreamSynchronize(st));
    OK(cuStreamQuery(st));
    OK(cuEventQuery(e1));
    OK(cuEventSynchronize(e1));
    float ms = -1.0f;
    OK(cuEventElapsedTime(&ms, e0, e1));
    CHECK(ms >= 0.0f);
    {
        int bad = 0;
        for (int i = 0; i < N; i++) bad += hp[i] != (i < 64 ? pat2[i] : 0x33333333);
        CHECK(bad == 0);
    }
    OK(cuStreamWaitEvent(NULL, e1, 0));
    OK(cuMemcpyDtoD(dc, da, N * 4));
    CHECK(mismatches(dc, pat, 0, N) == 0);
    printf("  streams/events: async fill+copy+readback in %.3f ms\n", ms);

    /* ---- built-in kernels: only vmgpu's driver knows this image */
    CUmodule mod = NULL;
    CUresult lrc = cuModuleLoadData(&mod, BUILTIN_IMAGE);
    if (lrc == CUDA_SUCCESS) {
        printf("  vmgpu driver: built-in module loaded, running kernels\n");
        CUfunction fadd = NULL, fscale = NULL, ffill = NULL, fx = NULL;
        OK(cuModuleGetFunction(&fadd, mod, BUILTIN_ADD));
        OK(cuModuleGetFunction(&fscale, mod, BUILTIN_SCALE));
        OK(cuModuleGetFunction(&ffill, mod, BUILTIN_FILL));
        EXPECT(cuModuleGetFunction(&fx, mod, "no_such_kernel"), CUDA_ERROR_NOT_FOUND);
        OK(launch5(fadd, st, dc, da, db, N, 0));                 /* dc = da + db */
        OK(cuStreamSynchronize(st));
        int32_t *sum = malloc(N * 4);
        if (!sum) return 1;
        for (int i = 0; i < N; i++) sum[i] = pat[i] + pat2[i];
        CHECK(mismatches(dc, sum, 0, N) == 0);
        OK(launch5(fscale, NULL, va, dc, 0, N, -3));             /* into VMM memory (read-write) */
        OK(cuCtxSynchronize());
        for (int i = 0; i < N; i++) sum[i] = -3 * (pat[i] + pat2[i]);
        CHECK(mismatches(va, sum, 0, N) == 0);

        /* A kernel writing read-only memory faults its context only (sticky ILLEGAL_ADDRESS). */
        CUcontext c2 = NULL;
        CUmodule m2 = NULL;
        CUfunction f2 = NULL;
        MUST(new_context(&c2, dev));
        OK(cuModuleLoadData(&m2, BUILTIN_IMAGE));
        OK(cuModuleGetFunction(&f2, m2, BUILTIN_FILL));
        OK(launch5(f2, NULL, va2, 0, 0, 64, 7));
        EXPECT(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
        EXPECT(cuMemAlloc(&base, 64), CUDA_ERROR_ILLEGAL_ADDRESS);
        OK(cuCtxPopCurrent(&cur));
        CHECK(cur == c2);
        OK(cuCtxSynchronize());                                  /* ctx is unaffected */
        CHECK(mismatches(va2, sum, 0, N) == 0);                 /* the fault wrote nothing */
        free(sum);
        OK(launch5(ffill, NULL, dc, 0, 0, 16, 5));
        OK(cuCtxSynchronize());
        CHECK(mismatches(dc, NULL, 5, 16) == 0);
        OK(cuCtxDestroy(c2));
        OK(cuModuleUnload(mod));
        EXPECT(cuModuleUnload(mod), CUDA_ERROR_INVALID_HANDLE);
    } else {
        EXPECT(lrc, CUDA_ERROR_INVALID_IMAGE);
        printf("  not vmgpu's driver (cuModuleLoadData: %s): built-in kernels skipped\n", ename(lrc));
    }

    /* ---- error codes */
    EXPECT(cuMemFree(0), CUDA_SUCCESS);
    OK(cuMemFree(da));
    EXPECT(cuMemFree(da), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemRelease(0), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr dx = 0;
    CUstream sx = NULL;
    CUevent ex = NULL;
    CUmodule mx = NULL;
    EXPECT(cuMemAlloc(&dx, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuStreamCreate(&sx, 8), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuEventCreate(&ex, 0x40), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuModuleLoadData(&mx, "not a module"), CUDA_ERROR_INVALID_IMAGE);
    EXPECT(cuMemAddressFree(va, 4 * g), CUDA_ERROR_INVALID_VALUE);   /* still mapped */

    /* ---- teardown */
    OK(cuMemUnmap(va, 2 * g));
    OK(cuMemUnmap(va2, 2 * g));
    EXPECT(cuMemRetainAllocationHandle(&hr, (void *)(uintptr_t)va), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemAddressFree(va, 4 * g));
    OK(cuMemAddressFree(va2, 2 * g));
    OK(cuEventDestroy(e0));
    OK(cuEventDestroy(e1));
    OK(cuStreamDestroy(st));
    OK(cuMemFreeHost(hp));
    OK(cuMemFree(db));
    OK(cuMemFree(dc));
    OK(cuCtxDestroy(ctx));
    free(pat);
    free(pat2);

    printf("nvidia_header_program: %d checks, %d failed\n", checks, fails);
    printf("nvidia_header_program: %s\n", fails ? "FAIL" : "PASS");
    return fails ? 1 : 0;
}
