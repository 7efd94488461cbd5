/*
 * What vmgpu's own tools (vmgpu-bench) may ask libcuda.so beyond the CUDA driver API. Not part
 * of NVIDIA's API and not installed: the one symbol is exported from libcuda.so under a vmgpu_
 * name so that no CUDA program can pick it up by accident.
 */
#ifndef VMGPU_CUDA_INTERNAL_API_H
#define VMGPU_CUDA_INTERNAL_API_H

#include "vmgpu/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The core device libcuda opened in cuInit (NULL before a successful cuInit). For reading
 * counters between calls (vmgpu_dev_cycles, vmgpu_dev_hal(dev)->round_trips) from the thread
 * that makes the CUDA calls; issuing work through it bypasses libcuda's bookkeeping. */
vmgpu_dev *vmgpu_cuda_core_device(void);

#ifdef __cplusplus
}
#endif

#endif
