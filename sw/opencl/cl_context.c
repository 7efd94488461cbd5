/*
 * Contexts, command queues, events (command events and user events), wait lists, markers,
 * barriers, flush/finish, and the queue engine that runs commands once their wait lists are
 * resolved.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_internal.h"

/* ------------------------------------------------------------------- contexts */

static void context_maybe_destroy(cl_context c)
{
    if (c->refs || c->attached || !c->live) return;
    c->live = 0;
    vmgpu_ctx_destroy(c->core);
    c->core = NULL;
    vcl_trace("context %p destroyed", (void *)c);
}

void vcl_context_release(cl_context c)
{
    if (c->attached) c->attached--;
    context_maybe_destroy(c);
}

static cl_int check_ctx_props(const cl_context_properties *props, cl_uint *np)
{
    *np = 0;
    if (!props) return CL_SUCCESS;
    int seen_platform = 0, seen_sync = 0;
    cl_uint i = 0;
    while (props[i]) {
        if (i + 2 >= 7) return CL_INVALID_PROPERTY;
        switch (props[i]) {
        case CL_CONTEXT_PLATFORM:
            if (seen_platform++) return CL_INVALID_PROPERTY;
            if ((cl_platform_id)props[i + 1] != &vcl_platform) return CL_INVALID_PLATFORM;
            break;
        case CL_CONTEXT_INTEROP_USER_SYNC:
            /* A cl_bool: any other value is an invalid property value (CL_INVALID_PROPERTY). */
            if (seen_sync++ || (props[i + 1] != CL_TRUE && props[i + 1] != CL_FALSE)) return CL_INVALID_PROPERTY;
            break;
        default:
            return CL_INVALID_PROPERTY;
        }
        i += 2;
    }
    *np = i + 1;
    return CL_SUCCESS;
}

static cl_context context_new(const cl_context_properties *props, cl_uint np,
                              void(CL_CALLBACK *fn)(const char *, const void *, size_t, void *),
                              void *user, cl_int *err)
{
    cl_int rc = vcl_dev_ready();
    if (rc) {
        *err = CL_DEVICE_NOT_AVAILABLE;
        return NULL;
    }
    cl_context c = calloc(1, sizeof *c);
    if (!c) {
        *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    int crc = vmgpu_ctx_create(vcl_dev, -1, &c->core);
    if (crc) {
        free(c);
        *err = CL_OUT_OF_RESOURCES;
        return NULL;
    }
    c->dispatch = &vcl_dispatch;
    c->magic = VCL_CONTEXT;
    c->live = 1;
    c->refs = 1;
    if (np) memcpy(c->props, props, np * sizeof *props);
    c->nprops = np;
    c->notify.fn = fn;
    c->notify.user = user;
    vcl_register(c, VCL_CONTEXT);
    vcl_trace("context %p: asid %u", (void *)c, vmgpu_ctx_asid(c->core));
    *err = CL_SUCCESS;
    return c;
}

cl_context CL_API_CALL vcl_CreateContext(const cl_context_properties *props, cl_uint ndev,
                                         const cl_device_id *devs,
                                         void(CL_CALLBACK *fn)(const char *, const void *, size_t, void *),
                                         void *user, cl_int *errcode_ret)
{
    cl_int err;
    cl_uint np;
    cl_context c = NULL;
    vcl_enter();
    if ((err = check_ctx_props(props, &np))) goto out;
    if (!devs || ndev == 0 || (!fn && user)) { err = CL_INVALID_VALUE; goto out; }
    for (cl_uint i = 0; i < ndev; i++)
        if (!vcl_valid_device(devs[i])) { err = CL_INVALID_DEVICE; goto out; }
    c = context_new(props, np, fn, user, &err);
out:
    vcl_leave();
    if (errcode_ret) *errcode_ret = err;
    return c;
}

cl_context CL_API_CALL vcl_CreateContextFromType(const cl_context_properties *props,
                                                 cl_device_type type,
                                                 void(CL_CALLBACK *fn)(const char *, const void *, size_t, void *),
                                                 void *user, cl_int *errcode_ret)
{
    cl_int err;
    cl_uint np;
    cl_context c = NULL;
    const cl_device_type known = CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                                 CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_DEFAULT |
                                 CL_DEVICE_TYPE_CUSTOM;
    vcl_enter();
    if ((err = check_ctx_props(props, &np))) goto out;
    if (!fn && user) { err = CL_INVALID_VALUE; goto out; }
    if (type != CL_DEVICE_TYPE_ALL && (type == 0 || (type & ~known))) { err = CL_INVALID_DEVICE_TYPE; goto out; }
    if (!(type & (CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_DEFAULT))) { err = CL_DEVICE_NOT_FOUND; goto out; }
    c = context_new(props, np, fn, user, &err);
out:
    vcl_leave();
    if (errcode_ret) *errcode_ret = err;
    return c;
}

cl_int CL_API_CALL vcl_RetainContext(cl_context c)
{
    vcl_enter();
    cl_int rc = vcl_valid(c, VCL_CONTEXT) ? CL_SUCCESS : CL_INVALID_CONTEXT;
    if (!rc) c->refs++;
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_ReleaseContext(cl_context c)
{
    vcl_enter();
    cl_int rc = vcl_valid(c, VCL_CONTEXT) && c->refs ? CL_SUCCESS : CL_INVALID_CONTEXT;
    if (!rc) {
        c->refs--;
        context_maybe_destroy(c);
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_GetContextInfo(cl_context c, cl_context_info p, size_t size, void *value,
                                      size_t *ret)
{
    vcl_enter();
    cl_int rc;
    cl_device_id d = &vcl_device;
    cl_uint u;
    if (!vcl_valid(c, VCL_CONTEXT)) rc = CL_INVALID_CONTEXT;
    else switch (p) {
    case CL_CONTEXT_REFERENCE_COUNT: u = c->refs; rc = vcl_info_out(&u, sizeof u, size, value, ret); break;
    case CL_CONTEXT_NUM_DEVICES: u = 1; rc = vcl_info_out(&u, sizeof u, size, value, ret); break;
    case CL_CONTEXT_DEVICES: rc = vcl_info_out(&d, sizeof d, size, value, ret); break;
    case CL_CONTEXT_PROPERTIES:
        rc = vcl_info_out(c->props, c->nprops * sizeof(cl_context_properties), size, value, ret);
        break;
    default: rc = CL_INVALID_VALUE;
    }
    vcl_leave();
    return rc;
}

/* ------------------------------------------------------------------- queues */

static unsigned g_next_ring;

static void queue_maybe_destroy(cl_command_queue q)
{
    if (q->refs || q->attached || !q->live || q->head) return;
    q->live = 0;
    vmgpu_stream_destroy(q->s);
    q->s = NULL;
    vcl_context_release(q->ctx);
}

void vcl_queue_release(cl_command_queue q)
{
    if (q->attached) q->attached--;
    queue_maybe_destroy(q);
}

cl_command_queue CL_API_CALL vcl_CreateCommandQueue(cl_context c, cl_device_id d,
                                                    cl_command_queue_properties props,
                                                    cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_command_queue q = NULL;
    vcl_enter();
    if (!vcl_valid(c, VCL_CONTEXT)) { err = CL_INVALID_CONTEXT; goto out; }
    if (!vcl_valid_device(d)) { err = CL_INVALID_DEVICE; goto out; }
    if (props & ~(cl_command_queue_properties)(CL_QUEUE_PROFILING_ENABLE |
                                               CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
        err = CL_INVALID_VALUE;
        goto out;
    }
    if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) { err = CL_INVALID_QUEUE_PROPERTIES; goto out; }
    q = calloc(1, sizeof *q);
    if (!q) { err = CL_OUT_OF_HOST_MEMORY; goto out; }
    if (vmgpu_stream_create(c->core, g_next_ring++ % vcl_info.n_rings, &q->s)) {
        free(q);
        q = NULL;
        err = CL_OUT_OF_RESOURCES;
        goto out;
    }
    q->dispatch = &vcl_dispatch;
    q->magic = VCL_QUEUE;
    q->live = 1;
    q->refs = 1;
    q->ctx = c;
    q->props = props;
    c->attached++;
    vcl_register(q, VCL_QUEUE);
out:
    vcl_leave();
    if (errcode_ret) *errcode_ret = err;
    return q;
}

cl_int CL_API_CALL vcl_RetainCommandQueue(cl_command_queue q)
{
    vcl_enter();
    cl_int rc = vcl_valid(q, VCL_QUEUE) ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
    if (!rc) q->refs++;
    vcl_leave();
    return rc;
}

static void wait_queue_empty(cl_command_queue q);

cl_int CL_API_CALL vcl_ReleaseCommandQueue(cl_command_queue q)
{
    vcl_enter();
    cl_int rc = vcl_valid(q, VCL_QUEUE) && q->refs ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
    if (!rc) {
        /* The spec makes release an implicit flush; commands still blocked by user events
         * stay queued and the queue lives until they ran. */
        vcl_progress();
        q->refs--;
        queue_maybe_destroy(q);
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_GetCommandQueueInfo(cl_command_queue q, cl_command_queue_info p, size_t size,
                                           void *value, size_t *ret)
{
    vcl_enter();
    cl_int rc;
    cl_uint u;
    cl_device_id d = &vcl_device;
    if (!vcl_valid(q, VCL_QUEUE)) rc = CL_INVALID_COMMAND_QUEUE;
    else switch (p) {
    case CL_QUEUE_CONTEXT: rc = vcl_info_out(&q->ctx, sizeof q->ctx, size, value, ret); break;
    case CL_QUEUE_DEVICE: rc = vcl_info_out(&d, sizeof d, size, value, ret); break;
    case CL_QUEUE_REFERENCE_COUNT: u = q->refs; rc = vcl_info_out(&u, sizeof u, size, value, ret); break;
    case CL_QUEUE_PROPERTIES: rc = vcl_info_out(&q->props, sizeof q->props, size, value, ret); break;
    default: rc = CL_INVALID_VALUE;
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_SetCommandQueueProperty(cl_command_queue q, cl_command_queue_properties p,
                                               cl_bool enable, cl_command_queue_properties *old)
{
    (void)p; (void)enable; (void)old;
    vcl_enter();
    cl_int rc = vcl_valid(q, VCL_QUEUE) ? CL_INVALID_OPERATION : CL_INVALID_COMMAND_QUEUE;
    vcl_leave();
    return rc;
}

/* ------------------------------------------------------------------- events */

cl_event vcl_event_new(cl_context ctx, cl_command_queue q, cl_command_type type)
{
    cl_event e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->dispatch = &vcl_dispatch;
    e->magic = VCL_EVENT;
    e->live = 1;
    e->refs = 1;
    e->ctx = ctx;
    e->queue = q;
    e->type = type;
    e->status = q ? CL_QUEUED : CL_SUBMITTED;
    ctx->attached++;
    if (q) q->attached++;
    vcl_register(e, VCL_EVENT);
    return e;
}

void vcl_event_release(cl_event e)
{
    if (!e->refs) return;
    if (--e->refs) return;
    e->live = 0;
    for (vcl_evcb *cb = e->cbs, *n; cb; cb = n) {
        n = cb->next;
        free(cb);
    }
    e->cbs = NULL;
    if (e->queue) vcl_queue_release(e->queue);
    vcl_context_release(e->ctx);
}

/* Status changes fire the callbacks registered for that status (CL_COMPLETE callbacks also on
 * an error status, as the spec says for abnormally terminated commands). */
void vcl_event_set_status(cl_event e, cl_int status)
{
    e->status = status;
    for (vcl_evcb **pp = &e->cbs; *pp;) {
        vcl_evcb *cb = *pp;
        if (cb->when == status || (status < 0 && cb->when == CL_COMPLETE) ||
            (status >= 0 && status < cb->when)) {
            vcl_defer_event_cb(cb, e, status);
            *pp = cb->next;
            free(cb);
        } else {
            pp = &cb->next;
        }
    }
    pthread_cond_broadcast(&vcl_cond);
}

cl_int vcl_check_wait_list(cl_context ctx, cl_uint n, const cl_event *list)
{
    if ((n == 0) != (list == NULL)) return CL_INVALID_EVENT_WAIT_LIST;
    for (cl_uint i = 0; i < n; i++)
        if (!vcl_valid(list[i], VCL_EVENT)) return CL_INVALID_EVENT_WAIT_LIST;
    for (cl_uint i = 0; i < n; i++)
        if (list[i]->ctx != ctx) return CL_INVALID_CONTEXT;
    return CL_SUCCESS;
}

cl_event CL_API_CALL vcl_CreateUserEvent(cl_context c, cl_int *errcode_ret)
{
    vcl_enter();
    cl_event e = NULL;
    cl_int err = CL_SUCCESS;
    if (!vcl_valid(c, VCL_CONTEXT)) err = CL_INVALID_CONTEXT;
    else if (!(e = vcl_event_new(c, NULL, CL_COMMAND_USER))) err = CL_OUT_OF_HOST_MEMORY;
    vcl_leave();
    if (errcode_ret) *errcode_ret = err;
    return e;
}

cl_int CL_API_CALL vcl_SetUserEventStatus(cl_event e, cl_int status)
{
    vcl_enter();
    cl_int rc = CL_SUCCESS;
    if (!vcl_valid(e, VCL_EVENT) || e->queue || e->type != CL_COMMAND_USER) rc = CL_INVALID_EVENT;
    else if (status > 0 && status != CL_COMPLETE) rc = CL_INVALID_VALUE;
    else if (e->status != CL_SUBMITTED) rc = CL_INVALID_OPERATION;  /* set once only */
    else {
        vcl_event_set_status(e, status);
        vcl_progress();
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_RetainEvent(cl_event e)
{
    vcl_enter();
    cl_int rc = vcl_valid(e, VCL_EVENT) ? CL_SUCCESS : CL_INVALID_EVENT;
    if (!rc) e->refs++;
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_ReleaseEvent(cl_event e)
{
    vcl_enter();
    cl_int rc = vcl_valid(e, VCL_EVENT) ? CL_SUCCESS : CL_INVALID_EVENT;
    if (!rc) vcl_event_release(e);
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_GetEventInfo(cl_event e, cl_event_info p, size_t size, void *value, size_t *ret)
{
    vcl_enter();
    cl_int rc;
    cl_uint u;
    if (!vcl_valid(e, VCL_EVENT)) rc = CL_INVALID_EVENT;
    else switch (p) {
    case CL_EVENT_COMMAND_QUEUE: rc = vcl_info_out(&e->queue, sizeof e->queue, size, value, ret); break;
    case CL_EVENT_CONTEXT: rc = vcl_info_out(&e->ctx, sizeof e->ctx, size, value, ret); break;
    case CL_EVENT_COMMAND_TYPE: rc = vcl_info_out(&e->type, sizeof e->type, size, value, ret); break;
    case CL_EVENT_COMMAND_EXECUTION_STATUS:
        vcl_progress();
        rc = vcl_info_out(&e->status, sizeof e->status, size, value, ret);
        break;
    case CL_EVENT_REFERENCE_COUNT: u = e->refs; rc = vcl_info_out(&u, sizeof u, size, value, ret); break;
    default: rc = CL_INVALID_VALUE;
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_GetEventProfilingInfo(cl_event e, cl_profiling_info p, size_t size,
                                             void *value, size_t *ret)
{
    vcl_enter();
    cl_int rc;
    if (!vcl_valid(e, VCL_EVENT)) rc = CL_INVALID_EVENT;
    else if (!e->queue || !(e->queue->props & CL_QUEUE_PROFILING_ENABLE) || e->status != CL_COMPLETE)
        rc = CL_PROFILING_INFO_NOT_AVAILABLE;
    else if (p < CL_PROFILING_COMMAND_QUEUED || p > CL_PROFILING_COMMAND_END) rc = CL_INVALID_VALUE;
    else rc = vcl_info_out(&e->t[p - CL_PROFILING_COMMAND_QUEUED], sizeof(cl_ulong), size, value, ret);
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_SetEventCallback(cl_event e, cl_int when,
                                        void(CL_CALLBACK *fn)(cl_event, cl_int, void *), void *user)
{
    vcl_enter();
    cl_int rc = CL_SUCCESS;
    if (!vcl_valid(e, VCL_EVENT)) rc = CL_INVALID_EVENT;
    else if (!fn || (when != CL_SUBMITTED && when != CL_RUNNING && when != CL_COMPLETE)) rc = CL_INVALID_VALUE;
    else {
        vcl_evcb *cb = calloc(1, sizeof *cb);
        if (!cb) rc = CL_OUT_OF_HOST_MEMORY;
        else {
            cb->fn = fn;
            cb->user = user;
            cb->when = when;
            /* Already past that status: call it now (after the lock is dropped). */
            if (e->status <= when) {
                vcl_defer_event_cb(cb, e, e->status);
                free(cb);
            } else {
                cb->next = e->cbs;
                e->cbs = cb;
            }
        }
    }
    vcl_leave();
    return rc;
}

/* Sleeps (lock released) until every event of the list has completed or failed. */
static void wait_events(cl_uint n, const cl_event *list)
{
    for (;;) {
        vcl_progress();
        int done = 1;
        for (cl_uint i = 0; i < n; i++)
            if (list[i]->status > CL_COMPLETE) done = 0;
        if (done) return;
        pthread_cond_wait(&vcl_cond, &vcl_lock);
    }
}

cl_int CL_API_CALL vcl_WaitForEvents(cl_uint n, const cl_event *list)
{
    vcl_enter();
    cl_int rc = CL_SUCCESS;
    if (n == 0 || !list) rc = CL_INVALID_VALUE;
    for (cl_uint i = 0; !rc && i < n; i++)
        if (!vcl_valid(list[i], VCL_EVENT)) rc = CL_INVALID_EVENT;
    for (cl_uint i = 1; !rc && i < n; i++)
        if (list[i]->ctx != list[0]->ctx) rc = CL_INVALID_CONTEXT;
    if (!rc) {
        for (cl_uint i = 0; i < n; i++) list[i]->refs++;
        wait_events(n, list);
        for (cl_uint i = 0; i < n; i++) {
            if (list[i]->status < 0) rc = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
            vcl_event_release(list[i]);
        }
    }
    vcl_leave();
    return rc;
}

/* ----------------------------------------------------------------- the engine */

cl_int vcl_core_err(cl_command_queue q, int rc)
{
    if (rc == VMGPU_OK) return CL_SUCCESS;
    char msg[200];
    snprintf(msg, sizeof msg, "vmgpu: %s: %s", vmgpu_status_name(rc), vmgpu_dev_last_error(vcl_dev));
    vcl_trace("%s", msg);
    if (q) {
        vcl_defer_ctx_notify(q->ctx, msg);
        /* A fault stops only the faulting command; the context goes on with the next one. */
        if (vmgpu_ctx_status(q->ctx->core, NULL, 0)) vmgpu_ctx_clear_fault(q->ctx->core);
    }
    if (rc == VMGPU_ERR_NOMEM || rc == VMGPU_ERR_NOVA) return CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return CL_OUT_OF_RESOURCES;
}

static cl_int run_cmd(cl_command_queue q, vcl_cmd *c)
{
    switch (c->op) {
    case OP_NOP: return CL_SUCCESS;
    case OP_KERNEL: return vcl_run_kernel_cmd(q, c);
    default: return vcl_run_mem_cmd(q, c);
    }
}

/* Runs the head of q if its wait list is resolved; 1 when something ran. */
static int queue_step(cl_command_queue q)
{
    vcl_cmd *c = q->head;
    if (!c) return 0;
    int failed = 0;
    for (cl_uint i = 0; i < c->nwait; i++) {
        if (c->wait[i]->status > CL_COMPLETE) return 0;
        if (c->wait[i]->status < 0) failed = 1;
    }
    q->head = c->next;
    if (!q->head) q->tail = NULL;
    cl_event e = c->ev;
    e->t[1] = vcl_q_now(q);
    if (failed) {
        /* A command whose wait list holds a failed event never runs. */
        e->t[2] = e->t[3] = e->t[1];
        vcl_event_set_status(e, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    } else {
        vcl_event_set_status(e, CL_SUBMITTED);
        vcl_event_set_status(e, CL_RUNNING);
        cl_int rc = run_cmd(q, c);
        if (!e->t[2]) e->t[2] = e->t[1];
        if (!e->t[3]) e->t[3] = vcl_q_now(q);
        vcl_event_set_status(e, rc ? rc : CL_COMPLETE);
    }
    vcl_cmd_free(c);
    queue_maybe_destroy(q);
    return 1;
}

/* Runs every command that can run, in every queue, until nothing changes. */
void vcl_progress(void)
{
    static int busy;
    if (busy) return;
    busy = 1;
    extern cl_command_queue *vcl_queues_all(size_t *n);
    int changed;
    do {
        changed = 0;
        size_t n;
        cl_command_queue *qs = vcl_queues_all(&n);
        for (size_t i = 0; i < n; i++)
            while (qs[i]->head && queue_step(qs[i])) changed = 1;
    } while (changed);
    busy = 0;
}

/* Queues with pending commands (a short list: a queue is on it while it has work). */
static cl_command_queue *g_busy;
static size_t g_busy_n, g_busy_cap;

VCL_HIDDEN cl_command_queue *vcl_queues_all(size_t *n)
{
    size_t k = 0;
    for (size_t i = 0; i < g_busy_n; i++)
        if (g_busy[i]->head) g_busy[k++] = g_busy[i];
    g_busy_n = k;
    *n = k;
    return g_busy;
}

static int mark_busy(cl_command_queue q)
{
    for (size_t i = 0; i < g_busy_n; i++)
        if (g_busy[i] == q) return 0;
    if (g_busy_n == g_busy_cap) {
        size_t nc = g_busy_cap ? 2 * g_busy_cap : 16;
        cl_command_queue *n = realloc(g_busy, nc * sizeof *n);
        if (!n) return -1;
        g_busy = n;
        g_busy_cap = nc;
    }
    g_busy[g_busy_n++] = q;
    return 0;
}

cl_int vcl_submit(cl_command_queue q, vcl_cmd *c, cl_command_type type, cl_uint nwait,
                  const cl_event *wait, cl_event *event, int blocking)
{
    c->ev = vcl_event_new(q->ctx, q, type);
    if (nwait) c->wait = calloc(nwait, sizeof *c->wait);
    if (!c->ev || (nwait && !c->wait) || mark_busy(q)) {
        if (c->ev) vcl_event_release(c->ev);
        c->ev = NULL;
        vcl_cmd_free(c);
        return CL_OUT_OF_HOST_MEMORY;
    }
    for (cl_uint i = 0; i < nwait; i++) {
        c->wait[i] = wait[i];
        wait[i]->refs++;
    }
    c->nwait = nwait;
    c->ev->t[0] = vcl_q_now(q);
    cl_event e = c->ev;
    e->refs++;  /* ours until this call returns */
    if (q->tail) q->tail->next = c; else q->head = c;
    q->tail = c;
    if (event) {
        e->refs++;
        *event = e;
    }
    vcl_progress();
    cl_int rc = CL_SUCCESS;
    if (blocking) {
        wait_events(1, &e);
        if (e->status < 0) rc = e->status == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
                                ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : e->status;
    }
    vcl_event_release(e);
    return rc;
}

cl_int CL_API_CALL vcl_Flush(cl_command_queue q)
{
    vcl_enter();
    cl_int rc = vcl_valid(q, VCL_QUEUE) ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
    if (!rc) vcl_progress();
    vcl_leave();
    return rc;
}

static void wait_queue_empty(cl_command_queue q)
{
    for (;;) {
        vcl_progress();
        if (!q->head) return;
        pthread_cond_wait(&vcl_cond, &vcl_lock);
    }
}

cl_int CL_API_CALL vcl_Finish(cl_command_queue q)
{
    vcl_enter();
    cl_int rc = vcl_valid(q, VCL_QUEUE) ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
    if (!rc) {
        q->refs++;
        wait_queue_empty(q);
        q->refs--;
        queue_maybe_destroy(q);
    }
    vcl_leave();
    return rc;
}

/* Markers and barriers: on an in-order queue both wait for every earlier command (they run
 * after them) and, with a wait list, for those events too. */
static cl_int marker(cl_command_queue q, cl_uint n, const cl_event *w, cl_event *e,
                     cl_command_type type)
{
    vcl_enter();
    cl_int rc = CL_SUCCESS;
    if (!vcl_valid(q, VCL_QUEUE)) rc = CL_INVALID_COMMAND_QUEUE;
    else if (!(rc = vcl_check_wait_list(q->ctx, n, w))) {
        vcl_cmd *c = calloc(1, sizeof *c);
        if (!c) rc = CL_OUT_OF_HOST_MEMORY;
        else {
            c->op = OP_NOP;
            rc = vcl_submit(q, c, type, n, w, e, 0);
        }
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_EnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n, const cl_event *w,
                                                 cl_event *e)
{
    return marker(q, n, w, e, CL_COMMAND_MARKER);
}

cl_int CL_API_CALL vcl_EnqueueBarrierWithWaitList(cl_command_queue q, cl_uint n, const cl_event *w,
                                                  cl_event *e)
{
    return marker(q, n, w, e, CL_COMMAND_BARRIER);
}

cl_int CL_API_CALL vcl_EnqueueMarker(cl_command_queue q, cl_event *e)
{
    if (!e) {
        vcl_enter();
        cl_int rc = vcl_valid(q, VCL_QUEUE) ? CL_INVALID_VALUE : CL_INVALID_COMMAND_QUEUE;
        vcl_leave();
        return rc;
    }
    return marker(q, 0, NULL, e, CL_COMMAND_MARKER);
}

cl_int CL_API_CALL vcl_EnqueueBarrier(cl_command_queue q)
{
    return marker(q, 0, NULL, NULL, CL_COMMAND_BARRIER);
}

cl_int CL_API_CALL vcl_EnqueueWaitForEvents(cl_command_queue q, cl_uint n, const cl_event *w)
{
    if (n == 0 || !w) {
        vcl_enter();
        cl_int rc = vcl_valid(q, VCL_QUEUE) ? CL_INVALID_VALUE : CL_INVALID_COMMAND_QUEUE;
        vcl_leave();
        return rc;
    }
    cl_int rc = marker(q, n, w, NULL, CL_COMMAND_BARRIER);
    return rc == CL_INVALID_EVENT_WAIT_LIST ? CL_INVALID_EVENT : rc;
}
