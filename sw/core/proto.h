/*
 * The device server's wire protocol (version 2), shared by the client side of the core
 * (sw/core/remote.c) and the server (sw/server/). docs/server.md describes it for readers.
 *
 * Transport: a Unix SOCK_SEQPACKET socket, so every message is one record and its size is
 * known exactly. A request is one vmgpu_req record (always sizeof(vmgpu_req) bytes); the answer
 * is one vmgpu_rep record followed by rep.textlen bytes of text (an error message, or the
 * context's fault message). File descriptors travel beside the record as SCM_RIGHTS: HELLO
 * carries the client's bulk memfd and its stderr, IMPORT the fd to import, and the answer to
 * EXPORT the fd that names the allocation. Bulk data (memory reads and writes) never crosses the
 * socket: it goes through the client's bulk memfd, mapped by both, at offset 0.
 */
#ifndef VMGPU_PROTO_H
#define VMGPU_PROTO_H

#include <stdint.h>

#define VMGPU_PROTO_MAGIC 0x44504756u   /* "VGPD" little-endian */
#define VMGPU_PROTO_VERSION 4u  /* 2: answers carry the link round trips; REG_READ/REG_WRITE;
                                   3: CMD_TLB_INV; 4: CMD_LAUNCH_PROG */
#define VMGPU_PROTO_NARGS 10
#define VMGPU_PROTO_TEXT_MAX 512u
/* Bytes of the bulk buffer every client hands the server at HELLO. */
#define VMGPU_PROTO_BULK_BYTES (1u << 20)

typedef struct vmgpu_req {
    uint32_t magic;
    uint16_t version;
    uint16_t op;
    uint32_t seq;        /* echoed in the answer */
    uint32_t reserved;   /* must be 0 */
    uint64_t arg[VMGPU_PROTO_NARGS];
} vmgpu_req;

typedef struct vmgpu_rep {
    uint32_t magic;
    uint16_t version;
    uint16_t op;
    uint32_t seq;
    int32_t status;      /* vmgpu_status */
    uint32_t textlen;    /* bytes of text after this header (<= VMGPU_PROTO_TEXT_MAX) */
    uint32_t reserved;
    uint64_t ret[4];
    uint64_t trips;      /* the transport's link round trips so far (after this call) */
} vmgpu_rep;

/* Operations. Arguments are listed as arg[0], arg[1], ...; "id" arguments are the client's own
 * object ids (contexts, streams, events), checked against the client's tables. */
enum vmgpu_msg {
    VMGPU_MSG_HELLO = 1,      /* pid, trace, flags(0) + fds [bulk memfd, stderr] -> server pid,
                                info words (version, mem_size, rings | tlb << 8 | gfx << 16,
                                user_base | (uint64_t)user_bytes << 32) */
    VMGPU_MSG_NOOP,           /* -> 0: the round trip alone (server_call_us) */
    VMGPU_MSG_CYCLES,         /* -> cycles */
    VMGPU_MSG_RUN_IDLE,
    VMGPU_MSG_POLL,           /* cycles: let the device run at most that many -> cycles ran */
    VMGPU_MSG_PHYS_ALLOC,     /* size, align -> pa */
    VMGPU_MSG_PHYS_FREE,      /* pa: drops the client's hold */
    VMGPU_MSG_PHYS_STATS,     /* -> free bytes, allocations */
    VMGPU_MSG_PHYS_WRITE,     /* pa, bytes (from bulk offset 0) */
    VMGPU_MSG_PHYS_READ,      /* pa, bytes (to bulk offset 0) */
    VMGPU_MSG_HOST_REGISTER,  /* client address, size [+ fd: a memfd holding that memory, mapped
                                 over it in the client] -> haddr */
    VMGPU_MSG_HOST_UNREGISTER,/* client address */
    VMGPU_MSG_CTX_CREATE,     /* home ring (int) -> id, asid, root */
    VMGPU_MSG_CTX_DESTROY,    /* id */
    VMGPU_MSG_CTX_STATUS,     /* id -> status + fault text */
    VMGPU_MSG_CTX_CLEAR_FAULT,/* id */
    VMGPU_MSG_VA_RESERVE,     /* id, size, align, fixed -> va */
    VMGPU_MSG_VA_FREE,        /* id, va */
    VMGPU_MSG_VA_STATS,       /* id -> bytes, ranges */
    VMGPU_MSG_MAP,            /* id, va, pa, size, flags */
    VMGPU_MSG_UNMAP,          /* id, va, size */
    VMGPU_MSG_PROTECT,        /* id, va, size, flags */
    VMGPU_MSG_QUERY,          /* id, va -> pte */
    VMGPU_MSG_CTX_WRITE,      /* id, va, bytes (bulk) */
    VMGPU_MSG_CTX_READ,       /* id, va, bytes (bulk) */
    VMGPU_MSG_STREAM_CREATE,  /* ctx id, ring -> id */
    VMGPU_MSG_STREAM_DESTROY, /* id */
    VMGPU_MSG_CMD_COPY,       /* id, dst, src, bytes */
    VMGPU_MSG_CMD_COPY_2D,    /* id, dst, dpitch, src, spitch, width, height */
    VMGPU_MSG_CMD_FILL,       /* id, dst, bytes, pattern, pattern bytes */
    VMGPU_MSG_CMD_FILL_2D,    /* id, dst, pitch, width, height, pattern, pattern bytes */
    VMGPU_MSG_CMD_LAUNCH,     /* id, kernel, dst, a, b, n, scalar */
    VMGPU_MSG_CMD_GFX_FILL,   /* id, dst, pitch, width, height, color */
    VMGPU_MSG_CMD_GFX_BLIT,   /* id, src, spitch, sw, sh, dst, dpitch, dw, dh */
    VMGPU_MSG_CMD_GFX_MIPGEN, /* same as BLIT */
    VMGPU_MSG_CMD_TIMESTAMP,  /* id, pa (inside an allocation the client holds) */
    VMGPU_MSG_CMD_WAIT_FENCE, /* id, ring, value */
    VMGPU_MSG_STREAM_MAP,     /* id, va, pa, size, flags */
    VMGPU_MSG_STREAM_SUBMIT,  /* id -> fence */
    VMGPU_MSG_STREAM_SYNC,    /* id */
    VMGPU_MSG_STREAM_WAIT_STREAM, /* waiter id, id */
    VMGPU_MSG_FENCE_WAIT,     /* ring, value */
    VMGPU_MSG_FENCE_QUERY,    /* ring, value */
    VMGPU_MSG_FENCE_LAST,     /* ring -> value */
    VMGPU_MSG_RING_FAULTED,   /* ring -> 0/1 */
    VMGPU_MSG_EVENT_CREATE,   /* -> id */
    VMGPU_MSG_EVENT_DESTROY,  /* id */
    VMGPU_MSG_EVENT_RECORD,   /* id, stream id */
    VMGPU_MSG_EVENT_QUERY,    /* id */
    VMGPU_MSG_EVENT_WAIT,     /* id */
    VMGPU_MSG_EVENT_CYCLES,   /* id -> cycles */
    VMGPU_MSG_EVENT_ELAPSED,  /* id, id -> cycles */
    VMGPU_MSG_STATE_HASH,     /* -> hash */
    VMGPU_MSG_LINK_TRIPS,     /* -> the transport's round trips so far */
    VMGPU_MSG_EXPORT,         /* pa -> fd (SCM_RIGHTS) naming the allocation */
    VMGPU_MSG_IMPORT,         /* + fd (SCM_RIGHTS) -> pa, size; the client now holds it */
    VMGPU_MSG_IPC_MEM_TOKEN, /* pa -> token naming the allocation (legacy CUDA IPC) */
    VMGPU_MSG_IPC_MEM_OPEN,  /* token -> pa, size, 1 when the caller made the token (no hold
                                then); otherwise the client now holds the allocation */
    VMGPU_MSG_IPC_EVENT_TOKEN, /* event id -> token naming the event */
    VMGPU_MSG_IPC_EVENT_OPEN,  /* token -> an event id of the caller's for the same event, 1
                                  when the caller made the token */
    VMGPU_MSG_REG_READ,      /* register offset -> value: read-only views for tools and lessons
                                (counters, event FIFO, ring state; never MEM_ADDR/MEM_DATA) */
    VMGPU_MSG_REG_WRITE,     /* register offset, value: EVT_POP only */
    VMGPU_MSG_CMD_TLB_INV,   /* stream id: TLB_INV of the stream's own ASID */
    VMGPU_MSG_CMD_LAUNCH_PROG, /* id, code, args, grid x, y, z, block x, y, z, shared bytes */
    VMGPU_MSG_COUNT
};

#endif
