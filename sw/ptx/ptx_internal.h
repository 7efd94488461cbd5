// Internal structures of the PTX translator: tokens, the parsed kernel (registers, symbols,
// instructions), and the passes' entry points. One kernel at a time goes through
// parse -> allocate registers -> generate code (ptx.c drives them).
#ifndef VMGPU_PTX_INTERNAL_H
#define VMGPU_PTX_INTERNAL_H

#include <setjmp.h>
#include <stdint.h>

#include "vmgpu/ptx.h"

// ------------------------------------------------------------------------------ tokens
enum tok_kind { T_END, T_IDENT, T_NUM, T_STR, T_PUNCT };
typedef struct tok {
  enum tok_kind kind;
  const char *s;  // into the text
  int len;
  int line;
} tok;

// ------------------------------------------------------------------------------ registers
// Register classes by what the hardware holds: a predicate (0/1), 16-, 32- or 64-bit integer
// bits (a 64-bit register is a pair: its low word, and a companion vreg for its high word that
// is only allocated and computed where it is live: docs/ptx.md, "64-bit registers"), f32/f64.
enum reg_class { RC_PRED, RC_B16, RC_B32, RC_B64, RC_F32, RC_F64 };

typedef struct vreg {
  enum reg_class rc;
  int hi;         // RC_B64: the register that holds its high word (a 32-bit companion); else -1
  int phys;       // RV32 register, or -1 when spilled
  int slot;       // stack offset (from sp) when spilled
  int start, end; // live interval in instruction positions (-1: never used)
} vreg;

// A family of registers from one .reg line: "%r<9>" is %r0..%r8; "%SP" is one register.
typedef struct reg_family {
  char prefix[32];
  int numbered;   // 1: %prefix<N>; 0: a single name
  int count;
  int first;      // index of its first vreg
} reg_family;

// ------------------------------------------------------------------------------ symbols
enum sym_kind { SYM_PARAM, SYM_SHARED, SYM_LOCAL, SYM_LABEL, SYM_GLOBAL };
typedef struct sym {
  char name[96];
  enum sym_kind kind;
  uint32_t value;  // param: offset; shared: offset in the window; local: offset in the depot;
                   // label: instruction index
  uint32_t size;
  int line;
} sym;

// ------------------------------------------------------------------------------ instructions
enum opnd_kind { O_NONE, O_REG, O_IMM, O_SYM, O_MEM, O_VEC, O_SREG, O_SINK };
typedef struct opnd {
  enum opnd_kind kind;
  int reg;        // O_REG, O_MEM base register (-1 none)
  int sym;        // O_SYM, O_MEM base symbol (-1 none)
  int64_t imm;    // O_IMM, O_MEM offset
  int sreg;       // O_SREG: CSR number
  int pair;       // O_REG: 1 + the vreg written after '|' (shfl's d|p), 0 when none
  int vec[4];     // O_VEC: vregs (-1 for the sink "_")
  int nvec;
} opnd;

#define PTX_MAX_MODS 8
#define PTX_MAX_OPNDS 5
typedef struct insn {
  char op[16];                    // base opcode: "add", "ld", ... ; "" for a label
  char mods[PTX_MAX_MODS][12];    // the dot-separated modifiers, in order
  int nmods;
  int label;                      // >= 0: this entry is a label (symbol index)
  int guard;                      // predicate vreg, -1 when unguarded
  int guard_neg;
  opnd o[PTX_MAX_OPNDS];
  int nopnd;
  int line;
  char text[48];                  // opcode as written, for errors
  unsigned hi_live;               // bit j: the high word of destination element j is live after
                                  // this instruction (set by ptx_regalloc), so it is computed
  unsigned lo_live;               // bit j: destination element j itself (its low word) is live
                                  // after this instruction (set by ptx_regalloc)
} insn;

typedef struct kernel_ir {
  char name[96];
  int line;
  vreg *regs;
  int nregs, cap_regs;
  reg_family *fams;
  int nfams, cap_fams;
  int scope_fams;           // the first family declared in the innermost open { } block
  sym *syms;
  int nsyms, cap_syms;
  insn *insns;
  int ninsns, cap_insns;
  ptx_param *params;
  int nparams, cap_params;
  uint32_t param_bytes;
  uint32_t local_bytes;     // .local depot
  uint32_t local_align;
  int has_dynamic_shared;
  int spill_bytes;
  uint32_t flags;
} kernel_ir;

// The module-level state shared by the parser and the passes.
typedef struct ptx_ctx {
  const char *text;
  size_t len;
  size_t pos;
  int line;
  tok cur;
  ptx_error *err;
  ptx_status status;
  jmp_buf fail;             // every error longjmps here (after freeing nothing: arenas below)
  ptx_options opt;
  // module .shared variables (offsets in the window) are symbols every kernel sees
  sym *msyms;
  int nmsyms, cap_msyms;
  uint32_t shared_bytes;    // static shared memory of the module's variables
  int dyn_shared_sym;       // index in msyms of the .extern .shared array, -1 none
  int version_major, version_minor, address_size;
  char target[32];
  // output code
  uint8_t *code;
  uint32_t code_bytes, code_cap;
  void *tmp[4];             // a pass's buffers, freed by ptx_translate when the pass fails
  ptx_line_entry *lines;    // the line map (ptx_module.lines), kernel after kernel
  int nlines, cap_lines;
  uint8_t *data;            // the data segment of .global/.const variables (ptx_module.data)
  int data_bytes, cap_data;
  ptx_global *globals;
  int nglobals, cap_globals;
  ptx_reloc *relocs;        // module-wide, code offsets from the module's start
  int nrelocs, cap_relocs;
  int64_t femu_at;          // emulate_f: where the F emulation code sits in `code`, -1 not yet
} ptx_ctx;

// Errors: never return.
void ptx_fail(ptx_ctx *c, ptx_status st, int line, const char *instr, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 5, 6)));
void *ptx_grow(ptx_ctx *c, void *p, int *cap, int need, size_t elem);

// Lexer
void ptx_next(ptx_ctx *c);
int ptx_is(const ptx_ctx *c, const char *s);       // current token is exactly s
int ptx_accept(ptx_ctx *c, const char *s);          // consume if exactly s
void ptx_expect(ptx_ctx *c, const char *s);
int64_t ptx_number(ptx_ctx *c, const tok *t);       // integer or 0f/0d literal bits
void ptx_tokcpy(char *dst, size_t n, const tok *t);

// Parser: module header and declarations; returns 1 and fills k for each .entry, 0 at the end
void ptx_parse_header(ptx_ctx *c);
int ptx_parse_next_kernel(ptx_ctx *c, kernel_ir *k);
void kernel_ir_free(kernel_ir *k);
int ptx_is_known_opcode(const char *op);

// Passes
void ptx_regalloc(ptx_ctx *c, kernel_ir *k);
// split: the variant that runs a block as sub-blocks (ptx.h, PTX_KERNEL_SPLIT)
void ptx_codegen(ptx_ctx *c, kernel_ir *k, ptx_kernel *out, int split);
int ptx_kernel_can_split(const kernel_ir *k, const ptx_kernel *pk);

// Helpers on instructions
int insn_has(const insn *in, const char *mod);
int insn_writes_first(const insn *in);  // 1: operand 0 is a destination (a register or vector)
// The registers the allocator gives PTX registers (RV32 numbers), and the scratch registers
// the code generator keeps for spilled operands and expansions.
#define PTX_NUM_ALLOC 24
extern const int ptx_alloc_regs[PTX_NUM_ALLOC];
#define PTX_NUM_FALLOC 28
extern const int ptx_alloc_fregs[PTX_NUM_FALLOC];   // f32 registers (the F register file)
const char *insn_type(const insn *in);  // the last type modifier (.u32, .s64, ...) or NULL

#endif
