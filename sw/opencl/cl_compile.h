/*
 * OpenCL C for the SIMT unit: clang-14 and ld.lld-14 run as programs (docs/opencl.md,
 * "The compiler"). This file's job is the tool chain and what it produces: options, the
 * compile to a relocatable object with the kernels' metadata, the link, and reading the ELF.
 * Objects (programs, kernels) and the device side stay in cl_program.c.
 */
#ifndef VMGPU_CL_COMPILE_H
#define VMGPU_CL_COMPILE_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of struct vmgpu_launch before a kernel's own arguments (vmgpu_cl_builtins.h). */
#define VCC_ARGS_OFFSET 64u
/* Where the linker puts a program before it knows its VA (the size is measured there). */
#define VCC_NOMINAL_BASE 0x10000u

typedef struct vcc_blob {
    uint8_t *p;
    size_t n;
} vcc_blob;

/* Address spaces as clang's kernel_arg_addr_space numbers them. */
enum { VCC_AS_PRIVATE = 0, VCC_AS_GLOBAL = 1, VCC_AS_CONSTANT = 2, VCC_AS_LOCAL = 3 };

typedef struct vcc_arg {
    unsigned as;          /* VCC_AS_* */
    unsigned access;      /* 0 none, 1 read_only, 2 write_only, 3 read_write */
    unsigned qual;        /* CL_KERNEL_ARG_TYPE_* bits */
    uint32_t offset, size;/* in the kernel's argument struct (after the launch header) */
    char *type;           /* kernel_arg_type, e.g. "int*", "uint4", "S" */
    char *name;           /* kernel_arg_name ("" without -cl-kernel-arg-info) */
    char *base;           /* kernel_arg_base_type while compiling (typedefs resolved); NULL after */
} vcc_arg;

typedef struct vcc_kernel {
    char *name;
    unsigned nargs;
    vcc_arg *args;
    uint32_t args_bytes;  /* sizeof the argument struct */
    uint32_t reqd[3];     /* reqd_work_group_size, 0 0 0 when not given */
} vcc_kernel;

typedef struct vcc_meta {
    unsigned nkernels;
    vcc_kernel *k;
    int arg_info;         /* built with -cl-kernel-arg-info */
} vcc_meta;

/* What the final link produced, read back from the ELF. */
typedef struct vcc_image {
    uint32_t base, end;       /* loaded bytes [base, end): page aligned base */
    uint32_t rw_begin;        /* first page with writable data (end when none) */
    uint32_t entry;           /* _start */
    uint32_t shared_bytes;    /* .shared: the program's static __local bytes */
    uint8_t *bytes;           /* end - base bytes, zero where the ELF has no file data */
} vcc_image;

/* 1 when clang and ld.lld are found (VMGPU_CL_CLANG / VMGPU_CL_LLD override the names);
 * otherwise 0 and why names the tool that is missing. */
int vcc_tools(char *why, size_t n);
/* The -march the compiler targets: VMGPU_CL_MARCH, else rv32im plus what the unit has. */
const char *vcc_march(void);
/* Whether vcc_march() has the F extension; without it the link adds the float helpers. */
int vcc_target_has_f(void);
/* Checks options: kind 0 clBuildProgram, 1 clCompileProgram, 2 clLinkProgram. 0 or the
 * CL_INVALID_*_OPTIONS code. */
int vcc_check_options(const char *opts, int kind);
/* Compiles source (with the named headers, clCompileProgram's) to a relocatable object and its
 * kernels. Returns 0, or -1 with the log (clang's diagnostics) saying why. *log is malloc'd. */
int vcc_compile(const char *src, const char *opts, unsigned nh, const char *const *hdr_src,
                const char *const *hdr_names, vcc_blob *obj, vcc_meta *meta, char **log);
/* Links objects: relocatable != 0 gives one relocatable object (ld -r); else an executable at
 * base with the crt0, read back into *img. 0 or -1 with *log. */
int vcc_link(const vcc_blob *objs, unsigned n, int relocatable, uint32_t base, vcc_blob *out,
             vcc_image *img, char **log);
/* Symbol value in an executable (0 when absent). */
uint32_t vcc_symbol(const vcc_blob *elf, const char *name);
/* Stack bytes of a function in an executable (.stack_sizes), 0 when unknown. */
uint32_t vcc_stack_size(const vcc_blob *elf, uint32_t addr);

/* Metadata as text (the program binary carries it) and back; parse returns 0 or -1. */
char *vcc_meta_text(const vcc_meta *m);
int vcc_meta_parse(const char *text, vcc_meta *m);
int vcc_meta_merge(vcc_meta *into, const vcc_meta *from);   /* 0, or -1: a name twice (arg_info: the caller's) */
void vcc_meta_free(vcc_meta *m);
/* 1 when blob is a RISC-V ELF32 relocatable object. */
int vcc_is_object(const vcc_blob *b);

#endif
