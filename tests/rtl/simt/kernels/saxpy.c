// y[i] = a * x[i] + y[i] with one rounding (fmaf: fmadd.s), grid-stride; a in the argument
// block as float bits.
#include "simt.h"
struct args { const float *x; float *y; float a; unsigned n; };
void kernel_main(const struct args *p) {
  unsigned stride = nctaid_x() * ntid_x();
  float a = p->a;
  for (unsigned i = ctaid_x() * ntid_x() + tid_x(); i < p->n; i += stride)
    p->y[i] = __builtin_fmaf(a, p->x[i], p->y[i]);
}
