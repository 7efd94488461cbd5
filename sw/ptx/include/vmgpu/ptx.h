// PTX translator: PTX text (as nvcc and NVRTC emit it) -> RV32IM code for the SIMT unit
// (rtl/simt, docs/cores.md) plus a descriptor per kernel. docs/ptx.md lists the subset, the
// translation scheme, the register allocation and the 64 -> 32-bit address rule.
//
// Conventions: every call returns a ptx_status; on failure nothing is allocated and the
// ptx_error (when given) names the line, the instruction and the reason. The translator never
// emits code for PTX it does not understand exactly: what it cannot translate faithfully is an
// error, not an approximation.
#ifndef VMGPU_PTX_H
#define VMGPU_PTX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ptx_status {
  PTX_OK = 0,
  PTX_ERR_INVALID_VALUE = 1,  // a NULL or bad argument (CUDA_ERROR_INVALID_VALUE)
  PTX_ERR_INVALID_PTX = 2,    // not PTX, or PTX that is wrong (CUDA_ERROR_INVALID_PTX)
  PTX_ERR_NOT_SUPPORTED = 3,  // valid PTX this device cannot run (CUDA_ERROR_NOT_SUPPORTED)
  PTX_ERR_NO_MEMORY = 4,      // (CUDA_ERROR_OUT_OF_MEMORY)
} ptx_status;

typedef struct ptx_error {
  int line;             // 1-based line of the PTX text, 0 when the error has no line
  char instr[48];       // the instruction (opcode with its modifiers) or directive, "" if none
  char message[256];    // what is wrong, in words
} ptx_error;

// One .param entry of a kernel, as laid out in the argument block the kernel reads (CUDA's
// kernelParams copied at their offsets). Pointers are 8 bytes: the device reads the low word
// (the device VA is 32-bit; the high word must be 0).
typedef struct ptx_param {
  char name[96];
  uint32_t offset, size, align;
} ptx_param;

enum {
  PTX_KERNEL_NEEDS_ATOMICS = 1u << 0,  // uses atom/red: emitted as RV32A/Zacas AMOs (the unit
                                       // has them; host-aperture pages fault HOST_ATOMIC)
  PTX_KERNEL_DYNAMIC_SHARED = 1u << 1, // declares .extern .shared (bytes after shared_bytes)
  PTX_KERNEL_NEEDS_WARP32 = 1u << 2,   // uses shfl/vote/activemask/bar.warp: needs the unit's
                                       // warps to be 32 lanes (a CUDA warp in lockstep) and a
                                       // word of shared memory per thread at its top
  PTX_KERNEL_NEEDS_F = 1u << 3,        // has f32 registers or emits F instructions (flw/fsw,
                                       // OP-FP, the fused ops): needs the unit's F extension
  PTX_KERNEL_SPLIT = 1u << 4,          // has a second entry, split_entry, that runs a block
                                       // larger than the unit as sub-blocks: no barrier, shared
                                       // memory or warp-level instruction (docs/ptx.md)
  PTX_KERNEL_FEMU = 1u << 5,           // translated with ptx_options.emulate_f: its F
                                       // instructions are calls into the module's emulation
                                       // code (no F needed; PTX_KERNEL_NEEDS_F is clear)
};

typedef struct ptx_kernel {
  char name[96];
  uint32_t entry;          // byte offset of the kernel's first instruction in ptx_module.code
  uint32_t code_bytes;     // its length
  ptx_param *params;
  uint32_t num_params;
  uint32_t param_bytes;    // size of the argument block
  uint32_t shared_bytes;   // static shared memory (the .shared arrays it uses)
  uint32_t stack_bytes;    // per-thread stack: spill slots and .local arrays
  uint32_t flags;          // PTX_KERNEL_*
  uint32_t num_vregs;      // PTX registers declared (for the trace and the docs' figures)
  uint32_t num_spilled;    // of them, kept on the stack
  uint32_t split_entry;    // with PTX_KERNEL_SPLIT: the split variant's first instruction and
  uint32_t split_code_bytes;  // length; its launch appends six words after the arguments, at
                           // the 4-byte-aligned param_bytes: sub-blocks per block S, threads per
                           // sub-block C, the block's x, y, z sizes and its thread count; the
                           // hardware runs S * grid x blocks of C threads
} ptx_kernel;

// Where a piece of code came from: the code at code_offset (in ptx_module.code) up to the next
// entry's offset was translated from PTX line `line` (1-based; a kernel's prologue has the line
// of its .entry).
typedef struct ptx_line_entry {
  uint32_t code_offset;
  int line;
} ptx_line_entry;

// A module-scope .global or .const variable in the module's data segment (ptx_module.data).
typedef struct ptx_global {
  char name[96];
  uint32_t offset, size;   // in the data segment
  int is_const;            // declared .const (kernels only read it; the host may write it)
} ptx_global;

// Where the code takes a variable's address: a lui at code_offset and an addi after it, holding
// data_offset as if the data segment were at VA 0. Whoever loads the module adds the segment's VA
// to both words (ptx_module_relocate).
typedef struct ptx_reloc {
  uint32_t code_offset;
  uint32_t data_offset;
} ptx_reloc;

typedef struct ptx_module {
  uint8_t *code;           // RV32IM machine code, position-independent, little-endian
  uint32_t code_bytes;
  ptx_kernel *kernels;
  uint32_t num_kernels;
  int ptx_version_major, ptx_version_minor;
  char target[32];
  int address_size;        // 32 or 64
  ptx_line_entry *lines;   // the line map, sorted by code_offset, every kernel's code in it
  uint32_t num_lines;
  uint8_t *data;           // the initial bytes of the .global/.const variables (data_bytes)
  uint32_t data_bytes;     // 0: the module has none
  ptx_global *globals;
  uint32_t num_globals;
  ptx_reloc *relocs;       // the code's references to the data segment
  uint32_t num_relocs;
} ptx_module;

typedef struct ptx_options {
  uint32_t shared_base;    // VA of the shared-memory window (0: 0xFF000000, the unit's default)
  uint32_t shared_limit;   // bytes of shared memory the unit has (0: 4096)
  uint32_t max_regs;       // RV32 registers the allocator may use, 1..24 (0: all 24); fewer
                           // force spills (the tests use it to run the spill code)
  uint32_t emulate_f;      // nonzero: a unit without the F extension runs the code. Kernels with
                           // f32 get the module's F emulation (docs/ptx.md, "f32 on a unit
                           // without F"): each F instruction a call into code placed ahead of
                           // the first such kernel, the F registers in the thread's stack.
                           // Where vmgpu was built without clang-14 there is no emulation code
                           // and such kernels keep PTX_KERNEL_NEEDS_F.
  uint32_t stack_limit;    // bytes of stack each thread has (0: 1024, VMGPU_SIMT_STACK_BYTES);
                           // the emulation's state and frames must fit in it with the kernel's
} ptx_options;

// Whether this build of the translator carries the F emulation code (clang-14 at build time).
int ptx_femu_available(void);

// Translates a whole PTX module (text of `len` bytes; need not be NUL-terminated).
ptx_status ptx_translate(const char *text, size_t len, const ptx_options *opt, ptx_module **out,
                         ptx_error *err);
void ptx_module_free(ptx_module *m);
const ptx_kernel *ptx_module_kernel(const ptx_module *m, const char *name);
const char *ptx_status_name(ptx_status s);
// The PTX line the code at byte `code_offset` of m->code came from; 0 outside the code.
int ptx_module_line_of(const ptx_module *m, uint32_t code_offset);
// Patches a copy of the module's code (code, code_bytes long) for a data segment at data_va.
void ptx_module_relocate(const ptx_module *m, uint8_t *code, uint32_t data_va);
const ptx_global *ptx_module_global(const ptx_module *m, const char *name);

#ifdef __cplusplus
}
#endif
#endif
