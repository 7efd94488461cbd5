/*
 * What vgfx shares with the rest of libcuda (sw/cuda): its resources for CUDA interop
 * (cuda_graphics.c) and external memory (cuda_extmem.c), and what it needs from libcuda (the
 * device and the lock). Everything here is called with the library lock held.
 */
#ifndef VMGPU_GFX_INTERNAL_H
#define VMGPU_GFX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vmgpu/core.h"
#include "vmgpu_gfx.h"

enum { GFX_BUFFER = 1, GFX_IMAGE = 2 };

typedef struct gfx_res {
    uint32_t magic;
    int kind;                 /* GFX_BUFFER or GFX_IMAGE */
    int live;
    uint32_t pa;              /* device memory: one allocation */
    uint32_t alloc_size;      /* bytes allocated (granule multiple) */
    uint64_t size;            /* bytes of the resource (buffer size, image total) */
    uint32_t va;              /* where vgfx's context maps it */
    vgfxImageDesc desc;       /* images */
    uint64_t layer_stride;
    uint64_t level_off[VGFX_MAX_MIP_LEVELS];
    unsigned cuda_registrations;  /* live CUDA registrations (cuGraphicsVgfxRegister*) */
    unsigned cuda_mapped;         /* of those, mapped right now */
    int memfd;                /* -1 until exported */
    dev_t fd_dev;
    ino_t fd_ino;
    struct gfx_res *next;
} gfx_res;


/* The live resource a handle names (kind 0: either kind), NULL otherwise. */
gfx_res *gfx_res_lookup(const void *handle, int kind);
/* vgfx's stream (NULL before vgfxInit). */
vmgpu_stream *gfx_stream(void);
/* Offset and pitch of one subresource of an image resource. */
void gfx_subresource(const gfx_res *r, uint32_t layer, uint32_t level, vgfxSubresourceLayout *out);

/* 0 and the resource's physical base and size when fd refers to the memfd of an exported vgfx
 * resource (same st_dev/st_ino); -1 otherwise. */
int vgfx_lookup_export_fd(int fd, uint32_t *pa, uint64_t *size);

/* png.c: 8-bit RGBA PNG of w x h pixels (rows of w*4 bytes); 0 or -1 with msg. */
int gfx_write_png(const char *path, const uint8_t *rgba, uint32_t w, uint32_t h, char *msg,
                  size_t msglen);

#endif
