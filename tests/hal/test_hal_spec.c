/*
 * VMGPU_DEVICE parsing: every accepted form parses to the right backend and fields, every bad
 * one is refused with a message naming the accepted forms, and the not-yet-built bridge
 * backends are refused with a message saying so (not as a bad value).
 */
#include <string.h>

#include "hal_check.h"
#include "hal_internal.h"

static void good(const char *spec, vmgpu_hal_kind kind) {
    vmgpu_hal_spec s;
    char err[512] = "";
    int rc = vmgpu_hal_parse_spec(spec, &s, err, sizeof err);
    CHECK(rc == VMGPU_HAL_OK, "\"%s\" refused: %s", spec ? spec : "(null)", err);
    CHECK(rc != VMGPU_HAL_OK || s.kind == kind, "\"%s\" parsed as kind %d, want %d",
          spec ? spec : "(null)", (int)s.kind, (int)kind);
}

static void bad(const char *spec) {
    vmgpu_hal_spec s;
    char err[512] = "";
    int rc = vmgpu_hal_parse_spec(spec, &s, err, sizeof err);
    CHECK(rc == VMGPU_HAL_EINVAL, "\"%s\" accepted", spec);
    CHECK(strstr(err, "sim | sim-board | serial:/dev/ttyUSB0[@baud] | ftdi[:vid:pid[:serial]]"),
          "message for \"%s\" does not name the forms: %s", spec, err);
    CHECK(strstr(err, spec) != NULL, "message does not quote \"%s\": %s", spec, err);
    /* vmgpu_hal_open must refuse it the same way */
    char err2[512] = "";
    vmgpu_hal *h = vmgpu_hal_open(spec, err2, sizeof err2);
    CHECK(h == NULL && strcmp(err, err2) == 0, "open(\"%s\"): %s", spec, err2);
    if (h) vmgpu_hal_close(h);
}

/* A well-formed spec reaches its backend, which fails here (no such device) with a reason that
 * names the device and contains want. */
static void reaches_backend(const char *spec, const char *name, const char *want) {
    char err[512] = "";
    vmgpu_hal *h = vmgpu_hal_open(spec, err, sizeof err);
    CHECK(h == NULL, "open(\"%s\") succeeded", spec);
    CHECK(strstr(err, name) && strstr(err, want) && !strstr(err, "accepted forms"),
          "open(\"%s\"): %s", spec, err);
    printf("  %s -> %s\n", spec, err);
    if (h) vmgpu_hal_close(h);
}

int main(void) {
    vmgpu_hal_spec s;
    char err[512];

    good(NULL, VMGPU_HAL_KIND_SIM);
    good("", VMGPU_HAL_KIND_SIM);
    good("sim", VMGPU_HAL_KIND_SIM);
    good("sim-board", VMGPU_HAL_KIND_SIM_BOARD);
    good("ftdi", VMGPU_HAL_KIND_FTDI);

    CHECK(vmgpu_hal_parse_spec("serial:/dev/ttyUSB0", &s, err, sizeof err) == VMGPU_HAL_OK &&
              s.kind == VMGPU_HAL_KIND_SERIAL && !strcmp(s.path, "/dev/ttyUSB0") && s.baud == 0,
          "serial without baud: path %s baud %u", s.path, (unsigned)s.baud);
    CHECK(vmgpu_hal_parse_spec("serial:/dev/ttyUSB1@3000000", &s, err, sizeof err) ==
                  VMGPU_HAL_OK &&
              !strcmp(s.path, "/dev/ttyUSB1") && s.baud == 3000000,
          "serial with baud: path %s baud %u", s.path, (unsigned)s.baud);
    CHECK(vmgpu_hal_parse_spec("serial:/dev/serial/by-id/usb-FTDI:x@115200", &s, err,
                               sizeof err) == VMGPU_HAL_OK &&
              !strcmp(s.path, "/dev/serial/by-id/usb-FTDI:x") && s.baud == 115200,
          "serial path with a colon: path %s baud %u", s.path, (unsigned)s.baud);
    CHECK(vmgpu_hal_parse_spec("ftdi", &s, err, sizeof err) == VMGPU_HAL_OK && !s.has_usb_id &&
              !s.serial[0],
          "plain ftdi has no ids");
    CHECK(vmgpu_hal_parse_spec("ftdi:0403:6015", &s, err, sizeof err) == VMGPU_HAL_OK &&
              s.has_usb_id && s.vid == 0x0403 && s.pid == 0x6015 && !s.serial[0],
          "ftdi vid:pid: %04x:%04x", s.vid, s.pid);
    CHECK(vmgpu_hal_parse_spec("ftdi:0x403:6Ab:FT12XYZ", &s, err, sizeof err) == VMGPU_HAL_OK &&
              s.vid == 0x0403 && s.pid == 0x06AB && !strcmp(s.serial, "FT12XYZ"),
          "ftdi vid:pid:serial: %04x:%04x %s", s.vid, s.pid, s.serial);
    printf("accepted: sim (also unset/empty), sim-board, serial with and without baud, ftdi "
           "with 0, 2 and 3 fields\n");

    static const char *const bad_specs[] = {
        "simm", "SIM", " sim", "sim ", "sim-boar", "sim-board:1", "serial", "serial:",
        "serial:@115200", "serial:/dev/x@0", "serial:/dev/x@", "serial:/dev/x@12a",
        "serial:/dev/x@99999999999", "serial:/dev/x@-1", "ftdi:", "ftdi:0403", "ftdi:zz:1",
        "ftdi:0403:", "ftdi:12345:1", "ftdi:0403:6010:", "ftdi::6010", "ftdi:0x:1", "ftdix",
        "tcp:localhost:1234",
    };
    for (size_t i = 0; i < sizeof bad_specs / sizeof bad_specs[0]; ++i) bad(bad_specs[i]);
    printf("refused with the accepted forms named: %zu bad values\n",
           sizeof bad_specs / sizeof bad_specs[0]);

    reaches_backend("serial:/dev/vmgpu-no-such-tty@115200", "serial:/dev/vmgpu-no-such-tty@115200",
                    "cannot open");
    reaches_backend("serial:/dev/null", "serial:/dev/null@3000000", "not a tty");
    /* No FTDI chip on a test machine: libftdi finds no device, or the build has no libftdi. */
    char err3[512] = "";
    vmgpu_hal *hf = vmgpu_hal_open("ftdi:0403:6015:VMGPU-TEST", err3, sizeof err3);
    CHECK(!hf && ((strstr(err3, "ftdi:0403:6015:VMGPU-TEST") && strstr(err3, "ftdi_usb_open")) ||
                  strstr(err3, "libftdi1")),
          "ftdi without a device: %s", err3);
    printf("  ftdi:0403:6015:VMGPU-TEST -> %s\n", err3);
    if (hf) vmgpu_hal_close(hf);
    printf("bridge backends reached, failing with the device named\n");

    /* Small or absent error buffers must not crash. */
    CHECK(vmgpu_hal_parse_spec("simm", &s, NULL, 0) == VMGPU_HAL_EINVAL, "NULL err buffer");
    char tiny[8];
    CHECK(vmgpu_hal_parse_spec("simm", &s, tiny, sizeof tiny) == VMGPU_HAL_EINVAL &&
              strlen(tiny) < sizeof tiny,
          "tiny err buffer");
    CHECK(!strcmp(vmgpu_hal_status_name(VMGPU_HAL_ETIMEDOUT), "VMGPU_HAL_ETIMEDOUT"),
          "status name");
    return hal_summary("test_hal_spec");
}
