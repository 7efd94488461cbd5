/* pt_lib: sessions, scenarios, walks and pictures for vmgpu-pt and vmgpu-quiz (see pt_lib.h). */
#include "pt_lib.h"

#include <stdlib.h>
#include <string.h>

#include "vmgpu/regs.h"

#define PAGE VMGPU_PAGE_SIZE
#define PDE_V 1u

static int fail(pt_session *p, const char *what, int rc)
{
    snprintf(p->err, sizeof p->err, "%s: %s (%s)", what, vmgpu_status_name(rc),
             p->dev ? vmgpu_dev_last_error(p->dev) : "");
    return rc;
}

/* ------------------------------------------------------------------ the TLB model */

static void tlb_fill(pt_session *p, unsigned asid, uint32_t va, uint32_t pte)
{
    unsigned n = p->info.tlb_entries ? p->info.tlb_entries : 16;
    pt_tlb_slot *s = &p->tlb[p->victim % n];
    s->valid = 1;
    s->asid = asid;
    s->va = va & ~(PAGE - 1);
    s->pte = pte;
    p->victim = (p->victim + 1) % n;
    p->fills++;
}

static void tlb_invalidate(pt_session *p, unsigned asid, uint32_t va, uint32_t size)
{
    for (unsigned i = 0; i < PT_TLB_MAX; i++) {
        pt_tlb_slot *s = &p->tlb[i];
        if (s->valid && s->asid == asid && s->va >= va && s->va - va < size) s->valid = 0;
    }
}

void pt_drain(pt_session *p)
{
    vmgpu_hal *h = vmgpu_dev_hal(p->dev);
    uint32_t cnt;
    if (vmgpu_reg_read(h, VMGPU_REG_EVT_COUNT, &cnt)) return;
    unsigned n = cnt & VMGPU_REG_EVT_COUNT_COUNT_MASK;
    unsigned lost = (cnt & VMGPU_REG_EVT_COUNT_DROPPED_MASK) >> VMGPU_REG_EVT_COUNT_DROPPED_LSB;
    /* Events the FIFO let go came before the ones it kept; in a session they are fills (the
     * session's own invalidations are applied from its calls), so they move the victim. */
    unsigned ne = p->info.tlb_entries ? p->info.tlb_entries : 16;
    p->lost += lost;
    p->victim = (p->victim + lost) % ne;
    p->fills += lost;
    for (unsigned i = 0; i < n; i++) {
        uint32_t info, va, pte;
        if (vmgpu_reg_read(h, VMGPU_REG_EVT_INFO, &info) || vmgpu_reg_read(h, VMGPU_REG_EVT_VA, &va) ||
            vmgpu_reg_read(h, VMGPU_REG_EVT_PTE, &pte) || vmgpu_reg_write(h, VMGPU_REG_EVT_POP, 1))
            return;
        unsigned kind = (info & VMGPU_REG_EVT_INFO_KIND_MASK) >> VMGPU_REG_EVT_INFO_KIND_LSB;
        unsigned asid = (info & VMGPU_REG_EVT_INFO_ASID_MASK) >> VMGPU_REG_EVT_INFO_ASID_LSB;
        if (kind == VMGPU_EVT_TLB_FILL) tlb_fill(p, asid, va, pte);
    }
}

/* ------------------------------------------------------------------ session */

int pt_open(pt_session *p)
{
    memset(p, 0, sizeof *p);
    vmgpu_set_trace(0);  /* the trace would drain the MMU's events before the model sees them */
    char err[256];
    int rc = vmgpu_dev_open(NULL, &p->dev, err, sizeof err);
    if (rc) {
        snprintf(p->err, sizeof p->err, "open: %s", err);
        return rc;
    }
    vmgpu_dev_get_info(p->dev, &p->info);
    pt_drain(p);  /* nothing yet, but start from an empty FIFO */
    rc = vmgpu_ctx_create(p->dev, 0, &p->ctx);
    if (!rc) rc = vmgpu_stream_create(p->ctx, 0, &p->s);
    if (rc) return fail(p, "context", rc);
    pt_drain(p);
    tlb_invalidate(p, vmgpu_ctx_asid(p->ctx), 0, 0xffffffffu);
    return 0;
}

void pt_close(pt_session *p)
{
    if (p->dev) vmgpu_dev_close(p->dev);
    p->dev = NULL;
}

int pt_map(pt_session *p, uint32_t va, uint32_t pa, uint32_t size, unsigned flags)
{
    int rc = vmgpu_map(p->ctx, va, pa, size, flags);
    pt_drain(p);
    if (rc) return fail(p, "map", rc);
    if (!(flags & VMGPU_MAP_NO_TLB_INV)) tlb_invalidate(p, vmgpu_ctx_asid(p->ctx), va, size);
    return 0;
}

int pt_unmap(pt_session *p, uint32_t va, uint32_t size)
{
    int rc = vmgpu_unmap(p->ctx, va, size);
    pt_drain(p);
    if (rc) return fail(p, "unmap", rc);
    tlb_invalidate(p, vmgpu_ctx_asid(p->ctx), va, size);
    return 0;
}

int pt_protect(pt_session *p, uint32_t va, uint32_t size, unsigned flags)
{
    int rc = vmgpu_protect(p->ctx, va, size, flags);
    pt_drain(p);
    if (rc) return fail(p, "protect", rc);
    tlb_invalidate(p, vmgpu_ctx_asid(p->ctx), va, size);
    return 0;
}

int pt_copy(pt_session *p, uint32_t dst_va, uint32_t src_va, uint32_t bytes)
{
    int rc = vmgpu_cmd_copy(p->s, dst_va, src_va, bytes);
    if (!rc) rc = vmgpu_stream_sync(p->s);
    pt_drain(p);
    if (rc) {
        fail(p, "copy", rc);
        vmgpu_ctx_clear_fault(p->ctx);
    }
    return rc;
}

int pt_read_word(pt_session *p, uint32_t pa, uint32_t *word)
{
    return vmgpu_phys_read(p->dev, pa, word, 4);
}

/* ------------------------------------------------------------------ scenarios */

static int reserve_map(pt_session *p, uint32_t size, unsigned flags, uint32_t *va_out, uint32_t *pa_out)
{
    uint32_t va, pa;
    int rc = vmgpu_phys_alloc(p->dev, size, 0, &pa);
    if (!rc) rc = vmgpu_va_reserve(p->ctx, size, 0, 0, &va);
    if (rc) return fail(p, "alloc/reserve", rc);
    rc = pt_map(p, va, pa, size, flags);
    if (rc) return rc;
    if (va_out) *va_out = va;
    if (pa_out) *pa_out = pa;
    return 0;
}

static int scenario_lesson01(pt_session *p)
{
    uint32_t src, dst;
    int rc = reserve_map(p, 2 * VMGPU_GRANULE, VMGPU_MAP_READ, &src, NULL);
    if (!rc) rc = reserve_map(p, 2 * VMGPU_GRANULE, VMGPU_MAP_READ | VMGPU_MAP_WRITE, &dst, NULL);
    if (!rc) rc = pt_copy(p, dst, src, 2 * VMGPU_GRANULE);
    return rc;
}

static int scenario_mixed(pt_session *p)
{
    uint32_t a, b, c, hva, vva;
    /* Device memory: read-write (2 granules), read-only (1 granule). */
    int rc = reserve_map(p, 2 * VMGPU_GRANULE, VMGPU_MAP_READ | VMGPU_MAP_WRITE, &a, NULL);
    if (!rc) rc = reserve_map(p, VMGPU_GRANULE, VMGPU_MAP_READ, &b, NULL);
    /* Host memory through the host aperture (zero copy): 4 pages of this process. */
    static uint8_t host[4 * PAGE] __attribute__((aligned(4096)));
    uint32_t haddr;
    if (!rc) rc = vmgpu_host_register(p->dev, host, sizeof host, &haddr);
    if (!rc) rc = vmgpu_va_reserve(p->ctx, sizeof host, PAGE, 0, &hva);
    if (!rc) rc = pt_map(p, hva, haddr, sizeof host, VMGPU_MAP_READ | VMGPU_MAP_WRITE | VMGPU_MAP_HOST);
    /* Mapped but no access yet (what cuMemMap leaves before cuMemSetAccess), in another 4 MiB
     * region (a second page table). */
    uint32_t pa;
    if (!rc) rc = vmgpu_phys_alloc(p->dev, VMGPU_GRANULE, 0, &pa);
    if (!rc) rc = vmgpu_va_reserve(p->ctx, VMGPU_GRANULE, 0, 0x10040000u, &vva);
    if (!rc) rc = pt_map(p, vva, pa, VMGPU_GRANULE, 0);
    if (rc) return rc ? rc : fail(p, "mixed", rc);
    /* Touch a few pages so the TLB holds something: copy 3 pages of the read-only buffer into
     * the read-write one, and one page from host memory. */
    c = a + VMGPU_GRANULE;
    rc = pt_copy(p, a, b, 3 * PAGE);
    if (!rc) rc = pt_copy(p, c, hva, PAGE);
    return rc;
}

static uint32_t rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

static int scenario_quiz(pt_session *p, unsigned seed)
{
    unsigned s = seed * 2654435761u + 1;
    /* 3 to 5 mappings of 1 to 3 granules, random permissions, some in a second 4 MiB region,
     * one with a hole (a granule reserved and not mapped), one host mapping. */
    int n = 3 + (int)(rnd(&s) % 3), rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        uint32_t g = 1 + rnd(&s) % 3, size = g * VMGPU_GRANULE, va, pa;
        static const unsigned perms[] = {VMGPU_MAP_READ | VMGPU_MAP_WRITE, VMGPU_MAP_READ,
                                         VMGPU_MAP_READ | VMGPU_MAP_WRITE, 0};
        unsigned fl = perms[rnd(&s) % 4];
        uint32_t fixed = (rnd(&s) % 2) ? 0x10000000u + (rnd(&s) % 16) * 0x100000u : 0;
        rc = vmgpu_phys_alloc(p->dev, size, 0, &pa);
        if (!rc) rc = vmgpu_va_reserve(p->ctx, size + VMGPU_GRANULE, 0, fixed, &va);
        if (rc == VMGPU_ERR_OVERLAP && fixed) rc = vmgpu_va_reserve(p->ctx, size + VMGPU_GRANULE, 0, 0, &va);
        if (rc) return fail(p, "quiz alloc", rc);
        /* Map all but the last granule of the reservation: the hole faults PTE_INVALID. */
        rc = pt_map(p, va, pa, size, fl);
    }
    static uint8_t host[2 * PAGE] __attribute__((aligned(4096)));
    uint32_t haddr, hva;
    if (!rc) rc = vmgpu_host_register(p->dev, host, sizeof host, &haddr);
    if (!rc) rc = vmgpu_va_reserve(p->ctx, sizeof host, PAGE, 0, &hva);
    if (!rc) rc = pt_map(p, hva, haddr, sizeof host, VMGPU_MAP_READ | VMGPU_MAP_HOST);
    return rc && !p->err[0] ? fail(p, "quiz", rc) : rc;
}

int pt_scenario(pt_session *p, const char *name, unsigned seed)
{
    if (!strcmp(name, "lesson01")) return scenario_lesson01(p);
    if (!strcmp(name, "mixed")) return scenario_mixed(p);
    if (!strcmp(name, "quiz")) return scenario_quiz(p, seed);
    snprintf(p->err, sizeof p->err, "unknown scenario '%s' (mixed, lesson01, quiz)", name);
    return VMGPU_ERR_INVALID;
}

/* ------------------------------------------------------------------ walks */

const char *pt_perm(uint32_t pte)
{
    static const char *const t[] = {"--", "R-", "-W", "RW"};
    return t[(pte >> 1) & 3];
}

int pt_tlb_find(const pt_session *p, uint32_t va)
{
    unsigned asid = vmgpu_ctx_asid(p->ctx);
    for (int i = 0; i < PT_TLB_MAX; i++)
        if (p->tlb[i].valid && p->tlb[i].asid == asid && p->tlb[i].va == (va & ~(PAGE - 1))) return i;
    return -1;
}

int pt_walk_va(pt_session *p, uint32_t va, pt_walk *w)
{
    memset(w, 0, sizeof *w);
    w->va = va;
    w->root = vmgpu_ctx_root(p->ctx);
    w->dir_index = va >> 22;
    w->pde_addr = w->root + w->dir_index * 4;
    w->tlb_slot = pt_tlb_find(p, va);
    int rc = pt_read_word(p, w->pde_addr, &w->pde);
    if (rc) return fail(p, "read PDE", rc);
    w->pde_valid = (w->pde & PDE_V) != 0;
    if (!w->pde_valid) {
        w->read_fault = w->write_fault = "PDE_INVALID";
        return 0;
    }
    w->table_pa = w->pde & ~(PAGE - 1);
    w->table_index = (va >> 12) & 0x3ff;
    w->pte_addr = w->table_pa + w->table_index * 4;
    rc = pt_read_word(p, w->pte_addr, &w->pte);
    if (rc) return fail(p, "read PTE", rc);
    w->pte_valid = (w->pte & VMGPU_PTE_V) != 0;
    if (!w->pte_valid) {
        w->read_fault = w->write_fault = "PTE_INVALID";
        return 0;
    }
    w->pa = (w->pte & ~(PAGE - 1)) | (va & (PAGE - 1));
    int phys_bad = !(w->pte & VMGPU_PTE_HOST) && (w->pte & ~(PAGE - 1)) >= p->info.mem_size;
    w->read_fault = phys_bad ? "PHYS_RANGE" : (w->pte & VMGPU_PTE_R) ? NULL : "READ_DENIED";
    w->write_fault = phys_bad ? "PHYS_RANGE" : (w->pte & VMGPU_PTE_W) ? NULL : "WRITE_DENIED";
    return 0;
}

/* ------------------------------------------------------------------ text */

typedef struct run {
    uint32_t first_index, count, value0, pde_index;
    uint32_t table_pa;
} run;

/* Runs of consecutive valid PTEs whose values step by one frame, per table, in VA order. */
static int collect(pt_session *p, uint32_t *pd, run *runs, int max, uint32_t tables[1024][1024])
{
    uint32_t root = vmgpu_ctx_root(p->ctx);
    if (vmgpu_phys_read(p->dev, root, pd, 4096)) return -1;
    int n = 0;
    for (uint32_t d = 0; d < 1024; d++) {
        if (!(pd[d] & PDE_V)) continue;
        uint32_t *t = tables[d];
        if (vmgpu_phys_read(p->dev, pd[d] & ~(PAGE - 1), t, 4096)) return -1;
        for (uint32_t i = 0; i < 1024;) {
            if (!(t[i] & VMGPU_PTE_V)) { i++; continue; }
            uint32_t j = i + 1;
            while (j < 1024 && t[j] == t[i] + (j - i) * PAGE) j++;
            if (n < max) runs[n++] = (run){i, j - i, t[i], d, pd[d] & ~(PAGE - 1)};
            i = j;
        }
    }
    return n;
}

static uint32_t (*tables_buf(void))[1024]
{
    static uint32_t t[1024][1024];
    return t;
}

void pt_print_tables(pt_session *p, FILE *f)
{
    static uint32_t pd[1024];
    static run runs[4096];
    uint32_t (*tables)[1024] = tables_buf();
    int n = collect(p, pd, runs, 4096, tables);
    uint32_t root = vmgpu_ctx_root(p->ctx);
    fprintf(f, "context asid %u: page directory at pa 0x%08x (every entry below read from device memory)\n",
            vmgpu_ctx_asid(p->ctx), root);
    if (n < 0) {
        fprintf(f, "  (device memory could not be read)\n");
        return;
    }
    for (uint32_t d = 0; d < 1024; d++) {
        if (!(pd[d] & PDE_V)) continue;
        fprintf(f, "PDE 0x%03x at pa 0x%08x = 0x%08x: va 0x%08x..0x%08x -> page table at pa 0x%08x\n", d,
                root + d * 4, pd[d], d << 22, (d << 22) + 0x3fffff, pd[d] & ~(PAGE - 1));
        for (int r = 0; r < n; r++) {
            if (runs[r].pde_index != d) continue;
            uint32_t va0 = d << 22 | runs[r].first_index << 12, v = runs[r].value0;
            unsigned held = 0;
            for (uint32_t k = 0; k < runs[r].count; k++) held += pt_tlb_find(p, va0 + k * PAGE) >= 0;
            fprintf(f, "  PTE 0x%03x..0x%03x at pa 0x%08x: va 0x%08x..0x%08x (%u page%s) -> %s frame 0x%05x..0x%05x %s"
                    " value 0x%08x +0x1000%s", runs[r].first_index, runs[r].first_index + runs[r].count - 1,
                    runs[r].table_pa + runs[r].first_index * 4, va0, va0 + runs[r].count * PAGE - 1,
                    runs[r].count, runs[r].count == 1 ? "" : "s", v & VMGPU_PTE_HOST ? "host" : "dev ",
                    v >> 12, (v >> 12) + runs[r].count - 1, pt_perm(v), v, "");
            if (held) fprintf(f, "  [%u in the TLB]", held);
            fputc('\n', f);
        }
    }
}

void pt_print_tlb(const pt_session *p, FILE *f)
{
    unsigned n = p->info.tlb_entries ? p->info.tlb_entries : 16, used = 0;
    for (unsigned i = 0; i < n; i++) used += p->tlb[i].valid;
    fprintf(f, "TLB: %u of %u entries valid, next fill goes to slot %u (reconstructed from the MMU's %u "
            "TLB_FILL events%s)\n", used, n, p->victim, p->fills,
            p->lost ? ", some counted from the event FIFO's DROPPED count" : "");
    for (unsigned i = 0; i < n; i++) {
        const pt_tlb_slot *s = &p->tlb[i];
        if (!s->valid) continue;
        fprintf(f, "  slot %2u: asid %u va 0x%08x -> %s frame 0x%05x %s\n", i, s->asid, s->va,
                s->pte & VMGPU_PTE_HOST ? "host" : "dev ", s->pte >> 12, pt_perm(s->pte));
    }
}

void pt_print_walk(const pt_walk *w, FILE *f)
{
    fprintf(f, "walk of va 0x%08x (page directory at pa 0x%08x):\n", w->va, w->root);
    fprintf(f, "  1. directory index = va >> 22 = 0x%03x; PDE address = 0x%08x + 0x%03x * 4 = 0x%08x\n",
            w->dir_index, w->root, w->dir_index, w->pde_addr);
    if (!w->pde_valid) {
        fprintf(f, "  2. PDE = 0x%08x: not valid -> fault PDE_INVALID (nothing mapped in va 0x%08x..0x%08x)\n",
                w->pde, w->dir_index << 22, (w->dir_index << 22) + 0x3fffff);
        return;
    }
    fprintf(f, "  2. PDE = 0x%08x: valid, page table at pa 0x%08x\n", w->pde, w->table_pa);
    fprintf(f, "  3. table index = (va >> 12) & 0x3ff = 0x%03x; PTE address = 0x%08x + 0x%03x * 4 = 0x%08x\n",
            w->table_index, w->table_pa, w->table_index, w->pte_addr);
    if (!w->pte_valid) {
        fprintf(f, "  4. PTE = 0x%08x: not valid -> fault PTE_INVALID\n", w->pte);
        return;
    }
    fprintf(f, "  4. PTE = 0x%08x: V%s%s%s, frame 0x%05x\n", w->pte, w->pte & VMGPU_PTE_R ? " R" : "",
            w->pte & VMGPU_PTE_W ? " W" : "", w->pte & VMGPU_PTE_HOST ? " HOST (host aperture)" : " (device memory)",
            w->pte >> 12);
    fprintf(f, "  5. pa = frame << 12 | offset 0x%03x = 0x%08x; a read %s%s, a write %s%s\n", w->va & 0xfff, w->pa,
            w->read_fault ? "faults " : "is allowed", w->read_fault ? w->read_fault : "",
            w->write_fault ? "faults " : "is allowed", w->write_fault ? w->write_fault : "");
    if (w->tlb_slot >= 0)
        fprintf(f, "  TLB: slot %d holds this page, so the MMU answers from it without steps 1-4\n", w->tlb_slot);
    else
        fprintf(f, "  TLB: no entry for this page; the next access walks as above and fills one\n");
}

/* ------------------------------------------------------------------ SVG */

static void svg_text(FILE *f, int x, int y, const char *anchor, const char *cls, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
#include <stdarg.h>
static void svg_text(FILE *f, int x, int y, const char *anchor, const char *cls, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"%s\" class=\"%s\">", x, y, anchor, cls);
    for (const char *c = buf; *c; c++) {
        if (*c == '<') fputs("&lt;", f);
        else if (*c == '>') fputs("&gt;", f);
        else if (*c == '&') fputs("&amp;", f);
        else fputc(*c, f);
    }
    fputs("</text>\n", f);
}

static const char *perm_color(uint32_t pte)
{
    if (!(pte & (VMGPU_PTE_R | VMGPU_PTE_W))) return "#d9d9d9";
    if ((pte & VMGPU_PTE_W) && (pte & VMGPU_PTE_R)) return "#b7e1a1";
    if (pte & VMGPU_PTE_W) return "#f7d08a";
    return "#a9cbe8";
}

static void svg_head(FILE *f, int w, int h)
{
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"DejaVu Sans Mono, monospace\" font-size=\"12\">\n", w, h, w, h);
    fputs("<style>.t{font-size:15px;font-weight:bold}.h{font-weight:bold}.s{fill:#555}"
          ".box{fill:#fff;stroke:#333}.tlb{fill:#c0392b;font-weight:bold}</style>\n", f);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fafafa\"/>\n", w, h);
    fputs("<defs><marker id=\"a\" markerWidth=\"8\" markerHeight=\"8\" refX=\"7\" refY=\"4\" orient=\"auto\">"
          "<path d=\"M0,0 L8,4 L0,8 z\" fill=\"#333\"/></marker></defs>\n", f);
}

void pt_svg_tables(pt_session *p, FILE *f, const char *title)
{
    static uint32_t pd[1024];
    static run runs[4096];
    uint32_t (*tables)[1024] = tables_buf();
    int n = collect(p, pd, runs, 64, tables);
    if (n < 0) n = 0;
    int npde = 0;
    for (int d = 0; d < 1024; d++) npde += (pd[d] & PDE_V) != 0;
    const int row = 22, W = 1180;
    int ntlb = 0;
    for (int i = 0; i < PT_TLB_MAX; i++) ntlb += p->tlb[i].valid;
    int H = 92 + npde * (row + 6) + n * row + 16 + 30 + 18 + ((ntlb + 1) / 2) * 18 + 24;
    svg_head(f, W, H);
    svg_text(f, 20, 28, "start", "t", "%s", title);
    svg_text(f, 20, 48, "start", "s", "asid %u, page directory at pa 0x%08x; read from device memory; "
             "TLB column from the MMU's TLB_FILL events", vmgpu_ctx_asid(p->ctx), vmgpu_ctx_root(p->ctx));
    /* Columns: page directory | page tables (runs of PTEs) | physical frames. */
    int xd = 20, wd = 250, xt = 330, wt = 500, xf = 890, wf = 270, y = 80;
    svg_text(f, xd, y, "start", "h", "page directory (valid PDEs)");
    svg_text(f, xt, y, "start", "h", "page tables: runs of PTEs (value +0x1000 each)");
    svg_text(f, xf, y, "start", "h", "frames");
    y += 12;
    int yd = y;
    for (int d = 0; d < 1024; d++) {
        if (!(pd[d] & PDE_V)) continue;
        int y_table = y;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"box\"/>\n", xd, yd, wd, row);
        svg_text(f, xd + 6, yd + 15, "start", "", "PDE 0x%03x = 0x%08x", d, pd[d]);
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\" marker-end=\"url(#a)\"/>\n",
                xd + wd, yd + row / 2, xt - 4, y_table + row / 2);
        svg_text(f, xt, y_table + 14, "start", "s", "table at pa 0x%08x: va 0x%08x..0x%08x", pd[d] & ~(PAGE - 1),
                 d << 22, (d << 22) + 0x3fffff);
        y += row;
        for (int r = 0; r < n; r++) {
            if ((int)runs[r].pde_index != d) continue;
            uint32_t v = runs[r].value0, va0 = (uint32_t)d << 22 | runs[r].first_index << 12;
            unsigned held = 0;
            for (uint32_t k = 0; k < runs[r].count; k++) held += pt_tlb_find(p, va0 + k * PAGE) >= 0;
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%d\"/>\n",
                    xt, y, wt, row - 2, perm_color(v), v & VMGPU_PTE_HOST ? "#e67e22" : "#333",
                    v & VMGPU_PTE_HOST ? 3 : 1);
            svg_text(f, xt + 6, y + 15, "start", "", "PTE 0x%03x..0x%03x  va 0x%08x  %3u x 0x%08x %s%s",
                     runs[r].first_index, runs[r].first_index + runs[r].count - 1, va0, runs[r].count, v,
                     pt_perm(v), v & VMGPU_PTE_HOST ? " HOST" : "");
            if (held) svg_text(f, xt + wt - 6, y + 15, "end", "tlb", "TLB %u", held);
            fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\" marker-end=\"url(#a)\"/>\n",
                    xt + wt, y + row / 2 - 1, xf - 4, y + row / 2 - 1);
            fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"#333\"/>\n", xf, y, wf,
                    row - 2, v & VMGPU_PTE_HOST ? "#fde3c8" : "#eeeeee");
            svg_text(f, xf + 6, y + 15, "start", "", "%s 0x%05x..0x%05x", v & VMGPU_PTE_HOST ? "host frames" : "dev frames ",
                     v >> 12, (v >> 12) + runs[r].count - 1);
            y += row;
        }
        yd = y + 6;
        y += 6;
    }
    /* Legend and the TLB. */
    y += 16;
    const char *leg[][2] = {{"#b7e1a1", "RW"}, {"#a9cbe8", "R- (read only)"}, {"#f7d08a", "-W (write only)"},
                            {"#d9d9d9", "-- (valid, no access)"}};
    int x = 20;
    for (int i = 0; i < 4; i++) {
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\" stroke=\"#333\"/>\n", x, y - 11, leg[i][0]);
        svg_text(f, x + 20, y, "start", "", "%s", leg[i][1]);
        x += 200;
    }
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"#fde3c8\" stroke=\"#e67e22\" stroke-width=\"3\"/>\n", x, y - 11);
    svg_text(f, x + 20, y, "start", "", "HOST aperture");
    y += 30;
    unsigned ne = p->info.tlb_entries ? p->info.tlb_entries : 16;
    svg_text(f, 20, y, "start", "h", "TLB (%u entries, round-robin; next fill: slot %u)", ne, p->victim);
    y += 18;
    for (unsigned i = 0; i < ne; i++) {
        const pt_tlb_slot *s = &p->tlb[i];
        if (!s->valid) continue;
        svg_text(f, 30 + (int)(i % 2) * 560, y + (int)(i / 2) * 0, "start", "", "slot %2u: asid %u va 0x%08x -> %s frame 0x%05x %s",
                 i, s->asid, s->va, s->pte & VMGPU_PTE_HOST ? "host" : "dev", s->pte >> 12, pt_perm(s->pte));
        if (i % 2 == 1) y += 18;
    }
    fputs("</svg>\n", f);
}

void pt_svg_walk(const pt_walk *w, FILE *f)
{
    const int W = 1180, H = 300;
    svg_head(f, W, H);
    svg_text(f, 20, 28, "start", "t", "The walk of va 0x%08x", w->va);
    /* The VA's three fields. */
    int y = 60;
    struct { const char *name; uint32_t v; int bits; const char *fill; } fld[3] = {
        {"directory index", w->va >> 22, 10, "#a9cbe8"},
        {"table index", (w->va >> 12) & 0x3ff, 10, "#b7e1a1"},
        {"offset", w->va & 0xfff, 12, "#eeeeee"}};
    int x = 20;
    for (int i = 0; i < 3; i++) {
        int wd = fld[i].bits * 18;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"34\" fill=\"%s\" stroke=\"#333\"/>\n", x, y, wd, fld[i].fill);
        svg_text(f, x + wd / 2, y + 14, "middle", "", "%s", fld[i].name);
        svg_text(f, x + wd / 2, y + 29, "middle", "h", "0x%0*x", i == 2 ? 3 : 3, fld[i].v);
        x += wd;
    }
    svg_text(f, x + 10, y + 22, "start", "s", "bits 31-22 | 21-12 | 11-0");
    /* Steps: PDE, PTE, PA. */
    y = 130;
    const int bw = 260, gap = 36;
    int xs[4] = {20, 20 + bw + gap, 20 + 2 * (bw + gap), 20 + 3 * (bw + gap)};
    char l1[128], l2[128], l3[128];
    for (int step = 0; step < 4; step++) {
        const char *fill = "#ffffff";
        l1[0] = l2[0] = l3[0] = 0;
        if (step == 0) {
            snprintf(l1, sizeof l1, "1. PDE address");
            snprintf(l2, sizeof l2, "0x%08x + 0x%03x*4", w->root, w->dir_index);
            snprintf(l3, sizeof l3, "= 0x%08x", w->pde_addr);
        } else if (step == 1) {
            snprintf(l1, sizeof l1, "2. PDE = 0x%08x", w->pde);
            if (w->pde_valid) {
                snprintf(l2, sizeof l2, "valid: table at 0x%08x", w->table_pa);
                snprintf(l3, sizeof l3, "PTE at +0x%03x*4 = 0x%08x", w->table_index, w->pte_addr);
            } else {
                snprintf(l2, sizeof l2, "not valid");
                snprintf(l3, sizeof l3, "fault PDE_INVALID");
                fill = "#f5b7b1";
            }
        } else if (step == 2) {
            if (!w->pde_valid) break;
            snprintf(l1, sizeof l1, "3. PTE = 0x%08x", w->pte);
            if (w->pte_valid) {
                snprintf(l2, sizeof l2, "V %s%s, frame 0x%05x", pt_perm(w->pte), w->pte & VMGPU_PTE_HOST ? " HOST" : "",
                         w->pte >> 12);
                fill = perm_color(w->pte);
            } else {
                snprintf(l2, sizeof l2, "not valid");
                snprintf(l3, sizeof l3, "fault PTE_INVALID");
                fill = "#f5b7b1";
            }
        } else {
            if (!w->pte_valid) break;
            snprintf(l1, sizeof l1, "4. pa = 0x%08x", w->pa);
            snprintf(l2, sizeof l2, "read: %s", w->read_fault ? w->read_fault : "ok");
            snprintf(l3, sizeof l3, "write: %s", w->write_fault ? w->write_fault : "ok");
            fill = (w->read_fault && w->write_fault) ? "#f5b7b1" : "#ffffff";
        }
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"78\" fill=\"%s\" stroke=\"#333\"/>\n", xs[step], y, bw, fill);
        svg_text(f, xs[step] + 8, y + 20, "start", "h", "%s", l1);
        svg_text(f, xs[step] + 8, y + 42, "start", "", "%s", l2);
        svg_text(f, xs[step] + 8, y + 64, "start", "", "%s", l3);
        if (step < 3)
            fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\" marker-end=\"url(#a)\"/>\n",
                    xs[step] + bw, y + 39, xs[step + 1] - 4, y + 39);
    }
    svg_text(f, 20, 250, "start", "", "%s",
             w->tlb_slot >= 0 ? "The TLB holds this page: a lookup answers in one cycle and none of the reads above happen."
                              : "The TLB does not hold this page: the next access makes the two reads above, then fills an entry.");
    if (w->tlb_slot >= 0) svg_text(f, 20, 270, "start", "tlb", "TLB slot %d", w->tlb_slot);
    fputs("</svg>\n", f);
}
