/*
 * The core's client side (VMGPU_DEVICE=vmgpud[:spec]): every call is one request to the
 * per-user device server and one answer (proto.h), so the device, its physical memory, page
 * tables, rings and faults stay in one place however many processes use it. The first client
 * starts the server; bulk data goes through a memfd both sides map; this process keeps only
 * handles (the server's ids) and the list of its own host registrations.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "remote.h"

#define BULK VMGPU_PROTO_BULK_BYTES

typedef struct host_reg {
    uintptr_t ptr;
    size_t size;
    uint32_t haddr;
    int shared;  /* the range was turned into a shared memfd mapping (share_in_place) */
} host_reg;

struct vmgpu_remote {
    vmgpu_hal proxy;    /* first: vmgpu_dev_hal's answer (proxy_of() casts back) */
    vmgpu_dev *dev;
    int sock;
    pid_t owner;        /* the process that connected: a forked child has no connection */
    uint32_t seq;
    uint8_t *bulk;
    int bulk_fd;
    pid_t server_pid;
    host_reg *regs;
    size_t nregs, capregs;
    void **objs;        /* contexts, streams and events made here (freed at close) */
    size_t nobjs, capobjs;
};

/* ------------------------------------------------------------------ naming, starting */

int remote_spec(const char *spec)
{
    return spec && (strcmp(spec, "vmgpud") == 0 || strncmp(spec, "vmgpud:", 7) == 0);
}

const char *remote_device_of(const char *spec)
{
    return (spec && strncmp(spec, "vmgpud:", 7) == 0 && spec[7]) ? spec + 7 : "sim";
}

int remote_socket_path(const char *devspec, char *buf, size_t len)
{
    const char *env = getenv("VMGPU_SERVER_SOCKET");
    if (env && *env) return (size_t)snprintf(buf, len, "%s", env) < len ? 0 : -1;
    char dir[PATH_MAX];
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg && *xdg && access(xdg, W_OK) == 0) {
        snprintf(dir, sizeof dir, "%s", xdg);
    } else {
        snprintf(dir, sizeof dir, "/tmp/vmgpu-%u", (unsigned)getuid());
        struct stat st;
        if (mkdir(dir, 0700) && errno != EEXIST) return -1;
        if (stat(dir, &st) || st.st_uid != getuid()) return -1;  /* not ours: never use it */
    }
    /* VMGPU_SIM_MEMORY makes another simulated device (its memory system): a server of its own */
    char spec[96];
    const char *mem = getenv("VMGPU_SIM_MEMORY");
    if (strcmp(devspec, "sim") == 0 && mem && *mem && strcmp(mem, "bram") != 0)
        snprintf(spec, sizeof spec, "sim+%s", mem);
    else
        snprintf(spec, sizeof spec, "%s", devspec);
    char name[96];
    size_t k = 0;
    for (const char *p = spec; *p && k + 1 < sizeof name; p++)
        name[k++] = (char)((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' ? *p : '_');
    name[k] = 0;
    return (size_t)snprintf(buf, len, "%s/vmgpud-%s.sock", dir, name) < len ? 0 : -1;
}

/* The server binary: $VMGPU_SERVER_BIN, bin/vmgpud beside the library that holds this code
 * (the install layout: lib/ and bin/ side by side), the build tree's, then $PATH. */
static void server_candidates(char out[3][PATH_MAX])
{
    out[0][0] = out[1][0] = out[2][0] = 0;
    const char *env = getenv("VMGPU_SERVER_BIN");
    if (env && *env) snprintf(out[0], PATH_MAX, "%s", env);
    Dl_info di;
    if (dladdr((void *)remote_spec, &di) && di.dli_fname) {
        char lib[PATH_MAX];
        snprintf(lib, sizeof lib, "%s", di.dli_fname);
        char *slash = strrchr(lib, '/');
        if (slash) {
            *slash = 0;
            snprintf(out[1], PATH_MAX, "%.3800s/../bin/vmgpud", lib);
        }
    }
#ifdef VMGPUD_BUILD_PATH
    snprintf(out[2], PATH_MAX, "%s", VMGPUD_BUILD_PATH);
#endif
}

/* Start the server detached (double fork) and wait until it says it listens (or why not). */
static int spawn_server(const char *devspec, const char *path, char *err, size_t errlen)
{
    char cand[3][PATH_MAX];
    server_candidates(cand);
    const char *bin = NULL;
    for (int i = 0; i < 3 && !bin; i++)
        if (cand[i][0] && access(cand[i], X_OK) == 0) bin = cand[i];
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC)) {
        snprintf(err, errlen, "device server: pipe: %s", strerror(errno));
        return VMGPU_ERR_IO;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        snprintf(err, errlen, "device server: fork: %s", strerror(errno));
        return VMGPU_ERR_IO;
    }
    if (pid == 0) {
        setsid();
        if (fork() != 0) _exit(0);
        char rfd[16];
        snprintf(rfd, sizeof rfd, "%d", pfd[1]);
        fcntl(pfd[1], F_SETFD, 0);  /* the ready pipe survives exec */
        /* Nothing of the starting process's: its stdout and stderr stay open only as long as it
         * runs (a test harness waits for them to close). What the server says outside a request
         * goes to PATH.log beside the socket; during a request its stderr is the client's. */
        int devnull = open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            dup2(devnull, 0);
            dup2(devnull, 1);
        }
        char logp[PATH_MAX];
        snprintf(logp, sizeof logp, "%.4000s.log", path);
        int logfd = open(logp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (logfd >= 0) dup2(logfd, 2);
        else if (devnull >= 0) dup2(devnull, 2);
        if (bin) execl(bin, "vmgpud", "--device", devspec, "--socket", path, "--ready-fd", rfd, (char *)NULL);
        else execlp("vmgpud", "vmgpud", "--device", devspec, "--socket", path, "--ready-fd", rfd, (char *)NULL);
        dprintf(pfd[1], "cannot run vmgpud (%s): %s\n", bin ? bin : "vmgpud in PATH", strerror(errno));
        _exit(127);
    }
    close(pfd[1]);
    waitpid(pid, NULL, 0);
    char line[300];
    size_t n = 0;
    ssize_t k;
    while (n + 1 < sizeof line && (k = read(pfd[0], line + n, sizeof line - 1 - n)) > 0) {
        n += (size_t)k;
        if (memchr(line, '\n', n)) break;
    }
    close(pfd[0]);
    line[n] = 0;
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    if (strcmp(line, "ok") == 0 || strcmp(line, "running") == 0) return VMGPU_OK;
    snprintf(err, errlen, "device server for '%s' did not start: %s", devspec,
             n ? line : "it exited without a word");
    return VMGPU_ERR_NODEV;
}

static int connect_to(const char *path)
{
    int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (s < 0) return -1;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    if (connect(s, (struct sockaddr *)&sa, sizeof sa) == 0) return s;
    int e = errno;
    close(s);
    errno = e;
    return -1;
}

/* ---------------------------------------------------------------------- one call */

static int send_req(int sock, const vmgpu_req *q, const int *fds, int nfds)
{
    struct iovec iov = {(void *)q, sizeof *q};
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
    ssize_t n;
    do n = sendmsg(sock, &mh, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof *q ? 0 : -1;
}

/* Send op with args (and fds), wait for the answer; ret (may be NULL) gets its 4 values,
 * text (may be NULL) its text, *fd_out (may be NULL) an fd that came with it. */
static int call_full(const vmgpu_dev *cdev, unsigned op, const uint64_t *args, unsigned nargs,
                     const int *fds, int nfds, uint64_t *ret, char *text, size_t textlen,
                     int *fd_out)
{
    vmgpu_dev *dev = (vmgpu_dev *)cdev;  /* the error text is the one mutable part */
    struct vmgpu_remote *r = dev->remote;
    vmgpu_req q = {.magic = VMGPU_PROTO_MAGIC, .version = VMGPU_PROTO_VERSION, .op = (uint16_t)op,
                   .seq = ++r->seq};
    for (unsigned i = 0; i < nargs && i < VMGPU_PROTO_NARGS; i++) q.arg[i] = args[i];
    if (fd_out) *fd_out = -1;
    /* After fork the child shares the parent's socket: its requests would mix with the
     * parent's answers. The device state behind it is the parent's anyway (as with a GPU, a
     * process opens the device after fork). */
    if (getpid() != r->owner)
        return core_fail(dev, VMGPU_ERR_IO, "device server: this connection belongs to process %d "
                         "(opened before fork); open the device in this process", (int)r->owner);
    if (r->sock < 0 || send_req(r->sock, &q, fds, nfds))
        return core_fail(dev, VMGPU_ERR_IO, "device server: connection lost (send: %s)",
                         strerror(errno));
    struct {
        vmgpu_rep h;
        char text[VMGPU_PROTO_TEXT_MAX];
    } a;
    union {
        char buf[CMSG_SPACE(4 * sizeof(int))];
        struct cmsghdr align;
    } cm;
    struct iovec iov = {&a, sizeof a};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.buf,
                        .msg_controllen = sizeof cm.buf};
    ssize_t n;
    do n = recvmsg(r->sock, &mh, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            int nf = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            int got[4];
            memcpy(got, CMSG_DATA(c), (size_t)nf * sizeof(int));
            for (int i = 0; i < nf; i++) {
                if (fd_out && *fd_out < 0) *fd_out = got[i];
                else close(got[i]);
            }
        }
    if (n >= 8 && a.h.magic == VMGPU_PROTO_MAGIC && a.h.version != VMGPU_PROTO_VERSION) {
        if (fd_out && *fd_out >= 0) close(*fd_out);
        if (fd_out) *fd_out = -1;
        return core_fail(dev, VMGPU_ERR_NODEV, "device server speaks protocol version %u, this "
                         "library %u (a server of another build: it leaves when idle, or set "
                         "VMGPU_SERVER_SOCKET)", a.h.version, VMGPU_PROTO_VERSION);
    }
    if (n < (ssize_t)sizeof a.h || a.h.magic != VMGPU_PROTO_MAGIC || a.h.seq != q.seq ||
        a.h.textlen > VMGPU_PROTO_TEXT_MAX || (size_t)n != sizeof a.h + a.h.textlen) {
        if (fd_out && *fd_out >= 0) close(*fd_out);
        if (fd_out) *fd_out = -1;
        return core_fail(dev, VMGPU_ERR_IO, "device server: connection lost (%s)",
                         n <= 0 ? (n == 0 ? "closed" : strerror(errno)) : "malformed answer");
    }
    a.text[a.h.textlen < VMGPU_PROTO_TEXT_MAX ? a.h.textlen : VMGPU_PROTO_TEXT_MAX - 1] = 0;
    r->proxy.round_trips = a.h.trips;
    if (ret) memcpy(ret, a.h.ret, sizeof a.h.ret);
    if (text && textlen) snprintf(text, textlen, "%s", a.text);
    if (a.h.status < 0) return core_fail(dev, a.h.status, "%s", a.text);
    return a.h.status;
}

static int call(const vmgpu_dev *dev, unsigned op, const uint64_t *args, unsigned nargs,
                uint64_t *ret)
{
    return call_full(dev, op, args, nargs, NULL, 0, ret, NULL, 0, NULL);
}

#define ARGS(...) (const uint64_t[]){__VA_ARGS__}, (unsigned)(sizeof((uint64_t[]){__VA_ARGS__}) / 8)

static int track(struct vmgpu_remote *r, void *obj)
{
    if (r->nobjs == r->capobjs) {
        size_t nc = r->capobjs ? r->capobjs * 2 : 16;
        void **n = realloc(r->objs, nc * sizeof *n);
        if (!n) return -1;
        r->objs = n;
        r->capobjs = nc;
    }
    r->objs[r->nobjs++] = obj;
    return 0;
}

static void untrack_free(struct vmgpu_remote *r, void *obj)
{
    for (size_t i = 0; i < r->nobjs; i++)
        if (r->objs[i] == obj) {
            r->objs[i] = r->objs[--r->nobjs];
            break;
        }
    free(obj);
}

/* ----------------------------------------------------- the transport, seen from here */

/*
 * vmgpu_dev_hal on a server connection: a stand-in transport for the tools, lessons and tests
 * that look at the device directly. Register reads go to the server (counters, the MMU's event
 * FIFO, ring state; never the memory port), the only register write is EVT_POP, memory bursts are
 * vmgpu_phys_read/write (checked like those), run is a polling slice, and round_trips is the
 * device's count as of the last answer.
 */
static struct vmgpu_remote *proxy_of(vmgpu_hal *h) { return (struct vmgpu_remote *)h; }

static int proxy_status(vmgpu_hal *h, int rc)
{
    if (!rc) return VMGPU_HAL_OK;
    snprintf(h->last_error, sizeof h->last_error, "%.300s", proxy_of(h)->dev->err);
    return rc == VMGPU_ERR_IO ? VMGPU_HAL_EIO : VMGPU_HAL_EINVAL;
}

static int proxy_reg_read(vmgpu_hal *h, uint32_t off, uint32_t *val)
{
    uint64_t ret[4] = {0};
    int rc = call(proxy_of(h)->dev, VMGPU_MSG_REG_READ, ARGS(off), ret);
    if (!rc) *val = (uint32_t)ret[0];
    return proxy_status(h, rc);
}

static int proxy_reg_write(vmgpu_hal *h, uint32_t off, uint32_t val)
{
    return proxy_status(h, call(proxy_of(h)->dev, VMGPU_MSG_REG_WRITE, ARGS(off, val), NULL));
}

static int proxy_mem_write(vmgpu_hal *h, uint32_t pa, const uint32_t *w, size_t n)
{
    return proxy_status(h, remote_phys_write(proxy_of(h)->dev, pa, w, n * 4));
}

static int proxy_mem_read(vmgpu_hal *h, uint32_t pa, uint32_t *w, size_t n)
{
    return proxy_status(h, remote_phys_read(proxy_of(h)->dev, pa, w, n * 4));
}

static int proxy_run(vmgpu_hal *h, uint64_t max_cycles, uint64_t *ran)
{
    return proxy_status(h, remote_poll(proxy_of(h)->dev, max_cycles, ran));
}

static void proxy_close(vmgpu_hal *h) { (void)h; }

static const struct vmgpu_hal_ops proxy_ops = {"vmgpud", proxy_reg_read, proxy_reg_write,
                                               proxy_mem_write, proxy_mem_read, proxy_run,
                                               proxy_close};

vmgpu_hal *remote_hal(vmgpu_dev *dev) { return &dev->remote->proxy; }

/* ------------------------------------------------------------------- open / close */

static int hello(vmgpu_dev *dev, char *err, size_t errlen)
{
    struct vmgpu_remote *r = dev->remote;
    r->bulk_fd = memfd_create("vmgpu-bulk", MFD_CLOEXEC);
    if (r->bulk_fd < 0 || ftruncate(r->bulk_fd, BULK)) {
        snprintf(err, errlen, "device server: bulk buffer: %s", strerror(errno));
        return VMGPU_ERR_NOMEM;
    }
    r->bulk = mmap(NULL, BULK, PROT_READ | PROT_WRITE, MAP_SHARED, r->bulk_fd, 0);
    if (r->bulk == MAP_FAILED) {
        r->bulk = NULL;
        snprintf(err, errlen, "device server: bulk buffer: %s", strerror(errno));
        return VMGPU_ERR_NOMEM;
    }
    int fds[2] = {r->bulk_fd, 2};
    uint64_t ret[4];
    int rc = call_full(dev, VMGPU_MSG_HELLO, ARGS((uint64_t)getpid(), (uint64_t)vmgpu_trace_enabled(), 0),
                       fds, 2, ret, NULL, 0, NULL);
    if (rc) {
        snprintf(err, errlen, "device server: %s", dev->err);
        return rc;
    }
    r->server_pid = (pid_t)(uint32_t)ret[0];
    dev->info.simt_isa = (unsigned)((ret[0] >> 32) & 0xff);
    dev->info.version = (uint32_t)ret[1];
    dev->info.mem_size = (uint32_t)(ret[1] >> 32);
    dev->info.n_rings = (unsigned)(ret[2] & 0xff);
    dev->info.tlb_entries = (unsigned)((ret[2] >> 8) & 0xffff);
    dev->info.has_gfx = (unsigned)((ret[2] >> 24) & 1);
    dev->info.host_port_link = (unsigned)((ret[2] >> 25) & 1);
    dev->info.simt_lanes = (unsigned)((ret[2] >> 32) & 0xff);
    dev->info.simt_warps = (unsigned)((ret[2] >> 40) & 0xff);
    dev->info.simt_shared_bytes = (uint32_t)((ret[2] >> 48) & 0xffff) * 1024u;
    dev->info.page_shift = 12;
    dev->info.user_base = (uint32_t)ret[3];
    dev->info.user_bytes = (uint32_t)(ret[3] >> 32);
    /* The server reads and writes this process's registered host memory in place
     * (process_vm_readv/writev); with Yama's ptrace scope 1 that needs our consent. */
    prctl(PR_SET_PTRACER, (unsigned long)r->server_pid, 0, 0, 0);
    return VMGPU_OK;
}

int remote_open(const char *spec, const vmgpu_dev_options *opt, vmgpu_dev **out, char *err,
                size_t errlen)
{
    char ebuf[320] = "";
    if (!err || !errlen) {
        err = ebuf;
        errlen = sizeof ebuf;
    }
    (void)opt;  /* the server laid the device out when it opened it */
    const char *devspec = remote_device_of(spec);
    if (remote_spec(devspec)) {
        snprintf(err, errlen, "VMGPU_DEVICE=%s: a server cannot serve another server", spec);
        return VMGPU_ERR_INVALID;
    }
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    if (remote_socket_path(devspec, path, sizeof path)) {
        snprintf(err, errlen, "device server: no usable socket directory (set VMGPU_SERVER_SOCKET)");
        return VMGPU_ERR_NODEV;
    }
    int s = connect_to(path);
    /* Not there: start one. "running": another process's server holds the lock and may still be
     * opening the device before it listens, or be on its way out; try again a few times. */
    for (int attempt = 0; s < 0 && attempt < 5; attempt++) {
        int rc = spawn_server(devspec, path, err, errlen);
        if (rc) return rc;
        for (int i = 0; i < 3000 && (s = connect_to(path)) < 0 && (errno == ENOENT || errno == ECONNREFUSED); i++)
            usleep(10000);
    }
    if (s < 0) {
        snprintf(err, errlen, "device server %s: connect: %s", path, strerror(errno));
        return VMGPU_ERR_NODEV;
    }
    vmgpu_dev *dev = calloc(1, sizeof *dev);
    struct vmgpu_remote *r = calloc(1, sizeof *r);
    if (!dev || !r) {
        free(dev);
        free(r);
        close(s);
        snprintf(err, errlen, "out of host memory");
        return VMGPU_ERR_NOMEM;
    }
    r->sock = s;
    r->owner = getpid();
    r->bulk_fd = -1;
    r->dev = dev;
    r->proxy.ops = &proxy_ops;
    dev->remote = r;
    int rc = hello(dev, err, errlen);
    if (rc) {
        remote_close(dev);
        return rc;
    }
    core_trace("open: device server (pid %d) at %s, device %s", (int)r->server_pid, path, devspec);
    *out = dev;
    return VMGPU_OK;
}

void remote_close(vmgpu_dev *dev)
{
    struct vmgpu_remote *r = dev->remote;
    if (r->sock >= 0) close(r->sock);  /* the server frees everything this client held */
    if (r->bulk) munmap(r->bulk, BULK);
    if (r->bulk_fd >= 0) close(r->bulk_fd);
    for (size_t i = 0; i < r->nobjs; i++) free(r->objs[i]);
    free(r->objs);
    free(r->regs);
    free(r);
    free(dev);
}

/* --------------------------------------------------------------------- the device */

int remote_ping(vmgpu_dev *dev) { return call(dev, VMGPU_MSG_NOOP, NULL, 0, NULL); }

int remote_poll(vmgpu_dev *dev, uint64_t max_cycles, uint64_t *ran)
{
    uint64_t ret[4] = {0};
    int rc = call(dev, VMGPU_MSG_POLL, ARGS(max_cycles), ret);
    if (ran) *ran = ret[0];
    return rc;
}

int remote_dev_cycles(vmgpu_dev *dev, uint64_t *cycles)
{
    if (!cycles) return VMGPU_ERR_INVALID;
    uint64_t ret[4];
    int rc = call(dev, VMGPU_MSG_CYCLES, NULL, 0, ret);
    if (!rc) *cycles = ret[0];
    return rc;
}

int remote_dev_run_idle(vmgpu_dev *dev) { return call(dev, VMGPU_MSG_RUN_IDLE, NULL, 0, NULL); }

int remote_ring_faulted(vmgpu_dev *dev, unsigned r)
{
    uint64_t ret[4];
    int rc = call(dev, VMGPU_MSG_RING_FAULTED, ARGS(r), ret);
    return rc ? rc : (int)ret[0];
}

int remote_link_round_trips(vmgpu_dev *dev, uint64_t *trips)
{
    uint64_t ret[4];
    int rc = call(dev, VMGPU_MSG_LINK_TRIPS, NULL, 0, ret);
    if (!rc) *trips = ret[0];
    return rc;
}

uint64_t remote_state_hash(const vmgpu_dev *dev)
{
    uint64_t ret[4] = {0};
    if (call(dev, VMGPU_MSG_STATE_HASH, NULL, 0, ret)) return 0;
    uint64_t h = ret[0];
    const struct vmgpu_remote *r = dev->remote;
    for (size_t i = 0; i < r->nregs; i++)
        h = (h ^ (r->regs[i].ptr + r->regs[i].size * 31 + r->regs[i].haddr)) * 1099511628211ull;
    return h;
}

/* ----------------------------------------------------------------- physical memory */

int remote_phys_alloc(vmgpu_dev *dev, uint32_t size, uint32_t align, uint32_t *pa)
{
    if (!pa) return core_fail(dev, VMGPU_ERR_INVALID, "phys_alloc: NULL argument");
    uint64_t ret[4];
    int rc = call(dev, VMGPU_MSG_PHYS_ALLOC, ARGS(size, align), ret);
    if (!rc) *pa = (uint32_t)ret[0];
    return rc;
}

int remote_phys_free(vmgpu_dev *dev, uint32_t pa) { return call(dev, VMGPU_MSG_PHYS_FREE, ARGS(pa), NULL); }

int remote_phys_stats(const vmgpu_dev *dev, uint32_t *free_bytes, unsigned *n_allocs)
{
    uint64_t ret[4];
    int rc = call(dev, VMGPU_MSG_PHYS_STATS, NULL, 0, ret);
    if (rc) return rc;
    if (free_bytes) *free_bytes = (uint32_t)ret[0];
    if (n_allocs) *n_allocs = (unsigned)ret[1];
    return VMGPU_OK;
}

/* Bulk transfers go through the shared buffer, BULK bytes per request. */
static int bulk_out(vmgpu_dev *dev, unsigned op, uint64_t id, uint64_t addr, const void *src,
                    size_t bytes, int with_id)
{
    if (!src && bytes) return core_fail(dev, VMGPU_ERR_INVALID, "write: NULL source");
    size_t done = 0;
    do {
        size_t n = bytes - done < BULK ? bytes - done : BULK;
        if (n) memcpy(dev->remote->bulk, (const uint8_t *)src + done, n);
        int rc = with_id ? call(dev, op, ARGS(id, addr + done, n), NULL)
                         : call(dev, op, ARGS(addr + done, n), NULL);
        if (rc) return rc;
        done += n;
    } while (done < bytes);
    return VMGPU_OK;
}

static int bulk_in(vmgpu_dev *dev, unsigned op, uint64_t id, uint64_t addr, void *dst,
                   size_t bytes, int with_id)
{
    if (!dst && bytes) return core_fail(dev, VMGPU_ERR_INVALID, "read: NULL destination");
    size_t done = 0;
    do {
        size_t n = bytes - done < BULK ? bytes - done : BULK;
        int rc = with_id ? call(dev, op, ARGS(id, addr + done, n), NULL)
                         : call(dev, op, ARGS(addr + done, n), NULL);
        if (rc) return rc;
        if (n) memcpy((uint8_t *)dst + done, dev->remote->bulk, n);
        done += n;
    } while (done < bytes);
    return VMGPU_OK;
}

int remote_phys_write(vmgpu_dev *dev, uint32_t pa, const void *src, size_t bytes)
{
    return bulk_out(dev, VMGPU_MSG_PHYS_WRITE, 0, pa, src, bytes, 0);
}

int remote_phys_read(vmgpu_dev *dev, uint32_t pa, void *dst, size_t bytes)
{
    return bulk_in(dev, VMGPU_MSG_PHYS_READ, 0, pa, dst, bytes, 0);
}

int remote_phys_export(vmgpu_dev *dev, uint32_t pa, int *fd)
{
    int got = -1;
    int rc = call_full(dev, VMGPU_MSG_EXPORT, ARGS(pa), NULL, 0, NULL, NULL, 0, &got);
    if (rc) return rc;
    if (got < 0) return core_fail(dev, VMGPU_ERR_IO, "phys_export: the server sent no descriptor");
    *fd = got;
    core_trace("phys_export(pa 0x%08x) -> fd %d", pa, got);
    return VMGPU_OK;
}

int remote_phys_import(vmgpu_dev *dev, int fd, uint32_t *pa, uint32_t *size)
{
    struct stat st;
    if (fstat(fd, &st))
        return core_fail(dev, VMGPU_ERR_INVALID, "phys_import: fd %d is not open", fd);
    uint64_t ret[4];
    int rc = call_full(dev, VMGPU_MSG_IMPORT, NULL, 0, &fd, 1, ret, NULL, 0, NULL);
    if (rc) return rc;
    *pa = (uint32_t)ret[0];
    *size = (uint32_t)ret[1];
    core_trace("phys_import(fd %d) -> pa 0x%08x, 0x%x bytes", fd, *pa, *size);
    return VMGPU_OK;
}

/* ------------------------------------------------------------------- host memory */

/*
 * Registered host memory is read and written by the device where the device is: in the server.
 * To spare it a system call per word, the range (page aligned, all of it mapped) is turned into
 * shared memory in place: its contents go into a memfd, the memfd is mapped over the same
 * addresses (MAP_FIXED), and the server maps the memfd too. The program's pointer stays valid
 * and keeps its data. Memory that cannot be (not all mapped, or the remap fails) stays as it is
 * and the server reaches it with process_vm_readv/writev. Returns the memfd or -1.
 */
static int share_in_place(void *ptr, size_t size)
{
    unsigned char vec[64];
    for (size_t off = 0; off < size; off += 64 * (size_t)VMGPU_PAGE_SIZE) {
        size_t n = size - off < 64 * (size_t)VMGPU_PAGE_SIZE ? size - off : 64 * (size_t)VMGPU_PAGE_SIZE;
        if (mincore((uint8_t *)ptr + off, n, vec)) return -1;  /* a page is not mapped */
    }
    int fd = memfd_create("vmgpu-host", MFD_CLOEXEC);
    if (fd < 0) return -1;
    void *tmp = MAP_FAILED;
    if (ftruncate(fd, (off_t)size) == 0)
        tmp = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (tmp == MAP_FAILED) {
        close(fd);
        return -1;
    }
    memcpy(tmp, ptr, size);
    void *m = mmap(ptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    munmap(tmp, size);
    if (m != ptr) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Back to private memory with the same contents (at unregistration). */
static void unshare(void *ptr, size_t size)
{
    void *tmp = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (tmp == MAP_FAILED) return;  /* it stays shared: still the same data at the same place */
    memcpy(tmp, ptr, size);
    if (mmap(ptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == ptr)
        memcpy(ptr, tmp, size);
    munmap(tmp, size);
}

int remote_host_register(vmgpu_dev *dev, void *ptr, size_t size, uint32_t *haddr)
{
    if (!ptr || !haddr) return core_fail(dev, VMGPU_ERR_INVALID, "host_register: NULL argument");
    struct vmgpu_remote *r = dev->remote;
    if (r->nregs == r->capregs) {
        size_t nc = r->capregs ? r->capregs * 2 : 8;
        host_reg *n = realloc(r->regs, nc * sizeof *n);
        if (!n) return core_fail(dev, VMGPU_ERR_NOMEM, "out of host memory");
        r->regs = n;
        r->capregs = nc;
    }
    uint64_t ret[4];
    /* Only a well-formed request is worth the remap; the server checks it again. */
    int ok = ((uintptr_t)ptr & (VMGPU_PAGE_SIZE - 1)) == 0 && size && (size & (VMGPU_PAGE_SIZE - 1)) == 0 &&
             size < ((size_t)1 << 31) && getenv("VMGPU_SERVER_NO_SHARE") == NULL;
    int overlaps = 0;
    for (size_t i = 0; i < r->nregs; i++)
        if ((uintptr_t)ptr < r->regs[i].ptr + r->regs[i].size && r->regs[i].ptr < (uintptr_t)ptr + size)
            overlaps = 1;
    int fd = ok && !overlaps ? share_in_place(ptr, size) : -1;
    int rc = call_full(dev, VMGPU_MSG_HOST_REGISTER, ARGS((uintptr_t)ptr, size), fd >= 0 ? &fd : NULL,
                       fd >= 0 ? 1 : 0, ret, NULL, 0, NULL);
    if (fd >= 0) close(fd);  /* the mapping stays; the server has its own copy of the fd */
    if (rc) {
        if (fd >= 0) unshare(ptr, size);
        return rc;
    }
    *haddr = (uint32_t)ret[0];
    r->regs[r->nregs++] = (host_reg){(uintptr_t)ptr, size, *haddr, fd >= 0};
    core_trace("host_register(%p, %zu): %s", ptr, size, fd >= 0 ? "shared with the server in place "
               "(memfd)" : "reached by the server with process_vm_readv/writev");
    return VMGPU_OK;
}

int remote_host_unregister(vmgpu_dev *dev, void *ptr)
{
    int rc = call(dev, VMGPU_MSG_HOST_UNREGISTER, ARGS((uintptr_t)ptr), NULL);
    core_trace("host_unregister(%p): %s", ptr, vmgpu_status_name(rc));
    if (rc) return rc;
    struct vmgpu_remote *r = dev->remote;
    for (size_t i = 0; i < r->nregs; i++)
        if (r->regs[i].ptr == (uintptr_t)ptr) {
            if (r->regs[i].shared) unshare(ptr, r->regs[i].size);
            r->regs[i] = r->regs[--r->nregs];
            break;
        }
    return VMGPU_OK;
}

void *remote_host_ptr(const vmgpu_dev *dev, uint32_t haddr)
{
    const struct vmgpu_remote *r = dev->remote;
    for (size_t i = 0; i < r->nregs; i++)
        if (haddr >= r->regs[i].haddr && haddr - r->regs[i].haddr < r->regs[i].size)
            return (uint8_t *)r->regs[i].ptr + (haddr - r->regs[i].haddr);
    return NULL;
}

/* ---------------------------------------------------------------------- contexts */

int remote_ctx_create(vmgpu_dev *dev, int home_ring, vmgpu_ctx **out)
{
    if (!out) return core_fail(dev, VMGPU_ERR_INVALID, "ctx_create: bad argument (NULL)");
    vmgpu_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx || track(dev->remote, ctx)) {
        free(ctx);
        return core_fail(dev, VMGPU_ERR_NOMEM, "out of host memory");
    }
    uint64_t ret[4];
    int rc = call(dev, VMGPU_MSG_CTX_CREATE, ARGS((uint64_t)(int64_t)home_ring), ret);
    if (rc) {
        untrack_free(dev->remote, ctx);
        return rc;
    }
    ctx->dev = dev;
    ctx->rid = (uint32_t)ret[0];
    ctx->asid = (unsigned)ret[1];
    ctx->root = (uint32_t)ret[2];
    ctx->home_ring = (unsigned)ret[3];
    *out = ctx;
    return VMGPU_OK;
}

int remote_ctx_destroy(vmgpu_ctx *ctx)
{
    int rc = call(ctx->dev, VMGPU_MSG_CTX_DESTROY, ARGS(ctx->rid), NULL);
    if (rc != VMGPU_ERR_BUSY) untrack_free(ctx->dev->remote, ctx);
    return rc;
}

int remote_ctx_status(const vmgpu_ctx *ctx, char *msg, size_t msglen)
{
    char text[VMGPU_PROTO_TEXT_MAX];
    uint64_t ret[4];
    int rc = call_full(ctx->dev, VMGPU_MSG_CTX_STATUS, ARGS(ctx->rid), NULL, 0, ret, text,
                       sizeof text, NULL);
    if (rc) return rc;
    if (msg && msglen) snprintf(msg, msglen, "%s", ret[0] ? text : "");
    return ret[0] ? VMGPU_ERR_CTX_FAULTED : VMGPU_OK;
}

int remote_ctx_clear_fault(vmgpu_ctx *ctx)
{
    return call(ctx->dev, VMGPU_MSG_CTX_CLEAR_FAULT, ARGS(ctx->rid), NULL);
}

int remote_va_reserve(vmgpu_ctx *ctx, uint32_t size, uint32_t align, uint32_t fixed, uint32_t *va)
{
    if (!va) return core_fail(ctx->dev, VMGPU_ERR_INVALID, "va_reserve: NULL argument");
    uint64_t ret[4];
    int rc = call(ctx->dev, VMGPU_MSG_VA_RESERVE, ARGS(ctx->rid, size, align, fixed), ret);
    if (!rc) *va = (uint32_t)ret[0];
    return rc;
}

int remote_va_free(vmgpu_ctx *ctx, uint32_t va)
{
    return call(ctx->dev, VMGPU_MSG_VA_FREE, ARGS(ctx->rid, va), NULL);
}

int remote_va_stats(const vmgpu_ctx *ctx, uint32_t *reserved_bytes, unsigned *n_ranges)
{
    uint64_t ret[4];
    int rc = call(ctx->dev, VMGPU_MSG_VA_STATS, ARGS(ctx->rid), ret);
    if (rc) return rc;
    if (reserved_bytes) *reserved_bytes = (uint32_t)ret[0];
    if (n_ranges) *n_ranges = (unsigned)ret[1];
    return VMGPU_OK;
}

int remote_map(vmgpu_ctx *ctx, uint32_t va, uint32_t pa, uint32_t size, unsigned flags)
{
    return call(ctx->dev, VMGPU_MSG_MAP, ARGS(ctx->rid, va, pa, size, flags), NULL);
}

int remote_unmap(vmgpu_ctx *ctx, uint32_t va, uint32_t size)
{
    return call(ctx->dev, VMGPU_MSG_UNMAP, ARGS(ctx->rid, va, size), NULL);
}

int remote_protect(vmgpu_ctx *ctx, uint32_t va, uint32_t size, unsigned flags)
{
    return call(ctx->dev, VMGPU_MSG_PROTECT, ARGS(ctx->rid, va, size, flags), NULL);
}

int remote_query(const vmgpu_ctx *ctx, uint32_t va, uint32_t *pte)
{
    if (!pte) return VMGPU_ERR_INVALID;
    uint64_t ret[4];
    int rc = call(ctx->dev, VMGPU_MSG_QUERY, ARGS(ctx->rid, va), ret);
    if (!rc) *pte = (uint32_t)ret[0];
    return rc;
}

int remote_ctx_write(vmgpu_ctx *ctx, uint32_t va, const void *src, size_t bytes)
{
    return bulk_out(ctx->dev, VMGPU_MSG_CTX_WRITE, ctx->rid, va, src, bytes, 1);
}

int remote_ctx_read(vmgpu_ctx *ctx, uint32_t va, void *dst, size_t bytes)
{
    return bulk_in(ctx->dev, VMGPU_MSG_CTX_READ, ctx->rid, va, dst, bytes, 1);
}

/* ----------------------------------------------------------------------- streams */

int remote_stream_create(vmgpu_ctx *ctx, unsigned ring, vmgpu_stream **out)
{
    if (!out) return core_fail(ctx->dev, VMGPU_ERR_INVALID, "stream_create: bad argument");
    vmgpu_stream *s = calloc(1, sizeof *s);
    if (!s || track(ctx->dev->remote, s)) {
        free(s);
        return core_fail(ctx->dev, VMGPU_ERR_NOMEM, "out of host memory");
    }
    uint64_t ret[4];
    int rc = call(ctx->dev, VMGPU_MSG_STREAM_CREATE, ARGS(ctx->rid, ring), ret);
    if (rc) {
        untrack_free(ctx->dev->remote, s);
        return rc;
    }
    s->ctx = ctx;
    s->ring = ring;
    s->rid = (uint32_t)ret[0];
    *out = s;
    return VMGPU_OK;
}

int remote_stream_destroy(vmgpu_stream *s)
{
    vmgpu_dev *dev = s->ctx->dev;
    int rc = call(dev, VMGPU_MSG_STREAM_DESTROY, ARGS(s->rid), NULL);
    untrack_free(dev->remote, s);  /* the server frees it whatever the wait said */
    return rc;
}

int remote_cmd(vmgpu_stream *s, unsigned op, unsigned nargs, const uint64_t *args)
{
    uint64_t a[VMGPU_PROTO_NARGS] = {s->rid};
    for (unsigned i = 0; i < nargs && i + 1 < VMGPU_PROTO_NARGS; i++) a[i + 1] = args[i];
    return call(s->ctx->dev, op, a, nargs + 1, NULL);
}

int remote_cmd_raw(vmgpu_stream *s)
{
    return core_fail(s->ctx->dev, VMGPU_ERR_INVALID, "raw: the device server takes no raw "
                     "commands (they could bind another process's ASID or write page tables)");
}

int remote_stream_map(vmgpu_stream *s, uint32_t va, uint32_t pa, uint32_t size, unsigned flags)
{
    return call(s->ctx->dev, VMGPU_MSG_STREAM_MAP, ARGS(s->rid, va, pa, size, flags), NULL);
}

int remote_stream_submit(vmgpu_stream *s, uint32_t *fence)
{
    uint64_t ret[4];
    int rc = call(s->ctx->dev, VMGPU_MSG_STREAM_SUBMIT, ARGS(s->rid), ret);
    if (!rc && fence) *fence = (uint32_t)ret[0];
    return rc;
}

int remote_stream_sync(vmgpu_stream *s) { return call(s->ctx->dev, VMGPU_MSG_STREAM_SYNC, ARGS(s->rid), NULL); }

int remote_stream_wait_stream(vmgpu_stream *waiter, vmgpu_stream *s)
{
    if (!s) return VMGPU_ERR_INVALID;
    return call(waiter->ctx->dev, VMGPU_MSG_STREAM_WAIT_STREAM, ARGS(waiter->rid, s->rid), NULL);
}

/* ------------------------------------------------------------------ fences, events */

uint32_t remote_fence_last(const vmgpu_dev *dev, unsigned r)
{
    uint64_t ret[4] = {0};
    return call(dev, VMGPU_MSG_FENCE_LAST, ARGS(r), ret) ? 0 : (uint32_t)ret[0];
}

int remote_fence_query(vmgpu_dev *dev, unsigned r, uint32_t value)
{
    return call(dev, VMGPU_MSG_FENCE_QUERY, ARGS(r, value), NULL);
}

int remote_fence_wait(vmgpu_dev *dev, unsigned r, uint32_t value)
{
    return call(dev, VMGPU_MSG_FENCE_WAIT, ARGS(r, value), NULL);
}

int remote_event_create(vmgpu_dev *dev, vmgpu_event **out)
{
    if (!out) return core_fail(dev, VMGPU_ERR_INVALID, "event_create: NULL argument");
    vmgpu_event *ev = calloc(1, sizeof *ev);
    if (!ev || track(dev->remote, ev)) {
        free(ev);
        return core_fail(dev, VMGPU_ERR_NOMEM, "out of host memory");
    }
    uint64_t ret[4];
    int rc = call(dev, VMGPU_MSG_EVENT_CREATE, NULL, 0, ret);
    if (rc) {
        untrack_free(dev->remote, ev);
        return rc;
    }
    ev->dev = dev;
    ev->rid = (uint32_t)ret[0];
    *out = ev;
    return VMGPU_OK;
}

int remote_event_destroy(vmgpu_event *ev)
{
    vmgpu_dev *dev = ev->dev;
    int rc = call(dev, VMGPU_MSG_EVENT_DESTROY, ARGS(ev->rid), NULL);
    untrack_free(dev->remote, ev);
    return rc;
}

int remote_event_record(vmgpu_event *ev, vmgpu_stream *s)
{
    if (!s) return VMGPU_ERR_INVALID;
    int rc = call(ev->dev, VMGPU_MSG_EVENT_RECORD, ARGS(ev->rid, s->rid), NULL);
    if (!rc) {
        ev->recorded = 1;
        ev->ring = s->ring;
    }
    return rc;
}

int remote_event_query(vmgpu_event *ev) { return call(ev->dev, VMGPU_MSG_EVENT_QUERY, ARGS(ev->rid), NULL); }
int remote_event_wait(vmgpu_event *ev) { return call(ev->dev, VMGPU_MSG_EVENT_WAIT, ARGS(ev->rid), NULL); }

int remote_event_cycles(vmgpu_event *ev, uint64_t *cycles)
{
    if (!cycles) return VMGPU_ERR_INVALID;
    uint64_t ret[4];
    int rc = call(ev->dev, VMGPU_MSG_EVENT_CYCLES, ARGS(ev->rid), ret);
    if (!rc) *cycles = ret[0];
    return rc;
}

int remote_event_elapsed(vmgpu_event *start, vmgpu_event *end, uint64_t *cycles)
{
    if (!end || !cycles || end->dev != start->dev) return VMGPU_ERR_INVALID;
    uint64_t ret[4];
    int rc = call(start->dev, VMGPU_MSG_EVENT_ELAPSED, ARGS(start->rid, end->rid), ret);
    if (!rc) *cycles = ret[0];
    return rc;
}

/* ---------------------------------------------------------------- legacy IPC tokens */

int remote_phys_ipc_token(vmgpu_dev *dev, uint32_t pa, uint64_t *token)
{
    uint64_t ret[4];
    int rc = call(dev, VMGPU_MSG_IPC_MEM_TOKEN, ARGS(pa), ret);
    if (!rc) *token = ret[0];
    return rc;
}

int remote_phys_ipc_open(vmgpu_dev *dev, uint64_t token, uint32_t *pa, uint32_t *size, int *own)
{
    uint64_t ret[4];
    int rc = call(dev, VMGPU_MSG_IPC_MEM_OPEN, ARGS(token), ret);
    if (rc) return rc;
    *pa = (uint32_t)ret[0];
    *size = (uint32_t)ret[1];
    *own = (int)ret[2];
    return VMGPU_OK;
}

int remote_event_ipc_token(vmgpu_event *ev, uint64_t *token)
{
    uint64_t ret[4];
    int rc = call(ev->dev, VMGPU_MSG_IPC_EVENT_TOKEN, ARGS(ev->rid), ret);
    if (!rc) *token = ret[0];
    return rc;
}

int remote_event_ipc_open(vmgpu_dev *dev, uint64_t token, vmgpu_event **out, int *own)
{
    vmgpu_event *ev = calloc(1, sizeof *ev);
    if (!ev || track(dev->remote, ev)) {
        free(ev);
        return core_fail(dev, VMGPU_ERR_NOMEM, "out of host memory");
    }
    uint64_t ret[4];
    int rc = call(dev, VMGPU_MSG_IPC_EVENT_OPEN, ARGS(token), ret);
    if (rc || ret[1]) {
        untrack_free(dev->remote, ev);
        *own = !rc && ret[1];
        return rc;
    }
    ev->dev = dev;
    ev->rid = (uint32_t)ret[0];
    *own = 0;
    *out = ev;
    return VMGPU_OK;
}
