/*
 * The sim backend against the real model: identification registers, SCRATCH, MEM_DATA bursts
 * (data, auto-increment, range checks), idle detection, the cycle counter and the round-trip
 * count the benchmarks rely on.
 */
#include <string.h>

#include "hal_check.h"
#include "vmgpu/regs.h"
#include "vmgpu_hal.h"

#define NWORDS 1024

static uint32_t pattern(uint32_t i, uint32_t seed) {
    uint32_t x = i * 0x9E3779B9u ^ seed;
    x ^= x >> 15;
    return x * 0x85EBCA6Bu;
}

int main(void) {
    char err[512] = "";
    vmgpu_hal *h = vmgpu_hal_open("sim", err, sizeof err);
    REQUIRE(h != NULL, "open sim: %s", err);
    CHECK(!strcmp(h->ops->name, "sim"), "backend name %s", h->ops->name);
    CHECK(h->round_trips == 0, "fresh handle counts %llu round trips",
          (unsigned long long)h->round_trips);

    uint32_t v = 0;
    CHECK(vmgpu_reg_read(h, VMGPU_REG_ID, &v) == VMGPU_HAL_OK && v == VMGPU_ID_MAGIC, "ID 0x%08x", v);
    CHECK(vmgpu_reg_read(h, VMGPU_REG_VERSION, &v) == VMGPU_HAL_OK && v == VMGPU_HW_VERSION,
          "VERSION 0x%08x", v);
    CHECK(vmgpu_reg_read(h, VMGPU_REG_CAPS, &v) == VMGPU_HAL_OK, "CAPS read");
    unsigned rings = (v & VMGPU_REG_CAPS_N_RINGS_MASK) >> VMGPU_REG_CAPS_N_RINGS_LSB;
    unsigned tlb = (v & VMGPU_REG_CAPS_TLB_ENTRIES_MASK) >> VMGPU_REG_CAPS_TLB_ENTRIES_LSB;
    unsigned shift = (v & VMGPU_REG_CAPS_PAGE_SHIFT_MASK) >> VMGPU_REG_CAPS_PAGE_SHIFT_LSB;
    CHECK(rings == 2 && tlb == 16 && shift == 12, "CAPS 0x%08x: rings %u tlb %u page shift %u", v,
          rings, tlb, shift);
    uint32_t mem_size = 0;
    CHECK(vmgpu_reg_read(h, VMGPU_REG_MEM_SIZE, &mem_size) == VMGPU_HAL_OK &&
              mem_size == VMGPU_SIM_MEM_BYTES,
          "MEM_SIZE %u, want %u", mem_size, (unsigned)VMGPU_SIM_MEM_BYTES);
    CHECK(h->round_trips == 4, "4 register reads counted as %llu round trips",
          (unsigned long long)h->round_trips);
    printf("ID, VERSION, CAPS, MEM_SIZE read back (%u bytes)\n", mem_size);

    static const uint32_t scratch[] = {0, 0xFFFFFFFFu, 0xA5A5A5A5u, 0x5A5A5A5Au, 1, 0x80000000u,
                                       0x12345678u};
    for (size_t i = 0; i < sizeof scratch / sizeof scratch[0]; ++i) {
        v = ~scratch[i];
        CHECK(vmgpu_reg_write(h, VMGPU_REG_SCRATCH, scratch[i]) == VMGPU_HAL_OK, "SCRATCH write");
        CHECK(vmgpu_reg_read(h, VMGPU_REG_SCRATCH, &v) == VMGPU_HAL_OK && v == scratch[i],
              "SCRATCH wrote 0x%08x read 0x%08x", scratch[i], v);
    }
    printf("SCRATCH: %zu patterns written and read back\n", sizeof scratch / sizeof scratch[0]);

    /* Bursts: one write burst and one read burst each count one round trip. */
    static uint32_t out[NWORDS], in[NWORDS];
    for (uint32_t i = 0; i < NWORDS; ++i) out[i] = pattern(i, 0x1234);
    uint64_t rt0 = h->round_trips;
    CHECK(vmgpu_mem_write(h, 0x10000, out, NWORDS) == VMGPU_HAL_OK, "burst write");
    CHECK(h->round_trips == rt0 + 1, "write burst counted %llu round trips",
          (unsigned long long)(h->round_trips - rt0));
    memset(in, 0, sizeof in);
    rt0 = h->round_trips;
    CHECK(vmgpu_mem_read(h, 0x10000, in, NWORDS) == VMGPU_HAL_OK, "burst read");
    CHECK(h->round_trips == rt0 + 1, "read burst counted %llu round trips",
          (unsigned long long)(h->round_trips - rt0));
    int bad = 0;
    for (uint32_t i = 0; i < NWORDS; ++i) bad += in[i] != out[i];
    CHECK(bad == 0, "%d of %d words differ after a burst round trip", bad, NWORDS);

    /* A read starting inside the written range sees the same words (addresses not shifted). */
    uint32_t part[10];
    CHECK(vmgpu_mem_read(h, 0x10000 + 4 * 100, part, 10) == VMGPU_HAL_OK &&
              !memcmp(part, out + 100, sizeof part),
          "partial read at word 100: 0x%08x want 0x%08x", part[0], out[100]);
    /* Overwrite the middle; the ends must stay. */
    uint32_t mid[16];
    for (uint32_t i = 0; i < 16; ++i) mid[i] = pattern(i, 0xBEEF);
    CHECK(vmgpu_mem_write(h, 0x10000 + 4 * 500, mid, 16) == VMGPU_HAL_OK, "middle write");
    memcpy(out + 500, mid, sizeof mid);
    CHECK(vmgpu_mem_read(h, 0x10000, in, NWORDS) == VMGPU_HAL_OK, "burst read 2");
    bad = 0;
    for (uint32_t i = 0; i < NWORDS; ++i) bad += in[i] != out[i];
    CHECK(bad == 0, "%d words differ after overwriting 16 in the middle", bad);
    /* The last words of device memory. */
    for (uint32_t i = 0; i < 16; ++i) mid[i] = pattern(i, 0xE0D);
    CHECK(vmgpu_mem_write(h, mem_size - 64, mid, 16) == VMGPU_HAL_OK, "write at the end");
    memset(part, 0, sizeof part);
    uint32_t last[16];
    CHECK(vmgpu_mem_read(h, mem_size - 64, last, 16) == VMGPU_HAL_OK && !memcmp(last, mid, 64),
          "end of memory read back 0x%08x want 0x%08x", last[0], mid[0]);
    printf("MEM_DATA bursts: %d words written and read back, partial and overlapping bursts, "
           "end of memory\n", NWORDS);

    /* Auto-increment, seen through the registers themselves. */
    CHECK(vmgpu_reg_write(h, VMGPU_REG_MEM_ADDR, 0x10000 + 4 * 7) == VMGPU_HAL_OK, "MEM_ADDR");
    CHECK(vmgpu_reg_read(h, VMGPU_REG_MEM_DATA, &v) == VMGPU_HAL_OK && v == out[7],
          "MEM_DATA word 7 0x%08x", v);
    CHECK(vmgpu_reg_read(h, VMGPU_REG_MEM_DATA, &v) == VMGPU_HAL_OK && v == out[8],
          "MEM_DATA word 8 0x%08x", v);
    CHECK(vmgpu_reg_write(h, VMGPU_REG_MEM_DATA, 0xCAFEF00Du) == VMGPU_HAL_OK, "MEM_DATA write");
    CHECK(vmgpu_reg_read(h, VMGPU_REG_MEM_ADDR, &v) == VMGPU_HAL_OK && v == 0x10000 + 4 * 10,
          "MEM_ADDR after 3 MEM_DATA accesses: 0x%08x", v);
    CHECK(vmgpu_mem_read(h, 0x10000 + 4 * 9, &v, 1) == VMGPU_HAL_OK && v == 0xCAFEF00Du,
          "word 9 after MEM_DATA write: 0x%08x", v);
    printf("MEM_ADDR auto-increments by 4 on MEM_DATA reads and writes\n");

    /* Range checks happen before anything reaches the device. */
    rt0 = h->round_trips;
    CHECK(vmgpu_mem_write(h, 0x10002, out, 1) == VMGPU_HAL_EINVAL, "misaligned write accepted");
    CHECK(vmgpu_mem_read(h, mem_size - 4, in, 2) == VMGPU_HAL_EINVAL, "read past the end accepted");
    CHECK(vmgpu_mem_write(h, mem_size, out, 1) == VMGPU_HAL_EINVAL, "write at MEM_SIZE accepted");
    CHECK(vmgpu_mem_read(h, 0, in, 0) == VMGPU_HAL_OK, "empty read refused");
    CHECK(h->round_trips == rt0, "refused or empty bursts counted round trips");
    printf("bursts: misaligned, past-the-end refused; empty bursts free\n");

    /* Idle: nothing queued, so run returns at once without clocking. */
    CHECK(vmgpu_reg_read(h, VMGPU_REG_STATUS, &v) == VMGPU_HAL_OK &&
              (v & VMGPU_REG_STATUS_IDLE_MASK),
          "STATUS 0x%08x not idle", v);
    uint32_t c0 = 0, c1 = 0;
    CHECK(vmgpu_reg_read(h, VMGPU_REG_CYCLE_LO, &c0) == VMGPU_HAL_OK, "CYCLE_LO");
    uint64_t ran = 12345;
    CHECK(vmgpu_run(h, 1000000, &ran) == VMGPU_HAL_OK && ran == 0, "idle run ran %llu cycles",
          (unsigned long long)ran);
    CHECK(vmgpu_run(h, 0, NULL) == VMGPU_HAL_OK, "idle run with no budget");
    CHECK(vmgpu_reg_read(h, VMGPU_REG_CYCLE_LO, &c1) == VMGPU_HAL_OK, "CYCLE_LO");
    /* Between the two reads only the CSR handshakes clocked the device: a few cycles. */
    CHECK(c1 > c0 && c1 - c0 < 16, "CYCLE_LO went from %u to %u around an idle run", c0, c1);
    printf("idle: STATUS.IDLE set, run returns at once (0 cycles), cycle counter moved %u\n",
           c1 - c0);

    vmgpu_hal_close(h);
    return hal_summary("test_hal_sim");
}
