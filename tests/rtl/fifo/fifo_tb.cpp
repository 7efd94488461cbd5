// sync_fifo tests (WIDTH 32; DEPTH from --depth, which must match the verilated parameter).
// Checked against a std::deque model: reset state, fill to full and drain to empty with order
// and data, a push refused while full, simultaneous push and pop at every occupancy, that
// in_ready/out_valid/out_data depend on registers only (input changes without a clock edge move
// nothing), and a long random run with the valid/ready rules obeyed on both sides.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <random>

#include "Vsync_fifo.h"
#include "tb_check.h"

namespace {

struct Bench {
  Vsync_fifo m;
  std::deque<uint32_t> model;
  unsigned depth;
  uint32_t next_value = 0x1000;
  uint64_t cycles = 0;

  explicit Bench(unsigned d) : depth(d) {
    m.clk_i = 0;
    m.rst_ni = 0;
    m.in_valid_i = 0;
    m.out_ready_i = 0;
    m.in_data_i = 0;
    for (int i = 0; i < 3; ++i) edge();
    m.rst_ni = 1;
    m.eval();
  }

  void edge() {
    m.clk_i = 1;
    m.eval();
    m.clk_i = 0;
    m.eval();
  }

  // One clock with the given inputs; the model follows the handshakes seen before the edge.
  // Returns {pushed, popped}; checks the registered outputs against the model first.
  std::pair<bool, bool> cycle(bool in_valid, uint32_t data, bool out_ready) {
    m.in_valid_i = in_valid;
    m.in_data_i = data;
    m.out_ready_i = out_ready;
    m.eval();
    check_outputs();
    bool push = in_valid && m.in_ready_o;
    bool pop = m.out_valid_o && out_ready;
    uint32_t popped = m.out_data_o;
    if (pop) {
      CHECK(!model.empty() && popped == model.front(), "popped 0x%08x, model front 0x%08x",
            popped, model.empty() ? 0u : model.front());
      if (!model.empty()) model.pop_front();
    }
    if (push) model.push_back(data);
    edge();
    ++cycles;
    return {push, pop};
  }

  void check_outputs() {
    CHECK(bool(m.in_ready_o) == (model.size() < depth), "in_ready %d with %zu of %u entries",
          int(m.in_ready_o), model.size(), depth);
    CHECK(bool(m.out_valid_o) == !model.empty(), "out_valid %d with %zu entries",
          int(m.out_valid_o), model.size());
    if (!model.empty())
      CHECK(m.out_data_o == model.front(), "out_data 0x%08x, expected 0x%08x", m.out_data_o,
            model.front());
  }

  void fill_to(size_t n) {
    while (model.size() < n) cycle(true, next_value++, false);
    while (model.size() > n) cycle(false, 0xDEADBEEFu, true);
  }
  void drain() {
    for (unsigned i = 0; i <= depth + 1 && !model.empty(); ++i) cycle(false, 0xDEADBEEFu, true);
    CHECK(model.empty(), "FIFO not empty after %u pops", depth + 1);
  }
};

void test_fill_empty(Bench &b) {
  b.check_outputs();  // after reset: empty, ready
  CHECK(b.m.in_ready_o && !b.m.out_valid_o, "after reset in_ready %d out_valid %d",
        int(b.m.in_ready_o), int(b.m.out_valid_o));
  for (unsigned i = 0; i < b.depth; ++i) {
    auto r = b.cycle(true, 0xA0000000u + i, false);
    CHECK(r.first, "push %u of %u refused", i, b.depth);
  }
  // Full: a push offered for several cycles must not be taken.
  for (int i = 0; i < 4; ++i) {
    auto r = b.cycle(true, 0xBAD0BAD0u, false);
    CHECK(!r.first, "push accepted while full");
  }
  CHECK(b.model.size() == b.depth, "occupancy %zu", b.model.size());
  for (unsigned i = 0; i < b.depth; ++i) {
    uint32_t expect = 0xA0000000u + i;
    b.m.in_valid_i = 0;
    b.m.out_ready_i = 1;
    b.m.eval();
    CHECK(b.m.out_valid_o && b.m.out_data_o == expect, "drain %u: valid %d data 0x%08x", i,
          int(b.m.out_valid_o), b.m.out_data_o);
    b.cycle(false, 0, true);
  }
  // Empty: popping does nothing.
  for (int i = 0; i < 3; ++i) {
    auto r = b.cycle(false, 0, true);
    CHECK(!r.second, "pop from an empty FIFO");
  }
  std::printf("fill_empty: %u entries in, full refuses, %u out in order, empty stays empty\n",
              b.depth, b.depth);
}

void test_push_pop_every_occupancy(Bench &b) {
  for (size_t k = 0; k <= b.depth; ++k) {
    b.fill_to(k);
    size_t before = b.model.size();
    uint32_t v = b.next_value++;
    auto r = b.cycle(true, v, true);
    CHECK(r.first == (k < b.depth), "occupancy %zu: push %d", k, int(r.first));
    CHECK(r.second == (k > 0), "occupancy %zu: pop %d", k, int(r.second));
    size_t expect = before + (r.first ? 1 : 0) - (r.second ? 1 : 0);
    CHECK(b.model.size() == expect, "occupancy %zu -> %zu", k, b.model.size());
    // Several cycles of push+pop in a row at this occupancy keep it steady (below full).
    if (k > 0 && k < b.depth)
      for (int i = 0; i < 5; ++i) {
        auto rr = b.cycle(true, b.next_value++, true);
        CHECK(rr.first && rr.second, "occupancy %zu: streaming push %d pop %d", k,
              int(rr.first), int(rr.second));
      }
    b.drain();
  }
  std::printf("push_pop: simultaneous push and pop at occupancy 0..%u\n", b.depth);
}

void test_registered_outputs(Bench &b) {
  for (size_t k = 0; k <= b.depth; ++k) {
    b.fill_to(k);
    b.m.in_valid_i = 0; b.m.out_ready_i = 0; b.m.in_data_i = 0;
    b.m.eval();
    uint8_t rdy = b.m.in_ready_o, vld = b.m.out_valid_o;
    uint32_t dat = b.m.out_data_o;
    const struct { uint8_t v, r; uint32_t d; } pats[] = {
        {1, 0, 0xFFFFFFFFu}, {0, 1, 0x12345678u}, {1, 1, 0u}, {0, 0, 0x5A5A5A5Au}};
    for (auto p : pats) {
      b.m.in_valid_i = p.v; b.m.out_ready_i = p.r; b.m.in_data_i = p.d;
      b.m.eval();
      CHECK(b.m.in_ready_o == rdy && b.m.out_valid_o == vld && b.m.out_data_o == dat,
            "occupancy %zu: outputs moved with inputs (valid=%u ready=%u) and no clock", k,
            p.v, p.r);
    }
    b.drain();
  }
  std::printf("registered: in_ready/out_valid/out_data steady under input changes at every "
              "occupancy\n");
}

void test_random(Bench &b, unsigned n) {
  std::mt19937 rng(0x5F1F0u + b.depth);
  bool holding = false;
  uint32_t held = 0;
  unsigned pushes = 0, pops = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (!holding && (rng() & 3) != 0) { holding = true; held = rng(); }
    bool ready = (rng() % 8) < unsigned(2 + (i / 2000) % 5);  // vary the drain rate
    auto r = b.cycle(holding, held, ready);
    if (r.first) { holding = false; ++pushes; }
    if (r.second) ++pops;
  }
  b.drain();
  std::printf("random: %u cycles, %u pushes, %u pops, data and order against the model\n", n,
              pushes, pops);
}

}  // namespace

int main(int argc, char **argv) {
  Verilated::commandArgs(argc, argv);
  unsigned depth = 2;
  for (int i = 1; i + 1 < argc; ++i)
    if (!std::strcmp(argv[i], "--depth")) depth = unsigned(std::atoi(argv[i + 1]));
  Bench b(depth);
  test_fill_empty(b);
  test_push_pop_every_occupancy(b);
  test_registered_outputs(b);
  test_random(b, 20000);
  char name[32];
  std::snprintf(name, sizeof name, "fifo_depth%u", depth);
  return tb::summary(name);
}
