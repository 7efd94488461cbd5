// Integer instruction semantics: each pair (a[i], b[i]) gives 16 results that the test bench
// computes the same way in C++. Shift amounts are masked as C requires; divisors are made
// non-zero (PTX leaves x/0 unspecified). Also a kernel of about 100 PTX lines for
// ptx_translate_ms.
extern "C" __global__ void intops(const int *a, const int *b, int *out, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int x = a[i], y = b[i];
    unsigned ux = (unsigned)x, uy = (unsigned)y;
    int *o = out + 16 * i;
    o[0] = min(x, y);
    o[1] = (int)max(ux, uy);
    o[2] = __mulhi(x, y);
    o[3] = (int)__umulhi(ux, uy);
    o[4] = x < y ? x - y : x ^ y;
    int d = y == 0 ? 7 : y;
    o[5] = (x == (int)0x80000000 && d == -1) ? 0 : x / d;
    unsigned ud = uy == 0 ? 9u : uy;
    o[6] = (int)(ux % ud);
    o[7] = (x >> (uy & 31)) + (int)(ux >> (uy & 31)) + (int)(ux << (uy & 15));
    o[8] = abs(x) ^ (-y);
    o[9] = (ux <= uy) + 2 * (x >= y) + 4 * (x != y) + 8 * (ux > uy);
    o[10] = x * y + (x & ~y) - (x | y);
    long long w = (long long)x * (long long)(short)y;
    o[11] = (int)w;
    o[12] = (int)(signed char)x + (int)(unsigned short)y;
    unsigned acc = 0;
    for (unsigned k = 0; k < (uy & 7); ++k) acc = acc * 31u + (ux >> k);
    o[13] = (int)acc;
    o[14] = max(x, -5) + min(ux, 100u);
    o[15] = (x > 0 && y > 0) || (x < -100) ? 1 : -1;
  }
}
