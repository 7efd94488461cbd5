/*
 * CUDA kernels from PTX on the SIMT unit (docs/cuda.md "Modules and launches"), the checks the
 * NVIDIA probe (probe/kernel_probe.c) cannot make: results against a C reference, device memory
 * unchanged by every refused call (cuMemGetInfo: the core's physical allocator), module and
 * context memory given back, and the trace. One ctest per case: results, state, trace, trace_fault, sregs, warp32, f32.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    /* valid PTX the unit does not run: NVRTC's saxpy with its fma made f16 */
    const char *sax = fixture("ptx/fixtures/saxpy_f32.ptx");
    const char *fma = sax ? strstr(sax, "fma.rn.f32") : NULL;
    CHECK(fma != NULL, "saxpy_f32.ptx has an fma.rn.f32");
    char *f16 = sax ? strdup(sax) : NULL;
    if (fma && f16) {
        memcpy(f16 + (fma - sax), "fma.rn.f16", 10);
        EXPECT(cuModuleLoadDataEx(&mx, f16, 2, o, v), CUDA_ERROR_NOT_SUPPORTED);
        CHECK(strstr(log, "line ") && strstr(log, "f16"), "the error log names the line and f16: %s", log);
    }
    free(f16);
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

/* 1-based line of the first line of text containing needle, 0 if none. */
static int line_of(const char *text, const char *needle)
{
    const char *p = strstr(text, needle);
    if (!p) return 0;
    int line = 1;
    for (const char *q = text; q < p; q++) line += *q == '\n';
    return line;
}

/* %laneid and %warpid as NVIDIA gives them to 32-thread warps (measured on an H100, 580.159.04:
 * %laneid is (linear thread id in the block) mod 32 in every shape; %warpid is a warp slot, the
 * same for the 32 threads of a warp and different for the warps of one block, e.g. 1, 2 or 3 for
 * a block's first warp, since PTX documents it as volatile). The translator gives linear id / 32,
 * which has those properties; the test checks the properties, so it holds on NVIDIA too. Blocks
 * of several shapes, the largest the device takes among them. */
static void case_sregs(void)
{
    CUmodule m;
    CUfunction f;
    CUdevice dev;
    int maxt = 0;
    cuCtxGetDevice(&dev);
    cuDeviceGetAttribute(&maxt, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev);
    EXPECT(cuModuleLoadData(&m, fixture("cuda/fixtures/sregs.ptx")), CUDA_SUCCESS);
    EXPECT(cuModuleGetFunction(&f, m, "sregs"), CUDA_SUCCESS);
    static const unsigned shapes[][3] = {{16, 1, 1}, {3, 5, 1}, {2, 2, 4}, {64, 1, 1}, {8, 4, 3}, {256, 1, 1}};
    enum { GRID = 3, MAXN = GRID * 256, MAXW = 64 };
    static unsigned lane[MAXN], warp[MAXN];
    CUdeviceptr dl, dw;
    cuMemAlloc(&dl, sizeof lane);
    cuMemAlloc(&dw, sizeof warp);
    void *args[] = {&dl, &dw};
    int ran = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        unsigned bt = shapes[s][0] * shapes[s][1] * shapes[s][2];
        if ((int)bt > maxt) continue;   /* the unit's block limit (16 on the simulated device) */
        cuMemsetD32(dl, 0xdead, MAXN);
        cuMemsetD32(dw, 0xdead, MAXN);
        EXPECT(cuLaunchKernel(f, GRID, 1, 1, shapes[s][0], shapes[s][1], shapes[s][2], 0, NULL, args, NULL),
               CUDA_SUCCESS);
        EXPECT(cuCtxSynchronize(), CUDA_SUCCESS);
        cuMemcpyDtoH(lane, dl, sizeof lane);
        cuMemcpyDtoH(warp, dw, sizeof warp);
        int bad_lane = 0, bad_warp = 0;
        for (unsigned i = 0; i < GRID * bt; i++) {
            unsigned t = i % bt, first = i - t;   /* element of thread 0 of this block */
            if (lane[i] != t % 32 && bad_lane++ < 4)
                printf("block (%u,%u,%u) thread %u: laneid %u, want %u\n", shapes[s][0], shapes[s][1], shapes[s][2],
                       t, lane[i], t % 32);
            /* one value per 32-thread warp, a different one for each warp of the block, < 64 */
            int ok = warp[i] < MAXW && warp[i] == warp[first + t / 32 * 32];
            for (unsigned u = 0; u < t / 32 * 32 && ok; u += 32) ok = warp[first + u] != warp[i];
            if (!ok && bad_warp++ < 4)
                printf("block (%u,%u,%u) thread %u: warpid %u (its warp's first thread %u)\n", shapes[s][0],
                       shapes[s][1], shapes[s][2], t, warp[i], warp[first + t / 32 * 32]);
        }
        CHECK(!bad_lane, "%%laneid wrong in %d of %u threads of block (%u,%u,%u)", bad_lane, GRID * bt,
              shapes[s][0], shapes[s][1], shapes[s][2]);
        CHECK(!bad_warp, "%%warpid not one value per warp, distinct per warp, in %d of %u threads of block (%u,%u,%u)",
              bad_warp, GRID * bt, shapes[s][0], shapes[s][1], shapes[s][2]);
        printf("block (%u,%u,%u): %u threads, laneid = t %% 32: %s; warpid one per 32-thread warp (thread 0: %u): %s\n",
               shapes[s][0], shapes[s][1], shapes[s][2], GRID * bt, bad_lane ? "no" : "yes", warp[0],
               bad_warp ? "no" : "yes");
        ran++;
    }
    CHECK(ran >= 3, "only %d block shapes fit the device (max %d threads)", ran, maxt);
    cuMemFree(dl);
    cuMemFree(dw);
    cuModuleUnload(m);
}

/* VMGPU_TRACE=1 on a kernel's fault (oob.ptx: a grid-stride store past the end of a mapping):
 * the kernel listing shows the PTX line of the out[i] store with its sw, and the fault names
 * the PC, its offset in the kernel and that PTX line. The trace (stderr) is captured in a file. */
static void case_trace_fault(void)
{
    char *ptx = fixture("ptx/fixtures/oob.ptx");
    int st_line = line_of(ptx, "st.global.u32");   /* out[i] = i + 1: the store that faults */
    CHECK(st_line > 0, "oob.ptx has no st.global.u32");
    size_t g = 0;
    CUmemAllocationProp prop = {0};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    CUdeviceptr out, logp;
    CUmemGenericAllocationHandle h;
    EXPECT(cuMemAddressReserve(&out, 2 * g, 0, 0, 0), CUDA_SUCCESS);
    EXPECT(cuMemCreate(&h, g, &prop, 0), CUDA_SUCCESS);
    EXPECT(cuMemMap(out, g, 0, h, 0), CUDA_SUCCESS);
    CUmemAccessDesc rw = {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    EXPECT(cuMemSetAccess(out, g, &rw, 1), CUDA_SUCCESS);
    unsigned n = (unsigned)(g / 4) + 64;
    EXPECT(cuMemAlloc(&logp, (size_t)n * 4), CUDA_SUCCESS);

    fflush(stderr);
    FILE *cap = tmpfile();
    int saved = dup(2);
    dup2(fileno(cap), 2);
    CUmodule m;
    CUfunction f;
    EXPECT(cuModuleLoadData(&m, ptx), CUDA_SUCCESS);
    EXPECT(cuModuleGetFunction(&f, m, "oob"), CUDA_SUCCESS);
    void *args[] = {&out, &logp, &n};
    EXPECT(cuLaunchKernel(f, 4, 1, 1, 16, 1, 1, 0, NULL, args, NULL), CUDA_SUCCESS);
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fseek(cap, 0, SEEK_END);
    long len = ftell(cap);
    rewind(cap);
    char *tr = calloc(1, (size_t)len + 1);
    if (fread(tr, 1, (size_t)len, cap) != (size_t)len) len = 0;
    fclose(cap);
    fputs(tr, stderr);   /* the trace, as it would have been printed */

    /* the listing shows the line as written, tabs as spaces, blanks at its ends dropped */
    char text[128] = "", want[160];
    const char *p = strstr(ptx, "st.global.u32");
    size_t k = 0;
    for (; p && p[k] && p[k] != '\n' && k + 1 < sizeof text; k++) text[k] = p[k] == '\t' ? ' ' : p[k];
    while (k && text[k - 1] == ' ') text[--k] = 0;
    snprintf(want, sizeof want, "ptx line %d: %s", st_line, text);
    const char *listing = strstr(tr, want);
    CHECK(listing != NULL, "the listing has no '%s'", want);
    if (listing) {
        const char *next = strchr(listing, '\n');
        CHECK(next && strstr(next, "  sw ") && strstr(next, "  sw ") < strstr(next + 1, "ptx line"),
              "the st.global line's instructions hold no sw");
    }
    const char *fl = strstr(tr, "launch: oob fault at PC 0x");
    CHECK(fl != NULL, "no fault line naming the PC");
    if (fl) {
        unsigned pc = 0, off = 0;
        int line = 0;
        char ins[8] = "";
        int got = sscanf(fl, "launch: oob fault at PC 0x%x = oob+0x%x (%7s", &pc, &off, ins);
        const char *pl = strstr(fl, "from PTX line ");
        if (pl) sscanf(pl, "from PTX line %d", &line);
        CHECK(got == 3 && !strcmp(ins, "sw"), "fault line: %.160s", fl);
        CHECK(line == st_line, "the fault names PTX line %d, the st.global.u32 is line %d", line, st_line);
        printf("fault at PC 0x%08x = oob+0x%x (%s), PTX line %d (st.global.u32 at line %d)\n", pc, off, ins, line,
               st_line);
    }
    CHECK(strstr(tr, "SIMT write by lane") != NULL || strstr(tr, "SIMT write") != NULL,
          "the fault text names the SIMT write");
    free(tr);
    free(ptx);
}

/* The load of a kernel that runs only where the unit has some feature: want "run" loads the
 * fixture and returns 1 (the caller runs and checks the kernel); want "refused" checks that the
 * load answers CUDA_ERROR_NOT_SUPPORTED with a JIT log holding every string of `names` (NULL
 * ended) and keeps no device memory, prints "<name>: refused as wanted" and returns 0. */
static int load_run_or_refused(const char *name, const char *want, const char *path, const char *const *names,
                               CUmodule *m)
{
    int refused = want && !strcmp(want, "refused");
    CHECK(want && (refused || !strcmp(want, "run")), "%s needs run or refused, got %s", name, want ? want : "nothing");
    buffers();
    cuCtxSynchronize();
    size_t before = free_mem();
    char log[512] = "";
    CUjit_option o[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *v[2] = {log, (void *)(size_t)sizeof log};
    CUresult r = cuModuleLoadDataEx(m, fixture(path), 2, o, v);
    if (refused) {
        EXPECT(r, CUDA_ERROR_NOT_SUPPORTED);
        for (const char *const *n = names; *n; n++)
            CHECK(strstr(log, *n), "the log names %s: %s", *n, log);
        CHECK(free_mem() == before, "a refused load kept device memory: %zu -> %zu", before, free_mem());
        printf("%s: refused as wanted: %s\n", name, log);
        return 0;
    }
    EXPECT(r, CUDA_SUCCESS);
    return r == CUDA_SUCCESS;
}

/* A kernel with warp shuffles (warpsum.ptx: each warp's 32 inputs added with shfl.sync.down).
 * want "run": the unit's warps are 32 lanes wide, the sums are checked against C. want
 * "refused": they are narrower (the board's unit), so the load answers CUDA_ERROR_NOT_SUPPORTED
 * with a log naming the instructions and the warp width, and keeps no device memory. */
static void case_warp32(const char *want)
{
    static const char *const names[] = {"warpsum", "shfl", "32 lanes", NULL};
    CUmodule m;
    CUfunction f;
    if (!load_run_or_refused("warp32", want, "ptx/fixtures/warpsum.ptx", names, &m)) return;
    EXPECT(cuModuleGetFunction(&f, m, "warpsum"), CUDA_SUCCESS);
    void *args[] = {&da, &dc};
    cuMemsetD32(dc, 0xffffffffu, N);
    /* 256 inputs: 4 blocks of 64 threads, 8 warps */
    EXPECT(cuLaunchKernel(f, 4, 1, 1, 64, 1, 1, 0, NULL, args, NULL), CUDA_SUCCESS);
    EXPECT(cuCtxSynchronize(), CUDA_SUCCESS);
    cuMemcpyDtoH(hc, dc, sizeof hc);
    for (int w = 0; w < 8; w++) {
        int sum = 0;
        for (int t = 0; t < 32; t++) sum = (int)((unsigned)sum + (unsigned)ha[w * 32 + t]);
        CHECK(hc[w] == sum, "warp %d: %d, want %d", w, hc[w], sum);
    }
    CHECK(hc[8] == -1, "a ninth word was written");
    EXPECT(cuModuleUnload(m), CUDA_SUCCESS);
    printf("warp32: 8 warp sums right\n");
}

/* saxpy in f32 (fma.rn.f32), where the unit has the F extension: bit for bit C's fmaf; where it
 * has none (the board's integer unit): refused at load, naming the kernel and F. */
static void case_f32(const char *want)
{
    static const char *const names[] = {"saxpy", "F extension", NULL};
    CUmodule m;
    CUfunction f;
    if (!load_run_or_refused("f32", want, "ptx/fixtures/saxpy_f32.ptx", names, &m)) return;
    EXPECT(cuModuleGetFunction(&f, m, "saxpy"), CUDA_SUCCESS);
    static float x[N], y[N], want_y[N], got[N];
    float a = -1.375f;
    for (int i = 0; i < N; i++) {
        x[i] = (float)ha[i] / 3.0f;
        y[i] = (float)hb[i] * 0.0625f + 1e-3f * (float)i;
        want_y[i] = fmaf(a, x[i], y[i]);
    }
    cuMemcpyHtoD(da, x, sizeof x);
    cuMemcpyHtoD(db, y, sizeof y);
    unsigned n = N;
    void *args[] = {&a, &da, &db, &n};
    EXPECT(cuLaunchKernel(f, (N + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, args, NULL), CUDA_SUCCESS);
    EXPECT(cuCtxSynchronize(), CUDA_SUCCESS);
    cuMemcpyDtoH(got, db, sizeof got);
    int bad = 0;
    for (int i = 0; i < N; i++)
        if (memcmp(&got[i], &want_y[i], 4) && bad++ < 4)
            CHECK(0, "y[%d] = %a, fmaf gives %a", i, (double)got[i], (double)want_y[i]);
    CHECK(bad == 0, "%d of %d results differ from fmaf", bad, N);
    EXPECT(cuModuleUnload(m), CUDA_SUCCESS);
    printf("f32: %d saxpy results bit for bit fmaf\n", N - bad);
}

/* Blocks larger than the unit holds (the driver's split, PTX_KERNEL_SPLIT): vadd in blocks of 4
 * and 1.5 times the unit (the last sub-block part full), index2d in 3D blocks of twice the unit
 * (every id and size of the block, a 2D grid), %laneid in a block of twice the unit; a kernel
 * with barriers still stops at the unit's size, with INVALID_VALUE and nothing run; the function
 * attribute says which may be split. */
static void case_split(void)
{
    CUdevice dev;
    int unit = 0, a_vadd = 0, a_reduce = 0;
    cuCtxGetDevice(&dev);
    cuDeviceGetAttribute(&unit, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev);
    CUmodule m, mr, mi, ms;
    CUfunction f, fr, fi, fs;
    buffers();
    EXPECT(cuModuleLoadData(&m, fixture("ptx/fixtures/vadd.ptx")), CUDA_SUCCESS);
    EXPECT(cuModuleGetFunction(&f, m, "vadd"), CUDA_SUCCESS);
    EXPECT(cuModuleLoadData(&mr, fixture("ptx/fixtures/reduce.ptx")), CUDA_SUCCESS);
    EXPECT(cuModuleGetFunction(&fr, mr, "reduce"), CUDA_SUCCESS);
    EXPECT(cuFuncGetAttribute(&a_vadd, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f), CUDA_SUCCESS);
    EXPECT(cuFuncGetAttribute(&a_reduce, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fr), CUDA_SUCCESS);
    CHECK(a_vadd == 1024 && a_reduce == unit, "MAX_THREADS_PER_BLOCK: vadd %d (want 1024), reduce %d (want %d)",
          a_vadd, a_reduce, unit);
    unsigned n = N;
    void *args[] = {&da, &db, &dc, &n};
    const unsigned sizes[2] = {(unsigned)unit * 4 > 1024 ? 1024 : (unsigned)unit * 4, (unsigned)unit * 3 / 2};
    for (int i = 0; i < 2; i++) {
        unsigned b = sizes[i];
        cuMemsetD32(dc, 0xffffffffu, N);
        EXPECT(cuLaunchKernel(f, (N + b - 1) / b, 1, 1, b, 1, 1, 0, NULL, args, NULL), CUDA_SUCCESS);
        EXPECT(cuCtxSynchronize(), CUDA_SUCCESS);
        CHECK(vadd_right(N), "vadd in blocks of %u threads (the unit holds %d)", b, unit);
        printf("split: vadd in blocks of %u threads (the unit holds %d): %s\n", b, unit, vadd_right(N) ? "right" : "WRONG");
    }
    /* the hardware grid (grid x times the sub-blocks) past the unit's 65535: refused, nothing run */
    cuMemsetD32(dc, 0xffffffffu, N);
    EXPECT(cuLaunchKernel(f, 65535, 1, 1, (unsigned)unit * 2, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuCtxSynchronize(), CUDA_SUCCESS);
    CHECK(vadd_right(0), "a refused split launch wrote nothing");
    /* barriers: not split; refused before anything runs */
    unsigned spin = 1;
    void *ra[] = {&da, &dc, &spin};
    cuMemsetD32(dc, 0xffffffffu, N);
    EXPECT(cuLaunchKernel(fr, 1, 1, 1, (unsigned)unit * 2, 1, 1, 0, NULL, ra, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuCtxSynchronize(), CUDA_SUCCESS);
    CHECK(vadd_right(0), "a refused launch wrote nothing");
    /* index2d: 3D blocks (16, by, 2) of twice the unit, a 3 x 2 grid, a ragged edge */
    unsigned by = unit / 16 > 2 ? (unsigned)unit / 16 : 2, bz = 2, gx = 3, gy = 2;
    unsigned w = 16 * gx - 5, h = by * gy - 1, cells = w * h * bz;
    unsigned *out = calloc(cells, sizeof *out);
    CUdeviceptr dout;
    EXPECT(cuMemAlloc(&dout, cells * sizeof *out), CUDA_SUCCESS);
    cuMemsetD32(dout, 0xdeadbeefu, cells);
    EXPECT(cuModuleLoadData(&mi, fixture("ptx/fixtures/index2d.ptx")), CUDA_SUCCESS);
    EXPECT(cuModuleGetFunction(&fi, mi, "index2d"), CUDA_SUCCESS);
    void *ia[] = {&dout, &w, &h};
    EXPECT(cuLaunchKernel(fi, gx, gy, 1, 16, by, bz, 0, NULL, ia, NULL), CUDA_SUCCESS);
    EXPECT(cuCtxSynchronize(), CUDA_SUCCESS);
    cuMemcpyDtoH(out, dout, cells * sizeof *out);
    int bad = 0;
    for (unsigned z = 0; z < bz; z++)
        for (unsigned y = 0; y < h; y++)
            for (unsigned x = 0; x < w; x++) {
                unsigned want = (x << 20) | (y << 8) | (z << 4), got = out[(z * h + y) * w + x];
                if (got != want && bad++ < 4) printf("index2d (%u,%u,%u): 0x%08x, want 0x%08x\n", x, y, z, got, want);
            }
    CHECK(!bad, "index2d in blocks (16,%u,%u) of %u threads: %d of %u cells wrong", by, bz, 16 * by * bz, bad, cells);
    printf("split: index2d in blocks (16,%u,%u) of %u threads, grid (%u,%u): %u cells %s\n", by, bz, 16 * by * bz, gx,
           gy, cells, bad ? "WRONG" : "right");
    /* %laneid in a block of twice the unit: linear id mod 32 */
    unsigned bt = (unsigned)unit * 2 > 1024 ? 1024 : (unsigned)unit * 2;
    static unsigned lane[2048], warp[2048];
    CUdeviceptr dl, dw;
    cuMemAlloc(&dl, sizeof lane);
    cuMemAlloc(&dw, sizeof warp);
    EXPECT(cuModuleLoadData(&ms, fixture("cuda/fixtures/sregs.ptx")), CUDA_SUCCESS);
    EXPECT(cuModuleGetFunction(&fs, ms, "sregs"), CUDA_SUCCESS);
    void *sa[] = {&dl, &dw};
    EXPECT(cuLaunchKernel(fs, 2, 1, 1, bt, 1, 1, 0, NULL, sa, NULL), CUDA_SUCCESS);
    EXPECT(cuCtxSynchronize(), CUDA_SUCCESS);
    cuMemcpyDtoH(lane, dl, 2 * bt * sizeof *lane);
    cuMemcpyDtoH(warp, dw, 2 * bt * sizeof *warp);
    int bad_lane = 0;
    for (unsigned i = 0; i < 2 * bt; i++) {
        unsigned t = i % bt;
        bad_lane += lane[i] != t % 32 || warp[i] != warp[i - t + t / 32 * 32] || (t >= 32 && warp[i] == warp[i - 32]);
    }
    CHECK(!bad_lane, "%%laneid/%%warpid wrong in %d of %u threads of blocks of %u", bad_lane, 2 * bt, bt);
    cuMemFree(dl);
    cuMemFree(dw);
    cuMemFree(dout);
    free(out);
    EXPECT(cuModuleUnload(m), CUDA_SUCCESS);
    EXPECT(cuModuleUnload(mr), CUDA_SUCCESS);
    EXPECT(cuModuleUnload(mi), CUDA_SUCCESS);
    EXPECT(cuModuleUnload(ms), CUDA_SUCCESS);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    CUdevice dev;
    CUcontext c;
    if (argc < 2 || cuInit(0) || cuDeviceGet(&dev, 0) || cuCtxCreate(&c, NULL, 0, dev)) {
        printf("usage: cuda_kernels results|state|trace|trace_fault|sregs|split|warp32 run|refused|f32 run|refused (and a device)\n");
        return 2;
    }
    if (!strcmp(argv[1], "results")) case_results();
    else if (!strcmp(argv[1], "state")) case_state();
    else if (!strcmp(argv[1], "trace")) case_trace();
    else if (!strcmp(argv[1], "trace_fault")) case_trace_fault();
    else if (!strcmp(argv[1], "sregs")) case_sregs();
    else if (!strcmp(argv[1], "warp32")) case_warp32(argc > 2 ? argv[2] : NULL);
    else if (!strcmp(argv[1], "f32")) case_f32(argc > 2 ? argv[2] : NULL);
    else if (!strcmp(argv[1], "split")) case_split();
    else return 2;
    printf("%s: %d failures\n", argv[1], failures);
    return failures != 0;
}
