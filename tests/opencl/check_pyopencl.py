"""pyopencl, a real OpenCL client nobody here wrote, on vmgpu: a program built from source,
run on buffers, results checked against numpy. Exit 77 without pyopencl/numpy or a compiler."""
import sys

try:
    import numpy as np
    import pyopencl as cl
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)

SRC = """
__kernel void saxpy_i(__global const int *x, __global int *y, int a) {
  size_t i = get_global_id(0);
  y[i] = a * x[i] + y[i];
}
__kernel void transpose(__global const uint *in, __global uint *out, uint w, uint h) {
  size_t c = get_global_id(0), r = get_global_id(1);
  if (c < w && r < h) out[c * h + r] = in[r * w + c];
}
__kernel void blocksum(__global const int *in, __global int *out, __local int *tmp) {
  uint t = get_local_id(0);
  tmp[t] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (t < s) tmp[t] += tmp[t + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) out[get_group_id(0)] = tmp[0];
}
"""


def main():
    plats = [p for p in cl.get_platforms() if p.name == "vmgpu"]
    if not plats:
        print("FAIL: no vmgpu platform")
        return 1
    dev = plats[0].get_devices()[0]
    if not dev.compiler_available:
        print("SKIP: vmgpu has no compiler here")
        return 77
    ctx = cl.Context([dev])
    q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, SRC).build(options=["-cl-std=CL1.2"])
    print("kernels:", prg.get_info(cl.program_info.KERNEL_NAMES))
    rng = np.random.default_rng(7)
    mf = cl.mem_flags
    fails = 0

    n = 4096
    x = rng.integers(-2**31, 2**31, n, dtype=np.int32)
    y = rng.integers(-2**31, 2**31, n, dtype=np.int32)
    xb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    yb = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=y)
    prg.saxpy_i(q, (n,), None, xb, yb, np.int32(-3))
    got = np.empty_like(y)
    cl.enqueue_copy(q, got, yb)
    want = (np.int64(-3) * x.astype(np.int64) + y).astype(np.int64).astype(np.int32)
    ok = np.array_equal(got, want)
    print("saxpy_i n=4096:", "ok" if ok else "WRONG")
    fails += not ok

    w, h = 24, 10
    a = rng.integers(0, 2**32, (h, w), dtype=np.uint32)
    ab = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
    ob = cl.Buffer(ctx, mf.WRITE_ONLY, a.nbytes)
    prg.transpose(q, (w, h), (4, 2), ab, ob, np.uint32(w), np.uint32(h))
    t = np.empty((w, h), dtype=np.uint32)
    cl.enqueue_copy(q, t, ob)
    ok = np.array_equal(t, a.T)
    print("transpose 24x10 (2D NDRange):", "ok" if ok else "WRONG")
    fails += not ok

    groups, lsz = 12, 16
    v = rng.integers(-1000, 1000, groups * lsz, dtype=np.int32)
    vb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=v)
    sb = cl.Buffer(ctx, mf.WRITE_ONLY, groups * 4)
    prg.blocksum(q, (groups * lsz,), (lsz,), vb, sb, cl.LocalMemory(lsz * 4))
    s = np.empty(groups, dtype=np.int32)
    cl.enqueue_copy(q, s, sb)
    ok = np.array_equal(s, v.reshape(groups, lsz).sum(axis=1).astype(np.int32))
    print("blocksum with a __local argument:", "ok" if ok else "WRONG")
    fails += not ok
    print("FAIL" if fails else "all match numpy")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
