// The CUDA math functions whose NVRTC code uses PTX's approximations (ex2.approx.ftz.f32 in
// expf, erff, tanhf; rcp.approx.ftz.f32 in tanhf; rsqrt.approx.f32, div.approx.f32 and
// ex2.approx.f32 from the intrinsics) on pairs (a[i], b[i]): 8 words per pair. Their results
// are defined by error bounds (CUDA's programming guide: expf, exp2f, tanhf, erff, rsqrtf 2
// ulps), not bit for bit: the tests compare within those bounds.
extern "C" __global__ void fmath_f32(const float *a, const float *b, unsigned *out, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float x = a[i], y = b[i];
    unsigned *o = out + 8 * i;
    o[0] = __float_as_uint(expf(x));
    o[1] = __float_as_uint(exp2f(x));
    o[2] = __float_as_uint(tanhf(x));
    o[3] = __float_as_uint(1.0f / (1.0f + expf(-x)));
    o[4] = __float_as_uint(rsqrtf(fabsf(y)));
    o[5] = __float_as_uint(erff(x));
    o[6] = __float_as_uint(__fdividef(x, y));
    o[7] = __float_as_uint(__expf(x));
  }
}
