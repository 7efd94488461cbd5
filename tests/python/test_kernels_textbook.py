"""Textbook and sample-style CUDA C kernels on vmgpu, bit for bit against NVIDIA's GPU.

Each kernel is compiled by NVIDIA's NVRTC (cuda.bindings.nvrtc), loaded with cuModuleLoadData and
launched with cuLaunchKernel through NVIDIA's cuda-bindings: f32 arithmetic with fused
multiply-adds, grid-stride loops over size_t, 2D grids, shared-memory tiles and reductions with
barriers, divergent data-dependent loops, integer and f32 global atomics, 64-bit integers, bit
intrinsics. Every output is checked two ways:

- against numpy, where the host can compute the exact answer (the integer kernels, the f32 atomic
  sum of integral values);
- against the output NVIDIA's GPU gave for the same PTX source and inputs: a SHA-256 digest per
  output array, recorded by this very script with `--record FILE` on a machine with an NVIDIA GPU
  (tests/python/nvidia_textbook_*.txt says which).

Inputs come from a fixed xorshift generator written here, so they do not depend on numpy's version.
usage: test_kernels_textbook.py [--record FILE] [--only NAME[,NAME...]] [--ptx-version X.Y]
"""
import hashlib
import os
import re
import sys

import numpy as np
from cuda.bindings import driver as cu

from test_bindings_kernels import from_device, load, nvrtc_ptx, pointer_array, to_device
from vmgpu_pytest import check, ok, run

HERE = os.path.dirname(os.path.abspath(__file__))
RECORD = os.path.join(HERE, "nvidia_textbook_h200_580.txt")


def xorshift(n, seed):
    """n uint32 words of Marsaglia's xorshift32 from seed (nonzero)."""
    out = np.empty(n, dtype=np.uint32)
    x = seed & 0xFFFFFFFF
    for i in range(n):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out[i] = x
    return out


def floats(n, seed, lo=-4.0, hi=4.0):
    """f32 values in [lo, hi) with 20 random mantissa bits (from xorshift words)."""
    w = xorshift(n, seed).astype(np.float64)
    return (lo + (hi - lo) * w / 2.0 ** 32).astype(np.float32)


class K:
    """A kernel: `args` is a list of ("in", array) | ("out", dtype, count) | numpy scalar, in
    parameter order; grid, block, shared bytes; `ref(ins)` gives the exact outputs, or None."""

    def __init__(self, name, source, args, grid, block, shared=0, ref=None):
        self.name, self.source, self.args = name, source, args
        self.grid, self.block, self.shared, self.ref = grid, block, shared, ref


def i32(a):
    return np.asarray(a, dtype=np.int64).astype(np.uint64).astype(np.uint32).view(np.int32)


# ---------------------------------------------------------------------------- the kernels

N_SAXPY = 3000
SAXPY = K("saxpy_sizet", r"""
extern "C" __global__ void saxpy_sizet(const float *x, float *y, float a, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)
    y[i] = a * x[i] + y[i];
}""", [("in", floats(N_SAXPY, 1)), ("inout", floats(N_SAXPY, 2)), np.float32(1.75), np.uint64(N_SAXPY)],
    (5, 1, 1), (128, 1, 1))

MM_N = 24
MATMUL = K("matmul", r"""
extern "C" __global__ void matmul(const float *A, const float *B, float *C, int N) {
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < N && col < N) {
    float s = 0.0f;
    for (int k = 0; k < N; ++k) s += A[row * N + k] * B[k * N + col];
    C[row * N + col] = s;
  }
}""", [("in", floats(MM_N * MM_N, 3)), ("in", floats(MM_N * MM_N, 4)), ("out", np.float32, MM_N * MM_N),
       np.int32(MM_N)], (3, 3, 1), (8, 8, 1))

MATMUL_TILED = K("matmul_tiled", r"""
#define T 8
extern "C" __global__ void matmul_tiled(const float *A, const float *B, float *C, int N) {
  __shared__ float As[T][T], Bs[T][T];
  int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float s = 0.0f;
  for (int t = 0; t < (N + T - 1) / T; ++t) {
    As[ty][tx] = (row < N && t * T + tx < N) ? A[row * N + t * T + tx] : 0.0f;
    Bs[ty][tx] = (col < N && t * T + ty < N) ? B[(t * T + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < T; ++k) s += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < N && col < N) C[row * N + col] = s;
}""", [("in", floats(21 * 21, 5)), ("in", floats(21 * 21, 6)), ("out", np.float32, 21 * 21), np.int32(21)],
    (3, 3, 1), (8, 8, 1))

DOT_N, DOT_BLOCKS = 5000, 6
DOT = K("dot", r"""
extern "C" __global__ void dot(const float *a, const float *b, float *partial, int n) {
  __shared__ float cache[256];
  int tid = threadIdx.x + blockIdx.x * blockDim.x;
  float temp = 0;
  while (tid < n) { temp += a[tid] * b[tid]; tid += blockDim.x * gridDim.x; }
  cache[threadIdx.x] = temp;
  __syncthreads();
  int i = blockDim.x / 2;
  while (i != 0) {
    if (threadIdx.x < i) cache[threadIdx.x] += cache[threadIdx.x + i];
    __syncthreads();
    i /= 2;
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = cache[0];
}""", [("in", floats(DOT_N, 7)), ("in", floats(DOT_N, 8)), ("out", np.float32, DOT_BLOCKS), np.int32(DOT_N)],
    (DOT_BLOCKS, 1, 1), (256, 1, 1))

MANDEL_W, MANDEL_H = 48, 32
MANDEL = K("mandel", r"""
extern "C" __global__ void mandel(int *out, int w, int h, int maxit) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float cr = -2.0f + 3.0f * x / w, ci = -1.5f + 3.0f * y / h, zr = 0, zi = 0;
  int it = 0;
  while (zr * zr + zi * zi < 4.0f && it < maxit) {
    float t = zr * zr - zi * zi + cr;
    zi = 2.0f * zr * zi + ci;
    zr = t;
    ++it;
  }
  out[y * w + x] = it;
}""", [("out", np.int32, MANDEL_W * MANDEL_H), np.int32(MANDEL_W), np.int32(MANDEL_H), np.int32(64)],
    (3, 4, 1), (16, 8, 1))

ST_W, ST_H = 40, 30
STENCIL = K("stencil", r"""
extern "C" __global__ void stencil(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x > 0 && y > 0 && x < w - 1 && y < h - 1)
    out[y * w + x] = 0.25f * (in[y * w + x - 1] + in[y * w + x + 1] + in[(y - 1) * w + x] + in[(y + 1) * w + x])
                     - in[y * w + x];
}""", [("in", floats(ST_W * ST_H, 9)), ("out", np.float32, ST_W * ST_H), np.int32(ST_W), np.int32(ST_H)],
    (3, 2, 1), (16, 16, 1))

TR_W, TR_H = 37, 29
TRANSPOSE = K("transpose", r"""
extern "C" __global__ void transpose(const float *in, float *out, int w, int h) {
  __shared__ float tile[16][17];
  int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
  __syncthreads();
  x = blockIdx.y * 16 + threadIdx.x;
  y = blockIdx.x * 16 + threadIdx.y;
  if (x < h && y < w) out[y * h + x] = tile[threadIdx.x][threadIdx.y];
}""", [("in", floats(TR_W * TR_H, 10)), ("out", np.float32, TR_W * TR_H), np.int32(TR_W), np.int32(TR_H)],
    (3, 2, 1), (16, 16, 1),
    ref=lambda ins: [ins[0].reshape(TR_H, TR_W).T.reshape(-1)])

# NVIDIA's transpose sample's scheme: 32 x 32 tiles padded to 33 columns (4.2 KiB of shared
# memory), blocks of 32 x 8 threads that each move four rows
TRC_W, TRC_H = 70, 45
TRANSPOSE_COALESCED = K("transpose_coalesced", r"""
#define TILE_DIM 32
#define BLOCK_ROWS 8
extern "C" __global__ void transpose_coalesced(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < height && y + j < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}""", [("out", np.float32, TRC_W * TRC_H), ("in", floats(TRC_W * TRC_H, 45)), np.int32(TRC_W), np.int32(TRC_H)],
    (3, 2, 1), (32, 8, 1),
    ref=lambda ins: [ins[0].reshape(TRC_H, TRC_W).T.reshape(-1)])

HIST_N = 2000
HISTO = K("histo_mod", r"""
extern "C" __global__ void histo_mod(const unsigned *in, unsigned *bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&bins[in[i] % 10u], 1u);
}""", [("in", xorshift(HIST_N, 11)), ("out0", np.uint32, 10), np.int32(HIST_N)], (4, 1, 1), (128, 1, 1),
    ref=lambda ins: [np.bincount(ins[0] % 10, minlength=10).astype(np.uint32)])

COUNTIF_N = 1500
COUNTIF = K("countif", r"""
extern "C" __global__ void countif(const int *in, int *count, int n, int thr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > thr) { atomicAdd(count, 1); atomicMax(count + 1, in[i]); atomicMin(count + 2, in[i]); }
}""", [("in", xorshift(COUNTIF_N, 12).view(np.int32)), ("out0", np.int32, 3), np.int32(COUNTIF_N),
       np.int32(1 << 29)], (6, 1, 1), (256, 1, 1))


def countif_ref(ins):
    v = ins[0][ins[0] > (1 << 29)]
    return [np.array([len(v), v.max(), v.min()], dtype=np.int32)]


COUNTIF.ref = countif_ref
COUNTIF_INIT = np.array([0, -(1 << 31), 0x7FFFFFFF], dtype=np.int32)

DIV_N = 600
DIVERGENT = K("divergent", r"""
extern "C" __global__ void divergent(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i], steps = 0;
  if (v & 1) { while (v > 1) { v = (v & 1) ? 3 * v + 1 : v / 2; ++steps; } }
  else { for (int k = 0; k < (v & 15); ++k) steps += k * k; }
  out[i] = steps;
}""", [("in", (xorshift(DIV_N, 13) % 3000 + 1).astype(np.int32)), ("out", np.int32, DIV_N), np.int32(DIV_N)],
    (3, 1, 1), (256, 1, 1))


def divergent_ref(ins):
    out = []
    for v in ins[0].tolist():
        steps = 0
        if v & 1:
            while v > 1:
                v = 3 * v + 1 if v & 1 else v // 2
                steps += 1
        else:
            steps = sum(k * k for k in range(v & 15))
        out.append(steps)
    return [np.array(out, dtype=np.int32)]


DIVERGENT.ref = divergent_ref

I64_N = 64
EDGE64 = np.array([0, 1, -1, 2, -2, 7, -7, 10, 1000, (1 << 31) - 1, -(1 << 31), 1 << 31, (1 << 32) - 1, 1 << 32,
                   (1 << 62) + 12345, -(1 << 63), (1 << 63) - 1, 0x123456789ABCDEF], dtype=object)


def int64_inputs():
    w = xorshift(4 * I64_N, 14).astype(np.uint64)
    rnd = ((w[0::2] << np.uint64(32)) | w[1::2]).view(np.int64)
    a = np.array([int(x) for x in EDGE64] + [int(x) for x in rnd[:I64_N - len(EDGE64)]], dtype=np.int64)
    b = np.roll(a, 5) ^ np.int64(3)
    b[::4] = (rnd[I64_N // 2: I64_N // 2 + len(b[::4])] & np.int64(0xFF))   # small shift amounts too
    return a, b


A64, B64 = int64_inputs()
INT64 = K("int64ops", r"""
extern "C" __global__ void int64ops(const long long *a, const long long *b, long long *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long x = a[i], y = b[i];
  unsigned long long ux = x, uy = y;
  int s = (int)(uy & 63);
  long long *o = out + 16 * i;
  o[0] = x + y; o[1] = x - y; o[2] = x * y; o[3] = (long long)(ux << s);
  o[4] = (long long)(ux >> s); o[5] = x >> s; o[6] = x < y ? x : y; o[7] = ux > uy ? ux : uy;
  o[8] = x < 0 ? -x : x; o[9] = (x == y) | ((x < y) << 1) | ((ux < uy) << 2) | ((x >= y) << 3);
  o[10] = (long long)(ux / 10); o[11] = x / 7; o[12] = (long long)(ux % 1000); o[13] = x ^ ~y;
  o[14] = (x << 13) | (long long)(ux >> 51); o[15] = __popcll(ux) + __clzll(uy) * 100;
}""", [("in", A64), ("in", B64), ("out", np.int64, 16 * I64_N), np.int32(I64_N)], (1, 1, 1), (64, 1, 1))


def int64_ref(ins):
    M = (1 << 64) - 1

    def s64(v):
        v &= M
        return v - (1 << 64) if v >> 63 else v

    def tdiv(p, q):  # C's division, toward zero
        r = abs(p) // abs(q)
        return r if (p < 0) == (q < 0) else -r

    out = []
    for x, y in zip(ins[0].tolist(), ins[1].tolist()):
        ux, uy, s = x & M, y & M, y & 63
        clz = 64 - uy.bit_length()
        out += [s64(x + y), s64(x - y), s64(x * y), s64(ux << s), s64(ux >> s), x >> s, min(x, y),
                s64(max(ux, uy)), s64(abs(x)), int(x == y) | (int(x < y) << 1) | (int(ux < uy) << 2) | (int(x >= y) << 3),
                s64(ux // 10), tdiv(x, 7), s64(ux % 1000), s64(x ^ ~y), s64((x << 13) | (ux >> 51)),
                bin(ux).count("1") + clz * 100]
    return [np.array(out, dtype=np.int64)]


INT64.ref = int64_ref

BITS_N = 200
BITS = K("bits", r"""
extern "C" __global__ void bits(const unsigned *in, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = in[i], w = in[(i + 1) % n];
  unsigned *o = out + 8 * i;
  o[0] = __popc(v); o[1] = __clz(v); o[2] = __brev(v); o[3] = (v << 7) | (v >> 25);
  o[4] = __ffs(v); o[5] = __byte_perm(v, w, 0x5140); o[6] = __funnelshift_r(v, w, w & 63);
  o[7] = __clz((int)v >> 3) + __ffs(w) * 64;
}""", [("in", np.concatenate([np.array([0, 1, 0x80000000, 0xFFFFFFFF, 0x7FFFFFFF, 0x00010000, 0xF0F0F0F0, 0x80],
                                       dtype=np.uint32), xorshift(BITS_N - 8, 15)])),
       ("out", np.uint32, 8 * BITS_N), np.int32(BITS_N)], (1, 1, 1), (256, 1, 1))


def bits_ref(ins):
    v = [int(x) for x in ins[0]]
    n, M = len(v), 0xFFFFFFFF
    out = []
    for i in range(n):
        x, w = v[i], v[(i + 1) % n]
        ffs = lambda t: (t & -t).bit_length()
        brev = int("{:032b}".format(x)[::-1], 2)
        xb, wb = x.to_bytes(4, "little"), w.to_bytes(4, "little")
        bb = xb + wb
        perm = bytes([bb[(0x5140 >> (4 * k)) & 7] for k in range(4)])
        funnel = ((w << 32 | x) >> (w & 31)) & M   # __funnelshift_r: the amount mod 32
        sx = (x - (1 << 32) if x >> 31 else x) >> 3
        out += [bin(x).count("1"), 32 - x.bit_length(), brev, ((x << 7) | (x >> 25)) & M, ffs(x),
                int.from_bytes(perm, "little"), funnel, (32 - (sx & M).bit_length()) + ffs(w) * 64]
    return [np.array(out, dtype=np.uint32)]


BITS.ref = bits_ref

FAT_N = 1000
FATOMIC = K("fatomic", r"""
extern "C" __global__ void fatomic(const float *in, float *sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&sums[0], in[i]);
    float old = atomicAdd(&sums[1 + (i & 3)], 0.5f);
    if (i == 0) sums[5] = old;                    // the old word comes back
    if (i == 1) atomicAdd(&sums[6], 1.0e-40f);    // a subnormal: atom.add.f32 flushes it
    if (i == 2) atomicAdd(&sums[7], -3.0e-39f);
  }
}""", [("in", (xorshift(FAT_N, 16) % 200).astype(np.float32) - 100), ("out0", np.float32, 8), np.int32(FAT_N)],
    (4, 1, 1), (256, 1, 1))


def fatomic_ref(ins):
    s = np.zeros(8, dtype=np.float32)
    s[0] = np.float32(ins[0].astype(np.float64).sum())     # integral values: exact in any order
    s[1:5] = np.float32(0.5 * (FAT_N // 4))
    return [s]


FATOMIC.ref = None  # checked in textbook(): sums[5] is whichever old value thread 0 saw

LL_N = 300
LONGLONG = K("longlong", r"""
extern "C" __global__ void longlong(const int *in, long long *out, int n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (size_t)n; i += (size_t)blockDim.x * gridDim.x)
    out[i] = (long long)in[i] * in[i] - (long long)in[i] * 3 + 1;
}""", [("in", xorshift(LL_N, 17).view(np.int32)), ("out", np.int64, LL_N), np.int32(LL_N)], (2, 1, 1), (64, 1, 1),
    ref=lambda ins: [np.array([v * v - 3 * v + 1 for v in ins[0].tolist()], dtype=np.int64)])

UC_N = 700
UCHAR = K("scale_uchar", r"""
extern "C" __global__ void scale_uchar(const unsigned char *in, unsigned char *out, int n, float g) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float v = in[i] * g; out[i] = v > 255.f ? 255 : (unsigned char)v; }
}""", [("in", (xorshift(UC_N, 18) & 0xFF).astype(np.uint8)), ("out", np.uint8, UC_N), np.int32(UC_N),
       np.float32(1.37)], (3, 1, 1), (256, 1, 1))

EDGE32 = [0, 1, -1, 2, -2, 7, -7, 1000, 0x7FFFFFFF, -0x80000000, 0x12345678, -0x12345678]
DIV_A = np.array([a for a in EDGE32 for b in EDGE32], dtype=np.int64).astype(np.int32)
DIV_B = np.array([b for a in EDGE32 for b in EDGE32], dtype=np.int64).astype(np.int32)
DIVEDGE = K("divedge", r"""
extern "C" __global__ void divedge(const int *a, const int *b, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int x = a[i], y = b[i];
    out[4 * i] = x / y; out[4 * i + 1] = x % y;
    out[4 * i + 2] = (int)((unsigned)x / (unsigned)y); out[4 * i + 3] = (int)((unsigned)x % (unsigned)y);
  }
}""", [("in", DIV_A), ("in", DIV_B), ("out", np.int32, 4 * len(DIV_A)), np.int32(len(DIV_A))], (1, 1, 1), (256, 1, 1))


def divedge_ref(ins):
    """C's answers where C defines them; x / 0 and INT_MIN / -1 are whatever NVIDIA's GPU gives
    (its digest), so they are left out here."""
    out = []
    for x, y in zip(ins[0].tolist(), ins[1].tolist()):
        if y == 0 or (x == -(1 << 31) and y == -1):
            out += [None] * 4
            continue
        q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
        ux, uy = x & 0xFFFFFFFF, y & 0xFFFFFFFF
        out += [q, x - q * y, ux // uy, ux % uy]
    return out


D64_E = [0, 1, -1, 2, -7, 10, 1000, (1 << 31) - 1, -(1 << 31), (1 << 32) + 5, -(1 << 40) - 3, (1 << 62) + 12345,
         -(1 << 63), (1 << 63) - 1]
D64_A = np.array([a for a in D64_E for b in D64_E] + [int(x) for x in A64[:40]], dtype=np.int64)
D64_B = np.array([b for a in D64_E for b in D64_E] + [int(x) >> (int(x) & 31) for x in B64[:40]], dtype=np.int64)
DIV64 = K("div64", r"""
extern "C" __global__ void div64(const long long *a, const long long *b, long long *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    long long x = a[i], y = b[i];
    unsigned long long ux = x, uy = y;
    out[4 * i] = x / y; out[4 * i + 1] = x % y;
    out[4 * i + 2] = (long long)(ux / uy); out[4 * i + 3] = (long long)(ux % uy);
  }
}""", [("in", D64_A), ("in", D64_B), ("out", np.int64, 4 * len(D64_A)), np.int32(len(D64_A))], (1, 1, 1),
    (256, 1, 1))


def div64_ref(ins):
    """C's answers where C defines them (y != 0, not INT64_MIN / -1); None elsewhere."""
    M = (1 << 64) - 1
    out = []
    for x, y in zip(ins[0].tolist(), ins[1].tolist()):
        if y == 0 or (x == -(1 << 63) and y == -1):
            out += [None] * 4
            continue
        q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
        ux, uy = x & M, y & M
        out += [q, x - q * y, ux // uy, ux % uy]
    return out


F64_E = [0, 1, -1, 7, (1 << 24) + 1, -(1 << 24) - 1, (1 << 25) + 2, (1 << 25) + 6, -(1 << 25) - 2, (1 << 31) - 1,
         (1 << 32) + 1, (1 << 40) + (1 << 16) + 1, -(1 << 40) - (1 << 16), (1 << 53) + 1, (1 << 62) + (1 << 38),
         (1 << 63) - 1, -(1 << 63), -(1 << 63) + 1, 0x123456789ABCDEF, -0x123456789ABCDEF]
LL2F_IN = np.array(F64_E + [int(x) >> (int(x) & 63) for x in A64[:44]], dtype=np.int64)
LL2F = K("ll2float", r"""
extern "C" __global__ void ll2float(const long long *a, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    long long x = a[i];
    unsigned long long u = (unsigned long long)x;
    float *o = out + 9 * i;
    o[0] = (float)x; o[1] = __ll2float_rz(x); o[2] = __ll2float_rd(x); o[3] = __ll2float_ru(x);
    o[4] = (float)u; o[5] = __ull2float_rz(u); o[6] = __ull2float_rd(u); o[7] = __ull2float_ru(u);
    o[8] = (float)(x >> 20) * 0.5f;
  }
}""", [("in", LL2F_IN), ("out", np.float32, 9 * len(LL2F_IN)), np.int32(len(LL2F_IN))], (1, 1, 1), (64, 1, 1))


def ll2float_ref(ins):
    """Exact rounding of each 64-bit value to f32 in the four modes, from Python's integers."""
    def rnd(v, mode):
        if v == 0:
            return 0.0
        neg, m = v < 0, abs(v)
        e = m.bit_length() - 24
        if e <= 0:
            q, r, e = m, 0, 0
        else:
            q, r = m >> e, m & ((1 << e) - 1)
        half = 1 << (e - 1) if e > 0 else 0
        up = {"rn": r > half or (r == half and half and q & 1),
              "rz": False, "rd": neg and r != 0, "ru": (not neg) and r != 0}[mode]
        q += int(bool(up))
        f = float(q) * 2.0 ** e
        return -f if neg else f
    out = []
    for x in ins[0].tolist():
        u = x & ((1 << 64) - 1)
        out += [rnd(x, "rn"), rnd(x, "rz"), rnd(x, "rd"), rnd(x, "ru"),
                rnd(u, "rn"), rnd(u, "rz"), rnd(u, "rd"), rnd(u, "ru"), rnd(x >> 20, "rn") * 0.5]
    return [np.array(out, dtype=np.float32)]


LL2F.ref = ll2float_ref

F2LL_IN = np.concatenate([np.array([0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 2147483520.0, 2147483648.0,
                                    -2147483648.0, 4294967296.0, 1e15, -1e15, 9.2233715e18, 9.223372e18,
                                    -9.223372e18, -9.2233715e18, 1.8446743e19, 3e19, -3e19, np.inf, -np.inf,
                                    np.nan, 1.2345678e-3, 123456.789], dtype=np.float32),
                          floats(38, 21, -3e12, 3e12)])
F2LL = K("float2ll", r"""
extern "C" __global__ void float2ll(const float *a, long long *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = a[i];
    long long *o = out + 8 * i;
    o[0] = (long long)x; o[1] = __float2ll_rn(x); o[2] = __float2ll_rd(x); o[3] = __float2ll_ru(x);
    o[4] = (long long)(unsigned long long)x; o[5] = (long long)__float2ull_rn(x);
    o[6] = (long long)__float2ull_rd(x); o[7] = (long long)__float2ull_ru(x);
  }
}""", [("in", F2LL_IN), ("out", np.int64, 8 * len(F2LL_IN)), np.int32(len(F2LL_IN))], (1, 1, 1), (64, 1, 1))

ATOMIC_INIT = np.array([0, 0, 0, 0xFFFFFFFF, 0, 0, 0xFF, 0, 0, 0, 3], dtype=np.uint32)
ATOMICS_SAMPLE = K("atomics_sample", r"""
extern "C" __global__ void atomics_sample(unsigned *g) {
  unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&g[0], 10u);
  atomicSub(&g[1], 10u);
  atomicMax(&g[2], tid);
  atomicMin(&g[3], tid);
  atomicInc(&g[4], 17u);
  atomicDec(&g[5], 137u);
  atomicAnd(&g[6], 2u * tid + 7u);
  atomicOr(&g[7], 1u << (tid % 32u));
  atomicXor(&g[8], tid);
  atomicExch(&g[9], 5u);
  atomicInc(&g[10], 0u);
}""", [("inout", ATOMIC_INIT.copy())], (4, 1, 1), (128, 1, 1))


def atomics_ref(ins):
    """The sample's final words: every operation is the same for all threads or commutes."""
    n = 512
    g = [int(x) for x in ATOMIC_INIT]
    g[0] = (g[0] + 10 * n) & 0xFFFFFFFF
    g[1] = (g[1] - 10 * n) & 0xFFFFFFFF
    g[2] = n - 1
    g[3] = 0
    for _ in range(n):
        g[4] = 0 if g[4] >= 17 else g[4] + 1
        g[5] = 137 if g[5] == 0 or g[5] > 137 else g[5] - 1
        g[10] = 0 if g[10] >= 0 else g[10] + 1
    for t in range(n):
        g[6] &= 2 * t + 7
        g[7] |= 1 << (t % 32)
        g[8] ^= t
    g[9] = 5
    return [np.array(g, dtype=np.uint32)]


ATOMICS_SAMPLE.ref = atomics_ref

# Warp-level code: the classic reduction whose last warp runs without barriers on volatile shared
# memory (it relies on the 32 threads of a warp executing in lockstep), shuffles, votes and
# __syncwarp. vmgpu runs them on a unit whose warps are 32 lanes wide (docs/ptx.md, "Warp-level").
WRED_BLOCKS = 6
WARP_REDUCE = K("warp_reduce", r"""
__device__ void warp_reduce(volatile int *s, unsigned tid) {
  s[tid] += s[tid + 32]; s[tid] += s[tid + 16]; s[tid] += s[tid + 8];
  s[tid] += s[tid + 4]; s[tid] += s[tid + 2]; s[tid] += s[tid + 1];
}
extern "C" __global__ void warp_reduce(const int *in, int *out) {
  __shared__ int s[256];
  unsigned tid = threadIdx.x, i = blockIdx.x * 512 + tid;
  s[tid] = in[i] + in[i + 256];
  __syncthreads();
  for (unsigned k = 128; k > 32; k >>= 1) {
    if (tid < k) s[tid] += s[tid + k];
    __syncthreads();
  }
  if (tid < 32) warp_reduce(s, tid);
  if (tid == 0) out[blockIdx.x] = s[0];
}""", [("in", (xorshift(512 * WRED_BLOCKS, 41) >> 12).view(np.int32)), ("out", np.int32, WRED_BLOCKS)],
    (WRED_BLOCKS, 1, 1), (256, 1, 1),
    ref=lambda ins: [ins[0].reshape(WRED_BLOCKS, 512).astype(np.int64).sum(axis=1).astype(np.int32)])

SHFL_N, SHFL_BLOCKS = 5000, 4
SHFL_REDUCE = K("shfl_reduce", r"""
extern "C" __global__ void shfl_reduce(const float *in, float *out, int n) {
  __shared__ float warp_sums[32];
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  if (lane == 0) warp_sums[w] = v;
  __syncthreads();
  if (w == 0) {
    v = lane < (int)(blockDim.x >> 5) ? warp_sums[lane] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (lane == 0) out[blockIdx.x] = v;
  }
}""", [("in", floats(SHFL_N, 42)), ("out", np.float32, SHFL_BLOCKS), np.int32(SHFL_N)],
    (SHFL_BLOCKS, 1, 1), (256, 1, 1))

WOPS_BLOCKS = 3
WARP_OPS = K("warp_ops", r"""
extern "C" __global__ void warp_ops(const int *in, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
  int v = in[t];
  int scan = v;
  for (int o = 1; o < 32; o <<= 1) {
    int x = __shfl_up_sync(0xffffffffu, scan, o);
    if (lane >= o) scan += x;
  }
  int *o = out + t * 10;
  o[0] = scan;
  o[1] = __shfl_sync(0xffffffffu, v, (lane * 7 + 3) & 31);
  o[2] = __shfl_down_sync(0xffffffffu, v, 3, 8);
  o[3] = __shfl_up_sync(0xffffffffu, v, 2, 16);
  o[4] = __shfl_xor_sync(0xffffffffu, v, 5, 16);
  o[5] = __shfl_sync(0xffffffffu, v, lane + 9, 4);
  o[6] = __ballot_sync(0xffffffffu, v & 1);
  o[7] = __all_sync(0xffffffffu, (v & 31) != (t >> 5));
  o[8] = __any_sync(0xffffffffu, (v & 63) == 7);
  o[9] = __popc(__ballot_sync(0xffffffffu, v > 0));
}""", [("in", (xorshift(256 * WOPS_BLOCKS, 43) >> 16).astype(np.int32) - 20000),
       ("out", np.int32, 256 * WOPS_BLOCKS * 10)], (WOPS_BLOCKS, 1, 1), (256, 1, 1))


def warp_ops_ref(ins):
    v = ins[0].astype(np.int64)
    n = len(v)
    out = np.zeros((n, 10), dtype=np.int64)
    for w0 in range(0, n, 32):
        x = v[w0:w0 + 32]
        lane = np.arange(32)

        def seg_src(j, width, mode):   # PTX's shfl with c = ((32 - width) << 8) | clamp
            seg_start = lane & ~(width - 1)
            if mode == "up":
                ok_ = j >= seg_start
            else:
                ok_ = j <= seg_start + width - 1
            return np.where(ok_, x[np.clip(j, 0, 31)], x)
        out[w0:w0 + 32, 0] = np.cumsum(x)
        out[w0:w0 + 32, 1] = x[(lane * 7 + 3) & 31]
        out[w0:w0 + 32, 2] = seg_src(lane + 3, 8, "down")
        out[w0:w0 + 32, 3] = seg_src(lane - 2, 16, "up")
        out[w0:w0 + 32, 4] = seg_src(lane ^ 5, 16, "bfly")
        out[w0:w0 + 32, 5] = x[(lane & ~3) | ((lane + 9) & 3)]
        out[w0:w0 + 32, 6] = int(sum(1 << i for i in range(32) if x[i] & 1))
        t = w0 + lane
        out[w0:w0 + 32, 7] = int(all((x & 31) != (t >> 5)))
        out[w0:w0 + 32, 8] = int(any((x & 63) == 7))
        out[w0:w0 + 32, 9] = int(np.sum(x > 0))
    return [i32(out.reshape(-1))]


WARP_OPS.ref = warp_ops_ref

SYNCWARP = K("syncwarp_rot", r"""
extern "C" __global__ void syncwarp_rot(const int *in, int *out) {
  __shared__ int s[256];
  int t = threadIdx.x, lane = t & 31, base = t & ~31;
  int v = in[blockIdx.x * blockDim.x + t];
  for (int r = 0; r < 3; ++r) {
    s[t] = v;
    __syncwarp();
    v = s[base + ((lane + 1 + r) & 31)] + r;
    __syncwarp();
  }
  out[blockIdx.x * blockDim.x + t] = v;
}""", [("in", (xorshift(512, 44) >> 4).view(np.int32)), ("out", np.int32, 512)], (2, 1, 1), (256, 1, 1))


def syncwarp_ref(ins):
    v = ins[0].astype(np.int64).reshape(-1, 32)
    lane = np.arange(32)
    for r in range(3):
        v = v[:, (lane + 1 + r) & 31] + r
    return [i32(v.reshape(-1))]


SYNCWARP.ref = syncwarp_ref

KERNELS = [SAXPY, MATMUL, MATMUL_TILED, DOT, MANDEL, STENCIL, TRANSPOSE, HISTO, COUNTIF, DIVERGENT, INT64, BITS,
           FATOMIC, LONGLONG, UCHAR, DIVEDGE, DIV64, LL2F, F2LL, ATOMICS_SAMPLE, WARP_REDUCE, SHFL_REDUCE,
           WARP_OPS, SYNCWARP, TRANSPOSE_COALESCED]


# ---------------------------------------------------------------------------- running them

PTX_VERSION = None   # --ptx-version X.Y: the PTX text says that ISA version (for an older driver)


def run_kernel(k):
    """Launches k once; returns (inputs, outputs) as numpy arrays."""
    ptx = nvrtc_ptx(k.source, k.name)
    if PTX_VERSION:
        ptx = re.sub(rb"\.version [0-9.]+", b".version " + PTX_VERSION.encode(), ptx, count=1)
    mod, fn = load(ptx, k.name)
    ins, outs, dev, values = [], [], [], []
    for a in k.args:
        if isinstance(a, tuple) and a[0] in ("in", "inout"):
            d = to_device(a[1])
            ins.append(a[1])
            dev.append(d)
            values.append(d)
            if a[0] == "inout":
                outs.append((d, a[1].dtype, len(a[1])))
        elif isinstance(a, tuple):
            kind, dtype, count = a
            init = np.zeros(count, dtype=dtype)   # "out0": zeros (bins, sums)
            if k is COUNTIF:
                init = COUNTIF_INIT.copy()
            elif kind == "out":                   # a byte pattern where nothing was written
                init = np.frombuffer(b"\xa5" * (count * np.dtype(dtype).itemsize), dtype=dtype).copy()
            d = to_device(init)
            dev.append(d)
            values.append(d)
            outs.append((d, dtype, count))
        else:
            values.append(a)
    boxed, params = pointer_array(values)
    ok(cu.cuLaunchKernel(fn, *k.grid, *k.block, k.shared, 0, params.ctypes.data, 0), "cuLaunchKernel(%s)" % k.name)
    ok(cu.cuCtxSynchronize(), "cuCtxSynchronize(%s)" % k.name)
    got = [from_device(d, n, dtype) for d, dtype, n in outs]
    for d in dev:
        ok(cu.cuMemFree(d))
    ok(cu.cuModuleUnload(mod))
    return ins, got


CONV_N = 500
CONV_CONST = r"""
__constant__ float c_weights[9];
__device__ unsigned int d_positive;
__device__ int d_bias[4] = {10, -20, 30, -40};
extern "C" __global__ void conv_const(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float s = 0.0f;
    for (int k = -4; k <= 4; ++k) {
      int j = min(max(i + k, 0), n - 1);
      s = fmaf(c_weights[k + 4], in[j], s);
    }
    out[i] = s + (float)d_bias[i & 3];
    if (s > 0.0f) atomicAdd(&d_positive, 1u);
  }
}"""


def module_variables():
    """__constant__ and __device__ variables: cuModuleGetGlobal gives their addresses and sizes,
    cuMemcpyHtoD fills the constant weights, the kernel reads them and an initialised table and
    counts into a device variable; returns [outputs, the counter]."""
    mod, fn = load(nvrtc_ptx(CONV_CONST, "conv_const"), "conv_const")
    wp, wbytes = ok(cu.cuModuleGetGlobal(mod, b"c_weights"), "cuModuleGetGlobal(c_weights)")
    cp, cbytes = ok(cu.cuModuleGetGlobal(mod, b"d_positive"), "cuModuleGetGlobal(d_positive)")
    bp, bbytes = ok(cu.cuModuleGetGlobal(mod, b"d_bias"), "cuModuleGetGlobal(d_bias)")
    check("cuModuleGetGlobal: the sizes of c_weights, d_positive, d_bias are 36, 4, 16",
          (wbytes, cbytes, bbytes) == (36, 4, 16), repr((wbytes, cbytes, bbytes)))
    check("cuModuleGetGlobal of a name the module lacks -> CUDA_ERROR_NOT_FOUND",
          cu.cuModuleGetGlobal(mod, b"no_such_variable")[0] == cu.CUresult.CUDA_ERROR_NOT_FOUND)
    bias = from_device(bp, 4)
    check("d_bias holds its initial values", bias.tolist() == [10, -20, 30, -40], repr(bias))
    w = floats(9, 31, -1.0, 1.0)
    ok(cu.cuMemcpyHtoD(wp, w, w.nbytes), "cuMemcpyHtoD(c_weights)")
    ok(cu.cuMemsetD32(cp, 0, 1), "cuMemsetD32(d_positive)")
    x = floats(CONV_N, 32)
    dx, dout = to_device(x), to_device(np.zeros(CONV_N, dtype=np.float32))
    boxed, params = pointer_array([dx, dout, np.int32(CONV_N)])
    ok(cu.cuLaunchKernel(fn, (CONV_N + 127) // 128, 1, 1, 128, 1, 1, 0, 0, params.ctypes.data, 0), "cuLaunchKernel")
    ok(cu.cuCtxSynchronize(), "cuCtxSynchronize(conv_const)")
    out = from_device(dout, CONV_N, np.float32)
    count = from_device(cp, 1, np.uint32)
    # the host's answer: the same fmaf chain in float32 (numpy has no fma: float64 products are exact,
    # one rounding per step as fmaf does)
    want = np.empty(CONV_N, dtype=np.float32)
    pos = 0
    for i in range(CONV_N):
        acc = np.float32(0)
        for k in range(-4, 5):
            j = min(max(i + k, 0), CONV_N - 1)
            acc = np.float32(float(w[k + 4]) * float(x[j]) + float(acc))
        pos += acc > 0
        want[i] = np.float32(acc + np.float32([10, -20, 30, -40][i & 3]))
    check("conv_const: %d outputs equal the host's fmaf chain" % CONV_N, np.array_equal(out, want),
          "first difference at %s" % np.flatnonzero(out != want)[:3])
    check("conv_const: the device counter holds %d" % pos, int(count[0]) == pos, repr(count))
    for d in (dx, dout):
        ok(cu.cuMemFree(d))
    check("cuMemFree of a module variable -> CUDA_ERROR_INVALID_VALUE",
          cu.cuMemFree(cp)[0] == cu.CUresult.CUDA_ERROR_INVALID_VALUE)
    ok(cu.cuModuleUnload(mod))
    return [out, count]


def digest(arr):
    return hashlib.sha256(np.ascontiguousarray(arr).tobytes()).hexdigest()[:32]


def read_record(path):
    rec = {}
    if os.path.exists(path):
        for line in open(path):
            if line.strip() and not line.startswith("#"):
                name, sha = line.split()[:2]
                rec[name] = sha
    return rec


def textbook(record_to=None, only=None):
    ok(cu.cuInit(0), "cuInit")
    dev = ok(cu.cuDeviceGet(0))
    ctx = ok(cu.cuCtxCreate(None, 0, dev), "cuCtxCreate")
    rec = read_record(RECORD)
    lines = []
    for k in KERNELS:
        if only and k.name not in only:
            continue
        ins, outs = run_kernel(k)
        if k.ref is not None:
            want = k.ref(ins)
            for j, (g, w) in enumerate(zip(outs, want)):
                bad = np.flatnonzero(g.view(np.uint8) != np.asarray(w, dtype=g.dtype).view(np.uint8))
                check("%s: output %d (%d elements) equals the host's exact answer" % (k.name, j, len(g)),
                      len(bad) == 0, "first byte difference at %s" % bad[:4])
        if k is DIVEDGE:
            want = divedge_ref(ins)
            g = outs[0].tolist()
            bad = [i for i, w in enumerate(want) if w is not None and (g[i] - w) % (1 << 32)]
            check("divedge: the %d defined quotients and remainders are C's" % sum(w is not None for w in want),
                  not bad, "first differences at %s" % bad[:4])
            undef = [(ins[0][i // 4], ins[1][i // 4], i % 4, g[i]) for i, w in enumerate(want) if w is None]
            print("     x / 0 and INT_MIN / -1 (x, y, [q r uq ur], result): %s" % undef[:8])
        if k is DIV64:
            want = div64_ref(ins)
            g = outs[0].tolist()
            bad = [i for i, w in enumerate(want) if w is not None and (g[i] - w) % (1 << 64)]
            check("div64: the %d defined 64-bit quotients and remainders are C's" % sum(w is not None for w in want),
                  not bad, "first differences at %s" % bad[:4])
        if k is FATOMIC:
            s = outs[0]
            want = fatomic_ref(ins)[0]
            check("fatomic: the f32 atomic sum of 1000 integral values is exact (%g)" % want[0], s[0] == want[0],
                  "(got %r)" % s[0])
            check("fatomic: four bins of 250 x 0.5", np.array_equal(s[1:5], want[1:5]), repr(s[1:5]))
            check("fatomic: the old value is a multiple of 0.5 below 125", s[5] == np.floor(s[5] * 2) / 2 and 0 <= s[5] < 125,
                  repr(s[5]))
            check("fatomic: atomicAdd flushes a subnormal addend to a zero of its sign (0 + -0 is +0)",
                  s[6:8].view(np.uint32).tolist() == [0, 0], repr(s[6:8].view(np.uint32)))
            outs = [np.concatenate([s[:5], s[6:]])]   # the digest leaves out the order-dependent word
        for j, g in enumerate(outs):
            key = "%s.%d" % (k.name, j)
            lines.append("%s %s" % (key, digest(g)))
            if record_to is None:
                check("%s: output %d is NVIDIA's, bit for bit" % (k.name, j), rec.get(key) == digest(g),
                      "(recorded %s, got %s)" % (rec.get(key, "nothing"), digest(g)))
    if not only or "conv_const" in only:
        for j, g in enumerate(module_variables()):
            key = "conv_const.%d" % j
            lines.append("%s %s" % (key, digest(g)))
            if record_to is None:
                check("conv_const: output %d is NVIDIA's, bit for bit" % j, rec.get(key) == digest(g),
                      "(recorded %s, got %s)" % (rec.get(key, "nothing"), digest(g)))
    ok(cu.cuCtxDestroy(ctx))
    if record_to:
        name = ok(cu.cuDeviceGetName(64, dev)).split(b"\0")[0].decode()
        drv = ok(cu.cuDriverGetVersion())
        with open(record_to, "w") as f:
            f.write("# tests/python/test_kernels_textbook.py --record on %s, CUDA driver API %d\n" % (name, drv))
            f.write("# SHA-256 (first 32 hex digits) of each output array's bytes\n")
            f.write("\n".join(lines) + "\n")
        print("recorded %d digests in %s" % (len(lines), record_to))


if __name__ == "__main__":
    args = sys.argv[1:]
    rec_to = args[args.index("--record") + 1] if "--record" in args else None
    only = args[args.index("--only") + 1].split(",") if "--only" in args else None
    if "--ptx-version" in args:
        PTX_VERSION = args[args.index("--ptx-version") + 1]

    def textbook_kernels():
        textbook(rec_to, only)

    run([textbook_kernels])
