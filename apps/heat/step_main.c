/*
 * step_main.c: the command line every step_world program shares,
 *
 *     PROGRAM [dt=0.1] [steps=1] [binary=0]  < world  > stepped world
 *
 * as in the seed. The world is read whole, stepped, and only then written,
 * so a bad world or a failed device run never produces partial output. A
 * version that runs on a device opens it while the world is read, so that
 * the two waits overlap.
 */
#include "heat.h"
#include "common/parse.h"
#include "common/error.h"
#include "common/program.h"
#include "clframe.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>

void heat_step_usage(char *usage, size_t size, const char *name)
{
    snprintf(usage, size, "usage: %s [dt=0.1] [steps=1] [binary=0] "
             "< world > world\nReads a heat world (text or binary) on stdin, "
             "advances it by `steps` steps of\nsize dt and writes it to "
             "stdout, in binary if the third argument is 1.\n", name);
}

int heat_step_parse(const app_program *program, int argc, char **argv,
                    heat_step_args *args)
{
    int status = app_start(program, app_asks_help(argc, argv));
    if (status >= 0)
        return status;
    unsigned long steps = 1, binary = 0;
    args->dt = 0.1f;
    if (argc > 4)
        return app_usage_error(program, "%s", "too many arguments");
    if (argc > 1 && !parse_float(argv[1], &args->dt))
        return app_message(program, 2, "dt \"%s\" is not a number",
                           argv[1]);
    if (argc > 2 && !parse_uint(argv[2], 0, UINT_MAX, &steps))
        return app_message(program, 2, "steps \"%s\" is not a count (0, "
                           "1, 2, ...)", argv[2]);
    if (argc > 3 && !parse_uint(argv[3], 0, 1, &binary))
        return app_message(program, 2, "binary \"%s\" must be 0 or 1",
                           argv[3]);
    args->steps = (unsigned)steps;
    args->binary = (int)binary;
    return -1;
}

int heat_step_save(const heat_world *world, int binary)
{
    int rc = heat_world_save(world, stdout, binary);
    if (rc == 0 && fflush(stdout) != 0)
        rc = app_fail(APP_ERR_IO, "writing to stdout: %s", strerror(errno));
    return rc;
}

/* A world read on a thread of its own, with its loader's error message:
 * messages are per thread (clframe_last_error). */
typedef struct world_reading {
    heat_world world;
    int rc;
    char error[4096];
} world_reading;

static void *read_world(void *arg)
{
    world_reading *r = arg;
    r->rc = heat_world_load_whole(&r->world, stdin, "<stdin>");
    if (r->rc)
        snprintf(r->error, sizeof r->error, "%s", app_last_error());
    return NULL;
}

/* Reads the world from stdin into r; for a version that runs on a device,
 * on another thread while this one opens the device (clframe's default,
 * which the step then uses), so that the two waits overlap. The device is
 * opened here, not on the other thread: under ASan, a thread that opened
 * PoCL fails as it exits (ASan cannot unmap the signal stack the thread
 * then has). A failed opening is reported again by the step, which
 * retries it. */
static void read_while_opening(world_reading *r, int uses_device)
{
    pthread_t reader;
    if (!uses_device || pthread_create(&reader, NULL, read_world, r) != 0) {
        read_world(r);
        return;
    }
    clctx_default();
    pthread_join(reader, NULL);
    if (r->rc)
        app_fail(r->rc, "%s", r->error);
}

int heat_step_main(int argc, char **argv, heat_version v)
{
    const char *name = heat_versions.list[v].alias;
    char usage[512];
    heat_step_usage(usage, sizeof usage, name);
    const app_program program = {name, usage, NULL};
    heat_step_args args;
    int status = heat_step_parse(&program, argc, argv, &args);
    if (status >= 0)
        return status;

    world_reading r = {0};
    read_while_opening(&r, app_version_uses_opencl(&heat_versions, v));
    heat_world world = r.world;
    int rc = r.rc;
    if (rc == 0)
        rc = heat_step(&world, args.dt, args.steps, v, NULL, NULL);
    if (rc == 0)
        rc = heat_step_save(&world, args.binary);
    heat_world_free(&world);
    return rc ? app_failed(&program) : 0;
}
