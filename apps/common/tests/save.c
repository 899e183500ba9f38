/*
 * save.c: every app's file output (common/save.h): a file appears whole
 * or keeps its old content, links are followed and stay links, a FIFO or
 * a device is written in place and never replaced, and every failure is a
 * message naming the file.
 */
#include "testing.h"

#include "common/save.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* dir/name in a buffer of the caller's. */
static const char *in(char path[512], const char *dir, const char *name)
{
    snprintf(path, 512, "%s/%s", dir, name);
    return path;
}

static void assert_content(const char *path, const char *text)
{
    size_t size;
    char *got = test_read_file(path, &size);
    ck_assert_msg(size == strlen(text) && !memcmp(got, text, size),
                  "%s holds \"%s\", expected \"%s\"", path, got, text);
    free(got);
}

/* No hidden temporary left in dir. */
static void assert_no_temporary(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d));)
        ck_assert_msg(e->d_name[0] != '.' || !strcmp(e->d_name, ".") ||
                      !strcmp(e->d_name, ".."), "%s/%s was left", dir,
                      e->d_name);
    closedir(d);
}

static mode_t type_of(const char *path)
{
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    return st.st_mode & S_IFMT;
}

START_TEST(a_file_appears_whole_or_keeps_its_old_content)
{
    const char *dir = folder("whole");
    char path[512];
    in(path, dir, "out.txt");
    ck_assert_app(save_file(path, write_text, "one\n"));
    assert_content(path, "one\n");
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0644);

    /* Replaced, it keeps its permissions. */
    ck_assert_int_eq(chmod(path, 0600), 0);
    ck_assert_app(save_file(path, write_text, "two\n"));
    assert_content(path, "two\n");
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0600);

    /* A writer's failure: its message after the path, the old file kept. */
    ck_assert_app_fails(save_file(path, write_then_give_up, "three\n"),
                        APP_ERR_BAD_INPUT, "out.txt: the writer gave up");
    assert_content(path, "two\n");

    /* A caller's own failure, in the middle of a file written in parts. */
    save_target t;
    ck_assert_app(save_begin(&t, path));
    fputs("half", t.f);
    ck_assert_app(save_end(&t, 0));
    assert_content(path, "two\n");
    assert_no_temporary(dir);
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
    ck_assert_app(save_file(chain, write_text, "new\n"));
    ck_assert_int_eq(type_of(chain), S_IFLNK);
    ck_assert_int_eq(type_of(link), S_IFLNK);
    assert_content(real, "new\n");

    /* An absolute link into another folder: the file there gets it. */
    in(far, other, "far.txt");
    ck_assert_int_eq(symlink(far, in(abs_link, dir, "far")), 0);
    ck_assert_app(save_file(abs_link, write_text, "far\n"));
    ck_assert_int_eq(type_of(abs_link), S_IFLNK);
    assert_content(far, "far\n");

    /* A link to nothing yet: the file it names is made. */
    ck_assert_int_eq(symlink("made.txt", in(dangling, dir, "dangling")), 0);
    ck_assert_app(save_file(dangling, write_text, "made\n"));
    ck_assert_int_eq(type_of(dangling), S_IFLNK);
    assert_content(in(made, dir, "made.txt"), "made\n");

    ck_assert_int_eq(symlink("loop", in(loop, dir, "loop")), 0);
    ck_assert_app_fails(save_file(loop, write_text, "x"), APP_ERR_IO,
                        "loop: cannot follow the link");
    assert_no_temporary(dir);
    assert_no_temporary(other);
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
    ck_assert_app(save_file(fifo, write_text, "through a pipe\n"));
    char got[64] = "";
    ck_assert_int_eq(read(reader, got, sizeof got - 1), 15);
    ck_assert_str_eq(got, "through a pipe\n");
    close(reader);
    ck_assert_int_eq(type_of(fifo), S_IFIFO);

    ck_assert_app(save_file("/dev/null", write_text, "nothing\n"));
    ck_assert_int_eq(type_of("/dev/null"), S_IFCHR);
    ck_assert_app_fails(save_file("/dev/full", write_text, "nothing\n"),
                        APP_ERR_IO, "/dev/full: writing failed: No space");
    ck_assert_int_eq(type_of("/dev/full"), S_IFCHR);

    ck_assert_app_fails(save_file(dir, write_text, "x"), APP_ERR_IO,
                        "in-place: is a folder");
    assert_no_temporary(dir);
}
END_TEST

START_TEST(a_missing_folder_is_named)
{
    const char *dir = folder("missing");
    char path[512];
    in(path, dir, "no/such/out.txt");
    ck_assert_app_fails(save_file(path, write_text, "x"), APP_ERR_IO,
                        "no/such/out.txt: cannot write: the folder ");
    ck_assert_msg(strstr(app_last_error(), "/no/such does not exist"), "%s",
                  app_last_error());
    assert_no_temporary(dir);
}
END_TEST

Suite *save_suite(void)
{
    Suite *s = suite_create("save");
    TCase *tc = test_case("save");
    tcase_add_test(tc, a_file_appears_whole_or_keeps_its_old_content);
    tcase_add_test(tc, links_are_followed_and_stay_links);
    tcase_add_test(tc, other_files_are_written_in_place);
    tcase_add_test(tc, a_missing_folder_is_named);
    suite_add_tcase(s, tc);
    return s;
}
