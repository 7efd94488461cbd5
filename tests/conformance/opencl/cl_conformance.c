/*
 * OpenCL 1.2 conformance probe for map/unmap and the buffer rules (the seed page
 * clEnqueueMapBuffer and the 1.2 specification), run through the ICD loader against any
 * platform: `vmgpu-cl-conformance <platform name substring> [case]`.
 *
 * Every case runs in a child process of its own (fork, then the whole OpenCL set-up in the
 * child), so a crash or a hang of one implementation in one case is recorded as CRASH / TIMEOUT
 * and the others still run. Output: one line per case,
 *     case <name> <answer>
 * where the answer is a CL error name (CL_SUCCESS, CL_INVALID_VALUE, ...), a number, or a
 * word the case defines (SAME_POINTER, DIFFERENT_POINTER, ...). check_conformance.py compares
 * it with expected_spec.txt, the specification's answers.
 */
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#include <CL/cl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static cl_platform_id P;
static cl_device_id D;
static cl_context C, C2;
static cl_command_queue Q, Q2;
static char out[128];

static const char *err_name(cl_int e)
{
    static const struct { cl_int v; const char *n; } t[] = {
#define E(x) {x, #x}
        E(CL_SUCCESS), E(CL_DEVICE_NOT_FOUND), E(CL_DEVICE_NOT_AVAILABLE), E(CL_COMPILER_NOT_AVAILABLE),
        E(CL_MEM_OBJECT_ALLOCATION_FAILURE), E(CL_OUT_OF_RESOURCES), E(CL_OUT_OF_HOST_MEMORY),
        E(CL_PROFILING_INFO_NOT_AVAILABLE), E(CL_MEM_COPY_OVERLAP), E(CL_IMAGE_FORMAT_MISMATCH),
        E(CL_IMAGE_FORMAT_NOT_SUPPORTED), E(CL_BUILD_PROGRAM_FAILURE), E(CL_MAP_FAILURE),
        E(CL_MISALIGNED_SUB_BUFFER_OFFSET), E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
        E(CL_INVALID_VALUE), E(CL_INVALID_DEVICE_TYPE), E(CL_INVALID_PLATFORM), E(CL_INVALID_DEVICE),
        E(CL_INVALID_CONTEXT), E(CL_INVALID_QUEUE_PROPERTIES), E(CL_INVALID_COMMAND_QUEUE),
        E(CL_INVALID_HOST_PTR), E(CL_INVALID_MEM_OBJECT), E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR),
        E(CL_INVALID_IMAGE_SIZE), E(CL_INVALID_SAMPLER), E(CL_INVALID_OPERATION),
        E(CL_INVALID_BUFFER_SIZE), E(CL_INVALID_EVENT_WAIT_LIST), E(CL_INVALID_EVENT),
        E(CL_INVALID_IMAGE_DESCRIPTOR), E(CL_INVALID_PROPERTY), E(CL_COMPLETE), E(CL_QUEUED),
        E(CL_SUBMITTED), E(CL_RUNNING),
#undef E
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i].v == e) return t[i].n;
    if (e == -9999) return "NULL_WITH_CL_SUCCESS";  /* map_err: no pointer, yet no error */
    static char b[32];
    snprintf(b, sizeof b, "%d", (int)e);
    return b;
}

#define R(x) return err_name(x)
static const char *num(long v) { snprintf(out, sizeof out, "%ld", v); return out; }

static void *page(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, n)) abort();
    memset(p, 0, n);
    return p;
}

static cl_mem mk(cl_mem_flags f, size_t n, void *h)
{
    cl_int e;
    cl_mem m = clCreateBuffer(C, f, n, h, &e);
    if (e) { printf("setup clCreateBuffer %s\n", err_name(e)); exit(3); }
    return m;
}

static cl_int create_err(cl_context c, cl_mem_flags f, size_t n, void *h)
{
    cl_int e = 12345;
    cl_mem m = clCreateBuffer(c, f, n, h, &e);
    if (m) clReleaseMemObject(m);
    return e;
}

static cl_int map_err(cl_command_queue q, cl_mem m, cl_map_flags f, size_t off, size_t n,
                      cl_uint nw, const cl_event *w)
{
    cl_int e = 12345;
    void *p = clEnqueueMapBuffer(q, m, CL_TRUE, f, off, n, nw, w, NULL, &e);
    if (p && !e) clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL), clFinish(q);
    if (!e && !p) return -9999;
    return e;
}

static cl_int sub_err(cl_mem b, cl_mem_flags f, size_t o, size_t n)
{
    cl_buffer_region r = {o, n};
    cl_int e = 12345;
    cl_mem s = clCreateSubBuffer(b, f, CL_BUFFER_CREATE_TYPE_REGION, &r, &e);
    if (s) clReleaseMemObject(s);
    return e;
}

/* ------------------------------------------------------------------ cases */

static const char *c_create_size0(void) { R(create_err(C, 0, 0, NULL)); }
static const char *c_create_rw_and_ro(void) { R(create_err(C, CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, 64, NULL)); }
static const char *c_create_ro_and_wo(void) { R(create_err(C, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, NULL)); }
static const char *c_create_unknown_flag(void) { R(create_err(C, (cl_mem_flags)1 << 40, 64, NULL)); }
static const char *c_create_use_and_alloc(void)
{
    char h[64];
    R(create_err(C, CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, 64, h));
}
static const char *c_create_use_and_copy(void)
{
    char h[64];
    R(create_err(C, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, 64, h));
}
static const char *c_create_alloc_and_copy(void)
{
    char h[64] = {0};
    R(create_err(C, CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR, 64, h));
}
static const char *c_create_use_null_ptr(void) { R(create_err(C, CL_MEM_USE_HOST_PTR, 64, NULL)); }
static const char *c_create_copy_null_ptr(void) { R(create_err(C, CL_MEM_COPY_HOST_PTR, 64, NULL)); }
static const char *c_create_ptr_without_flag(void)
{
    char h[64];
    R(create_err(C, CL_MEM_READ_WRITE, 64, h));
}
static const char *c_create_host_ro_and_wo(void)
{
    R(create_err(C, CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY, 64, NULL));
}
static const char *c_create_host_ro_and_no_access(void)
{
    R(create_err(C, CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS, 64, NULL));
}
static const char *c_create_over_max_alloc(void)
{
    cl_ulong max = 0;
    clGetDeviceInfo(D, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max, &max, NULL);
    R(create_err(C, 0, (size_t)max + 1, NULL));
}
static const char *c_create_null_context(void) { R(create_err(NULL, 0, 64, NULL)); }

static const char *c_sub_misaligned(void) { R(sub_err(mk(0, 8192, NULL), 0, 1, 64)); }
static const char *c_sub_out_of_bounds(void) { R(sub_err(mk(0, 8192, NULL), 0, 4096, 8192)); }
static const char *c_sub_size0(void) { R(sub_err(mk(0, 8192, NULL), 0, 0, 0)); }
static const char *c_sub_of_sub(void)
{
    cl_buffer_region r = {0, 4096};
    cl_int e;
    cl_mem s = clCreateSubBuffer(mk(0, 8192, NULL), 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &e);
    if (e) R(e);
    R(sub_err(s, 0, 0, 64));
}
static const char *c_sub_bad_type(void)
{
    cl_buffer_region r = {0, 64};
    cl_int e = 12345;
    clCreateSubBuffer(mk(0, 8192, NULL), 0, 0x7777, &r, &e);
    R(e);
}
static const char *c_sub_widen_access(void) { R(sub_err(mk(CL_MEM_WRITE_ONLY, 8192, NULL), CL_MEM_READ_WRITE, 0, 64)); }
static const char *c_sub_widen_host_access(void)
{
    R(sub_err(mk(CL_MEM_HOST_NO_ACCESS, 8192, NULL), CL_MEM_HOST_READ_ONLY, 0, 64));
}
static const char *c_sub_host_ptr_flag(void) { R(sub_err(mk(0, 8192, NULL), CL_MEM_ALLOC_HOST_PTR, 0, 64)); }
static const char *c_sub_offset_info(void)
{
    cl_uint align = 0;
    clGetDeviceInfo(D, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align, &align, NULL);
    cl_buffer_region r = {align / 8, 64};
    cl_int e;
    cl_mem b = mk(0, 8192, NULL);
    cl_mem s = clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &e);
    if (e) R(e);
    size_t off = 1;
    cl_mem parent = NULL;
    clGetMemObjectInfo(s, CL_MEM_OFFSET, sizeof off, &off, NULL);
    clGetMemObjectInfo(s, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL);
    return off == align / 8 && parent == b ? "ORIGIN_AND_PARENT" : "WRONG_INFO";
}

static const char *c_map_ok(void) { R(map_err(Q, mk(0, 4096, NULL), CL_MAP_READ, 0, 4096, 0, NULL)); }
static const char *c_map_out_of_bounds(void) { R(map_err(Q, mk(0, 4096, NULL), CL_MAP_READ, 4000, 100, 0, NULL)); }
static const char *c_map_offset_past_end(void) { R(map_err(Q, mk(0, 4096, NULL), CL_MAP_READ, 8192, 1, 0, NULL)); }
static const char *c_map_size0(void) { R(map_err(Q, mk(0, 4096, NULL), CL_MAP_READ, 0, 0, 0, NULL)); }
static const char *c_map_bad_flags(void) { R(map_err(Q, mk(0, 4096, NULL), 1u << 7, 0, 64, 0, NULL)); }
static const char *c_map_invalidate_and_read(void)
{
    R(map_err(Q, mk(0, 4096, NULL), CL_MAP_WRITE_INVALIDATE_REGION | CL_MAP_READ, 0, 64, 0, NULL));
}
static const char *c_map_flags_zero(void) { R(map_err(Q, mk(0, 4096, NULL), 0, 0, 64, 0, NULL)); }
static const char *c_map_null_queue(void) { R(map_err(NULL, mk(0, 4096, NULL), CL_MAP_READ, 0, 64, 0, NULL)); }
static const char *c_map_null_buffer(void) { R(map_err(Q, NULL, CL_MAP_READ, 0, 64, 0, NULL)); }
static const char *c_map_wait_null_n1(void) { R(map_err(Q, mk(0, 4096, NULL), CL_MAP_READ, 0, 64, 1, NULL)); }
static const char *c_map_wait_list_n0(void)
{
    cl_int e;
    cl_event u = clCreateUserEvent(C, &e);
    clSetUserEventStatus(u, CL_COMPLETE);
    R(map_err(Q, mk(0, 4096, NULL), CL_MAP_READ, 0, 64, 0, &u));
}
static const char *c_map_wait_bad_event(void)
{
    cl_event bad = (cl_event)(void *)Q;  /* a queue is not an event (both carry the ICD dispatch) */
    R(map_err(Q, mk(0, 4096, NULL), CL_MAP_READ, 0, 64, 1, &bad));
}
static const char *c_map_other_context_buffer(void)
{
    cl_int e;
    cl_mem m = clCreateBuffer(C2, 0, 4096, NULL, &e);
    R(map_err(Q, m, CL_MAP_READ, 0, 64, 0, NULL));
}
static const char *c_map_other_context_event(void)
{
    cl_int e;
    cl_event u = clCreateUserEvent(C2, &e);
    clSetUserEventStatus(u, CL_COMPLETE);
    R(map_err(Q, mk(0, 4096, NULL), CL_MAP_READ, 0, 64, 1, &u));
}
static const char *c_map_host_no_access(void) { R(map_err(Q, mk(CL_MEM_HOST_NO_ACCESS, 4096, NULL), CL_MAP_READ, 0, 64, 0, NULL)); }
static const char *c_map_read_host_write_only(void) { R(map_err(Q, mk(CL_MEM_HOST_WRITE_ONLY, 4096, NULL), CL_MAP_READ, 0, 64, 0, NULL)); }
static const char *c_map_write_host_read_only(void) { R(map_err(Q, mk(CL_MEM_HOST_READ_ONLY, 4096, NULL), CL_MAP_WRITE, 0, 64, 0, NULL)); }
static const char *c_map_invalidate_host_read_only(void)
{
    R(map_err(Q, mk(CL_MEM_HOST_READ_ONLY, 4096, NULL), CL_MAP_WRITE_INVALIDATE_REGION, 0, 64, 0, NULL));
}
static const char *c_map_write_host_write_only(void) { R(map_err(Q, mk(CL_MEM_HOST_WRITE_ONLY, 4096, NULL), CL_MAP_WRITE, 0, 64, 0, NULL)); }
static const char *c_map_failed_wait_event(void)
{
    cl_int e;
    cl_event u = clCreateUserEvent(C, &e);
    clSetUserEventStatus(u, -1);
    R(map_err(Q, mk(0, 4096, NULL), CL_MAP_READ, 0, 64, 1, &u));
}
static const char *c_map_use_host_ptr_pointer(void)
{
    char *h = page(8192);
    cl_mem m = mk(CL_MEM_USE_HOST_PTR, 8192, h);
    cl_int e;
    char *p = clEnqueueMapBuffer(Q, m, CL_TRUE, CL_MAP_READ, 100, 64, 0, NULL, NULL, &e);
    if (e) R(e);
    return p == h + 100 ? "HOST_PTR_PLUS_OFFSET" : "OTHER_POINTER";
}
static const char *c_map_use_host_ptr_latest_bits(void)
{
    int *h = page(8192);
    cl_mem m = mk(CL_MEM_USE_HOST_PTR, 8192, h);
    int v = 77;
    clEnqueueFillBuffer(Q, m, &v, sizeof v, 0, 8192, 0, NULL, NULL);
    cl_int e;
    int *p = clEnqueueMapBuffer(Q, m, CL_TRUE, CL_MAP_READ, 0, 8192, 0, NULL, NULL, &e);
    if (e) R(e);
    return p[0] == 77 && p[2047] == 77 && h[5] == 77 ? "HOST_MEMORY_HAS_DATA" : "STALE";
}
static const char *c_map_device_data(void)
{
    int src[256];
    for (int i = 0; i < 256; i++) src[i] = i * 3;
    cl_mem m = mk(CL_MEM_COPY_HOST_PTR, sizeof src, src);
    cl_int e;
    int *p = clEnqueueMapBuffer(Q, m, CL_TRUE, CL_MAP_READ, 64, 512, 0, NULL, NULL, &e);
    if (e) R(e);
    return p[0] == 48 && p[127] == 3 * 143 ? "DATA" : "WRONG_DATA";
}
static const char *c_map_write_then_read(void)
{
    cl_mem m = mk(0, 4096, NULL);
    cl_int e;
    int *p = clEnqueueMapBuffer(Q, m, CL_TRUE, CL_MAP_WRITE, 0, 4096, 0, NULL, NULL, &e);
    if (e) R(e);
    for (int i = 0; i < 1024; i++) p[i] = i ^ 0x55;
    clEnqueueUnmapMemObject(Q, m, p, 0, NULL, NULL);
    int b[1024];
    e = clEnqueueReadBuffer(Q, m, CL_TRUE, 0, 4096, b, 0, NULL, NULL);
    if (e) R(e);
    for (int i = 0; i < 1024; i++)
        if (b[i] != (i ^ 0x55)) return "WRONG_DATA";
    return "DATA";
}
static const char *c_map_invalidate_ok(void)
{
    R(map_err(Q, mk(0, 4096, NULL), CL_MAP_WRITE_INVALIDATE_REGION, 0, 4096, 0, NULL));
}
static const char *c_map_count_two_reads(void)
{
    cl_mem m = mk(0, 4096, NULL);
    cl_int e;
    clEnqueueMapBuffer(Q, m, CL_TRUE, CL_MAP_READ, 0, 128, 0, NULL, NULL, &e);
    clEnqueueMapBuffer(Q, m, CL_TRUE, CL_MAP_READ, 64, 128, 0, NULL, NULL, &e);
    cl_uint n = 99;
    clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof n, &n, NULL);
    return num(n);
}
static const char *c_map_count_after_unmap(void)
{
    cl_mem m = mk(0, 4096, NULL);
    cl_int e;
    void *p = clEnqueueMapBuffer(Q, m, CL_TRUE, CL_MAP_READ, 0, 128, 0, NULL, NULL, &e);
    clEnqueueUnmapMemObject(Q, m, p, 0, NULL, NULL);
    clFinish(Q);
    cl_uint n = 99;
    clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof n, &n, NULL);
    return num(n);
}
static const char *c_map_nonblocking_event(void)
{
    cl_mem m = mk(0, 4096, NULL);
    cl_int e;
    cl_event ev;
    void *p = clEnqueueMapBuffer(Q, m, CL_FALSE, CL_MAP_READ, 0, 128, 0, NULL, &ev, &e);
    if (e || !p) R(e);
    clWaitForEvents(1, &ev);
    cl_int st = 1;
    clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    return st == CL_COMPLETE ? "CL_COMPLETE" : err_name(st);
}
static const char *c_map_event_type(void)
{
    cl_mem m = mk(0, 4096, NULL);
    cl_int e;
    cl_event ev;
    clEnqueueMapBuffer(Q, m, CL_TRUE, CL_MAP_READ, 0, 128, 0, NULL, &ev, &e);
    cl_command_type t = 0;
    clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof t, &t, NULL);
    return t == CL_COMMAND_MAP_BUFFER ? "CL_COMMAND_MAP_BUFFER" : num((long)t);
}
static const char *c_unmap_event_type(void)
{
    cl_mem m = mk(0, 4096, NULL);
    cl_int e;
    cl_event ev;
    void *p = clEnqueueMapBuffer(Q, m, CL_TRUE, CL_MAP_READ, 0, 128, 0, NULL, NULL, &e);
    clEnqueueUnmapMemObject(Q, m, p, 0, NULL, &ev);
    clFinish(Q);
    cl_command_type t = 0;
    clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof t, &t, NULL);
    return t == CL_COMMAND_UNMAP_MEM_OBJECT ? "CL_COMMAND_UNMAP_MEM_OBJECT" : num((long)t);
}
static const char *c_map_user_event_then_complete(void)
{
    cl_mem m = mk(0, 4096, NULL);
    cl_int e;
    cl_event u = clCreateUserEvent(C, &e), ev;
    void *p = clEnqueueMapBuffer(Q, m, CL_FALSE, CL_MAP_READ, 0, 128, 1, &u, &ev, &e);
    if (e || !p) R(e);
    clSetUserEventStatus(u, CL_COMPLETE);
    R(clWaitForEvents(1, &ev));
}
static const char *c_map_sub_buffer(void)
{
    cl_uint align = 0;
    clGetDeviceInfo(D, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align, &align, NULL);
    int src[2048];
    for (int i = 0; i < 2048; i++) src[i] = i;
    cl_mem b = mk(CL_MEM_COPY_HOST_PTR, sizeof src, src);
    cl_buffer_region r = {align / 8 * 4, 256};
    cl_int e;
    cl_mem s = clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &e);
    if (e) R(e);
    int *p = clEnqueueMapBuffer(Q, s, CL_TRUE, CL_MAP_READ, 16, 64, 0, NULL, NULL, &e);
    if (e) R(e);
    return p[0] == (int)(r.origin + 16) / 4 ? "DATA" : "WRONG_DATA";
}
static const char *c_map_two_queues_read(void)
{
    cl_mem m = mk(0, 4096, NULL);
    cl_int e1, e2;
    cl_command_queue q2 = clCreateCommandQueue(C, D, 0, &e1);
    void *a = clEnqueueMapBuffer(Q, m, CL_TRUE, CL_MAP_READ, 0, 256, 0, NULL, NULL, &e1);
    void *b = clEnqueueMapBuffer(q2, m, CL_TRUE, CL_MAP_READ, 128, 256, 0, NULL, NULL, &e2);
    if (e1) R(e1);
    if (e2) R(e2);
    return a && b ? "CL_SUCCESS" : "NULL_POINTER";
}

static cl_int unmap_case(int kind)
{
    cl_mem m = mk(0, 4096, NULL), m2 = mk(0, 4096, NULL);
    cl_int e;
    char *p = clEnqueueMapBuffer(Q, m, CL_TRUE, CL_MAP_READ, 0, 128, 0, NULL, NULL, &e);
    char *p2 = clEnqueueMapBuffer(Q, m2, CL_TRUE, CL_MAP_READ, 0, 128, 0, NULL, NULL, &e);
    cl_mem m3 = clCreateBuffer(C2, 0, 4096, NULL, &e);
    switch (kind) {
    case 0: return clEnqueueUnmapMemObject(Q, m, p + 1, 0, NULL, NULL);
    case 1: return clEnqueueUnmapMemObject(Q, m, NULL, 0, NULL, NULL);
    case 2:
        clEnqueueUnmapMemObject(Q, m, p, 0, NULL, NULL);
        clFinish(Q);
        return clEnqueueUnmapMemObject(Q, m, p, 0, NULL, NULL);
    case 3: return clEnqueueUnmapMemObject(Q, m, p2, 0, NULL, NULL);
    case 4: return clEnqueueUnmapMemObject(NULL, m, p, 0, NULL, NULL);
    case 5: return clEnqueueUnmapMemObject(Q, NULL, p, 0, NULL, NULL);
    case 6: return clEnqueueUnmapMemObject(Q, m3, p, 0, NULL, NULL);
    case 7: return clEnqueueUnmapMemObject(Q, m, p, 1, NULL, NULL);
    default: return clEnqueueUnmapMemObject(Q, m, p, 0, NULL, NULL);
    }
}
static const char *c_unmap_wrong_ptr(void) { R(unmap_case(0)); }
static const char *c_unmap_null_ptr(void) { R(unmap_case(1)); }
static const char *c_unmap_twice(void) { R(unmap_case(2)); }
static const char *c_unmap_other_buffers_ptr(void) { R(unmap_case(3)); }
static const char *c_unmap_null_queue(void) { R(unmap_case(4)); }
static const char *c_unmap_null_mem(void) { R(unmap_case(5)); }
static const char *c_unmap_other_context(void) { R(unmap_case(6)); }
static const char *c_unmap_bad_wait_list(void) { R(unmap_case(7)); }
static const char *c_unmap_ok(void) { R(unmap_case(8)); }

static const char *c_read_out_of_bounds(void)
{
    char b[128];
    R(clEnqueueReadBuffer(Q, mk(0, 64, NULL), CL_TRUE, 32, 64, b, 0, NULL, NULL));
}
static const char *c_read_null_ptr(void) { R(clEnqueueReadBuffer(Q, mk(0, 64, NULL), CL_TRUE, 0, 64, NULL, 0, NULL, NULL)); }
static const char *c_read_host_write_only(void)
{
    char b[64];
    R(clEnqueueReadBuffer(Q, mk(CL_MEM_HOST_WRITE_ONLY, 64, NULL), CL_TRUE, 0, 64, b, 0, NULL, NULL));
}
static const char *c_write_host_read_only(void)
{
    char b[64] = {0};
    R(clEnqueueWriteBuffer(Q, mk(CL_MEM_HOST_READ_ONLY, 64, NULL), CL_TRUE, 0, 64, b, 0, NULL, NULL));
}
static const char *c_write_host_no_access(void)
{
    char b[64] = {0};
    R(clEnqueueWriteBuffer(Q, mk(CL_MEM_HOST_NO_ACCESS, 64, NULL), CL_TRUE, 0, 64, b, 0, NULL, NULL));
}
static const char *c_copy_overlap(void)
{
    cl_mem m = mk(0, 4096, NULL);
    R(clEnqueueCopyBuffer(Q, m, m, 0, 100, 200, 0, NULL, NULL));
}
static const char *c_copy_out_of_bounds(void) { R(clEnqueueCopyBuffer(Q, mk(0, 4096, NULL), mk(0, 64, NULL), 0, 0, 128, 0, NULL, NULL)); }
static const char *c_copy_size0(void) { R(clEnqueueCopyBuffer(Q, mk(0, 4096, NULL), mk(0, 64, NULL), 0, 0, 0, 0, NULL, NULL)); }
static const char *c_fill_pattern3(void)
{
    char pat[3] = {1, 2, 3};
    R(clEnqueueFillBuffer(Q, mk(0, 96, NULL), pat, 3, 0, 96, 0, NULL, NULL));
}
static const char *c_fill_offset_not_multiple(void)
{
    int v = 1;
    R(clEnqueueFillBuffer(Q, mk(0, 96, NULL), &v, 4, 2, 64, 0, NULL, NULL));
}
static const char *c_fill_null_pattern(void) { R(clEnqueueFillBuffer(Q, mk(0, 96, NULL), NULL, 4, 0, 64, 0, NULL, NULL)); }
static const char *c_rect_bad_row_pitch(void)
{
    size_t o[3] = {0, 0, 0}, r[3] = {64, 2, 1};
    char b[256];
    R(clEnqueueReadBufferRect(Q, mk(0, 4096, NULL), CL_TRUE, o, o, r, 32, 0, 0, 0, b, 0, NULL, NULL));
}
static const char *c_info_host_ptr_use(void)
{
    char *h = page(4096);
    void *p = NULL;
    cl_mem m = mk(CL_MEM_USE_HOST_PTR, 4096, h);
    clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof p, &p, NULL);
    return p == h ? "HOST_PTR" : "OTHER";
}
static const char *c_info_host_ptr_plain(void)
{
    void *p = (void *)1;
    clGetMemObjectInfo(mk(CL_MEM_ALLOC_HOST_PTR, 4096, NULL), CL_MEM_HOST_PTR, sizeof p, &p, NULL);
    return p == NULL ? "NULL" : "NON_NULL";
}
static const char *c_info_bad_param(void)
{
    size_t v;
    R(clGetMemObjectInfo(mk(0, 64, NULL), 0x7777, sizeof v, &v, NULL));
}
static const char *c_info_small_size(void)
{
    char v[2];
    R(clGetMemObjectInfo(mk(0, 64, NULL), CL_MEM_SIZE, sizeof v, v, NULL));
}
static const char *c_info_null_mem(void)
{
    size_t v;
    R(clGetMemObjectInfo(NULL, CL_MEM_SIZE, sizeof v, &v, NULL));
}
static int g_dtor_called;
static void CL_CALLBACK dtor(cl_mem m, void *u) { (void)m; (void)u; g_dtor_called++; }
static const char *c_destructor_null_fn(void) { R(clSetMemObjectDestructorCallback(mk(0, 64, NULL), NULL, NULL)); }
static const char *c_destructor_called(void)
{
    cl_mem m = mk(0, 64, NULL);
    cl_int e = clSetMemObjectDestructorCallback(m, dtor, NULL);
    if (e) R(e);
    clReleaseMemObject(m);
    clFinish(Q);
    for (int i = 0; i < 100 && !g_dtor_called; i++) usleep(10000);
    return g_dtor_called == 1 ? "CALLED" : "NOT_CALLED";
}
static const char *c_release_while_mapped(void)
{
    /* The spec keeps the memory object alive while commands (the unmap) still use it. */
    cl_mem m = mk(0, 4096, NULL);
    cl_int e;
    void *p = clEnqueueMapBuffer(Q, m, CL_TRUE, CL_MAP_WRITE, 0, 64, 0, NULL, NULL, &e);
    R(clEnqueueUnmapMemObject(Q, m, p, 0, NULL, NULL) || clReleaseMemObject(m) || clFinish(Q));
}

/* Images (skipped with NO_IMAGES when the device has none). */
static int images(void)
{
    cl_bool b = CL_FALSE;
    clGetDeviceInfo(D, CL_DEVICE_IMAGE_SUPPORT, sizeof b, &b, NULL);
    return b;
}
static cl_mem img(cl_mem_flags f, size_t w, size_t h, size_t pitch, void *host, cl_int *e)
{
    cl_image_format fmt = {CL_RGBA, CL_UNORM_INT8};
    cl_image_desc d;
    memset(&d, 0, sizeof d);
    d.image_type = CL_MEM_OBJECT_IMAGE2D;
    d.image_width = w;
    d.image_height = h;
    d.image_row_pitch = pitch;
    return clCreateImage(C, f, &fmt, &d, host, e);
}
static const char *c_image_map_row_pitch_null(void)
{
    if (!images()) return "NO_IMAGES";
    cl_int e;
    cl_mem m = img(0, 16, 16, 0, NULL, &e);
    size_t o[3] = {0, 0, 0}, r[3] = {4, 4, 1};
    clEnqueueMapImage(Q, m, CL_TRUE, CL_MAP_READ, o, r, NULL, NULL, 0, NULL, NULL, &e);
    R(e);
}
static const char *c_image_map_use_host_ptr(void)
{
    if (!images()) return "NO_IMAGES";
    cl_int e;
    char *h = page(256 * 8);
    cl_mem m = img(CL_MEM_USE_HOST_PTR, 37, 8, 256, h, &e);
    if (e) R(e);
    size_t o[3] = {3, 2, 0}, r[3] = {4, 4, 1}, rp = 0;
    char *p = clEnqueueMapImage(Q, m, CL_TRUE, CL_MAP_READ, o, r, &rp, NULL, 0, NULL, NULL, &e);
    if (e) R(e);
    return p == h + 2 * 256 + 12 && rp == 256 ? "HOST_PTR_AND_PITCH" : "OTHER_POINTER";
}
static const char *c_image_map_out_of_bounds(void)
{
    if (!images()) return "NO_IMAGES";
    cl_int e;
    cl_mem m = img(0, 16, 16, 0, NULL, &e);
    size_t o[3] = {10, 0, 0}, r[3] = {8, 4, 1}, rp;
    clEnqueueMapImage(Q, m, CL_TRUE, CL_MAP_READ, o, r, &rp, NULL, 0, NULL, NULL, &e);
    R(e);
}
static const char *c_image_write_slice_pitch_2d(void)
{
    if (!images()) return "NO_IMAGES";
    cl_int e;
    cl_mem m = img(0, 16, 16, 0, NULL, &e);
    size_t o[3] = {0, 0, 0}, r[3] = {4, 4, 1};
    char b[1024] = {0};
    R(clEnqueueWriteImage(Q, m, CL_TRUE, o, r, 0, 256, b, 0, NULL, NULL));
}
static const char *c_image_pitch_without_host_ptr(void)
{
    if (!images()) return "NO_IMAGES";
    cl_int e = 12345;
    img(0, 16, 16, 128, NULL, &e);
    R(e);
}
static const char *c_image_region_depth0(void)
{
    if (!images()) return "NO_IMAGES";
    cl_int e;
    cl_mem m = img(0, 16, 16, 0, NULL, &e);
    size_t o[3] = {0, 0, 0}, r[3] = {4, 4, 0};
    char b[1024];
    R(clEnqueueReadImage(Q, m, CL_TRUE, o, r, 0, 0, b, 0, NULL, NULL));
}
static const char *c_image_map_buffer_call(void)
{
    if (!images()) return "NO_IMAGES";
    cl_int e;
    cl_mem m = img(0, 16, 16, 0, NULL, &e);
    clEnqueueMapBuffer(Q, m, CL_TRUE, CL_MAP_READ, 0, 64, 0, NULL, NULL, &e);
    R(e);
}

static const struct { const char *name; const char *(*fn)(void); } k_cases[] = {
#define X(n) {#n, c_##n}
    X(create_size0), X(create_rw_and_ro), X(create_ro_and_wo), X(create_unknown_flag),
    X(create_use_and_alloc), X(create_use_and_copy), X(create_alloc_and_copy), X(create_use_null_ptr),
    X(create_copy_null_ptr), X(create_ptr_without_flag), X(create_host_ro_and_wo),
    X(create_host_ro_and_no_access), X(create_over_max_alloc), X(create_null_context),
    X(sub_misaligned), X(sub_out_of_bounds), X(sub_size0), X(sub_of_sub), X(sub_bad_type),
    X(sub_widen_access), X(sub_widen_host_access), X(sub_host_ptr_flag), X(sub_offset_info),
    X(map_ok), X(map_out_of_bounds), X(map_offset_past_end), X(map_size0), X(map_bad_flags),
    X(map_invalidate_and_read), X(map_flags_zero), X(map_null_queue), X(map_null_buffer),
    X(map_wait_null_n1), X(map_wait_list_n0), X(map_wait_bad_event), X(map_other_context_buffer),
    X(map_other_context_event), X(map_host_no_access), X(map_read_host_write_only),
    X(map_write_host_read_only), X(map_invalidate_host_read_only), X(map_write_host_write_only),
    X(map_failed_wait_event), X(map_use_host_ptr_pointer), X(map_use_host_ptr_latest_bits),
    X(map_device_data), X(map_write_then_read), X(map_invalidate_ok), X(map_count_two_reads),
    X(map_count_after_unmap), X(map_nonblocking_event), X(map_event_type), X(unmap_event_type),
    X(map_user_event_then_complete), X(map_sub_buffer), X(map_two_queues_read),
    X(unmap_wrong_ptr), X(unmap_null_ptr), X(unmap_twice), X(unmap_other_buffers_ptr),
    X(unmap_null_queue), X(unmap_null_mem), X(unmap_other_context), X(unmap_bad_wait_list),
    X(unmap_ok), X(read_out_of_bounds), X(read_null_ptr), X(read_host_write_only),
    X(write_host_read_only), X(write_host_no_access), X(copy_overlap), X(copy_out_of_bounds),
    X(copy_size0), X(fill_pattern3), X(fill_offset_not_multiple), X(fill_null_pattern),
    X(rect_bad_row_pitch), X(info_host_ptr_use), X(info_host_ptr_plain), X(info_bad_param),
    X(info_small_size), X(info_null_mem), X(destructor_null_fn), X(destructor_called),
    X(release_while_mapped), X(image_map_row_pitch_null), X(image_map_use_host_ptr),
    X(image_map_out_of_bounds), X(image_write_slice_pitch_2d), X(image_pitch_without_host_ptr),
    X(image_region_depth0), X(image_map_buffer_call),
#undef X
};

static int setup(const char *want)
{
    cl_platform_id pls[16];
    cl_uint n = 0;
    if (clGetPlatformIDs(16, pls, &n) || !n) return 0;
    for (cl_uint i = 0; i < n && !P; i++) {
        char name[256] = "";
        clGetPlatformInfo(pls[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strstr(name, want)) P = pls[i];
    }
    if (!P || clGetDeviceIDs(P, CL_DEVICE_TYPE_ALL, 1, &D, NULL)) return 0;
    cl_int e;
    C = clCreateContext(NULL, 1, &D, NULL, NULL, &e);
    if (e) return 0;
    C2 = clCreateContext(NULL, 1, &D, NULL, NULL, &e);
    if (e) return 0;
    Q = clCreateCommandQueue(C, D, 0, &e);
    if (e) return 0;
    Q2 = clCreateCommandQueue(C2, D, 0, &e);
    return e == 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s <platform name substring> [case]\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (fork() == 0) {  /* identify the platform once, in a child like every case */
        if (!setup(argv[1])) { printf("# no platform matching \"%s\"\n", argv[1]); _exit(1); }
        char s[256] = "", v[256] = "", dn[256] = "";
        clGetPlatformInfo(P, CL_PLATFORM_NAME, sizeof s, s, NULL);
        clGetPlatformInfo(P, CL_PLATFORM_VERSION, sizeof v, v, NULL);
        clGetDeviceInfo(D, CL_DEVICE_NAME, sizeof dn, dn, NULL);
        printf("# platform %s | %s | device %s\n", s, v, dn);
        _exit(0);
    }
    int st;
    wait(&st);
    if (!WIFEXITED(st) || WEXITSTATUS(st)) return 1;
    int n = 0;
    for (size_t i = 0; i < sizeof k_cases / sizeof k_cases[0]; i++) {
        if (argc > 2 && strcmp(argv[2], k_cases[i].name)) continue;
        int fd[2];
        if (pipe(fd)) return 1;
        pid_t pid = fork();
        if (pid == 0) {
            close(fd[0]);
            /* 20 s a case; PROBE_TIMEOUT (seconds) raises it where the device is slow to answer
             * (sim-board: every word of a map crosses a serial link) */
            const char *pt = getenv("PROBE_TIMEOUT");
            alarm(pt && atoi(pt) > 0 ? (unsigned)atoi(pt) : 20u);
            const char *r = setup(argv[1]) ? k_cases[i].fn() : "SETUP_FAILED";
            if (write(fd[1], r, strlen(r)) < 0) _exit(1);
            _exit(0);
        }
        close(fd[1]);
        char buf[128] = "";
        ssize_t got = 0, k;
        while ((k = read(fd[0], buf + got, sizeof buf - 1 - (size_t)got)) > 0) got += k;
        close(fd[0]);
        waitpid(pid, &st, 0);
        if (WIFSIGNALED(st)) snprintf(buf, sizeof buf, WTERMSIG(st) == SIGALRM ? "TIMEOUT" : "CRASH");
        else if (!got) snprintf(buf, sizeof buf, "NO_ANSWER");
        printf("case %s %s\n", k_cases[i].name, buf);
        n++;
    }
    return n ? 0 : 1;
}
