/*
 * Fuzzer: the CUDA VMM family and unified copies against a shadow model.
 *
 * Random sequences of cuMemCreate / cuMemRelease / cuMemAddressReserve / cuMemAddressFree /
 * cuMemMap / cuMemSetAccess / cuMemUnmap / cuMemAlloc / cuMemFree and of copies and fills
 * (cuMemcpyHtoD, DtoH, DtoD, cuMemcpy and cuMemcpyAsync with unified addresses, cuMemsetD8)
 * run against vmgpu's libcuda, while a model keeps what the memory must hold: the bytes of each
 * physical allocation (what was written through any of its mappings), which granules are mapped
 * to which allocation, and the access of each mapping. The model decides what every call must
 * answer and every read must return:
 *   - data written through one mapping is read back through every alias of its allocation;
 *   - nothing unmapped, freed or without access is readable or writable: those copies answer
 *     CUDA_ERROR_INVALID_VALUE (never a crash, never a write into host memory) and change nothing;
 *   - calls the model refuses (a map over a mapping, a range outside any reservation) fail and
 *     change nothing (the exact codes are the conformance probe's business);
 *   - after tearing everything down, cuMemGetInfo's free memory is back to its start.
 * Bytes no one wrote (fresh allocations) are not compared. `fuzz_cuda_vmm <seed> <iterations>
 * <seconds>`; see fuzz_common.h for the report.
 */
#define _GNU_SOURCE
#include <string.h>

#include "cuda.h"
#include "fuzz_common.h"

#define G 65536u
#define MAXA 16     /* allocations (handles) */
#define MAXR 8      /* reservations */
#define MAXM 32     /* mappings */
#define MAXD 8      /* cuMemAlloc allocations */
#define MAXF 16     /* freed cuMemAlloc pointers kept for negative tests */
#define HOSTB (256u * 1024u)
#define PHYS_BUDGET (40u * G)

typedef struct { CUmemGenericAllocationHandle h; size_t size; uint8_t *data, *known; int handle_live, live, nmaps; } falloc;
typedef struct { CUdeviceptr va; size_t size; int live; } fresv;
typedef struct { CUdeviceptr va; size_t size; int a; unsigned acc; int live; } fmap;
typedef struct { CUdeviceptr p; size_t size, span; uint8_t *data, *known; int live; } fdev;

static fuzz_run R;
static falloc A[MAXA];
static fresv RV[MAXR];
static fmap M[MAXM];
static fdev D[MAXD];
static CUdeviceptr F[MAXF];
static unsigned nfreed;
static uint8_t *H[3];        /* two pageable host buffers and one pinned */
static size_t phys_used;
static unsigned long calls, refused;

static const char *en(CUresult rc)
{
    const char *n = NULL;
    return cuGetErrorName(rc, &n) == CUDA_SUCCESS && n ? n : "?";
}

/* ---------------------------------------------------------------- the model */

/* Where the byte at device address va lives: allocation bytes (data/known) and the access the
 * device grants there (0 none, 1 read, 3 read-write); NULL when nothing is mapped there. */
static uint8_t *model_at(CUdeviceptr va, uint8_t **known, unsigned *acc)
{
    for (int i = 0; i < MAXM; i++)
        if (M[i].live && va >= M[i].va && va < M[i].va + M[i].size) {
            falloc *a = &A[M[i].a];
            *known = &a->known[va - M[i].va];
            *acc = M[i].acc;
            return &a->data[va - M[i].va];
        }
    for (int i = 0; i < MAXD; i++)
        if (D[i].live && va >= D[i].p && va < D[i].p + D[i].span) {
            *known = &D[i].known[va - D[i].p];
            *acc = 3;
            return &D[i].data[va - D[i].p];
        }
    return NULL;
}

/* Every byte of [va, va+n) mapped with at least `need` access; a range that starts in a
 * cuMemAlloc allocation stays inside it (its granule-rounded span), as NVIDIA's copies do,
 * while VMM mappings side by side may be crossed. */
static int model_ok(CUdeviceptr va, size_t n, unsigned need)
{
    for (int i = 0; i < MAXD; i++)
        if (D[i].live && va >= D[i].p && va < D[i].p + D[i].span && va + n > D[i].p + D[i].span) return 0;
    for (size_t k = 0; k < n; k++) {
        uint8_t *kn;
        unsigned acc;
        if (!model_at(va + k, &kn, &acc) || (acc & need) != need) return 0;
    }
    return 1;
}

static int is_host(uint64_t p)
{
    for (int i = 0; i < 3; i++)
        if (p >= (uint64_t)(uintptr_t)H[i] && p < (uint64_t)(uintptr_t)H[i] + HOSTB) return 1;
    return 0;
}

/* Read/write one byte of either side in the model (host buffers are their own model). */
static int mget(uint64_t p, uint8_t *v)
{
    if (is_host(p)) {
        *v = *(uint8_t *)(uintptr_t)p;
        return 1;
    }
    uint8_t *kn;
    unsigned acc;
    uint8_t *b = model_at(p, &kn, &acc);
    *v = b ? *b : 0;
    return b && *kn;
}
static void mput(uint64_t p, uint8_t v, int known)
{
    if (is_host(p)) return;  /* the copy itself writes host memory */
    uint8_t *kn;
    unsigned acc;
    uint8_t *b = model_at(p, &kn, &acc);
    if (b) {
        *b = v;
        *kn = (uint8_t)known;
    }
}

/* ------------------------------------------------------------ choosing ranges */

static int pick_live(int kind)
{
    int n = kind == 0 ? MAXA : kind == 1 ? MAXR : kind == 2 ? MAXM : MAXD;
    int start = (int)fuzz_below(&R, n);
    for (int k = 0; k < n; k++) {
        int i = (start + k) % n;
        int live = kind == 0 ? A[i].live : kind == 1 ? RV[i].live : kind == 2 ? M[i].live : D[i].live;
        if (live) return i;
    }
    return -1;
}

static size_t small_len(void)
{
    static const size_t L[] = {1, 3, 4, 16, 100, 4096, 5000, 65536, 70000};
    return fuzz_chance(&R, 1, 2) ? 1 + fuzz_below(&R, 256) : L[fuzz_below(&R, 9)];
}

/* A device range: inside a mapping or cuMemAlloc (mostly), or running past it, or in a hole,
 * or at a freed pointer. */
static CUdeviceptr dev_range(size_t *n)
{
    *n = small_len();
    int m = pick_live(2), d = pick_live(3);
    unsigned what = (unsigned)fuzz_below(&R, 10);
    if (what < 5 && m >= 0) {
        size_t off = fuzz_below(&R, M[m].size);
        if (fuzz_chance(&R, 4, 5) && off + *n > M[m].size) off = *n >= M[m].size ? 0 : M[m].size - *n;
        if (*n > M[m].size) *n = M[m].size;
        return M[m].va + off;
    }
    if (what < 8 && d >= 0) {
        size_t off = fuzz_below(&R, D[d].size);
        if (fuzz_chance(&R, 4, 5) && off + *n > D[d].size) off = *n >= D[d].size ? 0 : D[d].size - *n;
        if (*n > D[d].size) *n = D[d].size;
        return D[d].p + off;
    }
    if (what < 9 && nfreed) return F[fuzz_below(&R, nfreed)] + fuzz_below(&R, 4096);
    int r = pick_live(1);
    if (r >= 0) return RV[r].va + fuzz_below(&R, RV[r].size);
    return 0x10000000ull + fuzz_below(&R, 1u << 24);
}

static uint64_t host_range(size_t n)
{
    int h = (int)fuzz_below(&R, 3);
    if (n > HOSTB) n = HOSTB;
    return (uint64_t)(uintptr_t)H[h] + fuzz_below(&R, HOSTB - n + 1);
}

/* ------------------------------------------------------------ operations */

static CUmemAllocationProp prop(void)
{
    CUmemAllocationProp p;
    memset(&p, 0, sizeof p);
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    return p;
}

static void maybe_free_alloc(falloc *a)
{
    if (!a->handle_live && a->nmaps == 0 && a->live) {
        a->live = 0;
        phys_used -= a->size;
        free(a->data);
        free(a->known);
        a->data = a->known = NULL;
    }
}

static void op_create(void)
{
    size_t size = (1 + fuzz_below(&R, 4)) * G;
    int i;
    for (i = 0; i < MAXA && A[i].live; i++) {}
    if (i == MAXA || phys_used + size > PHYS_BUDGET) return;
    CUmemAllocationProp p = prop();
    CUresult rc = cuMemCreate(&A[i].h, size, &p, 0);
    calls++;
    FZ_CHECK(&R, rc == CUDA_SUCCESS, "cuMemCreate(%zu) -> %s", size, en(rc));
    if (rc) return;
    A[i].size = size;
    A[i].data = calloc(1, size);
    A[i].known = calloc(1, size);
    A[i].live = A[i].handle_live = 1;
    A[i].nmaps = 0;
    phys_used += size;
}

static void op_release(void)
{
    int i = pick_live(0);
    if (i < 0 || !A[i].handle_live) return;
    CUresult rc = cuMemRelease(A[i].h);
    calls++;
    FZ_CHECK(&R, rc == CUDA_SUCCESS, "cuMemRelease -> %s", en(rc));
    A[i].handle_live = 0;
    maybe_free_alloc(&A[i]);
}

static void op_reserve(void)
{
    int i;
    for (i = 0; i < MAXR && RV[i].live; i++) {}
    if (i == MAXR) return;
    size_t size = (2 + fuzz_below(&R, 11)) * G;
    CUdeviceptr va = 0;
    CUresult rc = cuMemAddressReserve(&va, size, 0, 0, 0);
    calls++;
    FZ_CHECK(&R, rc == CUDA_SUCCESS && va && va % G == 0, "cuMemAddressReserve(%zu) -> %s, 0x%llx", size, en(rc),
             (unsigned long long)va);
    if (rc) return;
    RV[i].va = va;
    RV[i].size = size;
    RV[i].live = 1;
    /* The new range must not hold anything the model still has (freed pointers reused). */
    for (unsigned k = 0; k < nfreed;)
        if (F[k] >= va && F[k] < va + size) F[k] = F[--nfreed];
        else k++;
}

static int mappings_in(CUdeviceptr va, size_t size)
{
    int n = 0;
    for (int i = 0; i < MAXM; i++)
        if (M[i].live && M[i].va < va + size && va < M[i].va + M[i].size) n++;
    return n;
}

static void op_address_free(void)
{
    int i = pick_live(1);
    if (i < 0 || mappings_in(RV[i].va, RV[i].size)) return;
    CUresult rc = cuMemAddressFree(RV[i].va, RV[i].size);
    calls++;
    FZ_CHECK(&R, rc == CUDA_SUCCESS, "cuMemAddressFree -> %s", en(rc));
    RV[i].live = 0;
    if (nfreed < MAXF) F[nfreed++] = RV[i].va;  /* now a hole: nothing may be read there */
}

static void op_map(void)
{
    int a = pick_live(0), r = pick_live(1), m;
    if (a < 0 || r < 0 || !A[a].handle_live) return;
    for (m = 0; m < MAXM && M[m].live; m++) {}
    if (m == MAXM) return;
    size_t gran = RV[r].size / G;
    /* Mostly inside the reservation; sometimes running past its end. */
    size_t g = fuzz_below(&R, gran);
    CUdeviceptr va = RV[r].va + g * G;
    int inside = va + A[a].size <= RV[r].va + RV[r].size;
    int free_range = mappings_in(va, A[a].size) == 0;
    CUresult rc = cuMemMap(va, A[a].size, 0, A[a].h, 0);
    calls++;
    if (inside && free_range) {
        FZ_CHECK(&R, rc == CUDA_SUCCESS, "cuMemMap(0x%llx, %zu) into a free part of a reservation -> %s",
                 (unsigned long long)va, A[a].size, en(rc));
        if (rc) return;
        M[m].va = va;
        M[m].size = A[a].size;
        M[m].a = a;
        M[m].acc = 0;
        M[m].live = 1;
        A[a].nmaps++;
    } else if (!free_range) {
        FZ_CHECK(&R, rc != CUDA_SUCCESS, "cuMemMap(0x%llx, %zu) over a mapping -> SUCCESS", (unsigned long long)va,
                 A[a].size);
        refused++;
        if (rc == CUDA_SUCCESS) cuMemUnmap(va, A[a].size);
    } else {
        /* Past the reservation's end into nothing mapped: NVIDIA maps it (measured); either
         * way it must not corrupt anything. Keep it mapped if it was. */
        if (rc == CUDA_SUCCESS) {
            M[m].va = va;
            M[m].size = A[a].size;
            M[m].a = a;
            M[m].acc = 0;
            M[m].live = 1;
            A[a].nmaps++;
        } else {
            refused++;
        }
    }
}

static void op_set_access(void)
{
    int m = pick_live(2);
    if (m < 0) return;
    static const CUmemAccess_flags fl[] = {CU_MEM_ACCESS_FLAGS_PROT_READWRITE, CU_MEM_ACCESS_FLAGS_PROT_READ,
                                           CU_MEM_ACCESS_FLAGS_PROT_READWRITE, CU_MEM_ACCESS_FLAGS_PROT_NONE};
    CUmemAccessDesc d;
    memset(&d, 0, sizeof d);
    d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    d.flags = fl[fuzz_below(&R, 4)];
    CUresult rc = cuMemSetAccess(M[m].va, M[m].size, &d, 1);
    calls++;
    if (d.flags == CU_MEM_ACCESS_FLAGS_PROT_NONE && rc != CUDA_SUCCESS) {
        refused++;  /* not every driver takes PROT_NONE; then nothing changed */
        return;
    }
    FZ_CHECK(&R, rc == CUDA_SUCCESS, "cuMemSetAccess(0x%llx, %zu, %d) -> %s", (unsigned long long)M[m].va,
             M[m].size, (int)d.flags, en(rc));
    if (!rc) M[m].acc = (unsigned)d.flags;
}

static void op_unmap(void)
{
    int m = pick_live(2);
    if (m < 0) return;
    CUresult rc = cuMemUnmap(M[m].va, M[m].size);
    calls++;
    FZ_CHECK(&R, rc == CUDA_SUCCESS, "cuMemUnmap(0x%llx, %zu) -> %s", (unsigned long long)M[m].va, M[m].size, en(rc));
    if (rc) return;
    M[m].live = 0;
    A[M[m].a].nmaps--;
    maybe_free_alloc(&A[M[m].a]);
    if (nfreed < MAXF) F[nfreed++] = M[m].va;
}

static void op_alloc(void)
{
    int i;
    for (i = 0; i < MAXD && D[i].live; i++) {}
    size_t size = 1 + fuzz_below(&R, 3 * G);
    size_t span = (size + G - 1) / G * G;
    if (i == MAXD || phys_used + span > PHYS_BUDGET) return;
    CUdeviceptr p = 0;
    CUresult rc = cuMemAlloc(&p, size);
    calls++;
    FZ_CHECK(&R, rc == CUDA_SUCCESS, "cuMemAlloc(%zu) -> %s", size, en(rc));
    if (rc) return;
    D[i].p = p;
    D[i].size = size;
    D[i].span = span;
    D[i].data = calloc(1, span);
    D[i].known = calloc(1, span);
    D[i].live = 1;
    phys_used += span;
    for (unsigned k = 0; k < nfreed;)
        if (F[k] >= p && F[k] < p + span) F[k] = F[--nfreed];
        else k++;
}

static void op_free(void)
{
    int i = pick_live(3);
    if (i < 0) return;
    CUresult rc = cuMemFree(D[i].p);
    calls++;
    FZ_CHECK(&R, rc == CUDA_SUCCESS, "cuMemFree -> %s", en(rc));
    D[i].live = 0;
    phys_used -= D[i].span;
    free(D[i].data);
    free(D[i].known);
    if (nfreed < MAXF) F[nfreed++] = D[i].p;
}

/* The storage of byte p: the model's byte of a device address, or the host byte itself. */
static const uint8_t *storage_of(uint64_t p)
{
    if (is_host(p)) return (const uint8_t *)(uintptr_t)p;
    uint8_t *kn;
    unsigned acc;
    return model_at(p, &kn, &acc);
}

static int cmp_ptr(const void *a, const void *b)
{
    const uint8_t *x = *(const uint8_t *const *)a, *y = *(const uint8_t *const *)b;
    return x < y ? -1 : x > y;
}

/* Do [dst, dst+n) and [src, src+n) share storage (the same allocation bytes through two
 * aliases, or the same host bytes)? */
static int phys_overlap(uint64_t dst, uint64_t src, size_t n)
{
    const uint8_t **s = malloc(n * sizeof *s);
    for (size_t k = 0; k < n; k++) s[k] = storage_of(src + k);
    qsort(s, n, sizeof *s, cmp_ptr);
    int hit = 0;
    for (size_t k = 0; k < n && !hit; k++) {
        const uint8_t *d = storage_of(dst + k);
        if (d && bsearch(&d, s, n, sizeof *s, cmp_ptr)) hit = 1;
    }
    free(s);
    return hit;
}

/* A copy of n bytes between two unified addresses, through the call `how` picks. The model
 * says whether it must succeed; if it must, the destination changes as memmove would. */
static void op_copy(void)
{
    size_t n;
    uint64_t dst, src;
    unsigned kind = (unsigned)fuzz_below(&R, 4);  /* 0 HtoD, 1 DtoH, 2 DtoD, 3 host-host */
    if (kind == 0) { dst = dev_range(&n); src = host_range(n); }
    else if (kind == 1) { src = dev_range(&n); dst = host_range(n); }
    else if (kind == 2) { dst = dev_range(&n); size_t n2; src = dev_range(&n2); if (n2 < n) n = n2; }
    else { n = small_len(); dst = host_range(n); src = host_range(n); }
    if (n == 0) return;
    int dev_dst = !is_host(dst), dev_src = !is_host(src);
    int ok = (!dev_dst || model_ok(dst, n, 3)) && (!dev_src || model_ok(src, n, 1));
    /* Overlapping source and destination (the same bytes, through aliases too) are undefined
     * for cuMemcpy: skip them. */
    if (ok && phys_overlap(dst, src, n)) return;
    /* The expected result, from the model, before the call. */
    uint8_t *want = malloc(n), *wknown = malloc(n);
    for (size_t k = 0; k < n; k++) wknown[k] = (uint8_t)mget(src + k, &want[k]);
    uint8_t *host_before = NULL;
    if (!dev_dst) {
        host_before = malloc(n);
        memcpy(host_before, (void *)(uintptr_t)dst, n);
    }
    unsigned how = (unsigned)fuzz_below(&R, 3);  /* 0 cuMemcpy, 1 cuMemcpyAsync, 2 the explicit call */
    CUresult rc;
    const char *name;
    if (how == 0) { rc = cuMemcpy(dst, src, n); name = "cuMemcpy"; }
    else if (how == 1) {
        rc = cuMemcpyAsync(dst, src, n, NULL);
        if (!rc) rc = cuStreamSynchronize(NULL);
        name = "cuMemcpyAsync";
    } else if (dev_dst && dev_src) { rc = cuMemcpyDtoD(dst, src, n); name = "cuMemcpyDtoD"; }
    else if (dev_dst) { rc = cuMemcpyHtoD(dst, (const void *)(uintptr_t)src, n); name = "cuMemcpyHtoD"; }
    else if (dev_src) { rc = cuMemcpyDtoH((void *)(uintptr_t)dst, src, n); name = "cuMemcpyDtoH"; }
    else { rc = cuMemcpy(dst, src, n); name = "cuMemcpy"; }
    calls++;
    if (ok) {
        FZ_CHECK(&R, rc == CUDA_SUCCESS, "%s(0x%llx <- 0x%llx, %zu) -> %s", name, (unsigned long long)dst,
                 (unsigned long long)src, n, en(rc));
        if (!rc) {
            if (!dev_dst)
                for (size_t k = 0; k < n; k++)
                    if (wknown[k] && ((uint8_t *)(uintptr_t)dst)[k] != want[k]) {
                        FZ_CHECK(&R, 0, "%s(0x%llx <- 0x%llx, %zu): byte %zu is 0x%02x, the model says 0x%02x", name,
                                 (unsigned long long)dst, (unsigned long long)src, n, k,
                                 ((uint8_t *)(uintptr_t)dst)[k], want[k]);
                        break;
                    }
            for (size_t k = 0; k < n; k++) mput(dst + k, want[k], wknown[k]);
        }
    } else {
        refused++;
        FZ_CHECK(&R, rc == CUDA_ERROR_INVALID_VALUE, "%s(0x%llx <- 0x%llx, %zu) touching unmapped or inaccessible "
                 "device memory -> %s, want CUDA_ERROR_INVALID_VALUE", name, (unsigned long long)dst,
                 (unsigned long long)src, n, en(rc));
        if (host_before)
            FZ_CHECK(&R, memcmp(host_before, (void *)(uintptr_t)dst, n) == 0, "%s refused but host memory changed", name);
    }
    free(want);
    free(wknown);
    free(host_before);
}

static void op_memset(void)
{
    size_t n;
    CUdeviceptr d = dev_range(&n);
    uint8_t v = (uint8_t)fuzz_u64(&R);
    int ok = model_ok(d, n, 3);
    CUresult rc = cuMemsetD8(d, v, n);
    calls++;
    if (ok) {
        FZ_CHECK(&R, rc == CUDA_SUCCESS, "cuMemsetD8(0x%llx, %zu) -> %s", (unsigned long long)d, n, en(rc));
        if (!rc)
            for (size_t k = 0; k < n; k++) mput(d + k, v, 1);
    } else {
        refused++;
        FZ_CHECK(&R, rc == CUDA_ERROR_INVALID_VALUE, "cuMemsetD8(0x%llx, %zu) on unmapped/read-only memory -> %s",
                 (unsigned long long)d, n, en(rc));
    }
}

/* Every readable byte the model knows, read back through the driver (each mapping, so every
 * alias of an allocation is read). */
static void verify_all(void)
{
    static uint8_t buf[4 * G];
    for (int m = 0; m < MAXM; m++) {
        if (!M[m].live) continue;
        CUresult rc = cuMemcpyDtoH(buf, M[m].va, M[m].size);
        calls++;
        if (!(M[m].acc & 1)) {
            FZ_CHECK(&R, rc == CUDA_ERROR_INVALID_VALUE, "read of a mapping without read access -> %s", en(rc));
            continue;
        }
        FZ_CHECK(&R, rc == CUDA_SUCCESS, "read of mapping 0x%llx -> %s", (unsigned long long)M[m].va, en(rc));
        falloc *a = &A[M[m].a];
        for (size_t k = 0; !rc && k < M[m].size; k++)
            if (a->known[k] && buf[k] != a->data[k]) {
                FZ_CHECK(&R, 0, "mapping 0x%llx (allocation %d, %d mappings) byte 0x%zx: 0x%02x, model 0x%02x",
                         (unsigned long long)M[m].va, M[m].a, a->nmaps, k, buf[k], a->data[k]);
                break;
            }
    }
    for (int i = 0; i < MAXD; i++) {
        if (!D[i].live) continue;
        CUresult rc = cuMemcpyDtoH(buf, D[i].p, D[i].size);
        calls++;
        FZ_CHECK(&R, rc == CUDA_SUCCESS, "read of cuMemAlloc 0x%llx -> %s", (unsigned long long)D[i].p, en(rc));
        for (size_t k = 0; !rc && k < D[i].size; k++)
            if (D[i].known[k] && buf[k] != D[i].data[k]) {
                FZ_CHECK(&R, 0, "cuMemAlloc 0x%llx byte 0x%zx: 0x%02x, model 0x%02x", (unsigned long long)D[i].p, k,
                         buf[k], D[i].data[k]);
                break;
            }
    }
}

static void teardown(size_t free0)
{
    for (int m = 0; m < MAXM; m++)
        if (M[m].live) {
            FZ_CHECK(&R, cuMemUnmap(M[m].va, M[m].size) == CUDA_SUCCESS, "teardown unmap");
            M[m].live = 0;
        }
    for (int i = 0; i < MAXA; i++)
        if (A[i].live && A[i].handle_live) FZ_CHECK(&R, cuMemRelease(A[i].h) == CUDA_SUCCESS, "teardown release");
    for (int i = 0; i < MAXR; i++)
        if (RV[i].live) FZ_CHECK(&R, cuMemAddressFree(RV[i].va, RV[i].size) == CUDA_SUCCESS, "teardown address free");
    for (int i = 0; i < MAXD; i++)
        if (D[i].live) FZ_CHECK(&R, cuMemFree(D[i].p) == CUDA_SUCCESS, "teardown cuMemFree");
    size_t f = 0, t = 0;
    cuMemGetInfo(&f, &t);
    FZ_CHECK(&R, f == free0, "free memory after teardown %zu, at the start %zu", f, free0);
    printf("  teardown: free device memory %zu bytes, at the start %zu\n", f, free0);
}

int main(int argc, char **argv)
{
    fuzz_begin(&R, "fuzz_cuda_vmm", argc, argv);
    CUdevice dev;
    CUcontext ctx;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuCtxCreate(&ctx, NULL, 0, dev)) {
        printf("FAIL: no CUDA device\n");
        return 1;
    }
    H[0] = malloc(HOSTB);
    H[1] = malloc(HOSTB);
    if (cuMemAllocHost((void **)&H[2], HOSTB)) {
        printf("FAIL: cuMemAllocHost\n");
        return 1;
    }
    for (int i = 0; i < 3; i++)
        for (size_t k = 0; k < HOSTB; k++) H[i][k] = (uint8_t)fuzz_u64(&R);
    size_t free0 = 0, total = 0;
    cuMemGetInfo(&free0, &total);
    while (fuzz_next(&R)) {
        unsigned op = (unsigned)fuzz_below(&R, 100);
        if (op < 8) op_create();
        else if (op < 12) op_release();
        else if (op < 17) op_reserve();
        else if (op < 20) op_address_free();
        else if (op < 32) op_map();
        else if (op < 42) op_set_access();
        else if (op < 47) op_unmap();
        else if (op < 52) op_alloc();
        else if (op < 55) op_free();
        else if (op < 90) op_copy();
        else op_memset();
        if (R.done % 50 == 0) verify_all();
    }
    verify_all();
    teardown(free0);
    cuMemFreeHost(H[2]);
    cuCtxDestroy(ctx);
    printf("  %lu driver calls, %lu refused as the model expected\n", calls, refused);
    return fuzz_end(&R);
}
