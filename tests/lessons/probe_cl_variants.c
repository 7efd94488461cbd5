/*
 * lesson_probe_cl: lesson 03's "Try this" changes on a copy of examples/cl_map_buffer, so that
 * their answers (docs/lessons/answers.md) come from a run.
 *   lesson_probe_cl write_map   the device buffer's first map with CL_MAP_WRITE instead of
 *                               CL_MAP_WRITE_INVALIDATE_REGION: its cost in device cycles
 *   lesson_probe_cl in_as_dst   the READ_ONLY USE_HOST_PTR buffer passed as the kernel's
 *                               destination: the event's status and the application's array
 * Output: "key value" lines.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096

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
    return (unsigned long)((b - a) / 20);
}

int main(int argc, char **argv)
{
    const char *v = argc > 1 ? argv[1] : "";
    if (strcmp(v, "write_map") && strcmp(v, "in_as_dst")) {
        fprintf(stderr, "usage: %s write_map|in_as_dst\n", argv[0]);
        return 2;
    }
    cl_platform_id pls[16], pl = NULL;
    cl_uint np = 0;
    check(clGetPlatformIDs(16, pls, &np), "clGetPlatformIDs");
    for (cl_uint i = 0; i < np; i++) {
        char name[64] = "";
        clGetPlatformInfo(pls[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (!strcmp(name, "vmgpu")) pl = pls[i];
    }
    if (!pl) { printf("FAILED: no vmgpu platform (set OCL_ICD_VENDORS)\n"); return 1; }
    cl_device_id dev;
    cl_int err;
    check(clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), "clGetDeviceIDs");
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    check(err, "clCreateContext");
    cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    check(err, "clCreateCommandQueue");
    const size_t bytes = N * sizeof(int32_t);
    cl_event ev;
    if (!strcmp(v, "write_map")) {
        cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
        check(err, "clCreateBuffer");
        int32_t *p = clEnqueueMapBuffer(q, in, CL_TRUE, CL_MAP_WRITE, 0, bytes, 0, NULL, &ev, &err);
        check(err, "clEnqueueMapBuffer(CL_MAP_WRITE)");
        printf("write_map_cycles %lu\n", cycles(ev));
        for (int i = 0; i < N; i++) p[i] = i;
        check(clEnqueueUnmapMemObject(q, in, p, 0, NULL, &ev), "unmap");
        printf("write_unmap_cycles %lu\n", cycles(ev));
        clReleaseMemObject(in);
    } else {
        int32_t *host;
        if (posix_memalign((void **)&host, 4096, bytes)) return 1;
        for (int i = 0; i < N; i++) host[i] = 1000 + i;
        cl_mem in = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_READ_ONLY, bytes, host, &err);
        check(err, "clCreateBuffer(in)");
        cl_program prog = clCreateProgramWithBuiltInKernels(ctx, 1, &dev, "vmgpu_scale_i32", &err);
        check(err, "clCreateProgramWithBuiltInKernels");
        cl_kernel k = clCreateKernel(prog, "vmgpu_scale_i32", &err);
        check(err, "clCreateKernel");
        int n = N, scalar = 3;
        check(clSetKernelArg(k, 0, sizeof(cl_mem), &in), "arg dst");
        check(clSetKernelArg(k, 1, sizeof(cl_mem), &in), "arg a");
        check(clSetKernelArg(k, 2, sizeof(cl_mem), &in), "arg b");
        check(clSetKernelArg(k, 3, sizeof(int), &n), "arg n");
        check(clSetKernelArg(k, 4, sizeof(int), &scalar), "arg scalar");
        size_t gws = N;
        err = clEnqueueNDRangeKernel(q, k, 1, NULL, &gws, NULL, 0, NULL, &ev);
        printf("enqueue %d\n", err);
        clWaitForEvents(1, &ev);
        cl_int status = 0;
        clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
        printf("event_status %d (%s)\n", status, status == CL_OUT_OF_RESOURCES ? "CL_OUT_OF_RESOURCES" :
               status == CL_COMPLETE ? "CL_COMPLETE" : "other");
        int same = 0;
        for (int i = 0; i < N; i++) same += host[i] == 1000 + i;
        printf("array_unchanged %d of %d\n", same, N);
    }
    printf("lesson_probe_cl: done\n");
    return 0;
}
