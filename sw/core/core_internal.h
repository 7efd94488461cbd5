/* Internal state of the driver core; shared by the files of sw/core only. */
#ifndef VMGPU_CORE_INTERNAL_H
#define VMGPU_CORE_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>

#include "vmgpu/core.h"
#include "vmgpu/regs.h"

#define PDE_COUNT 1024u
#define PTE_COUNT 1024u
#define MAX_ASIDS 256u
#define MAX_EVENTS 500u  /* timestamp slots in the scratch page */

/* ------------------------------------------------ range allocator (alloc.c) */
/* Sorted, non-overlapping [start, start+size) ranges inside [lo, hi); used for device memory,
 * the page-table pool, VA reservations and host frames. */
typedef struct range {
    uint32_t start, size;
    uint32_t refs;  /* pages of this range mapped somewhere (phys, host) */
    void *user;     /* host registrations: the host pointer */
    uintptr_t owner;/* host registrations made for another process (the server's client), 0 */
} range;
typedef struct range_set {
    range *r;
    size_t n, cap;
    uint64_t lo, hi;  /* 64-bit so that hi may be 2^32 */
} range_set;

void rs_init(range_set *rs, uint64_t lo, uint64_t hi);
void rs_free_all(range_set *rs);
/* First fit; returns 0 and *start, or -1. fixed != 0: exactly there. */
int rs_alloc(range_set *rs, uint32_t size, uint32_t align, uint32_t fixed, uint32_t *start);
/* Index of the range starting exactly at start, or -1. */
long rs_find_start(const range_set *rs, uint32_t start);
/* Index of the range containing addr, or -1. */
long rs_find(const range_set *rs, uint32_t addr);
void rs_remove(range_set *rs, size_t idx);
uint64_t rs_used(const range_set *rs);
uint64_t rs_hash(const range_set *rs, uint64_t h);

/* ------------------------------------------------------------ device objects */
typedef struct ring_state {
    uint32_t base, size;     /* in device memory */
    uint32_t tail;           /* next byte offset the core writes (== TAIL after a flush) */
    uint32_t head;           /* last HEAD read back */
    uint32_t fence_issued;   /* last fence value queued */
    uint32_t fence_done;     /* last FENCE value read back */
    uint32_t dropped_upto;   /* fences in (fence_done_at_reset, dropped_upto] were dropped */
    uint32_t dropped_from;
    int has_dropped;
    char dropped_msg[320];
    uint32_t replayed[64];   /* fences in the dropped range queued again (other contexts') */
    unsigned nreplayed;
    const vmgpu_ctx *fence_owner[256]; /* by fence value & 255: whose work a FENCE marks */
    vmgpu_ctx *bound;        /* context the ring will be bound to after its queued commands */
    uint32_t *pend;          /* commands queued on the host, not yet in the ring */
    size_t npend, cappend;
    /* 1 after an event record: the ring's queued commands are held (submits only queue) until
     * the next event record on the ring or until something waits, so the work between two
     * event records reaches the device in one batch (see vmgpu_event_record). */
    int hold;
} ring_state;

struct vmgpu_dev {
    vmgpu_hal *hal;
    int own_hal;
    vmgpu_dev_info info;
    uint64_t timeout_cycles;
    ring_state ring[VMGPU_REG_RING_MAX];
    range_set phys;     /* user device memory */
    range_set ptpool;   /* page directories and page tables */
    range_set hostf;    /* host frames (frame numbers) */
    uint32_t scratch_pa;
    vmgpu_ctx *ctx_by_asid[MAX_ASIDS];
    vmgpu_ctx **ctxs;
    size_t nctx, capctx;
    vmgpu_stream **streams;
    size_t nstreams, capstreams;
    vmgpu_event *event_slot[MAX_EVENTS];
    unsigned next_home_ring;
    char err[512];
    struct vmgpu_remote *remote;   /* non-NULL: a connection to the device server (remote.c) */
    vmgpu_host_access_fn host_access;  /* how registrations with an owner are reached */
    void *host_access_user;
};

struct vmgpu_ctx {
    vmgpu_dev *dev;
    unsigned asid;
    unsigned home_ring;
    uint32_t root;                 /* page directory pa */
    uint32_t pde[PDE_COUNT];       /* shadow of the page directory */
    uint32_t *pt[PDE_COUNT];       /* shadow of each page table (NULL: none) */
    range_set va;
    int faulted;
    char fault_msg[256];
    uint32_t args_va, args_pa;     /* argument area (0 until the first launch) */
    uint32_t stack_va, stack_pa;   /* SIMT stack area (0 until the first LAUNCH_PROG) */
    unsigned args_next;
    unsigned nstreams;
    uint32_t rid;                  /* remote: the server's id of this context */
};

struct vmgpu_stream {
    vmgpu_ctx *ctx;
    unsigned ring;
    uint32_t last_fence;
    int submitted;
    uint32_t rid;                  /* remote: the server's id of this stream */
};

struct vmgpu_event {
    vmgpu_dev *dev;
    unsigned slot;
    int recorded;
    unsigned ring;
    uint32_t fence;
    uint32_t rid;                  /* remote: the server's id of this event */
};

/* ------------------------------------------------------------- helpers (dev.c) */
int core_fail(vmgpu_dev *dev, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void core_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int core_hal_err(vmgpu_dev *dev, int rc, const char *what);
/* Queue words on ring r (traced). Flushes earlier queued words when the batch grows large. */
int ring_emit(vmgpu_dev *dev, unsigned r, const uint32_t *w, size_t n);
/* Make ring r bound to ctx (queues BIND_CTX if needed). */
int ring_bind(vmgpu_dev *dev, unsigned r, vmgpu_ctx *ctx);
/* Queue FENCE, write everything to the ring, ring the doorbell. */
/* owner: the context the fence marks the work of (NULL: none in particular); a fault of one
 * context queues the others' fences again (replay_others in dev.c). */
int ring_submit(vmgpu_dev *dev, unsigned r, uint32_t *fence, const vmgpu_ctx *owner);
int ring_fence(vmgpu_dev *dev, unsigned r, uint32_t *fence, int flush, const vmgpu_ctx *owner);
int ring_flush_pending(vmgpu_dev *dev, unsigned r);
int stream_fence_deferred(vmgpu_stream *s, uint32_t *fence);
/* Room the queue must leave: commands larger than this are refused. */
size_t ring_max_cmd_words(const vmgpu_dev *dev, unsigned r);
void ctx_mark_faulted(vmgpu_ctx *ctx, const char *msg);

/* Registered host memory at host address haddr: copy bytes (inside one registration). */
int host_copy(vmgpu_dev *dev, uint32_t haddr, void *buf, size_t bytes, int write);
/* The transport's host-port handler (host.c), installed at open. */
int host_handler(void *user, uint32_t haddr, int write, uint32_t *data, unsigned be);

/* mmu.c */
void ctx_free_all(vmgpu_ctx *ctx);
uint64_t ctx_hash(const vmgpu_ctx *ctx, uint64_t h);

/* Register access in a function returning a vmgpu_status (dev in scope): a transport error
 * returns from it. */
#define RD(reg, v) do { int rc_ = vmgpu_reg_read(dev->hal, (reg), (v)); \
    if (rc_) return core_hal_err(dev, rc_, "register read"); } while (0)
#define WR(reg, v) do { int rc_ = vmgpu_reg_write(dev->hal, (reg), (v)); \
    if (rc_) return core_hal_err(dev, rc_, "register write"); } while (0)

#endif
