/*
 * The same OpenCL C kernels on vmgpu and on PoCL (Debian pocl-opencl-icd, the second opinion
 * docs/opencl.md names), through one ICD loader; their outputs must be bit-identical.
 * Exit 77 when the loader lists no PoCL platform or vmgpu has no compiler.
 * Every kernel is (__global const uint *in, __global uint *out), in[] the same random words.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 192
#define OUT_WORDS 8

static const char *k_src =
    "__kernel void intmath(__global const uint *in, __global uint *out) {\n"
    "  size_t i = get_global_id(0); uint a = in[i], b = in[(i * 7 + 3) % get_global_size(0)];\n"
    "  int sa = (int)a, sb = (int)b;\n"
    "  __global uint *o = out + 8 * i;\n"
    "  o[0] = mul_hi(a, b) ^ (uint)mul_hi(sa, sb); o[1] = rotate(a, b) + clz(a) + popcount(b);\n"
    "  o[2] = add_sat(sa, sb) ^ (uint)sub_sat(sa, sb) ^ add_sat(a, b) ^ sub_sat(a, b);\n"
    "  o[3] = abs_diff(sa, sb) + abs(sa) + hadd(a, b) + rhadd(sa, sb);\n"
    "  o[4] = (uint)clamp(sa, -1000, 1000000) + max(a, b) - min(sa, sb) + mad24(sa, 3, sb);\n"
    "  ulong w = upsample(a, b); long s = (long)upsample(sa, b);\n"
    "  o[5] = (uint)(w / (b | 1)) ^ (uint)(w % (a | 1)); o[6] = (uint)(s / (long)(sb | 1)) + (uint)(s % (long)(sa | 1));\n"
    "  o[7] = (a / (b | 1)) ^ (uint)(sa / (sb | 1)) ^ (uint)(sa % (sb | 1)) ^ (a % (b | 1));\n"
    "}\n"
    "__kernel void reduce(__global const uint *in, __global uint *out) {\n"
    "  __local uint part[16];\n"
    "  uint t = get_local_id(0);\n"
    "  part[t] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
    "    if (t < s) part[t] = part[t] * 31u + part[t + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  __global uint *o = out + 8 * get_global_id(0);\n"
    "  for (int k = 0; k < 8; k++) o[k] = part[k] + t;\n"
    "}\n"
    "__kernel void collatz(__global const uint *in, __global uint *out) {\n"
    "  size_t i = get_global_id(0); uint x = (in[i] & 0xffff) + 1, s = 0, mx = x;\n"
    "  while (x != 1) { x = (x & 1) ? 3 * x + 1 : x >> 1; s++; mx = max(mx, x); }\n"
    "  __global uint *o = out + 8 * i;\n"
    "  o[0] = s; o[1] = mx; for (int k = 2; k < 8; k++) o[k] = s * k ^ mx;\n"
    "}\n"
    "__kernel void ids2d(__global const uint *in, __global uint *out) {\n"
    "  size_t x = get_global_id(0), y = get_global_id(1), w = get_global_size(0);\n"
    "  size_t i = (y - get_global_offset(1)) * w + (x - get_global_offset(0));\n"
    "  __global uint *o = out + 8 * i;\n"
    "  o[0] = x; o[1] = y; o[2] = get_local_id(0); o[3] = get_local_id(1);\n"
    "  o[4] = get_group_id(0) + 100 * get_group_id(1); o[5] = get_num_groups(0) * get_num_groups(1);\n"
    "  o[6] = get_work_dim(); o[7] = in[i] ^ (uint)(x * y);\n"
    "}\n";

typedef struct {
    cl_platform_id pl;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    cl_program prog;
} plat;

static int open_plat(plat *p, const char *want)
{
    cl_platform_id pls[16];
    cl_uint n = 0;
    clGetPlatformIDs(16, pls, &n);
    for (cl_uint i = 0; i < n; i++) {
        char name[128] = "";
        clGetPlatformInfo(pls[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strstr(name, want)) p->pl = pls[i];
    }
    if (!p->pl || clGetDeviceIDs(p->pl, CL_DEVICE_TYPE_ALL, 1, &p->dev, NULL)) return -1;
    cl_bool comp = CL_FALSE;
    clGetDeviceInfo(p->dev, CL_DEVICE_COMPILER_AVAILABLE, sizeof comp, &comp, NULL);
    if (!comp) return -1;
    cl_int err;
    p->ctx = clCreateContext(NULL, 1, &p->dev, NULL, NULL, &err);
    p->q = clCreateCommandQueue(p->ctx, p->dev, 0, &err);
    p->prog = clCreateProgramWithSource(p->ctx, 1, &k_src, NULL, &err);
    if (clBuildProgram(p->prog, 1, &p->dev, "-cl-std=CL1.2", NULL, NULL)) {
        char log[8192] = "";
        clGetProgramBuildInfo(p->prog, p->dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        printf("FAIL: build on %s:\n%s\n", want, log);
        exit(1);
    }
    return 0;
}

static int run(plat *p, const char *kname, cl_uint dim, const size_t *off, const size_t *g, const size_t *l,
               const uint32_t *in, uint32_t *out)
{
    cl_int err;
    cl_kernel k = clCreateKernel(p->prog, kname, &err);
    cl_mem I = clCreateBuffer(p->ctx, CL_MEM_COPY_HOST_PTR, N * 4, (void *)in, &err);
    cl_mem O = clCreateBuffer(p->ctx, CL_MEM_READ_WRITE, N * OUT_WORDS * 4, NULL, &err);
    clSetKernelArg(k, 0, sizeof I, &I);
    clSetKernelArg(k, 1, sizeof O, &O);
    err = clEnqueueNDRangeKernel(p->q, k, dim, off, g, l, 0, NULL, NULL);
    if (!err) err = clEnqueueReadBuffer(p->q, O, CL_TRUE, 0, N * OUT_WORDS * 4, out, 0, NULL, NULL);
    clReleaseMemObject(I);
    clReleaseMemObject(O);
    clReleaseKernel(k);
    return err;
}

int main(void)
{
    plat v = {0}, pc = {0};
    if (open_plat(&v, "vmgpu")) { printf("SKIP: vmgpu has no compiler\n"); return 77; }
    if (open_plat(&pc, "Portable Computing Language")) { printf("SKIP: no PoCL platform\n"); return 77; }
    uint32_t in[N], a[N * OUT_WORDS], b[N * OUT_WORDS];
    uint32_t x = 12345;
    for (int i = 0; i < N; i++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        in[i] = i % 5 == 0 ? 0x80000000u + (uint32_t)i : i % 7 == 0 ? 0xffffffffu - (uint32_t)i : x;
    }
    static const struct { const char *k; cl_uint dim; size_t off[2], g[2], l[2]; } cases[] = {
        {"intmath", 1, {0, 0}, {N, 1}, {16, 1}}, {"reduce", 1, {0, 0}, {N, 1}, {16, 1}},
        {"collatz", 1, {0, 0}, {N, 1}, {8, 1}}, {"ids2d", 2, {3, 5}, {16, 12}, {4, 2}}};
    int fails = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        memset(a, 0, sizeof a);
        memset(b, 0xee, sizeof b);
        int ea = run(&v, cases[c].k, cases[c].dim, cases[c].off, cases[c].g, cases[c].l, in, a);
        int eb = run(&pc, cases[c].k, cases[c].dim, cases[c].off, cases[c].g, cases[c].l, in, b);
        int diff = 0, first = -1;
        for (int i = 0; i < N * OUT_WORDS; i++)
            if (a[i] != b[i]) { diff++; if (first < 0) first = i; }
        printf("%-8s vmgpu %d, PoCL %d: %d of %d words differ", cases[c].k, ea, eb, diff, N * OUT_WORDS);
        if (first >= 0) printf(" (first: word %d, vmgpu 0x%08x, PoCL 0x%08x)", first, a[first], b[first]);
        printf("\n");
        fails += ea || eb || diff;
    }
    printf("%s\n", fails ? "FAIL" : "all bit-identical");
    return fails ? 1 : 0;
}
