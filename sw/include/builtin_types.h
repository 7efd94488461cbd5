/*
 * builtin_types.h -- the CUDA vector types and dim3, for host programs of the driver API.
 *
 * Written for vmgpu.  NVIDIA's driver-API samples (vectorAddMMAP, memMapIPCDrv, ...) include
 * <builtin_types.h> beside <cuda.h>; in NVIDIA's toolkit it gathers the runtime's type headers.
 * vmgpu has no runtime API, so this header gives what host code of such programs uses: the
 * vector types (char1 ... double4) with NVIDIA's sizes and alignments, and dim3.  Names,
 * members and alignments agree with NVIDIA's vector_types.h, so a struct of them laid out here
 * matches one laid out by nvcc.
 */
#ifndef VMGPU_BUILTIN_TYPES_H
#define VMGPU_BUILTIN_TYPES_H

#include <stddef.h>

#define VMGPU_ALIGN_(n) __attribute__((aligned(n)))

/* One family: T1 T2 T3 T4 with members x, y, z, w; the 2- and 4-element forms are aligned to
 * their whole size (up to 16 bytes), the 1- and 3-element forms to their element. */
#define VMGPU_VEC_(name, T, a2, a4)                                                   \
    typedef struct name##1 { T x; } name##1;                                          \
    typedef struct VMGPU_ALIGN_(a2) name##2 { T x, y; } name##2;                      \
    typedef struct name##3 { T x, y, z; } name##3;                                    \
    typedef struct VMGPU_ALIGN_(a4) name##4 { T x, y, z, w; } name##4;

VMGPU_VEC_(char, signed char, 2, 4)
VMGPU_VEC_(uchar, unsigned char, 2, 4)
VMGPU_VEC_(short, short, 4, 8)
VMGPU_VEC_(ushort, unsigned short, 4, 8)
VMGPU_VEC_(int, int, 8, 16)
VMGPU_VEC_(uint, unsigned int, 8, 16)
VMGPU_VEC_(long, long, 2 * sizeof(long), 16)
VMGPU_VEC_(ulong, unsigned long, 2 * sizeof(long), 16)
VMGPU_VEC_(longlong, long long, 16, 16)
VMGPU_VEC_(ulonglong, unsigned long long, 16, 16)
VMGPU_VEC_(float, float, 8, 16)
VMGPU_VEC_(double, double, 16, 16)
#undef VMGPU_VEC_
#undef VMGPU_ALIGN_

/* Grid and block dimensions: every dimension defaults to 1. */
typedef struct dim3 {
    unsigned int x, y, z;
#if defined(__cplusplus)
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
#endif
} dim3;

#endif /* VMGPU_BUILTIN_TYPES_H */
