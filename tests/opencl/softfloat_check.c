/*
 * softfloat_check: sw/opencl/vmgpu_softfloat.c, compiled for the host, against the host's own
 * IEEE arithmetic (x86-64 SSE, glibc's fmaf and sqrtf), bit for bit.
 *
 * The unit's operations (vmsf_op_*) in RNE, RTZ, RDN and RUP (conversions also in RMM), with
 * both NaN conventions (canonical 0x7fc00000, or NVIDIA's 0x7fffffff and NaN -> 0 in the
 * conversions to integers): every pair of 46 edge operands (every triple for fma), then random
 * rounds of random bit patterns and of operands near each other (cancellation, ties). Then the
 * C helpers clang calls (__addsf3, __ltsf2, __fixsfsi, fmaf, sqrtf, ...) in the same way. The
 * rules where IEEE leaves a choice are RISC-V's, as the unit's F hardware has them
 * (tests/rtl/simt/fpu_tb.cpp checks the hardware against the same rules).
 *
 * Usage: softfloat_check [random rounds]   (default 300000); prints the counts, exits 1 on
 * the first mismatches (at most 20 are printed).
 */
#define VMSF_HOST 1
#include "../../sw/opencl/vmgpu_softfloat.c"

#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float f_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t u_of(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static int is_nan(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }

static const int k_host_mode[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};

static uint64_t g_runs, g_fails;

static void check(const char *what, int rm, int nv, uint32_t a, uint32_t b, uint32_t c, uint32_t got, uint32_t want)
{
    g_runs++;
    if (got == want) return;
    if (g_fails++ < 20)
        fprintf(stderr, "MISMATCH %s rm=%d nv=%d a=0x%08x b=0x%08x c=0x%08x: got 0x%08x, want 0x%08x\n", what, rm,
                nv, a, b, c, got, want);
}

/* the host's answer in rounding mode rm, a NaN made canonical */
static uint32_t canon(uint32_t r, int nv) { return is_nan(r) ? (nv ? 0x7fffffffu : 0x7fc00000u) : r; }

static uint32_t ref_to_int(uint32_t a, int rm, int is_unsigned, int nv)
{
    if (is_nan(a)) return nv ? 0u : (is_unsigned ? 0xffffffffu : 0x7fffffffu);
    double v = f_of(a), ri;
    if (rm == 4) {
        ri = round(v);
    } else {
        fesetround(k_host_mode[rm]);
        ri = nearbyint(v);
        fesetround(FE_TONEAREST);
    }
    if (is_unsigned) {
        if (ri < 0 || (a >> 31)) return 0;
        return ri > 4294967295.0 ? 0xffffffffu : (uint32_t)ri;
    }
    if (ri < -2147483648.0) return 0x80000000u;
    if (ri > 2147483647.0) return 0x7fffffffu;
    return (uint32_t)(int32_t)ri;
}

static uint32_t ref_from_int(uint32_t x, int is_unsigned, int rm)
{
    double v = is_unsigned ? (double)x : (double)(int32_t)x; /* exact */
    if (rm == 4) { /* ties away: from the two neighbours */
        fesetround(FE_TOWARDZERO);
        float t = (float)v;
        fesetround(FE_TONEAREST);
        double lo = t, up = nextafterf(t, v < 0 ? -INFINITY : INFINITY);
        return u_of(fabs(v - lo) < fabs(up - v) ? t : (float)up);
    }
    fesetround(k_host_mode[rm]);
    volatile double vv = v;
    volatile float r = (float)vv; /* volatile: GCC would move the conversion past fesetround */
    fesetround(FE_TONEAREST);
    return u_of(r);
}

static uint32_t ref_minmax(uint32_t a, uint32_t b, int want_max, int nv)
{
    if (is_nan(a) && is_nan(b)) return nv ? 0x7fffffffu : 0x7fc00000u;
    if (is_nan(a)) return b;
    if (is_nan(b)) return a;
    float fa = f_of(a), fb = f_of(b);
    int lt = fa < fb || (fa == fb && (a >> 31) && !(b >> 31));
    return (want_max ? !lt : lt) ? a : b;
}

static int ref_cmp(uint32_t a, uint32_t b)
{
    float fa = f_of(a), fb = f_of(b);
    if (fa != fa || fb != fb) return 2;
    return fa < fb ? -1 : fa > fb;
}

/* every operation of the unit on one set of operands */
static void check_ops(uint32_t a, uint32_t b, uint32_t c)
{
    volatile float fa = f_of(a), fb = f_of(b), fc = f_of(c);
    for (int nv = 0; nv < 2; nv++) {
        for (int rm = 0; rm < 4; rm++) {
            fesetround(k_host_mode[rm]);
            volatile float r_add = fa + fb, r_sub = fa - fb, r_mul = fa * fb, r_div = fa / fb;
            volatile float r_fma = fmaf(fa, fb, fc), r_sq = sqrtf(fa);
            uint32_t add = u_of(r_add), sub = u_of(r_sub), mul = u_of(r_mul), div = u_of(r_div);
            uint32_t fma = u_of(r_fma), sq = u_of(r_sq);
            fesetround(FE_TONEAREST);
            check("add", rm, nv, a, b, 0, vmsf_op_add(a, b, rm, nv), canon(add, nv));
            check("sub", rm, nv, a, b, 0, vmsf_op_sub(a, b, rm, nv), canon(sub, nv));
            check("mul", rm, nv, a, b, 0, vmsf_op_mul(a, b, rm, nv), canon(mul, nv));
            check("div", rm, nv, a, b, 0, vmsf_op_div(a, b, rm, nv), canon(div, nv));
            check("fma", rm, nv, a, b, c, vmsf_op_fma(a, b, c, rm, nv), canon(fma, nv));
            check("sqrt", rm, nv, a, 0, 0, vmsf_op_sqrt(a, rm, nv), canon(sq, nv));
        }
        for (int rm = 0; rm < 5; rm++) {
            check("cvt.w.s", rm, nv, a, 0, 0, vmsf_op_cvt_w(a, rm, nv), ref_to_int(a, rm, 0, nv));
            check("cvt.wu.s", rm, nv, a, 0, 0, vmsf_op_cvt_wu(a, rm, nv), ref_to_int(a, rm, 1, nv));
            if (nv == 0) {
                check("cvt.s.w", rm, 0, b, 0, 0, vmsf_op_cvt_s_w(b, rm), ref_from_int(b, 0, rm));
                check("cvt.s.wu", rm, 0, b, 0, 0, vmsf_op_cvt_s_wu(b, rm), ref_from_int(b, 1, rm));
            }
        }
        check("min", 0, nv, a, b, 0, vmsf_op_min(a, b, nv), ref_minmax(a, b, 0, nv));
        check("max", 0, nv, a, b, 0, vmsf_op_max(a, b, nv), ref_minmax(a, b, 1, nv));
    }
    check("cmp", 0, 0, a, b, 0, (uint32_t)vmsf_op_cmp(a, b), (uint32_t)ref_cmp(a, b));
}

/* the helpers clang calls, against C on the host (round to nearest even, canonical NaN) */
static void check_helpers(uint32_t a, uint32_t b, uint32_t c)
{
    volatile float fa = f_of(a), fb = f_of(b), fc = f_of(c);
    check("__addsf3", 0, 0, a, b, 0, u_of(vmsf___addsf3(fa, fb)), canon(u_of(fa + fb), 0));
    check("__subsf3", 0, 0, a, b, 0, u_of(vmsf___subsf3(fa, fb)), canon(u_of(fa - fb), 0));
    check("__mulsf3", 0, 0, a, b, 0, u_of(vmsf___mulsf3(fa, fb)), canon(u_of(fa * fb), 0));
    check("__divsf3", 0, 0, a, b, 0, u_of(vmsf___divsf3(fa, fb)), canon(u_of(fa / fb), 0));
    check("__negsf2", 0, 0, a, 0, 0, u_of(vmsf___negsf2(fa)), a ^ 0x80000000u);
    check("fmaf", 0, 0, a, b, c, u_of(vmsf_fmaf(fa, fb, fc)), canon(u_of(fmaf(fa, fb, fc)), 0));
    check("sqrtf", 0, 0, a, 0, 0, u_of(vmsf_sqrtf(fa)), canon(u_of(sqrtf(fa)), 0));
    check("fminf", 0, 0, a, b, 0, u_of(vmsf_fminf(fa, fb)), ref_minmax(a, b, 0, 0));
    check("fmaxf", 0, 0, a, b, 0, u_of(vmsf_fmaxf(fa, fb)), ref_minmax(a, b, 1, 0));
    /* what the caller tests: eq/ne == 0, lt < 0, le <= 0, gt > 0, ge >= 0 */
    check("__eqsf2", 0, 0, a, b, 0, vmsf___eqsf2(fa, fb) == 0, fa == fb);
    check("__nesf2", 0, 0, a, b, 0, vmsf___nesf2(fa, fb) != 0, fa != fb);
    check("__ltsf2", 0, 0, a, b, 0, vmsf___ltsf2(fa, fb) < 0, fa < fb);
    check("__lesf2", 0, 0, a, b, 0, vmsf___lesf2(fa, fb) <= 0, fa <= fb);
    check("__gtsf2", 0, 0, a, b, 0, vmsf___gtsf2(fa, fb) > 0, fa > fb);
    check("__gesf2", 0, 0, a, b, 0, vmsf___gesf2(fa, fb) >= 0, fa >= fb);
    check("__unordsf2", 0, 0, a, b, 0, vmsf___unordsf2(fa, fb) != 0, fa != fa || fb != fb);
    /* conversions: C's cast where C defines it (in range), the unit's saturation elsewhere */
    check("__fixsfsi", 1, 0, a, 0, 0, (uint32_t)vmsf___fixsfsi(fa), ref_to_int(a, 1, 0, 0));
    check("__fixunssfsi", 1, 0, a, 0, 0, vmsf___fixunssfsi(fa), ref_to_int(a, 1, 1, 0));
    if (!is_nan(a) && fabsf(fa) < 9.2e18f) {
        int64_t want = (int64_t)fa;
        int64_t got = vmsf___fixsfdi(fa);
        check("__fixsfdi lo", 1, 0, a, 0, 0, (uint32_t)got, (uint32_t)want);
        check("__fixsfdi hi", 1, 0, a, 0, 0, (uint32_t)((uint64_t)got >> 32), (uint32_t)((uint64_t)want >> 32));
        if (fa >= 0 && fa < 1.8e19f) {
            uint64_t uw = (uint64_t)fa, ug = vmsf___fixunssfdi(fa);
            check("__fixunssfdi lo", 1, 0, a, 0, 0, (uint32_t)ug, (uint32_t)uw);
            check("__fixunssfdi hi", 1, 0, a, 0, 0, (uint32_t)(ug >> 32), (uint32_t)(uw >> 32));
        }
    }
    volatile int32_t si = (int32_t)b;
    volatile uint32_t ui = b;
    check("__floatsisf", 0, 0, b, 0, 0, u_of(vmsf___floatsisf(si)), u_of((float)si));
    check("__floatunsisf", 0, 0, b, 0, 0, u_of(vmsf___floatunsisf(ui)), u_of((float)ui));
    volatile int64_t sl = (int64_t)(((uint64_t)a << 32) | b) >> (c & 63);
    volatile uint64_t ul = (((uint64_t)a << 32) | b) >> (c & 63);
    check("__floatdisf", 0, 0, a, b, c, u_of(vmsf___floatdisf(sl)), u_of((float)sl));
    check("__floatundisf", 0, 0, a, b, c, u_of(vmsf___floatundisf(ul)), u_of((float)ul));
}

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint32_t)(g_rng >> 11);
}

/* a random operand: any bit pattern, or one near a given value (cancellation, ties, limits) */
static uint32_t operand(uint32_t near)
{
    switch (rnd() % 6) {
    case 0: return rnd();
    case 1: return near + (rnd() % 64) - 32;
    case 2: return (near ^ 0x80000000u) + (rnd() % 8) - 4;
    case 3: return rnd() & 0x80ffffffu; /* tiny: subnormal or just above */
    case 4: return (rnd() & 0x807fffffu) | ((0x30u + rnd() % 0x20u) << 23); /* moderate */
    default: return (rnd() & 0x807fffffu) | ((0xe0u + rnd() % 0x1fu) << 23); /* huge */
    }
}

int main(int argc, char **argv)
{
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 300000;
    static const uint32_t edge[] = {
        0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000, 0x80800000,
        0x00400000, 0x3f800000, 0xbf800000, 0x3f800001, 0x3f7fffff, 0x40000000, 0xc0000000, 0x3f000000,
        0x3fc00000, 0x40400000, 0x4b000000, 0x4b000001, 0x4effffff, 0x4f000000, 0xcf000000, 0xcf000001,
        0x4f800000, 0x4f7fffff, 0x5f000000, 0xdf000000, 0x7f7fffff, 0xff7fffff, 0x7f000000, 0x7f800000,
        0xff800000, 0x7fc00000, 0xffc00000, 0x7f800001, 0x7fffffff, 0x3eaaaaab, 0x3dcccccd, 0x40490fdb,
        0x34000000, 0x33800000, 0x0c000000, 0x1f800000, 0x5f800000, 0xbf000000};
    const unsigned n = sizeof edge / sizeof edge[0];
    uint64_t before = 0;
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) {
            for (unsigned k = 0; k < n; k++) {
                /* fma on every triple; the other operations once per pair */
                uint32_t a = edge[i], b = edge[j], c = edge[k];
                volatile float fa = f_of(a), fb = f_of(b), fc = f_of(c);
                for (int nv = 0; nv < 2; nv++)
                    for (int rm = 0; rm < 4; rm++) {
                        fesetround(k_host_mode[rm]);
                        volatile float r = fmaf(fa, fb, fc);
                        uint32_t want = canon(u_of(r), nv);
                        fesetround(FE_TONEAREST);
                        check("fma", rm, nv, a, b, c, vmsf_op_fma(a, b, c, rm, nv), want);
                    }
            }
            check_ops(edge[i], edge[j], edge[(i + j) % n]);
            check_helpers(edge[i], edge[j], edge[(i * 7 + j) % n]);
        }
    printf("edge operands: %llu checks\n", (unsigned long long)(g_runs - before));
    before = g_runs;
    for (unsigned long r = 0; r < rounds; r++) {
        uint32_t a = operand(rnd()), b = operand(a), c = operand(rnd() & 1 ? a : b);
        if (r % 3 == 0) /* c near -(a * b): fma's cancellation */
            c = (u_of(f_of(a) * f_of(b)) ^ 0x80000000u) + (rnd() % 16) - 8;
        check_ops(a, b, c);
        check_helpers(a, b, c);
    }
    printf("random operands: %lu rounds, %llu checks\n", rounds, (unsigned long long)(g_runs - before));
    printf("%llu checks, %llu mismatches\n", (unsigned long long)g_runs, (unsigned long long)g_fails);
    return g_fails ? 1 : 0;
}
