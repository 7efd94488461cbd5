// The translator's entry points: parse the module, then allocate registers and generate code
// for each .entry in turn. All-or-nothing: on any error nothing is returned but the ptx_error.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"

const char *ptx_status_name(ptx_status s) {
  switch (s) {
    case PTX_OK: return "PTX_OK";
    case PTX_ERR_INVALID_VALUE: return "PTX_ERR_INVALID_VALUE";
    case PTX_ERR_INVALID_PTX: return "PTX_ERR_INVALID_PTX";
    case PTX_ERR_NOT_SUPPORTED: return "PTX_ERR_NOT_SUPPORTED";
    case PTX_ERR_NO_MEMORY: return "PTX_ERR_NO_MEMORY";
  }
  return "PTX_ERR_?";
}

void ptx_module_free(ptx_module *m) {
  if (!m) return;
  for (uint32_t i = 0; i < m->num_kernels; ++i) free(m->kernels[i].params);
  free(m->kernels);
  free(m->code);
  free(m->lines);
  free(m->data);
  free(m->globals);
  free(m->relocs);
  free(m);
}

int ptx_module_line_of(const ptx_module *m, uint32_t code_offset) {
  if (!m || !m->num_lines || code_offset >= m->code_bytes) return 0;
  uint32_t lo = 0, hi = m->num_lines;  // the last entry at or before code_offset
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (m->lines[mid].code_offset <= code_offset) lo = mid;
    else hi = mid;
  }
  return m->lines[lo].code_offset <= code_offset ? m->lines[lo].line : 0;
}

const ptx_global *ptx_module_global(const ptx_module *m, const char *name) {
  if (!m || !name) return NULL;
  for (uint32_t i = 0; i < m->num_globals; ++i)
    if (strcmp(m->globals[i].name, name) == 0) return &m->globals[i];
  return NULL;
}

// Each reference is `lui rd, %hi(off)` + `addi rd, rd, %lo(off)`: both rewritten for data_va + off.
void ptx_module_relocate(const ptx_module *m, uint8_t *code, uint32_t data_va) {
  if (!m || !code) return;
  for (uint32_t i = 0; i < m->num_relocs; ++i) {
    uint32_t at = m->relocs[i].code_offset;
    if (at + 8 > m->code_bytes) continue;
    uint32_t va = data_va + m->relocs[i].data_offset, hi = (va + 0x800u) >> 12, lo = va - (hi << 12);
    uint32_t w0, w1;
    memcpy(&w0, code + at, 4);
    memcpy(&w1, code + at + 4, 4);
    w0 = (w0 & 0xFFFu) | (hi << 12);
    w1 = (w1 & 0xFFFFFu) | (lo << 20);
    memcpy(code + at, &w0, 4);
    memcpy(code + at + 4, &w1, 4);
  }
}

const ptx_kernel *ptx_module_kernel(const ptx_module *m, const char *name) {
  if (!m || !name) return NULL;
  for (uint32_t i = 0; i < m->num_kernels; ++i)
    if (strcmp(m->kernels[i].name, name) == 0) return &m->kernels[i];
  return NULL;
}

// Whether a kernel's block may run as sub-blocks, one after another (PTX_KERNEL_SPLIT): its
// threads meet only through global memory. So no bar/barrier, no shared memory (static or
// dynamic), no warp-level instruction (shfl, vote, activemask, bar.warp); and arguments short
// enough (about 2 KiB) that the launch's six words after them are in a load's reach.
int ptx_kernel_can_split(const kernel_ir *k, const ptx_kernel *pk) {
  if (pk->flags & (PTX_KERNEL_NEEDS_WARP32 | PTX_KERNEL_DYNAMIC_SHARED)) return 0;
  if (pk->shared_bytes) return 0;
  // the six words after the arguments are read with 12-bit offsets from the block's start
  if (((k->param_bytes + 3u) & ~3u) + 24u > 2047u) return 0;
  for (int i = 0; i < k->ninsns; ++i) {
    const char *op = k->insns[i].op;
    if (k->insns[i].label < 0 && (!strcmp(op, "bar") || !strcmp(op, "barrier"))) return 0;
  }
  return 1;
}

ptx_status ptx_translate(const char *text, size_t len, const ptx_options *opt, ptx_module **out,
                         ptx_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (!out) return PTX_ERR_INVALID_VALUE;
  *out = NULL;
  if (!text) return PTX_ERR_INVALID_VALUE;
  ptx_ctx c;
  memset(&c, 0, sizeof c);
  c.text = text;
  c.len = len;
  c.line = 1;
  c.err = err;
  c.opt.shared_base = opt && opt->shared_base ? opt->shared_base : 0xFF000000u;
  c.opt.shared_limit = opt && opt->shared_limit ? opt->shared_limit : 4096u;
  c.opt.max_regs = opt && opt->max_regs && opt->max_regs < PTX_NUM_ALLOC ? opt->max_regs : PTX_NUM_ALLOC;
  c.opt.emulate_f = opt && opt->emulate_f && ptx_femu_available();
  c.opt.stack_limit = opt && opt->stack_limit ? opt->stack_limit : 1024u;
  c.femu_at = -1;
  ptx_module *m = calloc(1, sizeof *m);
  kernel_ir k;
  memset(&k, 0, sizeof k);
  int cap_kernels = 0;
  if (!m) return PTX_ERR_NO_MEMORY;
  if (setjmp(c.fail)) {
    kernel_ir_free(&k);
    for (int i = 0; i < 4; ++i) free(c.tmp[i]);
    free(c.msyms);
    free(c.code);
    free(c.lines);
    free(c.data);
    free(c.globals);
    free(c.relocs);
    m->code = NULL;
    ptx_module_free(m);
    return c.status;
  }
  ptx_parse_header(&c);
  while (ptx_parse_next_kernel(&c, &k)) {
    if (ptx_module_kernel(m, k.name))
      ptx_fail(&c, PTX_ERR_INVALID_PTX, k.line, ".entry", "kernel %s defined twice", k.name);
    m->kernels = ptx_grow(&c, m->kernels, &cap_kernels, (int)m->num_kernels + 1, sizeof(ptx_kernel));
    ptx_kernel *pk = &m->kernels[m->num_kernels++];
    memset(pk, 0, sizeof *pk);
    snprintf(pk->name, sizeof pk->name, "%s", k.name);
    ptx_regalloc(&c, &k);
    ptx_codegen(&c, &k, pk, 0);
    if (ptx_kernel_can_split(&k, pk)) {  // a second entry for blocks larger than the unit
      ptx_kernel sv;
      memset(&sv, 0, sizeof sv);
      ptx_codegen(&c, &k, &sv, 1);
      pk->split_entry = sv.entry;
      pk->split_code_bytes = sv.code_bytes;
      pk->flags |= PTX_KERNEL_SPLIT;
    }
    pk->params = k.params;
    pk->num_params = (uint32_t)k.nparams;
    pk->param_bytes = k.param_bytes;
    k.params = NULL;
    pk->num_vregs = (uint32_t)k.nregs;
    for (int i = 0; i < k.nregs; ++i) pk->num_spilled += k.regs[i].start >= 0 && k.regs[i].phys < 0;
    kernel_ir_free(&k);
  }
  if (m->num_kernels == 0)
    ptx_fail(&c, PTX_ERR_INVALID_PTX, c.line, NULL, "the module has no .entry");
  m->code = c.code;
  m->code_bytes = c.code_bytes;
  m->lines = c.lines;
  m->num_lines = (uint32_t)c.nlines;
  m->data = c.data;
  m->data_bytes = (uint32_t)c.data_bytes;
  m->globals = c.globals;
  m->num_globals = (uint32_t)c.nglobals;
  m->relocs = c.relocs;
  m->num_relocs = (uint32_t)c.nrelocs;
  m->ptx_version_major = c.version_major;
  m->ptx_version_minor = c.version_minor;
  snprintf(m->target, sizeof m->target, "%s", c.target);
  m->address_size = c.address_size;
  free(c.msyms);
  *out = m;
  return PTX_OK;
}
