/*
 * The top of libcuda's state: cuInit, the device queries, and the context calls (create,
 * destroy, the current-context stack, primary contexts, peers). Destroying a context releases
 * what every other part made in it (streams and events, arrays, cuMemAlloc memory, pool frees),
 * so this file calls down into all of them and none of them calls it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "cuda_priv.h"

static int g_init_tried;
static struct CUctx_st *g_primary;
static unsigned g_primary_refs;
static unsigned g_next_ring;

/* ------------------------------------------------------------- init and devices */

CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
    if (!driverVersion) return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = CUDA_VERSION;
    return CUDA_SUCCESS;
}

static void cu_atexit(void)
{
    /* After this, CUDA calls answer DEINITIALIZED; the device itself is closed after it by the
     * process's device (sw/core/procdev.c), unless a thread still holds the lock. */
    if (vmgpu_process_trylock() != 0) return;
    g_dev = NULL;
    g_inited = 0;
    g_init_rc = CUDA_ERROR_DEINITIALIZED;
    vmgpu_process_unlock();
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
            vmgpu_process_dev_close();
            g_dev = NULL;
        }
        g_init_rc = r;
        return r;
    }
    g_inited = 1;
    g_init_rc = CUDA_SUCCESS;
    static int atexit_set;  /* runs before the process's device closes (registered after it) */
    if (!atexit_set) {
        atexit(cu_atexit);
        atexit_set = 1;
    }
    cu_trace("cuInit: device \"%s\", %u bytes of memory, %u rings, granule 0x%x, page 0x%x", g_spec,
             g_info.mem_size, g_info.n_rings, VMGPU_GRANULE, VMGPU_PAGE_SIZE);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuInit(unsigned int Flags) { LOCKED("cuInit", init_locked(Flags)); }

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
    int unit = (int)(g_info.simt_lanes * g_info.simt_warps);
    switch (attrib) {
    /* With a SIMT unit, the block and grid limits are the unit's (docs/cuda.md "Modules and
     * launches"); without one, the built-in kernels' (any launch shape up to NVIDIA's limits). */
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: v = unit ? unit : 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: v = unit && unit < 1024 ? unit : 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: v = unit && unit < 1024 ? unit : 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: v = unit && unit < 64 ? unit : 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: v = unit ? 65535 : 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: v = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: v = 65535; break;
    /* NVIDIA's 48 KiB per block unless a function opts in to more (up to the unit's memory) */
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
        v = unit && g_info.simt_shared_bytes < 49152 ? (int)g_info.simt_shared_bytes : 49152;
        break;
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
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: v = unit ? (int)g_info.simt_shared_bytes : 49152; break;
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
    cu_drain_all();
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

/* Answers in a context with a sticky error too (measured after a kernel's fault). */
static CUresult ctx_get_device(CUdevice *dev)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUctx_st *c = cu_current_raw();
    if (!c || !cu_ctx_lookup(c)) return CUDA_ERROR_INVALID_CONTEXT;
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

