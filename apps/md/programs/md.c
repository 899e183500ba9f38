/*
 * md.c (bin/md): Lennard-Jones molecular dynamics in a periodic cube by
 * any version (md.h): prints the state point, the energies at the start
 * and the end, the drift, the total momentum and the speed. Run with
 * --help for the options.
 */
#include "md/md.h"
#include "common/clock.h"
#include "common/parse.h"
#include "common/program.h"
#include "common/save.h"
#include "clframe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const app_program program = {"md",
    "usage: md --particles N --steps S [options]\n"
    "  --particles N     particles (1 to 16777216; the box holds them at\n"
    "                    density 0.8442: 106 or more, 357 or more for the\n"
    "                    cell lists; the reference at most 131072)\n"
    "  --steps S         velocity-Verlet steps of dt = 0.005\n"
    "  --version V       %s\n"
    "  --device WHERE    the device versions' device: gpu, cpu, P:D or part\n"
    "                    of a name (default: the best, or CLFRAME_DEVICE)\n"
    "  --seed S          the velocities' seed (default 1)\n"
    "  --energy-every K  the energies every K steps (default: start, end)\n"
    "  --csv FILE        those energies as CSV: step,kinetic,potential,total\n"
    "Exit status: 0 done, 1 a failure, 2 a bad argument.\n",
    &md_versions};

typedef struct options {
    unsigned long particles, steps, seed, every;
    md_version version;
    const char *where, *csv;
} options;

static int usage_error(const char *fmt, const char *arg)
{
    return app_usage_error(&program, fmt, arg);
}

/* One option with its value into o; 0 or 2. */
static int parse_option(const char *opt, const char *val, options *o)
{
    int v, status;
    if (!strcmp(opt, "--particles")) {
        if (!parse_uint(val, 1, MD_MAX_PARTICLES, &o->particles))
            return usage_error("--particles \"%s\": give 1 to 16777216", val);
    } else if (!strcmp(opt, "--steps")) {
        if (!parse_uint(val, 0, 2000000000ul, &o->steps))
            return usage_error("--steps \"%s\": give 0 to 2000000000", val);
    } else if (!strcmp(opt, "--seed")) {
        if (!parse_uint(val, 0, 4294967295ul, &o->seed))
            return usage_error("--seed \"%s\" is not a whole number below "
                               "2^32", val);
    } else if (!strcmp(opt, "--energy-every")) {
        if (!parse_uint(val, 1, 2000000000ul, &o->every))
            return usage_error("--energy-every \"%s\": give 1 or more", val);
    } else if (!strcmp(opt, "--version")) {
        if ((status = app_version_option(&program, val, &v)))
            return status;
        o->version = (md_version)v;
    } else if (!strcmp(opt, "--device")) {
        o->where = val;
    } else if (!strcmp(opt, "--csv")) {
        o->csv = val;
    } else {
        return usage_error("unknown option %s", opt);
    }
    return 0;
}

/* Fills o from argv; 0, or the exit status to leave with (-1: help). */
static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){.seed = 1, .version = MD_PARTICLE};
    int have_n = 0, have_steps = 0;
    for (int i = 1; i < argc; i += 2) {     /* an option and its value */
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return -1;
        if (i + 1 >= argc)
            return usage_error("%s: a value is missing (or an unknown "
                               "option)", argv[i]);
        have_n |= !strcmp(argv[i], "--particles");
        have_steps |= !strcmp(argv[i], "--steps");
        int rc = parse_option(argv[i], argv[i + 1], o);
        if (rc)
            return rc;
    }
    if (!have_n || !have_steps)
        return usage_error("%s", "give --particles N and --steps S");
    char text[256];
    uint32_t least = md_min_particles(o->version);
    snprintf(text, sizeof text, "%lu particles are too few for %s: the box "
             "needs %u or more", o->particles, app_version_name(&md_versions, o->version),
             least);
    if (o->particles < least)
        return usage_error("%s", text);
    uint32_t most = md_max_particles(o->version);
    /* The reference's time a step, roughly, from its cost per pair on a
     * small CPU (md.h): for the message, not a promise. */
    double step_s = 4e-9 * (double)o->particles * (o->particles - 1) / 2;
    snprintf(text, sizeof text, "%lu particles are too many for %s: its "
             "all-pairs forces would take about %.0f s a step; give at most "
             "%u, or use cells-host, particle or cell, which run any number",
             o->particles, app_version_name(&md_versions, o->version), step_s,
             most);
    if (o->particles > most)
        return usage_error("%s", text);
    return 0;
}

/* The energies now, printed and written to the CSV if any. */
static int report(md_sim *sim, unsigned long step, FILE *csv, md_energy *e)
{
    int rc = md_sim_energy(sim, e);
    if (rc == 0 && csv)
        fprintf(csv, "%lu,%.10g,%.10g,%.10g\n", step, e->kinetic,
                e->potential, md_energy_total(e));
    return rc;
}

/* The run itself; 0 or a negative code. */
static int simulate(const options *o, md_sim *sim, FILE *csv,
                    md_energy *first, md_energy *last, double *seconds)
{
    int rc = report(sim, 0, csv, first);
    unsigned long done = 0, every = o->every ? o->every : o->steps;
    *seconds = 0.0;
    while (rc == 0 && done < o->steps) {
        unsigned long now = o->steps - done < every ? o->steps - done : every;
        double t0 = clock_seconds();
        rc = md_sim_step(sim, (unsigned)now);
        if (rc == 0)
            rc = md_sim_finish(sim);
        *seconds += clock_seconds() - t0;
        done += now;
        if (rc == 0 && (o->every || done == o->steps))
            rc = report(sim, done, csv, last);
    }
    if (o->steps == 0)
        *last = *first;
    return rc;
}

static void print_result(const options *o, const md_system *s,
                         const md_energy *first, const md_energy *last,
                         double seconds)
{
    double e0 = md_energy_total(first), e1 = md_energy_total(last), p[3];
    md_momentum(s, p);
    printf("energy per particle: start %.6f (kinetic %.6f, potential %.6f), "
           "end %.6f (kinetic %.6f, potential %.6f)\n", e0 / s->n,
           first->kinetic / s->n, first->potential / s->n, e1 / s->n,
           last->kinetic / s->n, last->potential / s->n);
    printf("relative energy drift: %.3e\n", fabs(e1 - e0) / fabs(e0));
    printf("total momentum: (%.3e, %.3e, %.3e)\n", p[0], p[1], p[2]);
    printf("time: %.3f s for %lu steps, %.4g particle-steps/s\n", seconds,
           o->steps, seconds > 0 ? (double)s->n * o->steps / seconds : 0.0);
}

int main(int argc, char **argv)
{
    options o;
    int status = app_start(&program, parse_options(argc, argv, &o));
    if (status >= 0)
        return status;
    clctx *own = NULL, *ctx = NULL;
    if (app_version_uses_opencl(&md_versions, o.version) &&
        !(ctx = app_open_device(&program, o.where, &own)))
        return 1;
    /* The CSV is written as it goes, into a file put in place only when
     * the run and every write succeeded (common/save.h). */
    save_target out;
    if (o.csv && save_begin(&out, o.csv) != 0) {
        clctx_free(own);
        return app_failed(&program);
    }
    FILE *csv = o.csv ? out.f : NULL;
    if (csv)
        fprintf(csv, "step,kinetic,potential,total\n");
    md_system s;
    md_sim *sim = NULL;
    md_energy first, last;
    double seconds = 0.0;
    int rc = md_system_init(&s, (uint32_t)o.particles, o.seed);
    if (rc == 0) {
        printf("md: %u particles, box %.6f, density %g, T0 %g, cut-off %g "
               "(shifted), dt %g, %lu steps, %s, seed %lu\n", s.n, s.box,
               MD_DENSITY, MD_TEMPERATURE, (double)MD_CUTOFF, MD_DT, o.steps,
               app_version_name(&md_versions, o.version), o.seed);
        rc = md_sim_open(&sim, &s, o.version, ctx);
    }
    if (rc == 0)
        rc = simulate(&o, sim, csv, &first, &last, &seconds);
    if (rc == 0)
        rc = md_sim_read(sim, &s);
    if (csv) {
        int end = save_end(&out, rc == 0);
        rc = rc ? rc : end;
    }
    if (rc == 0)
        print_result(&o, &s, &first, &last, seconds);
    else
        app_failed(&program);
    md_sim_close(sim);
    md_system_free(&s);
    clctx_free(own);
    return rc ? 1 : 0;
}
