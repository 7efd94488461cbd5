// Sum of each block's slice in shared memory: a tree with a barrier per level. Each thread first
// runs a loop as long as its thread id times spin, so the writers of part[] arrive late and
// only the barrier keeps the readers from reading too early.
#include "simt.h"
struct args { const int *in; int *out; unsigned spin; };
static SIMT_SHARED int part[256];  // blocks of up to 256 threads
void kernel_main(const struct args *p) {
  unsigned t = tid_x(), n = ntid_x();
  int v = p->in[ctaid_x() * n + t];
  for (unsigned k = 0; k < t * p->spin; ++k) v = (v ^ (int)k) * 3;
  part[t] = v;
  barrier();
  for (unsigned s = n / 2; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    barrier();
  }
  if (t == 0) p->out[ctaid_x()] = part[0];
}
