// f32 compares, selects and the exact one-operand operations on pairs (a[i], b[i]) with edge
// values (zeros of both signs, subnormals, infinities, NaNs): 16 words per pair, results as
// bits. Every comparison PTX has, ordered and unordered (!(a < b) is setp.geu), and the NaN
// results of min/max/neg/abs, which the test compares with NVIDIA's recorded answers.
extern "C" __global__ void fcmp_f32(const float *a, const float *b, unsigned *out, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float x = a[i], y = b[i];
    unsigned *o = out + 16 * i;
    o[0] = (x < y) | (x <= y) << 1 | (x > y) << 2 | (x >= y) << 3 | (x == y) << 4 | (x != y) << 5;
    o[1] = !(x < y) | !(x <= y) << 1 | !(x > y) << 2 | !(x >= y) << 3 | !(x == y) << 4 |
           !(x != y) << 5;
    o[2] = (x != x) | (y == y) << 1 | (x == x && y == y) << 2;
    o[3] = __float_as_uint(fminf(x, y));
    o[4] = __float_as_uint(fmaxf(x, y));
    o[5] = __float_as_uint(x < y ? x : y);
    o[6] = __float_as_uint(-x);
    o[7] = __float_as_uint(fabsf(x));
    o[8] = __float_as_uint(x > 1.5f ? y : 0.25f);
    o[9] = __float_as_uint(__fadd_rn(x, y));
    o[10] = __float_as_uint(__fsub_rn(x, y));
    o[11] = __float_as_uint(__fmul_rn(x, y));
    o[12] = __float_as_uint(__fmaf_rn(x, y, 1.0f));
    o[13] = __float_as_uint(__fadd_rz(x, y));
    o[14] = __float_as_uint(__fmul_rd(x, y));
    o[15] = __float_as_uint(__fmaf_ru(x, y, -x));
  }
}
