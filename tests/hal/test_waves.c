/*
 * Waveforms: with VMGPU_WAVES set, opening the sim backend builds the traced model and closing
 * it leaves a non-empty FST file; without it (or empty) the fast model runs and writes nothing;
 * an unwritable path makes open fail with a reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hal_check.h"
#include "vmgpu/regs.h"
#include "vmgpu_hal.h"
#include "vmgpu_sim.h"

static long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "test_waves.fst";
    char err[512] = "";
    remove(path);

    setenv("VMGPU_WAVES", path, 1);
    vmgpu_hal *h = vmgpu_hal_open(NULL, err, sizeof err);
    REQUIRE(h != NULL, "open with VMGPU_WAVES=%s: %s", path, err);
    uint32_t v = 0;
    CHECK(vmgpu_reg_write(h, VMGPU_REG_SCRATCH, 0x0BADCAFEu) == VMGPU_HAL_OK, "SCRATCH write");
    CHECK(vmgpu_reg_read(h, VMGPU_REG_SCRATCH, &v) == VMGPU_HAL_OK && v == 0x0BADCAFEu,
          "traced model SCRATCH 0x%08x", v);
    uint32_t words[64];
    for (unsigned i = 0; i < 64; ++i) words[i] = i * 0x01010101u;
    CHECK(vmgpu_mem_write(h, 0x4000, words, 64) == VMGPU_HAL_OK, "burst on the traced model");
    vmgpu_hal_close(h);
    long size = file_size(path);
    CHECK(size > 1000, "waveform %s is %ld bytes", path, size);
    FILE *f = fopen(path, "rb");
    int first = f ? fgetc(f) : -1;
    if (f) fclose(f);
    /* An FST file starts with its header block, block type 0. */
    CHECK(first == 0, "waveform does not start with an FST header block (first byte %d)", first);
    printf("VMGPU_WAVES=%s: traced model ran, %ld-byte FST written\n", path, size);

    /* Unset or empty: the fast model, no file. */
    remove(path);
    setenv("VMGPU_WAVES", "", 1);
    vmgpu_sim *sim = vmgpu_sim_create(NULL, err, sizeof err);
    CHECK(sim && !vmgpu_sim_waves_enabled(sim), "empty VMGPU_WAVES built the traced model");
    if (sim) vmgpu_sim_destroy(sim);
    CHECK(file_size(path) < 0, "a waveform was written with VMGPU_WAVES empty");
    unsetenv("VMGPU_WAVES");
    sim = vmgpu_sim_create(NULL, err, sizeof err);
    CHECK(sim && !vmgpu_sim_waves_enabled(sim), "unset VMGPU_WAVES built the traced model");
    if (sim) vmgpu_sim_destroy(sim);
    printf("VMGPU_WAVES empty or unset: fast model, no file\n");

    setenv("VMGPU_WAVES", "/nonexistent-dir/x.fst", 1);
    err[0] = '\0';
    h = vmgpu_hal_open("sim", err, sizeof err);
    CHECK(h == NULL && strstr(err, "/nonexistent-dir/x.fst"), "unwritable waveform: %s", err);
    if (h) vmgpu_hal_close(h);
    printf("unwritable waveform path refused: %s\n", err);
    return hal_summary("test_waves");
}
