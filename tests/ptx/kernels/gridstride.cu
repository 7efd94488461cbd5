// c[i] = a[i] + b[i] with a grid-stride loop: a grid smaller than n covers it.
extern "C" __global__ void vadd_gs(const int *a, const int *b, int *c, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}
