// csr_block tests. One executable, the group named by argv[1]:
//   regs int cycle window ring release events counters
// and --mem/--tlb/--rings/--evt, which must match the verilated parameters.
//
// The requester is a synchronous one, as the block sees it inside vmgpu_top (whose CSR inputs
// are registered once): it raises a request, keeps it through the cycle in which the
// acknowledge arrives, then drops it for at least one cycle. Around the block the bench models
// the command processor's ring registers (combinational read, write strobe), a window memory
// with random ready and response delays, and drives the status, interrupt, counter and event
// inputs. Every wait is bounded; every read value is compared.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "Vcsr_block.h"
#include "tb_check.h"
#include "vmgpu/regs.h"

namespace {

constexpr unsigned kAckBound = 2000;  // cycles a request may wait for its acknowledge

struct Params {
  uint32_t mem = 65536, tlb = 16, rings = 2, evt = 4;
};

struct RingWrite {
  uint64_t cycle;
  unsigned idx, off;
  uint32_t data;
};

struct Bench {
  Vcsr_block m;
  Params p;
  std::mt19937 rng;
  uint64_t cycle = 0;  // rising edges since reset was released

  // Ring registers of the command processor: 4 blocks of 16 words.
  uint32_t ring_regs[4][16];
  std::vector<RingWrite> ring_writes;

  // Window memory.
  std::vector<uint32_t> mem;
  unsigned rd_ready_pct = 100, wr_ready_pct = 100;  // chance of ready per cycle
  unsigned rsp_lat_min = 1, rsp_lat_max = 1;         // cycles from read accept to response
  std::deque<std::pair<uint64_t, uint32_t>> rsp_q;   // (cycle to answer, data)
  unsigned win_rd_accepts = 0, win_wr_accepts = 0;
  std::vector<uint32_t> win_rd_addrs, win_wr_addrs;
  bool prev_rd_valid = false, prev_wr_valid = false;
  uint32_t prev_rd_addr = 0, prev_wr_addr = 0, prev_wr_data = 0;

  unsigned acks = 0;

  Bench(const Params &pp, uint32_t seed) : p(pp), rng(seed), mem(pp.mem / 4) {
    for (unsigned r = 0; r < 4; ++r)
      for (unsigned w = 0; w < 16; ++w) ring_regs[r][w] = 0xC0000000u | (r << 8) | (w << 2);
    for (auto &w : mem) w = rng();
    m.clk_i = 0;
    m.rst_ni = 0;
    m.csr_req_i = 0; m.csr_we_i = 0; m.csr_addr_i = 0; m.csr_wdata_i = 0;
    m.ring_rdata_i = 0;
    m.win_rd_ready_i = 0; m.win_rsp_valid_i = 0; m.win_rsp_data_i = 0; m.win_wr_ready_i = 0;
    m.cp_idle_i = 1; m.dma_busy_i = 0; m.cu_busy_i = 0; m.gfx_busy_i = 0;
    m.ring_busy_i = 0; m.ring_fault_i = 0; m.fence_irq_i = 0; m.fault_irq_i = 0;
    m.stat_hit_i = 0; m.stat_miss_i = 0; m.stat_evict_i = 0; m.stat_walk_i = 0;
    m.evt_valid_i = 0; m.evt_kind_i = 0; m.evt_reason_i = 0; m.evt_write_i = 0;
    m.evt_asid_i = 0; m.evt_va_i = 0; m.evt_pte_i = 0;
    for (int i = 0; i < 3; ++i) edge();
    m.rst_ni = 1;
    m.eval();
    cycle = 0;
  }

  void edge() {
    m.clk_i = 1;
    m.eval();
    m.clk_i = 0;
    m.eval();
  }

  bool chance(unsigned pct) { return rng() % 100 < pct; }

  struct Seen {
    bool ack;
    uint32_t rdata;
  };

  // One clock. Inputs the test set beforehand apply to this cycle; one-cycle pulse inputs
  // (interrupt, statistics and event strobes) are cleared after the edge.
  Seen tick() {
    m.win_rd_ready_i = chance(rd_ready_pct);
    m.win_wr_ready_i = chance(wr_ready_pct);
    bool rsp = !rsp_q.empty() && rsp_q.front().first <= cycle;
    m.win_rsp_valid_i = rsp;
    m.win_rsp_data_i = rsp ? rsp_q.front().second : 0xBADBADBAu;
    m.eval();
    m.ring_rdata_i = ring_regs[m.ring_idx_o & 3][(m.ring_off_o >> 2) & 15];
    m.eval();

    Seen s{bool(m.csr_ack_o), m.csr_rdata_o};
    if (s.ack) ++acks;
    if (m.ring_we_o) {
      ring_writes.push_back({cycle, unsigned(m.ring_idx_o), unsigned(m.ring_off_o), m.ring_wdata_o});
      ring_regs[m.ring_idx_o & 3][(m.ring_off_o >> 2) & 15] = m.ring_wdata_o;
    }
    // Window master: valid and payload hold until accepted.
    if (prev_rd_valid)
      CHECK(m.win_rd_valid_o && m.win_rd_addr_o == prev_rd_addr,
            "window read request dropped or changed before acceptance (addr 0x%08x)", prev_rd_addr);
    if (prev_wr_valid)
      CHECK(m.win_wr_valid_o && m.win_wr_addr_o == prev_wr_addr && m.win_wr_data_o == prev_wr_data,
            "window write request dropped or changed before acceptance (addr 0x%08x)", prev_wr_addr);
    bool rd_acc = m.win_rd_valid_o && m.win_rd_ready_i;
    bool wr_acc = m.win_wr_valid_o && m.win_wr_ready_i;
    prev_rd_valid = m.win_rd_valid_o && !rd_acc;
    prev_rd_addr = m.win_rd_addr_o;
    prev_wr_valid = m.win_wr_valid_o && !wr_acc;
    prev_wr_addr = m.win_wr_addr_o;
    prev_wr_data = m.win_wr_data_o;
    if (rd_acc) {
      uint32_t a = m.win_rd_addr_o;
      ++win_rd_accepts;
      win_rd_addrs.push_back(a);
      CHECK(a < p.mem && (a & 3) == 0, "window read outside memory or unaligned: 0x%08x", a);
      unsigned lat = rsp_lat_min + rng() % (rsp_lat_max - rsp_lat_min + 1);
      uint64_t at = cycle + lat;
      if (!rsp_q.empty() && rsp_q.back().first >= at) at = rsp_q.back().first + 1;
      rsp_q.push_back({at, a < p.mem ? mem[a / 4] : 0});
    }
    if (wr_acc) {
      uint32_t a = m.win_wr_addr_o;
      ++win_wr_accepts;
      win_wr_addrs.push_back(a);
      CHECK(a < p.mem && (a & 3) == 0, "window write outside memory or unaligned: 0x%08x", a);
      if (a < p.mem) mem[a / 4] = m.win_wr_data_o;
    }
    if (rsp) rsp_q.pop_front();
    edge();
    ++cycle;
    m.fence_irq_i = 0; m.fault_irq_i = 0;
    m.stat_hit_i = 0; m.stat_miss_i = 0; m.stat_evict_i = 0;
    m.evt_valid_i = 0;
    return s;
  }

  void idle(unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
      Seen s = tick();
      CHECK(!s.ack, "acknowledge without a request");
    }
  }

  struct Result {
    bool acked = false;
    uint32_t data = 0;
    unsigned latency = 0;     // cycles from raising the request to seeing the acknowledge
    uint64_t first_cycle = 0; // the cycle in which the request was first high
  };

  // One CSR access. hook(k) runs before the k-th cycle of the request (k = 0: first cycle
  // high); hold keeps the request high that many cycles after the acknowledge; gap is how
  // many cycles it is then low.
  Result access(bool we, uint32_t addr, uint32_t wdata, unsigned hold = 0, unsigned gap = 1,
                const std::function<void(unsigned)> &hook = nullptr) {
    Result r;
    r.first_cycle = cycle;
    m.csr_req_i = 1; m.csr_we_i = we; m.csr_addr_i = addr; m.csr_wdata_i = wdata;
    for (unsigned k = 0; k < kAckBound; ++k) {
      if (hook) hook(k);
      Seen s = tick();
      if (s.ack) { r.acked = true; r.data = s.rdata; r.latency = k; break; }
    }
    CHECK(r.acked, "%s 0x%03x never acknowledged", we ? "write" : "read", addr);
    for (unsigned h = 0; h < hold; ++h) {
      Seen s = tick();
      CHECK(!s.ack, "%s 0x%03x acknowledged again while the request was still held (%u cycles "
            "after the acknowledge)", we ? "write" : "read", addr, h + 1);
    }
    m.csr_req_i = 0;
    m.csr_we_i = 0;
    for (unsigned g = 0; g < gap; ++g) {
      Seen s = tick();
      CHECK(!s.ack, "acknowledge with the request low");
    }
    return r;
  }
  uint32_t rd(uint32_t a) { return access(false, a, 0).data; }
  void wr(uint32_t a, uint32_t v) { access(true, a, v); }
};

uint32_t caps(const Params &p) {
  return VMGPU_REG_CAPS_GFX_MASK | (12u << 16) | (p.tlb << 8) | p.rings;
}

// ---------------------------------------------------------------------------------------------

void test_regs(Bench &b) {
  const Params &p = b.p;
  // Reset values.
  struct { uint32_t off, value; const char *name; } resets[] = {
      {VMGPU_REG_ID, VMGPU_ID_MAGIC, "ID"},
      {VMGPU_REG_VERSION, VMGPU_HW_VERSION, "VERSION"},
      {VMGPU_REG_CAPS, caps(p), "CAPS"},
      {VMGPU_REG_MEM_SIZE, p.mem, "MEM_SIZE"},
      {VMGPU_REG_CYCLE_HI, 0, "CYCLE_HI"},
      {VMGPU_REG_INT_STATUS, 0, "INT_STATUS"},
      {VMGPU_REG_INT_ENABLE, 0, "INT_ENABLE"},
      {VMGPU_REG_MEM_ADDR, 0, "MEM_ADDR"},
      {VMGPU_REG_STATUS, 1, "STATUS"},  // idle, nothing busy
      {VMGPU_REG_TLB_HITS, 0, "TLB_HITS"},
      {VMGPU_REG_TLB_MISSES, 0, "TLB_MISSES"},
      {VMGPU_REG_TLB_EVICTIONS, 0, "TLB_EVICTIONS"},
      {VMGPU_REG_WALK_CYCLES, 0, "WALK_CYCLES"},
      {VMGPU_REG_EVT_COUNT, 0, "EVT_COUNT"},
      {VMGPU_REG_EVT_INFO, 0, "EVT_INFO"},
      {VMGPU_REG_EVT_VA, 0, "EVT_VA"},
      {VMGPU_REG_EVT_PTE, 0, "EVT_PTE"},
      {VMGPU_REG_EVT_POP, 0, "EVT_POP (write-only reads 0)"},
      {VMGPU_REG_SCRATCH, 0, "SCRATCH"},
  };
  for (auto &r : resets) {
    Bench::Result res = b.access(false, r.off, 0);
    CHECK(res.data == r.value, "%s reads 0x%08x after reset, expected 0x%08x", r.name, res.data,
          r.value);
    CHECK(res.latency == 1, "%s: read acknowledged after %u cycles, expected 1", r.name,
          res.latency);
  }
  CHECK(((caps(p) & VMGPU_REG_CAPS_PAGE_SHIFT_MASK) >> VMGPU_REG_CAPS_PAGE_SHIFT_LSB) == 12,
        "page shift");

  // Read-only registers: writes of all-ones and all-zeros change nothing.
  struct { uint32_t off; const char *name; } ro[] = {
      {VMGPU_REG_ID, "ID"}, {VMGPU_REG_VERSION, "VERSION"}, {VMGPU_REG_CAPS, "CAPS"},
      {VMGPU_REG_MEM_SIZE, "MEM_SIZE"}, {VMGPU_REG_CYCLE_HI, "CYCLE_HI"},
      {VMGPU_REG_STATUS, "STATUS"}, {VMGPU_REG_TLB_HITS, "TLB_HITS"},
      {VMGPU_REG_TLB_MISSES, "TLB_MISSES"}, {VMGPU_REG_TLB_EVICTIONS, "TLB_EVICTIONS"},
      {VMGPU_REG_WALK_CYCLES, "WALK_CYCLES"}, {VMGPU_REG_EVT_COUNT, "EVT_COUNT"},
      {VMGPU_REG_EVT_INFO, "EVT_INFO"}, {VMGPU_REG_EVT_VA, "EVT_VA"},
      {VMGPU_REG_EVT_PTE, "EVT_PTE"}};
  for (auto &r : ro) {
    uint32_t before = b.rd(r.off);
    b.wr(r.off, 0xFFFFFFFFu);
    uint32_t mid = b.rd(r.off);
    b.wr(r.off, 0);
    uint32_t after = b.rd(r.off);
    CHECK(mid == before && after == before, "ro %s changed by a write: 0x%08x -> 0x%08x -> 0x%08x",
          r.name, before, mid, after);
  }
  // CYCLE_LO is read-only too: a write does not reset or load the counter.
  uint32_t lo0 = b.rd(VMGPU_REG_CYCLE_LO);
  b.wr(VMGPU_REG_CYCLE_LO, 0);
  uint32_t lo1 = b.rd(VMGPU_REG_CYCLE_LO);
  CHECK(lo1 - lo0 == 6, "CYCLE_LO after a write to it: %u then %u (expected +6 cycles)", lo0, lo1);
  // Writes to the read-only registers left the writable ones alone.
  CHECK(b.rd(VMGPU_REG_SCRATCH) == 0 && b.rd(VMGPU_REG_INT_ENABLE) == 0 &&
            b.rd(VMGPU_REG_MEM_ADDR) == 0 && b.rd(VMGPU_REG_INT_STATUS) == 0,
        "a read-only write leaked into a writable register");

  // Read-write registers.
  const uint32_t pats[] = {0xFFFFFFFFu, 0x00000000u, 0xA5A5A5A5u, 0x5A5A5A5Au, 0x80000001u,
                           0x12345678u};
  for (uint32_t v : pats) {
    b.wr(VMGPU_REG_SCRATCH, v);
    uint32_t s = b.rd(VMGPU_REG_SCRATCH);
    CHECK(s == v, "SCRATCH wrote 0x%08x read 0x%08x", v, s);
    b.wr(VMGPU_REG_INT_ENABLE, v);
    uint32_t e = b.rd(VMGPU_REG_INT_ENABLE);
    CHECK(e == v, "INT_ENABLE wrote 0x%08x read 0x%08x", v, e);
    b.wr(VMGPU_REG_MEM_ADDR, v);
    uint32_t a = b.rd(VMGPU_REG_MEM_ADDR);
    CHECK(a == (v & ~3u), "MEM_ADDR wrote 0x%08x read 0x%08x (word aligned expected)", v, a);
  }
  b.wr(VMGPU_REG_INT_ENABLE, 0);
  // The three rw registers are distinct.
  b.wr(VMGPU_REG_SCRATCH, 0x11111111u);
  b.wr(VMGPU_REG_INT_ENABLE, 0x00000F0Fu);
  b.wr(VMGPU_REG_MEM_ADDR, 0x00000444u);
  CHECK(b.rd(VMGPU_REG_SCRATCH) == 0x11111111u && b.rd(VMGPU_REG_INT_ENABLE) == 0x00000F0Fu &&
            b.rd(VMGPU_REG_MEM_ADDR) == 0x444u,
        "rw registers alias");
  b.wr(VMGPU_REG_INT_ENABLE, 0);

  // Holes in the global space read 0, and writing them changes nothing.
  std::vector<uint32_t> holes = {0x02C};
  for (uint32_t a = 0x058; a < VMGPU_REG_RING_BASE; a += 4) holes.push_back(a);
  for (uint32_t a = VMGPU_REG_RING_BASE + VMGPU_REG_RING_MAX * VMGPU_REG_RING_STRIDE; a < 0x1000;
       a += 0x24)
    holes.push_back(a & ~3u);
  size_t ring_writes = b.ring_writes.size();
  for (uint32_t a : holes) {
    b.wr(a, 0xFFFFFFFFu);
    uint32_t v = b.rd(a);
    CHECK(v == 0, "hole 0x%03x reads 0x%08x", a, v);
  }
  CHECK(b.ring_writes.size() == ring_writes, "a write outside ring space reached the rings");
  CHECK(b.rd(VMGPU_REG_SCRATCH) == 0x11111111u && b.rd(VMGPU_REG_MEM_ADDR) == 0x444u &&
            b.rd(VMGPU_REG_INT_ENABLE) == 0,
        "a write to a hole changed a register");

  // STATUS follows its inputs, field by field.
  unsigned rmask = (1u << p.rings) - 1;
  unsigned n_status = 0;
  for (unsigned pat = 0; pat < 64; ++pat) {
    uint32_t busy = (pat * 0x9Eu) & rmask, fault = (pat * 0x35u >> 2) & rmask;
    bool cp_idle = pat & 1, dma = pat & 2, cu = pat & 4, gfx = pat & 8;
    b.m.cp_idle_i = cp_idle; b.m.dma_busy_i = dma; b.m.cu_busy_i = cu; b.m.gfx_busy_i = gfx;
    b.m.ring_busy_i = busy; b.m.ring_fault_i = fault;
    bool idle = cp_idle && !dma && !cu && !gfx;
    uint32_t expect = (idle ? 1u : 0u) | (dma ? 2u : 0u) | (cu ? 4u : 0u) |
                      (gfx ? VMGPU_REG_STATUS_GFX_BUSY_MASK : 0u) |
                      (busy << VMGPU_REG_STATUS_RING_BUSY_LSB) |
                      (fault << VMGPU_REG_STATUS_RING_FAULT_LSB);
    uint32_t v = b.rd(VMGPU_REG_STATUS);
    CHECK(v == expect, "STATUS 0x%08x, expected 0x%08x", v, expect);
    CHECK(bool(b.m.idle_o) == idle, "idle_o %d, expected %d", int(b.m.idle_o), int(idle));
    ++n_status;
  }
  b.m.cp_idle_i = 1; b.m.dma_busy_i = 0; b.m.cu_busy_i = 0; b.m.gfx_busy_i = 0;
  b.m.ring_busy_i = 0;
  b.m.ring_fault_i = 0;
  std::printf("regs: %zu reset values, %zu ro registers unwritable, 3 rw registers x %zu "
              "patterns, %zu holes read 0, %u STATUS input patterns (CAPS 0x%08x, %u rings)\n",
              sizeof resets / sizeof resets[0], sizeof ro / sizeof ro[0],
              sizeof pats / sizeof pats[0], holes.size(), n_status, caps(p), p.rings);
}

// ---------------------------------------------------------------------------------------------

void test_int(Bench &b) {
  const Params &p = b.p;
  const uint32_t fence_all = (1u << p.rings) - 1, fault_all = fence_all << 8;
  auto status = [&] { return b.rd(VMGPU_REG_INT_STATUS); };

  // Setting: each source sets its own bit; writes of 1 to a clear register set nothing.
  b.wr(VMGPU_REG_INT_STATUS, 0xFFFFFFFFu);
  CHECK(status() == 0, "W1C write set bits");
  for (unsigned r = 0; r < p.rings; ++r) {
    b.m.fence_irq_i = 1u << r;
    b.tick();
    uint32_t v = status();
    CHECK(v == (1u << r), "fence_irq ring %u: INT_STATUS 0x%08x", r, v);
    CHECK(!b.m.irq_o, "irq_o with INT_ENABLE 0");
    b.wr(VMGPU_REG_INT_STATUS, 1u << r);
    v = status();
    CHECK(v == 0, "clearing fence bit %u leaves 0x%08x", r, v);
    b.m.fault_irq_i = 1u << r;
    b.tick();
    v = status();
    CHECK(v == (0x100u << r), "fault_irq ring %u: INT_STATUS 0x%08x", r, v);
    b.wr(VMGPU_REG_INT_STATUS, 0x100u << r);
    CHECK(status() == 0, "clearing fault bit %u", r);
  }

  // W1C clears only the bits written as 1.
  b.m.fence_irq_i = fence_all; b.m.fault_irq_i = fence_all;
  b.tick();
  CHECK(status() == (fence_all | fault_all), "all sources");
  b.wr(VMGPU_REG_INT_STATUS, 0);
  CHECK(status() == (fence_all | fault_all), "writing 0 cleared something");
  b.wr(VMGPU_REG_INT_STATUS, 0x1u | 0x200u);
  CHECK(status() == ((fence_all | fault_all) & ~0x201u), "partial clear: 0x%08x", status());
  b.wr(VMGPU_REG_INT_STATUS, 0xFFFFFFFFu);
  CHECK(status() == 0, "clear all");

  // A source firing in the very cycle its bit is cleared is not lost; nor is one firing the
  // cycle after. The write is taken in the request's first cycle (acknowledge latency 1).
  unsigned simul = 0;
  for (unsigned r = 0; r < p.rings; ++r)
    for (int fault = 0; fault < 2; ++fault)
      for (unsigned when = 0; when < 2; ++when) {
        uint32_t bit = (fault ? 0x100u : 1u) << r;
        if (fault) b.m.fault_irq_i = 1u << r; else b.m.fence_irq_i = 1u << r;
        b.tick();
        CHECK(status() == bit, "set before clear");
        Bench::Result res = b.access(true, VMGPU_REG_INT_STATUS, bit, 0, 1, [&](unsigned k) {
          if (k == when) {
            if (fault) b.m.fault_irq_i = 1u << r; else b.m.fence_irq_i = 1u << r;
          }
        });
        CHECK(res.latency == 1, "INT_STATUS write latency %u", res.latency);
        uint32_t v = status();
        CHECK(v == bit, "ring %u %s event %s the clear was lost: INT_STATUS 0x%08x", r,
              fault ? "fault" : "fence", when ? "the cycle after" : "in the cycle of", v);
        b.wr(VMGPU_REG_INT_STATUS, bit);
        CHECK(status() == 0, "clear after the simultaneous case");
        ++simul;
      }
  // Clearing one bit while another fires in the same cycle.
  b.m.fence_irq_i = 1;
  b.tick();
  b.access(true, VMGPU_REG_INT_STATUS, 1, 0, 1, [&](unsigned k) {
    if (k == 0) b.m.fault_irq_i = 1u << (p.rings - 1);
  });
  CHECK(status() == (0x100u << (p.rings - 1)), "clear fence 0 while fault fires: 0x%08x",
        status());
  b.wr(VMGPU_REG_INT_STATUS, 0xFFFFFFFFu);

  // irq_o = |(INT_STATUS & INT_ENABLE), for every enable bit against every status bit.
  unsigned irq_checks = 0;
  std::vector<uint32_t> bits;
  for (unsigned r = 0; r < p.rings; ++r) { bits.push_back(1u << r); bits.push_back(0x100u << r); }
  for (uint32_t en : bits)
    for (uint32_t st : bits) {
      b.wr(VMGPU_REG_INT_ENABLE, en);
      CHECK(!b.m.irq_o, "irq_o with INT_STATUS 0");
      if (st & 0xFF) b.m.fence_irq_i = st; else b.m.fault_irq_i = st >> 8;
      b.tick();
      b.tick();
      CHECK(bool(b.m.irq_o) == (en == st), "irq_o %d with enable 0x%03x status 0x%03x",
            int(b.m.irq_o), en, st);
      b.wr(VMGPU_REG_INT_STATUS, st);
      CHECK(!b.m.irq_o, "irq_o stays high after the clear");
      ++irq_checks;
    }
  // Enabling after the event raises irq_o; disabling drops it with the bit still set.
  b.wr(VMGPU_REG_INT_ENABLE, 0);
  b.m.fault_irq_i = 1;
  b.tick();
  CHECK(!b.m.irq_o, "irq_o while disabled");
  b.wr(VMGPU_REG_INT_ENABLE, 0x100);
  CHECK(b.m.irq_o, "irq_o after enabling a pending bit");
  b.wr(VMGPU_REG_INT_ENABLE, 0xFFFFFEFFu);
  CHECK(!b.m.irq_o, "irq_o after disabling");
  CHECK(status() == 0x100u, "status kept while disabled");
  b.wr(VMGPU_REG_INT_STATUS, 0x100);
  b.wr(VMGPU_REG_INT_ENABLE, 0);
  std::printf("int: set and W1C per bit, partial clears, %u set-at-clear races without a lost "
              "event, irq_o for %u enable/status pairs\n", simul, irq_checks);
}

// ---------------------------------------------------------------------------------------------

void test_cycle(Bench &b) {
  // CYCLE_LO is the counter at the cycle the read is taken, which is the request's first
  // cycle; cycle_o counts edges since reset.
  CHECK(b.m.cycle_o == b.cycle, "cycle_o %llu after %llu edges", (unsigned long long)b.m.cycle_o,
        (unsigned long long)b.cycle);
  uint64_t c0 = b.cycle;
  Bench::Result r0 = b.access(false, VMGPU_REG_CYCLE_LO, 0);
  CHECK(r0.data == uint32_t(c0), "CYCLE_LO %u, expected %llu", r0.data, (unsigned long long)c0);
  b.idle(37);
  uint64_t c1 = b.cycle;
  Bench::Result r1 = b.access(false, VMGPU_REG_CYCLE_LO, 0);
  CHECK(r1.data == uint32_t(c1), "CYCLE_LO %u, expected %llu", r1.data, (unsigned long long)c1);
  CHECK(b.rd(VMGPU_REG_CYCLE_HI) == 0, "CYCLE_HI below 2^32 cycles");

  // Move the counter near a carry into the high word. cycle_o is the top-level output
  // register, so the bench can load it between edges; then check the latch around the carry.
  const uint64_t base = 0x00000002FFFFFFF0ull;
  b.m.cycle_o = base;
  b.m.eval();
  b.tick();
  bool loaded = b.m.cycle_o == base + 1;
  CHECK(loaded, "could not load cycle_o (reads 0x%016llx)", (unsigned long long)b.m.cycle_o);
  unsigned pairs = 0;
  if (loaded) {
    uint64_t prev = 0;
    for (int i = 0; i < 12; ++i) {
      uint64_t at = b.m.cycle_o;  // the cycle in which the LO read is taken
      uint32_t lo = b.rd(VMGPU_REG_CYCLE_LO);
      // Let the counter run past a possible carry before reading HI: HI must still be the
      // value latched together with LO.
      b.idle(3);
      b.rd(VMGPU_REG_ID);  // other reads do not latch
      uint32_t hi = b.rd(VMGPU_REG_CYCLE_HI);
      uint64_t v = (uint64_t(hi) << 32) | lo;
      CHECK(v == at, "CYCLE_HI:LO 0x%016llx, counter was 0x%016llx when LO was read",
            (unsigned long long)v, (unsigned long long)at);
      CHECK(v > prev, "cycle pair went backwards");
      prev = v;
      ++pairs;
    }
    CHECK(prev >> 32 == 3, "never crossed the carry (last 0x%016llx)", (unsigned long long)prev);
    // Without a new LO read, HI keeps the latched value even across another carry.
    uint32_t hi_before = b.rd(VMGPU_REG_CYCLE_HI);
    b.m.cycle_o = 0x00000007FFFFFFFEull;
    b.m.eval();
    b.idle(6);
    b.rd(VMGPU_REG_SCRATCH);
    uint32_t hi_after = b.rd(VMGPU_REG_CYCLE_HI);
    CHECK(hi_after == hi_before, "CYCLE_HI moved without a CYCLE_LO read: %u -> %u", hi_before,
          hi_after);
    uint64_t at = b.m.cycle_o;
    uint32_t lo = b.rd(VMGPU_REG_CYCLE_LO);
    uint32_t hi = b.rd(VMGPU_REG_CYCLE_HI);
    CHECK(((uint64_t(hi) << 32) | lo) == at && hi == 8, "after the second carry: %u:%u", hi, lo);
  }
  std::printf("cycle: CYCLE_LO equals the counter at the read, %u HI:LO pairs across a carry, "
              "HI held until the next LO read\n", pairs);
}

// ---------------------------------------------------------------------------------------------

void test_window(Bench &b) {
  const Params &p = b.p;
  unsigned words = 0;
  // Several timing settings for the memory side: always ready and 1-cycle responses, then
  // random ready and slow responses.
  struct T { unsigned rd_pct, wr_pct, lat_min, lat_max; } timings[] = {
      {100, 100, 1, 1}, {30, 40, 1, 6}, {5, 5, 3, 20}};
  for (auto &t : timings) {
    b.rd_ready_pct = t.rd_pct; b.wr_ready_pct = t.wr_pct;
    b.rsp_lat_min = t.lat_min; b.rsp_lat_max = t.lat_max;
    uint32_t base = (b.rng() % (p.mem / 4 - 64)) * 4;
    std::vector<uint32_t> data(24);
    for (auto &d : data) d = b.rng();
    unsigned wr0 = b.win_wr_accepts, rd0 = b.win_rd_accepts;
    b.win_wr_addrs.clear(); b.win_rd_addrs.clear();
    b.wr(VMGPU_REG_MEM_ADDR, base | 3);  // the low bits are dropped
    for (uint32_t d : data) {
      size_t before = b.win_wr_addrs.size();
      Bench::Result r = b.access(true, VMGPU_REG_MEM_DATA, d);
      // The acknowledge comes only once the window write was accepted.
      CHECK(b.win_wr_addrs.size() == before + 1, "MEM_DATA write acknowledged with %zu window "
            "writes", b.win_wr_addrs.size() - before);
      (void)r;
    }
    CHECK(b.win_wr_accepts - wr0 == data.size(), "window writes %u", b.win_wr_accepts - wr0);
    for (size_t i = 0; i < b.win_wr_addrs.size() && i < data.size(); ++i)
      CHECK(b.win_wr_addrs[i] == base + 4 * i, "window write %zu at 0x%08x, expected 0x%08x", i,
            b.win_wr_addrs[i], uint32_t(base + 4 * i));
    for (size_t i = 0; i < data.size(); ++i)
      CHECK(b.mem[base / 4 + i] == data[i], "memory word 0x%08x: 0x%08x, wrote 0x%08x",
            uint32_t(base + 4 * i), b.mem[base / 4 + i], data[i]);
    uint32_t a = b.rd(VMGPU_REG_MEM_ADDR);
    CHECK(a == base + 4 * data.size(), "MEM_ADDR after the burst 0x%08x", a);
    // Read back through the window, including the words either side.
    b.wr(VMGPU_REG_MEM_ADDR, base - 4);
    for (size_t i = 0; i < data.size() + 2; ++i) {
      uint32_t expect = b.mem[(base - 4) / 4 + i];
      uint32_t v = b.rd(VMGPU_REG_MEM_DATA);
      CHECK(v == expect, "MEM_DATA read %zu: 0x%08x, expected 0x%08x", i, v, expect);
    }
    CHECK(b.win_rd_accepts - rd0 == data.size() + 2, "window reads %u", b.win_rd_accepts - rd0);
    for (size_t i = 0; i < b.win_rd_addrs.size(); ++i)
      CHECK(b.win_rd_addrs[i] == base - 4 + 4 * i, "window read %zu at 0x%08x", i,
            b.win_rd_addrs[i]);
    CHECK(b.rd(VMGPU_REG_MEM_ADDR) == base - 4 + 4 * (data.size() + 2), "MEM_ADDR after reads");
    words += 2 * data.size() + 2;
  }
  b.rd_ready_pct = 100; b.wr_ready_pct = 100; b.rsp_lat_min = 1; b.rsp_lat_max = 1;

  // Out of range: the last two words land, the next two are dropped (no window access) and
  // read as 0, and the address advances across the end either way.
  unsigned wr0 = b.win_wr_accepts, rd0 = b.win_rd_accepts;
  uint32_t last = p.mem / 4 - 1;
  uint32_t below = b.mem[last - 1];
  b.wr(VMGPU_REG_MEM_ADDR, p.mem - 8);
  const uint32_t vals[] = {0x0A0A0A0Au, 0x0B0B0B0Bu, 0x0C0C0C0Cu, 0x0D0D0D0Du};
  for (uint32_t v : vals) b.wr(VMGPU_REG_MEM_DATA, v);
  CHECK(b.win_wr_accepts - wr0 == 2, "window writes near the end: %u (expected 2)",
        b.win_wr_accepts - wr0);
  CHECK(b.mem[last - 1] == vals[0] && b.mem[last] == vals[1], "last words 0x%08x 0x%08x (was "
        "0x%08x)", b.mem[last - 1], b.mem[last], below);
  CHECK(b.rd(VMGPU_REG_MEM_ADDR) == p.mem + 8, "MEM_ADDR after dropped writes 0x%08x",
        b.rd(VMGPU_REG_MEM_ADDR));
  b.wr(VMGPU_REG_MEM_ADDR, p.mem - 4);
  uint32_t v0 = b.rd(VMGPU_REG_MEM_DATA), v1 = b.rd(VMGPU_REG_MEM_DATA),
           v2 = b.rd(VMGPU_REG_MEM_DATA);
  CHECK(v0 == vals[1] && v1 == 0 && v2 == 0, "reads across the end: 0x%08x 0x%08x 0x%08x", v0,
        v1, v2);
  CHECK(b.win_rd_accepts - rd0 == 1, "window reads across the end: %u (expected 1)",
        b.win_rd_accepts - rd0);
  CHECK(b.rd(VMGPU_REG_MEM_ADDR) == p.mem + 8, "MEM_ADDR after out-of-range reads 0x%08x",
        b.rd(VMGPU_REG_MEM_ADDR));
  // Far out of range, and out-of-range accesses acknowledge in one cycle like registers.
  b.wr(VMGPU_REG_MEM_ADDR, 0x80000000u);
  Bench::Result rr = b.access(false, VMGPU_REG_MEM_DATA, 0);
  Bench::Result rw = b.access(true, VMGPU_REG_MEM_DATA, 0x12345678u);
  CHECK(rr.data == 0 && rr.latency == 1 && rw.latency == 1, "far out-of-range: data 0x%08x, "
        "latencies %u %u", rr.data, rr.latency, rw.latency);
  CHECK(b.rd(VMGPU_REG_MEM_ADDR) == 0x80000008u, "MEM_ADDR far out of range");
  CHECK(b.win_wr_accepts - wr0 == 2 && b.win_rd_accepts - rd0 == 1, "far out-of-range access "
        "reached the window");

  // Other register accesses between window accesses do not move MEM_ADDR.
  b.wr(VMGPU_REG_MEM_ADDR, 0x40);
  b.rd(VMGPU_REG_SCRATCH);
  b.wr(VMGPU_REG_SCRATCH, 1);
  b.rd(VMGPU_REG_MEM_ADDR);
  CHECK(b.rd(VMGPU_REG_MEM_ADDR) == 0x40, "MEM_ADDR moved by other accesses");
  CHECK(b.rsp_q.empty(), "window responses left over");
  std::printf("window: %u in-range words under 3 memory timings (addresses, data, acknowledge "
              "after the window access), writes dropped / reads 0 past MEM_SIZE with the "
              "address advancing\n", words);
}

// ---------------------------------------------------------------------------------------------

void test_ring(Bench &b) {
  unsigned n = 0;
  for (unsigned r = 0; r < VMGPU_REG_RING_MAX; ++r)
    for (unsigned off = 0; off < VMGPU_REG_RING_STRIDE; off += 4) {
      uint32_t addr = VMGPU_RING_REG(r, off);
      uint32_t v = 0x5000000u ^ (r << 20) ^ (off << 8) ^ b.rng();
      size_t before = b.ring_writes.size();
      Bench::Result res = b.access(true, addr, v);
      CHECK(b.ring_writes.size() == before + 1, "ring write 0x%03x: %zu strobes", addr,
            b.ring_writes.size() - before);
      if (b.ring_writes.size() == before + 1) {
        const RingWrite &w = b.ring_writes.back();
        CHECK(w.idx == r && w.off == off && w.data == v, "ring write 0x%03x arrived as ring %u "
              "offset 0x%02x data 0x%08x", addr, w.idx, w.off, w.data);
        // The strobe is in the request's first cycle, the edge that also raises the
        // acknowledge (seen in the next cycle).
        CHECK(w.cycle == res.first_cycle && res.latency == 1, "ring write 0x%03x: strobe in "
              "cycle +%lld, acknowledge after %u", addr,
              (long long)(w.cycle - res.first_cycle), res.latency);
      }
      CHECK(b.ring_regs[r][off / 4] == v, "ring model not written");
      // Reads come from ring_rdata_i for the addressed register, and strobe nothing.
      b.ring_regs[r][off / 4] = ~v;
      size_t w0 = b.ring_writes.size();
      uint32_t got = b.rd(addr);
      CHECK(got == ~v, "ring read 0x%03x: 0x%08x, expected 0x%08x", addr, got, ~v);
      CHECK(b.ring_writes.size() == w0, "ring read strobed ring_we_o");
      ++n;
    }
  // Ring writes do not touch global registers with the same low bits.
  b.wr(VMGPU_REG_SCRATCH, 0xABCDEF01u);
  b.wr(VMGPU_REG_RING_BASE + VMGPU_REG_SCRATCH, 0);
  b.wr(VMGPU_REG_RING_BASE + VMGPU_REG_INT_ENABLE, 0xFFFFFFFFu);
  CHECK(b.rd(VMGPU_REG_SCRATCH) == 0xABCDEF01u && b.rd(VMGPU_REG_INT_ENABLE) == 0,
        "ring-space write changed a global register");
  // No strobe outside a ring write, over a run of mixed global accesses.
  size_t w0 = b.ring_writes.size();
  for (uint32_t a = 0; a < VMGPU_REG_RING_BASE; a += 4) {
    if (a == VMGPU_REG_MEM_DATA || a == VMGPU_REG_INT_STATUS) continue;
    b.wr(a, 0);
  }
  CHECK(b.ring_writes.size() == w0, "global writes strobed ring_we_o");
  std::printf("ring: %u ring registers (4 blocks x 16) written with the strobe on the "
              "acknowledging edge and read through ring_rdata_i\n", n);
}

// ---------------------------------------------------------------------------------------------

void test_release(Bench &b) {
  // A request held high after its acknowledge is served once, whatever the access.
  unsigned cases = 0;
  for (unsigned hold = 1; hold <= 6; ++hold) {
    size_t rw0 = b.ring_writes.size();
    unsigned acks0 = b.acks;
    b.access(true, VMGPU_RING_REG(1, VMGPU_RING_TAIL), 0x40 + hold, hold);
    CHECK(b.ring_writes.size() == rw0 + 1 && b.acks == acks0 + 1, "held ring write (hold %u): "
          "%zu strobes, %u acknowledges", hold, b.ring_writes.size() - rw0, b.acks - acks0);

    b.wr(VMGPU_REG_MEM_ADDR, 0x100);
    unsigned wr0 = b.win_wr_accepts;
    b.access(true, VMGPU_REG_MEM_DATA, 0xFEED0000u + hold, hold);
    CHECK(b.win_wr_accepts == wr0 + 1 && b.rd(VMGPU_REG_MEM_ADDR) == 0x104, "held MEM_DATA "
          "write (hold %u): %u window writes, MEM_ADDR 0x%08x", hold, b.win_wr_accepts - wr0,
          b.rd(VMGPU_REG_MEM_ADDR));
    b.wr(VMGPU_REG_MEM_ADDR, 0x100);
    unsigned rd0 = b.win_rd_accepts;
    uint32_t v = b.access(false, VMGPU_REG_MEM_DATA, 0, hold).data;
    CHECK(v == 0xFEED0000u + hold && b.win_rd_accepts == rd0 + 1 &&
              b.rd(VMGPU_REG_MEM_ADDR) == 0x104,
          "held MEM_DATA read (hold %u): data 0x%08x, %u window reads", hold, v,
          b.win_rd_accepts - rd0);

    b.wr(VMGPU_REG_INT_STATUS, 0xFFFFFFFFu);
    b.m.fence_irq_i = 1;
    b.tick();
    // A held W1C write must not clear an event that arrives while it is held.
    b.access(true, VMGPU_REG_INT_STATUS, 1, hold, 1, [&](unsigned k) {
      if (k == 1) b.m.fence_irq_i = 1;
    });
    CHECK(b.rd(VMGPU_REG_INT_STATUS) == 1, "held W1C write cleared a later event (hold %u)",
          hold);
    b.wr(VMGPU_REG_INT_STATUS, 1);
    cases += 4;
  }
  // The next request, after one low cycle, is served; back-to-back accesses with exactly
  // one low cycle between them all complete, each in one cycle.
  for (unsigned i = 0; i < 20; ++i) {
    Bench::Result r = b.access(true, VMGPU_REG_SCRATCH, 0x3000u + i, i % 3, 1);
    CHECK(r.acked && r.latency == 1, "back-to-back write %u: latency %u", i, r.latency);
    Bench::Result q = b.access(false, VMGPU_REG_SCRATCH, 0, 0, 1);
    CHECK(q.acked && q.data == 0x3000u + i && q.latency == 1, "back-to-back read %u: 0x%08x "
          "latency %u", i, q.data, q.latency);
  }
  // Acknowledge is a one-cycle pulse even for a request held many cycles.
  unsigned a0 = b.acks;
  b.access(false, VMGPU_REG_ID, 0, 30);
  CHECK(b.acks == a0 + 1, "acknowledges for one held read: %u", b.acks - a0);
  std::printf("release: %u held requests served once (ring write, window write and read, W1C), "
              "40 back-to-back accesses with one low cycle between\n", cases);
}

// ---------------------------------------------------------------------------------------------

struct Evt {
  uint32_t kind, reason, write, asid, va, pte;
  uint32_t info() const { return kind | reason << 4 | write << 8 | asid << 16; }
};

void test_events(Bench &b) {
  // The model: the FIFO keeps the newest p.evt events (an event while full replaces the
  // oldest), DROPPED counts the replaced ones since the last EVT_POP (saturating at 0x7FFF),
  // OVERFLOW = DROPPED != 0, and any EVT_POP clears both.
  const Params &p = b.p;
  std::mt19937 &rng = b.rng;
  std::deque<Evt> model;
  uint32_t dropped = 0;
  auto make = [&] {
    Evt e{uint32_t(rng() % 4), uint32_t(rng() % 16), uint32_t(rng() % 2), uint32_t(rng() % 256),
          uint32_t(rng()), uint32_t(rng())};
    return e;
  };
  auto drive = [&](const Evt &e) {
    b.m.evt_valid_i = 1; b.m.evt_kind_i = e.kind; b.m.evt_reason_i = e.reason;
    b.m.evt_write_i = e.write; b.m.evt_asid_i = e.asid; b.m.evt_va_i = e.va;
    b.m.evt_pte_i = e.pte;
  };
  auto push = [&](const Evt &e) {  // what the FIFO does with an event and no pop
    if (model.size() == p.evt) {
      model.pop_front();
      if (dropped < 0x7FFF) ++dropped;
    }
    model.push_back(e);
  };
  auto pop = [&] {
    if (!model.empty()) model.pop_front();
    dropped = 0;
  };
  auto check_head = [&](const char *when) {
    uint32_t cnt = b.rd(VMGPU_REG_EVT_COUNT);
    uint32_t expect_cnt = uint32_t(model.size()) | dropped << VMGPU_REG_EVT_COUNT_DROPPED_LSB |
                          (dropped ? VMGPU_REG_EVT_COUNT_OVERFLOW_MASK : 0);
    CHECK(cnt == expect_cnt, "%s: EVT_COUNT 0x%08x, expected 0x%08x", when, cnt, expect_cnt);
    uint32_t info = b.rd(VMGPU_REG_EVT_INFO), va = b.rd(VMGPU_REG_EVT_VA),
             pte = b.rd(VMGPU_REG_EVT_PTE);
    if (model.empty()) {
      CHECK(info == 0 && va == 0 && pte == 0, "%s: empty FIFO reads 0x%08x 0x%08x 0x%08x", when,
            info, va, pte);
    } else {
      const Evt &e = model.front();
      CHECK(info == e.info() && va == e.va && pte == e.pte, "%s: head 0x%08x 0x%08x 0x%08x, "
            "expected 0x%08x 0x%08x 0x%08x", when, info, va, pte, e.info(), e.va, e.pte);
    }
  };
  check_head("after reset");
  // Fill, one event per cycle with no gaps, then three more: the three oldest are replaced.
  std::vector<Evt> sent;
  for (unsigned i = 0; i < p.evt + 3; ++i) {
    Evt e = make();
    drive(e);
    b.tick();
    push(e);
    sent.push_back(e);
    if (i + 1 == p.evt) check_head("full");
  }
  b.m.evt_valid_i = 0;
  CHECK(dropped == 3, "model dropped %u", dropped);
  check_head("three events while full: the newest kept, DROPPED 3, OVERFLOW");
  CHECK(model.front().va == sent[3].va, "the head is the fourth event sent");
  // One pop reports them gone: DROPPED and OVERFLOW clear at once, the FIFO keeps the rest.
  b.wr(VMGPU_REG_EVT_POP, 0);
  pop();
  check_head("the first pop clears DROPPED and OVERFLOW");
  while (!model.empty()) {
    b.wr(VMGPU_REG_EVT_POP, 0);
    pop();
    check_head("popping");
  }
  b.wr(VMGPU_REG_EVT_POP, 0);
  pop();
  check_head("pop of an empty FIFO");

  // Many events while full: DROPPED counts each one and saturates at 0x7FFF.
  b.m.evt_valid_i = 1;
  for (unsigned i = 0; i < 0x7FFF + p.evt + 5; ++i) {
    Evt e = make();
    drive(e);
    b.tick();
    push(e);
  }
  b.m.evt_valid_i = 0;
  check_head("DROPPED saturates at 0x7FFF");
  b.wr(VMGPU_REG_EVT_POP, 0);
  pop();
  check_head("cleared after saturation");
  while (!model.empty()) { b.wr(VMGPU_REG_EVT_POP, 0); pop(); }

  // An event arriving in the cycle the pop is taken, at every occupancy: both happen (when full
  // the event takes the slot the pop frees, nothing is lost), and DROPPED is cleared.
  unsigned races = 0;
  for (unsigned occ = 0; occ <= p.evt; ++occ) {
    // Arrive with some losses counted, so the race also shows the clear.
    while (model.size() < p.evt) { Evt e = make(); drive(e); b.tick(); push(e); }
    for (int k = 0; k < 2; ++k) { Evt e = make(); drive(e); b.tick(); push(e); }
    b.m.evt_valid_i = 0;
    while (model.size() > occ) { b.wr(VMGPU_REG_EVT_POP, 0); pop(); }
    if (occ == p.evt) {  // popping nothing left the losses counted: make it so for occ < evt too
      CHECK(dropped == 2, "dropped before the race %u", dropped);
    }
    Evt e = make();
    b.access(true, VMGPU_REG_EVT_POP, 0, 0, 1, [&](unsigned k) { if (k == 0) drive(e); });
    b.m.evt_valid_i = 0;
    pop();
    model.push_back(e);
    check_head("event racing a pop");
    while (!model.empty()) { b.wr(VMGPU_REG_EVT_POP, 0); pop(); }
    check_head("drained");
    ++races;
  }

  // Random pushes and pops against the model.
  unsigned pushes = 0, pops = 0;
  for (unsigned i = 0; i < 400; ++i) {
    unsigned gap = rng() % 4;
    for (unsigned g = 0; g < gap; ++g) {
      if (rng() % 2) {
        Evt e = make(); drive(e);
        push(e);
        ++pushes;
      } else {
        b.m.evt_valid_i = 0;
      }
      b.tick();
    }
    b.m.evt_valid_i = 0;
    if (rng() % 3 == 0) {
      b.wr(VMGPU_REG_EVT_POP, 0);
      pop();
      ++pops;
    }
    if (i % 8 == 0) check_head("random");
  }
  check_head("random end");
  std::printf("events: fill to %u, 3 more replace the oldest (DROPPED 3, OVERFLOW), one pop "
              "clears both, DROPPED saturates at 0x7FFF, head fields, %u push-at-pop races, "
              "%u random pushes / %u pops\n", p.evt, races, pushes, pops);
}

// ---------------------------------------------------------------------------------------------

void test_counters(Bench &b) {
  uint32_t hits = 0, misses = 0, evicts = 0, walks = 0;
  auto check = [&](const char *when) {
    uint32_t h = b.rd(VMGPU_REG_TLB_HITS), m = b.rd(VMGPU_REG_TLB_MISSES),
             e = b.rd(VMGPU_REG_TLB_EVICTIONS), w = b.rd(VMGPU_REG_WALK_CYCLES);
    CHECK(h == hits && m == misses && e == evicts && w == walks,
          "%s: hits %u/%u misses %u/%u evictions %u/%u walk cycles %u/%u", when, h, hits, m,
          misses, e, evicts, w, walks);
  };
  check("after reset");
  // Each strobe alone, back to back.
  for (int i = 0; i < 7; ++i) { b.m.stat_hit_i = 1; b.tick(); ++hits; }
  check("hits");
  for (int i = 0; i < 5; ++i) { b.m.stat_miss_i = 1; b.tick(); ++misses; }
  for (int i = 0; i < 3; ++i) { b.m.stat_evict_i = 1; b.tick(); ++evicts; }
  check("misses, evictions");
  b.m.stat_walk_i = 1;
  b.idle(11);
  b.m.stat_walk_i = 0;
  walks += 11;
  check("walk");
  // All at once, random, also while accesses are in flight (counting must not stop for them).
  for (int i = 0; i < 2000; ++i) {
    bool h = b.rng() % 2, m = b.rng() % 3 == 0, e = b.rng() % 5 == 0, w = b.rng() % 2;
    b.m.stat_hit_i = h; b.m.stat_miss_i = m; b.m.stat_evict_i = e; b.m.stat_walk_i = w;
    hits += h; misses += m; evicts += e; walks += w;
    if (i % 97 == 0) {
      // A read of a counter in flight: the stats of the access's cycles count too.
      b.m.csr_req_i = 1; b.m.csr_we_i = 0; b.m.csr_addr_i = VMGPU_REG_TLB_HITS;
    }
    Bench::Seen s = b.tick();
    if (s.ack) b.m.csr_req_i = 0;
  }
  b.m.stat_walk_i = 0;
  b.m.csr_req_i = 0;
  b.idle(2);
  check("random");
  // Read-only: writes do not reset them.
  b.wr(VMGPU_REG_TLB_HITS, 0);
  b.wr(VMGPU_REG_WALK_CYCLES, 0);
  check("after writes");
  std::printf("counters: %u hits, %u misses, %u evictions, %u walk cycles counted exactly\n",
              hits, misses, evicts, walks);
}

}  // namespace

int main(int argc, char **argv) {
  Verilated::commandArgs(argc, argv);
  std::string which = argc > 1 ? argv[1] : "all";
  Params p;
  for (int i = 2; i + 1 < argc; i += 2) {
    uint32_t v = uint32_t(std::strtoul(argv[i + 1], nullptr, 0));
    if (!std::strcmp(argv[i], "--mem")) p.mem = v;
    else if (!std::strcmp(argv[i], "--tlb")) p.tlb = v;
    else if (!std::strcmp(argv[i], "--rings")) p.rings = v;
    else if (!std::strcmp(argv[i], "--evt")) p.evt = v;
  }
  uint32_t seed = 2166136261u;  // FNV-1a of the test name: a fixed seed per test
  for (char ch : which) seed = (seed ^ uint8_t(ch)) * 16777619u;
  bool all = which == "all", known = false;
  auto want = [&](const char *n) { bool m = all || which == n; known |= m; return m; };
  // A fresh device per group, so each starts from reset.
  if (want("regs")) { Bench b(p, seed); test_regs(b); }
  if (want("int")) { Bench b(p, seed); test_int(b); }
  if (want("cycle")) { Bench b(p, seed); test_cycle(b); }
  if (want("window")) { Bench b(p, seed); test_window(b); }
  if (want("ring")) { Bench b(p, seed); test_ring(b); }
  if (want("release")) { Bench b(p, seed); test_release(b); }
  if (want("events")) { Bench b(p, seed); test_events(b); }
  if (want("counters")) { Bench b(p, seed); test_counters(b); }
  if (!known) { std::printf("unknown test '%s'\n", which.c_str()); return 2; }
  return tb::summary(("csr_" + which).c_str());
}
