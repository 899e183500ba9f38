/*
 * error.h: how the apps report a failure: a code of their own and a message
 * that says what failed and where (a bad input names its file and line), as
 * clframe does for its calls, but without OpenCL, so that parsers and
 * searches build and are tested as plain C. A program prints
 * app_last_error(), which holds clframe's messages as well once
 * app_follow_clframe_errors() has run.
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

/* The message of the latest failure in this thread; "" before the first.
 * Overwritten only by the next failure. */
const char *app_last_error(void);

/* Makes message (a whole one) this thread's latest. */
void app_set_last_error(const char *message);

/* Makes every error clframe raises from now on (in any thread) the latest
 * app error of its thread too, so that a program or a test reads one
 * message whichever side failed. In device.c: it links clframe. */
void app_follow_clframe_errors(void);

#endif /* APPS_ERROR_H */
