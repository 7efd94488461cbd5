/* Shared helpers of the sw/cuda files (all called with the library lock held). */
#ifndef VMGPU_CUDA_PRIV_H
#define VMGPU_CUDA_PRIV_H

#include <unistd.h>

#include "cuda_internal.h"

/* Every entry point: take the library lock, run, trace the result. */
#define LOCKED(name, call) do { cu_lock(); cu_trace("%s", name); CUresult rc_ = (call); \
    cu_trace_rc(name, rc_); cu_unlock(); return rc_; } while (0)

extern int g_inited;
extern CUresult g_init_rc;       /* cuInit's answer (NOT_INITIALIZED before it) */
extern char g_spec[128];         /* VMGPU_DEVICE as opened */
extern __thread struct CUctx_st *t_stack[];  /* the calling thread's context stack */
extern __thread int t_depth;
extern vmgpu_dev *g_dev;
extern vmgpu_dev_info g_info;
extern struct CUctx_st *g_ctxs;
extern cu_alloc *g_allocs;
extern cu_resv *g_resvs;
extern cu_map *g_maps;
extern cu_dalloc *g_dallocs;

void cu_lock(void);
void cu_unlock(void);
void cu_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
CUresult cu_trace_rc(const char *name, CUresult rc);

CUresult cu_need_init(void);
/* The process's device, opened on demand without cuInit's CUDA state (the graphics API). */
vmgpu_dev *cu_device_open(char *err, size_t errlen);
struct CUctx_st *cu_ctx_lookup(CUcontext c);
struct CUctx_st *cu_current_raw(void);
CUresult cu_current(struct CUctx_st **out);
CUresult cu_current_opt(struct CUctx_st **out);
void cu_sweep_faults(void);
/* Let every context's pending work surface its faults (before process-wide mapping changes). */
void cu_drain_all(void);
CUresult cu_core_err(struct CUctx_st *c, int rc);
CUresult cu_ctx_sync(struct CUctx_st *c);

CUresult cu_va_reserve(uint64_t size, uint64_t align, uint64_t hint, int internal, uint32_t *out);
cu_resv *cu_resv_find(uint64_t va, uint64_t size);
void cu_va_free(cu_resv *r);
CUresult cu_map_add(uint32_t va, uint32_t size, uint32_t pa, int host, cu_alloc *a, cu_map **out);
cu_map *cu_map_find(uint64_t va);
int cu_range_mapped(uint64_t va, uint64_t size);
void cu_map_remove(cu_map *m);
CUresult cu_set_access(uint64_t va, uint64_t size, unsigned acc);
cu_alloc *cu_alloc_new(uint32_t size, const CUmemAllocationProp *prop, int internal, CUresult *err);
cu_alloc *cu_alloc_lookup(CUmemGenericAllocationHandle h);
uint64_t g_next_handle_value(void);
cu_alloc *cu_alloc_adopt(uint32_t pa, uint32_t size, const CUmemAllocationProp *prop);
/* cuda_exec.c: an event of another process (cuIpcOpenEventHandle); the live event of a handle. */
CUresult cu_event_adopt(struct CUctx_st *c, vmgpu_event *core, CUevent *out);
struct CUevent_st *cu_event_lookup(CUevent he);
void cu_alloc_maybe_free(cu_alloc *a);
int cu_mirror_replay(vmgpu_ctx *core);

/* cuda_state.c: allocations by address, streams by handle. */
/* Put d on the cuMemAlloc list (cuMemFree finds DA_DEVICE entries there). */
void cu_dalloc_link(cu_dalloc *d);
/* The record whose device address is va, of a kind in kind_mask (1 << DA_*). */
cu_dalloc *cu_dalloc_at(uint64_t va, int kind_mask);
/* The record (any kind but the bounce buffer) whose device range holds va. */
cu_dalloc *cu_dalloc_containing(uint64_t va);
/* The pinned/registered host range holding [p, p+n) (NULL: pageable memory). */
cu_dalloc *cu_dalloc_host(const void *p, size_t n);
/* Unmap and free a record's memory, and drop the record. */
void cu_dalloc_free(cu_dalloc *d);
/* cuMemAlloc's allocation (reserve, create, map, set access RW in every context), owned by c. */
CUresult cu_dev_alloc(struct CUctx_st *c, size_t bytes, cu_dalloc **out);
extern struct CUstream_st *g_streams;
/* The live stream a handle names, NULL otherwise. */
struct CUstream_st *cu_stream_lookup(CUstream h);
/* The core stream a CUstream means (NULL/legacy/per-thread: the context's NULL stream). */
CUresult cu_stream_resolve(CUstream h, struct CUctx_st **ctx, vmgpu_stream **s);

/* cuda_window.c: the device address window reserved in the host process (at cuInit). */
void cu_window_reserve(void);
/* 0 when device memory may be placed at [va, va+size); else the next address worth trying. */
uint64_t cu_window_next(uint64_t va, uint64_t size);
/* 1 when a byte of [va, va+n) is reserved window: a device address, never host memory. */
int cu_window_owns(uint64_t va, uint64_t n);

/* cuda_mem.c */
CUresult cu_bounce_init(void);
/* Around a DMA from / into the staging buffer: its first n bytes host -> device (put) or device
 * -> host (get); nothing unless the staging buffer is device memory (a link transport). */
CUresult cu_bounce_put(struct CUctx_st *c, size_t n);
CUresult cu_bounce_get(struct CUctx_st *c, size_t n);
/* cuda_exec.c: streams, events and modules of a context being destroyed. */
void cu_ctx_release_objects(struct CUctx_st *c);
/* Device-side copy between two device addresses on s (queued, submitted; sync if sync). */
CUresult cu_copy(struct CUctx_st *c, vmgpu_stream *s, uint64_t dst, uint64_t src, size_t n, int sync);
/* The registered staging buffer (BOUNCE_BYTES) for pageable host memory. */
cu_dalloc *cu_bounce(void);
/* A device range a copy may read (src) or write (dst): mapped, in one allocation, with access. */
int cu_dev_src_ok(uint64_t va, size_t n);
int cu_dev_dst_ok(uint64_t va, size_t n);
/* cuda_array.c: arrays and mipmapped arrays of a context being destroyed. */
void cu_array_ctx_release(struct CUctx_st *c);

#endif
