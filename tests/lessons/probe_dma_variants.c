/*
 * lesson_probe_dma: lesson 01's "Try this" changes, made on a copy of examples/dma_through_mmu
 * so that their answers (docs/lessons/answers.md) come from a run, not from memory.
 *
 *   lesson_probe_dma ro_dst      the destination mapped read-only too: the first copy faults
 *   lesson_probe_dma small       16 KiB instead of 128 KiB: 8 fills, nothing lost
 *   lesson_probe_dma unaligned   BYTES - 1 bytes from src_va + 1: the engine realigns bytes
 *
 * Each prints "key value" lines; run it with VMGPU_TRACE=1 or VMGPU_WAVES=file.fst to see more.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmgpu/core.h"
#include "vmgpu/regs.h"

#define BYTES (2 * VMGPU_GRANULE)

static unsigned tlb_misses(vmgpu_dev *dev)
{
    uint32_t v = 0;
    vmgpu_reg_read(vmgpu_dev_hal(dev), VMGPU_REG_TLB_MISSES, &v);
    return v;
}

int main(int argc, char **argv)
{
    const char *variant = argc > 1 ? argv[1] : "";
    int ro_dst = !strcmp(variant, "ro_dst"), small = !strcmp(variant, "small"),
        unaligned = !strcmp(variant, "unaligned");
    if (!ro_dst && !small && !unaligned) {
        fprintf(stderr, "usage: %s ro_dst|small|unaligned\n", argv[0]);
        return 2;
    }
    char err[256];
    vmgpu_dev *dev;
    if (vmgpu_dev_open(NULL, &dev, err, sizeof err)) {
        fprintf(stderr, "open: %s\n", err);
        return 1;
    }
    vmgpu_ctx *ctx;
    vmgpu_stream *s;
    uint32_t src_pa, dst_pa, src_va, dst_va;
    int rc = vmgpu_ctx_create(dev, 0, &ctx);
    if (!rc) rc = vmgpu_stream_create(ctx, 0, &s);
    if (!rc) rc = vmgpu_phys_alloc(dev, BYTES, 0, &src_pa);
    if (!rc) rc = vmgpu_phys_alloc(dev, BYTES, 0, &dst_pa);
    if (!rc) rc = vmgpu_va_reserve(ctx, BYTES, 0, 0, &src_va);
    if (!rc) rc = vmgpu_va_reserve(ctx, BYTES, 0, 0, &dst_va);
    if (!rc) rc = vmgpu_map(ctx, src_va, src_pa, BYTES, VMGPU_MAP_READ);
    if (!rc) rc = vmgpu_map(ctx, dst_va, dst_pa, BYTES,
                            ro_dst ? VMGPU_MAP_READ : VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    if (rc) {
        fprintf(stderr, "setup: %s\n", vmgpu_dev_last_error(dev));
        return 1;
    }
    static char text[BYTES], back[BYTES], before[BYTES];
    for (unsigned i = 0; i < BYTES; i++) text[i] = "vmgpu maps memory. "[i % 19];
    rc = vmgpu_phys_write(dev, src_pa, text, BYTES);
    if (!rc) rc = vmgpu_phys_read(dev, dst_pa, before, BYTES);
    uint32_t bytes = small ? 16384 : unaligned ? BYTES - 1 : BYTES;
    uint32_t from = unaligned ? src_va + 1 : src_va;
    unsigned m0 = tlb_misses(dev);
    uint64_t c0 = 0, c1 = 0;
    vmgpu_dev_cycles(dev, &c0);
    if (!rc) rc = vmgpu_cmd_copy(s, dst_va, from, bytes);
    if (!rc) rc = vmgpu_stream_sync(s);
    vmgpu_dev_cycles(dev, &c1);
    printf("copy_status %s\n", vmgpu_status_name(rc));
    if (rc) printf("copy_error %s\n", vmgpu_dev_last_error(dev));
    printf("copy_bytes %u\n", bytes);
    printf("copy_tlb_misses %u\n", tlb_misses(dev) - m0);
    printf("copy_cycles %llu\n", (unsigned long long)(c1 - c0));
    vmgpu_phys_read(dev, dst_pa, back, BYTES);
    const char *expect = text + (unaligned ? 1 : 0);
    unsigned same = 0, first_diff = bytes;
    for (unsigned i = 0; i < bytes; i++) {
        if (back[i] == expect[i]) same++;
        else if (first_diff == bytes) first_diff = i;
    }
    printf("dst_matches_source %u of %u\n", same, bytes);
    if (first_diff < bytes) printf("dst_first_difference %u\n", first_diff);
    printf("dst_unchanged %s\n", memcmp(back, before, BYTES) ? "no" : "yes");
    /* What dma_through_mmu's own check would say (it compares with the source from byte 0). */
    printf("example_check %s\n", memcmp(back, text, bytes) == 0 ? "data matches" : "DATA DIFFERS");
    if (unaligned)
        printf("dst_last_byte_kept %s\n", back[BYTES - 1] == before[BYTES - 1] ? "yes" : "no");
    vmgpu_dev_close(dev);
    return 0;
}
