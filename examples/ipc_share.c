/*
 * ipc_share: two processes share one piece of device memory, the way NVIDIA's memMapIPCDrv
 * sample does it. The parent makes an allocation that may be exported as a POSIX file
 * descriptor (cuMemCreate), maps it, fills it, exports it (cuMemExportToShareableHandle) and
 * sends the descriptor over a Unix socket (SCM_RIGHTS). The child imports it
 * (cuMemImportFromShareableHandle), maps it in its own address space, reads what the parent
 * wrote and writes the second half, which the parent then reads. Then the parent releases
 * first, and the child still has the memory.
 *
 * On vmgpu both processes reach the device through the per-user device server (the default,
 * docs/server.md): each has its own context, so its own ASID and page tables, and the server
 * maps the same physical frames in both. Run with VMGPU_TRACE=1 to see the two ASIDs map them.
 * Built against NVIDIA's cuda.h and libcuda it runs the same way on an NVIDIA GPU.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda.h>

#define CK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { const char *n_ = "?"; \
    cuGetErrorName(r_, &n_); fprintf(stderr, "%s: %s failed: %s\n", who, #call, n_); exit(1); } } while (0)

static const char *who = "parent";

/* One byte of news over the socket, and a descriptor with it when fd >= 0. */
static void send_fd(int s, int fd)
{
    char byte = 'x';
    struct iovec iov = {&byte, 1};
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
    if (sendmsg(s, &mh, 0) != 1) exit(1);
}

static int recv_fd(int s)
{
    char byte;
    struct iovec iov = {&byte, 1};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } cm;
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.buf,
                        .msg_controllen = sizeof cm.buf};
    if (recvmsg(s, &mh, 0) != 1) exit(1);
    int fd = -1;
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    if (c && c->cmsg_type == SCM_RIGHTS) memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

/* What the descriptor is, as the kernel names it (/proc/self/fd). */
static const char *fd_target(int fd)
{
    static char buf[2][160];
    static int k;
    char link[64];
    char *out = buf[k++ & 1];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, out, sizeof buf[0] - 1);
    out[n > 0 ? n : 0] = 0;
    return out;
}

/* A context of our own, and the allocation granularity. */
static size_t start(void)
{
    CUdevice dev;
    CUcontext ctx;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
#if CUDA_VERSION >= 13000
    CK(cuCtxCreate(&ctx, NULL, 0, dev));
#else
    CK(cuCtxCreate(&ctx, 0, dev));
#endif
    CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
                                .location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0},
                                .requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR};
    size_t gran;
    CK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    return gran;
}

/* Reserve an address range, map the handle there and allow reads and writes. */
static CUdeviceptr map_rw(CUmemGenericAllocationHandle h, size_t size)
{
    CUdeviceptr va;
    CK(cuMemAddressReserve(&va, size, 0, 0, 0));
    CK(cuMemMap(va, size, 0, h, 0));
    CUmemAccessDesc acc = {.location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0},
                           .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    CK(cuMemSetAccess(va, size, &acc, 1));
    return va;
}

static unsigned count(CUdeviceptr va, size_t words, uint32_t v)
{
    uint32_t *buf = malloc(words * 4);
    unsigned n = 0;
    CK(cuMemcpyDtoH(buf, va, words * 4));
    for (size_t i = 0; i < words; i++) n += buf[i] == v;
    free(buf);
    return n;
}

static int child(int s)
{
    who = "child";
    /* CUDA starts here only once the descriptor has come: the parent's context is then the
     * device's first and this one its second (ASIDs 1 and 2, which lesson 08 quotes). */
    int fd = recv_fd(s);
    size_t size = 2 * start();
    CUmemGenericAllocationHandle h;
    CK(cuMemImportFromShareableHandle(&h, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    CUdeviceptr va = map_rw(h, size);
    printf("child : imported fd %d (%s), mapped at 0x%llx\n", fd, fd_target(fd), (unsigned long long)va);
    size_t half = size / 8;  /* words in one half */
    unsigned n = count(va, half, 0xa11ce000);
    printf("child : parent's words seen: %u of %zu\n", n, half);
    CK(cuMemsetD32(va + size / 2, 0xb0b0b0b0, half));
    CK(cuCtxSynchronize());
    fflush(stdout);
    send_fd(s, -1);
    recv_fd(s);  /* the parent has released its handle */
    unsigned m = count(va, half, 0xa11ce000);
    printf("child : after the parent released: %u of %zu words still there\n", m, half);
    CK(cuMemUnmap(va, size));
    CK(cuMemAddressFree(va, size));
    CK(cuMemRelease(h));
    close(fd);
    fflush(stdout);
    send_fd(s, -1);
    return n == half && m == half ? 0 : 1;
}

int main(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) return 1;
    fflush(stdout);
    pid_t pid = fork();  /* before cuInit: a CUDA process does not fork */
    if (pid == 0) {
        close(sv[0]);
        _exit(child(sv[1]));
    }
    close(sv[1]);
    size_t size = 2 * start();
    CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
                                .location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0},
                                .requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR};
    CUmemGenericAllocationHandle h;
    CK(cuMemCreate(&h, size, &prop, 0));
    CUdeviceptr va = map_rw(h, size);
    CK(cuMemsetD32(va, 0xa11ce000, size / 8));
    CK(cuCtxSynchronize());
    int fd;
    CK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    printf("parent: %zu bytes mapped at 0x%llx, exported as fd %d (%s), sent to the child\n", size,
           (unsigned long long)va, fd, fd_target(fd));
    fflush(stdout);
    send_fd(sv[0], fd);
    recv_fd(sv[0]);
    unsigned n = count(va + size / 2, size / 8, 0xb0b0b0b0);
    printf("parent: child's words seen: %u of %zu\n", n, size / 8);
    CK(cuMemUnmap(va, size));
    CK(cuMemAddressFree(va, size));
    CK(cuMemRelease(h));  /* the exporter releases first */
    close(fd);
    printf("parent: released its handle and closed its descriptor\n");
    fflush(stdout);
    send_fd(sv[0], -1);
    recv_fd(sv[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    int ok = n == size / 8 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    printf("ipc share %s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
