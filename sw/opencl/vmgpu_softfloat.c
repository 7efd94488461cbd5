/*
 * Single-precision floating point in software for a SIMT unit without the F extension.
 *
 * clang compiles float arithmetic for an RV32IM target into calls to the helpers libgcc and
 * compiler-rt name (__addsf3, __mulsf3, __ltsf2, __fixsfsi, ...) and, for fma() and sqrt(), to
 * libm's fmaf and sqrtf. This file provides them, so that an OpenCL C kernel with float
 * arithmetic links and runs on such a unit (the ULX3S bitstream's). libvmgpu-opencl embeds the
 * file and compiles it with the program's own target flags at link time, only when the unit
 * reports no F (docs/opencl.md, "Float arithmetic without the F extension").
 *
 * The results are those of the unit's F hardware (rtl/simt/simt_fpu.v, simt_fdiv.v) as clang's
 * code uses it, bit for bit: IEEE 754 binary32, correctly rounded in the five RISC-V rounding
 * modes (the C helpers use round to nearest even), subnormals kept, never flushed, every NaN
 * result the canonical 0x7fc00000 (or NVIDIA's 0x7fffffff where `nv` is set), conversions to
 * integers saturating, a NaN converting to the largest integer (or 0 where `nv` is set).
 * tests/opencl/softfloat_check.c checks every operation against the host's arithmetic.
 *
 * How a result is made: both operands are unpacked into a sign, an exponent and an integer
 * significand; the exact result (or, for division and square root, enough quotient bits plus a
 * sticky bit) is formed in a 64-bit integer, and one routine normalizes and rounds it.
 *
 * Freestanding: no header, no library call (64-bit division is never used; clang expands
 * 64-bit shifts and products inline on RV32). Built on the host too (VMSF_HOST), where the
 * helpers get a vmsf_ prefix so that they do not replace the host's own.
 */

typedef unsigned int vmsf_u32;
typedef int vmsf_i32;
typedef unsigned long long vmsf_u64;
typedef long long vmsf_i64;

#ifdef VMSF_HOST
#define VMSF_API(name) vmsf_##name
#else
#define VMSF_API(name) name
#endif

enum { VMSF_RNE = 0, VMSF_RTZ = 1, VMSF_RDN = 2, VMSF_RUP = 3, VMSF_RMM = 4 };

static vmsf_u32 vmsf_bits(float f)
{
    union { float f; vmsf_u32 u; } v;
    v.f = f;
    return v.u;
}
static float vmsf_float(vmsf_u32 u)
{
    union { float f; vmsf_u32 u; } v;
    v.u = u;
    return v.f;
}

static int vmsf_clz64(vmsf_u64 x)
{
    int n = 0;
    if (!(x >> 32)) { n += 32; x <<= 32; }
    if (!(x >> 48)) { n += 16; x <<= 16; }
    if (!(x >> 56)) { n += 8; x <<= 8; }
    if (!(x >> 60)) { n += 4; x <<= 4; }
    if (!(x >> 62)) { n += 2; x <<= 2; }
    if (!(x >> 63)) { n += 1; }
    return n;
}

/* x >> n with every bit shifted out or-ed into bit 0 (the sticky bit) */
static vmsf_u64 vmsf_shr_jam(vmsf_u64 x, int n)
{
    if (n <= 0) return x;
    if (n >= 64) return x != 0;
    return (x >> n) | ((x << (64 - n)) != 0);
}

static int vmsf_is_nan(vmsf_u32 a) { return (a & 0x7fffffffu) > 0x7f800000u; }
static int vmsf_is_inf(vmsf_u32 a) { return (a & 0x7fffffffu) == 0x7f800000u; }
static int vmsf_is_zero(vmsf_u32 a) { return (a & 0x7fffffffu) == 0; }
static vmsf_u32 vmsf_qnan(int nv) { return nv ? 0x7fffffffu : 0x7fc00000u; }

/* A finite nonzero value as sig * 2^exp with sig's leading one at bit 23. */
static void vmsf_unpack(vmsf_u32 a, vmsf_i32 *exp, vmsf_u32 *sig)
{
    vmsf_u32 e = (a >> 23) & 0xffu, f = a & 0x7fffffu;
    if (e) {
        *sig = f | 0x800000u;
        *exp = (vmsf_i32)e - 150;
    } else { /* subnormal: normalize */
        int s = vmsf_clz64(f) - 40;
        *sig = f << s;
        *exp = -149 - s;
    }
}

/* Rounds sign * m * 2^e (m != 0; bit 0 may be a sticky bit standing for more nonzero bits below,
 * valid when m has at least two bits below the final rounding position) to binary32. */
static vmsf_u32 vmsf_round(vmsf_u32 sign, vmsf_i32 e, vmsf_u64 m, int rm)
{
    int lz = vmsf_clz64(m);
    /* leading one at bit 62, then 32 bits with it at bit 30 and a sticky bit for the rest */
    if (lz == 0)
        m = vmsf_shr_jam(m, 1), e += 1;
    else
        m <<= lz - 1, e -= lz - 1;
    vmsf_u32 sig = (vmsf_u32)(m >> 32) | ((vmsf_u32)m != 0);
    /* value = sig * 2^(e + 32) with sig in [2^30, 2^31): biased exponent E = e + 32 + 30 + 127;
     * the packed word is (E - 1) << 23 plus the rounded sig >> 7 (its leading one adds 1). */
    vmsf_i32 ex = e + 32 + 30 + 127 - 1;
    vmsf_u32 inc;
    switch (rm) {
    case VMSF_RTZ: inc = 0; break;
    case VMSF_RDN: inc = sign ? 0x7fu : 0; break;
    case VMSF_RUP: inc = sign ? 0 : 0x7fu; break;
    default: inc = 0x40u; break; /* RNE, RMM */
    }
    if (ex < 0) { /* subnormal (or underflow to zero): denormalize, sticky kept */
        int sh = -ex;
        sig = sh >= 31 ? (sig != 0) : ((sig >> sh) | ((sig << (32 - sh)) != 0));
        ex = 0;
    } else if (ex >= 0xfd) {
        if (ex > 0xfd || sig + inc >= 0x80000000u) { /* overflow */
            int to_inf = rm == VMSF_RNE || rm == VMSF_RMM || (rm == VMSF_RDN && sign) || (rm == VMSF_RUP && !sign);
            return (sign << 31) | (to_inf ? 0x7f800000u : 0x7f7fffffu);
        }
    }
    vmsf_u32 rbits = sig & 0x7fu;
    sig = (sig + inc) >> 7;
    if (rm == VMSF_RNE && rbits == 0x40u) sig &= ~1u; /* a tie: to even */
    /* the carry out of the significand (1.111.. rounding up) moves into the exponent by itself */
    return (sign << 31) + ((vmsf_u32)ex << 23) + sig;
}

/* The sign of an exact zero sum of two nonzero operands of opposite signs */
static vmsf_u32 vmsf_zero_sum(int rm) { return rm == VMSF_RDN ? 0x80000000u : 0; }

/* a + b: the sum of sign * sig * 2^exp terms, the smaller aligned with a sticky bit */
static vmsf_u32 vmsf_add_terms(vmsf_u32 sa, vmsf_i32 ea, vmsf_u64 ma, vmsf_u32 sb, vmsf_i32 eb, vmsf_u64 mb, int rm)
{
    /* both at a common exponent: the larger's leading one at bit 61 or below, room for a carry */
    int la = 63 - vmsf_clz64(ma), lb = 63 - vmsf_clz64(mb);
    ma <<= 61 - la, ea -= 61 - la;
    mb <<= 61 - lb, eb -= 61 - lb;
    if (ea < eb) {
        vmsf_u32 ts = sa; sa = sb; sb = ts;
        vmsf_i32 te = ea; ea = eb; eb = te;
        vmsf_u64 tm = ma; ma = mb; mb = tm;
    }
    mb = vmsf_shr_jam(mb, ea - eb);
    vmsf_u64 m;
    vmsf_u32 s = sa;
    if (sa == sb) {
        m = ma + mb;
    } else if (ma >= mb) {
        m = ma - mb;
    } else {
        m = mb - ma;
        s = sb;
    }
    if (!m) return vmsf_zero_sum(rm);
    return vmsf_round(s, ea, m, rm);
}

static vmsf_u32 vmsf_add_bits(vmsf_u32 a, vmsf_u32 b, int rm, int nv)
{
    if (vmsf_is_nan(a) || vmsf_is_nan(b)) return vmsf_qnan(nv);
    if (vmsf_is_inf(a)) return (vmsf_is_inf(b) && (a ^ b) >> 31) ? vmsf_qnan(nv) : a;
    if (vmsf_is_inf(b)) return b;
    if (vmsf_is_zero(a) && vmsf_is_zero(b)) return (a >> 31) == (b >> 31) ? a : vmsf_zero_sum(rm);
    if (vmsf_is_zero(b)) return a;
    if (vmsf_is_zero(a)) return b;
    vmsf_i32 ea, eb;
    vmsf_u32 ma, mb;
    vmsf_unpack(a, &ea, &ma);
    vmsf_unpack(b, &eb, &mb);
    return vmsf_add_terms(a >> 31, ea, ma, b >> 31, eb, mb, rm);
}

static vmsf_u32 vmsf_mul_bits(vmsf_u32 a, vmsf_u32 b, int rm, int nv)
{
    vmsf_u32 s = (a ^ b) >> 31;
    if (vmsf_is_nan(a) || vmsf_is_nan(b)) return vmsf_qnan(nv);
    if (vmsf_is_inf(a) || vmsf_is_inf(b)) {
        if (vmsf_is_zero(a) || vmsf_is_zero(b)) return vmsf_qnan(nv);
        return (s << 31) | 0x7f800000u;
    }
    if (vmsf_is_zero(a) || vmsf_is_zero(b)) return s << 31;
    vmsf_i32 ea, eb;
    vmsf_u32 ma, mb;
    vmsf_unpack(a, &ea, &ma);
    vmsf_unpack(b, &eb, &mb);
    return vmsf_round(s, ea + eb, (vmsf_u64)ma * mb, rm);
}

/* a * b + c with one rounding */
static vmsf_u32 vmsf_fma_bits(vmsf_u32 a, vmsf_u32 b, vmsf_u32 c, int rm, int nv)
{
    vmsf_u32 sp = (a ^ b) >> 31;
    if (vmsf_is_nan(a) || vmsf_is_nan(b) || vmsf_is_nan(c)) return vmsf_qnan(nv);
    if (vmsf_is_inf(a) || vmsf_is_inf(b)) {
        if (vmsf_is_zero(a) || vmsf_is_zero(b)) return vmsf_qnan(nv);
        if (vmsf_is_inf(c) && (c >> 31) != sp) return vmsf_qnan(nv);
        return (sp << 31) | 0x7f800000u;
    }
    if (vmsf_is_inf(c)) return c;
    if (vmsf_is_zero(a) || vmsf_is_zero(b)) { /* an exact zero product */
        if (!vmsf_is_zero(c)) return c;
        return (c >> 31) == sp ? c : vmsf_zero_sum(rm);
    }
    vmsf_i32 ea, eb, ec;
    vmsf_u32 ma, mb, mc;
    vmsf_unpack(a, &ea, &ma);
    vmsf_unpack(b, &eb, &mb);
    vmsf_u64 mp = (vmsf_u64)ma * mb; /* exact, 47 or 48 bits */
    if (vmsf_is_zero(c)) return vmsf_round(sp, ea + eb, mp, rm);
    vmsf_unpack(c, &ec, &mc);
    return vmsf_add_terms(sp, ea + eb, mp, c >> 31, ec, mc, rm);
}

static vmsf_u32 vmsf_div_bits(vmsf_u32 a, vmsf_u32 b, int rm, int nv)
{
    vmsf_u32 s = (a ^ b) >> 31;
    if (vmsf_is_nan(a) || vmsf_is_nan(b)) return vmsf_qnan(nv);
    if (vmsf_is_inf(a)) return vmsf_is_inf(b) ? vmsf_qnan(nv) : (s << 31) | 0x7f800000u;
    if (vmsf_is_inf(b)) return s << 31;
    if (vmsf_is_zero(b)) return vmsf_is_zero(a) ? vmsf_qnan(nv) : (s << 31) | 0x7f800000u;
    if (vmsf_is_zero(a)) return s << 31;
    vmsf_i32 ea, eb;
    vmsf_u32 ma, mb;
    vmsf_unpack(a, &ea, &ma);
    vmsf_unpack(b, &eb, &mb);
    /* restoring division, one quotient bit a step: 27 bits (the first is 1 once r >= mb) */
    vmsf_u32 r = ma, q = 0;
    vmsf_i32 e = ea - eb;
    if (r < mb) r <<= 1, e -= 1;
    for (int i = 0; i < 27; i++) {
        q <<= 1;
        if (r >= mb) r -= mb, q |= 1;
        r <<= 1;
    }
    /* a/b = (q + r/(2 mb)) * 2^(e - 26): q with one more bit for the sticky remainder */
    return vmsf_round(s, e - 27, ((vmsf_u64)q << 1) | (r != 0), rm);
}

static vmsf_u32 vmsf_sqrt_bits(vmsf_u32 a, int rm, int nv)
{
    if (vmsf_is_nan(a)) return vmsf_qnan(nv);
    if (vmsf_is_zero(a)) return a; /* sqrt(-0) = -0 */
    if (a >> 31) return vmsf_qnan(nv);
    if (vmsf_is_inf(a)) return a;
    vmsf_i32 e;
    vmsf_u32 m;
    vmsf_unpack(a, &e, &m);
    /* m * 2^e with e even, the radicand shifted up so the root has 27 bits or more */
    vmsf_u64 x = m;
    if (e & 1) x <<= 1, e -= 1;
    x <<= 30, e -= 30; /* x < 2^55: the root < 2^27.5 */
    vmsf_u64 root = 0, bit = 1ull << 54;
    while (bit > x) bit >>= 2;
    while (bit) {
        if (x >= root + bit) {
            x -= root + bit;
            root = (root >> 1) + bit;
        } else {
            root >>= 1;
        }
        bit >>= 2;
    }
    return vmsf_round(0, e / 2 - 1, (root << 1) | (x != 0), rm);
}

static vmsf_u32 vmsf_minmax_bits(vmsf_u32 a, vmsf_u32 b, int want_max, int nv)
{
    if (vmsf_is_nan(a) && vmsf_is_nan(b)) return vmsf_qnan(nv);
    if (vmsf_is_nan(a)) return b;
    if (vmsf_is_nan(b)) return a;
    /* order the bit patterns as values: -0 below +0 */
    vmsf_i32 ka = (a >> 31) ? -(vmsf_i32)(a & 0x7fffffffu) - 1 : (vmsf_i32)a;
    vmsf_i32 kb = (b >> 31) ? -(vmsf_i32)(b & 0x7fffffffu) - 1 : (vmsf_i32)b;
    return (ka < kb) == !want_max ? a : b;
}

/* -1 less, 0 equal, 1 greater, 2 unordered */
static int vmsf_cmp_bits(vmsf_u32 a, vmsf_u32 b)
{
    if (vmsf_is_nan(a) || vmsf_is_nan(b)) return 2;
    if (vmsf_is_zero(a) && vmsf_is_zero(b)) return 0;
    vmsf_i32 ka = (a >> 31) ? -(vmsf_i32)(a & 0x7fffffffu) : (vmsf_i32)a;
    vmsf_i32 kb = (b >> 31) ? -(vmsf_i32)(b & 0x7fffffffu) : (vmsf_i32)b;
    return ka < kb ? -1 : ka > kb;
}

/* float to an integer of `bits` bits in rounding mode rm, saturating at the type's limits */
static vmsf_i64 vmsf_to_int(vmsf_u32 a, int rm, int is_unsigned, int bits, int nv)
{
    vmsf_u64 umax = bits == 64 ? ~0ull : (1ull << bits) - 1;
    vmsf_i64 smax = (vmsf_i64)(umax >> 1), smin = -smax - 1;
    if (vmsf_is_nan(a)) return nv ? 0 : (is_unsigned ? (vmsf_i64)umax : smax);
    vmsf_u32 s = a >> 31;
    if (is_unsigned && s) return 0; /* every negative value, as the unit's fcvt.wu.s */
    if (vmsf_is_zero(a)) return 0;
    if (vmsf_is_inf(a)) return s ? smin : (is_unsigned ? (vmsf_i64)umax : smax);
    vmsf_i32 e;
    vmsf_u32 m;
    vmsf_unpack(a, &e, &m);
    vmsf_u64 mag;
    if (e >= 0) {
        if (e > 40) return s ? smin : (is_unsigned ? (vmsf_i64)umax : smax);
        mag = (vmsf_u64)m << e;
    } else {
        /* the integer part, and the fraction with its half at bit 63 (bits shifted out of the
         * top are the integer part's; a value too small for 64 bits is a sticky 1) */
        int n = -e;
        vmsf_u64 ip = n < 32 ? m >> n : 0;
        vmsf_u64 fr = n < 64 ? (vmsf_u64)m << (64 - n) : 1;
        int up = 0;
        switch (rm) {
        case VMSF_RTZ: up = 0; break;
        case VMSF_RDN: up = s && fr; break;
        case VMSF_RUP: up = !s && fr; break;
        case VMSF_RMM: up = fr >= (1ull << 63); break;
        default: up = fr > (1ull << 63) || (fr == (1ull << 63) && (ip & 1)); break;
        }
        mag = ip + up;
    }
    if (is_unsigned) return mag > umax ? (vmsf_i64)umax : (vmsf_i64)mag;
    if (s) return mag >= (vmsf_u64)smax + 1 ? smin : -(vmsf_i64)mag;
    return mag > (vmsf_u64)smax ? smax : (vmsf_i64)mag;
}

static vmsf_u32 vmsf_from_int(vmsf_u64 mag, vmsf_u32 s, int rm)
{
    if (!mag) return 0;
    return vmsf_round(s, 0, mag, rm);
}

/* ---- the unit's F operations, with a rounding mode and the NaN convention ---- */

vmsf_u32 vmsf_op_add(vmsf_u32 a, vmsf_u32 b, int rm, int nv) { return vmsf_add_bits(a, b, rm, nv); }
vmsf_u32 vmsf_op_sub(vmsf_u32 a, vmsf_u32 b, int rm, int nv) { return vmsf_add_bits(a, b ^ 0x80000000u, rm, nv); }
vmsf_u32 vmsf_op_mul(vmsf_u32 a, vmsf_u32 b, int rm, int nv) { return vmsf_mul_bits(a, b, rm, nv); }
vmsf_u32 vmsf_op_fma(vmsf_u32 a, vmsf_u32 b, vmsf_u32 c, int rm, int nv) { return vmsf_fma_bits(a, b, c, rm, nv); }
vmsf_u32 vmsf_op_div(vmsf_u32 a, vmsf_u32 b, int rm, int nv) { return vmsf_div_bits(a, b, rm, nv); }
vmsf_u32 vmsf_op_sqrt(vmsf_u32 a, int rm, int nv) { return vmsf_sqrt_bits(a, rm, nv); }
vmsf_u32 vmsf_op_min(vmsf_u32 a, vmsf_u32 b, int nv) { return vmsf_minmax_bits(a, b, 0, nv); }
vmsf_u32 vmsf_op_max(vmsf_u32 a, vmsf_u32 b, int nv) { return vmsf_minmax_bits(a, b, 1, nv); }
int vmsf_op_cmp(vmsf_u32 a, vmsf_u32 b) { return vmsf_cmp_bits(a, b); }
vmsf_u32 vmsf_op_cvt_w(vmsf_u32 a, int rm, int nv) { return (vmsf_u32)vmsf_to_int(a, rm, 0, 32, nv); }
vmsf_u32 vmsf_op_cvt_wu(vmsf_u32 a, int rm, int nv) { return (vmsf_u32)vmsf_to_int(a, rm, 1, 32, nv); }
vmsf_u32 vmsf_op_cvt_s_w(vmsf_u32 x, int rm)
{
    vmsf_u32 s = x >> 31;
    return vmsf_from_int(s ? 0u - x : x, s, rm);
}
vmsf_u32 vmsf_op_cvt_s_wu(vmsf_u32 x, int rm) { return vmsf_from_int(x, 0, rm); }

/* ---- the C helpers clang calls (round to nearest even, RISC-V's NaN) ---- */

float VMSF_API(__addsf3)(float a, float b) { return vmsf_float(vmsf_add_bits(vmsf_bits(a), vmsf_bits(b), VMSF_RNE, 0)); }
float VMSF_API(__subsf3)(float a, float b)
{
    return vmsf_float(vmsf_add_bits(vmsf_bits(a), vmsf_bits(b) ^ 0x80000000u, VMSF_RNE, 0));
}
float VMSF_API(__mulsf3)(float a, float b) { return vmsf_float(vmsf_mul_bits(vmsf_bits(a), vmsf_bits(b), VMSF_RNE, 0)); }
float VMSF_API(__divsf3)(float a, float b) { return vmsf_float(vmsf_div_bits(vmsf_bits(a), vmsf_bits(b), VMSF_RNE, 0)); }
float VMSF_API(__negsf2)(float a) { return vmsf_float(vmsf_bits(a) ^ 0x80000000u); }
float VMSF_API(fmaf)(float a, float b, float c)
{
    return vmsf_float(vmsf_fma_bits(vmsf_bits(a), vmsf_bits(b), vmsf_bits(c), VMSF_RNE, 0));
}
float VMSF_API(sqrtf)(float a) { return vmsf_float(vmsf_sqrt_bits(vmsf_bits(a), VMSF_RNE, 0)); }
float VMSF_API(fminf)(float a, float b) { return vmsf_float(vmsf_minmax_bits(vmsf_bits(a), vmsf_bits(b), 0, 0)); }
float VMSF_API(fmaxf)(float a, float b) { return vmsf_float(vmsf_minmax_bits(vmsf_bits(a), vmsf_bits(b), 1, 0)); }

/* Comparisons, with libgcc's results: the sign of the answer says the order; an unordered
 * pair gives the value that makes the caller's test false (1 for lt/le/eq/ne, -1 for gt/ge). */
int VMSF_API(__eqsf2)(float a, float b) { int c = vmsf_cmp_bits(vmsf_bits(a), vmsf_bits(b)); return c == 2 ? 1 : c; }
int VMSF_API(__nesf2)(float a, float b) { int c = vmsf_cmp_bits(vmsf_bits(a), vmsf_bits(b)); return c == 2 ? 1 : c; }
int VMSF_API(__ltsf2)(float a, float b) { int c = vmsf_cmp_bits(vmsf_bits(a), vmsf_bits(b)); return c == 2 ? 1 : c; }
int VMSF_API(__lesf2)(float a, float b) { int c = vmsf_cmp_bits(vmsf_bits(a), vmsf_bits(b)); return c == 2 ? 1 : c; }
int VMSF_API(__gtsf2)(float a, float b) { int c = vmsf_cmp_bits(vmsf_bits(a), vmsf_bits(b)); return c == 2 ? -1 : c; }
int VMSF_API(__gesf2)(float a, float b) { int c = vmsf_cmp_bits(vmsf_bits(a), vmsf_bits(b)); return c == 2 ? -1 : c; }
int VMSF_API(__unordsf2)(float a, float b) { return vmsf_cmp_bits(vmsf_bits(a), vmsf_bits(b)) == 2; }

/* Conversions: toward zero from float (C's cast), to nearest even into float */
vmsf_i32 VMSF_API(__fixsfsi)(float a) { return (vmsf_i32)vmsf_to_int(vmsf_bits(a), VMSF_RTZ, 0, 32, 0); }
vmsf_u32 VMSF_API(__fixunssfsi)(float a) { return (vmsf_u32)vmsf_to_int(vmsf_bits(a), VMSF_RTZ, 1, 32, 0); }
vmsf_i64 VMSF_API(__fixsfdi)(float a) { return vmsf_to_int(vmsf_bits(a), VMSF_RTZ, 0, 64, 0); }
vmsf_u64 VMSF_API(__fixunssfdi)(float a) { return (vmsf_u64)vmsf_to_int(vmsf_bits(a), VMSF_RTZ, 1, 64, 0); }
float VMSF_API(__floatsisf)(vmsf_i32 x) { return vmsf_float(vmsf_op_cvt_s_w((vmsf_u32)x, VMSF_RNE)); }
float VMSF_API(__floatunsisf)(vmsf_u32 x) { return vmsf_float(vmsf_from_int(x, 0, VMSF_RNE)); }
float VMSF_API(__floatdisf)(vmsf_i64 x)
{
    vmsf_u32 s = x < 0;
    return vmsf_float(vmsf_from_int(s ? 0ull - (vmsf_u64)x : (vmsf_u64)x, s, VMSF_RNE));
}
float VMSF_API(__floatundisf)(vmsf_u64 x) { return vmsf_float(vmsf_from_int(x, 0, VMSF_RNE)); }
