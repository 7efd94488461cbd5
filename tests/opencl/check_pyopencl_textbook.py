"""Textbook OpenCL C kernels through pyopencl, on vmgpu and on PoCL, compared bit for bit.

The kernels are the kinds a course or a vendor sample starts with: f32 with fma, a grid-stride
loop, a local-memory tiled matrix multiply and a tree reduction with barriers, a 2D NDRange
stencil, divergent data-dependent loops, global atomics (integer, and an f32 sum through
atomic_cmpxchg), 64-bit integers, bit functions, vector loads and saturating conversions. Each
runs on the same inputs on vmgpu and on PoCL (Debian's pocl-opencl-icd, the second opinion
DESIGN.md names); every output must be the same bits, and where the host computes the exact
answer (the integer kernels) it must be that too. Exit 77 without pyopencl or without PoCL.
"""
import sys

try:
    import numpy as np
    import pyopencl as cl
except ImportError as e:
    print(f"SKIP: {e}")
    sys.exit(77)

SRC = r"""
__kernel void saxpy_fma(__global const float *x, __global float *y, float a, uint n) {
  for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) y[i] = fma(a, x[i], y[i]);
}
#define T 8
__kernel void matmul_tiled(__global const float *A, __global const float *B, __global float *C, int N) {
  __local float As[T][T], Bs[T][T];
  int tx = get_local_id(0), ty = get_local_id(1);
  int col = get_group_id(0) * T + tx, row = get_group_id(1) * T + ty;
  float s = 0.0f;
  for (int t = 0; t < (N + T - 1) / T; ++t) {
    As[ty][tx] = (row < N && t * T + tx < N) ? A[row * N + t * T + tx] : 0.0f;
    Bs[ty][tx] = (col < N && t * T + ty < N) ? B[(t * T + ty) * N + col] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < T; ++k) s = fma(As[ty][k], Bs[k][tx], s);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < N && col < N) C[row * N + col] = s;
}
__kernel void reduce_f(__global const float *in, __global float *out, __local float *tmp, uint n) {
  uint t = get_local_id(0);
  float v = 0.0f;
  for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) v += in[i];
  tmp[t] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (t < s) tmp[t] += tmp[t + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) out[get_group_id(0)] = tmp[0];
}
__kernel void stencil(__global const float *in, __global float *out, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1);
  if (x > 0 && y > 0 && x < w - 1 && y < h - 1)
    out[y * w + x] = 0.25f * (in[y * w + x - 1] + in[y * w + x + 1] + in[(y - 1) * w + x] + in[(y + 1) * w + x]);
}
__kernel void collatz(__global const uint *in, __global uint *steps) {
  size_t i = get_global_id(0);
  uint v = in[i], s = 0;
  while (v != 1 && s < 1000) { v = (v & 1) ? 3 * v + 1 : v >> 1; ++s; }
  steps[i] = s;
}
__kernel void histo(__global const uint *in, __global int *bins, uint n) {
  size_t i = get_global_id(0);
  if (i < n) { atomic_inc(&bins[in[i] % 10u]); atomic_max(&bins[10], (int)(in[i] >> 4)); }
}
__kernel void fsum_cas(__global const float *in, __global float *sum, uint n) {
  size_t i = get_global_id(0);
  if (i >= n) return;
  __global volatile uint *p = (__global volatile uint *)sum;
  uint old = *p, seen;
  do { seen = old; old = atomic_cmpxchg(p, seen, as_uint(as_float(seen) + in[i])); } while (old != seen);
}
__kernel void longops(__global const long *a, __global const long *b, __global long *out) {
  size_t i = get_global_id(0);
  long x = a[i], y = b[i];
  ulong ux = x, uy = y;
  __global long *o = out + 8 * i;
  o[0] = x * y + (x >> (uy & 63)); o[1] = (long)(ux / 10); o[2] = x / 7; o[3] = max(x, y);
  o[4] = (long)popcount(ux) + clz(uy) * 100; o[5] = (long)rotate(ux, uy); o[6] = (long)mul_hi(ux, uy);
  o[7] = x < y;
}
__kernel void bitsi(__global const uint *in, __global uint *out) {
  size_t i = get_global_id(0);
  uint v = in[i], w = in[(i + 1) % get_global_size(0)];
  __global uint *o = out + 8 * i;
  o[0] = popcount(v); o[1] = clz(v); o[2] = rotate(v, w); o[3] = mul_hi(v, w);
  o[4] = mad24(v & 0xffff, w & 0xffff, v); o[5] = add_sat((int)v, (int)w); o[6] = (uint)abs_diff((int)v, (int)w);
  o[7] = select(v, w, (uint)((int)(v ^ w) < 0));
}
__kernel void vec4(__global const float *in, __global float *out, __global uchar *sat) {
  size_t i = get_global_id(0);
  float4 v = vload4(i, in);
  float4 r = v * (float4)(1.5f, -2.0f, 0.25f, 3.0f) + (float4)(1.0f);
  vstore4(r, i, out);
  uchar4 c = convert_uchar4_sat(v * 64.0f);
  vstore4(c, i, sat);
}
"""


def xorshift(n, seed):
    out = np.empty(n, dtype=np.uint32)
    x = seed
    for i in range(n):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out[i] = x
    return out


def floats(n, seed, lo=-4.0, hi=4.0):
    return (lo + (hi - lo) * xorshift(n, seed).astype(np.float64) / 2.0 ** 32).astype(np.float32)


def run_all(dev):
    """Every kernel on one device; returns {name: [output arrays]}."""
    ctx = cl.Context([dev])
    q = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, SRC).build(options=["-cl-std=CL1.2"])
    mf = cl.mem_flags
    res = {}

    def buf(a):
        return cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a)

    def get(b, like):
        h = np.empty_like(like)
        cl.enqueue_copy(q, h, b)
        return h

    n = 3000
    x, y = floats(n, 1), floats(n, 2)
    yb = buf(y.copy())
    prg.saxpy_fma(q, (512,), (64,), buf(x), yb, np.float32(1.75), np.uint32(n))
    res["saxpy_fma"] = [get(yb, y)]

    N = 21
    A, B = floats(N * N, 3), floats(N * N, 4)
    cb = buf(np.zeros(N * N, dtype=np.float32))
    prg.matmul_tiled(q, (24, 24), (8, 8), buf(A), buf(B), cb, np.int32(N))
    res["matmul_tiled"] = [get(cb, np.zeros(N * N, dtype=np.float32))]

    r_in = floats(5000, 5)
    ob = buf(np.zeros(4, dtype=np.float32))
    prg.reduce_f(q, (4 * 64,), (64,), buf(r_in), ob, cl.LocalMemory(64 * 4), np.uint32(5000))
    res["reduce_f"] = [get(ob, np.zeros(4, dtype=np.float32))]

    w, h = 40, 30
    sin = floats(w * h, 6)
    sb = buf(np.full(w * h, -1.0, dtype=np.float32))
    prg.stencil(q, (48, 32), (16, 8), buf(sin), sb, np.int32(w), np.int32(h))
    res["stencil"] = [get(sb, sin)]

    cin = (xorshift(512, 7) % 5000 + 1).astype(np.uint32)
    cs = buf(np.zeros(512, dtype=np.uint32))
    prg.collatz(q, (512,), (128,), buf(cin), cs)
    res["collatz"] = [get(cs, cin)]

    hin = xorshift(1000, 8)
    hb = buf(np.zeros(11, dtype=np.int32))
    prg.histo(q, (1024,), (128,), buf(hin), hb, np.uint32(1000))
    res["histo"] = [get(hb, np.zeros(11, dtype=np.int32))]

    fin = ((xorshift(600, 9) % 100).astype(np.float32) - 50)
    fb = buf(np.zeros(1, dtype=np.float32))
    prg.fsum_cas(q, (640,), (64,), buf(fin), fb, np.uint32(600))
    res["fsum_cas"] = [get(fb, np.zeros(1, dtype=np.float32))]

    w64 = xorshift(256, 10).astype(np.uint64)
    a64 = ((w64[:128] << np.uint64(32)) | w64[128:]).view(np.int64)
    a64[:6] = [0, 1, -1, 7, -(1 << 63), (1 << 63) - 1]
    b64 = np.roll(a64, 3)
    lb = buf(np.zeros(8 * 128, dtype=np.int64))
    prg.longops(q, (128,), (64,), buf(a64), buf(b64), lb)
    res["longops"] = [get(lb, np.zeros(8 * 128, dtype=np.int64))]

    bin_ = xorshift(256, 11)
    bin_[:4] = [0, 1, 0x80000000, 0xFFFFFFFF]
    bb = buf(np.zeros(8 * 256, dtype=np.uint32))
    prg.bitsi(q, (256,), (64,), buf(bin_), bb)
    res["bitsi"] = [get(bb, np.zeros(8 * 256, dtype=np.uint32))]

    vin = floats(4 * 128, 12, -3.0, 6.0)
    vo, vs = buf(np.zeros(4 * 128, dtype=np.float32)), buf(np.zeros(4 * 128, dtype=np.uint8))
    prg.vec4(q, (128,), (32,), buf(vin), vo, vs)
    res["vec4"] = [get(vo, vin), get(vs, np.zeros(4 * 128, dtype=np.uint8))]
    q.finish()
    exact = {
        "collatz": [np.array([collatz(int(v)) for v in cin], dtype=np.uint32)],
        "histo": [np.concatenate([np.bincount(hin % 10, minlength=10), [int((hin >> 4).max())]]).astype(np.int32)],
        "fsum_cas": [np.array([fin.astype(np.float64).sum()], dtype=np.float32)],
    }
    return res, exact


def collatz(v):
    s = 0
    while v != 1 and s < 1000:
        v = 3 * v + 1 if v & 1 else v >> 1
        s += 1
    return s


def main():
    plats = {p.name: p for p in cl.get_platforms()}
    if "vmgpu" not in plats:
        print("FAIL: no vmgpu platform")
        return 1
    pocl = next((p for name, p in plats.items() if "Portable" in name or "pocl" in name.lower()), None)
    if pocl is None:
        print("SKIP: no PoCL platform (pocl-opencl-icd) next to vmgpu")
        return 77
    vdev = plats["vmgpu"].get_devices()[0]
    if not vdev.compiler_available:
        print("SKIP: vmgpu has no compiler here")
        return 77
    got, exact = run_all(vdev)
    ref, _ = run_all(pocl.get_devices()[0])
    fails = 0
    for name in got:
        for j, (g, r) in enumerate(zip(got[name], ref[name])):
            same = g.tobytes() == r.tobytes()
            if not same:
                fails += 1
                diff = np.flatnonzero(g.view(np.uint8) != r.view(np.uint8))
                print(f"FAIL {name}[{j}]: differs from PoCL at bytes {diff[:6]} of {g.nbytes}")
            else:
                print(f"ok   {name}[{j}]: {len(g)} elements, the same bits as PoCL")
        for j, w in enumerate(exact.get(name, [])):
            if got[name][j].tobytes() != w.astype(got[name][j].dtype).tobytes():
                fails += 1
                print(f"FAIL {name}[{j}]: not the exact answer {w[:6]} (got {got[name][j][:6]})")
            else:
                print(f"ok   {name}[{j}]: the exact answer")
    print(f"{'FAIL' if fails else 'PASS'}: {fails} differences")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
