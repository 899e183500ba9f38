/* rules.cl: the device functions that the examples of docs/clfunction.md
 * and clframe.h test through clfunction: a move of a small sowing game. */
#include "board.h"

/* Takes the seeds of pit `move`, sows them one by one into the next pits
 * (round the board), passes the turn, and returns how many were sown. */
int play(Board *b, int move)
{
    int seeds = b->pits[move];
    b->pits[move] = 0;
    for (int i = 1; i <= seeds; i++)
        b->pits[(move + i) % 4]++;
    b->turn = 1 - b->turn;
    return seeds;
}

/* The seeds the player would hold after playing `move`: the board is read,
 * not changed. */
int score(const Board *b, int move)
{
    return b->pits[move] + b->pits[(move + 1) % 4];
}
