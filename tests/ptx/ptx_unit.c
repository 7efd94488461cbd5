// Host tests of the PTX translator (sw/ptx): every fixture of NVRTC's translates with the
// descriptor its source implies; f32 forms the unit does not compute (sin/cos/lg2/tanh .approx,
// div/sqrt without fdiv), a made-up instruction and PTX that needs a
// unsupported instruction fail with the named error at the right line; bad arguments;
// and the ptx_translate_ms figure.
//
// ptx_unit <dir with the .ptx fixtures>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vmgpu/ptx.h"

static int checks, failures;
#define CHECK(cond, ...)                                             \
  do {                                                               \
    ++checks;                                                        \
    if (!(cond)) {                                                   \
      ++failures;                                                    \
      printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);         \
      printf(__VA_ARGS__);                                           \
      printf("\n");                                                  \
    }                                                                \
  } while (0)

static char *read_file(const char *dir, const char *name, size_t *len) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *t = malloc((size_t)n + 1);
  if (t && fread(t, 1, (size_t)n, f) != (size_t)n) n = 0;
  fclose(f);
  if (t) t[n] = '\0';
  *len = (size_t)n;
  return t;
}

// 1-based number of the first line containing `needle`, 0 if none
static int line_of(const char *text, const char *needle) {
  const char *p = strstr(text, needle);
  if (!p) return 0;
  int line = 1;
  for (const char *q = text; q < p; ++q) line += *q == '\n';
  return line;
}

// text with the first line containing `needle` replaced by `repl` (a whole line)
static char *replace_line(const char *text, const char *needle, const char *repl) {
  const char *p = strstr(text, needle);
  if (!p) return NULL;
  while (p > text && p[-1] != '\n') --p;
  const char *e = strchr(p, '\n');
  if (!e) e = p + strlen(p);
  size_t n = strlen(text) + strlen(repl) + 2;
  char *out = malloc(n);
  snprintf(out, n, "%.*s%s%s", (int)(p - text), text, repl, e);
  return out;
}

static ptx_module *translate_ok(const char *dir, const char *file, const char *kernel) {
  size_t len;
  char *t = read_file(dir, file, &len);
  CHECK(t != NULL, "cannot read %s/%s", dir, file);
  if (!t) return NULL;
  ptx_module *m = NULL;
  ptx_error e;
  ptx_status s = ptx_translate(t, len, NULL, &m, &e);
  CHECK(s == PTX_OK, "%s: %s line %d [%s] %s", file, ptx_status_name(s), e.line, e.instr, e.message);
  free(t);
  if (s != PTX_OK) return NULL;
  CHECK(m->num_kernels == 1 && ptx_module_kernel(m, kernel) != NULL, "%s: kernel %s not found", file, kernel);
  CHECK(m->code_bytes % 4 == 0 && m->code_bytes > 0, "%s: %u bytes of code", file, m->code_bytes);
  CHECK(m->address_size == 64 && m->ptx_version_major >= 7, "%s: header", file);
  const ptx_kernel *k = ptx_module_kernel(m, kernel);
  if (k) {
    CHECK(k->entry + k->code_bytes <= m->code_bytes, "%s: kernel outside the code", file);
    // parameters: in order, each at its alignment, no overlap
    uint32_t end = 0;
    for (uint32_t i = 0; i < k->num_params; ++i) {
      const ptx_param *p = &k->params[i];
      CHECK(p->offset >= end && p->offset % p->align == 0, "%s: parameter %u at %u", file, i, p->offset);
      end = p->offset + p->size;
    }
    CHECK(k->param_bytes == end, "%s: param_bytes %u, parameters end at %u", file, k->param_bytes, end);
    printf("%-16s %-8s %5u bytes  params %u (%2u B)  shared %4u  stack %3u  vregs %3u spilled %u%s\n",
           file, k->name, k->code_bytes, k->num_params, k->param_bytes, k->shared_bytes,
           k->stack_bytes, k->num_vregs, k->num_spilled,
           k->flags & PTX_KERNEL_NEEDS_ATOMICS ? "  needs atomics" : "");
  }
  return m;
}

static void expect_error(const char *what, const char *text, ptx_status want, int line, const char *instr) {
  ptx_module *m = (ptx_module *)1;
  ptx_error e;
  ptx_status s = ptx_translate(text, strlen(text), NULL, &m, &e);
  CHECK(s == want, "%s: %s, want %s (%s)", what, ptx_status_name(s), ptx_status_name(want), e.message);
  CHECK(m == NULL, "%s: a module returned with an error", what);
  CHECK(e.line == line, "%s: error at line %d, want %d (%s)", what, e.line, line, e.message);
  CHECK(strncmp(e.instr, instr, strlen(instr)) == 0, "%s: error names '%s', want '%s'", what, e.instr, instr);
  printf("%-28s -> %s line %d [%s]: %s\n", what, ptx_status_name(s), e.line, e.instr, e.message);
  if (s == PTX_OK) ptx_module_free(m);
}

static const char kHead[] = ".version 8.0\n.target sm_75\n.address_size 64\n";

// a small kernel around one instruction (line 9), with %rd, %r and %p registers
static void expect_body_error(const char *what, const char *insn, ptx_status want, const char *instr) {
  char text[1024];
  snprintf(text, sizeof text,
           "%s.visible .entry k(.param .u64 k_p0)\n{\n.reg .pred %%p<3>;\n.reg .b32 %%r<5>;\n"
           ".reg .b64 %%rd<5>; .reg .f32 %%f<5>;\n%s\nret;\n}\n", kHead, insn);
  expect_error(what, text, want, 9, instr);
}

// the same small kernel around instructions that translate
static void expect_body_ok(const char *what, const char *insns) {
  char text[1024];
  snprintf(text, sizeof text,
           "%s.visible .entry k(.param .u64 k_p0)\n{\n.reg .pred %%p<3>;\n.reg .b32 %%r<5>;\n"
           ".reg .b64 %%rd<5>; .reg .f32 %%f<5>;\n%s\nret;\n}\n", kHead, insns);
  ptx_module *m = NULL;
  ptx_error e;
  ptx_status st = ptx_translate(text, strlen(text), NULL, &m, &e);
  CHECK(st == PTX_OK && m != NULL, "%s: %s line %d [%s]: %s", what, ptx_status_name(st), e.line, e.instr, e.message);
  if (st == PTX_OK) {
    printf("%-28s -> PTX_OK (%u instructions)\n", what, m->code_bytes / 4);
    ptx_module_free(m);
  }
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    printf("usage: %s <fixture dir>\n", argv[0]);
    return 2;
  }
  const char *dir = argv[1];
  static const struct { const char *file, *kernel; uint32_t params, shared; } kOk[] = {
      {"vadd.ptx", "vadd", 4, 0},       {"gridstride.ptx", "vadd_gs", 4, 0},
      {"collatz.ptx", "collatz", 4, 0}, {"reduce.ptx", "reduce", 3, 256},
      {"index2d.ptx", "index2d", 3, 0}, {"oob.ptx", "oob", 3, 0},
      {"spin.ptx", "spin", 2, 0},       {"intops.ptx", "intops", 4, 0},
      {"atomics.ptx", "histo", 4, 0},   {"saxpy_f32.ptx", "saxpy", 4, 0},
      {"reduce_f32.ptx", "reduce_f32", 4, 256}, {"fcmp_f32.ptx", "fcmp_f32", 4, 0},
      {"fcvt_f32.ptx", "fcvt_f32", 4, 0}, {"fdiv_f32.ptx", "fdiv_f32", 4, 0},
      {"fmath_f32.ptx", "fmath_f32", 4, 0}, {"fmath_fast_f32.ptx", "fmath_fast_f32", 4, 0},
      {"warpsum.ptx", "warpsum", 2, 0}};
  for (size_t i = 0; i < sizeof kOk / sizeof kOk[0]; ++i) {
    ptx_module *m = translate_ok(dir, kOk[i].file, kOk[i].kernel);
    if (!m) continue;
    const ptx_kernel *k = ptx_module_kernel(m, kOk[i].kernel);
    if (k) {
      CHECK(k->num_params == kOk[i].params, "%s: %u parameters", kOk[i].file, k->num_params);
      CHECK(k->shared_bytes == kOk[i].shared, "%s: %u bytes shared", kOk[i].file, k->shared_bytes);
      int atomics = strcmp(kOk[i].kernel, "histo") == 0;
      CHECK(!!(k->flags & PTX_KERNEL_NEEDS_ATOMICS) == atomics, "%s: needs-atomics flag", kOk[i].file);
      int warp32 = strcmp(kOk[i].kernel, "warpsum") == 0;
      CHECK(!!(k->flags & PTX_KERNEL_NEEDS_WARP32) == warp32, "%s: needs-warp32 flag", kOk[i].file);
      // every f32 fixture (and only they) needs the unit's F extension
      int f32 = strstr(kOk[i].file, "_f32") != NULL;
      CHECK(!!(k->flags & PTX_KERNEL_NEEDS_F) == f32, "%s: needs-F flag", kOk[i].file);
      // a split variant exactly where no barrier, shared memory or warp-level instruction is used
      // (reduce, reduce_f32: shared memory and bar.sync; warpsum: shuffles), after the kernel
      int split = !k->shared_bytes && !warp32;
      CHECK(!!(k->flags & PTX_KERNEL_SPLIT) == split, "%s: split flag", kOk[i].file);
      CHECK(!split || (k->split_entry >= k->entry + k->code_bytes && k->split_code_bytes > k->code_bytes &&
                       k->split_entry + k->split_code_bytes <= m->code_bytes),
            "%s: split variant at %u (%u bytes)", kOk[i].file, k->split_entry, k->split_code_bytes);
      // pointer parameters are 8 bytes at 8-byte offsets (saxpy's first one is the float a)
      uint32_t size0 = strcmp(kOk[i].kernel, "saxpy") == 0 ? 4 : 8;
      CHECK(k->params[0].size == size0 && k->params[0].offset == 0, "%s: first parameter", kOk[i].file);
      if (size0 == 4) CHECK(k->params[1].offset == 8, "%s: the pointer after a float at 8", kOk[i].file);
      // the line map: sorted, inside the code, every word of the kernel on a line
      int sorted = m->num_lines > 0;
      for (uint32_t j = 1; j < m->num_lines; ++j)
        sorted &= m->lines[j].code_offset > m->lines[j - 1].code_offset && m->lines[j].line > 0;
      CHECK(sorted && m->lines[0].code_offset == 0, "%s: line map of %u entries not sorted", kOk[i].file, m->num_lines);
      int all = 1;
      for (uint32_t off = k->entry; off < k->entry + k->code_bytes; off += 4) all &= ptx_module_line_of(m, off) > 0;
      CHECK(all, "%s: a word without a PTX line", kOk[i].file);
      CHECK(ptx_module_line_of(m, m->code_bytes) == 0 && ptx_module_line_of(NULL, 0) == 0,
            "%s: a line outside the code", kOk[i].file);
    }
    ptx_module_free(m);
  }

  // the line map names the PTX line of each store: oob's first sw comes from its first
  // st.global.u32, its second from the second (the lines found in the text)
  size_t len;
  char *oob = read_file(dir, "oob.ptx", &len);
  ptx_module *om = NULL;
  if (oob && ptx_translate(oob, len, NULL, &om, NULL) == PTX_OK) {
    int l1 = line_of(oob, "st.global.u32");
    const char *second = strstr(strstr(oob, "st.global.u32") + 1, "st.global.u32");
    int l2 = 0;
    if (second) {
      l2 = 1;
      for (const char *q = oob; q < second; ++q) l2 += *q == '\n';
    }
    int seen[2] = {0, 0}, n = 0;
    for (uint32_t off = 0; off < om->code_bytes && n < 2; off += 4)
      if ((om->code[off] & 0x7f) == 0x23) seen[n++] = ptx_module_line_of(om, off);
    CHECK(l1 > 0 && l2 > l1 && seen[0] == l1 && seen[1] == l2, "oob.ptx: stores at lines %d and %d, the map says %d and %d",
          l1, l2, seen[0], seen[1]);
    printf("oob.ptx line map: %u entries; the two sw come from lines %d and %d\n", om->num_lines, seen[0], seen[1]);
    ptx_module_free(om);
  } else {
    CHECK(0, "oob.ptx does not translate");
  }
  free(oob);

  // no split variant where the launch's six words would lie past a load's 12-bit reach
  {
    char t[1024];
    snprintf(t, sizeof t, "%s.visible .entry big(.param .align 4 .b8 big_p0[2040], .param .u64 big_p1)\n{\n"
             ".reg .b64 %%rd<3>;\n.reg .b32 %%r<3>;\nld.param.u64 %%rd1, [big_p1];\nmov.u32 %%r1, %%tid.x;\n"
             "st.global.u32 [%%rd1], %%r1;\nret;\n}\n", kHead);
    ptx_module *bm = NULL;
    CHECK(ptx_translate(t, strlen(t), NULL, &bm, NULL) == PTX_OK, "a kernel with 2 KiB of parameters");
    CHECK(bm && !(bm->kernels[0].flags & PTX_KERNEL_SPLIT), "2 KiB of parameters: no split variant");
    ptx_module_free(bm);
  }
  // The F emulation (ptx_options.emulate_f): f32 kernels marked FEMU, not NEEDS_F; the emulation
  // code at the start of the module (its trampoline's first word); every F word in a kernel's
  // code only as the word after a `jal ra` to that trampoline, with ra saved before and reloaded
  // after; 144 bytes of F state added to the frame; integer kernels translated exactly as without
  // the option; a frame that leaves no room for the emulation refused, nothing returned.
  {
    static const char *const kF32[] = {"saxpy_f32.ptx", "reduce_f32.ptx", "fcmp_f32.ptx", "fcvt_f32.ptx",
                                       "fdiv_f32.ptx", "fmath_f32.ptx", "fmath_fast_f32.ptx", "vadd.ptx",
                                       "atomics.ptx", NULL};
    ptx_options fo = {0};
    fo.emulate_f = 1;
    int have = ptx_femu_available();
    if (!have) printf("emulate_f: this build has no F emulation (no clang-14): kernels keep NEEDS_F\n");
    int calls = 0;
    for (int i = 0; kF32[i]; ++i) {
      size_t len;
      char *t = read_file(dir, kF32[i], &len);
      ptx_module *pm = NULL, *em = NULL;
      ptx_error e;
      CHECK(t && ptx_translate(t, len, NULL, &pm, NULL) == PTX_OK, "%s: plain", kF32[i]);
      ptx_status st = t ? ptx_translate(t, len, &fo, &em, &e) : PTX_ERR_INVALID_VALUE;
      CHECK(st == PTX_OK, "%s emulated: %s line %d %s", kF32[i], ptx_status_name(st), e.line, e.message);
      free(t);
      if (!pm || !em) {
        ptx_module_free(pm), ptx_module_free(em);
        continue;
      }
      const ptx_kernel *pk = &pm->kernels[0], *ek = &em->kernels[0];
      int f32 = strstr(kF32[i], "_f32") != NULL;
      if (!f32 || !have) {  // nothing to emulate, or no emulation: the same module
        CHECK(em->code_bytes == pm->code_bytes && !memcmp(em->code, pm->code, pm->code_bytes) &&
              ek->flags == pk->flags, "%s: emulate_f changed a kernel it has nothing to do with", kF32[i]);
      } else {
        CHECK((ek->flags & (PTX_KERNEL_FEMU | PTX_KERNEL_NEEDS_F)) == PTX_KERNEL_FEMU, "%s: flags 0x%x",
              kF32[i], ek->flags);
        CHECK(ek->stack_bytes == pk->stack_bytes + 144, "%s: stack %u, plain %u", kF32[i], ek->stack_bytes,
              pk->stack_bytes);
        uint32_t w0 = (uint32_t)em->code[0] | (uint32_t)em->code[1] << 8 | (uint32_t)em->code[2] << 16 |
                      (uint32_t)em->code[3] << 24;
        CHECK(w0 == 0xF8010113u && ek->entry > 0, "%s: the emulation code is not at the module's start (0x%08x)",
              kF32[i], w0);
        CHECK(ptx_module_line_of(em, 0) == 0, "%s: the emulation code has a PTX line", kF32[i]);
        uint32_t ranges[2][2] = {{ek->entry, ek->code_bytes}, {ek->split_entry, ek->split_code_bytes}};
        for (int r = 0; r < 2; ++r) {
          if (r && !(ek->flags & PTX_KERNEL_SPLIT)) break;
          const uint8_t *c = em->code + ranges[r][0];
          uint32_t n = ranges[r][1] / 4, bad = 0;
          for (uint32_t j = 0; j < n; ++j) {
            uint32_t w = (uint32_t)c[4 * j] | (uint32_t)c[4 * j + 1] << 8 | (uint32_t)c[4 * j + 2] << 16 |
                         (uint32_t)c[4 * j + 3] << 24;
            uint32_t opc = w & 0x7Fu, f3 = (w >> 12) & 7u;
            int fword = ((opc == 0x07 || opc == 0x27) && f3 == 2) || opc == 0x43 || opc == 0x47 ||
                        opc == 0x4B || opc == 0x4F || opc == 0x53 ||
                        (opc == 0x73 && f3 && ((w >> 20) == 0x801 || (w >> 20) == 2 || (w >> 20) == 1 || (w >> 20) == 3));
            if (!fword) continue;
            ++calls;
            if (j < 2 || j + 1 >= n) { ++bad; continue; }
            uint32_t jal = (uint32_t)c[4 * j - 4] | (uint32_t)c[4 * j - 3] << 8 | (uint32_t)c[4 * j - 2] << 16 |
                           (uint32_t)c[4 * j - 1] << 24;
            uint32_t sv = (uint32_t)c[4 * j - 8] | (uint32_t)c[4 * j - 7] << 8 | (uint32_t)c[4 * j - 6] << 16 |
                          (uint32_t)c[4 * j - 5] << 24;
            uint32_t ld = (uint32_t)c[4 * j + 4] | (uint32_t)c[4 * j + 5] << 8 | (uint32_t)c[4 * j + 6] << 16 |
                          (uint32_t)c[4 * j + 7] << 24;
            int32_t off = (int32_t)(((jal >> 31) << 20) | (((jal >> 12) & 0xFFu) << 12) | (((jal >> 20) & 1u) << 11) |
                                    (((jal >> 21) & 0x3FFu) << 1));
            off = (off << 11) >> 11;
            int64_t target = (int64_t)ranges[r][0] + 4 * (int64_t)(j - 1) + off;
            if ((jal & 0xFFFu) != 0x0EFu || target != 0 || sv != 0xF8112223u || ld != 0xF8412083u) ++bad;
          }
          CHECK(bad == 0, "%s: %u F words not in a call of the emulation", kF32[i], bad);
        }
      }
      ptx_module_free(pm);
      ptx_module_free(em);
    }
    if (have) {
      CHECK(calls > 100, "emulate_f: %d calls of the emulation in the f32 fixtures", calls);
      printf("emulate_f: %d calls of the emulation in the f32 fixtures, every one well formed\n", calls);
      // saxpy (no spills) with 400 bytes of stack a thread: 144 + 128 + 256 do not fit
      size_t len;
      char *t = read_file(dir, "saxpy_f32.ptx", &len);
      ptx_module *m2 = (ptx_module *)1;
      ptx_error e;
      fo.stack_limit = 400;
      ptx_status st = t ? ptx_translate(t, len, &fo, &m2, &e) : PTX_ERR_INVALID_VALUE;
      CHECK(st == PTX_ERR_NOT_SUPPORTED && m2 == NULL && strstr(e.message, "528 bytes of stack"),
            "emulate_f with 400 bytes of stack: %s, %s", ptx_status_name(st), e.message);
      printf("emulate_f, 400 bytes of stack -> %s: %s\n", ptx_status_name(st), e.message);
      fo.stack_limit = 528;  // exactly enough
      ptx_module *m3 = NULL;
      CHECK(t && ptx_translate(t, len, &fo, &m3, NULL) == PTX_OK, "emulate_f with 528 bytes of stack");
      ptx_module_free(m3);
      free(t);
    }
  }
  // %laneid and %warpid: from the thread's linear id in the block (tid and ntid CSRs), not
  // the unit's 4-lane warps (CSRs 0xCCC/0xCCD)
  {
    char t[1024];
    snprintf(t, sizeof t, "%s.visible .entry k(.param .u64 k_p0)\n{\n.reg .b32 %%r<5>;\n"
             "mov.u32 %%r1, %%laneid;\nmov.u32 %%r2, %%warpid;\nret;\n}\n", kHead);
    ptx_module *lm = NULL;
    CHECK(ptx_translate(t, strlen(t), NULL, &lm, NULL) == PTX_OK, "laneid kernel");
    int unit_csr = 0, tid_csr = 0;
    // the kernel's own code (its split variant, which computes them otherwise, follows it)
    for (uint32_t off = lm ? lm->kernels[0].entry : 0; lm && off < lm->kernels[0].entry + lm->kernels[0].code_bytes;
         off += 4) {
      uint32_t w = (uint32_t)lm->code[off] | (uint32_t)lm->code[off + 1] << 8 |
                   (uint32_t)lm->code[off + 2] << 16 | (uint32_t)lm->code[off + 3] << 24;
      if ((w & 0x7f) != 0x73) continue;
      unit_csr += (w >> 20) == 0xCCC || (w >> 20) == 0xCCD;
      tid_csr += (w >> 20) == 0xCC0;
    }
    CHECK(lm && unit_csr == 0 && tid_csr == 2, "%%laneid/%%warpid read the unit's lane/warp CSRs (%d) or not tid.x (%d)",
          unit_csr, tid_csr);
    ptx_module_free(lm);
  }

  // .ftz translates (inputs and result flushed around the operation): NVRTC's saxpy with its
  // fma.rn.f32 made .ftz
  char *sax = read_file(dir, "saxpy_f32.ptx", &len);
  CHECK(sax != NULL, "saxpy_f32.ptx missing");
  if (sax) {
    int fl = line_of(sax, "fma.rn.f32");
    CHECK(fl > 0, "saxpy_f32.ptx has no fma.rn.f32");
    char *ftz = replace_line(sax, "fma.rn.f32", "\tfma.rn.ftz.f32 \t%f4, %f3, %f2, %f1;");
    if (ftz) {
      ptx_module *fm = NULL;
      ptx_error fe;
      ptx_status fs = ptx_translate(ftz, strlen(ftz), NULL, &fm, &fe);
      CHECK(fs == PTX_OK, "saxpy with fma.rn.ftz.f32: %s (%s)", ptx_status_name(fs), fe.message);
      if (fs == PTX_OK) ptx_module_free(fm);
    }
    free(ftz);
    free(sax);
  }
  // a made-up instruction in NVRTC's vadd: INVALID_PTX at its line
  char *vadd = read_file(dir, "vadd.ptx", &len);
  CHECK(vadd != NULL, "vadd.ptx missing");
  if (vadd) {
    int al = line_of(vadd, "add.s32");
    char *bad = replace_line(vadd, "add.s32", "\tfrobnicate.s32 \t%r5, %r3, %r4;");
    CHECK(bad != NULL && al > 0, "vadd.ptx has no add.s32");
    if (bad) expect_error("made-up instruction", bad, PTX_ERR_INVALID_PTX, al, "frobnicate.s32");
    free(bad);
    // a label that is never defined
    char *nolab = replace_line(vadd, "add.s32", "\tbra.uni \t$L__nowhere;");
    if (nolab) expect_error("undefined label", nolab, PTX_ERR_INVALID_PTX, al, "$L__nowhere");
    free(nolab);
    free(vadd);
  }
  // one instruction in a small kernel (line 9)
  // 64-bit registers are pairs now (docs/ptx.md): these translate; what stays refused, by name
  expect_body_ok("64-bit shr", "shr.u64 %rd2, %rd1, 3; st.global.u64 [%rd4], %rd2;");
  expect_body_ok("64-bit setp", "setp.lt.u64 %p1, %rd1, %rd2; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd4], %r1;");
  expect_body_ok("64-bit store", "st.global.u64 [%rd1], %rd2;");
  expect_body_ok("unpack high word", "mov.b64 {%r1, %r2}, %rd1; st.global.u32 [%rd4], %r2;");
  expect_body_ok("64-bit mul.hi", "mul.hi.s64 %rd2, %rd1, -7; st.global.u64 [%rd4], %rd2;");
  expect_body_ok("64-bit shift by a register", "shl.b64 %rd2, %rd1, %r1; shr.s64 %rd3, %rd2, %r2; st.global.u64 [%rd4], %rd3;");
  expect_body_ok("bit counts", "popc.b64 %r1, %rd1; clz.b32 %r2, %r1; brev.b32 %r3, %r2; bfind.shiftamt.u32 %r4, %r3; st.global.u32 [%rd4], %r4;");
  expect_body_ok("prmt with a mov'd selector", "mov.u32 %r3, 20800; prmt.b32 %r4, %r1, %r2, %r3; st.global.u32 [%rd4], %r4;");
  expect_body_ok("f32 atomic add", "atom.global.add.f32 %f1, [%rd1], %f2; red.global.add.f32 [%rd1], %f1;");
  // what -lineinfo and -G add: .loc lines (no ';') before declarations, { } blocks whose .reg
  // names repeat, a .section whose brace is on the next line
  expect_body_ok(".loc, then a .shared", ".loc 1 1 0\n.shared .align 4 .b8 sh[16];\nmov.u32 %r1, sh;\n"
                 "st.shared.u32 [%r1], %r1;");
  expect_body_ok("scoped .reg blocks", "{\n.reg .b64 %t;\nshl.b64 %t, %rd1, 3;\nst.global.u64 [%rd2], %t;\n}\n"
                 "{\n.reg .b64 %t;\nshr.b64 %t, %rd1, 3;\nst.global.u64 [%rd2+8], %t;\n}");
  expect_body_error("a block's register outside it", "{ .reg .b32 %q; mov.u32 %q, 1; } mov.u32 %r1, %q;",
                    PTX_ERR_INVALID_PTX, "mov.u32");
  {
    char t[512];
    snprintf(t, sizeof t, "%s.visible .entry k()\n{\nret;\n}\n.section\t.debug_loc\n{\n.b64 $L__x\n.b8 5\n}\n", kHead);
    ptx_module *m = NULL;
    ptx_error e;
    ptx_status st = ptx_translate(t, strlen(t), NULL, &m, &e);
    CHECK(st == PTX_OK, "a .section with its brace on the next line: %s (%s)", ptx_status_name(st), e.message);
    if (st == PTX_OK) ptx_module_free(m);
  }
  expect_body_ok("64-bit div and rem", "div.s64 %rd2, %rd1, %rd3; rem.u64 %rd3, %rd2, 10; st.global.u64 [%rd4], %rd3;");
  expect_body_error("64-bit mad.hi", "mad.hi.u64 %rd2, %rd1, %rd3, %rd1;", PTX_ERR_NOT_SUPPORTED, "mad.hi.u64");
  // 64-bit atomics: add/and/or/xor whose old value is dead translate (two word-wide AMOs);
  // an old value that is read, and exch/cas/min/max, are refused
  expect_body_ok("64-bit atomic add, old value unused", "atom.global.add.u64 %rd2, [%rd1], %rd3; red.global.add.s64 [%rd1+8], 1; red.shared.or.b64 [%rd4], %rd3; atom.global.xor.b64 %rd2, [%rd1], -1;");
  expect_body_error("64-bit atomic add, old value used", "atom.global.add.u64 %rd2, [%rd1], %rd3; st.global.u64 [%rd4], %rd2;", PTX_ERR_NOT_SUPPORTED, "atom.global.add.u64");
  expect_body_error("64-bit atomic add, old high word used", "atom.global.add.u64 %rd2, [%rd1], %rd3; shr.u64 %rd3, %rd2, 32; cvt.u32.u64 %r1, %rd3; st.global.u32 [%rd4], %r1;", PTX_ERR_NOT_SUPPORTED, "atom.global.add.u64");
  expect_body_error("64-bit atomic exch", "atom.global.exch.b64 %rd2, [%rd1], %rd3;", PTX_ERR_NOT_SUPPORTED, "atom.global.exch.b64");
  expect_body_error("64-bit atomic max", "red.global.max.u64 [%rd1], %rd3;", PTX_ERR_NOT_SUPPORTED, "red.global.max.u64");
  expect_body_error("f32 atomic max", "atom.global.max.f32 %f1, [%rd1], %f2;", PTX_ERR_NOT_SUPPORTED, "atom.global.max.f32");
  expect_body_error("brev.b64", "brev.b64 %rd2, %rd1;", PTX_ERR_NOT_SUPPORTED, "brev.b64");
  expect_body_error("prmt, unknown selector", "prmt.b32 %r4, %r1, %r2, %r3;", PTX_ERR_NOT_SUPPORTED, "prmt.b32");
  // warp-level instructions translate (and mark the kernel NEEDS_WARP32); their neighbours do not
  expect_body_ok("warp shuffles", "shfl.sync.down.b32 %r1|%p1, %r2, 1, 31, -1; shfl.sync.up.b32 %r3, %r1, %r2, 0, -1; "
                 "mov.u32 %r4, 6175; shfl.sync.idx.b32 %r2|%p2, %f1, %r3, %r4, -1; shfl.sync.bfly.b32 %f2, %r2, 5, 4127, %r4; "
                 "st.global.f32 [%rd4], %f2; selp.b32 %r1, 1, 0, %p2; st.global.u32 [%rd4+4], %r1;");
  expect_body_ok("warp votes", "setp.lt.s32 %p1, %r1, 5; vote.sync.ballot.b32 %r2, %p1, -1; vote.sync.all.pred %p2, %p1, -1; "
                 "vote.sync.any.pred %p1, %p2, %r2; vote.sync.uni.pred %p2, %p1, -1; activemask.b32 %r3; "
                 "bar.warp.sync -1; selp.b32 %r1, 1, 0, %p2; st.global.u32 [%rd4], %r1;");
  expect_body_error("shfl without .sync", "shfl.down.b32 %r1, %r2, 1, 31;", PTX_ERR_NOT_SUPPORTED, "shfl.down.b32");
  expect_body_error("setp with p|q", "setp.lt.s32 %p1|%p2, %r1, %r2;", PTX_ERR_NOT_SUPPORTED, "setp.lt.s32");
  expect_body_error("match.any", "match.any.sync.b32 %r1, %r2, -1;", PTX_ERR_NOT_SUPPORTED, "match.any.sync.b32");
  expect_body_error("redux.sync", "redux.sync.add.u32 %r1, %r2, -1;", PTX_ERR_NOT_SUPPORTED, "redux.sync.add.u32");
  {  // the flag the driver refuses narrower warps by
    char text[512];
    snprintf(text, sizeof text, "%s.visible .entry k(.param .u64 k_p0)\n{\n.reg .b32 %%r<3>;\n"
             "shfl.sync.bfly.b32 %%r1, %%r2, 1, 31, -1;\nret;\n}\n", kHead);
    ptx_module *m = NULL;
    ptx_error e;
    ptx_status st = ptx_translate(text, strlen(text), NULL, &m, &e);
    CHECK(st == PTX_OK && m && (m->kernels[0].flags & PTX_KERNEL_NEEDS_WARP32),
          "shfl marks the kernel NEEDS_WARP32: %s (%s)", ptx_status_name(st), e.message);
    if (st == PTX_OK) ptx_module_free(m);
    snprintf(text, sizeof text, "%s.visible .entry k(.param .u64 k_p0)\n{\n.reg .b32 %%r<3>;\n"
             "add.s32 %%r1, %%r2, 1;\nret;\n}\n", kHead);
    st = ptx_translate(text, strlen(text), NULL, &m, &e);
    CHECK(st == PTX_OK && m && !(m->kernels[0].flags & PTX_KERNEL_NEEDS_WARP32),
          "a kernel without warp-level instructions is not NEEDS_WARP32: %s", ptx_status_name(st));
    if (st == PTX_OK) ptx_module_free(m);
  }
  expect_body_ok("f32 .ftz", "add.ftz.f32 %f1, %f2, %f3; mul.rn.ftz.f32 %f2, %f1, %f3; "
                 "setp.lt.ftz.f32 %p1, %f1, %f2; max.ftz.f32 %f3, %f1, %f2; neg.ftz.f32 %f1, %f3; "
                 "st.global.f32 [%rd4], %f1;");
  expect_body_ok("f32 .sat", "mul.rn.sat.f32 %f1, %f2, %f3; cvt.sat.f32.f32 %f2, %f1; "
                 "fma.rn.ftz.sat.f32 %f3, %f1, %f2, %f1; st.global.f32 [%rd4], %f3;");
  expect_body_error("f16 arithmetic", "add.rn.f16 %f1, %f2, %f3;", PTX_ERR_NOT_SUPPORTED, "add.rn.f16");
  expect_body_ok("the approximations the unit computes",
                 "div.rn.ftz.f32 %f1, %f2, %f3; div.full.f32 %f2, %f1, %f3; div.approx.ftz.f32 %f3, %f1, %f2; "
                 "rcp.approx.ftz.f32 %f1, %f3; rsqrt.approx.f32 %f2, %f1; sqrt.approx.f32 %f3, %f2; "
                 "ex2.approx.ftz.f32 %f1, %f3; ex2.approx.f32 %f2, %f1; st.global.f32 [%rd4], %f2;");
  expect_body_error("div.f64", "div.rn.f64 %rd1, %rd2, %rd3;", PTX_ERR_NOT_SUPPORTED, "div.rn.f64");
  expect_body_error("ex2 without .approx", "ex2.f32 %f1, %f2;", PTX_ERR_INVALID_PTX, "ex2.f32");
  expect_body_error("div.approx with a rounding", "div.approx.rn.f32 %f1, %f2, %f3;", PTX_ERR_INVALID_PTX, "div.approx.rn.f32");
  expect_body_error("sin.approx.f32", "sin.approx.f32 %f1, %f2;", PTX_ERR_NOT_SUPPORTED, "sin.approx.f32");
  expect_body_error("lg2.approx.f32", "lg2.approx.f32 %f1, %f2;", PTX_ERR_NOT_SUPPORTED, "lg2.approx.f32");
  expect_body_error("tanh.approx.f32", "tanh.approx.f32 %f1, %f2;", PTX_ERR_NOT_SUPPORTED, "tanh.approx.f32");
  expect_body_error("fma without rounding", "fma.f32 %f1, %f2, %f3, %f4;", PTX_ERR_NOT_SUPPORTED, "fma.f32");
  expect_body_error("f64 add", "add.f64 %rd1, %rd2, %rd3;", PTX_ERR_NOT_SUPPORTED, "add.f64");
  expect_body_error("cvt to f64", "cvt.f64.f32 %rd1, %f1;", PTX_ERR_NOT_SUPPORTED, "cvt.f64.f32");
  expect_body_error("f32 round to integral", "cvt.rni.f32.f32 %f1, %f2;", PTX_ERR_NOT_SUPPORTED, "cvt.rni.f32.f32");
  expect_body_ok("cvt from s64 and u64", "cvt.rn.f32.s64 %f1, %rd1; cvt.rm.f32.s64 %f2, %rd1; cvt.rz.f32.u64 %f3, %rd2; st.global.f32 [%rd4], %f1;");
  expect_body_ok("cvt to s64 and u64", "cvt.rzi.s64.f32 %rd1, %f1; cvt.rni.u64.f32 %rd2, %f1; st.global.u64 [%rd4], %rd1; st.global.u64 [%rd4+8], %rd2;");
  expect_body_error("cvt to u16", "cvt.rzi.u16.f32 %r1, %f1;", PTX_ERR_NOT_SUPPORTED, "cvt.rzi.u16.f32");
  expect_body_ok("atom.inc and atom.dec", "atom.global.inc.u32 %r1, [%rd1], 5; atom.global.dec.u32 %r2, [%rd1+4], %r1; red.global.inc.u32 [%rd1], 7;");
  expect_body_error("atom.inc of s32", "atom.global.inc.s32 %r1, [%rd1], 5;", PTX_ERR_INVALID_PTX, "atom.global.inc.s32");
  expect_body_error("saturating add", "add.sat.s32 %r1, %r2, %r3;", PTX_ERR_NOT_SUPPORTED, "add.sat.s32");
  expect_body_error("bar.sync with count", "bar.sync 1, 64;", PTX_ERR_NOT_SUPPORTED, "bar.sync");
  expect_body_error("unsupported sreg", "mov.u32 %r1, %smid;", PTX_ERR_NOT_SUPPORTED, "mov.u32");
  expect_body_error("undeclared register", "add.s32 %r1, %r9, 1;", PTX_ERR_INVALID_PTX, "add.s32");
  expect_body_error("made-up opcode", "zap %r1;", PTX_ERR_INVALID_PTX, "zap");
  {
    char t[512];
    snprintf(t, sizeof t, "%s.func f()\n{\nret;\n}\n", kHead);
    expect_error("device function", t, PTX_ERR_NOT_SUPPORTED, 4, ".func");
    snprintf(t, sizeof t, "%s.extern .global .u32 counter;\n", kHead);
    expect_error("extern global variable", t, PTX_ERR_NOT_SUPPORTED, 4, ".global");
    expect_error("not PTX", "hello world\n", PTX_ERR_INVALID_PTX, 1, "");
    snprintf(t, sizeof t, "%s", kHead);
    expect_error("no kernel", t, PTX_ERR_INVALID_PTX, 4, "");
  }
  // module variables: the data segment, its initial bytes, the relocated references
  {
    char t[1024];
    snprintf(t, sizeof t,
             "%s.global .align 4 .u32 counter = 7;\n.const .align 4 .b8 tab[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
             ".global .align 8 .u64 big = -2;\n"
             ".visible .entry k(.param .u64 k_p0)\n{\n.reg .b32 %%r<5>;\n.reg .b64 %%rd<5>;\n"
             "ld.global.u32 %%r1, [counter];\nld.const.u32 %%r2, [tab+4];\nmov.u64 %%rd1, big;\n"
             "add.s32 %%r3, %%r1, %%r2;\nst.global.u32 [counter], %%r3;\nst.u64 [%%rd1], %%rd1;\nret;\n}\n", kHead);
    ptx_module *m = NULL;
    ptx_error e;
    ptx_status st = ptx_translate(t, strlen(t), NULL, &m, &e);
    CHECK(st == PTX_OK, "module variables: %s line %d (%s)", ptx_status_name(st), e.line, e.message);
    if (st == PTX_OK) {
      const ptx_global *c = ptx_module_global(m, "counter"), *tb = ptx_module_global(m, "tab"),
                       *bg = ptx_module_global(m, "big");
      CHECK(m->num_globals == 3 && c && tb && bg, "three globals");
      CHECK(c && c->offset == 0 && c->size == 4 && !c->is_const, "counter at 0, 4 bytes");
      CHECK(tb && tb->offset == 4 && tb->size == 8 && tb->is_const, "tab at 4, 8 bytes, .const");
      CHECK(bg && bg->offset == 16 && bg->size == 8, "big at 16 (aligned 8)");
      CHECK(m->data_bytes == 24 && m->data[0] == 7 && m->data[4] == 1 && m->data[11] == 8 &&
            m->data[16] == 0xFE && m->data[23] == 0xFF, "initial bytes");
      // four references (ld, ld, mov, st) in the kernel, four more in its split variant
      CHECK((m->kernels[0].flags & PTX_KERNEL_SPLIT) && m->num_relocs == 8,
            "four references (ld, ld, mov, st) in each of two variants, got %u", m->num_relocs);
      // relocated for a segment at 0x12345800: every lui/addi pair now adds up to VA + offset
      uint8_t *code = malloc(m->code_bytes);
      memcpy(code, m->code, m->code_bytes);
      ptx_module_relocate(m, code, 0x12345800u);
      for (uint32_t i = 0; i < m->num_relocs; ++i) {
        uint32_t w0, w1, at = m->relocs[i].code_offset;
        memcpy(&w0, code + at, 4);
        memcpy(&w1, code + at + 4, 4);
        uint32_t va = (w0 & 0xFFFFF000u) + (uint32_t)((int32_t)w1 >> 20);
        CHECK((w0 & 0x7F) == 0x37 && (w1 & 0x7F) == 0x13, "reference %u is lui + addi", i);
        CHECK(va == 0x12345800u + m->relocs[i].data_offset, "reference %u: 0x%08x", i, va);
      }
      free(code);
      printf("%-28s -> PTX_OK, %u bytes of data, %u references\n", "module variables", m->data_bytes, m->num_relocs);
      ptx_module_free(m);
    }
    snprintf(t, sizeof t, "%s.global .align 8 .u64 p = generic(q);\n", kHead);
    expect_error("address initialiser", t, PTX_ERR_NOT_SUPPORTED, 4, ".global");
  }
  // arguments
  {
    ptx_module *m = (ptx_module *)1;
    CHECK(ptx_translate(NULL, 0, NULL, &m, NULL) == PTX_ERR_INVALID_VALUE && m == NULL, "NULL text");
    CHECK(ptx_translate(kHead, sizeof kHead - 1, NULL, NULL, NULL) == PTX_ERR_INVALID_VALUE, "NULL out");
    CHECK(ptx_module_kernel(NULL, "x") == NULL, "kernel of NULL");
    ptx_module_free(NULL);
  }

  // ptx_translate_ms: spin.ptx (NVRTC's, about 100 lines) and intops.ptx (about 200)
  static const char *const kTimed[] = {"spin.ptx", "intops.ptx"};
  for (int f = 0; f < 2; ++f) {
    char *t = read_file(dir, kTimed[f], &len);
    if (!t) continue;
    int lines = 0;
    for (size_t i = 0; i < len; ++i) lines += t[i] == '\n';
    const int reps = 200;
    double t0 = now_ms();
    for (int r = 0; r < reps; ++r) {
      ptx_module *m = NULL;
      if (ptx_translate(t, len, NULL, &m, NULL) == PTX_OK) ptx_module_free(m);
    }
    double ms = (now_ms() - t0) / reps;
    printf("%s: %d lines, %.4f ms per translation (mean of %d)\n", kTimed[f], lines, ms, reps);
    if (f == 0) printf("ptx_translate_ms %.4f ms\n", ms);
    free(t);
  }
  printf("ptx_unit: %d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
