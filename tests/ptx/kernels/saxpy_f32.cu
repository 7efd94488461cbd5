// f32 with a fused multiply-add: the unit has no F extension yet, so translating this must
// fail with PTX_ERR_NOT_SUPPORTED naming the instruction and its line.
extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
