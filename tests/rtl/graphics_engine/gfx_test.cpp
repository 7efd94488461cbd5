// graphics_engine tests on the whole vmgpu_top (1 MiB of memory): GFX_FILL, GFX_BLIT and
// GFX_MIPGEN through the MMU, checked word for word against a reference model of the pixels,
// padding between rows included; the largest size (65535); faults (read-only destination,
// unmapped source, misaligned operands, sizes above 65535, bad length, zero source size);
// host-aperture pages; cycles per pixel.
// Usage: gfx_test <case>   (cases listed in main)
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>
#include "../cp/top_driver.h"

namespace {

const uint32_t RING0 = 0x1000, RING1 = 0x2000, PD = 0x10000, PT = 0x11000;
// VA window: 64 read-write pages at VA_BASE -> PA_BASE, one read-only page, one unmapped page,
// one host page.
const uint32_t VA_BASE = 0x400000, PA_BASE = 0x20000, NPAGES = 64;
const uint32_t VA_RO = VA_BASE + NPAGES * 0x1000, PA_RO = PA_BASE + NPAGES * 0x1000;
const uint32_t VA_UNMAPPED = VA_RO + 0x1000;
const uint32_t VA_HOST = VA_RO + 0x2000, HOST_FRAME = 0x123;
const uint32_t SPAN = (NPAGES + 1) * 0x1000;  // shadowed bytes from PA_BASE (RW pages + RO page)

struct Rect { uint32_t va, pitch, w, h; };

// The device plus a shadow of its mapped memory, updated by the reference model.
struct World {
  TopDriver d;
  std::vector<uint32_t> shadow;  // PA_BASE .. PA_BASE + SPAN
  uint32_t seed = 12345;

  uint32_t rnd() { seed = seed * 1103515245u + 12345u; return (seed >> 8) ^ (seed << 20); }

  World() : shadow(SPAN / 4) {
    d.ring_setup(0, RING0, 4096);
    d.ring_setup(1, RING1, 4096);
    d.submit(0, {hdr(VMGPU_OP_PTE_FILL, 4), PD + 4 * (VA_BASE >> 22), 1, PT | VMGPU_PTE_V, 0,
                 hdr(VMGPU_OP_PTE_FILL, 4), PT + 4 * ((VA_BASE >> 12) & 1023), NPAGES,
                 PA_BASE | VMGPU_PTE_V | VMGPU_PTE_R | VMGPU_PTE_W, 0x1000,
                 hdr(VMGPU_OP_PTE_FILL, 4), PT + 4 * ((VA_RO >> 12) & 1023), 1,
                 PA_RO | VMGPU_PTE_V | VMGPU_PTE_R, 0,
                 hdr(VMGPU_OP_PTE_FILL, 4), PT + 4 * ((VA_UNMAPPED >> 12) & 1023), 1, 0, 0,
                 hdr(VMGPU_OP_PTE_FILL, 4), PT + 4 * ((VA_HOST >> 12) & 1023), 1,
                 (HOST_FRAME << 12) | VMGPU_PTE_V | VMGPU_PTE_R | VMGPU_PTE_W | VMGPU_PTE_HOST, 0,
                 hdr(VMGPU_OP_BIND_CTX, 2), 7, PD,
                 hdr(VMGPU_OP_BIND_CTX, 2), 7, PD});
    d.submit(1, {hdr(VMGPU_OP_BIND_CTX, 2), 7, PD});
    CHECK(d.run_idle(), "page-table set-up did not finish");
    for (auto &w : shadow) w = rnd();
    d.mem_write(PA_BASE, shadow);
  }

  uint32_t &at(uint32_t va) {
    if (va < VA_BASE || va - VA_BASE >= SPAN) {
      static uint32_t dummy;
      CHECK(false, "model access outside the shadow: va 0x%08x", va);
      return dummy;
    }
    return shadow[(va - VA_BASE) / 4];
  }
  uint32_t px(const Rect &r, uint32_t x, uint32_t y) { return at(r.va + y * r.pitch + 4 * x); }

  // Runs a command on ring 0; returns the cycles from the doorbell to idle.
  uint64_t run(const std::vector<uint32_t> &cmd) {
    d.submit(0, cmd);
    uint64_t c0 = d.cycles;
    CHECK(d.run_idle(), "command did not finish");
    return d.cycles - c0;
  }

  // Compare the whole shadow with the device (so writes outside the rectangle are caught).
  bool verify(const char *what) {
    auto back = d.mem_read(PA_BASE, SPAN / 4);
    size_t bad = 0;
    for (size_t i = 0; i < back.size(); i++) {
      if (back[i] != shadow[i]) {
        if (bad < 5)
          std::printf("  %s: va 0x%08zx = 0x%08x, expected 0x%08x\n", what, VA_BASE + 4 * i,
                      back[i], shadow[i]);
        bad++;
      }
    }
    CHECK(bad == 0, "%s: %zu words differ", what, bad);
    CHECK(!(d.ring_rd(0, VMGPU_RING_STATUS) & VMGPU_RING_STATUS_FAULTED_MASK), "%s: ring faulted "
          "(info 0x%x va 0x%x)", what, d.ring_rd(0, VMGPU_RING_FAULT_INFO), d.ring_rd(0, VMGPU_RING_FAULT_VA));
    return bad == 0;
  }

  // ---- reference model ----
  void ref_fill(const Rect &r, uint32_t color) {
    for (uint32_t y = 0; y < r.h; y++)
      for (uint32_t x = 0; x < r.w; x++) at(r.va + y * r.pitch + 4 * x) = color;
  }
  void ref_blit(const Rect &s, const Rect &t) {
    for (uint32_t y = 0; y < t.h; y++)
      for (uint32_t x = 0; x < t.w; x++) {
        uint32_t sx = (uint32_t)((uint64_t)x * s.w / t.w), sy = (uint32_t)((uint64_t)y * s.h / t.h);
        at(t.va + y * t.pitch + 4 * x) = px(s, sx, sy);
      }
  }
  void ref_mipgen(const Rect &s, const Rect &t) {
    for (uint32_t y = 0; y < t.h; y++)
      for (uint32_t x = 0; x < t.w; x++) {
        uint32_t x0 = std::min(2 * x, s.w - 1), x1 = std::min(2 * x + 1, s.w - 1);
        uint32_t y0 = std::min(2 * y, s.h - 1), y1 = std::min(2 * y + 1, s.h - 1);
        uint32_t p[4] = {px(s, x0, y0), px(s, x1, y0), px(s, x0, y1), px(s, x1, y1)}, out = 0;
        for (int c = 0; c < 4; c++) {
          uint32_t sum = 2;
          for (int k = 0; k < 4; k++) sum += p[k] >> (8 * c) & 0xFF;
          out |= (sum >> 2) << (8 * c);
        }
        at(t.va + y * t.pitch + 4 * x) = out;
      }
  }

  // ---- commands ----
  static std::vector<uint32_t> fill(const Rect &r, uint32_t color) {
    return {hdr(VMGPU_OP_GFX_FILL, 5), r.va, r.pitch, r.w, r.h, color};
  }
  static std::vector<uint32_t> two(uint32_t op, const Rect &s, const Rect &t) {
    return {hdr(op, 8), s.va, s.pitch, s.w, s.h, t.va, t.pitch, t.w, t.h};
  }

  void expect_fault(uint32_t reason, uint32_t op, uint32_t va, bool write, const char *what) {
    uint32_t st = d.ring_rd(0, VMGPU_RING_STATUS), info = d.ring_rd(0, VMGPU_RING_FAULT_INFO);
    CHECK(st & VMGPU_RING_STATUS_FAULTED_MASK, "%s: ring not faulted (status 0x%x)", what, st);
    CHECK((info & VMGPU_RING_FAULT_INFO_REASON_MASK) == reason, "%s: reason %u want %u", what,
          info & VMGPU_RING_FAULT_INFO_REASON_MASK, reason);
    CHECK(((info & VMGPU_RING_FAULT_INFO_OPCODE_MASK) >> VMGPU_RING_FAULT_INFO_OPCODE_LSB) == op,
          "%s: opcode in info 0x%x", what, info);
    CHECK(!!(info & VMGPU_RING_FAULT_INFO_WRITE_MASK) == write, "%s: write bit in info 0x%x", what, info);
    CHECK(d.ring_rd(0, VMGPU_RING_FAULT_VA) == va, "%s: FAULT_VA 0x%08x want 0x%08x", what,
          d.ring_rd(0, VMGPU_RING_FAULT_VA), va);
    // Drop the faulting command and go on.
    d.ring_wr(0, VMGPU_RING_CTRL, VMGPU_RING_CTRL_ENABLE_MASK | VMGPU_RING_CTRL_SKIP_MASK);
    d.wr(VMGPU_REG_INT_STATUS, 0xFFF);
    CHECK(d.run_idle(), "%s: idle after SKIP", what);
  }
};

void test_fill() {
  World w;
  std::vector<std::pair<Rect, const char *>> cases = {
      {{VA_BASE + 0x100, 200, 37, 5}, "37x5 pitch 200"},
      {{VA_BASE + 0x1F00, 256, 64, 3}, "page-crossing rows"},
      {{VA_BASE + 0x3FF8, 4096, 5, 4}, "one row per page, crossing in each row"},
      {{VA_BASE + 0x8000, 4, 1, 9}, "one column"},
      {{VA_BASE + 0x9000, 8192, 300, 6}, "pitch 2 pages"},
  };
  uint32_t color = 0xA1B2C3D4;
  for (auto &c : cases) {
    w.run(World::fill(c.first, color));
    w.ref_fill(c.first, color);
    w.verify(c.second);
    color = color * 3 + 1;
  }
  // Zero sizes do nothing.
  w.run(World::fill({VA_BASE, 64, 0, 5}, 1));
  w.run(World::fill({VA_BASE, 64, 5, 0}, 1));
  w.verify("zero-size fills");
  std::printf("fill: %zu rectangles checked\n", cases.size());
}

void test_blit() {
  World w;
  // {src, dst, what}: the source rectangles hold the world's random data.
  struct C { Rect s, t; const char *what; };
  std::vector<C> cases = {
      {{VA_BASE + 0x0000, 176, 40, 7}, {VA_BASE + 0x10000, 200, 40, 7}, "1:1 copy"},
      {{VA_BASE + 0x0F40, 256, 48, 9}, {VA_BASE + 0x10FC0, 4096, 33, 9}, "1:1 page crossing"},
      {{VA_BASE + 0x2000, 64, 13, 7}, {VA_BASE + 0x12000, 200, 40, 23}, "enlarge 13x7 -> 40x23"},
      {{VA_BASE + 0x3000, 256, 50, 31}, {VA_BASE + 0x14000, 80, 17, 9}, "shrink 50x31 -> 17x9"},
      {{VA_BASE + 0x5000, 100, 7, 40}, {VA_BASE + 0x16000, 256, 29, 11}, "wider, shorter"},
      {{VA_BASE + 0x7000, 400, 100, 3}, {VA_BASE + 0x18000, 8, 1, 1}, "to one pixel"},
      {{VA_BASE + 0x7800, 4, 1, 1}, {VA_BASE + 0x19000, 64, 16, 5}, "from one pixel"},
      {{VA_BASE + 0x20000, 4096, 300, 3}, {VA_BASE + 0x1A000, 300, 7, 3}, "shrink 300 -> 7"},
  };
  for (auto &c : cases) {
    w.run(World::two(VMGPU_OP_GFX_BLIT, c.s, c.t));
    w.ref_blit(c.s, c.t);
    w.verify(c.what);
  }
  w.run(World::two(VMGPU_OP_GFX_BLIT, {VA_BASE, 64, 5, 5}, {VA_BASE + 0x10000, 64, 0, 3}));
  w.verify("zero-size destination");
  // The largest size, 65535: one pixel of the read-only page stretched down the whole window.
  Rect one = {VA_RO + 0x20, 4, 1, 1}, col = {VA_BASE, 4, 1, 65535};
  w.run(World::two(VMGPU_OP_GFX_BLIT, one, col));
  w.ref_blit(one, col);
  w.verify("1x1 -> 1x65535");
  // ... and 65535 source columns (64 pages less 4 bytes) shrunk to 3 pixels of the host page.
  w.run(World::two(VMGPU_OP_GFX_BLIT, {VA_BASE, 4 * 65535, 65535, 1}, {VA_HOST + 0x40, 12, 3, 1}));
  unsigned wrong = 0;
  for (uint32_t x = 0; x < 3; x++) {
    uint32_t a = (HOST_FRAME << 12) + 0x40 + 4 * x;
    uint32_t got = w.d.host_mem.count(a) ? w.d.host_mem[a] : 0;
    if (got != w.at(VA_BASE + 4 * (x * 65535 / 3))) wrong++;
  }
  CHECK(wrong == 0, "65535 -> 3: %u of 3 pixels wrong", wrong);
  w.verify("65535 -> 3 wrote nothing in device memory");
  // Random sizes 1..40 both ways (every ratio near 1 included), random pitches and offsets.
  for (int i = 0; i < 40; i++) {
    Rect s = {VA_BASE + 0x21000 + 4 * (w.rnd() % 64), 0, 1 + w.rnd() % 40, 1 + w.rnd() % 40};
    Rect t = {VA_BASE + 0x10000 + 4 * (w.rnd() % 64), 0, 1 + w.rnd() % 40, 1 + w.rnd() % 40};
    s.pitch = 4 * s.w + 4 * (w.rnd() % 8);
    t.pitch = 4 * t.w + 4 * (w.rnd() % 8);
    w.run(World::two(VMGPU_OP_GFX_BLIT, s, t));
    w.ref_blit(s, t);
    char what[64];
    std::snprintf(what, sizeof what, "random blit %ux%u -> %ux%u", s.w, s.h, t.w, t.h);
    if (!w.verify(what)) break;
  }
  std::printf("blit: %zu scaled copies checked, 40 random ones, and 1x1 -> 1x65535, 65535x1 -> 3x1\n",
              cases.size());
}

void test_mipgen() {
  World w;
  // Mip chains from odd and even bases, each level from the previous one.
  std::vector<std::pair<uint32_t, uint32_t>> bases = {{37, 23}, {16, 16}, {1, 9}, {64, 2}};
  uint32_t next = VA_BASE + 0x10000;
  unsigned levels = 0;
  for (auto b : bases) {
    Rect s = {VA_BASE + 0x100 * levels, 4 * b.first + 12, b.first, b.second};
    while (s.w > 1 || s.h > 1) {
      Rect t = {next, 4 * ((s.w + 1) / 2) + 8, (s.w + 1) / 2, (s.h + 1) / 2};
      if (s.w == 1) t.w = 1;
      if (s.h == 1) t.h = 1;
      next += (t.h * t.pitch + 0xFF) & ~0xFFu;
      w.run(World::two(VMGPU_OP_GFX_MIPGEN, s, t));
      w.ref_mipgen(s, t);
      char what[64];
      std::snprintf(what, sizeof what, "mipgen %ux%u -> %ux%u", s.w, s.h, t.w, t.h);
      if (!w.verify(what)) break;
      s = t;
      levels++;
    }
  }
  // Random sizes, destinations from 1x1 to larger than half (the clamp repeats the last
  // column / row).
  for (int i = 0; i < 30; i++) {
    Rect s = {VA_BASE + 0x21000 + 4 * (w.rnd() % 64), 0, 1 + w.rnd() % 30, 1 + w.rnd() % 30};
    Rect t = {VA_BASE + 0x10000 + 4 * (w.rnd() % 64), 0, 1 + w.rnd() % 20, 1 + w.rnd() % 20};
    s.pitch = 4 * s.w + 4 * (w.rnd() % 8);
    t.pitch = 4 * t.w + 4 * (w.rnd() % 8);
    w.run(World::two(VMGPU_OP_GFX_MIPGEN, s, t));
    w.ref_mipgen(s, t);
    char what[64];
    std::snprintf(what, sizeof what, "random mipgen %ux%u -> %ux%u", s.w, s.h, t.w, t.h);
    if (!w.verify(what)) break;
  }
  // A level crossing pages on both sides.
  Rect s = {VA_BASE + 0x2F80, 4096, 70, 4}, t = {VA_BASE + 0x30F80, 4096, 35, 2};
  w.run(World::two(VMGPU_OP_GFX_MIPGEN, s, t));
  w.ref_mipgen(s, t);
  w.verify("mipgen page crossing");
  std::printf("mipgen: %u levels checked, 30 random sizes\n", levels + 1);
}

void test_faults() {
  World w;
  // Read-only destination: the rectangle starts in the last RW page and runs into the RO page.
  // Pixels before the first one in the RO page are written (row-major), none after.
  Rect t = {VA_RO - 0x10, 4096, 8, 2};
  w.run(World::fill(t, 0x55AA55AA));
  w.expect_fault(VMGPU_FAULT_WRITE_DENIED, VMGPU_OP_GFX_FILL, VA_RO, true, "fill into read-only page");
  for (int i = 0; i < 4; i++) w.at(VA_RO - 0x10 + 4 * i) = 0x55AA55AA;
  w.verify("pixels before the fault written, none after");

  // Blit from a read-only page works; into it faults at its first pixel.
  w.run(World::two(VMGPU_OP_GFX_BLIT, {VA_RO, 64, 4, 4}, {VA_BASE + 0x100, 64, 4, 4}));
  w.ref_blit({VA_RO, 64, 4, 4}, {VA_BASE + 0x100, 64, 4, 4});
  w.verify("blit from a read-only page");
  w.run(World::two(VMGPU_OP_GFX_BLIT, {VA_BASE, 64, 4, 4}, {VA_RO + 0x40, 64, 4, 4}));
  w.expect_fault(VMGPU_FAULT_WRITE_DENIED, VMGPU_OP_GFX_BLIT, VA_RO + 0x40, true, "blit into read-only page");

  // Unmapped source: the third row of the source is in the unmapped page.
  Rect s = {VA_UNMAPPED - 0x200, 0x100, 4, 4};
  Rect d = {VA_BASE + 0x400, 64, 4, 4};
  w.run(World::two(VMGPU_OP_GFX_BLIT, s, d));
  w.expect_fault(VMGPU_FAULT_PTE_INVALID, VMGPU_OP_GFX_BLIT, VA_UNMAPPED, false, "blit from unmapped page");
  for (uint32_t y = 0; y < 2; y++)
    for (uint32_t x = 0; x < 4; x++) w.at(d.va + y * d.pitch + 4 * x) = w.px(s, x, y);
  w.verify("rows before the unmapped one copied");
  w.run(World::two(VMGPU_OP_GFX_MIPGEN, {VA_UNMAPPED + 0x10, 64, 4, 4}, {VA_BASE, 64, 2, 2}));
  w.expect_fault(VMGPU_FAULT_PTE_INVALID, VMGPU_OP_GFX_MIPGEN, VA_UNMAPPED + 0x10, false, "mipgen from unmapped page");
  // Wild pointer: nothing mapped in the 4 MiB region.
  w.run(World::fill({0x10000000, 64, 2, 2}, 0));
  w.expect_fault(VMGPU_FAULT_PDE_INVALID, VMGPU_OP_GFX_FILL, 0x10000000, true, "fill at a wild pointer");

  // Misaligned operands, in check order; FAULT_VA is the VA of the operand's rectangle.
  w.run(World::fill({VA_BASE + 2, 64, 2, 2}, 0));
  w.expect_fault(VMGPU_FAULT_MISALIGNED, VMGPU_OP_GFX_FILL, VA_BASE + 2, true, "fill dst_va");
  w.run(World::fill({VA_BASE, 66, 2, 2}, 0));
  w.expect_fault(VMGPU_FAULT_MISALIGNED, VMGPU_OP_GFX_FILL, VA_BASE, true, "fill dst_pitch");
  w.run(World::two(VMGPU_OP_GFX_BLIT, {VA_BASE + 1, 64, 2, 2}, {VA_BASE, 64, 2, 2}));
  w.expect_fault(VMGPU_FAULT_MISALIGNED, VMGPU_OP_GFX_BLIT, VA_BASE + 1, false, "blit src_va");
  w.run(World::two(VMGPU_OP_GFX_MIPGEN, {VA_BASE, 63, 2, 2}, {VA_BASE + 0x1000, 64, 1, 1}));
  w.expect_fault(VMGPU_FAULT_MISALIGNED, VMGPU_OP_GFX_MIPGEN, VA_BASE, false, "mipgen src_pitch");
  w.run(World::two(VMGPU_OP_GFX_BLIT, {VA_BASE, 64, 2, 2}, {VA_BASE + 0x1003, 64, 2, 2}));
  w.expect_fault(VMGPU_FAULT_MISALIGNED, VMGPU_OP_GFX_BLIT, VA_BASE + 0x1003, true, "blit dst_va");
  w.run(World::two(VMGPU_OP_GFX_BLIT, {VA_BASE, 64, 2, 2}, {VA_BASE + 0x1000, 2, 2, 2}));
  w.expect_fault(VMGPU_FAULT_MISALIGNED, VMGPU_OP_GFX_BLIT, VA_BASE + 0x1000, true, "blit dst_pitch");

  // Zero source size with a nonzero destination.
  w.run(World::two(VMGPU_OP_GFX_BLIT, {VA_BASE, 64, 0, 2}, {VA_BASE + 0x1000, 64, 2, 2}));
  w.expect_fault(VMGPU_FAULT_BAD_COMMAND, VMGPU_OP_GFX_BLIT, VA_BASE, false, "blit src_w 0");
  w.run(World::two(VMGPU_OP_GFX_MIPGEN, {VA_BASE, 64, 2, 0}, {VA_BASE + 0x1000, 64, 1, 1}));
  w.expect_fault(VMGPU_FAULT_BAD_COMMAND, VMGPU_OP_GFX_MIPGEN, VA_BASE, false, "mipgen src_h 0");

  // Sizes above 65535: BAD_COMMAND at the rectangle's VA, checked before the empty
  // destination (a zero size with a too-large one still faults) and before any access.
  w.run(World::fill({VA_BASE, 64, 0x10000, 1}, 0));
  w.expect_fault(VMGPU_FAULT_BAD_COMMAND, VMGPU_OP_GFX_FILL, VA_BASE, true, "fill width 65536");
  w.run(World::fill({VA_BASE + 0x40, 64, 0, 0x10002}, 0));
  w.expect_fault(VMGPU_FAULT_BAD_COMMAND, VMGPU_OP_GFX_FILL, VA_BASE + 0x40, true, "fill height 65538, width 0");
  w.run(World::two(VMGPU_OP_GFX_BLIT, {VA_BASE, 64, 0x10000, 2}, {VA_BASE + 0x1000, 64, 2, 2}));
  w.expect_fault(VMGPU_FAULT_BAD_COMMAND, VMGPU_OP_GFX_BLIT, VA_BASE, false, "blit src_w 65536");
  w.run(World::two(VMGPU_OP_GFX_MIPGEN, {VA_BASE, 64, 2, 0x80000000u}, {VA_BASE + 0x1000, 64, 1, 1}));
  w.expect_fault(VMGPU_FAULT_BAD_COMMAND, VMGPU_OP_GFX_MIPGEN, VA_BASE, false, "mipgen src_h 2^31");
  w.run(World::two(VMGPU_OP_GFX_BLIT, {VA_BASE, 64, 2, 2}, {VA_BASE + 0x1000, 64, 2, 0x10000}));
  w.expect_fault(VMGPU_FAULT_BAD_COMMAND, VMGPU_OP_GFX_BLIT, VA_BASE + 0x1000, true, "blit dst_h 65536");
  // The destination is checked first: misaligned source, too-large destination.
  w.run(World::two(VMGPU_OP_GFX_BLIT, {VA_BASE + 2, 64, 2, 2}, {VA_BASE + 0x1000, 64, 0x10000, 2}));
  w.expect_fault(VMGPU_FAULT_MISALIGNED, VMGPU_OP_GFX_BLIT, VA_BASE + 2, false, "misaligned src before big dst");
  // A zero destination still does nothing, whatever the source size.
  w.run(World::two(VMGPU_OP_GFX_BLIT, {VA_BASE, 64, 0x10000, 2}, {VA_BASE + 0x1000, 64, 0, 2}));

  // Wrong payload lengths: BAD_COMMAND at the command's physical address.
  const uint32_t lens[][2] = {{VMGPU_OP_GFX_FILL, 4}, {VMGPU_OP_GFX_FILL, 8}, {VMGPU_OP_GFX_BLIT, 5},
                              {VMGPU_OP_GFX_BLIT, 7}, {VMGPU_OP_GFX_MIPGEN, 9}, {VMGPU_OP_GFX_MIPGEN, 0}};
  for (auto &l : lens) {
    std::vector<uint32_t> cmd = {hdr(l[0], l[1])};
    for (uint32_t i = 0; i < l[1]; i++) cmd.push_back(VA_BASE);
    uint32_t at = RING0 + w.d.tails[0];
    w.run(cmd);
    char what[48];
    std::snprintf(what, sizeof what, "opcode %u length %u", l[0], l[1]);
    w.expect_fault(VMGPU_FAULT_BAD_COMMAND, l[0], at, false, what);
  }
  w.verify("nothing written by the refused commands");

  // The ring still works afterwards.
  Rect ok = {VA_BASE + 0x800, 64, 3, 3};
  w.run(World::fill(ok, 0x01020304));
  w.ref_fill(ok, 0x01020304);
  w.verify("fill after the faults");
  CHECK(w.d.rd(VMGPU_REG_CAPS) & VMGPU_REG_CAPS_GFX_MASK, "CAPS.GFX");
}

// Host-aperture pages: fill one, blit from it into device memory.
void test_host() {
  World w;
  Rect h = {VA_HOST + 0x100, 64, 8, 4};
  w.run(World::fill(h, 0xC0FFEE11));
  unsigned bad = 0;
  for (uint32_t y = 0; y < 4; y++)
    for (uint32_t x = 0; x < 16; x++) {
      uint32_t a = (HOST_FRAME << 12) + 0x100 + y * 64 + 4 * x;
      uint32_t want = x < 8 ? 0xC0FFEE11u : 0u;
      uint32_t got = w.d.host_mem.count(a) ? w.d.host_mem[a] : 0;
      if (got != want) bad++;
    }
  CHECK(bad == 0, "host fill: %u words wrong", bad);
  for (uint32_t i = 0; i < 32; i++) w.d.host_mem[(HOST_FRAME << 12) + 0x800 + 4 * i] = 0x1000u + i;
  Rect t = {VA_BASE + 0x200, 64, 16, 4};
  w.run(World::two(VMGPU_OP_GFX_BLIT, {VA_HOST + 0x800, 32, 8, 4}, t));
  for (uint32_t y = 0; y < 4; y++)
    for (uint32_t x = 0; x < 16; x++) w.at(t.va + y * 64 + 4 * x) = 0x1000u + y * 8 + x / 2;
  w.verify("blit from a host page, enlarged 2x");
  std::printf("host: fill and blit through the host port checked\n");
}

// Cycles per pixel: the difference between two sizes, so command overhead cancels out.
void test_cycles() {
  World w;
  auto measure = [&](const char *what, std::function<std::vector<uint32_t>(uint32_t)> cmd, uint32_t n1,
                     uint32_t n2, double limit) {
    w.run(cmd(n1));  // warm the TLB
    uint64_t c1 = w.run(cmd(n1)), c2 = w.run(cmd(n2));
    double cpp = double(c2 - c1) / double(n2 - n1);
    std::printf("cycles per pixel: %-28s %.2f (%u px: %llu cycles, %u px: %llu cycles)\n", what, cpp,
                n1, (unsigned long long)c1, n2, (unsigned long long)c2);
    CHECK(cpp <= limit, "%s: %.2f cycles per pixel, expected at most %.1f", what, cpp, limit);
  };
  const uint32_t S = VA_BASE, D = VA_BASE + 0x20000;
  measure("fill", [&](uint32_t n) { return World::fill({D, 4096, n, 1}, 7); }, 256, 1024, 1.1);
  measure("blit 1:1", [&](uint32_t n) { return World::two(VMGPU_OP_GFX_BLIT, {S, 4096, n, 1}, {D, 4096, n, 1}); },
          256, 1024, 3.1);
  measure("blit 2x enlarge", [&](uint32_t n) { return World::two(VMGPU_OP_GFX_BLIT, {S, 4096, n / 2, 1}, {D, 4096, n, 1}); },
          256, 1024, 3.1);
  measure("blit 2x shrink (per dst px)", [&](uint32_t n) { return World::two(VMGPU_OP_GFX_BLIT, {S, 8192, 2 * n, 1}, {D, 4096, n, 1}); },
          128, 512, 5.1);
  measure("mipgen (per dst px)", [&](uint32_t n) { return World::two(VMGPU_OP_GFX_MIPGEN, {S, 8192, 2 * n, 2}, {D, 4096, n, 1}); },
          128, 512, 6.1);
  // Rows: a 32x32 fill against a 1024x1 one gives the per-row overhead.
  uint64_t c_sq = w.run(World::fill({D, 256, 32, 32}, 9));
  uint64_t c_ln = w.run(World::fill({D, 4096, 1024, 1}, 9));
  std::printf("fill 32x32: %llu cycles, 1024x1: %llu cycles (%.1f cycles per extra row)\n",
              (unsigned long long)c_sq, (unsigned long long)c_ln, double(c_sq - c_ln) / 31.0);
}

// Graphics on ring 0 and compute (built-in kernels) on ring 1 at the same time: they share MMU
// port 1 through the arbiter; both results must be exact.
void test_two_rings() {
  World w;
  const uint32_t ARGS = VA_BASE + 0x30000, A = VA_BASE + 0x31000, B = VA_BASE + 0x32000,
                 DSTC = VA_BASE + 0x33000;
  const uint32_t N = 700;
  std::vector<uint32_t> r0, r1;
  Rect src = {VA_BASE, 128, 30, 20}, big = {VA_BASE + 0x10000, 256, 57, 37},
       mip = {VA_BASE + 0x20000, 128, 29, 19};
  for (int rep = 0; rep < 3; rep++) {
    auto b = World::two(VMGPU_OP_GFX_BLIT, src, big);
    auto m = World::two(VMGPU_OP_GFX_MIPGEN, big, mip);
    r0.insert(r0.end(), b.begin(), b.end());
    r0.insert(r0.end(), m.begin(), m.end());
    // ADD: dst = a + b over N elements crossing pages.
    r1.insert(r1.end(), {hdr(VMGPU_OP_WRITE_IMM, 6), PA_BASE + (ARGS - VA_BASE), DSTC, A + 0x800, B + 0x400, N, 0,
                         hdr(VMGPU_OP_LAUNCH, 1, VMGPU_KERNEL_ADD), ARGS});
  }
  r0.insert(r0.end(), {hdr(VMGPU_OP_FENCE, 2), 10, 0});
  r1.insert(r1.end(), {hdr(VMGPU_OP_FENCE, 2), 20, 0});
  // Both rings are rung together: their commands interleave.
  w.d.submit(0, r0, false);
  w.d.submit(1, r1, false);
  w.d.ring_wr(0, VMGPU_RING_TAIL, w.d.tails[0]);
  w.d.ring_wr(1, VMGPU_RING_TAIL, w.d.tails[1]);
  CHECK(w.d.run_idle(), "two rings did not finish");
  CHECK(w.d.ring_rd(0, VMGPU_RING_FENCE) == 10, "graphics ring fence %u", w.d.ring_rd(0, VMGPU_RING_FENCE));
  CHECK(w.d.ring_rd(1, VMGPU_RING_FENCE) == 20, "compute ring fence %u", w.d.ring_rd(1, VMGPU_RING_FENCE));
  w.ref_blit(src, big);
  w.ref_mipgen(big, mip);
  uint32_t args[5] = {DSTC, A + 0x800, B + 0x400, N, 0};
  for (int i = 0; i < 5; i++) w.at(ARGS + 4 * i) = args[i];
  for (uint32_t i = 0; i < N; i++) w.at(DSTC + 4 * i) = w.at(A + 0x800 + 4 * i) + w.at(B + 0x400 + 4 * i);
  w.verify("graphics and compute on two rings");
  std::printf("two rings: blit + mipgen (x3) on ring 0, ADD of %u elements (x3) on ring 1\n", N);
}

}  // namespace

// Built with GFX_ENGINE=0 (the smallest FPGA configuration): CAPS.GFX reads 0 and every
// graphics command is refused as BAD_COMMAND before anything is written; other work still runs.
void test_nogfx() {
  World w;
  CHECK(!(w.d.rd(VMGPU_REG_CAPS) & VMGPU_REG_CAPS_GFX_MASK), "CAPS.GFX reads 0");
  Rect r = {VA_BASE + 0x100, 64, 4, 4};
  uint32_t at = RING0 + w.d.tails[0];
  w.run(World::fill(r, 0x11223344));
  w.expect_fault(VMGPU_FAULT_BAD_COMMAND, VMGPU_OP_GFX_FILL, at, false, "fill without the engine");
  at = RING0 + w.d.tails[0];
  w.run(World::two(VMGPU_OP_GFX_BLIT, {VA_BASE, 64, 2, 2}, {VA_BASE + 0x1000, 64, 2, 2}));
  w.expect_fault(VMGPU_FAULT_BAD_COMMAND, VMGPU_OP_GFX_BLIT, at, false, "blit without the engine");
  at = RING0 + w.d.tails[0];
  w.run(World::two(VMGPU_OP_GFX_MIPGEN, {VA_BASE, 64, 2, 2}, {VA_BASE + 0x1000, 64, 1, 1}));
  w.expect_fault(VMGPU_FAULT_BAD_COMMAND, VMGPU_OP_GFX_MIPGEN, at, false, "mipgen without the engine");
  w.verify("nothing written by the refused commands");
}

int main(int argc, char **argv) {
  const std::string which = argc > 1 ? argv[1] : "fill";
  const std::vector<std::pair<std::string, std::function<void()>>> tests = {
      {"fill", test_fill},     {"blit", test_blit},   {"mipgen", test_mipgen},
      {"faults", test_faults}, {"host", test_host},   {"cycles", test_cycles},
      {"two_rings", test_two_rings}, {"nogfx", test_nogfx}};
  for (auto &t : tests)
    if (t.first == which) {
      t.second();
      return tb::summary(("gfx_" + which).c_str());
    }
  std::printf("unknown case %s\n", which.c_str());
  return 2;
}
