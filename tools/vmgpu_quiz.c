/*
 * vmgpu-quiz: translation exercises on a live page table.
 *
 *   vmgpu-quiz [--seed N] [--count K]                 ask on the terminal, check each answer
 *   vmgpu-quiz [--seed N] [--count K] --answers       print the questions with worked answers
 *   vmgpu-quiz [--seed N] [--count K] --answer-key    print only the expected answers, one a line
 *   vmgpu-quiz [--seed N] [--count K] --check FILE    score the answers in FILE (one a line; - is stdin)
 *
 * The seed picks a set of mappings (vmgpu-pt --scenario quiz --seed N draws the same ones),
 * which the driver core writes into the simulated device's page tables. The quiz shows what a
 * driver knows (the page directory's address, which page tables exist, each mapping's VA range,
 * frames and permissions) and asks what the MMU does with one address: where it reads the PDE
 * and the PTE, what the PTE holds, which physical address an access reaches, or which fault it
 * gets. Every expected answer is computed from the tables read back from device memory, and
 * every read/write question is also tried on the device (a 4-byte DMA copy) to confirm the
 * answer: a disagreement is reported and ends the quiz with status 3.
 *
 * Answers: hex numbers (0x optional), "ok", or a fault name (PDE_INVALID, PTE_INVALID,
 * READ_DENIED, WRITE_DENIED; case does not matter). --check exits 0 when every answer is right.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pt_lib.h"
#include "vmgpu/regs.h"

enum kind { Q_PDE_ADDR, Q_PTE_ADDR, Q_PTE, Q_READ, Q_WRITE, Q_KINDS };

typedef struct question {
    enum kind kind;
    uint32_t va;
    char expect[32];
    pt_walk w;
} question;

static uint32_t rnd(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Pages worth asking about: mapped pages of every kind, holes, unmapped regions. */
static uint32_t pick_va(pt_session *p, unsigned *s, uint32_t scratch)
{
    static uint32_t pd[1024], t[1024];
    uint32_t root = vmgpu_ctx_root(p->ctx);
    vmgpu_phys_read(p->dev, root, pd, sizeof pd);
    uint32_t cand[4096];
    int n = 0;
    for (uint32_t d = 0; d < 1024; d++) {
        if (!(pd[d] & 1)) continue;
        vmgpu_phys_read(p->dev, pd[d] & ~0xfffu, t, sizeof t);
        for (uint32_t i = 0; i < 1024 && n < 4000; i++) {
            uint32_t va = d << 22 | i << 12;
            if (va == scratch) continue;
            int mapped = t[i] & 1, near = (i > 0 && (t[i - 1] & 1)) || (i < 1023 && (t[i + 1] & 1));
            if (mapped || near) cand[n++] = va;
        }
    }
    uint32_t r = rnd(s) % 8;
    if (r == 0 || n == 0) return (0x20000000u + (rnd(s) % 64) * 0x400000u) | (rnd(s) % 0x1000 & ~3u);
    return cand[rnd(s) % n] | ((rnd(s) % 0x1000) & ~3u);
}

static const char *fault_in(const char *msg)
{
    static const char *const names[] = {"PDE_INVALID", "PTE_INVALID", "READ_DENIED", "WRITE_DENIED",
                                        "PHYS_RANGE"};
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strstr(msg, names[i])) return names[i];
    return NULL;
}

/* Try the access on the device; returns "ok" or the fault name the hardware reported. */
static const char *on_device(pt_session *p, uint32_t va, int write, uint32_t scratch)
{
    int rc = write ? pt_copy(p, va, scratch, 4) : pt_copy(p, scratch, va, 4);
    if (!rc) return "ok";
    const char *f = fault_in(p->err);
    return f ? f : "error";
}

static void make(question *q, pt_session *p)
{
    pt_walk *w = &q->w;
    switch (q->kind) {
    case Q_PDE_ADDR: snprintf(q->expect, sizeof q->expect, "0x%08x", w->pde_addr); break;
    case Q_PTE_ADDR: snprintf(q->expect, sizeof q->expect, "0x%08x", w->pte_addr); break;
    case Q_PTE: snprintf(q->expect, sizeof q->expect, "0x%08x", w->pte); break;
    case Q_READ:
        if (w->read_fault) snprintf(q->expect, sizeof q->expect, "%s", w->read_fault);
        else snprintf(q->expect, sizeof q->expect, "0x%08x", w->pa);
        break;
    case Q_WRITE: snprintf(q->expect, sizeof q->expect, "%s", w->write_fault ? w->write_fault : "ok"); break;
    default: break;
    }
    (void)p;
}

static void ask(const question *q, int i, FILE *f)
{
    switch (q->kind) {
    case Q_PDE_ADDR:
        fprintf(f, "%d. At which physical address does the MMU read the PDE for va 0x%08x?\n", i, q->va);
        break;
    case Q_PTE_ADDR:
        fprintf(f, "%d. At which physical address does the MMU read the PTE for va 0x%08x?\n", i, q->va);
        break;
    case Q_PTE: fprintf(f, "%d. Which PTE value does the MMU find for va 0x%08x?\n", i, q->va); break;
    case Q_READ:
        fprintf(f, "%d. A read of va 0x%08x: which physical address does it reach (or which fault)?\n", i, q->va);
        break;
    case Q_WRITE: fprintf(f, "%d. A write to va 0x%08x: ok, or which fault?\n", i, q->va); break;
    default: break;
    }
}

static int same(const char *got, const char *expect)
{
    while (isspace((unsigned char)*got)) got++;
    char g[64];
    size_t n = 0;
    while (got[n] && !isspace((unsigned char)got[n]) && n < sizeof g - 1) {
        g[n] = (char)toupper((unsigned char)got[n]);
        n++;
    }
    g[n] = 0;
    if (expect[0] == '0' && expect[1] == 'x') {
        char *end;
        const char *num = (g[0] == '0' && g[1] == 'X') ? g + 2 : g;
        if (!*num) return 0;
        unsigned long v = strtoul(num, &end, 16);
        return *end == 0 && v == strtoul(expect + 2, NULL, 16);
    }
    char e[64];
    for (n = 0; expect[n] && n < sizeof e - 1; n++) e[n] = (char)toupper((unsigned char)expect[n]);
    e[n] = 0;
    return !strcmp(g, e);
}

static void show_setup(pt_session *p, FILE *f, unsigned seed)
{
    static uint32_t pd[1024], t[1024];
    uint32_t root = vmgpu_ctx_root(p->ctx);
    vmgpu_phys_read(p->dev, root, pd, sizeof pd);
    fprintf(f, "vmgpu-quiz, seed %u. The context's page directory is at pa 0x%08x. Page tables exist for:\n",
            seed, root);
    for (uint32_t d = 0; d < 1024; d++)
        if (pd[d] & 1)
            fprintf(f, "  va 0x%08x..0x%08x: table at pa 0x%08x\n", d << 22, (d << 22) + 0x3fffff, pd[d] & ~0xfffu);
    fprintf(f, "The driver mapped (each run of pages to consecutive frames):\n");
    for (uint32_t d = 0; d < 1024; d++) {
        if (!(pd[d] & 1)) continue;
        vmgpu_phys_read(p->dev, pd[d] & ~0xfffu, t, sizeof t);
        for (uint32_t i = 0; i < 1024;) {
            if (!(t[i] & 1)) { i++; continue; }
            uint32_t j = i + 1;
            while (j < 1024 && t[j] == t[i] + (j - i) * 0x1000u) j++;
            fprintf(f, "  va 0x%08x..0x%08x -> %s frame 0x%05x.. %s\n", d << 22 | i << 12, (d << 22 | j << 12) - 1,
                    t[i] & VMGPU_PTE_HOST ? "host" : "device", t[i] >> 12,
                    (t[i] & 6) == 6 ? "read-write" : (t[i] & 2) ? "read-only" : (t[i] & 4) ? "write-only" : "no access (valid)");
            i = j;
        }
    }
    fprintf(f, "Everything else is unmapped. PDE and PTE bits: [formats.md] V=1 R=2 W=4 HOST=8, frame << 12.\n\n");
}

int main(int argc, char **argv)
{
    unsigned seed = 1, count = 6;
    int answers = 0, key = 0;
    const char *check = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--count") && i + 1 < argc) count = (unsigned)strtoul(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--answers")) answers = 1;
        else if (!strcmp(argv[i], "--answer-key")) key = 1;
        else if (!strcmp(argv[i], "--check") && i + 1 < argc) check = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--seed N] [--count K] [--answers | --answer-key | --check FILE]\n", argv[0]);
            return 2;
        }
    }
    if (count < 1 || count > 100) {
        fprintf(stderr, "vmgpu-quiz: --count must be 1..100\n");
        return 2;
    }
    pt_session p;
    uint32_t scratch = 0, spa = 0;
    if (pt_open(&p) || pt_scenario(&p, "quiz", seed)) {
        fprintf(stderr, "vmgpu-quiz: %s\n", p.err);
        return 1;
    }
    /* A page of its own for the device checks (a read copies into it, a write copies from it). */
    if (vmgpu_phys_alloc(p.dev, 4096, 4096, &spa) || vmgpu_va_reserve(p.ctx, 4096, 4096, 0x7ff00000u, &scratch) ||
        pt_map(&p, scratch, spa, 4096, VMGPU_MAP_READ | VMGPU_MAP_WRITE)) {
        fprintf(stderr, "vmgpu-quiz: scratch page: %s\n", p.err);
        return 1;
    }
    question qs[100];
    unsigned s = seed * 7919u + 17u;
    for (unsigned i = 0; i < count; i++) {
        question *q = &qs[i];
        for (int tries = 0; tries < 50; tries++) {
            q->va = pick_va(&p, &s, scratch);
            q->kind = (enum kind)(rnd(&s) % Q_KINDS);
            if (pt_walk_va(&p, q->va, &q->w)) {
                fprintf(stderr, "vmgpu-quiz: %s\n", p.err);
                return 1;
            }
            /* A PTE question needs a valid PDE. */
            if ((q->kind == Q_PTE_ADDR || q->kind == Q_PTE) && !q->w.pde_valid) continue;
            break;
        }
        make(q, &p);
        /* Confirm access answers on the device itself. */
        if (q->kind == Q_READ || q->kind == Q_WRITE) {
            const char *dev = on_device(&p, q->va, q->kind == Q_WRITE, scratch);
            const char *want = q->kind == Q_WRITE ? (q->w.write_fault ? q->w.write_fault : "ok")
                                                  : (q->w.read_fault ? q->w.read_fault : "ok");
            if (strcmp(dev, want)) {
                fprintf(stderr, "vmgpu-quiz: MISMATCH at va 0x%08x: the tables say %s, the device says %s\n",
                        q->va, want, dev);
                return 3;
            }
        }
    }
    if (key) {
        for (unsigned i = 0; i < count; i++) printf("%s\n", qs[i].expect);
        pt_close(&p);
        return 0;
    }
    FILE *in = NULL;
    if (check) {
        in = strcmp(check, "-") ? fopen(check, "r") : stdin;
        if (!in) { perror(check); return 2; }
    }
    show_setup(&p, stdout, seed);
    unsigned right = 0;
    for (unsigned i = 0; i < count; i++) {
        question *q = &qs[i];
        ask(q, (int)i + 1, stdout);
        if (answers) {
            printf("   answer: %s\n", q->expect);
            pt_print_walk(&q->w, stdout);
            printf("\n");
            continue;
        }
        char line[256] = "";
        if (!in) {
            printf("   your answer: ");
            fflush(stdout);
            if (!fgets(line, sizeof line, stdin)) line[0] = 0;
        } else if (!fgets(line, sizeof line, in)) {
            line[0] = 0;
        }
        line[strcspn(line, "\n")] = 0;
        int ok = same(line, q->expect);
        right += ok;
        printf("   %s%s: expected %s\n", ok ? "right" : "wrong", in ? "" : "", q->expect);
        if (!ok) pt_print_walk(&q->w, stdout);
    }
    if (in && in != stdin) fclose(in);
    if (!answers) printf("\nvmgpu-quiz: %u of %u right\n", right, count);
    pt_close(&p);
    return answers || right == count ? 0 : 1;
}
