// Every M-extension instruction on pairs from memory (corner cases included by the harness):
// out[8*i + k] for MUL, MULH, MULHSU, MULHU, DIV, DIVU, REM, REMU. Inline asm because division
// by zero and INT_MIN / -1 are undefined in C but defined for the instructions.
#include "simt.h"
struct args { const int *a, *b; int *out; unsigned n; };
#define OP(name, r, x, y) __asm__(name " %0, %1, %2" : "=r"(r) : "r"(x), "r"(y))
void kernel_main(const struct args *p) {
  for (unsigned i = ctaid_x() * ntid_x() + tid_x(); i < p->n; i += nctaid_x() * ntid_x()) {
    int a = p->a[i], b = p->b[i], r[8];
    OP("mul", r[0], a, b);
    OP("mulh", r[1], a, b);
    OP("mulhsu", r[2], a, b);
    OP("mulhu", r[3], a, b);
    OP("div", r[4], a, b);
    OP("divu", r[5], a, b);
    OP("rem", r[6], a, b);
    OP("remu", r[7], a, b);
    for (int k = 0; k < 8; ++k) p->out[8 * i + k] = r[k];
  }
}
