// Testbench of compute_engine. The C++ side models the MMU translation port (a page map the test
// controls: frames, host aperture, permissions, forced fault reasons) and the memory fabric
// (sparse device and host memories, device reads answering a cycle after acceptance, host reads
// later, random back-pressure). Every case is also run by a sequential C++ reference (read a[i],
// read b[i], write dst[i], faults precise in that order); the test compares every word either
// memory holds, every destination word plus guard words, the fault report, the translation count
// and the handshake rules.
//
// One executable, one ctest per mode: kernels, faults, backpressure, throughput.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "Vcompute_engine.h"
#include "tb_check.h"
#include "verilated.h"
#include "vmgpu/regs.h"

namespace {

enum : uint8_t { K_FILL = 0, K_COPY, K_ADD, K_SCALE, K_AXPY, K_REDUCE };
const char *kname(unsigned k) {
  static const char *n[] = {"FILL", "COPY", "ADD", "SCALE", "AXPY", "REDUCE_SUM"};
  return k < 6 ? n[k] : "BAD";
}

struct Pte {
  uint32_t frame = 0;
  bool host = false, r = true, w = true;
  uint8_t force = 0;  // nonzero: every translation of this page faults with this reason
};

using Mem = std::unordered_map<uint32_t, uint32_t>;  // word index -> value

// Words never written read as a pattern of their address, different for the two apertures.
uint32_t mem_read(const Mem &m, uint32_t addr, bool host) {
  auto it = m.find(addr >> 2);
  if (it != m.end()) return it->second;
  uint32_t x = (addr >> 2) * 2654435761u ^ (host ? 0x5a5a0000u : 0x0000a5a5u);
  return x;
}

struct World {
  std::map<uint32_t, Pte> pages;  // vpn -> pte
  Mem dev, host;
  uint32_t next_dev_frame = 0x100, next_host_frame = 0x40;

  // Maps every page [va, va+bytes) touches that is not mapped yet, to scattered frames so a
  // stream that forgets to translate a new page lands in the wrong place.
  void map(uint32_t va, uint32_t bytes, bool host_ap, bool r, bool w) {
    if (bytes == 0) bytes = 4;
    uint32_t first = va >> 12, last = (uint32_t)((uint64_t(va) + bytes - 1) >> 12);
    for (uint32_t p = first; p <= last; ++p) {
      if (pages.count(p)) continue;
      Pte e;
      e.host = host_ap;
      e.r = r;
      e.w = w;
      if (host_ap) { e.frame = next_host_frame; next_host_frame += 5; }
      else { e.frame = next_dev_frame; next_dev_frame += 3; }
      pages[p] = e;
    }
  }
  // Translation rule of the model MMU; returns a FAULT_* code (0 = ok).
  uint8_t translate(uint32_t va, bool write, uint32_t *pa, bool *h) const {
    auto it = pages.find(va >> 12);
    if (it == pages.end()) return VMGPU_FAULT_PTE_INVALID;
    const Pte &e = it->second;
    if (e.force) return e.force;
    if (!write && !e.r) return VMGPU_FAULT_READ_DENIED;
    if (write && !e.w) return VMGPU_FAULT_WRITE_DENIED;
    *pa = (e.frame << 12) | (va & 0xfff);
    *h = e.host;
    return 0;
  }
  // Backdoor access by VA ignoring permissions (test set-up and checks).
  bool phys(uint32_t va, uint32_t *pa, bool *h) const {
    auto it = pages.find(va >> 12);
    if (it == pages.end()) return false;
    *pa = (it->second.frame << 12) | (va & 0xfff);
    *h = it->second.host;
    return true;
  }
  void poke(uint32_t va, uint32_t v) {
    uint32_t pa; bool h;
    if (!phys(va, &pa, &h)) { std::printf("test bug: poke unmapped %08x\n", va); std::exit(2); }
    (h ? host : dev)[pa >> 2] = v;
  }
  bool peek(uint32_t va, uint32_t *v) const {
    uint32_t pa; bool h;
    if (!phys(va, &pa, &h)) return false;
    *v = mem_read(h ? host : dev, pa, h);
    return true;
  }
};

struct Result {
  bool fault = false;
  uint32_t va = 0;
  bool write = false;
  uint8_t reason = 0;
};

// Sequential reference: the kernel one element at a time, faults precise.
Result reference(World &w, uint8_t kernel, uint32_t args_va) {
  Result r;
  auto fail = [&](uint32_t va, bool wr, uint8_t reason) {
    r.fault = true; r.va = va; r.write = wr; r.reason = reason;
    return r;
  };
  auto rd = [&](uint32_t va, uint32_t *v) -> uint8_t {
    uint32_t pa; bool h;
    uint8_t f = w.translate(va, false, &pa, &h);
    if (!f) *v = mem_read(h ? w.host : w.dev, pa, h);
    return f;
  };
  auto wr = [&](uint32_t va, uint32_t v) -> uint8_t {
    uint32_t pa; bool h;
    uint8_t f = w.translate(va, true, &pa, &h);
    if (!f) (h ? w.host : w.dev)[pa >> 2] = v;
    return f;
  };
  if (kernel > K_REDUCE) return fail(args_va, false, VMGPU_FAULT_BAD_COMMAND);
  if (args_va & 3) return fail(args_va, false, VMGPU_FAULT_MISALIGNED);
  uint32_t arg[5];
  for (int i = 0; i < 5; ++i)
    if (uint8_t f = rd(args_va + 4 * i, &arg[i])) return fail(args_va + 4 * i, false, f);
  uint32_t dst = arg[0], a = arg[1], b = arg[2], n = arg[3], s = arg[4];
  bool uses_a = kernel != K_FILL, uses_b = kernel == K_ADD || kernel == K_AXPY;
  if (dst & 3) return fail(dst, true, VMGPU_FAULT_MISALIGNED);
  if (uses_a && (a & 3)) return fail(a, false, VMGPU_FAULT_MISALIGNED);
  if (uses_b && (b & 3)) return fail(b, false, VMGPU_FAULT_MISALIGNED);
  if (kernel == K_REDUCE) {
    uint32_t sum = 0, v;
    for (uint32_t i = 0; i < n; ++i) {
      if (uint8_t f = rd(a + 4 * i, &v)) return fail(a + 4 * i, false, f);
      sum += v;
    }
    if (uint8_t f = wr(dst, sum)) return fail(dst, true, f);
    return r;
  }
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t va = 0, vb = 0, out = 0;
    if (uses_a)
      if (uint8_t f = rd(a + 4 * i, &va)) return fail(a + 4 * i, false, f);
    if (uses_b)
      if (uint8_t f = rd(b + 4 * i, &vb)) return fail(b + 4 * i, false, f);
    switch (kernel) {
      case K_FILL: out = s; break;
      case K_COPY: out = va; break;
      case K_ADD: out = va + vb; break;
      case K_SCALE: out = s * va; break;
      case K_AXPY: out = s * va + vb; break;
    }
    if (uint8_t f = wr(dst + 4 * i, out)) return fail(dst + 4 * i, true, f);
  }
  return r;
}

uint32_t pages_spanned(uint32_t va, uint64_t bytes) {
  if (bytes == 0) return 0;
  return (uint32_t)(((uint64_t(va) + bytes - 1) >> 12) - (va >> 12) + 1);
}

struct Timing {
  int rd_ready_pct = 100, wr_ready_pct = 100, tr_ready_pct = 100;
  int tr_lat_min = 1, tr_lat_max = 1;
  int host_lat_min = 4, host_lat_max = 4;
};

struct Case {
  std::string label;
  uint8_t kernel = K_COPY;
  uint32_t args_va = 0, dst = 0, a = 0, b = 0, n = 0, scalar = 0;
  bool args_host = false, dst_host = false, a_host = false, b_host = false;
  // Faults to plant after the normal mapping: page VA -> forced reason / permissions.
  std::vector<std::pair<uint32_t, Pte>> overrides;
  std::vector<uint32_t> unmap;  // pages (by VA) to remove
  bool map_args = true;
  bool dst_rw = false;          // dst pages also readable (aliasing)
};

class Bench {
 public:
  Bench(uint32_t seed) : rng_(seed) {
    ctx_.reset(new VerilatedContext);
    m_.reset(new Vcompute_engine(ctx_.get()));
    m_->clk_i = 0;
    m_->rst_ni = 0;
    m_->start_i = 0;
    for (int i = 0; i < 4; ++i) step_raw();
    m_->rst_ni = 1;
    step_raw();
  }
  Timing timing;
  bool quiet = false;
  uint64_t last_cycles = 0;

  // Builds the world of a case, runs it on the model and the reference, compares.
  void run(const Case &c) {
    World w;
    build(w, c);
    World ref = w;
    Result exp = reference(ref, c.kernel, c.args_va);
    world_ = &w;
    int fails_before = tb::failures();
    Result got;
    uint64_t cycles = 0;
    bool ok = execute(c, &got, &cycles);
    last_cycles = cycles;
    CHECK(ok, "[%s] done within the cycle bound", c.label.c_str());
    if (!ok) { world_ = nullptr; return; }
    CHECK(got.fault == exp.fault, "[%s] fault %d, expected %d", c.label.c_str(), got.fault, exp.fault);
    if (exp.fault && got.fault) {
      CHECK(got.va == exp.va, "[%s] fault va %08x, expected %08x", c.label.c_str(), got.va, exp.va);
      CHECK(got.write == exp.write, "[%s] fault write %d, expected %d", c.label.c_str(), got.write, exp.write);
      CHECK(got.reason == exp.reason, "[%s] fault reason %u, expected %u", c.label.c_str(), got.reason, exp.reason);
    }
    // Every destination word (plus guards) compared by VA...
    uint32_t nd = c.kernel == K_REDUCE ? 1 : c.n;
    if (nd > 8192) nd = 8192;
    int bad = 0;
    for (int64_t i = -3; i < int64_t(nd) + 3; ++i) {
      uint32_t va = c.dst + uint32_t(4 * i), gv = 0, ev = 0;
      bool gm = w.peek(va, &gv), em = ref.peek(va, &ev);
      if (gm != em || gv != ev) {
        if (bad++ < 5)
          CHECK(false, "[%s] dst word %lld at va %08x: %08x, expected %08x", c.label.c_str(),
                (long long)i, va, gv, ev);
      } else {
        ++tb::checks();
      }
    }
    CHECK(bad == 0, "[%s] %d destination/guard words differ", c.label.c_str(), bad);
    // ...and every word of both memories, so a stray write anywhere shows.
    CHECK(w.dev == ref.dev, "[%s] device memory differs from the reference", c.label.c_str());
    CHECK(w.host == ref.host, "[%s] host memory differs from the reference", c.label.c_str());
    if (!exp.fault) {
      bool ua = c.kernel != K_FILL, ub = c.kernel == K_ADD || c.kernel == K_AXPY;
      uint32_t want = pages_spanned(c.args_va, 20);
      if (ua) want += pages_spanned(c.a, 4ull * c.n);
      if (ub) want += pages_spanned(c.b, 4ull * c.n);
      want += c.kernel == K_REDUCE ? 1 : pages_spanned(c.dst, 4ull * c.n);
      CHECK(translations_ == want, "[%s] %u translations, expected %u (one per stream page)",
            c.label.c_str(), translations_, want);
      uint64_t want_rd = 5 + uint64_t(c.n) * ((ua ? 1 : 0) + (ub ? 1 : 0));
      uint64_t want_wr = c.kernel == K_REDUCE ? 1 : c.n;
      CHECK(reads_ == want_rd && writes_ == want_wr,
            "[%s] %llu reads, %llu writes; expected %llu, %llu", c.label.c_str(),
            (unsigned long long)reads_, (unsigned long long)writes_,
            (unsigned long long)want_rd, (unsigned long long)want_wr);
    } else if (exp.reason == VMGPU_FAULT_BAD_COMMAND ||
               (exp.reason == VMGPU_FAULT_MISALIGNED && exp.va == c.args_va)) {
      CHECK(translations_ == 0 && reads_ == 0 && writes_ == 0,
            "[%s] rejected before any access, yet %u translations, %llu reads, %llu writes",
            c.label.c_str(), translations_, (unsigned long long)reads_, (unsigned long long)writes_);
    } else if (exp.reason == VMGPU_FAULT_MISALIGNED) {
      CHECK(reads_ == 5 && writes_ == 0 && translations_ == pages_spanned(c.args_va, 20),
            "[%s] misaligned pointer: only the argument block may be read (%u tr, %llu rd, %llu wr)",
            c.label.c_str(), translations_, (unsigned long long)reads_, (unsigned long long)writes_);
    }
    CHECK(proto_errors_ == 0, "[%s] %d handshake/protocol errors (first: %s)", c.label.c_str(),
          proto_errors_, first_proto_.c_str());
    if (!quiet || tb::failures() != fails_before)
      std::printf("%s %-40s kernel %-10s n %6u cycles %7llu %s\n",
                  tb::failures() == fails_before ? "ok  " : "FAIL", c.label.c_str(), kname(c.kernel),
                  c.n, (unsigned long long)cycles,
                  exp.fault ? ("fault " + std::to_string(exp.reason)).c_str() : "");
    world_ = nullptr;
  }

 private:
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vcompute_engine> m_;
  std::mt19937 rng_;
  World *world_ = nullptr;
  uint64_t cycle_ = 0;
  int proto_errors_ = 0;
  std::string first_proto_;
  unsigned translations_ = 0;
  uint64_t reads_ = 0, writes_ = 0;

  // model state
  struct RdRsp { uint64_t at; uint32_t data; };
  std::deque<RdRsp> rdq_;
  bool tr_busy_ = false;
  uint64_t tr_at_ = 0;
  uint32_t tr_pa_ = 0;
  bool tr_host_ = false;
  uint8_t tr_fault_ = 0;
  // previous-cycle handshake state for the hold rules
  bool prev_rd_stall_ = false, prev_wr_stall_ = false, prev_tr_stall_ = false;
  uint32_t prev_rd_addr_ = 0, prev_wr_addr_ = 0, prev_wr_data_ = 0, prev_tr_va_ = 0;
  bool prev_rd_host_ = false, prev_wr_host_ = false, prev_tr_write_ = false;

  void proto(const std::string &what) {
    if (proto_errors_++ == 0) first_proto_ = what + " at cycle " + std::to_string(cycle_);
  }
  bool pct(int p) { return p >= 100 || int(rng_() % 100) < p; }
  int between(int lo, int hi) { return lo + int(rng_() % unsigned(hi - lo + 1)); }

  void step_raw() {
    m_->clk_i = 1;
    m_->eval();
    m_->clk_i = 0;
    m_->eval();
    ++cycle_;
  }

  void build(World &w, const Case &c) {
    bool ua = c.kernel != K_FILL, ub = c.kernel == K_ADD || c.kernel == K_AXPY;
    uint64_t bytes = 4ull * (c.n ? c.n : 1);
    if (c.map_args) {
      w.map(c.args_va & ~3u, 24, c.args_host, true, false);
    }
    // dst and its guard words; mapped first so aliasing keeps its permissions.
    w.map((c.dst & ~3u) - 12, uint32_t(bytes + 24), c.dst_host, c.dst_rw, true);
    if (ua) w.map((c.a & ~3u) - 12, uint32_t(bytes + 24), c.a_host, true, false);
    if (ub) w.map((c.b & ~3u) - 12, uint32_t(bytes + 24), c.b_host, true, false);
    // Contents: args, operands, guards around dst.
    if (c.map_args) {
      uint32_t args[5] = {c.dst, c.a, c.b, c.n, c.scalar};
      for (int i = 0; i < 5; ++i) w.poke((c.args_va & ~3u) + 4 * i, args[i]);
    }
    for (int i = -3; i < 3; ++i) {
      w.poke((c.dst & ~3u) + 4 * i, rng_());
      w.poke((c.dst & ~3u) + uint32_t(bytes) + 4 * i, rng_());
    }
    uint32_t lim = c.n > 8192 ? 8192 : c.n;
    for (uint32_t i = 0; i < lim; ++i) {
      if (ua) w.poke((c.a & ~3u) + 4 * i, rng_());
      if (ub) w.poke((c.b & ~3u) + 4 * i, rng_());
    }
    for (auto &o : c.overrides) {
      Pte e = w.pages.count(o.first >> 12) ? w.pages[o.first >> 12] : Pte();
      e.r = o.second.r; e.w = o.second.w; e.force = o.second.force;
      w.pages[o.first >> 12] = e;
    }
    for (uint32_t va : c.unmap) w.pages.erase(va >> 12);
  }

  // Drives one start and clocks until done; returns false on the cycle bound.
  bool execute(const Case &c, Result *res, uint64_t *cycles) {
    proto_errors_ = 0;
    first_proto_.clear();
    translations_ = 0;
    reads_ = writes_ = 0;
    rdq_.clear();
    tr_busy_ = false;
    prev_rd_stall_ = prev_wr_stall_ = prev_tr_stall_ = false;
    // a few idle cycles between cases, random under back-pressure
    int idle = timing.rd_ready_pct < 100 ? between(0, 3) : 1;
    for (int i = 0; i < idle; ++i) cycle(false, c);
    if (m_->busy_o) proto("busy before start");
    m_->start_i = 1;
    m_->kernel_i = c.kernel;
    m_->args_va_i = c.args_va;
    cycle(true, c);
    m_->start_i = 0;
    uint64_t start = cycle_;
    int slow = 1;
    if (timing.rd_ready_pct < 100 || timing.wr_ready_pct < 100 || timing.tr_lat_max > 1) slow = 12;
    uint64_t bound = 200 + uint64_t(c.n > 8192 ? 8192 : c.n) * 4 * slow + 4000ull * slow;
    bool done = false;
    while (cycle_ - start < bound) {
      if (!m_->busy_o) { proto("busy_o low before done"); }
      bool d = m_->done_o;
      if (d) {
        res->fault = m_->fault_o;
        res->va = m_->fault_va_o;
        res->write = m_->fault_write_o;
        res->reason = m_->fault_reason_o;
        *cycles = cycle_ - start + 1;
        if (!rdq_.empty()) proto("done with read responses still owed");
        if (tr_busy_) proto("done with a translation in flight");
        cycle(false, c);
        done = true;
        break;
      }
      cycle(false, c);
    }
    if (!done) return false;
    // After done: nothing more may be issued.
    for (int i = 0; i < 8; ++i) {
      if (m_->busy_o || m_->done_o) proto("busy/done after done");
      if (m_->mem_rd_valid_o || m_->mem_wr_valid_o || m_->tr_req_valid_o) proto("request after done");
      cycle(false, c);
    }
    return true;
  }

  // One clock: drive the model's inputs, apply handshakes, clock.
  void cycle(bool starting, const Case &) {
    World &w = *world_;
    (void)starting;
    m_->tr_req_ready_i = !tr_busy_ && pct(timing.tr_ready_pct);
    bool tr_rsp = tr_busy_ && tr_at_ == cycle_;
    m_->tr_rsp_valid_i = tr_rsp;
    m_->tr_rsp_pa_i = tr_rsp ? tr_pa_ : rng_();
    m_->tr_rsp_host_i = tr_rsp ? tr_host_ : (rng_() & 1);
    m_->tr_rsp_fault_i = tr_rsp ? tr_fault_ != 0 : (rng_() & 1);
    m_->tr_rsp_reason_i = tr_rsp ? tr_fault_ : (rng_() & 15);
    m_->mem_rd_ready_i = pct(timing.rd_ready_pct);
    m_->mem_wr_ready_i = pct(timing.wr_ready_pct);
    bool rsp = !rdq_.empty() && rdq_.front().at == cycle_;
    m_->mem_rsp_valid_i = rsp;
    m_->mem_rsp_data_i = rsp ? rdq_.front().data : rng_();
    m_->eval();

    // hold rules: valid and payload stay until the transfer
    if (prev_rd_stall_ && (!m_->mem_rd_valid_o || m_->mem_rd_addr_o != prev_rd_addr_ ||
                           bool(m_->mem_rd_host_o) != prev_rd_host_))
      proto("read request changed before acceptance");
    if (prev_wr_stall_ && (!m_->mem_wr_valid_o || m_->mem_wr_addr_o != prev_wr_addr_ ||
                           m_->mem_wr_data_o != prev_wr_data_ || bool(m_->mem_wr_host_o) != prev_wr_host_))
      proto("write request changed before acceptance");
    if (prev_tr_stall_ && (!m_->tr_req_valid_o || m_->tr_req_va_o != prev_tr_va_ ||
                           bool(m_->tr_req_write_o) != prev_tr_write_))
      proto("translation request changed before acceptance");

    if (rsp) rdq_.pop_front();
    if (tr_rsp) tr_busy_ = false;
    // reads sample memory before this cycle's write lands
    if (m_->mem_rd_valid_o && m_->mem_rd_ready_i) {
      uint32_t addr = m_->mem_rd_addr_o;
      bool h = m_->mem_rd_host_o;
      if (addr & 3) proto("unaligned read address");
      uint64_t at = cycle_ + (h ? between(timing.host_lat_min, timing.host_lat_max) : 1);
      if (!rdq_.empty() && rdq_.back().at >= at) at = rdq_.back().at + 1;
      rdq_.push_back({at, mem_read(h ? w.host : w.dev, addr, h)});
      ++reads_;
    }
    if (m_->mem_wr_valid_o && m_->mem_wr_ready_i) {
      if (m_->mem_wr_be_o != 0xf) proto("partial byte enable");
      if (m_->mem_wr_addr_o & 3) proto("unaligned write address");
      (m_->mem_wr_host_o ? w.host : w.dev)[m_->mem_wr_addr_o >> 2] = m_->mem_wr_data_o;
      ++writes_;
    }
    if (m_->tr_req_valid_o && m_->tr_req_ready_i) {
      ++translations_;
      tr_busy_ = true;
      tr_at_ = cycle_ + between(timing.tr_lat_min, timing.tr_lat_max);
      tr_pa_ = 0;
      tr_host_ = false;
      tr_fault_ = w.translate(m_->tr_req_va_o, m_->tr_req_write_o, &tr_pa_, &tr_host_);
    }
    prev_rd_stall_ = m_->mem_rd_valid_o && !m_->mem_rd_ready_i;
    prev_rd_addr_ = m_->mem_rd_addr_o;
    prev_rd_host_ = m_->mem_rd_host_o;
    prev_wr_stall_ = m_->mem_wr_valid_o && !m_->mem_wr_ready_i;
    prev_wr_addr_ = m_->mem_wr_addr_o;
    prev_wr_data_ = m_->mem_wr_data_o;
    prev_wr_host_ = m_->mem_wr_host_o;
    prev_tr_stall_ = m_->tr_req_valid_o && !m_->tr_req_ready_i;
    prev_tr_va_ = m_->tr_req_va_o;
    prev_tr_write_ = m_->tr_req_write_o;
    step_raw();
  }
};

// Standard layout: args, dst, a, b in separate 4 MiB regions of VA space.
Case make(uint8_t k, uint32_t n, uint32_t dst_off, uint32_t a_off, uint32_t b_off, bool dst_h,
          bool a_h, bool b_h, uint32_t scalar) {
  Case c;
  c.kernel = k;
  c.n = n;
  c.args_va = 0x00100ff0;  // the argument block itself crosses a page
  c.dst = 0x01000000 + dst_off;
  c.a = 0x02000000 + a_off;
  c.b = 0x03000000 + b_off;
  c.dst_host = dst_h;
  c.a_host = a_h;
  c.b_host = b_h;
  c.scalar = scalar;
  char buf[96];
  std::snprintf(buf, sizeof buf, "d%03x%s a%03x%s b%03x%s", dst_off, dst_h ? "H" : "", a_off,
                a_h ? "H" : "", b_off, b_h ? "H" : "");
  c.label = buf;
  return c;
}

void test_kernels(Bench &b) {
  const uint32_t ns[] = {0, 1, 2, 7, 1023, 1024, 1025, 3000};
  struct Off { uint32_t d, a, b; };
  const Off offs[] = {{0, 0, 0}, {0xffc, 0x800, 0x004}, {0x123 & ~3u, 0xff0, 0x7fc}};
  struct Ap { bool d, a, b; };
  const Ap aps[] = {{false, false, false}, {false, true, false}, {true, false, true}, {true, true, true}};
  int runs = 0;
  b.quiet = true;
  for (uint8_t k = 0; k <= K_REDUCE; ++k)
    for (uint32_t n : ns)
      for (const Off &o : offs)
        for (const Ap &ap : aps) {
          Case c = make(k, n, o.d, o.a, o.b, ap.d, ap.a, ap.b, 0x9e3779b9u * (n + 3) + k);
          c.args_host = ap.a;
          b.run(c);
          ++runs;
        }
  b.quiet = false;
  // aliasing: dst == a (and dst == b)
  for (uint8_t k = K_COPY; k <= K_REDUCE; ++k) {
    for (uint32_t n : {1u, 1500u}) {
      Case c = make(k, n, 0x40, 0x40, 0x400, false, false, false, 0xfffffffdu);
      c.a = c.dst;
      c.dst_rw = true;
      c.label = "alias dst==a";
      b.run(c);
      ++runs;
      if (k == K_ADD || k == K_AXPY) {
        Case d = make(k, n, 0x40, 0x900, 0x40, true, false, true, 7);
        d.b = d.dst;
        d.dst_rw = true;
        d.label = "alias dst==b (host)";
        b.run(d);
        ++runs;
      }
    }
  }
  // wrapping arithmetic with extreme scalars
  for (uint32_t s : {0x80000000u, 0xffffffffu, 0x7fffffffu, 0u}) {
    for (uint8_t k : {K_SCALE, K_AXPY, K_FILL}) {
      Case c = make(k, 300, 0x10, 0x20, 0x30, false, false, false, s);
      c.label = "scalar " + std::to_string(s);
      b.run(c);
      ++runs;
    }
  }
  std::printf("compute_kernels: %d kernel runs\n", runs);
}

void test_faults(Bench &b) {
  int runs = 0;
  auto go = [&](Case c, const std::string &label) {
    c.label = label;
    b.run(c);
    ++runs;
  };
  // Unknown kernel ids: BAD_COMMAND at args_va, nothing touched (translation count 0 is
  // implied by the memory compare + reference; checked directly below with unmapped args).
  for (unsigned id : {6u, 7u, 0x80u, 0xffu}) {
    Case c = make(K_COPY, 10, 0, 0, 0, false, false, false, 1);
    c.kernel = uint8_t(id);
    c.map_args = false;  // any access would fault differently: unmapped args
    go(c, "bad kernel " + std::to_string(id));
  }
  for (uint32_t mis : {1u, 2u, 3u}) {
    Case c = make(K_ADD, 10, 0, 0, 0, false, false, false, 1);
    c.args_va += mis;
    go(c, "misaligned args +" + std::to_string(mis));
  }
  // misaligned pointers: each of dst/a/b for every kernel (ignored where unused)
  for (uint8_t k = 0; k <= K_REDUCE; ++k) {
    for (int which = 0; which < 3; ++which) {
      for (uint32_t mis : {1u, 2u, 3u}) {
        Case c = make(k, 100, 0x100, 0x200, 0x300, false, false, false, 5);
        if (which == 0) c.dst += mis;
        if (which == 1) c.a += mis;
        if (which == 2) c.b += mis;
        go(c, std::string("misaligned ") + "dab"[which] + " +" + std::to_string(mis));
      }
    }
    // misaligned with n = 0 still faults (checked before any element)
    Case z = make(k, 0, 0x102, 0x200, 0x300, false, false, false, 5);
    go(z, "misaligned dst n=0");
  }
  // args block faults
  {
    Case c = make(K_COPY, 10, 0, 0, 0, false, false, false, 1);
    c.unmap.push_back(0x00101000);  // second page of the args block: word 4 faults
    go(c, "args 2nd page unmapped");
    Case d = make(K_COPY, 10, 0, 0, 0, false, false, false, 1);
    Pte p; p.r = false; p.w = true;
    d.overrides.push_back({0x00100000, p});
    go(d, "args read denied");
    Case e = make(K_FILL, 10, 0, 0, 0, false, false, false, 1);
    e.args_host = true;
    Pte q; q.force = VMGPU_FAULT_NO_CONTEXT;
    e.overrides.push_back({0x00101000, q});
    go(e, "args host, forced NO_CONTEXT");
  }
  // mid-run faults on a, b, dst, device and host
  for (uint8_t k = 0; k <= K_REDUCE; ++k) {
    bool ua = k != K_FILL, ub = k == K_ADD || k == K_AXPY;
    for (int host = 0; host < 2; ++host) {
      const char *hs = host ? " host" : "";
      if (ua) {
        Case c = make(k, 3000, 0x0, 0x404, 0x800, host, host, host, 3);
        c.unmap.push_back(c.a + 0x1000);  // a's second page
        go(c, std::string("a page 2 unmapped") + hs);
        Case d = make(k, 3000, 0x10, 0x0, 0x0, host, host, false, 3);
        Pte p; p.force = VMGPU_FAULT_PDE_INVALID;
        d.overrides.push_back({d.a + 0x2000, p});
        go(d, std::string("a page 3 PDE_INVALID") + hs);
        Case e = make(k, 50, 0x10, 0x0, 0x0, host, host, false, 3);
        Pte q; q.r = false; q.w = true;
        e.overrides.push_back({e.a, q});
        go(e, std::string("a element 0 read denied") + hs);
      }
      if (ub) {
        Case c = make(k, 3000, 0xffc, 0x0, 0xc00, host, false, host, 3);
        c.unmap.push_back(c.b + 0x1000);
        go(c, std::string("b page 2 unmapped") + hs);
        Case d = make(k, 2000, 0x100, 0x100, 0x100, host, host, host, 3);
        Pte p; p.r = false;
        d.overrides.push_back({d.b + 0x1000, p});
        go(d, std::string("b page 2 read denied (same offsets)") + hs);
      }
      {
        Case c = make(k, 3000, 0x200, 0x0, 0x0, host, host, host, 3);
        Pte p; p.w = false;
        c.overrides.push_back({c.dst + 0x1000, p});
        go(c, std::string("dst page 2 write denied") + hs);
        Case d = make(k, 3000, 0xff8, 0x0, 0x0, host, false, false, 3);
        d.unmap.push_back(d.dst + 0x2000);
        go(d, std::string("dst page 3 unmapped") + hs);
        Case e = make(k, 5, 0x0, 0x0, 0x0, host, false, false, 3);
        Pte q; q.force = VMGPU_FAULT_PHYS_RANGE;
        e.overrides.push_back({e.dst, q});
        go(e, std::string("dst element 0 PHYS_RANGE") + hs);
      }
      if (ua) {
        // a and dst both faulting: the earlier in element order wins
        Case c = make(k, 3000, 0x0, 0x0, 0x0, host, false, false, 3);
        Pte p; p.w = false;
        c.overrides.push_back({c.dst + 0x1000, p});
        c.unmap.push_back(c.a + 0x1000 + 0x40);  // same page as dst's: a faults at 1024, dst at 1024
        go(c, std::string("a and dst same element") + hs);
        Case d = make(k, 3000, 0x0, 0x800, 0x0, host, false, false, 3);
        Pte q; q.w = false;
        d.overrides.push_back({d.dst + 0x1000, q});  // dst faults at element 1024
        d.unmap.push_back(d.a + 0x1000);            // a faults at element 512 (earlier)
        go(d, std::string("a before dst") + hs);
        Case e = make(k, 3000, 0x800, 0x0, 0x0, host, false, false, 3);
        Pte r; r.w = false;
        e.overrides.push_back({e.dst + 0x1000, r});  // dst faults at element 512 (earlier)
        e.unmap.push_back(e.a + 0x1000);            // a faults at element 1024
        go(e, std::string("dst before a") + hs);
      }
    }
  }
  std::printf("compute_faults: %d fault runs\n", runs);
}

void test_backpressure(Bench &b, uint32_t seed) {
  std::mt19937 r(seed);
  auto rnd = [&](uint32_t lo, uint32_t hi) { return lo + r() % (hi - lo + 1); };
  int runs = 0, faults = 0;
  b.quiet = true;
  for (int i = 0; i < 400; ++i) {
    Timing t;
    t.rd_ready_pct = int(rnd(20, 100));
    t.wr_ready_pct = int(rnd(20, 100));
    t.tr_ready_pct = int(rnd(20, 100));
    t.tr_lat_min = int(rnd(1, 3));
    t.tr_lat_max = t.tr_lat_min + int(rnd(0, 12));
    t.host_lat_min = int(rnd(2, 6));
    t.host_lat_max = t.host_lat_min + int(rnd(0, 20));
    b.timing = t;
    uint8_t k = uint8_t(rnd(0, 5));
    if (rnd(0, 40) == 0) k = uint8_t(rnd(6, 255));
    uint32_t n = rnd(0, 9) == 0 ? rnd(0, 3) : rnd(0, 2600);
    Case c = make(k, n, rnd(0, 1023) * 4, rnd(0, 1023) * 4, rnd(0, 1023) * 4, rnd(0, 1), rnd(0, 1),
                  rnd(0, 1), r());
    c.args_va = 0x00100000 + rnd(0, 1023) * 4;
    c.args_host = rnd(0, 1);
    if (rnd(0, 7) == 0) { c.a = c.dst; c.dst_rw = true; }
    if (rnd(0, 30) == 0) c.dst += rnd(1, 3);
    if (rnd(0, 2) == 0) {
      // plant one fault on a random page of a random stream
      int which = int(rnd(0, 3));
      uint32_t base = which == 0 ? c.dst : which == 1 ? c.a : which == 2 ? c.b : c.args_va;
      uint32_t span = which == 3 ? 20 : 4 * (n ? n : 1);
      uint32_t va = base + rnd(0, span - 1);
      Pte p;
      int kind = int(rnd(0, 2));
      if (kind == 0) c.unmap.push_back(va);
      else if (kind == 1) { p.r = false; p.w = false; c.overrides.push_back({va, p}); }
      else { p.force = VMGPU_FAULT_PDE_INVALID; c.overrides.push_back({va, p}); }
    }
    c.label = "random #" + std::to_string(i) + " " + c.label;
    int before = tb::failures();
    b.run(c);
    if (tb::failures() != before) {
      std::printf("   timing rd%d wr%d tr%d trlat %d-%d hostlat %d-%d\n", t.rd_ready_pct,
                  t.wr_ready_pct, t.tr_ready_pct, t.tr_lat_min, t.tr_lat_max, t.host_lat_min,
                  t.host_lat_max);
    }
    ++runs;
    (void)faults;
  }
  std::printf("compute_backpressure: %d random runs (seed %u)\n", runs, seed);
}

void test_throughput(Bench &b) {
  const uint32_t n = 4096;
  // bound in cycles per element: FILL/COPY/SCALE/REDUCE one per cycle, ADD/AXPY one per two
  const double bound[6] = {1.02, 1.02, 2.02, 1.02, 2.02, 1.02};
  for (uint8_t k = 0; k <= K_REDUCE; ++k) {
    b.timing = Timing();
    Case c = make(k, n, 0, 0, 0, false, false, false, 3);
    c.label = "throughput device";
    b.run(c);
    double cpe = double(b.last_cycles) / n;
    std::printf("cycles_per_element %-10s %.4f (%llu cycles, n %u, device memory, TLB-hit latency)\n",
                kname(k), cpe, (unsigned long long)b.last_cycles, n);
    CHECK(cpe <= bound[k], "%s: %.4f cycles/element, bound %.2f", kname(k), cpe, bound[k]);
  }
  for (uint8_t k = 0; k <= K_REDUCE; ++k) {
    b.timing = Timing();
    b.timing.host_lat_min = b.timing.host_lat_max = 8;
    Case c = make(k, n, 0, 0, 0, true, true, true, 3);
    c.label = "throughput host (latency 8)";
    b.run(c);
    std::printf("cycles_per_element_host8 %-10s %.4f\n", kname(k), double(b.last_cycles) / n);
  }
}

}  // namespace

int main(int argc, char **argv) {
  std::string mode = argc > 1 ? argv[1] : "kernels";
  Bench b(0xc0ffee);
  if (mode == "kernels") test_kernels(b);
  else if (mode == "faults") test_faults(b);
  else if (mode == "backpressure") test_backpressure(b, argc > 2 ? uint32_t(std::stoul(argv[2])) : 12345u);
  else if (mode == "throughput") test_throughput(b);
  else { std::printf("unknown mode %s (kernels|faults|backpressure|throughput)\n", mode.c_str()); return 2; }
  return tb::summary(("compute_" + mode).c_str());
}
