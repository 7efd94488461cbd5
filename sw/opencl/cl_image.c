/*
 * 2D images and samplers.
 *
 * An image is stored like a buffer (device memory, or host memory through the host aperture
 * for USE_HOST_PTR / ALLOC_HOST_PTR) as `height` rows of `row_pitch` bytes. Every device-side
 * image operation is one 2D DMA command (DMA_COPY / DMA_FILL with a width, a height and two
 * pitches): copies between images and buffers, fills, and the staging copies of a map and of
 * read/write image on device memory. A zero-copy image is the application's memory with the
 * application's row pitch, so mapping it returns host_ptr + origin and that pitch, and moves
 * nothing.
 *
 * Image types: 1D, 1D array, 2D, 2D array and 3D (not 1D image buffers). Every type is a box
 * of width x height x depth pixels with a row step and a slice step (cl_internal.h), which
 * the API's origin/region address directly once the per-type rules (origin[1..2] = 0 and
 * region[1..2] = 1 where a type has no such dimension) are checked; device work is one 2D
 * DMA per slice. The formats are the embedded profile's minimum list (CL_RGBA with ten
 * channel types) plus a few single-channel ones, for every type. No kernel reads or writes
 * images (the built-in kernels take buffers), so samplers are plain objects that hold their
 * three properties: the spec requires clCreateSampler to work on a device with image support.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cl_internal.h"

#define IMAGE2D_MAX 2048u    /* the 1.2 embedded profile's minimum for width and height (also 1D) */
#define IMAGE3D_MAX 2048u    /* the full profile's minimum; 3D is optional in the embedded one */
#define IMAGE_ARRAY_MAX 256u /* CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, the 1.2 minimum */

static const cl_image_format k_formats[] = {
    {CL_RGBA, CL_UNORM_INT8},     {CL_RGBA, CL_UNORM_INT16},    {CL_RGBA, CL_SIGNED_INT8},
    {CL_RGBA, CL_SIGNED_INT16},   {CL_RGBA, CL_SIGNED_INT32},   {CL_RGBA, CL_UNSIGNED_INT8},
    {CL_RGBA, CL_UNSIGNED_INT16}, {CL_RGBA, CL_UNSIGNED_INT32}, {CL_RGBA, CL_HALF_FLOAT},
    {CL_RGBA, CL_FLOAT},          {CL_R, CL_UNORM_INT8},        {CL_R, CL_UNSIGNED_INT8},
    {CL_R, CL_UNSIGNED_INT16},    {CL_R, CL_UNSIGNED_INT32},    {CL_R, CL_FLOAT},
};
#define NFORMATS (sizeof k_formats / sizeof k_formats[0])

static size_t channel_bytes(cl_channel_type t)
{
    switch (t) {
    case CL_SNORM_INT8: case CL_UNORM_INT8: case CL_SIGNED_INT8: case CL_UNSIGNED_INT8: return 1;
    case CL_SNORM_INT16: case CL_UNORM_INT16: case CL_SIGNED_INT16: case CL_UNSIGNED_INT16:
    case CL_HALF_FLOAT: return 2;
    case CL_SIGNED_INT32: case CL_UNSIGNED_INT32: case CL_FLOAT: return 4;
    default: return 0;
    }
}

static int known_order(cl_channel_order o)
{
    return o >= CL_R && o <= CL_DEPTH_STENCIL;  /* every order the 1.2 headers name */
}

static int supported(const cl_image_format *f)
{
    for (size_t i = 0; i < NFORMATS; i++)
        if (k_formats[i].image_channel_order == f->image_channel_order &&
            k_formats[i].image_channel_data_type == f->image_channel_data_type)
            return 1;
    return 0;
}

static size_t nchannels(cl_channel_order o) { return o == CL_RGBA ? 4 : 1; }

static int is_image(cl_mem m) { return vcl_valid(m, VCL_MEM) && m->type != CL_MEM_OBJECT_BUFFER; }

static int has_slice_pitch(cl_mem_object_type t)
{
    return t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE2D_ARRAY || t == CL_MEM_OBJECT_IMAGE3D;
}

/* ---------------------------------------------------------------- queries */

cl_int CL_API_CALL vcl_GetSupportedImageFormats(cl_context c, cl_mem_flags f, cl_mem_object_type t,
                                                cl_uint n, cl_image_format *fmts, cl_uint *nf)
{
    vcl_enter();
    cl_int rc = CL_SUCCESS;
    if (!vcl_valid(c, VCL_CONTEXT)) rc = CL_INVALID_CONTEXT;
    else if ((n == 0 && fmts) || vcl_check_mem_flags(f)) rc = CL_INVALID_VALUE;
    else if (t != CL_MEM_OBJECT_IMAGE1D && t != CL_MEM_OBJECT_IMAGE1D_BUFFER &&
             t != CL_MEM_OBJECT_IMAGE1D_ARRAY && t != CL_MEM_OBJECT_IMAGE2D &&
             t != CL_MEM_OBJECT_IMAGE2D_ARRAY && t != CL_MEM_OBJECT_IMAGE3D)
        rc = CL_INVALID_VALUE;
    else {
        cl_uint have = (cl_uint)NFORMATS;  /* every type, 1D image buffers included */
        for (cl_uint i = 0; fmts && i < n && i < have; i++) fmts[i] = k_formats[i];
        if (nf) *nf = have;
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_GetImageInfo(cl_mem m, cl_image_info p, size_t s, void *v, size_t *r)
{
    vcl_enter();
    cl_int rc;
    size_t z;
    void *ptr = NULL;
    cl_uint u = 0;
    if (!is_image(m)) rc = CL_INVALID_MEM_OBJECT;
    else switch (p) {
    case CL_IMAGE_FORMAT: rc = vcl_info_out(&m->fmt, sizeof m->fmt, s, v, r); break;
    case CL_IMAGE_ELEMENT_SIZE: rc = vcl_info_out(&m->elem, sizeof m->elem, s, v, r); break;
    case CL_IMAGE_ROW_PITCH: rc = vcl_info_out(&m->row_pitch, sizeof m->row_pitch, s, v, r); break;
    case CL_IMAGE_SLICE_PITCH: rc = vcl_info_out(&m->slice_pitch, sizeof m->slice_pitch, s, v, r); break;
    case CL_IMAGE_WIDTH: rc = vcl_info_out(&m->width, sizeof m->width, s, v, r); break;
    case CL_IMAGE_HEIGHT:  /* 0 for the 1D types (a 1D array keeps its layers as rows) */
        z = (m->type == CL_MEM_OBJECT_IMAGE1D || m->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
             m->type == CL_MEM_OBJECT_IMAGE1D_BUFFER) ? 0 : m->height;
        rc = vcl_info_out(&z, sizeof z, s, v, r);
        break;
    case CL_IMAGE_DEPTH:
        z = m->type == CL_MEM_OBJECT_IMAGE3D ? m->depth : 0;
        rc = vcl_info_out(&z, sizeof z, s, v, r);
        break;
    case CL_IMAGE_ARRAY_SIZE:
        z = m->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? m->height : m->type == CL_MEM_OBJECT_IMAGE2D_ARRAY ? m->depth : 0;
        rc = vcl_info_out(&z, sizeof z, s, v, r);
        break;
    case CL_IMAGE_BUFFER:
        if (m->type == CL_MEM_OBJECT_IMAGE1D_BUFFER) ptr = m->parent;
        rc = vcl_info_out(&ptr, sizeof ptr, s, v, r);
        break;
    case CL_IMAGE_NUM_MIP_LEVELS:
    case CL_IMAGE_NUM_SAMPLES: rc = vcl_info_out(&u, sizeof u, s, v, r); break;
    default: rc = CL_INVALID_VALUE;
    }
    vcl_leave();
    return rc;
}

/* ---------------------------------------------------------------- creation */

cl_mem CL_API_CALL vcl_CreateImage(cl_context c, cl_mem_flags flags, const cl_image_format *fmt,
                                   const cl_image_desc *d, void *host, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = NULL;
    vcl_enter();
    size_t elem = 0, pitch = 0, size = 0;
    if (!vcl_valid(c, VCL_CONTEXT)) { err = CL_INVALID_CONTEXT; goto out; }
    if ((err = vcl_check_mem_flags(flags))) goto out;
    if (!fmt || !known_order(fmt->image_channel_order) || !channel_bytes(fmt->image_channel_data_type)) {
        err = CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
        goto out;
    }
    if (!d) { err = CL_INVALID_IMAGE_DESCRIPTOR; goto out; }
    /* The box: width x h x dd pixels; which desc fields count depends on the type. */
    size_t w = d->image_width, h = 1, dd = 1, maxw = IMAGE2D_MAX, maxh = IMAGE2D_MAX, maxd = 1;
    switch (d->image_type) {
    case CL_MEM_OBJECT_IMAGE1D: break;
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: h = d->image_array_size; maxh = IMAGE_ARRAY_MAX; break;
    case CL_MEM_OBJECT_IMAGE2D: h = d->image_height; break;
    case CL_MEM_OBJECT_IMAGE2D_ARRAY: h = d->image_height; dd = d->image_array_size; maxd = IMAGE_ARRAY_MAX; break;
    case CL_MEM_OBJECT_IMAGE3D:
        /* Depth 1 is a valid 3D image for clCreateImage (1.2: depth >= 1); only the 1.1 call
         * clCreateImage3D asks for more than one slice. */
        h = d->image_height;
        dd = d->image_depth;
        maxw = maxh = maxd = IMAGE3D_MAX;
        break;
    case CL_MEM_OBJECT_IMAGE1D_BUFFER: maxw = VCL_IMAGE_BUFFER_MAX; break;
    default: err = CL_INVALID_IMAGE_DESCRIPTOR; goto out;
    }
    /* A 1D image buffer is a view of a buffer's bytes: no storage of its own. */
    cl_mem b = d->image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER ? d->buffer : NULL;
    int sliced = has_slice_pitch(d->image_type);
    if (w == 0 || h == 0 || dd == 0 || d->num_mip_levels || d->num_samples || (d->buffer && !b) ||
        (d->image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER &&
         (!vcl_valid(b, VCL_MEM) || b->type != CL_MEM_OBJECT_BUFFER || b->ctx != c)) ||
        ((d->image_row_pitch || d->image_slice_pitch) && !host) || (!sliced && d->image_slice_pitch)) {
        err = CL_INVALID_IMAGE_DESCRIPTOR;
        goto out;
    }
    cl_mem_flags mflags = flags;
    if (b && (err = vcl_derived_flags(b, flags, &mflags))) goto out;
    if (!supported(fmt)) { err = CL_IMAGE_FORMAT_NOT_SUPPORTED; goto out; }
    elem = channel_bytes(fmt->image_channel_data_type) * nchannels(fmt->image_channel_order);
    pitch = d->image_row_pitch ? d->image_row_pitch : w * elem;
    if (pitch < w * elem || pitch % elem) { err = CL_INVALID_IMAGE_DESCRIPTOR; goto out; }
    /* Slice pitch: per 2D slice (2D array, 3D) or per 1D layer (1D array). */
    size_t slice_min = d->image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? pitch : pitch * h;
    size_t spitch = d->image_slice_pitch ? d->image_slice_pitch : slice_min;
    if (sliced && (spitch < slice_min || spitch % pitch)) { err = CL_INVALID_IMAGE_DESCRIPTOR; goto out; }
    if (w > maxw || h > maxh || dd > maxd) { err = CL_INVALID_IMAGE_SIZE; goto out; }
    /* The buffer must hold every pixel (an image_desc that does not fit it is not valid). */
    if (b && w * elem > b->size) { err = CL_INVALID_IMAGE_DESCRIPTOR; goto out; }
    int wants_ptr = (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) != 0;
    if (wants_ptr != (host != NULL)) { err = CL_INVALID_HOST_PTR; goto out; }
    /* Device-side copies use tight pitches; only zero copy keeps the application's. */
    int zc = (flags & CL_MEM_USE_HOST_PTR) != 0;
    size_t dpitch = zc ? pitch : w * elem;
    size_t dslice = zc ? spitch : (d->image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? dpitch : dpitch * h);
    size_t rstep = d->image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? dslice : dpitch;
    size_t sstep = d->image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? dslice * h : d->image_type == CL_MEM_OBJECT_IMAGE2D_ARRAY || d->image_type == CL_MEM_OBJECT_IMAGE3D ? dslice : dpitch * h;
    size = sstep * dd;
    if (size > vcl_max_alloc()) { err = CL_MEM_OBJECT_ALLOCATION_FAILURE; goto out; }
    m = vcl_mem_new(c, mflags, size);
    if (!m) { err = CL_OUT_OF_HOST_MEMORY; goto out; }
    m->type = d->image_type;
    m->fmt = *fmt;
    m->width = w;
    m->height = h;
    m->depth = dd;
    m->row_pitch = dpitch;
    m->slice_pitch = sliced ? dslice : 0;
    m->rstep = rstep;
    m->sstep = sstep;
    m->elem = elem;
    int rc;
    if (b) {
        m->parent = b;
        m->origin = b->origin;  /* counted from the root, as every view's */
        if (b->flags & CL_MEM_USE_HOST_PTR) m->host_ptr = b->host_ptr;
        rc = VMGPU_OK;
    } else if (flags & CL_MEM_USE_HOST_PTR) {
        m->host_ptr = host;
        rc = vcl_map_host(c, host, size, m);
    } else if (flags & CL_MEM_ALLOC_HOST_PTR) {
        size_t bytes = (size + VMGPU_PAGE_SIZE - 1) & ~(size_t)(VMGPU_PAGE_SIZE - 1);
        if (posix_memalign(&m->host_alloc, VMGPU_PAGE_SIZE, bytes)) {
            m->host_alloc = NULL;
            rc = VMGPU_ERR_NOMEM;
        } else {
            memset(m->host_alloc, 0, bytes);
            rc = vcl_map_host(c, m->host_alloc, size, m);
        }
    } else {
        rc = vcl_map_device(c, size, m);
    }
    /* COPY_HOST_PTR: the application's rows (its pitches) into ours. */
    size_t hrstep = d->image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? spitch : pitch;
    size_t hsstep = d->image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? spitch * h : sliced ? spitch : pitch * h;
    for (size_t z = 0; !rc && (flags & CL_MEM_COPY_HOST_PTR) && z < dd; z++)
        for (size_t y = 0; !rc && y < h; y++) {
            const uint8_t *src = (const uint8_t *)host + z * hsstep + y * hrstep;
            size_t o = z * sstep + y * rstep;
            if (m->zero_copy) memcpy(m->host + o, src, w * elem);
            else rc = vmgpu_phys_write(vcl_dev, m->pa + (uint32_t)o, src, w * elem);
        }
    if (!rc && !b && vcl_kernel_access(flags) != (VMGPU_MAP_READ | VMGPU_MAP_WRITE)) rc = vcl_kview_make(m, m, 0, size);
    if (rc) {
        vcl_storage_free(m);
        free(m);
        m = NULL;
        err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        goto out;
    }
    c->attached++;
    if (b) {
        cl_mem r = vcl_root_of(b);
        b->attached++;
        m->sub_next = r->subs;  /* its maps count against the buffer's (vcl_map_conflict) */
        r->subs = m;
    }
    vcl_register(m, VCL_MEM);
    vcl_trace("image %p: %zux%zux%zu, %zu bytes per pixel, row pitch %zu, slice pitch %zu, %s", (void *)m,
              m->width, m->height, m->depth, elem, m->row_pitch, m->slice_pitch,
              b ? "the pixels of a buffer" : m->zero_copy ? "zero copy" : "device memory");
out:
    vcl_leave();
    if (errcode_ret) *errcode_ret = err;
    return m;
}

cl_mem CL_API_CALL vcl_CreateImage2D(cl_context c, cl_mem_flags f, const cl_image_format *fmt,
                                     size_t w, size_t h, size_t p, void *host, cl_int *err)
{
    cl_image_desc d;
    memset(&d, 0, sizeof d);
    d.image_type = CL_MEM_OBJECT_IMAGE2D;
    d.image_width = w;
    d.image_height = h;
    d.image_row_pitch = p;
    return vcl_CreateImage(c, f, fmt, &d, host, err);
}

cl_mem CL_API_CALL vcl_CreateImage3D(cl_context c, cl_mem_flags f, const cl_image_format *fmt,
                                     size_t w, size_t h, size_t dd, size_t rp, size_t sp,
                                     void *host, cl_int *err)
{
    /* OpenCL 1.1's call wants more than one slice (CL_INVALID_IMAGE_SIZE); clCreateImage
     * takes depth 1. */
    if (dd == 1) {
        vcl_enter();
        cl_int e = vcl_valid(c, VCL_CONTEXT) ? CL_INVALID_IMAGE_SIZE : CL_INVALID_CONTEXT;
        vcl_leave();
        if (err) *err = e;
        return NULL;
    }
    cl_image_desc d;
    memset(&d, 0, sizeof d);
    d.image_type = CL_MEM_OBJECT_IMAGE3D;
    d.image_width = w;
    d.image_height = h;
    d.image_depth = dd;
    d.image_row_pitch = rp;
    d.image_slice_pitch = sp;
    return vcl_CreateImage(c, f, fmt, &d, host, err);
}

/* ---------------------------------------------------------------- commands */

static cl_int check_q_image(cl_command_queue q, cl_mem m)
{
    if (!vcl_valid(q, VCL_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
    if (!is_image(m)) return CL_INVALID_MEM_OBJECT;
    if (m->ctx != q->ctx) return CL_INVALID_CONTEXT;
    return CL_SUCCESS;
}

/* origin/region of an image: nonzero, inside the box, and 0 / 1 in the dimensions its type
 * lacks (1D: y and z; 1D array and 2D: z). */
static cl_int check_region(cl_mem m, const size_t *o, const size_t *r)
{
    if (!o || !r || r[0] == 0 || r[1] == 0 || r[2] == 0) return CL_INVALID_VALUE;
    if (m->type == CL_MEM_OBJECT_IMAGE1D && (o[1] || r[1] != 1)) return CL_INVALID_VALUE;
    if ((m->type == CL_MEM_OBJECT_IMAGE1D || m->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
         m->type == CL_MEM_OBJECT_IMAGE2D) && (o[2] || r[2] != 1))
        return CL_INVALID_VALUE;
    if (vcl_out_of(o[0], r[0], m->width) || vcl_out_of(o[1], r[1], m->height) || vcl_out_of(o[2], r[2], m->depth))
        return CL_INVALID_VALUE;
    return CL_SUCCESS;
}

static size_t pix_off(cl_mem m, const size_t *o) { return o[2] * m->sstep + o[1] * m->rstep + o[0] * m->elem; }

int vcl_image_copy_box(cl_command_queue q, cl_mem m, uint32_t dst, uint32_t src, size_t off, size_t row_bytes,
                       size_t rows, size_t slices)
{
    int rc = VMGPU_OK;
    for (size_t z = 0; z < slices && !rc; z++) {
        uint32_t o = (uint32_t)(off + z * m->sstep);
        rc = vmgpu_cmd_copy_2d(q->s, dst + o, (uint32_t)m->rstep, src + o, (uint32_t)m->rstep, (uint32_t)row_bytes,
                               (uint32_t)rows);
    }
    return rc;
}

static cl_int host_access(cl_mem m, int write)
{
    if (m->flags & (write ? (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)
                          : (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)))
        return CL_INVALID_OPERATION;
    return CL_SUCCESS;
}

static cl_int rw_image(cl_command_queue q, cl_mem m, cl_bool blocking, const size_t *o,
                       const size_t *r, size_t rp, size_t sp, void *ptr, const void *cptr,
                       cl_uint nw, const cl_event *w, cl_event *e, int write)
{
    vcl_enter();
    cl_int rc = check_q_image(q, m);
    if (!rc) rc = check_region(m, o, r);
    if (!rc && !(write ? cptr : ptr)) rc = CL_INVALID_VALUE;
    /* Host layout: rows of rp bytes; slice_pitch spaces the layers of a 1D array and the
     * slices of a 2D array or 3D image, and must be 0 for 1D and 2D images. */
    size_t hr = 0, hs = 0;
    if (!rc) {
        if (rp == 0) rp = r[0] * m->elem;
        int one_d_array = m->type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
        if (sp == 0) sp = has_slice_pitch(m->type) ? (one_d_array ? rp : rp * r[1]) : 0;
        if (rp < r[0] * m->elem || (!has_slice_pitch(m->type) && sp) ||
            (has_slice_pitch(m->type) && sp < (one_d_array ? rp : rp * r[1])))
            rc = CL_INVALID_VALUE;
        hr = one_d_array ? sp : rp;
        hs = one_d_array ? sp * r[1] : sp;
    }
    if (!rc) rc = vcl_check_wait_list(q->ctx, nw, w);
    if (!rc) rc = host_access(m, write);
    if (!rc) {
        vcl_cmd *c = vcl_cmd_new(write ? OP_IMG_WRITE : OP_IMG_READ, m, NULL);
        if (!c) rc = CL_OUT_OF_HOST_MEMORY;
        else {
            c->off[0] = pix_off(m, o);
            c->region[0] = r[0] * m->elem;
            c->region[1] = r[1];
            c->region[2] = r[2];
            c->pitch[2] = hr;
            c->pitch[3] = hs;
            c->ptr = ptr;
            c->cptr = cptr;
            rc = vcl_submit(q, c, write ? CL_COMMAND_WRITE_IMAGE : CL_COMMAND_READ_IMAGE, nw, w, e, blocking);
        }
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_EnqueueReadImage(cl_command_queue q, cl_mem m, cl_bool b, const size_t *o,
                                        const size_t *r, size_t rp, size_t sp, void *p, cl_uint n,
                                        const cl_event *w, cl_event *e)
{
    return rw_image(q, m, b, o, r, rp, sp, p, NULL, n, w, e, 0);
}

cl_int CL_API_CALL vcl_EnqueueWriteImage(cl_command_queue q, cl_mem m, cl_bool b, const size_t *o,
                                         const size_t *r, size_t rp, size_t sp, const void *p,
                                         cl_uint n, const cl_event *w, cl_event *e)
{
    return rw_image(q, m, b, o, r, rp, sp, NULL, p, n, w, e, 1);
}

/* Copies between images and buffers are OP_COPY_RECT: byte origins, row and slice steps
 * per side, one 2D DMA per slice. */
static cl_int submit_copy(cl_command_queue q, cl_mem src, cl_mem dst, size_t soff, size_t srow, size_t sslice,
                          size_t doff, size_t drow, size_t dslice, size_t row_bytes, size_t rows, size_t slices,
                          cl_command_type type, cl_uint nw, const cl_event *w, cl_event *e)
{
    vcl_cmd *c = vcl_cmd_new(OP_COPY_RECT, src, dst);
    if (!c) return CL_OUT_OF_HOST_MEMORY;
    c->o[0][0] = soff;
    c->o[1][0] = doff;
    c->region[0] = row_bytes;
    c->region[1] = rows;
    c->region[2] = slices;
    c->pitch[0] = srow;
    c->pitch[1] = sslice;
    c->pitch[2] = drow;
    c->pitch[3] = dslice;
    return vcl_submit(q, c, type, nw, w, e, 0);
}

cl_int CL_API_CALL vcl_EnqueueCopyImage(cl_command_queue q, cl_mem a, cl_mem b, const size_t *o1,
                                        const size_t *o2, const size_t *r, cl_uint n,
                                        const cl_event *w, cl_event *e)
{
    vcl_enter();
    cl_int rc = check_q_image(q, a);
    if (!rc && !is_image(b)) rc = CL_INVALID_MEM_OBJECT;
    if (!rc && b->ctx != q->ctx) rc = CL_INVALID_CONTEXT;
    if (!rc && (a->fmt.image_channel_order != b->fmt.image_channel_order ||
                a->fmt.image_channel_data_type != b->fmt.image_channel_data_type))
        rc = CL_IMAGE_FORMAT_MISMATCH;
    if (!rc) rc = check_region(a, o1, r);
    if (!rc) rc = check_region(b, o2, r);
    if (!rc) rc = vcl_check_wait_list(q->ctx, n, w);
    if (!rc && a == b && o1[0] < o2[0] + r[0] && o2[0] < o1[0] + r[0] && o1[1] < o2[1] + r[1] &&
        o2[1] < o1[1] + r[1] && o1[2] < o2[2] + r[2] && o2[2] < o1[2] + r[2])
        rc = CL_MEM_COPY_OVERLAP;
    if (!rc)
        rc = submit_copy(q, a, b, pix_off(a, o1), a->rstep, a->sstep, pix_off(b, o2), b->rstep, b->sstep,
                         r[0] * a->elem, r[1], r[2], CL_COMMAND_COPY_IMAGE, n, w, e);
    vcl_leave();
    return rc;
}

static cl_int check_buffer(cl_command_queue q, cl_mem b)
{
    if (!vcl_valid(b, VCL_MEM) || b->type != CL_MEM_OBJECT_BUFFER) return CL_INVALID_MEM_OBJECT;
    if (b->ctx != q->ctx) return CL_INVALID_CONTEXT;
    return CL_SUCCESS;
}

static int misaligned(cl_mem m) { return m->parent && (m->origin % (VCL_BASE_ADDR_ALIGN_BITS / 8)); }

cl_int CL_API_CALL vcl_EnqueueCopyImageToBuffer(cl_command_queue q, cl_mem a, cl_mem b,
                                                const size_t *o, const size_t *r, size_t off,
                                                cl_uint n, const cl_event *w, cl_event *e)
{
    vcl_enter();
    cl_int rc = check_q_image(q, a);
    if (!rc) rc = check_buffer(q, b);
    if (!rc) rc = check_region(a, o, r);
    if (!rc && vcl_out_of(off, r[0] * r[1] * r[2] * a->elem, b->size)) rc = CL_INVALID_VALUE;
    if (!rc) rc = vcl_check_wait_list(q->ctx, n, w);
    if (!rc && misaligned(b)) rc = CL_MISALIGNED_SUB_BUFFER_OFFSET;
    if (!rc)
        rc = submit_copy(q, a, b, pix_off(a, o), a->rstep, a->sstep, off, r[0] * a->elem, r[0] * r[1] * a->elem,
                         r[0] * a->elem, r[1], r[2], CL_COMMAND_COPY_IMAGE_TO_BUFFER, n, w, e);
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_EnqueueCopyBufferToImage(cl_command_queue q, cl_mem a, cl_mem b, size_t off,
                                                const size_t *o, const size_t *r, cl_uint n,
                                                const cl_event *w, cl_event *e)
{
    vcl_enter();
    cl_int rc = vcl_valid(q, VCL_QUEUE) ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
    if (!rc) rc = check_buffer(q, a);
    if (!rc && !is_image(b)) rc = CL_INVALID_MEM_OBJECT;
    if (!rc && b->ctx != q->ctx) rc = CL_INVALID_CONTEXT;
    if (!rc) rc = check_region(b, o, r);
    if (!rc && vcl_out_of(off, r[0] * r[1] * r[2] * b->elem, a->size)) rc = CL_INVALID_VALUE;
    if (!rc) rc = vcl_check_wait_list(q->ctx, n, w);
    if (!rc && misaligned(a)) rc = CL_MISALIGNED_SUB_BUFFER_OFFSET;
    if (!rc)
        rc = submit_copy(q, a, b, off, r[0] * b->elem, r[0] * r[1] * b->elem, pix_off(b, o), b->rstep, b->sstep,
                         r[0] * b->elem, r[1], r[2], CL_COMMAND_COPY_BUFFER_TO_IMAGE, n, w, e);
    vcl_leave();
    return rc;
}

/* fill_color -> one pixel in the image's format (the conversions of write_imagef/i/ui:
 * normalized values clamped and rounded, integers saturated, half rounded to nearest even). */
static uint16_t to_half(float f)
{
    union { float f; uint32_t u; } v = {f};
    uint32_t s = (v.u >> 16) & 0x8000u, e = (v.u >> 23) & 0xffu, mant = v.u & 0x7fffffu;
    if (e == 0xff) return (uint16_t)(s | 0x7c00u | (mant ? 0x200u : 0));
    int ex = (int)e - 127 + 15;
    if (ex >= 31) return (uint16_t)(s | 0x7c00u);
    if (ex <= 0) {
        if (ex < -10) return (uint16_t)s;
        mant |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - ex), h = mant >> shift, rem = mant & ((1u << shift) - 1),
                 half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1))) h++;
        return (uint16_t)(s | h);
    }
    uint32_t h = ((uint32_t)ex << 10) | (mant >> 13), rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++;  /* may carry into the exponent: right */
    return (uint16_t)(s | h);
}

static void make_pixel(const cl_image_format *f, const void *color, uint8_t *px)
{
    const float *cf = color;
    const int32_t *ci = color;
    const uint32_t *cu = color;
    size_t n = nchannels(f->image_channel_order);
    for (size_t i = 0; i < n; i++) {
        float x = cf[i];
        switch (f->image_channel_data_type) {
        case CL_UNORM_INT8: px[i] = (uint8_t)lrintf((x < 0 ? 0 : x > 1 ? 1 : x) * 255.0f); break;
        case CL_UNORM_INT16: {
            uint16_t v = (uint16_t)lrintf((x < 0 ? 0 : x > 1 ? 1 : x) * 65535.0f);
            memcpy(px + 2 * i, &v, 2);
            break;
        }
        case CL_SIGNED_INT8: px[i] = (uint8_t)(int8_t)(ci[i] < -128 ? -128 : ci[i] > 127 ? 127 : ci[i]); break;
        case CL_SIGNED_INT16: {
            int16_t v = (int16_t)(ci[i] < -32768 ? -32768 : ci[i] > 32767 ? 32767 : ci[i]);
            memcpy(px + 2 * i, &v, 2);
            break;
        }
        case CL_UNSIGNED_INT8: px[i] = (uint8_t)(cu[i] > 255 ? 255 : cu[i]); break;
        case CL_UNSIGNED_INT16: {
            uint16_t v = (uint16_t)(cu[i] > 65535 ? 65535 : cu[i]);
            memcpy(px + 2 * i, &v, 2);
            break;
        }
        case CL_HALF_FLOAT: {
            uint16_t v = to_half(x);
            memcpy(px + 2 * i, &v, 2);
            break;
        }
        default: memcpy(px + 4 * i, (const uint8_t *)color + 4 * i, 4); break;  /* 32-bit types */
        }
    }
}

cl_int CL_API_CALL vcl_EnqueueFillImage(cl_command_queue q, cl_mem m, const void *color, const size_t *o,
                                        const size_t *r, cl_uint n, const cl_event *w, cl_event *e)
{
    vcl_enter();
    cl_int rc = check_q_image(q, m);
    if (!rc && !color) rc = CL_INVALID_VALUE;
    if (!rc) rc = check_region(m, o, r);
    if (!rc) rc = vcl_check_wait_list(q->ctx, n, w);
    if (!rc) {
        vcl_cmd *c = vcl_cmd_new(OP_IMG_FILL, m, NULL);
        if (!c) rc = CL_OUT_OF_HOST_MEMORY;
        else {
            make_pixel(&m->fmt, color, c->pattern);
            c->pattern_size = m->elem;
            c->off[0] = pix_off(m, o);
            c->region[0] = r[0] * m->elem;
            c->region[1] = r[1];
            c->region[2] = r[2];
            rc = vcl_submit(q, c, CL_COMMAND_FILL_IMAGE, n, w, e, 0);
        }
    }
    vcl_leave();
    return rc;
}

void *CL_API_CALL vcl_EnqueueMapImage(cl_command_queue q, cl_mem m, cl_bool blocking, cl_map_flags flags,
                                      const size_t *o, const size_t *r, size_t *rp, size_t *sp,
                                      cl_uint nw, const cl_event *w, cl_event *e, cl_int *errcode_ret)
{
    vcl_enter();
    void *ptr = NULL;
    const cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    cl_int rc = check_q_image(q, m);
    if (!rc) rc = check_region(m, o, r);
    if (!rc && (!rp || (!sp && has_slice_pitch(m->type)) || (flags & ~known) ||
                ((flags & CL_MAP_WRITE_INVALIDATE_REGION) && (flags & (CL_MAP_READ | CL_MAP_WRITE)))))
        rc = CL_INVALID_VALUE;
    if (!rc) rc = vcl_check_wait_list(q->ctx, nw, w);
    if (!rc && (((flags & CL_MAP_READ) && host_access(m, 0)) ||
                ((flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) && host_access(m, 1))))
        rc = CL_INVALID_OPERATION;
    if (!rc) {
        vcl_mapping want = {.off = pix_off(m, o), .row_bytes = r[0] * m->elem, .rows = r[1],
                            .slices = r[2], .flags = flags};
        if (vcl_map_conflict(m, &want)) rc = CL_INVALID_OPERATION;
    }
    cl_mem root = vcl_root_of(m);
    if (!rc && !root->zero_copy && vcl_staging_ready(root)) rc = CL_MAP_FAILURE;
    vcl_mapping *x = NULL;
    if (!rc && !(x = calloc(1, sizeof *x))) rc = CL_OUT_OF_HOST_MEMORY;
    if (!rc) {
        size_t off = pix_off(m, o);
        /* The staging copy has the image's layout, so both paths return the image's pitch. */
        ptr = (root->zero_copy ? root->host : root->staging) + m->origin + off;
        x->ptr = ptr;
        x->off = off;
        x->row_bytes = r[0] * m->elem;
        x->rows = r[1];
        x->slices = r[2];
        x->flags = flags;
        x->next = m->maps;
        m->maps = x;
        m->map_count++;
        vcl_cmd *c = vcl_cmd_new(OP_MAP, m, NULL);
        if (!c) rc = CL_OUT_OF_HOST_MEMORY;
        else {
            c->off[0] = off;
            c->region[0] = x->row_bytes;
            c->region[1] = x->rows;
            c->region[2] = x->slices;
            c->map_flags = flags;
            vcl_trace("map image %p origin (%zu,%zu,%zu) region %zux%zux%zu flags 0x%x: %s, row pitch %zu",
                      (void *)m, o[0], o[1], o[2], r[0], r[1], r[2], (unsigned)flags,
                      root->zero_copy ? "zero copy (host memory in place)"
                      : (flags & CL_MAP_WRITE_INVALIDATE_REGION) ? "staging, no read-back (invalidate)"
                                                                 : "staging, 2D DMA device -> host",
                      m->row_pitch);
            rc = vcl_submit(q, c, CL_COMMAND_MAP_IMAGE, nw, w, e, blocking);
        }
        if (rc) {
            m->maps = x->next;
            m->map_count--;
            free(x);
            ptr = NULL;
        } else {
            *rp = m->row_pitch;
            if (sp) *sp = m->slice_pitch;
        }
    }
    vcl_leave();
    if (errcode_ret) *errcode_ret = rc;
    return ptr;
}

/* Runs OP_IMG_READ / WRITE / FILL (called from vcl_run_mem_cmd). */
int vcl_run_image_cmd(cl_command_queue q, vcl_cmd *c, prof *p)
{
    cl_mem m = c->mem[0];
    cl_event e = c->ev;
    uint32_t rs = (uint32_t)m->rstep, w = (uint32_t)c->region[0], h = (uint32_t)c->region[1];
    size_t nz = c->region[2], off = c->off[0];
    int rc = VMGPU_OK;
    /* Storage: the image's own, or its buffer's (1D image buffers) at its origin. */
    cl_mem root = vcl_root_of(m);
    uint32_t va = vcl_mem_va(m);
    if (c->op == OP_IMG_FILL) {
        rc = vcl_dev_begin(q, p);
        if (rc) return rc;
        size_t ps = c->pattern_size;
        int r2 = VMGPU_OK;
        if (ps <= 4) {
            uint32_t pat = 0;
            memcpy(&pat, c->pattern, ps);
            for (size_t z = 0; z < nz && !r2; z++)
                r2 = vmgpu_cmd_fill_2d(q->s, va + (uint32_t)(off + z * m->sstep), rs, w, h, pat, (unsigned)ps);
        } else {
            /* 8- and 16-byte pixels: the first row written by the host, then copied to every
             * other row by 2D DMAs whose source pitch is 0 (the same row again). */
            uint8_t *row = malloc(w);
            if (!row) return VMGPU_ERR_NOMEM;
            for (uint32_t x = 0; x < w; x += (uint32_t)ps) memcpy(row + x, c->pattern, ps);
            r2 = vcl_host_write(q, m, off, row, w);
            free(row);
            for (size_t z = 0; z < nz && !r2; z++) {
                uint32_t first = z ? 0 : 1;  /* slice 0's first row is the source */
                if (h > first)
                    r2 = vmgpu_cmd_copy_2d(q->s, va + (uint32_t)(off + z * m->sstep) + first * rs, rs,
                                           va + (uint32_t)off, 0, w, h - first);
            }
        }
        return vcl_dev_end(q, p, e, r2);
    }
    int write = c->op == OP_IMG_WRITE;
    size_t hr = c->pitch[2], hs = c->pitch[3];
    uint8_t *base = root->zero_copy ? root->host + m->origin : NULL;
    if (!base) {
        /* Device memory: the box goes through the staging copy, one 2D DMA per slice. */
        if (vcl_staging_ready(root)) return VMGPU_ERR_NOMEM;
        base = root->staging + m->origin;
    }
    if (write || root->zero_copy)
        for (size_t z = 0; z < nz; z++)
            for (uint32_t y = 0; y < h; y++) {
                uint8_t *img = base + off + z * m->sstep + (size_t)y * rs;
                if (write) memcpy(img, (const uint8_t *)c->cptr + z * hs + y * hr, w);
                else memcpy((uint8_t *)c->ptr + z * hs + y * hr, img, w);
            }
    if (root->zero_copy) return VMGPU_OK;
    uint32_t staging_va = root->staging_va + (uint32_t)m->origin;  /* staging exists by now */
    rc = vcl_dev_begin(q, p);
    if (rc) return rc;
    rc = vcl_dev_end(q, p, e, write ? vcl_image_copy_box(q, m, va, staging_va, off, w, h, nz)
                                    : vcl_image_copy_box(q, m, staging_va, va, off, w, h, nz));
    for (size_t z = 0; !rc && !write && z < nz; z++)
        for (uint32_t y = 0; y < h; y++)
            memcpy((uint8_t *)c->ptr + z * hs + y * hr, base + off + z * m->sstep + (size_t)y * rs, w);
    return rc;
}

/* ---------------------------------------------------------------- samplers */

cl_sampler CL_API_CALL vcl_CreateSampler(cl_context c, cl_bool norm, cl_addressing_mode a,
                                         cl_filter_mode f, cl_int *err)
{
    vcl_enter();
    cl_int rc = CL_SUCCESS;
    cl_sampler s = NULL;
    if (!vcl_valid(c, VCL_CONTEXT)) rc = CL_INVALID_CONTEXT;
    else if ((norm != CL_TRUE && norm != CL_FALSE) || a < CL_ADDRESS_NONE || a > CL_ADDRESS_MIRRORED_REPEAT ||
             (f != CL_FILTER_NEAREST && f != CL_FILTER_LINEAR))
        rc = CL_INVALID_VALUE;
    else if (!(s = calloc(1, sizeof *s))) rc = CL_OUT_OF_HOST_MEMORY;
    else {
        s->dispatch = &vcl_dispatch;
        s->magic = VCL_SAMPLER;
        s->live = 1;
        s->refs = 1;
        s->ctx = c;
        s->normalized = norm;
        s->addressing = a;
        s->filter = f;
        c->attached++;
        vcl_register(s, VCL_SAMPLER);
    }
    vcl_leave();
    if (err) *err = rc;
    return s;
}

cl_int CL_API_CALL vcl_RetainSampler(cl_sampler s)
{
    vcl_enter();
    cl_int rc = vcl_valid(s, VCL_SAMPLER) ? CL_SUCCESS : CL_INVALID_SAMPLER;
    if (!rc) s->refs++;
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_ReleaseSampler(cl_sampler s)
{
    vcl_enter();
    cl_int rc = vcl_valid(s, VCL_SAMPLER) && s->refs ? CL_SUCCESS : CL_INVALID_SAMPLER;
    if (!rc && --s->refs == 0) {
        s->live = 0;
        vcl_context_release(s->ctx);
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_GetSamplerInfo(cl_sampler s, cl_sampler_info p, size_t sz, void *v, size_t *r)
{
    vcl_enter();
    cl_int rc;
    cl_uint u;
    if (!vcl_valid(s, VCL_SAMPLER)) rc = CL_INVALID_SAMPLER;
    else switch (p) {
    case CL_SAMPLER_REFERENCE_COUNT: u = s->refs; rc = vcl_info_out(&u, sizeof u, sz, v, r); break;
    case CL_SAMPLER_CONTEXT: rc = vcl_info_out(&s->ctx, sizeof s->ctx, sz, v, r); break;
    case CL_SAMPLER_NORMALIZED_COORDS: rc = vcl_info_out(&s->normalized, sizeof s->normalized, sz, v, r); break;
    case CL_SAMPLER_ADDRESSING_MODE: rc = vcl_info_out(&s->addressing, sizeof s->addressing, sz, v, r); break;
    case CL_SAMPLER_FILTER_MODE: rc = vcl_info_out(&s->filter, sizeof s->filter, sz, v, r); break;
    default: rc = CL_INVALID_VALUE;
    }
    vcl_leave();
    return rc;
}
