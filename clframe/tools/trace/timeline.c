/*
 * timeline.c: the picture of a trace's lanes (timeline.h), drawn by
 * gnuplot. Its whole input is written here to an unnamed temporary file,
 * its standard input: the terminal, the lanes' labels (sanitized, in
 * single quotes, where gnuplot substitutes nothing), the events as the
 * datablock $data (numbers alone) and the plot. It writes the PNG to its
 * standard output, a pipe read here; the PNG is checked and then written
 * beside the path and renamed into place. No text of the user's reaches a
 * shell or a gnuplot command unsanitized.
 */
#include "timeline.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum {
    MAX_PNG = 64 << 20,         /* the largest PNG taken from gnuplot */
    LABEL_MOST = 60,            /* characters of a lane's label drawn */
    WIDTH = 1400,               /* the picture's width, and height: */
    HEIGHT_BASE = 150, HEIGHT_PER_LANE = 30
};

/* Each kind's colour and name in the key: kernels, copies to the device,
 * copies to the host, builds, waits, the rest. */
static const struct {
    unsigned rgb;
    const char *name;
} colours[] = {{0x4477aa, "kernel"}, {0x228833, "copy to device"},
               {0xee7733, "copy to host"}, {0x999999, "build"},
               {0xcc3311, "wait"}, {0xbbbbbb, "other"}};

/* e's entry in colours. */
static int colour_of(const ctrace_event *e)
{
    return e->kind == CTRACE_KERNEL ? 0
         : e->kind == CTRACE_COPY ? (e->to_host ? 2 : 1)
         : e->kind == CTRACE_BUILD ? 3 : e->kind == CTRACE_WAIT ? 4 : 5;
}

/* label in single quotes, only characters that are plain in any gnuplot
 * string kept, the others drawn as '_'. */
static void put_label(FILE *f, const char *label)
{
    putc('\'', f);
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)label;
         *c && n < LABEL_MOST; c++, n++)
        putc((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
             (*c >= '0' && *c <= '9') || (*c && strchr(" ._:()#,/+-=", *c))
                 ? *c : '_', f);
    putc('\'', f);
}

/* gnuplot's whole input into f. */
static void write_script(FILE *f, const ctrace_trace *t, const size_t *row,
                         const char *const *labels, size_t nrows,
                         double origin)
{
    fprintf(f, "set terminal pngcairo size %d,%zu noenhanced font ',10'\n"
            "set output\n"
            "set xlabel 'ms from the first event'\n"
            "set yrange [%zu.4:-0.6]\n"
            "set grid xtics\n"
            "set key outside top center horizontal\n"
            "set style fill solid 1.0 noborder\n"
            "set ytics (", WIDTH, HEIGHT_BASE + HEIGHT_PER_LANE * nrows,
            nrows ? nrows - 1 : 0);
    for (size_t r = 0; r < nrows; r++) {
        put_label(f, labels[r]);
        fprintf(f, " %zu%s", r, r + 1 < nrows ? ", " : "");
    }
    fputs(")\n$data << EOD\n", f);
    /* Each event as its middle and half its length in ms, at least half
     * a pixel's time, so that the shortest still show. */
    double first = 0, last = 0;
    for (size_t i = 0; i < t->nevents; i++) {
        const ctrace_event *e = &t->events[i];
        if (i == 0 || e->ts < first)
            first = e->ts;
        if (i == 0 || e->ts + e->dur > last)
            last = e->ts + e->dur;
    }
    double least = (last - first) / 1e3 / (2.0 * WIDTH);
    int drawn[sizeof colours / sizeof *colours] = {0};
    for (size_t i = 0; i < t->nevents; i++) {
        const ctrace_event *e = &t->events[i];
        int c = colour_of(e);
        double half = e->dur / 2e3;
        drawn[c] = 1;
        fprintf(f, " %.6f %.6f %zu %u\n", (e->ts - origin) / 1e3 + half,
                half > least ? half : least, row[i], colours[c].rgb);
    }
    fputs("EOD\nplot $data using 1:3:2:(0.35):4 "
          "with boxxyerror lc rgb variable notitle", f);
    for (size_t c = 0; c < sizeof colours / sizeof *colours; c++) /* key */
        if (drawn[c])
            fprintf(f, ", \\\n  NaN with boxes lc rgb '#%06x' title '%s'",
                    colours[c].rgb, colours[c].name);
    fputs("\n", f);
}

/* gnuplot started with its standard input from in and its output into
 * the pipe end out: 0 and *pid, or an errno. */
static int start_gnuplot(FILE *in, int out, pid_t *pid)
{
    posix_spawn_file_actions_t actions;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0)
        return rc;
    if (!(rc = posix_spawn_file_actions_adddup2(&actions, fileno(in), 0)) &&
        !(rc = posix_spawn_file_actions_adddup2(&actions, out, 1))) {
        char *argv[] = {"gnuplot", NULL};
        rc = posix_spawnp(pid, "gnuplot", &actions, NULL, argv, environ);
    }
    posix_spawn_file_actions_destroy(&actions);
    return rc;
}

/* Everything from fd until its end, at most MAX_PNG bytes: 0 with *data
 * (caller frees) and *size, or an errno (EFBIG: more). */
static int read_all(int fd, unsigned char **data, size_t *size)
{
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    int rc = buf ? 0 : ENOMEM;
    while (rc == 0) {
        if (n == cap) {
            unsigned char *bigger = cap < MAX_PNG ? realloc(buf, 2 * cap)
                                                  : NULL;
            if (!bigger) {
                rc = cap < MAX_PNG ? ENOMEM : EFBIG;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got > 0)
            n += (size_t)got;
        else if (got == 0)
            break;
        else if (errno != EINTR)
            rc = errno;
    }
    if (rc != 0) {
        free(buf);
        return rc;
    }
    *data = buf;
    *size = n;
    return 0;
}

/* Runs gnuplot on the script in f: 0 with the PNG, or -1 with a message. */
static int run_gnuplot(FILE *script, const char *png, unsigned char **image,
                       size_t *size, char *error, size_t error_size)
{
    int ends[2];
    if (pipe(ends) != 0)
        return ctrace_fail(error, error_size,
                           "cannot draw %s: no pipe for gnuplot: "
                           "%s",
                           png, strerror(errno));
    pid_t pid;
    int why = start_gnuplot(script, ends[1], &pid);
    close(ends[1]);
    if (why != 0) {
        close(ends[0]);
        return ctrace_fail(
            error, error_size,
            why == ENOENT ? "cannot draw %s: gnuplot is not installed (Debian: "
                            "gnuplot-nox)%s"
                          : "cannot draw %s: cannot run gnuplot: "
                            "%s",
            png, why == ENOENT ? "" : strerror(why));
    }
    int read_failed = read_all(ends[0], image, size);
    close(ends[0]);
    int status = 0;
    pid_t waited;
    while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G',
                                               '\r', '\n', 0x1a, '\n'};
    int rc = 0;
    if (waited < 0)
        rc = ctrace_fail(error, error_size,
                         "cannot draw %s: cannot wait for "
                         "gnuplot: %s",
                         png, strerror(errno));
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        rc = ctrace_fail(error, error_size,
                         "cannot draw %s: gnuplot is not "
                         "installed (Debian: gnuplot-nox)",
                         png);
    else if (status != 0)
        rc = ctrace_fail(
            error, error_size, "cannot draw %s: gnuplot failed (%s %d)", png,
            WIFEXITED(status) ? "exit status" : "signal",
            WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    else if (read_failed)
        rc = ctrace_fail(error, error_size,
                         "cannot draw %s: reading gnuplot's PNG: "
                         "%s",
                         png,
                         read_failed == EFBIG ? "more than 64 MiB"
                                              : strerror(read_failed));
    else if (*size < sizeof signature || memcmp(*image, signature,
                                                sizeof signature))
        rc = ctrace_fail(error, error_size,
                         "cannot draw %s: gnuplot wrote no PNG", png);
    if (rc != 0 && !read_failed)
        free(*image);
    return rc;
}

int tl_draw(const ctrace_trace *t, const size_t *row, const char *const *labels,
            size_t nrows, double origin, const char *png, char *error,
            size_t error_size)
{
    FILE *script = tmpfile();
    if (!script)
        return ctrace_fail(error, error_size,
                           "cannot draw %s: no temporary file "
                           "for gnuplot: %s",
                           png, strerror(errno));
    write_script(script, t, row, labels, nrows, origin);
    if (fflush(script) != 0 || ferror(script) ||
        fseek(script, 0, SEEK_SET) != 0) {
        int why = errno;
        fclose(script);
        return ctrace_fail(error, error_size,
                           "cannot draw %s: writing gnuplot's "
                           "commands: %s",
                           png, strerror(why));
    }
    unsigned char *image = NULL;
    size_t size = 0;
    int rc = run_gnuplot(script, png, &image, &size, error, error_size);
    fclose(script);
    if (rc == 0) {
        rc = tl_write_file(png, image, size, error, error_size);
        free(image);
    }
    return rc;
}

int tl_write_file(const char *path, const void *data, size_t size,
                  char *error, size_t error_size)
{
    size_t n = strlen(path) + 32;
    char *temp = malloc(n);
    if (!temp)
        return ctrace_fail(error, error_size, "%s: out of memory", path);
    snprintf(temp, n, "%s.%ld.tmp", path, (long)getpid());
    int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    int why = fd < 0 ? errno : 0;
    for (size_t at = 0; fd >= 0 && !why && at < size;) {
        ssize_t put = write(fd, (const char *)data + at, size - at);
        if (put > 0)
            at += (size_t)put;
        else if (errno != EINTR)
            why = errno;
    }
    if (fd >= 0 && close(fd) != 0 && !why)
        why = errno;
    if (fd >= 0 && !why && rename(temp, path) != 0)
        why = errno;
    if (fd >= 0 && why)
        unlink(temp);
    free(temp);
    return why ? ctrace_fail(error, error_size, "cannot write %s: %s", path,
                             strerror(why))
               : 0;
}
