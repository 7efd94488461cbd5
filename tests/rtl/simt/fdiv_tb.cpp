// Testbench of simt_fdiv (one lane's fdiv.s / fsqrt.s) against the host's IEEE 754 division
// and square root in RNE, RTZ, RDN and RUP, bit for bit, NaN results canonical (0x7fc00000, or
// 0x7fffffff in NVIDIA's mode): every pair of edge operands, then random ones (raw bits, and
// values near each other, near the subnormal range and near overflow). Every operation must
// take the same number of cycles, special operands included.
//
// fdiv_tb [--seed N] [--count N]    exit 0 when every result matches
#include "Vsimt_fdiv.h"
#include "verilated.h"

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

float f_of(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
uint32_t u_of(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
bool is_nan(uint32_t u) { return (u & 0x7F800000u) == 0x7F800000u && (u & 0x7FFFFFu); }
const int kMode[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};

uint32_t reference(bool sq, uint32_t rm, bool nv, uint32_t a, uint32_t b) {
  volatile float fa = f_of(a), fb = f_of(b);
  std::fesetround(kMode[rm]);
  volatile float r = sq ? std::sqrt(fa) : fa / fb;
  std::fesetround(FE_TONEAREST);
  uint32_t u = u_of(r);
  return is_nan(u) ? (nv ? 0x7FFFFFFFu : 0x7FC00000u) : u;
}

const std::vector<uint32_t> kEdges = {
    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000,
    0x00400000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC12345,
    0x7F800001, 0x3F800000, 0xBF800000, 0x3F800001, 0x3FFFFFFF, 0x40000000, 0x40400000,
    0x40800000, 0x3EAAAAAB, 0x33800000, 0x4B000001, 0x00000003, 0x0CFFFFFF, 0x5F800000};

}  // namespace

int main(int argc, char **argv) {
  Verilated::commandArgs(argc, argv);
  uint64_t seed = 1, count = 20000;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) seed = std::strtoull(argv[++i], 0, 0);
    else if (!std::strcmp(argv[i], "--count") && i + 1 < argc) count = std::strtoull(argv[++i], 0, 0);
  }
  Vsimt_fdiv *m = new Vsimt_fdiv;
  auto tick = [&] { m->clk_i = 0; m->eval(); m->clk_i = 1; m->eval(); };
  m->rst_ni = 0;
  m->start_i = 0;
  tick();
  m->rst_ni = 1;
  uint64_t runs = 0, fails = 0, max_cycles = 0;
  auto check = [&](bool sq, uint32_t rm, bool nv, uint32_t a, uint32_t b) {
    m->start_i = 1;
    m->sqrt_i = sq;
    m->rm_i = rm;
    m->nvnan_i = nv;
    m->a_i = a;
    m->b_i = b;
    tick();
    m->start_i = 0;
    m->a_i = m->b_i = 0xDEADBEEF;  // operands are taken at the start only
    uint64_t c = 1;
    for (; !m->done_o && c < 100; ++c) tick();
    m->eval();
    if (c > max_cycles) max_cycles = c;
    if (c != 28) {  // every operand, special or not: simt_core reads one lane's done for all
      if (fails < 30) std::printf("FAIL latency %llu cycles for a %08x b %08x\n", (unsigned long long)c, a, b);
      fails++;
    }
    uint32_t got = m->result_o, want = reference(sq, rm, nv, a, b);
    runs++;
    if (got != want) {
      if (fails < 30)
        std::printf("FAIL %s rm %u%s a %08x b %08x: got %08x want %08x\n", sq ? "fsqrt" : "fdiv",
                    rm, nv ? " nv" : "", a, b, got, want);
      fails++;
    }
  };
  for (int nv = 0; nv < 2; nv++)
    for (uint32_t rm = 0; rm < 4; rm++)
      for (uint32_t a : kEdges) {
        check(true, rm, nv, a, 0);
        for (uint32_t b : kEdges) check(false, rm, nv, a, b);
      }
  std::mt19937_64 g(seed);
  auto near = [&](int exp) {
    int e = exp + (int)(g() % 7) - 3;
    e = e < 0 ? 0 : e > 254 ? 254 : e;
    return ((uint32_t)(g() & 1) << 31) | ((uint32_t)e << 23) | (uint32_t)(g() & 0x7FFFFF);
  };
  for (uint64_t i = 0; i < count; i++) {
    uint32_t rm = g() % 4;
    bool nv = g() & 1;
    uint32_t a, b;
    switch (i % 4) {
      case 0: a = (uint32_t)g(), b = (uint32_t)g(); break;
      case 1: a = near(127), b = near(127); break;
      case 2: a = near((int)(g() % 40)), b = near(200 + (int)(g() % 50)); break;   // underflow
      default: a = near(230 + (int)(g() % 24)), b = near((int)(g() % 40)); break;  // overflow
    }
    check(false, rm, nv, a, b);
    check(true, rm, nv, a & ((i & 1) ? 0xFFFFFFFFu : 0x7FFFFFFFu), 0);
  }
  std::printf("fdiv_tb: %llu operations, %llu mismatches, at most %llu cycles (seed %llu)\n",
              (unsigned long long)runs, (unsigned long long)fails,
              (unsigned long long)max_cycles, (unsigned long long)seed);
  delete m;
  return fails ? 1 : 0;
}
