/*
 * Lesson 09's program: a kernel's page fault, from PTX to the fault registers
 * (docs/lessons/09-a-kernels-page-fault). A CUDA program loads the oob kernel's PTX (NVRTC's
 * output of tests/ptx/kernels/oob.cu: a grid-stride loop that stores out[i] = i + 1, then
 * log[i] = 1), gives it an output that ends at the end of a mapping, and launches it over more
 * elements than the mapping holds:
 *   - context A: out[] is the first granule of a two-granule reservation (the second is left
 *     unmapped), log[] is pinned host memory mapped for the device, so the host can read what
 *     the kernel wrote after A is dead without asking A for anything;
 *   - the launch succeeds, cuCtxSynchronize answers CUDA_ERROR_ILLEGAL_ADDRESS, and so does every
 *     later call on A;
 *   - log[] shows which stores were done before the stop;
 *   - context B, made before the fault, still runs a kernel and gets the right answer; A is
 *     destroyed and a new context works.
 * With VMGPU_TRACE=1 the trace shows the PTX line -> instructions listing, the MMU's fault, the
 * fault registers' lane, warp and PC, and the PTX line that PC came from.
 *
 * usage: lesson_kernel_fault [--blocks N] [--threads N] [--extra N]
 *   (the launch's grid and block, and how many elements past the mapping n reaches; the
 *    lesson's "Try this" changes them)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"

#ifndef FIXTURES
#define FIXTURES "tests/ptx/fixtures"
#endif

static const char *err_name(CUresult r)
{
    const char *n = "?";
    cuGetErrorName(r, &n);
    return n;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("cannot open %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *b = calloc(1, (size_t)n + 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) exit(2);
    fclose(f);
    return b;
}

#define MUST(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
    printf("%s -> %s\nlesson_kernel_fault FAILED\n", #call, err_name(r_)); exit(1); } } while (0)

/* Context B's check that it still works: vadd over 300 elements. */
static int b_runs_vadd(CUmodule *mod)
{
    enum { N = 300 };
    static int a[N], b[N], c[N];
    for (int i = 0; i < N; i++) a[i] = i * 3, b[i] = 1000 - i;
    CUdeviceptr da, db, dc;
    MUST(cuMemAlloc(&da, sizeof a));
    MUST(cuMemAlloc(&db, sizeof b));
    MUST(cuMemAlloc(&dc, sizeof c));
    MUST(cuMemcpyHtoD(da, a, sizeof a));
    MUST(cuMemcpyHtoD(db, b, sizeof b));
    CUfunction f;
    MUST(cuModuleGetFunction(&f, *mod, "vadd"));
    unsigned n = N;
    void *args[] = {&da, &db, &dc, &n};
    CUresult rl = cuLaunchKernel(f, (N + 15) / 16, 1, 1, 16, 1, 1, 0, NULL, args, NULL);
    CUresult rs = cuCtxSynchronize();
    MUST(cuMemcpyDtoH(c, dc, sizeof c));
    int good = 0;
    for (int i = 0; i < N; i++) good += c[i] == a[i] + b[i];
    printf("B: vadd launch -> %s, synchronize -> %s, %d of %d sums right\n", err_name(rl), err_name(rs), good, N);
    return good == N;
}

int main(int argc, char **argv)
{
    unsigned blocks = 4, threads = 16, extra = 64;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--blocks")) blocks = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--threads")) threads = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--extra")) extra = (unsigned)atoi(argv[i + 1]);
    }
    CUdevice dev;
    CUcontext a, b;
    MUST(cuInit(0));
    MUST(cuDeviceGet(&dev, 0));
    MUST(cuCtxCreate(&b, NULL, 0, dev));   /* B first: it must outlive A's fault */
    CUmodule mb;
    char *vadd = slurp(FIXTURES "/vadd.ptx");
    MUST(cuModuleLoadData(&mb, vadd));
    MUST(cuCtxCreate(&a, NULL, 0, dev));   /* A, now current */

    /* out[]: one granule mapped read-write at the start of a two-granule reservation */
    CUmemAllocationProp prop = {0};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t g = 0;
    MUST(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CUdeviceptr out;
    CUmemGenericAllocationHandle h;
    MUST(cuMemAddressReserve(&out, 2 * g, 0, 0, 0));
    MUST(cuMemCreate(&h, g, &prop, 0));
    MUST(cuMemMap(out, g, 0, h, 0));
    CUmemAccessDesc rw = {{CU_MEM_LOCATION_TYPE_DEVICE, dev}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    MUST(cuMemSetAccess(out, g, &rw, 1));
    unsigned mapped = (unsigned)(g / 4), n = mapped + extra;
    printf("A: out[] at VA 0x%08llx: %u elements mapped (one granule), the next granule reserved and unmapped\n",
           (unsigned long long)out, mapped);

    /* log[]: pinned host memory the kernel writes through the host aperture */
    unsigned *log;
    CUdeviceptr dlog;
    MUST(cuMemHostAlloc((void **)&log, (size_t)n * 4, CU_MEMHOSTALLOC_DEVICEMAP));
    memset(log, 0, (size_t)n * 4);
    MUST(cuMemHostGetDevicePointer(&dlog, log, 0));
    printf("A: log[] is pinned host memory, device VA 0x%08llx\n", (unsigned long long)dlog);

    CUmodule ma;
    CUfunction oob;
    char *ptx = slurp(FIXTURES "/oob.ptx");
    MUST(cuModuleLoadData(&ma, ptx));
    MUST(cuModuleGetFunction(&oob, ma, "oob"));
    void *args[] = {&out, &dlog, &n};
    unsigned stride = blocks * threads;
    printf("A: oob<<<%u, %u>>> over n = %u elements (grid stride %u): element %u is the first past the mapping\n",
           blocks, threads, n, stride, mapped);
    CUresult rl = cuLaunchKernel(oob, blocks, 1, 1, threads, 1, 1, 0, NULL, args, NULL);
    printf("A: cuLaunchKernel -> %s\n", err_name(rl));
    printf("A: cuCtxSynchronize -> %s\n", err_name(cuCtxSynchronize()));
    CUdeviceptr x;
    int tmp[4];
    printf("A: then cuMemAlloc -> %s\n", err_name(cuMemAlloc(&x, 64)));
    printf("A: then cuMemcpyDtoH of out[0..3] -> %s\n", err_name(cuMemcpyDtoH(tmp, out, sizeof tmp)));
    printf("A: then cuLaunchKernel -> %s\n",
           err_name(cuLaunchKernel(oob, 1, 1, 1, threads, 1, 1, 0, NULL, args, NULL)));
    printf("A: then cuCtxSynchronize -> %s\n", err_name(cuCtxSynchronize()));

    /* What the kernel wrote before the stop: log[i] is set only after out[i] was stored. */
    unsigned set = 0, past = 0, last = 0, blocks_seen = 0, behind = 0;
    unsigned *per_block = calloc(blocks, sizeof *per_block);
    for (unsigned i = 0; i < n; i++) {
        if (!log[i]) continue;
        set++;
        last = i;
        past += i >= mapped;
        per_block[(i % stride) / threads]++;
    }
    printf("log: %u of %u elements logged, the last at element %u; %u at or past element %u\n", set, n, last, past,
           mapped);
    for (unsigned k = 0; k < blocks; k++) {
        printf("log: block %u logged %u elements\n", k, per_block[k]);
        blocks_seen += per_block[k] != 0;
    }
    /* each thread of the blocks that ran: its last logged element */
    for (unsigned t = 0; t < stride; t++) {
        if (!per_block[t / threads]) continue;
        unsigned tl = 0, any = 0;
        for (unsigned i = t; i < n; i += stride)
            if (log[i]) tl = i, any = 1;
        unsigned want = t + (mapped - 1 - t) / stride * stride;   /* its last element inside the mapping */
        behind += !any || tl != want;
        if (!any || tl != want)
            printf("log: thread %u (block %u) last logged element %d, its last inside the mapping is %u\n", t,
                   t / threads, any ? (int)tl : -1, want);
    }
    if (!behind)
        printf("log: every thread of the %u block(s) that ran logged up to its last element inside the mapping, "
               "and nothing after\n", blocks_seen);

    /* The other context, then A destroyed and a new one. */
    MUST(cuCtxSetCurrent(b));
    int b_ok = b_runs_vadd(&mb);
    printf("A: cuCtxDestroy -> %s\n", err_name(cuCtxDestroy(a)));
    CUcontext a2;
    CUresult rn = cuCtxCreate(&a2, NULL, 0, dev);
    CUdeviceptr y = 0;
    CUresult ra = rn ? rn : cuMemAlloc(&y, 64);
    printf("new context: cuCtxCreate -> %s, cuMemAlloc -> %s\n", err_name(rn), err_name(ra));
    if (!rn) cuCtxDestroy(a2);
    cuCtxDestroy(b);
    int ok = rl == CUDA_SUCCESS && b_ok && !ra;
    printf(ok ? "lesson_kernel_fault: done\n" : "lesson_kernel_fault FAILED\n");
    return ok ? 0 : 1;
}
