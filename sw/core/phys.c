/* Physical device memory: the allocator and reads/writes through the memory port. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"
#include "remote.h"

/* ------------------------------------------------------------------ physical memory */

int vmgpu_phys_alloc(vmgpu_dev *dev, uint32_t size, uint32_t align, uint32_t *pa)
{
    if (dev && dev->remote) return remote_phys_alloc(dev, size, align, pa);
    if (!dev || !pa) return core_fail(dev, VMGPU_ERR_INVALID, "phys_alloc: NULL argument");
    if (align == 0) align = VMGPU_GRANULE;
    if (size == 0 || (size & (VMGPU_PAGE_SIZE - 1)) || (align & (align - 1)) ||
        align < VMGPU_PAGE_SIZE)
        return core_fail(dev, VMGPU_ERR_INVALID, "phys_alloc: size 0x%x / align 0x%x must be "
                         "multiples of the 4 KiB page (align a power of two)", size, align);
    uint32_t p;
    if (rs_alloc(&dev->phys, size, align, 0, &p))
        return core_fail(dev, VMGPU_ERR_NOMEM, "phys_alloc: no 0x%x bytes free (aligned 0x%x)",
                         size, align);
    *pa = p;
    core_trace("phys_alloc(0x%x, align 0x%x) -> pa 0x%08x", size, align, p);
    return VMGPU_OK;
}

int vmgpu_phys_free(vmgpu_dev *dev, uint32_t pa)
{
    if (dev && dev->remote) return remote_phys_free(dev, pa);
    if (!dev) return VMGPU_ERR_INVALID;
    long i = rs_find_start(&dev->phys, pa);
    if (i < 0) return core_fail(dev, VMGPU_ERR_NOT_FOUND, "phys_free: no allocation at 0x%08x", pa);
    if (dev->phys.r[i].refs)
        return core_fail(dev, VMGPU_ERR_BUSY, "phys_free: 0x%08x still has %u mapped pages", pa,
                         dev->phys.r[i].refs);
    rs_remove(&dev->phys, (size_t)i);
    core_trace("phys_free(pa 0x%08x)", pa);
    return VMGPU_OK;
}

int vmgpu_phys_stats(const vmgpu_dev *dev, uint32_t *free_bytes, unsigned *n_allocs)
{
    if (dev && dev->remote) return remote_phys_stats(dev, free_bytes, n_allocs);
    if (!dev) return VMGPU_ERR_INVALID;
    if (free_bytes) *free_bytes = dev->info.user_bytes - (uint32_t)rs_used(&dev->phys);
    if (n_allocs) *n_allocs = (unsigned)dev->phys.n;
    return VMGPU_OK;
}

int vmgpu_phys_write(vmgpu_dev *dev, uint32_t pa, const void *src, size_t bytes)
{
    if (dev && dev->remote) return remote_phys_write(dev, pa, src, bytes);
    if (!dev || (!src && bytes) || (uint64_t)pa + bytes > dev->info.mem_size)
        return core_fail(dev, VMGPU_ERR_INVALID, "phys_write: bad range 0x%08x+%zu", pa, bytes);
    if (!bytes) return VMGPU_OK;
    uint32_t a0 = pa & ~3u, a1 = (uint32_t)((pa + bytes + 3) & ~(uint64_t)3);
    size_t nw = (a1 - a0) / 4;
    uint32_t *buf = malloc(nw * 4);
    if (!buf) return core_fail(dev, VMGPU_ERR_NOMEM, "phys_write: out of host memory");
    int rc = 0;
    if (pa != a0) rc = vmgpu_mem_read(dev->hal, a0, &buf[0], 1);
    if (!rc && (pa + bytes) != a1 && (nw > 1 || pa == a0))
        rc = vmgpu_mem_read(dev->hal, a1 - 4, &buf[nw - 1], 1);
    if (!rc) {
        memcpy((uint8_t *)buf + (pa - a0), src, bytes);
        rc = vmgpu_mem_write(dev->hal, a0, buf, nw);
    }
    free(buf);
    return rc ? core_hal_err(dev, rc, "memory write") : VMGPU_OK;
}

int vmgpu_phys_read(vmgpu_dev *dev, uint32_t pa, void *dst, size_t bytes)
{
    if (dev && dev->remote) return remote_phys_read(dev, pa, dst, bytes);
    if (!dev || (!dst && bytes) || (uint64_t)pa + bytes > dev->info.mem_size)
        return core_fail(dev, VMGPU_ERR_INVALID, "phys_read: bad range 0x%08x+%zu", pa, bytes);
    if (!bytes) return VMGPU_OK;
    uint32_t a0 = pa & ~3u, a1 = (uint32_t)((pa + bytes + 3) & ~(uint64_t)3);
    size_t nw = (a1 - a0) / 4;
    uint32_t *buf = malloc(nw * 4);
    if (!buf) return core_fail(dev, VMGPU_ERR_NOMEM, "phys_read: out of host memory");
    int rc = vmgpu_mem_read(dev->hal, a0, buf, nw);
    if (!rc) memcpy(dst, (uint8_t *)buf + (pa - a0), bytes);
    free(buf);
    return rc ? core_hal_err(dev, rc, "memory read") : VMGPU_OK;
}
