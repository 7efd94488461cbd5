/*
 * CUDA kernels from PTX: module loading (PTX text, fat binaries, JIT log buffers), functions and
 * their attributes, cuLaunchKernel's arguments (kernelParams, extra) and launch limits, the
 * results of NVRTC's integer test kernels, and the sticky ILLEGAL_ADDRESS after a kernel's
 * store past a mapping. One line "case ANSWER" per case, like cuda_probe.c: run against NVIDIA's
 * driver (record_kernels_nvidia.sh, answers in nvidia_kernels_*.txt) and against vmgpu's
 * (compare.py, ctest cuda_kernels_vs_nvidia). A value line (two blanks first) tells something
 * about the case above it.
 *
 * PTX comes from PROBE_PTX_DIR (default tests/ptx/fixtures, NVRTC's PTX of tests/ptx/kernels)
 * and PROBE_KERNEL_DIR (default tests/cuda/fixtures: tests/cuda/kernels compiled the same way);
 * fat binaries and cubins made by nvcc from PROBE_FATBIN_DIR (default tests/cuda/fixtures).
 * Kernels that check results launch blocks of 16 threads (the simulated device's unit today).
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "probe_skip.h"

static int last_skipped;
static const char *rcname(CUresult rc)
{
    const char *n = NULL;
    cuGetErrorName(rc, &n);
    return n ? n : "?";
}
#define P(name, call) ({ CUresult r_ = (CUresult)-1; last_skipped = skipped(name); \
    if (last_skipped) printf("%-52s SKIPPED\n", name); \
    else { printf("%-52s ", name); fflush(stdout); r_ = (call); printf("%s\n", rcname(r_)); } r_; })
#define V(name, ...) do { if (last_skipped) printf("%-52s SKIPPED\n", name); else { \
    printf("%-52s ", name); printf(__VA_ARGS__); printf("\n"); } } while (0)
#define YN(name, cond) V(name, "%s", (cond) ? "yes" : "no")

static CUdevice dev;

static CUresult new_ctx(CUcontext *c)
{
#if CUDA_VERSION >= 13000
    return cuCtxCreate(c, NULL, 0, dev);
#else
    return cuCtxCreate(c, 0, dev);
#endif
}

static CUcontext setup(void)
{
    CUcontext c;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || new_ctx(&c)) {
        printf("no device\n");
        exit(1);
    }
    return c;
}

static char *read_file(const char *dir_env, const char *dflt, const char *name, size_t *len)
{
    const char *dir = getenv(dir_env);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : dflt, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "kernel_probe: cannot open %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = calloc(1, (size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) exit(2);
    fclose(f);
    if (len) *len = (size_t)n;
    return buf;
}
static char *ptx(const char *name) { return read_file("PROBE_PTX_DIR", "tests/ptx/fixtures", name, NULL); }
static char *kptx(const char *name) { return read_file("PROBE_KERNEL_DIR", "tests/cuda/fixtures", name, NULL); }
static char *fatbin(const char *name, size_t *n) { return read_file("PROBE_FATBIN_DIR", "tests/cuda/fixtures", name, n); }
static const char *fatbin_path(const char *name)
{
    static char path[1024];
    const char *dir = getenv("PROBE_FATBIN_DIR");
    snprintf(path, sizeof path, "%s/%s", dir ? dir : "tests/cuda/fixtures", name);
    return path;
}

static uint32_t fnv(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 16777619u;
    return h;
}

static uint32_t g_seed = 12345;
static uint32_t rnd(void) { return g_seed = g_seed * 1103515245u + 12345u; }

/* A PTX text that ptxas rejects: an unknown instruction on line 6. */
static const char bad_ptx[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry bad()\n{\n"
    "\tfrobnicate.s32 %r1;\n\tret;\n}\n";
static const char undeclared_ptx[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry bad()\n{\n"
    "\tmov.u32 %r1, 5;\n\tret;\n}\n";
static const char noversion_ptx[] = ".target sm_75\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
static const char newversion_ptx[] =
    ".version 99.9\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n";
static const char header_only_ptx[] = ".version 8.0\n.target sm_75\n.address_size 64\n";
static const char empty_kernel_ptx[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry empty()\n{\n\tret;\n}\n";
static const char func_ptx[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n"
    ".func (.param .b32 r) twice(.param .b32 x)\n{\n\t.reg .b32 %r<3>;\n"
    "\tld.param.b32 %r1, [x];\n\tadd.s32 %r2, %r1, %r1;\n\tst.param.b32 [r], %r2;\n\tret;\n}\n"
    ".visible .entry callit(.param .u64 out)\n{\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<3>;\n"
    "\tmov.u32 %r1, 21;\n\t{\n\t.param .b32 a;\n\t.param .b32 b;\n\tst.param.b32 [a], %r1;\n"
    "\tcall.uni (b), twice, (a);\n\tld.param.b32 %r2, [b];\n\t}\n"
    "\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tst.global.u32 [%rd2], %r2;\n\tret;\n}\n";

/* The log buffer's size after the call, against the text it holds. */
static const char *size_rel(void *val, const char *buf, size_t given)
{
    size_t got = (size_t)(uintptr_t)val, len = strlen(buf);
    if (got == given) return "unchanged";
    if (got == len + 1) return "length+1";
    if (got == len) return "length";
    return "other";
}

static void s_ptxload(void)
{
    CUcontext c = setup();
    CUmodule m = NULL, m2 = NULL;
    CUfunction f = NULL;
    char *vadd = ptx("vadd.ptx");
    P("load garbage text", cuModuleLoadData(&m2, "this is not a module"));
    P("load empty string", cuModuleLoadData(&m2, ""));
    P("load NULL image", cuModuleLoadData(&m2, NULL));
    P("load NULL module", cuModuleLoadData(NULL, vadd));
    P("load ptx unknown instruction", cuModuleLoadData(&m2, bad_ptx));
    P("load ptx undeclared register", cuModuleLoadData(&m2, undeclared_ptx));
    P("load ptx without .version", cuModuleLoadData(&m2, noversion_ptx));
    P("load ptx .version 99.9", cuModuleLoadData(&m2, newversion_ptx));
    if (P("load ptx header only", cuModuleLoadData(&m2, header_only_ptx)) == CUDA_SUCCESS) cuModuleUnload(m2);
    if (P("load ptx empty kernel", cuModuleLoadData(&m2, empty_kernel_ptx)) == CUDA_SUCCESS) cuModuleUnload(m2);
    if (P("load ptx f32 saxpy", cuModuleLoadData(&m2, ptx("saxpy_f32.ptx"))) == CUDA_SUCCESS) cuModuleUnload(m2);
    if (P("load ptx atomics", cuModuleLoadData(&m2, ptx("atomics.ptx"))) == CUDA_SUCCESS) cuModuleUnload(m2);
    if (P("load ptx .func and call", cuModuleLoadData(&m2, func_ptx)) == CUDA_SUCCESS) cuModuleUnload(m2);
    if (P("load NVRTC 13.5 fixture (.version 9.5)",
          cuModuleLoadData(&m2, read_file("PROBE_NO_DIR", "tests/ptx/fixtures", "vadd.ptx", NULL))) == CUDA_SUCCESS)
        cuModuleUnload(m2);
    P("load ptx vadd", cuModuleLoadData(&m, vadd));

    /* The JIT's log buffers. */
    char elog[4096], ilog[4096];
    CUjit_option o2[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *v2[2] = {elog, (void *)(uintptr_t)sizeof elog};
    memset(elog, 0, sizeof elog);
    P("loadex unknown instruction, error log", cuModuleLoadDataEx(&m2, bad_ptx, 2, o2, v2));
    YN("  error log has text", elog[0] != 0);
    YN("  error log names line 6", strstr(elog, "line 6") != NULL);
    YN("  error log names the instruction", strstr(elog, "frobnicate") != NULL);
    V("  error log size after", "%s", size_rel(v2[1], elog, sizeof elog));
    fprintf(stderr, "error log (unknown instruction): %s\n", elog);
    memset(elog, 0, sizeof elog);
    v2[1] = (void *)(uintptr_t)sizeof elog;
    P("loadex undeclared register, error log", cuModuleLoadDataEx(&m2, undeclared_ptx, 2, o2, v2));
    YN("  undeclared: error log has text", elog[0] != 0);
    YN("  undeclared: error log names line 6", strstr(elog, "line 6") != NULL);
    fprintf(stderr, "error log (undeclared register): %s\n", elog);
    memset(elog, 0x55, sizeof elog);
    v2[1] = (void *)(uintptr_t)8;
    P("loadex error log of 8 bytes", cuModuleLoadDataEx(&m2, bad_ptx, 2, o2, v2));
    YN("  short log: NUL-terminated within 8", memchr(elog, 0, 8) != NULL);
    YN("  short log: byte 8 untouched", (unsigned char)elog[8] == 0x55);
    memset(elog, 0, sizeof elog);
    v2[1] = (void *)(uintptr_t)sizeof elog;
    P("loadex valid ptx, error log", cuModuleLoadDataEx(&m2, vadd, 2, o2, v2)) == CUDA_SUCCESS ? cuModuleUnload(m2) : 0;
    YN("  valid: error log empty", elog[0] == 0);
    V("  valid: error log size after", "%s", size_rel(v2[1], elog, sizeof elog));
    CUjit_option o4[4] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE,
                          CU_JIT_WALL_TIME};
    float wall = -1;
    void *v4[4] = {ilog, (void *)(uintptr_t)sizeof ilog, (void *)(uintptr_t)1, 0};
    memset(ilog, 0, sizeof ilog);
    if (P("loadex valid ptx, info log verbose", cuModuleLoadDataEx(&m2, vadd, 3, o4, v4)) == CUDA_SUCCESS)
        cuModuleUnload(m2);
    YN("  info log has text", ilog[0] != 0);
    YN("  info log names the kernel", strstr(ilog, "vadd") != NULL);
    fprintf(stderr, "info log (vadd, verbose): %s\n", ilog);
    memset(ilog, 0, sizeof ilog);
    v4[2] = 0;
    if (P("loadex valid ptx, info log", cuModuleLoadDataEx(&m2, vadd, 2, o4, v4)) == CUDA_SUCCESS) cuModuleUnload(m2);
    YN("  quiet info log has text", ilog[0] != 0);
    CUjit_option ow[1] = {CU_JIT_WALL_TIME};
    void *vw[1] = {0};
    if (P("loadex wall time", cuModuleLoadDataEx(&m2, vadd, 1, ow, vw)) == CUDA_SUCCESS) cuModuleUnload(m2);
    memcpy(&wall, &vw[0], sizeof wall);
    YN("  wall time written (>= 0)", wall >= 0);
    CUjit_option oo[5] = {CU_JIT_MAX_REGISTERS, CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_TARGET_FROM_CUCONTEXT,
                          CU_JIT_GENERATE_LINE_INFO, CU_JIT_CACHE_MODE};
    void *vo[5] = {(void *)(uintptr_t)32, (void *)(uintptr_t)4, 0, (void *)(uintptr_t)1, 0};
    if (P("loadex max regs, opt level, target, line info, cache", cuModuleLoadDataEx(&m2, vadd, 5, oo, vo)) ==
        CUDA_SUCCESS)
        cuModuleUnload(m2);
    CUjit_option ob[1] = {(CUjit_option)9999};
    void *vb[1] = {0};
    P("loadex unknown option 9999", cuModuleLoadDataEx(&m2, vadd, 1, ob, vb));
    CUjit_option on[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vn[2] = {NULL, (void *)(uintptr_t)64};
    P("loadex error log NULL with size 64, bad ptx", cuModuleLoadDataEx(&m2, bad_ptx, 2, on, vn));
    P("loadex count 0 with NULL arrays", cuModuleLoadDataEx(&m2, vadd, 0, NULL, NULL)) == CUDA_SUCCESS
        ? cuModuleUnload(m2) : 0;

    /* Functions and globals. */
    P("getfunction vadd", cuModuleGetFunction(&f, m, "vadd"));
    CUfunction fx;
    P("getfunction unknown name", cuModuleGetFunction(&fx, m, "no_such_kernel"));
    P("getfunction NULL name", cuModuleGetFunction(&fx, m, NULL));
    P("getfunction NULL out", cuModuleGetFunction(NULL, m, "vadd"));
    P("getfunction NULL module", cuModuleGetFunction(&fx, NULL, "vadd"));
    CUdeviceptr gp;
    size_t gb;
    P("getglobal unknown name", cuModuleGetGlobal(&gp, &gb, m, "no_such_global"));
    P("getglobal NULL name", cuModuleGetGlobal(&gp, &gb, m, NULL));
    P("getglobal NULL module", cuModuleGetGlobal(&gp, &gb, NULL, "x"));
    CUmoduleLoadingMode mode = (CUmoduleLoadingMode)0;
    P("getloadingmode", cuModuleGetLoadingMode(&mode));
    V("  loading mode", "%d", (int)mode);
    P("getloadingmode NULL", cuModuleGetLoadingMode(NULL));

    CUmodule mu;
    cuModuleLoadData(&mu, vadd);
    P("unload", cuModuleUnload(mu));
    P("getfunction of unloaded module", cuModuleGetFunction(&fx, mu, "vadd"));
    P("unload twice", cuModuleUnload(mu));
    P("unload NULL", cuModuleUnload(NULL));

    cuCtxPopCurrent(NULL);
    P("load no context", cuModuleLoadData(&m2, vadd));
    P("getfunction no context", cuModuleGetFunction(&fx, m, "vadd"));
    P("loadex no context", cuModuleLoadDataEx(&m2, vadd, 0, NULL, NULL));
    cuCtxPushCurrent(c);
    P("unload vadd", cuModuleUnload(m));
}

struct attr {
    const char *name;
    CUfunction_attribute a;
};
static const struct attr k_attrs[] = {
    {"MAX_THREADS_PER_BLOCK", CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
    {"SHARED_SIZE_BYTES", CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES},
    {"CONST_SIZE_BYTES", CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES},
    {"LOCAL_SIZE_BYTES", CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES},
    {"NUM_REGS", CU_FUNC_ATTRIBUTE_NUM_REGS},
    {"PTX_VERSION", CU_FUNC_ATTRIBUTE_PTX_VERSION},
    {"BINARY_VERSION", CU_FUNC_ATTRIBUTE_BINARY_VERSION},
    {"CACHE_MODE_CA", CU_FUNC_ATTRIBUTE_CACHE_MODE_CA},
    {"MAX_DYNAMIC_SHARED_SIZE_BYTES", CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES},
    {"PREFERRED_SHARED_MEMORY_CARVEOUT", CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT},
    {"CLUSTER_SIZE_MUST_BE_SET", CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET},
    {"REQUIRED_CLUSTER_WIDTH", CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH},
    {"NON_PORTABLE_CLUSTER_SIZE_ALLOWED", CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED},
    {"CLUSTER_SCHEDULING_POLICY_PREFERENCE", CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE},
};

static void s_funcattr(void)
{
    setup();
    CUmodule mv, mr, md;
    CUfunction fv = NULL, fr = NULL, fd = NULL;
    cuModuleLoadData(&mv, ptx("vadd.ptx"));
    cuModuleLoadData(&mr, ptx("reduce.ptx"));
    cuModuleLoadData(&md, kptx("dynshared.ptx"));
    cuModuleGetFunction(&fv, mv, "vadd");
    cuModuleGetFunction(&fr, mr, "reduce");
    cuModuleGetFunction(&fd, md, "dynshared");
    /* The enum values of the header the probe was built with (vmgpu's must be NVIDIA's). */
    V("enum CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", "%d", (int)CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
    V("enum CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE", "%d",
      (int)CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE);
    V("enum CU_FUNC_ATTRIBUTE_MAX", "%d", (int)CU_FUNC_ATTRIBUTE_MAX);
    V("enum CU_FUNC_CACHE_PREFER_EQUAL", "%d", (int)CU_FUNC_CACHE_PREFER_EQUAL);
    V("enum CU_MODULE_LAZY_LOADING", "%d", (int)CU_MODULE_LAZY_LOADING);
    V("enum CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES", "%d", (int)CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
    const char *kn[3] = {"vadd", "reduce", "dynshared"};
    CUfunction fs[3] = {fv, fr, fd};
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < sizeof k_attrs / sizeof k_attrs[0]; i++) {
            char name[96], vname[104];
            int v = -12345;
            snprintf(name, sizeof name, "%s %s", kn[k], k_attrs[i].name);
            snprintf(vname, sizeof vname, "  %s value", name);
            P(name, cuFuncGetAttribute(&v, k_attrs[i].a, fs[k]));
            V(vname, "%d", v);
        }
    int v;
    P("getattribute attribute 999", cuFuncGetAttribute(&v, (CUfunction_attribute)999, fv));
    P("getattribute attribute MAX", cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX, fv));
    P("getattribute NULL value", cuFuncGetAttribute(NULL, CU_FUNC_ATTRIBUTE_NUM_REGS, fv));
    P("getattribute NULL function", cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, NULL));
    P("setattribute max dynamic shared 1024", cuFuncSetAttribute(fv, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1024));
    v = -1;
    cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, fv);
    V("  max dynamic shared reads back", "%d", v);
    P("setattribute max dynamic shared 0", cuFuncSetAttribute(fv, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 0));
    P("setattribute max dynamic shared -1", cuFuncSetAttribute(fv, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, -1));
    P("setattribute max dynamic shared 1 MiB", cuFuncSetAttribute(fv, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1 << 20));
    P("setattribute carveout 50", cuFuncSetAttribute(fv, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 50));
    P("setattribute carveout 101", cuFuncSetAttribute(fv, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 101));
    P("setattribute carveout -1", cuFuncSetAttribute(fv, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, -1));
    P("setattribute NUM_REGS", cuFuncSetAttribute(fv, CU_FUNC_ATTRIBUTE_NUM_REGS, 8));
    P("setattribute MAX_THREADS_PER_BLOCK", cuFuncSetAttribute(fv, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 8));
    P("setattribute attribute 999", cuFuncSetAttribute(fv, (CUfunction_attribute)999, 1));
    P("setattribute NULL function", cuFuncSetAttribute(NULL, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 50));
    P("setcacheconfig prefer shared", cuFuncSetCacheConfig(fv, CU_FUNC_CACHE_PREFER_SHARED));
    P("setcacheconfig prefer L1", cuFuncSetCacheConfig(fv, CU_FUNC_CACHE_PREFER_L1));
    P("setcacheconfig 99", cuFuncSetCacheConfig(fv, (CUfunc_cache)99));
    P("setcacheconfig NULL function", cuFuncSetCacheConfig(NULL, CU_FUNC_CACHE_PREFER_NONE));
    cuModuleUnload(mv);
    P("getattribute of unloaded module's function", cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, fv));
}

/* vadd's arguments and buffers. */
#define VN 200
static CUdeviceptr g_a, g_b, g_c;
static int h_a[VN], h_b[VN];
static void vadd_buffers(void)
{
    cuMemAlloc(&g_a, VN * 4);
    cuMemAlloc(&g_b, VN * 4);
    cuMemAlloc(&g_c, VN * 4);
    for (int i = 0; i < VN; i++) {
        h_a[i] = (int)rnd();
        h_b[i] = (int)rnd();
    }
    cuMemcpyHtoD(g_a, h_a, sizeof h_a);
    cuMemcpyHtoD(g_b, h_b, sizeof h_b);
}
static void clear_c(void) { cuMemsetD32(g_c, 0xdeadbeef, VN); }
static int c_right(unsigned n)
{
    int h[VN];
    if (cuMemcpyDtoH(h, g_c, sizeof h)) return 0;
    for (unsigned i = 0; i < VN; i++)
        if (h[i] != (i < n ? (int)((unsigned)h_a[i] + (unsigned)h_b[i]) : (int)0xdeadbeef)) return 0;
    return 1;
}
static int c_untouched(void)
{
    int h[VN];
    if (cuMemcpyDtoH(h, g_c, sizeof h)) return 0;
    for (unsigned i = 0; i < VN; i++)
        if (h[i] != (int)0xdeadbeef) return 0;
    return 1;
}

static void s_launchargs(void)
{
    CUcontext c = setup();
    CUmodule m, mr, md;
    CUfunction f = NULL, fr = NULL, fd = NULL;
    cuModuleLoadData(&m, ptx("vadd.ptx"));
    cuModuleGetFunction(&f, m, "vadd");
    cuModuleLoadData(&mr, ptx("reduce.ptx"));
    cuModuleGetFunction(&fr, mr, "reduce");
    cuModuleLoadData(&md, kptx("dynshared.ptx"));
    cuModuleGetFunction(&fd, md, "dynshared");
    vadd_buffers();
    unsigned n = VN;
    void *args[4] = {&g_a, &g_b, &g_c, &n};
    unsigned grid = (VN + 15) / 16;
    clear_c();
    P("launch kernelParams", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 0, NULL, args, NULL));
    P("  synchronize", cuCtxSynchronize());
    YN("  kernelParams: results right", c_right(VN));

    /* extra: the argument block as the kernel lays it out (3 pointers, then n at 24). */
    struct { uint64_t a, b, c; uint32_t n, pad; } blk = {g_a, g_b, g_c, 150, 0};
    size_t size = 28;
    void *extra[5] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &blk, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    clear_c();
    P("launch extra", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 0, NULL, NULL, extra));
    P("  extra: synchronize", cuCtxSynchronize());
    YN("  extra: results right (n 150)", c_right(150));
    size = 32;
    clear_c();
    P("launch extra size 32", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 0, NULL, NULL, extra));
    cuCtxSynchronize();
    YN("  extra size 32: results right", c_right(150));
    size = 4096;
    P("launch extra size 4096", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 0, NULL, NULL, extra));
    cuCtxSynchronize();
    size = 24;
    clear_c();
    P("launch extra size 24", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 0, NULL, NULL, extra));
    cuCtxSynchronize();
    size = 0;
    P("launch extra size 0", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 0, NULL, NULL, extra));
    cuCtxSynchronize();
    size = 28;
    void *extra_sizefirst[5] = {CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_BUFFER_POINTER, &blk,
                                CU_LAUNCH_PARAM_END};
    clear_c();
    P("launch extra size before pointer", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 0, NULL, NULL, extra_sizefirst));
    cuCtxSynchronize();
    YN("  size before pointer: results right", c_right(150));
    void *extra_nosize[3] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &blk, CU_LAUNCH_PARAM_END};
    P("launch extra without size", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 0, NULL, NULL, extra_nosize));
    cuCtxSynchronize();
    void *extra_noptr[3] = {CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    P("launch extra without pointer", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 0, NULL, NULL, extra_noptr));
    cuCtxSynchronize();
    void *extra_end[1] = {CU_LAUNCH_PARAM_END};
    P("launch extra only END", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 0, NULL, NULL, extra_end));
    cuCtxSynchronize();
    void *extra_nullbuf[5] = {CU_LAUNCH_PARAM_BUFFER_POINTER, NULL, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                              CU_LAUNCH_PARAM_END};
    P("launch extra NULL buffer", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 0, NULL, NULL, extra_nullbuf));
    cuCtxSynchronize();
    void *extra_unknown[7] = {(void *)(uintptr_t)0x55, NULL, CU_LAUNCH_PARAM_BUFFER_POINTER, &blk,
                              CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    P("launch extra unknown key first", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 0, NULL, NULL, extra_unknown));
    cuCtxSynchronize();
    clear_c();
    P("launch kernelParams and extra", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 0, NULL, args, extra));
    P("launch neither kernelParams nor extra", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 0, NULL, NULL, NULL));
    CUmodule me;
    CUfunction fe = NULL;
    cuModuleLoadData(&me, empty_kernel_ptx);
    cuModuleGetFunction(&fe, me, "empty");
    P("launch no-parameter kernel, NULL params", cuLaunchKernel(fe, 1, 1, 1, 16, 1, 1, 0, NULL, NULL, NULL));
    P("  no-parameter: synchronize", cuCtxSynchronize());

    /* Launch limits. */
    P("limit block 16", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 0, NULL, args, NULL));
    P("limit block 32", cuLaunchKernel(f, grid, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    P("limit block 1024", cuLaunchKernel(f, 1, 1, 1, 1024, 1, 1, 0, NULL, args, NULL));
    P("limit block 1025", cuLaunchKernel(f, 1, 1, 1, 1025, 1, 1, 0, NULL, args, NULL));
    P("limit block 32x32x2", cuLaunchKernel(f, 1, 1, 1, 32, 32, 2, 0, NULL, args, NULL));
    P("limit block y 1025", cuLaunchKernel(f, 1, 1, 1, 1, 1025, 1, 0, NULL, args, NULL));
    P("limit block z 64", cuLaunchKernel(f, 1, 1, 1, 1, 1, 64, 0, NULL, args, NULL));
    P("limit block z 65", cuLaunchKernel(f, 1, 1, 1, 1, 1, 65, 0, NULL, args, NULL));
    P("limit block x 0", cuLaunchKernel(f, 1, 1, 1, 0, 1, 1, 0, NULL, args, NULL));
    P("limit block y 0", cuLaunchKernel(f, 1, 1, 1, 16, 0, 1, 0, NULL, args, NULL));
    P("limit block z 0", cuLaunchKernel(f, 1, 1, 1, 16, 1, 0, 0, NULL, args, NULL));
    P("limit grid x 0", cuLaunchKernel(f, 0, 1, 1, 16, 1, 1, 0, NULL, args, NULL));
    P("limit grid y 0", cuLaunchKernel(f, 1, 0, 1, 16, 1, 1, 0, NULL, args, NULL));
    P("limit grid z 0", cuLaunchKernel(f, 1, 1, 0, 16, 1, 1, 0, NULL, args, NULL));
    P("limit grid x 65536", cuLaunchKernel(f, 65536, 1, 1, 16, 1, 1, 0, NULL, args, NULL));
    P("limit grid x 2^31", cuLaunchKernel(f, 1u << 31, 1, 1, 16, 1, 1, 0, NULL, args, NULL));
    P("limit grid y 65535", cuLaunchKernel(f, 1, 65535, 1, 16, 1, 1, 0, NULL, args, NULL));
    P("limit grid y 65536", cuLaunchKernel(f, 1, 65536, 1, 16, 1, 1, 0, NULL, args, NULL));
    P("limit grid z 65536", cuLaunchKernel(f, 1, 1, 65536, 16, 1, 1, 0, NULL, args, NULL));
    P("limit dynamic shared 4096", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 4096, NULL, args, NULL));
    P("limit dynamic shared 48 KiB", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 49152, NULL, args, NULL));
    P("limit dynamic shared 48 KiB + 1", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 49153, NULL, args, NULL));
    P("limit dynamic shared 1 MiB", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 1u << 20, NULL, args, NULL));
    unsigned spin = 0;
    CUdeviceptr rout;
    cuMemAlloc(&rout, 4096);
    void *rargs[3] = {&g_a, &rout, &spin};
    P("limit reduce static 256 + dynamic 48 KiB - 256", cuLaunchKernel(fr, 1, 1, 1, 16, 1, 1, 49152 - 256, NULL, rargs, NULL));
    P("limit reduce static 256 + dynamic 48 KiB - 255", cuLaunchKernel(fr, 1, 1, 1, 16, 1, 1, 49152 - 255, NULL, rargs, NULL));
    P("  limits: synchronize", cuCtxSynchronize());
    /* dynshared after cuFuncSetAttribute raised its dynamic limit */
    P("limit after setattribute 64 KiB: setattribute", cuFuncSetAttribute(fd, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 65536));
    CUdeviceptr dout;
    cuMemAlloc(&dout, 4096);
    unsigned dn = 16;
    void *dargs[3] = {&g_a, &dout, &dn};
    P("limit after setattribute 64 KiB: launch 64 KiB", cuLaunchKernel(fd, 1, 1, 1, 16, 1, 1, 65536, NULL, dargs, NULL));
    P("limit after setattribute 64 KiB: launch 64 KiB + 4", cuLaunchKernel(fd, 1, 1, 1, 16, 1, 1, 65540, NULL, dargs, NULL));
    P("  after setattribute: synchronize", cuCtxSynchronize());

    /* Refused launches ran nothing. */
    clear_c();
    cuCtxSynchronize();
    cuLaunchKernel(f, 1, 1, 1, 1025, 1, 1, 0, NULL, args, NULL);
    cuLaunchKernel(f, 0, 1, 1, 16, 1, 1, 0, NULL, args, NULL);
    cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 0, NULL, args, extra);
    cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 1u << 20, NULL, args, NULL);
    P("refused launches: synchronize", cuCtxSynchronize());
    YN("  refused launches wrote nothing", c_untouched());

    P("launch NULL function", cuLaunchKernel(NULL, 1, 1, 1, 16, 1, 1, 0, NULL, args, NULL));
    CUmodule mu;
    CUfunction fu = NULL;
    cuModuleLoadData(&mu, ptx("vadd.ptx"));
    cuModuleGetFunction(&fu, mu, "vadd");
    cuModuleUnload(mu);
    P("launch function of unloaded module", cuLaunchKernel(fu, 1, 1, 1, 16, 1, 1, 0, NULL, args, NULL));
    CUcontext b;
    new_ctx(&b);
    P("launch other context's function", cuLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, NULL, args, NULL));
    P("  other context's function: synchronize", cuCtxSynchronize());
    cuCtxDestroy(b);
    cuCtxSetCurrent(NULL);
    P("launch no context", cuLaunchKernel(f, 1, 1, 1, 16, 1, 1, 0, NULL, args, NULL));
    cuCtxSetCurrent(c);

    /* Streams and events around launches. */
    CUstream s;
    CUevent e0, e1;
    cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
    cuEventCreate(&e0, 0);
    cuEventCreate(&e1, 0);
    int hc[VN];
    memset(hc, 0, sizeof hc);
    cuMemsetD32(g_c, 0, VN);
    cuCtxSynchronize();
    P("stream: event record before", cuEventRecord(e0, s));
    P("stream: copy in", cuMemcpyHtoDAsync(g_a, h_b, sizeof h_b, s));
    P("stream: launch", cuLaunchKernel(f, grid, 1, 1, 16, 1, 1, 0, s, args, NULL));
    P("stream: copy out", cuMemcpyDtoHAsync(hc, g_c, sizeof hc, s));
    P("stream: event record after", cuEventRecord(e1, s));
    P("stream: event synchronize", cuEventSynchronize(e1));
    int ok = 1;
    for (int i = 0; i < VN; i++)
        if (hc[i] != (int)((unsigned)h_b[i] + (unsigned)h_b[i])) ok = 0;
    YN("  stream: copy, launch, copy in order", ok);
    float ms = -1;
    P("stream: elapsed time", cuEventElapsedTime(&ms, e0, e1));
    YN("  stream: elapsed >= 0", ms >= 0);
    P("stream: query", cuStreamQuery(s));
    cuMemcpyHtoD(g_a, h_a, sizeof h_a);
}

/* NVRTC's integer kernels: hashes of their outputs. */
static void s_kernels(void)
{
    setup();
    CUmodule m;
    CUfunction f;
    /* vadd: one thread per element, n = 1000 */
    enum { N = 1000 };
    static int a[N], b[N], out[16 * N];
    for (int i = 0; i < N; i++) {
        a[i] = (int)rnd();
        b[i] = (int)rnd();
    }
    CUdeviceptr da, db, dc;
    cuMemAlloc(&da, sizeof a);
    cuMemAlloc(&db, sizeof b);
    cuMemAlloc(&dc, sizeof out);
    cuMemcpyHtoD(da, a, sizeof a);
    cuMemcpyHtoD(db, b, sizeof b);
    unsigned n = N;
#define RUN(label, file, kname, gx, gy, gz, bx, by, bz, shm, bytes, ...) do { \
        void *args_[] = {__VA_ARGS__}; \
        cuMemsetD32(dc, 0xdeadbeef, sizeof out / 4); \
        if (cuModuleLoadData(&m, file) || cuModuleGetFunction(&f, m, kname)) { \
            P(label, CUDA_ERROR_NOT_FOUND); break; } \
        P(label, cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shm, NULL, args_, NULL)); \
        P("  " label ": synchronize", cuCtxSynchronize()); \
        memset(out, 0, sizeof out); \
        cuMemcpyDtoH(out, dc, bytes); \
        V("  " label ": output hash", "%08x", fnv(out, bytes)); \
        cuModuleUnload(m); } while (0)
    RUN("vadd n 1000", ptx("vadd.ptx"), "vadd", (N + 15) / 16, 1, 1, 16, 1, 1, 0, N * 4, &da, &db, &dc, &n);
    RUN("vadd_gs n 1000, 3 blocks", ptx("gridstride.ptx"), "vadd_gs", 3, 1, 1, 16, 1, 1, 0, N * 4, &da, &db, &dc, &n);
    /* collatz: in[] from 1.. with some big values, cap 500 */
    static unsigned cin[N];
    for (int i = 0; i < N; i++) cin[i] = i % 7 == 0 ? rnd() : (unsigned)i + 1;
    CUdeviceptr dcin;
    cuMemAlloc(&dcin, sizeof cin);
    cuMemcpyHtoD(dcin, cin, sizeof cin);
    unsigned cap = 500;
    RUN("collatz n 1000 cap 500", ptx("collatz.ptx"), "collatz", (N + 15) / 16, 1, 1, 16, 1, 1, 0, N * 4, &dcin,
        &dc, &n, &cap);
    unsigned spin = 3;
    RUN("reduce 6 blocks of 16", ptx("reduce.ptx"), "reduce", 6, 1, 1, 16, 1, 1, 0, 6 * 4, &da, &dc, &spin);
    unsigned w = 13, h = 7;
    RUN("index2d 13x7, blocks 4x2x2", ptx("index2d.ptx"), "index2d", 4, 4, 1, 4, 2, 2, 0, 2 * 7 * 13 * 4, &dc, &w, &h);
    /* intops: pairs with the edge values first */
    static const int edge[] = {0, 1, -1, 2, -2, 7, 31, 32, 33, 0x7fffffff, (int)0x80000000, 0x12345678};
    int ne = (int)(sizeof edge / sizeof edge[0]);
    for (int i = 0; i < N; i++) {
        a[i] = i < ne * ne ? edge[i / ne] : (int)rnd();
        b[i] = i < ne * ne ? edge[i % ne] : (int)rnd();
    }
    cuMemcpyHtoD(da, a, sizeof a);
    cuMemcpyHtoD(db, b, sizeof b);
    unsigned ni = 200;
    RUN("intops n 200", ptx("intops.ptx"), "intops", 4, 1, 1, 16, 1, 1, 0, 16 * 200 * 4, &da, &db, &dc, &ni);
    unsigned iters = 300;
    RUN("spin 64 threads 300 iterations", ptx("spin.ptx"), "spin", 4, 1, 1, 16, 1, 1, 0, 64 * 4, &dc, &iters);
    /* dynamic shared memory: each block reverses its slice through extern __shared__ */
    unsigned dn = 100;
    RUN("dynshared n 100, 64 bytes dynamic", kptx("dynshared.ptx"), "dynshared", 7, 1, 1, 16, 1, 1, 64, 112 * 4, &da,
        &dc, &dn);
    RUN("dynshared n 100, 4096 bytes dynamic", kptx("dynshared.ptx"), "dynshared", 7, 1, 1, 16, 1, 1, 4096, 112 * 4,
        &da, &dc, &dn);
}

/* A store past the end of a mapping (tests/ptx/kernels/oob.cu) in context B. */
static void s_kfault_ptx(void)
{
    CUcontext a = setup(), b;
    CUmodule ma, mb, mb2;
    CUfunction fa = NULL, fb = NULL, fbv = NULL;
    char *vadd = ptx("vadd.ptx");
    cuModuleLoadData(&ma, vadd);
    cuModuleGetFunction(&fa, ma, "vadd");
    vadd_buffers();
    new_ctx(&b);
    cuModuleLoadData(&mb, ptx("oob.ptx"));
    cuModuleGetFunction(&fb, mb, "oob");
    cuModuleLoadData(&mb2, vadd);
    cuModuleGetFunction(&fbv, mb2, "vadd");
    size_t g = 0;
    CUmemAllocationProp prop = {0};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    CUdeviceptr va, logp, x;
    CUmemGenericAllocationHandle hd;
    cuMemAddressReserve(&va, 2 * g, 0, 0, 0);
    cuMemCreate(&hd, g, &prop, 0);
    cuMemMap(va, g, 0, hd, 0);
    CUmemAccessDesc rw = {{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    cuMemSetAccess(va, g, &rw, 1);
    unsigned n = (unsigned)(g / 4) + 64;
    cuMemAlloc(&logp, (size_t)n * 4);
    cuMemsetD32(logp, 0, n);
    CUdeviceptr out = va;
    void *args[3] = {&out, &logp, &n};
    unsigned small = 64;
    void *args_ok[3] = {&out, &logp, &small};
    P("oob kernel within the mapping", cuLaunchKernel(fb, 4, 1, 1, 16, 1, 1, 0, NULL, args_ok, NULL));
    P("  within: synchronize", cuCtxSynchronize());
    P("oob kernel past the mapping", cuLaunchKernel(fb, 4, 1, 1, 16, 1, 1, 0, NULL, args, NULL));
    /* NVIDIA answers NOT_READY while the grid runs (2 MiB here): the first other answer counts. */
    CUresult q;
    int polls = 0;
    while ((q = cuStreamQuery(NULL)) == CUDA_ERROR_NOT_READY && polls < 1000000) polls++;
    P("  then streamquery until ready", q);
    P("  then ctxsynchronize", cuCtxSynchronize());
    P("  then ctxsynchronize again", cuCtxSynchronize());
    P("  then memalloc", cuMemAlloc(&x, 64));
    int hbuf[16] = {0};
    P("  then memcpyhtod", cuMemcpyHtoD(logp, hbuf, sizeof hbuf));
    P("  then memcpydtoh", cuMemcpyDtoH(hbuf, logp, sizeof hbuf));
    P("  then memsetd32", cuMemsetD32(logp, 0, 16));
    CUmodule m3;
    P("  then moduleloaddata", cuModuleLoadData(&m3, vadd));
    CUfunction f3;
    P("  then modulegetfunction", cuModuleGetFunction(&f3, mb2, "vadd"));
    int v = 0;
    P("  then funcgetattribute", cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, fbv));
    P("  then launch", cuLaunchKernel(fb, 1, 1, 1, 16, 1, 1, 0, NULL, args_ok, NULL));
    CUevent e;
    P("  then eventcreate", cuEventCreate(&e, 0));
    CUstream s;
    P("  then streamcreate", cuStreamCreate(&s, 0));
    size_t fr, tot;
    P("  then memgetinfo", cuMemGetInfo(&fr, &tot));
    CUdevice d;
    P("  then ctxgetdevice", cuCtxGetDevice(&d));
    unsigned api;
    P("  then ctxgetapiversion", cuCtxGetApiVersion(b, &api));
    P("  then memfree", cuMemFree(logp));
    P("  then moduleunload", cuModuleUnload(mb2));
    P("  then ctxsynchronize at the end", cuCtxSynchronize());
    cuCtxPopCurrent(NULL);
    P("other ctx synchronize", cuCtxSynchronize());
    clear_c();
    unsigned nn = VN;
    void *aargs[4] = {&g_a, &g_b, &g_c, &nn};
    P("other ctx launch vadd", cuLaunchKernel(fa, (VN + 15) / 16, 1, 1, 16, 1, 1, 0, NULL, aargs, NULL));
    P("  other ctx synchronize after launch", cuCtxSynchronize());
    YN("  other ctx vadd right", c_right(VN));
    P("ctxdestroy faulted context", cuCtxDestroy(b));
    (void)a;
}

/* Modules from nvcc's fat binaries and cubins (files made on the GPU machine). */
static void s_fatbin(void)
{
    setup();
    CUmodule m;
    CUfunction f;
    vadd_buffers();
    unsigned n = VN;
    void *args[4] = {&g_a, &g_b, &g_c, &n};
    static const struct { const char *label, *file; } k[] = {
        {"fatbin ptx only", "vadd_ptx.fatbin"},
        {"fatbin ptx compressed", "vadd_ptx_z.fatbin"},
        {"fatbin sm_90 sass and compute_75 ptx", "vadd_mixed.fatbin"},
        {"fatbin sm_90 sass only", "vadd_sm90.fatbin"},
        {"cubin sm_90", "vadd_sm90.cubin"},
        {"cubin sm_75", "vadd_sm75.cubin"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        char name[128];
        size_t len;
        snprintf(name, sizeof name, "moduleload %s", k[i].label);
        FILE *probe_f = fopen(fatbin_path(k[i].file), "rb");
        if (!probe_f) {
            V(name, "NO_FILE");
            continue;
        }
        fclose(probe_f);
        char *img = fatbin(k[i].file, &len);
        if (P(name, cuModuleLoad(&m, fatbin_path(k[i].file))) == CUDA_SUCCESS) {
            clear_c();
            cuModuleGetFunction(&f, m, "vadd");
            snprintf(name, sizeof name, "  %s: launch", k[i].label);
            P(name, cuLaunchKernel(f, (VN + 15) / 16, 1, 1, 16, 1, 1, 0, NULL, args, NULL));
            cuCtxSynchronize();
            snprintf(name, sizeof name, "  %s: results right", k[i].label);
            YN(name, c_right(VN));
            cuModuleUnload(m);
        }
        snprintf(name, sizeof name, "moduleloaddata %s", k[i].label);
        if (P(name, cuModuleLoadData(&m, img)) == CUDA_SUCCESS) cuModuleUnload(m);
        snprintf(name, sizeof name, "moduleloadfatbinary %s", k[i].label);
        if (P(name, cuModuleLoadFatBinary(&m, img)) == CUDA_SUCCESS) cuModuleUnload(m);
        if (i == 0) {
            /* The runtime's wrapper around a fat binary (magic 0x466243b1, version, data). */
            struct { uint32_t magic, version; const void *data; void *unused; } wrap = {0x466243b1u, 1, img, NULL};
            if (P("moduleloadfatbinary wrapper of ptx only", cuModuleLoadFatBinary(&m, &wrap)) == CUDA_SUCCESS)
                cuModuleUnload(m);
            char *cut = malloc(len);
            memcpy(cut, img, len);
            memset(cut + len / 2, 0, len - len / 2);
            P("moduleloaddata fatbin second half zeroed", cuModuleLoadData(&m, cut)) == CUDA_SUCCESS
                ? cuModuleUnload(m) : 0;
            free(cut);
        }
        free(img);
    }
}

/* cuLaunchKernelEx: the config's checks, and each attribute's answer (vadd, 13 blocks of 16). */
static CUresult launch_ex_attr(CUfunction f, void **args, CUlaunchAttributeID id, CUlaunchAttributeValue v)
{
    CUlaunchAttribute at;
    memset(&at, 0, sizeof at);
    at.id = id;
    at.value = v;
    CUlaunchConfig cfg = {(VN + 15) / 16, 1, 1, 16, 1, 1, 0, NULL, &at, 1};
    return cuLaunchKernelEx(&cfg, f, args, NULL);
}
static void s_launchex(void)
{
    CUcontext c = setup();
    (void)c;
    CUmodule m;
    CUfunction f = NULL;
    cuModuleLoadData(&m, ptx("vadd.ptx"));
    cuModuleGetFunction(&f, m, "vadd");
    vadd_buffers();
    unsigned n = VN;
    void *args[4] = {&g_a, &g_b, &g_c, &n};
    V("launchex sizeof CUlaunchAttribute", "%zu", sizeof(CUlaunchAttribute));
    V("launchex sizeof CUlaunchConfig", "%zu", sizeof(CUlaunchConfig));
    V("launchex offsetof attrs, numAttrs", "%zu %zu", offsetof(CUlaunchConfig, attrs), offsetof(CUlaunchConfig, numAttrs));
    CUlaunchConfig cfg = {(VN + 15) / 16, 1, 1, 16, 1, 1, 0, NULL, NULL, 0}, z;
    clear_c();
    P("launchex no attributes", cuLaunchKernelEx(&cfg, f, args, NULL));
    P("  synchronize", cuCtxSynchronize());
    YN("  no attributes: results right", c_right(VN));
    P("launchex NULL config", cuLaunchKernelEx(NULL, f, args, NULL));
    P("launchex NULL function", cuLaunchKernelEx(&cfg, NULL, args, NULL));
    z = cfg, z.gridDimX = 0;
    P("launchex grid x 0", cuLaunchKernelEx(&z, f, args, NULL));
    z = cfg, z.blockDimX = 1025;
    P("launchex block x 1025", cuLaunchKernelEx(&z, f, args, NULL));
    z = cfg, z.sharedMemBytes = 49153;
    P("launchex 49153 shared bytes", cuLaunchKernelEx(&z, f, args, NULL));
    P("launchex no kernelParams", cuLaunchKernelEx(&cfg, f, NULL, NULL));
    struct { uint64_t a, b, c; uint32_t n, pad; } blk = {g_a, g_b, g_c, VN, 0};
    size_t size = 28;
    void *extra[5] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &blk, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    P("launchex kernelParams and extra", cuLaunchKernelEx(&cfg, f, args, extra));
    clear_c();
    P("launchex extra", cuLaunchKernelEx(&cfg, f, NULL, extra));
    cuCtxSynchronize();
    YN("  extra: results right", c_right(VN));
    z = cfg, z.attrs = NULL, z.numAttrs = 1;
    P("launchex numAttrs 1, attrs NULL", cuLaunchKernelEx(&z, f, args, NULL));
    CUlaunchAttribute at[2];
    memset(at, 0, sizeof at);
    z = cfg, z.attrs = at, z.numAttrs = 0;
    P("launchex attrs given, numAttrs 0", cuLaunchKernelEx(&z, f, args, NULL));
    cuCtxSynchronize();
    CUstream st = NULL;
    cuStreamCreate(&st, 0);
    z = cfg, z.hStream = st;
    clear_c();
    P("launchex on a created stream", cuLaunchKernelEx(&z, f, args, NULL));
    P("  stream synchronize", cuStreamSynchronize(st));
    YN("  created stream: results right", c_right(VN));
    CUlaunchAttributeValue v;
    static const struct { const char *name; CUlaunchAttributeID id; int i0; unsigned x, y, zz; } k_attr[] = {
        {"launchex IGNORE", CU_LAUNCH_ATTRIBUTE_IGNORE, 0, 0, 0, 0},
        {"launchex COOPERATIVE 0", CU_LAUNCH_ATTRIBUTE_COOPERATIVE, 0, 0, 0, 0},
        {"launchex COOPERATIVE 1", CU_LAUNCH_ATTRIBUTE_COOPERATIVE, 1, 0, 0, 0},
        {"launchex PRIORITY 0", CU_LAUNCH_ATTRIBUTE_PRIORITY, 0, 0, 0, 0},
        {"launchex PRIORITY -1", CU_LAUNCH_ATTRIBUTE_PRIORITY, -1, 0, 0, 0},
        {"launchex PRIORITY 1000", CU_LAUNCH_ATTRIBUTE_PRIORITY, 1000, 0, 0, 0},
        {"launchex CLUSTER_DIMENSION 1x1x1", CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, 0, 1, 1, 1},
        {"launchex CLUSTER_DIMENSION 0x0x0", CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, 0, 0, 0, 0},
        {"launchex CLUSTER_DIMENSION 2x1x1 (grid 13)", CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, 0, 2, 1, 1},
        {"launchex CLUSTER_DIMENSION 13x1x1", CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, 0, 13, 1, 1},
        {"launchex PROGRAMMATIC_STREAM_SERIALIZATION 0", CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, 0, 0, 0, 0},
        {"launchex PROGRAMMATIC_STREAM_SERIALIZATION 1", CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, 1, 0, 0, 0},
        {"launchex PREFERRED_SHARED_MEMORY_CARVEOUT 50", CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 50, 0, 0, 0},
        {"launchex PREFERRED_SHARED_MEMORY_CARVEOUT 101", CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 101, 0, 0, 0},
        {"launchex MEM_SYNC_DOMAIN 0", CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN, 0, 0, 0, 0},
        {"launchex SYNCHRONIZATION_POLICY 1", CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, 1, 0, 0, 0},
        {"launchex attribute id 15", (CUlaunchAttributeID)15, 0, 0, 0, 0},
        {"launchex attribute id 99", (CUlaunchAttributeID)99, 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof k_attr / sizeof k_attr[0]; i++) {
        memset(&v, 0, sizeof v);
        if (k_attr[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
            v.clusterDim.x = k_attr[i].x, v.clusterDim.y = k_attr[i].y, v.clusterDim.z = k_attr[i].zz;
        else if (k_attr[i].id == CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)
            v.sharedMemCarveout = (unsigned)k_attr[i].i0;
        else
            v.cooperative = k_attr[i].i0;   /* the int members share the union's first word */
        clear_c();
        CUresult r = P(k_attr[i].name, launch_ex_attr(f, args, k_attr[i].id, v));
        CUresult rs = cuCtxSynchronize();
        char right[96];
        snprintf(right, sizeof right, "  %s: results right", k_attr[i].name + strlen("launchex "));
        if (r == CUDA_SUCCESS) YN(right, rs == CUDA_SUCCESS && c_right(VN));
    }
    memset(at, 0, sizeof at);
    at[0].id = at[1].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
    z = cfg, z.attrs = at, z.numAttrs = 2;
    P("launchex PRIORITY twice", cuLaunchKernelEx(&z, f, args, NULL));
    cuCtxSynchronize();
    CUcontext other;
    new_ctx(&other);
    P("launchex function of another context", cuLaunchKernelEx(&cfg, f, args, NULL));
    cuCtxDestroy(other);
}

static const struct { const char *name; void (*fn)(void); } sections[] = {
    {"ptxload", s_ptxload}, {"funcattr", s_funcattr}, {"launchargs", s_launchargs},
    {"kernels", s_kernels}, {"kfault_ptx", s_kfault_ptx}, {"fatbin", s_fatbin},
    {"launchex", s_launchex},
};
#define NSECT (sizeof sections / sizeof sections[0])

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < NSECT; i++) printf("%s\n", sections[i].name);
        return 0;
    }
    for (size_t i = 0; i < NSECT; i++)
        if (argc < 2 || strcmp(argv[1], sections[i].name) == 0) {
            if (argc < 2) printf("# section %s\n", sections[i].name);
            sections[i].fn();
            if (argc > 1) return 0;
        }
    if (argc > 1) {
        fprintf(stderr, "kernel_probe: no section %s (--list lists them)\n", argv[1]);
        return 2;
    }
    return 0;
}
