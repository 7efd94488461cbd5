/*
 * Sizes and alignments of the CUDA vector types and dim3, one "name size align" line each:
 * built against NVIDIA's builtin_types.h on the GPU machine (nvidia-vector-types.txt) and against
 * vmgpu's sw/include/builtin_types.h here (ctest builtin_types_abi compares the two).
 */
#include <stdio.h>
#include <builtin_types.h>

#define T(t) printf("%s %zu %zu\n", #t, sizeof(t), (size_t)__alignof__(t))

int main(void)
{
    T(char1);
    T(char2);
    T(char3);
    T(char4);
    T(uchar1);
    T(uchar2);
    T(uchar3);
    T(uchar4);
    T(short1);
    T(short2);
    T(short3);
    T(short4);
    T(ushort1);
    T(ushort2);
    T(ushort3);
    T(ushort4);
    T(int1);
    T(int2);
    T(int3);
    T(int4);
    T(uint1);
    T(uint2);
    T(uint3);
    T(uint4);
    T(long1);
    T(long2);
    T(long3);
    T(long4);
    T(ulong1);
    T(ulong2);
    T(ulong3);
    T(ulong4);
    T(longlong1);
    T(longlong2);
    T(longlong3);
    T(longlong4);
    T(ulonglong1);
    T(ulonglong2);
    T(ulonglong3);
    T(ulonglong4);
    T(float1);
    T(float2);
    T(float3);
    T(float4);
    T(double1);
    T(double2);
    T(double3);
    T(double4);
    T(dim3);
    return 0;
}
