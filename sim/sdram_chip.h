// Cycle-accurate model of a 16-bit SDR SDRAM chip (4 banks; the ULX3S's 32 MB and 64 MB parts)
// for Verilator testbenches. Each call to edge() is one rising edge of the chip's clock: it
// samples CKE, CS#, RAS#, CAS#, WE#, BA, A, DQM and DQ as the controller drives them, executes
// ACTIVE, READ, WRITE (with or without auto precharge), PRECHARGE (one bank or all), AUTO
// REFRESH, LOAD MODE REGISTER, BURST TERMINATE and NOP with the programmed burst length,
// burst type and CAS latency, DQM masking (write beats at once, read beats two edges later)
// and burst interruption, and holds the memory (rows allocated on first write).
//
// Every broken rule is a counted violation with a message (the first few of each kind are
// printed): the datasheet minimums tRCD, tRP, tRAS (and tRAS max), tRC, tRFC, tWR, tMRD, tRRD,
// compared in nanoseconds against the clock period; refresh falling behind (more than
// max_postponed refreshes owed at any time, one owed per 64 ms / 8192); commands to a bank in
// the wrong state (ACTIVE to an open bank, READ/WRITE to a closed one, REFRESH or LOAD MODE
// with a row open); the initialisation sequence (power-up wait with NOPs, PRECHARGE ALL,
// enough AUTO REFRESHes and LOAD MODE REGISTER before the first ACTIVE); the data bus driven
// by both sides (or by the controller in the cycle right after the chip's last beat); a read
// burst cut short by PRECHARGE; unsupported modes (CAS latency too short for the clock, CKE
// low after initialisation). A testbench fails when violations() is not zero.
//
// Clock phase: with negedge_phase the chip's clock is the controller's inverted (sdram_phy on
// the ULX3S): the testbench calls edge() at the controller's falling edge, and a beat the chip
// drives after edge n is seen by the controller's next rising edge. Otherwise the clocks are in
// phase: edge() runs together with the controller's rising edge and a beat driven after edge n
// is seen by the controller at edge n+1.
#pragma once
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace sdram {

// Datasheet figures of one part and speed grade (minimums unless named max).
struct Part {
  const char *name;
  double tRCD, tRP, tRAS, tRAS_max, tRC, tRFC, tWR, tRRD;  // ns
  double tMRD_ns;     // LOAD MODE REGISTER to the next command, ns ...
  int tMRD_ck;        // ... and in clocks; the larger applies
  double tCK_min_cl2; // shortest clock period with CAS latency 2 (ns)
  double tCK_min_cl3; // ... with CAS latency 3
  double tREF_ms;     // every row refreshed within this time ...
  int refresh_rows;   // ... by this many AUTO REFRESH commands
  double powerup_us;  // wait with NOP/INHIBIT before the first command
  int init_refreshes; // AUTO REFRESH commands the initialisation needs
};

// The parts known by name: "mt48lc16m16a2-75", "as4c32m16sb-7", and "ulx3s": the slowest
// figure of the two for each timing (what the controller's defaults follow).
const Part *find_part(const std::string &name);

struct Geometry {
  int bank_bits = 2;
  int row_bits = 13;
  int col_bits = 9;  // 9: 512 columns (32 MB), 10: 1024 columns (64 MB)
};

struct Pins {
  bool cke = false, cs_n = true, ras_n = true, cas_n = true, we_n = true;
  unsigned ba = 0, a = 0, dqm = 0;
  uint16_t dq = 0;     // the controller's write beat
  bool dq_oe = false;  // the controller drives DQ
};

enum Kind {
  V_TRCD, V_TRP, V_TRAS, V_TRAS_MAX, V_TRC, V_TRFC, V_TWR, V_TMRD, V_TRRD, V_REFRESH,
  V_BANK_STATE, V_INIT, V_CONTENTION, V_BURST_CUT, V_MODE, V_KINDS
};
const char *kind_name(int kind);

class Chip {
 public:
  Chip(const Part &part, const Geometry &geom, double tck_ns, bool negedge_phase,
       int max_postponed = 1);

  void edge(const Pins &p);  // one rising edge of the chip's clock

  // The data bus as the chip leaves it after the last edge.
  bool driving() const { return drive_; }
  uint16_t dq() const { return dq_out_; }

  uint64_t violations() const { return total_violations_; }
  uint64_t violations(int kind) const { return count_[kind]; }
  void report(FILE *f) const;     // per-kind counts
  void set_print_limit(int n) { print_limit_ = n; }
  void set_log(FILE *f) { log_ = f; }  // where violation messages go (default stdout)

  // Contents, for tests: a never-written location reads fill(bank, row, col).
  uint16_t peek(unsigned bank, unsigned row, unsigned col) const;
  static uint16_t fill(unsigned bank, unsigned row, unsigned col);

  // Statistics.
  uint64_t edges() const { return edge_; }
  uint64_t n_act = 0, n_read = 0, n_write = 0, n_pre = 0, n_preall = 0, n_ref = 0, n_mrs = 0;
  uint64_t n_read_beats = 0, n_write_beats = 0;
  bool initialised() const { return init_ == INIT_DONE; }
  int cas_latency() const { return cl_; }
  int burst_length() const { return bl_; }

 private:
  enum InitState { INIT_POWERUP, INIT_WAIT_PREALL, INIT_REFRESH, INIT_DONE };
  struct Bank {
    bool active = false;
    unsigned row = 0;
    int64_t t_act = -1000000, t_pre = -1000000;  // edges of the last ACTIVE / PRECHARGE
    int64_t t_last_wbeat = -1000000;              // edge of the last write beat taken
    int64_t t_col = -1000000;                     // edge of the last READ/WRITE
    bool ras_max_reported = false;
    int64_t ap_at = -1;                           // auto precharge takes effect at this edge
  };
  struct ReadBeat {       // a beat to drive after edge `at`
    int64_t at;
    unsigned bank, row, col;
  };
  struct WriteBurst {
    bool active = false;
    unsigned bank = 0, row = 0, start = 0;
    int beat = 0, len = 0;
  };

  void violate(int kind, const char *fmt, ...);
  bool too_soon(int64_t since, double min_ns) const;
  double ns_since(int64_t since) const { return double(edge_ - since) * tck_; }
  const char *cmd_name(const Pins &p) const;
  unsigned burst_col(unsigned start, int i) const;
  uint16_t *row_ptr(unsigned bank, unsigned row, bool create);
  void store(unsigned bank, unsigned row, unsigned col, uint16_t v, unsigned dqm);
  void precharge_bank(unsigned b, bool all);
  void check_refresh();
  void do_read(const Pins &p, unsigned b, unsigned col, bool ap);
  void do_write(const Pins &p, unsigned b, unsigned col, bool ap);

  Part part_;
  Geometry g_;
  double tck_;
  bool neg_;
  int max_postponed_;

  int64_t edge_ = -1;
  InitState init_ = INIT_POWERUP;
  int init_refs_ = 0;
  bool mode_set_ = false;
  int64_t t_ref0_ = -1;      // start of the refresh bookkeeping (end of initialisation)
  uint64_t refs_since_ = 0;  // AUTO REFRESHes since t_ref0_
  int64_t worst_owed_ = 0;

  std::vector<Bank> banks_;
  int64_t t_last_act_ = -1000000, t_last_ref_ = -1000000, t_last_mrs_ = -1000000;

  // Mode register.
  int cl_ = 0, bl_ = 0;
  bool interleaved_ = false, single_write_ = false;

  std::deque<ReadBeat> rq_;   // read beats still to drive
  WriteBurst wb_;
  int64_t read_end_ = -1;     // edge after which the last scheduled read beat is driven
  unsigned read_bank_ = 0;
  std::vector<unsigned> dqm_hist_;  // DQM sampled at the last edges (index edge % 4)

  bool drive_ = false;
  uint16_t dq_out_ = 0;
  std::vector<bool> drove_;   // drove after edge n (index n % 4)

  std::vector<std::unique_ptr<uint16_t[]>> rows_;

  uint64_t count_[V_KINDS] = {};
  uint64_t total_violations_ = 0;
  int print_limit_ = 5;
  FILE *log_ = stdout;
};

}  // namespace sdram
