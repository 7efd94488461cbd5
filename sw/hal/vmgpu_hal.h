/*
 * vmgpu transport interface: the one small surface every backend implements.
 *
 * A backend moves 32-bit register accesses and device-memory bursts between the driver and
 * one vmgpu device, and serves the device's host-port requests (pages whose PTE has the HOST
 * bit) from host memory the driver registered. Backends: "sim" (in-process Verilator model),
 * "sim-board", "serial:<tty>[@baud]", "ftdi[:vid:pid[:serial]]" (see vmgpu_hal_open).
 *
 * Everything above this header (sw/core, the CUDA and OpenCL front ends) is device-neutral.
 */
#ifndef VMGPU_HAL_H
#define VMGPU_HAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vmgpu_hal vmgpu_hal;

/* Status codes of the transport layer. */
typedef enum vmgpu_hal_status {
    VMGPU_HAL_OK = 0,
    VMGPU_HAL_EINVAL = -1,   /* bad argument or bad VMGPU_DEVICE value */
    VMGPU_HAL_ENODEV = -2,   /* no such device, or backend not available in this build */
    VMGPU_HAL_EIO = -3,      /* the link failed */
    VMGPU_HAL_ETIMEDOUT = -4 /* the device did not answer or did not go idle in time */
} vmgpu_hal_status;

/*
 * Host-port handler: the device reads (write == 0: fill *data) or writes (write == 1: store
 * *data under byte enable be) the 32-bit word at host address haddr = frame << 12 | offset.
 * Returns 0 on success; nonzero makes the backend answer reads with 0xDEADBEEF and drop writes.
 */
typedef int (*vmgpu_host_handler)(void *user, uint32_t haddr, int write, uint32_t *data,
                                  unsigned be);

struct vmgpu_hal_ops {
    const char *name;
    int (*reg_read)(vmgpu_hal *h, uint32_t off, uint32_t *val);
    int (*reg_write)(vmgpu_hal *h, uint32_t off, uint32_t val);
    /* Device-memory bursts through MEM_ADDR / MEM_DATA; pa and nwords in 32-bit words units
     * of a word-aligned byte address. */
    int (*mem_write)(vmgpu_hal *h, uint32_t pa, const uint32_t *words, size_t nwords);
    int (*mem_read)(vmgpu_hal *h, uint32_t pa, uint32_t *words, size_t nwords);
    /* Let the device run until it is idle (STATUS.IDLE) or max_cycles device cycles have
     * passed; serves host-port requests meanwhile. *ran gets the cycles that passed (may be
     * NULL). Returns VMGPU_HAL_OK when idle, VMGPU_HAL_ETIMEDOUT when the budget ran out. */
    int (*run)(vmgpu_hal *h, uint64_t max_cycles, uint64_t *ran);
    void (*close)(vmgpu_hal *h);
};

struct vmgpu_hal {
    const struct vmgpu_hal_ops *ops;
    vmgpu_host_handler host_fn;
    void *host_user;
    /* Link round trips: every exchange that waits for the device's answer counts one
     * (a register read, a memory-read burst, a flush of posted writes). Benchmarks read it. */
    uint64_t round_trips;
    /* Why the last failing call failed, in words naming the device (may stay empty for
     * backends with nothing to add to the status code). */
    char last_error[320];
};

/*
 * Open the device named by spec (NULL: the VMGPU_DEVICE environment variable; unset or empty:
 * "sim"). Accepted forms: sim | sim-board | serial:/dev/ttyUSB0[@baud] | ftdi[:vid:pid[:serial]].
 * On failure returns NULL and writes a one-line reason into err (which names the accepted forms
 * when the spec itself is wrong).
 */
vmgpu_hal *vmgpu_hal_open(const char *spec, char *err, size_t errlen);
/* Checks a device spec as vmgpu_hal_open would, without opening anything: VMGPU_HAL_OK, or
 * VMGPU_HAL_EINVAL with the reason (naming the accepted forms) in err. */
int vmgpu_hal_check_spec(const char *spec, char *err, size_t errlen);
void vmgpu_hal_close(vmgpu_hal *h);
void vmgpu_hal_set_host_handler(vmgpu_hal *h, vmgpu_host_handler fn, void *user);
const char *vmgpu_hal_status_name(int status);
/* The message of the last failure on h ("" when none was recorded). */
const char *vmgpu_hal_last_error(const vmgpu_hal *h);

/* Convenience wrappers over h->ops. */
static inline int vmgpu_reg_read(vmgpu_hal *h, uint32_t off, uint32_t *val) { return h->ops->reg_read(h, off, val); }
static inline int vmgpu_reg_write(vmgpu_hal *h, uint32_t off, uint32_t val) { return h->ops->reg_write(h, off, val); }
static inline int vmgpu_mem_write(vmgpu_hal *h, uint32_t pa, const uint32_t *w, size_t n) { return h->ops->mem_write(h, pa, w, n); }
static inline int vmgpu_mem_read(vmgpu_hal *h, uint32_t pa, uint32_t *w, size_t n) { return h->ops->mem_read(h, pa, w, n); }
static inline int vmgpu_run(vmgpu_hal *h, uint64_t max_cycles, uint64_t *ran) { return h->ops->run(h, max_cycles, ran); }

#ifdef __cplusplus
}
#endif
#endif /* VMGPU_HAL_H */
