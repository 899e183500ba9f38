/*
 * save.c: files a user names as an output, written whole (clframe.h,
 * "Files written whole"): links followed, a regular file written beside
 * its target and renamed over it once complete, anything else written in
 * place and never replaced; and standard output checked at the end.
 * clframe-local-malloc writes -o through it; any program may.
 */
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum {
    MAX_LINKS = 40,               /* as Linux's open: more is ELOOP */
    NAME_TRIES = 100              /* temporary names tried before failing */
};

struct clframe_save {
    FILE *f;                      /* where to write */
    char *path;                   /* as given, for messages */
    char *target;                 /* path with its links followed */
    char *tmp;                    /* the temporary, or NULL: in place */
};

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

/* s->f on the target itself, which exists and is no regular file.
 * Opened without O_CREAT, so a target gone meanwhile is an error rather
 * than a regular file written in place. */
static int open_in_place(clframe_save *s)
{
    int fd = open(s->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd >= 0 && (s->f = fdopen(fd, "wb")))
        return 0;
    int why = errno;
    if (fd >= 0)
        close(fd);
    return clframe_fail(CLFRAME_ERR_IO, "%s: cannot open for writing: %s",
                        s->path, strerror(why));
}

/* Six characters for a temporary's name, different at every call (the
 * clock, the process and a count mixed), from letters and digits. */
static void fill_unique(char *six)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz"
                                 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static _Thread_local unsigned long count;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    unsigned long long x = (unsigned long long)now.tv_nsec ^
                           ((unsigned long long)now.tv_sec << 30) ^
                           ((unsigned long long)getpid() << 20) ^
                           (unsigned long long)(uintptr_t)&count ^
                           ++count * 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 6; i++) {
        x ^= x >> 29;
        x *= 0xbf58476d1ce4e5b9ULL;
        six[i] = digits[(x >> 32) % (sizeof digits - 1)];
    }
}

/* A new file named by s->tmp, its last six characters made unique: opened
 * with O_EXCL, and with mode 0666 so that the process's umask (and a
 * folder's default ACL) decides a new file's permissions, as for any file
 * a program creates. The descriptor, or -1 with errno. */
static int create_unique(clframe_save *s)
{
    char *six = s->tmp + strlen(s->tmp) - 6;
    for (int i = 0; i < NAME_TRIES; i++) {
        fill_unique(six);
        int fd = open(s->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOCTTY |
                      O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

/* s->f on a new temporary ".NAME.XXXXXX" beside the target. A file being
 * replaced passes its permissions on (mode, else -1: a new file keeps what
 * the umask gave it). */
static int open_temporary(clframe_save *s, int mode)
{
    size_t folder = folder_length(s->target);
    size_t size = strlen(s->target) + sizeof "..XXXXXX";
    if (!(s->tmp = malloc(size)))
        return clframe_fail(CLFRAME_ERR_NO_MEMORY, "%s: out of memory",
                            s->path);
    snprintf(s->tmp, size, "%.*s.%s.XXXXXX", (int)folder, s->target,
             s->target + folder);
    int fd = create_unique(s);
    if (fd >= 0 && ((mode >= 0 && fchmod(fd, (mode_t)mode) != 0) ||
                    !(s->f = fdopen(fd, "wb")))) {
        int saved = errno;
        close(fd);
        unlink(s->tmp);
        errno = saved;
    }
    if (s->f)
        return 0;
    int why = errno;
    free(s->tmp);
    s->tmp = NULL;
    /* The folder without its last '/', unless it is the root. */
    const char *dir = folder ? s->target : ".";
    int dir_len = folder > 1 ? (int)folder - 1 : 1;
    if (why == ENOENT || why == ENOTDIR)
        return clframe_fail(CLFRAME_ERR_IO, "%s: cannot write: the folder "
                            "%.*s does not exist", s->path, dir_len, dir);
    return clframe_fail(CLFRAME_ERR_IO, "%s: cannot create a file in the "
                        "folder %.*s: %s", s->path, dir_len, dir,
                        strerror(why));
}

/* Refuses to replace a regular file that the user may not write, as a
 * shell's '>' refuses to open it (the rename would need only the
 * folder's permission); 0 when it may be written. */
static int check_writable(const clframe_save *s)
{
    if (faccessat(AT_FDCWD, s->target, W_OK, AT_EACCESS) == 0 ||
        errno == ENOENT)
        return 0;
    return clframe_fail(CLFRAME_ERR_IO, "%s: cannot write: %s; not "
                        "replaced", s->path, strerror(errno));
}

int clframe_save_begin(const char *path, clframe_save **out)
{
    if (!out)
        return clf_fail_null("clframe_save_begin", "result pointer");
    *out = NULL;
    if (!path || !*path)
        return clframe_fail(CLFRAME_ERR_USAGE, "clframe_save_begin: %s "
                            "path", path ? "an empty" : "a NULL");
    clframe_save *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return clframe_fail(CLFRAME_ERR_NO_MEMORY, "%s: out of memory",
                            path);
    }
    int rc;
    struct stat st;
    if (!(s->target = follow_links(path)))
        rc = clframe_fail(CLFRAME_ERR_IO, "%s: cannot follow the link: %s",
                          path, strerror(errno));
    else if (stat(s->target, &st) != 0)
        rc = open_temporary(s, -1);
    else if (S_ISDIR(st.st_mode))
        rc = clframe_fail(CLFRAME_ERR_IO, "%s: is a folder", path);
    else if (!S_ISREG(st.st_mode))
        rc = open_in_place(s);
    else if ((rc = check_writable(s)) == 0)
        rc = open_temporary(s, (int)(st.st_mode & 0777));
    if (rc == 0) {
        *out = s;
        return 0;
    }
    free(s->target);
    free(s->path);
    free(s);
    return rc;
}

FILE *clframe_save_stream(clframe_save *s)
{
    return s ? s->f : NULL;
}

/* Renames the finished temporary over the target, unless the target has
 * meanwhile become something that is not a regular file. */
static int put_in_place(const clframe_save *s)
{
    struct stat st;
    if (lstat(s->target, &st) == 0 && !S_ISREG(st.st_mode))
        return clframe_fail(CLFRAME_ERR_IO, "%s: became something other "
                            "than a regular file while being written; not "
                            "replaced", s->path);
    if (rename(s->tmp, s->target) != 0)
        return clframe_fail(CLFRAME_ERR_IO, "%s: cannot move the finished "
                            "file into place: %s", s->path, strerror(errno));
    return 0;
}

/* Why an earlier write to the temporary failed (a full disk, a file size
 * limit), or 0: the stream keeps only its error flag, and stdio drops
 * what it could not write, so the reason is found again by writing one
 * byte more to the temporary, which is removed anyway. */
static int why_writing_failed(const clframe_save *s)
{
    int fd = fileno(s->f);
    errno = 0;
    if (s->tmp && lseek(fd, 0, SEEK_END) >= 0 && write(fd, "", 1) < 0)
        return errno;
    return 0;
}

int clframe_save_end(clframe_save *s, int commit)
{
    if (!s)
        return clf_fail_null("clframe_save_end", "file");
    int rc = 0;
    errno = 0;
    if ((fflush(s->f) != 0 || ferror(s->f)) && commit) {
        int why = errno ? errno : why_writing_failed(s);
        rc = clframe_fail(CLFRAME_ERR_IO, "%s: writing failed%s%s", s->path,
                          why ? ": " : "", why ? strerror(why) : "");
    }
    if (fclose(s->f) != 0 && commit && rc == 0)
        rc = clframe_fail(CLFRAME_ERR_IO, "%s: writing failed: %s", s->path,
                          strerror(errno));
    if (s->tmp && commit && rc == 0)
        rc = put_in_place(s);
    if (s->tmp && (!commit || rc != 0))
        unlink(s->tmp);
    free(s->tmp);
    free(s->target);
    free(s->path);
    free(s);
    return rc;
}

int clframe_save_close_stdout(void)
{
    errno = 0;
    int failed = fflush(stdout) != 0 || ferror(stdout);
    int why = failed ? errno : 0;
    /* A standard output closed from the start (prog >&-) that was never
     * written to is no failure: nothing was lost. */
    if (fclose(stdout) != 0 && !failed && errno != EBADF) {
        failed = 1;
        why = errno;
    }
    if (!failed)
        return 0;
    return clframe_fail(CLFRAME_ERR_IO, "standard output: writing "
                        "failed%s%s", why ? ": " : "",
                        why ? strerror(why) : "");
}
