/* Internal state of vmgpu's CUDA driver API library (sw/cuda); shared by its files only. */
#ifndef VMGPU_CUDA_INTERNAL_H
#define VMGPU_CUDA_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cuda.h"
#include "vmgpu/core.h"

#define CTX_MAGIC 0x43545821u
#define STREAM_MAGIC 0x53545221u
#define EVENT_MAGIC 0x45564e21u
#define MODULE_MAGIC 0x4d4f4421u
#define FUNC_MAGIC 0x46554e21u

/* Lowest VA the library hands out: the core puts each context's kernel-argument granule first
 * fit from VMGPU_VA_BASE, so keeping process-wide reservations high keeps the two apart. */
#define CU_VA_LO 0x10000000ull
#define CU_VA_HI 0x100000000ull
/* Staging buffer for copies from/to pageable host memory (registered, mapped everywhere). */
#define BOUNCE_BYTES (256u * 1024u)
#define CTX_STACK_MAX 64

struct CUstream_st;

/* A CUDA context: one core context (its own ASID and page tables) mirroring the process-wide
 * VA space below, plus its NULL stream. Objects are never freed, only marked dead, so that a
 * stale handle can never alias a new object. */
struct CUctx_st {
    uint32_t magic;
    int live;
    vmgpu_ctx *core;
    vmgpu_stream *null_s;
    unsigned ring;
    unsigned flags;
    int primary;
    CUresult sticky;          /* CUDA_SUCCESS or the sticky error (ILLEGAL_ADDRESS) */
    unsigned long long id;    /* cuCtxGetId: unique in the process, never reused */
    struct cu_args_area *args;/* kernel arguments of PTX launches (cuda_module.c) */
    struct CUctx_st *next;
};

struct CUstream_st {
    uint32_t magic;
    int live;
    struct CUctx_st *ctx;
    vmgpu_stream *core;
    unsigned flags;
    unsigned long long id;    /* cuStreamGetId: unique in the process, never reused */
    struct CUstream_st *next;
};

struct CUevent_st {
    uint32_t magic;
    int live;
    struct CUctx_st *ctx;
    vmgpu_event *core;
    unsigned flags;
    int recorded;
    unsigned ring;
    uint32_t fence;
    struct CUevent_st *next;
};

struct ptx_kernel;
struct ptx_module;
struct cu_args_area;

struct CUfunc_st {
    uint32_t magic;
    struct CUmod_st *mod;
    unsigned kernel;          /* built-in: VMGPU_KERNEL_* */
    const char *name;
    const struct ptx_kernel *pk; /* PTX: the translator's descriptor (cuda_module.c) */
    int max_dyn_shared;       /* cuFuncSetAttribute values (-1: not set) */
    int carveout;
};

struct CUmod_st {
    uint32_t magic;
    int live;
    struct CUctx_st *ctx;
    struct CUfunc_st fn[6];   /* the built-in image's functions */
    unsigned nfn;             /* 6 for the built-in image, 0 for PTX */
    struct CUfunc_st *pfn;    /* PTX: one function per .entry */
    unsigned npfn;
    struct ptx_module *ptx;
    uint32_t code_va, code_pa, code_map; /* the code in device memory, mapped read-only */
    struct cu_dalloc *data;   /* the module's .global/.const variables, device memory like cuMemAlloc's */
    char *ptx_text;           /* under VMGPU_TRACE: the PTX, for its lines in the trace */
    struct CUmod_st *next;
};

/* Physical allocation behind a CUmemGenericAllocationHandle. */
typedef struct cu_alloc {
    uint64_t id;              /* the handle value */
    uint32_t pa, size;
    int refs;                 /* handle references (create, retain, import) */
    unsigned nmaps;           /* live mappings of it */
    int internal;             /* made by cuMemAlloc: not visible as a handle */
    int foreign;              /* memory owned elsewhere (an imported vgfx export): never freed here */
    struct cu_alloc *origin;  /* an import inside the exporting process (device in process): the
                                 allocation whose memory this handle holds */
    int holders;              /* such imports still holding this allocation's memory */
    CUmemAllocationProp prop;
    int memfd;                /* -1 until exported */
    dev_t fd_dev;
    ino_t fd_ino;
    struct cu_alloc *next;
} cu_alloc;

/* A process-wide VA reservation. */
typedef struct cu_resv {
    uint32_t va, size;
    int internal;
    struct cu_resv *next;
} cu_resv;

/* A mapping of device memory (alloc) or of registered host memory (host != 0) at va. */
typedef struct cu_map {
    uint32_t va, size;
    uint32_t pa;              /* device pa, or host-aperture address */
    int host;
    cu_alloc *alloc;          /* device memory only */
    uint8_t *acc;             /* access per granule: CU_MEM_ACCESS_FLAGS_* (0, 1, 3) */
    struct cu_map *next;
} cu_map;

/* cuMemAlloc / cuMemAllocHost / cuMemHostRegister bookkeeping. */
enum { DA_DEVICE, DA_HOST_ALLOC, DA_HOST_REGISTER, DA_BOUNCE };
typedef struct cu_dalloc {
    int kind;
    uint32_t va;              /* device address of the first byte the user asked for */
    uint32_t map_va, map_size;/* the granule-rounded reservation/mapping */
    size_t bytes;             /* what the user asked for */
    void *host;               /* host pointer the user sees (host kinds) */
    void *host_page;          /* page-aligned start of the registration */
    size_t host_bytes;        /* page-rounded registered bytes */
    uint32_t haddr;
    cu_alloc *alloc;          /* DA_DEVICE */
    struct CUctx_st *ctx;     /* owner (DA_DEVICE is freed with its context) */
    unsigned flags;
    int module;               /* a module's .global/.const variables (cuMemFree refuses it) */
    int exact;                /* copies and fills stay inside [va, va+bytes), not the mapping
                                 (external-memory buffers: NVIDIA refuses bytes past one) */
    struct cu_dalloc *next;
} cu_dalloc;

/* Exports older headers name and the current header no longer declares. */
CUresult CUDAAPI cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);

/* cuda_pool.c, the stream-ordered allocator, learns of stream order and answers for its
 * memory through these (all called with the library lock held): */
void cu_pool_event_recorded(struct CUevent_st *e, struct CUctx_st *c, CUstream h);
void cu_pool_stream_waits(struct CUctx_st *c, CUstream h, struct CUevent_st *e);
void cu_pool_synced_stream(struct CUctx_st *c, CUstream h);
void cu_pool_synced_event(struct CUevent_st *e);
void cu_pool_synced_ctx(struct CUctx_st *c);
/* 1: ptr is in a live pool allocation (its start, size, pool); -1: in a pool's range but in no
 * allocation; 0: not pool memory. */
int cu_pool_range(uint64_t ptr, CUdeviceptr *base, size_t *bytes, CUmemoryPool *pool);
/* cuPointerGetAttribute and cuMemFree of pool memory (*handled 0: not pool memory). */
CUresult cu_pool_ptr_attr(void *data, int attr, uint64_t ptr, int *handled);
CUresult cu_pool_free_now(struct CUctx_st *c, uint64_t ptr, int *handled);
/* cuda_mem.c: the cuMemAlloc allocation starting at va (NULL: none). */
cu_dalloc *cu_dalloc_device_at(uint64_t va);

#endif
