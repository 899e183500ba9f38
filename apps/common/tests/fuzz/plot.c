/* plot.c: gnuplot's input as plot_script builds it (common/plot.h), from
 * any title (the bytes before the first NUL) and any CSV (the bytes after
 * it, NULs and all). The script read as gnuplot reads it: its datablock's
 * lines in pieces of at most 1023 bytes, ended by the first piece that
 * starts with "EOD"; that must be the block's own end, after exactly the
 * CSV's lines each behind a blank, with the commands after it. No file
 * name is ever in it: not the CSV's (given for messages alone), and the
 * only `set output` is the bare one at the start (the start, the title
 * and the block are checked whole, so none can come from the input). A CSV refused is APP_ERR_BAD_INPUT with a
 * message naming it. The bytes are also given to plot_png_is_whole. */
#include "fuzz.h"
#include "common/error.h"
#include "common/plot.h"


static const char csv_name[] = "/fuzz/never-in-the-script.csv";
static const char commands[] = "plot $data using 1:2 with lines\n";
static const char start[] = "set terminal pngcairo size 800,600\n"
                            "set output\nset datafile separator ','\n"
                            "set title '";

/* gnuplot's datablock buffer: MAX_LINE_LEN, read by fgets. */
enum { GNUPLOT_PIECE = 1024 - 1 };

/* Where the piece of the script at p (ending at its newline or after
 * GNUPLOT_PIECE bytes) ends. */
static const char *piece_end(const char *p)
{
    const char *nl = memchr(p, '\n', strlen(p));
    size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
    return p + (len < GNUPLOT_PIECE ? len : GNUPLOT_PIECE);
}

/* 1 if the script's datablock holds exactly the CSV's lines and ends where
 * the script says. */
static int block_is_the_csv(const char *script, const char *csv, size_t size)
{
    const char *p = strstr(script, "noenhanced\n$data << EOD\n");
    if (!p)
        return 0;
    p += strlen("noenhanced\n$data << EOD\n");
    size_t at = 0;
    while (strncmp(p, "EOD", 3) != 0) {
        if (at >= size)
            return 0;                   /* a line more than the CSV's */
        const char *end = piece_end(p);
        const char *nl = memchr(csv + at, '\n', size - at);
        size_t len = nl ? (size_t)(nl - (csv + at)) : size - at;
        /* One piece per line, the blank then the line itself. */
        if (end[-1] != '\n' || (size_t)(end - p) != len + 2 || p[0] != ' ' ||
            memcmp(p + 1, csv + at, len) != 0)
            return 0;
        at += len + 1;
        p = end;
    }
    return at >= size && strcmp(p, "EOD\n" "plot $data using 1:2 with "
                                   "lines\n") == 0;
}

/* 1 if the n bytes at p hold text. */
static int holds(const void *p, size_t n, const char *text)
{
    size_t len = strlen(text);
    for (size_t i = 0; i + len <= n; i++)
        if (memcmp((const char *)p + i, text, len) == 0)
            return 1;
    return 0;
}

/* 1 if the title between start and end is one quoted string: no newline,
 * every quote one of a pair (gnuplot's '' inside '...'). */
static int title_is_one_string(const char *start_of, const char *end)
{
    for (const char *c = start_of; c < end; c++) {
        if (*c == '\n')
            return 0;
        if (*c == '\'' && (c + 1 >= end || *++c != '\''))
            return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *rest;
    char *title = fuzz_text(data, size, &rest);
    if (!title)
        return 0;
    size_t csv_size = size - (size_t)(rest - title);
    if (rest == title + strlen(title))
        csv_size = 0;                   /* no NUL: no CSV */
    const plot_chart chart = {800, 600, title, commands};
    char *script;
    size_t length;
    int rc = plot_script(&chart, rest, csv_size, csv_name, &script, &length);
    if (rc == 0) {
        size_t skip = sizeof start - 1;
        const char *title_end = strstr(script, "' noenhanced\n$data");
        if (strlen(script) != length || strncmp(script, start, skip) != 0 ||
            !title_end || !title_is_one_string(script + skip, title_end) ||
            (!holds(data, size, csv_name) && strstr(script, csv_name)) ||
            !block_is_the_csv(script, rest, csv_size))
            abort();
        free(script);
    } else if (rc != APP_ERR_BAD_INPUT || script ||
               !strstr(app_last_error(), csv_name))
        abort();
    plot_png_is_whole(data, size);
    free(title);
    return 0;
}
