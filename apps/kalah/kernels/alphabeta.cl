/*
 * kalah/alphabeta.cl: the device's part of the GPU alpha-beta player
 * (apps/kalah/gpu_alphabeta.c) where it searches more than 4 plies below
 * each board (up to 4, the minimax player's search.cl serves: a
 * work-group spreads a board's whole tree over local memory). Deeper, a
 * whole tree is too big for that, so here each work-item searches one
 * board of the host's frontier alone, depth first, with alpha-beta
 * pruning.
 *
 * Each board comes with a question from the host's search above: is its
 * value above a bound? A null window, (bound, bound + 1), so most boards
 * are settled by a few lines of play. Scores are TOP's (kalah_evaluate)
 * and fail-soft, as the host's kalah_alphabeta_window: the host takes
 * them up its tree exactly as it would its own.
 *
 * The search is depth_first.h's, with pruning.
 */
#include "depth_first.h"

/* scores[i] = frontier[i]'s fail-soft value `depth` plies deep in the null
 * window (bounds[i], bounds[i] + 1): above bounds[i] or not, and by how
 * much as far as the search saw; nodes[i] = the boards it visited. */
__kernel void kalah_alphabeta(__global const kalah_board *frontier,
                              __global const int *bounds,
                              __global int *scores, __global uint *nodes,
                              uint count, int depth)
{
    uint i = get_global_id(0);
    if (i >= count)
        return;
    uint visited = 1;
    int v = kalah_evaluate(frontier[i]);
    if (depth >= 1 && depth <= KALAH_AB_MAX_PLIES)
        v = ab_search(frontier[i], depth, bounds[i], bounds[i] + 1, 1,
                      &visited);
    scores[i] = v;
    nodes[i] = visited;
}
