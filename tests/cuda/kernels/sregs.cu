// %laneid and %warpid as a program sees them: each thread stores both at its linear index in the
// block (x fastest), per block. NVIDIA: %laneid is that index mod 32 (WARP_SIZE), %warpid is the
// same for the 32 threads of a warp and unique in the block.
extern "C" __global__ void sregs(unsigned *lane, unsigned *warp) {
  unsigned l, w;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
  asm volatile("mov.u32 %0, %%warpid;" : "=r"(w));
  unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned b = blockIdx.x + gridDim.x * blockIdx.y;
  unsigned i = b * blockDim.x * blockDim.y * blockDim.z + t;
  lane[i] = l;
  warp[i] = w;
}
