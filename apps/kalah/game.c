/*
 * game.c: a whole game between two players, from the opening (or any
 * position) to the end, with every move checked against the rules (a player that returns an
 * illegal move stops the game with an error, never a wrong board).
 */
#include "kalah.h"
#include "common/clock.h"
#include "common/error.h"


int kalah_play_game(kalah_player *players[2], kalah_board start, FILE *log,
                    kalah_game *g)
{
    if (!players || !players[0] || !players[1] || !g || start.to_move > 1)
        return app_fail(APP_ERR_USAGE, "kalah_play_game: two "
                        "players, a board with a side to move, a game");
    *g = (kalah_game){.final = start};
    kalah_board b = start;
    if (log)
        kalah_board_print(log, b);
    while (!kalah_game_over(b)) {
        int side = b.to_move;
        kalah_result r;
        double t0 = clock_seconds();
        int rc = kalah_player_move(players[side], b, &r);
        g->seconds[side] += clock_seconds() - t0;
        if (rc == 0 && !kalah_is_legal(b, r.move))
            rc = app_fail(APP_ERR_BAD_INPUT, "player %s (%s) chose "
                          "pit %d, which is not a legal move",
                          players[side]->name, kalah_side_name(side),
                          r.move + 1);
        if (rc)
            return rc;
        b = kalah_play(b, r.move);
        g->moves[side]++;
        if (log) {
            fprintf(log, "\n%s (%s) plays pit %d", kalah_side_name(side),
                    players[side]->name, r.move + 1);
            if (players[side]->kind >= KALAH_MINIMAX)
                fprintf(log, " (score %d, depth %d, %llu nodes)", r.score,
                        r.depth, (unsigned long long)r.nodes);
            fprintf(log, "%s\n", b.to_move == side && !kalah_game_over(b)
                                     ? ", and moves again" : "");
            kalah_board_print(log, b);
        }
    }
    g->final = b;
    g->top_total = kalah_total(b, KALAH_TOP);
    g->bottom_total = kalah_total(b, KALAH_BOTTOM);
    return 0;
}
