/*
 * heat.c (bin/bench-heat): the heat world table of `make bench`.
 *
 * For an n x n standard world stepped `steps` times, every version of the
 * stepper (apps/heat) is timed two ways:
 *
 *   - in this process: for the OpenCL versions the sum of the kernels'
 *     event times (clkernel_set_timing), for the C versions the time of
 *     the stepping loop; the result is checked against the reference's;
 *   - as a whole process, the seed's command line
 *         make_world n 0.1 1 | PROGRAM 0.1 steps 1 > /dev/null
 *     (programs found beside this one), which includes context creation,
 *     the kernel build, moving the world through pipes and the transfers.
 *
 * Each is the median of `runs` runs, except that a version whose first run
 * takes over SLOW_S seconds runs once (the table says how many ran). The
 * ratios are to the reference and to OpenMP measured in the same run.
 * Effective bandwidth counts what one step must move at least, 12 bytes per
 * cell (read a temperature and a flags word, write a temperature), against
 * the device's bandwidth measured here by a float4 copy kernel: the time
 * that gives for all the steps is the "single-step bandwidth bound", which
 * only a version doing several steps per memory pass (v6, v7) can beat.
 *
 * usage: bench-heat [n=1000] [steps=100] [runs=5] [versions=all]
 * versions is a comma-separated list (v5,v6) for tuning runs; without the
 * reference, outputs are not checked and ratios to it are not shown.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "clframe.h"
#include "heat/heat.h"
#include "common/bandwidth.h"
#include "median.h"
#include "common/clock.h"
#include "common/error.h"
#include "common/parse.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { MAX_RUNS = 101, BYTES_PER_CELL_STEP = 12 };
static const double SLOW_S = 5.0;

typedef struct row {
    const char *what;           /* version name, or "I/O only" */
    double step_ms;             /* in process: kernels, or the C loop */
    int step_runs;
    double process_s;           /* whole process */
    int process_runs;
    int ok;                     /* output equal to the reference's */
} row;

/* Steps copies of start `runs` times with v; r->step_ms is the median time
 * and r->ok says whether the result equals want (or, with want NULL, is
 * kept in `result` as the reference). 0 or a code. */
static int time_in_process(const heat_world *start, unsigned steps,
                           heat_version v, int runs, const heat_world *want,
                           heat_world *result, row *r)
{
    double ms[MAX_RUNS];
    int opencl = app_version_uses_opencl(&heat_versions, v);
    r->ok = 1;
    r->step_runs = 0;
    /* OpenCL: a warm-up run of one step first builds the kernels. */
    for (int i = -opencl; i < runs; i++) {
        heat_world w;
        int rc = heat_world_copy(&w, start);
        app_timing stats = {.want_kernel_time = opencl};
        double t0 = clock_seconds();
        if (rc == 0)
            rc = heat_step(&w, 0.1f, i < 0 ? 1 : steps, v, NULL, &stats);
        double t = clock_seconds() - t0;
        if (rc) {
            heat_world_free(&w);
            return rc;
        }
        if (want && i >= 0)
            r->ok &= memcmp(w.state, want->state, (size_t)w.w * w.h * 4) == 0;
        if (i >= 0)
            ms[r->step_runs++] = opencl ? stats.kernel_ms : t * 1e3;
        int last = i == runs - 1 || (i >= 0 && t > SLOW_S);
        if (result && last)
            *result = w;                /* the reference's answer */
        else
            heat_world_free(&w);
        if (last)
            break;
    }
    r->step_ms = median_of(ms, r->step_runs);
    return 0;
}

/* Whole-process time of `make_world n 0.1 1 | program 0.1 steps 1`. */
static int time_process(const char *bindir, unsigned n, unsigned steps,
                        const char *program, int runs, row *r)
{
    char command[3 * PATH_MAX];
    snprintf(command, sizeof command, "%s/make_world %u 0.1 1 | %s/%s 0.1 %u "
             "1 > /dev/null", bindir, n, bindir, program, steps);
    double s[MAX_RUNS];
    r->process_runs = 0;
    for (int i = 0; i < runs; i++) {
        double t0 = clock_seconds();
        int status = system(command);
        double t = clock_seconds() - t0;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            return app_fail(APP_ERR_IO, "bench-heat: `%s` failed",
                            command);
        s[r->process_runs++] = t;
        if (t > SLOW_S)
            break;
    }
    r->process_s = median_of(s, r->process_runs);
    return 0;
}

/* "1.23", or "-" when the row compared with was not measured. */
static const char *ratio(double base, double x, char *buf)
{
    if (base > 0 && x > 0)
        snprintf(buf, 32, "%.2f", base / x);
    else
        snprintf(buf, 32, "-");
    return buf;
}

static void print_row(const row *r, const row *ref, const row *omp,
                      double cell_steps, double device_gbs)
{
    char a[32], b[32];
    if (!r->what)
        return;                             /* not selected */
    printf("| %s |", r->what);
    if (r->step_runs) {
        double gbs = BYTES_PER_CELL_STEP * cell_steps / (r->step_ms * 1e6);
        printf(" %.1f (%d) | %s | %s | %.1f | %.0f%% |", r->step_ms,
               r->step_runs, ratio(ref->step_ms, r->step_ms, a),
               ratio(omp->step_ms, r->step_ms, b), gbs,
               100 * gbs / device_gbs);
    } else {
        printf(" | | | | |");
    }
    printf(" %.3f (%d) | %s | %s | %s |\n", r->process_s, r->process_runs,
           ratio(ref->process_s, r->process_s, a),
           ratio(omp->process_s, r->process_s, b),
           !r->step_runs || !ref->step_runs ? "" : r->ok ? "yes" : "NO");
}

/* The folder this program lives in, where make_world and the steppers are. */
static int own_folder(char *out, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", out, size - 1);
    if (n <= 0)
        return app_fail(APP_ERR_IO, "bench-heat: cannot find its own "
                        "path: %s", strerror(errno));
    out[n] = '\0';
    *strrchr(out, '/') = '\0';
    return 0;
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1000;
    unsigned steps = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 100;
    int runs = argc > 3 ? atoi(argv[3]) : 5;
    int selected[HEAT_VERSION_COUNT];
    int bad_list = app_versions_select(&heat_versions,
                                       argc > 4 ? argv[4] : NULL, selected);
    if (n < 3 || n > 40000 || steps < 1 || runs < 1 || runs > MAX_RUNS ||
        argc > 5 || bad_list) {
        if (bad_list)
            fprintf(stderr, "bench-heat: %s\n", app_last_error());
        fprintf(stderr, "usage: bench-heat [n=1000 (3..40000)] [steps=100] "
                "[runs=5 (1..%d)] [versions=all: reference,openmp,v3,...]\n",
                MAX_RUNS);
        return 2;
    }
    char bindir[PATH_MAX];
    heat_world start, want;
    row rows[HEAT_VERSION_COUNT + 1] = {{0}};
    row *io = &rows[HEAT_VERSION_COUNT];
    io->what = "I/O only (0 steps)";
    int rc = own_folder(bindir, sizeof bindir);
    if (rc == 0)
        rc = heat_world_make_standard(&start, n, 0.1f);

    /* Whole processes first, while this one holds no context: a GPU in
     * exclusive-process mode (as on the GPU machine) is then free for them. */
    for (int v = 0; v < HEAT_VERSION_COUNT && rc == 0; v++)
        if (selected[v])
            rc = time_process(bindir, n, steps, heat_versions.list[v].alias, runs,
                              &rows[v]);
    if (rc == 0)
        rc = time_process(bindir, n, 0, "step_world", runs, io);
    clctx *ctx = rc == 0 ? clctx_default() : NULL;
    if (!ctx) {
        fprintf(stderr, "bench-heat: %s\n", app_last_error());
        return 1;
    }
    /* Big enough that the last-level cache (50 MB on an H100) cannot help. */
    size_t state_bytes = (size_t)n * n * sizeof(float);
    size_t copy_bytes = state_bytes < (256u << 20) ? (256u << 20)
                      : state_bytes > (1024u << 20) ? (1024u << 20)
                      : state_bytes;
    double device_gbs = bench_copy_bandwidth(copy_bytes, runs < 5 ? 5 : runs,
                                             "bench-heat");
    if (device_gbs <= 0)
        return 1;                   /* bench_copy_bandwidth said why */
    int checked = selected[HEAT_REFERENCE];
    for (int v = 0; v < HEAT_VERSION_COUNT && rc == 0; v++) {
        if (!selected[v])
            continue;
        rows[v].what = app_version_name(&heat_versions, v);
        rc = time_in_process(&start, steps, v, runs,
                             v && checked ? &want : NULL,
                             v ? NULL : &want, &rows[v]);
    }
    if (rc) {
        fprintf(stderr, "bench-heat: %s\n", app_last_error());
        return 1;
    }

    printf("heat world %u x %u, %u steps of dt 0.1; median of up to %d runs "
           "(a run over %.0f s is not repeated)\n", n, n, steps, runs, SLOW_S);
    printf("device: %s\n", clctx_describe(ctx));
    printf("OpenMP threads: %d\n", heat_openmp_threads());
    printf("device bandwidth (float4 copy of %zu MB, events): %.1f GB/s; "
           "single-step bound for %u steps: %.1f ms\n\n", copy_bytes >> 20,
           device_gbs, steps, BYTES_PER_CELL_STEP * (double)n * n * steps /
           (device_gbs * 1e6));
    printf("| version | in-process ms (runs) | x ref | x OpenMP | eff. GB/s "
           "| of device | whole process s (runs) | x ref | x OpenMP | "
           "equal to ref |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|:---:|\n");
    double cell_steps = (double)n * n * steps;
    for (int v = 0; v <= HEAT_VERSION_COUNT; v++)
        print_row(&rows[v], &rows[HEAT_REFERENCE], &rows[HEAT_OPENMP],
                  cell_steps, device_gbs);
    printf("\nin-process ms: the kernels' event times for v3-v7, the loop's "
           "time for the C versions; eff. GB/s: %d bytes per cell and step "
           "over that time.\n", BYTES_PER_CELL_STEP);
    heat_world_free(&start);
    if (checked)
        heat_world_free(&want);
    return 0;
}
