/*
 * save.h: how every app writes a file, whatever it holds (an image, a
 * scene, a CSV, a chart): nothing half-written is ever left where the
 * file should be, and nothing that is not a regular file is replaced.
 *
 * The target is the file that path names once symbolic links are
 * followed (every level, as open does): a link stays a link, and the file
 * it names gets the content, created if missing.
 *
 *   - A regular file, or nothing yet: the content goes to a hidden
 *     temporary in the target's folder (so the rename cannot cross file
 *     systems), renamed over the target once closed without error. A
 *     failure removes the temporary, so the old file (or none) is left.
 *     A replaced file keeps its permissions; a new one gets 0644.
 *   - Anything else that exists (/dev/null, a terminal, a FIFO): written
 *     in place, as a shell's '>' does, never replaced; a failure is
 *     reported, but what went out is gone (a FIFO's reader saw it). A
 *     FIFO waits for its reader.
 *   - A folder is refused.
 *
 * Functions return 0 or a negative code (APP_ERR_IO, APP_ERR_NO_MEMORY)
 * with a message in app_last_error() that names path.
 */
#ifndef APPS_SAVE_H
#define APPS_SAVE_H

#include <stdio.h>

/* A file being written, from save_begin to save_end. */
typedef struct save_target {
    FILE *f;                      /* where to write */
    const char *path;             /* as given, for messages */
    char *target;                 /* path with its links followed */
    char *tmp;                    /* the temporary, or NULL: in place */
} save_target;

/* Opens path for writing into t->f, as the rules above say. */
int save_begin(save_target *t, const char *path);

/* Closes t->f; when commit is non-zero and every write succeeded, puts
 * the file in place, else removes the temporary (commit 0: a caller's own
 * failure, whose message is left as it is). */
int save_end(save_target *t, int commit);

/* The file being written, for another program to write to by name
 * (gnuplot): the temporary, or the target itself. */
static inline const char *save_file_being_written(const save_target *t)
{
    return t->tmp ? t->tmp : t->target;
}

/* save_begin, write(f, ctx), save_end: the whole file from one function,
 * whose failure message is kept with path in front. */
typedef int save_write_fn(FILE *f, void *ctx);
int save_file(const char *path, save_write_fn *write, void *ctx);

#endif /* APPS_SAVE_H */
