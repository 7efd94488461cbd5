/*
 * A program built against a CUDA 12.x header still links and runs against vmgpu's libcuda, now
 * that vmgpu's cuda.h declares 13.0. 12.x headers send cuCtxCreate to the three-argument
 * cuCtxCreate_v2, cuEventElapsedTime to the plain export and (11.3-11.8) cuGetProcAddress to the
 * four-argument plain export; this file names those symbols directly, as such a binary does, and
 * checks that each behaves as its 12.x declaration promises.
 */
#define VMGPU_CUDA_NO_VERSION_MACROS
#include <stdio.h>
#include <string.h>

#include <cuda.h>

/* The 12.x declarations of the exports this program references (bound by symbol name, since the
 * 13.0 header declares some of the same C names with other arguments). */
CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult CUDAAPI legacy_cuCtxDestroy(CUcontext ctx) __asm__("cuCtxDestroy_v2");
CUresult CUDAAPI legacy_cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
    __asm__("cuGetProcAddress");

static int failures;
#define CHECK(cond) do { if (!(cond)) { printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); failures++; } \
                         else printf("ok   %s\n", #cond); } while (0)

int main(void)
{
    CUcontext ctx = NULL;
    CUdevice dev;
    CHECK(cuInit(0) == CUDA_SUCCESS);
    CHECK(cuDeviceGet(&dev, 0) == CUDA_SUCCESS);
    CHECK(cuCtxCreate_v2(&ctx, 0, dev) == CUDA_SUCCESS && ctx != NULL);
    CHECK(cuCtxCreate_v2(NULL, 0, dev) == CUDA_ERROR_INVALID_VALUE);
    CUevent a, b;
    CHECK(cuEventCreate(&a, 0) == CUDA_SUCCESS && cuEventCreate(&b, 0) == CUDA_SUCCESS);
    CHECK(cuEventRecord(a, NULL) == CUDA_SUCCESS && cuEventRecord(b, NULL) == CUDA_SUCCESS);
    CHECK(cuEventSynchronize(b) == CUDA_SUCCESS);
    float ms = -1;
    CHECK(cuEventElapsedTime(&ms, a, b) == CUDA_SUCCESS && ms >= 0);   /* the plain 12.x export */
    void *p = NULL;
    CHECK(legacy_cuGetProcAddress("cuCtxCreate", &p, 12000, 0) == CUDA_SUCCESS &&
          p == (void *)cuCtxCreate_v3);   /* 12.0 knew cuCtxCreate_v3 as the newest */
    CHECK(legacy_cuGetProcAddress("cuCtxCreate", &p, 3020, 0) == CUDA_SUCCESS && p == (void *)cuCtxCreate_v2);
    p = (void *)0x1;
    CHECK(legacy_cuGetProcAddress("cuNoSuchCall", &p, 12000, 0) == CUDA_ERROR_NOT_FOUND && p == (void *)0x1);
    CHECK(legacy_cuGetProcAddress("cuMemMap", &p, 10000, 0) == CUDA_ERROR_NOT_FOUND);
    int v = 0;
    CHECK(cuDriverGetVersion(&v) == CUDA_SUCCESS && v == 13000);
    CHECK(legacy_cuCtxDestroy(ctx) == CUDA_SUCCESS);
    printf("%d passed, %d failed\n", 12 - failures, failures);
    return failures ? 1 : 0;
}
