/*
 * kalah/search.cl: the bottom plies of the GPU minimax player (the seed's
 * layered algorithm, after Rocki and Suda). The host searches the top of
 * the tree and hands over the boards at its frontier; here one work-group
 * takes one frontier board and searches `plies` (1 to 4) more plies in
 * local memory, as an array in which the children of node i are
 * 6i+1 ... 6i+6 (its moves 0..5): level l holds 6^l nodes from index
 * (6^l - 1) / 5, and a node that cannot exist (an illegal move, or a
 * parent that is illegal or finished) is marked, not skipped. The levels
 * are made top down, every work-item making one node per pass, and scored
 * bottom up, each node the max (TOP to move) or min (BOTTOM) of its
 * children's scores, or its own evaluation when the game is over there.
 * Scores are the host's (kalah_evaluate, TOP's point of view), so the
 * player's choices equal the sequential minimax's.
 *
 * Only the boards of the inner levels are kept (259 of them at 4 plies,
 * 4 KB): a leaf is made, scored and dropped by its work-item. With the
 * scores of every node, 6 KB, a work-group needs about 10 KB of local
 * memory. The depth is an argument, not a build option, so that one build
 * serves every depth (a PoCL build costs seconds).
 *
 * kalah_search_item, at the end, is the same search for a CPU device.
 */
#include "depth_first.h"

#define KALAH_MAX_PLIES 4
/* Nodes at 4 plies: 259 inner (6^0 + ... + 6^3), 1296 leaves (6^4). */
#define KALAH_INNER 259
#define KALAH_NODES (KALAH_INNER + 1296)

#define KALAH_NO_BOARD 0xff         /* to_move of a node that cannot exist */
#define KALAH_NO_SCORE INT_MIN

/* The first node of level l and the number of nodes in it. */
static inline int level_first(int l)
{
    return l == 0 ? 0 : l == 1 ? 1 : l == 2 ? 7 : l == 3 ? 43 : 259;
}

static inline int level_size(int l)
{
    return l == 0 ? 1 : l == 1 ? 6 : l == 2 ? 36 : l == 3 ? 216 : 1296;
}

/* scores[g] = the minimax score of frontier[g] searched `plies` (1 to 4)
 * deep; nodes[g] = the boards that search visited. */
__kernel void kalah_search(__global const kalah_board *frontier,
                           __global int *scores, __global uint *nodes,
                           uint count, int plies)
{
    __local kalah_board boards[KALAH_INNER];
    __local int score[KALAH_NODES];
    __local uint visited;
    uint g = get_group_id(0);
    if (g >= count || plies < 1 || plies > KALAH_MAX_PLIES)
        return;                     /* the whole group: no barrier missed */
    int lid = get_local_id(0), size = get_local_size(0);
    if (lid == 0) {
        boards[0] = frontier[g];
        visited = 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Top down: each node from its parent, one move of it. */
    uint made = 0;
    for (int l = 1; l <= plies; l++) {
        int first = level_first(l);
        for (int j = lid; j < level_size(l); j += size) {
            int node = first + j, move = (node - 1) % KALAH_PITS;
            kalah_board parent = boards[(node - 1) / KALAH_PITS];
            int exists = parent.to_move != KALAH_NO_BOARD &&
                         kalah_is_legal(parent, move);
            kalah_board child = parent;
            if (exists)
                child = kalah_play(parent, move);
            child.to_move = exists ? child.to_move : KALAH_NO_BOARD;
            made += exists;
            if (l < plies)
                boards[node] = child;
            else
                score[node] = exists ? kalah_evaluate(child) : KALAH_NO_SCORE;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    atomic_add(&visited, made);

    /* Bottom up: each inner node from its children. */
    for (int l = plies - 1; l >= 0; l--) {
        int first = level_first(l);
        for (int j = lid; j < level_size(l); j += size) {
            int node = first + j;
            kalah_board b = boards[node];
            int s = KALAH_NO_SCORE;
            if (b.to_move != KALAH_NO_BOARD && kalah_game_over(b)) {
                s = kalah_evaluate(b);
            } else if (b.to_move != KALAH_NO_BOARD) {
                int top = b.to_move == KALAH_TOP;
                s = top ? INT_MIN : INT_MAX;
                for (int m = 1; m <= KALAH_PITS; m++) {
                    int v = score[KALAH_PITS * node + m];
                    if (v != KALAH_NO_SCORE)
                        s = top ? max(s, v) : min(s, v);
                }
            }
            score[node] = s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        scores[g] = score[0];
        nodes[g] = visited;
    }
}

/* The same search shaped for a CPU device, which runs a work-group's
 * work-items one after another between barriers: a work-item per frontier
 * board, depth first (depth_first.h, no pruning), no local memory. The
 * same scores and node counts; any work-group size, the global size
 * rounded up past count. */
__kernel void kalah_search_item(__global const kalah_board *frontier,
                                __global int *scores, __global uint *nodes,
                                uint count, int plies)
{
    uint i = get_global_id(0);
    if (i >= count || plies < 1 || plies > KALAH_MAX_PLIES)
        return;
    uint visited = 1;
    scores[i] = ab_search(frontier[i], plies, INT_MIN, INT_MAX, 0, &visited);
    nodes[i] = visited;
}
