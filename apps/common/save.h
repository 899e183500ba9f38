/*
 * save.h: how every app writes a file, whatever it holds (an image, a
 * scene, a CSV, a chart), and checks its standard output: clframe's
 * writer (clframe.h, "Files written whole"), the one copy the library's
 * tools use too, with the apps' error codes. In short: nothing
 * half-written is ever left where the file should be (a regular file is
 * written beside its target and renamed over it once complete), links are
 * followed and stay links, anything else that exists (/dev/null, a FIFO)
 * is written in place and never replaced, a folder is refused, and
 * permissions are as a shell's '>' leaves them (a file the user may not
 * write is refused, a new one gets 0666 less the umask, a replaced one
 * keeps its mode).
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
    struct clframe_save *save;    /* clframe's writer */
} save_target;

/* Opens path for writing into t->f, as the rules above say. */
int save_begin(save_target *t, const char *path);

/* Closes t->f; when commit is non-zero and every write succeeded, puts
 * the file in place, else removes the temporary (commit 0: a caller's own
 * failure, whose message is left as it is). */
int save_end(save_target *t, int commit);

/* save_begin, write(f, ctx), save_end: the whole file from one function,
 * whose failure message is kept with path in front. */
typedef int save_write_fn(FILE *f, void *ctx);
int save_file(const char *path, save_write_fn *write, void *ctx);

/* Flushes and closes standard output, where programs write their results
 * (a CSV, a table, a world): 0, or 1 (an exit status) after "PROGRAM:
 * standard output: writing failed: ..." on stderr when anything written
 * there was lost (a full disk, "prog > /dev/full"). */
int save_close_stdout(const char *program);

/* Makes the program's exit run save_close_stdout, whichever way main
 * ended, and exit with status 1 when it fails. app_start calls it; call
 * it once early in a main that does not. */
void save_check_stdout_at_exit(const char *program);

#endif /* APPS_SAVE_H */
