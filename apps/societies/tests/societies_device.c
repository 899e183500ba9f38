/*
 * societies_device.c: the Societies simulation on the device, both
 * versions (apps/societies/device.c; kernels/phase*.cl, a work-group per
 * agent, and kernels/agents.cl, a work-item per agent), against the C
 * reference. Agents whose days came nowhere near a tie (the reference's
 * closest call, societies_day) must end every day exactly as the
 * reference's, stream included; the others may differ where the device's
 * pow and exp round differently, and must be few; the society's totals
 * agree statistically. Also the errors a user can make.
 */
#include "common/tests/testing.h"
#include "societies/societies.h"
#include "common/plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The sizes per run (support.h). Under valgrind and Oclgrind every
 * configuration is a kernel build at their pace: phase 1 there takes every
 * other number of resources (256 among them), phase 2 the first four
 * cases, the local memory check the first configuration. */
static const struct {
    int phase1_agents, phase1_days;
    int phase1_length_step;     /* every how manyth number of resources */
    int tie_agents;             /* of the default configuration */
    int phase2_agents, phase2_cases;
    int table_edge_agents;
    int run_agents;             /* of the whole runs, day by day */
    int local_memory_configs;
} run_sizes[] = {
    [TEST_FULL]    = {300, 3, 1, 500, 801, 7, 200, 1001, 3},
    [TEST_CHECKED] = {6, 2, 2, 8, 7, 4, 5, 9, 1},
};

/* Closer calls than this may go either way on another device: the
 * values of model.h's formulas differ by a few ulps (1e-7 each) between
 * math libraries, OpenCL allowing pow 16. */
#define NEAR_TIE 1e-5f

/* A uniform number in [0, 1): not on a grid, where D and epsilon could
 * make exact ties. */
static float uniform(uint32_t *seed)
{
    return (float)(test_random(seed) / 16777216.0);   /* 24 bits */
}

/* How many of `agents` agents of c come near a tie in a day. */
static int near_ties(const societies_config *c, int agents)
{
    int near = 0;
    for (int i = 0; i < agents; i++) {
        CLF_INT units[SOCIETIES_MAX_RESOURCES] = {0};
        CLF_INT experience[SOCIETIES_MAX_RESOURCES] = {0};
        mwc64x_state rng = mwc64x_stream(c->seed, (uint64_t)i);
        societies_day day;
        societies_phase1_agent(c, units, experience, &rng, &day);
        near += day.closest < NEAR_TIE;
    }
    return near;
}

/* A random configuration of `resources`: D in [0.5, 2], n in [1, 3]. One
 * whose values put a near tie in every agent's first day (they all start
 * alike) is drawn again: the spec asks for exact agreement on
 * configurations without near ties. */
static societies_config random_config(int agents, int resources,
                                      uint32_t *seed)
{
    societies_config c;
    societies_config_default(&c);
    c.agents = agents;
    c.resources = resources;
    c.menu_size = 1;
    c.seed = test_random(seed);
    c.minutes_per_day = 60 + (int)(test_random(seed) % 300);
    c.epsilon = 0.2f * uniform(seed);
    c.max_experience = 5 + (int)(test_random(seed) % 100);
    c.idle_penalty = (int)(test_random(seed) % 3);
    for (int r = 0; r < resources; r++) {
        c.utility_level[r] = 0.5f + 1.5f * uniform(seed);
        c.utility_root[r] = 1.0f + 2.0f * uniform(seed);
    }
    return near_ties(&c, 10) > 2 ? random_config(agents, resources, seed) : c;
}

/* Agent i of a and b: equal holdings, experience and stream. */
static int same_agent(const societies_agents *a, const societies_agents *b,
                      int i)
{
    size_t at = (size_t)i * (size_t)a->resources;
    size_t bytes = (size_t)a->resources * sizeof *a->units;
    return memcmp(a->units + at, b->units + at, bytes) == 0 &&
           memcmp(a->experience + at, b->experience + at, bytes) == 0 &&
           a->rng[i].x == b->rng[i].x && a->rng[i].c == b->rng[i].c;
}

/* The device versions, each test run for both. */
#define FOR_EACH_DEVICE_VERSION(v) \
    for (societies_version v = SOCIETIES_GROUP; v <= SOCIETIES_ITEM; v++)

/* Holdings and experience of every agent at random in [units, units +
 * spread) and [experience, experience + spread), the same in a and b. */
static void hold(societies_agents *a, societies_agents *b, int units,
                 int experience, int spread, uint32_t *seed)
{
    size_t cells = (size_t)a->agents * (size_t)a->resources;
    for (size_t i = 0; i < cells; i++) {
        a->units[i] = b->units[i] = units + (int)(test_random(seed) % spread);
        a->experience[i] = b->experience[i] =
            experience + (int)(test_random(seed) % spread);
    }
}

/* Runs `days` days of phase 1 on the device by version v and in the
 * reference and compares after each; returns the number of agents with
 * near ties. The agents start with nothing, or with about `units` and
 * `experience` (spread 16) where units is above 0. */
static int compare_phase1_from(const societies_config *c, int days,
                               societies_version v, int units,
                               int experience)
{
    societies_agents ref, dev;
    ck_assert_app(societies_agents_new(c, &ref));
    ck_assert_app(societies_agents_new(c, &dev));
    uint32_t seed = 5;
    if (units > 0)
        hold(&ref, &dev, units, experience, 16, &seed);
    clctx *ctx = test_run_context();
    societies_device *d;
    ck_assert_app(societies_device_new(ctx, c, &dev, v, &d));
    float *closest = malloc((size_t)c->agents * sizeof *closest);
    ck_assert_ptr_nonnull(closest);
    for (int i = 0; i < c->agents; i++)
        closest[i] = INFINITY;
    ck_assert_app(societies_device_read(d));     /* day 0: as made */
    for (int i = 0; i < c->agents; i++)
        ck_assert(same_agent(&ref, &dev, i));
    for (int day = 1; day <= days; day++) {
        long made = 0;
        for (int i = 0; i < c->agents; i++) {
            size_t at = (size_t)i * (size_t)c->resources;
            societies_day report;
            made += societies_phase1_agent(c, ref.units + at,
                                           ref.experience + at, &ref.rng[i],
                                           &report);
            closest[i] = fminf(closest[i], report.closest);
        }
        long device_made = societies_device_phase1(d);
        ck_assert_int_ge(device_made, 0);
        ck_assert_app(societies_device_read(d));
        int near = 0;
        for (int i = 0; i < c->agents; i++) {
            near += closest[i] < NEAR_TIE;
            ck_assert_msg(closest[i] < NEAR_TIE || same_agent(&ref, &dev, i),
                          "%s, %d resources, day %d: agent %d differs from "
                          "the reference, its closest call %g",
                          app_version_name(&societies_versions, v),
                          c->resources, day, i, (double)closest[i]);
        }
        if (near == 0)
            ck_assert_int_eq(device_made, made);
    }
    int near = 0;
    for (int i = 0; i < c->agents; i++)
        near += closest[i] < NEAR_TIE;
    free(closest);
    societies_device_free(d);
    clctx_free(ctx);
    societies_agents_free(&ref);
    societies_agents_free(&dev);
    return near;
}

static int compare_phase1(const societies_config *c, int days,
                          societies_version v)
{
    return compare_phase1_from(c, days, v, 0, 0);
}

/* Days 0 to 3 (day 0: the agents as made, untouched by building the
 * kernels), on 1 to 256 resources. */
START_TEST(phase1_is_the_references_draw_for_draw)
{
    uint32_t seed = 11;
    static const int lengths[] = {1, 2, 16, 37, 64, 256};
    int agents = RUN_SIZE(phase1_agents), step = RUN_SIZE(phase1_length_step);
    for (size_t t = 0; t < sizeof lengths / sizeof *lengths; t++) {
        /* Each drawn, tested or not, so that the draws stay the same. */
        societies_config c = random_config(agents, lengths[t], &seed);
        if (t % (size_t)step != (size_t)step - 1)
            continue;
        FOR_EACH_DEVICE_VERSION(v) {
            int near = compare_phase1(&c, RUN_SIZE(phase1_days), v);
            /* Most agents are held to exactness: near ties come by
             * chance, at about 1e-5 of the comparisons of values. */
            ck_assert_msg(near <= agents / 2, "%d resources: %d of %d "
                          "agents had near ties", lengths[t], near, agents);
        }
    }
}
END_TEST

/* The defaults: equal resources, whose exact ties the device must break
 * as the reference does; with epsilon 0 too, where only the best are
 * candidates. */
START_TEST(phase1_breaks_exact_ties_as_the_reference)
{
    societies_config c;
    societies_config_default(&c);
    c.agents = RUN_SIZE(tie_agents);
    FOR_EACH_DEVICE_VERSION(v) {
        c.epsilon = 0.05f;
        ck_assert_int_le(compare_phase1(&c, 3, v), c.agents / 2);
        c.epsilon = 0;
        ck_assert_int_le(compare_phase1(&c, 3, v), c.agents / 2);
    }
}
END_TEST

/* The utility agent i of a holds, in double: a trade's gain can be
 * below a float total's rounding. */
static double utility_of(const societies_config *c, const societies_agents *a,
                         int i)
{
    double u = 0;
    for (int r = 0; r < c->resources; r++) {
        CLF_INT x = a->units[(size_t)i * (size_t)c->resources + r];
        u += x ? c->utility_level[r] * pow(x, 1 / (double)c->utility_root[r])
               : 0;
    }
    return u;
}

/* A society after three days of phase 1 in the reference (epsilon 0.3
 * makes agents differ, so that they trade), or holding 1 to 2 `units` of
 * each resource at random, traded once by the reference and once by the
 * device's version v with the same pairs. On the device
 * every pair keeps its resources and neither agent loses, and nearly
 * every agent ends as in the reference; agents out of a pair do not
 * change. Returns the trades the device made. */
static long compare_phase2_from(const societies_config *c,
                                societies_version v, int units)
{
    societies_agents ref, dev;
    ck_assert_app(societies_agents_new(c, &ref));
    ck_assert_app(societies_agents_new(c, &dev));
    uint32_t seed = 9;
    if (units > 0)
        hold(&ref, &dev, 1, 0, 2 * units, &seed);
    for (int day = 0; units == 0 && day < 3; day++)
        societies_phase1(c, &ref, 0);
    size_t cells = (size_t)c->agents * (size_t)c->resources;
    memcpy(dev.units, ref.units, cells * sizeof *ref.units);
    CLF_INT *before = malloc(cells * sizeof *before);
    CLF_INT *pairs = malloc((size_t)c->agents * sizeof *pairs);
    ck_assert(before && pairs);
    memcpy(before, ref.units, cells * sizeof *before);
    mwc64x_state rng = mwc64x_stream(c->seed, SOCIETIES_PAIRING_STREAM);
    societies_pairing(c, &rng, pairs);

    clctx *ctx = test_run_context();
    societies_device *d;
    ck_assert_app(societies_device_new(ctx, c, &dev, v, &d));
    long ref_trades = societies_phase2(c, &ref, pairs, 0);
    long trades = societies_device_phase2(d, pairs);
    ck_assert_int_ge(trades, 0);
    ck_assert_app(societies_device_read(d));

    int differ = 0, n = c->resources;
    for (int p = 0; p < c->agents / 2; p++) {
        int a = pairs[2 * p], b = pairs[2 * p + 1];
        for (int r = 0; r < n; r++) {
            size_t ar = (size_t)a * n + r, br = (size_t)b * n + r;
            ck_assert_int_eq(dev.units[ar] + dev.units[br],
                             before[ar] + before[br]);
            ck_assert_int_ge(dev.units[ar], 0);
            ck_assert_int_ge(dev.units[br], 0);
        }
        societies_agents was = dev;
        was.units = before;
        ck_assert(utility_of(c, &dev, a) >= utility_of(c, &was, a));
        ck_assert(utility_of(c, &dev, b) >= utility_of(c, &was, b));
        differ += memcmp(dev.units + (size_t)a * n, ref.units + (size_t)a * n,
                         (size_t)n * sizeof *dev.units) != 0;
    }
    if (c->agents % 2)
        ck_assert_mem_eq(dev.units + (size_t)pairs[c->agents - 1] * n,
                         before + (size_t)pairs[c->agents - 1] * n,
                         (size_t)n * sizeof *before);
    /* Rounding turns an offer only on the edge of a tie. */
    ck_assert_msg(differ <= c->agents / 100, "%s, %d resources, menus of "
                  "%d: %d of %d pairs differ from the reference",
                  app_version_name(&societies_versions, v), n, c->menu_size,
                  differ, c->agents / 2);
    if (differ == 0)
        ck_assert_int_eq(trades, ref_trades);
    free(before);
    free(pairs);
    societies_device_free(d);
    clctx_free(ctx);
    societies_agents_free(&ref);
    societies_agents_free(&dev);
    return trades;
}

/* The same from the society after three days of the reference. */
static long compare_phase2(const societies_config *c, societies_version v)
{
    return compare_phase2_from(c, v, 0);
}

/* Odd and even agent counts, menus from 1 to 16, 0 to 3 rounds. */
START_TEST(phase2_keeps_resources_and_is_the_references)
{
    uint32_t seed = 23;
    /* A checked run takes the first four: one resource, no rounds, and
     * menus of 4 and 16 (16 resources trade within three days, 256 do
     * not). */
    static const struct {
        int resources, menu, rounds;
    } cases[] = {{1, 1, 3}, {16, 4, 0}, {16, 4, 3}, {256, 16, 3},
                 {2, 1, 1}, {37, 16, 2}, {64, 7, 3}};
    int agents = RUN_SIZE(phase2_agents);
    long traded = 0;
    for (int t = 0; t < RUN_SIZE(phase2_cases); t++) {
        societies_config c = random_config(agents, cases[t].resources, &seed);
        c.epsilon = 0.3f;
        c.menu_size = cases[t].menu;
        c.trades_per_pairing = cases[t].rounds;
        FOR_EACH_DEVICE_VERSION(v) {
            long trades = compare_phase2(&c, v);
            if (cases[t].resources == 1 || cases[t].rounds == 0)
                ck_assert_int_eq(trades, 0);
            traded += trades;
        }
    }
    ck_assert_int_gt(traded, 0);
}
END_TEST

/* The item version reads the host's table of effort (experience below
 * 4096) and of MU and x^(1/n) (units below 2048), and computes beyond:
 * agents whose days cross both edges, in both phases. */
START_TEST(the_item_version_crosses_its_table_edges)
{
    uint32_t seed = 31;
    societies_config c = random_config(RUN_SIZE(table_edge_agents), 16,
                                       &seed);
    c.max_experience = 5000;
    c.idle_penalty = 1;
    int units = SOCIETIES_TABLE_UNITS - 8;
    int experience = SOCIETIES_TABLE_EFFORT - 8;
    ck_assert_int_le(compare_phase1_from(&c, 2, SOCIETIES_ITEM, units,
                                         experience), c.agents / 2);
    c.epsilon = 0.3f;
    c.menu_size = 4;
    ck_assert_int_gt(compare_phase2_from(&c, SOCIETIES_ITEM,
                                         SOCIETIES_TABLE_UNITS), 0);
}
END_TEST

/* A device's day against the reference's: the quantiles in order, and
 * the same up to near ties, after which agents follow other paths; seeds
 * alone move the total by 0.2 % for 2000 agents (8 seeds, day 5), more
 * for fewer. */
static void assert_close_to_reference(const societies_summary *dev,
                                      const societies_summary *ref)
{
    for (int q = 0; q < 4; q++)
        ck_assert(dev->units[q] <= dev->units[q + 1]);
    ck_assert_msg(fabs(dev->total_utility - ref->total_utility) <=
                      1e-2 * ref->total_utility,
                  "day %d: utility %g, the reference's %g", dev->day,
                  dev->total_utility, ref->total_utility);
    ck_assert(labs(dev->extracted - ref->extracted) <= ref->extracted / 100);
    ck_assert(labs(dev->trades - ref->trades) <= ref->trades / 20 + 2);
}

/* Whole runs: the reference, OpenMP and both device versions, day by
 * day. */
static int keep_summary(const societies_summary *s, void *user)
{
    ((societies_summary *)user)[s->day] = *s;
    return 0;
}

START_TEST(runs_agree_day_by_day)
{
    societies_config c;
    societies_config_default(&c);
    c.agents = RUN_SIZE(run_agents);
    c.days = 4;
    c.epsilon = 0.2f;
    societies_summary ref[5], omp[5], devices[2][5];
    long traded = 0;
    ck_assert_app(societies_simulate(&c, SOCIETIES_REFERENCE, NULL,
                                     keep_summary, ref));
    ck_assert_app(societies_simulate(&c, SOCIETIES_OPENMP, NULL,
                                     keep_summary, omp));
    FOR_EACH_DEVICE_VERSION(v)
        ck_assert_app(societies_simulate(&c, v, NULL, keep_summary,
                                         devices[v - SOCIETIES_GROUP]));
    for (int day = 0; day <= c.days; day++) {
        ck_assert_int_eq(ref[day].day, day);
        ck_assert(ref[day].total_utility == omp[day].total_utility);
        ck_assert_int_eq(ref[day].trades, omp[day].trades);
        ck_assert_mem_eq(ref[day].units, omp[day].units, sizeof ref->units);
        for (int q = 0; q < 4; q++)
            ck_assert(ref[day].units[q] <= ref[day].units[q + 1]);
        traded += ref[day].trades;
        for (int i = 0; i < 2; i++)
            assert_close_to_reference(&devices[i][day], &ref[day]);
    }
    ck_assert_int_gt(traded, 0);
}
END_TEST

START_TEST(errors_name_the_problem)
{
    societies_config c;
    societies_config_default(&c);
    c.agents = 10;
    societies_agents a;
    ck_assert_app(societies_agents_new(&c, &a));
    societies_device *d;
    c.agents = 11;                          /* not these agents */
    ck_assert_app_fails(societies_device_new(NULL, &c, &a, SOCIETIES_ITEM,
                                             &d),
                        APP_ERR_USAGE, "agents of another size");
    ck_assert_ptr_null(d);
    c.agents = 10;
    ck_assert_app_fails(societies_device_new(NULL, &c, &a,
                                             SOCIETIES_OPENMP, &d),
                        APP_ERR_USAGE, "openmp is not a device version");
    c.epsilon = 2;                          /* checked first */
    ck_assert_app_fails(societies_device_new(NULL, &c, &a, SOCIETIES_GROUP,
                                             &d),
                        APP_ERR_BAD_INPUT, "epsilon");
    societies_agents_free(&a);
}
END_TEST

/* bin/societies: a CSV line a day, the same from the reference and
 * OpenMP, a PNG plot; bad options exit 2, bad inputs 1, with a message. */
START_TEST(the_program_writes_days_and_refuses_bad_input)
{
    const char *program = test_program("societies");
    const char *ref = test_tmp_path("societies", "ref.csv");
    const char *omp = test_tmp_path("societies", "omp.csv");
    const char *png = test_tmp_path("societies", "days.png");
    const char *conf = test_write_file("societies-bad.conf",
                                       "days = 2\nwealth = 3\n");
    ck_assert_int_eq(test_run("%s --days 3 --agents 51 --resources 5 "
                              "--version reference --csv %s 2>/dev/null",
                              program, ref), 0);
    /* make test installs gnuplot; elsewhere a missing one is an error
     * that keeps the CSV. */
    int gnuplot = test_run("command -v gnuplot > /dev/null") == 0;
    ck_assert_int_eq(test_run("%s --days 3 --agents 51 --resources 5 "
                              "--device openmp --csv %s --plot %s "
                              "2>/dev/null", program, omp, png),
                     gnuplot ? 0 : 1);
    size_t size;
    size_t other;
    char *a = test_read_file(ref, &size), *b = test_read_file(omp, &other);
    ck_assert(a && b);
    ck_assert_str_eq(a, b);
    ck_assert_ptr_nonnull(strstr(a, "day,total_utility,units_min,"));
    int lines = 0;
    for (size_t i = 0; i < size; i++)
        lines += a[i] == '\n';
    ck_assert_int_eq(lines, 1 + 4);     /* the header, days 0 to 3 */
    ck_assert_ptr_nonnull(strstr(a, "\n3,"));
    free(a);
    free(b);
    if (gnuplot) {
        char *image = test_read_file(png, &size);
        ck_assert(image && size > 8 && memcmp(image, "\x89PNG", 4) == 0);
        free(image);
    }

    static const char *bad_options[] = {
        "--days x", "--frobnicate 1", "--agents", "--agents 0",
        "--resources 300", "--agents 4194305", "--seed -1",
        "--version fastest", "--version",
    };
    for (size_t i = 0; i < sizeof bad_options / sizeof *bad_options; i++)
        ck_assert_msg(test_run("%s %s --device reference > /dev/null "
                               "2>&1", program, bad_options[i]) == 2,
                      "societies %s did not exit with 2", bad_options[i]);
    const char *err = test_tmp_path("societies", "stderr");
    ck_assert_int_eq(test_run("%s --config %s --csv %s 2> %s", program, conf,
                              ref, err), 1);
    char *message = test_read_file(err, &other);
    ck_assert_ptr_nonnull(strstr(message, "societies-bad.conf:2: unknown "
                                          "key \"wealth\""));
    free(message);
    ck_assert_int_eq(test_run("%s --config /nonexistent.conf 2>/dev/null",
                              program), 1);
    /* A device that is not there: a message, and no half-written CSV;
     * an old one is left as it was. */
    remove(ref);
    ck_assert_int_eq(test_run("%s --device no-such-device --csv %s "
                              "2>/dev/null", program, ref), 1);
    ck_assert_int_ne(access(ref, F_OK), 0);
    test_write_file("societies-ref.csv", "old days\n");
    ck_assert_int_eq(test_run("%s --device no-such-device --csv %s "
                              "2>/dev/null", program, ref), 1);
    message = test_read_file(ref, &other);
    ck_assert_str_eq(message, "old days\n");
    free(message);
}
END_TEST

/* --config /dev/zero is refused at its first byte: it was read whole
 * into memory (2 GB) before "no memory". */
START_TEST(the_program_refuses_dev_zero_at_once)
{
    const char *out = test_tmp_path("societies", "zero-out");
    const char *argv[] = {test_program("societies"), "--config", "/dev/zero",
                          "--device", "reference", NULL};
    test_exit e = test_spawn(argv, NULL, out, 10, 512);
    size_t n;
    char *said = test_read_file(out, &n);
    ck_assert_msg(e.status == 1 && strstr(said, "/dev/zero:1: a NUL byte at "
                                                "byte offset 0"),
                  "exit status %d%s, said: %s", e.status,
                  e.timed_out ? " (killed after 10 s)" : "", said);
    free(said);
}
END_TEST

/* The kernels take their scratch from local_malloc: a work-group needs no
 * more local memory than when they declared it (13 R bytes for phase 1,
 * 30 R + 8 M + 29 M^2 for phase 2), and the kernels' parameters are
 * their own (5 and 4: no scratch parameter added). PoCL counts exactly these bytes; a compiler may
 * pad the arena to its alignment (at most 127 bytes). */
START_TEST(local_malloc_needs_no_more_local_memory)
{
    static const int sizes[][2] = {{16, 4}, {10, 4}, {256, 16}};
    extern const clframe_source societies_kernel_sources[];
    ck_assert_int_eq(clframe_add_sources(societies_kernel_sources), 0);
    for (int i = 0; i < RUN_SIZE(local_memory_configs); i++) {
        societies_config c;
        societies_config_default(&c);
        c.resources = sizes[i][0];
        c.menu_size = sizes[i][1];
        char defines[512];
        ck_assert_app(societies_config_defines(&c, defines, sizeof defines));
        const long r = c.resources, m = c.menu_size;
        const struct {
            const char *path, *name;
            long before;
            cl_uint params;
        } kernels[] = {
            {"apps/societies/kernels/phase1.cl", "societies_phase1", 13 * r, 5},
            {"apps/societies/kernels/phase2.cl", "societies_phase2",
             30 * r + 8 * m + 29 * m * m, 4},
        };
        for (int k = 0; k < 2; k++) {
            clkernel *kernel = clkernel_file(NULL, kernels[k].path,
                                             kernels[k].name, defines);
            ck_assert_msg(kernel, "%s", clframe_last_error());
            cl_ulong bytes = 0;
            cl_uint params = 0;
            ck_assert_int_eq(clGetKernelWorkGroupInfo(clkernel_raw(kernel),
                                 clctx_device(NULL), CL_KERNEL_LOCAL_MEM_SIZE,
                                 sizeof bytes, &bytes, NULL), CL_SUCCESS);
            ck_assert_int_eq(clGetKernelInfo(clkernel_raw(kernel),
                                 CL_KERNEL_NUM_ARGS, sizeof params, &params,
                                 NULL), CL_SUCCESS);
            ck_assert_msg((long)bytes <= kernels[k].before + 127,
                          "%s at R=%ld M=%ld: %lu bytes, before %ld",
                          kernels[k].name, r, m, (unsigned long)bytes,
                          kernels[k].before);
            ck_assert_uint_eq(params, kernels[k].params);
            clkernel_free(kernel);
        }
    }
}
END_TEST

/* --plot: the chart's name never goes into gnuplot's commands (a newline
 * in it ended `set output '...'`, and the line after it ran); a gnuplot
 * that exits with 0 after writing a truncated PNG fails the run, and the
 * old chart is kept (it became a truncated or empty file, exit status 0). */
START_TEST(the_plot_runs_no_name_and_takes_only_a_whole_png)
{
    const char *program = test_program("societies");
    char dir[512], png[2048], pwned[1024], fake[1024];
    snprintf(dir, sizeof dir, "%s", test_tmp_path("societies", "plot"));
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    snprintf(pwned, sizeof pwned, "%s/PWNED", dir);
    if (test_run("command -v gnuplot > /dev/null") == 0) {
        /* In the chart's folder, where gnuplot would run the command. */
        const char *name = "a\nsystem \"touch PWNED\"\nb.png";
        const char *argv[] = {program, "--days", "2", "--agents", "20",
                              "--device", "reference", "--plot", name, NULL};
        const char *said = test_tmp_path("societies", "plot-said");
        char *cwd = getcwd(NULL, 0);
        ck_assert_int_eq(chdir(dir), 0);
        test_exit e = test_spawn(argv, NULL, said, 60, 0);
        ck_assert_int_eq(chdir(cwd), 0);
        free(cwd);
        ck_assert_msg(access(pwned, F_OK) != 0, "the chart's name ran as "
                      "a command");
        snprintf(png, sizeof png, "%s/%s", dir, name);
        size_t size;
        char *text = test_read_file(said, &size);
        ck_assert_msg(e.status == 0, "exit status %d: %s", e.status, text);
        free(text);
        unsigned char *image = (unsigned char *)test_read_file(png, &size);
        ck_assert(plot_png_is_whole(image, size));
        free(image);
    }

    snprintf(fake, sizeof fake, "%s/gnuplot", dir);
    FILE *f = fopen(fake, "w");
    ck_assert_ptr_nonnull(f);
    fputs("#!/bin/sh\nprintf '\\211PNG\\r\\n\\032\\n\\0\\0\\0\\rIHDR'\n", f);
    fclose(f);
    ck_assert_int_eq(chmod(fake, 0755), 0);
    snprintf(png, sizeof png, "%s/chart.png", dir);
    f = fopen(png, "w");
    ck_assert_ptr_nonnull(f);
    fputs("the old chart", f);
    fclose(f);
    const char *err = test_tmp_path("societies", "plot-stderr");
    ck_assert_int_eq(test_run("PATH=%s:$PATH %s --days 2 --agents 20 "
                              "--device reference --plot %s > /dev/null "
                              "2> %s", dir, program, png, err), 1);
    size_t size;
    char *said = test_read_file(err, &size);
    ck_assert_msg(strstr(said, "chart.png: gnuplot wrote no whole PNG"),
                  "said: %s", said);
    free(said);
    char *old = test_read_file(png, &size);
    ck_assert_str_eq(old, "the old chart");
    free(old);
}
END_TEST

/* What the program writes to standard output is its result: lost there
 * ("> /dev/full"), it is a failure with a message, not exit status 0. */
START_TEST(the_program_fails_when_its_output_is_lost)
{
    static const char *const societies_args[] = {
        "--days 2 --agents 20 --device reference",
        "--help",
        NULL};
    test_assert_lost_output_fails("societies", societies_args);
}
END_TEST

Suite *societies_device_suite(void)
{
    Suite *s = suite_create("societies_device");
    TCase *tc = test_case("device");
    tcase_add_test(tc, phase1_is_the_references_draw_for_draw);
    tcase_add_test(tc, phase1_breaks_exact_ties_as_the_reference);
    tcase_add_test(tc, phase2_keeps_resources_and_is_the_references);
    tcase_add_test(tc, runs_agree_day_by_day);
    tcase_add_test(tc, the_item_version_crosses_its_table_edges);
    tcase_add_test(tc, errors_name_the_problem);
    tcase_add_test(tc, local_malloc_needs_no_more_local_memory);
    suite_add_tcase(s, tc);
    TCase *program = test_case("program");
    tcase_add_test(program, the_program_writes_days_and_refuses_bad_input);
    tcase_add_test(program, the_program_refuses_dev_zero_at_once);
    tcase_add_test(program, the_plot_runs_no_name_and_takes_only_a_whole_png);
    tcase_add_test(program, the_program_fails_when_its_output_is_lost);
    suite_add_tcase(s, program);
    return s;
}
