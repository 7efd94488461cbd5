/*
 * SIMT system tests: programs on the SIMT compute unit of the whole Verilator model, through
 * the driver core (vmgpu_cmd_launch_prog), behind the MMU, in contexts of their own. Kernels
 * come from clang (tests/rtl/simt/kernels, ELF files linked at 0x10000) or from NVRTC's PTX
 * (tests/ptx/fixtures) translated by sw/ptx. One ctest test per case:
 *   vmgpu_simt_system_tests <case> <kernel dir> <ptx fixture dir>
 * Every result is checked against the same computation done here; every wait is bounded.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vmgpu/core.h"
#include "vmgpu/ptx.h"
#include "vmgpu/regs.h"

static int fails;
#define CHECK(c) do { if (!(c)) { printf("  FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)
#define CHECK_RC(call, want) do { int rc_ = (call); if (rc_ != (want)) { \
    printf("  FAIL %s:%d: %s -> %s, want %s (%s)\n", __FILE__, __LINE__, #call, \
           vmgpu_status_name(rc_), vmgpu_status_name(want), vmgpu_dev_last_error(g_dev)); fails++; } } while (0)
#define OK(call) CHECK_RC(call, VMGPU_OK)
#define NOTE(...) do { printf("  "); printf(__VA_ARGS__); printf("\n"); } while (0)

static vmgpu_dev *g_dev;
static const char *g_kdir, *g_pdir;
#define PAGE VMGPU_PAGE_SIZE
#define GRAN VMGPU_GRANULE

static void open_dev(void)
{
    char err[256];
    int rc = vmgpu_dev_open(NULL, &g_dev, err, sizeof err);
    if (rc) {
        printf("FAIL: cannot open the device: %s (%s)\n", err, vmgpu_status_name(rc));
        exit(1);
    }
    vmgpu_dev_info in;
    vmgpu_dev_get_info(g_dev, &in);
    if (in.simt_lanes == 0) {
        printf("FAIL: the device has no SIMT unit (CAPS.SIMT 0)\n");
        exit(1);
    }
}

static uint8_t *read_file(const char *dir, const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("FAIL: cannot open %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n + 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) exit(1);
    b[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* Device memory of `bytes` (granules) mapped at a fresh VA with flags. */
typedef struct buf { uint32_t va, pa, size; } buf;
static buf dev_buf(vmgpu_ctx *c, uint32_t bytes, unsigned flags)
{
    buf b = {0, 0, (bytes + GRAN - 1) / GRAN * GRAN};
    OK(vmgpu_phys_alloc(g_dev, b.size, 0, &b.pa));
    OK(vmgpu_va_reserve(c, b.size, 0, 0, &b.va));
    OK(vmgpu_map(c, b.va, b.pa, b.size, flags));
    return b;
}

static void put_words(const buf *b, uint32_t off, const uint32_t *w, size_t n)
{
    OK(vmgpu_phys_write(g_dev, b->pa + off, w, 4 * n));
}

/* ------------------------------------------------------------------ programs */

/* A kernel loaded into a context: where it starts and how its arguments are laid out. */
typedef struct prog {
    uint32_t entry;          /* VA of the first instruction */
    uint8_t *image;          /* clang: the ELF file; PTX: the translated code */
    uint32_t image_va;       /* VA of image[0] (PTX) */
    uint32_t text_va, text_off, text_bytes; /* clang: the code segment in the ELF */
    ptx_module *mod;         /* PTX: the module (its kernel's .param layout) */
    const ptx_kernel *k;
} prog;

/* clang's ELF: PT_LOAD segments at their link addresses (0x10000 up, one granule), code and
 * read-only data mapped read-only, writable segments read-write; the shared window skipped. */
static prog load_elf(vmgpu_ctx *c, const char *name)
{
    prog p;
    memset(&p, 0, sizeof p);
    size_t len;
    uint8_t *b = read_file(g_kdir, name, &len);
    p.image = b;
    uint32_t u32v;
    #define U32(o) (memcpy(&u32v, b + (o), 4), u32v)
    #define U16(o) ((uint32_t)b[(o)] | (uint32_t)b[(o) + 1] << 8)
    if (len < 52 || memcmp(b, "\x7f" "ELF", 4) != 0 || b[4] != 1) {
        printf("FAIL: %s is not an ELF32 file\n", name);
        exit(1);
    }
    p.entry = U32(24);
    uint32_t phoff = U32(28), phentsize = U16(42), phnum = U16(44);
    uint32_t va, pa;
    OK(vmgpu_va_reserve(c, GRAN, GRAN, 0x10000, &va));
    OK(vmgpu_phys_alloc(g_dev, GRAN, 0, &pa));
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < phnum; i++) {
            uint32_t ph = phoff + i * phentsize;
            uint32_t type = U32(ph), off = U32(ph + 4), sva = U32(ph + 8), filesz = U32(ph + 16),
                     memsz = U32(ph + 20), flags = U32(ph + 24);
            if (type != 1 || memsz == 0 || sva >= VMGPU_SIMT_SHARED_BASE) continue;
            if (sva < va || sva + memsz > va + GRAN) {
                printf("FAIL: %s: segment at 0x%08x is outside [0x%08x, +64 KiB)\n", name, sva, va);
                exit(1);
            }
            uint32_t first = sva & ~(PAGE - 1), last = (sva + memsz + PAGE - 1) & ~(PAGE - 1);
            if (pass == 0) {
                uint8_t *seg = calloc(1, memsz + 4);
                memcpy(seg, b + off, filesz);
                OK(vmgpu_phys_write(g_dev, pa + (sva - va), seg, (memsz + 3) & ~3u));
                free(seg);
                OK(vmgpu_map(c, first, pa + (first - va), last - first,
                             VMGPU_MAP_READ | ((flags & 2) ? VMGPU_MAP_WRITE : 0)));
                if (flags & 1) {
                    p.text_va = sva;
                    p.text_off = off;
                    p.text_bytes = filesz;
                }
            }
        }
    }
    #undef U32
    #undef U16
    return p;
}

/* PTX: translated at load time, the code mapped read-only at a fresh VA (it is position
 * independent), the kernel's entry at its offset. */
static prog load_ptx(vmgpu_ctx *c, const char *name)
{
    prog p;
    memset(&p, 0, sizeof p);
    size_t len;
    char *text = (char *)read_file(g_pdir, name, &len);
    ptx_error err;
    ptx_status st = ptx_translate(text, len, NULL, &p.mod, &err);
    free(text);
    if (st != PTX_OK) {
        printf("FAIL: %s: %s at line %d (%s): %s\n", name, ptx_status_name(st), err.line,
               err.instr, err.message);
        exit(1);
    }
    p.k = &p.mod->kernels[0];
    buf code = dev_buf(c, p.mod->code_bytes, VMGPU_MAP_READ);
    uint32_t words = (p.mod->code_bytes + 3) / 4;
    uint32_t *w = calloc(words, 4);
    memcpy(w, p.mod->code, p.mod->code_bytes);
    put_words(&code, 0, w, words);
    free(w);
    p.image_va = code.va;
    p.entry = code.va + p.k->entry;
    NOTE("%s: kernel %s, %u bytes of code at va 0x%08x, %u parameters, stack %u, shared %u", name,
         p.k->name, p.mod->code_bytes, code.va, p.k->num_params, p.k->stack_bytes, p.k->shared_bytes);
    CHECK(p.k->stack_bytes <= VMGPU_SIMT_STACK_BYTES);
    return p;
}

static void prog_free(prog *p)
{
    free(p->image);
    if (p->mod) ptx_module_free(p->mod);
}

/* The argument block: clang's kernels take a struct of 32-bit words; PTX kernels their .param
 * list (an 8-byte pointer gets the VA in its low word). */
static buf args_block(vmgpu_ctx *c, const prog *p, const uint32_t *v, unsigned n)
{
    buf a = dev_buf(c, PAGE, VMGPU_MAP_READ);
    uint32_t w[32] = {0};
    if (!p->k) {
        memcpy(w, v, 4 * n);
    } else {
        CHECK(p->k->num_params == n);
        for (unsigned i = 0; i < n && i < p->k->num_params; i++) {
            const ptx_param *q = &p->k->params[i];
            CHECK((q->size == 4 || q->size == 8) && q->offset + q->size <= sizeof w);
            w[q->offset / 4] = v[i];
        }
    }
    put_words(&a, 0, w, 32);
    return a;
}

static int launch(vmgpu_stream *s, const prog *p, const buf *args, uint32_t gx, uint32_t bx)
{
    uint32_t grid[3] = {gx, 1, 1}, block[3] = {bx, 1, 1};
    return vmgpu_cmd_launch_prog(s, p->entry, args->va, grid, block, p->k ? p->k->shared_bytes : 0);
}

static uint32_t slots(void)
{
    vmgpu_dev_info in;
    vmgpu_dev_get_info(g_dev, &in);
    return in.simt_lanes * in.simt_warps;
}

/* ------------------------------------------------------------------ kernels */

/* c[i] = a[i] + b[i] over a grid-stride loop; nothing written past n. Prints the cycles from
 * an event before the launch to one after it. */
static void run_vadd(vmgpu_ctx *c, vmgpu_stream *s, const prog *p, uint32_t n, uint32_t grid,
                     const char *what)
{
    uint32_t bytes = 4 * (n + 64);
    buf A = dev_buf(c, bytes, VMGPU_MAP_READ), B = dev_buf(c, bytes, VMGPU_MAP_READ),
        C = dev_buf(c, bytes, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    uint32_t *a = malloc(bytes), *b = malloc(bytes), *r = malloc(bytes);
    srand(n);
    for (uint32_t i = 0; i < n + 64; i++) {
        a[i] = (uint32_t)rand() * 2654435761u;
        b[i] = (uint32_t)rand() ^ 0x5a5a5a5au;
        r[i] = 0xDEADBEEFu;
    }
    put_words(&A, 0, a, n + 64);
    put_words(&B, 0, b, n + 64);
    put_words(&C, 0, r, n + 64);
    uint32_t v[4] = {A.va, B.va, C.va, n};
    buf args = args_block(c, p, v, 4);
    vmgpu_event *e0, *e1;
    OK(vmgpu_event_create(g_dev, &e0));
    OK(vmgpu_event_create(g_dev, &e1));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    OK(vmgpu_event_record(e0, s));
    OK(launch(s, p, &args, grid, slots()));
    OK(vmgpu_event_record(e1, s));
    OK(vmgpu_stream_sync(s));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    uint64_t cyc = 0;
    OK(vmgpu_event_elapsed(e0, e1, &cyc));
    double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    OK(vmgpu_phys_read(g_dev, C.pa, r, bytes));
    unsigned bad = 0;
    for (uint32_t i = 0; i < n; i++)
        if (r[i] != a[i] + b[i] && bad++ < 5) NOTE("c[%u] = 0x%08x, want 0x%08x", i, r[i], a[i] + b[i]);
    for (uint32_t i = n; i < n + 64; i++)
        if (r[i] != 0xDEADBEEFu && bad++ < 5) NOTE("c[%u] written past n", i);
    CHECK(bad == 0);
    NOTE("%s: n %u grid %u x %u: %u wrong; %llu cycles (%.2f per element)", what, n, grid,
         slots(), bad, (unsigned long long)cyc, (double)cyc / n);
    printf("%s_cycles %llu\n", what, (unsigned long long)cyc);
    /* the model's speed while the unit is busy: device cycles over the wall time of the
     * launch and its sync (the submission and the answer included) */
    printf("%s_busy_sim_cycles_per_second %.0f\n", what, wall > 0 ? (double)cyc / wall : 0.0);
    OK(vmgpu_event_destroy(e0));
    OK(vmgpu_event_destroy(e1));
    free(a);
    free(b);
    free(r);
}

static void run_reduce(vmgpu_ctx *c, vmgpu_stream *s, const prog *p)
{
    /* the kernel's part[]: 256 ints in kernels/reduce.c, 64 in NVRTC's reduce.cu */
    const uint32_t cap = p->k ? 64 : 256;
    const uint32_t block = slots() < cap ? slots() : cap, blocks = 6, n = block * blocks;
    const uint32_t spin = 96 / block ? 96 / block : 1;  /* the last writer ~96 iterations late */
    buf IN = dev_buf(c, 4 * n, VMGPU_MAP_READ), OUT = dev_buf(c, 4 * blocks, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    uint32_t *in = malloc(4 * n), out[64];
    srand(3);
    for (uint32_t i = 0; i < n; i++) in[i] = (uint32_t)(rand() % 100000 - 50000);
    put_words(&IN, 0, in, n);
    uint32_t v[3] = {IN.va, OUT.va, spin};
    buf args = args_block(c, p, v, 3);
    OK(launch(s, p, &args, blocks, block));
    OK(vmgpu_stream_sync(s));
    OK(vmgpu_phys_read(g_dev, OUT.pa, out, 4 * blocks));
    unsigned bad = 0;
    for (uint32_t k = 0; k < blocks; k++) {
        uint32_t want = 0;
        for (uint32_t t = 0; t < block; t++) {
            uint32_t x = in[k * block + t];
            for (uint32_t j = 0; j < t * spin; j++) x = (x ^ j) * 3;
            want += x;
        }
        if (out[k] != want && bad++ < 5) NOTE("block %u sum %d, want %d", k, (int)out[k], (int)want);
    }
    CHECK(bad == 0);
    NOTE("reduce: %u blocks of %u threads, shared memory and bar.sync: %u wrong sums", blocks, block, bad);
    free(in);
}

static unsigned collatz_ref(uint32_t x, unsigned cap)
{
    unsigned s = 0;
    while (x > 1 && s < cap) {
        x = (x & 1) ? 3 * x + 1 : x >> 1;
        ++s;
    }
    return s;
}

static void run_collatz(vmgpu_ctx *c, vmgpu_stream *s, const prog *p)
{
    const uint32_t n = 45, cap = 300, block = slots(), grid = (n + block - 1) / block;
    buf IN = dev_buf(c, 4 * (n + 16), VMGPU_MAP_READ), OUT = dev_buf(c, 4 * (n + 16), VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    uint32_t in[64], out[64];
    for (uint32_t i = 0; i < n + 16; i++) {
        in[i] = 1 + i * 7919u % 1000u;
        out[i] = 0xDEADBEEFu;
    }
    put_words(&IN, 0, in, n + 16);
    put_words(&OUT, 0, out, n + 16);
    uint32_t v[4] = {IN.va, OUT.va, n, cap};
    buf args = args_block(c, p, v, 4);
    OK(launch(s, p, &args, grid, block));
    OK(vmgpu_stream_sync(s));
    OK(vmgpu_phys_read(g_dev, OUT.pa, out, 4 * (n + 16)));
    unsigned bad = 0;
    for (uint32_t i = 0; i < n + 16; i++) {
        uint32_t want = i < n ? collatz_ref(in[i], cap) : 0xDEADBEEFu;
        if (out[i] != want && bad++ < 5) NOTE("out[%u] = %u, want %u", i, out[i], want);
    }
    CHECK(bad == 0);
    NOTE("collatz: %u elements, data-dependent loops per lane: %u wrong", n, bad);
}

/* ------------------------------------------------------------------ cases */

static void t_vadd_clang(void)
{
    open_dev();
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    prog p = load_elf(c, "vadd.elf");
    run_vadd(c, s, &p, 1000, 3, "simt_vadd_n1000");
    run_vadd(c, s, &p, 4096, 4, "simt_vadd_n4096");
    prog_free(&p);
    OK(vmgpu_stream_destroy(s));
    OK(vmgpu_ctx_destroy(c));
    vmgpu_dev_close(g_dev);
}

static void t_reduce_clang(void)
{
    open_dev();
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    prog p = load_elf(c, "reduce.elf");
    run_reduce(c, s, &p);
    prog_free(&p);
    vmgpu_dev_close(g_dev);
}

static void t_collatz_clang(void)
{
    open_dev();
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    prog p = load_elf(c, "collatz.elf");
    run_collatz(c, s, &p);
    prog_free(&p);
    vmgpu_dev_close(g_dev);
}

static void t_ptx(void)
{
    open_dev();
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 1, &s));
    prog p = load_ptx(c, "vadd.ptx");
    /* NVRTC's vadd has no grid-stride loop: one thread per element */
    uint32_t n = 1000;
    run_vadd(c, s, &p, n, (n + slots() - 1) / slots(), "simt_ptx_vadd_n1000");
    prog_free(&p);
    p = load_ptx(c, "reduce.ptx");
    run_reduce(c, s, &p);
    prog_free(&p);
    p = load_ptx(c, "collatz.ptx");
    run_collatz(c, s, &p);
    prog_free(&p);
    vmgpu_dev_close(g_dev);
}

/* vadd with a[] and c[] in registered host memory (the host aperture: loads and stores of the
 * unit go out of the host port) and b[] in device memory. */
static void t_vadd_host(void)
{
    open_dev();
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    prog p = load_elf(c, "vadd.elf");
    const uint32_t n = 700, bytes = GRAN;
    uint32_t *ha = NULL, *hc = NULL;
    if (posix_memalign((void **)&ha, PAGE, bytes) || posix_memalign((void **)&hc, PAGE, bytes)) exit(1);
    uint32_t b[1024];
    for (uint32_t i = 0; i < bytes / 4; i++) {
        ha[i] = i * 7u + 1u;
        hc[i] = 0xDEADBEEFu;
    }
    for (uint32_t i = 0; i < 1024; i++) b[i] = 0x10000u * i;
    uint32_t hpa, hpc, va_a, va_c;
    OK(vmgpu_host_register(g_dev, ha, bytes, &hpa));
    OK(vmgpu_host_register(g_dev, hc, bytes, &hpc));
    OK(vmgpu_va_reserve(c, bytes, 0, 0, &va_a));
    OK(vmgpu_va_reserve(c, bytes, 0, 0, &va_c));
    OK(vmgpu_map(c, va_a, hpa, bytes, VMGPU_MAP_READ | VMGPU_MAP_HOST));
    OK(vmgpu_map(c, va_c, hpc, bytes, VMGPU_MAP_READ | VMGPU_MAP_WRITE | VMGPU_MAP_HOST));
    buf B = dev_buf(c, 4096, VMGPU_MAP_READ);
    put_words(&B, 0, b, 1024);
    uint32_t v[4] = {va_a, B.va, va_c, n};
    buf args = args_block(c, &p, v, 4);
    OK(launch(s, &p, &args, 2, slots()));
    OK(vmgpu_stream_sync(s));
    unsigned bad = 0;
    for (uint32_t i = 0; i < n + 16; i++) {
        uint32_t want = i < n ? ha[i] + b[i] : 0xDEADBEEFu;
        if (hc[i] != want && bad++ < 5) NOTE("c[%u] = 0x%08x, want 0x%08x", i, hc[i], want);
    }
    CHECK(bad == 0);
    NOTE("vadd with a[] and c[] in host memory (zero copy through the host port): %u wrong", bad);
    OK(vmgpu_unmap(c, va_a, bytes));
    OK(vmgpu_unmap(c, va_c, bytes));
    OK(vmgpu_host_unregister(g_dev, ha));
    OK(vmgpu_host_unregister(g_dev, hc));
    prog_free(&p);
    vmgpu_dev_close(g_dev);
    free(ha);
    free(hc);
}

/* In-place vadd (c = a) with a[] mapped read-only: the loads of a page are answered, then the
 * first store to that same page must still fault WRITE_DENIED (a translation kept for reading
 * does not allow writing), and a[] stays unchanged. */
static void t_write_denied(void)
{
    open_dev();
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    prog p = load_elf(c, "vadd.elf");
    const uint32_t n = 256;
    buf A = dev_buf(c, 4 * n, VMGPU_MAP_READ), B = dev_buf(c, 4 * n, VMGPU_MAP_READ);
    uint32_t a[256], b[256], r[256];
    for (uint32_t i = 0; i < n; i++) a[i] = i, b[i] = 100u;
    put_words(&A, 0, a, n);
    put_words(&B, 0, b, n);
    uint32_t v[4] = {A.va, B.va, A.va, n};
    buf args = args_block(c, &p, v, 4);
    OK(launch(s, &p, &args, 1, slots()));
    CHECK_RC(vmgpu_stream_sync(s), VMGPU_ERR_FAULT);
    char msg[256] = "";
    CHECK_RC(vmgpu_ctx_status(c, msg, sizeof msg), VMGPU_ERR_CTX_FAULTED);
    NOTE("%s", msg);
    uint32_t fva = 0;
    const char *q = strstr(msg, "WRITE_DENIED on write of VA ");
    CHECK(q && sscanf(q, "WRITE_DENIED on write of VA 0x%x", &fva) == 1);
    CHECK(fva >= A.va && fva < A.va + 4 * n);
    CHECK(strstr(msg, "SIMT write by lane") != NULL);
    OK(vmgpu_phys_read(g_dev, A.pa, r, 4 * n));
    unsigned changed = 0;
    for (uint32_t i = 0; i < n; i++) changed += r[i] != a[i];
    CHECK(changed == 0);
    NOTE("store to a read-only page after loads from it: WRITE_DENIED, %u words changed", changed);
    prog_free(&p);
    vmgpu_dev_close(g_dev);
}

/* kernels/atomics.c: every thread of `blocks` blocks on the same words (amoadd tickets, the
 * other AMOs, a shared-memory counter, an amocas loop). Buffers in device memory except `words`,
 * mapped with wflags at wva (0: a fresh read-write buffer). Returns the launch's status. */
typedef struct atom_bufs { buf cnt, tick, words, swp; uint32_t threads, total; } atom_bufs;
static int run_atomics(vmgpu_ctx *c, vmgpu_stream *s, const prog *p, uint32_t blocks, uint32_t iters,
                       uint32_t words_va, atom_bufs *ab)
{
    ab->threads = blocks * slots();
    ab->total = ab->threads * iters;
    ab->cnt = dev_buf(c, 4, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    ab->tick = dev_buf(c, 4 * ab->total, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    ab->words = dev_buf(c, 64, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    ab->swp = dev_buf(c, 4 * ab->threads, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    uint32_t *t = malloc(4 * ab->total);
    for (uint32_t i = 0; i < ab->total; i++) t[i] = 0xFFFFFFFFu;
    put_words(&ab->tick, 0, t, ab->total);
    free(t);
    uint32_t z = 0;
    put_words(&ab->cnt, 0, &z, 1);
    const uint32_t init[16] = {0, 0, 0xFFFFFFFFu, 0x80000000u, 0x7FFFFFFFu, 0, 0xFFFFFFFFu};
    put_words(&ab->words, 0, init, 16);
    uint32_t v[5] = {ab->cnt.va, ab->tick.va, words_va ? words_va : ab->words.va, ab->swp.va, iters};
    buf args = args_block(c, p, v, 5);
    OK(launch(s, p, &args, blocks, slots()));
    return vmgpu_stream_sync(s);
}

static void check_atomics(const atom_bufs *ab)
{
    uint32_t cnt = 0, w[16];
    OK(vmgpu_phys_read(g_dev, ab->cnt.pa, &cnt, 4));
    OK(vmgpu_phys_read(g_dev, ab->words.pa, w, 64));
    CHECK(cnt == ab->total);
    uint32_t *t = malloc(4 * ab->total), *per = calloc(ab->threads, 4);
    OK(vmgpu_phys_read(g_dev, ab->tick.pa, t, 4 * ab->total));
    unsigned bad = 0;
    for (uint32_t i = 0; i < ab->total; i++) {
        if (t[i] < ab->threads) per[t[i]]++;
        else bad++;
    }
    for (uint32_t g = 0; g < ab->threads; g++) bad += per[g] != ab->total / ab->threads;
    CHECK(bad == 0);
    uint32_t x = 0, o = 0, a = 0xFFFFFFFFu, uM = 0, um = 0xFFFFFFFFu;
    int32_t sM = INT32_MIN, sm = INT32_MAX;
    for (uint32_t g = 0; g < ab->threads; g++) {
        uint32_t h = g * 2654435761u;
        x ^= h;
        o |= 1u << (g & 31);
        a &= ~(1u << (g & 31));
        if ((int32_t)h > sM) sM = (int32_t)h;
        if ((int32_t)h < sm) sm = (int32_t)h;
        if (h > uM) uM = h;
        if (h < um) um = h;
    }
    CHECK(w[0] == x && w[1] == o && w[2] == a && w[3] == (uint32_t)sM && w[4] == (uint32_t)sm &&
          w[5] == uM && w[6] == um);
    CHECK(w[7] >= 1 && w[7] <= ab->threads);
    CHECK(w[8] == ab->total);  /* the blocks' shared-memory counters */
    CHECK(w[9] == ab->total);  /* the amocas loop */
    NOTE("atomics: %u threads x %u amoadd on one word: counter %u, %u ticket errors; xor/or/and/"
         "min/max[u] %s; shared counters %u; amocas counter %u", ab->threads,
         ab->total / ab->threads, cnt, bad,
         (w[0] == x && w[1] == o && w[2] == a && w[3] == (uint32_t)sM) ? "right" : "WRONG", w[8], w[9]);
    free(t);
    free(per);
}

/* Atomics through the MMU: clang's atomics.c (all lanes, warps and blocks on one word) while
 * context B's DMA copies on ring 1, then NVRTC's histogram PTX checked against the same
 * computation done here. */
static void t_atomics(void)
{
    open_dev();
    vmgpu_ctx *c, *cb;
    vmgpu_stream *s, *sb;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_ctx_create(g_dev, 1, &cb));
    OK(vmgpu_stream_create(c, 0, &s));
    OK(vmgpu_stream_create(cb, 1, &sb));
    /* B: DMA copies on the other ring at the same time (other masters on the fabric) */
    buf X = dev_buf(cb, GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE), Y = dev_buf(cb, GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    for (int k = 0; k < 4; k++) OK(vmgpu_cmd_copy(sb, Y.va, X.va, GRAN));
    uint32_t fb = 0;
    OK(vmgpu_stream_submit(sb, &fb));
    prog p = load_elf(c, "atomics.elf");
    atom_bufs ab;
    OK(run_atomics(c, s, &p, 3, 5, 0, &ab));
    check_atomics(&ab);
    OK(vmgpu_stream_sync(sb));
    prog_free(&p);

    p = load_ptx(c, "atomics.ptx");
    const uint32_t n = 2 * slots() - 3;
    buf IN = dev_buf(c, 4 * n, VMGPU_MAP_READ), BINS = dev_buf(c, 128, VMGPU_MAP_READ | VMGPU_MAP_WRITE),
        TOP = dev_buf(c, 4, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    uint32_t *in = malloc(4 * n), bins[32] = {0}, top = 0, want[16] = {0}, wtop = 0, wmin = 0xFFFFFFFFu;
    for (uint32_t i = 0; i < n; i++) {
        in[i] = (i * 7919u + 13u) % 1000u;
        want[in[i] & 15]++;
        if (in[i] > wtop) wtop = in[i];
        if (in[i] < wmin) wmin = in[i];
    }
    put_words(&IN, 0, in, n);
    bins[18] = 0xFFFFFFFFu;
    put_words(&BINS, 0, bins, 32);
    put_words(&TOP, 0, &top, 1);
    uint32_t v[4] = {IN.va, BINS.va, TOP.va, n};
    buf args = args_block(c, &p, v, 4);
    OK(launch(s, &p, &args, 2, slots()));
    OK(vmgpu_stream_sync(s));
    OK(vmgpu_phys_read(g_dev, BINS.pa, bins, 128));
    OK(vmgpu_phys_read(g_dev, TOP.pa, &top, 4));
    unsigned bad = 0;
    for (int k = 0; k < 16; k++) bad += bins[k] != want[k];
    CHECK(bad == 0);
    CHECK(top == wtop && bins[18] == wmin && bins[16] > 0 && bins[16] < n);
    NOTE("PTX histogram of %u values: %u wrong bins, max %u (want %u), min %u (want %u)", n, bad,
         top, wtop, bins[18], wmin);
    free(in);
    prog_free(&p);
    vmgpu_dev_close(g_dev);
}

/* AMOs that must be refused: `words` mapped read-only faults WRITE_DENIED like a store (access
 * write, the PC an AMO, nothing changed on that page), and `words` in host memory (host
 * aperture) faults HOST_ATOMIC. */
static void t_atomics_denied(void)
{
    open_dev();
    for (int host = 0; host < 2; host++) {
        vmgpu_ctx *c;
        vmgpu_stream *s;
        OK(vmgpu_ctx_create(g_dev, 0, &c));
        OK(vmgpu_stream_create(c, 0, &s));
        prog p = load_elf(c, "atomics.elf");
        uint32_t *hw = NULL, wva = 0, hpa = 0, init[16];
        buf RO = {0, 0, 0};
        for (int k = 0; k < 16; k++) init[k] = 0x1000u + (uint32_t)k;
        if (host) {
            if (posix_memalign((void **)&hw, PAGE, GRAN)) exit(1);
            memset(hw, 0, GRAN);
            memcpy(hw, init, sizeof init);
            OK(vmgpu_host_register(g_dev, hw, GRAN, &hpa));
            OK(vmgpu_va_reserve(c, GRAN, 0, 0, &wva));
            OK(vmgpu_map(c, wva, hpa, GRAN, VMGPU_MAP_READ | VMGPU_MAP_WRITE | VMGPU_MAP_HOST));
        } else {
            RO = dev_buf(c, 64, VMGPU_MAP_READ);
            put_words(&RO, 0, init, 16);
            wva = RO.va;
        }
        atom_bufs ab;
        CHECK_RC(run_atomics(c, s, &p, 2, 2, wva, &ab), VMGPU_ERR_FAULT);
        char msg[256] = "";
        CHECK_RC(vmgpu_ctx_status(c, msg, sizeof msg), VMGPU_ERR_CTX_FAULTED);
        NOTE("%s", msg);
        const char *why = host ? "HOST_ATOMIC on write of VA " : "WRITE_DENIED on write of VA ";
        uint32_t fva = 0, pc = 0;
        const char *q = strstr(msg, why);
        CHECK(q && sscanf(q + strlen(why), "0x%x", &fva) == 1);
        CHECK(fva == wva);  /* the first AMO on that page: words[0] */
        CHECK(strstr(msg, "SIMT write by lane") != NULL);
        q = strstr(msg, "at PC ");
        CHECK(q && sscanf(q, "at PC 0x%x", &pc) == 1);
        CHECK(pc >= p.text_va && pc + 4 <= p.text_va + p.text_bytes);
        if (pc >= p.text_va && pc + 4 <= p.text_va + p.text_bytes) {
            uint32_t inst;
            memcpy(&inst, p.image + p.text_off + (pc - p.text_va), 4);
            CHECK((inst & 0x7F) == 0x2F);  /* an AMO */
        }
        uint32_t now[16];
        if (host) memcpy(now, hw, sizeof now);
        else OK(vmgpu_phys_read(g_dev, RO.pa, now, sizeof now));
        CHECK(memcmp(now, init, sizeof init) == 0);
        uint32_t cnt = 0;
        OK(vmgpu_phys_read(g_dev, ab.cnt.pa, &cnt, 4));
        CHECK(cnt <= ab.total);  /* the amoadds before it on a writable page ran */
        NOTE("%s: AMO refused with %s, the page unchanged, %u amoadds before it", host ? "host page" : "read-only page",
             host ? "HOST_ATOMIC" : "WRITE_DENIED", cnt);
        prog_free(&p);
        if (host) {
            OK(vmgpu_ctx_clear_fault(c));
            OK(vmgpu_unmap(c, wva, GRAN));
            OK(vmgpu_host_unregister(g_dev, hw));
            free(hw);
        }
    }
    vmgpu_dev_close(g_dev);
}

/* A grid-stride store past the end of a mapping (oob.c) in context A while context B runs
 * vadd on the other ring: A's launch stops with a precise fault naming ASID, VA, lane, warp and
 * PC; B's results are right; A is sticky-faulted, B is not; A recovers after clear_fault and the
 * missing page mapped. */
static void t_fault(void)
{
    open_dev();
    vmgpu_ctx *ca, *cb;
    vmgpu_stream *sa, *sb;
    OK(vmgpu_ctx_create(g_dev, 0, &ca));
    OK(vmgpu_ctx_create(g_dev, 1, &cb));
    OK(vmgpu_stream_create(ca, 0, &sa));
    OK(vmgpu_stream_create(cb, 1, &sb));
    prog pa = load_elf(ca, "oob.elf");
    prog pb = load_elf(cb, "vadd.elf");
    const uint32_t k = 37, n = 200, threads = 2 * slots();
    uint32_t lanes;
    {
        vmgpu_dev_info in;
        vmgpu_dev_get_info(g_dev, &in);
        lanes = in.simt_lanes;
    }
    /* out[]: the last k words of two mapped pages; the third page of the granule unmapped */
    buf O = {0, 0, GRAN};
    OK(vmgpu_phys_alloc(g_dev, GRAN, 0, &O.pa));
    OK(vmgpu_va_reserve(ca, GRAN, 0, 0, &O.va));
    OK(vmgpu_map(ca, O.va, O.pa, 2 * PAGE, VMGPU_MAP_READ | VMGPU_MAP_WRITE));
    const uint32_t page_end = O.va + 2 * PAGE, out = page_end - 4 * k;
    buf L = dev_buf(ca, 4 * n, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    uint32_t init[2 * PAGE / 4], zero[256] = {0};
    for (uint32_t i = 0; i < 2 * PAGE / 4; i++) init[i] = 0xDEADBEEFu;
    put_words(&O, 0, init, 2 * PAGE / 4);
    put_words(&L, 0, zero, n);
    uint32_t v[3] = {out, L.va, n};
    buf args = args_block(ca, &pa, v, 3);
    OK(launch(sa, &pa, &args, 2, slots()));
    uint32_t fa = 0;
    OK(vmgpu_stream_submit(sa, &fa));
    /* B's work goes to the device while A's launch is queued or running */
    uint32_t nb = 600;
    uint32_t bytes = 4 * nb;
    buf A = dev_buf(cb, bytes, VMGPU_MAP_READ), B = dev_buf(cb, bytes, VMGPU_MAP_READ),
        C = dev_buf(cb, bytes, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    uint32_t *a = malloc(bytes), *b = malloc(bytes), *r = malloc(bytes);
    for (uint32_t i = 0; i < nb; i++) a[i] = i * 3u, b[i] = 1000000u - i;
    put_words(&A, 0, a, nb);
    put_words(&B, 0, b, nb);
    uint32_t vb[4] = {A.va, B.va, C.va, nb};
    buf argsb = args_block(cb, &pb, vb, 4);
    OK(launch(sb, &pb, &argsb, 2, slots()));
    uint32_t fb = 0;
    OK(vmgpu_stream_submit(sb, &fb));

    CHECK_RC(vmgpu_fence_wait(g_dev, 0, fa), VMGPU_ERR_FAULT);
    char msg[256] = "";
    CHECK_RC(vmgpu_ctx_status(ca, msg, sizeof msg), VMGPU_ERR_CTX_FAULTED);
    NOTE("A: %s", msg);
    unsigned asid = 0, lane = 99, warp = 99;
    uint32_t fva = 0, pc = 0;
    const char *p1 = strstr(msg, "on write of VA "), *p2 = strstr(msg, "SIMT write by lane ");
    CHECK(p1 && sscanf(p1, "on write of VA 0x%x, ASID %u", &fva, &asid) == 2);
    CHECK(p2 && sscanf(p2, "SIMT write by lane %u warp %u at PC 0x%x", &lane, &warp, &pc) == 3);
    CHECK(asid == vmgpu_ctx_asid(ca));
    CHECK(fva >= page_end && fva < page_end + PAGE && (fva & 3) == 0);
    uint32_t fi = (fva - out) / 4, t = fi % threads;
    CHECK(t < slots());  /* block 0 runs first and meets the unmapped page */
    CHECK(lane == t % lanes && warp == t / lanes);
    CHECK(fi >= k && fi < k + threads);
    uint32_t inst = 0;
    if (pc >= pa.text_va && pc + 4 <= pa.text_va + pa.text_bytes)
        memcpy(&inst, pa.image + pa.text_off + (pc - pa.text_va), 4);
    CHECK((inst & 0x7f) == 0x23);  /* a store */
    NOTE("A faulted at element %u: lane %u warp %u PC 0x%08x (instruction 0x%08x)", fi, lane, warp, pc, inst);
    /* precise: log[i] only where out[i] was stored, the faulting element's log not written */
    uint32_t *o = malloc(2 * PAGE), lg[256];
    OK(vmgpu_phys_read(g_dev, O.pa, o, 2 * PAGE));
    OK(vmgpu_phys_read(g_dev, L.pa, lg, 4 * n));
    unsigned bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t ov = i < k ? o[(out - O.va) / 4 + i] : 0;
        if (lg[i] > 1 || (lg[i] && !(i < k && ov == i + 1))) bad++;
        if (i < k && ov != 0xDEADBEEFu && ov != i + 1) bad++;
    }
    CHECK(lg[fi] == 0);
    CHECK(bad == 0);

    OK(vmgpu_fence_wait(g_dev, 1, fb));
    OK(vmgpu_phys_read(g_dev, C.pa, r, bytes));
    unsigned badb = 0;
    for (uint32_t i = 0; i < nb; i++) badb += r[i] != a[i] + b[i];
    CHECK(badb == 0);
    OK(vmgpu_ctx_status(cb, NULL, 0));
    NOTE("B (asid %u, ring 1): vadd of %u elements completed, %u wrong", vmgpu_ctx_asid(cb), nb, badb);

    /* A is sticky until cleared; then, with the page mapped, the same launch completes */
    CHECK_RC(launch(sa, &pa, &args, 2, slots()), VMGPU_ERR_CTX_FAULTED);
    OK(vmgpu_ctx_clear_fault(ca));
    OK(vmgpu_map(ca, page_end, O.pa + 2 * PAGE, PAGE, VMGPU_MAP_READ | VMGPU_MAP_WRITE));
    OK(launch(sa, &pa, &args, 2, slots()));
    OK(vmgpu_stream_sync(sa));
    uint32_t *o2 = malloc(4 * n);
    OK(vmgpu_ctx_read(ca, out, o2, 4 * n));
    unsigned bad2 = 0;
    for (uint32_t i = 0; i < n; i++) bad2 += o2[i] != i + 1;
    CHECK(bad2 == 0);
    NOTE("A relaunched after clear_fault and the page mapped: %u wrong", bad2);
    free(a);
    free(b);
    free(r);
    free(o);
    free(o2);
    prog_free(&pa);
    prog_free(&pb);
    vmgpu_dev_close(g_dev);
}

/* Bad arguments: VMGPU_ERR_INVALID, nothing queued, no state changed. */
static void t_bad_arguments(void)
{
    open_dev();
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    vmgpu_dev_info in;
    vmgpu_dev_get_info(g_dev, &in);
    const uint32_t code = 0x10000, args = 0x20000, g1[3] = {1, 1, 1};
    uint32_t bmax[3] = {in.simt_lanes * in.simt_warps, 1, 1};
    struct { uint32_t code, args, g[3], b[3], shared; int null_g, null_b; const char *what; } bad[] = {
        {0, args, {1, 1, 1}, {1, 1, 1}, 0, 0, 0, "code_va 0"},
        {code + 2, args, {1, 1, 1}, {1, 1, 1}, 0, 0, 0, "code_va misaligned"},
        {code, args + 1, {1, 1, 1}, {1, 1, 1}, 0, 0, 0, "args_va misaligned"},
        {code, args, {0, 1, 1}, {1, 1, 1}, 0, 0, 0, "grid x 0"},
        {code, args, {1, 0, 1}, {1, 1, 1}, 0, 0, 0, "grid y 0"},
        {code, args, {1, 1, 65536}, {1, 1, 1}, 0, 0, 0, "grid z 65536"},
        {code, args, {1, 1, 1}, {0, 1, 1}, 0, 0, 0, "block x 0"},
        {code, args, {1, 1, 1}, {1, 1, 1024}, 0, 0, 0, "block z 1024"},
        {code, args, {1, 1, 1}, {bmax[0] + 1, 1, 1}, 0, 0, 0, "block too large"},
        {code, args, {1, 1, 1}, {bmax[0], 2, 1}, 0, 0, 0, "block too large (2D)"},
        {code, args, {1, 1, 1}, {1, 1, 1}, in.simt_shared_bytes + 4, 0, 0, "shared bytes"},
        {code, args, {1, 1, 1}, {1, 1, 1}, 0, 1, 0, "grid NULL"},
        {code, args, {1, 1, 1}, {1, 1, 1}, 0, 0, 1, "block NULL"},
    };
    uint64_t h0 = vmgpu_debug_state_hash(g_dev);
    uint32_t last0 = vmgpu_fence_last(g_dev, 0);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = vmgpu_cmd_launch_prog(s, bad[i].code, bad[i].args, bad[i].null_g ? NULL : bad[i].g,
                                       bad[i].null_b ? NULL : bad[i].b, bad[i].shared);
        if (rc != VMGPU_ERR_INVALID) {
            printf("  FAIL: %s: %s, want VMGPU_ERR_INVALID\n", bad[i].what, vmgpu_status_name(rc));
            fails++;
        }
        if (vmgpu_debug_state_hash(g_dev) != h0) {
            printf("  FAIL: state changed by %s\n", bad[i].what);
            fails++;
            h0 = vmgpu_debug_state_hash(g_dev);
        }
    }
    CHECK_RC(vmgpu_cmd_launch_prog(NULL, code, args, g1, g1, 0), VMGPU_ERR_INVALID);
    /* nothing was queued: a sync submits only its own fence, and no stack area was made */
    OK(vmgpu_stream_sync(s));
    CHECK(vmgpu_fence_last(g_dev, 0) == last0 + 1);
    OK(vmgpu_ctx_status(c, NULL, 0));
    NOTE("%zu bad launches refused with VMGPU_ERR_INVALID, state unchanged (last message: %s)",
         sizeof bad / sizeof bad[0], vmgpu_dev_last_error(g_dev));
    vmgpu_dev_close(g_dev);
}

/* Malformed LAUNCH_PROG commands reach the command processor (raw words, in process): each
 * stops its ring with BAD_COMMAND at the header, FAULT_THREAD.SIMT set, access 3. */
static void t_bad_command(void)
{
    open_dev();
    vmgpu_ctx *c;
    vmgpu_stream *s;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &s));
    vmgpu_hal *hal = vmgpu_dev_hal(g_dev);
    struct { uint32_t w[9]; const char *what; } cmds[] = {
        {{VMGPU_CMD_HEADER(VMGPU_OP_LAUNCH_PROG, 8, 12), 0x10000, 0, 0, 1, 1, 1 | 1 << 10 | 1 << 20, 0, 0x40000}, "grid x 0"},
        {{VMGPU_CMD_HEADER(VMGPU_OP_LAUNCH_PROG, 8, 12), 0x10000, 0, 1, 1, 1, (slots() + 1) | 1 << 10 | 1 << 20, 0, 0x40000}, "one thread more than the unit has"},
        /* the count is x * y * z, not x alone: 2 x (slots / 2 + 1) threads */
        {{VMGPU_CMD_HEADER(VMGPU_OP_LAUNCH_PROG, 8, 12), 0x10000, 0, 1, 1, 1, 1 | 2 << 10 | (slots() / 2 + 1) << 20, 0, 0x40000}, "block 1 x 2 x (slots / 2 + 1)"},
        {{VMGPU_CMD_HEADER(VMGPU_OP_LAUNCH_PROG, 8, 12), 0x10000, 0, 1, 1, 1, 1 | 1 << 10 | 1u << 30, 0, 0x40000}, "block bit 30"},
        {{VMGPU_CMD_HEADER(VMGPU_OP_LAUNCH_PROG, 8, 12), 0x10000, 0, 1, 1, 1, 1 | 1 << 10 | 1 << 20, 1 << 20, 0x40000}, "shared 1 MiB"},
        {{VMGPU_CMD_HEADER(VMGPU_OP_LAUNCH_PROG, 8, 0x20), 0x10000, 0, 1, 1, 1, 1 | 1 << 10 | 1 << 20, 0, 0x40000}, "flags bit 5"},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        OK(vmgpu_cmd_raw(s, cmds[i].w, 9));
        CHECK_RC(vmgpu_stream_sync(s), VMGPU_ERR_FAULT);
        uint32_t info = 0, thread = 0, pc = 1;
        OK(vmgpu_reg_read(hal, VMGPU_RING_REG(0, VMGPU_RING_FAULT_INFO), &info));
        OK(vmgpu_reg_read(hal, VMGPU_RING_REG(0, VMGPU_RING_FAULT_THREAD), &thread));
        OK(vmgpu_reg_read(hal, VMGPU_RING_REG(0, VMGPU_RING_FAULT_PC), &pc));
        unsigned reason = (info & VMGPU_RING_FAULT_INFO_REASON_MASK) >> VMGPU_RING_FAULT_INFO_REASON_LSB;
        CHECK(reason == VMGPU_FAULT_BAD_COMMAND);
        /* a malformed header (flags) never reaches the launch checks: no thread named */
        if (i < 5) CHECK(thread == (VMGPU_RING_FAULT_THREAD_SIMT_MASK | VMGPU_SIMT_ACCESS_INSTR << VMGPU_RING_FAULT_THREAD_ACCESS_LSB));
        else CHECK(thread == 0);
        CHECK(pc == 0);
        NOTE("%s: BAD_COMMAND, FAULT_THREAD 0x%08x (%s)", cmds[i].what, thread, vmgpu_dev_last_error(g_dev));
        OK(vmgpu_ctx_clear_fault(c));
    }
    /* a DMA fault after them: FAULT_THREAD is 0 for faults that are not the unit's */
    uint32_t cp[7] = {VMGPU_CMD_HEADER(VMGPU_OP_DMA_COPY, 6, 0), 0x7000000, 0x7001000, 4, 1, 4, 4};
    OK(vmgpu_cmd_raw(s, cp, 7));
    CHECK_RC(vmgpu_stream_sync(s), VMGPU_ERR_FAULT);
    uint32_t thread = 1;
    OK(vmgpu_reg_read(hal, VMGPU_RING_REG(0, VMGPU_RING_FAULT_THREAD), &thread));
    CHECK(thread == 0);
    vmgpu_dev_close(g_dev);
}

static void t_decode(void)
{
    uint32_t w[9] = {VMGPU_CMD_HEADER(VMGPU_OP_LAUNCH_PROG, 8, 12), 0x10000, 0x20000, 3, 2, 1,
                     16 | 1 << 10 | 1 << 20, 256, 0x30000};
    char buf[256];
    size_t n = vmgpu_cmd_decode(w, 9, buf, sizeof buf);
    NOTE("%s", buf);
    CHECK(n == 9);
    CHECK(strstr(buf, "LAUNCH_PROG") && strstr(buf, "code va 0x00010000") &&
          strstr(buf, "grid 3 x 2 x 1") && strstr(buf, "block 16 x 1 x 1") &&
          strstr(buf, "shared 256") && strstr(buf, "4096 bytes"));
}

int main(int argc, char **argv)
{
    static const struct { const char *name; void (*fn)(void); } cases[] = {
        {"vadd_clang", t_vadd_clang}, {"vadd_host", t_vadd_host}, {"write_denied", t_write_denied}, {"reduce_clang", t_reduce_clang},
        {"collatz_clang", t_collatz_clang}, {"ptx", t_ptx}, {"fault", t_fault},
        {"atomics", t_atomics}, {"atomics_denied", t_atomics_denied},
        {"bad_arguments", t_bad_arguments}, {"bad_command", t_bad_command}, {"decode", t_decode},
    };
    if (argc < 4) {
        fprintf(stderr, "usage: %s <case> <kernel dir> <ptx fixture dir>\n", argv[0]);
        return 2;
    }
    g_kdir = argv[2];
    g_pdir = argv[3];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[1], cases[i].name) == 0) {
            printf("%s:\n", argv[1]);
            cases[i].fn();
            printf("%s: %s (%d failures)\n", argv[1], fails ? "FAIL" : "PASS", fails);
            return fails ? 1 : 0;
        }
    fprintf(stderr, "unknown case %s\n", argv[1]);
    return 2;
}
