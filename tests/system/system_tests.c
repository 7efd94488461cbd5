/*
 * System tests: the driver core (sw/core) on the whole Verilator model of vmgpu_top, through
 * the "sim" transport. One executable, one ctest test per case: `vmgpu_system_tests <case>`.
 * Every case prints what it checked and exits nonzero on any failure; every wait is bounded by
 * the core (VMGPU_TIMEOUT_CYCLES), so a broken device fails instead of hanging.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmgpu/core.h"
#include "vmgpu/regs.h"

static int fails;
#define CHECK(c) do { if (!(c)) { printf("  FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)
#define CHECK_RC(call, want) do { int rc_ = (call); if (rc_ != (want)) { \
    printf("  FAIL %s:%d: %s -> %s, want %s (%s)\n", __FILE__, __LINE__, #call, \
           vmgpu_status_name(rc_), vmgpu_status_name(want), vmgpu_dev_last_error(g_dev)); fails++; } } while (0)
#define OK(call) CHECK_RC(call, VMGPU_OK)
#define NOTE(...) do { printf("  "); printf(__VA_ARGS__); printf("\n"); } while (0)

static vmgpu_dev *g_dev;
#define PAGE VMGPU_PAGE_SIZE
#define GRAN VMGPU_GRANULE

static void open_dev(const vmgpu_dev_options *opt)
{
    char err[256];
    int rc = vmgpu_dev_open_ex(NULL, opt, &g_dev, err, sizeof err);
    if (rc) {
        printf("FAIL: cannot open the device: %s (%s)\n", err, vmgpu_status_name(rc));
        exit(1);
    }
}

static void *page_alloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, PAGE, bytes)) return NULL;
    memset(p, 0, bytes);
    return p;
}

/* A context with `bytes` of device memory mapped RW at a fresh VA. */
typedef struct buf { uint32_t va, pa, size; } buf;
static buf dev_buf(vmgpu_ctx *c, uint32_t bytes, unsigned flags)
{
    buf b = {0, 0, bytes};
    OK(vmgpu_phys_alloc(g_dev, bytes, 0, &b.pa));
    OK(vmgpu_va_reserve(c, bytes, 0, 0, &b.va));
    OK(vmgpu_map(c, b.va, b.pa, bytes, flags));
    return b;
}

static uint32_t pattern_word(uint32_t i, uint32_t seed) { return i * 2654435761u ^ seed; }

/* ------------------------------------------------------------------ cases */

/* Host buffer (host aperture) -> device memory -> another host buffer, all through the MMU. */
static void t_copy_host_device_host(void)
{
    open_dev(NULL);
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    const uint32_t n = 5 * PAGE + GRAN;  /* crosses pages and granules */
    uint32_t bytes = (n + GRAN - 1) / GRAN * GRAN;
    uint8_t *src = page_alloc(bytes), *dst = page_alloc(bytes);
    for (uint32_t i = 0; i < bytes / 4; i++) ((uint32_t *)src)[i] = pattern_word(i, 0x1234);
    memset(dst, 0xee, bytes);
    uint32_t hs, hd, vs, vd;
    OK(vmgpu_host_register(g_dev, src, bytes, &hs));
    OK(vmgpu_host_register(g_dev, dst, bytes, &hd));
    OK(vmgpu_va_reserve(c, bytes, 0, 0, &vs));
    OK(vmgpu_va_reserve(c, bytes, 0, 0, &vd));
    OK(vmgpu_map(c, vs, hs, bytes, VMGPU_MAP_READ | VMGPU_MAP_HOST));
    OK(vmgpu_map(c, vd, hd, bytes, VMGPU_MAP_READ | VMGPU_MAP_WRITE | VMGPU_MAP_HOST));
    buf d = dev_buf(c, bytes, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    OK(vmgpu_cmd_copy(s, d.va, vs + 3, n));      /* odd offset: byte alignment */
    OK(vmgpu_cmd_copy(s, vd + 1, d.va, n));
    OK(vmgpu_stream_sync(s));
    CHECK(memcmp(dst + 1, src + 3, n) == 0);
    CHECK(dst[0] == 0xee && dst[n + 1] == 0xee);
    /* The device copy is also readable by VA through the shadow. */
    uint8_t *chk = malloc(n);
    OK(vmgpu_ctx_read(c, d.va, chk, n));
    CHECK(memcmp(chk, src + 3, n) == 0);
    NOTE("host(%u bytes, offset 3) -> device -> host(offset 1) through the MMU: data %s", n,
         memcmp(dst + 1, src + 3, n) == 0 ? "matches" : "DIFFERS");
    free(chk);
    OK(vmgpu_stream_destroy(s));
    OK(vmgpu_ctx_destroy(c));
    vmgpu_dev_close(g_dev);
    free(src);
    free(dst);
}

static void t_copy_2d(void)
{
    open_dev(NULL);
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    buf a = dev_buf(c, 2 * GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    buf b = dev_buf(c, 2 * GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    const uint32_t sp = 1000, dp = 777, w = 301, h = 90;  /* rows cross page boundaries */
    uint8_t *src = malloc(2 * GRAN), *dst = malloc(2 * GRAN), *ref = malloc(2 * GRAN);
    for (uint32_t i = 0; i < 2 * GRAN; i++) src[i] = (uint8_t)(i * 7 + (i >> 8));
    memset(dst, 0x5a, 2 * GRAN);
    OK(vmgpu_ctx_write(c, a.va, src, 2 * GRAN));
    OK(vmgpu_ctx_write(c, b.va, dst, 2 * GRAN));
    memcpy(ref, dst, 2 * GRAN);
    for (uint32_t y = 0; y < h; y++) memcpy(ref + 5 + y * dp, src + 11 + y * sp, w);
    OK(vmgpu_cmd_copy_2d(s, b.va + 5, dp, a.va + 11, sp, w, h));
    OK(vmgpu_stream_sync(s));
    OK(vmgpu_ctx_read(c, b.va, dst, 2 * GRAN));
    CHECK(memcmp(dst, ref, 2 * GRAN) == 0);
    NOTE("2D copy %ux%u bytes, pitches %u -> %u: %s (bytes between rows untouched)", w, h, sp, dp,
         memcmp(dst, ref, 2 * GRAN) == 0 ? "matches reference" : "DIFFERS");
    free(src); free(dst); free(ref);
    vmgpu_dev_close(g_dev);
}

static void t_fills(void)
{
    open_dev(NULL);
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    buf b = dev_buf(c, GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    uint8_t *ref = malloc(GRAN), *got = malloc(GRAN);
    memset(ref, 0, GRAN);
    OK(vmgpu_ctx_write(c, b.va, ref, GRAN));
    struct { uint32_t off, len, pat; unsigned sz; } f[] = {
        {3, 5000, 0xab, 1}, {8193, 999, 0xbeef, 2}, {20000, 4100, 0xdeadbeef, 4}, {30001, 7, 0x12345678, 4}};
    for (unsigned i = 0; i < 4; i++) {
        OK(vmgpu_cmd_fill(s, b.va + f[i].off, f[i].len, f[i].pat, f[i].sz));
        for (uint32_t k = 0; k < f[i].len; k++) ref[f[i].off + k] = (uint8_t)(f[i].pat >> (8 * (k % f[i].sz)));
    }
    /* 2D fill: 16-bit pattern, 40 rows of 100 bytes, pitch 300 */
    OK(vmgpu_cmd_fill_2d(s, b.va + 40001, 300, 100, 40, 0xa1b2, 2));
    for (uint32_t y = 0; y < 40; y++)
        for (uint32_t k = 0; k < 100; k++) ref[40001 + y * 300 + k] = (uint8_t)(0xa1b2 >> (8 * (k % 2)));
    OK(vmgpu_stream_sync(s));
    OK(vmgpu_ctx_read(c, b.va, got, GRAN));
    CHECK(memcmp(got, ref, GRAN) == 0);
    NOTE("fills 8/16/32-bit at odd offsets and a 2D 16-bit fill: %s",
         memcmp(got, ref, GRAN) == 0 ? "match reference" : "DIFFER");
    free(ref); free(got);
    vmgpu_dev_close(g_dev);
}

static void t_kernels(void)
{
    open_dev(NULL);
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    const uint32_t n = 3000;  /* crosses pages */
    buf A = dev_buf(c, GRAN, VMGPU_MAP_READ);
    buf B = dev_buf(c, GRAN, VMGPU_MAP_READ);
    buf D = dev_buf(c, GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    int32_t *a = malloc(n * 4), *b = malloc(n * 4), *d = malloc(n * 4), *ref = malloc(n * 4);
    for (uint32_t i = 0; i < n; i++) {
        a[i] = (int32_t)pattern_word(i, 1);
        b[i] = (int32_t)pattern_word(i, 2);
    }
    /* Host writes go by physical address: the buffers are read-only for the device. */
    OK(vmgpu_phys_write(g_dev, A.pa, a, n * 4));
    OK(vmgpu_phys_write(g_dev, B.pa, b, n * 4));
    const int32_t k = -7;
    for (unsigned kern = 0; kern < VMGPU_KERNEL_COUNT; kern++) {
        for (uint32_t i = 0; i < n; i++) {
            uint32_t ua = (uint32_t)a[i], ub = (uint32_t)b[i], uk = (uint32_t)k;
            switch (kern) {
            case VMGPU_KERNEL_FILL: ref[i] = k; break;
            case VMGPU_KERNEL_COPY: ref[i] = a[i]; break;
            case VMGPU_KERNEL_ADD: ref[i] = (int32_t)(ua + ub); break;
            case VMGPU_KERNEL_SCALE: ref[i] = (int32_t)(uk * ua); break;
            case VMGPU_KERNEL_AXPY: ref[i] = (int32_t)(uk * ua + ub); break;
            default: break;
            }
        }
        uint32_t cmp_n = n;
        if (kern == VMGPU_KERNEL_REDUCE_SUM) {
            uint32_t sum = 0;
            for (uint32_t i = 0; i < n; i++) sum += (uint32_t)a[i];
            ref[0] = (int32_t)sum;
            cmp_n = 1;
        }
        memset(d, 0, n * 4);
        OK(vmgpu_phys_write(g_dev, D.pa, d, n * 4));
        OK(vmgpu_cmd_launch(s, kern, D.va, A.va, B.va, n, (uint32_t)k));
        OK(vmgpu_stream_sync(s));
        OK(vmgpu_ctx_read(c, D.va, d, n * 4));
        int same = memcmp(d, ref, cmp_n * 4) == 0;
        CHECK(same);
        NOTE("kernel %-10s n=%u scalar=%d vs C reference: %s", vmgpu_kernel_names[kern], n, k,
             same ? "match" : "DIFFER");
    }
    free(a); free(b); free(d); free(ref);
    vmgpu_dev_close(g_dev);
}

/* One faulting access; returns the wait's status and the message. */
static int run_fault_case(vmgpu_ctx *c, vmgpu_stream *s, uint32_t dst, uint32_t src, char *msg)
{
    OK(vmgpu_cmd_copy(s, dst, src, 64));
    int rc = vmgpu_stream_sync(s);
    snprintf(msg, 512, "%s", vmgpu_dev_last_error(g_dev));
    (void)c;
    return rc;
}

static void t_faults(void)
{
    open_dev(NULL);
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    buf rw = dev_buf(c, GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    buf ro = dev_buf(c, GRAN, VMGPU_MAP_READ);
    buf wo = dev_buf(c, GRAN, VMGPU_MAP_WRITE);          /* no read permission */
    uint32_t hole;
    OK(vmgpu_va_reserve(c, GRAN, 0, 0, &hole));           /* reserved, never mapped */
    char want[96], msg[512];
    struct { const char *what; uint32_t dst, src; unsigned reason; uint32_t va; } cs[] = {
        {"read of a reserved, unmapped page", rw.va, 0, VMGPU_FAULT_PTE_INVALID, 0},
        {"read where no page table exists", rw.va, 0x40000000u, VMGPU_FAULT_PDE_INVALID, 0x40000000u},
        {"write to a read-only page", ro.va + 8, rw.va, VMGPU_FAULT_WRITE_DENIED, ro.va + 8},
        {"read of a write-only page", rw.va, wo.va + 16, VMGPU_FAULT_READ_DENIED, wo.va + 16},
        {"NULL read (the first 4 MiB has a table, page 0 is never mapped)", rw.va, 0, VMGPU_FAULT_PTE_INVALID, 0},
    };
    cs[0].src = cs[0].va = hole + PAGE;
    for (unsigned i = 0; i < sizeof cs / sizeof cs[0]; i++) {
        int rc = run_fault_case(c, s, cs[i].dst, cs[i].src, msg);
        CHECK(rc == VMGPU_ERR_FAULT);
        snprintf(want, sizeof want, "%s on", vmgpu_fault_names[cs[i].reason]);
        CHECK(strstr(msg, want) != NULL);
        CHECK(strstr(msg, "DMA_COPY") != NULL);
        char vas[32];
        snprintf(vas, sizeof vas, "VA 0x%08x", cs[i].va);
        CHECK(strstr(msg, vas) != NULL);
        char asid[32];
        snprintf(asid, sizeof asid, "ASID %u", vmgpu_ctx_asid(c));
        CHECK(strstr(msg, asid) != NULL && strstr(msg, "ring 0") != NULL);
        NOTE("%s -> %s: \"%s\"", cs[i].what, vmgpu_status_name(rc), msg);
        /* Sticky until cleared; then the same context runs on. */
        CHECK(vmgpu_ctx_status(c, NULL, 0) == VMGPU_ERR_CTX_FAULTED);
        CHECK_RC(vmgpu_cmd_copy(s, rw.va, rw.va + 64, 64), VMGPU_ERR_CTX_FAULTED);
        OK(vmgpu_ctx_clear_fault(c));
    }
    /* After all that, the same context still works on the same ring. */
    uint32_t v = 0x11223344, got = 0;
    OK(vmgpu_ctx_write(c, rw.va + 100, &v, 4));
    OK(vmgpu_cmd_copy(s, rw.va + 200, rw.va + 100, 4));
    OK(vmgpu_stream_sync(s));
    OK(vmgpu_ctx_read(c, rw.va + 200, &got, 4));
    CHECK(got == v);
    NOTE("after five faults and resets the same context copies correctly: %s", got == v ? "yes" : "NO");
    vmgpu_dev_close(g_dev);
}

/* ctx A (ring 0) faults while ctx B (ring 1) runs a long job; B completes, A recovers. */
static void t_fault_isolation(void)
{
    open_dev(NULL);
    vmgpu_dev_info info;
    OK(vmgpu_dev_get_info(g_dev, &info));
    if (info.n_rings < 2) { NOTE("device has one ring: skipped"); vmgpu_dev_close(g_dev); return; }
    vmgpu_ctx *ca, *cb;
    vmgpu_stream *sa, *sb;
    OK(vmgpu_ctx_create(g_dev, 0, &ca));
    OK(vmgpu_ctx_create(g_dev, 1, &cb));
    OK(vmgpu_stream_create(ca, 0, &sa));
    OK(vmgpu_stream_create(cb, 1, &sb));
    buf a = dev_buf(ca, GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    buf b1 = dev_buf(cb, 4 * GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    buf b2 = dev_buf(cb, 4 * GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    uint32_t *src = malloc(4 * GRAN), *dst = malloc(4 * GRAN);
    for (uint32_t i = 0; i < GRAN; i++) src[i] = pattern_word(i, 77);
    OK(vmgpu_ctx_write(cb, b1.va, src, 4 * GRAN));
    /* B: several copies back and forth, submitted first so they run alongside A's fault. */
    for (int i = 0; i < 3; i++) {
        OK(vmgpu_cmd_copy(sb, b2.va, b1.va, 4 * GRAN));
        OK(vmgpu_cmd_copy(sb, b1.va, b2.va, 4 * GRAN));
    }
    uint32_t fb;
    OK(vmgpu_stream_submit(sb, &fb));
    /* A: a good copy, then a fault, then more work that the reset drops. */
    OK(vmgpu_cmd_fill(sa, a.va, 256, 0x55, 1));
    OK(vmgpu_cmd_copy(sa, a.va, a.va + GRAN, 64));
    OK(vmgpu_cmd_fill(sa, a.va + 512, 256, 0x66, 1));
    int rca = vmgpu_stream_sync(sa);
    CHECK(rca == VMGPU_ERR_FAULT);
    NOTE("ctx A (asid %u, ring 0): %s: %s", vmgpu_ctx_asid(ca), vmgpu_status_name(rca), vmgpu_dev_last_error(g_dev));
    OK(vmgpu_fence_wait(g_dev, 1, fb));
    OK(vmgpu_ctx_read(cb, b2.va, dst, 4 * GRAN));
    CHECK(memcmp(src, dst, 4 * GRAN) == 0);
    CHECK(vmgpu_ctx_status(cb, NULL, 0) == VMGPU_OK);
    CHECK(vmgpu_ctx_status(ca, NULL, 0) == VMGPU_ERR_CTX_FAULTED);
    NOTE("ctx B (asid %u, ring 1): 6 x 256 KiB copies completed, data %s, B not faulted", vmgpu_ctx_asid(cb),
         memcmp(src, dst, 4 * GRAN) == 0 ? "correct" : "WRONG");
    uint8_t chk[1024];
    OK(vmgpu_ctx_read(ca, a.va, chk, 1024));
    CHECK(chk[0] == 0x55 && chk[255] == 0x55);   /* before the fault: done */
    CHECK(chk[512] != 0x66);                     /* after the fault: dropped */
    NOTE("ctx A: work before the fault done, work after it dropped by the ring reset");
    /* A recovers on the same ring. */
    OK(vmgpu_ctx_clear_fault(ca));
    OK(vmgpu_cmd_fill(sa, a.va + 512, 256, 0x77, 1));
    OK(vmgpu_stream_sync(sa));
    OK(vmgpu_ctx_read(ca, a.va, chk, 1024));
    CHECK(chk[512] == 0x77 && chk[767] == 0x77);
    NOTE("ctx A after clearing the fault runs again on ring 0: %s", chk[512] == 0x77 ? "yes" : "NO");
    free(src); free(dst);
    vmgpu_dev_close(g_dev);
}

static void t_bad_command(void)
{
    open_dev(NULL);
    vmgpu_dev_info info;
    OK(vmgpu_dev_get_info(g_dev, &info));
    vmgpu_ctx *c, *c2 = NULL;
    vmgpu_stream *s, *s2 = NULL;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    buf b = dev_buf(c, GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    if (info.n_rings > 1) {
        OK(vmgpu_ctx_create(g_dev, 1, &c2));
        OK(vmgpu_stream_create(c2, 1, &s2));
    }
    buf b2 = {0, 0, 0};
    if (c2) b2 = dev_buf(c2, GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    struct { const char *what; uint32_t w[4]; size_t n; } bad[] = {
        {"unknown opcode 0x3f", {VMGPU_CMD_HEADER(0x3f, 0, 0)}, 1},
        {"FENCE with length 1", {VMGPU_CMD_HEADER(VMGPU_OP_FENCE, 1, 0), 5}, 2},
        {"TLB_INV with mode 3", {VMGPU_CMD_HEADER(VMGPU_OP_TLB_INV, 3, 3), 1, 0, 0}, 4},
    };
    for (unsigned i = 0; i < 3; i++) {
        OK(vmgpu_cmd_fill(s, b.va, 64, 0x10 + i, 1));
        OK(vmgpu_cmd_raw(s, bad[i].w, bad[i].n));
        if (s2) OK(vmgpu_cmd_fill(s2, b2.va + i * 64, 64, 0x20 + i, 1));
        if (s2) OK(vmgpu_stream_submit(s2, NULL));
        int rc = vmgpu_stream_sync(s);
        const char *msg = vmgpu_dev_last_error(g_dev);
        CHECK(rc == VMGPU_ERR_FAULT && strstr(msg, "BAD_COMMAND") != NULL);
        NOTE("%s -> %s: \"%s\"", bad[i].what, vmgpu_status_name(rc), msg);
        OK(vmgpu_ctx_clear_fault(c));
        uint8_t x = 0;
        OK(vmgpu_ctx_read(c, b.va, &x, 1));
        CHECK(x == 0x10 + i);  /* the command before the bad one ran */
    }
    if (s2) {
        OK(vmgpu_stream_sync(s2));
        uint8_t y[192];
        OK(vmgpu_ctx_read(c2, b2.va, y, 192));
        CHECK(y[0] == 0x20 && y[64] == 0x21 && y[191] == 0x22);
        CHECK(vmgpu_ctx_status(c2, NULL, 0) == VMGPU_OK);
        NOTE("the other context on ring 1 was not disturbed: %s", y[191] == 0x22 ? "yes" : "NO");
    }
    /* And ring 0 still works. */
    OK(vmgpu_cmd_fill(s, b.va, 64, 0x99, 1));
    OK(vmgpu_stream_sync(s));
    uint8_t x = 0;
    OK(vmgpu_ctx_read(c, b.va + 63, &x, 1));
    CHECK(x == 0x99);
    vmgpu_dev_close(g_dev);
}

static void t_ring_wrap(void)
{
    vmgpu_dev_options opt = {.ring_bytes = 256};
    open_dev(&opt);
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    buf b = dev_buf(c, GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    const unsigned N = 3000;
    uint32_t prev = 0, f = 0;
    int in_order = 1;
    /* Each step: a 4-byte fill of a counter, then a fence; checked in order every time. */
    for (unsigned i = 0; i < N && !fails; i++) {
        OK(vmgpu_cmd_fill(s, b.va + (i % 1024) * 4, 4, i, 4));
        OK(vmgpu_stream_submit(s, &f));
        if (i && f != prev + 1) in_order = 0;
        prev = f;
        if (i % 7 == 6) {
            OK(vmgpu_fence_wait(g_dev, 0, f));
            CHECK(vmgpu_fence_query(g_dev, 0, f) == VMGPU_OK);
        }
    }
    OK(vmgpu_fence_wait(g_dev, 0, f));
    uint32_t got[1024];
    OK(vmgpu_ctx_read(c, b.va, got, sizeof got));
    int ok = 1;
    for (unsigned k = 0; k < 1024; k++) {
        unsigned last = k + ((N - 1 - k) / 1024) * 1024;  /* last i that wrote slot k */
        if (got[k] != last) ok = 0;
    }
    CHECK(ok && in_order);
    NOTE("%u fills + %u fences through a 256-byte ring (wraps ~%u times): fences consecutive %s, data %s",
         N, N, N * 9 * 4 / 256, in_order ? "yes" : "NO", ok ? "correct" : "WRONG");
    vmgpu_dev_close(g_dev);
}

static void t_tlb_invalidation(void)
{
    open_dev(NULL);
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    uint32_t fa, fb, va;
    OK(vmgpu_phys_alloc(g_dev, GRAN, 0, &fa));
    OK(vmgpu_phys_alloc(g_dev, GRAN, 0, &fb));
    buf out = dev_buf(c, GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    OK(vmgpu_va_reserve(c, PAGE, PAGE, 0, &va));
    uint32_t A = 0xAAAA0001, B = 0xBBBB0002, got = 0;
    OK(vmgpu_phys_write(g_dev, fa, &A, 4));
    OK(vmgpu_phys_write(g_dev, fb, &B, 4));
    OK(vmgpu_map(c, va, fa, PAGE, VMGPU_MAP_READ));
    OK(vmgpu_cmd_copy(s, out.va, va, 4));  /* TLB now holds va -> frame A */
    OK(vmgpu_stream_sync(s));
    /* Lesson: change a valid PTE without TLB_INV; the TLB keeps the stale translation. */
    OK(vmgpu_stream_map(s, va, fb, PAGE, VMGPU_MAP_READ | VMGPU_MAP_REPLACE | VMGPU_MAP_NO_TLB_INV));
    OK(vmgpu_cmd_copy(s, out.va + 4, va, 4));
    OK(vmgpu_stream_sync(s));
    OK(vmgpu_ctx_read(c, out.va + 4, &got, 4));
    CHECK(got == A);
    NOTE("remap va 0x%08x to a new frame WITHOUT TLB_INV: the copy read 0x%08x (%s frame)", va, got,
         got == A ? "stale, old" : got == B ? "new" : "?");
    /* The same remap with TLB_INV in the same ring, ordered before the next copy. */
    OK(vmgpu_stream_map(s, va, fb, PAGE, VMGPU_MAP_READ | VMGPU_MAP_REPLACE));
    OK(vmgpu_cmd_copy(s, out.va + 8, va, 4));
    OK(vmgpu_stream_sync(s));
    OK(vmgpu_ctx_read(c, out.va + 8, &got, 4));
    CHECK(got == B);
    NOTE("remap WITH TLB_INV (range) queued in the same ring: the copy read 0x%08x (%s frame)", got,
         got == B ? "new" : "stale");
    /* And back to A with vmgpu_map (synchronous, invalidates). */
    OK(vmgpu_map(c, va, fa, PAGE, VMGPU_MAP_READ | VMGPU_MAP_REPLACE));
    OK(vmgpu_cmd_copy(s, out.va + 12, va, 4));
    OK(vmgpu_stream_sync(s));
    OK(vmgpu_ctx_read(c, out.va + 12, &got, 4));
    CHECK(got == A);
    vmgpu_dev_close(g_dev);
}

static void t_wait_fence_across_rings(void)
{
    open_dev(NULL);
    vmgpu_dev_info info;
    OK(vmgpu_dev_get_info(g_dev, &info));
    if (info.n_rings < 2) { NOTE("one ring: skipped"); vmgpu_dev_close(g_dev); return; }
    vmgpu_ctx *c;
    vmgpu_stream *s0, *s1;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s0));
    OK(vmgpu_stream_create(c, 1, &s1));
    buf big = dev_buf(c, 8 * GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    buf dst = dev_buf(c, 8 * GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    /* Ring 0 produces (a long fill); ring 1 must copy only after it. */
    OK(vmgpu_cmd_fill(s0, big.va, 8 * GRAN, 0x5eed1234, 4));
    OK(vmgpu_stream_wait_stream(s1, s0));
    OK(vmgpu_cmd_copy(s1, dst.va, big.va, 8 * GRAN));
    vmgpu_event *e0, *e1;
    OK(vmgpu_event_create(g_dev, &e0));
    OK(vmgpu_event_create(g_dev, &e1));
    OK(vmgpu_event_record(e1, s1));
    OK(vmgpu_event_wait(e1));
    uint32_t *got = malloc(8 * GRAN);
    OK(vmgpu_ctx_read(c, dst.va, got, 8 * GRAN));
    int ok = 1;
    for (uint32_t i = 0; i < 2 * GRAN; i++) if (got[i] != 0x5eed1234) ok = 0;
    CHECK(ok);
    NOTE("ring 1 copy waited (WAIT_FENCE) for ring 0's 512 KiB fill: copy saw %s", ok ? "the whole fill" : "STALE data");
    /* A ring waiting for a fence nobody will produce: a bounded wait names the blocked command. */
    OK(vmgpu_event_record(e0, s0));
    uint32_t w[3] = {VMGPU_CMD_HEADER(VMGPU_OP_WAIT_FENCE, 2, 0), 0, vmgpu_fence_last(g_dev, 0) + 100};
    OK(vmgpu_cmd_raw(s1, w, 3));
    uint32_t f;
    OK(vmgpu_stream_submit(s1, &f));
    setenv("VMGPU_TIMEOUT_CYCLES", "20000", 1);
    vmgpu_dev_close(g_dev);  /* timeout is read at open: reopen below with a short budget */
    free(got);
    open_dev(NULL);
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 1, &s1));
    OK(vmgpu_cmd_raw(s1, w, 3));
    OK(vmgpu_stream_submit(s1, &f));
    int rc = vmgpu_fence_wait(g_dev, 1, f);
    CHECK(rc == VMGPU_ERR_TIMEOUT && strstr(vmgpu_dev_last_error(g_dev), "WAIT_FENCE") != NULL);
    NOTE("wait on a ring blocked forever -> %s: \"%s\"", vmgpu_status_name(rc), vmgpu_dev_last_error(g_dev));
    unsetenv("VMGPU_TIMEOUT_CYCLES");
    vmgpu_dev_close(g_dev);
}

static void t_events_timestamps(void)
{
    open_dev(NULL);
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    buf a = dev_buf(c, 4 * GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    buf b = dev_buf(c, 4 * GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    vmgpu_event *e0, *e1, *e2;
    OK(vmgpu_event_create(g_dev, &e0));
    OK(vmgpu_event_create(g_dev, &e1));
    OK(vmgpu_event_create(g_dev, &e2));
    OK(vmgpu_event_record(e0, s));
    OK(vmgpu_cmd_copy(s, b.va, a.va, 4096));
    OK(vmgpu_event_record(e1, s));
    OK(vmgpu_cmd_copy(s, b.va, a.va, 4 * GRAN));
    OK(vmgpu_event_record(e2, s));
    OK(vmgpu_event_wait(e2));
    uint64_t small, large;
    OK(vmgpu_event_elapsed(e0, e1, &small));
    OK(vmgpu_event_elapsed(e1, e2, &large));
    CHECK(small > 1024 / 1 / 4 && large > small * 16 && large < 40ull * 4 * GRAN);
    NOTE("timestamps: 4 KiB copy %llu cycles, 256 KiB copy %llu cycles (ratio %.1f)",
         (unsigned long long)small, (unsigned long long)large, (double)large / (double)small);
    vmgpu_dev_close(g_dev);
}

/* Every entry point with bad arguments: the right code, and no state changed. */
static void t_bad_arguments(void)
{
    open_dev(NULL);
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    buf b = dev_buf(c, GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    uint32_t spare_pa, spare_va, x;
    OK(vmgpu_phys_alloc(g_dev, GRAN, 0, &spare_pa));
    OK(vmgpu_va_reserve(c, 2 * GRAN, 0, 0, &spare_va));
    void *hp = page_alloc(2 * PAGE);
    uint32_t haddr;
    OK(vmgpu_host_register(g_dev, hp, 2 * PAGE, &haddr));
    uint64_t h0 = vmgpu_debug_state_hash(g_dev);
    uint32_t free0, rb0;
    unsigned na0, nr0;
    OK(vmgpu_phys_stats(g_dev, &free0, &na0));
    OK(vmgpu_va_stats(c, &rb0, &nr0));
    unsigned count = 0;
#define BAD(call, want) do { CHECK_RC(call, want); count++; \
    if (vmgpu_debug_state_hash(g_dev) != h0) { printf("  FAIL: state changed by %s\n", #call); fails++; h0 = vmgpu_debug_state_hash(g_dev); } } while (0)
    /* physical allocator */
    BAD(vmgpu_phys_alloc(NULL, GRAN, 0, &x), VMGPU_ERR_INVALID);
    BAD(vmgpu_phys_alloc(g_dev, GRAN, 0, NULL), VMGPU_ERR_INVALID);
    BAD(vmgpu_phys_alloc(g_dev, 0, 0, &x), VMGPU_ERR_INVALID);
    BAD(vmgpu_phys_alloc(g_dev, 100, 0, &x), VMGPU_ERR_INVALID);
    BAD(vmgpu_phys_alloc(g_dev, GRAN, 3 * PAGE, &x), VMGPU_ERR_INVALID);
    BAD(vmgpu_phys_alloc(g_dev, GRAN, 512, &x), VMGPU_ERR_INVALID);
    BAD(vmgpu_phys_alloc(g_dev, 0xfff00000u, 0, &x), VMGPU_ERR_NOMEM);
    BAD(vmgpu_phys_free(g_dev, spare_pa + PAGE), VMGPU_ERR_NOT_FOUND);
    BAD(vmgpu_phys_free(g_dev, b.pa), VMGPU_ERR_BUSY);
    BAD(vmgpu_phys_write(g_dev, 0xfffffff0u, &x, 4), VMGPU_ERR_INVALID);
    BAD(vmgpu_phys_read(g_dev, 0, NULL, 4), VMGPU_ERR_INVALID);
    /* host registration */
    BAD(vmgpu_host_register(g_dev, (char *)hp + 1, PAGE, &x), VMGPU_ERR_INVALID);
    BAD(vmgpu_host_register(g_dev, hp, 100, &x), VMGPU_ERR_INVALID);
    BAD(vmgpu_host_register(g_dev, hp, PAGE, &x), VMGPU_ERR_OVERLAP);
    BAD(vmgpu_host_register(g_dev, NULL, PAGE, &x), VMGPU_ERR_INVALID);
    BAD(vmgpu_host_unregister(g_dev, (char *)hp + PAGE), VMGPU_ERR_NOT_FOUND);
    /* contexts */
    vmgpu_ctx *cx;
    BAD(vmgpu_ctx_create(NULL, 0, &cx), VMGPU_ERR_INVALID);
    BAD(vmgpu_ctx_create(g_dev, 7, &cx), VMGPU_ERR_INVALID);
    BAD(vmgpu_ctx_create(g_dev, 0, NULL), VMGPU_ERR_INVALID);
    BAD(vmgpu_ctx_destroy(c), VMGPU_ERR_BUSY);  /* still has a stream */
    /* VA allocator */
    BAD(vmgpu_va_reserve(c, 0, 0, 0, &x), VMGPU_ERR_INVALID);
    BAD(vmgpu_va_reserve(c, 100, 0, 0, &x), VMGPU_ERR_INVALID);
    BAD(vmgpu_va_reserve(c, GRAN, 5 * PAGE, 0, &x), VMGPU_ERR_INVALID);
    BAD(vmgpu_va_reserve(c, GRAN, 0, b.va, &x), VMGPU_ERR_OVERLAP);
    BAD(vmgpu_va_reserve(c, GRAN, 0, GRAN / 2, &x), VMGPU_ERR_INVALID);
    BAD(vmgpu_va_reserve(c, GRAN, PAGE, PAGE, &x), VMGPU_ERR_INVALID);  /* below VMGPU_VA_BASE */
    BAD(vmgpu_va_reserve(c, 2 * GRAN, 0, 0xffff0000u, &x), VMGPU_ERR_INVALID);
    BAD(vmgpu_va_reserve(c, 0xffff0000u, 0, 0, &x), VMGPU_ERR_NOVA);
    BAD(vmgpu_va_reserve(NULL, GRAN, 0, 0, &x), VMGPU_ERR_INVALID);
    BAD(vmgpu_va_free(c, spare_va + PAGE), VMGPU_ERR_NOT_FOUND);
    BAD(vmgpu_va_free(c, b.va), VMGPU_ERR_BUSY);
    /* map */
    const unsigned RW = VMGPU_MAP_READ | VMGPU_MAP_WRITE;
    BAD(vmgpu_map(NULL, spare_va, spare_pa, GRAN, RW), VMGPU_ERR_INVALID);
    BAD(vmgpu_map(c, spare_va + 1, spare_pa, GRAN, RW), VMGPU_ERR_INVALID);
    BAD(vmgpu_map(c, spare_va, spare_pa + 1, GRAN, RW), VMGPU_ERR_INVALID);
    BAD(vmgpu_map(c, spare_va, spare_pa, 0, RW), VMGPU_ERR_INVALID);
    BAD(vmgpu_map(c, spare_va, spare_pa, 100, RW), VMGPU_ERR_INVALID);
    BAD(vmgpu_map(c, spare_va, spare_pa, 2 * GRAN, RW), VMGPU_ERR_INVALID);   /* past the allocation */
    BAD(vmgpu_map(c, spare_va + GRAN, spare_pa, 2 * GRAN, RW), VMGPU_ERR_INVALID); /* past the reservation */
    BAD(vmgpu_map(c, 0x80000000u, spare_pa, GRAN, RW), VMGPU_ERR_INVALID);   /* not reserved */
    BAD(vmgpu_map(c, spare_va, 0x1000, PAGE, RW), VMGPU_ERR_INVALID);        /* reserved memory */
    BAD(vmgpu_map(c, spare_va, spare_pa, GRAN, 0x100), VMGPU_ERR_INVALID);   /* unknown flag */
    BAD(vmgpu_map(c, b.va, spare_pa, GRAN, RW), VMGPU_ERR_OVERLAP);          /* already mapped */
    BAD(vmgpu_map(c, spare_va, haddr + 2 * PAGE, PAGE, RW | VMGPU_MAP_HOST), VMGPU_ERR_INVALID);
    BAD(vmgpu_map(c, spare_va, haddr, 4 * PAGE, RW | VMGPU_MAP_HOST), VMGPU_ERR_INVALID);
    BAD(vmgpu_map(c, 0xfffff000u, spare_pa, 2 * PAGE, RW), VMGPU_ERR_INVALID); /* wraps 4 GiB */
    /* unmap / protect */
    BAD(vmgpu_unmap(c, spare_va, GRAN), VMGPU_ERR_NOT_MAPPED);
    BAD(vmgpu_unmap(c, b.va, GRAN + PAGE), VMGPU_ERR_NOT_MAPPED); /* runs into the next reservation */
    BAD(vmgpu_unmap(c, 0x90000000u, PAGE), VMGPU_ERR_INVALID);   /* not reserved */
    BAD(vmgpu_unmap(c, b.va + 1, PAGE), VMGPU_ERR_INVALID);
    BAD(vmgpu_unmap(NULL, b.va, PAGE), VMGPU_ERR_INVALID);
    BAD(vmgpu_protect(c, spare_va, PAGE, VMGPU_MAP_READ), VMGPU_ERR_NOT_MAPPED);
    BAD(vmgpu_protect(c, b.va, PAGE, VMGPU_MAP_HOST), VMGPU_ERR_INVALID);
    BAD(vmgpu_protect(c, b.va, 0, VMGPU_MAP_READ), VMGPU_ERR_INVALID);
    BAD(vmgpu_query(c, b.va, NULL), VMGPU_ERR_INVALID);
    BAD(vmgpu_ctx_read(c, spare_va, &x, 4), VMGPU_ERR_NOT_MAPPED);
    BAD(vmgpu_ctx_write(c, 0xfffffffeu, &x, 4), VMGPU_ERR_INVALID);
    /* host unregister while mapped */
    OK(vmgpu_map(c, spare_va, haddr, 2 * PAGE, RW | VMGPU_MAP_HOST));
    h0 = vmgpu_debug_state_hash(g_dev);
    BAD(vmgpu_host_unregister(g_dev, hp), VMGPU_ERR_BUSY);
    BAD(vmgpu_map(c, spare_va, spare_pa, PAGE, RW), VMGPU_ERR_OVERLAP);
    /* streams and commands */
    vmgpu_stream *sx;
    BAD(vmgpu_stream_create(NULL, 0, &sx), VMGPU_ERR_INVALID);
    BAD(vmgpu_stream_create(c, 9, &sx), VMGPU_ERR_INVALID);
    BAD(vmgpu_cmd_copy(NULL, b.va, b.va, 4), VMGPU_ERR_INVALID);
    BAD(vmgpu_cmd_copy(s, b.va, b.va, 0), VMGPU_ERR_INVALID);
    BAD(vmgpu_cmd_copy(s, 0xfffffff0u, b.va, 64), VMGPU_ERR_INVALID);
    BAD(vmgpu_cmd_copy_2d(s, b.va, 10, b.va, 10, 10, 0), VMGPU_ERR_INVALID);
    BAD(vmgpu_cmd_fill(s, b.va, 64, 0, 3), VMGPU_ERR_INVALID);
    BAD(vmgpu_cmd_fill(s, b.va, 0, 0, 4), VMGPU_ERR_INVALID);
    BAD(vmgpu_cmd_launch(s, VMGPU_KERNEL_COUNT, b.va, b.va, b.va, 1, 0), VMGPU_ERR_INVALID);
    BAD(vmgpu_cmd_launch(s, VMGPU_KERNEL_ADD, b.va + 2, b.va, b.va, 1, 0), VMGPU_ERR_INVALID);
    BAD(vmgpu_cmd_timestamp(s, 3), VMGPU_ERR_INVALID);
    BAD(vmgpu_cmd_timestamp(s, 0xfffffff8u), VMGPU_ERR_INVALID);
    BAD(vmgpu_cmd_wait_fence(s, 9, 1), VMGPU_ERR_INVALID);
    BAD(vmgpu_cmd_wait_fence(s, 0, vmgpu_fence_last(g_dev, 0) + 5), VMGPU_ERR_INVALID);
    BAD(vmgpu_cmd_raw(s, NULL, 1), VMGPU_ERR_INVALID);
    BAD(vmgpu_cmd_tlb_inv(NULL), VMGPU_ERR_INVALID);
    BAD(vmgpu_stream_map(s, spare_va, spare_pa, PAGE, RW), VMGPU_ERR_OVERLAP);
    BAD(vmgpu_fence_wait(g_dev, 9, 1), VMGPU_ERR_INVALID);
    BAD(vmgpu_fence_wait(g_dev, 0, vmgpu_fence_last(g_dev, 0) + 1), VMGPU_ERR_INVALID);
    BAD(vmgpu_fence_query(g_dev, 9, 1), VMGPU_ERR_INVALID);
    BAD(vmgpu_event_create(NULL, NULL), VMGPU_ERR_INVALID);
    BAD(vmgpu_event_record(NULL, s), VMGPU_ERR_INVALID);
    BAD(vmgpu_event_elapsed(NULL, NULL, NULL), VMGPU_ERR_INVALID);
    BAD(vmgpu_dev_get_info(g_dev, NULL), VMGPU_ERR_INVALID);
    BAD(vmgpu_dev_cycles(g_dev, NULL), VMGPU_ERR_INVALID);
    /* A bad open reports a clear error. */
    vmgpu_dev *d2;
    char err[256] = "";
    CHECK(vmgpu_dev_open("bogus:device", &d2, err, sizeof err) == VMGPU_ERR_NODEV && d2 == NULL && err[0]);
    count++;
    NOTE("bad device spec -> \"%s\"", err);
    uint32_t free1, rb1;
    unsigned na1, nr1;
    OK(vmgpu_phys_stats(g_dev, &free1, &na1));
    OK(vmgpu_va_stats(c, &rb1, &nr1));
    CHECK(free1 == free0 && na1 == na0 && rb1 == rb0 && nr1 == nr0);
    /* The device is still fine. */
    OK(vmgpu_cmd_fill(s, b.va, 16, 0x42, 1));
    OK(vmgpu_stream_sync(s));
    NOTE("%u bad-argument calls: right error codes, allocators/shadows/registrations unchanged "
         "(state hash compared after each)", count);
    vmgpu_dev_close(g_dev);
    free(hp);
}

/* Map, protect, unmap round trip; the shadow agrees with the device's page tables. */
static void t_map_unmap_protect(void)
{
    open_dev(NULL);
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    uint32_t pa, va;
    /* 4 MiB + 2 granules across a PDE boundary */
    uint32_t size = (4u << 20) + 2 * GRAN;
    OK(vmgpu_phys_alloc(g_dev, size, 0, &pa));
    OK(vmgpu_va_reserve(c, size, 4u << 20, 0, &va));
    va += 0;
    OK(vmgpu_map(c, va, pa, size, VMGPU_MAP_READ | VMGPU_MAP_WRITE));
    /* Compare the shadow with the device's page directory and tables. */
    int same = 1;
    uint32_t root = vmgpu_ctx_root(c);
    for (uint32_t v = va; v < va + size; v += PAGE) {
        uint32_t pte, pde, dpte;
        OK(vmgpu_query(c, v, &pte));
        OK(vmgpu_phys_read(g_dev, root + (v >> 22) * 4, &pde, 4));
        OK(vmgpu_phys_read(g_dev, (pde & ~0xfffu) + ((v >> 12) & 1023) * 4, &dpte, 4));
        if (!(pde & VMGPU_PTE_V) || dpte != pte || (pte >> 12) != ((pa + (v - va)) >> 12)) same = 0;
    }
    CHECK(same);
    NOTE("mapped 0x%x bytes at va 0x%08x: device page tables == shadow for all %u pages: %s", size, va,
         size / PAGE, same ? "yes" : "NO");
    uint32_t v0 = 0xcafef00d, got;
    OK(vmgpu_ctx_write(c, va + (4u << 20), &v0, 4));
    OK(vmgpu_protect(c, va, size, VMGPU_MAP_READ));
    OK(vmgpu_cmd_copy(s, va, va + (4u << 20), 4));
    CHECK(vmgpu_stream_sync(s) == VMGPU_ERR_FAULT && strstr(vmgpu_dev_last_error(g_dev), "WRITE_DENIED"));
    OK(vmgpu_ctx_clear_fault(c));
    OK(vmgpu_protect(c, va, size, VMGPU_MAP_READ | VMGPU_MAP_WRITE));
    OK(vmgpu_cmd_copy(s, va, va + (4u << 20), 4));
    OK(vmgpu_stream_sync(s));
    OK(vmgpu_ctx_read(c, va, &got, 4));
    CHECK(got == v0);
    NOTE("protect R -> write faults WRITE_DENIED; protect RW -> the copy works");
    OK(vmgpu_unmap(c, va, GRAN));
    OK(vmgpu_cmd_copy(s, va + GRAN, va, 4));
    CHECK(vmgpu_stream_sync(s) == VMGPU_ERR_FAULT && strstr(vmgpu_dev_last_error(g_dev), "PTE_INVALID"));
    OK(vmgpu_ctx_clear_fault(c));
    OK(vmgpu_unmap(c, va + GRAN, size - GRAN));
    CHECK(vmgpu_phys_free(g_dev, pa) == VMGPU_OK);
    OK(vmgpu_va_free(c, va));
    NOTE("unmap -> access faults PTE_INVALID; after unmapping all, memory and VA free again");
    vmgpu_dev_close(g_dev);
}

/* Page-table updates cost O(1) link round trips whatever the size. */
static void t_map_round_trips(void)
{
    open_dev(NULL);
    vmgpu_ctx *c;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    vmgpu_hal *h = vmgpu_dev_hal(g_dev);
    uint64_t rts[4];
    uint32_t sizes[4] = {1, 16, 64, 128};
    for (int i = 0; i < 4; i++) {
        uint32_t pa, va;
        OK(vmgpu_phys_alloc(g_dev, sizes[i] * GRAN, 0, &pa));
        OK(vmgpu_va_reserve(c, sizes[i] * GRAN, 0, 0, &va));
        uint64_t before = h->round_trips;
        OK(vmgpu_map(c, va, pa, sizes[i] * GRAN, VMGPU_MAP_READ));
        rts[i] = h->round_trips - before;
        NOTE("map of %3u granules: %llu link round trips", sizes[i], (unsigned long long)rts[i]);
    }
    CHECK(rts[3] == rts[0] && rts[0] <= 4);
    vmgpu_dev_close(g_dev);
}

static void t_two_contexts_isolated(void)
{
    open_dev(NULL);
    vmgpu_ctx *c1, *c2;
    vmgpu_stream *s1, *s2;
    OK(vmgpu_ctx_create(g_dev, 0, &c1));
    OK(vmgpu_ctx_create(g_dev, 0, &c2));
    OK(vmgpu_stream_create(c1, 0, &s1));
    OK(vmgpu_stream_create(c2, 0, &s2));  /* same ring: the core switches with BIND_CTX */
    uint32_t p1, p2, va = 0x10000000u, x;
    OK(vmgpu_phys_alloc(g_dev, GRAN, 0, &p1));
    OK(vmgpu_phys_alloc(g_dev, GRAN, 0, &p2));
    OK(vmgpu_va_reserve(c1, 2 * GRAN, 0, va, &x));
    OK(vmgpu_va_reserve(c2, 2 * GRAN, 0, va, &x));
    OK(vmgpu_map(c1, va, p1, GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE));
    OK(vmgpu_map(c2, va, p2, GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE));
    /* Same VA, different ASIDs, interleaved on one ring: each lands in its own frame. */
    for (int i = 0; i < 4; i++) {
        OK(vmgpu_cmd_fill(s1, va + i * 4, 4, 0x1000 + i, 4));
        OK(vmgpu_cmd_fill(s2, va + i * 4, 4, 0x2000 + i, 4));
    }
    OK(vmgpu_stream_sync(s1));
    OK(vmgpu_stream_sync(s2));
    uint32_t a[4], b[4];
    OK(vmgpu_phys_read(g_dev, p1, a, 16));
    OK(vmgpu_phys_read(g_dev, p2, b, 16));
    int ok = 1;
    for (int i = 0; i < 4; i++) if (a[i] != 0x1000u + i || b[i] != 0x2000u + i) ok = 0;
    CHECK(ok);
    NOTE("same VA 0x%08x in asid %u and %u, commands interleaved on ring 0: each wrote its own frame: %s",
         va, vmgpu_ctx_asid(c1), vmgpu_ctx_asid(c2), ok ? "yes" : "NO");
    vmgpu_dev_close(g_dev);
}

static const struct { const char *name; void (*fn)(void); } cases[] = {
    {"copy_host_device_host", t_copy_host_device_host},
    {"copy_2d", t_copy_2d},
    {"fills", t_fills},
    {"kernels", t_kernels},
    {"faults_named", t_faults},
    {"fault_isolation", t_fault_isolation},
    {"bad_command", t_bad_command},
    {"ring_wrap", t_ring_wrap},
    {"tlb_invalidation", t_tlb_invalidation},
    {"wait_fence_rings", t_wait_fence_across_rings},
    {"events_timestamps", t_events_timestamps},
    {"bad_arguments", t_bad_arguments},
    {"map_unmap_protect", t_map_unmap_protect},
    {"map_round_trips", t_map_round_trips},
    {"two_contexts", t_two_contexts_isolated},
};

int main(int argc, char **argv)
{
    unsigned n = sizeof cases / sizeof cases[0];
    if (argc != 2) {
        printf("usage: %s <case>|list\n", argv[0]);
        for (unsigned i = 0; i < n; i++) printf("  %s\n", cases[i].name);
        return 2;
    }
    for (unsigned i = 0; i < n; i++) {
        if (strcmp(argv[1], cases[i].name) != 0) continue;
        printf("system test %s\n", cases[i].name);
        cases[i].fn();
        printf("%s: %s\n", cases[i].name, fails ? "FAILED" : "passed");
        return fails ? 1 : 0;
    }
    printf("unknown case %s\n", argv[1]);
    return 2;
}
