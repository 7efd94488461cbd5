/*
 * vgfx, vmgpu's small graphics API (sw/include/vmgpu_gfx.h), built into libcuda.so so that it
 * drives the same device instance as CUDA: the driver core's process device (vmgpu_process_dev).
 * Every entry point takes that device's lock for its whole duration; the core underneath is not
 * thread-safe.
 *
 * vgfx owns one core context (its own ASID and page tables, like a GL context) and one stream
 * on the device's last ring. A resource is one physical allocation, a multiple of the 64 KiB
 * granule, mapped read/write into that context; engine commands name it by VA.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gfx_internal.h"

#define RES_MAGIC 0x56474658u  /* "VGFX" */

static unsigned g_refs;          /* vgfxInit calls not yet shut down */
static vmgpu_dev *g_gdev;
static vmgpu_dev_info g_ginfo;
static vmgpu_ctx *g_gctx;
static vmgpu_stream *g_gs;
static unsigned g_ring;
static uint32_t g_last_fence;
static int g_submitted;
static gfx_res *g_res;           /* live resources */
static gfx_res *g_dead;          /* destroyed ones: kept so a stale handle is never reused */
/* Memory of destroyed resources that others may still use: an exported memfd still open
 * somewhere in the process (an importer may map it: cuImportExternalMemory keeps the fd), or
 * pages still mapped in a CUDA context (VMGPU_ERR_BUSY). Freed once neither holds. */
typedef struct {
    uint32_t pa, size;
    int exported;
    dev_t dev;
    ino_t ino;
} gfx_orphan;
static gfx_orphan *g_orphans;
static size_t g_norphans;

static __thread char t_msg[320];

static vgfxStatus fail(vgfxStatus st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static vgfxStatus fail(vgfxStatus st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t_msg, sizeof t_msg, fmt, ap);
    va_end(ap);
    if (vmgpu_trace_enabled()) fprintf(stderr, "[vgfx] error %s: %s\n", vgfxGetErrorString(st), t_msg);
    return st;
}

static void trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void trace(const char *fmt, ...)
{
    if (!vmgpu_trace_enabled()) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[vgfx] ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

/* Every entry point: lock, clear the message, run, unlock. */
#define LOCKED(call) do { vmgpu_process_lock(); t_msg[0] = 0; vgfxStatus st_ = (call); vmgpu_process_unlock(); \
    return st_; } while (0)

static const char *const k_status_text[] = {
    [VGFX_SUCCESS] = "VGFX_SUCCESS: no error",
    [VGFX_ERROR_INVALID_VALUE] = "VGFX_ERROR_INVALID_VALUE: invalid argument",
    [VGFX_ERROR_INVALID_HANDLE] = "VGFX_ERROR_INVALID_HANDLE: not a live vgfx buffer or image",
    [VGFX_ERROR_OUT_OF_MEMORY] = "VGFX_ERROR_OUT_OF_MEMORY: out of device memory",
    [VGFX_ERROR_DEVICE] = "VGFX_ERROR_DEVICE: device error (no device, fault or timeout)",
    [VGFX_ERROR_MAPPED_BY_CUDA] = "VGFX_ERROR_MAPPED_BY_CUDA: the resource is mapped by CUDA",
    [VGFX_ERROR_NOT_INITIALIZED] = "VGFX_ERROR_NOT_INITIALIZED: vgfxInit has not been called",
    [VGFX_ERROR_IN_USE] = "VGFX_ERROR_IN_USE: the resource is registered with CUDA",
    [VGFX_ERROR_NOT_SUPPORTED] = "VGFX_ERROR_NOT_SUPPORTED: not supported for this format",
    [VGFX_ERROR_FILE] = "VGFX_ERROR_FILE: file could not be written",
    [VGFX_ERROR_NOT_READY] = "VGFX_ERROR_NOT_READY: engine work still running",
};

const char *vgfxGetErrorString(vgfxStatus status)
{
    if ((unsigned)status < sizeof k_status_text / sizeof k_status_text[0] && k_status_text[status])
        return k_status_text[status];
    return "unknown vgfx status";
}

const char *vgfxGetLastErrorMessage(void) { return t_msg; }

/* ------------------------------------------------------------------ helpers */

static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

static vgfxStatus need_init(void)
{
    if (!g_refs) return fail(VGFX_ERROR_NOT_INITIALIZED, "vgfxInit has not been called");
    return VGFX_SUCCESS;
}

/* A core failure as a vgfx status; a fault of vgfx's context is reported once, then cleared
 * so that the application can go on (the faulting work was dropped). */
static vgfxStatus core_status(int rc, const char *what)
{
    if (rc == VMGPU_OK) return VGFX_SUCCESS;
    if (rc == VMGPU_ERR_NOMEM || rc == VMGPU_ERR_NOVA)
        return fail(VGFX_ERROR_OUT_OF_MEMORY, "%s: %s", what, vmgpu_dev_last_error(g_gdev));
    if (rc == VMGPU_ERR_INVALID)
        return fail(VGFX_ERROR_INVALID_VALUE, "%s: %s", what, vmgpu_dev_last_error(g_gdev));
    char msg[256] = "";
    if (g_gctx && vmgpu_ctx_status(g_gctx, msg, sizeof msg) == VMGPU_ERR_CTX_FAULTED)
        vmgpu_ctx_clear_fault(g_gctx);
    return fail(VGFX_ERROR_DEVICE, "%s: %s (%s)", what, vmgpu_status_name(rc),
                msg[0] ? msg : vmgpu_dev_last_error(g_gdev));
}

static int submit(void)
{
    uint32_t f;
    int rc = vmgpu_stream_submit(g_gs, &f);
    if (rc) return rc;
    g_last_fence = f;
    g_submitted = 1;
    return VMGPU_OK;
}

/* Wait for vgfx's queued work (and whatever it waits for, e.g. CUDA work before an unmap). */
static vgfxStatus finish(const char *what)
{
    int rc = submit();
    if (!rc) rc = vmgpu_fence_wait(g_gdev, g_ring, g_last_fence);
    return core_status(rc, what);
}

gfx_res *gfx_res_lookup(const void *handle, int kind)
{
    if (!handle) return NULL;
    for (gfx_res *r = g_res; r; r = r->next)
        if ((const void *)r == handle && r->live && (!kind || r->kind == kind)) return r;
    return NULL;
}

vmgpu_stream *gfx_stream(void) { return g_refs ? g_gs : NULL; }

static vgfxStatus res_check(const void *handle, int kind, const char *who, gfx_res **out)
{
    vgfxStatus st = need_init();
    if (st) return st;
    gfx_res *r = gfx_res_lookup(handle, kind);
    if (!r)
        return fail(VGFX_ERROR_INVALID_HANDLE, "%s: %p is not a live vgfx %s", who, handle,
                    kind == GFX_BUFFER ? "buffer" : kind == GFX_IMAGE ? "image" : "resource");
    *out = r;
    return VGFX_SUCCESS;
}

/* Refuse vgfx's own use of memory CUDA has mapped (cudaVgfx.h). */
static vgfxStatus not_mapped(const gfx_res *r, const char *who)
{
    if (r->cuda_mapped)
        return fail(VGFX_ERROR_MAPPED_BY_CUDA, "%s: %s %p is mapped by CUDA (cuGraphicsMapResources); "
                    "call cuGraphicsUnmapResources before using it with vgfx", who,
                    r->kind == GFX_IMAGE ? "image" : "buffer", (const void *)r);
    return VGFX_SUCCESS;
}

static uint32_t level_dim(uint32_t d, uint32_t level)
{
    d >>= level;
    return d ? d : 1;
}

void gfx_subresource(const gfx_res *r, uint32_t layer, uint32_t level, vgfxSubresourceLayout *out)
{
    out->width = level_dim(r->desc.width, level);
    out->height = level_dim(r->desc.height, level);
    out->rowPitch = out->width * 4;
    out->size = (uint64_t)out->rowPitch * out->height;
    out->offset = (uint64_t)layer * r->layer_stride + r->level_off[level];
}

static vgfxStatus sub_check(const gfx_res *r, uint32_t layer, uint32_t level, const char *who)
{
    if (layer >= r->desc.arrayLayers)
        return fail(VGFX_ERROR_INVALID_VALUE, "%s: layer %u (the image has %u)", who, layer,
                    r->desc.arrayLayers);
    if (level >= r->desc.mipLevels)
        return fail(VGFX_ERROR_INVALID_VALUE, "%s: mip level %u (the image has %u)", who, level,
                    r->desc.mipLevels);
    return VGFX_SUCCESS;
}

/* The rectangle (NULL: all) inside the subresource; its VA, pitch and size in *out. */
typedef struct { uint32_t va, pitch, w, h, x, y; } gfx_area;
static vgfxStatus area_of(const gfx_res *r, uint32_t layer, uint32_t level, const vgfxRect *rect,
                          const char *who, gfx_area *out)
{
    vgfxSubresourceLayout l;
    gfx_subresource(r, layer, level, &l);
    vgfxRect all = {0, 0, l.width, l.height};
    if (!rect) rect = &all;
    if (rect->width == 0 || rect->height == 0 || (uint64_t)rect->x + rect->width > l.width ||
        (uint64_t)rect->y + rect->height > l.height)
        return fail(VGFX_ERROR_INVALID_VALUE, "%s: rectangle (%u,%u) %ux%u is empty or outside the "
                    "%ux%u subresource (layer %u, level %u)", who, rect->x, rect->y, rect->width,
                    rect->height, l.width, l.height, layer, level);
    out->va = r->va + (uint32_t)l.offset + rect->y * l.rowPitch + rect->x * 4;
    out->pitch = l.rowPitch;
    out->w = rect->width;
    out->h = rect->height;
    out->x = rect->x;
    out->y = rect->y;
    return VGFX_SUCCESS;
}

/* ------------------------------------------------------------ init, shutdown */

static vgfxStatus init_locked(void)
{
    if (g_refs) {
        g_refs++;
        return VGFX_SUCCESS;
    }
    char err[256] = "";
    vmgpu_dev *dev = vmgpu_process_dev(err, sizeof err);
    if (!dev) return fail(VGFX_ERROR_DEVICE, "vgfxInit: no device: %s", err);
    vmgpu_dev_info info;
    vmgpu_dev_get_info(dev, &info);
    if (!info.has_gfx)
        return fail(VGFX_ERROR_NOT_SUPPORTED, "vgfxInit: this device has no graphics engine "
                    "(CAPS.GFX reads 0: an FPGA build without it, such as the ECP5-25F's)");
    unsigned ring = info.n_rings - 1;  /* CUDA contexts start at ring 0 */
    vmgpu_ctx *ctx = NULL;
    vmgpu_stream *s = NULL;
    int rc = vmgpu_ctx_create(dev, (int)ring, &ctx);
    if (!rc) rc = vmgpu_stream_create(ctx, ring, &s);
    if (rc) {
        vgfxStatus st = fail(rc == VMGPU_ERR_NOMEM ? VGFX_ERROR_OUT_OF_MEMORY : VGFX_ERROR_DEVICE,
                             "vgfxInit: %s", vmgpu_dev_last_error(dev));
        if (ctx) vmgpu_ctx_destroy(ctx);
        return st;
    }
    g_gdev = dev;
    g_ginfo = info;
    g_gctx = ctx;
    g_gs = s;
    g_ring = ring;
    g_submitted = 0;
    g_refs = 1;
    trace("vgfxInit: context asid %u, stream on ring %u", vmgpu_ctx_asid(ctx), ring);
    return VGFX_SUCCESS;
}
vgfxStatus vgfxInit(void) { LOCKED(init_locked()); }

/* Some descriptor of this process still names the memfd (dev, ino). */
static int fd_still_open(dev_t dev, ino_t ino)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) return 1;  /* cannot tell: keep the memory */
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        int fd = atoi(e->d_name);
        struct stat sb;
        if (e->d_name[0] != '.' && fd != dirfd(d) && fstat(fd, &sb) == 0 && sb.st_dev == dev && sb.st_ino == ino)
            found = 1;
    }
    closedir(d);
    return found;
}

static void orphans_sweep(void)
{
    size_t j = 0;
    for (size_t i = 0; i < g_norphans; i++) {
        gfx_orphan *o = &g_orphans[i];
        if (o->exported && fd_still_open(o->dev, o->ino)) g_orphans[j++] = *o;
        else if (vmgpu_phys_free(g_gdev, o->pa) != VMGPU_OK) {
            o->exported = 0;  /* the fd is gone for good; only the mappings remain */
            g_orphans[j++] = *o;
        } else {
            trace("memory of a destroyed resource (pa 0x%08x) freed: no importer holds it any more", o->pa);
        }
    }
    g_norphans = j;
}

/* Unmap and free one resource's memory (vgfx's work on it has completed). */
static void res_release(gfx_res *r)
{
    vmgpu_unmap(g_gctx, r->va, r->alloc_size);
    vmgpu_va_free(g_gctx, r->va);
    if (r->memfd >= 0) close(r->memfd);
    int exported = r->memfd >= 0;
    r->memfd = -1;
    if ((exported && fd_still_open(r->fd_dev, r->fd_ino)) || vmgpu_phys_free(g_gdev, r->pa) != VMGPU_OK) {
        /* An importer may still use it (external memory): freed when nothing holds it. */
        gfx_orphan *n = realloc(g_orphans, (g_norphans + 1) * sizeof *n);
        if (n) {
            g_orphans = n;
            g_orphans[g_norphans++] = (gfx_orphan){r->pa, r->alloc_size, exported, r->fd_dev, r->fd_ino};
            trace("%p destroyed; its memory (pa 0x%08x) stays while an exported fd or a mapping holds it",
                  (void *)r, r->pa);
        }
    }
    r->live = 0;
    for (gfx_res **p = &g_res; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    r->next = g_dead;
    g_dead = r;
}

static vgfxStatus shutdown_locked(void)
{
    vgfxStatus st = need_init();
    if (st) return st;
    if (g_refs > 1) {
        g_refs--;
        return VGFX_SUCCESS;
    }
    for (gfx_res *r = g_res; r; r = r->next)
        if (r->cuda_registrations)
            return fail(VGFX_ERROR_IN_USE, "vgfxShutdown: %s %p is still registered with CUDA "
                        "(cuGraphicsUnregisterResource first)", r->kind == GFX_IMAGE ? "image" : "buffer",
                        (void *)r);
    finish("vgfxShutdown");  /* its error (if any) no longer matters: everything goes */
    while (g_res) res_release(g_res);
    orphans_sweep();
    vmgpu_stream_destroy(g_gs);
    vmgpu_ctx_destroy(g_gctx);
    g_gs = NULL;
    g_gctx = NULL;
    g_refs = 0;
    trace("vgfxShutdown: context destroyed");
    return VGFX_SUCCESS;
}
vgfxStatus vgfxShutdown(void) { LOCKED(shutdown_locked()); }

/* ---------------------------------------------------------------- resources */

/* Allocate, map and zero (by the DMA engine, in stream order) size bytes; r filled in. */
static vgfxStatus res_create(gfx_res *tmpl, uint64_t size, const char *who, gfx_res **out)
{
    if (size == 0 || size > g_ginfo.user_bytes)
        return fail(size ? VGFX_ERROR_OUT_OF_MEMORY : VGFX_ERROR_INVALID_VALUE,
                    "%s: %llu bytes (1 .. %u of device memory)", who, (unsigned long long)size,
                    g_ginfo.user_bytes);
    gfx_res *r = malloc(sizeof *r);
    if (!r) return fail(VGFX_ERROR_OUT_OF_MEMORY, "%s: out of host memory", who);
    *r = *tmpl;
    r->alloc_size = (uint32_t)round_up(size, VMGPU_GRANULE);
    r->size = size;
    orphans_sweep();
    int rc = vmgpu_phys_alloc(g_gdev, r->alloc_size, VMGPU_GRANULE, &r->pa);
    if (rc) {
        free(r);
        return fail(VGFX_ERROR_OUT_OF_MEMORY, "%s: no %u bytes of device memory free", who,
                    (unsigned)round_up(size, VMGPU_GRANULE));
    }
    rc = vmgpu_va_reserve(g_gctx, r->alloc_size, 0, 0, &r->va);
    if (!rc) {
        rc = vmgpu_map(g_gctx, r->va, r->pa, r->alloc_size, VMGPU_MAP_READ | VMGPU_MAP_WRITE);
        if (rc) vmgpu_va_free(g_gctx, r->va);
    }
    if (!rc) {
        rc = vmgpu_cmd_fill(g_gs, r->va, r->alloc_size, 0, 4);
        if (!rc) rc = submit();
        if (rc) {
            vmgpu_unmap(g_gctx, r->va, r->alloc_size);
            vmgpu_va_free(g_gctx, r->va);
        }
    }
    if (rc) {
        vmgpu_phys_free(g_gdev, r->pa);
        free(r);
        return core_status(rc, who);
    }
    r->magic = RES_MAGIC;
    r->live = 1;
    r->memfd = -1;
    r->cuda_registrations = 0;
    r->cuda_mapped = 0;
    r->next = g_res;
    g_res = r;
    *out = r;
    return VGFX_SUCCESS;
}

static vgfxStatus buffer_create(vgfxBuffer *out, uint64_t size)
{
    vgfxStatus st = need_init();
    if (st) return st;
    if (!out) return fail(VGFX_ERROR_INVALID_VALUE, "vgfxCreateBuffer: buffer is NULL");
    gfx_res t;
    memset(&t, 0, sizeof t);
    t.kind = GFX_BUFFER;
    gfx_res *r = NULL;
    st = res_create(&t, size, "vgfxCreateBuffer", &r);
    if (st) return st;
    *out = (vgfxBuffer)r;
    trace("vgfxCreateBuffer: %p, %llu bytes at pa 0x%08x, va 0x%08x in vgfx's context", (void *)r,
          (unsigned long long)size, r->pa, r->va);
    return VGFX_SUCCESS;
}
vgfxStatus vgfxCreateBuffer(vgfxBuffer *buffer, uint64_t size) { LOCKED(buffer_create(buffer, size)); }

static vgfxStatus res_destroy(const void *h, int kind, const char *who)
{
    gfx_res *r = NULL;
    vgfxStatus st = res_check(h, kind, who, &r);
    if (st) return st;
    if ((st = not_mapped(r, who))) return st;
    if (r->cuda_registrations)
        return fail(VGFX_ERROR_IN_USE, "%s: %p is registered with CUDA (%u registration(s)); "
                    "cuGraphicsUnregisterResource first", who, h, r->cuda_registrations);
    st = finish(who);
    if (st) return st;
    trace("%s: %p (pa 0x%08x) freed", who, h, r->pa);
    res_release(r);
    return VGFX_SUCCESS;
}
vgfxStatus vgfxDestroyBuffer(vgfxBuffer buffer) { LOCKED(res_destroy(buffer, GFX_BUFFER, "vgfxDestroyBuffer")); }
vgfxStatus vgfxDestroyImage(vgfxImage image) { LOCKED(res_destroy(image, GFX_IMAGE, "vgfxDestroyImage")); }

static vgfxStatus buffer_size(vgfxBuffer b, uint64_t *size)
{
    gfx_res *r = NULL;
    vgfxStatus st = res_check(b, GFX_BUFFER, "vgfxBufferGetSize", &r);
    if (st) return st;
    if (!size) return fail(VGFX_ERROR_INVALID_VALUE, "vgfxBufferGetSize: size is NULL");
    *size = r->size;
    return VGFX_SUCCESS;
}
vgfxStatus vgfxBufferGetSize(vgfxBuffer buffer, uint64_t *size) { LOCKED(buffer_size(buffer, size)); }

static vgfxStatus buffer_rw(vgfxBuffer b, uint64_t off, void *data, uint64_t bytes, int write)
{
    const char *who = write ? "vgfxBufferWrite" : "vgfxBufferRead";
    gfx_res *r = NULL;
    vgfxStatus st = res_check(b, GFX_BUFFER, who, &r);
    if (st) return st;
    if (off > r->size || bytes > r->size - off)
        return fail(VGFX_ERROR_INVALID_VALUE, "%s: [%llu, +%llu) outside the %llu-byte buffer", who,
                    (unsigned long long)off, (unsigned long long)bytes, (unsigned long long)r->size);
    if (bytes && !data) return fail(VGFX_ERROR_INVALID_VALUE, "%s: data is NULL", who);
    if ((st = not_mapped(r, who))) return st;
    if (!bytes) return VGFX_SUCCESS;
    st = finish(who);
    if (st) return st;
    int rc = write ? vmgpu_phys_write(g_gdev, r->pa + (uint32_t)off, data, (size_t)bytes)
                   : vmgpu_phys_read(g_gdev, r->pa + (uint32_t)off, data, (size_t)bytes);
    return core_status(rc, who);
}
vgfxStatus vgfxBufferWrite(vgfxBuffer buffer, uint64_t offset, const void *data, uint64_t bytes)
{
    LOCKED(buffer_rw(buffer, offset, (void *)data, bytes, 1));
}
vgfxStatus vgfxBufferRead(vgfxBuffer buffer, uint64_t offset, void *data, uint64_t bytes)
{
    LOCKED(buffer_rw(buffer, offset, data, bytes, 0));
}

static uint32_t full_chain(uint32_t w, uint32_t h)
{
    uint32_t m = w > h ? w : h, n = 1;
    while (m > 1) {
        m >>= 1;
        n++;
    }
    return n;
}

static vgfxStatus image_create(vgfxImage *out, const vgfxImageDesc *d)
{
    const char *who = "vgfxCreateImage";
    vgfxStatus st = need_init();
    if (st) return st;
    if (!out || !d) return fail(VGFX_ERROR_INVALID_VALUE, "%s: image or desc is NULL", who);
    if (d->width == 0 || d->height == 0 || d->width > VGFX_MAX_DIMENSION || d->height > VGFX_MAX_DIMENSION)
        return fail(VGFX_ERROR_INVALID_VALUE, "%s: %ux%u (1 .. %u each)", who, d->width, d->height,
                    VGFX_MAX_DIMENSION);
    if (d->format != VGFX_FORMAT_RGBA8_UNORM && d->format != VGFX_FORMAT_R32_UINT)
        return fail(VGFX_ERROR_INVALID_VALUE, "%s: unknown format %d", who, (int)d->format);
    if (d->mipLevels == 0 || d->mipLevels > full_chain(d->width, d->height))
        return fail(VGFX_ERROR_INVALID_VALUE, "%s: %u mip levels (1 .. %u for %ux%u)", who,
                    d->mipLevels, full_chain(d->width, d->height), d->width, d->height);
    if (d->arrayLayers == 0 || d->arrayLayers > VGFX_MAX_LAYERS)
        return fail(VGFX_ERROR_INVALID_VALUE, "%s: %u layers (1 .. %u)", who, d->arrayLayers,
                    VGFX_MAX_LAYERS);
    if (d->flags & ~VGFX_IMAGE_CUBE)
        return fail(VGFX_ERROR_INVALID_VALUE, "%s: unknown flags 0x%x", who, d->flags);
    if ((d->flags & VGFX_IMAGE_CUBE) && (d->width != d->height || d->arrayLayers != 6))
        return fail(VGFX_ERROR_INVALID_VALUE, "%s: a cube is square with 6 layers (got %ux%u, %u "
                    "layers)", who, d->width, d->height, d->arrayLayers);
    gfx_res t;
    memset(&t, 0, sizeof t);
    t.kind = GFX_IMAGE;
    t.desc = *d;
    uint64_t cursor = 0;
    for (uint32_t l = 0; l < d->mipLevels; l++) {
        t.level_off[l] = cursor;
        cursor += round_up((uint64_t)level_dim(d->width, l) * 4 * level_dim(d->height, l),
                           VGFX_SUBRESOURCE_ALIGN);
    }
    t.layer_stride = cursor;
    gfx_res *r = NULL;
    st = res_create(&t, cursor * d->arrayLayers, who, &r);
    if (st) return st;
    *out = (vgfxImage)r;
    trace("%s: %p, %ux%u %s, %u level(s), %u layer(s)%s: %llu bytes at pa 0x%08x, va 0x%08x", who,
          (void *)r, d->width, d->height, d->format == VGFX_FORMAT_RGBA8_UNORM ? "RGBA8" : "R32_UINT",
          d->mipLevels, d->arrayLayers, d->flags & VGFX_IMAGE_CUBE ? " (cube)" : "",
          (unsigned long long)r->size, r->pa, r->va);
    return VGFX_SUCCESS;
}
vgfxStatus vgfxCreateImage(vgfxImage *image, const vgfxImageDesc *desc) { LOCKED(image_create(image, desc)); }

static vgfxStatus image_info(vgfxImage img, vgfxImageInfo *info)
{
    gfx_res *r = NULL;
    vgfxStatus st = res_check(img, GFX_IMAGE, "vgfxImageGetInfo", &r);
    if (st) return st;
    if (!info) return fail(VGFX_ERROR_INVALID_VALUE, "vgfxImageGetInfo: info is NULL");
    info->desc = r->desc;
    info->size = r->size;
    info->layerStride = r->layer_stride;
    return VGFX_SUCCESS;
}
vgfxStatus vgfxImageGetInfo(vgfxImage image, vgfxImageInfo *info) { LOCKED(image_info(image, info)); }

static vgfxStatus image_layout(vgfxImage img, uint32_t layer, uint32_t level, vgfxSubresourceLayout *out)
{
    const char *who = "vgfxImageGetSubresourceLayout";
    gfx_res *r = NULL;
    vgfxStatus st = res_check(img, GFX_IMAGE, who, &r);
    if (st) return st;
    if (!out) return fail(VGFX_ERROR_INVALID_VALUE, "%s: layout is NULL", who);
    if ((st = sub_check(r, layer, level, who))) return st;
    gfx_subresource(r, layer, level, out);
    return VGFX_SUCCESS;
}
vgfxStatus vgfxImageGetSubresourceLayout(vgfxImage image, uint32_t layer, uint32_t level,
                                         vgfxSubresourceLayout *layout)
{
    LOCKED(image_layout(image, layer, level, layout));
}

static vgfxStatus image_rw(vgfxImage img, uint32_t layer, uint32_t level, void *px, int write)
{
    const char *who = write ? "vgfxImageWrite" : "vgfxImageRead";
    gfx_res *r = NULL;
    vgfxStatus st = res_check(img, GFX_IMAGE, who, &r);
    if (st) return st;
    if ((st = sub_check(r, layer, level, who))) return st;
    if (!px) return fail(VGFX_ERROR_INVALID_VALUE, "%s: pixels is NULL", who);
    if ((st = not_mapped(r, who))) return st;
    st = finish(who);
    if (st) return st;
    vgfxSubresourceLayout l;
    gfx_subresource(r, layer, level, &l);
    uint32_t pa = r->pa + (uint32_t)l.offset;
    int rc = write ? vmgpu_phys_write(g_gdev, pa, px, (size_t)l.size) : vmgpu_phys_read(g_gdev, pa, px, (size_t)l.size);
    return core_status(rc, who);
}
vgfxStatus vgfxImageWrite(vgfxImage image, uint32_t layer, uint32_t level, const void *pixels)
{
    LOCKED(image_rw(image, layer, level, (void *)pixels, 1));
}
vgfxStatus vgfxImageRead(vgfxImage image, uint32_t layer, uint32_t level, void *pixels)
{
    LOCKED(image_rw(image, layer, level, pixels, 0));
}

/* ---------------------------------------------------------- engine operations */

/* Queue n engine commands built by emit(); on a failure nothing stays queued that matters
 * (the checks ran first; a core refusal here is a bug or an exhausted ring). */
static vgfxStatus queued(int rc, const char *who)
{
    if (!rc) rc = submit();
    return core_status(rc, who);
}

static vgfxStatus clear_image(vgfxImage img, uint32_t layer, uint32_t level, uint32_t color)
{
    const char *who = "vgfxClearImage";
    gfx_res *r = NULL;
    vgfxStatus st = res_check(img, GFX_IMAGE, who, &r);
    if (st) return st;
    if (layer != VGFX_ALL && layer >= r->desc.arrayLayers)
        return fail(VGFX_ERROR_INVALID_VALUE, "%s: layer %u (the image has %u; VGFX_ALL for all)",
                    who, layer, r->desc.arrayLayers);
    if (level != VGFX_ALL && level >= r->desc.mipLevels)
        return fail(VGFX_ERROR_INVALID_VALUE, "%s: level %u (the image has %u; VGFX_ALL for all)",
                    who, level, r->desc.mipLevels);
    if ((st = not_mapped(r, who))) return st;
    uint32_t l0 = layer == VGFX_ALL ? 0 : layer, l1 = layer == VGFX_ALL ? r->desc.arrayLayers : layer + 1;
    uint32_t m0 = level == VGFX_ALL ? 0 : level, m1 = level == VGFX_ALL ? r->desc.mipLevels : level + 1;
    int rc = VMGPU_OK;
    for (uint32_t y = l0; y < l1 && !rc; y++)
        for (uint32_t m = m0; m < m1 && !rc; m++) {
            gfx_area a = {0};
            area_of(r, y, m, NULL, who, &a);
            rc = vmgpu_cmd_gfx_fill(g_gs, a.va, a.pitch, a.w, a.h, color);
        }
    trace("%s: %p layers [%u, %u) levels [%u, %u) <- 0x%08x", who, (void *)r, l0, l1, m0, m1, color);
    return queued(rc, who);
}
vgfxStatus vgfxClearImage(vgfxImage image, uint32_t layer, uint32_t level, uint32_t color)
{
    LOCKED(clear_image(image, layer, level, color));
}

static vgfxStatus fill_rect(vgfxImage img, uint32_t layer, uint32_t level, const vgfxRect *rect, uint32_t color)
{
    const char *who = "vgfxFillRect";
    gfx_res *r = NULL;
    vgfxStatus st = res_check(img, GFX_IMAGE, who, &r);
    if (st) return st;
    if ((st = sub_check(r, layer, level, who))) return st;
    if (!rect) return fail(VGFX_ERROR_INVALID_VALUE, "%s: rect is NULL", who);
    gfx_area a = {0};
    if ((st = area_of(r, layer, level, rect, who, &a))) return st;
    if ((st = not_mapped(r, who))) return st;
    trace("%s: %p layer %u level %u (%u,%u) %ux%u <- 0x%08x: GFX_FILL va 0x%08x pitch %u", who,
          (void *)r, layer, level, a.x, a.y, a.w, a.h, color, a.va, a.pitch);
    return queued(vmgpu_cmd_gfx_fill(g_gs, a.va, a.pitch, a.w, a.h, color), who);
}
vgfxStatus vgfxFillRect(vgfxImage image, uint32_t layer, uint32_t level, const vgfxRect *rect, uint32_t color)
{
    LOCKED(fill_rect(image, layer, level, rect, color));
}

static vgfxStatus blit(vgfxImage src, uint32_t sl, uint32_t sm, const vgfxRect *srect, vgfxImage dst,
                       uint32_t dl, uint32_t dm, const vgfxRect *drect)
{
    const char *who = "vgfxBlit";
    gfx_res *s = NULL, *d = NULL;
    vgfxStatus st = res_check(src, GFX_IMAGE, who, &s);
    if (!st) st = res_check(dst, GFX_IMAGE, who, &d);
    if (st) return st;
    if ((st = sub_check(s, sl, sm, who)) || (st = sub_check(d, dl, dm, who))) return st;
    if (s->desc.format != d->desc.format)
        return fail(VGFX_ERROR_INVALID_VALUE, "%s: source and destination formats differ", who);
    gfx_area a = {0}, b = {0};
    if ((st = area_of(s, sl, sm, srect, who, &a)) || (st = area_of(d, dl, dm, drect, who, &b))) return st;
    if (s == d && sl == dl && sm == dm && a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h &&
        b.y < a.y + a.h)
        return fail(VGFX_ERROR_INVALID_VALUE, "%s: source and destination rectangles overlap", who);
    if ((st = not_mapped(s, who)) || (st = not_mapped(d, who))) return st;
    trace("%s: %p[%u,%u] (%u,%u) %ux%u -> %p[%u,%u] (%u,%u) %ux%u: GFX_BLIT va 0x%08x -> 0x%08x", who,
          (void *)s, sl, sm, a.x, a.y, a.w, a.h, (void *)d, dl, dm, b.x, b.y, b.w, b.h, a.va, b.va);
    return queued(vmgpu_cmd_gfx_blit(g_gs, a.va, a.pitch, a.w, a.h, b.va, b.pitch, b.w, b.h), who);
}
vgfxStatus vgfxBlit(vgfxImage src, uint32_t srcLayer, uint32_t srcLevel, const vgfxRect *srcRect,
                    vgfxImage dst, uint32_t dstLayer, uint32_t dstLevel, const vgfxRect *dstRect)
{
    LOCKED(blit(src, srcLayer, srcLevel, srcRect, dst, dstLayer, dstLevel, dstRect));
}

static vgfxStatus gen_mips(vgfxImage img, uint32_t layer)
{
    const char *who = "vgfxGenerateMipmaps";
    gfx_res *r = NULL;
    vgfxStatus st = res_check(img, GFX_IMAGE, who, &r);
    if (st) return st;
    if (layer != VGFX_ALL && layer >= r->desc.arrayLayers)
        return fail(VGFX_ERROR_INVALID_VALUE, "%s: layer %u (the image has %u; VGFX_ALL for all)",
                    who, layer, r->desc.arrayLayers);
    if (r->desc.format != VGFX_FORMAT_RGBA8_UNORM)
        return fail(VGFX_ERROR_NOT_SUPPORTED, "%s: the box filter averages 8-bit channels; the "
                    "image is R32_UINT", who);
    if ((st = not_mapped(r, who))) return st;
    uint32_t l0 = layer == VGFX_ALL ? 0 : layer, l1 = layer == VGFX_ALL ? r->desc.arrayLayers : layer + 1;
    int rc = VMGPU_OK;
    /* Level by level: each command reads what the one before wrote (one ring runs in order). */
    for (uint32_t y = l0; y < l1 && !rc; y++)
        for (uint32_t m = 1; m < r->desc.mipLevels && !rc; m++) {
            gfx_area a = {0}, b = {0};
            area_of(r, y, m - 1, NULL, who, &a);
            area_of(r, y, m, NULL, who, &b);
            rc = vmgpu_cmd_gfx_mipgen(g_gs, a.va, a.pitch, a.w, a.h, b.va, b.pitch, b.w, b.h);
        }
    trace("%s: %p layers [%u, %u): %u GFX_MIPGEN per layer", who, (void *)r, l0, l1, r->desc.mipLevels - 1);
    return queued(rc, who);
}
vgfxStatus vgfxGenerateMipmaps(vgfxImage image, uint32_t layer) { LOCKED(gen_mips(image, layer)); }

static vgfxStatus finish_locked(void)
{
    vgfxStatus st = need_init();
    if (st) return st;
    return finish("vgfxFinish");
}
vgfxStatus vgfxFinish(void) { LOCKED(finish_locked()); }

static vgfxStatus query_locked(void)
{
    vgfxStatus st = need_init();
    if (st) return st;
    if (!g_submitted) return VGFX_SUCCESS;
    int rc = vmgpu_fence_query(g_gdev, g_ring, g_last_fence);
    if (rc == VMGPU_ERR_NOT_READY) return VGFX_ERROR_NOT_READY;
    return core_status(rc, "vgfxQuery");
}
vgfxStatus vgfxQuery(void) { LOCKED(query_locked()); }

static vgfxStatus capture(vgfxImage img, uint32_t layer, uint32_t level, const char *path)
{
    const char *who = "vgfxCaptureImagePNG";
    gfx_res *r = NULL;
    vgfxStatus st = res_check(img, GFX_IMAGE, who, &r);
    if (st) return st;
    if ((st = sub_check(r, layer, level, who))) return st;
    if (!path || !path[0]) return fail(VGFX_ERROR_INVALID_VALUE, "%s: path is NULL or empty", who);
    if (r->desc.format != VGFX_FORMAT_RGBA8_UNORM)
        return fail(VGFX_ERROR_NOT_SUPPORTED, "%s: only RGBA8 images become PNG files", who);
    if ((st = not_mapped(r, who))) return st;
    st = finish(who);
    if (st) return st;
    vgfxSubresourceLayout l;
    gfx_subresource(r, layer, level, &l);
    uint8_t *px = malloc((size_t)l.size);
    if (!px) return fail(VGFX_ERROR_OUT_OF_MEMORY, "%s: out of host memory", who);
    int rc = vmgpu_phys_read(g_gdev, r->pa + (uint32_t)l.offset, px, (size_t)l.size);
    if (rc) {
        free(px);
        return core_status(rc, who);
    }
    char msg[256];
    int bad = gfx_write_png(path, px, l.width, l.height, msg, sizeof msg);
    free(px);
    if (bad) return fail(VGFX_ERROR_FILE, "%s: %s", who, msg);
    trace("%s: %p layer %u level %u (%ux%u) -> %s", who, (void *)r, layer, level, l.width, l.height, path);
    return VGFX_SUCCESS;
}
vgfxStatus vgfxCaptureImagePNG(vgfxImage image, uint32_t layer, uint32_t level, const char *path)
{
    LOCKED(capture(image, layer, level, path));
}

/* ------------------------------------------------------------ memory export */

static vgfxStatus export_fd(vgfxResource res, int *fd, uint64_t *size)
{
    const char *who = "vgfxExportMemoryFd";
    gfx_res *r = NULL;
    vgfxStatus st = res_check(res, 0, who, &r);
    if (st) return st;
    if (!fd || !size) return fail(VGFX_ERROR_INVALID_VALUE, "%s: fd or size is NULL", who);
    int created = 0;
    if (r->memfd < 0 && vmgpu_dev_is_remote(g_gdev)) {
        /* Through the device server: its descriptor, which another process can import
         * (cuImportExternalMemory there); this process still recognises it by inode. */
        int m = -1;
        struct stat sb;
        if (vmgpu_phys_export(g_gdev, r->pa, &m) || fstat(m, &sb)) {
            if (m >= 0) close(m);
            return fail(VGFX_ERROR_OUT_OF_MEMORY, "%s: the device server made no descriptor: %s", who,
                        vmgpu_dev_last_error(g_gdev));
        }
        r->memfd = m;
        r->fd_dev = sb.st_dev;
        r->fd_ino = sb.st_ino;
        created = 1;
    }
    if (r->memfd < 0) {
        char name[64];
        snprintf(name, sizeof name, "vgfx-resource-%08x", r->pa);
        int m = memfd_create(name, MFD_CLOEXEC);
        struct stat sb;
        if (m < 0 || fstat(m, &sb)) {
            if (m >= 0) close(m);
            return fail(VGFX_ERROR_OUT_OF_MEMORY, "%s: memfd_create failed", who);
        }
        r->memfd = m;
        r->fd_dev = sb.st_dev;
        r->fd_ino = sb.st_ino;
        created = 1;
    }
    int d = dup(r->memfd);
    if (d < 0) {
        if (created) {
            close(r->memfd);
            r->memfd = -1;
        }
        return fail(VGFX_ERROR_OUT_OF_MEMORY, "%s: dup failed", who);
    }
    *fd = d;
    *size = r->alloc_size;
    trace("%s: %p -> fd %d (memory pa 0x%08x, %u bytes)", who, (void *)r, d, r->pa, r->alloc_size);
    return VGFX_SUCCESS;
}
vgfxStatus vgfxExportMemoryFd(vgfxResource resource, int *fd, uint64_t *size)
{
    LOCKED(export_fd(resource, fd, size));
}

int vgfx_lookup_export_fd(int fd, uint32_t *pa, uint64_t *size)
{
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb)) return -1;
    for (gfx_res *r = g_res; r; r = r->next)
        if (r->live && r->memfd >= 0 && r->fd_dev == sb.st_dev && r->fd_ino == sb.st_ino) {
            if (pa) *pa = r->pa;
            if (size) *size = r->alloc_size;
            return 0;
        }
    /* The resource was destroyed, but the fd still names its memory (kept for that). */
    for (size_t i = 0; i < g_norphans; i++)
        if (g_orphans[i].exported && g_orphans[i].dev == sb.st_dev && g_orphans[i].ino == sb.st_ino) {
            if (pa) *pa = g_orphans[i].pa;
            if (size) *size = g_orphans[i].size;
            return 0;
        }
    return -1;
}
