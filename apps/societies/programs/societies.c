/*
 * societies.c (bin/societies): runs the Societies simulation, phases 1
 * (extraction) and 2 (trading) for every agent each day, on a device, the
 * C reference or its OpenMP version, and writes a summary of every day as
 * CSV, and as a PNG plot. Run with --help for the options.
 */
#include "societies/societies.h"
#include "common/error.h"
#include "common/parse.h"
#include "common/program.h"
#include "common/save.h"
#include "clframe.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const app_program program = {"societies",
    "usage: societies [options]\n"
    "  --config FILE     key = value settings (apps/societies/README.md);\n"
    "                    options below override them\n"
    "  --days N          days to run (default 10)\n"
    "  --agents A        agents (default 1000)\n"
    "  --resources R     resources (default 16; at most 256 and the\n"
    "                    device's work-group size)\n"
    "  --seed S          random seed (default 1)\n"
    "  --version V       %s:\n"
    "                    the C reference, its OpenMP twin, a work-group\n"
    "                    or a work-item per agent on the device\n"
    "  --device WHERE    the device: gpu, cpu, P:D or part of a name\n"
    "                    (default: the best device, or CLFRAME_DEVICE);\n"
    "                    reference or openmp: as --version\n"
    "  --csv FILE        the summary of every day as CSV (default: stdout)\n"
    "  --plot FILE.png   the summary plotted by gnuplot\n"
    "Exit status: 0 done, 1 a bad input or a failure, 2 a bad argument.\n",
    &societies_versions};

typedef struct options {
    const char *config, *where, *csv, *plot, *version;
    const char *days, *agents, *resources, *seed;
} options;

static int usage_error(const char *fmt, const char *arg)
{
    return app_usage_error(&program, fmt, arg);
}

/* Fills o from argv; 0, or the exit status to leave with (-1: help). */
static int parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    static const struct {
        const char *name;
        size_t offset;
    } known[] = {
        {"--config", offsetof(options, config)},
        {"--device", offsetof(options, where)},
        {"--version", offsetof(options, version)},
        {"--csv", offsetof(options, csv)},
        {"--plot", offsetof(options, plot)},
        {"--days", offsetof(options, days)},
        {"--agents", offsetof(options, agents)},
        {"--resources", offsetof(options, resources)},
        {"--seed", offsetof(options, seed)},
    };
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h"))
            return -1;
        size_t k = 0, n = sizeof known / sizeof *known;
        while (k < n && strcmp(opt, known[k].name))
            k++;
        if (k == n)
            return usage_error("unknown option %s", opt);
        if (i + 1 >= argc)
            return usage_error("%s: a value is missing", opt);
        *(const char **)((char *)o + known[k].offset) = argv[++i];
    }
    return 0;
}

/* Reads option --name's text, if given, into *value: a whole number in
 * [lo, hi]. 0, or 2 after a message. */
static int whole_number(const char *name, const char *text, unsigned long lo,
                        unsigned long hi, unsigned long *value)
{
    if (!text || parse_uint(text, lo, hi, value))
        return 0;
    fprintf(stderr, "societies: --%s \"%s\" is not a whole number from %lu "
            "to %lu\n", name, text, lo, hi);
    return 2;
}

/* The configuration: defaults, the file, then the options. */
static int configure(const options *o, societies_config *c)
{
    societies_config_default(c);
    if (o->config && societies_config_read(o->config, c))
        return app_failed(&program);
    unsigned long days = (unsigned long)c->days;
    unsigned long agents = (unsigned long)c->agents;
    unsigned long resources = (unsigned long)c->resources;
    unsigned long seed = (unsigned long)c->seed;
    int status = whole_number("days", o->days, 0, 1000000, &days);
    if (!status)
        status = whole_number("agents", o->agents, 1, SOCIETIES_MAX_AGENTS,
                              &agents);
    if (!status)
        status = whole_number("resources", o->resources, 1,
                              SOCIETIES_MAX_RESOURCES, &resources);
    if (!status)
        status = whole_number("seed", o->seed, 0, ULONG_MAX, &seed);
    if (status)
        return status;
    c->days = (CLF_INT)days;
    c->agents = (CLF_INT)agents;
    c->resources = (CLF_INT)resources;
    c->seed = (CLF_ULONG)seed;
    if (c->menu_size > c->resources)
        c->menu_size = c->resources;        /* fewer resources asked for */
    return societies_config_check(c, 0) ? app_failed(&program) : 0;
}

/* The version --version or --device names, or -1: the default on the
 * device, which the run opens and resolves (societies_default_version);
 * the device selector left in o->where. 0, or the exit status. */
static int choose_version(options *o, int *v)
{
    if (o->version)
        return app_version_option(&program, o->version, v);
    *v = app_version_parse(&societies_versions, o->where);
    if (*v == SOCIETIES_REFERENCE || *v == SOCIETIES_OPENMP)
        o->where = NULL;
    else
        *v = -1;
    return 0;
}

typedef struct totals {
    FILE *csv;
    double phase1_s, phase2_s;
    societies_version version;  /* that ran the days */
} totals;

static int write_day(const societies_summary *s, void *user)
{
    totals *t = user;
    societies_csv_row(t->csv, s);
    t->phase1_s += s->phase1_s;
    t->phase2_s += s->phase2_s;
    t->version = s->version;
    return ferror(t->csv) ? app_fail(APP_ERR_IO, "societies: "
                                     "writing the CSV failed") : 0;
}

int main(int argc, char **argv)
{
    options o;
    int status = app_start(&program, parse_options(argc, argv, &o));
    if (status >= 0)
        return status;
    societies_config c;
    if ((status = configure(&o, &c)))
        return status;
    int v;
    if ((status = choose_version(&o, &v)))
        return status;

    /* A plot without a CSV file of its own draws from a temporary one. */
    char scratch[] = "/tmp/societies-XXXXXX";
    const char *csv_path = o.csv;
    if (o.plot && !csv_path) {
        int fd = mkstemp(scratch);
        if (fd < 0) {
            perror("societies: a temporary CSV file");
            return 1;
        }
        close(fd);
        csv_path = scratch;
    }
    /* A file is put in place only once the run and every write
     * succeeded (common/save.h): a failed run leaves the old one, if any,
     * and no CSV that could pass for a whole one; a failed plot leaves
     * the whole CSV. */
    totals t = {stdout, 0, 0, SOCIETIES_REFERENCE};
    save_target out;
    if (csv_path && save_begin(&out, csv_path) != 0) {
        if (csv_path == scratch)
            remove(scratch);
        return app_failed(&program);
    }
    if (csv_path)
        t.csv = out.f;
    societies_csv_header(t.csv);
    int rc = societies_simulate(&c, v, o.where, write_day, &t);
    if (csv_path) {
        int end = save_end(&out, rc == 0);
        rc = rc ? rc : end;
    }
    if (rc == 0 && o.plot)
        rc = societies_plot(csv_path, o.plot);
    if (csv_path == scratch)
        remove(scratch);
    if (rc)
        return app_failed(&program);
    double pairs = (double)(c.agents / 2) * c.days;
    fprintf(stderr, "societies: %d agents, %d resources, %d days, %s%s%s: "
            "phase 1 %.3f s (%.4g agents/s), phase 2 %.3f s (%.4g pairs/s)\n",
            c.agents, c.resources, c.days,
            app_version_name(&societies_versions, t.version),
            app_version_uses_opencl(&societies_versions, t.version) ? " on "
                                                                   : "",
            !app_version_uses_opencl(&societies_versions, t.version) ? ""
            : o.where ? o.where : "the default device",
            t.phase1_s, (double)c.agents * c.days / t.phase1_s,
            t.phase2_s, pairs / t.phase2_s);
    return 0;
}
