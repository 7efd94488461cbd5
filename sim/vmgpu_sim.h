/*
 * vmgpu_sim: the in-process Verilator model of vmgpu_top, behind a small C API.
 *
 * The model is clocked only when the caller asks: a register access runs the cycles of the CSR
 * handshake, vmgpu_sim_run_cycles/run_until_idle run the device, nothing runs in between. So an
 * idle device costs no host CPU. Host-port requests (pages whose PTE has the HOST bit) are
 * served inside the clock loop through one function pointer, on the cycle they are accepted;
 * read data goes back to the device on the next cycle.
 *
 * Waveforms: a model created with a waves path (or, for path NULL, with VMGPU_WAVES=file.fst
 * in the environment) is the traced build of the RTL and writes an FST of everything it runs,
 * reset included; the file is complete once vmgpu_sim_destroy returns. The time axis is a
 * nominal 50 MHz clock (20 ns per cycle). Without a path the untraced, fast build runs.
 *
 * One vmgpu_sim is used by one thread at a time. Implemented in C++ (sim/vmgpu_sim.cpp).
 */
#ifndef VMGPU_SIM_H
#define VMGPU_SIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vmgpu_sim vmgpu_sim;

/*
 * Host-port handler, same shape as vmgpu_host_handler in sw/hal/vmgpu_hal.h: the device reads
 * (write == 0: fill *data) or writes (write == 1: store *data under byte enable be) the 32-bit
 * word at host address haddr. Called in request order, reads and writes in one stream.
 * Nonzero return (or no handler at all): reads answer 0xDEADBEEF and writes are dropped.
 */
typedef int (*vmgpu_sim_host_fn)(void *user, uint32_t haddr, int write, uint32_t *data,
                                 unsigned be);

/* Read data the model returns for a host read that no handler served. */
#define VMGPU_SIM_HOST_BAD_DATA 0xDEADBEEFu

/* Cycles a CSR access may wait for csr_ack_o before it is reported as timed out. */
#define VMGPU_SIM_CSR_TIMEOUT_CYCLES 10000u

/*
 * Build the model, hold reset for a few cycles and release it. waves_path: NULL reads
 * VMGPU_WAVES from the environment; "" or an unset variable means no waveform. Returns NULL
 * (and, with err, a one-line reason) when the waveform file cannot be opened.
 */
vmgpu_sim *vmgpu_sim_create(const char *waves_path, char *err, unsigned errlen);
void vmgpu_sim_destroy(vmgpu_sim *sim);

/* 1 when this model is the traced build writing a waveform. */
int vmgpu_sim_waves_enabled(const vmgpu_sim *sim);

/*
 * Register access through the CSR handshake: csr_req_i is held until csr_ack_o, then dropped
 * for one cycle. off is a byte offset (VMGPU_REG_* from vmgpu/regs.h). Returns 0, or -1 when
 * the ack did not come within VMGPU_SIM_CSR_TIMEOUT_CYCLES.
 */
int vmgpu_sim_reg_read(vmgpu_sim *sim, uint32_t off, uint32_t *val);
int vmgpu_sim_reg_write(vmgpu_sim *sim, uint32_t off, uint32_t val);

/* Run exactly n cycles. */
void vmgpu_sim_run_cycles(vmgpu_sim *sim, uint64_t n);

/*
 * Run until idle_o is high or max_cycles have passed; returns at once (0 cycles) on an idle
 * device. *ran (may be NULL) gets the cycles run. Returns 0 when idle, -1 when the budget ran
 * out first.
 */
int vmgpu_sim_run_until_idle(vmgpu_sim *sim, uint64_t max_cycles, uint64_t *ran);

/* Cycles clocked since creation, reset cycles included. */
uint64_t vmgpu_sim_cycles(const vmgpu_sim *sim);

/* The model's status outputs as of now. */
int vmgpu_sim_idle(const vmgpu_sim *sim);
int vmgpu_sim_irq(const vmgpu_sim *sim);
int vmgpu_sim_fault(const vmgpu_sim *sim);

/* Install the host-port handler (fn NULL: none). */
void vmgpu_sim_set_host_handler(vmgpu_sim *sim, vmgpu_sim_host_fn fn, void *user);

/*
 * Back-pressure on the host port, for tests: with one_in_n > 0, host_req_ready_i is low in a
 * pseudo-random one of every one_in_n cycles on average (a fixed-seed LFSR, so runs repeat).
 * 0 (the default) keeps ready high; 1 is taken as 2 (ready never high would hang the device).
 */
void vmgpu_sim_set_host_stall(vmgpu_sim *sim, unsigned one_in_n);

/* Host-port traffic so far. */
typedef struct vmgpu_sim_host_stats {
    uint64_t reads;         /* read requests accepted */
    uint64_t writes;        /* write requests accepted */
    uint64_t stall_cycles;  /* cycles with a request waiting while ready was low */
    uint64_t failed;        /* requests the handler refused or no handler served */
} vmgpu_sim_host_stats;
void vmgpu_sim_host_stats_get(const vmgpu_sim *sim, vmgpu_sim_host_stats *out);

/*
 * Simulation speed. vmgpu_sim_measure_speed builds its own model (traced when waves_path is a
 * non-empty path, fast otherwise), keeps the device busy with one long device-to-device DMA
 * copy through the MMU for at least min_busy_cycles, checks the copied data, then polls
 * STATUS on the idle device for a while. Returns 0 and fills *out, or -1 with a reason in err
 * (device never got busy, faulted, bad data, waveform not writable).
 */
typedef struct vmgpu_sim_speed {
    uint64_t busy_cycles;
    double busy_seconds;
    double busy_cycles_per_second;  /* the figure vmgpu-bench reports as sim_cycles_per_second */
    double busy_cpu_seconds;        /* CPU time of the measuring thread over the same run */
    double busy_cycles_per_cpu_second; /* the same figure, immune to other processes' load */
    uint64_t poll_reads;            /* STATUS reads on the idle device */
    uint64_t poll_cycles;           /* cycles those reads clocked (the CSR handshake) */
    double poll_seconds;
    double poll_cycles_per_second;
    double poll_reads_per_second;
} vmgpu_sim_speed;
int vmgpu_sim_measure_speed(uint64_t min_busy_cycles, const char *waves_path, vmgpu_sim_speed *out,
                            char *err, unsigned errlen);

#ifdef __cplusplus
}
#endif
#endif /* VMGPU_SIM_H */
