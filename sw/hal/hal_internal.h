/*
 * Shared between the HAL's common code (hal.c), its backends and its tests; not installed.
 */
#ifndef VMGPU_HAL_INTERNAL_H
#define VMGPU_HAL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "vmgpu_hal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The accepted VMGPU_DEVICE forms, as every error about a bad value prints them. */
#define VMGPU_HAL_SPEC_FORMS \
    "sim | sim-board | serial:/dev/ttyUSB0[@baud] | ftdi[:vid:pid[:serial]] (vid, pid in hex), " \
    "each through the per-user device server unless VMGPU_SERVER=0; sim-inproc; vmgpud[:FORM]"

typedef enum vmgpu_hal_kind {
    VMGPU_HAL_KIND_SIM,
    VMGPU_HAL_KIND_SIM_BOARD,
    VMGPU_HAL_KIND_SERIAL,
    VMGPU_HAL_KIND_FTDI
} vmgpu_hal_kind;

/* A parsed VMGPU_DEVICE value. */
typedef struct vmgpu_hal_spec {
    vmgpu_hal_kind kind;
    char path[256];    /* serial: the tty */
    uint32_t baud;     /* serial: 0 when not given (the backend's default) */
    int has_usb_id;    /* ftdi: vid and pid were given */
    uint16_t vid, pid; /* ftdi */
    char serial[128];  /* ftdi: USB serial number, "" when not given */
} vmgpu_hal_spec;

/*
 * Parse spec (NULL or "" means "sim"; the environment is not read here). Returns VMGPU_HAL_OK,
 * or VMGPU_HAL_EINVAL with a one-line reason in err that names the accepted forms.
 */
int vmgpu_hal_parse_spec(const char *spec, vmgpu_hal_spec *out, char *err, size_t errlen);

/* Printf into err if there is room; backends use it for their one-line reasons. */
void vmgpu_hal_set_error(char *err, size_t errlen, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The bridge's line rate when VMGPU_DEVICE gives none (docs/bridge-protocol.md). */
#define VMGPU_HAL_DEFAULT_BAUD 3000000u

/* Backend constructors: NULL with a reason in err on failure. */
vmgpu_hal *vmgpu_hal_sim_open(const vmgpu_hal_spec *spec, char *err, size_t errlen);
vmgpu_hal *vmgpu_hal_serial_open(const vmgpu_hal_spec *spec, char *err, size_t errlen);
vmgpu_hal *vmgpu_hal_ftdi_open(const vmgpu_hal_spec *spec, char *err, size_t errlen);
vmgpu_hal *vmgpu_hal_sim_board_open(const vmgpu_hal_spec *spec, char *err, size_t errlen);

/* The serial backend on a given tty, with the name and time-outs of another backend (sim-board
 * runs the same code on its pty). cfg may be NULL. */
struct bridge_config;
vmgpu_hal *vmgpu_hal_serial_open_path(const char *devname, const char *backend,
                                      const char *path, uint32_t baud,
                                      const struct bridge_config *cfg, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* VMGPU_HAL_INTERNAL_H */
