/*
 * dma_through_mmu: the smallest complete vmgpu program.
 *
 * It creates an address space (context), maps two device buffers into it, fills one from the
 * host, lets the DMA engine copy it to the other through the MMU, and reads the result back.
 * Run it with VMGPU_TRACE=1 to see every command the driver queued, every PTE it wrote and the
 * TLB fills the hardware reported while the copy ran.
 */
#include <stdio.h>
#include <string.h>

#include "vmgpu/core.h"

#define BYTES (2 * VMGPU_GRANULE)  /* 128 KiB: 32 pages of 4 KiB */

int main(void)
{
    char err[256];
    vmgpu_dev *dev;
    /* VMGPU_DEVICE picks the device; unset means the in-process Verilator model. */
    if (vmgpu_dev_open(NULL, &dev, err, sizeof err)) {
        fprintf(stderr, "open: %s\n", err);
        return 1;
    }
    vmgpu_ctx *ctx;
    vmgpu_stream *stream;
    uint32_t src_pa, dst_pa, src_va, dst_va;
    int rc = vmgpu_ctx_create(dev, 0, &ctx);  /* an ASID and an empty page directory */
    if (!rc) rc = vmgpu_stream_create(ctx, 0, &stream);  /* its commands go to ring 0 */
    /* Device memory comes in 64 KiB granules; virtual addresses are reserved separately, and
     * only a map call connects the two (that is all cuMemMap does). */
    if (!rc) rc = vmgpu_phys_alloc(dev, BYTES, 0, &src_pa);
    if (!rc) rc = vmgpu_phys_alloc(dev, BYTES, 0, &dst_pa);
    if (!rc) rc = vmgpu_va_reserve(ctx, BYTES, 0, 0, &src_va);
    if (!rc) rc = vmgpu_va_reserve(ctx, BYTES, 0, 0, &dst_va);
    /* Each map call writes the page tables with PTE_FILL commands in the ring: one burst over
     * the link and one fence, however many pages. The source is read-only for the device. */
    if (!rc) rc = vmgpu_map(ctx, src_va, src_pa, BYTES, VMGPU_MAP_READ);
    if (!rc) rc = vmgpu_map(ctx, dst_va, dst_pa, BYTES, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    if (rc) {
        fprintf(stderr, "setup: %s\n", vmgpu_dev_last_error(dev));
        return 1;
    }
    printf("context asid %u: src va 0x%08x -> pa 0x%08x, dst va 0x%08x -> pa 0x%08x (%u KiB each)\n",
           vmgpu_ctx_asid(ctx), src_va, src_pa, dst_va, dst_pa, BYTES / 1024);

    /* Fill the source from the host (by physical address: the device may not write it). */
    static char text[BYTES];
    for (unsigned i = 0; i < BYTES; i++) text[i] = "vmgpu maps memory. "[i % 19];
    rc = vmgpu_phys_write(dev, src_pa, text, BYTES);

    /* The copy names virtual addresses only; the MMU translates every access. */
    if (!rc) rc = vmgpu_cmd_copy(stream, dst_va, src_va, BYTES);
    if (!rc) rc = vmgpu_stream_sync(stream);  /* FENCE, doorbell, bounded wait */
    if (rc) {
        fprintf(stderr, "copy: %s\n", vmgpu_dev_last_error(dev));
        return 1;
    }
    static char back[BYTES];
    rc = vmgpu_ctx_read(ctx, dst_va, back, BYTES);  /* through the driver's PTE shadow */
    uint32_t pte = 0;
    vmgpu_query(ctx, dst_va, &pte);
    printf("copied %u bytes through the MMU: %s\n", BYTES,
           !rc && memcmp(back, text, BYTES) == 0 ? "data matches" : "DATA DIFFERS");
    printf("PTE of dst va 0x%08x: 0x%08x (frame 0x%05x%s%s%s)\n", dst_va, pte, pte >> 12,
           pte & 1 ? ", valid" : "", pte & 2 ? ", readable" : "", pte & 4 ? ", writable" : "");

    /* Writing the read-only source faults; the driver names the command and the reason. */
    vmgpu_cmd_copy(stream, src_va, dst_va, 16);
    rc = vmgpu_stream_sync(stream);
    printf("copy into the read-only buffer -> %s:\n  %s\n", vmgpu_status_name(rc), vmgpu_dev_last_error(dev));
    vmgpu_dev_close(dev);
    return 0;
}
