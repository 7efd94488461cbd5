// Sum of each block's slice in shared memory, a tree with __syncthreads() per level. Each
// thread first runs a loop as long as its thread id times spin, so the writers of part[]
// arrive late and only the barrier keeps the readers from reading too early.
extern "C" __global__ void reduce(const int *in, int *out, unsigned spin) {
  __shared__ int part[64];
  unsigned t = threadIdx.x, n = blockDim.x;
  int v = in[blockIdx.x * n + t];
  for (unsigned k = 0; k < t * spin; ++k) v = (v ^ (int)k) * 3;
  part[t] = v;
  __syncthreads();
  for (unsigned s = n / 2; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = part[0];
}
