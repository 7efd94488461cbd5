// c[i] = a[i] + b[i] over a grid, grid-stride loop.
#include "simt.h"
struct args { const int *a, *b; int *c; unsigned n; };
void kernel_main(const struct args *p) {
  unsigned stride = nctaid_x() * ntid_x();
  for (unsigned i = ctaid_x() * ntid_x() + tid_x(); i < p->n; i += stride) p->c[i] = p->a[i] + p->b[i];
}
