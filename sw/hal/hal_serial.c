/*
 * The "serial" backend: the bridge protocol over a tty (a USB serial adapter such as the
 * ULX3S's FT231X under the kernel's ftdi_sio driver, or a pseudo-terminal). Only the tty's
 * set-up lives here; framing, retries and time-outs are bridge.c's.
 *
 * The line is configured with the Linux termios2 interface (TCGETS2/TCSETS2 with BOTHER), so any
 * rate the adapter can make is reachable, 3000000 baud included, which the classic B* constants
 * of <termios.h> do not name. That header and <asm/termbits.h> cannot be included together,
 * which is why this file talks to the tty with ioctl only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "bridge.h"
#include "hal_internal.h"

#ifdef __linux__
#include <asm/termbits.h>

/* Raw 8N1 at baud, no flow control, reads that never block (poll() does the waiting). */
static int set_line(int fd, uint32_t baud, char *why, size_t whylen) {
    struct termios2 t;
    if (ioctl(fd, TCGETS2, &t) < 0) {
        snprintf(why, whylen, "not a tty (TCGETS2: %s)", strerror(errno));
        return -1;
    }
    t.c_iflag &= ~(tcflag_t)(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON |
                             IXOFF | IXANY | INPCK);
    t.c_oflag &= ~(tcflag_t)OPOST;
    t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
    t.c_cflag &= ~(tcflag_t)(CSIZE | PARENB | CSTOPB | CRTSCTS | CBAUD | (CBAUD << IBSHIFT));
    t.c_cflag |= CS8 | CREAD | CLOCAL | BOTHER | (BOTHER << IBSHIFT);
    t.c_ispeed = baud;
    t.c_ospeed = baud;
    t.c_cc[VMIN] = 0;
    t.c_cc[VTIME] = 0;
    if (ioctl(fd, TCSETS2, &t) < 0) {
        snprintf(why, whylen, "cannot set %u baud raw 8N1 (TCSETS2: %s)", (unsigned)baud,
                 strerror(errno));
        return -1;
    }
    /* The driver may round to what the chip can divide; far off means the bitstream's rate
     * cannot be matched, which would only show later as time-outs. */
    if (ioctl(fd, TCGETS2, &t) == 0 && t.c_ospeed &&
        (t.c_ospeed > baud + baud / 33 || t.c_ospeed + baud / 33 < baud)) {
        snprintf(why, whylen, "asked for %u baud, the adapter runs %u", (unsigned)baud,
                 (unsigned)t.c_ospeed);
        return -1;
    }
    ioctl(fd, TCFLSH, TCIOFLUSH); /* bytes of an earlier program would only be garbage */
    return 0;
}
#else
static int set_line(int fd, uint32_t baud, char *why, size_t whylen) {
    (void)fd;
    (void)baud;
    snprintf(why, whylen, "the serial backend needs Linux (termios2)");
    return -1;
}
#endif

vmgpu_hal *vmgpu_hal_serial_open_path(const char *devname, const char *backend,
                                      const char *path, uint32_t baud,
                                      const bridge_config *cfg, char *err, size_t errlen) {
    int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        vmgpu_hal_set_error(err, errlen, "%s: cannot open %s: %s%s", devname, path, strerror(e),
                            e == EACCES ? " (add yourself to the dialout group, or see "
                                          "docs/board.md for a udev rule)"
                                        : "");
        return NULL;
    }
    /* Two programs on one board would steal each other's answers. */
    if (ioctl(fd, TIOCEXCL) < 0 && errno != ENOTTY) {
        /* not fatal: some drivers do not support it */
    }
    char why[160];
    if (set_line(fd, baud, why, sizeof why)) {
        vmgpu_hal_set_error(err, errlen, "%s: %s: %s", devname, path, why);
        close(fd);
        return NULL;
    }
    bridge_io io;
    if (bridge_io_fd(&io, fd, 1)) {
        close(fd);
        vmgpu_hal_set_error(err, errlen, "%s: out of memory", devname);
        return NULL;
    }
    bridge_config c = cfg ? *cfg : (bridge_config){0};
    if (!c.line_bps) c.line_bps = baud;
    return bridge_open(devname, backend, io, &c, err, errlen);
}

vmgpu_hal *vmgpu_hal_serial_open(const vmgpu_hal_spec *spec, char *err, size_t errlen) {
    uint32_t baud = spec->baud ? spec->baud : VMGPU_HAL_DEFAULT_BAUD;
    char devname[300];
    snprintf(devname, sizeof devname, "serial:%s@%u", spec->path, (unsigned)baud);
    return vmgpu_hal_serial_open_path(devname, "serial", spec->path, baud, NULL, err, errlen);
}
