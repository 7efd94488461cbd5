// Register allocation: PTX's virtual registers to RV32 registers, linear scan over live
// intervals, the rest spilled to the thread's stack.
//
// 1. Liveness per instruction by the usual backward dataflow over the control-flow graph
//    (successors: the next instruction, a branch's target; none after an unguarded ret/exit).
//    A guarded instruction does not kill its destination (the old value lives on where the
//    guard is false).
// 2. Each register's interval is every position where it is live, closed into [first, last]:
//    instruction i has positions 2i (its sources are read) and 2i+1 (its destination is
//    written). A source stays live through 2i+1, so a destination never shares a register with
//    a different source of the same instruction; the code generator may write the destination
//    before it has read every source only when it has copied them first.
// 3. Linear scan (Poletto and Sarkar): intervals by start; when no register is free, the one
//    of the active intervals or the new one that ends last goes to a stack slot (4 bytes each,
//    its own for the whole kernel). Spilled registers are loaded into scratch registers where
//    an instruction reads them and stored after it writes them.
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"

const int ptx_alloc_regs[PTX_NUM_ALLOC] = {8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
                                           21, 22, 23, 24, 25, 26, 27, 1,  3,  4,  30};
// f32 registers: f4..f31 (f0-f2 take spilled or immediate sources, f3 a spilled destination)
const int ptx_alloc_fregs[PTX_NUM_FALLOC] = {4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17,
                                             18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};

int insn_writes_first(const insn *in) {
  static const char *const no_dst[] = {"st", "bra", "bar", "barrier", "ret", "exit", "red",
                                       "membar", "fence", "trap", "prefetch", "prefetchu", NULL};
  if (in->label >= 0 || in->nopnd == 0) return 0;
  for (int i = 0; no_dst[i]; ++i)
    if (strcmp(in->op, no_dst[i]) == 0) return 0;
  return in->o[0].kind == O_REG || in->o[0].kind == O_VEC;
}

typedef struct bitset {
  uint64_t *w;
  int words;
} bitset;

static inline void bs_set(uint64_t *b, int i) { b[i >> 6] |= 1ull << (i & 63); }
static inline void bs_clr(uint64_t *b, int i) { b[i >> 6] &= ~(1ull << (i & 63)); }
static inline int bs_get(const uint64_t *b, int i) { return (int)(b[i >> 6] >> (i & 63)) & 1; }

static void opnd_regs(const opnd *o, int *list, int *n) {
  if (o->kind == O_REG || (o->kind == O_MEM && o->reg >= 0)) list[(*n)++] = o->reg;
  if (o->kind == O_REG && o->pair) list[(*n)++] = o->pair - 1;
  if (o->kind == O_VEC)
    for (int i = 0; i < o->nvec; ++i)
      if (o->vec[i] >= 0) list[(*n)++] = o->vec[i];
}

// How an instruction reads the high words of its 64-bit register sources (docs/ptx.md,
// "64-bit registers"): never (its result depends on the low words alone: cvt to 32 bits,
// mul.wide, loads' addresses), only where its own destination's high word is live (add, sub,
// logic, mov, mul.lo, shl, ...: their low result needs only low words), or always (compares,
// right shifts, stores, min/max, ...). Unknown instructions count as always.
enum { HI_NONE, HI_PROP, HI_ALWAYS };
static int hi_reads(const insn *in) {
  const char *op = in->op, *t = insn_type(in);
  int b64 = t && strstr(t, "64") && t[0] != 'f';
  if (!strcmp(op, "ld") || !strcmp(op, "bra") || !strcmp(op, "bar") || !strcmp(op, "barrier"))
    return HI_NONE;
  if (!strcmp(op, "cvt")) {  // cvt.dst.src: the source's high word only into a 64-bit result
    const char *types[2] = {NULL, NULL};
    int nt = 0;
    for (int i = 0; i < in->nmods && nt < 2; ++i)
      if (strstr(in->mods[i], "8") || strstr(in->mods[i], "16") || strstr(in->mods[i], "32") ||
          strstr(in->mods[i], "64"))
        types[nt++] = in->mods[i];
    if (nt == 2 && types[0][0] != 'f' && types[1][0] != 'f')
      return strstr(types[0], "64") ? HI_PROP : HI_NONE;
    return HI_ALWAYS;
  }
  if (!strcmp(op, "mul") || !strcmp(op, "mad")) {
    int k;
    for (k = 0; k < in->nmods; ++k)
      if (!strcmp(in->mods[k], "hi")) return HI_ALWAYS;
    return HI_PROP;  // .lo: high words only for the high result; .wide: 32-bit sources (mad's c)
  }
  if (!strcmp(op, "mov") && in->nopnd > 0 && in->o[0].kind == O_VEC) return HI_ALWAYS;  // unpack
  if (!strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "and") || !strcmp(op, "or") ||
      !strcmp(op, "xor") || !strcmp(op, "not") || !strcmp(op, "neg") || !strcmp(op, "shl") ||
      !strcmp(op, "selp") || !strcmp(op, "mov") || !strcmp(op, "cvta") || !strcmp(op, "cnot"))
    return HI_PROP;
  if (!strcmp(op, "st")) return b64 ? HI_ALWAYS : HI_NONE;
  return HI_ALWAYS;
}

// Sources and destinations of one instruction, given what is live after it (`out`): a 64-bit
// destination's high word is a destination only where it is live there (*hi_live gets a bit per
// destination element), and the sources' high words are read as hi_reads says.
static void opnd_his(const kernel_ir *k, const opnd *o, int *list, int *n) {
  if (o->kind == O_REG && k->regs[o->reg].hi >= 0) list[(*n)++] = k->regs[o->reg].hi;
  if (o->kind == O_VEC)
    for (int i = 0; i < o->nvec; ++i)
      if (o->vec[i] >= 0 && k->regs[o->vec[i]].hi >= 0) list[(*n)++] = k->regs[o->vec[i]].hi;
}
static void insn_regs(const kernel_ir *k, const insn *in, const uint64_t *out, int *use, int *nuse,
                      int *def, int *ndef, unsigned *hi_live, unsigned *lo_live) {
  *nuse = *ndef = 0;
  *hi_live = *lo_live = 0;
  if (in->label >= 0) return;
  int first = insn_writes_first(in);
  for (int j = 0; j < in->nopnd; ++j) {
    if (j == 0 && first) opnd_regs(&in->o[j], def, ndef);
    else opnd_regs(&in->o[j], use, nuse);
  }
  if (first) {
    const opnd *d = &in->o[0];
    int n = d->kind == O_VEC ? d->nvec : 1;
    for (int e = 0; e < n; ++e) {
      int r = d->kind == O_VEC ? d->vec[e] : d->reg;
      if (r >= 0 && bs_get(out, r)) *lo_live |= 1u << e;
      if (r < 0 || k->regs[r].hi < 0 || !bs_get(out, k->regs[r].hi)) continue;
      def[(*ndef)++] = k->regs[r].hi;
      *hi_live |= 1u << e;
    }
  }
  int mode = hi_reads(in);
  if (mode == HI_ALWAYS || (mode == HI_PROP && *hi_live))
    for (int j = first ? 1 : 0; j < in->nopnd; ++j) opnd_his(k, &in->o[j], use, nuse);
  if (in->guard >= 0) {
    use[(*nuse)++] = in->guard;
    for (int j = 0; j < *ndef; ++j) use[(*nuse)++] = def[j];  // not killed where the guard is false
  }
}

static int branch_target(const kernel_ir *k, const insn *in) {
  if (strcmp(in->op, "bra") != 0 || in->nopnd < 1 || in->o[0].kind != O_SYM) return -1;
  const sym *s = &k->syms[in->o[0].sym];
  return s->kind == SYM_LABEL ? (int)s->value : -1;
}

static int ends_flow(const insn *in) {
  return in->guard < 0 && (strcmp(in->op, "ret") == 0 || strcmp(in->op, "exit") == 0 ||
                           strcmp(in->op, "bra") == 0 || strcmp(in->op, "trap") == 0);
}

static int cmp_start(const void *a, const void *b, void *ctx) {
  const vreg *r = ctx;
  int x = *(const int *)a, y = *(const int *)b;
  return r[x].start != r[y].start ? r[x].start - r[y].start : x - y;
}

static const vreg *g_sort_regs;
static int cmp_start_q(const void *a, const void *b) { return cmp_start(a, b, (void *)g_sort_regs); }

// Linear scan over the intervals in `order` of one register file: integer (f = 0) or F (f = 1).
static void scan(ptx_ctx *c, kernel_ir *k, const int *order, int cnt, int f, int *slots) {
  const int *pool = f ? ptx_alloc_fregs : ptx_alloc_regs;
  int npool = f ? PTX_NUM_FALLOC : PTX_NUM_ALLOC;
  if (c->opt.max_regs < PTX_NUM_ALLOC) npool = (int)c->opt.max_regs;  // a limit the caller set
  int active[PTX_NUM_FALLOC], nact = 0, owner[32];
  for (int p = 0; p < 32; ++p) owner[p] = -1;
  for (int oi = 0; oi < cnt; ++oi) {
    int r = order[oi];
    vreg *v = &k->regs[r];
    if ((v->rc == RC_F32) != f) continue;
    // expire intervals that ended before this one starts
    for (int a = 0; a < nact;) {
      if (k->regs[active[a]].end < v->start) {
        owner[k->regs[active[a]].phys] = -1;
        active[a] = active[--nact];
      } else {
        ++a;
      }
    }
    int phys = -1;
    for (int p = 0; p < npool && phys < 0; ++p)
      if (owner[pool[p]] < 0) phys = pool[p];
    if (phys >= 0) {
      v->phys = phys;
      owner[phys] = r;
      active[nact++] = r;
      continue;
    }
    int far = 0;
    for (int a = 1; a < nact; ++a)
      if (k->regs[active[a]].end > k->regs[active[far]].end) far = a;
    vreg *fv = &k->regs[active[far]];
    if (nact > 0 && fv->end > v->end) {  // the active one lives longer: it goes to the stack
      v->phys = fv->phys;
      owner[v->phys] = r;
      fv->phys = -1;
      fv->slot = 4 * (*slots)++;
      active[far] = r;
    } else {
      v->phys = -1;
      v->slot = 4 * (*slots)++;
    }
  }
}

void ptx_regalloc(ptx_ctx *c, kernel_ir *k) {
  int n = k->ninsns, nr = k->nregs, words = (nr + 63) / 64;
  if (words == 0) words = 1;
  uint64_t *in_ = calloc((size_t)n * words + 1, 8), *out = calloc((size_t)n * words + 1, 8);
  uint64_t *tmp = calloc((size_t)words, 8);
  int *order = calloc((size_t)nr + 1, sizeof(int));
  if (!in_ || !out || !tmp || !order) {
    free(in_), free(out), free(tmp), free(order);
    ptx_fail(c, PTX_ERR_NO_MEMORY, 0, NULL, "out of host memory");
  }
  int use[64], def[16], nu, nd;
  unsigned hl, ll;
  // 1. liveness to a fixed point, instructions backwards
  for (int changed = 1; changed;) {
    changed = 0;
    for (int i = n - 1; i >= 0; --i) {
      const insn *ins = &k->insns[i];
      memset(tmp, 0, (size_t)words * 8);
      if (!ends_flow(ins) && i + 1 < n)
        for (int w = 0; w < words; ++w) tmp[w] |= in_[(size_t)(i + 1) * words + w];
      int t = branch_target(k, ins);
      if (t >= 0)
        for (int w = 0; w < words; ++w) tmp[w] |= in_[(size_t)t * words + w];
      uint64_t *o = &out[(size_t)i * words], *li = &in_[(size_t)i * words];
      memcpy(o, tmp, (size_t)words * 8);
      insn_regs(k, ins, o, use, &nu, def, &nd, &hl, &ll);
      for (int j = 0; j < nd; ++j) bs_clr(tmp, def[j]);
      for (int j = 0; j < nu; ++j) bs_set(tmp, use[j]);
      if (memcmp(li, tmp, (size_t)words * 8) != 0) {
        memcpy(li, tmp, (size_t)words * 8);
        changed = 1;
      }
    }
  }
  // 2. intervals
  for (int r = 0; r < nr; ++r) k->regs[r].start = k->regs[r].end = -1;
#define EXTEND(r, p)                                                      \
  do {                                                                    \
    vreg *v_ = &k->regs[r];                                               \
    if (v_->start < 0 || (p) < v_->start) v_->start = (p);                \
    if ((p) > v_->end) v_->end = (p);                                     \
  } while (0)
  for (int i = 0; i < n; ++i) {
    insn_regs(k, &k->insns[i], &out[(size_t)i * words], use, &nu, def, &nd, &hl, &ll);
    k->insns[i].hi_live = hl;
    k->insns[i].lo_live = ll;
    for (int j = 0; j < nu; ++j) {
      EXTEND(use[j], 2 * i);
      EXTEND(use[j], 2 * i + 1);
    }
    for (int j = 0; j < nd; ++j) EXTEND(def[j], 2 * i + 1);
    for (int r = 0; r < nr; ++r) {
      if (bs_get(&in_[(size_t)i * words], r)) EXTEND(r, 2 * i);
      if (bs_get(&out[(size_t)i * words], r)) EXTEND(r, 2 * i + 1);
    }
  }
#undef EXTEND
  // 3. linear scan, once for the integer registers and once for the f32 ones (the unit's F
  //    register file); both spill to the same stack slots
  int cnt = 0;
  for (int r = 0; r < nr; ++r)
    if (k->regs[r].start >= 0) order[cnt++] = r;
  g_sort_regs = k->regs;
  qsort(order, (size_t)cnt, sizeof(int), cmp_start_q);
  int slots = 0;
  scan(c, k, order, cnt, 0, &slots);
  scan(c, k, order, cnt, 1, &slots);
  k->spill_bytes = 4 * slots;
  free(in_), free(out), free(tmp), free(order);
}
