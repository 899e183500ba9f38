/*
 * save.c: every app's file output (save.h): links followed, a regular
 * file written beside its target and renamed over it once complete,
 * anything else written in place and never replaced.
 */
#include "save.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_LINKS = 40 };          /* as Linux's open: more is ELOOP */

/* The length of path's folder part with its '/' ("a/b/" of "a/b/c"). */
static size_t folder_length(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

/* A new string: the folder part of base, then name. */
static char *join(const char *base, size_t folder, const char *name)
{
    size_t size = folder + strlen(name) + 1;
    char *s = malloc(size);
    if (s)
        snprintf(s, size, "%.*s%s", (int)folder, base, name);
    return s;
}

/* The file path names once the links of its last part are followed
 * (caller frees), or NULL with errno. The folders' own links need no
 * following: the temporary goes into the same folder either way. A
 * dangling link gives the missing file it names, to be created. */
static char *follow_links(const char *path)
{
    char *at = strdup(path);
    for (int hops = 0; at; hops++) {
        struct stat st;
        if (lstat(at, &st) != 0 || !S_ISLNK(st.st_mode))
            return at;
        char link[PATH_MAX];
        ssize_t n = readlink(at, link, sizeof link);
        if (n < 0 || n == (ssize_t)sizeof link || hops == MAX_LINKS) {
            errno = n < 0 ? errno : hops == MAX_LINKS ? ELOOP : ENAMETOOLONG;
            free(at);
            return NULL;
        }
        link[n] = '\0';
        char *next = join(at, link[0] == '/' ? 0 : folder_length(at), link);
        free(at);
        at = next;
    }
    errno = ENOMEM;
    return NULL;
}

/* t->f on the target itself, which exists and is no regular file.
 * Opened without O_CREAT, so a target gone meanwhile is an error rather
 * than a regular file written in place. */
static int open_in_place(save_target *t)
{
    int fd = open(t->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd >= 0 && (t->f = fdopen(fd, "wb")))
        return 0;
    int why = errno;
    if (fd >= 0)
        close(fd);
    return app_fail(APP_ERR_IO, "%s: cannot open for writing: %s", t->path,
                    strerror(why));
}

/* t->f on a new temporary ".NAME.XXXXXX" beside the target, given mode:
 * mkstemp makes it private (0600), which the finished file should not
 * be. */
static int open_temporary(save_target *t, mode_t mode)
{
    size_t folder = folder_length(t->target);
    size_t size = strlen(t->target) + sizeof "..XXXXXX";
    if (!(t->tmp = malloc(size)))
        return app_fail(APP_ERR_NO_MEMORY, "%s: out of memory", t->path);
    snprintf(t->tmp, size, "%.*s.%s.XXXXXX", (int)folder, t->target,
             t->target + folder);
    int fd = mkstemp(t->tmp);
    if (fd >= 0 && (fchmod(fd, mode) != 0 || !(t->f = fdopen(fd, "wb")))) {
        int saved = errno;
        close(fd);
        unlink(t->tmp);
        errno = saved;
    }
    if (t->f)
        return 0;
    int why = errno;
    free(t->tmp);
    t->tmp = NULL;
    /* The folder without its last '/', unless it is the root. */
    const char *dir = folder ? t->target : ".";
    int dir_len = folder > 1 ? (int)folder - 1 : 1;
    if (why == ENOENT || why == ENOTDIR)
        return app_fail(APP_ERR_IO, "%s: cannot write: the folder %.*s "
                        "does not exist", t->path, dir_len, dir);
    return app_fail(APP_ERR_IO, "%s: cannot create a file in the folder "
                    "%.*s: %s", t->path, dir_len, dir, strerror(why));
}

int save_begin(save_target *t, const char *path)
{
    *t = (save_target){.path = path};
    if (!(t->target = follow_links(path)))
        return app_fail(APP_ERR_IO, "%s: cannot follow the link: %s",
                        path, strerror(errno));
    struct stat st;
    int exists = stat(t->target, &st) == 0, rc;
    if (exists && S_ISDIR(st.st_mode))
        rc = app_fail(APP_ERR_IO, "%s: is a folder", path);
    else if (exists && !S_ISREG(st.st_mode))
        rc = open_in_place(t);
    else
        rc = open_temporary(t, exists ? st.st_mode & 0777 : 0644);
    if (rc != 0) {
        free(t->target);
        t->target = NULL;
    }
    return rc;
}

/* Renames the finished temporary over the target, unless the target has
 * meanwhile become something that is not a regular file. */
static int put_in_place(const save_target *t)
{
    struct stat st;
    if (lstat(t->target, &st) == 0 && !S_ISREG(st.st_mode))
        return app_fail(APP_ERR_IO, "%s: became something other than a "
                        "regular file while being written; not replaced",
                        t->path);
    if (rename(t->tmp, t->target) != 0)
        return app_fail(APP_ERR_IO, "%s: cannot move the finished file "
                        "into place: %s", t->path, strerror(errno));
    return 0;
}

/* Why an earlier write to the temporary failed (a full disk, a file size
 * limit), or 0: the stream keeps only its error flag, and stdio drops
 * what it could not write, so the reason is found again by writing one
 * byte more to the temporary, which is removed anyway. */
static int why_writing_failed(const save_target *t)
{
    int fd = fileno(t->f);
    errno = 0;
    if (t->tmp && lseek(fd, 0, SEEK_END) >= 0 && write(fd, "", 1) < 0)
        return errno;
    return 0;
}

int save_end(save_target *t, int commit)
{
    int rc = 0;
    errno = 0;
    if ((fflush(t->f) != 0 || ferror(t->f)) && commit) {
        int why = errno ? errno : why_writing_failed(t);
        rc = app_fail(APP_ERR_IO, "%s: writing failed%s%s", t->path,
                      why ? ": " : "", why ? strerror(why) : "");
    }
    if (fclose(t->f) != 0 && commit && rc == 0)
        rc = app_fail(APP_ERR_IO, "%s: writing failed: %s", t->path,
                      strerror(errno));
    if (t->tmp && commit && rc == 0)
        rc = put_in_place(t);
    if (t->tmp && (!commit || rc != 0))
        unlink(t->tmp);
    free(t->tmp);
    free(t->target);
    *t = (save_target){.path = t->path};
    return rc;
}

int save_file(const char *path, save_write_fn *write, void *ctx)
{
    save_target t;
    int rc = save_begin(&t, path);
    if (rc != 0)
        return rc;
    rc = write(t.f, ctx);
    if (rc != 0) {
        /* Copied out first: the new message is written over the old. */
        char why[400];
        snprintf(why, sizeof why, "%s", app_last_error());
        app_fail(rc, "%s: %s", path, why);
    }
    int end = save_end(&t, rc == 0);
    return rc ? rc : end;
}
