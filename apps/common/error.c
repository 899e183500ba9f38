/*
 * error.c: the apps' failures and their last message (error.h).
 */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Per thread, as clframe's own: the raytracer's window renders in one. */
static _Thread_local char last_error[4096];

static int fail(int code, const char *prefix, const char *fmt, va_list ap)
{
    int n = snprintf(last_error, sizeof last_error, "%s", prefix);
    if (n < 0 || (size_t)n >= sizeof last_error)
        n = 0;
    vsnprintf(last_error + n, sizeof last_error - (size_t)n, fmt, ap);
    return code;
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
    return last_error;
}

void app_set_last_error(const char *message)
{
    snprintf(last_error, sizeof last_error, "%s", message);
}
