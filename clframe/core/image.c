/*
 * image.c: OpenCL objects as kernel arguments: an existing buffer, images
 * (made from a host array around a call, memory.c, or existing) and samplers.
 * A call checks each against its parameter (signature.c).
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
