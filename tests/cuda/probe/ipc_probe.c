/*
 * Two-process probe of cross-process sharing (issue 14): cuMemExportToShareableHandle with
 * POSIX file descriptors sent to a second process over a Unix socket (SCM_RIGHTS), imported and
 * mapped there, read and written both ways, the exporter releasing first, re-imports, bad
 * descriptors; and (where the header has them) the legacy cuIpc* calls. One line "case ANSWER"
 * per case in cuda_probe.c's format, so record_nvidia.py records NVIDIA's answers
 * (nvidia_ipc_*.txt, record_ipc_nvidia.sh) and compare.py compares vmgpu's with them.
 *
 *   ipc_probe --list          the sections, one a line
 *   ipc_probe SECTION         run one section (it starts its second process itself)
 *   ipc_probe child SECTION FD   (internal) the second process of SECTION, socket FD
 *
 * The second process is this program started again (fork + exec: a CUDA process does not
 * fork). Its lines start with "child:"; the two processes take turns over the socket so the
 * lines come in one order. Sizes are the driver's granularity times two: value lines tell only
 * what must be the same on both drivers (yes/no about data and handles).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
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
    if (last_skipped) printf("%-56s SKIPPED\n", name); \
    else { printf("%-56s ", name); fflush(stdout); r_ = (call); printf("%s\n", rcname(r_)); } \
    fflush(stdout); r_; })
#define V(name, ...) do { if (last_skipped) printf("%-56s SKIPPED\n", name); else { \
    printf("%-56s ", name); printf(__VA_ARGS__); printf("\n"); } fflush(stdout); } while (0)
#define YN(name, cond) V(name, "%s", (cond) ? "yes" : "no")

static CUdevice dev;
static size_t gran;
static const CUmemAllocationHandleType FD = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;

static void setup(void)
{
    CUcontext c;
#if CUDA_VERSION >= 13000
    CUresult rc = cuInit(0) ? CUDA_ERROR_UNKNOWN : cuDeviceGet(&dev, 0) ? CUDA_ERROR_UNKNOWN
                  : cuCtxCreate(&c, NULL, 0, 0);
#else
    CUresult rc = cuInit(0) ? CUDA_ERROR_UNKNOWN : cuDeviceGet(&dev, 0) ? CUDA_ERROR_UNKNOWN
                  : cuCtxCreate(&c, 0, 0);
#endif
    if (rc) {
        printf("no device\n");
        exit(1);
    }
    CUmemAllocationProp p = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
                             .location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0},
                             .requestedHandleTypes = FD};
    cuMemGetAllocationGranularity(&gran, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
}

static CUmemAllocationProp prop(CUmemAllocationHandleType types)
{
    CUmemAllocationProp p = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
                             .location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0},
                             .requestedHandleTypes = types};
    return p;
}

/* Reserve, map and open [va, va+size) for read and write; 0 on success. */
static CUresult map_rw(CUmemGenericAllocationHandle h, size_t size, CUdeviceptr *va)
{
    CUresult rc = cuMemAddressReserve(va, size, 0, 0, 0);
    if (!rc) rc = cuMemMap(*va, size, 0, h, 0);
    CUmemAccessDesc acc = {.location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0},
                           .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    if (!rc) rc = cuMemSetAccess(*va, size, &acc, 1);
    return rc;
}

static void unmap_free(CUdeviceptr va, size_t size)
{
    cuMemUnmap(va, size);
    cuMemAddressFree(va, size);
}

static int words_are(CUdeviceptr va, uint32_t v, size_t n)
{
    uint32_t buf[256];
    if (n > 256) n = 256;
    if (cuMemcpyDtoH(buf, va, n * 4)) return 0;
    for (size_t i = 0; i < n; i++)
        if (buf[i] != v) return 0;
    return 1;
}

/* ------------------------------------------------------------ the socket */

static void send_fd(int s, int fd, char tag)
{
    struct iovec iov = {&tag, 1};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } cm;
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    if (fd >= 0) {
        memset(&cm, 0, sizeof cm);
        mh.msg_control = cm.buf;
        mh.msg_controllen = sizeof cm.buf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    if (sendmsg(s, &mh, 0) != 1) _exit(90);
}

/* Waits for the next message; returns its tag, *fd the descriptor that came with it or -1. */
static char recv_fd(int s, int *fd)
{
    char tag = 0;
    struct iovec iov = {&tag, 1};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } cm;
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.buf,
                        .msg_controllen = sizeof cm.buf};
    if (fd) *fd = -1;
    if (recvmsg(s, &mh, 0) != 1) _exit(91);
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    if (c && c->cmsg_type == SCM_RIGHTS && fd) memcpy(fd, CMSG_DATA(c), sizeof *fd);
    return tag;
}

static __attribute__((unused)) void send_bytes(int s, const void *p, size_t n)
{
    if (write(s, p, n) != (ssize_t)n) _exit(92);
}

static __attribute__((unused)) void recv_bytes(int s, void *p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(s, (char *)p + got, n - got);
        if (k <= 0) _exit(93);
        got += (size_t)k;
    }
}

/* Start this program again as the second process of section sec; returns its socket. */
static int start_child(const char *sec, pid_t *pid)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) exit(2);
    char fds[16], self[64];
    snprintf(fds, sizeof fds, "%d", sv[1]);
    snprintf(self, sizeof self, "/proc/%d/exe", (int)getpid());
    fflush(stdout);
    *pid = fork();
    if (*pid == 0) {
        close(sv[0]);
        execl(self, self, "child", sec, fds, (char *)NULL);
        _exit(127);
    }
    close(sv[1]);
    return sv[0];
}

static void end_child(int s, pid_t pid)
{
    int st = 0;
    close(s);
    waitpid(pid, &st, 0);
    V("  child exit", "%d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* ------------------------------------------------- section vmm_ipc: the main flow */

static void s_vmm_ipc(void)
{
    setup();
    size_t size = 2 * gran;
    CUmemAllocationProp p = prop(FD);
    CUmemGenericAllocationHandle h = 0;
    CUdeviceptr va = 0;
    int fd = -1;
    if (P("create exportable", cuMemCreate(&h, size, &p, 0))) return;
    P("map in the exporter", map_rw(h, size, &va));
    cuMemsetD32(va, 0x11111111, size / 4);
    cuCtxSynchronize();
    P("export", cuMemExportToShareableHandle(&fd, h, FD, 0));
    YN("  a descriptor", fd >= 0 && fcntl(fd, F_GETFD) != -1);
    pid_t pid;
    int s = start_child("vmm_ipc", &pid);
    send_fd(s, fd, 'F');
    recv_fd(s, NULL);  /* the child imported, read, wrote the second granule */
    YN("parent sees the child's write", words_are(va + gran, 0x22222222, 64));
    YN("parent's first granule unchanged", words_are(va, 0x11111111, 64));
    P("parent: unmap", cuMemUnmap(va, size));
    cuMemAddressFree(va, size);
    P("parent: release (exporter first)", cuMemRelease(h));
    close(fd);
    send_fd(s, -1, 'R');
    recv_fd(s, NULL);
    end_child(s, pid);
}

static void c_vmm_ipc(int s)
{
    setup();
    size_t size = 2 * gran;
    int fd;
    recv_fd(s, &fd);
    YN("child: received a descriptor", fd >= 0);
    CUmemGenericAllocationHandle h = 0, h2 = 0;
    CUdeviceptr va = 0;
    if (P("child: import", cuMemImportFromShareableHandle(&h, (void *)(intptr_t)fd, FD)) == CUDA_SUCCESS) {
        CUmemAllocationProp q;
        memset(&q, 0x5a, sizeof q);
        P("child: properties of the imported handle", cuMemGetAllocationPropertiesFromHandle(&q, h));
        V("  child: imported handle types", "%d", (int)q.requestedHandleTypes);
        V("  child: imported location", "%d/%d", (int)q.location.type, q.location.id);
        P("child: map the imported handle", map_rw(h, size, &va));
        YN("child:   reads the parent's data", words_are(va, 0x11111111, 64));
        P("child: write the second granule", cuMemsetD32(va + gran, 0x22222222, gran / 4));
        cuCtxSynchronize();
        if (P("child: import the same fd again", cuMemImportFromShareableHandle(&h2, (void *)(intptr_t)fd, FD)) == CUDA_SUCCESS) {
            YN("  child: the same handle", h2 == h);
            P("child: release the second import", cuMemRelease(h2));
        }
    }
    send_fd(s, -1, 'D');
    recv_fd(s, NULL);  /* the exporter unmapped, released and closed its descriptor */
    YN("child: data after the exporter released", words_are(va, 0x11111111, 64) &&
                                                   words_are(va + gran, 0x22222222, 64));
    P("child: write after the exporter released", cuMemsetD32(va, 0x33333333, gran / 4));
    cuCtxSynchronize();
    YN("child:   reads its write", words_are(va, 0x33333333, 64));
    CUmemGenericAllocationHandle h3 = 0;
    if (P("child: re-import after the exporter released", cuMemImportFromShareableHandle(&h3, (void *)(intptr_t)fd, FD)) == CUDA_SUCCESS) {
        YN("  child: the same handle again", h3 == h);
        cuMemRelease(h3);
    }
    int fd2 = -1;
    if (P("child: export the imported handle", cuMemExportToShareableHandle(&fd2, h, FD, 0)) == CUDA_SUCCESS)
        close(fd2);
    P("child: unmap", cuMemUnmap(va, size));
    cuMemAddressFree(va, size);
    P("child: release", cuMemRelease(h));
    CUmemGenericAllocationHandle h4 = 0;
    if (P("child: import with every handle released", cuMemImportFromShareableHandle(&h4, (void *)(intptr_t)fd, FD)) == CUDA_SUCCESS) {
        CUdeviceptr vb = 0;
        P("child:   map it", map_rw(h4, size, &vb));
        YN("child:   the data is still there", words_are(vb, 0x33333333, 64));
        unmap_free(vb, size);
        cuMemRelease(h4);
    }
    close(fd);
    send_fd(s, -1, 'E');
}

/* ---------------------------- section vmm_ipc_released: exported, released, then sent */

static void s_vmm_ipc_released(void)
{
    setup();
    size_t size = 2 * gran;
    CUmemAllocationProp p = prop(FD);
    CUmemGenericAllocationHandle h = 0;
    CUdeviceptr va = 0;
    int fd = -1;
    if (P("create exportable", cuMemCreate(&h, size, &p, 0))) return;
    map_rw(h, size, &va);
    cuMemsetD32(va, 0x44444444, size / 4);
    cuCtxSynchronize();
    unmap_free(va, size);
    P("export", cuMemExportToShareableHandle(&fd, h, FD, 0));
    P("release before sending", cuMemRelease(h));
    pid_t pid;
    int s = start_child("vmm_ipc_released", &pid);
    send_fd(s, fd, 'F');
    close(fd);
    recv_fd(s, &fd);  /* the child's own export comes back */
    CUmemGenericAllocationHandle hc = 0;
    if (P("parent: import the child's export", cuMemImportFromShareableHandle(&hc, (void *)(intptr_t)fd, FD)) == CUDA_SUCCESS) {
        send_fd(s, -1, 'X');  /* the child may exit now */
        recv_fd(s, NULL);
        int st = 0;
        waitpid(pid, &st, 0);
        CUdeviceptr vc = 0;
        P("parent: map it after the child exited", map_rw(hc, size, &vc));
        YN("parent:   the child's data", words_are(vc, 0x55555555, 64));
        unmap_free(vc, size);
        P("parent: release it", cuMemRelease(hc));
        close(fd);
        close(s);
        return;
    }
    send_fd(s, -1, 'X');
    recv_fd(s, NULL);
    close(fd);
    end_child(s, pid);
}

static void c_vmm_ipc_released(int s)
{
    setup();
    size_t size = 2 * gran;
    int fd;
    recv_fd(s, &fd);
    CUmemGenericAllocationHandle h = 0;
    CUdeviceptr va = 0;
    if (P("child: import after the exporter released", cuMemImportFromShareableHandle(&h, (void *)(intptr_t)fd, FD)) == CUDA_SUCCESS) {
        P("child:   map it", map_rw(h, size, &va));
        YN("child:   the exporter's data", words_are(va, 0x44444444, 64));
        unmap_free(va, size);
        cuMemRelease(h);
    }
    close(fd);
    /* the other way round: this process exports, sends, releases and exits */
    CUmemAllocationProp p = prop(FD);
    CUmemGenericAllocationHandle h2 = 0;
    int fd2 = -1;
    cuMemCreate(&h2, size, &p, 0);
    map_rw(h2, size, &va);
    cuMemsetD32(va, 0x55555555, size / 4);
    cuCtxSynchronize();
    unmap_free(va, size);
    P("child: export", cuMemExportToShareableHandle(&fd2, h2, FD, 0));
    P("child: release before sending", cuMemRelease(h2));
    send_fd(s, fd2, 'F');
    close(fd2);
    recv_fd(s, NULL);
    send_fd(s, -1, 'E');
}

/* --------------------------------------------------- section vmm_ipc_bad: bad descriptors */

static void s_vmm_ipc_bad(void)
{
    setup();
    size_t size = 2 * gran;
    CUmemGenericAllocationHandle h = 0, hi = 0;
    CUmemAllocationProp p = prop(FD), pn = prop(CU_MEM_HANDLE_TYPE_NONE);
    int fd = -1, junk = -1;
    cuMemCreate(&h, size, &p, 0);
    P("export NULL out", cuMemExportToShareableHandle(NULL, h, FD, 0));
    P("export flags 1", cuMemExportToShareableHandle(&fd, h, FD, 1));
    P("export type NONE", cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_NONE, 0));
    P("export bogus handle", cuMemExportToShareableHandle(&fd, (CUmemGenericAllocationHandle)0x5a5a5a5a0ull, FD, 0));
    CUmemGenericAllocationHandle hn = 0;
    cuMemCreate(&hn, size, &pn, 0);
    P("export a handle made without the fd type", cuMemExportToShareableHandle(&fd, hn, FD, 0));
    cuMemRelease(hn);
    P("export", cuMemExportToShareableHandle(&fd, h, FD, 0));
    if (P("import own export in the same process", cuMemImportFromShareableHandle(&hi, (void *)(intptr_t)fd, FD)) == CUDA_SUCCESS) {
        YN("  the same handle", hi == h);
        cuMemRelease(hi);
    }
    int fd2 = -1;
    if (P("export twice", cuMemExportToShareableHandle(&fd2, h, FD, 0)) == CUDA_SUCCESS) {
        YN("  a second descriptor", fd2 >= 0 && fd2 != fd);
        close(fd2);
    }
    P("import NULL out", cuMemImportFromShareableHandle(NULL, (void *)(intptr_t)fd, FD));
    P("import type NONE", cuMemImportFromShareableHandle(&hi, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_NONE));
    P("import type FABRIC", cuMemImportFromShareableHandle(&hi, (void *)(intptr_t)fd, CU_MEM_HANDLE_TYPE_FABRIC));
    P("import fd -1", cuMemImportFromShareableHandle(&hi, (void *)(intptr_t)-1, FD));
    junk = dup(1);
    close(junk);
    P("import a closed fd", cuMemImportFromShareableHandle(&hi, (void *)(intptr_t)junk, FD));
    junk = open("/dev/null", O_RDWR);
    P("import /dev/null", cuMemImportFromShareableHandle(&hi, (void *)(intptr_t)junk, FD));
    close(junk);
    junk = memfd_create("not-an-allocation", 0);
    if (junk >= 0 && ftruncate(junk, (off_t)size) == 0)
        P("import a memfd of the same size", cuMemImportFromShareableHandle(&hi, (void *)(intptr_t)junk, FD));
    if (junk >= 0) close(junk);
    int pp[2];
    if (pipe(pp) == 0) {
        P("import a pipe", cuMemImportFromShareableHandle(&hi, (void *)(intptr_t)pp[1], FD));
        close(pp[0]);
        close(pp[1]);
    }
    int sp[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0) {
        P("import a socket", cuMemImportFromShareableHandle(&hi, (void *)(intptr_t)sp[0], FD));
        close(sp[0]);
        close(sp[1]);
    }
    /* a descriptor whose allocation is gone: exported, every handle released, descriptor kept */
    CUmemGenericAllocationHandle hg = 0;
    int fg = -1;
    cuMemCreate(&hg, size, &p, 0);
    cuMemExportToShareableHandle(&fg, hg, FD, 0);
    cuMemRelease(hg);
    if (P("import after every handle was released", cuMemImportFromShareableHandle(&hi, (void *)(intptr_t)fg, FD)) == CUDA_SUCCESS)
        cuMemRelease(hi);
    close(fg);
    /* the exporter's descriptor, sent to a second process that imports it after this process
     * closed its copy and released its handle */
    pid_t pid;
    int s = start_child("vmm_ipc_bad", &pid);
    send_fd(s, fd, 'F');
    close(fd);
    P("release", cuMemRelease(h));
    send_fd(s, -1, 'G');
    recv_fd(s, NULL);
    end_child(s, pid);
}

static void c_vmm_ipc_bad(int s)
{
    setup();
    int fd;
    recv_fd(s, &fd);
    recv_fd(s, NULL);
    CUmemGenericAllocationHandle h = 0;
    if (P("child: import after the exporter closed and released", cuMemImportFromShareableHandle(&h, (void *)(intptr_t)fd, FD)) == CUDA_SUCCESS)
        cuMemRelease(h);
    close(fd);
    send_fd(s, -1, 'E');
}

/* --------------------------------------------- section legacy_ipc: cuIpc* (NVIDIA's header) */

#ifdef CU_IPC_HANDLE_SIZE
static void s_legacy_ipc(void)
{
    setup();
    CUdeviceptr d = 0, d2 = 0;
    cuMemAlloc(&d, 1 << 20);
    cuMemsetD32(d, 0x66666666, (1 << 20) / 4);
    cuCtxSynchronize();
    CUipcMemHandle mh, junk;
    CUipcEventHandle eh;
    memset(&junk, 0x5a, sizeof junk);
    P("ipc get mem handle", cuIpcGetMemHandle(&mh, d));
    P("ipc get mem handle NULL", cuIpcGetMemHandle(NULL, d));
    P("ipc get mem handle not device memory", cuIpcGetMemHandle(&junk, (CUdeviceptr)0x1000));
    P("ipc get mem handle inside the allocation", cuIpcGetMemHandle(&junk, d + 4096));
    P("ipc open in the same process", cuIpcOpenMemHandle(&d2, mh, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    CUevent e, et;
    P("event create interprocess", cuEventCreate(&e, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
    P("event create interprocess with timing", cuEventCreate(&et, CU_EVENT_INTERPROCESS));
    P("ipc get event handle", cuIpcGetEventHandle(&eh, e));
    CUevent en;
    cuEventCreate(&en, CU_EVENT_DISABLE_TIMING);
    CUipcEventHandle ej;
    P("ipc get event handle of a plain event", cuIpcGetEventHandle(&ej, en));
    cuEventRecord(e, NULL);
    pid_t pid;
    int s = start_child("legacy_ipc", &pid);
    send_bytes(s, &mh, sizeof mh);
    send_bytes(s, &eh, sizeof eh);
    recv_fd(s, NULL);
    YN("parent sees the child's write", words_are(d + 4096, 0x77777777, 64));
    P("free while the child has it open", cuMemFree(d));
    send_fd(s, -1, 'R');
    recv_fd(s, NULL);
    end_child(s, pid);
}

static void c_legacy_ipc(int s)
{
    setup();
    CUipcMemHandle mh, junk, zero;
    CUipcEventHandle eh;
    recv_bytes(s, &mh, sizeof mh);
    recv_bytes(s, &eh, sizeof eh);
    memset(&junk, 0x5a, sizeof junk);
    memset(&zero, 0, sizeof zero);
    CUdeviceptr p = 0, p2 = 0;
    if (P("child: ipc open mem handle", cuIpcOpenMemHandle(&p, mh, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)) == CUDA_SUCCESS) {
        YN("child:   reads the parent's data", words_are(p, 0x66666666, 64));
        P("child: write through it", cuMemsetD32(p + 4096, 0x77777777, 1024));
        cuCtxSynchronize();
        if (P("child: ipc open mem handle twice", cuIpcOpenMemHandle(&p2, mh, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)) == CUDA_SUCCESS) {
            YN("  child: the same address", p2 == p);
            cuIpcCloseMemHandle(p2);
        }
    }
    P("child: ipc open flags 0", cuIpcOpenMemHandle(&p2, mh, 0));
    if (p2) cuIpcCloseMemHandle(p2);
    P("child: ipc open flags 7", cuIpcOpenMemHandle(&p2, mh, 7));
    P("child: ipc open NULL out", cuIpcOpenMemHandle(NULL, mh, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    P("child: ipc open junk handle", cuIpcOpenMemHandle(&p2, junk, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    P("child: ipc open zero handle", cuIpcOpenMemHandle(&p2, zero, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    CUevent e;
    if (P("child: ipc open event handle", cuIpcOpenEventHandle(&e, eh)) == CUDA_SUCCESS) {
        P("child: synchronize the parent's event", cuEventSynchronize(e));
        P("child: query the parent's event", cuEventQuery(e));
        P("child: destroy the opened event", cuEventDestroy(e));
    }
    CUipcEventHandle ej;
    memset(&ej, 0x5a, sizeof ej);
    P("child: ipc open junk event handle", cuIpcOpenEventHandle(&e, ej));
    P("child: ipc open event NULL out", cuIpcOpenEventHandle(NULL, eh));
    send_fd(s, -1, 'D');
    recv_fd(s, NULL);  /* the parent freed it */
    YN("child: data after the parent's free", words_are(p, 0x66666666, 64));
    P("child: ipc close", cuIpcCloseMemHandle(p));
    P("child: ipc close again", cuIpcCloseMemHandle(p));
    P("child: ipc close not opened", cuIpcCloseMemHandle((CUdeviceptr)0x1000));
    P("child: ipc open after the parent freed", cuIpcOpenMemHandle(&p2, mh, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
    send_fd(s, -1, 'E');
}
#endif

static const struct {
    const char *name;
    void (*fn)(void);
    void (*child)(int);
} sections[] = {
    {"vmm_ipc", s_vmm_ipc, c_vmm_ipc},
    {"vmm_ipc_released", s_vmm_ipc_released, c_vmm_ipc_released},
    {"vmm_ipc_bad", s_vmm_ipc_bad, c_vmm_ipc_bad},
#ifdef CU_IPC_HANDLE_SIZE
    {"legacy_ipc", s_legacy_ipc, c_legacy_ipc},
#endif
};
#define NSECT (sizeof sections / sizeof sections[0])

int main(int argc, char **argv)
{
    alarm(60);  /* a turn that never comes must not hang the recording */
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < NSECT; i++) printf("%s\n", sections[i].name);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "child") == 0) {
        for (size_t i = 0; i < NSECT; i++)
            if (strcmp(argv[2], sections[i].name) == 0) {
                sections[i].child(atoi(argv[3]));
                return 0;
            }
        return 3;
    }
    for (size_t i = 0; i < NSECT; i++)
        if (argc < 2 || strcmp(argv[1], sections[i].name) == 0) {
            if (argc < 2) printf("# section %s\n", sections[i].name);
            sections[i].fn();
            if (argc >= 2) return 0;
        }
    if (argc >= 2) {
        fprintf(stderr, "ipc_probe: no section %s (--list lists them)\n", argv[1]);
        return 2;
    }
    return 0;
}
