/*
 * test_signature.c: kernels written in the styles of public OpenCL
 * projects (tests/kernels/elsewhere.cl) are read as their compiler reads
 * them. For each kernel, on a context whose driver reports its parameters
 * (-cl-kernel-arg-info), where the source's reading must agree with that
 * report, and on one built without the report, as NVIDIA's driver builds
 * a file holding a kernel without parameters, where the source is all
 * there is: clkernel_signature prints the signature written here by hand
 * (the source's names, typedefs of built-in types resolved, structs as the
 * source names them, no const the source did not write), a wrong argument
 * of each kind in each place is refused naming the parameter as the source
 * does, and the right call computes the right answer.
 */
#include "support.h"
#include "internal.h"   /* no_arg_info, the cross-check, the report */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ELSEWHERE "tests/kernels/elsewhere.cl"
#define WGS 8                   /* elsewhere.cl's work-group size */
#define WIDE "-DPRECISION=64 -DVW=2 -DWITH_OFFSETS"

enum { NEEDS_FP64 = 1, NEEDS_IMAGES = 2 };

/* ---- the two contexts -------------------------------------------------- */

/* The context that builds without -cl-kernel-arg-info, made at first use
 * in the process that runs the tests (OpenCL does not survive a fork) and
 * freed by the test case's teardown. */
static clctx *source_alone;

static clctx *without_report(void)
{
    if (!source_alone) {
        source_alone = clctx_new(getenv("CLFRAME_DEVICE"));
        ck_assert_made(source_alone);
        source_alone->no_arg_info = 1;
    }
    return source_alone;
}

static void free_without_report(void)
{
    clctx_free(source_alone);
    source_alone = NULL;
}

/* The kernel a test holds, freed by the checked teardown when an
 * assertion ends the test early. */
static clkernel *held;

static void free_held(void)
{
    clkernel_free(held);
    held = NULL;
}

/* 1 when k's program came with the driver's report of its parameters. */
static int reported(clkernel *k)
{
    cl_program program;
    if (clGetKernelInfo(clkernel_raw(k), CL_KERNEL_PROGRAM, sizeof program,
                        &program, NULL) != CL_SUCCESS)
        return 0;
    return clf_program_arg_info(clkernel_ctx(k), program);
}

static int device_has(clctx *ctx, unsigned needs)
{
    cl_device_fp_config fp64 = 0;
    cl_bool images = CL_FALSE;
    clGetDeviceInfo(clctx_device(ctx), CL_DEVICE_DOUBLE_FP_CONFIG,
                    sizeof fp64, &fp64, NULL);
    clGetDeviceInfo(clctx_device(ctx), CL_DEVICE_IMAGE_SUPPORT,
                    sizeof images, &images, NULL);
    return (!(needs & NEEDS_FP64) || fp64) &&
           (!(needs & NEEDS_IMAGES) || images);
}

/* ---- wrong arguments ---------------------------------------------------- */

/* The parameter names of a signature as clkernel_signature writes it:
 * "k(__global float* x, int n)" -> "x", "n". Returns how many. */
static unsigned param_names(const char *sig, char names[][64], unsigned max)
{
    const char *p = strchr(sig, '(') + 1;
    unsigned n = 0;
    while (*p && *p != ')' && n < max) {
        const char *end = p + strcspn(p, ",)"), *start = end;
        while (start > p && start[-1] != ' ')
            start--;
        snprintf(names[n++], 64, "%.*s", (int)(end - start), start);
        p = *end == ',' ? end + 2 : end;
    }
    return n;
}

/* What the wrong arguments point to; never read, as no such call runs. */
static union {
    double d[32];
    unsigned char bytes[256];
} scratch;

/* Arguments that must be refused where a is right: one of another kind
 * and one of another type (or, for objects, kind). Returns how many. */
static unsigned wrong_for(const clarg *a, clarg out[2])
{
    int is_double = a->type && strcmp(a->type, "double") == 0;
    const char *other = is_double ? "int" : "double";
    size_t other_size = is_double ? 4 : 8;
    switch (a->kind) {
    case CLARG_KIND_SCALAR:
        out[0] = clarg_array(a->type, a->elem_size, scratch.bytes, 1,
                             CLARG_TO_DEVICE);
        out[1] = clarg_scalar(other, other_size, scratch.bytes);
        return 2;
    case CLARG_KIND_BUFFER:
        out[0] = clarg_scalar("int", 4, scratch.bytes);
        out[1] = clarg_array(other, other_size, scratch.bytes, 1,
                             CLARG_TO_DEVICE);
        return 2;
    case CLARG_KIND_LOCAL:
    case CLARG_KIND_SAMPLER:
    case CLARG_KIND_IMAGE:
        out[0] = clarg_scalar("int", 4, scratch.bytes);
        out[1] = clarg_array("float", 4, scratch.bytes, 1, CLARG_TO_DEVICE);
        return 2;
    default:
        return 0;
    }
}

/* Calls k with its n right arguments after one too many, one too few and
 * each wrong one in each place (wrong_for) were refused, each naming the
 * parameter as sig, the signature expected, does. */
static void call_after_wrong_ones(clkernel *k, const char *sig, unsigned n,
                                  const clarg *args)
{
    char names[CLF_MAX_PARAMS][64];
    clarg tried[CLF_MAX_PARAMS + 1];
    ck_assert_uint_eq(param_names(sig, names, CLF_MAX_PARAMS), n);
    ck_assert_uint_eq(clkernel_num_args(k), n);
    if (n)
        memcpy(tried, args, n * sizeof *args);
    tried[n] = clarg_scalar("int", 4, scratch.bytes);
    ck_assert_fails(clkernel_call_args(k, n + 1, tried), CLFRAME_ERR_ARG_COUNT,
                    "given, the kernel takes");
    if (n)
        ck_assert_fails(clkernel_call_args(k, n - 1, tried),
                        CLFRAME_ERR_ARG_COUNT, "given, the kernel takes");
    for (unsigned i = 0; i < n; i++) {
        clarg wrong[2];
        unsigned nwrong = wrong_for(&args[i], wrong);
        for (unsigned w = 0; w < nwrong; w++) {
            char want[128];
            snprintf(want, sizeof want, "argument %u (%.63s): ", i + 1,
                     names[i]);
            tried[i] = wrong[w];
            int rc = clkernel_call_args(k, n, tried);
            ck_assert_msg(rc == CLFRAME_ERR_ARG_TYPE &&
                          strstr(clframe_last_error(), want),
                          "%s: wrong argument %u (%s) number %u: %d (%s), "
                          "expected CLFRAME_ERR_ARG_TYPE with \"%s\": %s",
                          clkernel_name(k), i + 1, names[i], w + 1, rc,
                          clframe_error_name(rc), want, clframe_last_error());
        }
        tried[i] = args[i];
    }
    ck_assert_cl(clkernel_call_args(k, n, tried));
}

#define CALL(k, sig, ...)                                                  \
    call_after_wrong_ones((k), (sig),                                      \
                          (unsigned)(sizeof((clarg[]){__VA_ARGS__}) /       \
                                     sizeof(clarg)),                       \
                          (clarg[]){__VA_ARGS__})

/* ---- each kernel's calls ------------------------------------------------ */

enum { N = 8 };
static const unsigned IO = CLARG_TO_DEVICE | CLARG_FROM_DEVICE;

static void run_xscal(clkernel *k, clctx *ctx, const char *sig)
{
    enum { V = 16 };
    cl_float4 x[V], y[V];
    (void)ctx;
    for (int i = 0; i < V; i++)
        for (int j = 0; j < 4; j++)
            x[i].s[j] = (float)(4 * i + j) - 20;
    ck_assert_cl(clkernel_global(k, V));
    ck_assert_cl(clkernel_local(k, WGS));
    CALL(k, sig, CLARG((int)V), CLARG(2.5f), CLARG_IN(x, V), CLARG_OUT(y, V));
    for (int i = 0; i < V; i++)
        for (int j = 0; j < 4; j++)
            ck_assert(y[i].s[j] == 2.5f * x[i].s[j]);
}

static void run_xscal_wide(clkernel *k, clctx *ctx, const char *sig)
{
    enum { V = 16 };
    cl_double2 x[V], y[V];
    (void)ctx;
    for (int i = 0; i < V; i++)
        for (int j = 0; j < 2; j++)
            x[i].s[j] = (double)(2 * i + j) - 9;
    ck_assert_cl(clkernel_global(k, V));
    ck_assert_cl(clkernel_local(k, WGS));
    CALL(k, sig, CLARG((int)V), CLARG(-1.5), CLARG_IN(x, V), CLARG_OUT(y, V));
    for (int i = 0; i < V; i++)
        for (int j = 0; j < 2; j++)
            ck_assert(y[i].s[j] == -1.5 * x[i].s[j]);
}

static void run_axpy(clkernel *k, clctx *ctx, const char *sig)
{
    float x[N], y[N];
    (void)ctx;
    for (int i = 0; i < N; i++)
        x[i] = (float)i, y[i] = 1;
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG((int)N), CLARG(0.5f), CLARG_IN(x, N), CLARG_INOUT(y, N));
    for (int i = 0; i < N; i++)
        ck_assert(y[i] == 1.0f + 0.5f * (float)i);
}

static void run_axpy_wide(clkernel *k, clctx *ctx, const char *sig)
{
    double x[N + 2], y[N];
    (void)ctx;
    for (int i = 0; i < N + 2; i++)
        x[i] = (double)i;
    for (int i = 0; i < N; i++)
        y[i] = 1;
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG((int)N), CLARG(0.5), CLARG_IN(x, N + 2), CLARG(2),
         CLARG_INOUT(y, N));
    for (int i = 0; i < N; i++)
        ck_assert(y[i] == 1.0 + 0.5 * (double)(i + 2));
}

static void run_group_sum(clkernel *k, clctx *ctx, const char *sig)
{
    enum { G = 4 };
    float in[G * WGS], sums[G];
    (void)ctx;
    for (int i = 0; i < G * WGS; i++)
        in[i] = (float)i;
    ck_assert_cl(clkernel_global(k, G * WGS));
    ck_assert_cl(clkernel_local(k, WGS));
    CALL(k, sig, CLARG_IN(in, G * WGS), CLARG_OUT(sums, G),
         CLARG_LOCAL(WGS * sizeof(float)), CLARG_LOCAL(WGS * sizeof(int)));
    for (int g = 0; g < G; g++)
        ck_assert(sums[g] == (float)(WGS * WGS * g + WGS * (WGS - 1) / 2));
}

static void run_hinted(clkernel *k, clctx *ctx, const char *sig)
{
    cl_float4 v[N], was[N];
    (void)ctx;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < 4; j++)
            was[i].s[j] = v[i].s[j] = (float)(i - j);
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG_INOUT(v, N), CLARG(3.0f));
    for (int i = 0; i < N; i++)
        for (int j = 0; j < 4; j++)
            ck_assert(v[i].s[j] == 3.0f * was[i].s[j]);
}

static void run_strided_sum(clkernel *k, clctx *ctx, const char *sig)
{
    float x[3 * N], out[N];
    (void)ctx;
    for (int i = 0; i < 3 * N; i++)
        x[i] = (float)i;
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG_IN(x, 3 * N), CLARG_OUT(out, N), CLARG(3), CLARG(5),
         CLARG(0.5f));
    for (int i = 0; i < N; i++)
        ck_assert(out[i] == (float)(3 * i) + 5.5f);
}

static void run_widths(clkernel *k, clctx *ctx, const char *sig)
{
    cl_uint a[N];
    cl_ulong c[N];
    (void)ctx;
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG_OUT(a, N), CLARG((cl_ulong)1 << 40), CLARG_OUT(c, N),
         CLARG((cl_ushort)1000), CLARG((cl_uchar)200), CLARG((cl_uint)70000));
    for (int i = 0; i < N; i++) {
        ck_assert_uint_eq(a[i], 71200u + (unsigned)i);
        ck_assert(c[i] == ((cl_ulong)1 << 40) + (cl_ulong)i);
    }
}

static void run_wide_ints(clkernel *k, clctx *ctx, const char *sig)
{
    cl_long l[N];
    cl_char c[N];
    (void)ctx;
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG_OUT(l, N), CLARG_OUT(c, N), CLARG((cl_short)-7),
         CLARG((cl_char)'a'), CLARG((cl_ulong)1 << 33));
    for (int i = 0; i < N; i++) {
        ck_assert(l[i] == ((cl_long)1 << 33) - 7 + i);
        ck_assert_int_eq(c[i], 'a' + i);
    }
}

static void run_plain_words(clkernel *k, clctx *ctx, const char *sig)
{
    float out[N], weights[2] = {1.5f, -2.0f};
    (void)ctx;
    ck_assert_cl(clkernel_global(k, N));
    ck_assert_cl(clkernel_local(k, 4));
    CALL(k, sig, CLARG_OUT(out, N), CLARG_IN(weights, 2),
         CLARG_LOCAL(4 * sizeof(float)), CLARG((int)N));
    for (int i = 0; i < N; i++)
        ck_assert(out[i] == 2.0f * weights[(i % 4) % 2]);
}

static void run_scatter(clkernel *k, clctx *ctx, const char *sig)
{
    float dst[N], src[N];
    cl_int idx[N];
    (void)ctx;
    for (int i = 0; i < N; i++)
        src[i] = 1.5f * (float)i, idx[i] = N - 1 - i;
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG_OUT(dst, N), CLARG_IN(idx, N), CLARG_IN(src, N),
         CLARG((int)N));
    for (int i = 0; i < N; i++)
        ck_assert(dst[N - 1 - i] == src[i]);
}

static void run_shoc_scale(clkernel *k, clctx *ctx, const char *sig)
{
    float in[N], out[N];
    (void)ctx;
    for (int i = 0; i < N; i++)
        in[i] = (float)i - 3;
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG_IN(in, N), CLARG_OUT(out, N), CLARG(4.0f),
         CLARG((cl_uint)N));
    for (int i = 0; i < N; i++)
        ck_assert(out[i] == 4.0f * in[i]);
}

static void run_mm_rows(clkernel *k, clctx *ctx, const char *sig)
{
    enum { NI = 3, NJ = 5 };
    float a[NI * NJ], b[NI * NJ], c[NI * NJ];
    (void)ctx;
    for (int i = 0; i < NI * NJ; i++)
        a[i] = (float)i, b[i] = (float)(i % 4);
    ck_assert_cl(clkernel_global(k, NJ, NI));
    CALL(k, sig, CLARG_IN(a, NI * NJ), CLARG_IN(b, NI * NJ),
         CLARG_OUT(c, NI * NJ), CLARG(NI), CLARG(NJ), CLARG(2.0f),
         CLARG(-1.0f));
    for (int i = 0; i < NI * NJ; i++)
        ck_assert(c[i] == 2.0f * a[i] - b[i]);
}

static void run_bw_v16(clkernel *k, clctx *ctx, const char *sig)
{
    cl_float16 a[N];
    float b[N];
    (void)ctx;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < 16; j++)
            a[i].s[j] = (float)(100 * i + j);
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG_IN(a, N), CLARG_OUT(b, N));
    for (int i = 0; i < N; i++)
        ck_assert(b[i] == (float)(200 * i + 15));
}

static void run_filter3(clkernel *k, clctx *ctx, const char *sig)
{
    float in[N + 2], out[N], weights[3] = {1, 2, 3};
    cl_int offsets[3] = {0, 1, 2};
    (void)ctx;
    for (int i = 0; i < N + 2; i++)
        in[i] = (float)i;
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG_IN(in, N + 2), CLARG_OUT(out, N), CLARG_IN(weights, 3),
         CLARG_IN(offsets, 3));
    for (int i = 0; i < N; i++)       /* 0.25 i + (i + 1) + 0.75 (i + 2) */
        ck_assert(out[i] == 2.0f * (float)i + 2.5f);
}

static void run_commented(clkernel *k, clctx *ctx, const char *sig)
{
    cl_int data[N];
    (void)ctx;
    for (int i = 0; i < N; i++)
        data[i] = -1;
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG_INOUT(data, N), CLARG((cl_char)10), CLARG(6));
    for (int i = 0; i < N; i++)       /* mark + 1 + 'c', for i < count */
        ck_assert_int_eq(data[i], i < 6 ? 10 + 1 + 'c' : -1);
}

static void run_declared(clkernel *k, clctx *ctx, const char *sig)
{
    float out[N];
    (void)ctx;
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG_OUT(out, N), CLARG(3));
    int unnamed = strcmp(clkernel_name(k), "declared_unnamed") == 0;
    for (int i = 0; i < N; i++)
        ck_assert(out[i] == (float)(unnamed ? 3 - i : 3 * i));
}

static void run_no_params(clkernel *k, clctx *ctx, const char *sig)
{
    (void)ctx;
    ck_assert_cl(clkernel_global(k, 4));
    call_after_wrong_ones(k, sig, 0, NULL);
}

/* The host's copies of elsewhere.cl's structs: the same bytes. */
typedef struct {
    cl_float4 pos;
    cl_float mass;
    cl_int id;
} HostParticle;                 /* 32 bytes, as float4's alignment pads it */
typedef struct {
    cl_float lo, hi;
} HostRange;
typedef struct {
    cl_int location, indices[5], keys[5], is_leaf, num_keys;
} HostKnode;
typedef struct {
    cl_long dims[4], strides[4], offset;
} HostKParam;

static void run_particles(clkernel *k, clctx *ctx, const char *sig)
{
    HostParticle p[N], was[N], origin;
    HostRange limits = {1.0f, 4.0f};
    (void)ctx;
    memset(p, 0, sizeof p);             /* the padding too */
    memset(&origin, 0, sizeof origin);
    for (int j = 0; j < 4; j++)
        origin.pos.s[j] = (float)j;
    origin.id = 100;
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < 4; j++)
            p[i].pos.s[j] = (float)(10 * i + j);
        p[i].mass = 0.75f * (float)i;
        p[i].id = i;
    }
    memcpy(was, p, sizeof p);
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG_TYPED("Particle", p, N, IO),
         CLARG_VALUE("Range", &limits),
         CLARG_VALUE("struct Particle", &origin));
    for (int i = 0; i < N; i++) {
        float m = was[i].mass < 1.0f ? 1.0f : was[i].mass > 4.0f ? 4.0f
                                                                 : was[i].mass;
        for (int j = 0; j < 4; j++)
            ck_assert(p[i].pos.s[j] == was[i].pos.s[j] - (float)j);
        ck_assert(p[i].mass == m);
        ck_assert_int_eq(p[i].id, i + 100);
    }
}

static void run_knode(clkernel *k, clctx *ctx, const char *sig)
{
    HostKnode nodes[N];
    cl_long curr[N];
    cl_int keys[N];
    (void)ctx;
    memset(nodes, 0, sizeof nodes);
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < 5; j++)
            nodes[i].keys[j] = 10 * i + j;
        keys[i] = i + 7;
    }
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG((cl_long)100), CLARG_TYPED("knode", nodes, N,
                                                  CLARG_TO_DEVICE),
         CLARG((cl_long)1000), CLARG_OUT(curr, N), CLARG_IN(keys, N));
    for (int i = 0; i < N; i++)
        ck_assert(curr[i] == 10 * i + (i + 7) % 5 + 1100);
}

static void run_af_transpose(clkernel *k, clctx *ctx, const char *sig)
{
    enum { W = 5, H = 3 };
    float in[W * H], out[W * H];
    HostKParam i_info = {{W, H, 1, 1}, {1, W, W * H, W * H}, 0};
    HostKParam o_info = {{H, W, 1, 1}, {1, H, W * H, W * H}, 0};
    (void)ctx;
    for (int i = 0; i < W * H; i++)
        in[i] = (float)i;
    ck_assert_cl(clkernel_global(k, W, H));
    CALL(k, sig, CLARG_OUT(out, W * H), CLARG_VALUE("KParam", &o_info),
         CLARG_IN(in, W * H), CLARG_VALUE("KParam", &i_info));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            ck_assert(out[x * H + y] == in[y * W + x]);
}

static cl_sampler nearest_sampler(clctx *ctx)
{
    cl_int err;
    cl_sampler s = clCreateSampler(clctx_context(ctx), CL_FALSE,
                                   CL_ADDRESS_CLAMP_TO_EDGE,
                                   CL_FILTER_NEAREST, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    return s;
}

static void run_blur_rows(clkernel *k, clctx *ctx, const char *sig)
{
    enum { W = 8, H = 3 };
    float src[H][W][4], dst[H][W][4];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++)
                src[y][x][c] = (float)(x * x + 10 * y + 100 * c);
    cl_sampler s = nearest_sampler(ctx);
    ck_assert_cl(clkernel_global(k, W, H));
    CALL(k, sig, CLARG_IMAGE2D(src, W, H, CL_RGBA, CL_FLOAT, CLARG_TO_DEVICE),
         CLARG_SAMPLER(s),
         CLARG_IMAGE2D(dst, W, H, CL_RGBA, CL_FLOAT, CLARG_FROM_DEVICE),
         CLARG((int)W));
    clReleaseSampler(s);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++) {
                int l = x > 0 ? x - 1 : 0, r = x < W - 1 ? x + 1 : W - 1;
                float want = (src[y][l][c] + src[y][x][c] + src[y][r][c]) / 3;
                ck_assert_float_eq_tol(dst[y][x][c], want, 1e-3f);
            }
}

static void run_volume_sum(clkernel *k, clctx *ctx, const char *sig)
{
    enum { W = 4, H = 2, D = 3 };
    float vol[D][H][W][4], out[H * W];
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                for (int c = 0; c < 4; c++)
                    vol[z][y][x][c] = (float)(x + 10 * y + 100 * z + c);
    cl_sampler s = nearest_sampler(ctx);
    ck_assert_cl(clkernel_global(k, W, H));
    CALL(k, sig,
         CLARG_IMAGE3D(vol, W, H, D, CL_RGBA, CL_FLOAT, CLARG_TO_DEVICE),
         CLARG_SAMPLER(s), CLARG_OUT(out, W * H), CLARG((int)D));
    clReleaseSampler(s);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            ck_assert(out[y * W + x] == (float)(3 * x + 30 * y + 300));
}

static void run_c_spellings(clkernel *k, clctx *ctx, const char *sig)
{
    cl_char s[N];
    (void)ctx;
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG_OUT(s, N), CLARG((cl_long)-3), CLARG((cl_ulong)5),
         CLARG((cl_short)-2), CLARG((cl_ushort)7), CLARG((cl_int)1));
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(s[i], 8 + i);
}

static void run_typedef_words(clkernel *k, clctx *ctx, const char *sig)
{
    cl_ulong idx[N];
    (void)ctx;
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG_OUT(idx, N), CLARG((cl_char)2));
    for (int i = 0; i < N; i++)
        ck_assert(idx[i] == (cl_ulong)(3 * i + 2));
}

static void run_two_names(clkernel *k, clctx *ctx, const char *sig)
{
    float xs[N];
    (void)ctx;
    for (int i = 0; i < N; i++)
        xs[i] = (float)i;
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG_INOUT(xs, N), CLARG(1.25f));
    for (int i = 0; i < N; i++)
        ck_assert(xs[i] == (float)i + 1.25f);
}

static void run_pointer_typedef(clkernel *k, clctx *ctx, const char *sig)
{
    float data[N];
    (void)ctx;
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG_OUT(data, N), CLARG(4));
    for (int i = 0; i < N; i++)
        ck_assert(data[i] == (float)(4 + i));
}

/* out = f(in) for const_pointer (in + 1) and gnu_restrict (2 in). */
static void run_out_in(clkernel *k, clctx *ctx, const char *sig)
{
    float in[N], out[N];
    (void)ctx;
    for (int i = 0; i < N; i++)
        in[i] = (float)i - 2;
    int doubled = strcmp(clkernel_name(k), "gnu_restrict") == 0;
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG_OUT(out, N), CLARG_IN(in, N));
    for (int i = 0; i < N; i++)
        ck_assert(out[i] == (doubled ? 2.0f * in[i] : in[i] + 1.0f));
}

static void run_unused_param(clkernel *k, clctx *ctx, const char *sig)
{
    cl_int out[N];
    (void)ctx;
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG_OUT(out, N), CLARG(0), CLARG(42));
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(out[i], 42);
}

static void run_scoped_typedef(clkernel *k, clctx *ctx, const char *sig)
{
    cl_int out[N];
    (void)ctx;
    ck_assert_cl(clkernel_global(k, N));
    CALL(k, sig, CLARG_OUT(out, N), CLARG(21));
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(out[i], 42);
}

/* ---- the table ---------------------------------------------------------- */

typedef struct sig_case {
    const char *kernel;
    const char *options;        /* the build's, or NULL: the file's defaults */
    const char *signature;      /* written by hand, from the source */
    void (*run)(clkernel *k, clctx *ctx, const char *sig);
    unsigned needs;             /* NEEDS_FP64, NEEDS_IMAGES */
} sig_case;

static const sig_case cases[] = {
    {"Xscal", NULL, "Xscal(int n, float arg_alpha, __global const float4* "
     "xgm, __global float4* ygm)", run_xscal, 0},
    {"Xscal", WIDE, "Xscal(int n, double arg_alpha, __global const double2* "
     "xgm, __global double2* ygm)", run_xscal_wide, NEEDS_FP64},
    {"axpy_split", NULL, "axpy_split(int n, float alpha, __global const "
     "float* x, __global float* y)", run_axpy, 0},
    {"axpy_split", WIDE, "axpy_split(int n, double alpha, __global const "
     "double* x, int x_offset, __global double* y)", run_axpy_wide,
     NEEDS_FP64},
    {"group_sum", NULL, "group_sum(__global const float* in, __global float* "
     "sums, __local float* scratch, __local int* counts)", run_group_sum, 0},
    {"hinted", NULL, "hinted(__global float4* v, float by)", run_hinted, 0},
    {"strided_sum", NULL, "strided_sum(__global const float* x, __global "
     "float* out, int step, int min, float dot)", run_strided_sum, 0},
    {"widths", NULL, "widths(__global uint* a, ulong b, __global ulong* c, "
     "ushort s, uchar u8, uint u)", run_widths, 0},
    {"wide_ints", NULL, "wide_ints(__global long* l, __global char* c, short "
     "s, char ch, ulong big)", run_wide_ints, 0},
    {"plain_words", NULL, "plain_words(__global float* out, __constant float* "
     "weights, __local float* tmp, int n)", run_plain_words, 0},
    {"scatter_by_macro", NULL, "scatter_by_macro(__global float* dst, "
     "__global const int* idx, __global const float* src, int n)",
     run_scatter, 0},
    {"shoc_scale", NULL, "shoc_scale(__global const float* in, __global "
     "float* out, float factor, uint n)", run_shoc_scale, 0},
    {"mm_rows", NULL, "mm_rows(__global float* a, __global float* b, "
     "__global float* c, int ni, int nj, float alpha, float beta)",
     run_mm_rows, 0},
    {"bw_v16", NULL, "bw_v16(__global float16* A, __global float* B)",
     run_bw_v16, 0},
    {"filter3", NULL, "filter3(__global const float* in, __global float* out, "
     "__constant float* weights, __constant int* offsets)", run_filter3, 0},
    {"commented", NULL, "commented(__global int* data, char mark, int count)",
     run_commented, 0},
    {"declared_first", NULL, "declared_first(__global float* out, int n)",
     run_declared, 0},
    {"no_params", NULL, "no_params()", run_no_params, 0},
    {"particles", NULL, "particles(__global Particle* p, Range limits, "
     "Particle origin)", run_particles, 0},
    {"knode_find", NULL, "knode_find(long height, __global knode* knodesD, "
     "long knodes_elem, __global long* currKnodeD, __global int* keysD)",
     run_knode, 0},
    {"af_transpose", NULL, "af_transpose(__global float* out, KParam oInfo, "
     "__global const float* in, KParam iInfo)", run_af_transpose, 0},
    {"blur_rows", NULL, "blur_rows(read_only image2d_t src, sampler_t "
     "nearest, write_only image2d_t dst, int width)", run_blur_rows,
     NEEDS_IMAGES},
    /* Forms clframe misread when elsewhere.cl was written. */
    {"c_spellings", NULL, "c_spellings(__global char* s, long li, ulong uli, "
     "short si, ushort usi, int sgi)", run_c_spellings, 0},
    {"typedef_words", NULL, "typedef_words(__global ulong* idx, char bias)",
     run_typedef_words, 0},
    {"two_names", NULL, "two_names(__global float* xs, float shift)",
     run_two_names, 0},
    {"pointer_typedef", NULL, "pointer_typedef(__global float* data, int n)",
     run_pointer_typedef, 0},
    {"gnu_restrict", NULL, "gnu_restrict(__global float* out, __global const "
     "float* in)", run_out_in, 0},
    {"unused_param", NULL, "unused_param(__global int* out, int spare, int "
     "value)", run_unused_param, 0},
    {"declared_unnamed", NULL, "declared_unnamed(__global float* out, int n)",
     run_declared, 0},
    {"scoped_typedef", NULL, "scoped_typedef(__global int* out, int n)",
     run_scoped_typedef, 0},
    {"const_pointer", NULL, "const_pointer(__global float* out, __global "
     "const float* in)", run_out_in, 0},
    /* Last, in a test case of its own: Oclgrind 21.10 reports every value
     * read from an image as uninitialized, so that case runs without
     * --uninitialized there (scripts/check-oclgrind's "image-reads");
     * bounds and races are still checked. */
    {"volume_sum", NULL, "volume_sum(read_only image3d_t vol, sampler_t s, "
     "__global float* out, int depth)", run_volume_sum, NEEDS_IMAGES},
};

enum { NCASES = sizeof cases / sizeof cases[0], VOLUME = NCASES - 1 };

/* Said once per process: a driver that gave no report of the file. */
static void say_no_report(clctx *ctx)
{
    static int said;
    if (!said++)
        printf("signature: %s reports no parameters of %s's kernels (built "
               "without -cl-kernel-arg-info): they are checked from the "
               "source alone\n", clctx_device_name(ctx), ELSEWHERE);
}

START_TEST(each_kernel_read_as_its_compiler_reads_it)
{
    const sig_case *c = &cases[_i];
    clctx *contexts[2] = {clctx_default(), without_report()};
    ck_assert_made(contexts[0]);
    if (!device_has(contexts[0], c->needs)) {
        printf("signature: %s (%s) not tried: %s has no %s\n", c->kernel,
               c->options ? c->options : "defaults",
               clctx_device_name(contexts[0]),
               c->needs & NEEDS_FP64 ? "double precision" : "image support");
        return;
    }
    for (int w = 0; w < 2; w++) {
        const char *where = w ? "without the driver's report"
                              : "with the driver's report";
        clkernel *k = held = clkernel_file(contexts[w], ELSEWHERE, c->kernel,
                                           c->options);
        ck_assert_msg(k != NULL, "%s (%s), %s: not made: %s", c->kernel,
                      c->options ? c->options : "defaults", where,
                      clframe_last_error());
        ck_assert_msg(strcmp(clkernel_signature(k), c->signature) == 0,
                      "%s (%s), %s: the signature reads\n    %s\nnot\n    %s",
                      c->kernel, c->options ? c->options : "defaults", where,
                      clkernel_signature(k), c->signature);
        int agreed = clf_kernel_cross_check(k);
        if (w == 1)
            ck_assert_int_eq(agreed, 0);
        else if (!reported(k))
            say_no_report(contexts[w]);
        else
            ck_assert_msg(agreed == 1, "%s (%s): the source's reading and "
                          "%s's report %s", c->kernel,
                          c->options ? c->options : "defaults",
                          clctx_device_name(contexts[w]),
                          agreed < 0 ? "differ (the report is used)"
                                     : "were not compared: the source was "
                                       "not read");
        c->run(k, contexts[w], c->signature);
        free_held();
    }
}
END_TEST

Suite *signature_suite(void)
{
    Suite *s = suite_create("signature");
    TCase *tc = test_case("elsewhere");
    tcase_add_checked_fixture(tc, NULL, free_held);
    tcase_add_unchecked_fixture(tc, NULL, free_without_report);
    tcase_add_loop_test(tc, each_kernel_read_as_its_compiler_reads_it, 0,
                        VOLUME);
    suite_add_tcase(s, tc);
    TCase *volume = test_case("elsewhere-3d");
    tcase_set_tags(volume, "image-reads");      /* scripts/check-oclgrind */
    tcase_add_checked_fixture(volume, NULL, free_held);
    tcase_add_unchecked_fixture(volume, NULL, free_without_report);
    tcase_add_loop_test(volume, each_kernel_read_as_its_compiler_reads_it,
                        VOLUME, NCASES);
    suite_add_tcase(s, volume);
    return s;
}
