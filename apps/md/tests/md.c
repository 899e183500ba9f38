/*
 * md.c: molecular dynamics (apps/md). Every version against the host
 * all-pairs reference in double at steps 0, 1, 2, 3 and 10 on boxes whose
 * N is not a lattice's 4 m^3 (positions within POS_TOL, velocities within
 * VEL_TOL); the cell version with tiny work-groups and a crowded cell, so
 * that its chunk loops run; the device's counting sort (every particle
 * once, in its own cell); energy drift and momentum over 1000 steps;
 * particles never leave the box; bad arguments; bin/md's exit codes.
 */
#include "common/tests/testing.h"
#include "md/md.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The device runs in float, the reference in double. Over 10 steps the
 * largest differences measured (PoCL, every case below) were 3.3e-6 in a
 * position (N = 863) and 3.7e-5 in a velocity component (N = 1000): the
 * rounding of float positions near L ~ 10 and of float sums of forces up
 * to ~100, which chaos grows only a few times in 0.05 time units. The
 * tolerances leave a margin of 30 and 27; a wrong kernel (a neighbour
 * cell skipped, a pair lost) is off by far more at step 1. */
#define POS_TOL 1e-4
#define VEL_TOL 1e-3

/* Energy: the largest |E(t) - E(0)| / |E(0)| at every 100th of 1000
 * steps measured 2.4e-5 (N = 500, particle and cell; bin/md measures the
 * same size of fluctuation for the double reference at N = 1372, so it
 * is mostly the time step's own error, not float's); bound 1e-4, 4 times
 * that. Momentum starts at 0 and only float rounding moves it: a
 * component measured 2.6e-5 at N = 500 after 1000 steps, 6e-8 N
 * sqrt(T0); bound 1e-6 N sqrt(T0), 16 times that. */
#define DRIFT_BOUND 1e-4
#define MOMENTUM_BOUND 1e-6

/* The steps at which the versions are compared with the reference. */
static const unsigned checked_steps[] = {0, 1, 2, 3, 10};
enum { NCHECKED = sizeof checked_steps / sizeof checked_steps[0] };

/* Not 4 m^3 but 500: 863 (one vacancy), 1372 (= 4 7^3), 1000 and 357 (the
 * fewest a cell list takes, with 3 cells a side). */
static const uint32_t sizes[] = {357, 500, 863, 1000, 1372};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

/* The sizes per run (support.h): particles, steps and rounds. A checked
 * run compares the versions at steps 0 and 1 on the smallest lattice,
 * sorts after one step (into lists already filled, as every later sort)
 * and the smallest lattice's cells in place of 70 000 particles' (whose
 * forces take Oclgrind minutes), and keeps the particles in the box over
 * one launch of one step, all pairs left out there: its kick and drift
 * wraps as the others' do, and versions_match_reference checks its
 * memory; in the box it cost more than the others did. */
static const struct {
    int compared_steps;             /* the first how many checked_steps */
    int lattices;                   /* the first how many sizes */
    uint32_t chunk_particles;       /* the cell version's chunks */
    uint32_t sort_particles;
    int sort_rounds;
    unsigned sort_steps;            /* between two rounds */
    uint32_t energy_particles;
    unsigned energy_steps, energy_every;
    uint32_t many_particles;        /* the counting sort of many cells, */
    int many_side;                  /* cells a side for them */
    int box_versions;               /* the first how many device_versions */
    int box_rounds;
    unsigned face_steps, hot_steps; /* a round's */
} run_sizes[] = {
    [TEST_FULL]    = {NCHECKED, NSIZES, 500, 863, 3, 5, 500, 1000, 100,
                      70000, 17, 4, 4, 5, 10},
    [TEST_CHECKED] = {2, 1, 357, 357, 2, 1, 357, 2, 2, 357, 3, 3, 1, 1, 1},
};

static const md_version device_versions[] = {MD_CELLS_HOST, MD_PARTICLE,
                                             MD_CELL, MD_ALLPAIRS};
enum { NDEVICE_VERSIONS = sizeof device_versions /
                          sizeof device_versions[0] };

/* md_sim_open on the context test_run_context gives, kept in *own. */
static md_sim *open_checked(const md_system *s, md_version v, clctx **own)
{
    md_sim *sim;
    *own = app_version_uses_opencl(&md_versions, v) ? test_run_context() : NULL;
    int rc = md_sim_open(&sim, s, v, *own);
    ck_assert_msg(rc == 0, "%s, %u particles: %s", app_version_name(&md_versions, v), s->n,
                  app_last_error());
    return sim;
}

static void close_checked(md_sim *sim, clctx *own)
{
    md_sim_close(sim);
    clctx_free(own);
}

/* Every coordinate of s in [0, box). */
static void assert_in_box(const md_system *s, const char *what)
{
    for (size_t i = 0; i < 3 * (size_t)s->n; i++)
        ck_assert_msg(s->pos[i] >= 0.0 && s->pos[i] < s->box, "%s: particle "
                      "%zu's coordinate %zu is %.9g, outside [0, %.9g)",
                      what, i / 3, i % 3, s->pos[i], s->box);
}

/* got within the tolerances of want (positions by the minimum image). */
static void assert_close(const md_system *got, const md_system *want,
                         const char *what, unsigned step)
{
    assert_in_box(got, what);
    for (size_t i = 0; i < 3 * (size_t)want->n; i++) {
        double dp = fabs(md_min_image(got->pos[i] - want->pos[i],
                                      want->box));
        double dv = fabs(got->vel[i] - want->vel[i]);
        ck_assert_msg(dp <= POS_TOL && dv <= VEL_TOL, "%s, %u particles, "
                      "step %u: particle %zu axis %zu at %.9g moving %.9g, "
                      "the reference's at %.9g moving %.9g", what, want->n,
                      step, i / 3, i % 3, got->pos[i], got->vel[i],
                      want->pos[i], want->vel[i]);
    }
}

/* The states of the reference at checked_steps, into want[]. */
static void reference_states(const md_system *start, md_system *want,
                             int nsteps)
{
    clctx *own;
    md_sim *ref = open_checked(start, MD_REFERENCE, &own);
    unsigned done = 0;
    for (int c = 0; c < nsteps; c++) {
        ck_assert_app(md_sim_step(ref, checked_steps[c] - done));
        done = checked_steps[c];
        ck_assert_app(md_system_copy(&want[c], start));
        ck_assert_app(md_sim_read(ref, &want[c]));
    }
    close_checked(ref, own);
}

/* Version v from start against want[] at checked_steps. */
static void assert_version_matches(const md_system *start,
                                   const md_system *want, int nsteps,
                                   md_version v, const char *what)
{
    clctx *own;
    md_sim *sim = open_checked(start, v, &own);
    md_system got;
    ck_assert_app(md_system_copy(&got, start));
    unsigned done = 0;
    char label[96];
    snprintf(label, sizeof label, "%s, %s", what, app_version_name(&md_versions, v));
    for (int c = 0; c < nsteps; c++) {
        ck_assert_app(md_sim_step(sim, checked_steps[c] - done));
        done = checked_steps[c];
        ck_assert_app(md_sim_read(sim, &got));
        assert_close(&got, &want[c], label, done);
    }
    md_system_free(&got);
    close_checked(sim, own);
}

/* Every version against the reference from start. */
static void assert_all_match(const md_system *start, const char *what)
{
    int nsteps = RUN_SIZE(compared_steps);
    md_system want[NCHECKED];
    reference_states(start, want, nsteps);
    for (int v = 0; v < NDEVICE_VERSIONS; v++)
        assert_version_matches(start, want, nsteps, device_versions[v],
                               what);
    for (int c = 0; c < nsteps; c++)
        md_system_free(&want[c]);
}

START_TEST(versions_match_reference)
{
    md_system start;
    ck_assert_app(md_system_init(&start, sizes[_i], 7 + _i));
    assert_all_match(&start, "lattice start");
    md_system_free(&start);
}
END_TEST

/* 64 particles 0.85 apart in one cell of a box of 3 cells a side: the
 * rest of the box is empty, that cell holds all of them. */
static void make_crowded(md_system *s)
{
    ck_assert_app(md_system_alloc(s, 64, 8.0));
    uint32_t state = 99;
    for (size_t i = 0; i < 64; i++) {
        size_t at[3] = {i % 4, i / 4 % 4, i / 16};
        for (int k = 0; k < 3; k++) {
            s->pos[3 * i + k] = 0.05 + 0.85 * (double)at[k];
            s->vel[3 * i + k] = (double)(test_random(&state) % 1000) / 1e3 -
                                0.5;
        }
    }
}

/* The cell version with work-groups of `group`: stages of 16 x group. */
static void assert_cell_matches_with_group(const md_system *start,
                                           const char *group,
                                           const char *what)
{
    int nsteps = RUN_SIZE(compared_steps);
    md_system want[NCHECKED];
    reference_states(start, want, nsteps);
    setenv("MD_CELL_GROUP", group, 1);
    assert_version_matches(start, want, nsteps, MD_CELL, what);
    assert_version_matches(start, want, nsteps, MD_PARTICLE, what);
    unsetenv("MD_CELL_GROUP");
    for (int c = 0; c < nsteps; c++)
        md_system_free(&want[c]);
}

START_TEST(cell_version_loops_over_chunks)
{
    /* A liquid cell holds ~18 particles and its 27 cells ~500: with
     * groups of 4 and stages of 64, every cell takes several rounds. */
    md_system start;
    ck_assert_app(md_system_init(&start, RUN_SIZE(chunk_particles), 3));
    assert_cell_matches_with_group(&start, "4", "groups of 4");
    md_system_free(&start);
    /* One cell of 64: 2 rounds of 32 own particles by default; 32 own
     * rounds and 2 stages with groups of 2. */
    make_crowded(&start);
    assert_all_match(&start, "crowded cell");
    assert_cell_matches_with_group(&start, "2", "crowded, groups of 2");
    md_system_free(&start);
}
END_TEST

/* The device's cell list: starts rise from 0 to n, each particle is in
 * exactly one slot, and that slot is in the particle's own cell. */
static void assert_cells_sorted(md_sim *sim, const md_system *now)
{
    int nc, *starts, *ids;
    ck_assert_app(md_sim_cells(sim, &nc, &starts, &ids));
    size_t ncells = (size_t)nc * nc * nc;
    ck_assert_int_eq(starts[0], 0);
    ck_assert_int_eq(starts[ncells], (int)now->n);
    char *seen = calloc(now->n, 1);
    float cells_per_length = (float)(nc / now->box);
    for (size_t c = 0; c < ncells; c++) {
        ck_assert_int_le(starts[c], starts[c + 1]);
        for (int slot = starts[c]; slot < starts[c + 1]; slot++) {
            int i = ids[slot];
            ck_assert_msg(i >= 0 && (uint32_t)i < now->n && !seen[i],
                          "slot %d holds particle %d (seen before: %d)",
                          slot, i, i >= 0 && (uint32_t)i < now->n ? seen[i]
                                                                  : -1);
            seen[i] = 1;
            int at[3];
            for (int k = 0; k < 3; k++) {
                float x = (float)now->pos[3 * i + k] * cells_per_length;
                at[k] = x >= (float)nc ? nc - 1 : (int)x;
            }
            ck_assert_msg(md_cell_index(at[0], at[1], at[2], nc) == (int)c,
                          "particle %d is in cell %zu, its position is in "
                          "cell (%d, %d, %d)", i, c, at[0], at[1], at[2]);
        }
    }
    free(seen);
    free(starts);
    free(ids);
}

/* Both cell versions, with the scan in one group (27 or 64 cells) and,
 * through MD_SCAN_BLOCK=1, by blocks of 1 cell (more than 16 blocks). */
START_TEST(counting_sort_places_every_particle_in_its_cell)
{
    static const md_version cell_versions[] = {MD_PARTICLE, MD_CELL};
    /* The sort at the start, then after steps. */
    int rounds = RUN_SIZE(sort_rounds);
    md_system start, now;
    ck_assert_app(md_system_init(&start, RUN_SIZE(sort_particles), 5));
    ck_assert_app(md_system_copy(&now, &start));
    for (int v = 0; v < 4; v++) {
        clctx *own;
        if (v >= 2)
            setenv("MD_SCAN_BLOCK", "1", 1);
        md_sim *sim = open_checked(&start, cell_versions[v % 2], &own);
        unsetenv("MD_SCAN_BLOCK");
        for (int round = 0; round < rounds; round++) {
            ck_assert_app(md_sim_read(sim, &now));
            assert_cells_sorted(sim, &now);
            if (round < rounds - 1)
                ck_assert_app(md_sim_step(sim, RUN_SIZE(sort_steps)));
        }
        close_checked(sim, own);
    }
    md_system_free(&start);
    md_system_free(&now);
}
END_TEST

/* 70 000 particles (in a full run) are 17^3 = 4913 cells: 20 blocks of
 * 256 for the scan (more than 16: by blocks), the last one part full. */
START_TEST(counting_sort_of_many_cells)
{
    md_system start, now;
    ck_assert_app(md_system_init(&start, RUN_SIZE(many_particles), 9));
    ck_assert_app(md_system_copy(&now, &start));
    ck_assert_int_eq(md_cells_per_side(start.box), RUN_SIZE(many_side));
    clctx *own;
    md_sim *sim = open_checked(&start, MD_PARTICLE, &own);
    ck_assert_app(md_sim_read(sim, &now));
    assert_cells_sorted(sim, &now);
    close_checked(sim, own);
    md_system_free(&start);
    md_system_free(&now);
}
END_TEST

/* energy_steps steps: the energy at every energy_every-th within
 * DRIFT_BOUND of the start's, momentum within MOMENTUM_BOUND, every
 * particle in the box. */
START_TEST(energy_and_momentum_are_conserved)
{
    static const md_version versions[] = {MD_PARTICLE, MD_CELL};
    unsigned steps = RUN_SIZE(energy_steps), every = RUN_SIZE(energy_every);
    md_system s;
    ck_assert_app(md_system_init(&s, RUN_SIZE(energy_particles), 11));
    clctx *own;
    md_sim *sim = open_checked(&s, versions[_i], &own);
    md_energy e0, e;
    ck_assert_app(md_sim_energy(sim, &e0));
    double worst = 0.0;
    for (unsigned done = 0; done < steps; done += every) {
        ck_assert_app(md_sim_step(sim, every));
        ck_assert_app(md_sim_energy(sim, &e));
        double drift = fabs(md_energy_total(&e) - md_energy_total(&e0)) /
                       fabs(md_energy_total(&e0));
        worst = drift > worst ? drift : worst;
        ck_assert_msg(drift < DRIFT_BOUND,
                      "%s: energy %.9g after %u steps, "
                      "%.9g at the start: relative drift %.3g",
                      app_version_name(&md_versions, versions[_i]), md_energy_total(&e),
                      done + every, md_energy_total(&e0), drift);
    }
    ck_assert_app(md_sim_read(sim, &s));
    assert_in_box(&s, app_version_name(&md_versions, versions[_i]));
    double p[3];
    md_momentum(&s, p);
    double bound = MOMENTUM_BOUND * s.n * sqrt(MD_TEMPERATURE);
    for (int k = 0; k < 3; k++)
        ck_assert_msg(fabs(p[k]) < bound, "%s: momentum %.3g along axis %d "
                      "after %u steps (bound %.3g)",
                      app_version_name(&md_versions, versions[_i]), p[k], k, steps, bound);
    close_checked(sim, own);
    md_system_free(&s);
}
END_TEST

/* Every version keeps s's particles in the box for box_rounds launches
 * of `steps` steps. */
static void assert_stays_in_box(const md_system *s, unsigned steps,
                                const char *what)
{
    for (int v = 0; v < RUN_SIZE(box_versions); v++) {
        clctx *own;
        md_sim *sim = open_checked(s, device_versions[v], &own);
        md_system now;
        char label[96];
        snprintf(label, sizeof label, "%s, %s", what,
                 app_version_name(&md_versions, device_versions[v]));
        ck_assert_app(md_system_copy(&now, s));
        for (int round = 0; round < RUN_SIZE(box_rounds); round++) {
            ck_assert_app(md_sim_step(sim, steps));
            ck_assert_app(md_sim_read(sim, &now));
            assert_in_box(&now, label);
        }
        md_system_free(&now);
        close_checked(sim, own);
    }
}

/* Particles on the faces (a perfect lattice, 500 = 4 x 5^3, moved so
 * that its planes lie at 0) creeping at 1e-5: in float, x + L rounds to
 * L for the ones that step below 0. And a hot liquid (3 times the
 * speed) whose particles cross the faces often. */
START_TEST(particles_never_leave_the_box)
{
    md_system s;
    ck_assert_app(md_system_init(&s, 500, 13));
    double quarter = 0.25 * s.box / 5;
    uint32_t state = 5;
    for (size_t i = 0; i < 3 * (size_t)s.n; i++) {
        s.pos[i] = md_wrap(s.pos[i] - quarter, s.box);
        s.vel[i] = test_random(&state) % 2 ? 1e-5 : -1e-5;
    }
    assert_stays_in_box(&s, RUN_SIZE(face_steps), "on the faces");
    md_system_free(&s);
    ck_assert_app(md_system_init(&s, 500, 13));
    for (size_t i = 0; i < 3 * (size_t)s.n; i++)
        s.vel[i] *= 3.0;
    assert_stays_in_box(&s, RUN_SIZE(hot_steps), "hot");
    md_system_free(&s);
}
END_TEST

START_TEST(wrap_keeps_coordinates_inside)
{
    static const double xs[] = {-1e-300, -1e-17, -0.0, 0.0, 9.999999999999,
                                10.0, 10.0 + 1e-15, 25.0, -25.0, 1e6};
    for (size_t i = 0; i < sizeof xs / sizeof *xs; i++) {
        double w = md_wrap(xs[i], 10.0);
        ck_assert_msg(w >= 0.0 && w < 10.0, "md_wrap(%.17g, 10) = %.17g",
                      xs[i], w);
    }
    ck_assert_int_eq(md_cell_coord(NAN, 1.0, 4), 0);
    ck_assert_int_eq(md_cell_coord(1e30, 1.0, 4), 3);
}
END_TEST

START_TEST(bad_arguments_are_refused)
{
    md_system s = {0}, small;
    md_sim *sim;
    ck_assert_app_fails(md_system_init(&s, 0, 1), APP_ERR_USAGE, "0");
    ck_assert_app_fails(md_system_init(&s, MD_MAX_PARTICLES + 1, 1),
                        APP_ERR_USAGE, "particles");
    ck_assert_int_eq(app_version_parse(&md_versions, "bogus"), -1);
    ck_assert_int_eq(app_version_parse(&md_versions, NULL), -1);
    ck_assert_int_eq(app_version_parse(&md_versions, "cell"), MD_CELL);
    ck_assert_uint_eq(md_min_particles(MD_REFERENCE), 106);
    ck_assert_uint_eq(md_min_particles(MD_PARTICLE), 357);
    ck_assert_app(md_system_init(&small, 200, 1));
    ck_assert_app_fails(md_sim_open(&sim, &small, MD_PARTICLE, NULL),
                        APP_ERR_USAGE, "3 cells");
    ck_assert_app_fails(md_sim_open(&sim, &small, (md_version)99, NULL),
                        APP_ERR_USAGE, "version");
    md_system_free(&small);
    ck_assert_app(md_system_init(&small, 100, 1));
    ck_assert_app_fails(md_sim_open(&sim, &small, MD_REFERENCE, NULL),
                        APP_ERR_USAGE, "2 cut-offs");
    md_system_free(&small);
}
END_TEST

/* The reference's O(N^2) loop is capped (md.h), so that no run of it
 * takes hours a step. */
START_TEST(reference_is_capped_where_it_would_take_hours)
{
    ck_assert_uint_eq(md_max_particles(MD_REFERENCE), 131072);
    ck_assert_uint_eq(md_max_particles(MD_CELLS_HOST), MD_MAX_PARTICLES);
    ck_assert_uint_eq(md_max_particles(MD_PARTICLE), MD_MAX_PARTICLES);
    md_system big;
    md_sim *sim = NULL;
    ck_assert_app(md_system_init(&big, 131073, 1));
    ck_assert_app_fails(md_sim_open(&sim, &big, MD_REFERENCE, NULL),
                        APP_ERR_USAGE, "md: reference runs at most 131072 "
                        "particles (has 131073)");
    md_system_free(&big);
    /* bin/md refuses it as a bad argument, naming the faster versions,
     * rather than start a step that would keep the user waiting. */
    const char *out = test_tmp_path("md", "capped.txt");
    const char *argv[] = {test_program("md"), "--particles", "131073",
                          "--steps", "0", "--version", "reference", NULL};
    test_exit e = test_spawn(argv, NULL, out, 10, 0);
    size_t size;
    char *said = test_read_file(out, &size);
    ck_assert_msg(e.status == 2 && strstr(said, "131073 particles are too "
                                          "many for reference") &&
                  strstr(said, "give at most 131072, or use cells-host, "
                               "particle or cell"),
                  "exit status %d%s, said: %s", e.status,
                  e.timed_out ? " (killed after 10 s)" : "", said);
    free(said);
}
END_TEST

START_TEST(program_exit_codes)
{
    const char *md = test_program("md");
    const char *out = test_tmp_path("md", "out.txt");
    const char *csv = test_tmp_path("md", "energy.csv");
    ck_assert_int_eq(test_run("%s > %s 2>&1", md, out), 2);
    ck_assert_int_eq(test_run("%s --particles 0 --steps 1 > %s 2>&1", md,
                              out), 2);
    ck_assert_int_eq(test_run("%s --particles 500 --steps 99999999999 > %s "
                              "2>&1", md, out), 2);
    ck_assert_int_eq(test_run("%s --particles 500 --steps 1 --version bogus "
                              "> %s 2>&1", md, out), 2);
    ck_assert_int_eq(test_run("%s --particles 200 --steps 1 > %s 2>&1", md,
                              out), 2);
    ck_assert_int_eq(test_run("%s --particles 500 --steps 1 --frobnicate 1 "
                              "> %s 2>&1", md, out), 2);
    ck_assert_int_eq(test_run("%s --particles 500 --steps 1 --device "
                              "no-such-device > %s 2>&1", md, out), 1);
    ck_assert_int_eq(test_run("%s --particles 500 --steps 2 --version "
                              "reference --energy-every 1 --csv %s > %s 2>&1",
                              md, csv, out), 0);
    size_t size;
    char *text = test_read_file(out, &size);
    ck_assert_msg(strstr(text, "relative energy drift") &&
                  strstr(text, "particle-steps/s"), "bin/md said: %s", text);
    free(text);
    text = test_read_file(csv, &size);
    ck_assert_msg(!strncmp(text, "step,kinetic,potential,total\n0,", 31) &&
                  strstr(text, "\n2,"), "bin/md's CSV: %s", text);
    free(text);
}
END_TEST

/* --csv writes its file whole or not at all: /dev/full and a file size
 * limit (a disk that fills) fail with the file named and leave an old
 * file as it was. */
START_TEST(csv_is_written_whole)
{
    const char *md = test_program("md");
    const char *out = test_tmp_path("md", "csv-out.txt");
    const char *old = test_tmp_path("md", "old.csv");
    ck_assert_int_eq(test_run("%s --particles 108 --steps 2 --version "
                              "reference --csv /dev/full > %s 2>&1", md, out),
                     1);
    size_t size;
    char *text = test_read_file(out, &size);
    ck_assert_msg(strstr(text, "md: /dev/full: writing failed: No space "
                  "left on device"), "bin/md said: %s", text);
    free(text);

    test_write_file("md-old.csv", "the old energies\n");
    ck_assert_int_eq(test_run("trap '' XFSZ; ulimit -f 1; %s --particles 108 "
                              "--steps 40 --energy-every 1 --version reference "
                              "--csv %s > %s 2>&1", md, old, out), 1);
    text = test_read_file(out, &size);
    ck_assert_msg(strstr(text, "md-old.csv: writing failed"),
                  "bin/md said: %s", text);
    free(text);
    text = test_read_file(old, &size);
    ck_assert_str_eq(text, "the old energies\n");
    free(text);
}
END_TEST

/* What the program writes to standard output is its result: lost there
 * ("> /dev/full"), it is a failure with a message, not exit status 0. */
START_TEST(the_program_fails_when_its_output_is_lost)
{
    static const char *const md_args[] = {
        "--particles 400 --steps 2 --version reference",
        "--help",
        NULL};
    test_assert_lost_output_fails("md", md_args);
}
END_TEST

Suite *md_suite(void)
{
    Suite *s = suite_create("md");
    TCase *tc = test_case("md");
    tcase_add_loop_test(tc, versions_match_reference, 0, RUN_SIZE(lattices));
    tcase_add_test(tc, cell_version_loops_over_chunks);
    tcase_add_test(tc, counting_sort_places_every_particle_in_its_cell);
    tcase_add_test(tc, counting_sort_of_many_cells);
    tcase_add_loop_test(tc, energy_and_momentum_are_conserved, 0, 2);
    tcase_add_test(tc, particles_never_leave_the_box);
    tcase_add_test(tc, wrap_keeps_coordinates_inside);
    tcase_add_test(tc, bad_arguments_are_refused);
    tcase_add_test(tc, reference_is_capped_where_it_would_take_hours);
    tcase_add_test(tc, program_exit_codes);
    tcase_add_test(tc, csv_is_written_whole);
    tcase_add_test(tc, the_program_fails_when_its_output_is_lost);
    suite_add_tcase(s, tc);
    return s;
}
