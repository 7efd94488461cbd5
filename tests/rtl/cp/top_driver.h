// A minimal driver for vmgpu_top in testbenches: CSR accesses through the real handshake,
// ring set-up and command submission, a host port served from a map. The real driver lives
// in sw/; this one exists so the command processor can be tested on its own terms.
#pragma once
#include <cstdint>
#include <map>
#include <vector>
#include "Vvmgpu_top.h"
#include "tb_check.h"
#include "vmgpu/regs.h"

class TopDriver {
 public:
  Vvmgpu_top m;
  uint64_t cycles = 0;
  std::map<uint32_t, uint32_t> host_mem;  // host word address -> data
  std::vector<uint32_t> tails;

  TopDriver() {
    m.clk_i = 0;
    m.rst_ni = 0;
    m.csr_req_i = 0;
    m.host_req_ready_i = 1;
    m.host_rsp_valid_i = 0;
    for (int i = 0; i < 4; i++) tick();
    m.rst_ni = 1;
    tick();
  }

  void tick() {
    // Host port: accept every request; answer reads on the next cycle.
    bool rsp = false;
    uint32_t rsp_data = 0;
    if (m.host_req_valid_o && m.host_req_ready_i) {
      uint32_t a = m.host_req_addr_o & ~3u;
      if (m.host_req_we_o) {
        uint32_t old = host_mem[a];
        for (int b = 0; b < 4; b++)
          if (m.host_req_be_o >> b & 1) old = (old & ~(0xFFu << 8 * b)) | (m.host_req_wdata_o & (0xFFu << 8 * b));
        host_mem[a] = old;
      } else {
        rsp = true;
        rsp_data = host_mem.count(a) ? host_mem[a] : 0;
      }
    }
    m.clk_i = 1;
    m.eval();
    m.host_rsp_valid_i = rsp;
    m.host_rsp_data_i = rsp_data;
    m.clk_i = 0;
    m.eval();
    cycles++;
  }

  uint32_t csr(bool we, uint32_t addr, uint32_t wdata = 0) {
    m.csr_req_i = 1;
    m.csr_we_i = we;
    m.csr_addr_i = addr;
    m.csr_wdata_i = wdata;
    for (int i = 0; i < 10000; i++) {
      tick();
      if (m.csr_ack_o) {
        uint32_t v = m.csr_rdata_o;
        m.csr_req_i = 0;  // the contract: drop the request for at least one cycle
        tick();
        return v;
      }
    }
    m.csr_req_i = 0;
    CHECK(false, "CSR access to 0x%03x never acknowledged", addr);
    return 0xFFFFFFFFu;
  }
  uint32_t rd(uint32_t addr) { return csr(false, addr); }
  void wr(uint32_t addr, uint32_t v) { csr(true, addr, v); }
  uint32_t ring_rd(int r, uint32_t reg) { return rd(VMGPU_RING_REG(r, reg)); }
  void ring_wr(int r, uint32_t reg, uint32_t v) { wr(VMGPU_RING_REG(r, reg), v); }

  void mem_write(uint32_t pa, const std::vector<uint32_t> &w) {
    wr(VMGPU_REG_MEM_ADDR, pa);
    for (uint32_t x : w) wr(VMGPU_REG_MEM_DATA, x);
  }
  std::vector<uint32_t> mem_read(uint32_t pa, size_t n) {
    std::vector<uint32_t> out;
    wr(VMGPU_REG_MEM_ADDR, pa);
    for (size_t i = 0; i < n; i++) out.push_back(rd(VMGPU_REG_MEM_DATA));
    return out;
  }

  void ring_setup(int r, uint32_t base, uint32_t size) {
    if (tails.size() <= (size_t)r) tails.resize(r + 1, 0);
    ring_wr(r, VMGPU_RING_BASE, base);
    ring_wr(r, VMGPU_RING_SIZE, size);
    ring_wr(r, VMGPU_RING_TAIL, 0);
    ring_wr(r, VMGPU_RING_CTRL, VMGPU_RING_CTRL_ENABLE_MASK | VMGPU_RING_CTRL_RESET_MASK);
    tails[r] = 0;
  }

  // Write words at the ring's tail (wrapping) and ring the doorbell.
  void submit(int r, const std::vector<uint32_t> &words, bool doorbell = true) {
    uint32_t base = ring_rd(r, VMGPU_RING_BASE), size = ring_rd(r, VMGPU_RING_SIZE);
    for (uint32_t w : words) {
      mem_write(base + tails[r], {w});
      tails[r] = (tails[r] + 4) & (size - 1);
    }
    if (doorbell) ring_wr(r, VMGPU_RING_TAIL, tails[r]);
  }

  // Run until the device is idle; false if it is still busy after max cycles.
  bool run_idle(uint64_t max = 2000000) {
    for (uint64_t i = 0; i < max; i++) {
      if (m.idle_o) return true;
      tick();
    }
    return false;
  }
};

inline uint32_t hdr(uint32_t op, uint32_t len, uint32_t flags = 0) { return VMGPU_CMD_HEADER(op, len, flags); }
