// Each warp adds up its 32 inputs with shuffles: every step a lane adds the value of the lane
// d places above it, d = 16, 8, 4, 2, 1, and lane 0 ends with the warp's sum. A CUDA warp is
// 32 threads in lockstep, so this kernel needs the unit's warps to be 32 lanes wide; the driver
// refuses it (CUDA_ERROR_NOT_SUPPORTED, at load) on a unit with narrower warps.
extern "C" __global__ void warpsum(const int *in, int *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
  if ((threadIdx.x & 31) == 0) out[i / 32] = v;
}
