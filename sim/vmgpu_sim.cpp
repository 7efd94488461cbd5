// vmgpu_sim: the C API of sim/vmgpu_sim.h over the Verilator builds of the device — vmgpu_top
// with one-cycle block RAM, fast (no tracing) and traced, and the SDRAM configuration
// (vmgpu_sdram_top.v: the board's memory controller with the C++ chip model on its pins), picked
// at creation. The clock loop is a template instantiated for each, so the fast build carries no
// tracing or chip test per cycle; the only indirection per call is one virtual dispatch.

#include "vmgpu_sim.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "Vvmgpu_top_fast.h"
#include "Vvmgpu_top_fast___024root.h"
#if !VMGPU_SIM_NO_WAVES
#include "Vvmgpu_top_waves.h"
#endif
#if VMGPU_SIM_HAS_SDRAM
#include "Vvmgpu_sdram_top.h"
#else
#define VMGPU_SIM_SDRAM_BYTES 0u
#endif
#include "sdram_chip.h"
#include "verilated.h"
#include "verilated_fst_c.h"

namespace {

// Reset is held this long so every block sees several reset edges whatever its pipeline depth.
constexpr unsigned kResetCycles = 8;
// Waveform time per cycle at the nominal 50 MHz clock, in the model's 1 ns precision.
constexpr uint64_t kWaveNsPerCycle = 20;

// Skipping the falling-edge eval: every flop of vmgpu_top is on the rising edge, so the eval at
// clk_i = 0 only re-settles logic fed by inputs, which is wasted work when no input changed.
// Verilator finds a rising edge by comparing clk_i with the value it saw last, so a skipped
// eval must record clk_i = 0 there itself. That field is Verilator-internal: where a version
// does not have it under this name, the model falls back to evaluating every edge.
template <class Root, class = void>
struct HasClkPrev : std::false_type {};
template <class Root>
struct HasClkPrev<Root, std::void_t<decltype(std::declval<Root &>().__Vtrigrprev__TOP__clk_i)>>
    : std::true_type {};
// The gated clocks of the model (vmgpu_top's g_simt.unit_clk, cu_clk and g_gfx.gfx_clk: clk_i
// while their block works, low otherwise) fall with clk_i too; a skipped eval records that the
// same way.
#define VMGPU_SIM_GATED_CLK(NAME, FIELD)                                                      \
  template <class Root, class = void>                                                        \
  struct Has##NAME : std::false_type {};                                                     \
  template <class Root>                                                                      \
  struct Has##NAME<Root, std::void_t<decltype(std::declval<Root &>().FIELD)>> : std::true_type {};
VMGPU_SIM_GATED_CLK(SimtClkPrev, __Vtrigrprev__TOP__vmgpu_top__DOT__g_simt__DOT__unit_clk)
VMGPU_SIM_GATED_CLK(CuClkPrev, __Vtrigrprev__TOP__vmgpu_top__DOT__cu_clk)
VMGPU_SIM_GATED_CLK(GfxClkPrev, __Vtrigrprev__TOP__vmgpu_top__DOT__g_gfx__DOT__gfx_clk)
#undef VMGPU_SIM_GATED_CLK
template <class Root>
inline void gated_clks_fell(Root &r) {
  if constexpr (HasSimtClkPrev<Root>::value) r.__Vtrigrprev__TOP__vmgpu_top__DOT__g_simt__DOT__unit_clk = 0;
  if constexpr (HasCuClkPrev<Root>::value) r.__Vtrigrprev__TOP__vmgpu_top__DOT__cu_clk = 0;
  if constexpr (HasGfxClkPrev<Root>::value) r.__Vtrigrprev__TOP__vmgpu_top__DOT__g_gfx__DOT__gfx_clk = 0;
}

class SimBase {
 public:
  virtual ~SimBase() = default;
  virtual int csr(bool we, uint32_t off, uint32_t wdata, uint32_t *rdata) = 0;
  virtual void run_cycles(uint64_t n) = 0;
  virtual int run_until_idle(uint64_t max, uint64_t *ran) = 0;
  virtual bool idle() const = 0;
  virtual bool irq() const = 0;
  virtual bool fault() const = 0;
  virtual bool waves() const = 0;

  uint64_t cycles = 0;
  vmgpu_sim_host_fn host_fn = nullptr;
  void *host_user = nullptr;
  unsigned stall_one_in_n = 0;
  uint32_t lfsr = 0xACE1u;
  vmgpu_sim_host_stats stats{};
};

// The SDRAM configuration's chip: the part the board's controller defaults follow ("ulx3s": the
// slower figure of the 32 MB parts' data sheets; the AS4C32M16SB for 64 MB), clocked as
// sdram_phy clocks it on the board (the design clock inverted).
constexpr double kSdramClkHz = 50e6;

template <class Model, bool kTraced, bool kSdram = false>
class Sim final : public SimBase {
 public:
  explicit Sim(const char *waves_path) {
    if constexpr (kSdram) {
      sdram::Geometry geom;
      geom.col_bits = kSdramBytes >= 67108864u ? 10 : 9;
      chip_.reset(new sdram::Chip(*sdram::find_part(kSdramBytes >= 67108864u ? "as4c32m16sb-7" : "ulx3s"),
                                  geom, 1e9 / kSdramClkHz, /*negedge_phase=*/true));
      chip_->set_log(stderr);
    }
    ctx_.reset(new VerilatedContext);
    if constexpr (kTraced) ctx_->traceEverOn(true);
    model_.reset(new Model(ctx_.get(), "vmgpu"));
    if constexpr (kTraced) {
      trace_.reset(new VerilatedFstC);
      model_->trace(trace_.get(), 99);
      trace_->open(waves_path);
    }
    Model &m = *model_;
    m.clk_i = 0;
    m.rst_ni = 0;
    m.csr_req_i = 0;
    m.csr_we_i = 0;
    m.csr_addr_i = 0;
    m.csr_wdata_i = 0;
    m.host_req_ready_i = 1;
    m.host_rsp_valid_i = 0;
    m.host_rsp_data_i = 0;
    m.eval();
    dump(0);
    run_cycles(kResetCycles);
    m.rst_ni = 1;
    m.eval();
    if constexpr (kSdram) {
      // The SDRAM's power-up wait and initialisation (~10 000 cycles at 50 MHz), as the board
      // does before its first answer: the driver's first access then finds memory ready.
      for (unsigned n = 0; n < 1000000 && !m.init_done_o; ++n) cycle();
    }
  }

  ~Sim() override {
    model_->final();
    if (trace_) trace_->close();
  }

  bool trace_open() const { return !kTraced || (trace_ && trace_->isOpen()); }

  int csr(bool we, uint32_t off, uint32_t wdata, uint32_t *rdata) override {
    Model &m = *model_;
    m.csr_req_i = 1;
    m.csr_we_i = we;
    m.csr_addr_i = off & 0xFFFu;
    m.csr_wdata_i = wdata;
    dirty_ = true;
    for (unsigned n = 0; n < VMGPU_SIM_CSR_TIMEOUT_CYCLES; ++n) {
      cycle();
      if (m.csr_ack_o) {
        if (rdata) *rdata = m.csr_rdata_o;
        // The contract wants csr_req_i low for at least one edge between accesses.
        m.csr_req_i = 0;
        dirty_ = true;
        cycle();
        return 0;
      }
    }
    m.csr_req_i = 0;
    dirty_ = true;
    cycle();
    return -1;
  }

  void run_cycles(uint64_t n) override {
    for (uint64_t i = 0; i < n; ++i) cycle();
  }

  int run_until_idle(uint64_t max, uint64_t *ran) override {
    uint64_t n = 0;
    while (!model_->idle_o) {
      if (n >= max) {
        if (ran) *ran = n;
        return -1;
      }
      cycle();
      ++n;
    }
    if (ran) *ran = n;
    return 0;
  }

  bool idle() const override { return model_->idle_o; }
  bool irq() const override { return model_->irq_o; }
  bool fault() const override { return model_->fault_o; }
  bool waves() const override { return kTraced; }

  // The chip model's figures (the SDRAM configuration), for vmgpu_sim_sdram_stats.
  const sdram::Chip *chip() const { return chip_.get(); }

 private:
  void dump(uint64_t t) {
    if constexpr (kTraced) trace_->dump(t);
  }

  // Galois LFSR: cheap, repeatable back-pressure pattern.
  bool host_ready() {
    if (!stall_one_in_n) return true;
    lfsr = (lfsr >> 1) ^ (-(lfsr & 1u) & 0xB400u);
    return (lfsr % stall_one_in_n) != 0;
  }

  // One clock cycle. On entry the model is settled with clk_i low and this cycle's inputs set
  // (dirty_ says an input changed since the last eval), so the outputs seen here are what the
  // rising edge will sample.
  inline void cycle() {
    Model &m = *model_;
    if (dirty_) {
      m.eval();
      dirty_ = false;
    }
    bool ready = host_ready();
    m.host_req_ready_i = ready;
    const bool req = m.host_req_valid_o;
    const bool take = req && ready;
    if (req && !ready) ++stats.stall_cycles;
    const bool we = m.host_req_we_o;
    const uint32_t addr = m.host_req_addr_o;
    uint32_t data = m.host_req_wdata_o;
    const unsigned be = m.host_req_be_o;

    m.clk_i = 1;
    m.eval();
    dump(cycles * kWaveNsPerCycle + kWaveNsPerCycle / 2);
    ++cycles;
    if constexpr (kSdram) chip_edge(m);

    // The request was accepted on this edge: serve it now; read data returns next cycle.
    bool changed = m.host_rsp_valid_i;
    m.host_rsp_valid_i = 0;
    if (take) {
      int rc = -1;
      if (host_fn) rc = host_fn(host_user, addr, we, &data, be);
      if (rc) {
        ++stats.failed;
        data = VMGPU_SIM_HOST_BAD_DATA;
      }
      if (we) {
        ++stats.writes;
      } else {
        ++stats.reads;
        m.host_rsp_valid_i = 1;
        m.host_rsp_data_i = data;
        changed = true;
      }
    }

    m.clk_i = 0;
    if constexpr (kSdram) changed = true;  // the chip's beat is an input of the next edge
    if constexpr (!kTraced && HasClkPrev<std::remove_pointer_t<decltype(m.rootp)>>::value) {
      if (changed) {
        m.eval();
      } else {
        m.rootp->__Vtrigrprev__TOP__clk_i = 0;
        gated_clks_fell(*m.rootp);
      }
    } else {
      m.eval();
      dump(cycles * kWaveNsPerCycle);
    }
  }

  // The chip's clock edge, half a cycle after the controller's (sdram_phy inverts the clock):
  // the pins as the controller's flip-flops set them on this rising edge; what the chip drives
  // then is on the bus for the controller's next edge. A broken timing rule stops the process:
  // the memory would hold garbage from here on, and a test must not pass on it.
  void chip_edge(Model &m) {
    sdram::Pins p;
    p.cke = m.sdram_cke_o;
    p.cs_n = m.sdram_cs_no;
    p.ras_n = m.sdram_ras_no;
    p.cas_n = m.sdram_cas_no;
    p.we_n = m.sdram_we_no;
    p.ba = m.sdram_ba_o;
    p.a = m.sdram_a_o;
    p.dqm = m.sdram_dqm_o;
    p.dq = m.sdram_dq_o;
    p.dq_oe = m.sdram_dq_oe_o;
    chip_->edge(p);
    if (chip_->violations()) {
      std::fprintf(stderr,
                   "vmgpu sim (VMGPU_SIM_MEMORY=sdram): SDRAM VIOLATION at cycle %llu: the memory "
                   "controller broke the chip's rules (messages above); stopping.\n",
                   (unsigned long long)cycles);
      chip_->report(stderr);
      std::fflush(stderr);
      std::_Exit(3);
    }
    m.chip_dq_oe_i = chip_->driving();
    m.chip_dq_i = chip_->dq();
  }

  static constexpr unsigned kSdramBytes = VMGPU_SIM_SDRAM_BYTES;

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<VerilatedFstC> trace_;
  std::unique_ptr<sdram::Chip> chip_;
  bool dirty_ = false;
};

void set_err(char *err, unsigned errlen, const std::string &msg) {
  if (err && errlen) std::snprintf(err, errlen, "%s", msg.c_str());
}

}  // namespace

struct vmgpu_sim {
  std::unique_ptr<SimBase> impl;
};

extern "C" {

vmgpu_sim *vmgpu_sim_create(const char *waves_path, char *err, unsigned errlen) {
  if (!waves_path) waves_path = std::getenv("VMGPU_WAVES");
  // VMGPU_SIM_MEMORY: "bram" (default: one-cycle block RAM) or "sdram" (the board's controller
  // and a cycle-accurate chip model; no waveform build of it).
  bool sdram = false;
  if (const char *mem = std::getenv("VMGPU_SIM_MEMORY"); mem && *mem) {
    if (!std::strcmp(mem, "sdram")) {
      sdram = true;
    } else if (std::strcmp(mem, "bram")) {
      set_err(err, errlen, std::string("VMGPU_SIM_MEMORY='") + mem +
                               "': accepted values are 'bram' (one-cycle block RAM, the default) and "
                               "'sdram' (the board's SDRAM controller with a chip model)");
      return nullptr;
    }
  }
  if (sdram && waves_path && *waves_path) {
    set_err(err, errlen, "VMGPU_SIM_MEMORY=sdram has no waveform build: unset VMGPU_WAVES, or "
                         "record the board's waveform with tests/board");
    return nullptr;
  }
  std::unique_ptr<vmgpu_sim> sim(new vmgpu_sim);
  if (waves_path && *waves_path) {
#if VMGPU_SIM_NO_WAVES
    // The profile-guided build's training program (sim/pgo_train.py) has the fast model only.
    set_err(err, errlen, "this build of the model has no waveform support");
    return nullptr;
#else
    // Fail early with a readable reason: VerilatedFstC only reports an unwritable file on stderr.
    std::FILE *probe = std::fopen(waves_path, "wb");
    if (!probe) {
      set_err(err, errlen, std::string("cannot write waveform file ") + waves_path + ": " +
                               std::strerror(errno));
      return nullptr;
    }
    std::fclose(probe);
    auto *traced = new Sim<Vvmgpu_top_waves, true>(waves_path);
    sim->impl.reset(traced);
    if (!traced->trace_open()) {
      set_err(err, errlen, std::string("cannot open waveform file ") + waves_path);
      return nullptr;
    }
#endif
  } else if (sdram) {
#if VMGPU_SIM_HAS_SDRAM
    sim->impl.reset(new Sim<Vvmgpu_sdram_top, false, true>(nullptr));
#else
    set_err(err, errlen, "VMGPU_SIM_MEMORY=sdram: this build has no SDRAM configuration "
                         "(configured with -DVMGPU_SIM_SDRAM=OFF)");
    return nullptr;
#endif
  } else {
    sim->impl.reset(new Sim<Vvmgpu_top_fast, false>(nullptr));
  }
  return sim.release();
}

void vmgpu_sim_destroy(vmgpu_sim *sim) { delete sim; }

int vmgpu_sim_waves_enabled(const vmgpu_sim *sim) { return sim->impl->waves(); }

int vmgpu_sim_reg_read(vmgpu_sim *sim, uint32_t off, uint32_t *val) {
  uint32_t v = 0;
  int rc = sim->impl->csr(false, off, 0, &v);
  if (val) *val = v;
  return rc;
}

int vmgpu_sim_reg_write(vmgpu_sim *sim, uint32_t off, uint32_t val) {
  return sim->impl->csr(true, off, val, nullptr);
}

void vmgpu_sim_run_cycles(vmgpu_sim *sim, uint64_t n) { sim->impl->run_cycles(n); }

int vmgpu_sim_run_until_idle(vmgpu_sim *sim, uint64_t max_cycles, uint64_t *ran) {
  return sim->impl->run_until_idle(max_cycles, ran);
}

uint64_t vmgpu_sim_cycles(const vmgpu_sim *sim) { return sim->impl->cycles; }
int vmgpu_sim_idle(const vmgpu_sim *sim) { return sim->impl->idle(); }
int vmgpu_sim_irq(const vmgpu_sim *sim) { return sim->impl->irq(); }
int vmgpu_sim_fault(const vmgpu_sim *sim) { return sim->impl->fault(); }

void vmgpu_sim_set_host_handler(vmgpu_sim *sim, vmgpu_sim_host_fn fn, void *user) {
  sim->impl->host_fn = fn;
  sim->impl->host_user = user;
}

void vmgpu_sim_set_host_stall(vmgpu_sim *sim, unsigned one_in_n) {
  // 1 would hold ready low for good and hang the device; the slowest useful setting is 2.
  sim->impl->stall_one_in_n = one_in_n == 1 ? 2 : one_in_n;
}

void vmgpu_sim_host_stats_get(const vmgpu_sim *sim, vmgpu_sim_host_stats *out) {
  *out = sim->impl->stats;
}

}  // extern "C"
