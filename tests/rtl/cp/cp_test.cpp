// Command-processor tests on the whole vmgpu_top: rings, fences, physical commands, malformed
// commands, fault stop/skip/reset, two rings and WAIT_FENCE, and one translated DMA copy.
// Usage: cp_test <case>   (cases listed in main)
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include "top_driver.h"

static const uint32_t RING0 = 0x1000, RING1 = 0x2000, SCRATCH = 0x8000;

static void test_basics() {
  TopDriver d;
  CHECK(d.rd(VMGPU_REG_ID) == VMGPU_ID_MAGIC, "ID 0x%08x", d.rd(VMGPU_REG_ID));
  CHECK(d.rd(VMGPU_REG_VERSION) == VMGPU_HW_VERSION, "VERSION");
  uint32_t caps = d.rd(VMGPU_REG_CAPS);
  CHECK((caps & VMGPU_REG_CAPS_N_RINGS_MASK) == 2, "CAPS rings %u", caps);
  CHECK(((caps & VMGPU_REG_CAPS_PAGE_SHIFT_MASK) >> VMGPU_REG_CAPS_PAGE_SHIFT_LSB) == 12, "page shift");
  CHECK(d.rd(VMGPU_REG_MEM_SIZE) == (1u << 20), "MEM_SIZE 0x%x", d.rd(VMGPU_REG_MEM_SIZE));
  d.wr(VMGPU_REG_SCRATCH, 0xA5A55A5A);
  CHECK(d.rd(VMGPU_REG_SCRATCH) == 0xA5A55A5A, "SCRATCH");
  CHECK(d.rd(VMGPU_REG_STATUS) & VMGPU_REG_STATUS_IDLE_MASK, "idle after reset");
  // Window: auto-increment both ways.
  d.mem_write(SCRATCH, {1, 2, 3, 4});
  auto back = d.mem_read(SCRATCH, 4);
  CHECK(back == std::vector<uint32_t>({1, 2, 3, 4}), "window read back");
  CHECK(d.rd(VMGPU_REG_MEM_ADDR) == SCRATCH + 16, "MEM_ADDR advanced to 0x%x", d.rd(VMGPU_REG_MEM_ADDR));
  // Cycle counter moves; CYCLE_HI latched by CYCLE_LO.
  uint32_t c0 = d.rd(VMGPU_REG_CYCLE_LO), c1 = d.rd(VMGPU_REG_CYCLE_LO);
  CHECK(c1 > c0, "cycle counter %u -> %u", c0, c1);
  CHECK(d.rd(VMGPU_REG_CYCLE_HI) == 0, "CYCLE_HI");

  d.ring_setup(0, RING0, 256);
  d.submit(0, {hdr(VMGPU_OP_NOP, 3), 0xDEAD, 0xBEEF, 0xF00D,                       // skipped payload
               hdr(VMGPU_OP_WRITE_IMM, 4), SCRATCH + 0x40, 11, 22, 33,             // 3 words
               hdr(VMGPU_OP_PTE_FILL, 4), SCRATCH + 0x80, 5, 0x1007, 0x1000,       // 5 PTE-like words
               hdr(VMGPU_OP_TIMESTAMP, 1), SCRATCH + 0xC0,
               hdr(VMGPU_OP_TIMESTAMP, 1), SCRATCH + 0xC8,
               hdr(VMGPU_OP_FENCE, 2, 1), 42, SCRATCH + 0xD0});
  CHECK(!(d.rd(VMGPU_REG_STATUS) & VMGPU_REG_STATUS_IDLE_MASK), "busy after doorbell");
  CHECK(d.run_idle(), "ring did not go idle");
  CHECK(d.ring_rd(0, VMGPU_RING_FENCE) == 42, "FENCE register %u", d.ring_rd(0, VMGPU_RING_FENCE));
  CHECK(d.ring_rd(0, VMGPU_RING_HEAD) == d.ring_rd(0, VMGPU_RING_TAIL), "HEAD == TAIL");
  CHECK(d.mem_read(SCRATCH + 0xD0, 1)[0] == 42, "fence value in memory");
  CHECK(d.mem_read(SCRATCH + 0x40, 3) == std::vector<uint32_t>({11, 22, 33}), "WRITE_IMM");
  auto ptes = d.mem_read(SCRATCH + 0x80, 6);
  for (int i = 0; i < 5; i++) CHECK(ptes[i] == 0x1007u + 0x1000u * i, "PTE_FILL word %d = 0x%x", i, ptes[i]);
  CHECK(ptes[5] == 0, "PTE_FILL wrote past its count");
  auto ts = d.mem_read(SCRATCH + 0xC0, 4);
  uint64_t t0 = ts[0] | (uint64_t)ts[1] << 32, t1 = ts[2] | (uint64_t)ts[3] << 32;
  CHECK(t0 > 0 && t1 > t0 && t1 - t0 < 100, "timestamps %llu %llu", (unsigned long long)t0, (unsigned long long)t1);
  uint32_t st = d.rd(VMGPU_REG_INT_STATUS);
  CHECK(st & (1u << VMGPU_REG_INT_STATUS_FENCE_LSB), "fence IRQ bit: 0x%x", st);
  d.wr(VMGPU_REG_INT_ENABLE, 1);
  CHECK(d.m.irq_o == 1, "irq_o with enable");
  d.wr(VMGPU_REG_INT_STATUS, 1);
  CHECK(d.rd(VMGPU_REG_INT_STATUS) == 0, "INT_STATUS cleared by W1C");
  CHECK(d.m.irq_o == 0, "irq_o low after clear");
}

// Thousands of commands through a 64-byte ring: wrap-around of headers and payloads.
static void test_ring_wrap() {
  TopDriver d;
  d.ring_setup(0, RING0, 64);
  for (uint32_t i = 1; i <= 600; i++) {
    // FENCE is 3 words; 64-byte ring holds 16 words, so commands straddle the end constantly.
    d.submit(0, {hdr(VMGPU_OP_FENCE, 2), i, (i % 7 == 0) ? SCRATCH : 0});
    if (i % 4 == 0 || i == 600) {
      CHECK(d.run_idle(100000), "idle at %u", i);
      CHECK(d.ring_rd(0, VMGPU_RING_FENCE) == i, "fence %u read %u", i, d.ring_rd(0, VMGPU_RING_FENCE));
    }
  }
  CHECK(d.mem_read(SCRATCH, 1)[0] == 595, "last memory fence");
  // WRITE_IMM whose payload wraps.
  d.submit(0, {hdr(VMGPU_OP_WRITE_IMM, 6), SCRATCH + 0x100, 1, 2, 3, 4, 5});
  CHECK(d.run_idle(), "idle");
  CHECK(d.mem_read(SCRATCH + 0x100, 5) == std::vector<uint32_t>({1, 2, 3, 4, 5}), "wrapped WRITE_IMM");
  CHECK(!(d.ring_rd(0, VMGPU_RING_STATUS) & VMGPU_RING_STATUS_FAULTED_MASK), "no fault");
}

static void expect_fault(TopDriver &d, int r, uint32_t reason, uint32_t op, uint32_t cmd_off, const char *what) {
  uint32_t st = d.ring_rd(r, VMGPU_RING_STATUS);
  uint32_t info = d.ring_rd(r, VMGPU_RING_FAULT_INFO);
  CHECK(st & VMGPU_RING_STATUS_FAULTED_MASK, "%s: ring %d not faulted (status 0x%x)", what, r, st);
  CHECK((info & VMGPU_RING_FAULT_INFO_REASON_MASK) == reason, "%s: reason %u want %u", what,
        info & VMGPU_RING_FAULT_INFO_REASON_MASK, reason);
  CHECK(((info & VMGPU_RING_FAULT_INFO_OPCODE_MASK) >> VMGPU_RING_FAULT_INFO_OPCODE_LSB) == op, "%s: opcode in 0x%x", what, info);
  CHECK(d.ring_rd(r, VMGPU_RING_FAULT_CMD) == cmd_off, "%s: FAULT_CMD %u want %u", what, d.ring_rd(r, VMGPU_RING_FAULT_CMD), cmd_off);
  CHECK(d.ring_rd(r, VMGPU_RING_HEAD) == cmd_off, "%s: HEAD stays at the faulting command", what);
  CHECK(d.rd(VMGPU_REG_INT_STATUS) & (1u << (VMGPU_REG_INT_STATUS_FAULT_LSB + r)), "%s: fault IRQ bit", what);
  CHECK(d.m.fault_o, "%s: fault_o", what);
}

// Malformed commands stop their ring with BAD_COMMAND (and friends); the other ring runs on;
// SKIP and RESET bring the ring back.
static void test_malformed() {
  TopDriver d;
  d.ring_setup(0, RING0, 256);
  d.ring_setup(1, RING1, 256);
  // Unknown opcode at offset 12 of ring 0.
  d.submit(0, {hdr(VMGPU_OP_FENCE, 2), 1, 0, hdr(0x7F, 0), hdr(VMGPU_OP_FENCE, 2), 2, 0});
  d.submit(1, {hdr(VMGPU_OP_FENCE, 2), 100, 0});
  CHECK(d.run_idle(), "idle with a faulted ring");
  expect_fault(d, 0, VMGPU_FAULT_BAD_COMMAND, 0x7F, 12, "unknown opcode");
  CHECK(d.ring_rd(0, VMGPU_RING_FENCE) == 1, "command before the fault ran");
  CHECK(d.ring_rd(1, VMGPU_RING_FENCE) == 100, "other ring ran");
  // Still stopped: more work on ring 1 runs, ring 0 does not move.
  d.submit(1, {hdr(VMGPU_OP_FENCE, 2), 101, 0});
  CHECK(d.run_idle(), "idle");
  CHECK(d.ring_rd(1, VMGPU_RING_FENCE) == 101, "ring 1 keeps running");
  CHECK(d.ring_rd(0, VMGPU_RING_FENCE) == 1, "ring 0 stays stopped");
  // SKIP: the bad command is dropped, the next one runs.
  d.ring_wr(0, VMGPU_RING_CTRL, VMGPU_RING_CTRL_ENABLE_MASK | VMGPU_RING_CTRL_SKIP_MASK);
  CHECK(d.run_idle(), "idle after skip");
  CHECK(d.ring_rd(0, VMGPU_RING_FENCE) == 2, "command after the skipped one ran: %u", d.ring_rd(0, VMGPU_RING_FENCE));
  CHECK(!d.m.fault_o, "fault_o cleared");
  d.wr(VMGPU_REG_INT_STATUS, 0xFFF);

  struct Bad { std::vector<uint32_t> cmd; uint32_t reason, op; const char *what; };
  std::vector<Bad> bad = {
    {{hdr(VMGPU_OP_FENCE, 3), 1, 0, 0}, VMGPU_FAULT_BAD_COMMAND, VMGPU_OP_FENCE, "FENCE with 3 words"},
    {{hdr(VMGPU_OP_BIND_CTX, 1), 1}, VMGPU_FAULT_BAD_COMMAND, VMGPU_OP_BIND_CTX, "BIND_CTX with 1 word"},
    {{hdr(VMGPU_OP_TLB_INV, 3, 3), 0, 0, 0}, VMGPU_FAULT_BAD_COMMAND, VMGPU_OP_TLB_INV, "TLB_INV mode 3"},
    {{hdr(VMGPU_OP_DMA_FILL, 5, 3), 0, 0, 0, 0, 0}, VMGPU_FAULT_BAD_COMMAND, VMGPU_OP_DMA_FILL, "fill size 3"},
    {{hdr(VMGPU_OP_LAUNCH, 1, 99), 0}, VMGPU_FAULT_BAD_COMMAND, VMGPU_OP_LAUNCH, "kernel 99"},
    {{hdr(VMGPU_OP_WAIT_FENCE, 2), 7, 0}, VMGPU_FAULT_BAD_COMMAND, VMGPU_OP_WAIT_FENCE, "wait on ring 7"},
    {{hdr(VMGPU_OP_PTE_FILL, 4), 0xFFFF0, 8, 0, 0}, VMGPU_FAULT_PHYS_RANGE, VMGPU_OP_PTE_FILL, "PTE_FILL past memory"},
    {{hdr(VMGPU_OP_PTE_FILL, 4), 0x10, 0x40000000, 0, 0}, VMGPU_FAULT_PHYS_RANGE, VMGPU_OP_PTE_FILL, "PTE_FILL huge count"},
    {{hdr(VMGPU_OP_WRITE_IMM, 2), 0x12345, 0}, VMGPU_FAULT_MISALIGNED, VMGPU_OP_WRITE_IMM, "WRITE_IMM misaligned"},
    {{hdr(VMGPU_OP_TIMESTAMP, 1), 0x100000}, VMGPU_FAULT_PHYS_RANGE, VMGPU_OP_TIMESTAMP, "TIMESTAMP outside"},
    {{hdr(VMGPU_OP_FENCE, 2), 5, 0xFFFFFFFC}, VMGPU_FAULT_PHYS_RANGE, VMGPU_OP_FENCE, "FENCE address outside"},
    {{hdr(VMGPU_OP_BIND_CTX, 2), 1, 0x1234}, VMGPU_FAULT_MISALIGNED, VMGPU_OP_BIND_CTX, "root not page aligned"},
    {{hdr(VMGPU_OP_BIND_CTX, 2), 1, 0x100000}, VMGPU_FAULT_PHYS_RANGE, VMGPU_OP_BIND_CTX, "root outside memory"},
    {{hdr(VMGPU_OP_DMA_COPY, 6), 0x1000, 0x2000, 4, 1, 0, 0}, VMGPU_FAULT_NO_CONTEXT, VMGPU_OP_DMA_COPY, "DMA without context"},
  };
  for (auto &b : bad) {
    uint32_t off = d.ring_rd(0, VMGPU_RING_TAIL);
    uint32_t fence_before = d.ring_rd(0, VMGPU_RING_FENCE);
    d.submit(0, b.cmd);
    d.submit(0, {hdr(VMGPU_OP_FENCE, 2), fence_before + 1, 0});
    CHECK(d.run_idle(), "%s: idle", b.what);
    expect_fault(d, 0, b.reason, b.op, off, b.what);
    CHECK(d.ring_rd(0, VMGPU_RING_FENCE) == fence_before, "%s: later command did not run", b.what);
    // RESET drops everything queued; the ring runs new work.
    d.ring_wr(0, VMGPU_RING_CTRL, VMGPU_RING_CTRL_ENABLE_MASK | VMGPU_RING_CTRL_RESET_MASK);
    d.wr(VMGPU_REG_INT_STATUS, 0xFFF);
    CHECK(!(d.ring_rd(0, VMGPU_RING_STATUS) & VMGPU_RING_STATUS_FAULTED_MASK), "%s: reset clears fault", b.what);
    d.submit(0, {hdr(VMGPU_OP_FENCE, 2), fence_before + 2, 0});
    CHECK(d.run_idle(), "%s: idle after reset", b.what);
    CHECK(d.ring_rd(0, VMGPU_RING_FENCE) == fence_before + 2, "%s: runs after reset", b.what);
  }
  // A command whose payload runs past TAIL: the doorbell covers only the header.
  {
    uint32_t off = d.ring_rd(0, VMGPU_RING_TAIL);
    d.submit(0, {hdr(VMGPU_OP_FENCE, 2)});
    CHECK(d.run_idle(), "idle");
    expect_fault(d, 0, VMGPU_FAULT_BAD_COMMAND, VMGPU_OP_FENCE, off, "truncated command");
    d.ring_wr(0, VMGPU_RING_CTRL, VMGPU_RING_CTRL_ENABLE_MASK | VMGPU_RING_CTRL_RESET_MASK);
  }
  // A ring whose size is not a power of two is refused when it has work.
  d.ring_wr(1, VMGPU_RING_SIZE, 100);
  d.ring_wr(1, VMGPU_RING_TAIL, 12);
  CHECK(d.run_idle(), "idle");
  CHECK(d.ring_rd(1, VMGPU_RING_STATUS) & VMGPU_RING_STATUS_FAULTED_MASK, "bad ring size faults");
  CHECK((d.ring_rd(1, VMGPU_RING_FAULT_INFO) & VMGPU_RING_FAULT_INFO_REASON_MASK) == VMGPU_FAULT_PHYS_RANGE, "bad ring reason");
  CHECK(d.ring_rd(1, VMGPU_RING_FAULT_VA) == RING1, "bad ring FAULT_VA");
  // A disabled ring does nothing.
  d.ring_setup(1, RING1, 256);
  d.ring_wr(1, VMGPU_RING_CTRL, 0);
  d.submit(1, {hdr(VMGPU_OP_FENCE, 2), 77, 0});
  CHECK(d.run_idle(), "idle with a disabled ring holding work");
  CHECK(d.ring_rd(1, VMGPU_RING_FENCE) != 77, "disabled ring ran");
  d.ring_wr(1, VMGPU_RING_CTRL, VMGPU_RING_CTRL_ENABLE_MASK);
  CHECK(d.run_idle(), "idle");
  CHECK(d.ring_rd(1, VMGPU_RING_FENCE) == 77, "enabled ring runs");
  // A ring fault (BASE unusable) reads no command: SKIP leaves HEAD where it stopped, even
  // after an earlier fault of the ring left another next-command offset behind.
  {
    uint32_t h = d.ring_rd(1, VMGPU_RING_HEAD);
    d.submit(1, {hdr(VMGPU_OP_FENCE, 2), 78, 0}, false);
    d.ring_wr(1, VMGPU_RING_BASE, 0xFFFF0000u);
    d.ring_wr(1, VMGPU_RING_TAIL, d.tails[1]);
    CHECK(d.run_idle(), "idle");
    CHECK(d.ring_rd(1, VMGPU_RING_STATUS) & VMGPU_RING_STATUS_FAULTED_MASK, "unusable BASE faults");
    CHECK(d.ring_rd(1, VMGPU_RING_FAULT_CMD) == h, "ring fault FAULT_CMD %u, HEAD was %u",
          d.ring_rd(1, VMGPU_RING_FAULT_CMD), h);
    d.ring_wr(1, VMGPU_RING_BASE, RING1);
    d.ring_wr(1, VMGPU_RING_CTRL, VMGPU_RING_CTRL_ENABLE_MASK | VMGPU_RING_CTRL_SKIP_MASK);
    CHECK(d.ring_rd(1, VMGPU_RING_HEAD) == h, "SKIP after a ring fault moved HEAD from %u to %u", h,
          d.ring_rd(1, VMGPU_RING_HEAD));
    CHECK(d.run_idle(), "idle after skip");
    CHECK(d.ring_rd(1, VMGPU_RING_FENCE) == 78, "ring runs on after the ring fault: fence %u",
          d.ring_rd(1, VMGPU_RING_FENCE));
    d.wr(VMGPU_REG_INT_STATUS, 0xFFF);
  }
}

// Two rings interleave; WAIT_FENCE orders ring 0 after ring 1.
static void test_two_rings() {
  TopDriver d;
  d.ring_setup(0, RING0, 1024);
  d.ring_setup(1, RING1, 1024);
  // Ring 0: wait for ring 1's fence 5, then record.
  d.submit(0, {hdr(VMGPU_OP_WAIT_FENCE, 2), 1, 5, hdr(VMGPU_OP_WRITE_IMM, 2), SCRATCH, 0xAAAA,
               hdr(VMGPU_OP_FENCE, 2), 1, 0});
  CHECK(d.run_idle(), "idle while waiting");
  CHECK(d.ring_rd(0, VMGPU_RING_STATUS) & VMGPU_RING_STATUS_WAITING_MASK, "ring 0 waiting");
  CHECK(d.ring_rd(0, VMGPU_RING_FENCE) == 0, "ring 0 held");
  CHECK(d.mem_read(SCRATCH, 1)[0] == 0, "nothing after the wait ran");
  for (uint32_t v = 1; v <= 4; v++) d.submit(1, {hdr(VMGPU_OP_FENCE, 2), v, 0});
  CHECK(d.run_idle(), "idle");
  CHECK(d.ring_rd(0, VMGPU_RING_FENCE) == 0, "fence 4 < 5: still held");
  d.submit(1, {hdr(VMGPU_OP_FENCE, 2), 5, 0});
  CHECK(d.run_idle(), "idle");
  CHECK(d.ring_rd(0, VMGPU_RING_FENCE) == 1, "ring 0 released");
  CHECK(d.mem_read(SCRATCH, 1)[0] == 0xAAAA, "released work ran");
  CHECK(!(d.ring_rd(0, VMGPU_RING_STATUS) & VMGPU_RING_STATUS_WAITING_MASK), "not waiting");
  // Wrap-aware comparison: fence 0xFFFFFFF0 has not reached 0x10.
  d.submit(1, {hdr(VMGPU_OP_FENCE, 2), 0xFFFFFFF0u, 0});
  d.submit(0, {hdr(VMGPU_OP_WAIT_FENCE, 2), 1, 0x10, hdr(VMGPU_OP_FENCE, 2), 2, 0});
  CHECK(d.run_idle(), "idle");
  CHECK(d.ring_rd(0, VMGPU_RING_FENCE) == 1, "wrapped timeline still behind");
  d.submit(1, {hdr(VMGPU_OP_FENCE, 2), 0x10, 0});
  CHECK(d.run_idle(), "idle");
  CHECK(d.ring_rd(0, VMGPU_RING_FENCE) == 2, "wrapped timeline reached");
  // Interleaving: both rings get commands in turn (timestamps alternate).
  for (int i = 0; i < 4; i++) {
    d.submit(0, {hdr(VMGPU_OP_TIMESTAMP, 1), SCRATCH + 0x100 + 16 * i}, false);
    d.submit(1, {hdr(VMGPU_OP_TIMESTAMP, 1), SCRATCH + 0x108 + 16 * i}, false);
  }
  d.ring_wr(0, VMGPU_RING_TAIL, d.tails[0]);
  d.ring_wr(1, VMGPU_RING_TAIL, d.tails[1]);
  CHECK(d.run_idle(), "idle");
  auto ts = d.mem_read(SCRATCH + 0x100, 16);
  for (int i = 0; i + 1 < 4; i++) {
    CHECK(ts[4 * i + 2] > ts[4 * i] && ts[4 * i + 4] > ts[4 * i + 2], "ring order interleaved at %d", i);
  }
}

// A translated DMA copy through the MMU: page tables written by PTE_FILL, TLB_INV in order.
static void test_translate() {
  TopDriver d;
  const uint32_t PD = 0x10000, PT = 0x11000, SRC = 0x20000, DST = 0x30000, DST2 = 0x31000;
  d.ring_setup(0, RING0, 1024);
  std::vector<uint32_t> data(64);
  for (int i = 0; i < 64; i++) data[i] = 0x01020304u * (i + 1);
  d.mem_write(SRC, data);
  // VA 0x400000 -> SRC (R), VA 0x401000 -> DST (RW).
  d.submit(0, {hdr(VMGPU_OP_PTE_FILL, 4), PD + 4 * 1, 1, PT | VMGPU_PTE_V, 0,
               hdr(VMGPU_OP_PTE_FILL, 4), PT, 1, SRC | VMGPU_PTE_V | VMGPU_PTE_R, 0,
               hdr(VMGPU_OP_PTE_FILL, 4), PT + 4, 1, DST | VMGPU_PTE_V | VMGPU_PTE_R | VMGPU_PTE_W, 0,
               hdr(VMGPU_OP_BIND_CTX, 2), 3, PD,
               hdr(VMGPU_OP_DMA_COPY, 6), 0x400000, 0x401000, 256, 1, 0, 0,
               hdr(VMGPU_OP_FENCE, 2), 1, 0});
  CHECK(d.run_idle(), "idle");
  CHECK(d.ring_rd(0, VMGPU_RING_FENCE) == 1, "copy completed");
  CHECK(d.mem_read(DST, 64) == data, "copied through the MMU");
  CHECK(d.rd(VMGPU_REG_TLB_MISSES) == 2, "two misses: %u", d.rd(VMGPU_REG_TLB_MISSES));
  // Remap the destination VA to DST2 without invalidating: the stale TLB entry is used.
  d.submit(0, {hdr(VMGPU_OP_PTE_FILL, 4), PT + 4, 1, DST2 | VMGPU_PTE_V | VMGPU_PTE_R | VMGPU_PTE_W, 0,
               hdr(VMGPU_OP_DMA_FILL, 5, VMGPU_FILL_32), 0x401000, 16, 1, 0, 0x11111111,
               hdr(VMGPU_OP_TLB_INV, 3, VMGPU_INV_RANGE), 3, 0x401000, 0x1000,
               hdr(VMGPU_OP_DMA_FILL, 5, VMGPU_FILL_32), 0x401000, 16, 1, 0, 0x22222222,
               hdr(VMGPU_OP_FENCE, 2), 2, 0});
  CHECK(d.run_idle(), "idle");
  CHECK(d.mem_read(DST, 4) == std::vector<uint32_t>(4, 0x11111111), "stale entry: old frame written");
  CHECK(d.mem_read(DST2, 4) == std::vector<uint32_t>(4, 0x22222222), "after TLB_INV: new frame written");
  // Write to a read-only page faults with WRITE_DENIED and the VA.
  uint32_t off = d.ring_rd(0, VMGPU_RING_TAIL);
  d.submit(0, {hdr(VMGPU_OP_DMA_FILL, 5, VMGPU_FILL_8), 0x400010, 4, 1, 0, 0, hdr(VMGPU_OP_FENCE, 2), 3, 0});
  CHECK(d.run_idle(), "idle");
  expect_fault(d, 0, VMGPU_FAULT_WRITE_DENIED, VMGPU_OP_DMA_FILL, off, "read-only page");
  CHECK(d.ring_rd(0, VMGPU_RING_FAULT_VA) == 0x400010, "fault VA 0x%x", d.ring_rd(0, VMGPU_RING_FAULT_VA));
  CHECK(d.ring_rd(0, VMGPU_RING_FAULT_INFO) & VMGPU_RING_FAULT_INFO_WRITE_MASK, "write access");
  CHECK(((d.ring_rd(0, VMGPU_RING_FAULT_INFO) & VMGPU_RING_FAULT_INFO_ASID_MASK) >> VMGPU_RING_FAULT_INFO_ASID_LSB) == 3, "asid");
  CHECK(d.mem_read(SRC, 1)[0] == data[0], "read-only page untouched");
  // MMU events were recorded: at least the fills and the fault.
  uint32_t n = d.rd(VMGPU_REG_EVT_COUNT) & VMGPU_REG_EVT_COUNT_COUNT_MASK;
  CHECK(n >= 4, "events %u", n);
  bool saw_fault = false;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t info = d.rd(VMGPU_REG_EVT_INFO);
    if ((info & VMGPU_REG_EVT_INFO_KIND_MASK) == VMGPU_EVT_FAULT) saw_fault = d.rd(VMGPU_REG_EVT_VA) == 0x400010;
    d.wr(VMGPU_REG_EVT_POP, 0);
  }
  CHECK(saw_fault, "fault event with its VA");
  CHECK((d.rd(VMGPU_REG_EVT_COUNT) & VMGPU_REG_EVT_COUNT_COUNT_MASK) == 0, "event FIFO drained");
}

int main(int argc, char **argv) {
  std::string which = argc > 1 ? argv[1] : "all";
  struct { const char *name; std::function<void()> fn; } cases[] = {
    {"basics", test_basics}, {"ring_wrap", test_ring_wrap}, {"malformed", test_malformed},
    {"two_rings", test_two_rings}, {"translate", test_translate},
  };
  bool ran = false;
  for (auto &c : cases) {
    if (which == "all" || which == c.name) {
      std::printf("== %s\n", c.name);
      c.fn();
      ran = true;
    }
  }
  if (!ran) {
    std::printf("unknown case %s\n", which.c_str());
    return 2;
  }
  return tb::summary(("cp " + which).c_str());
}
