/*
 * CUDA driver API tests: vmgpu's libcuda.so on the simulated device, through sw/include/cuda.h.
 * One executable, one ctest test per case: `vmgpu_cuda_tests <case>`. Every case checks data
 * (not just return codes), prints what it checked, and exits nonzero on any failure. After each
 * call that must fail, the observable state (free memory, access flags, buffer contents) is
 * compared with what it was before.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cu_check.h"
#include "vmgpu_builtin.h"

#define G 65536u

static CUdevice g_devc;

static void init(void)
{
    MUST(cuInit(0));
    MUST(cuDeviceGet(&g_devc, 0));
}

static CUcontext new_ctx(void)
{
    CUcontext c;
    MUST(cuCtxCreate(&c, NULL, 0, g_devc));
    return c;
}

static CUmemAllocationProp dev_prop(int fd)
{
    CUmemAllocationProp p;
    memset(&p, 0, sizeof p);
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = 0;
    p.requestedHandleTypes = fd ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR : CU_MEM_HANDLE_TYPE_NONE;
    return p;
}

static CUmemAccessDesc access_desc(CUmemAccess_flags f)
{
    CUmemAccessDesc d;
    memset(&d, 0, sizeof d);
    d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    d.location.id = 0;
    d.flags = f;
    return d;
}

static size_t free_mem(void)
{
    size_t f = 0, t = 0;
    cuMemGetInfo(&f, &t);
    return f;
}

static unsigned long long get_access(CUdeviceptr p)
{
    CUmemLocation loc = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
    unsigned long long f = 0xdead;
    if (cuMemGetAccess(&f, &loc, p) != CUDA_SUCCESS) return 0xbad;
    return f;
}

static uint32_t pat(uint32_t i, uint32_t seed) { return i * 2654435761u ^ seed; }

static CUfunction get_fn(CUmodule m, const char *name)
{
    CUfunction f;
    MUST(cuModuleGetFunction(&f, m, name));
    return f;
}

static CUresult launch(CUfunction f, CUdeviceptr dst, CUdeviceptr a, CUdeviceptr b, int n, int scalar,
                       CUstream s)
{
    void *args[5] = {&dst, &a, &b, &n, &scalar};
    unsigned block = 256, grid = (unsigned)(n + 255) / 256;
    if (!grid) grid = 1;
    return cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, s, args, NULL);
}

/* ------------------------------------------------------------------ cases */

static void t_basics(void)
{
    int v = 0, n = 0;
    OK(cuDriverGetVersion(&v));
    CHECK(v == CUDA_VERSION);
    CUdevice d;
    EXPECT(cuDeviceGet(&d, 0), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuDeviceGetCount(&n), CUDA_ERROR_NOT_INITIALIZED);
    CUcontext c;
    EXPECT(cuCtxCreate(&c, NULL, 0, 0), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuInit(1), CUDA_ERROR_INVALID_VALUE);
    init();
    OK(cuInit(0));
    OK(cuDeviceGetCount(&n));
    CHECK(n == 1);
    EXPECT(cuDeviceGet(&d, 1), CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuDeviceGet(NULL, 0), CUDA_ERROR_INVALID_VALUE);
    char name[64];
    OK(cuDeviceGetName(name, sizeof name, 0));
    CHECK(strncmp(name, "vmgpu", 5) == 0);
    EXPECT(cuDeviceGetName(name, 0, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetName(name, 64, 3), CUDA_ERROR_INVALID_DEVICE);
    size_t total = 0;
    OK(cuDeviceTotalMem(&total, 0));
    CHECK(total >= (1u << 20));
    CUuuid u;
    OK(cuDeviceGetUuid(&u, 0));
    CHECK(memcmp(u.bytes, "vmgpu", 5) == 0);
    struct { CUdevice_attribute a; int want; } at[] = {
        {CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 1},
        {CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 1},
        {CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 1},
        {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 50000},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 5},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0},
        {CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32},
        {CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, 1},
    };
    for (unsigned i = 0; i < sizeof at / sizeof at[0]; i++) {
        int x = -1;
        OK(cuDeviceGetAttribute(&x, at[i].a, 0));
        CHECK(x == at[i].want);
    }
    int x;
    /* The block limit is the SIMT unit's lanes x warps (1024 without a unit: built-ins only). */
    int tpb = -1, bdx = -1;
    OK(cuDeviceGetAttribute(&tpb, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0));
    OK(cuDeviceGetAttribute(&bdx, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, 0));
    CHECK(tpb >= 1 && tpb <= 1024 && bdx == tpb);
    EXPECT(cuDeviceGetAttribute(&x, (CUdevice_attribute)100000, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuDeviceGetAttribute(NULL, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0), CUDA_ERROR_INVALID_VALUE);
    const char *s = NULL;
    OK(cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &s));
    CHECK(s && !strcmp(s, "CUDA_ERROR_ILLEGAL_ADDRESS"));
    OK(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &s));
    CHECK(s && !strcmp(s, "out of memory"));
    EXPECT(cuGetErrorName((CUresult)12345, &s), CUDA_ERROR_INVALID_VALUE);
    CHECK(s == NULL);
    /* No context yet: context calls say so. */
    CUcontext cur = (CUcontext)1;
    OK(cuCtxGetCurrent(&cur));
    CHECK(cur == NULL);
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_INVALID_CONTEXT);
    CUdeviceptr p;
    EXPECT(cuMemAlloc(&p, 16), CUDA_ERROR_INVALID_CONTEXT);
    size_t g = 0;
    CUmemAllocationProp prop = dev_prop(0);
    OK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CHECK(g == G);
    OK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
    CHECK(g == G);
    prop.location.id = 1;
    /* NVIDIA answers the granularity for any device ordinal (measured); cuMemCreate refuses it. */
    OK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CUmemGenericAllocationHandle h1;
    EXPECT(cuMemCreate(&h1, G, &prop, 0), CUDA_ERROR_INVALID_DEVICE);
    NOTE("device \"%s\", %zu bytes, granularity %zu (page 4096), version %d", name, total, g, v);
}

/* reserve -> create -> map -> set access -> kernel -> unmap -> release, with data checks. */
static void t_vmm_walkthrough(void)
{
    init();
    CUcontext c = new_ctx();
    CUmodule mod;
    MUST(cuModuleLoadData(&mod, VMGPU_BUILTIN_IMAGE));
    CUfunction add = get_fn(mod, VMGPU_BUILTIN_ADD_I32);
    /* The first launch gives the context its kernel-argument granule: take it before counting. */
    CUdeviceptr warm;
    MUST(cuMemAlloc(&warm, 4));
    MUST(launch(add, warm, warm, warm, 1, 0, NULL));
    MUST(cuCtxSynchronize());
    size_t free0 = free_mem();
    const size_t size = 2 * G;
    const int n = (int)(size / 4);
    CUdeviceptr va;
    OK(cuMemAddressReserve(&va, 3 * size, 0, 0, 0));
    CUmemGenericAllocationHandle h[3];
    CUmemAllocationProp prop = dev_prop(0);
    for (int i = 0; i < 3; i++) OK(cuMemCreate(&h[i], size, &prop, 0));
    CHECK(free_mem() == free0 - 3 * size);
    for (int i = 0; i < 3; i++) OK(cuMemMap(va + i * size, size, 0, h[i], 0));
    CHECK(get_access(va) == CU_MEM_ACCESS_FLAGS_PROT_NONE);
    CUmemAccessDesc rw = access_desc(CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    OK(cuMemSetAccess(va, 3 * size, &rw, 1));
    CHECK(get_access(va + size + 5) == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    int32_t *a = malloc(size), *b = malloc(size), *d = malloc(size);
    for (int i = 0; i < n; i++) {
        a[i] = (int32_t)pat((uint32_t)i, 1);
        b[i] = (int32_t)pat((uint32_t)i, 2);
    }
    OK(cuMemcpyHtoD(va, a, size));
    OK(cuMemcpyHtoD(va + size, b, size));
    OK(launch(add, va + 2 * size, va, va + size, n, 0, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(d, va + 2 * size, size));
    int ok = 1;
    for (int i = 0; i < n; i++)
        if (d[i] != (int32_t)((uint32_t)a[i] + (uint32_t)b[i])) ok = 0;
    CHECK(ok);
    NOTE("3 x 128 KiB mapped into one 384 KiB reservation; vmgpu_add_i32 over %d elements: %s", n,
         ok ? "matches C" : "WRONG");
    for (int i = 0; i < 3; i++) OK(cuMemUnmap(va + i * size, size));
    for (int i = 0; i < 3; i++) OK(cuMemRelease(h[i]));
    OK(cuMemAddressFree(va, 3 * size));
    CHECK(free_mem() == free0);
    NOTE("after unmap, release and address free: free memory back to %zu", free0);
    OK(cuModuleUnload(mod));
    OK(cuCtxDestroy(c));
    free(a); free(b); free(d);
}

/* Every rule of the cuMemMap page (and around it), each failing call leaving state unchanged. */
static CUdeviceptr r_va, r_map;
static CUmemGenericAllocationHandle r_h;
static size_t r_free;
static uint32_t r_word;
static void snap(void)
{
    r_free = free_mem();
    r_word = 0;
    cuMemcpyDtoH(&r_word, r_map, 4);
}
static int same(void)
{
    uint32_t w = 0;
    int ok = free_mem() == r_free && get_access(r_map) == CU_MEM_ACCESS_FLAGS_PROT_READWRITE &&
             get_access(r_va + 3 * G) == 0xbad && cuMemcpyDtoH(&w, r_map, 4) == CUDA_SUCCESS && w == r_word;
    return ok;
}
#define RULE(call, want) do { EXPECT(call, want); if (!same()) { printf("  FAIL %s:%d: state changed by %s\n", \
    __FILE__, __LINE__, #call); fails++; snap(); } nrules++; } while (0)

static void t_vmm_rules(void)
{
    init();
    CUcontext c = new_ctx();
    unsigned nrules = 0;
    CUmemAllocationProp prop = dev_prop(1);
    CUmemAccessDesc rw = access_desc(CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    CUmemAccessDesc ro = access_desc(CU_MEM_ACCESS_FLAGS_PROT_READ);
    /* Reservation of 8 granules: [0,1) mapped RW with a marker, [1,3) spare, [3,8) unmapped. */
    MUST(cuMemAddressReserve(&r_va, 8 * G, 0, 0, 0));
    MUST(cuMemCreate(&r_h, 2 * G, &prop, 0));
    CUmemGenericAllocationHandle h1;
    MUST(cuMemCreate(&h1, G, &prop, 0));
    r_map = r_va;
    MUST(cuMemMap(r_map, G, 0, h1, 0));
    MUST(cuMemSetAccess(r_map, G, &rw, 1));
    uint32_t marker = 0x600dbeef;
    MUST(cuMemcpyHtoD(r_map, &marker, 4));
    snap();
    CHECK(r_word == marker);
    CUdeviceptr x;
    CUmemGenericAllocationHandle hx;
    /* reserve / create arguments */
    RULE(cuMemAddressReserve(&x, G + 1, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
    RULE(cuMemAddressReserve(&x, 0, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
    RULE(cuMemAddressReserve(&x, G, 0, 0, 1), CUDA_ERROR_INVALID_VALUE);
    RULE(cuMemAddressReserve(&x, G, 3 * G, 0, 0), CUDA_ERROR_INVALID_VALUE);
    RULE(cuMemAddressReserve(NULL, G, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
    RULE(cuMemCreate(&hx, G / 2, &prop, 0), CUDA_ERROR_INVALID_VALUE);
    RULE(cuMemCreate(&hx, G, &prop, 1), CUDA_ERROR_INVALID_VALUE);
    RULE(cuMemCreate(&hx, G, NULL, 0), CUDA_ERROR_INVALID_VALUE);
    RULE(cuMemCreate(&hx, (size_t)1 << 40, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY);
    /* map: alignment of ptr, size and offset to the granularity. The codes are NVIDIA's as
     * measured (tests/cuda/probe, docs/cuda.md "VMM answers by state"): anything but the whole
     * allocation at offset 0 is NOT_SUPPORTED, before the address is looked at; flags, size 0
     * and a bad address of a whole-allocation map are INVALID_VALUE. */
    CUdeviceptr spare = r_va + G;
    RULE(cuMemMap(spare + 4096, G, 0, r_h, 0), CUDA_ERROR_NOT_SUPPORTED);     /* a page, not a granule */
    RULE(cuMemMap(spare, G + 4096, 0, r_h, 0), CUDA_ERROR_NOT_SUPPORTED);
    RULE(cuMemMap(spare, G, 4096, r_h, 0), CUDA_ERROR_NOT_SUPPORTED);
    RULE(cuMemMap(spare, G, G, r_h, 0), CUDA_ERROR_NOT_SUPPORTED);            /* offset != 0 */
    RULE(cuMemMap(spare, G, 0, r_h, 1), CUDA_ERROR_INVALID_VALUE);            /* flags != 0 */
    RULE(cuMemMap(spare, 0, 0, r_h, 0), CUDA_ERROR_INVALID_VALUE);
    RULE(cuMemMap(spare, 4 * G, 0, r_h, 0), CUDA_ERROR_NOT_SUPPORTED);        /* larger than the allocation */
    RULE(cuMemMap(r_map, G, 0, r_h, 0), CUDA_ERROR_NOT_SUPPORTED);            /* part, over a mapping */
    RULE(cuMemMap(r_map, 2 * G, 0, r_h, 0), CUDA_ERROR_INVALID_VALUE);        /* whole, over a mapping */
    RULE(cuMemMap(spare + 4096, 2 * G, 0, r_h, 0), CUDA_ERROR_INVALID_VALUE); /* whole, a page in */
    RULE(cuMemMap(0x7f000000u, G, 0, r_h, 0), CUDA_ERROR_NOT_SUPPORTED);      /* part, outside any reservation */
    RULE(cuMemMap(0x7f000000u, 2 * G, 0, r_h, 0), CUDA_ERROR_INVALID_VALUE);  /* whole, outside */
    RULE(cuMemMap(spare, G, 0, 0xdeadbeefull, 0), CUDA_ERROR_INVALID_VALUE);  /* bogus handle */
    /* access */
    CUmemAccessDesc bad = access_desc((CUmemAccess_flags)2);
    RULE(cuMemSetAccess(spare, G, &rw, 1), CUDA_ERROR_INVALID_VALUE);         /* not mapped */
    RULE(cuMemSetAccess(r_map, G, &bad, 1), CUDA_ERROR_INVALID_VALUE);
    RULE(cuMemSetAccess(r_map, G, NULL, 1), CUDA_ERROR_INVALID_VALUE);
    RULE(cuMemSetAccess(r_map, G, &rw, 0), CUDA_ERROR_INVALID_VALUE);
    RULE(cuMemSetAccess(r_map + 4096, G, &rw, 1), CUDA_ERROR_INVALID_VALUE);
    CUmemAccessDesc dev1 = rw;
    dev1.location.id = 1;
    RULE(cuMemSetAccess(r_map, G, &dev1, 1), CUDA_ERROR_INVALID_VALUE);
    unsigned long long fl;
    CUmemLocation loc = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
    RULE(cuMemGetAccess(&fl, &loc, spare), CUDA_ERROR_INVALID_VALUE);
    RULE(cuMemGetAccess(NULL, &loc, r_map), CUDA_ERROR_INVALID_VALUE);
    /* unmap: partial, repeated, unmapped, misaligned */
    MUST(cuMemMap(spare, 2 * G, 0, r_h, 0));
    snap();
    RULE(cuMemUnmap(spare, G), CUDA_ERROR_INVALID_VALUE);                     /* half a mapping */
    RULE(cuMemUnmap(spare + G, G), CUDA_ERROR_INVALID_VALUE);
    RULE(cuMemUnmap(spare + 4096, G), CUDA_ERROR_INVALID_VALUE);              /* splits it */
    RULE(cuMemUnmap(spare, 0), CUDA_ERROR_INVALID_VALUE);
    RULE(cuMemUnmap(r_va, 2 * G), CUDA_ERROR_INVALID_VALUE);                  /* splits the next one */
    /* NVIDIA (measured): unmapping nothing succeeds, and a range covering a mapping unmaps it. */
    RULE(cuMemUnmap(r_va + 5 * G, G), CUDA_SUCCESS);                          /* never mapped */
    OK(cuMemUnmap(spare, 3 * G));                                              /* runs past it */
    CHECK(get_access(spare) == 0xbad);
    snap();
    RULE(cuMemUnmap(spare, 2 * G), CUDA_SUCCESS);                              /* repeated */
    /* address free while mapped / wrong size */
    RULE(cuMemAddressFree(r_va, 8 * G), CUDA_ERROR_INVALID_VALUE);
    RULE(cuMemAddressFree(r_va, 4 * G), CUDA_ERROR_INVALID_VALUE);
    RULE(cuMemAddressFree(r_va + G, 7 * G), CUDA_ERROR_INVALID_VALUE);
    NOTE("%u failing VMM calls: expected error codes, free memory / access / data unchanged after each", nrules);

    /* access before and after cuMemSetAccess */
    MUST(cuMemMap(spare, 2 * G, 0, r_h, 0));
    CHECK(get_access(spare) == CU_MEM_ACCESS_FLAGS_PROT_NONE);
    /* only whole mappings (NVIDIA refuses a range splitting one, measured) */
    EXPECT(cuMemSetAccess(spare, G, &ro, 1), CUDA_ERROR_INVALID_VALUE);
    CHECK(get_access(spare) == CU_MEM_ACCESS_FLAGS_PROT_NONE);
    OK(cuMemSetAccess(spare, 2 * G, &ro, 1));
    CHECK(get_access(spare) == CU_MEM_ACCESS_FLAGS_PROT_READ);
    CHECK(get_access(spare + G) == CU_MEM_ACCESS_FLAGS_PROT_READ);
    OK(cuMemSetAccess(spare, 2 * G, &rw, 1));
    CHECK(get_access(spare + G + 100) == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    NOTE("access: none after cuMemMap, read-only then read-write after cuMemSetAccess (per granule)");

    /* one handle mapped at two addresses: coherent */
    CUdeviceptr va2;
    MUST(cuMemAddressReserve(&va2, 2 * G, 0, 0, 0));
    OK(cuMemMap(va2, 2 * G, 0, r_h, 0));
    OK(cuMemSetAccess(va2, 2 * G, &rw, 1));
    uint32_t w1 = 0x11112222, w2 = 0;
    OK(cuMemcpyHtoD(spare + G + 8, &w1, 4));
    OK(cuMemcpyDtoH(&w2, va2 + G + 8, 4));
    CHECK(w2 == w1);
    OK(cuMemsetD32(va2 + 64, 0xabcdabcd, 4));
    OK(cuMemcpyDtoH(&w2, spare + 76, 4));
    CHECK(w2 == 0xabcdabcd);
    NOTE("one handle at 0x%llx and 0x%llx: writes through one are read through the other: %s",
         (unsigned long long)spare, (unsigned long long)va2, w2 == 0xabcdabcd ? "yes" : "NO");

    /* retain */
    CUmemGenericAllocationHandle hr;
    OK(cuMemRetainAllocationHandle(&hr, (void *)(uintptr_t)(va2 + 100)));
    CHECK(hr == r_h);
    EXPECT(cuMemRetainAllocationHandle(&hr, (void *)(uintptr_t)(r_va + 6 * G)), CUDA_ERROR_INVALID_VALUE);
    CUmemAllocationProp got;
    OK(cuMemGetAllocationPropertiesFromHandle(&got, r_h));
    CHECK(got.type == CU_MEM_ALLOCATION_TYPE_PINNED && got.location.type == CU_MEM_LOCATION_TYPE_DEVICE &&
          got.requestedHandleTypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);

    /* export / import through a POSIX fd */
    int fd = -1;
    OK(cuMemExportToShareableHandle(&fd, r_h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    struct stat st;
    CHECK(fd >= 0 && fstat(fd, &st) == 0);
    char link[64], target[128] = "";
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t tl = readlink(link, target, sizeof target - 1);
    if (tl > 0) target[tl] = 0;
    CUmemGenericAllocationHandle hi;
    OK(cuMemImportFromShareableHandle(&hi, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    /* NVIDIA (measured): a new handle, in the exporting process too, asking for no handle types */
    CHECK(hi != r_h);
    OK(cuMemGetAllocationPropertiesFromHandle(&got, hi));
    CHECK(got.requestedHandleTypes == CU_MEM_HANDLE_TYPE_NONE);
    CUdeviceptr va3;
    MUST(cuMemAddressReserve(&va3, 2 * G, 0, 0, 0));
    OK(cuMemMap(va3, 2 * G, 0, hi, 0));
    OK(cuMemSetAccess(va3, 2 * G, &rw, 1));
    OK(cuMemcpyDtoH(&w2, va3 + G + 8, 4));
    CHECK(w2 == w1);
    NOTE("export -> fd %d (%s), import -> the same allocation, mapped a third time: data %s", fd, target,
         w2 == w1 ? "shared" : "DIFFERENT");
    EXPECT(cuMemImportFromShareableHandle(&hi, (void *)(uintptr_t)0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
           CUDA_ERROR_INVALID_VALUE);  /* stdin: not an allocation */
    EXPECT(cuMemExportToShareableHandle(&fd, h1, CU_MEM_HANDLE_TYPE_WIN32, 0), CUDA_ERROR_INVALID_VALUE);
    close(fd);

    /* release while mapped: the memory lives until the last unmap */
    size_t before = free_mem();
    OK(cuMemRelease(r_h));  /* create */
    OK(cuMemRelease(r_h));  /* retain */
    EXPECT(cuMemRelease(r_h), CUDA_ERROR_INVALID_VALUE);  /* double release */
    CHECK(free_mem() == before);  /* the import still holds the memory */
    OK(cuMemRelease(hi));     /* import */
    EXPECT(cuMemRelease(hi), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemMap(r_va + 5 * G, G, 0, r_h, 0), CUDA_ERROR_NOT_SUPPORTED);
    CHECK(free_mem() == before);
    OK(cuMemcpyDtoH(&w2, va2 + G + 8, 4));
    CHECK(w2 == w1);
    OK(cuMemUnmap(va2, 2 * G));
    OK(cuMemUnmap(va3, 2 * G));
    CHECK(free_mem() == before);
    OK(cuMemUnmap(spare, 2 * G));
    CHECK(free_mem() == before + 2 * G);
    NOTE("released while mapped 3 times: data still there; freed (%zu bytes back) at the last unmap", (size_t)2 * G);

    /* read-only then a write: a copy is refused by the driver (INVALID_VALUE, not sticky, as
     * NVIDIA answers); a kernel faults on the device -> CUDA_ERROR_ILLEGAL_ADDRESS, sticky. */
    CUcontext c2 = new_ctx();
    OK(cuMemSetAccess(r_map, G, &ro, 1));
    CUdeviceptr tmp;
    OK(cuMemAlloc(&tmp, 64));
    OK(cuMemsetD8(tmp, 0x5a, 64));
    EXPECT(cuMemcpyDtoD(r_map, tmp, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemsetD8(r_map, 1, 4), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemcpyDtoD(tmp, r_map, 4));  /* reading is allowed */
    OK(cuCtxSynchronize());
    CUmodule m2;
    MUST(cuModuleLoadData(&m2, VMGPU_BUILTIN_IMAGE));
    OK(launch(get_fn(m2, VMGPU_BUILTIN_FILL_I32), r_map, 0, 0, 16, 3, NULL));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT(cuMemAlloc(&x, 64), CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT(cuMemsetD8(tmp, 1, 1), CUDA_ERROR_ILLEGAL_ADDRESS);
    CUcontext cur;
    OK(cuCtxPopCurrent(&cur));
    CHECK(cur == c2);
    /* The first context is untouched, and sees the unchanged marker. */
    OK(cuCtxSynchronize());
    w2 = 0;
    OK(cuMemcpyDtoH(&w2, r_map, 4));
    CHECK(w2 == marker);
    NOTE("read-only mapping: copy/memset into it refused (INVALID_VALUE, not sticky), reading works; a kernel "
         "writing it -> CUDA_ERROR_ILLEGAL_ADDRESS, sticky in that context; the other context runs on and sees "
         "the memory unchanged");
    OK(cuCtxDestroy(c2));

    /* before cuMemSetAccess: a copy faults too (fresh context) */
    CUcontext c3 = new_ctx();
    CUmemGenericAllocationHandle h3;
    CUdeviceptr v3;
    MUST(cuMemCreate(&h3, G, &prop, 0));
    MUST(cuMemAddressReserve(&v3, G, 0, 0, 0));
    MUST(cuMemMap(v3, G, 0, h3, 0));
    EXPECT(cuMemcpyHtoD(v3, &w1, 4), CUDA_ERROR_INVALID_VALUE);
    CUmodule m3;
    MUST(cuModuleLoadData(&m3, VMGPU_BUILTIN_IMAGE));
    OK(launch(get_fn(m3, VMGPU_BUILTIN_FILL_I32), v3, 0, 0, 16, 3, NULL));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    OK(cuCtxDestroy(c3));
    OK(cuCtxSetCurrent(c));
    OK(cuMemSetAccess(v3, G, &rw, 1));
    OK(cuMemcpyHtoD(v3, &w1, 4));
    NOTE("mapping without access: copy refused (INVALID_VALUE), kernel faults (ILLEGAL_ADDRESS); after cuMemSetAccess the copy works");
    OK(cuMemUnmap(v3, G));
    OK(cuMemRelease(h3));
    OK(cuMemAddressFree(v3, G));

    /* double free of cuMemAlloc memory */
    CUdeviceptr p;
    OK(cuMemAlloc(&p, 100));
    OK(cuMemFree(p));
    EXPECT(cuMemFree(p), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemFree(r_map), CUDA_ERROR_INVALID_VALUE);  /* VMM memory is not cuMemAlloc's */
    EXPECT(cuMemRelease(0), CUDA_ERROR_INVALID_VALUE);
    NOTE("double release, double free, cuMemFree of VMM memory: CUDA_ERROR_INVALID_VALUE");
    OK(cuCtxDestroy(c));
}

/* The wrong context: handles of one context used while another is current. */
/* cuMemMap/cuMemUnmap/cuMemSetAccess/cuMemRetainAllocationHandle against the state they meet, as
 * NVIDIA answers (tests/cuda/probe's vmmstate_* sections, docs/cuda.md "VMM answers by state").
 * The first two parts are the regressions of issue 16: a map over two mappings answered by
 * whichever mapping was made last, and an unmap whose start is not granule-aligned checked
 * [start rounded down, +size) against the reservations instead of its own start. */
static uint32_t word_at(CUdeviceptr p)
{
    uint32_t w = 0;
    return cuMemcpyDtoH(&w, p, 4) == CUDA_SUCCESS ? w : 0xbadbad;
}

static void t_vmm_state(void)
{
    init();
    CUcontext c = new_ctx();
    CUmemAllocationProp prop = dev_prop(0);
    CUmemAccessDesc rw = access_desc(CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    size_t free0 = free_mem();
    CUdeviceptr r, r2, x;
    CUmemGenericAllocationHandle a, a4, b, cc;
    MUST(cuMemCreate(&a, 2 * G, &prop, 0));
    MUST(cuMemCreate(&a4, 4 * G, &prop, 0));
    MUST(cuMemCreate(&b, 2 * G, &prop, 0));
    MUST(cuMemCreate(&cc, 2 * G, &prop, 0));
    size_t free1 = free_mem();

    /* 1. Over two mappings (B at +2G, C at +4G, in either order): the whole of A from +3G is
     *    INVALID_VALUE, the first half of A4 NOT_SUPPORTED, whichever mapping came last. */
    for (int order = 0; order < 2; order++) {
        MUST(cuMemAddressReserve(&r, 8 * G, 0, 0, 0));
        MUST(cuMemMap(order ? r + 4 * G : r + 2 * G, 2 * G, 0, order ? cc : b, 0));
        MUST(cuMemMap(order ? r + 2 * G : r + 4 * G, 2 * G, 0, order ? b : cc, 0));
        EXPECT(cuMemMap(r + 3 * G, 2 * G, 0, a, 0), CUDA_ERROR_INVALID_VALUE);
        EXPECT(cuMemMap(r + 3 * G, 2 * G, 0, a4, 0), CUDA_ERROR_NOT_SUPPORTED);
        EXPECT(cuMemMap(r + 5 * G, 2 * G, 0, a, 0), CUDA_ERROR_INVALID_VALUE);   /* starting inside C */
        CHECK(get_access(r + 3 * G) == 0 && get_access(r + 6 * G) == 0xbad);
        OK(cuMemUnmap(r, 8 * G));
        OK(cuMemAddressFree(r, 8 * G));
    }
    NOTE("a map over two mappings: INVALID_VALUE (whole allocation) / NOT_SUPPORTED (part), either order");

    /* 2. Unmap: only its start must lie in a reservation; mappings inside go, a mapping partly
     *    inside refuses the call. */
    MUST(cuMemAddressReserve(&r, 4 * G, 0, 0, 0));
    MUST(cuMemMap(r + 2 * G, 2 * G, 0, a, 0));
    MUST(cuMemSetAccess(r + 2 * G, 2 * G, &rw, 1));
    OK(cuMemsetD32(r + 2 * G, 0x51515151, 16));
    EXPECT(cuMemUnmap(r + 2 * G + 4096, 2 * G), CUDA_ERROR_INVALID_VALUE);  /* part of A, past the end */
    CHECK(word_at(r + 2 * G) == 0x51515151);
    OK(cuMemUnmap(r + G + 4096, G - 4096)); /* up to A's start: nothing inside */
    CHECK(word_at(r + 2 * G) == 0x51515151);
    OK(cuMemUnmap(r + 4096, 5 * G));      /* A inside, the range runs on past the reservation */
    CHECK(get_access(r + 2 * G) == 0xbad);
    OK(cuMemUnmap(r + 3 * G + 4096, 2 * G)); /* nothing there, past the end: still fine */
    EXPECT(cuMemUnmap(r + 4 * G, G), CUDA_ERROR_INVALID_VALUE);  /* starting past the end */
    EXPECT(cuMemUnmap(r - G, 2 * G), CUDA_ERROR_INVALID_VALUE);  /* starting before it */
    NOTE("unmap: the start (any byte) in a reservation; the range may run past it");

    /* 3. Only whole allocations are mapped: part of A4 -> NOT_SUPPORTED, nothing mapped. */
    EXPECT(cuMemMap(r, 2 * G, 0, a4, 0), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuMemMap(r, 2 * G, 2 * G, a4, 0), CUDA_ERROR_NOT_SUPPORTED);
    CHECK(get_access(r) == 0xbad && free_mem() == free1);
    EXPECT(cuMemMap(r + 4096, 2 * G, 0, a, 0), CUDA_ERROR_INVALID_VALUE);   /* whole, misaligned */
    EXPECT(cuMemMap(r + 4096, G, 0, a, 0), CUDA_ERROR_NOT_SUPPORTED);       /* part, misaligned */

    /* 4. A handle released while mapped is still mapped elsewhere (the same memory). */
    MUST(cuMemAddressReserve(&r2, 2 * G, 0, 0, 0));
    MUST(cuMemMap(r2, 2 * G, 0, b, 0));
    MUST(cuMemSetAccess(r2, 2 * G, &rw, 1));
    OK(cuMemsetD32(r2 + G, 0x7e7e7e7e, 4));
    OK(cuMemRelease(b));
    EXPECT(cuMemRelease(b), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemMap(r, 2 * G, 0, b, 0));
    OK(cuMemSetAccess(r, 2 * G, &rw, 1));
    CHECK(word_at(r + G) == 0x7e7e7e7e);
    OK(cuMemUnmap(r2, 2 * G));
    CHECK(word_at(r + G) == 0x7e7e7e7e);
    OK(cuMemUnmap(r, 2 * G));
    EXPECT(cuMemMap(r, 2 * G, 0, b, 0), CUDA_ERROR_NOT_SUPPORTED);  /* released and unmapped: gone */
    OK(cuMemAddressFree(r2, 2 * G));
    NOTE("a released handle maps again while any mapping keeps it; NOT_SUPPORTED once it is gone");

    /* 5. cuMemSetAccess: from a mapping's start to a mapping's end; at a gap it stops, and the
     *    mappings after the gap keep their access (the call succeeds). */
    MUST(cuMemMap(r, 2 * G, 0, a, 0));
    MUST(cuMemMap(r + 2 * G, 2 * G, 0, cc, 0));
    OK(cuMemSetAccess(r, 4 * G, &rw, 1));  /* back to back: both */
    CHECK(get_access(r) == 3 && get_access(r + 3 * G) == 3);
    OK(cuMemUnmap(r, 4 * G));
    MUST(cuMemAddressReserve(&r2, 8 * G, 0, 0, 0));
    MUST(cuMemMap(r2, 2 * G, 0, cc, 0));
    MUST(cuMemMap(r2 + 4 * G, 2 * G, 0, a, 0));
    OK(cuMemSetAccess(r2, 6 * G, &rw, 1));
    CHECK(get_access(r2) == 3 && get_access(r2 + G) == 3 && get_access(r2 + 4 * G) == 0);
    EXPECT(cuMemSetAccess(r2, 5 * G, &rw, 1), CUDA_ERROR_INVALID_VALUE);  /* ends inside A */
    EXPECT(cuMemSetAccess(r2, 3 * G, &rw, 1), CUDA_ERROR_INVALID_VALUE);  /* ends in the gap */
    EXPECT(cuMemSetAccess(r2 + G, 5 * G, &rw, 1), CUDA_ERROR_INVALID_VALUE);  /* starts inside C */
    CHECK(get_access(r2 + 4 * G) == 0);
    OK(cuMemUnmap(r2, 8 * G));
    OK(cuMemAddressFree(r2, 8 * G));
    NOTE("setaccess over C, a gap and A: C read-write, A keeps no access, SUCCESS");

    /* 6. Past the end of a reservation: the start must lie in one; the rest is mapped and held
     *    for the mapping (a reservation asked for there lands elsewhere until the unmap). */
    OK(cuMemMap(r + 3 * G, 2 * G, 0, a, 0));
    OK(cuMemSetAccess(r + 3 * G, 2 * G, &rw, 1));
    CHECK(get_access(r + 4 * G + 100) == 3);
    OK(cuMemsetD32(r + 4 * G - 8, 0x0e0e0e0e, 4));
    CHECK(word_at(r + 4 * G + 4) == 0x0e0e0e0e);
    CUmemGenericAllocationHandle hr = 0;
    EXPECT(cuMemRetainAllocationHandle(&hr, (void *)(uintptr_t)(r + 4 * G)), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemRetainAllocationHandle(&hr, (void *)(uintptr_t)(r + 3 * G)));
    CHECK(hr == a);
    OK(cuMemRelease(hr));
    x = 0;
    OK(cuMemAddressReserve(&x, G, 0, r + 4 * G, 0));
    CHECK(x != r + 4 * G);
    OK(cuMemAddressFree(x, G));
    EXPECT(cuMemUnmap(r + 4 * G, G), CUDA_ERROR_INVALID_VALUE);         /* starts past the end */
    EXPECT(cuMemUnmap(r + 3 * G, G), CUDA_ERROR_INVALID_VALUE);         /* half of it */
    EXPECT(cuMemAddressFree(r, 4 * G), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemMap(r + 4 * G, 2 * G, 0, cc, 0), CUDA_ERROR_INVALID_VALUE);  /* starts outside */
    OK(cuMemUnmap(r + 3 * G, 2 * G));
    OK(cuMemAddressReserve(&x, G, 0, r + 4 * G, 0));
    CHECK(x == r + 4 * G);  /* the VA past the end is free again */
    OK(cuMemAddressFree(x, G));
    NOTE("a mapping past its reservation's end: mapped, accessible, its part past the end held until the unmap");

    OK(cuMemAddressFree(r, 4 * G));
    OK(cuMemRelease(a));
    OK(cuMemRelease(a4));
    OK(cuMemRelease(cc));
    CHECK(free_mem() == free0);
    NOTE("every handle released, every reservation freed: free memory back to %zu", free0);
    OK(cuCtxDestroy(c));
}

static void t_wrong_context(void)
{
    init();
    CUcontext a = new_ctx();
    CUmodule mod;
    MUST(cuModuleLoadData(&mod, VMGPU_BUILTIN_IMAGE));
    CUfunction fill = get_fn(mod, VMGPU_BUILTIN_FILL_I32);
    CUstream sa;
    CUevent ea;
    OK(cuStreamCreate(&sa, 0));
    OK(cuEventCreate(&ea, 0));
    CUdeviceptr pa;
    OK(cuMemAlloc(&pa, 4096));
    CUcontext b = new_ctx();  /* now current */
    CUevent eb;
    OK(cuEventCreate(&eb, 0));
    EXPECT(cuEventRecord(eb, sa), CUDA_ERROR_INVALID_HANDLE);  /* event of b, stream of a */
    EXPECT(launch(fill, pa, 0, 0, 16, 7, NULL), CUDA_ERROR_INVALID_HANDLE); /* function of a's module */
    /* Unified addressing: a's memory is usable from b. */
    OK(cuMemsetD32(pa, 0x77, 16));
    uint32_t w = 0;
    OK(cuMemcpyDtoH(&w, pa + 60, 4));
    CHECK(w == 0x77);
    /* a's stream works while b is current (it belongs to a). */
    OK(cuMemsetD32Async(pa, 0x99, 1, sa));
    OK(cuStreamSynchronize(sa));
    OK(cuMemcpyDtoH(&w, pa, 4));
    CHECK(w == 0x99);
    /* Destroyed context: its handles are errors, not crashes. */
    OK(cuCtxDestroy(a));
    EXPECT(cuStreamSynchronize(sa), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventQuery(ea), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuModuleGetFunction(&fill, mod, VMGPU_BUILTIN_FILL_I32), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuCtxPushCurrent(a), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    EXPECT(cuCtxDestroy(a), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    EXPECT(cuMemcpyDtoH(&w, pa, 4), CUDA_ERROR_INVALID_VALUE);  /* freed with its context */
    NOTE("event/stream and function/context mismatches -> CUDA_ERROR_INVALID_HANDLE; memory shared across "
         "contexts; a destroyed context's handles -> errors");
    OK(cuCtxDestroy(b));
}

static void t_bad_handles(void)
{
    init();
    CUcontext c = new_ctx();
    CUstream bs = (CUstream)(uintptr_t)0x12345678;
    CUevent be = (CUevent)(uintptr_t)0x1000;
    CUmodule bm = (CUmodule)(uintptr_t)&c;
    CUfunction bf = (CUfunction)(uintptr_t)8;
    CUcontext bc = (CUcontext)(uintptr_t)0x999;
    EXPECT(cuStreamSynchronize(bs), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuStreamQuery(bs), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuStreamDestroy(bs), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventRecord(be, NULL), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventSynchronize(be), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuEventDestroy(be), CUDA_ERROR_INVALID_HANDLE);
    float ms;
    EXPECT(cuEventElapsedTime(&ms, be, be), CUDA_ERROR_INVALID_HANDLE);
    CUfunction f;
    EXPECT(cuModuleGetFunction(&f, bm, "x"), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuModuleUnload(bm), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(launch(bf, 0, 0, 0, 1, 0, NULL), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuCtxPushCurrent(bc), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuCtxSetCurrent(bc), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuCtxDestroy(bc), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT(cuCtxPushCurrent(NULL), CUDA_ERROR_INVALID_VALUE);
    CUstream s;
    OK(cuStreamCreate(&s, 0));
    OK(cuStreamDestroy(s));
    EXPECT(cuStreamDestroy(s), CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuMemsetD8Async(0x20000000u, 1, 1, s), CUDA_ERROR_INVALID_HANDLE);
    CUevent e;
    OK(cuEventCreate(&e, 0));
    OK(cuEventDestroy(e));
    EXPECT(cuEventQuery(e), CUDA_ERROR_INVALID_HANDLE);
    CUmodule m;
    EXPECT(cuModuleLoadData(&m, "not a module"), CUDA_ERROR_INVALID_IMAGE);
    EXPECT(cuModuleLoadData(&m, NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuModuleLoadData(&m, VMGPU_BUILTIN_IMAGE));
    EXPECT(cuModuleGetFunction(&f, m, "vmgpu_mul_i32"), CUDA_ERROR_NOT_FOUND);
    OK(cuModuleUnload(m));
    EXPECT(cuModuleUnload(m), CUDA_ERROR_INVALID_HANDLE);
    /* The context stack. */
    CUcontext cur;
    OK(cuCtxPopCurrent(&cur));
    CHECK(cur == c);
    EXPECT(cuCtxPopCurrent(&cur), CUDA_ERROR_INVALID_CONTEXT);
    OK(cuCtxGetCurrent(&cur));
    CHECK(cur == NULL);
    OK(cuCtxPushCurrent(c));
    CUcontext p1;
    CUcontext p2;
    OK(cuDevicePrimaryCtxRetain(&p1, 0));
    OK(cuDevicePrimaryCtxRetain(&p2, 0));
    CHECK(p1 == p2 && p1 != c);
    unsigned fl;
    int active;
    OK(cuDevicePrimaryCtxGetState(0, &fl, &active));
    CHECK(active == 1);
    OK(cuCtxPushCurrent(p1));
    CUdeviceptr x;
    OK(cuMemAlloc(&x, 10));
    EXPECT(cuCtxDestroy(p1), CUDA_ERROR_INVALID_CONTEXT);  /* the primary context is released, not destroyed */
    OK(cuCtxPopCurrent(NULL));
    OK(cuDevicePrimaryCtxRelease(0));
    OK(cuDevicePrimaryCtxRelease(0));
    EXPECT(cuDevicePrimaryCtxRelease(0), CUDA_ERROR_INVALID_CONTEXT);
    OK(cuDevicePrimaryCtxGetState(0, &fl, &active));
    CHECK(active == 0);
    EXPECT(cuCtxPushCurrent(p1), CUDA_ERROR_CONTEXT_IS_DESTROYED);
    OK(cuDevicePrimaryCtxRetain(&p1, 0));
    OK(cuDevicePrimaryCtxReset(0));
    OK(cuDevicePrimaryCtxGetState(0, &fl, &active));
    CHECK(active == 0);
    NOTE("bogus and destroyed handles of every kind -> errors (no crash); context stack and primary context "
         "reference counting");
    OK(cuCtxDestroy(c));
}

static void t_alloc_family(void)
{
    init();
    CUcontext c = new_ctx();
    size_t f0, t0;
    OK(cuMemGetInfo(&f0, &t0));
    CHECK(f0 <= t0 && f0 > 0);
    CUdeviceptr p, q, base;
    OK(cuMemAlloc(&p, 1000));
    OK(cuMemAlloc(&q, 3 * G + 5));
    CHECK(p != q && p % 256 == 0 && q % 256 == 0 && p >= 0x10000 && q >= 0x10000);
    size_t f1, t1, sz;
    OK(cuMemGetInfo(&f1, &t1));
    CHECK(t1 == t0 && f1 == f0 - G - 4 * G);
    OK(cuMemGetAddressRange(&base, &sz, q + 1000));
    CHECK(base == q && sz == 3 * G + 5);
    OK(cuMemGetAddressRange(NULL, &sz, p));
    CHECK(sz == 1000);
    EXPECT(cuMemGetAddressRange(&base, &sz, 0x7fff0000u), CUDA_ERROR_NOT_FOUND);
    unsigned mt = 0;
    OK(cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, q + 8));
    CHECK(mt == CU_MEMORYTYPE_DEVICE);
    CUcontext pc = NULL;
    OK(cuPointerGetAttribute(&pc, CU_POINTER_ATTRIBUTE_CONTEXT, q));
    CHECK(pc == c);
    CUdeviceptr dp = 0;
    OK(cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, q + 8));
    CHECK(dp == q + 8);
    OK(cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, q + 8));
    CHECK(dp == q);
    OK(cuPointerGetAttribute(&sz, CU_POINTER_ATTRIBUTE_RANGE_SIZE, q + 8));
    CHECK(sz == 3 * G + 5);
    int mapped = 0;
    OK(cuPointerGetAttribute(&mapped, CU_POINTER_ATTRIBUTE_MAPPED, q));
    CHECK(mapped == 1);
    void *hp;
    EXPECT(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, q), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, 0x7fff0000u), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAlloc(&p, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAlloc(NULL, 16), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemAlloc(&base, (size_t)1 << 40), CUDA_ERROR_OUT_OF_MEMORY);
    OK(cuMemGetInfo(NULL, &t1));  /* NULL outputs skipped, as NVIDIA (measured) */
    OK(cuMemGetInfo(&f1, &t1));
    CHECK(f1 == f0 - 5 * G);
    /* Data through the whole allocation. */
    uint8_t *src = malloc(3 * G + 5), *dst = malloc(3 * G + 5);
    for (size_t i = 0; i < 3 * G + 5; i++) src[i] = (uint8_t)(i * 13 + (i >> 9));
    OK(cuMemcpyHtoD(q, src, 3 * G + 5));
    OK(cuMemcpyDtoH(dst, q, 3 * G + 5));
    CHECK(memcmp(src, dst, 3 * G + 5) == 0);
    OK(cuMemFree(p));
    OK(cuMemFree(q));
    OK(cuMemGetInfo(&f1, &t1));
    CHECK(f1 == f0);
    NOTE("cuMemAlloc 1000 + 196613 bytes: granule-rounded (%u KiB), address range, pointer attributes, "
         "data round trip, free memory restored by cuMemFree", 5 * G / 1024);
    free(src); free(dst);
    OK(cuCtxDestroy(c));
}

/* Pinned host memory is read and written by the device in place. */
static void t_host_zero_copy(void)
{
    init();
    CUcontext c = new_ctx();
    CUmodule mod;
    MUST(cuModuleLoadData(&mod, VMGPU_BUILTIN_IMAGE));
    const int n = 5000;
    int32_t *h;
    OK(cuMemAllocHost((void **)&h, n * 4));
    CUdeviceptr dh;
    OK(cuMemHostGetDevicePointer(&dh, h, 0));
    for (int i = 0; i < n; i++) h[i] = i * 3;  /* plain host stores */
    CUdeviceptr d;
    OK(cuMemAlloc(&d, n * 4));
    /* The device reads the host memory in place (no copy): scale into device memory. */
    OK(launch(get_fn(mod, VMGPU_BUILTIN_SCALE_I32), d, dh, 0, n, 5, NULL));
    OK(cuCtxSynchronize());
    int32_t *chk = malloc(n * 4);
    OK(cuMemcpyDtoH(chk, d, n * 4));
    int ok = 1;
    for (int i = 0; i < n; i++)
        if (chk[i] != i * 15) ok = 0;
    CHECK(ok);
    /* ... and writes it in place: the host sees it without any copy call. */
    OK(launch(get_fn(mod, VMGPU_BUILTIN_FILL_I32), dh + 400, 0, 0, 100, -42, NULL));
    OK(cuCtxSynchronize());
    int ok2 = h[99] == 297 && h[100] == -42 && h[199] == -42 && h[200] == 600;
    CHECK(ok2);
    NOTE("cuMemAllocHost: kernel read host stores in place (%s), kernel fill visible through the host "
         "pointer (%s)", ok ? "yes" : "NO", ok2 ? "yes" : "NO");
    unsigned mt;
    OK(cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)(h + 4)));
    CHECK(mt == CU_MEMORYTYPE_HOST);
    void *hp = NULL;
    OK(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, dh + 16));
    CHECK(hp == (void *)(h + 4));
    CUdeviceptr dp;
    OK(cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, (CUdeviceptr)(uintptr_t)(h + 4)));
    CHECK(dp == dh + 16);
    /* Registered ordinary memory, not page aligned. */
    uint8_t *raw = malloc(3 * 4096 + 100);
    int32_t *r = (int32_t *)(raw + 52);
    for (int i = 0; i < 1000; i++) r[i] = -i;
    OK(cuMemHostRegister(r, 4000, CU_MEMHOSTREGISTER_DEVICEMAP));
    EXPECT(cuMemHostRegister(r + 10, 16, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    CUdeviceptr dr;
    OK(cuMemHostGetDevicePointer(&dr, r, 0));
    OK(launch(get_fn(mod, VMGPU_BUILTIN_COPY_I32), d, dr, 0, 1000, 0, NULL));
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(chk, d, 4000));
    int ok3 = 1;
    for (int i = 0; i < 1000; i++)
        if (chk[i] != -i) ok3 = 0;
    CHECK(ok3);
    NOTE("cuMemHostRegister of malloc'd memory at offset 52: the device read it in place: %s", ok3 ? "yes" : "NO");
    EXPECT(cuMemHostGetDevicePointer(&dr, raw + 8000, 0), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemHostGetDevicePointer(&dr, r, 1), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemHostUnregister(r));
    EXPECT(cuMemHostUnregister(r), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    EXPECT(cuMemFreeHost(r), CUDA_ERROR_INVALID_VALUE);
    void *h2;
    OK(cuMemHostAlloc(&h2, 100, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
    unsigned fl = 0;
    OK(cuMemHostGetFlags(&fl, h2));
    CHECK(fl & CU_MEMHOSTALLOC_DEVICEMAP);
    EXPECT(cuMemHostAlloc(&h2, 100, 0x100), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemFreeHost(h2));
    OK(cuMemFreeHost(h));
    EXPECT(cuMemFreeHost(h), CUDA_ERROR_INVALID_VALUE);
    free(raw);
    free(chk);
    OK(cuCtxDestroy(c));
}

/* Copies and fills in every form: sync/async, pinned/pageable, odd offsets and sizes. */
static void t_memcpy_memset(void)
{
    init();
    CUcontext c = new_ctx();
    const size_t N = 600 * 1024 + 13;  /* more than the 256 KiB staging buffer */
    CUdeviceptr a, b;
    OK(cuMemAlloc(&a, N + 64));
    OK(cuMemAlloc(&b, N + 64));
    uint8_t *src = malloc(N), *dst = malloc(N + 2);
    uint8_t *pin, *pin2;
    OK(cuMemAllocHost((void **)&pin, N));
    OK(cuMemAllocHost((void **)&pin2, N));
    for (size_t i = 0; i < N; i++) src[i] = pin[i] = (uint8_t)(i * 7 + (i >> 11));
    CUstream s;
    OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    struct { const char *what; int ok; } r[8];
    int k = 0;
    /* pageable sync, odd offsets */
    OK(cuMemcpyHtoD(a + 3, src, N));
    memset(dst, 0xee, N + 2);
    OK(cuMemcpyDtoH(dst + 1, a + 3, N));
    r[k].what = "HtoD/DtoH pageable (staged), offsets 3/1";
    r[k++].ok = !memcmp(dst + 1, src, N) && dst[0] == 0xee && dst[N + 1] == 0xee;
    /* DtoD sync */
    OK(cuMemcpyDtoD(b + 1, a + 3, N));
    OK(cuMemcpyDtoH(dst, b + 1, N));
    r[k].what = "DtoD";
    r[k++].ok = !memcmp(dst, src, N);
    /* pinned async on a stream */
    OK(cuMemsetD8(a, 0, N));
    OK(cuMemcpyHtoDAsync(a, pin, N, s));
    OK(cuMemcpyDtoDAsync(b, a, N, s));
    memset(pin2, 0, N);
    OK(cuMemcpyDtoHAsync(pin2, b, N, s));
    OK(cuStreamSynchronize(s));
    r[k].what = "HtoD/DtoD/DtoH async, pinned, one stream";
    r[k++].ok = !memcmp(pin2, src, N);
    /* pageable async (staged, so complete on return) */
    memset(dst, 0, N);
    OK(cuMemcpyHtoDAsync(b, src, 1000, NULL));
    OK(cuMemcpyDtoHAsync(dst, b, 1000, NULL));
    OK(cuStreamSynchronize(NULL));
    r[k].what = "async with pageable memory on the NULL stream";
    r[k++].ok = !memcmp(dst, src, 1000);
    /* memsets */
    uint8_t ref[4096];
    memset(ref, 0x11, sizeof ref);
    OK(cuMemsetD8(a, 0x11, 4096));
    OK(cuMemsetD8(a + 1, 0xab, 1001));
    memset(ref + 1, 0xab, 1001);
    OK(cuMemsetD16(a + 1100, 0xbeef, 300));
    for (int i = 0; i < 300; i++) { ref[1100 + 2 * i] = 0xef; ref[1101 + 2 * i] = 0xbe; }
    OK(cuMemsetD32(a + 2000, 0x12345678, 200));
    for (int i = 0; i < 200; i++) memcpy(ref + 2000 + 4 * i, &(uint32_t){0x12345678}, 4);
    OK(cuMemsetD8Async(a + 2900, 0x42, 10, s));
    OK(cuMemsetD16Async(a + 2920, 0x4243, 10, s));
    OK(cuMemsetD32Async(a + 2960, 0xcafef00d, 10, s));
    memset(ref + 2900, 0x42, 10);
    for (int i = 0; i < 10; i++) { ref[2920 + 2 * i] = 0x43; ref[2921 + 2 * i] = 0x42; }
    for (int i = 0; i < 10; i++) memcpy(ref + 2960 + 4 * i, &(uint32_t){0xcafef00d}, 4);
    OK(cuStreamSynchronize(s));
    OK(cuMemcpyDtoH(dst, a, 4096));
    r[k].what = "memset D8/D16/D32 and their Async forms";
    r[k++].ok = !memcmp(dst, ref, 4096);
    /* cuMemcpy (unified) */
    OK(cuMemcpy(b, (CUdeviceptr)(uintptr_t)src, 512));
    OK(cuMemcpy((CUdeviceptr)(uintptr_t)dst, b, 512));
    r[k].what = "cuMemcpy with host and device addresses";
    r[k++].ok = !memcmp(dst, src, 512);
    for (int i = 0; i < k; i++) {
        CHECK(r[i].ok);
        NOTE("%-45s %s", r[i].what, r[i].ok ? "data correct" : "DATA WRONG");
    }
    /* argument errors, nothing written */
    EXPECT(cuMemsetD16(a + 1, 1, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemsetD32(a + 2, 1, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemsetD8(0x7fff0000u, 1, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyHtoD(a, NULL, 4), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemcpyHtoD(a + N, src, 65 + G), CUDA_ERROR_INVALID_VALUE);  /* runs past the allocation */
    EXPECT(cuMemcpyDtoD(a, 0x7fff0000u, 4), CUDA_ERROR_INVALID_VALUE);
    OK(cuMemcpyHtoD(a, src, 0));
    OK(cuMemcpyDtoH(dst, a, 4096));
    CHECK(!memcmp(dst, ref, 4096));
    OK(cuStreamDestroy(s));
    OK(cuMemFreeHost(pin));
    OK(cuMemFreeHost(pin2));
    free(src); free(dst);
    OK(cuCtxDestroy(c));
}

static void t_streams_events(void)
{
    init();
    CUcontext c = new_ctx();
    CUstream s1, s2;
    OK(cuStreamCreate(&s1, 0));
    OK(cuStreamCreate(&s2, 0));
    EXPECT(cuStreamCreate(&s2, 8), CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr a, b;
    OK(cuMemAlloc(&a, 4 * G));
    OK(cuMemAlloc(&b, 4 * G));
    CUevent e0, e1, e2, en, et;
    OK(cuEventCreate(&e0, 0));
    OK(cuEventCreate(&e1, 0));
    OK(cuEventCreate(&e2, CU_EVENT_BLOCKING_SYNC));
    OK(cuEventCreate(&en, CU_EVENT_DISABLE_TIMING));
    OK(cuEventCreate(&et, 0));
    EXPECT(cuEventCreate(&et, 0x40), CUDA_ERROR_INVALID_VALUE);
    OK(cuEventQuery(e0));  /* never recorded */
    float ms = -1;
    EXPECT(cuEventElapsedTime(&ms, e0, e1), CUDA_ERROR_INVALID_HANDLE);
    OK(cuEventRecord(e0, s1));
    OK(cuMemsetD32Async(a, 0x01020304, 1024, s1));
    OK(cuEventRecord(e1, s1));
    OK(cuMemsetD32Async(a, 0x05060708, G, s1));
    OK(cuEventRecord(e2, s1));
    OK(cuEventRecord(en, s1));
    /* s2 waits for s1's big fill before copying it. */
    OK(cuStreamWaitEvent(s2, e2, 0));
    OK(cuMemcpyDtoDAsync(b, a, 4 * G, s2));
    int polls = 0;
    CUresult q;
    while ((q = cuStreamQuery(s2)) == CUDA_ERROR_NOT_READY && polls < 100000) polls++;
    CHECK(q == CUDA_SUCCESS);
    OK(cuEventSynchronize(e2));
    OK(cuEventQuery(e2));
    uint32_t w[2] = {0, 0};
    OK(cuMemcpyDtoH(&w[0], b, 4));
    OK(cuMemcpyDtoH(&w[1], b + 4 * G - 4, 4));
    CHECK(w[0] == 0x05060708 && w[1] == 0x05060708);
    float small = 0, large = 0;
    OK(cuEventElapsedTime(&small, e0, e1));
    OK(cuEventElapsedTime(&large, e1, e2));
    CHECK(small > 0 && large > small * 16);
    /* 256 KiB at no more than 4 bytes per cycle at 50 MHz: at least 1.3 ms */
    CHECK(large >= 4.0f * G / 4 / 50e6f * 1e3f * 0.99f);
    EXPECT(cuEventElapsedTime(&ms, e1, en), CUDA_ERROR_INVALID_HANDLE);  /* timing disabled */
    EXPECT(cuEventElapsedTime(NULL, e0, e1), CUDA_ERROR_INVALID_HANDLE);  /* NVIDIA's answer */
    OK(cuEventElapsedTime(&ms, e1, e0));
    CHECK(ms < 0);
    NOTE("events: 4 KiB fill %.4f ms, 256 KiB fill %.4f ms (50 MHz nominal clock); stream 2 waited for "
         "stream 1's fill (copy saw it); %d NOT_READY polls of cuStreamQuery", small, large, polls);
    OK(cuStreamSynchronize(NULL));
    OK(cuStreamSynchronize(CU_STREAM_LEGACY));
    OK(cuStreamSynchronize(CU_STREAM_PER_THREAD));
    OK(cuStreamQuery(s1));
    unsigned fl = 9;
    OK(cuStreamGetFlags(s1, &fl));
    CHECK(fl == 0);
    OK(cuEventDestroy(e0));
    OK(cuEventDestroy(e1));
    OK(cuEventDestroy(e2));
    OK(cuEventDestroy(en));
    OK(cuEventDestroy(et));
    OK(cuStreamDestroy(s1));
    OK(cuStreamDestroy(s2));
    OK(cuCtxDestroy(c));
}

static void t_kernels(void)
{
    init();
    CUcontext c = new_ctx();
    CUmodule mod;
    OK(cuModuleLoadDataEx(&mod, VMGPU_BUILTIN_IMAGE, 0, NULL, NULL));
    const int n = 3000;
    CUdeviceptr A, B, D;
    OK(cuMemAlloc(&A, n * 4));
    OK(cuMemAlloc(&B, n * 4));
    OK(cuMemAlloc(&D, n * 4));
    int32_t *a = malloc(n * 4), *b = malloc(n * 4), *d = malloc(n * 4), *ref = malloc(n * 4);
    for (int i = 0; i < n; i++) {
        a[i] = (int32_t)pat((uint32_t)i, 11);
        b[i] = (int32_t)pat((uint32_t)i, 22);
    }
    OK(cuMemcpyHtoD(A, a, n * 4));
    OK(cuMemcpyHtoD(B, b, n * 4));
    const char *names[6] = {VMGPU_BUILTIN_FILL_I32, VMGPU_BUILTIN_COPY_I32, VMGPU_BUILTIN_ADD_I32,
                            VMGPU_BUILTIN_SCALE_I32, VMGPU_BUILTIN_AXPY_I32, VMGPU_BUILTIN_REDUCE_SUM_I32};
    const int k = -7;
    for (int f = 0; f < 6; f++) {
        uint32_t sum = 0;
        for (int i = 0; i < n; i++) {
            uint32_t ua = (uint32_t)a[i], ub = (uint32_t)b[i], uk = (uint32_t)k;
            uint32_t v = f == 0 ? uk : f == 1 ? ua : f == 2 ? ua + ub : f == 3 ? uk * ua : uk * ua + ub;
            ref[i] = (int32_t)v;
            sum += ua;
        }
        int cmp = n;
        if (f == 5) { ref[0] = (int32_t)sum; cmp = 1; }
        OK(cuMemsetD32(D, 0, n));
        OK(launch(get_fn(mod, names[f]), D, A, B, n, k, NULL));
        OK(cuCtxSynchronize());
        OK(cuMemcpyDtoH(d, D, n * 4));
        int ok = !memcmp(d, ref, (size_t)cmp * 4);
        CHECK(ok);
        NOTE("%-22s n=%d scalar=%d vs C: %s", names[f], n, k, ok ? "match" : "DIFFER");
    }
    /* launch geometry and parameters */
    CUfunction fill = get_fn(mod, VMGPU_BUILTIN_FILL_I32);
    CUdeviceptr dst = D, z = 0;
    int nn = 1000, sc = 5;
    void *args[5] = {&dst, &z, &z, &nn, &sc};
    OK(cuMemsetD32(D, 0, n));
    EXPECT(cuLaunchKernel(fill, 3, 1, 1, 256, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE); /* 768 < 1000 */
    EXPECT(cuLaunchKernel(fill, 1, 1, 1, 2048, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(fill, 0, 1, 1, 256, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(fill, 4, 1, 1, 256, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuLaunchKernel(fill, 4, 1, 1, 256, 1, 1, 0, NULL, args, args), CUDA_ERROR_INVALID_VALUE);
    dst = D + 2;
    EXPECT(cuLaunchKernel(fill, 4, 1, 1, 256, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
    dst = D;
    nn = -1;
    EXPECT(cuLaunchKernel(fill, 4, 1, 1, 256, 1, 1, 0, NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(d, D, 4));
    CHECK(d[0] == 0);  /* nothing ran */
    nn = 1000;
    OK(cuLaunchKernel(fill, 2, 2, 1, 16, 8, 2, 0, NULL, args, NULL));  /* 4 blocks x 256 threads */
    OK(cuCtxSynchronize());
    OK(cuMemcpyDtoH(d, D, n * 4));
    CHECK(d[0] == 5 && d[999] == 5 && d[1000] == 0);
    NOTE("grid x block must cover n; 2-D/3-D shapes count; bad shapes, misaligned and NULL params rejected "
         "with nothing run");
    OK(cuModuleUnload(mod));
    free(a); free(b); free(d); free(ref);
    OK(cuCtxDestroy(c));
}

/* A kernel fault in one context: sticky there, the other context's concurrent work completes. */
static void t_fault_isolation(void)
{
    init();
    CUcontext ca = new_ctx(), cb = new_ctx();  /* cb current; separate rings */
    CUmodule mb;
    MUST(cuModuleLoadData(&mb, VMGPU_BUILTIN_IMAGE));
    const size_t big = 4 * G;
    CUdeviceptr b1, b2;
    OK(cuMemAlloc(&b1, big));
    OK(cuMemAlloc(&b2, big));
    uint32_t *src = malloc(big), *dst = malloc(big);
    for (size_t i = 0; i < big / 4; i++) src[i] = pat((uint32_t)i, 99);
    OK(cuMemcpyHtoD(b1, src, big));
    CUstream sb;
    OK(cuStreamCreate(&sb, 0));
    for (int i = 0; i < 3; i++) {
        OK(cuMemcpyDtoDAsync(b2, b1, big, sb));
        OK(cuMemcpyDtoDAsync(b1, b2, big, sb));
    }
    /* Context A: a read-only VMM mapping, written by a kernel. */
    OK(cuCtxPushCurrent(ca));
    CUmodule ma;
    MUST(cuModuleLoadData(&ma, VMGPU_BUILTIN_IMAGE));
    CUmemAllocationProp prop = dev_prop(0);
    CUmemGenericAllocationHandle h;
    CUdeviceptr v;
    OK(cuMemCreate(&h, G, &prop, 0));
    OK(cuMemAddressReserve(&v, G, 0, 0, 0));
    OK(cuMemMap(v, G, 0, h, 0));
    CUmemAccessDesc ro = access_desc(CU_MEM_ACCESS_FLAGS_PROT_READ);
    OK(cuMemSetAccess(v, G, &ro, 1));
    OK(launch(get_fn(ma, VMGPU_BUILTIN_FILL_I32), v, 0, 0, 1024, 1, NULL));
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
    CUdeviceptr x;
    EXPECT(cuMemAlloc(&x, 16), CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT(cuMemcpyHtoD(b1, src, 4), CUDA_ERROR_ILLEGAL_ADDRESS);
    EXPECT(launch(get_fn(mb, VMGPU_BUILTIN_FILL_I32), b1, 0, 0, 4, 1, NULL), CUDA_ERROR_ILLEGAL_ADDRESS);
    CUstream sx;
    EXPECT(cuStreamCreate(&sx, 0), CUDA_ERROR_ILLEGAL_ADDRESS);
    NOTE("context A: kernel write to a read-only mapping -> CUDA_ERROR_ILLEGAL_ADDRESS, then every call "
         "needing A returns it (sticky)");
    OK(cuCtxPopCurrent(NULL));
    /* Context B: its six copies complete with the right data. */
    OK(cuStreamSynchronize(sb));
    OK(cuMemcpyDtoH(dst, b2, big));
    int ok = !memcmp(src, dst, big);
    CHECK(ok);
    OK(cuMemsetD8(b2, 0, 16));
    NOTE("context B: 6 x 256 KiB copies queued before A's fault completed, data %s; B keeps working",
         ok ? "correct" : "WRONG");
    /* A's VMM memory is process-wide; B may unmap and release it; A is destroyed. */
    OK(cuMemUnmap(v, G));
    OK(cuMemRelease(h));
    OK(cuMemAddressFree(v, G));
    OK(cuCtxDestroy(ca));
    OK(cuCtxSynchronize());
    OK(cuStreamDestroy(sb));
    free(src); free(dst);
    OK(cuCtxDestroy(cb));
}

static void t_not_initialized(void)
{
    CUcontext c;
    CUdeviceptr p;
    CUmemGenericAllocationHandle h;
    CUmemAllocationProp prop = dev_prop(0);
    EXPECT(cuCtxCreate(&c, NULL, 0, 0), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuMemAlloc(&p, 1), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuMemCreate(&h, G, &prop, 0), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuMemAddressReserve(&p, G, 0, 0, 0), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuStreamSynchronize(NULL), CUDA_ERROR_NOT_INITIALIZED);
    EXPECT(cuCtxGetCurrent(&c), CUDA_ERROR_NOT_INITIALIZED);
    int v;
    OK(cuDriverGetVersion(&v));
    NOTE("before cuInit: CUDA_ERROR_NOT_INITIALIZED everywhere but cuDriverGetVersion/cuGetError*");
}

/* VMGPU_DEVICE=bogus (set by ctest): cuInit fails with CUDA_ERROR_NO_DEVICE and says why. */
static void t_bad_device(void)
{
    EXPECT(cuInit(0), CUDA_ERROR_NO_DEVICE);
    EXPECT(cuInit(0), CUDA_ERROR_NO_DEVICE);
    int n;
    EXPECT(cuDeviceGetCount(&n), CUDA_ERROR_NO_DEVICE);
    NOTE("cuInit with VMGPU_DEVICE=%s -> CUDA_ERROR_NO_DEVICE (message on stderr)", getenv("VMGPU_DEVICE"));
}

static const struct { const char *name; void (*fn)(void); } cases[] = {
    {"basics", t_basics},
    {"vmm_walkthrough", t_vmm_walkthrough},
    {"vmm_rules", t_vmm_rules},
    {"vmm_state", t_vmm_state},
    {"wrong_context", t_wrong_context},
    {"bad_handles", t_bad_handles},
    {"alloc_family", t_alloc_family},
    {"host_zero_copy", t_host_zero_copy},
    {"memcpy_memset", t_memcpy_memset},
    {"streams_events", t_streams_events},
    {"kernels", t_kernels},
    {"fault_isolation", t_fault_isolation},
    {"not_initialized", t_not_initialized},
    {"bad_device", t_bad_device},
};

int main(int argc, char **argv)
{
    unsigned n = sizeof cases / sizeof cases[0];
    if (argc != 2) {
        printf("usage: %s <case>\n", argv[0]);
        for (unsigned i = 0; i < n; i++) printf("  %s\n", cases[i].name);
        return 2;
    }
    for (unsigned i = 0; i < n; i++) {
        if (strcmp(argv[1], cases[i].name) != 0) continue;
        printf("cuda test %s\n", cases[i].name);
        cases[i].fn();
        printf("%s: %d checks, %s\n", cases[i].name, checks, fails ? "FAILED" : "passed");
        return fails ? 1 : 0;
    }
    printf("unknown case %s\n", argv[1]);
    return 2;
}
