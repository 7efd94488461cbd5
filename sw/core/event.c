/* Events: a fence and a timestamp slot each (CUDA events, OpenCL event profiling). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"
#include "remote.h"

/* ------------------------------------------------------------------------- events */

static uint32_t event_pa(const vmgpu_event *ev) { return ev->dev->scratch_pa + 8 + ev->slot * 8; }

int vmgpu_event_create(vmgpu_dev *dev, vmgpu_event **out)
{
    if (dev && dev->remote) return remote_event_create(dev, out);
    if (!dev || !out) return core_fail(dev, VMGPU_ERR_INVALID, "event_create: NULL argument");
    for (unsigned i = 0; i < MAX_EVENTS; i++) {
        if (dev->event_slot[i]) continue;
        vmgpu_event *ev = calloc(1, sizeof *ev);
        if (!ev) return core_fail(dev, VMGPU_ERR_NOMEM, "out of host memory");
        ev->dev = dev;
        ev->slot = i;
        dev->event_slot[i] = ev;
        *out = ev;
        return VMGPU_OK;
    }
    return core_fail(dev, VMGPU_ERR_NOMEM, "event_create: all %u timestamp slots in use", MAX_EVENTS);
}

int vmgpu_event_destroy(vmgpu_event *ev)
{
    if (ev && ev->dev->remote) return remote_event_destroy(ev);
    if (!ev) return VMGPU_OK;
    ev->dev->event_slot[ev->slot] = NULL;
    free(ev);
    return VMGPU_OK;
}

int vmgpu_event_record(vmgpu_event *ev, vmgpu_stream *s)
{
    if (ev && ev->dev->remote) return remote_event_record(ev, s);
    if (!ev || !s) return VMGPU_ERR_INVALID;
    int rc = vmgpu_cmd_timestamp(s, event_pa(ev));
    if (rc) return rc;
    /* Event records batch the ring's work: the first one holds the ring's queue (later
     * submits only queue), the next one sends everything from the first up to itself in one
     * batch, and any wait sends what is held. A TIMESTAMP runs when the ring reaches it, so
     * over a slow link a record sent on its own would stamp the time it crossed the link and
     * the work after it would arrive a link transfer later: an event pair would time the link
     * instead of the work between them. Batched, the pair measures the device. */
    uint32_t f;
    rc = stream_fence_deferred(s, &f);
    if (rc) return rc;
    ring_state *rg = &ev->dev->ring[s->ring];
    if (rg->hold) {
        rc = ring_flush_pending(ev->dev, s->ring);
        if (rc) return rc;
    }
    rg->hold = 1;
    ev->recorded = 1;
    ev->ring = s->ring;
    ev->fence = f;
    return VMGPU_OK;
}

int vmgpu_event_query(vmgpu_event *ev)
{
    if (ev && ev->dev->remote) return remote_event_query(ev);
    if (!ev) return VMGPU_ERR_INVALID;
    if (!ev->recorded) return VMGPU_OK;  /* like cuEventQuery on an unrecorded event */
    return vmgpu_fence_query(ev->dev, ev->ring, ev->fence);
}

int vmgpu_event_wait(vmgpu_event *ev)
{
    if (ev && ev->dev->remote) return remote_event_wait(ev);
    if (!ev) return VMGPU_ERR_INVALID;
    if (!ev->recorded) return VMGPU_OK;
    return vmgpu_fence_wait(ev->dev, ev->ring, ev->fence);
}

int vmgpu_event_cycles(vmgpu_event *ev, uint64_t *cycles)
{
    if (ev && ev->dev->remote) return remote_event_cycles(ev, cycles);
    if (!ev || !cycles) return VMGPU_ERR_INVALID;
    if (!ev->recorded)
        return core_fail(ev->dev, VMGPU_ERR_INVALID, "event_cycles: event never recorded");
    int rc = vmgpu_event_query(ev);
    if (rc) return rc;
    uint32_t w[2];
    rc = vmgpu_phys_read(ev->dev, event_pa(ev), w, 8);
    if (rc) return rc;
    *cycles = ((uint64_t)w[1] << 32) | w[0];
    return VMGPU_OK;
}

int vmgpu_event_elapsed(vmgpu_event *start, vmgpu_event *end, uint64_t *cycles)
{
    if (start && start->dev->remote) return remote_event_elapsed(start, end, cycles);
    uint64_t a, b;
    if (!start || !end || !cycles || start->dev != end->dev) return VMGPU_ERR_INVALID;
    int rc = vmgpu_event_cycles(start, &a);
    if (!rc) rc = vmgpu_event_cycles(end, &b);
    if (rc) return rc;
    *cycles = b - a;
    return VMGPU_OK;
}

int vmgpu_event_ipc_token(vmgpu_event *ev, uint64_t *token)
{
    if (!ev || !token) return VMGPU_ERR_INVALID;
    if (!ev->dev->remote) return core_fail(ev->dev, VMGPU_ERR_INVALID, "event_ipc_token: the device is in this process");
    return remote_event_ipc_token(ev, token);
}

int vmgpu_event_ipc_open(vmgpu_dev *dev, uint64_t token, vmgpu_event **out, int *own)
{
    if (!dev || !out || !own) return core_fail(dev, VMGPU_ERR_INVALID, "event_ipc_open: NULL argument");
    if (!dev->remote) return core_fail(dev, VMGPU_ERR_INVALID, "event_ipc_open: the device is in this process");
    return remote_event_ipc_open(dev, token, out, own);
}
