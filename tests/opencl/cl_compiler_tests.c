/*
 * OpenCL C on vmgpu: programs built from source with clang for the SIMT unit, run through the
 * ICD loader (-lOpenCL). One executable, one ctest case per argument: `vmgpu_cl_compiler_tests
 * <case>`. Every result is checked against the same computation on the host. Exit 77: the
 * device has no compiler (no SIMT unit, or no clang-14 / ld.lld-14), or, for `atomics`, no AMOs.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails, checks;
#define CHECK(c) do { checks++; if (!(c)) { printf("  FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)
#define RC(call, want) do { cl_int rc_ = (call); checks++; if (rc_ != (want)) { \
    printf("  FAIL %s:%d: %s -> %d, want %d (%s)\n", __FILE__, __LINE__, #call, rc_, (int)(want), #want); fails++; } } while (0)
#define OK(call) RC(call, CL_SUCCESS)
#define NOTE(...) do { printf("  "); printf(__VA_ARGS__); printf("\n"); } while (0)

static cl_platform_id g_pl;
static cl_device_id g_dev;
static cl_context g_ctx;
static cl_command_queue g_q;
static char g_notify[512];

static void CL_CALLBACK on_notify(const char *msg, const void *p, size_t n, void *u)
{
    (void)p; (void)n; (void)u;
    snprintf(g_notify, sizeof g_notify, "%s", msg);
}

static void setup(void)
{
    cl_platform_id pls[16];
    cl_uint n = 0;
    if (clGetPlatformIDs(16, pls, &n) != CL_SUCCESS || n == 0) { printf("FAIL: no platform\n"); exit(1); }
    for (cl_uint i = 0; i < n; i++) {
        char name[64] = "";
        clGetPlatformInfo(pls[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strcmp(name, "vmgpu") == 0) g_pl = pls[i];
    }
    if (!g_pl || clGetDeviceIDs(g_pl, CL_DEVICE_TYPE_ALL, 1, &g_dev, NULL)) { printf("FAIL: no vmgpu\n"); exit(1); }
    cl_bool comp = CL_FALSE;
    clGetDeviceInfo(g_dev, CL_DEVICE_COMPILER_AVAILABLE, sizeof comp, &comp, NULL);
    if (!comp) { printf("SKIP: CL_DEVICE_COMPILER_AVAILABLE is CL_FALSE\n"); exit(77); }
    cl_int err;
    g_ctx = clCreateContext(NULL, 1, &g_dev, on_notify, NULL, &err);
    if (err) { printf("FAIL: clCreateContext %d\n", err); exit(1); }
    g_q = clCreateCommandQueue(g_ctx, g_dev, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err) { printf("FAIL: clCreateCommandQueue %d\n", err); exit(1); }
}

static cl_program build(const char *src, const char *opts, cl_int want)
{
    cl_int err;
    cl_program p = clCreateProgramWithSource(g_ctx, 1, &src, NULL, &err);
    OK(err);
    cl_int rc = clBuildProgram(p, 1, &g_dev, opts, NULL, NULL);
    RC(rc, want);
    if (rc != want || (want && getenv("VERBOSE"))) {
        char log[8192] = "";
        clGetProgramBuildInfo(p, g_dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        printf("  build log:\n%s\n", log);
    }
    return p;
}

static cl_mem buf(size_t bytes, const void *init)
{
    cl_int err;
    cl_mem m = clCreateBuffer(g_ctx, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes, (void *)init, &err);
    OK(err);
    return m;
}

static cl_ulong event_cycles(cl_event ev)
{
    cl_ulong s = 0, e = 0;
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof e, &e, NULL);
    return (e - s) / 20;
}

/* ------------------------------------------------------------------ vadd */

static const char *k_vadd =
    "__kernel void vadd(__global const int *a, __global const int *b, __global int *c, int n) {\n"
    "  int i = get_global_id(0);\n"
    "  if (i < n) c[i] = a[i] + b[i];\n"
    "}\n";

static void t_vadd(void)
{
    cl_bool b;
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_LINKER_AVAILABLE, sizeof b, &b, NULL));
    CHECK(b == CL_TRUE);
    cl_device_local_mem_type lt;
    cl_ulong lm;
    size_t wg, wi[3];
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_LOCAL_MEM_TYPE, sizeof lt, &lt, NULL));
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lm, &lm, NULL));
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL));
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof wi, wi, NULL));
    CHECK(lt == CL_LOCAL && lm > 0 && wg >= 1 && wi[0] == wg);
    NOTE("device: local memory %llu bytes, work-groups up to %zu", (unsigned long long)lm, wg);
    const int n = 1000;
    int a[1000], bb[1000], c[1000];
    for (int i = 0; i < n; i++) { a[i] = i * 7 - 300; bb[i] = 100000 - i * i; }
    cl_program p = build(k_vadd, "", CL_SUCCESS);
    cl_build_status st;
    OK(clGetProgramBuildInfo(p, g_dev, CL_PROGRAM_BUILD_STATUS, sizeof st, &st, NULL));
    CHECK(st == CL_BUILD_SUCCESS);
    cl_program_binary_type bt;
    OK(clGetProgramBuildInfo(p, g_dev, CL_PROGRAM_BINARY_TYPE, sizeof bt, &bt, NULL));
    CHECK(bt == CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    size_t nk;
    char names[64];
    OK(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, NULL));
    OK(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL));
    CHECK(nk == 1 && strcmp(names, "vadd") == 0);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "vadd", &err);
    OK(err);
    cl_uint na;
    OK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof na, &na, NULL));
    CHECK(na == 4);
    cl_mem A = buf(sizeof a, a), B = buf(sizeof bb, bb), C = buf(sizeof c, NULL);
    OK(clSetKernelArg(k, 0, sizeof A, &A));
    OK(clSetKernelArg(k, 1, sizeof B, &B));
    OK(clSetKernelArg(k, 2, sizeof C, &C));
    OK(clSetKernelArg(k, 3, sizeof n, &n));
    size_t g = 1024, l = 16;
    cl_event ev;
    OK(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &g, &l, 0, NULL, &ev));
    OK(clEnqueueReadBuffer(g_q, C, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL));
    int bad = 0;
    for (int i = 0; i < n; i++) bad += c[i] != a[i] + bb[i];
    CHECK(bad == 0);
    NOTE("vadd n=%d in groups of 16: %llu cycles", n, (unsigned long long)event_cycles(ev));
    clReleaseEvent(ev);
    /* local size chosen by the ICD (NULL) */
    memset(c, 0, sizeof c);
    OK(clEnqueueWriteBuffer(g_q, C, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL));
    g = (size_t)n;
    OK(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &g, NULL, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, C, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL));
    bad = 0;
    for (int i = 0; i < n; i++) bad += c[i] != a[i] + bb[i];
    CHECK(bad == 0);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseMemObject(A); clReleaseMemObject(B); clReleaseMemObject(C);
}

/* --------------------------------------------------------------- 2D/3D ids */

static const char *k_ids =
    "__kernel void ids(__global uint *out) {\n"
    "  size_t x = get_global_id(0) - get_global_offset(0), y = get_global_id(1) - get_global_offset(1);\n"
    "  size_t z = get_global_id(2) - get_global_offset(2);\n"
    "  size_t i = (z * get_global_size(1) + y) * get_global_size(0) + x;\n"
    "  __global uint *o = out + 8 * i;\n"
    "  o[0] = get_global_id(0); o[1] = get_global_id(1); o[2] = get_global_id(2);\n"
    "  o[3] = get_local_id(0) | get_local_id(1) << 8 | get_local_id(2) << 16 | get_work_dim() << 24;\n"
    "  o[4] = get_group_id(0) | get_group_id(1) << 8 | get_group_id(2) << 16;\n"
    "  o[5] = get_local_size(0) | get_local_size(1) << 8 | get_local_size(2) << 16;\n"
    "  o[6] = get_num_groups(0) | get_num_groups(1) << 8 | get_num_groups(2) << 16;\n"
    "  o[7] = get_global_size(0) | get_global_size(1) << 8 | get_global_size(2) << 16;\n"
    "}\n";

static int check_ids(cl_kernel k, cl_uint dim, const size_t *off, const size_t *g, const size_t *l)
{
    size_t G[3] = {1, 1, 1}, L[3] = {1, 1, 1}, O[3] = {0, 0, 0};
    for (cl_uint d = 0; d < dim; d++) { G[d] = g[d]; L[d] = l[d]; O[d] = off ? off[d] : 0; }
    size_t items = G[0] * G[1] * G[2];
    uint32_t *out = calloc(items * 8, 4);
    cl_mem M = buf(items * 32, out);
    OK(clSetKernelArg(k, 0, sizeof M, &M));
    OK(clEnqueueNDRangeKernel(g_q, k, dim, off, g, l, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, M, CL_TRUE, 0, items * 32, out, 0, NULL, NULL));
    int bad = 0;
    for (size_t z = 0; z < G[2]; z++)
        for (size_t y = 0; y < G[1]; y++)
            for (size_t x = 0; x < G[0]; x++) {
                const uint32_t *o = out + 8 * ((z * G[1] + y) * G[0] + x);
                size_t id[3] = {x, y, z};
                uint32_t want[8] = {(uint32_t)(x + O[0]), (uint32_t)(y + O[1]), (uint32_t)(z + O[2]), 0, 0, 0, 0, 0};
                for (int d = 0; d < 3; d++) {
                    want[3] |= (uint32_t)(id[d] % L[d]) << (8 * d);
                    want[4] |= (uint32_t)(id[d] / L[d]) << (8 * d);
                    want[5] |= (uint32_t)L[d] << (8 * d);
                    want[6] |= (uint32_t)(G[d] / L[d]) << (8 * d);
                    want[7] |= (uint32_t)G[d] << (8 * d);
                }
                want[3] |= dim << 24;
                bad += memcmp(o, want, sizeof want) != 0;
            }
    clReleaseMemObject(M);
    free(out);
    return bad;
}

static void t_ndrange(void)
{
    cl_program p = build(k_ids, NULL, CL_SUCCESS);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "ids", &err);
    OK(err);
    size_t g2[2] = {24, 10}, l2[2] = {4, 2}, o2[2] = {5, 100};
    CHECK(check_ids(k, 2, NULL, g2, l2) == 0);
    CHECK(check_ids(k, 2, o2, g2, l2) == 0);
    size_t g3[3] = {6, 4, 3}, l3[3] = {3, 2, 1}, o3[3] = {1, 2, 3};
    CHECK(check_ids(k, 3, o3, g3, l3) == 0);
    size_t g1 = 40, l1 = 8;
    CHECK(check_ids(k, 1, NULL, &g1, &l1) == 0);
    NOTE("2D, 2D with offsets, 3D with offsets, 1D: every id function per work-item");
    clReleaseKernel(k);
    clReleaseProgram(p);
}

/* ----------------------------------------------------- __local reduction */

static const char *k_reduce =
    "#define N 16\n"
    "__kernel void reduce(__global const int *in, __global int *out, __local int *scratch, uint spin) {\n"
    "  __local int part[N];\n"
    "  uint t = get_local_id(0), n = get_local_size(0);\n"
    "  int v = in[get_global_id(0)];\n"
    "  for (uint k = 0; k < t * spin; ++k) v = (v ^ (int)k) * 3;\n"
    "  part[t] = v;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint s = n / 2; s > 0; s >>= 1) {\n"
    "    if (t < s) part[t] += part[t + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  scratch[n - 1 - t] = part[0] + (int)t;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n"
    "  if (t == 0) { int s2 = 0; for (uint i = 0; i < n; i++) s2 += scratch[i]; out[get_group_id(0)] = s2; }\n"
    "}\n";

static void t_local_reduce(void)
{
    cl_program p = build(k_reduce, "-cl-std=CL1.2", CL_SUCCESS);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "reduce", &err);
    OK(err);
    enum { G = 6, L = 16 };
    int in[G * L], out[G];
    for (int i = 0; i < G * L; i++) in[i] = (i * 2654435761u) >> 7;
    cl_mem I = buf(sizeof in, in), O = buf(sizeof out, NULL);
    cl_uint spin = 3;
    OK(clSetKernelArg(k, 0, sizeof I, &I));
    OK(clSetKernelArg(k, 1, sizeof O, &O));
    OK(clSetKernelArg(k, 2, L * sizeof(int), NULL));
    OK(clSetKernelArg(k, 3, sizeof spin, &spin));
    cl_ulong lmem = 0;
    OK(clGetKernelWorkGroupInfo(k, g_dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL));
    CHECK(lmem >= 2 * L * sizeof(int));
    size_t g = G * L, l = L;
    OK(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &g, &l, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, O, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    int bad = 0;
    for (int b = 0; b < G; b++) {
        int sum = 0, want = 0;
        for (int t = 0; t < L; t++) {
            int v = in[b * L + t];
            for (unsigned q = 0; q < (unsigned)t * spin; q++) v = (int)((unsigned)(v ^ (int)q) * 3u);
            sum += v;
        }
        for (int t = 0; t < L; t++) want += sum + t;
        bad += out[b] != want;
    }
    CHECK(bad == 0);
    NOTE("%d work-groups of %d: static __local, a __local argument, barriers; %d wrong", G, L, bad);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseMemObject(I); clReleaseMemObject(O);
}

/* ------------------------------------------------------ divergent loops */

static const char *k_collatz =
    "__kernel void collatz(__global const uint *in, __global uint *steps) {\n"
    "  size_t i = get_global_id(0);\n"
    "  uint x = in[i], s = 0;\n"
    "  uint hist[8];\n"
    "  for (int k = 0; k < 8; k++) hist[k] = 0;\n"
    "  while (x != 1 && s < 1000) { hist[x & 7]++; x = (x & 1) ? 3 * x + 1 : x / 2; s++; }\n"
    "  steps[i] = s | hist[(i + s) & 7] << 16;\n"
    "}\n";

static void t_divergent(void)
{
    cl_program p = build(k_collatz, NULL, CL_SUCCESS);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "collatz", &err);
    OK(err);
    enum { N = 96 };
    uint32_t in[N], out[N];
    for (int i = 0; i < N; i++) in[i] = 1 + (uint32_t)(i * 37 % 200);
    cl_mem I = buf(sizeof in, in), O = buf(sizeof out, NULL);
    OK(clSetKernelArg(k, 0, sizeof I, &I));
    OK(clSetKernelArg(k, 1, sizeof O, &O));
    cl_ulong priv = 0;
    OK(clGetKernelWorkGroupInfo(k, g_dev, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof priv, &priv, NULL));
    CHECK(priv >= 32);
    size_t g = N;
    OK(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &g, NULL, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, O, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    int bad = 0;
    for (int i = 0; i < N; i++) {
        uint32_t x = in[i], s = 0, hist[8] = {0};
        while (x != 1 && s < 1000) { hist[x & 7]++; x = (x & 1) ? 3 * x + 1 : x / 2; s++; }
        bad += out[i] != (s | hist[(i + s) & 7] << 16);
    }
    CHECK(bad == 0);
    NOTE("collatz with a private array, %d work-items: %d wrong; private memory %llu bytes", N, bad,
         (unsigned long long)priv);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseMemObject(I); clReleaseMemObject(O);
}

/* ------------------------------------------------- scalars of every size */

static const char *k_scalars =
    "typedef struct { char c; int i; short s; long l; } S;\n"
    "__kernel void scalars(__global long *out, char c, uchar uc, short s, ushort us, int i, uint u,\n"
    "                      long l, ulong ul, int2 v2, uint4 v4, S st, __constant int *cst) {\n"
    "  out[0] = c; out[1] = uc; out[2] = s; out[3] = us; out[4] = i; out[5] = u; out[6] = l;\n"
    "  out[7] = (long)ul; out[8] = v2.x + 10 * v2.y; out[9] = v4.x + v4.y + v4.z + v4.w;\n"
    "  out[10] = st.c + st.i + st.s + st.l; out[11] = cst[1]; out[12] = l / i; out[13] = (long)(ul % u);\n"
    "}\n";

typedef struct { cl_char c; cl_int i; cl_short s; cl_long l; } S;

static void t_scalars(void)
{
    cl_program p = build(k_scalars, "-cl-kernel-arg-info", CL_SUCCESS);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "scalars", &err);
    OK(err);
    cl_long out[14];
    cl_mem O = buf(sizeof out, NULL);
    int cv[2] = {11, -222};
    cl_mem Cst = buf(sizeof cv, cv);
    cl_char c = -5; cl_uchar uc = 250; cl_short s = -30000; cl_ushort us = 60000; cl_int i = -7;
    cl_uint u = 4000000000u; cl_long l = -123456789012345ll; cl_ulong ul = 0xfedcba9876543210ull;
    cl_int2 v2 = {{3, -4}}; cl_uint4 v4 = {{1, 2, 3, 4}}; S st = {-1, 1000, -2, 1ll << 40};
    OK(clSetKernelArg(k, 0, sizeof O, &O));
    OK(clSetKernelArg(k, 1, 1, &c)); OK(clSetKernelArg(k, 2, 1, &uc));
    OK(clSetKernelArg(k, 3, 2, &s)); OK(clSetKernelArg(k, 4, 2, &us));
    OK(clSetKernelArg(k, 5, 4, &i)); OK(clSetKernelArg(k, 6, 4, &u));
    OK(clSetKernelArg(k, 7, 8, &l)); OK(clSetKernelArg(k, 8, 8, &ul));
    OK(clSetKernelArg(k, 9, sizeof v2, &v2)); OK(clSetKernelArg(k, 10, sizeof v4, &v4));
    OK(clSetKernelArg(k, 11, sizeof st, &st)); OK(clSetKernelArg(k, 12, sizeof Cst, &Cst));
    OK(clEnqueueTask(g_q, k, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, O, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    cl_long want[14] = {c, uc, s, us, i, u, l, (cl_long)ul, 3 - 40, 10, -1 + 1000 - 2 + (1ll << 40), -222,
                        l / i, (cl_long)(ul % u)};
    for (int j = 0; j < 14; j++) {
        if (out[j] != want[j]) printf("  out[%d] = %lld, want %lld\n", j, (long long)out[j], (long long)want[j]);
        CHECK(out[j] == want[j]);
    }
    /* Argument info (built with -cl-kernel-arg-info), from clang's metadata. */
    char t[64], nm[64];
    cl_kernel_arg_address_qualifier aq;
    cl_kernel_arg_type_qualifier tq;
    OK(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_TYPE_NAME, sizeof t, t, NULL));
    OK(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof nm, nm, NULL));
    OK(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, NULL));
    CHECK(strcmp(t, "long*") == 0 && strcmp(nm, "out") == 0 && aq == CL_KERNEL_ARG_ADDRESS_GLOBAL);
    OK(clGetKernelArgInfo(k, 10, CL_KERNEL_ARG_TYPE_NAME, sizeof t, t, NULL));
    OK(clGetKernelArgInfo(k, 11, CL_KERNEL_ARG_NAME, sizeof nm, nm, NULL));
    CHECK(strcmp(t, "uint4") == 0 && strcmp(nm, "st") == 0);
    OK(clGetKernelArgInfo(k, 12, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, NULL));
    OK(clGetKernelArgInfo(k, 12, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq, &tq, NULL));
    CHECK(aq == CL_KERNEL_ARG_ADDRESS_CONSTANT && (tq & CL_KERNEL_ARG_TYPE_CONST));
    RC(clGetKernelArgInfo(k, 13, CL_KERNEL_ARG_NAME, sizeof nm, nm, NULL), CL_INVALID_ARG_INDEX);
    NOTE("char..ulong, int2, uint4, a struct and a __constant buffer by clEnqueueTask; arg info");
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseMemObject(O); clReleaseMemObject(Cst);
}

/* --------------------------------------------------- a write past the end */

static const char *k_oob =
    "__kernel void oob(__global int *p, int n) {\n"
    "  for (int i = get_global_id(0); i < n; i += get_global_size(0)) p[i] = i;\n"
    "}\n";

static void t_fault(void)
{
    cl_program p = build(k_oob, NULL, CL_SUCCESS);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "oob", &err);
    OK(err);
    /* 4 KiB buffer; the kernel writes 64 KiB: past the buffer's page lies unmapped VA. */
    cl_mem M = buf(4096, NULL);
    int n = 16384;
    OK(clSetKernelArg(k, 0, sizeof M, &M));
    OK(clSetKernelArg(k, 1, sizeof n, &n));
    size_t g = 16;
    cl_event ev;
    g_notify[0] = 0;
    OK(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &g, &g, 0, NULL, &ev));
    RC(clWaitForEvents(1, &ev), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    cl_int st = 0;
    OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL));
    CHECK(st == CL_OUT_OF_RESOURCES);
    CHECK(strstr(g_notify, "SIMT write") != NULL);
    NOTE("fault: event status %d, notify: %s", st, g_notify);
    clReleaseEvent(ev);
    /* What the kernel stored before the fault is there; the queue goes on. */
    int got[1024];
    OK(clEnqueueReadBuffer(g_q, M, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
    int bad = 0;
    for (int i = 0; i < 1024; i++) bad += got[i] != i;
    CHECK(bad == 0);
    n = 1024;
    OK(clSetKernelArg(k, 1, sizeof n, &n));
    OK(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &g, &g, 0, NULL, &ev));
    OK(clWaitForEvents(1, &ev));
    clReleaseEvent(ev);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseMemObject(M);
}

/* --------------------------------------------- build errors and options */

static void t_build_errors(void)
{
    char log[8192];
    cl_build_status st;
    /* A syntax error: CL_BUILD_PROGRAM_FAILURE and clang's own diagnostic in the log. */
    cl_program p = build("__kernel void k(__global int *p) {\n  p[0] = 1 +;\n}\n", "", CL_BUILD_PROGRAM_FAILURE);
    OK(clGetProgramBuildInfo(p, g_dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL));
    CHECK(strstr(log, "program.cl:2:") != NULL && strstr(log, "error:") != NULL);
    OK(clGetProgramBuildInfo(p, g_dev, CL_PROGRAM_BUILD_STATUS, sizeof st, &st, NULL));
    CHECK(st == CL_BUILD_ERROR);
    cl_int err;
    CHECK(clCreateKernel(p, "k", &err) == NULL && err == CL_INVALID_PROGRAM_EXECUTABLE);
    NOTE("syntax error log: %.*s", (int)(strchr(log, '\n') ? strchr(log, '\n') - log : 60), log);
    clReleaseProgram(p);
    /* A warning: fine, an error with -Werror, silent with -w. */
    const char *warn = "__kernel void k(__global int *p) { p[0] = 1; p[0] == 2; }";
    p = build(warn, "", CL_SUCCESS);
    OK(clGetProgramBuildInfo(p, g_dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL));
    CHECK(strstr(log, "warning:") != NULL);
    clReleaseProgram(p);
    p = build(warn, "-Werror", CL_BUILD_PROGRAM_FAILURE);
    clReleaseProgram(p);
    p = build(warn, "-w", CL_SUCCESS);
    OK(clGetProgramBuildInfo(p, g_dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL));
    CHECK(strstr(log, "warning:") == NULL);
    /* Options: what the spec lists, others refused with nothing changed. */
    char opts[64];
    RC(clBuildProgram(p, 1, &g_dev, "-fno-builtin", NULL, NULL), CL_INVALID_BUILD_OPTIONS);
    RC(clBuildProgram(p, 1, &g_dev, "-Wall", NULL, NULL), CL_INVALID_BUILD_OPTIONS);
    RC(clBuildProgram(p, 1, &g_dev, "-cl-std=CL2.0", NULL, NULL), CL_INVALID_BUILD_OPTIONS);
    RC(clBuildProgram(p, 1, &g_dev, "-D", NULL, NULL), CL_INVALID_BUILD_OPTIONS);
    OK(clGetProgramBuildInfo(p, g_dev, CL_PROGRAM_BUILD_OPTIONS, sizeof opts, opts, NULL));
    OK(clGetProgramBuildInfo(p, g_dev, CL_PROGRAM_BUILD_STATUS, sizeof st, &st, NULL));
    CHECK(strcmp(opts, "-w") == 0 && st == CL_BUILD_SUCCESS);
    clReleaseProgram(p);
    /* -D and -cl-opt-disable reach clang; -cl-fast-relaxed-math and friends are accepted. */
    const char *def = "__kernel void k(__global int *p) { p[0] = VALUE * 3; }";
    p = build(def, "-D VALUE=14 -cl-opt-disable -cl-fast-relaxed-math -cl-mad-enable -cl-denorms-are-zero", CL_SUCCESS);
    cl_kernel k = clCreateKernel(p, "k", &err);
    OK(err);
    cl_mem M = buf(4, NULL);
    OK(clSetKernelArg(k, 0, sizeof M, &M));
    OK(clEnqueueTask(g_q, k, 0, NULL, NULL));
    int v = 0;
    OK(clEnqueueReadBuffer(g_q, M, CL_TRUE, 0, 4, &v, 0, NULL, NULL));
    CHECK(v == 42);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseMemObject(M);
    p = build(def, "-DVALUE", CL_SUCCESS);
    clReleaseProgram(p);
    p = build(def, "", CL_BUILD_PROGRAM_FAILURE);
    OK(clGetProgramBuildInfo(p, g_dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL));
    CHECK(strstr(log, "VALUE") != NULL);
    clReleaseProgram(p);
    /* Image arguments are refused with a reason. */
    p = build("__kernel void k(__read_only image2d_t im) { }", "", CL_BUILD_PROGRAM_FAILURE);
    OK(clGetProgramBuildInfo(p, g_dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL));
    CHECK(strstr(log, "image2d_t") != NULL);
    clReleaseProgram(p);
    /* Float arithmetic without the unit's F: a link error naming the soft-float helper. */
    /* A missing tool: CL_COMPILER_NOT_AVAILABLE, the log names it; device info follows. */
    setenv("VMGPU_CL_CLANG", "/nonexistent/clang-14", 1);
    cl_bool b = CL_TRUE;
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_COMPILER_AVAILABLE, sizeof b, &b, NULL));
    CHECK(b == CL_FALSE);
    p = build(def, "-DVALUE=1", CL_COMPILER_NOT_AVAILABLE);
    OK(clGetProgramBuildInfo(p, g_dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL));
    CHECK(strstr(log, "/nonexistent/clang-14") != NULL);
    NOTE("missing compiler: %s", log);
    clReleaseProgram(p);
    unsetenv("VMGPU_CL_CLANG");
    setenv("VMGPU_CL_LLD", "/nonexistent/ld.lld-14", 1);
    p = build(def, "-DVALUE=1", CL_COMPILER_NOT_AVAILABLE);
    OK(clGetProgramBuildInfo(p, g_dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL));
    CHECK(strstr(log, "ld.lld-14") != NULL);
    clReleaseProgram(p);
    unsetenv("VMGPU_CL_LLD");
}

/* ------------------------------------------------- compile, link, library */

static int g_link_cb;
static void CL_CALLBACK on_link(cl_program p, void *u)
{
    (void)p;
    g_link_cb += *(int *)u;
}

static void t_compile_link(void)
{
    const char *hdr = "#define SCALE 5\nint helper(int x);\n";
    const char *main_src = "#include \"inc/defs.h\"\n"
                           "__kernel void use(__global int *p) { p[get_global_id(0)] = helper(get_global_id(0)) * SCALE; }";
    const char *lib_src = "int helper(int x) { return x * x + 1; }";
    cl_int err;
    cl_program h = clCreateProgramWithSource(g_ctx, 1, &hdr, NULL, &err);
    cl_program a = clCreateProgramWithSource(g_ctx, 1, &main_src, NULL, &err);
    cl_program b = clCreateProgramWithSource(g_ctx, 1, &lib_src, NULL, &err);
    const char *hname = "inc/defs.h";
    RC(clCompileProgram(a, 1, &g_dev, "", 0, NULL, NULL, NULL, NULL), CL_COMPILE_PROGRAM_FAILURE);
    OK(clCompileProgram(a, 1, &g_dev, "", 1, &h, &hname, NULL, NULL));
    OK(clCompileProgram(b, 1, &g_dev, "-cl-std=CL1.2", 0, NULL, NULL, NULL, NULL));
    RC(clCompileProgram(a, 1, &g_dev, "-bogus", 1, &h, &hname, NULL, NULL), CL_INVALID_COMPILER_OPTIONS);
    cl_program_binary_type bt;
    OK(clGetProgramBuildInfo(a, g_dev, CL_PROGRAM_BINARY_TYPE, sizeof bt, &bt, NULL));
    CHECK(bt == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
    size_t nk;
    RC(clGetProgramInfo(a, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, NULL), CL_INVALID_PROGRAM_EXECUTABLE);
    /* Link errors: an undefined function, options, inputs. */
    cl_program bad = clLinkProgram(g_ctx, 1, &g_dev, "", 1, &a, NULL, NULL, &err);
    CHECK(bad != NULL && err == CL_LINK_PROGRAM_FAILURE);
    char log[4096] = "";
    if (bad) clGetProgramBuildInfo(bad, g_dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    CHECK(strstr(log, "helper") != NULL);
    if (bad) clReleaseProgram(bad);
    CHECK(clLinkProgram(g_ctx, 1, &g_dev, "-O3", 1, &a, NULL, NULL, &err) == NULL && err == CL_INVALID_LINKER_OPTIONS);
    CHECK(clLinkProgram(g_ctx, 1, &g_dev, "", 1, &h, NULL, NULL, &err) == NULL && err == CL_INVALID_OPERATION);
    CHECK(clLinkProgram(g_ctx, 1, &g_dev, "", 0, &a, NULL, NULL, &err) == NULL && err == CL_INVALID_VALUE);
    int one = 1;
    CHECK(clLinkProgram(g_ctx, 1, &g_dev, "", 1, &a, NULL, &one, &err) == NULL && err == CL_INVALID_VALUE);
    /* A library of b, then the executable of a and the library; the callback runs once. */
    cl_program lib = clLinkProgram(g_ctx, 1, &g_dev, "-create-library", 1, &b, NULL, NULL, &err);
    OK(err);
    OK(clGetProgramBuildInfo(lib, g_dev, CL_PROGRAM_BINARY_TYPE, sizeof bt, &bt, NULL));
    CHECK(bt == CL_PROGRAM_BINARY_TYPE_LIBRARY);
    cl_program both[2] = {a, lib};
    g_link_cb = 0;
    cl_program exe = clLinkProgram(g_ctx, 1, &g_dev, "-cl-fast-relaxed-math", 2, both, on_link, &one, &err);
    OK(err);
    CHECK(g_link_cb == 1);
    cl_kernel k = clCreateKernel(exe, "use", &err);
    OK(err);
    cl_mem M = buf(64 * 4, NULL);
    OK(clSetKernelArg(k, 0, sizeof M, &M));
    size_t g = 64;
    OK(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &g, NULL, 0, NULL, NULL));
    int out[64], wrong = 0;
    OK(clEnqueueReadBuffer(g_q, M, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    for (int i = 0; i < 64; i++) wrong += out[i] != (i * i + 1) * 5;
    CHECK(wrong == 0);
    NOTE("compile with an input header, a library, a link of both: %d wrong", wrong);
    clReleaseKernel(k);
    clReleaseMemObject(M);
    clReleaseProgram(exe); clReleaseProgram(lib); clReleaseProgram(a); clReleaseProgram(b); clReleaseProgram(h);
}

/* ---------------------------------------------------------- binaries */

static void t_binaries(void)
{
    cl_program p = build(k_vadd, "-cl-kernel-arg-info", CL_SUCCESS);
    size_t sz = 0;
    OK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof sz, &sz, NULL));
    CHECK(sz > 100);
    unsigned char *bin = malloc(sz);
    OK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL));
    clReleaseProgram(p);
    /* A second context: the binary is linked again at a VA of its own. */
    cl_int err, bst = -1;
    cl_context c2 = clCreateContext(NULL, 1, &g_dev, NULL, NULL, &err);
    cl_command_queue q2 = clCreateCommandQueue(c2, g_dev, 0, &err);
    cl_mem pad;
    const unsigned char *cb = bin;
    cl_program p2 = clCreateProgramWithBinary(c2, 1, &g_dev, &sz, &cb, &bst, &err);
    OK(err);
    CHECK(bst == CL_SUCCESS);
    pad = clCreateBuffer(c2, CL_MEM_READ_WRITE, 1 << 16, NULL, &err);  /* moves the next VAs */
    OK(clBuildProgram(p2, 1, &g_dev, NULL, NULL, NULL));
    cl_program_binary_type bt;
    OK(clGetProgramBuildInfo(p2, g_dev, CL_PROGRAM_BINARY_TYPE, sizeof bt, &bt, NULL));
    CHECK(bt == CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    cl_kernel k = clCreateKernel(p2, "vadd", &err);
    OK(err);
    char nm[16] = "";
    OK(clGetKernelArgInfo(k, 3, CL_KERNEL_ARG_NAME, sizeof nm, nm, NULL));
    CHECK(strcmp(nm, "n") == 0);
    int a[64], b[64], c[64], n = 64;
    for (int i = 0; i < 64; i++) { a[i] = i; b[i] = 1000 * i; }
    cl_mem A = clCreateBuffer(c2, CL_MEM_COPY_HOST_PTR, sizeof a, a, &err);
    cl_mem B = clCreateBuffer(c2, CL_MEM_COPY_HOST_PTR, sizeof b, b, &err);
    cl_mem C = clCreateBuffer(c2, CL_MEM_READ_WRITE, sizeof c, NULL, &err);
    OK(clSetKernelArg(k, 0, sizeof A, &A)); OK(clSetKernelArg(k, 1, sizeof B, &B));
    OK(clSetKernelArg(k, 2, sizeof C, &C)); OK(clSetKernelArg(k, 3, sizeof n, &n));
    size_t g = 64;
    OK(clEnqueueNDRangeKernel(q2, k, 1, NULL, &g, NULL, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(q2, C, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL));
    int wrong = 0;
    for (int i = 0; i < 64; i++) wrong += c[i] != 1001 * i;
    CHECK(wrong == 0);
    /* The round trip gives the same binary. */
    size_t sz2 = 0;
    OK(clGetProgramInfo(p2, CL_PROGRAM_BINARY_SIZES, sizeof sz2, &sz2, NULL));
    CHECK(sz2 == sz);
    /* Garbage, truncated and altered binaries: CL_INVALID_BINARY with the status. */
    unsigned char junk[64];
    memset(junk, 0x5a, sizeof junk);
    const unsigned char *jp = junk;
    size_t jl = sizeof junk;
    bst = 0;
    CHECK(clCreateProgramWithBinary(g_ctx, 1, &g_dev, &jl, &jp, &bst, &err) == NULL && err == CL_INVALID_BINARY &&
          bst == CL_INVALID_BINARY);
    size_t tl = sz - 10;
    CHECK(clCreateProgramWithBinary(g_ctx, 1, &g_dev, &tl, &cb, &bst, &err) == NULL && err == CL_INVALID_BINARY);
    unsigned char *alt = malloc(sz);
    memcpy(alt, bin, sz);
    alt[sz - sz / 4] ^= 0xff;  /* inside the object: still an ELF? the header check is what guards */
    memcpy(alt, "VMGPUCL", 7);
    alt[24] = 'Z';  /* the metadata's first line */
    const unsigned char *ap = alt;
    CHECK(clCreateProgramWithBinary(g_ctx, 1, &g_dev, &sz, &ap, &bst, &err) == NULL && err == CL_INVALID_BINARY);
    CHECK(clCreateProgramWithBinary(g_ctx, 1, &g_dev, &sz, NULL, &bst, &err) == NULL && err == CL_INVALID_VALUE);
    NOTE("binary of %zu bytes: round trip into a second context runs; garbage refused", sz);
    free(alt);
    free(bin);
    clReleaseKernel(k);
    clReleaseMemObject(A); clReleaseMemObject(B); clReleaseMemObject(C); clReleaseMemObject(pad);
    clReleaseProgram(p2);
    clReleaseCommandQueue(q2);
    clReleaseContext(c2);
}

/* ------------------------------------------ bad arguments, state unchanged */

static const char *k_args =
    "__kernel void axpy(__global int *y, __global const int *x, int a, __local int *tmp) {\n"
    "  size_t i = get_global_id(0);\n"
    "  tmp[get_local_id(0)] = x[i];\n"
    "  y[i] = a * tmp[get_local_id(0)] + y[i];\n"
    "}\n"
    "__attribute__((reqd_work_group_size(8, 1, 1)))\n"
    "__kernel void fixed(__global int *y) { y[get_global_id(0)] = get_local_size(0); }\n";

static void t_bad_args(void)
{
    cl_program p = build(k_args, NULL, CL_SUCCESS);
    cl_int err;
    cl_kernel ks[2];
    cl_uint nks = 0;
    RC(clCreateKernelsInProgram(p, 1, ks, &nks), CL_INVALID_VALUE);
    OK(clCreateKernelsInProgram(p, 2, ks, &nks));
    CHECK(nks == 2);
    cl_kernel k = ks[0], f = ks[1];
    char name[16];
    OK(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL));
    if (strcmp(name, "axpy")) { cl_kernel t = k; k = f; f = t; }
    CHECK(clCreateKernel(p, "nope", &err) == NULL && err == CL_INVALID_KERNEL_NAME);
    int y[32], x[32], a = 3;
    for (int i = 0; i < 32; i++) { y[i] = i; x[i] = 100 + i; }
    cl_mem Y = buf(sizeof y, y), X = buf(sizeof x, x);
    size_t g = 32, l = 8;
    RC(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &g, &l, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS);
    OK(clSetKernelArg(k, 0, sizeof Y, &Y));
    OK(clSetKernelArg(k, 1, sizeof X, &X));
    OK(clSetKernelArg(k, 2, sizeof a, &a));
    OK(clSetKernelArg(k, 3, 8 * sizeof(int), NULL));
    /* clSetKernelArg errors leave the argument as it was. */
    long big = 5;
    int other = 1000;
    RC(clSetKernelArg(k, 4, sizeof a, &a), CL_INVALID_ARG_INDEX);
    RC(clSetKernelArg(k, 2, sizeof big, &big), CL_INVALID_ARG_SIZE);
    RC(clSetKernelArg(k, 2, sizeof other, NULL), CL_INVALID_ARG_VALUE);
    RC(clSetKernelArg(k, 0, 4, &Y), CL_INVALID_ARG_SIZE);
    RC(clSetKernelArg(k, 0, sizeof(cl_mem), &g_q), CL_INVALID_MEM_OBJECT);
    RC(clSetKernelArg(k, 3, 0, NULL), CL_INVALID_ARG_SIZE);
    RC(clSetKernelArg(k, 3, 32, &other), CL_INVALID_ARG_VALUE);
    RC(clSetKernelArg(NULL, 0, sizeof Y, &Y), CL_INVALID_KERNEL);
    cl_context c2 = clCreateContext(NULL, 1, &g_dev, NULL, NULL, &err);
    cl_mem Z = clCreateBuffer(c2, CL_MEM_READ_WRITE, 64, NULL, &err);
    RC(clSetKernelArg(k, 0, sizeof Z, &Z), CL_INVALID_MEM_OBJECT);
    /* NDRange errors. */
    size_t zero = 0, g2[2] = {32, 2}, l2[2] = {8, 4}, l9 = 9, l64 = 64, huge = (size_t)1 << 33;
    size_t max_wg = 0;
    OK(clGetKernelWorkGroupInfo(k, g_dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL));
    RC(clEnqueueNDRangeKernel(g_q, k, 0, NULL, &g, &l, 0, NULL, NULL), CL_INVALID_WORK_DIMENSION);
    RC(clEnqueueNDRangeKernel(g_q, k, 4, NULL, &g, &l, 0, NULL, NULL), CL_INVALID_WORK_DIMENSION);
    RC(clEnqueueNDRangeKernel(g_q, k, 1, NULL, NULL, &l, 0, NULL, NULL), CL_INVALID_GLOBAL_WORK_SIZE);
    RC(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &zero, NULL, 0, NULL, NULL), CL_INVALID_GLOBAL_WORK_SIZE);
    RC(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &huge, NULL, 0, NULL, NULL), CL_INVALID_GLOBAL_WORK_SIZE);
    RC(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &g, &l9, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
    /* a 2D work-group of twice the kernel's largest; one dimension past the device's item size */
    g2[0] = max_wg;
    l2[0] = max_wg / 2;
    g2[1] = l2[1] = 4;
    RC(clEnqueueNDRangeKernel(g_q, k, 2, NULL, g2, l2, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
    l64 = 2 * max_wg;
    RC(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &l64, &l64, 0, NULL, NULL), CL_INVALID_WORK_ITEM_SIZE);
    size_t off = 0xfffffff0u;
    RC(clEnqueueNDRangeKernel(g_q, k, 1, &off, &g, &l, 0, NULL, NULL), CL_INVALID_GLOBAL_OFFSET);
    cl_event dead = (cl_event)g_q;
    RC(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &g, &l, 1, &dead, NULL), CL_INVALID_EVENT_WAIT_LIST);
    RC(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &g, &l, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
    cl_command_queue q2 = clCreateCommandQueue(c2, g_dev, 0, &err);
    RC(clEnqueueNDRangeKernel(q2, k, 1, NULL, &g, &l, 0, NULL, NULL), CL_INVALID_CONTEXT);
    /* reqd_work_group_size(8,1,1) */
    size_t cw[3];
    OK(clGetKernelWorkGroupInfo(f, g_dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof cw, cw, NULL));
    CHECK(cw[0] == 8 && cw[1] == 1 && cw[2] == 1);
    OK(clSetKernelArg(f, 0, sizeof Y, &Y));
    size_t l4 = 4;
    RC(clEnqueueNDRangeKernel(g_q, f, 1, NULL, &g, NULL, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
    RC(clEnqueueNDRangeKernel(g_q, f, 1, NULL, &g, &l4, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
    RC(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof name, name, NULL), CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
    size_t gws[3];
    RC(clGetKernelWorkGroupInfo(k, g_dev, CL_KERNEL_GLOBAL_WORK_SIZE, sizeof gws, gws, NULL), CL_INVALID_VALUE);
    /* Nothing ran: y is as written; the arguments set before the errors are the ones used. */
    int got[32];
    OK(clEnqueueReadBuffer(g_q, Y, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
    CHECK(memcmp(got, y, sizeof y) == 0);
    OK(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &g, &l, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, Y, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
    int wrong = 0;
    for (int i = 0; i < 32; i++) wrong += got[i] != 3 * x[i] + y[i];
    CHECK(wrong == 0);
    /* Building a program with kernels attached is refused. */
    RC(clBuildProgram(p, 1, &g_dev, NULL, NULL, NULL), CL_INVALID_OPERATION);
    NOTE("kernel work-group size %zu; every refused call changed nothing", max_wg);
    clReleaseKernel(k);
    clReleaseKernel(f);
    clReleaseProgram(p);
    clReleaseMemObject(Y); clReleaseMemObject(X); clReleaseMemObject(Z);
    clReleaseCommandQueue(q2);
    clReleaseContext(c2);
}

/* ------------------------------------------------- atomics (needs RV32A) */

static const char *k_atomics =
    "__kernel void hist(__global const uint *in, __global int *bins, __global uint *maxv, __global int *cas) {\n"
    "  uint v = in[get_global_id(0)];\n"
    "  atomic_inc(&bins[v & 7]);\n"
    "  atomic_add(&bins[8], (int)v);\n"
    "  atomic_max(maxv, v);\n"
    "  int old, want;\n"
    "  do { old = *cas; want = old + 1; } while (atomic_cmpxchg(cas, old, want) != old);\n"
    "}\n";

static void t_atomics(void)
{
    char ext[1024] = "";
    clGetDeviceInfo(g_dev, CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
    if (!strstr(ext, "cl_khr_global_int32_base_atomics")) {
        printf("SKIP: the SIMT unit has no atomics (no cl_khr_global_int32_base_atomics)\n");
        exit(77);
    }
    cl_program p = build(k_atomics, NULL, CL_SUCCESS);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "hist", &err);
    enum { N = 256 };
    uint32_t in[N];
    int bins[9] = {0}, cas = 0;
    uint32_t mx = 0;
    for (int i = 0; i < N; i++) in[i] = (uint32_t)(i * 2654435761u) >> 20;
    cl_mem I = buf(sizeof in, in), B = buf(sizeof bins, bins), M = buf(4, &mx), C = buf(4, &cas);
    OK(clSetKernelArg(k, 0, sizeof I, &I)); OK(clSetKernelArg(k, 1, sizeof B, &B));
    OK(clSetKernelArg(k, 2, sizeof M, &M)); OK(clSetKernelArg(k, 3, sizeof C, &C));
    size_t g = N;
    OK(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &g, NULL, 0, NULL, NULL));
    int got[9];
    OK(clEnqueueReadBuffer(g_q, B, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, M, CL_TRUE, 0, 4, &mx, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, C, CL_TRUE, 0, 4, &cas, 0, NULL, NULL));
    uint32_t want_max = 0;
    for (int i = 0; i < N; i++) { bins[in[i] & 7]++; bins[8] += (int)in[i]; if (in[i] > want_max) want_max = in[i]; }
    CHECK(memcmp(got, bins, sizeof bins) == 0 && mx == want_max && cas == N);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

/* ------------------------------------------ vector pointer arguments, async copies */

/* Pointers to vectors as arguments (clang's metadata spells their base type with an attribute
 * that only a typedef may carry: the ICD's generated entry once failed to compile on it), a
 * typedef of one, and the async copies: each group copies its slice of `in` into local memory,
 * waits, and every work-item writes a neighbour's element back, scaled, with a strided copy. */
static const char *k_vecargs =
    "typedef float4 vec;\n"
    "__kernel void vecargs(__global const vec *in, __global float4 *out, __local float4 *tmp,\n"
    "                      __global int16 *iv, __global float *sub) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0), base = get_group_id(0) * n;\n"
    "  event_t e = async_work_group_copy(tmp, in + base, n, 0);\n"
    "  wait_group_events(1, &e);\n"
    "  float4 v = tmp[(l + 1) % n] * 2.0f;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  tmp[l] = v;\n"
    "  e = async_work_group_strided_copy(out + 2 * base, tmp, n, 2, 0);\n"
    "  wait_group_events(1, &e);\n"
    "  if (get_global_id(0) == 0) { int16 x = iv[0]; iv[1] = x * x + (int16)(3); }\n"
    "  sub[get_global_id(0)] = in[get_global_id(0)].x * 0x1p-140f;\n"
    "}\n";

static void t_vector_args(void)
{
    cl_device_fp_config fp = 0;
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL));
    cl_program p = build(k_vecargs, "", CL_SUCCESS);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "vecargs", &err);
    OK(err);
    enum { N = 64, L = 16 };
    float in[N * 4], out[2 * N * 4], sub[N];
    int iv[32];
    for (int i = 0; i < N * 4; i++) in[i] = (float)(i * 3 - 50) * 0.25f;
    for (int i = 0; i < 16; i++) iv[i] = i - 7;
    for (int i = 0; i < 2 * N * 4; i++) out[i] = -1.0f;
    memset(iv + 16, 0, 64);
    cl_mem I = buf(sizeof in, in), O = buf(sizeof out, out), V = buf(sizeof iv, iv), S = buf(sizeof sub, NULL);
    OK(clSetKernelArg(k, 0, sizeof I, &I));
    OK(clSetKernelArg(k, 1, sizeof O, &O));
    OK(clSetKernelArg(k, 2, L * 16, NULL));
    OK(clSetKernelArg(k, 3, sizeof V, &V));
    OK(clSetKernelArg(k, 4, sizeof S, &S));
    size_t g = N, l = L;
    OK(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &g, &l, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, O, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, V, CL_TRUE, 0, sizeof iv, iv, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, S, CL_TRUE, 0, sizeof sub, sub, 0, NULL, NULL));
    int bad = 0, subs = 0;
    for (int i = 0; i < N; i++) {
        int grp = i / L, j = i % L, src = grp * L + (j + 1) % L;
        for (int c = 0; c < 4; c++) {
            bad += out[(2 * i) * 4 + c] != in[src * 4 + c] * 2.0f;  /* strided: every other float4 */
            bad += out[(2 * i + 1) * 4 + c] != -1.0f;                 /* the gaps stay untouched */
        }
        /* a subnormal product, exact (CL_FP_DENORM): x * 2^-140 */
        float want = in[i * 4] * 0x1p-140f;
        bad += memcmp(&sub[i], &want, 4) != 0;
        subs += want != 0.0f && fabsf(want) < 0x1p-126f;
    }
    for (int i = 0; i < 16; i++) bad += iv[16 + i] != (i - 7) * (i - 7) + 3;
    CHECK(bad == 0);
    CHECK(subs > 0 && (fp & CL_FP_DENORM));
    NOTE("float4/int16 pointer arguments, async copies: %d mismatches; %d subnormal results exact; "
         "fp config 0x%llx", bad, subs, (unsigned long long)fp);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseMemObject(I); clReleaseMemObject(O); clReleaseMemObject(V); clReleaseMemObject(S);
}

/* ----------------------------------- what the CTS's basic suite found missing (each once) */

/* __OPENCL_VERSION__ and __IMAGE_SUPPORT__ (clang defines neither for this target), isnormal,
 * islessgreater, nextafter, a string array copied by clang's memcpy libcall, and __local
 * arguments aligned to 128 bytes (a long16's size) whatever comes before them. */
static const char *k_cts_basics =
    "__kernel void basics(__global int *o, __local char *a, __local long16 *b, __global char *s) {\n"
    "  char str[] = \"the quick brown fox jumps over the lazy dog, twice\";\n"
    "  if (get_global_id(0) != 0) return;\n"
    "  for (int i = 0; i < (int)sizeof str; i++) s[i] = str[i];\n"
    "  o[0] = __OPENCL_VERSION__;\n"
    "#ifdef __IMAGE_SUPPORT__\n"
    "  o[1] = __IMAGE_SUPPORT__;\n"
    "#endif\n"
    "  o[2] = isnormal(1.0f) + 2 * isnormal(0x1p-130f) + 4 * isnormal(INFINITY) + 8 * isnormal(MAXFLOAT);\n"
    "  o[3] = islessgreater(1.0f, 2.0f) + 2 * islessgreater(NAN, 1.0f) + 4 * islessgreater(3.0f, 3.0f);\n"
    "  o[4] = as_int(nextafter(1.0f, 2.0f)); o[5] = as_int(nextafter(0.0f, -1.0f));\n"
    "  o[6] = as_int(nextafter(-1.0f, 0.0f)); o[7] = as_int(nextafter(MAXFLOAT, INFINITY));\n"
    "  o[8] = (int)((size_t)a & 127); o[9] = (int)((size_t)b & 127);\n"
    "  int4 r = islessgreater((float4)(1.0f, NAN, 2.0f, 0.0f), (float4)(2.0f, 1.0f, 2.0f, -0.0f));\n"
    "  o[10] = r.x; o[11] = r.y; o[12] = r.z; o[13] = r.w;\n"
    "}\n";

static void t_cts_basics(void)
{
    cl_program p = build(k_cts_basics, "", CL_SUCCESS);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "basics", &err);
    OK(err);
    int o[16] = {0};
    char str[64] = "";
    cl_mem O = buf(sizeof o, o), S = buf(sizeof str, NULL);
    OK(clSetKernelArg(k, 0, sizeof O, &O));
    OK(clSetKernelArg(k, 1, 3, NULL));   /* 3 bytes: the next argument must still be aligned */
    OK(clSetKernelArg(k, 2, 256, NULL));
    OK(clSetKernelArg(k, 3, sizeof S, &S));
    size_t g = 4, l = 4;
    OK(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &g, &l, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, O, CL_TRUE, 0, sizeof o, o, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, S, CL_TRUE, 0, sizeof str, str, 0, NULL, NULL));
    CHECK(o[0] == 120 && o[1] == 1);
    CHECK(o[2] == 1 + 8 && o[3] == 1);
    CHECK(o[4] == 0x3f800001 && o[5] == (int)0x80000001u && o[6] == (int)0xbf7fffffu && o[7] == 0x7f800000);
    CHECK(o[8] == 0 && o[9] == 0);
    CHECK(o[10] == -1 && o[11] == 0 && o[12] == 0 && o[13] == 0);
    CHECK(strcmp(str, "the quick brown fox jumps over the lazy dog, twice") == 0);
    NOTE("__OPENCL_VERSION__ %d, __IMAGE_SUPPORT__ %d; __local arguments at offsets %d, %d mod 128; "
         "string copied: \"%s\"", o[0], o[1], o[8], o[9], str);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseMemObject(O); clReleaseMemObject(S);
}

/* ------------------------------------------------------------------ the math library */

/* Each function of the math library over 1024 inputs (special values, then a spread over its
 * domain: every binade, both signs), against the host's libm in double precision: the error in
 * ulps of the float nearest the exact answer must be within what OpenCL 1.2 allows the full
 * profile (section 7.4), special values exact (C99 Annex F), and subnormal results too (the
 * device claims CL_FP_DENORM). */
static const char *k_math =
    "__kernel void m(__global const float *x, __global const float *y, __global float *o, int f) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float a = x[i], b = y[i], r = 0.0f;\n"
    "  switch (f) {\n"
    "  case 0: r = exp(a); break;\n"
    "  case 1: r = exp2(a); break;\n"
    "  case 2: r = exp10(a); break;\n"
    "  case 3: r = expm1(a); break;\n"
    "  case 4: r = log(a); break;\n"
    "  case 5: r = log2(a); break;\n"
    "  case 6: r = log10(a); break;\n"
    "  case 7: r = log1p(a); break;\n"
    "  case 8: r = cbrt(a); break;\n"
    "  case 9: r = rsqrt(a); break;\n"
    "  case 10: r = sin(a); break;\n"
    "  case 11: r = cos(a); break;\n"
    "  case 12: r = tan(a); break;\n"
    "  case 13: r = asin(a); break;\n"
    "  case 14: r = acos(a); break;\n"
    "  case 15: r = atan(a); break;\n"
    "  case 16: r = asinpi(a); break;\n"
    "  case 17: r = acospi(a); break;\n"
    "  case 18: r = atanpi(a); break;\n"
    "  case 19: r = sinh(a); break;\n"
    "  case 20: r = cosh(a); break;\n"
    "  case 21: r = tanh(a); break;\n"
    "  case 22: r = asinh(a); break;\n"
    "  case 23: r = acosh(a); break;\n"
    "  case 24: r = atanh(a); break;\n"
    "  case 25: r = pow(a, b); break;\n"
    "  case 26: r = powr(a, b); break;\n"
    "  case 27: r = atan2(a, b); break;\n"
    "  case 28: r = atan2pi(a, b); break;\n"
    "  case 29: r = hypot(a, b); break;\n"
    "  case 30: r = fmod(a, b); break;\n"
    "  case 31: r = remainder(a, b); break;\n"
    "  case 32: r = logb(a); break;\n"
    "  case 33: r = sinpi(a); break;\n"
    "  case 34: r = cospi(a); break;\n"
    "  case 35: r = tanpi(a); break;\n"
    "  case 36: r = erf(a); break;\n"
    "  case 37: r = erfc(a); break;\n"
    "  case 38: r = tgamma(a); break;\n"
    "  case 39: r = lgamma(a); break;\n"
    "  case 43: r = nan(as_uint(a)); break;\n"
    "  case 44: r = nan((uint4)(1, 2, 3, as_uint(a))).w; break;\n"
    "  case 40: r = (float)ilogb(a) + ldexp(b, (int)a & 15); break;\n"
    "  case 41: r = pown(a, (int)b); break;\n"
    "  case 42: r = rootn(a, (int)b); break;\n"
    "  }\n  o[i] = r;\n}\n";

static const struct mathfn { const char *name; int arity, ulps; double lo, hi; } k_mathfns[] = {
    {"exp", 1, 3, -104.0, 89.0},
    {"exp2", 1, 3, -150.0, 128.0},
    {"exp10", 1, 3, -46.0, 39.0},
    {"expm1", 1, 3, -20.0, 89.0},
    {"log", 1, 3, 0.0, 3.4e+38},
    {"log2", 1, 3, 0.0, 3.4e+38},
    {"log10", 1, 3, 0.0, 3.4e+38},
    {"log1p", 1, 2, -1.0, 3.4e+38},
    {"cbrt", 1, 2, -3.4e+38, 3.4e+38},
    {"rsqrt", 1, 2, 0.0, 3.4e+38},
    {"sin", 1, 4, -3.4e+38, 3.4e+38},
    {"cos", 1, 4, -3.4e+38, 3.4e+38},
    {"tan", 1, 5, -3.4e+38, 3.4e+38},
    {"asin", 1, 4, -1.0, 1.0},
    {"acos", 1, 4, -1.0, 1.0},
    {"atan", 1, 5, -3.4e+38, 3.4e+38},
    {"asinpi", 1, 5, -1.0, 1.0},
    {"acospi", 1, 5, -1.0, 1.0},
    {"atanpi", 1, 5, -3.4e+38, 3.4e+38},
    {"sinh", 1, 4, -90.0, 90.0},
    {"cosh", 1, 4, -90.0, 90.0},
    {"tanh", 1, 5, -20.0, 20.0},
    {"asinh", 1, 4, -3.4e+38, 3.4e+38},
    {"acosh", 1, 4, 1.0, 3.4e+38},
    {"atanh", 1, 5, -1.0, 1.0},
    {"pow", 2, 16, 0.0, 0.0},
    {"powr", 2, 16, 0.0, 0.0},
    {"atan2", 2, 6, 0.0, 0.0},
    {"atan2pi", 2, 6, 0.0, 0.0},
    {"hypot", 2, 4, 0.0, 0.0},
    {"fmod", 2, 0, 0.0, 0.0},
    {"remainder", 2, 0, 0.0, 0.0},
    {"logb", 1, 0, -3.4e+38, 3.4e+38},
    {"sinpi", 1, 4, -3.4e+38, 3.4e+38},
    {"cospi", 1, 4, -3.4e+38, 3.4e+38},
    {"tanpi", 1, 6, -3.4e+38, 3.4e+38},
    {"erf", 1, 16, -6.0, 6.0},
    {"erfc", 1, 16, -6.0, 12.0},
    {"tgamma", 1, 16, -45.0, 40.0},
    /* lgamma's bound is not given by the specification (section 7.4): held to 16 ulps here away
     * from its zeros at 1 and 2, and to an absolute 2^-20 near them (t_math) */
    {"lgamma", 1, 16, -40.0, 1e30},
};

static double math_ref(int f, double a, double b)
{
    switch (f) {
    case 0: return exp(a);
    case 1: return exp2(a);
    case 2: return pow(10.0, a);
    case 3: return expm1(a);
    case 4: return log(a);
    case 5: return log2(a);
    case 6: return log10(a);
    case 7: return log1p(a);
    case 8: return cbrt(a);
    case 9: return 1.0 / sqrt(a);
    case 10: return sin(a);
    case 11: return cos(a);
    case 12: return tan(a);
    case 13: return asin(a);
    case 14: return acos(a);
    case 15: return atan(a);
    case 16: return asin(a) / M_PI;
    case 17: return acos(a) / M_PI;
    case 18: return atan(a) / M_PI;
    case 19: return sinh(a);
    case 20: return cosh(a);
    case 21: return tanh(a);
    case 22: return asinh(a);
    case 23: return acosh(a);
    case 24: return atanh(a);
    case 25: return pow(a, b);
    case 26: return a < 0 || (a == 0 && b == 0) || (isinf(a) && b == 0) || (a == 1 && isinf(b)) ? NAN : pow(a, b);
    case 27: return atan2(a, b);
    case 28: return atan2(a, b) / M_PI;
    case 29: return hypot(a, b);
    case 30: return fmod(a, b);
    case 31: return remainder(a, b);
    case 32: return logb(a);
    case 33: case 34: case 35: {
        /* x = n + r exactly (n an integer, |r| <= 1/2): no error from forming pi x */
        double n = rint(a), r = a - n;
        int odd = fmod(fabs(n), 2.0) == 1.0;
        if (isinf(a) || isnan(a)) return NAN;
        if (f == 33) return r == 0 ? copysign(0.0, a) : (odd ? -1 : 1) * sin(M_PI * r);
        if (f == 34) return fabs(r) == 0.5 ? 0.0 : (odd ? -1 : 1) * cos(M_PI * r);
        if (r == 0) return odd ? copysign(0.0, -a) : copysign(0.0, a);
        if (fabs(r) == 0.5) return ((r > 0) != odd) ? INFINITY : -INFINITY;   /* n + 1/2, n even: +inf */
        return tan(M_PI * r);
    }
    case 36: return erf(a);
    case 37: return erfc(a);
    case 38: return tgamma(a);
    case 39: return lgamma(a);
    }
    return 0;
}

/* ulps between the float got and the exact (double) answer want */
static double ulps_off(float got, double want)
{
    if (isnan(want) || isnan(got)) return isnan(want) && isnan(got) ? 0 : 1e9;
    if (isinf(want) || isinf(got)) {
        if (isinf(got) && isinf(want) && (got > 0) == (want > 0)) return 0;
        /* an exact answer beyond FLT_MAX rounds to infinity; one just under may round to it */
        if (isinf(got) && fabs(want) >= 0x1.fffffep127 && (got > 0) == (want > 0)) return 0;
        return 1e9;
    }
    double aw = fabs(want);
    int e;
    frexp(aw, &e);                                   /* aw in [2^(e-1), 2^e) */
    double ulp = ldexp(1.0, (e - 1 < -126 ? -126 : e - 1) - 23);
    return fabs((double)got - want) / ulp;
}

static uint32_t math_rng = 12345;
static float math_rand(void)
{
    math_rng = math_rng * 1664525u + 1013904223u;
    return (float)(math_rng >> 8) / 16777216.0f;
}

/* n inputs for a 1-argument function on [lo, hi]: specials first, then log-spread magnitudes */
static void math_inputs(const struct mathfn *m, float *x, float *y, int n)
{
    static const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 0.5f, -0.5f,
                                     0x1p-149f, -0x1p-149f, 0x1.fffffep127f, 0x1p-126f, 3.14159265f};
    int i = 0;
    for (; i < (int)(sizeof specials / sizeof specials[0]); i++) { x[i] = specials[i]; y[i] = specials[(i * 5 + 3) % 14]; }
    for (; i < n; i++) {
        if (m->arity == 2) {
            /* pairs over many binades, both signs; pow's x mostly positive */
            float a = ldexpf(1.0f + math_rand(), (int)(math_rand() * 60.0f) - 30);
            float b = ldexpf(1.0f + math_rand(), (int)(math_rand() * 20.0f) - 10);
            if (math_rand() < 0.3f) a = -a;
            if (math_rand() < 0.5f) b = -b;
            if (!strcmp(m->name, "pow") || !strcmp(m->name, "powr")) {
                a = fabsf(a);
                if (i % 4 == 0) b = rintf(b * 4.0f);          /* integer powers */
                if (i % 7 == 0) { a = 1.0f + (math_rand() - 0.5f) * 0.01f; b *= 1000.0f; }  /* near 1, large y */
            }
            x[i] = a;
            y[i] = b;
            continue;
        }
        double lo = m->lo, hi = m->hi, v;
        if (i % 3 == 0 || hi - lo < 4) {
            v = lo + (hi - lo) * math_rand();               /* uniform */
        } else {
            double top = fmax(fabs(lo), fabs(hi));
            v = top * pow(2.0, -(double)(math_rand() * 140.0f));   /* magnitudes over 140 binades */
            if (lo < 0 && (hi <= 0 || math_rand() < 0.5f)) v = -v;
            if (v < lo) v = lo;
            if (v > hi) v = hi;
        }
        x[i] = (float)v;
        y[i] = 0;
    }
}

static void t_math(void)
{
    cl_program p = build(k_math, "", CL_SUCCESS);
    cl_int err;
    cl_kernel k = clCreateKernel(p, "m", &err);
    OK(err);
    enum { N = 1024 };
    static float x[N], y[N], o[N];
    cl_mem X = buf(sizeof x, NULL), Y = buf(sizeof y, NULL), O = buf(sizeof o, NULL);
    OK(clSetKernelArg(k, 0, sizeof X, &X));
    OK(clSetKernelArg(k, 1, sizeof Y, &Y));
    OK(clSetKernelArg(k, 2, sizeof O, &O));
    int nf = (int)(sizeof k_mathfns / sizeof k_mathfns[0]);
    for (int f = 0; f < nf + 3; f++) {
        const struct mathfn *m = f < nf ? &k_mathfns[f] : &k_mathfns[0];
        const char *only = getenv("MATH_ONLY");   /* one function by name, when looking into it */
        math_inputs(m, x, y, N);
        if (only && *only && (f >= nf || strcmp(only, m->name))) continue;
        if (f >= nf) /* ilogb + ldexp, pown, rootn: exact or within bounds, checked below */
            for (int i = 0; i < N; i++) { x[i] = ldexpf(1.0f + math_rand(), (int)(math_rand() * 40.0f) - 20);
                                          y[i] = rintf((math_rand() - 0.5f) * 20.0f); if (i & 1) x[i] = -x[i]; }
        OK(clEnqueueWriteBuffer(g_q, X, CL_TRUE, 0, sizeof x, x, 0, NULL, NULL));
        OK(clEnqueueWriteBuffer(g_q, Y, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL));
        OK(clSetKernelArg(k, 3, sizeof f, &f));
        /* Groups of 256, the most the unit takes: the switch over every function spills to the
         * stack, so each group touches 64 stack pages (1 KiB a thread) and runs a kernel far
         * larger than the 1 KiB instruction cache. In such groups the unit once stopped making
         * progress (three or more warps evicting each other's cache fills before use, a livelock
         * the per-warp fill buffer in rtl/simt/simt_core.v ended), on cbrt in one build and acos
         * in another: this is the test that caught it. */
        size_t g = N, l = 256;
        OK(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &g, &l, 0, NULL, NULL));
        OK(clEnqueueReadBuffer(g_q, O, CL_TRUE, 0, sizeof o, o, 0, NULL, NULL));
        double worst = 0;
        int at = -1, bad = 0;
        for (int i = 0; i < N; i++) {
            double want;
            int bound;
            if (f < nf) { want = math_ref(f, x[i], y[i]); bound = m->ulps; }
            else if (f == nf) { want = (double)ilogb(x[i]) + ldexp(y[i], (int)x[i] & 15); bound = 1; } /* one rounding */
            else if (f == nf + 1) { want = pow(x[i], (int)y[i]); bound = 16; }
            else {   /* rootn */
                int n = (int)y[i];
                want = n == 0 || (x[i] < 0 && !(n & 1)) ? NAN : (x[i] < 0 ? -pow(-x[i], 1.0 / n) : pow(x[i], 1.0 / n));
                bound = 16;
            }
            double u = ulps_off(o[i], want);
            /* lgamma near its zeros (x = 1, 2 and some negative x): an absolute 2^-20 */
            if (f < nf && !strcmp(m->name, "lgamma") && fabs((double)o[i] - want) <= 0x1p-20) u = 0;
            if (u > bound) bad++;
            if (u > worst) { worst = u; at = i; }
        }
        const char *name = f < nf ? m->name : f == nf ? "ilogb+ldexp" : f == nf + 1 ? "pown" : "rootn";
        if (bad)
            printf("  FAIL %s: %d of %d beyond %d ulps; worst %.2f at x=%a y=%a: got %a, want %a\n", name, bad, N,
                   f < nf ? m->ulps : f == nf ? 1 : 16, worst, x[at], y[at], o[at],
                   f < nf ? math_ref(f, x[at], y[at]) : 0.0);
        else
            NOTE("%-12s worst %.2f ulps (bound %d)", name, worst, f < nf ? m->ulps : f == nf ? 1 : 16);
        CHECK(bad == 0);
    }
    /* nan(nancode), scalar and vector: a quiet NaN with the code's low 22 bits as its payload */
    for (int f = 43; f <= 44; f++) {
        for (int i = 0; i < N; i++) { uint32_t v = math_rng = math_rng * 1664525u + 1013904223u; memcpy(&x[i], &v, 4); }
        OK(clEnqueueWriteBuffer(g_q, X, CL_TRUE, 0, sizeof x, x, 0, NULL, NULL));
        OK(clSetKernelArg(k, 3, sizeof f, &f));
        size_t g = N, l = 256;
        OK(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &g, &l, 0, NULL, NULL));
        OK(clEnqueueReadBuffer(g_q, O, CL_TRUE, 0, sizeof o, o, 0, NULL, NULL));
        int bad = 0;
        for (int i = 0; i < N; i++) {
            uint32_t code, got;
            memcpy(&code, &x[i], 4);
            memcpy(&got, &o[i], 4);
            bad += got != (0x7fc00000u | (code & 0x003fffffu));
        }
        if (bad) printf("  FAIL nan (%s): %d of %d wrong\n", f == 43 ? "uint" : "uint4", bad, N);
        CHECK(bad == 0);
    }
    NOTE("nan(uint), nan(uint4): the quiet NaN with the code as payload");
    clReleaseKernel(k);
    clReleaseProgram(p);

    /* The functions that write through a pointer (sincos, frexp, modf, remquo, lgamma_r), into
     * private variables on the stack, one group of 256 threads (64 stack pages). */
    static const char *k_ptrs =
        "__kernel void p(__global const float *x, __global const float *y, __global float *o) {\n"
        "  size_t i = get_global_id(0);\n"
        "  float a = x[i], c, ip; int e, q, sg;\n"
        "  float s = sincos(a, &c);\n"
        "  float m = frexp(a, &e);\n"
        "  float fr = modf(a, &ip);\n"
        "  float r = remquo(a, y[i], &q);\n"
        "  float lg = lgamma_r(a, &sg);\n"
        "  o[10 * i] = s; o[10 * i + 1] = c; o[10 * i + 2] = m; o[10 * i + 3] = (float)e;\n"
        "  o[10 * i + 4] = fr; o[10 * i + 5] = ip; o[10 * i + 6] = r; o[10 * i + 7] = (float)q;\n"
        "  o[10 * i + 8] = lg; o[10 * i + 9] = (float)sg;\n"
        "}\n";
    enum { NP = 256 };
    static float po[10 * NP];
    p = build(k_ptrs, "", CL_SUCCESS);
    k = clCreateKernel(p, "p", &err);
    OK(err);
    cl_mem PO = buf(sizeof po, NULL);
    for (int i = 0; i < NP; i++) {
        x[i] = i < 14 ? x[i] : ldexpf(1.0f + math_rand(), (int)(math_rand() * 60.0f) - 30) * (i & 1 ? -1.0f : 1.0f);
        y[i] = ldexpf(1.0f + math_rand(), (int)(math_rand() * 10.0f) - 5);
    }
    static const float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, 1.5f, -2.5f, 0x1p-149f, 1e30f};
    for (int i = 0; i < 8; i++) x[i] = sp[i];
    OK(clEnqueueWriteBuffer(g_q, X, CL_TRUE, 0, sizeof x, x, 0, NULL, NULL));
    OK(clEnqueueWriteBuffer(g_q, Y, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL));
    OK(clSetKernelArg(k, 0, sizeof X, &X));
    OK(clSetKernelArg(k, 1, sizeof Y, &Y));
    OK(clSetKernelArg(k, 2, sizeof PO, &PO));
    size_t g = NP, l = NP;
    OK(clEnqueueNDRangeKernel(g_q, k, 1, NULL, &g, &l, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, PO, CL_TRUE, 0, sizeof po, po, 0, NULL, NULL));
    int bad = 0;
    double worst = 0;
    for (int i = 0; i < NP; i++) {
        const float *r = po + 10 * i;
        double us = ulps_off(r[0], sin(x[i])), uc = ulps_off(r[1], cos(x[i]));
        worst = fmax(worst, fmax(us, uc));
        bad += us > 4 || uc > 4;
        int e;
        float m = frexpf(x[i], &e);
        bad += !(m == r[2] || (isnan(m) && isnan(r[2]))) || (isfinite(x[i]) && (float)e != r[3]);
        float ip, fr = modff(x[i], &ip);
        bad += memcmp(&fr, &r[4], 4) != 0 || memcmp(&ip, &r[5], 4) != 0;
        int q;
        float rq = remquof(x[i], y[i], &q);
        int b2 = !(rq == r[6] || (isnan(rq) && isnan(r[6]))) || (isfinite(x[i]) && (q & 7) != ((int)r[7] & 7)) ||
                 (isfinite(x[i]) && (q & 7) != 0 && (q < 0) != (r[7] < 0));   /* a sign where bits are */
        if (bad == 0 && (b2 || us > 4 || uc > 4 || !(m == r[2] || (isnan(m) && isnan(r[2])))))
            printf("  x=%a y=%a: sin %a cos %a frexp %a %g modf %a %a remquo %a %g; host remquo %a %d\n", x[i], y[i],
                   r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], rq, q);
        bad += b2;
        /* lgamma_r: the value as lgamma's bound above; the sign of Gamma(x) where it has one */
        double lw = lgamma(x[i]);
        int lbad = ulps_off(r[8], lw) > 16 && !(fabs((double)r[8] - lw) <= 0x1p-20);
        if (isfinite(x[i]) && !(x[i] <= 0 && rintf(x[i]) == x[i]))
            lbad |= r[9] != (signbit(tgamma(x[i])) ? -1.0f : 1.0f);
        if (lbad) printf("  x=%a: lgamma_r %a sign %g; host lgamma %a\n", x[i], r[8], r[9], lw);
        bad += lbad;
    }
    if (bad) printf("  FAIL sincos/frexp/modf/remquo/lgamma_r: %d mismatches\n", bad);
    else NOTE("sincos (worst %.2f ulps), frexp, modf, remquo (exact), lgamma_r through private pointers", worst);
    CHECK(bad == 0);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseMemObject(PO);
    clReleaseMemObject(X); clReleaseMemObject(Y); clReleaseMemObject(O);
}

int main(int argc, char **argv)
{
    static const struct { const char *name; void (*fn)(void); } cases[] = {
        {"vadd", t_vadd}, {"ndrange", t_ndrange}, {"local_reduce", t_local_reduce}, {"divergent", t_divergent},
        {"scalars", t_scalars}, {"fault", t_fault}, {"build_errors", t_build_errors},
        {"compile_link", t_compile_link}, {"binaries", t_binaries}, {"bad_args", t_bad_args},
        {"atomics", t_atomics}, {"vector_args", t_vector_args},
        {"cts_basics", t_cts_basics}, {"math", t_math}};
    setvbuf(stdout, NULL, _IONBF, 0);   /* each line as it comes, also when a case hangs */
    if (argc != 2) { printf("usage: %s <case>\n", argv[0]); return 2; }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[1], cases[i].name) == 0) {
            setup();
            printf("%s:\n", argv[1]);
            cases[i].fn();
            printf("%s: %d checks, %d failed\n", argv[1], checks, fails);
            return fails ? 1 : 0;
        }
    printf("unknown case %s\n", argv[1]);
    return 2;
}
