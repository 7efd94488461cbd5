// Element-wise c[i] = a[i] + b[i] on int32, one thread per element (the grid covers n).
extern "C" __global__ void vadd(const int *a, const int *b, int *c, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
