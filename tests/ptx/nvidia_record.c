// Records NVIDIA's answers for the f32 PTX fixtures: loads each fixture's PTX with the CUDA
// driver API (cuModuleLoadDataEx: NVIDIA's JIT), runs it on fixed inputs (edge values and a
// seeded random stream, made here) and writes inputs and outputs, as hex words, to
// <out dir>/<kernel>.txt. Those files are kept in tests/ptx/nvidia/; simt_tb --nvidia reads
// them, runs the translated kernel on the recorded inputs and compares every output bit for bit.
//
// Built and run on a machine with an NVIDIA GPU only (not part of the CMake build):
//   gcc -O2 -I/usr/local/cuda/include tests/ptx/nvidia_record.c -lm
//       -L/usr/local/cuda/lib64/stubs -lcuda -o nvidia_record
//   ./nvidia_record tests/ptx/fixtures <out dir>
//
// Format: "kernel NAME grid G block B", then sections "name count" followed by count words.
#include <cuda.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(call)                                                                      \
  do {                                                                                \
    CUresult r_ = (call);                                                             \
    if (r_ != CUDA_SUCCESS) {                                                         \
      const char *s_ = NULL;                                                          \
      cuGetErrorString(r_, &s_);                                                      \
      fprintf(stderr, "%s:%d: %s = %d (%s)\n", __FILE__, __LINE__, #call, (int)r_,    \
              s_ ? s_ : "?");                                                         \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

static uint32_t rng_state = 0x12345678u;
static int g_version_patched;  // the driver took the fixtures only as PTX ISA 8.0
static uint32_t rnd(void) {  // xorshift32
  uint32_t x = rng_state;
  x ^= x << 13, x ^= x >> 17, x ^= x << 5;
  return rng_state = x;
}
static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float frand(float lo, float hi) { return lo + (hi - lo) * (float)(rnd() >> 8) / 16777216.0f; }

static const uint32_t kEdges[] = {
    0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000,
    0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7FFFFFFF, 0xFFC12345,
    0x7F800001, 0x3F800000, 0xBF800000, 0x33800000, 0x3F800001, 0x3F000000, 0xBFC00000,
    0x40200000, 0x4F000000, 0xCF000000, 0x4F800000, 0x4B000001, 0x3EFFFFFF, 0x0CFFFFFF};
#define NEDGE (sizeof kEdges / sizeof kEdges[0])

static char *read_text(const char *dir, const char *file) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *t = calloc((size_t)n + 1, 1);
  if (!t || fread(t, 1, (size_t)n, f) != (size_t)n) exit(1);
  fclose(f);
  return t;
}

static CUfunction load(const char *dir, const char *file, const char *kernel) {
  char *ptx = read_text(dir, file);
  char log[8192] = "";
  CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[2] = {log, (void *)(uintptr_t)sizeof log};
  CUmodule m;
  CUresult r = cuModuleLoadDataEx(&m, ptx, 2, opts, vals);
  if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
    // NVRTC from PyPI may be newer than the GPU machine's driver: the fixtures use nothing newer
    // than PTX ISA 8.0, so the same text is loaded under that version (said in the recording)
    char *v = strstr(ptx, ".version ");
    if (v && v[9] >= '0' && v[9] <= '9' && v[10] == '.' && v[11] >= '0' && v[11] <= '9') {
      fprintf(stderr, "%s: PTX version %.3s not accepted, loading it as 8.0\n", file, v + 9);
      v[9] = '8', v[11] = '0';
      g_version_patched = 1;
      log[0] = 0;
      r = cuModuleLoadDataEx(&m, ptx, 2, opts, vals);
    }
  }
  if (r != CUDA_SUCCESS) {
    fprintf(stderr, "%s: cuModuleLoadDataEx = %d\n%s\n", file, (int)r, log);
    exit(1);
  }
  free(ptx);
  CUfunction f;
  CK(cuModuleGetFunction(&f, m, kernel));
  return f;
}

static CUdeviceptr upload(const uint32_t *w, size_t n) {
  CUdeviceptr d;
  CK(cuMemAlloc(&d, n * 4 + 4));
  if (w) CK(cuMemcpyHtoD(d, w, n * 4));
  else CK(cuMemsetD32(d, 0, n));
  return d;
}

static FILE *out_file(const char *dir, const char *kernel, unsigned grid, unsigned block,
                      const char *gpu) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s.txt", dir, kernel);
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
  int drv = 0;
  cuDriverGetVersion(&drv);
  fprintf(f, "# NVIDIA's answers for tests/ptx/fixtures (tests/ptx/nvidia_record.c), %s, driver API %d%s\n",
          gpu, drv, g_version_patched ? ", PTX loaded as .version 8.0" : "");
  fprintf(f, "kernel %s grid %u block %u\n", kernel, grid, block);
  return f;
}
static void section(FILE *f, const char *name, const uint32_t *w, size_t n) {
  fprintf(f, "%s %zu\n", name, n);
  for (size_t i = 0; i < n; ++i) fprintf(f, "%08x%s", w[i], (i % 8 == 7 || i + 1 == n) ? "\n" : " ");
}

static void run(CUfunction fn, unsigned grid, unsigned block, void **params) {
  CK(cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, NULL, params, NULL));
  CK(cuCtxSynchronize());
}

// fcmp_f32 / fcvt_f32 / fmath_f32: every pair of edge values, then random pairs (for fmath_f32,
// `moderate`: a in +-2^[-4, 8), where exp, tanh and erf are not saturated; b in +-2^[-20, 20))
static void pairs(const char *fx, const char *odir, const char *gpu, const char *file,
                  const char *kernel, unsigned per, int moderate) {
  const unsigned n = 1024;
  uint32_t *a = malloc(4 * n), *b = malloc(4 * n), *o = malloc(4 * per * n);
  unsigned k = 0;
  for (unsigned i = 0; i < NEDGE; ++i)
    for (unsigned j = 0; j < NEDGE; ++j) a[k] = kEdges[i], b[k] = kEdges[j], ++k;
  for (; k < n && moderate; ++k) {
    a[k] = fbits(ldexpf(frand(-1.0f, 1.0f), (int)(rnd() % 12) - 4));
    b[k] = fbits(ldexpf(frand(-1.0f, 1.0f), (int)(rnd() % 40) - 20));
  }
  for (; k < n; ++k) {
    a[k] = (k % 3 == 0) ? fbits(frand(-3e9f, 3e9f)) : rnd();
    b[k] = (k % 4 == 0) ? (a[k] ^ 0x80000000u) + (rnd() % 64) - 32 : (k % 2 ? rnd() : rnd() >> (rnd() % 32));
  }
  CUfunction fn = load(fx, file, kernel);
  CUdeviceptr da = upload(a, n), db = upload(b, n), dout = upload(NULL, per * n);
  void *params[] = {&da, &db, &dout, (void *)&n};
  unsigned grid = 4, block = 16;
  run(fn, grid, block, params);
  CK(cuMemcpyDtoH(o, dout, 4 * per * n));
  FILE *f = out_file(odir, kernel, grid, block, gpu);
  section(f, "a", a, n);
  section(f, "b", b, n);
  section(f, "out", o, per * n);
  fclose(f);
  printf("%s: %u pairs, %u words\n", kernel, n, per * n);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <fixtures dir> <out dir>\n", argv[0]);
    return 2;
  }
  const char *fx = argv[1], *odir = argv[2];
  CK(cuInit(0));
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  char gpu[256];
  CK(cuDeviceGetName(gpu, sizeof gpu, dev));
  CUcontext ctx;
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  printf("device: %s\n", gpu);

  pairs(fx, odir, gpu, "fcmp_f32.ptx", "fcmp_f32", 16, 0);
  pairs(fx, odir, gpu, "fcvt_f32.ptx", "fcvt_f32", 12, 0);

  {  // saxpy: y = a*x + y, one thread per element
    const unsigned n = 1000;
    uint32_t *x = malloc(4 * n), *y = malloc(4 * n), *o = malloc(4 * n);
    for (unsigned i = 0; i < n; ++i) x[i] = fbits(frand(-100, 100)), y[i] = fbits(frand(-100, 100));
    for (unsigned i = 0; i < NEDGE; ++i) x[1 + 2 * i] = kEdges[i], y[2 + 2 * i] = kEdges[NEDGE - 1 - i];
    uint32_t a = fbits(-1.7f);
    float af = -1.7f;
    CUfunction fn = load(fx, "saxpy_f32.ptx", "saxpy");
    CUdeviceptr dx = upload(x, n), dy = upload(y, n);
    void *params[] = {&af, &dx, &dy, (void *)&n};
    unsigned block = 16, grid = (n + block - 1) / block;
    run(fn, grid, block, params);
    CK(cuMemcpyDtoH(o, dy, 4 * n));
    FILE *f = out_file(odir, "saxpy", grid, block, gpu);
    section(f, "a", &a, 1);
    section(f, "x", x, n);
    section(f, "y", y, n);
    section(f, "out", o, n);
    fclose(f);
    printf("saxpy: %u elements\n", n);
  }
  {  // reduce_f32: per-block fmaf slices and a tree sum
    const unsigned n = 1000, grid = 4, block = 16;
    uint32_t *x = malloc(4 * n), o[4];
    for (unsigned i = 0; i < n; ++i) x[i] = fbits(frand(-1, 1));
    x[7] = 0x00000001;  // a subnormal term
    uint32_t w = fbits(0.1f);
    float wf = 0.1f;
    CUfunction fn = load(fx, "reduce_f32.ptx", "reduce_f32");
    CUdeviceptr dx = upload(x, n), dout = upload(NULL, grid);
    void *params[] = {&dx, &wf, &dout, (void *)&n};
    run(fn, grid, block, params);
    CK(cuMemcpyDtoH(o, dout, 4 * grid));
    FILE *f = out_file(odir, "reduce_f32", grid, block, gpu);
    section(f, "w", &w, 1);
    section(f, "x", x, n);
    section(f, "out", o, grid);
    fclose(f);
    printf("reduce_f32: %u elements, %u blocks\n", n, grid);
  }
  pairs(fx, odir, gpu, "fmath_f32.ptx", "fmath_f32", 8, 1);
  pairs(fx, odir, gpu, "fmath_fast_f32.ptx", "fmath_fast_f32", 8, 1);
  CK(cuDevicePrimaryCtxRelease(dev));
  return 0;
}
