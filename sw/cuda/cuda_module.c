/*
 * vmgpu's CUDA driver API: modules of PTX (text, or fat binaries carrying it), translated by
 * sw/ptx for the SIMT unit, and their launches (docs/cuda.md "Modules and launches").
 *
 * - A module's code goes into device memory of its context: one physical allocation, mapped
 *   read-only (the MMU has no execute bit: fetches need R) at a VA the library reserves for it,
 *   written through the transport. cuModuleUnload and context destroy free it.
 * - Each context has an argument area (one granule, mapped read-only in that context): every
 *   launch takes the next slot of it, in order, and writes the kernel's argument block there; a
 *   slot is reused only after the launch that used it has completed (its ring's fence).
 * - Launches are LAUNCH_PROG commands (vmgpu_cmd_launch_prog, docs/cores.md) on the stream.
 * Every answer that NVIDIA's driver gives to the same call was measured
 * (tests/cuda/probe/kernel_probe.c, nvidia_kernels_h100_580.159.04.txt).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_internal.h"
#include "cuda_module.h"
#include "cuda_priv.h"
#include "vmgpu/ptx.h"
#include "vmgpu/regs.h"

/* The newest PTX ISA accepted: what NVRTC 13.5 writes (the translator's fixtures). NVIDIA's
 * driver 580 (CUDA 13.0) accepts up to 9.0 and answers UNSUPPORTED_PTX_VERSION above. */
#define PTX_ISA_MAX_MAJOR 9
#define PTX_ISA_MAX_MINOR 5
/* NVIDIA's limits, checked first (measured: INVALID_VALUE beyond them). */
#define NV_MAX_BLOCK_THREADS 1024u
#define NV_MAX_SHARED_BLOCK 49152u
/* Largest argument block (CUDA's limit for kernelParams since 12.1 is 32764 bytes). */
#define MAX_PARAM_BYTES 4096u
#define ARGS_SLOT_ALIGN 64u

static uint32_t round_up32(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

/* ------------------------------------------------------------ JIT options */

CUresult cu_jit_opts_parse(unsigned n, CUjit_option *opt, void **val, cu_jit_opts *out)
{
    cu_jit_opts *o = out;
    memset(o, 0, sizeof *o);
    if (n && (!opt || !val)) return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < n; i++) {
        if ((unsigned)opt[i] >= (unsigned)CU_JIT_NUM_OPTIONS) return CUDA_ERROR_INVALID_VALUE;
        switch (opt[i]) {
        case CU_JIT_ERROR_LOG_BUFFER: o->elog = val[i]; break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES: o->elog_size = (size_t)(uintptr_t)val[i]; o->elog_size_slot = &val[i]; break;
        case CU_JIT_INFO_LOG_BUFFER: o->ilog = val[i]; break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES: o->ilog_size = (size_t)(uintptr_t)val[i]; o->ilog_size_slot = &val[i]; break;
        case CU_JIT_WALL_TIME: o->wall_slot = &val[i]; break;
        default: break;   /* optimisation, target, cache and debug options: no effect here */
        }
    }
    /* A log size without its buffer (measured: INVALID_VALUE). */
    if ((!o->elog && o->elog_size) || (!o->ilog && o->ilog_size)) return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

/* Writes text into a log buffer as NVIDIA's JIT does (measured): at most size-1 bytes and a NUL,
 * and the size option then holds the text's length. */
static void log_write(char *buf, size_t size, void **size_slot, const char *text)
{
    if (!buf || !size) return;
    size_t n = strlen(text);
    if (n > size - 1) n = size - 1;
    memcpy(buf, text, n);
    buf[n] = 0;
    if (size_slot) *size_slot = (void *)(uintptr_t)n;
}

static void jit_log_error(cu_jit_opts *jo, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void jit_log_error(cu_jit_opts *jo, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    cu_trace("module: %s", text);
    if (!jo) return;
    cu_jit_opts *o = jo;
    log_write(o->elog, o->elog_size, o->elog_size_slot, text);
}

/* A successful load: empty logs (NVIDIA writes nothing into either, measured), wall time. */
static void jit_done(cu_jit_opts *jo, double ms)
{
    if (!jo) return;
    cu_jit_opts *o = jo;
    log_write(o->elog, o->elog_size, o->elog_size_slot, "");
    log_write(o->ilog, o->ilog_size, o->ilog_size_slot, "");
    if (o->wall_slot) {
        float f = (float)ms;
        memcpy(o->wall_slot, &f, sizeof f);
    }
}

/* --------------------------------------------------------- image classes */

/* PTX text: after blanks and comments, the first directive is .version (measured: text without
 * it is INVALID_IMAGE, not INVALID_PTX). */
static const char *ptx_start(const char *s)
{
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
        if (s[0] == '/' && s[1] == '/') {
            while (*s && *s != '\n') s++;
        } else if (s[0] == '/' && s[1] == '*') {
            const char *e = strstr(s + 2, "*/");
            if (!e) return NULL;
            s = e + 2;
        } else {
            break;
        }
    }
    return strncmp(s, ".version", 8) == 0 && (s[8] == ' ' || s[8] == '\t') ? s : NULL;
}

static int ptx_version_ok(const char *v, int *maj, int *min)
{
    *maj = *min = 0;
    if (sscanf(v + 8, " %d.%d", maj, min) != 2) return 1;   /* the translator names the error */
    return *maj < PTX_ISA_MAX_MAJOR || (*maj == PTX_ISA_MAX_MAJOR && *min <= PTX_ISA_MAX_MINOR);
}

/* ZSTD-compressed PTX in a fat binary (nvcc 13's default): libzstd, found at run time, so that
 * libcuda needs nothing at build time. */
static CUresult zstd_inflate(const uint8_t *src, size_t n, size_t out_n, char **out, cu_jit_opts *jo)
{
    static size_t (*dec)(void *, size_t, const void *, size_t);
    static unsigned (*is_err)(size_t);
    if (!dec) {
        void *h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
        if (h) {
            *(void **)&dec = dlsym(h, "ZSTD_decompress");
            *(void **)&is_err = dlsym(h, "ZSTD_isError");
        }
        if (!dec || !is_err) {
            dec = NULL;
            jit_log_error(jo, "fat binary: its PTX is ZSTD-compressed and libzstd.so.1 is not installed "
                              "(install it, or build with nvcc --compress-mode=none)");
            return CUDA_ERROR_NOT_SUPPORTED;
        }
    }
    char *buf = malloc(out_n + 1);
    if (!buf) return CUDA_ERROR_OUT_OF_MEMORY;
    size_t got = dec(buf, out_n, src, n);
    if (is_err(got)) {
        free(buf);
        jit_log_error(jo, "fat binary: its compressed PTX does not decompress");
        return CUDA_ERROR_INVALID_IMAGE;
    }
    buf[got] = 0;
    *out = buf;
    return CUDA_SUCCESS;
}

static uint64_t rd64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t rd32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint16_t rd16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }

#define FATBIN_MAGIC 0xba55ed50u
#define FATBIN_KIND_PTX 1u
#define FATBIN_FLAG_ZSTD 0x8000u   /* nvcc 13 (measured: flags 0x8011 with a ZSTD frame) */
#define FATBIN_FLAG_LZ4 0x2000u    /* older nvcc's compression */

/* The PTX of a fat binary (header: magic, version 1, header size, payload size; then entries:
 * kind, header size, payload size, compressed size, arch, flags, uncompressed size). The entry
 * for the highest virtual architecture is taken. *text is malloc'd. */
static CUresult fatbin_ptx(const uint8_t *img, char **text, cu_jit_opts *jo)
{
    if (rd16(img + 4) != 1) return CUDA_ERROR_INVALID_IMAGE;
    uint32_t hsize = rd16(img + 6);
    uint64_t fsize = rd64(img + 8);
    if (hsize < 16 || fsize > (1u << 30)) return CUDA_ERROR_INVALID_IMAGE;
    const uint8_t *best = NULL;
    uint32_t best_arch = 0;
    for (uint64_t off = hsize; off + 64 <= hsize + fsize;) {
        const uint8_t *e = img + off;
        uint32_t ehs = rd32(e + 4);
        uint64_t payload = rd64(e + 8);
        if (ehs < 64 || payload > fsize) return CUDA_ERROR_INVALID_IMAGE;
        if (rd16(e) == FATBIN_KIND_PTX && (!best || rd32(e + 28) > best_arch)) {
            best = e;
            best_arch = rd32(e + 28);
        }
        off += ehs + payload;
    }
    if (!best) return CUDA_ERROR_NO_BINARY_FOR_GPU;   /* SASS only: nothing this unit runs */
    const uint8_t *data = best + rd32(best + 4);
    uint64_t payload = rd64(best + 8), csize = rd32(best + 16), flags = rd64(best + 40), usize = rd64(best + 56);
    cu_trace("module: fat binary, PTX entry for compute_%u, %llu bytes%s", best_arch, (unsigned long long)payload,
             flags & FATBIN_FLAG_ZSTD ? " (ZSTD-compressed)" : "");
    if (flags & FATBIN_FLAG_ZSTD) {
        if (!csize || csize > payload || !usize || usize > (1u << 26)) return CUDA_ERROR_INVALID_IMAGE;
        return zstd_inflate(data, csize, usize, text, jo);
    }
    if (flags & FATBIN_FLAG_LZ4) {
        jit_log_error(jo, "fat binary: its PTX is compressed in the pre-13 format, which vmgpu does not read "
                          "(build with nvcc --compress-mode=none or -Xfatbin=-compress-all=false)");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    *text = strndup((const char *)data, payload);
    return *text ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

/* ------------------------------------------------------------ trace */

static const char *const k_rn[32] = {"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0",
                                     "a1", "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5",
                                     "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};

/* A small RV32IMA disassembler for the trace: mnemonic and operands of what the translator
 * writes (docs/ptx.md); anything else is printed as a word. */
static void rv_disasm(uint32_t w, uint32_t pc, char *out, size_t n)
{
    uint32_t op = w & 0x7f, rd = (w >> 7) & 31, f3 = (w >> 12) & 7, rs1 = (w >> 15) & 31, rs2 = (w >> 20) & 31,
             f7 = w >> 25;
    int32_t ii = (int32_t)w >> 20;
    int32_t si = ((int32_t)(w & 0xfe000000) >> 20) | (int32_t)((w >> 7) & 31);
    int32_t bi = ((int32_t)(w & 0x80000000) >> 19) | (int32_t)((w & 0x80) << 4) | (int32_t)((w >> 20) & 0x7e0) |
                 (int32_t)((w >> 7) & 0x1e);
    int32_t ji = ((int32_t)(w & 0x80000000) >> 11) | (int32_t)(w & 0xff000) | (int32_t)((w >> 9) & 0x800) |
                 (int32_t)((w >> 20) & 0x7fe);
    static const char *const alu[8] = {"add", "sll", "slt", "sltu", "xor", "srl", "or", "and"};
    static const char *const mul[8] = {"mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu"};
    static const char *const ld[8] = {"lb", "lh", "lw", "?", "lbu", "lhu", "?", "?"};
    static const char *const st[8] = {"sb", "sh", "sw", "?", "?", "?", "?", "?"};
    static const char *const br[8] = {"beq", "bne", "?", "?", "blt", "bge", "bltu", "bgeu"};
    switch (op) {
    case 0x37: snprintf(out, n, "lui %s, 0x%x", k_rn[rd], w >> 12); return;
    case 0x17: snprintf(out, n, "auipc %s, 0x%x", k_rn[rd], w >> 12); return;
    case 0x6f: snprintf(out, n, "jal %s, 0x%x", k_rn[rd], pc + (uint32_t)ji); return;
    case 0x67: snprintf(out, n, "jalr %s, %d(%s)", k_rn[rd], ii, k_rn[rs1]); return;
    case 0x63: snprintf(out, n, "%s %s, %s, 0x%x", br[f3], k_rn[rs1], k_rn[rs2], pc + (uint32_t)bi); return;
    case 0x03: snprintf(out, n, "%s %s, %d(%s)", ld[f3], k_rn[rd], ii, k_rn[rs1]); return;
    case 0x23: snprintf(out, n, "%s %s, %d(%s)", st[f3], k_rn[rs2], si, k_rn[rs1]); return;
    case 0x13:
        if (f3 == 1 || f3 == 5)
            snprintf(out, n, "%s %s, %s, %u", f3 == 1 ? "slli" : (w >> 30) & 1 ? "srai" : "srli", k_rn[rd], k_rn[rs1],
                     rs2);
        else
            snprintf(out, n, "%si %s, %s, %d", alu[f3], k_rn[rd], k_rn[rs1], ii);
        return;
    case 0x33:
        if (f7 == 1) snprintf(out, n, "%s %s, %s, %s", mul[f3], k_rn[rd], k_rn[rs1], k_rn[rs2]);
        else snprintf(out, n, "%s %s, %s, %s", f7 == 0x20 ? (f3 == 0 ? "sub" : "sra") : alu[f3], k_rn[rd], k_rn[rs1],
                      k_rn[rs2]);
        return;
    case 0x73:
        if (w == 0x00000073) snprintf(out, n, "ecall");
        else snprintf(out, n, "csrr%s %s, 0x%03x, %s", f3 == 2 ? "s" : f3 == 1 ? "w" : "?", k_rn[rd], w >> 20, k_rn[rs1]);
        return;
    case 0x0f: snprintf(out, n, "fence"); return;
    case 0x2f: snprintf(out, n, "amo(funct5 0x%02x).w %s, %s, (%s)", w >> 27, k_rn[rd], k_rn[rs2], k_rn[rs1]); return;
    default: snprintf(out, n, ".word 0x%08x", w); return;
    }
}

/* Line `line` (1-based) of the module's PTX, blanks at its ends dropped and tabs made spaces;
 * "" without the text. */
static void ptx_line_text(const struct CUmod_st *m, int line, char *out, size_t n)
{
    out[0] = 0;
    const char *p = m->ptx_text;
    if (!p || line < 1) return;
    for (int l = 1; l < line && p; l++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    if (!p) return;
    while (*p == ' ' || *p == '\t') p++;
    size_t i = 0;
    for (; p[i] && p[i] != '\n' && p[i] != '\r' && i + 1 < n; i++) out[i] = p[i] == '\t' ? ' ' : p[i];
    while (i && out[i - 1] == ' ') i--;
    out[i] = 0;
}

static void trace_kernel_code(const struct CUmod_st *m, const ptx_kernel *k)
{
    if (!vmgpu_trace_enabled()) return;
    cu_trace("module: kernel %s: %u instructions at VA 0x%08x, %u parameters (%u bytes), %u shared bytes, "
             "%u stack bytes per thread, %u PTX registers (%u spilled)",
             k->name, k->code_bytes / 4, m->code_va + k->entry, k->num_params, k->param_bytes, k->shared_bytes,
             k->stack_bytes, k->num_vregs, k->num_spilled);
    for (uint32_t i = 0; i < k->num_params; i++)
        cu_trace("module:   param %-24s offset %3u size %u align %u", k->params[i].name, k->params[i].offset,
                 k->params[i].size, k->params[i].align);
    /* PTX line -> instructions: each PTX line that produced code, then its instructions (the
     * translator's line map, ptx_module_line_of). */
    int line = -1;
    for (uint32_t off = 0; off < k->code_bytes; off += 4) {
        uint32_t w = rd32(m->ptx->code + k->entry + off), pc = m->code_va + k->entry + off;
        int l = ptx_module_line_of(m->ptx, k->entry + off);
        if (l != line) {
            char src[160];
            ptx_line_text(m, l, src, sizeof src);
            cu_trace("module:   ptx line %d: %s", l, src);
            line = l;
        }
        char text[96];
        rv_disasm(w, pc, text, sizeof text);
        cu_trace("module:     %08x (+0x%03x): %08x  %s", pc, off, w, text);
    }
}

/* ------------------------------------------------------------ module code */

/* The unit runs RV32A AMOs and amocas.w (CAPS.SIMT_A, docs/cores.md). */
static int unit_has_atomics(void) { return (g_info.simt_isa & VMGPU_SIMT_ISA_A) != 0; }

static void code_free(struct CUmod_st *m)
{
    if (m->data) {  /* still listed unless its context went first and took it */
        for (cu_dalloc *d = g_dallocs; d; d = d->next)
            if (d == m->data) {
                cu_dalloc_free(d);
                break;
            }
        m->data = NULL;
    }
    if (!m->code_va) return;
    vmgpu_unmap(m->ctx->core, m->code_va, m->code_map);
    vmgpu_phys_free(g_dev, m->code_pa);
    cu_resv *r = cu_resv_find(m->code_va, 1);
    if (r) cu_va_free(r);
    m->code_va = 0;
}

/* Code into device memory of the module's context: allocated, mapped read-only, written. */
static CUresult code_upload(struct CUmod_st *m)
{
    ptx_module *p = m->ptx;
    if (!p->code_bytes) return CUDA_SUCCESS;
    uint32_t map = round_up32(p->code_bytes, VMGPU_PAGE_SIZE), pa, va;
    int crc = vmgpu_phys_alloc(g_dev, map, 0, &pa);
    if (crc) return cu_core_err(m->ctx, crc);
    CUresult rc = cu_va_reserve(round_up32(map, VMGPU_GRANULE), VMGPU_GRANULE, 0, 1, &va);
    if (rc) {
        vmgpu_phys_free(g_dev, pa);
        return rc;
    }
    crc = vmgpu_map(m->ctx->core, va, pa, map, VMGPU_MAP_READ);
    m->code_va = va;
    m->code_pa = pa;
    m->code_map = map;
    /* .global/.const variables: device memory as cuMemAlloc gives it (copies and cuModuleGetGlobal
     * work on it), their initial bytes written, the code's references relocated to it */
    uint8_t *code = NULL;
    if (!crc && p->data_bytes) {
        rc = cu_dev_alloc(m->ctx, p->data_bytes, &m->data);
        if (rc) {
            m->data = NULL;
            code_free(m);
            return rc;
        }
        m->data->module = 1;
        crc = vmgpu_phys_write(g_dev, m->data->alloc->pa, p->data, p->data_bytes);
        code = crc ? NULL : malloc(p->code_bytes);
        if (!crc && !code) crc = VMGPU_ERR_NOMEM;
        if (code) {
            memcpy(code, p->code, p->code_bytes);
            ptx_module_relocate(p, code, m->data->va);
        }
    }
    if (!crc) crc = vmgpu_phys_write(g_dev, pa, code ? code : p->code, p->code_bytes);
    free(code);
    if (crc) {
        code_free(m);
        return cu_core_err(m->ctx, crc);
    }
    if (m->data)
        cu_trace("module: %u bytes of .global/.const variables at VA 0x%08x (pa 0x%08x), %u references "
                 "in the code relocated", p->data_bytes, m->data->va, m->data->alloc->pa, p->num_relocs);
    cu_trace("module: %u bytes of code at pa 0x%08x, mapped read-only at VA 0x%08x in asid %u", p->code_bytes, pa,
             va, vmgpu_ctx_asid(m->ctx->core));
    return CUDA_SUCCESS;
}

static CUresult translate(struct CUmod_st *m, const char *text, cu_jit_opts *jo)
{
    ptx_options opt = {0};
    opt.shared_limit = g_info.simt_shared_bytes ? g_info.simt_shared_bytes : 4096;
    /* A unit without F runs f32 kernels through the translator's F emulation (docs/ptx.md, "f32
     * on a unit without F"); VMGPU_PTX_FEMU=1 asks for it on a unit with F too (the tests compare
     * the two). */
    const char *femu = getenv("VMGPU_PTX_FEMU");
    opt.emulate_f = !(g_info.simt_isa & VMGPU_SIMT_ISA_F) || (femu && !strcmp(femu, "1"));
    opt.stack_limit = VMGPU_SIMT_STACK_BYTES;
    ptx_error err;
    memset(&err, 0, sizeof err);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ptx_status st = ptx_translate(text, strlen(text), &opt, &m->ptx, &err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    if (st != PTX_OK) {
        jit_log_error(jo, "ptx input, line %d; error   : %s%s%s", err.line, err.instr[0] ? err.instr : "",
                      err.instr[0] ? ": " : "", err.message);
        switch (st) {
        case PTX_ERR_INVALID_PTX: return CUDA_ERROR_INVALID_PTX;
        case PTX_ERR_NOT_SUPPORTED: return CUDA_ERROR_NOT_SUPPORTED;
        case PTX_ERR_NO_MEMORY: return CUDA_ERROR_OUT_OF_MEMORY;
        default: return CUDA_ERROR_INVALID_IMAGE;
        }
    }
    ptx_module *p = m->ptx;
    if (p->num_kernels && !g_info.simt_lanes) {
        jit_log_error(jo, "this device has no SIMT unit (CAPS.SIMT is 0): it runs only the built-in kernels");
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    for (uint32_t i = 0; i < p->num_kernels; i++)
        if ((p->kernels[i].flags & PTX_KERNEL_NEEDS_ATOMICS) && !unit_has_atomics()) {
            jit_log_error(jo, "ptx input, kernel %s; error   : atom/red need the unit's atomics (the A "
                              "extension), which it does not have yet", p->kernels[i].name);
            return CUDA_ERROR_NOT_SUPPORTED;
        }
    for (uint32_t i = 0; i < p->num_kernels; i++)
        if ((p->kernels[i].flags & PTX_KERNEL_NEEDS_WARP32) && g_info.simt_lanes < 32) {
            jit_log_error(jo, "ptx input, kernel %s; error   : shfl/vote/activemask/bar.warp need the unit's "
                              "warps to be 32 lanes wide (a CUDA warp in lockstep); this device's are %u",
                          p->kernels[i].name, g_info.simt_lanes);
            return CUDA_ERROR_NOT_SUPPORTED;
        }
    for (uint32_t i = 0; i < p->num_kernels; i++)
        if ((p->kernels[i].flags & PTX_KERNEL_NEEDS_F) && !(g_info.simt_isa & VMGPU_SIMT_ISA_F)) {
            jit_log_error(jo, "ptx input, kernel %s; error   : f32 arithmetic needs the unit's F extension, "
                              "which this device's unit does not have (CAPS.SIMT_F is 0)", p->kernels[i].name);
            return CUDA_ERROR_NOT_SUPPORTED;
        }
    cu_trace("module: PTX %d.%d for %s translated in %.3f ms: %u kernels, %u bytes of RV32 code",
             p->ptx_version_major, p->ptx_version_minor, p->target, ms, p->num_kernels, p->code_bytes);
    for (uint32_t i = 0; i < p->num_kernels; i++)
        if (p->kernels[i].flags & PTX_KERNEL_FEMU)
            cu_trace("module: kernel %s: f32 emulated (each F instruction a call into the module's "
                     "emulation code; the unit %s)", p->kernels[i].name,
                     g_info.simt_isa & VMGPU_SIMT_ISA_F ? "has F: VMGPU_PTX_FEMU=1" : "has no F");
    jit_done(jo, ms);
    return CUDA_SUCCESS;
}

void cu_module_free_ptx(struct CUmod_st *m)
{
    code_free(m);
    free(m->pfn);
    m->pfn = NULL;
    m->npfn = 0;
    ptx_module_free(m->ptx);
    m->ptx = NULL;
    free(m->ptx_text);
    m->ptx_text = NULL;
}

/* Loads PTX or a fat binary into a new module of context c (image is not vmgpu's built-in
 * image). All or nothing. */
CUresult cu_module_load_image(struct CUctx_st *c, const void *image, cu_jit_opts *jo, struct CUmod_st **out)
{
    const uint8_t *img = image;
    char *text = NULL;
    CUresult rc;
    /* Byte by byte, so that a shorter text's terminator ends the comparison. */
    if (img[0] == 0x50 && img[1] == 0xed && img[2] == 0x55 && img[3] == 0xba) {
        rc = fatbin_ptx(img, &text, jo);
        if (rc) return rc;
    } else if (img[0] == 0x7f && img[1] == 'E' && img[2] == 'L' && img[3] == 'F') {
        jit_log_error(jo, "an ELF cubin holds NVIDIA machine code; vmgpu runs PTX only");
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    const char *src = text ? text : (const char *)img;
    const char *v = ptx_start(src);
    if (!v) {
        free(text);
        return text ? CUDA_ERROR_INVALID_PTX : CUDA_ERROR_INVALID_IMAGE;
    }
    int maj, min;
    if (!ptx_version_ok(v, &maj, &min)) {
        jit_log_error(jo, "ptx input: PTX ISA %d.%d is newer than this driver's (%d.%d)", maj, min,
                      PTX_ISA_MAX_MAJOR, PTX_ISA_MAX_MINOR);
        free(text);
        return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
    }
    struct CUmod_st *m = calloc(1, sizeof *m);
    if (!m) {
        free(text);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    m->magic = MODULE_MAGIC;
    m->ctx = c;
    rc = translate(m, src, jo);
    if (!rc && vmgpu_trace_enabled()) m->ptx_text = strdup(src);   /* the listing's and faults' lines */
    free(text);
    if (!rc && m->ptx->num_kernels) {
        m->pfn = calloc(m->ptx->num_kernels, sizeof *m->pfn);
        if (!m->pfn) rc = CUDA_ERROR_OUT_OF_MEMORY;
    }
    if (!rc) rc = code_upload(m);
    if (rc) {
        cu_module_free_ptx(m);
        free(m);
        return rc;
    }
    m->npfn = m->ptx->num_kernels;
    for (uint32_t i = 0; i < m->npfn; i++) {
        struct CUfunc_st *f = &m->pfn[i];
        f->magic = FUNC_MAGIC;
        f->mod = m;
        f->pk = &m->ptx->kernels[i];
        f->name = f->pk->name;
        f->max_dyn_shared = -1;
        f->carveout = -1;
        trace_kernel_code(m, f->pk);
    }
    *out = m;
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------ attributes */

static uint32_t unit_threads(void) { return g_info.simt_lanes * g_info.simt_warps; }
static uint32_t unit_shared(void) { return g_info.simt_shared_bytes; }

/* Dynamic shared memory a launch may ask for: as on NVIDIA, 48 KiB (or the unit's memory if
 * smaller) less the static part, unless cuFuncSetAttribute set another limit, which may go up
 * to the unit's memory less the static part (the opt-in limit). */
static int max_dyn_shared(const struct CUfunc_st *f)
{
    int unit = (int)unit_shared() - (int)f->pk->shared_bytes;
    int dflt = (unit_shared() < NV_MAX_SHARED_BLOCK ? (int)unit_shared() : (int)NV_MAX_SHARED_BLOCK) -
               (int)f->pk->shared_bytes;
    if (unit < 0) unit = 0;
    if (dflt < 0) dflt = 0;
    if (f->max_dyn_shared >= 0) return f->max_dyn_shared < unit ? f->max_dyn_shared : unit;
    return dflt;
}

CUresult cu_func_get_attribute(int *pi, CUfunction_attribute a, const struct CUfunc_st *f)
{
    if (!pi) return CUDA_ERROR_INVALID_VALUE;
    const ptx_kernel *k = f->pk;
    int v;
    switch (a) {
    /* A kernel the driver may split (PTX_KERNEL_SPLIT) takes NVIDIA's 1024 threads a block; one
     * with barriers, shared memory or warp-level instructions what the unit holds at once. */
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        v = !k || (k->flags & PTX_KERNEL_SPLIT) ? (int)NV_MAX_BLOCK_THREADS : (int)unit_threads();
        break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: v = k ? (int)k->shared_bytes : 0; break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: v = 0; break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: v = k ? (int)k->stack_bytes : 0; break;
    /* Registers the translator allocates: all 24 it may use (docs/ptx.md), fewer when the
     * kernel declares fewer. */
    case CU_FUNC_ATTRIBUTE_NUM_REGS: v = k ? (int)(k->num_vregs < 24 ? k->num_vregs : 24) : 0; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: {
        int sm = 0;
        if (k) sscanf(f->mod->ptx->target, "sm_%d", &sm);
        v = sm;
        break;
    }
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: v = 50; break;   /* the compute capability reported */
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA: v = 0; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: v = k ? max_dyn_shared(f) : 0; break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: v = f->carveout; break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: v = 0; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    *pi = v;
    return CUDA_SUCCESS;
}

/* Measured: the dynamic shared limit takes 0 .. the device's opt-in limit, the carveout -1 ..
 * 100; every other attribute is read-only (INVALID_VALUE). */
CUresult cu_func_set_attribute(struct CUfunc_st *f, CUfunction_attribute a, int value)
{
    switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: {
        int cap = f->pk ? (int)unit_shared() - (int)f->pk->shared_bytes : (int)NV_MAX_SHARED_BLOCK;
        if (value < 0 || value > cap) return CUDA_ERROR_INVALID_VALUE;
        f->max_dyn_shared = value;
        return CUDA_SUCCESS;
    }
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        if (value < -1 || value > 100) return CUDA_ERROR_INVALID_VALUE;
        f->carveout = value;
        return CUDA_SUCCESS;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

/* ------------------------------------------------------------ argument area */

/* A context's argument area: slots handed out in order around one granule; each remembers the
 * fence of the launch that reads it. */
#define ARGS_MAX_USES 1024
typedef struct cu_args_area {
    uint32_t va, pa, head;
    struct { uint32_t off, size, fence; unsigned ring; } use[ARGS_MAX_USES];
    unsigned first, count;
} cu_args_area;

void cu_args_release(struct CUctx_st *c)
{
    cu_args_area *a = c->args;
    if (!a) return;
    vmgpu_unmap(c->core, a->va, VMGPU_GRANULE);
    vmgpu_phys_free(g_dev, a->pa);
    cu_resv *r = cu_resv_find(a->va, 1);
    if (r) cu_va_free(r);
    free(a);
    c->args = NULL;
}

static CUresult args_area(struct CUctx_st *c, cu_args_area **out)
{
    if (c->args) {
        *out = c->args;
        return CUDA_SUCCESS;
    }
    cu_args_area *a = calloc(1, sizeof *a);
    if (!a) return CUDA_ERROR_OUT_OF_MEMORY;
    int crc = vmgpu_phys_alloc(g_dev, VMGPU_GRANULE, 0, &a->pa);
    if (crc) {
        free(a);
        return cu_core_err(c, crc);
    }
    CUresult rc = cu_va_reserve(VMGPU_GRANULE, VMGPU_GRANULE, 0, 1, &a->va);
    if (!rc) {
        crc = vmgpu_map(c->core, a->va, a->pa, VMGPU_GRANULE, VMGPU_MAP_READ);
        if (crc) {
            cu_va_free(cu_resv_find(a->va, 1));
            rc = cu_core_err(c, crc);
        }
    }
    if (rc) {
        vmgpu_phys_free(g_dev, a->pa);
        free(a);
        return rc;
    }
    cu_trace("launch: argument area of asid %u: pa 0x%08x mapped read-only at VA 0x%08x", vmgpu_ctx_asid(c->core),
             a->pa, a->va);
    c->args = a;
    *out = a;
    return CUDA_SUCCESS;
}

/* The next slot of `size` bytes: earlier launches still reading it are waited for. */
static uint32_t args_slot(cu_args_area *a, uint32_t size)
{
    if (a->head + size > VMGPU_GRANULE) a->head = 0;
    uint32_t off = a->head;
    while (a->count) {
        unsigned i = a->first;
        int overlaps = a->use[i].off < off + size && off < a->use[i].off + a->use[i].size;
        if (!overlaps && a->count < ARGS_MAX_USES) break;
        /* A fault answers the wait too; the ring's work is then gone, so the slot is free. */
        if (vmgpu_fence_query(g_dev, a->use[i].ring, a->use[i].fence) != VMGPU_OK)
            vmgpu_fence_wait(g_dev, a->use[i].ring, a->use[i].fence);
        a->first = (a->first + 1) % ARGS_MAX_USES;
        a->count--;
    }
    a->head = off + round_up32(size ? size : 4, ARGS_SLOT_ALIGN);
    return off;
}

static void args_used(cu_args_area *a, uint32_t off, uint32_t size, unsigned ring, uint32_t fence)
{
    unsigned i = (a->first + a->count) % ARGS_MAX_USES;
    a->use[i].off = off;
    a->use[i].size = round_up32(size ? size : 4, ARGS_SLOT_ALIGN);
    a->use[i].ring = ring;
    a->use[i].fence = fence;
    a->count++;
}

/* ------------------------------------------------------------ launch */

/* The argument block from kernelParams (one pointer per parameter, copied at its offset) or
 * from extra (BUFFER_POINTER / BUFFER_SIZE / END; measured: a size of 0, a missing pointer or
 * size, or an unknown key is INVALID_VALUE, a size above the parameters' LAUNCH_OUT_OF_RESOURCES,
 * a smaller one is taken). */
static CUresult build_args(const ptx_kernel *k, void **params, void **extra, uint8_t *blk)
{
    memset(blk, 0, k->param_bytes);
    if (params && extra) return CUDA_ERROR_INVALID_VALUE;
    if (extra) {
        void *buf = NULL;
        size_t *size = NULL;
        int have_buf = 0;
        for (unsigned i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
            if (i > 64) return CUDA_ERROR_INVALID_VALUE;
            if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
                buf = extra[i + 1];
                have_buf = 1;
            } else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
                size = extra[i + 1];
            } else {
                return CUDA_ERROR_INVALID_VALUE;
            }
        }
        if (!have_buf || !buf || !size || *size == 0) return CUDA_ERROR_INVALID_VALUE;
        if (*size > k->param_bytes) return CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES;
        memcpy(blk, buf, *size);
        return CUDA_SUCCESS;
    }
    if (k->num_params && !params) return CUDA_ERROR_INVALID_VALUE;
    for (uint32_t i = 0; i < k->num_params; i++) {
        if (!params[i]) return CUDA_ERROR_INVALID_VALUE;
        memcpy(blk + k->params[i].offset, params[i], k->params[i].size);
    }
    return CUDA_SUCCESS;
}

static void read_tlb(uint32_t v[3])
{
    vmgpu_hal *h = vmgpu_dev_hal(g_dev);
    v[0] = v[1] = v[2] = 0;
    if (!h) return;
    vmgpu_reg_read(h, VMGPU_REG_TLB_HITS, &v[0]);
    vmgpu_reg_read(h, VMGPU_REG_TLB_MISSES, &v[1]);
    vmgpu_reg_read(h, VMGPU_REG_TLB_EVICTIONS, &v[2]);
}

/* A kernel's fault under the trace: the PC the fault registers hold (FAULT_PC, in the core's
 * fault text "... at PC 0x...") back to the kernel's code offset and the PTX line it came from. */
static void trace_fault_line(const struct CUfunc_st *fn, const char *fault)
{
    const char *at = fault ? strstr(fault, " at PC 0x") : NULL;
    unsigned pc;
    if (!at || sscanf(at, " at PC 0x%x", &pc) != 1) return;
    const struct CUmod_st *m = fn->mod;
    const ptx_kernel *k = fn->pk;
    uint32_t entry = k->entry, bytes = k->code_bytes;
    if ((k->flags & PTX_KERNEL_SPLIT) && pc - (m->code_va + k->split_entry) < k->split_code_bytes)
        entry = k->split_entry, bytes = k->split_code_bytes;  /* the split variant's code */
    uint32_t start = m->code_va + entry;
    if (pc < start || pc - start >= bytes) {
        cu_trace("launch: %s fault at PC 0x%08x: outside the kernel's code (VA 0x%08x, %u bytes)", fn->name, pc,
                 start, bytes);
        return;
    }
    int line = ptx_module_line_of(m->ptx, entry + (pc - start));
    char src[160], ins[96];
    ptx_line_text(m, line, src, sizeof src);
    rv_disasm(rd32(m->ptx->code + entry + (pc - start)), pc, ins, sizeof ins);
    cu_trace("launch: %s fault at PC 0x%08x = %s+0x%x (%s), from PTX line %d: %s", fn->name, pc, fn->name,
             pc - start, ins, line, src);
}

CUresult cu_launch_ptx(struct CUfunc_st *fn, struct CUctx_st *c, vmgpu_stream *s, const unsigned grid[3],
                       const unsigned block[3], unsigned shmem, void **params, void **extra)
{
    const ptx_kernel *k = fn->pk;
    uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
    /* A block larger than the unit holds runs as sub-blocks of the unit's size, one hardware
     * block each (grid x times S), where the kernel cannot tell (PTX_KERNEL_SPLIT: no barrier,
     * shared memory or warp-level instruction); its split entry computes the special registers
     * from six words after the arguments (ptx.h). */
    uint32_t hw_grid[3] = {grid[0], grid[1], grid[2]}, hw_block[3] = {block[0], block[1], block[2]};
    uint32_t split[6] = {0}, entry = k->entry, arg_bytes = k->param_bytes;
    if (threads > unit_threads() && (k->flags & PTX_KERNEL_SPLIT) && unit_threads()) {
        uint32_t c_threads = unit_threads(), subs = (uint32_t)((threads + c_threads - 1) / c_threads);
        split[0] = subs, split[1] = c_threads, split[2] = block[0], split[3] = block[1], split[4] = block[2];
        split[5] = (uint32_t)threads;
        if ((uint64_t)grid[0] * subs > 65535) return CUDA_ERROR_INVALID_VALUE;
        hw_grid[0] = grid[0] * subs;
        hw_block[0] = c_threads, hw_block[1] = hw_block[2] = 1;
        entry = k->split_entry;
        arg_bytes = ((k->param_bytes + 3u) & ~3u) + sizeof split;
    }
    /* The unit's own limits, smaller than NVIDIA's (which the caller checked): INVALID_VALUE, the
     * answer NVIDIA gives past its own. */
    if ((uint64_t)hw_block[0] * hw_block[1] * hw_block[2] > unit_threads()) return CUDA_ERROR_INVALID_VALUE;
    if (hw_grid[0] > 65535) return CUDA_ERROR_INVALID_VALUE;
    if (shmem > (unsigned)max_dyn_shared(fn)) return CUDA_ERROR_INVALID_VALUE;
    /* warp-level instructions exchange through a word per thread at the top of shared memory */
    uint64_t xchg = (k->flags & PTX_KERNEL_NEEDS_WARP32) ? 4 * ((threads + 31) / 32 * 32) : 0;
    if ((uint64_t)k->shared_bytes + shmem + xchg > unit_shared()) {
        cu_trace("launch: %s: %u + %u bytes of shared memory and %llu for the warp-level exchange "
                 "exceed the unit's %u", fn->name, k->shared_bytes, shmem, (unsigned long long)xchg, unit_shared());
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (arg_bytes > MAX_PARAM_BYTES) return CUDA_ERROR_NOT_SUPPORTED;
    uint8_t blk[MAX_PARAM_BYTES];
    CUresult rc = build_args(k, params, extra, blk);
    if (rc) return rc;
    if (split[0]) memcpy(blk + arg_bytes - sizeof split, split, sizeof split);
    cu_args_area *a = NULL;
    rc = args_area(c, &a);
    if (rc) return rc;
    uint32_t off = args_slot(a, arg_bytes);
    int crc = arg_bytes ? vmgpu_phys_write(g_dev, a->pa + off, blk, arg_bytes) : VMGPU_OK;
    if (crc) return cu_core_err(c, crc);
    int tracing = vmgpu_trace_enabled();
    uint32_t t0[3], t1[3];
    if (tracing) {
        uint32_t lanes = g_info.simt_lanes;
        uint64_t wpb = (threads + lanes - 1) / lanes, blocks = (uint64_t)grid[0] * grid[1] * grid[2];
        cu_trace("launch: %s<<<(%u,%u,%u), (%u,%u,%u), %u>>>: %llu blocks of %llu threads = %llu warp%s of %u lanes "
                 "each, %llu warps in all; code VA 0x%08x, arguments (%u bytes) at VA 0x%08x, shared %u + %u bytes",
                 fn->name, grid[0], grid[1], grid[2], block[0], block[1], block[2], shmem, (unsigned long long)blocks,
                 (unsigned long long)threads, (unsigned long long)wpb, wpb == 1 ? "" : "s", lanes,
                 (unsigned long long)(wpb * blocks),
                 fn->mod->code_va + k->entry, k->param_bytes, a->va + off, k->shared_bytes, shmem);
        if (split[0])
            cu_trace("launch: %s: each block of %u threads runs as %u sub-blocks of %u (the unit holds %u): "
                     "hardware grid (%u,%u,%u), split entry at VA 0x%08x", fn->name, split[5], split[0], split[1],
                     unit_threads(), hw_grid[0], hw_grid[1], hw_grid[2], fn->mod->code_va + entry);
        vmgpu_stream_sync(s);   /* the counters below are this launch's alone */
        read_tlb(t0);
    }
    crc = vmgpu_cmd_launch_prog(s, fn->mod->code_va + entry, a->va + off, hw_grid, hw_block, k->shared_bytes + shmem);
    uint32_t fence = 0;
    if (!crc) crc = vmgpu_stream_submit(s, &fence);
    if (crc) return cu_core_err(c, crc);
    args_used(a, off, arg_bytes, vmgpu_stream_ring(s), fence);
    if (tracing) {
        /* Synchronous under the trace: the fills and faults of this launch are printed with it. */
        int wrc = vmgpu_stream_sync(s);
        read_tlb(t1);
        cu_trace("launch: %s done: TLB hits %u, fills (walks) %u, evictions %u%s%s", fn->name, t1[0] - t0[0],
                 t1[1] - t0[1], t1[2] - t0[2], wrc ? "; FAULT: " : "", wrc ? vmgpu_dev_last_error(g_dev) : "");
        if (wrc) trace_fault_line(fn, vmgpu_dev_last_error(g_dev));
        if (wrc) cu_core_err(c, wrc);
    }
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------ module queries */

/* A .global/.const variable of a PTX module: its device address and size (either output may be
 * NULL, as with NVIDIA's driver); NOT_FOUND for another name or a module without variables. */
CUresult cu_module_get_global(CUdeviceptr *dptr, size_t *bytes, struct CUmod_st *m, const char *name)
{
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    const ptx_global *gl = m->ptx && m->data ? ptx_module_global(m->ptx, name) : NULL;
    if (!gl) return CUDA_ERROR_NOT_FOUND;
    if (dptr) *dptr = (CUdeviceptr)m->data->va + gl->offset;
    if (bytes) *bytes = gl->size;
    return CUDA_SUCCESS;
}

