/* The core's client side: every public call on a device opened as VMGPU_DEVICE=vmgpud[:spec]
 * is forwarded to the device server (remote.c); the public functions of dev.c, mmu.c and cmd.c
 * hand over to these at their first line when dev->remote is set. */
#ifndef VMGPU_CORE_REMOTE_H
#define VMGPU_CORE_REMOTE_H

#include "core_internal.h"
#include "proto.h"

/* 1 when spec names the device server: "vmgpud" or "vmgpud:<device spec>". */
int remote_spec(const char *spec);
/* The device the server behind spec owns ("sim" for plain "vmgpud"). */
const char *remote_device_of(const char *spec);
/* Where the per-user server of device devspec listens: $VMGPU_SERVER_SOCKET, else
 * $XDG_RUNTIME_DIR/vmgpud-<device>.sock, else /tmp/vmgpu-<uid>/vmgpud-<device>.sock (the
 * directory made 0700 when missing). 0, or -1 when the path does not fit. */
int remote_socket_path(const char *devspec, char *buf, size_t len);
int remote_open(const char *spec, const vmgpu_dev_options *opt, vmgpu_dev **out, char *err,
                size_t errlen);
void remote_close(vmgpu_dev *dev);
/* A stand-in transport for tools and tests that read the device directly (registers through
 * the server, read-only views; memory as vmgpu_phys_read/write; round_trips the device's). */
vmgpu_hal *remote_hal(vmgpu_dev *dev);

int remote_ping(vmgpu_dev *dev);
int remote_poll(vmgpu_dev *dev, uint64_t max_cycles, uint64_t *ran);
int remote_dev_cycles(vmgpu_dev *dev, uint64_t *cycles);
int remote_dev_run_idle(vmgpu_dev *dev);
int remote_ring_faulted(vmgpu_dev *dev, unsigned r);
int remote_link_round_trips(vmgpu_dev *dev, uint64_t *trips);
uint64_t remote_state_hash(const vmgpu_dev *dev);

int remote_phys_alloc(vmgpu_dev *dev, uint32_t size, uint32_t align, uint32_t *pa);
int remote_phys_free(vmgpu_dev *dev, uint32_t pa);
int remote_phys_stats(const vmgpu_dev *dev, uint32_t *free_bytes, unsigned *n_allocs);
int remote_phys_write(vmgpu_dev *dev, uint32_t pa, const void *src, size_t bytes);
int remote_phys_read(vmgpu_dev *dev, uint32_t pa, void *dst, size_t bytes);
int remote_phys_export(vmgpu_dev *dev, uint32_t pa, int *fd);
int remote_phys_import(vmgpu_dev *dev, int fd, uint32_t *pa, uint32_t *size);

int remote_phys_ipc_token(vmgpu_dev *dev, uint32_t pa, uint64_t *token);
int remote_phys_ipc_open(vmgpu_dev *dev, uint64_t token, uint32_t *pa, uint32_t *size, int *own);
int remote_event_ipc_token(vmgpu_event *ev, uint64_t *token);
int remote_event_ipc_open(vmgpu_dev *dev, uint64_t token, vmgpu_event **out, int *own);

int remote_host_register(vmgpu_dev *dev, void *ptr, size_t size, uint32_t *haddr);
int remote_host_unregister(vmgpu_dev *dev, void *ptr);
void *remote_host_ptr(const vmgpu_dev *dev, uint32_t haddr);

int remote_ctx_create(vmgpu_dev *dev, int home_ring, vmgpu_ctx **out);
int remote_ctx_destroy(vmgpu_ctx *ctx);
int remote_ctx_status(const vmgpu_ctx *ctx, char *msg, size_t msglen);
int remote_ctx_clear_fault(vmgpu_ctx *ctx);
int remote_va_reserve(vmgpu_ctx *ctx, uint32_t size, uint32_t align, uint32_t fixed, uint32_t *va);
int remote_va_free(vmgpu_ctx *ctx, uint32_t va);
int remote_va_stats(const vmgpu_ctx *ctx, uint32_t *reserved_bytes, unsigned *n_ranges);
int remote_map(vmgpu_ctx *ctx, uint32_t va, uint32_t pa, uint32_t size, unsigned flags);
int remote_unmap(vmgpu_ctx *ctx, uint32_t va, uint32_t size);
int remote_protect(vmgpu_ctx *ctx, uint32_t va, uint32_t size, unsigned flags);
int remote_query(const vmgpu_ctx *ctx, uint32_t va, uint32_t *pte);
int remote_ctx_write(vmgpu_ctx *ctx, uint32_t va, const void *src, size_t bytes);
int remote_ctx_read(vmgpu_ctx *ctx, uint32_t va, void *dst, size_t bytes);

int remote_stream_create(vmgpu_ctx *ctx, unsigned ring, vmgpu_stream **out);
int remote_stream_destroy(vmgpu_stream *s);
/* A queued command: op and its arguments after the stream id. */
int remote_cmd(vmgpu_stream *s, unsigned op, unsigned nargs, const uint64_t *args);
int remote_cmd_raw(vmgpu_stream *s);
int remote_stream_map(vmgpu_stream *s, uint32_t va, uint32_t pa, uint32_t size, unsigned flags);
int remote_stream_submit(vmgpu_stream *s, uint32_t *fence);
int remote_stream_sync(vmgpu_stream *s);
int remote_stream_wait_stream(vmgpu_stream *waiter, vmgpu_stream *s);

uint32_t remote_fence_last(const vmgpu_dev *dev, unsigned r);
int remote_fence_query(vmgpu_dev *dev, unsigned r, uint32_t value);
int remote_fence_wait(vmgpu_dev *dev, unsigned r, uint32_t value);

int remote_event_create(vmgpu_dev *dev, vmgpu_event **out);
int remote_event_destroy(vmgpu_event *ev);
int remote_event_record(vmgpu_event *ev, vmgpu_stream *s);
int remote_event_query(vmgpu_event *ev);
int remote_event_wait(vmgpu_event *ev);
int remote_event_cycles(vmgpu_event *ev, uint64_t *cycles);
int remote_event_elapsed(vmgpu_event *start, vmgpu_event *end, uint64_t *cycles);

#endif
