/*
 * error.h: how the apps report a failure: a code of their own and a message
 * that says what failed and where (a bad input names its file and line), as
 * clframe does for its calls. The message is clframe's own last error
 * (error.c raises it through clframe_fail), so a program prints
 * app_last_error() whichever side failed. This header needs no clframe.h:
 * parsers and searches build and are tested as plain C.
 */
#ifndef APPS_ERROR_H
#define APPS_ERROR_H

/* The apps' codes, below clframe's (-9001 and on). */
enum {
    APP_ERR_BAD_INPUT = -9101,  /* a file, option or value is malformed */
    APP_ERR_IO        = -9102,  /* a file could not be opened, read or written */
    APP_ERR_NO_MEMORY = -9103,  /* a host allocation failed */
    APP_ERR_USAGE     = -9104,  /* a function called wrongly (NULL, ...) */
    APP_ERR_DEVICE    = -9105   /* the device is too small for the work */
};

/* Sets this thread's message from a printf format and returns code, so that
 * a failure is `return app_fail(APP_ERR_BAD_INPUT, "...", ...)`. */
int app_fail(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The same for a bad line of an input: the message is "FILE:LINE: ...". */
int app_fail_at(int code, const char *file, unsigned long line,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The message of the latest failure in this thread, the apps' or
 * clframe's (clframe_last_error()); "" before the first. Overwritten only
 * by the next failure. */
const char *app_last_error(void);

/* The name of an app code ("APP_ERR_IO"), or clframe_error_name's for
 * any other code. The string is static. */
const char *app_error_name(int code);

#endif /* APPS_ERROR_H */
