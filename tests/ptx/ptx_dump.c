// Translates one PTX file and prints its code as bytes in the form `llvm-mc --disassemble`
// reads (one instruction per line), the descriptor on stderr. Used by ptx_disasm, and by hand
// to read what a kernel became:
//   ptx_dump k.ptx | llvm-mc-14 --disassemble -triple=riscv32 -mattr=+m,+a
#include <stdio.h>
#include <stdlib.h>

#include "vmgpu/ptx.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s file.ptx\n", argv[0]);
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 2;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *t = malloc((size_t)n + 1);
  if (!t || fread(t, 1, (size_t)n, f) != (size_t)n) return 2;
  fclose(f);
  ptx_module *m;
  ptx_error e;
  ptx_status s = ptx_translate(t, (size_t)n, NULL, &m, &e);
  free(t);
  if (s != PTX_OK) {
    fprintf(stderr, "%s: %s at line %d [%s]: %s\n", argv[1], ptx_status_name(s), e.line, e.instr, e.message);
    return 1;
  }
  for (uint32_t i = 0; i < m->num_kernels; ++i) {
    const ptx_kernel *k = &m->kernels[i];
    fprintf(stderr, "kernel %s: entry %u, %u bytes, %u params (%u bytes), shared %u, stack %u, flags 0x%x\n",
            k->name, k->entry, k->code_bytes, k->num_params, k->param_bytes, k->shared_bytes,
            k->stack_bytes, k->flags);
  }
  for (uint32_t i = 0; i < m->code_bytes; i += 4)
    printf("0x%02x 0x%02x 0x%02x 0x%02x\n", m->code[i], m->code[i + 1], m->code[i + 2], m->code[i + 3]);
  ptx_module_free(m);
  return 0;
}
