// Compute-bound: a long integer recurrence per thread, one store at the end (lane IPC figure).
#include "simt.h"
struct args { unsigned *out; unsigned iters; };
void kernel_main(const struct args *p) {
  unsigned i = ctaid_x() * ntid_x() + tid_x();
  unsigned x = i + 1, y = 0;
  for (unsigned k = 0; k < p->iters; ++k) {
    x = x * 1664525u + 1013904223u;
    y += (x >> 7) ^ (y << 3);
  }
  p->out[i] = x ^ y;
}
