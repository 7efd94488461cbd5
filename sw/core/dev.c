/* Device open/close, memory layout, physical allocator, host registration, rings, fences,
 * the bounded wait with fault recovery, and events. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"
#include "remote.h"

/* ------------------------------------------------------------------ errors, trace */

const char *vmgpu_status_name(int s)
{
    switch (s) {
    case VMGPU_OK: return "VMGPU_OK";
    case VMGPU_ERR_INVALID: return "VMGPU_ERR_INVALID";
    case VMGPU_ERR_NOMEM: return "VMGPU_ERR_NOMEM";
    case VMGPU_ERR_NOVA: return "VMGPU_ERR_NOVA";
    case VMGPU_ERR_OVERLAP: return "VMGPU_ERR_OVERLAP";
    case VMGPU_ERR_NOT_MAPPED: return "VMGPU_ERR_NOT_MAPPED";
    case VMGPU_ERR_FAULT: return "VMGPU_ERR_FAULT";
    case VMGPU_ERR_TIMEOUT: return "VMGPU_ERR_TIMEOUT";
    case VMGPU_ERR_IO: return "VMGPU_ERR_IO";
    case VMGPU_ERR_NODEV: return "VMGPU_ERR_NODEV";
    case VMGPU_ERR_CTX_FAULTED: return "VMGPU_ERR_CTX_FAULTED";
    case VMGPU_ERR_BUSY: return "VMGPU_ERR_BUSY";
    case VMGPU_ERR_NOT_READY: return "VMGPU_ERR_NOT_READY";
    case VMGPU_ERR_NOT_FOUND: return "VMGPU_ERR_NOT_FOUND";
    default: return "VMGPU_ERR_?";
    }
}

static int trace_state = -1;  /* -1: not read from the environment yet */

int vmgpu_trace_enabled(void)
{
    if (trace_state < 0) {
        const char *e = getenv("VMGPU_TRACE");
        trace_state = (e && *e && strcmp(e, "0") != 0) ? 1 : 0;
    }
    return trace_state;
}

void vmgpu_set_trace(int on) { trace_state = on ? 1 : 0; }

void core_trace(const char *fmt, ...)
{
    if (!vmgpu_trace_enabled()) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("[vmgpu] ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int core_fail(vmgpu_dev *dev, int status, const char *fmt, ...)
{
    if (dev) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(dev->err, sizeof dev->err, fmt, ap);
        va_end(ap);
        core_trace("error %s: %s", vmgpu_status_name(status), dev->err);
    }
    return status;
}

int core_hal_err(vmgpu_dev *dev, int rc, const char *what)
{
    /* The transport's own message names the device, the request and the tries. */
    const char *why = vmgpu_hal_last_error(dev->hal);
    return core_fail(dev, rc == VMGPU_HAL_ETIMEDOUT ? VMGPU_ERR_TIMEOUT : VMGPU_ERR_IO,
                     "transport: %s failed (%s)%s%s", what, vmgpu_hal_status_name(rc),
                     why && *why ? ": " : "", why ? why : "");
}

const char *vmgpu_dev_last_error(const vmgpu_dev *dev) { return dev ? dev->err : ""; }
vmgpu_hal *vmgpu_dev_hal(vmgpu_dev *dev)
{
    if (!dev) return NULL;
    return dev->remote ? remote_hal(dev) : dev->hal;
}

int vmgpu_dev_get_info(const vmgpu_dev *dev, vmgpu_dev_info *info)
{
    if (!dev || !info) return VMGPU_ERR_INVALID;
    *info = dev->info;
    return VMGPU_OK;
}

#define RD(reg, v) do { int rc_ = vmgpu_reg_read(dev->hal, (reg), (v)); \
    if (rc_) return core_hal_err(dev, rc_, "register read"); } while (0)
#define WR(reg, v) do { int rc_ = vmgpu_reg_write(dev->hal, (reg), (v)); \
    if (rc_) return core_hal_err(dev, rc_, "register write"); } while (0)

int vmgpu_dev_cycles(vmgpu_dev *dev, uint64_t *cycles)
{
    if (dev && dev->remote) return remote_dev_cycles(dev, cycles);
    uint32_t lo, hi;
    if (!dev || !cycles) return VMGPU_ERR_INVALID;
    RD(VMGPU_REG_CYCLE_LO, &lo);  /* latches CYCLE_HI */
    RD(VMGPU_REG_CYCLE_HI, &hi);
    *cycles = ((uint64_t)hi << 32) | lo;
    return VMGPU_OK;
}

/* ------------------------------------------------------------------- host port */

int host_copy(vmgpu_dev *dev, uint32_t haddr, void *buf, size_t bytes, int write)
{
    long i = rs_find(&dev->hostf, haddr >> 12);
    if (i < 0) return VMGPU_ERR_NOT_MAPPED;
    const range *r = &dev->hostf.r[i];
    uint64_t off = ((uint64_t)((haddr >> 12) - r->start) << 12) + (haddr & 0xfff);
    if (off + bytes > ((uint64_t)r->size << 12)) return VMGPU_ERR_INVALID;
    if (r->owner) {
        /* Memory of another process (the server's client): only the server can reach it. */
        if (!dev->host_access) return VMGPU_ERR_IO;
        return dev->host_access(dev->host_access_user, r->owner, (uintptr_t)r->user + off, buf,
                                bytes, write) ? VMGPU_ERR_IO : VMGPU_OK;
    }
    uint8_t *p = (uint8_t *)r->user + off;
    if (write) memcpy(p, buf, bytes);
    else memcpy(buf, p, bytes);
    return VMGPU_OK;
}

static int host_handler(void *user, uint32_t haddr, int write, uint32_t *data, unsigned be)
{
    vmgpu_dev *dev = user;
    long i = rs_find(&dev->hostf, haddr >> 12);
    if (i < 0 || (haddr & 3)) return -1;
    const range *r = &dev->hostf.r[i];
    if (r->owner) {
        if (!write || be == 0xf) return host_copy(dev, haddr, data, 4, write) ? -1 : 0;
        for (unsigned b = 0; b < 4; b++) {
            uint8_t v = (uint8_t)(*data >> (8 * b));
            if ((be & (1u << b)) && host_copy(dev, haddr + b, &v, 1, 1)) return -1;
        }
        return 0;
    }
    uint8_t *p = (uint8_t *)r->user + ((uint64_t)((haddr >> 12) - r->start) << 12) + (haddr & 0xfff);
    if (!write) {
        memcpy(data, p, 4);
    } else {
        for (unsigned b = 0; b < 4; b++)
            if (be & (1u << b)) p[b] = (uint8_t)(*data >> (8 * b));
    }
    return 0;
}

int vmgpu_host_register_for(vmgpu_dev *dev, uintptr_t owner, uintptr_t addr, size_t size,
                            uint32_t *haddr)
{
    if (!dev || !addr || !haddr || size == 0 || (addr & (VMGPU_PAGE_SIZE - 1)) ||
        (size & (VMGPU_PAGE_SIZE - 1)) || size >= ((size_t)1 << 31) || addr + size < addr)
        return core_fail(dev, VMGPU_ERR_INVALID, "host_register: ptr and size must be nonzero "
                         "multiples of the 4 KiB page");
    for (size_t i = 0; i < dev->hostf.n; i++) {
        uintptr_t q = (uintptr_t)dev->hostf.r[i].user;
        size_t qs = (size_t)dev->hostf.r[i].size << 12;
        if (dev->hostf.r[i].owner == owner && addr < q + qs && q < addr + size)
            return core_fail(dev, VMGPU_ERR_OVERLAP, "host_register: %p overlaps a registration",
                             (void *)addr);
    }
    uint32_t frame;
    if (rs_alloc(&dev->hostf, (uint32_t)(size >> 12), 1, 0, &frame))
        return core_fail(dev, VMGPU_ERR_NOMEM, "host_register: no host frames left");
    range *r = &dev->hostf.r[rs_find_start(&dev->hostf, frame)];
    r->user = (void *)addr;
    r->owner = owner;
    *haddr = frame << 12;
    core_trace("host_register(%p, %zu) -> host frames 0x%05x..0x%05x", (void *)addr, size, frame,
               frame + (uint32_t)(size >> 12) - 1);
    return VMGPU_OK;
}

int vmgpu_host_register(vmgpu_dev *dev, void *ptr, size_t size, uint32_t *haddr)
{
    if (dev && dev->remote) return remote_host_register(dev, ptr, size, haddr);
    return vmgpu_host_register_for(dev, 0, (uintptr_t)ptr, size, haddr);
}

int vmgpu_host_unregister(vmgpu_dev *dev, void *ptr)
{
    if (dev && dev->remote) return remote_host_unregister(dev, ptr);
    return vmgpu_host_unregister_for(dev, 0, (uintptr_t)ptr);
}

int vmgpu_host_unregister_for(vmgpu_dev *dev, uintptr_t owner, uintptr_t addr)
{
    if (!dev || !addr) return core_fail(dev, VMGPU_ERR_INVALID, "host_unregister: NULL");
    void *ptr = (void *)addr;
    for (size_t i = 0; i < dev->hostf.n; i++) {
        if (dev->hostf.r[i].user != ptr || dev->hostf.r[i].owner != owner) continue;
        if (dev->hostf.r[i].refs)
            return core_fail(dev, VMGPU_ERR_BUSY, "host_unregister: %u pages still mapped",
                             dev->hostf.r[i].refs);
        rs_remove(&dev->hostf, i);
        return VMGPU_OK;
    }
    return core_fail(dev, VMGPU_ERR_NOT_FOUND, "host_unregister: %p is not registered", ptr);
}

void *vmgpu_host_ptr(const vmgpu_dev *dev, uint32_t haddr)
{
    if (dev && dev->remote) return remote_host_ptr(dev, haddr);
    if (!dev) return NULL;
    long i = rs_find(&dev->hostf, haddr >> 12);
    if (i < 0 || dev->hostf.r[i].owner) return NULL;
    const range *r = &dev->hostf.r[i];
    return (uint8_t *)r->user + ((uint64_t)((haddr >> 12) - r->start) << 12) + (haddr & 0xfff);
}

/* ------------------------------------------------------------------ physical memory */

int vmgpu_phys_alloc(vmgpu_dev *dev, uint32_t size, uint32_t align, uint32_t *pa)
{
    if (dev && dev->remote) return remote_phys_alloc(dev, size, align, pa);
    if (!dev || !pa) return core_fail(dev, VMGPU_ERR_INVALID, "phys_alloc: NULL argument");
    if (align == 0) align = VMGPU_GRANULE;
    if (size == 0 || (size & (VMGPU_PAGE_SIZE - 1)) || (align & (align - 1)) ||
        align < VMGPU_PAGE_SIZE)
        return core_fail(dev, VMGPU_ERR_INVALID, "phys_alloc: size 0x%x / align 0x%x must be "
                         "multiples of the 4 KiB page (align a power of two)", size, align);
    uint32_t p;
    if (rs_alloc(&dev->phys, size, align, 0, &p))
        return core_fail(dev, VMGPU_ERR_NOMEM, "phys_alloc: no 0x%x bytes free (aligned 0x%x)",
                         size, align);
    *pa = p;
    core_trace("phys_alloc(0x%x, align 0x%x) -> pa 0x%08x", size, align, p);
    return VMGPU_OK;
}

int vmgpu_phys_free(vmgpu_dev *dev, uint32_t pa)
{
    if (dev && dev->remote) return remote_phys_free(dev, pa);
    if (!dev) return VMGPU_ERR_INVALID;
    long i = rs_find_start(&dev->phys, pa);
    if (i < 0) return core_fail(dev, VMGPU_ERR_NOT_FOUND, "phys_free: no allocation at 0x%08x", pa);
    if (dev->phys.r[i].refs)
        return core_fail(dev, VMGPU_ERR_BUSY, "phys_free: 0x%08x still has %u mapped pages", pa,
                         dev->phys.r[i].refs);
    rs_remove(&dev->phys, (size_t)i);
    core_trace("phys_free(pa 0x%08x)", pa);
    return VMGPU_OK;
}

int vmgpu_phys_stats(const vmgpu_dev *dev, uint32_t *free_bytes, unsigned *n_allocs)
{
    if (dev && dev->remote) return remote_phys_stats(dev, free_bytes, n_allocs);
    if (!dev) return VMGPU_ERR_INVALID;
    if (free_bytes) *free_bytes = dev->info.user_bytes - (uint32_t)rs_used(&dev->phys);
    if (n_allocs) *n_allocs = (unsigned)dev->phys.n;
    return VMGPU_OK;
}

int vmgpu_phys_write(vmgpu_dev *dev, uint32_t pa, const void *src, size_t bytes)
{
    if (dev && dev->remote) return remote_phys_write(dev, pa, src, bytes);
    if (!dev || (!src && bytes) || (uint64_t)pa + bytes > dev->info.mem_size)
        return core_fail(dev, VMGPU_ERR_INVALID, "phys_write: bad range 0x%08x+%zu", pa, bytes);
    if (!bytes) return VMGPU_OK;
    uint32_t a0 = pa & ~3u, a1 = (uint32_t)((pa + bytes + 3) & ~(uint64_t)3);
    size_t nw = (a1 - a0) / 4;
    uint32_t *buf = malloc(nw * 4);
    if (!buf) return core_fail(dev, VMGPU_ERR_NOMEM, "phys_write: out of host memory");
    int rc = 0;
    if (pa != a0) rc = vmgpu_mem_read(dev->hal, a0, &buf[0], 1);
    if (!rc && (pa + bytes) != a1 && (nw > 1 || pa == a0))
        rc = vmgpu_mem_read(dev->hal, a1 - 4, &buf[nw - 1], 1);
    if (!rc) {
        memcpy((uint8_t *)buf + (pa - a0), src, bytes);
        rc = vmgpu_mem_write(dev->hal, a0, buf, nw);
    }
    free(buf);
    return rc ? core_hal_err(dev, rc, "memory write") : VMGPU_OK;
}

int vmgpu_phys_read(vmgpu_dev *dev, uint32_t pa, void *dst, size_t bytes)
{
    if (dev && dev->remote) return remote_phys_read(dev, pa, dst, bytes);
    if (!dev || (!dst && bytes) || (uint64_t)pa + bytes > dev->info.mem_size)
        return core_fail(dev, VMGPU_ERR_INVALID, "phys_read: bad range 0x%08x+%zu", pa, bytes);
    if (!bytes) return VMGPU_OK;
    uint32_t a0 = pa & ~3u, a1 = (uint32_t)((pa + bytes + 3) & ~(uint64_t)3);
    size_t nw = (a1 - a0) / 4;
    uint32_t *buf = malloc(nw * 4);
    if (!buf) return core_fail(dev, VMGPU_ERR_NOMEM, "phys_read: out of host memory");
    int rc = vmgpu_mem_read(dev->hal, a0, buf, nw);
    if (!rc) memcpy(dst, (uint8_t *)buf + (pa - a0), bytes);
    free(buf);
    return rc ? core_hal_err(dev, rc, "memory read") : VMGPU_OK;
}

/* ------------------------------------------------------------------- open / close */

static uint64_t env_timeout(void)
{
    const char *e = getenv("VMGPU_TIMEOUT_CYCLES");
    if (e && *e) {
        char *end;
        unsigned long long v = strtoull(e, &end, 0);
        if (*end == 0 && v > 0) return v;
    }
    return VMGPU_TIMEOUT_CYCLES_DEFAULT;
}

static int ring_setup(vmgpu_dev *dev, unsigned r)
{
    ring_state *rg = &dev->ring[r];
    uint32_t fence;
    WR(VMGPU_RING_REG(r, VMGPU_RING_CTRL), 0);
    WR(VMGPU_RING_REG(r, VMGPU_RING_BASE), rg->base);
    WR(VMGPU_RING_REG(r, VMGPU_RING_SIZE), rg->size);
    WR(VMGPU_RING_REG(r, VMGPU_RING_TAIL), 0);
    /* RESET makes HEAD = TAIL = 0 and clears a fault left by an earlier user. */
    WR(VMGPU_RING_REG(r, VMGPU_RING_CTRL), VMGPU_RING_CTRL_ENABLE_MASK | VMGPU_RING_CTRL_RESET_MASK);
    RD(VMGPU_RING_REG(r, VMGPU_RING_FENCE), &fence);
    rg->tail = rg->head = 0;
    rg->fence_issued = rg->fence_done = fence;
    rg->bound = NULL;
    return VMGPU_OK;
}

static int dev_init(vmgpu_dev *dev, const vmgpu_dev_options *opt)
{
    uint32_t id, ver, caps, mem;
    RD(VMGPU_REG_ID, &id);
    if (id != VMGPU_ID_MAGIC)
        return core_fail(dev, VMGPU_ERR_NODEV, "not a vmgpu: ID reads 0x%08x, expected 0x%08x",
                         id, VMGPU_ID_MAGIC);
    RD(VMGPU_REG_VERSION, &ver);
    if ((ver >> 16) != (VMGPU_HW_VERSION >> 16))
        return core_fail(dev, VMGPU_ERR_NODEV, "hardware version %u.%u, this driver needs %u.x",
                         ver >> 16, ver & 0xffff, VMGPU_HW_VERSION >> 16);
    RD(VMGPU_REG_CAPS, &caps);
    RD(VMGPU_REG_MEM_SIZE, &mem);
    dev->info.version = ver;
    dev->info.mem_size = mem;
    dev->info.n_rings = (caps & VMGPU_REG_CAPS_N_RINGS_MASK) >> VMGPU_REG_CAPS_N_RINGS_LSB;
    dev->info.tlb_entries = (caps & VMGPU_REG_CAPS_TLB_ENTRIES_MASK) >> VMGPU_REG_CAPS_TLB_ENTRIES_LSB;
    dev->info.page_shift = (caps & VMGPU_REG_CAPS_PAGE_SHIFT_MASK) >> VMGPU_REG_CAPS_PAGE_SHIFT_LSB;
    dev->info.has_gfx = (caps & VMGPU_REG_CAPS_GFX_MASK) != 0;
    if (dev->info.page_shift != 12 || dev->info.n_rings == 0 ||
        dev->info.n_rings > VMGPU_REG_RING_MAX || mem < 8 * VMGPU_PAGE_SIZE || (mem & (mem - 1)))
        return core_fail(dev, VMGPU_ERR_NODEV, "unsupported device: CAPS 0x%08x MEM_SIZE 0x%08x",
                         caps, mem);

    /* Reserved low memory: scratch page (event timestamps), the rings, the page-table pool;
     * the physical allocator gets the rest, from the next granule up. */
    uint32_t ring_bytes = opt && opt->ring_bytes ? opt->ring_bytes : 65536;
    if (!(opt && opt->ring_bytes))
        while (ring_bytes > 1024 && ring_bytes * dev->info.n_rings * 32 > mem) ring_bytes /= 2;
    if (ring_bytes < 64 || (ring_bytes & (ring_bytes - 1)))
        return core_fail(dev, VMGPU_ERR_INVALID, "ring_bytes %u: a power of two >= 64", ring_bytes);
    uint32_t pool = opt && opt->pt_pool_bytes ? opt->pt_pool_bytes : mem / 16;
    if (pool < 4 * VMGPU_PAGE_SIZE) pool = 4 * VMGPU_PAGE_SIZE;
    pool &= ~(VMGPU_PAGE_SIZE - 1);
    dev->scratch_pa = 0;
    uint32_t at = VMGPU_PAGE_SIZE;
    for (unsigned r = 0; r < dev->info.n_rings; r++) {
        dev->ring[r].base = at;
        dev->ring[r].size = ring_bytes;
        at += ring_bytes;
    }
    at = (at + VMGPU_PAGE_SIZE - 1) & ~(VMGPU_PAGE_SIZE - 1);
    uint64_t pool_end = (uint64_t)at + pool;
    uint64_t user = (pool_end + VMGPU_GRANULE - 1) & ~(uint64_t)(VMGPU_GRANULE - 1);
    if (user >= mem) user = pool_end;  /* small boards: no granule alignment to spare */
    if (user >= mem)
        return core_fail(dev, VMGPU_ERR_NOMEM, "device memory 0x%x too small for the layout", mem);
    rs_init(&dev->ptpool, at, pool_end);
    rs_init(&dev->phys, user, mem);
    rs_init(&dev->hostf, 1, 1u << 20);  /* host frame 0 is never handed out */
    dev->info.user_base = (uint32_t)user;
    dev->info.user_bytes = (uint32_t)(mem - user);
    for (unsigned r = 0; r < dev->info.n_rings; r++) {
        int rc = ring_setup(dev, r);
        if (rc) return rc;
    }
    core_trace("open: vmgpu %u.%u, %u MiB, %u rings of %u bytes, %u TLB entries; page tables "
               "0x%08x..0x%08x, user memory from 0x%08x", ver >> 16, ver & 0xffff, mem >> 20,
               dev->info.n_rings, ring_bytes, dev->info.tlb_entries, at, (uint32_t)pool_end - 1,
               (uint32_t)user);
    return VMGPU_OK;
}

int vmgpu_dev_open_hal(vmgpu_hal *hal, int own, const vmgpu_dev_options *opt, vmgpu_dev **out,
                       char *err, size_t errlen)
{
    if (out) *out = NULL;
    if (!hal || !out) {
        if (err && errlen) snprintf(err, errlen, "vmgpu_dev_open_hal: NULL argument");
        return VMGPU_ERR_INVALID;
    }
    vmgpu_dev *dev = calloc(1, sizeof *dev);
    if (!dev) {
        if (err && errlen) snprintf(err, errlen, "out of host memory");
        return VMGPU_ERR_NOMEM;
    }
    dev->hal = hal;
    dev->own_hal = own;
    dev->timeout_cycles = env_timeout();
    vmgpu_hal_set_host_handler(hal, host_handler, dev);
    int rc = dev_init(dev, opt);
    if (rc) {
        if (err && errlen) snprintf(err, errlen, "%s", dev->err);
        dev->own_hal = own;
        vmgpu_dev_close(dev);
        return rc;
    }
    *out = dev;
    return VMGPU_OK;
}

int vmgpu_dev_open_ex(const char *spec, const vmgpu_dev_options *opt, vmgpu_dev **out,
                      char *err, size_t errlen)
{
    char herr[256] = "";
    if (out) *out = NULL;
    if (!out) return VMGPU_ERR_INVALID;
    if (!spec) spec = getenv("VMGPU_DEVICE");
    if (remote_spec(spec)) return remote_open(spec, opt, out, err, errlen);
    /* sim-inproc: the simulated device in this process, whatever VMGPU_SERVER says (for what
     * needs the transport in the process: raw commands, the link's counters). */
    int inproc = spec && strcmp(spec, "sim-inproc") == 0;
    if (inproc) spec = "sim";
    /* VMGPU_SERVER=1: every device form through its server (the suite's rehearsal of making
     * the server the default; vmgpud itself clears it). */
    const char *via = getenv("VMGPU_SERVER");
    if (!inproc && via && strcmp(via, "1") == 0) {
        char rs[300];
        snprintf(rs, sizeof rs, "vmgpud:%s", spec && *spec ? spec : "sim");
        return remote_open(rs, opt, out, err, errlen);
    }
    vmgpu_hal *hal = vmgpu_hal_open(spec, herr, sizeof herr);
    if (!hal) {
        if (err && errlen) snprintf(err, errlen, "%s", herr);
        return VMGPU_ERR_NODEV;
    }
    return vmgpu_dev_open_hal(hal, 1, opt, out, err, errlen);
}

int vmgpu_dev_open(const char *spec, vmgpu_dev **out, char *err, size_t errlen)
{
    return vmgpu_dev_open_ex(spec, NULL, out, err, errlen);
}

void vmgpu_dev_close(vmgpu_dev *dev)
{
    if (!dev) return;
    if (dev->remote) {
        remote_close(dev);
        return;
    }
    for (size_t i = dev->nstreams; i-- > 0;) free(dev->streams[i]);
    for (unsigned i = 0; i < MAX_EVENTS; i++) free(dev->event_slot[i]);
    for (size_t i = dev->nctx; i-- > 0;) {
        ctx_free_all(dev->ctxs[i]);
        free(dev->ctxs[i]);
    }
    free(dev->streams);
    free(dev->ctxs);
    for (unsigned r = 0; r < VMGPU_REG_RING_MAX; r++) free(dev->ring[r].pend);
    rs_free_all(&dev->phys);
    rs_free_all(&dev->ptpool);
    rs_free_all(&dev->hostf);
    if (dev->hal) vmgpu_hal_set_host_handler(dev->hal, NULL, NULL);
    if (dev->own_hal && dev->hal) vmgpu_hal_close(dev->hal);
    free(dev);
}

/* ------------------------------------------------------------------------- rings */

size_t ring_max_cmd_words(const vmgpu_dev *dev, unsigned r)
{
    /* A batch never exceeds half the ring, so one can always be written while the device
     * still reads the previous one. */
    return dev->ring[r].size / 8;
}

static void trace_cmds(unsigned r, uint32_t off, const uint32_t *w, size_t n)
{
    char buf[256];
    size_t i = 0;
    while (i < n) {
        size_t k = vmgpu_cmd_decode(&w[i], n - i, buf, sizeof buf);
        core_trace("  ring%u  %s", r, buf);
        (void)off;
        i += k ? k : 1;
    }
}

/* Free bytes in the ring, from the last HEAD read back. One word stays empty so that
 * HEAD == TAIL means empty. */
static uint32_t ring_room(const ring_state *rg)
{
    return rg->size - 4 - ((rg->tail - rg->head) & (rg->size - 1));
}

static int handle_fault(vmgpu_dev *dev, unsigned r);

/* Write the queued words into the ring and ring the doorbell. */
static int ring_flush(vmgpu_dev *dev, unsigned r)
{
    ring_state *rg = &dev->ring[r];
    if (!rg->npend) return VMGPU_OK;
    uint32_t need = (uint32_t)rg->npend * 4;
    if (ring_room(rg) < need) {
        uint64_t spent = 0;
        for (;;) {
            uint32_t st;
            RD(VMGPU_RING_REG(r, VMGPU_RING_HEAD), &rg->head);
            if (ring_room(rg) >= need) break;
            RD(VMGPU_RING_REG(r, VMGPU_RING_STATUS), &st);
            if (st & VMGPU_RING_STATUS_FAULTED_MASK) {
                /* The queued batch is lost with the ring's other work; say so. */
                handle_fault(dev, r);
                rg->npend = 0;
                return VMGPU_ERR_FAULT;
            }
            if (spent >= dev->timeout_cycles)
                return core_fail(dev, VMGPU_ERR_TIMEOUT, "ring %u: no room for %u bytes after %"
                                 PRIu64 " cycles (HEAD 0x%x)", r, need, spent, rg->head);
            uint64_t ran = 0;
            int rc = vmgpu_run(dev->hal, 4096, &ran);
            if (rc && rc != VMGPU_HAL_ETIMEDOUT) return core_hal_err(dev, rc, "run");
            spent += ran ? ran : 1;
        }
    }
    uint32_t first = rg->size - rg->tail;  /* bytes up to the end of the ring */
    int rc;
    if (need <= first) {
        rc = vmgpu_mem_write(dev->hal, rg->base + rg->tail, rg->pend, rg->npend);
    } else {
        rc = vmgpu_mem_write(dev->hal, rg->base + rg->tail, rg->pend, first / 4);
        if (!rc) rc = vmgpu_mem_write(dev->hal, rg->base, rg->pend + first / 4, (need - first) / 4);
    }
    if (rc) return core_hal_err(dev, rc, "ring write");
    rg->tail = (rg->tail + need) & (rg->size - 1);
    rg->npend = 0;
    WR(VMGPU_RING_REG(r, VMGPU_RING_TAIL), rg->tail);
    return VMGPU_OK;
}

int ring_emit(vmgpu_dev *dev, unsigned r, const uint32_t *w, size_t n)
{
    ring_state *rg = &dev->ring[r];
    size_t max = ring_max_cmd_words(dev, r);
    if (n > max)
        return core_fail(dev, VMGPU_ERR_INVALID, "command of %zu words does not fit ring %u", n, r);
    if (rg->npend + n > max) {
        int rc = ring_flush(dev, r);
        if (rc) return rc;
    }
    if (rg->npend + n > rg->cappend) {
        size_t nc = max + 16;
        uint32_t *np = realloc(rg->pend, nc * 4);
        if (!np) return core_fail(dev, VMGPU_ERR_NOMEM, "out of host memory");
        rg->pend = np;
        rg->cappend = nc;
    }
    if (vmgpu_trace_enabled()) trace_cmds(r, 0, w, n);
    memcpy(&rg->pend[rg->npend], w, n * 4);
    rg->npend += n;
    return VMGPU_OK;
}

int ring_bind(vmgpu_dev *dev, unsigned r, vmgpu_ctx *ctx)
{
    if (dev->ring[r].bound == ctx) return VMGPU_OK;
    uint32_t w[3] = {VMGPU_CMD_HEADER(VMGPU_OP_BIND_CTX, 2, 0), ctx->asid, ctx->root};
    int rc = ring_emit(dev, r, w, 3);
    if (!rc) dev->ring[r].bound = ctx;
    return rc;
}

/* Queue a FENCE with the ring's next value; flush: also write the queue and ring the doorbell.
 * A fence left queued goes out with the ring's next flush, at the latest when something waits
 * for it (fence query/wait, another ring's WAIT_FENCE), so nobody can wait on it forever. */
int ring_fence(vmgpu_dev *dev, unsigned r, uint32_t *fence, int flush, const vmgpu_ctx *owner)
{
    ring_state *rg = &dev->ring[r];
    uint32_t v = rg->fence_issued + 1;
    uint32_t w[3] = {VMGPU_CMD_HEADER(VMGPU_OP_FENCE, 2, 0), v, 0};
    int rc = ring_emit(dev, r, w, 3);
    if (rc) return rc;
    rg->fence_issued = v;
    rg->fence_owner[v & 255] = owner;
    if (flush && !rg->hold) {
        rc = ring_flush(dev, r);
        if (rc) return rc;
    }
    if (fence) *fence = v;
    return VMGPU_OK;
}

int ring_submit(vmgpu_dev *dev, unsigned r, uint32_t *fence, const vmgpu_ctx *owner)
{
    return ring_fence(dev, r, fence, 1, owner);
}

int ring_flush_pending(vmgpu_dev *dev, unsigned r)
{
    dev->ring[r].hold = 0;  /* someone waits: the batch ends here */
    return dev->ring[r].npend ? ring_flush(dev, r) : VMGPU_OK;
}

uint32_t vmgpu_fence_last(const vmgpu_dev *dev, unsigned r)
{
    if (dev && dev->remote) return remote_fence_last(dev, r);
    return (dev && r < dev->info.n_rings) ? dev->ring[r].fence_issued : 0;
}

/* ----------------------------------------------------------------- faults and waits */

void ctx_mark_faulted(vmgpu_ctx *ctx, const char *msg)
{
    if (!ctx || ctx->faulted) return;
    ctx->faulted = 1;
    snprintf(ctx->fault_msg, sizeof ctx->fault_msg, "%s", msg);
}

static const char *op_name(unsigned op) { return op < VMGPU_OP_COUNT ? vmgpu_op_names[op] : "?"; }
static const char *fault_name(unsigned f)
{
    return f < VMGPU_FAULT_COUNT ? vmgpu_fault_names[f] : "?";
}

/* Drain the MMU event FIFO into the trace. */
static void trace_mmu_events(vmgpu_dev *dev)
{
    if (!vmgpu_trace_enabled()) return;
    uint32_t cnt;
    if (vmgpu_reg_read(dev->hal, VMGPU_REG_EVT_COUNT, &cnt)) return;
    unsigned n = cnt & VMGPU_REG_EVT_COUNT_COUNT_MASK;
    /* The FIFO keeps the newest events; DROPPED counts the older ones it had to let go since
     * the last pop, and the first pop below clears it, so each loss is reported once. */
    unsigned lost = (cnt & VMGPU_REG_EVT_COUNT_DROPPED_MASK) >> VMGPU_REG_EVT_COUNT_DROPPED_LSB;
    if (lost)
        core_trace("  mmu: %s%u older events lost (the event FIFO was full and kept the newest %u; "
                   "TLB_MISSES counts every miss)",
                   lost == VMGPU_REG_EVT_COUNT_DROPPED_MASK >> VMGPU_REG_EVT_COUNT_DROPPED_LSB
                       ? "at least " : "", lost, n);
    for (unsigned i = 0; i < n; i++) {
        uint32_t info, va, pte;
        if (vmgpu_reg_read(dev->hal, VMGPU_REG_EVT_INFO, &info) ||
            vmgpu_reg_read(dev->hal, VMGPU_REG_EVT_VA, &va) ||
            vmgpu_reg_read(dev->hal, VMGPU_REG_EVT_PTE, &pte) ||
            vmgpu_reg_write(dev->hal, VMGPU_REG_EVT_POP, 1))
            return;
        unsigned kind = (info & VMGPU_REG_EVT_INFO_KIND_MASK) >> VMGPU_REG_EVT_INFO_KIND_LSB;
        unsigned reason = (info & VMGPU_REG_EVT_INFO_REASON_MASK) >> VMGPU_REG_EVT_INFO_REASON_LSB;
        unsigned wr = (info & VMGPU_REG_EVT_INFO_WRITE_MASK) != 0;
        unsigned asid = (info & VMGPU_REG_EVT_INFO_ASID_MASK) >> VMGPU_REG_EVT_INFO_ASID_LSB;
        const char *kn = kind < VMGPU_EVT_COUNT ? vmgpu_evt_names[kind] : "?";
        if (kind == VMGPU_EVT_TLB_FILL)
            core_trace("  mmu: %-10s asid %3u va 0x%08x -> frame 0x%05x %s%s%s%s", kn, asid, va,
                       pte >> 12, pte & VMGPU_PTE_R ? "R" : "-", pte & VMGPU_PTE_W ? "W" : "-",
                       pte & VMGPU_PTE_HOST ? " host" : "", wr ? " (write)" : " (read)");
        else if (kind == VMGPU_EVT_FAULT)
            core_trace("  mmu: %-10s asid %3u va 0x%08x %s on %s", kn, asid, va,
                       fault_name(reason), wr ? "write" : "read");
        else
            core_trace("  mmu: %-10s asid %3u va 0x%08x", kn, asid, va);
    }
}

/* The words written to ring r from byte offset from up to its tail (the commands RESET is about
 * to drop); *out is malloc'd, NULL when there are none or they cannot be read. */
static size_t ring_read_behind(vmgpu_dev *dev, unsigned r, uint32_t from, uint32_t **out)
{
    ring_state *rg = &dev->ring[r];
    uint32_t at = from & (rg->size - 1);
    size_t bytes = (rg->tail - at) & (rg->size - 1);
    *out = NULL;
    if (!bytes || !(*out = malloc(bytes))) return 0;
    uint32_t first = rg->size - at < bytes ? rg->size - at : (uint32_t)bytes;
    int rc = vmgpu_mem_read(dev->hal, rg->base + at, *out, first / 4);
    if (!rc && bytes > first) rc = vmgpu_mem_read(dev->hal, rg->base, *out + first / 4, (bytes - first) / 4);
    if (rc) {
        free(*out);
        *out = NULL;
        return 0;
    }
    return bytes / 4;
}

/*
 * After a reset: queue again the commands of other contexts that were behind the faulting one
 * (w[0] is the faulting command), each run behind a BIND_CTX of its context, so that one
 * context's fault does not cost another context (another process, through the server) its
 * work. The faulting context's own commands stay dropped; a FENCE queued again is no longer
 * counted as dropped.
 */
static void replay_others(vmgpu_dev *dev, unsigned r, const uint32_t *w, size_t n, unsigned asid)
{
    ring_state *rg = &dev->ring[r];
    const vmgpu_ctx *faulted = asid < MAX_ASIDS ? dev->ctx_by_asid[asid] : NULL;
    char text[160];
    size_t i = vmgpu_cmd_decode(w, n, text, sizeof text), words = 0;
    while (i && i < n) {
        size_t k = vmgpu_cmd_decode(&w[i], n - i, text, sizeof text);
        if (!k || i + k > n) break;
        unsigned op = w[i] & 0xff;
        if (op == VMGPU_OP_BIND_CTX && k >= 2) {
            asid = w[i + 1];
        } else {
            vmgpu_ctx *ctx = asid < MAX_ASIDS ? dev->ctx_by_asid[asid] : NULL;
            /* A FENCE is not translated: it marks the work of whoever queued it, whatever the
             * ring was bound to then. */
            if (op == VMGPU_OP_FENCE && k >= 2) {
                const vmgpu_ctx *o = rg->fence_owner[w[i + 1] & 255];
                for (size_t c = 0; o && c < dev->nctx; c++)
                    if (dev->ctxs[c] == o) ctx = dev->ctxs[c];
            }
            if (ctx && ctx != faulted && !ctx->faulted) {
                if (ring_bind(dev, r, ctx) || ring_emit(dev, r, &w[i], k)) break;
                words += k;
                if (op == VMGPU_OP_FENCE && k >= 2 && rg->nreplayed < 64) rg->replayed[rg->nreplayed++] = w[i + 1];
            }
        }
        i += k;
    }
    if (words) core_trace("fault: %zu words of other contexts' commands behind it queued again on ring %u", words, r);
}

/* The ring stopped on a fault: describe it, mark the context, reset the ring. */
static int handle_fault(vmgpu_dev *dev, unsigned r)
{
    ring_state *rg = &dev->ring[r];
    uint32_t va = 0, info = 0, cmd = 0, fence = rg->fence_done;
    RD(VMGPU_RING_REG(r, VMGPU_RING_FAULT_VA), &va);
    RD(VMGPU_RING_REG(r, VMGPU_RING_FAULT_INFO), &info);
    RD(VMGPU_RING_REG(r, VMGPU_RING_FAULT_CMD), &cmd);
    RD(VMGPU_RING_REG(r, VMGPU_RING_FENCE), &fence);
    unsigned reason = (info & VMGPU_RING_FAULT_INFO_REASON_MASK) >> VMGPU_RING_FAULT_INFO_REASON_LSB;
    unsigned wr = (info & VMGPU_RING_FAULT_INFO_WRITE_MASK) != 0;
    unsigned asid = (info & VMGPU_RING_FAULT_INFO_ASID_MASK) >> VMGPU_RING_FAULT_INFO_ASID_LSB;
    unsigned op = (info & VMGPU_RING_FAULT_INFO_OPCODE_MASK) >> VMGPU_RING_FAULT_INFO_OPCODE_LSB;
    uint32_t hdr = 0;
    if (vmgpu_mem_read(dev->hal, rg->base + (cmd & (rg->size - 1)), &hdr, 1) == 0 &&
        reason == VMGPU_FAULT_BAD_COMMAND)
        op = hdr & 0xff;  /* an unknown opcode: show what was in the ring */
    char msg[256];
    const char *opn = op < VMGPU_OP_COUNT ? op_name(op) : "unknown opcode";
    if (reason == VMGPU_FAULT_BAD_COMMAND)
        snprintf(msg, sizeof msg, "ring %u: command at offset 0x%x (%s, header 0x%08x) faulted: "
                 "BAD_COMMAND (malformed command at pa 0x%08x), ASID %u", r, cmd, opn, hdr, va, asid);
    else
        snprintf(msg, sizeof msg, "ring %u: command at offset 0x%x (%s, header 0x%08x) faulted: %s "
                 "on %s of VA 0x%08x, ASID %u", r, cmd, opn, hdr, fault_name(reason),
                 wr ? "write" : "read", va, asid);
    trace_mmu_events(dev);
    core_trace("fault: %s; resetting ring %u (its queued work is dropped)", msg, r);
    vmgpu_ctx *ctx = asid < MAX_ASIDS ? dev->ctx_by_asid[asid] : NULL;
    ctx_mark_faulted(ctx, msg);
    /* Everything queued after the faulting command is dropped by RESET; remember which fences
     * will never come so that waiting for them is an error instead of a hang. */
    rg->fence_done = fence;
    rg->has_dropped = 1;
    rg->dropped_from = fence + 1;
    rg->dropped_upto = rg->fence_issued;
    snprintf(rg->dropped_msg, sizeof rg->dropped_msg, "dropped after fault: %s", msg);
    rg->nreplayed = 0;
    /* Other contexts' commands behind it: read back now (a malformed command leaves nothing
     * to parse; with a batch still queued on the host, ring_flush drops both as before). */
    uint32_t *behind = NULL;
    size_t nbehind = reason != VMGPU_FAULT_BAD_COMMAND && rg->npend == 0
                         ? ring_read_behind(dev, r, cmd, &behind) : 0;
    WR(VMGPU_RING_REG(r, VMGPU_RING_CTRL), VMGPU_RING_CTRL_ENABLE_MASK | VMGPU_RING_CTRL_RESET_MASK);
    RD(VMGPU_RING_REG(r, VMGPU_RING_HEAD), &rg->head);
    rg->tail = rg->head;
    rg->bound = NULL;  /* bind again before the next translated command */
    if (nbehind) replay_others(dev, r, behind, nbehind, asid);
    free(behind);
    return core_fail(dev, VMGPU_ERR_FAULT, "%s", msg);
}

static int fence_dropped(const ring_state *rg, uint32_t value)
{
    for (unsigned i = 0; i < rg->nreplayed; i++)
        if (rg->replayed[i] == value) return 0;  /* queued again after the fault */
    return rg->has_dropped && vmgpu_fence_reached(value, rg->dropped_from) &&
           vmgpu_fence_reached(rg->dropped_upto, value) &&
           !vmgpu_fence_reached(rg->fence_done, value);
}

int vmgpu_fence_query(vmgpu_dev *dev, unsigned r, uint32_t value)
{
    if (dev && dev->remote) return remote_fence_query(dev, r, value);
    if (!dev || r >= dev->info.n_rings) return core_fail(dev, VMGPU_ERR_INVALID, "fence_query: bad ring");
    ring_state *rg = &dev->ring[r];
    if (vmgpu_fence_reached(rg->fence_done, value)) return VMGPU_OK;
    if (fence_dropped(rg, value)) return core_fail(dev, VMGPU_ERR_FAULT, "%s", rg->dropped_msg);
    int frc = ring_flush_pending(dev, r);  /* a deferred event fence must get to the device */
    if (frc) return frc;
    RD(VMGPU_RING_REG(r, VMGPU_RING_FENCE), &rg->fence_done);
    return vmgpu_fence_reached(rg->fence_done, value) ? VMGPU_OK : VMGPU_ERR_NOT_READY;
}

int vmgpu_fence_wait(vmgpu_dev *dev, unsigned r, uint32_t value)
{
    if (dev && dev->remote) return remote_fence_wait(dev, r, value);
    if (!dev || r >= dev->info.n_rings) return core_fail(dev, VMGPU_ERR_INVALID, "fence_wait: bad ring");
    ring_state *rg = &dev->ring[r];
    if (!vmgpu_fence_reached(rg->fence_issued, value))
        return core_fail(dev, VMGPU_ERR_INVALID, "fence_wait: ring %u fence %u was never issued "
                         "(last %u)", r, value, rg->fence_issued);
    if (vmgpu_fence_reached(rg->fence_done, value)) return VMGPU_OK;
    if (fence_dropped(rg, value)) return core_fail(dev, VMGPU_ERR_FAULT, "%s", rg->dropped_msg);
    int frc = ring_flush_pending(dev, r);
    if (frc) return frc;
    uint64_t spent = 0;
    unsigned idle_looks = 0;
    for (;;) {
        uint32_t st;
        /* Run first: a device that is already idle costs nothing, and the usual wait is then
         * one run plus one FENCE read, whatever the batch did. */
        uint64_t chunk = dev->timeout_cycles > spent ? dev->timeout_cycles - spent : 0, ran = 0;
        if (chunk > (1ull << 24)) chunk = 1ull << 24;
        if (chunk) {
            int rc = vmgpu_run(dev->hal, chunk, &ran);
            if (rc && rc != VMGPU_HAL_ETIMEDOUT) return core_hal_err(dev, rc, "run");
            spent += ran;
            /* Idle twice without our fence (and no fault): nothing can make progress. */
            if (rc == VMGPU_HAL_OK && ran == 0 && ++idle_looks >= 2) spent = dev->timeout_cycles;
        }
        RD(VMGPU_RING_REG(r, VMGPU_RING_FENCE), &rg->fence_done);
        if (vmgpu_fence_reached(rg->fence_done, value)) {
            trace_mmu_events(dev);
            return VMGPU_OK;
        }
        RD(VMGPU_RING_REG(r, VMGPU_RING_STATUS), &st);
        if (st & VMGPU_RING_STATUS_FAULTED_MASK) {
            int frc = handle_fault(dev, r);
            /* Another context's fault: this fence was queued again behind the reset (or came
             * before the faulting command); go on waiting for it. */
            if (vmgpu_fence_reached(rg->fence_done, value)) return VMGPU_OK;
            if (fence_dropped(rg, value) || frc != VMGPU_ERR_FAULT) return frc;
            frc = ring_flush_pending(dev, r);
            if (frc) return frc;
            idle_looks = 0;
            continue;
        }
        if (spent >= dev->timeout_cycles) {
            uint32_t head = 0, hdr = 0;
            RD(VMGPU_RING_REG(r, VMGPU_RING_HEAD), &head);
            vmgpu_mem_read(dev->hal, rg->base + head, &hdr, 1);
            trace_mmu_events(dev);
            return core_fail(dev, VMGPU_ERR_TIMEOUT, "ring %u: fence %u not reached after %" PRIu64
                             " cycles (FENCE %u); command at offset 0x%x (%s)%s", r, value, spent,
                             rg->fence_done, head, op_name(hdr & 0xff),
                             (st & VMGPU_RING_STATUS_WAITING_MASK) ? " is blocked in WAIT_FENCE" :
                             " has not completed");
        }
    }
}

int vmgpu_dev_run_idle(vmgpu_dev *dev)
{
    if (dev && dev->remote) return remote_dev_run_idle(dev);
    if (!dev) return VMGPU_ERR_INVALID;
    uint64_t ran = 0;
    int rc = vmgpu_run(dev->hal, dev->timeout_cycles, &ran);
    if (rc == VMGPU_HAL_ETIMEDOUT)
        return core_fail(dev, VMGPU_ERR_TIMEOUT, "device not idle after %" PRIu64 " cycles", ran);
    if (rc) return core_hal_err(dev, rc, "run");
    trace_mmu_events(dev);
    return VMGPU_OK;
}

/* ------------------------------------------------------------------------- events */

static uint32_t event_pa(const vmgpu_event *ev) { return ev->dev->scratch_pa + 8 + ev->slot * 8; }

int vmgpu_event_create(vmgpu_dev *dev, vmgpu_event **out)
{
    if (dev && dev->remote) return remote_event_create(dev, out);
    if (!dev || !out) return core_fail(dev, VMGPU_ERR_INVALID, "event_create: NULL argument");
    for (unsigned i = 0; i < MAX_EVENTS; i++) {
        if (dev->event_slot[i]) continue;
        vmgpu_event *ev = calloc(1, sizeof *ev);
        if (!ev) return core_fail(dev, VMGPU_ERR_NOMEM, "out of host memory");
        ev->dev = dev;
        ev->slot = i;
        dev->event_slot[i] = ev;
        *out = ev;
        return VMGPU_OK;
    }
    return core_fail(dev, VMGPU_ERR_NOMEM, "event_create: all %u timestamp slots in use", MAX_EVENTS);
}

int vmgpu_event_destroy(vmgpu_event *ev)
{
    if (ev && ev->dev->remote) return remote_event_destroy(ev);
    if (!ev) return VMGPU_OK;
    ev->dev->event_slot[ev->slot] = NULL;
    free(ev);
    return VMGPU_OK;
}

int vmgpu_event_record(vmgpu_event *ev, vmgpu_stream *s)
{
    if (ev && ev->dev->remote) return remote_event_record(ev, s);
    if (!ev || !s) return VMGPU_ERR_INVALID;
    int rc = vmgpu_cmd_timestamp(s, event_pa(ev));
    if (rc) return rc;
    /* Event records batch the ring's work: the first one holds the ring's queue (later
     * submits only queue), the next one sends everything from the first up to itself in one
     * batch, and any wait sends what is held. A TIMESTAMP runs when the ring reaches it, so
     * over a slow link a record sent on its own would stamp the time it crossed the link and
     * the work after it would arrive a link transfer later: an event pair would time the link
     * instead of the work between them. Batched, the pair measures the device. */
    uint32_t f;
    rc = stream_fence_deferred(s, &f);
    if (rc) return rc;
    ring_state *rg = &ev->dev->ring[s->ring];
    if (rg->hold) {
        rc = ring_flush_pending(ev->dev, s->ring);
        if (rc) return rc;
    }
    rg->hold = 1;
    ev->recorded = 1;
    ev->ring = s->ring;
    ev->fence = f;
    return VMGPU_OK;
}

int vmgpu_event_query(vmgpu_event *ev)
{
    if (ev && ev->dev->remote) return remote_event_query(ev);
    if (!ev) return VMGPU_ERR_INVALID;
    if (!ev->recorded) return VMGPU_OK;  /* like cuEventQuery on an unrecorded event */
    return vmgpu_fence_query(ev->dev, ev->ring, ev->fence);
}

int vmgpu_event_wait(vmgpu_event *ev)
{
    if (ev && ev->dev->remote) return remote_event_wait(ev);
    if (!ev) return VMGPU_ERR_INVALID;
    if (!ev->recorded) return VMGPU_OK;
    return vmgpu_fence_wait(ev->dev, ev->ring, ev->fence);
}

int vmgpu_event_cycles(vmgpu_event *ev, uint64_t *cycles)
{
    if (ev && ev->dev->remote) return remote_event_cycles(ev, cycles);
    if (!ev || !cycles) return VMGPU_ERR_INVALID;
    if (!ev->recorded)
        return core_fail(ev->dev, VMGPU_ERR_INVALID, "event_cycles: event never recorded");
    int rc = vmgpu_event_query(ev);
    if (rc) return rc;
    uint32_t w[2];
    rc = vmgpu_phys_read(ev->dev, event_pa(ev), w, 8);
    if (rc) return rc;
    *cycles = ((uint64_t)w[1] << 32) | w[0];
    return VMGPU_OK;
}

int vmgpu_event_elapsed(vmgpu_event *start, vmgpu_event *end, uint64_t *cycles)
{
    if (start && start->dev->remote) return remote_event_elapsed(start, end, cycles);
    uint64_t a, b;
    if (!start || !end || !cycles || start->dev != end->dev) return VMGPU_ERR_INVALID;
    int rc = vmgpu_event_cycles(start, &a);
    if (!rc) rc = vmgpu_event_cycles(end, &b);
    if (rc) return rc;
    *cycles = b - a;
    return VMGPU_OK;
}

/* ------------------------------------------------------------------------ hashing */

uint64_t vmgpu_debug_state_hash(const vmgpu_dev *dev)
{
    if (dev && dev->remote) return remote_state_hash(dev);
    if (!dev) return 0;
    uint64_t h = 1469598103934665603ull;
    h = rs_hash(&dev->phys, h);
    h = rs_hash(&dev->ptpool, h);
    h = rs_hash(&dev->hostf, h);
    for (size_t i = 0; i < dev->nctx; i++) h = ctx_hash(dev->ctxs[i], h);
    h ^= dev->nstreams * 0x9e3779b97f4a7c15ull;
    return h;
}

/* ------------------------------------------------------------------ device server */

int vmgpu_dev_is_remote(const vmgpu_dev *dev) { return dev && dev->remote; }

int vmgpu_dev_ping(vmgpu_dev *dev)
{
    if (!dev) return VMGPU_ERR_INVALID;
    return dev->remote ? remote_ping(dev) : VMGPU_OK;
}

int vmgpu_dev_poll(vmgpu_dev *dev, uint64_t max_cycles, uint64_t *ran)
{
    if (!dev) return VMGPU_ERR_INVALID;
    if (dev->remote) return remote_poll(dev, max_cycles, ran);
    uint64_t r = 0;
    int rc = vmgpu_run(dev->hal, max_cycles, &r);
    if (ran) *ran = r;
    return rc && rc != VMGPU_HAL_ETIMEDOUT ? core_hal_err(dev, rc, "run") : VMGPU_OK;
}

int vmgpu_ring_faulted(vmgpu_dev *dev, unsigned r)
{
    if (!dev || r >= dev->info.n_rings)
        return core_fail(dev, VMGPU_ERR_INVALID, "ring_faulted: bad ring");
    if (dev->remote) return remote_ring_faulted(dev, r);
    uint32_t st;
    RD(VMGPU_RING_REG(r, VMGPU_RING_STATUS), &st);
    return (st & VMGPU_RING_STATUS_FAULTED_MASK) != 0;
}

int vmgpu_dev_link_round_trips(vmgpu_dev *dev, uint64_t *trips)
{
    if (!dev || !trips) return VMGPU_ERR_INVALID;
    if (dev->remote) return remote_link_round_trips(dev, trips);
    *trips = dev->hal->round_trips;
    return VMGPU_OK;
}

int vmgpu_phys_export(vmgpu_dev *dev, uint32_t pa, int *fd)
{
    if (!dev || !fd) return core_fail(dev, VMGPU_ERR_INVALID, "phys_export: NULL argument");
    if (!dev->remote)
        return core_fail(dev, VMGPU_ERR_INVALID, "phys_export: the device is in this process "
                         "(VMGPU_DEVICE=vmgpud shares it through the device server)");
    return remote_phys_export(dev, pa, fd);
}

int vmgpu_phys_import(vmgpu_dev *dev, int fd, uint32_t *pa, uint32_t *size)
{
    if (!dev || !pa || !size || fd < 0)
        return core_fail(dev, VMGPU_ERR_INVALID, "phys_import: bad argument");
    if (!dev->remote)
        return core_fail(dev, VMGPU_ERR_INVALID, "phys_import: the device is in this process");
    return remote_phys_import(dev, fd, pa, size);
}

int vmgpu_phys_ipc_token(vmgpu_dev *dev, uint32_t pa, uint64_t *token)
{
    if (!dev || !token) return core_fail(dev, VMGPU_ERR_INVALID, "phys_ipc_token: NULL argument");
    if (!dev->remote) return core_fail(dev, VMGPU_ERR_INVALID, "phys_ipc_token: the device is in this process");
    return remote_phys_ipc_token(dev, pa, token);
}

int vmgpu_phys_ipc_open(vmgpu_dev *dev, uint64_t token, uint32_t *pa, uint32_t *size, int *own)
{
    if (!dev || !pa || !size || !own) return core_fail(dev, VMGPU_ERR_INVALID, "phys_ipc_open: NULL argument");
    if (!dev->remote) return core_fail(dev, VMGPU_ERR_INVALID, "phys_ipc_open: the device is in this process");
    return remote_phys_ipc_open(dev, token, pa, size, own);
}

int vmgpu_event_ipc_token(vmgpu_event *ev, uint64_t *token)
{
    if (!ev || !token) return VMGPU_ERR_INVALID;
    if (!ev->dev->remote) return core_fail(ev->dev, VMGPU_ERR_INVALID, "event_ipc_token: the device is in this process");
    return remote_event_ipc_token(ev, token);
}

int vmgpu_event_ipc_open(vmgpu_dev *dev, uint64_t token, vmgpu_event **out, int *own)
{
    if (!dev || !out || !own) return core_fail(dev, VMGPU_ERR_INVALID, "event_ipc_open: NULL argument");
    if (!dev->remote) return core_fail(dev, VMGPU_ERR_INVALID, "event_ipc_open: the device is in this process");
    return remote_event_ipc_open(dev, token, out, own);
}

void vmgpu_dev_set_host_access(vmgpu_dev *dev, vmgpu_host_access_fn fn, void *user)
{
    if (!dev) return;
    dev->host_access = fn;
    dev->host_access_user = user;
}
