/*
 * vmgpu's CUDA driver API: initialisation, errors, devices, contexts, and the process-wide
 * virtual address space every context mirrors.
 *
 * One vmgpu device, opened by cuInit (VMGPU_DEVICE picks the transport). CUDA promises one
 * unified VA space per process; the core gives every context its own page tables. So the
 * library keeps the reservations and mappings here, process-wide, and replays each change into
 * every live context (and a new context replays them all): a pointer means the same memory in
 * every context, while faults stay per context (per ASID). The core is not thread-safe: every
 * entry point holds g_lock for its whole duration.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "cuda_priv.h"

pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
int g_inited;           /* 1 after a successful cuInit */
static CUresult g_init_rc = CUDA_ERROR_NOT_INITIALIZED;
static int g_init_tried;
vmgpu_dev *g_dev;
vmgpu_dev_info g_info;
static char g_spec[128];
struct CUctx_st *g_ctxs;
static struct CUctx_st *g_primary;
static unsigned g_primary_refs;
static unsigned g_next_ring;
cu_alloc *g_allocs;
cu_resv *g_resvs;
cu_map *g_maps;
cu_dalloc *g_dallocs;
static uint64_t g_next_handle = 0x1000;

static __thread struct CUctx_st *t_stack[CTX_STACK_MAX];
static __thread int t_depth;

void cu_lock(void) { pthread_mutex_lock(&g_lock); }
void cu_unlock(void) { pthread_mutex_unlock(&g_lock); }

void cu_trace(const char *fmt, ...)
{
    if (!vmgpu_trace_enabled()) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[cuda] ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

CUresult cu_trace_rc(const char *name, CUresult rc)
{
    if (vmgpu_trace_enabled()) {
        const char *n = "?";
        cuGetErrorName(rc, &n);
        fprintf(stderr, "[cuda] %s -> %s%s%s\n", name, n ? n : "?",
                rc && g_dev && vmgpu_dev_last_error(g_dev)[0] ? " / core: " : "",
                rc && g_dev ? vmgpu_dev_last_error(g_dev) : "");
    }
    return rc;
}

/* ------------------------------------------------------------------------ errors */

static const struct { CUresult rc; const char *name, *text; } k_errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_PROFILER_DISABLED, "CUDA_ERROR_PROFILER_DISABLED", "profiler disabled while using external profiling tool"},
    {CUDA_ERROR_PROFILER_NOT_INITIALIZED, "CUDA_ERROR_PROFILER_NOT_INITIALIZED", "profiler not initialized: call cudaProfilerInitialize()"},
    {CUDA_ERROR_PROFILER_ALREADY_STARTED, "CUDA_ERROR_PROFILER_ALREADY_STARTED", "profiler already started"},
    {CUDA_ERROR_PROFILER_ALREADY_STOPPED, "CUDA_ERROR_PROFILER_ALREADY_STOPPED", "profiler already stopped"},
    {CUDA_ERROR_STUB_LIBRARY, "CUDA_ERROR_STUB_LIBRARY", "CUDA driver is a stub library"},
    {CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA_ERROR_DEVICE_UNAVAILABLE", "CUDA-capable device(s) is/are busy or unavailable"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_DEVICE_NOT_LICENSED, "CUDA_ERROR_DEVICE_NOT_LICENSED", "device doesn't have valid Grid license"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_CONTEXT_ALREADY_CURRENT, "CUDA_ERROR_CONTEXT_ALREADY_CURRENT", "context already current"},
    {CUDA_ERROR_MAP_FAILED, "CUDA_ERROR_MAP_FAILED", "mapping of buffer object failed"},
    {CUDA_ERROR_UNMAP_FAILED, "CUDA_ERROR_UNMAP_FAILED", "unmapping of buffer object failed"},
    {CUDA_ERROR_ARRAY_IS_MAPPED, "CUDA_ERROR_ARRAY_IS_MAPPED", "array is mapped"},
    {CUDA_ERROR_ALREADY_MAPPED, "CUDA_ERROR_ALREADY_MAPPED", "resource already mapped"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"},
    {CUDA_ERROR_ALREADY_ACQUIRED, "CUDA_ERROR_ALREADY_ACQUIRED", "resource already acquired"},
    {CUDA_ERROR_NOT_MAPPED, "CUDA_ERROR_NOT_MAPPED", "resource not mapped"},
    {CUDA_ERROR_NOT_MAPPED_AS_ARRAY, "CUDA_ERROR_NOT_MAPPED_AS_ARRAY", "resource not mapped as array"},
    {CUDA_ERROR_NOT_MAPPED_AS_POINTER, "CUDA_ERROR_NOT_MAPPED_AS_POINTER", "resource not mapped as pointer"},
    {CUDA_ERROR_ECC_UNCORRECTABLE, "CUDA_ERROR_ECC_UNCORRECTABLE", "uncorrectable ECC error encountered"},
    {CUDA_ERROR_UNSUPPORTED_LIMIT, "CUDA_ERROR_UNSUPPORTED_LIMIT", "limit is not supported on this architecture"},
    {CUDA_ERROR_CONTEXT_ALREADY_IN_USE, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE", "exclusive-thread device already in use by a different thread"},
    {CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "peer access is not supported between these two devices"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT", "invalid OpenGL or DirectX context"},
    {CUDA_ERROR_NVLINK_UNCORRECTABLE, "CUDA_ERROR_NVLINK_UNCORRECTABLE", "uncorrectable NVLink error detected during the execution"},
    {CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND", "PTX JIT compiler library not found"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the provided PTX was compiled with an unsupported toolchain."},
    {CUDA_ERROR_JIT_COMPILATION_DISABLED, "CUDA_ERROR_JIT_COMPILATION_DISABLED", "PTX JIT compilation was disabled"},
    {CUDA_ERROR_INVALID_SOURCE, "CUDA_ERROR_INVALID_SOURCE", "device kernel image is invalid"},
    {CUDA_ERROR_FILE_NOT_FOUND, "CUDA_ERROR_FILE_NOT_FOUND", "file not found"},
    {CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND", "shared object symbol not found"},
    {CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", "shared object initialization failed"},
    {CUDA_ERROR_OPERATING_SYSTEM, "CUDA_ERROR_OPERATING_SYSTEM", "OS call failed or operation not supported on this OS"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE", "the operation cannot be performed in the present state"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated"},
    {CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING", "launch uses incompatible texturing mode"},
    {CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", "peer access is already enabled"},
    {CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", "peer access has not been enabled"},
    {CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE", "cannot set while device is active in this process"},
    {CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed"},
    {CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT", "device-side assert triggered"},
    {CUDA_ERROR_TOO_MANY_PEERS, "CUDA_ERROR_TOO_MANY_PEERS", "peer mapping resources exhausted"},
    {CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", "part or all of the requested memory range is already mapped"},
    {CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED", "pointer does not correspond to a registered memory region"},
    {CUDA_ERROR_HARDWARE_STACK_ERROR, "CUDA_ERROR_HARDWARE_STACK_ERROR", "an illegal memory access was encountered"},
    {CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION", "an illegal instruction was encountered"},
    {CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
    {CUDA_ERROR_INVALID_ADDRESS_SPACE, "CUDA_ERROR_INVALID_ADDRESS_SPACE", "operation not supported on global/shared address space"},
    {CUDA_ERROR_INVALID_PC, "CUDA_ERROR_INVALID_PC", "invalid program counter"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", "too many blocks in cooperative launch"},
    {CUDA_ERROR_NOT_PERMITTED, "CUDA_ERROR_NOT_PERMITTED", "operation not permitted"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_SYSTEM_NOT_READY, "CUDA_ERROR_SYSTEM_NOT_READY", "system not yet initialized"},
    {CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "system has unsupported display driver / cuda driver combination"},
    {CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "forward compatibility was attempted on non supported HW"},
    {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "operation not permitted when stream is capturing"},
    {CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", "operation failed due to a previous error during capture"},
    {CUDA_ERROR_STREAM_CAPTURE_MERGE, "CUDA_ERROR_STREAM_CAPTURE_MERGE", "operation would result in a merge of separate capture sequences"},
    {CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED", "capture was not ended in the same stream as it began"},
    {CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED", "capturing stream has unjoined work"},
    {CUDA_ERROR_STREAM_CAPTURE_ISOLATION, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION", "dependency created on uncaptured work in another stream"},
    {CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", "operation would make the legacy stream depend on a capturing blocking stream"},
    {CUDA_ERROR_CAPTURED_EVENT, "CUDA_ERROR_CAPTURED_EVENT", "operation not permitted on an event last recorded in a capturing stream"},
    {CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD", "attempt to terminate a thread-local capture sequence from another thread"},
    {CUDA_ERROR_TIMEOUT, "CUDA_ERROR_TIMEOUT", "wait operation timed out"},
    {CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE", "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
    if (!pStr) return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof k_errors / sizeof k_errors[0]; i++)
        if (k_errors[i].rc == error) {
            *pStr = k_errors[i].name;
            return CUDA_SUCCESS;
        }
    *pStr = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr)
{
    if (!pStr) return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof k_errors / sizeof k_errors[0]; i++)
        if (k_errors[i].rc == error) {
            *pStr = k_errors[i].text;
            return CUDA_SUCCESS;
        }
    *pStr = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

/* ------------------------------------------------------------- init and devices */

CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
    if (!driverVersion) return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = CUDA_VERSION;
    return CUDA_SUCCESS;
}

static void cu_atexit(void)
{
    /* Close the device (waveform files are finished there) unless a thread still holds it. */
    if (pthread_mutex_trylock(&g_lock) != 0) return;
    if (g_dev) vmgpu_dev_close(g_dev);
    g_dev = NULL;
    g_inited = 0;
    g_init_rc = CUDA_ERROR_DEINITIALIZED;
    pthread_mutex_unlock(&g_lock);
}

/*
 * The process's one device, opened by whichever comes first: cuInit or the graphics API's
 * vgfxInit (sw/gfx, linked into this library). Both drive this instance, as a graphics driver
 * and CUDA share one GPU through one kernel driver; opening it sets up no CUDA state, so vgfx
 * works without cuInit. Called with g_lock held. NULL (err filled) when there is no device.
 */
vmgpu_dev *cu_device_open(char *err, size_t errlen)
{
    static int atexit_set;
    if (g_dev) return g_dev;
    const char *spec = getenv("VMGPU_DEVICE");
    snprintf(g_spec, sizeof g_spec, "%s", spec && spec[0] ? spec : "sim");
    if (errlen) err[0] = 0;
    int rc = vmgpu_dev_open(NULL, &g_dev, err, errlen);
    if (rc) {
        if (errlen && !err[0]) snprintf(err, errlen, "%s", vmgpu_status_name(rc));
        g_dev = NULL;
        return NULL;
    }
    vmgpu_dev_get_info(g_dev, &g_info);
    if (!atexit_set) {
        atexit(cu_atexit);
        atexit_set = 1;
    }
    return g_dev;
}

static CUresult init_locked(unsigned flags)
{
    if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
    if (g_init_tried) return g_init_rc;
    g_init_tried = 1;
    char err[512] = "";
    int opened_here = g_dev == NULL;
    if (!cu_device_open(err, sizeof err)) {
        fprintf(stderr, "vmgpu libcuda: cuInit: no device: %s\n", err);
        g_init_rc = CUDA_ERROR_NO_DEVICE;
        return g_init_rc;
    }
    /* Device addresses first, then the staging buffer for pageable host memory (a device
     * address itself), before any context. */
    cu_window_reserve();
    CUresult r = cu_bounce_init();
    if (r) {
        if (opened_here) {
            vmgpu_dev_close(g_dev);
            g_dev = NULL;
        }
        g_init_rc = r;
        return r;
    }
    g_inited = 1;
    g_init_rc = CUDA_SUCCESS;
    cu_trace("cuInit: device \"%s\", %u bytes of memory, %u rings, granule 0x%x, page 0x%x", g_spec,
             g_info.mem_size, g_info.n_rings, VMGPU_GRANULE, VMGPU_PAGE_SIZE);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuInit(unsigned int Flags) { LOCKED("cuInit", init_locked(Flags)); }

CUresult cu_need_init(void)
{
    if (g_inited) return CUDA_SUCCESS;
    return g_init_rc == CUDA_SUCCESS ? CUDA_ERROR_NOT_INITIALIZED : g_init_rc;
}

static CUresult dev_check(CUdevice dev)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

static CUresult device_get(CUdevice *device, int ordinal)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
    *device = 0;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal) { LOCKED("cuDeviceGet", device_get(device, ordinal)); }

static CUresult device_count(int *count)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    *count = 1;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetCount(int *count) { LOCKED("cuDeviceGetCount", device_count(count)); }

static CUresult device_name(char *name, int len, CUdevice dev)
{
    CUresult rc = dev_check(dev);
    if (rc) return rc;
    if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    snprintf(name, (size_t)len, "vmgpu (%s)", g_spec);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev) { LOCKED("cuDeviceGetName", device_name(name, len, dev)); }

static CUresult device_total_mem(size_t *bytes, CUdevice dev)
{
    CUresult rc = dev_check(dev);
    if (rc) return rc;
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    *bytes = g_info.mem_size;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceTotalMem(size_t *bytes, CUdevice dev) { LOCKED("cuDeviceTotalMem", device_total_mem(bytes, dev)); }

static CUresult device_uuid(CUuuid *uuid, CUdevice dev)
{
    CUresult rc = dev_check(dev);
    if (rc) return rc;
    if (!uuid) return CUDA_ERROR_INVALID_VALUE;
    /* Stable per device kind: "vmgpu" + VERSION + memory size. */
    unsigned char b[16] = {'v', 'm', 'g', 'p', 'u', 0, 0, 0};
    memcpy(b + 8, &g_info.version, 4);
    memcpy(b + 12, &g_info.mem_size, 4);
    memcpy(uuid->bytes, b, 16);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetUuid(CUuuid *uuid, CUdevice dev) { LOCKED("cuDeviceGetUuid", device_uuid(uuid, dev)); }

/*
 * Attributes. vmgpu reports compute capability 5.0 (a conservative choice: it claims no newer
 * feature such as cooperative launch or managed memory), a 50 MHz clock (VMGPU_CLOCK_HZ), one
 * "multiprocessor" (the compute engine), VMM and POSIX-fd handles, and unified addressing
 * (one VA space across contexts; host pointers are not device addresses, see docs).
 */
static CUresult device_attr(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    CUresult rc = dev_check(dev);
    if (rc) return rc;
    if (!pi || (int)attrib <= 0 || (int)attrib >= (int)CU_DEVICE_ATTRIBUTE_MAX)
        return CUDA_ERROR_INVALID_VALUE;
    int v = 0;
    switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: v = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: v = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: v = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: v = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: v = 49152; break;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: v = 65536; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: v = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH: v = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: v = 65536; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: v = (int)(VMGPU_CLOCK_HZ / 1000u); break;  /* kHz */
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: v = 512; break;
    case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: v = CU_COMPUTEMODE_DEFAULT; break;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_TCC_DRIVER: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: v = (int)(VMGPU_CLOCK_HZ / 1000u); break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: v = 32; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: v = 2048; break;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: v = (int)g_info.n_rings; break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: v = 5; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: v = 65536; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: v = 65536; break;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: v = 49152; break;
    case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: v = 1; break;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED: v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: v = 32; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: v = 1; break;  /* cuda_pool.c */
    case CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES: v = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR; break;
    default: v = 0; break;
    }
    *pi = v;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    LOCKED("cuDeviceGetAttribute", device_attr(pi, attrib, dev));
}

static CUresult device_cc(int *major, int *minor, CUdevice dev)
{
    CUresult rc = dev_check(dev);
    if (rc) return rc;
    if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
    *major = 5;
    *minor = 0;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
    LOCKED("cuDeviceComputeCapability", device_cc(major, minor, dev));
}

/* ------------------------------------------------------------------ contexts */

struct CUctx_st *cu_ctx_lookup(CUcontext c)
{
    for (struct CUctx_st *x = g_ctxs; x; x = x->next)
        if (x == c && x->live) return x;
    return NULL;
}

/* The error for a context handle that is not live: a destroyed one is named as such (NVIDIA
 * answers CONTEXT_IS_DESTROYED for cuCtxDestroy of one, measured), anything else is invalid. */
static struct CUctx_st *g_dead_ctxs;  /* destroyed contexts (kept allocated, never reused) */
static CUresult ctx_dead_err(CUcontext c)
{
    for (struct CUctx_st *x = g_dead_ctxs; x; x = x->next)
        if (x == c) return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    return CUDA_ERROR_INVALID_CONTEXT;
}

static unsigned long long g_next_ctx_id;

/* The calling thread's current context: *out may be NULL when none is current. */
struct CUctx_st *cu_current_raw(void) { return t_depth ? t_stack[t_depth - 1] : NULL; }

CUresult cu_current(struct CUctx_st **out)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUctx_st *c = cu_current_raw();
    if (!c || !cu_ctx_lookup(c)) return CUDA_ERROR_INVALID_CONTEXT;
    if (c->sticky) return c->sticky;
    *out = c;
    return CUDA_SUCCESS;
}

/* For calls that work without a context: fail only on a sticky error of the current one. */
CUresult cu_current_opt(struct CUctx_st **out)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUctx_st *c = cu_current_raw();
    if (c && !cu_ctx_lookup(c)) c = NULL;
    if (c && c->sticky) return c->sticky;
    if (out) *out = c;
    return CUDA_SUCCESS;
}

/* Faults the core saw become sticky CUDA errors of their context; the core's own flag is
 * cleared so that process-wide mapping changes can still be mirrored into that context. */
void cu_sweep_faults(void)
{
    for (struct CUctx_st *c = g_ctxs; c; c = c->next) {
        if (!c->live) continue;
        char msg[256];
        if (vmgpu_ctx_status(c->core, msg, sizeof msg) == VMGPU_ERR_CTX_FAULTED) {
            if (!c->sticky) {
                c->sticky = CUDA_ERROR_ILLEGAL_ADDRESS;
                cu_trace("context %p (asid %u) is now in error CUDA_ERROR_ILLEGAL_ADDRESS (sticky): %s",
                         (void *)c, vmgpu_ctx_asid(c->core), msg);
            }
            vmgpu_ctx_clear_fault(c->core);
        }
    }
}

CUresult cu_core_err(struct CUctx_st *c, int rc)
{
    switch (rc) {
    case VMGPU_OK: return CUDA_SUCCESS;
    case VMGPU_ERR_FAULT:
    case VMGPU_ERR_CTX_FAULTED:
        cu_sweep_faults();
        if (c && c->sticky) return c->sticky;
        /* Our work was dropped by another context's fault on a shared ring. */
        return CUDA_ERROR_LAUNCH_FAILED;
    case VMGPU_ERR_INVALID: return CUDA_ERROR_INVALID_VALUE;
    case VMGPU_ERR_NOMEM:
    case VMGPU_ERR_NOVA: return CUDA_ERROR_OUT_OF_MEMORY;
    case VMGPU_ERR_OVERLAP: return CUDA_ERROR_INVALID_VALUE;
    case VMGPU_ERR_NOT_MAPPED: return CUDA_ERROR_INVALID_VALUE;
    case VMGPU_ERR_TIMEOUT: return CUDA_ERROR_LAUNCH_TIMEOUT;
    case VMGPU_ERR_NOT_READY: return CUDA_ERROR_NOT_READY;
    case VMGPU_ERR_BUSY: return CUDA_ERROR_INVALID_VALUE;
    case VMGPU_ERR_NOT_FOUND: return CUDA_ERROR_INVALID_VALUE;
    default: return CUDA_ERROR_OPERATING_SYSTEM;  /* transport failure */
    }
}

/* Wait for everything this context queued so far; faults become sticky. */
CUresult cu_ctx_sync(struct CUctx_st *c)
{
    int rc = vmgpu_stream_sync(c->null_s);
    return cu_core_err(c, rc);
}

/* Let pending work of every context surface its faults before process-wide page-table
 * changes are mirrored (a mirror must not fail because of an earlier asynchronous fault). */
static void drain_all(void)
{
    for (unsigned r = 0; r < g_info.n_rings; r++) {
        uint32_t f = vmgpu_fence_last(g_dev, r);
        if (f && vmgpu_fence_query(g_dev, r, f) != VMGPU_OK) vmgpu_fence_wait(g_dev, r, f);
    }
    cu_sweep_faults();
}

/* ---------------------------------------------- process-wide VA space mirroring */

static unsigned acc_flags(unsigned acc)
{
    return (acc & 1 ? VMGPU_MAP_READ : 0) | (acc & 2 ? VMGPU_MAP_WRITE : 0);
}

/* Apply one mapping's page-table state (map with no access, then protect runs) to ctx. */
static int mirror_map_one(vmgpu_ctx *core, const cu_map *m)
{
    int rc = vmgpu_map(core, m->va, m->pa, m->size, m->host ? VMGPU_MAP_HOST : 0);
    for (uint32_t g = 0; !rc && g < (m->size + VMGPU_GRANULE - 1) / VMGPU_GRANULE; g++) {
        uint32_t len = m->size - g * VMGPU_GRANULE;
        if (len > VMGPU_GRANULE) len = VMGPU_GRANULE;
        if (m->acc[g]) rc = vmgpu_protect(core, m->va + g * VMGPU_GRANULE, len, acc_flags(m->acc[g]));
    }
    return rc;
}

/* Replay the whole VA space into a new context. */
int cu_mirror_replay(vmgpu_ctx *core)
{
    uint32_t x;
    for (cu_resv *r = g_resvs; r; r = r->next) {
        int rc = vmgpu_va_reserve(core, r->size, 0, r->va, &x);
        if (rc) return rc;
    }
    for (cu_map *m = g_maps; m; m = m->next) {
        int rc = mirror_map_one(core, m);
        if (rc) return rc;
    }
    return VMGPU_OK;
}

/* A free process-wide range of size bytes, aligned, preferring hint; then reserved in every
 * context. Returns a CUresult. */
CUresult cu_va_reserve(uint64_t size, uint64_t align, uint64_t hint, int internal, uint32_t *out)
{
    if (align < VMGPU_GRANULE) align = VMGPU_GRANULE;
    if (size == 0 || size > CU_VA_HI - CU_VA_LO) return CUDA_ERROR_OUT_OF_MEMORY;
    uint64_t cand = hint && !(hint % align) && hint >= CU_VA_LO ? hint : CU_VA_LO;
    int tried_hint = cand == hint;
    for (;;) {
        if (cand + size > CU_VA_HI) {
            if (tried_hint) {
                cand = CU_VA_LO;
                tried_hint = 0;
                continue;
            }
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        uint64_t bump = 0;
        for (cu_resv *r = g_resvs; r; r = r->next)
            if (cand < (uint64_t)r->va + r->size && r->va < cand + size) {
                uint64_t e = (uint64_t)r->va + r->size;
                if (e > bump) bump = e;
            }
        if (!bump) bump = cu_window_next(cand, size);  /* host memory sits there */
        if (!bump) {
            /* Every context must have it free too (the core's own argument granule). */
            struct CUctx_st *bad = NULL;
            uint32_t x;
            for (struct CUctx_st *c = g_ctxs; c; c = c->next) {
                if (!c->live) continue;
                if (vmgpu_va_reserve(c->core, (uint32_t)size, 0, (uint32_t)cand, &x)) {
                    bad = c;
                    break;
                }
            }
            if (!bad) break;
            for (struct CUctx_st *c = g_ctxs; c && c != bad; c = c->next)
                if (c->live) vmgpu_va_free(c->core, (uint32_t)cand);
            bump = cand + VMGPU_GRANULE;
        }
        cand = (bump + align - 1) / align * align;
    }
    cu_resv *r = calloc(1, sizeof *r);
    if (!r) {
        for (struct CUctx_st *c = g_ctxs; c; c = c->next)
            if (c->live) vmgpu_va_free(c->core, (uint32_t)cand);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    r->va = (uint32_t)cand;
    r->size = (uint32_t)size;
    r->internal = internal;
    r->next = g_resvs;
    g_resvs = r;
    *out = r->va;
    return CUDA_SUCCESS;
}

cu_resv *cu_resv_find(uint64_t va, uint64_t size)
{
    for (cu_resv *r = g_resvs; r; r = r->next)
        if (va >= r->va && va + size <= (uint64_t)r->va + r->size && va < (uint64_t)r->va + r->size)
            return r;
    return NULL;
}

void cu_va_free(cu_resv *r)
{
    for (struct CUctx_st *c = g_ctxs; c; c = c->next)
        if (c->live) vmgpu_va_free(c->core, r->va);
    for (cu_resv **p = &g_resvs; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    free(r);
}

/* Map in every context (no access yet). On failure nothing stays mapped. */
CUresult cu_map_add(uint32_t va, uint32_t size, uint32_t pa, int host, cu_alloc *a, cu_map **out)
{
    cu_map *m = calloc(1, sizeof *m);
    uint8_t *acc = calloc((size + VMGPU_GRANULE - 1) / VMGPU_GRANULE, 1);
    if (!m || !acc) {
        free(m);
        free(acc);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    drain_all();
    m->va = va;
    m->size = size;
    m->pa = pa;
    m->host = host;
    m->alloc = a;
    m->acc = acc;
    int rc = VMGPU_OK;
    struct CUctx_st *c;
    for (c = g_ctxs; c; c = c->next) {
        if (!c->live) continue;
        rc = vmgpu_map(c->core, va, pa, size, host ? VMGPU_MAP_HOST : 0);
        if (rc) break;
    }
    if (rc) {
        for (struct CUctx_st *d = g_ctxs; d && d != c; d = d->next)
            if (d->live) vmgpu_unmap(d->core, va, size);
        free(acc);
        free(m);
        return cu_core_err(NULL, rc);
    }
    m->next = g_maps;
    g_maps = m;
    if (a) a->nmaps++;
    if (out) *out = m;
    return CUDA_SUCCESS;
}

/* The mapping containing va (NULL: none). */
cu_map *cu_map_find(uint64_t va)
{
    for (cu_map *m = g_maps; m; m = m->next)
        if (va >= m->va && va < (uint64_t)m->va + m->size) return m;
    return NULL;
}

/* Every byte of [va, va+size) lies in mappings. */
int cu_range_mapped(uint64_t va, uint64_t size)
{
    uint64_t v = va, end = va + size;
    if (size == 0) return cu_map_find(va) != NULL;
    while (v < end) {
        cu_map *m = cu_map_find(v);
        if (!m) return 0;
        v = (uint64_t)m->va + m->size;
    }
    return 1;
}

void cu_alloc_maybe_free(cu_alloc *a)
{
    if (a->refs > 0 || a->nmaps > 0) return;
    if (!a->foreign) vmgpu_phys_free(g_dev, a->pa);
    if (a->memfd >= 0) close(a->memfd);
    for (cu_alloc **p = &g_allocs; *p; p = &(*p)->next)
        if (*p == a) {
            *p = a->next;
            break;
        }
    cu_trace("allocation handle 0x%llx: device memory pa 0x%08x (+0x%x) freed",
             (unsigned long long)a->id, a->pa, a->size);
    free(a);
}

/* Unmap one mapping everywhere; frees the allocation when it was the last use. */
void cu_map_remove(cu_map *m)
{
    drain_all();
    for (struct CUctx_st *c = g_ctxs; c; c = c->next)
        if (c->live) vmgpu_unmap(c->core, m->va, m->size);
    for (cu_map **p = &g_maps; *p; p = &(*p)->next)
        if (*p == m) {
            *p = m->next;
            break;
        }
    cu_alloc *a = m->alloc;
    free(m->acc);
    free(m);
    if (a) {
        a->nmaps--;
        cu_alloc_maybe_free(a);
    }
}

/* Set the access of [va, va+size) (granule aligned, inside mappings) in every context. */
CUresult cu_set_access(uint64_t va, uint64_t size, unsigned acc)
{
    drain_all();
    int rc = VMGPU_OK;
    for (struct CUctx_st *c = g_ctxs; c && !rc; c = c->next)
        if (c->live) rc = vmgpu_protect(c->core, (uint32_t)va, (uint32_t)size, acc_flags(acc));
    if (rc) return cu_core_err(NULL, rc);
    for (uint64_t v = va; v < va + size; v += VMGPU_GRANULE) {
        cu_map *m = cu_map_find(v);
        m->acc[(v - m->va) / VMGPU_GRANULE] = (uint8_t)acc;
    }
    return CUDA_SUCCESS;
}

cu_alloc *cu_alloc_new(uint32_t size, const CUmemAllocationProp *prop, int internal, CUresult *err)
{
    cu_alloc *a = calloc(1, sizeof *a);
    if (!a) {
        *err = CUDA_ERROR_OUT_OF_MEMORY;
        return NULL;
    }
    int rc = vmgpu_phys_alloc(g_dev, size, VMGPU_GRANULE, &a->pa);
    if (rc) {
        free(a);
        *err = CUDA_ERROR_OUT_OF_MEMORY;
        return NULL;
    }
    a->id = g_next_handle++;
    a->size = size;
    a->refs = 1;
    a->internal = internal;
    a->memfd = -1;
    if (prop) a->prop = *prop;
    a->next = g_allocs;
    g_allocs = a;
    *err = CUDA_SUCCESS;
    return a;
}

/* A handle for memory another process allocated and exported (imported through the device
 * server, which now counts this process among its holders): freeing it drops that hold. */
cu_alloc *cu_alloc_adopt(uint32_t pa, uint32_t size, const CUmemAllocationProp *prop)
{
    cu_alloc *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->id = g_next_handle++;
    a->pa = pa;
    a->size = size;
    a->refs = 1;
    a->memfd = -1;
    if (prop) a->prop = *prop;
    a->next = g_allocs;
    g_allocs = a;
    return a;
}

uint64_t g_next_handle_value(void) { return g_next_handle; }

cu_alloc *cu_alloc_lookup(CUmemGenericAllocationHandle h)
{
    for (cu_alloc *a = g_allocs; a; a = a->next)
        if (a->id == h && !a->internal && a->refs > 0) return a;
    return NULL;
}

/* ---------------------------------------------------------------- context calls */

static void stack_remove_all(struct CUctx_st *c)
{
    int j = 0;
    for (int i = 0; i < t_depth; i++)
        if (t_stack[i] != c) t_stack[j++] = t_stack[i];
    t_depth = j;
}

static CUresult ctx_new(unsigned flags, int primary, struct CUctx_st **out)
{
    struct CUctx_st *c = calloc(1, sizeof *c);
    if (!c) return CUDA_ERROR_OUT_OF_MEMORY;
    drain_all();
    unsigned ring = g_next_ring % g_info.n_rings;
    int rc = vmgpu_ctx_create(g_dev, (int)ring, &c->core);
    if (!rc) rc = cu_mirror_replay(c->core);
    if (!rc) rc = vmgpu_stream_create(c->core, ring, &c->null_s);
    if (rc) {
        if (c->core) vmgpu_ctx_destroy(c->core);
        free(c);
        return cu_core_err(NULL, rc);
    }
    g_next_ring++;
    c->magic = CTX_MAGIC;
    c->id = ++g_next_ctx_id;
    c->live = 1;
    c->ring = ring;
    c->flags = flags;
    c->primary = primary;
    c->next = g_ctxs;
    g_ctxs = c;
    cu_trace("context %p: asid %u, ring %u%s", (void *)c, vmgpu_ctx_asid(c->core), ring,
             primary ? " (primary)" : "");
    *out = c;
    return CUDA_SUCCESS;
}

static void ctx_teardown(struct CUctx_st *c)
{
    /* Work still queued: wait for it (its faults do not matter any more). */
    vmgpu_stream_sync(c->null_s);
    cu_sweep_faults();
    cu_ctx_release_objects(c);
    cu_array_ctx_release(c);
    /* cuMemAlloc memory of this context goes with it. */
    for (cu_dalloc *d = g_dallocs, *n; d; d = n) {
        n = d->next;
        if (d->kind == DA_DEVICE && d->ctx == c) cu_dalloc_free(d);
    }
    vmgpu_stream_destroy(c->null_s);
    vmgpu_ctx_destroy(c->core);
    c->live = 0;
    c->core = NULL;
    c->null_s = NULL;
    for (struct CUctx_st **p = &g_ctxs; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    c->next = g_dead_ctxs;
    g_dead_ctxs = c;
    stack_remove_all(c);
    cu_trace("context %p destroyed", (void *)c);
    /* The struct stays allocated (never reused) so that a stale handle is recognised. */
}

#define CTX_FLAGS_MASK 0xffu  /* CU_CTX_FLAGS_MASK */

static CUresult ctx_create(CUcontext *pctx, unsigned flags, CUdevice dev)
{
    CUresult rc = dev_check(dev);
    if (rc) return rc;
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    if ((flags & ~CTX_FLAGS_MASK) || (flags & 7) == 3 || (flags & 7) > 4)
        return CUDA_ERROR_INVALID_VALUE;
    if (t_depth == CTX_STACK_MAX) return CUDA_ERROR_OUT_OF_MEMORY;
    struct CUctx_st *c;
    rc = ctx_new(flags, 0, &c);
    if (rc) return rc;
    t_stack[t_depth++] = c;
    *pctx = c;
    return CUDA_SUCCESS;
}
/* The three-argument form of 12.x headers; 13.0's cuCtxCreate is cuCtxCreate_v4 (cuda_compat.c). */
CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    LOCKED("cuCtxCreate", ctx_create(pctx, flags, dev));
}
CUresult CUDAAPI cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray, int numParams,
                                unsigned int flags, CUdevice dev)
{
    if (numParams < 0 || (numParams > 0 && !paramsArray)) return CUDA_ERROR_INVALID_VALUE;
    if (numParams > 0) return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
    LOCKED("cuCtxCreate_v3", ctx_create(pctx, flags, dev));
}

static CUresult ctx_destroy(CUcontext ctx)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUctx_st *c = cu_ctx_lookup(ctx);
    if (!c) return ctx_dead_err(ctx);
    if (c->primary) return CUDA_ERROR_INVALID_CONTEXT;
    ctx_teardown(c);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxDestroy(CUcontext ctx) { LOCKED("cuCtxDestroy", ctx_destroy(ctx)); }

static CUresult ctx_push(CUcontext ctx)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    if (!cu_ctx_lookup(ctx)) return ctx_dead_err(ctx);
    if (t_depth == CTX_STACK_MAX) return CUDA_ERROR_OUT_OF_MEMORY;
    t_stack[t_depth++] = ctx;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxPushCurrent(CUcontext ctx) { LOCKED("cuCtxPushCurrent", ctx_push(ctx)); }

static CUresult ctx_pop(CUcontext *pctx)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    if (!t_depth) return CUDA_ERROR_INVALID_CONTEXT;
    struct CUctx_st *c = t_stack[t_depth - 1];
    t_depth--;
    if (pctx) *pctx = cu_ctx_lookup(c) ? c : NULL;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxPopCurrent(CUcontext *pctx) { LOCKED("cuCtxPopCurrent", ctx_pop(pctx)); }

static CUresult ctx_set(CUcontext ctx)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    if (!ctx) {
        if (t_depth) t_depth--;
        return CUDA_SUCCESS;
    }
    if (!cu_ctx_lookup(ctx)) return ctx_dead_err(ctx);
    if (t_depth) t_stack[t_depth - 1] = ctx;
    else t_stack[t_depth++] = ctx;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) { LOCKED("cuCtxSetCurrent", ctx_set(ctx)); }

static CUresult ctx_get(CUcontext *pctx)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    struct CUctx_st *c = cu_current_raw();
    *pctx = c && cu_ctx_lookup(c) ? c : NULL;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetCurrent(CUcontext *pctx) { LOCKED("cuCtxGetCurrent", ctx_get(pctx)); }

static CUresult ctx_get_device(CUdevice *dev)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!dev) return CUDA_ERROR_INVALID_VALUE;
    *dev = 0;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetDevice(CUdevice *device) { LOCKED("cuCtxGetDevice", ctx_get_device(device)); }

static CUresult ctx_sync(void)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    rc = cu_ctx_sync(c);
    if (!rc) cu_pool_synced_ctx(c); /* every free of the context is complete: pools may shrink */
    return rc;
}
CUresult CUDAAPI cuCtxSynchronize(void) { LOCKED("cuCtxSynchronize", ctx_sync()); }

static CUresult ctx_get_flags(unsigned *flags)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!flags) return CUDA_ERROR_INVALID_VALUE;
    *flags = c->flags;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetFlags(unsigned int *flags) { LOCKED("cuCtxGetFlags", ctx_get_flags(flags)); }

static CUresult ctx_api_version(CUcontext ctx, unsigned *version)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    if (!version) return CUDA_ERROR_INVALID_VALUE;
    if (!ctx) ctx = cu_current_raw();
    if (!ctx || !cu_ctx_lookup(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
    *version = 3020;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
    LOCKED("cuCtxGetApiVersion", ctx_api_version(ctx, version));
}

/* Stream priorities: vmgpu's rings are served round robin, with no priority
 * (CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED is 0), and for such a device the range is 0..0. */
static CUresult ctx_priority_range(int *least, int *greatest)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (least) *least = 0;
    if (greatest) *greatest = 0;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    LOCKED("cuCtxGetStreamPriorityRange", ctx_priority_range(leastPriority, greatestPriority));
}

static CUresult ctx_get_id(CUcontext ctx, unsigned long long *id)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    if (!id) return CUDA_ERROR_INVALID_VALUE;
    if (!ctx) ctx = cu_current_raw();
    if (!ctx) return CUDA_ERROR_INVALID_CONTEXT;
    struct CUctx_st *c = cu_ctx_lookup(ctx);
    if (!c) return ctx_dead_err(ctx);
    *id = c->id;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetId(CUcontext ctx, unsigned long long *ctxId)
{
    LOCKED("cuCtxGetId", ctx_get_id(ctx, ctxId));
}

/* ------------------------------------------------------------------------ peers */
/* vmgpu is one device: no device is another's peer, and a context cannot be its own peer. */

static CUresult can_access_peer(int *can, CUdevice dev, CUdevice peer)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    if (!can) return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0 || peer != 0) return CUDA_ERROR_INVALID_DEVICE;
    *can = 0;   /* a device is not its own peer (NVIDIA answers 0 too) */
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
    LOCKED("cuDeviceCanAccessPeer", can_access_peer(canAccessPeer, dev, peerDev));
}

static CUresult peer_enable(CUcontext peer, unsigned flags)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (flags) return CUDA_ERROR_INVALID_VALUE;
    if (!peer) return CUDA_ERROR_INVALID_CONTEXT;
    if (!cu_ctx_lookup(peer)) return ctx_dead_err(peer);
    /* Both contexts are on the one device: NVIDIA answers a peer on the same device (or the
     * context itself) with PEER_ACCESS_UNSUPPORTED. */
    return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
}
CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags)
{
    LOCKED("cuCtxEnablePeerAccess", peer_enable(peerContext, Flags));
}

static CUresult peer_disable(CUcontext peer)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!peer) return CUDA_ERROR_INVALID_CONTEXT;
    if (!cu_ctx_lookup(peer)) return ctx_dead_err(peer);
    return CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
}
CUresult CUDAAPI cuCtxDisablePeerAccess(CUcontext peerContext)
{
    LOCKED("cuCtxDisablePeerAccess", peer_disable(peerContext));
}

/* -------------------------------------------------------------- primary context */

static CUresult primary_retain(CUcontext *pctx, CUdevice dev)
{
    CUresult rc = dev_check(dev);
    if (rc) return rc;
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    if (!g_primary || !g_primary->live) {
        rc = ctx_new(0, 1, &g_primary);
        if (rc) {
            g_primary = NULL;
            return rc;
        }
        g_primary_refs = 0;
    }
    g_primary_refs++;
    *pctx = g_primary;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    LOCKED("cuDevicePrimaryCtxRetain", primary_retain(pctx, dev));
}

static void primary_destroy(void)
{
    g_primary->primary = 0;
    ctx_teardown(g_primary);
    g_primary = NULL;
    g_primary_refs = 0;
}

static CUresult primary_release(CUdevice dev)
{
    CUresult rc = dev_check(dev);
    if (rc) return rc;
    if (!g_primary || !g_primary_refs) return CUDA_ERROR_INVALID_CONTEXT;
    if (--g_primary_refs == 0) primary_destroy();
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev) { LOCKED("cuDevicePrimaryCtxRelease", primary_release(dev)); }

static CUresult primary_reset(CUdevice dev)
{
    CUresult rc = dev_check(dev);
    if (rc) return rc;
    if (g_primary) primary_destroy();
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev) { LOCKED("cuDevicePrimaryCtxReset", primary_reset(dev)); }

static CUresult primary_state(CUdevice dev, unsigned *flags, int *active)
{
    CUresult rc = dev_check(dev);
    if (rc) return rc;
    if (!flags || !active) return CUDA_ERROR_INVALID_VALUE;
    *flags = g_primary ? g_primary->flags : 0;
    *active = g_primary && g_primary->live;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    LOCKED("cuDevicePrimaryCtxGetState", primary_state(dev, flags, active));
}

static CUresult primary_set_flags(CUdevice dev, unsigned flags)
{
    CUresult rc = dev_check(dev);
    if (rc) return rc;
    if ((flags & ~CTX_FLAGS_MASK) || (flags & 7) == 3 || (flags & 7) > 4) return CUDA_ERROR_INVALID_VALUE;
    if (g_primary) g_primary->flags = flags;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags)
{
    LOCKED("cuDevicePrimaryCtxSetFlags", primary_set_flags(dev, flags));
}

/* 12.9/13.0 forms naming the context (NULL: the current one). */
static CUresult ctx_named(CUcontext ctx, struct CUctx_st **out)
{
    if (!ctx) return cu_current(out);
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUctx_st *c = cu_ctx_lookup(ctx);
    if (!c) return CUDA_ERROR_INVALID_CONTEXT;
    if (c->sticky) return c->sticky;
    *out = c;
    return CUDA_SUCCESS;
}

static CUresult ctx_get_device2(CUdevice *dev, CUcontext ctx)
{
    struct CUctx_st *c;
    CUresult rc = ctx_named(ctx, &c);
    if (rc) return rc;
    if (!dev) return CUDA_ERROR_INVALID_VALUE;
    *dev = 0;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
    LOCKED("cuCtxGetDevice_v2", ctx_get_device2(device, ctx));
}

static CUresult ctx_sync2(CUcontext ctx)
{
    struct CUctx_st *c;
    CUresult rc = ctx_named(ctx, &c);
    if (rc) return rc;
    rc = cu_ctx_sync(c);
    if (!rc) cu_pool_synced_ctx(c);
    return rc;
}
CUresult CUDAAPI cuCtxSynchronize_v2(CUcontext ctx) { LOCKED("cuCtxSynchronize_v2", ctx_sync2(ctx)); }
