/*
 * cl_map_buffer: clEnqueueMapBuffer the way an OpenCL program uses it, twice — once on a
 * buffer made with CL_MEM_USE_HOST_PTR (vmgpu maps the application's own pages into the
 * device's address space: zero copy) and once on an ordinary device buffer (vmgpu copies
 * the region into host staging memory with its DMA engine, and back on unmap).
 *
 * Each round: map for writing, fill through the returned pointer, unmap, run the built-in
 * kernel vmgpu_scale_i32 (dst[i] = 3 * a[i]) on the device, map the result for reading and
 * check it. It prints where each pointer points and what each map and unmap cost in device
 * cycles (event profiling). Build: linked with the system's ICD loader (-lOpenCL); the vmgpu
 * platform is found through OCL_ICD_VENDORS or /etc/OpenCL/vendors (docs/opencl.md).
 * Run with VMGPU_TRACE=1 to see the commands each call issued (docs/lessons/03-...).
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096 /* int32 elements: 16 KiB, four pages */

static int fails;

static void check(cl_int err, const char *what)
{
    if (err != CL_SUCCESS) {
        printf("FAILED: %s returned %d\n", what, err);
        exit(1);
    }
}

static unsigned long cycles(cl_event e)
{
    cl_ulong a = 0, b = 0;
    clWaitForEvents(1, &e);
    clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL);
    clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL);
    clReleaseEvent(e);
    return (unsigned long)((b - a) / 20); /* 50 MHz nominal clock: 20 ns a cycle */
}

static void round_trip(cl_context ctx, cl_command_queue q, cl_kernel k, int zero_copy)
{
    cl_int err;
    const size_t bytes = N * sizeof(int32_t);
    int32_t *host = NULL, *host_out = NULL;
    cl_mem in, out;
    printf("\n== %s ==\n", zero_copy ? "CL_MEM_USE_HOST_PTR (zero copy)" : "device buffer (copy)");
    if (zero_copy) {
        /* Page-aligned so the pages hold nothing else (any pointer works; alignment avoids
         * sharing a page with unrelated data). */
        if (posix_memalign((void **)&host, 4096, bytes) || posix_memalign((void **)&host_out, 4096, bytes)) exit(1);
        memset(host, 0, bytes);
        in = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_READ_ONLY, bytes, host, &err);
        check(err, "clCreateBuffer(in)");
        out = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_WRITE_ONLY, bytes, host_out, &err);
    } else {
        in = clCreateBuffer(ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
        check(err, "clCreateBuffer(in)");
        out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    }
    check(err, "clCreateBuffer(out)");

    /* 1. Map for writing. WRITE_INVALIDATE_REGION: the old contents are not needed, so a
     *    device buffer is not read back first. */
    cl_event ev;
    int32_t *p = clEnqueueMapBuffer(q, in, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, bytes, 0, NULL,
                                    &ev, &err);
    check(err, "clEnqueueMapBuffer(write)");
    printf("map for writing: pointer %p %s, %lu device cycles\n", (void *)p,
           p == host ? "== host_ptr (the application's own memory)" : "(vmgpu's staging memory)", cycles(ev));

    /* 2. Fill through the pointer. */
    for (int i = 0; i < N; i++) p[i] = i - 1000;

    /* 3. Unmap: from here on the device may use the buffer. */
    check(clEnqueueUnmapMemObject(q, in, p, 0, NULL, &ev), "clEnqueueUnmapMemObject(in)");
    printf("unmap: %lu device cycles%s\n", cycles(ev),
           zero_copy ? " (nothing to copy)" : " (DMA copy host staging -> device memory)");

    /* 4. The built-in kernel: out[i] = 3 * in[i]. */
    int n = N, scalar = 3;
    check(clSetKernelArg(k, 0, sizeof(cl_mem), &out), "arg dst");
    check(clSetKernelArg(k, 1, sizeof(cl_mem), &in), "arg a");
    check(clSetKernelArg(k, 2, sizeof(cl_mem), &in), "arg b (unused)");
    check(clSetKernelArg(k, 3, sizeof(int), &n), "arg n");
    check(clSetKernelArg(k, 4, sizeof(int), &scalar), "arg scalar");
    size_t global = N;
    check(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, &ev), "clEnqueueNDRangeKernel");
    printf("kernel vmgpu_scale_i32 over %d elements: %lu device cycles (it read and wrote %s)\n", N, cycles(ev),
           zero_copy ? "host memory through the host aperture" : "device memory");

    /* 5. Map the result for reading and check it. */
    int32_t *r = clEnqueueMapBuffer(q, out, CL_TRUE, CL_MAP_READ, 0, bytes, 0, NULL, &ev, &err);
    check(err, "clEnqueueMapBuffer(read)");
    unsigned long mc = cycles(ev);
    int good = 0;
    for (int i = 0; i < N; i++) good += r[i] == 3 * (i - 1000);
    printf("map for reading: pointer %s, %lu device cycles%s; result: %d of %d elements correct (r[5] = %d)\n",
           r == host_out ? "== host_ptr" : "into staging", mc,
           zero_copy ? " (nothing to copy)" : " (DMA copy device memory -> host staging)", good, N, r[5]);
    if (good != N) fails++;
    check(clEnqueueUnmapMemObject(q, out, r, 0, NULL, NULL), "clEnqueueUnmapMemObject(out)");
    if (zero_copy) printf("host[5] = %d: the application's array is the buffer\n", host[5]);
    check(clFinish(q), "clFinish");
    clReleaseMemObject(in);
    clReleaseMemObject(out);
    free(host);
    free(host_out);
}

int main(void)
{
    cl_platform_id pls[16], pl = NULL;
    cl_uint np = 0;
    check(clGetPlatformIDs(16, pls, &np), "clGetPlatformIDs");
    for (cl_uint i = 0; i < np; i++) {
        char name[64] = "";
        clGetPlatformInfo(pls[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (strcmp(name, "vmgpu") == 0) pl = pls[i];
    }
    if (!pl) {
        printf("FAILED: the ICD loader lists no vmgpu platform (set OCL_ICD_VENDORS)\n");
        return 1;
    }
    cl_device_id dev;
    cl_int err;
    check(clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), "clGetDeviceIDs");
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    check(err, "clCreateContext");
    cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    check(err, "clCreateCommandQueue");
    cl_program prog = clCreateProgramWithBuiltInKernels(ctx, 1, &dev, "vmgpu_scale_i32", &err);
    check(err, "clCreateProgramWithBuiltInKernels");
    cl_kernel k = clCreateKernel(prog, "vmgpu_scale_i32", &err);
    check(err, "clCreateKernel");

    round_trip(ctx, q, k, 1);
    round_trip(ctx, q, k, 0);

    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    printf("\n%s\n", fails ? "cl_map_buffer FAILED" : "cl_map_buffer PASSED");
    return fails != 0;
}
