/*
 * md.c (bin/bench-cuda-md): apps/md's two cell-list device versions,
 * particle and cell, on clframe's OpenCL against their CUDA twins
 * (md.cu, md_kernels.cuh), side by side on the same GPU.
 *
 * For each number of particles N, the standard start (md_system_init,
 * seed 1) is stepped by each side as bench-md does: 3 warm-up steps,
 * after which the state is checked against the host's (the double
 * all-pairs reference up to ref_cap particles, the host cell list beyond,
 * at any N) within the app's tolerances; a run of `steps` steps more to
 * warm up; then `runs` runs of `steps` steps, each timed as the sum of
 * every kernel a step runs (kick-drift with binning, the scan's one or
 * three launches, the scatter, the forces): on OpenCL by the kernels'
 * profiling events (md_sim_profile), on CUDA by a pair of events around
 * each launch. The table gives the median run in ms per step. After the
 * last run, the twin's total energy must be within the tests' drift bound
 * (relative to the start's) of the OpenCL version's: their trajectories
 * part by chaos, but velocity-Verlet's energy error is the state point's,
 * and a wrong step would move it far more.
 *
 * usage: bench-cuda-md [sizes=1000,4000,16000] [steps=10] [runs=3]
 *                      [ref_cap=2000]
 */
#include "clframe.h"
#include "common/error.h"
#include "median.h"
#include "common/parse.h"
#include "device.h"
#include "md.h"
#include "md/md.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAX_RUNS = 21, MAX_SIZES = 32, CHECK_STEPS = 3 };
/* apps/md/tests/md.c's tolerances (bench-md checks with the same): a
 * position and a velocity component against the host's after the warm-up
 * steps; a total energy's, relative to the start's. The energy bound is
 * not held against the start here: from the lattice, the drift after 403
 * steps at N = 1000 is 2.5e-4 in double on the host too (bin/md
 * --version cells-host), while the particle version's differed from the
 * host's by 3e-6 of the start's. */
static const double POS_TOL = 1e-4, VEL_TOL = 1e-3, DRIFT_BOUND = 1e-4;

/* One side's figures for one N and version. */
typedef struct side {
    int ran;                /* 0: not run (no CUDA device) */
    int agrees;             /* within the tolerances after the warm-up */
    double e_start, e_end;  /* total energy at the start, after all steps */
    double total_ms;        /* the median run's kernel time, per step */
    double forces_ms;       /* the median of the force kernels', per step */
} side;

/* The kernel times of one run (ms for its steps): each phase's sum. */
typedef struct run_ms {
    double kick_drift, scan, scatter, forces;
} run_ms;

static double run_total(const run_ms *r)
{
    return r->kick_drift + r->scan + r->scatter + r->forces;
}

/* got within the tolerances of want: bench-md's rule. */
static int agrees(const md_system *got, const md_system *want)
{
    for (size_t i = 0; i < 3 * (size_t)want->n; i++)
        if (!(fabs(md_min_image(got->pos[i] - want->pos[i], want->box)) <=
                  POS_TOL &&
              fabs(got->vel[i] - want->vel[i]) <= VEL_TOL))
            return 0;
    return 1;
}

/* The total energy of s with each particle's potential energy pe, summed
 * in double as md_sim_energy does. */
static double total_energy(const md_system *s, const double *pe)
{
    double e = 0.0;
    for (size_t i = 0; i < 3 * (size_t)s->n; i++)
        e += 0.5 * s->vel[i] * s->vel[i];
    for (size_t i = 0; i < s->n; i++)
        e += pe[i];
    return e;
}

/* The medians of `runs` runs' times into *out, per step. */
static void medians(run_ms *t, int runs, unsigned steps, side *out)
{
    double total[MAX_RUNS], forces[MAX_RUNS];
    for (int i = 0; i < runs; i++) {
        total[i] = run_total(&t[i]);
        forces[i] = t[i].forces;
    }
    out->total_ms = median_of(total, runs) / steps;
    out->forces_ms = median_of(forces, runs) / steps;
}

/* The host's state after CHECK_STEPS steps from start, into truth. */
static int host_truth(const md_system *start, unsigned long ref_cap,
                      md_system *truth)
{
    int rc = md_system_copy(truth, start);
    md_version v = start->n <= ref_cap ? MD_REFERENCE : MD_CELLS_HOST;
    return rc ? rc : md_run(truth, CHECK_STEPS, v, NULL, NULL, NULL, NULL);
}

/* ---- the OpenCL side: apps/md's own version ----------------------------- */

static int opencl_energy(md_sim *sim, double *e)
{
    md_energy en;
    int rc = md_sim_energy(sim, &en);
    *e = md_energy_total(&en);
    return rc;
}

static int opencl_side(const md_system *start, md_version v, unsigned steps,
                       int runs, const md_system *truth, md_system *now,
                       side *out)
{
    md_sim *sim;
    run_ms t[MAX_RUNS];
    double e0 = 0.0, e1 = 0.0;
    int rc = md_sim_open(&sim, start, v, NULL);
    if (rc)
        return rc;
    rc = opencl_energy(sim, &e0);
    if (rc == 0)
        rc = md_sim_step(sim, CHECK_STEPS);
    if (rc == 0)
        rc = md_sim_read(sim, now);
    out->agrees = rc == 0 && agrees(now, truth);
    if (rc == 0)
        rc = md_sim_step(sim, steps);   /* the warm-up run */
    for (int i = 0; i < runs && rc == 0; i++) {
        md_phase_ms ms;
        rc = md_sim_profile(sim, steps, &ms);
        t[i] = (run_ms){ms.kick_drift, ms.scan, ms.scatter, ms.forces};
    }
    if (rc == 0)
        rc = opencl_energy(sim, &e1);
    md_sim_close(sim);
    if (rc)
        return rc;
    out->ran = 1;
    out->e_start = e0;
    out->e_end = e1;
    medians(t, runs, steps, out);
    return 0;
}

/* ---- the CUDA side: the twin -------------------------------------------- */

static int cuda_energy(md_cuda *run, md_system *now, double *pe, double *e)
{
    if (md_cuda_read(run, now->pos, now->vel, pe))
        return -1;
    *e = total_energy(now, pe);
    return 0;
}

/* The twin's steps, as opencl_side's; now holds the start wrapped into
 * the box, as md_sim_open wraps it, and pe room for n energies. */
static int cuda_steps(md_cuda *run, unsigned steps, int runs,
                      const md_system *truth, md_system *now, double *pe,
                      side *out)
{
    run_ms t[MAX_RUNS];
    double e0, e1;
    if (cuda_energy(run, now, pe, &e0) ||
        md_cuda_step(run, CHECK_STEPS, NULL) ||
        md_cuda_read(run, now->pos, now->vel, NULL))
        return -1;
    out->agrees = agrees(now, truth);
    if (md_cuda_step(run, steps, NULL))     /* the warm-up run */
        return -1;
    for (int i = 0; i < runs; i++) {
        md_cuda_phase_ms ms;
        if (md_cuda_step(run, steps, &ms))
            return -1;
        t[i] = (run_ms){ms.kick_drift, ms.scan, ms.scatter, ms.forces};
    }
    if (cuda_energy(run, now, pe, &e1))
        return -1;
    out->ran = 1;
    out->e_start = e0;
    out->e_end = e1;
    medians(t, runs, steps, out);
    return 0;
}

static int cuda_side(const md_system *start, md_version v, unsigned steps,
                     int runs, const md_system *truth, md_system *now,
                     side *out)
{
    double *pe = malloc(start->n * sizeof *pe);
    if (!pe)
        return app_fail(APP_ERR_NO_MEMORY, "bench-cuda-md: no memory");
    for (size_t i = 0; i < 3 * (size_t)start->n; i++) {
        now->pos[i] = md_wrap(start->pos[i], start->box);
        now->vel[i] = start->vel[i];
    }
    md_cuda *run;
    md_cuda_twin twin = v == MD_PARTICLE ? MD_CUDA_PARTICLE : MD_CUDA_CELL;
    int rc = md_cuda_open(&run, twin, start->n, start->box,
                          md_cells_per_side(start->box), now->pos,
                          now->vel);
    if (rc == 0)
        rc = cuda_steps(run, steps, runs, truth, now, pe, out);
    md_cuda_close(run);
    free(pe);
    return rc ? app_fail(APP_ERR_DEVICE, "the CUDA twin of "
                         "%s failed at %u particles (above)",
                         app_version_name(&md_versions, v), start->n)
              : 0;
}

/* ---- the table ---------------------------------------------------------- */

/* Whether the sides passed their checks (the OpenCL version's state
 * after the warm-up; the twin's, and its energy after all steps against
 * the OpenCL version's); if not, says which failed on stderr. */
static int checked(const side *cl, const side *cu, uint32_t n, md_version v)
{
    const char *name = app_version_name(&md_versions, v);
    int ok = 1;
    const side *sides[] = {cl, cu};
    const char *who[] = {"OpenCL", "CUDA"};
    for (int k = 0; k < 2; k++)
        if (sides[k]->ran && !sides[k]->agrees) {
            fprintf(stderr, "bench-cuda-md: %s %s, %u particles: the state "
                    "after %d steps is off the host's\n", who[k], name, n,
                    CHECK_STEPS);
            ok = 0;
        }
    double apart = fabs(cu->e_end - cl->e_end) / fabs(cl->e_start);
    if (cu->ran && !(apart <= DRIFT_BOUND)) {
        fprintf(stderr, "bench-cuda-md: CUDA %s, %u particles: the total "
                "energy after all steps is %.3g of the start's from the "
                "OpenCL version's (%.9g against %.9g), over %g\n", name, n,
                apart, cu->e_end, cl->e_end, DRIFT_BOUND);
        ok = 0;
    }
    return ok;
}

static void print_ms(double ms, int ran)
{
    if (ran)
        printf(" %.4f |", ms);
    else
        printf(" - |");
}

/* One row: both sides' figures; 1 if both passed their checks. */
static int print_row(uint32_t n, md_version v, const side *cl,
                     const side *cu)
{
    int ok = checked(cl, cu, n, v);
    printf("| %u | %s |", n, app_version_name(&md_versions, v));
    print_ms(cl->total_ms, 1);
    print_ms(cu->total_ms, cu->ran);
    if (cu->ran)
        printf(" %.2f |", cl->total_ms / cu->total_ms);
    else
        printf(" - |");
    print_ms(cl->forces_ms, 1);
    print_ms(cu->forces_ms, cu->ran);
    printf(" %s |\n", ok ? "yes" : "NO");
    fflush(stdout);
    return ok;
}

/* Both versions at n particles; *all_ok cleared by a failed check. */
static int bench_size(uint32_t n, unsigned steps, int runs,
                      unsigned long ref_cap, int have_cuda, int *all_ok)
{
    static const md_version versions[] = {MD_PARTICLE, MD_CELL};
    md_system start, truth = {0}, now = {0};
    int rc = md_system_init(&start, n, 1);
    if (rc)
        return rc;
    rc = host_truth(&start, ref_cap, &truth);
    if (rc == 0)
        rc = md_system_copy(&now, &start);
    for (size_t k = 0; k < 2 && rc == 0; k++) {
        side cl = {0}, cu = {0};
        rc = opencl_side(&start, versions[k], steps, runs, &truth, &now, &cl);
        if (rc == 0 && have_cuda)
            rc = cuda_side(&start, versions[k], steps, runs, &truth, &now,
                           &cu);
        if (rc == 0 && !print_row(n, versions[k], &cl, &cu))
            *all_ok = 0;
    }
    md_system_free(&start);
    md_system_free(&truth);
    md_system_free(&now);
    return rc;
}

/* The twins are built for the app's default work sizes: refuse the
 * variables that change the OpenCL side's. */
static int default_sizes(void)
{
    const char *vars[] = {"MD_CELL_GROUP", "MD_SCAN_BLOCK"};
    for (size_t k = 0; k < 2; k++)
        if (getenv(vars[k])) {
            fprintf(stderr, "bench-cuda-md: %s is set: the CUDA twins run "
                    "apps/md's default work sizes only; unset it\n",
                    vars[k]);
            return 0;
        }
    return 1;
}

int main(int argc, char **argv)
{
    unsigned long sizes[MAX_SIZES] = {1000, 4000, 16000};
    unsigned long steps = 10, runs = 3, ref_cap = 2000;
    int nsizes = 3;
    uint32_t least = md_min_particles(MD_CELL);
    if ((argc > 1 && !(nsizes = parse_uint_list("sizes", argv[1], least,
                                                MD_MAX_PARTICLES, sizes,
                                                MAX_SIZES))) ||
        (argc > 2 && !parse_uint(argv[2], 1, 1000000, &steps)) ||
        (argc > 3 && !parse_uint(argv[3], 1, MAX_RUNS, &runs)) ||
        (argc > 4 && !parse_uint(argv[4], 0, MD_REFERENCE_MAX_PARTICLES,
                                 &ref_cap)) ||
        argc > 5) {
        if (nsizes == 0)
            fprintf(stderr, "bench-cuda-md: %s\n", app_last_error());
        fprintf(stderr, "usage: bench-cuda-md [sizes=1000,4000,16000 (each "
                "%u..%u)] [steps=10] [runs=3 (1..%d)] [ref_cap=2000 (at "
                "most %u)]\n", least, MD_MAX_PARTICLES, MAX_RUNS,
                MD_REFERENCE_MAX_PARTICLES);
        return 2;
    }
    if (!default_sizes())
        return 2;
    clctx *ctx = clctx_default();
    if (!ctx) {
        fprintf(stderr, "bench-cuda-md: %s\n", app_last_error());
        return 1;
    }
    char cuda[256];
    int have_cuda = cuda_open(cuda, sizeof cuda);
    if (have_cuda < 0)
        return 1;                       /* it said why */
    printf("Lennard-Jones MD (density %g, T0 %g, cut-off %g, dt %g): "
           "kernel time per step, the median of %lu runs of %lu steps after a "
           "warm-up run\n",
           MD_DENSITY, MD_TEMPERATURE, (double)MD_CUTOFF, MD_DT, runs,
           steps);
    printf("OpenCL: %s\nCUDA: %s\n", clctx_describe(ctx), cuda);
    printf("checked: after %d steps, positions within %g and velocities "
           "within %g of the host's (all-pairs reference up to %lu "
           "particles, host cell list beyond); after the last run, the CUDA "
           "twin's total energy within %g (of the start's) of the OpenCL "
           "version's\n\n", CHECK_STEPS, POS_TOL,
           VEL_TOL, ref_cap, DRIFT_BOUND);
    printf("| N | version | OpenCL ms/step | CUDA ms/step | OpenCL/CUDA | "
           "forces: OpenCL | forces: CUDA | checked |\n"
           "|---:|---|---:|---:|---:|---:|---:|:---:|\n");
    int all_ok = 1;
    for (int i = 0; i < nsizes; i++)
        if (bench_size((uint32_t)sizes[i], (unsigned)steps, (int)runs,
                       ref_cap, have_cuda, &all_ok)) {
            fprintf(stderr, "bench-cuda-md: %s\n", app_last_error());
            return 1;
        }
    printf("\nOpenCL/CUDA: over 1, the CUDA twin is the faster. ms/step: "
           "every kernel of a step (kick-drift and binning, scan, scatter, "
           "forces), each timed by its own events.\n");
    if (!all_ok)
        fprintf(stderr, "bench-cuda-md: a check failed (above)\n");
    return all_ok ? 0 : 1;
}
