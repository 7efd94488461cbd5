// vmgpu_sim_measure_speed: how many device cycles per second the model runs while the device is
// busy (a long DMA copy through the MMU, the path real workloads keep hot) and while the driver
// polls an idle device. Only the time spent clocking the model is measured; setting up and
// checking are outside the timed regions.

#include <chrono>
#include <ctime>
#include <cstdio>
#include <memory>
#include <string>

#include "vmgpu/regs.h"
#include "vmgpu_sim.h"

namespace {

// Device-memory layout of the measurement (physical addresses).
constexpr uint32_t kPageDir = 0x1000;     // page directory of the measuring context
constexpr uint32_t kPageTables = 0x2000;  // contiguous page tables, one per 4 MiB of VA
constexpr uint32_t kRing = 0x10000;       // ring 0
constexpr uint32_t kRingSize = 0x1000;
constexpr uint32_t kVaBase = 0x40000000;  // start of the mapped window (PDE-aligned)
constexpr uint32_t kAsid = 1;
constexpr uint32_t kPage = 4096;
constexpr uint32_t kRowBytes = 1u << 20;  // bytes per DMA row
constexpr uint64_t kPollReads = 200000;
constexpr uint64_t kRunBudget = 4000000000ull;

struct SimDeleter {
  void operator()(vmgpu_sim *s) const { vmgpu_sim_destroy(s); }
};

class Bench {
 public:
  explicit Bench(vmgpu_sim *sim) : sim_(sim) {}

  bool wr(uint32_t off, uint32_t v) { return vmgpu_sim_reg_write(sim_, off, v) == 0; }
  bool rd(uint32_t off, uint32_t *v) { return vmgpu_sim_reg_read(sim_, off, v) == 0; }

  bool mem_write(uint32_t pa, const uint32_t *w, size_t n) {
    if (!wr(VMGPU_REG_MEM_ADDR, pa)) return false;
    for (size_t i = 0; i < n; ++i)
      if (!wr(VMGPU_REG_MEM_DATA, w[i])) return false;
    return true;
  }
  bool mem_read(uint32_t pa, uint32_t *w, size_t n) {
    if (!wr(VMGPU_REG_MEM_ADDR, pa)) return false;
    for (size_t i = 0; i < n; ++i)
      if (!rd(VMGPU_REG_MEM_DATA, &w[i])) return false;
    return true;
  }

  // Appends one command to ring 0 and rings the doorbell.
  bool submit(uint32_t op, uint32_t flags, std::initializer_list<uint32_t> payload) {
    uint32_t words[16];
    size_t n = 0;
    words[n++] = VMGPU_CMD_HEADER(op, payload.size(), flags);
    for (uint32_t p : payload) words[n++] = p;
    if (tail_ + n * 4 > kRingSize) return false;  // the measurement never needs to wrap
    if (!mem_write(kRing + tail_, words, n)) return false;
    tail_ += static_cast<uint32_t>(n * 4);
    return wr(VMGPU_RING_REG(0, VMGPU_RING_TAIL), tail_);
  }

  bool ring_setup() {
    return wr(VMGPU_RING_REG(0, VMGPU_RING_BASE), kRing) &&
           wr(VMGPU_RING_REG(0, VMGPU_RING_SIZE), kRingSize) &&
           wr(VMGPU_RING_REG(0, VMGPU_RING_TAIL), 0) &&
           wr(VMGPU_RING_REG(0, VMGPU_RING_CTRL), VMGPU_RING_CTRL_ENABLE_MASK);
  }

  // Runs until idle; fails on a budget overrun or a faulted ring.
  bool drain(uint64_t *ran, std::string *why) {
    if (vmgpu_sim_run_until_idle(sim_, kRunBudget, ran) != 0) {
      *why = "device did not go idle";
      return false;
    }
    uint32_t st = 0;
    if (!rd(VMGPU_RING_REG(0, VMGPU_RING_STATUS), &st)) {
      *why = "RING_STATUS read timed out";
      return false;
    }
    if (st & VMGPU_RING_STATUS_FAULTED_MASK) {
      uint32_t info = 0, va = 0;
      rd(VMGPU_RING_REG(0, VMGPU_RING_FAULT_INFO), &info);
      rd(VMGPU_RING_REG(0, VMGPU_RING_FAULT_VA), &va);
      char buf[128];
      std::snprintf(buf, sizeof buf, "ring 0 faulted: FAULT_INFO 0x%08x FAULT_VA 0x%08x", info, va);
      *why = buf;
      return false;
    }
    return true;
  }

 private:
  vmgpu_sim *sim_;
  uint32_t tail_ = 0;
};

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool measure(vmgpu_sim *sim, uint64_t min_busy_cycles, vmgpu_sim_speed *out, std::string *why) {
  Bench b(sim);
  uint32_t mem_size = 0;
  if (!b.rd(VMGPU_REG_MEM_SIZE, &mem_size)) {
    *why = "MEM_SIZE read timed out";
    return false;
  }
  if (mem_size < (4u << 20)) {
    *why = "device memory too small for the measurement (needs 4 MiB)";
    return false;
  }
  // The upper half of device memory is mapped at kVaBase; the copy runs from its first quarter
  // to its second.
  const uint32_t region_pa = mem_size / 2;
  const uint32_t region_bytes = mem_size / 2;
  const uint32_t pages = region_bytes / kPage;
  const uint32_t tables = (pages + 1023) / 1024;
  const uint32_t src_va = kVaBase;
  const uint32_t dst_va = kVaBase + region_bytes / 2;
  const uint32_t src_pa = region_pa;
  const uint32_t dst_pa = region_pa + region_bytes / 2;

  // Distinct data at both ends of the source row; the copy must reproduce it.
  uint32_t head[256], tail[256];
  for (uint32_t i = 0; i < 256; ++i) {
    head[i] = 0x5A000000u ^ (i * 0x01010101u) ^ (i << 20);
    tail[i] = ~head[i];
  }
  if (!b.mem_write(src_pa, head, 256) || !b.mem_write(src_pa + kRowBytes - 1024, tail, 256)) {
    *why = "MEM_DATA write timed out";
    return false;
  }

  const uint32_t rw = VMGPU_PTE_V | VMGPU_PTE_R | VMGPU_PTE_W;
  if (!b.ring_setup() ||
      !b.submit(VMGPU_OP_PTE_FILL, 0, {kPageTables, pages, region_pa | rw, kPage}) ||
      !b.submit(VMGPU_OP_PTE_FILL, 0,
                {kPageDir + (kVaBase >> 22) * 4, tables, kPageTables | VMGPU_PTE_V, kPage}) ||
      !b.submit(VMGPU_OP_BIND_CTX, 0, {kAsid, kPageDir})) {
    *why = "ring set-up failed (CSR timeout)";
    return false;
  }
  uint64_t ran = 0;
  if (!b.drain(&ran, why)) return false;

  // One row first: how many cycles a row costs, so the long copy lasts about min_busy_cycles.
  if (!b.submit(VMGPU_OP_DMA_COPY, 0, {src_va, dst_va, kRowBytes, 1, 0, 0})) {
    *why = "DMA_COPY submit failed";
    return false;
  }
  if (!b.drain(&ran, why)) return false;
  if (ran < kRowBytes / 64) {
    *why = "one 1 MiB DMA row finished in " + std::to_string(ran) + " cycles: the copy did not run";
    return false;
  }
  uint64_t rows = (min_busy_cycles + ran - 1) / ran;
  if (rows < 1) rows = 1;
  if (rows > 0xFFFFFFFFu) rows = 0xFFFFFFFFu;

  // The timed copy: the same row again and again (pitch 0), so it needs no more memory.
  if (!b.submit(VMGPU_OP_DMA_COPY, 0,
                {src_va, dst_va, kRowBytes, static_cast<uint32_t>(rows), 0, 0})) {
    *why = "DMA_COPY submit failed";
    return false;
  }
  const double cpu0 = thread_cpu_seconds();
  auto t0 = std::chrono::steady_clock::now();
  bool ok = b.drain(&ran, why);
  out->busy_seconds = seconds_since(t0);
  out->busy_cpu_seconds = thread_cpu_seconds() - cpu0;
  if (!ok) return false;
  out->busy_cycles = ran;
  out->busy_cycles_per_second = out->busy_seconds > 0 ? ran / out->busy_seconds : 0;
  out->busy_cycles_per_cpu_second = out->busy_cpu_seconds > 0 ? ran / out->busy_cpu_seconds : 0;

  uint32_t got[256];
  if (!b.mem_read(dst_pa, got, 256)) {
    *why = "MEM_DATA read timed out";
    return false;
  }
  for (uint32_t i = 0; i < 256; ++i)
    if (got[i] != head[i]) {
      *why = "copied data wrong at the start of the row";
      return false;
    }
  if (!b.mem_read(dst_pa + kRowBytes - 1024, got, 256)) {
    *why = "MEM_DATA read timed out";
    return false;
  }
  for (uint32_t i = 0; i < 256; ++i)
    if (got[i] != tail[i]) {
      *why = "copied data wrong at the end of the row";
      return false;
    }

  // Idle polling: what a driver spinning on STATUS costs.
  const uint64_t c0 = vmgpu_sim_cycles(sim);
  t0 = std::chrono::steady_clock::now();
  uint32_t st = 0;
  for (uint64_t i = 0; i < kPollReads; ++i)
    if (!b.rd(VMGPU_REG_STATUS, &st)) {
      *why = "STATUS read timed out";
      return false;
    }
  out->poll_seconds = seconds_since(t0);
  out->poll_reads = kPollReads;
  out->poll_cycles = vmgpu_sim_cycles(sim) - c0;
  if (out->poll_seconds > 0) {
    out->poll_cycles_per_second = out->poll_cycles / out->poll_seconds;
    out->poll_reads_per_second = kPollReads / out->poll_seconds;
  }
  if (!(st & VMGPU_REG_STATUS_IDLE_MASK)) {
    *why = "STATUS.IDLE not set on the idle device";
    return false;
  }
  return true;
}

}  // namespace

extern "C" int vmgpu_sim_measure_speed(uint64_t min_busy_cycles, const char *waves_path,
                                       vmgpu_sim_speed *out, char *err, unsigned errlen) {
  *out = vmgpu_sim_speed{};
  char cerr[256] = "";
  // An empty path (not NULL) keeps the environment's VMGPU_WAVES from slowing the measurement.
  std::unique_ptr<vmgpu_sim, SimDeleter> sim(
      vmgpu_sim_create(waves_path ? waves_path : "", cerr, sizeof cerr));
  std::string why;
  bool ok = false;
  if (!sim)
    why = cerr;
  else
    ok = measure(sim.get(), min_busy_cycles, out, &why);
  if (!ok && err && errlen) std::snprintf(err, errlen, "%s", why.c_str());
  return ok ? 0 : -1;
}
