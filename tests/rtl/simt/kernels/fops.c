// The F extension on pairs of floats from memory (edge values included by the harness):
// out[18*i + k], the results' bits. Inline asm where C would let the compiler choose (the
// fused forms, fclass, the dynamic rounding mode); plain C where clang's choice is the
// instruction under test (comparisons, conversions, fminf/fmaxf).
#include "simt.h"
struct args { const float *a, *b; unsigned *out; unsigned n; };
#define F3(name, r, x, y) __asm__(name " %0, %1, %2" : "=f"(r) : "f"(x), "f"(y))
static inline unsigned bits(float f) { union { float f; unsigned u; } v = {f}; return v.u; }
void kernel_main(const struct args *p) {
  for (unsigned i = ctaid_x() * ntid_x() + tid_x(); i < p->n; i += nctaid_x() * ntid_x()) {
    float a = p->a[i], b = p->b[i], f;
    unsigned *o = p->out + 18 * i, ub = bits(b), u;
    F3("fadd.s", f, a, b); o[0] = bits(f);
    F3("fsub.s", f, a, b); o[1] = bits(f);
    F3("fmul.s", f, a, b); o[2] = bits(f);
    o[3] = bits(__builtin_fmaf(a, b, a));                       // fmadd.s
    __asm__("fnmsub.s %0, %1, %2, %3" : "=f"(f) : "f"(a), "f"(b), "f"(b)); o[4] = bits(f);
    o[5] = bits(__builtin_fminf(a, b));
    o[6] = bits(__builtin_fmaxf(a, b));
    o[7] = a < b;
    o[8] = a <= b;
    o[9] = a == b;
    __asm__("fcvt.w.s %0, %1, rtz" : "=r"(u) : "f"(a)); o[10] = u;
    __asm__("fcvt.wu.s %0, %1, rne" : "=r"(u) : "f"(a)); o[11] = u;
    o[12] = bits((float)(int)ub);                               // fcvt.s.w, frm (RNE)
    o[13] = bits((float)ub);                                    // fcvt.s.wu
    __asm__("fclass.s %0, %1" : "=r"(u) : "f"(a)); o[14] = u;
    // dynamic rounding: frm = RUP for one fadd, then back to RNE
    __asm__ volatile("fsrmi 3\n\tfadd.s %0, %1, %2\n\tfsrmi 0" : "=f"(f) : "f"(a), "f"(b));
    o[15] = bits(f);
    F3("fdiv.s", f, a, b); o[16] = bits(f);
    __asm__("fsqrt.s %0, %1" : "=f"(f) : "f"(a)); o[17] = bits(f);
  }
}
