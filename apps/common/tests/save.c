/*
 * save.c: every app's file output (common/save.h) as the apps see it:
 * clframe's writer (tested in the library's suite, tests/test_save.c)
 * with the apps' codes and messages, a writer function's failure kept
 * with the file's name, and standard output checked when a program
 * exits.
 */
#include "testing.h"

#include "common/save.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int write_text(FILE *f, void *text)
{
    fputs(text, f);
    return 0;
}

static int write_then_give_up(FILE *f, void *text)
{
    fputs(text, f);
    return app_fail(APP_ERR_BAD_INPUT, "the writer gave up");
}

/* A new empty folder of this suite's, "TMPDIR/save-NAME". */
static const char *folder(const char *name)
{
    const char *dir = test_tmp_path("save", name);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    return dir;
}



START_TEST(a_file_appears_whole_or_keeps_its_old_content)
{
    const char *dir = folder("whole");
    char path[512];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    ck_assert_app(save_file(path, write_text, "one\n"));
    test_assert_file_holds(path, "one\n");

    /* A writer's failure: its message after the path, the old file kept. */
    ck_assert_app_fails(save_file(path, write_then_give_up, "two\n"),
                        APP_ERR_BAD_INPUT, "out.txt: the writer gave up");
    test_assert_file_holds(path, "one\n");

    /* A caller's own failure, in the middle of a file written in parts. */
    save_target t;
    ck_assert_app(save_begin(&t, path));
    fputs("half", t.f);
    ck_assert_app(save_end(&t, 0));
    test_assert_file_holds(path, "one\n");
    test_assert_no_hidden_file(dir);
}
END_TEST

/* clframe's failures come back as the apps' codes, with its messages. */
START_TEST(failures_are_the_apps_own)
{
    const char *dir = folder("codes");
    ck_assert_app_fails(save_file("/dev/full", write_text, "nothing\n"),
                        APP_ERR_IO, "/dev/full: writing failed: No space");
    ck_assert_app_fails(save_file(dir, write_text, "x"), APP_ERR_IO,
                        "save-codes: is a folder");
    char path[512];
    snprintf(path, sizeof path, "%s/no/such/out.txt", dir);
    save_target t;
    ck_assert_app_fails(save_begin(&t, path), APP_ERR_IO,
                        "no/such/out.txt: cannot write: the folder ");
    test_assert_no_hidden_file(dir);
}
END_TEST

/* A child that writes text to standard output (sent to `to`), then
 * closes it as a program's exit does: the exit status it gives, and what
 * it said on stderr in *said (caller frees). */
static int exit_status_after_writing(const char *to, const char *text,
                                     char **said)
{
    const char *err = test_tmp_path("save", "stderr");
    fflush(stdout);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        if (!freopen(to, "w", stdout) || !freopen(err, "w", stderr))
            _exit(3);
        fputs(text, stdout);
        _exit(save_close_stdout("prog"));
    }
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFEXITED(status));
    size_t size;
    *said = test_read_file(err, &size);
    return WEXITSTATUS(status);
}

/* Every program's exit checks its standard output this way (app_start
 * asks for it; the programs' suites run them with it on /dev/full). */
START_TEST(standard_output_is_checked_at_exit)
{
    char *said;
    ck_assert_int_eq(exit_status_after_writing("/dev/full", "a result\n",
                                               &said), 1);
    ck_assert_msg(strstr(said, "prog: standard output: writing failed: No "
                              "space left on device"), "said: %s", said);
    free(said);
    ck_assert_int_eq(exit_status_after_writing("/dev/null", "a result\n",
                                               &said), 0);
    ck_assert_str_eq(said, "");
    free(said);
}
END_TEST

Suite *save_suite(void)
{
    Suite *s = suite_create("save");
    TCase *tc = test_case("save");
    tcase_add_test(tc, a_file_appears_whole_or_keeps_its_old_content);
    tcase_add_test(tc, failures_are_the_apps_own);
    tcase_add_test(tc, standard_output_is_checked_at_exit);
    suite_add_tcase(s, tc);
    return s;
}
