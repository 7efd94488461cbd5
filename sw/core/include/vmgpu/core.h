/*
 * vmgpu driver core: the device-neutral layer between the transport (sw/hal/vmgpu_hal.h) and
 * the front ends (CUDA driver API, OpenCL, native). It owns device memory (physical
 * allocator), address spaces (contexts: ASID, page directory, VA allocator, a host shadow of
 * every PDE/PTE), host-memory registration for the host aperture, and command streams on the
 * hardware rings with fences, events and a bounded wait that names the command that failed.
 *
 * Conventions
 * - Every entry point returns a vmgpu_status (0 = VMGPU_OK, negative = error) unless it says
 *   otherwise, checks all of its arguments first, and leaves every piece of state unchanged
 *   when it fails (all-or-nothing). The last error's text is vmgpu_dev_last_error().
 * - Device (physical) addresses, host-aperture addresses and virtual addresses are 32-bit.
 * - Page tables are written by commands in a ring (PTE_FILL), never one register access per
 *   PTE, so a map call costs O(1) link round trips whatever its size.
 * - VMGPU_TRACE=1 prints to stderr, per core call, the commands issued, the PTEs written and,
 *   after waits, the MMU events the hardware reported. VMGPU_TIMEOUT_CYCLES bounds every wait
 *   (device cycles; default VMGPU_TIMEOUT_CYCLES_DEFAULT).
 * - Not thread-safe: one thread drives one vmgpu_dev (front ends lock around it).
 */
#ifndef VMGPU_CORE_H
#define VMGPU_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "vmgpu_hal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The MMU's page: the unit of translation and of every PTE. */
#define VMGPU_PAGE_SIZE 4096u
/*
 * Allocation granularity: physical allocations and VA reservations made for front ends are
 * multiples of (and aligned to) 64 KiB, which is what cuMemGetAllocationGranularity reports.
 * It differs from the 4 KiB page on purpose, as on real GPUs: a coarser granule keeps the
 * allocators' bookkeeping small, lets one map call cover many PTEs with a single PTE_FILL run,
 * and leaves room for larger pages later without changing what applications were promised.
 * The MMU still translates (and faults) per 4 KiB page.
 */
#define VMGPU_GRANULE 65536u
/* Nominal device clock used to turn cycles into time (events, profiling). */
#define VMGPU_CLOCK_HZ 50000000u
/* Default bound of every wait, in device cycles (override: VMGPU_TIMEOUT_CYCLES). */
#define VMGPU_TIMEOUT_CYCLES_DEFAULT 200000000ull
/* Lowest VA ever handed out: VA 0 (and the first granule) stays unmapped, so NULL faults. */
#define VMGPU_VA_BASE VMGPU_GRANULE

typedef enum vmgpu_status {
    VMGPU_OK = 0,
    VMGPU_ERR_INVALID = -1,     /* bad argument (NULL, misaligned, zero/overflowing size, ...) */
    VMGPU_ERR_NOMEM = -2,       /* out of device memory (or of page-table pool, host memory) */
    VMGPU_ERR_NOVA = -3,        /* no free VA range of that size/alignment */
    VMGPU_ERR_OVERLAP = -4,     /* range already reserved / page already mapped / registered */
    VMGPU_ERR_NOT_MAPPED = -5,  /* a page of the range is not mapped (unmap, protect, access) */
    VMGPU_ERR_FAULT = -6,       /* the device faulted; vmgpu_dev_last_error() says where */
    VMGPU_ERR_TIMEOUT = -7,     /* the wait's cycle budget ran out */
    VMGPU_ERR_IO = -8,          /* the transport failed */
    VMGPU_ERR_NODEV = -9,       /* no device, or not a vmgpu (ID/VERSION mismatch) */
    VMGPU_ERR_CTX_FAULTED = -10,/* the context faulted earlier (sticky) */
    VMGPU_ERR_BUSY = -11,       /* still in use (e.g. freeing memory that is mapped) */
    VMGPU_ERR_NOT_READY = -12,  /* query: the work has not completed yet */
    VMGPU_ERR_NOT_FOUND = -13   /* no such allocation / reservation / registration */
} vmgpu_status;

const char *vmgpu_status_name(int status);

typedef struct vmgpu_dev vmgpu_dev;
typedef struct vmgpu_ctx vmgpu_ctx;
typedef struct vmgpu_stream vmgpu_stream;
typedef struct vmgpu_event vmgpu_event;

/* ------------------------------------------------------------------ device */

typedef struct vmgpu_dev_info {
    uint32_t version;     /* VERSION register */
    uint32_t mem_size;    /* device memory in bytes */
    unsigned n_rings;     /* hardware rings */
    unsigned tlb_entries; /* TLB entries */
    unsigned page_shift;  /* 12 */
    uint32_t user_base;   /* first byte the physical allocator hands out (above reserved memory) */
    uint32_t user_bytes;  /* bytes the physical allocator manages */
    unsigned has_gfx;     /* CAPS.GFX: the graphics engine is built in */
    unsigned host_port_link; /* 1 when the device's host-port accesses cross a serial link (one
                                link exchange per word: sim-board, serial, ftdi), 0 when the
                                host memory is beside the device (the in-process sim); through
                                the device server, the answer for the server's device */
    unsigned simt_lanes;  /* SIMT compute unit (CAPS.SIMT, SIMT_CONFIG): lanes per warp, 0 when */
    unsigned simt_warps;  /*   the device has none; warps; a block has at most lanes x warps */
    uint32_t simt_shared_bytes; /* its shared memory (the window at VMGPU_SIMT_SHARED_BASE) */
    unsigned simt_isa;    /* VMGPU_SIMT_ISA_*: extensions beyond RV32IM the unit executes */
} vmgpu_dev_info;

/* vmgpu_dev_info.simt_isa, from CAPS.SIMT_A / CAPS.SIMT_F once the register map has them. */
#define VMGPU_SIMT_ISA_A 0x1u  /* RV32A AMOs (and Zacas amocas.w) */
#define VMGPU_SIMT_ISA_F 0x2u  /* F: single precision with FMA */

/* Options of vmgpu_dev_open_ex; zero fields take defaults. */
typedef struct vmgpu_dev_options {
    uint32_t ring_bytes;     /* bytes of each ring (power of two >= 64; default: 64 KiB, less on
                                small memories) */
    uint32_t pt_pool_bytes;  /* reserved memory for page directories and tables (default:
                                mem_size / 16, at least 16 KiB) */
} vmgpu_dev_options;

/* Open the device named by spec (NULL: VMGPU_DEVICE, default "sim"); probes ID and VERSION,
 * reads CAPS and MEM_SIZE, lays out reserved low memory (scratch, rings, page-table pool) and
 * enables the rings. On failure *out is NULL and err (may be NULL) holds one line. */
int vmgpu_dev_open(const char *spec, vmgpu_dev **out, char *err, size_t errlen);
int vmgpu_dev_open_ex(const char *spec, const vmgpu_dev_options *opt, vmgpu_dev **out,
                      char *err, size_t errlen);
/* Same on an already-open transport; own != 0 makes vmgpu_dev_close close it too. */
int vmgpu_dev_open_hal(vmgpu_hal *hal, int own, const vmgpu_dev_options *opt, vmgpu_dev **out,
                       char *err, size_t errlen);
/* Destroys every remaining context, stream and event, then closes. NULL is a no-op. */
void vmgpu_dev_close(vmgpu_dev *dev);
int vmgpu_dev_get_info(const vmgpu_dev *dev, vmgpu_dev_info *info);
/* The transport. On a device server connection: a stand-in whose register reads are read-only
 * views (counters, event FIFO, ring state), whose memory bursts are checked like
 * vmgpu_phys_read/write, and whose round_trips is the device's count as of the last answer. */
vmgpu_hal *vmgpu_dev_hal(vmgpu_dev *dev);
/* Text of the last error on this device ("" if none). Fault/timeout texts name the ring, the
 * command offset, its opcode, the fault reason, the VA and the ASID. */
const char *vmgpu_dev_last_error(const vmgpu_dev *dev);
/* Read the 64-bit cycle counter (CYCLE_LO then CYCLE_HI). */
int vmgpu_dev_cycles(vmgpu_dev *dev, uint64_t *cycles);
/* Let the device run until idle (bounded by the timeout) without waiting on anything. */
int vmgpu_dev_run_idle(vmgpu_dev *dev);

/* ------------------------------------------------------- physical memory */

/* Allocate size bytes (a nonzero multiple of VMGPU_PAGE_SIZE) of device memory aligned to
 * align (a power of two multiple of VMGPU_PAGE_SIZE; 0 = VMGPU_GRANULE). */
int vmgpu_phys_alloc(vmgpu_dev *dev, uint32_t size, uint32_t align, uint32_t *pa);
/* Free the allocation starting at pa. VMGPU_ERR_BUSY while any context maps a page of it. */
int vmgpu_phys_free(vmgpu_dev *dev, uint32_t pa);
/* Bytes free and the number of live allocations. */
int vmgpu_phys_stats(const vmgpu_dev *dev, uint32_t *free_bytes, unsigned *n_allocs);
/* Host <-> device memory by physical address through the transport (word-aligned pa; any
 * byte length: partial words are read-modify-written). */
int vmgpu_phys_write(vmgpu_dev *dev, uint32_t pa, const void *src, size_t bytes);
int vmgpu_phys_read(vmgpu_dev *dev, uint32_t pa, void *dst, size_t bytes);

/* -------------------------------------------------- host memory (aperture) */

/* Register page-aligned host memory [ptr, ptr+size) for the host aperture: it gets consecutive
 * host frames, *haddr = first frame << 12. Mapping haddr with VMGPU_MAP_HOST lets the device
 * read and write that memory in place (zero copy). */
int vmgpu_host_register(vmgpu_dev *dev, void *ptr, size_t size, uint32_t *haddr);
/* VMGPU_ERR_BUSY while any context maps one of its frames. */
int vmgpu_host_unregister(vmgpu_dev *dev, void *ptr);
/* Host pointer of a host-aperture address (NULL if not registered). */
void *vmgpu_host_ptr(const vmgpu_dev *dev, uint32_t haddr);

/* ---------------------------------------------------------------- contexts */

/* A context is an address space: an ASID, a page directory, page tables allocated on demand, a
 * VA allocator and a shadow of every entry. home_ring (-1: the device picks) is the ring its
 * synchronous page-table updates (map/unmap/protect) and the args-block writes go through. */
int vmgpu_ctx_create(vmgpu_dev *dev, int home_ring, vmgpu_ctx **out);
/* Unmaps everything, frees its page tables, VA reservations and ASID (streams must be gone:
 * VMGPU_ERR_BUSY otherwise). NULL is a no-op returning VMGPU_OK. */
int vmgpu_ctx_destroy(vmgpu_ctx *ctx);
unsigned vmgpu_ctx_asid(const vmgpu_ctx *ctx);
uint32_t vmgpu_ctx_root(const vmgpu_ctx *ctx);
vmgpu_dev *vmgpu_ctx_dev(const vmgpu_ctx *ctx);
/* VMGPU_OK, or VMGPU_ERR_CTX_FAULTED once a command of this context faulted (sticky); the
 * message of that fault is copied into msg when given. */
int vmgpu_ctx_status(const vmgpu_ctx *ctx, char *msg, size_t msglen);
/* Clear the sticky fault after the application dealt with it; mappings stay. */
int vmgpu_ctx_clear_fault(vmgpu_ctx *ctx);

/* VA reservations: size a nonzero multiple of VMGPU_PAGE_SIZE, align a power of two multiple
 * of VMGPU_PAGE_SIZE (0 = VMGPU_GRANULE). fixed != 0 asks for exactly [fixed, fixed+size)
 * (VMGPU_ERR_OVERLAP when taken). Never returns an address below VMGPU_VA_BASE. */
int vmgpu_va_reserve(vmgpu_ctx *ctx, uint32_t size, uint32_t align, uint32_t fixed,
                     uint32_t *va);
/* Free the reservation starting at va; VMGPU_ERR_BUSY while a page of it is mapped. */
int vmgpu_va_free(vmgpu_ctx *ctx, uint32_t va);
int vmgpu_va_stats(const vmgpu_ctx *ctx, uint32_t *reserved_bytes, unsigned *n_ranges);

/* Mapping flags. */
#define VMGPU_MAP_READ 0x1u    /* PTE.R */
#define VMGPU_MAP_WRITE 0x2u   /* PTE.W */
#define VMGPU_MAP_HOST 0x4u    /* pa is a host-aperture address from vmgpu_host_register */
#define VMGPU_MAP_REPLACE 0x8u /* map over pages that are already mapped (remap) */
#define VMGPU_MAP_NO_TLB_INV 0x10u /* lesson/bench only: skip the TLB_INV (stale entries stay) */

/*
 * Map [va, va+size) to [pa, pa+size) (device memory, or host aperture with VMGPU_MAP_HOST).
 * va, pa, size page aligned; the VA range must lie inside reservations of ctx; the physical
 * range inside one allocation (or one host registration). Pages already mapped fail with
 * VMGPU_ERR_OVERLAP unless VMGPU_MAP_REPLACE. Emits one PTE_FILL per contiguous run (plus the
 * PDE writes for new page tables), TLB_INV (range) and FENCE on the home ring and waits.
 */
int vmgpu_map(vmgpu_ctx *ctx, uint32_t va, uint32_t pa, uint32_t size, unsigned flags);
/* Every page of the range must be mapped (else VMGPU_ERR_NOT_MAPPED, nothing changes). */
int vmgpu_unmap(vmgpu_ctx *ctx, uint32_t va, uint32_t size);
/* Change R/W of mapped pages (flags: VMGPU_MAP_READ | VMGPU_MAP_WRITE, may be 0). */
int vmgpu_protect(vmgpu_ctx *ctx, uint32_t va, uint32_t size, unsigned flags);
/* Shadow lookup: the PTE of va (0 when unmapped; *pte gets VMGPU_PTE_* bits and the frame). */
int vmgpu_query(const vmgpu_ctx *ctx, uint32_t va, uint32_t *pte);
/* Host access to mapped memory by VA, translated through the shadow (device pages through the
 * transport, host pages by memcpy). Needs R (read) or W (write) like the device would. */
int vmgpu_ctx_write(vmgpu_ctx *ctx, uint32_t va, const void *src, size_t bytes);
int vmgpu_ctx_read(vmgpu_ctx *ctx, uint32_t va, void *dst, size_t bytes);

/* ----------------------------------------------------------------- streams */

/* A stream queues commands of one context on one hardware ring. Several streams may share a
 * ring; the core emits BIND_CTX whenever the ring's bound context changes. Commands go to the
 * device at vmgpu_stream_submit (or automatically when the host-side batch is full). */
int vmgpu_stream_create(vmgpu_ctx *ctx, unsigned ring, vmgpu_stream **out);
/* Waits for the stream's submitted work, then frees it. NULL is a no-op. */
int vmgpu_stream_destroy(vmgpu_stream *s);
unsigned vmgpu_stream_ring(const vmgpu_stream *s);
vmgpu_ctx *vmgpu_stream_ctx(const vmgpu_stream *s);

/* Commands (queued; VA operands are translated by the device in the stream's context). */
int vmgpu_cmd_copy(vmgpu_stream *s, uint32_t dst_va, uint32_t src_va, uint32_t bytes);
int vmgpu_cmd_copy_2d(vmgpu_stream *s, uint32_t dst_va, uint32_t dst_pitch, uint32_t src_va,
                      uint32_t src_pitch, uint32_t width, uint32_t height);
/* pattern_bytes: 1, 2 or 4 (the pattern's low bytes are used; byte 0 starts every row). */
int vmgpu_cmd_fill(vmgpu_stream *s, uint32_t dst_va, uint32_t bytes, uint32_t pattern,
                   unsigned pattern_bytes);
int vmgpu_cmd_fill_2d(vmgpu_stream *s, uint32_t dst_va, uint32_t dst_pitch, uint32_t width,
                      uint32_t height, uint32_t pattern, unsigned pattern_bytes);
/* Built-in kernel (VMGPU_KERNEL_*): the 5-word argument block is written (in stream order) to
 * the context's argument area, which is mapped read-only in the context. */
int vmgpu_cmd_launch(vmgpu_stream *s, unsigned kernel, uint32_t dst_va, uint32_t a_va,
                     uint32_t b_va, uint32_t n, uint32_t scalar);
/*
 * Program on the SIMT compute unit (LAUNCH_PROG; docs/cores.md): every thread of a grid of
 * grid[0] x grid[1] x grid[2] blocks of block[0] x block[1] x block[2] threads starts at code_va
 * (RV32IM code mapped readable in the stream's context, e.g. clang's output with crt0, or
 * sw/ptx's translation) with CSR args = args_va (the argument block, laid out as the kernel
 * declares it; the caller writes it). Each thread gets a stack of VMGPU_SIMT_STACK_BYTES in the
 * context's stack area (one area per context, mapped read-write at the first launch).
 * VMGPU_ERR_INVALID and nothing queued: no SIMT unit (info.simt_lanes 0), code_va 0 or not
 * word aligned, args_va not word aligned, NULL grid/block, a grid dimension 0 or above 65535, a
 * block dimension 0 or above 1023, more than simt_lanes x simt_warps threads per block, or
 * shared_bytes above simt_shared_bytes. A faulting access stops the grid: the wait's error (and
 * vmgpu_ctx_status) names the VA, ASID, lane, warp and PC.
 */
/* 1 KiB per thread: the simulated device's unit holds 256 threads, so a context's stack area
 * is 256 KiB (it was 4 KiB per thread for a 16-thread unit: 1 MiB at 256 threads). */
#define VMGPU_SIMT_STACK_BYTES 1024u
int vmgpu_cmd_launch_prog(vmgpu_stream *s, uint32_t code_va, uint32_t args_va,
                          const uint32_t grid[3], const uint32_t block[3], uint32_t shared_bytes);
/* Graphics engine (CAPS.GFX). Pixels are 32-bit words (RGBA8, R in byte 0); every VA and
 * pitch (bytes) must be word aligned and every width/height 1..VMGPU_GFX_MAX_DIM (65535), and
 * the rectangles must not run past 4 GiB, else VMGPU_ERR_INVALID and nothing is queued.
 * GFX_FILL writes color to width x height pixels; GFX_BLIT is a nearest-neighbour scaled copy,
 * dst(x,y) = src(x*src_w/dst_w, y*src_h/dst_h) rounded down (a plain copy at equal sizes);
 * GFX_MIPGEN writes one mip level with a 2x2 box filter per 8-bit channel (rounded, source
 * coordinates clamped to the last column/row), one call per level. */
int vmgpu_cmd_gfx_fill(vmgpu_stream *s, uint32_t dst_va, uint32_t dst_pitch, uint32_t width,
                       uint32_t height, uint32_t color);
int vmgpu_cmd_gfx_blit(vmgpu_stream *s, uint32_t src_va, uint32_t src_pitch, uint32_t src_w,
                       uint32_t src_h, uint32_t dst_va, uint32_t dst_pitch, uint32_t dst_w,
                       uint32_t dst_h);
int vmgpu_cmd_gfx_mipgen(vmgpu_stream *s, uint32_t src_va, uint32_t src_pitch, uint32_t src_w,
                         uint32_t src_h, uint32_t dst_va, uint32_t dst_pitch, uint32_t dst_w,
                         uint32_t dst_h);
/* TIMESTAMP: the 64-bit cycle counter is written at physical pa (8-byte slot) when every
 * earlier command of the ring has completed. */
int vmgpu_cmd_timestamp(vmgpu_stream *s, uint32_t pa);
/* WAIT_FENCE: later commands of this ring wait until ring's FENCE reaches value. */
int vmgpu_cmd_wait_fence(vmgpu_stream *s, unsigned ring, uint32_t value);
/* TLB_INV of every entry of the stream's context (its ASID), ordered in the stream: later
 * commands translate through fresh walks (for measuring TLB misses; a map or unmap already
 * invalidates what it changes). */
int vmgpu_cmd_tlb_inv(vmgpu_stream *s);
/* Page-table update ordered in this stream (same semantics as vmgpu_map, without the wait):
 * the shadow changes now, the device's tables when the stream reaches the commands. */
int vmgpu_stream_map(vmgpu_stream *s, uint32_t va, uint32_t pa, uint32_t size, unsigned flags);
/* Raw words (a header and its payload), for tests and new front-end commands; not checked. */
int vmgpu_cmd_raw(vmgpu_stream *s, const uint32_t *words, size_t nwords);

/* Append a FENCE and hand everything queued to the device (one burst + the doorbell).
 * *fence (may be NULL) gets the ring's fence value that marks this point. */
int vmgpu_stream_submit(vmgpu_stream *s, uint32_t *fence);
/* submit + wait. */
int vmgpu_stream_sync(vmgpu_stream *s);

/* Fences: a monotonic 32-bit timeline per ring; comparisons are wrap-aware. */
static inline int vmgpu_fence_reached(uint32_t current, uint32_t value)
{
    return (int32_t)(current - value) >= 0;
}
/* Bounded wait until ring's fence reaches value. On a fault: VMGPU_ERR_FAULT, the message
 * names ring, command offset, opcode, reason, VA and ASID; the ring is reset (its queued work
 * dropped), the faulting context marked faulted, other contexts go on. On timeout:
 * VMGPU_ERR_TIMEOUT naming the command at HEAD. Work of a faulted context: its waits return
 * VMGPU_ERR_CTX_FAULTED. */
int vmgpu_fence_wait(vmgpu_dev *dev, unsigned ring, uint32_t value);
/* VMGPU_OK when reached, VMGPU_ERR_NOT_READY when not yet (one register read; no waiting). */
int vmgpu_fence_query(vmgpu_dev *dev, unsigned ring, uint32_t value);
/* Last fence value handed out on ring (what a stream_submit returned last). */
uint32_t vmgpu_fence_last(const vmgpu_dev *dev, unsigned ring);

/* Events: a fence plus a device timestamp. */
int vmgpu_event_create(vmgpu_dev *dev, vmgpu_event **out);
int vmgpu_event_destroy(vmgpu_event *ev);
/* Queue TIMESTAMP + FENCE on s and submit. */
int vmgpu_event_record(vmgpu_event *ev, vmgpu_stream *s);
int vmgpu_event_query(vmgpu_event *ev);   /* VMGPU_OK, VMGPU_ERR_NOT_READY, or an error */
int vmgpu_event_wait(vmgpu_event *ev);
/* Device cycle counter value at the event (after it completed). */
int vmgpu_event_cycles(vmgpu_event *ev, uint64_t *cycles);
/* end - start in cycles (both recorded and completed). */
int vmgpu_event_elapsed(vmgpu_event *start, vmgpu_event *end, uint64_t *cycles);

/* Make stream `waiter` wait (on the device) for everything submitted so far on `s`. */
int vmgpu_stream_wait_stream(vmgpu_stream *waiter, vmgpu_stream *s);

/* ------------------------------------------------------- the process's device */

/*
 * One device per process for the front ends linked into one library (CUDA and vgfx in
 * libcuda.so): vmgpu_process_dev opens it on first use (VMGPU_DEVICE; NULL with err filled when
 * there is none) and it is closed when the process exits; vmgpu_process_dev_close closes it
 * early (a failed initialisation). Call both with vmgpu_process_lock held; every front-end
 * entry point holds that lock for its whole duration.
 */
void vmgpu_process_lock(void);
void vmgpu_process_unlock(void);
/* 0 when the lock was taken, nonzero when another thread holds it (exit handlers). */
int vmgpu_process_trylock(void);
vmgpu_dev *vmgpu_process_dev(char *err, size_t errlen);
void vmgpu_process_dev_close(void);

/* ---------------------------------------------------- device server (vmgpud) */

/*
 * Every device form (VMGPU_DEVICE, or vmgpud[:spec] explicitly) is opened through its per-user
 * device server: the first client starts it, later ones connect, and every call above is carried
 * out there, in this process's own address spaces (docs/server.md). In this process instead:
 * VMGPU_SERVER=0 (any form), VMGPU_DEVICE=sim-inproc, VMGPU_WAVES set (a waveform is one
 * process's run; VMGPU_SERVER=1 overrides), or vmgpu_dev_open_ex with layout options (only the
 * device's owner lays it out; with vmgpud named explicitly they are VMGPU_ERR_INVALID).
 */
/* 1 when dev is a connection to the device server, 0 when the device is in this process. */
int vmgpu_dev_is_remote(const vmgpu_dev *dev);
/* One round trip to the server and back, doing nothing (in process: returns at once). */
int vmgpu_dev_ping(vmgpu_dev *dev);
/* Let the device run at most max_cycles (a polling slice); *ran (may be NULL) gets the cycles. */
int vmgpu_dev_poll(vmgpu_dev *dev, uint64_t max_cycles, uint64_t *ran);
/* 1 when ring stopped on a fault that no wait has handled yet, 0 when not, <0 on error. */
int vmgpu_ring_faulted(vmgpu_dev *dev, unsigned ring);
/* The transport's link round trips so far (counted where the device is). */
int vmgpu_dev_link_round_trips(vmgpu_dev *dev, uint64_t *trips);
/*
 * Cross-process sharing (server only): export gives a new file descriptor (the caller owns it)
 * that names the allocation starting at pa; sent to another process (SCM_RIGHTS) and imported
 * there, it gives that process a hold on the same physical memory (*pa, *size). The memory lives
 * while any process holds it (vmgpu_phys_free drops one hold). An fd the server did not make
 * for an allocation, or one whose allocation is gone: VMGPU_ERR_NOT_FOUND. In process:
 * VMGPU_ERR_INVALID (front ends share inside the process on their own).
 */
int vmgpu_phys_export(vmgpu_dev *dev, uint32_t pa, int *fd);
int vmgpu_phys_import(vmgpu_dev *dev, int fd, uint32_t *pa, uint32_t *size);

/*
 * Legacy CUDA IPC (server only): a 64-bit token names an allocation or an event; it crosses
 * processes as plain bytes. A memory token is good while the allocation lives; opening it gives
 * this process a hold (*own = 1 instead, and no hold, when this process made the token). An
 * event token gives this process an event that is the same event (records by its owner, waits
 * and queries by anyone). Unknown tokens: VMGPU_ERR_NOT_FOUND. In process: VMGPU_ERR_INVALID.
 */
int vmgpu_phys_ipc_token(vmgpu_dev *dev, uint32_t pa, uint64_t *token);
int vmgpu_phys_ipc_open(vmgpu_dev *dev, uint64_t token, uint32_t *pa, uint32_t *size, int *own);
int vmgpu_event_ipc_token(vmgpu_event *ev, uint64_t *token);
int vmgpu_event_ipc_open(vmgpu_dev *dev, uint64_t token, vmgpu_event **out, int *own);

/*
 * For the server: host memory registered on behalf of another process. owner (nonzero) tags the
 * registration (overlaps are checked per owner); addr is an address in that process, which the
 * core never dereferences: every host-port access and ctx_read/ctx_write of such pages goes to
 * the access function set with vmgpu_dev_set_host_access.
 */
typedef int (*vmgpu_host_access_fn)(void *user, uintptr_t owner, uintptr_t addr, void *buf,
                                    size_t bytes, int write);
void vmgpu_dev_set_host_access(vmgpu_dev *dev, vmgpu_host_access_fn fn, void *user);
int vmgpu_host_register_for(vmgpu_dev *dev, uintptr_t owner, uintptr_t addr, size_t size,
                            uint32_t *haddr);
int vmgpu_host_unregister_for(vmgpu_dev *dev, uintptr_t owner, uintptr_t addr);

/* ---------------------------------------------------------------- debugging */

/* A hash of all software state (allocators, reservations, shadows, registrations); tests
 * compare it before and after a failing call. */
uint64_t vmgpu_debug_state_hash(const vmgpu_dev *dev);
/* Decode one command (header + payload) into text; returns the number of words it spans. */
size_t vmgpu_cmd_decode(const uint32_t *words, size_t nwords, char *buf, size_t buflen);
/* 1 while VMGPU_TRACE tracing is on; vmgpu_set_trace overrides the environment. */
int vmgpu_trace_enabled(void);
void vmgpu_set_trace(int on);

#ifdef __cplusplus
}
#endif
#endif /* VMGPU_CORE_H */
