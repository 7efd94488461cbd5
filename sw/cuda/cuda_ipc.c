/*
 * vmgpu's CUDA driver API: the legacy interprocess calls (cuIpcGetMemHandle, cuIpcOpenMemHandle,
 * cuIpcCloseMemHandle, cuIpcGetEventHandle, cuIpcOpenEventHandle).
 *
 * A handle is 64 opaque bytes the program sends to another process however it likes; here it
 * carries a token the device server made for the allocation or the event (vmgpu_phys_ipc_token,
 * vmgpu_event_ipc_token) and that only the server can resolve. So these calls work through the
 * server (VMGPU_DEVICE=vmgpud, docs/server.md); with the device in this process there is no
 * other process to open a handle, and getting one answers CUDA_ERROR_NOT_SUPPORTED.
 *
 * Answers measured on NVIDIA (tests/cuda/probe/nvidia_ipc_*.txt, section legacy_ipc): a handle
 * of any address inside a cuMemAlloc allocation; opening in the exporting process is
 * CUDA_ERROR_INVALID_CONTEXT; flags without CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS are
 * CUDA_ERROR_INVALID_VALUE; opening twice gives the same address; a junk or zero handle is
 * CUDA_ERROR_INVALID_VALUE, a junk event handle CUDA_ERROR_MAP_FAILED; an event handle needs an
 * interprocess event (CUDA_ERROR_INVALID_HANDLE otherwise); the memory stays open in the
 * importer after the exporter's cuMemFree, and a handle of freed memory no longer opens.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "cuda_priv.h"

#undef cuIpcOpenMemHandle

#define MEM_MAGIC 0x50494d56u   /* "VMIP" */
#define EVENT_MAGIC_IPC 0x45494d56u /* "VMIE" */

/* What a handle's bytes hold. */
typedef struct ipc_bytes {
    uint32_t magic;
    uint32_t version;
    uint64_t token;
    uint32_t size;
} ipc_bytes;

/* A handle opened in this process: one mapping, however many opens. */
typedef struct ipc_open {
    uint64_t token;
    uint32_t va, size;
    unsigned refs;
    struct ipc_open *next;
} ipc_open;
static ipc_open *g_opens;

static void put(char *reserved, uint32_t magic, uint64_t token, uint32_t size)
{
    ipc_bytes b = {magic, 1, token, size};
    memset(reserved, 0, CU_IPC_HANDLE_SIZE);
    memcpy(reserved, &b, sizeof b);
}

static int get(const char *reserved, uint32_t magic, ipc_bytes *b)
{
    memcpy(b, reserved, sizeof *b);
    return b->magic == magic && b->version == 1 && b->token != 0;
}

/* ------------------------------------------------------------------- memory */

static CUresult ipc_get_mem(CUipcMemHandle *h, CUdeviceptr p)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!h) return CUDA_ERROR_INVALID_VALUE;
    cu_dalloc *d = NULL;
    for (cu_dalloc *x = g_dallocs; x && !d; x = x->next)
        if (x->kind == DA_DEVICE && p >= x->va && p < x->va + (x->bytes ? x->bytes : 1)) d = x;
    if (!d) return CUDA_ERROR_INVALID_VALUE;  /* not cuMemAlloc memory (NVIDIA, measured) */
    if (!vmgpu_dev_is_remote(g_dev)) return CUDA_ERROR_NOT_SUPPORTED;
    uint64_t token;
    int crc = vmgpu_phys_ipc_token(g_dev, d->alloc->pa, &token);
    if (crc) return cu_core_err(c, crc);
    put(h->reserved, MEM_MAGIC, token, d->alloc->size);
    cu_trace("cuIpcGetMemHandle: VA 0x%08x (pa 0x%08x, 0x%x bytes) -> handle of the device server",
             d->va, d->alloc->pa, d->alloc->size);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)
{
    LOCKED("cuIpcGetMemHandle", ipc_get_mem(pHandle, dptr));
}

/* Reserve a VA range and map the imported memory read-write there in every context; the
 * mapping holds it (freed at the last close). */
static CUresult map_imported(uint32_t pa, uint32_t size, uint32_t *va_out)
{
    uint32_t va;
    CUresult rc = cu_va_reserve(size, VMGPU_GRANULE, 0, 1, &va);
    if (rc) return rc;
    cu_alloc *a = cu_alloc_adopt(pa, size, NULL);
    if (!a) {
        cu_va_free(cu_resv_find(va, size));
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    a->internal = 1;
    rc = cu_map_add(va, size, pa, 0, a, NULL);
    if (!rc) {
        rc = cu_set_access(va, size, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
        if (rc) cu_map_remove(cu_map_find(va));
    }
    a->refs = 0;  /* the mapping holds it now, or nothing does */
    if (rc) {
        cu_alloc_maybe_free(a);
        cu_va_free(cu_resv_find(va, size));
        return rc;
    }
    *va_out = va;
    return CUDA_SUCCESS;
}

static CUresult ipc_open_mem(CUdeviceptr *p, CUipcMemHandle h, unsigned flags)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!p || !(flags & CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)) return CUDA_ERROR_INVALID_VALUE;
    ipc_bytes b;
    if (!get(h.reserved, MEM_MAGIC, &b)) return CUDA_ERROR_INVALID_VALUE;
    for (ipc_open *o = g_opens; o; o = o->next)
        if (o->token == b.token) {
            o->refs++;
            *p = o->va;
            return CUDA_SUCCESS;
        }
    if (!vmgpu_dev_is_remote(g_dev)) return CUDA_ERROR_INVALID_VALUE;
    uint32_t pa, size;
    int own;
    int crc = vmgpu_phys_ipc_open(g_dev, b.token, &pa, &size, &own);
    if (crc == VMGPU_ERR_NOT_FOUND) return CUDA_ERROR_INVALID_VALUE;
    if (crc) return cu_core_err(c, crc);
    if (own) return CUDA_ERROR_INVALID_CONTEXT;  /* its own memory (NVIDIA, measured) */
    ipc_open *o = calloc(1, sizeof *o);
    rc = o ? map_imported(pa, size, &o->va) : CUDA_ERROR_OUT_OF_MEMORY;
    if (rc) {
        free(o);
        vmgpu_phys_free(g_dev, pa);
        return rc;
    }
    o->token = b.token;
    o->size = size;
    o->refs = 1;
    o->next = g_opens;
    g_opens = o;
    *p = o->va;
    cu_trace("cuIpcOpenMemHandle: another process's pa 0x%08x (0x%x bytes) mapped at VA 0x%08x",
             pa, size, o->va);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
    LOCKED("cuIpcOpenMemHandle", ipc_open_mem(pdptr, handle, Flags));
}
/* The name binaries built against headers before 11.0 reference: the same call. */
CUresult CUDAAPI cuIpcOpenMemHandle(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
    LOCKED("cuIpcOpenMemHandle", ipc_open_mem(pdptr, handle, Flags));
}

static CUresult ipc_close_mem(CUdeviceptr p)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    for (ipc_open **pp = &g_opens; *pp; pp = &(*pp)->next) {
        ipc_open *o = *pp;
        if (o->va != p) continue;
        if (--o->refs) return CUDA_SUCCESS;
        rc = cu_ctx_sync(c);  /* work still using it runs first */
        if (rc) return rc;
        cu_map *m = cu_map_find(o->va);
        if (m) cu_map_remove(m);
        cu_resv *r = cu_resv_find(o->va, o->size);
        if (r) cu_va_free(r);
        *pp = o->next;
        free(o);
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_INVALID_VALUE;
}
CUresult CUDAAPI cuIpcCloseMemHandle(CUdeviceptr dptr) { LOCKED("cuIpcCloseMemHandle", ipc_close_mem(dptr)); }

/* ------------------------------------------------------------------- events */

static CUresult ipc_get_event(CUipcEventHandle *h, CUevent he)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!h) return CUDA_ERROR_INVALID_VALUE;
    struct CUevent_st *e = cu_event_lookup(he);
    if (!e || !(e->flags & CU_EVENT_INTERPROCESS)) return CUDA_ERROR_INVALID_HANDLE;
    uint64_t token;
    int crc = vmgpu_event_ipc_token(e->core, &token);
    if (crc) return cu_core_err(c, crc);
    put(h->reserved, EVENT_MAGIC_IPC, token, 0);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event)
{
    LOCKED("cuIpcGetEventHandle", ipc_get_event(pHandle, event));
}

static CUresult ipc_open_event(CUevent *out, CUipcEventHandle h)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!out) return CUDA_ERROR_INVALID_VALUE;
    ipc_bytes b;
    if (!get(h.reserved, EVENT_MAGIC_IPC, &b) || !vmgpu_dev_is_remote(g_dev))
        return CUDA_ERROR_MAP_FAILED;  /* NVIDIA, measured for a junk handle */
    vmgpu_event *core = NULL;
    int own = 0;
    int crc = vmgpu_event_ipc_open(g_dev, b.token, &core, &own);
    if (crc == VMGPU_ERR_NOT_FOUND) return CUDA_ERROR_MAP_FAILED;
    if (crc) return cu_core_err(c, crc);
    if (own) return CUDA_ERROR_INVALID_CONTEXT;
    rc = cu_event_adopt(c, core, out);
    if (rc) vmgpu_event_destroy(core);
    return rc;
}
CUresult CUDAAPI cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle)
{
    LOCKED("cuIpcOpenEventHandle", ipc_open_event(phEvent, handle));
}
