/*
 * raytracer_gtk.c: the raytracer's window, tested the way a person
 * uses it: apps/raytracer/tests/gui/run-gtk starts bin/raytracer-gtk on a
 * private X server, drags, scrolls, moves a light slider, takes
 * screenshots and checks them (see the script for what exactly). The
 * window runs as a child process, so this is not a test of memory under
 * valgrind or Oclgrind, and those runs leave it out (its tags).
 */
#include "common/tests/testing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Where the programs of this build are: beside the test runner. */
static void program_dir(char *dir, size_t size)
{
    snprintf(dir, size, "%s", test_program("test-clframe"));
    *strrchr(dir, '/') = '\0';
}

START_TEST(window_pans_zooms_moves_the_light_and_closes)
{
    char dir[4096], log[4200], command[8800];
    program_dir(dir, sizeof dir);
    snprintf(log, sizeof log, "%s/raytracer-gtk.log", test_tmpdir());
    snprintf(command, sizeof command,
             "apps/raytracer/tests/gui/run-gtk '%s' > '%s' 2>&1", dir, log);
    int status = system(command);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    size_t n;
    char *text = test_read_file(log, &n);
    if (code == 77) {
        /* No display stack here (xvfb-run, xdotool or GTK missing): not a
         * failure of the code, but say so. */
        printf("%s", text);
        fflush(stdout);
    } else {
        ck_assert_msg(code == 0, "apps/raytracer/tests/gui/run-gtk exited with %d:"
                      "\n%s", code, text);
    }
    free(text);
}
END_TEST

Suite *raytracer_gtk_suite(void)
{
    Suite *s = suite_create("raytracer_gtk");
    TCase *tc = test_case("window");
    /* The window's program runs in a child process that neither checker
     * sees into; its kernels are the raytracer suites' business. */
    tcase_set_tags(tc, "no-oclgrind no-valgrind");
    tcase_add_test(tc, window_pans_zooms_moves_the_light_and_closes);
    suite_add_tcase(s, tc);
    return s;
}
