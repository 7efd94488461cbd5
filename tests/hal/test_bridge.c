/*
 * The PC side of the bridge protocol (sw/hal/bridge.c) against the C device of fake_bridge.c,
 * over a socketpair (and, in case serial_pty, over a pseudo-terminal through the serial
 * backend). One case per run: test_bridge <case>.
 *
 *   basic       PING at open, register round trips, round-trip counting, the frame format
 *   bursts      memory bursts of 1..3000 words split at 256 words, data compared, MEM_ADDR
 *               advanced exactly once per word
 *   host_port   the driver core over the bridge: a DMA copy host -> device -> host whose every
 *               host word travels as HOST_READ/HOST_WRITE frames; a fault reported in words
 *   dead_peer   a peer that never answers: VMGPU_HAL_ETIMEDOUT within a bound, a message
 *               naming the device, the request and the tries; a closed peer: VMGPU_HAL_EIO
 *   old_version a bitstream of protocol version 1 (CRC-16): open fails with VMGPU_HAL_ENODEV and
 *               a message naming both versions, not with a time-out
 *   faults      VMGPU_LINK_FAULTS flip/drop/dup at 1e-3 both ways: 64 KiB written and read
 *               back equal, no MEM_DATA word executed twice, host-port copies intact
 *   stale_retry a request the PC resent while the bridge was busy inside it (test hook): the
 *               held copy is answered from the store, never executed again after the PC's next
 *               request (a register write and a memory burst land once, in order)
 *   serial_pty  VMGPU_DEVICE=serial:/dev/pts/N@3000000 through vmgpu_hal_open (termios2)
 *   crc         CRC-32/ISO-HDLC check value and the fault-string parser
 *   sim_board   VMGPU_DEVICE=sim-board: the board RTL behind a pty; registers, a 16 KiB burst
 *               and the link's speed against the model's UART rate, the core's map/copy/fault
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bridge.h"
#include "fake_bridge.h"
#include "hal_check.h"
#include "vmgpu/core.h"
#include "vmgpu/regs.h"
#include "vmgpu_hal.h"

/* The board's clock and line rate (board/ulx3s/board.cmake): model cycles per UART bit. */
#ifndef VMGPU_SIM_BOARD_BAUD
#define VMGPU_SIM_BOARD_CLK_HZ 50000000
#define VMGPU_SIM_BOARD_BAUD 3000000
#endif
#define SIM_BOARD_BIT_CYCLES ((double)VMGPU_SIM_BOARD_CLK_HZ / (double)VMGPU_SIM_BOARD_BAUD)

static fake_bridge *g_fake;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A bridge HAL on one end of a socketpair, the fake device on the other. */
static vmgpu_hal *open_pair(int dead, const bridge_config *cfg, char *err, size_t errlen) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) return NULL;
    g_fake = fake_bridge_start(sv[1], dead);
    if (!g_fake) {
        snprintf(err, errlen, "the sim model does not start");
        close(sv[0]);
        close(sv[1]);
        return NULL;
    }
    bridge_io io;
    bridge_io_fd(&io, sv[0], 1);
    return bridge_open("loopback", "serial", io, cfg, err, errlen);
}

static void close_pair(vmgpu_hal *h) {
    vmgpu_hal_close(h);
    fake_bridge_stop(g_fake);
    g_fake = NULL;
}

static uint32_t rnd_state = 12345;
static uint32_t rnd(void) {
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 17;
    rnd_state ^= rnd_state << 5;
    return rnd_state;
}

static int t_crc(void) {
    /* The catalogued check value of CRC-32/ISO-HDLC over "123456789". */
    uint32_t c = bridge_crc32((const uint8_t *)"123456789", 9);
    CHECK(c == 0xCBF43926u, "crc(\"123456789\") = 0x%08x, want 0xCBF43926", c);
    uint8_t fr[16];
    size_t n = bridge_frame_encode(fr, 7, BRIDGE_PING, NULL, 0);
    CHECK(n == 10 && fr[0] == 0xA5 && fr[1] == 0x5A && fr[2] == 7 && fr[3] == 1 && fr[4] == 0 &&
              fr[5] == 0,
          "PING frame header");
    uint32_t fc = bridge_crc32(fr + 2, 4);
    CHECK(fr[6] == (fc & 0xFF) && fr[7] == ((fc >> 8) & 0xFF) && fr[8] == ((fc >> 16) & 0xFF) &&
              fr[9] == (fc >> 24),
          "CRC little-endian at the end");
    bridge_faults f;
    char err[200];
    CHECK(bridge_parse_faults("flip=1e-3,drop=2e-3,dup=0.5,seed=9", &f, err, sizeof err) == 0 &&
              f.flip == 1e-3 && f.drop == 2e-3 && f.dup == 0.5 && f.seed == 9,
          "fault string parsed");
    CHECK(bridge_parse_faults("flip=2", &f, err, sizeof err) < 0 && strstr(err, "flip=1e-3"),
          "rate above 1 refused: %s", err);
    CHECK(bridge_parse_faults("bogus=1", &f, err, sizeof err) < 0, "unknown key refused");
    printf("crc check value, frame layout, fault strings\n");
    return hal_summary("crc");
}

static int t_basic(void) {
    char err[512];
    vmgpu_hal *h = open_pair(0, NULL, err, sizeof err);
    REQUIRE(h, "open: %s", err);
    CHECK(!strcmp(h->ops->name, "serial"), "backend name %s", h->ops->name);
    uint32_t v = 0;
    CHECK(vmgpu_reg_read(h, VMGPU_REG_ID, &v) == 0 && v == VMGPU_ID_MAGIC, "ID 0x%08x", v);
    uint64_t rt0 = h->round_trips;
    for (uint32_t i = 0; i < 50; ++i) {
        uint32_t w = 0x9E3779B9u * (i + 1);
        CHECK(vmgpu_reg_write(h, VMGPU_REG_SCRATCH, w) == 0, "write %u", i);
        CHECK(vmgpu_reg_read(h, VMGPU_REG_SCRATCH, &v) == 0 && v == w, "scratch %u: 0x%08x", i, v);
    }
    CHECK(h->round_trips - rt0 == 100, "100 accesses, %llu round trips",
          (unsigned long long)(h->round_trips - rt0));
    uint32_t ms = 0;
    CHECK(vmgpu_reg_read(h, VMGPU_REG_MEM_SIZE, &ms) == 0 && ms == VMGPU_SIM_MEM_BYTES,
          "MEM_SIZE %u", ms);
    uint64_t ran = 1;
    CHECK(vmgpu_run(h, 1000, &ran) == 0 && ran == 0, "idle device: run returns at once (%llu)",
          (unsigned long long)ran);
    CHECK(vmgpu_mem_write(h, 2, &v, 1) == VMGPU_HAL_EINVAL, "misaligned refused");
    CHECK(vmgpu_mem_write(h, ms - 4, &v, 2) == VMGPU_HAL_EINVAL, "past the end refused");
    bridge_stats st;
    bridge_get_stats(h, &st);
    CHECK(st.resends == 0 && st.frames_dropped == 0, "clean link: %llu resends",
          (unsigned long long)st.resends);
    printf("50 SCRATCH write/read pairs, one round trip each; ID, MEM_SIZE, idle run\n");
    close_pair(h);
    return hal_summary("basic");
}

static int t_bursts(void) {
    char err[512];
    vmgpu_hal *h = open_pair(0, NULL, err, sizeof err);
    REQUIRE(h, "open: %s", err);
    static uint32_t out[3000], in[3000];
    const size_t sizes[] = {1, 2, 255, 256, 257, 512, 1000, 3000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        size_t n = sizes[k];
        uint32_t pa = 0x10000u + (uint32_t)k * 0x4000u;
        for (size_t i = 0; i < n; ++i) out[i] = rnd();
        memset(in, 0, sizeof in);
        uint64_t rt0 = h->round_trips;
        CHECK(vmgpu_mem_write(h, pa, out, n) == 0, "write %zu", n);
        uint64_t rt_w = h->round_trips - rt0;
        CHECK(rt_w == 1 + (n + 255) / 256, "%zu words written in %llu round trips", n,
              (unsigned long long)rt_w);
        uint32_t addr = 0;
        CHECK(vmgpu_reg_read(h, VMGPU_REG_MEM_ADDR, &addr) == 0 && addr == pa + 4 * n,
              "MEM_ADDR after %zu words: 0x%x want 0x%x", n, addr, (unsigned)(pa + 4 * n));
        CHECK(vmgpu_mem_read(h, pa, in, n) == 0, "read %zu", n);
        CHECK(!memcmp(in, out, n * 4), "%zu words read back equal", n);
    }
    fake_bridge_stats fs;
    fake_bridge_stats_get(g_fake, &fs);
    CHECK(fs.max_count == 256, "largest burst %llu words", (unsigned long long)fs.max_count);
    CHECK(fs.repeats == 0, "no repeats on a clean link");
    printf("bursts of 1..3000 words: data equal, 256-word frames, MEM_ADDR exact\n");
    close_pair(h);
    return hal_summary("bursts");
}

/* Host buffer -> device -> host through the MMU, every host word over the link. */
static int core_copy(vmgpu_hal *h, uint32_t nbytes, const char *tag) {
    vmgpu_dev *dev = NULL;
    char err[512];
    int rc = vmgpu_dev_open_hal(h, 0, NULL, &dev, err, sizeof err);
    CHECK(rc == 0, "%s: core on the bridge: %s", tag, err);
    if (rc) return -1;
    vmgpu_ctx *c;
    vmgpu_stream *s;
    uint32_t bytes = (nbytes + VMGPU_GRANULE - 1) / VMGPU_GRANULE * VMGPU_GRANULE;
    uint8_t *src = aligned_alloc(4096, bytes), *dst = aligned_alloc(4096, bytes);
    for (uint32_t i = 0; i < bytes; ++i) src[i] = (uint8_t)rnd();
    memset(dst, 0xEE, bytes);
    uint32_t hs, hd, vs, vd, vdev, pa;
    int ok = !vmgpu_ctx_create(dev, 0, &c) && !vmgpu_stream_create(c, 0, &s) &&
             !vmgpu_host_register(dev, src, bytes, &hs) &&
             !vmgpu_host_register(dev, dst, bytes, &hd) &&
             !vmgpu_va_reserve(c, bytes, 0, 0, &vs) && !vmgpu_va_reserve(c, bytes, 0, 0, &vd) &&
             !vmgpu_va_reserve(c, bytes, 0, 0, &vdev) && !vmgpu_phys_alloc(dev, bytes, 0, &pa) &&
             !vmgpu_map(c, vs, hs, bytes, VMGPU_MAP_READ | VMGPU_MAP_HOST) &&
             !vmgpu_map(c, vd, hd, bytes, VMGPU_MAP_READ | VMGPU_MAP_WRITE | VMGPU_MAP_HOST) &&
             !vmgpu_map(c, vdev, pa, bytes, VMGPU_MAP_READ | VMGPU_MAP_WRITE) &&
             !vmgpu_cmd_copy(s, vdev, vs + 3, nbytes) && !vmgpu_cmd_copy(s, vd + 1, vdev, nbytes);
    CHECK(ok, "%s: set-up: %s", tag, vmgpu_dev_last_error(dev));
    rc = ok ? vmgpu_stream_sync(s) : -1;
    CHECK(rc == 0, "%s: sync: %s (%s)", tag, vmgpu_dev_last_error(dev), vmgpu_hal_last_error(h));
    CHECK(!memcmp(dst + 1, src + 3, nbytes) && dst[0] == 0xEE && dst[nbytes + 1] == 0xEE,
          "%s: %u bytes host -> device -> host intact", tag, nbytes);
    /* A fault travels back as words, not as a hang. */
    if (ok) {
        uint32_t hole;
        vmgpu_va_reserve(c, VMGPU_GRANULE, 0, 0, &hole);
        vmgpu_cmd_copy(s, vdev, hole + 4096, 64);
        rc = vmgpu_stream_sync(s);
        CHECK(rc == VMGPU_ERR_FAULT && strstr(vmgpu_dev_last_error(dev), "PTE_INVALID"),
              "%s: fault reported: %s", tag, vmgpu_dev_last_error(dev));
    }
    vmgpu_dev_close(dev);
    free(src);
    free(dst);
    return 0;
}

static int t_host_port(void) {
    char err[512];
    vmgpu_hal *h = open_pair(0, NULL, err, sizeof err);
    REQUIRE(h, "open: %s", err);
    core_copy(h, 3 * 4096 + 100, "clean link");
    bridge_stats st;
    bridge_get_stats(h, &st);
    fake_bridge_stats fs;
    fake_bridge_stats_get(g_fake, &fs);
    CHECK(st.host_requests >= 2 * (3 * 4096 + 100) / 4, "host requests served: %llu",
          (unsigned long long)st.host_requests);
    CHECK(fs.host_done == st.host_requests, "device saw %llu answers, PC served %llu",
          (unsigned long long)fs.host_done, (unsigned long long)st.host_requests);
    printf("core over the bridge: %llu host-port requests served, %llu link round trips\n",
           (unsigned long long)st.host_requests, (unsigned long long)h->round_trips);
    close_pair(h);
    return hal_summary("host_port");
}

static int t_dead_peer(void) {
    char err[512] = "";
    setenv("VMGPU_HAL_QUIET", "1", 1);
    double t0 = now_s();
    vmgpu_hal *h = open_pair(1, NULL, err, sizeof err);
    double dt = now_s() - t0;
    CHECK(!h, "open of a dead peer fails");
    CHECK(strstr(err, "loopback") && strstr(err, "PING") && strstr(err, "6 tries"),
          "open's message names device, request and tries: %s", err);
    CHECK(dt < 2.0, "open gave up after %.3f s", dt);
    printf("dead peer at open: %.3f s: %s\n", dt, err);
    fake_bridge_stop(g_fake);

    /* A peer that dies after opening: a read times out with a message naming it. */
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    g_fake = fake_bridge_start(sv[1], 0);
    bridge_io io;
    bridge_io_fd(&io, sv[0], 1);
    h = bridge_open("loopback2", "serial", io, NULL, err, sizeof err);
    REQUIRE(h, "open: %s", err);
    /* Keep the socket open but stop answering: the fake's thread ends, its fd stays. */
    int keep = dup(sv[1]);
    fake_bridge_stop(g_fake);
    g_fake = NULL;
    uint32_t v;
    t0 = now_s();
    int rc = vmgpu_reg_read(h, VMGPU_REG_STATUS, &v);
    dt = now_s() - t0;
    CHECK(rc == VMGPU_HAL_ETIMEDOUT, "read on a silent link: %s", vmgpu_hal_status_name(rc));
    const char *m = vmgpu_hal_last_error(h);
    CHECK(strstr(m, "loopback2") && strstr(m, "READ STATUS") && strstr(m, "6 tries"),
          "message: %s", m);
    CHECK(dt > 0.1 && dt < 2.0, "gave up after %.3f s (6 tries of ~21 ms)", dt);
    printf("silent peer: %s after %.3f s: %s\n", vmgpu_hal_status_name(rc), dt, m);
    t0 = now_s();
    rc = vmgpu_run(h, 1000000, NULL);
    CHECK(rc == VMGPU_HAL_ETIMEDOUT && now_s() - t0 < 2.0, "run on a silent link: %s",
          vmgpu_hal_status_name(rc));
    close(keep);
    rc = vmgpu_reg_write(h, VMGPU_REG_SCRATCH, 1);
    CHECK(rc == VMGPU_HAL_EIO || rc == VMGPU_HAL_ETIMEDOUT, "closed peer: %s (%s)",
          vmgpu_hal_status_name(rc), vmgpu_hal_last_error(h));
    printf("closed peer: %s: %s\n", vmgpu_hal_status_name(rc), vmgpu_hal_last_error(h));
    vmgpu_hal_close(h);
    return hal_summary("dead_peer");
}

static int t_old_version(void) {
    char err[512] = "";
    setenv("VMGPU_HAL_QUIET", "1", 1);
    double t0 = now_s();
    vmgpu_hal *h = open_pair(FAKE_BRIDGE_V1, NULL, err, sizeof err);
    double dt = now_s() - t0;
    CHECK(!h, "open of a protocol-1 bitstream fails");
    CHECK(strstr(err, "loopback") && strstr(err, "protocol version 1") &&
              strstr(err, "version 2") && strstr(err, "bitstream"),
          "the message names both versions and what to do: %s", err);
    CHECK(dt < 2.0, "open gave up after %.3f s", dt);
    printf("protocol-1 bitstream: %.3f s: %s\n", dt, err);
    fake_bridge_stop(g_fake);
    g_fake = NULL;
    return hal_summary("old_version");
}

static int t_faults(void) {
    setenv("VMGPU_HAL_QUIET", "1", 1);
    const unsigned seeds[] = {1, 2, 3};
    for (unsigned k = 0; k < 3; ++k) {
        char spec[96], err[512];
        snprintf(spec, sizeof spec, "flip=1e-3,drop=1e-3,dup=1e-3,seed=%u", seeds[k]);
        setenv("VMGPU_LINK_FAULTS", spec, 1);
        /* Short waits (the fake answers at once, only losses cost time), but longer than
         * the device's 10 ms resend, as the protocol's 20 ms are. */
        bridge_config cfg = {.extra_ms = 12};
        vmgpu_hal *h = open_pair(0, &cfg, err, sizeof err);
        REQUIRE(h, "open under faults: %s", err);
        enum { N = 16384 }; /* 64 KiB */
        static uint32_t out[N], in[N];
        for (int i = 0; i < N; ++i) out[i] = rnd();
        memset(in, 0, sizeof in);
        fake_bridge_stats f0;
        fake_bridge_stats_get(g_fake, &f0);
        int rc = vmgpu_mem_write(h, 0x20000, out, N);
        CHECK(rc == 0, "seed %u: 64 KiB write: %s", seeds[k], vmgpu_hal_last_error(h));
        fake_bridge_stats f1;
        fake_bridge_stats_get(g_fake, &f1);
        bridge_stats sw;
        bridge_get_stats(h, &sw);
        /* Retried requests are answered from the stored copy: every word is executed once,
         * except words of a burst redone after MEM_ADDR was set again (counted apart). */
        uint64_t execd = f1.mem_data_writes - f0.mem_data_writes;
        CHECK(execd >= N && execd <= N + sw.redo_words,
              "seed %u: MEM_DATA written %llu times for %d words (%llu redone)", seeds[k],
              (unsigned long long)execd, N, (unsigned long long)sw.redo_words);
        uint32_t addr = 0;
        rc = vmgpu_reg_read(h, VMGPU_REG_MEM_ADDR, &addr);
        CHECK(rc == 0 && addr == 0x20000 + 4 * N, "seed %u: MEM_ADDR 0x%x after the write",
              seeds[k], addr);
        rc = vmgpu_mem_read(h, 0x20000, in, N);
        unsigned differ = 0;
        for (int i = 0; i < N; ++i) differ += in[i] != out[i];
        CHECK(rc == 0 && !differ, "seed %u: 64 KiB read back equal: %s (%s), %u words differ",
              seeds[k], vmgpu_hal_status_name(rc), rc ? vmgpu_hal_last_error(h) : "", differ);
        core_copy(h, 2 * 4096 + 10, "faulty link");
        bridge_stats st;
        bridge_get_stats(h, &st);
        fake_bridge_stats fs;
        fake_bridge_stats_get(g_fake, &fs);
        CHECK(st.faults_injected > 50 && st.resends > 0, "seed %u: %llu faults, %llu resends",
              seeds[k], (unsigned long long)st.faults_injected, (unsigned long long)st.resends);
        printf("seed %u: %llu bytes damaged, %llu resends, %llu frames dropped, %llu answers "
               "repeated by the device, %llu host requests (%llu repeats answered from the "
               "cache), %llu bursts redone, burst now %u words: data intact\n",
               seeds[k], (unsigned long long)st.faults_injected, (unsigned long long)st.resends,
               (unsigned long long)st.frames_dropped, (unsigned long long)fs.repeats,
               (unsigned long long)st.host_requests, (unsigned long long)st.host_repeats,
               (unsigned long long)st.burst_restarts, st.burst_words);
        close_pair(h);
    }
    unsetenv("VMGPU_LINK_FAULTS");
    return hal_summary("faults");
}

/*
 * The interleaving a loaded machine produced once in bridge_faults, made on demand: the bridge is
 * busy inside request n (a host-port wait in the middle of its CSR access) past the PC's
 * time-out, so the PC's resend of n is held back in the bridge's queue; the bridge answers n, and
 * the PC's request n+1 is already in the bridge's receive buffer when it looks again. Handled in
 * arrival order, the held copy of n is a retry (answered from the store); handled after n+1, it
 * no longer matches the last SEQ and runs a second time, after a newer write.
 */
static int t_stale_retry(void) {
    setenv("VMGPU_HAL_QUIET", "1", 1);
    char err[512];
    vmgpu_hal *h = open_pair(0, NULL, err, sizeof err);
    REQUIRE(h, "open: %s", err);
    for (uint32_t round = 0; round < 4; ++round) {
        fake_bridge_stats f0, f1;
        fake_bridge_stats_get(g_fake, &f0);
        uint32_t a = 0xA0000000u + round, bval = 0xB0000000u + round, v = 0;
        fake_bridge_stall_on_write(g_fake, VMGPU_REG_SCRATCH);
        int rc = vmgpu_reg_write(h, VMGPU_REG_SCRATCH, a);
        rc |= vmgpu_reg_write(h, VMGPU_REG_SCRATCH, bval);
        rc |= vmgpu_reg_read(h, VMGPU_REG_SCRATCH, &v);
        fake_bridge_stats_get(g_fake, &f1);
        CHECK(rc == 0 && v == bval, "round %u: SCRATCH 0x%08x after writing 0x%08x then 0x%08x "
              "(rc %d)", round, v, a, bval, rc);
        CHECK(f1.repeats > f0.repeats && f1.executed - f0.executed == 3,
              "round %u: the held resend answered from the store (%llu repeats), 3 requests "
              "executed (%llu)", round, (unsigned long long)(f1.repeats - f0.repeats),
              (unsigned long long)(f1.executed - f0.executed));
    }
    /* The same with the MEM_ADDR write that starts a burst: run again after the first MEM_DATA
     * frame, it would send the second frame's words over the first's. */
    enum { N = 512 };
    static uint32_t out[N], in[N];
    for (uint32_t round = 0; round < 4; ++round) {
        uint32_t pa = 0x30000u + round * 0x1000u;
        for (int i = 0; i < N; ++i) out[i] = rnd();
        fake_bridge_stats f0, f1;
        fake_bridge_stats_get(g_fake, &f0);
        fake_bridge_stall_on_write(g_fake, VMGPU_REG_MEM_ADDR);
        int rc = vmgpu_mem_write(h, pa, out, N);
        fake_bridge_stats_get(g_fake, &f1);
        uint32_t addr = 0;
        rc |= vmgpu_reg_read(h, VMGPU_REG_MEM_ADDR, &addr);
        CHECK(rc == 0 && addr == pa + 4 * N, "round %u: MEM_ADDR 0x%x after %d words from 0x%x",
              round, addr, N, pa);
        CHECK(f1.mem_data_writes - f0.mem_data_writes == N && f1.repeats > f0.repeats,
              "round %u: %llu MEM_DATA words executed for %d, %llu repeats", round,
              (unsigned long long)(f1.mem_data_writes - f0.mem_data_writes), N,
              (unsigned long long)(f1.repeats - f0.repeats));
        memset(in, 0, sizeof in);
        rc = vmgpu_mem_read(h, pa, in, N);
        CHECK(rc == 0 && !memcmp(in, out, sizeof out), "round %u: %d words read back equal",
              round, N);
    }
    bridge_stats st;
    bridge_get_stats(h, &st);
    CHECK(st.resends >= 8, "every stalled request was resent (%llu resends)",
          (unsigned long long)st.resends);
    printf("8 requests resent while the bridge was busy inside them: SCRATCH keeps the newer "
           "write, bursts land once at their address (%llu resends, %llu stale answers)\n",
           (unsigned long long)st.resends, (unsigned long long)st.stale_answers);
    close_pair(h);
    return hal_summary("stale_retry");
}

static int t_serial_pty(void) {
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    REQUIRE(m >= 0 && !grantpt(m) && !unlockpt(m), "pty");
    char spec[160], err[512];
    snprintf(spec, sizeof spec, "serial:%s@3000000", ptsname(m));
    /* Hold the slave so the fake never reads EOF before the HAL opens it. */
    int keep = open(ptsname(m), O_RDWR | O_NOCTTY);
    g_fake = fake_bridge_start(m, 0);
    REQUIRE(g_fake, "fake");
    vmgpu_hal *h = vmgpu_hal_open(spec, err, sizeof err);
    close(keep);
    REQUIRE(h, "open %s: %s", spec, err);
    CHECK(!strcmp(h->ops->name, "serial"), "backend %s", h->ops->name);
    static uint32_t out[2000], in[2000];
    for (int i = 0; i < 2000; ++i) out[i] = rnd();
    /* Every byte value, 0x0A/0x0D/0x11/0x13/0x7F included, must pass a raw tty unchanged. */
    for (int i = 0; i < 256; ++i) out[i] = (uint32_t)i * 0x01010101u;
    CHECK(vmgpu_mem_write(h, 0x8000, out, 2000) == 0 && vmgpu_mem_read(h, 0x8000, in, 2000) == 0 &&
              !memcmp(in, out, sizeof out),
          "2000 words (all byte values) through the pty");
    bridge_stats st;
    bridge_get_stats(h, &st);
    CHECK(st.resends == 0 && st.frames_dropped == 0, "raw mode: nothing lost (%llu resends)",
          (unsigned long long)st.resends);
    printf("%s: raw termios2 link, 2000 words of every byte value round-tripped\n", spec);
    vmgpu_hal_close(h);
    fake_bridge_stop(g_fake);
    return hal_summary("serial_pty");
}

/* The board's RTL in Verilator behind a pty (VMGPU_DEVICE=sim-board): registers, bursts, and
 * the link's speed against the model's UART bit rate. */
static int t_sim_board(void) {
    char err[512];
    double t0 = now_s();
    vmgpu_hal *h = vmgpu_hal_open("sim-board", err, sizeof err);
    REQUIRE(h, "open sim-board: %s", err);
    printf("sim-board opened in %.2f s\n", now_s() - t0);
    CHECK(!strcmp(h->ops->name, "sim-board"), "backend %s", h->ops->name);
    uint32_t v = 0;
    CHECK(vmgpu_reg_read(h, VMGPU_REG_ID, &v) == 0 && v == VMGPU_ID_MAGIC, "ID 0x%08x", v);
    for (uint32_t i = 0; i < 20; ++i) {
        uint32_t w = rnd();
        CHECK(vmgpu_reg_write(h, VMGPU_REG_SCRATCH, w) == 0 &&
                  vmgpu_reg_read(h, VMGPU_REG_SCRATCH, &v) == 0 && v == w,
              "SCRATCH %u: 0x%08x want 0x%08x", i, v, w);
    }
    enum { N = 4096 };
    static uint32_t out[N], in[N];
    for (int i = 0; i < N; ++i) out[i] = rnd();
    uint32_t c0 = 0, c1 = 0;
    vmgpu_reg_read(h, VMGPU_REG_CYCLE_LO, &c0);
    t0 = now_s();
    int rc = vmgpu_mem_write(h, 0x4000, out, N);
    rc |= vmgpu_mem_read(h, 0x4000, in, N);
    double dt = now_s() - t0;
    vmgpu_reg_read(h, VMGPU_REG_CYCLE_LO, &c1);
    CHECK(rc == 0 && !memcmp(in, out, sizeof out), "16 KiB written and read back equal (%s)",
          vmgpu_hal_last_error(h));
    double cps = (double)(uint32_t)(c1 - c0) / dt;
    double line_Bps = cps / SIM_BOARD_BIT_CYCLES / 10.0;
    double pay = 2.0 * N * 4 / dt;
    printf("link_payload_bytes_per_second %.0f (model %.0f cycles/s, UART %.0f bit/s, ratio %.3f)\n",
           pay, cps, cps / SIM_BOARD_BIT_CYCLES, pay / line_Bps);
    /* The driver core's basic operations over the board RTL: map, host -> device -> host
     * through the host port (every word a HOST_READ/HOST_WRITE frame), a fault. */
    t0 = now_s();
    core_copy(h, 4096 + 100, "sim-board");
    printf("core on sim-board: map, %u bytes host -> device -> host, a fault: %.2f s\n",
           4096 + 100, now_s() - t0);
    vmgpu_hal_close(h);
    return hal_summary("sim_board");
}

int main(int argc, char **argv) {
    const char *c = argc > 1 ? argv[1] : "";
    if (!strcmp(c, "crc")) return t_crc();
    if (!strcmp(c, "basic")) return t_basic();
    if (!strcmp(c, "bursts")) return t_bursts();
    if (!strcmp(c, "host_port")) return t_host_port();
    if (!strcmp(c, "dead_peer")) return t_dead_peer();
    if (!strcmp(c, "old_version")) return t_old_version();
    if (!strcmp(c, "faults")) return t_faults();
    if (!strcmp(c, "stale_retry")) return t_stale_retry();
    if (!strcmp(c, "serial_pty")) return t_serial_pty();
    if (!strcmp(c, "sim_board")) return t_sim_board();
    printf("usage: %s crc|basic|bursts|host_port|dead_peer|old_version|faults|stale_retry|serial_pty\n",
           argv[0]);
    return 2;
}
