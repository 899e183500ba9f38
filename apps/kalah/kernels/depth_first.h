/*
 * kalah/depth_first.h: one board searched by one work-item, depth first:
 * a loop over a stack of frames in private memory, a frame a ply, each
 * holding its board, its window and its moves still to try. With pruning
 * it is alpha-beta (alphabeta.cl: moves best first above the leaves'
 * parents, kalah_order_moves); without, the minimax in pit order, every
 * node visited (search.cl's item kernel, for CPU devices). Device code
 * only.
 */
#ifndef KALAH_DEPTH_FIRST_H
#define KALAH_DEPTH_FIRST_H

#include "board.h"

/* The deepest search one work-item makes (the host keeps within it). */
#define KALAH_AB_MAX_PLIES 24

typedef struct ab_frame {
    kalah_board board;
    uint moves;                 /* still to try, packed (board.h) */
    int alpha, beta, best;
} ab_frame;

/* A new frame for b, `left` plies above the leaves, in the window of the
 * frame above; its moves best first where they will be pruned. */
static inline ab_frame ab_enter(kalah_board b, int left, int alpha, int beta,
                                int prune)
{
    ab_frame f;
    f.board = b;
    f.moves = prune && left > 1 ? kalah_order_moves(b)
                                : kalah_legal_moves(b);
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
 * (alpha, beta) with pruning; without, its minimax value, every node
 * visited (the window then unused); the boards visited, root included, in
 * *visited. */
static int ab_search(kalah_board root, int depth, int alpha, int beta,
                     int prune, uint *visited)
{
    ab_frame stack[KALAH_AB_MAX_PLIES];
    *visited = 1;
    if (kalah_game_over(root))
        return kalah_evaluate(root);
    int sp = 0;
    stack[0] = ab_enter(root, depth, alpha, beta, prune);
    for (;;) {
        ab_frame *f = &stack[sp];
        int v;
        if (f->moves == KALAH_NO_MOVE || (prune && f->alpha >= f->beta)) {
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
                stack[sp] = ab_enter(c, depth - sp, f->alpha, f->beta,
                                     prune);
                continue;
            }
            v = kalah_evaluate(c);      /* a leaf */
        }
        ab_take(&stack[sp], v);
    }
}

#endif /* KALAH_DEPTH_FIRST_H */
