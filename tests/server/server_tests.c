/*
 * Device server tests (issue 14): two processes on one device through vmgpud. Each case forks
 * before either process opens the device (a connection belongs to the process that made it),
 * the processes take turns over a socketpair, and file descriptors cross with SCM_RIGHTS.
 *
 *   vmgpu_server_tests CASE      (VMGPU_DEVICE=vmgpud, VMGPU_SERVER_SOCKET set by ctest)
 *
 * Every case prints what it checked and exits nonzero on any failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fdpass.h"
#include "proto.h"
#include "vmgpu/core.h"
#include "vmgpu/regs.h"

static int fails;
static vmgpu_dev *g_dev;
static const char *who = "parent";
#define CHECK(c) do { if (!(c)) { printf("  FAIL [%s] %s:%d: %s\n", who, __FILE__, __LINE__, #c); \
    fails++; } } while (0)
#define CHECK_RC(call, want) do { int rc_ = (call); if (rc_ != (want)) { \
    printf("  FAIL [%s] %s:%d: %s -> %s, want %s (%s)\n", who, __FILE__, __LINE__, #call, \
           vmgpu_status_name(rc_), vmgpu_status_name(want), vmgpu_dev_last_error(g_dev)); \
    fails++; } } while (0)
#define OK(call) CHECK_RC(call, VMGPU_OK)
#define NOTE(...) do { printf("  [%s] ", who); printf(__VA_ARGS__); printf("\n"); fflush(stdout); } while (0)
/* A bad call: the wanted error and nothing changed (the state hash before and after). */
#define BAD(call, want) do { uint64_t h_ = vmgpu_debug_state_hash(g_dev); CHECK_RC(call, want); \
    CHECK(vmgpu_debug_state_hash(g_dev) == h_); nbad++; } while (0)

#define GRAN VMGPU_GRANULE
#define RW (VMGPU_MAP_READ | VMGPU_MAP_WRITE)

static void open_dev(void)
{
    char err[320];
    int rc = vmgpu_dev_open(NULL, &g_dev, err, sizeof err);
    if (rc) {
        printf("FAIL [%s]: cannot open the device: %s (%s)\n", who, err, vmgpu_status_name(rc));
        exit(1);
    }
    if (!vmgpu_dev_is_remote(g_dev)) {
        printf("FAIL [%s]: the device is in this process (VMGPU_DEVICE=vmgpud expected)\n", who);
        exit(1);
    }
}

/* ------------------------------------------------------------------ turns and fds */

static void send_msg(int s, uint32_t word, int fd)
{
    if (fdpass_send(s, &word, sizeof word, fd)) {
        printf("FAIL [%s]: the other process is gone\n", who);
        exit(1);
    }
}

static uint32_t recv_msg(int s, int *fd)
{
    uint32_t word = 0;
    if (fdpass_recv(s, &word, sizeof word, fd)) {
        printf("FAIL [%s]: the other process is gone\n", who);
        exit(1);
    }
    return word;
}

/* fork; the child runs fn(socket) and exits with its failure count. */
static pid_t spawn(void (*fn)(int), int *sock)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) exit(2);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        who = "child";
        alarm(300);
        fn(sv[1]);
        if (g_dev) vmgpu_dev_close(g_dev);
        fflush(stdout);
        _exit(fails ? 1 : 0);
    }
    close(sv[1]);
    *sock = sv[0];
    return pid;
}

static int child_result(pid_t pid)
{
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static uint32_t free_bytes(void)
{
    uint32_t f = 0;
    vmgpu_phys_stats(g_dev, &f, NULL);
    return f;
}

/* The server frees a gone process's memory when it notices the hang-up: wait for it. */
static int free_bytes_become(uint32_t want)
{
    for (int i = 0; i < 200; i++) {
        if (free_bytes() == want) return 1;
        usleep(10000);
    }
    return 0;
}


static int words_are(vmgpu_ctx *c, uint32_t va, uint32_t v, unsigned n)
{
    uint32_t buf[64];
    if (n > 64) n = 64;
    if (vmgpu_ctx_read(c, va, buf, n * 4)) return 0;
    for (unsigned i = 0; i < n; i++)
        if (buf[i] != v) return 0;
    return 1;
}

/* Fill [va, va+bytes) with v by the device (a DMA fill through the MMU) and wait. */
static int device_fill(vmgpu_stream *s, uint32_t va, uint32_t bytes, uint32_t v)
{
    int rc = vmgpu_cmd_fill(s, va, bytes, v, 4);
    return rc ? rc : vmgpu_stream_sync(s);
}

/* ------------------------------------------------------------- two_process */

/* The child imports the parent's allocation and they write to it in turns; the exporter frees
 * first; the memory lives while the child holds it or its descriptor, and then is freed. */
static void two_process_child(int s)
{
    open_dev();
    vmgpu_ctx *c;
    vmgpu_stream *st;
    OK(vmgpu_ctx_create(g_dev, -1, &c));
    OK(vmgpu_stream_create(c, 0, &st));
    int fd;
    unsigned parent_asid = recv_msg(s, &fd);
    CHECK(fd >= 0);
    uint32_t pa, size, va;
    OK(vmgpu_phys_import(g_dev, fd, &pa, &size));
    CHECK(size == 2 * GRAN);
    OK(vmgpu_va_reserve(c, size, 0, 0, &va));
    OK(vmgpu_map(c, va, pa, size, RW));
    NOTE("imported fd %d: pa 0x%08x (+0x%x) mapped at va 0x%08x in ASID %u (the parent's ASID: %u)",
         fd, pa, size, va, vmgpu_ctx_asid(c), parent_asid);
    CHECK(vmgpu_ctx_asid(c) != parent_asid);
    CHECK(words_are(c, va, 0x11111111, 64));
    NOTE("reads the parent's device writes: %s", words_are(c, va, 0x11111111, 64) ? "yes" : "NO");
    OK(device_fill(st, va + GRAN, GRAN, 0x22222222));
    send_msg(s, 1, -1);
    recv_msg(s, NULL);  /* the parent unmapped, freed and closed its descriptor */
    CHECK(words_are(c, va, 0x11111111, 64) && words_are(c, va + GRAN, 0x22222222, 64));
    OK(device_fill(st, va, GRAN, 0x33333333));
    CHECK(words_are(c, va, 0x33333333, 64));
    NOTE("after the exporter freed: data intact, device writes still land: %s",
         words_are(c, va, 0x33333333, 64) ? "yes" : "NO");
    OK(vmgpu_unmap(c, va, size));
    OK(vmgpu_phys_free(g_dev, pa));
    /* the descriptor alone keeps the memory alive (NVIDIA, measured) */
    uint32_t pa2, size2;
    OK(vmgpu_phys_import(g_dev, fd, &pa2, &size2));
    CHECK(pa2 == pa && size2 == size);
    OK(vmgpu_map(c, va, pa2, size, RW));
    CHECK(words_are(c, va, 0x33333333, 64));
    NOTE("holding only the descriptor, re-import: the same memory, data there: %s",
         words_are(c, va, 0x33333333, 64) ? "yes" : "NO");
    OK(vmgpu_unmap(c, va, size));
    OK(vmgpu_phys_free(g_dev, pa2));
    close(fd);
    OK(vmgpu_stream_destroy(st));
    OK(vmgpu_ctx_destroy(c));
    send_msg(s, 2, -1);
}

static void t_two_process(void)
{
    int s;
    pid_t pid = spawn(two_process_child, &s);
    open_dev();
    uint32_t before = free_bytes();
    vmgpu_ctx *c;
    vmgpu_stream *st;
    OK(vmgpu_ctx_create(g_dev, -1, &c));
    OK(vmgpu_stream_create(c, 0, &st));
    uint32_t pa, va, size = 2 * GRAN;
    OK(vmgpu_phys_alloc(g_dev, size, 0, &pa));
    OK(vmgpu_va_reserve(c, size, 0, 0, &va));
    OK(vmgpu_map(c, va, pa, size, RW));
    OK(device_fill(st, va, size, 0x11111111));
    int fd = -1;
    OK(vmgpu_phys_export(g_dev, pa, &fd));
    CHECK(fd >= 0 && fcntl(fd, F_GETFD) != -1);
    NOTE("exported pa 0x%08x (ASID %u, va 0x%08x) as fd %d; sending it over a Unix socket",
         pa, vmgpu_ctx_asid(c), va, fd);
    send_msg(s, vmgpu_ctx_asid(c), fd);
    recv_msg(s, NULL);
    CHECK(words_are(c, va + GRAN, 0x22222222, 64));
    NOTE("sees the child's device writes: %s", words_are(c, va + GRAN, 0x22222222, 64) ? "yes" : "NO");
    OK(vmgpu_unmap(c, va, size));
    OK(vmgpu_phys_free(g_dev, pa));  /* the exporter releases first */
    close(fd);
    CHECK(free_bytes() < before);
    NOTE("exporter freed its hold: memory still in use (the child holds it): %s",
         free_bytes() < before ? "yes" : "NO");
    send_msg(s, 3, -1);
    recv_msg(s, NULL);
    int rc = child_result(pid);
    CHECK(rc == 0);
    CHECK(free_bytes_become(before));
    NOTE("child done (exit %d); every hold and descriptor gone: memory free again: %s", rc,
         free_bytes() == before ? "yes" : "NO");
    OK(vmgpu_stream_destroy(st));
    OK(vmgpu_ctx_destroy(c));
}

/* ------------------------------------------------------------- kill_client */

static void victim(int s)
{
    open_dev();
    vmgpu_ctx *c;
    vmgpu_stream *st;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &st));
    uint32_t pa, va, size = 8 * GRAN, ha, hva;
    OK(vmgpu_phys_alloc(g_dev, size, 0, &pa));
    OK(vmgpu_va_reserve(c, size, 0, 0, &va));
    OK(vmgpu_map(c, va, pa, size, RW));
    void *host = mmap(NULL, GRAN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    OK(vmgpu_host_register(g_dev, host, GRAN, &ha));
    OK(vmgpu_va_reserve(c, GRAN, 0, 0, &hva));
    OK(vmgpu_map(c, hva, ha, GRAN, RW | VMGPU_MAP_HOST));
    int fd;
    OK(vmgpu_phys_export(g_dev, pa, &fd));  /* exported, and the descriptor dies with us */
    send_msg(s, vmgpu_ctx_asid(c), -1);
    /* copy back and forth until killed: there is always work in flight */
    for (;;) {
        for (int i = 0; i < 8; i++) vmgpu_cmd_copy(st, va + (i % 4) * GRAN, va + 4 * GRAN, GRAN);
        vmgpu_cmd_copy(st, hva, va, 4096);
        vmgpu_stream_submit(st, NULL);
    }
}

static void t_kill_client(void)
{
    open_dev();
    uint32_t before = free_bytes();
    int s;
    pid_t pid = spawn(victim, &s);
    unsigned vasid = recv_msg(s, NULL);
    usleep(100000);
    CHECK(free_bytes() < before);
    NOTE("the other process (ASID %u) holds %u bytes and keeps the device busy", vasid,
         before - free_bytes());
    kill(pid, SIGKILL);
    int rc = child_result(pid);
    NOTE("SIGKILLed it mid-run (status %d)", rc);
    /* the server goes on: this process works */
    OK(vmgpu_dev_ping(g_dev));
    vmgpu_ctx *c;
    vmgpu_stream *st;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &st));
    uint32_t pa, va;
    OK(vmgpu_phys_alloc(g_dev, 2 * GRAN, 0, &pa));
    OK(vmgpu_va_reserve(c, 2 * GRAN, 0, 0, &va));
    OK(vmgpu_map(c, va, pa, 2 * GRAN, RW));
    OK(device_fill(st, va, GRAN, 0x5a5a5a5a));
    OK(vmgpu_cmd_copy(st, va + GRAN, va, GRAN));
    OK(vmgpu_stream_sync(st));
    CHECK(words_are(c, va + GRAN, 0x5a5a5a5a, 64));
    OK(vmgpu_ctx_status(c, NULL, 0));
    NOTE("this process's fill and copy after the kill: %s", words_are(c, va + GRAN, 0x5a5a5a5a, 64) ? "right" : "WRONG");
    OK(vmgpu_unmap(c, va, 2 * GRAN));
    OK(vmgpu_phys_free(g_dev, pa));
    CHECK(free_bytes_become(before));
    NOTE("the killed process's memory (its export too) is free again: %s", free_bytes() == before ? "yes" : "NO");
    OK(vmgpu_stream_destroy(st));
    OK(vmgpu_ctx_destroy(c));
}

/* ------------------------------------------------------------ fault_isolation */

static void faulter(int s)
{
    open_dev();
    vmgpu_ctx *c;
    vmgpu_stream *st;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &st));
    uint32_t pa, va;
    OK(vmgpu_phys_alloc(g_dev, GRAN, 0, &pa));
    OK(vmgpu_va_reserve(c, 2 * GRAN, 0, 0, &va));
    OK(vmgpu_map(c, va, pa, GRAN, VMGPU_MAP_READ));
    recv_msg(s, NULL);
    OK(vmgpu_cmd_copy(st, va + 8, va + GRAN, 64));  /* reads an unmapped page */
    int rc = vmgpu_stream_sync(st);
    CHECK(rc == VMGPU_ERR_FAULT);
    char msg[256];
    CHECK(vmgpu_ctx_status(c, msg, sizeof msg) == VMGPU_ERR_CTX_FAULTED);
    NOTE("faulted: %s", vmgpu_dev_last_error(g_dev));
    send_msg(s, vmgpu_ctx_asid(c), -1);
    /* two more rounds: the faulting command goes first, the other process's work behind it;
     * then this process waits first (round 2) or the other one does (round 3) */
    for (int round = 2; round <= 3; round++) {
        recv_msg(s, NULL);
        OK(vmgpu_ctx_clear_fault(c));
        OK(vmgpu_cmd_copy(st, va + 8, va + GRAN, 64));
        OK(vmgpu_stream_submit(st, NULL));  /* queued, not run: the device runs in waits */
        send_msg(s, 0, -1);
        recv_msg(s, NULL);                  /* the other process queued its copy behind ours */
        if (round == 3) {
            send_msg(s, 0, -1);
            recv_msg(s, NULL);              /* ... and waited for it */
        }
        rc = vmgpu_stream_sync(st);
        CHECK(rc == VMGPU_ERR_FAULT || rc == VMGPU_ERR_CTX_FAULTED);
        NOTE("round %d: this process's wait: %s", round, vmgpu_status_name(rc));
        send_msg(s, 0, -1);
    }
    recv_msg(s, NULL);
}

static void t_fault_isolation(void)
{
    int s;
    pid_t pid = spawn(faulter, &s);
    open_dev();
    vmgpu_ctx *c;
    vmgpu_stream *st;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &st));
    uint32_t pa, va;
    OK(vmgpu_phys_alloc(g_dev, 2 * GRAN, 0, &pa));
    OK(vmgpu_va_reserve(c, 2 * GRAN, 0, 0, &va));
    OK(vmgpu_map(c, va, pa, 2 * GRAN, RW));
    OK(device_fill(st, va, GRAN, 0x600df00d));
    /* this process's copy is queued on the same ring before the other's faulting one */
    OK(vmgpu_cmd_copy(st, va + GRAN, va, GRAN));
    OK(vmgpu_stream_submit(st, NULL));
    send_msg(s, 0, -1);
    unsigned fasid = recv_msg(s, NULL);
    OK(vmgpu_stream_sync(st));
    CHECK(words_are(c, va + GRAN, 0x600df00d, 64));
    OK(vmgpu_ctx_status(c, NULL, 0));
    NOTE("the other process's ASID %u faulted on the same ring; this one (ASID %u): not faulted, "
         "its copy done: %s", fasid, vmgpu_ctx_asid(c), words_are(c, va + GRAN, 0x600df00d, 64) ? "yes" : "NO");
    OK(device_fill(st, va, GRAN, 0x0000beef));
    CHECK(words_are(c, va, 0x0000beef, 64));
    NOTE("and its work after the fault runs: %s", words_are(c, va, 0x0000beef, 64) ? "yes" : "NO");
    /* this process's copy queued behind the other's faulting command on the same ring: the
     * other process waits first (round 2) and meets the fault, or this one does (round 3) */
    for (int round = 2; round <= 3; round++) {
        uint32_t v = 0x0ddba110u + (uint32_t)round;
        OK(device_fill(st, va, GRAN, v));
        OK(device_fill(st, va + GRAN, GRAN, 0));
        send_msg(s, 0, -1);
        recv_msg(s, NULL);              /* its faulting copy is queued */
        OK(vmgpu_cmd_copy(st, va + GRAN, va, GRAN));
        OK(vmgpu_stream_submit(st, NULL));
        send_msg(s, 0, -1);
        if (round == 3) {
            recv_msg(s, NULL);
            OK(vmgpu_stream_sync(st));  /* meets the other process's fault first */
            send_msg(s, 0, -1);
        }
        recv_msg(s, NULL);
        OK(vmgpu_stream_sync(st));
        CHECK(words_are(c, va + GRAN, v, 64));
        OK(vmgpu_ctx_status(c, NULL, 0));
        NOTE("round %d: its copy, queued on the same ring behind the faulting command, ran "
             "(queued again after the reset%s): %s", round, round == 3 ? ", its own wait met the fault" : "",
             words_are(c, va + GRAN, v, 64) ? "yes" : "NO");
    }
    send_msg(s, 0, -1);
    CHECK(child_result(pid) == 0);
    OK(vmgpu_stream_destroy(st));
    OK(vmgpu_ctx_destroy(c));
}

/* ---------------------------------------------------------------- bad_inputs */

static void owner(int s)
{
    open_dev();
    vmgpu_ctx *c;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    uint32_t pa, ha;
    OK(vmgpu_phys_alloc(g_dev, GRAN, 0, &pa));
    void *host = mmap(NULL, GRAN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    OK(vmgpu_host_register(g_dev, host, GRAN, &ha));
    send_msg(s, pa, -1);
    send_msg(s, ha, -1);
    recv_msg(s, NULL);
}

static void t_bad_inputs(void)
{
    int s, nbad = 0;
    pid_t pid = spawn(owner, &s);
    open_dev();
    uint32_t other_pa = recv_msg(s, NULL), other_ha = recv_msg(s, NULL);
    vmgpu_ctx *c;
    vmgpu_stream *st;
    OK(vmgpu_ctx_create(g_dev, 0, &c));
    OK(vmgpu_stream_create(c, 0, &st));
    uint32_t pa, va, out, size;
    OK(vmgpu_phys_alloc(g_dev, GRAN, 0, &pa));
    OK(vmgpu_va_reserve(c, 4 * GRAN, 0, 0, &va));
    uint32_t w = 0;
    /* another process's memory: not reachable by address */
    /* (to a process another's memory is no allocation: the core's own INVALID for that) */
    BAD(vmgpu_map(c, va, other_pa, GRAN, RW), VMGPU_ERR_INVALID);
    BAD(vmgpu_map(c, va, other_ha, GRAN, RW | VMGPU_MAP_HOST), VMGPU_ERR_INVALID);
    BAD(vmgpu_stream_map(st, va, other_pa, GRAN, RW), VMGPU_ERR_INVALID);
    BAD(vmgpu_phys_write(g_dev, other_pa, &w, 4), VMGPU_ERR_NOT_FOUND);
    BAD(vmgpu_phys_read(g_dev, other_pa, &w, 4), VMGPU_ERR_NOT_FOUND);
    BAD(vmgpu_phys_free(g_dev, other_pa), VMGPU_ERR_NOT_FOUND);
    int fd = -1;
    BAD(vmgpu_phys_export(g_dev, other_pa, &fd), VMGPU_ERR_NOT_FOUND);
    BAD(vmgpu_cmd_timestamp(st, other_pa), VMGPU_ERR_NOT_FOUND);
    BAD(vmgpu_map(c, va, pa + GRAN, GRAN, RW), VMGPU_ERR_INVALID);  /* past the own allocation */
    /* the core's own argument checks still come first */
    BAD(vmgpu_map(c, va + 8, pa, GRAN, RW), VMGPU_ERR_INVALID);
    BAD(vmgpu_phys_write(g_dev, 0xfffffff0u, &w, 4), VMGPU_ERR_INVALID);
    BAD(vmgpu_cmd_timestamp(st, 3), VMGPU_ERR_INVALID);
    /* raw commands could bind another ASID or write page tables */
    uint32_t nop = 0;
    BAD(vmgpu_cmd_raw(st, &nop, 1), VMGPU_ERR_INVALID);
    /* descriptors */
    BAD(vmgpu_phys_import(g_dev, -1, &out, &size), VMGPU_ERR_INVALID);
    int closed = dup(1);
    close(closed);
    BAD(vmgpu_phys_import(g_dev, closed, &out, &size), VMGPU_ERR_INVALID);
    int p[2];
    CHECK(pipe(p) == 0);
    BAD(vmgpu_phys_import(g_dev, p[1], &out, &size), VMGPU_ERR_NOT_FOUND);  /* forged: a pipe of ours */
    int m = memfd_create("vmgpu-alloc-1000", 0);
    BAD(vmgpu_phys_import(g_dev, m, &out, &size), VMGPU_ERR_NOT_FOUND);  /* forged: a look-alike */
    BAD(vmgpu_phys_import(g_dev, p[1], NULL, &size), VMGPU_ERR_INVALID);
    BAD(vmgpu_phys_export(g_dev, pa, NULL), VMGPU_ERR_INVALID);
    BAD(vmgpu_phys_export(g_dev, pa + 4096, &fd), VMGPU_ERR_NOT_FOUND);
    /* an export whose memory is gone: its descriptor names nothing any more */
    OK(vmgpu_phys_export(g_dev, pa, &fd));
    int keep = dup(fd);
    close(fd);
    OK(vmgpu_phys_free(g_dev, pa));
    CHECK_RC(vmgpu_phys_import(g_dev, keep, &out, &size), VMGPU_OK);  /* still open: still alive */
    OK(vmgpu_phys_free(g_dev, out));
    close(keep);
    close(p[0]);
    close(p[1]);
    close(m);
    /* host registration */
    char *h = mmap(NULL, 2 * GRAN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    BAD(vmgpu_host_register(g_dev, h + 8, GRAN, &out), VMGPU_ERR_INVALID);
    BAD(vmgpu_host_register(g_dev, h, 0, &out), VMGPU_ERR_INVALID);
    BAD(vmgpu_host_register(g_dev, h, GRAN, NULL), VMGPU_ERR_INVALID);
    BAD(vmgpu_host_unregister(g_dev, h), VMGPU_ERR_NOT_FOUND);
    /* rings and fences */
    BAD(vmgpu_fence_wait(g_dev, 99, 1), VMGPU_ERR_INVALID);
    BAD(vmgpu_ring_faulted(g_dev, 99), VMGPU_ERR_INVALID);
    /* the stand-in transport: read-only views, never the memory port */
    vmgpu_hal *th = vmgpu_dev_hal(g_dev);
    uint32_t v = 0, word = 0;
    CHECK(th != NULL && vmgpu_reg_read(th, VMGPU_REG_ID, &v) == VMGPU_HAL_OK && v == VMGPU_ID_MAGIC);
    CHECK(vmgpu_reg_read(th, VMGPU_REG_TLB_MISSES, &v) == VMGPU_HAL_OK);
    CHECK(vmgpu_reg_read(th, VMGPU_REG_MEM_DATA, &v) == VMGPU_HAL_EINVAL);
    CHECK(vmgpu_reg_read(th, VMGPU_REG_MEM_ADDR, &v) == VMGPU_HAL_EINVAL);
    CHECK(vmgpu_reg_read(th, 0x2, &v) == VMGPU_HAL_EINVAL);
    CHECK(vmgpu_reg_write(th, VMGPU_REG_MEM_ADDR, 0) == VMGPU_HAL_EINVAL);
    CHECK(vmgpu_reg_write(th, VMGPU_RING_REG(0, VMGPU_RING_CTRL), 0) == VMGPU_HAL_EINVAL);
    CHECK(vmgpu_mem_read(th, other_pa, &word, 1) == VMGPU_HAL_EINVAL);
    CHECK(vmgpu_mem_write(th, other_pa, &word, 1) == VMGPU_HAL_EINVAL);
    uint64_t t0 = th->round_trips;
    OK(vmgpu_dev_ping(g_dev));
    CHECK(th->round_trips >= t0);
    NOTE("the stand-in transport: ID reads 0x%08x; the memory port, ring control and another "
         "process's memory refused", VMGPU_ID_MAGIC);
    /* a forked child has no connection: the parent's answers are not its */
    fflush(stdout);
    pid_t kid = fork();
    if (kid == 0) _exit(vmgpu_dev_ping(g_dev) == VMGPU_ERR_IO ? 0 : 1);
    int kst = 0;
    waitpid(kid, &kst, 0);
    CHECK(WIFEXITED(kst) && WEXITSTATUS(kst) == 0);
    OK(vmgpu_dev_ping(g_dev));
    NOTE("a child forked after the open: VMGPU_ERR_IO on the parent's connection, the parent goes on");
    NOTE("%d bad calls: the documented errors, the state hash unchanged after each", nbad);
    /* the in-process device shares nothing */
    vmgpu_dev *local = NULL;
    char err[256];
    if (vmgpu_dev_open("sim-inproc", &local, err, sizeof err) == VMGPU_OK) {
        CHECK(!vmgpu_dev_is_remote(local));
        int lfd;
        CHECK(vmgpu_phys_export(local, 0x100000, &lfd) == VMGPU_ERR_INVALID);
        CHECK(vmgpu_phys_import(local, 0, &out, &size) == VMGPU_ERR_INVALID);
        vmgpu_dev_close(local);
        NOTE("export/import on an in-process device: VMGPU_ERR_INVALID");
    }
    /* VMGPU_SERVER=1 sends the plain forms to their servers; sim-inproc stays in the process */
    setenv("VMGPU_SERVER", "1", 1);
    vmgpu_dev *via = NULL, *inproc = NULL;
    CHECK(vmgpu_dev_open("sim", &via, err, sizeof err) == VMGPU_OK && vmgpu_dev_is_remote(via));
    CHECK(vmgpu_dev_open("sim-inproc", &inproc, err, sizeof err) == VMGPU_OK && !vmgpu_dev_is_remote(inproc));
    NOTE("VMGPU_SERVER=1: 'sim' through the server: %s; 'sim-inproc' in this process: %s",
         via && vmgpu_dev_is_remote(via) ? "yes" : "NO", inproc && !vmgpu_dev_is_remote(inproc) ? "yes" : "NO");
    vmgpu_dev_close(via);
    vmgpu_dev_close(inproc);
    /* the default: a plain form through its server; VMGPU_SERVER=0 in the process; a bad value
     * of either variable refused with its reason, before any server starts */
    unsetenv("VMGPU_SERVER");
    via = inproc = NULL;
    CHECK(vmgpu_dev_open("sim", &via, err, sizeof err) == VMGPU_OK && vmgpu_dev_is_remote(via));
    vmgpu_dev_close(via);
    setenv("VMGPU_SERVER", "0", 1);
    CHECK(vmgpu_dev_open("sim", &inproc, err, sizeof err) == VMGPU_OK && !vmgpu_dev_is_remote(inproc));
    vmgpu_dev_close(inproc);
    unsetenv("VMGPU_SERVER");
    /* layout options: the device's owner lays it out, so they open in the process; a server
     * named explicitly cannot take them */
    vmgpu_dev_options lay = {.ring_bytes = 256};
    inproc = NULL;
    CHECK(vmgpu_dev_open_ex("sim", &lay, &inproc, err, sizeof err) == VMGPU_OK && !vmgpu_dev_is_remote(inproc));
    vmgpu_dev_close(inproc);
    via = NULL;
    CHECK(vmgpu_dev_open_ex("vmgpud", &lay, &via, err, sizeof err) == VMGPU_ERR_INVALID && !via);
    setenv("VMGPU_SERVER", "2", 1);
    via = NULL;
    CHECK(vmgpu_dev_open("sim", &via, err, sizeof err) == VMGPU_ERR_INVALID && !via && strstr(err, "VMGPU_SERVER"));
    unsetenv("VMGPU_SERVER");
    char sock[300], saved[256];
    snprintf(saved, sizeof saved, "%s", getenv("VMGPU_SERVER_SOCKET") ? getenv("VMGPU_SERVER_SOCKET") : "");
    snprintf(sock, sizeof sock, "%s.bogus", saved[0] ? saved : "/tmp/vmgpu-bad-inputs");
    setenv("VMGPU_SERVER_SOCKET", sock, 1);  /* where a server for it would listen */
    CHECK(vmgpu_dev_open("no-such-device", &via, err, sizeof err) == VMGPU_ERR_NODEV && !via &&
          strstr(err, "accepted forms") && access(sock, F_OK) != 0);
    NOTE("default 'sim' through the server, VMGPU_SERVER=0 in the process, VMGPU_SERVER=2 and a bad "
         "device refused before a server starts: %s", err);
    if (saved[0]) setenv("VMGPU_SERVER_SOCKET", saved, 1);
    else unsetenv("VMGPU_SERVER_SOCKET");
    send_msg(s, 0, -1);
    CHECK(child_result(pid) == 0);
}

/* ---------------------------------------------------------------------- fuzz */

/* Malformed and random requests on a raw connection: each gets an answer (an error where it is
 * wrong), the server never dies, and it frees what the connection made when it closes. */
static int raw_connect(void)
{
    const char *path = getenv("VMGPU_SERVER_SOCKET");
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path ? path : "");
    if (!path || connect(s, (struct sockaddr *)&sa, sizeof sa)) {
        printf("FAIL: cannot connect to %s: %s\n", path ? path : "(VMGPU_SERVER_SOCKET unset)", strerror(errno));
        exit(1);
    }
    struct timeval tv = {30, 0};
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return s;
}

static int raw_send(int s, const void *msg, size_t len, const int *fds, int nfds)
{
    struct iovec iov = {(void *)msg, len};
    union {
        char buf[CMSG_SPACE(4 * sizeof(int))];
        struct cmsghdr align;
    } cm;
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds) {
        memset(&cm, 0, sizeof cm);
        mh.msg_control = cm.buf;
        mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
        memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
    }
    return sendmsg(s, &mh, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

/* The answer's status, or 1000 when none came (or it was malformed). */
static int raw_answer(int s, uint64_t *ret)
{
    struct {
        vmgpu_rep h;
        char text[VMGPU_PROTO_TEXT_MAX];
    } a;
    char cbuf[CMSG_SPACE(4 * sizeof(int))];
    struct iovec iov = {&a, sizeof a};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
    ssize_t n = recvmsg(s, &mh, MSG_CMSG_CLOEXEC);
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
        if (c->cmsg_type == SCM_RIGHTS) {
            int fd;
            memcpy(&fd, CMSG_DATA(c), sizeof fd);
            close(fd);
        }
    if (n < (ssize_t)sizeof a.h || a.h.magic != VMGPU_PROTO_MAGIC || (size_t)n != sizeof a.h + a.h.textlen)
        return 1000;
    if (ret) memcpy(ret, a.h.ret, sizeof a.h.ret);
    return a.h.status;
}

static vmgpu_req req(unsigned op)
{
    vmgpu_req q = {.magic = VMGPU_PROTO_MAGIC, .version = VMGPU_PROTO_VERSION, .op = (uint16_t)op};
    return q;
}

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void t_fuzz(void)
{
    open_dev();  /* starts the server if needed; this connection checks it afterwards */
    uint32_t before = free_bytes();
    int s = raw_connect();
    int nmal = 0;
    vmgpu_req q = req(VMGPU_MSG_NOOP);
#define MAL(desc, ...) do { int st_ = (__VA_ARGS__); CHECK(st_ < 0 && st_ != 1000); nmal++; \
    if (!(st_ < 0 && st_ != 1000)) printf("    %s -> %d\n", desc, st_); } while (0)
    char junk[sizeof q + 200];
    memset(junk, 0xa5, sizeof junk);
    raw_send(s, junk, 1, NULL, 0);
    MAL("1 byte", raw_answer(s, NULL));
    raw_send(s, &q, sizeof q - 4, NULL, 0);
    MAL("short", raw_answer(s, NULL));
    raw_send(s, junk, sizeof junk, NULL, 0);
    MAL("long", raw_answer(s, NULL));
    vmgpu_req b = q;
    b.magic = 0x12345678;
    raw_send(s, &b, sizeof b, NULL, 0);
    MAL("magic", raw_answer(s, NULL));
    b = q;
    b.version = 99;
    raw_send(s, &b, sizeof b, NULL, 0);
    MAL("version", raw_answer(s, NULL));
    b = q;
    b.reserved = 1;
    raw_send(s, &b, sizeof b, NULL, 0);
    MAL("reserved", raw_answer(s, NULL));
    b = req(0);
    raw_send(s, &b, sizeof b, NULL, 0);
    MAL("op 0", raw_answer(s, NULL));
    b = req(VMGPU_MSG_COUNT + 7);
    raw_send(s, &b, sizeof b, NULL, 0);
    MAL("op past the end", raw_answer(s, NULL));
    b = req(VMGPU_MSG_PHYS_ALLOC);
    b.arg[0] = GRAN;
    raw_send(s, &b, sizeof b, NULL, 0);
    MAL("before HELLO", raw_answer(s, NULL));
    b = req(VMGPU_MSG_HELLO);
    raw_send(s, &b, sizeof b, NULL, 0);
    MAL("HELLO without fds", raw_answer(s, NULL));
    int p[2];
    CHECK(pipe(p) == 0);
    int fds[2] = {p[0], 2};
    raw_send(s, &b, sizeof b, fds, 2);
    MAL("HELLO with a pipe for the bulk buffer", raw_answer(s, NULL));
    int small = memfd_create("small", 0);
    CHECK(ftruncate(small, 4096) == 0);
    fds[0] = small;
    raw_send(s, &b, sizeof b, fds, 2);
    MAL("HELLO with a small bulk buffer", raw_answer(s, NULL));
    int bulk = memfd_create("bulk", 0);
    CHECK(ftruncate(bulk, VMGPU_PROTO_BULK_BYTES) == 0);
    fds[0] = bulk;
    b.arg[0] = (uint64_t)getpid();
    raw_send(s, &b, sizeof b, fds, 2);
    CHECK(raw_answer(s, NULL) == VMGPU_OK);
    raw_send(s, &b, sizeof b, fds, 2);
    MAL("HELLO twice", raw_answer(s, NULL));
    b = req(VMGPU_MSG_NOOP);
    raw_send(s, &b, sizeof b, fds, 1);
    MAL("a descriptor with NOOP", raw_answer(s, NULL));
    b = req(VMGPU_MSG_IMPORT);
    raw_send(s, &b, sizeof b, NULL, 0);
    MAL("IMPORT without a descriptor", raw_answer(s, NULL));
    b = req(VMGPU_MSG_PHYS_WRITE);
    b.arg[0] = 0x100000;
    b.arg[1] = VMGPU_PROTO_BULK_BYTES + 1;
    raw_send(s, &b, sizeof b, NULL, 0);
    MAL("PHYS_WRITE past the bulk buffer", raw_answer(s, NULL));
    b = req(VMGPU_MSG_CTX_DESTROY);
    b.arg[0] = 1;
    raw_send(s, &b, sizeof b, NULL, 0);
    MAL("a context id never made", raw_answer(s, NULL));
    b = req(VMGPU_MSG_MAP);
    b.arg[0] = 1ull << 40;
    raw_send(s, &b, sizeof b, NULL, 0);
    MAL("a huge context id", raw_answer(s, NULL));
    b = req(VMGPU_MSG_PHYS_ALLOC);
    b.arg[0] = 1ull << 33;
    raw_send(s, &b, sizeof b, NULL, 0);
    MAL("a size past 32 bits", raw_answer(s, NULL));
    NOTE("%d malformed requests: each answered with an error", nmal);
    /* random requests: random operations (the ones that cannot block the device for long),
     * arguments small or wild */
    uint64_t x = 0x9e3779b97f4a7c15ull;
    int answered = 0, n = 3000;
    for (int i = 0; i < n; i++) {
        b = req(1 + (unsigned)(rnd(&x) % (VMGPU_MSG_COUNT - 1)));
        if (b.op == VMGPU_MSG_HELLO || b.op == VMGPU_MSG_CMD_WAIT_FENCE || b.op == VMGPU_MSG_RUN_IDLE) continue;
        for (int k = 0; k < VMGPU_PROTO_NARGS; k++) {
            uint64_t r = rnd(&x);
            b.arg[k] = (r & 3) == 0 ? r : (r & 3) == 1 ? (r >> 8) % 8 : (r & 3) == 2 ? ((r >> 8) & 0xfff) << 16 : (r >> 8) & 0xffff;
        }
        if (b.op == VMGPU_MSG_POLL) b.arg[0] &= 0xffff;
        int nf = b.op == VMGPU_MSG_IMPORT ? 1 : 0;
        int ifd = p[1];
        if (raw_send(s, &b, sizeof b, nf ? &ifd : NULL, nf)) break;
        if (raw_answer(s, NULL) != 1000) answered++;
    }
    CHECK(answered > 0);
    NOTE("random requests: %d answered, the connection still open", answered);
    close(s);
    close(p[0]);
    close(p[1]);
    close(small);
    close(bulk);
    OK(vmgpu_dev_ping(g_dev));
    CHECK(free_bytes_become(before));
    NOTE("the server still serves; what the fuzzing connection made is freed: %s",
         free_bytes() == before ? "yes" : "NO");
}

/* ---------------------------------------------------------------------- main */

static const struct { const char *name; void (*fn)(void); } cases[] = {
    {"two_process", t_two_process},
    {"kill_client", t_kill_client},
    {"fault_isolation", t_fault_isolation},
    {"bad_inputs", t_bad_inputs},
    {"fuzz", t_fuzz},
};

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (argc == 2 && strcmp(argv[1], cases[i].name) == 0) {
            printf("server test %s\n", cases[i].name);
            cases[i].fn();
            if (g_dev) vmgpu_dev_close(g_dev);
            printf("%s: %s\n", cases[i].name, fails ? "FAILED" : "passed");
            return fails ? 1 : 0;
        }
    fprintf(stderr, "usage: vmgpu_server_tests CASE (two_process kill_client fault_isolation "
                    "bad_inputs fuzz)\n");
    return 2;
}
