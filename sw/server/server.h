/* vmgpud, the device server: its clients, what they hold, and the requests it serves
 * (serve.c); the socket, the event loop and start-up are vmgpud.c's. */
#ifndef VMGPU_SERVER_H
#define VMGPU_SERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vmgpu/core.h"

/* Per-client limits: a client cannot exhaust the server's host memory with handles. */
#define SRV_MAX_OBJECTS 4096u

typedef struct srv_reg {
    uintptr_t addr;   /* in the client */
    size_t size;
    uint32_t haddr;
    uint8_t *local;   /* the same memory mapped here (the client shared it as a memfd), or NULL */
} srv_reg;

typedef struct srv_client {
    int sock;
    uint64_t serial;        /* never reused: names the client in IPC tokens' records */
    pid_t pid;
    int hello_done;
    int trace;
    int err_fd;             /* the client's stderr: its trace lines and messages go there */
    uint8_t *bulk;          /* the client's bulk buffer (VMGPU_PROTO_BULK_BYTES) */
    vmgpu_ctx **ctx;        /* id = index + 1; NULL once destroyed */
    size_t nctx;
    vmgpu_stream **st;
    size_t nst;
    vmgpu_event **ev;
    size_t nev;
    uint32_t *holds;        /* start of each allocation this client holds (with repeats) */
    size_t nholds, capholds;
    srv_reg *regs;
    size_t nregs, capregs;
} srv_client;

/* An allocation made through the server; it lives while a client holds it or an exported
 * descriptor of it is open anywhere. */
typedef struct srv_alloc {
    uint32_t pa, size;
    unsigned holders;
    int *pipes;             /* read ends of the export pipes (the write ends went out) */
    ino_t *inos;
    size_t npipes;
    dev_t pipe_dev;
    int dying;              /* no holder and no descriptor: freed as soon as nothing maps it */
    uint64_t token;         /* legacy IPC token (0: none yet) */
    uint64_t token_maker;   /* the serial of the client that asked for it */
} srv_alloc;

/* An event more than one client's table names (legacy IPC event handles). */
typedef struct srv_shared_event {
    vmgpu_event *ev;
    uint64_t token, maker;
    unsigned refs;          /* table entries naming it */
} srv_shared_event;

typedef struct srv_state {
    vmgpu_dev *dev;
    srv_alloc *allocs;
    size_t nallocs, capallocs;
    int saved_stderr;
    srv_shared_event *sev;
    size_t nsev;
    uint64_t next_serial;
} srv_state;

extern srv_state g_srv;

srv_client *srv_client_new(int sock);
/* The client is gone: free everything it held (docs/server.md, "when a client dies"). */
void srv_client_drop(srv_client *c);
/* Serve one request that arrived on c's socket; -1 when the client should be dropped. */
int srv_client_serve(srv_client *c);
/* The export pipe with read end fd hung up (every copy of its write end is closed). */
void srv_pipe_hangup(int fd);
/* Export pipes to watch: fills up to max read ends, returns how many there are. */
size_t srv_pipe_fds(int *out, size_t max);
/* Allocations left with no holder, no descriptor: free those nothing maps any more. */
void srv_reap(void);

#endif
