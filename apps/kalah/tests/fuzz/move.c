/* move.c: the human player's move reader (kalah_player_move for a human,
 * human_move in player.c) on any input, as a human would type it. If the
 * first line is a board ("c0 ... c13 bottom|top", kalah_board_parse) the
 * game starts from it, else from the opening with BOTTOM to move; the
 * rest is what the human types for both sides until the game ends or the
 * reader gives up. Every move it returns must be legal. */
#include "fuzz.h"
#include "kalah/kalah.h"

#include <stdio.h>

enum { BOARD_LINE_MAX = 200, MOVES_MAX = 500 };

/* The first line of data as a board, if it is one: its length with its
 * '\n', else 0 (and *b the opening). */
static size_t read_board(const uint8_t *data, size_t size, kalah_board *b)
{
    *b = kalah_start(KALAH_BOTTOM);
    const uint8_t *end = memchr(data, '\n', size < BOARD_LINE_MAX
                                                ? size : BOARD_LINE_MAX);
    if (!end || memchr(data, '\0', (size_t)(end - data)))
        return 0;
    char line[BOARD_LINE_MAX + 1];
    memcpy(line, data, (size_t)(end - data));
    line[end - data] = '\0';
    char *side = strrchr(line, ' ');
    if (!side)
        return 0;
    *side++ = '\0';
    kalah_board parsed;
    if (kalah_board_parse(line, side, &parsed) != 0)
        return 0;
    *b = parsed;
    return (size_t)(end - data) + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *nowhere, *nothing;
    if (!nowhere)
        nowhere = fopen("/dev/null", "w");
    if (!nothing)
        nothing = fopen("/dev/null", "r");
    kalah_board b;
    size_t skip = read_board(data, size, &b);
    /* fmemopen wants at least one byte: no input at all is /dev/null. */
    FILE *in = size > skip ? fmemopen((void *)(data + skip), size - skip, "rb")
                           : nothing;
    if (!in || !nowhere)
        return 0;
    kalah_player human;
    if (kalah_player_parse("human", &human) != 0)
        abort();
    human.in = in;
    human.out = nowhere;
    for (int moves = 0; moves < MOVES_MAX && !kalah_game_over(b); moves++) {
        kalah_result r;
        if (kalah_player_move(&human, b, &r) != 0)
            break;
        if (!kalah_is_legal(b, r.move))
            abort();
        b = kalah_play(b, r.move);
    }
    kalah_player_release(&human);
    if (in != nothing)
        fclose(in);
    else
        clearerr(nothing);
    return 0;
}
