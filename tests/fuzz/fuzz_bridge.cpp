// Fuzzer: random and corrupted frames into the RTL bridge (board/ulx3s/uart_bridge.v in front of
// vmgpu_top, tests/fuzz/bridge_fuzz_top.v), driven through its UART pins by tests/board's host
// side.
//
// Each iteration does one of: a valid SCRATCH write or memory burst (the model follows); a
// request frame damaged on the way (1 to 3 flipped bits anywhere after SOF, a cut followed by a
// silence longer than the gap time-out, a LEN made larger, a byte dropped or doubled, garbage
// with false SOFs before it); a correct request of a bad type, count or length; an over-long
// LEN; the PC sending answer or device-request types; random bytes; and the last executed
// request sent again with its SEQ (a stale retry). The model requires:
//   - a damaged frame is never executed (CRC-32 catches every error of up to three bits in
//     frames of this size) and gets no answer; a bad request is answered with its status
//     alone and not executed; a stale retry is answered from the bridge's copy, not executed
//     again (a repeated MEM_DATA burst would move MEM_ADDR twice);
//   - the bridge never hangs: the next valid request is answered within its retries;
//   - SCRATCH and the device memory region always hold what the valid requests wrote.
// `fuzz_bridge <seed> <iterations> <seconds>`; the model is built with 8 clocks per bit and a
// 2000-cycle gap time-out (tests/fuzz/CMakeLists.txt), 64 KiB of block RAM.
#include <algorithm>

#include "fuzz_common.h"

// The board testbench's host side (framing, CRC, retries, host-port service) is reused as is.
#define main board_tb_main
#include "../board/board_tb.cpp"
#undef main

static fuzz_run R;
static const uint32_t REGION = 0x8000, WORDS = 1024;
static std::vector<uint32_t> model_mem(WORDS, 0);
static uint32_t model_scratch = 0;
static unsigned long corrupted = 0, bad_requests = 0, stale = 0, garbage = 0, valid = 0;

static std::vector<uint8_t> write_payload(uint16_t off, const std::vector<uint32_t> &w, bool inc) {
  std::vector<uint8_t> p = {(uint8_t)off, (uint8_t)(off >> 8), (uint8_t)(inc ? 1 : 0), 0, (uint8_t)w.size(),
                            (uint8_t)(w.size() >> 8)};
  for (uint32_t x : w) put32(p, x);
  return p;
}

// Frames seen in `cycles` (device requests are served by idle itself).
static int quiet(Board &b, uint64_t cycles) { return b.idle(cycles); }

static void damaged_write(Board &b) {
  uint32_t v = (uint32_t)fuzz_u64(&R);
  while (v == model_scratch) v++;
  std::vector<uint8_t> fr = encode(b.seq, 0x02, write_payload(VMGPU_REG_SCRATCH, {v}, false));
  unsigned how = (unsigned)fuzz_below(&R, 6);
  if (how == 0) {  // 1-3 bit flips after SOF (SEQ, TYPE, LEN, payload, CRC)
    unsigned k = 1 + (unsigned)fuzz_below(&R, 3);
    std::vector<size_t> done;
    for (unsigned i = 0; i < k; i++) {
      size_t bit;
      do bit = 16 + fuzz_below(&R, (fr.size() - 2) * 8);
      while (std::find(done.begin(), done.end(), bit) != done.end());
      done.push_back(bit);
      fr[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
  } else if (how == 1) {  // cut short, then silence
    fr.resize(2 + fuzz_below(&R, fr.size() - 2));
  } else if (how == 2) {  // LEN made larger: the receiver waits, the gap drops it
    uint16_t len = (uint16_t)(fr[4] | fr[5] << 8);
    len += (uint16_t)(1 + fuzz_below(&R, 40));
    fr[4] = (uint8_t)len;
    fr[5] = (uint8_t)(len >> 8);
  } else if (how == 3) {  // a byte dropped
    fr.erase(fr.begin() + 2 + fuzz_below(&R, fr.size() - 2));
  } else if (how == 4) {  // a byte doubled (not the last: that leaves a whole frame and a junk byte)
    size_t at = 2 + fuzz_below(&R, fr.size() - 3);
    fr.insert(fr.begin() + at, fr[at]);
  } else {  // a wrong CRC byte
    fr[fr.size() - 1 - fuzz_below(&R, 4)] ^= (uint8_t)(1 + fuzz_below(&R, 255));
  }
  corrupted++;
  b.send_raw(fr, false);
  int seen = quiet(b, 3 * b.gap + 20 * 10 * 8 + 4000);
  FZ_CHECK(&R, seen == 0, "damaged frame (kind %u) answered (%d frames)", how, seen);
}

static void bad_request(Board &b) {
  Frame a;
  unsigned how = (unsigned)fuzz_below(&R, 5);
  bad_requests++;
  if (how == 0) {  // unknown request type
    uint8_t t = (uint8_t)(4 + fuzz_below(&R, 60));
    bool ok = b.request(t, {}, a, 1);
    FZ_CHECK(&R, ok && a.payload == std::vector<uint8_t>({1}), "type 0x%02x: want status 1", t);
  } else if (how == 1) {  // WRITE whose LEN is not 6 + 4 * count
    std::vector<uint8_t> p = write_payload(VMGPU_REG_SCRATCH, {(uint32_t)fuzz_u64(&R), 7}, false);
    p[4] = (uint8_t)(p[4] + 1 + fuzz_below(&R, 3));  // count says more words than there are
    bool ok = b.request(0x02, p, a, 1);
    FZ_CHECK(&R, ok && a.payload == std::vector<uint8_t>({2}), "short WRITE: want status 2");
  } else if (how == 2) {  // READ count 0 or above 256
    uint16_t n = fuzz_chance(&R, 1, 2) ? 0 : (uint16_t)(257 + fuzz_below(&R, 1000));
    std::vector<uint8_t> p = {(uint8_t)VMGPU_REG_SCRATCH, 0, 0, 0, (uint8_t)n, (uint8_t)(n >> 8)};
    bool ok = b.request(0x03, p, a, 1);
    FZ_CHECK(&R, ok && a.payload == std::vector<uint8_t>({2}), "READ count %u: want status 2", n);
  } else if (how == 3) {  // PING with a payload
    std::vector<uint8_t> p(1 + fuzz_below(&R, 8), 0);
    bool ok = b.request(0x01, p, a, 1);
    FZ_CHECK(&R, ok && a.payload == std::vector<uint8_t>({2}), "PING with payload: want status 2");
  } else {  // types the PC must not send: answers and device requests; ignored
    uint8_t t = fuzz_chance(&R, 1, 2) ? (uint8_t)(0x80 | (1 + fuzz_below(&R, 3))) : (uint8_t)(0x40 + fuzz_below(&R, 2));
    b.send_raw(encode(b.seq, t, std::vector<uint8_t>(fuzz_below(&R, 13), 0)), false);
    int seen = quiet(b, 3 * b.gap + 4000);
    FZ_CHECK(&R, seen == 0, "stray type 0x%02x answered", t);
  }
}

static void over_long(Board &b) {
  std::vector<uint8_t> p(1033 + fuzz_below(&R, 64), 0);
  p[0] = (uint8_t)VMGPU_REG_SCRATCH;
  b.send_raw(encode(b.seq, 0x02, p), false);
  corrupted++;
  int seen = quiet(b, 3 * b.gap + 4000);
  FZ_CHECK(&R, seen == 0, "over-long frame answered");
}

static void random_bytes(Board &b) {
  std::vector<uint8_t> g(1 + fuzz_below(&R, 80));
  for (auto &x : g) x = (uint8_t)fuzz_u64(&R);
  for (int i = 0; i < 3; i++)
    if (fuzz_chance(&R, 1, 2)) {
      size_t at = fuzz_below(&R, g.size());
      g.insert(g.begin() + at, {0xA5, 0x5A});
    }
  garbage++;
  b.send_raw(g, false);
  quiet(b, 3 * b.gap + 4000);  // a random SEQ/TYPE/LEN/CRC could pass by chance only 1 in 2^32
}

static void valid_write(Board &b) {
  valid++;
  if (fuzz_chance(&R, 1, 2)) {
    model_scratch = (uint32_t)fuzz_u64(&R);
    b.wr(VMGPU_REG_SCRATCH, model_scratch);
    return;
  }
  uint32_t n = 1 + (uint32_t)fuzz_below(&R, 64), at = (uint32_t)fuzz_below(&R, WORDS - n + 1);
  std::vector<uint32_t> w(n);
  for (auto &x : w) x = (uint32_t)fuzz_u64(&R);
  b.mem_write(REGION + 4 * at, w);
  std::copy(w.begin(), w.end(), model_mem.begin() + at);
}

// The last request again, byte for byte (its answer "lost"): answered, not executed again.
static void stale_retry(Board &b) {
  uint32_t n = 1 + (uint32_t)fuzz_below(&R, 32), at = (uint32_t)fuzz_below(&R, WORDS - n + 1);
  std::vector<uint32_t> w(n);
  for (auto &x : w) x = (uint32_t)fuzz_u64(&R);
  b.wr(VMGPU_REG_MEM_ADDR, REGION + 4 * at);
  uint8_t s = b.seq;
  std::vector<uint8_t> fr = encode(s, 0x02, write_payload(VMGPU_REG_MEM_DATA, w, false));
  b.seq++;
  b.send_raw(fr, false);
  int seen = quiet(b, (fr.size() + 20) * 10 * 8 + 3 * b.gap);
  FZ_CHECK(&R, seen == 1, "the burst was answered %d times", seen);
  std::copy(w.begin(), w.end(), model_mem.begin() + at);
  unsigned copies = 1 + (unsigned)fuzz_below(&R, 3);
  for (unsigned i = 0; i < copies; i++) b.send_raw(fr, false);
  seen = quiet(b, copies * (fr.size() + 20) * 10 * 8 + 3 * b.gap);
  FZ_CHECK(&R, seen == (int)copies, "%u stale copies answered %d times", copies, seen);
  uint32_t ma = b.rd(VMGPU_REG_MEM_ADDR);
  FZ_CHECK(&R, ma == REGION + 4 * (at + n), "stale burst executed again: MEM_ADDR 0x%x, want 0x%x", ma,
           REGION + 4 * (at + n));
  stale++;
}

static void check_state(Board &b, bool full) {
  uint32_t s = b.rd(VMGPU_REG_SCRATCH);
  FZ_CHECK(&R, s == model_scratch, "SCRATCH 0x%08x, the model says 0x%08x", s, model_scratch);
  if (!full) return;
  for (uint32_t at = 0; at < WORDS; at += 256) {
    std::vector<uint32_t> got = b.mem_read(REGION + 4 * at, 256);
    bool same = got.size() == 256 && std::equal(got.begin(), got.end(), model_mem.begin() + at);
    FZ_CHECK(&R, same, "device memory 0x%x.. differs from the model", REGION + 4 * at);
  }
}

int main(int argc, char **argv) {
  fuzz_begin(&R, "fuzz_bridge", argc, argv);
  Board b(8.0, 2000);
  for (uint32_t at = 0; at < WORDS; at += 256) b.mem_write(REGION + 4 * at, std::vector<uint32_t>(256, 0));
  b.wr(VMGPU_REG_SCRATCH, 0);
  int setup_failures = tb::failures();
  FZ_CHECK(&R, setup_failures == 0, "set-up failed");
  while (fuzz_next(&R)) {
    int f0 = tb::failures();
    unsigned op = (unsigned)fuzz_below(&R, 100);
    if (op < 25) valid_write(b);
    else if (op < 55) damaged_write(b);
    else if (op < 70) bad_request(b);
    else if (op < 75) over_long(b);
    else if (op < 85) random_bytes(b);
    else stale_retry(b);
    check_state(b, R.done % 100 == 0);
    if (tb::failures() != f0) fuzz_fail(&R, __FILE__, __LINE__, "a testbench check failed (above)");
  }
  check_state(b, true);
  std::printf("  %lu valid writes, %lu damaged frames, %lu bad requests, %lu garbage runs, %lu stale retries; "
              "%d request retries, %llu cycles\n",
              valid, corrupted, bad_requests, garbage, stale, b.retries, (unsigned long long)b.cyc);
  return fuzz_end(&R);
}
