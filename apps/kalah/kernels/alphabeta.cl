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
 * The search is a loop over a stack of frames in private memory, a frame
 * a ply, each holding its board, its window and its moves still to try
 * (kalah_order_moves: best first above the leaves' parents, pit order
 * there).
 */
#include "board.h"

/* The deepest search one work-item makes (the host keeps within it). */
#define KALAH_AB_MAX_PLIES 24

typedef struct ab_frame {
    kalah_board board;
    uint moves;                 /* still to try, packed (board.h) */
    int alpha, beta, best;
} ab_frame;

/* A new frame for b, `left` plies above the leaves, in the window of the
 * frame above. */
static inline ab_frame ab_enter(kalah_board b, int left, int alpha, int beta)
{
    ab_frame f;
    f.board = b;
    f.moves = left > 1 ? kalah_order_moves(b) : kalah_legal_moves(b);
    f.alpha = alpha;
    f.beta = beta;
    f.best = b.to_move == KALAH_TOP ? INT_MIN : INT_MAX;
    return f;
}

/* A child's value v taken into its parent's frame. */
static inline void ab_take(ab_frame *f, int v)
{
    if (f->board.to_move == KALAH_TOP) {
        f->best = max(f->best, v);
        f->alpha = max(f->alpha, v);
    } else {
        f->best = min(f->best, v);
        f->beta = min(f->beta, v);
    }
}

/* root's fail-soft value to `depth` plies (1 to KALAH_AB_MAX_PLIES) in
 * (alpha, beta); the boards visited, root included, in *visited. */
static int ab_search(kalah_board root, int depth, int alpha, int beta,
                     uint *visited)
{
    ab_frame stack[KALAH_AB_MAX_PLIES];
    *visited = 1;
    if (kalah_game_over(root))
        return kalah_evaluate(root);
    int sp = 0;
    stack[0] = ab_enter(root, depth, alpha, beta);
    for (;;) {
        ab_frame *f = &stack[sp];
        int v;
        if (f->moves == KALAH_NO_MOVE || f->alpha >= f->beta) {
            v = f->best;                /* the node is done */
            if (sp == 0)
                return v;
            sp--;
        } else {
            kalah_board c = kalah_play(f->board, (int)(f->moves & 7));
            f->moves >>= 3;
            (*visited)++;
            if (sp + 1 < depth && !kalah_game_over(c)) {
                sp++;
                stack[sp] = ab_enter(c, depth - sp, f->alpha, f->beta);
                continue;
            }
            v = kalah_evaluate(c);      /* a leaf */
        }
        ab_take(&stack[sp], v);
    }
}

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
        v = ab_search(frontier[i], depth, bounds[i], bounds[i] + 1,
                      &visited);
    scores[i] = v;
    nodes[i] = visited;
}
