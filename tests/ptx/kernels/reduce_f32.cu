// An f32 tree sum per block in shared memory (a fixed order, so the result is exact to
// reproduce): each thread first adds a grid-stride slice of x with fmaf(x, w, acc), then the
// block halves its partial sums with a barrier per level.
extern "C" __global__ void reduce_f32(const float *x, float w, float *out, unsigned n) {
  __shared__ float part[64];
  unsigned t = threadIdx.x;
  float acc = 0.0f;
  for (unsigned i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x)
    acc = fmaf(x[i], w, acc);
  part[t] = acc;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) part[t] = part[t] + part[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = part[0];
}
