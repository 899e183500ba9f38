/*
 * text.c: lines of text read with bounds (text.h).
 */
#include "text.h"
#include "error.h"

#include <errno.h>
#include <string.h>

/* Why byte c, just read after len bytes of its line, ends the reading: 0
 * if it does not. */
static int byte_problem(text_reader *r, int c, size_t len)
{
    if (c == '\0')
        return app_fail_at(APP_ERR_BAD_INPUT, r->name, r->line, "a NUL byte "
                           "at byte offset %llu: this is not text",
                           r->offset - 1);
    if (r->limit && r->offset > r->limit)
        return app_fail(APP_ERR_BAD_INPUT, "%s: longer than %llu bytes, "
                        "the most it may be", r->name, r->limit);
    if (c != '\n' && len >= TEXT_LINE_MAX)
        return app_fail_at(APP_ERR_BAD_INPUT, r->name, r->line, "no line "
                           "end within %d bytes: an endless line",
                           TEXT_LINE_MAX);
    return 0;
}

int text_read_line(text_reader *r, char *line, size_t size)
{
    int c = getc(r->f);
    if (c == EOF && !ferror(r->f))
        return TEXT_END;
    r->line++;
    size_t len = 0;
    for (; c != EOF; c = getc(r->f)) {
        r->offset++;
        int rc = byte_problem(r, c, len);
        if (rc != 0)
            return rc;
        if (c == '\n')
            break;
        if (len + 1 < size)
            line[len] = (char)c;
        len++;
    }
    if (ferror(r->f))
        return app_fail_at(APP_ERR_IO, r->name, r->line, "reading failed: "
                           "%s", strerror(errno));
    line[len < size ? len : size - 1] = '\0';
    if (len < size)
        return TEXT_LINE;
    app_fail_at(APP_ERR_BAD_INPUT, r->name, r->line, "the line is longer "
                "than %zu characters", size - 1);
    return TEXT_TOO_LONG;
}
