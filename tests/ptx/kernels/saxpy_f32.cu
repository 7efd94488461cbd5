// y = a*x + y in f32: NVRTC contracts the multiply-add into fma.rn.f32 (one rounding), which the
// unit's fmadd.s computes bit for bit.
extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
