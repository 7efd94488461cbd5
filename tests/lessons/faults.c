/*
 * lesson_faults: a fault, what survives it and how a context recovers (docs/lessons/07-faults-
 * and-recovery). Context A (ring 0) owns an 8 KiB buffer at the start of a 16 KiB reservation;
 * context B (ring 1) owns a buffer of its own. A queues three commands at once: a fill of the
 * buffer's first page, a 12 KiB fill that starts at its second page and runs off the end of
 * the mapping, and a last fill of the first page. Then the program looks at what happened:
 * which bytes were written, which command ran, what the fault registers said, what A's page
 * tables hold around the faulting address, what A and B can still do, and how A recovers.
 */
#include <stdio.h>
#include <string.h>

#include "vmgpu/core.h"

#define PAGE VMGPU_PAGE_SIZE

static vmgpu_dev *dev;

static int check(int rc, const char *what)
{
    if (rc) fprintf(stderr, "lesson_faults: %s: %s (%s)\n", what, vmgpu_status_name(rc), vmgpu_dev_last_error(dev));
    return rc;
}

static uint32_t word_at(uint32_t pa)
{
    uint32_t w = 0;
    vmgpu_phys_read(dev, pa, &w, 4);
    return w;
}

int main(int argc, char **argv)
{
    /* Variants for the lesson's "Try this": start the second fill on the first unmapped page,
     * map page 1 read-only, or never clear the fault. */
    const char *v = argc > 1 ? argv[1] : "";
    int start_unmapped = !strcmp(v, "--start-unmapped"), ro_page1 = !strcmp(v, "--ro-page1"),
        no_clear = !strcmp(v, "--no-clear");
    char err[256];
    if (vmgpu_dev_open(NULL, &dev, err, sizeof err)) {
        fprintf(stderr, "open: %s\n", err);
        return 1;
    }
    vmgpu_ctx *a, *b;
    vmgpu_stream *sa, *sb;
    uint32_t a_pa, a_va, b_pa, b_va;
    if (check(vmgpu_ctx_create(dev, 0, &a), "context A") || check(vmgpu_ctx_create(dev, 1, &b), "context B") ||
        check(vmgpu_stream_create(a, 0, &sa), "stream A") || check(vmgpu_stream_create(b, 1, &sb), "stream B") ||
        check(vmgpu_phys_alloc(dev, VMGPU_GRANULE, 0, &a_pa), "alloc A") ||
        check(vmgpu_phys_alloc(dev, VMGPU_GRANULE, 0, &b_pa), "alloc B") ||
        check(vmgpu_va_reserve(a, 4 * PAGE, 0, 0, &a_va), "reserve A") ||
        check(vmgpu_va_reserve(b, VMGPU_GRANULE, 0, 0, &b_va), "reserve B") ||
        check(vmgpu_map(a, a_va, a_pa, ro_page1 ? PAGE : 2 * PAGE, VMGPU_MAP_READ | VMGPU_MAP_WRITE), "map A") ||
        (ro_page1 && check(vmgpu_map(a, a_va + PAGE, a_pa + PAGE, PAGE, VMGPU_MAP_READ), "map A page 1")) ||
        check(vmgpu_map(b, b_va, b_pa, VMGPU_GRANULE, VMGPU_MAP_READ | VMGPU_MAP_WRITE), "map B"))
        return 1;
    printf("setup: A (asid %u, ring 0) maps va 0x%08x..0x%08x (2 pages) of a 4-page reservation; B (asid %u, "
           "ring 1) maps va 0x%08x\n", vmgpu_ctx_asid(a), a_va, a_va + 2 * PAGE - 1, vmgpu_ctx_asid(b), b_va);

    /* Three commands in one submit; the second runs off the mapping. */
    vmgpu_cmd_fill(sa, a_va, PAGE, 0x11, 1);
    vmgpu_cmd_fill(sa, a_va + (start_unmapped ? 2 : 1) * PAGE, 3 * PAGE, 0x22, 1);
    vmgpu_cmd_fill(sa, a_va, 16, 0x33, 1);
    int rc = vmgpu_stream_sync(sa);
    printf("submit: fill page 0 with 0x11, fill 12 KiB from page %d with 0x22, fill 16 bytes of page 0 with "
           "0x33 -> %s\n", start_unmapped ? 2 : 1, vmgpu_status_name(rc));
    printf("driver: %s\n", vmgpu_dev_last_error(dev));

    /* What was written. */
    printf("memory: page 0 word 0 = 0x%08x (the first fill ran; the third was dropped with the ring's queue)\n",
           word_at(a_pa));
    uint32_t p1 = word_at(a_pa + PAGE), p1_last = word_at(a_pa + 2 * PAGE - 4);
    printf("memory: page 1 first word 0x%08x, last word 0x%08x (%s)\n", p1, p1_last,
           p1 == 0x22222222u && p1_last == 0x22222222u ? "the second fill wrote all of page 1 before it faulted"
                                                       : "the second fill wrote nothing of page 1");
    printf("memory: the frame after it (pa 0x%08x, not mapped at va 0x%08x) holds 0x%08x: nothing reached it\n",
           a_pa + 2 * PAGE, a_va + 2 * PAGE, word_at(a_pa + 2 * PAGE));

    /* The page tables around the faulting address. */
    for (uint32_t va = a_va + PAGE; va <= a_va + 3 * PAGE; va += PAGE) {
        uint32_t pte = 0;
        vmgpu_query(a, va, &pte);
        printf("around: va 0x%08x PTE 0x%08x %s\n", va, pte, pte ? "(mapped)" : "(not mapped: inside the reservation, no page)");
    }

    /* A is faulted, sticky; B is not. */
    char msg[256] = "";
    int st = vmgpu_ctx_status(a, msg, sizeof msg);
    printf("A: status %s\n", vmgpu_status_name(st));
    uint32_t before = word_at(a_pa + 8);
    vmgpu_cmd_fill(sa, a_va + 8, 4, 0x44, 1);
    rc = vmgpu_stream_sync(sa);
    printf("A: a new fill -> %s, memory unchanged: %s\n", vmgpu_status_name(rc),
           word_at(a_pa + 8) == before ? "yes" : "no");
    uint32_t hostw = 0;
    rc = vmgpu_ctx_read(a, a_va + PAGE, &hostw, 4);
    printf("A: the host reads A's memory through A's mappings -> %s, 0x%08x (inspection works while faulted)\n",
           vmgpu_status_name(rc), hostw);
    vmgpu_cmd_fill(sb, b_va, PAGE, 0x55, 1);
    rc = vmgpu_stream_sync(sb);
    printf("B: a fill on ring 1 -> %s, word 0x%08x\n", vmgpu_status_name(rc), word_at(b_pa));

    if (no_clear) {
        vmgpu_cmd_fill(sa, a_va, 16, 0x66, 1);
        rc = vmgpu_stream_sync(sa);
        printf("A: not cleared: the same fill again -> %s\n", vmgpu_status_name(rc));
        rc = vmgpu_ctx_status(a, NULL, 0);
        printf("A: not cleared: status %s\n", vmgpu_status_name(rc));
        rc = vmgpu_stream_destroy(sa);
        printf("A: not cleared: vmgpu_stream_destroy -> %s, vmgpu_ctx_destroy -> %s\n", vmgpu_status_name(rc),
               vmgpu_status_name(vmgpu_ctx_destroy(a)));
        vmgpu_dev_close(dev);
        printf("lesson_faults: done\n");
        return 0;
    }
    /* Recovery: the application decides the fault is dealt with. */
    rc = vmgpu_ctx_clear_fault(a);
    printf("A: clear the fault -> %s; status now %s\n", vmgpu_status_name(rc), vmgpu_status_name(vmgpu_ctx_status(a, NULL, 0)));
    vmgpu_cmd_fill(sa, a_va, 16, 0x66, 1);
    rc = vmgpu_stream_sync(sa);
    printf("A: the same fill again -> %s, word 0x%08x; mappings kept: PTE of va 0x%08x still valid\n",
           vmgpu_status_name(rc), word_at(a_pa), a_va + PAGE);
    vmgpu_dev_close(dev);
    printf("lesson_faults: done\n");
    return 0;
}
