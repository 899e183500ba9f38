/*
 * clframe-demo.c (bin/clframe-demo): a table of small workloads run through
 * clframe on the default device, each checked against plain C in the same
 * process.
 *
 * It is both a smoke test for a new machine (does every row say "ok"?) and
 * the shortest tour of the API: each demo_*.c file is one kernel called like
 * a function. To add a row, write a demo_run_fn (see demo.h) in its own file
 * and name it in workloads.c.
 */
#include "demo/demo.h"
#include "common/error.h"
#include "common/save.h"

#include "clframe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_header(clctx *ctx)
{
    printf("clframe-demo on %s\n", clctx_device_name(ctx));
    printf("(times in ms: kernel from its profiling event, call = host wall "
           "time of clkernel_call\n with its copies; the second of %d calls, "
           "the first warms up)\n\n", DEMO_CALLS);
    printf("%-15s %-21s %-10s %10s %10s %10s %10s\n", "name", "size",
           "result", "kernel", "call", "C ref", "OpenMP");
}

static void print_row(const char *app, const demo_result *r)
{
    char name[40];
    snprintf(name, sizeof name, "%.20s%s%.15s", app, r->version[0] ? " " : "",
             r->version);
    char kernel[16] = "-", call[16] = "-", omp[16] = "-";
    if (!r->error && r->kernel_ms >= 0)
        snprintf(kernel, sizeof kernel, "%.3f", r->kernel_ms);
    if (!r->error)
        snprintf(call, sizeof call, "%.3f", r->call_ms);
    if (r->omp_ms >= 0)
        snprintf(omp, sizeof omp, "%.3f", r->omp_ms);
    printf("%-15s %-21s %-10s %10s %10s %10.3f %10s\n", name, r->size,
           r->verdict, kernel, call, r->ref_ms, omp);
}

int main(void)
{
    save_check_stdout_at_exit("clframe-demo");
    clctx *ctx = clctx_default();
    if (!ctx) {
        fprintf(stderr, "clframe-demo: %s\n", app_last_error());
        return 1;
    }
    print_header(ctx);
    demo_result results[DEMO_WORKLOADS];
    memset(results, 0, sizeof results);
    int failures = 0;
    for (int i = 0; i < DEMO_WORKLOADS; i++) {
        results[i].omp_ms = -1;
        demo_workloads[i].run(&results[i], DEMO_SMALL);
        print_row(demo_workloads[i].name, &results[i]);
        failures += !results[i].ok;
    }
    for (int i = 0; i < DEMO_WORKLOADS; i++)
        if (results[i].note[0])
            printf("\n%s\n", results[i].note);
    for (int i = 0; i < DEMO_WORKLOADS; i++) {
        if (results[i].error)
            fprintf(stderr, "\nclframe-demo: %s\n", results[i].error);
        free(results[i].error);
    }
    if (failures)
        fprintf(stderr, "\nclframe-demo: %d of %d rows failed\n", failures,
                DEMO_WORKLOADS);
    return failures ? 1 : 0;
}
