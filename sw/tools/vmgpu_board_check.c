/*
 * vmgpu-board-check: bring-up of a vmgpu device, step by step, with a verdict.
 *
 *   vmgpu-board-check [--device SPEC] [--full | --quick] [--seed N]
 *
 * Steps (each prints PASS/FAIL, its wall time and the link round trips it took; the first
 * failure ends the run with "verdict: FAILED at step N"):
 *   1 link        open the transport, read ID and VERSION
 *   2 registers   SCRATCH holds walking ones and zeros and two patterns
 *   3 memory      device memory through the bridge's burst path, before the driver uses it:
 *                 data bus (walking ones), address bus (a distinct word at every power-of-two
 *                 address: a stuck or shorted address line aliases two of them), banks and rows
 *                 (one word every 1 KiB — one row of a 16-bit, 512-column SDRAM — over the
 *                 first and last 64 KiB), random data (seeded; with --full, all of memory)
 *   4 dma         the driver core takes over: a DMA copy between two mappings, checked
 *   5 mmu         a translation read back from the page tables; a deliberate write into a
 *                 read-only page must fault WRITE_DENIED at the right address, and a second
 *                 context must still work afterwards (the device recovers without a reset)
 * --quick is the smoke test of a slow model (the gate-level check simulates the synthesised netlist,
 * board/ulx3s/gatelevel, some 50 times slower than sim-board): every step, smaller: six SCRATCH
 * patterns (every bit both ways), banks/rows over the first and last 8 KiB (all four banks, two
 * rows each), one random block of 1 KiB, a DMA copy of 1 KiB.
 * The device is whatever VMGPU_DEVICE (or --device) names: a board over serial or ftdi, or the
 * simulated ones. Exit status 0 only when every step passed.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vmgpu/core.h"
#include "vmgpu/regs.h"
#include "vmgpu_hal.h"

typedef struct {
    vmgpu_hal *hal;
    vmgpu_dev *dev;
    uint32_t mem_size;
    int full;
    int quick; /* --quick: the smaller smoke test (see the header) */
    uint64_t seed;
    int step;
    double t0;
    uint64_t rt0;
    char why[400];
} check;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t trips(const check *c) { return c->hal ? c->hal->round_trips : 0; }

static void begin(check *c, const char *name, const char *what)
{
    c->step++;
    c->why[0] = 0;
    c->t0 = now();
    c->rt0 = trips(c);
    printf("[%d] %-10s %s\n", c->step, name, what);
    fflush(stdout);
}

/* Prints the step's verdict; returns ok. */
static int end(check *c, int ok)
{
    printf("    %s  (%.3f s, %" PRIu64 " link round trips)%s%s\n", ok ? "PASS" : "FAIL", now() - c->t0,
           trips(c) - c->rt0, ok ? "" : ": ", ok ? "" : c->why);
    fflush(stdout);
    return ok;
}

#define FAILF(c, ...) (snprintf((c)->why, sizeof (c)->why, __VA_ARGS__), 0)

static uint64_t next_rand(uint64_t *s)
{
    /* xorshift64*: a fixed, seeded sequence, the same on every run with the same seed */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* ---------------------------------------------------------------- 1: link */

static int step_link(check *c, const char *spec)
{
    begin(c, "link", "open the transport, read ID and VERSION");
    char err[320];
    c->hal = vmgpu_hal_open(spec, err, sizeof err);
    if (!c->hal) return end(c, FAILF(c, "%s", err));
    uint32_t id = 0, ver = 0;
    if (vmgpu_reg_read(c->hal, VMGPU_REG_ID, &id) || vmgpu_reg_read(c->hal, VMGPU_REG_VERSION, &ver))
        return end(c, FAILF(c, "register read failed: %s", vmgpu_hal_last_error(c->hal)));
    if (id != 0x564D4750u) return end(c, FAILF(c, "ID is 0x%08x, not 0x564d4750 ('VMGP'): not a vmgpu", id));
    if (ver >> 16 != VMGPU_HW_VERSION >> 16)
        return end(c, FAILF(c, "hardware version %u.%u, this driver speaks %u.x", ver >> 16, ver & 0xffff,
                            VMGPU_HW_VERSION >> 16));
    printf("    transport %s, ID 0x%08x ('VMGP'), version %u.%u\n", c->hal->ops->name, id, ver >> 16,
           ver & 0xffff);
    return end(c, 1);
}

/* ---------------------------------------------------------------- 2: registers */

static int step_registers(check *c)
{
    begin(c, "registers", c->quick ? "SCRATCH: 0x55555555, 0xaaaaaaaa, all ones, zero, two counting patterns"
                                   : "SCRATCH: walking ones, walking zeros, 0x55555555, 0xaaaaaaaa");
    uint32_t pats[66];
    unsigned n = 0;
    if (c->quick) {
        static const uint32_t q[] = {0x55555555u, 0xaaaaaaaau, 0xffffffffu, 0u, 0x01234567u, 0xfedcba98u};
        for (unsigned i = 0; i < sizeof q / sizeof q[0]; i++) pats[n++] = q[i];
    } else {
        for (unsigned i = 0; i < 32; i++) pats[n++] = 1u << i;
        for (unsigned i = 0; i < 32; i++) pats[n++] = ~(1u << i);
        pats[n++] = 0x55555555u;
        pats[n++] = 0xaaaaaaaau;
    }
    for (unsigned i = 0; i < n; i++) {
        uint32_t v = 0;
        if (vmgpu_reg_write(c->hal, VMGPU_REG_SCRATCH, pats[i]) || vmgpu_reg_read(c->hal, VMGPU_REG_SCRATCH, &v))
            return end(c, FAILF(c, "link error: %s", vmgpu_hal_last_error(c->hal)));
        if (v != pats[i]) return end(c, FAILF(c, "SCRATCH wrote 0x%08x, read 0x%08x", pats[i], v));
    }
    if (vmgpu_reg_read(c->hal, VMGPU_REG_MEM_SIZE, &c->mem_size) || c->mem_size < 65536)
        return end(c, FAILF(c, "MEM_SIZE reads %u bytes", c->mem_size));
    printf("    %u patterns; device memory %u KiB\n", n, c->mem_size / 1024);
    return end(c, 1);
}

/* ---------------------------------------------------------------- 3: memory */

static int mem_put(check *c, uint32_t pa, const uint32_t *w, size_t n)
{
    return vmgpu_mem_write(c->hal, pa, w, n) ? FAILF(c, "write of %zu words at 0x%08x: %s", n, pa,
                                                     vmgpu_hal_last_error(c->hal)) : 1;
}

static int mem_get(check *c, uint32_t pa, uint32_t *w, size_t n)
{
    return vmgpu_mem_read(c->hal, pa, w, n) ? FAILF(c, "read of %zu words at 0x%08x: %s", n, pa,
                                                    vmgpu_hal_last_error(c->hal)) : 1;
}

static int mem_data_bus(check *c)
{
    uint32_t w[64], r[64];
    for (unsigned i = 0; i < 32; i++) {
        w[i] = 1u << i;
        w[32 + i] = ~(1u << i);
    }
    if (!mem_put(c, 0, w, 64) || !mem_get(c, 0, r, 64)) return 0;
    for (unsigned i = 0; i < 64; i++)
        if (r[i] != w[i])
            return FAILF(c, "data bus: word %u wrote 0x%08x read 0x%08x (bits 0x%08x differ)", i, w[i], r[i],
                         w[i] ^ r[i]);
    return 1;
}

/* Every power-of-two byte address (and 0) gets its own value; reading them all back after all
 * the writes finds two addresses that reach the same cell. */
static int mem_address_bus(check *c)
{
    uint32_t addrs[40];
    unsigned n = 0;
    addrs[n++] = 0;
    for (uint32_t a = 4; a < c->mem_size; a <<= 1) addrs[n++] = a;
    for (unsigned i = 0; i < n; i++) {
        uint32_t v = 0xa5000000u ^ addrs[i];
        if (!mem_put(c, addrs[i], &v, 1)) return 0;
    }
    for (unsigned i = 0; i < n; i++) {
        uint32_t v;
        if (!mem_get(c, addrs[i], &v, 1)) return 0;
        if (v != (0xa5000000u ^ addrs[i])) {
            for (unsigned j = 0; j < n; j++)
                if (v == (0xa5000000u ^ addrs[j]))
                    return FAILF(c, "address bus: 0x%08x reads what was written at 0x%08x (address bits "
                                    "0x%08x stuck or shorted)", addrs[i], addrs[j], addrs[i] ^ addrs[j]);
            return FAILF(c, "address bus: 0x%08x wrote 0x%08x read 0x%08x", addrs[i], 0xa5000000u ^ addrs[i], v);
        }
    }
    return 1;
}

/* One word every 1 KiB over the first and the last 64 KiB. */
static int mem_banks(check *c)
{
    const uint32_t span = c->quick ? 8192 : 65536, stride = 1024;
    uint32_t bases[2] = {0, c->mem_size - span};
    for (int pass = 0; pass < 2; pass++)
        for (int b = 0; b < 2; b++)
            for (uint32_t off = 0; off < span; off += stride) {
                uint32_t pa = bases[b] + off, want = (pa * 2654435761u) ^ 0x3c3c3c3cu, v;
                if (pass == 0) {
                    if (!mem_put(c, pa, &want, 1)) return 0;
                } else {
                    if (!mem_get(c, pa, &v, 1)) return 0;
                    if (v != want) return FAILF(c, "banks/rows: 0x%08x wrote 0x%08x read 0x%08x", pa, want, v);
                }
            }
    return 1;
}

/* Random words in 16 KiB blocks: 16 blocks at random places, or with --full every block; with
 * --quick the first 1 KiB of one block at a random place. */
static int mem_random(check *c, uint32_t *tested)
{
    enum { BLOCK = 16384, WORDS = BLOCK / 4 };
    static uint32_t w[WORDS], r[WORDS];
    uint32_t nblocks = c->mem_size / BLOCK, count = c->full ? nblocks : (nblocks < 16 ? nblocks : 16);
    const unsigned words = c->quick ? 256 : WORDS;
    if (c->quick) count = 1;
    uint64_t s = c->seed ? c->seed : 1;
    *tested = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t blk = c->full ? i : (uint32_t)(next_rand(&s) % nblocks);
        uint64_t bs = s;
        for (unsigned k = 0; k < words; k++) w[k] = (uint32_t)next_rand(&bs);
        if (!mem_put(c, blk * BLOCK, w, words) || !mem_get(c, blk * BLOCK, r, words)) return 0;
        for (unsigned k = 0; k < words; k++)
            if (r[k] != w[k])
                return FAILF(c, "random: 0x%08x wrote 0x%08x read 0x%08x (seed %" PRIu64 ")", blk * BLOCK + 4 * k,
                             w[k], r[k], c->seed);
        s = bs;
        *tested += words * 4;
        if (c->full && i % 256 == 255) {
            printf("    ... %u of %u KiB\n", (i + 1) * (BLOCK / 1024), nblocks * (BLOCK / 1024));
            fflush(stdout);
        }
    }
    return 1;
}

static int step_memory(check *c)
{
    begin(c, "memory", c->full    ? "data bus, address bus, banks/rows, random data over all of memory"
                       : c->quick ? "data bus, address bus, banks/rows (8 KiB), random data in one 1 KiB block"
                                  : "data bus, address bus, banks/rows, random data in 16 blocks (--full: all)");
    uint32_t tested = 0;
    int ok = mem_data_bus(c) && mem_address_bus(c) && mem_banks(c) && mem_random(c, &tested);
    if (ok) printf("    random data: %u KiB checked (seed %" PRIu64 ")\n", tested / 1024, c->seed);
    return end(c, ok);
}

/* ---------------------------------------------------------------- 4: dma */

static int step_dma(check *c)
{
    begin(c, "dma", c->quick ? "the driver core takes over; DMA copy of 1 KiB between two mappings"
                             : "the driver core takes over; DMA copy of 64 KiB between two mappings");
    char err[320];
    if (vmgpu_dev_open_hal(c->hal, 1, NULL, &c->dev, err, sizeof err))
        return end(c, FAILF(c, "driver core: %s", err));
    enum { NMAX = 65536 };
    const uint32_t N = c->quick ? 1024 : NMAX;
    vmgpu_ctx *ctx = NULL;
    vmgpu_stream *s = NULL;
    uint32_t src_pa, dst_pa, src_va, dst_va;
    int rc = vmgpu_ctx_create(c->dev, 0, &ctx);
    if (!rc) rc = vmgpu_stream_create(ctx, 0, &s);
    /* The mappings are 64 KiB either way (allocations come in pages and granules); --quick
     * copies only the first N bytes of them. */
    if (!rc) rc = vmgpu_phys_alloc(c->dev, NMAX, 0, &src_pa);
    if (!rc) rc = vmgpu_phys_alloc(c->dev, NMAX, 0, &dst_pa);
    if (!rc) rc = vmgpu_va_reserve(ctx, NMAX, 0, 0, &src_va);
    if (!rc) rc = vmgpu_va_reserve(ctx, NMAX, 0, 0, &dst_va);
    if (!rc) rc = vmgpu_map(ctx, src_va, src_pa, NMAX, VMGPU_MAP_READ);
    if (!rc) rc = vmgpu_map(ctx, dst_va, dst_pa, NMAX, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    static uint32_t w[NMAX / 4], r[NMAX / 4];
    uint64_t st = c->seed ^ 0x9e3779b97f4a7c15ull;
    for (unsigned i = 0; i < N / 4; i++) w[i] = (uint32_t)next_rand(&st);
    uint64_t cyc0 = 0, cyc1 = 0;
    if (!rc) rc = vmgpu_phys_write(c->dev, src_pa, w, N);
    if (!rc) rc = vmgpu_dev_cycles(c->dev, &cyc0);
    if (!rc) rc = vmgpu_cmd_copy(s, dst_va, src_va, N);
    if (!rc) rc = vmgpu_stream_sync(s);
    if (!rc) rc = vmgpu_dev_cycles(c->dev, &cyc1);
    if (!rc) rc = vmgpu_phys_read(c->dev, dst_pa, r, N);
    if (rc) return end(c, FAILF(c, "%s: %s", vmgpu_status_name(rc), vmgpu_dev_last_error(c->dev)));
    for (unsigned i = 0; i < N / 4; i++)
        if (r[i] != w[i])
            return end(c, FAILF(c, "copy: word %u (pa 0x%08x) is 0x%08x, source 0x%08x", i, dst_pa + 4 * i, r[i], w[i]));
    printf("    va 0x%08x -> 0x%08x (pa 0x%08x -> 0x%08x): %u bytes in %" PRIu64 " device cycles (with the sync)\n",
           src_va, dst_va, src_pa, dst_pa, N, cyc1 - cyc0);
    vmgpu_ctx_destroy(ctx);
    vmgpu_phys_free(c->dev, src_pa);
    vmgpu_phys_free(c->dev, dst_pa);
    return end(c, 1);
}

/* ---------------------------------------------------------------- 5: mmu */

static int step_mmu(check *c)
{
    begin(c, "mmu", "a translation from the page tables; a write into a read-only page must fault");
    vmgpu_ctx *ctx = NULL, *other = NULL;
    vmgpu_stream *s = NULL, *s2 = NULL;
    uint32_t pa, va, pte = 0;
    int rc = vmgpu_ctx_create(c->dev, 0, &ctx);
    if (!rc) rc = vmgpu_stream_create(ctx, 0, &s);
    if (!rc) rc = vmgpu_phys_alloc(c->dev, VMGPU_GRANULE, 0, &pa);
    if (!rc) rc = vmgpu_va_reserve(ctx, VMGPU_GRANULE, 0, 0, &va);
    if (!rc) rc = vmgpu_map(ctx, va, pa, VMGPU_GRANULE, VMGPU_MAP_READ);
    if (!rc) rc = vmgpu_query(ctx, va + 0x3004, &pte);
    if (rc) return end(c, FAILF(c, "%s: %s", vmgpu_status_name(rc), vmgpu_dev_last_error(c->dev)));
    uint32_t frame_pa = (pte >> VMGPU_PTE_FRAME_SHIFT) << 12;
    if (!(pte & VMGPU_PTE_V) || frame_pa != pa + 0x3000 || (pte & VMGPU_PTE_W))
        return end(c, FAILF(c, "PTE of va 0x%08x is 0x%08x: wanted valid, read-only, frame of pa 0x%08x",
                            va + 0x3004, pte, pa + 0x3000));
    printf("    va 0x%08x -> PTE 0x%08x (pa 0x%08x, read-only)\n", va + 0x3004, pte, frame_pa + 4);
    rc = vmgpu_cmd_fill(s, va + 0x3000, 4096, 0xdeadbeefu, 4);
    if (!rc) rc = vmgpu_stream_sync(s);
    const char *msg = vmgpu_dev_last_error(c->dev);
    char want[64];
    snprintf(want, sizeof want, "%08x", va + 0x3000);
    if (rc != VMGPU_ERR_FAULT || !strstr(msg, "WRITE_DENIED") || !strstr(msg, want))
        return end(c, FAILF(c, "the fill into a read-only page answered %s (%s), not a WRITE_DENIED fault at 0x%s",
                            vmgpu_status_name(rc), msg, want));
    printf("    fault as expected: %s\n", msg);
    /* The device recovers: another context still copies. */
    uint32_t pa2, va2, word = 0;
    rc = vmgpu_ctx_create(c->dev, 0, &other);
    if (!rc) rc = vmgpu_stream_create(other, 0, &s2);
    if (!rc) rc = vmgpu_phys_alloc(c->dev, VMGPU_GRANULE, 0, &pa2);
    if (!rc) rc = vmgpu_va_reserve(other, VMGPU_GRANULE, 0, 0, &va2);
    if (!rc) rc = vmgpu_map(other, va2, pa2, VMGPU_GRANULE, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    if (!rc) rc = vmgpu_cmd_fill(s2, va2, 4096, 0x600dcafeu, 4);
    if (!rc) rc = vmgpu_stream_sync(s2);
    if (!rc) rc = vmgpu_phys_read(c->dev, pa2 + 4092, &word, 4);
    if (rc || word != 0x600dcafeu)
        return end(c, FAILF(c, "after the fault, another context's fill: %s, word 0x%08x", vmgpu_status_name(rc), word));
    printf("    another context runs on after the fault (fill read back 0x%08x)\n", word);
    vmgpu_ctx_destroy(ctx);
    vmgpu_ctx_destroy(other);
    vmgpu_phys_free(c->dev, pa);
    vmgpu_phys_free(c->dev, pa2);
    return end(c, 1);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: vmgpu-board-check [--device SPEC] [--full | --quick] [--seed N]\n"
               "  --device SPEC  sim | sim-board | serial:/dev/ttyUSB0[@baud] | ftdi[:vid:pid[:serial]]\n"
               "                 (default: VMGPU_DEVICE, else sim)\n"
               "  --full         test all of device memory with random data (slow over a serial link)\n"
               "  --quick        every step, smaller (the gate-level smoke test of a slow model)\n"
               "  --seed N       seed of the random data (default 1)\n");
}

int main(int argc, char **argv)
{
    check c;
    memset(&c, 0, sizeof c);
    c.seed = 1;
    const char *spec = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) spec = argv[++i];
        else if (!strcmp(argv[i], "--full")) c.full = 1;
        else if (!strcmp(argv[i], "--quick")) c.quick = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) c.seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "vmgpu-board-check: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (c.full && c.quick) {
        fprintf(stderr, "vmgpu-board-check: --full and --quick exclude each other\n");
        usage(stderr);
        return 2;
    }
    printf("vmgpu-board-check: device %s\n", spec ? spec : getenv("VMGPU_DEVICE") ? getenv("VMGPU_DEVICE") : "sim");
    double start = now();
    int ok = step_link(&c, spec) && step_registers(&c) && step_memory(&c) && step_dma(&c) && step_mmu(&c);
    if (ok) printf("verdict: PASSED, 5 of 5 steps (%.1f s)\n", now() - start);
    else printf("verdict: FAILED at step %d\n", c.step);
    if (c.dev) vmgpu_dev_close(c.dev);
    else if (c.hal) vmgpu_hal_close(c.hal);
    return ok ? 0 : 1;
}
