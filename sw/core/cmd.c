/* Streams and the command-stream builder: every queued command is checked here, bound to the
 * stream's context (BIND_CTX when the ring switches contexts) and queued on the ring. */
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"
#include "remote.h"

#define ARGS_SLOT_BYTES 32u  /* 5 argument words, rounded up */

int vmgpu_stream_create(vmgpu_ctx *ctx, unsigned ring, vmgpu_stream **out)
{
    if (ctx && ctx->dev->remote) return remote_stream_create(ctx, ring, out);
    if (!ctx || !out || ring >= ctx->dev->info.n_rings)
        return core_fail(ctx ? ctx->dev : NULL, VMGPU_ERR_INVALID, "stream_create: bad argument");
    vmgpu_dev *dev = ctx->dev;
    if (dev->nstreams == dev->capstreams) {
        size_t nc = dev->capstreams ? dev->capstreams * 2 : 8;
        vmgpu_stream **n = realloc(dev->streams, nc * sizeof *n);
        if (!n) return core_fail(dev, VMGPU_ERR_NOMEM, "out of host memory");
        dev->streams = n;
        dev->capstreams = nc;
    }
    vmgpu_stream *s = calloc(1, sizeof *s);
    if (!s) return core_fail(dev, VMGPU_ERR_NOMEM, "out of host memory");
    s->ctx = ctx;
    s->ring = ring;
    dev->streams[dev->nstreams++] = s;
    ctx->nstreams++;
    *out = s;
    return VMGPU_OK;
}

int vmgpu_stream_destroy(vmgpu_stream *s)
{
    if (s && s->ctx->dev->remote) return remote_stream_destroy(s);
    if (!s) return VMGPU_OK;
    vmgpu_dev *dev = s->ctx->dev;
    int rc = VMGPU_OK;
    if (!s->ctx->faulted && s->submitted) rc = vmgpu_fence_wait(dev, s->ring, s->last_fence);
    for (size_t i = 0; i < dev->nstreams; i++)
        if (dev->streams[i] == s) {
            memmove(&dev->streams[i], &dev->streams[i + 1],
                    (dev->nstreams - i - 1) * sizeof *dev->streams);
            dev->nstreams--;
            break;
        }
    s->ctx->nstreams--;
    free(s);
    return rc;
}

unsigned vmgpu_stream_ring(const vmgpu_stream *s) { return s ? s->ring : 0; }
vmgpu_ctx *vmgpu_stream_ctx(const vmgpu_stream *s) { return s ? s->ctx : NULL; }

static int stream_ok(vmgpu_stream *s, const char *who)
{
    if (!s) return VMGPU_ERR_INVALID;
    if (s->ctx->faulted)
        return core_fail(s->ctx->dev, VMGPU_ERR_CTX_FAULTED, "%s: asid %u faulted earlier: %s", who,
                         s->ctx->asid, s->ctx->fault_msg);
    return VMGPU_OK;
}

/* Queue a translated command: bind the ring to the stream's context first. */
static int queue(vmgpu_stream *s, const uint32_t *w, size_t n)
{
    vmgpu_dev *dev = s->ctx->dev;
    int rc = ring_bind(dev, s->ring, s->ctx);
    if (!rc) rc = ring_emit(dev, s->ring, w, n);
    return rc;
}

int vmgpu_cmd_copy_2d(vmgpu_stream *s, uint32_t dst_va, uint32_t dst_pitch, uint32_t src_va,
                      uint32_t src_pitch, uint32_t width, uint32_t height)
{
    if (s && s->ctx->dev->remote) return remote_cmd(s, VMGPU_MSG_CMD_COPY_2D, 6, (uint64_t[]){dst_va, dst_pitch, src_va, src_pitch, width, height});
    int rc = stream_ok(s, "copy");
    if (rc) return rc;
    if (width == 0 || height == 0)
        return core_fail(s->ctx->dev, VMGPU_ERR_INVALID, "copy: width %u height %u must be nonzero",
                         width, height);
    uint64_t send = (uint64_t)src_va + (uint64_t)src_pitch * (height - 1) + width;
    uint64_t dend = (uint64_t)dst_va + (uint64_t)dst_pitch * (height - 1) + width;
    if (send > (1ull << 32) || dend > (1ull << 32))
        return core_fail(s->ctx->dev, VMGPU_ERR_INVALID, "copy: range runs past 4 GiB");
    uint32_t w[7] = {VMGPU_CMD_HEADER(VMGPU_OP_DMA_COPY, 6, 0), src_va, dst_va, width, height,
                     src_pitch, dst_pitch};
    return queue(s, w, 7);
}

int vmgpu_cmd_copy(vmgpu_stream *s, uint32_t dst_va, uint32_t src_va, uint32_t bytes)
{
    if (s && s->ctx->dev->remote) return remote_cmd(s, VMGPU_MSG_CMD_COPY, 3, (uint64_t[]){dst_va, src_va, bytes});
    return vmgpu_cmd_copy_2d(s, dst_va, bytes, src_va, bytes, bytes, 1);
}

int vmgpu_cmd_fill_2d(vmgpu_stream *s, uint32_t dst_va, uint32_t dst_pitch, uint32_t width,
                      uint32_t height, uint32_t pattern, unsigned pattern_bytes)
{
    if (s && s->ctx->dev->remote) return remote_cmd(s, VMGPU_MSG_CMD_FILL_2D, 6, (uint64_t[]){dst_va, dst_pitch, width, height, pattern, pattern_bytes});
    int rc = stream_ok(s, "fill");
    if (rc) return rc;
    unsigned mode = pattern_bytes == 1 ? VMGPU_FILL_8 : pattern_bytes == 2 ? VMGPU_FILL_16 :
                    pattern_bytes == 4 ? VMGPU_FILL_32 : 99;
    if (mode == 99 || width == 0 || height == 0 ||
        (uint64_t)dst_va + (uint64_t)dst_pitch * (height - 1) + width > (1ull << 32))
        return core_fail(s->ctx->dev, VMGPU_ERR_INVALID, "fill: pattern_bytes %u (1, 2, 4), width "
                         "%u, height %u", pattern_bytes, width, height);
    uint32_t w[6] = {VMGPU_CMD_HEADER(VMGPU_OP_DMA_FILL, 5, mode), dst_va, width, height,
                     dst_pitch, pattern};
    return queue(s, w, 6);
}

int vmgpu_cmd_fill(vmgpu_stream *s, uint32_t dst_va, uint32_t bytes, uint32_t pattern,
                   unsigned pattern_bytes)
{
    if (s && s->ctx->dev->remote) return remote_cmd(s, VMGPU_MSG_CMD_FILL, 4, (uint64_t[]){dst_va, bytes, pattern, pattern_bytes});
    return vmgpu_cmd_fill_2d(s, dst_va, bytes, bytes, 1, pattern, pattern_bytes);
}

/* A pixel rectangle of the graphics commands: word-aligned base and pitch, a width and height
 * of 1..VMGPU_GFX_MAX_DIM (the engine's counters are 16 bits wide), and every row inside the
 * 32-bit VA space. 0 when it is usable. */
static int gfx_rect_bad(uint32_t va, uint32_t pitch, uint32_t w, uint32_t h)
{
    if ((va | pitch) & 3u || w == 0 || h == 0 || w > VMGPU_GFX_MAX_DIM || h > VMGPU_GFX_MAX_DIM)
        return 1;
    return (uint64_t)va + (uint64_t)pitch * (h - 1) + (uint64_t)w * 4u > (1ull << 32);
}

int vmgpu_cmd_gfx_fill(vmgpu_stream *s, uint32_t dst_va, uint32_t dst_pitch, uint32_t width,
                       uint32_t height, uint32_t color)
{
    if (s && s->ctx->dev->remote) return remote_cmd(s, VMGPU_MSG_CMD_GFX_FILL, 5, (uint64_t[]){dst_va, dst_pitch, width, height, color});
    int rc = stream_ok(s, "gfx_fill");
    if (rc) return rc;
    if (gfx_rect_bad(dst_va, dst_pitch, width, height))
        return core_fail(s->ctx->dev, VMGPU_ERR_INVALID, "gfx_fill: dst va 0x%08x pitch %u %u x %u "
                         "(word aligned, 1..65535, below 4 GiB)", dst_va, dst_pitch, width, height);
    uint32_t w[6] = {VMGPU_CMD_HEADER(VMGPU_OP_GFX_FILL, 5, 0), dst_va, dst_pitch, width, height,
                     color};
    return queue(s, w, 6);
}

/* GFX_BLIT and GFX_MIPGEN share their operands and checks. */
static int gfx_two_rect(vmgpu_stream *s, unsigned op, const char *who, uint32_t src_va,
                        uint32_t src_pitch, uint32_t src_w, uint32_t src_h, uint32_t dst_va,
                        uint32_t dst_pitch, uint32_t dst_w, uint32_t dst_h)
{
    int rc = stream_ok(s, who);
    if (rc) return rc;
    if (gfx_rect_bad(src_va, src_pitch, src_w, src_h))
        return core_fail(s->ctx->dev, VMGPU_ERR_INVALID, "%s: src va 0x%08x pitch %u %u x %u "
                         "(word aligned, 1..65535, below 4 GiB)", who, src_va, src_pitch, src_w, src_h);
    if (gfx_rect_bad(dst_va, dst_pitch, dst_w, dst_h))
        return core_fail(s->ctx->dev, VMGPU_ERR_INVALID, "%s: dst va 0x%08x pitch %u %u x %u "
                         "(word aligned, 1..65535, below 4 GiB)", who, dst_va, dst_pitch, dst_w, dst_h);
    uint32_t w[9] = {VMGPU_CMD_HEADER(op, 8, 0), src_va, src_pitch, src_w, src_h,
                     dst_va, dst_pitch, dst_w, dst_h};
    return queue(s, w, 9);
}

int vmgpu_cmd_gfx_blit(vmgpu_stream *s, uint32_t src_va, uint32_t src_pitch, uint32_t src_w,
                       uint32_t src_h, uint32_t dst_va, uint32_t dst_pitch, uint32_t dst_w,
                       uint32_t dst_h)
{
    if (s && s->ctx->dev->remote) return remote_cmd(s, VMGPU_MSG_CMD_GFX_BLIT, 8, (uint64_t[]){src_va, src_pitch, src_w, src_h, dst_va, dst_pitch, dst_w, dst_h});
    return gfx_two_rect(s, VMGPU_OP_GFX_BLIT, "gfx_blit", src_va, src_pitch, src_w, src_h, dst_va,
                        dst_pitch, dst_w, dst_h);
}

int vmgpu_cmd_gfx_mipgen(vmgpu_stream *s, uint32_t src_va, uint32_t src_pitch, uint32_t src_w,
                         uint32_t src_h, uint32_t dst_va, uint32_t dst_pitch, uint32_t dst_w,
                         uint32_t dst_h)
{
    if (s && s->ctx->dev->remote) return remote_cmd(s, VMGPU_MSG_CMD_GFX_MIPGEN, 8, (uint64_t[]){src_va, src_pitch, src_w, src_h, dst_va, dst_pitch, dst_w, dst_h});
    return gfx_two_rect(s, VMGPU_OP_GFX_MIPGEN, "gfx_mipgen", src_va, src_pitch, src_w, src_h,
                        dst_va, dst_pitch, dst_w, dst_h);
}

/* The argument area: one granule of device memory per context, mapped read-only, used as a
 * ring of 32-byte slots written by WRITE_IMM in stream order. */
static int args_area(vmgpu_stream *s)
{
    vmgpu_ctx *ctx = s->ctx;
    vmgpu_dev *dev = ctx->dev;
    if (ctx->args_va) return VMGPU_OK;
    uint32_t va, pa;
    int rc = vmgpu_va_reserve(ctx, VMGPU_GRANULE, VMGPU_GRANULE, 0, &va);
    if (rc) return rc;
    rc = vmgpu_phys_alloc(dev, VMGPU_GRANULE, VMGPU_GRANULE, &pa);
    if (rc) {
        vmgpu_va_free(ctx, va);
        return rc;
    }
    rc = vmgpu_map(ctx, va, pa, VMGPU_GRANULE, VMGPU_MAP_READ);
    if (rc) {
        vmgpu_phys_free(dev, pa);
        vmgpu_va_free(ctx, va);
        return rc;
    }
    ctx->args_va = va;
    ctx->args_pa = pa;
    return VMGPU_OK;
}

int vmgpu_cmd_launch(vmgpu_stream *s, unsigned kernel, uint32_t dst_va, uint32_t a_va,
                     uint32_t b_va, uint32_t n, uint32_t scalar)
{
    if (s && s->ctx->dev->remote) return remote_cmd(s, VMGPU_MSG_CMD_LAUNCH, 6, (uint64_t[]){kernel, dst_va, a_va, b_va, n, scalar});
    int rc = stream_ok(s, "launch");
    if (rc) return rc;
    vmgpu_dev *dev = s->ctx->dev;
    if (kernel >= VMGPU_KERNEL_COUNT)
        return core_fail(dev, VMGPU_ERR_INVALID, "launch: unknown kernel %u", kernel);
    if ((dst_va | a_va | b_va) & 3)
        return core_fail(dev, VMGPU_ERR_INVALID, "launch: pointers must be word aligned");
    rc = args_area(s);
    if (rc) return rc;
    unsigned nslots = VMGPU_GRANULE / ARGS_SLOT_BYTES;
    if (s->ctx->args_next == nslots) {
        /* Slots are reused: everything that may still read them must be done first. */
        for (unsigned r = 0; r < dev->info.n_rings; r++) {
            uint32_t f;
            rc = ring_submit(dev, r, &f, NULL);
            if (!rc) rc = vmgpu_fence_wait(dev, r, f);
            if (rc) return rc;
        }
        s->ctx->args_next = 0;
    }
    unsigned slot = s->ctx->args_next++;
    core_trace("launch %s (asid %u): dst 0x%08x a 0x%08x b 0x%08x n %u scalar %d, args at va "
               "0x%08x", vmgpu_kernel_names[kernel], s->ctx->asid, dst_va, a_va, b_va, n,
               (int)scalar, s->ctx->args_va + slot * ARGS_SLOT_BYTES);
    uint32_t wa[7] = {VMGPU_CMD_HEADER(VMGPU_OP_WRITE_IMM, 6, 0),
                      s->ctx->args_pa + slot * ARGS_SLOT_BYTES, dst_va, a_va, b_va, n, scalar};
    uint32_t wl[2] = {VMGPU_CMD_HEADER(VMGPU_OP_LAUNCH, 1, kernel),
                      s->ctx->args_va + slot * ARGS_SLOT_BYTES};
    rc = queue(s, wa, 7);
    if (!rc) rc = queue(s, wl, 2);
    return rc;
}

/* The SIMT stack area: slots x VMGPU_SIMT_STACK_BYTES of device memory per context, mapped
 * read-write (granules), at the first LAUNCH_PROG. */
static int stack_area(vmgpu_stream *s)
{
    vmgpu_ctx *ctx = s->ctx;
    vmgpu_dev *dev = ctx->dev;
    if (ctx->stack_va) return VMGPU_OK;
    uint32_t slots = dev->info.simt_lanes * dev->info.simt_warps;
    uint32_t bytes = (slots * VMGPU_SIMT_STACK_BYTES + VMGPU_GRANULE - 1) & ~(VMGPU_GRANULE - 1);
    uint32_t va, pa;
    int rc = vmgpu_va_reserve(ctx, bytes, VMGPU_GRANULE, 0, &va);
    if (rc) return rc;
    rc = vmgpu_phys_alloc(dev, bytes, VMGPU_GRANULE, &pa);
    if (rc) {
        vmgpu_va_free(ctx, va);
        return rc;
    }
    rc = vmgpu_map(ctx, va, pa, bytes, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
    if (rc) {
        vmgpu_phys_free(dev, pa);
        vmgpu_va_free(ctx, va);
        return rc;
    }
    ctx->stack_va = va;
    ctx->stack_pa = pa;
    return VMGPU_OK;
}

/* The launch's shape against the unit's: NULL when it fits, else what is wrong. */
static const char *launch_prog_bad(const vmgpu_dev_info *in, uint32_t code_va, uint32_t args_va,
                                   const uint32_t grid[3], const uint32_t block[3],
                                   uint32_t shared_bytes)
{
    if (!in->simt_lanes) return "the device has no SIMT unit (CAPS.SIMT is 0)";
    if (!code_va || (code_va & 3)) return "code_va must be nonzero and word aligned";
    if (args_va & 3) return "args_va must be word aligned";
    if (!grid || !block) return "grid and block must not be NULL";
    uint64_t threads = 1;
    for (int d = 0; d < 3; d++) {
        if (grid[d] == 0 || grid[d] > 65535) return "a grid dimension is 0 or above 65535";
        if (block[d] == 0 || block[d] > 1023) return "a block dimension is 0 or above 1023";
        threads *= block[d];
    }
    if (threads > (uint64_t)in->simt_lanes * in->simt_warps)
        return "more threads per block than the unit has (lanes x warps)";
    if (shared_bytes > in->simt_shared_bytes) return "shared_bytes above the unit's shared memory";
    return NULL;
}

int vmgpu_cmd_launch_prog(vmgpu_stream *s, uint32_t code_va, uint32_t args_va,
                          const uint32_t grid[3], const uint32_t block[3], uint32_t shared_bytes)
{
    if (s && s->ctx->dev->remote) {
        if (!grid || !block)
            return core_fail(s->ctx->dev, VMGPU_ERR_INVALID, "launch_prog: grid and block must not be NULL");
        return remote_cmd(s, VMGPU_MSG_CMD_LAUNCH_PROG, 9, (uint64_t[]){code_va, args_va, grid[0],
                          grid[1], grid[2], block[0], block[1], block[2], shared_bytes});
    }
    int rc = stream_ok(s, "launch_prog");
    if (rc) return rc;
    vmgpu_dev *dev = s->ctx->dev;
    const char *bad = launch_prog_bad(&dev->info, code_va, args_va, grid, block, shared_bytes);
    if (bad) return core_fail(dev, VMGPU_ERR_INVALID, "launch_prog: %s", bad);
    rc = stack_area(s);
    if (rc) return rc;
    unsigned stack_log2 = 0;
    while ((1u << stack_log2) < VMGPU_SIMT_STACK_BYTES) stack_log2++;
    core_trace("launch_prog (asid %u): code va 0x%08x args va 0x%08x grid %u x %u x %u block "
               "%u x %u x %u shared %u, stacks at va 0x%08x (%u bytes per thread)", s->ctx->asid,
               code_va, args_va, grid[0], grid[1], grid[2], block[0], block[1], block[2],
               shared_bytes, s->ctx->stack_va, VMGPU_SIMT_STACK_BYTES);
    uint32_t w[9] = {VMGPU_CMD_HEADER(VMGPU_OP_LAUNCH_PROG, 8, stack_log2), code_va, args_va,
                     grid[0], grid[1], grid[2], block[0] | block[1] << 10 | block[2] << 20,
                     shared_bytes, s->ctx->stack_va};
    return queue(s, w, 9);
}

int vmgpu_cmd_timestamp(vmgpu_stream *s, uint32_t pa)
{
    if (s && s->ctx->dev->remote) return remote_cmd(s, VMGPU_MSG_CMD_TIMESTAMP, 1, (uint64_t[]){pa});
    int rc = stream_ok(s, "timestamp");
    if (rc) return rc;
    vmgpu_dev *dev = s->ctx->dev;
    if ((pa & 3) || (uint64_t)pa + 8 > dev->info.mem_size)
        return core_fail(dev, VMGPU_ERR_INVALID, "timestamp: pa 0x%08x (word aligned, in memory)", pa);
    uint32_t w[2] = {VMGPU_CMD_HEADER(VMGPU_OP_TIMESTAMP, 1, 0), pa};
    return ring_emit(dev, s->ring, w, 2);
}

int vmgpu_cmd_tlb_inv(vmgpu_stream *s)
{
    if (s && s->ctx->dev->remote) return remote_cmd(s, VMGPU_MSG_CMD_TLB_INV, 0, NULL);
    int rc = stream_ok(s, "tlb_inv");
    if (rc) return rc;
    uint32_t w[4] = {VMGPU_CMD_HEADER(VMGPU_OP_TLB_INV, 3, VMGPU_INV_ASID), s->ctx->asid, 0, 0};
    return ring_emit(s->ctx->dev, s->ring, w, 4);
}

int vmgpu_cmd_wait_fence(vmgpu_stream *s, unsigned ring, uint32_t value)
{
    if (s && s->ctx->dev->remote) return remote_cmd(s, VMGPU_MSG_CMD_WAIT_FENCE, 2, (uint64_t[]){ring, value});
    int rc = stream_ok(s, "wait_fence");
    if (rc) return rc;
    vmgpu_dev *dev = s->ctx->dev;
    if (ring >= dev->info.n_rings)
        return core_fail(dev, VMGPU_ERR_INVALID, "wait_fence: no ring %u", ring);
    if (!vmgpu_fence_reached(dev->ring[ring].fence_issued, value))
        return core_fail(dev, VMGPU_ERR_INVALID, "wait_fence: ring %u fence %u not issued yet "
                         "(would deadlock)", ring, value);
    /* The awaited fence may still be queued on its ring (a deferred event record). */
    rc = ring_flush_pending(dev, ring);
    if (rc) return rc;
    uint32_t w[3] = {VMGPU_CMD_HEADER(VMGPU_OP_WAIT_FENCE, 2, 0), ring, value};
    return ring_emit(dev, s->ring, w, 3);
}

int vmgpu_cmd_raw(vmgpu_stream *s, const uint32_t *words, size_t nwords)
{
    if (s && s->ctx->dev->remote) return remote_cmd_raw(s);
    int rc = stream_ok(s, "raw");
    if (rc) return rc;
    if (!words || nwords == 0) return core_fail(s->ctx->dev, VMGPU_ERR_INVALID, "raw: no words");
    return queue(s, words, nwords);
}

int vmgpu_stream_submit(vmgpu_stream *s, uint32_t *fence)
{
    if (s && s->ctx->dev->remote) return remote_stream_submit(s, fence);
    int rc = stream_ok(s, "submit");
    if (rc) return rc;
    uint32_t f;
    rc = ring_submit(s->ctx->dev, s->ring, &f, s->ctx);
    if (rc) return rc;
    s->last_fence = f;
    s->submitted = 1;
    if (fence) *fence = f;
    return VMGPU_OK;
}

/* A fence on the stream's ring that is queued but not yet sent (see vmgpu_event_record). */
int stream_fence_deferred(vmgpu_stream *s, uint32_t *fence)
{
    int rc = stream_ok(s, "fence");
    if (rc) return rc;
    uint32_t f;
    rc = ring_fence(s->ctx->dev, s->ring, &f, 0, s->ctx);
    if (rc) return rc;
    s->last_fence = f;
    s->submitted = 1;
    if (fence) *fence = f;
    return VMGPU_OK;
}

int vmgpu_stream_sync(vmgpu_stream *s)
{
    if (s && s->ctx->dev->remote) return remote_stream_sync(s);
    uint32_t f;
    int rc = vmgpu_stream_submit(s, &f);
    if (!rc) rc = vmgpu_fence_wait(s->ctx->dev, s->ring, f);
    return rc;
}

int vmgpu_stream_wait_stream(vmgpu_stream *waiter, vmgpu_stream *s)
{
    if (waiter && waiter->ctx->dev->remote) return remote_stream_wait_stream(waiter, s);
    if (!waiter || !s || waiter->ctx->dev != s->ctx->dev) return VMGPU_ERR_INVALID;
    int rc = stream_ok(waiter, "wait_stream");
    if (rc) return rc;
    uint32_t f;
    rc = vmgpu_stream_submit(s, &f);
    if (rc) return rc;
    if (waiter->ring == s->ring) return VMGPU_OK;  /* one ring runs in order anyway */
    return vmgpu_cmd_wait_fence(waiter, s->ring, f);
}
