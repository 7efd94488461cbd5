"""CUDA C kernels through NVIDIA's own Python stack onto vmgpu: NVRTC (cuda.bindings.nvrtc, the
nvidia-cuda-nvrtc wheel) compiles each kernel to PTX, cuda-bindings' cuModuleLoadData loads it
into vmgpu's libcuda, cuLaunchKernel runs it on the SIMT unit with kernelParams built the way
cuda-bindings users build them (an array of pointers to the argument values, or the
(values, types) tuple form), and numpy checks every element against a host reference.
Bad PTX: CUDA_ERROR_INVALID_PTX with the JIT error log filled (cuModuleLoadDataEx).

Integer kernels only while the unit has no F extension: to add a kernel, append a Kernel to
KERNELS (its source, the arguments it takes, and a numpy reference)."""
import ctypes

import numpy as np
from cuda.bindings import driver as cu
from cuda.bindings import nvrtc

from vmgpu_pytest import check, expect, ok, run

R = cu.CUresult


def nvrtc_ptx(source, name, arch="compute_75"):
    """CUDA C -> PTX text (bytes, NUL-terminated as cuModuleLoadData needs) with NVRTC."""
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), (name + ".cu").encode(), 0, [], [])
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS, err
    opts = [("--gpu-architecture=" + arch).encode(), b"-default-device", b"-std=c++17"]
    err, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, n = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * n
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise RuntimeError("NVRTC: %s" % log.decode(errors="replace"))
    _, n = nvrtc.nvrtcGetPTXSize(prog)
    ptx = b" " * n
    nvrtc.nvrtcGetPTX(prog, ptx)
    nvrtc.nvrtcDestroyProgram(prog)
    return ptx


class Kernel:
    """One test kernel. `inputs(n, rng)` gives the host arrays copied to the device (in parameter
    order); `outputs` how many int32 output arrays of n elements follow them; `scalars(n)` the
    scalar arguments after the arrays (numpy scalars, their dtype is the parameter's type);
    `ref(n, *inputs)` the expected outputs; `grid(n, block)` the grid for a 1D launch of n
    elements with `block` threads per block (2D kernels give their own `launch`)."""

    def __init__(self, name, source, inputs, outputs, scalars, ref, grid=None, launch=None):
        self.name, self.source, self.inputs, self.outputs = name, source, inputs, outputs
        self.scalars, self.ref = scalars, ref
        self.grid = grid or (lambda n, block: ((n + block - 1) // block, 1, 1))
        self.launch = launch


def rand_i32(n, rng, lo=-(1 << 30), hi=1 << 30):
    return rng.integers(lo, hi, n, dtype=np.int64).astype(np.int32)


def wrap32(a):
    return (np.asarray(a, dtype=np.int64) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)


def collatz_ref(x):
    out = np.zeros(len(x), dtype=np.int32)
    for i, v in enumerate(x.astype(np.int64)):
        steps = 0
        while v != 1 and steps < 1000:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            steps += 1
        out[i] = steps
    return out


def reduce_ref(x, block):
    n = len(x)
    blocks = (n + block - 1) // block
    pad = np.zeros(blocks * block, dtype=np.int64)
    pad[:n] = x
    return wrap32(pad.reshape(blocks, block).sum(axis=1))


KERNELS = [
    Kernel("vadd", r"""
extern "C" __global__ void vadd(const int *a, const int *b, int *c, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}""", lambda n, rng: [rand_i32(n, rng), rand_i32(n, rng)], 1, lambda n: [np.uint32(n)],
        lambda n, a, b: [wrap32(a.astype(np.int64) + b)]),
    Kernel("axpy_gridstride", r"""
extern "C" __global__ void axpy_gridstride(const int *x, const int *y, int *out, int k, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = k * x[i] + y[i];
}""", lambda n, rng: [rand_i32(n, rng), rand_i32(n, rng)], 1, lambda n: [np.int32(-7), np.uint32(n)],
        lambda n, x, y: [wrap32(np.int64(-7) * x + y)], grid=lambda n, block: (3, 1, 1)),
    Kernel("bits", r"""
extern "C" __global__ void bits(const unsigned *a, const unsigned *b, unsigned *out, unsigned m1, unsigned m2,
                                unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = a[i], y = b[i];
  unsigned r = (x ^ (y << 3)) + (x >> (y & 31)) - (unsigned)((int)y >> 5);
  r |= (x & 0xff00u) * (y % m1 + 1u);   // moduli as parameters: see CONST_DIVISION
  out[i] = r / (y | 1u) + (x % m2);
}""", lambda n, rng: [rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32),
                      rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)], 1,
        lambda n: [np.uint32(13), np.uint32(977), np.uint32(n)], lambda n, a, b: [bits_ref(a, b)]),
    Kernel("collatz", r"""
extern "C" __global__ void collatz(const int *x, int *steps, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = (unsigned)x[i];   // the peaks of starts below 5000 fit in 32 bits
  int s = 0;
  while (v != 1 && s < 1000) {   // data-dependent trip count: the lanes diverge
    if (v & 1) v = 3 * v + 1; else v >>= 1;
    s++;
  }
  steps[i] = s;
}""", lambda n, rng: [rng.integers(1, 5000, n, dtype=np.int64).astype(np.int32)], 1, lambda n: [np.uint32(n)],
        lambda n, x: [collatz_ref(x)]),
    Kernel("block_sum", r"""
extern "C" __global__ void block_sum(const int *x, int *sums, unsigned n) {
  extern __shared__ int s[];
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? x[i] : 0;
  __syncthreads();
  for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = s[0];
}""", lambda n, rng: [rand_i32(n, rng)], 1, lambda n: [np.uint32(n)], None),
    Kernel("index2d", r"""
extern "C" __global__ void index2d(int *out, unsigned w, unsigned h) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = (int)(x * 1000u + y) ^ (int)(blockIdx.y << 20);
}""", lambda n, rng: [], 1, None, None),
]


# Division by a constant: NVRTC turns x % 13 into mul.wide.u32 + shr.u64 by 34, which needs a
# 64-bit register's high word (docs/ptx.md, "64-bit registers": kept where it is live). It runs.
CONST_DIVISION = r"""
extern "C" __global__ void mod13(const unsigned *a, unsigned *out) { out[threadIdx.x] = a[threadIdx.x] % 13u; }"""
# 64-bit atomicAdd whose result is dropped (NVRTC: atom.global.add.u64 with a dead destination)
# runs as two word-wide AMOs with the carry; one whose old value is read is refused by name
# (the unit's atomics are 32-bit), never a wrong result.
ATOMIC64 = r"""
extern "C" __global__ void atomic64(const unsigned long long *a, unsigned long long *sum) { atomicAdd(sum, a[threadIdx.x]); }"""
ATOMIC64_OLD = r"""
extern "C" __global__ void atomic64_old(unsigned long long *ctr, unsigned long long *out) { out[threadIdx.x] = atomicAdd(ctr, 1ull); }"""


# Dynamic shared memory past CUDA's default 48 KiB per block: refused until the function opts in.
DYN_SHARED = r"""
extern "C" __global__ void dyn_shared(const int *in, int *out, int words) {
  extern __shared__ int buf[];
  for (int i = threadIdx.x; i < words; i += blockDim.x) buf[i] = in[i] * 3;
  __syncthreads();
  for (int i = threadIdx.x; i < words; i += blockDim.x) out[i] = buf[words - 1 - i];
}"""


def bits_ref(a, b):
    u = np.uint64
    m = u(0xFFFFFFFF)
    x, y = a.astype(u), b.astype(u)
    ys5 = ((b.view(np.int32).astype(np.int64) >> 5) & 0xFFFFFFFF).astype(u)   # (int)y >> 5
    r = ((x ^ ((y << u(3)) & m)) + (x >> (y & u(31))) - ys5) & m             # wraps as uint32 does
    r = r | (((x & u(0xff00)) * (y % u(13) + u(1))) & m)
    return ((r // (y | u(1)) + x % u(977)) & m).astype(np.uint32).view(np.int32)


def setup():
    ok(cu.cuInit(0), "cuInit")
    dev = ok(cu.cuDeviceGet(0))
    ctx = ok(cu.cuCtxCreate(None, 0, dev), "cuCtxCreate")
    max_threads = ok(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev))
    return dev, ctx, max_threads


def to_device(arr):
    d = ok(cu.cuMemAlloc(max(arr.nbytes, 4)), "cuMemAlloc")
    if arr.nbytes:
        ok(cu.cuMemcpyHtoD(d, arr, arr.nbytes), "cuMemcpyHtoD")
    return d


def from_device(d, n, dtype=np.int32):
    h = np.zeros(n, dtype=dtype)
    ok(cu.cuMemcpyDtoH(h, d, h.nbytes), "cuMemcpyDtoH")
    return h


def pointer_array(values):
    """kernelParams as NVIDIA's cuda-bindings samples build them: each argument value in its own
    numpy array of its C type, and an array of those arrays' addresses."""
    boxed = [np.array([int(v)], dtype=np.uint64) if isinstance(v, cu.CUdeviceptr) else np.array([v])
             for v in values]
    return boxed, np.array([b.ctypes.data for b in boxed], dtype=np.uint64)


def load(ptx, name):
    mod = ok(cu.cuModuleLoadData(ptx), "cuModuleLoadData(%s)" % name)
    return mod, ok(cu.cuModuleGetFunction(mod, name.encode()), "cuModuleGetFunction(%s)" % name)


def kernels_1d():
    dev, ctx, max_threads = setup()
    block = min(16, max_threads)
    rng = np.random.default_rng(13)
    n = 300
    for k in KERNELS:
        if k.name in ("block_sum", "index2d"):
            continue
        mod, fn = load(nvrtc_ptx(k.source, k.name), k.name)
        ins = k.inputs(n, rng)
        dins = [to_device(a) for a in ins]
        douts = [to_device(np.full(n, -1, dtype=np.int32)) for _ in range(k.outputs)]
        values = dins + douts + k.scalars(n)
        boxed, params = pointer_array(values)
        gx, gy, gz = k.grid(n, block)
        ok(cu.cuLaunchKernel(fn, gx, gy, gz, block, 1, 1, 0, 0, params.ctypes.data, 0), "cuLaunchKernel")
        ok(cu.cuCtxSynchronize(), "cuCtxSynchronize")
        want = k.ref(n, *ins)
        for j, d in enumerate(douts):
            got = from_device(d, n)
            check("%s: %d elements equal numpy's (output %d)" % (k.name, n, j), np.array_equal(got, want[j]),
                  "first difference at %s" % np.flatnonzero(got != want[j])[:3])
        for d in dins + douts:
            cu.cuMemFree(d)
        ok(cu.cuModuleUnload(mod))
    ok(cu.cuCtxDestroy(ctx))


def kernel_params_forms():
    """The same launch through the (values, types) tuple form of kernelParams, and through
    `extra` (one packed argument buffer)."""
    dev, ctx, max_threads = setup()
    k = KERNELS[0]
    mod, fn = load(nvrtc_ptx(k.source, k.name), k.name)
    rng = np.random.default_rng(5)
    n = 100
    a, b = k.inputs(n, rng)
    da, db = to_device(a), to_device(b)
    dc = to_device(np.full(n, -1, dtype=np.int32))
    args = ((da, db, dc, n), (None, None, None, ctypes.c_uint))
    ok(cu.cuLaunchKernel(fn, (n + 15) // 16, 1, 1, 16, 1, 1, 0, 0, args, 0), "cuLaunchKernel (tuple form)")
    ok(cu.cuCtxSynchronize())
    check("vadd through the tuple form of kernelParams", np.array_equal(from_device(dc, n), k.ref(n, a, b)[0]))
    ok(cu.cuMemsetD32(dc, 0xFFFFFFFF, n))
    buf = np.zeros(4, dtype=np.uint64)   # three pointers and n, at the PTX parameters' offsets
    buf[0], buf[1], buf[2], buf[3] = int(da), int(db), int(dc), n
    size = ctypes.c_size_t(28)
    extra = np.array([int(cu.CU_LAUNCH_PARAM_BUFFER_POINTER), buf.ctypes.data,
                      int(cu.CU_LAUNCH_PARAM_BUFFER_SIZE), ctypes.addressof(size),
                      int(cu.CU_LAUNCH_PARAM_END)], dtype=np.uint64)
    ok(cu.cuLaunchKernel(fn, (n + 15) // 16, 1, 1, 16, 1, 1, 0, 0, 0, extra.ctypes.data), "cuLaunchKernel (extra)")
    ok(cu.cuCtxSynchronize())
    check("vadd through extra (BUFFER_POINTER, BUFFER_SIZE)", np.array_equal(from_device(dc, n), k.ref(n, a, b)[0]))
    ok(cu.cuModuleUnload(mod))
    ok(cu.cuCtxDestroy(ctx))


def shared_and_2d():
    dev, ctx, max_threads = setup()
    block = 16 if max_threads >= 16 else max_threads
    rng = np.random.default_rng(7)
    # a shared-memory tree reduction with barriers, dynamic shared memory from the launch
    k = next(x for x in KERNELS if x.name == "block_sum")
    n = 250
    x = k.inputs(n, rng)[0]
    blocks = (n + block - 1) // block
    mod, fn = load(nvrtc_ptx(k.source, k.name), k.name)
    dx, ds = to_device(x), to_device(np.zeros(blocks, dtype=np.int32))
    boxed, params = pointer_array([dx, ds, np.uint32(n)])
    ok(cu.cuLaunchKernel(fn, blocks, 1, 1, block, 1, 1, block * 4, 0, params.ctypes.data, 0), "cuLaunchKernel")
    ok(cu.cuCtxSynchronize())
    check("block_sum: %d block sums equal numpy's" % blocks, np.array_equal(from_device(ds, blocks), reduce_ref(x, block)))
    ok(cu.cuModuleUnload(mod))
    # a 2D grid of 2D blocks
    k = next(x for x in KERNELS if x.name == "index2d")
    w, h, bx, by = 37, 23, 4, block // 4
    mod, fn = load(nvrtc_ptx(k.source, k.name), k.name)
    d = to_device(np.full(w * h, -1, dtype=np.int32))
    boxed, params = pointer_array([d, np.uint32(w), np.uint32(h)])
    ok(cu.cuLaunchKernel(fn, (w + bx - 1) // bx, (h + by - 1) // by, 1, bx, by, 1, 0, 0, params.ctypes.data, 0))
    ok(cu.cuCtxSynchronize())
    yy, xx = np.mgrid[0:h, 0:w].astype(np.int64)
    want = wrap32((xx * 1000 + yy) ^ ((yy // by) << 20)).reshape(-1)
    check("index2d: %dx%d elements over a 2D grid equal numpy's" % (w, h), np.array_equal(from_device(d, w * h), want))
    ok(cu.cuModuleUnload(mod))
    ok(cu.cuCtxDestroy(ctx))


def bad_ptx():
    """A made-up instruction: INVALID_PTX, and the JIT error log names its line."""
    dev, ctx, max_threads = setup()
    ptx = nvrtc_ptx(KERNELS[0].source, "vadd").decode()
    lines = ptx.split("\n")
    at = next(i for i, l in enumerate(lines) if "add.s32" in l)
    lines[at] = "\tfrobnicate.s32 \t%r5, %r3, %r4;"
    bad = ("\n".join(lines)).encode()
    if not bad.endswith(b"\0"):
        bad += b"\0"
    expect("cuModuleLoadData(made-up instruction)", cu.cuModuleLoadData(bad), R.CUDA_ERROR_INVALID_PTX)
    log = bytearray(1024)
    opts = [cu.CUjit_option.CU_JIT_ERROR_LOG_BUFFER, cu.CUjit_option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES]
    res = cu.cuModuleLoadDataEx(bad, len(opts), opts, [log, len(log)])
    expect("cuModuleLoadDataEx(made-up instruction)", res, R.CUDA_ERROR_INVALID_PTX)
    text = bytes(log).split(b"\0")[0].decode()
    print("     JIT error log: %s" % text)
    check("the JIT error log names line %d and the instruction" % (at + 1),
          ("line %d" % (at + 1)) in text and "frobnicate" in text, repr(text))
    log = bytearray(1024)
    res = cu.cuModuleLoadDataEx(nvrtc_ptx(ATOMIC64_OLD, "atomic64_old"), len(opts), opts, [log, len(log)])
    expect("cuModuleLoadDataEx(64-bit atomic, old value used)", res, R.CUDA_ERROR_NOT_SUPPORTED)
    text = bytes(log).split(b"\0")[0].decode()
    check("the JIT error log names atom.global.add.u64", "atom.global.add.u64" in text, repr(text))
    # the dropped-result form: every low-word carry reaches the high word
    mod, fn = load(nvrtc_ptx(ATOMIC64, "atomic64"), "atomic64")
    rng = np.random.default_rng(64)
    a = rng.integers(0, 1 << 64, size=min(256, max_threads), dtype=np.uint64)
    a[:8] = [0xFFFFFFFF, 1, 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 1 << 32, 0, 0x80000000, 0x80000000]
    start = np.array([0xFFFFFFFF00000001], dtype=np.uint64)
    da, dsum = to_device(a), to_device(start)
    boxed, params = pointer_array([da, dsum])
    ok(cu.cuLaunchKernel(fn, 1, 1, 1, len(a), 1, 1, 0, 0, params.ctypes.data, 0), "cuLaunchKernel(atomic64)")
    ok(cu.cuCtxSynchronize())
    want = (int(start[0]) + sum(int(x) for x in a)) % (1 << 64)
    got = int(from_device(dsum, 1, np.uint64)[0])
    check("atomicAdd(unsigned long long) of %d values: 0x%016x (want 0x%016x)" % (len(a), got, want), got == want)
    ok(cu.cuModuleUnload(mod))
    # division by a constant (the high word of mul.wide.u32) loads and computes x % 13
    mod, fn = load(nvrtc_ptx(CONST_DIVISION, "mod13"), "mod13")
    a = np.arange(0xFFFFFFF0, 0xFFFFFFFF, dtype=np.uint64).astype(np.uint32)
    a = np.concatenate([a, np.array([0, 1, 12, 13, 14, 1000003], dtype=np.uint32)])
    da, dout = to_device(a), to_device(np.zeros(len(a), dtype=np.uint32))
    boxed, params = pointer_array([da, dout])
    ok(cu.cuLaunchKernel(fn, 1, 1, 1, len(a), 1, 1, 0, 0, params.ctypes.data, 0), "cuLaunchKernel(mod13)")
    ok(cu.cuCtxSynchronize())
    check("mod13: x %% 13 through mul.wide.u32 and shr.u64 for %d values" % len(a),
          np.array_equal(from_device(dout, len(a), np.uint32), a % np.uint32(13)))
    ok(cu.cuModuleUnload(mod))
    free_before = ok(cu.cuMemGetInfo())[0]
    expect("cuModuleLoadData(not PTX)", cu.cuModuleLoadData(b"this is not PTX\0"), R.CUDA_ERROR_INVALID_IMAGE)
    check("refused loads leave device memory as it was", ok(cu.cuMemGetInfo())[0] == free_before)
    ok(cu.cuCtxDestroy(ctx))


def shared_limits():
    """48 KiB of shared memory per block by default, more after cuFuncSetAttribute opts in (up to
    MAX_SHARED_MEMORY_PER_BLOCK_OPTIN); a launch past the limit is refused and runs nothing."""
    dev, ctx, max_threads = setup()
    A = cu.CUdevice_attribute
    per_block = ok(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, dev))
    optin = ok(cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev))
    check("MAX_SHARED_MEMORY_PER_BLOCK is 49152", per_block == 49152, repr(per_block))
    check("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN is at least 56 KiB", optin >= 57344, repr(optin))
    mod, fn = load(nvrtc_ptx(DYN_SHARED, "dyn_shared"), "dyn_shared")
    F = cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    check("MAX_DYNAMIC_SHARED_SIZE_BYTES starts at 49152", ok(cu.cuFuncGetAttribute(F, fn)) == 49152)
    words = 57344 // 4
    a = np.arange(words, dtype=np.int32) * 7 - 1000
    da, dout = to_device(a), to_device(np.full(words, -1, dtype=np.int32))
    boxed, params = pointer_array([da, dout, np.int32(words)])
    expect("cuLaunchKernel with 56 KiB of dynamic shared memory, no opt-in",
           cu.cuLaunchKernel(fn, 1, 1, 1, 128, 1, 1, words * 4, 0, params.ctypes.data, 0), R.CUDA_ERROR_INVALID_VALUE)
    ok(cu.cuCtxSynchronize())
    check("the refused launch wrote nothing", (from_device(dout, words) == -1).all())
    expect("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, opt-in limit + 1)",
           cu.cuFuncSetAttribute(fn, F, optin + 1), R.CUDA_ERROR_INVALID_VALUE)
    ok(cu.cuFuncSetAttribute(fn, F, words * 4), "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, 57344)")
    check("MAX_DYNAMIC_SHARED_SIZE_BYTES reads back 57344", ok(cu.cuFuncGetAttribute(F, fn)) == 57344)
    ok(cu.cuLaunchKernel(fn, 1, 1, 1, 128, 1, 1, words * 4, 0, params.ctypes.data, 0), "cuLaunchKernel(56 KiB)")
    ok(cu.cuCtxSynchronize())
    check("dyn_shared: 14336 words through 56 KiB of shared memory, reversed",
          np.array_equal(from_device(dout, words), (a * 3)[::-1]))
    ok(cu.cuModuleUnload(mod))
    ok(cu.cuCtxDestroy(ctx))


if __name__ == "__main__":
    run([kernels_1d, kernel_params_forms, shared_and_2d, bad_ptx, shared_limits])
