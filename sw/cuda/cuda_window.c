/*
 * The device address window, [CU_VA_LO, CU_VA_HI), kept out of the host process.
 *
 * CUDA's unified addressing lets cuMemcpy and friends tell a device pointer from a host
 * pointer by its value alone. NVIDIA's driver can, because it reserves its whole device range
 * in the host process: no host allocation can ever land at a device address. vmgpu does the
 * same at cuInit: one PROT_NONE, MAP_NORESERVE mapping over the window (address space only, no
 * memory). From then on an address inside a reserved piece of the window is never host memory:
 * when no device mapping covers it, it is a device address that is not mapped (freed, or a hole
 * of a reservation), and the copy is refused instead of reading or writing whatever host memory
 * happened to be there.
 *
 * Part of the window may be taken before cuInit: a non-PIE program's heap, another library's
 * fixed mapping, or a sanitizer's shadow memory (AddressSanitizer's low shadow and shadow gap
 * start at 0x7fff8000). Then only the free gaps are reserved, the VA allocator places device
 * memory inside them only, and the trace says how much is missing. If nothing can be reserved
 * (an address-space limit, a kernel without MAP_FIXED_NOREPLACE), the library works as before
 * and says so in the trace: device addresses may then coincide with host memory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "cuda_internal.h"
#include "cuda_priv.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000 /* Linux 4.17; older kernels take it as a hint */
#endif

#define WIN_PIECES 64

static struct { uint64_t lo, hi; } g_piece[WIN_PIECES];  /* reserved, ascending, disjoint */
static unsigned g_npieces;
static int g_tried;

/* Reserve [lo, hi) if nothing is there; 1 when reserved. */
static int reserve_exact(uint64_t lo, uint64_t hi)
{
    void *want = (void *)(uintptr_t)lo;
    void *p = mmap(want, hi - lo, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
                   -1, 0);
    if (p == MAP_FAILED) return 0;
    if (p != want) {  /* a kernel that ignored MAP_FIXED_NOREPLACE put it elsewhere */
        munmap(p, hi - lo);
        return 0;
    }
    if (g_npieces == WIN_PIECES) {
        munmap(p, hi - lo);
        return 0;
    }
    g_piece[g_npieces].lo = lo;
    g_piece[g_npieces].hi = hi;
    g_npieces++;
    return 1;
}

/* Part of the window is taken: reserve the gaps /proc/self/maps shows, in ascending order. */
static void reserve_gaps(void)
{
    FILE *f = fopen("/proc/self/maps", "re");
    if (!f) return;
    uint64_t gaps[WIN_PIECES][2];
    unsigned n = 0;
    uint64_t cur = CU_VA_LO;
    char line[8192];  /* longer than any path, so a line is never read in two parts */
    while (cur < CU_VA_HI && fgets(line, sizeof line, f)) {
        uint64_t s, e;
        if (sscanf(line, "%" SCNx64 "-%" SCNx64, &s, &e) != 2 || e <= cur) continue;
        if (s >= CU_VA_HI) break;
        if (s > cur && n < WIN_PIECES) {
            gaps[n][0] = cur;
            gaps[n][1] = s;
            n++;
        }
        cur = e;
    }
    fclose(f);
    if (cur < CU_VA_HI && n < WIN_PIECES) {
        gaps[n][0] = cur;
        gaps[n][1] = CU_VA_HI;
        n++;
    }
    /* Device memory is placed by granules: a gap's ragged edges are of no use. */
    for (unsigned i = 0; i < n; i++) {
        uint64_t lo = (gaps[i][0] + VMGPU_GRANULE - 1) & ~(uint64_t)(VMGPU_GRANULE - 1);
        uint64_t hi = gaps[i][1] & ~(uint64_t)(VMGPU_GRANULE - 1);
        if (lo < hi) reserve_exact(lo, hi);
    }
}

void cu_window_reserve(void)
{
    if (g_tried) return;
    g_tried = 1;
    if (reserve_exact(CU_VA_LO, CU_VA_HI)) {
        cu_trace("device address window 0x%08llx-0x%09llx reserved in the host process: no host "
                 "memory can sit at a device address", CU_VA_LO, CU_VA_HI);
        return;
    }
    int err = errno;
    reserve_gaps();
    uint64_t got = 0;
    for (unsigned i = 0; i < g_npieces; i++) got += g_piece[i].hi - g_piece[i].lo;
    if (!g_npieces) {
        cu_trace("device address window 0x%08llx-0x%09llx NOT reserved (%s): device addresses may "
                 "coincide with host memory, and cuMemcpy takes an unmapped one for a host pointer",
                 CU_VA_LO, CU_VA_HI, strerror(err));
        return;
    }
    cu_trace("device address window 0x%08llx-0x%09llx partly taken by the host process: %" PRIu64
             " MiB reserved in %u pieces, %" PRIu64 " MiB in use by the host (device memory is placed "
             "only in the reserved pieces)", CU_VA_LO, CU_VA_HI, got >> 20, g_npieces,
             (uint64_t)(CU_VA_HI - CU_VA_LO - got) >> 20);
}

uint64_t cu_window_next(uint64_t va, uint64_t size)
{
    if (!g_npieces) return 0;  /* nothing reserved: the whole window, as before */
    for (unsigned i = 0; i < g_npieces; i++) {
        if (va >= g_piece[i].lo && va + size <= g_piece[i].hi) return 0;
        if (g_piece[i].lo > va) return g_piece[i].lo;
    }
    return CU_VA_HI;
}

int cu_window_owns(uint64_t va, uint64_t n)
{
    uint64_t end = va + (n ? n : 1);
    if (end < va) end = UINT64_MAX;
    for (unsigned i = 0; i < g_npieces; i++)
        if (va < g_piece[i].hi && g_piece[i].lo < end) return 1;
    return 0;
}
