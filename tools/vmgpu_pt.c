/*
 * vmgpu-pt: a context's page tables as the hardware holds them, as text and as SVG, and the walk
 * of one virtual address step by step.
 *
 *   vmgpu-pt [--scenario mixed|lesson01|quiz] [--seed N] [--svg FILE] [--walk VA]... [--walk-svg FILE]
 *
 * It opens the device (VMGPU_DEVICE, default the simulated one), makes the scenario's mappings
 * through the driver core, then reads the page directory and every page table back from device
 * memory and prints each valid PDE and each run of PTEs (VA range, PTE address and value,
 * frames, permissions, aperture) with how many of its pages the TLB holds. The TLB is rebuilt
 * from the MMU's TLB_FILL events (there is no register to read it). --walk VA prints the walk of
 * VA: PDE address, PDE, PTE address, PTE, PA and what a read and a write would get.
 * Scenarios: mixed (device RW and RO, host aperture, a mapping with no access in a second 4 MiB
 * region, a few copies), lesson01 (lesson 01's two buffers and copy), quiz (vmgpu-quiz's seeded
 * page table). Exit status 1 when the scenario fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_lib.h"

int main(int argc, char **argv)
{
    const char *scenario = "mixed", *svg = NULL, *walk_svg = NULL;
    unsigned seed = 1;
    uint32_t walks[16];
    int nwalks = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--scenario") && v) scenario = argv[++i];
        else if (!strcmp(a, "--seed") && v) seed = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(a, "--svg") && v) svg = argv[++i];
        else if (!strcmp(a, "--walk-svg") && v) walk_svg = argv[++i];
        else if (!strcmp(a, "--walk") && v && nwalks < 16) walks[nwalks++] = (uint32_t)strtoul(argv[++i], NULL, 0);
        else {
            fprintf(stderr, "usage: %s [--scenario mixed|lesson01|quiz] [--seed N] [--svg FILE] [--walk VA]... "
                    "[--walk-svg FILE]\n", argv[0]);
            return 2;
        }
    }
    pt_session p;
    if (pt_open(&p) || pt_scenario(&p, scenario, seed)) {
        fprintf(stderr, "vmgpu-pt: %s\n", p.err);
        pt_close(&p);
        return 1;
    }
    pt_print_tables(&p, stdout);
    pt_print_tlb(&p, stdout);
    pt_walk w;
    for (int i = 0; i < nwalks; i++) {
        if (pt_walk_va(&p, walks[i], &w)) {
            fprintf(stderr, "vmgpu-pt: %s\n", p.err);
            pt_close(&p);
            return 1;
        }
        pt_print_walk(&w, stdout);
        if (walk_svg && i == 0) {
            FILE *f = fopen(walk_svg, "w");
            if (!f) { perror(walk_svg); return 1; }
            pt_svg_walk(&w, f);
            fclose(f);
        }
    }
    if (svg) {
        FILE *f = fopen(svg, "w");
        if (!f) { perror(svg); return 1; }
        char title[128];
        snprintf(title, sizeof title, "vmgpu page tables: scenario %s%s", scenario, strcmp(scenario, "quiz") ? "" : " (seeded)");
        pt_svg_tables(&p, f, title);
        fclose(f);
    }
    pt_close(&p);
    return 0;
}
