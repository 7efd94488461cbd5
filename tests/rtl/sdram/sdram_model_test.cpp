// Tests of the SDRAM chip model itself (no RTL): hand-written command sequences, each checked for
// the data the model returns and the violations it reports. A correct sequence (initialisation,
// reads and writes at CAS latency 2 and 3, every burst length and both burst orders, DQM on
// writes and reads, burst interruption, auto precharge, refresh on time) must give zero
// violations and the right data; then each rule is broken once on purpose and must be reported
// under its own kind, so the controller tests' "zero violations" means something.
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "sdram_chip.h"
#include "tb_check.h"

using sdram::Chip;
using sdram::Pins;

namespace {

constexpr double kTck = 20.0;  // 50 MHz

// Drives one chip through pin-level commands, one edge per call, in phase with the "controller".
struct Driver {
  Chip chip;
  std::vector<uint16_t> seen;  // beats the controller would sample, in order
  std::vector<int64_t> seen_at;
  explicit Driver(const sdram::Part &part, bool neg = false, int max_postponed = 1)
      : chip(part, sdram::Geometry{}, kTck, neg, max_postponed) {
    chip.set_print_limit(0);
  }
  void edge(Pins p) {
    chip.edge(p);
    if (chip.driving()) {
      seen.push_back(chip.dq());
      seen_at.push_back(int64_t(chip.edges()));
    }
  }
  void nop(int n = 1) {
    Pins p;
    p.cke = true;
    p.cs_n = false;
    for (int i = 0; i < n; ++i) edge(p);
  }
  static Pins cmd(unsigned ras, unsigned cas, unsigned we, unsigned ba = 0, unsigned a = 0) {
    Pins p;
    p.cke = true;
    p.cs_n = false;
    p.ras_n = ras;
    p.cas_n = cas;
    p.we_n = we;
    p.ba = ba;
    p.a = a;
    return p;
  }
  void act(unsigned ba, unsigned row) { edge(cmd(0, 1, 1, ba, row)); }
  void read(unsigned ba, unsigned col, bool ap = false) { edge(cmd(1, 0, 1, ba, col | (ap ? 0x400 : 0))); }
  void write(unsigned ba, unsigned col, uint16_t d, unsigned dqm = 0, bool ap = false) {
    Pins p = cmd(1, 0, 0, ba, col | (ap ? 0x400 : 0));
    p.dq = d;
    p.dq_oe = true;
    p.dqm = dqm;
    edge(p);
  }
  void beat(uint16_t d, unsigned dqm = 0) {  // a further write beat with a NOP
    Pins p = cmd(1, 1, 1);
    p.dq = d;
    p.dq_oe = true;
    p.dqm = dqm;
    edge(p);
  }
  void pre(unsigned ba) { edge(cmd(0, 1, 0, ba, 0)); }
  void preall() { edge(cmd(0, 1, 0, 0, 0x400)); }
  void ref() { edge(cmd(0, 0, 1)); }
  void mrs(unsigned bl_code, unsigned cl, bool interleaved = false) {
    edge(cmd(0, 0, 0, 0, (cl << 4) | (interleaved ? 8 : 0) | bl_code));
  }
  // The power-up wait, PRECHARGE ALL, the part's refreshes, LOAD MODE REGISTER.
  void init(const sdram::Part &part, unsigned bl_code = 1, unsigned cl = 2, bool il = false) {
    nop(int(part.powerup_us * 1000.0 / kTck) + 1);
    preall();
    nop(2);
    for (int i = 0; i < part.init_refreshes; ++i) {
      ref();
      nop(4);
    }
    mrs(bl_code, cl, il);
    nop(2);
  }
};

const sdram::Part &ulx3s() { return *sdram::find_part("ulx3s"); }

// The correct sequences.
void test_clean() {
  Driver d(ulx3s());
  d.init(ulx3s(), 1, 2);
  CHECK(d.chip.initialised(), "initialised after the sequence");
  // Write a burst of 2 to bank 1 row 5 column 8, read it back at CAS latency 2.
  d.act(1, 5);
  d.nop(1);                    // tRCD 21 ns: two clocks at 20 ns
  d.write(1, 8, 0x1111);
  d.beat(0x2222);
  d.read(1, 8);
  size_t before = d.seen.size();
  int64_t read_edge = int64_t(d.chip.edges());
  d.nop(4);
  CHECK(d.seen.size() == before + 2, "two read beats, got %zu", d.seen.size() - before);
  if (d.seen.size() == before + 2) {
    CHECK(d.seen[before] == 0x1111 && d.seen[before + 1] == 0x2222, "data %04x %04x",
          d.seen[before], d.seen[before + 1]);
    // In phase: the beat driven after edge n is sampled at n+1; CL 2 -> sampled at READ + 2.
    CHECK(d.seen_at[before] + 1 == read_edge + 2, "first beat at READ + CAS latency");
  }
  // Byte masks on writes: the high byte of column 8 kept, the low byte of column 9 kept.
  d.write(1, 8, 0xAAAA, 2);
  d.beat(0xBBBB, 1);
  d.nop(1);
  CHECK(d.chip.peek(1, 5, 8) == 0x11AA, "masked write col 8: %04x", d.chip.peek(1, 5, 8));
  CHECK(d.chip.peek(1, 5, 9) == 0xBB22, "masked write col 9: %04x", d.chip.peek(1, 5, 9));
  // Read DQM (latency 2): DQM high on the edge after the READ masks the second beat.
  before = d.seen.size();
  d.read(1, 8);
  Pins m = Driver::cmd(1, 1, 1);
  m.dqm = 3;
  d.edge(m);
  d.nop(3);
  CHECK(d.seen.size() == before + 1, "read DQM masks one beat: %zu beats", d.seen.size() - before);
  // Another bank while bank 1 is open (tRRD 15 ns: one clock apart is enough only after 20 ns).
  d.act(2, 7);
  d.nop(1);
  d.write(2, 0, 0x3333);
  d.beat(0x4444);
  d.nop(1);  // tWR 15 ns after the last beat
  d.preall();
  d.nop(1);
  d.ref();
  d.nop(4);
  CHECK(d.chip.violations() == 0, "clean sequence: %llu violations", (unsigned long long)d.chip.violations());
  if (d.chip.violations()) d.chip.report(stdout);
}

// Burst lengths 1/2/4/8, sequential and interleaved orders, CAS latency 3, read-interrupt.
void test_bursts() {
  for (unsigned bl_code = 0; bl_code < 4; ++bl_code)
    for (int il = 0; il < 2; ++il) {
      Driver d(ulx3s());
      d.init(ulx3s(), bl_code, 3, il);
      int bl = 1 << bl_code;
      d.act(0, 3);
      d.nop(1);
      // Write columns 0..15 one word each... with the programmed burst: start at column 16+bl-1
      // so the order wraps.
      unsigned start = 16 + unsigned(bl - 1);
      d.write(0, start, 100);
      for (int i = 1; i < bl; ++i) d.beat(uint16_t(100 + i));
      d.nop(1);
      for (int i = 0; i < bl; ++i) {
        unsigned mask = unsigned(bl - 1);
        unsigned col = (start & ~mask) | (il ? ((start ^ unsigned(i)) & mask) : ((start + unsigned(i)) & mask));
        CHECK(d.chip.peek(0, 3, col) == 100 + i, "BL %d %s beat %d at column %u: %u", bl,
              il ? "interleaved" : "sequential", i, col, d.chip.peek(0, 3, col));
      }
      size_t before = d.seen.size();
      int64_t read_edge = int64_t(d.chip.edges()) + 1;
      d.read(0, start);
      d.nop(bl + 4);
      CHECK(d.seen.size() == before + size_t(bl), "BL %d: %zu read beats", bl, d.seen.size() - before);
      for (int i = 0; i < bl && before + size_t(i) < d.seen.size(); ++i)
        CHECK(d.seen[before + i] == 100 + i, "BL %d read beat %d: %u", bl, i, d.seen[before + i]);
      if (d.seen.size() > before)
        CHECK(d.seen_at[before] + 1 == read_edge + 3, "CAS latency 3 timing");
      CHECK(d.chip.violations() == 0, "bursts BL %d il %d: %llu violations", bl, il,
            (unsigned long long)d.chip.violations());
    }
  // A READ interrupting a BL 4 READ: the first one's beats stop where the second one's start.
  Driver d(ulx3s());
  d.init(ulx3s(), 2, 2);
  d.act(0, 1);
  d.nop(1);
  d.write(0, 0, 1); d.beat(2); d.beat(3); d.beat(4);
  d.write(0, 4, 5); d.beat(6); d.beat(7); d.beat(8);
  size_t before = d.seen.size();
  d.read(0, 0);
  d.read(0, 4);
  d.nop(8);
  CHECK(d.seen.size() == before + 5, "interrupted read: %zu beats", d.seen.size() - before);
  if (d.seen.size() == before + 5)
    CHECK(d.seen[before] == 1 && d.seen[before + 1] == 5 && d.seen[before + 4] == 8,
          "interrupted read data %u %u .. %u", d.seen[before], d.seen[before + 1], d.seen[before + 4]);
  // Auto precharge: READ with A10 closes the row; an ACTIVE after tRP is fine.
  d.read(0, 0, true);
  d.nop(6);
  d.act(0, 2);
  d.nop(2);
  CHECK(d.chip.violations() == 0, "interrupt/auto precharge: %llu violations",
        (unsigned long long)d.chip.violations());
}

// Refresh on time for a while: no violation; then stop refreshing: refresh violations; and
// a row left open past tRAS max.
void test_refresh() {
  Driver d(ulx3s());
  d.init(ulx3s());
  for (int i = 0; i < 50; ++i) {
    d.nop(380);
    d.ref();
    d.nop(9);
  }
  CHECK(d.chip.violations() == 0, "refresh every 390 clocks: %llu violations",
        (unsigned long long)d.chip.violations());
  d.act(0, 1);
  d.nop(7000);  // 140 us without refresh, the row open
  CHECK(d.chip.violations(sdram::V_REFRESH) > 0, "refresh falling behind is reported");
  CHECK(d.chip.violations(sdram::V_TRAS_MAX) > 0, "a row open past tRAS max is reported");
}

// One rule broken per case; the named kind must be reported.
struct Case {
  const char *name;
  int kind;
  std::function<void(Driver &)> run;
};

void test_violations() {
  const auto &P = ulx3s();
  std::vector<Case> cases = {
      {"READ one clock after ACTIVE", sdram::V_TRCD,
       [](Driver &d) { d.act(0, 1); d.read(0, 0); d.nop(4); }},
      {"WRITE one clock after ACTIVE", sdram::V_TRCD,
       [](Driver &d) { d.act(0, 1); d.write(0, 0, 1); d.beat(2); }},
      {"ACTIVE one clock after PRECHARGE", sdram::V_TRP,
       [](Driver &d) { d.act(0, 1); d.nop(3); d.pre(0); d.act(0, 2); }},
      {"PRECHARGE two clocks after ACTIVE", sdram::V_TRAS,
       [](Driver &d) { d.act(0, 1); d.nop(1); d.pre(0); }},
      {"ACTIVE three clocks after ACTIVE of the same bank", sdram::V_TRC,
       [](Driver &d) { d.act(0, 1); d.nop(1); d.pre(0); d.nop(0); d.act(0, 2); }},
      {"ACTIVE one clock after AUTO REFRESH", sdram::V_TRFC,
       [](Driver &d) { d.nop(5); d.ref(); d.act(0, 1); }},
      {"ACTIVE one clock after LOAD MODE REGISTER", sdram::V_TMRD,
       [](Driver &d) { d.mrs(1, 2); d.act(0, 1); }},
      {"ACTIVE to an open bank", sdram::V_BANK_STATE,
       [](Driver &d) { d.act(0, 1); d.nop(5); d.act(0, 2); }},
      {"READ from a closed bank", sdram::V_BANK_STATE,
       [](Driver &d) { d.read(3, 0); d.nop(3); }},
      {"AUTO REFRESH with a row open", sdram::V_BANK_STATE,
       [](Driver &d) { d.act(0, 1); d.nop(5); d.ref(); }},
      {"read beats collide with a write beat", sdram::V_CONTENTION,
       [](Driver &d) { d.act(0, 1); d.nop(1); d.read(0, 0); d.nop(1); d.write(0, 4, 9); d.beat(9); }},
      {"write beat right after the chip's last read beat", sdram::V_CONTENTION,
       [](Driver &d) { d.act(0, 1); d.nop(1); d.read(0, 0); d.nop(2); d.write(0, 4, 9); d.beat(9); }},
      {"PRECHARGE cuts a read burst", sdram::V_BURST_CUT,
       [](Driver &d) { d.act(0, 1); d.nop(3); d.read(0, 0); d.pre(0); d.nop(4); }},
      {"PRECHARGE cuts a write burst", sdram::V_BURST_CUT,
       [](Driver &d) { d.act(0, 1); d.nop(3); d.write(0, 0, 1); d.pre(0); }},
      {"CKE low after initialisation", sdram::V_MODE,
       [](Driver &d) { Pins p; p.cke = false; d.edge(p); }},
      {"full-page burst programmed", sdram::V_MODE,
       [](Driver &d) { d.nop(4); d.mrs(7, 2); d.nop(2); }},
  };
  for (auto &c : cases) {
    if (!c.run) continue;
    Driver d(P);
    d.init(P);
    d.nop(10);
    uint64_t before = d.chip.violations(c.kind);
    c.run(d);
    CHECK(d.chip.violations(c.kind) > before, "%s: not reported as %s", c.name, sdram::kind_name(c.kind));
  }
  // tRRD: 15 ns does not fit in one 20 ns clock, so run this one at 100 MHz.
  {
    Chip c(P, sdram::Geometry{}, 10.0, false);
    c.set_print_limit(0);
    Pins nop = Driver::cmd(1, 1, 1);
    for (int i = 0; i < 20001; ++i) c.edge(nop);
    c.edge(Driver::cmd(0, 1, 0, 0, 0x400));
    for (int k = 0; k < 8; ++k) { for (int i = 0; i < 7; ++i) c.edge(nop); c.edge(Driver::cmd(0, 0, 1)); }
    for (int i = 0; i < 7; ++i) c.edge(nop);
    c.edge(Driver::cmd(0, 0, 0, 0, 0x31));
    for (int i = 0; i < 3; ++i) c.edge(nop);
    c.edge(Driver::cmd(0, 1, 1, 0, 1));
    c.edge(Driver::cmd(0, 1, 1, 1, 1));
    CHECK(c.violations(sdram::V_TRRD) > 0, "ACTIVE 10 ns after ACTIVE to another bank: tRRD not reported");
    // tWR (15 ns) fits in one 20 ns clock too: PRECHARGE 10 ns after the last write beat.
    for (int i = 0; i < 2; ++i) c.edge(nop);
    Pins w = Driver::cmd(1, 0, 0, 0, 0);
    w.dq_oe = true;
    c.edge(w);
    Pins b = nop;
    b.dq_oe = true;
    c.edge(b);
    c.edge(Driver::cmd(0, 1, 0, 0, 0));
    CHECK(c.violations(sdram::V_TWR) > 0, "PRECHARGE 10 ns after the last write beat: tWR not reported");
    CHECK(c.violations(sdram::V_TRCD) == 0 && c.violations(sdram::V_TRAS) == 0,
          "the tWR case breaks nothing else");
  }
  {
    Chip c(P, sdram::Geometry{}, 7.5, false);
    c.set_print_limit(0);
    Pins nop = Driver::cmd(1, 1, 1);
    for (int i = 0; i < 26700; ++i) c.edge(nop);
    c.edge(Driver::cmd(0, 1, 0, 0, 0x400));
    for (int k = 0; k < 8; ++k) { for (int i = 0; i < 9; ++i) c.edge(nop); c.edge(Driver::cmd(0, 0, 1)); }
    for (int i = 0; i < 9; ++i) c.edge(nop);
    c.edge(Driver::cmd(0, 0, 0, 0, 0x21));
    CHECK(c.violations(sdram::V_MODE) > 0, "CAS latency 2 at 7.5 ns: not reported");
  }
  // Initialisation: a command during the power-up wait; ACTIVE before the refreshes; a first
  // command that is not PRECHARGE ALL.
  {
    Driver d(P);
    d.nop(100);
    d.preall();
    CHECK(d.chip.violations(sdram::V_INIT) > 0, "PRECHARGE ALL 2 us after power-up: not reported");
  }
  {
    Driver d(P);
    d.nop(int(P.powerup_us * 50) + 1);
    d.preall();
    d.nop(2);
    d.ref();
    d.nop(4);
    d.mrs(1, 2);
    d.nop(2);
    d.act(0, 1);
    CHECK(d.chip.violations(sdram::V_INIT) > 0, "ACTIVE after 1 of 8 refreshes: not reported");
  }
  {
    Driver d(P);
    d.nop(int(P.powerup_us * 50) + 1);
    d.mrs(1, 2);
    CHECK(d.chip.violations(sdram::V_INIT) > 0, "LOAD MODE REGISTER first: not reported");
  }
  // The clock-phase variant: with the chip clocked on the inverted clock, a write beat in the
  // cycle after the chip's last read beat is already contention.
  {
    Driver d(P, true);
    d.init(P);
    d.act(0, 1);
    d.nop(1);
    d.read(0, 0);
    d.nop(1);  // inverted phase, CL 2: beats driven after the READ+1 and READ+2 edges
    d.write(0, 4, 9);
    d.beat(9);
    CHECK(d.chip.violations(sdram::V_CONTENTION) > 0, "inverted phase: contention not reported");
  }
}

}  // namespace

int main() {
  test_clean();
  test_bursts();
  test_refresh();
  test_violations();
  return tb::summary("sdram_model_test");
}
