/*
 * png_failure.h: libpng's error and warning handlers for png.c (writing)
 * and png_read.c (reading), inside apps/common only. libpng reports an
 * error by calling the handler, which keeps the message and longjmps back
 * to the caller's setjmp.
 */
#ifndef APPS_IMAGE_PNG_FAILURE_H
#define APPS_IMAGE_PNG_FAILURE_H

#include <png.h>
#include <stdio.h>

typedef struct png_failure {
    char message[200];
} png_failure;

static inline void png_failure_on_error(png_structp png,
                                        png_const_charp message)
{
    png_failure *failure = png_get_error_ptr(png);
    snprintf(failure->message, sizeof failure->message, "%s", message);
    png_longjmp(png, 1);
}

/* Warnings are recoverable oddities: the image is written or read. */
static inline void png_failure_on_warning(png_structp png,
                                          png_const_charp message)
{
    (void)png, (void)message;
}

#endif /* APPS_IMAGE_PNG_FAILURE_H */
