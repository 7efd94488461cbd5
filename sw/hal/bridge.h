/*
 * The PC side of the bridge protocol (docs/bridge-protocol.md) over an abstract byte stream.
 * The serial, ftdi and sim-board backends only open their stream and hand it here, so the
 * framing, retries, time-outs and host-port service are one piece of code for every link.
 * Internal to sw/hal and its tests; not installed.
 */
#ifndef VMGPU_BRIDGE_H
#define VMGPU_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#include "vmgpu_hal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Wire constants of docs/bridge-protocol.md. */
#define BRIDGE_SOF0 0xA5u
#define BRIDGE_SOF1 0x5Au
#define BRIDGE_MAX_PAYLOAD 1032u
#define BRIDGE_MAX_WORDS 256u
#define BRIDGE_OVERHEAD 10u /* SOF, SEQ, TYPE, LEN, CRC */
#define BRIDGE_VERSION 2u /* 2: CRC-32; 1 (CRC-16) let through 1 in 65536 damaged frames */

enum bridge_type {
    BRIDGE_PING = 0x01,
    BRIDGE_WRITE = 0x02,
    BRIDGE_READ = 0x03,
    BRIDGE_HOST_READ = 0x40,
    BRIDGE_HOST_WRITE = 0x41,
    BRIDGE_ANSWER = 0x80, /* an answer's TYPE is the request's | 0x80 */
};
#define BRIDGE_FLAG_INC 0x01u

/* CRC-32/ISO-HDLC of n bytes (reflected poly 0xEDB88320, init and final XOR 0xFFFFFFFF). */
uint32_t bridge_crc32(const uint8_t *p, size_t n);

/* Write one whole frame into out (room for BRIDGE_OVERHEAD + len); returns its length. */
size_t bridge_frame_encode(uint8_t *out, uint8_t seq, uint8_t type, const uint8_t *payload,
                           size_t len);

/*
 * The byte stream under the bridge. read: wait at most timeout_ms for at least one byte, return
 * how many were read (0: time-out) or -1 on a broken link; write: all n bytes or -1. describe
 * (may be NULL) says why the last call failed. close frees ctx.
 */
typedef struct bridge_io {
    void *ctx;
    int (*read)(void *ctx, uint8_t *buf, size_t n, int timeout_ms);
    int (*write)(void *ctx, const uint8_t *buf, size_t n);
    const char *(*describe)(void *ctx);
    void (*close)(void *ctx);
} bridge_io;

/* An io over a file descriptor (tty, pty, socket); close() closes fd when own is set. */
int bridge_io_fd(bridge_io *io, int fd, int own);

/* Time-out policy; zeros take the defaults of docs/bridge-protocol.md. */
typedef struct bridge_config {
    uint32_t line_bps;   /* bits per second on the line, for the time a frame takes (3000000) */
    unsigned extra_ms;   /* added to each answer's wait (20) */
    unsigned tries;      /* sends of one request before it fails (6: the first and 5 resends) */
    unsigned open_ms;    /* how long opening keeps pinging a device that does not answer yet
                            (0: one request's tries) */
} bridge_config;

/* What the link did, for tests and the bench. */
typedef struct bridge_stats {
    uint64_t requests;       /* request/answer exchanges completed */
    uint64_t resends;        /* requests sent again after a time-out */
    uint64_t frames_dropped; /* received frames refused (CRC, length) */
    uint64_t bytes_skipped;  /* garbage skipped while hunting for SOF */
    uint64_t stale_answers;  /* answers to an older SEQ, ignored */
    uint64_t host_requests;  /* device requests served from host memory */
    uint64_t host_repeats;   /* device requests answered again from the cached answer */
    uint64_t payload_bytes;  /* PAYLOAD bytes of every frame sent and received whole */
    uint64_t line_bytes;     /* every byte written and read */
    uint64_t faults_injected;/* bytes flipped, dropped or duplicated by VMGPU_LINK_FAULTS */
    uint64_t burst_restarts; /* bursts redone after MEM_ADDR was set again (see mem_burst) */
    uint64_t redo_words;     /* words of those bursts */
    unsigned burst_words;    /* the burst size now in use (shrinks while frames are lost) */
} bridge_stats;

/*
 * Build the HAL over io: apply VMGPU_LINK_FAULTS when set, ping the device (version check),
 * read MEM_SIZE. devname is the VMGPU_DEVICE string every message names; backend is ops->name.
 * Takes io in every case (closed on failure). NULL with a reason in err on failure.
 */
vmgpu_hal *bridge_open(const char *devname, const char *backend, bridge_io io,
                       const bridge_config *cfg, char *err, size_t errlen);

/* The stats of a HAL made by bridge_open (zeros otherwise). */
void bridge_get_stats(vmgpu_hal *h, bridge_stats *out);

/*
 * The line's bit rate: the baud rate for serial and ftdi; for sim-board the model's UART, whose
 * rate is the simulation's: model_cycles_per_second x BAUD / CLK_HZ of the board's parameters
 * (3 Mbaud at 50 MHz, 16.67 model cycles a bit). 0 for other HALs.
 */
double bridge_line_bits_per_second(vmgpu_hal *h, double model_cycles_per_second);

/* Called by bridge_close after the io is closed (the sim-board backend stops its model). */
void bridge_set_on_close(vmgpu_hal *h, void (*fn)(void *), void *user);

/*
 * Parse a VMGPU_LINK_FAULTS value ("flip=1e-3,drop=1e-3,dup=1e-3,seed=N"); 0, or -1 with a
 * reason in err. Exposed for tests.
 */
typedef struct bridge_faults {
    double flip, drop, dup;
    uint64_t seed;
} bridge_faults;
int bridge_parse_faults(const char *s, bridge_faults *out, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* VMGPU_BRIDGE_H */
