// dma_engine tests. One executable, the test named by argv[1]:
//   aligned unaligned page_cross 2d fill host fault backpressure random throughput
// Every command is checked byte for byte: the whole device and host memory (every page either
// side touched, which covers the destination, guard bytes around it and everything else)
// against a C++ reference, plus done/fault outputs and the handshake rules.
#include <cstring>
#include <string>

#include "dma_tb.h"

using namespace dma;

namespace {

constexpr uint32_t kSrcBase = 0x10000000u;  // source regions live here
constexpr uint32_t kDstBase = 0x20000000u;  // destination regions here (never overlapping)
constexpr uint32_t kGuard = 64;             // mapped bytes around every region

uint32_t rows_span(uint32_t width, uint32_t height, uint32_t pitch) {
  return height ? (height - 1) * pitch + width : 0;
}

// Map the source and destination regions of c (plus guards) and run it.
bool map_and_run(Bench &b, World &w, const Cmd &c, const Timing &t, bool src_host = false,
                 bool dst_host = false, RunStats *st = nullptr) {
  if (!c.fill) w.map(c.src - kGuard, rows_span(c.width, c.height, c.spitch) + 2 * kGuard, src_host);
  w.map(c.dst - kGuard, rows_span(c.width, c.height, c.dpitch) + 2 * kGuard, dst_host);
  return b.run(w, c, t, st);
}

Cmd copy(uint32_t src, uint32_t dst, uint32_t width, uint32_t height = 1, uint32_t sp = 0,
         uint32_t dp = 0) {
  Cmd c;
  c.src = src; c.dst = dst; c.width = width; c.height = height;
  c.spitch = sp ? sp : width; c.dpitch = dp ? dp : width;
  return c;
}

int test_aligned(Bench &b) {
  int n = 0;
  const uint32_t widths[] = {4, 8, 12, 64, 256, 1020, 4096, 8192, 12288 + 8};
  for (uint32_t wdt : widths)
    for (uint32_t so : {0u, 4u, 2048u, 4092u})
      for (uint32_t dof : {0u, 8u, 4092u}) {
        World w(b.rng());
        map_and_run(b, w, copy(kSrcBase + so, kDstBase + dof, wdt), Timing::ideal());
        ++n;
      }
  std::printf("aligned: %d word-aligned copies\n", n);
  return 0;
}

int test_unaligned(Bench &b) {
  int n = 0;
  for (uint32_t so = 0; so < 4; ++so)
    for (uint32_t dof = 0; dof < 4; ++dof) {
      World w(b.rng());  // one world per alignment pair: commands write disjoint places
      for (uint32_t wdt = 0; wdt <= 70; ++wdt) {
        uint32_t s = kSrcBase + 0x100 + so + wdt * 0x100, d = kDstBase + 0x200 + dof + wdt * 0x100;
        map_and_run(b, w, copy(s, d, wdt), Timing::ideal());
        ++n;
      }
      for (uint32_t wdt : {255u, 1001u, 4097u, 9003u}) {
        uint32_t s = kSrcBase + 0x10000 + so, d = kDstBase + 0x10000 + dof;
        map_and_run(b, w, copy(s + wdt * 4, d + wdt * 4, wdt), Timing::ideal());
        ++n;
      }
    }
  std::printf("unaligned: %d copies over every src%%4 x dst%%4 pair, widths 0..70 and large\n", n);
  return 0;
}

int test_page_cross(Bench &b) {
  int n = 0;
  // Source and destination cross their pages at different points of the row.
  const uint32_t before[] = {1, 2, 3, 4, 5, 7, 64, 1000, 2047, 4095};
  for (uint32_t ks : before)
    for (uint32_t kd : before)
      for (uint32_t wdt : {9u, 130u, 4100u, 8200u}) {
        World w(b.rng());
        map_and_run(b, w, copy(kSrcBase + 0x3000 - ks, kDstBase + 0x5000 - kd, wdt), Timing::ideal());
        ++n;
      }
  std::printf("page_cross: %d copies crossing source and destination pages at different offsets\n", n);
  return 0;
}

int test_2d(Bench &b) {
  // Pitches are >= width (rows never overlap); the bytes between rows must stay untouched.
  int n = 0;
  struct P { uint32_t w, h, sp, dp; };
  const P shapes[] = {{1, 5, 1, 1},      {3, 7, 5, 9},        {16, 16, 16, 64},    {17, 9, 23, 19},
                      {64, 33, 4096, 64}, {100, 40, 100, 4099}, {513, 12, 5000, 777},
                      {4096, 3, 4096, 4100}, {7, 300, 7, 11},  {1500, 5, 6001, 1503}, {0, 5, 8, 8},
                      {8, 0, 8, 8}};
  for (const P &p : shapes)
    for (uint32_t so : {0u, 1u, 3u})
      for (uint32_t dof : {0u, 2u, 3u}) {
        World w(b.rng());
        map_and_run(b, w, copy(kSrcBase + 0x800 + so, kDstBase + 0xC00 + dof, p.w, p.h, p.sp, p.dp),
                    Timing::ideal());
        ++n;
      }
  std::printf("2d: %d 2D copies (pitch >= width; rows crossing pages; unaligned pitches)\n", n);
  return 0;
}

int test_fill(Bench &b) {
  int n = 0;
  const uint32_t sizes[] = {VMGPU_FILL_8, VMGPU_FILL_16, VMGPU_FILL_32};
  for (uint32_t ps : sizes)
    for (uint32_t dof = 0; dof < 4; ++dof) {
      World w(b.rng());
      for (uint32_t wdt = 0; wdt <= 40; ++wdt) {
        Cmd c = copy(0, kDstBase + 0x100 + dof + wdt * 0x80, wdt);
        c.fill = true; c.pattern = 0xA1B2C3D4u ^ (wdt * 0x01010101u); c.psize = ps;
        map_and_run(b, w, c, Timing::ideal());
        ++n;
      }
      for (uint32_t wdt : {1000u, 4097u, 9001u}) {
        Cmd c = copy(0, kDstBase + 0x10000 + wdt * 3 + dof, wdt);
        c.fill = true; c.pattern = 0x11223344u; c.psize = ps;
        map_and_run(b, w, c, Timing::ideal());
        ++n;
      }
      // 2D fill with an odd pitch: every row starts on a different lane, the pattern restarts.
      Cmd c = copy(0, kDstBase + 0x40000 + dof, 37, 9, 0, 4093);
      c.fill = true; c.pattern = 0x5A6B7C8Du; c.psize = ps;
      map_and_run(b, w, c, Timing::ideal());
      ++n;
    }
  std::printf("fill: %d fills, 8/16/32-bit patterns at every destination lane, 1D and 2D\n", n);
  return 0;
}

int test_host(Bench &b) {
  int n = 0;
  Timing t = Timing::ideal();
  t.host_lat_min = 3; t.host_lat_max = 9;
  for (int mode = 0; mode < 4; ++mode)
    for (uint32_t wdt : {5u, 64u, 4099u, 10000u}) {
      World w(b.rng());
      Cmd c = copy(kSrcBase + 0xF00 + 1, kDstBase + 0x7F0 + 2, wdt);
      if (mode == 3) {
        // Mixed apertures page by page on both sides.
        for (uint32_t p = 0; p < 6; ++p) {
          w.map(c.src - kGuard + p * kPage, 1, p & 1);
          w.map(c.dst - kGuard + p * kPage, 1, !(p & 1));
        }
        b.run(w, c, t);
      } else {
        map_and_run(b, w, c, t, mode & 1, mode & 2);
      }
      ++n;
      Cmd f = copy(0, kDstBase + 0x100000 + 3, wdt);
      f.fill = true; f.pattern = 0xCAFEBABEu; f.psize = VMGPU_FILL_32;
      map_and_run(b, w, f, t, false, true);
      ++n;
    }
  std::printf("host: %d commands with host-aperture source/destination pages\n", n);
  return 0;
}

int test_fault(Bench &b) {
  int n = 0;
  for (int rough = 0; rough < 2; ++rough) {
    Timing t = rough ? Timing::rough() : Timing::ideal();
    for (int kind = 0; kind < 8; ++kind)
      for (uint32_t at : {0u, 1u, 2u}) {  // faulting page: first, second or third
        World w(b.rng());
        Cmd c = copy(kSrcBase + 0x123, kDstBase + 0x456, 3 * kPage + 100);
        bool src_host = kind == 6;
        if (kind == 7) { c.fill = true; c.pattern = 0x01020304u; c.psize = VMGPU_FILL_16; }
        uint32_t sbase = c.src & ~(kPage - 1), dbase = c.dst & ~(kPage - 1);
        switch (kind) {
          case 0: w.map(sbase, 4 * kPage, src_host); w.pt.erase(sbase / kPage + at); break;
          case 1: w.map(sbase, 4 * kPage); w.pt.erase(dbase / kPage + at); break;
          case 2: w.map(sbase + at * kPage, kPage, false, /*r=*/false, true); break;  // READ_DENIED
          case 3: w.map(dbase + at * kPage, kPage, false, true, /*w=*/false); break;  // WRITE_DENIED
          case 4: c.src = 0x30400000u - at * 2000 - 1; break;  // source runs into a bad PDE
          case 5: c.dst = 0x30400000u - at * 2000 - 3; break;  // destination runs into a bad PDE
          case 6: w.map(sbase, 4 * kPage, true); w.pt.erase(sbase / kPage + at); break;
          case 7: w.map(dbase + at * kPage, kPage, false, true, false); break;
        }
        w.bad_pde.insert(0x30400000u >> 22);
        map_and_run(b, w, c, t, src_host, false);  // maps only what is still unmapped
        ++n;
        // A 2D copy where row 3's destination row sits on a missing page.
        World w2(b.rng());
        Cmd d = copy(kSrcBase + 0x10, kDstBase + 0x20 + at, 300, 8, 301, 1500);
        w2.map(d.src - kGuard, 8 * 301 + 2 * kGuard, false);
        w2.map(d.dst - kGuard, 8 * 1500 + 2 * kGuard, kind & 1);
        w2.pt.erase((d.dst + 3 * 1500 + 200) / kPage);
        b.run(w2, d, t);
        ++n;
      }
  }
  std::printf("fault: %d faulting commands (PTE/PDE invalid, read/write denied, src/dst/fill, "
              "first/middle pages, in-flight host reads, ideal and rough timing)\n", n);
  return 0;
}

Cmd random_cmd(std::mt19937 &rng, World &w, bool allow_fault, Timing &t) {
  auto rnd = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  Cmd c;
  c.fill = rnd(0, 4) == 0;
  uint32_t big = rnd(0, 9);
  c.width = big == 0 ? rnd(0, 9000) : big < 4 ? rnd(0, 600) : rnd(0, 80);
  c.height = rnd(0, 5) == 0 ? rnd(0, 24) : 1;
  if (c.width > 3000 && c.height > 4) c.height = 4;
  c.spitch = c.width + (rnd(0, 1) ? rnd(0, 5000) : rnd(0, 7));
  c.dpitch = c.width + (rnd(0, 1) ? rnd(0, 5000) : rnd(0, 7));
  c.src = kSrcBase + rnd(0, 3 * kPage);
  c.dst = kDstBase + rnd(0, 3 * kPage);
  c.pattern = rng();
  c.psize = rnd(0, 2);
  bool src_host = rnd(0, 3) == 0, dst_host = rnd(0, 3) == 0;
  if (!c.fill) w.map(c.src - kGuard, rows_span(c.width, c.height, c.spitch) + 2 * kGuard, src_host);
  w.map(c.dst - kGuard, rows_span(c.width, c.height, c.dpitch) + 2 * kGuard, dst_host);
  if (allow_fault && rnd(0, 5) == 0 && !w.pt.empty()) {
    auto it = w.pt.begin();
    std::advance(it, rnd(0, uint32_t(w.pt.size() - 1)));
    switch (rnd(0, 2)) {
      case 0: w.pt.erase(it); break;
      case 1: it->second.r = false; break;
      default: it->second.w = false; break;
    }
  }
  t = rnd(0, 2) == 0 ? Timing::ideal() : Timing::rough();
  if (rnd(0, 3) == 0) { t.p_rd_ready = 0.15; t.p_wr_ready = 0.9; }
  if (rnd(0, 3) == 0) { t.p_wr_ready = 0.15; t.p_rd_ready = 0.9; }
  return c;
}

int test_random(Bench &b, int count) {
  int ok = 0, faults = 0;
  for (int i = 0; i < count; ++i) {
    World w(b.rng());
    Timing t;
    Cmd c = random_cmd(b.rng(), w, true, t);
    Space d0 = w.dev, h0 = w.host;
    Outcome e = reference(w, c, d0, h0);
    faults += e.fault;
    ok += b.run(w, c, t);
  }
  std::printf("random: %d/%d random commands passed (%d with faults)\n", ok, count, faults);
  return 0;
}

int test_backpressure(Bench &b) {
  int n = 0;
  const double ps[] = {0.1, 0.35, 0.7};
  for (double pr : ps)
    for (double pw : ps)
      for (uint32_t k = 0; k < 6; ++k) {
        World w(b.rng());
        Timing t = Timing::rough();
        t.p_rd_ready = pr; t.p_wr_ready = pw; t.p_tr_ready = 0.5;
        Cmd c = copy(kSrcBase + 0x0F00 + k, kDstBase + 0x0F80 + (k * 3) % 4, 700 + 997 * k, 1 + k % 3,
                     700 + 997 * k + k, 700 + 997 * k + 2 * k);
        if (k == 5) { c.fill = true; c.pattern = 0xDEADBEEFu; c.psize = VMGPU_FILL_16; }
        map_and_run(b, w, c, t, k == 2, k == 3);
        ++n;
      }
  std::printf("backpressure: %d commands with random rd/wr/translation ready and latencies\n", n);
  return 0;
}

int test_throughput(Bench &b) {
  const uint32_t mib = 1u << 20, words = mib / 4;
  struct Case { const char *name; bool fill; uint32_t so, dof; double min_wpc; };
  const Case cases[] = {{"aligned copy", false, 0, 0, 0.99},
                        {"unaligned copy (src+1, dst+3)", false, 1, 3, 0.99},
                        {"fill", true, 0, 0, 0.99}};
  for (const Case &k : cases) {
    World w(b.rng());
    Cmd c = copy(kSrcBase + k.so, kDstBase + k.dof, mib);
    if (k.fill) { c.fill = true; c.pattern = 0x12345678u; c.psize = VMGPU_FILL_32; }
    RunStats st;
    map_and_run(b, w, c, Timing::ideal(), false, false, &st);
    double wpc = double(words) / double(st.cycles);
    std::printf("throughput: 1 MiB %s: %lu cycles, %lu writes, %.4f words/cycle\n", k.name,
                (unsigned long)st.cycles, (unsigned long)st.writes, wpc);
    CHECK(wpc >= k.min_wpc, "%s: %.4f words/cycle < %.2f", k.name, wpc, k.min_wpc);
    // Cycle counts are deterministic: one write per cycle from start to done, give or take the
    // pipeline fill, i.e. no bubble at any of the 256 (512 unaligned) chunk boundaries.
    CHECK(st.cycles <= st.writes + 32, "%s: %lu cycles for %lu writes", k.name,
          (unsigned long)st.cycles, (unsigned long)st.writes);
  }
  // Narrow 2D rows: every row is a chunk of its own, so translation sets the pace.
  World w(b.rng());
  Cmd c = copy(kSrcBase, kDstBase, 16, 256, 64, 64);
  RunStats st;
  map_and_run(b, w, c, Timing::ideal(), false, false, &st);
  std::printf("throughput: 256 rows of 16 bytes: %lu cycles (%.2f cycles per row)\n",
              (unsigned long)st.cycles, double(st.cycles) / 256);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  Verilated::commandArgs(argc, argv);
  std::string which = argc > 1 ? argv[1] : "all";
  unsigned depth = 8;
  for (int i = 2; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--rd-depth")) depth = unsigned(std::atoi(argv[i + 1]));
  uint32_t seed = 2166136261u;  // FNV-1a of the test name: a fixed seed per test
  for (char ch : which) seed = (seed ^ uint8_t(ch)) * 16777619u;
  Bench b(seed, depth);
  bool all = which == "all", known = false;
  auto want = [&](const char *n) { bool m = all || which == n; known |= m; return m; };
  if (want("aligned")) test_aligned(b);
  if (want("unaligned")) test_unaligned(b);
  if (want("page_cross")) test_page_cross(b);
  if (want("2d")) test_2d(b);
  if (want("fill")) test_fill(b);
  if (want("host")) test_host(b);
  if (want("fault")) test_fault(b);
  if (want("backpressure")) test_backpressure(b);
  if (want("random")) test_random(b, 400);
  if (want("throughput")) test_throughput(b);
  if (!known) { std::printf("unknown test '%s'\n", which.c_str()); return 2; }
  return tb::summary(("dma_" + which).c_str());
}
