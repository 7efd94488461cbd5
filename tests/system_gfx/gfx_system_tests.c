/*
 * Graphics commands through the driver core on the whole Verilator model (sim transport):
 * vmgpu_cmd_gfx_fill/blit/mipgen emitted into streams, pixels read back and compared with a
 * reference model; a read-only destination faulting; the emitters' argument checks; graphics
 * and compute on two rings at once; the trace decoder. `vmgpu_gfx_system_tests <case>`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmgpu/core.h"
#include "vmgpu/regs.h"

static int fails;
static vmgpu_dev *g_dev;
#define CHECK(c) do { if (!(c)) { printf("  FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)
#define CHECK_RC(call, want) do { int rc_ = (call); if (rc_ != (want)) { \
    printf("  FAIL %s:%d: %s -> %s, want %s (%s)\n", __FILE__, __LINE__, #call, \
           vmgpu_status_name(rc_), vmgpu_status_name(want), vmgpu_dev_last_error(g_dev)); fails++; } } while (0)
#define OK(call) CHECK_RC(call, VMGPU_OK)
#define NOTE(...) do { printf("  "); printf(__VA_ARGS__); printf("\n"); } while (0)

typedef struct buf { uint32_t va, pa, size; } buf;
typedef struct img { uint32_t off, pitch, w, h; } img;  /* pixels at buffer offset off */

static void open_dev(void)
{
    char err[256];
    int rc = vmgpu_dev_open_ex(NULL, NULL, &g_dev, err, sizeof err);
    if (rc) {
        printf("FAIL: cannot open the device: %s (%s)\n", err, vmgpu_status_name(rc));
        exit(1);
    }
}

static buf dev_buf(vmgpu_ctx *c, uint32_t bytes, unsigned flags)
{
    buf b = {0, 0, bytes};
    OK(vmgpu_phys_alloc(g_dev, bytes, 0, &b.pa));
    OK(vmgpu_va_reserve(c, bytes, 0, 0, &b.va));
    OK(vmgpu_map(c, b.va, b.pa, bytes, flags));
    return b;
}

static uint32_t *P(uint32_t *mem, img m, uint32_t x, uint32_t y)
{
    return &mem[(m.off + y * m.pitch) / 4 + x];
}

static void ref_fill(uint32_t *mem, img t, uint32_t color)
{
    for (uint32_t y = 0; y < t.h; y++)
        for (uint32_t x = 0; x < t.w; x++) *P(mem, t, x, y) = color;
}

static void ref_blit(uint32_t *mem, img s, img t)
{
    for (uint32_t y = 0; y < t.h; y++)
        for (uint32_t x = 0; x < t.w; x++)
            *P(mem, t, x, y) = *P(mem, s, (uint32_t)((uint64_t)x * s.w / t.w),
                                  (uint32_t)((uint64_t)y * s.h / t.h));
}

static uint32_t min_u(uint32_t a, uint32_t b) { return a < b ? a : b; }

static void ref_mipgen(uint32_t *mem, img s, img t)
{
    for (uint32_t y = 0; y < t.h; y++)
        for (uint32_t x = 0; x < t.w; x++) {
            uint32_t x0 = min_u(2 * x, s.w - 1), x1 = min_u(2 * x + 1, s.w - 1);
            uint32_t y0 = min_u(2 * y, s.h - 1), y1 = min_u(2 * y + 1, s.h - 1);
            uint32_t p[4] = {*P(mem, s, x0, y0), *P(mem, s, x1, y0), *P(mem, s, x0, y1), *P(mem, s, x1, y1)};
            uint32_t out = 0;
            for (int c = 0; c < 4; c++) {
                uint32_t sum = 2;
                for (int k = 0; k < 4; k++) sum += p[k] >> (8 * c) & 0xff;
                out |= (sum >> 2) << (8 * c);
            }
            *P(mem, t, x, y) = out;
        }
}

static int blit(vmgpu_stream *s, buf b, img a, img t)
{
    return vmgpu_cmd_gfx_blit(s, b.va + a.off, a.pitch, a.w, a.h, b.va + t.off, t.pitch, t.w, t.h);
}
static int mipgen(vmgpu_stream *s, buf b, img a, img t)
{
    return vmgpu_cmd_gfx_mipgen(s, b.va + a.off, a.pitch, a.w, a.h, b.va + t.off, t.pitch, t.w, t.h);
}

static unsigned diff_words(const uint32_t *a, const uint32_t *b, size_t n)
{
    unsigned d = 0;
    for (size_t i = 0; i < n; i++) d += a[i] != b[i];
    return d;
}

/* ------------------------------------------------------------------ cases */

static void t_pixels(void)
{
    open_dev();
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    const uint32_t bytes = 4 * VMGPU_GRANULE;
    buf b = dev_buf(c, bytes, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    uint32_t n = bytes / 4, *ref = malloc(bytes), *got = malloc(bytes);
    for (uint32_t i = 0; i < n; i++) ref[i] = i * 2654435761u ^ 0x5a5a1234u;
    OK(vmgpu_ctx_write(c, b.va, ref, bytes));

    /* A 61x45 "texture" crossing pages, filled in part, then scaled both ways and mipmapped. */
    img tex = {0x0f00, 61 * 4 + 20, 61, 45};
    img patch = {0x0f00 + 3 * tex.pitch + 40, tex.pitch, 9, 7};
    OK(vmgpu_cmd_gfx_fill(s, b.va + patch.off, patch.pitch, patch.w, patch.h, 0x80402010u));
    ref_fill(ref, patch, 0x80402010u);
    img big = {0x10000, 4096 + 256, 150, 17}, small = {0x36000, 64, 13, 10}, same = {0x38000, 61 * 4, 61, 45};
    OK(blit(s, b, tex, big));
    ref_blit(ref, tex, big);
    OK(blit(s, b, tex, small));
    ref_blit(ref, tex, small);
    OK(blit(s, b, tex, same));
    ref_blit(ref, tex, same);
    /* The mip chain down to 1x1, one command per level, each from the previous level. */
    img lvl = tex;
    uint32_t off = 0x30000;
    unsigned levels = 0;
    while (lvl.w > 1 || lvl.h > 1) {
        img t = {off, 0, lvl.w > 1 ? (lvl.w + 1) / 2 : 1, lvl.h > 1 ? (lvl.h + 1) / 2 : 1};
        t.pitch = t.w * 4 + 4;
        off += (t.pitch * t.h + 255) & ~255u;
        OK(mipgen(s, b, lvl, t));
        ref_mipgen(ref, lvl, t);
        lvl = t;
        levels++;
    }
    OK(vmgpu_stream_sync(s));
    OK(vmgpu_ctx_read(c, b.va, got, bytes));
    unsigned d = diff_words(got, ref, n);
    CHECK(d == 0);
    NOTE("fill 9x7, blit 61x45 -> 150x17 / 13x10 / 61x45, mip chain of %u levels to 1x1: "
         "%u of %u words differ", levels, d, n);
    free(ref); free(got);
    vmgpu_dev_close(g_dev);
}

static void t_fault(void)
{
    open_dev();
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    buf src = dev_buf(c, VMGPU_GRANULE, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    buf ro = dev_buf(c, VMGPU_GRANULE, VMGPU_MAP_READ);
    OK(vmgpu_cmd_gfx_blit(s, src.va, 64, 16, 16, ro.va + 0x100, 64, 16, 16));
    CHECK_RC(vmgpu_stream_sync(s), VMGPU_ERR_FAULT);
    const char *msg = vmgpu_dev_last_error(g_dev);
    char want[32];
    snprintf(want, sizeof want, "0x%08x", ro.va + 0x100);
    CHECK(strstr(msg, "WRITE_DENIED") != NULL);
    CHECK(strstr(msg, "GFX_BLIT") != NULL);
    CHECK(strstr(msg, want) != NULL);
    NOTE("blit into a read-only mapping: %s", msg);
    CHECK_RC(vmgpu_cmd_gfx_fill(s, src.va, 64, 1, 1, 0), VMGPU_ERR_CTX_FAULTED);
    vmgpu_dev_close(g_dev);
}

static void t_bad_arguments(void)
{
    open_dev();
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    buf b = dev_buf(c, VMGPU_GRANULE, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    uint32_t *zero = calloc(1, VMGPU_GRANULE), *got = malloc(VMGPU_GRANULE);
    OK(vmgpu_ctx_write(c, b.va, zero, VMGPU_GRANULE));
    const int E = VMGPU_ERR_INVALID;
    uint32_t v = b.va;
    unsigned n = 0;
#define BAD(call) do { CHECK_RC(call, E); n++; } while (0)
    BAD(vmgpu_cmd_gfx_fill(NULL, v, 64, 4, 4, 1));
    BAD(vmgpu_cmd_gfx_fill(s, v + 2, 64, 4, 4, 1));
    BAD(vmgpu_cmd_gfx_fill(s, v, 66, 4, 4, 1));
    BAD(vmgpu_cmd_gfx_fill(s, v, 64, 0, 4, 1));
    BAD(vmgpu_cmd_gfx_fill(s, v, 64, 4, 0, 1));
    BAD(vmgpu_cmd_gfx_fill(s, 0xfffffff0u, 64, 8, 1, 1));        /* runs past 4 GiB */
    BAD(vmgpu_cmd_gfx_fill(s, v, 0x10000000u, 4, 17, 1));        /* rows past 4 GiB */
    BAD(vmgpu_cmd_gfx_blit(NULL, v, 64, 4, 4, v + 4096, 64, 4, 4));
    BAD(vmgpu_cmd_gfx_blit(s, v + 1, 64, 4, 4, v + 4096, 64, 4, 4));
    BAD(vmgpu_cmd_gfx_blit(s, v, 63, 4, 4, v + 4096, 64, 4, 4));
    BAD(vmgpu_cmd_gfx_blit(s, v, 64, 0, 4, v + 4096, 64, 4, 4));
    BAD(vmgpu_cmd_gfx_blit(s, v, 64, 4, 0, v + 4096, 64, 4, 4));
    BAD(vmgpu_cmd_gfx_blit(s, v, 64, 4, 4, v + 4098, 64, 4, 4));
    BAD(vmgpu_cmd_gfx_blit(s, v, 64, 4, 4, v + 4096, 62, 4, 4));
    BAD(vmgpu_cmd_gfx_blit(s, v, 64, 4, 4, v + 4096, 64, 0, 4));
    BAD(vmgpu_cmd_gfx_blit(s, v, 64, 4, 4, v + 4096, 64, 4, 0));
    BAD(vmgpu_cmd_gfx_blit(s, v, 64, 0x40000001u, 1, v + 4096, 64, 4, 4));
    /* The engine's 16-bit sizes: 65536 is refused on every side, whatever fits in memory. */
    BAD(vmgpu_cmd_gfx_fill(s, v, 4 * 65536, 65536, 1, 1));
    BAD(vmgpu_cmd_gfx_fill(s, v, 4, 1, 65536, 1));
    BAD(vmgpu_cmd_gfx_blit(s, v, 4 * 65536, 65536, 1, v + 4096, 64, 4, 4));
    BAD(vmgpu_cmd_gfx_blit(s, v, 4, 1, 65536, v + 4096, 64, 4, 4));
    BAD(vmgpu_cmd_gfx_blit(s, v, 64, 4, 4, v + 4096, 4 * 65536, 65536, 1));
    BAD(vmgpu_cmd_gfx_blit(s, v, 64, 4, 4, v + 4096, 4, 1, 65536));
    BAD(vmgpu_cmd_gfx_mipgen(s, v, 4 * 65536, 65536, 2, v + 4096, 64, 2, 1));
    BAD(vmgpu_cmd_gfx_mipgen(s, v, 4, 1, 65536, v + 4096, 64, 1, 2));
    BAD(vmgpu_cmd_gfx_mipgen(s, v, 64, 4, 4, v + 4096, 4, 1, 65536));
    BAD(vmgpu_cmd_gfx_mipgen(NULL, v, 64, 4, 4, v + 4096, 64, 2, 2));
    BAD(vmgpu_cmd_gfx_mipgen(s, v + 3, 64, 4, 4, v + 4096, 64, 2, 2));
    BAD(vmgpu_cmd_gfx_mipgen(s, v, 64, 4, 4, v + 4096, 65, 2, 2));
    BAD(vmgpu_cmd_gfx_mipgen(s, v, 64, 0, 4, v + 4096, 64, 2, 2));
    BAD(vmgpu_cmd_gfx_mipgen(s, v, 64, 4, 4, v + 4096, 64, 2, 0));
    BAD(vmgpu_cmd_gfx_mipgen(s, 0xfffff000u, 4096, 4, 4, v, 64, 2, 2));
#undef BAD
    /* Nothing was queued: the stream syncs cleanly and memory is untouched. */
    OK(vmgpu_stream_sync(s));
    OK(vmgpu_ctx_read(c, b.va, got, VMGPU_GRANULE));
    CHECK(memcmp(got, zero, VMGPU_GRANULE) == 0);
    char st[128];
    OK(vmgpu_ctx_status(c, st, sizeof st));
    NOTE("%u bad calls refused with VMGPU_ERR_INVALID; nothing queued, memory untouched", n);
    /* 65535 is accepted and runs (pitch 0: every row lands on the same word). */
    OK(vmgpu_cmd_gfx_fill(s, v + 64, 0, 1, 65535, 0x12345678u));
    OK(vmgpu_cmd_gfx_blit(s, v + 64, 4, 1, 1, v + 128, 0, 1, 65535));
    OK(vmgpu_stream_sync(s));
    OK(vmgpu_ctx_read(c, b.va, got, VMGPU_GRANULE));
    CHECK(got[16] == 0x12345678u && got[32] == 0x12345678u && got[15] == 0 && got[17] == 0 &&
          got[31] == 0 && got[33] == 0);
    NOTE("fill 1 x 65535 and blit 1x1 -> 1 x 65535 (pitch 0) accepted and run");
    free(zero); free(got);
    vmgpu_dev_close(g_dev);
}

/* Graphics on ring 0 and built-in kernels on ring 1, submitted together. */
static void t_two_rings(void)
{
    open_dev();
    vmgpu_ctx *cg, *cc;
    vmgpu_stream *sg, *sc;
    OK(vmgpu_ctx_create(g_dev, 0, &cg));
    OK(vmgpu_ctx_create(g_dev, 1, &cc));
    OK(vmgpu_stream_create(cg, 0, &sg));
    OK(vmgpu_stream_create(cc, 1, &sc));
    const uint32_t gbytes = 2 * VMGPU_GRANULE, n = 5000;
    buf g = dev_buf(cg, gbytes, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    buf A = dev_buf(cc, VMGPU_GRANULE, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    buf B = dev_buf(cc, VMGPU_GRANULE, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    buf D = dev_buf(cc, VMGPU_GRANULE, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    uint32_t *ref = malloc(gbytes), *got = malloc(gbytes);
    uint32_t *a = malloc(4 * n), *bb = malloc(4 * n), *d = malloc(4 * n);
    for (uint32_t i = 0; i < gbytes / 4; i++) ref[i] = i * 0x9e3779b9u;
    for (uint32_t i = 0; i < n; i++) { a[i] = i * 7 + 1; bb[i] = 0x10000 - i * 3; }
    OK(vmgpu_ctx_write(cg, g.va, ref, gbytes));
    OK(vmgpu_ctx_write(cc, A.va, a, 4 * n));
    OK(vmgpu_ctx_write(cc, B.va, bb, 4 * n));
    img src = {0, 160, 40, 30}, up = {0x8000, 400, 97, 61}, mip = {0x4000, 200, 49, 31};
    for (int rep = 0; rep < 3; rep++) {
        OK(blit(sg, g, src, up));
        OK(mipgen(sg, g, up, mip));
        OK(vmgpu_cmd_launch(sc, VMGPU_KERNEL_ADD, D.va, A.va, B.va, n, 0));
        OK(vmgpu_cmd_launch(sc, VMGPU_KERNEL_SCALE, D.va, D.va, 0, n, 3));
    }
    ref_blit(ref, src, up);
    ref_mipgen(ref, up, mip);
    uint32_t fg, fc;
    OK(vmgpu_stream_submit(sg, &fg));
    OK(vmgpu_stream_submit(sc, &fc));
    OK(vmgpu_fence_wait(g_dev, 0, fg));
    OK(vmgpu_fence_wait(g_dev, 1, fc));
    OK(vmgpu_ctx_read(cg, g.va, got, gbytes));
    OK(vmgpu_ctx_read(cc, D.va, d, 4 * n));
    unsigned dg = diff_words(got, ref, gbytes / 4), dc = 0;
    for (uint32_t i = 0; i < n; i++) dc += d[i] != 3 * (a[i] + bb[i]);
    CHECK(dg == 0);
    CHECK(dc == 0);
    NOTE("ring 0: blit 40x30 -> 97x61 + mipgen (x3), ring 1: ADD + SCALE of %u ints (x3), "
         "submitted together: %u graphics words and %u compute elements wrong", n, dg, dc);
    free(ref); free(got); free(a); free(bb); free(d);
    vmgpu_dev_close(g_dev);
}

static void t_decode(void)
{
    uint32_t w[9] = {VMGPU_CMD_HEADER(VMGPU_OP_GFX_FILL, 5, 0), 0x1000, 256, 7, 3, 0xff00ff00u};
    char line[160];
    CHECK(vmgpu_cmd_decode(w, 6, line, sizeof line) == 6);
    CHECK(strstr(line, "GFX_FILL") && strstr(line, "7 x 3") && strstr(line, "0xff00ff00"));
    NOTE("%s", line);
    uint32_t b[9] = {VMGPU_CMD_HEADER(VMGPU_OP_GFX_BLIT, 8, 0), 0x1000, 64, 16, 8, 0x2000, 128, 32, 16};
    CHECK(vmgpu_cmd_decode(b, 9, line, sizeof line) == 9);
    CHECK(strstr(line, "GFX_BLIT") && strstr(line, "16 x 8") && strstr(line, "32 x 16"));
    NOTE("%s", line);
    b[0] = VMGPU_CMD_HEADER(VMGPU_OP_GFX_MIPGEN, 8, 0);
    CHECK(vmgpu_cmd_decode(b, 9, line, sizeof line) == 9);
    CHECK(strstr(line, "GFX_MIPGEN") != NULL);
    NOTE("%s", line);
}

static const struct { const char *name; void (*fn)(void); } cases[] = {
    {"pixels", t_pixels},
    {"fault", t_fault},
    {"bad_arguments", t_bad_arguments},
    {"two_rings", t_two_rings},
    {"decode", t_decode},
};

int main(int argc, char **argv)
{
    unsigned n = sizeof cases / sizeof cases[0];
    const char *which = argc > 1 ? argv[1] : NULL;
    for (unsigned i = 0; i < n; i++)
        if (!which || strcmp(which, cases[i].name) == 0) {
            printf("%s:\n", cases[i].name);
            cases[i].fn();
        }
    printf("%s: %d failures\n", which ? which : "all", fails);
    return fails ? 1 : 0;
}
