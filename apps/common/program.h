/*
 * program.h: what every program of the apps does alike: its usage (with
 * the app's versions listed from their table), --help (the usage on
 * stdout, exit status 0), a bad argument (a message and the usage on
 * stderr, exit status 2), a failure (a message, exit status 1), and the
 * device that --device names. A program's main:
 *
 *     options o;
 *     int status = app_start(&program, parse_options(argc, argv, &o));
 *     if (status >= 0)
 *         return status;
 *     ... run, and on a failure: return app_failed(&program);
 */
#ifndef APPS_PROGRAM_H
#define APPS_PROGRAM_H

#include "versions.h"

#include <stdio.h>

typedef struct app_program {
    const char *name;               /* "blur": the start of its messages */
    const char *usage;              /* a printf format: %s, if there, is
                                       the versions' names */
    const app_versions *versions;   /* NULL for a program without them */
} app_program;

/* Prints the usage to f. */
void app_usage(const app_program *p, FILE *f);

/* A bad argument: "NAME: " and fmt (with its one string), then the usage,
 * on stderr; returns 2, the exit status for it. */
int app_usage_error(const app_program *p, const char *fmt, const char *arg);

/* --version's value: *v, and 0; or 2 after the message "--version "X":
 * expected reference, openmp ... or fast". */
int app_version_option(const app_program *p, const char *text, int *v);

/* The start of main, given what the option parser returned (0: go on,
 * -1: --help, else the exit status of a bad argument): makes the exit check
 * standard output (save_check_stdout_at_exit: what was written there and
 * lost is a failure, exit status 1), prints the usage on stdout for
 * --help, and returns -1 to go on, else the exit status. */
int app_start(const app_program *p, int parsed);

/* -1 if an argument is -h or --help, else 0: the option parser of a
 * program whose arguments are positional. */
int app_asks_help(int argc, char **argv);

/* "NAME: " and the message made from fmt on stderr; returns status. */
int app_message(const app_program *p, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A failure: "NAME: " and app_last_error() on stderr; returns 1. */
int app_failed(const app_program *p);

/* The context a device version runs on: a new one for --device WHERE
 * (also in *own, for the caller's clctx_free), else clframe's default
 * (*own NULL). NULL after app_failed's message when none opens. In
 * device.c: it links clframe. */
typedef struct clctx clctx;
clctx *app_open_device(const app_program *p, const char *where,
                       clctx **own);

/* The compute units of ctx's device, 1 if it does not say: how many parts
 * the versions shaped for a CPU device cut their
 * work into, so that every core gets some. In device.c. */
unsigned app_compute_units(clctx *ctx);

#endif /* APPS_PROGRAM_H */
