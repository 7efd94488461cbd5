/*
 * The "sim" backend: the in-process Verilator model (sim/vmgpu_sim.h). Memory bursts go through
 * the MEM_ADDR / MEM_DATA window exactly as they do over a link, so the driver sees the same
 * device on every backend; only the cost differs. Round trips are counted as a link would see
 * them: a register read, a memory-read burst and a memory-write burst count one each.
 */
#include <stdlib.h>

#include "hal_internal.h"
#include "vmgpu/regs.h"
#include "vmgpu_sim.h"

typedef struct hal_sim {
    vmgpu_hal base; /* first, so a vmgpu_hal * is a hal_sim * */
    vmgpu_sim *sim;
    uint32_t mem_size;
} hal_sim;

static hal_sim *as_sim(vmgpu_hal *h) { return (hal_sim *)h; }

/* The driver may change its handler between calls; hand the current one to the model. */
static vmgpu_sim *sim_of(vmgpu_hal *h) {
    hal_sim *s = as_sim(h);
    vmgpu_sim_set_host_handler(s->sim, h->host_fn, h->host_user);
    return s->sim;
}

static int sim_reg_read(vmgpu_hal *h, uint32_t off, uint32_t *val) {
    if (!val) return VMGPU_HAL_EINVAL;
    h->round_trips++;
    return vmgpu_sim_reg_read(sim_of(h), off, val) ? VMGPU_HAL_ETIMEDOUT : VMGPU_HAL_OK;
}

static int sim_reg_write(vmgpu_hal *h, uint32_t off, uint32_t val) {
    return vmgpu_sim_reg_write(sim_of(h), off, val) ? VMGPU_HAL_ETIMEDOUT : VMGPU_HAL_OK;
}

static int check_range(vmgpu_hal *h, uint32_t pa, const void *buf, size_t nwords) {
    uint32_t mem = as_sim(h)->mem_size;
    if ((pa & 3u) || (nwords && !buf)) return VMGPU_HAL_EINVAL;
    if (pa > mem || nwords > (mem - pa) / 4) return VMGPU_HAL_EINVAL;
    return VMGPU_HAL_OK;
}

static int sim_mem_write(vmgpu_hal *h, uint32_t pa, const uint32_t *words, size_t nwords) {
    int rc = check_range(h, pa, words, nwords);
    if (rc || !nwords) return rc;
    vmgpu_sim *sim = sim_of(h);
    h->round_trips++;
    if (vmgpu_sim_reg_write(sim, VMGPU_REG_MEM_ADDR, pa)) return VMGPU_HAL_ETIMEDOUT;
    for (size_t i = 0; i < nwords; ++i)
        if (vmgpu_sim_reg_write(sim, VMGPU_REG_MEM_DATA, words[i])) return VMGPU_HAL_ETIMEDOUT;
    return VMGPU_HAL_OK;
}

static int sim_mem_read(vmgpu_hal *h, uint32_t pa, uint32_t *words, size_t nwords) {
    int rc = check_range(h, pa, words, nwords);
    if (rc || !nwords) return rc;
    vmgpu_sim *sim = sim_of(h);
    h->round_trips++;
    if (vmgpu_sim_reg_write(sim, VMGPU_REG_MEM_ADDR, pa)) return VMGPU_HAL_ETIMEDOUT;
    for (size_t i = 0; i < nwords; ++i)
        if (vmgpu_sim_reg_read(sim, VMGPU_REG_MEM_DATA, &words[i])) return VMGPU_HAL_ETIMEDOUT;
    return VMGPU_HAL_OK;
}

static int sim_run(vmgpu_hal *h, uint64_t max_cycles, uint64_t *ran) {
    return vmgpu_sim_run_until_idle(sim_of(h), max_cycles, ran) ? VMGPU_HAL_ETIMEDOUT
                                                                 : VMGPU_HAL_OK;
}

static void sim_close(vmgpu_hal *h) {
    if (!h) return;
    vmgpu_sim_destroy(as_sim(h)->sim);
    free(h);
}

static const struct vmgpu_hal_ops sim_ops = {
    .name = "sim",
    .reg_read = sim_reg_read,
    .reg_write = sim_reg_write,
    .mem_write = sim_mem_write,
    .mem_read = sim_mem_read,
    .run = sim_run,
    .close = sim_close,
};

vmgpu_hal *vmgpu_hal_sim_open(const vmgpu_hal_spec *spec, char *err, size_t errlen) {
    (void)spec;
    hal_sim *s = calloc(1, sizeof *s);
    if (!s) {
        vmgpu_hal_set_error(err, errlen, "sim: out of memory");
        return NULL;
    }
    char why[256] = "";
    s->sim = vmgpu_sim_create(NULL, why, sizeof why); /* NULL: VMGPU_WAVES decides */
    if (!s->sim) {
        vmgpu_hal_set_error(err, errlen, "sim: %s", why);
        free(s);
        return NULL;
    }
    s->base.ops = &sim_ops;
    uint32_t id = 0;
    if (vmgpu_sim_reg_read(s->sim, VMGPU_REG_ID, &id) ||
        vmgpu_sim_reg_read(s->sim, VMGPU_REG_MEM_SIZE, &s->mem_size) || id != VMGPU_ID_MAGIC) {
        vmgpu_hal_set_error(err, errlen, "sim: the model does not answer as vmgpu (ID 0x%08x)",
                            (unsigned)id);
        sim_close(&s->base);
        return NULL;
    }
    return &s->base;
}
