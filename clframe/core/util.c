/*
 * util.c: the few string and clock helpers the other modules share.
 */
#include "core.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void clf_str_append(clf_str *s, const char *text, size_t n)
{
    if (s->failed)
        return;
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 256;
        while (cap < s->len + n + 1)
            cap *= 2;
        char *data = realloc(s->data, cap);
        if (!data) {
            s->failed = 1;
            return;
        }
        s->data = data;
        s->cap = cap;
    }
    memcpy(s->data + s->len, text, n);
    s->len += n;
    s->data[s->len] = '\0';
}

void clf_str_printf(clf_str *s, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        s->failed = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        clf_str_append(s, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        s->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    clf_str_append(s, big, (size_t)n);
    free(big);
}

char *clf_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
}

double clf_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

int clf_env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

int clf_parse_bytes(const char *text, size_t *bytes)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || errno || text[0] == '-')
        return -1;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (*end || v > ((unsigned long long)SIZE_MAX >> shift))
        return -1;
    *bytes = (size_t)(v << shift);
    return 0;
}

int clf_is_identifier(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    while (isalnum((unsigned char)*s) || *s == '_')
        s++;
    return *s == '\0';
}

/* A stream reading path, which must be a regular file: opened without
 * blocking, so that a FIFO with no writer cannot hang the open, and its
 * kind tested on what was opened, so that nothing can swap it in between.
 * NULL with errno (EINVAL: /dev/zero, a FIFO, a folder, which never end). */
static FILE *open_regular(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    int flags = -1;
    FILE *f = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        errno = EINVAL;
    else if ((flags = fcntl(fd, F_GETFL)) >= 0 &&
             fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0)
        f = fdopen(fd, "rb");
    if (!f) {
        int why = errno;
        close(fd);
        errno = why;
    }
    return f;
}

char *clf_read_file(const char *path, size_t *len)
{
    FILE *f = open_regular(path);
    if (!f)
        return NULL;
    clf_str s = {0};
    char chunk[8192];
    size_t n;
    while (s.len <= CLF_READ_MAX && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        clf_str_append(&s, chunk, n);
    int bad = ferror(f) || s.failed, big = s.len > CLF_READ_MAX;
    fclose(f);
    if (bad || big) {
        free(s.data);
        errno = big ? EFBIG : EIO;
        return NULL;
    }
    if (len)
        *len = s.len;
    return s.data ? s.data : clf_strdup("");
}

int clf_make_dirs(const char *path, mode_t mode)
{
    char *copy = clf_strdup(path);
    int rc = copy ? 0 : -1;
    for (char *p = copy ? copy + 1 : NULL; rc == 0 && p && (p = strchr(p, '/'));
         p++) {
        *p = '\0';
        if (mkdir(copy, mode) != 0 && errno != EEXIST)
            rc = -1;
        *p = '/';
    }
    if (rc == 0 && mkdir(path, mode) != 0 && errno != EEXIST)
        rc = -1;
    free(copy);
    return rc;
}
