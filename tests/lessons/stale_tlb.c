/*
 * lesson_stale_tlb: what a TLB entry does when the PTE behind it changes and nobody invalidates
 * (docs/lessons/05-a-stale-tlb). Four experiments on one page of VA, each printing what the DMA
 * engine read and what the TLB counters said:
 *
 *  1. remap without invalidation (VMGPU_MAP_NO_TLB_INV): the PTE names the new frame, the copy
 *     still reads the old one; sixteen other pages later the entry is evicted and the new frame
 *     appears;
 *  2. the same remap with its TLB_INV: the next copy reads the new frame at once;
 *  3. an unmap without invalidation (a raw PTE_FILL of 0): the page is gone from the page table,
 *     the copy still succeeds through the stale entry; after the TLB_INV it faults PTE_INVALID;
 *  4. why the invalidation is a command in the stream: copy / remap / copy queued together and
 *     submitted at once read old then new; with the remap's invalidation left out, both read old.
 *
 * Output lines are "name: ..." for the lesson and its generator (tools/lesson_facts.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmgpu/core.h"
#include "vmgpu/regs.h"

#define PAGE VMGPU_PAGE_SIZE

static vmgpu_dev *dev;
static vmgpu_ctx *ctx;
static vmgpu_stream *s;
static uint32_t va, pa_old, pa_new, dst_va, dst_pa, other_va;

static uint32_t reg(uint32_t off)
{
    uint32_t v = 0;
    vmgpu_reg_read(vmgpu_dev_hal(dev), off, &v);
    return v;
}

static int check(int rc, const char *what)
{
    if (rc) fprintf(stderr, "lesson_stale_tlb: %s: %s (%s)\n", what, vmgpu_status_name(rc), vmgpu_dev_last_error(dev));
    return rc;
}

/* Copy the first word of va into dst (by VA, through the MMU) and return it; *walks gets the
 * TLB misses the copy caused. */
static uint32_t read_through_mmu(unsigned *walks, int *status)
{
    uint32_t m0 = reg(VMGPU_REG_TLB_MISSES), w = 0;
    int rc = vmgpu_cmd_copy(s, dst_va, va, 4);
    if (!rc) rc = vmgpu_stream_sync(s);
    if (status) *status = rc;
    if (walks) *walks = reg(VMGPU_REG_TLB_MISSES) - m0;
    vmgpu_phys_read(dev, dst_pa, &w, 4);
    return w;
}

static uint32_t pte_now(void)
{
    uint32_t pte = 0;
    vmgpu_query(ctx, va, &pte);
    return pte;
}

static void fill_frame(uint32_t pa, uint32_t word)
{
    static uint32_t buf[PAGE / 4];
    for (unsigned i = 0; i < PAGE / 4; i++) buf[i] = word;
    vmgpu_phys_write(dev, pa, buf, PAGE);
}

/* The PTE's physical address, from the page directory in device memory. */
static uint32_t pte_address(void)
{
    uint32_t pde = 0;
    vmgpu_phys_read(dev, vmgpu_ctx_root(ctx) + (va >> 22) * 4, &pde, 4);
    return (pde & ~(PAGE - 1)) + ((va >> 12) & 0x3ff) * 4;
}

int main(int argc, char **argv)
{
    unsigned touch = 16;  /* --touch N: how many other pages experiment 1 reads */
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--touch")) touch = (unsigned)atoi(argv[i + 1]);
    if (touch > 32) touch = 32;
    char err[256];
    /* This lesson plays the kernel driver: it writes a PTE and invalidates the TLB with raw
     * commands, which the device server refuses from a process. So the device is opened in this
     * process (VMGPU_SERVER=0), whatever VMGPU_DEVICE names. */
    setenv("VMGPU_SERVER", "0", 1);
    if (vmgpu_dev_open(NULL, &dev, err, sizeof err)) {
        fprintf(stderr, "open: %s\n", err);
        return 1;
    }
    uint32_t other_pa;
    if (check(vmgpu_ctx_create(dev, 0, &ctx), "context") || check(vmgpu_stream_create(ctx, 0, &s), "stream") ||
        check(vmgpu_phys_alloc(dev, VMGPU_GRANULE, 0, &pa_old), "alloc") ||
        check(vmgpu_phys_alloc(dev, VMGPU_GRANULE, 0, &pa_new), "alloc") ||
        check(vmgpu_phys_alloc(dev, VMGPU_GRANULE, 0, &dst_pa), "alloc") ||
        check(vmgpu_phys_alloc(dev, 2 * VMGPU_GRANULE, 0, &other_pa), "alloc") ||
        check(vmgpu_va_reserve(ctx, VMGPU_GRANULE, 0, 0, &va), "reserve") ||
        check(vmgpu_va_reserve(ctx, VMGPU_GRANULE, 0, 0, &dst_va), "reserve") ||
        check(vmgpu_va_reserve(ctx, 2 * VMGPU_GRANULE, 0, 0, &other_va), "reserve") ||
        check(vmgpu_map(ctx, va, pa_old, PAGE, VMGPU_MAP_READ), "map") ||
        check(vmgpu_map(ctx, dst_va, dst_pa, PAGE, VMGPU_MAP_READ | VMGPU_MAP_WRITE), "map") ||
        check(vmgpu_map(ctx, other_va, other_pa, 2 * VMGPU_GRANULE, VMGPU_MAP_READ), "map"))
        return 1;
    fill_frame(pa_old, 0x01d01d01u);
    fill_frame(pa_new, 0x0e770e77u);
    printf("setup: va 0x%08x -> old frame pa 0x%08x (every word 0x01d01d01); new frame pa 0x%08x (every word "
           "0x0e770e77); the PTE is at pa 0x%08x\n", va, pa_old, pa_new, pte_address());

    /* 1. Remap without invalidation. */
    unsigned walks;
    uint32_t w = read_through_mmu(&walks, NULL);
    printf("1. first read: 0x%08x (%u TLB misses, this page's and the destination's: the walks filled both "
           "entries, PTE 0x%08x)\n", w, walks, pte_now());
    if (check(vmgpu_map(ctx, va, pa_new, PAGE, VMGPU_MAP_READ | VMGPU_MAP_REPLACE | VMGPU_MAP_NO_TLB_INV), "remap"))
        return 1;
    uint32_t pte_dev = 0;
    vmgpu_phys_read(dev, pte_address(), &pte_dev, 4);
    w = read_through_mmu(&walks, NULL);
    printf("1. remapped without TLB_INV: PTE in device memory 0x%08x (new frame); read: 0x%08x (%u TLB misses: "
           "the stale entry answered)\n", pte_dev, w, walks);
    /* Touch other pages: round-robin replacement evicts the stale entry sooner or later. */
    unsigned touched = 0;
    for (uint32_t k = 0; k < touch; k++, touched++) {
        if (vmgpu_cmd_copy(s, dst_va + 4, other_va + k * PAGE, 4)) break;
    }
    vmgpu_stream_sync(s);
    w = read_through_mmu(&walks, NULL);
    printf("1. after touching %u other pages: read 0x%08x (%u TLB miss%s)\n", touched, w, walks,
           walks ? ": the entry was evicted, the walk found the new PTE" : "es: the stale entry is still there");

    /* 2. The same remap with its invalidation. */
    vmgpu_map(ctx, va, pa_old, PAGE, VMGPU_MAP_READ | VMGPU_MAP_REPLACE);
    w = read_through_mmu(&walks, NULL);
    printf("2. back on the old frame (with TLB_INV): read 0x%08x\n", w);
    vmgpu_map(ctx, va, pa_new, PAGE, VMGPU_MAP_READ | VMGPU_MAP_REPLACE);
    w = read_through_mmu(&walks, NULL);
    printf("2. remapped with TLB_INV: read 0x%08x (%u TLB miss: the entry was dropped, the walk found the new "
           "PTE)\n", w, walks);

    /* 3. An unmap without invalidation: zero the PTE with a raw PTE_FILL, no TLB_INV. */
    uint32_t zero[5] = {VMGPU_CMD_HEADER(VMGPU_OP_PTE_FILL, 4, 0), pte_address(), 1, 0, 0};
    int st;
    if (check(vmgpu_cmd_raw(s, zero, 5), "raw PTE_FILL") || check(vmgpu_stream_sync(s), "sync")) return 1;
    vmgpu_phys_read(dev, pte_address(), &pte_dev, 4);
    w = read_through_mmu(&walks, &st);
    printf("3. PTE zeroed without TLB_INV: PTE in device memory 0x%08x; read: 0x%08x, %s (%u TLB misses: the "
           "page is unmapped and still readable)\n", pte_dev, w, vmgpu_status_name(st), walks);
    uint32_t inv[4] = {VMGPU_CMD_HEADER(VMGPU_OP_TLB_INV, 3, VMGPU_INV_RANGE), vmgpu_ctx_asid(ctx), va, PAGE};
    if (check(vmgpu_cmd_raw(s, inv, 4), "raw TLB_INV") || check(vmgpu_stream_sync(s), "sync")) return 1;
    read_through_mmu(&walks, &st);
    char msg[256] = "";
    vmgpu_ctx_status(ctx, msg, sizeof msg);
    printf("3. after the TLB_INV: %s: %s\n", vmgpu_status_name(st), msg);
    vmgpu_ctx_clear_fault(ctx);
    /* The driver's shadow still says mapped (the raw command went around it): put it back. */
    vmgpu_map(ctx, va, pa_old, PAGE, VMGPU_MAP_READ | VMGPU_MAP_REPLACE);

    /* 4. Order in the stream: copy, remap (PTE_FILL + TLB_INV), copy, all submitted at once. */
    read_through_mmu(NULL, NULL);  /* the TLB holds va -> old */
    for (int variant = 0; variant < 2; variant++) {
        uint32_t a = 0, b = 0;
        vmgpu_cmd_copy(s, dst_va, va, 4);
        vmgpu_stream_map(s, va, variant ? pa_old : pa_new, PAGE,
                         VMGPU_MAP_READ | VMGPU_MAP_REPLACE | (variant ? VMGPU_MAP_NO_TLB_INV : 0));
        vmgpu_cmd_copy(s, dst_va + 8, va, 4);
        if (check(vmgpu_stream_sync(s), "ordered sync")) return 1;
        vmgpu_phys_read(dev, dst_pa, &a, 4);
        vmgpu_phys_read(dev, dst_pa + 8, &b, 4);
        if (!variant)
            printf("4. copy, remap to new with TLB_INV, copy, one submit: first copy 0x%08x, second 0x%08x\n", a, b);
        else
            printf("4. copy, remap back to old without TLB_INV, copy, one submit: first copy 0x%08x, second 0x%08x "
                   "(the PTE says old)\n", a, b);
    }
    vmgpu_dev_close(dev);
    printf("lesson_stale_tlb: done\n");
    return 0;
}
