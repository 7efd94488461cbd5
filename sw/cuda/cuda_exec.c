/*
 * vmgpu's CUDA driver API: streams, events, the built-in module and kernel launches.
 *
 * Every stream of a context (its NULL stream included) queues on the context's hardware ring:
 * contexts are spread over the device's rings, so one context's fault (which resets its ring)
 * never drops another context's work while there are no more contexts than rings.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_internal.h"
#include "cuda_module.h"
#include "cuda_priv.h"
#include "vmgpu/regs.h"
#include "vmgpu_builtin.h"

static struct CUevent_st *g_events;
static struct CUmod_st *g_mods;

static struct CUevent_st *event_lookup(CUevent h)
{
    for (struct CUevent_st *e = g_events; e; e = e->next)
        if (e == h && e->live) return e;
    return NULL;
}

static struct CUmod_st *mod_lookup(CUmodule h)
{
    for (struct CUmod_st *m = g_mods; m; m = m->next)
        if (m == h && m->live) return m;
    return NULL;
}

static struct CUfunc_st *func_lookup(CUfunction f)
{
    for (struct CUmod_st *m = g_mods; m; m = m->next) {
        for (unsigned i = 0; m->live && i < m->nfn; i++)
            if (&m->fn[i] == f) return f;
        for (unsigned i = 0; m->live && i < m->npfn; i++)
            if (&m->pfn[i] == f) return f;
    }
    return NULL;
}

void cu_ctx_release_objects(struct CUctx_st *c)
{
    for (struct CUstream_st *s = g_streams; s; s = s->next)
        if (s->live && s->ctx == c) {
            vmgpu_stream_destroy(s->core);
            s->live = 0;
        }
    for (struct CUevent_st *e = g_events; e; e = e->next)
        if (e->live && e->ctx == c) {
            vmgpu_event_destroy(e->core);
            e->live = 0;
        }
    for (struct CUmod_st *m = g_mods; m; m = m->next)
        if (m->live && m->ctx == c) {
            cu_module_free_ptx(m);
            m->live = 0;
        }
    cu_args_release(c);
}

/* The simulated device only runs while the host lets it: a query gives it a slice first so
 * that polling loops make progress. */
static void run_a_little(void)
{
    uint64_t ran = 0;
    vmgpu_dev_poll(g_dev, 20000, &ran);
}

/* ------------------------------------------------------------------ streams */

/* Stream ids: 1 is the legacy NULL stream, 2 the per-thread default stream, created streams
 * count from 3. */
static unsigned long long g_next_stream_id = 2;

static CUresult stream_create(CUstream *ph, unsigned flags, int priority)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    (void)priority;
    if (!ph || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING)) return CUDA_ERROR_INVALID_VALUE;
    struct CUstream_st *s = calloc(1, sizeof *s);
    if (!s) return CUDA_ERROR_OUT_OF_MEMORY;
    int crc = vmgpu_stream_create(c->core, c->ring, &s->core);
    if (crc) {
        free(s);
        return cu_core_err(c, crc);
    }
    s->magic = STREAM_MAGIC;
    s->live = 1;
    s->id = ++g_next_stream_id;
    s->ctx = c;
    s->flags = flags;
    s->next = g_streams;
    g_streams = s;
    *ph = s;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    LOCKED("cuStreamCreate", stream_create(phStream, Flags, 0));
}
CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
    LOCKED("cuStreamCreateWithPriority", stream_create(phStream, flags, priority));
}

static CUresult stream_flags(CUstream h, unsigned *flags)
{
    struct CUctx_st *c;
    vmgpu_stream *s;
    if (!flags) return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = cu_stream_resolve(h, &c, &s);
    if (rc) return rc;
    struct CUstream_st *st = cu_stream_lookup(h);
    *flags = st ? st->flags : 0;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamGetFlags(CUstream hStream, unsigned int *flags)
{
    LOCKED("cuStreamGetFlags", stream_flags(hStream, flags));
}
CUresult CUDAAPI cuStreamGetFlags_ptsz(CUstream hStream, unsigned int *flags)
{
    LOCKED("cuStreamGetFlags_ptsz", stream_flags(hStream, flags));
}

/* A handle of a stream that was destroyed (objects are marked dead, never freed). */
static int stream_was_destroyed(CUstream h)
{
    for (struct CUstream_st *s = g_streams; s; s = s->next)
        if (s == h && !s->live) return 1;
    return 0;
}

/* The stream's context, id and device: the NULL and special streams name the current context.
 * A destroyed stream answers CONTEXT_IS_DESTROYED in these queries, as NVIDIA's do (measured;
 * its cuStreamGetCtx crashed on one, vmgpu answers the same). */
static CUresult stream_info(CUstream h, struct CUctx_st **ctx, unsigned long long *id)
{
    vmgpu_stream *s;
    CUresult rc = cu_stream_resolve(h, ctx, &s);
    if (rc == CUDA_ERROR_INVALID_HANDLE && stream_was_destroyed(h)) return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    if (rc) return rc;
    struct CUstream_st *st = cu_stream_lookup(h);
    if (id) *id = st ? st->id : (h == CU_STREAM_PER_THREAD ? 2 : 1);
    return CUDA_SUCCESS;
}

/* cuStreamGetCtx_v2 fills whichever of its two outputs is given (NVIDIA accepts either NULL). */
static CUresult stream_get_ctx(CUstream h, CUcontext *pctx, CUgreenCtx *pgreen, int v2)
{
    struct CUctx_st *c;
    if (!v2 && !pctx) return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = stream_info(h, &c, NULL);
    if (rc) return rc;
    if (pctx) *pctx = c;
    if (pgreen) *pgreen = NULL;   /* vmgpu has no green contexts */
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamGetCtx(CUstream hStream, CUcontext *pctx)
{
    LOCKED("cuStreamGetCtx", stream_get_ctx(hStream, pctx, NULL, 0));
}
CUresult CUDAAPI cuStreamGetCtx_ptsz(CUstream hStream, CUcontext *pctx)
{
    LOCKED("cuStreamGetCtx_ptsz", stream_get_ctx(hStream, pctx, NULL, 0));
}
CUresult CUDAAPI cuStreamGetCtx_v2(CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx)
{
    LOCKED("cuStreamGetCtx_v2", stream_get_ctx(hStream, pCtx, pGreenCtx, 1));
}
CUresult CUDAAPI cuStreamGetCtx_v2_ptsz(CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx)
{
    LOCKED("cuStreamGetCtx_v2_ptsz", stream_get_ctx(hStream, pCtx, pGreenCtx, 1));
}

static CUresult stream_get_id(CUstream h, unsigned long long *id)
{
    struct CUctx_st *c;
    if (!id) return CUDA_ERROR_INVALID_VALUE;
    return stream_info(h, &c, id);
}
CUresult CUDAAPI cuStreamGetId(CUstream hStream, unsigned long long *streamId)
{
    LOCKED("cuStreamGetId", stream_get_id(hStream, streamId));
}
CUresult CUDAAPI cuStreamGetId_ptsz(CUstream hStream, unsigned long long *streamId)
{
    LOCKED("cuStreamGetId_ptsz", stream_get_id(hStream, streamId));
}

static CUresult stream_get_device(CUstream h, CUdevice *dev)
{
    struct CUctx_st *c;
    if (!dev) return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = stream_info(h, &c, NULL);
    if (rc) return rc;
    *dev = 0;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamGetDevice(CUstream hStream, CUdevice *device)
{
    LOCKED("cuStreamGetDevice", stream_get_device(hStream, device));
}
CUresult CUDAAPI cuStreamGetDevice_ptsz(CUstream hStream, CUdevice *device)
{
    LOCKED("cuStreamGetDevice_ptsz", stream_get_device(hStream, device));
}

/* vmgpu has no graphs, so no stream is ever capturing. */
static CUresult stream_is_capturing(CUstream h, CUstreamCaptureStatus *status)
{
    struct CUctx_st *c;
    if (!status) return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = stream_info(h, &c, NULL);
    if (rc) return rc;
    *status = CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
    LOCKED("cuStreamIsCapturing", stream_is_capturing(hStream, captureStatus));
}
CUresult CUDAAPI cuStreamIsCapturing_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
    LOCKED("cuStreamIsCapturing_ptsz", stream_is_capturing(hStream, captureStatus));
}

/* Every stream has priority 0: the device has none (cuCtxGetStreamPriorityRange gives 0..0 and
 * a created stream's priority is clamped into it). */
static CUresult stream_get_priority(CUstream h, int *priority)
{
    struct CUctx_st *c;
    if (!priority) return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = stream_info(h, &c, NULL);
    if (rc) return rc;
    *priority = 0;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamGetPriority(CUstream hStream, int *priority)
{
    LOCKED("cuStreamGetPriority", stream_get_priority(hStream, priority));
}
CUresult CUDAAPI cuStreamGetPriority_ptsz(CUstream hStream, int *priority)
{
    LOCKED("cuStreamGetPriority_ptsz", stream_get_priority(hStream, priority));
}

static CUresult stream_destroy(CUstream h)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUstream_st *s = cu_stream_lookup(h);
    if (!s) return CUDA_ERROR_INVALID_HANDLE;
    /* Work queued on it still completes (NVIDIA: destroy returns at once, work finishes). */
    vmgpu_stream_destroy(s->core);
    cu_sweep_faults();
    s->live = 0;
    s->core = NULL;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuStreamDestroy(CUstream hStream) { LOCKED("cuStreamDestroy", stream_destroy(hStream)); }

static CUresult stream_sync(CUstream h)
{
    struct CUctx_st *c;
    vmgpu_stream *s;
    CUresult rc = cu_stream_resolve(h, &c, &s);
    if (rc) return rc;
    rc = cu_core_err(c, vmgpu_stream_sync(s));
    if (!rc) cu_pool_synced_stream(c, h); /* frees in it are complete: pools may shrink */
    return rc;
}
CUresult CUDAAPI cuStreamSynchronize(CUstream hStream) { LOCKED("cuStreamSynchronize", stream_sync(hStream)); }
CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream hStream) { LOCKED("cuStreamSynchronize_ptsz", stream_sync(hStream)); }

static CUresult stream_query(CUstream h)
{
    struct CUctx_st *c;
    vmgpu_stream *s;
    CUresult rc = cu_stream_resolve(h, &c, &s);
    if (rc) return rc;
    uint32_t f;
    int crc = vmgpu_stream_submit(s, &f);
    if (crc) return cu_core_err(c, crc);
    run_a_little();
    crc = vmgpu_fence_query(g_dev, vmgpu_stream_ring(s), f);
    if (crc == VMGPU_ERR_NOT_READY) {
        /* A fault stops the ring; only a wait notices it. */
        if (vmgpu_ring_faulted(g_dev, vmgpu_stream_ring(s)) == 1)
            crc = vmgpu_fence_wait(g_dev, vmgpu_stream_ring(s), f);
        else return CUDA_ERROR_NOT_READY;
    }
    return cu_core_err(c, crc);
}
CUresult CUDAAPI cuStreamQuery(CUstream hStream) { LOCKED("cuStreamQuery", stream_query(hStream)); }
CUresult CUDAAPI cuStreamQuery_ptsz(CUstream hStream) { LOCKED("cuStreamQuery_ptsz", stream_query(hStream)); }

static CUresult stream_wait_event(CUstream h, CUevent he, unsigned flags)
{
    struct CUctx_st *c;
    vmgpu_stream *s;
    CUresult rc = cu_stream_resolve(h, &c, &s);
    if (rc) return rc;
    struct CUevent_st *e = event_lookup(he);
    if (!e) return CUDA_ERROR_INVALID_HANDLE;
    if (flags & ~(unsigned)CU_EVENT_WAIT_EXTERNAL) return CUDA_ERROR_INVALID_VALUE;
    if (e->recorded) cu_pool_stream_waits(c, h, e); /* pools follow event dependencies */
    if (!e->recorded || e->ring == vmgpu_stream_ring(s)) return CUDA_SUCCESS;  /* one ring runs in order */
    return cu_core_err(c, vmgpu_cmd_wait_fence(s, e->ring, e->fence));
}
CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    LOCKED("cuStreamWaitEvent", stream_wait_event(hStream, hEvent, Flags));
}
CUresult CUDAAPI cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    LOCKED("cuStreamWaitEvent_ptsz", stream_wait_event(hStream, hEvent, Flags));
}

/* ------------------------------------------------------------------- events */

static CUresult event_create(CUevent *ph, unsigned flags)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!ph || (flags & ~(unsigned)(CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS)))
        return CUDA_ERROR_INVALID_VALUE;
    if ((flags & CU_EVENT_INTERPROCESS) && !(flags & CU_EVENT_DISABLE_TIMING)) return CUDA_ERROR_INVALID_VALUE;
    /* Another process can open an interprocess event only through the device server. */
    if ((flags & CU_EVENT_INTERPROCESS) && !vmgpu_dev_is_remote(g_dev)) return CUDA_ERROR_NOT_SUPPORTED;
    struct CUevent_st *e = calloc(1, sizeof *e);
    if (!e) return CUDA_ERROR_OUT_OF_MEMORY;
    int crc = vmgpu_event_create(g_dev, &e->core);
    if (crc) {
        free(e);
        return cu_core_err(c, crc);
    }
    e->magic = EVENT_MAGIC;
    e->live = 1;
    e->ctx = c;
    e->flags = flags;
    e->next = g_events;
    g_events = e;
    *ph = e;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags) { LOCKED("cuEventCreate", event_create(phEvent, Flags)); }

static CUresult event_record(CUevent he, CUstream h)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUevent_st *e = event_lookup(he);
    if (!e) return CUDA_ERROR_INVALID_HANDLE;
    struct CUctx_st *c;
    vmgpu_stream *s;
    rc = cu_stream_resolve(h, &c, &s);
    if (rc) return rc;
    if (c != e->ctx) return CUDA_ERROR_INVALID_HANDLE;
    int crc = vmgpu_event_record(e->core, s);
    if (crc) return cu_core_err(c, crc);
    e->recorded = 1;
    e->ring = vmgpu_stream_ring(s);
    e->fence = vmgpu_fence_last(g_dev, e->ring);
    cu_pool_event_recorded(e, c, h);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream) { LOCKED("cuEventRecord", event_record(hEvent, hStream)); }
CUresult CUDAAPI cuEventRecord_ptsz(CUevent hEvent, CUstream hStream) { LOCKED("cuEventRecord_ptsz", event_record(hEvent, hStream)); }

/* An event another process shares (cuIpcOpenEventHandle): queries and waits see its owner's
 * records, so it counts as recorded. */
CUresult cu_event_adopt(struct CUctx_st *c, vmgpu_event *core, CUevent *out)
{
    struct CUevent_st *e = calloc(1, sizeof *e);
    if (!e) return CUDA_ERROR_OUT_OF_MEMORY;
    e->magic = EVENT_MAGIC;
    e->live = 1;
    e->ctx = c;
    e->core = core;
    e->flags = CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING;
    e->recorded = 1;
    e->next = g_events;
    g_events = e;
    *out = e;
    return CUDA_SUCCESS;
}

/* The live event behind a handle, or NULL. */
struct CUevent_st *cu_event_lookup(CUevent he) { return event_lookup(he); }

static CUresult event_check(CUevent he, struct CUevent_st **out)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUevent_st *e = event_lookup(he);
    if (!e) return CUDA_ERROR_INVALID_HANDLE;
    if (e->ctx->sticky) return e->ctx->sticky;
    *out = e;
    return CUDA_SUCCESS;
}

static CUresult event_query(CUevent he)
{
    struct CUevent_st *e;
    CUresult rc = event_check(he, &e);
    if (rc) return rc;
    if (!e->recorded) return CUDA_SUCCESS;
    run_a_little();
    int crc = vmgpu_event_query(e->core);
    if (crc == VMGPU_ERR_NOT_READY) {
        if (vmgpu_ring_faulted(g_dev, e->ring) != 1) return CUDA_ERROR_NOT_READY;
        crc = vmgpu_event_wait(e->core);
    }
    return cu_core_err(e->ctx, crc);
}
CUresult CUDAAPI cuEventQuery(CUevent hEvent) { LOCKED("cuEventQuery", event_query(hEvent)); }

static CUresult event_sync(CUevent he)
{
    struct CUevent_st *e;
    CUresult rc = event_check(he, &e);
    if (rc) return rc;
    if (!e->recorded) return CUDA_SUCCESS;
    rc = cu_core_err(e->ctx, vmgpu_event_wait(e->core));
    if (!rc) cu_pool_synced_event(e);
    return rc;
}
CUresult CUDAAPI cuEventSynchronize(CUevent hEvent) { LOCKED("cuEventSynchronize", event_sync(hEvent)); }

/* Times come from the device's cycle counter at the nominal clock (VMGPU_CLOCK_HZ). */
static CUresult event_elapsed(float *ms, CUevent hs, CUevent he)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    /* NULL result pointer: INVALID_HANDLE, as NVIDIA answers (measured). */
    if (!ms) return CUDA_ERROR_INVALID_HANDLE;
    struct CUevent_st *a = event_lookup(hs), *b = event_lookup(he);
    if (!a || !b) return CUDA_ERROR_INVALID_HANDLE;
    if (a->ctx->sticky) return a->ctx->sticky;
    if (b->ctx->sticky) return b->ctx->sticky;
    if ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING) return CUDA_ERROR_INVALID_HANDLE;
    if (!a->recorded || !b->recorded) return CUDA_ERROR_INVALID_HANDLE;
    run_a_little();
    int qa = vmgpu_event_query(a->core), qb = vmgpu_event_query(b->core);
    if (qa == VMGPU_ERR_NOT_READY || qb == VMGPU_ERR_NOT_READY) return CUDA_ERROR_NOT_READY;
    if (qa) return cu_core_err(a->ctx, qa);
    if (qb) return cu_core_err(b->ctx, qb);
    uint64_t ca, cb;
    int crc = vmgpu_event_cycles(a->core, &ca);
    if (!crc) crc = vmgpu_event_cycles(b->core, &cb);
    if (crc) return cu_core_err(a->ctx, crc);
    *ms = (float)((double)(int64_t)(cb - ca) * 1000.0 / (double)VMGPU_CLOCK_HZ);
    return CUDA_SUCCESS;
}
#undef cuEventElapsedTime
CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    LOCKED("cuEventElapsedTime", event_elapsed(pMilliseconds, hStart, hEnd));
}
CUresult CUDAAPI cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    LOCKED("cuEventElapsedTime_v2", event_elapsed(pMilliseconds, hStart, hEnd));
}

static CUresult event_destroy(CUevent he)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUevent_st *e = event_lookup(he);
    if (!e) return CUDA_ERROR_INVALID_HANDLE;
    /* The timestamp slot must not be reused while the device may still write it. */
    if (e->recorded && vmgpu_event_query(e->core) == VMGPU_ERR_NOT_READY) vmgpu_event_wait(e->core);
    cu_sweep_faults();
    vmgpu_event_destroy(e->core);
    e->core = NULL;
    e->live = 0;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuEventDestroy(CUevent hEvent) { LOCKED("cuEventDestroy", event_destroy(hEvent)); }

/* ------------------------------------------------------------ module, kernels */

static const char *const k_fn_names[6] = {
    VMGPU_BUILTIN_FILL_I32, VMGPU_BUILTIN_COPY_I32, VMGPU_BUILTIN_ADD_I32,
    VMGPU_BUILTIN_SCALE_I32, VMGPU_BUILTIN_AXPY_I32, VMGPU_BUILTIN_REDUCE_SUM_I32,
};
static const unsigned k_fn_kernel[6] = {
    VMGPU_KERNEL_FILL, VMGPU_KERNEL_COPY, VMGPU_KERNEL_ADD,
    VMGPU_KERNEL_SCALE, VMGPU_KERNEL_AXPY, VMGPU_KERNEL_REDUCE_SUM,
};

/* vmgpu's built-in image (its six functions run on the old compute engine), PTX text, or a fat
 * binary carrying PTX (cuda_module.c: translated for the SIMT unit). */
static CUresult module_load_ex(CUmodule *pm, const void *image, cu_jit_opts *jo)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!pm || !image) return CUDA_ERROR_INVALID_VALUE;
    struct CUmod_st *m = NULL;
    /* Compare without reading past a shorter image's terminator. */
    if (strncmp(image, VMGPU_BUILTIN_IMAGE, sizeof VMGPU_BUILTIN_IMAGE) != 0) {
        rc = cu_module_load_image(c, image, jo, &m);
        if (rc) return rc;
    } else {
        m = calloc(1, sizeof *m);
        if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
        m->magic = MODULE_MAGIC;
        m->ctx = c;
        m->nfn = 6;
        for (unsigned i = 0; i < 6; i++) {
            m->fn[i].magic = FUNC_MAGIC;
            m->fn[i].mod = m;
            m->fn[i].kernel = k_fn_kernel[i];
            m->fn[i].name = k_fn_names[i];
            m->fn[i].max_dyn_shared = -1;
            m->fn[i].carveout = -1;
        }
    }
    m->live = 1;
    m->next = g_mods;
    g_mods = m;
    *pm = m;
    return CUDA_SUCCESS;
}
static CUresult module_load(CUmodule *pm, const void *image) { return module_load_ex(pm, image, NULL); }
CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image)
{
    LOCKED("cuModuleLoadData", module_load(module, image));
}

/* The JIT's options: the error log gets the translator's message (line, instruction, reason),
 * the info log stays empty and the sizes hold the texts' lengths, as NVIDIA's JIT does
 * (measured); an unknown option is INVALID_VALUE. */
static CUresult module_load_data_ex(CUmodule *pm, const void *image, unsigned n, CUjit_option *opt, void **val)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    cu_jit_opts jo;
    rc = cu_jit_opts_parse(n, opt, val, &jo);
    if (rc) return rc;
    return module_load_ex(pm, image, &jo);
}
CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                    CUjit_option *options, void **optionValues)
{
    LOCKED("cuModuleLoadDataEx", module_load_data_ex(module, image, numOptions, options, optionValues));
}

static CUresult module_load_fatbin(CUmodule *pm, const void *image);

/* cuModuleLoad: the file's contents, as cuModuleLoadData or cuModuleLoadFatBinary would take them. */
static CUresult module_load_file(CUmodule *pm, const char *fname)
{
    struct CUctx_st *c;
    CUresult rc = cu_current(&c);
    if (rc) return rc;
    if (!pm || !fname) return CUDA_ERROR_INVALID_VALUE;
    FILE *f = fopen(fname, "rb");
    if (!f) return CUDA_ERROR_FILE_NOT_FOUND;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        char *grown = realloc(buf, 2 * cap + 1);
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    int err = ferror(f);
    fclose(f);
    /* A name that opens but cannot be read (a directory): NVIDIA answers OUT_OF_MEMORY. */
    if (!buf || err) {
        free(buf);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    buf[n] = 0;
    rc = n >= 4 ? module_load_fatbin(pm, buf) : module_load(pm, buf);
    free(buf);
    return rc;
}
CUresult CUDAAPI cuModuleLoad(CUmodule *module, const char *fname)
{
    LOCKED("cuModuleLoad", module_load_file(module, fname));
}

/* A fat binary (NVIDIA's container of per-architecture code, magic 0xba55ed50) is loaded from its
 * PTX; one without PTX (SASS only, or no code) is NO_BINARY_FOR_GPU, as NVIDIA answers a fat
 * binary without code for its GPU. PTX text and vmgpu's own built-in image are accepted here too;
 * the runtime's wrapper structure is not (INVALID_IMAGE, measured). */
static CUresult module_load_fatbin(CUmodule *pm, const void *image) { return module_load(pm, image); }
CUresult CUDAAPI cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
    LOCKED("cuModuleLoadFatBinary", module_load_fatbin(module, fatCubin));
}

static CUresult module_get_function(CUfunction *pf, CUmodule hm, const char *name)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    if (!pf || !name) return CUDA_ERROR_INVALID_VALUE;
    struct CUmod_st *m = mod_lookup(hm);
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    if (m->ctx->sticky) return m->ctx->sticky;
    for (unsigned i = 0; i < m->nfn; i++)
        if (!strcmp(name, m->fn[i].name)) {
            *pf = &m->fn[i];
            return CUDA_SUCCESS;
        }
    for (unsigned i = 0; i < m->npfn; i++)
        if (!strcmp(name, m->pfn[i].name)) {
            *pf = &m->pfn[i];
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_NOT_FOUND;
}
CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    LOCKED("cuModuleGetFunction", module_get_function(hfunc, hmod, name));
}

static CUresult module_unload(CUmodule hm)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUmod_st *m = mod_lookup(hm);
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    /* In a context with a sticky error NVIDIA answers it (measured). */
    struct CUctx_st *cur = cu_current_raw();
    if (cur && cur->sticky) return cur->sticky;
    if (m->ptx) {
        /* Launches still queued read its code: they finish first. */
        vmgpu_stream_sync(m->ctx->null_s);
        cu_sweep_faults();
        cu_module_free_ptx(m);
    }
    m->live = 0;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleUnload(CUmodule hmod) { LOCKED("cuModuleUnload", module_unload(hmod)); }

/* A function of a live module, with the current context's sticky error first (measured: every
 * call below answers ILLEGAL_ADDRESS in a faulted context). */
static CUresult func_check(CUfunction f, struct CUfunc_st **out)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUctx_st *cur = cu_current_raw();
    if (cur && cur->sticky) return cur->sticky;
    *out = func_lookup(f);
    return *out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult func_get_attribute(int *pi, CUfunction_attribute a, CUfunction f)
{
    struct CUfunc_st *fn;
    CUresult rc = func_check(f, &fn);
    if (rc == CUDA_ERROR_INVALID_HANDLE && !pi) return CUDA_ERROR_INVALID_VALUE;
    return rc ? rc : cu_func_get_attribute(pi, a, fn);
}
CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
    LOCKED("cuFuncGetAttribute", func_get_attribute(pi, attrib, hfunc));
}

static CUresult func_set_attribute(CUfunction f, CUfunction_attribute a, int value)
{
    struct CUfunc_st *fn;
    CUresult rc = func_check(f, &fn);
    return rc ? rc : cu_func_set_attribute(fn, a, value);
}
CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
{
    LOCKED("cuFuncSetAttribute", func_set_attribute(hfunc, attrib, value));
}

/* The unit has no L1 to trade against shared memory: every valid preference is accepted and has
 * no effect, as on NVIDIA devices with a fixed split. */
static CUresult func_set_cache_config(CUfunction f, CUfunc_cache config)
{
    struct CUfunc_st *fn;
    CUresult rc = func_check(f, &fn);
    if (rc) return rc;
    return (unsigned)config > CU_FUNC_CACHE_PREFER_EQUAL ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}
CUresult CUDAAPI cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config)
{
    LOCKED("cuFuncSetCacheConfig", func_set_cache_config(hfunc, config));
}

static CUresult module_get_global(CUdeviceptr *dptr, size_t *bytes, CUmodule hm, const char *name)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    struct CUmod_st *m = mod_lookup(hm);
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    if (m->ctx->sticky) return m->ctx->sticky;
    return cu_module_get_global(dptr, bytes, m, name);
}
CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name)
{
    LOCKED("cuModuleGetGlobal_v2", module_get_global(dptr, bytes, hmod, name));
}

/* vmgpu translates every kernel of a module when it is loaded: eager loading (NVIDIA's driver
 * 580 answers LAZY, its default). NULL: INVALID_VALUE (NVIDIA crashes). */
static CUresult module_loading_mode(CUmoduleLoadingMode *mode)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    if (!mode) return CUDA_ERROR_INVALID_VALUE;
    *mode = CU_MODULE_EAGER_LOADING;
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuModuleGetLoadingMode(CUmoduleLoadingMode *mode)
{
    LOCKED("cuModuleGetLoadingMode", module_loading_mode(mode));
}

static CUresult launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                       unsigned bz, unsigned shmem, CUstream hs, void **params, void **extra)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUfunc_st *fn = func_lookup(f);
    if (!fn) return CUDA_ERROR_INVALID_HANDLE;
    struct CUctx_st *c;
    vmgpu_stream *s;
    rc = cu_stream_resolve(hs, &c, &s);
    if (rc) return rc;
    if (fn->mod->ctx != c) return CUDA_ERROR_INVALID_HANDLE;
    if (!gx || !gy || !gz || !bx || !by || !bz) return CUDA_ERROR_INVALID_VALUE;
    if (bx > 1024 || by > 1024 || bz > 64 || (uint64_t)bx * by * bz > 1024) return CUDA_ERROR_INVALID_VALUE;
    if (gx > 2147483647u || gy > 65535 || gz > 65535) return CUDA_ERROR_INVALID_VALUE;
    if (fn->pk) {
        /* Static plus dynamic shared memory over 48 KiB, or over what cuFuncSetAttribute opted
         * the function in to: INVALID_VALUE (measured), checked by cu_launch_ptx. */
        unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
        return cu_launch_ptx(fn, c, s, grid, block, shmem, params, extra);
    }
    if (shmem > 49152) return CUDA_ERROR_INVALID_VALUE;
    if (extra || !params) return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < VMGPU_BUILTIN_NPARAMS; i++)
        if (!params[i]) return CUDA_ERROR_INVALID_VALUE;
    CUdeviceptr dst = *(CUdeviceptr *)params[0], a = *(CUdeviceptr *)params[1], b = *(CUdeviceptr *)params[2];
    int n = *(int *)params[3], scalar = *(int *)params[4];
    if (n < 0) return CUDA_ERROR_INVALID_VALUE;
    if ((uint64_t)gx * gy * gz * bx * by * bz < (uint64_t)n) return CUDA_ERROR_INVALID_VALUE;
    if (n == 0) return CUDA_SUCCESS;
    /* Operands the kernel does not read are not handed to the hardware. */
    unsigned k = fn->kernel;
    if (k == VMGPU_KERNEL_FILL) a = 0;
    if (k != VMGPU_KERNEL_ADD && k != VMGPU_KERNEL_AXPY) b = 0;
    if (dst >= CU_VA_HI || a >= CU_VA_HI || b >= CU_VA_HI) return CUDA_ERROR_INVALID_VALUE;
    if ((dst | a | b) & 3) return CUDA_ERROR_INVALID_VALUE;
    cu_trace("cuLaunchKernel %s<<<(%u,%u,%u),(%u,%u,%u)>>>(dst 0x%08llx, a 0x%08llx, b 0x%08llx, n %d, scalar %d)",
             fn->name, gx, gy, gz, bx, by, bz, (unsigned long long)dst, (unsigned long long)a,
             (unsigned long long)b, n, scalar);
    int crc = vmgpu_cmd_launch(s, k, (uint32_t)dst, (uint32_t)a, (uint32_t)b, (uint32_t)n, (uint32_t)scalar);
    if (!crc) crc = vmgpu_stream_submit(s, NULL);
    return cu_core_err(c, crc);
}
CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                void **kernelParams, void **extra)
{
    LOCKED("cuLaunchKernel", launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                                    sharedMemBytes, hStream, kernelParams, extra));
}
CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                     unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                     unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                     void **kernelParams, void **extra)
{
    LOCKED("cuLaunchKernel_ptsz", launch(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                                         sharedMemBytes, hStream, kernelParams, extra));
}

/* cuLaunchKernelEx: cuLaunchKernel's launch with its shape and stream in a struct, plus
 * attributes. Each attribute is checked before anything runs (docs/cuda.md, "cuLaunchKernelEx";
 * NVIDIA's answers measured by tests/cuda/probe/kernel_probe.c, section launchex). */
static CUresult launch_attr(const CUlaunchAttribute *a, const CUlaunchConfig *cfg)
{
    const CUlaunchAttributeValue *v = &a->value;
    switch (a->id) {
    case CU_LAUNCH_ATTRIBUTE_IGNORE: return CUDA_SUCCESS;
    /* NVIDIA (H100) runs a cooperative grid; vmgpu's unit runs one block at a time, so no grid
     * of several blocks is co-resident and the device says COOPERATIVE_LAUNCH 0: NOT_SUPPORTED
     * (a deviation, docs/cuda.md). 0 is an ordinary launch. */
    case CU_LAUNCH_ATTRIBUTE_COOPERATIVE: return v->cooperative ? CUDA_ERROR_NOT_SUPPORTED : CUDA_SUCCESS;
    /* Scheduling hints (measured: any priority, either serialization value, domain 0 succeed):
     * accepted, nothing to schedule differently. */
    case CU_LAUNCH_ATTRIBUTE_PRIORITY:
    case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN: return CUDA_SUCCESS;
    /* Measured: 0..100 accepted, 101 INVALID_VALUE. */
    case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        return v->sharedMemCarveout > 100 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
    /* Measured on NVIDIA: 0x0x0 (unset) and 1x1x1 run; a cluster that does not divide the grid,
     * or of more than 8 blocks, is INVALID_CLUSTER_SIZE. A valid bigger cluster runs there; vmgpu
     * has no clusters (compute capability 5.0): NOT_SUPPORTED (a deviation). */
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION: {
        unsigned x = v->clusterDim.x, y = v->clusterDim.y, z = v->clusterDim.z;
        if (!x && !y && !z) return CUDA_SUCCESS;
        if (!x || !y || !z || cfg->gridDimX % x || cfg->gridDimY % y || cfg->gridDimZ % z ||
            (uint64_t)x * y * z > 8)
            return CUDA_ERROR_INVALID_CLUSTER_SIZE;
        return x * y * z == 1 ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED;
    }
    /* Measured: SYNCHRONIZATION_POLICY (a stream attribute) and ids NVIDIA does not have (15,
     * 99) are INVALID_VALUE. The others need what vmgpu lacks (access policy windows, events
     * triggered from inside a kernel, graphs, clusters): NOT_SUPPORTED. */
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
    case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    case CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION:
    case CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT:
    case CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE:
    case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING:
    case CU_LAUNCH_ATTRIBUTE_PORTABLE_CLUSTER_SIZE_MODE:
    case CU_LAUNCH_ATTRIBUTE_SHARED_MEMORY_MODE: return CUDA_ERROR_NOT_SUPPORTED;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

/* Measured order: a NULL config or attrs NULL with numAttrs > 0 is INVALID_VALUE; then the
 * function, shape and parameters as cuLaunchKernel checks them. */
static CUresult launch_ex(const CUlaunchConfig *cfg, CUfunction f, void **params, void **extra)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    if (!cfg) return CUDA_ERROR_INVALID_VALUE;
    if (cfg->numAttrs && !cfg->attrs) return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < cfg->numAttrs; i++) {
        rc = launch_attr(&cfg->attrs[i], cfg);
        if (rc) return rc;
    }
    return launch(f, cfg->gridDimX, cfg->gridDimY, cfg->gridDimZ, cfg->blockDimX, cfg->blockDimY, cfg->blockDimZ,
                  cfg->sharedMemBytes, cfg->hStream, params, extra);
}
CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra)
{
    LOCKED("cuLaunchKernelEx", launch_ex(config, f, kernelParams, extra));
}
CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra)
{
    LOCKED("cuLaunchKernelEx_ptsz", launch_ex(config, f, kernelParams, extra));
}

/* ------------------------------------------------------------------ occupancy */
/* The occupancy calculator, for the device the attributes describe (cuDeviceGetAttribute): one
 * multiprocessor of 2048 threads in warps of 32, at most 32 resident blocks, 48 KiB of shared
 * memory per block and 64 KiB per multiprocessor. vmgpu's kernels use no registers a launch must
 * share, so threads, blocks and shared memory are the only limits. */
#define OCC_THREADS_PER_MP 2048
#define OCC_BLOCKS_PER_MP 32
#define OCC_WARP 32
#define OCC_SMEM_PER_BLOCK 49152u
#define OCC_SMEM_PER_MP 65536u

static int occupancy_blocks(int block_size, size_t smem)
{
    if (block_size > 1024 || smem > OCC_SMEM_PER_BLOCK) return 0;
    int warps = (block_size + OCC_WARP - 1) / OCC_WARP;
    int blocks = OCC_THREADS_PER_MP / (warps * OCC_WARP);
    if (blocks > OCC_BLOCKS_PER_MP) blocks = OCC_BLOCKS_PER_MP;
    if (smem && (size_t)blocks * smem > OCC_SMEM_PER_MP) blocks = (int)(OCC_SMEM_PER_MP / smem);
    return blocks;
}

static CUresult occupancy_check(CUfunction f)
{
    CUresult rc = cu_need_init();
    if (rc) return rc;
    struct CUctx_st *c;
    rc = cu_current(&c);
    if (rc) return rc;
    if (!f) return CUDA_ERROR_INVALID_HANDLE;
    if (!func_lookup(f)) return CUDA_ERROR_INVALID_HANDLE;
    return CUDA_SUCCESS;
}

static CUresult occupancy_max_blocks(int *num, CUfunction f, int block_size, size_t smem, unsigned flags)
{
    if (!num) return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = occupancy_check(f);
    if (rc) return rc;
    if (flags & ~(unsigned)CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE) return CUDA_ERROR_INVALID_VALUE;
    if (block_size <= 0) return CUDA_ERROR_INVALID_VALUE;
    *num = occupancy_blocks(block_size, smem);
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize,
                                                             size_t dynamicSMemSize)
{
    LOCKED("cuOccupancyMaxActiveBlocksPerMultiprocessor",
           occupancy_max_blocks(numBlocks, func, blockSize, dynamicSMemSize, 0));
}
CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, CUfunction func,
                                                                      int blockSize, size_t dynamicSMemSize,
                                                                      unsigned int flags)
{
    LOCKED("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
           occupancy_max_blocks(numBlocks, func, blockSize, dynamicSMemSize, flags));
}

/* The block size (a multiple of the warp, at most blockSizeLimit when nonzero) that keeps the most
 * threads resident; the larger block wins a tie. minGridSize fills every multiprocessor. */
static CUresult occupancy_potential(int *min_grid, int *block, CUfunction f, CUoccupancyB2DSize smem_of,
                                    size_t smem, int limit)
{
    if (!min_grid || !block) return CUDA_ERROR_INVALID_VALUE;
    CUresult rc = occupancy_check(f);
    if (rc) return rc;
    if (limit < 0) return CUDA_ERROR_INVALID_VALUE;
    int top = limit == 0 || limit > 1024 ? 1024 : limit;
    int best_block = 0, best_threads = -1, best_blocks = 0;
    for (int b = top; b > 0; b = b == top && b % OCC_WARP ? b / OCC_WARP * OCC_WARP : b - OCC_WARP) {
        size_t s = smem_of ? smem_of(b) : smem;
        int n = occupancy_blocks(b, s);
        if (n * b > best_threads) {
            best_threads = n * b;
            best_block = b;
            best_blocks = n;
        }
    }
    *block = best_block;
    *min_grid = best_blocks * 1;   /* one multiprocessor */
    return CUDA_SUCCESS;
}
CUresult CUDAAPI cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction func,
                                                  CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                  size_t dynamicSMemSize, int blockSizeLimit)
{
    /* The callback runs with the library lock held: it must not call the driver (NVIDIA's
     * documentation asks the same of it). */
    LOCKED("cuOccupancyMaxPotentialBlockSize",
           occupancy_potential(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize,
                               blockSizeLimit));
}
