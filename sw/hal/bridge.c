/*
 * The PC side of docs/bridge-protocol.md over a bridge_io byte stream: frames, CRC, SEQ
 * numbering, one request outstanding, resends on time-out, resynchronisation after garbage,
 * and the device's host-port requests served while an answer is awaited. Register and memory
 * access and run() are built on that one exchange, so every link backend behaves the same.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bridge.h"
#include "hal_internal.h"
#include "vmgpu/regs.h"

/* ------------------------------------------------------------------ CRC and frames */

static uint32_t crc_table[256];

static void crc_init(void) {
    if (crc_table[1]) return; /* entry 1 is 0x77073096 once built; concurrent builders agree */
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int b = 0; b < 8; ++b) c = (c & 1u) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
        crc_table[i] = c;
    }
}

uint32_t bridge_crc32(const uint8_t *p, size_t n) {
    crc_init();
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; ++i) crc = (crc >> 8) ^ crc_table[(crc ^ p[i]) & 0xFFu];
    return ~crc;
}

size_t bridge_frame_encode(uint8_t *out, uint8_t seq, uint8_t type, const uint8_t *payload,
                           size_t len) {
    out[0] = BRIDGE_SOF0;
    out[1] = BRIDGE_SOF1;
    out[2] = seq;
    out[3] = type;
    out[4] = (uint8_t)len;
    out[5] = (uint8_t)(len >> 8);
    if (len) memcpy(out + 6, payload, len);
    uint32_t crc = bridge_crc32(out + 2, 4 + len);
    for (int k = 0; k < 4; ++k) out[6 + len + (size_t)k] = (uint8_t)(crc >> (8 * k));
    return len + BRIDGE_OVERHEAD;
}

static void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v); put16(p + 2, v >> 16); }
static uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t get32(const uint8_t *p) { return get16(p) | get16(p + 2) << 16; }

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ------------------------------------------------------------------ fault injection */

int bridge_parse_faults(const char *s, bridge_faults *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    out->seed = 1;
    char buf[256];
    if (strlen(s) >= sizeof buf) {
        vmgpu_hal_set_error(err, errlen, "VMGPU_LINK_FAULTS too long");
        return -1;
    }
    strcpy(buf, s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        char *end = NULL;
        if (!eq) goto bad;
        *eq = '\0';
        const char *val = eq + 1;
        errno = 0;
        if (!strcmp(tok, "seed")) {
            out->seed = strtoull(val, &end, 0);
        } else {
            double p = strtod(val, &end);
            if (!(p >= 0.0 && p <= 1.0)) goto bad;
            if (!strcmp(tok, "flip")) out->flip = p;
            else if (!strcmp(tok, "drop")) out->drop = p;
            else if (!strcmp(tok, "dup")) out->dup = p;
            else goto bad;
        }
        if (errno || !end || end == val || *end) goto bad;
        continue;
    bad:
        vmgpu_hal_set_error(err, errlen,
                            "bad VMGPU_LINK_FAULTS \"%s\" (expected e.g. "
                            "flip=1e-3,drop=1e-3,dup=1e-3,seed=1; rates 0..1)", s);
        return -1;
    }
    return 0;
}

/* The injector sits between the bridge and the real io and damages bytes both ways. */
typedef struct fault_io {
    bridge_io inner;
    bridge_faults f;
    uint64_t rng;
    uint64_t *count;
    uint8_t pend[2 * BRIDGE_MAX_PAYLOAD + 64]; /* read bytes beyond what the caller took */
    size_t npend;
} fault_io;

static double rnd(fault_io *fi) {
    /* xorshift64*: cheap, and a seed gives the same damage every run */
    fi->rng ^= fi->rng >> 12;
    fi->rng ^= fi->rng << 25;
    fi->rng ^= fi->rng >> 27;
    return (double)((fi->rng * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

/* Copy n bytes from in to out damaging them; returns the bytes out got (at most 2n). */
static size_t damage(fault_io *fi, const uint8_t *in, size_t n, uint8_t *out) {
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
        uint8_t c = in[i];
        if (fi->f.drop > 0 && rnd(fi) < fi->f.drop) {
            ++*fi->count;
            continue;
        }
        if (fi->f.flip > 0 && rnd(fi) < fi->f.flip) {
            c ^= (uint8_t)(1u << (unsigned)(rnd(fi) * 8));
            ++*fi->count;
        }
        out[k++] = c;
        if (fi->f.dup > 0 && rnd(fi) < fi->f.dup) {
            out[k++] = c;
            ++*fi->count;
        }
    }
    return k;
}

static int fault_read(void *ctx, uint8_t *buf, size_t n, int timeout_ms) {
    fault_io *fi = ctx;
    if (!fi->npend) {
        uint8_t raw[BRIDGE_MAX_PAYLOAD];
        size_t want = n < sizeof raw ? n : sizeof raw;
        int r = fi->inner.read(fi->inner.ctx, raw, want, timeout_ms);
        if (r <= 0) return r;
        fi->npend = damage(fi, raw, (size_t)r, fi->pend);
        /* Everything dropped: to the caller that is a short wait with nothing, like a loss. */
        if (!fi->npend) return 0;
    }
    size_t k = fi->npend < n ? fi->npend : n;
    memcpy(buf, fi->pend, k);
    memmove(fi->pend, fi->pend + k, fi->npend - k);
    fi->npend -= k;
    return (int)k;
}

static int fault_write(void *ctx, const uint8_t *buf, size_t n) {
    fault_io *fi = ctx;
    uint8_t out[2 * (BRIDGE_MAX_PAYLOAD + BRIDGE_OVERHEAD)];
    while (n) {
        size_t chunk = n < sizeof out / 2 ? n : sizeof out / 2;
        size_t k = damage(fi, buf, chunk, out);
        if (k && fi->inner.write(fi->inner.ctx, out, k) < 0) return -1;
        buf += chunk;
        n -= chunk;
    }
    return 0;
}

static const char *fault_describe(void *ctx) {
    fault_io *fi = ctx;
    return fi->inner.describe ? fi->inner.describe(fi->inner.ctx) : "link error";
}

static void fault_close(void *ctx) {
    fault_io *fi = ctx;
    if (fi->inner.close) fi->inner.close(fi->inner.ctx);
    free(fi);
}

/* ------------------------------------------------------------------ the bridge HAL */

typedef struct frame {
    uint8_t seq, type;
    uint16_t len;
    uint8_t payload[BRIDGE_MAX_PAYLOAD];
} frame;

typedef struct bridge {
    vmgpu_hal base; /* first: a vmgpu_hal * is a bridge * */
    char devname[300];
    bridge_io io;
    bridge_config cfg;
    bridge_stats st;
    uint8_t seq;          /* SEQ of the next request */
    uint32_t mem_size;
    unsigned clean_run;   /* exchanges in a row without a resend (grows the burst back) */
    /* Receive buffer: bytes not yet parsed into frames. */
    uint8_t rx[4 * (BRIDGE_MAX_PAYLOAD + BRIDGE_OVERHEAD)];
    size_t nrx;
    /* The last device request served and the answer sent, for a repeated SEQ. */
    int host_valid;
    frame host_req;
    uint8_t host_answer[BRIDGE_OVERHEAD + 4];
    size_t host_answer_len;
    uint8_t tx[BRIDGE_MAX_PAYLOAD + BRIDGE_OVERHEAD];
    int quiet; /* while opening: failed pings are expected, say nothing */
    void (*on_close)(void *);
    void *on_close_user;
} bridge;

static bridge *as_bridge(vmgpu_hal *h) { return (bridge *)h; }

static const char *reg_name(uint32_t off) {
    switch (off) {
    case VMGPU_REG_ID: return "ID";
    case VMGPU_REG_MEM_SIZE: return "MEM_SIZE";
    case VMGPU_REG_CYCLE_LO: return "CYCLE_LO";
    case VMGPU_REG_MEM_ADDR: return "MEM_ADDR";
    case VMGPU_REG_MEM_DATA: return "MEM_DATA";
    case VMGPU_REG_STATUS: return "STATUS";
    case VMGPU_REG_SCRATCH: return "SCRATCH";
    default: return NULL;
    }
}

/* Store the message every front end can show (vmgpu_hal_last_error) and say it on stderr. */
static int fail(bridge *b, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(bridge *b, int rc, const char *fmt, ...) {
    char msg[sizeof b->base.last_error - 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(b->base.last_error, sizeof b->base.last_error, "%.100s: %.210s", b->devname, msg);
    if (!b->quiet && !getenv("VMGPU_HAL_QUIET")) fprintf(stderr, "vmgpu: %s\n", b->base.last_error);
    return rc;
}

/* Milliseconds the line needs for n bytes (10 bits each), rounded up. */
static unsigned line_ms(const bridge *b, size_t n) {
    return (unsigned)(((uint64_t)n * 10u * 1000u + b->cfg.line_bps - 1) / b->cfg.line_bps);
}

/*
 * Take one whole, CRC-correct frame out of the receive buffer, or 0 when none is complete.
 * A bad length or CRC drops the frame and the hunt restarts at the byte after its SOF.
 */
static int parse_frame(bridge *b, frame *f) {
    size_t i = 0;
    int got = 0;
    while (i + 2 <= b->nrx) {
        if (b->rx[i] != BRIDGE_SOF0 || b->rx[i + 1] != BRIDGE_SOF1) {
            ++i;
            ++b->st.bytes_skipped;
            continue;
        }
        if (b->nrx - i < 6) break;
        size_t len = get16(&b->rx[i + 4]);
        if (len > BRIDGE_MAX_PAYLOAD) {
            ++b->st.frames_dropped;
            ++i;
            continue;
        }
        if (b->nrx - i < len + BRIDGE_OVERHEAD) break;
        uint32_t crc = bridge_crc32(&b->rx[i + 2], 4 + len);
        if (crc != get32(&b->rx[i + 6 + len])) {
            ++b->st.frames_dropped;
            ++i;
            continue;
        }
        f->seq = b->rx[i + 2];
        f->type = b->rx[i + 3];
        f->len = (uint16_t)len;
        memcpy(f->payload, &b->rx[i + 6], len);
        b->st.payload_bytes += len;
        i += len + BRIDGE_OVERHEAD;
        got = 1;
        break;
    }
    memmove(b->rx, b->rx + i, b->nrx - i);
    b->nrx -= i;
    return got;
}

/* Next frame before deadline_ms: 1, 0 on time-out, VMGPU_HAL_EIO on a broken link. */
static int recv_frame(bridge *b, frame *f, uint64_t deadline_ms) {
    for (;;) {
        if (parse_frame(b, f)) return 1;
        uint64_t now = now_ms();
        if (now >= deadline_ms) return 0;
        if (b->nrx == sizeof b->rx) { /* cannot happen with the length check; stay safe */
            b->nrx = 0;
        }
        int r = b->io.read(b->io.ctx, b->rx + b->nrx, sizeof b->rx - b->nrx,
                           (int)(deadline_ms - now));
        if (r < 0) return VMGPU_HAL_EIO;
        b->nrx += (size_t)r;
        b->st.line_bytes += (size_t)r;
    }
}

static int send_bytes(bridge *b, const uint8_t *p, size_t n) {
    b->st.line_bytes += n;
    return b->io.write(b->io.ctx, p, n) < 0 ? VMGPU_HAL_EIO : VMGPU_HAL_OK;
}

/* A device request (HOST_READ / HOST_WRITE): answer it, from the cache when it is a repeat. */
static int serve_host(bridge *b, const frame *f) {
    if (b->host_valid && f->seq == b->host_req.seq && f->type == b->host_req.type &&
        f->len == b->host_req.len && !memcmp(f->payload, b->host_req.payload, f->len)) {
        ++b->st.host_repeats;
        return send_bytes(b, b->host_answer, b->host_answer_len);
    }
    uint8_t data[4];
    size_t dlen = 0;
    if (f->type == BRIDGE_HOST_READ) {
        if (f->len != 4) return VMGPU_HAL_OK; /* malformed: let the bridge resend */
        uint32_t v = 0xDEADBEEFu;
        if (!b->base.host_fn || b->base.host_fn(b->base.host_user, get32(f->payload), 0, &v, 0xF))
            v = 0xDEADBEEFu;
        put32(data, v);
        dlen = 4;
    } else {
        if (f->len != 12) return VMGPU_HAL_OK;
        uint32_t v = get32(f->payload + 8);
        if (b->base.host_fn)
            b->base.host_fn(b->base.host_user, get32(f->payload), 1, &v, f->payload[4] & 0xFu);
    }
    ++b->st.host_requests;
    b->host_req = *f;
    b->host_valid = 1;
    b->host_answer_len =
        bridge_frame_encode(b->host_answer, f->seq, (uint8_t)(f->type | BRIDGE_ANSWER), data, dlen);
    b->st.payload_bytes += dlen;
    return send_bytes(b, b->host_answer, b->host_answer_len);
}

#define XFER_WRONG_TYPE 1 /* an answer with our SEQ but another TYPE: a previous session's */

/*
 * One exchange: send the request, wait for its answer (serving device requests meanwhile),
 * resend on time-out. ans gets the answer payload. what names the request in messages.
 */
static int xfer(bridge *b, uint8_t type, const uint8_t *payload, size_t len, size_t ans_len,
                frame *ans, const char *what) {
    uint8_t *tx = b->tx;
    uint8_t seq = b->seq++;
    size_t n = bridge_frame_encode(tx, seq, type, payload, len);
    unsigned wait = line_ms(b, n + ans_len + BRIDGE_OVERHEAD) + b->cfg.extra_ms;
    b->base.round_trips++;
    unsigned busy_tries = 0; /* waits the device filled with its own requests */
    unsigned silent = 0;     /* silent waits since the device last showed it is alive */
    for (unsigned t = 0; silent < b->cfg.tries; ++t) {
        if (t) {
            ++b->st.resends;
            b->clean_run = 0;
            /* Long frames are the ones a lossy line kills: shorter bursts from now on. */
            if (b->st.burst_words > 16) b->st.burst_words /= 2;
        }
        int rc = send_bytes(b, tx, n);
        if (rc) {
            const char *why = b->io.describe ? b->io.describe(b->io.ctx) : "write failed";
            return fail(b, VMGPU_HAL_EIO, "%s (SEQ %u): the link failed while sending: %s", what,
                        seq, why);
        }
        b->st.payload_bytes += len;
        uint64_t deadline = now_ms() + wait;
        int served = 0;
        for (;;) {
            rc = recv_frame(b, ans, deadline);
            if (rc == 0) {
                /* Whatever is still incomplete when the wait ends is not our answer (a
                 * corrupted LEN would otherwise swallow the answers to the resends): drop
                 * its SOF so the next wait hunts again. The PC has no 2 ms gap rule, since
                 * USB adapters deliver bytes in bursts milliseconds apart. */
                if (b->nrx) {
                    memmove(b->rx, b->rx + 1, --b->nrx);
                    ++b->st.frames_dropped;
                }
                /* A device that talks is alive: a wait it filled with its own requests starts
                 * the count of silent waits again (bounded all the same). Only the tries since
                 * then count: during a long host-port transfer, short stalls of a loaded peer
                 * would otherwise add up to a "dead link" while it is working. */
                if (served && ++busy_tries < 100000) silent = 0;
                else ++silent;
                break;
            }
            if (rc < 0) {
                const char *why = b->io.describe ? b->io.describe(b->io.ctx) : "read failed";
                return fail(b, VMGPU_HAL_EIO, "%s (SEQ %u): the link failed: %s", what, seq,
                            why);
            }
            if (ans->type == BRIDGE_HOST_READ || ans->type == BRIDGE_HOST_WRITE) {
                if (serve_host(b, ans))
                    return fail(b, VMGPU_HAL_EIO, "%s: the link failed answering a host request",
                                what);
                /* The bridge was busy with its own request: give ours its full wait again. */
                deadline = now_ms() + wait;
                served = 1;
                continue;
            }
            if (ans->seq != seq) {
                ++b->st.stale_answers;
                continue;
            }
            if (ans->type != (uint8_t)(type | BRIDGE_ANSWER)) return XFER_WRONG_TYPE;
            /* An error answer carries the status byte alone. */
            if (ans->len >= 1 && ans->payload[0] != 0)
                return fail(b, VMGPU_HAL_EIO, "%s (SEQ %u): the bridge refused it (status %u: %s)",
                            what, seq, ans->payload[0],
                            ans->payload[0] == 1 ? "bad type" : "bad length or count");
            if (ans->len != ans_len)
                return fail(b, VMGPU_HAL_EIO, "%s (SEQ %u): answer of %u bytes, expected %zu",
                            what, seq, ans->len, ans_len);
            ++b->st.requests;
            if (t == 0 && ++b->clean_run >= 16 && b->st.burst_words < BRIDGE_MAX_WORDS) {
                b->st.burst_words *= 2;
                b->clean_run = 0;
            }
            return VMGPU_HAL_OK;
        }
    }
    return fail(b, VMGPU_HAL_ETIMEDOUT,
                "%s (SEQ %u): no answer after %u tries, each waiting %u ms (is the board "
                "connected, a bitstream of protocol 2 (CRC-32) loaded, the baud rate its own?)",
                what, seq, b->cfg.tries, wait);
}

static void describe_access(char *out, size_t n, const char *verb, uint32_t off, size_t count,
                            int inc) {
    const char *name = reg_name(off);
    if (name) snprintf(out, n, "%s %s (0x%03x) x%zu%s", verb, name, (unsigned)off, count,
                       inc ? " INC" : "");
    else snprintf(out, n, "%s 0x%03x x%zu%s", verb, (unsigned)off, count, inc ? " INC" : "");
}

/* WRITE of count words at off (count 1..256). */
static int bridge_write_words(bridge *b, uint32_t off, int inc, const uint32_t *w, size_t count) {
    uint8_t p[6 + 4 * BRIDGE_MAX_WORDS];
    put16(p, off);
    p[2] = inc ? BRIDGE_FLAG_INC : 0;
    p[3] = 0;
    put16(p + 4, (uint32_t)count);
    for (size_t i = 0; i < count; ++i) put32(p + 6 + 4 * i, w[i]);
    char what[96];
    describe_access(what, sizeof what, "WRITE", off, count, inc);
    frame ans;
    int rc = xfer(b, BRIDGE_WRITE, p, 6 + 4 * count, 1, &ans, what);
    return rc == XFER_WRONG_TYPE ? fail(b, VMGPU_HAL_EIO, "%s: answer of the wrong type", what)
                                 : rc;
}

static int bridge_read_words(bridge *b, uint32_t off, int inc, uint32_t *w, size_t count) {
    uint8_t p[6];
    put16(p, off);
    p[2] = inc ? BRIDGE_FLAG_INC : 0;
    p[3] = 0;
    put16(p + 4, (uint32_t)count);
    char what[96];
    describe_access(what, sizeof what, "READ", off, count, inc);
    frame ans;
    int rc = xfer(b, BRIDGE_READ, p, sizeof p, 4 + 4 * count, &ans, what);
    if (rc == XFER_WRONG_TYPE) return fail(b, VMGPU_HAL_EIO, "%s: answer of the wrong type", what);
    if (rc) return rc;
    for (size_t i = 0; i < count; ++i) w[i] = get32(ans.payload + 4 + 4 * i);
    return VMGPU_HAL_OK;
}

static int br_reg_read(vmgpu_hal *h, uint32_t off, uint32_t *val) {
    if (!val || off > 0xFFFFu) return VMGPU_HAL_EINVAL;
    return bridge_read_words(as_bridge(h), off, 0, val, 1);
}

static int br_reg_write(vmgpu_hal *h, uint32_t off, uint32_t val) {
    if (off > 0xFFFFu) return VMGPU_HAL_EINVAL;
    return bridge_write_words(as_bridge(h), off, 0, &val, 1);
}

static int check_range(bridge *b, uint32_t pa, const void *buf, size_t nwords) {
    if ((pa & 3u) || (nwords && !buf)) return VMGPU_HAL_EINVAL;
    if (pa > b->mem_size || nwords > (b->mem_size - pa) / 4) return VMGPU_HAL_EINVAL;
    return VMGPU_HAL_OK;
}

/*
 * MEM_ADDR once, then MEM_DATA bursts with INC clear; MEM_ADDR advances by itself. A burst that
 * gets no answer after all its tries (a long frame on a noisy line rarely passes whole) is not
 * given up at once: MEM_ADDR is set again to where that burst began and the rest goes in
 * shorter bursts. Whether the lost burst executed or not, rewriting MEM_ADDR makes the redo
 * land on the same words, so nothing is written twice to a wrong place or read from one.
 */
static int mem_burst(bridge *b, uint32_t pa, uint32_t *words, size_t nwords, int write) {
    int rc = check_range(b, pa, words, nwords);
    if (rc || !nwords) return rc;
    rc = bridge_write_words(b, VMGPU_REG_MEM_ADDR, 0, &pa, 1);
    unsigned restarts = 0;
    size_t done = 0;
    int quiet = b->quiet;
    while (!rc && done < nwords) {
        size_t k = nwords - done < b->st.burst_words ? nwords - done : b->st.burst_words;
        b->quiet = quiet || restarts < 3;
        rc = write ? bridge_write_words(b, VMGPU_REG_MEM_DATA, 0, words + done, k)
                   : bridge_read_words(b, VMGPU_REG_MEM_DATA, 0, words + done, k);
        b->quiet = quiet;
        if (rc == VMGPU_HAL_ETIMEDOUT && restarts < 3) {
            ++restarts;
            ++b->st.burst_restarts;
            b->st.redo_words += k;
            b->st.burst_words = b->st.burst_words / 4 > 16 ? b->st.burst_words / 4 : 16;
            uint32_t at = pa + 4u * (uint32_t)done;
            rc = bridge_write_words(b, VMGPU_REG_MEM_ADDR, 0, &at, 1);
            continue;
        }
        done += k;
    }
    return rc;
}

static int br_mem_write(vmgpu_hal *h, uint32_t pa, const uint32_t *words, size_t nwords) {
    return mem_burst(as_bridge(h), pa, (uint32_t *)(uintptr_t)words, nwords, 1);
}

static int br_mem_read(vmgpu_hal *h, uint32_t pa, uint32_t *words, size_t nwords) {
    return mem_burst(as_bridge(h), pa, words, nwords, 0);
}

static int read_cycles(bridge *b, uint64_t *c) {
    uint32_t w[2]; /* CYCLE_LO latches CYCLE_HI, and INC reads them in that order */
    int rc = bridge_read_words(b, VMGPU_REG_CYCLE_LO, 1, w, 2);
    if (!rc) *c = (uint64_t)w[1] << 32 | w[0];
    return rc;
}

/*
 * The board's clock runs by itself: poll STATUS.IDLE, and measure the budget with the device's
 * own cycle counter. An idle device costs one read and reports 0 cycles, like the sim.
 */
static int br_run(vmgpu_hal *h, uint64_t max_cycles, uint64_t *ran) {
    bridge *b = as_bridge(h);
    uint32_t st;
    uint64_t start = 0, now = 0;
    if (ran) *ran = 0;
    int rc = bridge_read_words(b, VMGPU_REG_STATUS, 0, &st, 1);
    if (rc) return rc;
    if (st & VMGPU_REG_STATUS_IDLE_MASK) return VMGPU_HAL_OK;
    if ((rc = read_cycles(b, &start))) return rc;
    for (;;) {
        if ((rc = bridge_read_words(b, VMGPU_REG_STATUS, 0, &st, 1))) return rc;
        if ((rc = read_cycles(b, &now))) return rc;
        if (ran) *ran = now - start;
        if (st & VMGPU_REG_STATUS_IDLE_MASK) return VMGPU_HAL_OK;
        if (now - start >= max_cycles) return VMGPU_HAL_ETIMEDOUT;
    }
}

static void br_close(vmgpu_hal *h) {
    bridge *b = as_bridge(h);
    if (b->io.close) b->io.close(b->io.ctx);
    if (b->on_close) b->on_close(b->on_close_user);
    free(b);
}

static const struct vmgpu_hal_ops bridge_ops_serial = {"serial", br_reg_read, br_reg_write,
                                                       br_mem_write, br_mem_read, br_run,
                                                       br_close};
static const struct vmgpu_hal_ops bridge_ops_ftdi = {"ftdi", br_reg_read, br_reg_write,
                                                     br_mem_write, br_mem_read, br_run, br_close};
static const struct vmgpu_hal_ops bridge_ops_sim_board = {"sim-board", br_reg_read, br_reg_write,
                                                          br_mem_write, br_mem_read, br_run,
                                                          br_close};

static int is_bridge(const vmgpu_hal *h) {
    return h && (h->ops == &bridge_ops_serial || h->ops == &bridge_ops_ftdi ||
                 h->ops == &bridge_ops_sim_board);
}

void bridge_get_stats(vmgpu_hal *h, bridge_stats *out) {
    if (is_bridge(h)) *out = as_bridge(h)->st;
    else memset(out, 0, sizeof *out);
}

double bridge_line_bits_per_second(vmgpu_hal *h, double model_cycles_per_second) {
    if (!is_bridge(h)) return 0.0;
#ifdef VMGPU_SIM_BOARD_BAUD
    /* the board's UART: BAUD bits per CLK_HZ model cycles */
    if (h->ops == &bridge_ops_sim_board)
        return model_cycles_per_second * (double)VMGPU_SIM_BOARD_BAUD / (double)VMGPU_SIM_BOARD_CLK_HZ;
#endif
    (void)model_cycles_per_second;
    return (double)as_bridge(h)->cfg.line_bps;
}

void bridge_set_on_close(vmgpu_hal *h, void (*fn)(void *), void *user) {
    if (!is_bridge(h)) return;
    as_bridge(h)->on_close = fn;
    as_bridge(h)->on_close_user = user;
}

/*
 * After a silent PING: is it a bitstream of protocol version 1, whose frames end in a CRC-16
 * (CCITT-FALSE, two bytes)? It drops every version-2 frame on its CRC, so it looks dead. Send it
 * a version-1 PING and look for its answer, so that the message can say what to do.
 */
static uint16_t crc16_v1(const uint8_t *p, size_t n) {
    uint16_t c = 0xFFFF;
    for (size_t i = 0; i < n; ++i) {
        c ^= (uint16_t)(p[i] << 8);
        for (int k = 0; k < 8; ++k) c = (c & 0x8000u) ? (uint16_t)((c << 1) ^ 0x1021u) : (uint16_t)(c << 1);
    }
    return c;
}

static int answers_v1(bridge *b) {
    uint8_t seq = b->seq++;
    uint8_t req[8] = {BRIDGE_SOF0, BRIDGE_SOF1, seq, BRIDGE_PING, 0, 0, 0, 0};
    put16(req + 6, crc16_v1(req + 2, 4));
    if (send_bytes(b, req, sizeof req)) return 0;
    uint8_t in[256];
    size_t n = 0;
    uint64_t deadline = now_ms() + line_ms(b, 8 + 16) + b->cfg.extra_ms;
    for (uint64_t now = now_ms(); now < deadline && n < sizeof in; now = now_ms()) {
        int r = b->io.read(b->io.ctx, in + n, sizeof in - n, (int)(deadline - now));
        if (r < 0) return 0;
        n += (size_t)r;
        /* The answer: SOF, SEQ, PING | ANSWER, LEN 8, status, version 1, ..., CRC-16. */
        for (size_t i = 0; i + 16 <= n; ++i)
            if (in[i] == BRIDGE_SOF0 && in[i + 1] == BRIDGE_SOF1 && in[i + 2] == seq &&
                in[i + 3] == (BRIDGE_PING | BRIDGE_ANSWER) && get16(in + i + 4) == 8 &&
                in[i + 7] == 1 && get16(in + i + 14) == crc16_v1(in + i + 2, 12))
                return 1;
    }
    return 0;
}

static int ping(bridge *b, uint32_t *id) {
    frame ans;
    int rc = xfer(b, BRIDGE_PING, NULL, 0, 8, &ans, "PING");
    if (rc) return rc;
    if (ans.payload[1] != BRIDGE_VERSION)
        return fail(b, VMGPU_HAL_ENODEV, "PING: the bridge speaks protocol version %u, this "
                    "driver %u (rebuild the bitstream or the driver)", ans.payload[1],
                    BRIDGE_VERSION);
    *id = get32(ans.payload + 4);
    return VMGPU_HAL_OK;
}

vmgpu_hal *bridge_open(const char *devname, const char *backend, bridge_io io,
                       const bridge_config *cfg, char *err, size_t errlen) {
    bridge *b = calloc(1, sizeof *b);
    if (!b) {
        if (io.close) io.close(io.ctx);
        vmgpu_hal_set_error(err, errlen, "%s: out of memory", devname);
        return NULL;
    }
    b->base.ops = !strcmp(backend, "ftdi")        ? &bridge_ops_ftdi
                  : !strcmp(backend, "sim-board") ? &bridge_ops_sim_board
                                                  : &bridge_ops_serial;
    snprintf(b->devname, sizeof b->devname, "%s", devname);
    b->io = io;
    if (cfg) b->cfg = *cfg;
    if (!b->cfg.line_bps) b->cfg.line_bps = 3000000;
    if (!b->cfg.extra_ms) b->cfg.extra_ms = 20;
    if (!b->cfg.tries) b->cfg.tries = 6;
    const char *tmo = getenv("VMGPU_LINK_TIMEOUT_MS");
    if (tmo && atoi(tmo) > 0) b->cfg.extra_ms = (unsigned)atoi(tmo);
    b->st.burst_words = BRIDGE_MAX_WORDS;

    const char *faults = getenv("VMGPU_LINK_FAULTS");
    if (faults && *faults) {
        bridge_faults f;
        if (bridge_parse_faults(faults, &f, err, errlen)) {
            br_close(&b->base);
            return NULL;
        }
        fault_io *fi = calloc(1, sizeof *fi);
        if (!fi) {
            br_close(&b->base);
            vmgpu_hal_set_error(err, errlen, "%s: out of memory", devname);
            return NULL;
        }
        fi->inner = io;
        fi->f = f;
        fi->rng = f.seed * 0x9E3779B97F4A7C15ull + 1;
        fi->count = &b->st.faults_injected;
        b->io = (bridge_io){fi, fault_read, fault_write, fault_describe, fault_close};
    }

    /* The board may still hold the SEQ and answer of a previous program: a PING whose SEQ
     * it remembers for another request comes back with that request's TYPE; then the next
     * SEQ is fresh. The first SEQ is random so that a restart rarely collides at all. */
    b->seq = (uint8_t)(now_ms() ^ (uint64_t)getpid());
    uint64_t give_up = now_ms() + b->cfg.open_ms;
    uint32_t id = 0;
    int rc;
    b->quiet = 1;
    for (int attempt = 0;; ++attempt) {
        rc = ping(b, &id);
        if (rc == XFER_WRONG_TYPE && attempt < 3) continue;
        if (rc == VMGPU_HAL_ETIMEDOUT && now_ms() < give_up) continue;
        break;
    }
    if (rc == VMGPU_HAL_ETIMEDOUT && answers_v1(b))
        rc = fail(b, VMGPU_HAL_ENODEV, "PING: the board answers in bridge protocol version 1 "
                  "(CRC-16); this driver speaks version %u (CRC-32): load a bitstream built "
                  "from the same tree", BRIDGE_VERSION);
    b->quiet = 0;
    if (rc == VMGPU_HAL_OK && id != VMGPU_ID_MAGIC)
        rc = fail(b, VMGPU_HAL_ENODEV, "PING: ID 0x%08x is not vmgpu's 0x%08x", (unsigned)id,
                  (unsigned)VMGPU_ID_MAGIC);
    if (rc == VMGPU_HAL_OK) rc = bridge_read_words(b, VMGPU_REG_MEM_SIZE, 0, &b->mem_size, 1);
    if (rc) {
        vmgpu_hal_set_error(err, errlen, "%s", b->base.last_error[0] ? b->base.last_error
                                                                      : "the bridge did not answer");
        br_close(&b->base);
        return NULL;
    }
    b->base.round_trips = 0;
    memset(&b->st, 0, sizeof b->st);
    b->st.burst_words = BRIDGE_MAX_WORDS;
    return &b->base;
}

/* ------------------------------------------------------------------ io over a descriptor */

typedef struct fd_io {
    int fd, own, not_socket;
    char why[128];
} fd_io;

static int fd_read(void *ctx, uint8_t *buf, size_t n, int timeout_ms) {
    fd_io *f = ctx;
    struct pollfd p = {f->fd, POLLIN, 0};
    int r = poll(&p, 1, timeout_ms < 0 ? 0 : timeout_ms);
    if (r < 0) {
        if (errno == EINTR) return 0;
        snprintf(f->why, sizeof f->why, "poll: %s", strerror(errno));
        return -1;
    }
    if (r == 0) return 0;
    ssize_t k = read(f->fd, buf, n);
    if (k > 0) return (int)k;
    if (k < 0 && (errno == EAGAIN || errno == EINTR)) return 0;
    snprintf(f->why, sizeof f->why, "%s", k == 0 ? "the other end closed the link"
                                                 : strerror(errno));
    return -1;
}

static int fd_write(void *ctx, const uint8_t *buf, size_t n) {
    fd_io *f = ctx;
    while (n) {
        /* A socket whose peer is gone must fail the call, not kill the program (SIGPIPE). */
        ssize_t k = f->not_socket ? write(f->fd, buf, n) : send(f->fd, buf, n, MSG_NOSIGNAL);
        if (k < 0 && errno == ENOTSOCK) {
            f->not_socket = 1;
            continue;
        }
        if (k < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN) {
                struct pollfd p = {f->fd, POLLOUT, 0};
                if (poll(&p, 1, 1000) > 0) continue;
                snprintf(f->why, sizeof f->why, "the link accepts no bytes (1 s)");
                return -1;
            }
            snprintf(f->why, sizeof f->why, "write: %s", strerror(errno));
            return -1;
        }
        buf += k;
        n -= (size_t)k;
    }
    return 0;
}

static const char *fd_describe(void *ctx) { return ((fd_io *)ctx)->why; }

static void fd_close(void *ctx) {
    fd_io *f = ctx;
    if (f->own) close(f->fd);
    free(f);
}

int bridge_io_fd(bridge_io *io, int fd, int own) {
    fd_io *f = calloc(1, sizeof *f);
    if (!f) return -1;
    f->fd = fd;
    f->own = own;
    *io = (bridge_io){f, fd_read, fd_write, fd_describe, fd_close};
    return 0;
}
