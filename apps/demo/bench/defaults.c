/*
 * defaults.c (bin/bench-defaults): the table of defaults of `make bench`.
 * Every app's demo workload on its benchmark input (demo.h, DEMO_BENCH),
 * run by the app's default version on this device (a GPU's, or a CPU
 * device's: common/versions.h) and, in the same run, by its one-core C
 * reference and its OpenMP version; each time the median of `runs` runs,
 * each run's output checked against the reference as the demo checks it.
 *
 * usage: bench-defaults [runs=3]
 */
#include "clframe.h"
#include "common/error.h"
#include "median.h"
#include "common/parse.h"
#include "demo/demo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_RUNS = 21 };

/* The medians of a workload's runs, and whether every run was right. */
typedef struct row {
    demo_result last;
    double device_ms, ref_ms, omp_ms;
    int ok;
} row;

/* `runs` runs of workload w; 0, or the code of a run that failed. */
static int measure(const demo_workload *w, int runs, row *out)
{
    double device[MAX_RUNS], ref[MAX_RUNS], omp[MAX_RUNS];
    out->ok = 1;
    for (int i = 0; i < runs; i++) {
        demo_result r;
        memset(&r, 0, sizeof r);
        r.omp_ms = -1;
        int rc = w->run(&r, DEMO_BENCH);
        if (rc) {
            fprintf(stderr, "bench-defaults: %s: %s\n", w->name,
                    r.error ? r.error : "failed");
            free(r.error);
            return rc;
        }
        device[i] = r.call_ms;
        ref[i] = r.ref_ms;
        omp[i] = r.omp_ms;
        out->ok &= r.ok;
        out->last = r;
    }
    out->device_ms = median_of(device, runs);
    out->ref_ms = median_of(ref, runs);
    out->omp_ms = out->last.omp_ms < 0 ? -1 : median_of(omp, runs);
    return 0;
}

static void print_row(const demo_workload *w, const row *r)
{
    printf("| %s | %s | %s | %.1f | %.1f |", w->name, r->last.size,
           r->last.version, r->device_ms, r->ref_ms);
    if (r->omp_ms < 0)
        printf(" - |");
    else
        printf(" %.1f |", r->omp_ms);
    printf(" %.2fx |", r->ref_ms / r->device_ms);
    if (r->omp_ms < 0)
        printf(" - |");
    else
        printf(" %.2fx |", r->omp_ms / r->device_ms);
    printf(" %s |\n", r->ok ? "yes" : r->last.verdict);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    unsigned long runs = 3;
    if (argc > 2 || (argc == 2 && !parse_uint(argv[1], 1, MAX_RUNS, &runs))) {
        fprintf(stderr, "usage: bench-defaults [runs=3] (1 to %d)\n",
                MAX_RUNS);
        return 2;
    }
    clctx *ctx = clctx_default();
    if (!ctx) {
        fprintf(stderr, "bench-defaults: %s\n", app_last_error());
        return 1;
    }
    printf("Every app's default version on %s, against its one-core C "
           "reference and its OpenMP version; ms, median of %lu runs "
           "(default: the device's whole run with its copies, the second "
           "of two)\n\n", clctx_describe(ctx), runs);
    printf("| app | size | default | default ms | reference ms | OpenMP ms "
           "| x reference | x OpenMP | output = reference |\n"
           "|---|---|---|---:|---:|---:|---:|---:|:---:|\n");
    int failed = 0;
    for (int i = 0; i < DEMO_WORKLOADS; i++) {
        const demo_workload *w = &demo_workloads[i];
        row r;
        if (!w->bench)
            continue;
        if (measure(w, (int)runs, &r))
            return 1;
        print_row(w, &r);
        failed += !r.ok;
    }
    return failed ? 1 : 0;
}
