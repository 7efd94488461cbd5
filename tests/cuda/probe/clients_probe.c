/*
 * The calls NVIDIA's own clients need beyond the memory-mapping family (issue 11): peers, stream
 * and context queries, cuModuleLoad / LoadFatBinary / LoadDataEx, the occupancy calculator and
 * cuPointerGetAttributes. One line "case ANSWER" per case, like cuda_probe.c, run against
 * NVIDIA's driver (record_nvidia.py, answers in nvidia_clients_*.txt) and against vmgpu's
 * (compare.py, ctest cuda_clients_vs_nvidia). A value line (two blanks first) tells something
 * about the case above it that must be the same on both drivers when they behave alike.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>

#include "probe_skip.h"

static int last_skipped;
static const char *rcname(CUresult rc)
{
    const char *n = NULL;
    cuGetErrorName(rc, &n);
    return n ? n : "?";
}
#define P(name, call) ({ CUresult r_ = (CUresult)-1; last_skipped = skipped(name); \
    if (last_skipped) printf("%-52s SKIPPED\n", name); \
    else { printf("%-52s ", name); fflush(stdout); r_ = (call); printf("%s\n", rcname(r_)); } r_; })
#define V(name, ...) do { if (last_skipped) printf("%-52s SKIPPED\n", name); else { \
    printf("%-52s ", name); printf(__VA_ARGS__); printf("\n"); } } while (0)
#define YN(name, cond) V(name, "%s", (cond) ? "yes" : "no")

static CUdevice dev;

static CUresult new_ctx(CUcontext *c)
{
#if CUDA_VERSION >= 13000
    return cuCtxCreate(c, NULL, 0, dev);
#else
    return cuCtxCreate(c, 0, dev);
#endif
}

static CUcontext setup(void)
{
    CUcontext c;
    if (cuInit(0) || cuDeviceGet(&dev, 0) || new_ctx(&c)) {
        printf("no device\n");
        exit(1);
    }
    return c;
}

/* vmgpu's built-in module, or on NVIDIA the same function in PTX. */
static const char ptx_fill[] =
    ".version 7.8\n.target sm_75\n.address_size 64\n"
    ".visible .entry vmgpu_fill_i32(.param .u64 p_dst, .param .u64 p_a, .param .u64 p_b,\n"
    "    .param .u32 p_n, .param .u32 p_s)\n"
    "{\n .reg .pred %p<2>;\n .reg .b32 %r<8>;\n .reg .b64 %rd<6>;\n"
    " ld.param.u64 %rd1, [p_dst];\n ld.param.u32 %r1, [p_n];\n ld.param.u32 %r2, [p_s];\n"
    " mov.u32 %r3, %ctaid.x;\n mov.u32 %r4, %ntid.x;\n mov.u32 %r5, %tid.x;\n"
    " mad.lo.s32 %r6, %r3, %r4, %r5;\n setp.ge.s32 %p1, %r6, %r1;\n @%p1 bra FILL_DONE;\n"
    " cvta.to.global.u64 %rd2, %rd1;\n mul.wide.s32 %rd3, %r6, 4;\n add.s64 %rd4, %rd2, %rd3;\n"
    " st.global.u32 [%rd4], %r2;\nFILL_DONE:\n ret;\n}\n";

static CUfunction fill_function(void)
{
    CUmodule m;
    CUfunction f = NULL;
    if (cuModuleLoadData(&m, "vmgpu-builtin-v1") && cuModuleLoadData(&m, ptx_fill)) return NULL;
    cuModuleGetFunction(&f, m, "vmgpu_fill_i32");
    return f;
}

static size_t no_smem(int block) { (void)block; return 0; }
static size_t big_smem(int block) { return (size_t)block * 64; }

static void s_peers(void)
{
    CUcontext c = setup(), other, dead;
    int v = 7;
    P("canaccesspeer NULL out", cuDeviceCanAccessPeer(NULL, dev, dev));
    P("canaccesspeer self", cuDeviceCanAccessPeer(&v, dev, dev));
    V("  canaccesspeer self value", "%d", v);
    P("canaccesspeer peer -1", cuDeviceCanAccessPeer(&v, dev, -1));
    P("canaccesspeer dev 1000", cuDeviceCanAccessPeer(&v, 1000, dev));
    new_ctx(&other);
    cuCtxPopCurrent(NULL);   /* other off the stack: c current */
    new_ctx(&dead);
    cuCtxDestroy(dead);
    cuCtxSetCurrent(c);
    P("enablepeer NULL", cuCtxEnablePeerAccess(NULL, 0));
    P("enablepeer own context", cuCtxEnablePeerAccess(c, 0));
    P("enablepeer other context same device", cuCtxEnablePeerAccess(other, 0));
    P("enablepeer other context flags 1", cuCtxEnablePeerAccess(other, 1));
    P("enablepeer destroyed context", cuCtxEnablePeerAccess(dead, 0));
    P("disablepeer NULL", cuCtxDisablePeerAccess(NULL));
    P("disablepeer own context", cuCtxDisablePeerAccess(c));
    P("disablepeer other context", cuCtxDisablePeerAccess(other));
    P("disablepeer destroyed context", cuCtxDisablePeerAccess(dead));
    cuCtxSetCurrent(NULL);
    P("enablepeer no current context", cuCtxEnablePeerAccess(other, 0));
    P("disablepeer no current context", cuCtxDisablePeerAccess(other));
    cuCtxSetCurrent(c);
    cuCtxDestroy(other);
}

static void s_ctxquery(void)
{
    CUcontext c = setup(), other, dead;
    int least = 99, greatest = 99;
    P("priorityrange both NULL", cuCtxGetStreamPriorityRange(NULL, NULL));
    P("priorityrange least only", cuCtxGetStreamPriorityRange(&least, NULL));
    P("priorityrange both", cuCtxGetStreamPriorityRange(&least, &greatest));
    YN("  priorityrange greatest <= least", greatest <= least);
    unsigned long long id1 = 0, id2 = 0, id3 = 0;
    P("ctxgetid NULL ctx (current)", cuCtxGetId(NULL, &id1));
    P("ctxgetid current by handle", cuCtxGetId(c, &id2));
    YN("  ctxgetid same id both ways", id1 == id2);
    P("ctxgetid NULL out", cuCtxGetId(c, NULL));
    new_ctx(&other);
    P("ctxgetid other context", cuCtxGetId(other, &id3));
    YN("  ctxgetid ids differ", id3 != id1);
    cuCtxPopCurrent(NULL);
    new_ctx(&dead);
    cuCtxDestroy(dead);
    cuCtxSetCurrent(c);
    P("ctxgetid destroyed context", cuCtxGetId(dead, &id3));
    cuCtxSetCurrent(NULL);
    P("priorityrange no current context", cuCtxGetStreamPriorityRange(&least, &greatest));
    P("ctxgetid NULL ctx no current context", cuCtxGetId(NULL, &id1));
    cuCtxSetCurrent(c);
    cuCtxDestroy(other);
}

static void s_streamquery(void)
{
    CUcontext c = setup(), other, got = NULL, green_dummy = NULL;
    CUstream s, s2, dead, os;
    CUgreenCtx green = (CUgreenCtx)0x1;
    (void)green_dummy;
    cuStreamCreate(&s, 0);
    cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING);
    cuStreamCreate(&dead, 0);
    cuStreamDestroy(dead);
    P("streamgetctx NULL stream", cuStreamGetCtx(NULL, &got));
    YN("  streamgetctx NULL stream is current", got == c);
    got = NULL;
    P("streamgetctx created stream", cuStreamGetCtx(s, &got));
    YN("  streamgetctx created stream is current", got == c);
    P("streamgetctx legacy", cuStreamGetCtx(CU_STREAM_LEGACY, &got));
    P("streamgetctx per-thread", cuStreamGetCtx(CU_STREAM_PER_THREAD, &got));
    P("streamgetctx NULL out", cuStreamGetCtx(s, NULL));
    P("streamgetctx destroyed stream", cuStreamGetCtx(dead, &got));
    P("streamgetctx_v2 created stream", cuStreamGetCtx_v2(s, &got, &green));
    YN("  streamgetctx_v2 green is NULL", green == NULL);
    YN("  streamgetctx_v2 ctx is current", got == c);
    P("streamgetctx_v2 NULL green out", cuStreamGetCtx_v2(s, &got, NULL));
    P("streamgetctx_v2 NULL ctx out", cuStreamGetCtx_v2(s, NULL, &green));
    new_ctx(&other);
    cuStreamCreate(&os, 0);
    cuCtxSetCurrent(c);
    P("streamgetctx stream of other context", cuStreamGetCtx(os, &got));
    YN("  streamgetctx names the other context", got == other);
    unsigned long long a = 0, b = 0, l = 0, t = 0;
    P("streamgetid created", cuStreamGetId(s, &a));
    P("streamgetid second", cuStreamGetId(s2, &b));
    YN("  streamgetid ids differ", a != b);
    P("streamgetid NULL stream", cuStreamGetId(NULL, &l));
    P("streamgetid legacy", cuStreamGetId(CU_STREAM_LEGACY, &l));
    P("streamgetid per-thread", cuStreamGetId(CU_STREAM_PER_THREAD, &t));
    YN("  streamgetid legacy and per-thread differ", l != t);
    P("streamgetid NULL out", cuStreamGetId(s, NULL));
    P("streamgetid destroyed", cuStreamGetId(dead, &a));
    CUdevice d = -5;
    P("streamgetdevice created", cuStreamGetDevice(s, &d));
    YN("  streamgetdevice is the device", d == dev);
    P("streamgetdevice NULL stream", cuStreamGetDevice(NULL, &d));
    P("streamgetdevice NULL out", cuStreamGetDevice(s, NULL));
    P("streamgetdevice destroyed", cuStreamGetDevice(dead, &d));
    int least = 0, greatest = 0, pr = 99;
    cuCtxGetStreamPriorityRange(&least, &greatest);
    CUstream sp;
    P("streamcreatewithpriority greatest-1", cuStreamCreateWithPriority(&sp, 0, greatest - 1));
    P("streamgetpriority clamped", cuStreamGetPriority(sp, &pr));
    YN("  streamgetpriority clamped to greatest", pr == greatest);
    P("streamcreatewithpriority least+1", cuStreamCreateWithPriority(&sp, 0, least + 1));
    P("streamgetpriority clamped to least", cuStreamGetPriority(sp, &pr));
    YN("  streamgetpriority equals least", pr == least);
    P("streamgetpriority NULL stream", cuStreamGetPriority(NULL, &pr));
    V("  streamgetpriority NULL stream value is 0", "%s", pr == 0 ? "yes" : "no");
    P("streamgetpriority NULL out", cuStreamGetPriority(s, NULL));
    P("streamgetpriority destroyed", cuStreamGetPriority(dead, &pr));
    CUstreamCaptureStatus cs = (CUstreamCaptureStatus)7;
    P("iscapturing created stream", cuStreamIsCapturing(s, &cs));
    YN("  iscapturing says none", cs == CU_STREAM_CAPTURE_STATUS_NONE);
    P("iscapturing NULL stream", cuStreamIsCapturing(NULL, &cs));
    P("iscapturing NULL out", cuStreamIsCapturing(s, NULL));
    P("iscapturing destroyed", cuStreamIsCapturing(dead, &cs));
    cuCtxSetCurrent(NULL);
    P("streamgetctx NULL stream no context", cuStreamGetCtx(NULL, &got));
    P("streamgetid created no context", cuStreamGetId(s, &a));
    cuCtxSetCurrent(c);
    cuCtxDestroy(other);
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, n, f);
        fclose(f);
    }
}

static void s_moduleload(void)
{
    setup();
    CUmodule m;
    char dir[] = "/tmp/clients_probe_XXXXXX";
    if (!mkdtemp(dir)) return;
    char garbage[256], empty[256], fat[256], missing[256];
    snprintf(garbage, sizeof garbage, "%s/garbage.bin", dir);
    snprintf(empty, sizeof empty, "%s/empty.bin", dir);
    snprintf(fat, sizeof fat, "%s/fat.bin", dir);
    snprintf(missing, sizeof missing, "%s/missing.ptx", dir);
    write_file(garbage, "this is not a module\n", 21);
    write_file(empty, "", 0);
    /* A fat binary header (magic, version 1, header size 16, no payload). */
    uint32_t fathdr[4] = {0xba55ed50u, 0x00100001u, 0, 0};
    write_file(fat, fathdr, sizeof fathdr);
    P("moduleload NULL module", cuModuleLoad(NULL, garbage));
    P("moduleload NULL name", cuModuleLoad(&m, NULL));
    P("moduleload missing file", cuModuleLoad(&m, missing));
    P("moduleload directory", cuModuleLoad(&m, dir));
    P("moduleload empty file", cuModuleLoad(&m, empty));
    P("moduleload garbage file", cuModuleLoad(&m, garbage));
    P("moduleload fatbin without code", cuModuleLoad(&m, fat));
    P("moduleloadfatbinary NULL module", cuModuleLoadFatBinary(NULL, fathdr));
    P("moduleloadfatbinary NULL image", cuModuleLoadFatBinary(&m, NULL));
    P("moduleloadfatbinary garbage", cuModuleLoadFatBinary(&m, "this is not a module"));
    P("moduleloadfatbinary without code", cuModuleLoadFatBinary(&m, fathdr));
    CUjit_option opt[1] = {CU_JIT_MAX_REGISTERS};
    void *val[1] = {(void *)(uintptr_t)32};
    P("moduleloaddataex options NULL with count", cuModuleLoadDataEx(&m, "x", 1, NULL, val));
    P("moduleloaddataex values NULL with count", cuModuleLoadDataEx(&m, "x", 1, opt, NULL));
    P("moduleloaddataex garbage", cuModuleLoadDataEx(&m, "this is not a module", 0, NULL, NULL));
    CUcontext c;
    cuCtxPopCurrent(&c);
    P("moduleload no context", cuModuleLoad(&m, garbage));
    cuCtxPushCurrent(c);
    unlink(garbage);
    unlink(empty);
    unlink(fat);
    rmdir(dir);
}

static void s_occupancy(void)
{
    setup();
    CUfunction f = fill_function();
    int n = -1, minGrid = -1, block = -1;
    YN("  occupancy function loaded", f != NULL);
    P("occupancy block 64", cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 64, 0));
    YN("  occupancy block 64 at least one block", n >= 1);
    P("occupancy NULL out", cuOccupancyMaxActiveBlocksPerMultiprocessor(NULL, f, 64, 0));
    P("occupancy NULL function", cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, NULL, 64, 0));
    P("occupancy bogus function", cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, (CUfunction)&n, 64, 0));
    n = -1;
    P("occupancy block 0", cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 0, 0));
    V("  occupancy block 0 value", "%d", n);
    n = -1;
    P("occupancy block -1", cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, -1, 0));
    n = -1;
    P("occupancy block 1025", cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 1025, 0));
    V("  occupancy block 1025 value", "%d", n);
    n = -1;
    P("occupancy smem 1 GiB", cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 64, (size_t)1 << 30));
    V("  occupancy smem 1 GiB value", "%d", n);
    P("occupancy flags 1", cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, 64, 0, 1));
    P("occupancy flags 2", cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f, 64, 0, 2));
    P("potential blocksize", cuOccupancyMaxPotentialBlockSize(&minGrid, &block, f, NULL, 0, 0));
    YN("  potential blocksize multiple of 32", block > 0 && block % 32 == 0);
    YN("  potential min grid positive", minGrid > 0);
    P("potential blocksize callback", cuOccupancyMaxPotentialBlockSize(&minGrid, &block, f, no_smem, 0, 0));
    P("potential blocksize big smem callback", cuOccupancyMaxPotentialBlockSize(&minGrid, &block, f, big_smem, 0, 0));
    P("potential blocksize limit 100", cuOccupancyMaxPotentialBlockSize(&minGrid, &block, f, NULL, 0, 100));
    YN("  potential blocksize within limit", block > 0 && block <= 100);
    P("potential blocksize limit -1", cuOccupancyMaxPotentialBlockSize(&minGrid, &block, f, NULL, 0, -1));
    P("potential blocksize NULL min grid", cuOccupancyMaxPotentialBlockSize(NULL, &block, f, NULL, 0, 0));
    P("potential blocksize NULL block", cuOccupancyMaxPotentialBlockSize(&minGrid, NULL, f, NULL, 0, 0));
    P("potential blocksize NULL function", cuOccupancyMaxPotentialBlockSize(&minGrid, &block, NULL, NULL, 0, 0));
}

static void s_ptrattrs(void)
{
    setup();
    CUdeviceptr d = 0;
    cuMemAlloc(&d, 1 << 16);
    CUpointer_attribute at[3] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                 CU_POINTER_ATTRIBUTE_IS_MANAGED};
    unsigned int mt = 77;
    int ord = 77, managed = 77;
    void *data[3] = {&mt, &ord, &managed};
    P("ptrattrs device memory", cuPointerGetAttributes(3, at, data, d));
    YN("  ptrattrs device memory type device", mt == CU_MEMORYTYPE_DEVICE);
    YN("  ptrattrs device ordinal is the device", ord == dev);
    YN("  ptrattrs device not managed", managed == 0);
    int local = 0;
    mt = 77; ord = 77; managed = 77;
    P("ptrattrs unknown host pointer", cuPointerGetAttributes(3, at, data, (CUdeviceptr)(uintptr_t)&local));
    V("  ptrattrs unknown memory type", "%u", mt);
    V("  ptrattrs unknown device ordinal", "%d", ord);
    V("  ptrattrs unknown managed", "%d", managed);
    void *hp = (void *)0x1;
    CUpointer_attribute hat[1] = {CU_POINTER_ATTRIBUTE_HOST_POINTER};
    void *hdata[1] = {&hp};
    P("ptrattrs host pointer of device memory", cuPointerGetAttributes(1, hat, hdata, d));
    YN("  ptrattrs host pointer is NULL", hp == NULL);
    P("ptrattrs count 0", cuPointerGetAttributes(0, at, data, d));
    P("ptrattrs NULL attributes", cuPointerGetAttributes(3, NULL, data, d));
    P("ptrattrs NULL data", cuPointerGetAttributes(3, at, NULL, d));
    void *hole[3] = {&mt, NULL, &managed};
    P("ptrattrs one data NULL", cuPointerGetAttributes(3, at, hole, d));
    CUpointer_attribute bogus[1] = {(CUpointer_attribute)999};
    P("ptrattrs bogus attribute", cuPointerGetAttributes(1, bogus, data, d));
    cuMemFree(d);
}

static const struct { const char *name; void (*fn)(void); } sections[] = {
    {"peers", s_peers}, {"ctxquery", s_ctxquery}, {"streamquery", s_streamquery},
    {"moduleload", s_moduleload}, {"occupancy", s_occupancy}, {"ptrattrs", s_ptrattrs},
};
#define NSECT (sizeof sections / sizeof sections[0])

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < NSECT; i++) printf("%s\n", sections[i].name);
        return 0;
    }
    for (size_t i = 0; i < NSECT; i++)
        if (argc < 2 || strcmp(argv[1], sections[i].name) == 0) {
            if (argc < 2) printf("# section %s\n", sections[i].name);
            sections[i].fn();
            if (argc > 1) return 0;
        }
    return argc > 1 ? 2 : 0;
}
