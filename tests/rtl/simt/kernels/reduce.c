// Sum of each block's slice in shared memory: a tree with a barrier per level.
#include "simt.h"
struct args { const int *in; int *out; };
static SIMT_SHARED int part[64];
void kernel_main(const struct args *p) {
  unsigned t = tid_x(), n = ntid_x();
  part[t] = p->in[ctaid_x() * n + t];
  barrier();
  for (unsigned s = n / 2; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    barrier();
  }
  if (t == 0) p->out[ctaid_x()] = part[0];
}
