"""NVIDIA's cuda-core (PyPI) on vmgpu: devices and contexts, streams and events, and its memory
resources — VirtualMemoryResource (cuMemCreate/Map/SetAccess), DeviceMemoryResource (the
stream-ordered pool allocator), LegacyPinnedMemoryResource (cuMemAllocHost) — with copies and
fills between them checked byte for byte."""
import ctypes

import numpy as np
import cuda.core as cc

from vmgpu_pytest import check, run


def host_view(buf):
    return np.ctypeslib.as_array((ctypes.c_uint8 * buf.size).from_address(int(buf.handle)))


def device_and_streams():
    d = cc.Device(0)
    d.set_current()
    check("device name", d.name.startswith("vmgpu"), d.name)
    check("compute capability 5.0", tuple(d.compute_capability) == (5, 0), d.compute_capability)
    s = d.create_stream()
    e0 = s.record(options=cc.EventOptions(timing_enabled=True))
    s2 = d.create_stream()
    s2.wait(e0)
    e1 = s2.record(options=cc.EventOptions(timing_enabled=True))
    e1.sync()
    check("events complete", e0.is_done and e1.is_done)
    check("elapsed time between events is not negative", (e1 - e0) >= 0)
    s.close()
    s2.close()


def round_trip(mr, stream, size, what):
    pin = cc.LegacyPinnedMemoryResource()
    src = pin.allocate(size, stream=stream)
    dst = pin.allocate(size, stream=stream)
    hs, hd = host_view(src), host_view(dst)
    hs[:] = (np.arange(size) * 7 + 3) % 256
    hd[:] = 0
    dev = mr.allocate(size, stream=stream)
    check("%s: buffer is device memory" % what, dev.is_device_accessible)
    dev.copy_from(src, stream=stream)
    dst.copy_from(dev, stream=stream)
    stream.sync()
    check("%s: host -> device -> host copy is exact" % what, (hs == hd).all())
    dev.fill(0xA5, stream=stream)
    dst.copy_from(dev, stream=stream)
    stream.sync()
    check("%s: fill" % what, (hd == 0xA5).all())
    dev.close(stream)
    src.close()
    dst.close()


def virtual_memory_resource():
    d = cc.Device(0)
    d.set_current()
    s = d.create_stream()
    vmr = cc.VirtualMemoryResource(d)
    round_trip(vmr, s, 1 << 18, "VirtualMemoryResource")
    s.close()


def device_memory_resource():
    d = cc.Device(0)
    d.set_current()
    s = d.create_stream()
    mr = cc.DeviceMemoryResource(d)
    round_trip(mr, s, 1 << 17, "DeviceMemoryResource (pool)")
    bufs = [mr.allocate(4096 * (i + 1), stream=s) for i in range(8)]
    spans = sorted((int(b.handle), int(b.handle) + b.size) for b in bufs)
    check("pool allocations do not overlap", all(e <= s2 for (_, e), (s2, _) in zip(spans, spans[1:])))
    for b in bufs:
        b.close(s)
    s.sync()
    s.close()


def pinned_memory():
    pin = cc.LegacyPinnedMemoryResource()
    b = pin.allocate(12345)
    check("pinned buffer is host accessible", b.is_host_accessible)
    v = host_view(b)
    v[:] = 9
    check("pinned memory is ordinary host memory", int(v.sum()) == 9 * 12345)
    b.close()


if __name__ == "__main__":
    run([device_and_streams, virtual_memory_resource, pinned_memory, device_memory_resource])
