/*
 * vmgpu's built-in CUDA module: how a CUDA driver API program runs vmgpu's fixed-function
 * int32 kernels through cuModuleLoadData / cuModuleGetFunction / cuLaunchKernel.
 *
 * vmgpu has no instruction set: its compute engine runs six built-in kernels. The CUDA library
 * (libcuda.so from vmgpu) therefore accepts exactly one module image, VMGPU_BUILTIN_IMAGE (the
 * NUL-terminated string below, passed as the `image` of cuModuleLoadData/cuModuleLoadDataEx).
 * Any other image is refused with CUDA_ERROR_INVALID_IMAGE.
 *
 * Functions of that module (cuModuleGetFunction; any other name: CUDA_ERROR_NOT_FOUND):
 *   vmgpu_fill_i32        dst[i] = scalar
 *   vmgpu_copy_i32        dst[i] = a[i]
 *   vmgpu_add_i32         dst[i] = a[i] + b[i]
 *   vmgpu_scale_i32       dst[i] = scalar * a[i]
 *   vmgpu_axpy_i32        dst[i] = scalar * a[i] + b[i]
 *   vmgpu_reduce_sum_i32  dst[0] = a[0] + ... + a[n-1]
 * for i in [0, n), int32 with wrapping arithmetic.
 *
 * Every function takes the same five parameters; kernelParams of cuLaunchKernel is an array of
 * five pointers, in this order, to:
 *   CUdeviceptr dst, CUdeviceptr a, CUdeviceptr b, int n, int scalar
 * (parameters a kernel does not use are ignored: pass 0). `extra` must be NULL. The grid's and
 * block's thread count gridDimX*gridDimY*gridDimZ * blockDimX*blockDimY*blockDimZ must be at
 * least n (else CUDA_ERROR_INVALID_VALUE), as a CUDA kernel with one element per thread would
 * need; the hardware itself walks the n elements. dst, a and b must be 4-byte aligned.
 * n == 0 launches nothing and succeeds; n < 0 is CUDA_ERROR_INVALID_VALUE.
 *
 * A kernel touching memory its context may not access (unmapped, no cuMemSetAccess, read-only
 * and written) stops with a fault; the stream's next synchronisation and every later call on
 * that context return CUDA_ERROR_ILLEGAL_ADDRESS (sticky), other contexts go on.
 */
#ifndef VMGPU_BUILTIN_H
#define VMGPU_BUILTIN_H

#define VMGPU_BUILTIN_IMAGE "vmgpu-builtin-v1"

#define VMGPU_BUILTIN_FILL_I32 "vmgpu_fill_i32"
#define VMGPU_BUILTIN_COPY_I32 "vmgpu_copy_i32"
#define VMGPU_BUILTIN_ADD_I32 "vmgpu_add_i32"
#define VMGPU_BUILTIN_SCALE_I32 "vmgpu_scale_i32"
#define VMGPU_BUILTIN_AXPY_I32 "vmgpu_axpy_i32"
#define VMGPU_BUILTIN_REDUCE_SUM_I32 "vmgpu_reduce_sum_i32"

/* Number of entries of kernelParams every built-in function reads. */
#define VMGPU_BUILTIN_NPARAMS 5

#endif /* VMGPU_BUILTIN_H */
