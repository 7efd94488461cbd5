/*
 * The "ftdi" backend: the bridge protocol straight through libftdi1 (USB, no kernel tty), for
 * the ULX3S's FT231X (0403:6015) or any FTDI UART. libftdi detaches the kernel's ftdi_sio from
 * the interface while the device is open, so no /dev/ttyUSB* is involved.
 *
 * Why bother when "serial" works through ftdi_sio: the chip holds received bytes until its
 * latency timer expires (16 ms under ftdi_sio unless changed in sysfs); here it is set to 1 ms,
 * which is most of a small request's round trip.
 *
 * The line rate is 3000000 baud (the FT231X's highest, the bitstream's default) unless
 * VMGPU_FTDI_BAUD says otherwise; it must match the bitstream.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bridge.h"
#include "hal_internal.h"

#ifdef VMGPU_HAL_HAVE_FTDI
#include <ftdi.h>
#include <time.h>

/* The ULX3S's USB-serial chip. */
#define ULX3S_VID 0x0403
#define ULX3S_PID 0x6015

typedef struct ftdi_io {
    struct ftdi_context *ctx;
    char why[200];
} ftdi_io;

static uint64_t ms_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int fio_read(void *c, uint8_t *buf, size_t n, int timeout_ms) {
    ftdi_io *f = c;
    uint64_t end = ms_now() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms);
    /* Each bulk read returns within about one latency-timer period (the chip sends its modem
     * status even with no data), so this loop is the time-out. */
    for (;;) {
        int r = ftdi_read_data(f->ctx, buf, (int)(n > 65536 ? 65536 : n));
        if (r < 0) {
            snprintf(f->why, sizeof f->why, "ftdi_read_data: %s",
                     ftdi_get_error_string(f->ctx));
            return -1;
        }
        if (r > 0 || ms_now() >= end) return r;
    }
}

static int fio_write(void *c, const uint8_t *buf, size_t n) {
    ftdi_io *f = c;
    while (n) {
        int chunk = (int)(n > 4096 ? 4096 : n);
        int r = ftdi_write_data(f->ctx, buf, chunk);
        if (r <= 0) {
            snprintf(f->why, sizeof f->why, "ftdi_write_data: %s",
                     r < 0 ? ftdi_get_error_string(f->ctx) : "wrote nothing");
            return -1;
        }
        buf += r;
        n -= (size_t)r;
    }
    return 0;
}

static const char *fio_describe(void *c) { return ((ftdi_io *)c)->why; }

static void fio_close(void *c) {
    ftdi_io *f = c;
    if (f->ctx) {
        ftdi_usb_close(f->ctx); /* gives the interface back to ftdi_sio */
        ftdi_free(f->ctx);
    }
    free(f);
}

static uint32_t baud_from_env(void) {
    const char *s = getenv("VMGPU_FTDI_BAUD");
    if (!s || !*s) return VMGPU_HAL_DEFAULT_BAUD;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    return (*end || !v || v > 12000000ul) ? 0 : (uint32_t)v;
}

vmgpu_hal *vmgpu_hal_ftdi_open(const vmgpu_hal_spec *spec, char *err, size_t errlen) {
    uint16_t vid = spec->has_usb_id ? spec->vid : ULX3S_VID;
    uint16_t pid = spec->has_usb_id ? spec->pid : ULX3S_PID;
    char devname[220];
    snprintf(devname, sizeof devname, "ftdi:%04x:%04x%s%s", vid, pid, spec->serial[0] ? ":" : "",
             spec->serial);
    uint32_t baud = baud_from_env();
    if (!baud) {
        vmgpu_hal_set_error(err, errlen, "%s: bad VMGPU_FTDI_BAUD (a rate in baud, e.g. 3000000)",
                            devname);
        return NULL;
    }
    ftdi_io *f = calloc(1, sizeof *f);
    if (!f || !(f->ctx = ftdi_new())) {
        free(f);
        vmgpu_hal_set_error(err, errlen, "%s: out of memory", devname);
        return NULL;
    }
    struct ftdi_context *c = f->ctx;
    const char *step = "ftdi_set_interface";
    int rc = ftdi_set_interface(c, INTERFACE_A);
    if (rc == 0) {
        step = "ftdi_usb_open_desc";
        rc = ftdi_usb_open_desc(c, vid, pid, NULL, spec->serial[0] ? spec->serial : NULL);
        if (rc < 0) {
            const char *hint =
                rc == -3 ? " (no such device: is the board plugged in? `lsusb` lists it)"
                : rc == -4 || rc == -8
                    ? " (no permission: install the udev rule of docs/board.md, or run as root)"
                : rc == -5 ? " (cannot claim it: another program has it open)"
                           : "";
            vmgpu_hal_set_error(err, errlen, "%s: %s: %s%s", devname, step,
                                ftdi_get_error_string(c), hint);
            ftdi_free(c);
            free(f);
            return NULL;
        }
    }
    if (rc == 0) { step = "ftdi_usb_reset"; rc = ftdi_usb_reset(c); }
    if (rc == 0) { step = "ftdi_set_baudrate"; rc = ftdi_set_baudrate(c, (int)baud); }
    if (rc == 0) {
        step = "ftdi_set_line_property";
        rc = ftdi_set_line_property(c, BITS_8, STOP_BIT_1, NONE);
    }
    if (rc == 0) { step = "ftdi_setflowctrl"; rc = ftdi_setflowctrl(c, SIO_DISABLE_FLOW_CTRL); }
    /* 1 ms: the chip flushes what it has received after 1 ms instead of 16. */
    if (rc == 0) { step = "ftdi_set_latency_timer"; rc = ftdi_set_latency_timer(c, 1); }
    /* A whole frame (1040 bytes) plus its answer fits one transfer each way. */
    if (rc == 0) { step = "ftdi_read_data_set_chunksize"; rc = ftdi_read_data_set_chunksize(c, 4096); }
    if (rc == 0) { step = "ftdi_write_data_set_chunksize"; rc = ftdi_write_data_set_chunksize(c, 4096); }
    if (rc == 0) { step = "ftdi_tcioflush"; rc = ftdi_tcioflush(c); }
    if (rc < 0) {
        vmgpu_hal_set_error(err, errlen, "%s: %s: %s", devname, step, ftdi_get_error_string(c));
        fio_close(f);
        return NULL;
    }
    c->usb_read_timeout = 100;
    c->usb_write_timeout = 1000;
    bridge_io io = {f, fio_read, fio_write, fio_describe, fio_close};
    /* USB adds a millisecond or two per direction to every exchange; the protocol's 20 ms
     * margin covers it. */
    bridge_config cfg = {.line_bps = baud};
    return bridge_open(devname, "ftdi", io, &cfg, err, errlen);
}

#else /* !VMGPU_HAL_HAVE_FTDI */

vmgpu_hal *vmgpu_hal_ftdi_open(const vmgpu_hal_spec *spec, char *err, size_t errlen) {
    (void)spec;
    vmgpu_hal_set_error(err, errlen,
                        "the ftdi backend is not in this build: libftdi1 was not found when "
                        "cmake configured it (install libftdi1-dev, e.g. with scripts/setup.sh, "
                        "and re-run cmake); meanwhile VMGPU_DEVICE=serial:/dev/ttyUSB0@3000000 "
                        "reaches the same board through the kernel's ftdi_sio driver");
    return NULL;
}

#endif
