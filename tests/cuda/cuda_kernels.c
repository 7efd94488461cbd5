/*
 * CUDA kernels from PTX on the SIMT unit (docs/cuda.md "Modules and launches"), the checks the
 * NVIDIA probe (probe/kernel_probe.c) cannot make: results against a C reference, device memory
 * unchanged by every refused call (cuMemGetInfo: the core's physical allocator), module and
 * context memory given back, and the trace. One ctest per case: results, state, trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"

static int failures;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
    printf(__VA_ARGS__); printf("\n"); } } while (0)
#define EXPECT(call, want) do { CUresult r_ = (call); if (r_ != (want)) { const char *n_ = "?"; \
    cuGetErrorName(r_, &n_); failures++; printf("FAIL %s:%d: %s -> %s (%d), want %d\n", __FILE__, __LINE__, \
    #call, n_, r_, (int)(want)); } } while (0)

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("cannot open %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = calloc(1, (size_t)n + 1);
    if (fread(b, 1, (size_t)n, f) != (size_t)n) exit(2);
    fclose(f);
    return b;
}
static char *fixture(const char *name)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", getenv("FIXTURES") ? getenv("FIXTURES") : "tests", name);
    return slurp(p);
}

static size_t free_mem(void)
{
    size_t fr = 0, tot = 0;
    cuMemGetInfo(&fr, &tot);
    return fr;
}

#define N 300
static int ha[N], hb[N], hc[N];
static CUdeviceptr da, db, dc;

static void buffers(void)
{
    for (int i = 0; i < N; i++) {
        ha[i] = i * 7 - 1000;
        hb[i] = 100000 - i * i;
    }
    cuMemAlloc(&da, sizeof ha);
    cuMemAlloc(&db, sizeof hb);
    cuMemAlloc(&dc, sizeof hc);
    cuMemcpyHtoD(da, ha, sizeof ha);
    cuMemcpyHtoD(db, hb, sizeof hb);
}

static int vadd_right(unsigned n)
{
    cuMemcpyDtoH(hc, dc, sizeof hc);
    for (unsigned i = 0; i < N; i++)
        if (hc[i] != (i < n ? ha[i] + hb[i] : -1)) return 0;
    return 1;
}

static void case_results(void)
{
    CUmodule m, mr;
    CUfunction f, fr;
    buffers();
    EXPECT(cuModuleLoadData(&m, fixture("ptx/fixtures/vadd.ptx")), CUDA_SUCCESS);
    EXPECT(cuModuleGetFunction(&f, m, "vadd"), CUDA_SUCCESS);
    unsigned n = N;
    void *args[] = {&da, &db, &dc, &n};
    cuMemsetD32(dc, 0xffffffffu, N);
    EXPECT(cuLaunchKernel(f, (N + 15) / 16, 1, 1, 16, 1, 1, 0, NULL, args, NULL), CUDA_SUCCESS);
    EXPECT(cuCtxSynchronize(), CUDA_SUCCESS);
    CHECK(vadd_right(N), "vadd with kernelParams");
    /* extra: the same block the kernel declares (three pointers, then n) */
    struct { unsigned long long a, b, c; unsigned n; } blk = {da, db, dc, 123};
    size_t size = 28;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &blk, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    cuMemsetD32(dc, 0xffffffffu, N);
    EXPECT(cuLaunchKernel(f, (N + 15) / 16, 1, 1, 16, 1, 1, 0, NULL, NULL, extra), CUDA_SUCCESS);
    EXPECT(cuCtxSynchronize(), CUDA_SUCCESS);
    CHECK(vadd_right(123), "vadd with extra (n 123)");
    /* many launches in flight: the argument area's slots are reused only after their launch */
    for (unsigned k = 0; k < 40; k++) {
        static unsigned ns[40];
        ns[k] = k * 7;
        void *a2[] = {&da, &db, &dc, &ns[k]};
        EXPECT(cuLaunchKernel(f, (N + 15) / 16, 1, 1, 16, 1, 1, 0, NULL, a2, NULL), CUDA_SUCCESS);
    }
    EXPECT(cuCtxSynchronize(), CUDA_SUCCESS);
    cuMemcpyDtoH(hc, dc, sizeof hc);
    /* the last launch (n 273) wrote [0, 273); no launch reached 273 since the one with n 123 */
    CHECK(hc[272] == ha[272] + hb[272] && hc[273] == -1, "40 launches in a row");
    /* reduce: shared memory and barriers, against a C reference */
    EXPECT(cuModuleLoadData(&mr, fixture("ptx/fixtures/reduce.ptx")), CUDA_SUCCESS);
    EXPECT(cuModuleGetFunction(&fr, mr, "reduce"), CUDA_SUCCESS);
    unsigned spin = 2;
    void *ra[] = {&da, &dc, &spin};
    EXPECT(cuLaunchKernel(fr, 5, 1, 1, 16, 1, 1, 0, NULL, ra, NULL), CUDA_SUCCESS);
    EXPECT(cuCtxSynchronize(), CUDA_SUCCESS);
    cuMemcpyDtoH(hc, dc, 5 * sizeof(int));
    for (int b = 0; b < 5; b++) {
        int sum = 0;
        for (unsigned t = 0; t < 16; t++) {
            int v = ha[b * 16 + (int)t];
            for (unsigned k = 0; k < t * spin; ++k) v = (int)(((unsigned)v ^ k) * 3u);
            sum = (int)((unsigned)sum + (unsigned)v);
        }
        CHECK(hc[b] == sum, "reduce block %d: %d, want %d", b, hc[b], sum);
    }
    EXPECT(cuModuleUnload(m), CUDA_SUCCESS);
    EXPECT(cuModuleUnload(mr), CUDA_SUCCESS);
}

static void case_state(void)
{
    CUcontext c0;
    CUmodule m, mx;
    CUfunction f;
    cuCtxGetCurrent(&c0);
    buffers();
    EXPECT(cuModuleLoadData(&m, fixture("ptx/fixtures/vadd.ptx")), CUDA_SUCCESS);
    EXPECT(cuModuleGetFunction(&f, m, "vadd"), CUDA_SUCCESS);
    unsigned n = N;
    void *args[] = {&da, &db, &dc, &n};
    /* a first launch makes the context's stacks and argument area */
    EXPECT(cuLaunchKernel(f, (N + 15) / 16, 1, 1, 16, 1, 1, 0, NULL, args, NULL), CUDA_SUCCESS);
    EXPECT(cuCtxSynchronize(), CUDA_SUCCESS);
    cuMemsetD32(dc, 0xffffffffu, N);
    cuCtxSynchronize();
    size_t before = free_mem();
    char log[512];
    CUjit_option o[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *v[2] = {log, (void *)(size_t)sizeof log};
    EXPECT(cuModuleLoadDataEx(&mx, fixture("ptx/fixtures/saxpy_f32.ptx"), 2, o, v), CUDA_ERROR_NOT_SUPPORTED);
    CHECK(strstr(log, "line ") && strstr(log, "f32"), "the error log names the line and f32: %s", log);
    EXPECT(cuModuleLoadData(&mx, ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n\tbogus;\n}\n"),
           CUDA_ERROR_INVALID_PTX);
    EXPECT(cuModuleLoadData(&mx, "garbage"), CUDA_ERROR_INVALID_IMAGE);
    EXPECT(cuModuleLoadData(&mx, fixture("cuda/fixtures/vadd_sm90.cubin")), CUDA_ERROR_NO_BINARY_FOR_GPU);
    EXPECT(cuModuleLoadData(NULL, fixture("ptx/fixtures/vadd.ptx")), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(f, 1, 1, 1, 1025, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(f, 1, 1, 1, 16, 1, 1, 1 << 20, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(f, 70000, 1, 1, 16, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
    size_t size = 28;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, args, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    EXPECT(cuLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, NULL, args, extra), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(NULL, 1, 1, 1, 16, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuCtxSynchronize(), CUDA_SUCCESS);
    CHECK(free_mem() == before, "refused calls changed free device memory: %zu -> %zu", before, free_mem());
    cuMemcpyDtoH(hc, dc, sizeof hc);
    CHECK(hc[0] == -1 && hc[N - 1] == -1, "a refused launch wrote");
    /* a module's code is given back at unload */
    EXPECT(cuModuleLoadData(&mx, fixture("ptx/fixtures/collatz.ptx")), CUDA_SUCCESS);
    CHECK(free_mem() < before, "a loaded module holds device memory");
    EXPECT(cuModuleUnload(mx), CUDA_SUCCESS);
    CHECK(free_mem() == before, "unload gave back %zu -> %zu", before, free_mem());
    /* a context's modules, stacks and argument area go with it */
    CUcontext c1;
    CUdevice dev;
    cuDeviceGet(&dev, 0);
    EXPECT(cuCtxCreate(&c1, NULL, 0, dev), CUDA_SUCCESS);
    size_t with_ctx = free_mem();
    CUmodule m1;
    CUfunction f1;
    EXPECT(cuModuleLoadData(&m1, fixture("ptx/fixtures/vadd.ptx")), CUDA_SUCCESS);
    EXPECT(cuModuleGetFunction(&f1, m1, "vadd"), CUDA_SUCCESS);
    EXPECT(cuLaunchKernel(f1, (N + 15) / 16, 1, 1, 16, 1, 1, 0, NULL, args, NULL), CUDA_SUCCESS);
    EXPECT(cuCtxSynchronize(), CUDA_SUCCESS);
    CHECK(vadd_right(N), "vadd in a second context");
    EXPECT(cuCtxDestroy(c1), CUDA_SUCCESS);
    cuCtxSetCurrent(c0);
    CHECK(free_mem() >= with_ctx, "context destroy gave back its kernel memory: %zu -> %zu", with_ctx, free_mem());
}

static void case_trace(void)
{
    CUmodule m;
    CUfunction f;
    buffers();
    EXPECT(cuModuleLoadData(&m, fixture("ptx/fixtures/vadd.ptx")), CUDA_SUCCESS);
    EXPECT(cuModuleGetFunction(&f, m, "vadd"), CUDA_SUCCESS);
    unsigned n = N;
    void *args[] = {&da, &db, &dc, &n};
    EXPECT(cuLaunchKernel(f, (N + 15) / 16, 1, 1, 16, 1, 1, 0, NULL, args, NULL), CUDA_SUCCESS);
    EXPECT(cuCtxSynchronize(), CUDA_SUCCESS);
    CHECK(vadd_right(N), "vadd under the trace");
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    CUdevice dev;
    CUcontext c;
    if (argc < 2 || cuInit(0) || cuDeviceGet(&dev, 0) || cuCtxCreate(&c, NULL, 0, dev)) {
        printf("usage: cuda_kernels results|state|trace (and a device)\n");
        return 2;
    }
    if (!strcmp(argv[1], "results")) case_results();
    else if (!strcmp(argv[1], "state")) case_state();
    else if (!strcmp(argv[1], "trace")) case_trace();
    else return 2;
    printf("%s: %d failures\n", argv[1], failures);
    return failures != 0;
}
