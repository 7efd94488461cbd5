// Testbench of simt_core (the SIMT compute unit). The C++ side is the memory behind the unit's
// port: a page map (VA page -> present / writable, 4 KiB pages) with the bytes, a configurable
// latency (responses in order, several requests in flight) and optional random back-pressure.
// A request to a page not present answers FAULT_PTE_INVALID, a write to a read-only page
// FAULT_WRITE_DENIED (nothing is written then). An AMO (op 3) is a read-modify-write done here
// at once (the model has no other master), answered with the old word; it needs write permission. Kernels are ELF files built by clang-14 from
// kernels/*.c; every result is checked against the same computation done here.
//
// Kernels also come as PTX (tests/ptx: NVRTC's output of kernels/*.cu), translated here by
// sw/ptx; the argument block is then laid out as the kernel's .param list says.
//
// simt_tb <test> <kernel.elf> [--latency N] [--backpressure]   (tests: see main)
// simt_tb ptx_<test> <kernel.ptx> [--latency N] [--backpressure]
#include <cctype>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <climits>
#include <deque>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "Vsimt_core.h"
#include "tb_check.h"
#include "verilated.h"
#include "vmgpu/ptx.h"
#include "vmgpu/regs.h"

namespace {

constexpr uint32_t kPage = 4096;

struct Page {
  bool writable = true;
  std::vector<uint8_t> bytes = std::vector<uint8_t>(kPage, 0);
};

struct Memory {
  std::map<uint32_t, Page> pages;  // VA page number -> page
  void map(uint32_t va, uint32_t bytes, bool writable) {
    for (uint32_t p = va / kPage; p <= (va + bytes - 1) / kPage; ++p) pages[p].writable = writable;
  }
  bool present(uint32_t va) const { return pages.count(va / kPage) != 0; }
  uint32_t rd32(uint32_t va) const {
    const Page &p = pages.at(va / kPage);
    uint32_t v;
    std::memcpy(&v, &p.bytes[va % kPage], 4);
    return v;
  }
  void wr32(uint32_t va, uint32_t v) { std::memcpy(&pages.at(va / kPage).bytes[va % kPage], &v, 4); }
  void write(uint32_t va, const void *src, uint32_t n) {
    const uint8_t *s = static_cast<const uint8_t *>(src);
    for (uint32_t i = 0; i < n; ++i) pages.at((va + i) / kPage).bytes[(va + i) % kPage] = s[i];
  }
  void fill_words(uint32_t va, const std::vector<uint32_t> &w) { write(va, w.data(), 4 * w.size()); }
};

struct Options {
  unsigned latency = 1;
  bool backpressure = false;
  unsigned max_regs = 0;  // PTX: registers the translator may use (fewer force spills)
  std::string nvidia;     // f32 PTX: NVIDIA's recorded inputs and outputs (tests/ptx/nvidia)
  bool femu = false;      // PTX: the translator's F emulation (ptx_options.emulate_f)
  int lanes = 0, warps = 0;  // from the model's parameters, found by the launch below
};

struct ElfImage {
  uint32_t entry = 0;
  bool ok = false;
};

// Maps and copies the PT_LOAD segments: writable ones read-write, the others read-only (code).
// Segments in the shared-memory window are not memory and are skipped.
ElfImage load_elf(const std::string &path, Memory &mem) {
  ElfImage img;
  std::ifstream f(path, std::ios::binary);
  std::vector<uint8_t> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (b.size() < 52 || std::memcmp(b.data(), "\x7f" "ELF", 4) != 0 || b[4] != 1) {
    std::printf("not an ELF32 file: %s\n", path.c_str());
    return img;
  }
  auto u32 = [&](size_t o) { uint32_t v; std::memcpy(&v, &b[o], 4); return v; };
  auto u16 = [&](size_t o) { uint16_t v; std::memcpy(&v, &b[o], 2); return v; };
  img.entry = u32(24);
  uint32_t phoff = u32(28), phnum = u16(44), phentsize = u16(42);
  for (uint32_t i = 0; i < phnum; ++i) {
    size_t ph = phoff + i * phentsize;
    uint32_t type = u32(ph), off = u32(ph + 4), va = u32(ph + 8), filesz = u32(ph + 16),
             memsz = u32(ph + 20), flags = u32(ph + 24);
    if (type != 1 || memsz == 0 || va >= 0xFF000000u) continue;
    mem.map(va, memsz, (flags & 2) != 0);
    std::vector<uint8_t> seg(memsz, 0);
    std::memcpy(seg.data(), &b[off], filesz);
    mem.write(va, seg.data(), memsz);
  }
  img.ok = true;
  return img;
}

struct Launch {
  uint32_t args = 0;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
};

struct Result {
  bool finished = false;
  uint64_t cycles = 0;          // start to done
  uint32_t lane_instrs = 0, warp_instrs = 0, busy_cycles = 0;
  bool fault = false;
  uint32_t fault_va = 0, fault_access = 0, fault_reason = 0, fault_lane = 0, fault_warp = 0,
           fault_pc = 0;
  uint64_t requests = 0, writes = 0, amos = 0;
};

// The word an AMO writes (RISC-V funct5), computed here for the memory model.
uint32_t amo_value(uint32_t f5, uint32_t old, uint32_t src, uint32_t cmp) {
  int32_t so = (int32_t)old, ss = (int32_t)src;
  switch (f5) {
    case 0x00: return old + src;
    case 0x01: return src;
    case 0x04: return old ^ src;
    case 0x05: return old == cmp ? src : old;
    case 0x08: return old | src;
    case 0x0C: return old & src;
    case 0x10: return (uint32_t)(ss < so ? ss : so);
    case 0x14: return (uint32_t)(ss > so ? ss : so);
    case 0x18: return src < old ? src : old;
    case 0x1C: return src > old ? src : old;
  }
  CHECK(false, "AMO funct5 0x%x", f5);
  return old;
}

constexpr uint32_t kStackBase = 0x70000000u, kStackLog2 = 10;  // 1 KiB per thread slot

class Bench {
 public:
  Bench(const Options &o) : opt_(o), rng_(12345) {
    top_.clk_i = 0;
    top_.rst_ni = 0;
    top_.start_i = 0;
    top_.mem_req_ready_i = 1;
    top_.mem_rsp_valid_i = 0;
    for (int i = 0; i < 4; ++i) tick();
    top_.rst_ni = 1;
    tick();
  }
  Memory mem;

  // (emulated F takes a few hundred instructions where F takes one: a larger limit there)
  Result run(uint32_t entry, const Launch &l, uint64_t max_cycles = 0) {
    if (!max_cycles) max_cycles = opt_.femu ? 400000000 : 20000000;
    mem.map(kStackBase, 256 << kStackLog2, true);  // up to 256 thread slots
    Result r;
    top_.entry_pc_i = entry;
    top_.args_i = l.args;
    top_.stack_base_i = kStackBase;
    top_.stack_log2_i = kStackLog2;
    top_.grid_x_i = l.grid[0];
    top_.grid_y_i = l.grid[1];
    top_.grid_z_i = l.grid[2];
    top_.block_x_i = l.block[0];
    top_.block_y_i = l.block[1];
    top_.block_z_i = l.block[2];
    top_.threads_i = l.block[0] * l.block[1] * l.block[2];  // the launcher's product
    top_.start_i = 1;
    fault_taken_ = false;
    tick();
    top_.start_i = 0;
    for (uint64_t c = 1; c < max_cycles; ++c) {
      step_port(r);
      tick();
      if (top_.done_o) {
        r.finished = true;
        r.cycles = c;
        break;
      }
    }
    CHECK(r.finished, "kernel did not finish in %llu cycles", (unsigned long long)max_cycles);
    r.lane_instrs = top_.perf_lane_instrs_o;
    r.warp_instrs = top_.perf_warp_instrs_o;
    r.busy_cycles = top_.perf_cycles_o;
    r.fault = top_.fault_o;
    r.fault_va = top_.fault_va_o;
    r.fault_access = top_.fault_access_o;
    r.fault_reason = top_.fault_reason_o;
    r.fault_lane = top_.fault_lane_o;
    r.fault_warp = top_.fault_warp_o;
    r.fault_pc = top_.fault_pc_o;
    // the port is quiet after done: nothing presented, nothing owed
    CHECK(!top_.mem_req_valid_o && inflight_.empty(), "port not quiet after done");
    return r;
  }

 private:
  struct Pending {
    uint64_t due;
    uint32_t data;
    bool fault;
    uint8_t reason;
  };

  // One cycle of the memory side, evaluated before the clock edge: answer the oldest request
  // whose latency has passed, take a new request if ready.
  void step_port(Result &r) {
    top_.mem_rsp_valid_i = 0;
    if (!inflight_.empty() && inflight_.front().due <= now_) {
      const Pending &p = inflight_.front();
      top_.mem_rsp_valid_i = 1;
      top_.mem_rsp_data_i = p.data;
      top_.mem_rsp_fault_i = p.fault;
      top_.mem_rsp_reason_i = p.reason;
      inflight_.pop_front();
    }
    top_.mem_req_ready_i = opt_.backpressure ? (rng_() % 3 != 0) : 1;
    top_.eval();
    if (top_.mem_req_valid_o && top_.mem_req_ready_i) {
      uint32_t va = top_.mem_req_va_o, op = top_.mem_req_op_o;
      CHECK((va & 3) == 0, "request VA 0x%08x not word aligned", va);
      CHECK(op <= 3, "request op %u", op);
      Pending p{now_ + opt_.latency, 0, false, 0};
      ++r.requests;
      // precise stop in port order: once a request that faults was taken, no write follows it
      CHECK(!((op == 1 || op == 3) && fault_taken_), "write or AMO to 0x%08x taken after a faulting request", va);
      if (!mem.present(va)) {
        p.fault = true;
        p.reason = VMGPU_FAULT_PTE_INVALID;
      } else if ((op == 1 || op == 3) && !mem.pages.at(va / kPage).writable) {
        p.fault = true;
        p.reason = VMGPU_FAULT_WRITE_DENIED;
      } else if (op == 1) {
        uint32_t old = mem.rd32(va), be = top_.mem_req_be_o, d = top_.mem_req_wdata_o, v = old;
        for (int k = 0; k < 4; ++k)
          if (be & (1u << k)) v = (v & ~(0xFFu << 8 * k)) | (d & (0xFFu << 8 * k));
        mem.wr32(va, v);
        ++r.writes;
      } else if (op == 3) {
        CHECK(top_.mem_req_be_o == 0xF, "AMO with byte enables 0x%x", top_.mem_req_be_o);
        p.data = mem.rd32(va);
        mem.wr32(va, amo_value(top_.mem_req_amo_o, p.data, top_.mem_req_wdata_o, top_.mem_req_cmp_o));
        ++r.writes;
        ++r.amos;
      } else {
        p.data = mem.rd32(va);
      }
      fault_taken_ = fault_taken_ || p.fault;
      inflight_.push_back(p);
    }
  }
  void tick() {
    top_.clk_i = 0;
    top_.eval();
    top_.clk_i = 1;
    top_.eval();
    ++now_;
  }

  Options opt_;
  Vsimt_core top_;
  std::deque<Pending> inflight_;
  uint64_t now_ = 0;
  bool fault_taken_ = false;
  std::mt19937 rng_;
};

constexpr uint32_t kArgs = 0x20000000u, kBufA = 0x30000000u, kBufB = 0x31000000u,
                   kBufC = 0x32000000u;

// The kernel being run when it came from PTX (its .param layout), else null: clang's kernels
// take a C struct of 32-bit words.
const ptx_kernel *g_ptx_kernel = nullptr;

// Writes a kernel's arguments, in order: words of a C struct, or at the .param offsets (an
// 8-byte parameter, a pointer, gets the value in its low word and 0 in its high word).
void fill_args(Bench &b, const std::vector<uint32_t> &v) {
  if (!g_ptx_kernel) {
    b.mem.fill_words(kArgs, v);
    return;
  }
  const ptx_kernel *k = g_ptx_kernel;
  CHECK(k->num_params == v.size(), "kernel %s has %u parameters, the test passes %zu", k->name,
        k->num_params, v.size());
  for (size_t i = 0; i < v.size() && i < k->num_params; ++i) {
    const ptx_param &p = k->params[i];
    CHECK(p.size == 4 || p.size == 8, "parameter %s of %u bytes", p.name, p.size);
    b.mem.wr32(kArgs + p.offset, v[i]);
    if (p.size == 8) b.mem.wr32(kArgs + p.offset + 4, 0);
  }
}

void print_result(const char *name, const Result &r, unsigned lanes) {
  double ipc = r.busy_cycles ? double(r.lane_instrs) / (double(r.busy_cycles) * lanes) : 0.0;
  std::printf("%s: cycles %llu lane_instrs %u warp_instrs %u requests %llu lane_ipc %.3f\n", name,
              (unsigned long long)r.cycles, r.lane_instrs, r.warp_instrs,
              (unsigned long long)r.requests, ipc);
}

uint32_t lanes_of_model() {
#ifdef SIMT_LANES
  return SIMT_LANES;
#else
  return 4;
#endif
}
uint32_t slots_of_model() {
#ifdef SIMT_WARPS
  return lanes_of_model() * SIMT_WARPS;
#else
  return lanes_of_model() * 4;
#endif
}

// ---------------------------------------------------------------------------------- kernels

int test_vadd(Bench &b, uint32_t entry, unsigned n, unsigned grid) {
  std::mt19937 g(n);
  std::vector<uint32_t> a(n), bb(n);
  for (unsigned i = 0; i < n; ++i) a[i] = g(), bb[i] = g();
  b.mem.map(kBufA, 4 * n, false);
  b.mem.map(kBufB, 4 * n, false);
  b.mem.map(kBufC, 4 * n + 64, true);
  b.mem.fill_words(kBufA, a);
  b.mem.fill_words(kBufB, bb);
  for (unsigned i = 0; i < n + 16; ++i) b.mem.wr32(kBufC + 4 * i, 0xDEADBEEF);
  b.mem.map(kArgs, 64, false);
  fill_args(b, {kBufA, kBufB, kBufC, n});
  Launch l;
  l.args = kArgs;
  l.grid[0] = grid;
  l.block[0] = slots_of_model();
  Result r = b.run(entry, l);
  CHECK(!r.fault, "unexpected fault va 0x%08x pc 0x%08x", r.fault_va, r.fault_pc);
  unsigned bad = 0;
  for (unsigned i = 0; i < n; ++i)
    if (b.mem.rd32(kBufC + 4 * i) != a[i] + bb[i] && bad++ < 5)
      std::printf("c[%u] = 0x%08x, want 0x%08x\n", i, b.mem.rd32(kBufC + 4 * i), a[i] + bb[i]);
  CHECK(bad == 0, "%u wrong sums of %u", bad, n);
  for (unsigned i = n; i < n + 16; ++i)
    CHECK(b.mem.rd32(kBufC + 4 * i) == 0xDEADBEEF, "c[%u] written past n", i);
  print_result("vadd", r, lanes_of_model());
  std::printf("vadd_n %u vadd_cycles %llu vadd_cycles_per_element %.3f\n", n,
              (unsigned long long)r.cycles, double(r.cycles) / n);
  return 0;
}

unsigned collatz_ref(uint32_t x, unsigned cap) {
  unsigned s = 0;
  while (x > 1 && s < cap) {
    x = (x & 1) ? 3 * x + 1 : x >> 1;
    ++s;
  }
  return s;
}

int test_collatz(Bench &b, uint32_t entry) {
  const unsigned n = 45, cap = 300, block = slots_of_model();
  std::vector<uint32_t> in(n);
  std::mt19937 g(7);
  for (unsigned i = 0; i < n; ++i) in[i] = (i < 5) ? i : 1 + g() % 5000;  // 0 and 1 take no step
  in[7] = 77031;                                                           // 350 steps: hits the cap
  b.mem.map(kBufA, 4 * n, false);
  b.mem.map(kBufB, 4 * n + 64, true);
  b.mem.fill_words(kBufA, in);
  for (unsigned i = 0; i < n + 16; ++i) b.mem.wr32(kBufB + 4 * i, 0xDEADBEEF);
  b.mem.map(kArgs, 64, false);
  fill_args(b, {kBufA, kBufB, n, cap});
  Launch l;
  l.args = kArgs;
  l.grid[0] = (n + block - 1) / block;
  l.block[0] = block;
  Result r = b.run(entry, l);
  CHECK(!r.fault, "unexpected fault va 0x%08x pc 0x%08x", r.fault_va, r.fault_pc);
  for (unsigned i = 0; i < n; ++i)
    CHECK(b.mem.rd32(kBufB + 4 * i) == collatz_ref(in[i], cap), "steps(%u) = %u, want %u", in[i],
          b.mem.rd32(kBufB + 4 * i), collatz_ref(in[i], cap));
  for (unsigned i = n; i < n + 16; ++i)
    CHECK(b.mem.rd32(kBufB + 4 * i) == 0xDEADBEEF, "out[%u] written past n", i);
  print_result("collatz", r, lanes_of_model());
  return 0;
}

int test_reduce(Bench &b, uint32_t entry) {
  // the kernel's part[]: 256 ints in kernels/reduce.c, 64 in the PTX (reduce.cu)
  const unsigned cap = g_ptx_kernel ? 64 : 256;
  const unsigned block = std::min(slots_of_model(), cap), blocks = 6, n = block * blocks;
  std::vector<uint32_t> in(n);
  std::mt19937 g(3);
  for (auto &v : in) v = g() % 100000 - 50000;
  b.mem.map(kBufA, 4 * n, false);
  b.mem.map(kBufB, 4 * blocks, true);
  b.mem.fill_words(kBufA, in);
  b.mem.map(kArgs, 64, false);
  const unsigned spin = std::max(1u, 96u / block);  // the last writer ~96 iterations late
  fill_args(b, {kBufA, kBufB, spin});
  Launch l;
  l.args = kArgs;
  l.grid[0] = blocks;
  l.block[0] = block;
  Result r = b.run(entry, l);
  CHECK(!r.fault, "unexpected fault va 0x%08x pc 0x%08x", r.fault_va, r.fault_pc);
  for (unsigned k = 0; k < blocks; ++k) {
    uint32_t want = 0;
    for (unsigned t = 0; t < block; ++t) {
      uint32_t v = in[k * block + t];
      for (uint32_t j = 0; j < t * spin; ++j) v = (v ^ j) * 3;
      want += v;
    }
    CHECK(b.mem.rd32(kBufB + 4 * k) == want, "block %u sum %d, want %d", k,
          (int)b.mem.rd32(kBufB + 4 * k), (int)want);
  }
  print_result("reduce", r, lanes_of_model());
  return 0;
}

int test_index2d(Bench &b, uint32_t entry) {
  // block (bx, by, bz) with bz > 1 so tid.z is exercised; a grid that overhangs w and h
  const unsigned w = 11, h = 7;
  unsigned bx = 4, by = 2, bz = slots_of_model() / 8;
  Launch l;
  l.block[0] = bx;
  l.block[1] = by;
  l.block[2] = bz;
  l.grid[0] = (w + bx - 1) / bx;
  l.grid[1] = (h + by - 1) / by;
  l.grid[2] = 2;
  const unsigned words = w * h * bz;
  b.mem.map(kBufA, 4 * words + 64, true);
  for (unsigned i = 0; i < words + 16; ++i) b.mem.wr32(kBufA + 4 * i, 0xDEADBEEF);
  b.mem.map(kArgs, 64, false);
  fill_args(b, {kBufA, w, h});
  l.args = kArgs;
  Result r = b.run(entry, l);
  CHECK(!r.fault, "unexpected fault va 0x%08x pc 0x%08x", r.fault_va, r.fault_pc);
  // both z blocks write the same (x, y, z) words; the one with block z 1 runs last
  for (unsigned z = 0; z < bz; ++z)
    for (unsigned y = 0; y < h; ++y)
      for (unsigned x = 0; x < w; ++x) {
        uint32_t want = (x << 20) | (y << 8) | (z << 4) | 1u;
        uint32_t got = b.mem.rd32(kBufA + 4 * ((z * h + y) * w + x));
        CHECK(got == want, "out(%u,%u,%u) = 0x%08x, want 0x%08x", x, y, z, got, want);
      }
  for (unsigned i = words; i < words + 16; ++i)
    CHECK(b.mem.rd32(kBufA + 4 * i) == 0xDEADBEEF, "out[%u] written past the image", i);
  print_result("index2d", r, lanes_of_model());
  return 0;
}

// The two operand kernels (muldiv, intops): operand arrays a and b, `per` result words per pair
// in c, two blocks of the model's width; the run must not fault.
static Result run_pairs(Bench &b, uint32_t entry, const std::vector<uint32_t> &a,
                        const std::vector<uint32_t> &bv, unsigned per) {
  const unsigned n = a.size();
  b.mem.map(kBufA, 4 * n, false);
  b.mem.map(kBufB, 4 * n, false);
  b.mem.map(kBufC, 4 * per * n, true);
  b.mem.fill_words(kBufA, a);
  b.mem.fill_words(kBufB, bv);
  b.mem.map(kArgs, 64, false);
  fill_args(b, {kBufA, kBufB, kBufC, n});
  Launch l;
  l.args = kArgs;
  l.grid[0] = 2;
  l.block[0] = slots_of_model();
  Result r = b.run(entry, l);
  CHECK(!r.fault, "unexpected fault va 0x%08x pc 0x%08x", r.fault_va, r.fault_pc);
  return r;
}

int test_muldiv(Bench &b, uint32_t entry) {
  std::vector<uint32_t> a = {0, 1, 7, 0xFFFFFFF9u, 0x80000000u, 0x80000000u, 5, 0xFFFFFFFFu,
                             0x7FFFFFFFu, 0x80000000u, 123456789, 0xDEADBEEFu, 100, 0xFFFFFFFFu,
                             0x7FFFFFFFu, 3};
  std::vector<uint32_t> bv = {0, 0, 2, 2, 0xFFFFFFFFu, 0, 0xFFFFFFF9u, 0xFFFFFFFFu,
                              0x7FFFFFFFu, 0x80000000u, 0xFFFFFF85u, 0x12345u, 0xFFFFFFFFu, 0,
                              0xFFFFFFFFu, 0x80000001u};
  std::mt19937 g(11);
  for (int i = 0; i < 24; ++i) a.push_back(g()), bv.push_back(i % 3 ? g() : g() % 64);
  const unsigned n = a.size();
  Result r = run_pairs(b, entry, a, bv, 8);
  for (unsigned i = 0; i < n; ++i) {
    int32_t x = a[i], y = bv[i];
    uint32_t ux = a[i], uy = bv[i];
    uint32_t want[8];
    want[0] = ux * uy;
    want[1] = uint32_t((int64_t(x) * int64_t(y)) >> 32);
    want[2] = uint32_t((int64_t(x) * int64_t(uint64_t(uy))) >> 32);
    want[3] = uint32_t((uint64_t(ux) * uint64_t(uy)) >> 32);
    // RISC-V: x/0 = -1 (all ones), x%0 = x; INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0
    want[4] = uy == 0 ? 0xFFFFFFFFu : (ux == 0x80000000u && y == -1) ? ux : uint32_t(x / y);
    want[5] = uy == 0 ? 0xFFFFFFFFu : ux / uy;
    want[6] = uy == 0 ? ux : (ux == 0x80000000u && y == -1) ? 0 : uint32_t(x % y);
    want[7] = uy == 0 ? ux : ux % uy;
    static const char *nm[8] = {"mul", "mulh", "mulhsu", "mulhu", "div", "divu", "rem", "remu"};
    for (int k = 0; k < 8; ++k) {
      uint32_t got = b.mem.rd32(kBufC + 4 * (8 * i + k));
      CHECK(got == want[k], "%s(0x%08x, 0x%08x) = 0x%08x, want 0x%08x", nm[k], ux, uy, got, want[k]);
    }
  }
  print_result("muldiv", r, lanes_of_model());
  return 0;
}

// ------------------------------------------------------------------ F extension (fops, saxpy)
// The host's IEEE arithmetic is the reference; RISC-V's rules where IEEE leaves a choice (NaN
// results canonical 0x7fc00000, min/max, conversions out of range).
static float fbits(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
static uint32_t ubits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
static bool fnan(uint32_t u) { return (u & 0x7F800000u) == 0x7F800000u && (u & 0x7FFFFFu); }
static uint32_t canon(float f) { return fnan(ubits(f)) ? 0x7FC00000u : ubits(f); }
static uint32_t rv_minmax(uint32_t a, uint32_t b, bool max) {
  if (fnan(a) && fnan(b)) return 0x7FC00000u;
  if (fnan(a)) return b;
  if (fnan(b)) return a;
  float x = fbits(a), y = fbits(b);
  bool lt = x < y || (x == y && (a >> 31) && !(b >> 31));
  return (lt != max) ? a : b;
}
static uint32_t rv_cvt(uint32_t a, bool uns, int mode) {
  if (fnan(a)) return uns ? 0xFFFFFFFFu : 0x7FFFFFFFu;
  // volatile: GCC would otherwise share one nearbyint between calls in different modes
  volatile double v = fbits(a);
  std::fesetround(mode);
  volatile double r = std::nearbyint(v);
  std::fesetround(FE_TONEAREST);
  if (uns) return (r < 0 || (a >> 31)) ? 0u : r > 4294967295.0 ? 0xFFFFFFFFu : uint32_t(r);
  return r < -2147483648.0 ? 0x80000000u : r > 2147483647.0 ? 0x7FFFFFFFu : uint32_t(int32_t(r));
}
static uint32_t rv_class(uint32_t a) {
  bool neg = a >> 31;
  uint32_t e = (a >> 23) & 0xFF, m = a & 0x7FFFFF;
  int bit = e == 0xFF ? (m ? ((m >> 22) ? 9 : 8) : (neg ? 0 : 7))
          : e == 0 ? (m ? (neg ? 2 : 5) : (neg ? 3 : 4)) : (neg ? 1 : 6);
  return 1u << bit;
}
static void fops_ref(uint32_t ua, uint32_t ub, uint32_t want[18]) {
  volatile float a = fbits(ua), b = fbits(ub);
  want[0] = canon(a + b);
  want[1] = canon(a - b);
  want[2] = canon(a * b);
  want[3] = canon(std::fmaf(a, b, a));
  want[4] = canon(std::fmaf(-a, b, b));
  want[5] = rv_minmax(ua, ub, false);
  want[6] = rv_minmax(ua, ub, true);
  want[7] = a < b;
  want[8] = a <= b;
  want[9] = a == b;
  want[10] = rv_cvt(ua, false, FE_TOWARDZERO);
  want[11] = rv_cvt(ua, true, FE_TONEAREST);
  volatile int32_t si = int32_t(ub);
  volatile uint32_t ui = ub;
  want[12] = ubits(float(si));
  want[13] = ubits(float(ui));
  want[14] = rv_class(ua);
  std::fesetround(FE_UPWARD);
  volatile float up = a + b;
  std::fesetround(FE_TONEAREST);
  want[15] = canon(up);
  want[16] = canon(a / b);
  want[17] = canon(std::sqrt(a));
}

static const std::vector<uint32_t> kFloatEdges = {
    0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF,
    0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0x3F800000, 0xBF800000, 0x33800000,
    0x3F800001, 0x4F000000, 0xCF000000, 0x3FC00000, 0xC0200000, 0x4B000001};

int test_fops(Bench &b, uint32_t entry) {
  std::vector<uint32_t> a, bv;
  for (size_t i = 0; i < kFloatEdges.size(); ++i) {
    a.push_back(kFloatEdges[i]);
    bv.push_back(kFloatEdges[(i * 7 + 3) % kFloatEdges.size()]);
  }
  a.push_back(0x3F800000), bv.push_back(0x33800000);       // 1 + 2^-24: a tie, to even
  a.push_back(0x3F800001), bv.push_back(0x33800000);       // the tie the other way
  std::mt19937 g(23);
  while (a.size() % (2 * slots_of_model()) != 0 || a.size() < 64) {
    uint32_t x = g(), y = g();
    if (a.size() % 3 == 0) y = (x ^ 0x80000000u) + (g() % 64) - 32;   // near cancellation
    a.push_back(x), bv.push_back(y);
  }
  const unsigned n = a.size();
  Result r = run_pairs(b, entry, a, bv, 18);
  static const char *nm[18] = {"fadd", "fsub", "fmul", "fmadd", "fnmsub", "fmin", "fmax", "flt",
                               "fle", "feq", "fcvt.w.s rtz", "fcvt.wu.s rne", "fcvt.s.w",
                               "fcvt.s.wu", "fclass", "fadd (frm rup)", "fdiv", "fsqrt"};
  unsigned bad = 0;
  for (unsigned i = 0; i < n; ++i) {
    uint32_t want[18];
    fops_ref(a[i], bv[i], want);
    for (int k = 0; k < 18; ++k) {
      uint32_t got = b.mem.rd32(kBufC + 4 * (18 * i + k));
      if (got != want[k] && bad++ < 20)
        std::printf("%s(0x%08x, 0x%08x) = 0x%08x, want 0x%08x\n", nm[k], a[i], bv[i], got, want[k]);
    }
  }
  CHECK(bad == 0, "%u wrong F results of %u", bad, 18 * n);
  print_result("fops", r, lanes_of_model());
  return 0;
}

int test_saxpy(Bench &b, uint32_t entry, bool ptx) {
  const unsigned n = 1000;
  std::mt19937 g(5);
  std::uniform_real_distribution<float> d(-100.0f, 100.0f);
  std::vector<uint32_t> x(n), y(n);
  for (unsigned i = 0; i < n; ++i) x[i] = ubits(d(g)), y[i] = ubits(d(g));
  x[1] = 0x00000001, y[1] = 0x80000000;                     // a subnormal product
  x[2] = 0x7F800000, y[2] = 0xFF800000;                     // inf - inf: NaN
  const uint32_t a = ubits(-1.7f);
  b.mem.map(kBufA, 4 * n, false);
  b.mem.map(kBufB, 4 * n + 64, true);
  b.mem.fill_words(kBufA, x);
  b.mem.fill_words(kBufB, y);
  for (unsigned i = n; i < n + 16; ++i) b.mem.wr32(kBufB + 4 * i, 0xDEADBEEF);
  b.mem.map(kArgs, 64, false);
  // clang's struct {x, y, a, n}; NVRTC's saxpy(a, x, y, n)
  if (ptx) fill_args(b, {a, kBufA, kBufB, n});
  else fill_args(b, {kBufA, kBufB, a, n});
  Launch l;
  l.args = kArgs;
  l.grid[0] = ptx ? (n + slots_of_model() - 1) / slots_of_model() : 3;
  l.block[0] = slots_of_model();
  Result r = b.run(entry, l);
  CHECK(!r.fault, "unexpected fault va 0x%08x pc 0x%08x", r.fault_va, r.fault_pc);
  unsigned bad = 0;
  const uint32_t qnan = ptx ? 0x7FFFFFFFu : 0x7FC00000u;    // NVIDIA's NaN under PTX
  for (unsigned i = 0; i < n; ++i) {
    float w = std::fmaf(fbits(a), fbits(x[i]), fbits(y[i]));
    uint32_t want = fnan(ubits(w)) ? qnan : ubits(w), got = b.mem.rd32(kBufB + 4 * i);
    if (got != want && bad++ < 5) std::printf("y[%u] = 0x%08x, want 0x%08x\n", i, got, want);
  }
  CHECK(bad == 0, "%u wrong saxpy results of %u", bad, n);
  for (unsigned i = n; i < n + 16; ++i)
    CHECK(b.mem.rd32(kBufB + 4 * i) == 0xDEADBEEF, "y[%u] written past n", i);
  print_result("saxpy", r, lanes_of_model());
  std::printf("saxpy_n %u saxpy_cycles %llu saxpy_cycles_per_element %.3f\n", n,
              (unsigned long long)r.cycles, double(r.cycles) / n);
  return 0;
}

// ------------------------------------------------------------------ f32 PTX kernels
// NVRTC's f32 kernels (tests/ptx/kernels/*_f32.cu) with NVIDIA's conventions: NaN results are
// 0x7fffffff, float-to-integer conversions saturate and give 0 for NaN. Each is checked against
// the same computation here, and, given a recording made on an NVIDIA GPU
// (tests/ptx/nvidia/*.txt, written by tests/ptx/nvidia_record.c), run on the recorded inputs
// and compared with NVIDIA's outputs bit for bit.
static uint32_t nv(float f) { return fnan(ubits(f)) ? 0x7FFFFFFFu : ubits(f); }
static uint32_t nv_round(float (*op)(float, float), float x, float y, int mode) {
  std::fesetround(mode);
  volatile float r = op(x, y);
  std::fesetround(FE_TONEAREST);
  return nv(r);
}
static float add_(float x, float y) { volatile float a = x, b = y; return a + b; }
static float sub_(float x, float y) { volatile float a = x, b = y; return a - b; }
static float mul_(float x, float y) { volatile float a = x, b = y; return a * b; }
static uint32_t nv_minmax(uint32_t a, uint32_t b, bool max) {
  uint32_t r = rv_minmax(a, b, max);
  return fnan(r) ? 0x7FFFFFFFu : r;
}
static uint32_t nv_cvt(uint32_t a, bool uns, int mode) {
  return fnan(a) ? 0u : rv_cvt(a, uns, mode);
}
static uint32_t nv_i2f(double v, int mode) {  // v exact (an int32 or uint32)
  std::fesetround(mode);
  volatile double d = v;
  volatile float f = (float)d;
  std::fesetround(FE_TONEAREST);
  return ubits(f);
}

static void fcmp_ref(uint32_t ua, uint32_t ub, uint32_t o[16]) {
  volatile float x = fbits(ua), y = fbits(ub);
  o[0] = (x < y) | (x <= y) << 1 | (x > y) << 2 | (x >= y) << 3 | (x == y) << 4 | (x != y) << 5;
  o[1] = !(x < y) | !(x <= y) << 1 | !(x > y) << 2 | !(x >= y) << 3 | !(x == y) << 4 | !(x != y) << 5;
  o[2] = (x != x) | (y == y) << 1 | (x == x && y == y) << 2;
  o[3] = nv_minmax(ua, ub, false);
  o[4] = nv_minmax(ua, ub, true);
  o[5] = x < y ? ua : ub;
  o[6] = fnan(ua) ? 0x7FFFFFFFu : ua ^ 0x80000000u;   // NVIDIA: neg/abs of a NaN is 0x7fffffff
  o[7] = fnan(ua) ? 0x7FFFFFFFu : ua & 0x7FFFFFFFu;
  o[8] = x > 1.5f ? ub : 0x3E800000u;
  o[9] = nv_round(add_, x, y, FE_TONEAREST);
  o[10] = nv_round(sub_, x, y, FE_TONEAREST);
  o[11] = nv_round(mul_, x, y, FE_TONEAREST);
  o[12] = nv(std::fmaf(x, y, 1.0f));
  o[13] = nv_round(add_, x, y, FE_TOWARDZERO);
  o[14] = nv_round(mul_, x, y, FE_DOWNWARD);
  std::fesetround(FE_UPWARD);
  volatile float f = std::fmaf(x, y, -x);
  std::fesetround(FE_TONEAREST);
  o[15] = nv(f);
}
static void fcvt_ref(uint32_t ua, uint32_t ub, uint32_t o[12]) {
  int32_t y = (int32_t)ub;
  o[0] = nv_cvt(ua, false, FE_TOWARDZERO);
  o[1] = nv_cvt(ua, true, FE_TOWARDZERO);
  o[2] = nv_cvt(ua, false, FE_TONEAREST);
  o[3] = nv_cvt(ua, false, FE_DOWNWARD);
  o[4] = nv_cvt(ua, false, FE_UPWARD);
  o[5] = nv_cvt(ua, true, FE_TONEAREST);
  o[6] = nv_i2f(y, FE_TONEAREST);
  o[7] = nv_i2f(ub, FE_TONEAREST);
  o[8] = nv_i2f(y, FE_TOWARDZERO);
  o[9] = nv_i2f(ub, FE_DOWNWARD);
  o[10] = nv_i2f(y, FE_UPWARD);
  o[11] = nv(add_(fbits(nv_i2f((int16_t)ub, FE_TONEAREST)), 0.5f));
}

static uint32_t nv_div(float x, float y, int mode) {
  std::fesetround(mode);
  volatile float a = x, b = y, r = a / b;
  std::fesetround(FE_TONEAREST);
  return nv(r);
}
static uint32_t nv_sqrt(float x, int mode) {
  std::fesetround(mode);
  volatile float a = x, r = std::sqrt(a);
  std::fesetround(FE_TONEAREST);
  return nv(r);
}
static void fdiv_ref(uint32_t ua, uint32_t ub, uint32_t o[8]) {
  float x = fbits(ua), y = fbits(ub);
  o[0] = nv_div(x, y, FE_TONEAREST);
  o[1] = nv_sqrt(x, FE_TONEAREST);
  o[2] = nv_div(1.0f, x, FE_TONEAREST);
  o[3] = nv_div(x, y, FE_TOWARDZERO);
  o[4] = nv_div(x, y, FE_UPWARD);
  o[5] = nv_sqrt(x, FE_DOWNWARD);
  o[6] = nv_div(1.0f, y, FE_TOWARDZERO);
  o[7] = nv_sqrt(fbits(fnan(ub) ? 0x7FFFFFFFu : ub & 0x7FFFFFFFu), FE_UPWARD);
}

// fmath_f32: CUDA's math functions built on PTX's approximations. Their results are defined
// within error bounds, so each output is held to its bound in ulps of the exact answer (the
// host's libm in double precision): CUDA's programming guide gives 2 ulps for expf, exp2f,
// tanhf, erff, rsqrtf and __fdividef (for 2^-126 <= |y| <= 2^126; 0 above, where PTX's
// div.approx is a * (1/b) with the reciprocal flushed), 2 + floor(|1.173 x|) for __expf;
// the sigmoid 1 / (1 + expf(-x)) composes two roundings and expf's bound: 4. Where the exact
// answer is subnormal, a flushed zero also passes (expf's ex2.approx.ftz flushes).
// Returns the worst ratio of error to bound over the 8 words (<= 1 passes).
static double ulps_from(uint32_t got, double want) {
  float g = fbits(got);
  if (std::isnan(want) || std::isnan(g)) return std::isnan(want) && std::isnan(g) ? 0 : 1e9;
  float wf = (float)want;
  if (std::isinf(wf) || std::isinf(g)) return g == wf ? 0 : 1e9;
  int e;
  std::frexp(want, &e);
  double ulp = std::ldexp(1.0, std::max(e - 1, -126) - 23);
  return std::fabs((double)g - want) / ulp;
}
static float ftz(float v) { return std::fabs(v) < 0x1p-126f ? std::copysign(0.0f, v) : v; }
// fmath_fast_f32 (-use_fast_math): words 1, 2, 6, 7 are .ftz arithmetic and a compare, exact:
// their C++ reference bit for bit (the flushed words are -1 in *exact, compared by the caller);
// words 0, 3, 4, 5 within the fast forms' bounds (__expf's, __fdividef's, rsqrtf's 2, the
// sigmoid __expf's plus 2), where the divisor or rsqrt's operand is not subnormal (.ftz makes it 0)
static double fmath_fast_worst(uint32_t ua, uint32_t ub, const uint32_t *got, unsigned *which,
                               uint32_t exact[8]) {
  float fx = fbits(ua), fy = fbits(ub);
  volatile float x0 = ftz(fx), y0 = ftz(fy);
  volatile float p = x0 * y0, s = x0 + y0;
  exact[1] = nv(ftz(p));
  exact[2] = nv(ftz(std::fmaf(x0, y0, 1.0f)));
  exact[6] = nv(ftz(s));
  exact[7] = x0 < y0 ? ua : ub;
  exact[0] = exact[3] = exact[4] = exact[5] = 0xFFFFFFFFu;
  double x = x0, y = y0, ay = std::fabs(y);   // the inputs as .ftz sees them
  double e = 2 + std::floor(std::fabs(1.173 * x));
  double want[4] = {std::exp(x), x / y, 1.0 / std::sqrt(ay), 1.0 / (1.0 + std::exp(-x))};
  double bound[4] = {e, 2, 2, e + 2};
  const unsigned word[4] = {0, 3, 4, 5};
  double worst = 0;
  for (unsigned j = 0; j < 4; ++j) {
    if ((j == 1 || j == 2) && !(ay >= 0x1p-126 && ay <= 0x1p126)) continue;
    if (std::isnan(x) && j != 1 && j != 2) want[j] = NAN;
    double u = ulps_from(got[word[j]], want[j]);
    if (u > 0 && std::fabs(want[j]) < 0x1p-126 && fbits(got[word[j]]) == 0.0f) u = 0;   // flushed
    if (u / bound[j] > worst) {
      worst = u / bound[j];
      *which = word[j];
    }
  }
  return worst;
}
static double fmath_worst(uint32_t ua, uint32_t ub, const uint32_t *got, unsigned *which) {
  double x = fbits(ua), y = fbits(ub);
  double want[8] = {std::exp(x), std::exp2(x), std::tanh(x), 1.0 / (1.0 + std::exp(-x)),
                    1.0 / std::sqrt(std::fabs(y)), std::erf(x), x / y, std::exp(x)};
  double bound[8] = {2, 2, 2, 4, 2, 2, 2, 2 + std::floor(std::fabs(1.173 * x))};
  double worst = 0;
  for (unsigned k = 0; k < 8; ++k) {
    double ay = std::fabs(y);
    if (k == 6 && !(ay >= 0x1p-126 && ay <= 0x1p126)) {
      if (ay > 0x1p126 && !std::isinf(y))   // a * (1/b), the reciprocal flushed
        want[6] = std::isinf(x) || std::isnan(x) ? NAN : 0.0;
      else
        continue;                            // no bound for a subnormal divisor
    }
    double u = ulps_from(got[k], want[k]);
    if (u > 0 && std::fabs(want[k]) < 0x1p-126 && fbits(got[k]) == 0.0f) u = 0;   // flushed
    if (u / bound[k] > worst) {
      worst = u / bound[k];
      *which = k;
    }
  }
  return worst;
}

// A recording: "kernel NAME grid G block B", then sections "name count" + count hex words.
struct Recording {
  std::string kernel;
  unsigned grid = 0, block = 0;
  std::map<std::string, std::vector<uint32_t>> v;
};
static bool read_recording(const std::string &path, Recording *r) {
  std::ifstream f(path);
  if (!f) return false;
  std::string tok, line;
  std::vector<std::string> toks;
  while (std::getline(f, line)) {
    if (!line.empty() && line[0] == '#') continue;
    size_t p = 0;
    while (p < line.size()) {
      while (p < line.size() && isspace((unsigned char)line[p])) ++p;
      size_t e = p;
      while (e < line.size() && !isspace((unsigned char)line[e])) ++e;
      if (e > p) toks.push_back(line.substr(p, e - p));
      p = e;
    }
  }
  size_t i = 0;
  if (toks.size() < 6 || toks[0] != "kernel" || toks[2] != "grid" || toks[4] != "block") return false;
  r->kernel = toks[1];
  r->grid = std::stoul(toks[3]);
  r->block = std::stoul(toks[5]);
  for (i = 6; i + 1 < toks.size();) {
    std::string name = toks[i];
    size_t n = std::stoul(toks[i + 1]);
    i += 2;
    if (i + n > toks.size()) return false;
    std::vector<uint32_t> w(n);
    for (size_t k = 0; k < n; ++k) w[k] = (uint32_t)std::stoul(toks[i + k], nullptr, 16);
    r->v[name] = w;
    i += n;
  }
  return i == toks.size();
}

// fcmp_f32, fcvt_f32 (pairs), saxpy, reduce_f32 on the recording's inputs, or on inputs made
// here; results against the C++ reference and the recorded outputs
int test_ptx_f32(Bench &b, uint32_t entry, const std::string &kernel, const std::string &rec_path) {
  Recording rec;
  bool have = false;
  if (!rec_path.empty()) {
    have = read_recording(rec_path, &rec);
    CHECK(have, "cannot read the recording %s", rec_path.c_str());
    if (!have) return 1;
    CHECK(rec.kernel == kernel, "the recording is of %s, not %s", rec.kernel.c_str(), kernel.c_str());
  }
  const unsigned per_block = slots_of_model();
  std::mt19937 g(77);
  Launch l;
  l.args = kArgs;
  b.mem.map(kArgs, 64, false);
  std::vector<uint32_t> got, want;
  const char *what = kernel.c_str();
  // results within error bounds, not bits
  const bool fast = kernel == "fmath_fast_f32", bounded = kernel == "fmath_f32" || fast;
  if (kernel == "fcmp_f32" || kernel == "fcvt_f32" || kernel == "fdiv_f32" || bounded) {
    const unsigned per = kernel == "fcmp_f32" ? 16 : kernel == "fcvt_f32" ? 12 : 8;
    std::vector<uint32_t> a, bv;
    if (have) {
      a = rec.v["a"], bv = rec.v["b"];
    } else {
      for (size_t i = 0; i < kFloatEdges.size(); ++i)
        for (size_t j = 0; j < kFloatEdges.size(); j += 3)
          a.push_back(kFloatEdges[i]), bv.push_back(kFloatEdges[(i + j) % kFloatEdges.size()]);
      while (a.size() < 200) a.push_back(g()), bv.push_back(a.size() % 2 ? g() : g() >> 8);
      if (bounded)   // the functions' interesting range: |x| up to 2^7, both signs
        for (unsigned i = 0; i < 400; ++i) {
          std::uniform_real_distribution<float> d(-1.0f, 1.0f);
          a.push_back(ubits(std::ldexp(d(g), (int)(g() % 12) - 4)));
          bv.push_back(ubits(std::ldexp(d(g), (int)(g() % 40) - 20)));
        }
    }
    const unsigned n = a.size();
    b.mem.map(kBufA, 4 * n, false);
    b.mem.map(kBufB, 4 * n, false);
    b.mem.map(kBufC, 4 * per * n, true);
    b.mem.fill_words(kBufA, a);
    b.mem.fill_words(kBufB, bv);
    fill_args(b, {kBufA, kBufB, kBufC, n});
    l.grid[0] = have ? rec.grid : 2;
    l.block[0] = have ? rec.block : per_block;
    Result r = b.run(entry, l);
    CHECK(!r.fault, "unexpected fault va 0x%08x pc 0x%08x", r.fault_va, r.fault_pc);
    if (bounded) {
      double worst = 0;
      unsigned bad = 0, at = 0, wk = 0;
      for (unsigned i = 0; i < n; ++i) {
        uint32_t o[8];
        for (unsigned k = 0; k < 8; ++k) o[k] = b.mem.rd32(kBufC + 4 * (8 * i + k));
        unsigned k = 0;
        uint32_t ex[8];
        double w = fast ? fmath_fast_worst(a[i], bv[i], o, &k, ex) : fmath_worst(a[i], bv[i], o, &k);
        for (unsigned j = 0; fast && j < 8; ++j)
          if (ex[j] != 0xFFFFFFFFu && ex[j] != o[j]) {
            if (bad++ < 10)
              std::printf("%s: x %a y %a word %u = 0x%08x, the .ftz reference 0x%08x\n", what, fbits(a[i]),
                          fbits(bv[i]), j, o[j], ex[j]);
          }
        if (w > 1 && bad++ < 10)
          std::printf("%s: x %a y %a word %u = %a, %.2f times its bound off\n", what, fbits(a[i]),
                      fbits(bv[i]), k, fbits(o[k]), w);
        if (w > worst) worst = w, at = i, wk = k;
      }
      CHECK(bad == 0, "%u of %u pairs beyond a bound", bad, n);
      std::printf("%s: worst %.2f of its bound (word %u of pair %u)\n", what, worst, wk, at);
      if (have) {   // NVIDIA's: both within the bounds, so within twice a bound (4 ulps, 8 for the sigmoid)
        const std::vector<uint32_t> &o = rec.v["out"];
        CHECK(o.size() == 8 * n, "the recording has %zu outputs, the kernel wrote %u", o.size(), 8 * n);
        unsigned same = 0, bad_nv = 0;
        for (unsigned i = 0; i < n && o.size() == 8 * n; ++i)
          for (unsigned k = 0; k < 8; ++k) {
            uint32_t mine = b.mem.rd32(kBufC + 4 * (8 * i + k));
            same += mine == o[8 * i + k];
            double u = ulps_from(mine, (double)fbits(o[8 * i + k]));
            if (fast && (k == 1 || k == 2 || k == 6 || k == 7)) u = mine == o[8 * i + k] ? 0 : 1e9;
            const double tol = (fast ? k == 5 : k == 3) ? 8 : 4;   // the sigmoids: 8
            if (u > tol && !(fbits(o[8 * i + k]) == 0.0f && std::fabs(fbits(mine)) < 0x1p-126f) && bad_nv++ < 40)
              std::printf("%s: x %a y %a word %u = %a, NVIDIA's %a\n", what, fbits(a[i]), fbits(bv[i]), k,
                          fbits(mine), fbits(o[8 * i + k]));
          }
        CHECK(bad_nv == 0, "%u words further from NVIDIA's than twice their bound", bad_nv);
        std::printf("%s: %u of %u words bit for bit as NVIDIA's, the others within twice their bound\n",
                    what, same, 8 * n);
      }
      print_result(what, r, lanes_of_model());
      return 0;
    }
    for (unsigned i = 0; i < n; ++i) {
      uint32_t o[16];
      if (per == 16) fcmp_ref(a[i], bv[i], o);
      else if (per == 12) fcvt_ref(a[i], bv[i], o);
      else fdiv_ref(a[i], bv[i], o);
      for (unsigned k = 0; k < per; ++k) want.push_back(o[k]), got.push_back(b.mem.rd32(kBufC + 4 * (per * i + k)));
    }
    print_result(what, r, lanes_of_model());
  } else if (kernel == "saxpy") {
    std::vector<uint32_t> x, y, av;
    if (have) {
      x = rec.v["x"], y = rec.v["y"], av = rec.v["a"];
    } else {
      std::uniform_real_distribution<float> d(-100.0f, 100.0f);
      for (unsigned i = 0; i < 1000; ++i) x.push_back(ubits(d(g))), y.push_back(ubits(d(g)));
      av.push_back(ubits(-1.7f));
    }
    const unsigned n = x.size();
    b.mem.map(kBufA, 4 * n, false);
    b.mem.map(kBufB, 4 * n, true);
    b.mem.fill_words(kBufA, x);
    b.mem.fill_words(kBufB, y);
    fill_args(b, {av[0], kBufA, kBufB, n});
    l.grid[0] = have ? rec.grid : (n + per_block - 1) / per_block;
    l.block[0] = have ? rec.block : per_block;
    Result r = b.run(entry, l);
    CHECK(!r.fault, "unexpected fault va 0x%08x pc 0x%08x", r.fault_va, r.fault_pc);
    for (unsigned i = 0; i < n; ++i) {
      want.push_back(nv(std::fmaf(fbits(av[0]), fbits(x[i]), fbits(y[i]))));
      got.push_back(b.mem.rd32(kBufB + 4 * i));
    }
    print_result(what, r, lanes_of_model());
    std::printf("saxpy_n %u saxpy_cycles %llu saxpy_cycles_per_element %.3f\n", n,
                (unsigned long long)r.cycles, double(r.cycles) / n);
  } else if (kernel == "reduce_f32") {
    std::vector<uint32_t> x, wv;
    if (have) {
      x = rec.v["x"], wv = rec.v["w"];
    } else {
      std::uniform_real_distribution<float> d(-1.0f, 1.0f);
      for (unsigned i = 0; i < 1000; ++i) x.push_back(ubits(d(g)));
      wv.push_back(ubits(0.1f));
    }
    const unsigned n = x.size(), grid = have ? rec.grid : 4, block = have ? rec.block : per_block;
    b.mem.map(kBufA, 4 * n, false);
    b.mem.map(kBufC, 4 * grid, true);
    b.mem.fill_words(kBufA, x);
    fill_args(b, {kBufA, wv[0], kBufC, n});
    l.grid[0] = grid;
    l.block[0] = block;
    Result r = b.run(entry, l);
    CHECK(!r.fault, "unexpected fault va 0x%08x pc 0x%08x", r.fault_va, r.fault_pc);
    for (unsigned blk = 0; blk < grid; ++blk) {  // the kernel's order: slices, then the tree
      std::vector<float> part(block);
      for (unsigned t = 0; t < block; ++t) {
        float acc = 0.0f;
        for (unsigned i = blk * block + t; i < n; i += grid * block) acc = std::fmaf(fbits(x[i]), fbits(wv[0]), acc);
        part[t] = acc;
      }
      for (unsigned s2 = block / 2; s2 > 0; s2 >>= 1)
        for (unsigned t = 0; t < s2; ++t) part[t] = add_(part[t], part[t + s2]);
      want.push_back(nv(part[0]));
      got.push_back(b.mem.rd32(kBufC + 4 * blk));
    }
    print_result(what, r, lanes_of_model());
  } else {
    CHECK(false, "no f32 test for kernel %s", what);
    return 1;
  }
  unsigned bad = 0, bad_nv = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i] && bad++ < 10)
      std::printf("%s word %zu = 0x%08x, the C++ reference 0x%08x\n", what, i, got[i], want[i]);
  CHECK(bad == 0, "%u of %zu words differ from the C++ reference", bad, got.size());
  if (have) {
    const std::vector<uint32_t> &o = rec.v["out"];
    CHECK(o.size() == got.size(), "the recording has %zu outputs, the kernel wrote %zu", o.size(), got.size());
    for (size_t i = 0; i < got.size() && i < o.size(); ++i)
      if (got[i] != o[i] && bad_nv++ < 40)
        std::printf("%s word %zu = 0x%08x, NVIDIA's 0x%08x\n", what, i, got[i], o[i]);
    CHECK(bad_nv == 0, "%u of %zu words differ from NVIDIA's recording", bad_nv, got.size());
    std::printf("%s: %zu words compared with NVIDIA's recording, %u differ\n", what, got.size(), bad_nv);
  }
  return 0;
}

// fspin.c: the same recurrence here (fmaf for the fused steps; the kernel's `* 0.75f + x` is
// fmadd.s too, clang contracts it: -ffp-contract=on is its default for C)
static uint32_t fspin_ref(uint32_t i, uint32_t iters) {
  volatile float x = (float)i * 0.001f, y = 1.0f;
  for (uint32_t k = 0; k < iters; ++k) {
    x = std::fmaf(x, 0.999f, 0.25f);
    y = std::fmaf(std::fmaf(y, x, -0.5f), 0.75f, x);
  }
  return ubits(x + y);
}

int test_fspin(Bench &b, uint32_t entry) {
  const unsigned iters = 200, threads = slots_of_model();
  b.mem.map(kBufA, 4 * threads, true);
  b.mem.map(kArgs, 64, false);
  fill_args(b, {kBufA, iters});
  Launch l;
  l.args = kArgs;
  l.block[0] = threads;
  Result r = b.run(entry, l);
  CHECK(!r.fault, "unexpected fault va 0x%08x pc 0x%08x", r.fault_va, r.fault_pc);
  for (unsigned i = 0; i < threads; ++i)
    CHECK(b.mem.rd32(kBufA + 4 * i) == fspin_ref(i, iters), "out[%u] = 0x%08x, want 0x%08x", i,
          b.mem.rd32(kBufA + 4 * i), fspin_ref(i, iters));
  print_result("fspin", r, lanes_of_model());
  std::printf("f32_lane_ipc %.3f\n", double(r.lane_instrs) / (double(r.busy_cycles) * lanes_of_model()));
  return 0;
}

int test_oob(Bench &b, uint32_t entry, const Options &o) {
  // out[] has k words mapped before an unmapped page; the loop runs past it.
  const unsigned k = 37, n = 200;
  const uint32_t page_end = kBufA + 2 * kPage, out = page_end - 4 * k;
  b.mem.map(kBufA, 2 * kPage, true);  // the page after it stays unmapped
  b.mem.map(kBufB, 4 * n, true);
  for (uint32_t va = kBufA; va < page_end; va += 4) b.mem.wr32(va, 0xDEADBEEF);
  for (unsigned i = 0; i < n; ++i) b.mem.wr32(kBufB + 4 * i, 0);
  b.mem.map(kArgs, 64, false);
  fill_args(b, {out, kBufB, n});
  Launch l;
  l.args = kArgs;
  l.grid[0] = 2;
  l.block[0] = slots_of_model();
  Result r = b.run(entry, l);
  const unsigned threads = 2 * slots_of_model();
  CHECK(r.fault, "no fault reported");
  CHECK(r.fault_access == 1, "access %u, want 1 (write)", r.fault_access);
  CHECK(r.fault_reason == VMGPU_FAULT_PTE_INVALID, "reason %u", r.fault_reason);
  CHECK(r.fault_va >= page_end && r.fault_va < page_end + kPage && (r.fault_va & 3) == 0,
        "fault VA 0x%08x not in the unmapped page", r.fault_va);
  // the element and the thread that faulted
  // grid-stride over 2 blocks run one after the other: block 0 (threads t < slots, elements
  // i = t + it*threads) meets the unmapped page first
  unsigned fi = (r.fault_va - out) / 4;
  unsigned t = fi % threads;
  CHECK(t < slots_of_model(), "fault at element %u is block 1's, block 0 runs first", fi);
  CHECK(r.fault_lane == t % o.lanes && r.fault_warp == t / o.lanes,
        "fault at element %u names lane %u warp %u, want lane %u warp %u", fi, r.fault_lane,
        r.fault_warp, t % o.lanes, t / o.lanes);
  CHECK(fi >= k && fi < k + threads, "faulting element %u is not a thread's first past the map", fi);
  // the PC names a store of the kernel
  uint32_t inst = b.mem.rd32(r.fault_pc);
  CHECK((inst & 0x7F) == 0x23, "fault PC 0x%08x holds 0x%08x, not a store", r.fault_pc, inst);
  // precise: log[i] (stored after out[i]) only where out[i] was stored; the faulting thread's
  // earlier elements complete; lanes before the faulting lane in its warp stored theirs; the
  // faulting element's log not written; nothing outside the two arrays changed
  for (unsigned i = 0; i < n; ++i) {
    uint32_t lg = b.mem.rd32(kBufB + 4 * i);
    uint32_t ov = i < k ? b.mem.rd32(out + 4 * i) : 0;
    CHECK(lg == 0 || lg == 1, "log[%u] = %u", i, lg);
    if (lg) CHECK(i < k && ov == i + 1, "log[%u] set but out[%u] = 0x%08x", i, i, ov);
    if (i < k) CHECK(ov == 0xDEADBEEF || ov == i + 1, "out[%u] = 0x%08x", i, ov);
    if (i < fi && i % threads == fi % threads) {
      CHECK(ov == i + 1 && lg == 1, "faulting thread's earlier element %u: out 0x%08x log %u", i,
            ov, lg);
    }
    if (i + o.lanes > fi && i < fi && i < k && i / o.lanes == fi / o.lanes)
      CHECK(ov == i + 1, "lane before the faulting one, element %u, not stored", i);
  }
  CHECK(b.mem.rd32(kBufB + 4 * fi) == 0, "log of the faulting element written");
  for (uint32_t va = kBufA; va < out; va += 4)
    CHECK(b.mem.rd32(va) == 0xDEADBEEF, "word 0x%08x before out[] changed", va);
  std::printf("oob: fault va 0x%08x element %u lane %u warp %u pc 0x%08x after %llu cycles\n",
              r.fault_va, fi, r.fault_lane, r.fault_warp, r.fault_pc, (unsigned long long)r.cycles);
  // the unit recovers: a new launch of the same kernel with a fully mapped array completes
  b.mem.map(page_end, kPage, true);
  Result r2 = b.run(entry, l);
  CHECK(!r2.fault, "relaunch faulted at 0x%08x", r2.fault_va);
  for (unsigned i = 0; i < n; ++i)
    CHECK(b.mem.rd32(out + 4 * i) == i + 1, "relaunch: out[%u] = 0x%08x", i, b.mem.rd32(out + 4 * i));
  return 0;
}

uint32_t spin_ref(uint32_t i, uint32_t iters) {
  uint32_t x = i + 1, y = 0;
  for (uint32_t k = 0; k < iters; ++k) {
    x = x * 1664525u + 1013904223u;
    y += (x >> 7) ^ (y << 3);
  }
  return x ^ y;
}

int test_spin(Bench &b, uint32_t entry) {
  const unsigned iters = 400, threads = slots_of_model();
  b.mem.map(kBufA, 4 * threads, true);
  b.mem.map(kArgs, 64, false);
  fill_args(b, {kBufA, iters});
  Launch l;
  l.args = kArgs;
  l.block[0] = threads;
  Result r = b.run(entry, l);
  CHECK(!r.fault, "unexpected fault va 0x%08x pc 0x%08x", r.fault_va, r.fault_pc);
  for (unsigned i = 0; i < threads; ++i)
    CHECK(b.mem.rd32(kBufA + 4 * i) == spin_ref(i, iters), "out[%u] = 0x%08x, want 0x%08x", i,
          b.mem.rd32(kBufA + 4 * i), spin_ref(i, iters));
  print_result("spin", r, lanes_of_model());
  std::printf("kernel_lane_ipc %.3f\n", double(r.lane_instrs) / (double(r.busy_cycles) * lanes_of_model()));
  return 0;
}

// intops.cu: 16 results per pair, computed here the way the CUDA source says (C's int
// arithmetic wraps on the GPU: done here in uint32_t)
void intops_ref(uint32_t ux, uint32_t uy, uint32_t o[16]) {
  int32_t x = (int32_t)ux, y = (int32_t)uy;
  o[0] = (uint32_t)(x < y ? x : y);
  o[1] = ux > uy ? ux : uy;
  o[2] = (uint32_t)((int64_t(x) * int64_t(y)) >> 32);
  o[3] = (uint32_t)((uint64_t(ux) * uint64_t(uy)) >> 32);
  o[4] = x < y ? ux - uy : ux ^ uy;
  int32_t d = y == 0 ? 7 : y;
  o[5] = (x == INT32_MIN && d == -1) ? 0 : (uint32_t)(x / d);
  uint32_t ud = uy == 0 ? 9u : uy;
  o[6] = ux % ud;
  o[7] = (uint32_t)(x >> (uy & 31)) + (ux >> (uy & 31)) + (ux << (uy & 15));
  o[8] = (x < 0 ? 0u - ux : ux) ^ (0u - uy);
  o[9] = (ux <= uy) + 2u * (x >= y) + 4u * (x != y) + 8u * (ux > uy);
  o[10] = ux * uy + (ux & ~uy) - (ux | uy);
  o[11] = ux * (uint32_t)(int32_t)(int16_t)uy;
  o[12] = (uint32_t)(int32_t)(int8_t)ux + (uy & 0xFFFF);
  uint32_t acc = 0;
  for (uint32_t k = 0; k < (uy & 7); ++k) acc = acc * 31u + (ux >> k);
  o[13] = acc;
  o[14] = (uint32_t)(x > -5 ? x : -5) + (ux < 100u ? ux : 100u);
  o[15] = ((x > 0 && y > 0) || x < -100) ? 1u : 0xFFFFFFFFu;
}

int test_intops(Bench &b, uint32_t entry) {
  std::vector<uint32_t> a = {0, 1, 7, 0xFFFFFFF9u, 0x80000000u, 0x80000000u, 5, 0xFFFFFFFFu,
                             0x7FFFFFFFu, 0x80000000u, 123456789, 0xDEADBEEFu, 100, 0xFFFFFF00u,
                             0x7FFFFFFFu, 3};
  std::vector<uint32_t> bv = {0, 0, 2, 2, 0xFFFFFFFFu, 0, 0xFFFFFFF9u, 0xFFFFFFFFu, 0x7FFFFFFFu,
                              0x80000000u, 0xFFFFFF85u, 0x12345u, 0xFFFFFFFFu, 0x8001u,
                              0xFFFFFFFFu, 0x80000001u};
  std::mt19937 g(5);
  for (int i = 0; i < 40; ++i) a.push_back(i % 4 ? g() : g() % 300 - 150), bv.push_back(i % 3 ? g() : g() % 64);
  const unsigned n = a.size();
  Result r = run_pairs(b, entry, a, bv, 16);
  unsigned bad = 0;
  for (unsigned i = 0; i < n; ++i) {
    uint32_t want[16];
    intops_ref(a[i], bv[i], want);
    for (int k = 0; k < 16; ++k) {
      uint32_t got = b.mem.rd32(kBufC + 4 * (16 * i + k));
      if (got != want[k] && bad++ < 12)
        std::printf("intops o[%d](0x%08x, 0x%08x) = 0x%08x, want 0x%08x\n", k, a[i], bv[i], got, want[k]);
    }
  }
  CHECK(bad == 0, "%u wrong results of %u", bad, 16 * n);
  print_result("intops", r, lanes_of_model());
  return 0;
}

// atomics.cu (NVRTC's PTX, translated to AMOs and amocas.w): a histogram of in[i] & 15 in
// bins[0..15], the maximum in *top, and in bins[16..18] a CAS that only the first thread with a
// non-zero i wins, an exchange (the last thread's value stays) and a minimum. Two blocks.
int test_atomics(Bench &b, uint32_t entry) {
  CHECK(g_ptx_kernel && (g_ptx_kernel->flags & PTX_KERNEL_NEEDS_ATOMICS), "kernel not marked as needing atomics");
  const unsigned n = 2 * slots_of_model() - 3;  // the last warp partly idle
  std::vector<uint32_t> in(n);
  std::mt19937 g(9);
  for (unsigned i = 0; i < n; ++i) in[i] = g() % 1000;
  b.mem.map(kBufA, 4 * n, false);
  b.mem.fill_words(kBufA, in);
  b.mem.map(kBufB, 4 * 32, true);
  b.mem.map(kBufC, 4, true);
  for (unsigned i = 0; i < 32; ++i) b.mem.wr32(kBufB + 4 * i, 0);
  b.mem.wr32(kBufB + 4 * 18, 0xFFFFFFFFu);
  b.mem.wr32(kBufC, 0);
  b.mem.map(kArgs, 64, false);
  fill_args(b, {kBufA, kBufB, kBufC, n});
  Launch l;
  l.args = kArgs;
  l.grid[0] = 2;
  l.block[0] = slots_of_model();
  Result r = b.run(entry, l);
  CHECK(!r.fault, "unexpected fault va 0x%08x pc 0x%08x access %u reason %u", r.fault_va,
        r.fault_pc, r.fault_access, r.fault_reason);
  // the C++ reference of the same kernel
  uint32_t bins[16] = {}, top = 0, mn = 0xFFFFFFFFu;
  for (unsigned i = 0; i < n; ++i) {
    bins[in[i] & 15]++;
    top = std::max(top, in[i]);
    mn = std::min(mn, in[i]);
  }
  for (unsigned k = 0; k < 16; ++k)
    CHECK(b.mem.rd32(kBufB + 4 * k) == bins[k], "bins[%u] = %u, want %u", k, b.mem.rd32(kBufB + 4 * k), bins[k]);
  CHECK(b.mem.rd32(kBufC) == top, "top = %u, want %u", b.mem.rd32(kBufC), top);
  CHECK(b.mem.rd32(kBufB + 4 * 18) == mn, "min = %u, want %u", b.mem.rd32(kBufB + 4 * 18), mn);
  uint32_t cas = b.mem.rd32(kBufB + 4 * 16), ex = b.mem.rd32(kBufB + 4 * 17);
  CHECK(cas > 0 && cas < n, "CAS word %u: no thread with i > 0 won", cas);
  CHECK(std::find(in.begin(), in.end(), ex) != in.end(), "exchange word %u is nobody's value", ex);
  CHECK(r.amos == 5 * n, "%llu AMOs at the port, want %u (one per thread and atomic)",
        (unsigned long long)r.amos, 5 * n);
  for (unsigned k = 19; k < 32; ++k) CHECK(b.mem.rd32(kBufB + 4 * k) == 0, "bins[%u] changed", k);
  print_result("atomics", r, lanes_of_model());
  return 0;
}

// kernels/atomics.c (clang, rv32ima): every thread of every warp and block on the same words.
int test_clang_atomics(Bench &b, uint32_t entry) {
  const unsigned block = slots_of_model(), blocks = 3, threads = block * blocks, iters = 5;
  const unsigned total = threads * iters;
  const uint32_t counter = kBufA, tickets = kBufA + 4096, words = kBufB, swapold = kBufC;
  b.mem.map(counter, 4, true);
  b.mem.map(tickets, 4 * total, true);
  b.mem.map(words, 64, true);
  b.mem.map(swapold, 4 * threads, true);
  b.mem.wr32(counter, 0);
  for (unsigned i = 0; i < total; ++i) b.mem.wr32(tickets + 4 * i, 0xFFFFFFFFu);
  const uint32_t init[10] = {0, 0, 0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 0, 0xFFFFFFFFu, 0, 0, 0};
  for (unsigned k = 0; k < 10; ++k) b.mem.wr32(words + 4 * k, init[k]);
  b.mem.map(kArgs, 64, false);
  fill_args(b, {counter, tickets, words, swapold, iters});
  Launch l;
  l.args = kArgs;
  l.grid[0] = blocks;
  l.block[0] = block;
  Result r = b.run(entry, l);
  CHECK(!r.fault, "unexpected fault va 0x%08x pc 0x%08x access %u reason %u", r.fault_va,
        r.fault_pc, r.fault_access, r.fault_reason);
  CHECK(b.mem.rd32(counter) == total, "counter %u, want %u", b.mem.rd32(counter), total);
  // every ticket handed out once, each thread got iters of them
  std::vector<unsigned> per(threads, 0);
  unsigned bad = 0;
  for (unsigned i = 0; i < total; ++i) {
    uint32_t t = b.mem.rd32(tickets + 4 * i);
    if (t >= threads) {
      if (bad++ < 5) std::printf("ticket %u taken by nobody (0x%08x)\n", i, t);
    } else {
      ++per[t];
    }
  }
  for (unsigned t = 0; t < threads; ++t)
    if (per[t] != iters && bad++ < 10) std::printf("thread %u got %u tickets, want %u\n", t, per[t], iters);
  CHECK(bad == 0, "%u ticket errors: the amoadd was not atomic", bad);
  uint32_t x = 0, o = 0, a = 0xFFFFFFFFu, uM = 0, um = 0xFFFFFFFFu;
  int32_t sM = INT32_MIN, sm = INT32_MAX;
  for (unsigned g = 0; g < threads; ++g) {
    uint32_t h = g * 2654435761u;
    x ^= h;
    o |= 1u << (g & 31);
    a &= ~(1u << (g & 31));
    sM = std::max(sM, (int32_t)h);
    sm = std::min(sm, (int32_t)h);
    uM = std::max(uM, h);
    um = std::min(um, h);
  }
  const uint32_t want[7] = {x, o, a, (uint32_t)sM, (uint32_t)sm, uM, um};
  static const char *nm[7] = {"xor", "or", "and", "max", "min", "maxu", "minu"};
  for (unsigned k = 0; k < 7; ++k)
    CHECK(b.mem.rd32(words + 4 * k) == want[k], "amo%s word 0x%08x, want 0x%08x", nm[k],
          b.mem.rd32(words + 4 * k), want[k]);
  // the swap chain: the old values and the last value are 0 and every g + 1, once each
  std::vector<unsigned> seen(threads + 1, 0);
  seen[b.mem.rd32(words + 28) <= threads ? b.mem.rd32(words + 28) : 0] += 100;
  for (unsigned g = 0; g < threads; ++g) {
    uint32_t v = b.mem.rd32(swapold + 4 * g);
    CHECK(v <= threads, "swap old value %u", v);
    if (v <= threads) ++seen[v];
  }
  for (unsigned v = 0; v <= threads; ++v)
    CHECK(seen[v] == 1 || seen[v] == 100, "swap value %u seen %u times", v, seen[v]);
  CHECK(b.mem.rd32(words + 32) == total, "shared counters sum %u, want %u", b.mem.rd32(words + 32), total);
  CHECK(b.mem.rd32(words + 36) == total, "amocas counter %u, want %u", b.mem.rd32(words + 36), total);
  print_result("atomics_clang", r, lanes_of_model());
  std::printf("atomics: %llu AMOs at the port\n", (unsigned long long)r.amos);
  return 0;
}

constexpr uint32_t kCodeBase = 0x10000u;

// Translates a PTX file (one kernel) and maps its code read-only at kCodeBase.
bool load_ptx(const std::string &path, unsigned max_regs, bool femu, Memory &mem, ptx_module **mod,
              uint32_t *entry) {
  std::ifstream f(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (text.empty()) {
    std::printf("cannot read %s\n", path.c_str());
    return false;
  }
  ptx_error err;
  ptx_options opt = {};
  opt.max_regs = max_regs;
  opt.emulate_f = femu;
  opt.stack_limit = 1u << kStackLog2;
  ptx_status st = ptx_translate(text.data(), text.size(), &opt, mod, &err);
  if (st != PTX_OK) {
    std::printf("%s: %s at line %d (%s): %s\n", path.c_str(), ptx_status_name(st), err.line,
                err.instr, err.message);
    return false;
  }
  if ((*mod)->num_kernels != 1) {
    std::printf("%s: %u kernels, the test wants one\n", path.c_str(), (*mod)->num_kernels);
    return false;
  }
  const ptx_kernel *k = &(*mod)->kernels[0];
  std::printf("ptx %s: %u bytes of code, %u parameters (%u bytes), shared %u, stack %u, "
              "%u registers (%u spilled)\n", k->name, k->code_bytes, k->num_params, k->param_bytes,
              k->shared_bytes, k->stack_bytes, k->num_vregs, k->num_spilled);
  if (k->stack_bytes > (1u << kStackLog2) || k->shared_bytes > 4096 || k->param_bytes > 64) {
    std::printf("kernel %s does not fit the bench (stack, shared memory or arguments)\n", k->name);
    return false;
  }
  mem.map(kCodeBase, (*mod)->code_bytes, false);
  mem.write(kCodeBase, (*mod)->code, (*mod)->code_bytes);
  g_ptx_kernel = k;
  *entry = kCodeBase + k->entry;
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  Verilated::commandArgs(argc, argv);
  if (argc < 3) {
    std::printf("usage: %s vadd|vadd_big|collatz|reduce|index2d|muldiv|oob|spin|atomics kernel.elf "
                "[--latency N] [--backpressure]\n"
                "       %s ptx_vadd|ptx_vadd_gs|ptx_collatz|ptx_reduce|ptx_index2d|ptx_oob|ptx_spin|"
                "ptx_intops|ptx_atomics kernel.ptx [--latency N] [--backpressure] [--max-regs N] [--femu]\n", argv[0], argv[0]);
    return 2;
  }
  std::string test = argv[1], elf = argv[2];
  Options o;
  for (int i = 3; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--latency" && i + 1 < argc) o.latency = std::atoi(argv[++i]);
    else if (a == "--backpressure") o.backpressure = true;
    else if (a == "--max-regs" && i + 1 < argc) o.max_regs = std::atoi(argv[++i]);
    else if (a == "--nvidia" && i + 1 < argc) o.nvidia = argv[++i];
    else if (a == "--femu") o.femu = true;
  }
  o.lanes = lanes_of_model();
  o.warps = slots_of_model() / o.lanes;
  Bench b(o);
  ElfImage img;
  ptx_module *mod = nullptr;
  if (test.compare(0, 4, "ptx_") == 0) {
    test = test.substr(4);
    if (!load_ptx(elf, o.max_regs, o.femu, b.mem, &mod, &img.entry)) return 1;
    if (o.femu) {  // every f32 kernel emulated: no F word left for the unit to execute
      CHECK(ptx_femu_available(), "--femu: this build has no F emulation (clang-14)");
      CHECK((mod->kernels[0].flags & (PTX_KERNEL_FEMU | PTX_KERNEL_NEEDS_F)) == PTX_KERNEL_FEMU,
            "--femu: kernel flags 0x%x", mod->kernels[0].flags);
    }
    if (o.max_regs) CHECK(mod->kernels[0].num_spilled > 0, "--max-regs %u spilled nothing", o.max_regs);
    img.ok = true;
  } else {
    img = load_elf(elf, b.mem);
  }
  if (!img.ok) return 2;
  std::printf("simt %s: LANES %d WARPS %d latency %u%s\n", test.c_str(), o.lanes, o.warps,
              o.latency, o.backpressure ? " backpressure" : "");
  const unsigned per_block = slots_of_model();
  if (test == "vadd" && mod) test_vadd(b, img.entry, 1000, (1000 + per_block - 1) / per_block);
  else if (test == "vadd" || test == "vadd_gs") test_vadd(b, img.entry, 1000, 3);
  else if (test == "intops") test_intops(b, img.entry);
  else if (test == "atomics" && mod) test_atomics(b, img.entry);
  else if (test == "atomics") test_clang_atomics(b, img.entry);
  else if (test == "vadd_big") test_vadd(b, img.entry, 4096, 4);
  else if (test == "collatz") test_collatz(b, img.entry);
  else if (test == "reduce") test_reduce(b, img.entry);
  else if (test == "index2d") test_index2d(b, img.entry);
  else if (test == "muldiv") test_muldiv(b, img.entry);
  else if (test == "oob") test_oob(b, img.entry, o);
  else if (test == "spin") test_spin(b, img.entry);
  else if (test == "fops") test_fops(b, img.entry);
  else if (test == "fspin") test_fspin(b, img.entry);
  else if (test == "saxpy" && !mod) test_saxpy(b, img.entry, false);
  else if (mod && (test == "saxpy" || test == "reduce_f32" || test == "fcmp_f32" || test == "fcvt_f32" ||
                   test == "fdiv_f32" || test == "fmath_f32" || test == "fmath_fast_f32"))
    test_ptx_f32(b, img.entry, test, o.nvidia);
  else {
    std::printf("unknown test %s\n", test.c_str());
    return 2;
  }
  int rc = tb::summary(((mod ? "simt_ptx_" : "simt_") + test).c_str());
  ptx_module_free(mod);
  return rc;
}
