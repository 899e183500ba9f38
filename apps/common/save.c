/*
 * save.c: every app's file output (save.h) through clframe's writer
 * (clframe/core/save.c), its codes turned into the apps' own, and
 * standard output checked at exit.
 */
#include "save.h"
#include "error.h"

#include "clframe.h"

#include <stdlib.h>
#include <unistd.h>

/* clframe's failure as the apps' code (its message is already the last
 * error of both: error.h). */
static int app_error_of(int code)
{
    return code == CLFRAME_ERR_NO_MEMORY ? APP_ERR_NO_MEMORY
         : code == CLFRAME_ERR_USAGE ? APP_ERR_USAGE : APP_ERR_IO;
}

int save_begin(save_target *t, const char *path)
{
    *t = (save_target){.path = path};
    int rc = clframe_save_begin(path, &t->save);
    if (rc != 0)
        return app_error_of(rc);
    t->f = clframe_save_stream(t->save);
    return 0;
}

int save_end(save_target *t, int commit)
{
    int rc = clframe_save_end(t->save, commit);
    *t = (save_target){.path = t->path};
    return rc ? app_error_of(rc) : 0;
}

int save_file(const char *path, save_write_fn *write, void *ctx)
{
    save_target t;
    int rc = save_begin(&t, path);
    if (rc != 0)
        return rc;
    rc = write(t.f, ctx);
    if (rc != 0) {
        /* Copied out first: the new message is written over the old. */
        char why[400];
        snprintf(why, sizeof why, "%s", app_last_error());
        app_fail(rc, "%s: %s", path, why);
    }
    int end = save_end(&t, rc == 0);
    return rc ? rc : end;
}

int save_close_stdout(const char *program)
{
    if (clframe_save_close_stdout() == 0)
        return 0;
    fprintf(stderr, "%s: %s\n", program, clframe_last_error());
    fflush(stderr);                 /* _exit follows at exit */
    return 1;
}

static const char *stdout_program;

/* At exit, after main and every handler registered later: the exit status
 * can no longer be returned, so a failure ends the process here. */
static void check_stdout(void)
{
    if (save_close_stdout(stdout_program) != 0)
        _exit(1);
}

void save_check_stdout_at_exit(const char *program)
{
    if (!stdout_program)
        atexit(check_stdout);
    stdout_program = program;
}
