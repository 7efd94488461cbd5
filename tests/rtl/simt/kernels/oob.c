// A store past the end of a mapping: out[] ends at a page boundary that the grid-stride loop
// crosses; log[i] is stored after out[i], so a precise stop leaves log[i] set only where out[i]
// was stored.
#include "simt.h"
struct args { int *out; int *log; unsigned n; };
void kernel_main(const struct args *p) {
  unsigned stride = nctaid_x() * ntid_x();
  for (unsigned i = ctaid_x() * ntid_x() + tid_x(); i < p->n; i += stride) {
    p->out[i] = (int)i + 1;
    p->log[i] = 1;
  }
}
