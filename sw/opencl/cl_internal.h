/*
 * Internal state of vmgpu's OpenCL 1.2 ICD (sw/opencl); shared by its files only.
 *
 * Model
 * - One platform, one device (the vmgpu opened through the driver core on first use).
 * - Every object starts with the ICD dispatch pointer (cl_khr_icd), then a magic number. Object
 *   shells are never freed: the ICD loader reads the dispatch pointer of whatever handle it is
 *   given before we are called, so a released handle must stay readable to be answered with
 *   its CL_INVALID_* code. A registry of every shell ever made is checked before the magic.
 * - One library lock around every entry point (the core is not thread-safe). Blocking waits
 *   sleep on a condition variable with the lock released so another thread can set a user
 *   event. Callbacks (event, destructor, context) are collected while locked and run after the
 *   lock is dropped, so they may call the API.
 * - Commands wait in their queue until their wait list is resolved, then run to completion
 *   (device work is submitted and waited for). The queue is in order, so running the head
 *   command only ever needs the commands before it to be done.
 */
#ifndef VMGPU_CL_INTERNAL_H
#define VMGPU_CL_INTERNAL_H

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS

#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_icd.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "vmgpu/core.h"
#include "cl_compile.h"

#define VCL_HIDDEN __attribute__((visibility("hidden")))

enum vcl_kind {
    VCL_PLATFORM = 0x504c4154u,
    VCL_DEVICE = 0x44455649u,
    VCL_CONTEXT = 0x43545854u,
    VCL_QUEUE = 0x51554555u,
    VCL_MEM = 0x4d454d21u,
    VCL_PROGRAM = 0x50524f47u,
    VCL_KERNEL = 0x4b45524eu,
    VCL_EVENT = 0x4556454eu,
    VCL_SAMPLER = 0x53414d50u
};

/* The first fields of every object, in this order. */
#define VCL_HEAD                          \
    const struct _cl_icd_dispatch *dispatch; \
    uint32_t magic;                       \
    int live;                             \
    cl_uint refs

/* Profiling and queue limits. */
#define VCL_BASE_ADDR_ALIGN_BITS 1024u       /* CL_DEVICE_MEM_BASE_ADDR_ALIGN: 128 bytes */
#define VCL_MAX_WORK_GROUP 1024u
#define VCL_NPARAMS 5

struct _cl_platform_id { VCL_HEAD; };
struct _cl_device_id { VCL_HEAD; };

typedef struct vcl_ctx_cb {
    void(CL_CALLBACK *fn)(const char *, const void *, size_t, void *);
    void *user;
} vcl_ctx_cb;

struct _cl_context {
    VCL_HEAD;
    cl_uint attached;                 /* objects that keep the context alive (queues, mems, ...) */
    vmgpu_ctx *core;
    cl_context_properties props[8];
    cl_uint nprops;                   /* entries of props incl. the terminating 0 (0 if none) */
    vcl_ctx_cb notify;
};

typedef struct vcl_cmd vcl_cmd;

struct _cl_command_queue {
    VCL_HEAD;
    cl_uint attached;                 /* events and pending commands */
    cl_context ctx;
    cl_command_queue_properties props;
    vmgpu_stream *s;
    vcl_cmd *head, *tail;             /* pending commands, in order */
};

typedef struct vcl_mapping {
    void *ptr;
    size_t off, size;                 /* images: byte offset of the origin; size unused */
    size_t row_bytes, rows, slices;   /* images: the mapped box (0 rows for buffers) */
    cl_map_flags flags;
    struct vcl_mapping *next;
} vcl_mapping;

typedef struct vcl_dtor {
    void(CL_CALLBACK *fn)(cl_mem, void *);
    void *user;
    struct vcl_dtor *next;            /* newest first: the spec calls them in reverse order */
} vcl_dtor;

/* A range of registered host pages (shared by buffers whose host memory shares pages). */
typedef struct vcl_hostreg {
    uint8_t *page;
    size_t bytes;
    uint32_t haddr;
    int refs;
    struct vcl_hostreg *next;
} vcl_hostreg;

struct _cl_mem {
    VCL_HEAD;
    cl_uint attached;                 /* sub-buffers and pending commands */
    cl_context ctx;
    cl_mem_object_type type;
    cl_mem_flags flags;
    size_t size;
    void *host_ptr;                   /* CL_MEM_HOST_PTR (USE_HOST_PTR only), incl. origin */
    cl_mem parent;                    /* sub-buffers: the buffer they are in */
    size_t origin;
    cl_mem subs;                      /* root buffers: its sub-buffers, newest first (dead ones too:
                                         objects are never freed, and a dead one has no maps) */
    cl_mem sub_next;                  /* sub-buffers: the next one of the parent's list */
    /* Storage; root buffers only (sub-buffers use the parent's at + origin). */
    int zero_copy;                    /* host memory through the host aperture */
    uint8_t *host;                    /* zero copy: host address of byte 0 */
    void *host_alloc;                 /* ALLOC_HOST_PTR: what we allocated */
    uint32_t va;                      /* device VA of byte 0 */
    uint32_t va_base, va_bytes;       /* the page-rounded VA reservation */
    uint32_t pa;                      /* device memory (0 for zero copy) */
    vcl_hostreg **regs;               /* zero copy: registrations held */
    unsigned nregs;
    uint8_t *staging;                 /* device buffers: host staging of maps (lazy) */
    uint32_t staging_va;
    /* Kernel view: READ_ONLY / WRITE_ONLY objects get a second mapping of the same pages
     * without W / without R, which kernel arguments use; va above stays read/write for the
     * DMA commands (copies, fills, map staging), which the spec lets touch any object. */
    uint32_t kva_base, kva_bytes;     /* 0 when the kernel uses va */
    uint32_t kva;                     /* kernel-view VA of byte 0 */
    /* Images: width x height x depth pixels of elem bytes; pixel (x, y, z) at
     * z * sstep + y * rstep + x * elem. A 1D array keeps its layers as rows (height = array
     * size, rstep = its slice pitch); a 2D array its layers as slices. row_pitch and
     * slice_pitch are what the API reports (slice_pitch 0 for 1D and 2D images). */
    cl_image_format fmt;
    size_t width, height, depth, row_pitch, slice_pitch, rstep, sstep, elem;
    /* Maps of this object. */
    vcl_mapping *maps;
    cl_uint map_count;
    vcl_dtor *dtors;
};

struct _cl_program {
    VCL_HEAD;
    cl_uint attached;                 /* kernels */
    cl_context ctx;
    int builtin;                      /* made by clCreateProgramWithBuiltInKernels */
    char *source;
    char *kernel_names;               /* builtin: ';'-separated */
    char *options;
    cl_build_status status;
    const char *log;
    char *log_owned;                  /* the last build's log (clang's and lld's words) */
    /* OpenCL C for the SIMT unit (cl_compile.c): what clCompileProgram / clLinkProgram /
     * clCreateProgramWithBinary hold, and the executable loaded into the context. */
    cl_program_binary_type btype;
    int from_binary;
    vcc_blob obj;                     /* relocatable object: compiled, library, or linked from */
    vcc_meta meta;
    vcc_blob elf;                     /* the executable, linked at va */
    vcc_image img;
    uint32_t va, va_bytes, pa;        /* image pages and, after them, the argument page */
    uint32_t args_va, args_pa;
    int loaded;
};

typedef struct vcl_arg {
    int set;
    cl_mem mem;                       /* args 0..2 (retained while set) */
    cl_int value;                     /* args 3..4 */
} vcl_arg;

/* An argument of a kernel compiled from OpenCL C. */
typedef struct vcl_parg {
    int set;
    cl_mem mem;                       /* buffers (retained while set; NULL: a NULL pointer) */
    uint32_t local_bytes;             /* __local arguments */
} vcl_parg;

struct _cl_kernel {
    VCL_HEAD;
    cl_program prog;
    unsigned kernel;                  /* VMGPU_KERNEL_* */
    const char *name;
    vcl_arg args[VCL_NPARAMS];
    const vcc_kernel *meta;           /* non-NULL: compiled from OpenCL C (runs on the SIMT unit) */
    vcl_parg *pargs;
    uint8_t *argbuf;                  /* the argument struct's bytes as set (by-value arguments) */
};

typedef struct vcl_evcb {
    void(CL_CALLBACK *fn)(cl_event, cl_int, void *);
    void *user;
    cl_int when;
    struct vcl_evcb *next;
} vcl_evcb;

struct _cl_event {
    VCL_HEAD;
    cl_context ctx;
    cl_command_queue queue;           /* NULL for user events */
    cl_command_type type;
    cl_int status;
    cl_ulong t[4];                    /* queued, submit, start, end (ns) */
    vcl_evcb *cbs;
};

struct _cl_sampler {
    VCL_HEAD;
    cl_context ctx;
    cl_bool normalized;
    cl_addressing_mode addressing;
    cl_filter_mode filter;
};

/* Command kinds the queue runs. */
enum vcl_op {
    OP_NOP, OP_READ, OP_WRITE, OP_COPY, OP_FILL, OP_READ_RECT, OP_WRITE_RECT, OP_COPY_RECT,
    OP_MAP, OP_UNMAP, OP_KERNEL, OP_IMG_READ, OP_IMG_WRITE, OP_IMG_FILL
};

struct vcl_cmd {
    int op;
    cl_event ev;                      /* always present; the command holds one reference */
    cl_event *wait;                   /* retained */
    cl_uint nwait;
    cl_mem mem[2];                    /* retained; for kernels dst/a/b go in kmem */
    cl_kernel kernel;                 /* retained */
    cl_mem kmem[3];
    cl_int kval[2];
    size_t off[2], size;
    void *ptr;
    const void *cptr;
    uint8_t pattern[128];
    size_t pattern_size;
    size_t region[3], o[3][3], pitch[4]; /* rect: origins buffer/host/src/dst, pitches */
    cl_map_flags map_flags;
    vcl_mapping *mapping;             /* unmap: the record being removed */
    /* OpenCL C kernels: the argument struct with VAs filled in, the buffers it names, and the
     * NDRange as the unit runs it. */
    uint8_t *kblock;
    uint32_t kblock_n;
    cl_mem *kmems;
    unsigned nkmems;
    uint32_t dim, gsize[3], goff[3], lsize[3], shared;
    vcl_cmd *next;
};

/* cl_platform.c */
extern pthread_mutex_t vcl_lock;
extern pthread_cond_t vcl_cond;
extern struct _cl_platform_id vcl_platform;
extern struct _cl_device_id vcl_device;
extern const struct _cl_icd_dispatch vcl_dispatch;
extern vmgpu_dev *vcl_dev;
extern vmgpu_dev_info vcl_info;
VCL_HIDDEN void vcl_enter(void);
VCL_HIDDEN void vcl_leave(void);   /* unlock, then run the collected callbacks */
VCL_HIDDEN cl_int vcl_dev_ready(void);
VCL_HIDDEN void vcl_register(void *obj, uint32_t magic);
VCL_HIDDEN int vcl_valid(const void *obj, uint32_t magic);
VCL_HIDDEN cl_int vcl_info_out(const void *src, size_t n, size_t size, void *value, size_t *ret);
VCL_HIDDEN void vcl_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
VCL_HIDDEN cl_ulong vcl_now_ns(void);
/* vcl_now_ns() for a profiling queue, 0 otherwise: reading the counter costs link round trips,
 * which only a queue that reports times should pay. */
VCL_HIDDEN cl_ulong vcl_q_now(cl_command_queue q);
VCL_HIDDEN cl_ulong vcl_cycles_ns(uint64_t cycles);
VCL_HIDDEN int vcl_valid_device(cl_device_id d);
/* CL_DEVICE_MAX_WORK_GROUP_SIZE and MAX_WORK_ITEM_SIZES[i]: the SIMT unit's threads (lanes x
 * warps, at most 1023 per dimension), VCL_MAX_WORK_GROUP on a device without the unit. */
VCL_HIDDEN size_t vcl_max_work_group(void);
VCL_HIDDEN size_t vcl_max_work_item(void);
/* Deferred callbacks. */
VCL_HIDDEN void vcl_defer_event_cb(vcl_evcb *cb, cl_event ev, cl_int status);
VCL_HIDDEN void vcl_defer_dtor(vcl_dtor *d, cl_mem m);
VCL_HIDDEN void vcl_defer_ctx_notify(cl_context c, const char *msg);

/* cl_context.c */
VCL_HIDDEN cl_event vcl_event_new(cl_context ctx, cl_command_queue q, cl_command_type type);
VCL_HIDDEN void vcl_event_set_status(cl_event e, cl_int status);
VCL_HIDDEN void vcl_event_release(cl_event e);
VCL_HIDDEN void vcl_context_release(cl_context c);
VCL_HIDDEN void vcl_queue_release(cl_command_queue q);
VCL_HIDDEN cl_int vcl_check_wait_list(cl_context ctx, cl_uint n, const cl_event *list);
/* Queue a command (wait list already checked); runs what can run; *out_ev gets a reference
 * when event is non-NULL. blocking: wait for it; returns its error for blocking commands. */
VCL_HIDDEN cl_int vcl_submit(cl_command_queue q, vcl_cmd *c, cl_command_type type, cl_uint nwait,
                             const cl_event *wait, cl_event *event, int blocking);
VCL_HIDDEN void vcl_progress(void);
VCL_HIDDEN cl_int vcl_core_err(cl_command_queue q, int rc);

/* cl_mem.c */
VCL_HIDDEN void vcl_mem_retain_internal(cl_mem m);
VCL_HIDDEN void vcl_mem_release_internal(cl_mem m);
VCL_HIDDEN uint32_t vcl_mem_va(cl_mem m);
VCL_HIDDEN uint32_t vcl_mem_kva(cl_mem m);   /* the VA kernels get (access flags enforced) */
VCL_HIDDEN cl_int vcl_run_mem_cmd(cl_command_queue q, vcl_cmd *c);
VCL_HIDDEN void vcl_cmd_free(vcl_cmd *c);
/* Shared with cl_image.c: storage, staging, kernel view, commands and device work. */
typedef struct prof { vmgpu_event *start; } prof;
VCL_HIDDEN cl_mem vcl_root_of(cl_mem m);
/* 1 when mapping want of m would overlap a mapping of m or of an object sharing its memory
 * where either of the two is for writing (OpenCL 1.2 5.4.2.1, 3.0 5.5.4: CL_INVALID_OPERATION). */
VCL_HIDDEN int vcl_map_conflict(cl_mem m, const vcl_mapping *want);
VCL_HIDDEN cl_ulong vcl_max_alloc(void);
VCL_HIDDEN int vcl_map_host(cl_context ctx, uint8_t *h, size_t size, cl_mem m);
VCL_HIDDEN int vcl_map_device(cl_context ctx, size_t size, cl_mem m);
VCL_HIDDEN unsigned vcl_kernel_access(cl_mem_flags f);
VCL_HIDDEN int vcl_kview_make(cl_mem root, cl_mem m, size_t off, size_t size);
VCL_HIDDEN int vcl_staging_ready(cl_mem r);
VCL_HIDDEN void vcl_storage_free(cl_mem m);
VCL_HIDDEN cl_mem vcl_mem_new(cl_context c, cl_mem_flags flags, size_t size);
VCL_HIDDEN vcl_cmd *vcl_cmd_new(int op, cl_mem a, cl_mem b);
VCL_HIDDEN int vcl_out_of(size_t off, size_t n, size_t size);
VCL_HIDDEN int vcl_dev_begin(cl_command_queue q, prof *p);
VCL_HIDDEN int vcl_dev_end(cl_command_queue q, prof *p, cl_event e, int rc);
VCL_HIDDEN int vcl_dma_copy(cl_command_queue q, uint32_t dst, uint32_t src, size_t n);
VCL_HIDDEN int vcl_host_read(cl_command_queue q, cl_mem m, size_t off, void *dst, size_t n);
VCL_HIDDEN int vcl_host_write(cl_command_queue q, cl_mem m, size_t off, const void *src, size_t n);
VCL_HIDDEN int vcl_check_mem_flags(cl_mem_flags flags);  /* CL_INVALID_VALUE or 0 */
VCL_HIDDEN cl_int vcl_derived_flags(cl_mem b, cl_mem_flags flags, cl_mem_flags *out);
/* CL_DEVICE_IMAGE_MAX_BUFFER_SIZE: pixels of a 1D image buffer (the full profile's minimum). */
#define VCL_IMAGE_BUFFER_MAX 65536u
/* cl_image.c: image commands run by vcl_run_mem_cmd, and the map/unmap copies of images. */
VCL_HIDDEN int vcl_run_image_cmd(cl_command_queue q, vcl_cmd *c, prof *p);
/* One 2D DMA per slice of a box of an image between two VAs with the image's layout. */
VCL_HIDDEN int vcl_image_copy_box(cl_command_queue q, cl_mem m, uint32_t dst, uint32_t src, size_t off,
                                  size_t row_bytes, size_t rows, size_t slices);

/* cl_program.c */
VCL_HIDDEN cl_int vcl_run_kernel_cmd(cl_command_queue q, vcl_cmd *c);
VCL_HIDDEN void vcl_kernel_release_internal(cl_kernel k);
/* 1 when OpenCL C programs can be built: the SIMT unit is there and clang and ld.lld are found
 * (why, when given, says what is missing). */
VCL_HIDDEN int vcl_compiler_available(char *why, size_t n);

/* cl_source.c: programs from OpenCL C (arguments checked by cl_program.c's entry points). */
VCL_HIDDEN cl_int vcl_src_build(cl_program p, const char *opts);
VCL_HIDDEN cl_int vcl_src_compile(cl_program p, const char *opts, cl_uint nh, const cl_program *hdrs,
                                  const char **names);
VCL_HIDDEN cl_int vcl_src_link(cl_program out, const char *opts, cl_uint np, const cl_program *ps,
                               int create_library);
VCL_HIDDEN void vcl_src_unload(cl_program p);
VCL_HIDDEN void vcl_src_free(cl_program p);
VCL_HIDDEN uint8_t *vcl_src_binary(cl_program p, size_t *n);
VCL_HIDDEN int vcl_src_from_binary(cl_program p, const uint8_t *b, size_t n);
VCL_HIDDEN const vcc_kernel *vcl_src_find(cl_program p, const char *name);
VCL_HIDDEN int vcl_src_kernel_init(cl_kernel k, const vcc_kernel *m);
VCL_HIDDEN void vcl_src_kernel_free(cl_kernel k);
VCL_HIDDEN cl_int vcl_src_set_arg(cl_kernel k, cl_uint i, size_t size, const void *value);
VCL_HIDDEN cl_int vcl_src_kernel_info(cl_kernel k, cl_kernel_info p, size_t size, void *value, size_t *ret);
VCL_HIDDEN cl_int vcl_src_wg_info(cl_kernel k, cl_kernel_work_group_info p, size_t size, void *value,
                                  size_t *ret);
VCL_HIDDEN cl_int vcl_src_arg_info(cl_kernel k, cl_uint i, cl_kernel_arg_info p, size_t size, void *value,
                                   size_t *ret);
VCL_HIDDEN cl_int vcl_src_enqueue(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *goff,
                                  const size_t *gsize, const size_t *lsize, cl_uint nw, const cl_event *w,
                                  cl_event *e);
VCL_HIDDEN cl_int vcl_src_run(cl_command_queue q, vcl_cmd *c);

/* Entry points (cl_*.c): vcl_<name> implements cl<name>; the prototype is the Khronos one. */
#define VCL_ENTRIES(X) \
    X(GetPlatformIDs) X(GetPlatformInfo) X(GetDeviceIDs) X(GetDeviceInfo) X(CreateSubDevices) \
    X(RetainDevice) X(ReleaseDevice) \
    X(CreateContext) X(CreateContextFromType) X(RetainContext) X(ReleaseContext) \
    X(GetContextInfo) \
    X(CreateCommandQueue) X(RetainCommandQueue) X(ReleaseCommandQueue) X(GetCommandQueueInfo) \
    X(SetCommandQueueProperty) \
    X(CreateBuffer) X(CreateSubBuffer) X(RetainMemObject) X(ReleaseMemObject) \
    X(GetMemObjectInfo) X(SetMemObjectDestructorCallback) X(GetSupportedImageFormats) \
    X(GetImageInfo) X(CreateImage) X(CreateImage2D) X(CreateImage3D) \
    X(CreateSampler) X(RetainSampler) X(ReleaseSampler) X(GetSamplerInfo) \
    X(CreateProgramWithSource) X(CreateProgramWithBinary) X(CreateProgramWithBuiltInKernels) \
    X(RetainProgram) X(ReleaseProgram) X(BuildProgram) X(CompileProgram) X(LinkProgram) \
    X(UnloadCompiler) X(UnloadPlatformCompiler) X(GetProgramInfo) X(GetProgramBuildInfo) \
    X(CreateKernel) X(CreateKernelsInProgram) X(RetainKernel) X(ReleaseKernel) \
    X(SetKernelArg) X(GetKernelInfo) X(GetKernelWorkGroupInfo) X(GetKernelArgInfo) \
    X(WaitForEvents) X(GetEventInfo) X(CreateUserEvent) X(RetainEvent) X(ReleaseEvent) \
    X(SetUserEventStatus) X(SetEventCallback) X(GetEventProfilingInfo) X(Flush) X(Finish) \
    X(EnqueueReadBuffer) X(EnqueueReadBufferRect) X(EnqueueWriteBuffer) \
    X(EnqueueWriteBufferRect) X(EnqueueCopyBuffer) X(EnqueueCopyBufferRect) \
    X(EnqueueFillBuffer) X(EnqueueMapBuffer) X(EnqueueUnmapMemObject) \
    X(EnqueueReadImage) X(EnqueueWriteImage) X(EnqueueCopyImage) X(EnqueueFillImage) \
    X(EnqueueCopyImageToBuffer) X(EnqueueCopyBufferToImage) X(EnqueueMapImage) \
    X(EnqueueMigrateMemObjects) X(EnqueueNDRangeKernel) X(EnqueueTask) \
    X(EnqueueNativeKernel) X(EnqueueMarkerWithWaitList) X(EnqueueBarrierWithWaitList) \
    X(EnqueueMarker) X(EnqueueWaitForEvents) X(EnqueueBarrier) \
    X(GetExtensionFunctionAddress) X(GetExtensionFunctionAddressForPlatform)

#define VCL_DECLARE(name) VCL_HIDDEN extern __typeof__(cl##name) vcl_##name;
VCL_ENTRIES(VCL_DECLARE)
#undef VCL_DECLARE

#endif
