/*
 * vmgpu-sim-speed: prints how fast the Verilator model runs, one "key value [unit]" line per
 * figure, as vmgpu-bench does.
 *   vmgpu-sim-speed [--cycles N] [--waves file.fst]
 * --cycles: busy cycles to measure at least (default 20000000); --waves: measure the traced
 * build writing that file (VMGPU_WAVES in the environment is ignored, so the default figure is
 * always the fast build's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmgpu_sim.h"

int main(int argc, char **argv) {
    unsigned long long cycles = 20000000ull;
    const char *waves = "";
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--cycles") && i + 1 < argc) {
            char *end = NULL;
            cycles = strtoull(argv[++i], &end, 0);
            if (!end || *end || cycles == 0) {
                fprintf(stderr, "vmgpu-sim-speed: --cycles wants a positive number\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--waves") && i + 1 < argc) {
            waves = argv[++i];
        } else {
            fprintf(stderr, "usage: vmgpu-sim-speed [--cycles N] [--waves file.fst]\n");
            return 2;
        }
    }
    vmgpu_sim_speed s;
    char err[256];
    if (vmgpu_sim_measure_speed(cycles, waves, &s, err, sizeof err) != 0) {
        fprintf(stderr, "vmgpu-sim-speed: %s\n", err);
        return 1;
    }
    printf("sim_cycles_per_second %.0f\n", s.busy_cycles_per_second);
    printf("sim_busy_cycles %llu\n", (unsigned long long)s.busy_cycles);
    printf("sim_busy_seconds %.3f s\n", s.busy_seconds);
    printf("sim_cycles_per_cpu_second %.0f\n", s.busy_cycles_per_cpu_second);
    printf("sim_idle_poll_cycles_per_second %.0f\n", s.poll_cycles_per_second);
    printf("sim_idle_poll_reads_per_second %.0f\n", s.poll_reads_per_second);
    printf("sim_waves %s\n", *waves ? "on" : "off");
    return 0;
}
