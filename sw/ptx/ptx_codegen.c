// Code generation: one kernel's PTX instructions, with registers allocated, to RV32IM words.
//
// Every PTX state space is one 32-bit virtual address space on the unit: .global and generic
// addresses are device VAs, .shared variables live at shared_base + their offset, .local
// arrays on the thread's stack, so cvta is a move and a generic access needs no check.
// Kernel parameters are read from the argument block whose VA CSR 0xCCE holds.
//
// A 64-bit register is a pair of words: its low word, and a companion vreg for the high word
// that is computed only where it is live (docs/ptx.md, "64-bit registers"). Address arithmetic
// only ever needs the low words, so it costs what it did when 64-bit registers were narrowed;
// compares, right shifts, stores and the like compute with both words (gen_int64).
//
// Scratch registers: t0-t2 (x5-x7) take spilled or immediate sources, t3 (x28) and t6 (x31)
// are temporaries of the longer expansions, t4 (x29) a spilled destination.
//
// f32 registers live in the unit's F register file (f4-f31; f0-f2 take spilled or immediate
// sources, f3 a spilled destination) and f32 arithmetic is the F extension's, rounding as the
// PTX modifier says. Where an integer instruction names an f32 register (mov.b32, selp, st) its
// bits move through fmv.x.w / fmv.w.x. A kernel that uses F sets CSR 0x801 (fnan) first, so
// NaN results are NVIDIA's 0x7fffffff and float-to-integer conversions of NaN give 0, as on
// NVIDIA's GPUs (docs/ptx.md, "f32").
//
// For a unit without F (ptx_options.emulate_f) the same code is generated and emit() turns each
// F instruction into integer code as it goes: flw/fsw/fmv.x.w/fmv.w.x into loads and stores of
// the F registers, which then live in the thread's stack above the kernel's frame; everything
// else into a call of femu_entry.S's trampoline with the instruction word after the call
// (docs/ptx.md, "f32 on a unit without F"). Branches over F instructions are therefore always
// patched from where the code really ends, never written with a fixed length.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"
#include "rv32_encode.h"

enum { S0 = 5, S1 = 6, S2 = 7, T0 = 28, T1 = 31, SD = 29 };
enum { FS0 = 0, FS1 = 1, FS2 = 2, FSD = 3 };

typedef struct cg {
  ptx_ctx *c;
  kernel_ir *k;
  const insn *in;
  uint32_t *buf;
  int n, cap;
  int *label_at;   // code word of each instruction, from the previous pass
  int *insn_at;    // this pass
  int long_br;     // conditional branches as an inverted branch over a jal
  int overflow;    // a short branch did not reach
  uint32_t local_base, frame;
  uint32_t div_base;  // the 64-bit division's stack scratch (16 bytes), where the kernel has one
  uint32_t shared_end;
  uint32_t flags;
  int uses_f;      // the kernel has f32 registers or instructions: it sets CSR 0x801 first
  int split;       // the split variant: the block runs as sub-blocks (split_sreg)
  uint32_t hid;    // there: the offset of the launch's hidden words in the argument block
  int femu;        // F instructions emulated (emulate_f and the kernel has f32): see emit()
  ptx_reloc *relocs;  // this pass's references to the data segment (code_offset: word index)
  int nrelocs, cap_relocs;
} cg;

static void emit_word(cg *g, uint32_t w) {
  if (g->n == g->cap) {
    int cap = g->cap ? 2 * g->cap : 256;
    uint32_t *b = realloc(g->buf, (size_t)cap * 4);
    if (!b) ptx_fail(g->c, PTX_ERR_NO_MEMORY, 0, NULL, "out of host memory");
    g->buf = b;
    g->cap = cap;
    g->c->tmp[0] = b;
  }
  g->buf[g->n++] = w;
}

// ------------------------------------------------------------------------ F emulation

static void __attribute__((noreturn, format(printf, 3, 4))) fail(cg *g, ptx_status st, const char *fmt, ...);

// The thread's F state above the kernel's frame: f0-f31, then frm, fflags, fnan and the word that
// carries an integer operand in and an integer result out (femu.c)
enum { FEMU_STATE = 144, FEMU_FRM = 128, FEMU_FNAN = 136, FEMU_XOP = 140 };
// Below sp while an emulated instruction runs: femu_entry.S's save area (x[i] at sp - 128 +
// 4i; the flw/fsw expansions borrow the slots of x1 and x3), then femu_exec's frames (at most
// FEMU_CSTACK bytes: the build checks the blob's frames)
enum { FEMU_SAVE = 128, FEMU_CSTACK = 256 };

#ifdef VMGPU_PTX_FEMU
#include "ptx_femu.inc"  // ptx_femu_code[]: femu_entry.S and femu.c, built for rv32im (sw/ptx/CMakeLists.txt)
int ptx_femu_available(void) { return 1; }
#else
static const uint8_t ptx_femu_code[4] = {0};
int ptx_femu_available(void) { return 0; }
#endif

// Whether w is an instruction of the F extension, or a CSR instruction on one of its CSRs
// (fflags, frm, fcsr) or on fnan (0x801): what a unit without F cannot execute.
static int is_f_word(uint32_t w) {
  uint32_t opc = w & 0x7Fu, f3 = (w >> 12) & 7u;
  if (opc == 0x73 && f3 != 0 && f3 != 4) {
    uint32_t csr = w >> 20;
    return csr == 0x001 || csr == 0x002 || csr == 0x003 || csr == 0x801;
  }
  return ((opc == 0x07 || opc == 0x27) && f3 == 2) || opc == RV_FMADD || opc == RV_FMSUB ||
         opc == RV_FNMSUB || opc == RV_FNMADD || opc == 0x53;
}

// F instruction w as integer code (g->femu). The F registers are words at sp + frame.
static void femu_expand(cg *g, uint32_t w) {
  uint32_t opc = w & 0x7Fu, rd = (w >> 7) & 31u, f3 = (w >> 12) & 7u, rs1 = (w >> 15) & 31u;
  uint32_t rs2 = (w >> 20) & 31u, f7 = w >> 25;
  int32_t fo = (int32_t)g->frame;
  if (opc == 0x07 || opc == 0x27) {  // flw/fsw through a register saved in its save-area slot
    int t = rs1 == 1 ? 3 : 1;
    emit_word(g, rv_store(2, t, RV_SP, -FEMU_SAVE + 4 * t));
    if (opc == 0x07) {
      emit_word(g, rv_load(2, t, (int)rs1, (int32_t)w >> 20));
      emit_word(g, rv_store(2, t, RV_SP, fo + 4 * (int32_t)rd));
    } else {
      emit_word(g, rv_load(2, t, RV_SP, fo + 4 * (int32_t)rs2));
      emit_word(g, rv_store(2, t, (int)rs1, ((int32_t)(w & 0xFE000000u) >> 20) | (int32_t)rd));
    }
    emit_word(g, rv_load(2, t, RV_SP, -FEMU_SAVE + 4 * t));
    return;
  }
  if (opc == 0x53 && f7 == 0x70 && f3 == 0 && rs2 == 0) {  // fmv.x.w
    if (rd) emit_word(g, rv_load(2, (int)rd, RV_SP, fo + 4 * (int32_t)rs1));
    return;
  }
  if (opc == 0x53 && f7 == 0x78 && f3 == 0 && rs2 == 0) {  // fmv.w.x
    emit_word(g, rv_store(2, (int)rs1, RV_SP, fo + 4 * (int32_t)rd));
    return;
  }
  // the rest through the trampoline, at the start of the module's emulation code; an integer
  // operand and result pass through the F state's FEMU_XOP word
  int csr = opc == 0x73, int_src = (csr && f3 < 4) || (opc == 0x53 && f7 == 0x68);
  int int_dst = rd && (csr || (opc == 0x53 && (f7 == 0x50 || f7 == 0x60 || f7 == 0x70)));
  if (int_src) emit_word(g, rv_store(2, (int)rs1, RV_SP, fo + FEMU_XOP));
  emit_word(g, rv_store(2, 1, RV_SP, -FEMU_SAVE + 4));
  int64_t off = g->c->femu_at - ((int64_t)g->c->code_bytes + 4 * (int64_t)g->n);
  if (off < -(1 << 20) || off >= (1 << 20))
    fail(g, PTX_ERR_NOT_SUPPORTED, "the module's code is too large for a call to its F emulation (1 MiB)");
  emit_word(g, rv_j((int32_t)off, 1));
  emit_word(g, w);
  emit_word(g, rv_load(2, 1, RV_SP, -FEMU_SAVE + 4));
  if (int_dst) emit_word(g, rv_load(2, (int)rd, RV_SP, fo + FEMU_XOP));
}

static void emit(cg *g, uint32_t w) {
  if (g->femu && is_f_word(w)) femu_expand(g, w);
  else emit_word(g, w);
}

static void __attribute__((noreturn, format(printf, 3, 4))) fail(cg *g, ptx_status st, const char *fmt, ...) {
  char msg[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  ptx_fail(g->c, st, g->in->line, g->in->text, "%s", msg);
}

static int fits12(int64_t v) { return v >= -2048 && v <= 2047; }

static void li(cg *g, int rd, int32_t v) {
  if (fits12(v)) {
    emit(g, rv_opi(RV_ADDI, rd, RV_ZERO, v));
    return;
  }
  uint32_t hi = ((uint32_t)v + 0x800u) >> 12;
  int32_t lo = (int32_t)((uint32_t)v - (hi << 12));
  emit(g, rv_lui(rd, hi));
  if (lo) emit(g, rv_opi(RV_ADDI, rd, rd, lo));
}

static void mv(cg *g, int rd, int rs) {
  if (rd != rs) emit(g, rv_opi(RV_ADDI, rd, rs, 0));
}

// rd = the VA of byte `off` of the module's data segment: a lui/addi pair holding `off` as if
// the segment were at 0, recorded for the loader to add the segment's VA (ptx_module_relocate).
static void data_addr(cg *g, int rd, uint32_t off) {
  g->relocs = ptx_grow(g->c, g->relocs, &g->cap_relocs, g->nrelocs + 1, sizeof(ptx_reloc));
  g->c->tmp[3] = g->relocs;  // freed with the pass's other buffers
  g->relocs[g->nrelocs++] = (ptx_reloc){(uint32_t)g->n, off};
  uint32_t hi = (off + 0x800u) >> 12;
  emit(g, rv_lui(rd, hi));
  emit(g, rv_opi(RV_ADDI, rd, rd, (int32_t)(off - (hi << 12))));
}

// ------------------------------------------------------------------------------ types

typedef struct tinfo {
  int bits;        // 8, 16, 32, 64; 1 for .pred
  int is_signed;
  int is_float;
} tinfo;

static tinfo parse_type(const char *t) {
  tinfo r = {0, 0, 0};
  if (!t) return r;
  if (!strcmp(t, "pred")) return (tinfo){1, 0, 0};
  r.is_signed = t[0] == 's';
  r.is_float = t[0] == 'f' || !strncmp(t, "bf", 2);
  const char *d = t;
  while (*d && (*d < '0' || *d > '9')) ++d;
  r.bits = atoi(d);
  if (strstr(t, "x2")) r.bits = 32;
  return r;
}

// The instruction's (last) type; f32/f64 arithmetic and 16-bit arithmetic are refused here.
static tinfo int_type(cg *g, int allow64, int allow_pred) {
  const char *t = insn_type(g->in);
  if (!t) fail(g, PTX_ERR_INVALID_PTX, "%s needs a type", g->in->op);
  tinfo ti = parse_type(t);
  if (ti.is_float)
    fail(g, PTX_ERR_NOT_SUPPORTED,
         "floating-point %s (.%s) needs the F extension, which the SIMT unit does not have yet",
         g->in->op, t);
  if (ti.bits == 1 && !allow_pred) fail(g, PTX_ERR_INVALID_PTX, ".pred is not a type of %s", g->in->op);
  if (ti.bits == 8 || ti.bits == 16)
    fail(g, PTX_ERR_NOT_SUPPORTED, "%d-bit integer %s is not supported", ti.bits, g->in->op);
  if (ti.bits == 64 && !allow64)
    fail(g, PTX_ERR_NOT_SUPPORTED, "64-bit %s is not supported (docs/ptx.md, \"64-bit registers\")",
         g->in->op);
  if (ti.bits > 64) fail(g, PTX_ERR_NOT_SUPPORTED, "type .%s is not supported", t);
  return ti;
}

// Every modifier of the instruction must be in `allowed` (space-separated), so that nothing
// that changes the meaning is ignored.
static void only_mods(cg *g, const char *allowed) {
  for (int i = 0; i < g->in->nmods; ++i) {
    const char *m = g->in->mods[i];
    size_t ml = strlen(m);
    const char *p = allowed;
    int ok = 0;
    while (*p && !ok) {
      const char *e = strchr(p, ' ');
      size_t l = e ? (size_t)(e - p) : strlen(p);
      ok = l == ml && strncmp(p, m, l) == 0;
      p = e ? e + 1 : p + l;
    }
    if (!ok) fail(g, PTX_ERR_NOT_SUPPORTED, "modifier .%s of %s is not supported", m, g->in->op);
  }
}

static void need_opnds(cg *g, int n) {
  if (g->in->nopnd != n) fail(g, PTX_ERR_INVALID_PTX, "%s takes %d operands, found %d", g->in->op, n, g->in->nopnd);
}

// ------------------------------------------------------------------------------ operands

static const vreg *reg_of(cg *g, int r) {
  const vreg *v = &g->k->regs[r];
  if (v->rc == RC_F64) fail(g, PTX_ERR_NOT_SUPPORTED, "f64 registers need the D extension, which the unit does not have");
  return v;
}

static uint32_t sym_va_or_sp(cg *g, const sym *s, int64_t imm, int *on_stack) {
  *on_stack = 0;
  if (s->kind == SYM_SHARED) {
    uint32_t off = s->value;
    if (off == UINT32_MAX) off = (g->c->shared_bytes + 15u) & ~15u;  // dynamic shared
    else if (off + s->size > g->shared_end) g->shared_end = off + s->size;
    return g->c->opt.shared_base + off + (uint32_t)imm;
  }
  if (s->kind == SYM_LOCAL) {
    *on_stack = 1;
    return g->local_base + s->value + (uint32_t)imm;
  }
  if (s->kind == SYM_PARAM) fail(g, PTX_ERR_NOT_SUPPORTED, "the address of kernel parameter %s is not supported", s->name);
  fail(g, PTX_ERR_INVALID_PTX, "%s is a label, not a variable", s->name);
}

// %laneid and %warpid as NVIDIA's 32-thread warps give them: the thread's linear index in its
// block (x fastest) mod 32, and divided by 32 (the same for the 32 threads of a warp, unique in
// the block). The unit's own lane and warp (CSRs 0xCCC/0xCCD) count 4-lane warps, which programs
// must not see: the device reports WARP_SIZE 32 (docs/cuda.md). Uses rd and T0.
static void warp32_id(cg *g, int rd, int lane) {
  emit(g, rv_csrrs(rd, 0xCC2, RV_ZERO));  // tid.z
  emit(g, rv_csrrs(T0, 0xCC4, RV_ZERO));  // ntid.y
  emit(g, rv_op(RV_MUL, rd, rd, T0));
  emit(g, rv_csrrs(T0, 0xCC1, RV_ZERO));  // tid.y
  emit(g, rv_op(RV_ADD, rd, rd, T0));
  emit(g, rv_csrrs(T0, 0xCC3, RV_ZERO));  // ntid.x
  emit(g, rv_op(RV_MUL, rd, rd, T0));
  emit(g, rv_csrrs(T0, 0xCC0, RV_ZERO));  // tid.x
  emit(g, rv_op(RV_ADD, rd, rd, T0));
  emit(g, lane ? rv_opi(RV_ANDI, rd, rd, 31) : rv_srli(rd, rd, 5));
}

// The split variant (ptx.h, PTX_KERNEL_SPLIT): a block larger than the unit holds runs as S
// sub-blocks of C threads each, hardware blocks S * ctaid.x + k. The launch appends six words to
// the argument block, at `hid`: S, C, the block's ntid.x, .y, .z, and its thread count. The
// thread's linear index in its block is L = (hw ctaid.x mod S) * C + hw tid.x; the special
// registers are computed from it (x fastest, as NVIDIA numbers threads), ctaid.x and nctaid.x
// divided by S. Used only by kernels that cannot tell: no barrier, no shared memory, no
// warp-level instruction. Uses rd and T0.
static void hidden_word(cg *g, int rd, int i) {
  emit(g, rv_csrrs(rd, 0xCCE, RV_ZERO));
  emit(g, rv_load(2, rd, rd, (int32_t)(g->hid + 4u * (uint32_t)i)));
}
static void split_linear(cg *g, int rd) {
  emit(g, rv_csrrs(T0, 0xCC6, RV_ZERO));  // hw ctaid.x
  hidden_word(g, rd, 0);                   // S
  emit(g, rv_op(RV_REMU, T0, T0, rd));
  hidden_word(g, rd, 1);                   // C
  emit(g, rv_op(RV_MUL, T0, T0, rd));
  emit(g, rv_csrrs(rd, 0xCC0, RV_ZERO));  // hw tid.x
  emit(g, rv_op(RV_ADD, rd, rd, T0));
}
static int split_sreg(cg *g, int rd, int sreg) {
  switch (sreg) {
    case 0xCC0:  // tid.x = L mod ntid.x
      split_linear(g, rd);
      hidden_word(g, T0, 2);
      emit(g, rv_op(RV_REMU, rd, rd, T0));
      return 1;
    case 0xCC1:  // tid.y = L / ntid.x mod ntid.y
    case 0xCC2:  // tid.z = L / ntid.x / ntid.y
      split_linear(g, rd);
      hidden_word(g, T0, 2);
      emit(g, rv_op(RV_DIVU, rd, rd, T0));
      hidden_word(g, T0, 3);
      emit(g, rv_op(sreg == 0xCC1 ? RV_REMU : RV_DIVU, rd, rd, T0));
      return 1;
    case 0xCC3: case 0xCC4: case 0xCC5:  // ntid: the block's own
      hidden_word(g, rd, 2 + (sreg - 0xCC3));
      return 1;
    case 0xCC6: case 0xCC9:  // ctaid.x, nctaid.x: the hardware's / S
      emit(g, rv_csrrs(rd, (uint32_t)sreg, RV_ZERO));
      hidden_word(g, T0, 0);
      emit(g, rv_op(RV_DIVU, rd, rd, T0));
      return 1;
    case 0xCCC: case 0xCCD:  // %laneid, %warpid of NVIDIA's 32-thread warps
      split_linear(g, rd);
      emit(g, sreg == 0xCCC ? rv_opi(RV_ANDI, rd, rd, 31) : rv_srli(rd, rd, 5));
      return 1;
    default:  // ctaid.y/.z, nctaid.y/.z, %clock: the hardware's
      return 0;
  }
}

// A source operand in a register: its own, or `scratch` loaded with it (an f32 register's bits).
static int src(cg *g, const opnd *o, int scratch) {
  switch (o->kind) {
    case O_REG: {
      const vreg *v = reg_of(g, o->reg);
      if (v->phys >= 0 && v->rc == RC_F32) {
        emit(g, rv_fop(RV_FMV_X_W, scratch, v->phys, 0, 0));
        return scratch;
      }
      if (v->phys >= 0) return v->phys;
      emit(g, rv_load(2, scratch, RV_SP, v->slot));
      return scratch;
    }
    case O_IMM:
      if ((int32_t)o->imm == 0) return RV_ZERO;
      li(g, scratch, (int32_t)o->imm);
      return scratch;
    case O_SREG:
      if (g->split && split_sreg(g, scratch, o->sreg)) return scratch;
      if (o->sreg == 0xCCC || o->sreg == 0xCCD) {
        warp32_id(g, scratch, o->sreg == 0xCCC);
        return scratch;
      }
      emit(g, rv_csrrs(scratch, (uint32_t)o->sreg, RV_ZERO));
      return scratch;
    case O_SYM: {
      int on_stack;
      if (g->k->syms[o->sym].kind == SYM_GLOBAL) {
        data_addr(g, scratch, g->k->syms[o->sym].value + (uint32_t)o->imm);
        return scratch;
      }
      uint32_t v = sym_va_or_sp(g, &g->k->syms[o->sym], o->imm, &on_stack);
      if (on_stack) {
        if (!fits12((int32_t)v)) fail(g, PTX_ERR_NOT_SUPPORTED, "stack offset %u too large", v);
        emit(g, rv_opi(RV_ADDI, scratch, RV_SP, (int32_t)v));
      } else {
        li(g, scratch, (int32_t)v);
      }
      return scratch;
    }
    default:
      fail(g, PTX_ERR_INVALID_PTX, "bad source operand of %s", g->in->op);
  }
}

static int dst_vreg(cg *g, const opnd *o) {
  if (o->kind != O_REG) fail(g, PTX_ERR_INVALID_PTX, "the destination of %s must be a register", g->in->op);
  reg_of(g, o->reg);
  return o->reg;
}
static int dst(cg *g, int vr) {
  const vreg *v = &g->k->regs[vr];
  return v->phys >= 0 && v->rc != RC_F32 ? v->phys : SD;
}
static void put(cg *g, int vr, int r) {
  const vreg *v = &g->k->regs[vr];
  if (v->phys >= 0 && v->rc == RC_F32) emit(g, rv_fop(RV_FMV_W_X, v->phys, r, 0, 0));
  else if (v->phys >= 0) mv(g, v->phys, r);
  else emit(g, rv_store(2, r, RV_SP, v->slot));
}
static int rc_of(cg *g, int vr) { return g->k->regs[vr].rc; }

// 64-bit registers' high words (see "64-bit integers" below)
static int hi_vreg(cg *g, int vr) { return vr >= 0 ? g->k->regs[vr].hi : -1; }

// The high word of a source: a 64-bit register's companion, an immediate's upper half; 0 for
// 32-bit registers, special registers and symbol addresses (all below 2^32).
static int src_hi(cg *g, const opnd *o, int scratch) {
  if (o->kind == O_REG) {
    int h = hi_vreg(g, o->reg);
    if (h < 0) return RV_ZERO;
    const vreg *v = &g->k->regs[h];
    if (v->phys >= 0) return v->phys;
    if (v->slot < 0) return RV_ZERO;  // never live: no instruction reads its value
    emit(g, rv_load(2, scratch, RV_SP, v->slot));
    return scratch;
  }
  if (o->kind == O_IMM) {
    int32_t h = (int32_t)((uint64_t)o->imm >> 32);
    if (!h) return RV_ZERO;
    li(g, scratch, h);
    return scratch;
  }
  return RV_ZERO;
}

// Writes the high word of destination vreg `vr` (a 64-bit register) from `r`.
static void put_hi(cg *g, int vr, int r) {
  int h = hi_vreg(g, vr);
  if (h >= 0) put(g, h, r);
}

static int is_b64_reg(cg *g, const opnd *o) { return o->kind == O_REG && hi_vreg(g, o->reg) >= 0; }

// dlo:dhi = (slo:shi ^ s) - s over the pair, s all ones or 0: the pair negated where s is all
// ones (abs, and the sign fixes of division and conversion). `borrow` is a scratch register.
static void neg_where64(cg *g, int dlo, int dhi, int slo, int shi, int s, int borrow) {
  emit(g, rv_op(RV_XOR, dlo, slo, s));
  emit(g, rv_op(RV_XOR, dhi, shi, s));
  emit(g, rv_op(RV_SLTU, borrow, dlo, s));
  emit(g, rv_op(RV_SUB, dlo, dlo, s));
  emit(g, rv_op(RV_SUB, dhi, dhi, s));
  emit(g, rv_op(RV_SUB, dhi, dhi, borrow));
}


// Zero-extends the low 16 bits (a 16-bit register's canonical form).
static void zext16(cg *g, int rd, int rs) {
  emit(g, rv_slli(rd, rs, 16));
  emit(g, rv_srli(rd, rd, 16));
}
static void extend(cg *g, int rd, int rs, int bits, int is_signed) {
  if (bits >= 32 || bits <= 1) {
    mv(g, rd, rs);
    return;
  }
  if (!is_signed && bits == 8) {
    emit(g, rv_opi(RV_ANDI, rd, rs, 0xFF));
    return;
  }
  emit(g, rv_slli(rd, rs, 32 - bits));
  emit(g, is_signed ? rv_srai(rd, rd, 32 - bits) : rv_srli(rd, rd, 32 - bits));
}

// rd = p ? a : b, branch-free (p is 0 or 1); rd may be any of them
static void select_reg(cg *g, int rd, int p, int a, int b) {
  emit(g, rv_op(RV_SUB, T0, RV_ZERO, p));
  emit(g, rv_op(RV_XOR, T1, a, b));
  emit(g, rv_op(RV_AND, T0, T0, T1));
  emit(g, rv_op(RV_XOR, rd, b, T0));
}


// ------------------------------------------------------------------------------ f32 operands

static int is_freg(cg *g, const opnd *o) { return o->kind == O_REG && g->k->regs[o->reg].rc == RC_F32; }

// An f32 source in an F register: its own, or `fscratch` loaded with it (a spilled register's
// slot, an integer register's or an immediate's bits).
static int fsrc(cg *g, const opnd *o, int fscratch) {
  if (is_freg(g, o)) {
    const vreg *v = &g->k->regs[o->reg];
    if (v->phys >= 0) return v->phys;
    emit(g, rv_flw(fscratch, RV_SP, v->slot));
    return fscratch;
  }
  if (o->kind == O_IMM && (uint32_t)o->imm > 0xFFFFFFFFu && (o->imm >> 32) != -1)
    fail(g, PTX_ERR_NOT_SUPPORTED, "a 64-bit (f64) immediate in an f32 instruction");
  int r = src(g, o, T0);
  emit(g, rv_fop(RV_FMV_W_X, fscratch, r, 0, 0));
  return fscratch;
}
static int fdst(cg *g, int vr) {
  const vreg *v = &g->k->regs[vr];
  return v->rc == RC_F32 && v->phys >= 0 ? v->phys : FSD;
}
static void fput(cg *g, int vr, int fr) {
  const vreg *v = &g->k->regs[vr];
  if (v->rc == RC_F32) {
    if (v->phys < 0) emit(g, rv_fsw(fr, RV_SP, v->slot));
    else if (v->phys != fr) emit(g, rv_fop(RV_FSGNJ, v->phys, fr, fr, 0));  // fmv.s
    return;
  }
  if (v->rc != RC_B32) fail(g, PTX_ERR_INVALID_PTX, "an f32 result needs a 32-bit register");
  emit(g, rv_fop(RV_FMV_X_W, SD, fr, 0, 0));
  put(g, vr, SD);
}

// PTX's rounding modifier as the F extension's static rounding mode: .rn (the default) RNE,
// .rz RTZ, .rm RDN, .rp RUP; `irnd` takes the integer forms (.rni .rzi .rmi .rpi) instead.
static uint32_t f_round(cg *g, int irnd) {
  static const char *const names[2][4] = {{"rn", "rz", "rm", "rp"}, {"rni", "rzi", "rmi", "rpi"}};
  for (int i = 0; i < g->in->nmods; ++i)
    for (int r = 0; r < 4; ++r)
      if (!strcmp(g->in->mods[i], names[irnd][r])) return (uint32_t)r;
  return RV_RNE;
}
static int has_round(cg *g, int irnd) {
  static const char *const names[2][4] = {{"rn", "rz", "rm", "rp"}, {"rni", "rzi", "rmi", "rpi"}};
  for (int r = 0; r < 4; ++r)
    if (insn_has(g->in, names[irnd][r])) return 1;
  return 0;
}

// .sat where it is not translated (it is on add, sub, mul, fma and cvt.f32.f32: fres_ftz)
static void f_refuse_inexact(cg *g) {
  const insn *in = g->in;
  if (insn_has(in, "sat"))
    fail(g, PTX_ERR_NOT_SUPPORTED, "%s: .sat (clamping to [0, 1]) is not supported", in->text);
}

// .ftz: subnormal inputs and results are flushed to a zero of their sign (PTX ISA, "Floating
// Point Instructions"); the unit keeps subnormals, so the translation flushes around the
// operation. Flushes F register f in place when it holds a subnormal (fclass bits 2 and 5).
// Uses T1.
static void ftz_freg(cg *g, int f) {
  emit(g, rv_fop(RV_FMV_X_W, T1, f, 0, 1));         // fclass.s
  emit(g, rv_opi(RV_ANDI, T1, T1, 0x24));
  int at = g->n;
  emit(g, 0);                                       // beq T1, zero: not subnormal
  emit(g, rv_fop(RV_FMV_X_W, T1, f, 0, 0));
  emit(g, rv_srli(T1, T1, 31));
  emit(g, rv_slli(T1, T1, 31));
  emit(g, rv_fop(RV_FMV_W_X, f, T1, 0, 0));
  g->buf[at] = rv_b((g->n - at) * 4, RV_ZERO, T1, 0);
}
// An f32 source as fsrc gives it; under .ftz a copy in `fscratch`, flushed.
static int fsrc_ftz(cg *g, const opnd *o, int fscratch) {
  int r = fsrc(g, o, fscratch);
  if (!insn_has(g->in, "ftz")) return r;
  if (r != fscratch) emit(g, rv_fop(RV_FSGNJ, fscratch, r, r, 0));
  ftz_freg(g, fscratch);
  return fscratch;
}
// .sat: the result clamped to [0.0, 1.0], a NaN to +0 (PTX ISA): fmax with +0 (RISC-V's fmax
// gives the other operand for a NaN, and +0 for -0), then fmin with 1. Uses FS2 and T0.
static void sat_freg(cg *g, int f) {
  emit(g, rv_fop(RV_FMV_W_X, FS2, RV_ZERO, 0, 0));
  emit(g, rv_fop(RV_FMINMAX, f, f, FS2, 1));
  li(g, T0, 0x3F800000);
  emit(g, rv_fop(RV_FMV_W_X, FS2, T0, 0, 0));
  emit(g, rv_fop(RV_FMINMAX, f, f, FS2, 0));
}
// The result in F register fd, clamped under .sat, then flushed under .ftz
static void fres_ftz(cg *g, int fd) {
  if (insn_has(g->in, "sat")) sat_freg(g, fd);
  if (insn_has(g->in, "ftz")) ftz_freg(g, fd);
}

// ------------------------------------------------------------------------------ f32 handlers

// add sub mul .f32 (rounding .rn .rz .rm .rp; none means .rn, unfused: docs/ptx.md)
static void gen_farith(cg *g) {
  const insn *in = g->in;
  only_mods(g, "f32 rn rz rm rp ftz sat");
  need_opnds(g, 3);
  int d = dst_vreg(g, &in->o[0]), fd = fdst(g, d);
  int a = fsrc_ftz(g, &in->o[1], FS0), b = fsrc_ftz(g, &in->o[2], FS1);
  uint32_t f7 = !strcmp(in->op, "add") ? RV_FADD : !strcmp(in->op, "sub") ? RV_FSUB : RV_FMUL;
  emit(g, rv_fop(f7, fd, a, b, f_round(g, 0)));
  fres_ftz(g, fd);
  fput(g, d, fd);
}

// fma.rnd.f32 and mad.rnd.f32 (the same fused operation): one rounding
static void gen_ffma(cg *g) {
  const insn *in = g->in;
  only_mods(g, "f32 rn rz rm rp ftz sat");
  if (!has_round(g, 0))
    fail(g, PTX_ERR_NOT_SUPPORTED, "%s without a rounding modifier is not supported (fma needs .rn, .rz, .rm or .rp)", in->text);
  need_opnds(g, 4);
  int d = dst_vreg(g, &in->o[0]), fd = fdst(g, d);
  int a = fsrc_ftz(g, &in->o[1], FS0), b = fsrc_ftz(g, &in->o[2], FS1), c = fsrc_ftz(g, &in->o[3], FS2);
  emit(g, rv_fma(RV_FMADD, fd, a, b, c, f_round(g, 0)));
  fres_ftz(g, fd);
  fput(g, d, fd);
}

// neg abs (fsgnjn/fsgnjx, NaNs made canonical), min max, copysign (the sign bit only)
static void gen_fother(cg *g) {
  const insn *in = g->in;
  int two = !strcmp(in->op, "min") || !strcmp(in->op, "max") || !strcmp(in->op, "copysign");
  only_mods(g, "f32 ftz");
  f_refuse_inexact(g);
  need_opnds(g, two ? 3 : 2);
  int d = dst_vreg(g, &in->o[0]), fd = fdst(g, d);
  int a = fsrc_ftz(g, &in->o[1], FS0);
  if (!strcmp(in->op, "neg") || !strcmp(in->op, "abs")) {
    // the sign bit, then fmax.s with itself: a NaN becomes the canonical 0x7fffffff, as
    // NVIDIA's neg.f32 and abs.f32 give for every NaN (measured on an H100:
    // tests/ptx/nvidia/fcmp_f32.txt); every other value passes unchanged
    emit(g, rv_fop(RV_FSGNJ, fd, a, a, !strcmp(in->op, "neg") ? 1 : 2));
    emit(g, rv_fop(RV_FMINMAX, fd, fd, fd, 1));
  } else {
    int b = fsrc_ftz(g, &in->o[2], FS1);
    if (!strcmp(in->op, "copysign")) emit(g, rv_fop(RV_FSGNJ, fd, b, a, 0));  // b's value, a's sign
    else emit(g, rv_fop(RV_FMINMAX, fd, a, b, !strcmp(in->op, "max")));
  }
  fput(g, d, fd);
}

// setp.cmp[.bool].f32: feq/flt/fle, swapped or inverted; the unordered forms are the inverse
// of the opposite ordered compare
static void gen_fsetp(cg *g) {
  const insn *in = g->in;
  only_mods(g, "eq ne lt le gt ge equ neu ltu leu gtu geu num nan and or xor f32 ftz");
  f_refuse_inexact(g);
  const char *cmp = in->nmods ? in->mods[0] : "";
  const char *boolop = in->nmods > 2 ? in->mods[1] : NULL;
  if (boolop && strcmp(boolop, "and") && strcmp(boolop, "or") && strcmp(boolop, "xor")) boolop = NULL;
  need_opnds(g, boolop ? 4 : 3);
  int d = dst_vreg(g, &in->o[0]), rd = dst(g, d);
  if (rc_of(g, d) != RC_PRED) fail(g, PTX_ERR_INVALID_PTX, "setp writes a predicate");
  int a = fsrc_ftz(g, &in->o[1], FS0), b = fsrc_ftz(g, &in->o[2], FS1);
  int r = boolop ? T1 : rd;
  enum { EQ = 2, LT = 1, LE = 0 };
  // {compare, swap operands, invert}
  static const struct { const char *n; int f3, swap, inv; } k[] = {
      {"eq", EQ, 0, 0},  {"lt", LT, 0, 0},  {"le", LE, 0, 0},  {"gt", LT, 1, 0},  {"ge", LE, 1, 0},
      {"neu", EQ, 0, 1}, {"geu", LT, 0, 1}, {"gtu", LE, 0, 1}, {"leu", LT, 1, 1}, {"ltu", LE, 1, 1},
      {NULL, 0, 0, 0}};
  int done = 0;
  for (int i = 0; k[i].n && !done; ++i)
    if (!strcmp(cmp, k[i].n)) {
      emit(g, rv_fop(RV_FCMP, r, k[i].swap ? b : a, k[i].swap ? a : b, (uint32_t)k[i].f3));
      if (k[i].inv) emit(g, rv_opi(RV_XORI, r, r, 1));
      done = 1;
    }
  if (!done) {
    if (!strcmp(cmp, "ne") || !strcmp(cmp, "equ")) {  // ne: a < b or b < a; equ: neither
      emit(g, rv_fop(RV_FCMP, T0, a, b, LT));
      emit(g, rv_fop(RV_FCMP, r, b, a, LT));
      emit(g, rv_op(RV_OR, r, r, T0));
      if (!strcmp(cmp, "equ")) emit(g, rv_opi(RV_XORI, r, r, 1));
    } else if (!strcmp(cmp, "num") || !strcmp(cmp, "nan")) {  // num: neither is a NaN
      emit(g, rv_fop(RV_FCMP, T0, a, a, EQ));
      emit(g, rv_fop(RV_FCMP, r, b, b, EQ));
      emit(g, rv_op(RV_AND, r, r, T0));
      if (!strcmp(cmp, "nan")) emit(g, rv_opi(RV_XORI, r, r, 1));
    } else {
      fail(g, PTX_ERR_INVALID_PTX, "comparison .%s is not one of the floating-point comparisons", cmp);
    }
  }
  if (boolop) {
    int c = src(g, &in->o[3], S2);
    enum rv_op o = !strcmp(boolop, "and") ? RV_AND : !strcmp(boolop, "or") ? RV_OR : RV_XOR;
    emit(g, rv_op(o, rd, r, c));
  }
  put(g, d, rd);
}

// selp into an f32 register: the second source, then the first where the predicate holds
static void gen_fselp(cg *g) {
  const insn *in = g->in;
  int d = dst_vreg(g, &in->o[0]), fd = fdst(g, d);
  int p = src(g, &in->o[3], S2);
  int b = fsrc(g, &in->o[2], FS1);
  if (fd != b) emit(g, rv_fop(RV_FSGNJ, fd, b, b, 0));
  int at = g->n;
  emit(g, 0);
  int a = fsrc(g, &in->o[1], FS0);
  emit(g, rv_fop(RV_FSGNJ, fd, a, a, 0));
  g->buf[at] = rv_b((g->n - at) * 4, RV_ZERO, p, 0);  // beq p, zero: keep b
  fput(g, d, fd);
}

static void clz32(cg *g, int x);
// cvt.{rn,rz,rm,rp}.f32.{u64,s64}: a 64-bit integer rounded exactly. Below 2^32 one fcvt.s.wu;
// above, the 32 bits from the highest set bit down, with a sticky bit for everything below them,
// rounded by fcvt.s.wu in the instruction's mode (the sticky bit sits below the rounding
// position, so every mode rounds as it would the whole value), then scaled by 2^s exactly. .s64
// converts the magnitude and sets the sign; .rm/.rp of a negative value round the magnitude the
// other way, through the thread's dynamic rounding mode (CSR frm, put back to RNE afterwards).
static void gen_cvt_f32_64(cg *g, int d, int is_signed, uint32_t rm) {
  const insn *in = g->in;
  const opnd *a = &in->o[1];
  int hi = src_hi(g, a, S1);
  mv(g, S2, hi);
  mv(g, S0, src(g, a, S0));
  uint32_t m = rm;
  if (is_signed) {  // |x| into S2:S0, the sign in FS2's sign bit
    emit(g, rv_srai(SD, S2, 31));
    neg_where64(g, S0, S2, S0, S2, SD, T0);
    emit(g, rv_fop(RV_FMV_W_X, FS2, SD, 0, 0));
    if (rm == RV_RDN || rm == RV_RUP) {  // RDN (2) and RUP (3) differ in bit 0
      emit(g, rv_opi(RV_ANDI, T0, SD, 1));
      emit(g, rv_opi(RV_XORI, T0, T0, (int32_t)rm));
      emit(g, rv_csrrw(RV_ZERO, 0x002, T0));
      m = 7;  // DYN
    }
  }
  int fd = fdst(g, d);
  int small_at = g->n;
  emit(g, 0);                                  // beqz S2: below 2^32
  clz32(g, S2);                                // T0 = clz(hi); uses S1, T1
  li(g, T1, 31);
  emit(g, rv_op(RV_SUB, T1, T1, T0));          // T1 = s - 1 (s = 32 - clz: 1..32)
  emit(g, rv_op(RV_SUB, T0, RV_ZERO, T1));
  emit(g, rv_opi(RV_ADDI, T0, T0, 31));        // T0 = 32 - s (0..31)
  emit(g, rv_op(RV_SLL, SD, S2, T0));          // hi << (32 - s)
  emit(g, rv_srli(S1, S0, 1));
  emit(g, rv_op(RV_SRL, S1, S1, T1));          // (lo >> 1) >> (s - 1)
  emit(g, rv_op(RV_OR, SD, SD, S1));
  emit(g, rv_op(RV_SLL, S1, S0, T0));          // the bits below them: the sticky bit
  emit(g, rv_op(RV_SLTU, S1, RV_ZERO, S1));
  emit(g, rv_op(RV_OR, SD, SD, S1));
  emit(g, rv_fop(RV_FCVT_S_W, FS0, SD, 1, m));
  emit(g, rv_opi(RV_ADDI, T1, T1, 128));       // 2^s: exponent 127 + s
  emit(g, rv_slli(T1, T1, 23));
  emit(g, rv_fop(RV_FMV_W_X, FS1, T1, 0, 0));
  emit(g, rv_fop(RV_FMUL, fd, FS0, FS1, m));
  int done_at = g->n;
  emit(g, 0);                                  // j done
  g->buf[small_at] = rv_b((g->n - small_at) * 4, RV_ZERO, S2, 0);
  emit(g, rv_fop(RV_FCVT_S_W, fd, S0, 1, m));
  g->buf[done_at] = rv_j((g->n - done_at) * 4, RV_ZERO);
  if (m == 7) emit(g, rv_csrrwi(RV_ZERO, 0x002, 0));
  if (is_signed) emit(g, rv_fop(RV_FSGNJ, fd, fd, FS2, 2));  // fsgnjx: x's sign
  fput(g, d, fd);
}

// cvt.{rni,rzi,rmi,rpi}.{s64,u64}.f32: below 2^31 the F unit's fcvt.w[u].s in the mode (NaN is
// never there); from 2^31 the value is an integer already, so its bits are the result: the
// significand shifted by the exponent, negated for .s64. Out of range saturates (a negative value
// for .u64 gives 0); NaN gives 0x8000000000000000 for .s64 and .u64 alike, which is what an H200
// answers (measured: python_kernels_textbook's float2ll), not the 0 of the 32-bit forms.
static void gen_cvt_64_f32(cg *g, int d, int is_signed, uint32_t rm) {
  const insn *in = g->in;
  int fx = fsrc(g, &in->o[1], FS0);
  int p_big, p_done1, p_nan, p_sat1, p_neg0 = -1, p_e32, p_sign1, p_done2, p_done3, p_zero;
  emit(g, rv_fop(RV_FMV_X_W, T0, fx, 0, 0));    // the bits
  emit(g, rv_srli(T1, T0, 23));
  emit(g, rv_opi(RV_ANDI, T1, T1, 255));         // the biased exponent
  emit(g, rv_opi(RV_SLTIU, SD, T1, 158));        // |x| < 2^31
  p_big = g->n; emit(g, 0);                      // beqz SD, big
  emit(g, rv_fop(RV_FCVT_W_S, S0, fx, is_signed ? 0 : 1, rm));
  if (is_signed) emit(g, rv_srai(S1, S0, 31));
  else mv(g, S1, RV_ZERO);
  p_done1 = g->n; emit(g, 0);                    // j done
  g->buf[p_big] = rv_b((g->n - p_big) * 4, RV_ZERO, SD, 0);
  li(g, SD, 255);
  p_nan = g->n; emit(g, 0);                      // beq T1, SD: NaN or infinity
  li(g, SD, is_signed ? 190 : 191);
  p_sat1 = g->n; emit(g, 0);                     // bgeu T1, SD: at least 2^63 (2^64)
  if (!is_signed) { p_neg0 = g->n; emit(g, 0); } // bltz T0: negative, 0
  emit(g, rv_slli(S0, T0, 9));
  emit(g, rv_srli(S0, S0, 9));
  emit(g, rv_lui(SD, 0x800));
  emit(g, rv_op(RV_OR, S0, S0, SD));             // the significand with its leading 1
  emit(g, rv_opi(RV_ADDI, T1, T1, -150));        // the shift: 8..40
  emit(g, rv_opi(RV_SLTIU, SD, T1, 32));
  p_e32 = g->n; emit(g, 0);                      // beqz SD: 32 or more
  emit(g, rv_op(RV_SUB, SD, RV_ZERO, T1));
  emit(g, rv_opi(RV_ADDI, SD, SD, 32));
  emit(g, rv_op(RV_SRL, S1, S0, SD));
  emit(g, rv_op(RV_SLL, S0, S0, T1));
  p_sign1 = g->n; emit(g, 0);                    // j sign
  g->buf[p_e32] = rv_b((g->n - p_e32) * 4, RV_ZERO, SD, 0);
  emit(g, rv_opi(RV_ADDI, T1, T1, -32));
  emit(g, rv_op(RV_SLL, S1, S0, T1));
  mv(g, S0, RV_ZERO);
  g->buf[p_sign1] = rv_j((g->n - p_sign1) * 4, RV_ZERO);
  if (is_signed) {  // negative: 0 - S1:S0
    emit(g, rv_b(4 * 5, RV_ZERO, T0, 5));        // bge T0, zero: positive
    emit(g, rv_op(RV_SLTU, SD, RV_ZERO, S0));
    emit(g, rv_op(RV_SUB, S0, RV_ZERO, S0));
    emit(g, rv_op(RV_SUB, S1, RV_ZERO, S1));
    emit(g, rv_op(RV_SUB, S1, S1, SD));
  }
  p_done2 = g->n; emit(g, 0);                    // j done
  g->buf[p_nan] = rv_b((g->n - p_nan) * 4, SD, T1, 0);
  emit(g, rv_slli(SD, T0, 9));                   // a NaN's significand is not 0
  p_zero = g->n; emit(g, 0);                     // bnez SD: NaN, 0
  g->buf[p_sat1] = rv_b((g->n - p_sat1) * 4, SD, T1, 7);  // bgeu T1, SD
  // saturate by the sign
  if (is_signed) {
    emit(g, rv_srai(S1, T0, 31));                // all ones for a negative value
    li(g, SD, 0x7FFFFFFF);
    emit(g, rv_op(RV_XOR, S1, S1, SD));          // 0x7fffffff, or 0x80000000 when negative
    emit(g, rv_srai(S0, T0, 31));
    emit(g, rv_opi(RV_XORI, S0, S0, -1));        // all ones, or 0 when negative
  } else {
    emit(g, rv_srai(S0, T0, 31));
    emit(g, rv_opi(RV_XORI, S0, S0, -1));        // all ones, or 0 when negative
    mv(g, S1, S0);
  }
  p_done3 = g->n; emit(g, 0);                    // j done
  g->buf[p_zero] = rv_b((g->n - p_zero) * 4, RV_ZERO, SD, 1);
  emit(g, rv_lui(S1, 0x80000));                  // NaN: 0x8000000000000000, as the H200 gives
  mv(g, S0, RV_ZERO);                            // (for .u64 too; its 32-bit cvt gives 0)
  int p_done4 = g->n;
  emit(g, 0);
  if (p_neg0 >= 0) {
    g->buf[p_neg0] = rv_b((g->n - p_neg0) * 4, RV_ZERO, T0, 4);  // blt T0, zero
    mv(g, S0, RV_ZERO);
    mv(g, S1, RV_ZERO);
  }
  g->buf[p_done4] = rv_j((g->n - p_done4) * 4, RV_ZERO);
  g->buf[p_done1] = rv_j((g->n - p_done1) * 4, RV_ZERO);
  g->buf[p_done2] = rv_j((g->n - p_done2) * 4, RV_ZERO);
  g->buf[p_done3] = rv_j((g->n - p_done3) * 4, RV_ZERO);
  put(g, d, S0);
  if (in->hi_live & 1) put_hi(g, d, S1);
}

// cvt with an f32 side: .rn/.rz/.rm/.rp.f32 from s32/u32 (and narrower integers), .rni/.rzi/
// .rmi/.rpi to s32/u32; NaN gives 0 and out-of-range values saturate, as PTX says (fnan mode)
static void gen_fcvt(cg *g, const char *dtype, const char *stype) {
  const insn *in = g->in;
  tinfo dt = parse_type(dtype), st = parse_type(stype);
  if ((dt.is_float && dt.bits != 32) || (st.is_float && st.bits != 32))
    fail(g, PTX_ERR_NOT_SUPPORTED, "%s: only f32 floating point is supported (no f16/bf16/f64)", in->text);
  if (dt.is_float && st.is_float && !has_round(g, 1) && !has_round(g, 0) && dt.bits == 32 && st.bits == 32) {
    // cvt[.ftz][.sat].f32.f32: a move, clamped and flushed as the modifiers say (NVRTC's expf
    // clamps with cvt.sat.f32.f32)
    only_mods(g, "ftz sat f32");
    int d2 = dst_vreg(g, &in->o[0]), fd = fdst(g, d2);
    int a = fsrc_ftz(g, &in->o[1], FS0);
    emit(g, rv_fop(RV_FSGNJ, fd, a, a, 0));
    fres_ftz(g, fd);
    fput(g, d2, fd);
    return;
  }
  f_refuse_inexact(g);
  if (dt.is_float && st.is_float)
    fail(g, PTX_ERR_NOT_SUPPORTED, "%s: rounding a float to an integral float has no F instruction", in->text);
  int d = dst_vreg(g, &in->o[0]);
  if (dt.is_float) {  // integer -> f32
    only_mods(g, "rn rz rm rp f32 s8 s16 s32 u8 u16 u32 s64 u64");
    if (!has_round(g, 0)) fail(g, PTX_ERR_INVALID_PTX, "%s: a conversion to f32 needs a rounding modifier", in->text);
    if (st.bits == 64) {
      gen_cvt_f32_64(g, d, st.is_signed, f_round(g, 0));
      return;
    }
    int x = src(g, &in->o[1], S0);
    if (st.bits < 32) {
      extend(g, T0, x, st.bits, st.is_signed);
      x = T0;
    }
    int fd = fdst(g, d);
    emit(g, rv_fop(RV_FCVT_S_W, fd, x, st.is_signed ? 0 : 1, f_round(g, 0)));
    fput(g, d, fd);
    return;
  }
  only_mods(g, "rni rzi rmi rpi f32 s32 u32 s64 u64 s16 u16 s8 u8");  // f32 -> integer
  if (dt.bits != 32 && dt.bits != 64) fail(g, PTX_ERR_NOT_SUPPORTED, "%s: only 32- and 64-bit integer results are supported", in->text);
  if (!has_round(g, 1)) fail(g, PTX_ERR_INVALID_PTX, "%s: a conversion to an integer needs .rni, .rzi, .rmi or .rpi", in->text);
  if (dt.bits == 64) {
    gen_cvt_64_f32(g, d, dt.is_signed, f_round(g, 1));
    return;
  }
  int a = fsrc(g, &in->o[1], FS0), rd = dst(g, d);
  emit(g, rv_fop(RV_FCVT_W_S, rd, a, dt.is_signed ? 0 : 1, f_round(g, 1)));
  put(g, d, rd);
}

// rd (an F register) = the f32 constant with these bits; uses T0
static void fconst(cg *g, int rd, uint32_t bits) {
  li(g, T0, (int32_t)bits);
  emit(g, rv_fop(RV_FMV_W_X, rd, T0, 0, 0));
}

// div rcp sqrt rsqrt .f32. The .rn/.rz/.rm/.rp forms are IEEE 754's correctly rounded
// operations, which the unit's simt_fdiv computes exactly (rcp is 1.0 / x). The .approx and
// .full forms are approximations in PTX, defined by an error bound, not by their bits; the
// translation computes them correctly rounded where that is one operation (div.full,
// rcp.approx, sqrt.approx), rsqrt.approx as 1 / sqrt(x) (two roundings), and div.approx as PTX
// defines it, a * (1 / b) with the reciprocal flushed (so 0 for 2^126 < |b|, NaN for inf / that),
// a / b for a subnormal b (as NVIDIA's)
// (docs/ptx.md, "Approximations"). .ftz flushes inputs and the result.
static void gen_fdiv(cg *g) {
  const insn *in = g->in;
  const char *op = in->op;
  int is_sqrt = !strcmp(op, "sqrt"), is_rcp = !strcmp(op, "rcp"), is_rsqrt = !strcmp(op, "rsqrt");
  only_mods(g, "f32 rn rz rm rp ftz sat approx full");
  f_refuse_inexact(g);
  need_opnds(g, is_sqrt || is_rcp || is_rsqrt ? 2 : 3);
  int approx = insn_has(in, "approx"), full = insn_has(in, "full");
  if (full && strcmp(op, "div")) fail(g, PTX_ERR_INVALID_PTX, "%s: .full is a form of div only", in->text);
  int d = dst_vreg(g, &in->o[0]), fd = fdst(g, d);
  uint32_t rm = approx || full ? RV_RNE : f_round(g, 0);
  if (is_sqrt) {
    emit(g, rv_fop(0x2C, fd, fsrc_ftz(g, &in->o[1], FS0), 0, rm));
  } else if (is_rsqrt) {
    int x = fsrc_ftz(g, &in->o[1], FS0);
    emit(g, rv_fop(0x2C, FS1, x, 0, RV_RNE));
    fconst(g, FS2, 0x3F800000u);
    emit(g, rv_fop(0x0C, fd, FS2, FS1, RV_RNE));
  } else if (is_rcp) {
    int b = fsrc_ftz(g, &in->o[1], FS1);
    fconst(g, FS2, 0x3F800000u);
    emit(g, rv_fop(0x0C, fd, FS2, b, rm));
  } else if (approx) {
    // a subnormal divisor (left by .ftz only as 0): a / b, as NVIDIA's div.approx gives it
    // (measured: 2^-149 / 2^-149 = 1, where 1 / 2^-149 would overflow)
    int a = fsrc_ftz(g, &in->o[1], FS0), b = fsrc_ftz(g, &in->o[2], FS1);
    emit(g, rv_fop(RV_FMV_X_W, T1, b, 0, 1));         // fclass.s
    emit(g, rv_opi(RV_ANDI, T1, T1, 0x24));
    int p_sub = g->n;
    emit(g, 0);                                       // beq T1, zero: normal, zero, inf or NaN
    emit(g, rv_fop(0x0C, fd, a, b, RV_RNE));
    int p_done = g->n;
    emit(g, 0);
    g->buf[p_sub] = rv_b((g->n - p_sub) * 4, RV_ZERO, T1, 0);
    fconst(g, FS2, 0x3F800000u);
    emit(g, rv_fop(0x0C, FS2, FS2, b, RV_RNE));
    ftz_freg(g, FS2);
    emit(g, rv_fop(RV_FMUL, fd, a, FS2, RV_RNE));
    g->buf[p_done] = rv_j((g->n - p_done) * 4, RV_ZERO);
  } else {
    int a = fsrc_ftz(g, &in->o[1], FS0), b = fsrc_ftz(g, &in->o[2], FS1);
    emit(g, rv_fop(0x0C, fd, a, b, rm));
  }
  fres_ftz(g, fd);
  fput(g, d, fd);
}

// ex2.approx[.ftz].f32: 2^x = 2^k 2^f, k = x rounded to an integer, f = x - k exactly, |f| <=
// 1/2; 2^f by a degree-7 polynomial (Chebyshev interpolation, tools/cl_math_fit.py's method:
// 0.78 ulp at most with the rounding of its evaluation, PTX allows 2); 2^k as two factors
// 2^(k>>1) and 2^(k - (k>>1)) so that the product rounds once, subnormals included. x is
// clamped to [-160, 160] first (inf and 0 come out of the scaling); a NaN gives the canonical
// NaN (x + x). .ftz flushes the input (2^0 = 1 either way) and the result.
static void gen_fex2(cg *g) {
  static const uint32_t c[8] = {0x3f800000u, 0x3f317218u, 0x3e75fdf0u, 0x3d635847u,
                                0x3c1d94ecu, 0x3aaec3bbu, 0x3922363du, 0x37806072u};
  const insn *in = g->in;
  only_mods(g, "approx ftz f32");
  need_opnds(g, 2);
  int d = dst_vreg(g, &in->o[0]), fd = fdst(g, d);
  int x = fsrc_ftz(g, &in->o[1], FS0);
  if (x != FS0) emit(g, rv_fop(RV_FSGNJ, FS0, x, x, 0));
  emit(g, rv_fop(RV_FCMP, T0, FS0, FS0, 2));          // feq: not a NaN
  int p_num = g->n;
  emit(g, 0);                                         // bne T0, zero: go on
  emit(g, rv_fop(RV_FADD, fd, FS0, FS0, RV_RNE));
  int p_done = g->n;
  emit(g, 0);                                         // j done
  g->buf[p_num] = rv_b((g->n - p_num) * 4, RV_ZERO, T0, 1);
  fconst(g, FS1, 0x43200000u);                        // 160
  emit(g, rv_fop(RV_FMINMAX, FS0, FS0, FS1, 0));
  fconst(g, FS1, 0xC3200000u);                        // -160
  emit(g, rv_fop(RV_FMINMAX, FS0, FS0, FS1, 1));
  emit(g, rv_fop(RV_FCVT_W_S, T1, FS0, 0, RV_RNE));   // k
  emit(g, rv_fop(RV_FCVT_S_W, FS1, T1, 0, RV_RNE));
  emit(g, rv_fop(RV_FSUB, FS1, FS0, FS1, RV_RNE));    // f, exact
  fconst(g, FS2, c[7]);
  for (int i = 6; i >= 0; --i) {
    fconst(g, FS0, c[i]);
    emit(g, rv_fma(RV_FMADD, FS2, FS2, FS1, FS0, RV_RNE));
  }
  emit(g, rv_srai(T0, T1, 1));                        // k1 = k >> 1
  emit(g, rv_op(RV_SUB, T1, T1, T0));                 // k2 = k - k1
  emit(g, rv_opi(RV_ADDI, T0, T0, 127));
  emit(g, rv_slli(T0, T0, 23));
  emit(g, rv_fop(RV_FMV_W_X, FS0, T0, 0, 0));
  emit(g, rv_fop(RV_FMUL, FS2, FS2, FS0, RV_RNE));    // exact: 2^f 2^k1 is normal
  emit(g, rv_opi(RV_ADDI, T1, T1, 127));
  emit(g, rv_slli(T1, T1, 23));
  emit(g, rv_fop(RV_FMV_W_X, FS0, T1, 0, 0));
  emit(g, rv_fop(RV_FMUL, fd, FS2, FS0, RV_RNE));
  g->buf[p_done] = rv_j((g->n - p_done) * 4, RV_ZERO);
  fres_ftz(g, fd);
  fput(g, d, fd);
}

static const char *const kFloatApprox[] = {"rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2",
                                           "tanh", "div", "testp", NULL};

// f32 instructions of the arithmetic families; returns 0 when the instruction is not one
static int gen_float(cg *g) {
  const insn *in = g->in;
  const char *t = insn_type(in);
  for (int i = 0; kFloatApprox[i]; ++i)
    if (!strcmp(in->op, kFloatApprox[i]) && t && parse_type(t).is_float) {
      if (!strcmp(in->op, "testp")) fail(g, PTX_ERR_NOT_SUPPORTED, "%s is not supported", in->text);
      if (strcmp(t, "f32")) fail(g, PTX_ERR_NOT_SUPPORTED, "%s: only f32 floating point is supported (no f16/bf16/f64)", in->text);
      if (!strcmp(in->op, "sin") || !strcmp(in->op, "cos") || !strcmp(in->op, "lg2") || !strcmp(in->op, "tanh"))
        fail(g, PTX_ERR_NOT_SUPPORTED, "%s: the approximation %s.approx is not translated (ex2, rcp, sqrt, "
             "rsqrt and div are)", in->text, in->op);
      int approx = insn_has(in, "approx"), full = insn_has(in, "full");
      if ((!strcmp(in->op, "ex2") || !strcmp(in->op, "rsqrt")) && !approx)
        fail(g, PTX_ERR_INVALID_PTX, "%s needs .approx", in->text);
      if (!approx && !full && !has_round(g, 0))
        fail(g, PTX_ERR_INVALID_PTX, "%s needs .rn, .rz, .rm, .rp, .approx or .full", in->text);
      if ((approx || full) && has_round(g, 0))
        fail(g, PTX_ERR_INVALID_PTX, "%s: a rounding modifier with .%s", in->text, approx ? "approx" : "full");
      if (!strcmp(in->op, "ex2")) gen_fex2(g);
      else gen_fdiv(g);
      return 1;
    }
  if (!t || !parse_type(t).is_float) return 0;
  if (parse_type(t).bits != 32 || strcmp(t, "f32"))
    fail(g, PTX_ERR_NOT_SUPPORTED, "%s: only f32 floating point is supported (no f16/bf16/f64)", in->text);
  if (!strcmp(in->op, "add") || !strcmp(in->op, "sub") || !strcmp(in->op, "mul")) gen_farith(g);
  else if (!strcmp(in->op, "fma") || !strcmp(in->op, "mad")) gen_ffma(g);
  else if (!strcmp(in->op, "neg") || !strcmp(in->op, "abs") || !strcmp(in->op, "min") ||
           !strcmp(in->op, "max") || !strcmp(in->op, "copysign")) gen_fother(g);
  else if (!strcmp(in->op, "setp")) gen_fsetp(g);
  else return 0;  // mov, selp, ld, st, cvt: their own handlers look at the register classes
  return 1;
}

// ------------------------------------------------------------------------------ branches

static void branch_to(cg *g, uint32_t f3, int rs1, int rs2, int target_insn) {
  int target = g->label_at ? g->label_at[target_insn] : g->n;
  if (!g->long_br) {
    int32_t off = (target - g->n) * 4;
    if (off < -4096 || off > 4094) g->overflow = 1;
    emit(g, rv_b(off, rs2, rs1, f3));
    return;
  }
  emit(g, rv_b(8, rs2, rs1, f3 ^ 1));
  int32_t off = (target - g->n) * 4;
  if (off < -(1 << 20) || off >= (1 << 20)) fail(g, PTX_ERR_NOT_SUPPORTED, "branch beyond 1 MiB");
  emit(g, rv_j(off, RV_ZERO));
}

static int label_target(cg *g, const opnd *o) {
  if (o->kind != O_SYM || g->k->syms[o->sym].kind != SYM_LABEL)
    fail(g, PTX_ERR_INVALID_PTX, "%s needs a label", g->in->op);
  return (int)g->k->syms[o->sym].value;
}

// ------------------------------------------------------------------------------ handlers

static void gen_bra(cg *g) {
  only_mods(g, "uni");
  need_opnds(g, 1);
  int t = label_target(g, &g->in->o[0]);
  if (g->in->guard >= 0) {
    opnd p = {.kind = O_REG, .reg = g->in->guard};
    int r = src(g, &p, S0);
    branch_to(g, g->in->guard_neg ? 0 : 1, r, RV_ZERO, t);  // beq/bne r, zero
    return;
  }
  int target = g->label_at ? g->label_at[t] : g->n;
  emit(g, rv_j((target - g->n) * 4, RV_ZERO));
}

// add sub and or xor mul div rem min max
static void gen_binop(cg *g) {
  const insn *in = g->in;
  const char *op = in->op;
  int is_logic = !strcmp(op, "and") || !strcmp(op, "or") || !strcmp(op, "xor");
  int is_mul = !strcmp(op, "mul");
  if (is_mul) only_mods(g, "lo hi wide s32 u32 s64 u64 s16 u16 f32 f64 rn rz rm rp ftz sat");
  else if (is_logic) only_mods(g, "b32 b64 pred b16");
  else only_mods(g, "s32 u32 s64 u64 b32 b64 s16 u16 f32 f64 rn rz rm rp ftz sat full approx");
  need_opnds(g, 3);
  if (is_mul && insn_has(in, "wide") && parse_type(insn_type(in)).bits == 16) {
    // 16 x 16 -> 32: the operands extended by the type's sign, then one mul
    tinfo t16 = parse_type(insn_type(in));
    int d = dst_vreg(g, &in->o[0]), rd = dst(g, d);
    extend(g, S0, src(g, &in->o[1], S0), 16, t16.is_signed);
    extend(g, S1, src(g, &in->o[2], S1), 16, t16.is_signed);
    emit(g, rv_op(RV_MUL, rd, S0, S1));
    put(g, d, rd);
    return;
  }
  tinfo t = int_type(g, 1, is_logic);
  if (insn_has(in, "sat")) fail(g, PTX_ERR_NOT_SUPPORTED, ".sat is not supported");
  int hi = is_mul && insn_has(in, "hi"), wide = is_mul && insn_has(in, "wide");
  if (is_mul && !hi && !wide && !insn_has(in, "lo")) fail(g, PTX_ERR_INVALID_PTX, "mul needs .lo, .hi or .wide");
  int narrow64 = t.bits == 64 || wide;
  if (t.bits == 64 && !(!strcmp(op, "add") || !strcmp(op, "sub") || is_logic || (is_mul && !hi)))
    fail(g, PTX_ERR_NOT_SUPPORTED, "%s is not supported (docs/ptx.md, \"64-bit registers\")", in->text);
  (void)narrow64;
  int d = dst_vreg(g, &in->o[0]);
  int rd = dst(g, d);
  const opnd *b = &in->o[2];
  // immediate forms
  if (b->kind == O_IMM && (!strcmp(op, "add") || !strcmp(op, "sub") || is_logic)) {
    int64_t imm = (int32_t)b->imm;
    if (!strcmp(op, "sub")) imm = -imm;
    if (fits12(imm)) {
      int a = src(g, &in->o[1], S0);
      uint32_t f3 = !strcmp(op, "and") ? RV_ANDI : !strcmp(op, "or") ? RV_ORI
                  : !strcmp(op, "xor") ? RV_XORI : RV_ADDI;
      emit(g, rv_opi(f3, rd, a, (int32_t)imm));
      put(g, d, rd);
      return;
    }
  }
  if (is_mul && !hi && b->kind == O_IMM) {  // by a power of two: the low word is a shift
    uint32_t m = (uint32_t)b->imm;
    if (m && (m & (m - 1)) == 0) {
      int sh = 0;
      while ((1u << sh) != m) ++sh;
      int a = src(g, &in->o[1], S0);
      emit(g, rv_slli(rd, a, sh));
      put(g, d, rd);
      return;
    }
  }
  int a = src(g, &in->o[1], S0), r2 = src(g, b, S1);
  if (!strcmp(op, "min") || !strcmp(op, "max")) {
    enum rv_op cmp = t.is_signed ? RV_SLT : RV_SLTU;
    if (!strcmp(op, "min")) emit(g, rv_op(cmp, S2, a, r2));  // a < b: take a
    else emit(g, rv_op(cmp, S2, r2, a));                      // b < a: take a
    select_reg(g, rd, S2, a, r2);
    put(g, d, rd);
    return;
  }
  enum rv_op o;
  if (!strcmp(op, "add")) o = RV_ADD;
  else if (!strcmp(op, "sub")) o = RV_SUB;
  else if (!strcmp(op, "and")) o = RV_AND;
  else if (!strcmp(op, "or")) o = RV_OR;
  else if (!strcmp(op, "xor")) o = RV_XOR;
  else if (is_mul) o = hi ? (t.is_signed ? RV_MULH : RV_MULHU) : RV_MUL;
  else if (!strcmp(op, "div")) o = t.is_signed ? RV_DIV : RV_DIVU;
  else o = t.is_signed ? RV_REM : RV_REMU;
  emit(g, rv_op(o, rd, a, r2));
  put(g, d, rd);
}

static void gen_mad(cg *g) {
  const insn *in = g->in;
  only_mods(g, "lo hi wide s32 u32 s64 u64 f32 f64 rn rz rm rp ftz sat s16 u16");
  need_opnds(g, 4);
  tinfo t = int_type(g, 1, 0);
  if (insn_has(in, "sat")) fail(g, PTX_ERR_NOT_SUPPORTED, ".sat is not supported");
  int hi = insn_has(in, "hi");
  if (t.bits == 64 && hi) fail(g, PTX_ERR_NOT_SUPPORTED, "64-bit mad.hi is not supported (docs/ptx.md, \"64-bit registers\")");
  int d = dst_vreg(g, &in->o[0]), rd = dst(g, d);
  int a = src(g, &in->o[1], S0), b = src(g, &in->o[2], S1), c = src(g, &in->o[3], S2);
  emit(g, rv_op(hi ? (t.is_signed ? RV_MULH : RV_MULHU) : RV_MUL, T0, a, b));
  emit(g, rv_op(RV_ADD, rd, T0, c));
  put(g, d, rd);
}

static void gen_shift(cg *g) {
  const insn *in = g->in;
  only_mods(g, "b32 b64 s32 u32 s64 u64 b16 s16 u16");
  need_opnds(g, 3);
  int is_shl = !strcmp(in->op, "shl");
  tinfo t = int_type(g, is_shl, 0);  // shl.b64's low word is exact; shr needs the high word
  int d = dst_vreg(g, &in->o[0]), rd = dst(g, d);
  int arith = !is_shl && t.is_signed;
  const opnd *amt = &in->o[2];
  int a = src(g, &in->o[1], S0);
  if (amt->kind == O_IMM) {
    uint64_t n = (uint64_t)amt->imm;
    if (n >= 32) {
      if (arith) emit(g, rv_srai(rd, a, 31));
      else emit(g, rv_opi(RV_ADDI, rd, RV_ZERO, 0));
    } else {
      emit(g, is_shl ? rv_slli(rd, a, (int)n) : arith ? rv_srai(rd, a, (int)n) : rv_srli(rd, a, (int)n));
    }
    put(g, d, rd);
    return;
  }
  // PTX clamps the amount (>= width: all zeros or all sign bits); RV32 uses its low 5 bits
  int n = src(g, amt, S1);
  emit(g, rv_opi(RV_SLTIU, T0, n, 32));  // 1 when in range
  if (arith) {
    emit(g, rv_opi(RV_ADDI, T0, T0, -1));       // 0 in range, all ones beyond
    emit(g, rv_opi(RV_ORI, T1, T0, 0));
    emit(g, rv_opi(RV_XORI, T0, T0, -1));       // all ones in range
    emit(g, rv_op(RV_AND, T0, T0, n));          // amount or 0
    emit(g, rv_opi(RV_ANDI, T1, T1, 31));       // 0 or 31
    emit(g, rv_op(RV_OR, T0, T0, T1));
    emit(g, rv_op(RV_SRA, rd, a, T0));
  } else {
    emit(g, rv_op(is_shl ? RV_SLL : RV_SRL, T1, a, n));
    emit(g, rv_op(RV_SUB, T0, RV_ZERO, T0));
    emit(g, rv_op(RV_AND, rd, T1, T0));
  }
  put(g, d, rd);
}

static void gen_unary(cg *g) {
  const insn *in = g->in;
  only_mods(g, "s32 s64 b32 b64 pred f32 f64 ftz s16 b16");
  need_opnds(g, 2);
  int is_not = !strcmp(in->op, "not"), is_cnot = !strcmp(in->op, "cnot");
  tinfo t = int_type(g, !strcmp(in->op, "neg") || is_not, is_not);
  int d = dst_vreg(g, &in->o[0]), rd = dst(g, d);
  int a = src(g, &in->o[1], S0);
  if (is_not) {
    emit(g, rv_opi(RV_XORI, rd, a, t.bits == 1 ? 1 : -1));
  } else if (is_cnot) {
    emit(g, rv_opi(RV_SLTIU, rd, a, 1));
  } else if (!strcmp(in->op, "neg")) {
    emit(g, rv_op(RV_SUB, rd, RV_ZERO, a));
  } else {  // abs
    emit(g, rv_srai(T0, a, 31));
    emit(g, rv_op(RV_XOR, T1, a, T0));
    emit(g, rv_op(RV_SUB, rd, T1, T0));
  }
  put(g, d, rd);
}

// setp.cmp[.bool].type p, a, b [, c]
static void gen_setp(cg *g) {
  const insn *in = g->in;
  only_mods(g, "eq ne lt le gt ge lo ls hi hs and or xor s32 u32 b32 s64 u64 b64 s16 u16 b16 "
               "f32 f64 ftz equ neu ltu leu gtu geu num nan");
  tinfo t = int_type(g, 0, 0);
  const char *cmp = in->nmods ? in->mods[0] : "";
  const char *boolop = in->nmods > 2 ? in->mods[1] : NULL;
  if (boolop && strcmp(boolop, "and") && strcmp(boolop, "or") && strcmp(boolop, "xor")) boolop = NULL;
  need_opnds(g, boolop ? 4 : 3);
  int d = dst_vreg(g, &in->o[0]), rd = dst(g, d);
  if (rc_of(g, d) != RC_PRED) fail(g, PTX_ERR_INVALID_PTX, "setp writes a predicate");
  int a = src(g, &in->o[1], S0), b = src(g, &in->o[2], S1);
  int sgn = t.is_signed;
  int r = boolop ? T1 : rd;
  if (!strcmp(cmp, "eq") || !strcmp(cmp, "ne")) {
    emit(g, rv_op(RV_SUB, T0, a, b));
    emit(g, !strcmp(cmp, "eq") ? rv_opi(RV_SLTIU, r, T0, 1) : rv_op(RV_SLTU, r, RV_ZERO, T0));
  } else {
    if (!strcmp(cmp, "lo") || !strcmp(cmp, "ls") || !strcmp(cmp, "hi") || !strcmp(cmp, "hs")) sgn = 0;
    else if (strcmp(cmp, "lt") && strcmp(cmp, "le") && strcmp(cmp, "gt") && strcmp(cmp, "ge"))
      fail(g, PTX_ERR_INVALID_PTX, "comparison .%s is not one of the integer comparisons", cmp);
    enum rv_op o = sgn ? RV_SLT : RV_SLTU;
    int less = cmp[1] == 't' || cmp[1] == 'o' || cmp[1] == 's' ? (cmp[0] == 'l') : 0;
    // lt/lo: a<b; ge/hs: !(a<b); gt/hi: b<a; le/ls: !(b<a)
    int swap = !strcmp(cmp, "gt") || !strcmp(cmp, "hi") || !strcmp(cmp, "le") || !strcmp(cmp, "ls");
    int inv = !strcmp(cmp, "ge") || !strcmp(cmp, "hs") || !strcmp(cmp, "le") || !strcmp(cmp, "ls");
    (void)less;
    emit(g, rv_op(o, r, swap ? b : a, swap ? a : b));
    if (inv) emit(g, rv_opi(RV_XORI, r, r, 1));
  }
  if (boolop) {
    int c = src(g, &in->o[3], S2);
    enum rv_op o = !strcmp(boolop, "and") ? RV_AND : !strcmp(boolop, "or") ? RV_OR : RV_XOR;
    emit(g, rv_op(o, rd, r, c));
  }
  put(g, d, rd);
}

static void gen_selp(cg *g) {
  const insn *in = g->in;
  only_mods(g, "b32 s32 u32 b64 s64 u64 f32 b16 s16 u16");
  need_opnds(g, 4);
  if (is_freg(g, &in->o[0])) {
    gen_fselp(g);
    return;
  }
  int d = dst_vreg(g, &in->o[0]), rd = dst(g, d);
  int a = src(g, &in->o[1], S0), b = src(g, &in->o[2], S1), p = src(g, &in->o[3], S2);
  select_reg(g, rd, p, a, b);
  if (rc_of(g, d) == RC_B16) zext16(g, rd, rd);
  put(g, d, rd);
}

// mov: registers, immediates, special registers, variable addresses, pack/unpack
static void gen_mov(cg *g) {
  const insn *in = g->in;
  only_mods(g, "b16 b32 b64 u16 u32 u64 s16 s32 s64 f32 pred");
  need_opnds(g, 2);
  tinfo t = parse_type(insn_type(in));
  if (t.bits == 64 && !strcmp(insn_type(in), "f64")) fail(g, PTX_ERR_NOT_SUPPORTED, "f64 is not supported");
  const opnd *o0 = &in->o[0], *o1 = &in->o[1];
  if (o0->kind == O_VEC) {  // unpack
    if (t.bits == 32 && o0->nvec == 2) {
      int x = src(g, o1, S0);
      emit(g, rv_srli(T1, x, 16));
      if (o0->vec[0] >= 0) zext16(g, dst(g, o0->vec[0]), x), put(g, o0->vec[0], dst(g, o0->vec[0]));
      if (o0->vec[1] >= 0) put(g, o0->vec[1], T1);
      return;
    }
    if (t.bits == 64 && o0->nvec == 2 && o0->vec[1] < 0) {
      int x = src(g, o1, S0);
      if (o0->vec[0] >= 0) put(g, o0->vec[0], x);
      return;
    }
    fail(g, PTX_ERR_NOT_SUPPORTED, "unpacking a 64-bit register needs its high word (docs/ptx.md)");
  }
  if (is_freg(g, o0) && o1->kind != O_VEC) {  // into an F register: bits, or an fmv.s
    int d = dst_vreg(g, o0);
    if (o1->kind == O_SREG || o1->kind == O_SYM) {
      put(g, d, src(g, o1, S0));
      return;
    }
    fput(g, d, fsrc(g, o1, FS0));
    return;
  }
  int d = dst_vreg(g, o0), rd = dst(g, d);
  if (o1->kind == O_VEC) {  // pack
    if (t.bits == 64 && o1->nvec == 2 && o1->vec[0] >= 0) {
      opnd lo = {.kind = O_REG, .reg = o1->vec[0]};
      put(g, d, src(g, &lo, S0));
      return;
    }
    if (t.bits == 32 && o1->nvec == 2 && o1->vec[0] >= 0 && o1->vec[1] >= 0) {
      opnd lo = {.kind = O_REG, .reg = o1->vec[0]}, hi = {.kind = O_REG, .reg = o1->vec[1]};
      int l = src(g, &lo, S0), h = src(g, &hi, S1);
      emit(g, rv_slli(T0, h, 16));
      emit(g, rv_op(RV_OR, rd, T0, l));
      put(g, d, rd);
      return;
    }
    fail(g, PTX_ERR_NOT_SUPPORTED, "this vector form of mov is not supported");
  }
  int x = src(g, o1, rd);
  if (rc_of(g, d) == RC_B16 && o1->kind != O_REG) {
    zext16(g, rd, x);
    x = rd;
  }
  put(g, d, x);
}

// cvt.dtype.atype (integers only; .sat and every float form are refused)
static void gen_cvt(cg *g) {
  const insn *in = g->in;
  need_opnds(g, 2);
  const char *types[2];
  int nt = 0;
  for (int i = 0; i < in->nmods; ++i) {
    tinfo ti = parse_type(in->mods[i]);
    if (ti.bits) {
      if (nt == 2) fail(g, PTX_ERR_INVALID_PTX, "cvt with three types");
      types[nt++] = in->mods[i];
    }
  }
  if (nt != 2) fail(g, PTX_ERR_INVALID_PTX, "cvt needs a destination and a source type");
  tinfo dt = parse_type(types[0]), st = parse_type(types[1]);
  if (dt.is_float || st.is_float) {
    gen_fcvt(g, types[0], types[1]);
    return;
  }
  only_mods(g, "u8 u16 u32 u64 s8 s16 s32 s64");
  int d = dst_vreg(g, &in->o[0]), rd = dst(g, d);
  int x = src(g, &in->o[1], S0);
  if (st.bits >= 32 && dt.bits >= 32) {  // 32 <-> 64: the low word is the value
    put(g, d, x);
    return;
  }
  extend(g, T0, x, st.bits, st.is_signed);
  extend(g, rd, T0, dt.bits, dt.is_signed);
  if (rc_of(g, d) == RC_B16 && !(dt.bits == 16 && !dt.is_signed)) zext16(g, rd, rd);
  put(g, d, rd);
}

// bfe.type d, a, pos, len and bfi.b32 d, a, b, pos, len with constant pos and len (PTX takes
// both modulo 256 and clamps the field at bit 31)
static void gen_bitfield(cg *g) {
  const insn *in = g->in;
  int is_bfi = !strcmp(in->op, "bfi");
  only_mods(g, is_bfi ? "b32" : "u32 s32");
  need_opnds(g, is_bfi ? 5 : 4);
  tinfo t = int_type(g, 0, 0);
  const opnd *po = &in->o[is_bfi ? 3 : 2], *lo = &in->o[is_bfi ? 4 : 3];
  if (po->kind != O_IMM || lo->kind != O_IMM)
    fail(g, PTX_ERR_NOT_SUPPORTED, "%s with a position or length in a register is not supported", in->op);
  unsigned pos = (unsigned)po->imm & 0xFF, len = (unsigned)lo->imm & 0xFF;
  int d = dst_vreg(g, &in->o[0]), rd = dst(g, d);
  int a = src(g, &in->o[1], S0);
  if (is_bfi) {
    int b = src(g, &in->o[2], S1);
    if (len == 0 || pos >= 32) {
      put(g, d, b);
      return;
    }
    uint32_t field = len >= 32 ? 0xFFFFFFFFu : (1u << len) - 1u;
    uint32_t mask = field << pos;
    li(g, T0, (int32_t)mask);
    emit(g, rv_slli(T1, a, (int)pos));
    emit(g, rv_op(RV_XOR, T1, T1, b));
    emit(g, rv_op(RV_AND, T1, T1, T0));
    emit(g, rv_op(RV_XOR, rd, b, T1));
    put(g, d, rd);
    return;
  }
  if (len == 0 || (pos >= 32 && !t.is_signed)) {
    emit(g, rv_opi(RV_ADDI, rd, RV_ZERO, 0));
  } else if (pos >= 32) {
    emit(g, rv_srai(rd, a, 31));
  } else if (pos + len >= 32) {
    emit(g, t.is_signed ? rv_srai(rd, a, (int)pos) : rv_srli(rd, a, (int)pos));
  } else {
    emit(g, rv_slli(T0, a, (int)(32 - pos - len)));
    emit(g, t.is_signed ? rv_srai(rd, T0, (int)(32 - len)) : rv_srli(rd, T0, (int)(32 - len)));
  }
  put(g, d, rd);
}

static void gen_cvta(cg *g) {
  only_mods(g, "to global shared local u32 u64");
  need_opnds(g, 2);
  int d = dst_vreg(g, &g->in->o[0]);
  put(g, d, src(g, &g->in->o[1], S0));
}

// An address operand as base register + 12-bit offset; `space` "param" reads the argument block.
static void mem_addr(cg *g, const opnd *o, const char *space, int scratch, int span, int *base, int32_t *off) {
  if (o->kind != O_MEM) fail(g, PTX_ERR_INVALID_PTX, "%s needs an address operand [..]", g->in->op);
  if (o->sym >= 0) {
    const sym *s = &g->k->syms[o->sym];
    if (!strcmp(space, "param")) {
      if (s->kind != SYM_PARAM) fail(g, PTX_ERR_NOT_SUPPORTED, "ld.param of %s, which is not a kernel parameter", s->name);
      emit(g, rv_csrrs(scratch, 0xCCE, RV_ZERO));
      int64_t v = (int64_t)s->value + o->imm;
      if (!fits12(v) || !fits12(v + span)) {
        li(g, T0, (int32_t)v);
        emit(g, rv_op(RV_ADD, scratch, scratch, T0));
        v = 0;
      }
      *base = scratch, *off = (int32_t)v;
      return;
    }
    if (s->kind == SYM_PARAM) fail(g, PTX_ERR_NOT_SUPPORTED, "kernel parameter %s accessed as .%s", s->name, space);
    if (s->kind == SYM_GLOBAL) {  // a .global/.const variable: its relocated address
      data_addr(g, scratch, s->value + (uint32_t)o->imm);
      *base = scratch, *off = 0;
      return;
    }
    int on_stack;
    uint32_t va = sym_va_or_sp(g, s, o->imm, &on_stack);
    if (on_stack) {
      if (!fits12((int32_t)va + span)) fail(g, PTX_ERR_NOT_SUPPORTED, "stack offset %u too large", va);
      *base = RV_SP, *off = (int32_t)va;
      return;
    }
    li(g, scratch, (int32_t)va);
    *base = scratch, *off = 0;
    return;
  }
  if (!strcmp(space, "param")) fail(g, PTX_ERR_NOT_SUPPORTED, "ld.param through a register is not supported");
  if (o->reg < 0) {
    li(g, scratch, (int32_t)o->imm);
    *base = scratch, *off = 0;
    return;
  }
  opnd r = {.kind = O_REG, .reg = o->reg};
  int b = src(g, &r, scratch);
  int32_t v = (int32_t)o->imm;
  if (!fits12(v) || !fits12((int64_t)v + span)) {
    li(g, T0, v);
    emit(g, rv_op(RV_ADD, scratch, b, T0));
    b = scratch, v = 0;
  }
  *base = b, *off = v;
}

static const char *mem_space(cg *g, int *vec) {
  const char *space = "generic";
  *vec = 1;
  for (int i = 0; i < g->in->nmods; ++i) {
    const char *m = g->in->mods[i];
    if (!strcmp(m, "global") || !strcmp(m, "shared") || !strcmp(m, "local") || !strcmp(m, "param")) space = m;
    else if (!strcmp(m, "const")) space = "global";  // .const variables live in the data segment
    else if (!strcmp(m, "v2")) *vec = 2;
    else if (!strcmp(m, "v4")) *vec = 4;
  }
  return space;
}

static void gen_ld(cg *g) {
  const insn *in = g->in;
  only_mods(g, "global shared local param const nc ca cg cs lu cv volatile relaxed acquire weak cta gpu sys "
               "v2 v4 u8 s8 b8 u16 s16 b16 u32 s32 b32 f32 u64 s64 b64 f64 ptr");
  need_opnds(g, 2);
  int nv;
  const char *space = mem_space(g, &nv);
  tinfo t = parse_type(insn_type(in));
  if (!t.bits) fail(g, PTX_ERR_INVALID_PTX, "ld needs a type");
  if (t.is_float && t.bits != 32) fail(g, PTX_ERR_NOT_SUPPORTED, "ld of .f%d is not supported", t.bits);
  int esz = t.bits / 8;
  if (t.bits == 64) esz = 8;
  uint32_t f3 = t.bits == 8 ? (t.is_signed ? 0 : 4) : t.bits == 16 ? (t.is_signed ? 1 : 5) : 2;
  const opnd *o0 = &in->o[0];
  int dregs[4], nd = 0;
  if (o0->kind == O_VEC) {
    if (o0->nvec != nv) fail(g, PTX_ERR_INVALID_PTX, "vector size does not match .v%d", nv);
    for (int i = 0; i < nv; ++i) dregs[nd++] = o0->vec[i];
  } else {
    if (nv != 1) fail(g, PTX_ERR_INVALID_PTX, ".v%d needs a vector destination", nv);
    dregs[nd++] = dst_vreg(g, o0);
  }
  int base;
  int32_t off;
  mem_addr(g, &in->o[1], space, S2, esz * (nd - 1) + (t.bits == 64 ? 4 : 0), &base, &off);
  for (int i = 0; i < nd && base != S2 && base != RV_SP; ++i)  // a destination must not clobber the base
    if (dregs[i] >= 0 && dst(g, dregs[i]) == base && (i + 1 < nd || (in->hi_live >> i & 1))) {
      mv(g, S2, base);
      base = S2;
    }
  for (int i = 0; i < nd; ++i) {
    if (dregs[i] < 0) continue;
    reg_of(g, dregs[i]);
    if (rc_of(g, dregs[i]) == RC_F32 && f3 == 2) {  // 32 bits into an F register
      int fd = fdst(g, dregs[i]);
      emit(g, rv_flw(fd, base, off + i * esz));
      fput(g, dregs[i], fd);
      continue;
    }
    int rd = dst(g, dregs[i]);
    emit(g, rv_load(f3, rd, base, off + i * esz));
    if (rc_of(g, dregs[i]) == RC_B16 && f3 != 5 && f3 != 4) zext16(g, rd, rd);
    put(g, dregs[i], rd);
    if (in->hi_live >> i & 1) {  // the high word of a 64-bit register: loaded, or the extension
      if (t.bits == 64) emit(g, rv_load(2, T0, base, off + i * esz + 4));
      else if (t.is_signed) emit(g, rv_srai(T0, rd, 31));
      else mv(g, T0, RV_ZERO);
      put_hi(g, dregs[i], T0);
    }
  }
}

static void gen_st(cg *g) {
  const insn *in = g->in;
  only_mods(g, "global shared local wb cg cs wt volatile relaxed release weak cta gpu sys "
               "v2 v4 u8 s8 b8 u16 s16 b16 u32 s32 b32 f32 u64 s64 b64 f64");
  need_opnds(g, 2);
  int nv;
  const char *space = mem_space(g, &nv);
  if (!strcmp(space, "param")) fail(g, PTX_ERR_NOT_SUPPORTED, "st.param is not supported (device functions)");
  tinfo t = parse_type(insn_type(in));
  if (!t.bits) fail(g, PTX_ERR_INVALID_PTX, "st needs a type");
  if (t.is_float && t.bits != 32) fail(g, PTX_ERR_NOT_SUPPORTED, "st of .f%d is not supported", t.bits);
  int esz = t.bits / 8;
  uint32_t f3 = t.bits == 8 ? 0 : t.bits == 16 ? 1 : 2;
  const opnd *v = &in->o[1];
  opnd el[4];
  int ne = 0;
  if (v->kind == O_VEC) {
    if (v->nvec != nv) fail(g, PTX_ERR_INVALID_PTX, "vector size does not match .v%d", nv);
    for (int i = 0; i < nv; ++i) el[ne++] = (opnd){.kind = v->vec[i] >= 0 ? O_REG : O_IMM, .reg = v->vec[i]};
  } else {
    if (nv != 1) fail(g, PTX_ERR_INVALID_PTX, ".v%d needs a vector source", nv);
    el[ne++] = *v;
  }
  int base;
  int32_t off;
  mem_addr(g, &in->o[0], space, S2, esz * (ne - 1) + (t.bits == 64 ? 4 : 0), &base, &off);
  for (int i = 0; i < ne; ++i) {
    if (is_freg(g, &el[i]) && f3 == 2) {  // 32 bits from an F register
      emit(g, rv_fsw(fsrc(g, &el[i], FS0), base, off + i * esz));
      continue;
    }
    int r = src(g, &el[i], S0);
    emit(g, rv_store(f3, r, base, off + i * esz));
    if (t.bits == 64) emit(g, rv_store(2, src_hi(g, &el[i], S1), base, off + i * esz + 4));
  }
}

// The address of an AMO in a register (AMOs have no offset: one is added into S2).
static int amo_base(cg *g, const opnd *addr) {
  int base;
  int32_t off;
  mem_addr(g, addr, "global", S2, 0, &base, &off);
  if (off) {
    emit(g, rv_opi(RV_ADDI, S2, base, off));
    base = S2;
  }
  return base;
}

// atom.space.op.type d, [a], b [, c]  and  red.space.op.type [a], b
// atom.inc.u32 / atom.dec.u32 (and red): a compare-and-swap loop (Zacas amocas.w), as the unit
// has no wrapping increment; inc: old >= b ? 0 : old + 1, dec: old == 0 || old > b ? b : old - 1.
// d gets the old word. `base` holds the address.
static void gen_atom_incdec(cg *g, int is_red, int base, int is_inc) {
  const insn *in = g->in;
  mv(g, S1, src(g, &in->o[is_red ? 1 : 2], S1));
  int loop = g->n;
  emit(g, rv_load(2, T0, base, 0));                   // the word now
  if (is_inc) {
    emit(g, rv_op(RV_SLTU, SD, T0, S1));              // old < b: old + 1, else 0
    emit(g, rv_opi(RV_ADDI, T1, T0, 1));
    emit(g, rv_op(RV_SUB, SD, RV_ZERO, SD));
    emit(g, rv_op(RV_AND, T1, T1, SD));
  } else {
    emit(g, rv_opi(RV_ADDI, T1, T0, -1));
    emit(g, rv_op(RV_SLTU, SD, S1, T0));              // b < old
    emit(g, rv_opi(RV_SLTIU, S0, T0, 1));             // old == 0
    emit(g, rv_op(RV_OR, SD, SD, S0));                // then b
    emit(g, rv_op(RV_SUB, SD, RV_ZERO, SD));
    emit(g, rv_op(RV_XOR, S0, S1, T1));
    emit(g, rv_op(RV_AND, S0, S0, SD));
    emit(g, rv_op(RV_XOR, T1, T1, S0));
  }
  mv(g, S0, T0);
  emit(g, rv_amo(5, S0, base, T1));                   // amocas.w: stored where the word is still T0
  emit(g, rv_b((loop - g->n) * 4, T0, S0, 1));        // bne S0, T0: another lane came first
  g->flags |= PTX_KERNEL_NEEDS_ATOMICS;
  if (!is_red) put(g, dst_vreg(g, &in->o[0]), T0);
}

// 64-bit add, and, or, xor whose old value nobody reads (red, or atom with a dead destination:
// NVRTC writes atom.global.add.u64 for an atomicAdd whose result is dropped). The unit's AMOs
// are 32 bits wide, so the two words are updated by two AMOs: and/or/xor word by word; add adds
// the low word with amoadd.w, takes the carry from the old low word it returned, and adds
// b.hi + carry to the high word. Every update lands exactly once, so the final value is the
// one a 64-bit AMO would leave, whatever the interleaving; only a plain load racing with the
// pair can see the low word updated and the high word not yet. An old value that is read
// would not be one value the word held, so those forms are refused, as are exch, cas, min,
// max, inc and dec (they need a 64-bit compare-and-swap).
static void gen_atom64(cg *g, int is_red) {
  const insn *in = g->in;
  uint32_t f5;
  if (insn_has(in, "add")) f5 = 0;
  else if (insn_has(in, "and")) f5 = 12;
  else if (insn_has(in, "or")) f5 = 8;
  else if (insn_has(in, "xor")) f5 = 4;
  else
    fail(g, PTX_ERR_NOT_SUPPORTED,
         "%s: of the 64-bit atomics only add, and, or and xor whose old value is unused are "
         "supported (the unit's atomics are 32-bit)", in->text);
  if (!is_red && ((in->lo_live | in->hi_live) & 1))
    fail(g, PTX_ERR_NOT_SUPPORTED,
         "%s: a 64-bit atomic whose old value is used is not supported (the unit's atomics are "
         "32-bit: two word-wide AMOs do not return one value)", in->text);
  need_opnds(g, is_red ? 2 : 3);
  int base = amo_base(g, &in->o[is_red ? 0 : 1]);
  const opnd *b = &in->o[is_red ? 1 : 2];
  int blo = src(g, b, S0), bhi = src_hi(g, b, S1);
  if (f5 == 0) {
    emit(g, rv_amo(0, T0, base, blo));            // T0: the old low word
    emit(g, rv_op(RV_ADD, T1, T0, blo));
    emit(g, rv_op(RV_SLTU, T1, T1, blo));         // the carry out of the low word
    emit(g, rv_op(RV_ADD, T1, T1, bhi));
    bhi = T1;
  } else {
    emit(g, rv_amo(f5, RV_ZERO, base, blo));
  }
  emit(g, rv_opi(RV_ADDI, S2, base, 4));
  emit(g, rv_amo(f5, RV_ZERO, S2, bhi));
  g->flags |= PTX_KERNEL_NEEDS_ATOMICS;
}

static void gen_fatom_add(cg *g, int is_red, int base);
static void gen_atom(cg *g) {
  const insn *in = g->in;
  int is_red = !strcmp(in->op, "red");
  only_mods(g, "global shared relaxed acquire release acq_rel cta gpu sys add exch cas min max and or "
               "xor inc dec b32 u32 s32 b64 u64 s64 f32 f64 f16 noftz");
  int nv;
  const char *space = mem_space(g, &nv);
  (void)space;
  tinfo t = parse_type(insn_type(in));
  if (t.is_float) {  // atom.add.f32 and red.add.f32: a CAS loop; other float atomics refused
    if (strcmp(insn_type(in), "f32") || !insn_has(in, "add"))
      fail(g, PTX_ERR_NOT_SUPPORTED, "%s: of the floating-point atomics only add.f32 is supported", in->text);
    need_opnds(g, is_red ? 2 : 3);
    gen_fatom_add(g, is_red, amo_base(g, &in->o[is_red ? 0 : 1]));
    return;
  }
  if (t.bits == 64) {
    gen_atom64(g, is_red);
    return;
  }
  if (t.bits != 32) fail(g, PTX_ERR_NOT_SUPPORTED, "%d-bit atomics are not supported", t.bits);
  if (insn_has(in, "inc") || insn_has(in, "dec")) {
    if (strcmp(insn_type(in), "u32")) fail(g, PTX_ERR_INVALID_PTX, "%s: inc and dec take .u32", in->text);
    need_opnds(g, is_red ? 2 : 3);
    gen_atom_incdec(g, is_red, amo_base(g, &in->o[is_red ? 0 : 1]), insn_has(in, "inc"));
    return;
  }
  uint32_t f5;
  int cas = 0;
  if (insn_has(in, "add")) f5 = 0;
  else if (insn_has(in, "exch")) f5 = 1;
  else if (insn_has(in, "cas")) f5 = 5, cas = 1;
  else if (insn_has(in, "and")) f5 = 12;
  else if (insn_has(in, "or")) f5 = 8;
  else if (insn_has(in, "xor")) f5 = 4;
  else if (insn_has(in, "min")) f5 = t.is_signed ? 16 : 24;
  else if (insn_has(in, "max")) f5 = t.is_signed ? 20 : 28;
  else fail(g, PTX_ERR_NOT_SUPPORTED, "this atomic operation has no RV32A form");
  if (cas && is_red) fail(g, PTX_ERR_INVALID_PTX, "red has no .cas");
  need_opnds(g, (is_red ? 2 : 3) + cas);
  int base = amo_base(g, &in->o[is_red ? 0 : 1]);
  int b = src(g, &in->o[is_red ? 1 : 2], S0);
  g->flags |= PTX_KERNEL_NEEDS_ATOMICS;
  if (is_red) {
    emit(g, rv_amo(f5, RV_ZERO, base, b));
    return;
  }
  int d = dst_vreg(g, &in->o[0]), rd = dst(g, d);
  if (cas) {  // Zacas amocas.w: rd holds the compare value in, the old value out
    int nw = src(g, &in->o[3], S1);
    mv(g, T0, b);
    emit(g, rv_amo(f5, T0, base, nw));
    put(g, d, T0);
    return;
  }
  emit(g, rv_amo(f5, rd, base, b));
  put(g, d, rd);
}

// ------------------------------------------------------------------------------ warp-level
// shfl.sync, vote.sync, activemask and bar.warp.sync (docs/ptx.md, "Warp-level instructions").
// They need the unit's warps to be 32 lanes wide, a CUDA warp executing in lockstep: lanes at
// the same PC issue together under min-PC scheduling, so every active lane's store of one
// instruction is done before any lane's load of the next. The exchange goes through one word of
// shared memory per thread at the top of the unit's shared memory (the launch keeps the block's
// threads' words out of the kernel's shared bytes): thread slot s (CSR 0xCD2, warp * LANES +
// lane) has the word at SHARED_BASE + SHARED_SIZE - 4 (s + 1), so lane j of the same warp has
// its own word's address + 4 (lane - j). The kernel is marked PTX_KERNEL_NEEDS_WARP32; libcuda
// refuses it on a unit with narrower warps.

// rd = the address of this thread's exchange word. Uses T0.
static void xchg_word(cg *g, int rd) {
  emit(g, rv_csrrs(rd, 0xCD0, RV_ZERO));  // shared base
  emit(g, rv_csrrs(T0, 0xCD1, RV_ZERO));  // shared size
  emit(g, rv_op(RV_ADD, rd, rd, T0));
  emit(g, rv_csrrs(T0, 0xCD2, RV_ZERO));  // the thread's slot
  emit(g, rv_slli(T0, T0, 2));
  emit(g, rv_op(RV_SUB, rd, rd, T0));
  emit(g, rv_opi(RV_ADDI, rd, rd, -4));
  g->flags |= PTX_KERNEL_NEEDS_WARP32;
}

// shfl.sync.{up,down,bfly,idx}.b32 d[|p], a, b, c, membermask: as PTX defines it, with
// lane = %laneid, b's 5 bits the offset or source lane, c's bits 0-4 the clamp and 8-12 the
// segment mask; maxLane = (lane & seg) | (clamp & ~seg), minLane = lane & seg; j = lane - b
// (up, valid while j >= maxLane), lane + b (down), lane ^ b (bfly), minLane | (b & ~seg) (idx)
// (valid while j <= maxLane); where not valid, the lane's own a. p says whether j was valid.
static void gen_shfl(cg *g) {
  const insn *in = g->in;
  only_mods(g, "sync up down bfly idx b32");
  if (!insn_has(in, "sync")) fail(g, PTX_ERR_NOT_SUPPORTED, "%s: shfl without .sync is not supported", in->text);
  int mode = insn_has(in, "up") ? 0 : insn_has(in, "down") ? 1 : insn_has(in, "bfly") ? 2 : insn_has(in, "idx") ? 3 : -1;
  if (mode < 0) fail(g, PTX_ERR_INVALID_PTX, "%s needs .up, .down, .bfly or .idx", in->text);
  need_opnds(g, 5);
  int cimm = in->o[3].kind == O_IMM;
  uint32_t cv = cimm ? (uint32_t)in->o[3].imm : 0;
  int32_t clamp = (int32_t)(cv & 31), seg = (int32_t)((cv >> 8) & 31);
  int d = dst_vreg(g, &in->o[0]);
  xchg_word(g, S2);
  emit(g, rv_store(2, src(g, &in->o[1], S0), S2, 0));  // every active lane's a in its word
  warp32_id(g, SD, 1);                                  // SD = lane (uses T0)
  // T1 = maxLane; with c in a register (NVRTC moves the constant into one), T0 = seg
  if (cimm) {
    emit(g, rv_opi(RV_ANDI, T1, SD, seg));
    if (clamp & ~seg) emit(g, rv_opi(RV_ORI, T1, T1, clamp & ~seg));
  } else {
    int c = src(g, &in->o[3], S1);
    emit(g, rv_srli(T0, c, 8));
    emit(g, rv_opi(RV_ANDI, T0, T0, 31));               // seg
    emit(g, rv_opi(RV_ANDI, S1, c, 31));                // clamp
    emit(g, rv_op(RV_OR, S1, S1, T0));
    emit(g, rv_op(RV_XOR, S1, S1, T0));                 // clamp & ~seg
    emit(g, rv_op(RV_AND, T1, SD, T0));
    emit(g, rv_op(RV_OR, T1, T1, S1));
  }
  int b;
  if (in->o[2].kind == O_IMM) {
    li(g, S0, (int32_t)(in->o[2].imm & 31));
  } else {
    b = src(g, &in->o[2], S0);
    emit(g, rv_opi(RV_ANDI, S0, b, 31));
  }
  b = S0;
  switch (mode) {
    case 0: emit(g, rv_op(RV_SUB, S1, SD, b)); break;
    case 1: emit(g, rv_op(RV_ADD, S1, SD, b)); break;
    case 2: emit(g, rv_op(RV_XOR, S1, SD, b)); break;
    default:  // minLane | (b & ~seg)
      if (cimm) {
        emit(g, rv_opi(RV_ANDI, S1, b, ~seg & 31));
        emit(g, rv_opi(RV_ANDI, T0, SD, seg));
      } else {
        emit(g, rv_op(RV_OR, S1, b, T0));
        emit(g, rv_op(RV_XOR, S1, S1, T0));
        emit(g, rv_op(RV_AND, T0, SD, T0));
      }
      emit(g, rv_op(RV_OR, S1, S1, T0));
      break;
  }
  if (mode == 0) emit(g, rv_op(RV_SLT, T0, S1, T1));   // not valid: j < maxLane
  else emit(g, rv_op(RV_SLT, T0, T1, S1));             // not valid: maxLane < j
  emit(g, rv_opi(RV_XORI, T0, T0, 1));                  // T0 = valid
  // S1 = valid ? j : lane, as lane + ((j - lane) & -valid)
  emit(g, rv_op(RV_SUB, S1, S1, SD));
  emit(g, rv_op(RV_SUB, S0, RV_ZERO, T0));
  emit(g, rv_op(RV_AND, S1, S1, S0));
  // the word of lane lane + S1: own word - 4 * S1
  emit(g, rv_slli(S1, S1, 2));
  emit(g, rv_op(RV_SUB, S2, S2, S1));
  emit(g, rv_load(2, SD, S2, 0));
  put(g, d, SD);
  if (in->o[0].pair) put(g, in->o[0].pair - 1, T0);
}

// vote.sync.{all,any,uni}.pred d, p, membermask; vote.sync.ballot.b32 d, p, membermask; and
// activemask.b32 d (a ballot of true). The warp's lane-0 exchange word gathers the lanes: every
// active lane clears it, then ORs in its bit (amoor.w), then reads it back.
static void gen_vote_common(cg *g, int kind, const opnd *p, int d) {
  // kind: 0 ballot, 1 all, 2 any, 3 uni
  xchg_word(g, S2);
  warp32_id(g, SD, 1);
  emit(g, rv_slli(T1, SD, 2));
  emit(g, rv_op(RV_ADD, S2, S2, T1));                  // lane 0's word: own + 4 * lane
  emit(g, rv_store(2, RV_ZERO, S2, 0));
  int pr = p ? src(g, p, S0) : -1;
  switch (kind) {
    case 0:
      if (pr < 0) li(g, S1, 1), pr = S1;
      emit(g, rv_op(RV_SLL, S1, pr, SD));                // p << lane
      break;
    case 1: emit(g, rv_opi(RV_XORI, S1, pr, 1)); break;  // a false lane sets bit 0
    case 2: mv(g, S1, pr); break;                       // a true lane sets bit 0
    default:                                             // true sets bit 0, false bit 1
      emit(g, rv_opi(RV_XORI, S1, pr, 1));
      emit(g, rv_slli(S1, S1, 1));
      emit(g, rv_op(RV_OR, S1, S1, pr));
      break;
  }
  emit(g, rv_amo(8, RV_ZERO, S2, S1));                  // amoor.w
  emit(g, rv_load(2, T1, S2, 0));
  switch (kind) {
    case 0: break;
    case 1: emit(g, rv_opi(RV_SLTIU, T1, T1, 1)); break;          // no lane false
    case 2: emit(g, rv_op(RV_SLTU, T1, RV_ZERO, T1)); break;      // some lane true
    default:                                                       // not both seen
      emit(g, rv_opi(RV_XORI, T1, T1, 3));
      emit(g, rv_op(RV_SLTU, T1, RV_ZERO, T1));
      break;
  }
  g->flags |= PTX_KERNEL_NEEDS_ATOMICS;
  put(g, d, T1);
}

static void gen_vote(cg *g) {
  const insn *in = g->in;
  only_mods(g, "sync all any uni ballot pred b32");
  if (!insn_has(in, "sync")) fail(g, PTX_ERR_NOT_SUPPORTED, "%s: vote without .sync is not supported", in->text);
  int kind = insn_has(in, "ballot") ? 0 : insn_has(in, "all") ? 1 : insn_has(in, "any") ? 2 : insn_has(in, "uni") ? 3 : -1;
  if (kind < 0) fail(g, PTX_ERR_INVALID_PTX, "%s needs .all, .any, .uni or .ballot", in->text);
  need_opnds(g, 3);
  if (in->o[1].kind != O_REG || g->k->regs[in->o[1].reg].rc != RC_PRED)
    fail(g, PTX_ERR_NOT_SUPPORTED, "%s: the vote's source must be a predicate register", in->text);
  gen_vote_common(g, kind, &in->o[1], dst_vreg(g, &in->o[0]));
}

static void gen_activemask(cg *g) {
  only_mods(g, "b32");
  need_opnds(g, 1);
  gen_vote_common(g, 0, NULL, dst_vreg(g, &g->in->o[0]));
}

static void gen_bar(cg *g) {
  const insn *in = g->in;
  if (insn_has(in, "warp")) {  // bar.warp.sync membermask (__syncwarp): a warp in lockstep is
    only_mods(g, "warp sync");  // already there; the fence orders its memory accesses
    need_opnds(g, 1);
    emit(g, rv_fence());
    g->flags |= PTX_KERNEL_NEEDS_WARP32;
    return;
  }
  only_mods(g, "sync aligned cta");
  if (!insn_has(in, "sync")) fail(g, PTX_ERR_NOT_SUPPORTED, "%s: only bar.sync is supported", in->text);
  if (in->nopnd != 1 || in->o[0].kind != O_IMM || in->o[0].imm != 0)
    fail(g, PTX_ERR_NOT_SUPPORTED, "only barrier 0 with every thread of the block is supported");
  emit(g, rv_csrrw(RV_ZERO, 0x800, RV_ZERO));
}

static void gen_fence(cg *g) {
  only_mods(g, "cta gl sys gpu sc acq_rel");
  emit(g, rv_fence());
}

static void gen_exit(cg *g) {
  only_mods(g, "uni");
  emit(g, rv_ecall());
}

static void gen_trap(cg *g) {
  (void)g;
  emit(g, 0x00000000u);  // an illegal instruction: the unit stops with FAULT_BAD_COMMAND
}

// ------------------------------------------------------------------------------ 64-bit integers
//
// A 64-bit register is a pair (docs/ptx.md, "64-bit registers"): its own vreg holds the low word,
// a companion (vreg.hi) the high word. ptx_regalloc marks per instruction whether the
// destination's high word is live afterwards (insn.hi_live); where it is not, the 32-bit handlers
// below compute the low word alone, exactly as before, so address arithmetic costs nothing extra.
// Where it is, or where the result needs the sources' high words (compares, right shifts,
// stores, min/max, abs), the handlers here compute with both words.


// T0 = (x < y) over 64 bits, signed or not, from the low words (S0, S1 as scratch) and then the
// high words; uses SD. x and y are operand indices.
static void less64(cg *g, const opnd *x, const opnd *y, int sgn) {
  int xl = src(g, x, S0), yl = src(g, y, S1);
  emit(g, rv_op(RV_SLTU, SD, xl, yl));
  int xh = src_hi(g, x, S0), yh = src_hi(g, y, S1);
  emit(g, rv_op(sgn ? RV_SLT : RV_SLTU, T0, xh, yh));
  emit(g, rv_op(RV_XOR, T1, xh, yh));
  emit(g, rv_opi(RV_SLTIU, T1, T1, 1));
  emit(g, rv_op(RV_AND, T1, T1, SD));
  emit(g, rv_op(RV_OR, T0, T0, T1));
}

// setp.cmp[.bool].{s64,u64,b64}
static void gen_setp64(cg *g, tinfo t) {
  const insn *in = g->in;
  const char *cmp = in->nmods ? in->mods[0] : "";
  const char *boolop = in->nmods > 2 ? in->mods[1] : NULL;
  if (boolop && strcmp(boolop, "and") && strcmp(boolop, "or") && strcmp(boolop, "xor")) boolop = NULL;
  need_opnds(g, boolop ? 4 : 3);
  int d = dst_vreg(g, &in->o[0]), rd = dst(g, d);
  if (rc_of(g, d) != RC_PRED) fail(g, PTX_ERR_INVALID_PTX, "setp writes a predicate");
  const opnd *a = &in->o[1], *b = &in->o[2];
  if (!strcmp(cmp, "eq") || !strcmp(cmp, "ne")) {
    int al = src(g, a, S0), bl = src(g, b, S1);
    emit(g, rv_op(RV_XOR, T0, al, bl));
    int ah = src_hi(g, a, S0), bh = src_hi(g, b, S1);
    emit(g, rv_op(RV_XOR, T1, ah, bh));
    emit(g, rv_op(RV_OR, T0, T0, T1));
    emit(g, !strcmp(cmp, "eq") ? rv_opi(RV_SLTIU, T0, T0, 1) : rv_op(RV_SLTU, T0, RV_ZERO, T0));
  } else {
    int sgn = t.is_signed;
    if (!strcmp(cmp, "lo") || !strcmp(cmp, "ls") || !strcmp(cmp, "hi") || !strcmp(cmp, "hs")) sgn = 0;
    else if (strcmp(cmp, "lt") && strcmp(cmp, "le") && strcmp(cmp, "gt") && strcmp(cmp, "ge"))
      fail(g, PTX_ERR_INVALID_PTX, "comparison .%s is not one of the integer comparisons", cmp);
    int swap = !strcmp(cmp, "gt") || !strcmp(cmp, "hi") || !strcmp(cmp, "le") || !strcmp(cmp, "ls");
    int inv = !strcmp(cmp, "ge") || !strcmp(cmp, "hs") || !strcmp(cmp, "le") || !strcmp(cmp, "ls");
    less64(g, swap ? b : a, swap ? a : b, sgn);
    if (inv) emit(g, rv_opi(RV_XORI, T0, T0, 1));
  }
  if (boolop) {
    int c = src(g, &in->o[3], S2);
    enum rv_op o = !strcmp(boolop, "and") ? RV_AND : !strcmp(boolop, "or") ? RV_OR : RV_XOR;
    emit(g, rv_op(o, rd, T0, c));
  } else {
    mv(g, rd, T0);
  }
  put(g, d, rd);
}

// add sub and or xor .64 with the high word live
static void gen_arith64(cg *g) {
  const insn *in = g->in;
  const char *op = in->op;
  need_opnds(g, 3);
  int d = dst_vreg(g, &in->o[0]);
  const opnd *a = &in->o[1], *b = &in->o[2];
  int is_add = !strcmp(op, "add"), is_sub = !strcmp(op, "sub");
  enum rv_op o = is_add ? RV_ADD : is_sub ? RV_SUB : !strcmp(op, "and") ? RV_AND
               : !strcmp(op, "or") ? RV_OR : RV_XOR;
  int al = src(g, a, S0), bl = src(g, b, S1);
  emit(g, rv_op(o, T0, al, bl));
  if (is_add) emit(g, rv_op(RV_SLTU, T1, T0, al));  // carry
  if (is_sub) emit(g, rv_op(RV_SLTU, T1, al, bl));  // borrow
  put(g, d, T0);
  int ah = src_hi(g, a, S0), bh = src_hi(g, b, S1);
  emit(g, rv_op(o, T0, ah, bh));
  if (is_add || is_sub) emit(g, rv_op(is_add ? RV_ADD : RV_SUB, T0, T0, T1));
  put_hi(g, d, T0);
}

// not neg abs .64 (abs always: its low word depends on the sign)
static void gen_unary64(cg *g) {
  const insn *in = g->in;
  need_opnds(g, 2);
  int d = dst_vreg(g, &in->o[0]);
  const opnd *a = &in->o[1];
  if (!strcmp(in->op, "not")) {
    emit(g, rv_opi(RV_XORI, T0, src(g, a, S0), -1));
    put(g, d, T0);
    emit(g, rv_opi(RV_XORI, T0, src_hi(g, a, S0), -1));
    put_hi(g, d, T0);
    return;
  }
  if (!strcmp(in->op, "neg")) {  // 0 - x: the high word borrows where the low word is not 0
    int al = src(g, a, S0);
    emit(g, rv_op(RV_SUB, T0, RV_ZERO, al));
    emit(g, rv_op(RV_SLTU, T1, RV_ZERO, al));
    put(g, d, T0);
    emit(g, rv_op(RV_SUB, T0, RV_ZERO, src_hi(g, a, S0)));
    emit(g, rv_op(RV_SUB, T0, T0, T1));
    put_hi(g, d, T0);
    return;
  }
  // abs: x ^ s - s with s the sign (all ones or 0), over both words
  int ah = src_hi(g, a, S1);
  emit(g, rv_srai(SD, ah, 31));
  int al = src(g, a, S0);
  neg_where64(g, T0, T1, al, ah, SD, S2);
  put(g, d, T0);
  if (in->hi_live & 1) put_hi(g, d, T1);
}

// The 64-bit product of the current instruction's operands 1 and 2 into T0 (low) and T1 (high):
// .wide of 32-bit operands (mulh/mulhu), or .lo of 64-bit ones (cross products). Uses S0-S2.
static void product64(cg *g, int wide, int sgn) {
  const insn *in = g->in;
  const opnd *a = &in->o[1], *b = &in->o[2];
  int al = src(g, a, S0), bl = src(g, b, S1);
  if (wide) {
    emit(g, rv_op(sgn ? RV_MULH : RV_MULHU, T1, al, bl));
    emit(g, rv_op(RV_MUL, T0, al, bl));
    return;
  }
  emit(g, rv_op(RV_MULHU, T1, al, bl));
  int bh = src_hi(g, b, S2);
  emit(g, rv_op(RV_MUL, S2, al, bh));
  emit(g, rv_op(RV_ADD, T1, T1, S2));
  emit(g, rv_op(RV_MUL, T0, al, bl));
  int ah = src_hi(g, a, S0);
  bl = src(g, b, S1);
  emit(g, rv_op(RV_MUL, S2, ah, bl));
  emit(g, rv_op(RV_ADD, T1, T1, S2));
}

// mul.lo.64, mul.wide.{s,u}32, mad.lo.64, mad.wide.{s,u}32 with the high word live
static void gen_mul64(cg *g, tinfo t) {
  const insn *in = g->in;
  int is_mad = !strcmp(in->op, "mad");
  need_opnds(g, is_mad ? 4 : 3);
  int wide = insn_has(in, "wide");
  if (wide && t.bits != 32) fail(g, PTX_ERR_NOT_SUPPORTED, "%s: only .wide of 32-bit operands is supported here", in->text);
  int d = dst_vreg(g, &in->o[0]);
  product64(g, wide, t.is_signed);
  if (is_mad) {
    const opnd *c = &in->o[3];
    int cl = src(g, c, S0);
    emit(g, rv_op(RV_ADD, T0, T0, cl));
    emit(g, rv_op(RV_SLTU, S1, T0, cl));
    emit(g, rv_op(RV_ADD, T1, T1, S1));
    emit(g, rv_op(RV_ADD, T1, T1, src_hi(g, c, S0)));
  }
  put(g, d, T0);
  put_hi(g, d, T1);
}

// shl.b64, shr.{b,u,s}64 (PTX clamps the amount at 64)
static void gen_shift64(cg *g, tinfo t) {
  const insn *in = g->in;
  need_opnds(g, 3);
  int is_shl = !strcmp(in->op, "shl"), arith = !is_shl && t.is_signed;
  int d = dst_vreg(g, &in->o[0]);
  const opnd *a = &in->o[1], *amt = &in->o[2];
  int al = src(g, a, S0), ah = src_hi(g, a, S1);
  if (amt->kind == O_IMM) {
    uint64_t n = (uint64_t)amt->imm;
    if (n > 64) n = 64;
    if (is_shl) {
      if (n == 0) mv(g, T0, al), mv(g, T1, ah);
      else if (n < 32) {
        emit(g, rv_slli(T1, ah, (int)n));
        emit(g, rv_srli(SD, al, (int)(32 - n)));
        emit(g, rv_op(RV_OR, T1, T1, SD));
        emit(g, rv_slli(T0, al, (int)n));
      } else if (n < 64) {
        emit(g, rv_slli(T1, al, (int)(n - 32)));
        mv(g, T0, RV_ZERO);
      } else {
        mv(g, T0, RV_ZERO), mv(g, T1, RV_ZERO);
      }
    } else {
      if (n == 0) mv(g, T0, al), mv(g, T1, ah);
      else if (n < 32) {
        emit(g, rv_srli(T0, al, (int)n));
        emit(g, rv_slli(SD, ah, (int)(32 - n)));
        emit(g, rv_op(RV_OR, T0, T0, SD));
        emit(g, arith ? rv_srai(T1, ah, (int)n) : rv_srli(T1, ah, (int)n));
      } else if (n < 64) {
        emit(g, arith ? rv_srai(T0, ah, (int)(n - 32)) : rv_srli(T0, ah, (int)(n - 32)));
        if (arith) emit(g, rv_srai(T1, ah, 31));
        else mv(g, T1, RV_ZERO);
      } else {
        if (arith) emit(g, rv_srai(T0, ah, 31)), emit(g, rv_srai(T1, ah, 31));
        else mv(g, T0, RV_ZERO), mv(g, T1, RV_ZERO);
      }
    }
  } else {
    // n & 31 through RV32's shifts, the word crossing as (x >> 1) >> (31 - n) (0 for n = 0),
    // then n & 32 moves words, n >= 64 clears (or fills with the sign)
    int n = src(g, amt, S2);
    if (is_shl) {
      emit(g, rv_op(RV_SLL, T1, ah, n));
      emit(g, rv_srli(SD, al, 1));
      emit(g, rv_opi(RV_XORI, T0, n, -1));
      emit(g, rv_op(RV_SRL, SD, SD, T0));
      emit(g, rv_op(RV_OR, T1, T1, SD));
      emit(g, rv_op(RV_SLL, T0, al, n));
      emit(g, rv_opi(RV_ANDI, SD, n, 32));
      emit(g, rv_b(12, RV_ZERO, SD, 0));  // beq SD, zero: skip the word move
      mv(g, T1, T0);
      mv(g, T0, RV_ZERO);
    } else {
      emit(g, rv_op(RV_SRL, T0, al, n));
      emit(g, rv_slli(SD, ah, 1));
      emit(g, rv_opi(RV_XORI, T1, n, -1));
      emit(g, rv_op(RV_SLL, SD, SD, T1));
      emit(g, rv_op(RV_OR, T0, T0, SD));
      emit(g, rv_op(arith ? RV_SRA : RV_SRL, T1, ah, n));
      emit(g, rv_opi(RV_ANDI, SD, n, 32));
      emit(g, rv_b(12, RV_ZERO, SD, 0));
      mv(g, T0, T1);
      if (arith) emit(g, rv_srai(T1, ah, 31));
      else mv(g, T1, RV_ZERO);
    }
    emit(g, rv_opi(RV_SLTIU, SD, n, 64));
    emit(g, rv_b(12, RV_ZERO, SD, 1));  // bne SD, zero: in range
    if (arith) {
      emit(g, rv_srai(T0, ah, 31));
      emit(g, rv_srai(T1, ah, 31));
    } else {
      mv(g, T0, RV_ZERO);
      mv(g, T1, RV_ZERO);
    }
  }
  put(g, d, T0);
  if (in->hi_live & 1) put_hi(g, d, T1);
}

// min max .{s,u}64: the 64-bit compare, then both words selected
static void gen_minmax64(cg *g, tinfo t) {
  const insn *in = g->in;
  need_opnds(g, 3);
  int d = dst_vreg(g, &in->o[0]);
  const opnd *a = &in->o[1], *b = &in->o[2];
  int is_min = !strcmp(in->op, "min");
  less64(g, is_min ? a : b, is_min ? b : a, t.is_signed);  // T0: take a
  mv(g, S2, T0);
  int rd = dst(g, d);
  select_reg(g, rd, S2, src(g, a, S0), src(g, b, S1));
  put(g, d, rd);
  if (in->hi_live & 1) {
    select_reg(g, SD, S2, src_hi(g, a, S0), src_hi(g, b, S1));
    put_hi(g, d, SD);
  }
}

// selp.b64 with the high word live
static void gen_selp64(cg *g) {
  const insn *in = g->in;
  need_opnds(g, 4);
  int d = dst_vreg(g, &in->o[0]), rd = dst(g, d);
  int p = src(g, &in->o[3], S2);
  select_reg(g, rd, p, src(g, &in->o[1], S0), src(g, &in->o[2], S1));
  put(g, d, rd);
  select_reg(g, SD, p, src_hi(g, &in->o[1], S0), src_hi(g, &in->o[2], S1));
  put_hi(g, d, SD);
}

// mov / cvta into a 64-bit register with the high word live; unpacking {lo, hi}
static int gen_mov64(cg *g) {
  const insn *in = g->in;
  need_opnds(g, 2);
  const opnd *o0 = &in->o[0], *o1 = &in->o[1];
  if (o0->kind == O_VEC) {  // mov.b64 {lo, hi}, x
    if (parse_type(insn_type(in)).bits != 64 || o0->nvec != 2 || o0->vec[1] < 0) return 0;
    if (o0->vec[0] >= 0) put(g, o0->vec[0], src(g, o1, S0));
    put(g, o0->vec[1], src_hi(g, o1, S1));
    return 1;
  }
  if (!is_b64_reg(g, o0) || !(in->hi_live & 1)) return 0;
  int d = o0->reg;
  if (o1->kind == O_VEC) {  // mov.b64 x, {lo, hi}
    if (o1->nvec != 2) return 0;
    opnd lo = {.kind = o1->vec[0] >= 0 ? O_REG : O_IMM, .reg = o1->vec[0]};
    opnd hi = {.kind = o1->vec[1] >= 0 ? O_REG : O_IMM, .reg = o1->vec[1]};
    put(g, d, src(g, &lo, S0));
    put_hi(g, d, src(g, &hi, S1));
    return 1;
  }
  put(g, d, src(g, o1, S0));
  put_hi(g, d, src_hi(g, o1, S1));
  return 1;
}

// cvt into a 64-bit register with the high word live: from 64 bits a copy, from fewer the sign
// (or zero) extension of the source type
static int gen_cvt64(cg *g, tinfo dt, tinfo st) {
  const insn *in = g->in;
  need_opnds(g, 2);
  int d = dst_vreg(g, &in->o[0]);
  if (dt.bits != 64) return 0;
  only_mods(g, "u8 u16 u32 u64 s8 s16 s32 s64");
  if (st.bits == 64) {
    put(g, d, src(g, &in->o[1], S0));
    put_hi(g, d, src_hi(g, &in->o[1], S1));
    return 1;
  }
  int x = src(g, &in->o[1], S0);
  extend(g, T0, x, st.bits, st.is_signed);
  put(g, d, T0);
  if (st.is_signed) emit(g, rv_srai(T0, T0, 31));
  else mv(g, T0, RV_ZERO);
  put_hi(g, d, T0);
  return 1;
}

// mul.hi.{u,s}64: the high 64 bits of the 128-bit product, from 32-bit partial products (the
// middle column's carries first), then for .s64 the signed correction: minus b where a < 0, minus
// a where b < 0 (mod 2^64). Result in T0 (low), SD (high).
static void gen_mulhi64(cg *g, tinfo t) {
  const insn *in = g->in;
  need_opnds(g, 3);
  int d = dst_vreg(g, &in->o[0]);
  const opnd *a = &in->o[1], *b = &in->o[2];
  // the middle column al*bl>>32 + lo(al*bh) + lo(ah*bl): only its carries (0..2) reach the result
  int al = src(g, a, S0), bl = src(g, b, S1);
  emit(g, rv_op(RV_MULHU, SD, al, bl));
  emit(g, rv_op(RV_MUL, S2, al, src_hi(g, b, S2)));
  emit(g, rv_op(RV_ADD, T0, SD, S2));
  emit(g, rv_op(RV_SLTU, T1, T0, S2));
  emit(g, rv_op(RV_MUL, S2, src_hi(g, a, S0), src(g, b, S1)));
  emit(g, rv_op(RV_ADD, T0, T0, S2));
  emit(g, rv_op(RV_SLTU, SD, T0, S2));
  emit(g, rv_op(RV_ADD, T1, T1, SD));
  // high 64 = carries + hi(al*bh) + hi(ah*bl) + ah*bh
  mv(g, T0, T1);
  mv(g, SD, RV_ZERO);
  for (int term = 0; term < 3; ++term) {
    int x = term == 1 || term == 2 ? src_hi(g, a, S0) : src(g, a, S0);
    int y = term == 0 || term == 2 ? src_hi(g, b, S1) : src(g, b, S1);
    emit(g, rv_op(term == 2 ? RV_MUL : RV_MULHU, S2, x, y));
    emit(g, rv_op(RV_ADD, T0, T0, S2));
    emit(g, rv_op(RV_SLTU, T1, T0, S2));
    emit(g, rv_op(RV_ADD, SD, SD, T1));
    if (term == 2) {
      emit(g, rv_op(RV_MULHU, S2, x, y));
      emit(g, rv_op(RV_ADD, SD, SD, S2));
    }
  }
  if (t.is_signed)
    for (int k = 0; k < 2; ++k) {  // k 0: a < 0 takes b off; k 1: b < 0 takes a off
      const opnd *neg = k ? b : a, *sub = k ? a : b;
      emit(g, rv_srai(S2, src_hi(g, neg, S0), 31));
      emit(g, rv_op(RV_AND, T1, S2, src(g, sub, S1)));
      emit(g, rv_op(RV_SLTU, S1, T0, T1));
      emit(g, rv_op(RV_SUB, T0, T0, T1));
      emit(g, rv_op(RV_SUB, SD, SD, S1));
      emit(g, rv_op(RV_AND, T1, S2, src_hi(g, sub, S1)));
      emit(g, rv_op(RV_SUB, SD, SD, T1));
    }
  put(g, d, T0);
  if (in->hi_live & 1) put_hi(g, d, SD);
}

// div rem .u64/.s64: restoring division, one quotient bit per iteration over the pair. The
// remainder and the dividend-becoming-quotient live in T1:T0 and S1:S0, the divisor and the
// loop count in the kernel's division scratch on the stack (div_base: 16 bytes the frame gets
// when the kernel divides 64-bit values). Division by 0 gives all ones and the dividend (the
// RISC-V convention); INT64_MIN / -1 gives INT64_MIN and 0.
static void gen_div64(cg *g, tinfo t) {
  const insn *in = g->in;
  need_opnds(g, 3);
  int is_rem = !strcmp(in->op, "rem");
  int d = dst_vreg(g, &in->o[0]);
  const opnd *a = &in->o[1], *b = &in->o[2];
  int32_t dlo = (int32_t)g->div_base, dhi = dlo + 4, cnt = dlo + 8, sgn = dlo + 12;
  // |b| (or b) to the stack; for .s64 the signs: bit 0 the quotient's, bit 1 the remainder's
  int bh = src_hi(g, b, S1), bl = src(g, b, S0);
  if (t.is_signed) {
    emit(g, rv_srai(SD, bh, 31));              // |b|
    neg_where64(g, T0, T1, bl, bh, SD, S2);
    emit(g, rv_store(2, T0, RV_SP, dlo));
    emit(g, rv_store(2, T1, RV_SP, dhi));
    emit(g, rv_op(RV_OR, T0, bl, bh));
    emit(g, rv_op(RV_SLTU, T0, RV_ZERO, T0));  // b != 0
    emit(g, rv_opi(RV_ANDI, SD, SD, 1));       // b < 0
    int ah = src_hi(g, a, S1), al = src(g, a, S0);
    emit(g, rv_srli(S2, ah, 31));              // a < 0
    emit(g, rv_op(RV_XOR, SD, SD, S2));        // bit 0: the quotient is negative (b != 0)
    emit(g, rv_op(RV_AND, SD, SD, T0));
    emit(g, rv_slli(S2, S2, 1));               // bit 1: the remainder is (the dividend's sign)
    emit(g, rv_op(RV_OR, SD, SD, S2));
    emit(g, rv_store(2, SD, RV_SP, sgn));
    emit(g, rv_srai(S2, ah, 31));              // |a| into S1:S0
    neg_where64(g, S0, S1, al, ah, S2, T0);
  } else {
    emit(g, rv_store(2, bl, RV_SP, dlo));
    emit(g, rv_store(2, bh, RV_SP, dhi));
    int ah = src_hi(g, a, S1);
    mv(g, S1, ah);
    mv(g, S0, src(g, a, S0));
  }
  li(g, T0, 64);
  emit(g, rv_store(2, T0, RV_SP, cnt));
  mv(g, T0, RV_ZERO);
  mv(g, T1, RV_ZERO);
  int loop = g->n;
  // [T1:T0 : S1:S0] <<= 1
  emit(g, rv_srli(S2, T0, 31));
  emit(g, rv_slli(T1, T1, 1));
  emit(g, rv_op(RV_OR, T1, T1, S2));
  emit(g, rv_srli(S2, S1, 31));
  emit(g, rv_slli(T0, T0, 1));
  emit(g, rv_op(RV_OR, T0, T0, S2));
  emit(g, rv_srli(S2, S0, 31));
  emit(g, rv_slli(S1, S1, 1));
  emit(g, rv_op(RV_OR, S1, S1, S2));
  emit(g, rv_slli(S0, S0, 1));
  // remainder >= divisor: subtract, quotient bit 1
  emit(g, rv_load(2, SD, RV_SP, dhi));
  emit(g, rv_b(4 * 11, SD, T1, 6));           // bltu T1, SD: smaller, on to the count
  emit(g, rv_b(4 * 3, SD, T1, 1));            // bne T1, SD: larger, subtract
  emit(g, rv_load(2, SD, RV_SP, dlo));
  emit(g, rv_b(4 * 8, SD, T0, 6));            // bltu T0, SD: smaller
  emit(g, rv_load(2, SD, RV_SP, dlo));
  emit(g, rv_op(RV_SLTU, S2, T0, SD));
  emit(g, rv_op(RV_SUB, T0, T0, SD));
  emit(g, rv_load(2, SD, RV_SP, dhi));
  emit(g, rv_op(RV_SUB, T1, T1, SD));
  emit(g, rv_op(RV_SUB, T1, T1, S2));
  emit(g, rv_opi(RV_ORI, S0, S0, 1));
  // the count
  emit(g, rv_load(2, SD, RV_SP, cnt));
  emit(g, rv_opi(RV_ADDI, SD, SD, -1));
  emit(g, rv_store(2, SD, RV_SP, cnt));
  emit(g, rv_b((loop - g->n) * 4, RV_ZERO, SD, 1));  // bne SD, zero
  // the result: the quotient S1:S0 or the remainder T1:T0, negated as the signs say
  if (is_rem) {
    mv(g, S0, T0);
    mv(g, S1, T1);
  }
  if (t.is_signed) {
    emit(g, rv_load(2, SD, RV_SP, sgn));
    emit(g, rv_opi(RV_ANDI, SD, SD, is_rem ? 2 : 1));
    emit(g, rv_op(RV_SLTU, SD, RV_ZERO, SD));
    emit(g, rv_op(RV_SUB, SD, RV_ZERO, SD));   // all ones where the result is negative
    neg_where64(g, S0, S1, S0, S1, SD, T0);
  }
  put(g, d, S0);
  if (in->hi_live & 1) put_hi(g, d, S1);
}

// Instructions whose result needs the high words of 64-bit registers; returns 0 where the
// 32-bit handlers compute everything that is live (the low word).
static int gen_int64(cg *g) {
  const insn *in = g->in;
  const char *op = in->op, *ty = insn_type(in);
  tinfo t = parse_type(ty);
  if (t.is_float) return 0;
  int live = (int)(in->hi_live & 1);
  if (!strcmp(op, "cvt")) {
    const char *types[2];
    int nt = 0;
    for (int i = 0; i < in->nmods; ++i)
      if (parse_type(in->mods[i]).bits && nt < 2) types[nt++] = in->mods[i];
    if (nt != 2 || !live) return 0;
    tinfo dt = parse_type(types[0]), st = parse_type(types[1]);
    if (dt.is_float || st.is_float) return 0;
    return gen_cvt64(g, dt, st);
  }
  if (!strcmp(op, "mov") || !strcmp(op, "cvta")) {
    if (!strcmp(op, "cvta")) only_mods(g, "to global shared local u32 u64");
    else only_mods(g, "b16 b32 b64 u16 u32 u64 s16 s32 s64 f32 pred");
    return gen_mov64(g);
  }
  if (t.bits == 64 && !strcmp(op, "setp")) {
    only_mods(g, "eq ne lt le gt ge lo ls hi hs and or xor s64 u64 b64");
    gen_setp64(g, t);
    return 1;
  }
  if (t.bits == 64 && (!strcmp(op, "min") || !strcmp(op, "max"))) {
    only_mods(g, "s64 u64");
    gen_minmax64(g, t);
    return 1;
  }
  if (t.bits == 64 && !strcmp(op, "abs")) {
    only_mods(g, "s64");
    gen_unary64(g);
    return 1;
  }
  if (t.bits == 64 && (!strcmp(op, "div") || !strcmp(op, "rem"))) {
    only_mods(g, "s64 u64");
    gen_div64(g, t);
    return 1;
  }
  if (t.bits == 64 && !strcmp(op, "mul") && insn_has(in, "hi")) {
    only_mods(g, "hi s64 u64");
    gen_mulhi64(g, t);
    return 1;
  }
  if (t.bits == 64 && !strcmp(op, "shr")) {
    only_mods(g, "b64 u64 s64");
    gen_shift64(g, t);
    return 1;
  }
  if (!live) return 0;
  if (t.bits == 64 && !strcmp(op, "shl")) {
    only_mods(g, "b64");
    gen_shift64(g, t);
    return 1;
  }
  if (t.bits == 64 && (!strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "and") ||
                       !strcmp(op, "or") || !strcmp(op, "xor"))) {
    only_mods(g, "s64 u64 b64");
    gen_arith64(g);
    return 1;
  }
  if (t.bits == 64 && (!strcmp(op, "not") || !strcmp(op, "neg"))) {
    only_mods(g, "s64 b64");
    gen_unary64(g);
    return 1;
  }
  if (!strcmp(op, "mul") || !strcmp(op, "mad")) {
    if (insn_has(in, "hi")) return 0;  // refused by the 32-bit handlers for 64 bits
    if (!(insn_has(in, "wide") && t.bits == 32) && !(insn_has(in, "lo") && t.bits == 64)) return 0;
    only_mods(g, "lo wide s32 u32 s64 u64");
    gen_mul64(g, t);
    return 1;
  }
  if (!strcmp(op, "selp") && t.bits == 64) {
    only_mods(g, "b64 s64 u64");
    gen_selp64(g);
    return 1;
  }
  return 0;
}

// ------------------------------------------------------------------------------ bit counts

// T0 = the number of set bits of x (RV32IM has no cpop): the SWAR sum. Uses T1, SD.
static void popc32(cg *g, int x) {
  emit(g, rv_srli(T1, x, 1));
  li(g, SD, 0x55555555);
  emit(g, rv_op(RV_AND, T1, T1, SD));
  emit(g, rv_op(RV_SUB, T0, x, T1));
  li(g, SD, 0x33333333);
  emit(g, rv_srli(T1, T0, 2));
  emit(g, rv_op(RV_AND, T1, T1, SD));
  emit(g, rv_op(RV_AND, T0, T0, SD));
  emit(g, rv_op(RV_ADD, T0, T0, T1));
  emit(g, rv_srli(T1, T0, 4));
  emit(g, rv_op(RV_ADD, T0, T0, T1));
  li(g, SD, 0x0F0F0F0F);
  emit(g, rv_op(RV_AND, T0, T0, SD));
  li(g, SD, 0x01010101);
  emit(g, rv_op(RV_MUL, T0, T0, SD));
  emit(g, rv_srli(T0, T0, 24));
}

// T0 = the number of leading zeros of x (32 for 0): a branch-free binary search on a copy of x
// in S1. Uses T1.
static void clz32(cg *g, int x) {
  static const int step[5][2] = {{16, 4}, {24, 3}, {28, 2}, {30, 1}, {31, 0}};
  mv(g, S1, x);
  mv(g, T0, RV_ZERO);
  for (int i = 0; i < 5; ++i) {
    emit(g, rv_srli(T1, S1, step[i][0]));
    emit(g, rv_opi(RV_SLTIU, T1, T1, 1));              // 1 where the top bits are all zero
    if (step[i][1]) emit(g, rv_slli(T1, T1, step[i][1]));
    emit(g, rv_op(RV_ADD, T0, T0, T1));
    emit(g, rv_op(RV_SLL, S1, S1, T1));
  }
  emit(g, rv_opi(RV_SLTIU, T1, S1, 1));                 // x was 0: 31 so far, one more
  emit(g, rv_op(RV_ADD, T0, T0, T1));
}

// T0 = x with its 32 bits reversed: swaps of 1, 2, 4, 8 and 16 bits. Uses T1, SD.
static void brev32(cg *g, int x) {
  static const uint32_t mask[4] = {0x55555555u, 0x33333333u, 0x0F0F0F0Fu, 0x00FF00FFu};
  mv(g, T0, x);
  for (int i = 0; i < 4; ++i) {
    li(g, SD, (int32_t)mask[i]);
    emit(g, rv_srli(T1, T0, 1 << i));
    emit(g, rv_op(RV_AND, T1, T1, SD));
    emit(g, rv_op(RV_AND, T0, T0, SD));
    emit(g, rv_slli(T0, T0, 1 << i));
    emit(g, rv_op(RV_OR, T0, T0, T1));
  }
  emit(g, rv_srli(T1, T0, 16));
  emit(g, rv_slli(T0, T0, 16));
  emit(g, rv_op(RV_OR, T0, T0, T1));
}

// popc.b32/b64, clz.b32/b64, brev.b32, bfind[.shiftamt].u32/s32: results as PTX defines them
// (clz of 0 is the width; bfind of 0, and of -1 for .s32, is 0xffffffff)
static void gen_bitcount(cg *g) {
  const insn *in = g->in;
  const char *op = in->op;
  need_opnds(g, 2);
  const char *ty = insn_type(in);
  if (!ty) fail(g, PTX_ERR_INVALID_PTX, "%s needs a type", op);
  int d = dst_vreg(g, &in->o[0]);
  const opnd *a = &in->o[1];
  if (!strcmp(op, "popc") || !strcmp(op, "clz")) {
    only_mods(g, "b32 b64");
    int is_popc = op[0] == 'p';
    if (!strcmp(ty, "b32")) {
      int x = src(g, a, S0);
      if (is_popc) popc32(g, x);
      else clz32(g, x);
    } else if (is_popc) {  // the two words' counts added
      popc32(g, src(g, a, S0));
      mv(g, S2, T0);
      popc32(g, src_hi(g, a, S0));
      emit(g, rv_op(RV_ADD, T0, T0, S2));
    } else {  // clz of the high word, or 32 + clz of the low word where the high word is 0
      int h = src_hi(g, a, S0);
      emit(g, rv_opi(RV_SLTIU, SD, h, 1));
      select_reg(g, S2, SD, src(g, a, S1), h);
      emit(g, rv_slli(S0, SD, 5));
      clz32(g, S2);
      emit(g, rv_op(RV_ADD, T0, T0, S0));
    }
  } else if (!strcmp(op, "brev")) {
    only_mods(g, "b32");
    brev32(g, src(g, a, S0));
  } else {  // bfind: the most significant non-sign bit
    only_mods(g, "u32 s32 shiftamt");
    int x = src(g, a, S0);
    if (!strcmp(ty, "s32")) {  // a negative value: the same search on its complement
      emit(g, rv_srai(T1, x, 31));
      emit(g, rv_op(RV_XOR, S0, x, T1));
      x = S0;
    }
    clz32(g, x);
    if (insn_has(in, "shiftamt")) {  // the shift that brings that bit to bit 31: clz, or -1 for 0
      emit(g, rv_opi(RV_SLTIU, T1, x, 1));
      emit(g, rv_op(RV_SUB, T1, RV_ZERO, T1));
      emit(g, rv_op(RV_OR, T0, T0, T1));
    } else {  // 31 - clz: -1 (0xffffffff) for 0 by itself
      li(g, T1, 31);
      emit(g, rv_op(RV_SUB, T0, T1, T0));
    }
  }
  put(g, d, T0);
}

// ------------------------------------------------------------------------------ f32 atomics

// Flushes a subnormal f32 (bits in r) to a zero of its sign, as atom.add.f32 does to its inputs
// and result (PTX ISA, atom). Uses SD.
static void ftz_bits(cg *g, int r) {
  emit(g, rv_lui(SD, 0x7F800u));
  emit(g, rv_op(RV_AND, SD, r, SD));
  emit(g, rv_b(12, RV_ZERO, SD, 1));  // bne SD, zero: a normal number, Inf or NaN stays
  emit(g, rv_srli(r, r, 31));
  emit(g, rv_slli(r, r, 31));
}

// atom.add.f32 / red.add.f32: a compare-and-swap loop (Zacas amocas.w) around an fadd.s with
// the inputs and the sum flushed as PTX says; d gets the old word. `base` holds the address.
static void gen_fatom_add(cg *g, int is_red, int base) {
  const insn *in = g->in;
  const opnd *b = &in->o[is_red ? 1 : 2];
  if (is_freg(g, b)) emit(g, rv_fop(RV_FMV_X_W, S1, fsrc(g, b, FS1), 0, 0));
  else mv(g, S1, src(g, b, S1));
  ftz_bits(g, S1);
  emit(g, rv_fop(RV_FMV_W_X, FS1, S1, 0, 0));
  int loop = g->n;
  emit(g, rv_load(2, T0, base, 0));                   // the word now
  mv(g, T1, T0);
  ftz_bits(g, T1);
  emit(g, rv_fop(RV_FMV_W_X, FS0, T1, 0, 0));
  emit(g, rv_fop(RV_FADD, FSD, FS0, FS1, RV_RNE));
  emit(g, rv_fop(RV_FMV_X_W, T1, FSD, 0, 0));
  ftz_bits(g, T1);
  mv(g, S0, T0);
  emit(g, rv_amo(5, S0, base, T1));                   // amocas.w: stored where the word is still T0
  emit(g, rv_b((loop - g->n) * 4, T0, S0, 1));        // bne S0, T0: another lane came first
  g->flags |= PTX_KERNEL_NEEDS_ATOMICS;
  if (!is_red) {
    int d = dst_vreg(g, &in->o[0]);
    if (is_freg(g, &in->o[0])) {
      int fd = fdst(g, d);
      emit(g, rv_fop(RV_FMV_W_X, fd, T0, 0, 0));
      fput(g, d, fd);
    } else {
      put(g, d, T0);
    }
  }
}

// shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: the funnel shift of b:a (b the high word) by c (c mod 32,
// or at most 32), NVRTC's rotate
static void gen_shf(cg *g) {
  const insn *in = g->in;
  only_mods(g, "l r wrap clamp b32");
  need_opnds(g, 4);
  int left = insn_has(in, "l"), clamp = insn_has(in, "clamp");
  if (left == insn_has(in, "r") || clamp == insn_has(in, "wrap"))
    fail(g, PTX_ERR_INVALID_PTX, "%s needs one of .l/.r and one of .wrap/.clamp", in->text);
  int d = dst_vreg(g, &in->o[0]);
  int a = src(g, &in->o[1], S0), b = src(g, &in->o[2], S1), c = src(g, &in->o[3], S2);
  // RV32's shifts take c mod 32; the bits that cross words as (x >> 1) >> (31 - c) (none for 0)
  if (left) {
    emit(g, rv_op(RV_SLL, T1, b, c));
    emit(g, rv_srli(SD, a, 1));
    emit(g, rv_opi(RV_XORI, T0, c, -1));
    emit(g, rv_op(RV_SRL, SD, SD, T0));
  } else {
    emit(g, rv_op(RV_SRL, T1, a, c));
    emit(g, rv_slli(SD, b, 1));
    emit(g, rv_opi(RV_XORI, T0, c, -1));
    emit(g, rv_op(RV_SLL, SD, SD, T0));
  }
  emit(g, rv_op(RV_OR, T1, T1, SD));
  if (clamp) {  // 32 or more: the whole other word
    emit(g, rv_opi(RV_SLTIU, SD, c, 32));
    emit(g, rv_b(8, RV_ZERO, SD, 1));  // bne SD, zero
    mv(g, T1, left ? a : b);  // one word: a and b are never T1
  }
  put(g, d, T1);
}

// The value of an operand known when translating: an immediate, or a register whose last write
// in the same straight-line code (no label or branch in between) is an unguarded mov of an
// immediate, as NVRTC writes the selector of prmt.
static int const_operand(cg *g, const opnd *o, uint32_t *v) {
  if (o->kind == O_IMM) {
    *v = (uint32_t)o->imm;
    return 1;
  }
  if (o->kind != O_REG) return 0;
  for (const insn *p = g->in - 1; p >= g->k->insns; --p) {
    if (p->label >= 0 || !strcmp(p->op, "bra")) return 0;
    if (!insn_writes_first(p)) continue;
    int writes = p->o[0].kind == O_REG && p->o[0].reg == o->reg;
    for (int e = 0; p->o[0].kind == O_VEC && e < p->o[0].nvec; ++e) writes |= p->o[0].vec[e] == o->reg;
    if (!writes) continue;
    if (strcmp(p->op, "mov") || p->guard >= 0 || p->o[0].kind != O_REG || p->o[1].kind != O_IMM) return 0;
    *v = (uint32_t)p->o[1].imm;
    return 1;
  }
  return 0;
}

// prmt.b32 d, a, b, c with a constant selector c (the default mode): byte k of d is byte
// c[4k+2:4k] of b:a (b the high word), or that byte's sign replicated where c[4k+3] is set
static void gen_prmt(cg *g) {
  const insn *in = g->in;
  only_mods(g, "b32");
  need_opnds(g, 4);
  uint32_t sel;
  if (!const_operand(g, &in->o[3], &sel))
    fail(g, PTX_ERR_NOT_SUPPORTED, "%s with a selector that is not a constant is not supported", in->text);
  int d = dst_vreg(g, &in->o[0]);
  int a = src(g, &in->o[1], S0), b = src(g, &in->o[2], S1);
  mv(g, T0, RV_ZERO);
  for (int k = 0; k < 4; ++k) {
    unsigned s = (sel >> (4 * k)) & 0xF, byte = s & 7;
    int x = byte < 4 ? a : b, sh = 8 * (int)(byte & 3);
    if (s & 8) {  // the byte's top bit in all 8 bits
      emit(g, rv_slli(T1, x, 24 - sh));
      emit(g, rv_srai(T1, T1, 31));
      emit(g, rv_opi(RV_ANDI, T1, T1, 0xFF));
    } else {
      emit(g, rv_srli(T1, x, sh));
      emit(g, rv_opi(RV_ANDI, T1, T1, 0xFF));
    }
    if (k) emit(g, rv_slli(T1, T1, 8 * k));
    emit(g, rv_op(RV_OR, T0, T0, T1));
  }
  put(g, d, T0);
}

static const struct { const char *op; void (*gen)(cg *); } kHandlers[] = {
    {"bra", gen_bra},     {"add", gen_binop},  {"sub", gen_binop},   {"and", gen_binop},
    {"or", gen_binop},    {"xor", gen_binop},  {"mul", gen_binop},   {"div", gen_binop},
    {"rem", gen_binop},   {"min", gen_binop},  {"max", gen_binop},   {"mad", gen_mad},
    {"shl", gen_shift},   {"shr", gen_shift},  {"not", gen_unary},   {"cnot", gen_unary},
    {"neg", gen_unary},   {"abs", gen_unary},  {"setp", gen_setp},   {"selp", gen_selp},
    {"mov", gen_mov},     {"cvt", gen_cvt},    {"cvta", gen_cvta},   {"ld", gen_ld},
    {"st", gen_st},       {"atom", gen_atom},  {"red", gen_atom},    {"bar", gen_bar},
    {"barrier", gen_bar}, {"membar", gen_fence}, {"fence", gen_fence}, {"ret", gen_exit},
    {"exit", gen_exit},   {"trap", gen_trap},  {"bfe", gen_bitfield}, {"bfi", gen_bitfield},
    {"popc", gen_bitcount}, {"clz", gen_bitcount}, {"brev", gen_bitcount}, {"bfind", gen_bitcount},
    {"shf", gen_shf},     {"prmt", gen_prmt},  {"shfl", gen_shfl},   {"vote", gen_vote},
    {"activemask", gen_activemask},
    {NULL, NULL}};

static void gen_one(cg *g, void (*gen)(cg *)) {
  if (gen_int64(g)) return;
  if (!gen_float(g)) {
    if (!gen) fail(g, PTX_ERR_NOT_SUPPORTED, "instruction %s is not supported by the translator", g->in->text);
    gen(g);
  }
}

static void gen_insn(cg *g) {
  const insn *in = g->in;
  void (*gen)(cg *) = NULL;
  if (in->nopnd && in->o[0].kind == O_REG && in->o[0].pair && strcmp(in->op, "shfl") != 0)
    fail(g, PTX_ERR_NOT_SUPPORTED, "two destinations (d|p) are supported on shfl only");
  for (int i = 0; kHandlers[i].op && !gen; ++i)
    if (!strcmp(kHandlers[i].op, in->op)) gen = kHandlers[i].gen;
  if (in->guard >= 0 && strcmp(in->op, "bra") != 0) {
    // a guarded instruction: branch over it where the guard does not hold
    opnd p = {.kind = O_REG, .reg = in->guard};
    int r = src(g, &p, S0);
    int at = g->n;
    emit(g, 0);
    gen_one(g, gen);
    g->buf[at] = rv_b((g->n - at) * 4, RV_ZERO, r, in->guard_neg ? 1 : 0);  // skip if false
    return;
  }
  gen_one(g, gen);  // no handler: f32 only (fma, copysign, ...) or refused
}

static void one_pass(cg *g) {
  g->n = 0;
  g->nrelocs = 0;
  g->overflow = 0;
  g->flags = 0;
  g->shared_end = 0;
  if (g->frame || g->femu) {  // emulated F: its state above the frame
    emit(g, rv_csrrs(RV_SP, 0xCCF, RV_ZERO));
    emit(g, rv_opi(RV_ADDI, RV_SP, RV_SP, -(int32_t)(g->frame + (g->femu ? FEMU_STATE : 0))));
  }
  if (g->femu) {  // frm RNE, fflags clear, fnan set (the stack holds a previous launch's bytes)
    emit_word(g, rv_store(2, RV_ZERO, RV_SP, (int32_t)g->frame + FEMU_FRM));
    emit_word(g, rv_store(2, RV_ZERO, RV_SP, (int32_t)g->frame + FEMU_FRM + 4));
    emit_word(g, rv_opi(RV_ADDI, T0, RV_ZERO, 1));
    emit_word(g, rv_store(2, T0, RV_SP, (int32_t)g->frame + FEMU_FNAN));
  } else if (g->uses_f) {
    emit(g, rv_csrrwi(RV_ZERO, 0x801, 1));  // fnan: NVIDIA's NaN conventions
  }
  if (g->split) {  // the last sub-block's threads past the block's end stop here
    split_linear(g, S0);
    hidden_word(g, T0, 5);
    emit(g, rv_b(8, T0, S0, 6));  // bltu S0, T0: a thread of the block
    emit(g, rv_ecall());
  }
  for (int i = 0; i < g->k->ninsns; ++i) {
    g->insn_at[i] = g->n;
    g->in = &g->k->insns[i];
    if (g->in->label >= 0) continue;
    gen_insn(g);
  }
  emit(g, rv_ecall());  // falling off the end ends the thread
}

// The line map of one kernel whose code starts at `entry`: the prologue is the .entry's line,
// then each instruction's line from its first word; an instruction with no code gives way to
// the next one at the same offset.
static void add_line(ptx_ctx *c, uint32_t off, int line) {
  if (c->nlines && c->lines[c->nlines - 1].code_offset == off) {
    c->lines[c->nlines - 1].line = line;
    return;
  }
  if (c->nlines && c->lines[c->nlines - 1].line == line) return;
  c->lines = ptx_grow(c, c->lines, &c->cap_lines, c->nlines + 1, sizeof *c->lines);
  c->lines[c->nlines++] = (ptx_line_entry){off, line};
}

static void record_lines(ptx_ctx *c, const kernel_ir *k, const int *insn_at, uint32_t entry) {
  add_line(c, entry, k->line);
  for (int i = 0; i < k->ninsns; ++i)
    if (k->insns[i].label < 0) add_line(c, entry + 4u * (uint32_t)insn_at[i], k->insns[i].line);
}

// Whether any word is an F-extension instruction: LOAD-FP/STORE-FP of a word, the four fused
// multiply-add opcodes, OP-FP. (A unit without F takes them as illegal instructions.)
static int code_has_f(const uint32_t *w, int n) {
  for (int i = 0; i < n; ++i) {
    uint32_t opc = w[i] & 0x7Fu, f3 = (w[i] >> 12) & 7u;
    if (((opc == 0x07 || opc == 0x27) && f3 == 2) || opc == RV_FMADD || opc == RV_FMSUB ||
        opc == RV_FNMSUB || opc == RV_FNMADD || opc == 0x53)
      return 1;
  }
  return 0;
}

// Room for n more bytes at the end of the module's code
static void code_room(ptx_ctx *c, uint32_t n) {
  if (c->code_bytes + n <= c->code_cap) return;
  uint32_t cap = c->code_cap ? c->code_cap : 1024;
  while (cap < c->code_bytes + n) cap *= 2;
  uint8_t *p = realloc(c->code, cap);
  if (!p) ptx_fail(c, PTX_ERR_NO_MEMORY, 0, NULL, "out of host memory");
  c->code = p;
  c->code_cap = cap;
}

void ptx_codegen(ptx_ctx *c, kernel_ir *k, ptx_kernel *out, int split) {
  cg g;
  memset(&g, 0, sizeof g);
  g.c = c;
  g.k = k;
  g.split = split;
  g.hid = (k->param_bytes + 3u) & ~3u;
  uint32_t spill = (uint32_t)k->spill_bytes;
  uint32_t la = k->local_align ? k->local_align : 4;
  g.local_base = (spill + la - 1) / la * la;
  uint32_t frame = g.local_base + k->local_bytes;
  for (int i = 0; i < k->ninsns; ++i) {  // a 64-bit div/rem: 16 bytes of scratch after .local
    const insn *in = &k->insns[i];
    tinfo t = parse_type(insn_type(in));
    if ((!strcmp(in->op, "div") || !strcmp(in->op, "rem")) && t.bits == 64 && !t.is_float) {
      g.div_base = (frame + 3u) & ~3u;
      frame = g.div_base + 16;
      break;
    }
  }
  g.frame = (frame + 15u) & ~15u;
  if (g.frame > 2032) {
    g.in = &k->insns[0];
    ptx_fail(c, PTX_ERR_NOT_SUPPORTED, k->line, k->name,
             "kernel %s needs %u bytes of stack per thread (spills and .local); at most 2032",
             k->name, g.frame);
  }
  for (int r = 0; r < k->nregs && !g.uses_f; ++r) g.uses_f = k->regs[r].rc == RC_F32 && k->regs[r].start >= 0;
  for (int i = 0; i < k->ninsns && !g.uses_f; ++i)
    for (int m = 0; m < k->insns[i].nmods; ++m) g.uses_f |= !strcmp(k->insns[i].mods[m], "f32");
  g.femu = g.uses_f && c->opt.emulate_f;
  if (g.femu) {
    uint32_t need = g.frame + FEMU_STATE + FEMU_SAVE + FEMU_CSTACK;
    if (need > c->opt.stack_limit)
      ptx_fail(c, PTX_ERR_NOT_SUPPORTED, k->line, k->name,
               "kernel %s needs %u bytes of stack per thread: %u of spills and .local, and %u for the "
               "f32 emulation of a unit without F; the unit's threads have %u",
               k->name, need, g.frame, need - g.frame, c->opt.stack_limit);
    if (c->femu_at < 0) {  // the emulation code, once per module, ahead of this kernel
      uint32_t n = (uint32_t)sizeof ptx_femu_code;
      code_room(c, n);
      memcpy(c->code + c->code_bytes, ptx_femu_code, n);
      c->femu_at = c->code_bytes;
      add_line(c, c->code_bytes, 0);  // no PTX line
      c->code_bytes += n;
    }
  }
  g.insn_at = calloc((size_t)k->ninsns + 1, sizeof(int));
  g.label_at = calloc((size_t)k->ninsns + 1, sizeof(int));
  if (!g.insn_at || !g.label_at) {
    free(g.insn_at), free(g.label_at);
    ptx_fail(c, PTX_ERR_NO_MEMORY, 0, NULL, "out of host memory");
  }
  // short branches if everything reaches, else inverted branches over jal; each form twice
  // (the first pass finds where the labels are). The buffers are the context's, so that an
  // error (a longjmp out of a pass) leaves them to ptx_translate to free.
  c->tmp[1] = g.insn_at;
  c->tmp[2] = g.label_at;
  int *saved_label_at = g.label_at;
  for (g.long_br = 0; g.long_br < 2; ++g.long_br) {
    g.label_at = NULL;
    one_pass(&g);
    memcpy(saved_label_at, g.insn_at, (size_t)k->ninsns * sizeof(int));
    g.label_at = saved_label_at;
    one_pass(&g);
    if (!g.overflow) break;
  }
  // append to the module's code
  uint32_t bytes = (uint32_t)g.n * 4;
  code_room(c, bytes);
  out->entry = c->code_bytes;
  out->code_bytes = bytes;
  for (int i = 0; i < g.n; ++i) {
    uint32_t w = g.buf[i];
    uint8_t *d = c->code + c->code_bytes + 4 * i;
    d[0] = (uint8_t)w, d[1] = (uint8_t)(w >> 8), d[2] = (uint8_t)(w >> 16), d[3] = (uint8_t)(w >> 24);
  }
  record_lines(c, k, g.insn_at, out->entry);
  for (int i = 0; i < g.nrelocs; ++i) {  // the data references, as module code offsets
    c->relocs = ptx_grow(c, c->relocs, &c->cap_relocs, c->nrelocs + 1, sizeof(ptx_reloc));
    c->relocs[c->nrelocs++] = (ptx_reloc){out->entry + 4 * g.relocs[i].code_offset, g.relocs[i].data_offset};
  }
  g.relocs = NULL;  // c->tmp[3], freed below
  c->code_bytes += bytes;
  out->flags = g.flags | (k->has_dynamic_shared ? PTX_KERNEL_DYNAMIC_SHARED : 0);
  if (g.femu) out->flags |= PTX_KERNEL_FEMU;
  else if (g.uses_f || code_has_f(g.buf, g.n)) out->flags |= PTX_KERNEL_NEEDS_F;
  out->shared_bytes = k->has_dynamic_shared ? ((c->shared_bytes + 15u) & ~15u) : g.shared_end;
  out->stack_bytes = g.frame + (g.femu ? FEMU_STATE : 0);
  for (int i = 0; i < 4; ++i) {
    free(c->tmp[i]);
    c->tmp[i] = NULL;
  }
}
