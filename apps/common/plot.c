/*
 * plot.c: gnuplot charts (plot.h). gnuplot is started here with its input
 * from a temporary file holding the script (the CSV inline, as a
 * datablock) and its output into a pipe: no file name is ever in its
 * commands, so none can end a command and start another. The PNG read
 * from the pipe is checked whole, then written as every app's files are
 * (common/save.h).
 */
#include "plot.h"
#include "error.h"
#include "save.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum {
    MAX_CSV = 64 << 20,         /* the largest CSV file drawn */
    MAX_PNG = 64 << 20          /* the largest PNG taken from gnuplot */
};

/* The line that ends the datablock. gnuplot ends it at the first line
 * that starts with these letters; every data line starts with a blank. */
static const char block_end[] = "EOD";

/* Copies n bytes to *at and moves it on. */
static void put(char **at, const char *text, size_t n)
{
    memcpy(*at, text, n);
    *at += n;
}

/* The title as a gnuplot string in single quotes, where nothing is
 * substituted (no `command`, no @macro) and a quote is written twice;
 * a control character (a newline would end the command) becomes a blank. */
static void put_title(char **at, const char *title)
{
    put(at, "'", 1);
    for (const unsigned char *c = (const unsigned char *)title; *c; c++) {
        if (*c == '\'')
            put(at, "''", 2);
        else
            *(*at)++ = *c < 0x20 || *c == 0x7f ? ' ' : (char)*c;
    }
    put(at, "'", 1);
}

/* Checks that every line of csv can be a line of the datablock: 0, or
 * APP_ERR_BAD_INPUT naming what and the line. *lines is their count. */
static int check_lines(const char *csv, size_t size, const char *what,
                       size_t *lines)
{
    *lines = 0;
    for (size_t at = 0; at < size; ++*lines) {
        const char *nl = memchr(csv + at, '\n', size - at);
        size_t len = nl ? (size_t)(nl - (csv + at)) : size - at;
        if (memchr(csv + at, '\0', len))
            return app_fail_at(APP_ERR_BAD_INPUT, what, *lines + 1,
                               "a NUL byte: not a CSV file");
        if (len > PLOT_MAX_LINE)
            return app_fail_at(APP_ERR_BAD_INPUT, what, *lines + 1,
                               "a line of more than %d bytes",
                               PLOT_MAX_LINE);
        at += len + 1;
    }
    return 0;
}

int plot_script(const plot_chart *chart, const char *csv, size_t size,
                const char *what, char **out, size_t *length)
{
    size_t lines;
    *out = NULL;
    if (chart->width <= 0 || chart->height <= 0)
        return app_fail(APP_ERR_USAGE, "plot_script: a chart of %d x %d "
                        "pixels", chart->width, chart->height);
    int rc = check_lines(csv, size, what, &lines);
    if (rc != 0)
        return rc;
    const char *title = chart->title ? chart->title : "";
    char header[160];
    int header_len = snprintf(header, sizeof header,
                              "set terminal pngcairo size %d,%d\n"
                              "set output\n"
                              "set datafile separator ','\n"
                              "set title ", chart->width, chart->height);
    size_t title_len = strlen(title);
    size_t commands_len = strlen(chart->commands);
    /* The title at most doubled; a blank and a newline a line. */
    size_t room = (size_t)header_len + 2 * title_len + sizeof " noenhanced\n"
                + sizeof "$data << \n" + sizeof block_end + size + 2 * lines
                + sizeof block_end + 1 + commands_len + 2;
    char *script = malloc(room);
    if (!script)
        return app_fail(APP_ERR_NO_MEMORY, "%s: out of memory for "
                        "gnuplot's commands", what);
    char *at = script;
    put(&at, header, (size_t)header_len);
    put_title(&at, title);
    put(&at, " noenhanced\n$data << ", sizeof " noenhanced\n$data << " - 1);
    put(&at, block_end, sizeof block_end - 1);
    put(&at, "\n", 1);
    for (size_t start = 0; start < size;) {
        const char *nl = memchr(csv + start, '\n', size - start);
        size_t len = nl ? (size_t)(nl - (csv + start)) : size - start;
        put(&at, " ", 1);
        put(&at, csv + start, len);
        put(&at, "\n", 1);
        start += len + 1;
    }
    put(&at, block_end, sizeof block_end - 1);
    put(&at, "\n", 1);
    put(&at, chart->commands, commands_len);
    if (commands_len == 0 || chart->commands[commands_len - 1] != '\n')
        put(&at, "\n", 1);
    *at = '\0';
    *length = (size_t)(at - script);
    *out = script;
    return 0;
}

static uint32_t read_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
           (uint32_t)p[2] << 8 | p[3];
}

int plot_png_is_whole(const unsigned char *png, size_t size)
{
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G',
                                               '\r', '\n', 0x1a, '\n'};
    if (size < sizeof signature || memcmp(png, signature, sizeof signature))
        return 0;
    /* Each chunk: its length, its type, its data, a CRC. */
    for (size_t at = sizeof signature; size - at >= 12;) {
        uint32_t len = read_be32(png + at);
        if (len > size - at - 12)
            return 0;
        int last = memcmp(png + at + 4, "IEND", 4) == 0;
        at += 12 + (size_t)len;
        if (last)
            return at == size;
    }
    return 0;
}

/* The script in an unnamed temporary file, read from its start: gnuplot's
 * standard input. NULL after the message. */
static FILE *script_file(const char *script, size_t length, const char *png)
{
    FILE *f = tmpfile();
    if (f && fwrite(script, 1, length, f) == length && fflush(f) == 0 &&
        fseek(f, 0, SEEK_SET) == 0)
        return f;
    app_fail(APP_ERR_IO, "cannot draw %s: no temporary file for gnuplot's "
             "commands: %s", png, strerror(errno));
    if (f)
        fclose(f);
    return NULL;
}

/* gnuplot started with its standard input from in, its output into the
 * pipe end out, its messages discarded: 0 and *pid, or an errno. */
static int start_gnuplot(FILE *in, int out, pid_t *pid)
{
    posix_spawn_file_actions_t actions;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0)
        return rc;
    if (!(rc = posix_spawn_file_actions_adddup2(&actions, fileno(in), 0)) &&
        !(rc = posix_spawn_file_actions_adddup2(&actions, out, 1)) &&
        !(rc = posix_spawn_file_actions_addopen(&actions, 2, "/dev/null",
                                                O_WRONLY, 0))) {
        char *argv[] = {"gnuplot", NULL};
        rc = posix_spawnp(pid, "gnuplot", &actions, NULL, argv, environ);
    }
    posix_spawn_file_actions_destroy(&actions);
    return rc;
}

/* Everything readable from fd until its end, at most max bytes, into
 * *data (caller frees) and *size: 0, or an errno (EFBIG: more than max). */
static int read_all(int fd, size_t max, unsigned char **data, size_t *size)
{
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap + 1);
    int rc = buf ? 0 : ENOMEM;
    while (rc == 0) {
        if (n == cap) {
            unsigned char *bigger = cap <= max ? realloc(buf, 2 * cap + 1)
                                               : NULL;
            if (!bigger) {
                rc = cap <= max ? ENOMEM : EFBIG;
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
    if (rc == 0 && n > max)
        rc = EFBIG;
    if (rc != 0) {
        free(buf);
        return rc;
    }
    *data = buf;
    *size = n;
    return 0;
}

/* The whole of the CSV file at path into *data (caller frees) and *size:
 * 0, or a failure naming it. */
static int read_csv(const char *path, char **data, size_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return app_fail(APP_ERR_IO, "cannot read %s: %s", path,
                        strerror(errno));
    int why = read_all(fd, MAX_CSV, (unsigned char **)data, size);
    close(fd);
    if (why == EFBIG)
        return app_fail(APP_ERR_BAD_INPUT, "%s: more than %d MiB to plot",
                        path, MAX_CSV >> 20);
    if (why != 0)
        return app_fail(APP_ERR_IO, "cannot read %s: %s", path,
                        strerror(why));
    return 0;
}

/* Runs gnuplot on script and takes the PNG it writes: 0 with *png_data
 * and *png_size, or APP_ERR_IO with a message naming png and csv. */
static int run_gnuplot(const char *script, size_t length, const char *csv,
                       const char *png, unsigned char **png_data,
                       size_t *png_size)
{
    FILE *in = script_file(script, length, png);
    if (!in)
        return APP_ERR_IO;
    int pipe_ends[2];
    if (pipe(pipe_ends) != 0) {
        fclose(in);
        return app_fail(APP_ERR_IO, "cannot draw %s: no pipe for gnuplot: "
                        "%s", png, strerror(errno));
    }
    pid_t pid;
    int why = start_gnuplot(in, pipe_ends[1], &pid);
    fclose(in);
    close(pipe_ends[1]);
    if (why != 0) {
        close(pipe_ends[0]);
        if (why == ENOENT)
            return app_fail(APP_ERR_IO, "cannot draw %s: gnuplot is not "
                            "installed (scripts/install-deps); %s has the "
                            "data", png, csv);
        return app_fail(APP_ERR_IO, "cannot draw %s: cannot run gnuplot: "
                        "%s", png, strerror(why));
    }
    int read_failed = read_all(pipe_ends[0], MAX_PNG, png_data, png_size);
    close(pipe_ends[0]);
    int status = 0;
    pid_t waited;
    while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    int rc = 0;
    if (waited < 0)
        rc = app_fail(APP_ERR_IO, "cannot draw %s: cannot wait for "
                      "gnuplot: %s", png, strerror(errno));
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        rc = app_fail(APP_ERR_IO, "cannot draw %s: gnuplot is not "
                      "installed (scripts/install-deps); %s has the data",
                      png, csv);
    else if (status != 0)
        rc = app_fail(APP_ERR_IO, "gnuplot failed (%s %d) making %s from "
                      "%s", WIFEXITED(status) ? "exit status" : "signal",
                      WIFEXITED(status) ? WEXITSTATUS(status)
                                        : WTERMSIG(status), png, csv);
    else if (read_failed)
        rc = app_fail(APP_ERR_IO, "cannot draw %s: reading gnuplot's PNG "
                      "failed: %s", png, read_failed == EFBIG
                      ? "more than 64 MiB" : strerror(read_failed));
    else if (!plot_png_is_whole(*png_data, *png_size))
        rc = app_fail(APP_ERR_IO, "cannot draw %s: gnuplot wrote no whole "
                      "PNG (%zu bytes) from %s", png, *png_size, csv);
    if (rc != 0 && !read_failed)
        free(*png_data);
    return rc;
}

typedef struct bytes {
    const unsigned char *data;
    size_t size;
} bytes;

static int write_bytes(FILE *f, void *ctx)
{
    const bytes *b = ctx;
    fwrite(b->data, 1, b->size, f);
    return 0;
}

int plot_csv_png(const char *csv, const char *png, const plot_chart *chart)
{
    char *data;
    size_t size, length;
    int rc = read_csv(csv, &data, &size);
    if (rc != 0)
        return rc;
    char *script;
    rc = plot_script(chart, data, size, csv, &script, &length);
    free(data);
    if (rc != 0)
        return rc;
    unsigned char *image;
    size_t image_size;
    rc = run_gnuplot(script, length, csv, png, &image, &image_size);
    free(script);
    if (rc != 0)
        return rc;
    rc = save_file(png, write_bytes, &(bytes){image, image_size});
    free(image);
    return rc;
}
