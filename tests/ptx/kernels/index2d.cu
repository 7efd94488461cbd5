// A 2D grid of 3D blocks: every in-range (x, y) writes a word that encodes every id.
extern "C" __global__ void index2d(unsigned *out, unsigned w, unsigned h) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  unsigned z = threadIdx.z;
  out[(z * h + y) * w + x] = (x << 20) | (y << 8) | (z << 4) | (blockIdx.z & 15);
}
