/*
 * vmgpu-bench: the project's figures, one `key value [unit]` line each on stdout; progress on
 * stderr. Everything except sim_cycles_per_second goes through the driver core on the device
 * named by VMGPU_DEVICE (default: the sim model); cycle figures come from the device's own
 * TIMESTAMP commands and counters, never from wall-clock time.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "bridge.h" /* link figures over the bridge backends (sw/hal) */
#include "vmgpu/core.h"
#include "vmgpu/regs.h"
#ifdef VMGPU_BENCH_HAVE_SIM
#include "vmgpu_sim.h"
#endif
#ifdef VMGPU_BENCH_HAVE_PTX
#include "vmgpu/ptx.h"
#include "gridstride_ptx.h" /* k_gridstride_ptx: NVRTC's vadd_gs (tests/ptx/kernels/gridstride.cu) */
#include "spin_ptx.h"       /* k_spin_ptx: NVRTC's spin (tests/ptx/kernels/spin.cu) */
#endif
#ifdef VMGPU_BENCH_HAVE_CUDA
#include <cuda.h>

#include "vmgpu_cuda_internal.h"
#endif

#define GRAN VMGPU_GRANULE
#define PAGE VMGPU_PAGE_SIZE
#define MIB (1u << 20)

static vmgpu_dev *dev;

static void die(const char *what, int rc)
{
    fprintf(stderr, "vmgpu-bench: %s: %s (%s)\n", what, vmgpu_status_name(rc), vmgpu_dev_last_error(dev));
    exit(1);
}
#define TRY(call) do { int rc_ = (call); if (rc_) die(#call, rc_); } while (0)

/* Cycles between two TIMESTAMP commands around the commands queued by fn. */
static uint64_t timed(vmgpu_stream *s, uint32_t ts_pa, void (*fn)(vmgpu_stream *, void *), void *arg)
{
    uint32_t t[4];
    TRY(vmgpu_cmd_timestamp(s, ts_pa));
    fn(s, arg);
    TRY(vmgpu_cmd_timestamp(s, ts_pa + 8));
    TRY(vmgpu_stream_sync(s));
    TRY(vmgpu_phys_read(dev, ts_pa, t, 16));
    return (((uint64_t)t[3] << 32) | t[2]) - (((uint64_t)t[1] << 32) | t[0]);
}

struct copy_args { uint32_t dst, src, bytes; };
static void do_copy(vmgpu_stream *s, void *p)
{
    struct copy_args *a = p;
    TRY(vmgpu_cmd_copy(s, a->dst, a->src, a->bytes));
}
static void do_nothing(vmgpu_stream *s, void *p) { (void)s; (void)p; }

struct stride_args { uint32_t dst, src, pages; };
/* One 4-byte copy per page: each reads a different page, so each translation of the source
 * misses when the TLB was just invalidated and hits when it is warm. */
static void do_strided(vmgpu_stream *s, void *p)
{
    struct stride_args *a = p;
    for (uint32_t i = 0; i < a->pages; i++) TRY(vmgpu_cmd_copy(s, a->dst + 4 * i, a->src + i * PAGE, 4));
}

#ifdef VMGPU_BENCH_HAVE_CUDA
/*
 * The same figures one layer up, through vmgpu's libcuda.so: what a CUDA program pays for
 * cuMemMap + cuMemSetAccess and for cuMemcpy. libcuda opens its own device in cuInit; its core
 * device (vmgpu_cuda_core_device) gives the cycle counter (CYCLE_LO/HI, read between calls) and
 * the HAL's link round-trip counter.
 */
static vmgpu_dev *cdev;

static void cu_die(const char *what, CUresult rc)
{
    const char *n = "?";
    cuGetErrorName(rc, &n);
    fprintf(stderr, "vmgpu-bench: %s: %s\n", what, n);
    exit(1);
}
#define CU_TRY(call) do { CUresult rc_ = (call); if (rc_ != CUDA_SUCCESS) cu_die(#call, rc_); } while (0)

static uint64_t cu_cycles(void)
{
    uint64_t c;
    if (vmgpu_dev_cycles(cdev, &c)) {
        fprintf(stderr, "vmgpu-bench: reading the cycle counter of libcuda's device failed\n");
        exit(1);
    }
    return c;
}

/* cuMemMap + cuMemSetAccess (read-write) of bytes at va; *rt gets the link round trips of the
 * two calls, the result the device cycles that passed meanwhile (less the counter read). */
static uint64_t cu_map_access(CUdeviceptr va, size_t bytes, CUmemGenericAllocationHandle h,
                              const CUmemAccessDesc *rw, uint64_t read_cycles, uint64_t *rt)
{
    vmgpu_hal *hal = vmgpu_dev_hal(cdev);
    uint64_t c0 = cu_cycles();
    uint64_t r0 = hal->round_trips;
    CU_TRY(cuMemMap(va, bytes, 0, h, 0));
    CU_TRY(cuMemSetAccess(va, bytes, rw, 1));
    *rt = hal->round_trips - r0;
    return cu_cycles() - c0 - read_cycles;
}

/* Device cycles of one synchronous copy (less the counter read). */
static uint64_t cu_copy_cycles(CUdeviceptr dst, CUdeviceptr src, void *hdst, const void *hsrc, size_t bytes,
                               uint64_t read_cycles)
{
    uint64_t c0 = cu_cycles();
    if (hdst) CU_TRY(cuMemcpyDtoH(hdst, src, bytes));
    else if (hsrc) CU_TRY(cuMemcpyHtoD(dst, hsrc, bytes));
    else CU_TRY(cuMemcpyDtoD(dst, src, bytes));
    return cu_cycles() - c0 - read_cycles;
}

/* Shared set-up of both CUDA sections: primary context, the core device behind it, the cost of
 * reading the cycle counter, and the allocation properties and access of one granule. */
typedef struct cuda_env {
    CUdevice d;
    uint64_t read_cycles;
    CUmemAllocationProp prop;
    size_t gran;
    CUmemAccessDesc rw;
} cuda_env;

static void cuda_env_open(cuda_env *e)
{
    CUcontext ctx;
    CU_TRY(cuInit(0));
    CU_TRY(cuDeviceGet(&e->d, 0));
    CU_TRY(cuDevicePrimaryCtxRetain(&ctx, e->d));
    CU_TRY(cuCtxSetCurrent(ctx));
    cdev = vmgpu_cuda_core_device();
    if (!cdev) cu_die("vmgpu_cuda_core_device", CUDA_ERROR_NOT_INITIALIZED);
    /* Reading the counter itself costs device cycles (two register reads): measured, subtracted. */
    uint64_t t0 = cu_cycles();
    e->read_cycles = cu_cycles() - t0;
    memset(&e->prop, 0, sizeof e->prop);
    e->prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    e->prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    e->prop.location.id = e->d;
    CU_TRY(cuMemGetAllocationGranularity(&e->gran, &e->prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    memset(&e->rw, 0, sizeof e->rw);
    e->rw.location = e->prop.location;
    e->rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
}

/* One cuMemMap + cuMemSetAccess of one granule, after a warm-up that creates the page table:
 * device cycles into *cycles, link round trips into *rt. */
static void cuda_map_one_granule(const cuda_env *e, uint64_t *cycles, uint64_t *rt)
{
    CUmemGenericAllocationHandle h;
    CUdeviceptr va;
    CU_TRY(cuMemCreate(&h, e->gran, &e->prop, 0));
    CU_TRY(cuMemAddressReserve(&va, e->gran, 0, 0, 0));
    cu_map_access(va, e->gran, h, &e->rw, e->read_cycles, rt);
    CU_TRY(cuMemUnmap(va, e->gran));
    *cycles = cu_map_access(va, e->gran, h, &e->rw, e->read_cycles, rt);
    CU_TRY(cuMemUnmap(va, e->gran));
    CU_TRY(cuMemRelease(h));
    CU_TRY(cuMemAddressFree(va, e->gran));
}

/* cuMemAllocAsync from a pool of its own (NULL stream): device cycles (less the counter read)
 * into *cycles and link round trips into *rt of one allocation of `bytes`. */
static void pool_alloc_cost(CUmemoryPool pool, size_t bytes, uint64_t read_cycles, CUdeviceptr *out,
                            uint64_t *cycles, uint64_t *rt)
{
    vmgpu_hal *hal = vmgpu_dev_hal(cdev);
    uint64_t c0 = cu_cycles();
    uint64_t r0 = hal->round_trips;
    CU_TRY(cuMemAllocFromPoolAsync(out, bytes, pool, NULL));
    *rt = hal->round_trips - r0;
    *cycles = cu_cycles() - c0 - read_cycles;
}

/*
 * The stream-ordered allocator: a warm allocation (served from a granule the pool has mapped
 * already: bookkeeping only) and a cold one (the pool grows by one granule: created, mapped in
 * every context and given read-write access, as cuMemCreate + cuMemMap + cuMemSetAccess would).
 * A cold allocation is measured after a warm-up that made the page table it lands in.
 */
static void cuda_pool_bench(const cuda_env *e)
{
    CUmemoryPool pool;
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location = e->prop.location;
    CU_TRY(cuMemPoolCreate(&pool, &props));
    CUdeviceptr a, b;
    uint64_t cyc, rt, warm_cyc, warm_rt;
    /* warm-up: the granule's page table exists afterwards; threshold 0 gives the granule back */
    pool_alloc_cost(pool, 256, e->read_cycles, &a, &cyc, &rt);
    CU_TRY(cuMemFreeAsync(a, NULL));
    CU_TRY(cuStreamSynchronize(NULL));
    pool_alloc_cost(pool, 256, e->read_cycles, &a, &cyc, &rt); /* cold: one granule mapped */
    pool_alloc_cost(pool, 256, e->read_cycles, &b, &warm_cyc, &warm_rt); /* warm: same granule */
    printf("pool_alloc_cycles %" PRIu64 " cycles\n", warm_cyc);
    printf("pool_alloc_link_round_trips %" PRIu64 "\n", warm_rt);
    printf("pool_alloc_cold_cycles %" PRIu64 " cycles\n", cyc);
    printf("pool_alloc_cold_link_round_trips %" PRIu64 "\n", rt);
    CU_TRY(cuMemFreeAsync(b, NULL));
    CU_TRY(cuMemFreeAsync(a, NULL));
    CU_TRY(cuStreamSynchronize(NULL));
    CU_TRY(cuMemPoolDestroy(pool));
}

static void cuda_bench(void)
{
    fprintf(stderr, "vmgpu-bench: CUDA layer (libcuda.so)...\n");
    cuda_env env;
    cuda_env_open(&env);
    CUdevice d = env.d;
    uint64_t read_cycles = env.read_cycles;
    CUmemAllocationProp prop = env.prop;
    size_t gran = env.gran;
    CUmemAccessDesc rw = env.rw;

    /* ---- one granule: cuMemMap + cuMemSetAccess ---- */
    uint64_t mc, rt;
    cuda_map_one_granule(&env, &mc, &rt);
    printf("cuda_map_granule_cycles %" PRIu64 " cycles\n", mc);
    printf("cuda_map_granule_link_round_trips %" PRIu64 "\n", rt);
    cuda_pool_bench(&env);

    /* ---- n granules in one cuMemMap + cuMemSetAccess, n = 1 ... 256 ----
     * 256 granules are 16 MiB, the whole simulated device memory, of which the driver keeps
     * some (rings, page-table pool, staging buffer): a size that cuMemCreate cannot get is
     * mapped as host memory instead, with one cuMemHostRegister (the same library path: map
     * with no access, then set read-write, in every context), and stderr says so. */
    CUmemGenericAllocationHandle h;
    CUdeviceptr va;
    for (unsigned g = 1; g <= 256; g *= 2) {
        size_t bytes = (size_t)g * gran, fr, tot;
        CU_TRY(cuMemGetInfo(&fr, &tot));
        if (bytes + gran <= fr) {
            CU_TRY(cuMemCreate(&h, bytes, &prop, 0));
            CU_TRY(cuMemAddressReserve(&va, bytes, 0, 0, 0));
            cu_map_access(va, bytes, h, &rw, read_cycles, &rt);
            CU_TRY(cuMemUnmap(va, bytes));
            CU_TRY(cuMemRelease(h));
            CU_TRY(cuMemAddressFree(va, bytes));
            printf("cuda_map_granules_%u_link_round_trips %" PRIu64 "\n", g, rt);
        } else {
            void *host = NULL;
            if (posix_memalign(&host, 4096, bytes)) cu_die("host memory", CUDA_ERROR_OUT_OF_MEMORY);
            vmgpu_hal *hal = vmgpu_dev_hal(cdev);
            uint64_t r0 = hal->round_trips;
            CU_TRY(cuMemHostRegister(host, bytes, 0));
            rt = hal->round_trips - r0;
            CU_TRY(cuMemHostUnregister(host));
            free(host);
            printf("cuda_map_granules_%u_link_round_trips %" PRIu64 "\n", g, rt);
            fprintf(stderr, "vmgpu-bench: %u granules (%zu KiB) do not fit in the %zu KiB of free device "
                    "memory: mapped host memory with cuMemHostRegister instead\n", g, bytes >> 10, fr >> 10);
        }
    }

    /* ---- copies: 1 MiB, device memory from cuMemAlloc, pinned host memory ---- */
    const size_t cb = MIB;
    CUdeviceptr d0, d1;
    uint8_t *hsrc, *hdst;
    CU_TRY(cuMemAlloc(&d0, cb));
    CU_TRY(cuMemAlloc(&d1, cb));
    CU_TRY(cuMemAllocHost((void **)&hsrc, cb));
    CU_TRY(cuMemAllocHost((void **)&hdst, cb));
    for (size_t i = 0; i < cb; i++) hsrc[i] = (uint8_t)(i * 7 + (i >> 12));
    memset(hdst, 0, cb);
    fprintf(stderr, "vmgpu-bench: cuMemcpy HtoD/DtoD/DtoH of %zu KiB (pinned host memory; warm-up, then "
            "measured)...\n", cb >> 10);
    cu_copy_cycles(d0, 0, NULL, hsrc, cb, read_cycles);
    uint64_t htod = cu_copy_cycles(d0, 0, NULL, hsrc, cb, read_cycles);
    cu_copy_cycles(d1, d0, NULL, NULL, cb, read_cycles);
    uint64_t dtod = cu_copy_cycles(d1, d0, NULL, NULL, cb, read_cycles);
    cu_copy_cycles(0, d1, hdst, NULL, cb, read_cycles);
    uint64_t dtoh = cu_copy_cycles(0, d1, hdst, NULL, cb, read_cycles);
    /* The figures count only if the bytes made the round trip host -> device -> device -> host. */
    if (memcmp(hsrc, hdst, cb) != 0) cu_die("cuMemcpy data check", CUDA_ERROR_UNKNOWN);
    const struct { const char *key; uint64_t cyc; } cp[] = {
        {"dtod", dtod}, {"htod", htod}, {"dtoh", dtoh}};
    for (unsigned i = 0; i < 3; i++) {
        double bpc = (double)cb / (double)cp[i].cyc;
        printf("cuda_memcpy_%s_bytes_per_cycle %.3f bytes/cycle\n", cp[i].key, bpc);
        printf("cuda_memcpy_%s_efficiency %.3f\n", cp[i].key, bpc / 4.0);  /* DMA peak: 4 bytes/cycle */
    }
    CU_TRY(cuMemFreeHost(hdst));
    CU_TRY(cuMemFreeHost(hsrc));
    CU_TRY(cuMemFree(d1));
    CU_TRY(cuMemFree(d0));
    CU_TRY(cuDevicePrimaryCtxRelease(d));
}

/* Over a link: only what one cuMemMap + cuMemSetAccess of one granule costs in link round trips
 * (the memcpy figures of whole MiBs would take many minutes at ~1 ms a host-port word). */
static void cuda_link_bench(void)
{
    fprintf(stderr, "vmgpu-bench: CUDA layer over the link (one granule map)...\n");
    cuda_env env;
    cuda_env_open(&env);
    CUdevice d = env.d;
    uint64_t mc, rt;
    cuda_map_one_granule(&env, &mc, &rt);
    printf("cuda_map_link_round_trips %" PRIu64 "\n", rt);
    printf("cuda_map_link_cycles %" PRIu64 " cycles\n", mc);
    cuda_pool_bench(&env);
    CU_TRY(cuDevicePrimaryCtxRelease(d));
}
#endif

/*
 * OpenCL: what clEnqueueMapBuffer + clEnqueueUnmapMemObject cost through vmgpu's ICD
 * (libvmgpu-opencl.so), for a 1 MiB CL_MEM_USE_HOST_PTR buffer (zero copy: host memory mapped
 * through the host aperture) and a 1 MiB device buffer (a staging copy by DMA each way).
 * Cycles are the events' CL_PROFILING_COMMAND_START..END (device TIMESTAMPs, 20 ns a cycle);
 * round trips are the transport's count during each blocking call. The library is dlopen()ed
 * from next to this program (build tree or install) and driven through its ICD dispatch
 * table, as the loader would, so no loader or OCL_ICD_VENDORS is needed; it runs in a child
 * process because it opens a device of its own.
 */
#if defined(__has_include)
#if __has_include(<CL/cl_icd.h>) && __has_include(<dlfcn.h>)
#define VMGPU_BENCH_HAVE_OPENCL 1
#endif
#endif
#ifdef VMGPU_BENCH_HAVE_OPENCL
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl_icd.h>
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

static void *cl_open_icd(void)
{
    const char *env = getenv("VMGPU_OPENCL_LIB");
    if (env && env[0]) return dlopen(env, RTLD_NOW | RTLD_LOCAL);
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 64);
    if (n <= 0) return NULL;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) return NULL;
    static const char *const rel[] = {"/../sw/opencl/libvmgpu-opencl.so", "/../lib/libvmgpu-opencl.so",
                                      "/../lib64/libvmgpu-opencl.so"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%.*s%s", (int)(slash - exe), exe, rel[i]);
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (h) return h;
    }
    return NULL;
}

static void cl_die(const char *what, cl_int rc)
{
    fprintf(stderr, "vmgpu-bench: OpenCL: %s failed (%d)\n", what, (int)rc);
    exit(1);
}
#define CL_TRY(call) do { cl_int rc_ = (call); if (rc_ != CL_SUCCESS) cl_die(#call, rc_); } while (0)

static uint64_t cl_event_cycles(const struct _cl_icd_dispatch *t, cl_event e)
{
    cl_ulong a = 0, b = 0;
    CL_TRY(t->clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL));
    CL_TRY(t->clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL));
    CL_TRY(t->clReleaseEvent(e));
    return (b - a) / (1000000000ull / VMGPU_CLOCK_HZ);
}

static void opencl_bench(void)
{
    void *lib = cl_open_icd();
    if (!lib) {
        fprintf(stderr, "vmgpu-bench: OpenCL figures skipped (libvmgpu-opencl.so not found: %s)\n", dlerror());
        return;
    }
    fprintf(stderr, "vmgpu-bench: OpenCL layer (libvmgpu-opencl.so)...\n");
    cl_int (*get_ids)(cl_uint, cl_platform_id *, cl_uint *) =
        (cl_int (*)(cl_uint, cl_platform_id *, cl_uint *))dlsym(lib, "clIcdGetPlatformIDsKHR");
    vmgpu_dev *(*core_dev)(void) = (vmgpu_dev * (*)(void)) dlsym(lib, "vmgpu_opencl_core_device");
    if (!get_ids || !core_dev) cl_die("dlsym", CL_INVALID_PLATFORM);
    cl_platform_id pl;
    CL_TRY(get_ids(1, &pl, NULL));
    /* Every ICD object starts with its dispatch table (cl_khr_icd). */
    const struct _cl_icd_dispatch *t = *(const struct _cl_icd_dispatch *const *)pl;
    cl_device_id d;
    CL_TRY(t->clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &d, NULL));
    cl_int err;
    cl_context ctx = t->clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    CL_TRY(err);
    cl_command_queue q = t->clCreateCommandQueue(ctx, d, CL_QUEUE_PROFILING_ENABLE, &err);
    CL_TRY(err);
    vmgpu_hal *hal = vmgpu_dev_hal(core_dev());
    void *host = NULL;
    if (posix_memalign(&host, PAGE, MIB)) die("host memory", VMGPU_ERR_NOMEM);
    memset(host, 1, MIB);
    cl_mem bufs[2];
    bufs[0] = t->clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, MIB, host, &err);
    CL_TRY(err);
    bufs[1] = t->clCreateBuffer(ctx, CL_MEM_READ_WRITE, MIB, NULL, &err);
    CL_TRY(err);
    /* Round trips on a queue without profiling: one with it also reads the cycle counter
     * around every command. */
    cl_command_queue qn = t->clCreateCommandQueue(ctx, d, 0, &err);
    CL_TRY(err);
    static const char *const key[2] = {"zero_copy", "copy"};
    for (int k = 0; k < 2; k++) {
        uint64_t cyc = 0, rt_map = 0, rt_unmap = 0;
        /* Round 0 warms up (a device buffer's staging memory is made by its first map). */
        for (int round = 0; round < 2; round++) {
            cl_event em, eu;
            void *p = t->clEnqueueMapBuffer(q, bufs[k], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, MIB, 0, NULL,
                                            &em, &err);
            CL_TRY(err);
            ((volatile uint8_t *)p)[12345] = 7;
            CL_TRY(t->clEnqueueUnmapMemObject(q, bufs[k], p, 0, NULL, &eu));
            CL_TRY(t->clFinish(q));
            cyc = cl_event_cycles(t, em) + cl_event_cycles(t, eu);
            uint64_t r0 = hal->round_trips;
            p = t->clEnqueueMapBuffer(qn, bufs[k], CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, MIB, 0, NULL, NULL, &err);
            CL_TRY(err);
            uint64_t r1 = hal->round_trips;
            CL_TRY(t->clEnqueueUnmapMemObject(qn, bufs[k], p, 0, NULL, NULL));
            CL_TRY(t->clFinish(qn));
            rt_map = r1 - r0;
            rt_unmap = hal->round_trips - r1;
        }
        printf("cl_map_%s_cycles %" PRIu64 " cycles\n", key[k], cyc);
        /* The keys without a suffix are the copy path (the device buffer). */
        printf("cl_map%s%s_link_round_trips %" PRIu64 "\n", k ? "" : "_", k ? "" : key[k], rt_map);
        printf("cl_unmap%s%s_link_round_trips %" PRIu64 "\n", k ? "" : "_", k ? "" : key[k], rt_unmap);
    }
    CL_TRY(t->clReleaseCommandQueue(qn));
    CL_TRY(t->clReleaseMemObject(bufs[0]));
    CL_TRY(t->clReleaseMemObject(bufs[1]));
    CL_TRY(t->clReleaseCommandQueue(q));
    CL_TRY(t->clReleaseContext(ctx));
    free(host);
}

/* Over a link: round trips of clEnqueueMapBuffer / clEnqueueUnmapMemObject (blocking,
 * read-write) of a small device buffer. Its staging copy is host-port words, one exchange each,
 * so the buffer is kept small (VMGPU_BENCH_LINK_MAP_BYTES, default 1 KiB). */
static void opencl_link_bench(void)
{
    void *lib = cl_open_icd();
    if (!lib) {
        fprintf(stderr, "vmgpu-bench: OpenCL figures skipped (libvmgpu-opencl.so not found: %s)\n", dlerror());
        return;
    }
    size_t bytes = 1024;
    const char *env = getenv("VMGPU_BENCH_LINK_MAP_BYTES");
    if (env && atol(env) > 0) bytes = (size_t)atol(env);
    fprintf(stderr, "vmgpu-bench: OpenCL layer over the link (map of a %zu-byte device buffer)...\n", bytes);
    cl_int (*get_ids)(cl_uint, cl_platform_id *, cl_uint *) =
        (cl_int (*)(cl_uint, cl_platform_id *, cl_uint *))dlsym(lib, "clIcdGetPlatformIDsKHR");
    vmgpu_dev *(*core_dev)(void) = (vmgpu_dev * (*)(void)) dlsym(lib, "vmgpu_opencl_core_device");
    if (!get_ids || !core_dev) cl_die("dlsym", CL_INVALID_PLATFORM);
    cl_platform_id pl;
    CL_TRY(get_ids(1, &pl, NULL));
    const struct _cl_icd_dispatch *t = *(const struct _cl_icd_dispatch *const *)pl;
    cl_device_id d;
    CL_TRY(t->clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &d, NULL));
    cl_int err;
    cl_context ctx = t->clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    CL_TRY(err);
    cl_command_queue q = t->clCreateCommandQueue(ctx, d, 0, &err);
    CL_TRY(err);
    vmgpu_hal *hal = vmgpu_dev_hal(core_dev());
    cl_mem b = t->clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CL_TRY(err);
    uint64_t rt_map = 0, rt_unmap = 0;
    for (int round = 0; round < 2; round++) {  /* round 0 warms up (makes the staging memory) */
        uint64_t r0 = hal->round_trips;
        void *p = t->clEnqueueMapBuffer(q, b, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &err);
        CL_TRY(err);
        uint64_t r1 = hal->round_trips;
        ((volatile uint8_t *)p)[bytes / 2] = (uint8_t)(round + 1);
        CL_TRY(t->clEnqueueUnmapMemObject(q, b, p, 0, NULL, NULL));
        CL_TRY(t->clFinish(q));
        rt_map = r1 - r0;
        rt_unmap = hal->round_trips - r1;
    }
    /* The figure counts only if the byte written through the map reached the device. */
    uint8_t back[1] = {0};
    CL_TRY(t->clEnqueueReadBuffer(q, b, CL_TRUE, bytes / 2, 1, back, 0, NULL, NULL));
    if (back[0] != 2) cl_die("map data check", CL_INVALID_VALUE);
    printf("cl_map_link_bytes %zu bytes\n", bytes);
    printf("cl_map_link_round_trips %" PRIu64 "\n", rt_map);
    printf("cl_unmap_link_round_trips %" PRIu64 "\n", rt_unmap);
    CL_TRY(t->clReleaseMemObject(b));
    CL_TRY(t->clReleaseCommandQueue(q));
    CL_TRY(t->clReleaseContext(ctx));
}

/* In a child: the ICD's device and this program's are separate simulations. */
static void opencl_bench_forked(int link)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        if (link) opencl_link_bench();
        else opencl_bench();
        fflush(stdout);
        _exit(0);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
        fprintf(stderr, "vmgpu-bench: the OpenCL figures failed\n");
        exit(1);
    }
}
#endif

/* ---- link figures over a bridge backend (sim-board, serial, ftdi): bench/README in docs/board.md.
 * Payload bytes per second of 64 KiB bursts written and read back (wall clock: the link's own
 * rate), and its ratio to the bytes the line rate can carry (10 bits a byte). For sim-board the
 * line rate is the model's UART: model cycles per second (its cycle counter over the same
 * time) divided by the cycles per bit. ---- */
static double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void link_bench(vmgpu_hal *hal, uint32_t pa)
{
    enum { N = 16384 };
    static uint32_t out[N], in[N];
    for (uint32_t i = 0; i < N; i++) out[i] = i * 2654435761u;
    uint32_t c0 = 0, c1 = 0;
    uint64_t rt0 = hal->round_trips;
    TRY(vmgpu_reg_read(hal, VMGPU_REG_CYCLE_LO, &c0) ? VMGPU_ERR_IO : VMGPU_OK);
    double t0 = bench_now();
    TRY(vmgpu_mem_write(hal, pa, out, N) ? VMGPU_ERR_IO : VMGPU_OK);
    TRY(vmgpu_mem_read(hal, pa, in, N) ? VMGPU_ERR_IO : VMGPU_OK);
    double dt = bench_now() - t0;
    TRY(vmgpu_reg_read(hal, VMGPU_REG_CYCLE_LO, &c1) ? VMGPU_ERR_IO : VMGPU_OK);
    if (memcmp(in, out, sizeof out)) die("link bench: data read back differs", VMGPU_ERR_IO);
    double pay = 2.0 * sizeof out / dt, cps = (double)(uint32_t)(c1 - c0) / dt;
    double bps = bridge_line_bits_per_second(hal, cps);
    printf("link_payload_bytes_per_second %.0f bytes/s\n", pay);
    printf("link_line_bits_per_second %.0f bits/s\n", bps);
    printf("link_payload_ratio %.3f\n", bps > 0 ? pay / (bps / 10.0) : 0.0);
    if (!strcmp(hal->ops->name, "sim-board")) printf("sim_board_cycles_per_second %.0f cycles/s\n", cps);
    /* Small exchanges: what a register access costs on this link. */
    uint32_t v;
    t0 = bench_now();
    uint64_t r0 = hal->round_trips;
    for (int i = 0; i < 200; i++) TRY(vmgpu_reg_read(hal, VMGPU_REG_SCRATCH, &v) ? VMGPU_ERR_IO : VMGPU_OK);
    printf("link_round_trips_per_second %.0f /s\n", (double)(hal->round_trips - r0) / (bench_now() - t0));
    fprintf(stderr, "vmgpu-bench: link: 128 KiB moved in %" PRIu64 " round trips, %.2f s\n",
            r0 - rt0, dt);
}

/* Over a link every host-port word is one exchange: the CUDA and OpenCL memcpy/map figures of
 * whole MiBs would take many minutes on the simulated UART, so a link device gets the small
 * ones (cuda_link_bench, opencl_link_bench); VMGPU_BENCH_LINK_ALL=1 runs the full ones. */
static int link_device(void)
{
    const char *d = getenv("VMGPU_DEVICE");
    const char *all = getenv("VMGPU_BENCH_LINK_ALL");
    return d && *d && strcmp(d, "sim") && !(all && *all == '1');
}

/* ---- the device server: a no-op round trip, and one map through it vs in this process ---- */
static double bench_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Wall-clock microseconds of one vmgpu_map of a granule (then unmapped, not counted): the
 * median of 5 runs of 40; *rt the link round trips of one map. */
static double map_us(vmgpu_dev *d, uint64_t *rt)
{
    vmgpu_ctx *c;
    uint32_t pa, va;
    TRY(vmgpu_ctx_create(d, 0, &c));
    TRY(vmgpu_phys_alloc(d, GRAN, 0, &pa));
    TRY(vmgpu_va_reserve(c, GRAN, 0, 0, &va));
    double runs[5];
    for (int r = 0; r < 5; r++) {
        double t = 0;
        for (int i = 0; i < 40; i++) {
            uint64_t t0 = 0, t1 = 0;
            TRY(vmgpu_dev_link_round_trips(d, &t0));
            double a = bench_us();
            TRY(vmgpu_map(c, va, pa, GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE));
            t += bench_us() - a;
            TRY(vmgpu_dev_link_round_trips(d, &t1));
            *rt = t1 - t0;
            TRY(vmgpu_unmap(c, va, GRAN));
        }
        runs[r] = t / 40;
    }
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            if (runs[j] < runs[i]) { double x = runs[i]; runs[i] = runs[j]; runs[j] = x; }
    TRY(vmgpu_va_free(c, va));
    TRY(vmgpu_phys_free(d, pa));
    TRY(vmgpu_ctx_destroy(c));
    return runs[2];
}

/*
 * --cuda-map-probe (run by server_bench in a process of its own, once through the device server
 * and once with the device in the process): cuMemMap + cuMemSetAccess of one granule through
 * libcuda, the median wall time of five rounds of 20 and the link round trips the device saw.
 */
static int cuda_map_probe(void)
{
    cuda_env env;
    cuda_env_open(&env);
    CUmemGenericAllocationHandle h;
    CUdeviceptr va;
    uint64_t rt = 0;
    CU_TRY(cuMemCreate(&h, env.gran, &env.prop, 0));
    CU_TRY(cuMemAddressReserve(&va, env.gran, 0, 0, 0));
    cu_map_access(va, env.gran, h, &env.rw, env.read_cycles, &rt);  /* makes the page table */
    CU_TRY(cuMemUnmap(va, env.gran));
    double runs[5];
    for (int r = 0; r < 5; r++) {
        double t = 0;
        for (int i = 0; i < 20; i++) {
            double a = bench_us();
            cu_map_access(va, env.gran, h, &env.rw, env.read_cycles, &rt);
            t += bench_us() - a;
            CU_TRY(cuMemUnmap(va, env.gran));
        }
        runs[r] = t / 20;
    }
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            if (runs[j] < runs[i]) { double x = runs[i]; runs[i] = runs[j]; runs[j] = x; }
    CU_TRY(cuMemRelease(h));
    CU_TRY(cuMemAddressFree(va, env.gran));
    printf("us %.1f\nrt %" PRIu64 "\nremote %d\n", runs[2], rt, vmgpu_dev_is_remote(cdev));
    return 0;
}

/* Runs this program's --cuda-map-probe with VMGPU_SERVER=via; 0 and its figures, or -1. */
static int run_cuda_map_probe(const char *via, double *us, uint64_t *rt)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return -1;
    self[n] = 0;
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "VMGPU_SERVER=%s '%s' --cuda-map-probe", via, self);
    fflush(stdout);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[128];
    int got = 0, remote = -1;
    while (fgets(line, sizeof line, p)) {
        unsigned long long v;
        if (sscanf(line, "us %lf", us) == 1) got |= 1;
        else if (sscanf(line, "rt %llu", &v) == 1) { *rt = v; got |= 2; }
        else if (sscanf(line, "remote %d", &remote) == 1) got |= 4;
    }
    int st = pclose(p);
    /* the figures must come from the way asked for: through the server exactly when via is 1 */
    if (st != 0 || got != 7 || remote != (strcmp(via, "1") == 0)) return -1;
    return 0;
}

static void server_bench(void)
{
    char err[320];
    vmgpu_dev *local = NULL;
    dev = NULL;
    if ((vmgpu_dev_open("vmgpud:sim", &dev, err, sizeof err)) != VMGPU_OK) {
        fprintf(stderr, "vmgpu-bench: device server: %s\n", err);
        exit(1);
    }
    fprintf(stderr, "vmgpu-bench: device server: no-op round trips, one map through it...\n");
    double runs[5];
    for (int i = 0; i < 200; i++) TRY(vmgpu_dev_ping(dev));  /* warm */
    for (int r = 0; r < 5; r++) {
        double a = bench_us();
        for (int i = 0; i < 400; i++) TRY(vmgpu_dev_ping(dev));
        runs[r] = (bench_us() - a) / 400;
    }
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            if (runs[j] < runs[i]) { double x = runs[i]; runs[i] = runs[j]; runs[j] = x; }
    printf("server_call_us %.1f us\n", runs[2]);
    uint64_t rt_server = 0, rt_local = 0;
    printf("server_map_granule_us %.1f us\n", map_us(dev, &rt_server));
    printf("server_map_granule_link_round_trips %" PRIu64 "\n", rt_server);
    vmgpu_dev_close(dev);
    dev = NULL;
    if (vmgpu_dev_open("sim-inproc", &local, err, sizeof err) == VMGPU_OK) {
        dev = local;
        printf("inproc_map_granule_us %.1f us\n", map_us(local, &rt_local));
        vmgpu_dev_close(local);
        dev = NULL;
    }
    /* The same through libcuda: cuMemMap + cuMemSetAccess of a granule in a process whose CUDA
     * goes through the device server, and in one whose device is in the process. */
    fprintf(stderr, "vmgpu-bench: cuMemMap through the device server and in-process...\n");
    double us_s = 0, us_i = 0;
    uint64_t rt_s = 0, rt_i = 0;
    if (run_cuda_map_probe("1", &us_s, &rt_s) || run_cuda_map_probe("0", &us_i, &rt_i)) {
        fprintf(stderr, "vmgpu-bench: the cuMemMap probe failed\n");
        exit(1);
    }
    printf("server_cuda_map_granule_us %.1f us\n", us_s);
    printf("server_cuda_map_granule_link_round_trips %" PRIu64 "\n", rt_s);
    printf("inproc_cuda_map_granule_us %.1f us\n", us_i);
    printf("inproc_cuda_map_granule_link_round_trips %" PRIu64 "\n", rt_i);
}

#ifdef VMGPU_BENCH_HAVE_PTX
static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint32_t reg(vmgpu_hal *hal, uint32_t off)
{
    uint32_t v = 0;
    TRY(vmgpu_reg_read(hal, off, &v) ? VMGPU_ERR_IO : VMGPU_OK);
    return v;
}

/* A buffer of device memory mapped in c. */
struct kbuf { uint32_t pa, va, bytes; };
static struct kbuf kbuf_new(vmgpu_ctx *c, uint32_t bytes, unsigned flags)
{
    struct kbuf b;
    b.bytes = (bytes + GRAN - 1) & ~(GRAN - 1);
    TRY(vmgpu_phys_alloc(dev, b.bytes, 0, &b.pa));
    TRY(vmgpu_va_reserve(c, b.bytes, 0, 0, &b.va));
    TRY(vmgpu_map(c, b.va, b.pa, b.bytes, flags));
    return b;
}
static void kbuf_free(vmgpu_ctx *c, struct kbuf *b)
{
    TRY(vmgpu_unmap(c, b->va, b->bytes));
    TRY(vmgpu_va_free(c, b->va));
    TRY(vmgpu_phys_free(dev, b->pa));
}

/* One translated kernel in c: its code mapped read-only, and an argument block. */
struct kprog { ptx_module *mod; const ptx_kernel *k; struct kbuf code, args; };
static struct kprog kprog_load(vmgpu_ctx *c, const char *text)
{
    struct kprog p;
    ptx_error err;
    ptx_status st = ptx_translate(text, strlen(text), NULL, &p.mod, &err);
    if (st != PTX_OK) {
        fprintf(stderr, "vmgpu-bench: PTX: %s at line %d (%s): %s\n", ptx_status_name(st), err.line,
                err.instr, err.message);
        exit(1);
    }
    p.k = &p.mod->kernels[0];
    p.code = kbuf_new(c, p.mod->code_bytes, VMGPU_MAP_READ);
    uint8_t *w = calloc(1, (p.mod->code_bytes + 3) & ~3u);
    memcpy(w, p.mod->code, p.mod->code_bytes);
    TRY(vmgpu_phys_write(dev, p.code.pa, w, (p.mod->code_bytes + 3) & ~3u));
    free(w);
    p.args = kbuf_new(c, PAGE, VMGPU_MAP_READ);
    return p;
}
/* Writes the kernel's parameters (32-bit values; a pointer's high word stays 0). */
static void kprog_args(struct kprog *p, const uint32_t *v, unsigned n)
{
    uint32_t w[32] = {0};
    if (n != p->k->num_params) {
        fprintf(stderr, "vmgpu-bench: kernel %s has %u parameters, not %u\n", p->k->name, p->k->num_params, n);
        exit(1);
    }
    for (unsigned i = 0; i < n; i++) w[p->k->params[i].offset / 4] = v[i];
    TRY(vmgpu_phys_write(dev, p->args.pa, w, sizeof w));
}
static void kprog_free(vmgpu_ctx *c, struct kprog *p)
{
    kbuf_free(c, &p->code);
    kbuf_free(c, &p->args);
    ptx_module_free(p->mod);
}

/* Launches p (grid x block threads), waits, and returns the unit's busy cycles
 * (SIMT_CYCLES); *lane_instrs gets SIMT_LANE_INSTRS. */
static uint32_t klaunch(vmgpu_stream *s, vmgpu_hal *hal, struct kprog *p, uint32_t grid, uint32_t block,
                        uint32_t *lane_instrs)
{
    uint32_t g[3] = {grid, 1, 1}, b[3] = {block, 1, 1};
    TRY(vmgpu_cmd_launch_prog(s, p->code.va + p->k->entry, p->args.va, g, b, p->k->shared_bytes));
    TRY(vmgpu_stream_sync(s));
    if (lane_instrs) *lane_instrs = reg(hal, VMGPU_REG_SIMT_LANE_INSTRS);
    return reg(hal, VMGPU_REG_SIMT_CYCLES);
}

/*
 * The SIMT unit's figures, with NVIDIA's PTX of two test kernels translated here:
 * - ptx_translate_ms: translating spin.ptx (NVRTC, 94 lines), mean of 200;
 * - kernel_vadd_bytes_per_cycle: c[i] = a[i] + b[i] (grid-stride, int32) over 64 Ki elements,
 *   bytes moved (8 read + 4 written per element) per cycle the unit was busy; its ratio to the
 *   DMA's peak (a 32-bit word per cycle) is kernel_vadd_dma_peak_ratio;
 * - kernel_lane_ipc: spin (a compute-bound recurrence), instructions retired per lane per cycle;
 * - sim_cycles_per_second_simt_busy: the simulated device's speed while the unit runs (wall clock;
 *   the in-process simulator only).
 */
static void kernel_bench(vmgpu_ctx *c, vmgpu_stream *s, vmgpu_hal *hal, const vmgpu_dev_info *info)
{
    enum { TRANSLATIONS = 200 };
    double t0 = now_s();
    for (int i = 0; i < TRANSLATIONS; i++) {
        ptx_module *m;
        if (ptx_translate(k_spin_ptx, strlen(k_spin_ptx), NULL, &m, NULL) != PTX_OK) die("ptx_translate", VMGPU_ERR_INVALID);
        ptx_module_free(m);
    }
    unsigned lines = 0;
    for (const char *q = k_spin_ptx; *q; q++) lines += *q == '\n';
    printf("ptx_translate_ms %.3f ms\n", (now_s() - t0) * 1000.0 / TRANSLATIONS);
    printf("ptx_translate_lines %u\n", lines);

    uint32_t threads = info->simt_lanes * info->simt_warps;
    /* ---- vadd: 64 Ki elements, 16 blocks of the unit's full size, grid-stride ---- */
    uint32_t n = 65536;
    fprintf(stderr, "vmgpu-bench: SIMT vadd of %u int32 elements (%u x %u threads)...\n", n, 16u, threads);
    struct kprog vadd = kprog_load(c, k_gridstride_ptx);
    struct kbuf A = kbuf_new(c, 4 * n, VMGPU_MAP_READ), B = kbuf_new(c, 4 * n, VMGPU_MAP_READ),
                C = kbuf_new(c, 4 * n, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    uint32_t *a = malloc(4 * n), *b = malloc(4 * n), *r = malloc(4 * n);
    for (uint32_t i = 0; i < n; i++) {
        a[i] = i * 2654435761u;
        b[i] = ~i ^ 0x5a5a5a5au;
    }
    TRY(vmgpu_phys_write(dev, A.pa, a, 4 * n));
    TRY(vmgpu_phys_write(dev, B.pa, b, 4 * n));
    uint32_t v[4] = {A.va, B.va, C.va, n};
    kprog_args(&vadd, v, 4);
    klaunch(s, hal, &vadd, 16, threads, NULL);             /* warm: the TLB */
    uint32_t cyc = klaunch(s, hal, &vadd, 16, threads, NULL);
    TRY(vmgpu_phys_read(dev, C.pa, r, 4 * n));
    for (uint32_t i = 0; i < n; i++)
        if (r[i] != a[i] + b[i]) {
            fprintf(stderr, "vmgpu-bench: SIMT vadd: c[%u] = 0x%08x, want 0x%08x\n", i, r[i], a[i] + b[i]);
            exit(1);
        }
    double vbpc = 12.0 * n / cyc;
    printf("kernel_vadd_bytes_per_cycle %.3f bytes/cycle\n", vbpc);
    printf("kernel_vadd_dma_peak_ratio %.3f\n", vbpc / 4.0);
    printf("kernel_vadd_cycles %" PRIu32 " cycles\n", cyc);
    free(a);
    free(b);
    free(r);
    kbuf_free(c, &A);
    kbuf_free(c, &B);
    kbuf_free(c, &C);
    kprog_free(c, &vadd);

    /* ---- spin: one block of the unit's full size ---- */
    struct kprog spin = kprog_load(c, k_spin_ptx);
    struct kbuf O = kbuf_new(c, 4 * threads, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    uint32_t sv[2] = {O.va, 512};
    kprog_args(&spin, sv, 2);
    uint32_t li = 0;
    cyc = klaunch(s, hal, &spin, 1, threads, &li);
    printf("kernel_lane_ipc %.3f\n", (double)li / ((double)cyc * info->simt_lanes));
    printf("kernel_spin_cycles %" PRIu32 " cycles\n", cyc);
    /* ---- the simulator's speed with the unit busy (in-process sim only) ---- */
    if (!strcmp(hal->ops->name, "sim")) {
        sv[1] = 20000;
        kprog_args(&spin, sv, 2);
        uint32_t c0 = reg(hal, VMGPU_REG_CYCLE_LO);
        double w0 = now_s();
        cyc = klaunch(s, hal, &spin, 1, threads, NULL);
        double w1 = now_s();
        uint32_t c1 = reg(hal, VMGPU_REG_CYCLE_LO);
        printf("sim_cycles_per_second_simt_busy %.0f cycles/s\n", (double)(uint32_t)(c1 - c0) / (w1 - w0));
    }
    kbuf_free(c, &O);
    kprog_free(c, &spin);
}
#endif

int main(int argc, char **argv)
{
    /* The device's figures are measured on the device in this process, as a kernel driver sees
     * it (the link's own counters, raw link bursts); what the device server adds is measured
     * apart (server_call_us, server_map_granule_*). VMGPU_SERVER=1 measures through it. */
    if (!getenv("VMGPU_SERVER")) setenv("VMGPU_SERVER", "0", 1);
    /* --device SPEC: the same as VMGPU_DEVICE=SPEC (e.g. --device sim-board). */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) setenv("VMGPU_DEVICE", argv[++i], 1);
        else if (!strcmp(argv[i], "--cuda-map-probe")) return cuda_map_probe();
        else {
            fprintf(stderr, "usage: %s [--device sim|sim-board|serial:/dev/ttyUSB0[@baud]|ftdi[:vid:pid[:serial]]]\n", argv[0]);
            return 2;
        }
    }
#ifdef VMGPU_BENCH_HAVE_OPENCL
    /* first: the child must not inherit another open device; over a link, the small figures only */
    opencl_bench_forked(link_device());
#endif
#ifdef VMGPU_BENCH_HAVE_SIM
    {
        /* Three runs of 6M busy cycles (about a second each): a single short run on a shared
         * 2-core machine swings by a factor of two. The key is the median; min and max too. */
        enum { RUNS = 3 };
        double v[RUNS];
        int ok = 1;
        char err[256];
        for (int i = 0; i < RUNS && ok; i++) {
            fprintf(stderr, "vmgpu-bench: measuring simulation speed (busy device), run %d of %d...\n",
                    i + 1, RUNS);
            vmgpu_sim_speed sp;
            if (vmgpu_sim_measure_speed(6000000, "", &sp, err, sizeof err) == 0)
                v[i] = sp.busy_cycles_per_second;
            else {
                fprintf(stderr, "vmgpu-bench: sim speed: %s\n", err);
                ok = 0;
            }
        }
        if (ok) {
            for (int i = 0; i < RUNS; i++)  /* sort three values */
                for (int j = i + 1; j < RUNS; j++)
                    if (v[j] < v[i]) { double t = v[i]; v[i] = v[j]; v[j] = t; }
            printf("sim_cycles_per_second %.0f cycles/s\n", v[RUNS / 2]);
            printf("sim_cycles_per_second_min %.0f cycles/s\n", v[0]);
            printf("sim_cycles_per_second_max %.0f cycles/s\n", v[RUNS - 1]);
        }
    }
#endif
    char err[256];
    int rc = vmgpu_dev_open(NULL, &dev, err, sizeof err);
    if (rc) {
        fprintf(stderr, "vmgpu-bench: %s\n", err);
        return 1;
    }
    vmgpu_dev_info info;
    TRY(vmgpu_dev_get_info(dev, &info));
    vmgpu_hal *hal = vmgpu_dev_hal(dev);
    vmgpu_ctx *c;
    vmgpu_stream *s;
    TRY(vmgpu_ctx_create(dev, 0, &c));
    TRY(vmgpu_stream_create(c, 0, &s));
    uint32_t ts_pa, ts_va;  /* timestamp slots: device memory, by physical address */
    TRY(vmgpu_phys_alloc(dev, GRAN, 0, &ts_pa));
    TRY(vmgpu_va_reserve(c, GRAN, 0, 0, &ts_va));

    /* ---- DMA copy efficiency: 1 MiB device to device, TLB warm ---- */
    uint32_t copy_bytes = MIB;
    if (copy_bytes * 4 > info.user_bytes) copy_bytes = info.user_bytes / 8 & ~(PAGE - 1);
    uint32_t spa, dpa, sva, dva;
    TRY(vmgpu_phys_alloc(dev, copy_bytes, 0, &spa));
    TRY(vmgpu_phys_alloc(dev, copy_bytes, 0, &dpa));
    TRY(vmgpu_va_reserve(c, copy_bytes, 0, 0, &sva));
    TRY(vmgpu_va_reserve(c, copy_bytes, 0, 0, &dva));
    TRY(vmgpu_map(c, sva, spa, copy_bytes, VMGPU_MAP_READ));
    TRY(vmgpu_map(c, dva, dpa, copy_bytes, VMGPU_MAP_READ | VMGPU_MAP_WRITE));
    fprintf(stderr, "vmgpu-bench: %u KiB device-to-device copy (warm-up, then measured)...\n", copy_bytes >> 10);
    struct copy_args ca = {dva, sva, copy_bytes};
    uint64_t overhead = timed(s, ts_pa, do_nothing, NULL);
    timed(s, ts_pa, do_copy, &ca);                       /* warm the TLB */
    /* The board's SDRAM figures need CAPS.EXT_MEM and MEM_REFRESH_CYCLES (board/ulx3s with the
     * SDRAM controller); a register map without them has no SDRAM device to measure. */
#ifdef VMGPU_REG_CAPS_EXT_MEM_MASK
    uint32_t caps = 0, cyc0 = 0, cyc1 = 0, ref0 = 0, ref1 = 0;
    TRY(vmgpu_reg_read(hal, VMGPU_REG_CAPS, &caps) ? VMGPU_ERR_IO : VMGPU_OK);
    int sdram = (caps & VMGPU_REG_CAPS_EXT_MEM_MASK) != 0;
#else
    enum { sdram = 0 };
#endif
    if (sdram) {
#ifdef VMGPU_REG_CAPS_EXT_MEM_MASK
        TRY(vmgpu_reg_read(hal, VMGPU_REG_CYCLE_LO, &cyc0) ? VMGPU_ERR_IO : VMGPU_OK);
        TRY(vmgpu_reg_read(hal, VMGPU_REG_MEM_REFRESH_CYCLES, &ref0) ? VMGPU_ERR_IO : VMGPU_OK);
#endif
    }
    uint64_t cyc = timed(s, ts_pa, do_copy, &ca) - overhead;
    double bpc = (double)copy_bytes / (double)cyc;
    printf("dma_copy_bytes_per_cycle %.3f bytes/cycle\n", bpc);
    printf("dma_copy_efficiency %.3f\n", bpc / 4.0);      /* peak: one 32-bit word per cycle */
    printf("dma_copy_cycles %" PRIu64 " cycles\n", cyc);
#ifdef VMGPU_REG_CAPS_EXT_MEM_MASK
    if (sdram) {
        /* Device memory is the board's SDRAM (CAPS.EXT_MEM): 16 bits a cycle, so its peak at the
         * design clock is 2 bytes per cycle, and a copy moves every byte over that bus twice
         * (read, then written). sdram_copy_efficiency counts both: (bytes read + bytes written)
         * per cycle / 2 bytes per cycle, the share of the bus the copy kept busy. The refresh
         * overhead is the share of the cycles the chip was held for refresh (MEM_REFRESH_CYCLES
         * over the cycle counter, across the measured copy). */
        TRY(vmgpu_reg_read(hal, VMGPU_REG_CYCLE_LO, &cyc1) ? VMGPU_ERR_IO : VMGPU_OK);
        TRY(vmgpu_reg_read(hal, VMGPU_REG_MEM_REFRESH_CYCLES, &ref1) ? VMGPU_ERR_IO : VMGPU_OK);
        printf("sdram_copy_bytes_per_cycle %.3f bytes/cycle\n", 2.0 * bpc);
        printf("sdram_copy_efficiency %.3f\n", 2.0 * bpc / 2.0);
        printf("sdram_refresh_overhead %.4f\n",
               cyc1 != cyc0 ? (double)(uint32_t)(ref1 - ref0) / (double)(uint32_t)(cyc1 - cyc0) : 0.0);
    }
#endif

#ifdef VMGPU_BENCH_HAVE_PTX
    if (info.simt_lanes) kernel_bench(c, s, hal, &info);
#endif

    /* ---- TLB miss cost: page-strided reads after TLB_INV vs the same reads warm ---- */
    uint32_t pages = info.tlb_entries ? info.tlb_entries / 2 : 8;  /* src + dst pages fit */
    if (pages > 64) pages = 64;
    struct stride_args sa = {dva, sva, pages};
    TRY(vmgpu_cmd_tlb_inv(s));
    TRY(vmgpu_stream_sync(s));
    uint32_t miss0, walk0, miss1, walk1;
    TRY(vmgpu_reg_read(hal, VMGPU_REG_TLB_MISSES, &miss0) ? VMGPU_ERR_IO : VMGPU_OK);
    TRY(vmgpu_reg_read(hal, VMGPU_REG_WALK_CYCLES, &walk0) ? VMGPU_ERR_IO : VMGPU_OK);
    uint64_t cold = timed(s, ts_pa, do_strided, &sa);
    TRY(vmgpu_reg_read(hal, VMGPU_REG_TLB_MISSES, &miss1) ? VMGPU_ERR_IO : VMGPU_OK);
    TRY(vmgpu_reg_read(hal, VMGPU_REG_WALK_CYCLES, &walk1) ? VMGPU_ERR_IO : VMGPU_OK);
    uint64_t warm = timed(s, ts_pa, do_strided, &sa);
    uint32_t misses = miss1 - miss0;
    double per_miss = misses ? (double)(cold - warm) / misses : 0.0;
    printf("tlb_miss_cycles %.1f cycles\n", per_miss);  /* page tables live in device memory:
                                                            the SDRAM on the board */
    printf("tlb_walk_cycles_per_miss %.1f cycles\n", misses ? (double)(walk1 - walk0) / misses : 0.0);
    fprintf(stderr, "vmgpu-bench: %u strided copies: %" PRIu64 " cycles cold (%u misses), %" PRIu64
            " warm\n", pages, cold, misses, warm);

    /* ---- map cost: one granule; cycles on the device and link round trips ---- */
    uint32_t mpa, mva;
    uint32_t max_g = 256;
    while (max_g > 1 && (uint64_t)max_g * GRAN * 2 > info.user_bytes - 4 * copy_bytes) max_g /= 2;
    TRY(vmgpu_phys_alloc(dev, max_g * GRAN, 0, &mpa));
    TRY(vmgpu_va_reserve(c, max_g * GRAN, 0, 0, &mva));
    /* Device cycles of PTE_FILL + TLB_INV + FENCE, timestamped in the same ring. */
    {
        uint32_t t[4];
        TRY(vmgpu_cmd_timestamp(s, ts_pa));
        TRY(vmgpu_stream_map(s, mva, mpa, GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE));
        TRY(vmgpu_stream_submit(s, NULL));
        TRY(vmgpu_cmd_timestamp(s, ts_pa + 8));
        TRY(vmgpu_stream_sync(s));
        TRY(vmgpu_phys_read(dev, ts_pa, t, 16));
        uint64_t mc = (((uint64_t)t[3] << 32) | t[2]) - (((uint64_t)t[1] << 32) | t[0]);
        printf("map_granule_cycles %" PRIu64 " cycles\n", mc);
        TRY(vmgpu_unmap(c, mva, GRAN));
    }
    uint64_t before = hal->round_trips;
    TRY(vmgpu_map(c, mva, mpa, GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE));
    printf("map_granule_link_round_trips %" PRIu64 "\n", hal->round_trips - before);
    TRY(vmgpu_unmap(c, mva, GRAN));
    /* The series up to 256 granules (16 MiB, as much as the whole device memory) maps
     * registered host memory: the page-table work is the same for either aperture. */
    uint32_t series_max = 256, haddr, hva;
    void *host = NULL;
    if (posix_memalign(&host, PAGE, (size_t)series_max * GRAN)) die("host memory", VMGPU_ERR_NOMEM);
    TRY(vmgpu_host_register(dev, host, (size_t)series_max * GRAN, &haddr));
    TRY(vmgpu_va_reserve(c, series_max * GRAN, 0, 0, &hva));
    for (uint32_t g = 1; g <= series_max; g *= 2) {
        before = hal->round_trips;
        TRY(vmgpu_map(c, hva, haddr, g * GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE | VMGPU_MAP_HOST));
        printf("map_granules_%u_link_round_trips %" PRIu64 "\n", g, hal->round_trips - before);
        TRY(vmgpu_unmap(c, hva, g * GRAN));
    }
    TRY(vmgpu_host_unregister(dev, host));
    free(host);
    if (strcmp(hal->ops->name, "sim")) link_bench(hal, spa);
    TRY(vmgpu_stream_destroy(s));
    TRY(vmgpu_ctx_destroy(c));
    vmgpu_dev_close(dev);
    dev = NULL;
    (void)ts_va;
#ifdef VMGPU_BENCH_HAVE_CUDA
    /* after the core's device is closed: libcuda opens its own */
    if (!link_device()) cuda_bench();
    else cuda_link_bench();
#endif
    if (!link_device()) server_bench();
    return 0;
}
