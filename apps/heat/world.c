/*
 * world.c: the heat world outside of stepping it: allocation, the spec's
 * standard "slalom track" world, validation, and the HPCEHeatWorldV0 text
 * and binary file formats (apps/heat/SPEC.md), read and written
 * byte-compatibly with the seed's C++ program.
 *
 * Reading goes through getc_unlocked on the caller's FILE, one character
 * at a time, rather than a private read-ahead buffer: the FILE is already
 * buffered, and the stream is left just after "End" for whoever reads on
 * (the space that ends a token is consumed with it, and only the one
 * after "End" given back). Numbers are parsed by decimal.c, exactly as
 * strtof would. Binary arrays are read with fread, straight into the
 * world, and checked by loops the compiler vectorizes. Arrays grow
 * as their entries arrive (make_room), since a header of 35 bytes can
 * claim gigabytes.
 * Writing formats into a buffer of our own, with a hand-written fixed-point
 * formatter that gives printf's "%.8f" digits for temperatures in [0, 1]
 * at a fraction of printf's cost.
 * Where a world goes through a pipe, both ends widen it (widen_pipe).
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE             /* F_GETPIPE_SZ, F_SETPIPE_SZ */
#endif
#include "world.h"
#include "decimal.h"
#include "common/error.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char text_header[] = "HPCEHeatWorldV0";
static const char binary_header[] = "HPCEHeatWorldV0Binary";

/* ------------------------------------------------------------------------ */
/* Allocation                                                                 */
/* ------------------------------------------------------------------------ */

/* The cell count of a w x h world, or 0 when a size is zero or the world
 * is larger than HEAT_WORLD_MAX_CELLS. */
static size_t cell_count(uint32_t w, uint32_t h)
{
    if (w == 0 || h == 0 || (uint64_t)w * h > HEAT_WORLD_MAX_CELLS)
        return 0;
    return (size_t)w * h;
}

int heat_world_alloc(heat_world *world, uint32_t w, uint32_t h, float alpha)
{
    memset(world, 0, sizeof *world);
    if (w == 0 || h == 0)
        return app_fail(APP_ERR_BAD_INPUT,
                        "heat world of %u x %u cells: both sizes must "
                        "be positive", w, h);
    size_t cells = cell_count(w, h);
    if (cells == 0)
        return app_fail(APP_ERR_BAD_INPUT,
                        "heat world of %u x %u cells is too large: at "
                        "most %u cells", w, h, HEAT_WORLD_MAX_CELLS);
    world->properties = calloc(cells, sizeof *world->properties);
    world->state = calloc(cells, sizeof *world->state);
    if (!world->properties || !world->state) {
        heat_world_free(world);
        return app_fail(APP_ERR_NO_MEMORY,
                        "heat world of %u x %u cells: out of memory for "
                        "two arrays of %zu bytes", w, h, cells * 4);
    }
    world->w = w;
    world->h = h;
    world->alpha = alpha;
    return 0;
}

void heat_world_free(heat_world *world)
{
    if (!world)
        return;
    free(world->properties);
    free(world->state);
    memset(world, 0, sizeof *world);
}

/* dst is an output, like alloc's world: whatever it held is not freed. */
int heat_world_copy(heat_world *dst, const heat_world *src)
{
    int rc = heat_world_alloc(dst, src->w, src->h, src->alpha);
    if (rc != 0)
        return rc;
    size_t cells = (size_t)src->w * src->h;
    memcpy(dst->properties, src->properties, cells * sizeof *src->properties);
    memcpy(dst->state, src->state, cells * sizeof *src->state);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The standard world                                                         */
/* ------------------------------------------------------------------------ */

static void set_insulator_row(heat_world *world, uint32_t y, uint32_t x0,
                              uint32_t x1)
{
    for (uint32_t x = x0; x < x1; x++)
        world->properties[(size_t)y * world->w + x] = HEAT_CELL_INSULATOR;
}

static void set_insulator_column(heat_world *world, uint32_t x, uint32_t y0,
                                 uint32_t y1)
{
    for (uint32_t y = y0; y < y1; y++)
        world->properties[(size_t)y * world->w + x] = HEAT_CELL_INSULATOR;
}

static void set_fixed(heat_world *world, uint32_t x, uint32_t y, float t)
{
    size_t i = (size_t)y * world->w + x;
    world->properties[i] = HEAT_CELL_FIXED;
    world->state[i] = t;
}

/* The rules in the spec's order, later ones overwriting earlier ones. */
int heat_world_make_standard(heat_world *world, uint32_t n, float alpha)
{
    if (n < 3) {
        memset(world, 0, sizeof *world);
        return app_fail(APP_ERR_BAD_INPUT,
                        "standard heat world of size %u: n must be at "
                        "least 3 (the sink sits on row n-3)", n);
    }
    int rc = heat_world_alloc(world, n, n, alpha);
    if (rc != 0)
        return rc;
    uint32_t low = n / 3, mid = n / 2, high = (uint32_t)((2 * (uint64_t)n) / 3);

    set_insulator_row(world, 0, 0, n);
    set_insulator_row(world, n - 1, 0, n);
    set_insulator_column(world, 0, 0, n);
    set_insulator_column(world, n - 1, 0, n);

    set_insulator_row(world, low, 0, high);
    set_insulator_row(world, high, low, n);
    set_insulator_column(world, high, low, mid);
    set_insulator_column(world, low, mid, high);

    for (uint32_t x = 1; x + 1 < n; x++)
        set_fixed(world, x, 1, 1.0f);
    set_fixed(world, mid, n - 3, 0.0f);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* What a valid cell is (shared by the loader and heat_world_validate)       */
/* ------------------------------------------------------------------------ */

/* Why flags cannot be cell (x, y)'s, ending a sentence that starts with
 * "flag value F at x=X, y=Y"; NULL when they are fine. The border must
 * block diffusion or never change, since a stepper reads the neighbours of
 * every other cell without bounds checks. */
static const char *flags_problem(uint32_t flags, uint32_t x, uint32_t y,
                                 uint32_t w, uint32_t h)
{
    if (flags != HEAT_CELL_NORMAL && flags != HEAT_CELL_FIXED &&
        flags != HEAT_CELL_INSULATOR)
        return "is unknown (valid: 0 normal, 1 fixed, 2 insulator)";
    int border = x == 0 || y == 0 || x == w - 1 || y == h - 1;
    if (border && flags == HEAT_CELL_NORMAL)
        return "is a normal cell on the border, which must be insulating "
               "(2) or fixed (1)";
    return NULL;
}

/* Why t cannot be a temperature, ending "temperature T at x=X, y=Y".
 * -0 is refused too: a temperature has no sign, and a world read and
 * written again would otherwise keep a "-0.00000000". */
static const char *temperature_problem(float t)
{
    if (isnan(t))
        return "is not a number (NaN); temperatures must be in [0, 1]";
    if (t < 0.0f || t > 1.0f)
        return "is outside [0, 1]";
    if (signbit(t))
        return "is -0, a zero with a sign; write 0";
    return NULL;
}

/* Whether flags may be those of a cell inside the border, or on it. */
static int inner_flags_ok(uint32_t flags)
{
    return flags <= HEAT_CELL_INSULATOR;
}

static int border_flags_ok(uint32_t flags)
{
    return flags == HEAT_CELL_FIXED || flags == HEAT_CELL_INSULATOR;
}

/* Scans of whole arrays go a block at a time: a loop of a fixed count
 * that only ORs and adds is one the compiler vectorizes even at -O2. */
enum { SCAN_BLOCK = 64 };

/* Whether all of n flag words are at most 2 (known values): for such a
 * v, v | (v + 1) is at most 3, and for any other (3, 4, ..., 2^32 - 1) it
 * has a higher bit set. */
static int inner_flags_all_ok(const uint32_t *flags, size_t n)
{
    uint32_t seen = 0;
    size_t i = 0;
    for (; i + SCAN_BLOCK <= n; i += SCAN_BLOCK)
        for (size_t k = 0; k < SCAN_BLOCK; k++)
            seen |= flags[i + k] | (flags[i + k] + 1);
    for (; i < n; i++)
        seen |= flags[i] | (flags[i] + 1);
    return (seen & ~3u) == 0;
}

/* The index of the first cell whose flags flags_problem refuses, or w*h
 * if none is. Row by row, with no division per cell: the inside of a row
 * is checked in one pass, and searched again only when it holds a bad
 * word. */
static size_t first_bad_flags(const uint32_t *flags, uint32_t w, uint32_t h)
{
    for (uint32_t y = 0; y < h; y++) {
        const uint32_t *row = flags + (size_t)y * w;
        size_t start = (size_t)y * w;
        if (y == 0 || y == h - 1) {
            for (uint32_t x = 0; x < w; x++)
                if (!border_flags_ok(row[x]))
                    return start + x;
            continue;
        }
        if (!border_flags_ok(row[0]))
            return start;
        if (w > 2 && !inner_flags_all_ok(row + 1, w - 2))
            for (uint32_t x = 1; x + 1 < w; x++)
                if (!inner_flags_ok(row[x]))
                    return start + x;
        if (!border_flags_ok(row[w - 1]))
            return start + w - 1;
    }
    return (size_t)w * h;
}

/* Whether all of n floats are temperatures (in [0, 1], not NaN, no
 * sign). Read as unsigned integers, those are exactly the bit patterns
 * from 0 (+0) to 0x3f800000 (1.0f): every negative number and NaN lies
 * above. With b + (0x7fffffff - 0x3f800000), which sets the top bit for
 * b from 0x3f800001 to 0x7fffffff, b | that sum has its top bit set
 * exactly for the patterns above 0x3f800000. */
static int temperatures_all_ok(const float *t, size_t n)
{
    const uint32_t shift = 0x7fffffffu - 0x3f800000u;
    uint32_t seen = 0;
    size_t i = 0;
    for (; i + SCAN_BLOCK <= n; i += SCAN_BLOCK) {
        uint32_t bits[SCAN_BLOCK];
        memcpy(bits, t + i, sizeof bits);
        for (size_t k = 0; k < SCAN_BLOCK; k++)
            seen |= bits[k] | (bits[k] + shift);
    }
    for (; i < n; i++) {
        uint32_t bits;
        memcpy(&bits, &t[i], sizeof bits);
        seen |= bits | (bits + shift);
    }
    return (seen >> 31) == 0;
}

/* The index of the first of n temperatures that temperature_problem
 * refuses, or n; searched one by one only in a block that holds one. */
static size_t first_bad_temperature(const float *t, size_t n)
{
    enum { BLOCK = 4096 };
    for (size_t start = 0; start < n; start += BLOCK) {
        size_t count = n - start < BLOCK ? n - start : BLOCK;
        if (temperatures_all_ok(t + start, count))
            continue;
        for (size_t i = start; i < start + count; i++)
            if (temperature_problem(t[i]))
                return i;
    }
    return n;
}

/* The first bad cell in index order; a cell with bad flags and a bad
 * temperature is reported for its flags. */
int heat_world_validate(const heat_world *world)
{
    if (!world || !world->properties || !world->state || world->w == 0 ||
        world->h == 0)
        return app_fail(APP_ERR_USAGE,
                        "heat world: empty (no cells or no arrays)");
    if (!isfinite(world->alpha) || signbit(world->alpha))
        return app_fail(APP_ERR_BAD_INPUT,
                        "heat world: alpha %g is not a finite number "
                        ">= 0 without a sign", world->alpha);
    size_t n = (size_t)world->w * world->h;
    size_t bad_flags = first_bad_flags(world->properties, world->w, world->h);
    size_t bad_t = first_bad_temperature(world->state, n);
    if (bad_flags < n && bad_flags <= bad_t) {
        size_t i = bad_flags;
        uint32_t x = (uint32_t)(i % world->w), y = (uint32_t)(i / world->w);
        return app_fail(APP_ERR_BAD_INPUT,
                        "heat world: flag value %u at x=%u, y=%u %s",
                        world->properties[i], x, y,
                        flags_problem(world->properties[i], x, y, world->w,
                                      world->h));
    }
    if (bad_t < n) {
        size_t i = bad_t;
        return app_fail(APP_ERR_BAD_INPUT,
                        "heat world: temperature %g at x=%u, y=%u %s",
                        world->state[i], (uint32_t)(i % world->w),
                        (uint32_t)(i / world->w),
                        temperature_problem(world->state[i]));
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Pipes                                                                      */
/* ------------------------------------------------------------------------ */

/* The pipe size widen_pipe asks for: Linux's default limit for an
 * unprivileged process (/proc/sys/fs/pipe-max-size). */
enum { WIDE_PIPE = 1 << 20 };

/* A pipe holds 64 KiB by default on Linux, so a world of hundreds of
 * megabytes (make_world | step_world) crosses it in thousands of turns of
 * writer and reader; a 1 MiB pipe takes a sixteenth of them. Best effort:
 * nothing happens where f is no pipe, the system has no such call or
 * refuses (a user over their pipe quota), and errno is left as it was. */
static void widen_pipe(FILE *f)
{
#if defined(F_GETPIPE_SZ) && defined(F_SETPIPE_SZ)
    int saved_errno = errno;
    struct stat st;
    int fd = fileno(f);
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) &&
        fcntl(fd, F_GETPIPE_SZ) < WIDE_PIPE)
        (void)fcntl(fd, F_SETPIPE_SZ, WIDE_PIPE);
    errno = saved_errno;
#else
    (void)f;
#endif
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                    */
/* ------------------------------------------------------------------------ */

/* The longest word (no number needs more), and the most whitespace in a
 * row (the seed writes one character): beyond them a stream is refused,
 * since an endless one (/dev/zero, `yes ''`) would otherwise be read
 * for ever. */
enum { TOKEN_MAX = 255, SPACE_MAX = 1 << 20 };

/* A stream being read, with where we are in it for messages. */
typedef struct reader {
    FILE *f;
    const char *name;
    unsigned long line;       /* line of the next character, from 1 */
    unsigned long long offset;/* bytes consumed */
    char token[TOKEN_MAX + 1];/* the last token */
    size_t token_len;         /* its length; 0 at the end of input */
    unsigned long token_line; /* the line it started on */
    int after_token;          /* the space that ended it, consumed, or EOF */
} reader;

static int is_space(int c)
{
    return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' ||
           c == '\f';
}

static int next_char(reader *r)
{
    int c = getc_unlocked(r->f);
    if (c != EOF) {
        r->offset++;
        if (c == '\n')
            r->line++;
    }
    return c;
}

/* Reads past whitespace to the first other character, *c (EOF at the
 * end). 0, or an error for more than SPACE_MAX bytes of it in a row,
 * counting the space that ended the last token. */
static int skip_space(reader *r, int *c)
{
    unsigned long long start = r->offset - (r->after_token != EOF);
    r->after_token = EOF;
    do
        *c = next_char(r);
    while (is_space(*c) && r->offset - start <= SPACE_MAX);
    if (is_space(*c))
        return app_fail(APP_ERR_BAD_INPUT, "%s: line %lu: more than %d "
                        "bytes of whitespace in a row from byte offset "
                        "%llu", r->name, r->line, SPACE_MAX, start);
    return 0;
}

/* Gives the stream back the space that ended the last token, so that it
 * stands just after the token (one character, as ungetc promises). */
static void unread_after_token(reader *r)
{
    if (r->after_token != EOF)
        ungetc(r->after_token, r->f);
    r->after_token = EOF;
}

/* Whether the last token is exactly word. */
static int token_is(const reader *r, const char *word)
{
    return r->token_len == strlen(word) &&
           memcmp(r->token, word, r->token_len) == 0;
}

/* The last token as a message shows it: control bytes as '?', "..."
 * after a long one cut, so binary junk never garbles the message. */
static const char *token_shown(reader *r)
{
    static _Thread_local char shown[48];
    size_t room = sizeof shown - 4;
    size_t keep = r->token_len < room ? r->token_len : room;
    for (size_t i = 0; i < keep; i++) {
        unsigned char c = (unsigned char)r->token[i];
        shown[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    strcpy(shown + keep, keep < r->token_len ? "..." : "");
    return shown;
}

/* The error for input that ended (or failed) where `what` was expected. */
static int input_ended(reader *r, const char *what)
{
    if (ferror(r->f))
        return app_fail(APP_ERR_IO, "%s: reading failed at byte "
                        "offset %llu: %s", r->name, r->offset,
                        strerror(errno));
    if (r->offset == 0)
        return app_fail(APP_ERR_BAD_INPUT, "%s: empty input; "
                        "expected a heat world starting with %s or %s",
                        r->name, text_header, binary_header);
    return app_fail(APP_ERR_BAD_INPUT, "%s: line %lu: input ends "
                    "where %s should be", r->name, r->line, what);
}

/* Reads the next whitespace-separated token into r->token, as the seed's
 * iostream >> does; r->token_len is 0 at the end of input. The space
 * that ends it is consumed too, kept in r->after_token for
 * unread_after_token: one ungetc per world rather than one per token.
 * 0, or an error: a NUL byte (the text of a world, the binary format's
 * header included, holds none: it is binary junk or /dev/zero), or a
 * token longer than TOKEN_MAX. */
static int read_token(reader *r)
{
    int c, rc = skip_space(r, &c);
    r->token_line = r->line;
    r->token_len = 0;
    r->token[0] = '\0';
    if (rc != 0 || c == EOF)
        return rc;
    /* Every byte above ' ' belongs to the token: the loop that takes
     * them is the hot one. Below it lie the spaces, NUL, EOF and the
     * other control bytes, which a token may hold. */
    FILE *f = r->f;
    char *token = r->token;
    unsigned long long start = r->offset - 1;
    size_t len = 0;
    for (;;) {
        while (c > ' ' && len < TOKEN_MAX) {
            token[len++] = (char)c;
            c = getc_unlocked(f);
        }
        if (c == EOF || is_space(c) || c == '\0' || len == TOKEN_MAX)
            break;
        token[len++] = (char)c;
        c = getc_unlocked(f);
    }
    token[len] = '\0';
    r->token_len = len;
    r->offset = start + len;
    if (c == '\0')
        return app_fail(APP_ERR_BAD_INPUT, "%s: line %lu: a NUL byte "
                        "at byte offset %llu; a heat world is text, "
                        "apart from the binary format's arrays",
                        r->name, r->line, r->offset);
    if (c != EOF && !is_space(c))
        return app_fail(APP_ERR_BAD_INPUT, "%s: line %lu: a word of "
                        "more than %d characters ('%s')", r->name,
                        r->token_line, TOKEN_MAX, token_shown(r));
    if (c != EOF) {
        r->offset++;
        if (c == '\n')
            r->line++;
    }
    r->after_token = c;
    return 0;
}

/* Reads a token that must be there: 0, or read_token's error, or that
 * of an input that ended where `what` should be. */
static int expect_token(reader *r, const char *what)
{
    int rc = read_token(r);
    if (rc == 0 && r->token_len == 0)
        rc = input_ended(r, what);
    return rc;
}

/* Parses a token of decimal digits into *value (saturating at
 * UINT64_MAX); 0 if it is not only digits. */
static int parse_digits(const char *text, size_t len, uint64_t *value)
{
    if (len == 0 || len > TOKEN_MAX)
        return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return 0;
        unsigned d = (unsigned)(text[i] - '0');
        v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
    }
    *value = v;
    return 1;
}

/* Parses a whole token as a float; 0 if it is not a number by the
 * format's rule (heat_parse_decimal). */
static int parse_float(const char *text, size_t len, float *value)
{
    return len <= TOKEN_MAX && heat_parse_decimal(text, len, value);
}

/* Reads the width or height: a positive integer below 2^32. */
static int read_size(reader *r, const char *what, uint32_t *size)
{
    int rc = expect_token(r, what);
    if (rc != 0)
        return rc;
    uint64_t v;
    if (!parse_digits(r->token, r->token_len, &v))
        return app_fail(APP_ERR_BAD_INPUT, "%s: line %lu: expected "
                        "the %s, a positive integer, found '%s'",
                        r->name, r->token_line, what, token_shown(r));
    if (v == 0 || v > UINT32_MAX)
        return app_fail(APP_ERR_BAD_INPUT, "%s: line %lu: %s %s is "
                        "not a positive integer below 2^32", r->name,
                        r->token_line, what, token_shown(r));
    *size = (uint32_t)v;
    return 0;
}

/* Reads the header line: format word, width, height, alpha. */
static int read_header(reader *r, uint32_t *w, uint32_t *h, float *alpha,
                       int *binary)
{
    int rc = expect_token(r, "the header");
    if (rc != 0)
        return rc;
    if (token_is(r, text_header))
        *binary = 0;
    else if (token_is(r, binary_header))
        *binary = 1;
    else
        return app_fail(APP_ERR_BAD_INPUT, "%s: line %lu: unknown "
                        "header '%s'; expected %s or %s", r->name,
                        r->token_line, token_shown(r), text_header,
                        binary_header);
    if ((rc = read_size(r, "width", w)) != 0 ||
        (rc = read_size(r, "height", h)) != 0)
        return rc;
    if (cell_count(*w, *h) == 0)
        return app_fail(APP_ERR_BAD_INPUT, "%s: line %lu: a world "
                        "of %u x %u cells is too large: at most %u "
                        "cells", r->name, r->token_line, *w, *h,
                        HEAT_WORLD_MAX_CELLS);
    if ((rc = expect_token(r, "alpha")) != 0)
        return rc;
    if (!parse_float(r->token, r->token_len, alpha) || !isfinite(*alpha) ||
        signbit(*alpha))
        return app_fail(APP_ERR_BAD_INPUT, "%s: line %lu: alpha "
                        "'%s' is not a finite number >= 0 without a sign "
                        "(" HEAT_DECIMAL_RULE ")", r->name, r->token_line,
                        token_shown(r));
    return 0;
}

/* The two arrays of a world, for make_room. */
typedef enum array_kind { PROPERTIES, STATE } array_kind;

/* Entries allocated for an array at first; then the room doubles. */
enum { FIRST_ENTRIES = 1 << 16 };

/* Makes room in the world's array `kind` for entry i (of the header's w x
 * h): none is made until entries arrive, then FIRST_ENTRIES, then twice
 * as many each time, never more than w x h. So what a world costs in
 * memory is at most about twice what its input has held, whatever its
 * header claims. *room is how many entries are allocated. */
static int make_room(reader *r, heat_world *world, array_kind kind, size_t i,
                     size_t *room)
{
    if (i < *room)
        return 0;
    size_t n = (size_t)world->w * world->h;
    size_t more = *room ? 2 * *room : FIRST_ENTRIES;
    if (more > n)
        more = n;
    void *old = kind == STATE ? (void *)world->state
                              : (void *)world->properties;
    void *grown = realloc(old, more * 4);
    if (!grown)
        return app_fail(APP_ERR_NO_MEMORY, "%s: out of memory for %zu "
                        "of the %zu cells' %s", r->name, more, n,
                        kind == STATE ? "temperatures" : "properties");
    if (kind == STATE)
        world->state = grown;
    else
        world->properties = grown;
    *room = more;
    return 0;
}

/* Reads the '-' that starts an array. In text it is a token of its own;
 * in binary the array's raw bytes follow it directly. */
static int read_separator(reader *r, int binary, const char *before)
{
    char what[64];
    snprintf(what, sizeof what, "'-' before the %s", before);
    int c, rc;
    if (binary) {
        if ((rc = skip_space(r, &c)) != 0 || c == '-')
            return rc;
        if (c == EOF)
            return input_ended(r, what);
        return app_fail(APP_ERR_BAD_INPUT, "%s: byte offset %llu: "
                        "expected '-' before the %s, found byte 0x%02x",
                        r->name, r->offset - 1, before, (unsigned)c);
    }
    if ((rc = expect_token(r, what)) != 0)
        return rc;
    if (!token_is(r, "-"))
        return app_fail(APP_ERR_BAD_INPUT, "%s: line %lu: expected "
                        "'-' before the %s, found '%s'", r->name,
                        r->token_line, before, token_shown(r));
    return 0;
}

/* A token where the i-th of n array entries should be: the end of the
 * input, a '-' or "End" mean the array is too short. */
static int truncated_text(reader *r, const char *array, size_t i, size_t n)
{
    if (r->token_len == 0) {
        if (ferror(r->f))
            return input_ended(r, array);
        return app_fail(APP_ERR_BAD_INPUT, "%s: line %lu: truncated "
                        "%s array: found the end of input after %zu of "
                        "%zu entries", r->name, r->line, array, i, n);
    }
    return app_fail(APP_ERR_BAD_INPUT, "%s: line %lu: truncated %s "
                    "array: found '%s' after %zu of %zu entries", r->name,
                    r->token_line, array, token_shown(r), i, n);
}

static int is_array_end(reader *r)
{
    return r->token_len == 0 ||
           (r->token_len == 1 && r->token[0] == '-') ||
           (r->token_len == 3 && memcmp(r->token, "End", 3) == 0);
}

/* Steps (x, y) to the next cell of a row-by-row array w wide. */
static void next_cell(uint32_t *x, uint32_t *y, uint32_t w)
{
    if (++*x == w)
        *x = 0, ++*y;
}

static int read_text_properties(reader *r, heat_world *world)
{
    size_t n = (size_t)world->w * world->h, room = 0;
    uint32_t x = 0, y = 0;
    for (size_t i = 0; i < n; i++, next_cell(&x, &y, world->w)) {
        int rc = make_room(r, world, PROPERTIES, i, &room);
        if (rc == 0)
            rc = read_token(r);
        if (rc != 0)
            return rc;
        if (is_array_end(r))
            return truncated_text(r, "properties", i, n);
        uint64_t v;
        if (!parse_digits(r->token, r->token_len, &v))
            return app_fail(APP_ERR_BAD_INPUT, "%s: line %lu: "
                            "property '%s' at x=%u, y=%u is not a "
                            "number", r->name, r->token_line,
                            token_shown(r), x, y);
        const char *why = flags_problem(v > UINT32_MAX ? UINT32_MAX : (uint32_t)v,
                                        x, y, world->w, world->h);
        if (why)
            return app_fail(APP_ERR_BAD_INPUT, "%s: line %lu: flag "
                            "value %s at x=%u, y=%u %s", r->name,
                            r->token_line, token_shown(r), x, y, why);
        world->properties[i] = (uint32_t)v;
    }
    return 0;
}

static int read_text_state(reader *r, heat_world *world)
{
    size_t n = (size_t)world->w * world->h, room = 0;
    uint32_t x = 0, y = 0;
    for (size_t i = 0; i < n; i++, next_cell(&x, &y, world->w)) {
        int rc = make_room(r, world, STATE, i, &room);
        if (rc == 0)
            rc = read_token(r);
        if (rc != 0)
            return rc;
        if (is_array_end(r))
            return truncated_text(r, "state", i, n);
        float t;
        if (!parse_float(r->token, r->token_len, &t))
            return app_fail(APP_ERR_BAD_INPUT, "%s: line %lu: "
                            "temperature '%s' at x=%u, y=%u is not a "
                            "number (" HEAT_DECIMAL_RULE ")", r->name,
                            r->token_line, token_shown(r), x, y);
        const char *why = temperature_problem(t);
        if (why)
            return app_fail(APP_ERR_BAD_INPUT, "%s: line %lu: "
                            "temperature %s at x=%u, y=%u %s", r->name,
                            r->token_line, token_shown(r), x, y, why);
        world->state[i] = t;
    }
    return 0;
}

static int host_is_big_endian(void)
{
    const uint32_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 0;
}

/* The file's little-endian words, in place, as host words. */
static void words_from_little_endian(void *data, size_t n)
{
    if (!host_is_big_endian())
        return;
    unsigned char *p = data;
    for (size_t i = 0; i < n; i++, p += 4) {
        unsigned char b0 = p[0], b1 = p[1];
        p[0] = p[3], p[1] = p[2], p[2] = b1, p[3] = b0;
    }
}

/* Reads the raw 4-byte words of the world's array `kind`, w x h of them,
 * a part at a time as make_room grows it; *start is where they began. */
static int read_binary_words(reader *r, heat_world *world, array_kind kind,
                             unsigned long long *start)
{
    const char *array = kind == STATE ? "state" : "properties";
    size_t n = (size_t)world->w * world->h, room = 0, have = 0;
    *start = r->offset;
    while (have < n) {
        int rc = make_room(r, world, kind, have, &room);
        if (rc != 0)
            return rc;
        unsigned char *words = kind == STATE ? (unsigned char *)world->state
                               : (unsigned char *)world->properties;
        size_t want = (room - have) * 4;
        size_t got = fread(words + have * 4, 1, want, r->f);
        r->offset += got;
        if (got != want) {
            if (ferror(r->f))
                return input_ended(r, array);
            return app_fail(APP_ERR_BAD_INPUT, "%s: truncated %s array: "
                            "expected %zu bytes from byte offset %llu, "
                            "found %zu", r->name, array, n * 4, *start,
                            have * 4 + got);
        }
        have = room;
    }
    words_from_little_endian(kind == STATE ? (void *)world->state
                                           : (void *)world->properties, n);
    return 0;
}

static int read_binary_properties(reader *r, heat_world *world)
{
    unsigned long long start;
    int rc = read_binary_words(r, world, PROPERTIES, &start);
    if (rc != 0)
        return rc;
    size_t i = first_bad_flags(world->properties, world->w, world->h);
    if (i == (size_t)world->w * world->h)
        return 0;
    uint32_t x = (uint32_t)(i % world->w), y = (uint32_t)(i / world->w);
    return app_fail(APP_ERR_BAD_INPUT, "%s: byte offset %llu: flag value "
                    "%u at x=%u, y=%u %s", r->name,
                    start + 4 * (unsigned long long)i, world->properties[i],
                    x, y, flags_problem(world->properties[i], x, y,
                                        world->w, world->h));
}

static int read_binary_state(reader *r, heat_world *world)
{
    size_t n = (size_t)world->w * world->h;
    unsigned long long start;
    int rc = read_binary_words(r, world, STATE, &start);
    if (rc != 0)
        return rc;
    size_t i = first_bad_temperature(world->state, n);
    if (i == n)
        return 0;
    return app_fail(APP_ERR_BAD_INPUT, "%s: byte offset %llu: temperature "
                    "%g at x=%u, y=%u %s", r->name,
                    start + 4 * (unsigned long long)i, world->state[i],
                    (uint32_t)(i % world->w), (uint32_t)(i / world->w),
                    temperature_problem(world->state[i]));
}

static int read_end(reader *r)
{
    int rc = expect_token(r, "'End'");
    if (rc != 0)
        return rc;
    if (!token_is(r, "End"))
        return app_fail(APP_ERR_BAD_INPUT, "%s: line %lu: expected "
                        "'End' after the state array, found '%s'",
                        r->name, r->token_line, token_shown(r));
    return 0;
}

/* The arrays are left to the readers, which allocate them as entries
 * arrive (make_room). */
static int read_world(reader *r, heat_world *world)
{
    int binary = 0, rc;
    if ((rc = read_header(r, &world->w, &world->h, &world->alpha,
                          &binary)) != 0 ||
        (rc = read_separator(r, binary, "properties")) != 0 ||
        (rc = (binary ? read_binary_properties : read_text_properties)(r, world)) != 0 ||
        (rc = read_separator(r, binary, "temperatures")) != 0 ||
        (rc = (binary ? read_binary_state : read_text_state)(r, world)) != 0)
        return rc;
    return read_end(r);
}

int heat_world_load(heat_world *world, FILE *f, const char *name)
{
    memset(world, 0, sizeof *world);
    reader r = {.f = f, .name = name ? name : "<input>", .line = 1,
                .after_token = EOF};
    widen_pipe(f);
    flockfile(f);
    int rc = read_world(&r, world);
    unread_after_token(&r);
    funlockfile(f);
    if (rc != 0)
        heat_world_free(world);
    return rc;
}

/* Reads on to the end of the input, which may hold only whitespace. */
static int read_nothing_more(reader *r)
{
    int rc = read_token(r);
    if (rc == 0 && r->token_len != 0)
        rc = app_fail(APP_ERR_BAD_INPUT, "%s: line %lu: '%s' after "
                      "'End'; a world ends there, with nothing but "
                      "whitespace after it", r->name, r->token_line,
                      token_shown(r));
    else if (rc == 0 && ferror(r->f))
        rc = input_ended(r, "the end of the input");
    return rc;
}

int heat_world_load_whole(heat_world *world, FILE *f, const char *name)
{
    memset(world, 0, sizeof *world);
    reader r = {.f = f, .name = name ? name : "<input>", .line = 1,
                .after_token = EOF};
    widen_pipe(f);
    flockfile(f);
    int rc = read_world(&r, world);
    if (rc == 0)
        rc = read_nothing_more(&r);
    funlockfile(f);
    if (rc != 0)
        heat_world_free(world);
    return rc;
}

int heat_world_load_file(heat_world *world, const char *path)
{
    memset(world, 0, sizeof *world);
    FILE *f = fopen(path, "rb");
    if (!f)
        return app_fail(APP_ERR_IO, "%s: cannot open: %s", path,
                        strerror(errno));
    int rc = heat_world_load_whole(world, f, path);
    fclose(f);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                    */
/* ------------------------------------------------------------------------ */

/* Output gathered in a buffer and written in large pieces. */
typedef struct writer {
    FILE *f;
    int failed;
    size_t len;
    char buf[1 << 16];
} writer;

/* Room that one formatted entry never exceeds ("%.8f" of FLT_MAX is 48). */
enum { ENTRY_MAX = 64 };

static void writer_flush(writer *wr)
{
    if (wr->len && !wr->failed && fwrite(wr->buf, 1, wr->len, wr->f) != wr->len)
        wr->failed = 1;
    wr->len = 0;
}

/* Where the next entry goes, with at least ENTRY_MAX bytes of room. */
static char *writer_room(writer *wr)
{
    if (sizeof wr->buf - wr->len < ENTRY_MAX)
        writer_flush(wr);
    return wr->buf + wr->len;
}

static void writer_put(writer *wr, const char *text)
{
    size_t n = strlen(text);
    if (sizeof wr->buf - wr->len < n)
        writer_flush(wr);
    memcpy(wr->buf + wr->len, text, n);
    wr->len += n;
}

static void writer_put_raw(writer *wr, const void *data, size_t bytes)
{
    writer_flush(wr);
    if (!wr->failed && fwrite(data, 1, bytes, wr->f) != bytes)
        wr->failed = 1;
}

static char *format_uint(char *p, uint32_t v)
{
    char digits[10];
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n)
        *p++ = digits[--n];
    return p;
}

/* "00" to "99", two characters each: writing a number two digits at a
 * time halves the chain of divisions each digit waits for. */
static const char digit_pairs[] =
    "0001020304050607080910111213141516171819"
    "2021222324252627282930313233343536373839"
    "4041424344454647484950515253545556575859"
    "6061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

static void put_two_digits(char *p, uint32_t v)
{
    memcpy(p, digit_pairs + 2 * v, 2);
}

/* printf("%.8f", t) for any float. For t in [0, 1] (every valid
 * temperature) t * 1e8 is exact in double (24 + 19 significant bits), so
 * rint, which rounds ties to even in the current rounding mode as glibc's
 * printf does, gives printf's digits without printf's cost. */
static char *format_fixed8(char *p, float t)
{
    if (!(t >= 0.0f && t <= 1.0f) || signbit(t))
        return p + snprintf(p, ENTRY_MAX, "%.8f", t);
    uint32_t v = (uint32_t)rint((double)t * 1e8);
    *p++ = (char)('0' + v / 100000000u);
    *p++ = '.';
    v %= 100000000u;
    uint32_t high = v / 10000, low = v % 10000;
    put_two_digits(p, high / 100);
    put_two_digits(p + 2, high % 100);
    put_two_digits(p + 4, low / 100);
    put_two_digits(p + 6, low % 100);
    return p + 8;
}

static void write_text_arrays(writer *wr, const heat_world *world)
{
    writer_put(wr, "-\n");
    for (uint32_t y = 0; y < world->h; y++) {
        const uint32_t *row = world->properties + (size_t)y * world->w;
        for (uint32_t x = 0; x < world->w; x++) {
            char *p = writer_room(wr);
            *p++ = ' ';
            wr->len = (size_t)(format_uint(p, row[x]) - wr->buf);
        }
        writer_put(wr, "\n");
    }
    writer_put(wr, "-\n");
    for (uint32_t y = 0; y < world->h; y++) {
        const float *row = world->state + (size_t)y * world->w;
        for (uint32_t x = 0; x < world->w; x++) {
            char *p = writer_room(wr);
            *p++ = ' ';
            wr->len = (size_t)(format_fixed8(p, row[x]) - wr->buf);
        }
        writer_put(wr, "\n");
    }
}

/* n host words as the file's little-endian words. */
static void write_binary_words(writer *wr, const void *data, size_t n)
{
    if (!host_is_big_endian()) {
        writer_put_raw(wr, data, n * 4);
        return;
    }
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++, p += 4) {
        char *q = writer_room(wr);
        q[0] = (char)p[3], q[1] = (char)p[2], q[2] = (char)p[1], q[3] = (char)p[0];
        wr->len += 4;
    }
}

int heat_world_save(const heat_world *world, FILE *f, int binary)
{
    if (!world || !world->properties || !world->state || world->w == 0 ||
        world->h == 0)
        return app_fail(APP_ERR_USAGE,
                        "heat_world_save: the world is empty");
    writer *wr = malloc(sizeof *wr);
    if (!wr)
        return app_fail(APP_ERR_NO_MEMORY,
                        "heat_world_save: out of memory");
    wr->f = f;
    wr->failed = 0;
    widen_pipe(f);
    wr->len = 0;
    /* The seed prints alpha with iostream's defaults, which is "%g". */
    char line[96];
    snprintf(line, sizeof line, "%s\n%u %u %g\n",
             binary ? binary_header : text_header, world->w, world->h,
             (double)world->alpha);
    writer_put(wr, line);
    if (binary) {
        size_t n = (size_t)world->w * world->h;
        writer_put(wr, "-");
        write_binary_words(wr, world->properties, n);
        writer_put(wr, "-");
        write_binary_words(wr, world->state, n);
    } else {
        write_text_arrays(wr, world);
    }
    writer_put(wr, "End\n");
    writer_flush(wr);
    int failed = wr->failed || fflush(f) != 0 || ferror(f);
    int saved_errno = errno;
    free(wr);
    if (failed)
        return app_fail(APP_ERR_IO, "writing the heat world failed: "
                        "%s", strerror(saved_errno));
    return 0;
}
