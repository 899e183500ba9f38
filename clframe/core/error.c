/*
 * error.c: names of error codes and the last-error message. Every failure
 * in clframe goes through clframe_fail, so the message a user sees always says
 * which call failed, on what, and why, and an installed handler sees it too.
 */
#include "core.h"

#include <stdio.h>
#include <string.h>

static const struct {
    int code;
    const char *name;
} error_names[] = {
    {0, "CL_SUCCESS"},
    {-1, "CL_DEVICE_NOT_FOUND"},
    {-2, "CL_DEVICE_NOT_AVAILABLE"},
    {-3, "CL_COMPILER_NOT_AVAILABLE"},
    {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
    {-5, "CL_OUT_OF_RESOURCES"},
    {-6, "CL_OUT_OF_HOST_MEMORY"},
    {-7, "CL_PROFILING_INFO_NOT_AVAILABLE"},
    {-8, "CL_MEM_COPY_OVERLAP"},
    {-9, "CL_IMAGE_FORMAT_MISMATCH"},
    {-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED"},
    {-11, "CL_BUILD_PROGRAM_FAILURE"},
    {-12, "CL_MAP_FAILURE"},
    {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
    {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
    {-15, "CL_COMPILE_PROGRAM_FAILURE"},
    {-16, "CL_LINKER_NOT_AVAILABLE"},
    {-17, "CL_LINK_PROGRAM_FAILURE"},
    {-18, "CL_DEVICE_PARTITION_FAILED"},
    {-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
    {-30, "CL_INVALID_VALUE"},
    {-31, "CL_INVALID_DEVICE_TYPE"},
    {-32, "CL_INVALID_PLATFORM"},
    {-33, "CL_INVALID_DEVICE"},
    {-34, "CL_INVALID_CONTEXT"},
    {-35, "CL_INVALID_QUEUE_PROPERTIES"},
    {-36, "CL_INVALID_COMMAND_QUEUE"},
    {-37, "CL_INVALID_HOST_PTR"},
    {-38, "CL_INVALID_MEM_OBJECT"},
    {-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"},
    {-40, "CL_INVALID_IMAGE_SIZE"},
    {-41, "CL_INVALID_SAMPLER"},
    {-42, "CL_INVALID_BINARY"},
    {-43, "CL_INVALID_BUILD_OPTIONS"},
    {-44, "CL_INVALID_PROGRAM"},
    {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
    {-46, "CL_INVALID_KERNEL_NAME"},
    {-47, "CL_INVALID_KERNEL_DEFINITION"},
    {-48, "CL_INVALID_KERNEL"},
    {-49, "CL_INVALID_ARG_INDEX"},
    {-50, "CL_INVALID_ARG_VALUE"},
    {-51, "CL_INVALID_ARG_SIZE"},
    {-52, "CL_INVALID_KERNEL_ARGS"},
    {-53, "CL_INVALID_WORK_DIMENSION"},
    {-54, "CL_INVALID_WORK_GROUP_SIZE"},
    {-55, "CL_INVALID_WORK_ITEM_SIZE"},
    {-56, "CL_INVALID_GLOBAL_OFFSET"},
    {-57, "CL_INVALID_EVENT_WAIT_LIST"},
    {-58, "CL_INVALID_EVENT"},
    {-59, "CL_INVALID_OPERATION"},
    {-60, "CL_INVALID_GL_OBJECT"},
    {-61, "CL_INVALID_BUFFER_SIZE"},
    {-62, "CL_INVALID_MIP_LEVEL"},
    {-63, "CL_INVALID_GLOBAL_WORK_SIZE"},
    {-64, "CL_INVALID_PROPERTY"},
    {-65, "CL_INVALID_IMAGE_DESCRIPTOR"},
    {-66, "CL_INVALID_COMPILER_OPTIONS"},
    {-67, "CL_INVALID_LINKER_OPTIONS"},
    {-68, "CL_INVALID_DEVICE_PARTITION_COUNT"},
    {-69, "CL_INVALID_PIPE_SIZE"},
    {-70, "CL_INVALID_DEVICE_QUEUE"},
    {-71, "CL_INVALID_SPEC_ID"},
    {-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED"},
    {-1000, "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR"},
    {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
    {-1057, "CL_DEVICE_PARTITION_FAILED_EXT"},
    {-1058, "CL_INVALID_PARTITION_COUNT_EXT"},
    {-1059, "CL_INVALID_PARTITION_NAME_EXT"},
    {-1094, "CL_INVALID_ACCELERATOR_INTEL"},
    {-1095, "CL_INVALID_ACCELERATOR_TYPE_INTEL"},
    {-1096, "CL_INVALID_ACCELERATOR_DESCRIPTOR_INTEL"},
    {-1097, "CL_ACCELERATOR_TYPE_NOT_SUPPORTED_INTEL"},
    {-1108, "CL_COMMAND_TERMINATED_ITSELF_WITH_FAILURE_ARM"},
    {-1121, "CL_CONTEXT_TERMINATED_KHR"},
    {-1138, "CL_INVALID_COMMAND_BUFFER_KHR"},
    {-1139, "CL_INVALID_SYNC_POINT_WAIT_LIST_KHR"},
    {-1140, "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR"},
    {-1141, "CL_INVALID_MUTABLE_COMMAND_KHR"},
    {-1142, "CL_INVALID_SEMAPHORE_KHR"},
    {CLFRAME_ERR_NO_PLATFORM, "CLFRAME_ERR_NO_PLATFORM"},
    {CLFRAME_ERR_NO_DEVICE, "CLFRAME_ERR_NO_DEVICE"},
    {CLFRAME_ERR_BAD_SELECTOR, "CLFRAME_ERR_BAD_SELECTOR"},
    {CLFRAME_ERR_NOT_FOUND, "CLFRAME_ERR_NOT_FOUND"},
    {CLFRAME_ERR_BUILD, "CLFRAME_ERR_BUILD"},
    {CLFRAME_ERR_ARG_COUNT, "CLFRAME_ERR_ARG_COUNT"},
    {CLFRAME_ERR_ARG_TYPE, "CLFRAME_ERR_ARG_TYPE"},
    {CLFRAME_ERR_NO_GLOBAL_SIZE, "CLFRAME_ERR_NO_GLOBAL_SIZE"},
    {CLFRAME_ERR_BAD_SIZE, "CLFRAME_ERR_BAD_SIZE"},
    {CLFRAME_ERR_USAGE, "CLFRAME_ERR_USAGE"},
    {CLFRAME_ERR_NO_MEMORY, "CLFRAME_ERR_NO_MEMORY"},
    {CLFRAME_ERR_IO, "CLFRAME_ERR_IO"},
};

const char *clframe_error_name(int code)
{
    for (size_t i = 0; i < sizeof error_names / sizeof error_names[0]; i++)
        if (error_names[i].code == code)
            return error_names[i].name;
    return "unknown error";
}

/* Per thread, so that two threads' errors never mix. Messages longer than
 * this (a huge build log) are cut, with a note saying so. */
static _Thread_local char last_error[16384];
static clframe_error_handler error_handler;

const char *clframe_last_error(void)
{
    return last_error;
}

clframe_error_handler clframe_set_error_handler(clframe_error_handler handler)
{
    clframe_error_handler old = error_handler;
    error_handler = handler;
    return old;
}

void clf_clear_error(void)
{
    last_error[0] = '\0';
}

static int raise_error(int code, const char *prefix, const char *fmt,
                       va_list ap)
{
    static const char cut[] = "\n[... message cut]";
    size_t room = sizeof last_error - sizeof cut;
    int n = snprintf(last_error, room, "%s", prefix);
    if (n < 0)
        n = 0;
    int m = vsnprintf(last_error + n, room - (size_t)n, fmt, ap);
    if (m > 0 && (size_t)n + (size_t)m >= room)
        strcat(last_error, cut);
    if (error_handler)
        error_handler(code, last_error);
    return code;
}

int clframe_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    raise_error(code, "", fmt, ap);
    va_end(ap);
    return code;
}

int clf_fail_cl(cl_int code, const char *call, const char *fmt, ...)
{
    char prefix[160];
    snprintf(prefix, sizeof prefix, "%s failed (%s): ", call,
             clframe_error_name(code));
    va_list ap;
    va_start(ap, fmt);
    raise_error(code, prefix, fmt, ap);
    va_end(ap);
    return code;
}

int clf_fail_null(const char *who, const char *what)
{
    /* The error that made the object NULL is still the last one, unless
     * another call failed since: quote it rather than replace it. */
    char before[1024];
    size_t n = strnlen(last_error, sizeof before - 1);
    memcpy(before, last_error, n);
    before[n] = '\0';
    if (before[0])
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: NULL %s; the last error "
                            "before it: %s", who, what, before);
    return clframe_fail(CLFRAME_ERR_USAGE, "%s: NULL %s", who, what);
}
