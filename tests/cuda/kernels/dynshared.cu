// Dynamic shared memory (extern __shared__, sized by cuLaunchKernel's sharedMemBytes): each
// block reverses its slice of in[] through shared memory, with a barrier between the writes and
// the reads.
extern "C" __global__ void dynshared(const int *in, int *out, unsigned n) {
  extern __shared__ int buf[];
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? in[i] : -1;
  __syncthreads();
  unsigned j = blockIdx.x * blockDim.x + (blockDim.x - 1 - t);
  if (j < n) out[j] = buf[t] ^ (int)t;
}
