/*
 * test_save.c: files written whole (clframe_save_*, clframe/core/save.c): a
 * file appears whole or keeps its old content, links are followed and
 * stay links, a FIFO or a device is written in place and never replaced,
 * permissions are as a shell's '>' leaves them (a file the user may not
 * write refused, a new one under the umask, a replaced one keeping its
 * mode), every failure is a message naming the file; and standard output
 * checked at the end of a program, and by the library's tools.
 */
#include "support.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* path written with text through clframe's writer: its status. */
static int save_text(const char *path, const char *text)
{
    clframe_save *s;
    int rc = clframe_save_begin(path, &s);
    if (rc != 0)
        return rc;
    fputs(text, clframe_save_stream(s));
    return clframe_save_end(s, 1);
}

/* A new empty folder of this suite's, "TMPDIR/save-NAME". */
static const char *folder(const char *name)
{
    const char *dir = test_tmp_path("save", name);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    return dir;
}

/* dir/name in a buffer of the caller's. */
static const char *in(char path[512], const char *dir, const char *name)
{
    snprintf(path, 512, "%s/%s", dir, name);
    return path;
}



static mode_t type_of(const char *path)
{
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    return st.st_mode & S_IFMT;
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    return st.st_mode & 07777;
}

START_TEST(a_file_appears_whole_or_keeps_its_old_content)
{
    const char *dir = folder("whole");
    char path[512];
    in(path, dir, "out.txt");
    ck_assert_cl(save_text(path, "one\n"));
    test_assert_file_holds(path, "one\n");

    /* A caller's own failure, in the middle of a file written in parts:
     * the old file is kept, and the call says nothing of its own. */
    clframe_save *s;
    ck_assert_cl(clframe_save_begin(path, &s));
    fputs("half", clframe_save_stream(s));
    ck_assert_cl(clframe_save_end(s, 0));
    test_assert_file_holds(path, "one\n");
    test_assert_no_hidden_file(dir);

    ck_assert_fails(clframe_save_begin("", &s), CLFRAME_ERR_USAGE,
                    "an empty path");
    ck_assert_ptr_null(s);
    ck_assert_fails(clframe_save_end(NULL, 1), CLFRAME_ERR_USAGE,
                    "clframe_save_end: NULL file");
}
END_TEST

/* The umask decides a new file's permissions, as for any file a program
 * creates (they were 0644 whatever it said); a replaced file keeps its
 * own. */
START_TEST(permissions_follow_the_umask_and_the_old_file)
{
    const char *dir = folder("modes");
    char path[512];
    mode_t before = umask(077);
    ck_assert_cl(save_text(in(path, dir, "private.txt"), "x"));
    ck_assert_int_eq(mode_of(path), 0600);
    umask(0);
    ck_assert_cl(save_text(in(path, dir, "open.txt"), "x"));
    ck_assert_int_eq(mode_of(path), 0666);
    umask(022);
    ck_assert_cl(save_text(in(path, dir, "usual.txt"), "x"));
    ck_assert_int_eq(mode_of(path), 0644);

    /* Replaced, a file keeps its mode, whatever the umask. */
    ck_assert_int_eq(chmod(path, 0640), 0);
    umask(077);
    ck_assert_cl(save_text(path, "y"));
    ck_assert_int_eq(mode_of(path), 0640);
    test_assert_file_holds(path, "y");
    umask(before);
    test_assert_no_hidden_file(dir);
}
END_TEST

/* A file the user may not write is refused, as '>' refuses it, though its
 * folder would let the rename replace it. Root may write anything, so as
 * root the writer runs in a child that has become nobody. */
START_TEST(a_file_the_user_may_not_write_is_refused)
{
    char dir[] = "/tmp/clframe-save-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_eq(chmod(dir, 0777), 0);  /* nobody may rename in it */
    char path[512];
    in(path, dir, "read-only.txt");
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("kept\n", f);
    fclose(f);
    ck_assert_int_eq(chmod(path, 0444), 0);

    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(10);
        int rc = save_text(path, "replaced\n");
        _exit(rc == CLFRAME_ERR_IO &&
              strstr(clframe_last_error(), "read-only.txt: cannot write: "
                     "Permission denied; not replaced") ? 0 : rc ? 1 : 2);
    }
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "the writer %s", !WIFEXITED(status) ? "died"
                  : WEXITSTATUS(status) == 2 ? "replaced the file"
                  : WEXITSTATUS(status) == 10 ? "could not become nobody"
                  : "failed with another message");
    test_assert_file_holds(path, "kept\n");
    ck_assert_int_eq(mode_of(path), 0444);
    test_assert_no_hidden_file(dir);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(links_are_followed_and_stay_links)
{
    const char *dir = folder("links"), *other = folder("links-other");
    char real[512], link[512], chain[512], far[512], abs_link[512];
    char dangling[512], made[512], loop[512];
    test_write_file("save-links/real.txt", "old\n");
    in(real, dir, "real.txt");
    ck_assert_int_eq(symlink("real.txt", in(link, dir, "link")), 0);
    ck_assert_int_eq(symlink("link", in(chain, dir, "chain")), 0);
    ck_assert_cl(save_text(chain, "new\n"));
    ck_assert_int_eq(type_of(chain), S_IFLNK);
    ck_assert_int_eq(type_of(link), S_IFLNK);
    test_assert_file_holds(real, "new\n");

    /* An absolute link into another folder: the file there gets it. */
    in(far, other, "far.txt");
    ck_assert_int_eq(symlink(far, in(abs_link, dir, "far")), 0);
    ck_assert_cl(save_text(abs_link, "far\n"));
    ck_assert_int_eq(type_of(abs_link), S_IFLNK);
    test_assert_file_holds(far, "far\n");

    /* A link to nothing yet: the file it names is made. */
    ck_assert_int_eq(symlink("made.txt", in(dangling, dir, "dangling")), 0);
    ck_assert_cl(save_text(dangling, "made\n"));
    ck_assert_int_eq(type_of(dangling), S_IFLNK);
    test_assert_file_holds(in(made, dir, "made.txt"), "made\n");

    ck_assert_int_eq(symlink("loop", in(loop, dir, "loop")), 0);
    ck_assert_fails(save_text(loop, "x"), CLFRAME_ERR_IO,
                    "loop: cannot follow the link");
    test_assert_no_hidden_file(dir);
    test_assert_no_hidden_file(other);
}
END_TEST

START_TEST(other_files_are_written_in_place)
{
    const char *dir = folder("in-place");
    char fifo[512];
    ck_assert_int_eq(mkfifo(in(fifo, dir, "fifo"), 0644), 0);
    /* A reader first, so that opening the FIFO to write does not wait. */
    int reader = open(fifo, O_RDONLY | O_NONBLOCK);
    ck_assert_int_ge(reader, 0);
    ck_assert_cl(save_text(fifo, "through a pipe\n"));
    char got[64] = "";
    ck_assert_int_eq(read(reader, got, sizeof got - 1), 15);
    ck_assert_str_eq(got, "through a pipe\n");
    close(reader);
    ck_assert_int_eq(type_of(fifo), S_IFIFO);

    ck_assert_cl(save_text("/dev/null", "nothing\n"));
    ck_assert_int_eq(type_of("/dev/null"), S_IFCHR);
    ck_assert_fails(save_text("/dev/full", "nothing\n"), CLFRAME_ERR_IO,
                    "/dev/full: writing failed: No space");
    ck_assert_int_eq(type_of("/dev/full"), S_IFCHR);

    ck_assert_fails(save_text(dir, "x"), CLFRAME_ERR_IO,
                    "in-place: is a folder");
    test_assert_no_hidden_file(dir);
}
END_TEST

START_TEST(a_missing_folder_is_named)
{
    const char *dir = folder("missing");
    char path[512];
    in(path, dir, "no/such/out.txt");
    ck_assert_fails(save_text(path, "x"), CLFRAME_ERR_IO,
                    "no/such/out.txt: cannot write: the folder ");
    ck_assert_error_has("/no/such does not exist");
    test_assert_no_hidden_file(dir);
}
END_TEST

/* clframe_save_close_stdout in a child whose standard output is `to`
 * (NULL: closed), after writing text there (NULL: nothing): 0 if it
 * returned 0, 1 if it failed with a message holding expect, else 2. */
static int close_stdout_in_child(const char *to, const char *text,
                                 const char *expect)
{
    fflush(stdout);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        if (to ? !freopen(to, "w", stdout) : close(STDOUT_FILENO) != 0)
            _exit(3);
        if (text)
            fputs(text, stdout);
        int rc = clframe_save_close_stdout();
        _exit(rc == 0 ? 0 : rc == CLFRAME_ERR_IO &&
              strstr(clframe_last_error(), expect) ? 1 : 2);
    }
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

START_TEST(standard_output_is_checked_at_the_end)
{
    const char *lost = "standard output: writing failed: No space left";
    ck_assert_int_eq(close_stdout_in_child("/dev/full", "a result\n", lost),
                     1);
    ck_assert_int_eq(close_stdout_in_child("/dev/null", "a result\n", ""),
                     0);
    /* Closed from the start: a failure only if something was lost. */
    ck_assert_int_eq(close_stdout_in_child(NULL, NULL, ""), 0);
    ck_assert_int_eq(close_stdout_in_child(NULL, "a result\n",
                                           "standard output: writing "
                                           "failed: Bad file descriptor"),
                     1);
}
END_TEST

/* The library's tools write their results to standard output: lost there
 * ("> /dev/full"), it is a failure with a message, not exit status 0. */
START_TEST(the_tools_fail_when_their_output_is_lost)
{
    static const char *const runs[][2] = {
        {"clframe-info", ""},
        {"clframe-info", "--help"},
        {"clframe-info", "--version"},
        {"clframe-local-malloc", "--help"},
    };
    const char *err = test_tmp_path("save", "tool-stderr");
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        int status = test_run("%s %s > /dev/full 2> %s",
                              test_program(runs[i][0]), runs[i][1], err);
        size_t size;
        char *said = test_read_file(err, &size);
        char expect[128];
        snprintf(expect, sizeof expect, "%s: standard output: writing "
                 "failed", runs[i][0]);
        ck_assert_msg(status == 1 && strstr(said, expect), "%s %s > "
                      "/dev/full: exit status %d, said: %s", runs[i][0],
                      runs[i][1], status, said);
        free(said);
    }
}
END_TEST

Suite *save_suite(void)
{
    Suite *s = suite_create("save");
    TCase *tc = test_case("save");
    tcase_add_test(tc, a_file_appears_whole_or_keeps_its_old_content);
    tcase_add_test(tc, permissions_follow_the_umask_and_the_old_file);
    tcase_add_test(tc, a_file_the_user_may_not_write_is_refused);
    tcase_add_test(tc, links_are_followed_and_stay_links);
    tcase_add_test(tc, other_files_are_written_in_place);
    tcase_add_test(tc, a_missing_folder_is_named);
    tcase_add_test(tc, standard_output_is_checked_at_the_end);
    tcase_add_test(tc, the_tools_fail_when_their_output_is_lost);
    suite_add_tcase(s, tc);
    return s;
}
