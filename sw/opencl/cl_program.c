/*
 * Programs and kernels. Two kinds: the compute engine's six built-in int32 kernels
 * (sw/include/vmgpu_builtin.h), reached with clCreateProgramWithBuiltInKernels, and programs
 * in OpenCL C compiled with clang for the SIMT unit (cl_source.c, cl_compile.c), which these
 * entry points hand on to once the arguments are checked. Without the unit or without clang
 * and ld.lld, clBuildProgram on source answers CL_COMPILER_NOT_AVAILABLE.
 *
 * Kernel arguments (every built-in kernel takes the same five):
 *   0 dst  cl_mem (arg_size sizeof(cl_mem)); 1 a  cl_mem; 2 b  cl_mem  (NULL allowed when the
 *     kernel does not use it)
 *   3 n    cl_int, elements (>= 0)
 *   4 scalar cl_int
 * The NDRange must hold at least n work-items (one element per work-item, as an OpenCL C
 * kernel would); the engine itself walks the n elements.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "cl_internal.h"
#include "vmgpu/regs.h"
#include "vmgpu_builtin.h"

static const struct {
    const char *name;
    unsigned kernel;
    unsigned uses;  /* bit i: argument i is read by the kernel */
} k_kernels[] = {
    {VMGPU_BUILTIN_FILL_I32, VMGPU_KERNEL_FILL, 0x19},
    {VMGPU_BUILTIN_COPY_I32, VMGPU_KERNEL_COPY, 0x0b},
    {VMGPU_BUILTIN_ADD_I32, VMGPU_KERNEL_ADD, 0x0f},
    {VMGPU_BUILTIN_SCALE_I32, VMGPU_KERNEL_SCALE, 0x1b},
    {VMGPU_BUILTIN_AXPY_I32, VMGPU_KERNEL_AXPY, 0x1f},
    {VMGPU_BUILTIN_REDUCE_SUM_I32, VMGPU_KERNEL_REDUCE_SUM, 0x0b},
};
#define NKERNELS (sizeof k_kernels / sizeof k_kernels[0])

static int builtin_index(const char *name, size_t len)
{
    for (size_t i = 0; i < NKERNELS; i++)
        if (strlen(k_kernels[i].name) == len && strncmp(k_kernels[i].name, name, len) == 0)
            return (int)i;
    return -1;
}

static cl_int check_devices(cl_uint n, const cl_device_id *d)
{
    if ((n == 0) != (d == NULL)) return CL_INVALID_VALUE;
    for (cl_uint i = 0; i < n; i++)
        if (!vcl_valid_device(d[i])) return CL_INVALID_DEVICE;
    return CL_SUCCESS;
}

static cl_program program_new(cl_context c)
{
    cl_program p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->dispatch = &vcl_dispatch;
    p->magic = VCL_PROGRAM;
    p->live = 1;
    p->refs = 1;
    p->ctx = c;
    p->status = CL_BUILD_NONE;
    p->log = "";
    c->attached++;
    vcl_register(p, VCL_PROGRAM);
    return p;
}

cl_program CL_API_CALL vcl_CreateProgramWithSource(cl_context c, cl_uint n, const char **strs,
                                                   const size_t *lens, cl_int *errcode_ret)
{
    vcl_enter();
    cl_int err = CL_SUCCESS;
    cl_program p = NULL;
    size_t total = 0;
    if (!vcl_valid(c, VCL_CONTEXT)) err = CL_INVALID_CONTEXT;
    else if (n == 0 || !strs) err = CL_INVALID_VALUE;
    for (cl_uint i = 0; !err && i < n; i++) {
        if (!strs[i]) err = CL_INVALID_VALUE;
        else total += lens && lens[i] ? lens[i] : strlen(strs[i]);
    }
    char *src = err ? NULL : malloc(total + 1);
    if (!err && !src) err = CL_OUT_OF_HOST_MEMORY;
    if (!err) {
        size_t at = 0;
        for (cl_uint i = 0; i < n; i++) {
            size_t l = lens && lens[i] ? lens[i] : strlen(strs[i]);
            memcpy(src + at, strs[i], l);
            at += l;
        }
        src[at] = 0;
        if (!(p = program_new(c))) {
            free(src);
            err = CL_OUT_OF_HOST_MEMORY;
        } else {
            p->source = src;
        }
    }
    vcl_leave();
    if (errcode_ret) *errcode_ret = err;
    return p;
}

cl_program CL_API_CALL vcl_CreateProgramWithBinary(cl_context c, cl_uint n, const cl_device_id *d,
                                                   const size_t *lens, const unsigned char **bins,
                                                   cl_int *status, cl_int *errcode_ret)
{
    vcl_enter();
    cl_int err = CL_SUCCESS;
    if (!vcl_valid(c, VCL_CONTEXT)) err = CL_INVALID_CONTEXT;
    else if (!d || n == 0 || !lens || !bins) err = CL_INVALID_VALUE;
    else if ((err = check_devices(n, d))) {}
    else {
        for (cl_uint i = 0; !err && i < n; i++)
            if (!lens[i] || !bins[i]) err = CL_INVALID_VALUE;
    }
    cl_program p = NULL;
    if (!err) {
        /* Our format (cl_source.c): a header, the kernels' metadata, a relocatable object. */
        p = program_new(c);
        if (!p) err = CL_OUT_OF_HOST_MEMORY;
        for (cl_uint i = 0; p && i < n; i++) {
            cl_int st = CL_SUCCESS;
            if (i == 0 && vcl_src_from_binary(p, bins[i], lens[i])) st = CL_INVALID_BINARY;
            if (i > 0) {
                /* the same device again: its binary must be the same program */
                size_t ln;
                uint8_t *mine = vcl_src_binary(p, &ln);
                if (!mine || ln != lens[i] || memcmp(mine, bins[i], ln)) st = CL_INVALID_BINARY;
                free(mine);
            }
            if (status) status[i] = st;
            if (st) err = st;
        }
        if (err && p) {
            vcl_src_free(p);
            p->live = 0;
            vcl_context_release(c);
            p = NULL;
        }
    }
    vcl_leave();
    if (errcode_ret) *errcode_ret = err;
    return p;
}

cl_program CL_API_CALL vcl_CreateProgramWithBuiltInKernels(cl_context c, cl_uint n,
                                                           const cl_device_id *d, const char *names,
                                                           cl_int *errcode_ret)
{
    vcl_enter();
    cl_int err = CL_SUCCESS;
    cl_program p = NULL;
    if (!vcl_valid(c, VCL_CONTEXT)) err = CL_INVALID_CONTEXT;
    else if (!d || n == 0 || !names) err = CL_INVALID_VALUE;
    else err = check_devices(n, d);
    if (!err) {
        /* Every ';'-separated name must be a built-in kernel of the device. */
        const char *s = names;
        int count = 0;
        for (;;) {
            const char *e = strchr(s, ';');
            size_t len = e ? (size_t)(e - s) : strlen(s);
            while (len && *s == ' ') { s++; len--; }
            while (len && s[len - 1] == ' ') len--;
            if (builtin_index(s, len) < 0) { err = CL_INVALID_VALUE; break; }
            count++;
            if (!e) break;
            s = e + 1;
        }
        if (!err && count == 0) err = CL_INVALID_VALUE;
    }
    if (!err) {
        p = program_new(c);
        char *k = p ? strdup(names) : NULL;
        if (!p || !k) {
            err = CL_OUT_OF_HOST_MEMORY;
            free(k);
            if (p) { p->live = 0; vcl_context_release(c); p = NULL; }
        } else {
            p->builtin = 1;
            p->kernel_names = k;
            p->status = CL_BUILD_SUCCESS;
        }
    }
    vcl_leave();
    if (errcode_ret) *errcode_ret = err;
    return p;
}

static void program_maybe_destroy(cl_program p)
{
    if (p->refs || p->attached || !p->live) return;
    p->live = 0;
    free(p->source);
    free(p->kernel_names);
    free(p->options);
    p->source = p->kernel_names = p->options = NULL;
    vcl_src_free(p);
    vcl_context_release(p->ctx);
}

cl_int CL_API_CALL vcl_RetainProgram(cl_program p)
{
    vcl_enter();
    cl_int rc = vcl_valid(p, VCL_PROGRAM) ? CL_SUCCESS : CL_INVALID_PROGRAM;
    if (!rc) p->refs++;
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_ReleaseProgram(cl_program p)
{
    vcl_enter();
    cl_int rc = vcl_valid(p, VCL_PROGRAM) && p->refs ? CL_SUCCESS : CL_INVALID_PROGRAM;
    if (!rc) {
        p->refs--;
        program_maybe_destroy(p);
    }
    vcl_leave();
    return rc;
}

/* kind 0 clBuildProgram, 1 clCompileProgram. */
static cl_int build_like(cl_program p, cl_uint n, const cl_device_id *d, const char *opts,
                         void(CL_CALLBACK *fn)(cl_program, void *), void *user, int kind, cl_uint nh,
                         const cl_program *hdrs, const char **names)
{
    if (!vcl_valid(p, VCL_PROGRAM)) return CL_INVALID_PROGRAM;
    cl_int rc = check_devices(n, d);
    if (rc) return rc;
    if (!fn && user) return CL_INVALID_VALUE;
    if (kind == 1) {
        if ((nh == 0) != (hdrs == NULL) || (nh == 0) != (names == NULL)) return CL_INVALID_VALUE;
        for (cl_uint i = 0; i < nh; i++)
            if (!vcl_valid(hdrs[i], VCL_PROGRAM) || !hdrs[i]->source || !names[i]) return CL_INVALID_VALUE;
    }
    if (p->attached) return CL_INVALID_OPERATION;  /* kernels exist */
    if (kind == 1 && !p->source) return CL_INVALID_OPERATION;  /* compiling needs source */
    if (!p->builtin && (rc = vcc_check_options(opts ? opts : "", kind))) return rc;
    free(p->options);
    p->options = strdup(opts ? opts : "");
    if (p->builtin) {
        /* Built-in kernels need no build: the program stays built. */
        p->status = CL_BUILD_SUCCESS;
        return CL_SUCCESS;
    }
    return kind == 1 ? vcl_src_compile(p, p->options, nh, hdrs, names) : vcl_src_build(p, p->options);
}

static int build_notifies(cl_int rc)
{
    return rc != CL_INVALID_PROGRAM && rc != CL_INVALID_VALUE && rc != CL_INVALID_DEVICE &&
           rc != CL_INVALID_OPERATION && rc != CL_INVALID_BUILD_OPTIONS && rc != CL_INVALID_COMPILER_OPTIONS;
}

cl_int CL_API_CALL vcl_BuildProgram(cl_program p, cl_uint n, const cl_device_id *d, const char *opts,
                                    void(CL_CALLBACK *fn)(cl_program, void *), void *user)
{
    vcl_enter();
    cl_int rc = build_like(p, n, d, opts, fn, user, 0, 0, NULL, NULL);
    vcl_leave();
    /* The notification runs once the build is over, also when it failed. */
    if (fn && build_notifies(rc)) fn(p, user);
    return rc;
}

cl_int CL_API_CALL vcl_CompileProgram(cl_program p, cl_uint n, const cl_device_id *d, const char *opts,
                                      cl_uint nh, const cl_program *hdrs, const char **names,
                                      void(CL_CALLBACK *fn)(cl_program, void *), void *user)
{
    vcl_enter();
    cl_int rc = build_like(p, n, d, opts, fn, user, 1, nh, hdrs, names);
    vcl_leave();
    if (fn && build_notifies(rc)) fn(p, user);
    return rc;
}

cl_program CL_API_CALL vcl_LinkProgram(cl_context c, cl_uint n, const cl_device_id *d, const char *opts,
                                       cl_uint np, const cl_program *ps,
                                       void(CL_CALLBACK *fn)(cl_program, void *), void *user,
                                       cl_int *errcode_ret)
{
    vcl_enter();
    cl_int err;
    cl_program out = NULL;
    char why[256];
    if (!vcl_valid(c, VCL_CONTEXT)) err = CL_INVALID_CONTEXT;
    else if ((err = check_devices(n, d))) {}
    else if (np == 0 || !ps || (!fn && user)) err = CL_INVALID_VALUE;
    else {
        for (cl_uint i = 0; !err && i < np; i++)
            if (!vcl_valid(ps[i], VCL_PROGRAM) || ps[i]->ctx != c) err = CL_INVALID_PROGRAM;
        if (!err) err = vcc_check_options(opts ? opts : "", 2);
        if (!err && !vcl_compiler_available(why, sizeof why)) err = CL_LINKER_NOT_AVAILABLE;
        for (cl_uint i = 0; !err && i < np; i++)
            if (ps[i]->btype != CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT &&
                ps[i]->btype != CL_PROGRAM_BINARY_TYPE_LIBRARY)
                err = CL_INVALID_OPERATION;
    }
    if (!err) {
        out = program_new(c);
        if (!out) err = CL_OUT_OF_HOST_MEMORY;
        else {
            out->options = strdup(opts ? opts : "");
            err = vcl_src_link(out, out->options, np, ps, strstr(out->options, "-create-library") != NULL);
        }
    }
    vcl_leave();
    /* A failed link still gives a program whose log says why (1.2, clLinkProgram). */
    if (fn && out) fn(out, user);
    if (errcode_ret) *errcode_ret = err;
    return out;
}

cl_int CL_API_CALL vcl_UnloadCompiler(void) { return CL_SUCCESS; }

cl_int CL_API_CALL vcl_UnloadPlatformCompiler(cl_platform_id pl)
{
    return vcl_valid(pl, VCL_PLATFORM) ? CL_SUCCESS : CL_INVALID_PLATFORM;
}

cl_int CL_API_CALL vcl_GetProgramInfo(cl_program p, cl_program_info param, size_t size, void *value,
                                      size_t *ret)
{
    vcl_enter();
    cl_int rc;
    cl_uint u;
    size_t z;
    cl_device_id d = &vcl_device;
    const char *s;
    if (!vcl_valid(p, VCL_PROGRAM)) rc = CL_INVALID_PROGRAM;
    else switch (param) {
    case CL_PROGRAM_REFERENCE_COUNT: u = p->refs; rc = vcl_info_out(&u, sizeof u, size, value, ret); break;
    case CL_PROGRAM_CONTEXT: rc = vcl_info_out(&p->ctx, sizeof p->ctx, size, value, ret); break;
    case CL_PROGRAM_NUM_DEVICES: u = 1; rc = vcl_info_out(&u, sizeof u, size, value, ret); break;
    case CL_PROGRAM_DEVICES: rc = vcl_info_out(&d, sizeof d, size, value, ret); break;
    case CL_PROGRAM_SOURCE:
        s = p->source ? p->source : "";
        rc = vcl_info_out(s, strlen(s) + 1, size, value, ret);
        break;
    case CL_PROGRAM_BINARY_SIZES: {
        uint8_t *b = vcl_src_binary(p, &z);
        free(b);
        rc = vcl_info_out(&z, sizeof z, size, value, ret);
        break;
    }
    case CL_PROGRAM_BINARIES: {
        /* One device; an entry whose binary size is 0 is left alone (the spec). */
        rc = vcl_info_out(NULL, sizeof(unsigned char *), size, NULL, ret);
        if (!rc && value && size < sizeof(unsigned char *)) rc = CL_INVALID_VALUE;
        unsigned char *dst = !rc && value ? *(unsigned char **)value : NULL;
        uint8_t *b = dst ? vcl_src_binary(p, &z) : NULL;
        if (b) memcpy(dst, b, z);
        free(b);
        break;
    }
    case CL_PROGRAM_NUM_KERNELS:
    case CL_PROGRAM_KERNEL_NAMES:
        if (p->status != CL_BUILD_SUCCESS || !p->kernel_names ||
            (!p->builtin && p->btype != CL_PROGRAM_BINARY_TYPE_EXECUTABLE)) {
            rc = CL_INVALID_PROGRAM_EXECUTABLE;
            break;
        }
        if (param == CL_PROGRAM_KERNEL_NAMES) {
            rc = vcl_info_out(p->kernel_names, strlen(p->kernel_names) + 1, size, value, ret);
        } else {
            z = *p->kernel_names ? 1 : 0;
            for (const char *c = p->kernel_names; *c; c++) z += *c == ';';
            rc = vcl_info_out(&z, sizeof z, size, value, ret);
        }
        break;
    default: rc = CL_INVALID_VALUE;
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_GetProgramBuildInfo(cl_program p, cl_device_id d, cl_program_build_info param,
                                           size_t size, void *value, size_t *ret)
{
    vcl_enter();
    cl_int rc;
    cl_program_binary_type bt;
    const char *s;
    if (!vcl_valid(p, VCL_PROGRAM)) rc = CL_INVALID_PROGRAM;
    else if (!vcl_valid_device(d)) rc = CL_INVALID_DEVICE;
    else switch (param) {
    case CL_PROGRAM_BUILD_STATUS: rc = vcl_info_out(&p->status, sizeof p->status, size, value, ret); break;
    case CL_PROGRAM_BUILD_OPTIONS:
        s = p->options ? p->options : "";
        rc = vcl_info_out(s, strlen(s) + 1, size, value, ret);
        break;
    case CL_PROGRAM_BUILD_LOG: rc = vcl_info_out(p->log, strlen(p->log) + 1, size, value, ret); break;
    case CL_PROGRAM_BINARY_TYPE:
        bt = p->builtin ? CL_PROGRAM_BINARY_TYPE_EXECUTABLE : p->btype;
        rc = vcl_info_out(&bt, sizeof bt, size, value, ret);
        break;
    default: rc = CL_INVALID_VALUE;
    }
    vcl_leave();
    return rc;
}

/* -------------------------------------------------------------------- kernels */

static int program_has(cl_program p, const char *name)
{
    size_t len = strlen(name);
    for (const char *s = p->kernel_names; s;) {
        const char *e = strchr(s, ';');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        while (l && *s == ' ') { s++; l--; }
        while (l && s[l - 1] == ' ') l--;
        if (l == len && strncmp(s, name, len) == 0) return 1;
        s = e ? e + 1 : NULL;
    }
    return 0;
}

static cl_kernel kernel_new(cl_program p, int idx)
{
    cl_kernel k = calloc(1, sizeof *k);
    if (!k) return NULL;
    k->dispatch = &vcl_dispatch;
    k->magic = VCL_KERNEL;
    k->live = 1;
    k->refs = 1;
    k->prog = p;
    if (p->builtin) {
        k->kernel = k_kernels[idx].kernel;
        k->name = k_kernels[idx].name;
    } else if (vcl_src_kernel_init(k, &p->meta.k[idx])) {
        vcl_src_kernel_free(k);
        free(k);
        return NULL;
    }
    p->attached++;
    vcl_register(k, VCL_KERNEL);
    return k;
}

cl_kernel CL_API_CALL vcl_CreateKernel(cl_program p, const char *name, cl_int *errcode_ret)
{
    vcl_enter();
    cl_int err = CL_SUCCESS;
    cl_kernel k = NULL;
    if (!vcl_valid(p, VCL_PROGRAM)) err = CL_INVALID_PROGRAM;
    else if (p->status != CL_BUILD_SUCCESS) err = CL_INVALID_PROGRAM_EXECUTABLE;
    else if (!name) err = CL_INVALID_VALUE;
    else if (!p->builtin && p->btype != CL_PROGRAM_BINARY_TYPE_EXECUTABLE) err = CL_INVALID_PROGRAM_EXECUTABLE;
    else if (!program_has(p, name)) err = CL_INVALID_KERNEL_NAME;
    else if (!(k = kernel_new(p, p->builtin ? builtin_index(name, strlen(name))
                                            : (int)(vcl_src_find(p, name) - p->meta.k))))
        err = CL_OUT_OF_HOST_MEMORY;
    vcl_leave();
    if (errcode_ret) *errcode_ret = err;
    return k;
}

cl_int CL_API_CALL vcl_CreateKernelsInProgram(cl_program p, cl_uint n, cl_kernel *ks, cl_uint *nret)
{
    vcl_enter();
    cl_int rc = CL_SUCCESS;
    cl_uint count = 0;
    int idx[NKERNELS * 4];
    if (!vcl_valid(p, VCL_PROGRAM)) rc = CL_INVALID_PROGRAM;
    else if (p->status != CL_BUILD_SUCCESS) rc = CL_INVALID_PROGRAM_EXECUTABLE;
    else if (!p->builtin) {
        if (p->btype != CL_PROGRAM_BINARY_TYPE_EXECUTABLE) rc = CL_INVALID_PROGRAM_EXECUTABLE;
        else if (ks && n < p->meta.nkernels) rc = CL_INVALID_VALUE;
        else count = p->meta.nkernels;
        for (cl_uint i = 0; !rc && ks && i < count; i++) ks[i] = kernel_new(p, (int)i);
        if (!rc && nret) *nret = count;
        vcl_leave();
        return rc;
    } else {
        for (size_t i = 0; i < NKERNELS; i++)
            if (program_has(p, k_kernels[i].name)) idx[count++] = (int)i;
        if (ks && n < count) rc = CL_INVALID_VALUE;
    }
    if (!rc && ks)
        for (cl_uint i = 0; i < count; i++) ks[i] = kernel_new(p, idx[i]);
    if (!rc && nret) *nret = count;
    vcl_leave();
    return rc;
}

void vcl_kernel_release_internal(cl_kernel k)
{
    if (!k->refs) return;
    if (--k->refs) return;
    k->live = 0;
    for (int i = 0; i < 3; i++)
        if (k->args[i].mem) vcl_mem_release_internal(k->args[i].mem);
    if (k->meta) vcl_src_kernel_free(k);
    cl_program p = k->prog;
    if (p->attached) p->attached--;
    program_maybe_destroy(p);
}

cl_int CL_API_CALL vcl_RetainKernel(cl_kernel k)
{
    vcl_enter();
    cl_int rc = vcl_valid(k, VCL_KERNEL) ? CL_SUCCESS : CL_INVALID_KERNEL;
    if (!rc) k->refs++;
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_ReleaseKernel(cl_kernel k)
{
    vcl_enter();
    cl_int rc = vcl_valid(k, VCL_KERNEL) ? CL_SUCCESS : CL_INVALID_KERNEL;
    if (!rc) vcl_kernel_release_internal(k);
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_SetKernelArg(cl_kernel k, cl_uint i, size_t size, const void *value)
{
    vcl_enter();
    cl_int rc = CL_SUCCESS;
    if (!vcl_valid(k, VCL_KERNEL)) rc = CL_INVALID_KERNEL;
    else if (k->meta) rc = vcl_src_set_arg(k, i, size, value);
    else if (i >= VCL_NPARAMS) rc = CL_INVALID_ARG_INDEX;
    else if (i < 3) {
        cl_mem m = NULL;
        if (size != sizeof(cl_mem)) rc = CL_INVALID_ARG_SIZE;
        else {
            if (value) m = *(const cl_mem *)value;
            if (m && (!vcl_valid(m, VCL_MEM) || m->type != CL_MEM_OBJECT_BUFFER)) rc = CL_INVALID_MEM_OBJECT;
            else if (m && m->ctx != k->prog->ctx) rc = CL_INVALID_MEM_OBJECT;
            else if (m && (vcl_mem_va(m) & 3)) rc = CL_INVALID_ARG_VALUE;  /* engine needs words */
        }
        if (!rc) {
            if (m) vcl_mem_retain_internal(m);
            if (k->args[i].mem) vcl_mem_release_internal(k->args[i].mem);
            k->args[i].mem = m;
            k->args[i].set = 1;
        }
    } else {
        if (size != sizeof(cl_int)) rc = CL_INVALID_ARG_SIZE;
        else if (!value) rc = CL_INVALID_ARG_VALUE;
        else {
            cl_int v;
            memcpy(&v, value, sizeof v);
            if (i == 3 && v < 0) rc = CL_INVALID_ARG_VALUE;
            else {
                k->args[i].value = v;
                k->args[i].set = 1;
            }
        }
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_GetKernelInfo(cl_kernel k, cl_kernel_info p, size_t size, void *value, size_t *ret)
{
    vcl_enter();
    cl_int rc;
    cl_uint u;
    if (!vcl_valid(k, VCL_KERNEL)) rc = CL_INVALID_KERNEL;
    else if (k->meta && (p == CL_KERNEL_NUM_ARGS || p == CL_KERNEL_ATTRIBUTES))
        rc = vcl_src_kernel_info(k, p, size, value, ret);
    else switch (p) {
    case CL_KERNEL_FUNCTION_NAME: rc = vcl_info_out(k->name, strlen(k->name) + 1, size, value, ret); break;
    case CL_KERNEL_NUM_ARGS: u = VCL_NPARAMS; rc = vcl_info_out(&u, sizeof u, size, value, ret); break;
    case CL_KERNEL_REFERENCE_COUNT: u = k->refs; rc = vcl_info_out(&u, sizeof u, size, value, ret); break;
    case CL_KERNEL_CONTEXT: rc = vcl_info_out(&k->prog->ctx, sizeof(cl_context), size, value, ret); break;
    case CL_KERNEL_PROGRAM: rc = vcl_info_out(&k->prog, sizeof(cl_program), size, value, ret); break;
    case CL_KERNEL_ATTRIBUTES: rc = vcl_info_out("", 1, size, value, ret); break;
    default: rc = CL_INVALID_VALUE;
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_GetKernelWorkGroupInfo(cl_kernel k, cl_device_id d, cl_kernel_work_group_info p,
                                              size_t size, void *value, size_t *ret)
{
    vcl_enter();
    cl_int rc;
    size_t z, z3[3] = {0, 0, 0};
    cl_ulong ul = 0;
    if (!vcl_valid(k, VCL_KERNEL)) rc = CL_INVALID_KERNEL;
    else if (d && !vcl_valid_device(d)) rc = CL_INVALID_DEVICE;
    else if (k->meta) rc = vcl_src_wg_info(k, p, size, value, ret);
    else switch (p) {
    case CL_KERNEL_WORK_GROUP_SIZE: z = vcl_max_work_group(); rc = vcl_info_out(&z, sizeof z, size, value, ret); break;
    case CL_KERNEL_COMPILE_WORK_GROUP_SIZE: rc = vcl_info_out(z3, sizeof z3, size, value, ret); break;
    case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: z = 1; rc = vcl_info_out(&z, sizeof z, size, value, ret); break;
    case CL_KERNEL_LOCAL_MEM_SIZE:
    case CL_KERNEL_PRIVATE_MEM_SIZE: rc = vcl_info_out(&ul, sizeof ul, size, value, ret); break;
    case CL_KERNEL_GLOBAL_WORK_SIZE:
        /* Defined for built-in kernels: the largest NDRange a launch takes. */
        z3[0] = z3[1] = z3[2] = 0x7fffffff;
        rc = vcl_info_out(z3, sizeof z3, size, value, ret);
        break;
    default: rc = CL_INVALID_VALUE;
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_GetKernelArgInfo(cl_kernel k, cl_uint i, cl_kernel_arg_info p, size_t size,
                                        void *value, size_t *ret)
{
    vcl_enter();
    cl_int rc;
    if (!vcl_valid(k, VCL_KERNEL)) rc = CL_INVALID_KERNEL;
    else if (k->meta) rc = vcl_src_arg_info(k, i, p, size, value, ret);
    else if (i >= VCL_NPARAMS) rc = CL_INVALID_ARG_INDEX;
    else rc = CL_KERNEL_ARG_INFO_NOT_AVAILABLE;  /* only for programs built from source */
    vcl_leave();
    return rc;
}

/* ---------------------------------------------------------------- launching */

static int kernel_entry(unsigned kernel)
{
    for (size_t i = 0; i < NKERNELS; i++)
        if (k_kernels[i].kernel == kernel) return (int)i;
    return 0;
}

cl_int vcl_run_kernel_cmd(cl_command_queue q, vcl_cmd *c)
{
    if (c->kernel->meta) return vcl_src_run(q, c);
    cl_event e = c->ev;
    uint32_t va[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++)
        if (c->kmem[i]) va[i] = vcl_mem_kva(c->kmem[i]);
    e->t[2] = vcl_q_now(q);
    vcl_trace("kernel %s: n %d, dst/a/b at their kernel-view VAs 0x%08x 0x%08x 0x%08x", c->kernel->name,
              (int)c->kval[0], va[0], va[1], va[2]);
    if (c->kval[0] == 0) {
        e->t[3] = e->t[2];
        return CL_SUCCESS;  /* n == 0 launches nothing */
    }
    vmgpu_event *a = NULL, *b = NULL;
    int prof = (q->props & CL_QUEUE_PROFILING_ENABLE) != 0;
    int rc = prof ? vmgpu_event_create(vcl_dev, &a) : VMGPU_OK;
    if (!rc && prof) rc = vmgpu_event_record(a, q->s);
    if (!rc) rc = vmgpu_cmd_launch(q->s, c->kernel->kernel, va[0], va[1], va[2],
                                   (uint32_t)c->kval[0], (uint32_t)c->kval[1]);
    if (!rc && prof) {
        rc = vmgpu_event_create(vcl_dev, &b);
        if (!rc) rc = vmgpu_event_record(b, q->s);
        if (!rc) rc = vmgpu_event_wait(b);
        uint64_t x, y;
        if (!rc && !vmgpu_event_cycles(a, &x) && !vmgpu_event_cycles(b, &y)) {
            e->t[2] = vcl_cycles_ns(x);
            e->t[3] = vcl_cycles_ns(y);
        }
    } else if (!rc) {
        rc = vmgpu_stream_sync(q->s);
    }
    vmgpu_event_destroy(a);
    vmgpu_event_destroy(b);
    return vcl_core_err(q, rc);
}

cl_int CL_API_CALL vcl_EnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim,
                                            const size_t *goff, const size_t *gsize,
                                            const size_t *lsize, cl_uint nw, const cl_event *w,
                                            cl_event *e)
{
    vcl_enter();
    cl_int rc = CL_SUCCESS;
    if (!vcl_valid(q, VCL_QUEUE)) rc = CL_INVALID_COMMAND_QUEUE;
    else if (!vcl_valid(k, VCL_KERNEL)) rc = CL_INVALID_KERNEL;
    else if (k->prog->ctx != q->ctx) rc = CL_INVALID_CONTEXT;
    else if (k->meta) {
        rc = vcl_src_enqueue(q, k, dim, goff, gsize, lsize, nw, w, e);
        vcl_leave();
        return rc;
    }
    else if (dim < 1 || dim > 3) rc = CL_INVALID_WORK_DIMENSION;
    else if (!gsize) rc = CL_INVALID_GLOBAL_WORK_SIZE;
    if (!rc) {
        for (int i = 0; i < VCL_NPARAMS; i++)
            if (!k->args[i].set) rc = CL_INVALID_KERNEL_ARGS;
    }
    uint64_t items = 1;
    for (cl_uint i = 0; !rc && i < dim; i++) {
        if (gsize[i] == 0 || gsize[i] > 0xffffffffu) rc = CL_INVALID_GLOBAL_WORK_SIZE;
        else if (goff && goff[i] > ~(size_t)0 - gsize[i]) rc = CL_INVALID_GLOBAL_OFFSET;
        /* The engine walks elements 0..n-1; an offset NDRange would mean others. */
        else if (goff && goff[i]) rc = CL_INVALID_GLOBAL_OFFSET;
        else items *= gsize[i];
    }
    if (!rc && lsize) {
        uint64_t wg = 1;
        for (cl_uint i = 0; !rc && i < dim; i++) {
            if (lsize[i] == 0 || gsize[i] % lsize[i]) rc = CL_INVALID_WORK_GROUP_SIZE;
            else if (lsize[i] > vcl_max_work_item()) rc = CL_INVALID_WORK_ITEM_SIZE;
            else wg *= lsize[i];
        }
        if (!rc && wg > vcl_max_work_group()) rc = CL_INVALID_WORK_GROUP_SIZE;
    }
    const vcl_arg *args = rc ? NULL : k->args;
    unsigned uses = rc ? 0 : k_kernels[kernel_entry(k->kernel)].uses;
    if (!rc) {
        uint64_t n = (uint64_t)args[3].value;
        /* One work-item per element: the NDRange must cover n. */
        if (items < n) rc = CL_INVALID_GLOBAL_WORK_SIZE;
        for (int i = 0; !rc && i < 3; i++) {
            if (!(uses & (1u << i))) continue;
            cl_mem m = args[i].mem;
            uint64_t need = (i == 0 && k->kernel == VMGPU_KERNEL_REDUCE_SUM) ? (n ? 4 : 0) : 4 * n;
            if (!m ? n > 0 : need > m->size) rc = CL_INVALID_KERNEL_ARGS;
            else if (m && !vcl_valid(m, VCL_MEM)) rc = CL_INVALID_KERNEL_ARGS;
        }
    }
    if (!rc) rc = vcl_check_wait_list(q->ctx, nw, w);
    if (!rc) {
        vcl_cmd *c = calloc(1, sizeof *c);
        if (!c) rc = CL_OUT_OF_HOST_MEMORY;
        else {
            c->op = OP_KERNEL;
            c->kernel = k;
            k->refs++;
            for (int i = 0; i < 3; i++)
                if ((uses & (1u << i)) && args[i].mem) {
                    c->kmem[i] = args[i].mem;
                    vcl_mem_retain_internal(args[i].mem);
                }
            c->kval[0] = args[3].value;
            c->kval[1] = args[4].value;
            rc = vcl_submit(q, c, CL_COMMAND_NDRANGE_KERNEL, nw, w, e, 0);
        }
    }
    vcl_leave();
    return rc;
}

cl_int CL_API_CALL vcl_EnqueueTask(cl_command_queue q, cl_kernel k, cl_uint nw, const cl_event *w,
                                   cl_event *e)
{
    /* A task is an NDRange of one work-item (built-in kernels: it covers n only when n <= 1). */
    size_t one = 1;
    return vcl_EnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, nw, w, e);
}
