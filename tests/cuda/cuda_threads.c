/*
 * Multi-threaded use of vmgpu's libcuda: each thread creates its own context, checks that the
 * context stack is its own (push/pop/set do not leak into other threads), and runs copies,
 * fills and a kernel concurrently with the others; every thread checks its own data. One thread
 * also shares a context with the main thread through cuCtxPushCurrent.
 */
#include <pthread.h>
#include <stdint.h>

#include "cu_check.h"
#include "vmgpu_builtin.h"

#define NTHREADS 4
#define ITERS 6
#define BYTES (48 * 1024)

static pthread_mutex_t g_m = PTHREAD_MUTEX_INITIALIZER;
static CUcontext g_shared;

typedef struct { int id; int bad; int ops; } job;

static void *worker(void *arg)
{
    job *j = arg;
    CUcontext cur = (CUcontext)1, mine, other;
    if (cuCtxGetCurrent(&cur) != CUDA_SUCCESS || cur != NULL) j->bad++;  /* a new thread: empty stack */
    if (cuCtxCreate(&mine, NULL, 0, 0) != CUDA_SUCCESS) { j->bad++; return NULL; }
    /* Push the shared context on top, check, pop back to ours. */
    if (cuCtxPushCurrent(g_shared) || cuCtxGetCurrent(&cur) || cur != g_shared) j->bad++;
    if (cuCtxPopCurrent(&other) || other != g_shared || cuCtxGetCurrent(&cur) || cur != mine) j->bad++;
    CUmodule mod;
    CUfunction add;
    if (cuModuleLoadData(&mod, VMGPU_BUILTIN_IMAGE) || cuModuleGetFunction(&add, mod, VMGPU_BUILTIN_ADD_I32)) j->bad++;
    CUdeviceptr a, b, d;
    if (cuMemAlloc(&a, BYTES) || cuMemAlloc(&b, BYTES) || cuMemAlloc(&d, BYTES)) { j->bad++; return NULL; }
    CUstream s;
    if (cuStreamCreate(&s, 0)) j->bad++;
    int32_t *x = malloc(BYTES), *y = malloc(BYTES);
    int n = BYTES / 4;
    for (int it = 0; it < ITERS; it++) {
        int32_t seed = j->id * 1000 + it;
        for (int i = 0; i < n; i++) x[i] = seed * 7 + i;
        if (cuMemcpyHtoDAsync(a, x, BYTES, s)) j->bad++;
        if (cuMemsetD32Async(b, (unsigned)seed, n, s)) j->bad++;
        void *args[5] = {&d, &a, &b, &n, &seed};
        if (cuLaunchKernel(add, n / 256, 1, 1, 256, 1, 1, 0, s, args, NULL)) j->bad++;
        if (cuStreamSynchronize(s)) j->bad++;
        if (cuMemcpyDtoH(y, d, BYTES)) j->bad++;
        for (int i = 0; i < n; i++)
            if (y[i] != x[i] + seed) { j->bad++; break; }
        if (cuCtxGetCurrent(&cur) || cur != mine) j->bad++;  /* other threads did not move it */
        j->ops += 5;
    }
    cuStreamDestroy(s);
    cuMemFree(a); cuMemFree(b); cuMemFree(d);
    cuModuleUnload(mod);
    if (cuCtxDestroy(mine)) j->bad++;
    pthread_mutex_lock(&g_m);
    pthread_mutex_unlock(&g_m);
    free(x); free(y);
    return NULL;
}

int main(void)
{
    printf("cuda test threads\n");
    MUST(cuInit(0));
    MUST(cuCtxCreate(&g_shared, NULL, 0, 0));
    pthread_t t[NTHREADS];
    job jobs[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        jobs[i] = (job){i + 1, 0, 0};
        pthread_create(&t[i], NULL, worker, &jobs[i]);
    }
    /* The main thread keeps using its own context meanwhile. */
    CUdeviceptr p;
    OK(cuMemAlloc(&p, 4096));
    for (int i = 0; i < 10; i++) {
        uint32_t v = 0;
        OK(cuMemsetD32(p, 0x1000u + (unsigned)i, 1024));
        OK(cuMemcpyDtoH(&v, p + 4092, 4));
        CHECK(v == 0x1000u + (unsigned)i);
    }
    for (int i = 0; i < NTHREADS; i++) pthread_join(t[i], NULL);
    int bad = 0, ops = 0;
    for (int i = 0; i < NTHREADS; i++) {
        bad += jobs[i].bad;
        ops += jobs[i].ops;
        CHECK(jobs[i].bad == 0);
    }
    CUcontext cur;
    OK(cuCtxGetCurrent(&cur));
    CHECK(cur == g_shared);
    NOTE("%d threads x %d iterations (%d async copies/fills/kernels, each checked), own contexts and "
         "stacks, main thread working alongside: %d failures", NTHREADS, ITERS, ops, bad);
    OK(cuCtxDestroy(g_shared));
    printf("threads: %d checks, %s\n", checks, fails ? "FAILED" : "passed");
    return fails ? 1 : 0;
}
