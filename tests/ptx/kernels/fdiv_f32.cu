// f32 division, reciprocal and square root on pairs (a[i], b[i]): 8 words per pair. x / y is
// div.rn.f32 and sqrtf is sqrt.rn.f32 (NVRTC's defaults, -prec-div and -prec-sqrt): IEEE 754's
// correctly rounded results, which the unit's fdiv.s / fsqrt.s compute; the intrinsics give
// the other rounding modifiers.
extern "C" __global__ void fdiv_f32(const float *a, const float *b, unsigned *out, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float x = a[i], y = b[i];
    unsigned *o = out + 8 * i;
    o[0] = __float_as_uint(x / y);
    o[1] = __float_as_uint(sqrtf(x));
    o[2] = __float_as_uint(1.0f / x);
    o[3] = __float_as_uint(__fdiv_rz(x, y));
    o[4] = __float_as_uint(__fdiv_ru(x, y));
    o[5] = __float_as_uint(__fsqrt_rd(x));
    o[6] = __float_as_uint(__frcp_rz(y));
    o[7] = __float_as_uint(__fsqrt_ru(fabsf(y)));
  }
}
