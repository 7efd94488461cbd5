/* The host port: host memory registered for the device (pages whose PTE has the HOST bit)
 * and the handler that serves the device's accesses to it. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core_internal.h"
#include "remote.h"

/* ------------------------------------------------------------------- host port */

int host_copy(vmgpu_dev *dev, uint32_t haddr, void *buf, size_t bytes, int write)
{
    long i = rs_find(&dev->hostf, haddr >> 12);
    if (i < 0) return VMGPU_ERR_NOT_MAPPED;
    const range *r = &dev->hostf.r[i];
    uint64_t off = ((uint64_t)((haddr >> 12) - r->start) << 12) + (haddr & 0xfff);
    if (off + bytes > ((uint64_t)r->size << 12)) return VMGPU_ERR_INVALID;
    if (r->owner) {
        /* Memory of another process (the server's client): only the server can reach it. */
        if (!dev->host_access) return VMGPU_ERR_IO;
        return dev->host_access(dev->host_access_user, r->owner, (uintptr_t)r->user + off, buf,
                                bytes, write) ? VMGPU_ERR_IO : VMGPU_OK;
    }
    uint8_t *p = (uint8_t *)r->user + off;
    if (write) memcpy(p, buf, bytes);
    else memcpy(buf, p, bytes);
    return VMGPU_OK;
}

int host_handler(void *user, uint32_t haddr, int write, uint32_t *data, unsigned be)
{
    vmgpu_dev *dev = user;
    long i = rs_find(&dev->hostf, haddr >> 12);
    if (i < 0 || (haddr & 3)) return -1;
    const range *r = &dev->hostf.r[i];
    if (r->owner) {
        if (!write || be == 0xf) return host_copy(dev, haddr, data, 4, write) ? -1 : 0;
        for (unsigned b = 0; b < 4; b++) {
            uint8_t v = (uint8_t)(*data >> (8 * b));
            if ((be & (1u << b)) && host_copy(dev, haddr + b, &v, 1, 1)) return -1;
        }
        return 0;
    }
    uint8_t *p = (uint8_t *)r->user + ((uint64_t)((haddr >> 12) - r->start) << 12) + (haddr & 0xfff);
    if (!write) {
        memcpy(data, p, 4);
    } else {
        for (unsigned b = 0; b < 4; b++)
            if (be & (1u << b)) p[b] = (uint8_t)(*data >> (8 * b));
    }
    return 0;
}

int vmgpu_host_register_for(vmgpu_dev *dev, uintptr_t owner, uintptr_t addr, size_t size,
                            uint32_t *haddr)
{
    if (!dev || !addr || !haddr || size == 0 || (addr & (VMGPU_PAGE_SIZE - 1)) ||
        (size & (VMGPU_PAGE_SIZE - 1)) || size >= ((size_t)1 << 31) || addr + size < addr)
        return core_fail(dev, VMGPU_ERR_INVALID, "host_register: ptr and size must be nonzero "
                         "multiples of the 4 KiB page");
    for (size_t i = 0; i < dev->hostf.n; i++) {
        uintptr_t q = (uintptr_t)dev->hostf.r[i].user;
        size_t qs = (size_t)dev->hostf.r[i].size << 12;
        if (dev->hostf.r[i].owner == owner && addr < q + qs && q < addr + size)
            return core_fail(dev, VMGPU_ERR_OVERLAP, "host_register: %p overlaps a registration",
                             (void *)addr);
    }
    uint32_t frame;
    if (rs_alloc(&dev->hostf, (uint32_t)(size >> 12), 1, 0, &frame))
        return core_fail(dev, VMGPU_ERR_NOMEM, "host_register: no host frames left");
    range *r = &dev->hostf.r[rs_find_start(&dev->hostf, frame)];
    r->user = (void *)addr;
    r->owner = owner;
    *haddr = frame << 12;
    core_trace("host_register(%p, %zu) -> host frames 0x%05x..0x%05x", (void *)addr, size, frame,
               frame + (uint32_t)(size >> 12) - 1);
    return VMGPU_OK;
}

int vmgpu_host_register(vmgpu_dev *dev, void *ptr, size_t size, uint32_t *haddr)
{
    if (dev && dev->remote) return remote_host_register(dev, ptr, size, haddr);
    return vmgpu_host_register_for(dev, 0, (uintptr_t)ptr, size, haddr);
}

int vmgpu_host_unregister(vmgpu_dev *dev, void *ptr)
{
    if (dev && dev->remote) return remote_host_unregister(dev, ptr);
    return vmgpu_host_unregister_for(dev, 0, (uintptr_t)ptr);
}

int vmgpu_host_unregister_for(vmgpu_dev *dev, uintptr_t owner, uintptr_t addr)
{
    if (!dev || !addr) return core_fail(dev, VMGPU_ERR_INVALID, "host_unregister: NULL");
    void *ptr = (void *)addr;
    for (size_t i = 0; i < dev->hostf.n; i++) {
        if (dev->hostf.r[i].user != ptr || dev->hostf.r[i].owner != owner) continue;
        if (dev->hostf.r[i].refs)
            return core_fail(dev, VMGPU_ERR_BUSY, "host_unregister: %u pages still mapped",
                             dev->hostf.r[i].refs);
        rs_remove(&dev->hostf, i);
        return VMGPU_OK;
    }
    return core_fail(dev, VMGPU_ERR_NOT_FOUND, "host_unregister: %p is not registered", ptr);
}

void *vmgpu_host_ptr(const vmgpu_dev *dev, uint32_t haddr)
{
    if (dev && dev->remote) return remote_host_ptr(dev, haddr);
    if (!dev) return NULL;
    long i = rs_find(&dev->hostf, haddr >> 12);
    if (i < 0 || dev->hostf.r[i].owner) return NULL;
    const range *r = &dev->hostf.r[i];
    return (uint8_t *)r->user + ((uint64_t)((haddr >> 12) - r->start) << 12) + (haddr & 0xfff);
}
