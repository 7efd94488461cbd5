// A store past the end of a mapping: out[] ends at a page boundary that the grid-stride loop
// crosses; log[i] is stored after out[i], so a precise stop leaves log[i] set only where
// out[i] was stored.
extern "C" __global__ void oob(int *out, int *log, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    out[i] = (int)i + 1;
    log[i] = 1;
  }
}
