/* vmgpu_cuda_core_device: see vmgpu_cuda_internal.h. */
#include "cuda_internal.h"
#include "cuda_priv.h"
#include "vmgpu_cuda_internal.h"

__attribute__((visibility("default"))) vmgpu_dev *vmgpu_cuda_core_device(void)
{
    cu_lock();
    vmgpu_dev *d = g_dev;
    cu_unlock();
    return d;
}
