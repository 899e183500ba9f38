/*
 * search.c: the host's searches. kalah_minimax is the seed's sequential
 * minimax, every node to the depth: the reference. kalah_alphabeta is what
 * a strong CPU player uses: alpha-beta pruning, children searched best
 * first by a one-ply look ahead, and at the root a window per move that
 * keeps minimax's tie-break (the lowest pit among the best), so that it
 * chooses minimax's move with minimax's score. kalah_alphabeta_timed
 * deepens it one ply at a time while the time lasts.
 */
#include "kalah.h"
#include "common/error.h"

#include <limits.h>

enum { INF = INT_MAX };

typedef struct search {
    uint64_t nodes;
    double deadline;        /* seconds on the monotonic clock; 0: none */
    int out_of_time;
} search;

static int check_depth(const char *what, int depth, kalah_result *r)
{
    if (!r || depth < 0 || depth > KALAH_MAX_DEPTH)
        return app_fail(APP_ERR_USAGE, "%s: depth %d (0 to %d), "
                        "result %p", what, depth, KALAH_MAX_DEPTH,
                        (void *)r);
    return 0;
}

/* ---- minimax ------------------------------------------------------------- */

static int minimax_node(kalah_board b, int depth, search *s)
{
    s->nodes++;
    if (depth == 0 || kalah_game_over(b))
        return kalah_evaluate(b);
    int top = b.to_move == KALAH_TOP, best = top ? -INF : INF;
    for (int p = 0; p < KALAH_PITS; p++) {
        if (!b.cells[kalah_pit_cell(b.to_move, p)])
            continue;
        best = kalah_better(top, minimax_node(kalah_play(b, p), depth - 1, s),
                            best);
    }
    return best;
}

int kalah_minimax(kalah_board b, int depth, kalah_result *r)
{
    int rc = check_depth("kalah_minimax", depth, r);
    if (rc)
        return rc;
    search s = {0, 0, 0};
    *r = (kalah_result){-1, 0, depth, 0};
    if (depth == 0 || kalah_game_over(b)) {
        r->score = minimax_node(b, depth, &s);
        r->nodes = s.nodes;
        return 0;
    }
    s.nodes = 1;
    int top = b.to_move == KALAH_TOP;
    for (int p = 0; p < KALAH_PITS; p++) {
        if (!kalah_is_legal(b, p))
            continue;
        kalah_consider(r, top, p, minimax_node(kalah_play(b, p), depth - 1,
                                               &s));
    }
    r->nodes = s.nodes;
    return 0;
}

/* ---- alpha-beta ---------------------------------------------------------- */

int kalah_root_order(kalah_board b, int first, int order[KALAH_PITS])
{
    int n = 0;
    for (unsigned list = kalah_order_moves(b); list != KALAH_NO_MOVE;
         list >>= 3)
        order[n++] = (int)(list & 7);
    for (int i = 1; i < n; i++)
        if (order[i] == first) {
            for (; i > 0; i--)
                order[i] = order[i - 1];
            order[0] = first;
            break;
        }
    return n;
}

/* The minimax value of b if it lies in (alpha, beta); otherwise a bound on
 * the same side of the window (fail-soft). */
static int alphabeta_node(kalah_board b, int depth, int alpha, int beta,
                          search *s)
{
    s->nodes++;
    if (depth == 0 || kalah_game_over(b))
        return kalah_evaluate(b);
    if ((s->nodes & 4095) == 0 && kalah_past(s->deadline))
        s->out_of_time = 1;
    if (s->out_of_time)
        return 0;               /* the whole search is thrown away */
    /* Above the leaves, the most promising moves first; the leaves'
     * parents take theirs in pit order, as ordering them would cost what
     * it saves. */
    unsigned moves = depth > 1 ? kalah_order_moves(b) : kalah_legal_moves(b);
    int top = b.to_move == KALAH_TOP, best = top ? -INF : INF;
    for (; moves != KALAH_NO_MOVE; moves >>= 3) {
        int v = alphabeta_node(kalah_play(b, (int)(moves & 7)), depth - 1,
                               alpha, beta, s);
        if (top) {
            best = v > best ? v : best;
            alpha = best > alpha ? best : alpha;
        } else {
            best = v < best ? v : best;
            beta = best < beta ? best : beta;
        }
        if (alpha >= beta)
            break;
    }
    return best;
}

/* The root: each move searched with the window that tells whether it beats
 * the best so far under minimax's tie-break. A move of a lower pit than
 * the best wins a tie, so it is searched for a value >= best (TOP; <= for
 * BOTTOM), one of a higher pit for a strictly better value; a value that
 * wins is exact (inside its window). `first`, if a legal pit, is searched
 * first (the previous iteration's choice). */
static void alphabeta_root(kalah_board b, int depth, int first, search *s,
                           kalah_result *r)
{
    int order[KALAH_PITS], n = kalah_root_order(b, first, order);
    int top = b.to_move == KALAH_TOP;
    r->move = -1;
    s->nodes++;
    for (int i = 0; i < n && !s->out_of_time; i++) {
        int p = order[i], best = r->score;
        kalah_board c = kalah_play(b, p);
        if (r->move < 0) {
            r->score = alphabeta_node(c, depth - 1, -INF, INF, s);
            r->move = p;
            continue;
        }
        int lower = p < r->move, v;
        if (top) {
            v = alphabeta_node(c, depth - 1, lower ? best - 1 : best, INF, s);
            if (lower ? v >= best : v > best)
                r->score = v, r->move = p;
        } else {
            v = alphabeta_node(c, depth - 1, -INF, lower ? best + 1 : best, s);
            if (lower ? v <= best : v < best)
                r->score = v, r->move = p;
        }
    }
}

int kalah_alphabeta(kalah_board b, int depth, kalah_result *r)
{
    int rc = check_depth("kalah_alphabeta", depth, r);
    if (rc)
        return rc;
    search s = {0, 0, 0};
    *r = (kalah_result){-1, 0, depth, 0};
    if (depth == 0 || kalah_game_over(b))
        r->score = alphabeta_node(b, 0, -INF, INF, &s);
    else
        alphabeta_root(b, depth, -1, &s, r);
    r->nodes = s.nodes;
    return 0;
}

int kalah_alphabeta_window(kalah_board b, int depth, int alpha, int beta,
                           uint64_t *nodes)
{
    search s = {0, 0, 0};
    int v = alphabeta_node(b, depth, alpha, beta, &s);
    *nodes += s.nodes;
    return v;
}

/* The timed search's state across depths: the nodes of all, and the last
 * finished depth's move, which the next one searches first. */
typedef struct deepening {
    uint64_t nodes;
    int first;
} deepening;

/* One depth of kalah_alphabeta_timed (a kalah_depth_search). */
static int alphabeta_depth(void *state, kalah_board b, int depth,
                           double deadline, kalah_result *r)
{
    deepening *d = state;
    if (depth == 0 || kalah_game_over(b)) {
        int rc = kalah_alphabeta(b, depth, r);
        d->nodes += r->nodes;
        return rc;
    }
    search s = {0, deadline, 0};
    alphabeta_root(b, depth, d->first, &s, r);
    d->nodes += s.nodes;
    if (s.out_of_time)
        return KALAH_STOPPED;
    d->first = r->move;
    return 0;
}

int kalah_alphabeta_timed(kalah_board b, double seconds, int max_depth,
                          kalah_result *r)
{
    deepening d = {0, -1};
    int rc = kalah_deepen("kalah_alphabeta_timed", b, seconds, max_depth, 1,
                          alphabeta_depth, &d, r);
    if (rc == 0)
        r->nodes = d.nodes;
    return rc;
}
