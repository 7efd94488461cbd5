/* Device open and close, the memory layout, device queries, and the calls that exist only
 * through the device server (export/import, tokens). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"
#include "remote.h"

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
    if (caps & VMGPU_REG_CAPS_SIMT_MASK) {
        uint32_t sc = 0;
        RD(VMGPU_REG_SIMT_CONFIG, &sc);
        dev->info.simt_lanes = (sc & VMGPU_REG_SIMT_CONFIG_LANES_MASK) >> VMGPU_REG_SIMT_CONFIG_LANES_LSB;
        dev->info.simt_warps = (sc & VMGPU_REG_SIMT_CONFIG_WARPS_MASK) >> VMGPU_REG_SIMT_CONFIG_WARPS_LSB;
        dev->info.simt_shared_bytes = ((sc & VMGPU_REG_SIMT_CONFIG_SHARED_KIB_MASK) >>
                                       VMGPU_REG_SIMT_CONFIG_SHARED_KIB_LSB) * 1024u;
#ifdef VMGPU_REG_CAPS_SIMT_A_MASK
        if (caps & VMGPU_REG_CAPS_SIMT_A_MASK) dev->info.simt_isa |= VMGPU_SIMT_ISA_A;
#endif
#ifdef VMGPU_REG_CAPS_SIMT_F_MASK
        if (caps & VMGPU_REG_CAPS_SIMT_F_MASK) dev->info.simt_isa |= VMGPU_SIMT_ISA_F;
#endif
    }
    dev->info.host_port_link = !(dev->hal->ops && dev->hal->ops->name && strcmp(dev->hal->ops->name, "sim") == 0);
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
    /* Options lay the device out (rings, page-table pool): only its owner chooses that. A
     * server's device was laid out when the server started, so options open in the process. */
    int layout = opt && (opt->ring_bytes || opt->pt_pool_bytes);
    if (remote_spec(spec)) {
        if (layout) {
            if (err && errlen)
                snprintf(err, errlen, "device options (ring or page-table pool size) need the device "
                         "in this process: a server's device is laid out when the server starts");
            return VMGPU_ERR_INVALID;
        }
        return remote_open(spec, opt, out, err, errlen);
    }
    /* Every other form goes through its per-user device server, so that two processes of one
     * user reach the same device (as on a real GPU). In this process instead: sim-inproc (the
     * simulated device), or any form with VMGPU_SERVER=0 (what vmgpud itself sets, and what
     * tools that play the kernel driver's part use: raw commands, the transport's counters). */
    int inproc = spec && strcmp(spec, "sim-inproc") == 0;
    if (inproc) spec = "sim";
    const char *via = getenv("VMGPU_SERVER");
    if (via && *via && strcmp(via, "0") && strcmp(via, "1")) {
        if (err && errlen)
            snprintf(err, errlen, "bad VMGPU_SERVER value \"%s\": 1 (through the device server, the "
                     "default) or 0 (the device in this process)", via);
        return VMGPU_ERR_INVALID;
    }
    /* A waveform records one run of the model as this process drives it, finished when the
     * process closes the device: with VMGPU_WAVES the simulated device runs in the process
     * (unless VMGPU_SERVER=1 asks for the server, whose file then holds every client's work
     * and is finished only when the server leaves). */
    const char *waves = getenv("VMGPU_WAVES");
    if (waves && *waves && !(via && strcmp(via, "1") == 0)) inproc = 1;
    if (layout) inproc = 1;
    if (!inproc && !(via && strcmp(via, "0") == 0)) {
        /* A bad form is refused here, before any server is started for it. */
        if (vmgpu_hal_check_spec(spec, herr, sizeof herr) != VMGPU_HAL_OK) {
            if (err && errlen) snprintf(err, errlen, "%s", herr);
            return VMGPU_ERR_NODEV;
        }
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

void vmgpu_dev_set_host_access(vmgpu_dev *dev, vmgpu_host_access_fn fn, void *user)
{
    if (!dev) return;
    dev->host_access = fn;
    dev->host_access_user = user;
}
