// PTX module parser: the header (.version, .target, .address_size), module-scope .shared
// variables, and each .entry with its .param list, .reg/.shared/.local declarations, labels
// and instructions. What it cannot translate exactly (.func, calls, .global/.const variables)
// is refused here with the line; instruction semantics are checked by the code generator.
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"

// Every PTX ISA opcode (ISA 8.x), so that a made-up instruction is told apart from a real one
// this translator does not support.
static const char *const kOpcodes[] = {
    "abs", "activemask", "add", "addc", "alloca", "and", "applypriority", "atom", "bar",
    "barrier", "bfe", "bfi", "bfind", "bmsk", "bra", "brev", "brkpt", "brx", "call", "clz",
    "cnot", "copysign", "cos", "cp", "createpolicy", "cvt", "cvta", "discard", "div", "dp2a",
    "dp4a", "elect", "ex2", "exit", "fence", "fma", "fns", "getctarank", "griddepcontrol",
    "isspacep", "istypeof", "ld", "ldmatrix", "ldu", "lg2", "lop3", "mad", "mad24", "madc",
    "mapa", "match", "max", "mbarrier", "membar", "min", "mma", "mov", "movmatrix", "mul",
    "mul24", "multimem", "nanosleep", "neg", "not", "or", "pmevent", "popc", "prefetch",
    "prefetchu", "prmt", "rcp", "red", "redux", "rem", "ret", "rsqrt", "sad", "selp", "set",
    "setmaxnreg", "setp", "shf", "shfl", "shl", "shr", "sin", "slct", "sqrt", "st",
    "stackrestore", "stacksave", "stmatrix", "sub", "subc", "suld", "suq", "sured", "sust",
    "szext", "tanh", "tcgen05", "testp", "tex", "tld4", "trap", "txq", "vabsdiff", "vabsdiff2",
    "vabsdiff4", "vadd", "vadd2", "vadd4", "vavrg2", "vavrg4", "vmad", "vmax", "vmax2", "vmax4",
    "vmin", "vmin2", "vmin4", "vote", "vset", "vset2", "vset4", "vshl", "vshr", "vsub", "vsub2",
    "vsub4", "wgmma", "wmma", "xor", NULL};

int ptx_is_known_opcode(const char *op) {
  for (int i = 0; kOpcodes[i]; ++i)
    if (strcmp(kOpcodes[i], op) == 0) return 1;
  return 0;
}

int insn_has(const insn *in, const char *mod) {
  for (int i = 0; i < in->nmods; ++i)
    if (strcmp(in->mods[i], mod) == 0) return 1;
  return 0;
}

static int is_type_name(const char *m) {
  static const char *const t[] = {"pred", "b8",  "b16", "b32", "b64", "u8",  "u16", "u32", "u64",
                                  "s8",   "s16", "s32", "s64", "f16", "f16x2", "bf16", "f32",
                                  "f64", "b128", NULL};
  for (int i = 0; t[i]; ++i)
    if (strcmp(t[i], m) == 0) return 1;
  return 0;
}

const char *insn_type(const insn *in) {
  for (int i = in->nmods - 1; i >= 0; --i)
    if (is_type_name(in->mods[i])) return in->mods[i];
  return NULL;
}

// ------------------------------------------------------------------------------ helpers

static void fail_here(ptx_ctx *c, ptx_status st, const char *what, const char *fmt, const char *arg) {
  ptx_fail(c, st, c->cur.line, what, fmt, arg);
}

static void tokname(ptx_ctx *c, char *dst, size_t n) { ptx_tokcpy(dst, n, &c->cur); }

static int type_class(ptx_ctx *c, const char *t, int line) {
  if (!strcmp(t, ".pred")) return RC_PRED;
  if (!strcmp(t, ".b8") || !strcmp(t, ".u8") || !strcmp(t, ".s8") || !strcmp(t, ".b16") ||
      !strcmp(t, ".u16") || !strcmp(t, ".s16") || !strcmp(t, ".f16") || !strcmp(t, ".bf16"))
    return RC_B16;
  if (!strcmp(t, ".b32") || !strcmp(t, ".u32") || !strcmp(t, ".s32") || !strcmp(t, ".f16x2"))
    return RC_B32;
  if (!strcmp(t, ".b64") || !strcmp(t, ".u64") || !strcmp(t, ".s64")) return RC_B64;
  if (!strcmp(t, ".f32")) return RC_F32;
  if (!strcmp(t, ".f64")) return RC_F64;
  ptx_fail(c, PTX_ERR_NOT_SUPPORTED, line, ".reg", "registers of type %s are not supported", t);
}

static uint32_t type_bytes(const char *t) {
  if (strstr(t, "8")) return strstr(t, "128") ? 16 : 1;  // b8/u8/s8, b128
  if (strstr(t, "16x2")) return 4;
  if (strstr(t, "16")) return 2;
  if (strstr(t, "32")) return 4;
  if (strstr(t, "64")) return 8;
  return 0;
}

static int find_sym(const kernel_ir *k, const char *name) {
  for (int i = 0; i < k->nsyms; ++i)
    if (strcmp(k->syms[i].name, name) == 0) return i;
  return -1;
}

static int add_sym(ptx_ctx *c, kernel_ir *k, const char *name, enum sym_kind kind, uint32_t value,
                   uint32_t size, int line) {
  k->syms = ptx_grow(c, k->syms, &k->cap_syms, k->nsyms + 1, sizeof(sym));
  sym *s = &k->syms[k->nsyms];
  snprintf(s->name, sizeof s->name, "%s", name);
  s->kind = kind;
  s->value = value;
  s->size = size;
  s->line = line;
  return k->nsyms++;
}

// The innermost declaration of a register name (a { } block's .reg shadows the kernel's).
static int find_reg(const kernel_ir *k, const char *name) {
  for (int f = k->nfams - 1; f >= 0; --f) {
    const reg_family *rf = &k->fams[f];
    size_t pl = strlen(rf->prefix);
    if (!rf->numbered) {
      if (strcmp(rf->prefix, name) == 0) return rf->first;
      continue;
    }
    if (strncmp(rf->prefix, name, pl) != 0 || name[pl] == '\0') continue;
    const char *d = name + pl;
    int ok = 1;
    for (const char *q = d; *q; ++q) ok &= isdigit((unsigned char)*q) != 0;
    if (!ok) continue;
    long n = strtol(d, NULL, 10);
    if (n < rf->count) return rf->first + (int)n;
  }
  return -1;
}

static void add_regs(ptx_ctx *c, kernel_ir *k, const char *prefix, int numbered, int count, int rc) {
  for (int f = k->scope_fams; f < k->nfams && !numbered; ++f)  // twice in one block
    if (!k->fams[f].numbered && !strcmp(k->fams[f].prefix, prefix))
      ptx_fail(c, PTX_ERR_INVALID_PTX, c->cur.line, ".reg", "register %s declared twice", prefix);
  k->fams = ptx_grow(c, k->fams, &k->cap_fams, k->nfams + 1, sizeof(reg_family));
  reg_family *f = &k->fams[k->nfams++];
  snprintf(f->prefix, sizeof f->prefix, "%s", prefix);
  f->numbered = numbered;
  f->count = count;
  f->first = k->nregs;
  // a 64-bit register is a pair: the family's vregs hold the low words, and `count` companions
  // after them the high words (32-bit vregs, allocated only where they are live)
  int total = rc == RC_B64 ? 2 * count : count;
  k->regs = ptx_grow(c, k->regs, &k->cap_regs, k->nregs + total, sizeof(vreg));
  int base = k->nregs;
  for (int i = 0; i < total; ++i) {
    vreg *v = &k->regs[k->nregs++];
    v->rc = i < count ? (enum reg_class)rc : RC_B32;
    v->hi = rc == RC_B64 && i < count ? base + count + i : -1;
    v->phys = -1;
    v->slot = -1;
    v->start = v->end = -1;
  }
}

// .reg .type %a<N>, %b, ... ;
static void parse_reg_decl(ptx_ctx *c, kernel_ir *k) {
  int line = c->cur.line;
  char t[16];
  tokname(c, t, sizeof t);
  int rc = type_class(c, t, line);
  ptx_next(c);
  for (;;) {
    if (c->cur.kind != T_IDENT || c->cur.s[0] != '%')
      fail_here(c, PTX_ERR_INVALID_PTX, ".reg", "expected a register name%s", "");
    char name[32];
    tokname(c, name, sizeof name);
    ptx_next(c);
    if (ptx_accept(c, "<")) {
      if (c->cur.kind != T_NUM) fail_here(c, PTX_ERR_INVALID_PTX, ".reg", "expected a count%s", "");
      int64_t n = ptx_number(c, &c->cur);
      if (n <= 0 || n > 65536) fail_here(c, PTX_ERR_INVALID_PTX, ".reg", "bad register count%s", "");
      ptx_next(c);
      ptx_expect(c, ">");
      add_regs(c, k, name, 1, (int)n, rc);
    } else {
      add_regs(c, k, name, 0, 1, rc);
    }
    if (!ptx_accept(c, ",")) break;
  }
  ptx_expect(c, ";");
}

// [.align N] .type name[N]... ; returns the size in bytes and the alignment
static void parse_array_decl(ptx_ctx *c, const char *what, char *name, size_t nname, uint32_t *bytes,
                             uint32_t *align, int *unsized) {
  *align = 0;
  *unsized = 0;
  if (ptx_accept(c, ".align")) {
    if (c->cur.kind != T_NUM) fail_here(c, PTX_ERR_INVALID_PTX, what, "expected an alignment%s", "");
    *align = (uint32_t)ptx_number(c, &c->cur);
    ptx_next(c);
  }
  char t[16];
  tokname(c, t, sizeof t);
  uint32_t el = type_bytes(t);
  if (t[0] != '.' || !el) fail_here(c, PTX_ERR_INVALID_PTX, what, "expected a type, found '%s'", t);
  ptx_next(c);
  if (c->cur.kind != T_IDENT) fail_here(c, PTX_ERR_INVALID_PTX, what, "expected a name%s", "");
  tokname(c, name, nname);
  ptx_next(c);
  uint32_t n = 1;
  while (ptx_accept(c, "[")) {
    if (ptx_accept(c, "]")) {
      *unsized = 1;
      continue;
    }
    if (c->cur.kind != T_NUM) fail_here(c, PTX_ERR_INVALID_PTX, what, "expected a size%s", "");
    n *= (uint32_t)ptx_number(c, &c->cur);
    ptx_next(c);
    ptx_expect(c, "]");
  }
  if (ptx_is(c, "=")) fail_here(c, PTX_ERR_NOT_SUPPORTED, what, "initialised %s variables are not supported", what);
  ptx_expect(c, ";");
  if (!*align) *align = el;
  *bytes = n * el;
}

static uint32_t align_up(uint32_t v, uint32_t a) { return a ? (v + a - 1) / a * a : v; }

// A module-scope symbol every kernel sees (shared arrays, .global/.const variables); its index.
static int add_msym(ptx_ctx *c, const char *name, enum sym_kind kind, uint32_t value, uint32_t size, int line) {
  c->msyms = ptx_grow(c, c->msyms, &c->cap_msyms, c->nmsyms + 1, sizeof(sym));
  sym *s = &c->msyms[c->nmsyms];
  snprintf(s->name, sizeof s->name, "%s", name);
  s->kind = kind;
  s->value = value;
  s->size = size;
  s->line = line;
  return c->nmsyms++;
}

// A module- or kernel-scope .shared array: placed in the window after the ones before it.
static void parse_shared(ptx_ctx *c, kernel_ir *k, int is_extern) {
  int line = c->cur.line;
  char name[96];
  uint32_t bytes, align;
  int unsized;
  parse_array_decl(c, ".shared", name, sizeof name, &bytes, &align, &unsized);
  if (is_extern || unsized) {
    // dynamic shared memory: its offset is known once every static array is placed; the
    // symbol's value is fixed up at the end of the kernel (static bytes, aligned to 16)
    c->dyn_shared_sym = add_msym(c, name, SYM_SHARED, UINT32_MAX, 0, line);
    if (k) {
      add_sym(c, k, name, SYM_SHARED, UINT32_MAX, 0, line);
      k->has_dynamic_shared = 1;
    }
    return;
  }
  uint32_t off = align_up(c->shared_bytes, align < 4 ? 4 : align);
  if (off + bytes > c->opt.shared_limit)
    ptx_fail(c, PTX_ERR_NOT_SUPPORTED, line, ".shared",
             "%u bytes of shared memory needed, the unit has %u", off + bytes, c->opt.shared_limit);
  c->shared_bytes = off + bytes;
  if (k) {
    add_sym(c, k, name, SYM_SHARED, off, bytes, line);
  } else {
    add_msym(c, name, SYM_SHARED, off, bytes, line);
  }
}

// One value of a .global/.const initializer, `el` bytes little-endian at data + at.
static void init_value(ptx_ctx *c, const char *what, uint32_t at, uint32_t el) {
  int neg = ptx_accept(c, "-");
  if (c->cur.kind != T_NUM)
    fail_here(c, PTX_ERR_NOT_SUPPORTED, what, "initialisers other than numbers (addresses: generic(), "
              "variable names) are not supported%s", "");
  uint64_t v = (uint64_t)ptx_number(c, &c->cur);
  if (neg) v = 0 - v;
  ptx_next(c);
  for (uint32_t b = 0; b < el && b < 8; ++b) c->data[at + b] = (uint8_t)(v >> (8 * b));
}

// A module-scope .global or .const variable: [.align N] .type name[N]... [= value | {values}];
// placed in the module's data segment (ptx_module.data) with its initial bytes; kernels reach
// it through addresses the loader relocates (ptx_module.relocs).
static void parse_global(ptx_ctx *c, int is_const, int is_extern) {
  const char *what = is_const ? ".const" : ".global";
  int line = c->cur.line;
  if (is_extern)
    ptx_fail(c, PTX_ERR_NOT_SUPPORTED, line, what, ".extern %s variables (defined in another module) "
             "are not supported", what);
  uint32_t align = 0;
  if (ptx_accept(c, ".align")) {
    if (c->cur.kind != T_NUM) fail_here(c, PTX_ERR_INVALID_PTX, what, "expected an alignment%s", "");
    align = (uint32_t)ptx_number(c, &c->cur);
    ptx_next(c);
  }
  char t[16], name[96];
  tokname(c, t, sizeof t);
  uint32_t el = type_bytes(t);
  if (t[0] != '.' || !el || el > 8) fail_here(c, PTX_ERR_NOT_SUPPORTED, what, "variables of type '%s' are not supported", t);
  ptx_next(c);
  if (c->cur.kind != T_IDENT) fail_here(c, PTX_ERR_INVALID_PTX, what, "expected a name%s", "");
  tokname(c, name, sizeof name);
  ptx_next(c);
  uint64_t n = 1;
  while (ptx_accept(c, "[")) {
    if (c->cur.kind != T_NUM) fail_here(c, PTX_ERR_NOT_SUPPORTED, what, "unsized %s arrays are not supported", what);
    n *= (uint64_t)ptx_number(c, &c->cur);
    ptx_next(c);
    ptx_expect(c, "]");
  }
  if (!align) align = el;
  if (n == 0) ptx_fail(c, PTX_ERR_NOT_SUPPORTED, line, what, "%s %s has no bytes", what, name);
  if (n * el > (1u << 24)) ptx_fail(c, PTX_ERR_NOT_SUPPORTED, line, what, "%s %s is larger than 16 MiB", what, name);
  uint32_t bytes = (uint32_t)(n * el), off = align_up((uint32_t)c->data_bytes, align);
  c->data = ptx_grow(c, c->data, &c->cap_data, (int)(off + bytes), 1);
  memset(c->data + c->data_bytes, 0, off + bytes - (uint32_t)c->data_bytes);
  c->data_bytes = (int)(off + bytes);
  if (ptx_accept(c, "=")) {
    uint32_t at = off;
    if (ptx_is(c, "{")) {  // a list, possibly nested for more dimensions: the values in order
      int depth = 0;
      do {
        if (ptx_accept(c, "{")) ++depth;
        else if (ptx_accept(c, "}")) --depth;
        else if (ptx_accept(c, ",")) continue;
        else {
          if (at + el > off + bytes) fail_here(c, PTX_ERR_INVALID_PTX, what, "too many initial values%s", "");
          init_value(c, what, at, el);
          at += el;
        }
      } while (depth > 0 && c->cur.kind != T_END);
    } else {
      init_value(c, what, at, el);
    }
  }
  ptx_expect(c, ";");
  add_msym(c, name, SYM_GLOBAL, off, bytes, line);
  c->globals = ptx_grow(c, c->globals, &c->cap_globals, c->nglobals + 1, sizeof(ptx_global));
  ptx_global *gl = &c->globals[c->nglobals++];
  snprintf(gl->name, sizeof gl->name, "%s", name);
  gl->offset = off;
  gl->size = bytes;
  gl->is_const = is_const;
}

static void parse_local(ptx_ctx *c, kernel_ir *k) {
  int line = c->cur.line;
  char name[96];
  uint32_t bytes, align;
  int unsized;
  parse_array_decl(c, ".local", name, sizeof name, &bytes, &align, &unsized);
  if (unsized) ptx_fail(c, PTX_ERR_NOT_SUPPORTED, line, ".local", "unsized .local array %s", name);
  if (align > 16) ptx_fail(c, PTX_ERR_NOT_SUPPORTED, line, ".local", ".local alignment %u > 16", align);
  uint32_t off = align_up(k->local_bytes, align);
  k->local_bytes = off + bytes;
  if (align > k->local_align) k->local_align = align;
  add_sym(c, k, name, SYM_LOCAL, off, bytes, line);
}

// .param [.ptr .space .align N] .type name [N] (kernel parameters)
static void parse_params(ptx_ctx *c, kernel_ir *k) {
  ptx_expect(c, "(");
  if (ptx_accept(c, ")")) return;
  for (;;) {
    int line = c->cur.line;
    ptx_expect(c, ".param");
    uint32_t align = 0, el = 0;
    char t[16] = "";
    for (;;) {
      if (ptx_accept(c, ".align")) {
        align = (uint32_t)ptx_number(c, &c->cur);
        ptx_next(c);
      } else if (ptx_accept(c, ".ptr") || ptx_accept(c, ".global") || ptx_accept(c, ".shared") ||
                 ptx_accept(c, ".const") || ptx_accept(c, ".local")) {
      } else if (c->cur.kind == T_IDENT && c->cur.s[0] == '.') {
        tokname(c, t, sizeof t);
        el = type_bytes(t);
        if (!el) ptx_fail(c, PTX_ERR_NOT_SUPPORTED, line, ".param", "parameter type %s", t);
        ptx_next(c);
      } else {
        break;
      }
    }
    if (!el || c->cur.kind != T_IDENT)
      ptx_fail(c, PTX_ERR_INVALID_PTX, line, ".param", "expected a parameter type and name");
    char name[96];
    tokname(c, name, sizeof name);
    ptx_next(c);
    uint32_t n = 1;
    if (ptx_accept(c, "[")) {
      n = (uint32_t)ptx_number(c, &c->cur);
      ptx_next(c);
      ptx_expect(c, "]");
    }
    if (!align) align = el;
    uint32_t off = align_up(k->param_bytes, align);
    k->params = ptx_grow(c, k->params, &k->cap_params, k->nparams + 1, sizeof(ptx_param));
    ptx_param *p = &k->params[k->nparams++];
    snprintf(p->name, sizeof p->name, "%s", name);
    p->offset = off;
    p->size = n * el;
    p->align = align;
    k->param_bytes = off + n * el;
    add_sym(c, k, name, SYM_PARAM, off, n * el, line);
    if (!ptx_accept(c, ",")) break;
  }
  ptx_expect(c, ")");
}

// ------------------------------------------------------------------------------ operands

static const struct { const char *name; int csr; } kSregs[] = {
    {"%tid.x", 0xCC0},    {"%tid.y", 0xCC1},    {"%tid.z", 0xCC2},    {"%ntid.x", 0xCC3},
    {"%ntid.y", 0xCC4},   {"%ntid.z", 0xCC5},   {"%ctaid.x", 0xCC6},  {"%ctaid.y", 0xCC7},
    {"%ctaid.z", 0xCC8},  {"%nctaid.x", 0xCC9}, {"%nctaid.y", 0xCCA}, {"%nctaid.z", 0xCCB},
    {"%laneid", 0xCCC},   {"%warpid", 0xCCD},   {"%clock", 0xC00},    {NULL, 0}};

static int label_or_sym(ptx_ctx *c, kernel_ir *k, const char *name, int line) {
  int s = find_sym(k, name);
  if (s < 0) s = add_sym(c, k, name, SYM_LABEL, UINT32_MAX, 0, line);  // defined later
  return s;
}

static void parse_reg_name(ptx_ctx *c, kernel_ir *k, opnd *o, const char *what) {
  char name[48];
  tokname(c, name, sizeof name);
  int r = find_reg(k, name);
  if (r >= 0) {
    o->kind = O_REG;
    o->reg = r;
    ptx_next(c);
    return;
  }
  for (int i = 0; kSregs[i].name; ++i)
    if (strcmp(kSregs[i].name, name) == 0) {
      o->kind = O_SREG;
      o->sreg = kSregs[i].csr;
      ptx_next(c);
      return;
    }
  // a special register PTX has but the unit does not (%smid, %clock64, %lanemask_lt, ...)
  static const char *const known[] = {"%smid", "%nsmid", "%gridid", "%clock64", "%lanemask",
                                      "%nwarpid", "%globaltimer", "%envreg", "%pm", "%dynamic_smem",
                                      "%total_smem", "%cluster", "%nclusterid", "%clusterid",
                                      "%is_explicit_cluster", "%aggr_smem", "%reserved_smem", NULL};
  for (int i = 0; known[i]; ++i)
    if (strncmp(name, known[i], strlen(known[i])) == 0)
      ptx_fail(c, PTX_ERR_NOT_SUPPORTED, c->cur.line, what, "special register %s is not supported", name);
  ptx_fail(c, PTX_ERR_INVALID_PTX, c->cur.line, what, "undeclared register %s", name);
}

static int64_t parse_signed(ptx_ctx *c) {
  int neg = ptx_accept(c, "-");
  if (c->cur.kind != T_NUM) fail_here(c, PTX_ERR_INVALID_PTX, NULL, "expected a number%s", "");
  int64_t v = ptx_number(c, &c->cur);
  ptx_next(c);
  return neg ? -v : v;
}

static void parse_operand(ptx_ctx *c, kernel_ir *k, opnd *o, const char *what) {
  memset(o, 0, sizeof *o);
  o->reg = o->sym = -1;
  int line = c->cur.line;
  if (ptx_accept(c, "{")) {
    o->kind = O_VEC;
    for (;;) {
      if (o->nvec == 4) ptx_fail(c, PTX_ERR_INVALID_PTX, line, what, "vector of more than 4");
      if (ptx_accept(c, "_")) {
        o->vec[o->nvec++] = -1;
      } else {
        opnd r;
        memset(&r, 0, sizeof r);
        parse_reg_name(c, k, &r, what);
        if (r.kind != O_REG) ptx_fail(c, PTX_ERR_NOT_SUPPORTED, line, what, "special register in a vector");
        o->vec[o->nvec++] = r.reg;
      }
      if (!ptx_accept(c, ",")) break;
    }
    ptx_expect(c, "}");
  } else if (ptx_accept(c, "[")) {
    o->kind = O_MEM;
    if (c->cur.kind == T_IDENT && c->cur.s[0] == '%') {
      opnd r;
      memset(&r, 0, sizeof r);
      parse_reg_name(c, k, &r, what);
      if (r.kind != O_REG) ptx_fail(c, PTX_ERR_NOT_SUPPORTED, line, what, "special register as an address");
      o->reg = r.reg;
    } else if (c->cur.kind == T_IDENT) {
      char name[96];
      tokname(c, name, sizeof name);
      o->sym = label_or_sym(c, k, name, line);
      ptx_next(c);
    } else {
      o->imm = parse_signed(c);
    }
    if (ptx_accept(c, "+")) o->imm += parse_signed(c);
    else if (ptx_is(c, "-")) o->imm += parse_signed(c);
    ptx_expect(c, "]");
  } else if (ptx_is(c, "-") || c->cur.kind == T_NUM) {
    o->kind = O_IMM;
    o->imm = parse_signed(c);
  } else if (ptx_accept(c, "_")) {
    o->kind = O_SINK;
  } else if (c->cur.kind == T_IDENT && c->cur.s[0] == '%') {
    parse_reg_name(c, k, o, what);
  } else if (c->cur.kind == T_IDENT) {
    char name[96];
    tokname(c, name, sizeof name);
    o->kind = O_SYM;
    o->sym = label_or_sym(c, k, name, line);
    ptx_next(c);
    if (ptx_is(c, "+")) {
      ptx_next(c);
      o->imm = parse_signed(c);
    }
  } else {
    char t[32];
    tokname(c, t, sizeof t);
    ptx_fail(c, PTX_ERR_INVALID_PTX, line, what, "unexpected '%s' in operands", t);
  }
  if (ptx_accept(c, "|")) {  // d|p: a second destination (shfl's predicate, setp's negation)
    opnd r;
    memset(&r, 0, sizeof r);
    if (o->kind != O_REG) ptx_fail(c, PTX_ERR_INVALID_PTX, line, what, "'|' after an operand that is no register");
    parse_reg_name(c, k, &r, what);
    if (r.kind != O_REG || k->regs[r.reg].rc != RC_PRED)
      ptx_fail(c, PTX_ERR_INVALID_PTX, line, what, "the destination after '|' must be a predicate register");
    o->pair = r.reg + 1;
  }
}

static insn *new_insn(ptx_ctx *c, kernel_ir *k, int line) {
  k->insns = ptx_grow(c, k->insns, &k->cap_insns, k->ninsns + 1, sizeof(insn));
  insn *in = &k->insns[k->ninsns++];
  memset(in, 0, sizeof *in);
  in->label = -1;
  in->guard = -1;
  in->line = line;
  return in;
}

static void parse_instruction(ptx_ctx *c, kernel_ir *k) {
  int line = c->cur.line;
  int guard = -1, neg = 0;
  if (ptx_accept(c, "@")) {
    neg = ptx_accept(c, "!");
    opnd g;
    memset(&g, 0, sizeof g);
    parse_reg_name(c, k, &g, "@");
    if (g.kind != O_REG || k->regs[g.reg].rc != RC_PRED)
      ptx_fail(c, PTX_ERR_INVALID_PTX, line, "@", "a guard must be a predicate register");
    guard = g.reg;
  }
  if (c->cur.kind != T_IDENT)
    fail_here(c, PTX_ERR_INVALID_PTX, NULL, "expected an instruction%s", "");
  char full[48];
  tokname(c, full, sizeof full);
  line = c->cur.line;
  ptx_next(c);
  insn *in = new_insn(c, k, line);
  snprintf(in->text, sizeof in->text, "%s", full);
  in->guard = guard;
  in->guard_neg = neg;
  char *save = NULL, *part = strtok_r(full, ".", &save);
  snprintf(in->op, sizeof in->op, "%s", part ? part : "");
  while ((part = strtok_r(NULL, ".", &save)) != NULL) {
    if (in->nmods == PTX_MAX_MODS) ptx_fail(c, PTX_ERR_NOT_SUPPORTED, line, in->text, "too many modifiers");
    snprintf(in->mods[in->nmods++], sizeof in->mods[0], "%s", part);
  }
  if (!ptx_is_known_opcode(in->op))
    ptx_fail(c, PTX_ERR_INVALID_PTX, line, in->text, "unknown instruction '%s'", in->text);
  if (!ptx_is(c, ";")) {
    for (;;) {
      if (in->nopnd == PTX_MAX_OPNDS) ptx_fail(c, PTX_ERR_NOT_SUPPORTED, line, in->text, "too many operands");
      parse_operand(c, k, &in->o[in->nopnd++], in->text);
      if (!ptx_accept(c, ",")) break;
    }
  }
  ptx_expect(c, ";");
}

// ------------------------------------------------------------------------------ module

void ptx_parse_header(ptx_ctx *c) {
  ptx_next(c);
  c->dyn_shared_sym = -1;
  int seen_version = 0;
  for (;;) {
    int line = c->cur.line;
    if (ptx_accept(c, ".version")) {
      char v[16];
      tokname(c, v, sizeof v);
      if (c->cur.kind != T_NUM || sscanf(v, "%d.%d", &c->version_major, &c->version_minor) != 2)
        ptx_fail(c, PTX_ERR_INVALID_PTX, line, ".version", "bad version '%s'", v);
      ptx_next(c);
      seen_version = 1;
    } else if (ptx_accept(c, ".target")) {
      tokname(c, c->target, sizeof c->target);
      ptx_next(c);
      while (ptx_accept(c, ",")) ptx_next(c);  // texmode_*, debug, map_f64_to_f32
    } else if (ptx_accept(c, ".address_size")) {
      c->address_size = (int)ptx_number(c, &c->cur);
      if (c->address_size != 32 && c->address_size != 64)
        ptx_fail(c, PTX_ERR_INVALID_PTX, line, ".address_size", "address size %d", c->address_size);
      ptx_next(c);
    } else {
      break;
    }
  }
  if (!seen_version)
    ptx_fail(c, PTX_ERR_INVALID_PTX, c->cur.line, NULL, "not PTX: the text does not start with .version");
  if (!c->address_size) c->address_size = 32;
}

// Parses module-scope declarations up to and including the next .entry; 0 at the end of text.
int ptx_parse_next_kernel(ptx_ctx *c, kernel_ir *k) {
  for (;;) {
    if (c->cur.kind == T_END) return 0;
    int line = c->cur.line;
    int is_extern = 0;
    while (ptx_is(c, ".visible") || ptx_is(c, ".extern") || ptx_is(c, ".weak") || ptx_is(c, ".common")) {
      is_extern |= ptx_is(c, ".extern");
      ptx_next(c);
    }
    if (ptx_accept(c, ".shared")) {
      parse_shared(c, NULL, is_extern);
    } else if (ptx_is(c, ".global") || ptx_is(c, ".const")) {
      int is_const = ptx_is(c, ".const");
      ptx_next(c);
      parse_global(c, is_const, is_extern);
    } else if (ptx_is(c, ".func")) {
      ptx_fail(c, PTX_ERR_NOT_SUPPORTED, line, ".func", "device functions (.func, call) are not supported");
    } else if (ptx_accept(c, ".file") || ptx_is(c, ".section") || ptx_accept(c, ".pragma")) {
      if (ptx_accept(c, ".section")) {  // .section .debug_* { ... }, the brace on the next line (-G)
        while (c->cur.kind != T_END && !ptx_is(c, "{") && !ptx_is(c, ";")) ptx_next(c);
        ptx_accept(c, ";");
      }
      if (ptx_is(c, "{")) {
        int depth = 0;
        do {
          depth += ptx_is(c, "{") - ptx_is(c, "}");
          ptx_next(c);
        } while (depth > 0 && c->cur.kind != T_END);
      } else {
        while (c->cur.kind != T_END && !ptx_is(c, ";") && c->cur.line == line) ptx_next(c);
        ptx_accept(c, ";");
      }
    } else if (ptx_accept(c, ".entry")) {
      break;
    } else {
      char t[48];
      tokname(c, t, sizeof t);
      ptx_fail(c, PTX_ERR_INVALID_PTX, line, t, "unexpected '%s' at module scope", t);
    }
  }
  // .entry name ( params ) directives { body }
  memset(k, 0, sizeof *k);
  k->line = c->cur.line;
  if (c->cur.kind != T_IDENT) fail_here(c, PTX_ERR_INVALID_PTX, ".entry", "expected a kernel name%s", "");
  tokname(c, k->name, sizeof k->name);
  ptx_next(c);
  for (int i = 0; i < c->nmsyms; ++i) {
    sym *s = &c->msyms[i];
    add_sym(c, k, s->name, s->kind, s->value, s->size, s->line);
    if (s->value == UINT32_MAX) k->has_dynamic_shared = 1;
  }
  if (ptx_is(c, "(")) parse_params(c, k);
  while (!ptx_is(c, "{")) {  // .maxntid, .reqntid, .minnctapersm, .maxnreg, .noreturn, ...
    if (c->cur.kind == T_END) fail_here(c, PTX_ERR_INVALID_PTX, ".entry", "missing kernel body%s", "");
    ptx_next(c);
  }
  ptx_expect(c, "{");
  int depth = 1;
  // { } blocks inside the body (NVRTC wraps a rotate's temporaries in one) scope their .reg
  // declarations: the families declared since the block opened are dropped at its end
  int scope_stack[64];
  k->scope_fams = 0;
  while (depth > 0) {
    int line = c->cur.line;
    if (c->cur.kind == T_END) ptx_fail(c, PTX_ERR_INVALID_PTX, k->line, ".entry", "kernel %s not closed", k->name);
    if (ptx_accept(c, "{")) {
      if (depth > 64) ptx_fail(c, PTX_ERR_NOT_SUPPORTED, line, "{", "blocks nested deeper than 64");
      scope_stack[depth - 1] = k->scope_fams;
      k->scope_fams = k->nfams;
      ++depth;
    } else if (ptx_accept(c, "}")) {
      --depth;
      if (depth > 0) {
        k->nfams = k->scope_fams;
        k->scope_fams = scope_stack[depth - 1];
      }
    } else if (ptx_accept(c, ".reg")) {
      parse_reg_decl(c, k);
    } else if (ptx_accept(c, ".shared")) {
      parse_shared(c, k, 0);
    } else if (ptx_accept(c, ".local")) {
      parse_local(c, k);
    } else if (ptx_accept(c, ".pragma") || ptx_accept(c, ".loc") || ptx_accept(c, ".maxnreg")) {
      // .loc (what -lineinfo adds) ends at the end of its line, with no ';'; .pragma has one
      while (c->cur.kind != T_END && !ptx_is(c, ";") && c->cur.line == line) ptx_next(c);
      ptx_accept(c, ";");
    } else if (ptx_is(c, ".param") || ptx_is(c, ".global") || ptx_is(c, ".const") ||
               ptx_is(c, ".func") || ptx_is(c, ".callprototype")) {
      char t[32];
      tokname(c, t, sizeof t);
      ptx_fail(c, PTX_ERR_NOT_SUPPORTED, line, t, "%s declarations in a kernel body are not supported", t);
    } else if (c->cur.kind == T_IDENT && c->cur.s[0] == '.') {
      char t[32];
      tokname(c, t, sizeof t);
      ptx_fail(c, PTX_ERR_INVALID_PTX, line, t, "unknown directive '%s'", t);
    } else if (c->cur.kind == T_IDENT && c->text[c->pos] == ':' && c->cur.s[0] != '%') {
      char name[96];
      tokname(c, name, sizeof name);
      ptx_next(c);
      ptx_expect(c, ":");
      int s = label_or_sym(c, k, name, line);
      if (k->syms[s].kind != SYM_LABEL || k->syms[s].value != UINT32_MAX)
        ptx_fail(c, PTX_ERR_INVALID_PTX, line, name, "label %s defined twice", name);
      k->syms[s].value = (uint32_t)k->ninsns;
      k->syms[s].line = line;
      insn *in = new_insn(c, k, line);
      in->label = s;
    } else {
      parse_instruction(c, k);
    }
  }
  for (int i = 0; i < k->nsyms; ++i)
    if (k->syms[i].kind == SYM_LABEL && k->syms[i].value == UINT32_MAX)
      ptx_fail(c, PTX_ERR_INVALID_PTX, k->syms[i].line, k->syms[i].name, "undefined name %s", k->syms[i].name);
  return 1;
}

void kernel_ir_free(kernel_ir *k) {
  free(k->regs);
  free(k->fams);
  free(k->syms);
  free(k->insns);
  free(k->params);
  memset(k, 0, sizeof *k);
}
