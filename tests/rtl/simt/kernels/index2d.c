// A 2D (and 3D block) index kernel: every in-range (x, y) writes a word that encodes every id.
#include "simt.h"
struct args { unsigned *out; unsigned w, h; };
void kernel_main(const struct args *p) {
  unsigned x = ctaid_x() * ntid_x() + tid_x();
  unsigned y = ctaid_y() * ntid_y() + tid_y();
  if (x >= p->w || y >= p->h) return;
  unsigned z = tid_z();
  p->out[(z * p->h + y) * p->w + x] = (x << 20) | (y << 8) | (z << 4) | (ctaid_z() & 15);
}
