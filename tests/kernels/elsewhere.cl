/*
 * elsewhere.cl: kernels written in the styles of public OpenCL projects
 * (BLAS libraries, benchmark suites, array libraries), so that clframe's
 * reading of signatures meets what users bring: qualifiers and types
 * spelled through macros, typedef chains switched by -D options, vector
 * typedefs, attributes, structs by value and by pointer, images and
 * samplers, parameter names that are built-in functions' names, C's
 * spellings of integer types, prototypes before definitions, comments and
 * literals with parentheses, parameter lists with #if inside, and a kernel
 * without parameters (which makes NVIDIA's driver build the whole file
 * without -cl-kernel-arg-info). tests/test_signature.c holds each kernel's
 * signature, written by hand, and its calls.
 *
 * Options: PRECISION (32 or 64), VW (1, 2 or 4) and WITH_OFFSETS change
 * the signatures of the kernels that use real, realV and axpy_split's
 * #if; the defaults are a float build with 4-wide vectors.
 */

#ifndef PRECISION
#define PRECISION 32
#endif
#ifndef WGS
#define WGS 8
#endif
#ifndef VW
#define VW 4
#endif

#define INLINE_FUNC inline
#define GLOBAL_MEM __global
#define LOCAL_MEM __local
#define KERNEL_WGS __kernel __attribute__((reqd_work_group_size(WGS, 1, 1)))

/* ---- precision and vector width, a typedef chain switched by -D --------- */

#if PRECISION == 64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
typedef double4 real4;
#else
typedef float real;
typedef float2 real2;
typedef float4 real4;
#endif
typedef real real_arg;
typedef real singlereal;
#if VW == 2
typedef real2 realV;
#elif VW == 4
typedef real4 realV;
#else
typedef real realV;
#endif
typedef realV realVec;

INLINE_FUNC realV MultiplyVector(const real aval, const realV bvec)
{
    return aval * bvec;
}

/* y = alpha x over realV elements, the loop striding by the global size. */
KERNEL_WGS
void Xscal(const int n, const real_arg arg_alpha,
           const __global realV* restrict xgm, __global realVec* ygm)
{
    const real alpha = arg_alpha;
    for (int id = get_global_id(0); id < n; id += get_global_size(0))
        ygm[id] = MultiplyVector(alpha, xgm[id]);
}

/* The alpha's type chosen by #if, and a parameter only some builds take. */
__kernel void axpy_split(const int n,
#if PRECISION == 64
                         const double alpha,
#else
                         const float alpha,
#endif
                         __global const real *x,
#ifdef WITH_OFFSETS
                         const int x_offset,
#endif
                         __global real *y)
{
    const int i = get_global_id(0);
#ifdef WITH_OFFSETS
    if (i < n)
        y[i] += alpha * x[i + x_offset];
#else
    if (i < n)
        y[i] += alpha * x[i];
#endif
}

/* Work-group sums in __local scratch, the group's size fixed. */
KERNEL_WGS
void group_sum(__global const real *in, __global real *sums,
               LOCAL_MEM real *scratch, __local int *counts)
{
    const int l = get_local_id(0);
    scratch[l] = in[get_global_id(0)];
    counts[l] = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int w = WGS / 2; w > 0; w /= 2) {
        if (l < w) {
            scratch[l] += scratch[l + w];
            counts[l] += counts[l + w];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        sums[get_group_id(0)] = scratch[0] + (real)(counts[0] - WGS);
}

/* Attributes before and after the return type, a chain's vector type. */
__kernel __attribute__((work_group_size_hint(WGS, 1, 1)))
void __attribute__((vec_type_hint(float4)))
hinted(__global realVec *v, const singlereal by)
{
    v[get_global_id(0)] *= by;
}

/* ---- names and spellings ------------------------------------------------ */

/* step, min and dot name built-in functions (PoCL renames such
 * parameters in its report: the source's names are the ones shown). */
__kernel void strided_sum(__global const float *x, __global float *out,
                          const int step, const int min, const float dot)
{
    const int i = get_global_id(0);
    out[i] = x[i * step] + (float)min + dot;
}

/* C's names of the unsigned types beside OpenCL's. */
__kernel void widths(__global unsigned int *a, const unsigned long b,
                     __global ulong *c, unsigned short s, unsigned char u8,
                     unsigned u)
{
    const uint i = get_global_id(0);
    a[i] = u + s + u8 + i;
    c[i] = b + i;
}

__kernel void wide_ints(__global long *l, __global char *c, short s, char ch,
                        ulong big)
{
    const int i = get_global_id(0);
    l[i] = (long)big + s + i;
    c[i] = (char)(ch + i);
}

/* The words without underscores, as some libraries write them. */
kernel void plain_words(global float *out, constant float *weights,
                        local float *tmp, const int n)
{
    const int l = get_local_id(0), i = get_global_id(0);
    tmp[l] = weights[l % 2];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < n)
        out[i] = tmp[l] * 2.0f;
}

/* A kernel's name and its parameters written through macros. */
#define GLOBAL_ARRAY(type, name) GLOBAL_MEM type *name
#define SCATTER_KERNEL scatter_by_macro
__kernel void SCATTER_KERNEL(GLOBAL_ARRAY(float, dst),
                             GLOBAL_ARRAY(const int, idx),
                             GLOBAL_ARRAY(const float, src), int n)
{
    const int i = get_global_id(0);
    if (i < n)
        dst[idx[i]] = src[i];
}

/* Types named by macros, as benchmark suites switch precision. */
#ifdef K_DOUBLE_PRECISION
#define FPTYPE double
#else
#define FPTYPE float
#endif
__kernel void shoc_scale(__global const FPTYPE *in, __global FPTYPE *out,
                         const FPTYPE factor, const unsigned int n)
{
    const unsigned int i = get_global_id(0);
    if (i < n)
        out[i] = in[i] * factor;
}

typedef float DATA_TYPE;
__kernel void mm_rows(__global DATA_TYPE *a, __global DATA_TYPE *b,
                      __global DATA_TYPE *c, int ni, int nj,
                      DATA_TYPE alpha, DATA_TYPE beta)
{
    const int j = get_global_id(0), i = get_global_id(1);
    if (i < ni && j < nj)
        c[i * nj + j] = alpha * a[i * nj + j] + beta * b[i * nj + j];
}

__kernel void bw_v16(__global float16 *A, __global float *B)
{
    const int i = get_global_id(0);
    const float16 v = A[i];
    B[i] = v.s0 + v.sf;
}

/* ---- __constant arrays, comments and literals --------------------------- */

__constant float smooth3[3] = {0.25f, 0.5f, 0.25f};

__kernel void filter3(__global const float *in, __global float *out,
                      __constant float *weights, __constant int offsets[3])
{
    const int i = get_global_id(0);
    float acc = 0.0f;
    for (int t = 0; t < 3; t++)
        acc += weights[t] * smooth3[t] * in[i + offsets[t]];
    out[i] = acc;
}

/* Not a kernel: __kernel void commented(int unused) { } */
__constant char banner[] = "clframe (tests) \"quoted ( paren\" ";
__kernel void commented(/* the data ( */ __global int *data, // its ) end
                        const char mark /* ')' */,
                        int count /* , int ignored */)
{
    const int i = get_global_id(0);      /* ( */
    if (i < count)
        data[i] = mark + (')' - '(') + banner[0];
}

/* ---- a prototype before the definition ---------------------------------- */

__kernel void declared_first(__global float *out, int n);

__kernel void declared_first(__global float *out, int n)
{
    out[get_global_id(0)] = (float)(n * (int)get_global_id(0));
}

__kernel void no_params(void)
{
}

/* ---- structs ------------------------------------------------------------ */

typedef struct Particle {
    float4 pos;
    float mass;
    int id;
} Particle;

typedef struct {                /* no tag: known by its typedef name alone */
    float lo, hi;
} Range;

__kernel void particles(__global Particle *p, const Range limits,
                        struct Particle origin)
{
    const int i = get_global_id(0);
    Particle q = p[i];
    q.pos = q.pos - origin.pos;
    q.mass = clamp(q.mass, limits.lo, limits.hi);
    q.id = q.id + origin.id;
    p[i] = q;
}

typedef struct knode_ {
    int location;
    int indices[5];
    int keys[5];
    int is_leaf;
    int num_keys;
} knode;

__kernel void knode_find(long height, __global knode *knodesD,
                         long knodes_elem, __global long *currKnodeD,
                         __global int *keysD)
{
    const int i = get_global_id(0);
    currKnodeD[i] = knodesD[i].keys[keysD[i] % 5] + height + knodes_elem;
}

/* An array library's way: element type and index type given by -D (here
 * defaulted), and a struct of sizes by value. */
#ifndef T
#define T float
#endif
#ifndef dim_t
#define dim_t long
#endif
typedef struct {
    dim_t dims[4];
    dim_t strides[4];
    dim_t offset;
} KParam;

kernel void af_transpose(global T *out, const KParam oInfo,
                         global const T *in, const KParam iInfo)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x < iInfo.dims[0] && y < iInfo.dims[1])
        out[x * oInfo.strides[1] + y + oInfo.offset] =
            in[y * iInfo.strides[1] + x + iInfo.offset];
}

/* ---- images and samplers ------------------------------------------------ */

__kernel void blur_rows(__read_only image2d_t src, sampler_t nearest,
                        write_only image2d_t dst, const int width)
{
    const int x = get_global_id(0), y = get_global_id(1);
    const float4 left = read_imagef(src, nearest, (int2)(max(x - 1, 0), y));
    const float4 mid = read_imagef(src, nearest, (int2)(x, y));
    const float4 right =
        read_imagef(src, nearest, (int2)(min(x + 1, width - 1), y));
    write_imagef(dst, (int2)(x, y), (left + mid + right) / 3.0f);
}

__kernel void volume_sum(read_only image3d_t vol, sampler_t s,
                         __global float *out, int depth)
{
    const int x = get_global_id(0), y = get_global_id(1);
    float t = 0.0f;
    for (int z = 0; z < depth; z++)
        t += read_imagef(vol, s, (int4)(x, y, z, 0)).x;
    out[y * get_global_size(0) + x] = t;
}

/* ---- forms clframe misread when this file was written ---------------------
 * (tests/test_signature.c expects them read as the compiler reads them.) */

/* C's multi-word spellings of the signed and unsigned types. */
__kernel void c_spellings(__global signed char *s, long int li,
                          unsigned long int uli, short int si,
                          unsigned short int usi, signed int sgi)
{
    const int i = get_global_id(0);
    s[i] = (signed char)(li + (long)uli + si + usi + sgi + i);
}

/* typedefs of those spellings. */
typedef unsigned long int index_t;
typedef signed char small_t;
__kernel void typedef_words(__global index_t *idx, small_t bias)
{
    const int i = get_global_id(0);
    idx[i] = (index_t)(3 * i + bias);
}

/* One typedef declaring two names. */
typedef float coord_x, coord_y;
__kernel void two_names(__global coord_x *xs, coord_y shift)
{
    xs[get_global_id(0)] += shift;
}

/* A typedef that holds the pointer and its address space. */
typedef __global float *gfloat_ptr;
__kernel void pointer_typedef(gfloat_ptr data, int n)
{
    data[get_global_id(0)] = (float)(n + (int)get_global_id(0));
}

/* GNU's spelling of restrict, from code shared with C and CUDA. */
__kernel void gnu_restrict(__global float *__restrict__ out,
                           __global const float *__restrict__ in)
{
    out[get_global_id(0)] = 2.0f * in[get_global_id(0)];
}

/* A parameter with an attribute, as a MAYBE_UNUSED macro leaves it. */
__kernel void unused_param(__global int *out,
                           __attribute__((unused)) int spare, int value)
{
    out[get_global_id(0)] = value;
}

/* A prototype without names before the definition, which has them. */
__kernel void declared_unnamed(__global float *, int);

__kernel void declared_unnamed(__global float *out, int n)
{
    out[get_global_id(0)] = (float)(n - (int)get_global_id(0));
}

/* A function's own typedef of a name the file defines otherwise. */
typedef int count_t;

INLINE_FUNC int twice(int v)
{
    typedef short count_t;
    const count_t t = (count_t)v;
    return 2 * t;
}

__kernel void scoped_typedef(__global int *out, const count_t n)
{
    out[get_global_id(0)] = twice(n);
}

/* const pointers (the pointer const, not what it points to). */
__kernel void const_pointer(__global float *const out,
                            __global const float *const in)
{
    out[get_global_id(0)] = in[get_global_id(0)] + 1.0f;
}
