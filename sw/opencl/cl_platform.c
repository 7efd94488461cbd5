/*
 * vmgpu's OpenCL ICD: the ICD entry points, the dispatch table, the object registry, the
 * library lock with its deferred callbacks, and the platform and device queries.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_internal.h"
#include "vmgpu_builtin.h"

pthread_mutex_t vcl_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t vcl_cond = PTHREAD_COND_INITIALIZER;
vmgpu_dev *vcl_dev;
vmgpu_dev_info vcl_info;
static int g_dev_tried;
static cl_int g_dev_rc = CL_DEVICE_NOT_FOUND;
static char g_spec[128] = "sim";

#define X_ENTRY(name) .cl##name = vcl_##name,
const struct _cl_icd_dispatch vcl_dispatch = {VCL_ENTRIES(X_ENTRY)};
#undef X_ENTRY

struct _cl_platform_id vcl_platform = {&vcl_dispatch, VCL_PLATFORM, 1, 1};
struct _cl_device_id vcl_device = {&vcl_dispatch, VCL_DEVICE, 1, 1};

void vcl_trace(const char *fmt, ...)
{
    if (!vmgpu_trace_enabled()) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[opencl] ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

/* ------------------------------------------------------------------ registry */

/* Open-addressed set of every object shell ever made (shells are never freed). */
static void **g_objs;
static size_t g_objs_cap, g_objs_n;

static size_t ptr_hash(const void *p) { return (size_t)(((uintptr_t)p >> 4) * 0x9e3779b97f4a7c15ull); }

void vcl_register(void *obj, uint32_t magic)
{
    (void)magic;
    if ((g_objs_n + 1) * 2 > g_objs_cap) {
        size_t nc = g_objs_cap ? g_objs_cap * 2 : 1024;
        void **n = calloc(nc, sizeof *n);
        if (!n) abort();
        for (size_t i = 0; i < g_objs_cap; i++)
            if (g_objs[i])
                for (size_t j = ptr_hash(g_objs[i]) & (nc - 1);; j = (j + 1) & (nc - 1))
                    if (!n[j]) { n[j] = g_objs[i]; break; }
        free(g_objs);
        g_objs = n;
        g_objs_cap = nc;
    }
    for (size_t j = ptr_hash(obj) & (g_objs_cap - 1);; j = (j + 1) & (g_objs_cap - 1)) {
        if (g_objs[j] == obj) return;
        if (!g_objs[j]) { g_objs[j] = obj; g_objs_n++; return; }
    }
}

static int registered(const void *obj)
{
    if (!g_objs_cap) return 0;
    for (size_t j = ptr_hash(obj) & (g_objs_cap - 1);; j = (j + 1) & (g_objs_cap - 1)) {
        if (g_objs[j] == obj) return 1;
        if (!g_objs[j]) return 0;
    }
}

int vcl_valid(const void *obj, uint32_t magic)
{
    if (!obj) return 0;
    if (obj == &vcl_platform) return magic == VCL_PLATFORM;
    if (obj == &vcl_device) return magic == VCL_DEVICE;
    if (!registered(obj)) return 0;
    const struct _cl_context *h = obj;  /* every object starts with VCL_HEAD */
    return h->magic == magic && h->live;
}

int vcl_valid_device(cl_device_id d) { return d == &vcl_device; }

/* ------------------------------------------------------ lock and deferred callbacks */

typedef struct deferred {
    int kind;  /* 0 event, 1 destructor, 2 context notify */
    vcl_evcb ev;
    cl_event event;
    cl_int status;
    vcl_dtor dtor;
    cl_mem mem;
    vcl_ctx_cb notify;
    char msg[160];
    struct deferred *next;
} deferred;
static deferred *g_def_head, *g_def_tail;

static void defer(deferred *d)
{
    d->next = NULL;
    if (g_def_tail) g_def_tail->next = d; else g_def_head = d;
    g_def_tail = d;
}

void vcl_defer_event_cb(vcl_evcb *cb, cl_event ev, cl_int status)
{
    deferred *d = calloc(1, sizeof *d);
    if (!d) return;
    d->kind = 0;
    d->ev = *cb;
    d->event = ev;
    d->status = status;
    ev->refs++;  /* the event stays valid until its callback returned */
    defer(d);
}

void vcl_defer_dtor(vcl_dtor *x, cl_mem m)
{
    deferred *d = calloc(1, sizeof *d);
    if (!d) return;
    d->kind = 1;
    d->dtor = *x;
    d->mem = m;
    defer(d);
}

void vcl_defer_ctx_notify(cl_context c, const char *msg)
{
    if (!c->notify.fn) return;
    deferred *d = calloc(1, sizeof *d);
    if (!d) return;
    d->kind = 2;
    d->notify = c->notify;
    snprintf(d->msg, sizeof d->msg, "%s", msg);
    defer(d);
}

void vcl_enter(void) { pthread_mutex_lock(&vcl_lock); }

void vcl_leave(void)
{
    for (;;) {
        deferred *d = g_def_head;
        if (!d) break;
        g_def_head = d->next;
        if (!g_def_head) g_def_tail = NULL;
        pthread_mutex_unlock(&vcl_lock);
        if (d->kind == 0) d->ev.fn(d->event, d->status, d->ev.user);
        else if (d->kind == 1) d->dtor.fn(d->mem, d->dtor.user);
        else d->notify.fn(d->msg, NULL, 0, d->notify.user);
        pthread_mutex_lock(&vcl_lock);
        if (d->kind == 0) vcl_event_release(d->event);
        free(d);
    }
    pthread_mutex_unlock(&vcl_lock);
}

/* ------------------------------------------------------------------- helpers */

cl_int vcl_info_out(const void *src, size_t n, size_t size, void *value, size_t *ret)
{
    if (value) {
        if (size < n) return CL_INVALID_VALUE;
        memcpy(value, src, n);
    }
    if (ret) *ret = n;
    return CL_SUCCESS;
}

cl_ulong vcl_cycles_ns(uint64_t cycles)
{
    /* 50 MHz: 20 ns per cycle; written generally in case the nominal clock changes. */
    return (cl_ulong)(cycles * (1000000000ull / VMGPU_CLOCK_HZ) +
                      (cycles * (1000000000ull % VMGPU_CLOCK_HZ)) / VMGPU_CLOCK_HZ);
}

cl_ulong vcl_now_ns(void)
{
    uint64_t c = 0;
    if (vcl_dev) vmgpu_dev_cycles(vcl_dev, &c);
    return vcl_cycles_ns(c);
}

cl_ulong vcl_q_now(cl_command_queue q)
{
    return (q->props & CL_QUEUE_PROFILING_ENABLE) ? vcl_now_ns() : 0;
}

static void vcl_atexit(void)
{
    if (pthread_mutex_trylock(&vcl_lock) != 0) return;
    /* Closing finishes waveform files; contexts still alive die with the process. */
    if (vcl_dev) vmgpu_dev_close(vcl_dev);
    vcl_dev = NULL;
    pthread_mutex_unlock(&vcl_lock);
}

/* Opens the device on first need; the platform exists even when no device can be opened. */
cl_int vcl_dev_ready(void)
{
    if (g_dev_tried) return g_dev_rc;
    g_dev_tried = 1;
    const char *spec = getenv("VMGPU_DEVICE");
    snprintf(g_spec, sizeof g_spec, "%s", spec && spec[0] ? spec : "sim");
    char err[512] = "";
    int rc = vmgpu_dev_open(NULL, &vcl_dev, err, sizeof err);
    if (rc) {
        fprintf(stderr, "vmgpu OpenCL: no device: %s\n", err[0] ? err : vmgpu_status_name(rc));
        vcl_dev = NULL;
        return g_dev_rc = CL_DEVICE_NOT_FOUND;
    }
    vmgpu_dev_get_info(vcl_dev, &vcl_info);
    atexit(vcl_atexit);
    vcl_trace("device \"%s\": %u bytes of memory, %u rings", g_spec, vcl_info.mem_size,
              vcl_info.n_rings);
    return g_dev_rc = CL_SUCCESS;
}

/* For vmgpu's own tools (vmgpu-bench reads the cycle counter and the link round trips of the
 * device this library opened); not an OpenCL name, so no application can collide with it. */
__attribute__((visibility("default"))) vmgpu_dev *vmgpu_opencl_core_device(void)
{
    vcl_enter();
    vmgpu_dev *d = vcl_dev_ready() ? NULL : vcl_dev;
    vcl_leave();
    return d;
}

/* -------------------------------------------------------------------- platform */

#define PLATFORM_EXTENSIONS "cl_khr_icd"
#define DEVICE_EXTENSIONS "cl_khr_icd"
#define ATOMIC_EXTENSIONS "cl_khr_global_int32_base_atomics cl_khr_global_int32_extended_atomics"
#define BUILTIN_KERNELS                                                                      \
    VMGPU_BUILTIN_FILL_I32 ";" VMGPU_BUILTIN_COPY_I32 ";" VMGPU_BUILTIN_ADD_I32 ";"          \
    VMGPU_BUILTIN_SCALE_I32 ";" VMGPU_BUILTIN_AXPY_I32 ";" VMGPU_BUILTIN_REDUCE_SUM_I32

static cl_int platform_ids(cl_uint n, cl_platform_id *p, cl_uint *np)
{
    if ((n == 0 && p) || (!p && !np)) return CL_INVALID_VALUE;
    if (p) p[0] = &vcl_platform;
    if (np) *np = 1;
    return CL_SUCCESS;
}

cl_int CL_API_CALL vcl_GetPlatformIDs(cl_uint n, cl_platform_id *p, cl_uint *np)
{
    vcl_enter();
    cl_int rc = platform_ids(n, p, np);
    vcl_leave();
    return rc;
}

/* The only symbols the library exports besides clGetExtensionFunctionAddress*. */
__attribute__((visibility("default"))) cl_int CL_API_CALL
clIcdGetPlatformIDsKHR(cl_uint n, cl_platform_id *p, cl_uint *np)
{
    vcl_enter();
    cl_int rc = platform_ids(n, p, np);
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_GetPlatformInfo(cl_platform_id pl, cl_platform_info param, size_t size,
                                       void *value, size_t *ret)
{
    /* One platform: NULL means it (the behaviour is implementation-defined). */
    if (pl && !vcl_valid(pl, VCL_PLATFORM)) return CL_INVALID_PLATFORM;
    const char *s;
    switch (param) {
    case CL_PLATFORM_PROFILE: s = "EMBEDDED_PROFILE"; break;
    case CL_PLATFORM_VERSION: s = "OpenCL 1.2 vmgpu " VMGPU_CL_VERSION; break;
    case CL_PLATFORM_NAME: s = "vmgpu"; break;
    case CL_PLATFORM_VENDOR: s = "vmgpu project"; break;
    case CL_PLATFORM_EXTENSIONS: s = PLATFORM_EXTENSIONS; break;
    case CL_PLATFORM_ICD_SUFFIX_KHR: s = "VMGPU"; break;
    default: return CL_INVALID_VALUE;
    }
    return vcl_info_out(s, strlen(s) + 1, size, value, ret);
}

/* ocl-icd looks this one up with dlsym() to read CL_PLATFORM_ICD_SUFFIX_KHR. */
__attribute__((visibility("default"))) cl_int CL_API_CALL
clGetPlatformInfo(cl_platform_id pl, cl_platform_info param, size_t size, void *value, size_t *ret)
{
    return vcl_GetPlatformInfo(pl, param, size, value, ret);
}

__attribute__((visibility("default"))) void *CL_API_CALL
clGetExtensionFunctionAddress(const char *name)
{
    if (name && strcmp(name, "clIcdGetPlatformIDsKHR") == 0) return (void *)clIcdGetPlatformIDsKHR;
    return NULL;
}

__attribute__((visibility("default"))) void *CL_API_CALL
clGetExtensionFunctionAddressForPlatform(cl_platform_id pl, const char *name)
{
    if (pl && pl != &vcl_platform) return NULL;
    return clGetExtensionFunctionAddress(name);
}

void *CL_API_CALL vcl_GetExtensionFunctionAddress(const char *name)
{
    return clGetExtensionFunctionAddress(name);
}

void *CL_API_CALL vcl_GetExtensionFunctionAddressForPlatform(cl_platform_id pl, const char *name)
{
    return clGetExtensionFunctionAddressForPlatform(pl, name);
}

/* --------------------------------------------------------------------- devices */

cl_int CL_API_CALL vcl_GetDeviceIDs(cl_platform_id pl, cl_device_type type, cl_uint n,
                                    cl_device_id *devs, cl_uint *ndev)
{
    if (pl && !vcl_valid(pl, VCL_PLATFORM)) return CL_INVALID_PLATFORM;
    const cl_device_type known = CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                                 CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_DEFAULT |
                                 CL_DEVICE_TYPE_CUSTOM;
    if (type != CL_DEVICE_TYPE_ALL && (type == 0 || (type & ~known))) return CL_INVALID_DEVICE_TYPE;
    if ((n == 0 && devs) || (!devs && !ndev)) return CL_INVALID_VALUE;
    vcl_enter();
    cl_int rc = vcl_dev_ready();
    vcl_leave();
    if (rc) return CL_DEVICE_NOT_FOUND;
    /* The accelerator is also the platform's default device. */
    if (!(type & (CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_DEFAULT))) return CL_DEVICE_NOT_FOUND;
    if (devs) devs[0] = &vcl_device;
    if (ndev) *ndev = 1;
    return CL_SUCCESS;
}

cl_int CL_API_CALL vcl_GetDeviceInfo(cl_device_id d, cl_device_info param, size_t size,
                                     void *value, size_t *ret)
{
    if (!vcl_valid(d, VCL_DEVICE)) return CL_INVALID_DEVICE;
    vcl_enter();
    cl_int drc = vcl_dev_ready();
    vcl_leave();
    if (drc) return CL_INVALID_DEVICE;
    union {
        cl_uint u;
        cl_ulong ul;
        size_t sz;
        cl_bool b;
        cl_bitfield bf;
        size_t sizes[3];
        cl_device_partition_property pp[1];
        void *ptr;
    } v;
    memset(&v, 0, sizeof v);
    size_t n = 0;
    const char *s = NULL;
    cl_ulong global = vcl_info.user_bytes;
    cl_ulong max_alloc = vcl_max_alloc();
#define U(x) do { v.u = (cl_uint)(x); n = sizeof(cl_uint); } while (0)
#define UL(x) do { v.ul = (cl_ulong)(x); n = sizeof(cl_ulong); } while (0)
#define SZ(x) do { v.sz = (size_t)(x); n = sizeof(size_t); } while (0)
#define B(x) do { v.b = (x) ? CL_TRUE : CL_FALSE; n = sizeof(cl_bool); } while (0)
#define BF(x) do { v.bf = (cl_bitfield)(x); n = sizeof(cl_bitfield); } while (0)
    switch (param) {
    case CL_DEVICE_TYPE: BF(CL_DEVICE_TYPE_ACCELERATOR); break;
    case CL_DEVICE_VENDOR_ID: U(0); break;
    /* One compute engine: one compute unit. */
    case CL_DEVICE_MAX_COMPUTE_UNITS: U(1); break;
    case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS: U(3); break;
    /* The SIMT unit's block: lanes x warps threads (docs/opencl.md). */
    case CL_DEVICE_MAX_WORK_ITEM_SIZES:
        v.sizes[0] = v.sizes[1] = v.sizes[2] = vcl_max_work_item();
        n = sizeof v.sizes;
        break;
    case CL_DEVICE_MAX_WORK_GROUP_SIZE: SZ(vcl_max_work_group()); break;
    /* Only int32 kernels exist; vector widths say 1 for int and 0 where a type is absent. */
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT: U(1); break;
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF: U(0); break;
    case CL_DEVICE_MAX_CLOCK_FREQUENCY: U(VMGPU_CLOCK_HZ / 1000000u); break;
    case CL_DEVICE_ADDRESS_BITS: U(32); break;
    case CL_DEVICE_MAX_MEM_ALLOC_SIZE: UL(max_alloc); break;
    /* 2D images on the 2D DMA (cl_image.c). The kernel-side figures are the 1.2 embedded
     * profile's minimums, which the spec requires once images are supported; no built-in
     * kernel takes an image or a sampler, so they are never reached (docs/opencl.md). */
    case CL_DEVICE_IMAGE_SUPPORT: B(1); break;
    case CL_DEVICE_MAX_READ_IMAGE_ARGS: U(8); break;
    case CL_DEVICE_MAX_WRITE_IMAGE_ARGS: U(1); break;
    case CL_DEVICE_MAX_SAMPLERS: U(8); break;
    case CL_DEVICE_IMAGE2D_MAX_WIDTH:
    case CL_DEVICE_IMAGE2D_MAX_HEIGHT: SZ(2048); break;
    /* 3D images (optional in the embedded profile) with the full profile's 2048; arrays with
     * the 1.2 minimum of 256 layers; 1D image buffers with the full profile's 65536 pixels. */
    case CL_DEVICE_IMAGE3D_MAX_WIDTH:
    case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
    case CL_DEVICE_IMAGE3D_MAX_DEPTH: SZ(2048); break;
    case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE: SZ(256); break;
    case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE: SZ(VCL_IMAGE_BUFFER_MAX); break;
    /* Five 4-byte arguments, or handles, per built-in kernel. */
    case CL_DEVICE_MAX_PARAMETER_SIZE: SZ(256); break;
    case CL_DEVICE_MEM_BASE_ADDR_ALIGN: U(VCL_BASE_ADDR_ALIGN_BITS); break;
    case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE: U(128); break;
    /* No kernel computes in floating point yet (the built-in kernels are int32); what single
     * precision there is, the float image formats' conversions, rounds to nearest even and keeps
     * infinities and NaNs. The embedded profile asks for one rounding mode at least (CTS
     * min_max_single_fp_config); the full profile's minimum is this pair. */
    /* On the SIMT unit kernels compute in single precision with fused multiply-add and with
     * denormals, in the F extension's hardware or, without it, in the float helpers linked into
     * the program (vmgpu_softfloat.c, the same results bit for bit): both take and give
     * subnormals exactly, never flushing them (docs/cores.md, docs/opencl.md). */
    case CL_DEVICE_SINGLE_FP_CONFIG:
        BF(CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN |
           ((vcl_info.simt_isa & VMGPU_SIMT_ISA_F) || vcl_info.simt_lanes ? CL_FP_FMA | CL_FP_DENORM : 0));
        break;
    case CL_DEVICE_DOUBLE_FP_CONFIG: BF(0); break;
    case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE: U(CL_NONE); break;
    case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE: U(0); break;
    case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE: UL(0); break;
    case CL_DEVICE_GLOBAL_MEM_SIZE: UL(global); break;
    case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE: UL(1024); break;
    case CL_DEVICE_MAX_CONSTANT_ARGS: U(4); break;
    /* No on-chip local memory: a work-group's __local arrays will live in device memory
     * (CL_GLOBAL, which the spec allows), 32 KiB each: the full profile's minimum, above the
     * embedded profile's 1 KiB, and no cost until a kernel declares some (docs/opencl.md). */
    /* With the SIMT unit: its shared memory (block RAM in the unit). */
    case CL_DEVICE_LOCAL_MEM_TYPE: U(vcl_info.simt_lanes ? CL_LOCAL : CL_GLOBAL); break;
    case CL_DEVICE_LOCAL_MEM_SIZE: UL(vcl_info.simt_lanes ? vcl_info.simt_shared_bytes : 32u * 1024u); break;
    case CL_DEVICE_ERROR_CORRECTION_SUPPORT: B(0); break;
    case CL_DEVICE_HOST_UNIFIED_MEMORY: B(0); break;
    case CL_DEVICE_PROFILING_TIMER_RESOLUTION: SZ(1000000000u / VMGPU_CLOCK_HZ); break;
    case CL_DEVICE_ENDIAN_LITTLE: B(1); break;
    case CL_DEVICE_AVAILABLE: B(1); break;
    /* OpenCL C: the SIMT unit, clang-14 and ld.lld-14 (cl_compile.c). */
    case CL_DEVICE_COMPILER_AVAILABLE:
    case CL_DEVICE_LINKER_AVAILABLE: B(vcl_compiler_available(NULL, 0)); break;
    case CL_DEVICE_EXECUTION_CAPABILITIES: BF(CL_EXEC_KERNEL); break;
    case CL_DEVICE_QUEUE_PROPERTIES: BF(CL_QUEUE_PROFILING_ENABLE); break;
    case CL_DEVICE_BUILT_IN_KERNELS: s = BUILTIN_KERNELS; break;
    case CL_DEVICE_PLATFORM: v.ptr = &vcl_platform; n = sizeof(void *); break;
    case CL_DEVICE_NAME: s = "vmgpu"; break;
    case CL_DEVICE_VENDOR: s = "vmgpu project"; break;
    case CL_DRIVER_VERSION: s = VMGPU_CL_VERSION; break;
    case CL_DEVICE_PROFILE: s = "EMBEDDED_PROFILE"; break;
    case CL_DEVICE_VERSION: s = "OpenCL 1.2 vmgpu"; break;
    /* Embedded profile without a compiler: the C version is still a required answer. */
    case CL_DEVICE_OPENCL_C_VERSION: s = "OpenCL C 1.2 "; break;
    /* The 32-bit global atomics only where the unit executes AMOs (CAPS.SIMT_A). */
    case CL_DEVICE_EXTENSIONS:
        s = (vcl_info.simt_isa & VMGPU_SIMT_ISA_A) ? DEVICE_EXTENSIONS " " ATOMIC_EXTENSIONS : DEVICE_EXTENSIONS;
        break;
    case CL_DEVICE_PRINTF_BUFFER_SIZE: SZ(0); break;
    case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC: B(1); break;
    case CL_DEVICE_PARENT_DEVICE: v.ptr = NULL; n = sizeof(void *); break;
    case CL_DEVICE_PARTITION_MAX_SUB_DEVICES: U(0); break;
    case CL_DEVICE_PARTITION_PROPERTIES:
    case CL_DEVICE_PARTITION_TYPE: v.pp[0] = 0; n = sizeof(cl_device_partition_property); break;
    case CL_DEVICE_PARTITION_AFFINITY_DOMAIN: BF(0); break;
    case CL_DEVICE_REFERENCE_COUNT: U(1); break;  /* root device */
    default: return CL_INVALID_VALUE;
    }
#undef U
#undef UL
#undef SZ
#undef B
#undef BF
    if (s) return vcl_info_out(s, strlen(s) + 1, size, value, ret);
    return vcl_info_out(&v, n, size, value, ret);
}

cl_int CL_API_CALL vcl_CreateSubDevices(cl_device_id d, const cl_device_partition_property *p,
                                        cl_uint n, cl_device_id *out, cl_uint *nout)
{
    (void)p; (void)n; (void)out; (void)nout;
    if (!vcl_valid(d, VCL_DEVICE)) return CL_INVALID_DEVICE;
    /* CL_DEVICE_PARTITION_PROPERTIES is empty: no partition type is supported. */
    return CL_INVALID_VALUE;
}

cl_int CL_API_CALL vcl_RetainDevice(cl_device_id d)
{
    return vcl_valid(d, VCL_DEVICE) ? CL_SUCCESS : CL_INVALID_DEVICE;
}

cl_int CL_API_CALL vcl_ReleaseDevice(cl_device_id d)
{
    return vcl_valid(d, VCL_DEVICE) ? CL_SUCCESS : CL_INVALID_DEVICE;
}

/* Images and samplers: cl_image.c. */

cl_int CL_API_CALL vcl_EnqueueNativeKernel(cl_command_queue q, void(CL_CALLBACK *fn)(void *),
                                           void *args, size_t cb, cl_uint nm, const cl_mem *ml,
                                           const void **loc, cl_uint n, const cl_event *w,
                                           cl_event *e)
{
    (void)fn; (void)args; (void)cb; (void)nm; (void)ml; (void)loc; (void)n; (void)w; (void)e;
    /* CL_DEVICE_EXECUTION_CAPABILITIES has no CL_EXEC_NATIVE_KERNEL. */
    return vcl_valid(q, VCL_QUEUE) ? CL_INVALID_OPERATION : CL_INVALID_COMMAND_QUEUE;
}

size_t vcl_max_work_group(void)
{
    size_t t = (size_t)vcl_info.simt_lanes * vcl_info.simt_warps;
    return t ? t : VCL_MAX_WORK_GROUP;
}

size_t vcl_max_work_item(void)
{
    size_t t = vcl_max_work_group();
    return t < 1023 ? t : (vcl_info.simt_lanes ? 1023 : t);
}
