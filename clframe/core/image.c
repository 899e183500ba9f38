/*
 * image.c: OpenCL objects as kernel arguments: an existing buffer, images
 * (made from a host array around a call, arg.c, or existing) and samplers.
 * Each is checked against the parameter's kind before anything is
 * enqueued: an
 * image2d_t takes a 2-D image, a read_only image one copied in, a buffer
 * a whole number of the parameter's elements, every object one of the
 * kernel's context.
 */
#include "core.h"

#include <stdio.h>
#include <string.h>

static clarg object_arg(clarg_kind kind, const void *object, size_t size)
{
    clarg a = {.kind = kind};
    memcpy(a.value, object, size);
    return a;
}

clarg clarg_existing_buffer(cl_mem mem)
{
    return object_arg(CLARG_KIND_MEM, &mem, sizeof mem);
}

clarg clarg_sampler(cl_sampler sampler)
{
    return object_arg(CLARG_KIND_SAMPLER, &sampler, sizeof sampler);
}

clarg clarg_existing_image(cl_mem mem)
{
    clf_image_desc d = {.existing = 1, .mem = mem};
    return object_arg(CLARG_KIND_IMAGE, &d, sizeof d);
}

/* Bytes of one pixel of format, or 0 for a format clframe does not know. */
static size_t pixel_bytes(cl_image_format f)
{
    size_t channels;
    switch (f.image_channel_order) {
    case CL_R: case CL_A: case CL_INTENSITY: case CL_LUMINANCE:
        channels = 1;
        break;
    case CL_RG: case CL_RA: case CL_Rx:
        channels = 2;
        break;
    case CL_RGB: case CL_RGx:
        channels = 3;
        break;
    case CL_RGBA: case CL_BGRA: case CL_ARGB: case CL_RGBx:
        channels = 4;
        break;
    default:
        return 0;
    }
    switch (f.image_channel_data_type) {
    case CL_SNORM_INT8: case CL_UNORM_INT8: case CL_SIGNED_INT8:
    case CL_UNSIGNED_INT8:
        return channels;
    case CL_SNORM_INT16: case CL_UNORM_INT16: case CL_SIGNED_INT16:
    case CL_UNSIGNED_INT16: case CL_HALF_FLOAT:
        return 2 * channels;
    case CL_SIGNED_INT32: case CL_UNSIGNED_INT32: case CL_FLOAT:
        return 4 * channels;
    case CL_UNORM_SHORT_565: case CL_UNORM_SHORT_555:
        return 2;               /* three channels packed */
    case CL_UNORM_INT_101010:
        return 4;
    default:
        return 0;
    }
}

clarg clarg_image(void *host, unsigned dims, size_t width, size_t height,
                  size_t depth, cl_channel_order order, cl_channel_type type,
                  unsigned flags)
{
    clf_image_desc d = {.format = {order, type}, .dims = dims,
                    .size = {width, dims > 1 ? height : 1,
                             dims > 2 ? depth : 1}};
    clarg a = object_arg(CLARG_KIND_IMAGE, &d, sizeof d);
    a.host = host;
    a.flags = flags;
    a.elem_size = pixel_bytes(d.format);
    a.count = d.size[0] * d.size[1] * d.size[2];
    return a;
}

/* ---- checks ------------------------------------------------------------ */

/* The OpenCL image type of a parameter type ("image2d_t"), or 0. */
static cl_mem_object_type image_object(const char *type)
{
    static const struct { const char *name; cl_mem_object_type t; } kinds[] = {
        {"image1d_t", CL_MEM_OBJECT_IMAGE1D},
        {"image1d_buffer_t", CL_MEM_OBJECT_IMAGE1D_BUFFER},
        {"image1d_array_t", CL_MEM_OBJECT_IMAGE1D_ARRAY},
        {"image2d_t", CL_MEM_OBJECT_IMAGE2D},
        {"image2d_array_t", CL_MEM_OBJECT_IMAGE2D_ARRAY},
        {"image3d_t", CL_MEM_OBJECT_IMAGE3D}};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strcmp(type, kinds[i].name) == 0)
            return kinds[i].t;
    return 0;
}

static const char *object_name(cl_mem_object_type t)
{
    switch (t) {
    case CL_MEM_OBJECT_BUFFER: return "a buffer";
    case CL_MEM_OBJECT_IMAGE1D: return "a 1-D image";
    case CL_MEM_OBJECT_IMAGE1D_BUFFER: return "a 1-D buffer image";
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: return "a 1-D image array";
    case CL_MEM_OBJECT_IMAGE2D: return "a 2-D image";
    case CL_MEM_OBJECT_IMAGE2D_ARRAY: return "a 2-D image array";
    case CL_MEM_OBJECT_IMAGE3D: return "a 3-D image";
    default: return "an unknown object";
    }
}

/* A memory object's type and context, or an error naming who and i when
 * it is not one (NULL, freed). */
static int mem_info(const char *who, unsigned i, cl_mem mem,
                    cl_mem_object_type *type, cl_context *context)
{
    if (!mem ||
        clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof *type, type, NULL) !=
            CL_SUCCESS ||
        clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof *context, context,
                           NULL) != CL_SUCCESS)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u is not a "
                            "valid memory object (NULL or released)", who,
                            i + 1);
    return 0;
}

static int other_context(const char *who, unsigned i, const clctx *ctx)
{
    return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u belongs to "
                        "another OpenCL context than the kernel's (on %s)",
                        who, i + 1, ctx->device_name);
}

int clf_check_existing_buffer(const clctx *ctx, const char *who, unsigned i,
                              const clf_param *p, const clarg *a)
{
    cl_mem mem;
    memcpy(&mem, a->value, sizeof mem);
    cl_mem_object_type type;
    cl_context context;
    int rc = mem_info(who, i, mem, &type, &context);
    if (rc)
        return rc;
    if (type != CL_MEM_OBJECT_BUFFER)
        return clframe_fail(CLFRAME_ERR_ARG_TYPE, "%s: argument %u (%s) is "
                            "%s, but the parameter is a pointer: pass a "
                            "buffer", who, i + 1, p->name, object_name(type));
    if (context != ctx->context)
        return other_context(who, i, ctx);
    size_t bytes = 0, elem = p->struct_size ? p->struct_size
                                            : clf_builtin_size(p->type);
    clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
    if (elem && bytes % elem)
        return clframe_fail(CLFRAME_ERR_ARG_TYPE, "%s: argument %u (%s): a "
                            "buffer of %zu bytes is not a whole number of %s "
                            "(%zu bytes each)", who, i + 1, p->name, bytes,
                            p->written[0] ? p->written : p->type, elem);
    return 0;
}

int clf_check_sampler(const clctx *ctx, const char *who, unsigned i,
                      const clarg *a)
{
    cl_sampler s;
    memcpy(&s, a->value, sizeof s);
    cl_context context;
    if (!s || clGetSamplerInfo(s, CL_SAMPLER_CONTEXT, sizeof context, &context,
                               NULL) != CL_SUCCESS)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u is not a "
                            "valid sampler (NULL or released)", who, i + 1);
    return context == ctx->context ? 0 : other_context(who, i, ctx);
}

/* The copies a host array's image needs for the parameter's access. */
static int check_access(const char *who, unsigned i, const clf_param *p,
                        const clarg *a)
{
    unsigned in = a->flags & CLARG_TO_DEVICE, out = a->flags & CLARG_FROM_DEVICE;
    if (a->flags & ~(unsigned)(CLARG_TO_DEVICE | CLARG_FROM_DEVICE))
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u (%s): an "
                            "image takes CLARG_TO_DEVICE and CLARG_FROM_DEVICE "
                            "only", who, i + 1, p->name);
    if (p->access == CL_KERNEL_ARG_ACCESS_READ_ONLY && (!in || out))
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u (%s) is a "
                            "read_only image: copy it in (CLARG_TO_DEVICE) "
                            "and nothing back", who, i + 1, p->name);
    if (p->access == CL_KERNEL_ARG_ACCESS_WRITE_ONLY && !out)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u (%s) is a "
                            "write_only image: it must come back "
                            "(CLARG_FROM_DEVICE)", who, i + 1, p->name);
    if (!in && !out)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u (%s): an "
                            "image made from a host array is copied in, out "
                            "or both", who, i + 1, p->name);
    return 0;
}

int clf_check_image(const clctx *ctx, const char *who, unsigned i,
                    const clf_param *p, const clarg *a)
{
    const clf_image_desc *d = clf_image_desc_of(a);
    cl_mem_object_type want = image_object(p->type), got;
    if (d->existing) {
        cl_context context;
        int rc = mem_info(who, i, d->mem, &got, &context);
        if (rc)
            return rc;
        if (context != ctx->context)
            return other_context(who, i, ctx);
    } else {
        got = d->dims == 2 ? CL_MEM_OBJECT_IMAGE2D
              : d->dims == 3 ? CL_MEM_OBJECT_IMAGE3D : 0;
        if (!got)
            return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u (%s): "
                                "images from host arrays have 2 or 3 "
                                "dimensions", who, i + 1, p->name);
    }
    if (got != want)
        return clframe_fail(CLFRAME_ERR_ARG_TYPE, "%s: argument %u (%s): the "
                            "kernel expects %s (%s), got %s", who, i + 1,
                            p->name, object_name(want), p->type,
                            object_name(got));
    if (d->existing)
        return 0;
    if (!a->elem_size)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u (%s): image "
                            "format 0x%x, 0x%x is not one clframe knows the "
                            "pixel size of", who, i + 1, p->name,
                            d->format.image_channel_order,
                            d->format.image_channel_data_type);
    size_t bytes = a->elem_size;
    for (cl_uint k = 0; k < d->dims; k++) {
        if (d->size[k] == 0 || bytes > (size_t)-1 / d->size[k])
            return clframe_fail(CLFRAME_ERR_BAD_SIZE, "%s: argument %u (%s): "
                                "an image of size %zu in dimension %u", who,
                                i + 1, p->name, d->size[k], k);
        bytes *= d->size[k];
    }
    if (!a->host)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: argument %u (%s): a NULL "
                            "host array for an image", who, i + 1, p->name);
    return check_access(who, i, p, a);
}
