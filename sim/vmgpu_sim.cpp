// vmgpu_sim: the C API of sim/vmgpu_sim.h over two Verilator builds of vmgpu_top — the fast one
// (no tracing) and the traced one, picked at creation. The clock loop is a template instantiated
// for each, so the fast build carries no tracing test per cycle; the only indirection per call
// is one virtual dispatch, never per cycle.

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
#include "Vvmgpu_top_waves.h"
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

template <class Model, bool kTraced>
class Sim final : public SimBase {
 public:
  explicit Sim(const char *waves_path) {
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
    if constexpr (!kTraced && HasClkPrev<std::remove_pointer_t<decltype(m.rootp)>>::value) {
      if (changed)
        m.eval();
      else
        m.rootp->__Vtrigrprev__TOP__clk_i = 0;
    } else {
      m.eval();
      dump(cycles * kWaveNsPerCycle);
    }
  }

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<VerilatedFstC> trace_;
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
  std::unique_ptr<vmgpu_sim> sim(new vmgpu_sim);
  if (waves_path && *waves_path) {
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
