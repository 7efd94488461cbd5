/*
 * vmgpud's requests: every message is checked (size, magic, version, operation, that every id
 * names the caller's own object, that every physical range lies in memory the caller holds)
 * before the core is called, so a client can reach only its own address spaces, its own
 * allocations and what was exported to it. Client death, export and import live here too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core_internal.h"
#include "proto.h"
#include "vmgpu/regs.h"
#include "server.h"

srv_state g_srv = {.saved_stderr = -1};

typedef struct answer {
    vmgpu_rep h;
    char text[VMGPU_PROTO_TEXT_MAX];
    int fd;  /* sent with the answer (EXPORT), -1 none */
} answer;

static int fail(answer *a, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(answer *a, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->text, sizeof a->text, fmt, ap);
    va_end(ap);
    return status;
}

/* --------------------------------------------------------------------- host memory */

/* The core reaches a client's registered memory through here: in place, in that process. */
static int client_memory(void *user, uintptr_t owner, uintptr_t addr, void *buf, size_t bytes,
                         int write)
{
    (void)user;
    const srv_client *c = (const srv_client *)owner;
    for (size_t i = 0; i < c->nregs; i++) {
        const srv_reg *g = &c->regs[i];
        if (g->local && addr >= g->addr && addr + bytes <= g->addr + g->size) {
            if (write) memcpy(g->local + (addr - g->addr), buf, bytes);
            else memcpy(buf, g->local + (addr - g->addr), bytes);
            return 0;
        }
    }
    struct iovec local = {buf, bytes}, remote = {(void *)addr, bytes};
    ssize_t n = write ? process_vm_writev(c->pid, &local, 1, &remote, 1, 0)
                      : process_vm_readv(c->pid, &local, 1, &remote, 1, 0);
    return n == (ssize_t)bytes ? 0 : -1;
}

/* ------------------------------------------------------------------------- clients */

srv_client *srv_client_new(int sock)
{
    srv_client *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->sock = sock;
    c->serial = ++g_srv.next_serial;
    c->err_fd = -1;
    vmgpu_dev_set_host_access(g_srv.dev, client_memory, NULL);
    return c;
}

static srv_alloc *alloc_at(uint32_t pa)
{
    for (size_t i = 0; i < g_srv.nallocs; i++)
        if (g_srv.allocs[i].pa == pa) return &g_srv.allocs[i];
    return NULL;
}

static void alloc_remove(srv_alloc *a)
{
    for (size_t i = 0; i < a->npipes; i++) close(a->pipes[i]);
    free(a->pipes);
    free(a->inos);
    *a = g_srv.allocs[--g_srv.nallocs];
}

/* Free the allocation when nobody holds it and no descriptor of it is open; while a context
 * still maps it (a holder unmapped late, or dropped its hold while mapping) it waits. */
static void alloc_settle(srv_alloc *a)
{
    if (a->holders || a->npipes) return;
    a->dying = 1;
    if (vmgpu_phys_free(g_srv.dev, a->pa) == VMGPU_OK) alloc_remove(a);
}

void srv_reap(void)
{
    for (size_t i = g_srv.nallocs; i-- > 0;)
        if (g_srv.allocs[i].dying) alloc_settle(&g_srv.allocs[i]);
}

static int hold_add(srv_client *c, uint32_t pa)
{
    if (c->nholds == c->capholds) {
        size_t nc = c->capholds ? c->capholds * 2 : 16;
        uint32_t *n = realloc(c->holds, nc * sizeof *n);
        if (!n) return -1;
        c->holds = n;
        c->capholds = nc;
    }
    c->holds[c->nholds++] = pa;
    return 0;
}

static long hold_find(const srv_client *c, uint32_t pa)
{
    for (size_t i = 0; i < c->nholds; i++)
        if (c->holds[i] == pa) return (long)i;
    return -1;
}

/* [pa, pa+size) lies inside one allocation c holds. */
static int holds_range(const srv_client *c, uint64_t pa, uint64_t size)
{
    for (size_t i = 0; i < c->nholds; i++) {
        const srv_alloc *a = alloc_at(c->holds[i]);
        if (a && pa >= a->pa && pa + size <= (uint64_t)a->pa + a->size) return 1;
    }
    return 0;
}

/* [haddr, haddr+size) lies inside one of c's host registrations. */
static int owns_host(const srv_client *c, uint64_t haddr, uint64_t size)
{
    for (size_t i = 0; i < c->nregs; i++)
        if (haddr >= c->regs[i].haddr && haddr + size <= c->regs[i].haddr + (uint64_t)c->regs[i].size)
            return 1;
    return 0;
}

/* A new token nobody can guess (legacy IPC handles travel as plain bytes). */
static uint64_t new_token(void)
{
    uint64_t t = 0;
    while (t == 0)
        if (getrandom(&t, sizeof t, 0) != (ssize_t)sizeof t) t = (uint64_t)rand() << 32 ^ (uint64_t)rand();
    return t;
}

static srv_shared_event *shared_of(const vmgpu_event *ev)
{
    for (size_t i = 0; i < g_srv.nsev; i++)
        if (g_srv.sev[i].ev == ev) return &g_srv.sev[i];
    return NULL;
}

/* A client's table lets go of ev: the event goes when no table names it. */
static int event_release(vmgpu_event *ev)
{
    srv_shared_event *sh = shared_of(ev);
    if (sh && --sh->refs > 0) return VMGPU_OK;
    if (sh) *sh = g_srv.sev[--g_srv.nsev];
    return vmgpu_event_destroy(ev);
}

void srv_client_drop(srv_client *c)
{
    vmgpu_dev *dev = g_srv.dev;
    vmgpu_set_trace(0);
    /* Streams first (each waits for its submitted work, bounded by the timeout: the device
     * may still be reading memory that is about to be freed), then events, then the address
     * spaces (every mapping, page table, reservation and the ASID), then host memory, and
     * last the holds on physical memory. */
    for (size_t i = 0; i < c->nst; i++)
        if (c->st[i]) vmgpu_stream_destroy(c->st[i]);
    for (size_t i = 0; i < c->nev; i++)
        if (c->ev[i]) event_release(c->ev[i]);
    for (size_t i = 0; i < c->nctx; i++)
        if (c->ctx[i]) vmgpu_ctx_destroy(c->ctx[i]);
    for (size_t i = 0; i < c->nregs; i++) {
        vmgpu_host_unregister_for(dev, (uintptr_t)c, c->regs[i].addr);
        if (c->regs[i].local) munmap(c->regs[i].local, c->regs[i].size);
    }
    for (size_t i = 0; i < c->nholds; i++) {
        srv_alloc *a = alloc_at(c->holds[i]);
        if (!a) continue;
        a->holders--;
        alloc_settle(a);
    }
    srv_reap();
    if (c->bulk) munmap(c->bulk, VMGPU_PROTO_BULK_BYTES);
    if (c->err_fd >= 0) close(c->err_fd);
    close(c->sock);
    free(c->ctx);
    free(c->st);
    free(c->ev);
    free(c->holds);
    free(c->regs);
    free(c);
}

/* ---------------------------------------------------------------- export pipes */

size_t srv_pipe_fds(int *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < g_srv.nallocs; i++)
        for (size_t j = 0; j < g_srv.allocs[i].npipes; j++) {
            if (n < max) out[n] = g_srv.allocs[i].pipes[j];
            n++;
        }
    return n;
}

void srv_pipe_hangup(int fd)
{
    for (size_t i = 0; i < g_srv.nallocs; i++) {
        srv_alloc *a = &g_srv.allocs[i];
        for (size_t j = 0; j < a->npipes; j++) {
            if (a->pipes[j] != fd) continue;
            close(fd);
            a->pipes[j] = a->pipes[a->npipes - 1];
            a->inos[j] = a->inos[a->npipes - 1];
            a->npipes--;
            alloc_settle(a);
            return;
        }
    }
}

/* --------------------------------------------------------------- object tables */

#define GET(table, n, id) ((id) >= 1 && (id) <= (n) ? (table)[(id) - 1] : NULL)

static int add_obj(void ***table, size_t *n, void *obj, uint32_t *id)
{
    for (size_t i = 0; i < *n; i++)
        if (!(*table)[i]) {
            (*table)[i] = obj;
            *id = (uint32_t)i + 1;
            return 0;
        }
    if (*n >= SRV_MAX_OBJECTS) return -1;
    void **t = realloc(*table, (*n + 1) * sizeof *t);
    if (!t) return -1;
    *table = t;
    t[(*n)++] = obj;
    *id = (uint32_t)*n;
    return 0;
}

/* ------------------------------------------------------------------- the requests */

typedef struct request {
    srv_client *c;
    const vmgpu_req *q;
    int fd;  /* the descriptor that came with it, -1 none */
} request;

/* Arguments are 32-bit in the core's API: a wider value is malformed. */
static int args32(answer *a, const vmgpu_req *q, unsigned from, unsigned n)
{
    for (unsigned i = from; i < from + n; i++)
        if (q->arg[i] > UINT32_MAX)
            return fail(a, VMGPU_ERR_INVALID, "argument %u (0x%llx) does not fit 32 bits", i,
                        (unsigned long long)q->arg[i]);
    return VMGPU_OK;
}

#define A32(i) ((uint32_t)q->arg[i])
#define CHECK(expr) do { int rc_ = (expr); if (rc_) return rc_; } while (0)

static int ctx_of(answer *a, srv_client *c, uint64_t id, vmgpu_ctx **out)
{
    *out = id <= SRV_MAX_OBJECTS ? GET(c->ctx, c->nctx, id) : NULL;
    return *out ? VMGPU_OK : fail(a, VMGPU_ERR_NOT_FOUND, "context id %llu is not one of this "
                                  "process's", (unsigned long long)id);
}

static int stream_of(answer *a, srv_client *c, uint64_t id, vmgpu_stream **out)
{
    *out = id <= SRV_MAX_OBJECTS ? GET(c->st, c->nst, id) : NULL;
    return *out ? VMGPU_OK : fail(a, VMGPU_ERR_NOT_FOUND, "stream id %llu is not one of this "
                                  "process's", (unsigned long long)id);
}

static int event_of(answer *a, srv_client *c, uint64_t id, vmgpu_event **out)
{
    *out = id <= SRV_MAX_OBJECTS ? GET(c->ev, c->nev, id) : NULL;
    return *out ? VMGPU_OK : fail(a, VMGPU_ERR_NOT_FOUND, "event id %llu is not one of this "
                                  "process's", (unsigned long long)id);
}

static int bulk_len(answer *a, uint64_t n)
{
    return n <= VMGPU_PROTO_BULK_BYTES ? VMGPU_OK
                                       : fail(a, VMGPU_ERR_INVALID, "%llu bytes: more than the "
                                              "bulk buffer", (unsigned long long)n);
}

/* Page-table pages of c's own contexts: readable (not writable) for tools and lessons. */
static int own_page_table(const srv_client *c, uint64_t pa, uint64_t size)
{
    uint64_t page = pa & ~(uint64_t)(VMGPU_PAGE_SIZE - 1);
    if (pa + size > page + VMGPU_PAGE_SIZE) return 0;
    for (size_t i = 0; i < c->nctx; i++) {
        const vmgpu_ctx *x = c->ctx[i];
        if (!x) continue;
        if (page == x->root) return 1;
        for (unsigned k = 0; k < PDE_COUNT; k++)
            if ((x->pde[k] & VMGPU_PTE_V) && page == (x->pde[k] & ~(uint64_t)(VMGPU_PAGE_SIZE - 1)))
                return 1;
    }
    return 0;
}

/* A mapping's target: memory the client holds, or its own host registration. Anything else is
 * VMGPU_ERR_INVALID, what the core answers in-process for a range outside every allocation: to a
 * process, another's memory is no allocation at all. Arguments the core refuses anyway
 * (misaligned, empty) go on to it. */
static int map_target(answer *a, srv_client *c, uint64_t pa, uint64_t size, uint64_t flags)
{
    if (((pa | size) & (VMGPU_PAGE_SIZE - 1)) || size == 0) return VMGPU_OK;
    if ((flags & VMGPU_MAP_HOST) ? owns_host(c, pa, size) : holds_range(c, pa, size))
        return VMGPU_OK;
    return fail(a, VMGPU_ERR_INVALID, "map: %s 0x%08llx+0x%llx is not inside one allocation of "
                "this process (allocated by it, imported by it or registered by it)",
                (flags & VMGPU_MAP_HOST) ? "host address" : "pa", (unsigned long long)pa,
                (unsigned long long)size);
}

static int op_hello(request *r, answer *a)
{
    srv_client *c = r->c;
    const vmgpu_req *q = r->q;
    if (c->hello_done) return fail(a, VMGPU_ERR_INVALID, "HELLO twice");
    if (r->fd < 0) return fail(a, VMGPU_ERR_INVALID, "HELLO without its bulk buffer");
    struct stat st;
    if (fstat(r->fd, &st) || st.st_size < VMGPU_PROTO_BULK_BYTES)
        return fail(a, VMGPU_ERR_INVALID, "HELLO: the bulk buffer is not a %u-byte memfd",
                    VMGPU_PROTO_BULK_BYTES);
    void *m = mmap(NULL, VMGPU_PROTO_BULK_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
    if (m == MAP_FAILED) return fail(a, VMGPU_ERR_INVALID, "HELLO: cannot map the bulk buffer");
    c->bulk = m;
    /* The peer's credentials, not what it claims, say whose memory we will reach. */
    struct ucred cred;
    socklen_t len = sizeof cred;
    c->pid = getsockopt(c->sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 ? cred.pid
                                                                           : (pid_t)q->arg[0];
    c->trace = q->arg[1] != 0;
    c->hello_done = 1;
    vmgpu_dev_info in;
    vmgpu_dev_get_info(g_srv.dev, &in);
    a->h.ret[0] = (uint64_t)getpid() | (uint64_t)in.simt_isa << 32;
    a->h.ret[1] = in.version | (uint64_t)in.mem_size << 32;
    a->h.ret[2] = in.n_rings | (uint64_t)in.tlb_entries << 8 | (uint64_t)in.has_gfx << 24 |
                  (uint64_t)in.host_port_link << 25 | (uint64_t)in.simt_lanes << 32 |
                  (uint64_t)in.simt_warps << 40 | (uint64_t)(in.simt_shared_bytes / 1024u) << 48;
    a->h.ret[3] = in.user_base | (uint64_t)in.user_bytes << 32;
    return VMGPU_OK;
}

static int op_phys(request *r, answer *a)
{
    srv_client *c = r->c;
    const vmgpu_req *q = r->q;
    vmgpu_dev *dev = g_srv.dev;
    switch (q->op) {
    case VMGPU_MSG_PHYS_ALLOC: {
        CHECK(args32(a, q, 0, 2));
        if (g_srv.nallocs == g_srv.capallocs) {
            size_t nc = g_srv.capallocs ? g_srv.capallocs * 2 : 64;
            srv_alloc *n = realloc(g_srv.allocs, nc * sizeof *n);
            if (!n) return fail(a, VMGPU_ERR_NOMEM, "server out of host memory");
            g_srv.allocs = n;
            g_srv.capallocs = nc;
        }
        uint32_t pa;
        CHECK(vmgpu_phys_alloc(dev, A32(0), A32(1), &pa));
        if (hold_add(c, pa)) {
            vmgpu_phys_free(dev, pa);
            return fail(a, VMGPU_ERR_NOMEM, "server out of host memory");
        }
        g_srv.allocs[g_srv.nallocs++] = (srv_alloc){.pa = pa, .size = A32(0), .holders = 1};
        a->h.ret[0] = pa;
        return VMGPU_OK;
    }
    case VMGPU_MSG_PHYS_FREE: {
        CHECK(args32(a, q, 0, 1));
        long h = hold_find(c, A32(0));
        srv_alloc *al = alloc_at(A32(0));
        if (h < 0 || !al)
            return fail(a, VMGPU_ERR_NOT_FOUND, "phys_free: this process holds no allocation at "
                        "0x%08x", A32(0));
        if (al->holders == 1 && !al->npipes) {
            int rc = vmgpu_phys_free(dev, al->pa);  /* BUSY while mapped: nothing changes */
            if (rc) return rc;
            alloc_remove(al);
        } else {
            al->holders--;
        }
        c->holds[h] = c->holds[--c->nholds];
        return VMGPU_OK;
    }
    case VMGPU_MSG_PHYS_STATS: {
        uint32_t fb;
        unsigned n;
        CHECK(vmgpu_phys_stats(dev, &fb, &n));
        a->h.ret[0] = fb;
        a->h.ret[1] = n;
        return VMGPU_OK;
    }
    case VMGPU_MSG_PHYS_WRITE:
    case VMGPU_MSG_PHYS_READ:
        CHECK(args32(a, q, 0, 1));
        CHECK(bulk_len(a, q->arg[1]));
        if (q->arg[0] + q->arg[1] > g_srv.dev->info.mem_size) {
            /* out of the device: the core's own VMGPU_ERR_INVALID */
        } else if (q->op == VMGPU_MSG_PHYS_READ && own_page_table(c, q->arg[0], q->arg[1])) {
            /* the client's own page tables: readable */
        } else if (!holds_range(c, q->arg[0], q->arg[1]))
            return fail(a, VMGPU_ERR_NOT_FOUND, "phys_%s: 0x%08llx+%llu is not in memory this "
                        "process holds", q->op == VMGPU_MSG_PHYS_WRITE ? "write" : "read",
                        (unsigned long long)q->arg[0], (unsigned long long)q->arg[1]);
        return q->op == VMGPU_MSG_PHYS_WRITE ? vmgpu_phys_write(dev, A32(0), c->bulk, q->arg[1])
                                            : vmgpu_phys_read(dev, A32(0), c->bulk, q->arg[1]);
    }
    return VMGPU_ERR_INVALID;
}

static int op_export(request *r, answer *a)
{
    srv_client *c = r->c;
    const vmgpu_req *q = r->q;
    CHECK(args32(a, q, 0, 1));
    srv_alloc *al = alloc_at(A32(0));
    if (hold_find(c, A32(0)) < 0 || !al)
        return fail(a, VMGPU_ERR_NOT_FOUND, "export: this process holds no allocation at 0x%08x",
                    A32(0));
    /* A new pipe per export: its write end is the descriptor; the read end stays here and
     * hangs up when the last copy of the write end is closed, in whatever process. */
    int p[2];
    struct stat st;
    if (pipe2(p, O_CLOEXEC | O_NONBLOCK)) return fail(a, VMGPU_ERR_NOMEM, "export: pipe: %s", strerror(errno));
    int *np = realloc(al->pipes, (al->npipes + 1) * sizeof *np);
    if (np) al->pipes = np;
    ino_t *ni = np ? realloc(al->inos, (al->npipes + 1) * sizeof *ni) : NULL;
    if (ni) al->inos = ni;
    if (!np || !ni || fstat(p[0], &st)) {
        close(p[0]);
        close(p[1]);
        return fail(a, VMGPU_ERR_NOMEM, "export: out of host memory");
    }
    al->pipes[al->npipes] = p[0];
    al->inos[al->npipes] = st.st_ino;
    al->pipe_dev = st.st_dev;
    al->npipes++;
    a->fd = p[1];
    a->h.ret[0] = al->size;
    return VMGPU_OK;
}

static int op_import(request *r, answer *a)
{
    srv_client *c = r->c;
    struct stat st;
    if (r->fd < 0) return fail(a, VMGPU_ERR_INVALID, "import: no descriptor came with the request");
    if (fstat(r->fd, &st)) return fail(a, VMGPU_ERR_INVALID, "import: unusable descriptor");
    for (size_t i = 0; i < g_srv.nallocs; i++) {
        srv_alloc *al = &g_srv.allocs[i];
        for (size_t j = 0; j < al->npipes; j++) {
            if (al->inos[j] != st.st_ino || al->pipe_dev != st.st_dev) continue;
            if (hold_add(c, al->pa)) return fail(a, VMGPU_ERR_NOMEM, "server out of host memory");
            al->holders++;
            al->dying = 0;
            a->h.ret[0] = al->pa;
            a->h.ret[1] = al->size;
            return VMGPU_OK;
        }
    }
    return fail(a, VMGPU_ERR_NOT_FOUND, "import: the descriptor names no exported allocation "
                "(not made by this server's export, or its memory is gone)");
}

/* Legacy IPC memory handles: a token per allocation, good while the allocation lives. */
static int op_ipc_mem(request *r, answer *a)
{
    srv_client *c = r->c;
    const vmgpu_req *q = r->q;
    if (q->op == VMGPU_MSG_IPC_MEM_TOKEN) {
        CHECK(args32(a, q, 0, 1));
        srv_alloc *al = alloc_at(A32(0));
        if (hold_find(c, A32(0)) < 0 || !al)
            return fail(a, VMGPU_ERR_NOT_FOUND, "ipc_token: this process holds no allocation at 0x%08x", A32(0));
        if (!al->token) {
            al->token = new_token();
            al->token_maker = c->serial;
        }
        a->h.ret[0] = al->token;
        return VMGPU_OK;
    }
    for (size_t i = 0; i < g_srv.nallocs; i++) {
        srv_alloc *al = &g_srv.allocs[i];
        if (!al->token || al->token != q->arg[0] || al->dying) continue;
        a->h.ret[0] = al->pa;
        a->h.ret[1] = al->size;
        if (al->token_maker == c->serial) {
            a->h.ret[2] = 1;  /* its own allocation: nothing opened */
            return VMGPU_OK;
        }
        if (hold_add(c, al->pa)) return fail(a, VMGPU_ERR_NOMEM, "server out of host memory");
        al->holders++;
        return VMGPU_OK;
    }
    return fail(a, VMGPU_ERR_NOT_FOUND, "ipc_open: no allocation has that handle (never made, or freed)");
}

static int op_host(request *r, answer *a)
{
    srv_client *c = r->c;
    const vmgpu_req *q = r->q;
    if (q->op == VMGPU_MSG_HOST_REGISTER) {
        if (c->nregs >= SRV_MAX_OBJECTS) return fail(a, VMGPU_ERR_NOMEM, "too many registrations");
        if (c->nregs == c->capregs) {
            size_t nc = c->capregs ? c->capregs * 2 : 8;
            srv_reg *n = realloc(c->regs, nc * sizeof *n);
            if (!n) return fail(a, VMGPU_ERR_NOMEM, "server out of host memory");
            c->regs = n;
            c->capregs = nc;
        }
        uint32_t haddr;
        CHECK(vmgpu_host_register_for(g_srv.dev, (uintptr_t)c, (uintptr_t)q->arg[0],
                                      (size_t)q->arg[1], &haddr));
        /* A memfd with it: the client shares that memory in place; map it here too. */
        uint8_t *local = NULL;
        struct stat st;
        if (r->fd >= 0 && fstat(r->fd, &st) == 0 && (uint64_t)st.st_size >= q->arg[1]) {
            void *m = mmap(NULL, (size_t)q->arg[1], PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
            if (m != MAP_FAILED) local = m;
        }
        c->regs[c->nregs++] = (srv_reg){(uintptr_t)q->arg[0], (size_t)q->arg[1], haddr, local};
        a->h.ret[0] = haddr;
        return VMGPU_OK;
    }
    CHECK(vmgpu_host_unregister_for(g_srv.dev, (uintptr_t)c, (uintptr_t)q->arg[0]));
    for (size_t i = 0; i < c->nregs; i++)
        if (c->regs[i].addr == (uintptr_t)q->arg[0]) {
            if (c->regs[i].local) munmap(c->regs[i].local, c->regs[i].size);
            c->regs[i] = c->regs[--c->nregs];
            break;
        }
    return VMGPU_OK;
}

static int op_ctx(request *r, answer *a)
{
    srv_client *c = r->c;
    const vmgpu_req *q = r->q;
    vmgpu_ctx *x;
    if (q->op == VMGPU_MSG_CTX_CREATE) {
        int64_t ring = (int64_t)q->arg[0];
        if (ring < -1 || ring > 255) return fail(a, VMGPU_ERR_INVALID, "ctx_create: ring %lld", (long long)ring);
        uint32_t id;
        CHECK(vmgpu_ctx_create(g_srv.dev, (int)ring, &x));
        if (add_obj((void ***)&c->ctx, &c->nctx, x, &id)) {
            vmgpu_ctx_destroy(x);
            return fail(a, VMGPU_ERR_NOMEM, "ctx_create: too many contexts");
        }
        a->h.ret[0] = id;
        a->h.ret[1] = vmgpu_ctx_asid(x);
        a->h.ret[2] = vmgpu_ctx_root(x);
        a->h.ret[3] = x->home_ring;
        return VMGPU_OK;
    }
    CHECK(ctx_of(a, c, q->arg[0], &x));
    switch (q->op) {
    case VMGPU_MSG_CTX_DESTROY: {
        CHECK(vmgpu_ctx_destroy(x));
        c->ctx[q->arg[0] - 1] = NULL;
        srv_reap();
        return VMGPU_OK;
    }
    case VMGPU_MSG_CTX_STATUS:
        a->h.ret[0] = vmgpu_ctx_status(x, a->text, sizeof a->text) != VMGPU_OK;
        return VMGPU_OK;
    case VMGPU_MSG_CTX_CLEAR_FAULT: return vmgpu_ctx_clear_fault(x);
    case VMGPU_MSG_VA_RESERVE: {
        CHECK(args32(a, q, 1, 3));
        uint32_t va;
        CHECK(vmgpu_va_reserve(x, A32(1), A32(2), A32(3), &va));
        a->h.ret[0] = va;
        return VMGPU_OK;
    }
    case VMGPU_MSG_VA_FREE: CHECK(args32(a, q, 1, 1)); return vmgpu_va_free(x, A32(1));
    case VMGPU_MSG_VA_STATS: {
        uint32_t b;
        unsigned n;
        CHECK(vmgpu_va_stats(x, &b, &n));
        a->h.ret[0] = b;
        a->h.ret[1] = n;
        return VMGPU_OK;
    }
    case VMGPU_MSG_MAP:
        CHECK(args32(a, q, 1, 4));
        CHECK(map_target(a, c, q->arg[2], q->arg[3], q->arg[4]));
        return vmgpu_map(x, A32(1), A32(2), A32(3), A32(4));
    case VMGPU_MSG_UNMAP: {
        CHECK(args32(a, q, 1, 2));
        int rc = vmgpu_unmap(x, A32(1), A32(2));
        srv_reap();
        return rc;
    }
    case VMGPU_MSG_PROTECT: CHECK(args32(a, q, 1, 3)); return vmgpu_protect(x, A32(1), A32(2), A32(3));
    case VMGPU_MSG_QUERY: {
        CHECK(args32(a, q, 1, 1));
        uint32_t pte;
        CHECK(vmgpu_query(x, A32(1), &pte));
        a->h.ret[0] = pte;
        return VMGPU_OK;
    }
    case VMGPU_MSG_CTX_WRITE:
        CHECK(args32(a, q, 1, 1));
        CHECK(bulk_len(a, q->arg[2]));
        return vmgpu_ctx_write(x, A32(1), c->bulk, q->arg[2]);
    case VMGPU_MSG_CTX_READ:
        CHECK(args32(a, q, 1, 1));
        CHECK(bulk_len(a, q->arg[2]));
        return vmgpu_ctx_read(x, A32(1), c->bulk, q->arg[2]);
    }
    return VMGPU_ERR_INVALID;
}

static int op_stream(request *r, answer *a)
{
    srv_client *c = r->c;
    const vmgpu_req *q = r->q;
    vmgpu_stream *s;
    if (q->op == VMGPU_MSG_STREAM_CREATE) {
        vmgpu_ctx *x;
        CHECK(ctx_of(a, c, q->arg[0], &x));
        CHECK(args32(a, q, 1, 1));
        uint32_t id;
        CHECK(vmgpu_stream_create(x, A32(1), &s));
        if (add_obj((void ***)&c->st, &c->nst, s, &id)) {
            vmgpu_stream_destroy(s);
            return fail(a, VMGPU_ERR_NOMEM, "stream_create: too many streams");
        }
        a->h.ret[0] = id;
        return VMGPU_OK;
    }
    CHECK(stream_of(a, c, q->arg[0], &s));
    CHECK(args32(a, q, 1, 8));
    switch (q->op) {
    case VMGPU_MSG_STREAM_DESTROY: {
        c->st[q->arg[0] - 1] = NULL;
        return vmgpu_stream_destroy(s);
    }
    case VMGPU_MSG_CMD_COPY: return vmgpu_cmd_copy(s, A32(1), A32(2), A32(3));
    case VMGPU_MSG_CMD_COPY_2D: return vmgpu_cmd_copy_2d(s, A32(1), A32(2), A32(3), A32(4), A32(5), A32(6));
    case VMGPU_MSG_CMD_FILL: return vmgpu_cmd_fill(s, A32(1), A32(2), A32(3), A32(4));
    case VMGPU_MSG_CMD_FILL_2D: return vmgpu_cmd_fill_2d(s, A32(1), A32(2), A32(3), A32(4), A32(5), A32(6));
    case VMGPU_MSG_CMD_LAUNCH: return vmgpu_cmd_launch(s, A32(1), A32(2), A32(3), A32(4), A32(5), A32(6));
    case VMGPU_MSG_CMD_GFX_FILL: return vmgpu_cmd_gfx_fill(s, A32(1), A32(2), A32(3), A32(4), A32(5));
    case VMGPU_MSG_CMD_GFX_BLIT:
        return vmgpu_cmd_gfx_blit(s, A32(1), A32(2), A32(3), A32(4), A32(5), A32(6), A32(7), A32(8));
    case VMGPU_MSG_CMD_GFX_MIPGEN:
        return vmgpu_cmd_gfx_mipgen(s, A32(1), A32(2), A32(3), A32(4), A32(5), A32(6), A32(7), A32(8));
    case VMGPU_MSG_CMD_TIMESTAMP:
        if (!(q->arg[1] & 3) && q->arg[1] + 8 <= g_srv.dev->info.mem_size && !holds_range(c, q->arg[1], 8))
            return fail(a, VMGPU_ERR_NOT_FOUND, "timestamp: pa 0x%08x is not in memory this "
                        "process holds", A32(1));
        return vmgpu_cmd_timestamp(s, A32(1));
    case VMGPU_MSG_CMD_WAIT_FENCE: return vmgpu_cmd_wait_fence(s, A32(1), A32(2));
    case VMGPU_MSG_CMD_TLB_INV: return vmgpu_cmd_tlb_inv(s);
    case VMGPU_MSG_CMD_LAUNCH_PROG: {
        CHECK(args32(a, q, 9, 1));
        uint32_t grid[3] = {A32(3), A32(4), A32(5)}, block[3] = {A32(6), A32(7), A32(8)};
        return vmgpu_cmd_launch_prog(s, A32(1), A32(2), grid, block, A32(9));
    }
    case VMGPU_MSG_STREAM_MAP:
        CHECK(map_target(a, c, q->arg[2], q->arg[3], q->arg[4]));
        return vmgpu_stream_map(s, A32(1), A32(2), A32(3), A32(4));
    case VMGPU_MSG_STREAM_SUBMIT: {
        uint32_t f;
        CHECK(vmgpu_stream_submit(s, &f));
        a->h.ret[0] = f;
        return VMGPU_OK;
    }
    case VMGPU_MSG_STREAM_SYNC: return vmgpu_stream_sync(s);
    case VMGPU_MSG_STREAM_WAIT_STREAM: {
        vmgpu_stream *s2;
        CHECK(stream_of(a, c, q->arg[1], &s2));
        return vmgpu_stream_wait_stream(s, s2);
    }
    }
    return VMGPU_ERR_INVALID;
}

static int op_event(request *r, answer *a)
{
    srv_client *c = r->c;
    const vmgpu_req *q = r->q;
    vmgpu_event *e, *e2;
    if (q->op == VMGPU_MSG_IPC_EVENT_OPEN) {
        for (size_t i = 0; i < g_srv.nsev; i++) {
            srv_shared_event *sh = &g_srv.sev[i];
            if (sh->token != q->arg[0] || q->arg[0] == 0) continue;
            if (sh->maker == c->serial) {
                a->h.ret[1] = 1;  /* its own event: nothing opened */
                return VMGPU_OK;
            }
            uint32_t id;
            if (add_obj((void ***)&c->ev, &c->nev, sh->ev, &id))
                return fail(a, VMGPU_ERR_NOMEM, "ipc_event_open: too many events");
            sh->refs++;
            a->h.ret[0] = id;
            return VMGPU_OK;
        }
        return fail(a, VMGPU_ERR_NOT_FOUND, "ipc_event_open: no event has that handle");
    }
    if (q->op == VMGPU_MSG_EVENT_CREATE) {
        uint32_t id;
        CHECK(vmgpu_event_create(g_srv.dev, &e));
        if (add_obj((void ***)&c->ev, &c->nev, e, &id)) {
            vmgpu_event_destroy(e);
            return fail(a, VMGPU_ERR_NOMEM, "event_create: too many events");
        }
        a->h.ret[0] = id;
        return VMGPU_OK;
    }
    CHECK(event_of(a, c, q->arg[0], &e));
    uint64_t cyc = 0;
    int rc;
    switch (q->op) {
    case VMGPU_MSG_EVENT_DESTROY:
        c->ev[q->arg[0] - 1] = NULL;
        return event_release(e);
    case VMGPU_MSG_IPC_EVENT_TOKEN: {
        srv_shared_event *sh = shared_of(e);
        if (!sh) {
            srv_shared_event *n = realloc(g_srv.sev, (g_srv.nsev + 1) * sizeof *n);
            if (!n) return fail(a, VMGPU_ERR_NOMEM, "server out of host memory");
            g_srv.sev = n;
            sh = &g_srv.sev[g_srv.nsev++];
            *sh = (srv_shared_event){e, new_token(), c->serial, 1};
        }
        a->h.ret[0] = sh->token;
        return VMGPU_OK;
    }
    case VMGPU_MSG_EVENT_RECORD: {
        vmgpu_stream *s;
        CHECK(stream_of(a, c, q->arg[1], &s));
        return vmgpu_event_record(e, s);
    }
    case VMGPU_MSG_EVENT_QUERY: return vmgpu_event_query(e);
    case VMGPU_MSG_EVENT_WAIT: return vmgpu_event_wait(e);
    case VMGPU_MSG_EVENT_CYCLES:
        rc = vmgpu_event_cycles(e, &cyc);
        a->h.ret[0] = cyc;
        return rc;
    case VMGPU_MSG_EVENT_ELAPSED:
        CHECK(event_of(a, c, q->arg[1], &e2));
        rc = vmgpu_event_elapsed(e, e2, &cyc);
        a->h.ret[0] = cyc;
        return rc;
    }
    return VMGPU_ERR_INVALID;
}

static int op_device(request *r, answer *a)
{
    const vmgpu_req *q = r->q;
    vmgpu_dev *dev = g_srv.dev;
    vmgpu_dev_info in;
    vmgpu_dev_get_info(dev, &in);
    uint64_t v = 0;
    int rc = VMGPU_OK;
    if (q->op == VMGPU_MSG_FENCE_WAIT || q->op == VMGPU_MSG_FENCE_QUERY ||
        q->op == VMGPU_MSG_FENCE_LAST || q->op == VMGPU_MSG_RING_FAULTED) {
        CHECK(args32(a, q, 0, 2));
        if (q->arg[0] >= in.n_rings) return fail(a, VMGPU_ERR_INVALID, "ring %llu: the device has %u",
                                                 (unsigned long long)q->arg[0], in.n_rings);
    }
    switch (q->op) {
    case VMGPU_MSG_NOOP: return VMGPU_OK;
    case VMGPU_MSG_CYCLES: rc = vmgpu_dev_cycles(dev, &v); break;
    case VMGPU_MSG_RUN_IDLE: return vmgpu_dev_run_idle(dev);
    case VMGPU_MSG_POLL:
        rc = vmgpu_dev_poll(dev, q->arg[0] > (1u << 24) ? (1u << 24) : q->arg[0], &v);
        break;
    case VMGPU_MSG_FENCE_WAIT: return vmgpu_fence_wait(dev, A32(0), A32(1));
    case VMGPU_MSG_FENCE_QUERY: return vmgpu_fence_query(dev, A32(0), A32(1));
    case VMGPU_MSG_FENCE_LAST: v = vmgpu_fence_last(dev, A32(0)); break;
    case VMGPU_MSG_RING_FAULTED:
        rc = vmgpu_ring_faulted(dev, A32(0));
        if (rc >= 0) {
            v = (uint64_t)rc;
            rc = VMGPU_OK;
        }
        break;
    case VMGPU_MSG_STATE_HASH: v = vmgpu_debug_state_hash(dev); break;
    case VMGPU_MSG_REG_READ: {
        /* Counters, the event FIFO, the ring state: what tools and lessons look at. Not the
         * memory port (MEM_ADDR/MEM_DATA would read any physical memory). */
        uint64_t off = q->arg[0];
        int ring_reg = off >= VMGPU_REG_RING_BASE &&
                       off < VMGPU_REG_RING_BASE + (uint64_t)VMGPU_REG_RING_MAX * VMGPU_REG_RING_STRIDE;
        int counter = off == VMGPU_REG_MEM_REFRESH_CYCLES || off == VMGPU_REG_SIMT_CONFIG ||
                      off == VMGPU_REG_SIMT_CYCLES || off == VMGPU_REG_SIMT_LANE_INSTRS ||
                      off == VMGPU_REG_SIMT_WARP_INSTRS;  /* past SCRATCH, read-only */
        if ((off & 3) || (!ring_reg && !counter && (off > VMGPU_REG_SCRATCH || off == VMGPU_REG_MEM_ADDR ||
                                                    off == VMGPU_REG_MEM_DATA)))
            return fail(a, VMGPU_ERR_INVALID, "register 0x%llx: not readable through the server",
                        (unsigned long long)off);
        uint32_t val = 0;
        if (vmgpu_reg_read(vmgpu_dev_hal(dev), (uint32_t)off, &val))
            return fail(a, VMGPU_ERR_IO, "register 0x%llx: the transport failed", (unsigned long long)off);
        v = val;
        break;
    }
    case VMGPU_MSG_REG_WRITE:
        if (q->arg[0] != VMGPU_REG_EVT_POP)
            return fail(a, VMGPU_ERR_INVALID, "register 0x%llx: only EVT_POP may be written "
                        "through the server", (unsigned long long)q->arg[0]);
        if (vmgpu_reg_write(vmgpu_dev_hal(dev), VMGPU_REG_EVT_POP, 1))
            return fail(a, VMGPU_ERR_IO, "EVT_POP: the transport failed");
        return VMGPU_OK;
    case VMGPU_MSG_LINK_TRIPS: rc = vmgpu_dev_link_round_trips(dev, &v); break;
    default: return VMGPU_ERR_INVALID;
    }
    a->h.ret[0] = v;
    return rc;
}

static int dispatch(request *r, answer *a)
{
    unsigned op = r->q->op;
    if (op == VMGPU_MSG_HELLO) return op_hello(r, a);
    if (!r->c->hello_done) return fail(a, VMGPU_ERR_INVALID, "HELLO must come first");
    switch (op) {
    case VMGPU_MSG_PHYS_ALLOC: case VMGPU_MSG_PHYS_FREE: case VMGPU_MSG_PHYS_STATS:
    case VMGPU_MSG_PHYS_WRITE: case VMGPU_MSG_PHYS_READ:
        return op_phys(r, a);
    case VMGPU_MSG_EXPORT: return op_export(r, a);
    case VMGPU_MSG_IPC_MEM_TOKEN: case VMGPU_MSG_IPC_MEM_OPEN: return op_ipc_mem(r, a);
    case VMGPU_MSG_IMPORT: return op_import(r, a);
    case VMGPU_MSG_HOST_REGISTER: case VMGPU_MSG_HOST_UNREGISTER: return op_host(r, a);
    case VMGPU_MSG_CTX_CREATE: case VMGPU_MSG_CTX_DESTROY: case VMGPU_MSG_CTX_STATUS:
    case VMGPU_MSG_CTX_CLEAR_FAULT: case VMGPU_MSG_VA_RESERVE: case VMGPU_MSG_VA_FREE:
    case VMGPU_MSG_VA_STATS: case VMGPU_MSG_MAP: case VMGPU_MSG_UNMAP: case VMGPU_MSG_PROTECT:
    case VMGPU_MSG_QUERY: case VMGPU_MSG_CTX_WRITE: case VMGPU_MSG_CTX_READ:
        return op_ctx(r, a);
    case VMGPU_MSG_STREAM_CREATE: case VMGPU_MSG_STREAM_DESTROY: case VMGPU_MSG_CMD_COPY:
    case VMGPU_MSG_CMD_COPY_2D: case VMGPU_MSG_CMD_FILL: case VMGPU_MSG_CMD_FILL_2D:
    case VMGPU_MSG_CMD_LAUNCH: case VMGPU_MSG_CMD_GFX_FILL: case VMGPU_MSG_CMD_GFX_BLIT:
    case VMGPU_MSG_CMD_GFX_MIPGEN: case VMGPU_MSG_CMD_TIMESTAMP: case VMGPU_MSG_CMD_WAIT_FENCE:
    case VMGPU_MSG_CMD_TLB_INV: case VMGPU_MSG_CMD_LAUNCH_PROG: case VMGPU_MSG_STREAM_MAP: case VMGPU_MSG_STREAM_SUBMIT: case VMGPU_MSG_STREAM_SYNC:
    case VMGPU_MSG_STREAM_WAIT_STREAM:
        return op_stream(r, a);
    case VMGPU_MSG_EVENT_CREATE: case VMGPU_MSG_EVENT_DESTROY: case VMGPU_MSG_EVENT_RECORD:
    case VMGPU_MSG_EVENT_QUERY: case VMGPU_MSG_EVENT_WAIT: case VMGPU_MSG_EVENT_CYCLES:
    case VMGPU_MSG_EVENT_ELAPSED: case VMGPU_MSG_IPC_EVENT_TOKEN: case VMGPU_MSG_IPC_EVENT_OPEN:
        return op_event(r, a);
    default:
        return op_device(r, a);
    }
}

/* ------------------------------------------------------------------- the socket */

static void send_answer(srv_client *c, answer *a)
{
    a->h.textlen = (uint32_t)strnlen(a->text, sizeof a->text - 1);
    struct iovec iov[2] = {{&a->h, sizeof a->h}, {a->text, a->h.textlen}};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } cm;
    struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2};
    if (a->fd >= 0) {
        memset(&cm, 0, sizeof cm);
        mh.msg_control = cm.buf;
        mh.msg_controllen = sizeof cm.buf;
        struct cmsghdr *cmh = CMSG_FIRSTHDR(&mh);
        cmh->cmsg_level = SOL_SOCKET;
        cmh->cmsg_type = SCM_RIGHTS;
        cmh->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cmh), &a->fd, sizeof(int));
    }
    ssize_t n;
    do n = sendmsg(c->sock, &mh, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (a->fd >= 0) close(a->fd);  /* the client has its copy now (or never will) */
}

int srv_client_serve(srv_client *c)
{
    union {
        vmgpu_req q;
        char raw[sizeof(vmgpu_req) + 64];
    } m;
    union {
        char buf[CMSG_SPACE(8 * sizeof(int))];
        struct cmsghdr align;
    } cm;
    struct iovec iov = {&m, sizeof m};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.buf,
                        .msg_controllen = sizeof cm.buf};
    ssize_t n;
    do n = recvmsg(c->sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
    if (n <= 0) return -1;
    /* Every descriptor that came along is ours to close; at most the expected ones are used. */
    int fds[8], nfds = 0;
    for (struct cmsghdr *cmh = CMSG_FIRSTHDR(&mh); cmh; cmh = CMSG_NXTHDR(&mh, cmh))
        if (cmh->cmsg_level == SOL_SOCKET && cmh->cmsg_type == SCM_RIGHTS) {
            int k = (int)((cmh->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int i = 0; i < k && nfds < 8; i++) memcpy(&fds[nfds++], CMSG_DATA(cmh) + i * sizeof(int), sizeof(int));
        }
    answer a;
    memset(&a.h, 0, sizeof a.h);
    a.text[0] = 0;
    a.fd = -1;
    a.h.magic = VMGPU_PROTO_MAGIC;
    a.h.version = VMGPU_PROTO_VERSION;
    a.h.op = n >= 8 ? m.q.op : 0;
    a.h.seq = n >= 12 ? m.q.seq : 0;
    int status;
    if ((size_t)n != sizeof m.q || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)))
        status = fail(&a, VMGPU_ERR_INVALID, "malformed request: %zd bytes (a request is %zu)",
                      n, sizeof m.q);
    else if (m.q.magic != VMGPU_PROTO_MAGIC || m.q.reserved)
        status = fail(&a, VMGPU_ERR_INVALID, "malformed request: bad magic 0x%08x", m.q.magic);
    else if (m.q.version != VMGPU_PROTO_VERSION)
        status = fail(&a, VMGPU_ERR_INVALID, "protocol version %u; this server speaks %u",
                      m.q.version, VMGPU_PROTO_VERSION);
    else if (m.q.op == 0 || m.q.op >= VMGPU_MSG_COUNT)
        status = fail(&a, VMGPU_ERR_INVALID, "unknown operation %u", m.q.op);
    else if (nfds > (m.q.op == VMGPU_MSG_HELLO ? 2 : m.q.op == VMGPU_MSG_IMPORT || m.q.op == VMGPU_MSG_HOST_REGISTER ? 1 : 0))
        status = fail(&a, VMGPU_ERR_INVALID, "%d descriptors came with operation %u", nfds, m.q.op);
    else {
        if (m.q.op == VMGPU_MSG_HELLO && nfds == 2 && c->err_fd < 0 && !c->hello_done) {
            c->err_fd = fds[1];  /* the client's stderr, kept */
            fds[1] = -1;
        }
        request r = {c, &m.q, nfds ? fds[0] : -1};
        /* Trace lines and messages of this request go to the client's stderr. */
        if (c->err_fd >= 0) dup2(c->err_fd, 2);
        vmgpu_set_trace(c->trace);
        g_srv.dev->err[0] = 0;
        status = dispatch(&r, &a);
        if (status < 0 && !a.text[0]) snprintf(a.text, sizeof a.text, "%s", vmgpu_dev_last_error(g_srv.dev));
        fflush(stderr);
        if (g_srv.saved_stderr >= 0) dup2(g_srv.saved_stderr, 2);
        vmgpu_set_trace(0);
    }
    for (int i = 0; i < nfds; i++)
        if (fds[i] >= 0) close(fds[i]);
    a.h.status = status;
    a.h.trips = vmgpu_dev_hal(g_srv.dev)->round_trips;
    send_answer(c, &a);
    return 0;
}
