// Verilator testbench of the mmu. One executable per parameter set; the first argument picks the
// test group (tlb, asid, walker, invalidate, ports, backpressure, random), options give the
// parameters the model was built with: --entries N (TLB_ENTRIES), --mem BYTES (MEM_BYTES),
// --req-reg 0|1 (REQ_REG: every answer one cycle later, back-to-back requests two cycles apart).
#include <cinttypes>
#include <map>

#include "mmu_harness.h"

using namespace mmutb;

namespace {

// The verilated REQ_REG: cycles the registered request stage adds to every answer.
int g_rr = 0;

const uint32_t RW = VMGPU_PTE_V | VMGPU_PTE_R | VMGPU_PTE_W;

// Data frames are taken well above the page-table frames.
uint32_t data_frame(unsigned i) { return 0x800 + i; }

// ------------------------------------------------------------------------------------------ tlb
void test_tlb(Harness &h) {
  const unsigned n = h.opt.entries;
  std::printf("tlb: hit/miss/evict, round-robin replacement, counters, latencies (%u entries)\n", n);
  PageTables pt(h.mem, 0x100);
  uint32_t root = pt.new_root();
  Checker c(h);
  c.context(true, 1, root);
  auto va_of = [](unsigned i) { return 0x10000000u + i * 0x1000u + (i * 0x44u & 0xFFCu); };
  for (unsigned i = 0; i < n + 4; ++i) pt.map(root, va_of(i), pte(data_frame(i), RW));

  // Cold: every page misses, walks twice (PDE then PTE), fills without evicting.
  for (unsigned i = 0; i < n; ++i) {
    size_t reads = h.read_log.size();
    Response r = c.run(0, va_of(i), i & 1, "cold");
    CHECK(r.latency() == 5 + g_rr, "cold miss latency %d, expected %d (one-cycle memory)", r.latency(), 5 + g_rr);
    CHECK(r.pa == ((data_frame(i) << 12) | (va_of(i) & 0xFFF)), "cold pa %08x", r.pa);
    if (h.read_log.size() == reads + 2) {
      CHECK(h.read_log[reads] == root + (va_of(i) >> 22) * 4, "PDE read at %08x",
            h.read_log[reads]);
      CHECK(h.read_log[reads + 1] == pt.pte_addr(root, va_of(i)), "PTE read at %08x",
            h.read_log[reads + 1]);
    }
  }
  CHECK(h.misses == n && h.hits == 0 && h.evicts == 0, "after cold fill: %" PRIu64 " misses %" PRIu64
        " hits %" PRIu64 " evicts", h.misses, h.hits, h.evicts);
  CHECK(h.walk_cycles == 4ull * n, "walk cycles %" PRIu64 ", expected %u (4 per walk)",
        h.walk_cycles, 4 * n);
  CHECK(h.events.size() == n, "%zu fill events, expected %u", h.events.size(), n);
  for (unsigned i = 0; i < h.events.size() && i < n; ++i)
    CHECK(h.events[i].kind == VMGPU_EVT_TLB_FILL && h.events[i].va == va_of(i) &&
              h.events[i].pte == pte(data_frame(i), RW) && h.events[i].asid == 1,
          "fill event %u: %s", i, evt_str(h.events[i]).c_str());

  // Warm: every page hits in one cycle, no memory traffic, no walk cycles.
  size_t reads = h.read_log.size();
  uint64_t walk = h.walk_cycles;
  for (unsigned i = 0; i < n; ++i) {
    Response r = c.run(i % 2, va_of(i) ^ 0x10, false, "warm");
    CHECK(r.latency() == 1 + g_rr, "hit latency %d, expected %d", r.latency(), 1 + g_rr);
  }
  CHECK(h.read_log.size() == reads && h.walk_cycles == walk, "hits touched memory");
  CHECK(h.hits == n, "%" PRIu64 " hits, expected %u", h.hits, n);

  // Page n replaces entry 0 (page 0); page 0 then replaces entry 1 (page 1), and so on.
  Response r = c.run(0, va_of(n), false, "evict");
  CHECK(h.evicts == 1, "%" PRIu64 " evictions after the first replacement", h.evicts);
  uint64_t m = h.misses;
  c.run(0, va_of(0), false, "evicted page 0");
  CHECK(h.misses == m + 1, "page 0 should have been the round-robin victim");
  m = h.misses;
  uint64_t hits = h.hits;
  for (unsigned i = 2; i < n; ++i) c.run(1, va_of(i), true, "survivor");
  CHECK(h.misses == m && h.hits == hits + (n - 2), "pages 2..%u should still hit", n - 1);
  c.run(0, va_of(1), false, "evicted page 1");
  CHECK(h.misses == m + 1, "page 1 should have been replaced by page 0");
  CHECK(h.evicts == 3, "%" PRIu64 " evictions, expected 3", h.evicts);

  // Back-to-back hits: the MMU is ready again in the response cycle, so a request held valid
  // goes through at one per cycle.
  {
    unsigned a = (n > 3) ? 3 : 2, b = (n > 3) ? 4 : 0;  // pages known to be cached
    if (n == 2) a = 0, b = 1;
    size_t from = h.responses.size();
    uint64_t acc1 = h.issue(0, va_of(a), false);
    uint64_t acc2 = h.issue(0, va_of(b), true);
    for (int k = 0; k <= g_rr; ++k) h.step();
    CHECK(acc2 == acc1 + 1 + uint64_t(g_rr), "second hit accepted %" PRIu64 " cycles after the first",
          acc2 - acc1);
    CHECK(h.responses.size() == from + 2, "%zu responses to two pipelined hits",
          h.responses.size() - from);
    if (h.responses.size() == from + 2) {
      CHECK(h.responses[from].pa == ((data_frame(a) << 12) | (va_of(a) & 0xFFF)) &&
                h.responses[from + 1].pa == ((data_frame(b) << 12) | (va_of(b) & 0xFFF)),
            "pipelined hit pas %08x %08x", h.responses[from].pa, h.responses[from + 1].pa);
      CHECK(h.responses[from + 1].rsp_cycle == h.responses[from].rsp_cycle + 1 + uint64_t(g_rr),
            "pipelined responses not back to back");
    }
    // keep the reference model in step with the two hits
    c.ref.translate(true, 1, root, va_of(a), false, h.mem);
    c.ref.translate(true, 1, root, va_of(b), true, h.mem);
  }

  // A cached read-only page: a write hits and faults, a read hits and succeeds.
  uint32_t ro = 0x20000000u;
  pt.map(root, ro, pte(0x900, VMGPU_PTE_V | VMGPU_PTE_R));
  c.run(0, ro + 8, false, "ro fill");
  uint64_t hh = h.hits;
  r = c.run(0, ro + 12, true, "ro write hit");
  CHECK(r.fault && r.reason == VMGPU_FAULT_WRITE_DENIED && h.hits == hh + 1 && r.latency() == 1 + g_rr,
        "write to cached read-only page: fault %d reason %u latency %d", r.fault, r.reason,
        r.latency());
  CHECK(!h.events.empty() && h.events.back().pte == pte(0x900, VMGPU_PTE_V | VMGPU_PTE_R),
        "hit-fault event pte %08x", h.events.empty() ? 0 : h.events.back().pte);

  // Long run of scattered pages compared with the model (replacement order and counters).
  std::mt19937 rng(7);
  for (int i = 0; i < 400; ++i) c.run(rng() & 1, va_of(rng() % (n + 4)) + (rng() & 0xFFF) - 0, rng() & 1, "mixed");
}

// ----------------------------------------------------------------------------------------- asid
void test_asid(Harness &h) {
  std::printf("asid: one VA in two ASIDs maps to two frames; hits never cross ASIDs\n");
  PageTables pt(h.mem, 0x100);
  uint32_t root1 = pt.new_root(), root2 = pt.new_root();
  const uint32_t va = 0x40001234u;
  pt.map(root1, va, pte(0xA01, RW));
  pt.map(root2, va, pte(0xB02, VMGPU_PTE_V | VMGPU_PTE_R));
  pt.map(root1, 0x50000000u, pte(0xA02, RW));  // mapped in ASID 1 only
  Checker c(h);

  c.context(true, 1, root1);
  Response r = c.run(0, va, true, "asid1 fill");
  CHECK(!r.fault && r.pa == 0xA01234u, "asid 1: pa %08x", r.pa);
  c.run(0, 0x50000010u, false, "asid1 fill b");

  c.context(true, 2, root2);
  uint64_t m = h.misses;
  r = c.run(0, va, false, "asid2 same va");
  CHECK(!r.fault && r.pa == 0xB02234u && h.misses == m + 1,
        "asid 2 must walk its own table: pa %08x misses +%" PRIu64, r.pa, h.misses - m);
  r = c.run(0, va, true, "asid2 write");
  CHECK(r.fault && r.reason == VMGPU_FAULT_WRITE_DENIED,
        "asid 2 write to its read-only page must fault (asid 1's RW entry must not serve it)");
  r = c.run(1, 0x50000010u, false, "asid2 unmapped");
  CHECK(r.fault && r.reason == VMGPU_FAULT_PDE_INVALID,
        "asid 2 page cached only for asid 1: fault %d reason %u", r.fault, r.reason);

  // Both now cached: each ASID hits its own entry.
  c.context(true, 1, root1);
  uint64_t hh = h.hits;
  r = c.run(0, va, false, "asid1 hit");
  const bool roomy = h.opt.entries >= 4;  // with 2 entries the pages above evicted each other
  CHECK(r.pa == 0xA01234u && (!roomy || h.hits == hh + 1), "asid 1 hit pa %08x", r.pa);
  c.context(true, 2, root2);
  r = c.run(1, va, false, "asid2 hit");
  CHECK(r.pa == 0xB02234u && (!roomy || h.hits == hh + 2), "asid 2 hit pa %08x", r.pa);

  // Same ASID numbers, roots swapped: a cached entry follows the ASID, not the root (the
  // driver must invalidate when it rebinds an ASID).
  c.context(true, 2, root1);
  r = c.run(0, va, false, "asid2 stale root");
  CHECK(r.pa == 0xB02234u, "asid 2 with another root still hits its cached frame: %08x", r.pa);
  c.invalidate(VMGPU_INV_ASID, 2, 0, 0);
  r = c.run(0, va, false, "asid2 after inv");
  CHECK(r.pa == 0xA01234u, "after INV_ASID the new root is walked: %08x", r.pa);

  // ASID 255 and 0 are ordinary tags.
  uint32_t root3 = pt.new_root();
  pt.map(root3, va, pte(0xC03, RW));
  c.context(true, 255, root3);
  r = c.run(0, va, false, "asid255");
  CHECK(r.pa == 0xC03234u, "asid 255 pa %08x", r.pa);
  c.context(true, 0, root3);
  m = h.misses;
  r = c.run(0, va, false, "asid0");
  CHECK(r.pa == 0xC03234u && h.misses == m + 1, "asid 0 misses and walks");
}

// --------------------------------------------------------------------------------------- walker
void test_walker(Harness &h) {
  const uint32_t frames = h.opt.mem_bytes >> 12;
  std::printf("walker: every PDE/PTE shape, exact reasons and addresses (MEM_BYTES %u)\n",
              h.opt.mem_bytes);
  PageTables pt(h.mem, 0x4);
  uint32_t root = pt.new_root();
  Checker c(h);
  c.context(true, 7, root);

  struct Case {
    const char *name;
    uint32_t va;
    uint32_t pte;  // written as the PTE (after a valid PDE) unless pde_raw is set
    bool pde_raw;
    uint32_t pde;
    bool write;
    bool fault;
    unsigned reason;
    uint32_t pa;
    bool host;
  };
  const uint32_t top = frames - 1;  // highest frame inside device memory
  auto df = [&](uint32_t f) { return f % frames; };  // a data frame inside device memory
  std::vector<Case> cases = {
      {"invalid PDE", 0x00401000u, 0, true, 0x00003000u /* frame but V=0 */, false, true,
       VMGPU_FAULT_PDE_INVALID, 0, false},
      {"PDE frame = MEM_FRAMES", 0x00801000u, 0, true, (frames << 12) | 1, false, true,
       VMGPU_FAULT_PHYS_RANGE, 0, false},
      {"PDE frame far out", 0x00C01000u, 0, true, 0xFFFFF001u, true, true,
       VMGPU_FAULT_PHYS_RANGE, 0, false},
      {"invalid PTE", 0x01001000u, pte(df(0x123), VMGPU_PTE_R | VMGPU_PTE_W), false, 0, false, true,
       VMGPU_FAULT_PTE_INVALID, 0, false},
      {"invalid PTE, frame out of range", 0x01002000u, pte(0xFFFFF, VMGPU_PTE_R), false, 0, true,
       true, VMGPU_FAULT_PTE_INVALID, 0, false},
      {"R-only read", 0x01003ABCu, pte(df(0x321), VMGPU_PTE_V | VMGPU_PTE_R), false, 0, false, false,
       0, (df(0x321) << 12 | 0xABCu), false},
      {"R-only write", 0x01004ABCu, pte(df(0x321), VMGPU_PTE_V | VMGPU_PTE_R), false, 0, true, true,
       VMGPU_FAULT_WRITE_DENIED, 0, false},
      {"W-only write", 0x01005004u, pte(df(0x322), VMGPU_PTE_V | VMGPU_PTE_W), false, 0, true, false,
       0, (df(0x322) << 12 | 0x004u), false},
      {"W-only read", 0x01006004u, pte(df(0x322), VMGPU_PTE_V | VMGPU_PTE_W), false, 0, false, true,
       VMGPU_FAULT_READ_DENIED, 0, false},
      {"no R no W read", 0x01007000u, pte(df(0x323), VMGPU_PTE_V), false, 0, false, true,
       VMGPU_FAULT_READ_DENIED, 0, false},
      {"no R no W write", 0x01008000u, pte(df(0x323), VMGPU_PTE_V), false, 0, true, true,
       VMGPU_FAULT_WRITE_DENIED, 0, false},
      {"read denied before range", 0x01009000u, pte(0xFFFFF, VMGPU_PTE_V | VMGPU_PTE_W), false, 0,
       false, true, VMGPU_FAULT_READ_DENIED, 0, false},
      {"HOST frame beyond device memory", 0x0100AFFCu, pte(0xFFFFF, RW | VMGPU_PTE_HOST), false, 0,
       true, false, 0, 0xFFFFFFFCu, true},
      {"HOST frame 0", 0x0100B010u, pte(0, VMGPU_PTE_V | VMGPU_PTE_R | VMGPU_PTE_HOST), false, 0,
       false, false, 0, 0x00000010u, true},
      {"device frame = MEM_FRAMES", 0x0100C000u, pte(frames, RW), false, 0, false, true,
       VMGPU_FAULT_PHYS_RANGE, 0, false},
      {"device frame far out", 0x0100D000u, pte(0xFFFFF, RW), false, 0, true, true,
       VMGPU_FAULT_PHYS_RANGE, 0, false},
      {"device frame = last", 0x0100EFFFu, pte(top, RW), false, 0, true, false, 0,
       (top << 12) | 0xFFF, false},
      {"directory index 1023, table index 1023", 0xFFFFF123u, pte(df(0x77), RW), false, 0, false,
       false, 0, (df(0x77) << 12 | 0x123u), false},
      {"va 0", 0x00000000u, pte(df(0x78), RW), false, 0, true, false, 0, (df(0x78) << 12 | 0x000u), false},
  };

  for (auto &k : cases) {
    if (k.pde_raw) pt.set_pde(root, k.va, k.pde);
    else pt.map(root, k.va, k.pte);
  }
  // A page table placed in the last frame of device memory is in range.
  uint32_t edge_va = 0x02000000u;
  pt.set_pde(root, edge_va, (top << 12) | 1);
  h.mem.wr((top << 12) + ((edge_va >> 12) & 0x3FF) * 4, pte(df(0x55), RW));
  cases.push_back({"page table in the last frame", edge_va + 0x40, 0, true, 0, false, false, 0,
                   (df(0x55) << 12 | 0x040u), false});

  for (auto &k : cases) {
    size_t reads = h.read_log.size(), evts = h.events.size();
    Response r = c.run(0, k.va, k.write, k.name);
    CHECK(r.fault == k.fault && r.reason == k.reason && r.pa == k.pa && r.host == k.host,
          "%s: fault %d reason %u pa %08x host %d; expected fault %d reason %u pa %08x host %d",
          k.name, r.fault, r.reason, r.pa, r.host, k.fault, k.reason, k.pa, k.host);
    int want_reads = (k.pde_raw && k.fault) ? 1 : 2;
    CHECK(h.read_log.size() - reads == size_t(want_reads), "%s: %zu table reads", k.name,
          h.read_log.size() - reads);
    CHECK(r.latency() == 1 + g_rr + 2 * want_reads, "%s: latency %d", k.name, r.latency());
    if (h.events.size() == evts + 1) {
      const Event &e = h.events.back();
      CHECK(e.kind == (k.fault ? VMGPU_EVT_FAULT : VMGPU_EVT_TLB_FILL) && e.reason == k.reason &&
                e.write == k.write && e.va == k.va && e.asid == 7,
            "%s: event %s", k.name, evt_str(e).c_str());
    }
    std::printf("  %-40s -> %s\n", k.name,
                r.fault ? vmgpu_fault_names[r.reason < VMGPU_FAULT_COUNT ? r.reason : 0] : "ok");
  }

  // Faults are not cached: repair the entries and the same accesses succeed without a TLB_INV.
  pt.map(root, 0x01001000u, pte(df(0x124), RW));
  pt.map(root, 0x01004000u, pte(df(0x125), RW));
  pt.map(root, 0x00401000u, pte(df(0x126), RW));  // PDE made valid again by map()
  Response r = c.run(0, 0x01001008u, false, "repaired PTE");
  CHECK(!r.fault && r.pa == (df(0x124) << 12 | 0x008u), "repaired PTE: fault %d pa %08x",
        r.fault, r.pa);
  r = c.run(0, 0x01004ABCu, true, "repaired write");
  CHECK(!r.fault && r.pa == (df(0x125) << 12 | 0xABCu), "repaired write: fault %d pa %08x",
        r.fault, r.pa);
  r = c.run(1, 0x00401FFFu, true, "repaired PDE");
  CHECK(!r.fault && r.pa == (df(0x126) << 12 | 0xFFFu), "repaired PDE: fault %d pa %08x",
        r.fault, r.pa);

  // No context: faults at once, no walk, no TLB lookup counted.
  c.context(false, 7, root);
  size_t reads = h.read_log.size();
  uint64_t hm = h.hits + h.misses;
  r = c.run(0, 0x01003000u, false, "no context");
  CHECK(r.fault && r.reason == VMGPU_FAULT_NO_CONTEXT && r.latency() == 1 + g_rr &&
            h.read_log.size() == reads && h.hits + h.misses == hm,
        "no context: fault %d reason %u latency %d", r.fault, r.reason, r.latency());
  r = c.run(1, 0x01003000u, true, "no context port 1");
  CHECK(r.fault && r.reason == VMGPU_FAULT_NO_CONTEXT, "no context on port 1");
}

// ----------------------------------------------------------------------------------- invalidate
void test_invalidate(Harness &h) {
  std::printf("invalidate: all / one ASID / range, stale entries really dropped\n");
  const unsigned n = h.opt.entries;
  PageTables pt(h.mem, 0x100);
  uint32_t root1 = pt.new_root(), root2 = pt.new_root();
  Checker c(h);

  // Without invalidation a changed PTE is not seen; after it, it is.
  const uint32_t va = 0x12345678u;
  pt.map(root1, va, pte(0x600, RW));
  c.context(true, 1, root1);
  c.run(0, va, false, "first");
  pt.map(root1, va, pte(0x601, RW));
  Response r = c.run(0, va, false, "stale");
  CHECK(r.pa == 0x600678u, "without invalidation the cached frame comes back: %08x", r.pa);
  int lat = c.invalidate(VMGPU_INV_ALL, 0, 0, 0);
  CHECK(lat >= 1 && lat <= 2, "inv_done %d cycles after the pulse", lat);
  r = c.run(0, va, false, "after INV_ALL");
  CHECK(r.pa == 0x601678u, "after INV_ALL the new frame: %08x", r.pa);

  // INV_ASID drops one ASID only.
  pt.map(root2, va, pte(0x700, RW));
  c.context(true, 2, root2);
  c.run(0, va, false, "asid2 fill");
  pt.map(root1, va, pte(0x602, RW));
  pt.map(root2, va, pte(0x701, RW));
  c.invalidate(VMGPU_INV_ASID, 1, 0, 0);
  c.context(true, 1, root1);
  r = c.run(0, va, false, "asid1 after INV_ASID 1");
  CHECK(r.pa == 0x602678u, "asid 1 sees its new frame: %08x", r.pa);
  c.context(true, 2, root2);
  r = c.run(0, va, false, "asid2 after INV_ASID 1");
  CHECK(r.pa == 0x700678u, "asid 2 still has its cached frame: %08x", r.pa);
  c.invalidate(VMGPU_INV_ASID, 2, 0, 0);
  r = c.run(0, va, false, "asid2 after INV_ASID 2");
  CHECK(r.pa == 0x701678u, "asid 2 after its own invalidation: %08x", r.pa);

  // INV_RANGE across the 4 MiB directory boundary at 0x00400000, in two ASIDs. Keep the set
  // within the TLB so nothing is evicted by capacity.
  auto range_case = [&](const char *name, std::vector<uint32_t> pages, uint32_t iva, uint32_t isz) {
    c.invalidate(VMGPU_INV_ALL, 0, 0, 0);
    while (pages.size() > n / 2) pages.erase(pages.begin());
    std::map<uint32_t, uint32_t> fr;
    unsigned f = 0;
    for (uint32_t p : pages) {
      pt.map(root1, p, pte(0x400 + f, RW));
      pt.map(root2, p, pte(0x500 + f, RW));
      fr[p] = f++;
    }
    for (int a = 1; a <= 2; ++a) {
      c.context(true, a, a == 1 ? root1 : root2);
      for (uint32_t p : pages) c.run(0, p, false, name);
    }
    for (uint32_t p : pages) {  // the tables change behind the TLB's back
      pt.map(root1, p, pte(0x480 + fr[p], RW));
      pt.map(root2, p, pte(0x580 + fr[p], RW));
    }
    // A range visits the entries one per cycle: ENTRIES cycles, plus the pulse's two.
    int rlat = c.invalidate(VMGPU_INV_RANGE, 1, iva, isz);
    CHECK(rlat >= int(n) && rlat <= int(n) + 2, "%s: range inv_done %d cycles after the pulse "
          "(%u entries)", name, rlat, n);
    for (int a = 1; a <= 2; ++a) {
      c.context(true, a, a == 1 ? root1 : root2);
      for (uint32_t p : pages) {
        uint64_t last = uint64_t(iva) + isz - 1;
        bool dropped = a == 1 && isz != 0 && (p >> 12) >= (iva >> 12) && (p >> 12) <= (last >> 12);
        uint32_t want = ((a == 1 ? 0x400 : 0x500) + (dropped ? 0x80 : 0) + fr[p]) << 12;
        Response rr = c.run(1, p, false, name);
        CHECK(rr.pa == want, "%s: asid %d page %08x pa %08x, expected %08x (%s)", name, a, p,
              rr.pa, want, dropped ? "dropped" : "kept");
      }
    }
  };
  std::vector<uint32_t> around = {0x003FE000u, 0x003FF000u, 0x00400000u, 0x00401000u,
                                  0x00402000u, 0x003FD000u};
  if (n >= 4) {
    range_case("range across the 4 MiB boundary", around, 0x003FF800u, 0x1000u);
    range_case("range of whole pages", around, 0x003FF000u, 0x2000u);
    range_case("range of one byte", around, 0x00400FFFu, 1u);
    range_case("empty range", around, 0x003FE000u, 0u);
    range_case("range ending at 0xFFFFFFFF",
               {0xFFFFE000u, 0xFFFFF000u, 0x00000000u, 0xFFFFD000u}, 0xFFFFE000u, 0x2000u);
    range_case("range running past 0xFFFFFFFF",
               {0xFFFFF000u, 0x00000000u, 0x00001000u}, 0xFFFFF800u, 0xFFFFFFFFu);
    range_case("range running one page past 0xFFFFFFFF",
               {0xFFFFD000u, 0xFFFFE000u, 0xFFFFF000u, 0x00000000u}, 0xFFFFE000u, 0x3000u);
    range_case("range of the whole space", {0x00000000u, 0x7FFFF000u, 0xFFFFF000u}, 0u,
               0xFFFFFFFFu);
  } else {
    range_case("range across the 4 MiB boundary", {0x003FF000u}, 0x003FF800u, 0x1000u);
    range_case("range ending at 0xFFFFFFFF", {0xFFFFF000u}, 0xFFFFE000u, 0x2000u);
    range_case("empty range", {0x003FF000u}, 0x003FF000u, 0u);
  }

  // An invalidation pulsed during a walk waits for it, and then drops what the walk filled.
  h.latency = 6;
  c.invalidate(VMGPU_INV_ALL, 0, 0, 0);
  pt.map(root1, va, pte(0x603, RW));
  c.context(true, 1, root1);
  RefMmu::Out e = c.ref.translate(true, 1, root1, va, false, h.mem);
  size_t from = h.responses.size();
  h.issue(0, va, false);
  h.idle(3);
  CHECK(h.top->stat_walk_o, "walk in progress");
  uint64_t dones = h.inv_dones;
  h.top->inv_valid_i = 1;
  h.top->inv_mode_i = VMGPU_INV_ALL;
  h.step();
  h.top->inv_valid_i = 0;
  CHECK(!h.top->tr0_req_ready_o && !h.top->tr1_req_ready_o, "no requests taken with inv pending");
  for (int i = 0; i < kBound && h.inv_dones == dones; ++i) h.step();
  CHECK(h.inv_dones == dones + 1, "invalidation during a walk completed");
  CHECK(h.responses.size() == from + 1 && h.responses[from].pa == e.pa,
        "walk answered before the invalidation finished");
  if (h.responses.size() == from + 1)
    CHECK(h.responses[from].rsp_cycle < h.cycle - 1, "response came before inv_done");
  c.ref.invalidate(VMGPU_INV_ALL, 0, 0, 0);
  h.latency = 1;
  pt.map(root1, va, pte(0x604, RW));
  r = c.run(0, va, false, "after inv during walk");
  CHECK(r.pa == 0x604678u, "entry filled by the interrupted walk dropped: %08x", r.pa);

  // Reserved mode 3 drops nothing but still completes.
  c.run(0, va, false, "cached");
  c.invalidate(3, 1, 0, 0xFFFFFFFFu);
  uint64_t hh = h.hits;
  c.run(0, va, false, "after mode 3");
  CHECK(h.hits == hh + 1, "mode 3 dropped an entry");
}

// ---------------------------------------------------------------------------------------- ports
void test_ports(Harness &h) {
  std::printf("ports: both translation ports, port 0 priority, answers on the asking port\n");
  PageTables pt(h.mem, 0x100);
  uint32_t root = pt.new_root();
  Checker c(h);
  c.context(true, 3, root);
  for (unsigned i = 0; i < 8; ++i) pt.map(root, 0x30000000u + i * 0x1000u, pte(0x300 + i, RW));

  // Each port on its own: misses and hits.
  for (int p = 0; p < 2; ++p)
    for (unsigned i = 0; i < 4; ++i) {
      Response r = c.run(p, 0x30000000u + (p * 4 + i) * 0x1000u + 4 * i, p, "single port");
      CHECK(r.pa == ((0x300u + p * 4 + i) << 12) + 4 * i, "port %d pa %08x", p, r.pa);
    }
  for (unsigned i = 0; i < 8; ++i) c.run(1 - (i & 1), 0x30000000u + i * 0x1000u, false, "cross hits");

  // Both ports ask in the same cycle: port 0 first, port 1 right after (hit) or after the walk.
  for (int miss = 0; miss < 2; ++miss) {
    if (miss) c.invalidate(VMGPU_INV_ALL, 0, 0, 0);
    uint32_t va0 = 0x30001010u, va1 = 0x30006020u;
    RefMmu::Out e0 = c.ref.translate(true, 3, root, va0, false, h.mem);
    RefMmu::Out e1 = c.ref.translate(true, 3, root, va1, true, h.mem);
    size_t from = h.responses.size();
    h.top->tr0_req_valid_i = 1;
    h.top->tr0_req_va_i = va0;
    h.top->tr0_req_write_i = 0;
    h.top->tr1_req_valid_i = 1;
    h.top->tr1_req_va_i = va1;
    h.top->tr1_req_write_i = 1;
    h.top->clk_i = 0;
    h.top->eval();
    CHECK(h.top->tr0_req_ready_o && !h.top->tr1_req_ready_o,
          "both valid: ready0 %d ready1 %d, expected 1 0", h.top->tr0_req_ready_o,
          h.top->tr1_req_ready_o);
    h.step();
    h.top->tr0_req_valid_i = 0;
    int waited = 0;
    for (; waited < kBound; ++waited) {
      h.top->clk_i = 0;
      h.top->eval();
      bool rdy = h.top->tr1_req_ready_o;
      h.step();
      if (rdy) break;
    }
    h.top->tr1_req_valid_i = 0;
    // A miss keeps the MMU busy through the four walk cycles; port 1 goes in the response cycle.
    CHECK(waited == (miss ? 4 : 0) + g_rr, "port 1 waited %d cycles (miss %d)", waited, miss);
    for (int i = 0; i < kBound && h.responses.size() < from + 2; ++i) h.step();
    CHECK(h.responses.size() == from + 2, "%zu responses", h.responses.size() - from);
    if (h.responses.size() == from + 2) {
      CHECK(h.responses[from].port == 0 && h.responses[from].pa == e0.pa, "first: port %d pa %08x",
            h.responses[from].port, h.responses[from].pa);
      CHECK(h.responses[from + 1].port == 1 && h.responses[from + 1].pa == e1.pa,
            "second: port %d pa %08x", h.responses[from + 1].port, h.responses[from + 1].pa);
    }
  }

  // Port 0 keeps asking: port 1 waits (fixed priority), then goes when port 0 stops.
  std::mt19937 rng(3);
  for (int i = 0; i < 200; ++i) {
    int p = rng() % 2;
    uint32_t v = 0x30000000u + (rng() % 10) * 0x1000u + (rng() & 0xFFF);
    c.run(p, v, rng() & 1, "alternating");
  }
}

// --------------------------------------------------------------------------------- backpressure
void test_backpressure(Harness &h) {
  std::printf("backpressure: slower memory responses and pt_rd_ready back-pressure\n");
  PageTables pt(h.mem, 0x100);
  uint32_t root = pt.new_root();
  Checker c(h);
  c.context(true, 9, root);
  for (unsigned i = 0; i < 64; ++i)
    pt.map(root, 0x01000000u * (i % 8) + i * 0x1000u, pte(0x200 + i, (i % 5) ? RW : VMGPU_PTE_V));

  // Fixed latencies without back-pressure: a miss takes 1 + 2 * (1 + L) cycles... exactly.
  for (int lat = 1; lat <= 6; ++lat) {
    h.latency = lat;
    c.invalidate(VMGPU_INV_ALL, 0, 0, 0);
    uint64_t w = h.walk_cycles;
    Response r = c.run(0, 0x01000000u + 1 * 0x1000u, false, "latency");
    CHECK(r.latency() == 3 + g_rr + 2 * lat, "memory latency %d: miss latency %d, expected %d",
          lat, r.latency(), 3 + g_rr + 2 * lat);
    CHECK(h.walk_cycles - w == uint64_t(2 + 2 * lat), "memory latency %d: %" PRIu64
          " walk cycles, expected %d", lat, h.walk_cycles - w, 2 + 2 * lat);
    r = c.run(1, 0x01000000u + 1 * 0x1000u, false, "latency hit");
    CHECK(r.latency() == 1 + g_rr, "hit latency %d with slow memory", r.latency());
  }

  // Random back-pressure and latencies, checked against the model (the harness also checks the
  // read request holds its address until taken).
  std::mt19937 rng(11);
  for (int round = 0; round < 12; ++round) {
    h.latency = 1 + rng() % 8;
    h.ready_percent = 10 + rng() % 80;
    for (int i = 0; i < 60; ++i) {
      unsigned k = rng() % 70;  // a few unmapped pages too
      uint32_t v = 0x01000000u * (k % 8) + k * 0x1000u + (rng() & 0xFFF);
      c.run(rng() % 2, v, rng() & 1, "backpressure");
    }
    if (round % 3 == 2) c.invalidate(rng() % 3, 9, 0x01000000u * (rng() % 8), rng() % 0x2000000u);
  }
  h.ready_percent = 100;
  h.latency = 1;
}

// --------------------------------------------------------------------------------------- random
void test_random(Harness &h) {
  std::printf("random: mixed traffic, table edits and invalidations against the reference model\n");
  PageTables pt(h.mem, 0x100);
  uint32_t roots[3] = {pt.new_root(), pt.new_root(), pt.new_root()};
  unsigned asids[3] = {4, 5, 200};
  Checker c(h);
  std::mt19937 rng(2024 + h.opt.entries);
  const uint32_t frames = h.opt.mem_bytes >> 12;
  auto random_va = [&]() {
    static const uint32_t dirs[] = {0x00000000u, 0x00400000u, 0x7FC00000u, 0xFFC00000u};
    // Mostly a small hot set (so hits and replacement matter), sometimes anywhere around it.
    if (rng() % 4) return dirs[rng() % 2 * 3] + (rng() % 4) * 0x1000u + (rng() & 0xFFFu);
    return dirs[rng() % 4] + (rng() % 24) * 0x1000u + (rng() & 0xFFFu);
  };
  auto random_pte = [&]() {
    uint32_t flags = rng() % 16;
    if (rng() % 4) flags |= VMGPU_PTE_V;
    uint32_t frame = (rng() % 8) ? 0x300 + rng() % 0x100 : (frames - 2 + rng() % 4) & 0xFFFFF;
    if (flags & VMGPU_PTE_HOST) frame = rng() & 0xFFFFF;
    return pte(frame, flags);
  };
  for (int i = 0; i < 300; ++i) pt.map(roots[rng() % 3], random_va(), random_pte());
  c.context(true, asids[0], roots[0]);
  int ops = 0;
  for (int i = 0; i < 4000; ++i, ++ops) {
    unsigned x = rng() % 100;
    if (x < 3) {
      int s = rng() % 3;
      c.context(rng() % 20 != 0, asids[s], roots[s]);
    } else if (x < 8) {
      pt.map(roots[rng() % 3], random_va(), random_pte());  // may leave stale TLB entries
    } else if (x < 10) {
      unsigned mode = rng() % 3;
      uint32_t v = random_va();
      c.invalidate(mode, asids[rng() % 3], v, (rng() % 2) ? rng() % 0x10000u : rng());
    } else if (x < 12) {
      h.latency = 1 + rng() % 5;
      h.ready_percent = 30 + rng() % 71;
    } else {
      c.run(rng() % 2, random_va(), rng() & 1, "random");
    }
  }
  std::printf("  %d operations, %" PRIu64 " hits %" PRIu64 " misses %" PRIu64 " evictions\n",
              ops, h.hits, h.misses, h.evicts);
  CHECK(h.hits > 100 && h.misses > 100 && h.evicts > 10, "traffic mix too thin to mean much");
}

}  // namespace

int main(int argc, char **argv) {
  Verilated::commandArgs(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s tlb|asid|walker|invalidate|ports|backpressure|random|sweep "
                 "[--entries N] [--mem BYTES]\n", argv[0]);
    return 2;
  }
  std::string test = argv[1];
  Options opt;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--entries") opt.entries = std::strtoul(argv[i + 1], nullptr, 0);
    else if (k == "--mem") opt.mem_bytes = std::strtoul(argv[i + 1], nullptr, 0);
    else if (k == "--req-reg") g_rr = std::atoi(argv[i + 1]);
  }
  if (test == "sweep") {
    // One build per parameter set runs every group that depends on the TLB size.
    for (auto f : {test_tlb, test_asid, test_invalidate, test_random}) {
      Harness h(opt);
      f(h);
    }
    std::string name = "mmu sweep (entries " + std::to_string(opt.entries) + ")";
    return tb::summary(name.c_str());
  }
  Harness h(opt);
  if (test == "tlb") test_tlb(h);
  else if (test == "asid") test_asid(h);
  else if (test == "walker") test_walker(h);
  else if (test == "invalidate") test_invalidate(h);
  else if (test == "ports") test_ports(h);
  else if (test == "backpressure") test_backpressure(h);
  else if (test == "random") test_random(h);
  else {
    std::fprintf(stderr, "unknown test %s\n", test.c_str());
    return 2;
  }
  std::string name = "mmu_" + test + " (entries " + std::to_string(opt.entries) + ")";
  return tb::summary(name.c_str());
}
