/*
 * External memory across processes through the device server: a cuMemExportToShareableHandle
 * descriptor imported in another process with cuImportExternalMemory (OPAQUE_FD), and a vgfx
 * image exported there with vgfxExportMemoryFd and imported back here. Both processes read
 * what the other wrote. VMGPU_DEVICE=vmgpud (set by ctest).
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

#include "fdpass.h"
#include "vmgpu_gfx.h"

static int fails;
static const char *who = "parent";
#define CK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { const char *n_ = "?"; \
    cuGetErrorName(r_, &n_); printf("  FAIL [%s] %s -> %s\n", who, #call, n_); fails++; } } while (0)
#define GK(call) do { vgfxStatus r_ = (call); if (r_ != VGFX_SUCCESS) { \
    printf("  FAIL [%s] %s -> %d\n", who, #call, (int)r_); fails++; } } while (0)
#define CHECK(c) do { if (!(c)) { printf("  FAIL [%s] %s\n", who, #c); fails++; } } while (0)

static void send_fd(int s, int fd, uint64_t value)
{
    if (fdpass_send(s, &value, sizeof value, fd)) exit(3);
}

static uint64_t recv_fd(int s, int *fd)
{
    uint64_t value = 0;
    if (fdpass_recv(s, &value, sizeof value, fd)) exit(3);
    return value;
}

static void start(void)
{
    CUdevice d;
    CUcontext c;
    CK(cuInit(0));
    CK(cuDeviceGet(&d, 0));
    CK(cuCtxCreate(&c, NULL, 0, d));
}

/* Import fd (size bytes) as external memory and map all of it. */
static CUdeviceptr import(int fd, uint64_t size, CUexternalMemory *ext)
{
    CUDA_EXTERNAL_MEMORY_HANDLE_DESC hd;
    memset(&hd, 0, sizeof hd);
    hd.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
    hd.handle.fd = fd;
    hd.size = size;
    CK(cuImportExternalMemory(ext, &hd));
    CUDA_EXTERNAL_MEMORY_BUFFER_DESC bd;
    memset(&bd, 0, sizeof bd);
    bd.size = size;
    CUdeviceptr p = 0;
    CK(cuExternalMemoryGetMappedBuffer(&p, *ext, &bd));
    return p;
}

static int words_are(CUdeviceptr p, uint32_t v, unsigned n)
{
    uint32_t buf[64];
    if (cuMemcpyDtoH(buf, p, n * 4)) return 0;
    for (unsigned i = 0; i < n; i++)
        if (buf[i] != v) return 0;
    return 1;
}

static int child(int s)
{
    who = "child";
    start();
    int fd;
    uint64_t size = recv_fd(s, &fd);
    CUexternalMemory ext;
    CUdeviceptr p = import(fd, size, &ext);
    int seen = words_are(p, 0x12345678u, 64);
    CHECK(seen);
    printf("  [child] cuImportExternalMemory of the parent's export (fd %d, %llu bytes): its data "
           "seen: %s\n", fd, (unsigned long long)size, seen ? "yes" : "NO");
    CK(cuMemsetD32(p + size / 2, 0x9abcdef0u, 64));
    CK(cuCtxSynchronize());
    fflush(stdout);
    send_fd(s, -1, 0);
    /* a vgfx image, exported to the parent */
    recv_fd(s, NULL);
    GK(vgfxInit());
    vgfxImage img = NULL;
    vgfxImageDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.width = 64;
    desc.height = 64;
    desc.format = VGFX_FORMAT_RGBA8_UNORM;
    desc.mipLevels = 1;
    desc.arrayLayers = 1;
    GK(vgfxCreateImage(&img, &desc));
    GK(vgfxClearImage(img, 0, 0, 0xff00ff00u));
    GK(vgfxFinish());
    int gfd = -1;
    uint64_t gsize = 0;
    GK(vgfxExportMemoryFd(img, &gfd, &gsize));
    printf("  [child] vgfx image 64x64 cleared to 0xff00ff00, exported as fd %d (%llu bytes)\n", gfd,
           (unsigned long long)gsize);
    fflush(stdout);
    send_fd(s, gfd, gsize);
    close(gfd);
    recv_fd(s, NULL);
    GK(vgfxDestroyImage(img));
    CK(cuDestroyExternalMemory(ext));
    return fails ? 1 : 0;
}

int main(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) return 2;
    fflush(stdout);
    pid_t pid = fork();  /* before cuInit */
    if (pid == 0) {
        close(sv[0]);
        _exit(child(sv[1]));
    }
    close(sv[1]);
    int s = sv[0];
    start();
    size_t gran = 0;
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    CK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    size_t size = 2 * gran;
    CUmemGenericAllocationHandle h;
    CUdeviceptr va;
    CK(cuMemCreate(&h, size, &prop, 0));
    CK(cuMemAddressReserve(&va, size, 0, 0, 0));
    CK(cuMemMap(va, size, 0, h, 0));
    CUmemAccessDesc acc = {.location = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0},
                           .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
    CK(cuMemSetAccess(va, size, &acc, 1));
    CK(cuMemsetD32(va, 0x12345678u, size / 4));
    CK(cuCtxSynchronize());
    int fd = -1;
    CK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    send_fd(s, fd, size);
    recv_fd(s, NULL);
    int seen = words_are(va + size / 2, 0x9abcdef0u, 64);
    CHECK(seen);
    printf("  [parent] the child's write through its external-memory buffer seen: %s\n", seen ? "yes" : "NO");
    send_fd(s, -1, 0);
    int gfd;
    uint64_t gsize = recv_fd(s, &gfd);
    CUexternalMemory ext;
    CUdeviceptr p = import(gfd, gsize, &ext);
    int pix = words_are(p, 0xff00ff00u, 64);
    CHECK(pix);
    printf("  [parent] cuImportExternalMemory of the child's vgfx image (fd %d): pixels 0xff00ff00: %s\n",
           gfd, pix ? "yes" : "NO");
    CK(cuDestroyExternalMemory(ext));
    send_fd(s, -1, 0);
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CK(cuMemUnmap(va, size));
    CK(cuMemRelease(h));
    close(fd);
    printf("server_extmem: %s\n", fails ? "FAILED" : "passed");
    return fails ? 1 : 0;
}
