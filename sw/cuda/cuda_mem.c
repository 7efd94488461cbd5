/*
 * vmgpu's CUDA driver API: the virtual memory management family (cuMemAddressReserve,
 * cuMemCreate, cuMemMap, cuMemSetAccess, ...), cuMemAlloc built on it, pinned and registered
 * host memory through the host aperture, copies, fills and pointer queries.
 *
 * Granularity: VMGPU_GRANULE (64 KiB) for address, size and offset of every VMM call, while the
 * MMU translates and faults per 4 KiB page (VMGPU_PAGE_SIZE).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "cuda_internal.h"
#include "cuda_priv.h"

#define GRAN VMGPU_GRANULE
#define PAGE VMGPU_PAGE_SIZE

static cu_dalloc *g_bounce;
/* Over a serial link (sim-board, serial:, ftdi:) the staging buffer is device memory instead of
 * registered host memory: the device would otherwise fetch every word of a pageable copy through
 * the host port, one link exchange per 4 bytes, where a MEM_DATA burst carries 1 KiB a frame
 * (about five times the line's payload rate). bounce_put/bounce_get move the bytes between the
 * host shadow (g_bounce->host) and the device copy around each DMA; on the in-process sim the
 * buffer is host memory in the host aperture and both do nothing. Which one is the device's
 * answer (vmgpu_dev_info.host_port_link), through the device server the answer for the server's
 * own device: the in-process sim behind a server still reaches host memory directly. */
static int g_bounce_dev;

static int link_transport(void) { return g_info.host_port_link != 0; }

static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/* ------------------------------------------------------------ VMM: granularity */

static CUresult check_prop(const CUmemAllocationProp *prop)
{
    if (!prop) return CUDA_ERROR_INVALID_VALUE;
    if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED) return CUDA_ERROR_INVALID_VALUE;
    if (prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE) return CUDA_ERROR_INVALID_VALUE;
    if (prop->location.id != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (prop->requestedHandleTypes != CU_MEM_HANDLE_TYPE_NONE &&
        prop->requestedHandleTypes != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_INVALID_VALUE;  /* NVIDIA on Linux, Windows handle type (measured) */
    if (prop->allocFlags.compressionType != CU_MEM_ALLOCATION_COMP_NONE) return CUDA_ERROR_NOT_SUPPORTED;
    return CUDA_SUCCESS;
}

static CUresult granularity(size_t *g, const CUmemAllocationProp *prop, CUmemAllocationGranularity_flags opt)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    if (!g) return CUDA_ERROR_INVALID_VALUE;
    if (opt != CU_MEM_ALLOC_GRANULARITY_MINIMUM && opt != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
        return CUDA_ERROR_INVALID_VALUE;
    /* NVIDIA answers for any device ordinal here (measured); cuMemCreate checks it. */
    CUmemAllocationProp p;
    if (prop) {
        p = *prop;
        p.location.id = 0;
    }
    rc = check_prop(prop ? &p : NULL);
    if (rc) return rc;
    *g = GRAN;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemGetAllocationGranularity(size_t *granularity_, const CUmemAllocationProp *prop,
                                               CUmemAllocationGranularity_flags option)
{
    LOCKED("cuMemGetAllocationGranularity", granularity(granularity_, prop, option));
}

/* ---------------------------------------------------------- VMM: create, release */

static CUresult mem_create(CUmemGenericAllocationHandle *handle, size_t size,
                           const CUmemAllocationProp *prop, unsigned long long flags)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    if (!handle || flags != 0) return CUDA_ERROR_INVALID_VALUE;
    rc = check_prop(prop);
    if (rc) return rc;
    if (size == 0 || size % GRAN) return CUDA_ERROR_INVALID_VALUE;
    if (size > g_info.user_bytes) return CUDA_ERROR_OUT_OF_MEMORY;
    cu_alloc *a = cu_alloc_new((uint32_t)size, prop, 0, &rc);
    if (!a) return rc;
    *handle = a->id;
    cu_trace("cuMemCreate: handle 0x%llx = device memory pa 0x%08x, 0x%zx bytes (%zu granules, %zu pages)",
             (unsigned long long)a->id, a->pa, size, size / GRAN, size / PAGE);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                             const CUmemAllocationProp *prop, unsigned long long flags)
{
    LOCKED("cuMemCreate", mem_create(handle, size, prop, flags));
}

static CUresult mem_release(CUmemGenericAllocationHandle handle)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    cu_alloc *a = cu_alloc_lookup(handle);
    if (!a) return CUDA_ERROR_INVALID_VALUE;
    a->refs--;
    if (a->nmaps) cu_trace("cuMemRelease: handle 0x%llx released; memory lives until its %u mapping(s) are unmapped",
                           (unsigned long long)handle, a->nmaps);
    cu_alloc_maybe_free(a);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle) { LOCKED("cuMemRelease", mem_release(handle)); }

static CUresult mem_props(CUmemAllocationProp *prop, CUmemGenericAllocationHandle handle)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    if (!prop) return CUDA_ERROR_INVALID_VALUE;
    /* A released handle whose memory is still mapped still answers (as NVIDIA's, measured). */
    cu_alloc *a = cu_alloc_lookup(handle);
    for (cu_alloc *x = g_allocs; x && !a; x = x->next)
        if (x->id == handle && !x->internal && x->nmaps) a = x;
    if (!a) return CUDA_ERROR_INVALID_VALUE;
    *prop = a->prop;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                        CUmemGenericAllocationHandle handle)
{
    LOCKED("cuMemGetAllocationPropertiesFromHandle", mem_props(prop, handle));
}

/* The user reservation (cuMemAddressReserve) holding va, or NULL. */
static cu_resv *user_resv_at(uint64_t va)
{
    cu_resv *r = cu_resv_find(va, 1);
    return r && !r->internal ? r : NULL;
}

static CUresult mem_retain(CUmemGenericAllocationHandle *handle, void *addr)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    if (!handle) return CUDA_ERROR_INVALID_VALUE;
    /* A mapping's part past the end of its reservation is not found (NVIDIA, measured). */
    if (!user_resv_at((uint64_t)(uintptr_t)addr)) return CUDA_ERROR_INVALID_VALUE;
    cu_map *m = cu_map_find((uint64_t)(uintptr_t)addr);
    if (!m || !m->alloc || m->alloc->internal) return CUDA_ERROR_INVALID_VALUE;
    m->alloc->refs++;
    *handle = m->alloc->id;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
    LOCKED("cuMemRetainAllocationHandle", mem_retain(handle, addr));
}

/*
 * Shareable handles: a POSIX file descriptor made for the allocation at its first export; each
 * export hands out a dup() the caller owns, and an import in this process recognises the
 * allocation by the fd's inode. Through the device server (VMGPU_DEVICE=vmgpud) the descriptor
 * is the server's (vmgpu_phys_export): sent to another process with SCM_RIGHTS and imported
 * there, it gives that process the same physical memory, which lives while any process holds
 * it or any copy of the descriptor is open (docs/server.md). With the device in this process a
 * memfd named "vmgpu-alloc-<handle>" stands for it, and sharing works within the process only.
 */
static CUresult mem_export(void *shareable, CUmemGenericAllocationHandle handle,
                           CUmemAllocationHandleType type, unsigned long long flags)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    if (!shareable || flags != 0) return CUDA_ERROR_INVALID_VALUE;
    cu_alloc *a = cu_alloc_lookup(handle);
    if (!a) return CUDA_ERROR_INVALID_VALUE;
    if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_INVALID_VALUE;
    if (!(a->prop.requestedHandleTypes & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
        return CUDA_ERROR_INVALID_VALUE;
    if (a->memfd < 0 && vmgpu_dev_is_remote(g_dev)) {
        int fd;
        struct stat st;
        if (vmgpu_phys_export(g_dev, a->pa, &fd)) return CUDA_ERROR_OPERATING_SYSTEM;
        if (fstat(fd, &st)) {
            close(fd);
            return CUDA_ERROR_OPERATING_SYSTEM;
        }
        a->memfd = fd;
        a->fd_dev = st.st_dev;
        a->fd_ino = st.st_ino;
        cu_trace("cuMemExportToShareableHandle: handle 0x%llx (pa 0x%08x) exported through the "
                 "device server", (unsigned long long)a->id, a->pa);
    }
    if (a->memfd < 0) {
        char name[64];
        snprintf(name, sizeof name, "vmgpu-alloc-%llx", (unsigned long long)a->id);
        int fd = memfd_create(name, MFD_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st)) {
            if (fd >= 0) close(fd);
            return CUDA_ERROR_OPERATING_SYSTEM;
        }
        a->memfd = fd;
        a->fd_dev = st.st_dev;
        a->fd_ino = st.st_ino;
    }
    int fd = dup(a->memfd);
    if (fd < 0) return CUDA_ERROR_OPERATING_SYSTEM;
    *(int *)shareable = fd;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle,
                                              CUmemAllocationHandleType handleType, unsigned long long flags)
{
    LOCKED("cuMemExportToShareableHandle", mem_export(shareableHandle, handle, handleType, flags));
}

/* Through the device server: the server knows the descriptor, whichever process exported it,
 * and gives this process a hold on that memory. Every import is a new handle, in the exporting
 * process too, and the imported handle asks for no handle types (NVIDIA, measured: an imported
 * handle cannot be exported again). */
static CUresult import_remote(CUmemGenericAllocationHandle *handle, int fd)
{
    uint32_t pa, size;
    int crc = vmgpu_phys_import(g_dev, fd, &pa, &size);
    if (crc == VMGPU_ERR_NOT_FOUND || crc == VMGPU_ERR_INVALID) return CUDA_ERROR_INVALID_VALUE;
    if (crc) return cu_core_err(NULL, crc);
    CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
                                .requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE,
                                .location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0}};
    cu_alloc *a = cu_alloc_adopt(pa, size, &prop);
    if (!a) {
        vmgpu_phys_free(g_dev, pa);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *handle = a->id;
    cu_trace("cuMemImportFromShareableHandle: fd %d -> handle 0x%llx = pa 0x%08x (+0x%x), held "
             "through the device server", fd, (unsigned long long)a->id, pa, size);
    return CUDA_SUCCESS;
}

static CUresult mem_import(CUmemGenericAllocationHandle *handle, void *os, CUmemAllocationHandleType type)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    if (!handle) return CUDA_ERROR_INVALID_VALUE;
    /* NVIDIA (measured): type NONE is INVALID_VALUE, another type NOT_SUPPORTED (FABRIC crashes
     * it: the specific error instead). */
    if (type == CU_MEM_HANDLE_TYPE_NONE) return CUDA_ERROR_INVALID_VALUE;
    if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) return CUDA_ERROR_NOT_SUPPORTED;
    int fd = (int)(intptr_t)os;
    struct stat st;
    /* A descriptor that is not open, or names no exported allocation: NVIDIA answers
     * CUDA_ERROR_UNKNOWN (measured for -1, closed, /dev/null, memfd, pipe, socket; fd 0
     * INVALID_VALUE); vmgpu the specific INVALID_VALUE. */
    if (fd < 0 || fstat(fd, &st)) return CUDA_ERROR_INVALID_VALUE;
    if (vmgpu_dev_is_remote(g_dev)) return import_remote(handle, fd);
    /* The device in this process: only this process's own exports can be imported. Like
     * NVIDIA (and the server), the import is a new handle that asks for no handle types; it
     * holds the exported allocation's memory until it is released and unmapped. */
    for (cu_alloc *a = g_allocs; a; a = a->next)
        if (a->memfd >= 0 && a->fd_dev == st.st_dev && a->fd_ino == st.st_ino && !a->internal) {
            CUmemAllocationProp prop = a->prop;
            prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;
            cu_alloc *n = cu_alloc_adopt(a->pa, a->size, &prop);
            if (!n) return CUDA_ERROR_OUT_OF_MEMORY;
            n->foreign = 1;
            n->origin = a;
            a->holders++;
            *handle = n->id;
            cu_trace("cuMemImportFromShareableHandle: fd %d -> handle 0x%llx, the memory of handle "
                     "0x%llx (pa 0x%08x +0x%x)", fd, (unsigned long long)n->id, (unsigned long long)a->id,
                     a->pa, a->size);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_VALUE;
}
CUresult CUDAAPI cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle,
                                                CUmemAllocationHandleType shHandleType)
{
    LOCKED("cuMemImportFromShareableHandle", mem_import(handle, osHandle, shHandleType));
}

/* ------------------------------------------------------ VMM: reserve, map, access */

static CUresult addr_reserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
                             unsigned long long flags)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    if (!ptr || flags != 0 || size == 0 || size % GRAN) return CUDA_ERROR_INVALID_VALUE;
    /* A power-of-two alignment below the granularity is accepted (NVIDIA, measured). */
    if (alignment & (alignment - 1)) return CUDA_ERROR_INVALID_VALUE;
    if (alignment < GRAN) alignment = 0;
    if (addr % GRAN) return CUDA_ERROR_INVALID_VALUE;
    uint32_t va;
    rc = cu_va_reserve(size, alignment, addr, 0, &va);
    if (rc) return rc;
    *ptr = va;
    cu_trace("cuMemAddressReserve: VA [0x%08x, 0x%08llx) reserved in every context", va,
             (unsigned long long)va + size);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
                                     unsigned long long flags)
{
    LOCKED("cuMemAddressReserve", addr_reserve(ptr, size, alignment, addr, flags));
}

static CUresult addr_free(CUdeviceptr ptr, size_t size)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    cu_resv *r = NULL;
    for (cu_resv *x = g_resvs; x; x = x->next)
        if (x->va == ptr && !x->internal) r = x;
    if (!r || r->size != size) return CUDA_ERROR_INVALID_VALUE;
    for (cu_map *m = g_maps; m; m = m->next)
        if (m->va < (uint64_t)r->va + r->size && r->va < (uint64_t)m->va + m->size) return CUDA_ERROR_INVALID_VALUE;
    cu_va_free(r);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size) { LOCKED("cuMemAddressFree", addr_free(ptr, size)); }

/*
 * VMM answers by state (docs/cuda.md, measured on NVIDIA with tests/cuda/probe's vmmstate_*
 * sections). cuMemMap checks, in this order:
 *   1. flags, size 0, address 0, handle 0                         -> INVALID_VALUE
 *   2. the handle: a live allocation (created, imported or retained, or released while still
 *      mapped somewhere); a handle that was released and unmapped -> NOT_SUPPORTED (NVIDIA
 *      reads its freed record: NOT_SUPPORTED, or a crash); one never made -> INVALID_VALUE
 *      (NVIDIA crashes)
 *   3. offset != 0 or size != the allocation's size: only whole allocations are mapped,
 *      whatever else is wrong with the range                        -> NOT_SUPPORTED
 *   4. the address: granule aligned, inside a reservation, and the range overlapping no
 *      mapping (of this handle or another, whatever access it has) -> INVALID_VALUE
 * Only the start has to lie in a reservation: a range running on past the reservation's end is
 * mapped (into the next reservation, or into VA that no reservation holds). vmgpu reserves such
 * an overhang for the mapping's lifetime (internal reservations, freed by its cuMemUnmap), so
 * that the VA is handed out to nothing else while mapped.
 */
#define MAX_OVERHANG 64
static struct {
    uint32_t map_va;          /* the mapping that runs past its reservation */
    cu_resv *r;               /* the VA it covers past it */
} g_overhang[MAX_OVERHANG];

static void overhang_free(uint32_t map_va)
{
    for (int i = 0; i < MAX_OVERHANG; i++)
        if (g_overhang[i].r && g_overhang[i].map_va == map_va) {
            cu_va_free(g_overhang[i].r);
            g_overhang[i].r = NULL;
        }
}

/* Reserve the parts of [va, va+size) that no reservation holds, for a mapping at va. Any part
 * held by the driver's own reservations (cuMemAlloc, host memory, pools) is refused. */
static CUresult overhang_reserve(uint64_t va, uint64_t size)
{
    uint64_t end = va + size;
    for (uint64_t v = va; v < end;) {
        cu_resv *r = cu_resv_find(v, 1);
        if (r && r->internal) {
            overhang_free((uint32_t)va);
            return CUDA_ERROR_INVALID_VALUE;
        }
        if (r) {
            v = (uint64_t)r->va + r->size;
            continue;
        }
        uint64_t run = v + GRAN;
        while (run < end && !cu_resv_find(run, 1)) run += GRAN;
        int slot = 0;
        while (slot < MAX_OVERHANG && g_overhang[slot].r) slot++;
        uint32_t got = 0;
        CUresult rc = slot < MAX_OVERHANG ? cu_va_reserve(run - v, GRAN, v, 1, &got) : CUDA_ERROR_OUT_OF_MEMORY;
        if (rc == CUDA_SUCCESS && got != v) {
            cu_va_free(cu_resv_find(got, run - v));
            rc = CUDA_ERROR_INVALID_VALUE;  /* taken by a context's own VA */
        }
        if (rc) {
            overhang_free((uint32_t)va);
            return rc == CUDA_ERROR_OUT_OF_MEMORY ? rc : CUDA_ERROR_INVALID_VALUE;
        }
        g_overhang[slot].map_va = (uint32_t)va;
        g_overhang[slot].r = cu_resv_find(v, run - v);
        cu_trace("cuMemMap: VA [0x%08llx, 0x%08llx) past the reservation's end reserved for the mapping",
                 (unsigned long long)v, (unsigned long long)run);
        v = run;
    }
    return CUDA_SUCCESS;
}

/* The allocation a handle names for cuMemMap: alive while referenced or mapped. */
static cu_alloc *map_handle(CUmemGenericAllocationHandle h)
{
    for (cu_alloc *a = g_allocs; a; a = a->next)
        if (a->id == h && !a->internal && (a->refs > 0 || a->nmaps > 0)) return a;
    return NULL;
}

static CUresult mem_map(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                        unsigned long long flags)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    if (flags != 0 || size == 0 || ptr == 0 || handle == 0) return CUDA_ERROR_INVALID_VALUE;
    cu_alloc *a = map_handle(handle);
    if (!a) return handle < g_next_handle_value() ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_INVALID_VALUE;
    if (offset != 0 || size != a->size) return CUDA_ERROR_NOT_SUPPORTED;
    if (ptr % GRAN || !user_resv_at(ptr) || ptr + size > CU_VA_HI) return CUDA_ERROR_INVALID_VALUE;
    for (cu_map *m = g_maps; m; m = m->next)
        if (ptr < (uint64_t)m->va + m->size && m->va < ptr + size) return CUDA_ERROR_INVALID_VALUE;
    rc = overhang_reserve(ptr, size);
    if (rc) return rc;
    rc = cu_map_add((uint32_t)ptr, (uint32_t)size, a->pa, 0, a, NULL);
    if (rc) {
        overhang_free((uint32_t)ptr);
        return rc;
    }
    cu_trace("cuMemMap: VA [0x%08llx, +0x%zx) -> pa 0x%08x: %zu PTEs valid, no access until cuMemSetAccess",
             (unsigned long long)ptr, size, a->pa, size / PAGE);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                          unsigned long long flags)
{
    LOCKED("cuMemMap", mem_map(ptr, size, offset, handle, flags));
}

/* cuMemUnmap (NVIDIA, measured): the start (any byte) must lie in a reservation; the range may
 * run on past it. Every mapping inside [ptr, ptr+size) is unmapped, unmapped parts are ignored
 * (a repeated unmap succeeds); a range covering part of a mapping, or touching memory that
 * cuMemAlloc/host registration own, is refused (INVALID_VALUE) and changes nothing. */
static CUresult mem_unmap(CUdeviceptr ptr, size_t size)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    if (size == 0 || !user_resv_at(ptr)) return CUDA_ERROR_INVALID_VALUE;
    uint64_t end = ptr + size;
    for (cu_map *m = g_maps; m; m = m->next) {
        uint64_t ms = m->va, me = (uint64_t)m->va + m->size;
        if (ms < end && ptr < me && (ms < ptr || me > end || !m->alloc || m->alloc->internal))
            return CUDA_ERROR_INVALID_VALUE;
    }
    for (int again = 1; again;) {
        again = 0;
        for (cu_map *m = g_maps; m; m = m->next)
            if (m->va >= ptr && (uint64_t)m->va + m->size <= end) {
                uint32_t va = m->va;
                cu_map_remove(m);
                overhang_free(va);
                again = 1;
                break;
            }
    }
    cu_trace("cuMemUnmap: VA [0x%08llx, +0x%zx): PTEs invalid, TLB entries invalidated",
             (unsigned long long)ptr, size);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size) { LOCKED("cuMemUnmap", mem_unmap(ptr, size)); }

static CUresult check_location(const CUmemLocation *loc)
{
    /* A device that does not exist: INVALID_VALUE (NVIDIA, one-GPU machine, measured). */
    if (loc->type != CU_MEM_LOCATION_TYPE_DEVICE || loc->id != 0) return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

static CUresult mem_set_access(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    if (!desc || count == 0 || size == 0 || ptr % GRAN || size % GRAN) return CUDA_ERROR_INVALID_VALUE;
    unsigned acc = 0;
    for (size_t i = 0; i < count; i++) {
        rc = check_location(&desc[i].location);
        if (rc) return rc;
        if (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE && desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
            desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            return CUDA_ERROR_INVALID_VALUE;
        acc = (unsigned)desc[i].flags;
    }
    /* NVIDIA (measured): a mapping must start at ptr and one must end at ptr+size; from ptr the
     * mappings that follow each other without a gap get the access, up to the end or to the
     * first gap (mappings after a gap keep theirs, and the call succeeds). */
    uint64_t end = ptr + size, stop = ptr;
    cu_map *first = cu_map_find(ptr), *last = end <= CU_VA_HI ? cu_map_find(end - 1) : NULL;
    if (!first || first->va != ptr || !last || (uint64_t)last->va + last->size != end)
        return CUDA_ERROR_INVALID_VALUE;
    for (cu_map *m = first; m && stop < end; m = cu_map_find(stop)) {
        if (m->host || !m->alloc || m->alloc->internal) return CUDA_ERROR_INVALID_VALUE;
        stop = (uint64_t)m->va + m->size;
    }
    if (last->host || !last->alloc || last->alloc->internal) return CUDA_ERROR_INVALID_VALUE;
    if (stop < end)
        cu_trace("cuMemSetAccess: a gap at VA 0x%08llx: [0x%08llx, 0x%08llx) keeps its access (as NVIDIA's)",
                 (unsigned long long)stop, (unsigned long long)stop, (unsigned long long)end);
    size = (size_t)(stop - ptr);
    rc = cu_set_access(ptr, size, acc);
    if (!rc)
        cu_trace("cuMemSetAccess: VA [0x%08llx, +0x%zx) now %s for the device: PTE R/W bits rewritten",
                 (unsigned long long)ptr, size, acc == 3 ? "read-write" : acc == 1 ? "read-only" : "no access");
    return rc;
}
CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
    LOCKED("cuMemSetAccess", mem_set_access(ptr, size, desc, count));
}

static CUresult mem_get_access(unsigned long long *flags, const CUmemLocation *loc, CUdeviceptr ptr)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    if (!flags || !loc) return CUDA_ERROR_INVALID_VALUE;
    /* Unlike cuMemSetAccess, a device that does not exist is INVALID_DEVICE here (measured). */
    if (loc->type == CU_MEM_LOCATION_TYPE_DEVICE && loc->id != 0) return CUDA_ERROR_INVALID_DEVICE;
    rc = check_location(loc);
    if (rc) return rc;
    /* Pool memory reads as no access here, though the device may use it (NVIDIA, measured). */
    if (cu_pool_range(ptr, NULL, NULL, NULL)) {
        *flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
        return CUDA_SUCCESS;
    }
    cu_map *m = cu_map_find(ptr);
    if (!m) return CUDA_ERROR_INVALID_VALUE;
    *flags = m->acc[(ptr - m->va) / GRAN];
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location, CUdeviceptr ptr)
{
    LOCKED("cuMemGetAccess", mem_get_access(flags, location, ptr));
}

/* ------------------------------------------------------------------ cuMemAlloc */

CUresult cu_dev_alloc(struct CUctx_st *c, size_t bytes, cu_dalloc **out)
{
    uint64_t size = round_up(bytes, GRAN);
    if (size > g_info.user_bytes) return CUDA_ERROR_OUT_OF_MEMORY;
    cu_dalloc *d = calloc(1, sizeof *d);
    if (!d) return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult rc;
    CUmemAllocationProp prop = {0};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    cu_alloc *a = cu_alloc_new((uint32_t)size, &prop, 1, &rc);
    if (!a) {
        free(d);
        return rc;
    }
    uint32_t va;
    rc = cu_va_reserve(size, GRAN, 0, 1, &va);
    if (!rc) {
        rc = cu_map_add(va, (uint32_t)size, a->pa, 0, a, NULL);
        if (!rc) {
            rc = cu_set_access(va, size, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
            if (rc) cu_map_remove(cu_map_find(va));
        }
        if (rc) cu_va_free(cu_resv_find(va, size));
    }
    if (rc) {
        a->refs = 0;
        cu_alloc_maybe_free(a);
        free(d);
        return rc;
    }
    d->kind = DA_DEVICE;
    d->va = d->map_va = va;
    d->map_size = (uint32_t)size;
    d->bytes = bytes;
    d->alloc = a;
    d->ctx = c;
    cu_dalloc_link(d);
    *out = d;
    return CUDA_SUCCESS;
}

static CUresult mem_alloc(CUdeviceptr *dptr, size_t bytes)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!dptr || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
    cu_dalloc *d = NULL;
    rc = cu_dev_alloc(c, bytes, &d);
    if (rc) return rc;
    *dptr = d->va;
    cu_trace("cuMemAlloc(%zu): reserve + create + map + set access RW at VA 0x%08x (pa 0x%08x)", bytes,
             d->va, d->alloc->pa);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize) { LOCKED("cuMemAlloc", mem_alloc(dptr, bytesize)); }

static CUresult mem_free(CUdeviceptr p)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (p == 0) return CUDA_SUCCESS;  /* as NVIDIA (measured) */
    cu_dalloc *d = cu_dalloc_at(p, 1 << DA_DEVICE);
    if (d && d->module) return CUDA_ERROR_INVALID_VALUE;  /* a module's variables: not cuMemAlloc's */
    if (!d) {
        /* Memory of the stream-ordered allocator may be freed here too (NVIDIA, measured). */
        int pool;
        rc = cu_pool_free_now(c, p, &pool);
        return pool ? rc : CUDA_ERROR_INVALID_VALUE;
    }
    /* Work still using it runs first (cuMemFree synchronises like NVIDIA's). */
    rc = cu_ctx_sync(c);
    if (rc) return rc;
    cu_dalloc_free(d);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemFree(CUdeviceptr dptr) { LOCKED("cuMemFree", mem_free(dptr)); }

static CUresult mem_info(size_t *free_b, size_t *total)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    /* NULL outputs are skipped, as NVIDIA's driver does (measured). */
    uint32_t fb = 0;
    vmgpu_phys_stats(g_dev, &fb, NULL);
    if (free_b) *free_b = fb;
    if (total) *total = g_info.mem_size;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemGetInfo(size_t *free, size_t *total) { LOCKED("cuMemGetInfo", mem_info(free, total)); }

static CUresult addr_range(CUdeviceptr *pbase, size_t *psize, CUdeviceptr p)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    cu_dalloc *d = cu_dalloc_containing(p);
    if (d) {
        if (pbase) *pbase = d->va;
        if (psize) *psize = d->bytes;
        return CUDA_SUCCESS;
    }
    /* A pool allocation: what was asked for; a pool's free space: NOT_FOUND (measured). */
    int pr = cu_pool_range(p, pbase, psize, NULL);
    if (pr) return pr > 0 ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
    /* The granule rounding behind a cuMemAlloc is no part of it (NVIDIA: NOT_FOUND, measured). */
    cu_map *m = cu_map_find(p);
    if (!m || m->host || !m->alloc || m->alloc->internal) return CUDA_ERROR_NOT_FOUND;
    if (pbase) *pbase = m->va;
    if (psize) *psize = m->size;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    LOCKED("cuMemGetAddressRange", addr_range(pbase, psize, dptr));
}

/* -------------------------------------------------------------- host memory */

/* Register [p, p+bytes) (rounded out to pages) and map it RW (or R) everywhere. */
static CUresult host_map(void *p, size_t bytes, int kind, unsigned flags, int read_only, cu_dalloc **out)
{
    uintptr_t start = (uintptr_t)p & ~(uintptr_t)(PAGE - 1);
    uint64_t hbytes = round_up((uintptr_t)p + bytes, PAGE) - start;
    uint64_t vsize = round_up(hbytes, GRAN);
    if (hbytes >= (1ull << 31)) return CUDA_ERROR_OUT_OF_MEMORY;
    cu_dalloc *d = calloc(1, sizeof *d);
    if (!d) return CUDA_ERROR_OUT_OF_MEMORY;
    uint32_t haddr, va;
    int crc = vmgpu_host_register(g_dev, (void *)start, hbytes, &haddr);
    if (crc) {
        free(d);
        return crc == VMGPU_ERR_OVERLAP ? CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED : cu_core_err(NULL, crc);
    }
    CUresult rc = cu_va_reserve(vsize, GRAN, 0, 1, &va);
    cu_map *m = NULL;
    if (!rc) {
        rc = cu_map_add(va, (uint32_t)hbytes, haddr, 1, NULL, &m);
        if (!rc) {
            rc = cu_set_access(va, hbytes, read_only ? CU_MEM_ACCESS_FLAGS_PROT_READ
                                                     : CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
            if (rc) cu_map_remove(m);
        }
        if (rc) cu_va_free(cu_resv_find(va, vsize));
    }
    if (rc) {
        vmgpu_host_unregister(g_dev, (void *)start);
        free(d);
        return rc;
    }
    d->kind = kind;
    d->map_va = va;
    d->map_size = (uint32_t)vsize;
    d->va = va + (uint32_t)((uintptr_t)p - start);
    d->bytes = bytes;
    d->host = p;
    d->host_page = (void *)start;
    d->host_bytes = hbytes;
    d->haddr = haddr;
    d->flags = flags;
    d->ctx = cu_current_raw();
    cu_dalloc_link(d);
    if (out) *out = d;
    cu_trace("host memory %p (+%zu) registered: host frames at 0x%08x, device VA 0x%08x (host aperture, zero copy)",
             p, bytes, haddr, d->va);
    return CUDA_SUCCESS;
}

CUresult cu_bounce_init(void)
{
    void *p = NULL;
    if (posix_memalign(&p, PAGE, BOUNCE_BYTES)) return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult rc;
    if (link_transport()) {
        rc = cu_dev_alloc(NULL, BOUNCE_BYTES, &g_bounce);
        if (!rc) {
            g_bounce->kind = DA_BOUNCE;
            g_bounce->host = p;
            g_bounce->alloc->internal = 1;
            g_bounce_dev = 1;
            cu_trace("staging buffer for pageable copies: %u KiB of device memory at PA 0x%08x, VA 0x%08x "
                     "(a link transport: MEM_DATA bursts, not host-port words)",
                     BOUNCE_BYTES / 1024, g_bounce->alloc->pa, g_bounce->va);
        }
    } else {
        rc = host_map(p, BOUNCE_BYTES, DA_BOUNCE, 0, 0, &g_bounce);
    }
    if (rc) free(p);
    return rc;
}

CUresult cu_bounce_put(struct CUctx_st *c, size_t n)
{
    if (!g_bounce_dev || !n) return CUDA_SUCCESS;
    return cu_core_err(c, vmgpu_phys_write(g_dev, g_bounce->alloc->pa, g_bounce->host, n));
}

CUresult cu_bounce_get(struct CUctx_st *c, size_t n)
{
    if (!g_bounce_dev || !n) return CUDA_SUCCESS;
    return cu_core_err(c, vmgpu_phys_read(g_dev, g_bounce->alloc->pa, g_bounce->host, n));
}

static CUresult host_alloc(void **pp, size_t bytes, unsigned flags)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!pp || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
    if (flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED))
        return CUDA_ERROR_INVALID_VALUE;
    if (bytes >= (1ull << 31)) return CUDA_ERROR_OUT_OF_MEMORY;
    void *p = NULL;
    if (posix_memalign(&p, PAGE, round_up(bytes, PAGE))) return CUDA_ERROR_OUT_OF_MEMORY;
    rc = host_map(p, bytes, DA_HOST_ALLOC, flags, 0, NULL);
    if (rc) {
        free(p);
        return rc;
    }
    *pp = p;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemAllocHost(void **pp, size_t bytesize) { LOCKED("cuMemAllocHost", host_alloc(pp, bytesize, 0)); }
CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    LOCKED("cuMemHostAlloc", host_alloc(pp, bytesize, Flags));
}

static CUresult host_free(void *p)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!p) return CUDA_SUCCESS;  /* as NVIDIA (measured) */
    cu_dalloc *d = NULL;
    for (cu_dalloc *x = g_dallocs; x; x = x->next)
        if (x->kind == DA_HOST_ALLOC && x->host == p) d = x;
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    rc = cu_ctx_sync(c);
    if (rc) return rc;
    cu_dalloc_free(d);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemFreeHost(void *p) { LOCKED("cuMemFreeHost", host_free(p)); }

static CUresult host_register(void *p, size_t bytes, unsigned flags)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!p || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
    if (flags & ~(unsigned)(CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                            CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY))
        return CUDA_ERROR_INVALID_VALUE;
    /* No I/O memory behind the host aperture: ordinary memory named so is refused as on NVIDIA. */
    if (flags & CU_MEMHOSTREGISTER_IOMEMORY) return CUDA_ERROR_INVALID_VALUE;
    /* Any overlap with an existing registration (pages are the unit). */
    uintptr_t s = (uintptr_t)p & ~(uintptr_t)(PAGE - 1), e = (uintptr_t)round_up((uintptr_t)p + bytes, PAGE);
    for (cu_dalloc *d = g_dallocs; d; d = d->next) {
        if (d->kind == DA_DEVICE) continue;
        uintptr_t ds = (uintptr_t)d->host_page, de = ds + d->host_bytes;
        /* Pinned memory from cuMemAllocHost/cuMemHostAlloc: INVALID_VALUE (measured). */
        if (s < de && ds < e)
            return d->kind == DA_HOST_ALLOC ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    }
    return host_map(p, bytes, DA_HOST_REGISTER, flags, (flags & CU_MEMHOSTREGISTER_READ_ONLY) != 0, NULL);
}
CUresult CUDAAPI cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags)
{
    LOCKED("cuMemHostRegister", host_register(p, bytesize, Flags));
}

static CUresult host_unregister(void *p)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    cu_dalloc *d = NULL;
    for (cu_dalloc *x = g_dallocs; x; x = x->next)
        if (x->kind == DA_HOST_REGISTER && x->host == p) d = x;
    if (!d) {
        /* Inside a registration or pinned allocation: INVALID_VALUE; elsewhere NOT_REGISTERED
         * (NVIDIA, measured). */
        cu_dalloc *in = cu_dalloc_host(p, 1);
        return in ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    }
    rc = cu_ctx_sync(c);
    if (rc) return rc;
    cu_dalloc_free(d);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemHostUnregister(void *p) { LOCKED("cuMemHostUnregister", host_unregister(p)); }

static CUresult host_dptr(CUdeviceptr *pd, void *p, unsigned flags)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!pd || !p || flags != 0) return CUDA_ERROR_INVALID_VALUE;
    cu_dalloc *d = cu_dalloc_host(p, 1);
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    *pd = d->va + (CUdeviceptr)((uint8_t *)p - (uint8_t *)d->host);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    LOCKED("cuMemHostGetDevicePointer", host_dptr(pdptr, p, Flags));
}

static CUresult host_flags(unsigned *pf, void *p)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!pf || !p) return CUDA_ERROR_INVALID_VALUE;
    cu_dalloc *d = cu_dalloc_host(p, 1);
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    *pf = d->flags | CU_MEMHOSTALLOC_DEVICEMAP;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuMemHostGetFlags(unsigned int *pFlags, void *p) { LOCKED("cuMemHostGetFlags", host_flags(pFlags, p)); }

/* ------------------------------------------------------------------ copies */

CUresult cu_copy(struct CUctx_st *c, vmgpu_stream *s, uint64_t dst, uint64_t src, size_t n, int sync)
{
    int rc = VMGPU_OK;
    for (size_t off = 0; off < n && !rc;) {
        uint32_t chunk = n - off > (1u << 30) ? (1u << 30) : (uint32_t)(n - off);
        rc = vmgpu_cmd_copy(s, (uint32_t)(dst + off), (uint32_t)(src + off), chunk);
        off += chunk;
    }
    if (!rc) rc = sync ? vmgpu_stream_sync(s) : vmgpu_stream_submit(s, NULL);
    return cu_core_err(c, rc);
}

/* A device range a copy may name: inside mappings (access is the device's business). */
static int dev_range_ok(uint64_t va, size_t n)
{
    if (va + n > CU_VA_HI || va + n <= va || !cu_range_mapped(va, n)) return 0;

    /* cuMemAlloc/host memory: one allocation (its granule-rounded mapping); VMM mappings may be
     * stitched together in one reservation, so a range may run across them. */
    cu_dalloc *d = cu_dalloc_containing(va);
    if (!d) {
        for (cu_dalloc *x = g_dallocs; x; x = x->next)
            if (x->kind != DA_BOUNCE && va >= x->map_va && va < (uint64_t)x->map_va + x->map_size) d = x;
    }
    if (d && d->exact) return va >= d->va && va + n <= (uint64_t)d->va + d->bytes;
    return !d || va + n <= (uint64_t)d->map_va + d->map_size;
}

/* NVIDIA's driver refuses a copy or fill whose device range lacks the access it needs
 * (CUDA_ERROR_INVALID_VALUE, not a sticky fault: measured); kernels still fault on the device. */
static int dev_access_ok(uint64_t va, size_t n, unsigned need)
{
    for (uint64_t v = va & ~(uint64_t)(GRAN - 1); v < va + n; v += GRAN) {
        cu_map *m = cu_map_find(v < va ? va : v);
        if (!m || (m->acc[((v < va ? va : v) - m->va) / GRAN] & need) != need) return 0;
    }
    return 1;
}
#define DST_OK(va, n) (dev_range_ok(va, n) && dev_access_ok(va, n, 3))
#define SRC_OK(va, n) (dev_range_ok(va, n) && dev_access_ok(va, n, 1))
/* A "host" pointer inside the reserved device window is no host memory (cuda_window.c). */
#define HOST_IN_WINDOW(p, n) cu_window_owns((uint64_t)(uintptr_t)(p), n)

static CUresult copy_htod(CUdeviceptr dst, const void *src, size_t n, CUstream hs, int async)
{
    struct CUctx_st *c;
    vmgpu_stream *s;
    CUresult rc = cu_stream_resolve(hs, &c, &s);
    if (rc) return rc;
    if (n == 0) return CUDA_SUCCESS;
    if (!src || !DST_OK(dst, n) || HOST_IN_WINDOW(src, n)) return CUDA_ERROR_INVALID_VALUE;
    cu_dalloc *h = cu_dalloc_host(src, n);
    /* Pinned or registered memory: the DMA reads it in place through the host port, except over
     * a link, where that is one exchange per word: there it is staged like pageable memory (the
     * copy then completes before the call returns, which an asynchronous copy may do). */
    if (h && !g_bounce_dev)
        return cu_copy(c, s, dst, h->va + (uint64_t)((const uint8_t *)src - (uint8_t *)h->host), n, !async);
    /* Pageable memory: staged through the bounce buffer, synchronously. */
    for (size_t off = 0; off < n;) {
        size_t chunk = n - off > BOUNCE_BYTES ? BOUNCE_BYTES : n - off;
        memcpy(g_bounce->host, (const uint8_t *)src + off, chunk);
        rc = cu_bounce_put(c, chunk);
        if (!rc) rc = cu_copy(c, s, dst + off, g_bounce->va, chunk, 1);
        if (rc) return rc;
        off += chunk;
    }
    return CUDA_SUCCESS;
}

static CUresult copy_dtoh(void *dst, CUdeviceptr src, size_t n, CUstream hs, int async)
{
    struct CUctx_st *c;
    vmgpu_stream *s;
    CUresult rc = cu_stream_resolve(hs, &c, &s);
    if (rc) return rc;
    if (n == 0) return CUDA_SUCCESS;
    if (!dst || !SRC_OK(src, n) || HOST_IN_WINDOW(dst, n)) return CUDA_ERROR_INVALID_VALUE;
    cu_dalloc *h = cu_dalloc_host(dst, n);
    if (h && !g_bounce_dev)  /* in place; over a link staged (copy_htod) */
        return cu_copy(c, s, h->va + (uint64_t)((uint8_t *)dst - (uint8_t *)h->host), src, n, !async);
    for (size_t off = 0; off < n;) {
        size_t chunk = n - off > BOUNCE_BYTES ? BOUNCE_BYTES : n - off;
        rc = cu_copy(c, s, g_bounce->va, src + off, chunk, 1);
        if (!rc) rc = cu_bounce_get(c, chunk);
        if (rc) return rc;
        memcpy((uint8_t *)dst + off, g_bounce->host, chunk);
        off += chunk;
    }
    return CUDA_SUCCESS;
}

static CUresult copy_dtod(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream hs, int async)
{
    struct CUctx_st *c;
    vmgpu_stream *s;
    CUresult rc = cu_stream_resolve(hs, &c, &s);
    if (rc) return rc;
    if (n == 0) return CUDA_SUCCESS;
    if (!DST_OK(dst, n) || !SRC_OK(src, n)) return CUDA_ERROR_INVALID_VALUE;
    return cu_copy(c, s, dst, src, n, !async);
}

/* cuMemcpy: unified addressing; an address inside a device mapping is device memory, anything
 * else a host pointer. */
static CUresult copy_any(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream hs, int async)
{
    int ddev = cu_map_find(dst) != NULL, sdev = cu_map_find(src) != NULL;
    /* In the reserved device window but in no mapping: an unmapped device address (freed, or a
     * hole of a reservation), never host memory. NVIDIA's driver crashes here (measured);
     * cuMemcpy documents CUDA_ERROR_INVALID_VALUE, the answer its checked copies give. */
    if ((!ddev && cu_window_owns(dst, n)) || (!sdev && cu_window_owns(src, n))) {
        struct CUctx_st *c;
        vmgpu_stream *s;
        CUresult rc = cu_stream_resolve(hs, &c, &s);
        return rc ? rc : n ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
    }
    if (ddev && sdev) return copy_dtod(dst, src, n, hs, async);
    if (ddev) return copy_htod(dst, (const void *)(uintptr_t)src, n, hs, async);
    if (sdev) return copy_dtoh((void *)(uintptr_t)dst, src, n, hs, async);
    struct CUctx_st *c;
    vmgpu_stream *s;
    CUresult rc = cu_stream_resolve(hs, &c, &s);
    if (rc) return rc;
    if (n == 0) return CUDA_SUCCESS;
    if (!dst || !src) return CUDA_ERROR_INVALID_VALUE;
    rc = cu_ctx_sync(c);
    if (rc) return rc;
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
    return CUDA_SUCCESS;
}

#define NS CU_STREAM_LEGACY
CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr d, const void *s, size_t n) { LOCKED("cuMemcpyHtoD", copy_htod(d, s, n, NS, 0)); }
CUresult CUDAAPI cuMemcpyDtoH(void *d, CUdeviceptr s, size_t n) { LOCKED("cuMemcpyDtoH", copy_dtoh(d, s, n, NS, 0)); }
CUresult CUDAAPI cuMemcpyDtoD(CUdeviceptr d, CUdeviceptr s, size_t n) { LOCKED("cuMemcpyDtoD", copy_dtod(d, s, n, NS, 0)); }
CUresult CUDAAPI cuMemcpy(CUdeviceptr d, CUdeviceptr s, size_t n) { LOCKED("cuMemcpy", copy_any(d, s, n, NS, 0)); }
CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr d, const void *s, size_t n, CUstream st)
{
    LOCKED("cuMemcpyHtoDAsync", copy_htod(d, s, n, st, 1));
}
CUresult CUDAAPI cuMemcpyDtoHAsync(void *d, CUdeviceptr s, size_t n, CUstream st)
{
    LOCKED("cuMemcpyDtoHAsync", copy_dtoh(d, s, n, st, 1));
}
CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st)
{
    LOCKED("cuMemcpyDtoDAsync", copy_dtod(d, s, n, st, 1));
}
CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st)
{
    LOCKED("cuMemcpyAsync", copy_any(d, s, n, st, 1));
}

/* ------------------------------------------------------------------- fills */

static CUresult memset_any(CUdeviceptr dst, uint32_t pattern, unsigned esize, size_t count, CUstream hs, int async)
{
    struct CUctx_st *c;
    vmgpu_stream *s;
    CUresult rc = cu_stream_resolve(hs, &c, &s);
    if (rc) return rc;
    if (count == 0) return CUDA_SUCCESS;
    if (dst % esize) return CUDA_ERROR_INVALID_VALUE;
    if (count > ((size_t)1 << 32) / esize) return CUDA_ERROR_INVALID_VALUE;
    size_t n = count * esize;
    if (!DST_OK(dst, n)) return CUDA_ERROR_INVALID_VALUE;
    /* NVIDIA refuses fills of registered host memory (measured); pinned memory is filled. */
    cu_dalloc *hd = cu_dalloc_containing(dst);
    if (hd && hd->kind == DA_HOST_REGISTER) return CUDA_ERROR_INVALID_VALUE;
    int crc = VMGPU_OK;
    for (size_t off = 0; off < n && !crc;) {
        uint32_t chunk = n - off > (1u << 30) ? (1u << 30) : (uint32_t)(n - off);
        crc = vmgpu_cmd_fill(s, (uint32_t)(dst + off), chunk, pattern, esize);
        off += chunk;
    }
    if (!crc) crc = async ? vmgpu_stream_submit(s, NULL) : vmgpu_stream_sync(s);
    return cu_core_err(c, crc);
}

CUresult CUDAAPI cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n) { LOCKED("cuMemsetD8", memset_any(d, v, 1, n, NS, 0)); }
CUresult CUDAAPI cuMemsetD16(CUdeviceptr d, unsigned short v, size_t n) { LOCKED("cuMemsetD16", memset_any(d, v, 2, n, NS, 0)); }
CUresult CUDAAPI cuMemsetD32(CUdeviceptr d, unsigned int v, size_t n) { LOCKED("cuMemsetD32", memset_any(d, v, 4, n, NS, 0)); }
CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream st)
{
    LOCKED("cuMemsetD8Async", memset_any(d, v, 1, n, st, 1));
}
CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream st)
{
    LOCKED("cuMemsetD16Async", memset_any(d, v, 2, n, st, 1));
}
CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream st)
{
    LOCKED("cuMemsetD32Async", memset_any(d, v, 4, n, st, 1));
}

/* ---------------------------------------------------------- pointer attributes */

static CUresult ptr_attr(void *data, CUpointer_attribute attr, CUdeviceptr ptr)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    if (!data) return CUDA_ERROR_INVALID_VALUE;
    int pool;
    rc = cu_pool_ptr_attr(data, attr, ptr, &pool);
    if (pool) return rc;
    /* What the pointer is: a cuMemAlloc/pinned range by device address, a pinned/registered
     * range by host address, or a VMM mapping. */
    cu_dalloc *d = cu_dalloc_containing(ptr);
    int by_host = 0;
    if (!d && (d = cu_dalloc_host((const void *)(uintptr_t)ptr, 1)) != NULL) by_host = 1;
    cu_map *m = d ? NULL : cu_map_find(ptr);
    if (m && (m->host || !m->alloc || m->alloc->internal)) m = NULL;
    if (!d && !m) return CUDA_ERROR_INVALID_VALUE;
    int host = d && d->kind != DA_DEVICE;
    uint64_t off = d ? (by_host ? ptr - (uintptr_t)d->host : ptr - d->va) : 0;
    switch (attr) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        *(CUcontext *)data = d && d->ctx && cu_ctx_lookup(d->ctx) ? d->ctx : NULL;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *(unsigned int *)data = host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        *(CUdeviceptr *)data = d ? d->va + off : ptr;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (!host) return CUDA_ERROR_INVALID_VALUE;
        *(void **)data = (uint8_t *)d->host + off;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        *(CUdeviceptr *)data = d ? (by_host ? (CUdeviceptr)(uintptr_t)d->host : d->va) : m->va;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
        *(size_t *)data = d ? d->bytes : m->size;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPED:
        *(int *)data = 1;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *(int *)data = 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *(int *)data = 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: {
        /* What the device may do at ptr (for a host pointer: at its device address). */
        cu_map *am = cu_map_find(d ? d->va + off : ptr);
        *(unsigned int *)data = am ? am->acc[((d ? d->va + off : ptr) - am->va) / GRAN] : 0;
        return CUDA_SUCCESS;
    }
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
        *(unsigned long long *)data = d ? (unsigned long long)d->map_va : m->alloc->id;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
        *(CUmemoryPool *)data = NULL; /* not from a pool (NVIDIA: SUCCESS, NULL; measured) */
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}
CUresult CUDAAPI cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    LOCKED("cuPointerGetAttribute", ptr_attr(data, attribute, ptr));
}

/* Size of each attribute's value (cuPointerGetAttributes writes a zero of that size where the
 * single-attribute call would refuse); 0: not an attribute. */
static size_t ptr_attr_size(CUpointer_attribute a)
{
    switch ((int)a) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: case CU_POINTER_ATTRIBUTE_HOST_POINTER:
    case 17 /* MEMPOOL_HANDLE */: case 19 /* MAPPING_BASE_ADDR */:
        return sizeof(void *);
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        return sizeof(CUdeviceptr);
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: case 18 /* MAPPING_SIZE */:
        return sizeof(size_t);
    case CU_POINTER_ATTRIBUTE_BUFFER_ID: case 14 /* ALLOWED_HANDLE_TYPES */: case 20 /* MEMORY_BLOCK_ID */:
        return sizeof(unsigned long long);
    case 5 /* P2P_TOKENS */:
        return 2 * sizeof(unsigned long long);
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE: case 6 /* SYNC_MEMOPS */: case CU_POINTER_ATTRIBUTE_IS_MANAGED:
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: case 10 /* IS_LEGACY_CUDA_IPC_CAPABLE */:
    case CU_POINTER_ATTRIBUTE_MAPPED: case 15 /* IS_GPU_DIRECT_RDMA_CAPABLE */:
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: case 21 /* IS_HW_DECOMPRESS_CAPABLE */:
        return sizeof(unsigned int);
    default:
        return 0;
    }
}

/* Unlike the single-attribute call, an address the driver does not know is no error: every
 * attribute gets its empty value (NULL, 0; the device ordinal CU_DEVICE_INVALID), as NVIDIA's
 * documentation describes; so does an attribute that does not apply to the pointer. */
static CUresult ptr_attrs(unsigned n, CUpointer_attribute *attrs, void **data, CUdeviceptr ptr)
{
    CUresult rc = cu_current_opt(NULL);
    if (rc) return rc;
    if (!n || !attrs || !data) return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < n; i++)
        if (!data[i] || !ptr_attr_size(attrs[i])) return CUDA_ERROR_INVALID_VALUE;
    int known = ptr_attr(&(unsigned int){0}, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr) == CUDA_SUCCESS;
    for (unsigned i = 0; i < n; i++) {
        if (known && ptr_attr(data[i], attrs[i], ptr) == CUDA_SUCCESS) continue;
        memset(data[i], 0, ptr_attr_size(attrs[i]));
        if (!known && attrs[i] == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL) *(int *)data[i] = CU_DEVICE_INVALID;
    }
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes, void **data,
                                        CUdeviceptr ptr)
{
    LOCKED("cuPointerGetAttributes", ptr_attrs(numAttributes, attributes, data, ptr));
}

/* ------------------------------------------ for cuda_array.c and cuda_extmem.c */

cu_dalloc *cu_bounce(void) { return g_bounce; }
int cu_dev_src_ok(uint64_t va, size_t n) { return SRC_OK(va, n); }
int cu_dev_dst_ok(uint64_t va, size_t n) { return DST_OK(va, n); }
