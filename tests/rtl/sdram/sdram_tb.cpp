// sdram_ctrl against the chip model (sdram_chip.h): random traffic checked against a reference
// memory, long sequential streams (efficiency and refresh under load), a DMA-like copy, and the
// address map checked cell by cell in the chip. The controller's parameters are compiled in;
// the options below must describe the same configuration (tests/rtl/sdram/CMakeLists.txt passes
// both from one list).
//
//   --part NAME       chip figures the model checks against (sdram_chip.cpp: ulx3s, ...)
//   --clk-mhz F       clock (the controller's CLK_HZ)
//   --cl N            CAS latency the controller must program
//   --col-bits N      9 (32 MB) or 10 (64 MB); 13 row bits, 4 banks
//   --bank-xor 0|1    the controller's BANK_XOR (for the address-map check)
//   --phase in|inv    chip clock in phase with the controller's, or inverted (sdram_phy)
//   --random N        cycles of random traffic (default 200000)
//   --stream-words N  words per sequential stream and copy (default 262144: 1 MiB)
//   --expect KIND     negative test: pass only if the model reports a violation of KIND
//   --seed S
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <unordered_map>

#include "Vsdram_ctrl.h"
#include "sdram_chip.h"
#include "tb_check.h"
#include "verilated.h"

namespace {

struct Options {
  std::string part = "ulx3s";
  double clk_mhz = 50.0;
  int cl = 2;
  int col_bits = 9;
  int row_bits = 13;
  int bank_xor = 1;
  bool inv = false;
  uint64_t random_cycles = 200000;
  uint32_t stream_words = 262144;
  std::string expect;
  uint32_t seed = 1;
};

struct Pending {
  uint32_t addr;
  uint32_t data;
  uint64_t t;
};

class Bench {
 public:
  Bench(const Options &o, const sdram::Part &part)
      : o_(o), chip_(part, geom(o), 1000.0 / o.clk_mhz, o.inv), rng_(o.seed) {
    wb_ = o.col_bits - 1;
    words_ = 1u << (o.row_bits + 2 + wb_);
    m_.clk_i = 0;
    m_.rst_ni = 0;
    for (int i = 0; i < 4; ++i) tick();
    m_.rst_ni = 1;
  }

  static sdram::Geometry geom(const Options &o) {
    sdram::Geometry g;
    g.col_bits = o.col_bits;
    g.row_bits = o.row_bits;
    return g;
  }

  // ---- the address map the controller documents ----
  void map(uint32_t a, unsigned &bank, unsigned &row, unsigned &col) const {
    col = (a & ((1u << wb_) - 1)) * 2;
    unsigned bf = (a >> wb_) & 3;
    row = a >> (wb_ + 2);
    if (o_.bank_xor)
      for (int k = 0; k < o_.row_bits; ++k) bf ^= ((row >> k) & 1u) << (k % 2);
    bank = bf;
  }
  uint32_t ref_word(uint32_t a) const {
    auto it = ref_.find(a);
    if (it != ref_.end()) return it->second;
    unsigned b, r, c;
    map(a, b, r, c);
    return uint32_t(sdram::Chip::fill(b, r, c)) | (uint32_t(sdram::Chip::fill(b, r, c + 1)) << 16);
  }

  // ---- one clock ----
  // Inputs for this cycle are in rd_/wr_ fields; returns with the handshakes done.
  void tick() {
    m_.rd_valid_i = rd_v_;
    m_.rd_addr_i = rd_a_;
    m_.wr_valid_i = wr_v_;
    m_.wr_addr_i = wr_a_;
    m_.wr_data_i = wr_d_;
    m_.wr_be_i = wr_be_;
    m_.clk_i = 0;
    m_.eval();

    sdram::Pins p;
    p.cke = m_.sdram_cke_o;
    p.cs_n = m_.sdram_cs_no;
    p.ras_n = m_.sdram_ras_no;
    p.cas_n = m_.sdram_cas_no;
    p.we_n = m_.sdram_we_no;
    p.ba = m_.sdram_ba_o;
    p.a = m_.sdram_a_o;
    p.dqm = m_.sdram_dqm_o;
    p.dq = m_.sdram_dq_o;
    p.dq_oe = m_.sdram_dq_oe_o;
    // Inverted chip clock: its edge falls in the middle of this cycle and what it drives then is
    // what the controller samples at the coming edge. In phase: the controller samples what the
    // chip drove after the previous edge, and the chip's edge coincides with the controller's.
    if (o_.inv) chip_.edge(p);
    m_.sdram_dq_i = chip_.driving() ? chip_.dq() : uint16_t(rng_());
    if (!o_.inv) chip_.edge(p);

    rd_take_ = rd_v_ && m_.rd_ready_o;
    wr_take_ = wr_v_ && m_.wr_ready_o;
    CHECK(!(rd_take_ && wr_take_), "read and write accepted in one cycle (cycle %" PRIu64 ")", cyc_);
    CHECK(m_.init_done_o || (!m_.rd_ready_o && !m_.wr_ready_o), "ready before initialisation");
    if (m_.rd_rsp_valid_o) {
      ++rsp_count_;
      if (pend_.empty()) {
        CHECK(false, "read response with no read outstanding (cycle %" PRIu64 ")", cyc_);
      } else {
        Pending e = pend_.front();
        pend_.pop_front();
        last_rsp_data_ = m_.rd_rsp_data_o;
        CHECK(m_.rd_rsp_data_o == e.data, "read 0x%06x: 0x%08x, expected 0x%08x (cycle %" PRIu64 ")",
              e.addr, m_.rd_rsp_data_o, e.data, cyc_);
        uint64_t lat = cyc_ - e.t;
        if (lat > max_latency_) max_latency_ = lat;
        CHECK(lat <= 64, "read 0x%06x answered after %" PRIu64 " cycles", e.addr, lat);
      }
    }
    // Requests run in acceptance order: a read sees every write accepted before it.
    if (wr_take_) {
      uint32_t old = ref_word(wr_a_), mask = 0;
      for (int i = 0; i < 4; ++i)
        if (wr_be_ & (1u << i)) mask |= 0xFFu << (8 * i);
      ref_[wr_a_] = (old & ~mask) | (wr_d_ & mask);
      ++writes_;
    }
    if (rd_take_) {
      pend_.push_back({rd_a_, ref_word(rd_a_), cyc_});
      ++reads_;
    }
    if (m_.stat_refresh_o) ++refresh_cycles_;

    m_.clk_i = 1;
    m_.eval();
    ++cyc_;
  }

  void wait_init() {
    uint64_t t0 = cyc_;
    while (!m_.init_done_o && cyc_ - t0 < 40000) tick();
    CHECK(m_.init_done_o, "initialisation finished");
    init_cycles_ = cyc_;
    tick();  // the LOAD MODE REGISTER reaches the chip a cycle after init_done_o rises
    CHECK(chip_.initialised(), "the chip saw a complete initialisation");
    CHECK(chip_.cas_latency() == o_.cl && chip_.burst_length() == 2,
          "mode register: CAS latency %d (want %d), burst length %d", chip_.cas_latency(), o_.cl,
          chip_.burst_length());
  }

  void drain(uint64_t max = 200) {
    rd_v_ = wr_v_ = false;
    for (uint64_t i = 0; i < max && !pend_.empty(); ++i) tick();
    for (int i = 0; i < 16; ++i) tick();  // the last write beats reach the chip
    CHECK(pend_.empty(), "%zu reads never answered", pend_.size());
  }

  // ---- random traffic ----
  uint32_t pick_addr(uint32_t last) {
    unsigned r = rng_() % 100;
    uint32_t row_words = 1u << wb_;
    if (r < 25) return (last + 1) & (words_ - 1);                               // sequential
    if (r < 45) return (last & ~(row_words - 1)) | (rng_() & (row_words - 1));  // same row
    if (r < 60) return last ^ ((1 + rng_() % 3) << wb_);                        // other bank
    if (r < 75) return last ^ ((1 + rng_() % ((1u << o_.row_bits) - 1)) << (wb_ + 2));  // row conflict
    if (r < 88) return hot_[rng_() % hot_.size()];                              // read after write
    return rng_() & (words_ - 1);
  }

  void random_traffic(uint64_t cycles) {
    for (int i = 0; i < 64; ++i) hot_.push_back(rng_() & (words_ - 1));
    static const double kRates[] = {1.0, 0.8, 0.5, 0.2, 0.0};
    double prd = 1.0, pwr = 1.0;
    uint64_t rd_since = 0, wr_since = 0;
    std::uniform_real_distribution<double> u(0.0, 1.0);
    uint64_t end = cyc_ + cycles;
    while (cyc_ < end) {
      if ((cyc_ & 2047) == 0) {
        prd = kRates[rng_() % 5];
        pwr = kRates[rng_() % 5];
      }
      if (!rd_v_ && u(rng_) < prd) {
        rd_v_ = true;
        rd_a_ = pick_addr(last_);
        last_ = rd_a_;
        rd_since = cyc_;
      }
      if (!wr_v_ && u(rng_) < pwr) {
        wr_v_ = true;
        wr_a_ = pick_addr(last_);
        last_ = wr_a_;
        wr_d_ = uint32_t(rng_());
        unsigned k = rng_() % 8;
        wr_be_ = k < 5 ? 0xF : (rng_() & 0xF);
        if (rng_() % 4 == 0) hot_[rng_() % hot_.size()] = wr_a_;
        wr_since = cyc_;
      }
      tick();
      if (rd_take_) rd_v_ = false;
      if (wr_take_) wr_v_ = false;
      // No port waits long, whatever the other one does.
      CHECK(!rd_v_ || cyc_ - rd_since < 200, "read waited %" PRIu64 " cycles", cyc_ - rd_since);
      CHECK(!wr_v_ || cyc_ - wr_since < 200, "write waited %" PRIu64 " cycles", cyc_ - wr_since);
      if (tb::failures() > 20) break;
    }
    drain();
  }

  // ---- sequential streams ----
  struct StreamResult {
    uint64_t cycles;
    uint64_t refresh_cycles;
    uint64_t refreshes;
  };

  StreamResult read_stream(uint32_t base, uint32_t n) {
    uint32_t issued = 0;
    uint64_t rsp0 = rsp_count_, ref0 = chip_.n_ref, rc0 = refresh_cycles_, t0 = 0;
    bool started = false;
    while (rsp_count_ - rsp0 < n) {
      rd_v_ = issued < n;
      rd_a_ = (base + issued) & (words_ - 1);
      tick();
      if (rd_take_) {
        if (!started) { started = true; t0 = cyc_ - 1; }
        ++issued;
      }
      if (cyc_ - t0 > uint64_t(n) * 8 + 1000 && started) { CHECK(false, "read stream stalled"); break; }
    }
    rd_v_ = false;
    return {cyc_ - t0, refresh_cycles_ - rc0, chip_.n_ref - ref0};
  }

  StreamResult write_stream(uint32_t base, uint32_t n) {
    uint32_t issued = 0;
    uint64_t w0 = chip_.n_write, ref0 = chip_.n_ref, rc0 = refresh_cycles_, t0 = 0;
    bool started = false;
    while (chip_.n_write - w0 < n) {
      wr_v_ = issued < n;
      wr_a_ = (base + issued) & (words_ - 1);
      wr_d_ = uint32_t(rng_());
      wr_be_ = 0xF;
      tick();
      if (wr_take_) {
        if (!started) { started = true; t0 = cyc_ - 1; }
        ++issued;
      }
      if (started && cyc_ - t0 > uint64_t(n) * 8 + 1000) { CHECK(false, "write stream stalled"); break; }
    }
    wr_v_ = false;
    // The WRITE command's cycle counts; its second beat follows in the next cycle.
    return {cyc_ + 1 - t0, refresh_cycles_ - rc0, chip_.n_ref - ref0};
  }

  // A DMA-like copy: reads run at most `ahead` words ahead of the writes (the DMA engine's
  // response buffer), each write carries the data its read returned.
  StreamResult copy(uint32_t src, uint32_t dst, uint32_t n, uint32_t ahead) {
    uint32_t rd_issued = 0, wr_issued = 0, got = 0;
    std::deque<uint32_t> data;
    uint64_t w0 = chip_.n_write, ref0 = chip_.n_ref, rc0 = refresh_cycles_, t0 = cyc_;
    uint64_t rsp0 = rsp_count_;
    while (chip_.n_write - w0 < n) {
      rd_v_ = rd_issued < n && rd_issued - wr_issued < ahead;
      rd_a_ = (src + rd_issued) & (words_ - 1);
      wr_v_ = !data.empty();
      wr_a_ = (dst + wr_issued) & (words_ - 1);
      wr_d_ = data.empty() ? 0 : data.front();
      wr_be_ = 0xF;
      uint64_t before = rsp_count_;
      tick();
      if (rsp_count_ != before) { data.push_back(last_rsp_data_); ++got; }
      if (rd_take_) ++rd_issued;
      if (wr_take_) { data.pop_front(); ++wr_issued; }
      if (cyc_ - t0 > uint64_t(n) * 16 + 1000) { CHECK(false, "copy stalled"); break; }
    }
    (void)rsp0;
    rd_v_ = wr_v_ = false;
    for (uint32_t i = 0; i < n; i += 997)
      CHECK(ref_word((dst + i) & (words_ - 1)) == ref_word((src + i) & (words_ - 1)),
            "copied word %u differs", i);
    return {cyc_ + 1 - t0, refresh_cycles_ - rc0, chip_.n_ref - ref0};
  }

  // Cycles from a read's acceptance to its response, nothing else in flight.
  uint64_t single_read(uint32_t a) {
    drain();
    rd_v_ = true;
    rd_a_ = a;
    uint64_t t = 0;
    for (int i = 0; i < 100 && rd_v_; ++i) {
      tick();
      if (rd_take_) { rd_v_ = false; t = cyc_ - 1; }
    }
    uint64_t n0 = rsp_count_;
    for (int i = 0; i < 100 && rsp_count_ == n0; ++i) tick();
    CHECK(rsp_count_ == n0 + 1, "single read of 0x%06x answered", a);
    return cyc_ - 1 - t;
  }

  // Read latency with the row open, with the bank closed (right after a refresh), and with
  // another row of the bank open.
  void latencies(uint64_t &hit, uint64_t &closed, uint64_t &conflict) {
    uint32_t x = 0x12345 & (words_ - 1);
    single_read(x);  // opens x's row
    hit = single_read(x);
    // Wait for a refresh to finish: every bank is closed after it.
    int guard = 0;
    while (!m_.stat_refresh_o && guard++ < 20000) tick();
    while (m_.stat_refresh_o && guard++ < 20000) tick();
    closed = single_read(x);
    unsigned bx, rx, cx;
    map(x, bx, rx, cx);
    uint32_t y = x;
    for (uint32_t f = 0; f < 4; ++f) {
      uint32_t cand = x ^ (1u << (wb_ + 2 + 3)) ^ (f << wb_);
      unsigned by, ry, cy;
      map(cand, by, ry, cy);
      if (by == bx && ry != rx) { y = cand; break; }
    }
    CHECK(y != x, "a word in another row of the same bank");
    conflict = single_read(y);
  }

  // Every word written so far is in the chip where the documented map says.
  void check_map() {
    size_t bad = 0;
    for (const auto &kv : ref_) {
      unsigned b, r, c;
      map(kv.first, b, r, c);
      uint32_t got = uint32_t(chip_.peek(b, r, c)) | (uint32_t(chip_.peek(b, r, c + 1)) << 16);
      if (got != kv.second && ++bad <= 5)
        CHECK(false, "word 0x%06x: chip bank %u row %u col %u holds 0x%08x, expected 0x%08x",
              kv.first, b, r, c, got, kv.second);
    }
    CHECK(bad == 0, "%zu written words not where the address map puts them", bad);
  }

  const Options &o_;
  Vsdram_ctrl m_;
  sdram::Chip chip_;
  std::mt19937 rng_;
  int wb_;
  uint32_t words_;
  uint64_t cyc_ = 0, init_cycles_ = 0;

  bool rd_v_ = false, wr_v_ = false, rd_take_ = false, wr_take_ = false;
  uint32_t rd_a_ = 0, wr_a_ = 0, wr_d_ = 0, wr_be_ = 0, last_ = 0, last_rsp_data_ = 0;
  std::vector<uint32_t> hot_;
  std::unordered_map<uint32_t, uint32_t> ref_;
  std::deque<Pending> pend_;
  uint64_t reads_ = 0, writes_ = 0, rsp_count_ = 0, refresh_cycles_ = 0, max_latency_ = 0;
};

bool parse(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&](void) -> const char * {
      if (i + 1 >= argc) { std::fprintf(stderr, "%s needs a value\n", a.c_str()); std::exit(2); }
      return argv[++i];
    };
    if (a == "--part") o.part = val();
    else if (a == "--clk-mhz") o.clk_mhz = std::atof(val());
    else if (a == "--cl") o.cl = std::atoi(val());
    else if (a == "--col-bits") o.col_bits = std::atoi(val());
    else if (a == "--bank-xor") o.bank_xor = std::atoi(val());
    else if (a == "--phase") o.inv = std::string(val()) == "inv";
    else if (a == "--random") o.random_cycles = std::strtoull(val(), nullptr, 0);
    else if (a == "--stream-words") o.stream_words = uint32_t(std::strtoul(val(), nullptr, 0));
    else if (a == "--expect") o.expect = val();
    else if (a == "--seed") o.seed = uint32_t(std::strtoul(val(), nullptr, 0));
    else { std::fprintf(stderr, "unknown option %s\n", a.c_str()); return false; }
  }
  return true;
}

int kind_by_name(const std::string &n) {
  for (int k = 0; k < sdram::V_KINDS; ++k)
    if (n == sdram::kind_name(k)) return k;
  return -1;
}

}  // namespace

int main(int argc, char **argv) {
  Verilated::commandArgs(argc, argv);
  Options o;
  if (!parse(argc, argv, o)) return 2;
  const sdram::Part *part = sdram::find_part(o.part);
  if (!part) { std::fprintf(stderr, "unknown part %s\n", o.part.c_str()); return 2; }
  std::printf("sdram_tb: %s, %.1f MHz, CAS latency %d, %d columns, %s chip clock, bank xor %d\n",
              part->name, o.clk_mhz, o.cl, 1 << o.col_bits, o.inv ? "inverted" : "in-phase",
              o.bank_xor);

  Bench b(o, *part);

  if (!o.expect.empty()) {
    // Negative test: the misconfigured controller must be caught by the model.
    int kind = kind_by_name(o.expect);
    if (kind < 0) { std::fprintf(stderr, "unknown violation kind %s\n", o.expect.c_str()); return 2; }
    b.chip_.set_print_limit(3);
    b.wait_init();
    if (b.chip_.violations(kind) == 0) b.random_traffic(o.random_cycles);
    if (b.chip_.violations(kind) == 0) b.read_stream(0, 4096);
    b.chip_.report(stdout);
    bool caught = b.chip_.violations(kind) > 0;
    std::printf("sdram_tb: expected %s violations: %s\n", o.expect.c_str(), caught ? "reported" : "NOT reported");
    return caught ? 0 : 1;
  }

  b.wait_init();
  std::printf("initialisation: %" PRIu64 " cycles\n", b.init_cycles_);

  uint64_t lat_hit, lat_closed, lat_conflict;
  b.latencies(lat_hit, lat_closed, lat_conflict);
  b.random_traffic(o.random_cycles);
  std::printf("random: %" PRIu64 " reads, %" PRIu64 " writes, longest read latency %" PRIu64 " cycles\n",
              b.reads_, b.writes_, b.max_latency_);
  b.check_map();

  const uint32_t n = o.stream_words;
  double refi_cycles = 7812.5 * o.clk_mhz / 1000.0;
  auto r = b.read_stream(0x1000, n);
  double rd_eff = double(n) * 4 / double(r.cycles) / 2.0;
  CHECK(double(r.refreshes) >= std::floor(double(r.cycles) / refi_cycles) - 1,
        "read stream: %" PRIu64 " refreshes in %" PRIu64 " cycles", r.refreshes, r.cycles);
  b.drain();
  auto w = b.write_stream(0x2000, n);
  double wr_eff = double(n) * 4 / double(w.cycles) / 2.0;
  CHECK(double(w.refreshes) >= std::floor(double(w.cycles) / refi_cycles) - 1,
        "write stream: %" PRIu64 " refreshes in %" PRIu64 " cycles", w.refreshes, w.cycles);
  b.drain();
  // Copy 1 MiB (or the stream length) to a destination one MiB further on.
  uint32_t src = 0x3000, dst = (src + 0x40000) & (b.words_ - 1);
  auto c = b.copy(src, dst, n, 8);
  b.drain();
  b.check_map();

  double copy_bpc = double(n) * 4 / double(c.cycles);
  double ref_overhead = double(r.refresh_cycles + w.refresh_cycles) / double(r.cycles + w.cycles);
  std::printf("stream of %u words: read %" PRIu64 " cycles, write %" PRIu64 " cycles, "
              "%" PRIu64 "+%" PRIu64 " refreshes\n", n, r.cycles, w.cycles, r.refreshes, w.refreshes);
  // One `key value` line per figure (the future vmgpu-bench keys, measured here).
  std::printf("sdram_seq_read_efficiency %.4f\n", rd_eff);
  std::printf("sdram_seq_write_efficiency %.4f\n", wr_eff);
  // A copy moves every byte over the 16-bit bus twice (read, then write): copy bytes per cycle
  // can reach 1, half the chip's peak. _efficiency divides by the chip's peak (2 bytes/cycle),
  // _bus_utilisation counts both directions (read + written bytes per cycle / 2).
  std::printf("sdram_copy_bytes_per_cycle %.4f\n", copy_bpc);
  std::printf("sdram_copy_efficiency %.4f\n", copy_bpc / 2.0);
  std::printf("sdram_copy_bus_utilisation %.4f\n", copy_bpc);
  std::printf("sdram_refresh_overhead %.4f\n", ref_overhead);
  std::printf("sdram_read_latency_row_hit %" PRIu64 " cycles\n", lat_hit);
  std::printf("sdram_read_latency_bank_closed %" PRIu64 " cycles\n", lat_closed);
  std::printf("sdram_read_latency_row_conflict %" PRIu64 " cycles\n", lat_conflict);
  // Streams must be fast: this configuration's floor, well under what is measured today.
  CHECK(rd_eff > 0.9 && wr_eff > 0.9, "stream efficiency read %.3f write %.3f", rd_eff, wr_eff);
  CHECK(copy_bpc > 0.6, "copy %.3f bytes/cycle", copy_bpc);

  b.chip_.report(stdout);
  CHECK(b.chip_.violations() == 0, "%llu timing/protocol violations reported by the chip model",
        (unsigned long long)b.chip_.violations());
  return tb::summary("sdram_tb");
}
