/*
 * Fuzzer: random and malformed command streams into the command processor (the whole
 * Verilator model through the driver core, as tests/system drives it).
 *
 * Each iteration queues a batch of 1 to 8 raw commands (vmgpu_cmd_raw) on ring 0 in context A,
 * mixing
 *   - well-formed commands the model can follow: DMA fills and copies (1D and 2D) inside A's
 *     read-write buffer, WRITE_IMM / PTE_FILL / TIMESTAMP into a scratch page of physical memory
 *     the fuzzer owns, TLB_INV of every mode, WAIT_FENCE on fences already reached, NOPs with
 *     random payloads, GFX_FILL when the graphics engine is built in;
 *   - commands that must fault on their operands: DMA into a read-only page, into a hole of the
 *     reservation, into a region nothing maps; physical operands past the end of memory or
 *     misaligned;
 *   - malformed commands: unknown opcodes, the wrong payload length for every opcode, bad flag
 *     fields (TLB_INV mode 3, a fill pattern size of 3, an unknown kernel, GFX sizes above
 *     65535), WAIT_FENCE on a ring that does not exist, a command longer than what was
 *     submitted (running past TAIL);
 * while context B on ring 1 runs fills of its own. The model then requires:
 *   - no hang: every wait ends (VMGPU_TIMEOUT_CYCLES is lowered to 20 M cycles);
 *   - a batch without a faulting command completes; one with a faulting command ends in
 *     VMGPU_ERR_FAULT whose message names ring 0 and the reason the model expects (BAD_COMMAND
 *     for every malformed command), every command before it took effect and none after it;
 *   - ring 1's work is never disturbed (its data is right, its context never faults), and
 *     ring 0 runs the next batch after the fault is cleared.
 * Privileged commands with arbitrary operands (BIND_CTX, FENCE, PTE_FILL/WRITE_IMM outside the
 * scratch page) are generated only malformed: a well-formed one would legitimately rewrite any
 * page table. `fuzz_cmdproc <seed> <iterations> <seconds>`.
 */
#define _GNU_SOURCE
#include <string.h>

#include "fuzz_common.h"
#include "vmgpu/core.h"
#include "vmgpu/regs.h"

#define PAGE VMGPU_PAGE_SIZE
#define GRAN VMGPU_GRANULE
#define ABYTES (4u * PAGE)     /* A's read-write buffer (read back after every batch) */
#define HDR(op, len, fl) ((uint32_t)VMGPU_CMD_HEADER(op, len, fl))

static fuzz_run R;
static vmgpu_dev *g_dev;
static vmgpu_dev_info g_info;
static vmgpu_ctx *ca, *cb;
static vmgpu_stream *sa, *sb;
static uint32_t va_a, va_ro, va_hole, va_b, pa_scratch;
static uint8_t model_a[ABYTES], model_scr[PAGE], known_scr[PAGE], model_b[PAGE];
static unsigned long cmds, malformed, operand_faults, batches_faulted;
static uint32_t reached[16];  /* per ring: a fence value known to be reached */

/* One command of a batch: its words, what it does to the model, and what it must fault with
 * (0: nothing; else a VMGPU_FAULT_* reason, 0xff for "PHYS_RANGE or MISALIGNED", 0xfe for
 * "PTE_INVALID or PDE_INVALID": a hole of the reservation, whether or not its page table
 * exists). */
typedef struct cmd {
    uint32_t w[16];
    unsigned n;
    unsigned fault;
    /* effect on the model when it runs */
    enum { E_NONE, E_FILL, E_COPY, E_SCR_WORDS, E_SCR_UNKNOWN, E_GFX } effect;
    uint32_t off, width, height, pitch, pattern, psize, soff, spitch;
    uint32_t words[16], nwords, inc;
} cmd;

/* ------------------------------------------------------------ generators */

static uint32_t rnd32(void) { return (uint32_t)fuzz_u64(&R); }

static void gen_fill(cmd *c)
{
    unsigned ps = (unsigned)fuzz_below(&R, 3);          /* 8, 16, 32-bit pattern */
    uint32_t h = fuzz_chance(&R, 1, 2) ? 1 : 1 + (uint32_t)fuzz_below(&R, 8);
    uint32_t pitch = h == 1 ? 0 : 64 + (uint32_t)fuzz_below(&R, ABYTES / 16);
    uint32_t w = 1 + (uint32_t)fuzz_below(&R, h == 1 ? ABYTES / 2 : pitch);
    uint32_t span = (h - 1) * pitch + w;  /* at most 7 * (64 + ABYTES / 16) + ABYTES / 2 < ABYTES */
    uint32_t off = (uint32_t)fuzz_below(&R, ABYTES - span + 1);
    c->effect = E_FILL;
    c->off = off; c->width = w; c->height = h; c->pitch = pitch; c->pattern = rnd32(); c->psize = 1u << ps;
    uint32_t w5[] = {HDR(VMGPU_OP_DMA_FILL, 5, ps), va_a + off, w, h, pitch, c->pattern};
    memcpy(c->w, w5, sizeof w5);
    c->n = 6;
}

static void gen_copy(cmd *c)
{
    /* Source in the first half (or the read-only page), destination in the second half. */
    uint32_t h = fuzz_chance(&R, 1, 2) ? 1 : 1 + (uint32_t)fuzz_below(&R, 8);
    uint32_t pitch = h == 1 ? 0 : 32 + (uint32_t)fuzz_below(&R, 512);
    uint32_t w = 1 + (uint32_t)fuzz_below(&R, h == 1 ? ABYTES / 4 : pitch);
    uint32_t span = (h - 1) * pitch + w;
    if (span > ABYTES / 2) { h = 1; pitch = 0; w = span = ABYTES / 4; }
    uint32_t soff = (uint32_t)fuzz_below(&R, ABYTES / 2 - span + 1);
    uint32_t doff = ABYTES / 2 + (uint32_t)fuzz_below(&R, ABYTES / 2 - span + 1);
    c->effect = E_COPY;
    c->off = doff; c->soff = soff; c->width = w; c->height = h; c->pitch = pitch; c->spitch = pitch;
    uint32_t w6[] = {HDR(VMGPU_OP_DMA_COPY, 6, 0), va_a + soff, va_a + doff, w, h, pitch, pitch};
    memcpy(c->w, w6, sizeof w6);
    c->n = 7;
}

/* A DMA that must fault on its first access: into the read-only page, the hole, or nowhere. */
static void gen_dma_fault(cmd *c)
{
    unsigned where = (unsigned)fuzz_below(&R, 4);
    uint32_t n = 1 + (uint32_t)fuzz_below(&R, 256);
    if (where == 0) {  /* write into the read-only page */
        uint32_t w5[] = {HDR(VMGPU_OP_DMA_FILL, 5, 0), va_ro + (uint32_t)fuzz_below(&R, PAGE - n), n, 1, 0, rnd32()};
        memcpy(c->w, w5, sizeof w5);
        c->n = 6;
        c->fault = VMGPU_FAULT_WRITE_DENIED;
    } else if (where == 1) {  /* read from the hole */
        uint32_t w6[] = {HDR(VMGPU_OP_DMA_COPY, 6, 0), va_hole + (uint32_t)fuzz_below(&R, PAGE - n), va_a, n, 1, 0, 0};
        memcpy(c->w, w6, sizeof w6);
        c->n = 7;
        c->fault = 0xfe;
    } else if (where == 2) {  /* write into the hole */
        uint32_t w5[] = {HDR(VMGPU_OP_DMA_FILL, 5, 2), va_hole + 4 * (uint32_t)fuzz_below(&R, PAGE / 4 - 64), 4 * n, 1, 0, rnd32()};
        memcpy(c->w, w5, sizeof w5);
        c->n = 6;
        c->fault = 0xfe;
    } else {  /* a 4 MiB region nothing maps (the top of the VA space) */
        uint32_t w6[] = {HDR(VMGPU_OP_DMA_COPY, 6, 0), 0xffc00000u + (uint32_t)fuzz_below(&R, 4096), va_a, n, 1, 0, 0};
        memcpy(c->w, w6, sizeof w6);
        c->n = 7;
        c->fault = VMGPU_FAULT_PDE_INVALID;
    }
}

static void gen_physical(cmd *c)
{
    unsigned kind = (unsigned)fuzz_below(&R, 6);
    uint32_t words = 1 + (uint32_t)fuzz_below(&R, 12);
    uint32_t off = 4 * (uint32_t)fuzz_below(&R, PAGE / 4 - 16);
    if (kind == 0 || kind == 1) {  /* WRITE_IMM into the scratch page */
        c->w[0] = HDR(VMGPU_OP_WRITE_IMM, words + 1, 0);
        c->w[1] = pa_scratch + off;
        for (uint32_t i = 0; i < words; i++) c->w[2 + i] = c->words[i] = rnd32();
        c->n = words + 2;
        c->effect = E_SCR_WORDS;
        c->off = off; c->nwords = words; c->inc = 0xffffffffu;  /* explicit words */
    } else if (kind == 2) {  /* PTE_FILL into the scratch page: value + k * increment */
        uint32_t w5[] = {HDR(VMGPU_OP_PTE_FILL, 4, 0), pa_scratch + off, words, rnd32(), rnd32()};
        memcpy(c->w, w5, sizeof w5);
        c->n = 5;
        c->effect = E_SCR_WORDS;
        c->off = off; c->nwords = words; c->pattern = w5[3]; c->inc = w5[4];
    } else if (kind == 3) {  /* TIMESTAMP into the scratch page */
        uint32_t w2[] = {HDR(VMGPU_OP_TIMESTAMP, 1, 0), pa_scratch + (off & ~7u)};
        memcpy(c->w, w2, sizeof w2);
        c->n = 2;
        c->effect = E_SCR_UNKNOWN;
        c->off = off & ~7u; c->nwords = 2;
    } else if (kind == 4) {  /* past the end of device memory */
        uint32_t pa = g_info.mem_size + 4 * (uint32_t)fuzz_below(&R, 1u << 20);
        uint32_t w3[] = {HDR(VMGPU_OP_WRITE_IMM, 2, 0), pa, rnd32()};
        memcpy(c->w, w3, sizeof w3);
        c->n = 3;
        c->fault = 0xff;
    } else {  /* misaligned physical operand */
        uint32_t w3[] = {HDR(VMGPU_OP_WRITE_IMM, 2, 0), pa_scratch + off + 1 + (uint32_t)fuzz_below(&R, 3), rnd32()};
        memcpy(c->w, w3, sizeof w3);
        c->n = 3;
        c->fault = 0xff;
    }
}

static void gen_harmless(cmd *c)
{
    unsigned kind = (unsigned)fuzz_below(&R, 3);
    if (kind == 0) {  /* NOP with any payload */
        uint32_t len = (uint32_t)fuzz_below(&R, 14);
        c->w[0] = HDR(VMGPU_OP_NOP, len, fuzz_below(&R, 256));
        for (uint32_t i = 0; i < len; i++) c->w[1 + i] = rnd32();
        c->n = len + 1;
    } else if (kind == 1) {  /* TLB_INV, every valid mode */
        uint32_t w4[] = {HDR(VMGPU_OP_TLB_INV, 3, fuzz_below(&R, 3)), (uint32_t)fuzz_below(&R, 256), rnd32(), rnd32()};
        memcpy(c->w, w4, sizeof w4);
        c->n = 4;
    } else {  /* WAIT_FENCE on a fence already reached (one a finished wait saw) */
        unsigned ring = (unsigned)fuzz_below(&R, g_info.n_rings < 16 ? g_info.n_rings : 16);
        uint32_t w3[] = {HDR(VMGPU_OP_WAIT_FENCE, 2, 0), ring, reached[ring] - (uint32_t)fuzz_below(&R, 3)};
        memcpy(c->w, w3, sizeof w3);
        c->n = 3;
    }
}

static void gen_gfx(cmd *c)
{
    uint32_t pitch = 4 * (16 + (uint32_t)fuzz_below(&R, 64));
    uint32_t w = 1 + (uint32_t)fuzz_below(&R, pitch / 4), h = 1 + (uint32_t)fuzz_below(&R, 8);
    uint32_t span = (h - 1) * pitch + 4 * w;
    uint32_t off = 4 * (uint32_t)fuzz_below(&R, (ABYTES - span) / 4 + 1);
    uint32_t w6[] = {HDR(VMGPU_OP_GFX_FILL, 5, 0), va_a + off, pitch, w, h, rnd32()};
    memcpy(c->w, w6, sizeof w6);
    c->n = 6;
    c->effect = E_GFX;
    c->off = off; c->width = 4 * w; c->height = h; c->pitch = pitch; c->pattern = w6[5]; c->psize = 4;
}

static const unsigned k_len[VMGPU_OP_COUNT] = {0, 2, 2, 4, 2, 3, 6, 5, 1, 1, 2, 5, 8, 8, 8};

static void gen_malformed(cmd *c, int last)
{
    unsigned kind = (unsigned)fuzz_below(&R, last ? 5 : 4);
    c->fault = VMGPU_FAULT_BAD_COMMAND;
    if (kind == 0) {  /* unknown opcode (a GFX one without the engine is unknown too) */
        unsigned op = VMGPU_OP_COUNT + (unsigned)fuzz_below(&R, 256 - VMGPU_OP_COUNT);
        if (!g_info.has_gfx && fuzz_chance(&R, 1, 3)) op = VMGPU_OP_GFX_FILL + (unsigned)fuzz_below(&R, 3);
        uint32_t len = (uint32_t)fuzz_below(&R, 10);
        c->w[0] = HDR(op, len, fuzz_below(&R, 256));
        for (uint32_t i = 0; i < len; i++) c->w[1 + i] = rnd32();
        c->n = len + 1;
    } else if (kind == 1) {  /* the wrong payload length */
        unsigned op = 1 + (unsigned)fuzz_below(&R, (g_info.has_gfx ? VMGPU_OP_COUNT : VMGPU_OP_GFX_FILL) - 1);
        uint32_t len;
        do len = (uint32_t)fuzz_below(&R, 12);
        while (op == VMGPU_OP_WRITE_IMM ? len >= 2 : len == k_len[op]);
        c->w[0] = HDR(op, len, 0);
        for (uint32_t i = 0; i < len; i++) c->w[1 + i] = rnd32();
        c->n = len + 1;
    } else if (kind == 2) {  /* bad flags */
        unsigned which = (unsigned)fuzz_below(&R, g_info.has_gfx ? 4 : 3);
        if (which == 0) {
            uint32_t w4[] = {HDR(VMGPU_OP_TLB_INV, 3, 3), rnd32(), rnd32(), rnd32()};
            memcpy(c->w, w4, sizeof w4);
            c->n = 4;
        } else if (which == 1) {
            uint32_t w6[] = {HDR(VMGPU_OP_DMA_FILL, 5, 3), va_a, 16, 1, 0, rnd32()};
            memcpy(c->w, w6, sizeof w6);
            c->n = 6;
        } else if (which == 2) {
            uint32_t w2[] = {HDR(VMGPU_OP_LAUNCH, 1, VMGPU_KERNEL_COUNT + fuzz_below(&R, 256 - VMGPU_KERNEL_COUNT)), va_a};
            memcpy(c->w, w2, sizeof w2);
            c->n = 2;
        } else {
            uint32_t w6[] = {HDR(VMGPU_OP_GFX_FILL, 5, 0), va_a, 256, 65536 + (uint32_t)fuzz_below(&R, 1000), 1, rnd32()};
            if (fuzz_chance(&R, 1, 2)) { w6[3] = 1; w6[4] = 65536 + (uint32_t)fuzz_below(&R, 1000); }
            memcpy(c->w, w6, sizeof w6);
            c->n = 6;
        }
    } else if (kind == 3) {  /* WAIT_FENCE on a ring that does not exist */
        uint32_t w3[] = {HDR(VMGPU_OP_WAIT_FENCE, 2, 0), g_info.n_rings + (uint32_t)fuzz_below(&R, 100), 0};
        memcpy(c->w, w3, sizeof w3);
        c->n = 3;
    } else {  /* longer than everything submitted after it (past TAIL): only as the last */
        unsigned op = (unsigned)fuzz_below(&R, VMGPU_OP_COUNT);
        uint32_t given = (uint32_t)fuzz_below(&R, 4);
        c->w[0] = HDR(op, given + 16 + fuzz_below(&R, 200), 0);
        for (uint32_t i = 0; i < given; i++) c->w[1 + i] = rnd32();
        c->n = given + 1;
    }
}

/* ------------------------------------------------------------ the model */

static void apply(const cmd *c)
{
    if (c->effect == E_FILL || c->effect == E_GFX) {
        for (uint32_t y = 0; y < c->height; y++)
            for (uint32_t x = 0; x < c->width; x++)
                model_a[c->off + y * c->pitch + x] = (uint8_t)(c->pattern >> (8 * (x % c->psize)));
    } else if (c->effect == E_COPY) {
        for (uint32_t y = 0; y < c->height; y++)
            memcpy(model_a + c->off + y * c->pitch, model_a + c->soff + y * c->spitch, c->width);
    } else if (c->effect == E_SCR_WORDS) {
        for (uint32_t i = 0; i < c->nwords; i++) {
            uint32_t v = c->inc == 0xffffffffu ? c->words[i] : c->pattern + i * c->inc;
            memcpy(model_scr + c->off + 4 * i, &v, 4);
            memset(known_scr + c->off + 4 * i, 1, 4);
        }
    } else if (c->effect == E_SCR_UNKNOWN) {
        memset(known_scr + c->off, 0, 8);
    }
}

static const char *reason_text(unsigned f)
{
    switch (f) {
    case VMGPU_FAULT_PDE_INVALID: return "PDE_INVALID";
    case VMGPU_FAULT_PTE_INVALID: return "PTE_INVALID";
    case VMGPU_FAULT_WRITE_DENIED: return "WRITE_DENIED";
    case VMGPU_FAULT_BAD_COMMAND: return "BAD_COMMAND";
    default: return NULL;
    }
}

/* Bytes of A and of the scratch page a batch's commands would write (those after a fault
 * too: they must not have run). Reading memory back costs one register access per word in the
 * model, so each batch reads what it may have touched; every 16th batch reads everything. */
static uint8_t touched_a[ABYTES], touched_scr[PAGE];

static void mark(const cmd *c)
{
    if (c->effect == E_FILL || c->effect == E_GFX || c->effect == E_COPY) {
        for (uint32_t y = 0; y < c->height; y++) memset(touched_a + c->off + y * c->pitch, 1, c->width);
    } else if (c->effect == E_SCR_WORDS) {
        memset(touched_scr + c->off, 1, 4 * c->nwords);
    } else if (c->effect == E_SCR_UNKNOWN) {
        memset(touched_scr + c->off, 1, 8);
    }
}

static void check_span(const char *when, int scratch, const uint8_t *touched, uint32_t size, int full)
{
    static uint8_t buf[ABYTES];
    const uint8_t *model = scratch ? model_scr : model_a;
    for (uint32_t i = 0; i < size;) {
        if (!full && !touched[i]) {
            i++;
            continue;
        }
        uint32_t j = i;
        while (j < size && (full || touched[j])) j++;
        uint32_t lo = i & ~3u, hi = (j + 3) & ~3u;  /* whole words */
        int rc = scratch ? vmgpu_phys_read(g_dev, pa_scratch + lo, buf, hi - lo)
                         : vmgpu_ctx_read(ca, va_a + lo, buf, hi - lo);
        FZ_CHECK(&R, rc == VMGPU_OK, "read back (%s): %s", when, vmgpu_dev_last_error(g_dev));
        for (uint32_t k = lo; !rc && k < hi; k++)
            if ((!scratch || known_scr[k]) && buf[k - lo] != model[k]) {
                FZ_CHECK(&R, 0, "%s: %s byte 0x%x is 0x%02x, the model says 0x%02x", when, scratch ? "scratch" : "A", k,
                         buf[k - lo], model[k]);
                break;
            }
        i = hi;
    }
}

static void check_memory(const char *when, int full)
{
    check_span(when, 0, touched_a, ABYTES, full);
    check_span(when, 1, touched_scr, PAGE, full);
    memset(touched_a, 0, sizeof touched_a);
    memset(touched_scr, 0, sizeof touched_scr);
}

static void one_batch(void)
{
    cmd batch[8];
    unsigned n = 1 + (unsigned)fuzz_below(&R, 8);
    memset(batch, 0, sizeof batch);
    for (unsigned i = 0; i < n; i++) {
        unsigned k = (unsigned)fuzz_below(&R, 100);
        cmd *c = &batch[i];
        if (k < 25) gen_fill(c);
        else if (k < 45) gen_copy(c);
        else if (k < 55) gen_physical(c);
        else if (k < 68) gen_harmless(c);
        else if (k < 73 && g_info.has_gfx) gen_gfx(c);
        else if (k < 82) gen_dma_fault(c);
        else gen_malformed(c, i == n - 1);
        mark(c);
    }
    /* Ring 1: a fill of its own every batch. */
    uint8_t bval = (uint8_t)fuzz_u64(&R);
    if (sb) {
        FZ_CHECK(&R, vmgpu_cmd_fill(sb, va_b, PAGE, bval, 1) == VMGPU_OK, "ring 1 fill");
        FZ_CHECK(&R, vmgpu_stream_submit(sb, NULL) == VMGPU_OK, "ring 1 submit");
    }
    unsigned first_fault = n;
    for (unsigned i = 0; i < n; i++) {
        FZ_CHECK(&R, vmgpu_cmd_raw(sa, batch[i].w, batch[i].n) == VMGPU_OK, "vmgpu_cmd_raw: %s",
                 vmgpu_dev_last_error(g_dev));
        cmds++;
        if (batch[i].fault && first_fault == n) first_fault = i;
        if (batch[i].fault == VMGPU_FAULT_BAD_COMMAND) malformed++;
        else if (batch[i].fault) operand_faults++;
    }
    int rc = vmgpu_stream_sync(sa);
    const char *msg = vmgpu_dev_last_error(g_dev);
    for (unsigned i = 0; i < first_fault; i++) apply(&batch[i]);
    if (first_fault == n) {
        if (rc == VMGPU_OK) reached[0] = vmgpu_fence_last(g_dev, 0);
        FZ_CHECK(&R, rc == VMGPU_OK, "a batch of %u well-formed commands -> %s: %s", n, vmgpu_status_name(rc), msg);
    } else {
        batches_faulted++;
        unsigned f = batch[first_fault].fault;
        FZ_CHECK(&R, rc == VMGPU_ERR_FAULT, "command %u of %u (header 0x%08x) must fault -> %s: %s", first_fault, n,
                 batch[first_fault].w[0], vmgpu_status_name(rc), msg);
        FZ_CHECK(&R, strncmp(msg, "ring 0:", 7) == 0, "the fault does not name ring 0: %s", msg);
        if (f == 0xff)
            FZ_CHECK(&R, strstr(msg, "PHYS_RANGE") || strstr(msg, "MISALIGNED"),
                     "physical operand: want PHYS_RANGE or MISALIGNED: %s", msg);
        else if (f == 0xfe)
            FZ_CHECK(&R, strstr(msg, "PTE_INVALID") || strstr(msg, "PDE_INVALID"),
                     "unmapped operand: want PTE_INVALID or PDE_INVALID: %s", msg);
        else
            FZ_CHECK(&R, strstr(msg, reason_text(f)) != NULL, "command %u (header 0x%08x): want %s: %s", first_fault,
                     batch[first_fault].w[0], reason_text(f), msg);
        FZ_CHECK(&R, vmgpu_ctx_status(ca, NULL, 0) == VMGPU_ERR_CTX_FAULTED, "context A not marked faulted");
        FZ_CHECK(&R, vmgpu_ctx_clear_fault(ca) == VMGPU_OK, "clear fault");
    }
    check_memory(first_fault == n ? "after a clean batch" : "after a faulting batch", R.done % 16 == 0);
    if (sb) {
        int rb = vmgpu_stream_sync(sb);
        FZ_CHECK(&R, rb == VMGPU_OK, "ring 1 sync: %s", vmgpu_dev_last_error(g_dev));
        if (rb == VMGPU_OK) reached[1] = vmgpu_fence_last(g_dev, 1);
        memset(model_b, bval, PAGE);
        uint8_t b[PAGE];
        FZ_CHECK(&R, vmgpu_ctx_read(cb, va_b, b, PAGE) == VMGPU_OK, "read B");
        FZ_CHECK(&R, memcmp(b, model_b, PAGE) == 0, "ring 1's buffer disturbed");
        FZ_CHECK(&R, vmgpu_ctx_status(cb, NULL, 0) == VMGPU_OK, "context B faulted");
    }
}

int main(int argc, char **argv)
{
    fuzz_begin(&R, "fuzz_cmdproc", argc, argv);
    if (!getenv("VMGPU_TIMEOUT_CYCLES")) setenv("VMGPU_TIMEOUT_CYCLES", "20000000", 1);
    char err[256];
    if (vmgpu_dev_open(NULL, &g_dev, err, sizeof err)) {
        printf("FAIL: no device: %s\n", err);
        return 1;
    }
    vmgpu_dev_get_info(g_dev, &g_info);
    uint32_t pa_a, pa_ro, pa_b;
    int rc = vmgpu_ctx_create(g_dev, 0, &ca) || vmgpu_stream_create(ca, 0, &sa) ||
             vmgpu_phys_alloc(g_dev, ABYTES + GRAN - ABYTES % GRAN, 0, &pa_a) ||
             vmgpu_phys_alloc(g_dev, GRAN, 0, &pa_ro) || vmgpu_phys_alloc(g_dev, GRAN, 0, &pa_scratch) ||
             vmgpu_va_reserve(ca, 4 * GRAN, 0, 0, &va_a) ||
             vmgpu_map(ca, va_a, pa_a, ABYTES, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    va_ro = va_a + 2 * GRAN;
    va_hole = va_a + 3 * GRAN;
    rc = rc || vmgpu_map(ca, va_ro, pa_ro, PAGE, VMGPU_MAP_READ);
    if (!rc && g_info.n_rings > 1)
        rc = vmgpu_ctx_create(g_dev, 1, &cb) || vmgpu_stream_create(cb, 1, &sb) || vmgpu_phys_alloc(g_dev, GRAN, 0, &pa_b) ||
             vmgpu_va_reserve(cb, GRAN, 0, 0, &va_b) || vmgpu_map(cb, va_b, pa_b, PAGE, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    if (rc) {
        printf("FAIL: set-up: %s\n", vmgpu_dev_last_error(g_dev));
        return 1;
    }
    /* Known starting contents. */
    for (uint32_t i = 0; i < ABYTES; i++) model_a[i] = (uint8_t)fuzz_u64(&R);
    vmgpu_ctx_write(ca, va_a, model_a, ABYTES);
    memset(model_scr, 0, PAGE);
    vmgpu_phys_write(g_dev, pa_scratch, model_scr, PAGE);
    memset(known_scr, 1, PAGE);
    printf("  %u rings, graphics engine %s, %u bytes of device memory\n", g_info.n_rings, g_info.has_gfx ? "yes" : "no",
           g_info.mem_size);
    while (fuzz_next(&R)) one_batch();
    /* Ring 0 still works after everything. */
    uint8_t v = 0x5c;
    FZ_CHECK(&R, vmgpu_cmd_fill(sa, va_a, 64, v, 1) == VMGPU_OK && vmgpu_stream_sync(sa) == VMGPU_OK,
             "a plain fill at the end: %s", vmgpu_dev_last_error(g_dev));
    memset(model_a, v, 64);
    check_memory("at the end", 1);
    printf("  %lu commands: %lu malformed, %lu faulting on operands; %lu batches ended in a fault\n", cmds, malformed,
           operand_faults, batches_faulted);
    vmgpu_dev_close(g_dev);
    return fuzz_end(&R);
}
