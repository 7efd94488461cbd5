// Global atomics: a histogram and a running maximum. The translator marks this kernel "needs
// atomics" and emits RV32A AMOs (amocas.w for atomicCAS), which the unit executes.
extern "C" __global__ void histo(const unsigned *in, unsigned *bins, unsigned *top, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = in[i];
  atomicAdd(&bins[v & 15], 1u);
  atomicMax(top, v);
  atomicCAS(&bins[16], 0u, i);
  atomicExch(&bins[17], v);
  atomicMin(&bins[18], v);
}
