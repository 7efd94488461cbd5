// Steps of the Collatz sequence of in[i] to 1 (capped): a data-dependent loop per thread, so
// the threads of a warp diverge and meet again at the store.
extern "C" __global__ void collatz(const unsigned *in, unsigned *out, unsigned n, unsigned cap) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = in[i], steps = 0;
  while (x > 1 && steps < cap) {
    if (x & 1) x = 3 * x + 1;
    else x >>= 1;
    ++steps;
  }
  out[i] = steps;
}
