/* Rings and fences: queuing commands, the doorbell, the bounded wait, and recovery from a
 * faulting command (the faulting context's work dropped, the others' replayed). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"
#include "remote.h"

/* ------------------------------------------------------------------------- rings */

size_t ring_max_cmd_words(const vmgpu_dev *dev, unsigned r)
{
    /* A batch never exceeds half the ring, so one can always be written while the device
     * still reads the previous one. */
    return dev->ring[r].size / 8;
}

static void trace_cmds(unsigned r, uint32_t off, const uint32_t *w, size_t n)
{
    char buf[256];
    size_t i = 0;
    while (i < n) {
        size_t k = vmgpu_cmd_decode(&w[i], n - i, buf, sizeof buf);
        core_trace("  ring%u  %s", r, buf);
        (void)off;
        i += k ? k : 1;
    }
}

/* Free bytes in the ring, from the last HEAD read back. One word stays empty so that
 * HEAD == TAIL means empty. */
static uint32_t ring_room(const ring_state *rg)
{
    return rg->size - 4 - ((rg->tail - rg->head) & (rg->size - 1));
}

static int handle_fault(vmgpu_dev *dev, unsigned r);

/* Write the queued words into the ring and ring the doorbell. */
static int ring_flush(vmgpu_dev *dev, unsigned r)
{
    ring_state *rg = &dev->ring[r];
    if (!rg->npend) return VMGPU_OK;
    uint32_t need = (uint32_t)rg->npend * 4;
    if (ring_room(rg) < need) {
        uint64_t spent = 0;
        for (;;) {
            uint32_t st;
            RD(VMGPU_RING_REG(r, VMGPU_RING_HEAD), &rg->head);
            if (ring_room(rg) >= need) break;
            RD(VMGPU_RING_REG(r, VMGPU_RING_STATUS), &st);
            if (st & VMGPU_RING_STATUS_FAULTED_MASK) {
                /* The queued batch is lost with the ring's other work; say so. */
                handle_fault(dev, r);
                rg->npend = 0;
                return VMGPU_ERR_FAULT;
            }
            if (spent >= dev->timeout_cycles)
                return core_fail(dev, VMGPU_ERR_TIMEOUT, "ring %u: no room for %u bytes after %"
                                 PRIu64 " cycles (HEAD 0x%x)", r, need, spent, rg->head);
            uint64_t ran = 0;
            int rc = vmgpu_run(dev->hal, 4096, &ran);
            if (rc && rc != VMGPU_HAL_ETIMEDOUT) return core_hal_err(dev, rc, "run");
            spent += ran ? ran : 1;
        }
    }
    uint32_t first = rg->size - rg->tail;  /* bytes up to the end of the ring */
    int rc;
    if (need <= first) {
        rc = vmgpu_mem_write(dev->hal, rg->base + rg->tail, rg->pend, rg->npend);
    } else {
        rc = vmgpu_mem_write(dev->hal, rg->base + rg->tail, rg->pend, first / 4);
        if (!rc) rc = vmgpu_mem_write(dev->hal, rg->base, rg->pend + first / 4, (need - first) / 4);
    }
    if (rc) return core_hal_err(dev, rc, "ring write");
    rg->tail = (rg->tail + need) & (rg->size - 1);
    rg->npend = 0;
    WR(VMGPU_RING_REG(r, VMGPU_RING_TAIL), rg->tail);
    return VMGPU_OK;
}

int ring_emit(vmgpu_dev *dev, unsigned r, const uint32_t *w, size_t n)
{
    ring_state *rg = &dev->ring[r];
    size_t max = ring_max_cmd_words(dev, r);
    if (n > max)
        return core_fail(dev, VMGPU_ERR_INVALID, "command of %zu words does not fit ring %u", n, r);
    if (rg->npend + n > max) {
        int rc = ring_flush(dev, r);
        if (rc) return rc;
    }
    if (rg->npend + n > rg->cappend) {
        size_t nc = max + 16;
        uint32_t *np = realloc(rg->pend, nc * 4);
        if (!np) return core_fail(dev, VMGPU_ERR_NOMEM, "out of host memory");
        rg->pend = np;
        rg->cappend = nc;
    }
    if (vmgpu_trace_enabled()) trace_cmds(r, 0, w, n);
    memcpy(&rg->pend[rg->npend], w, n * 4);
    rg->npend += n;
    return VMGPU_OK;
}

int ring_bind(vmgpu_dev *dev, unsigned r, vmgpu_ctx *ctx)
{
    if (dev->ring[r].bound == ctx) return VMGPU_OK;
    uint32_t w[3] = {VMGPU_CMD_HEADER(VMGPU_OP_BIND_CTX, 2, 0), ctx->asid, ctx->root};
    int rc = ring_emit(dev, r, w, 3);
    if (!rc) dev->ring[r].bound = ctx;
    return rc;
}

/* Queue a FENCE with the ring's next value; flush: also write the queue and ring the doorbell.
 * A fence left queued goes out with the ring's next flush, at the latest when something waits
 * for it (fence query/wait, another ring's WAIT_FENCE), so nobody can wait on it forever. */
int ring_fence(vmgpu_dev *dev, unsigned r, uint32_t *fence, int flush, const vmgpu_ctx *owner)
{
    ring_state *rg = &dev->ring[r];
    uint32_t v = rg->fence_issued + 1;
    uint32_t w[3] = {VMGPU_CMD_HEADER(VMGPU_OP_FENCE, 2, 0), v, 0};
    int rc = ring_emit(dev, r, w, 3);
    if (rc) return rc;
    rg->fence_issued = v;
    rg->fence_owner[v & 255] = owner;
    if (flush && !rg->hold) {
        rc = ring_flush(dev, r);
        if (rc) return rc;
    }
    if (fence) *fence = v;
    return VMGPU_OK;
}

int ring_submit(vmgpu_dev *dev, unsigned r, uint32_t *fence, const vmgpu_ctx *owner)
{
    return ring_fence(dev, r, fence, 1, owner);
}

int ring_flush_pending(vmgpu_dev *dev, unsigned r)
{
    dev->ring[r].hold = 0;  /* someone waits: the batch ends here */
    return dev->ring[r].npend ? ring_flush(dev, r) : VMGPU_OK;
}

uint32_t vmgpu_fence_last(const vmgpu_dev *dev, unsigned r)
{
    if (dev && dev->remote) return remote_fence_last(dev, r);
    return (dev && r < dev->info.n_rings) ? dev->ring[r].fence_issued : 0;
}

/* ----------------------------------------------------------------- faults and waits */

void ctx_mark_faulted(vmgpu_ctx *ctx, const char *msg)
{
    if (!ctx || ctx->faulted) return;
    ctx->faulted = 1;
    snprintf(ctx->fault_msg, sizeof ctx->fault_msg, "%s", msg);
}

static const char *op_name(unsigned op) { return op < VMGPU_OP_COUNT ? vmgpu_op_names[op] : "?"; }
static const char *fault_name(unsigned f)
{
    return f < VMGPU_FAULT_COUNT ? vmgpu_fault_names[f] : "?";
}

/* Drain the MMU event FIFO into the trace. */
static void trace_mmu_events(vmgpu_dev *dev)
{
    if (!vmgpu_trace_enabled()) return;
    uint32_t cnt;
    if (vmgpu_reg_read(dev->hal, VMGPU_REG_EVT_COUNT, &cnt)) return;
    unsigned n = cnt & VMGPU_REG_EVT_COUNT_COUNT_MASK;
    /* The FIFO keeps the newest events; DROPPED counts the older ones it had to let go since
     * the last pop, and the first pop below clears it, so each loss is reported once. */
    unsigned lost = (cnt & VMGPU_REG_EVT_COUNT_DROPPED_MASK) >> VMGPU_REG_EVT_COUNT_DROPPED_LSB;
    if (lost)
        core_trace("  mmu: %s%u older events lost (the event FIFO was full and kept the newest %u; "
                   "TLB_MISSES counts every miss)",
                   lost == VMGPU_REG_EVT_COUNT_DROPPED_MASK >> VMGPU_REG_EVT_COUNT_DROPPED_LSB
                       ? "at least " : "", lost, n);
    for (unsigned i = 0; i < n; i++) {
        uint32_t info, va, pte;
        if (vmgpu_reg_read(dev->hal, VMGPU_REG_EVT_INFO, &info) ||
            vmgpu_reg_read(dev->hal, VMGPU_REG_EVT_VA, &va) ||
            vmgpu_reg_read(dev->hal, VMGPU_REG_EVT_PTE, &pte) ||
            vmgpu_reg_write(dev->hal, VMGPU_REG_EVT_POP, 1))
            return;
        unsigned kind = (info & VMGPU_REG_EVT_INFO_KIND_MASK) >> VMGPU_REG_EVT_INFO_KIND_LSB;
        unsigned reason = (info & VMGPU_REG_EVT_INFO_REASON_MASK) >> VMGPU_REG_EVT_INFO_REASON_LSB;
        unsigned wr = (info & VMGPU_REG_EVT_INFO_WRITE_MASK) != 0;
        unsigned asid = (info & VMGPU_REG_EVT_INFO_ASID_MASK) >> VMGPU_REG_EVT_INFO_ASID_LSB;
        const char *kn = kind < VMGPU_EVT_COUNT ? vmgpu_evt_names[kind] : "?";
        if (kind == VMGPU_EVT_TLB_FILL)
            core_trace("  mmu: %-10s asid %3u va 0x%08x -> frame 0x%05x %s%s%s%s", kn, asid, va,
                       pte >> 12, pte & VMGPU_PTE_R ? "R" : "-", pte & VMGPU_PTE_W ? "W" : "-",
                       pte & VMGPU_PTE_HOST ? " host" : "", wr ? " (write)" : " (read)");
        else if (kind == VMGPU_EVT_FAULT)
            core_trace("  mmu: %-10s asid %3u va 0x%08x %s on %s", kn, asid, va,
                       fault_name(reason), wr ? "write" : "read");
        else
            core_trace("  mmu: %-10s asid %3u va 0x%08x", kn, asid, va);
    }
}

/* The words written to ring r from byte offset from up to its tail (the commands RESET is about
 * to drop); *out is malloc'd, NULL when there are none or they cannot be read. */
static size_t ring_read_behind(vmgpu_dev *dev, unsigned r, uint32_t from, uint32_t **out)
{
    ring_state *rg = &dev->ring[r];
    uint32_t at = from & (rg->size - 1);
    size_t bytes = (rg->tail - at) & (rg->size - 1);
    *out = NULL;
    if (!bytes || !(*out = malloc(bytes))) return 0;
    uint32_t first = rg->size - at < bytes ? rg->size - at : (uint32_t)bytes;
    int rc = vmgpu_mem_read(dev->hal, rg->base + at, *out, first / 4);
    if (!rc && bytes > first) rc = vmgpu_mem_read(dev->hal, rg->base, *out + first / 4, (bytes - first) / 4);
    if (rc) {
        free(*out);
        *out = NULL;
        return 0;
    }
    return bytes / 4;
}

/*
 * After a reset: queue again the commands of other contexts that were behind the faulting one
 * (w[0] is the faulting command), each run behind a BIND_CTX of its context, so that one
 * context's fault does not cost another context (another process, through the server) its
 * work. The faulting context's own commands stay dropped; a FENCE queued again is no longer
 * counted as dropped.
 */
static void replay_others(vmgpu_dev *dev, unsigned r, const uint32_t *w, size_t n, unsigned asid)
{
    ring_state *rg = &dev->ring[r];
    const vmgpu_ctx *faulted = asid < MAX_ASIDS ? dev->ctx_by_asid[asid] : NULL;
    char text[160];
    size_t i = vmgpu_cmd_decode(w, n, text, sizeof text), words = 0;
    while (i && i < n) {
        size_t k = vmgpu_cmd_decode(&w[i], n - i, text, sizeof text);
        if (!k || i + k > n) break;
        unsigned op = w[i] & 0xff;
        if (op == VMGPU_OP_BIND_CTX && k >= 2) {
            asid = w[i + 1];
        } else {
            vmgpu_ctx *ctx = asid < MAX_ASIDS ? dev->ctx_by_asid[asid] : NULL;
            /* A FENCE is not translated: it marks the work of whoever queued it, whatever the
             * ring was bound to then. */
            if (op == VMGPU_OP_FENCE && k >= 2) {
                const vmgpu_ctx *o = rg->fence_owner[w[i + 1] & 255];
                for (size_t c = 0; o && c < dev->nctx; c++)
                    if (dev->ctxs[c] == o) ctx = dev->ctxs[c];
            }
            if (ctx && ctx != faulted && !ctx->faulted) {
                if (ring_bind(dev, r, ctx) || ring_emit(dev, r, &w[i], k)) break;
                words += k;
                if (op == VMGPU_OP_FENCE && k >= 2 && rg->nreplayed < 64) rg->replayed[rg->nreplayed++] = w[i + 1];
            }
        }
        i += k;
    }
    if (words) core_trace("fault: %zu words of other contexts' commands behind it queued again on ring %u", words, r);
}

/* The ring stopped on a fault: describe it, mark the context, reset the ring. */
static int handle_fault(vmgpu_dev *dev, unsigned r)
{
    ring_state *rg = &dev->ring[r];
    uint32_t va = 0, info = 0, cmd = 0, fence = rg->fence_done;
    RD(VMGPU_RING_REG(r, VMGPU_RING_FAULT_VA), &va);
    RD(VMGPU_RING_REG(r, VMGPU_RING_FAULT_INFO), &info);
    RD(VMGPU_RING_REG(r, VMGPU_RING_FAULT_CMD), &cmd);
    RD(VMGPU_RING_REG(r, VMGPU_RING_FENCE), &fence);
    uint32_t thread = 0, pc = 0;
    RD(VMGPU_RING_REG(r, VMGPU_RING_FAULT_THREAD), &thread);
    RD(VMGPU_RING_REG(r, VMGPU_RING_FAULT_PC), &pc);
    unsigned reason = (info & VMGPU_RING_FAULT_INFO_REASON_MASK) >> VMGPU_RING_FAULT_INFO_REASON_LSB;
    unsigned wr = (info & VMGPU_RING_FAULT_INFO_WRITE_MASK) != 0;
    unsigned asid = (info & VMGPU_RING_FAULT_INFO_ASID_MASK) >> VMGPU_RING_FAULT_INFO_ASID_LSB;
    unsigned op = (info & VMGPU_RING_FAULT_INFO_OPCODE_MASK) >> VMGPU_RING_FAULT_INFO_OPCODE_LSB;
    uint32_t hdr = 0;
    if (vmgpu_mem_read(dev->hal, rg->base + (cmd & (rg->size - 1)), &hdr, 1) == 0 &&
        reason == VMGPU_FAULT_BAD_COMMAND)
        op = hdr & 0xff;  /* an unknown opcode: show what was in the ring */
    char msg[256];
    const char *opn = op < VMGPU_OP_COUNT ? op_name(op) : "unknown opcode";
    if (reason == VMGPU_FAULT_BAD_COMMAND)
        snprintf(msg, sizeof msg, "ring %u: command at offset 0x%x (%s, header 0x%08x) faulted: "
                 "BAD_COMMAND (malformed command at pa 0x%08x), ASID %u", r, cmd, opn, hdr, va, asid);
    else
        snprintf(msg, sizeof msg, "ring %u: command at offset 0x%x (%s, header 0x%08x) faulted: %s "
                 "on %s of VA 0x%08x, ASID %u", r, cmd, opn, hdr, fault_name(reason),
                 wr ? "write" : "read", va, asid);
    if (thread & VMGPU_RING_FAULT_THREAD_SIMT_MASK) {
        /* LAUNCH_PROG: the thread and instruction; a launch whose shape the command processor
         * refused names none (PC 0), an illegal instruction has VA = PC */
        static const char *const acc[] = {"read", "write", "instruction fetch", "instruction"};
        unsigned access = (thread & VMGPU_RING_FAULT_THREAD_ACCESS_MASK) >> VMGPU_RING_FAULT_THREAD_ACCESS_LSB;
        size_t k = strlen(msg);
        if (reason == VMGPU_FAULT_BAD_COMMAND && pc == 0)
            snprintf(msg + k, sizeof msg - k, "; the grid, block or shared memory does not fit "
                     "the SIMT unit");
        else
            snprintf(msg + k, sizeof msg - k, "; SIMT %s%s by lane %u warp %u at PC 0x%08x",
                     reason == VMGPU_FAULT_BAD_COMMAND ? "illegal " : "", acc[access],
                     (thread & VMGPU_RING_FAULT_THREAD_LANE_MASK) >> VMGPU_RING_FAULT_THREAD_LANE_LSB,
                     (thread & VMGPU_RING_FAULT_THREAD_WARP_MASK) >> VMGPU_RING_FAULT_THREAD_WARP_LSB, pc);
    }
    trace_mmu_events(dev);
    core_trace("fault: %s; resetting ring %u (its queued work is dropped)", msg, r);
    vmgpu_ctx *ctx = asid < MAX_ASIDS ? dev->ctx_by_asid[asid] : NULL;
    ctx_mark_faulted(ctx, msg);
    /* Everything queued after the faulting command is dropped by RESET; remember which fences
     * will never come so that waiting for them is an error instead of a hang. */
    rg->fence_done = fence;
    rg->has_dropped = 1;
    rg->dropped_from = fence + 1;
    rg->dropped_upto = rg->fence_issued;
    snprintf(rg->dropped_msg, sizeof rg->dropped_msg, "dropped after fault: %s", msg);
    rg->nreplayed = 0;
    /* Other contexts' commands behind it: read back now (a malformed command leaves nothing
     * to parse; with a batch still queued on the host, ring_flush drops both as before). */
    uint32_t *behind = NULL;
    size_t nbehind = reason != VMGPU_FAULT_BAD_COMMAND && rg->npend == 0
                         ? ring_read_behind(dev, r, cmd, &behind) : 0;
    WR(VMGPU_RING_REG(r, VMGPU_RING_CTRL), VMGPU_RING_CTRL_ENABLE_MASK | VMGPU_RING_CTRL_RESET_MASK);
    RD(VMGPU_RING_REG(r, VMGPU_RING_HEAD), &rg->head);
    rg->tail = rg->head;
    rg->bound = NULL;  /* bind again before the next translated command */
    if (nbehind) replay_others(dev, r, behind, nbehind, asid);
    free(behind);
    return core_fail(dev, VMGPU_ERR_FAULT, "%s", msg);
}

static int fence_dropped(const ring_state *rg, uint32_t value)
{
    for (unsigned i = 0; i < rg->nreplayed; i++)
        if (rg->replayed[i] == value) return 0;  /* queued again after the fault */
    return rg->has_dropped && vmgpu_fence_reached(value, rg->dropped_from) &&
           vmgpu_fence_reached(rg->dropped_upto, value) &&
           !vmgpu_fence_reached(rg->fence_done, value);
}

int vmgpu_fence_query(vmgpu_dev *dev, unsigned r, uint32_t value)
{
    if (dev && dev->remote) return remote_fence_query(dev, r, value);
    if (!dev || r >= dev->info.n_rings) return core_fail(dev, VMGPU_ERR_INVALID, "fence_query: bad ring");
    ring_state *rg = &dev->ring[r];
    if (vmgpu_fence_reached(rg->fence_done, value)) return VMGPU_OK;
    if (fence_dropped(rg, value)) return core_fail(dev, VMGPU_ERR_FAULT, "%s", rg->dropped_msg);
    int frc = ring_flush_pending(dev, r);  /* a deferred event fence must get to the device */
    if (frc) return frc;
    RD(VMGPU_RING_REG(r, VMGPU_RING_FENCE), &rg->fence_done);
    return vmgpu_fence_reached(rg->fence_done, value) ? VMGPU_OK : VMGPU_ERR_NOT_READY;
}

int vmgpu_fence_wait(vmgpu_dev *dev, unsigned r, uint32_t value)
{
    if (dev && dev->remote) return remote_fence_wait(dev, r, value);
    if (!dev || r >= dev->info.n_rings) return core_fail(dev, VMGPU_ERR_INVALID, "fence_wait: bad ring");
    ring_state *rg = &dev->ring[r];
    if (!vmgpu_fence_reached(rg->fence_issued, value))
        return core_fail(dev, VMGPU_ERR_INVALID, "fence_wait: ring %u fence %u was never issued "
                         "(last %u)", r, value, rg->fence_issued);
    if (vmgpu_fence_reached(rg->fence_done, value)) return VMGPU_OK;
    if (fence_dropped(rg, value)) return core_fail(dev, VMGPU_ERR_FAULT, "%s", rg->dropped_msg);
    int frc = ring_flush_pending(dev, r);
    if (frc) return frc;
    uint64_t spent = 0;
    unsigned idle_looks = 0;
    for (;;) {
        uint32_t st;
        /* Run first: a device that is already idle costs nothing, and the usual wait is then
         * one run plus one FENCE read, whatever the batch did. */
        uint64_t chunk = dev->timeout_cycles > spent ? dev->timeout_cycles - spent : 0, ran = 0;
        if (chunk > (1ull << 24)) chunk = 1ull << 24;
        if (chunk) {
            int rc = vmgpu_run(dev->hal, chunk, &ran);
            if (rc && rc != VMGPU_HAL_ETIMEDOUT) return core_hal_err(dev, rc, "run");
            spent += ran;
            /* Idle twice without our fence (and no fault): nothing can make progress. */
            if (rc == VMGPU_HAL_OK && ran == 0 && ++idle_looks >= 2) spent = dev->timeout_cycles;
        }
        RD(VMGPU_RING_REG(r, VMGPU_RING_FENCE), &rg->fence_done);
        if (vmgpu_fence_reached(rg->fence_done, value)) {
            trace_mmu_events(dev);
            return VMGPU_OK;
        }
        RD(VMGPU_RING_REG(r, VMGPU_RING_STATUS), &st);
        if (st & VMGPU_RING_STATUS_FAULTED_MASK) {
            int frc = handle_fault(dev, r);
            /* Another context's fault: this fence was queued again behind the reset (or came
             * before the faulting command); go on waiting for it. */
            if (vmgpu_fence_reached(rg->fence_done, value)) return VMGPU_OK;
            if (fence_dropped(rg, value) || frc != VMGPU_ERR_FAULT) return frc;
            frc = ring_flush_pending(dev, r);
            if (frc) return frc;
            idle_looks = 0;
            continue;
        }
        if (spent >= dev->timeout_cycles) {
            uint32_t head = 0, hdr = 0;
            RD(VMGPU_RING_REG(r, VMGPU_RING_HEAD), &head);
            vmgpu_mem_read(dev->hal, rg->base + head, &hdr, 1);
            trace_mmu_events(dev);
            return core_fail(dev, VMGPU_ERR_TIMEOUT, "ring %u: fence %u not reached after %" PRIu64
                             " cycles (FENCE %u); command at offset 0x%x (%s)%s", r, value, spent,
                             rg->fence_done, head, op_name(hdr & 0xff),
                             (st & VMGPU_RING_STATUS_WAITING_MASK) ? " is blocked in WAIT_FENCE" :
                             " has not completed");
        }
    }
}

int vmgpu_dev_run_idle(vmgpu_dev *dev)
{
    if (dev && dev->remote) return remote_dev_run_idle(dev);
    if (!dev) return VMGPU_ERR_INVALID;
    uint64_t ran = 0;
    int rc = vmgpu_run(dev->hal, dev->timeout_cycles, &ran);
    if (rc == VMGPU_HAL_ETIMEDOUT)
        return core_fail(dev, VMGPU_ERR_TIMEOUT, "device not idle after %" PRIu64 " cycles", ran);
    if (rc) return core_hal_err(dev, rc, "run");
    trace_mmu_events(dev);
    return VMGPU_OK;
}
