// Compute-bound f32: per thread a recurrence of fused multiply-adds, adds and a multiply, one
// store at the end (the F unit's lane IPC figure; the result is checked bit for bit).
#include "simt.h"
struct args { float *out; unsigned iters; };
void kernel_main(const struct args *p) {
  unsigned i = ctaid_x() * ntid_x() + tid_x();
  float x = (float)i * 0.001f, y = 1.0f;
  for (unsigned k = 0; k < p->iters; ++k) {
    x = __builtin_fmaf(x, 0.999f, 0.25f);
    y = __builtin_fmaf(y, x, -0.5f) * 0.75f + x;
  }
  p->out[i] = x + y;
}
