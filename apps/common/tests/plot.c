/*
 * plot.c: gnuplot charts (common/plot.h). The script holds the CSV inline
 * and no file name, and no CSV line can end its datablock; a PNG counts
 * only whole; a chart named with a newline and a command runs no command;
 * and a gnuplot that fails, writes a truncated PNG or is missing, or a
 * disk that fills, leaves an old chart as it was. The broken gnuplots are
 * shell scripts put first on PATH.
 */
#include "testing.h"

#include "common/plot.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const plot_chart chart = {320, 200, "a title",
                                 "plot $data using 1:2 with lines\n"};

/* The script's lines from the one after "$data << EOD" up to the first
 * that gnuplot would take for the end (one starting with "EOD"), which
 * must be "EOD" itself; their count. */
static int datablock_lines(const char *script, const char **after)
{
    const char *at = strstr(script, "$data << EOD\n");
    ck_assert_ptr_nonnull(at);
    at += strlen("$data << EOD\n");
    int lines = 0;
    while (strncmp(at, "EOD", 3) != 0) {
        const char *nl = strchr(at, '\n');
        ck_assert_ptr_nonnull(nl);
        ck_assert_msg(at[0] == ' ', "a data line without its blank: %.*s",
                      (int)(nl - at), at);
        at = nl + 1;
        lines++;
    }
    ck_assert_msg(strncmp(at, "EOD\n", 4) == 0, "the block ends at %.20s",
                  at);
    *after = at + 4;
    return lines;
}

START_TEST(the_script_holds_the_data_and_no_name)
{
    /* Lines gnuplot would have taken for the block's end. */
    const char csv[] = "day,value\n0,1\nEOD\nEODset output 'x'\n"
                       "1,2\nEOD";
    const plot_chart tricky = {640, 480, "it's a\nsystem \"id\" `id` @x",
                               "plot $data using 1:2"};
    char *script;
    size_t length;
    ck_assert_app(plot_script(&tricky, csv, sizeof csv - 1, "in.csv",
                              &script, &length));
    ck_assert_uint_eq(strlen(script), length);
    ck_assert_ptr_nonnull(strstr(script, "set terminal pngcairo size "
                                         "640,480\nset output\n"));
    ck_assert_ptr_null(strstr(script, "in.csv"));
    /* The title on one line, its quote doubled, nothing substituted in
     * single quotes. */
    ck_assert_ptr_nonnull(strstr(script, "set title 'it''s a system \"id\" "
                                         "`id` @x' noenhanced\n"));
    const char *after;
    ck_assert_int_eq(datablock_lines(script, &after), 6);
    ck_assert_ptr_nonnull(strstr(script, "\n EOD\n EODset output 'x'\n"
                                         " 1,2\n EOD\nEOD\n"));
    ck_assert_str_eq(after, "plot $data using 1:2\n");
    free(script);

    /* What gnuplot would cut (a line of 1023 bytes or more is read in
     * pieces, a piece could start with EOD) or read short is refused. */
    char long_line[PLOT_MAX_LINE + 8];
    memset(long_line, 'x', sizeof long_line);
    memcpy(long_line, "1,2\n", 4);
    ck_assert_app_fails(plot_script(&chart, long_line, sizeof long_line,
                                    "long.csv", &script, &length),
                        APP_ERR_BAD_INPUT, "long.csv:2: a line of more "
                                           "than 1000 bytes");
    ck_assert_ptr_null(script);
    ck_assert_app(plot_script(&chart, long_line, PLOT_MAX_LINE + 4,
                              "long.csv", &script, &length));
    free(script);
    ck_assert_app_fails(plot_script(&chart, "1,2\n3\0,4\n", 9, "nul.csv",
                                    &script, &length),
                        APP_ERR_BAD_INPUT, "nul.csv:2: a NUL byte");
    const plot_chart empty = {0, 10, "", ""};
    ck_assert_app_fails(plot_script(&empty, "", 0, "x.csv", &script,
                                    &length), APP_ERR_USAGE, "0 x 10");
}
END_TEST

/* A small PNG of test_write_png's in *size bytes (caller frees). */
static unsigned char *small_png(size_t *size)
{
    uint8_t pixels[64 * 64 * 3];
    uint32_t state = 7;
    for (size_t i = 0; i < sizeof pixels; i++)
        pixels[i] = (uint8_t)test_random(&state);
    const char *path = test_tmp_path("plot", "small.png");
    test_write_png(path, 64, 64, 2 /* PNG_COLOR_TYPE_RGB */, pixels, 3);
    return (unsigned char *)test_read_file(path, size);
}

START_TEST(a_png_is_whole_only_up_to_its_end)
{
    size_t size;
    unsigned char *png = small_png(&size);
    ck_assert_int_eq(plot_png_is_whole(png, size), 1);
    for (size_t cut = 0; cut < size; cut += 1 + cut / 8)
        ck_assert_msg(!plot_png_is_whole(png, cut), "%zu of %zu bytes "
                      "taken for whole", cut, size);
    ck_assert_int_eq(plot_png_is_whole(png, size - 1), 0);
    unsigned char *longer = malloc(size + 1);
    memcpy(longer, png, size);
    longer[size] = 0;
    ck_assert_int_eq(plot_png_is_whole(longer, size + 1), 0);
    longer[8] = 0xff;                   /* the first chunk's length */
    ck_assert_int_eq(plot_png_is_whole(longer, size), 0);
    free(longer);
    free(png);
}
END_TEST

/* ---- gnuplot, real and broken -------------------------------------------- */

/* A folder holding a `gnuplot` made of the shell text body, its path. */
static const char *fake_gnuplot(const char *name, const char *body)
{
    const char *dir = test_tmp_path("plot", name);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    char path[1024];
    snprintf(path, sizeof path, "%s/gnuplot", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "#!/bin/sh\n%s\n", body);
    fclose(f);
    ck_assert_int_eq(chmod(path, 0755), 0);
    return dir;
}

/* PATH with dir first (NULL: dir alone), for one call. */
static char *saved_path;
static void path_begin(const char *dir, int alone)
{
    const char *old = getenv("PATH");
    saved_path = strdup(old ? old : "");
    char path[4096];
    snprintf(path, sizeof path, "%s%s%s", dir, alone ? "" : ":",
             alone ? "" : saved_path);
    setenv("PATH", path, 1);
}

static void path_end(void)
{
    setenv("PATH", saved_path, 1);
    free(saved_path);
}

/* The CSV every chart here draws, its path (test_write_file's buffer). */
static const char *data_csv(void)
{
    return test_write_file("plot-data.csv", "x,y\n0,1\n1,4\n2,9\n");
}


/* No file in dir but those named (NULL-ended). */
static void assert_only(const char *dir, const char *const names[])
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d));) {
        int known = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
        for (int i = 0; names[i] && !known; i++)
            known = !strcmp(e->d_name, names[i]);
        ck_assert_msg(known, "%s/%s was left", dir, e->d_name);
    }
    closedir(d);
}

/* A chart's name, or the name a link at its path leads to, with a
 * newline and a gnuplot command after it: the command must not run (it
 * did: the name went into `set output '...'`). */
START_TEST(a_name_is_never_a_command)
{
    if (test_run("command -v gnuplot > /dev/null") != 0)
        return;                 /* make test installs it */
    const char *dir = test_tmp_path("plot", "names");
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    char png[1024], link[1024], target[1024], pwned[1024];
    snprintf(png, sizeof png, "%s/a\nsystem \"touch PWNED\"\nb.png", dir);
    snprintf(pwned, sizeof pwned, "%s/PWNED", dir);
    char *cwd = getcwd(NULL, 0);
    ck_assert_int_eq(chdir(dir), 0);
    int rc = plot_csv_png(data_csv(), png, &chart);
    snprintf(link, sizeof link, "%s/link.png", dir);
    snprintf(target, sizeof target, "c.png'\nsystem \"touch PWNED\"\n'");
    ck_assert_int_eq(symlink(target, link), 0);
    int linked = plot_csv_png(data_csv(), link, &chart);
    ck_assert_int_eq(chdir(cwd), 0);
    free(cwd);
    ck_assert_msg(access(pwned, F_OK) != 0, "a name ran as a command");
    ck_assert_msg(rc == 0 && linked == 0, "%s", app_last_error());
    size_t size;
    unsigned char *image = (unsigned char *)test_read_file(png, &size);
    ck_assert(plot_png_is_whole(image, size));
    free(image);
    snprintf(target, sizeof target, "%s/c.png'\nsystem \"touch PWNED\"\n'",
             dir);
    image = (unsigned char *)test_read_file(target, &size);
    ck_assert(plot_png_is_whole(image, size));
    free(image);
}
END_TEST

START_TEST(a_broken_gnuplot_leaves_the_old_chart)
{
    size_t size;
    free(small_png(&size));
    const char *png_path = test_tmp_path("plot", "small.png");
    char body[1200];
    const char *dir = test_tmp_path("plot", "broken");
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    char chart_path[1024];
    snprintf(chart_path, sizeof chart_path, "%s/chart.png", dir);
    test_write_file("plot-broken/chart.png", "the old chart");
    static const char *const only_chart[] = {"chart.png", NULL};

    /* Exit status 0 and a PNG cut short (a full disk did it to gnuplot's
     * own file): it was put in place. */
    snprintf(body, sizeof body, "head -c 100 '%s'", png_path);
    path_begin(fake_gnuplot("truncating", body), 0);
    int rc = plot_csv_png(data_csv(), chart_path, &chart);
    path_end();
    ck_assert_app_fails(rc, APP_ERR_IO, "cannot draw ");
    ck_assert_ptr_nonnull(strstr(app_last_error(), "chart.png: gnuplot "
                                                   "wrote no whole PNG "
                                                   "(100 bytes)"));
    test_assert_file_holds(chart_path, "the old chart");
    assert_only(dir, only_chart);

    snprintf(body, sizeof body, "cat '%s'; exit 3", png_path);
    path_begin(fake_gnuplot("failing", body), 0);
    rc = plot_csv_png(data_csv(), chart_path, &chart);
    path_end();
    ck_assert_app_fails(rc, APP_ERR_IO, "gnuplot failed (exit status 3) "
                                        "making ");
    test_assert_file_holds(chart_path, "the old chart");

    const char *none = test_tmp_path("plot", "no-gnuplot");
    ck_assert_int_eq(mkdir(none, 0755), 0);
    path_begin(none, 1);
    rc = plot_csv_png(data_csv(), chart_path, &chart);
    path_end();
    ck_assert_app_fails(rc, APP_ERR_IO, "gnuplot is not installed");
    test_assert_file_holds(chart_path, "the old chart");
    assert_only(dir, only_chart);

    /* A whole PNG is put in place. */
    snprintf(body, sizeof body, "cat '%s'", png_path);
    path_begin(fake_gnuplot("whole", body), 0);
    rc = plot_csv_png(data_csv(), chart_path, &chart);
    path_end();
    ck_assert_app(rc);
    size_t got;
    unsigned char *image = (unsigned char *)test_read_file(chart_path, &got);
    ck_assert_uint_eq(got, size);
    ck_assert(plot_png_is_whole(image, got));
    free(image);
}
END_TEST

/* A file size limit (a full disk's twin) met while the chart is written:
 * a failure naming it, the old chart kept. In a child, which alone has
 * the limit; SIGXFSZ ignored, so that a write fails instead. */
START_TEST(a_full_disk_leaves_the_old_chart)
{
    size_t size;
    free(small_png(&size));
    ck_assert_uint_gt(size, 4096);
    char body[1200];
    snprintf(body, sizeof body, "cat '%s'",
             test_tmp_path("plot", "small.png"));
    const char *gnuplot = fake_gnuplot("for-a-full-disk", body);
    char chart_path[1024], csv[1024];     /* test_write_file's are shared */
    snprintf(chart_path, sizeof chart_path, "%s",
             test_write_file("plot-full.png", "the old chart"));
    snprintf(csv, sizeof csv, "%s", data_csv());
    fflush(stdout);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit limit = {4096, 4096};
        path_begin(gnuplot, 0);
        if (setrlimit(RLIMIT_FSIZE, &limit) != 0)
            _exit(3);
        int rc = plot_csv_png(csv, chart_path, &chart);
        _exit(rc == APP_ERR_IO && strstr(app_last_error(), "plot-full.png: "
                                         "writing failed: File too large")
              ? 0 : rc ? 1 : 2);
    }
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "status %d: %s", status, WEXITSTATUS(status) == 2
                  ? "the chart was written" : "another failure");
    test_assert_file_holds(chart_path, "the old chart");
}
END_TEST

Suite *plot_suite(void)
{
    Suite *s = suite_create("plot");
    TCase *tc = test_case("plot");
    tcase_add_test(tc, the_script_holds_the_data_and_no_name);
    tcase_add_test(tc, a_png_is_whole_only_up_to_its_end);
    tcase_add_test(tc, a_name_is_never_a_command);
    tcase_add_test(tc, a_broken_gnuplot_leaves_the_old_chart);
    tcase_add_test(tc, a_full_disk_leaves_the_old_chart);
    suite_add_tcase(s, tc);
    return s;
}
