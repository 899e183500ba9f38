/*
 * clframe/shared.h: the types and qualifiers that let one header (structs,
 * constants, small functions) be compiled by both the host's C compiler and
 * the device's OpenCL C compiler. docs/sharing.md tells the whole idiom.
 *
 * Device code includes it as "clframe/shared.h" (compiled into clframe,
 * from clframe/kernels); host code reaches the same file with
 * -Iclframe/kernels in the tree, or in the installed include folder.
 *
 * - CLF_DEVICE is defined only when the OpenCL C compiler reads the file, so
 *   host-only code (stdio, malloc, cl_* API calls) sits in #ifndef CLF_DEVICE.
 * - CLF_INT, CLF_FLOAT3, ... are cl_int, cl_float3, ... (<CL/cl_platform.h>)
 *   on the host and int, float3, ... on the device: plain int and long are
 *   not guaranteed to match the device's sizes; the cl_ types are.
 * - CLF_GLOBAL, CLF_LOCAL, CLF_CONSTANT, CLF_PRIVATE are the address-space
 *   qualifiers on the device and nothing on the host, so a function taking
 *   `const CLF_GLOBAL Particle *p` has one body for both sides.
 *
 * Alignment: a struct has the same layout on both sides only if every member
 * has the same size and alignment on both. Three traps:
 * - a 3-vector is 16 bytes, 16-aligned on the device: `float3 pos` is not
 *   `float x, y, z` (12 bytes). CLF_FLOAT3 (cl_float3, the same as cl_float4)
 *   matches it on the host; three CLF_FLOATs match three floats.
 * - vectors are aligned to their size (CLF_FLOAT4: 16, CLF_DOUBLE4: 32), so
 *   the compiler pads before them; 64-bit members are 8-aligned on the
 *   device but only 4-aligned by 32-bit x86 hosts.
 * - the padding the compiler inserts is invisible; write it as members
 *   (`CLF_INT pad_[3];`) so the struct reads the same everywhere, and check
 *   it: CLF_STATIC_ASSERT_SIZE below at compile time on each side, and
 *   clframe_check_layout() / CLFRAME_CHECK_LAYOUT at run time, which compares
 *   sizeof and every field's offset on the host with the device's.
 * Pointers and size_t never belong in a shared struct: their sizes differ.
 */
#ifndef CLFRAME_SHARED_H
#define CLFRAME_SHARED_H

#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
#define CLF_DEVICE 1
#endif

#define CLF_CAT_(a, b) a##b
#define CLF_CAT(a, b) CLF_CAT_(a, b)

#ifdef CLF_DEVICE /* ---------------------------- the OpenCL C compiler ---- */

/* double is optional; OpenCL C 1.1 compilers also want the pragma. */
#if defined(cl_khr_fp64) && !defined(CLF_NO_FP64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define CLF_T_(t) t

#define CLF_GLOBAL __global
#define CLF_LOCAL __local
#define CLF_CONSTANT __constant
#define CLF_PRIVATE __private

/* offsetof for device code: every OpenCL C compiler in use is clang-based. */
#ifdef __clang__
#define CLF_OFFSETOF(T, member) __builtin_offsetof(T, member)
#else
#define CLF_OFFSETOF(T, member) ((size_t)&(((T *)0)->member))
#endif

/* OpenCL C 1.2 has no _Static_assert: an array of negative size fails the
 * build instead, and the typedef's name says why. */
#define CLF_STATIC_ASSERT_(cond)                                            \
    typedef char CLF_CAT(clf_static_assert_failed_at_line_, __LINE__)     \
        [(cond) ? 1 : -1]
#define CLF_STATIC_ASSERT_SIZE(T, n) CLF_STATIC_ASSERT_(sizeof(T) == (n))
#define CLF_STATIC_ASSERT_OFFSET(T, member, n)                              \
    CLF_STATIC_ASSERT_(CLF_OFFSETOF(T, member) == (n))

#else /* ------------------------------------------------ the host compiler - */

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl_platform.h>
#include <stddef.h>

#define CLF_T_(t) cl_##t

#define CLF_GLOBAL
#define CLF_LOCAL
#define CLF_CONSTANT
#define CLF_PRIVATE

#define CLF_OFFSETOF(T, member) offsetof(T, member)

/* Compile-time checks of a shared struct on the host; the same lines check
 * the device's compiler when the header is built for it (branch above). */
#define CLF_STATIC_ASSERT_SIZE(T, n)                                        \
    _Static_assert(sizeof(T) == (n), "sizeof(" #T ") is not " #n)
#define CLF_STATIC_ASSERT_OFFSET(T, member, n)                              \
    _Static_assert(offsetof(T, member) == (n),                              \
                   "offsetof(" #T ", " #member ") is not " #n)

#endif /* ----------------------------------------------------------------- */

/* Functions defined in a shared header: static inline, so that several host
 * .c files may include it (OpenCL C 1.2 allows static functions too). */
#define CLF_INLINE static inline

/* An alignment for a struct or member, understood by gcc, clang and every
 * OpenCL C compiler. Explicit padding members are clearer where they do. */
#define CLF_ALIGNED(n) __attribute__((aligned(n)))

/* Scalars: the same size and signedness on both sides. No half (the host
 * has only its bits), no bool (its size is the implementation's). */
#define CLF_CHAR   CLF_T_(char)
#define CLF_UCHAR  CLF_T_(uchar)
#define CLF_SHORT  CLF_T_(short)
#define CLF_USHORT CLF_T_(ushort)
#define CLF_INT    CLF_T_(int)
#define CLF_UINT   CLF_T_(uint)
#define CLF_LONG   CLF_T_(long)
#define CLF_ULONG  CLF_T_(ulong)
#define CLF_FLOAT  CLF_T_(float)
#define CLF_DOUBLE CLF_T_(double)

/* Vectors. On the host they are unions: .x .y .z .w and .s0 ... work there
 * (C11 anonymous structs), as does .s[i]; arithmetic on whole vectors and
 * swizzles like .xy work only on the device, so shared functions spell
 * their arithmetic out component by component. CLF_VECTOR(float, 3) is the
 * general form. */
#define CLF_VECTOR(t, n) CLF_T_(t##n)

#define CLF_CHAR2    CLF_T_(char2)
#define CLF_CHAR3    CLF_T_(char3)
#define CLF_CHAR4    CLF_T_(char4)
#define CLF_CHAR8    CLF_T_(char8)
#define CLF_CHAR16   CLF_T_(char16)
#define CLF_UCHAR2   CLF_T_(uchar2)
#define CLF_UCHAR3   CLF_T_(uchar3)
#define CLF_UCHAR4   CLF_T_(uchar4)
#define CLF_UCHAR8   CLF_T_(uchar8)
#define CLF_UCHAR16  CLF_T_(uchar16)
#define CLF_SHORT2   CLF_T_(short2)
#define CLF_SHORT3   CLF_T_(short3)
#define CLF_SHORT4   CLF_T_(short4)
#define CLF_SHORT8   CLF_T_(short8)
#define CLF_SHORT16  CLF_T_(short16)
#define CLF_USHORT2  CLF_T_(ushort2)
#define CLF_USHORT3  CLF_T_(ushort3)
#define CLF_USHORT4  CLF_T_(ushort4)
#define CLF_USHORT8  CLF_T_(ushort8)
#define CLF_USHORT16 CLF_T_(ushort16)
#define CLF_INT2     CLF_T_(int2)
#define CLF_INT3     CLF_T_(int3)
#define CLF_INT4     CLF_T_(int4)
#define CLF_INT8     CLF_T_(int8)
#define CLF_INT16    CLF_T_(int16)
#define CLF_UINT2    CLF_T_(uint2)
#define CLF_UINT3    CLF_T_(uint3)
#define CLF_UINT4    CLF_T_(uint4)
#define CLF_UINT8    CLF_T_(uint8)
#define CLF_UINT16   CLF_T_(uint16)
#define CLF_LONG2    CLF_T_(long2)
#define CLF_LONG3    CLF_T_(long3)
#define CLF_LONG4    CLF_T_(long4)
#define CLF_LONG8    CLF_T_(long8)
#define CLF_LONG16   CLF_T_(long16)
#define CLF_ULONG2   CLF_T_(ulong2)
#define CLF_ULONG3   CLF_T_(ulong3)
#define CLF_ULONG4   CLF_T_(ulong4)
#define CLF_ULONG8   CLF_T_(ulong8)
#define CLF_ULONG16  CLF_T_(ulong16)
#define CLF_FLOAT2   CLF_T_(float2)
#define CLF_FLOAT3   CLF_T_(float3)
#define CLF_FLOAT4   CLF_T_(float4)
#define CLF_FLOAT8   CLF_T_(float8)
#define CLF_FLOAT16  CLF_T_(float16)
#define CLF_DOUBLE2  CLF_T_(double2)
#define CLF_DOUBLE3  CLF_T_(double3)
#define CLF_DOUBLE4  CLF_T_(double4)
#define CLF_DOUBLE8  CLF_T_(double8)
#define CLF_DOUBLE16 CLF_T_(double16)

#endif /* CLFRAME_SHARED_H */
