// Board-in-the-loop test of ulx3s_top: a C++ host drives the FT231X pins bit by bit and speaks
// docs/bridge-protocol.md from the PC's side (framing, CRC, SEQ, retries, serving HOST_READ /
// HOST_WRITE from a host memory with the duplicate-answer rule). Faults can be injected on the
// byte stream both ways (flip / drop / duplicate, fixed seed). Built with BOARD_TB_SDRAM (the
// tests/board ctests), the model is sim_board_top (ulx3s_top as sim-board runs it) and the
// board's SDRAM is the chip model of sim/sdram_chip.h on the memory pins, clocked on the design
// clock's falling edge as sdram_phy clocks the chip; any violation of the chip's rules fails the
// test. Without it (tests/fuzz includes this file) the model is a Vulx3s_top with block RAM.
//
// Usage: board_tb <case> <clk_hz> <baud> <gap_cycles>   (the values the model was built with)
// Cases: basic burst framing dup ring_dma faults
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>
#ifdef BOARD_TB_SDRAM
#include "Vsim_board_top.h"
#include "Vsim_board_top_sim_board_top.h"
#include "sdram_chip.h"
using BoardModel = Vsim_board_top;
#else
#include "Vulx3s_top.h"
using BoardModel = Vulx3s_top;
#endif
#include "tb_check.h"
#include "vmgpu/regs.h"

// CRC-32/ISO-HDLC a bit at a time, least significant bit first, finished with the final XOR.
static uint32_t crc32(const std::vector<uint8_t> &b, size_t from, size_t to) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = from; i < to; i++) {
    c ^= b[i];
    for (int k = 0; k < 8; k++) c = (c & 1u) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
  }
  return ~c;
}

static std::vector<uint8_t> encode(uint8_t seq, uint8_t type, const std::vector<uint8_t> &p) {
  std::vector<uint8_t> f = {0xA5, 0x5A, seq, type, (uint8_t)p.size(), (uint8_t)(p.size() >> 8)};
  f.insert(f.end(), p.begin(), p.end());
  uint32_t c = crc32(f, 2, f.size());
  for (int k = 0; k < 4; k++) f.push_back((uint8_t)(c >> (8 * k)));
  return f;
}

static void put32(std::vector<uint8_t> &v, uint32_t x) {
  for (int i = 0; i < 4; i++) v.push_back(x >> 8 * i);
}
static uint32_t get32(const std::vector<uint8_t> &v, size_t at) {
  return v[at] | v[at + 1] << 8 | v[at + 2] << 16 | (uint32_t)v[at + 3] << 24;
}

// Byte-stream faults in one direction.
struct Faults {
  double flip = 0, drop = 0, dup = 0;
  std::mt19937 rng;
  int flips = 0, drops = 0, dups = 0;
  explicit Faults(uint32_t seed) : rng(seed) {}
  std::vector<uint8_t> apply(uint8_t b) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    double r = u(rng);
    if (r < drop) { drops++; return {}; }
    r -= drop;
    if (r < flip) { flips++; return {(uint8_t)(b ^ (1u << (rng() % 8)))}; }
    r -= flip;
    if (r < dup) { dups++; return {b, b}; }
    return {b};
  }
};

struct Frame {
  uint8_t seq = 0, type = 0;
  std::vector<uint8_t> payload;
};

class Board {
 public:
  BoardModel m;
#ifdef BOARD_TB_SDRAM
  using Params = Vsim_board_top_sim_board_top;  // the parameters the model was built with
  static constexpr uint32_t kMemBytes = Params::MEM_BYTES;
  sdram::Chip chip{*sdram::find_part(Params::MEM_BYTES == 67108864 ? "as4c32m16sb-7" : "ulx3s"),
                   geometry(), 1e9 / double(Params::CLK_HZ), /*negedge_phase=*/true};
  static sdram::Geometry geometry() {
    sdram::Geometry g;
    g.col_bits = Params::MEM_BYTES == 67108864 ? 10 : 9;
    return g;
  }
#else
  static constexpr uint32_t kMemBytes = 65536;
#endif
  uint64_t cyc = 0;
  double bitc;        // clocks per bit
  uint64_t gap;       // the bridge's inter-byte gap time-out
  Faults to_dev{1234}, from_dev{5678};
  // host transmitter
  std::deque<uint8_t> txq;
  bool tx_on = false;
  uint64_t tx_t0 = 0;
  uint8_t tx_b = 0;
  // host receiver
  bool rx_on = false;
  uint64_t rx_t0 = 0;
  int rx_bit = 0;
  uint8_t rx_b = 0;
  std::deque<uint8_t> rxq;
  uint64_t rx_last = 0;
  // protocol state
  uint8_t seq = 0;
  int retries = 0, drop_next_answer = 0, max_tries = 8;
  std::map<uint32_t, uint32_t> host_mem;    // host word address -> data
  std::map<uint32_t, int> host_writes;      // host word address -> writes applied
  int host_reads = 0, dev_dupes = 0, dev_frames = 0;
  bool have_last_dev = false;
  Frame last_dev_ans;

  Board(double clocks_per_bit, uint64_t gap_cycles) : bitc(clocks_per_bit), gap(gap_cycles) {
    m.clk_25mhz = 0;
    m.btn = 0;  // PWR button held: reset
    m.ftdi_txd = 1;
    for (int i = 0; i < 20; i++) tick();
    m.btn = 1;
    for (int i = 0; i < 40; i++) tick();
    CHECK(m.led >> 7 & 1, "PLL lock LED");
    // LED 6 stays on while the SDRAM initialises (its power-up wait: 200 us).
    for (int i = 0; i < 20000 && (m.led >> 6 & 1); i++) tick();
    CHECK(!(m.led >> 6 & 1), "reset LED off after release and the SDRAM's initialisation");
  }

  void tick() {
    // Host transmit line.
    if (!tx_on && !txq.empty()) {
      tx_on = true;
      tx_t0 = cyc;
      tx_b = txq.front();
      txq.pop_front();
    }
    if (tx_on) {
      int bit = (int)((double)(cyc - tx_t0) / bitc);
      if (bit >= 10) {
        tx_on = false;
        m.ftdi_txd = 1;
        if (!txq.empty()) {  // next byte starts now
          tx_on = true;
          tx_t0 = cyc;
          tx_b = txq.front();
          txq.pop_front();
          m.ftdi_txd = 0;
        }
      } else {
        m.ftdi_txd = bit == 0 ? 0 : bit == 9 ? 1 : (tx_b >> (bit - 1)) & 1;
      }
    }
    m.clk_25mhz = 1;
    m.eval();
    m.clk_25mhz = 0;
    m.eval();
#ifdef BOARD_TB_SDRAM
    // The SDRAM chip's clock edge, mid-cycle (the design clock inverted): it samples the pins
    // the controller's flip-flops set, and what it drives is there for the next rising edge.
    sdram::Pins p;
    p.cke = m.sdram_cke;
    p.cs_n = m.sdram_csn;
    p.ras_n = m.sdram_rasn;
    p.cas_n = m.sdram_casn;
    p.we_n = m.sdram_wen;
    p.ba = m.sdram_ba;
    p.a = m.sdram_a;
    p.dqm = m.sdram_dqm;
    p.dq = m.sdram_d_o;
    p.dq_oe = m.fpga_dq_oe_o;
    chip.edge(p);
    m.chip_dq_oe_i = chip.driving();  // taken in by the next eval, before its clock edge
    m.chip_dq_i = chip.dq();
#endif
    cyc++;
    // Host receive line: mid-bit sampling from the falling edge.
    int line = m.ftdi_rxd;
    if (!rx_on) {
      if (!line) {
        rx_on = true;
        rx_t0 = cyc;
        rx_bit = 0;
        rx_b = 0;
      }
    } else if ((double)(cyc - rx_t0) >= (rx_bit + 0.5) * bitc) {
      if (rx_bit == 0) {
        if (line) rx_on = false;
      } else if (rx_bit <= 8) {
        rx_b |= line << (rx_bit - 1);
      } else {
        rx_on = false;
        if (line)
          for (uint8_t b : from_dev.apply(rx_b)) rxq.push_back(b);
        rx_last = cyc;
      }
      rx_bit++;
    }
  }

  void send_raw(const std::vector<uint8_t> &bytes, bool faults = true) {
    for (uint8_t b : bytes) {
      if (faults)
        for (uint8_t x : to_dev.apply(b)) txq.push_back(x);
      else
        txq.push_back(b);
    }
  }
  bool tx_busy() const { return tx_on || !txq.empty(); }

  // Next complete, CRC-correct frame from the received bytes (false: none yet). Resynchronises
  // the way the protocol says: on any failure drop the first byte of the candidate and rescan.
  bool parse(Frame &f) {
    for (;;) {
      while (!rxq.empty() && rxq[0] != 0xA5) rxq.pop_front();
      if (rxq.size() < 2) return false;
      if (rxq[1] != 0x5A) { rxq.pop_front(); continue; }
      bool stale = cyc - rx_last > gap && !rx_on;
      if (rxq.size() < 6) { if (stale) { rxq.pop_front(); continue; } return false; }
      size_t len = rxq[4] | rxq[5] << 8;
      if (len > 1032) { rxq.pop_front(); continue; }
      if (rxq.size() < 10 + len) { if (stale) { rxq.pop_front(); continue; } return false; }
      std::vector<uint8_t> v(rxq.begin(), rxq.begin() + 10 + len);
      uint32_t got = v[6 + len] | v[7 + len] << 8 | v[8 + len] << 16 | (uint32_t)v[9 + len] << 24;
      if (crc32(v, 2, 6 + len) != got) { rxq.pop_front(); continue; }
      rxq.erase(rxq.begin(), rxq.begin() + 10 + len);
      f.seq = v[2];
      f.type = v[3];
      f.payload.assign(v.begin() + 6, v.begin() + 6 + len);
      return true;
    }
  }

  // A device request (HOST_READ / HOST_WRITE): serve it, or resend the kept answer for a repeat.
  void serve(const Frame &f) {
    dev_frames++;
    if (have_last_dev && f.seq == last_dev_ans.seq) {
      dev_dupes++;
      send_raw(encode(last_dev_ans.seq, last_dev_ans.type, last_dev_ans.payload));
      return;
    }
    Frame a;
    a.seq = f.seq;
    if (f.type == 0x40 && f.payload.size() == 4) {
      uint32_t addr = get32(f.payload, 0) & ~3u;
      a.type = 0xC0;
      put32(a.payload, host_mem.count(addr) ? host_mem[addr] : 0);
      host_reads++;
    } else if (f.type == 0x41 && f.payload.size() == 12) {
      uint32_t addr = get32(f.payload, 0) & ~3u, be = f.payload[4], d = get32(f.payload, 8);
      uint32_t old = host_mem[addr];
      for (int b = 0; b < 4; b++)
        if (be >> b & 1) old = (old & ~(0xFFu << 8 * b)) | (d & (0xFFu << 8 * b));
      host_mem[addr] = old;
      host_writes[addr]++;
      a.type = 0xC1;
    } else {
      CHECK(false, "malformed device request type 0x%02x len %zu", f.type, f.payload.size());
      return;
    }
    last_dev_ans = a;
    have_last_dev = true;
    send_raw(encode(a.seq, a.type, a.payload));
  }

  // Run for n cycles serving device requests; returns frames other than device requests seen.
  int idle(uint64_t n) {
    int other = 0;
    for (uint64_t i = 0; i < n; i++) {
      tick();
      Frame f;
      while (parse(f)) {
        if ((f.type & 0xC0) == 0x40) serve(f);
        else other++;
      }
    }
    return other;
  }

  // One request with retries. Returns false (and records a failure) if every try timed out.
  bool request(uint8_t type, const std::vector<uint8_t> &payload, Frame &ans, size_t ans_len_max) {
    uint8_t s = seq++;
    std::vector<uint8_t> fr = encode(s, type, payload);
    uint64_t limit = (uint64_t)((fr.size() + ans_len_max + 60) * 10 * bitc * 1.5) + 3 * gap + 2000;
    for (int t = 0; t < max_tries; t++) {
      if (t) retries++;
      send_raw(fr);
      uint64_t waited = 0;
      while (waited < limit) {
        tick();
        waited++;
        Frame f;
        while (parse(f)) {
          if ((f.type & 0xC0) == 0x40) {
            serve(f);
            waited = 0;  // the line was busy with the device's traffic
          } else if (f.seq == s && f.type == (type | 0x80)) {
            if (drop_next_answer) {
              drop_next_answer--;
              continue;
            }
            ans = f;
            return true;
          }
        }
        if (tx_busy()) waited = 0;
      }
    }
    CHECK(false, "request type 0x%02x seq %u: no answer after %d tries", type, s, max_tries);
    return false;
  }

  // CSR helpers on top of READ / WRITE.
  bool write(uint16_t off, const std::vector<uint32_t> &w, bool inc, uint8_t *status = nullptr) {
    std::vector<uint8_t> p = {(uint8_t)off, (uint8_t)(off >> 8), (uint8_t)(inc ? 1 : 0), 0,
                              (uint8_t)w.size(), (uint8_t)(w.size() >> 8)};
    for (uint32_t x : w) put32(p, x);
    Frame a;
    if (!request(0x02, p, a, 1)) return false;
    if (status) *status = a.payload.empty() ? 0xFF : a.payload[0];
    else CHECK(a.payload.size() == 1 && a.payload[0] == 0, "WRITE status (len %zu)", a.payload.size());
    return true;
  }
  std::vector<uint32_t> read(uint16_t off, size_t n, bool inc) {
    std::vector<uint8_t> p = {(uint8_t)off, (uint8_t)(off >> 8), (uint8_t)(inc ? 1 : 0), 0,
                              (uint8_t)n, (uint8_t)(n >> 8)};
    Frame a;
    std::vector<uint32_t> out;
    if (!request(0x03, p, a, 4 + 4 * n)) return out;
    CHECK(a.payload.size() == 4 + 4 * n && a.payload[0] == 0, "READ answer len %zu status %d",
          a.payload.size(), a.payload.empty() ? -1 : a.payload[0]);
    for (size_t i = 0; 4 + 4 * i + 3 < a.payload.size(); i++) out.push_back(get32(a.payload, 4 + 4 * i));
    return out;
  }
  uint32_t rd(uint16_t off) {
    auto v = read(off, 1, false);
    return v.empty() ? 0xDEADDEAD : v[0];
  }
  void wr(uint16_t off, uint32_t v) { write(off, {v}, false); }
  void mem_write(uint32_t pa, const std::vector<uint32_t> &w) {
    wr(VMGPU_REG_MEM_ADDR, pa);
    write(VMGPU_REG_MEM_DATA, w, false);
  }
  std::vector<uint32_t> mem_read(uint32_t pa, size_t n) {
    wr(VMGPU_REG_MEM_ADDR, pa);
    return read(VMGPU_REG_MEM_DATA, n, false);
  }
};

static std::vector<uint32_t> random_words(std::mt19937 &rng, size_t n) {
  std::vector<uint32_t> v(n);
  for (auto &x : v) x = rng();
  return v;
}

// ---------------------------------------------------------------- cases
static void test_basic(Board &b) {
  Frame a;
  CHECK(b.request(0x01, {}, a, 8), "PING answered");
  CHECK(a.type == 0x81 && a.payload.size() == 8, "PING answer type 0x%02x len %zu", a.type, a.payload.size());
  if (a.payload.size() == 8) {
    CHECK(a.payload[0] == 0 && a.payload[1] == 2, "PING status %u version %u", a.payload[0], a.payload[1]);
    CHECK(get32(a.payload, 4) == VMGPU_ID_MAGIC, "PING ID 0x%08x", get32(a.payload, 4));
  }
  b.wr(VMGPU_REG_SCRATCH, 0x12345678);
  CHECK(b.rd(VMGPU_REG_SCRATCH) == 0x12345678, "SCRATCH read back");
  auto regs = b.read(VMGPU_REG_ID, 4, true);
  CHECK(regs.size() == 4, "4 registers with INC");
  if (regs.size() == 4) {
    CHECK(regs[0] == VMGPU_ID_MAGIC && regs[1] == VMGPU_HW_VERSION, "ID/VERSION 0x%08x 0x%08x", regs[0], regs[1]);
    CHECK(regs[3] == Board::kMemBytes, "MEM_SIZE %u", regs[3]);
  }
  // The same register four times without INC.
  auto same = b.read(VMGPU_REG_ID, 4, false);
  CHECK(same == std::vector<uint32_t>(4, VMGPU_ID_MAGIC), "4 reads of ID without INC");
  // Ring registers written with INC (BASE, SIZE) and read back.
  b.write(VMGPU_RING_REG(0, VMGPU_RING_BASE), {0x1000, 256}, true);
  CHECK(b.read(VMGPU_RING_REG(0, VMGPU_RING_BASE), 2, true) == std::vector<uint32_t>({0x1000, 256}),
        "ring BASE/SIZE by INC burst");
  // Errors: bad type, bad counts and lengths; each answered with the status byte alone.
  CHECK(b.request(0x07, {}, a, 1), "bad type answered");
  CHECK(a.type == 0x87 && a.payload == std::vector<uint8_t>({1}), "bad type: status 1");
  CHECK(b.request(0x01, {0, 0}, a, 1) && a.payload == std::vector<uint8_t>({2}), "PING with payload: status 2");
  CHECK(b.request(0x03, {0x54, 0, 0, 0, 0, 0}, a, 1) && a.payload == std::vector<uint8_t>({2}), "READ count 0: status 2");
  CHECK(b.request(0x03, {0x54, 0, 0, 0, 1, 1}, a, 1) && a.payload == std::vector<uint8_t>({2}), "READ count 257: status 2");
  std::vector<uint8_t> badw = {0x54, 0, 0, 0, 2, 0, 1, 2, 3, 4};  // count 2, one word
  CHECK(b.request(0x02, badw, a, 1) && a.payload == std::vector<uint8_t>({2}), "WRITE short payload: status 2");
  CHECK(b.rd(VMGPU_REG_SCRATCH) == 0x12345678, "rejected WRITE did not write");
  // Frames the PC must not send (an answer type, a device request type) are ignored.
  b.send_raw(encode(b.seq, 0x81, {}), false);
  b.send_raw(encode(b.seq, 0x40, {0, 0, 0, 0}), false);
  CHECK(b.idle(4000) == 0, "no answer to stray frame types");
  CHECK(b.rd(VMGPU_REG_SCRATCH) == 0x12345678, "still answering after strays");
}

// The board-check display: SCRATCH writes of 0xB0A2C4xx show a step on the LEDs (ulx3s_top).
static void test_leds(Board &b) {
  auto leds = [&] { return (unsigned)b.m.led; };
  auto seen = [&](int bit, unsigned n) {  // the bit's values over n cycles: 1 on, 2 off, 3 both
    unsigned v = 0;
    for (unsigned i = 0; i < n; i++) {
      v |= (leds() >> bit & 1) ? 1u : 2u;
      b.tick();
    }
    return v;
  };
  unsigned normal = leds();
  CHECK((normal & 0xC0) == 0x80, "status LEDs: PLL locked, out of reset (0x%02x)", normal);
  b.wr(VMGPU_REG_SCRATCH, 0xB0A2C403);  // step 3 running
  CHECK(b.rd(VMGPU_REG_SCRATCH) == 0xB0A2C403, "SCRATCH keeps the value");
  unsigned l = leds();
  CHECK((l & 0x03) == 0x03 && (l & 0x18) == 0 && (l & 0xE0) == 0x80, "step 3 running: 0x%02x", l);
  CHECK(seen(2, 1024) == 3, "step 3's LED blinks");
  CHECK(seen(1, 1024) == 1 && seen(3, 1024) == 2, "passed steps steady on, later ones off");
  b.wr(VMGPU_REG_SCRATCH, 0xB0A2C40B);  // step 3 failed
  l = leds();
  CHECK((l & 0x03) == 0x03 && (l & 0x18) == 0 && (l & 0xE0) == 0xA0, "step 3 failed: 0x%02x", l);
  CHECK(seen(2, 256) == 3, "the failed step's LED blinks fast");
  b.wr(VMGPU_REG_SCRATCH, 0xB0A2C410);  // every step passed
  CHECK((leds() & 0xFF) == 0xDF, "all passed: 0x%02x", leds());
  b.wr(VMGPU_REG_SCRATCH, 0xB0A2C400);  // display off
  CHECK((leds() & 0xE0) == (normal & 0xE0), "display off: status LEDs again (0x%02x)", leds());
  b.wr(VMGPU_REG_SCRATCH, 0x12B0A2C4);  // not the tag
  CHECK((leds() & 0x60) == 0, "another SCRATCH value leaves the status LEDs (0x%02x)", leds());
  b.wr(VMGPU_REG_SCRATCH, 0xB0A2C401);
  CHECK(leds() & 0x1 || seen(0, 1024) == 3, "step 1 shown");
  for (int i = 0; i < 70000; i++) b.tick();  // CHECK_HOLD_BITS=16 in this build
  CHECK((leds() & 0x60) == 0 && (leds() & 0x80), "the display ends on its own (0x%02x)", leds());
}

static void test_burst(Board &b) {
  std::mt19937 rng(7);
  auto w = random_words(rng, 256);
  b.mem_write(0x100, w);
  CHECK(b.rd(VMGPU_REG_MEM_ADDR) == 0x100 + 1024, "MEM_ADDR after 256-word burst: 0x%x", b.rd(VMGPU_REG_MEM_ADDR));
  auto r = b.mem_read(0x100, 256);
  CHECK(r == w, "256-word burst read back");
  CHECK(b.rd(VMGPU_REG_MEM_ADDR) == 0x100 + 1024, "MEM_ADDR after 256-word read");
  // A second region does not disturb the first.
  auto w2 = random_words(rng, 17);
  b.mem_write(0x8000, w2);
  CHECK(b.mem_read(0x8000, 17) == w2, "17-word burst");
  CHECK(b.mem_read(0x100, 256) == w, "first burst intact");
}

static void test_framing(Board &b) {
  std::mt19937 rng(99);
  b.wr(VMGPU_REG_SCRATCH, 1);
  // Garbage between frames, with false SOFs in it.
  for (int round = 0; round < 4; round++) {
    std::vector<uint8_t> g;
    for (int i = 0; i < 60; i++) g.push_back(rng() & 0xFF);
    g.insert(g.begin() + 10, {0xA5, 0x5A});
    g.insert(g.begin() + 30, {0xA5, 0xA5, 0x5A, 0x00, 0x02, 0x10, 0x00});
    g.push_back(0xA5);
    b.send_raw(g, false);
    int r0 = b.retries;
    b.wr(VMGPU_REG_SCRATCH, 100 + round);
    CHECK(b.rd(VMGPU_REG_SCRATCH) == (uint32_t)(100 + round), "write after garbage round %d", round);
    CHECK(b.retries == r0, "garbage round %d needed %d retries", round, b.retries - r0);
  }
  // A false SOF right before a real frame: the real one is found by rescanning.
  {
    std::vector<uint8_t> p = {0x54, 0, 0, 0, 1, 0};
    put32(p, 0xAAAA0001);
    auto fr = encode(b.seq++, 0x02, p);
    std::vector<uint8_t> bytes = {0xA5, 0x5A};
    bytes.insert(bytes.end(), fr.begin(), fr.end());
    b.send_raw(bytes, false);
    CHECK(b.idle(20000) == 1, "answer to the frame behind a false SOF");
    CHECK(b.rd(VMGPU_REG_SCRATCH) == 0xAAAA0001, "frame behind a false SOF executed");
  }
  // A frame cut short, then a gap: dropped, not executed; the next frame works.
  {
    std::vector<uint8_t> p = {0x54, 0, 0, 0, 1, 0};
    put32(p, 0xBAD00001);
    auto fr = encode(b.seq, 0x02, p);
    fr.resize(fr.size() - 5);
    b.send_raw(fr, false);
    CHECK(b.idle(3 * b.gap + 2000) == 0, "no answer to a cut frame");
    CHECK(b.rd(VMGPU_REG_SCRATCH) == 0xAAAA0001, "cut frame not executed");
  }
  // Bad CRC: dropped.
  {
    std::vector<uint8_t> p = {0x54, 0, 0, 0, 1, 0};
    put32(p, 0xBAD00002);
    auto fr = encode(b.seq, 0x02, p);
    fr.back() ^= 0x40;
    b.send_raw(fr, false);
    CHECK(b.idle(3 * b.gap + 4000) == 0, "no answer to a bad CRC");
    CHECK(b.rd(VMGPU_REG_SCRATCH) == 0xAAAA0001, "bad-CRC frame not executed");
  }
  // LEN above 1032: refused at the header, even with a correct CRC over 1033 bytes.
  {
    std::vector<uint8_t> p(1033, 0);
    p[0] = 0x54;
    auto fr = encode(b.seq, 0x02, p);
    b.send_raw(fr, false);
    b.wr(VMGPU_REG_SCRATCH, 0xAAAA0002);  // sent right behind it
    CHECK(b.rd(VMGPU_REG_SCRATCH) == 0xAAAA0002, "frame after an over-long one executed");
  }
  // Every answer was parsed with a correct CRC, and the device still answers PING.
  Frame a;
  CHECK(b.request(0x01, {}, a, 8) && a.payload.size() == 8, "PING after framing abuse");
}

static void test_dup(Board &b) {
  std::mt19937 rng(3);
  // A burst write whose answer is lost: the retry (same SEQ) is answered, not executed again.
  auto w = random_words(rng, 64);
  b.wr(VMGPU_REG_MEM_ADDR, 0x200);
  int r0 = b.retries;
  b.drop_next_answer = 1;
  b.write(VMGPU_REG_MEM_DATA, w, false);
  CHECK(b.retries == r0 + 1, "one retry (%d)", b.retries - r0);
  CHECK(b.rd(VMGPU_REG_MEM_ADDR) == 0x200 + 256, "MEM_ADDR advanced once: 0x%x", b.rd(VMGPU_REG_MEM_ADDR));
  // A burst read whose answer is lost: same data, MEM_ADDR advanced once.
  b.wr(VMGPU_REG_MEM_ADDR, 0x200);
  b.drop_next_answer = 2;
  auto r = b.read(VMGPU_REG_MEM_DATA, 64, false);
  CHECK(r == w, "read retried twice returns the data once written");
  CHECK(b.rd(VMGPU_REG_MEM_ADDR) == 0x200 + 256, "MEM_ADDR after retried read: 0x%x", b.rd(VMGPU_REG_MEM_ADDR));
  // The same request frame twice on the line: answered twice, executed once. (The words are
  // cleared first: SDRAM, like a real board's, powers up holding anything.)
  b.mem_write(0x400, {0, 0, 0});
  b.wr(VMGPU_REG_MEM_ADDR, 0x400);
  std::vector<uint8_t> p = {(uint8_t)VMGPU_REG_MEM_DATA, 0, 0, 0, 2, 0};
  put32(p, 0x11111111);
  put32(p, 0x22222222);
  auto fr = encode(b.seq++, 0x02, p);
  b.send_raw(fr, false);
  b.send_raw(fr, false);
  CHECK(b.idle(20000) == 2, "both copies answered");
  CHECK(b.rd(VMGPU_REG_MEM_ADDR) == 0x408, "duplicate frame executed once: MEM_ADDR 0x%x", b.rd(VMGPU_REG_MEM_ADDR));
  CHECK(b.mem_read(0x400, 3) == std::vector<uint32_t>({0x11111111, 0x22222222, 0}), "data of the duplicate frame");
}

// Ring with commands: page tables, a host page mapped through the HOST bit, DMA copies both
// ways; the host port's requests are served by the model over the bridge.
static void ring_dma_round(Board &b, std::mt19937 &rng, int round) {
  const uint32_t RING = 0x1000, PD = 0x4000, PT = 0x5000, SRC = 0x6000, DST = 0x7000;
  const uint32_t HOST_FRAME = 0x20 + round, HOST = HOST_FRAME << 12;
  auto hostdata = random_words(rng, 64), devdata = random_words(rng, 32);
  for (int i = 0; i < 64; i++) b.host_mem[HOST + 4 * i] = hostdata[i];
  b.mem_write(SRC, devdata);
  b.mem_write(DST, std::vector<uint32_t>(64, 0));
  auto h = [](uint32_t op, uint32_t len, uint32_t fl = 0) { return (uint32_t)VMGPU_CMD_HEADER(op, len, fl); };
  std::vector<uint32_t> cmds = {
      h(VMGPU_OP_PTE_FILL, 4), PD + 4, 1, PT | VMGPU_PTE_V, 0,
      h(VMGPU_OP_PTE_FILL, 4), PT, 1, HOST | VMGPU_PTE_V | VMGPU_PTE_R | VMGPU_PTE_W | VMGPU_PTE_HOST, 0,
      h(VMGPU_OP_PTE_FILL, 4), PT + 4, 1, DST | VMGPU_PTE_V | VMGPU_PTE_R | VMGPU_PTE_W, 0,
      h(VMGPU_OP_PTE_FILL, 4), PT + 8, 1, SRC | VMGPU_PTE_V | VMGPU_PTE_R, 0,
      h(VMGPU_OP_TLB_INV, 3, VMGPU_INV_ALL), 0, 0, 0,
      h(VMGPU_OP_BIND_CTX, 2), 1, PD,
      h(VMGPU_OP_DMA_COPY, 6), 0x400000, 0x401000, 256, 1, 0, 0,   // host -> device
      h(VMGPU_OP_DMA_COPY, 6), 0x402000, 0x400100, 128, 1, 0, 0,   // device -> host
      h(VMGPU_OP_FENCE, 2), (uint32_t)(round + 1), 0};
  b.write(VMGPU_RING_REG(0, VMGPU_RING_BASE), {RING, 256}, true);
  b.wr(VMGPU_RING_REG(0, VMGPU_RING_TAIL), 0);
  b.wr(VMGPU_RING_REG(0, VMGPU_RING_CTRL), VMGPU_RING_CTRL_ENABLE_MASK | VMGPU_RING_CTRL_RESET_MASK);
  b.mem_write(RING, cmds);
  auto before = b.host_writes;
  int reads0 = b.host_reads;
  b.wr(VMGPU_RING_REG(0, VMGPU_RING_TAIL), 4 * cmds.size());
  bool done = false;
  for (int i = 0; i < 400 && !done; i++) {
    done = b.rd(VMGPU_RING_REG(0, VMGPU_RING_FENCE)) == (uint32_t)(round + 1);
    if (!done) b.idle(2000);
  }
  CHECK(done, "round %d: fence reached", round);
  CHECK(!(b.rd(VMGPU_RING_REG(0, VMGPU_RING_STATUS)) & VMGPU_RING_STATUS_FAULTED_MASK), "round %d: no fault", round);
  CHECK(b.mem_read(DST, 64) == hostdata, "round %d: host page copied to device memory", round);
  int bad = 0, twice = 0;
  for (int i = 0; i < 32; i++) {
    uint32_t a = HOST + 0x100 + 4 * i;
    if (b.host_mem[a] != devdata[i]) bad++;
    if (b.host_writes[a] - before[a] != 1) twice++;
  }
  CHECK(bad == 0, "round %d: %d host words wrong after device -> host copy", round, bad);
  CHECK(twice == 0, "round %d: %d host words not written exactly once", round, twice);
  CHECK(b.host_reads - reads0 == 64, "round %d: %d host reads served (64 expected)", round, b.host_reads - reads0);
}

static void test_ring_dma(Board &b) {
  std::mt19937 rng(11);
  ring_dma_round(b, rng, 0);
  ring_dma_round(b, rng, 1);
  CHECK(b.dev_dupes == 0, "no device request repeated on a clean link (%d)", b.dev_dupes);
}

static void test_faults(Board &b) {
  std::mt19937 rng(2024);
  for (Faults *f : {&b.to_dev, &b.from_dev}) {
    f->flip = 0.001;
    f->drop = 0.001;
    f->dup = 0.001;
  }
  b.max_tries = 60;
  uint32_t scratch = 0;
  for (int round = 0; round < 6; round++) {
    auto w = random_words(rng, 64);
    uint32_t pa = 0x8000 + 0x400 * round;
    b.mem_write(pa, w);
    CHECK(b.rd(VMGPU_REG_MEM_ADDR) == pa + 256, "round %d: burst write executed once (MEM_ADDR 0x%x)", round,
          b.rd(VMGPU_REG_MEM_ADDR));
    CHECK(b.mem_read(pa, 64) == w, "round %d: burst read back", round);
    CHECK(b.rd(VMGPU_REG_MEM_ADDR) == pa + 256, "round %d: burst read executed once", round);
    scratch = rng();
    b.wr(VMGPU_REG_SCRATCH, scratch);
    CHECK(b.rd(VMGPU_REG_SCRATCH) == scratch, "round %d: SCRATCH", round);
  }
  for (int round = 0; round < 3; round++) ring_dma_round(b, rng, round);
  // Everything written in the first rounds is still there.
  std::mt19937 rng2(2024);
  for (int round = 0; round < 6; round++) {
    auto w = random_words(rng2, 64);
    (void)rng2();
    CHECK(b.mem_read(0x8000 + 0x400 * round, 64) == w, "round %d data intact at the end", round);
  }
  std::printf("faults to device: %d flipped, %d dropped, %d duplicated; from device: %d flipped, %d dropped, "
              "%d duplicated; %d request retries, %d device frames, %d repeated device requests\n",
              b.to_dev.flips, b.to_dev.drops, b.to_dev.dups, b.from_dev.flips, b.from_dev.drops, b.from_dev.dups,
              b.retries, b.dev_frames, b.dev_dupes);
  CHECK(b.to_dev.flips + b.to_dev.drops + b.to_dev.dups > 10, "faults were injected towards the device");
  CHECK(b.from_dev.flips + b.from_dev.drops + b.from_dev.dups > 10, "faults were injected from the device");
  CHECK(b.retries > 0 && b.dev_dupes > 0, "recovery paths exercised: %d retries, %d device repeats", b.retries,
        b.dev_dupes);
}

int main(int argc, char **argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s <case> <clk_hz> <baud> <gap_cycles>\n", argv[0]);
    return 2;
  }
  std::string c = argv[1];
  double bitc = std::atof(argv[2]) / std::atof(argv[3]);
  Board b(bitc, std::strtoull(argv[4], nullptr, 0));
  if (c == "basic") test_basic(b);
  else if (c == "burst") test_burst(b);
  else if (c == "framing") test_framing(b);
  else if (c == "dup") test_dup(b);
  else if (c == "ring_dma") test_ring_dma(b);
  else if (c == "faults") test_faults(b);
  else if (c == "leds") test_leds(b);
  else {
    std::fprintf(stderr, "unknown case %s\n", c.c_str());
    return 2;
  }
  std::printf("board %s: %llu cycles, %d retries\n", c.c_str(), (unsigned long long)b.cyc, b.retries);
#ifdef BOARD_TB_SDRAM
  b.chip.report(stdout);
  CHECK(b.chip.violations() == 0, "the SDRAM chip model saw %llu violations",
        (unsigned long long)b.chip.violations());
#endif
  return tb::summary(("board_" + c).c_str());
}
