/* PTX modules and their launches on the SIMT unit (cuda_module.c), for cuda_exec.c's entry
 * points. All called with the library lock held. */
#ifndef VMGPU_CUDA_MODULE_H
#define VMGPU_CUDA_MODULE_H

#include "cuda_internal.h"

/* The JIT options of cuModuleLoadDataEx that have an effect: the log buffers and wall time. */
typedef struct cu_jit_opts {
    char *elog;
    size_t elog_size;
    void **elog_size_slot;
    char *ilog;
    size_t ilog_size;
    void **ilog_size_slot;
    void **wall_slot;
} cu_jit_opts;

/* INVALID_VALUE for an unknown option, or a log size given without its buffer. */
CUresult cu_jit_opts_parse(unsigned n, CUjit_option *opt, void **val, cu_jit_opts *out);
/* PTX text or a fat binary carrying PTX, into a new module of c (not yet on the module list). */
CUresult cu_module_load_image(struct CUctx_st *c, const void *image, cu_jit_opts *jo, struct CUmod_st **out);
/* The module's code, functions and translation (its memory freed; the context's work must be
 * complete). */
void cu_module_free_ptx(struct CUmod_st *m);
/* A context's argument area (at context destroy). */
void cu_args_release(struct CUctx_st *c);
CUresult cu_func_get_attribute(int *pi, CUfunction_attribute a, const struct CUfunc_st *f);
CUresult cu_func_set_attribute(struct CUfunc_st *f, CUfunction_attribute a, int value);
CUresult cu_module_get_global(CUdeviceptr *dptr, size_t *bytes, struct CUmod_st *m, const char *name);
/* A launch of a PTX function whose NVIDIA limits were checked already. */
CUresult cu_launch_ptx(struct CUfunc_st *fn, struct CUctx_st *c, vmgpu_stream *s, const unsigned grid[3],
                       const unsigned block[3], unsigned shmem, void **params, void **extra);

#endif
