/*
 * vmgpud: the device server. It opens one device (any VMGPU_DEVICE form), owns the driver
 * core's privileged state for it (physical memory, ASIDs and page tables, rings and fences,
 * faults, the MMU event FIFO) and serves processes over a Unix socket, each in its own address
 * spaces, the way a GPU's kernel-mode driver serves its user-mode libraries. docs/server.md.
 *
 *   vmgpud [--device SPEC] [--socket PATH] [--grace-ms N] [--ready-fd FD]
 *
 * Started by the first client of VMGPU_DEVICE=vmgpud[:SPEC] (or by hand); one per socket
 * (a lock file beside it); it leaves when its last client has gone and no exported descriptor
 * is open any more, after a grace period (default 2000 ms; VMGPU_SERVER_GRACE_MS).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core_internal.h"
#include "remote.h"
#include "server.h"

#define MAX_CLIENTS 256
#define MAX_PIPES 1024

static void say_ready(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say_ready(int fd, const char *fmt, ...)
{
    char line[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (fd >= 0) {
        dprintf(fd, "%s\n", line);
        close(fd);
    }
    if (strcmp(line, "ok") != 0 && strcmp(line, "running") != 0) fprintf(stderr, "vmgpud: %s\n", line);
}

static int usage(void)
{
    fprintf(stderr, "usage: vmgpud [--device SPEC] [--socket PATH] [--grace-ms N] [--ready-fd FD]\n"
                    "  SPEC: sim | sim-board | serial:/dev/ttyUSB0[@baud] | ftdi[:vid:pid[:serial]]\n");
    return 2;
}

static int listen_on(const char *path)
{
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (s < 0) return -1;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    unlink(path);  /* a socket left by a server that died; the lock says none runs now */
    mode_t old = umask(0077);  /* one user's server: nobody else may connect */
    int rc = bind(s, (struct sockaddr *)&sa, sizeof sa);
    umask(old);
    if (rc || listen(s, 64)) {
        close(s);
        return -1;
    }
    return s;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void serve(int ls, uint64_t grace_ms)
{
    static srv_client *clients[MAX_CLIENTS];
    static struct pollfd pf[1 + MAX_CLIENTS + MAX_PIPES];
    static int pipes[MAX_PIPES];
    size_t nclients = 0;
    uint64_t idle_since = now_ms();
    for (;;) {
        size_t npipes = srv_pipe_fds(pipes, MAX_PIPES);
        if (npipes > MAX_PIPES) npipes = MAX_PIPES;
        if (nclients || npipes) idle_since = 0;
        else if (!idle_since) idle_since = now_ms();
        if (idle_since && now_ms() - idle_since >= grace_ms) {
            /* A client may have connected just now: serve it rather than leave it hanging. */
            struct pollfd lp = {.fd = ls, .events = POLLIN};
            if (poll(&lp, 1, 0) <= 0) return;
            idle_since = 0;
        }
        size_t n = 0;
        pf[n++] = (struct pollfd){.fd = ls, .events = POLLIN};
        for (size_t i = 0; i < nclients; i++) pf[n++] = (struct pollfd){.fd = clients[i]->sock, .events = POLLIN};
        for (size_t i = 0; i < npipes; i++) pf[n++] = (struct pollfd){.fd = pipes[i], .events = POLLIN};
        int k = poll(pf, n, idle_since ? 100 : 1000);
        if (k < 0 && errno != EINTR) return;
        if (k <= 0) continue;
        /* Hang-ups of export descriptors first: a client that closed its last copy and then
         * asks how much memory is free must see the memory back. Then the clients, then new
         * connections. */
        for (size_t i = 0; i < npipes; i++) {
            short re = pf[1 + nclients + i].revents;
            char junk[256];
            if (re & POLLIN) while (read(pipes[i], junk, sizeof junk) > 0) {}
            if (re & (POLLHUP | POLLERR)) srv_pipe_hangup(pipes[i]);
        }
        for (size_t i = nclients; i-- > 0;) {
            short re = pf[1 + i].revents;
            if (!re) continue;
            if ((re & POLLIN) ? srv_client_serve(clients[i]) < 0 : (re & (POLLHUP | POLLERR | POLLNVAL)) != 0) {
                srv_client_drop(clients[i]);
                clients[i] = clients[--nclients];
            }
        }
        if (pf[0].revents & POLLIN) {
            int s = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
            if (s < 0) continue;
            srv_client *c = nclients < MAX_CLIENTS ? srv_client_new(s) : NULL;
            if (!c) close(s);
            else clients[nclients++] = c;
        }
    }
}

int main(int argc, char **argv)
{
    const char *spec = "sim", *path = NULL;
    int ready = -1;
    uint64_t grace = 2000;
    const char *g = getenv("VMGPU_SERVER_GRACE_MS");
    if (g && *g) grace = strtoull(g, NULL, 0);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) spec = argv[++i];
        else if (!strcmp(argv[i], "--socket") && i + 1 < argc) path = argv[++i];
        else if (!strcmp(argv[i], "--grace-ms") && i + 1 < argc) grace = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--ready-fd") && i + 1 < argc) ready = atoi(argv[++i]);
        else return usage();
    }
    if (ready >= 0) fcntl(ready, F_SETFD, FD_CLOEXEC);
    setenv("VMGPU_SERVER", "0", 1);  /* the server opens the device itself, in its process */
    signal(SIGPIPE, SIG_IGN);
    if (remote_spec(spec)) {
        say_ready(ready, "--device %s: the server needs a device, not another server", spec);
        return 2;
    }
    char pbuf[108];
    if (!path) {
        if (remote_socket_path(spec, pbuf, sizeof pbuf)) {
            say_ready(ready, "no usable socket directory (give --socket)");
            return 1;
        }
        path = pbuf;
    }
    if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        say_ready(ready, "socket path too long: %s", path);
        return 1;
    }
    /* One server per socket: whoever holds the lock serves; a second one leaves quietly. */
    char lockp[4200];
    snprintf(lockp, sizeof lockp, "%s.lock", path);
    int lock = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock < 0) {
        say_ready(ready, "lock %s: %s", lockp, strerror(errno));
        return 1;
    }
    /* Held by a server that serves: leave it that. Held by one on its way out (idle, it
     * has unlinked its socket and is closing the device): wait for it, then serve. */
    for (int tries = 0; flock(lock, LOCK_EX | LOCK_NB); tries++) {
        if (tries >= 1000 || access(path, F_OK) == 0) {
            say_ready(ready, "running");
            return 0;
        }
        usleep(10000);
    }
    char err[320] = "";
    if (vmgpu_dev_open(spec, &g_srv.dev, err, sizeof err)) {
        say_ready(ready, "cannot open device '%s': %s", spec, err);
        return 1;
    }
    int ls = listen_on(path);
    if (ls < 0) {
        say_ready(ready, "listen on %s: %s", path, strerror(errno));
        vmgpu_dev_close(g_srv.dev);
        return 1;
    }
    g_srv.saved_stderr = fcntl(2, F_DUPFD_CLOEXEC, 3);
    say_ready(ready, "ok");
    serve(ls, grace);
    unlink(path);      /* from now on a new client starts a new server (it waits for the lock) */
    serve(ls, 0);      /* ... and one that connected meanwhile is still served */
    close(ls);
    vmgpu_dev_close(g_srv.dev);
    close(lock);  /* the lock file stays: removing it would race a starting server */
    return 0;
}
