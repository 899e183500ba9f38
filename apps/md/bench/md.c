/*
 * md.c (bin/bench-md): the molecular-dynamics table of `make bench`.
 *
 * For each number of particles N, the standard start (md.h) is stepped by
 * every version: particle-steps per second and nanoseconds per
 * particle-step over `steps` steps (wall time, the device's queue finished
 * before and after), the median of `runs` runs. Each run continues the
 * last: the first 3 steps are the warm-up, after which a device version's
 * state is checked against the host's (the reference up to ref_cap, the
 * host cell list beyond) within test_md.c's tolerances, so that a wrong
 * kernel cannot post a figure. The host all-pairs reference runs up to
 * ref_cap particles, the host cell list up to host_cap and the device's
 * all pairs up to allpairs_cap (O(N^2)). "x host" is the ratio to the host
 * cell list at the same N, or at the largest N it ran (marked *): its
 * rate per particle does not depend on N.
 *
 * The last four columns say where a device step's time goes: each
 * kernel's event time over `steps` further steps, in ms per step (the
 * scan and scatter rebuild the cell list; kick-drift bins too).
 *
 * Writes bench/out/md.csv (N, version, particle-steps/s, ns per
 * particle-step) and, where gnuplot is installed, bench/out/md.png.
 *
 * usage: bench-md [sizes=1000,4000,16000] [steps=10] [runs=3]
 *                 [ref_cap=2000] [host_cap=16000] [allpairs_cap=16000]
 */
#include "clframe.h"
#include "common/clock.h"
#include "median.h"
#include "common/parse.h"
#include "md/md.h"
#include "common/error.h"
#include "common/save.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

enum { MAX_RUNS = 21, MAX_SIZES = 32, CHECK_STEPS = 3 };
/* test_md.c's tolerances. */
static const double POS_TOL = 1e-4, VEL_TOL = 1e-3;
static const char CSV[] = "bench/out/md.csv", PNG[] = "bench/out/md.png";

typedef struct caps {
    unsigned long ref, host, allpairs;
} caps;

static int runs_at(md_version v, uint32_t n, const caps *cap)
{
    unsigned long limit = v == MD_REFERENCE ? cap->ref
                        : v == MD_CELLS_HOST ? cap->host
                        : v == MD_ALLPAIRS ? cap->allpairs : MD_MAX_PARTICLES;
    return n <= limit && n >= md_min_particles(v) && n <= md_max_particles(v);
}

/* got within the tolerances of want. */
static int agrees(const md_system *got, const md_system *want)
{
    for (size_t i = 0; i < 3 * (size_t)want->n; i++)
        if (!(fabs(md_min_image(got->pos[i] - want->pos[i], want->box)) <=
                  POS_TOL &&
              fabs(got->vel[i] - want->vel[i]) <= VEL_TOL))
            return 0;
    return 1;
}

/* The host's state after CHECK_STEPS steps from start, into truth. */
static int host_truth(const md_system *start, const caps *cap,
                      md_system *truth)
{
    int rc = md_system_copy(truth, start);
    md_version v = start->n <= cap->ref ? MD_REFERENCE : MD_CELLS_HOST;
    return rc ? rc : md_run(truth, CHECK_STEPS, v, NULL, NULL, NULL, NULL);
}

/* Version v from start: the median seconds of `runs` runs of `steps`
 * steps in *seconds, *ok whether it agreed with truth after the
 * warm-up, and for a device version, *phase: where the time of `steps`
 * more steps went, each kernel timed by its event (ms per step). */
static int time_version(const md_system *start, md_version v,
                        unsigned steps, int runs, const md_system *truth,
                        double *seconds, int *ok, md_phase_ms *phase)
{
    md_sim *sim;
    md_system now;
    double t[MAX_RUNS];
    int rc = md_system_copy(&now, start);
    if (rc)
        return rc;
    rc = md_sim_open(&sim, start, v, NULL);
    if (rc == 0)
        rc = md_sim_step(sim, CHECK_STEPS);
    if (rc == 0)
        rc = md_sim_read(sim, &now);
    *ok = rc == 0 && agrees(&now, truth);
    for (int i = 0; i < runs && rc == 0; i++) {
        rc = md_sim_finish(sim);
        double t0 = clock_seconds();
        if (rc == 0)
            rc = md_sim_step(sim, steps);
        if (rc == 0)
            rc = md_sim_finish(sim);
        t[i] = clock_seconds() - t0;
    }
    if (rc == 0)
        *seconds = median_of(t, runs);
    if (rc == 0 && app_version_uses_opencl(&md_versions, v)) {
        rc = md_sim_profile(sim, steps, phase);
        phase->kick_drift /= steps;
        phase->scan /= steps;
        phase->scatter /= steps;
        phase->forces /= steps;
    }
    md_sim_close(sim);
    md_system_free(&now);
    return rc;
}

/* One block of the table, and its CSV lines. */
static int bench_size(uint32_t n, unsigned steps, int runs, const caps *cap,
                      FILE *csv, double *host_rate, uint32_t *host_n)
{
    md_system start, truth = {0};
    int rc = md_system_init(&start, n, 1);
    if (rc == 0)
        rc = host_truth(&start, cap, &truth);
    for (int v = MD_CELLS_HOST; v < MD_VERSION_COUNT + 1 && rc == 0; v++) {
        md_version version = v == MD_VERSION_COUNT ? MD_REFERENCE
                                                   : (md_version)v;
        if (!runs_at(version, n, cap))
            continue;
        double s;
        int ok;
        md_phase_ms ms = {0};
        rc = time_version(&start, version, steps, runs, &truth, &s, &ok,
                          &ms);
        if (rc)
            break;
        double rate = (double)n * steps / s;
        if (version == MD_CELLS_HOST) {
            *host_rate = rate;
            *host_n = n;
        }
        char ratio[32] = "-";           /* the host list never ran */
        if (*host_rate > 0)
            snprintf(ratio, sizeof ratio, "%.2f%s", rate / *host_rate,
                     *host_n == n ? "" : "*");
        char phases[96] = "- | - | - | -";  /* a host version */
        if (app_version_uses_opencl(&md_versions, version))
            snprintf(phases, sizeof phases, "%.4f | %.4f | %.4f | %.4f",
                     ms.kick_drift, ms.scan, ms.scatter, ms.forces);
        printf("| %u | %s | %.4g | %.1f | %s | %s | %s |\n", n,
               app_version_name(&md_versions, version), rate, 1e9 / rate, ratio,
               ok ? "yes" : "NO", phases);
        fprintf(csv, "%u,%s,%.6g,%.6g\n", n, app_version_name(&md_versions, version), rate,
                1e9 / rate);
        fflush(stdout);
    }
    md_system_free(&start);
    md_system_free(&truth);
    return rc;
}

int main(int argc, char **argv)
{
    unsigned long sizes[MAX_SIZES] = {1000, 4000, 16000};
    unsigned long steps = 10, runs = 3;
    caps cap = {2000, 16000, 16000};
    int nsizes = 3;
    if ((argc > 1 && !(nsizes = parse_uint_list("sizes", argv[1], 106,
                                                MD_MAX_PARTICLES, sizes,
                                                MAX_SIZES))) ||
        (argc > 2 && !parse_uint(argv[2], 1, 1000000, &steps)) ||
        (argc > 3 && !parse_uint(argv[3], 1, MAX_RUNS, &runs)) ||
        (argc > 4 && !parse_uint(argv[4], 0, MD_MAX_PARTICLES, &cap.ref)) ||
        (argc > 5 && !parse_uint(argv[5], 0, MD_MAX_PARTICLES, &cap.host)) ||
        (argc > 6 && !parse_uint(argv[6], 0, MD_MAX_PARTICLES,
                                 &cap.allpairs)) ||
        argc > 7) {
        if (nsizes == 0)
            fprintf(stderr, "bench-md: %s\n", app_last_error());
        fprintf(stderr, "usage: bench-md [sizes=1000,4000,16000 (each 106.."
                "%u)] [steps=10] [runs=3 (1..%d)] [ref_cap=2000] "
                "[host_cap=16000] [allpairs_cap=16000]\n", MD_MAX_PARTICLES,
                MAX_RUNS);
        return 2;
    }
    clctx *ctx = clctx_default();
    if (!ctx) {
        fprintf(stderr, "bench-md: %s\n", app_last_error());
        return 1;
    }
    mkdir("bench/out", 0777);
    save_target out;
    if (save_begin(&out, CSV) != 0) {
        fprintf(stderr, "bench-md: %s\n", app_last_error());
        return 1;
    }
    FILE *csv = out.f;
    fprintf(csv, "n,version,particle_steps_per_s,ns_per_particle_step\n");
    printf("Lennard-Jones MD (density %g, T0 %g, cut-off %g, dt %g), %lu "
           "steps after %d of warm-up; median of %lu runs\n", MD_DENSITY,
           MD_TEMPERATURE, (double)MD_CUTOFF, MD_DT, steps, CHECK_STEPS,
           runs);
    printf("device: %s\nOpenMP threads (cells-host): %d; caps: reference "
           "%lu, cells-host %lu, allpairs %lu particles\n\n",
           clctx_describe(ctx), md_openmp_threads(), cap.ref, cap.host,
           cap.allpairs);
    printf("| N | version | particle-steps/s | ns per particle-step | "
           "x host | agrees with host | ms/step: kick-drift | scan | "
           "scatter | forces |\n|---:|---|---:|---:|---:|:---:|---:|---:|"
           "---:|---:|\n");
    double host_rate = 0.0;
    uint32_t host_n = 0;
    for (int i = 0; i < nsizes; i++)
        if (bench_size((uint32_t)sizes[i], (unsigned)steps, (int)runs, &cap,
                       csv, &host_rate, &host_n)) {
            fprintf(stderr, "bench-md: %s\n", app_last_error());
            save_end(&out, 0);
            return 1;
        }
    if (save_end(&out, 1) != 0) {
        fprintf(stderr, "bench-md: %s\n", app_last_error());
        return 1;
    }
    if (host_n > 0)
        printf("\nx host: the ratio to cells-host (OpenMP) at the same N, "
               "or (*) at N = %u, the largest it ran.", host_n);
    printf("\nWrote %s\n", CSV);
    if (md_plot_rates(CSV, PNG) == 0)
        printf("plotted %s\n", PNG);
    else
        printf("no plot: %s\n", app_last_error());
    return 0;
}
