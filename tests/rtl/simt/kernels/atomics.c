// Atomics under contention: every thread of every warp and block hits the same words. Built with
// -march=rv32ima (clang emits amoadd.w, amoswap.w, amoxor/or/and.w, amomin/max[u].w); amocas.w
// (Zacas, which clang 14 does not know) is written as its encoding.
//   counter:  iters amoadd per thread; the old value is a ticket, each ticket names its thread
//   words[0..6]: xor, or, and, max, min, maxu, minu of a per-thread value
//   words[7]: amoswap chain (the old values, with the last value, are every value once)
//   words[8]: sum of the blocks' shared-memory counters (amoadd in the shared window)
//   words[9]: incremented by an amocas loop in every thread (iters times)
#include "simt.h"
struct args { unsigned *counter; unsigned *tickets; unsigned *words; unsigned *swapold;
              unsigned iters; };
static SIMT_SHARED unsigned sh_count;

// amocas.w a2, a1, (a0): a2 holds the expected value in and the old value out
static inline unsigned cas(unsigned *p, unsigned expect, unsigned desired) {
  register unsigned *a0 __asm__("a0") = p;
  register unsigned a1 __asm__("a1") = desired;
  register unsigned a2 __asm__("a2") = expect;
  __asm__ volatile(".word 0x2eb5262f" : "+r"(a2) : "r"(a0), "r"(a1) : "memory");
  return a2;
}

void kernel_main(const struct args *p) {
  unsigned t = tid_x(), n = ntid_x();
  unsigned g = ctaid_x() * n + t;
  if (t == 0) sh_count = 0;
  barrier();
  for (unsigned k = 0; k < p->iters; ++k) {
    unsigned tk = __atomic_fetch_add(p->counter, 1u, __ATOMIC_RELAXED);
    p->tickets[tk] = g;
    __atomic_fetch_add(&sh_count, 1u, __ATOMIC_RELAXED);
  }
  unsigned h = g * 2654435761u;
  __atomic_fetch_xor(&p->words[0], h, __ATOMIC_RELAXED);
  __atomic_fetch_or(&p->words[1], 1u << (g & 31), __ATOMIC_RELAXED);
  __atomic_fetch_and(&p->words[2], ~(1u << (g & 31)), __ATOMIC_RELAXED);
  __atomic_fetch_max((int *)&p->words[3], (int)h, __ATOMIC_RELAXED);
  __atomic_fetch_min((int *)&p->words[4], (int)h, __ATOMIC_RELAXED);
  __atomic_fetch_max(&p->words[5], h, __ATOMIC_RELAXED);
  __atomic_fetch_min(&p->words[6], h, __ATOMIC_RELAXED);
  p->swapold[g] = __atomic_exchange_n(&p->words[7], g + 1, __ATOMIC_RELAXED);
  for (unsigned k = 0; k < p->iters; ++k) {
    unsigned seen = p->words[9];
    for (;;) {
      unsigned old = cas(&p->words[9], seen, seen + 1);
      if (old == seen) break;
      seen = old;
    }
  }
  barrier();
  if (t == 0) __atomic_fetch_add(&p->words[8], sh_count, __ATOMIC_RELAXED);
}
