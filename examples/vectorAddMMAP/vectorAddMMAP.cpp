// vectorAddMMAP: NVIDIA's driver-API sample of the same name, written here in its style, running
// on vmgpu with its kernel as a user's PTX. C = A + B on 50000 floats, where A, B and C are each
// one virtual address range backed by cuMemCreate chunks on the device and its peers:
//   1. pick the devices that may map the buffers (the device and every peer it can access) and
//      those that back them (here the same list: vmgpu is one device);
//   2. per buffer: one cuMemAddressReserve, one cuMemCreate chunk per backing device mapped back
//      to back with cuMemMap (the handle released at once: the mapping keeps the memory), and
//      one cuMemSetAccess granting every mapping device read-write;
//   3. the kernel, VecAdd_kernel from vectorAdd_kernel.cu, as NVRTC's PTX (vectorAdd_kernel.ptx
//      beside this file): cuModuleLoadData, cuModuleGetFunction;
//   4. cuLaunchKernel with 256 threads per block, results checked on the host, everything freed.
// Where examples/vector_add_mmap.cpp shows the allocation shape with vmgpu's built-in add, this
// program runs the sample's own kernel from PTX. A device that cannot run it (no f32 arithmetic,
// or blocks smaller than 256 threads) is named with what it lacks, and the program exits with 2.
//
// usage: vectorAddMMAP [vectorAdd_kernel.ptx]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda.h>

#ifndef VECTORADD_PTX
#define VECTORADD_PTX "vectorAdd_kernel.ptx"
#endif

#define checkCudaErrors(call) check((call), #call, __FILE__, __LINE__)

static void check(CUresult rc, const char *what, const char *file, int line)
{
    if (rc == CUDA_SUCCESS) return;
    const char *name = nullptr;
    cuGetErrorName(rc, &name);
    std::fprintf(stderr, "%s:%d: %s returned %s (%d)\nResult = FAIL\n", file, line, what, name ? name : "?",
                 static_cast<int>(rc));
    std::exit(EXIT_FAILURE);
}

static const int kThreadsPerBlock = 256;

// ------------------------------------------------------------------ multi-device VMM allocation

static size_t roundUp(size_t x, size_t m) { return (x + m - 1) / m * m; }

// Reserves `size` bytes (rounded up) as one VA range, backed by one chunk per backing device
// and readable and writable from every mapping device.
static CUresult simpleMallocMultiDeviceMmap(CUdeviceptr *dptr, size_t *allocationSize, size_t size,
                                            const std::vector<CUdevice> &residentDevices,
                                            const std::vector<CUdevice> &mappingDevices)
{
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    size_t granularity = 0;
    // The granularity that suits every device involved.
    for (CUdevice d : residentDevices) {
        size_t g = 0;
        prop.location.id = d;
        CUresult status = cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
        if (status != CUDA_SUCCESS) return status;
        if (g > granularity) granularity = g;
    }
    for (CUdevice d : mappingDevices) {
        size_t g = 0;
        prop.location.id = d;
        CUresult status = cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
        if (status != CUDA_SUCCESS) return status;
        if (g > granularity) granularity = g;
    }
    size = roundUp(size, residentDevices.size() * granularity);
    size_t stripeSize = size / residentDevices.size();
    CUresult status = cuMemAddressReserve(dptr, size, 0, 0, 0);
    if (status != CUDA_SUCCESS) return status;

    for (size_t idx = 0; idx < residentDevices.size() && status == CUDA_SUCCESS; idx++) {
        CUmemGenericAllocationHandle chunk;
        prop.location.id = residentDevices[idx];
        status = cuMemCreate(&chunk, stripeSize, &prop, 0);
        if (status != CUDA_SUCCESS) break;
        status = cuMemMap(*dptr + stripeSize * idx, stripeSize, 0, chunk, 0);
        // The mapping holds the memory from here on; releasing the handle frees it at unmap.
        CUresult released = cuMemRelease(chunk);
        if (status == CUDA_SUCCESS) status = released;
    }

    std::vector<CUmemAccessDesc> accessDescriptors(mappingDevices.size());
    for (size_t idx = 0; idx < mappingDevices.size(); idx++) {
        accessDescriptors[idx].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        accessDescriptors[idx].location.id = mappingDevices[idx];
        accessDescriptors[idx].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    }
    if (status == CUDA_SUCCESS)
        status = cuMemSetAccess(*dptr, size, accessDescriptors.data(), accessDescriptors.size());

    if (status != CUDA_SUCCESS) {
        cuMemUnmap(*dptr, size);   // whatever part was mapped
        cuMemAddressFree(*dptr, size);
        return status;
    }
    *allocationSize = size;
    return CUDA_SUCCESS;
}

static CUresult simpleFreeMultiDeviceMmap(CUdeviceptr dptr, size_t size)
{
    CUresult status = cuMemUnmap(dptr, size);
    if (status != CUDA_SUCCESS) return status;
    return cuMemAddressFree(dptr, size);
}

// The devices whose memory `cuDevice` can reach: itself and its peers.
static std::vector<CUdevice> getPeerDevices(CUdevice cuDevice)
{
    int deviceCount = 0;
    checkCudaErrors(cuDeviceGetCount(&deviceCount));
    std::vector<CUdevice> devices{cuDevice};
    for (int i = 0; i < deviceCount; i++) {
        CUdevice other;
        checkCudaErrors(cuDeviceGet(&other, i));
        if (other == cuDevice) continue;
        int canAccessPeer = 0, vmm = 0;
        checkCudaErrors(cuDeviceCanAccessPeer(&canAccessPeer, cuDevice, other));
        checkCudaErrors(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, other));
        if (canAccessPeer && vmm) devices.push_back(other);
    }
    return devices;
}

// ------------------------------------------------------------------ the kernel from PTX

static std::vector<char> readFile(const char *path)
{
    std::vector<char> text;
    FILE *f = std::fopen(path, "rb");
    if (!f) return text;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.insert(text.end(), buf, buf + n);
    std::fclose(f);
    text.push_back('\0');   // cuModuleLoadData takes PTX as a NUL-terminated string
    return text;
}

// Loads VecAdd_kernel. When the device cannot run it, says what the device lacks (the JIT's
// error log, and the block size this sample needs against the device's limit) and returns false.
static bool loadKernel(const char *ptxPath, CUdevice cuDevice, CUmodule *module, CUfunction *kernel)
{
    std::vector<char> ptx = readFile(ptxPath);
    if (ptx.empty()) {
        std::fprintf(stderr, "cannot read %s (the kernel's PTX; give its path as the argument)\n", ptxPath);
        std::exit(EXIT_FAILURE);
    }
    char errorLog[2048] = "";
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {errorLog, reinterpret_cast<void *>(static_cast<uintptr_t>(sizeof errorLog))};
    CUresult loaded = cuModuleLoadDataEx(module, ptx.data(), 2, options, values);

    // The function's own limit where it loaded (it can exceed the device's: vmgpu runs a block
    // larger than its unit as sub-blocks where the kernel allows), else the device's.
    int maxThreads = 0;
    const char *limitName = "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK";
    checkCudaErrors(cuDeviceGetAttribute(&maxThreads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, cuDevice));
    if (loaded == CUDA_SUCCESS) {
        checkCudaErrors(cuModuleGetFunction(kernel, *module, "VecAdd_kernel"));
        checkCudaErrors(cuFuncGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, *kernel));
        limitName = "CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK";
    }
    bool canRun = loaded == CUDA_SUCCESS && maxThreads >= kThreadsPerBlock;
    if (canRun) return true;

    std::printf("This device cannot run the sample's kernel:\n");
    if (loaded != CUDA_SUCCESS) {
        const char *name = nullptr;
        cuGetErrorName(loaded, &name);
        std::printf("  cuModuleLoadDataEx(%s): %s\n    JIT error log: %s\n", ptxPath, name ? name : "?",
                    errorLog[0] ? errorLog : "(empty)");
        if (loaded == CUDA_ERROR_NOT_SUPPORTED && std::strstr(errorLog, "F extension"))
            std::printf("  -> the kernel adds floats: the device needs f32 arithmetic (the SIMT unit's F "
                        "extension)\n");
    }
    if (maxThreads < kThreadsPerBlock)
        std::printf("  -> the sample launches %d threads per block; %s is %d\n", kThreadsPerBlock, limitName,
                    maxThreads);
    if (loaded == CUDA_SUCCESS) checkCudaErrors(cuModuleUnload(*module));
    return false;
}

// ------------------------------------------------------------------ main

static void RandomInit(float *data, int n)
{
    for (int i = 0; i < n; ++i) data[i] = std::rand() / static_cast<float>(RAND_MAX);
}

int main(int argc, char **argv)
{
    std::printf("Vector Addition (Driver API, VMM)\n");
    int N = 50000;
    size_t size = N * sizeof(float);
    const char *ptxPath = argc > 1 ? argv[1] : VECTORADD_PTX;

    checkCudaErrors(cuInit(0));
    CUdevice cuDevice;
    checkCudaErrors(cuDeviceGet(&cuDevice, 0));
    char name[128];
    checkCudaErrors(cuDeviceGetName(name, sizeof name, cuDevice));
    int attributeVal = 0;
    checkCudaErrors(cuDeviceGetAttribute(&attributeVal, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
                                         cuDevice));
    std::printf("Device 0: %s, virtual memory management supported: %d\n", name, attributeVal);
    if (!attributeVal) {
        std::printf("Device 0 does not support virtual memory management: waiving\n");
        return EXIT_SUCCESS;
    }

    CUcontext cuContext;
    checkCudaErrors(cuCtxCreate(&cuContext, nullptr, 0, cuDevice));

    // Every device that can map the buffers also backs a part of them.
    std::vector<CUdevice> mappingDevices = getPeerDevices(cuDevice);
    std::vector<CUdevice> backingDevices = mappingDevices;
    std::printf("Devices mapping and backing the buffers: %zu\n", mappingDevices.size());

    CUmodule cuModule;
    CUfunction vecAdd_kernel;
    if (!loadKernel(ptxPath, cuDevice, &cuModule, &vecAdd_kernel)) {
        checkCudaErrors(cuCtxDestroy(cuContext));
        std::printf("Result = NOT RUN (device lacks what the kernel needs)\n");
        return 2;
    }

    std::vector<float> h_A(N), h_B(N), h_C(N);
    RandomInit(h_A.data(), N);
    RandomInit(h_B.data(), N);

    CUdeviceptr d_A, d_B, d_C;
    size_t allocationSize = 0;
    checkCudaErrors(simpleMallocMultiDeviceMmap(&d_A, &allocationSize, size, backingDevices, mappingDevices));
    checkCudaErrors(simpleMallocMultiDeviceMmap(&d_B, &allocationSize, size, backingDevices, mappingDevices));
    checkCudaErrors(simpleMallocMultiDeviceMmap(&d_C, &allocationSize, size, backingDevices, mappingDevices));
    std::printf("Each buffer: %zu bytes reserved, mapped and set read-write\n", allocationSize);

    checkCudaErrors(cuMemcpyHtoD(d_A, h_A.data(), size));
    checkCudaErrors(cuMemcpyHtoD(d_B, h_B.data(), size));

    int threadsPerBlock = kThreadsPerBlock;
    int blocksPerGrid = (N + threadsPerBlock - 1) / threadsPerBlock;
    void *args[] = {&d_A, &d_B, &d_C, &N};
    checkCudaErrors(cuLaunchKernel(vecAdd_kernel, blocksPerGrid, 1, 1, threadsPerBlock, 1, 1, 0, 0, args, nullptr));
    checkCudaErrors(cuCtxSynchronize());
    std::printf("Launched %d blocks of %d threads\n", blocksPerGrid, threadsPerBlock);

    checkCudaErrors(cuMemcpyDtoH(h_C.data(), d_C, size));
    int correct = 0;
    for (int i = 0; i < N; ++i) {
        float sum = h_A[i] + h_B[i];
        correct += std::fabs(h_C[i] - sum) <= 1e-7f;   // the device adds as the host does: exactly
    }

    checkCudaErrors(simpleFreeMultiDeviceMmap(d_A, allocationSize));
    checkCudaErrors(simpleFreeMultiDeviceMmap(d_B, allocationSize));
    checkCudaErrors(simpleFreeMultiDeviceMmap(d_C, allocationSize));
    checkCudaErrors(cuModuleUnload(cuModule));
    checkCudaErrors(cuCtxDestroy(cuContext));

    std::printf("%d of %d sums correct\n", correct, N);
    std::printf("Result = %s\n", correct == N ? "PASS" : "FAIL");
    return correct == N ? EXIT_SUCCESS : EXIT_FAILURE;
}
