/*
 * reading.c: a source as clframe reads it, beside what the compiler builds:
 * the preprocessed view with a context's device macros (clf_preprocess_on),
 * and a built program's view and typedefs, read once when its first kernel
 * asks and kept with the program (clf_program_reading), so that the kernels
 * of one file share one reading.
 */
#include "source.h"

#include <stdlib.h>

int clf_preprocess_on(clctx *ctx, const char *source, const char *options,
                      char **view)
{
    clf_device_macros device;
    clf_device_macros_read(ctx, &device);
    int rc = clf_preprocess(&device, source, options, view);
    clf_device_macros_free(&device);
    return rc;
}

/* The source as its kernels' signatures are read from it, kept with its
 * program (clf_program_extra_of). */
typedef struct reading {
    int read;                    /* 1 once tried */
    char *view;                  /* preprocessed (preproc.c), or NULL */
    int view_rc;                 /* and why not: a code, */
    char *view_error;            /* and its message */
    clf_typedefs *typedefs;      /* of the view, else of the source */
} reading;

static void reading_free(void *data)
{
    reading *r = data;
    free(r->view);
    free(r->view_error);
    clf_typedefs_free(r->typedefs);
    free(r);
}

int clf_program_reading(clctx *ctx, cl_program program, const char **view,
                        const clf_typedefs **typedefs)
{
    *view = NULL;
    *typedefs = NULL;
    const char *source, *options;
    clf_program_extra *extra = clf_program_extra_of(ctx, program, &source,
                                                    &options);
    if (!extra)
        return clframe_fail(CLFRAME_ERR_USAGE, "a program clframe did not "
                            "build");
    if (!extra->data) {
        if (!(extra->data = calloc(1, sizeof(reading))))
            return clframe_fail(CLFRAME_ERR_NO_MEMORY, "reading a source");
        extra->free = reading_free;
    }
    reading *p = extra->data;
    if (!p->read) {
        free(p->view);                  /* from a try out of memory */
        free(p->view_error);
        p->view = p->view_error = NULL;
        p->view_rc = clf_preprocess_on(ctx, source, options, &p->view);
        if (p->view_rc == CLFRAME_ERR_NO_MEMORY)
            return p->view_rc;
        if (p->view_rc && !(p->view_error = clf_strdup(clframe_last_error())))
            return clframe_fail(CLFRAME_ERR_NO_MEMORY, "reading a source");
        p->typedefs = clf_typedefs_read(p->view ? p->view : source);
        if (!p->typedefs)
            return clframe_fail(CLFRAME_ERR_NO_MEMORY, "reading a source");
        p->read = 1;
    }
    *view = p->view;
    *typedefs = p->typedefs;
    return p->view_rc ? clframe_fail(p->view_rc, "%s", p->view_error) : 0;
}
