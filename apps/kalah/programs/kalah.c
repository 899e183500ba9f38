/*
 * kalah.c (bin/kalah): Mankalah from the command line.
 *
 *   kalah [play] --top PLAYER --bottom PLAYER [--first top|bottom] [--quiet]
 *       one game, the board after every move, the final score;
 *   kalah tournament --top PLAYER --bottom PLAYER [--games N]
 *                    [--opening MOVES] [--seed S]
 *       N games; each pair of games starts from one position (MOVES random
 *       moves from the opening), the two players taking each side once;
 *       wins, losses, draws and the mean time per move of each;
 *   kalah analyse --board "c0 ... c13" --to-move top|bottom --player PLAYER
 *       the move (pit 1-6) and score a player chooses in one position.
 *
 * Exit status: 0, 1 when a game or search failed (a human's input ended),
 * 2 for bad arguments or an impossible board.
 */
#include "kalah/kalah.h"
#include "common/clock.h"
#include "common/error.h"
#include "common/parse.h"
#include "common/program.h"

#include <stdlib.h>
#include <string.h>

static const app_program program = {"kalah",
    "usage: kalah [play] --top PLAYER --bottom PLAYER [--first top|bottom]"
    " [--quiet] [--seed S]\n"
    "       kalah tournament --top PLAYER --bottom PLAYER [--games N]\n"
    "             [--opening MOVES] [--seed S]\n"
    "       kalah analyse --board \"c0 ... c13\" --to-move top|bottom "
    "--player PLAYER\n"
    "  PLAYER: human, random, minimax[:DEPTH] (default 8 plies),\n"
    "          alphabeta[:DEPTH|:SECONDSs] (by depth, or by time per move),\n"
    "          gpu[:DEPTH|:SECONDSs] (the GPU minimax player, depth <= 14)\n"
    "          gpuab[:DEPTH|:SECONDSs] (the GPU alpha-beta player)\n"
    "  cells 0-5 are bottom's pits, 6 its store, 7-12 top's pits, 13 its "
    "store;\n"
    "  moves are pits 1-6 of the player's side, as the board shows them.\n",
    NULL};

typedef struct options {
    const char *command;        /* "play", "tournament", "analyse" */
    const char *top, *bottom, *player, *board, *to_move;
    int first, quiet;
    unsigned long games, opening, seed;
} options;

/* "kalah: what: text" (or what alone) and the usage; 2. */
static int bad(const char *what, const char *text)
{
    char message[1024];
    snprintf(message, sizeof message, "%s%s%s", what, text ? ": " : "",
             text ? text : "");
    return app_usage_error(&program, "%s", message);
}

/* 0, or the exit status to leave with (-1: help, 2: a bad argument). */
static int parse_options(int argc, char **argv, options *o)
{
    *o = (options){.command = "play", .first = KALAH_BOTTOM, .games = 100,
                   .seed = 1};
    int i = 1;
    if (argc > 1 && argv[1][0] != '-') {
        o->command = argv[1];
        i = 2;
        if (strcmp(o->command, "play") && strcmp(o->command, "tournament") &&
            strcmp(o->command, "analyse"))
            return bad("unknown command", o->command);
    }
    for (; i < argc; i++) {
        const char *arg = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        const char **text = !strcmp(arg, "--top") ? &o->top
                          : !strcmp(arg, "--bottom") ? &o->bottom
                          : !strcmp(arg, "--player") ? &o->player
                          : !strcmp(arg, "--board") ? &o->board
                          : !strcmp(arg, "--to-move") ? &o->to_move : NULL;
        unsigned long *number = !strcmp(arg, "--games") ? &o->games
                              : !strcmp(arg, "--opening") ? &o->opening
                              : !strcmp(arg, "--seed") ? &o->seed : NULL;
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            return -1;
        } else if (!strcmp(arg, "--quiet")) {
            o->quiet = 1;
        } else if (!strcmp(arg, "--first")) {
            if (!value || (strcmp(value, "top") && strcmp(value, "bottom")))
                return bad("--first is top or bottom", value);
            o->first = !strcmp(value, "top") ? KALAH_TOP : KALAH_BOTTOM;
            i++;
        } else if (text) {
            if (!value)
                return bad("missing value after", arg);
            *text = value;
            i++;
        } else if (number) {
            unsigned long hi = number == &o->games ? 100000
                             : number == &o->opening ? 40 : UINT32_MAX;
            if (!value || !parse_uint(value, number == &o->games, hi, number))
                return bad(number == &o->games ? "--games is 1 to 100000"
                           : number == &o->opening
                               ? "--opening is 0 to 40 moves"
                               : "bad --seed", value);
            i++;
        } else {
            return bad("unexpected argument", arg);
        }
    }
    if (!strcmp(o->command, "analyse"))
        return o->board && o->to_move && o->player
                   ? 0 : bad("analyse needs --board, --to-move and --player",
                             NULL);
    return o->top && o->bottom ? 0 : bad("needs --top and --bottom", NULL);
}

/* Parses the two players of a game (players[KALAH_TOP] = top). */
static int parse_players(const options *o, kalah_player players[2])
{
    if (kalah_player_parse(o->top, &players[KALAH_TOP]) ||
        kalah_player_parse(o->bottom, &players[KALAH_BOTTOM]))
        return bad(app_last_error(), NULL);
    kalah_player_seed(&players[KALAH_TOP], (uint32_t)o->seed * 2 + 1);
    kalah_player_seed(&players[KALAH_BOTTOM], (uint32_t)o->seed * 2 + 2);
    return 0;
}

static void print_result(const kalah_game *g)
{
    printf("final: top %d, bottom %d: %s\n", g->top_total, g->bottom_total,
           g->top_total > g->bottom_total ? "top wins"
           : g->top_total < g->bottom_total ? "bottom wins" : "a draw");
}

static int play(const options *o)
{
    kalah_player players[2];
    int status = parse_players(o, players);
    if (status)
        return status;
    kalah_player *both[2] = {&players[0], &players[1]};
    kalah_game g;
    if (kalah_play_game(both, kalah_start(o->first), o->quiet ? NULL : stdout,
                        &g)) {
        status = app_failed(&program);
    } else {
        print_result(&g);
    }
    kalah_player_release(&players[0]);
    kalah_player_release(&players[1]);
    return status;
}

/* A position `moves` moves of a random player from the opening (the
 * opening itself if the game ends on the way). */
static kalah_board random_opening(unsigned long moves, kalah_player *mover)
{
    kalah_board b = kalah_start(KALAH_BOTTOM);
    for (unsigned long m = 0; m < moves; m++) {
        kalah_result r;
        kalah_player_move(mover, b, &r);    /* random never fails */
        b = kalah_play(b, r.move);
        if (kalah_game_over(b))
            return kalah_start(KALAH_BOTTOM);
    }
    return b;
}

/* Results of one named player over the tournament. */
typedef struct record {
    int wins, losses, draws, moves;
    double seconds;
} record;

static int tournament(const options *o)
{
    kalah_player players[2];
    int status = parse_players(o, players);
    if (status)
        return status;
    /* a: the --top player, b: the --bottom one; they swap sides. */
    record rec[2] = {{0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}};
    kalah_player opener;
    kalah_player_parse("random", &opener);
    kalah_player_seed(&opener, (uint32_t)o->seed);
    kalah_board start = kalah_start(KALAH_BOTTOM);
    for (unsigned long game = 0; game < o->games && status == 0; game++) {
        if (game % 2 == 0)
            start = random_opening(o->opening, &opener);
        int a_side = game % 2 ? KALAH_BOTTOM : KALAH_TOP;
        kalah_player *seat[2];
        seat[a_side] = &players[KALAH_TOP];
        seat[1 - a_side] = &players[KALAH_BOTTOM];
        kalah_game g;
        if (kalah_play_game(seat, start, NULL, &g)) {
            fprintf(stderr, "kalah tournament: game %lu: %s\n", game + 1,
                    app_last_error());
            status = 1;
            break;
        }
        int a_total = a_side == KALAH_TOP ? g.top_total : g.bottom_total;
        int b_total = KALAH_TOTAL_STONES - a_total;
        rec[0].wins += a_total > b_total;
        rec[0].losses += a_total < b_total;
        rec[0].draws += a_total == b_total;
        rec[0].moves += g.moves[a_side];
        rec[0].seconds += g.seconds[a_side];
        rec[1].moves += g.moves[1 - a_side];
        rec[1].seconds += g.seconds[1 - a_side];
        if (!o->quiet)
            printf("game %lu: %s as %s %d, %s %d\n", game + 1,
                   players[KALAH_TOP].name, kalah_side_name(a_side),
                   a_total, players[KALAH_BOTTOM].name, b_total);
    }
    kalah_player_release(&players[0]);
    kalah_player_release(&players[1]);
    if (status)
        return status;
    rec[1].wins = rec[0].losses;
    rec[1].losses = rec[0].wins;
    rec[1].draws = rec[0].draws;
    printf("tournament: %lu games, openings of %lu random moves, each "
           "player on each side of every opening\n", o->games, o->opening);
    for (int r = 0; r < 2; r++)
        printf("  %-18s %4d wins %4d losses %4d draws   %.6f s per move "
               "(%d moves)\n", players[r ? KALAH_BOTTOM : KALAH_TOP].name,
               rec[r].wins, rec[r].losses, rec[r].draws,
               rec[r].moves ? rec[r].seconds / rec[r].moves : 0.0,
               rec[r].moves);
    return 0;
}

static int analyse(const options *o)
{
    kalah_board b;
    kalah_player p;
    if (kalah_board_parse(o->board, o->to_move, &b) ||
        kalah_player_parse(o->player, &p))
        return bad(app_last_error(), NULL);
    if (p.kind == KALAH_HUMAN || p.kind == KALAH_RANDOM)
        return bad("analyse needs a searching player (minimax, alphabeta, "
                   "gpu or gpuab)", o->player);
    kalah_result r;
    double t0 = clock_seconds();
    int rc = kalah_player_move(&p, b, &r);
    double seconds = clock_seconds() - t0;
    kalah_player_release(&p);
    if (rc) {
        fprintf(stderr, "kalah analyse: %s\n", app_last_error());
        return 1;
    }
    printf("move %d score %d depth %d nodes %llu seconds %.6f\n", r.move + 1,
           r.score, r.depth, (unsigned long long)r.nodes, seconds);
    return 0;
}

int main(int argc, char **argv)
{
    options o;
    int status = app_start(&program, parse_options(argc, argv, &o));
    if (status >= 0)
        return status;
    if (!strcmp(o.command, "tournament"))
        return tournament(&o);
    if (!strcmp(o.command, "analyse"))
        return analyse(&o);
    return play(&o);
}
