/*
 * The vmgpu_sim C API itself: cycles advance only when asked, exactly as many as asked, a CSR
 * access costs a bounded handful of cycles, run_until_idle returns at once on an idle device,
 * and the status outputs read sensibly after reset.
 */
#include "hal_check.h"
#include "vmgpu/regs.h"
#include "vmgpu_sim.h"

int main(void) {
    char err[256] = "";
    vmgpu_sim *sim = vmgpu_sim_create("", err, sizeof err);
    REQUIRE(sim != NULL, "create: %s", err);
    CHECK(!vmgpu_sim_waves_enabled(sim), "empty waves path built the traced model");

    uint64_t c0 = vmgpu_sim_cycles(sim);
    CHECK(c0 > 0 && c0 < 100, "%llu cycles after creation (reset)", (unsigned long long)c0);
    CHECK(vmgpu_sim_cycles(sim) == c0, "the model ran on its own");
    vmgpu_sim_run_cycles(sim, 1000);
    CHECK(vmgpu_sim_cycles(sim) == c0 + 1000, "run_cycles(1000) ran %llu",
          (unsigned long long)(vmgpu_sim_cycles(sim) - c0));

    uint32_t v = 0;
    c0 = vmgpu_sim_cycles(sim);
    CHECK(vmgpu_sim_reg_read(sim, VMGPU_REG_ID, &v) == 0 && v == VMGPU_ID_MAGIC, "ID 0x%08x", v);
    uint64_t per_read = vmgpu_sim_cycles(sim) - c0;
    CHECK(per_read >= 2 && per_read <= 8, "a register read took %llu cycles",
          (unsigned long long)per_read);
    CHECK(vmgpu_sim_reg_write(sim, VMGPU_REG_SCRATCH, 0x600DF00Du) == 0, "SCRATCH write");
    CHECK(vmgpu_sim_reg_read(sim, VMGPU_REG_SCRATCH, &v) == 0 && v == 0x600DF00Du,
          "SCRATCH 0x%08x", v);

    /* CYCLE_LO/HI count the same cycles the model reports (both move by the same amount). */
    uint32_t lo0 = 0, lo1 = 0;
    vmgpu_sim_reg_read(sim, VMGPU_REG_CYCLE_LO, &lo0);
    c0 = vmgpu_sim_cycles(sim);
    vmgpu_sim_run_cycles(sim, 5000);
    vmgpu_sim_reg_read(sim, VMGPU_REG_CYCLE_LO, &lo1);
    uint64_t host_side = vmgpu_sim_cycles(sim) - c0;
    CHECK(lo1 - lo0 == host_side, "CYCLE_LO moved %u, the model clocked %llu", lo1 - lo0,
          (unsigned long long)host_side);

    CHECK(vmgpu_sim_idle(sim) == 1, "idle_o low after reset");
    CHECK(vmgpu_sim_fault(sim) == 0, "fault_o high after reset");
    CHECK(vmgpu_sim_irq(sim) == 0, "irq_o high after reset");
    uint64_t ran = 99;
    c0 = vmgpu_sim_cycles(sim);
    CHECK(vmgpu_sim_run_until_idle(sim, 1000000, &ran) == 0 && ran == 0, "idle run ran %llu",
          (unsigned long long)ran);
    CHECK(vmgpu_sim_cycles(sim) == c0, "idle run clocked the model");

    vmgpu_sim_host_stats st;
    vmgpu_sim_host_stats_get(sim, &st);
    CHECK(st.reads == 0 && st.writes == 0, "host traffic on an idle device");
    printf("cycles advance only on request; register access %llu cycles; CYCLE_LO agrees; idle "
           "run returns at once\n", (unsigned long long)per_read);
    vmgpu_sim_destroy(sim);
    return hal_summary("test_sim_api");
}
