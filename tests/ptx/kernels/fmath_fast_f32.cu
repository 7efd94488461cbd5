// nvrtc-options: -use_fast_math
// fmath_f32's kind of code as NVRTC writes it with -use_fast_math: .ftz on every f32
// instruction (mul, add, fma, setp, neg, abs) and the approximations (ex2.approx.ftz,
// rcp.approx.ftz, rsqrt.approx.ftz, div.approx.ftz). 8 words per pair (a[i], b[i]): the
// flushing ones (x * y, fmaf, x + y, the compare) are exact, so compared bit for bit; the
// others within CUDA's bounds for the fast forms.
extern "C" __global__ void fmath_fast_f32(const float *a, const float *b, unsigned *out, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float x = a[i], y = b[i];
    unsigned *o = out + 8 * i;
    o[0] = __float_as_uint(expf(x));
    o[1] = __float_as_uint(x * y);
    o[2] = __float_as_uint(fmaf(x, y, 1.0f));
    o[3] = __float_as_uint(x / y);
    o[4] = __float_as_uint(rsqrtf(fabsf(y)));
    o[5] = __float_as_uint(1.0f / (1.0f + expf(-x)));
    o[6] = __float_as_uint(x + y);
    o[7] = __float_as_uint(x < y ? x : y);
  }
}
