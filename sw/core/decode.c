/* Decoding command words into text (traces, tools, lessons): needs no device. */
#include <stdio.h>
#include <string.h>

#include "core_internal.h"

/* ------------------------------------------------------------------ decoding */

size_t vmgpu_cmd_decode(const uint32_t *w, size_t n, char *buf, size_t len)
{
    if (!w || n == 0 || !buf || len == 0) return 0;
    unsigned op = w[0] & 0xff, plen = (w[0] >> 8) & 0xff, flags = w[0] >> 16;
    size_t span = 1 + plen;
    const uint32_t *a = &w[1];
    if (span > n) {
        snprintf(buf, len, "%-10s (truncated: header 0x%08x)", op < VMGPU_OP_COUNT ?
                 vmgpu_op_names[op] : "?", w[0]);
        return n;
    }
    static const char *const inv_modes[] = {"all", "asid", "range", "?"};
    static const char *const fill_sizes[] = {"8", "16", "32", "?"};
    switch (op) {
    case VMGPU_OP_BIND_CTX:
        if (plen == 2) { snprintf(buf, len, "BIND_CTX   asid %u root pa 0x%08x", a[0], a[1]); break; }
        goto generic;
    case VMGPU_OP_FENCE:
        if (plen == 2) { snprintf(buf, len, "FENCE      value %u%s", a[0], flags & 1 ? " irq" : ""); break; }
        goto generic;
    case VMGPU_OP_PTE_FILL:
        if (plen == 4) {
            snprintf(buf, len, "PTE_FILL   pa 0x%08x count %u value 0x%08x +0x%x", a[0], a[1],
                     a[2], a[3]);
            break;
        }
        goto generic;
    case VMGPU_OP_WRITE_IMM:
        if (plen >= 2) {
            int k = snprintf(buf, len, "WRITE_IMM  pa 0x%08x:", a[0]);
            for (unsigned i = 1; i < plen && k > 0 && (size_t)k < len; i++)
                k += snprintf(buf + k, len - (size_t)k, " 0x%x", a[i]);
            break;
        }
        goto generic;
    case VMGPU_OP_TLB_INV:
        if (plen == 3) {
            snprintf(buf, len, "TLB_INV    mode %s, asid %u va 0x%08x size 0x%x", inv_modes[flags & 3],
                     a[0], a[1], a[2]);
            break;
        }
        goto generic;
    case VMGPU_OP_DMA_COPY:
        if (plen == 6) {
            snprintf(buf, len, "DMA_COPY   va 0x%08x -> va 0x%08x, %u x %u bytes (pitch %u -> %u)",
                     a[0], a[1], a[2], a[3], a[4], a[5]);
            break;
        }
        goto generic;
    case VMGPU_OP_DMA_FILL:
        if (plen == 5) {
            snprintf(buf, len, "DMA_FILL   va 0x%08x, %u x %u bytes (pitch %u) with %s-bit 0x%x",
                     a[0], a[1], a[2], a[3], fill_sizes[flags & 3], a[4]);
            break;
        }
        goto generic;
    case VMGPU_OP_LAUNCH:
        if (plen == 1) {
            snprintf(buf, len, "LAUNCH     kernel %s args va 0x%08x",
                     (flags & 0xff) < VMGPU_KERNEL_COUNT ? vmgpu_kernel_names[flags & 0xff] : "?", a[0]);
            break;
        }
        goto generic;
    case VMGPU_OP_TIMESTAMP:
        if (plen == 1) { snprintf(buf, len, "TIMESTAMP  -> pa 0x%08x", a[0]); break; }
        goto generic;
    case VMGPU_OP_WAIT_FENCE:
        if (plen == 2) { snprintf(buf, len, "WAIT_FENCE ring %u fence >= %u", a[0], a[1]); break; }
        goto generic;
    case VMGPU_OP_GFX_FILL:
        if (plen == 5) {
            snprintf(buf, len, "GFX_FILL   va 0x%08x, %u x %u pixels (pitch %u) with 0x%08x",
                     a[0], a[2], a[3], a[1], a[4]);
            break;
        }
        goto generic;
    case VMGPU_OP_GFX_BLIT:
    case VMGPU_OP_GFX_MIPGEN:
        if (plen == 8) {
            snprintf(buf, len, "%-10s va 0x%08x %u x %u (pitch %u) -> va 0x%08x %u x %u (pitch %u)",
                     vmgpu_op_names[op], a[0], a[2], a[3], a[1], a[4], a[6], a[7], a[5]);
            break;
        }
        goto generic;
    case VMGPU_OP_LAUNCH_PROG:
        if (plen == 8) {
            snprintf(buf, len, "LAUNCH_PROG code va 0x%08x args va 0x%08x grid %u x %u x %u block "
                     "%u x %u x %u shared %u stacks va 0x%08x (%u bytes each)", a[0], a[1], a[2],
                     a[3], a[4], a[5] & 0x3ff, (a[5] >> 10) & 0x3ff, (a[5] >> 20) & 0x3ff, a[6],
                     a[7], (flags & 0x1f) < 32 ? 1u << (flags & 0x1f) : 0);
            break;
        }
        goto generic;
    default:
    generic:
        snprintf(buf, len, "%-10s header 0x%08x (%u payload words)",
                 op < VMGPU_OP_COUNT ? vmgpu_op_names[op] : "?unknown", w[0], plen);
    }
    return span;
}
