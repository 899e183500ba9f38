/*
 * kalah/board.h: the rules of Mankalah, the CS212 variant of Kalah (6 pits
 * a side, 4 stones in each; apps/kalah/SPEC.md), as one source
 * that the host's C compiler and the device's OpenCL C compiler both read
 * (clframe/shared.h's idiom, docs/sharing.md): the board, a move, the end
 * of the game and the scores a search gives its leaves. Boards go in and
 * out by value, so that the device can apply the rules to private and
 * local copies alike.
 *
 * Cells 0..5 are BOTTOM's pits and 6 its store; 7..12 are TOP's pits and
 * 13 its store. A move is a pit number 0..5 counted on the mover's side
 * (BOTTOM's pit p is cell p, TOP's is cell 7 + p), so that a node's six
 * children are its six moves in the same order whoever moves.
 *
 * Scores are from TOP's point of view: TOP maximises, BOTTOM minimises.
 */
#ifndef KALAH_BOARD_H
#define KALAH_BOARD_H

#include "clframe/shared.h"

#define KALAH_PITS 6                /* pits a side */
#define KALAH_CELLS 14
#define KALAH_STONES 4              /* in each pit at the start */
#define KALAH_TOTAL_STONES (2 * KALAH_PITS * KALAH_STONES)     /* 48 */
#define KALAH_BOTTOM 0
#define KALAH_TOP 1
#define KALAH_BOTTOM_STORE 6
#define KALAH_TOP_STORE 13
/* A finished game scores KALAH_WIN per stone of margin: more than any
 * heuristic value can reach (at most 5 * 48 + 48). */
#define KALAH_WIN 1000

typedef struct kalah_board {
    CLF_UCHAR cells[KALAH_CELLS];   /* stones per cell */
    CLF_UCHAR to_move;              /* KALAH_BOTTOM or KALAH_TOP */
    CLF_UCHAR pad_;                 /* 0 */
} kalah_board;

CLF_STATIC_ASSERT_SIZE(kalah_board, 16);

/* The opening position, with `first` (KALAH_BOTTOM or KALAH_TOP) to move. */
CLF_INLINE kalah_board kalah_start(CLF_INT first)
{
    kalah_board b;
    for (CLF_INT c = 0; c < KALAH_CELLS; c++)
        b.cells[c] = c == KALAH_BOTTOM_STORE || c == KALAH_TOP_STORE
                         ? 0 : KALAH_STONES;
    b.to_move = (CLF_UCHAR)first;
    b.pad_ = 0;
    return b;
}

/* The cell of `side`'s pit 0..5, and of its store. */
CLF_INLINE CLF_INT kalah_pit_cell(CLF_INT side, CLF_INT pit)
{
    return side == KALAH_TOP ? KALAH_BOTTOM_STORE + 1 + pit : pit;
}

CLF_INLINE CLF_INT kalah_store_cell(CLF_INT side)
{
    return side == KALAH_TOP ? KALAH_TOP_STORE : KALAH_BOTTOM_STORE;
}

/* Stones in `side`'s six pits (its store not counted). */
CLF_INLINE CLF_INT kalah_side_stones(kalah_board b, CLF_INT side)
{
    CLF_INT sum = 0;
    for (CLF_INT p = 0; p < KALAH_PITS; p++)
        sum += b.cells[kalah_pit_cell(side, p)];
    return sum;
}

/* The game is over when either side's six pits are all empty. */
CLF_INLINE CLF_INT kalah_game_over(kalah_board b)
{
    return kalah_side_stones(b, KALAH_BOTTOM) == 0 ||
           kalah_side_stones(b, KALAH_TOP) == 0;
}

/* 1 when the player to move may play pit 0..5: the game is not over and
 * the pit holds stones. */
CLF_INLINE CLF_INT kalah_is_legal(kalah_board b, CLF_INT pit)
{
    return pit >= 0 && pit < KALAH_PITS &&
           b.cells[kalah_pit_cell(b.to_move, pit)] > 0 && !kalah_game_over(b);
}

/* The board after the player to move plays pit 0..5 (a legal move): its
 * stones are sown one per cell in increasing order, wrapping from 13 to 0
 * and skipping the opponent's store. A last stone that lands in an empty
 * pit of the mover's own side takes itself and the stones of the opposite
 * pit (12 - cell), if there are any, to the mover's store. A last stone in
 * the mover's store gives the mover another turn; otherwise the turn
 * passes. */
CLF_INLINE kalah_board kalah_play(kalah_board b, CLF_INT pit)
{
    CLF_INT side = b.to_move, store = kalah_store_cell(side);
    CLF_INT skip = kalah_store_cell(1 - side);
    CLF_INT cell = kalah_pit_cell(side, pit), stones = b.cells[cell];
    b.cells[cell] = 0;
    while (stones > 0) {
        cell = cell == KALAH_CELLS - 1 ? 0 : cell + 1;
        if (cell != skip) {
            b.cells[cell]++;
            stones--;
        }
    }
    CLF_INT own_pit = side == KALAH_TOP
                          ? cell > KALAH_BOTTOM_STORE && cell < KALAH_TOP_STORE
                          : cell < KALAH_BOTTOM_STORE;
    CLF_INT opposite = 2 * KALAH_PITS - cell;
    if (own_pit && b.cells[cell] == 1 && b.cells[opposite] > 0) {
        b.cells[store] += 1 + b.cells[opposite];
        b.cells[cell] = 0;
        b.cells[opposite] = 0;
    }
    if (cell != store)
        b.to_move = (CLF_UCHAR)(1 - side);
    return b;
}

/* `side`'s total: its store and the stones left in its pits. */
CLF_INLINE CLF_INT kalah_total(kalah_board b, CLF_INT side)
{
    return b.cells[kalah_store_cell(side)] + kalah_side_stones(b, side);
}

/* The seed's heuristic, for a search's leaves in an unfinished game:
 * 5 (TOP's store - BOTTOM's) + TOP's pits - BOTTOM's pits. */
CLF_INLINE CLF_INT kalah_heuristic(kalah_board b)
{
    return 5 * ((CLF_INT)b.cells[KALAH_TOP_STORE] -
                (CLF_INT)b.cells[KALAH_BOTTOM_STORE]) +
           kalah_side_stones(b, KALAH_TOP) -
           kalah_side_stones(b, KALAH_BOTTOM);
}

/* A leaf's score: the decisive KALAH_WIN * (TOP's total - BOTTOM's) when
 * the game is over, else the heuristic. */
CLF_INLINE CLF_INT kalah_evaluate(kalah_board b)
{
    /* Each side's pits summed once: this runs at every leaf. */
    CLF_INT top = kalah_side_stones(b, KALAH_TOP);
    CLF_INT bottom = kalah_side_stones(b, KALAH_BOTTOM);
    CLF_INT stores = (CLF_INT)b.cells[KALAH_TOP_STORE] -
                     (CLF_INT)b.cells[KALAH_BOTTOM_STORE];
    if (top == 0 || bottom == 0)
        return KALAH_WIN * (stores + top - bottom);
    return 5 * stores + top - bottom;
}

/* A list of moves packed in a uint, 3 bits a move from the lowest bits,
 * ended by KALAH_NO_MOVE: a search's stack frame keeps its node's moves
 * still to try in one word. Take the next with `list & 7`, drop it with
 * `list >>= 3`. */
#define KALAH_NO_MOVE 7u

/* b's legal moves in pit order, for a b whose game is not over (the
 * searches know that already; a finished board lists its pits with
 * stones). */
CLF_INLINE CLF_UINT kalah_legal_moves(kalah_board b)
{
    CLF_UINT list = KALAH_NO_MOVE;
    for (CLF_INT p = KALAH_PITS - 1; p >= 0; p--)
        if (b.cells[kalah_pit_cell(b.to_move, p)])
            list = list << 3 | (CLF_UINT)p;
    return list;
}

/* b's legal moves (b not over), most promising first for the mover: by the
 * evaluation one ply on, from the mover's side, with 2 more for a move
 * that keeps the turn; ties in pit order. What alpha-beta searches try
 * first, on the host and on the device. */
CLF_INLINE CLF_UINT kalah_order_moves(kalah_board b)
{
    CLF_INT value[KALAH_PITS], pit[KALAH_PITS], n = 0;
    CLF_INT top = b.to_move == KALAH_TOP;
    for (CLF_INT p = 0; p < KALAH_PITS; p++) {
        if (!b.cells[kalah_pit_cell(b.to_move, p)])
            continue;
        kalah_board c = kalah_play(b, p);
        CLF_INT v = (top ? kalah_evaluate(c) : -kalah_evaluate(c)) +
                    (c.to_move == b.to_move ? 2 : 0);
        CLF_INT i = n++;
        for (; i > 0 && value[i - 1] < v; i--) {    /* insertion, stable */
            value[i] = value[i - 1];
            pit[i] = pit[i - 1];
        }
        value[i] = v;
        pit[i] = p;
    }
    CLF_UINT list = KALAH_NO_MOVE;
    while (n > 0)
        list = list << 3 | (CLF_UINT)pit[--n];
    return list;
}

#endif /* KALAH_BOARD_H */
