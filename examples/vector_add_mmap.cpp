// vector_add_mmap: a vector add whose buffers are striped over every device that can reach them,
// written in the shape of NVIDIA's driver-API VMM sample (vectorAddMMAP) to show that such a
// program builds against vmgpu's headers (cuda.h, builtin_types.h) as C++ and runs unchanged up
// to its kernel:
//   - pick the devices that support virtual memory management and can reach each other
//     (cuDeviceCanAccessPeer / cuCtxEnablePeerAccess: vmgpu is one device, so the list is it);
//   - one reservation, one physical allocation per stripe, mapped back to back, access granted
//     to every device in one cuMemSetAccess;
//   - the kernel chosen with the occupancy calculator and launched with kernelParams.
// The sample loads its kernel as PTX or a fat binary (cuModuleLoad / cuModuleLoadDataEx); vmgpu
// runs PTX only once the programmable cores exist (a later step), so this program asks for the
// fat binary first, reports what the driver answered, and then uses vmgpu's built-in add.
#include <cstdio>
#include <cstring>
#include <vector>

#include <builtin_types.h>
#include <cuda.h>
#include "vmgpu_builtin.h"

#define CHECK(call)                                                                         \
    do {                                                                                    \
        CUresult rc_ = (call);                                                              \
        if (rc_ != CUDA_SUCCESS) {                                                          \
            const char *s_ = nullptr;                                                       \
            cuGetErrorString(rc_, &s_);                                                     \
            std::fprintf(stderr, "%s:%d: %s -> %s\nvector_add_mmap FAILED\n", __FILE__,     \
                         __LINE__, #call, s_ ? s_ : "?");                                   \
            return 1;                                                                       \
        }                                                                                   \
    } while (0)

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

// Reserve size bytes striped over `resident` devices and make them accessible from `mapping`.
static CUresult alloc_striped(CUdeviceptr *dptr, size_t *alloc_size, size_t size,
                              const std::vector<CUdevice> &resident, const std::vector<CUdevice> &mapping)
{
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    size_t gran = 0;
    for (CUdevice d : resident) {
        size_t g = 0;
        prop.location.id = d;
        CUresult rc = cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
        if (rc) return rc;
        if (g > gran) gran = g;
    }
    size_t stripe = round_up((size + resident.size() - 1) / resident.size(), gran);
    size = stripe * resident.size();
    CUresult rc = cuMemAddressReserve(dptr, size, 0, 0, 0);
    if (rc) return rc;
    for (size_t i = 0; i < resident.size() && !rc; i++) {
        CUmemGenericAllocationHandle h;
        prop.location.id = resident[i];
        rc = cuMemCreate(&h, stripe, &prop, 0);
        if (rc) break;
        rc = cuMemMap(*dptr + stripe * i, stripe, 0, h, 0);
        cuMemRelease(h);   // the mapping keeps the memory alive
    }
    std::vector<CUmemAccessDesc> access(mapping.size());
    for (size_t i = 0; i < mapping.size() && !rc; i++) {
        access[i].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        access[i].location.id = mapping[i];
        access[i].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    }
    if (!rc) rc = cuMemSetAccess(*dptr, size, access.data(), access.size());
    if (rc) {
        cuMemUnmap(*dptr, size);
        cuMemAddressFree(*dptr, size);
        return rc;
    }
    *alloc_size = size;
    return CUDA_SUCCESS;
}

int main()
{
    const int n = 50000;
    CHECK(cuInit(0));
    int count = 0;
    CHECK(cuDeviceGetCount(&count));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    char name[64];
    CHECK(cuDeviceGetName(name, sizeof name, dev));
    int vmm = 0;
    CHECK(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));
    std::printf("device 0 of %d: %s, virtual memory management supported: %d\n", count, name, vmm);
    if (!vmm) return 0;
    CUcontext ctx;
    CHECK(cuCtxCreate(&ctx, nullptr, 0, dev));

    // Devices the buffers live on and devices that map them: every device that is dev or a peer.
    std::vector<CUdevice> devices{dev};
    for (int i = 0; i < count; i++) {
        CUdevice other;
        int peer = 0;
        CHECK(cuDeviceGet(&other, i));
        if (other == dev) continue;
        CHECK(cuDeviceCanAccessPeer(&peer, dev, other));
        if (peer) devices.push_back(other);
    }
    std::printf("devices holding stripes: %zu\n", devices.size());

    CUdeviceptr a, b, c;
    size_t sa, sb, sc;
    CHECK(alloc_striped(&a, &sa, n * sizeof(int), devices, devices));
    CHECK(alloc_striped(&b, &sb, n * sizeof(int), devices, devices));
    CHECK(alloc_striped(&c, &sc, n * sizeof(int), devices, devices));
    std::vector<int> ha(n), hb(n), hc(n, 0);
    for (int i = 0; i < n; i++) {
        ha[i] = i * 3;
        hb[i] = 7 - i;
    }
    CHECK(cuMemcpyHtoD(a, ha.data(), n * sizeof(int)));
    CHECK(cuMemcpyHtoD(b, hb.data(), n * sizeof(int)));

    // The kernel: the sample's fat binary if the driver can run it, else vmgpu's built-in add.
    CUmodule module;
    char log[1024] = "";
    CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[2] = {log, reinterpret_cast<void *>(static_cast<uintptr_t>(sizeof log))};
    CUresult rc = cuModuleLoad(&module, "vectorAdd_kernel64.fatbin");
    const char *rcname = nullptr;
    cuGetErrorName(rc, &rcname);
    std::printf("cuModuleLoad(vectorAdd_kernel64.fatbin): %s\n", rcname);
    if (rc != CUDA_SUCCESS) {
        std::printf("vmgpu runs PTX and fat binaries once its programmable cores exist; using %s\n",
                    VMGPU_BUILTIN_ADD_I32);
        CHECK(cuModuleLoadDataEx(&module, VMGPU_BUILTIN_IMAGE, 2, opts, vals));
    }
    CUfunction add;
    CHECK(cuModuleGetFunction(&add, module, VMGPU_BUILTIN_ADD_I32));
    int blocks_per_sm = 0, sms = 0;
    dim3 block(256);
    CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, add, block.x, 0));
    CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    dim3 grid((n + block.x - 1) / block.x);
    std::printf("occupancy: %d blocks of %u threads per multiprocessor, %d multiprocessor(s); grid %u\n",
                blocks_per_sm, block.x, sms, grid.x);
    unsigned int count_arg = n, unused = 0;
    void *args[] = {&c, &a, &b, &count_arg, &unused};
    CHECK(cuLaunchKernel(add, grid.x, grid.y, grid.z, block.x, block.y, block.z, 0, nullptr, args, nullptr));
    CHECK(cuMemcpyDtoH(hc.data(), c, n * sizeof(int)));
    int good = 0;
    for (int i = 0; i < n; i++) good += hc[i] == ha[i] + hb[i];
    std::printf("result: %d of %d sums correct\n", good, n);

    for (auto [p, s] : {std::pair<CUdeviceptr, size_t>{a, sa}, {b, sb}, {c, sc}}) {
        CHECK(cuMemUnmap(p, s));
        CHECK(cuMemAddressFree(p, s));
    }
    CHECK(cuModuleUnload(module));
    CHECK(cuCtxDestroy(ctx));
    std::printf(good == n ? "vector_add_mmap PASSED\n" : "vector_add_mmap FAILED\n");
    return good == n ? 0 : 1;
}
