/*
 * board.c: Mankalah boards as text, for programs and tests: read from the
 * "c0 c1 ... c13" form that `kalah analyse --board` takes, written back in
 * it, and printed as the players see the board.
 */
#include "kalah.h"
#include "common/parse.h"
#include "common/error.h"

#include <string.h>

const char *kalah_side_name(int side)
{
    return side == KALAH_TOP ? "top" : "bottom";
}

int kalah_board_parse(const char *cells, const char *to_move, kalah_board *b)
{
    kalah_board out = {{0}, 0, 0};
    if (!cells || !to_move || !b)
        return app_fail(APP_ERR_USAGE, "kalah_board_parse: NULL "
                        "argument");
    if (strcmp(to_move, "top") && strcmp(to_move, "bottom"))
        return app_fail(APP_ERR_BAD_INPUT, "board: the player to "
                        "move is \"top\" or \"bottom\", not \"%s\"",
                        to_move);
    out.to_move = !strcmp(to_move, "top") ? KALAH_TOP : KALAH_BOTTOM;
    char text[256];
    if (strlen(cells) >= sizeof text)
        return app_fail(APP_ERR_BAD_INPUT, "board: \"%.40s...\" is "
                        "too long for 14 cells", cells);
    strcpy(text, cells);
    int n = 0, total = 0;
    for (char *save, *w = strtok_r(text, " \t\n", &save); w;
         w = strtok_r(NULL, " \t\n", &save), n++) {
        unsigned long v;
        if (n == KALAH_CELLS)
            return app_fail(APP_ERR_BAD_INPUT, "board: more than %d "
                            "cells", KALAH_CELLS);
        if (!parse_uint(w, 0, KALAH_TOTAL_STONES, &v))
            return app_fail(APP_ERR_BAD_INPUT, "board: cell %d is "
                            "\"%s\", not a count of stones from 0 to "
                            "%d", n, w, KALAH_TOTAL_STONES);
        out.cells[n] = (cl_uchar)v;
        total += (int)v;
    }
    if (n != KALAH_CELLS)
        return app_fail(APP_ERR_BAD_INPUT, "board: %d cells, "
                        "expected %d (c0 ... c13: BOTTOM's pits 0-5 "
                        "and store 6, TOP's pits 7-12 and store 13)",
                        n, KALAH_CELLS);
    if (total != KALAH_TOTAL_STONES)
        return app_fail(APP_ERR_BAD_INPUT, "board: %d stones in "
                        "all; a game always has %d", total,
                        KALAH_TOTAL_STONES);
    if (kalah_game_over(out))       /* the only way to have no legal move */
        return app_fail(APP_ERR_BAD_INPUT, "board: %s has no legal "
                        "move (the game is over)", to_move);
    *b = out;
    return 0;
}

const char *kalah_board_format(kalah_board b, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int c = 0; c < KALAH_CELLS && used < size; c++)
        used += (size_t)snprintf(buf + used, size - used, c ? " %d" : "%d",
                                 b.cells[c]);
    return buf;
}

void kalah_board_print(FILE *f, kalah_board b)
{
    /* Sowing runs counter-clockwise: BOTTOM's pits 1-6 left to right,
     * its store on the right, TOP's pits 1-6 right to left above. */
    fprintf(f, "   top pit  ");
    for (int p = KALAH_PITS; p >= 1; p--)
        fprintf(f, "%4d", p);
    fprintf(f, "\n            ");
    for (int p = KALAH_PITS - 1; p >= 0; p--)
        fprintf(f, "%4d", b.cells[kalah_pit_cell(KALAH_TOP, p)]);
    fprintf(f, "\n   store %3d %24s %3d store\n            ",
            b.cells[KALAH_TOP_STORE], "", b.cells[KALAH_BOTTOM_STORE]);
    for (int p = 0; p < KALAH_PITS; p++)
        fprintf(f, "%4d", b.cells[kalah_pit_cell(KALAH_BOTTOM, p)]);
    fprintf(f, "\nbottom pit  ");
    for (int p = 1; p <= KALAH_PITS; p++)
        fprintf(f, "%4d", p);
    fprintf(f, "      (%s to move)\n", kalah_side_name(b.to_move));
}
