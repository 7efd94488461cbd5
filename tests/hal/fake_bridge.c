/*
 * The device side of the bridge protocol in C (see fake_bridge.h). Written apart from
 * sw/hal/bridge.c on purpose (its own CRC and parser), so that a misreading of the protocol in
 * one is not silently shared by the other.
 */
#include "fake_bridge.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vmgpu/regs.h"
#include "vmgpu_hal.h"

#define MAXLEN 1032
#define MAXPEND 8

typedef struct fframe {
    uint8_t seq, type;
    unsigned len;
    uint8_t p[MAXLEN];
} fframe;

struct fake_bridge {
    int fd, dead;
    volatile int stop;
    pthread_t th;
    pthread_mutex_t mu;
    vmgpu_hal *sim;
    uint8_t rx[8192];
    size_t nrx;
    uint64_t last_byte_ms; /* when the last byte came: a frame cut by a 2 ms gap is dropped */
    int have_last;
    uint8_t last_seq;
    uint8_t last_ans[MAXLEN + 10];
    size_t last_len;
    uint8_t dev_seq;
    fframe pend[MAXPEND];
    unsigned npend;
    fake_bridge_stats st;
    int stall_armed;     /* fake_bridge_stall_on_write */
    uint32_t stall_off;
};

/* CRC-32/ISO-HDLC a bit at a time (least significant first), finished with the final XOR. */
static uint32_t crc_bitwise(const uint8_t *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; ++i) {
        c ^= p[i];
        for (int b = 0; b < 8; ++b) c = (c & 1u) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
    }
    return ~c;
}

static uint64_t ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static uint32_t rd32(const uint8_t *p) {
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void wr32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

static void send_frame(fake_bridge *f, uint8_t seq, uint8_t type, const uint8_t *p, unsigned len,
                       uint8_t *copy, size_t *copy_len) {
    uint8_t out[MAXLEN + 10];
    out[0] = 0xA5;
    out[1] = 0x5A;
    out[2] = seq;
    out[3] = type;
    out[4] = (uint8_t)len;
    out[5] = (uint8_t)(len >> 8);
    memcpy(out + 6, p, len);
    wr32(out + 6 + len, crc_bitwise(out + 2, 4 + len));
    size_t n = len + 10, done = 0;
    while (done < n) {
        ssize_t k = write(f->fd, out + done, n - done);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && errno == EAGAIN) {
            struct pollfd pf = {f->fd, POLLOUT, 0};
            poll(&pf, 1, 10);
            continue;
        }
        if (k <= 0) return;
        done += (size_t)k;
    }
    if (copy) {
        memcpy(copy, out, n);
        *copy_len = n;
    }
}

/* Read what the link has, waiting up to wait_ms. */
static void pump(fake_bridge *f, int wait_ms) {
    struct pollfd pf = {f->fd, POLLIN, 0};
    if (poll(&pf, 1, wait_ms) <= 0) return;
    if (f->nrx == sizeof f->rx) f->nrx = 0;
    ssize_t k = read(f->fd, f->rx + f->nrx, sizeof f->rx - f->nrx);
    if (k > 0 && f->dead != 1) {
        f->nrx += (size_t)k;
        f->last_byte_ms = ms();
    }
    if (k == 0) f->stop = 1;
}

/* Whether a whole, CRC-correct frame waits in the receive buffer (nothing consumed). */
static int frame_ready(const fake_bridge *f) {
    for (size_t i = 0; i + 6 <= f->nrx; ++i) {
        if (f->rx[i] != 0xA5 || f->rx[i + 1] != 0x5A) continue;
        unsigned len = f->rx[i + 4] | (unsigned)f->rx[i + 5] << 8;
        if (len > MAXLEN || f->nrx - i < len + 10) continue;
        if (rd32(f->rx + i + 6 + len) == crc_bitwise(f->rx + i + 2, 4 + len))
            return 1;
    }
    return 0;
}

static int next_frame(fake_bridge *f, fframe *fr) {
    size_t i = 0;
    int got = 0;
    while (i + 6 <= f->nrx) {
        if (f->rx[i] != 0xA5 || f->rx[i + 1] != 0x5A) { ++i; continue; }
        unsigned len = f->rx[i + 4] | (unsigned)f->rx[i + 5] << 8;
        if (len > MAXLEN) { ++i; f->st.bad_frames++; continue; }
        if (f->nrx - i < len + 10) break;
        if (rd32(f->rx + i + 6 + len) != crc_bitwise(f->rx + i + 2, 4 + len)) { ++i; f->st.bad_frames++; continue; }
        fr->seq = f->rx[i + 2];
        fr->type = f->rx[i + 3];
        fr->len = len;
        memcpy(fr->p, f->rx + i + 6, len);
        i += len + 10;
        got = 1;
        break;
    }
    /* The gap rule: an incomplete frame with no byte for 2 ms was cut short (its length
     * may even be a corrupted one): drop its SOF and hunt again. */
    if (!got && i < f->nrx && ms() - f->last_byte_ms > 2) ++i;
    memmove(f->rx, f->rx + i, f->nrx - i);
    f->nrx -= i;
    return got;
}

/* A PC request that arrives while the bridge is busy (waiting for a host-port answer) is held
 * until the bridge is free; a full queue drops it, like a loss on the line. */
static void hold_back(fake_bridge *f, const fframe *fr) {
    if (!(fr->type & 0xC0) && f->npend < MAXPEND) f->pend[f->npend++] = *fr;
}

/* A PC request: answered from the stored copy when its SEQ is the last one executed. */
static void execute(fake_bridge *f, const fframe *r) {
    if (f->have_last && r->seq == f->last_seq) {
        pthread_mutex_lock(&f->mu);
        f->st.repeats++;
        pthread_mutex_unlock(&f->mu);
        ssize_t ignored = write(f->fd, f->last_ans, f->last_len);
        (void)ignored;
        return;
    }
    pthread_mutex_lock(&f->mu);
    int stall = f->stall_armed && r->type == 0x02 && r->len >= 2 &&
                (r->p[0] | (unsigned)r->p[1] << 8) == f->stall_off;
    if (stall) f->stall_armed = 0;
    pthread_mutex_unlock(&f->mu);
    if (stall) {
        uint64_t give_up = ms() + 2000;
        int resent = 0;
        while (!resent && !f->stop && ms() < give_up) {
            pump(f, 1);
            fframe fr;
            while (next_frame(f, &fr)) {
                if (fr.seq == r->seq && fr.type == r->type) resent = 1;
                hold_back(f, &fr);
            }
        }
    }
    uint8_t a[4 + 4 * 256 + 4];
    unsigned alen = 1;
    memset(a, 0, 8);
    unsigned off = r->len >= 2 ? (r->p[0] | (unsigned)r->p[1] << 8) : 0;
    int inc = r->len >= 3 && (r->p[2] & 1);
    unsigned count = r->len >= 6 ? (r->p[4] | (unsigned)r->p[5] << 8) : 0;
    uint64_t mem_words = 0;
    if (r->type == 0x01) {
        uint32_t id = 0;
        vmgpu_reg_read(f->sim, VMGPU_REG_ID, &id);
        a[1] = 2; /* protocol version */
        wr32(a + 4, id);
        alen = 8;
    } else if (r->type == 0x02) {
        if (count < 1 || count > 256 || r->len != 6 + 4 * count) a[0] = 2;
        else
            for (unsigned i = 0; i < count; ++i) {
                vmgpu_reg_write(f->sim, off, rd32(r->p + 6 + 4 * i));
                if (off == VMGPU_REG_MEM_DATA) ++mem_words;
                if (inc) off += 4;
            }
    } else if (r->type == 0x03) {
        if (count < 1 || count > 256 || r->len != 6) a[0] = 2;
        else {
            for (unsigned i = 0; i < count; ++i) {
                uint32_t v = 0;
                vmgpu_reg_read(f->sim, off, &v);
                wr32(a + 4 + 4 * i, v);
                if (inc) off += 4;
            }
            alen = 4 + 4 * count;
        }
    } else {
        a[0] = 1;
    }
    pthread_mutex_lock(&f->mu);
    f->st.executed++;
    f->st.mem_data_writes += mem_words;
    if (count > f->st.max_count) f->st.max_count = count;
    pthread_mutex_unlock(&f->mu);
    f->have_last = 1;
    f->last_seq = r->seq;
    send_frame(f, r->seq, (uint8_t)(r->type | 0x80), a, alen, f->last_ans, &f->last_len);
    if (stall) {
        uint64_t give_up = ms() + 2000;
        while (!frame_ready(f) && !f->stop && ms() < give_up) pump(f, 1);
    }
}

static void handle(fake_bridge *f, const fframe *fr) {
    if (fr->type & 0x40) return; /* a late answer to a host request: already served */
    execute(f, fr);
}

/* The model's host-port access, over the link: send, wait, resend every 10 ms. */
static int host_fn(void *user, uint32_t haddr, int write, uint32_t *data, unsigned be) {
    fake_bridge *f = user;
    uint8_t p[12] = {0};
    wr32(p, haddr);
    unsigned len = 4;
    uint8_t type = write ? 0x41 : 0x40;
    if (write) {
        p[4] = (uint8_t)be;
        wr32(p + 8, *data);
        len = 12;
    }
    uint8_t seq = f->dev_seq++;
    uint64_t give_up = ms() + 5000, resend = 0;
    while (!f->stop && ms() < give_up) {
        if (ms() >= resend) {
            send_frame(f, seq, type, p, len, NULL, NULL);
            pthread_mutex_lock(&f->mu);
            f->st.host_sent++;
            pthread_mutex_unlock(&f->mu);
            resend = ms() + 10;
        }
        pump(f, 1);
        fframe fr;
        while (next_frame(f, &fr)) {
            if (fr.type == (type | 0x80) && fr.seq == seq) {
                if (!write) {
                    if (fr.len != 4) continue;
                    *data = rd32(fr.p);
                }
                pthread_mutex_lock(&f->mu);
                f->st.host_done++;
                pthread_mutex_unlock(&f->mu);
                return 0;
            }
            hold_back(f, &fr);
        }
    }
    return -1;
}

/* CRC-16/CCITT-FALSE, protocol version 1's CRC, for the old-bitstream mode. */
static uint16_t crc16_v1(const uint8_t *p, size_t n) {
    uint16_t c = 0xFFFF;
    for (size_t i = 0; i < n; ++i) {
        c ^= (uint16_t)(p[i] << 8);
        for (int b = 0; b < 8; ++b) c = (c & 0x8000) ? (uint16_t)((c << 1) ^ 0x1021) : (uint16_t)(c << 1);
    }
    return c;
}

/* A bitstream of protocol version 1: a version-1 PING (8 bytes, CRC-16) is answered with
 * version 1 and the ID; every other byte is dropped, as a version-2 frame fails its CRC there. */
static void serve_v1(fake_bridge *f) {
    size_t i = 0;
    while (i + 8 <= f->nrx) {
        const uint8_t *q = f->rx + i;
        if (q[0] == 0xA5 && q[1] == 0x5A && q[3] == 0x01 && q[4] == 0 && q[5] == 0 &&
            (q[6] | q[7] << 8) == crc16_v1(q + 2, 4)) {
            uint8_t a[16] = {0xA5, 0x5A, q[2], 0x81, 8, 0, 0, 1};
            wr32(a + 10, VMGPU_ID_MAGIC);
            uint16_t c = crc16_v1(a + 2, 12);
            a[14] = (uint8_t)c;
            a[15] = (uint8_t)(c >> 8);
            ssize_t ignored = write(f->fd, a, sizeof a);
            (void)ignored;
            i += 8;
        } else {
            ++i;
        }
    }
    memmove(f->rx, f->rx + i, f->nrx - i);
    f->nrx -= i;
}

static void *run(void *arg) {
    fake_bridge *f = arg;
    int busy = 0;
    while (!f->stop) {
        pump(f, busy || f->npend ? 0 : 2);
        if (f->dead == FAKE_BRIDGE_V1) serve_v1(f);
        if (f->dead) continue;
        /* Strictly in arrival order. A request's CSR access clocks the model, so a host-port
         * wait can run inside it and hold back frames that came meanwhile (a resend of this very
         * request among them); those are older than anything still in rx. Handling rx first
         * would run such a resend after the PC's next request, where its SEQ no longer matches
         * the last one: a stale write executed again, after a newer one. */
        for (;;) {
            fframe fr;
            if (f->npend) {
                fr = f->pend[0];
                memmove(f->pend, f->pend + 1, (f->npend - 1) * sizeof *f->pend);
                f->npend--;
            } else if (!next_frame(f, &fr)) {
                break;
            }
            handle(f, &fr);
        }
        uint64_t ran = 0;
        vmgpu_run(f->sim, 2000, &ran);
        busy = ran > 0;
    }
    return NULL;
}

fake_bridge *fake_bridge_start(int fd, int dead) {
    fake_bridge *f = calloc(1, sizeof *f);
    char err[256];
    f->sim = vmgpu_hal_open("sim", err, sizeof err);
    if (!f->sim) {
        free(f);
        return NULL;
    }
    f->fd = fd;
    f->dead = dead;
    f->dev_seq = 0x80; /* anything; the PC must not care where the bridge starts */
    pthread_mutex_init(&f->mu, NULL);
    vmgpu_hal_set_host_handler(f->sim, host_fn, f);
    pthread_create(&f->th, NULL, run, f);
    return f;
}

void fake_bridge_stats_get(fake_bridge *f, fake_bridge_stats *out) {
    pthread_mutex_lock(&f->mu);
    *out = f->st;
    pthread_mutex_unlock(&f->mu);
}

void fake_bridge_stall_on_write(fake_bridge *f, uint32_t off) {
    pthread_mutex_lock(&f->mu);
    f->stall_off = off;
    f->stall_armed = 1;
    pthread_mutex_unlock(&f->mu);
}

void fake_bridge_stop(fake_bridge *f) {
    if (!f) return;
    f->stop = 1;
    pthread_join(f->th, NULL);
    close(f->fd);
    vmgpu_hal_close(f->sim);
    pthread_mutex_destroy(&f->mu);
    free(f);
}
