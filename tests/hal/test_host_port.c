/*
 * Host-port traffic through the real RTL: a context maps one device page and one host page
 * (PTE with the HOST bit), DMA copies move data host -> device and device -> host (unaligned,
 * so byte enables matter), and the model must call the handler for every access, in order,
 * with the right address, data and byte enables — with ready always high and with random
 * back-pressure (ready low one cycle in three), at the vmgpu_sim level and through the HAL.
 * Without a handler, reads must return 0xDEADBEEF.
 */
#include <string.h>

#include "hal_check.h"
#include "vmgpu/regs.h"
#include "vmgpu_hal.h"
#include "vmgpu_sim.h"

enum {
    PAGE_DIR = 0x1000,
    PAGE_TABLE = 0x2000,
    RING = 0x10000,
    RING_SIZE = 0x1000,
    DEV_PAGE_PA = 0x20000,
    VA_DEV = 0x40000000,
    VA_HOST = 0x40001000,
    HOST_FRAME = 7,
    ASID = 3,
    BUDGET = 1000000,
};

/* The device as the test drives it: the sim API or the HAL behind the same three calls. */
typedef struct dev {
    int (*rd)(void *ctx, uint32_t off, uint32_t *v);
    int (*wr)(void *ctx, uint32_t off, uint32_t v);
    int (*run)(void *ctx, uint64_t max, uint64_t *ran);
    void *ctx;
    uint32_t tail;
    uint32_t fence;
} dev;

typedef struct host_page {
    uint8_t bytes[4096];
    unsigned reads, writes, foreign;
    uint32_t last_addr;
    int out_of_order;
} host_page;

static int host_handler(void *user, uint32_t haddr, int write, uint32_t *data, unsigned be) {
    host_page *p = user;
    if ((haddr >> 12) != HOST_FRAME) {
        p->foreign++;
        return -1;
    }
    /* The DMA walks the page upwards; a step back would mean reordered requests. */
    if (p->reads + p->writes && haddr < p->last_addr) p->out_of_order = 1;
    p->last_addr = haddr;
    uint32_t off = haddr & 0xFFCu;
    if (write) {
        for (unsigned b = 0; b < 4; ++b)
            if (be & (1u << b)) p->bytes[off + b] = (uint8_t)(*data >> (8 * b));
        p->writes++;
    } else {
        *data = (uint32_t)p->bytes[off] | (uint32_t)p->bytes[off + 1] << 8 |
                (uint32_t)p->bytes[off + 2] << 16 | (uint32_t)p->bytes[off + 3] << 24;
        p->reads++;
    }
    return 0;
}

static int mem_write(dev *d, uint32_t pa, const uint32_t *w, size_t n) {
    int rc = d->wr(d->ctx, VMGPU_REG_MEM_ADDR, pa);
    for (size_t i = 0; i < n && !rc; ++i) rc = d->wr(d->ctx, VMGPU_REG_MEM_DATA, w[i]);
    return rc;
}

static int mem_read(dev *d, uint32_t pa, uint32_t *w, size_t n) {
    int rc = d->wr(d->ctx, VMGPU_REG_MEM_ADDR, pa);
    for (size_t i = 0; i < n && !rc; ++i) rc = d->rd(d->ctx, VMGPU_REG_MEM_DATA, &w[i]);
    return rc;
}

/* Appends a command and a FENCE after it, rings the doorbell, runs to idle, checks the fence. */
static int submit(dev *d, uint32_t op, const uint32_t *payload, unsigned len) {
    uint32_t cmd[16];
    unsigned n = 0;
    cmd[n++] = VMGPU_CMD_HEADER(op, len, 0);
    for (unsigned i = 0; i < len; ++i) cmd[n++] = payload[i];
    cmd[n++] = VMGPU_CMD_HEADER(VMGPU_OP_FENCE, 2, 0);
    cmd[n++] = ++d->fence;
    cmd[n++] = 0;
    if (d->tail + 4 * n > RING_SIZE) return -1;
    if (mem_write(d, RING + d->tail, cmd, n)) return -1;
    d->tail += 4 * n;
    if (d->wr(d->ctx, VMGPU_RING_REG(0, VMGPU_RING_TAIL), d->tail)) return -1;
    uint64_t ran = 0;
    int rc = d->run(d->ctx, BUDGET, &ran);
    CHECK(rc == 0, "%s did not finish within %d cycles", vmgpu_op_names[op], BUDGET);
    uint32_t st = 0, fence = 0, info = 0;
    d->rd(d->ctx, VMGPU_RING_REG(0, VMGPU_RING_STATUS), &st);
    d->rd(d->ctx, VMGPU_RING_REG(0, VMGPU_RING_FENCE), &fence);
    d->rd(d->ctx, VMGPU_RING_REG(0, VMGPU_RING_FAULT_INFO), &info);
    CHECK(!(st & VMGPU_RING_STATUS_FAULTED_MASK), "%s faulted: FAULT_INFO 0x%08x",
          vmgpu_op_names[op], info);
    CHECK(fence == d->fence, "after %s FENCE is %u, want %u", vmgpu_op_names[op], fence, d->fence);
    return rc == 0 && fence == d->fence ? 0 : -1;
}

static int setup(dev *d) {
    const uint32_t rw = VMGPU_PTE_V | VMGPU_PTE_R | VMGPU_PTE_W;
    if (d->wr(d->ctx, VMGPU_RING_REG(0, VMGPU_RING_BASE), RING) ||
        d->wr(d->ctx, VMGPU_RING_REG(0, VMGPU_RING_SIZE), RING_SIZE) ||
        d->wr(d->ctx, VMGPU_RING_REG(0, VMGPU_RING_TAIL), 0) ||
        d->wr(d->ctx, VMGPU_RING_REG(0, VMGPU_RING_CTRL), VMGPU_RING_CTRL_ENABLE_MASK))
        return -1;
    const uint32_t pte_dev[] = {PAGE_TABLE + ((VA_DEV >> 12) & 1023) * 4, 1, DEV_PAGE_PA | rw, 0};
    const uint32_t pte_host[] = {PAGE_TABLE + ((VA_HOST >> 12) & 1023) * 4, 1,
                                 (HOST_FRAME << VMGPU_PTE_FRAME_SHIFT) | VMGPU_PTE_HOST | rw, 0};
    const uint32_t pde[] = {PAGE_DIR + (VA_DEV >> 22) * 4, 1, PAGE_TABLE | VMGPU_PTE_V, 0};
    const uint32_t bind[] = {ASID, PAGE_DIR};
    if (submit(d, VMGPU_OP_PTE_FILL, pte_dev, 4) || submit(d, VMGPU_OP_PTE_FILL, pte_host, 4) ||
        submit(d, VMGPU_OP_PTE_FILL, pde, 4) || submit(d, VMGPU_OP_BIND_CTX, bind, 2))
        return -1;
    return 0;
}

static uint8_t byte_pattern(unsigned i, unsigned seed) { return (uint8_t)(i * 31u + seed * 7u + (i >> 8)); }

/* The two copies; set_handler installs or removes the host handler on this device. */
static void copies(const char *label, dev *d, void (*set_handler)(void *, host_page *)) {
    static host_page host;
    memset(&host, 0, sizeof host);
    for (unsigned i = 0; i < 4096; ++i) host.bytes[i] = byte_pattern(i, 1);
    set_handler(d->ctx, &host);
    if (setup(d)) {
        CHECK(0, "%s: mapping set-up failed", label);
        return;
    }

    /* host -> device, one whole page */
    const uint32_t up[] = {VA_HOST, VA_DEV, 4096, 1, 0, 0};
    if (submit(d, VMGPU_OP_DMA_COPY, up, 6) == 0) {
        uint32_t w[1024];
        CHECK(mem_read(d, DEV_PAGE_PA, w, 1024) == 0, "%s: device page read", label);
        int bad = 0;
        for (unsigned i = 0; i < 4096; ++i) bad += (uint8_t)(w[i / 4] >> (8 * (i % 4))) != host.bytes[i];
        CHECK(bad == 0, "%s: %d of 4096 bytes wrong after host -> device copy", label, bad);
        CHECK(host.reads >= 1024 && host.writes == 0, "%s: %u host reads, %u writes", label,
              host.reads, host.writes);
    }

    /* device -> host, unaligned on both sides: byte enables must spare the edges */
    uint32_t w[1024];
    for (unsigned i = 0; i < 1024; ++i)
        w[i] = (uint32_t)byte_pattern(4 * i, 2) | (uint32_t)byte_pattern(4 * i + 1, 2) << 8 |
               (uint32_t)byte_pattern(4 * i + 2, 2) << 16 | (uint32_t)byte_pattern(4 * i + 3, 2) << 24;
    CHECK(mem_write(d, DEV_PAGE_PA, w, 1024) == 0, "%s: device page write", label);
    uint8_t expect[4096];
    memcpy(expect, host.bytes, sizeof expect);
    for (unsigned i = 0; i < 1000; ++i) expect[5 + i] = byte_pattern(3 + i, 2);
    unsigned reads0 = host.reads;
    host.last_addr = 0;
    host.writes = 0;
    const uint32_t down[] = {VA_DEV + 3, VA_HOST + 5, 1000, 1, 0, 0};
    if (submit(d, VMGPU_OP_DMA_COPY, down, 6) == 0) {
        int bad = 0, first = -1;
        for (unsigned i = 0; i < 4096; ++i)
            if (host.bytes[i] != expect[i]) {
                if (first < 0) first = (int)i;
                ++bad;
            }
        CHECK(bad == 0, "%s: %d host bytes wrong after device -> host copy (first at %d)", label,
              bad, first);
        CHECK(host.writes >= 250 && host.writes <= 252, "%s: %u host writes for 1000 bytes", label,
              host.writes);
        CHECK(host.reads == reads0, "%s: device -> host copy read the host", label);
    }
    CHECK(host.foreign == 0, "%s: %u requests outside the host page", label, host.foreign);
    CHECK(!host.out_of_order, "%s: host requests went backwards", label);
    printf("%s: host -> device page copy (%u host reads), unaligned device -> host copy (%u host "
           "writes) checked byte by byte\n", label, reads0, host.writes);

    /* No handler: the model answers reads with 0xDEADBEEF. */
    set_handler(d->ctx, NULL);
    const uint32_t up2[] = {VA_HOST, VA_DEV + 0x800, 64, 1, 0, 0};
    if (submit(d, VMGPU_OP_DMA_COPY, up2, 6) == 0) {
        uint32_t r[16];
        CHECK(mem_read(d, DEV_PAGE_PA + 0x800, r, 16) == 0, "%s: read back", label);
        int bad = 0;
        for (unsigned i = 0; i < 16; ++i) bad += r[i] != VMGPU_SIM_HOST_BAD_DATA;
        CHECK(bad == 0, "%s: %d words not 0xDEADBEEF without a handler (0x%08x)", label, bad, r[0]);
    }
}

/* ---- the device through the sim API ---- */
static int s_rd(void *c, uint32_t o, uint32_t *v) { return vmgpu_sim_reg_read(c, o, v); }
static int s_wr(void *c, uint32_t o, uint32_t v) { return vmgpu_sim_reg_write(c, o, v); }
static int s_run(void *c, uint64_t m, uint64_t *r) { return vmgpu_sim_run_until_idle(c, m, r); }
static void s_handler(void *c, host_page *p) {
    vmgpu_sim_set_host_handler(c, p ? host_handler : NULL, p);
}

/* ---- the device through the HAL ---- */
static int h_rd(void *c, uint32_t o, uint32_t *v) { return vmgpu_reg_read(c, o, v); }
static int h_wr(void *c, uint32_t o, uint32_t v) { return vmgpu_reg_write(c, o, v); }
static int h_run(void *c, uint64_t m, uint64_t *r) { return vmgpu_run(c, m, r); }
static void h_handler(void *c, host_page *p) {
    vmgpu_hal_set_host_handler(c, p ? host_handler : NULL, p);
}

int main(void) {
    char err[256] = "";
    for (unsigned stall = 0; stall <= 3; stall += 3) {
        vmgpu_sim *sim = vmgpu_sim_create("", err, sizeof err);
        REQUIRE(sim != NULL, "create: %s", err);
        vmgpu_sim_set_host_stall(sim, stall);
        dev d = {s_rd, s_wr, s_run, sim, 0, 0};
        char label[64];
        snprintf(label, sizeof label, "sim, ready low 1 in %u", stall);
        copies(stall ? label : "sim, ready always high", &d, s_handler);
        vmgpu_sim_host_stats st;
        vmgpu_sim_host_stats_get(sim, &st);
        CHECK(st.reads >= 1024 + 16 && st.writes >= 250, "stats: %llu reads %llu writes",
              (unsigned long long)st.reads, (unsigned long long)st.writes);
        CHECK(st.failed >= 16, "stats: %llu refused requests, want >= 16 (no handler)",
              (unsigned long long)st.failed);
        if (stall)
            CHECK(st.stall_cycles > 100, "ready low 1 in 3 stalled only %llu cycles",
                  (unsigned long long)st.stall_cycles);
        else
            CHECK(st.stall_cycles == 0, "%llu stall cycles with ready high",
                  (unsigned long long)st.stall_cycles);
        printf("stats: %llu host reads, %llu writes, %llu stall cycles, %llu unserved\n",
               (unsigned long long)st.reads, (unsigned long long)st.writes,
               (unsigned long long)st.stall_cycles, (unsigned long long)st.failed);
        vmgpu_sim_destroy(sim);
    }

    vmgpu_hal *h = vmgpu_hal_open("sim", err, sizeof err);
    REQUIRE(h != NULL, "open: %s", err);
    dev d = {h_rd, h_wr, h_run, h, 0, 0};
    copies("hal sim", &d, h_handler);
    vmgpu_hal_close(h);
    return hal_summary("test_host_port");
}
