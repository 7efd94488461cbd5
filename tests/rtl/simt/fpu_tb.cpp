// Testbench of simt_fpu (one lane's single-precision unit) against the host's IEEE 754
// arithmetic: every operation of the unit on edge operands (zeros, subnormals, the normal
// limits, infinities, quiet and signalling NaNs, halfway cases) and on random ones shaped to
// reach cancellation, underflow and overflow, in the rounding modes the host has (RNE, RTZ,
// RDN, RUP; RMM for the conversions), bit for bit, NaN results canonical (0x7fc00000, or
// 0x7fffffff in NVIDIA's mode). The fused operations are checked against fmaf (one rounding).
//
// fpu_tb [--seed N] [--count N]    exit 0 when every result matches
#include "Vsimt_fpu.h"
#include "verilated.h"

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

enum Op {
  FADD, FSUB, FMUL, FMADD, FMSUB, FNMSUB, FNMADD, FMIN, FMAX, FSGNJ, FSGNJN, FSGNJX, FEQ, FLT,
  FLE, FCVT_W_S, FCVT_WU_S, FCVT_S_W, FCVT_S_WU, FMV_X_W, FMV_W_X, FCLASS, NUM_OPS
};
const char *kName[NUM_OPS] = {"fadd", "fsub", "fmul", "fmadd", "fmsub", "fnmsub", "fnmadd",
                              "fmin", "fmax", "fsgnj", "fsgnjn", "fsgnjx", "feq", "flt", "fle",
                              "fcvt.w.s", "fcvt.wu.s", "fcvt.s.w", "fcvt.s.wu", "fmv.x.w",
                              "fmv.w.x", "fclass"};

uint32_t op_fp(uint32_t f7, uint32_t rs2, uint32_t f3) {
  return (f7 << 25) | (rs2 << 20) | (2u << 15) | (f3 << 12) | (1u << 7) | 0x53u;
}
uint32_t encode(Op op, uint32_t rm) {
  switch (op) {
  case FADD: return op_fp(0x00, 3, rm);
  case FSUB: return op_fp(0x04, 3, rm);
  case FMUL: return op_fp(0x08, 3, rm);
  case FMADD: return (4u << 27) | (3u << 20) | (2u << 15) | (rm << 12) | (1u << 7) | 0x43u;
  case FMSUB: return (4u << 27) | (3u << 20) | (2u << 15) | (rm << 12) | (1u << 7) | 0x47u;
  case FNMSUB: return (4u << 27) | (3u << 20) | (2u << 15) | (rm << 12) | (1u << 7) | 0x4Bu;
  case FNMADD: return (4u << 27) | (3u << 20) | (2u << 15) | (rm << 12) | (1u << 7) | 0x4Fu;
  case FMIN: return op_fp(0x14, 3, 0);
  case FMAX: return op_fp(0x14, 3, 1);
  case FSGNJ: return op_fp(0x10, 3, 0);
  case FSGNJN: return op_fp(0x10, 3, 1);
  case FSGNJX: return op_fp(0x10, 3, 2);
  case FEQ: return op_fp(0x50, 3, 2);
  case FLT: return op_fp(0x50, 3, 1);
  case FLE: return op_fp(0x50, 3, 0);
  case FCVT_W_S: return op_fp(0x60, 0, rm);
  case FCVT_WU_S: return op_fp(0x60, 1, rm);
  case FCVT_S_W: return op_fp(0x68, 0, rm);
  case FCVT_S_WU: return op_fp(0x68, 1, rm);
  case FMV_X_W: return op_fp(0x70, 0, 0);
  case FMV_W_X: return op_fp(0x78, 0, 0);
  default: return op_fp(0x70, 0, 1);  // FCLASS
  }
}

float f_of(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
uint32_t u_of(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
bool is_nan(uint32_t u) { return (u & 0x7F800000u) == 0x7F800000u && (u & 0x7FFFFFu); }

const int kHostMode[5] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD, -1};

// The reference: the host's arithmetic in the rounding mode, NaNs made canonical, and the
// RISC-V rules where IEEE leaves a choice (min/max, conversions out of range).
uint32_t reference(Op op, uint32_t rm, bool nv, uint32_t a, uint32_t b, uint32_t c, uint32_t x) {
  const uint32_t qnan = nv ? 0x7FFFFFFFu : 0x7FC00000u;
  volatile float fa = f_of(a), fb = f_of(b), fc = f_of(c);
  float r = 0;
  std::fesetround(kHostMode[rm]);
  switch (op) {
  case FADD: r = fa + fb; break;
  case FSUB: r = fa - fb; break;
  case FMUL: r = fa * fb; break;
  case FMADD: r = std::fmaf(fa, fb, fc); break;
  case FMSUB: r = std::fmaf(fa, fb, -fc); break;
  case FNMSUB: r = std::fmaf(-fa, fb, fc); break;
  case FNMADD: r = std::fmaf(-fa, fb, -fc); break;
  case FMIN: case FMAX: {
    std::fesetround(FE_TONEAREST);
    if (is_nan(a) && is_nan(b)) return qnan;
    if (is_nan(a)) return b;
    if (is_nan(b)) return a;
    bool lt = (fa < fb) || (fa == fb && (a >> 31) && !(b >> 31));  // -0 < +0
    return (op == FMIN) == lt ? a : b;
  }
  case FSGNJ: return (a & 0x7FFFFFFFu) | (b & 0x80000000u);
  case FSGNJN: return (a & 0x7FFFFFFFu) | (~b & 0x80000000u);
  case FSGNJX: return a ^ (b & 0x80000000u);
  case FEQ: std::fesetround(FE_TONEAREST); return fa == fb;
  case FLT: std::fesetround(FE_TONEAREST); return fa < fb;
  case FLE: std::fesetround(FE_TONEAREST); return fa <= fb;
  case FCVT_W_S: case FCVT_WU_S: {
    bool u = (op == FCVT_WU_S);
    double v = fa;  // exact
    std::fesetround(FE_TONEAREST);
    if (is_nan(a)) return nv ? 0u : (u ? 0xFFFFFFFFu : 0x7FFFFFFFu);
    double ri;
    if (rm == 4) ri = std::round(v);  // ties away from zero
    else { std::fesetround(kHostMode[rm]); ri = std::nearbyint(v); std::fesetround(FE_TONEAREST); }
    if (u) {
      if (ri < 0 || (a >> 31)) return 0u;       // negative: 0 (RISC-V; the value is invalid)
      if (ri > 4294967295.0) return 0xFFFFFFFFu;
      return (uint32_t)ri;
    }
    if (ri < -2147483648.0) return 0x80000000u;
    if (ri > 2147483647.0) return 0x7FFFFFFFu;
    return (uint32_t)(int32_t)ri;
  }
  case FCVT_S_W: case FCVT_S_WU: {
    if (rm == 4) {  // RMM: from the exact double, ties away
      std::fesetround(FE_TONEAREST);
      double v = (op == FCVT_S_W) ? (double)(int32_t)x : (double)x;
      std::fesetround(FE_TOWARDZERO);
      float t = (float)v;
      std::fesetround(FE_TONEAREST);
      double lo = t, up = std::nextafter(t, v < 0 ? -INFINITY : INFINITY);
      double d_lo = std::fabs(v - lo), d_up = std::fabs(up - v);
      return u_of(d_lo < d_up ? t : (float)up);
    }
    volatile int32_t si = (int32_t)x;
    volatile uint32_t ui = x;
    r = (op == FCVT_S_W) ? (float)si : (float)ui;
    break;
  }
  case FMV_X_W: return a;
  case FMV_W_X: return x;
  default: {  // FCLASS
    bool neg = a >> 31;
    uint32_t e = (a >> 23) & 0xFF, m = a & 0x7FFFFF;
    int bit;
    if (e == 0xFF) bit = m ? ((m >> 22) ? 9 : 8) : (neg ? 0 : 7);
    else if (e == 0) bit = m ? (neg ? 2 : 5) : (neg ? 3 : 4);
    else bit = neg ? 1 : 6;
    return 1u << bit;
  }
  }
  std::fesetround(FE_TONEAREST);
  uint32_t ru = u_of(r);
  return is_nan(ru) ? qnan : ru;
}

struct Bench {
  Vsimt_fpu *m;
  uint64_t runs = 0, fails = 0;
  uint32_t run(Op op, uint32_t rm, bool nv, uint32_t a, uint32_t b, uint32_t c, uint32_t x) {
    m->inst_i = encode(op, rm);
    m->rm_i = rm;
    m->nvnan_i = nv;
    m->a_i = a;
    m->b_i = b;
    m->c_i = c;
    m->x_i = x;
    m->en_i = 1;
    m->clk_i = 0;
    m->eval();
    m->clk_i = 1;
    m->eval();
    return m->result_o;
  }
  void check(Op op, uint32_t rm, bool nv, uint32_t a, uint32_t b, uint32_t c, uint32_t x) {
    uint32_t got = run(op, rm, nv, a, b, c, x);
    uint32_t want = reference(op, rm, nv, a, b, c, x);
    runs++;
    if (got != want) {
      if (fails < 30)
        std::printf("FAIL %-9s rm %u%s a %08x b %08x c %08x x %08x: got %08x want %08x\n",
                    kName[op], rm, nv ? " nv" : "", a, b, c, x, got, want);
      fails++;
    }
  }
};

const std::vector<uint32_t> kEdges = {
    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000,
    0x80800000, 0x00400000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000,
    0xFFC12345, 0x7F800001, 0x7FA00000, 0x3F800000, 0xBF800000, 0x3F800001, 0x3FFFFFFF,
    0x33800000, 0x33800001, 0xB3800000, 0x34000000, 0x3F000000, 0x3EFFFFFF, 0x3FC00000,
    0x40200000, 0xC0200000, 0x4B000000, 0x4B000001, 0x4EFFFFFF, 0x4F000000, 0xCF000000,
    0xCF000001, 0x4F7FFFFF, 0x4F800000, 0x00000003, 0x0CFFFFFF, 0x1A000000, 0x5F800000,
    0x3EC00000, 0xBF400000, 0x3F400000};

// random operands: raw bits, or values with exponents near a chosen one (cancellation,
// subnormal and overflowing results)
struct Gen {
  std::mt19937_64 rng;
  uint32_t bits() { return (uint32_t)rng(); }
  uint32_t near(int exp) {
    int e = exp + (int)(rng() % 7) - 3;
    if (e < 0) e = 0;
    if (e > 254) e = 254;
    return ((uint32_t)(rng() & 1) << 31) | ((uint32_t)e << 23) | (uint32_t)(rng() & 0x7FFFFF);
  }
  uint32_t any() {
    switch (rng() % 8) {
    case 0: return kEdges[rng() % kEdges.size()];
    case 1: case 2: return bits();
    case 3: return near(127);
    case 4: return near((int)(rng() % 30));          // subnormal neighbourhood
    case 5: return near(254 - (int)(rng() % 30));    // near overflow
    default: return near(100 + (int)(rng() % 60));
    }
  }
};

}  // namespace

int main(int argc, char **argv) {
  Verilated::commandArgs(argc, argv);
  uint64_t seed = 1, count = 20000;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) seed = std::strtoull(argv[++i], 0, 0);
    else if (!std::strcmp(argv[i], "--count") && i + 1 < argc) count = std::strtoull(argv[++i], 0, 0);
  }
  Bench b;
  b.m = new Vsimt_fpu;
  Gen g{std::mt19937_64(seed)};
  const Op arith[] = {FADD, FSUB, FMUL, FMADD, FMSUB, FNMSUB, FNMADD, FCVT_W_S, FCVT_WU_S,
                      FCVT_S_W, FCVT_S_WU};
  const Op exact[] = {FMIN, FMAX, FSGNJ, FSGNJN, FSGNJX, FEQ, FLT, FLE, FMV_X_W, FMV_W_X,
                      FCLASS};
  for (int nv = 0; nv < 2; nv++) {
    // every pair (triple for the fused ones: every c for a sample of pairs) of edge operands
    for (Op op : arith) {
      bool conv = op >= FCVT_W_S;
      for (uint32_t rm = 0; rm < (conv ? 5u : 4u); rm++)
        for (uint32_t a : kEdges)
          for (uint32_t bb : kEdges) {
            if (op >= FMADD && op <= FNMADD) {
              for (uint32_t c : kEdges) b.check(op, rm, nv, a, bb, c, 0);
            } else {
              b.check(op, rm, nv, a, bb, kEdges[0], bb);
            }
          }
    }
    for (Op op : exact)
      for (uint32_t a : kEdges)
        for (uint32_t bb : kEdges) b.check(op, 0, nv, a, bb, 0, a ^ bb);
  }
  // random: count per operation and mode
  for (uint64_t i = 0; i < count; i++) {
    for (Op op : arith) {
      bool conv = op >= FCVT_W_S;
      uint32_t rm = (uint32_t)(g.rng() % (conv ? 5 : 4));
      bool nv = g.rng() & 1;
      uint32_t a = g.any(), bb = g.any(), c = g.any();
      if (op >= FMADD && op <= FNMADD && (i & 3) == 0) {
        // c = -(a*b) rounded: the result is the product's rounding error (total cancellation)
        std::fesetround(FE_TONEAREST);
        volatile float p = f_of(a) * f_of(bb);
        c = u_of(-p);
      }
      if (op == FADD && (i & 3) == 0) bb = g.near(((a >> 23) & 0xFF)) ^ (a & 0x80000000u) ^ 0x80000000u;
      uint32_t x = (op == FCVT_S_W || op == FCVT_S_WU) ? (uint32_t)(g.rng() >> (g.rng() % 32)) : 0;
      if ((op == FCVT_W_S || op == FCVT_WU_S) && (i & 1)) a = g.near(127 + (int)(g.rng() % 34));
      b.check(op, rm, nv, a, bb, c, x);
    }
    for (Op op : exact) b.check(op, 0, g.rng() & 1, g.any(), g.any(), 0, g.bits());
  }
  std::printf("fpu_tb: %llu operations, %llu mismatches (seed %llu)\n",
              (unsigned long long)b.runs, (unsigned long long)b.fails, (unsigned long long)seed);
  delete b.m;
  return b.fails ? 1 : 0;
}
