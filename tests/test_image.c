/*
 * test_image.c: OpenCL objects as kernel arguments: existing buffers,
 * 2-D and 3-D images made from host arrays (in and out) or existing,
 * samplers; each against its C reference on odd sizes, and every wrong
 * kind, dimension, access, size and context refused before the call.
 */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *source =
    "typedef struct Pair { int a; int b; } Pair;\n"
    "__kernel void scale(__global float *x, float s) {\n"
    "    x[get_global_id(0)] *= s; }\n"
    "__kernel void pairs(__global Pair *p) {\n"
    "    p[get_global_id(0)].b += p[get_global_id(0)].a; }\n"
    "__kernel void invert(read_only image2d_t in, write_only image2d_t out) {\n"
    "    int2 at = (int2)(get_global_id(0), get_global_id(1));\n"
    "    uint4 p = read_imageui(in, at);\n"
    "    write_imageui(out, at, (uint4)(255) - p); }\n"
    "__kernel void sum3d(read_only image3d_t in, sampler_t s,\n"
    "                    __global float *out, int d) {\n"
    "    int x = get_global_id(0), y = get_global_id(1);\n"
    "    float t = 0;\n"
    "    for (int z = 0; z < d; z++)\n"
    "        t += read_imagef(in, s, (int4)(x, y, z, 0)).x;\n"
    "    out[y * get_global_size(0) + x] = t; }\n";

static clkernel *kernel(const char *name)
{
    return test_kernel(source, name);
}

START_TEST(existing_buffers_are_passed_as_they_are)
{
    enum { N = 37 };
    float x[N];
    for (int i = 0; i < N; i++)
        x[i] = (float)i - 10;
    cl_int err;
    cl_context context = clctx_context(NULL);
    cl_command_queue q = clctx_queue(NULL);
    cl_mem mem = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof x, NULL,
                                &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_int_eq(clEnqueueWriteBuffer(q, mem, CL_TRUE, 0, sizeof x, x, 0,
                                          NULL, NULL), CL_SUCCESS);
    clkernel *k = kernel("scale");
    ck_assert_cl(clkernel_global(k, N));
    ck_assert_cl(clkernel_call(k, CLARG_BUFFER(mem), CLARG(3.0f)));
    ck_assert_cl(clkernel_call(k, CLARG_BUFFER(mem), CLARG(-0.5f)));
    float got[N];
    ck_assert_int_eq(clEnqueueReadBuffer(q, mem, CL_TRUE, 0, sizeof got, got,
                                         0, NULL, NULL), CL_SUCCESS);
    for (int i = 0; i < N; i++)
        ck_assert(got[i] == x[i] * 3.0f * -0.5f);

    cl_mem odd = clCreateBuffer(context, CL_MEM_READ_WRITE, 10, NULL, &err);
    ck_assert_fails(clkernel_call(k, CLARG_BUFFER(odd), CLARG(1.0f)),
                    CLFRAME_ERR_ARG_TYPE, "clkernel_call(scale): argument 1 "
                    "(x): a buffer of 10 bytes is not a whole number of float "
                    "(4 bytes each)");
    ck_assert_fails(clkernel_call(k, CLARG_BUFFER(NULL), CLARG(1.0f)),
                    CLFRAME_ERR_USAGE, "argument 1 is not a valid memory "
                    "object");
    ck_assert_fails(clkernel_call(k, CLARG_IN(x, N), CLARG_BUFFER(mem)),
                    CLFRAME_ERR_ARG_TYPE, "argument 2 (s): the kernel expects "
                    "float, got a buffer (CLARG_BUFFER)");
    clctx *other = clctx_new(getenv("CLFRAME_DEVICE"));
    ck_assert_made(other);
    cl_mem elsewhere = clCreateBuffer(clctx_context(other), CL_MEM_READ_WRITE,
                                      sizeof x, NULL, &err);
    ck_assert_fails(clkernel_call(k, CLARG_BUFFER(elsewhere), CLARG(1.0f)),
                    CLFRAME_ERR_USAGE, "argument 1 belongs to another OpenCL "
                    "context");
    clReleaseMemObject(elsewhere);
    clctx_free(other);
    clkernel_free(k);

    /* A struct's measured size: 12 bytes are not a whole number of Pairs. */
    k = kernel("pairs");
    cl_int pairs[6] = {1, 2, 3, 4, 5, 6};
    cl_mem pm = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               sizeof pairs, pairs, &err);
    ck_assert_cl(clkernel_global(k, 3));
    ck_assert_cl(clkernel_call(k, CLARG_BUFFER(pm)));
    ck_assert_int_eq(clEnqueueReadBuffer(q, pm, CL_TRUE, 0, sizeof pairs,
                                         pairs, 0, NULL, NULL), CL_SUCCESS);
    ck_assert(pairs[1] == 3 && pairs[3] == 7 && pairs[5] == 11);
    ck_assert_fails(clkernel_call(k, CLARG_BUFFER(odd)), CLFRAME_ERR_ARG_TYPE,
                    "not a whole number of Pair (8 bytes each)");
    clReleaseMemObject(pm);
    clReleaseMemObject(odd);
    clReleaseMemObject(mem);
    clkernel_free(k);
}
END_TEST

/* 255 - p for every channel of a w x h RGBA image of bytes. */
static void invert_on_host(const cl_uchar *in, cl_uchar *out, int w, int h)
{
    for (int i = 0; i < 4 * w * h; i++)
        out[i] = (cl_uchar)(255 - in[i]);
}

START_TEST(images_from_host_arrays_go_in_and_come_back)
{
    enum { W = 7, H = 5 };
    cl_uchar in[H][W][4], out[H][W][4], want[H][W][4];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 4; c++)
                in[y][x][c] = (cl_uchar)(rand() & 255);
    memset(out, 0, sizeof out);
    invert_on_host(&in[0][0][0], &want[0][0][0], W, H);
    clkernel *k = kernel("invert");
    ck_assert_str_eq(clkernel_signature(k), "invert(read_only image2d_t in, "
                     "write_only image2d_t out)");
    ck_assert_cl(clkernel_global(k, W, H));
    ck_assert_cl(clkernel_call(k,
        CLARG_IMAGE2D(in, W, H, CL_RGBA, CL_UNSIGNED_INT8, CLARG_TO_DEVICE),
        CLARG_IMAGE2D(out, W, H, CL_RGBA, CL_UNSIGNED_INT8, CLARG_FROM_DEVICE)));
    ck_assert_int_eq(memcmp(out, want, sizeof out), 0);

    /* The same kernel with images of the caller's own. */
    cl_int err;
    cl_image_format f = {CL_RGBA, CL_UNSIGNED_INT8};
    cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = W,
                       .image_height = H};
    cl_mem a = clCreateImage(clctx_context(NULL),
                             CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &f, &d,
                             want, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem b = clCreateImage(clctx_context(NULL), CL_MEM_WRITE_ONLY, &f, &d,
                             NULL, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    ck_assert_cl(clkernel_call(k, CLARG_IMAGE(a), CLARG_IMAGE(b)));
    size_t origin[3] = {0, 0, 0}, region[3] = {W, H, 1};
    ck_assert_int_eq(clEnqueueReadImage(clctx_queue(NULL), b, CL_TRUE, origin,
                                        region, 0, 0, out, 0, NULL, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(memcmp(out, in, sizeof out), 0);

    /* Each mistake, before anything runs. */
    ck_assert_fails(clkernel_call(k,
        CLARG_IMAGE2D(in, W, H, CL_RGBA, CL_UNSIGNED_INT8,
                      CLARG_TO_DEVICE | CLARG_FROM_DEVICE),
        CLARG_IMAGE(b)), CLFRAME_ERR_USAGE, "argument 1 (in) is a read_only "
        "image: copy it in (CLARG_TO_DEVICE) and nothing back");
    ck_assert_fails(clkernel_call(k, CLARG_IMAGE(a),
        CLARG_IMAGE2D(out, W, H, CL_RGBA, CL_UNSIGNED_INT8, CLARG_TO_DEVICE)),
        CLFRAME_ERR_USAGE, "argument 2 (out) is a write_only image: it must "
        "come back (CLARG_FROM_DEVICE)");
    ck_assert_fails(clkernel_call(k,
        CLARG_IMAGE3D(in, W, H, 1, CL_RGBA, CL_UNSIGNED_INT8, CLARG_TO_DEVICE),
        CLARG_IMAGE(b)), CLFRAME_ERR_ARG_TYPE, "argument 1 (in): the kernel "
        "expects a 2-D image (image2d_t), got a 3-D image");
    ck_assert_fails(clkernel_call(k, CLARG_IN(&in[0][0][0], 4 * W * H),
                                  CLARG_IMAGE(b)),
                    CLFRAME_ERR_ARG_TYPE, "argument 1 (in): the kernel "
                    "expects read_only image2d_t, got an array of uchar");
    ck_assert_fails(clkernel_call(k,
        CLARG_IMAGE2D(in, W, 0, CL_RGBA, CL_UNSIGNED_INT8, CLARG_TO_DEVICE),
        CLARG_IMAGE(b)), CLFRAME_ERR_BAD_SIZE, "an image of size 0 in "
        "dimension 1");
    ck_assert_fails(clkernel_call(k,
        CLARG_IMAGE2D(in, W, H, CL_RGBA, 0x7777, CLARG_TO_DEVICE),
        CLARG_IMAGE(b)), CLFRAME_ERR_USAGE, "is not one clframe knows the "
        "pixel size of");
    ck_assert_fails(clkernel_call(k, CLARG_IMAGE(NULL), CLARG_IMAGE(b)),
                    CLFRAME_ERR_USAGE, "argument 1 is not a valid memory "
                    "object");
    clkernel *scale = kernel("scale");
    ck_assert_cl(clkernel_global(scale, 1));
    ck_assert_fails(clkernel_call(scale, CLARG_IMAGE(a), CLARG(1.0f)),
                    CLFRAME_ERR_ARG_TYPE, "argument 1 (x): the kernel expects "
                    "__global float*, got an image (CLARG_IMAGE)");
    ck_assert_fails(clkernel_call(scale, CLARG_BUFFER(a), CLARG(1.0f)),
                    CLFRAME_ERR_ARG_TYPE, "argument 1 (x) is a 2-D image, but "
                    "the parameter is a pointer");
    clkernel_free(scale);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clkernel_free(k);
}
END_TEST

/* A 3-D image read through a sampler passed as an argument: each (x, y)
 * sums its column over z. Four channels, of which the kernel reads one: a
 * one-channel image's others are left undefined by Oclgrind. */
START_TEST(samplers_and_3d_images)
{
    enum { W = 5, H = 3, D = 4 };
    float vol[D][H][W][4], out[H][W];
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                for (int c = 0; c < 4; c++)
                    vol[z][y][x][c] = (float)(x + 10 * y + 100 * z + 1000 * c);
    cl_int err;
    cl_sampler s = clCreateSampler(clctx_context(NULL), CL_FALSE,
                                   CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST,
                                   &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    clkernel *k = kernel("sum3d");
    ck_assert_str_eq(clkernel_signature(k), "sum3d(read_only image3d_t in, "
                     "sampler_t s, __global float* out, int d)");
    ck_assert_cl(clkernel_global(k, W, H));
    ck_assert_cl(clkernel_call(k,
        CLARG_IMAGE3D(vol, W, H, D, CL_RGBA, CL_FLOAT, CLARG_TO_DEVICE),
        CLARG_SAMPLER(s), CLARG_OUT(&out[0][0], W * H), CLARG((int)D)));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float want = 0;
            for (int z = 0; z < D; z++)
                want += vol[z][y][x][0];
            ck_assert(out[y][x] == want);
        }
    ck_assert_fails(clkernel_call(k,
        CLARG_IMAGE3D(vol, W, H, D, CL_RGBA, CL_FLOAT, CLARG_TO_DEVICE),
        CLARG(1), CLARG_OUT(&out[0][0], W * H), CLARG((int)D)),
        CLFRAME_ERR_ARG_TYPE, "argument 2 (s): the kernel expects sampler_t, "
        "got a value of type int (CLARG); pass CLARG_SAMPLER(s)");
    ck_assert_fails(clkernel_call(k,
        CLARG_IMAGE3D(vol, W, H, D, CL_RGBA, CL_FLOAT, CLARG_TO_DEVICE),
        CLARG_SAMPLER(NULL), CLARG_OUT(&out[0][0], W * H), CLARG((int)D)),
        CLFRAME_ERR_USAGE, "argument 2 is not a valid sampler");
    ck_assert_fails(clkernel_call(k,
        CLARG_IMAGE3D(vol, W, H, D, CL_RGBA, CL_FLOAT, CLARG_TO_DEVICE),
        CLARG_OUT(&out[0][0], W * H), CLARG_SAMPLER(s), CLARG((int)D)),
        CLFRAME_ERR_ARG_TYPE, "argument 2 (s): the kernel expects sampler_t, "
        "got an array of float");
    clctx *other = clctx_new(getenv("CLFRAME_DEVICE"));
    ck_assert_made(other);
    cl_sampler elsewhere = clCreateSampler(clctx_context(other), CL_FALSE,
                                           CL_ADDRESS_CLAMP_TO_EDGE,
                                           CL_FILTER_NEAREST, &err);
    ck_assert_fails(clkernel_call(k,
        CLARG_IMAGE3D(vol, W, H, D, CL_RGBA, CL_FLOAT, CLARG_TO_DEVICE),
        CLARG_SAMPLER(elsewhere), CLARG_OUT(&out[0][0], W * H), CLARG((int)D)),
        CLFRAME_ERR_USAGE, "argument 2 belongs to another OpenCL context");
    clReleaseSampler(elsewhere);
    clctx_free(other);
    clReleaseSampler(s);
    clkernel_free(k);
}
END_TEST

/* No image is leaked by calls, nor by ones refused (an array larger than
 * the device allocates), and the context goes on working after them. */
START_TEST(image_calls_leak_nothing)
{
    enum { W = 4, H = 4, D = 2 };
    float vol[D][H][W][4] = {{{{0}}}}, out[H][W];
    cl_int err;
    cl_sampler s = clCreateSampler(clctx_context(NULL), CL_FALSE,
                                   CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST,
                                   &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    clkernel *k = kernel("sum3d");
    ck_assert_cl(clkernel_global(k, W, H));
    uint64_t live = clctx_get_stats(NULL).live_objects;
    for (int i = 0; i < 20; i++) {
        ck_assert_cl(clkernel_call(k,
            CLARG_IMAGE3D(vol, W, H, D, CL_RGBA, CL_FLOAT, CLARG_TO_DEVICE),
            CLARG_SAMPLER(s), CLARG_OUT(&out[0][0], W * H), CLARG((int)D)));
        ck_assert_fails(clkernel_call(k,
            CLARG_IMAGE3D(vol, W, H, D, CL_RGBA, CL_FLOAT, CLARG_TO_DEVICE),
            CLARG_SAMPLER(s), CLARG_OUT(&out[0][0], (size_t)1 << 40),
            CLARG((int)D)), CLFRAME_ERR_BAD_SIZE,
            "argument 3: an array of 4398046511104 bytes is more than");
    }
    ck_assert_uint_eq(clctx_get_stats(NULL).live_objects, live);
    clReleaseSampler(s);
    clkernel_free(k);
}
END_TEST

Suite *image_suite(void)
{
    Suite *s = suite_create("objects");
    TCase *c = test_case("objects");
    tcase_add_test(c, existing_buffers_are_passed_as_they_are);
    tcase_add_test(c, images_from_host_arrays_go_in_and_come_back);
    suite_add_tcase(s, c);
    TCase *reads = test_case("image reads");
    tcase_set_tags(reads, "image-reads");       /* scripts/check-oclgrind */
    tcase_add_test(reads, samplers_and_3d_images);
    tcase_add_test(reads, image_calls_leak_nothing);
    suite_add_tcase(s, reads);
    return s;
}
