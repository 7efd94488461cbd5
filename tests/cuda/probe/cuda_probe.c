/*
 * Return-code probe: one line "case CUDA_ERROR_..." per case, the same program against NVIDIA's
 * libcuda (on a GPU machine) and vmgpu's, so that the answers can be compared. Uses the driver's
 * own granularity, so it is valid on both. Cases that crash NVIDIA's driver are not here.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cuda.h"

static const char *rcname(CUresult rc)
{
    const char *n = NULL;
    cuGetErrorName(rc, &n);
    return n ? n : "?";
}
#define P(name, call) printf("%-40s %s\n", name, rcname(call))

int main(void)
{
    CUdevice dev;
    CUcontext c, c2;
    setvbuf(stdout, NULL, _IONBF, 0);
    if (cuInit(0) || cuDeviceGet(&dev, 0) || cuCtxCreate(&c, 0, dev)) { printf("no device\n"); return 1; }
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    size_t g = 0;
    cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    printf("%-40s %zu\n", "granularity", g);
    CUmemAccessDesc rw, ro, bad;
    memset(&rw, 0, sizeof rw);
    rw.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    ro = rw; ro.flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
    bad = rw; bad.flags = (CUmemAccess_flags)2;
    CUdeviceptr va, x;
    CUmemGenericAllocationHandle h, h1, hx;
    cuMemAddressReserve(&va, 8 * g, 0, 0, 0);
    cuMemCreate(&h, 2 * g, &prop, 0);
    cuMemCreate(&h1, g, &prop, 0);
    cuMemMap(va, g, 0, h1, 0);
    cuMemSetAccess(va, g, &rw, 1);
    CUdeviceptr sp = va + g;
    P("reserve size g+1", cuMemAddressReserve(&x, g + 1, 0, 0, 0));
    P("reserve size 0", cuMemAddressReserve(&x, 0, 0, 0, 0));
    P("reserve flags 1", cuMemAddressReserve(&x, g, 0, 0, 1));
    P("reserve alignment 3g", cuMemAddressReserve(&x, g, 3 * g, 0, 0));
    P("create size g/2", cuMemCreate(&hx, g / 2, &prop, 0));
    P("create flags 1", cuMemCreate(&hx, g, &prop, 1));
    P("create prop NULL", cuMemCreate(&hx, g, NULL, 0));
    P("create 1 TiB", cuMemCreate(&hx, (size_t)1 << 40, &prop, 0));
    P("map ptr +4096", cuMemMap(sp + 4096, g, 0, h, 0));
    P("map size g+4096", cuMemMap(sp, g + 4096, 0, h, 0));
    P("map offset 4096", cuMemMap(sp, g, 4096, h, 0));
    P("map offset g", cuMemMap(sp, g, g, h, 0));
    if (cuMemUnmap(sp, g) == CUDA_SUCCESS) printf("%-40s %s\n", "  (offset g mapped; unmapped again)", "");
    P("map flags 1", cuMemMap(sp, g, 0, h, 1));
    P("map size 0", cuMemMap(sp, 0, 0, h, 0));
    P("map size > allocation", cuMemMap(sp, 4 * g, 0, h, 0));
    P("map over a mapping", cuMemMap(va, g, 0, h, 0));
    P("map past reservation", cuMemMap(va + 7 * g, 2 * g, 0, h, 0));
    P("map outside reservations", cuMemMap(va + 64 * g, g, 0, h, 0));
    P("setaccess unmapped", cuMemSetAccess(sp, g, &rw, 1));
    P("setaccess flags 2", cuMemSetAccess(va, g, &bad, 1));
    P("setaccess desc NULL", cuMemSetAccess(va, g, NULL, 1));
    P("setaccess count 0", cuMemSetAccess(va, g, &rw, 0));
    P("setaccess ptr +4096", cuMemSetAccess(va + 4096, g, &rw, 1));
    CUmemAccessDesc d1 = rw; d1.location.id = 1;
    P("setaccess device 1", cuMemSetAccess(va, g, &d1, 1));
    unsigned long long fl = 99;
    CUmemLocation loc = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
    P("getaccess unmapped", cuMemGetAccess(&fl, &loc, sp));
    P("getaccess flags NULL", cuMemGetAccess(NULL, &loc, va));
    cuMemMap(sp, 2 * g, 0, h, 0);
    fl = 99;
    P("getaccess before setaccess", cuMemGetAccess(&fl, &loc, sp));
    printf("%-40s %llu\n", "  value", fl);
    P("unmap half a mapping", cuMemUnmap(sp, g));
    P("unmap second half", cuMemUnmap(sp + g, g));
    P("unmap past the mapping", cuMemUnmap(sp, 3 * g));
    P("unmap ptr +4096", cuMemUnmap(sp + 4096, g));
    P("unmap never mapped", cuMemUnmap(va + 5 * g, g));
    P("unmap whole", cuMemUnmap(sp, 2 * g));
    P("unmap repeated", cuMemUnmap(sp, 2 * g));
    P("addressfree while mapped", cuMemAddressFree(va, 8 * g));
    P("addressfree wrong size", cuMemAddressFree(va, 4 * g));
    P("addressfree inner ptr", cuMemAddressFree(va + g, 7 * g));
    P("retain unmapped address", cuMemRetainAllocationHandle(&hx, (void *)(uintptr_t)(va + 6 * g)));
    P("import fd 0", cuMemImportFromShareableHandle(&hx, (void *)(uintptr_t)0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    int fd = -1;
    P("export win32", cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_WIN32, 0));
    P("export fd flags 1", cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1));
    P("release", cuMemRelease(h));
    P("release again", cuMemRelease(h));
    P("release 0", cuMemRelease(0));
    P("map released handle", cuMemMap(sp, g, 0, h, 0));
    CUdeviceptr p;
    cuMemAlloc(&p, 100);
    P("memfree", cuMemFree(p));
    P("memfree again", cuMemFree(p));
    P("memfree VMM memory", cuMemFree(va));
    P("memfree 0", cuMemFree(0));
    P("memalloc 0", cuMemAlloc(&p, 0));
    P("memalloc 1 TiB", cuMemAlloc(&p, (size_t)1 << 40));
    CUdeviceptr base; size_t sz;
    P("getaddressrange unknown", cuMemGetAddressRange(&base, &sz, 0x7fff0000u));
    unsigned mt;
    P("pointerattr unknown", cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, 0x7fff0000u));
    P("pointerattr VMM memtype", cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, va));
    CUcontext pc = (CUcontext)1;
    P("pointerattr VMM context", cuPointerGetAttribute(&pc, CU_POINTER_ATTRIBUTE_CONTEXT, va));
    printf("%-40s %s\n", "  context is NULL", pc == NULL ? "yes" : "no");
    cuMemAlloc(&p, 4096);
    void *hp;
    P("pointerattr hostptr of device mem", cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, p));
    P("memsetD16 misaligned", cuMemsetD16(p + 1, 1, 4));
    P("memsetD32 misaligned", cuMemsetD32(p + 2, 1, 4));
    P("memcpyHtoD NULL src", cuMemcpyHtoD(p, NULL, 4));
    P("memcpyHtoD 0 bytes", cuMemcpyHtoD(p, &fl, 0));
    P("memcpyDtoH bad device ptr", cuMemcpyDtoH(&fl, 0x7fff0000u, 4));
    static char page[3 * 4096] __attribute__((aligned(4096)));
    P("hostregister", cuMemHostRegister(page + 52, 4000, 0));
    P("hostregister overlap", cuMemHostRegister(page + 100, 16, 0));
    P("hostunregister", cuMemHostUnregister(page + 52));
    P("hostunregister again", cuMemHostUnregister(page + 52));
    P("memfreehost non-pinned", cuMemFreeHost(page));
    CUdeviceptr dp;
    P("hostgetdeviceptr unregistered", cuMemHostGetDevicePointer(&dp, page, 0));
    CUmodule m;
    P("moduleloaddata garbage", cuModuleLoadData(&m, "not a module"));
    P("moduleloaddata NULL", cuModuleLoadData(&m, NULL));
    CUevent e0, e1, ev_n;
    cuEventCreate(&e0, 0); cuEventCreate(&e1, 0); cuEventCreate(&ev_n, CU_EVENT_DISABLE_TIMING);
    float ms;
    P("eventquery unrecorded", cuEventQuery(e0));
    P("elapsed unrecorded", cuEventElapsedTime(&ms, e0, e1));
    cuEventRecord(e0, NULL); cuEventRecord(e1, NULL); cuEventRecord(ev_n, NULL);
    cuEventSynchronize(ev_n);
    P("elapsed disable-timing", cuEventElapsedTime(&ms, e0, ev_n));
    P("elapsed NULL ms", cuEventElapsedTime(NULL, e0, e1));
    P("eventcreate flags 0x40", cuEventCreate(&ev_n, 0x40));
    CUstream s;
    P("streamcreate flags 8", cuStreamCreate(&s, 8));
    cuStreamCreate(&s, 0);
    cuCtxCreate(&c2, 0, dev);
    CUevent eb;
    cuEventCreate(&eb, 0);
    P("eventrecord other ctx's stream", cuEventRecord(eb, s));
    cuCtxPopCurrent(NULL);
    CUcontext pr;
    P("primary release unretained", cuDevicePrimaryCtxRelease(dev));
    cuDevicePrimaryCtxRetain(&pr, dev);
    P("ctxdestroy primary", cuCtxDestroy(pr));
    cuDevicePrimaryCtxRelease(dev);
    P("ctxpushcurrent NULL", cuCtxPushCurrent(NULL));
    /* faults last: read-only then write, in c2 */
    cuCtxPushCurrent(c2);
    cuMemSetAccess(va, g, &ro, 1);
    CUdeviceptr tmp;
    cuMemAlloc(&tmp, 64);
    P("dtod write to read-only", cuMemcpyDtoD(va, tmp, 4));
    P("  then synchronize", cuCtxSynchronize());
    P("  then memalloc", cuMemAlloc(&x, 64));
    cuCtxPopCurrent(NULL);
    P("other context synchronize", cuCtxSynchronize());
    (void)fd;
    return 0;
}
