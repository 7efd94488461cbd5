// SDR SDRAM chip model: see sdram_chip.h.
#include "sdram_chip.h"

#include <cmath>
#include <cstdarg>
#include <cstring>

namespace sdram {

namespace {

// Datasheet tables (electrical characteristics / AC operating conditions):
//   MT48LC16M16A2 (Micron 256Mb x4/x8/x16 SDRAM), speed grade -75: tRCD 20, tRP 20, tRAS 44
//     (max 120 us), tRC 66, tRFC 66, tRRD 15, tWR 15 (1 clock + 7.5 ns with auto precharge),
//     tMRD 2 clocks, tCK >= 10 ns at CL 2 and 7.5 ns at CL 3; 8192 refreshes per 64 ms;
//     100 us power-up wait, then PRECHARGE ALL, 2 AUTO REFRESH, LOAD MODE REGISTER.
//   AS4C32M16SB (Alliance 512Mb x16), speed grade -7: tRCD 21, tRP 21, tRAS 42 (max 120 us),
//     tRC 63, tRFC 63, tRRD 14, tMRD 14, tWR 14, tCK >= 10 ns at CL 2 and 7 ns at CL 3;
//     tREFI 7.8 us (8192 rows); 200 us power-up wait.
// "ulx3s" takes the slower figure of each, the longer power-up wait and 8 initial refreshes
// (what the controller's defaults do, covering both sheets).
const Part kParts[] = {
    {"mt48lc16m16a2-75", 20, 20, 44, 120000, 66, 66, 15, 15, 0, 2, 10, 7.5, 64, 8192, 100, 2},
    {"as4c32m16sb-7", 21, 21, 42, 120000, 63, 63, 14, 14, 14, 1, 10, 7, 64, 8192, 200, 2},
    {"ulx3s", 21, 21, 44, 120000, 66, 66, 15, 15, 14, 2, 10, 7.5, 64, 8192, 200, 8},
};

const char *const kKindNames[V_KINDS] = {
    "tRCD", "tRP", "tRAS", "tRAS_max", "tRC", "tRFC", "tWR", "tMRD", "tRRD", "refresh",
    "bank_state", "init", "contention", "burst_cut", "mode"};

}  // namespace

const Part *find_part(const std::string &name) {
  for (const Part &p : kParts)
    if (name == p.name) return &p;
  return nullptr;
}

const char *kind_name(int kind) { return kind >= 0 && kind < V_KINDS ? kKindNames[kind] : "?"; }

Chip::Chip(const Part &part, const Geometry &geom, double tck_ns, bool negedge_phase,
           int max_postponed)
    : part_(part), g_(geom), tck_(tck_ns), neg_(negedge_phase), max_postponed_(max_postponed),
      banks_(1u << geom.bank_bits), dqm_hist_(4, 0), drove_(4, false),
      rows_(size_t(1) << (geom.bank_bits + geom.row_bits)) {}

void Chip::violate(int kind, const char *fmt, ...) {
  ++count_[kind];
  ++total_violations_;
  if (count_[kind] > uint64_t(print_limit_)) return;
  std::fprintf(log_, "sdram: edge %lld (%.1f ns): %s violation: ", (long long)edge_,
               double(edge_) * tck_, kind_name(kind));
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(log_, fmt, ap);
  va_end(ap);
  std::fprintf(log_, "\n");
}

// True when less than min_ns have passed since edge `since` (a small tolerance for the
// floating-point product).
bool Chip::too_soon(int64_t since, double min_ns) const {
  return double(edge_ - since) * tck_ < min_ns - 1e-6;
}

uint16_t Chip::fill(unsigned bank, unsigned row, unsigned col) {
  uint32_t x = (bank * 0x9E3779B1u) ^ (row * 0x85EBCA77u) ^ (col * 0xC2B2AE3Du);
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  return uint16_t(x);
}

uint16_t *Chip::row_ptr(unsigned bank, unsigned row, bool create) {
  auto &r = rows_[(size_t(bank) << g_.row_bits) | row];
  if (!r && create) {
    unsigned cols = 1u << g_.col_bits;
    r.reset(new uint16_t[cols]);
    for (unsigned c = 0; c < cols; ++c) r[c] = fill(bank, row, c);
  }
  return r.get();
}

uint16_t Chip::peek(unsigned bank, unsigned row, unsigned col) const {
  const auto &r = rows_[(size_t(bank) << g_.row_bits) | row];
  return r ? r[col] : fill(bank, row, col);
}

void Chip::store(unsigned bank, unsigned row, unsigned col, uint16_t v, unsigned dqm) {
  uint16_t *r = row_ptr(bank, row, true);
  uint16_t keep = uint16_t((dqm & 1 ? 0x00FF : 0) | (dqm & 2 ? 0xFF00 : 0));
  r[col] = uint16_t((r[col] & keep) | (v & ~keep));
  ++n_write_beats;
}

unsigned Chip::burst_col(unsigned start, int i) const {
  unsigned mask = unsigned(bl_ - 1);
  unsigned base = start & ~mask;
  unsigned off = interleaved_ ? ((start ^ unsigned(i)) & mask) : ((start + unsigned(i)) & mask);
  return base | off;
}

const char *Chip::cmd_name(const Pins &p) const {
  if (p.cs_n) return "INHIBIT";
  switch ((p.ras_n << 2) | (p.cas_n << 1) | p.we_n) {
    case 7: return "NOP";
    case 3: return "ACTIVE";
    case 5: return "READ";
    case 4: return "WRITE";
    case 2: return (p.a & 0x400) ? "PRECHARGE ALL" : "PRECHARGE";
    case 1: return "AUTO REFRESH";
    case 0: return "LOAD MODE REGISTER";
    default: return "BURST TERMINATE";
  }
}

void Chip::precharge_bank(unsigned b, bool all) {
  Bank &k = banks_[b];
  if (!k.active) return;  // a PRECHARGE to an idle bank is a NOP
  if (too_soon(k.t_act, part_.tRAS))
    violate(V_TRAS, "PRECHARGE%s bank %u %.1f ns after ACTIVE, tRAS %.1f ns", all ? " ALL" : "", b,
            ns_since(k.t_act), part_.tRAS);
  if (k.t_last_wbeat > k.t_act && too_soon(k.t_last_wbeat, part_.tWR))
    violate(V_TWR, "PRECHARGE%s bank %u %.1f ns after the last write beat, tWR %.1f ns",
            all ? " ALL" : "", b, ns_since(k.t_last_wbeat), part_.tWR);
  // A read burst of this bank loses the beats after edge + CL - 1.
  if (!rq_.empty() && read_bank_ == b) {
    int64_t limit = edge_ + cl_ - 1;
    size_t before = rq_.size();
    while (!rq_.empty() && rq_.back().at >= limit) rq_.pop_back();
    if (rq_.size() != before)
      violate(V_BURST_CUT, "PRECHARGE bank %u cuts %zu beat(s) of its read burst", b,
              before - rq_.size());
  }
  if (wb_.active && wb_.bank == b) {
    violate(V_BURST_CUT, "PRECHARGE bank %u cuts its write burst after %d of %d beats", b,
            wb_.beat, wb_.len);
    wb_.active = false;
  }
  k.active = false;
  k.t_pre = edge_;
  k.ap_at = -1;
}

void Chip::do_read(const Pins &p, unsigned b, unsigned col, bool ap) {
  Bank &k = banks_[b];
  ++n_read;
  if (too_soon(k.t_act, part_.tRCD))
    violate(V_TRCD, "READ bank %u %.1f ns after ACTIVE, tRCD %.1f ns", b, ns_since(k.t_act),
            part_.tRCD);
  (void)p;
  // A new READ replaces the beats of an earlier one from its own first beat on.
  int64_t first = edge_ + cl_ - 1;
  while (!rq_.empty() && rq_.back().at >= first) rq_.pop_back();
  for (int i = 0; i < bl_; ++i) rq_.push_back({first + i, b, k.row, burst_col(col, i)});
  read_bank_ = b;
  k.t_col = edge_;
  if (ap) k.ap_at = edge_ + bl_;
}

void Chip::do_write(const Pins &p, unsigned b, unsigned col, bool ap) {
  Bank &k = banks_[b];
  ++n_write;
  if (too_soon(k.t_act, part_.tRCD))
    violate(V_TRCD, "WRITE bank %u %.1f ns after ACTIVE, tRCD %.1f ns", b, ns_since(k.t_act),
            part_.tRCD);
  // Read beats not yet driven are dropped (the controller must have masked them with DQM;
  // the bus check catches a collision).
  while (!rq_.empty() && rq_.back().at >= edge_) rq_.pop_back();
  wb_.active = true;
  wb_.bank = b;
  wb_.row = k.row;
  wb_.start = col;
  wb_.len = single_write_ ? 1 : bl_;
  wb_.beat = 0;
  // Beat 0 comes with the command.
  store(b, k.row, burst_col(col, 0), p.dq, p.dqm);
  k.t_last_wbeat = edge_;
  wb_.beat = 1;
  if (wb_.beat >= wb_.len) wb_.active = false;
  k.t_col = edge_;
  if (ap) {
    int wr_clocks = int(std::ceil(part_.tWR / tck_ - 1e-9));
    k.ap_at = edge_ + (wb_.len - 1) + wr_clocks + 1;
  }
}

void Chip::check_refresh() {
  if (init_ != INIT_DONE) return;
  double t_refi = part_.tREF_ms * 1e6 / part_.refresh_rows;
  int64_t due = int64_t(std::floor(double(edge_ - t_ref0_) * tck_ / t_refi));
  int64_t owed = due - int64_t(refs_since_);
  if (owed > max_postponed_ && owed > worst_owed_) {
    worst_owed_ = owed;
    violate(V_REFRESH, "%lld refreshes owed (%llu done in %.1f us; one is due every %.1f ns)",
            (long long)owed, (unsigned long long)refs_since_,
            double(edge_ - t_ref0_) * tck_ / 1000.0, t_refi);
  }
  for (unsigned b = 0; b < banks_.size(); ++b) {
    Bank &k = banks_[b];
    if (k.active && !k.ras_max_reported && ns_since(k.t_act) > part_.tRAS_max) {
      k.ras_max_reported = true;
      violate(V_TRAS_MAX, "bank %u row open for more than tRAS max %.0f ns", b, part_.tRAS_max);
    }
  }
}

void Chip::edge(const Pins &p) {
  ++edge_;
  dqm_hist_[edge_ & 3] = p.dqm;

  // The controller drove DQ in the cycle this edge closes: the chip must not have driven it,
  // nor the cycle before (turnaround) with the clocks in phase.
  if (p.dq_oe && !neg_ && (drove_[(edge_ - 1) & 3] || drove_[(edge_ - 2) & 3]))
    violate(V_CONTENTION, "controller drives DQ while (or right after) the chip drives it");

  // Auto precharges due now.
  for (unsigned b = 0; b < banks_.size(); ++b)
    if (banks_[b].ap_at == edge_) {
      banks_[b].active = false;
      banks_[b].t_pre = edge_;
      banks_[b].ap_at = -1;
    }

  bool cmd_valid = p.cke && !p.cs_n;
  unsigned op = (unsigned(p.ras_n) << 2) | (unsigned(p.cas_n) << 1) | unsigned(p.we_n);
  bool is_nop = !cmd_valid || op == 7;

  if (!p.cke && init_ == INIT_DONE)
    violate(V_MODE, "CKE low (power-down / self refresh / clock suspend are not modelled)");

  // Initialisation rules.
  if (!is_nop) {
    if (init_ == INIT_POWERUP) {
      if (double(edge_) * tck_ < part_.powerup_us * 1000.0)
        violate(V_INIT, "%s %.1f us after power-up, before the %.0f us wait ended", cmd_name(p),
                double(edge_) * tck_ / 1000.0, part_.powerup_us);
      if (op == 2 && (p.a & 0x400)) init_ = INIT_REFRESH;
      else violate(V_INIT, "first command %s, not PRECHARGE ALL", cmd_name(p));
    } else if (init_ != INIT_DONE && (op == 3 || op == 5 || op == 4)) {
      violate(V_INIT, "%s before initialisation (%d of %d AUTO REFRESH, mode %s)", cmd_name(p),
              init_refs_, part_.init_refreshes, mode_set_ ? "set" : "not set");
    }
  }

  // A running write burst takes this edge's beat unless this command ends the burst.
  bool ends_write = cmd_valid && (op == 5 || op == 4 || op == 6);
  if (wb_.active && !ends_write) {
    bool pre_hits = cmd_valid && op == 2 && ((p.a & 0x400) || p.ba == wb_.bank);
    if (!pre_hits) {
      Bank &k = banks_[wb_.bank];
      store(wb_.bank, wb_.row, burst_col(wb_.start, wb_.beat), p.dq, p.dqm);
      k.t_last_wbeat = edge_;
      if (++wb_.beat >= wb_.len) wb_.active = false;
    }
  } else if (wb_.active) {
    wb_.active = false;
  }

  if (cmd_valid && !is_nop) {
    unsigned b = p.ba & (unsigned(banks_.size()) - 1);
    Bank &k = banks_[b];
    unsigned col = p.a & ((1u << g_.col_bits) - 1);
    bool ap = (p.a & 0x400) != 0;
    switch (op) {
      case 3: {  // ACTIVE
        ++n_act;
        if (k.active)
          violate(V_BANK_STATE, "ACTIVE bank %u while row %u is open", b, k.row);
        if (too_soon(k.t_act, part_.tRC))
          violate(V_TRC, "ACTIVE bank %u %.1f ns after its last ACTIVE, tRC %.1f ns", b,
                  ns_since(k.t_act), part_.tRC);
        if (too_soon(k.t_pre, part_.tRP))
          violate(V_TRP, "ACTIVE bank %u %.1f ns after PRECHARGE, tRP %.1f ns", b,
                  ns_since(k.t_pre), part_.tRP);
        if (too_soon(t_last_ref_, part_.tRFC))
          violate(V_TRFC, "ACTIVE %.1f ns after AUTO REFRESH, tRFC %.1f ns", ns_since(t_last_ref_),
                  part_.tRFC);
        if (too_soon(t_last_act_, part_.tRRD))
          violate(V_TRRD, "ACTIVE bank %u %.1f ns after an ACTIVE to another bank, tRRD %.1f ns",
                  b, ns_since(t_last_act_), part_.tRRD);
        if (too_soon(t_last_mrs_, part_.tMRD_ns) || edge_ - t_last_mrs_ < part_.tMRD_ck)
          violate(V_TMRD, "ACTIVE %lld clocks after LOAD MODE REGISTER", (long long)(edge_ - t_last_mrs_));
        k.active = true;
        k.row = p.a & ((1u << g_.row_bits) - 1);
        k.t_act = edge_;
        k.ras_max_reported = false;
        t_last_act_ = edge_;
        break;
      }
      case 5:    // READ
      case 4: {  // WRITE
        bool rd = op == 5;
        if (!k.active) {
          violate(V_BANK_STATE, "%s bank %u with no open row", rd ? "READ" : "WRITE", b);
          if (rd) ++n_read; else ++n_write;
          break;
        }
        if (!mode_set_) {
          violate(V_INIT, "%s before LOAD MODE REGISTER", rd ? "READ" : "WRITE");
          break;
        }
        if (too_soon(t_last_mrs_, part_.tMRD_ns) || edge_ - t_last_mrs_ < part_.tMRD_ck)
          violate(V_TMRD, "%s %lld clocks after LOAD MODE REGISTER", rd ? "READ" : "WRITE",
                  (long long)(edge_ - t_last_mrs_));
        if (rd) do_read(p, b, col, ap);
        else do_write(p, b, col, ap);
        break;
      }
      case 2: {  // PRECHARGE (A10: all banks)
        if (ap) {
          ++n_preall;
          for (unsigned i = 0; i < banks_.size(); ++i) precharge_bank(i, true);
        } else {
          ++n_pre;
          precharge_bank(b, false);
        }
        break;
      }
      case 1: {  // AUTO REFRESH
        ++n_ref;
        for (unsigned i = 0; i < banks_.size(); ++i) {
          Bank &q = banks_[i];
          if (q.active) violate(V_BANK_STATE, "AUTO REFRESH with bank %u row %u open", i, q.row);
          if (too_soon(q.t_pre, part_.tRP))
            violate(V_TRP, "AUTO REFRESH %.1f ns after PRECHARGE of bank %u, tRP %.1f ns",
                    ns_since(q.t_pre), i, part_.tRP);
          if (too_soon(q.t_act, part_.tRC))
            violate(V_TRC, "AUTO REFRESH %.1f ns after ACTIVE of bank %u, tRC %.1f ns",
                    ns_since(q.t_act), i, part_.tRC);
        }
        if (too_soon(t_last_ref_, part_.tRFC))
          violate(V_TRFC, "AUTO REFRESH %.1f ns after the last one, tRFC %.1f ns",
                  ns_since(t_last_ref_), part_.tRFC);
        if (too_soon(t_last_mrs_, part_.tMRD_ns) || edge_ - t_last_mrs_ < part_.tMRD_ck)
          violate(V_TMRD, "AUTO REFRESH %lld clocks after LOAD MODE REGISTER",
                  (long long)(edge_ - t_last_mrs_));
        t_last_ref_ = edge_;
        if (init_ == INIT_DONE) ++refs_since_;
        else ++init_refs_;
        break;
      }
      case 0: {  // LOAD MODE REGISTER
        ++n_mrs;
        for (unsigned i = 0; i < banks_.size(); ++i) {
          Bank &q = banks_[i];
          if (q.active) violate(V_BANK_STATE, "LOAD MODE REGISTER with bank %u open", i);
          if (too_soon(q.t_pre, part_.tRP))
            violate(V_TRP, "LOAD MODE REGISTER %.1f ns after PRECHARGE, tRP %.1f ns",
                    ns_since(q.t_pre), part_.tRP);
        }
        if (too_soon(t_last_ref_, part_.tRFC))
          violate(V_TRFC, "LOAD MODE REGISTER %.1f ns after AUTO REFRESH, tRFC %.1f ns",
                  ns_since(t_last_ref_), part_.tRFC);
        if (too_soon(t_last_mrs_, part_.tMRD_ns) || edge_ - t_last_mrs_ < part_.tMRD_ck)
          violate(V_TMRD, "LOAD MODE REGISTER %lld clocks after the last one",
                  (long long)(edge_ - t_last_mrs_));
        unsigned bl_code = p.a & 7, cl = (p.a >> 4) & 7, opm = (p.a >> 7) & 3;
        static const int kBl[8] = {1, 2, 4, 8, 0, 0, 0, 0};
        if (kBl[bl_code] == 0)
          violate(V_MODE, "burst length code %u (full page and reserved codes are not modelled)",
                  bl_code);
        if (cl != 2 && cl != 3) violate(V_MODE, "CAS latency %u", cl);
        if (opm != 0) violate(V_MODE, "operating mode %u (not standard)", opm);
        double tck_min = cl == 2 ? part_.tCK_min_cl2 : part_.tCK_min_cl3;
        if ((cl == 2 || cl == 3) && tck_ < tck_min - 1e-9)
          violate(V_MODE, "CAS latency %u needs a clock period of %.1f ns, the clock has %.2f ns",
                  cl, tck_min, tck_);
        bl_ = kBl[bl_code] ? kBl[bl_code] : 1;
        cl_ = (cl == 2 || cl == 3) ? int(cl) : 3;
        interleaved_ = (p.a >> 3) & 1;
        single_write_ = (p.a >> 9) & 1;
        mode_set_ = true;
        t_last_mrs_ = edge_;
        break;
      }
      case 6: {  // BURST TERMINATE: reads stop after CL - 1 more beats, writes at once
        int64_t limit = edge_ + cl_ - 1;
        while (!rq_.empty() && rq_.back().at >= limit) rq_.pop_back();
        break;
      }
      default:
        break;
    }
  }

  if (init_ == INIT_REFRESH && init_refs_ >= part_.init_refreshes && mode_set_) {
    init_ = INIT_DONE;
    t_ref0_ = edge_;
  }

  // The data bus after this edge: the next read beat, masked by the DQM sampled at the edge
  // before (read DQM latency two: it masks the beat the controller samples two edges later).
  drive_ = false;
  while (!rq_.empty() && rq_.front().at < edge_) rq_.pop_front();
  if (!rq_.empty() && rq_.front().at == edge_) {
    ReadBeat r = rq_.front();
    rq_.pop_front();
    unsigned m = dqm_hist_[(edge_ - 1) & 3];
    uint16_t *row = row_ptr(r.bank, r.row, false);
    uint16_t v = row ? row[r.col] : fill(r.bank, r.row, r.col);
    if (m != 3) {
      drive_ = true;
      dq_out_ = uint16_t((m & 1 ? 0x005A : (v & 0x00FF)) | (m & 2 ? 0x5A00 : (v & 0xFF00)));
      ++n_read_beats;
    }
  }
  // With the chip's clock inverted, the controller's beat for the cycle around this edge
  // overlaps the chip's output after the last edge and after this one.
  if (p.dq_oe && neg_ && (drove_[(edge_ - 1) & 3] || drive_))
    violate(V_CONTENTION, "controller drives DQ while the chip drives it");
  if (p.dq_oe && !neg_ && drive_)
    violate(V_CONTENTION, "chip starts driving DQ right after the controller's beat");
  drove_[edge_ & 3] = drive_;

  check_refresh();
}

void Chip::report(FILE *f) const {
  std::fprintf(f, "sdram model (%s, %.2f ns clock, %s phase): %llu violations", part_.name, tck_,
               neg_ ? "inverted" : "in", (unsigned long long)total_violations_);
  for (int k = 0; k < V_KINDS; ++k)
    if (count_[k]) std::fprintf(f, " %s=%llu", kind_name(k), (unsigned long long)count_[k]);
  std::fprintf(f, "\n  commands: ACT %llu READ %llu WRITE %llu PRE %llu PREALL %llu REF %llu MRS %llu\n",
               (unsigned long long)n_act, (unsigned long long)n_read, (unsigned long long)n_write,
               (unsigned long long)n_pre, (unsigned long long)n_preall, (unsigned long long)n_ref,
               (unsigned long long)n_mrs);
}

}  // namespace sdram
