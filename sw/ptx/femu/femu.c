/*
 * femu_exec: one F-extension instruction carried out in software, for the PTX translator's code
 * on a unit without F (docs/ptx.md, "f32 on a unit without F"). Built for rv32im at vmgpu's
 * build time (sw/ptx/CMakeLists.txt), linked position-independent and embedded in libcuda; the
 * translator places it in a module's code ahead of the first kernel that needs it and turns
 * every F instruction it emits into a call through femu_entry.S.
 *
 * The arithmetic is sw/opencl/vmgpu_softfloat.c's model of the unit's simt_fpu and simt_fdiv,
 * bit for bit, so a kernel computes here what it computes on a unit with F. What is not kept:
 * the exception flags (fflags reads as what was last written; the translator never reads it).
 *
 * f: the thread's F state: 32 F registers, then frm, fflags and fnan (CSRs 0x002, 0x001,
 * 0x801), then the word through which the translated code passes an integer operand (fcvt.s.w,
 * a CSR write) and takes an integer result (fcmp, fcvt.w.s, fclass, the CSR's old value).
 */
#include "vmgpu_softfloat.c"

typedef unsigned int u32;
enum { FRM = 32, FFLAGS = 33, FNAN = 34, XOP = 35 };

static u32 fclass(u32 a)
{
    u32 s = a >> 31, e = (a >> 23) & 0xffu, m = a & 0x7fffffu;
    if (e == 0xffu) {
        if (m) return (m & 0x400000u) ? 1u << 9 : 1u << 8;
        return s ? 1u << 0 : 1u << 7;
    }
    if (e == 0) {
        if (!m) return s ? 1u << 3 : 1u << 4;
        return s ? 1u << 2 : 1u << 5;
    }
    return s ? 1u << 1 : 1u << 6;
}

static u32 csr_read(const u32 *f, u32 csr)
{
    switch (csr) {
    case 0x001: return f[FFLAGS] & 31u;
    case 0x002: return f[FRM] & 7u;
    case 0x003: return ((f[FRM] & 7u) << 5) | (f[FFLAGS] & 31u);
    default: return f[FNAN] & 1u;  /* 0x801 */
    }
}

static void csr_write(u32 *f, u32 csr, u32 v)
{
    switch (csr) {
    case 0x001: f[FFLAGS] = v & 31u; break;
    case 0x002: f[FRM] = v & 7u; break;
    case 0x003: f[FRM] = (v >> 5) & 7u; f[FFLAGS] = v & 31u; break;
    default: f[FNAN] = v & 1u; break;
    }
}

void femu_exec(u32 w, u32 *f)
{
    u32 opc = w & 0x7fu, rd = (w >> 7) & 31u, f3 = (w >> 12) & 7u, rs1 = (w >> 15) & 31u;
    u32 rs2 = (w >> 20) & 31u, f7 = w >> 25;
    int nv = (int)(f[FNAN] & 1u);
    int rm = f3 == 7u ? (int)(f[FRM] & 7u) : (int)f3;
    u32 a = f[rs1], b = f[rs2];

    if (opc == 0x73u) { /* csrrw csrrs csrrc, and their immediate forms */
        u32 csr = w >> 20, old = csr_read(f, csr), src = f3 >= 5u ? rs1 : f[XOP], v = old;
        switch (f3 & 3u) {
        case 1: v = src; break;
        case 2: v = old | src; break;
        case 3: v = old & ~src; break;
        }
        csr_write(f, csr, v);
        f[XOP] = old;
        return;
    }
    if (opc == 0x43u || opc == 0x47u || opc == 0x4bu || opc == 0x4fu) {
        u32 c = f[w >> 27];
        if (opc == 0x4bu || opc == 0x4fu) a ^= 0x80000000u; /* fnmsub, fnmadd: -(a * b) */
        if (opc == 0x47u || opc == 0x4fu) c ^= 0x80000000u; /* fmsub, fnmadd: - c */
        f[rd] = vmsf_op_fma(a, b, c, rm, nv);
        return;
    }
    if (opc != 0x53u) __builtin_trap();
    switch (f7) {
    case 0x00: f[rd] = vmsf_op_add(a, b, rm, nv); return;
    case 0x04: f[rd] = vmsf_op_sub(a, b, rm, nv); return;
    case 0x08: f[rd] = vmsf_op_mul(a, b, rm, nv); return;
    case 0x0c: f[rd] = vmsf_op_div(a, b, rm, nv); return;
    case 0x2c: f[rd] = vmsf_op_sqrt(a, rm, nv); return;
    case 0x10: /* fsgnj, fsgnjn, fsgnjx */
        if (f3 == 0) f[rd] = (a & 0x7fffffffu) | (b & 0x80000000u);
        else if (f3 == 1) f[rd] = (a & 0x7fffffffu) | (~b & 0x80000000u);
        else f[rd] = a ^ (b & 0x80000000u);
        return;
    case 0x14: f[rd] = f3 ? vmsf_op_max(a, b, nv) : vmsf_op_min(a, b, nv); return;
    case 0x50: { /* fle flt feq */
        int c = vmsf_op_cmp(a, b);
        f[XOP] = f3 == 2 ? c == 0 : f3 == 1 ? c == -1 : (c == -1 || c == 0);
        return;
    }
    case 0x60: f[XOP] = rs2 ? vmsf_op_cvt_wu(a, rm, nv) : vmsf_op_cvt_w(a, rm, nv); return;
    case 0x68: f[rd] = rs2 ? vmsf_op_cvt_s_wu(f[XOP], rm) : vmsf_op_cvt_s_w(f[XOP], rm); return;
    case 0x70: f[XOP] = f3 ? fclass(a) : a; return; /* fclass.s, fmv.x.w */
    case 0x78: f[rd] = f[XOP]; return;              /* fmv.w.x */
    }
    __builtin_trap();
}
