/*
 * error.c: the apps' failures (error.h), raised through clframe's own
 * (clframe_fail), so that a program or a test reads one message per
 * thread, clframe_last_error(), whichever side failed.
 */
#include "error.h"

#include "clframe.h"

#include <stdarg.h>
#include <stdio.h>

/* The message from prefix and a format, raised as clframe's with code. */
static int fail(int code, const char *prefix, const char *fmt, va_list ap)
{
    char message[4096];
    int n = snprintf(message, sizeof message, "%s", prefix);
    if (n < 0 || (size_t)n >= sizeof message)
        n = 0;
    vsnprintf(message + n, sizeof message - (size_t)n, fmt, ap);
    return clframe_fail(code, "%s", message);
}

int app_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail(code, "", fmt, ap);
    va_end(ap);
    return code;
}

int app_fail_at(int code, const char *file, unsigned long line,
                const char *fmt, ...)
{
    char prefix[512];
    snprintf(prefix, sizeof prefix, "%s:%lu: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    fail(code, prefix, fmt, ap);
    va_end(ap);
    return code;
}

const char *app_last_error(void)
{
    return clframe_last_error();
}

const char *app_error_name(int code)
{
    switch (code) {
    case APP_ERR_BAD_INPUT: return "APP_ERR_BAD_INPUT";
    case APP_ERR_IO:        return "APP_ERR_IO";
    case APP_ERR_NO_MEMORY: return "APP_ERR_NO_MEMORY";
    case APP_ERR_USAGE:     return "APP_ERR_USAGE";
    case APP_ERR_DEVICE:    return "APP_ERR_DEVICE";
    default:                return clframe_error_name(code);
    }
}
