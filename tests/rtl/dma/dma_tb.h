// Test bench world of dma_engine: sparse device and host memory, a page table, models of the
// translation port (MMU) and of the memory fabric, a byte-exact reference of copy and fill, and
// the protocol checks of docs/architecture.md. One Vdma_engine runs command after command
// without reset.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <unordered_map>
#include <vector>

#include "Vdma_engine.h"
#include "tb_check.h"
#include "verilated.h"
#include <vmgpu/regs.h>

namespace dma {

constexpr uint32_t kPage = 4096;

// Byte-addressed memory whose untouched bytes read as a fixed hash of their address, so that a
// stray write anywhere shows up when two memories are compared.
struct Space {
  uint32_t salt;
  std::unordered_map<uint32_t, std::vector<uint8_t>> pages;
  explicit Space(uint32_t s) : salt(s) {}
  uint8_t init(uint32_t a) const {
    uint32_t x = a * 2654435761u ^ salt;
    x ^= x >> 15; x *= 0x2c1b3c6du; x ^= x >> 12;
    return uint8_t(x);
  }
  std::vector<uint8_t> &page(uint32_t pn) {
    auto it = pages.find(pn);
    if (it != pages.end()) return it->second;
    std::vector<uint8_t> p(kPage);
    for (uint32_t i = 0; i < kPage; ++i) p[i] = init(pn * kPage + i);
    return pages.emplace(pn, std::move(p)).first->second;
  }
  uint8_t rd(uint32_t a) { return page(a / kPage)[a % kPage]; }
  void wr(uint32_t a, uint8_t v) { page(a / kPage)[a % kPage] = v; }
};

// Compare two spaces over every page either one has touched; prints the first differences.
inline int compare(const char *what, Space &got, Space &exp) {
  std::set<uint32_t> pns;
  for (auto &kv : got.pages) pns.insert(kv.first);
  for (auto &kv : exp.pages) pns.insert(kv.first);
  int bad = 0;
  for (uint32_t pn : pns) {
    auto &g = got.page(pn), &e = exp.page(pn);
    if (std::memcmp(g.data(), e.data(), kPage) == 0) continue;
    for (uint32_t i = 0; i < kPage; ++i)
      if (g[i] != e[i]) {
        if (bad < 6)
          std::printf("  %s pa 0x%08x: got 0x%02x expected 0x%02x\n", what, pn * kPage + i, g[i], e[i]);
        ++bad;
      }
  }
  return bad;
}

struct Pte {
  uint32_t frame;
  bool host, r, w;
};

struct Tr {
  bool fault;
  uint32_t reason;
  uint32_t pa;
  bool host;
};

// Page table plus the two memories.
struct World {
  Space dev{0x1234567u}, host{0x89abcdefu};
  std::map<uint32_t, Pte> pt;       // by virtual page number; absent = PTE not valid
  std::set<uint32_t> bad_pde;       // VA[31:22] values whose PDE is not valid
  std::vector<uint32_t> free_dev, free_host;
  explicit World(std::mt19937 &rng) {
    // Frames are handed out in random order so consecutive virtual pages are scattered.
    for (uint32_t f = 0; f < 4096; ++f) { free_dev.push_back(f); free_host.push_back(f); }
    std::shuffle(free_dev.begin(), free_dev.end(), rng);
    std::shuffle(free_host.begin(), free_host.end(), rng);
  }
  // Map every page touching [va, va+len) that is not mapped yet.
  void map(uint32_t va, uint64_t len, bool host_ap = false, bool r = true, bool w = true) {
    if (len == 0) return;
    for (uint64_t p = va / kPage; p <= (uint64_t(va) + len - 1) / kPage; ++p) {
      uint32_t vpn = uint32_t(p);
      if (pt.count(vpn)) continue;
      auto &fl = host_ap ? free_host : free_dev;
      pt[vpn] = Pte{fl.back(), host_ap, r, w};
      fl.pop_back();
    }
  }
  Tr translate(uint32_t va, bool write) const {
    if (bad_pde.count(va >> 22)) return {true, VMGPU_FAULT_PDE_INVALID, 0, false};
    auto it = pt.find(va / kPage);
    if (it == pt.end()) return {true, VMGPU_FAULT_PTE_INVALID, 0, false};
    const Pte &e = it->second;
    if (!write && !e.r) return {true, VMGPU_FAULT_READ_DENIED, 0, false};
    if (write && !e.w) return {true, VMGPU_FAULT_WRITE_DENIED, 0, false};
    return {false, 0, e.frame * kPage + va % kPage, e.host};
  }
  Space &space(bool h) { return h ? host : dev; }
};

struct Cmd {
  bool fill = false;
  uint32_t src = 0, dst = 0, width = 0, height = 1, spitch = 0, dpitch = 0;
  uint32_t pattern = 0;
  uint32_t psize = VMGPU_FILL_8;  // FILL_8/16/32
};

struct Outcome {
  bool fault = false;
  uint32_t va = 0;
  bool write = false;
  uint32_t reason = 0;
};

inline const char *describe(const Cmd &c) {
  static char buf[200];
  std::snprintf(buf, sizeof buf, "%s src 0x%08x dst 0x%08x w %u h %u sp %u dp %u pat 0x%08x/%u",
                c.fill ? "fill" : "copy", c.src, c.dst, c.width, c.height, c.spitch, c.dpitch,
                c.pattern, c.psize);
  return buf;
}

// Reference: apply the command byte by byte in copy order to the expected memories; stop at
// the first byte whose source or destination page faults (the source is checked first).
inline Outcome reference(const World &w, const Cmd &c, Space &exp_dev, Space &exp_host) {
  const uint32_t psz = c.psize == VMGPU_FILL_8 ? 1 : c.psize == VMGPU_FILL_16 ? 2 : 4;
  for (uint32_t r = 0; r < c.height && c.width; ++r) {
    for (uint32_t i = 0; i < c.width; ++i) {
      uint32_t dva = c.dst + r * c.dpitch + i;
      uint8_t v;
      if (c.fill) {
        v = uint8_t(c.pattern >> (8 * (i % psz)));
      } else {
        uint32_t sva = c.src + r * c.spitch + i;
        Tr s = w.translate(sva, false);
        if (s.fault) return {true, sva, false, s.reason};
        v = (s.host ? exp_host : exp_dev).rd(s.pa);
      }
      Tr d = w.translate(dva, true);
      if (d.fault) return {true, dva, true, d.reason};
      (d.host ? exp_host : exp_dev).wr(d.pa, v);
    }
  }
  return {};
}

// Handshake behaviour of the models around the engine.
struct Timing {
  double p_tr_ready = 1.0, p_rd_ready = 1.0, p_wr_ready = 1.0;
  int tr_lat_min = 1, tr_lat_max = 1;       // translation answer, cycles after acceptance
  int dev_lat = 1;                          // device reads answer one cycle after acceptance
  int host_lat_min = 1, host_lat_max = 1;   // host reads answer later
  static Timing ideal() { return Timing{}; }
  static Timing rough() {
    Timing t;
    t.p_tr_ready = 0.6; t.p_rd_ready = 0.6; t.p_wr_ready = 0.6;
    t.tr_lat_min = 1; t.tr_lat_max = 7;
    t.host_lat_min = 2; t.host_lat_max = 12;
    return t;
  }
};

struct RunStats {
  uint64_t cycles = 0, reads = 0, writes = 0, trs = 0;
  size_t max_outstanding = 0;
};

class Bench {
 public:
  explicit Bench(uint32_t seed, unsigned rd_depth = 8) : rng_(seed), rd_depth_(rd_depth) {
    ctx_ = std::make_unique<VerilatedContext>();
    top_ = std::make_unique<Vdma_engine>(ctx_.get());
    top_->rst_ni = 0;
    top_->start_i = 0;
    for (int i = 0; i < 4; ++i) { edge(); }
    top_->rst_ni = 1;
    edge();
  }
  std::mt19937 &rng() { return rng_; }

  // Run one command against world w; checks the outcome against exp (and expected memories)
  // and returns false on any failure. max_cycles bounds the wait for done.
  bool run(World &w, const Cmd &c, const Timing &t, RunStats *st = nullptr,
           uint64_t max_cycles = 0) {
    const int fails0 = tb::failures();
    Space exp_dev = w.dev, exp_host = w.host;
    Outcome exp = reference(w, c, exp_dev, exp_host);
    uint64_t bytes = uint64_t(c.width) * c.height;
    if (!max_cycles) max_cycles = 2000 + bytes * 40;
    RunStats s;

    top_->op_i = c.fill;
    top_->src_va_i = c.src; top_->dst_va_i = c.dst;
    top_->width_i = c.width; top_->height_i = c.height;
    top_->src_pitch_i = c.spitch; top_->dst_pitch_i = c.dpitch;
    top_->pattern_i = c.pattern; top_->pattern_size_i = c.psize;
    top_->start_i = 1;
    CHECK(!top_->busy_o, "busy before start: %s", describe(c));
    bool done = false;
    Outcome got;
    bool rsp_left_at_done = false;
    uint64_t cyc = 0;
    for (; cyc < max_cycles && !done; ++cyc) {
      done = cycle(w, t, s, cyc == 0);
      top_->start_i = 0;
      if (!done) busy_ok_ &= bool(top_->busy_o);
      if (done) {
        got = done_info_;
        rsp_left_at_done = !rdq_.empty() || tr_busy_;
      }
    }
    s.cycles = cyc;
    CHECK(busy_ok_, "busy_o low while running, or fault_o without done_o: %s", describe(c));
    CHECK(proto_ok_, "handshake rule broken (see above): %s", describe(c));
    busy_ok_ = proto_ok_ = true;
    CHECK(done, "no done within %lu cycles: %s", (unsigned long)max_cycles, describe(c));
    CHECK(!rsp_left_at_done, "done with reads or a translation still outstanding: %s", describe(c));
    CHECK(s.max_outstanding <= rd_depth_, "%zu reads in flight > depth %u", s.max_outstanding, rd_depth_);
    if (done) {
      CHECK(got.fault == exp.fault, "fault %d expected %d: %s", got.fault, exp.fault, describe(c));
      if (exp.fault && got.fault) {
        CHECK(got.va == exp.va, "fault va 0x%08x expected 0x%08x: %s", got.va, exp.va, describe(c));
        CHECK(got.write == exp.write, "fault write %d expected %d: %s", got.write, exp.write, describe(c));
        CHECK(got.reason == exp.reason, "fault reason %u expected %u: %s", got.reason, exp.reason, describe(c));
      }
      // Quiet after done: no request of any kind, no busy.
      bool quiet = true;
      for (int i = 0; i < 4; ++i) {
        top_->clk_i = 0; set_idle_inputs(); top_->eval();
        quiet &= !top_->mem_rd_valid_o && !top_->mem_wr_valid_o && !top_->tr_req_valid_o &&
                 !top_->done_o;
        top_->clk_i = 1; top_->eval();
      }
      CHECK(quiet, "activity after done: %s", describe(c));
      CHECK(!top_->busy_o, "busy after done: %s", describe(c));
    }
    // A fault on the very first byte (source or destination) leaves nothing written.
    if (bytes == 0 || (exp.fault && exp.va == (exp.write ? c.dst : c.src)))
      CHECK(s.writes == 0, "%lu writes for a command that writes nothing: %s", (unsigned long)s.writes, describe(c));
    if (bytes == 0) CHECK(s.reads == 0 && s.trs == 0, "accesses for an empty command: %s", describe(c));
    int bad = compare("dev", w.dev, exp_dev) + compare("host", w.host, exp_host);
    CHECK(bad == 0, "%d bytes differ from the reference: %s", bad, describe(c));
    if (st) *st = s;
    return tb::failures() == fails0;
  }

 private:
  struct RdRsp { uint64_t due; uint32_t data; };

  void edge() {
    top_->clk_i = 0; top_->eval();
    top_->clk_i = 1; top_->eval();
  }
  bool coin(double p) { return p >= 1.0 || std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  int between(int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng_); }
  void set_idle_inputs() {
    top_->tr_req_ready_i = 0; top_->tr_rsp_valid_i = 0;
    top_->mem_rd_ready_i = 0; top_->mem_wr_ready_i = 0; top_->mem_rsp_valid_i = 0;
  }

  // One clock cycle: drive the models' outputs, sample the handshakes, clock, update the models.
  bool cycle(World &w, const Timing &t, RunStats &s, bool first) {
    // Payload fields that are not valid carry garbage, so that using them shows.
    uint32_t junk = rng_();
    top_->tr_req_ready_i = !tr_busy_ && coin(t.p_tr_ready);
    bool tr_rsp = tr_busy_ && tr_due_ == now_;
    top_->tr_rsp_valid_i = tr_rsp;
    top_->tr_rsp_pa_i = tr_rsp ? tr_ans_.pa : junk;
    top_->tr_rsp_host_i = tr_rsp ? tr_ans_.host : (junk >> 7) & 1;
    top_->tr_rsp_fault_i = tr_rsp ? tr_ans_.fault : (junk >> 9) & 1;
    top_->tr_rsp_reason_i = tr_rsp ? tr_ans_.reason : (junk >> 11) & 15;
    top_->mem_rd_ready_i = coin(t.p_rd_ready);
    bool rsp = !rdq_.empty() && rdq_.front().due <= now_;
    top_->mem_rsp_valid_i = rsp;
    top_->mem_rsp_data_i = rsp ? rdq_.front().data : junk * 7u;
    top_->mem_wr_ready_i = coin(t.p_wr_ready);
    top_->clk_i = 0;
    top_->eval();

    // Sample.
    bool tr_hs = top_->tr_req_valid_o && top_->tr_req_ready_i;
    bool rd_hs = top_->mem_rd_valid_o && top_->mem_rd_ready_i;
    bool wr_hs = top_->mem_wr_valid_o && top_->mem_wr_ready_i;
    bool done = top_->done_o;
    if (done) {
      done_info_ = {bool(top_->fault_o), top_->fault_va_o, bool(top_->fault_write_o), top_->fault_reason_o};
      CHECK(top_->busy_o, "busy_o low in the done cycle");
    } else {
      busy_ok_ &= !top_->fault_o;  // fault_o only comes with done_o
    }
    if (!first) protocol_checks();
    prev_ = {bool(top_->tr_req_valid_o), tr_hs, top_->tr_req_va_o, bool(top_->tr_req_write_o),
             bool(top_->mem_rd_valid_o), rd_hs, top_->mem_rd_addr_o, bool(top_->mem_rd_host_o),
             bool(top_->mem_wr_valid_o), wr_hs, top_->mem_wr_addr_o, bool(top_->mem_wr_host_o),
             top_->mem_wr_data_o, top_->mem_wr_be_o};
    uint32_t tr_va = top_->tr_req_va_o;
    bool tr_w = top_->tr_req_write_o;
    uint32_t rd_a = top_->mem_rd_addr_o & ~3u;
    bool rd_h = top_->mem_rd_host_o;
    uint32_t wr_a = top_->mem_wr_addr_o & ~3u, wr_d = top_->mem_wr_data_o, wr_be = top_->mem_wr_be_o;
    bool wr_h = top_->mem_wr_host_o;

    top_->clk_i = 1;
    top_->eval();

    // Update the models.
    if (tr_rsp) tr_busy_ = false;
    if (tr_hs) {
      tr_busy_ = true;
      tr_due_ = now_ + between(t.tr_lat_min, t.tr_lat_max);
      tr_ans_ = w.translate(tr_va, tr_w);
      ++s.trs;
    }
    if (rsp) rdq_.pop_front();
    if (wr_hs) {
      Space &sp = w.space(wr_h);
      for (int b = 0; b < 4; ++b)
        if (wr_be >> b & 1) sp.wr(wr_a + b, uint8_t(wr_d >> (8 * b)));
      proto_ok_ &= wr_be != 0;  // a write always enables some byte
      ++s.writes;
    }
    if (rd_hs) {
      Space &sp = w.space(rd_h);
      uint32_t d = 0;
      for (int b = 0; b < 4; ++b) d |= uint32_t(sp.rd(rd_a + b)) << (8 * b);
      uint64_t due = now_ + (rd_h ? between(t.host_lat_min, t.host_lat_max) : t.dev_lat);
      if (!rdq_.empty()) due = std::max(due, rdq_.back().due + 1);  // the fabric keeps order
      rdq_.push_back({due, d});
      ++s.reads;
    }
    s.max_outstanding = std::max(s.max_outstanding, rdq_.size());
    ++now_;
    return done;
  }

  // valid, once raised, holds with its payload until the transfer.
  void protocol_checks() {
    bool ok = true;
    if (prev_.tr_v && !prev_.tr_hs)
      ok &= top_->tr_req_valid_o && top_->tr_req_va_o == prev_.tr_va && top_->tr_req_write_o == prev_.tr_w;
    if (prev_.rd_v && !prev_.rd_hs)
      ok &= top_->mem_rd_valid_o && top_->mem_rd_addr_o == prev_.rd_a && top_->mem_rd_host_o == prev_.rd_h;
    if (prev_.wr_v && !prev_.wr_hs)
      ok &= top_->mem_wr_valid_o && top_->mem_wr_addr_o == prev_.wr_a && top_->mem_wr_host_o == prev_.wr_h &&
            top_->mem_wr_data_o == prev_.wr_d && top_->mem_wr_be_o == prev_.wr_be;
    if (!ok && proto_ok_) std::printf("  request dropped or changed before acceptance at cycle %lu\n", (unsigned long)now_);
    proto_ok_ &= ok;
  }

  struct Prev {
    bool tr_v, tr_hs; uint32_t tr_va; bool tr_w;
    bool rd_v, rd_hs; uint32_t rd_a; bool rd_h;
    bool wr_v, wr_hs; uint32_t wr_a; bool wr_h; uint32_t wr_d, wr_be;
  };

  std::mt19937 rng_;
  unsigned rd_depth_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vdma_engine> top_;
  uint64_t now_ = 0;
  bool tr_busy_ = false;
  uint64_t tr_due_ = 0;
  Tr tr_ans_{};
  std::deque<RdRsp> rdq_;
  Prev prev_{};
  Outcome done_info_{};
  bool busy_ok_ = true, proto_ok_ = true;  // per-cycle checks, reported once per command
};

}  // namespace dma
