/*
 * The HAL's common part: VMGPU_DEVICE parsing and backend selection, done once here so that
 * every backend gets a checked spec.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal_internal.h"

void vmgpu_hal_set_error(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static int bad_spec(const char *spec, const char *why, char *err, size_t errlen) {
    vmgpu_hal_set_error(err, errlen, "bad VMGPU_DEVICE value \"%s\" (%s); accepted forms: %s",
                        spec, why, VMGPU_HAL_SPEC_FORMS);
    return VMGPU_HAL_EINVAL;
}

/* 1-4 hex digits with an optional 0x, nothing else. */
static int parse_usb_id(const char *s, size_t n, uint16_t *out) {
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        n -= 2;
    }
    if (n < 1 || n > 4) return 0;
    unsigned v = 0;
    for (size_t i = 0; i < n; ++i) {
        char c = s[i];
        unsigned d;
        if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
        else return 0;
        v = v * 16 + d;
    }
    *out = (uint16_t)v;
    return 1;
}

/* A positive decimal that fits 32 bits, digits only. */
static int parse_baud(const char *s, uint32_t *out) {
    if (!*s || strlen(s) > 10) return 0;
    unsigned long long v = 0;
    for (const char *p = s; *p; ++p) {
        if (*p < '0' || *p > '9') return 0;
        v = v * 10 + (unsigned)(*p - '0');
    }
    if (v == 0 || v > 0xFFFFFFFFull) return 0;
    *out = (uint32_t)v;
    return 1;
}

static int parse_serial(const char *spec, const char *rest, vmgpu_hal_spec *out, char *err,
                        size_t errlen) {
    const char *at = strrchr(rest, '@');
    size_t path_len = at ? (size_t)(at - rest) : strlen(rest);
    if (path_len == 0) return bad_spec(spec, "serial: needs a tty path", err, errlen);
    if (path_len >= sizeof out->path) return bad_spec(spec, "tty path too long", err, errlen);
    memcpy(out->path, rest, path_len);
    out->path[path_len] = '\0';
    if (at && !parse_baud(at + 1, &out->baud))
        return bad_spec(spec, "baud must be a positive decimal number", err, errlen);
    out->kind = VMGPU_HAL_KIND_SERIAL;
    return VMGPU_HAL_OK;
}

static int parse_ftdi(const char *spec, const char *rest, vmgpu_hal_spec *out, char *err,
                      size_t errlen) {
    out->kind = VMGPU_HAL_KIND_FTDI;
    if (!rest) return VMGPU_HAL_OK; /* plain "ftdi": the first FTDI device found */
    const char *c1 = strchr(rest, ':');
    if (!c1) return bad_spec(spec, "ftdi: needs vid:pid", err, errlen);
    const char *pid = c1 + 1;
    const char *c2 = strchr(pid, ':');
    size_t pid_len = c2 ? (size_t)(c2 - pid) : strlen(pid);
    if (!parse_usb_id(rest, (size_t)(c1 - rest), &out->vid) ||
        !parse_usb_id(pid, pid_len, &out->pid))
        return bad_spec(spec, "vid and pid must be 1 to 4 hex digits", err, errlen);
    out->has_usb_id = 1;
    if (c2) {
        const char *serial = c2 + 1;
        if (!*serial) return bad_spec(spec, "empty USB serial number", err, errlen);
        if (strlen(serial) >= sizeof out->serial)
            return bad_spec(spec, "USB serial number too long", err, errlen);
        strcpy(out->serial, serial);
    }
    return VMGPU_HAL_OK;
}

int vmgpu_hal_parse_spec(const char *spec, vmgpu_hal_spec *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    if (!spec || !*spec || !strcmp(spec, "sim")) {
        out->kind = VMGPU_HAL_KIND_SIM;
        return VMGPU_HAL_OK;
    }
    if (!strcmp(spec, "sim-board")) {
        out->kind = VMGPU_HAL_KIND_SIM_BOARD;
        return VMGPU_HAL_OK;
    }
    if (!strncmp(spec, "serial:", 7)) return parse_serial(spec, spec + 7, out, err, errlen);
    if (!strcmp(spec, "ftdi")) return parse_ftdi(spec, NULL, out, err, errlen);
    if (!strncmp(spec, "ftdi:", 5)) return parse_ftdi(spec, spec + 5, out, err, errlen);
    return bad_spec(spec, "unknown device", err, errlen);
}

int vmgpu_hal_check_spec(const char *spec, char *err, size_t errlen) {
    if (!spec) spec = getenv("VMGPU_DEVICE");
    vmgpu_hal_spec s;
    return vmgpu_hal_parse_spec(spec, &s, err, errlen);
}

vmgpu_hal *vmgpu_hal_open(const char *spec, char *err, size_t errlen) {
    if (!spec) spec = getenv("VMGPU_DEVICE");
    vmgpu_hal_spec s;
    if (vmgpu_hal_parse_spec(spec, &s, err, errlen) != VMGPU_HAL_OK) return NULL;
    switch (s.kind) {
    case VMGPU_HAL_KIND_SIM:
        return vmgpu_hal_sim_open(&s, err, errlen);
    case VMGPU_HAL_KIND_SIM_BOARD:
        return vmgpu_hal_sim_board_open(&s, err, errlen);
    case VMGPU_HAL_KIND_SERIAL:
        return vmgpu_hal_serial_open(&s, err, errlen);
    case VMGPU_HAL_KIND_FTDI:
        return vmgpu_hal_ftdi_open(&s, err, errlen);
    }
    vmgpu_hal_set_error(err, errlen, "VMGPU_DEVICE \"%s\": unknown backend", spec);
    return NULL;
}

void vmgpu_hal_close(vmgpu_hal *h) {
    if (h) h->ops->close(h);
}

void vmgpu_hal_set_host_handler(vmgpu_hal *h, vmgpu_host_handler fn, void *user) {
    h->host_fn = fn;
    h->host_user = user;
}

const char *vmgpu_hal_last_error(const vmgpu_hal *h) { return h ? h->last_error : ""; }

const char *vmgpu_hal_status_name(int status) {
    switch (status) {
    case VMGPU_HAL_OK: return "VMGPU_HAL_OK";
    case VMGPU_HAL_EINVAL: return "VMGPU_HAL_EINVAL";
    case VMGPU_HAL_ENODEV: return "VMGPU_HAL_ENODEV";
    case VMGPU_HAL_EIO: return "VMGPU_HAL_EIO";
    case VMGPU_HAL_ETIMEDOUT: return "VMGPU_HAL_ETIMEDOUT";
    default: return "VMGPU_HAL_UNKNOWN";
    }
}

#ifndef VMGPU_HAL_HAVE_SIM
/* Built without the model (its RTL was incomplete when the build was configured). */
vmgpu_hal *vmgpu_hal_sim_open(const vmgpu_hal_spec *spec, char *err, size_t errlen) {
    (void)spec;
    vmgpu_hal_set_error(err, errlen,
                        "the sim backend is not in this build: the RTL of vmgpu_top was "
                        "incomplete when it was configured (re-run cmake)");
    return NULL;
}
#endif
