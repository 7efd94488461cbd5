/*
 * Fuzzer: OpenCL buffer maps of every flag against a model of the specification.
 *
 * Buffers of every kind (device memory, CL_MEM_USE_HOST_PTR, CL_MEM_ALLOC_HOST_PTR,
 * CL_MEM_COPY_HOST_PTR; host access none, READ_ONLY, WRITE_ONLY, NO_ACCESS) and sub-buffers of
 * them are mapped, written through, unmapped, read, written, copied and filled in random order,
 * through vmgpu's ICD and the system's ICD loader. The model holds each buffer's bytes and the
 * active maps, and from the OpenCL 1.2 text (3.0 for overlapping maps) it derives, for every
 * call, the set of errors that apply; no error applies -> the call must succeed, else it must
 * fail with one of them (the spec does not order them) and change nothing:
 *   - CL_INVALID_VALUE: unknown flag bits, WRITE_INVALIDATE_REGION with READ or WRITE, size 0,
 *     a region past the object's end, an unmap of a pointer that is no active map;
 *   - CL_INVALID_OPERATION: a read map of a HOST_WRITE_ONLY / HOST_NO_ACCESS object, a write map
 *     of a HOST_READ_ONLY / HOST_NO_ACCESS one, and a map overlapping a byte of the same memory
 *     (the object, its parent, its sibling sub-buffers) already mapped where either map is for
 *     writing; reads and writes by commands on HOST_* objects the same way;
 *   - CL_MISALIGNED_SUB_BUFFER_OFFSET: sub-buffers at an origin that is not a multiple of
 *     CL_DEVICE_MEM_BASE_ADDR_ALIGN.
 * Data: a map with CL_MAP_READ or CL_MAP_WRITE shows the buffer's bytes; bytes written through a
 * write map reach the buffer at unmap (WRITE_INVALIDATE_REGION: only the bytes written are
 * known after); CL_MEM_MAP_COUNT is the number of active maps of the object. Commands never
 * touch bytes mapped for writing (undefined by the spec). `fuzz_cl_map <seed> <iterations>
 * <seconds>`.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <string.h>

#include "fuzz_common.h"

#define MAXB 12   /* buffer objects, roots and sub-buffers */
#define MAXMAP 24

typedef struct {
    cl_mem m;
    int live, root;        /* root: index of its root (itself for a root) */
    size_t origin, size;   /* origin in the root */
    cl_mem_flags flags;
    uint8_t *data, *known; /* roots only: the model's bytes */
    void *host;            /* USE_HOST_PTR memory (roots) */
    int maps;              /* active maps of this object */
} fbuf;

typedef struct {
    int live, b;
    size_t off, size;      /* in the object */
    cl_map_flags flags;
    uint8_t *ptr;
    uint8_t *wrote;        /* bytes written through the map (1 each) */
} fmapping;

static fuzz_run R;
static fbuf B[MAXB];
static fmapping MP[MAXMAP];
static cl_context ctx;
static cl_command_queue q;
static cl_device_id dev;
static size_t align_bytes;
static unsigned long calls, refused, maps_ok, maps_refused;

#define HAS(set, e) ((set).n && set_has(&(set), (e)))
typedef struct { cl_int e[6]; int n; } errset;
static void add(errset *s, cl_int e) { if (s->n < 6) s->e[s->n++] = e; }
static int set_has(const errset *s, cl_int e)
{
    for (int i = 0; i < s->n; i++)
        if (s->e[i] == e) return 1;
    return 0;
}

static void expect(const char *what, cl_int rc, const errset *s)
{
    calls++;
    if (!s->n) {
        FZ_CHECK(&R, rc == CL_SUCCESS, "%s -> %d, the model expects success", what, rc);
    } else {
        refused++;
        FZ_CHECK(&R, set_has(s, rc), "%s -> %d, the model expects one of %d (first %d)", what, rc, s->n, s->e[0]);
    }
}

/* Bytes [lo, hi) of root r mapped for writing by an active map (or mapped at all when
 * any != 0), other than map `except`. */
static int root_mapped(int r, size_t lo, size_t hi, int any, int except)
{
    for (int i = 0; i < MAXMAP; i++) {
        if (!MP[i].live || i == except || B[MP[i].b].root != r) continue;
        if (!any && !(MP[i].flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION))) continue;
        size_t a = B[MP[i].b].origin + MP[i].off;
        if (lo < a + MP[i].size && a < hi) return 1;
    }
    return 0;
}

static int pick_buf(void)
{
    int s = (int)fuzz_below(&R, MAXB);
    for (int k = 0; k < MAXB; k++)
        if (B[(s + k) % MAXB].live) return (s + k) % MAXB;
    return -1;
}

/* ------------------------------------------------------------ objects */

static void op_create(void)
{
    int i;
    for (i = 0; i < MAXB && B[i].live; i++) {}
    if (i == MAXB) return;
    static const cl_mem_flags kinds[] = {0, CL_MEM_USE_HOST_PTR, CL_MEM_ALLOC_HOST_PTR, CL_MEM_COPY_HOST_PTR,
                                         CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR};
    static const cl_mem_flags hosts[] = {0, 0, 0, 0, 0, CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_WRITE_ONLY, CL_MEM_HOST_NO_ACCESS};
    cl_mem_flags f = kinds[fuzz_below(&R, 5)] | hosts[fuzz_below(&R, 8)];
    size_t size = 1 + fuzz_below(&R, 16384);
    fbuf *b = &B[i];
    memset(b, 0, sizeof *b);
    b->data = malloc(size);
    b->known = calloc(1, size);
    for (size_t k = 0; k < size; k++) b->data[k] = (uint8_t)fuzz_u64(&R);
    void *hp = NULL;
    if (f & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) {
        hp = malloc(size);
        memcpy(hp, b->data, size);
        memset(b->known, 1, size);
    }
    cl_int err;
    b->m = clCreateBuffer(ctx, f, size, hp, &err);
    calls++;
    FZ_CHECK(&R, err == CL_SUCCESS && b->m, "clCreateBuffer(0x%llx, %zu) -> %d", (unsigned long long)f, size, err);
    if (err) {
        free(b->data);
        free(b->known);
        free(hp);
        return;
    }
    if (f & CL_MEM_USE_HOST_PTR) b->host = hp;
    else free(hp);
    b->live = 1;
    b->root = i;
    b->size = size;
    b->flags = f;
}

static void op_sub(void)
{
    int r = pick_buf(), i;
    if (r < 0 || B[r].root != r) return;
    for (i = 0; i < MAXB && B[i].live; i++) {}
    if (i == MAXB) return;
    size_t origin = fuzz_chance(&R, 3, 4) ? align_bytes * fuzz_below(&R, B[r].size / align_bytes + 1)
                                          : fuzz_below(&R, B[r].size);
    size_t size = 1 + fuzz_below(&R, B[r].size);
    errset s = {.n = 0};
    if (origin > B[r].size || size > B[r].size - origin) add(&s, CL_INVALID_VALUE);
    if (origin % align_bytes) add(&s, CL_MISALIGNED_SUB_BUFFER_OFFSET);
    cl_buffer_region reg = {origin, size};
    cl_int err;
    cl_mem m = clCreateSubBuffer(B[r].m, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    expect("clCreateSubBuffer", err, &s);
    FZ_CHECK(&R, (m != NULL) == (err == CL_SUCCESS), "clCreateSubBuffer: object and error disagree");
    if (!m) return;
    if (s.n) {
        clReleaseMemObject(m);
        return;
    }
    fbuf *b = &B[i];
    memset(b, 0, sizeof *b);
    b->m = m;
    b->live = 1;
    b->root = r;
    b->origin = origin;
    b->size = size;
    b->flags = B[r].flags;
}

static void op_release(void)
{
    int i = pick_buf();
    if (i < 0 || B[i].maps) return;
    if (B[i].root == i)
        for (int k = 0; k < MAXB; k++)
            if (k != i && B[k].live && B[k].root == i) return;  /* sub-buffers first */
    cl_int rc = clReleaseMemObject(B[i].m);
    calls++;
    FZ_CHECK(&R, rc == CL_SUCCESS, "clReleaseMemObject -> %d", rc);
    B[i].live = 0;
    if (B[i].root == i) {
        free(B[i].data);
        free(B[i].known);
        free(B[i].host);
    }
}

/* ------------------------------------------------------------ maps */

static void op_map(void)
{
    int i = pick_buf(), k;
    if (i < 0) return;
    for (k = 0; k < MAXMAP && MP[k].live; k++) {}
    if (k == MAXMAP) return;
    fbuf *b = &B[i], *r = &B[b->root];
    static const cl_map_flags F[] = {CL_MAP_READ, CL_MAP_WRITE, CL_MAP_READ | CL_MAP_WRITE,
                                     CL_MAP_WRITE_INVALIDATE_REGION, CL_MAP_READ, CL_MAP_READ,
                                     CL_MAP_WRITE_INVALIDATE_REGION | CL_MAP_READ,
                                     CL_MAP_WRITE_INVALIDATE_REGION | CL_MAP_WRITE, (cl_map_flags)1 << 7};
    cl_map_flags fl = F[fuzz_below(&R, 9)];
    size_t off = fuzz_chance(&R, 1, 10) ? b->size + fuzz_below(&R, 8) : fuzz_below(&R, b->size);
    size_t n = fuzz_chance(&R, 1, 20) ? 0 : 1 + fuzz_below(&R, b->size > 4096 ? 4096 : b->size);
    if (fuzz_chance(&R, 1, 8)) n = b->size;
    /* What the spec says. */
    errset s = {.n = 0};
    int writes = (fl & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) != 0;
    if ((fl & ~(cl_map_flags)(CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) ||
        ((fl & CL_MAP_WRITE_INVALIDATE_REGION) && (fl & (CL_MAP_READ | CL_MAP_WRITE))) || n == 0 || off > b->size ||
        n > b->size - off)
        add(&s, CL_INVALID_VALUE);
    if (((fl & CL_MAP_READ) && (b->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS))) ||
        (writes && (b->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS))))
        add(&s, CL_INVALID_OPERATION);
    size_t lo = b->origin + off, hi = lo + n;
    if (!s.n && root_mapped(b->root, lo, hi, writes, -1)) add(&s, CL_INVALID_OPERATION);
    cl_uint mc0 = 0;
    clGetMemObjectInfo(b->m, CL_MEM_MAP_COUNT, sizeof mc0, &mc0, NULL);
    cl_int err = 12345;
    cl_event ev = NULL;
    int blocking = (int)fuzz_below(&R, 2);
    uint8_t *p = clEnqueueMapBuffer(q, b->m, blocking ? CL_TRUE : CL_FALSE, fl, off, n, 0, NULL, blocking ? NULL : &ev, &err);
    char what[96];
    snprintf(what, sizeof what, "clEnqueueMapBuffer(flags 0x%llx, [%zu, +%zu) of %zu)", (unsigned long long)fl, off, n,
             b->size);
    expect(what, err, &s);
    FZ_CHECK(&R, (p != NULL) == (err == CL_SUCCESS), "%s: pointer and error disagree", what);
    cl_uint mc = 0;
    clGetMemObjectInfo(b->m, CL_MEM_MAP_COUNT, sizeof mc, &mc, NULL);
    if (err != CL_SUCCESS) {
        maps_refused++;
        FZ_CHECK(&R, mc == mc0 && ev == NULL, "%s refused but the map count went %u -> %u or an event came", what, mc0,
                 mc);
        return;
    }
    maps_ok++;
    if (ev) {
        FZ_CHECK(&R, clWaitForEvents(1, &ev) == CL_SUCCESS, "waiting for a map");
        clReleaseEvent(ev);
    }
    FZ_CHECK(&R, mc == mc0 + 1, "map count %u -> %u after a map", mc0, mc);
    /* The mapped bytes are the buffer's, unless the region is invalidated. */
    if (!(fl & CL_MAP_WRITE_INVALIDATE_REGION))
        for (size_t x = 0; x < n; x++)
            if (r->known[lo + x] && p[x] != r->data[lo + x]) {
                FZ_CHECK(&R, 0, "%s: byte %zu is 0x%02x, the buffer holds 0x%02x", what, x, p[x], r->data[lo + x]);
                break;
            }
    if (r->host && !(fl & CL_MAP_WRITE_INVALIDATE_REGION))
        FZ_CHECK(&R, p == (uint8_t *)r->host + lo, "USE_HOST_PTR map is not host_ptr + offset");
    MP[k].live = 1;
    MP[k].b = i;
    MP[k].off = off;
    MP[k].size = n;
    MP[k].flags = fl;
    MP[k].ptr = p;
    MP[k].wrote = calloc(1, n);
    b->maps++;
}

static void op_write_through(void)
{
    int k = (int)fuzz_below(&R, MAXMAP);
    if (!MP[k].live || !(MP[k].flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION))) return;
    size_t a = fuzz_below(&R, MP[k].size), n = 1 + fuzz_below(&R, MP[k].size - a);
    for (size_t x = a; x < a + n; x++) {
        MP[k].ptr[x] = (uint8_t)fuzz_u64(&R);
        MP[k].wrote[x] = 1;
    }
}

static void op_unmap(void)
{
    int k = (int)fuzz_below(&R, MAXMAP);
    if (fuzz_chance(&R, 1, 10)) {
        /* A pointer that is no active map of this object. */
        int i = pick_buf();
        if (i < 0) return;
        static uint8_t junk[16];
        errset s = {.n = 1, .e = {CL_INVALID_VALUE}};
        expect("clEnqueueUnmapMemObject(junk pointer)", clEnqueueUnmapMemObject(q, B[i].m, junk + 3, 0, NULL, NULL), &s);
        return;
    }
    if (!MP[k].live) return;
    fmapping *x = &MP[k];
    fbuf *b = &B[x->b], *r = &B[b->root];
    errset s = {.n = 0};
    expect("clEnqueueUnmapMemObject", clEnqueueUnmapMemObject(q, b->m, x->ptr, 0, NULL, NULL), &s);
    if (x->flags & CL_MAP_WRITE_INVALIDATE_REGION) {
        /* Written bytes land; the others of the region are undefined now. */
        for (size_t i = 0; i < x->size; i++) {
            size_t at = b->origin + x->off + i;
            if (x->wrote[i]) {
                r->data[at] = x->ptr[i];
                r->known[at] = 1;
            } else {
                r->known[at] = 0;
            }
        }
    } else if (x->flags & CL_MAP_WRITE) {
        for (size_t i = 0; i < x->size; i++)
            if (x->wrote[i]) {
                r->data[b->origin + x->off + i] = x->ptr[i];
                r->known[b->origin + x->off + i] = 1;
            }
    }
    free(x->wrote);
    x->live = 0;
    b->maps--;
    FZ_CHECK(&R, clFinish(q) == CL_SUCCESS, "clFinish after unmap");
}

/* ------------------------------------------------------------ commands */

static void op_read(void)
{
    int i = pick_buf();
    if (i < 0) return;
    fbuf *b = &B[i], *r = &B[b->root];
    size_t off = fuzz_below(&R, b->size), n = 1 + fuzz_below(&R, b->size - off);
    if (root_mapped(b->root, b->origin + off, b->origin + off + n, 0, -1)) return;
    errset s = {.n = 0};
    if (b->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)) add(&s, CL_INVALID_OPERATION);
    uint8_t *buf = malloc(n);
    cl_int rc = clEnqueueReadBuffer(q, b->m, CL_TRUE, off, n, buf, 0, NULL, NULL);
    expect("clEnqueueReadBuffer", rc, &s);
    for (size_t x = 0; rc == CL_SUCCESS && x < n; x++)
        if (r->known[b->origin + off + x] && buf[x] != r->data[b->origin + off + x]) {
            FZ_CHECK(&R, 0, "read [%zu, +%zu) of object %d: byte %zu is 0x%02x, the model says 0x%02x", off, n, i, x, buf[x],
                     r->data[b->origin + off + x]);
            break;
        }
    free(buf);
}

static void op_write(void)
{
    int i = pick_buf();
    if (i < 0) return;
    fbuf *b = &B[i], *r = &B[b->root];
    size_t off = fuzz_below(&R, b->size), n = 1 + fuzz_below(&R, b->size - off);
    if (root_mapped(b->root, b->origin + off, b->origin + off + n, 1, -1)) return;  /* mapped at all: keep out */
    errset s = {.n = 0};
    if (b->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)) add(&s, CL_INVALID_OPERATION);
    uint8_t *buf = malloc(n);
    for (size_t x = 0; x < n; x++) buf[x] = (uint8_t)fuzz_u64(&R);
    cl_int rc = clEnqueueWriteBuffer(q, b->m, CL_TRUE, off, n, buf, 0, NULL, NULL);
    expect("clEnqueueWriteBuffer", rc, &s);
    if (rc == CL_SUCCESS) {
        memcpy(r->data + b->origin + off, buf, n);
        memset(r->known + b->origin + off, 1, n);
    }
    free(buf);
}

static void op_copy(void)
{
    int i = pick_buf(), j = pick_buf();
    if (i < 0 || j < 0) return;
    fbuf *s = &B[i], *d = &B[j];
    size_t so = fuzz_below(&R, s->size), n = 1 + fuzz_below(&R, s->size - so);
    if (n > d->size) n = d->size;
    size_t dof = fuzz_below(&R, d->size - n + 1);
    size_t sl = s->origin + so, dl = d->origin + dof;
    if (root_mapped(s->root, sl, sl + n, 0, -1) || root_mapped(d->root, dl, dl + n, 1, -1)) return;
    errset e = {.n = 0};
    if (s->root == d->root && sl < dl + n && dl < sl + n) add(&e, CL_MEM_COPY_OVERLAP);
    cl_int rc = clEnqueueCopyBuffer(q, s->m, d->m, so, dof, n, 0, NULL, NULL);
    expect("clEnqueueCopyBuffer", rc, &e);
    if (rc == CL_SUCCESS) {
        fbuf *sr = &B[s->root], *dr = &B[d->root];
        memmove(dr->data + dl, sr->data + sl, n);
        memmove(dr->known + dl, sr->known + sl, n);
    }
    FZ_CHECK(&R, clFinish(q) == CL_SUCCESS, "clFinish after copy");
}

static void op_fill(void)
{
    int i = pick_buf();
    if (i < 0) return;
    fbuf *b = &B[i], *r = &B[b->root];
    size_t ps = (size_t)1 << fuzz_below(&R, 4);
    size_t count = b->size / ps;
    if (!count) return;
    size_t first = fuzz_below(&R, count), k = 1 + fuzz_below(&R, count - first);
    size_t off = first * ps, n = k * ps;
    if (root_mapped(b->root, b->origin + off, b->origin + off + n, 1, -1)) return;
    uint8_t pat[8];
    for (size_t x = 0; x < ps; x++) pat[x] = (uint8_t)fuzz_u64(&R);
    errset s = {.n = 0};
    cl_int rc = clEnqueueFillBuffer(q, b->m, pat, ps, off, n, 0, NULL, NULL);
    expect("clEnqueueFillBuffer", rc, &s);
    if (rc == CL_SUCCESS)
        for (size_t x = 0; x < n; x++) {
            r->data[b->origin + off + x] = pat[x % ps];
            r->known[b->origin + off + x] = 1;
        }
    FZ_CHECK(&R, clFinish(q) == CL_SUCCESS, "clFinish after fill");
}

static void check_counts(void)
{
    for (int i = 0; i < MAXB; i++) {
        if (!B[i].live) continue;
        cl_uint mc = 12345;
        clGetMemObjectInfo(B[i].m, CL_MEM_MAP_COUNT, sizeof mc, &mc, NULL);
        FZ_CHECK(&R, mc == (cl_uint)B[i].maps, "object %d: CL_MEM_MAP_COUNT %u, the model has %d maps", i, mc, B[i].maps);
    }
}

int main(int argc, char **argv)
{
    fuzz_begin(&R, "fuzz_cl_map", argc, argv);
    cl_platform_id pls[8], pl = NULL;
    cl_uint np = 0;
    clGetPlatformIDs(8, pls, &np);
    for (cl_uint i = 0; i < np; i++) {
        char name[64] = "";
        clGetPlatformInfo(pls[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (!strcmp(name, "vmgpu")) pl = pls[i];
    }
    cl_int err;
    if (!pl || clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL)) {
        printf("FAIL: no vmgpu platform (OCL_ICD_VENDORS=%s)\n", getenv("OCL_ICD_VENDORS"));
        return 1;
    }
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    cl_uint bits = 0;
    clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL);
    align_bytes = bits / 8 ? bits / 8 : 128;
    while (fuzz_next(&R)) {
        unsigned op = (unsigned)fuzz_below(&R, 100);
        if (op < 5) op_create();
        else if (op < 10) op_sub();
        else if (op < 13) op_release();
        else if (op < 43) op_map();
        else if (op < 53) op_write_through();
        else if (op < 80) op_unmap();
        else if (op < 88) op_read();
        else if (op < 93) op_write();
        else if (op < 97) op_copy();
        else op_fill();
        check_counts();
    }
    /* Teardown: every map undone, every byte the model knows read back, everything released. */
    for (int k = 0; k < MAXMAP; k++)
        if (MP[k].live) {
            errset s = {.n = 0};
            expect("teardown unmap", clEnqueueUnmapMemObject(q, B[MP[k].b].m, MP[k].ptr, 0, NULL, NULL), &s);
            B[MP[k].b].maps--;
            MP[k].live = 0;
            free(MP[k].wrote);
        }
    clFinish(q);
    for (int i = 0; i < MAXB; i++)
        if (B[i].live && B[i].root != i) {
            clReleaseMemObject(B[i].m);
            B[i].live = 0;
        }
    for (int i = 0; i < MAXB; i++)
        if (B[i].live) {
            clReleaseMemObject(B[i].m);
            free(B[i].data);
            free(B[i].known);
            free(B[i].host);
        }
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    printf("  %lu calls (%lu refused as the model expected); maps: %lu made, %lu refused\n", calls, refused, maps_ok,
           maps_refused);
    return fuzz_end(&R);
}
