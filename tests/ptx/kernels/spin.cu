// Compute-bound: a long integer recurrence per thread, one store at the end (lane IPC of
// translated code, to compare with clang's).
extern "C" __global__ void spin(unsigned *out, unsigned iters) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = i + 1, y = 0;
  for (unsigned k = 0; k < iters; ++k) {
    x = x * 1664525u + 1013904223u;
    y += (x >> 7) ^ (y << 3);
  }
  out[i] = x ^ y;
}
