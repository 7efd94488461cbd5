// int <-> f32 conversions on pairs (a[i] as f32 bits, b[i] as an int): 12 words per pair.
// (int)f is cvt.rzi.s32.f32: NVIDIA saturates out-of-range values and gives 0 for NaN; the
// rounding intrinsics are the other .rni/.rmi/.rpi forms; int to float rounds as its
// modifier says.
extern "C" __global__ void fcvt_f32(const unsigned *a, const int *b, unsigned *out, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float x = __uint_as_float(a[i]);
    int y = b[i];
    unsigned *o = out + 12 * i;
    o[0] = (unsigned)(int)x;
    o[1] = (unsigned)x;
    o[2] = (unsigned)__float2int_rn(x);
    o[3] = (unsigned)__float2int_rd(x);
    o[4] = (unsigned)__float2int_ru(x);
    o[5] = __float2uint_rn(x);
    o[6] = __float_as_uint((float)y);
    o[7] = __float_as_uint((float)(unsigned)y);
    o[8] = __float_as_uint(__int2float_rz(y));
    o[9] = __float_as_uint(__uint2float_rd((unsigned)y));
    o[10] = __float_as_uint(__int2float_ru(y));
    o[11] = __float_as_uint((float)(short)y + 0.5f);
  }
}
