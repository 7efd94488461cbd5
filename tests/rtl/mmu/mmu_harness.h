// Test harness of the mmu: a device-memory model behind the walker's read port (configurable
// latency and back-pressure), a page-table builder, monitors for responses, events and
// counters, and a reference model of the TLB and the translation rules to compare against.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vmmu.h"
#include "tb_check.h"
#include "verilated.h"
#include <vmgpu/regs.h>

namespace mmutb {

constexpr int kBound = 2000;  // cycles any single wait may take before the test gives up

struct Options {
  unsigned entries = 16;         // must equal the TLB_ENTRIES the model was built with
  uint32_t mem_bytes = 16u << 20;  // must equal MEM_BYTES
};

// Sparse-free word memory of the device: the whole MEM_BYTES as a vector.
struct Memory {
  std::vector<uint32_t> words;
  uint32_t bytes;
  explicit Memory(uint32_t b) : words(b / 4, 0), bytes(b) {}
  uint32_t rd(uint32_t addr) const { return words[(addr & (bytes - 1)) >> 2]; }
  void wr(uint32_t addr, uint32_t v) { words[(addr & (bytes - 1)) >> 2] = v; }
};

// Builds two-level tables: page-table frames come from a bump allocator.
struct PageTables {
  Memory &mem;
  uint32_t next_frame;
  PageTables(Memory &m, uint32_t first_frame) : mem(m), next_frame(first_frame) {}
  uint32_t alloc_frame() {
    uint32_t f = next_frame++;
    for (uint32_t i = 0; i < 1024; ++i) mem.wr((f << 12) + 4 * i, 0);
    return f;
  }
  uint32_t new_root() { return alloc_frame() << 12; }
  static uint32_t pde_addr(uint32_t root, uint32_t va) { return root + (va >> 22) * 4; }
  uint32_t pte_addr(uint32_t root, uint32_t va) const {
    uint32_t pde = mem.rd(pde_addr(root, va));
    return (pde & 0xFFFFF000u) + ((va >> 12) & 0x3FFu) * 4;
  }
  // Maps the page of va; creates the page table when the PDE is not valid.
  void map(uint32_t root, uint32_t va, uint32_t pte) {
    uint32_t pa = pde_addr(root, va);
    if (!(mem.rd(pa) & VMGPU_PTE_V)) mem.wr(pa, (alloc_frame() << 12) | VMGPU_PTE_V);
    mem.wr(pte_addr(root, va), pte);
  }
  void set_pde(uint32_t root, uint32_t va, uint32_t pde) { mem.wr(pde_addr(root, va), pde); }
};

static inline uint32_t pte(uint32_t frame, uint32_t flags) { return (frame << 12) | flags; }

struct Response {
  bool ok = false;  // a response came back at all
  int port = -1;
  uint32_t pa = 0;
  bool host = false;
  bool fault = false;
  unsigned reason = 0;
  uint64_t accept_cycle = 0, rsp_cycle = 0;
  int latency() const { return int(rsp_cycle - accept_cycle); }
};

struct Event {
  unsigned kind, reason;
  bool write;
  unsigned asid;
  uint32_t va, pte;
  bool operator==(const Event &o) const {
    return kind == o.kind && reason == o.reason && write == o.write && asid == o.asid &&
           va == o.va && pte == o.pte;
  }
};

static inline std::string evt_str(const Event &e) {
  char b[160];
  std::snprintf(b, sizeof b, "{kind %u reason %u write %d asid %u va %08x pte %08x}", e.kind,
                e.reason, e.write, e.asid, e.va, e.pte);
  return b;
}

// Reference model: the architecture's rules and a round-robin fully associative TLB.
struct RefMmu {
  struct Entry {
    bool valid = false;
    unsigned asid = 0;
    uint32_t vpn = 0, pte = 0;
  };
  std::vector<Entry> e;
  unsigned victim = 0;
  uint32_t mem_frames;
  RefMmu(unsigned n, uint32_t mem_bytes) : e(n), mem_frames(mem_bytes >> 12) {}

  struct Out {
    bool fault = false;
    unsigned reason = 0;
    uint32_t pa = 0;
    bool host = false;
    bool hit = false, miss = false, evict = false;
    int reads = 0;  // page-table reads the walk makes
    bool has_evt = false;
    Event evt{};
  };

  int lookup(unsigned asid, uint32_t va) const {
    for (size_t i = 0; i < e.size(); ++i)
      if (e[i].valid && e[i].asid == asid && e[i].vpn == (va >> 12)) return int(i);
    return -1;
  }

  Out translate(bool ctx_valid, unsigned asid, uint32_t root, uint32_t va, bool write,
                const Memory &mem) {
    Out o;
    auto fault = [&](unsigned r, uint32_t p) {
      o.fault = true;
      o.reason = r;
      o.has_evt = true;
      o.evt = Event{VMGPU_EVT_FAULT, r, write, asid, va, p};
    };
    if (!ctx_valid) {
      fault(VMGPU_FAULT_NO_CONTEXT, 0);
      return o;
    }
    int h = lookup(asid, va);
    if (h >= 0) {
      o.hit = true;
      uint32_t p = e[h].pte;
      bool allowed = write ? (p & VMGPU_PTE_W) : (p & VMGPU_PTE_R);
      if (!allowed) {
        fault(write ? VMGPU_FAULT_WRITE_DENIED : VMGPU_FAULT_READ_DENIED, p & 0xFFFFF00Fu);
      } else {
        o.pa = (p & 0xFFFFF000u) | (va & 0xFFFu);
        o.host = p & VMGPU_PTE_HOST;
      }
      return o;
    }
    o.miss = true;
    uint32_t pde = mem.rd(root + (va >> 22) * 4);
    o.reads = 1;
    if (!(pde & VMGPU_PTE_V)) return fault(VMGPU_FAULT_PDE_INVALID, pde), o;
    if ((pde >> 12) >= mem_frames) return fault(VMGPU_FAULT_PHYS_RANGE, pde), o;
    uint32_t p = mem.rd((pde & 0xFFFFF000u) + ((va >> 12) & 0x3FFu) * 4);
    o.reads = 2;
    if (!(p & VMGPU_PTE_V)) return fault(VMGPU_FAULT_PTE_INVALID, p), o;
    if (!write && !(p & VMGPU_PTE_R)) return fault(VMGPU_FAULT_READ_DENIED, p), o;
    if (write && !(p & VMGPU_PTE_W)) return fault(VMGPU_FAULT_WRITE_DENIED, p), o;
    if (!(p & VMGPU_PTE_HOST) && (p >> 12) >= mem_frames)
      return fault(VMGPU_FAULT_PHYS_RANGE, p), o;
    o.pa = (p & 0xFFFFF000u) | (va & 0xFFFu);
    o.host = p & VMGPU_PTE_HOST;
    o.evict = e[victim].valid;
    e[victim] = Entry{true, asid, va >> 12, p};
    victim = (victim + 1) % e.size();
    o.has_evt = true;
    o.evt = Event{VMGPU_EVT_TLB_FILL, 0, write, asid, va, p};
    return o;
  }

  void invalidate(unsigned mode, unsigned asid, uint32_t va, uint32_t size) {
    uint64_t first = va >> 12;
    uint64_t last = (uint64_t(va) + size - 1) >> 12;  // meaningful only for size > 0
    for (auto &x : e) {
      bool drop = false;
      if (mode == VMGPU_INV_ALL) drop = true;
      if (mode == VMGPU_INV_ASID) drop = x.asid == asid;
      if (mode == VMGPU_INV_RANGE)
        drop = x.asid == asid && size != 0 && x.vpn >= first && x.vpn <= last;
      if (drop) x.valid = false;
    }
  }
};

// The design under test with its memory and monitors.
struct Harness {
  Options opt;
  std::unique_ptr<VerilatedContext> ctx;
  std::unique_ptr<Vmmu> top;
  Memory mem;
  uint64_t cycle = 0;

  // memory behaviour
  int latency = 1;          // cycles from read acceptance to response (>= 1)
  int ready_percent = 100;  // chance pt_rd_ready is high in a cycle
  std::mt19937 rng{12345};
  struct Pending {
    uint64_t due;
    uint32_t data;
  };
  std::deque<Pending> rsp_q;
  std::vector<uint32_t> read_log;  // addresses of accepted page-table reads

  // monitors
  uint64_t hits = 0, misses = 0, evicts = 0, walk_cycles = 0, inv_dones = 0;
  std::vector<Event> events;
  std::vector<Response> responses;  // every response pulse, in order
  bool prev_rd_valid = false;
  uint32_t prev_rd_addr = 0;
  bool prev_rd_accepted = false;

  explicit Harness(const Options &o) : opt(o), ctx(new VerilatedContext), mem(o.mem_bytes) {
    top.reset(new Vmmu(ctx.get()));
    top->clk_i = 0;
    top->rst_ni = 0;
    top->ctx_valid_i = 0;
    top->tr0_req_valid_i = 0;
    top->tr1_req_valid_i = 0;
    top->inv_valid_i = 0;
    top->pt_rd_ready_i = 1;
    top->pt_rsp_valid_i = 0;
    for (int i = 0; i < 4; ++i) step();
    top->rst_ni = 1;
    step();
    clear_monitors();
  }
  ~Harness() { top->final(); }

  void clear_monitors() {
    hits = misses = evicts = walk_cycles = inv_dones = 0;
    events.clear();
    responses.clear();
    read_log.clear();
  }

  void set_ctx(bool valid, unsigned asid, uint32_t root) {
    top->ctx_valid_i = valid;
    top->ctx_asid_i = asid;
    top->ctx_root_i = root;
  }

  // One clock cycle: drive the memory side, settle, sample everything, rising edge.
  void step() {
    bool rsp_now = !rsp_q.empty() && rsp_q.front().due == cycle;
    top->pt_rsp_valid_i = rsp_now;
    top->pt_rsp_data_i = rsp_now ? rsp_q.front().data : 0xDEADBEEFu;
    top->pt_rd_ready_i = (int(rng() % 100) < ready_percent);
    top->clk_i = 0;
    top->eval();

    if (top->rst_ni) {
      // The request must hold until it is taken.
      if (prev_rd_valid && !prev_rd_accepted) {
        CHECK(top->pt_rd_valid_o && top->pt_rd_addr_o == prev_rd_addr,
              "cycle %llu: page-table read dropped or changed before acceptance (%08x -> %08x)",
              (unsigned long long)cycle, prev_rd_addr, top->pt_rd_addr_o);
      }
      bool acc = top->pt_rd_valid_o && top->pt_rd_ready_i;
      if (acc) {
        read_log.push_back(top->pt_rd_addr_o);
        rsp_q.push_back(Pending{cycle + uint64_t(latency), mem.rd(top->pt_rd_addr_o)});
      }
      prev_rd_valid = top->pt_rd_valid_o;
      prev_rd_addr = top->pt_rd_addr_o;
      prev_rd_accepted = acc;

      CHECK(!(top->tr0_rsp_valid_o && top->tr1_rsp_valid_o),
            "cycle %llu: responses on both ports at once", (unsigned long long)cycle);
      for (int p = 0; p < 2; ++p) {
        bool v = p ? top->tr1_rsp_valid_o : top->tr0_rsp_valid_o;
        if (!v) continue;
        Response r;
        r.ok = true;
        r.port = p;
        r.pa = p ? top->tr1_rsp_pa_o : top->tr0_rsp_pa_o;
        r.host = p ? top->tr1_rsp_host_o : top->tr0_rsp_host_o;
        r.fault = p ? top->tr1_rsp_fault_o : top->tr0_rsp_fault_o;
        r.reason = p ? top->tr1_rsp_reason_o : top->tr0_rsp_reason_o;
        r.rsp_cycle = cycle;
        responses.push_back(r);
      }
      hits += top->stat_hit_o;
      misses += top->stat_miss_o;
      evicts += top->stat_evict_o;
      walk_cycles += top->stat_walk_o;
      inv_dones += top->inv_done_o;
      if (top->evt_valid_o)
        events.push_back(Event{top->evt_kind_o, top->evt_reason_o, bool(top->evt_write_o),
                               top->evt_asid_o, top->evt_va_o, top->evt_pte_o});
    }
    if (rsp_now) rsp_q.pop_front();

    top->clk_i = 1;
    top->eval();
    ++cycle;
  }

  // Presents a request on a port until accepted; returns the acceptance cycle or ~0 on timeout.
  uint64_t issue(int port, uint32_t va, bool write) {
    for (int n = 0; n < kBound; ++n) {
      if (port == 0) {
        top->tr0_req_valid_i = 1;
        top->tr0_req_va_i = va;
        top->tr0_req_write_i = write;
      } else {
        top->tr1_req_valid_i = 1;
        top->tr1_req_va_i = va;
        top->tr1_req_write_i = write;
      }
      top->clk_i = 0;
      top->eval();
      bool ready = port ? top->tr1_req_ready_o : top->tr0_req_ready_o;
      uint64_t c = cycle;
      step();
      if (ready) {
        if (port == 0) top->tr0_req_valid_i = 0;
        else top->tr1_req_valid_i = 0;
        return c;
      }
    }
    CHECK(false, "request on port %d (va %08x) never accepted", port, va);
    top->tr0_req_valid_i = top->tr1_req_valid_i = 0;
    return ~0ull;
  }

  // Waits for the next response after `from` responses were seen.
  Response wait_response(size_t from) {
    for (int n = 0; n < kBound && responses.size() <= from; ++n) step();
    if (responses.size() <= from) {
      CHECK(false, "no response within %d cycles", kBound);
      return Response{};
    }
    return responses[from];
  }

  // One complete translation on a port; checks the answer came on that port, exactly once.
  Response translate(int port, uint32_t va, bool write) {
    size_t from = responses.size();
    uint64_t acc = issue(port, va, write);
    if (acc == ~0ull) return Response{};
    Response r = wait_response(from);
    r.accept_cycle = acc;
    CHECK(r.port == port, "va %08x: response on port %d, asked on %d", va, r.port, port);
    step();  // no second pulse
    CHECK(responses.size() == from + 1, "va %08x: %zu responses to one request", va,
          responses.size() - from);
    return r;
  }

  // Pulses an invalidation and waits for inv_done; returns cycles from the pulse to done.
  int invalidate(unsigned mode, unsigned asid, uint32_t va, uint32_t size) {
    uint64_t before = inv_dones;
    top->inv_valid_i = 1;
    top->inv_mode_i = mode;
    top->inv_asid_i = asid;
    top->inv_va_i = va;
    top->inv_size_i = size;
    uint64_t start = cycle;
    step();
    top->inv_valid_i = 0;
    top->inv_va_i = 0xA5A5A5A5u;  // operands need not be held after the pulse
    top->inv_size_i = 0;
    for (int n = 0; n < kBound && inv_dones == before; ++n) step();
    CHECK(inv_dones == before + 1, "inv_done count %llu, expected %llu",
          (unsigned long long)inv_dones, (unsigned long long)(before + 1));
    return int(cycle - 1 - start);
  }

  void idle(int n) {
    for (int i = 0; i < n; ++i) step();
  }
};

// Compares one translation of the design with the reference model, counters and event included.
struct Checker {
  Harness &h;
  RefMmu ref;
  bool ctx_valid = true;
  unsigned asid = 0;
  uint32_t root = 0;
  Checker(Harness &hh) : h(hh), ref(hh.opt.entries, hh.opt.mem_bytes) {}

  void context(bool valid, unsigned a, uint32_t r) {
    ctx_valid = valid;
    asid = a;
    root = r;
    h.set_ctx(valid, a, r);
  }

  // Translates and checks against the model; returns the design's response.
  Response run(int port, uint32_t va, bool write, const char *what = "") {
    RefMmu::Out e = ref.translate(ctx_valid, asid, root, va, write, h.mem);
    uint64_t hits = h.hits, misses = h.misses, evicts = h.evicts;
    size_t evts = h.events.size(), reads = h.read_log.size();
    Response r = h.translate(port, va, write);
    CHECK(r.ok, "%s va %08x: no response", what, va);
    CHECK(r.fault == e.fault && r.reason == e.reason,
          "%s asid %u va %08x %s: fault %d reason %u, expected fault %d reason %u", what, asid,
          va, write ? "write" : "read", r.fault, r.reason, e.fault, e.reason);
    CHECK(r.pa == e.pa && r.host == e.host, "%s va %08x: pa %08x host %d, expected %08x host %d",
          what, va, r.pa, r.host, e.pa, e.host);
    CHECK(h.hits - hits == e.hit && h.misses - misses == e.miss && h.evicts - evicts == e.evict,
          "%s va %08x: hit/miss/evict pulses %llu/%llu/%llu, expected %d/%d/%d", what, va,
          (unsigned long long)(h.hits - hits), (unsigned long long)(h.misses - misses),
          (unsigned long long)(h.evicts - evicts), e.hit, e.miss, e.evict);
    CHECK(h.read_log.size() - reads == size_t(e.reads), "%s va %08x: %zu table reads, expected %d",
          what, va, h.read_log.size() - reads, e.reads);
    size_t want = e.has_evt ? 1 : 0;
    CHECK(h.events.size() - evts == want, "%s va %08x: %zu events, expected %zu", what, va,
          h.events.size() - evts, want);
    if (e.has_evt && h.events.size() == evts + 1)
      CHECK(h.events.back() == e.evt, "%s va %08x: event %s, expected %s", what, va,
            evt_str(h.events.back()).c_str(), evt_str(e.evt).c_str());
    return r;
  }

  int invalidate(unsigned mode, unsigned a, uint32_t va, uint32_t size) {
    ref.invalidate(mode, a, va, size);
    size_t evts = h.events.size();
    int c = h.invalidate(mode, a, va, size);
    CHECK(h.events.size() == evts + 1, "invalidate: %zu events, expected 1", h.events.size() - evts);
    if (h.events.size() == evts + 1) {
      Event want{VMGPU_EVT_INVALIDATE, mode, false, a, va, size};
      CHECK(h.events.back() == want, "invalidate event %s, expected %s",
            evt_str(h.events.back()).c_str(), evt_str(want).c_str());
    }
    return c;
  }
};

}  // namespace mmutb
