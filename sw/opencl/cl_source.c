/*
 * Programs compiled from OpenCL C and their kernels on the SIMT unit: build, compile, link,
 * binaries, loading into the context, kernel arguments and the NDRange launch. The tool chain
 * itself is cl_compile.c; the entry points that also serve built-in kernels are cl_program.c.
 *
 * A loaded program: its executable's pages at a VA of the context (code and read-only data
 * mapped readable, writable data read-write), then one argument page, readable by kernels,
 * that every launch of the program's kernels rewrites: struct vmgpu_launch (the trampoline to
 * call, work_dim, global offset and size, number of groups, first group id) and the kernel's
 * argument struct at VCC_ARGS_OFFSET. Launches of a queue run one at a time, each waited for,
 * so one argument page per program is enough.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cl_internal.h"
#include "vmgpu/regs.h"

#define BIN_MAGIC "VMGPUCL"
#define BIN_VERSION 1u
#define BIN_HEADER 24u
#define MAX_GRID 65535u


int vcl_compiler_available(char *why, size_t n)
{
    if (vcl_dev_ready() != CL_SUCCESS || !vcl_info.simt_lanes) {
        if (why) snprintf(why, n, "no OpenCL C compiler for this device: it has no SIMT compute unit, so OpenCL C cannot run on it");
        return 0;
    }
    return vcc_tools(why, n);
}

static void set_log(cl_program p, char *log)
{
    free(p->log_owned);
    p->log_owned = log;
    p->log = log ? log : "";
}

/* Units the work-group may have: the unit's threads (lanes x warps), at most 1023 per dim. */
static uint32_t unit_threads(void) { return vcl_info.simt_lanes * vcl_info.simt_warps; }

/* ----------------------------------------------------------------- loading */

void vcl_src_unload(cl_program p)
{
    if (p->loaded) {
        vmgpu_ctx *c = p->ctx->core;
        vmgpu_unmap(c, p->va, p->va_bytes);
        vmgpu_va_free(c, p->va);
        vmgpu_phys_free(vcl_dev, p->pa);
        p->loaded = 0;
    }
    free(p->elf.p);
    free(p->img.bytes);
    memset(&p->elf, 0, sizeof p->elf);
    memset(&p->img, 0, sizeof p->img);
}

static int map_run(vmgpu_ctx *c, uint32_t va, uint32_t pa, uint32_t bytes, unsigned flags)
{
    return bytes ? vmgpu_map(c, va, pa, bytes, flags) : VMGPU_OK;
}

/* Links p->obj at a fresh VA of the context and writes it there. 0, or -1 with *log. */
static int program_load(cl_program p, char **log)
{
    vcc_blob elf;
    vcc_image img;
    if (vcc_link(&p->obj, 1, 0, VCC_NOMINAL_BASE, &elf, &img, log)) return -1;
    char *why = NULL;
    if (img.shared_bytes > vcl_info.simt_shared_bytes &&
        asprintf(&why, "vmgpu: the program's __local variables take %u bytes; the unit has %u\n", img.shared_bytes,
                 vcl_info.simt_shared_bytes) > 0) {
        free(elf.p);
        free(img.bytes);
        free(*log);
        *log = why;
        return -1;
    }
    uint32_t size = img.end - img.base, bytes = size + VMGPU_PAGE_SIZE, va = 0, pa = 0;
    vmgpu_ctx *c = p->ctx->core;
    int rc = vmgpu_va_reserve(c, bytes, VMGPU_PAGE_SIZE, 0, &va);
    if (!rc && va != VCC_NOMINAL_BASE) {
        free(elf.p);
        free(img.bytes);
        free(*log);
        if (vcc_link(&p->obj, 1, 0, va, &elf, &img, log) || img.end - img.base != size) {
            vmgpu_va_free(c, va);
            return -1;
        }
    }
    if (!rc) rc = vmgpu_phys_alloc(vcl_dev, bytes, VMGPU_PAGE_SIZE, &pa);
    uint8_t *zero = rc ? NULL : calloc(1, bytes);
    if (!rc && !zero) rc = VMGPU_ERR_NOMEM;
    if (!rc) rc = vmgpu_phys_write(vcl_dev, pa, zero, bytes);
    if (!rc) rc = vmgpu_phys_write(vcl_dev, pa, img.bytes, size);
    free(zero);
    uint32_t ro = img.rw_begin - img.base;
    if (!rc) rc = map_run(c, va, pa, ro, VMGPU_MAP_READ);
    if (!rc) rc = map_run(c, va + ro, pa + ro, size - ro, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    if (!rc) rc = map_run(c, va + size, pa + size, VMGPU_PAGE_SIZE, VMGPU_MAP_READ);
    if (rc) {
        if (asprintf(&why, "%svmgpu: loading the program failed: %s (%s)\n", *log ? *log : "",
                     vmgpu_status_name(rc), vmgpu_dev_last_error(vcl_dev)) > 0) {
            free(*log);
            *log = why;
        }
        if (va) {
            vmgpu_unmap(c, va, ro);
            vmgpu_unmap(c, va + ro, size - ro);
            vmgpu_va_free(c, va);
        }
        if (pa) vmgpu_phys_free(vcl_dev, pa);
        free(elf.p);
        free(img.bytes);
        return -1;
    }
    p->elf = elf;
    p->img = img;
    p->va = va;
    p->va_bytes = bytes;
    p->pa = pa;
    p->args_va = va + size;
    p->args_pa = pa + size;
    p->loaded = 1;
    vcl_trace("program loaded at va 0x%08x: %u bytes of code and data (%u read-only), %u bytes __local, args at 0x%08x",
              va, size, ro, img.shared_bytes, p->args_va);
    return 0;
}

static char *kernel_names(const vcc_meta *m)
{
    size_t n = 1;
    for (unsigned i = 0; i < m->nkernels; i++) n += strlen(m->k[i].name) + 1;
    char *s = calloc(1, n);
    for (unsigned i = 0; s && i < m->nkernels; i++) {
        if (i) strcat(s, ";");
        strcat(s, m->k[i].name);
    }
    return s;
}

/* Links and loads what p holds; status and log follow. */
static cl_int program_finish(cl_program p, cl_int fail)
{
    char *log = NULL;
    if (program_load(p, &log)) {
        char *prev = p->log_owned && *p->log_owned ? strdup(p->log_owned) : NULL;
        if (prev) {
            char *both = NULL;
            if (asprintf(&both, "%s%s", prev, log ? log : "") > 0) {
                free(log);
                log = both;
            }
            free(prev);
        }
        set_log(p, log);
        p->status = CL_BUILD_ERROR;
        return fail;
    }
    if (log && *log) {
        char *both = NULL;
        if (asprintf(&both, "%s%s", p->log_owned ? p->log_owned : "", log) > 0) set_log(p, both);
        free(log);
    } else {
        free(log);
    }
    free(p->kernel_names);
    p->kernel_names = kernel_names(&p->meta);
    p->btype = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
    p->status = CL_BUILD_SUCCESS;
    return CL_SUCCESS;
}

static void program_reset(cl_program p)
{
    vcl_src_unload(p);
    if (!p->from_binary) {
        free(p->obj.p);
        memset(&p->obj, 0, sizeof p->obj);
        vcc_meta_free(&p->meta);
        p->btype = CL_PROGRAM_BINARY_TYPE_NONE;
    }
}

/* clBuildProgram of a source or binary program (arguments checked by the caller). */
cl_int vcl_src_build(cl_program p, const char *opts)
{
    char why[256];
    if (!vcl_compiler_available(why, sizeof why)) {
        set_log(p, strdup(why));
        p->status = CL_BUILD_ERROR;
        return p->source ? CL_COMPILER_NOT_AVAILABLE : CL_BUILD_PROGRAM_FAILURE;
    }
    program_reset(p);
    p->status = CL_BUILD_IN_PROGRESS;
    if (p->source) {
        char *log = NULL;
        int rc = vcc_compile(p->source, opts, 0, NULL, NULL, &p->obj, &p->meta, &log);
        set_log(p, log);
        if (rc) {
            p->status = CL_BUILD_ERROR;
            return CL_BUILD_PROGRAM_FAILURE;
        }
    } else {
        set_log(p, NULL);
    }
    return program_finish(p, CL_BUILD_PROGRAM_FAILURE);
}

/* clCompileProgram: headers are programs made from source, named as #include sees them. */
cl_int vcl_src_compile(cl_program p, const char *opts, cl_uint nh, const cl_program *hdrs, const char **names)
{
    char why[256];
    if (!vcl_compiler_available(why, sizeof why)) {
        set_log(p, strdup(why));
        p->status = CL_BUILD_ERROR;
        return CL_COMPILER_NOT_AVAILABLE;
    }
    const char **src = calloc(nh ? nh : 1, sizeof *src);
    if (!src) return CL_OUT_OF_HOST_MEMORY;
    for (cl_uint i = 0; i < nh; i++) src[i] = hdrs[i]->source;
    program_reset(p);
    char *log = NULL;
    int rc = vcc_compile(p->source, opts, nh, src, names, &p->obj, &p->meta, &log);
    free(src);
    set_log(p, log);
    if (rc) {
        p->status = CL_BUILD_ERROR;
        return CL_COMPILE_PROGRAM_FAILURE;
    }
    p->btype = CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
    p->status = CL_BUILD_SUCCESS;
    return CL_SUCCESS;
}

/* clLinkProgram into out (a new program of the context). */
cl_int vcl_src_link(cl_program out, const char *opts, cl_uint np, const cl_program *ps, int create_library)
{
    (void)opts;
    vcc_blob *objs = calloc(np, sizeof *objs);
    if (!objs) return CL_OUT_OF_HOST_MEMORY;
    int info = 1;
    for (cl_uint i = 0; i < np; i++) {
        objs[i] = ps[i]->obj;
        info &= ps[i]->meta.arg_info;
        if (vcc_meta_merge(&out->meta, &ps[i]->meta)) {
            char *log = NULL;
            if (asprintf(&log, "vmgpu: a kernel of program %u is defined twice\n", i) < 0) log = NULL;
            set_log(out, log);
            free(objs);
            out->status = CL_BUILD_ERROR;
            return CL_LINK_PROGRAM_FAILURE;
        }
    }
    out->meta.arg_info = info;
    char *log = NULL;
    int rc = vcc_link(objs, np, 1, 0, &out->obj, NULL, &log);
    free(objs);
    set_log(out, log);
    if (rc) {
        out->status = CL_BUILD_ERROR;
        return CL_LINK_PROGRAM_FAILURE;
    }
    if (create_library) {
        out->btype = CL_PROGRAM_BINARY_TYPE_LIBRARY;
        out->status = CL_BUILD_SUCCESS;
        return CL_SUCCESS;
    }
    return program_finish(out, CL_LINK_PROGRAM_FAILURE);
}

void vcl_src_free(cl_program p)
{
    vcl_src_unload(p);
    free(p->obj.p);
    memset(&p->obj, 0, sizeof p->obj);
    vcc_meta_free(&p->meta);
    free(p->log_owned);
    p->log_owned = NULL;
    p->log = "";
}

/* ---------------------------------------------------------------- binaries */

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static uint32_t get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* The program's binary (malloc'd), NULL with *n = 0 when it has none. */
uint8_t *vcl_src_binary(cl_program p, size_t *n)
{
    *n = 0;
    if (p->btype == CL_PROGRAM_BINARY_TYPE_NONE || !p->obj.p) return NULL;
    char *meta = vcc_meta_text(&p->meta);
    size_t ml = strlen(meta);
    uint8_t *b = malloc(BIN_HEADER + ml + p->obj.n);
    if (b) {
        memcpy(b, BIN_MAGIC, 8);
        put32(b + 8, BIN_VERSION);
        put32(b + 12, (uint32_t)p->btype);
        put32(b + 16, (uint32_t)ml);
        put32(b + 20, (uint32_t)p->obj.n);
        memcpy(b + BIN_HEADER, meta, ml);
        memcpy(b + BIN_HEADER + ml, p->obj.p, p->obj.n);
        *n = BIN_HEADER + ml + p->obj.n;
    }
    free(meta);
    return b;
}

/* Reads a binary into p (obj, meta, btype). 0, or -1: not one of ours. */
int vcl_src_from_binary(cl_program p, const uint8_t *b, size_t n)
{
    if (n < BIN_HEADER || memcmp(b, BIN_MAGIC, 8) || get32(b + 8) != BIN_VERSION) return -1;
    uint32_t type = get32(b + 12), ml = get32(b + 16), ol = get32(b + 20);
    if (type != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT && type != CL_PROGRAM_BINARY_TYPE_LIBRARY &&
        type != CL_PROGRAM_BINARY_TYPE_EXECUTABLE)
        return -1;
    if ((uint64_t)BIN_HEADER + ml + ol != n) return -1;
    vcc_blob obj = {(uint8_t *)(uintptr_t)(b + BIN_HEADER + ml), ol};
    if (!vcc_is_object(&obj)) return -1;
    char *text = strndup((const char *)b + BIN_HEADER, ml);
    vcc_meta m;
    int bad = !text || strlen(text) != ml || vcc_meta_parse(text, &m);
    free(text);
    if (bad) return -1;
    p->obj.p = malloc(ol);
    if (!p->obj.p) {
        vcc_meta_free(&m);
        return -1;
    }
    memcpy(p->obj.p, obj.p, ol);
    p->obj.n = ol;
    p->meta = m;
    p->btype = type;
    p->from_binary = 1;
    return 0;
}

/* ------------------------------------------------------------------ kernels */

const vcc_kernel *vcl_src_find(cl_program p, const char *name)
{
    for (unsigned i = 0; i < p->meta.nkernels; i++)
        if (strcmp(p->meta.k[i].name, name) == 0) return &p->meta.k[i];
    return NULL;
}

int vcl_src_kernel_init(cl_kernel k, const vcc_kernel *m)
{
    k->meta = m;
    k->name = m->name;
    k->pargs = calloc(m->nargs ? m->nargs : 1, sizeof *k->pargs);
    k->argbuf = calloc(1, m->args_bytes ? m->args_bytes : 1);
    return k->pargs && k->argbuf ? 0 : -1;
}

void vcl_src_kernel_free(cl_kernel k)
{
    for (unsigned i = 0; k->pargs && i < k->meta->nargs; i++)
        if (k->pargs[i].mem) vcl_mem_release_internal(k->pargs[i].mem);
    free(k->pargs);
    free(k->argbuf);
    k->pargs = NULL;
    k->argbuf = NULL;
}

cl_int vcl_src_set_arg(cl_kernel k, cl_uint i, size_t size, const void *value)
{
    const vcc_kernel *m = k->meta;
    if (i >= m->nargs) return CL_INVALID_ARG_INDEX;
    const vcc_arg *a = &m->args[i];
    vcl_parg *pa = &k->pargs[i];
    if (a->as == VCC_AS_LOCAL) {
        if (value) return CL_INVALID_ARG_VALUE;
        if (size == 0 || size > 0xffffffffu) return CL_INVALID_ARG_SIZE;
        if (pa->mem) vcl_mem_release_internal(pa->mem);
        pa->mem = NULL;
        pa->local_bytes = (uint32_t)size;
        pa->set = 1;
        return CL_SUCCESS;
    }
    if (a->as == VCC_AS_GLOBAL || a->as == VCC_AS_CONSTANT) {
        if (size != sizeof(cl_mem)) return CL_INVALID_ARG_SIZE;
        cl_mem mem = value ? *(const cl_mem *)value : NULL;
        if (mem && (!vcl_valid(mem, VCL_MEM) || mem->type != CL_MEM_OBJECT_BUFFER || mem->ctx != k->prog->ctx))
            return CL_INVALID_MEM_OBJECT;
        if (mem) vcl_mem_retain_internal(mem);
        if (pa->mem) vcl_mem_release_internal(pa->mem);
        pa->mem = mem;
        pa->set = 1;
        return CL_SUCCESS;
    }
    if (size != a->size) return CL_INVALID_ARG_SIZE;
    if (!value) return CL_INVALID_ARG_VALUE;
    memcpy(k->argbuf + a->offset, value, size);
    pa->set = 1;
    return CL_SUCCESS;
}

/* Where a __local argument starts: aligned to 128 bytes, the size of the largest built-in type
 * (long16), so that a pointer to any type is aligned to its size, as OpenCL C requires (CTS
 * basic kernel_memory_alignment_local checks it for every type up to long16). */
#define VCL_LOCAL_ALIGN 128u
static uint32_t local_align(uint32_t n) { return (n + VCL_LOCAL_ALIGN - 1) & ~(VCL_LOCAL_ALIGN - 1); }

static uint32_t local_args_bytes(cl_kernel k)
{
    uint32_t n = 0;
    for (unsigned i = 0; i < k->meta->nargs; i++)
        if (k->meta->args[i].as == VCC_AS_LOCAL) n = local_align(n) + k->pargs[i].local_bytes;
    return n;
}

static uint32_t static_local(cl_kernel k) { return local_align(k->prog->img.shared_bytes); }

static uint32_t kernel_wg_max(cl_kernel k)
{
    const uint32_t *r = k->meta->reqd;
    if (r[0]) return r[0] * r[1] * r[2];
    return unit_threads();
}

cl_int vcl_src_kernel_info(cl_kernel k, cl_kernel_info p, size_t size, void *value, size_t *ret)
{
    cl_uint u;
    char attr[96] = "";
    switch (p) {
    case CL_KERNEL_NUM_ARGS: u = k->meta->nargs; return vcl_info_out(&u, sizeof u, size, value, ret);
    case CL_KERNEL_ATTRIBUTES:
        if (k->meta->reqd[0])
            snprintf(attr, sizeof attr, "reqd_work_group_size(%u,%u,%u)", k->meta->reqd[0], k->meta->reqd[1],
                     k->meta->reqd[2]);
        return vcl_info_out(attr, strlen(attr) + 1, size, value, ret);
    default: return CL_INVALID_VALUE;
    }
}

cl_int vcl_src_wg_info(cl_kernel k, cl_kernel_work_group_info p, size_t size, void *value, size_t *ret)
{
    size_t z, z3[3];
    cl_ulong ul;
    switch (p) {
    case CL_KERNEL_WORK_GROUP_SIZE: z = kernel_wg_max(k); return vcl_info_out(&z, sizeof z, size, value, ret);
    case CL_KERNEL_COMPILE_WORK_GROUP_SIZE:
        for (int d = 0; d < 3; d++) z3[d] = k->meta->reqd[d];
        return vcl_info_out(z3, sizeof z3, size, value, ret);
    case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
        z = vcl_info.simt_lanes;
        return vcl_info_out(&z, sizeof z, size, value, ret);
    case CL_KERNEL_LOCAL_MEM_SIZE:
        ul = static_local(k) + local_args_bytes(k);
        return vcl_info_out(&ul, sizeof ul, size, value, ret);
    case CL_KERNEL_PRIVATE_MEM_SIZE: {
        char sym[300];
        snprintf(sym, sizeof sym, "__vmgpu_tramp_%s", k->name);
        ul = vcc_stack_size(&k->prog->elf, vcc_symbol(&k->prog->elf, sym)) +
             vcc_stack_size(&k->prog->elf, vcc_symbol(&k->prog->elf, k->name));
        return vcl_info_out(&ul, sizeof ul, size, value, ret);
    }
    default: return CL_INVALID_VALUE;  /* GLOBAL_WORK_SIZE: built-in kernels and custom devices only */
    }
}

cl_int vcl_src_arg_info(cl_kernel k, cl_uint i, cl_kernel_arg_info p, size_t size, void *value, size_t *ret)
{
    if (i >= k->meta->nargs) return CL_INVALID_ARG_INDEX;
    if (!k->prog->meta.arg_info) return CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
    const vcc_arg *a = &k->meta->args[i];
    cl_uint u;
    cl_bitfield bf;
    static const cl_uint as_q[4] = {CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ADDRESS_GLOBAL,
                                    CL_KERNEL_ARG_ADDRESS_CONSTANT, CL_KERNEL_ARG_ADDRESS_LOCAL};
    static const cl_uint acc_q[4] = {CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_ACCESS_READ_ONLY,
                                     CL_KERNEL_ARG_ACCESS_WRITE_ONLY, CL_KERNEL_ARG_ACCESS_READ_WRITE};
    switch (p) {
    case CL_KERNEL_ARG_ADDRESS_QUALIFIER: u = as_q[a->as & 3]; return vcl_info_out(&u, sizeof u, size, value, ret);
    case CL_KERNEL_ARG_ACCESS_QUALIFIER: u = acc_q[a->access & 3]; return vcl_info_out(&u, sizeof u, size, value, ret);
    case CL_KERNEL_ARG_TYPE_NAME: return vcl_info_out(a->type, strlen(a->type) + 1, size, value, ret);
    case CL_KERNEL_ARG_TYPE_QUALIFIER:
        bf = a->qual;
        /* 1.2: const for __constant pointers too */
        if (a->as == VCC_AS_CONSTANT) bf |= CL_KERNEL_ARG_TYPE_CONST;
        return vcl_info_out(&bf, sizeof bf, size, value, ret);
    case CL_KERNEL_ARG_NAME: return vcl_info_out(a->name, strlen(a->name) + 1, size, value, ret);
    default: return CL_INVALID_VALUE;
    }
}

/* ------------------------------------------------------------------ launch */

static uint32_t largest_divisor(uint64_t g, uint32_t limit)
{
    for (uint32_t l = limit; l > 1; l--)
        if (g % l == 0) return l;
    return 1;
}

cl_int vcl_src_enqueue(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *goff, const size_t *gsize,
                       const size_t *lsize, cl_uint nw, const cl_event *w, cl_event *e)
{
    const vcc_kernel *m = k->meta;
    if (!k->prog->loaded) return CL_INVALID_PROGRAM_EXECUTABLE;
    if (dim < 1 || dim > 3) return CL_INVALID_WORK_DIMENSION;
    if (!gsize) return CL_INVALID_GLOBAL_WORK_SIZE;
    for (unsigned i = 0; i < m->nargs; i++)
        if (!k->pargs[i].set) return CL_INVALID_KERNEL_ARGS;
    uint32_t g[3] = {1, 1, 1}, o[3] = {0, 0, 0}, l[3] = {1, 1, 1};
    uint32_t maxwg = unit_threads(), item_max = maxwg < 1023 ? maxwg : 1023;
    for (cl_uint d = 0; d < dim; d++) {
        /* size_t on the device is 32 bits: sizes and offsets must fit it */
        if (gsize[d] == 0 || gsize[d] > 0xffffffffu) return CL_INVALID_GLOBAL_WORK_SIZE;
        if (goff && (goff[d] > 0xffffffffu || goff[d] + gsize[d] > 0x100000000ull)) return CL_INVALID_GLOBAL_OFFSET;
        g[d] = (uint32_t)gsize[d];
        o[d] = goff ? (uint32_t)goff[d] : 0;
    }
    if (lsize) {
        uint64_t wg = 1;
        for (cl_uint d = 0; d < dim; d++) {
            if (lsize[d] == 0 || gsize[d] % lsize[d]) return CL_INVALID_WORK_GROUP_SIZE;
            if (lsize[d] > item_max) return CL_INVALID_WORK_ITEM_SIZE;
            if (m->reqd[0] && lsize[d] != m->reqd[d]) return CL_INVALID_WORK_GROUP_SIZE;
            l[d] = (uint32_t)lsize[d];
            wg *= lsize[d];
        }
        if (m->reqd[0] && dim < 3)
            for (cl_uint d = dim; d < 3; d++)
                if (m->reqd[d] != 1) return CL_INVALID_WORK_GROUP_SIZE;
        if (wg > kernel_wg_max(k)) return CL_INVALID_WORK_GROUP_SIZE;
    } else if (m->reqd[0]) {
        return CL_INVALID_WORK_GROUP_SIZE;  /* 1.2: a required size must be given */
    } else {
        uint32_t budget = maxwg;
        for (cl_uint d = 0; d < dim; d++) {
            uint32_t lim = budget < item_max ? budget : item_max;
            l[d] = largest_divisor(g[d], lim);
            budget /= l[d];
        }
    }
    uint32_t shared = static_local(k) + local_args_bytes(k);
    if (shared > vcl_info.simt_shared_bytes) return CL_OUT_OF_RESOURCES;
    cl_int rc = vcl_check_wait_list(q->ctx, nw, w);
    if (rc) return rc;
    vcl_cmd *c = calloc(1, sizeof *c);
    if (!c) return CL_OUT_OF_HOST_MEMORY;
    c->kblock_n = m->args_bytes;
    c->kblock = malloc(m->args_bytes ? m->args_bytes : 1);
    c->kmems = calloc(m->nargs ? m->nargs : 1, sizeof *c->kmems);
    if (!c->kblock || !c->kmems) {
        free(c->kblock);
        free(c->kmems);
        free(c);
        return CL_OUT_OF_HOST_MEMORY;
    }
    memcpy(c->kblock, k->argbuf, m->args_bytes);
    uint32_t local_at = VMGPU_SIMT_SHARED_BASE + static_local(k);
    for (unsigned i = 0; i < m->nargs; i++) {
        const vcc_arg *a = &m->args[i];
        uint32_t v;
        if (a->as == VCC_AS_LOCAL) {
            v = local_at;
            local_at = local_align(local_at + k->pargs[i].local_bytes);
        } else if (a->as == VCC_AS_GLOBAL || a->as == VCC_AS_CONSTANT) {
            cl_mem mem = k->pargs[i].mem;
            v = mem ? vcl_mem_kva(mem) : 0;
            if (mem) {
                vcl_mem_retain_internal(mem);
                c->kmems[c->nkmems++] = mem;
            }
        } else {
            continue;
        }
        memcpy(c->kblock + a->offset, &v, 4);
    }
    c->op = OP_KERNEL;
    c->kernel = k;
    k->refs++;
    c->dim = dim;
    c->shared = shared;
    for (int d = 0; d < 3; d++) {
        c->gsize[d] = g[d];
        c->goff[d] = o[d];
        c->lsize[d] = l[d];
    }
    return vcl_submit(q, c, CL_COMMAND_NDRANGE_KERNEL, nw, w, e, 0);
}

/* One launch of the unit per chunk of at most 65535 groups per dimension. */
cl_int vcl_src_run(cl_command_queue q, vcl_cmd *c)
{
    cl_event e = c->ev;
    cl_program p = c->kernel->prog;
    char sym[300];
    snprintf(sym, sizeof sym, "__vmgpu_tramp_%s", c->kernel->name);
    uint32_t tramp = vcc_symbol(&p->elf, sym);
    uint32_t groups[3];
    for (int d = 0; d < 3; d++) groups[d] = c->gsize[d] / c->lsize[d];
    e->t[2] = vcl_q_now(q);
    vcl_trace("kernel %s: NDRange %u x %u x %u (offset %u %u %u) in groups of %u x %u x %u, %u bytes __local, "
              "args at va 0x%08x",
              c->kernel->name, c->gsize[0], c->gsize[1], c->gsize[2], c->goff[0], c->goff[1], c->goff[2], c->lsize[0],
              c->lsize[1], c->lsize[2], c->shared, p->args_va);
    uint8_t *block = malloc(VCC_ARGS_OFFSET + c->kblock_n);
    if (!block) return CL_OUT_OF_HOST_MEMORY;
    memset(block, 0, VCC_ARGS_OFFSET);
    memcpy(block + VCC_ARGS_OFFSET, c->kblock, c->kblock_n);
    uint32_t hdr[14] = {tramp, c->dim, c->goff[0], c->goff[1], c->goff[2], c->gsize[0], c->gsize[1], c->gsize[2],
                        groups[0], groups[1], groups[2], 0, 0, 0};
    vmgpu_event *a = NULL, *b = NULL;
    int prof = (q->props & CL_QUEUE_PROFILING_ENABLE) != 0;
    int rc = prof ? vmgpu_event_create(vcl_dev, &a) : VMGPU_OK;
    if (!rc && prof) rc = vmgpu_event_record(a, q->s);
    for (uint32_t z = 0; !rc && z < groups[2]; z += MAX_GRID)
        for (uint32_t y = 0; !rc && y < groups[1]; y += MAX_GRID)
            for (uint32_t x = 0; !rc && x < groups[0]; x += MAX_GRID) {
                uint32_t grid[3] = {groups[0] - x < MAX_GRID ? groups[0] - x : MAX_GRID,
                                    groups[1] - y < MAX_GRID ? groups[1] - y : MAX_GRID,
                                    groups[2] - z < MAX_GRID ? groups[2] - z : MAX_GRID};
                hdr[11] = x;
                hdr[12] = y;
                hdr[13] = z;
                memcpy(block, hdr, sizeof hdr);
                /* the previous chunk has ended (waited for below) before its block is rewritten */
                rc = vmgpu_phys_write(vcl_dev, p->args_pa, block, VCC_ARGS_OFFSET + c->kblock_n);
                if (!rc) rc = vmgpu_cmd_launch_prog(q->s, p->img.entry, p->args_va, grid, c->lsize, c->shared);
                int last = x + MAX_GRID >= groups[0] && y + MAX_GRID >= groups[1] && z + MAX_GRID >= groups[2];
                if (!rc && !(last && prof)) rc = vmgpu_stream_sync(q->s);
            }
    free(block);
    if (!rc && prof) {
        rc = vmgpu_event_create(vcl_dev, &b);
        if (!rc) rc = vmgpu_event_record(b, q->s);
        if (!rc) rc = vmgpu_event_wait(b);
        uint64_t x, y;
        if (!rc && !vmgpu_event_cycles(a, &x) && !vmgpu_event_cycles(b, &y)) {
            e->t[2] = vcl_cycles_ns(x);
            e->t[3] = vcl_cycles_ns(y);
        }
    }
    vmgpu_event_destroy(a);
    vmgpu_event_destroy(b);
    return vcl_core_err(q, rc);
}
