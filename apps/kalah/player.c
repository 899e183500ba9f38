/*
 * player.c: the players behind one interface, named on the command line
 * as PLAYER[:depth|:time]: a human at a terminal, a random mover, the
 * sequential minimax, alpha-beta (by depth, or by time per move), the GPU
 * minimax player and the GPU alpha-beta player.
 */
#include "kalah.h"
#include "common/parse.h"
#include "common/error.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[KALAH_PLAYER_KINDS] = {
    [KALAH_HUMAN] = "human",
    [KALAH_RANDOM] = "random",
    [KALAH_MINIMAX] = "minimax",
    [KALAH_ALPHABETA] = "alphabeta",
    [KALAH_GPU] = "gpu",
    [KALAH_GPU_ALPHABETA] = "gpuab",
};

enum { DEFAULT_DEPTH = 8 };

int kalah_player_parse(const char *spec, kalah_player *p)
{
    if (!spec || !p)
        return app_fail(APP_ERR_USAGE, "kalah_player_parse: NULL");
    *p = (kalah_player){.depth = DEFAULT_DEPTH, .seed = 1, .in = stdin,
                        .out = stdout, .lines = {.name = "<stdin>"}};
    char kind[32];
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    if (len >= sizeof kind || strlen(spec) >= sizeof p->name)
        return app_fail(APP_ERR_BAD_INPUT, "player \"%s\": too long",
                        spec);
    memcpy(kind, spec, len);
    kind[len] = '\0';
    int k = 0;
    while (k < KALAH_PLAYER_KINDS && strcmp(kind, kind_names[k]))
        k++;
    if (k == KALAH_PLAYER_KINDS)
        return app_fail(APP_ERR_BAD_INPUT, "player \"%s\": expected "
                        "human, random, minimax[:DEPTH], alphabeta"
                        "[:DEPTH|:SECONDSs], gpu[:DEPTH|:SECONDSs] or "
                        "gpuab[:DEPTH|:SECONDSs]",
                        spec);
    p->kind = (kalah_player_kind)k;
    strcpy(p->name, spec);
    if (!colon)
        return 0;
    const char *arg = colon + 1;
    size_t n = strlen(arg);
    unsigned long depth;
    float seconds;
    char number[32];
    int timed = k == KALAH_ALPHABETA || k == KALAH_GPU ||
                k == KALAH_GPU_ALPHABETA;
    if (timed && n > 1 &&
        n < sizeof number && arg[n - 1] == 's') {
        memcpy(number, arg, n - 1);
        number[n - 1] = '\0';
        if (!parse_float(number, &seconds) || seconds <= 0 ||
            seconds > KALAH_MAX_SECONDS)
            return app_fail(APP_ERR_BAD_INPUT, "player \"%s\": the time "
                            "per move is more than 0 and at most %d "
                            "seconds", spec, KALAH_MAX_SECONDS);
        p->seconds = seconds;
        p->depth = KALAH_MAX_DEPTH;
    } else if ((k == KALAH_MINIMAX || timed) &&
               parse_uint(arg, 1, k == KALAH_GPU ? KALAH_GPU_MAX_DEPTH
                                                 : KALAH_MAX_DEPTH, &depth)) {
        p->depth = (int)depth;
    } else if (k == KALAH_MINIMAX || timed) {
        return app_fail(APP_ERR_BAD_INPUT, "player \"%s\": the depth is 1 "
                        "to %d plies%s", spec, k == KALAH_GPU
                        ? KALAH_GPU_MAX_DEPTH : KALAH_MAX_DEPTH,
                        timed ? ", or a time such as 0.5s" : "");
    } else {
        return app_fail(APP_ERR_BAD_INPUT, "player \"%s\": takes no depth "
                        "or time", spec);
    }
    return 0;
}

void kalah_player_release(kalah_player *p)
{
    if (p) {
        kalah_gpu_free(p->gpu);
        p->gpu = NULL;
    }
}

void kalah_player_seed(kalah_player *p, uint32_t seed)
{
    p->seed = seed ? seed : 1;
}

/* xorshift32: a random legal pit. */
static int random_move(kalah_player *p, kalah_board b)
{
    int legal[KALAH_PITS], n = 0;
    for (int pit = 0; pit < KALAH_PITS; pit++)
        if (kalah_is_legal(b, pit))
            legal[n++] = pit;
    uint32_t x = p->seed;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    p->seed = x;
    return legal[x % (uint32_t)n];
}

/* The human's input failed (code < 0, its message in app_last_error()):
 * the same code, with the player named in front. */
static int human_input_failed(kalah_board b, int code)
{
    char why[512];                  /* app_fail rewrites the message */
    snprintf(why, sizeof why, "%s", app_last_error());
    return app_fail(code, "human player (%s): %s",
                    kalah_side_name(b.to_move), why);
}

/* Asks until the human names a legal pit (1 to 6 as printed). Lines are
 * read whole: one too long is refused, where fgets would have played its
 * tail as the next move. */
static int human_move(kalah_player *p, kalah_board b, int *move)
{
    char line[KALAH_HUMAN_LINE_MAX + 1];
    p->lines.f = p->in;
    if (!p->lines.name)             /* a player not made by parse */
        p->lines.name = "<input>";
    for (int tries = 0; tries < KALAH_HUMAN_TRIES; tries++) {
        fprintf(p->out, "%s, your move (pit 1-6 as numbered): ",
                kalah_side_name(b.to_move));
        fflush(p->out);
        int got = text_read_line(&p->lines, line, sizeof line);
        if (got < 0)
            return human_input_failed(b, got);
        if (got == TEXT_END)
            return app_fail(APP_ERR_IO, "human player (%s): the "
                            "input ended before a move",
                            kalah_side_name(b.to_move));
        if (got == TEXT_TOO_LONG) {
            fprintf(p->out, "%s: type a number from 1 to 6\n",
                    app_last_error());
            continue;
        }
        line[strcspn(line, "\r")] = '\0';
        unsigned long pit;
        if (!parse_uint(line, 1, KALAH_PITS, &pit))
            fprintf(p->out, "\"%s\" is not a pit: type a number from 1 to "
                    "6\n", line);
        else if (!kalah_is_legal(b, (int)pit - 1))
            fprintf(p->out, "pit %lu is empty: choose one with stones\n",
                    pit);
        else {
            *move = (int)pit - 1;
            return 0;
        }
    }
    return app_fail(APP_ERR_BAD_INPUT, "human player (%s): no legal move "
                    "in %d answers in a row; the input is taken for one "
                    "that never holds one", kalah_side_name(b.to_move),
                    KALAH_HUMAN_TRIES);
}

int kalah_player_move(kalah_player *p, kalah_board b, kalah_result *r)
{
    if (!p || !r || kalah_game_over(b))
        return app_fail(APP_ERR_USAGE, "kalah_player_move: %s",
                        p && r ? "the game is over" : "NULL argument");
    *r = (kalah_result){-1, 0, 0, 0};
    switch (p->kind) {
    case KALAH_HUMAN:
        return human_move(p, b, &r->move);
    case KALAH_RANDOM:
        r->move = random_move(p, b);
        return 0;
    case KALAH_MINIMAX:
        return kalah_minimax(b, p->depth, r);
    case KALAH_ALPHABETA:
        return p->seconds > 0
                   ? kalah_alphabeta_timed(b, p->seconds, p->depth, r)
                   : kalah_alphabeta(b, p->depth, r);
    case KALAH_GPU:
    case KALAH_GPU_ALPHABETA: {
        int rc = 0;
        if (!p->gpu)
            p->gpu = kalah_gpu_new(p->ctx, &rc);
        if (!p->gpu)
            return rc;
        if (p->kind == KALAH_GPU_ALPHABETA)
            return p->seconds > 0
                       ? kalah_gpu_alphabeta_timed(p->gpu, b, p->seconds,
                                                   p->depth, r)
                       : kalah_gpu_alphabeta(p->gpu, b, p->depth, r);
        return p->seconds > 0
                   ? kalah_gpu_search_timed(p->gpu, b, p->seconds, p->depth, r)
                   : kalah_gpu_search(p->gpu, b, p->depth, r);
    }
    default:
        return app_fail(APP_ERR_USAGE, "kalah_player_move: unknown "
                        "player kind %d", (int)p->kind);
    }
}
