/* Maps a USE_HOST_PTR buffer and a device buffer with VMGPU_TRACE=1 and prints markers around
 * each map/unmap, so check_map_trace.py can see which commands each one issued. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void mark(const char *s) { fflush(stdout); fprintf(stderr, "@@ %s\n", s); fflush(stderr); }

int main(void)
{
    cl_platform_id pls[16], pl = NULL;
    cl_uint n = 0;
    clGetPlatformIDs(16, pls, &n);
    for (cl_uint i = 0; i < n; i++) {
        char name[64] = "";
        clGetPlatformInfo(pls[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (!strcmp(name, "vmgpu")) pl = pls[i];
    }
    cl_device_id d;
    if (!pl || clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &d, NULL)) return 1;
    cl_int err;
    cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueue(c, d, 0, &err);
    void *host = NULL;
    if (posix_memalign(&host, 4096, 65536)) return 1;
    memset(host, 1, 65536);
    cl_mem z = clCreateBuffer(c, CL_MEM_USE_HOST_PTR, 65536, host, &err);
    cl_mem dv = clCreateBuffer(c, CL_MEM_COPY_HOST_PTR, 65536, host, &err);
    for (int k = 0; k < 2; k++) {
        cl_mem m = k ? dv : z;
        mark(k ? "begin device" : "begin zero_copy");
        int *p = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, 65536, 0, NULL, NULL, &err);
        if (err || !p || p[100] != 0x01010101) return 2;
        p[0] = 7;
        clEnqueueUnmapMemObject(q, m, p, 0, NULL, NULL);
        clFinish(q);
        mark(k ? "end device" : "end zero_copy");
    }
    clReleaseMemObject(z);
    clReleaseMemObject(dv);
    clReleaseCommandQueue(q);
    clReleaseContext(c);
    free(host);
    return 0;
}
