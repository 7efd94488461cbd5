// Steps of the Collatz sequence of in[i] to 1 (capped): a data-dependent loop per lane, so the
// lanes of a warp diverge and meet again at the store.
#include "simt.h"
struct args { const unsigned *in; unsigned *out; unsigned n, cap; };
void kernel_main(const struct args *p) {
  unsigned i = ctaid_x() * ntid_x() + tid_x();
  if (i >= p->n) return;
  unsigned x = p->in[i], steps = 0;
  while (x > 1 && steps < p->cap) {
    if (x & 1) x = 3 * x + 1;
    else x >>= 1;
    ++steps;
  }
  p->out[i] = steps;
}
