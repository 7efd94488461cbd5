/*
 * OpenCL tests: C programs linked against the system's ICD loader (-lOpenCL), reaching
 * vmgpu's ICD through OCL_ICD_VENDORS (ctest points it at the build tree's vendors dir).
 * One executable, one ctest test per case: `vmgpu_cl_tests <case>`. Each case prints what it
 * checked and exits nonzero on any failure.
 */
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Finds the vmgpu platform among whatever the loader lists. */
static void setup(int profiling)
{
    cl_platform_id pls[16];
    cl_uint n = 0;
    if (clGetPlatformIDs(16, pls, &n) != CL_SUCCESS || n == 0) {
        printf("FAIL: no OpenCL platform (OCL_ICD_VENDORS=%s)\n", getenv("OCL_ICD_VENDORS"));
        exit(1);
    }
    for (cl_uint i = 0; i < n; i++) {
        char name[64] = "";
        clGetPlatformInfo(pls[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strcmp(name, "vmgpu") == 0) g_pl = pls[i];
    }
    if (!g_pl) {
        printf("FAIL: the loader does not list the vmgpu platform\n");
        exit(1);
    }
    if (clGetDeviceIDs(g_pl, CL_DEVICE_TYPE_ALL, 1, &g_dev, NULL) != CL_SUCCESS) {
        printf("FAIL: vmgpu has no device\n");
        exit(1);
    }
    cl_int err;
    g_ctx = clCreateContext(NULL, 1, &g_dev, NULL, NULL, &err);
    if (err) { printf("FAIL: clCreateContext %d\n", err); exit(1); }
    g_q = clCreateCommandQueue(g_ctx, g_dev, profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
    if (err) { printf("FAIL: clCreateCommandQueue %d\n", err); exit(1); }
}

static void teardown(void)
{
    OK(clFinish(g_q));
    OK(clReleaseCommandQueue(g_q));
    OK(clReleaseContext(g_ctx));
}

static cl_mem buf(cl_mem_flags f, size_t size, void *host)
{
    cl_int err;
    cl_mem m = clCreateBuffer(g_ctx, f, size, host, &err);
    if (err) { printf("  FAIL: clCreateBuffer(0x%llx, %zu) -> %d\n", (unsigned long long)f, size, err); fails++; }
    return m;
}

static void *page_alloc(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, n)) abort();
    return p;
}

/* ---------------------------------------------------------------- cases */

static void t_platform(void)
{
    setup(0);
    char s[512];
    OK(clGetPlatformInfo(g_pl, CL_PLATFORM_PROFILE, sizeof s, s, NULL));
    CHECK(strcmp(s, "EMBEDDED_PROFILE") == 0);
    OK(clGetPlatformInfo(g_pl, CL_PLATFORM_VERSION, sizeof s, s, NULL));
    CHECK(strncmp(s, "OpenCL 1.2 ", 11) == 0);
    OK(clGetPlatformInfo(g_pl, CL_PLATFORM_EXTENSIONS, sizeof s, s, NULL));
    CHECK(strstr(s, "cl_khr_icd") != NULL);
    OK(clGetPlatformInfo(g_pl, CL_PLATFORM_ICD_SUFFIX_KHR, sizeof s, s, NULL));
    CHECK(strcmp(s, "VMGPU") == 0);
    size_t sz;
    OK(clGetPlatformInfo(g_pl, CL_PLATFORM_NAME, 0, NULL, &sz));
    CHECK(sz == 6);
    RC(clGetPlatformInfo(g_pl, CL_PLATFORM_NAME, 3, s, NULL), CL_INVALID_VALUE);
    RC(clGetPlatformInfo(g_pl, 0x12345, sizeof s, s, NULL), CL_INVALID_VALUE);

    cl_device_id d;
    cl_uint nd;
    OK(clGetDeviceIDs(g_pl, CL_DEVICE_TYPE_ACCELERATOR, 1, &d, &nd));
    CHECK(d == g_dev && nd == 1);
    OK(clGetDeviceIDs(g_pl, CL_DEVICE_TYPE_DEFAULT, 1, &d, NULL));
    RC(clGetDeviceIDs(g_pl, CL_DEVICE_TYPE_GPU, 1, &d, &nd), CL_DEVICE_NOT_FOUND);
    RC(clGetDeviceIDs(g_pl, CL_DEVICE_TYPE_CPU, 1, &d, &nd), CL_DEVICE_NOT_FOUND);
    RC(clGetDeviceIDs(g_pl, 0, 1, &d, &nd), CL_INVALID_DEVICE_TYPE);
    RC(clGetDeviceIDs(g_pl, CL_DEVICE_TYPE_ALL, 0, &d, &nd), CL_INVALID_VALUE);
    RC(clGetDeviceIDs(g_pl, CL_DEVICE_TYPE_ALL, 1, NULL, NULL), CL_INVALID_VALUE);

    cl_device_type t;
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_TYPE, sizeof t, &t, NULL));
    CHECK(t == CL_DEVICE_TYPE_ACCELERATOR);
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_PROFILE, sizeof s, s, NULL));
    CHECK(strcmp(s, "EMBEDDED_PROFILE") == 0);
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_BUILT_IN_KERNELS, sizeof s, s, NULL));
    CHECK(strcmp(s, "vmgpu_fill_i32;vmgpu_copy_i32;vmgpu_add_i32;vmgpu_scale_i32;vmgpu_axpy_i32;"
                    "vmgpu_reduce_sum_i32") == 0);
    cl_bool b;
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_IMAGE_SUPPORT, sizeof b, &b, NULL));
    CHECK(b == CL_TRUE);
    /* Without clang the device has no compiler (OpenCL C itself: opencl_c_* tests). */
    setenv("VMGPU_CL_CLANG", "/nonexistent/clang-14", 1);
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_COMPILER_AVAILABLE, sizeof b, &b, NULL));
    CHECK(b == CL_FALSE);
    unsetenv("VMGPU_CL_CLANG");
    cl_uint u;
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof u, &u, NULL));
    CHECK(u == 1024);
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof u, &u, NULL));
    CHECK(u == 50);
    size_t res;
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_PROFILING_TIMER_RESOLUTION, sizeof res, &res, NULL));
    CHECK(res == 20);
    cl_ulong gm, ma;
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof gm, &gm, NULL));
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof ma, &ma, NULL));
    CHECK(gm > 0 && ma <= gm && (ma >= gm / 4 || ma >= (1u << 20)));
    cl_platform_id p2;
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_PLATFORM, sizeof p2, &p2, NULL));
    CHECK(p2 == g_pl);
    cl_command_queue_properties qp;
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof qp, &qp, NULL));
    CHECK(qp == CL_QUEUE_PROFILING_ENABLE);
    RC(clGetDeviceInfo(g_dev, 0x7777, sizeof u, &u, NULL), CL_INVALID_VALUE);
    RC(clGetDeviceInfo(g_dev, CL_DEVICE_NAME, 1, s, NULL), CL_INVALID_VALUE);
    /* Every 1.2 query answers. */
    static const cl_device_info all[] = {
        CL_DEVICE_TYPE, CL_DEVICE_VENDOR_ID, CL_DEVICE_MAX_COMPUTE_UNITS,
        CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, CL_DEVICE_MAX_WORK_GROUP_SIZE, CL_DEVICE_MAX_WORK_ITEM_SIZES,
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT,
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG,
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE,
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR,
        CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, CL_DEVICE_NATIVE_VECTOR_WIDTH_INT,
        CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT,
        CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF,
        CL_DEVICE_MAX_CLOCK_FREQUENCY, CL_DEVICE_ADDRESS_BITS, CL_DEVICE_MAX_MEM_ALLOC_SIZE,
        CL_DEVICE_IMAGE_SUPPORT, CL_DEVICE_MAX_READ_IMAGE_ARGS, CL_DEVICE_MAX_WRITE_IMAGE_ARGS,
        CL_DEVICE_IMAGE2D_MAX_WIDTH, CL_DEVICE_IMAGE2D_MAX_HEIGHT, CL_DEVICE_IMAGE3D_MAX_WIDTH,
        CL_DEVICE_IMAGE3D_MAX_HEIGHT, CL_DEVICE_IMAGE3D_MAX_DEPTH, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE,
        CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, CL_DEVICE_MAX_SAMPLERS, CL_DEVICE_MAX_PARAMETER_SIZE,
        CL_DEVICE_MEM_BASE_ADDR_ALIGN, CL_DEVICE_SINGLE_FP_CONFIG, CL_DEVICE_DOUBLE_FP_CONFIG,
        CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE,
        CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, CL_DEVICE_GLOBAL_MEM_SIZE, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE,
        CL_DEVICE_MAX_CONSTANT_ARGS, CL_DEVICE_LOCAL_MEM_TYPE, CL_DEVICE_LOCAL_MEM_SIZE,
        CL_DEVICE_ERROR_CORRECTION_SUPPORT, CL_DEVICE_HOST_UNIFIED_MEMORY,
        CL_DEVICE_PROFILING_TIMER_RESOLUTION, CL_DEVICE_ENDIAN_LITTLE, CL_DEVICE_AVAILABLE,
        CL_DEVICE_COMPILER_AVAILABLE, CL_DEVICE_LINKER_AVAILABLE, CL_DEVICE_EXECUTION_CAPABILITIES,
        CL_DEVICE_QUEUE_PROPERTIES, CL_DEVICE_BUILT_IN_KERNELS, CL_DEVICE_PLATFORM, CL_DEVICE_NAME,
        CL_DEVICE_VENDOR, CL_DRIVER_VERSION, CL_DEVICE_PROFILE, CL_DEVICE_VERSION,
        CL_DEVICE_OPENCL_C_VERSION, CL_DEVICE_EXTENSIONS, CL_DEVICE_PRINTF_BUFFER_SIZE,
        CL_DEVICE_PREFERRED_INTEROP_USER_SYNC, CL_DEVICE_PARENT_DEVICE,
        CL_DEVICE_PARTITION_MAX_SUB_DEVICES, CL_DEVICE_PARTITION_PROPERTIES,
        CL_DEVICE_PARTITION_AFFINITY_DOMAIN, CL_DEVICE_PARTITION_TYPE, CL_DEVICE_REFERENCE_COUNT};
    int answered = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        size_t n = 0;
        cl_int rc = clGetDeviceInfo(g_dev, all[i], 0, NULL, &n);
        if (rc == CL_SUCCESS && n > 0) answered++;
        else printf("  FAIL: clGetDeviceInfo(0x%x) -> %d, size %zu\n", all[i], rc, n);
    }
    checks++;
    if (answered != (int)(sizeof all / sizeof all[0])) fails++;
    NOTE("%d device queries answered", answered);
    teardown();
}

static void CL_CALLBACK ctx_notify(const char *msg, const void *p, size_t n, void *user)
{
    (void)msg; (void)p; (void)n;
    (*(int *)user)++;
}

static void t_context(void)
{
    setup(0);
    cl_int err;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)g_pl, 0};
    int notes = 0;
    cl_context c = clCreateContext(props, 1, &g_dev, ctx_notify, &notes, &err);
    OK(err);
    cl_context_properties got[8];
    size_t sz;
    OK(clGetContextInfo(c, CL_CONTEXT_PROPERTIES, sizeof got, got, &sz));
    CHECK(sz == sizeof props && got[0] == CL_CONTEXT_PLATFORM && got[1] == (cl_context_properties)g_pl && got[2] == 0);
    cl_uint u;
    OK(clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES, sizeof u, &u, NULL));
    CHECK(u == 1);
    cl_device_id d;
    OK(clGetContextInfo(c, CL_CONTEXT_DEVICES, sizeof d, &d, NULL));
    CHECK(d == g_dev);
    OK(clRetainContext(c));
    OK(clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof u, &u, NULL));
    CHECK(u == 2);
    OK(clReleaseContext(c));
    OK(clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof u, &u, NULL));
    CHECK(u == 1);
    RC(clGetContextInfo(c, 0x9999, sizeof u, &u, NULL), CL_INVALID_VALUE);
    /* Errors. */
    cl_context_properties bad[] = {0x7777, 1, 0};
    CHECK(clCreateContext(bad, 1, &g_dev, NULL, NULL, &err) == NULL && err == CL_INVALID_PROPERTY);
    cl_context_properties dup[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)g_pl,
                                   CL_CONTEXT_PLATFORM, (cl_context_properties)g_pl, 0};
    CHECK(clCreateContext(dup, 1, &g_dev, NULL, NULL, &err) == NULL && err == CL_INVALID_PROPERTY);
    CHECK(clCreateContext(NULL, 0, &g_dev, NULL, NULL, &err) == NULL && err == CL_INVALID_VALUE);
    CHECK(clCreateContext(NULL, 1, NULL, NULL, NULL, &err) == NULL && err == CL_INVALID_VALUE);
    CHECK(clCreateContext(NULL, 1, &g_dev, NULL, &notes, &err) == NULL && err == CL_INVALID_VALUE);
    cl_device_id bogus = (cl_device_id)g_q;  /* a live object of another type */
    CHECK(clCreateContext(NULL, 1, &bogus, NULL, NULL, &err) == NULL && err == CL_INVALID_DEVICE);
    cl_context c2 = clCreateContextFromType(props, CL_DEVICE_TYPE_ACCELERATOR, NULL, NULL, &err);
    OK(err);
    OK(clReleaseContext(c2));
    CHECK(clCreateContextFromType(props, CL_DEVICE_TYPE_GPU, NULL, NULL, &err) == NULL && err == CL_DEVICE_NOT_FOUND);
    /* Queues. */
    cl_command_queue q = clCreateCommandQueue(c, g_dev, CL_QUEUE_PROFILING_ENABLE, &err);
    OK(err);
    cl_command_queue_properties qp;
    OK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof qp, &qp, NULL));
    CHECK(qp == CL_QUEUE_PROFILING_ENABLE);
    cl_context qc;
    OK(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qc, &qc, NULL));
    CHECK(qc == c);
    OK(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof d, &d, NULL));
    CHECK(d == g_dev);
    CHECK(clCreateCommandQueue(c, g_dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err) == NULL &&
          err == CL_INVALID_QUEUE_PROPERTIES);
    CHECK(clCreateCommandQueue(c, g_dev, 1u << 10, &err) == NULL && err == CL_INVALID_VALUE);
    CHECK(clCreateCommandQueue((cl_context)q, g_dev, 0, &err) == NULL && err == CL_INVALID_CONTEXT);
    /* The context lives while the queue does, even after its last release. */
    OK(clReleaseContext(c));
    OK(clFinish(q));
    OK(clReleaseCommandQueue(q));
    RC(clReleaseCommandQueue(q), CL_INVALID_COMMAND_QUEUE);
    RC(clRetainContext(c), CL_INVALID_CONTEXT);
    RC(clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES, sizeof u, &u, NULL), CL_INVALID_CONTEXT);
    teardown();
}

static void t_buffer_flags(void)
{
    setup(0);
    cl_int err;
    int host[256];
    for (int i = 0; i < 256; i++) host[i] = i * 3;
    /* Bad flag combinations, sizes, host pointers. */
    CHECK(clCreateBuffer(g_ctx, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, NULL, &err) == NULL && err == CL_INVALID_VALUE);
    CHECK(clCreateBuffer(g_ctx, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, NULL, &err) == NULL && err == CL_INVALID_VALUE);
    CHECK(clCreateBuffer(g_ctx, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, 64, host, &err) == NULL && err == CL_INVALID_VALUE);
    CHECK(clCreateBuffer(g_ctx, CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, 64, host, &err) == NULL && err == CL_INVALID_VALUE);
    CHECK(clCreateBuffer(g_ctx, CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS, 64, NULL, &err) == NULL && err == CL_INVALID_VALUE);
    CHECK(clCreateBuffer(g_ctx, (cl_mem_flags)1 << 40, 64, NULL, &err) == NULL && err == CL_INVALID_VALUE);
    CHECK(clCreateBuffer(g_ctx, 0, 0, NULL, &err) == NULL && err == CL_INVALID_BUFFER_SIZE);
    cl_ulong ma;
    clGetDeviceInfo(g_dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof ma, &ma, NULL);
    CHECK(clCreateBuffer(g_ctx, 0, (size_t)ma + 1, NULL, &err) == NULL && err == CL_INVALID_BUFFER_SIZE);
    CHECK(clCreateBuffer(g_ctx, CL_MEM_USE_HOST_PTR, 64, NULL, &err) == NULL && err == CL_INVALID_HOST_PTR);
    CHECK(clCreateBuffer(g_ctx, CL_MEM_COPY_HOST_PTR, 64, NULL, &err) == NULL && err == CL_INVALID_HOST_PTR);
    CHECK(clCreateBuffer(g_ctx, 0, 64, host, &err) == NULL && err == CL_INVALID_HOST_PTR);
    CHECK(clCreateBuffer((cl_context)g_q, 0, 64, NULL, &err) == NULL && err == CL_INVALID_CONTEXT);

    /* Every access flag gives a working buffer; COPY_HOST_PTR copies. */
    static const cl_mem_flags ok_flags[] = {
        0, CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY, CL_MEM_COPY_HOST_PTR,
        CL_MEM_ALLOC_HOST_PTR, CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR, CL_MEM_USE_HOST_PTR,
        CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, CL_MEM_WRITE_ONLY | CL_MEM_USE_HOST_PTR};
    for (size_t i = 0; i < sizeof ok_flags / sizeof ok_flags[0]; i++) {
        cl_mem_flags f = ok_flags[i];
        int *hp = (f & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) ? malloc(sizeof host) : NULL;
        if (hp) memcpy(hp, host, sizeof host);
        cl_mem m = buf(f, sizeof host, hp);
        int back[256];
        memset(back, 0xee, sizeof back);
        if (f & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) {
            OK(clEnqueueReadBuffer(g_q, m, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL));
            CHECK(memcmp(back, host, sizeof host) == 0);
        }
        int v[4] = {1, 2, 3, 4};
        OK(clEnqueueWriteBuffer(g_q, m, CL_TRUE, 64, sizeof v, v, 0, NULL, NULL));
        OK(clEnqueueReadBuffer(g_q, m, CL_TRUE, 64, sizeof v, back, 0, NULL, NULL));
        CHECK(memcmp(back, v, sizeof v) == 0);
        if (f & CL_MEM_USE_HOST_PTR) CHECK(hp[16] == 1 && hp[19] == 4);  /* the user's memory itself */
        cl_mem_flags gf;
        size_t sz;
        void *hpp;
        OK(clGetMemObjectInfo(m, CL_MEM_FLAGS, sizeof gf, &gf, NULL));
        CHECK(gf == f);
        OK(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof sz, &sz, NULL));
        CHECK(sz == sizeof host);
        OK(clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof hpp, &hpp, NULL));
        CHECK(hpp == ((f & CL_MEM_USE_HOST_PTR) ? (void *)hp : NULL));
        OK(clReleaseMemObject(m));
        free(hp);
    }
    /* HOST_* flags: the host may not do what they forbid. */
    int v = 5;
    cl_mem wo = buf(CL_MEM_HOST_WRITE_ONLY, 64, NULL);
    cl_mem ro = buf(CL_MEM_HOST_READ_ONLY, 64, NULL);
    cl_mem na = buf(CL_MEM_HOST_NO_ACCESS, 64, NULL);
    OK(clEnqueueWriteBuffer(g_q, wo, CL_TRUE, 0, 4, &v, 0, NULL, NULL));
    RC(clEnqueueReadBuffer(g_q, wo, CL_TRUE, 0, 4, &v, 0, NULL, NULL), CL_INVALID_OPERATION);
    OK(clEnqueueReadBuffer(g_q, ro, CL_TRUE, 0, 4, &v, 0, NULL, NULL));
    RC(clEnqueueWriteBuffer(g_q, ro, CL_TRUE, 0, 4, &v, 0, NULL, NULL), CL_INVALID_OPERATION);
    RC(clEnqueueWriteBuffer(g_q, na, CL_TRUE, 0, 4, &v, 0, NULL, NULL), CL_INVALID_OPERATION);
    RC(clEnqueueReadBuffer(g_q, na, CL_TRUE, 0, 4, &v, 0, NULL, NULL), CL_INVALID_OPERATION);
    /* Device-side commands stay allowed. */
    v = 5;
    OK(clEnqueueFillBuffer(g_q, na, &v, 4, 0, 64, 0, NULL, NULL));
    OK(clEnqueueCopyBuffer(g_q, na, ro, 0, 0, 64, 0, NULL, NULL));
    int r[16];
    OK(clEnqueueReadBuffer(g_q, ro, CL_TRUE, 0, 64, r, 0, NULL, NULL));
    CHECK(r[0] == 5 && r[15] == 5);
    OK(clReleaseMemObject(wo));
    OK(clReleaseMemObject(ro));
    OK(clReleaseMemObject(na));
    /* Two USE_HOST_PTR buffers sharing pages of one allocation are both zero copy. */
    int *big = page_alloc(3 * 4096);
    for (int i = 0; i < 3 * 1024; i++) big[i] = i;
    cl_mem a = buf(CL_MEM_USE_HOST_PTR, 4096, big + 100);
    cl_mem b = buf(CL_MEM_USE_HOST_PTR, 4096, big + 900);
    OK(clEnqueueCopyBuffer(g_q, a, b, 0, 0, 400, 0, NULL, NULL));
    OK(clFinish(g_q));
    CHECK(big[900] == 100 && big[999] == 199 && big[1000] == 1000);
    OK(clReleaseMemObject(a));
    OK(clReleaseMemObject(b));
    free(big);
    teardown();
}

static int g_dtor_order[4], g_dtor_n;
static void CL_CALLBACK dtor_cb(cl_mem m, void *user)
{
    (void)m;
    g_dtor_order[g_dtor_n++] = (int)(intptr_t)user;
}

static void t_sub_buffers(void)
{
    setup(0);
    cl_int err;
    int data[1024];
    for (int i = 0; i < 1024; i++) data[i] = i;
    cl_mem m = buf(CL_MEM_COPY_HOST_PTR, sizeof data, data);
    cl_buffer_region r = {256, 512};
    cl_mem s = clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    OK(err);
    int back[128];
    OK(clEnqueueReadBuffer(g_q, s, CL_TRUE, 0, 512, back, 0, NULL, NULL));
    CHECK(back[0] == 64 && back[127] == 191);
    cl_mem assoc;
    size_t off;
    OK(clGetMemObjectInfo(s, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc, &assoc, NULL));
    OK(clGetMemObjectInfo(s, CL_MEM_OFFSET, sizeof off, &off, NULL));
    CHECK(assoc == m && off == 256);
    cl_mem_flags f;
    OK(clGetMemObjectInfo(s, CL_MEM_FLAGS, sizeof f, &f, NULL));
    CHECK(f & CL_MEM_COPY_HOST_PTR);
    /* Base alignment: CL_DEVICE_MEM_BASE_ADDR_ALIGN is 1024 bits = 128 bytes. */
    cl_buffer_region mis = {64, 64};
    CHECK(clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &mis, &err) == NULL && err == CL_MISALIGNED_SUB_BUFFER_OFFSET);
    cl_buffer_region oob = {3968, 256};
    CHECK(clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &oob, &err) == NULL && err == CL_INVALID_VALUE);
    cl_buffer_region zero = {128, 0};
    CHECK(clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &zero, &err) == NULL && err == CL_INVALID_BUFFER_SIZE);
    CHECK(clCreateSubBuffer(m, 0, 0x1234, &r, &err) == NULL && err == CL_INVALID_VALUE);
    CHECK(clCreateSubBuffer(s, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err) == NULL && err == CL_INVALID_MEM_OBJECT);
    CHECK(clCreateSubBuffer(m, CL_MEM_USE_HOST_PTR, CL_BUFFER_CREATE_TYPE_REGION, &r, &err) == NULL && err == CL_INVALID_VALUE);
    cl_mem wo = buf(CL_MEM_WRITE_ONLY, 4096, NULL);
    CHECK(clCreateSubBuffer(wo, CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &r, &err) == NULL && err == CL_INVALID_VALUE);
    cl_mem nah = buf(CL_MEM_HOST_NO_ACCESS, 4096, NULL);
    CHECK(clCreateSubBuffer(nah, CL_MEM_HOST_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &r, &err) == NULL && err == CL_INVALID_VALUE);
    cl_mem nas = clCreateSubBuffer(nah, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    OK(err);
    RC(clEnqueueReadBuffer(g_q, nas, CL_TRUE, 0, 4, back, 0, NULL, NULL), CL_INVALID_OPERATION);
    OK(clReleaseMemObject(nas));
    OK(clReleaseMemObject(nah));
    OK(clReleaseMemObject(wo));
    /* Writes through the sub-buffer land in the parent. */
    int v[2] = {-1, -2};
    OK(clEnqueueWriteBuffer(g_q, s, CL_TRUE, 8, sizeof v, v, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, m, CL_TRUE, 256 + 8, sizeof v, back, 0, NULL, NULL));
    CHECK(back[0] == -1 && back[1] == -2);
    /* USE_HOST_PTR sub-buffer: host ptr is parent's + origin. */
    int *hp = page_alloc(4096);
    cl_mem u = buf(CL_MEM_USE_HOST_PTR, 4096, hp);
    cl_mem us = clCreateSubBuffer(u, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    void *p;
    OK(clGetMemObjectInfo(us, CL_MEM_HOST_PTR, sizeof p, &p, NULL));
    CHECK(p == (char *)hp + 256);
    OK(clReleaseMemObject(us));
    OK(clReleaseMemObject(u));
    free(hp);
    /* Destructor callbacks run in reverse order, when the parent is really gone (the
     * sub-buffer holds it). Reference counts. */
    OK(clSetMemObjectDestructorCallback(m, dtor_cb, (void *)1));
    OK(clSetMemObjectDestructorCallback(m, dtor_cb, (void *)2));
    RC(clSetMemObjectDestructorCallback(m, NULL, NULL), CL_INVALID_VALUE);
    cl_uint rc;
    OK(clRetainMemObject(m));
    OK(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof rc, &rc, NULL));
    CHECK(rc == 2);
    OK(clReleaseMemObject(m));
    OK(clReleaseMemObject(m));
    CHECK(g_dtor_n == 0);  /* the sub-buffer keeps it */
    OK(clReleaseMemObject(s));
    CHECK(g_dtor_n == 2 && g_dtor_order[0] == 2 && g_dtor_order[1] == 1);
    RC(clReleaseMemObject(m), CL_INVALID_MEM_OBJECT);
    RC(clRetainMemObject(s), CL_INVALID_MEM_OBJECT);
    RC(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof off, &off, NULL), CL_INVALID_MEM_OBJECT);
    teardown();
}

/* Map/unmap on one buffer of the given kind: data both ways, map count, pointer rules. */
static void map_round_trip(cl_mem_flags f, const char *what)
{
    const size_t n = 2048;
    int *hp = NULL;
    if (f & CL_MEM_USE_HOST_PTR) {
        hp = page_alloc(n * 4 + 4096);
        hp += 3;  /* deliberately not page aligned */
        for (size_t i = 0; i < n; i++) hp[i] = (int)i;
    }
    cl_mem m = buf(f, n * 4, hp);
    cl_int err;
    if (!hp) {
        int *init = malloc(n * 4);
        for (size_t i = 0; i < n; i++) init[i] = (int)i;
        OK(clEnqueueWriteBuffer(g_q, m, CL_TRUE, 0, n * 4, init, 0, NULL, NULL));
        free(init);
    }
    /* Blocking read map. */
    int *p = clEnqueueMapBuffer(g_q, m, CL_TRUE, CL_MAP_READ, 400, 800, 0, NULL, NULL, &err);
    OK(err);
    CHECK(p && p[0] == 100 && p[199] == 299);
    if (hp) CHECK(p == hp + 100);  /* USE_HOST_PTR: host_ptr + offset */
    /* A second, overlapping read map. */
    cl_event ev;
    int *p2 = clEnqueueMapBuffer(g_q, m, CL_FALSE, CL_MAP_READ, 0, 1024, 0, NULL, &ev, &err);
    OK(err);
    OK(clWaitForEvents(1, &ev));
    cl_command_type ct;
    OK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof ct, &ct, NULL));
    CHECK(ct == CL_COMMAND_MAP_BUFFER);
    OK(clReleaseEvent(ev));
    CHECK(p2 && p2[100] == 100 && p2[255] == 255);
    cl_uint mc;
    OK(clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof mc, &mc, NULL));
    CHECK(mc == 2);
    OK(clEnqueueUnmapMemObject(g_q, m, p, 0, NULL, NULL));
    OK(clEnqueueUnmapMemObject(g_q, m, p2, 0, NULL, NULL));
    OK(clFinish(g_q));
    OK(clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof mc, &mc, NULL));
    CHECK(mc == 0);
    RC(clEnqueueUnmapMemObject(g_q, m, p, 0, NULL, NULL), CL_INVALID_VALUE);  /* already unmapped */
    /* Write map: existing contents are there, writes reach the buffer at unmap. */
    int *w = clEnqueueMapBuffer(g_q, m, CL_TRUE, CL_MAP_WRITE, 4096, 4096, 0, NULL, NULL, &err);
    OK(err);
    CHECK(w && w[0] == 1024 && w[1023] == 2047);
    for (int i = 0; i < 1024; i++) w[i] = -i;
    OK(clEnqueueUnmapMemObject(g_q, m, w, 0, NULL, NULL));
    int back[1024];
    OK(clEnqueueReadBuffer(g_q, m, CL_TRUE, 4096, 4096, back, 0, NULL, NULL));
    CHECK(back[0] == 0 && back[5] == -5 && back[1023] == -1023);
    /* Invalidate map: no read-back (device buffers show stale staging data, never the
     * buffer's new contents), the written bytes land in the buffer. */
    int fillv = 77;
    OK(clEnqueueFillBuffer(g_q, m, &fillv, 4, 0, 1024, 0, NULL, NULL));
    int *iv = clEnqueueMapBuffer(g_q, m, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, 1024, 0, NULL, NULL, &err);
    OK(err);
    if (!(f & (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR))) CHECK(iv[0] != 77);  /* no read-back */
    for (int i = 0; i < 256; i++) iv[i] = 1000 + i;
    OK(clEnqueueUnmapMemObject(g_q, m, iv, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, m, CL_TRUE, 0, 1024, back, 0, NULL, NULL));
    CHECK(back[0] == 1000 && back[255] == 1255);
    OK(clReleaseMemObject(m));
    if (hp) free(hp - 3);
    NOTE("map/unmap round trip on %s buffer", what);
}

static void t_map_device(void)
{
    setup(0);
    map_round_trip(0, "device");
    map_round_trip(CL_MEM_READ_ONLY, "read-only device");
    teardown();
}

static void t_map_zero_copy(void)
{
    setup(0);
    map_round_trip(CL_MEM_USE_HOST_PTR, "USE_HOST_PTR");
    map_round_trip(CL_MEM_ALLOC_HOST_PTR, "ALLOC_HOST_PTR");
    /* True zero copy: the device works on the user's memory in place; the map pointer is it. */
    int *hp = page_alloc(4096);
    for (int i = 0; i < 1024; i++) hp[i] = i;
    cl_mem m = buf(CL_MEM_USE_HOST_PTR, 4096, hp);
    int pat = 0x5a5a5a5a;
    OK(clEnqueueFillBuffer(g_q, m, &pat, 4, 2048, 2048, 0, NULL, NULL));
    OK(clFinish(g_q));
    CHECK(hp[511] == 511 && hp[512] == 0x5a5a5a5a && hp[1023] == 0x5a5a5a5a);
    hp[0] = 4242;  /* written by the host behind the buffer's back: the device sees it */
    cl_mem d = buf(0, 4096, NULL);
    OK(clEnqueueCopyBuffer(g_q, m, d, 0, 0, 16, 0, NULL, NULL));
    int back[4];
    OK(clEnqueueReadBuffer(g_q, d, CL_TRUE, 0, 16, back, 0, NULL, NULL));
    CHECK(back[0] == 4242 && back[3] == 3);
    cl_int err;
    void *p = clEnqueueMapBuffer(g_q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 12, 4, 0, NULL, NULL, &err);
    CHECK(p == (char *)hp + 12);
    OK(clEnqueueUnmapMemObject(g_q, m, p, 0, NULL, NULL));
    OK(clReleaseMemObject(d));
    OK(clReleaseMemObject(m));
    free(hp);
    teardown();
}

static void CL_CALLBACK ev_cb(cl_event e, cl_int status, void *user)
{
    (void)e;
    int *log = user;
    log[log[0] + 1] = status;
    log[0]++;
}

static void t_map_events(void)
{
    setup(0);
    cl_int err;
    cl_mem m = buf(0, 4096, NULL);
    int v[4] = {9, 8, 7, 6};
    OK(clEnqueueWriteBuffer(g_q, m, CL_TRUE, 0, 16, v, 0, NULL, NULL));
    /* Non-blocking map behind a user event: nothing happens until it is set. */
    cl_event ue = clCreateUserEvent(g_ctx, &err);
    OK(err);
    cl_event mev;
    int *p = clEnqueueMapBuffer(g_q, m, CL_FALSE, CL_MAP_READ, 0, 16, 1, &ue, &mev, &err);
    OK(err);
    CHECK(p != NULL);
    int log[8] = {0};
    OK(clSetEventCallback(mev, CL_COMPLETE, ev_cb, log));
    cl_int st;
    OK(clGetEventInfo(mev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL));
    CHECK(st == CL_QUEUED);
    OK(clGetEventInfo(ue, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL));
    CHECK(st == CL_SUBMITTED);
    cl_uint mc;
    OK(clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof mc, &mc, NULL));
    CHECK(mc == 1);
    CHECK(log[0] == 0);
    OK(clSetUserEventStatus(ue, CL_COMPLETE));
    RC(clSetUserEventStatus(ue, CL_COMPLETE), CL_INVALID_OPERATION);
    OK(clWaitForEvents(1, &mev));
    CHECK(p[0] == 9 && p[3] == 6);
    CHECK(log[0] == 1 && log[1] == CL_COMPLETE);
    OK(clEnqueueUnmapMemObject(g_q, m, p, 0, NULL, NULL));
    OK(clReleaseEvent(mev));
    OK(clReleaseEvent(ue));
    /* A failed event in the wait list: blocking map returns the wait-list error, leaves no
     * mapping; a non-blocking one gives an event with a negative status. */
    cl_event bad = clCreateUserEvent(g_ctx, &err);
    OK(clSetUserEventStatus(bad, -42));
    p = clEnqueueMapBuffer(g_q, m, CL_TRUE, CL_MAP_READ, 0, 16, 1, &bad, NULL, &err);
    CHECK(p == NULL && err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    OK(clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof mc, &mc, NULL));
    CHECK(mc == 0);
    cl_event e2;
    p = clEnqueueMapBuffer(g_q, m, CL_FALSE, CL_MAP_READ, 0, 16, 1, &bad, &e2, &err);
    OK(err);
    RC(clWaitForEvents(1, &e2), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    OK(clGetEventInfo(e2, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL));
    CHECK(st < 0);
    OK(clReleaseEvent(e2));
    OK(clReleaseEvent(bad));
    /* Other thread sets the user event while this one blocks in a blocking map. */
    cl_event ue2 = clCreateUserEvent(g_ctx, &err);
    pthread_t th;
    void *setter(void *arg);
    pthread_create(&th, NULL, setter, ue2);
    p = clEnqueueMapBuffer(g_q, m, CL_TRUE, CL_MAP_READ, 4, 8, 1, &ue2, NULL, &err);
    OK(err);
    CHECK(p && p[0] == 8 && p[1] == 7);
    pthread_join(th, NULL);
    OK(clEnqueueUnmapMemObject(g_q, m, p, 0, NULL, NULL));
    OK(clReleaseEvent(ue2));
    OK(clReleaseMemObject(m));
    teardown();
}

void *setter(void *arg)
{
    usleep(20000);
    clSetUserEventStatus((cl_event)arg, CL_COMPLETE);
    return NULL;
}

static void t_map_errors(void)
{
    setup(0);
    cl_int err;
    cl_mem m = buf(0, 4096, NULL);
    cl_event ev = NULL;
    void *p;
#define MAPFAIL(q_, m_, flags, off, n, nw, wl, want) do { \
        err = 12345; \
        p = clEnqueueMapBuffer(q_, m_, CL_TRUE, flags, off, n, nw, wl, NULL, &err); \
        CHECK(p == NULL); RC(err, want); } while (0)
    MAPFAIL(g_q, m, CL_MAP_READ, 4000, 200, 0, NULL, CL_INVALID_VALUE);
    MAPFAIL(g_q, m, CL_MAP_READ, 0, 0, 0, NULL, CL_INVALID_VALUE);
    MAPFAIL(g_q, m, CL_MAP_READ, 4097, 1, 0, NULL, CL_INVALID_VALUE);
    MAPFAIL(g_q, m, (cl_map_flags)1 << 7, 0, 4, 0, NULL, CL_INVALID_VALUE);
    MAPFAIL(g_q, m, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, 0, 4, 0, NULL, CL_INVALID_VALUE);
    MAPFAIL(g_q, m, CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION, 0, 4, 0, NULL, CL_INVALID_VALUE);
    MAPFAIL(g_q, m, CL_MAP_READ, 0, 4, 1, NULL, CL_INVALID_EVENT_WAIT_LIST);
    cl_event ue = clCreateUserEvent(g_ctx, &err);
    MAPFAIL(g_q, m, CL_MAP_READ, 0, 4, 0, &ue, CL_INVALID_EVENT_WAIT_LIST);
    cl_event deadev = clCreateUserEvent(g_ctx, &err);
    OK(clReleaseEvent(deadev));
    MAPFAIL(g_q, m, CL_MAP_READ, 0, 4, 1, &deadev, CL_INVALID_EVENT_WAIT_LIST);
    /* Another context's queue/event/buffer. */
    cl_context c2 = clCreateContext(NULL, 1, &g_dev, NULL, NULL, &err);
    cl_command_queue q2 = clCreateCommandQueue(c2, g_dev, 0, &err);
    cl_event ue2 = clCreateUserEvent(c2, &err);
    MAPFAIL(q2, m, CL_MAP_READ, 0, 4, 0, NULL, CL_INVALID_CONTEXT);
    MAPFAIL(g_q, m, CL_MAP_READ, 0, 4, 1, &ue2, CL_INVALID_CONTEXT);
    /* Wrong or dead objects. */
    MAPFAIL((cl_command_queue)m, m, CL_MAP_READ, 0, 4, 0, NULL, CL_INVALID_COMMAND_QUEUE);
    MAPFAIL(g_q, (cl_mem)g_q, CL_MAP_READ, 0, 4, 0, NULL, CL_INVALID_MEM_OBJECT);
    cl_mem dead = buf(0, 64, NULL);
    OK(clReleaseMemObject(dead));
    MAPFAIL(g_q, dead, CL_MAP_READ, 0, 4, 0, NULL, CL_INVALID_MEM_OBJECT);
    /* HOST_* flags. */
    cl_mem wo = buf(CL_MEM_HOST_WRITE_ONLY, 64, NULL);
    cl_mem ro = buf(CL_MEM_HOST_READ_ONLY, 64, NULL);
    cl_mem na = buf(CL_MEM_HOST_NO_ACCESS, 64, NULL);
    MAPFAIL(g_q, wo, CL_MAP_READ, 0, 4, 0, NULL, CL_INVALID_OPERATION);
    MAPFAIL(g_q, ro, CL_MAP_WRITE, 0, 4, 0, NULL, CL_INVALID_OPERATION);
    MAPFAIL(g_q, ro, CL_MAP_WRITE_INVALIDATE_REGION, 0, 4, 0, NULL, CL_INVALID_OPERATION);
    MAPFAIL(g_q, na, CL_MAP_READ, 0, 4, 0, NULL, CL_INVALID_OPERATION);
    MAPFAIL(g_q, na, CL_MAP_WRITE, 0, 4, 0, NULL, CL_INVALID_OPERATION);
    p = clEnqueueMapBuffer(g_q, wo, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, 4, 0, NULL, NULL, &err);
    OK(err);
    OK(clEnqueueUnmapMemObject(g_q, wo, p, 0, NULL, NULL));
    p = clEnqueueMapBuffer(g_q, ro, CL_TRUE, CL_MAP_READ, 0, 4, 0, NULL, NULL, &err);
    OK(err);
    /* Unmap errors. */
    RC(clEnqueueUnmapMemObject(g_q, ro, (char *)p + 4, 0, NULL, NULL), CL_INVALID_VALUE);
    RC(clEnqueueUnmapMemObject(g_q, wo, p, 0, NULL, NULL), CL_INVALID_VALUE);
    RC(clEnqueueUnmapMemObject(q2, ro, p, 0, NULL, NULL), CL_INVALID_CONTEXT);
    RC(clEnqueueUnmapMemObject(g_q, ro, p, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
    RC(clEnqueueUnmapMemObject(g_q, (cl_mem)g_ctx, p, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    cl_uint mc;
    OK(clGetMemObjectInfo(ro, CL_MEM_MAP_COUNT, sizeof mc, &mc, NULL));
    CHECK(mc == 1);  /* the failed calls changed nothing */
    OK(clEnqueueUnmapMemObject(g_q, ro, p, 0, NULL, &ev));
    OK(clWaitForEvents(1, &ev));
    OK(clReleaseEvent(ev));
    /* Misaligned sub-buffer offsets cannot exist (refused at creation). */
    cl_buffer_region mis = {4, 16};
    CHECK(clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &mis, &err) == NULL && err == CL_MISALIGNED_SUB_BUFFER_OFFSET);
    /* Sub-buffer map: the region of the parent. */
    int v[64];
    for (int i = 0; i < 64; i++) v[i] = i * 7;
    OK(clEnqueueWriteBuffer(g_q, m, CL_TRUE, 0, sizeof v, v, 0, NULL, NULL));
    cl_buffer_region sr = {128, 128};
    cl_mem s = clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &sr, &err);
    int *sp = clEnqueueMapBuffer(g_q, s, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 128, 0, NULL, NULL, &err);
    OK(err);
    CHECK(sp && sp[0] == 32 * 7 && sp[31] == 63 * 7);
    MAPFAIL(g_q, s, CL_MAP_READ, 64, 128, 0, NULL, CL_INVALID_VALUE);
    sp[0] = -5;
    OK(clEnqueueUnmapMemObject(g_q, s, sp, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, m, CL_TRUE, 128, 4, v, 0, NULL, NULL));
    CHECK(v[0] == -5);
    OK(clReleaseMemObject(s));
    OK(clReleaseMemObject(wo));
    OK(clReleaseMemObject(ro));
    OK(clReleaseMemObject(na));
    OK(clReleaseEvent(ue));
    OK(clReleaseEvent(ue2));
    OK(clReleaseCommandQueue(q2));
    OK(clReleaseContext(c2));
    OK(clReleaseMemObject(m));
    teardown();
}

static void t_copy_fill_rect(void)
{
    setup(0);
    cl_int err;
    int src[1024], back[1024];
    for (int i = 0; i < 1024; i++) src[i] = i * 11;
    cl_mem a = buf(CL_MEM_COPY_HOST_PTR, sizeof src, src);
    cl_mem b = buf(0, sizeof src, NULL);
    OK(clEnqueueCopyBuffer(g_q, a, b, 40, 400, 800, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, b, CL_TRUE, 400, 800, back, 0, NULL, NULL));
    CHECK(back[0] == 10 * 11 && back[199] == 209 * 11);
    RC(clEnqueueCopyBuffer(g_q, a, a, 0, 100, 200, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    RC(clEnqueueCopyBuffer(g_q, a, b, 4000, 0, 200, 0, NULL, NULL), CL_INVALID_VALUE);
    RC(clEnqueueCopyBuffer(g_q, a, b, 0, 0, 0, 0, NULL, NULL), CL_INVALID_VALUE);
    OK(clEnqueueCopyBuffer(g_q, a, a, 0, 2048, 1024, 0, NULL, NULL));
    /* Fills with every pattern size. */
    for (size_t ps = 1; ps <= 128; ps *= 2) {
        unsigned char pat[128];
        for (size_t i = 0; i < ps; i++) pat[i] = (unsigned char)(0x10 + i + ps);
        OK(clEnqueueFillBuffer(g_q, b, pat, ps, 256, 2048, 0, NULL, NULL));
        unsigned char bb[2560];
        OK(clEnqueueReadBuffer(g_q, b, CL_TRUE, 0, sizeof bb, bb, 0, NULL, NULL));
        int ok = 1;
        for (size_t i = 256; i < 2304; i++) ok &= bb[i] == pat[(i - 256) % ps];
        CHECK(ok);
    }
    int pat = 1;
    RC(clEnqueueFillBuffer(g_q, b, &pat, 3, 0, 12, 0, NULL, NULL), CL_INVALID_VALUE);
    RC(clEnqueueFillBuffer(g_q, b, &pat, 4, 2, 12, 0, NULL, NULL), CL_INVALID_VALUE);
    RC(clEnqueueFillBuffer(g_q, b, &pat, 4, 0, 10, 0, NULL, NULL), CL_INVALID_VALUE);
    RC(clEnqueueFillBuffer(g_q, b, NULL, 4, 0, 12, 0, NULL, NULL), CL_INVALID_VALUE);
    RC(clEnqueueFillBuffer(g_q, b, &pat, 4, 4092, 8, 0, NULL, NULL), CL_INVALID_VALUE);
    /* Rects: a 16x8 box of a 64-byte-pitch 2D buffer. */
    unsigned char img[64 * 32];
    for (int i = 0; i < (int)sizeof img; i++) img[i] = (unsigned char)i;
    cl_mem r = buf(0, sizeof img, NULL);
    OK(clEnqueueWriteBuffer(g_q, r, CL_TRUE, 0, sizeof img, img, 0, NULL, NULL));
    size_t bo[3] = {8, 4, 0}, ho[3] = {1, 2, 0}, reg[3] = {16, 8, 1};
    unsigned char h[32 * 16];
    memset(h, 0, sizeof h);
    OK(clEnqueueReadBufferRect(g_q, r, CL_TRUE, bo, ho, reg, 64, 0, 32, 0, h, 0, NULL, NULL));
    int ok = 1;
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 16; x++) ok &= h[(2 + y) * 32 + 1 + x] == img[(4 + y) * 64 + 8 + x];
    CHECK(ok && h[0] == 0);
    for (int i = 0; i < (int)sizeof h; i++) h[i] = (unsigned char)(255 - i);
    OK(clEnqueueWriteBufferRect(g_q, r, CL_TRUE, bo, ho, reg, 64, 0, 32, 0, h, 0, NULL, NULL));
    unsigned char img2[64 * 32];
    OK(clEnqueueReadBuffer(g_q, r, CL_TRUE, 0, sizeof img2, img2, 0, NULL, NULL));
    ok = 1;
    for (int y = 0; y < 32; y++)
        for (int x = 0; x < 64; x++) {
            int in = y >= 4 && y < 12 && x >= 8 && x < 24;
            ok &= img2[y * 64 + x] == (in ? h[(y - 4 + 2) * 32 + (x - 8) + 1] : img[y * 64 + x]);
        }
    CHECK(ok);
    cl_mem r2 = buf(0, sizeof img, NULL);
    OK(clEnqueueFillBuffer(g_q, r2, &pat, 4, 0, sizeof img, 0, NULL, NULL));
    size_t so[3] = {0, 0, 0}, dso[3] = {32, 16, 0};
    OK(clEnqueueCopyBufferRect(g_q, r, r2, so, dso, reg, 64, 0, 64, 0, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, r2, CL_TRUE, 0, sizeof img2, img2, 0, NULL, NULL));
    unsigned char cur[64 * 32];
    OK(clEnqueueReadBuffer(g_q, r, CL_TRUE, 0, sizeof cur, cur, 0, NULL, NULL));
    ok = 1;
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 16; x++) ok &= img2[(16 + y) * 64 + 32 + x] == cur[y * 64 + x];
    CHECK(ok && img2[0] == 1 && img2[16 * 64 + 31] == 0);
    size_t big[3] = {65, 1, 1};
    RC(clEnqueueReadBufferRect(g_q, r, CL_TRUE, so, so, big, 64, 0, 0, 0, h, 0, NULL, NULL), CL_INVALID_VALUE);
    size_t far[3] = {0, 31, 0};
    RC(clEnqueueReadBufferRect(g_q, r, CL_TRUE, far, so, reg, 64, 0, 0, 0, h, 0, NULL, NULL), CL_INVALID_VALUE);
    size_t zr[3] = {16, 0, 1};
    RC(clEnqueueReadBufferRect(g_q, r, CL_TRUE, so, so, zr, 64, 0, 0, 0, h, 0, NULL, NULL), CL_INVALID_VALUE);
    RC(clEnqueueCopyBufferRect(g_q, r, r, so, so, reg, 64, 0, 64, 0, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    (void)err;
    OK(clReleaseMemObject(a));
    OK(clReleaseMemObject(b));
    OK(clReleaseMemObject(r));
    OK(clReleaseMemObject(r2));
    teardown();
}

static void t_events(void)
{
    setup(1);
    cl_int err;
    cl_mem m = buf(0, 65536, NULL);
    int pat = 3;
    cl_event e1, e2, mk, br;
    OK(clEnqueueFillBuffer(g_q, m, &pat, 4, 0, 65536, 0, NULL, &e1));
    OK(clEnqueueMarkerWithWaitList(g_q, 1, &e1, &mk));
    OK(clEnqueueBarrierWithWaitList(g_q, 0, NULL, &br));
    OK(clEnqueueCopyBuffer(g_q, m, m, 0, 32768, 32768, 0, NULL, &e2));
    OK(clFlush(g_q));
    OK(clFinish(g_q));
    cl_int st;
    OK(clGetEventInfo(mk, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL));
    CHECK(st == CL_COMPLETE);
    cl_command_type ct;
    OK(clGetEventInfo(mk, CL_EVENT_COMMAND_TYPE, sizeof ct, &ct, NULL));
    CHECK(ct == CL_COMMAND_MARKER);
    OK(clGetEventInfo(br, CL_EVENT_COMMAND_TYPE, sizeof ct, &ct, NULL));
    CHECK(ct == CL_COMMAND_BARRIER);
    cl_command_queue eq;
    OK(clGetEventInfo(e1, CL_EVENT_COMMAND_QUEUE, sizeof eq, &eq, NULL));
    CHECK(eq == g_q);
    /* Profiling: device-cycle times at 50 MHz (20 ns per cycle), ordered. */
    cl_ulong t[4];
    for (int i = 0; i < 4; i++)
        OK(clGetEventProfilingInfo(e1, CL_PROFILING_COMMAND_QUEUED + i, sizeof t[i], &t[i], NULL));
    CHECK(t[0] <= t[1] && t[1] <= t[2] && t[2] < t[3]);
    CHECK(t[2] % 20 == 0 && t[3] % 20 == 0);
    /* 64 KiB filled at no more than 4 bytes a cycle: at least 16384 cycles. */
    CHECK(t[3] - t[2] >= 16384ull * 20);
    NOTE("fill 64 KiB: %llu ns (%llu cycles)", (unsigned long long)(t[3] - t[2]),
         (unsigned long long)((t[3] - t[2]) / 20));
    cl_ulong s2;
    OK(clGetEventProfilingInfo(e2, CL_PROFILING_COMMAND_START, sizeof s2, &s2, NULL));
    CHECK(s2 >= t[3]);
    RC(clGetEventProfilingInfo(e1, 0x9999, sizeof s2, &s2, NULL), CL_INVALID_VALUE);
    cl_event ue = clCreateUserEvent(g_ctx, &err);
    RC(clGetEventProfilingInfo(ue, CL_PROFILING_COMMAND_START, sizeof s2, &s2, NULL), CL_PROFILING_INFO_NOT_AVAILABLE);
    /* Callbacks: an already-complete event calls back at once; a pending one at completion,
     * once per registered status. */
    int log[8] = {0};
    OK(clSetEventCallback(e1, CL_COMPLETE, ev_cb, log));
    CHECK(log[0] == 1 && log[1] == CL_COMPLETE);
    RC(clSetEventCallback(e1, CL_QUEUED, ev_cb, log), CL_INVALID_VALUE);
    RC(clSetEventCallback(e1, CL_COMPLETE, NULL, log), CL_INVALID_VALUE);
    cl_event e3;
    OK(clEnqueueMarkerWithWaitList(g_q, 1, &ue, &e3));
    int log2[8] = {0};
    OK(clSetEventCallback(e3, CL_SUBMITTED, ev_cb, log2));
    OK(clSetEventCallback(e3, CL_COMPLETE, ev_cb, log2));
    CHECK(log2[0] == 0);
    /* User events: bad values, then complete. */
    RC(clSetUserEventStatus(ue, 5), CL_INVALID_VALUE);
    RC(clSetUserEventStatus(e3, CL_COMPLETE), CL_INVALID_EVENT);
    OK(clSetUserEventStatus(ue, CL_COMPLETE));
    OK(clWaitForEvents(1, &e3));
    CHECK(log2[0] == 2);
    RC(clWaitForEvents(0, &e3), CL_INVALID_VALUE);
    cl_context c2 = clCreateContext(NULL, 1, &g_dev, NULL, NULL, &err);
    cl_event other = clCreateUserEvent(c2, &err);
    cl_event two[2] = {e3, other};
    RC(clWaitForEvents(2, two), CL_INVALID_CONTEXT);
    RC(clEnqueueMarkerWithWaitList(g_q, 1, &other, NULL), CL_INVALID_CONTEXT);
    RC(clEnqueueBarrierWithWaitList(g_q, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
    /* Reference counts. */
    cl_uint rc;
    OK(clRetainEvent(e3));
    OK(clGetEventInfo(e3, CL_EVENT_REFERENCE_COUNT, sizeof rc, &rc, NULL));
    CHECK(rc == 2);
    OK(clReleaseEvent(e3));
    OK(clReleaseEvent(e3));
    RC(clReleaseEvent(e3), CL_INVALID_EVENT);
    RC(clGetEventInfo(e3, CL_EVENT_REFERENCE_COUNT, sizeof rc, &rc, NULL), CL_INVALID_EVENT);
    OK(clSetUserEventStatus(other, CL_COMPLETE));
    OK(clReleaseEvent(other));
    OK(clReleaseContext(c2));
    OK(clReleaseEvent(ue));
    OK(clReleaseEvent(e1));
    OK(clReleaseEvent(e2));
    OK(clReleaseEvent(mk));
    OK(clReleaseEvent(br));
    /* Legacy 1.1 forms. */
    cl_event lm;
    OK(clEnqueueMarker(g_q, &lm));
    OK(clEnqueueBarrier(g_q));
    OK(clEnqueueWaitForEvents(g_q, 1, &lm));
    OK(clReleaseEvent(lm));
    OK(clReleaseMemObject(m));
    teardown();
}

static void t_kernels(void)
{
    setup(1);
    cl_int err;
    const int n = 1000;
    int a[1000], b[1000], out[1000];
    for (int i = 0; i < n; i++) { a[i] = i - 500; b[i] = 3 * i; }
    cl_mem A = buf(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a);
    int *bh = page_alloc(sizeof b);
    memcpy(bh, b, sizeof b);
    cl_mem B = buf(CL_MEM_USE_HOST_PTR, sizeof b, bh);  /* one operand zero copy */
    cl_mem D = buf(CL_MEM_WRITE_ONLY, sizeof out, NULL);
    cl_program p = clCreateProgramWithBuiltInKernels(g_ctx, 1, &g_dev,
        "vmgpu_fill_i32;vmgpu_copy_i32;vmgpu_add_i32;vmgpu_scale_i32;vmgpu_axpy_i32;vmgpu_reduce_sum_i32", &err);
    OK(err);
    struct { const char *name; int scalar; } ks[] = {
        {"vmgpu_fill_i32", 7}, {"vmgpu_copy_i32", 0}, {"vmgpu_add_i32", 0},
        {"vmgpu_scale_i32", -3}, {"vmgpu_axpy_i32", 5}, {"vmgpu_reduce_sum_i32", 0}};
    for (int k = 0; k < 6; k++) {
        cl_kernel K = clCreateKernel(p, ks[k].name, &err);
        OK(err);
        OK(clSetKernelArg(K, 0, sizeof(cl_mem), &D));
        OK(clSetKernelArg(K, 1, sizeof(cl_mem), &A));
        OK(clSetKernelArg(K, 2, sizeof(cl_mem), &B));
        OK(clSetKernelArg(K, 3, sizeof(int), &n));
        OK(clSetKernelArg(K, 4, sizeof(int), &ks[k].scalar));
        size_t g = 1024, l = 16;  /* the device's work-groups: the SIMT unit's 16 threads */
        cl_event ev;
        OK(clEnqueueNDRangeKernel(g_q, K, 1, NULL, &g, &l, 0, NULL, &ev));
        OK(clEnqueueReadBuffer(g_q, D, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
        int ok = 1;
        long sum = 0;
        for (int i = 0; i < n; i++) sum += a[i];
        for (int i = 0; i < n; i++) {
            int want = k == 0 ? 7 : k == 1 ? a[i] : k == 2 ? a[i] + b[i] : k == 3 ? -3 * a[i]
                       : k == 4 ? 5 * a[i] + b[i] : out[i];
            ok &= out[i] == want;
        }
        if (k == 5) ok = out[0] == (int)sum;
        CHECK(ok);
        cl_ulong s, e;
        OK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL));
        OK(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof e, &e, NULL));
        CHECK(e > s);
        NOTE("%s over %d elements: %llu cycles", ks[k].name, n, (unsigned long long)((e - s) / 20));
        OK(clReleaseEvent(ev));
        OK(clReleaseKernel(K));
    }
    /* Launch errors. */
    cl_kernel K = clCreateKernel(p, "vmgpu_add_i32", &err);
    size_t g = 1024, l = 64;
    RC(clEnqueueNDRangeKernel(g_q, K, 1, NULL, &g, NULL, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS);
    RC(clSetKernelArg(K, 5, sizeof(int), &n), CL_INVALID_ARG_INDEX);
    RC(clSetKernelArg(K, 0, 4, &D), CL_INVALID_ARG_SIZE);
    RC(clSetKernelArg(K, 3, 8, &n), CL_INVALID_ARG_SIZE);
    RC(clSetKernelArg(K, 3, sizeof(int), NULL), CL_INVALID_ARG_VALUE);
    int neg = -1;
    RC(clSetKernelArg(K, 3, sizeof(int), &neg), CL_INVALID_ARG_VALUE);
    RC(clSetKernelArg(K, 0, sizeof(cl_mem), &g_q), CL_INVALID_MEM_OBJECT);
    OK(clSetKernelArg(K, 0, sizeof(cl_mem), &D));
    OK(clSetKernelArg(K, 1, sizeof(cl_mem), &A));
    OK(clSetKernelArg(K, 2, sizeof(cl_mem), &B));
    OK(clSetKernelArg(K, 3, sizeof(int), &n));
    OK(clSetKernelArg(K, 4, sizeof(int), &n));
    RC(clEnqueueNDRangeKernel(g_q, K, 0, NULL, &g, NULL, 0, NULL, NULL), CL_INVALID_WORK_DIMENSION);
    RC(clEnqueueNDRangeKernel(g_q, K, 4, NULL, &g, NULL, 0, NULL, NULL), CL_INVALID_WORK_DIMENSION);
    RC(clEnqueueNDRangeKernel(g_q, K, 1, NULL, NULL, NULL, 0, NULL, NULL), CL_INVALID_GLOBAL_WORK_SIZE);
    size_t small = 999;
    RC(clEnqueueNDRangeKernel(g_q, K, 1, NULL, &small, NULL, 0, NULL, NULL), CL_INVALID_GLOBAL_WORK_SIZE);
    size_t zero = 0;
    RC(clEnqueueNDRangeKernel(g_q, K, 1, NULL, &zero, NULL, 0, NULL, NULL), CL_INVALID_GLOBAL_WORK_SIZE);
    size_t l3 = 100;
    RC(clEnqueueNDRangeKernel(g_q, K, 1, NULL, &g, &l3, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
    /* a 2D work-group of twice the device's largest (each dimension within its own limit) */
    size_t mwg = 0;
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof mwg, &mwg, NULL));
    size_t g2[2] = {4096, 4}, l2[2] = {mwg / 2, 4};
    CHECK(mwg >= 4 && mwg <= 2048 && (mwg & (mwg - 1)) == 0);
    RC(clEnqueueNDRangeKernel(g_q, K, 2, NULL, g2, l2, 0, NULL, NULL), CL_INVALID_WORK_GROUP_SIZE);
    size_t gb = 4096, lb = 2048;
    RC(clEnqueueNDRangeKernel(g_q, K, 1, NULL, &gb, &lb, 0, NULL, NULL), CL_INVALID_WORK_ITEM_SIZE);
    size_t off1 = 1;
    RC(clEnqueueNDRangeKernel(g_q, K, 1, &off1, &g, &l, 0, NULL, NULL), CL_INVALID_GLOBAL_OFFSET);
    size_t g2ok[2] = {32, 32};
    OK(clEnqueueNDRangeKernel(g_q, K, 2, NULL, g2ok, NULL, 0, NULL, NULL));  /* 1024 items >= n */
    int big = 2000;
    OK(clSetKernelArg(K, 3, sizeof(int), &big));
    size_t gbig = 2048;
    RC(clEnqueueNDRangeKernel(g_q, K, 1, NULL, &gbig, NULL, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS);
    cl_context c2 = clCreateContext(NULL, 1, &g_dev, NULL, NULL, &err);
    cl_command_queue q2 = clCreateCommandQueue(c2, g_dev, 0, &err);
    RC(clEnqueueNDRangeKernel(q2, K, 1, NULL, &g, NULL, 0, NULL, NULL), CL_INVALID_CONTEXT);
    OK(clReleaseCommandQueue(q2));
    OK(clReleaseContext(c2));
    RC(clEnqueueNDRangeKernel(g_q, (cl_kernel)p, 1, NULL, &g, NULL, 0, NULL, NULL), CL_INVALID_KERNEL);
    /* The kernel keeps its buffers: release them, launch still works on the right memory. */
    OK(clSetKernelArg(K, 3, sizeof(int), &n));
    cl_kernel K2 = clCreateKernel(p, "vmgpu_copy_i32", &err);
    cl_mem E = buf(0, sizeof out, NULL);
    OK(clSetKernelArg(K2, 0, sizeof(cl_mem), &E));
    OK(clSetKernelArg(K2, 1, sizeof(cl_mem), &B));
    OK(clSetKernelArg(K2, 2, sizeof(cl_mem), &(cl_mem){NULL}));
    OK(clSetKernelArg(K2, 3, sizeof(int), &n));
    OK(clSetKernelArg(K2, 4, sizeof(int), &n));
    OK(clReleaseMemObject(B));
    bh[999] = 123456;  /* zero copy: the kernel reads the user's memory as it is now */
    OK(clEnqueueNDRangeKernel(g_q, K2, 1, NULL, &g, NULL, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, E, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    CHECK(out[0] == 0 && out[998] == 3 * 998 && out[999] == 123456);
    cl_uint na;
    OK(clGetKernelInfo(K2, CL_KERNEL_NUM_ARGS, sizeof na, &na, NULL));
    CHECK(na == 5);
    char name[64];
    OK(clGetKernelInfo(K2, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL));
    CHECK(strcmp(name, "vmgpu_copy_i32") == 0);
    size_t wg;
    size_t dev_wg;
    OK(clGetKernelWorkGroupInfo(K2, g_dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL));
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof dev_wg, &dev_wg, NULL));
    CHECK(wg == dev_wg);  /* the SIMT unit's threads (1024 without the unit) */
    OK(clReleaseKernel(K2));
    OK(clReleaseMemObject(E));
    OK(clReleaseKernel(K));
    OK(clReleaseMemObject(A));
    OK(clReleaseMemObject(D));
    OK(clReleaseProgram(p));
    free(bh);
    teardown();
}

static void t_programs(void)
{
    setup(0);
    cl_int err;
    CHECK(clCreateProgramWithBuiltInKernels(g_ctx, 1, &g_dev, "vmgpu_add_i32;nope", &err) == NULL && err == CL_INVALID_VALUE);
    CHECK(clCreateProgramWithBuiltInKernels(g_ctx, 1, &g_dev, "", &err) == NULL && err == CL_INVALID_VALUE);
    CHECK(clCreateProgramWithBuiltInKernels(g_ctx, 0, NULL, "vmgpu_add_i32", &err) == NULL && err == CL_INVALID_VALUE);
    cl_device_id badd = (cl_device_id)g_ctx;
    CHECK(clCreateProgramWithBuiltInKernels(g_ctx, 1, &badd, "vmgpu_add_i32", &err) == NULL && err == CL_INVALID_DEVICE);
    cl_program p = clCreateProgramWithBuiltInKernels(g_ctx, 1, &g_dev, "vmgpu_add_i32;vmgpu_scale_i32", &err);
    OK(err);
    size_t nk;
    OK(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, NULL));
    CHECK(nk == 2);
    char names[256];
    OK(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL));
    CHECK(strcmp(names, "vmgpu_add_i32;vmgpu_scale_i32") == 0);
    OK(clBuildProgram(p, 0, NULL, "", NULL, NULL));
    CHECK(clCreateKernel(p, "vmgpu_fill_i32", &err) == NULL && err == CL_INVALID_KERNEL_NAME);
    CHECK(clCreateKernel(p, NULL, &err) == NULL && err == CL_INVALID_VALUE);
    cl_kernel ks[4];
    cl_uint nks;
    OK(clCreateKernelsInProgram(p, 4, ks, &nks));
    CHECK(nks == 2);
    RC(clBuildProgram(p, 0, NULL, "", NULL, NULL), CL_INVALID_OPERATION);  /* kernels attached */
    OK(clReleaseKernel(ks[0]));
    OK(clReleaseKernel(ks[1]));
    RC(clReleaseKernel(ks[1]), CL_INVALID_KERNEL);
    /* Source programs without a compiler (clang not found): created, never built. */
    setenv("VMGPU_CL_CLANG", "/nonexistent/clang-14", 1);
    const char *src = "__kernel void k(__global int *p) { p[0] = 1; }";
    cl_program sp = clCreateProgramWithSource(g_ctx, 1, &src, NULL, &err);
    OK(err);
    RC(clBuildProgram(sp, 1, &g_dev, "-cl-std=CL1.2", NULL, NULL), CL_COMPILER_NOT_AVAILABLE);
    cl_build_status bs;
    OK(clGetProgramBuildInfo(sp, g_dev, CL_PROGRAM_BUILD_STATUS, sizeof bs, &bs, NULL));
    CHECK(bs == CL_BUILD_ERROR);
    char logbuf[256];
    OK(clGetProgramBuildInfo(sp, g_dev, CL_PROGRAM_BUILD_LOG, sizeof logbuf, logbuf, NULL));
    CHECK(strstr(logbuf, "compiler") != NULL);
    CHECK(clCreateKernel(sp, "k", &err) == NULL && err == CL_INVALID_PROGRAM_EXECUTABLE);
    RC(clGetProgramInfo(sp, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, NULL), CL_INVALID_PROGRAM_EXECUTABLE);
    char got[128];
    OK(clGetProgramInfo(sp, CL_PROGRAM_SOURCE, sizeof got, got, NULL));
    CHECK(strcmp(got, src) == 0);
    RC(clCompileProgram(sp, 0, NULL, "", 0, NULL, NULL, NULL, NULL), CL_COMPILER_NOT_AVAILABLE);
    CHECK(clLinkProgram(g_ctx, 0, NULL, "", 1, &sp, NULL, NULL, &err) == NULL && err == CL_LINKER_NOT_AVAILABLE);
    CHECK(clCreateProgramWithSource(g_ctx, 0, NULL, NULL, &err) == NULL && err == CL_INVALID_VALUE);
    size_t len = 4;
    const unsigned char *bin = (const unsigned char *)"abcd";
    cl_int bst = 0;
    CHECK(clCreateProgramWithBinary(g_ctx, 1, &g_dev, &len, &bin, &bst, &err) == NULL &&
          err == CL_INVALID_BINARY && bst == CL_INVALID_BINARY);
    OK(clReleaseProgram(sp));
    unsetenv("VMGPU_CL_CLANG");
    OK(clReleaseProgram(p));
    RC(clReleaseProgram(p), CL_INVALID_PROGRAM);
    RC(clRetainProgram((cl_program)g_q), CL_INVALID_PROGRAM);
    teardown();
}


/* Runs one built-in kernel and returns the execution status its event ended with. */
static cl_int launch(const char *name, cl_mem dst, cl_mem a, cl_mem b, int n, int scalar)
{
    cl_int err;
    cl_program p = clCreateProgramWithBuiltInKernels(g_ctx, 1, &g_dev, name, &err);
    OK(err);
    cl_kernel K = clCreateKernel(p, name, &err);
    OK(err);
    OK(clSetKernelArg(K, 0, sizeof(cl_mem), &dst));
    OK(clSetKernelArg(K, 1, sizeof(cl_mem), &a));
    OK(clSetKernelArg(K, 2, sizeof(cl_mem), &b));
    OK(clSetKernelArg(K, 3, sizeof(int), &n));
    OK(clSetKernelArg(K, 4, sizeof(int), &scalar));
    size_t g = (size_t)n;
    cl_event ev;
    OK(clEnqueueNDRangeKernel(g_q, K, 1, NULL, &g, NULL, 0, NULL, &ev));
    clWaitForEvents(1, &ev);
    cl_int st = 1;
    OK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL));
    OK(clReleaseEvent(ev));
    OK(clReleaseKernel(K));
    OK(clReleaseProgram(p));
    return st;
}

static int all_eq(const int *v, int n, int want)
{
    for (int i = 0; i < n; i++)
        if (v[i] != want) return 0;
    return 1;
}

/* CL_MEM_READ_ONLY / WRITE_ONLY reach the page tables: a kernel's view of such an object is
 * mapped without W / without R, so a kernel breaking the promise faults and its event ends
 * with an error status; host commands (write, copy, fill, map) still reach the object. */
static void t_access_flags(void)
{
    setup(0);
    enum { N = 1024 };
    int init[N], back[N];
    for (int i = 0; i < N; i++) init[i] = 5;
    cl_mem ro = buf(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof init, init);
    cl_mem wo = buf(CL_MEM_WRITE_ONLY, sizeof init, NULL);
    cl_mem rw = buf(CL_MEM_READ_WRITE, sizeof init, NULL);
    /* Kernel writes a READ_ONLY buffer: fault, error status, data unchanged. */
    cl_int st = launch("vmgpu_fill_i32", ro, NULL, NULL, N, 9);
    CHECK(st == CL_OUT_OF_RESOURCES);
    NOTE("fill_i32 into a READ_ONLY buffer: event status %d (CL_OUT_OF_RESOURCES is %d)", st, CL_OUT_OF_RESOURCES);
    OK(clEnqueueReadBuffer(g_q, ro, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL));
    CHECK(all_eq(back, N, 5));
    /* Kernel reads a WRITE_ONLY buffer: fault. */
    st = launch("vmgpu_copy_i32", rw, wo, NULL, N, 0);
    CHECK(st == CL_OUT_OF_RESOURCES);
    NOTE("copy_i32 reading a WRITE_ONLY buffer: event status %d", st);
    /* The promised directions work, and the queue goes on after the faults. */
    st = launch("vmgpu_copy_i32", wo, ro, NULL, N, 0);
    CHECK(st == CL_COMPLETE);
    OK(clEnqueueReadBuffer(g_q, wo, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL));
    CHECK(all_eq(back, N, 5));
    /* Host-side commands may write a READ_ONLY buffer. */
    int seven = 7;
    OK(clEnqueueFillBuffer(g_q, ro, &seven, sizeof seven, 0, sizeof init, 0, NULL, NULL));
    OK(clEnqueueCopyBuffer(g_q, ro, rw, 0, 0, sizeof init, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, rw, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL));
    CHECK(all_eq(back, N, 7));
    int *p = clEnqueueMapBuffer(g_q, ro, CL_TRUE, CL_MAP_WRITE, 0, sizeof init, 0, NULL, NULL, &st);
    OK(st);
    if (p) {
        p[3] = 33;
        OK(clEnqueueUnmapMemObject(g_q, ro, p, 0, NULL, NULL));
    }
    OK(clEnqueueReadBuffer(g_q, ro, CL_TRUE, 12, 4, back, 0, NULL, NULL));
    CHECK(back[0] == 33);
    /* Zero copy: the host memory of a READ_ONLY USE_HOST_PTR buffer is safe from kernels. */
    int *h = page_alloc(sizeof init);
    for (int i = 0; i < N; i++) h[i] = 4;
    cl_mem zro = buf(CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, sizeof init, h);
    st = launch("vmgpu_scale_i32", zro, zro, NULL, N, 3);
    CHECK(st == CL_OUT_OF_RESOURCES && all_eq(h, N, 4));
    st = launch("vmgpu_scale_i32", rw, zro, NULL, N, 3);
    CHECK(st == CL_COMPLETE);
    OK(clEnqueueReadBuffer(g_q, rw, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL));
    CHECK(all_eq(back, N, 12));
    /* A READ_ONLY sub-buffer of a READ_WRITE buffer: its own narrower view. */
    cl_buffer_region r = {1024, 1024};
    cl_mem sub = clCreateSubBuffer(rw, CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &r, &st);
    OK(st);
    st = launch("vmgpu_fill_i32", sub, NULL, NULL, 256, 1);
    CHECK(st == CL_OUT_OF_RESOURCES);
    st = launch("vmgpu_fill_i32", rw, NULL, NULL, N, 2);  /* the parent is still writable */
    CHECK(st == CL_COMPLETE);
    st = launch("vmgpu_copy_i32", wo, sub, NULL, 256, 0);  /* and the sub-buffer readable */
    CHECK(st == CL_COMPLETE);
    OK(clEnqueueReadBuffer(g_q, wo, CL_TRUE, 0, 1024, back, 0, NULL, NULL));
    CHECK(all_eq(back, 256, 2));
    NOTE("READ_ONLY sub-buffer: kernel write faults, parent stays writable, sub-buffer readable");
    OK(clReleaseMemObject(sub));
    OK(clReleaseMemObject(zro));
    OK(clReleaseMemObject(ro));
    OK(clReleaseMemObject(wo));
    OK(clReleaseMemObject(rw));
    teardown();
    free(h);
}


/* 2D images: formats, info, read/write/copy/fill, image<->buffer, map with row pitch (device
 * memory through staging, and zero copy with the application's pitch), errors, samplers. */
static cl_mem image(cl_mem_flags f, cl_channel_order o, cl_channel_type t, size_t w, size_t h,
                    size_t pitch, void *host, cl_int *err)
{
    cl_image_format fmt = {o, t};
    cl_image_desc d;
    memset(&d, 0, sizeof d);
    d.image_type = CL_MEM_OBJECT_IMAGE2D;
    d.image_width = w;
    d.image_height = h;
    d.image_row_pitch = pitch;
    return clCreateImage(g_ctx, f, &fmt, &d, host, err);
}

static void t_images(void)
{
    setup(0);
    cl_int err;
    cl_uint nf = 0;
    OK(clGetSupportedImageFormats(g_ctx, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &nf));
    cl_image_format fmts[64];
    OK(clGetSupportedImageFormats(g_ctx, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D, 64, fmts, NULL));
    /* The embedded profile's minimum list (CL_RGBA x 10 channel types) plus the R formats. */
    static const cl_channel_type need[] = {CL_UNORM_INT8, CL_UNORM_INT16, CL_SIGNED_INT8, CL_SIGNED_INT16,
        CL_SIGNED_INT32, CL_UNSIGNED_INT8, CL_UNSIGNED_INT16, CL_UNSIGNED_INT32, CL_HALF_FLOAT, CL_FLOAT};
    int have = 0;
    for (size_t k = 0; k < 10; k++)
        for (cl_uint i = 0; i < nf; i++)
            have += fmts[i].image_channel_order == CL_RGBA && fmts[i].image_channel_data_type == need[k];
    CHECK(have == 10);
    NOTE("%u 2D formats, all 10 of the embedded profile's CL_RGBA minimum", nf);
    cl_uint n3 = 7;
    OK(clGetSupportedImageFormats(g_ctx, 0, CL_MEM_OBJECT_IMAGE3D, 0, NULL, &n3));
    CHECK(n3 == nf);
    OK(clGetSupportedImageFormats(g_ctx, 0, CL_MEM_OBJECT_IMAGE1D_BUFFER, 0, NULL, &n3));
    CHECK(n3 == nf);
    RC(clGetSupportedImageFormats(g_ctx, 0, CL_MEM_OBJECT_BUFFER, 0, NULL, &n3), CL_INVALID_VALUE);
    RC(clGetSupportedImageFormats(g_ctx, 0, CL_MEM_OBJECT_IMAGE2D, 0, fmts, &n3), CL_INVALID_VALUE);
    size_t sz;
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof sz, &sz, NULL));
    CHECK(sz == 2048);

    /* One image per requested format: write rows with a host pitch, read back, fill, map. */
    struct { cl_channel_order o; cl_channel_type t; size_t elem; float fcol[4]; uint8_t want[16]; } F[] = {
        {CL_RGBA, CL_UNORM_INT8, 4, {1.0f, 0.5f, 0.0f, 0.25f}, {255, 128, 0, 64}},
        {CL_R, CL_UNSIGNED_INT32, 4, {0}, {7, 0, 0, 0}},
        {CL_R, CL_FLOAT, 4, {2.5f}, {0, 0, 0x20, 0x40}},
        {CL_RGBA, CL_FLOAT, 16, {1.0f, -2.0f, 0.5f, 3.0f},
         {0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0, 0, 0, 0, 0x3f, 0, 0, 0x40, 0x40}},
    };
    const size_t W = 37, H = 23;
    for (int k = 0; k < 4; k++) {
        size_t el = F[k].elem, hp = W * el + 12;  /* host rows with padding */
        cl_mem im = image(CL_MEM_READ_WRITE, F[k].o, F[k].t, W, H, 0, NULL, &err);
        OK(err);
        size_t v;
        OK(clGetImageInfo(im, CL_IMAGE_ELEMENT_SIZE, sizeof v, &v, NULL)); CHECK(v == el);
        OK(clGetImageInfo(im, CL_IMAGE_ROW_PITCH, sizeof v, &v, NULL)); CHECK(v == W * el);
        OK(clGetImageInfo(im, CL_IMAGE_WIDTH, sizeof v, &v, NULL)); CHECK(v == W);
        OK(clGetImageInfo(im, CL_IMAGE_HEIGHT, sizeof v, &v, NULL)); CHECK(v == H);
        OK(clGetImageInfo(im, CL_IMAGE_SLICE_PITCH, sizeof v, &v, NULL)); CHECK(v == 0);
        OK(clGetImageInfo(im, CL_IMAGE_DEPTH, sizeof v, &v, NULL)); CHECK(v == 0);
        cl_image_format got;
        OK(clGetImageInfo(im, CL_IMAGE_FORMAT, sizeof got, &got, NULL));
        CHECK(got.image_channel_order == F[k].o && got.image_channel_data_type == F[k].t);
        cl_mem_object_type mt;
        OK(clGetMemObjectInfo(im, CL_MEM_TYPE, sizeof mt, &mt, NULL)); CHECK(mt == CL_MEM_OBJECT_IMAGE2D);
        RC(clGetImageInfo(im, 0x7777, sizeof v, &v, NULL), CL_INVALID_VALUE);
        uint8_t *src = malloc(hp * H), *dst = calloc(hp, H);
        for (size_t i = 0; i < hp * H; i++) src[i] = (uint8_t)(i * 7 + k);
        size_t o[3] = {0, 0, 0}, r[3] = {W, H, 1};
        OK(clEnqueueWriteImage(g_q, im, CL_TRUE, o, r, hp, 0, src, 0, NULL, NULL));
        OK(clEnqueueReadImage(g_q, im, CL_TRUE, o, r, hp, 0, dst, 0, NULL, NULL));
        int ok = 1;
        for (size_t y = 0; y < H; y++) ok &= memcmp(src + y * hp, dst + y * hp, W * el) == 0;
        CHECK(ok);
        /* A sub-rectangle read with a tight host pitch. */
        size_t o2[3] = {5, 3, 0}, r2[3] = {10, 4, 1};
        uint8_t sub[16 * 10 * 4];
        OK(clEnqueueReadImage(g_q, im, CL_TRUE, o2, r2, 0, 0, sub, 0, NULL, NULL));
        ok = 1;
        for (size_t y = 0; y < 4; y++) ok &= memcmp(sub + y * 10 * el, src + (y + 3) * hp + 5 * el, 10 * el) == 0;
        CHECK(ok);
        /* Map with row pitch: the mapped rows are the image's. */
        size_t rp = 0, sp = 99;
        uint8_t *p = clEnqueueMapImage(g_q, im, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, o2, r2, &rp, &sp, 0, NULL, NULL, &err);
        OK(err);
        CHECK(p && rp == W * el && sp == 0);
        cl_uint mc;
        OK(clGetMemObjectInfo(im, CL_MEM_MAP_COUNT, sizeof mc, &mc, NULL)); CHECK(mc == 1);
        if (p) {
            ok = 1;
            for (size_t y = 0; y < 4; y++) ok &= memcmp(p + y * rp, src + (y + 3) * hp + 5 * el, 10 * el) == 0;
            CHECK(ok);
            memset(p + rp, 0xab, 10 * el);  /* row 4 of the image through the map */
            OK(clEnqueueUnmapMemObject(g_q, im, p, 0, NULL, NULL));
        }
        OK(clEnqueueReadImage(g_q, im, CL_TRUE, o, r, hp, 0, dst, 0, NULL, NULL));
        ok = dst[4 * hp + 5 * el] == 0xab && dst[4 * hp + 15 * el - 1] == 0xab &&
             dst[4 * hp + 15 * el] == src[4 * hp + 15 * el] && dst[4 * hp + 5 * el - 1] == src[4 * hp + 5 * el - 1];
        CHECK(ok);
        /* Fill a rectangle; converted per format. */
        uint32_t ucol[4] = {7, 0, 0, 0};
        const void *col = F[k].t == CL_UNSIGNED_INT32 ? (const void *)ucol : (const void *)F[k].fcol;
        size_t o3[3] = {2, 1, 0}, r3[3] = {30, 20, 1};
        OK(clEnqueueFillImage(g_q, im, col, o3, r3, 0, NULL, NULL));
        OK(clEnqueueReadImage(g_q, im, CL_TRUE, o, r, hp, 0, dst, 0, NULL, NULL));
        ok = 1;
        for (size_t y = 0; y < H; y++)
            for (size_t x = 0; x < W; x++) {
                int in = x >= 2 && x < 32 && y >= 1 && y < 21;
                const uint8_t *px = dst + y * hp + x * el;
                if (in) ok &= memcmp(px, F[k].want, el) == 0;
                else if (!(y == 4 && x >= 5 && x < 15)) ok &= memcmp(px, src + y * hp + x * el, el) == 0;
            }
        CHECK(ok);
        NOTE("format %d: %zux%zu, %zu-byte pixels: write/read with host pitch %zu, map row pitch %zu, fill", k, W, H, el, hp, rp);
        free(src);
        free(dst);
        OK(clReleaseMemObject(im));
    }

    /* Copies: image -> image, image -> buffer, buffer -> image; overlap and mismatch. */
    uint32_t px[16 * 16], back[16 * 16];
    for (int i = 0; i < 256; i++) px[i] = 0x01000000u * (uint32_t)i + 0x10203u;
    cl_mem a = image(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, CL_RGBA, CL_UNORM_INT8, 16, 16, 0, px, &err);
    OK(err);
    cl_mem b = image(CL_MEM_READ_WRITE, CL_RGBA, CL_UNORM_INT8, 16, 16, 0, NULL, &err);
    OK(err);
    cl_mem f = image(CL_MEM_READ_WRITE, CL_R, CL_FLOAT, 16, 16, 0, NULL, &err);
    cl_mem bb = buf(CL_MEM_READ_WRITE, sizeof px, NULL);
    size_t o0[3] = {0, 0, 0}, full[3] = {16, 16, 1}, oa[3] = {4, 2, 0}, ob[3] = {1, 9, 0}, r[3] = {8, 5, 1};
    uint32_t zero[256] = {0};
    OK(clEnqueueWriteImage(g_q, b, CL_TRUE, o0, full, 0, 0, zero, 0, NULL, NULL));
    OK(clEnqueueCopyImage(g_q, a, b, oa, ob, r, 0, NULL, NULL));
    OK(clEnqueueReadImage(g_q, b, CL_TRUE, o0, full, 0, 0, back, 0, NULL, NULL));
    int ok = 1;
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 16; x++) {
            int in = x >= 1 && x < 9 && y >= 9 && y < 14;
            ok &= back[y * 16 + x] == (in ? px[(y - 9 + 2) * 16 + (x - 1 + 4)] : 0);
        }
    CHECK(ok);
    RC(clEnqueueCopyImage(g_q, a, f, o0, o0, r, 0, NULL, NULL), CL_IMAGE_FORMAT_MISMATCH);
    size_t oc[3] = {2, 2, 0};
    RC(clEnqueueCopyImage(g_q, a, a, o0, oc, r, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    size_t ofar[3] = {8, 8, 0};
    OK(clEnqueueCopyImage(g_q, a, a, o0, ofar, r, 0, NULL, NULL));
    OK(clEnqueueCopyImageToBuffer(g_q, a, bb, oa, r, 64, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, bb, CL_TRUE, 64, 8 * 5 * 4, back, 0, NULL, NULL));
    ok = 1;
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 8; x++) ok &= back[y * 8 + x] == px[(y + 2) * 16 + x + 4];
    CHECK(ok);
    OK(clEnqueueCopyBufferToImage(g_q, bb, b, 64, o0, r, 0, NULL, NULL));
    OK(clEnqueueReadImage(g_q, b, CL_TRUE, o0, r, 0, 0, back, 0, NULL, NULL));
    ok = 1;
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 8; x++) ok &= back[y * 8 + x] == px[(y + 2) * 16 + x + 4];
    CHECK(ok);
    RC(clEnqueueCopyImageToBuffer(g_q, a, bb, oa, r, sizeof px - 4, 0, NULL, NULL), CL_INVALID_VALUE);
    RC(clEnqueueCopyBufferToImage(g_q, a, b, 0, o0, r, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    NOTE("image->image, image->buffer, buffer->image copies; overlap and format mismatch refused");

    /* Zero copy with the application's row pitch: 37 RGBA8 pixels in rows of 256 bytes. */
    uint8_t *host = page_alloc(256 * 8);
    memset(host, 0x5a, 256 * 8);
    cl_mem z = image(CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, CL_RGBA, CL_UNORM_INT8, 37, 8, 256, host, &err);
    OK(err);
    size_t v;
    OK(clGetImageInfo(z, CL_IMAGE_ROW_PITCH, sizeof v, &v, NULL)); CHECK(v == 256);
    void *hp;
    OK(clGetMemObjectInfo(z, CL_MEM_HOST_PTR, sizeof hp, &hp, NULL)); CHECK(hp == host);
    size_t oz[3] = {3, 2, 0}, rz[3] = {30, 5, 1}, rp = 0;
    uint8_t *pz = clEnqueueMapImage(g_q, z, CL_TRUE, CL_MAP_READ, oz, rz, &rp, NULL, 0, NULL, NULL, &err);
    OK(err);
    CHECK(pz == host + 2 * 256 + 3 * 4 && rp == 256);
    NOTE("USE_HOST_PTR image: map returned host_ptr + %td, row pitch %zu", pz - host, rp);
    OK(clEnqueueUnmapMemObject(g_q, z, pz, 0, NULL, NULL));
    float red[4] = {1, 0, 0, 1};
    OK(clEnqueueFillImage(g_q, z, red, o0, (size_t[3]){37, 8, 1}, 0, NULL, NULL));
    OK(clFinish(g_q));
    ok = 1;
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 256; x++) {
            uint8_t want = x < 37 * 4 ? ((x % 4 == 0 || x % 4 == 3) ? 255 : 0) : 0x5a;
            ok &= host[y * 256 + x] == want;
        }
    CHECK(ok);
    NOTE("fill by the device's 2D DMA landed in the host rows, padding untouched");

    /* Errors. */
    size_t big[3] = {17, 1, 1}, bad2[3] = {1, 1, 2}, o1[3] = {0, 0, 1};
    uint32_t tmp[64];
    RC(clEnqueueReadImage(g_q, a, CL_TRUE, o0, big, 0, 0, tmp, 0, NULL, NULL), CL_INVALID_VALUE);
    RC(clEnqueueReadImage(g_q, a, CL_TRUE, o0, bad2, 0, 0, tmp, 0, NULL, NULL), CL_INVALID_VALUE);
    RC(clEnqueueReadImage(g_q, a, CL_TRUE, o1, r, 0, 0, tmp, 0, NULL, NULL), CL_INVALID_VALUE);
    RC(clEnqueueReadImage(g_q, a, CL_TRUE, o0, r, 4, 0, tmp, 0, NULL, NULL), CL_INVALID_VALUE);
    RC(clEnqueueReadImage(g_q, a, CL_TRUE, o0, r, 0, 0, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    RC(clEnqueueReadImage(g_q, bb, CL_TRUE, o0, r, 0, 0, tmp, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    RC(clEnqueueReadBuffer(g_q, a, CL_TRUE, 0, 4, tmp, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    CHECK(clEnqueueMapImage(g_q, a, CL_TRUE, CL_MAP_READ, o0, r, NULL, NULL, 0, NULL, NULL, &err) == NULL && err == CL_INVALID_VALUE);
    CHECK(clEnqueueMapImage(g_q, a, CL_TRUE, 8, o0, r, &rp, NULL, 0, NULL, NULL, &err) == NULL && err == CL_INVALID_VALUE);
    CHECK(clEnqueueMapBuffer(g_q, a, CL_TRUE, CL_MAP_READ, 0, 4, 0, NULL, NULL, &err) == NULL && err == CL_INVALID_MEM_OBJECT);
    RC(clEnqueueFillImage(g_q, a, NULL, o0, r, 0, NULL, NULL), CL_INVALID_VALUE);
    cl_mem hro = image(CL_MEM_HOST_READ_ONLY, CL_R, CL_FLOAT, 4, 4, 0, NULL, &err);
    RC(clEnqueueWriteImage(g_q, hro, CL_TRUE, o0, (size_t[3]){4, 4, 1}, 0, 0, tmp, 0, NULL, NULL), CL_INVALID_OPERATION);
    CHECK(clEnqueueMapImage(g_q, hro, CL_TRUE, CL_MAP_WRITE, o0, (size_t[3]){4, 4, 1}, &rp, NULL, 0, NULL, NULL, &err) == NULL && err == CL_INVALID_OPERATION);
    OK(clReleaseMemObject(hro));
    CHECK(image(0, CL_RGBA, CL_UNORM_INT8, 0, 4, 0, NULL, &err) == NULL && err == CL_INVALID_IMAGE_DESCRIPTOR);
    CHECK(image(0, CL_RGBA, CL_UNORM_INT8, 4096, 4, 0, NULL, &err) == NULL && err == CL_INVALID_IMAGE_SIZE);
    CHECK(image(0, CL_RG, CL_UNORM_INT8, 4, 4, 0, NULL, &err) == NULL && err == CL_IMAGE_FORMAT_NOT_SUPPORTED);
    CHECK(image(0, 0x7777, CL_UNORM_INT8, 4, 4, 0, NULL, &err) == NULL && err == CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    CHECK(image(0, CL_RGBA, 0x7777, 4, 4, 0, NULL, &err) == NULL && err == CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    CHECK(image(0, CL_RGBA, CL_UNORM_INT8, 4, 4, 64, NULL, &err) == NULL && err == CL_INVALID_IMAGE_DESCRIPTOR);
    CHECK(image(CL_MEM_USE_HOST_PTR, CL_RGBA, CL_UNORM_INT8, 4, 4, 8, host, &err) == NULL && err == CL_INVALID_IMAGE_DESCRIPTOR);
    CHECK(image(CL_MEM_USE_HOST_PTR, CL_RGBA, CL_UNORM_INT8, 4, 4, 0, NULL, &err) == NULL && err == CL_INVALID_HOST_PTR);
    CHECK(image(0, CL_RGBA, CL_UNORM_INT8, 4, 4, 0, host, &err) == NULL && err == CL_INVALID_HOST_PTR);
    cl_image_format ff = {CL_RGBA, CL_UNORM_INT8};
    CHECK(clCreateImage(g_ctx, 0, &ff, NULL, NULL, &err) == NULL && err == CL_INVALID_IMAGE_DESCRIPTOR);
    CHECK(clCreateImage2D(g_ctx, 0, &ff, 8, 8, 0, NULL, &err) != NULL || err != CL_SUCCESS);
    NOTE("image creation and enqueue errors as the 1.2 spec lists them");

    /* Samplers exist as objects (no kernel samples). */
    cl_sampler smp = clCreateSampler(g_ctx, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_LINEAR, &err);
    OK(err);
    cl_addressing_mode am;
    OK(clGetSamplerInfo(smp, CL_SAMPLER_ADDRESSING_MODE, sizeof am, &am, NULL));
    CHECK(am == CL_ADDRESS_CLAMP);
    cl_uint rc;
    OK(clRetainSampler(smp));
    OK(clGetSamplerInfo(smp, CL_SAMPLER_REFERENCE_COUNT, sizeof rc, &rc, NULL));
    CHECK(rc == 2);
    OK(clReleaseSampler(smp));
    OK(clReleaseSampler(smp));
    RC(clRetainSampler(smp), CL_INVALID_SAMPLER);
    CHECK(clCreateSampler(g_ctx, CL_TRUE, 0x7777, CL_FILTER_LINEAR, &err) == NULL && err == CL_INVALID_VALUE);

    OK(clReleaseMemObject(a));
    OK(clReleaseMemObject(b));
    OK(clReleaseMemObject(f));
    OK(clReleaseMemObject(bb));
    OK(clReleaseMemObject(z));
    teardown();
    free(host);
}


/* 1D, 1D array, 2D array and 3D images: the same box machinery with per-type rules. */
static cl_mem image_nd(cl_mem_flags f, cl_mem_object_type t, size_t w, size_t h, size_t d, size_t n,
                       size_t rp, size_t sp, void *host, cl_int *err)
{
    cl_image_format fmt = {CL_R, CL_UNSIGNED_INT32};
    cl_image_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.image_type = t;
    desc.image_width = w;
    desc.image_height = h;
    desc.image_depth = d;
    desc.image_array_size = n;
    desc.image_row_pitch = rp;
    desc.image_slice_pitch = sp;
    return clCreateImage(g_ctx, f, &fmt, &desc, host, err);
}

static void t_images_nd(void)
{
    setup(0);
    cl_int err;
    /* Each type as a box W x H x D of uint32 pixels: write all with host pitches, read a
     * sub-box, map a sub-box (row and slice pitch), fill a sub-box. */
    struct { cl_mem_object_type t; size_t w, h, d; const char *name; } T[] = {
        {CL_MEM_OBJECT_IMAGE1D, 100, 1, 1, "1D"},
        {CL_MEM_OBJECT_IMAGE1D_ARRAY, 40, 6, 1, "1D array"},
        {CL_MEM_OBJECT_IMAGE2D_ARRAY, 24, 10, 5, "2D array"},
        {CL_MEM_OBJECT_IMAGE3D, 24, 10, 5, "3D"},
    };
    for (int k = 0; k < 4; k++) {
        size_t W = T[k].w, H = T[k].h, D = T[k].d;
        cl_mem im = image_nd(0, T[k].t, W, T[k].t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 0 : H,
                             T[k].t == CL_MEM_OBJECT_IMAGE3D ? D : 0,
                             T[k].t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? H : T[k].t == CL_MEM_OBJECT_IMAGE2D_ARRAY ? D : 0,
                             0, 0, NULL, &err);
        OK(err);
        size_t v;
        OK(clGetImageInfo(im, CL_IMAGE_ARRAY_SIZE, sizeof v, &v, NULL));
        CHECK(v == (T[k].t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? H : T[k].t == CL_MEM_OBJECT_IMAGE2D_ARRAY ? D : 0));
        OK(clGetImageInfo(im, CL_IMAGE_DEPTH, sizeof v, &v, NULL));
        CHECK(v == (T[k].t == CL_MEM_OBJECT_IMAGE3D ? D : 0));
        OK(clGetImageInfo(im, CL_IMAGE_SLICE_PITCH, sizeof v, &v, NULL));
        size_t want_sp = T[k].t == CL_MEM_OBJECT_IMAGE1D ? 0 : T[k].t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? W * 4 : W * H * 4;
        CHECK(v == want_sp);
        /* API region: a 1D array's layers are region[1]. */
        size_t full[3] = {W, H, D}, o0[3] = {0, 0, 0};
        size_t hrp = W * 4 + 8, hsp = T[k].t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? hrp : hrp * H + 16;
        size_t hsl = T[k].t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? hrp : hsp;  /* host bytes per internal row/slice */
        size_t hrow = T[k].t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? hsp : hrp;
        size_t total = hsl * D + hrow * H + 64;
        uint8_t *src = malloc(total), *dst = calloc(1, total);
        for (size_t i = 0; i < total; i++) src[i] = (uint8_t)(i * 13 + k);
        size_t rp_arg = hrp, sp_arg = T[k].t == CL_MEM_OBJECT_IMAGE1D ? 0 : hsp;
        OK(clEnqueueWriteImage(g_q, im, CL_TRUE, o0, full, rp_arg, sp_arg, src, 0, NULL, NULL));
        OK(clEnqueueReadImage(g_q, im, CL_TRUE, o0, full, rp_arg, sp_arg, dst, 0, NULL, NULL));
        int ok = 1;
        for (size_t z = 0; z < D; z++)
            for (size_t y = 0; y < H; y++)
                ok &= memcmp(src + z * hsl + y * hrow, dst + z * hsl + y * hrow, W * 4) == 0;
        CHECK(ok);
        /* Map a sub-box: pointer arithmetic with the returned pitches. */
        size_t ob[3] = {2, H > 2 ? 1 : 0, D > 2 ? 1 : 0}, rb[3] = {5, H > 2 ? H - 2 : 1, D > 2 ? D - 2 : 1};
        size_t rp = 0, sp = 77;
        uint8_t *p = clEnqueueMapImage(g_q, im, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, ob, rb, &rp, &sp, 0, NULL, NULL, &err);
        OK(err);
        CHECK(p && rp == W * 4 && sp == want_sp);
        if (p) {
            size_t prow = T[k].t == CL_MEM_OBJECT_IMAGE1D_ARRAY ? sp : rp, pslice = sp;
            ok = 1;
            for (size_t z = 0; z < rb[2]; z++)
                for (size_t y = 0; y < rb[1]; y++)
                    ok &= memcmp(p + z * pslice + y * prow, src + (z + ob[2]) * hsl + (y + ob[1]) * hrow + ob[0] * 4, rb[0] * 4) == 0;
            CHECK(ok);
            ((uint32_t *)p)[0] = 0xdeadbeefu;
            OK(clEnqueueUnmapMemObject(g_q, im, p, 0, NULL, NULL));
        }
        uint32_t px;
        size_t one[3] = {1, 1, 1};
        OK(clEnqueueReadImage(g_q, im, CL_TRUE, ob, one, 0, 0, &px, 0, NULL, NULL));
        CHECK(px == 0xdeadbeefu);
        /* Fill the sub-box, read everything back. */
        uint32_t col[4] = {0x12345678u, 0, 0, 0};
        OK(clEnqueueFillImage(g_q, im, col, ob, rb, 0, NULL, NULL));
        OK(clEnqueueReadImage(g_q, im, CL_TRUE, o0, full, 0, 0, dst, 0, NULL, NULL));
        ok = 1;
        for (size_t z = 0; z < D; z++)
            for (size_t y = 0; y < H; y++)
                for (size_t x = 0; x < W; x++) {
                    int in = x >= ob[0] && x < ob[0] + rb[0] && y >= ob[1] && y < ob[1] + rb[1] && z >= ob[2] && z < ob[2] + rb[2];
                    uint32_t got, want;
                    memcpy(&got, dst + ((z * H + y) * W + x) * 4, 4);
                    memcpy(&want, src + z * hsl + y * hrow + x * 4, 4);
                    ok &= got == (in ? 0x12345678u : want);
                }
        CHECK(ok);
        NOTE("%s image %zux%zux%zu: write/read with host pitches, map (row pitch %zu, slice pitch %zu), fill", T[k].name, W, H, D, rp, sp);
        free(src);
        free(dst);
        OK(clReleaseMemObject(im));
    }

    /* 3D <-> 2D copies and 3D -> buffer. */
    uint32_t vol[4 * 3 * 2], back[24];
    for (int i = 0; i < 24; i++) vol[i] = 1000u + (uint32_t)i;
    cl_mem v3 = image_nd(CL_MEM_COPY_HOST_PTR, CL_MEM_OBJECT_IMAGE3D, 4, 3, 2, 0, 0, 0, vol, &err);
    OK(err);
    cl_image_format fmt = {CL_R, CL_UNSIGNED_INT32};
    cl_image_desc d2;
    memset(&d2, 0, sizeof d2);
    d2.image_type = CL_MEM_OBJECT_IMAGE2D;
    d2.image_width = 4;
    d2.image_height = 3;
    cl_mem i2 = clCreateImage(g_ctx, 0, &fmt, &d2, NULL, &err);
    OK(err);
    size_t o1[3] = {0, 0, 1}, o0[3] = {0, 0, 0}, r2[3] = {4, 3, 1}, r3[3] = {4, 3, 2};
    OK(clEnqueueCopyImage(g_q, v3, i2, o1, o0, r2, 0, NULL, NULL));  /* slice 1 -> the 2D image */
    OK(clEnqueueReadImage(g_q, i2, CL_TRUE, o0, r2, 0, 0, back, 0, NULL, NULL));
    CHECK(memcmp(back, vol + 12, 48) == 0);
    OK(clEnqueueCopyImage(g_q, i2, v3, o0, o0, r2, 0, NULL, NULL));  /* and into slice 0 */
    OK(clEnqueueReadImage(g_q, v3, CL_TRUE, o0, r2, 0, 0, back, 0, NULL, NULL));
    CHECK(memcmp(back, vol + 12, 48) == 0);
    cl_mem bb = buf(0, 256, NULL);
    OK(clEnqueueCopyImageToBuffer(g_q, v3, bb, o0, r3, 0, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, bb, CL_TRUE, 0, 96, back, 0, NULL, NULL));
    CHECK(memcmp(back, vol + 12, 48) == 0 && memcmp(back + 12, vol + 12, 48) == 0);
    NOTE("3D slice -> 2D, 2D -> 3D slice, 3D -> buffer copies");

    /* Zero copy 3D with the application's pitches. */
    uint8_t *host = page_alloc(4096);
    memset(host, 0, 4096);
    cl_mem z3 = image_nd(CL_MEM_USE_HOST_PTR, CL_MEM_OBJECT_IMAGE3D, 4, 3, 2, 0, 64, 256, host, &err);
    OK(err);
    size_t rp, sp;
    size_t oz[3] = {1, 2, 1};
    uint8_t *pz = clEnqueueMapImage(g_q, z3, CL_TRUE, CL_MAP_READ, oz, (size_t[3]){1, 1, 1}, &rp, &sp, 0, NULL, NULL, &err);
    OK(err);
    CHECK(pz == host + 256 + 2 * 64 + 4 && rp == 64 && sp == 256);
    OK(clEnqueueUnmapMemObject(g_q, z3, pz, 0, NULL, NULL));
    uint32_t seven[4] = {7, 0, 0, 0};
    OK(clEnqueueFillImage(g_q, z3, seven, o0, r3, 0, NULL, NULL));
    OK(clFinish(g_q));
    CHECK(((uint32_t *)host)[0] == 7 && ((uint32_t *)(host + 256 + 128))[3] == 7 && ((uint32_t *)host)[4] == 0);
    NOTE("USE_HOST_PTR 3D image: map = host_ptr + z*256 + y*64 + x*4, device fill in place");

    /* Per-type rules. */
    uint32_t tmp[64];
    cl_mem i1 = image_nd(0, CL_MEM_OBJECT_IMAGE1D, 16, 0, 0, 0, 0, 0, NULL, &err);
    RC(clEnqueueReadImage(g_q, i1, CL_TRUE, (size_t[3]){0, 1, 0}, (size_t[3]){1, 1, 1}, 0, 0, tmp, 0, NULL, NULL), CL_INVALID_VALUE);
    RC(clEnqueueReadImage(g_q, i1, CL_TRUE, o0, (size_t[3]){4, 2, 1}, 0, 0, tmp, 0, NULL, NULL), CL_INVALID_VALUE);
    RC(clEnqueueReadImage(g_q, i1, CL_TRUE, o0, (size_t[3]){4, 1, 1}, 0, 16, tmp, 0, NULL, NULL), CL_INVALID_VALUE);
    cl_mem a1 = image_nd(0, CL_MEM_OBJECT_IMAGE1D_ARRAY, 4, 0, 0, 3, 0, 0, NULL, &err);
    RC(clEnqueueReadImage(g_q, a1, CL_TRUE, o0, (size_t[3]){4, 3, 2}, 0, 0, tmp, 0, NULL, NULL), CL_INVALID_VALUE);
    OK(clEnqueueReadImage(g_q, a1, CL_TRUE, o0, (size_t[3]){4, 3, 1}, 0, 0, tmp, 0, NULL, NULL));
    CHECK(clEnqueueMapImage(g_q, v3, CL_TRUE, CL_MAP_READ, o0, r3, &rp, NULL, 0, NULL, NULL, &err) == NULL && err == CL_INVALID_VALUE);
    cl_mem flat3d = image_nd(0, CL_MEM_OBJECT_IMAGE3D, 4, 4, 1, 0, 0, 0, NULL, &err);  /* depth 1: valid (1.2) */
    CHECK(flat3d != NULL && err == CL_SUCCESS);
    if (flat3d) OK(clReleaseMemObject(flat3d));
    CHECK(image_nd(0, CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 4, 0, 300, 0, 0, NULL, &err) == NULL && err == CL_INVALID_IMAGE_SIZE);
    CHECK(image_nd(CL_MEM_USE_HOST_PTR, CL_MEM_OBJECT_IMAGE3D, 4, 3, 2, 0, 64, 100, host, &err) == NULL && err == CL_INVALID_IMAGE_DESCRIPTOR);
    CHECK(image_nd(0, CL_MEM_OBJECT_IMAGE1D_BUFFER, 4, 0, 0, 0, 0, 0, NULL, &err) == NULL && err == CL_INVALID_IMAGE_DESCRIPTOR);  /* no buffer */
    NOTE("per-type origin/region/pitch rules and creation errors");
    OK(clReleaseMemObject(i1));
    OK(clReleaseMemObject(a1));
    OK(clReleaseMemObject(v3));
    OK(clReleaseMemObject(i2));
    OK(clReleaseMemObject(bb));
    OK(clReleaseMemObject(z3));
    teardown();
    free(host);
}

static void t_invalid_objects(void)
{
    setup(0);
    cl_int err;
    cl_mem m = buf(0, 64, NULL);
    /* Objects of the wrong type, and released ones, get their CL_INVALID_* code. */
    RC(clRetainCommandQueue((cl_command_queue)m), CL_INVALID_COMMAND_QUEUE);
    RC(clRetainMemObject((cl_mem)g_q), CL_INVALID_MEM_OBJECT);
    RC(clRetainEvent((cl_event)m), CL_INVALID_EVENT);
    RC(clRetainKernel((cl_kernel)m), CL_INVALID_KERNEL);
    RC(clRetainContext((cl_context)m), CL_INVALID_CONTEXT);
    RC(clFinish((cl_command_queue)g_ctx), CL_INVALID_COMMAND_QUEUE);
    RC(clFlush((cl_command_queue)m), CL_INVALID_COMMAND_QUEUE);
    RC(clGetMemObjectInfo((cl_mem)g_ctx, CL_MEM_SIZE, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    int v = 0;
    RC(clEnqueueWriteBuffer((cl_command_queue)m, m, CL_TRUE, 0, 4, &v, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    RC(clEnqueueReadBuffer(g_q, (cl_mem)g_q, CL_TRUE, 0, 4, &v, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    RC(clEnqueueReadBuffer(g_q, m, CL_TRUE, 0, 4, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    RC(clEnqueueReadBuffer(g_q, m, CL_TRUE, 62, 4, &v, 0, NULL, NULL), CL_INVALID_VALUE);
    RC(clEnqueueReadBuffer(g_q, m, CL_TRUE, 0, 4, &v, 1, NULL, NULL), CL_INVALID_EVENT_WAIT_LIST);
    RC(clGetSupportedImageFormats(g_ctx, 0, CL_MEM_OBJECT_IMAGE1D_BUFFER, 0, NULL, (cl_uint *)&v), CL_SUCCESS);
    CHECK(v >= 10);  /* 1D image buffers take the formats of the other types */
    /* Released queue and context, and a dead event. */
    cl_command_queue q = clCreateCommandQueue(g_ctx, g_dev, 0, &err);
    OK(clReleaseCommandQueue(q));
    RC(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 4, &v, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    RC(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
    cl_context c = clCreateContext(NULL, 1, &g_dev, NULL, NULL, &err);
    OK(clReleaseContext(c));
    CHECK(clCreateBuffer(c, 0, 64, NULL, &err) == NULL && err == CL_INVALID_CONTEXT);
    CHECK(clCreateCommandQueue(c, g_dev, 0, &err) == NULL && err == CL_INVALID_CONTEXT);
    CHECK(clCreateUserEvent(c, &err) == NULL && err == CL_INVALID_CONTEXT);
    /* Bad input leaves state unchanged: a failing write keeps the data. */
    int d[16];
    for (int i = 0; i < 16; i++) d[i] = i;
    OK(clEnqueueWriteBuffer(g_q, m, CL_TRUE, 0, 64, d, 0, NULL, NULL));
    int junk[32] = {0};
    RC(clEnqueueWriteBuffer(g_q, m, CL_TRUE, 32, 64, junk, 0, NULL, NULL), CL_INVALID_VALUE);
    int back[16];
    OK(clEnqueueReadBuffer(g_q, m, CL_TRUE, 0, 64, back, 0, NULL, NULL));
    CHECK(memcmp(back, d, 64) == 0);
    OK(clReleaseMemObject(m));
    teardown();
}

/* Overlapping maps (OpenCL 3.0 5.5.4; undefined in 1.2): regions of a buffer and of its
 * sub-buffers may overlap when every map of them is CL_MAP_READ; any overlap involving a map for
 * writing (CL_MAP_WRITE, CL_MAP_WRITE_INVALIDATE_REGION) is CL_INVALID_OPERATION, and the
 * refused map leaves no mapping behind. Before the check, the second map's read-back
 * overwrote the staging copy and the bytes written through the first pointer were lost. */
static cl_uint map_count(cl_mem m)
{
    cl_uint mc = 12345;
    clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof mc, &mc, NULL);
    return mc;
}

static void *map_try(cl_mem m, cl_map_flags f, size_t off, size_t n, cl_int *err)
{
    return clEnqueueMapBuffer(g_q, m, CL_TRUE, f, off, n, 0, NULL, NULL, err);
}

#define MAP_REFUSED(m_, f_, off_, n_) do { cl_uint mc_ = map_count(m_); cl_int e_ = 0; \
        void *p_ = map_try(m_, f_, off_, n_, &e_); CHECK(p_ == NULL); RC(e_, CL_INVALID_OPERATION); \
        CHECK(map_count(m_) == mc_); } while (0)

static void map_overlap_on(cl_mem_flags f, const char *what)
{
    cl_int err;
    int *hp = (f & CL_MEM_USE_HOST_PTR) ? page_alloc(4096) : NULL;
    cl_mem m = buf(f, 4096, hp);
    const cl_map_flags W = CL_MAP_WRITE, R = CL_MAP_READ, RW = CL_MAP_READ | CL_MAP_WRITE,
                       WI = CL_MAP_WRITE_INVALIDATE_REGION;
    /* The lost-write scenario: write through one map, map the same bytes again. */
    int *w = map_try(m, W, 0, 1024, &err);
    OK(err);
    for (int i = 0; i < 256; i++) w[i] = 5000 + i;
    MAP_REFUSED(m, R, 0, 1024);
    MAP_REFUSED(m, R, 1020, 8);     /* one shared byte is enough */
    MAP_REFUSED(m, W, 512, 16);
    MAP_REFUSED(m, RW, 0, 4096);
    MAP_REFUSED(m, WI, 1000, 100);
    int *nb = map_try(m, W, 1024, 1024, &err);  /* adjacent, not overlapping */
    OK(err);
    OK(clEnqueueUnmapMemObject(g_q, m, w, 0, NULL, NULL));
    int back[256];
    OK(clEnqueueReadBuffer(g_q, m, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL));
    CHECK(back[0] == 5000 && back[255] == 5255);
    /* Unmapped: the same bytes map again, even while the other write map stays. */
    int *r1 = map_try(m, R, 0, 1024, &err);
    OK(err);
    CHECK(r1 && r1[7] == 5007);
    /* Reading over reading is allowed; writing over reading is not. */
    int *r2 = map_try(m, R, 512, 512, &err);
    OK(err);
    MAP_REFUSED(m, W, 1000, 8);
    MAP_REFUSED(m, WI, 0, 16);
    MAP_REFUSED(m, R, 1024, 4);     /* inside the write map still held at 1024 */
    CHECK(map_count(m) == 3);
    OK(clEnqueueUnmapMemObject(g_q, m, r1, 0, NULL, NULL));
    OK(clEnqueueUnmapMemObject(g_q, m, r2, 0, NULL, NULL));
    OK(clEnqueueUnmapMemObject(g_q, m, nb, 0, NULL, NULL));
    /* Sub-buffers share the parent's bytes: a map of one conflicts with a map of the other. */
    cl_buffer_region sr = {2048, 1024};
    cl_mem s = clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &sr, &err);
    OK(err);
    cl_buffer_region sr2 = {2048 + 512, 512};
    cl_mem s2 = clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &sr2, &err);
    OK(err);
    void *pw = map_try(m, W, 2048 + 100, 8, &err);
    OK(err);
    MAP_REFUSED(s, R, 96, 16);      /* parent bytes 2144..2159 */
    void *sp = map_try(s, R, 108, 16, &err);  /* parent bytes 2156.., just past the write map */
    OK(err);
    MAP_REFUSED(m, WI, 2048 + 100 + 8, 4);  /* over the sub-buffer's read map */
    void *s2w = map_try(s2, WI, 0, 512, &err);
    OK(err);
    MAP_REFUSED(s, R, 600, 4);      /* parent byte 2648: the second sub-buffer's write map */
    MAP_REFUSED(m, R, 3000, 8);      /* the parent over the second sub-buffer's write map */
    OK(clEnqueueUnmapMemObject(g_q, m, pw, 0, NULL, NULL));
    OK(clEnqueueUnmapMemObject(g_q, s, sp, 0, NULL, NULL));
    OK(clEnqueueUnmapMemObject(g_q, s2, s2w, 0, NULL, NULL));
    OK(clFinish(g_q));
    CHECK(map_count(m) == 0 && map_count(s) == 0 && map_count(s2) == 0);
    OK(clReleaseMemObject(s2));
    OK(clReleaseMemObject(s));
    OK(clReleaseMemObject(m));
    free(hp);
    NOTE("%s buffer: overlapping maps refused unless all are CL_MAP_READ (sub-buffers included)", what);
}

static void t_map_overlap(void)
{
    setup(0);
    map_overlap_on(0, "device");
    map_overlap_on(CL_MEM_USE_HOST_PTR, "USE_HOST_PTR");
    /* Images: pixel boxes, so boxes side by side in the same rows do not overlap. */
    cl_int err;
    cl_mem im = image(0, CL_RGBA, CL_UNSIGNED_INT8, 16, 16, 0, NULL, &err);
    OK(err);
    size_t o1[3] = {0, 0, 0}, r1[3] = {4, 4, 1}, o2[3] = {4, 0, 0}, o3[3] = {2, 2, 0}, rp;
    void *a = clEnqueueMapImage(g_q, im, CL_TRUE, CL_MAP_WRITE, o1, r1, &rp, NULL, 0, NULL, NULL, &err);
    OK(err);
    void *b = clEnqueueMapImage(g_q, im, CL_TRUE, CL_MAP_READ, o2, r1, &rp, NULL, 0, NULL, NULL, &err);
    OK(err);
    void *c = clEnqueueMapImage(g_q, im, CL_TRUE, CL_MAP_READ, o3, r1, &rp, NULL, 0, NULL, NULL, &err);
    CHECK(c == NULL);
    RC(err, CL_INVALID_OPERATION);
    CHECK(map_count(im) == 2);
    OK(clEnqueueUnmapMemObject(g_q, im, a, 0, NULL, NULL));
    c = clEnqueueMapImage(g_q, im, CL_TRUE, CL_MAP_READ, o3, r1, &rp, NULL, 0, NULL, NULL, &err);
    OK(err);
    OK(clEnqueueUnmapMemObject(g_q, im, b, 0, NULL, NULL));
    OK(clEnqueueUnmapMemObject(g_q, im, c, 0, NULL, NULL));
    OK(clReleaseMemObject(im));
    NOTE("image: overlapping pixel boxes refused when one is mapped for writing; side by side allowed");
    teardown();
}

/* Findings of the Khronos OpenCL-CTS no-compiler suites, one block each (docs/opencl.md). */
static cl_mem image1d_buffer(cl_mem_flags f, cl_channel_order o, cl_channel_type t, size_t w, cl_mem b,
                             cl_int *err)
{
    cl_image_format fmt = {o, t};
    cl_image_desc d;
    memset(&d, 0, sizeof d);
    d.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER;
    d.image_width = w;
    d.buffer = b;
    return clCreateImage(g_ctx, f, &fmt, &d, NULL, err);
}

static void t_cts_findings(void)
{
    setup(0);
    cl_int err;
    /* 1. A 3D image of depth 1 is valid for clCreateImage (1.2: depth >= 1); the 1.1 call
     * clCreateImage3D keeps asking for more than one slice. */
    cl_mem flat = image_nd(0, CL_MEM_OBJECT_IMAGE3D, 8, 4, 1, 0, 0, 0, NULL, &err);
    OK(err);
    CHECK(flat != NULL);
    uint32_t px[32], back[32];
    for (int i = 0; i < 32; i++) px[i] = 0x1000u + (uint32_t)i;
    size_t o0[3] = {0, 0, 0}, r841[3] = {8, 4, 1};
    if (flat) {
        OK(clEnqueueWriteImage(g_q, flat, CL_TRUE, o0, r841, 0, 0, px, 0, NULL, NULL));
        OK(clEnqueueReadImage(g_q, flat, CL_TRUE, o0, r841, 0, 0, back, 0, NULL, NULL));
        CHECK(memcmp(px, back, sizeof px) == 0);
        OK(clReleaseMemObject(flat));
    }
    cl_image_format f32 = {CL_R, CL_UNSIGNED_INT32};
    CHECK(clCreateImage3D(g_ctx, 0, &f32, 8, 4, 1, 0, 0, NULL, &err) == NULL && err == CL_INVALID_IMAGE_SIZE);

    /* 2. clEnqueueCopyBufferRect inside one buffer: spans that overlap but share no byte are
     * copied (side by side in the same rows; rows interleaved); a shared byte is
     * CL_MEM_COPY_OVERLAP. Rows of 64 bytes, 8 rows, 2 slices of 1024 bytes. */
    unsigned char init[2048], got[2048];
    for (int i = 0; i < 2048; i++) init[i] = (unsigned char)(i * 7 + 3);
    cl_mem m = buf(CL_MEM_COPY_HOST_PTR, 2048, init);
    size_t so[3] = {0, 0, 0}, dso[3] = {16, 0, 0}, reg[3] = {16, 8, 2};
    OK(clEnqueueCopyBufferRect(g_q, m, m, so, dso, reg, 64, 1024, 64, 1024, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, m, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
    int ok = 1;
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 8; y++)
            for (int x = 0; x < 64; x++) {
                int i = z * 1024 + y * 64 + x;
                int want = (x >= 16 && x < 32) ? init[i - 16] : init[i];
                ok &= got[i] == (unsigned char)want;
            }
    CHECK(ok);
    /* Rows interleaved: source rows 0, 2, 4 of a 128-byte pitch; destination starts one
     * 64-byte half later, in the gaps. */
    size_t so2[3] = {0, 0, 0}, dso2[3] = {64, 0, 0}, reg2[3] = {64, 4, 1};
    OK(clEnqueueCopyBufferRect(g_q, m, m, so2, dso2, reg2, 128, 512, 128, 512, 0, NULL, NULL));
    /* Slices interleaved: 2 slices 1024 apart, destination 512 after (the slices' second half). */
    size_t so3[3] = {0, 0, 0}, dso3[3] = {0, 4, 0}, reg3[3] = {64, 4, 2};
    OK(clEnqueueCopyBufferRect(g_q, m, m, so3, dso3, reg3, 128, 1024, 128, 1024, 0, NULL, NULL));
    /* Sharing bytes: one column overlaps; one row overlaps. */
    size_t dso4[3] = {15, 0, 0}, dso5[3] = {0, 7, 0};
    RC(clEnqueueCopyBufferRect(g_q, m, m, so, dso4, reg, 64, 1024, 64, 1024, 0, NULL, NULL), CL_MEM_COPY_OVERLAP);
    RC(clEnqueueCopyBufferRect(g_q, m, m, so, dso5, (size_t[3]){16, 8, 1}, 64, 1024, 64, 1024, 0, NULL, NULL),
       CL_MEM_COPY_OVERLAP);
    /* Two sub-buffers of one buffer, different pitches, no shared byte. */
    cl_buffer_region ra = {0, 1024}, rb = {512, 1024};
    cl_mem sa = clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &ra, &err);
    cl_mem sb = clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &rb, &err);
    size_t z3[3] = {0, 0, 0}, d32[3] = {32, 0, 0}, reg6[3] = {32, 4, 1};
    /* sa rows at 0, 128, 256, 384 (32 bytes); sb rows at 512+32, 512+32+64, ...: bytes 544.. */
    OK(clEnqueueCopyBufferRect(g_q, sa, sb, z3, d32, reg6, 128, 512, 64, 256, 0, NULL, NULL));
    /* ... and the same with a shared byte: sb's first row at 512 + 0 = sa's row 4 (512). */
    RC(clEnqueueCopyBufferRect(g_q, sa, sb, z3, z3, (size_t[3]){32, 5, 1}, 128, 640, 64, 320, 0, NULL, NULL),
       CL_MEM_COPY_OVERLAP);
    OK(clReleaseMemObject(sa));
    OK(clReleaseMemObject(sb));
    OK(clReleaseMemObject(m));

    /* 3. CL_CONTEXT_INTEROP_USER_SYNC takes CL_TRUE or CL_FALSE only. */
    cl_context_properties pr[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)g_pl, CL_CONTEXT_INTEROP_USER_SYNC, 2, 0};
    CHECK(clCreateContext(pr, 1, &g_dev, NULL, NULL, &err) == NULL && err == CL_INVALID_PROPERTY);
    pr[3] = CL_TRUE;
    cl_context c2 = clCreateContext(pr, 1, &g_dev, NULL, NULL, &err);
    OK(err);
    if (c2) OK(clReleaseContext(c2));
    pr[3] = (cl_context_properties)-1;
    CHECK(clCreateContextFromType(pr, CL_DEVICE_TYPE_ALL, NULL, NULL, &err) == NULL && err == CL_INVALID_PROPERTY);

    /* 4. Device values at or above the embedded profile's minimums (CTS api min_max_*). */
    char profile[64] = "";
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_PROFILE, sizeof profile, profile, NULL));
    int embedded = strcmp(profile, "EMBEDDED_PROFILE") == 0;
    cl_ulong lm = 0;
    cl_device_local_mem_type lt = 0;
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lm, &lm, NULL));
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_LOCAL_MEM_TYPE, sizeof lt, &lt, NULL));
    CHECK(lm >= (embedded ? 1024u : 32768u));
    CHECK(lt == CL_LOCAL || lt == CL_GLOBAL);
    cl_device_fp_config fp = 0;
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL));
    CHECK(embedded ? (fp & (CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO)) != 0
                   : (fp & (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN)) == (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN));
    size_t mb = 0;
    OK(clGetDeviceInfo(g_dev, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, sizeof mb, &mb, NULL));
    CHECK(mb >= (embedded ? 2048u : 65536u));
    /* The minimum image formats for 1D image buffers too: CL_RGBA x the 10 channel types. */
    static const cl_channel_type need[] = {CL_UNORM_INT8, CL_UNORM_INT16, CL_SIGNED_INT8, CL_SIGNED_INT16,
        CL_SIGNED_INT32, CL_UNSIGNED_INT8, CL_UNSIGNED_INT16, CL_UNSIGNED_INT32, CL_HALF_FLOAT, CL_FLOAT};
    cl_image_format fmts[64];
    cl_uint nf = 0;
    OK(clGetSupportedImageFormats(g_ctx, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE1D_BUFFER, 64, fmts, &nf));
    int have = 0;
    for (size_t k = 0; k < 10; k++)
        for (cl_uint i = 0; i < nf && i < 64; i++)
            have += fmts[i].image_channel_order == CL_RGBA && fmts[i].image_channel_data_type == need[k];
    CHECK(have == 10);

    /* 5. 1D image buffers: the buffer's bytes seen as pixels, both ways. */
    uint32_t words[256];
    for (int i = 0; i < 256; i++) words[i] = 0xa0000000u + (uint32_t)i;
    cl_mem bb = buf(CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof words, words);
    cl_mem ib = image1d_buffer(0, CL_RGBA, CL_UNSIGNED_INT32, 64, bb, &err);  /* 16-byte pixels */
    OK(err);
    uint32_t pix[16];
    size_t o1[3] = {10, 0, 0}, r1[3] = {4, 1, 1};
    OK(clEnqueueReadImage(g_q, ib, CL_TRUE, o1, r1, 0, 0, pix, 0, NULL, NULL));
    CHECK(pix[0] == 0xa0000000u + 40 && pix[15] == 0xa0000000u + 55);
    for (int i = 0; i < 16; i++) pix[i] = 0x5000u + (uint32_t)i;
    OK(clEnqueueWriteImage(g_q, ib, CL_TRUE, o1, r1, 0, 0, pix, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(g_q, bb, CL_TRUE, 0, sizeof words, words, 0, NULL, NULL));
    CHECK(words[39] == 0xa0000000u + 39 && words[40] == 0x5000u && words[55] == 0x500fu && words[56] == 0xa0000000u + 56);
    cl_mem got_b = NULL, assoc = NULL;
    OK(clGetImageInfo(ib, CL_IMAGE_BUFFER, sizeof got_b, &got_b, NULL));
    OK(clGetMemObjectInfo(ib, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc, &assoc, NULL));
    CHECK(got_b == bb && assoc == bb);
    size_t ih = 7, iw = 0, ia = 7, idp = 7;  /* a 1D type: height, depth, array size 0 (CTS clGetInfo) */
    OK(clGetImageInfo(ib, CL_IMAGE_WIDTH, sizeof iw, &iw, NULL));
    OK(clGetImageInfo(ib, CL_IMAGE_HEIGHT, sizeof ih, &ih, NULL));
    OK(clGetImageInfo(ib, CL_IMAGE_DEPTH, sizeof idp, &idp, NULL));
    OK(clGetImageInfo(ib, CL_IMAGE_ARRAY_SIZE, sizeof ia, &ia, NULL));
    CHECK(iw == 64 && ih == 0 && idp == 0 && ia == 0);
    cl_mem_flags fl = 0;
    OK(clGetMemObjectInfo(ib, CL_MEM_FLAGS, sizeof fl, &fl, NULL));
    CHECK(fl & CL_MEM_READ_WRITE);  /* inherited */
    /* Its maps count against the buffer's: a write map of the buffer over pixel 12. */
    void *wm = clEnqueueMapBuffer(g_q, bb, CL_TRUE, CL_MAP_WRITE, 12 * 16, 16, 0, NULL, NULL, &err);
    OK(err);
    size_t rp = 0, r2[3] = {3, 1, 1};  /* pixels 10..12: bytes 160..207 */
    CHECK(clEnqueueMapImage(g_q, ib, CL_TRUE, CL_MAP_READ, o1, r2, &rp, NULL, 0, NULL, NULL, &err) == NULL &&
          err == CL_INVALID_OPERATION);
    OK(clEnqueueUnmapMemObject(g_q, bb, wm, 0, NULL, NULL));
    void *im = clEnqueueMapImage(g_q, ib, CL_TRUE, CL_MAP_READ, o1, r2, &rp, NULL, 0, NULL, NULL, &err);
    OK(err);
    CHECK(im && ((uint32_t *)im)[0] == 0x5000u);
    OK(clEnqueueUnmapMemObject(g_q, ib, im, 0, NULL, NULL));
    /* On a sub-buffer: pixels from its origin. */
    cl_buffer_region half = {512, 512};
    cl_mem sub = clCreateSubBuffer(bb, 0, CL_BUFFER_CREATE_TYPE_REGION, &half, &err);
    OK(err);
    cl_mem is = image1d_buffer(0, CL_R, CL_UNSIGNED_INT32, 128, sub, &err);
    OK(err);
    uint32_t one = 0;
    OK(clEnqueueReadImage(g_q, is, CL_TRUE, o0, (size_t[3]){1, 1, 1}, 0, 0, &one, 0, NULL, NULL));
    CHECK(one == 0xa0000000u + 128);
    /* Errors: no buffer, too small a buffer, too wide, host pointer flags, widened access. */
    CHECK(image1d_buffer(0, CL_R, CL_UNSIGNED_INT32, 4, NULL, &err) == NULL && err == CL_INVALID_IMAGE_DESCRIPTOR);
    CHECK(image1d_buffer(0, CL_R, CL_UNSIGNED_INT32, 257, bb, &err) == NULL && err == CL_INVALID_IMAGE_DESCRIPTOR);
    CHECK(image1d_buffer(0, CL_R, CL_UNSIGNED_INT8, mb + 1, bb, &err) == NULL && err == CL_INVALID_IMAGE_SIZE);
    CHECK(image1d_buffer(CL_MEM_USE_HOST_PTR, CL_R, CL_UNSIGNED_INT32, 4, bb, &err) == NULL && err == CL_INVALID_VALUE);
    cl_mem rob = buf(CL_MEM_READ_ONLY, 64, NULL);
    CHECK(image1d_buffer(CL_MEM_READ_WRITE, CL_R, CL_UNSIGNED_INT32, 4, rob, &err) == NULL && err == CL_INVALID_VALUE);
    CHECK(image1d_buffer(0, CL_R, CL_UNSIGNED_INT32, 4, flat ? (cl_mem)g_q : (cl_mem)g_q, &err) == NULL &&
          err == CL_INVALID_IMAGE_DESCRIPTOR);
    OK(clReleaseMemObject(rob));
    OK(clReleaseMemObject(is));
    OK(clReleaseMemObject(sub));
    OK(clReleaseMemObject(ib));
    OK(clReleaseMemObject(bb));
    NOTE("3D depth 1, exact copy-rect overlap, INTEROP_USER_SYNC values, device minimums, 1D image buffers");
    teardown();
}

int main(int argc, char **argv)
{
    static const struct { const char *name; void (*fn)(void); } cases[] = {
        {"platform", t_platform}, {"context", t_context}, {"buffer_flags", t_buffer_flags},
        {"sub_buffers", t_sub_buffers}, {"map_device", t_map_device},
        {"map_zero_copy", t_map_zero_copy}, {"map_events", t_map_events},
        {"map_errors", t_map_errors}, {"copy_fill_rect", t_copy_fill_rect},
        {"events", t_events}, {"kernels", t_kernels}, {"programs", t_programs},
        {"invalid_objects", t_invalid_objects}, {"access_flags", t_access_flags},
        {"images", t_images}, {"images_nd", t_images_nd}, {"map_overlap", t_map_overlap},
        {"cts_findings", t_cts_findings}};
    if (argc != 2) {
        fprintf(stderr, "usage: %s <case>\n", argv[0]);
        return 2;
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[1], cases[i].name) == 0) {
            printf("opencl %s\n", cases[i].name);
            cases[i].fn();
            printf("%s: %d checks, %d failures\n", fails ? "FAIL" : "PASS", checks, fails);
            return fails ? 1 : 0;
        }
    fprintf(stderr, "unknown case %s\n", argv[1]);
    return 2;
}
