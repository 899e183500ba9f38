/*
 * gpu_alphabeta.c: the GPU alpha-beta player. The minimax player (gpu.c)
 * searches every node to its depth; alpha-beta reaches the same value from
 * a tiny part of them, so one CPU core out-searches the GPU minimax at
 * equal time. This player prunes at every level, by principal variation
 * splitting (PV splitting), the classic way to run alpha-beta in parallel:
 *
 *   - At a node, its first move (the last iteration's best, else the most
 *     promising by kalah_order_moves) is searched first, in the same way,
 *     with the node's window, and gives a bound.
 *   - The node's other moves are then searched together, each only for
 *     whether it beats the bound (a null window: a "scout"). Their boards
 *     are listed on the host, as a tree, down to the plies the device
 *     searches, and sent to the device in launches ("rounds"); the answers
 *     go up the tree. The scouts expect not to beat the bound, and the
 *     tree is listed as little as that answer needs: where one move
 *     settles a node (a cut), the most promising move alone, the next only
 *     if it fails; where every move must, all of them. Near the frontier
 *     a node lists every move at once: a launch costs far more than a
 *     board in it.
 *   - A move whose scout says it may be better is searched again with the
 *     window, by PV splitting.
 *
 * The device searches each frontier board up to 4 plies by the minimax
 * player's kernel (a work-group a board, exact values), deeper by
 * apps/kalah/kernels/alphabeta.cl (a work-item a board, alpha-beta). Where
 * host_depth plies or fewer are left, the host's own alpha-beta searches
 * instead (kalah_gpu_set_alphabeta_split chooses both).
 *
 * Scores are fail-soft in every window, so the host takes the device's
 * values up the tree as it would its own; the root keeps minimax's
 * tie-break (the lowest pit among the best: a lower pit than the best is
 * scouted for equalling it), so a search to a depth chooses minimax's move
 * with minimax's score. Deepening for a time per move abandons a depth
 * that runs out of time, as kalah_alphabeta_timed does, between launches.
 */
#include "gpu_internal.h"
#include "common/clock.h"
#include "common/error.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum {
    INF = INT_MAX,
    DEVICE_MAX_PLIES = 24,      /* alphabeta.cl's KALAH_AB_MAX_PLIES */
    LINE = KALAH_MAX_DEPTH + 1
};

/* A node of the scouts' tree: the boards between the moves being scouted
 * and the frontier that the device searches. */
typedef struct scout_node {
    kalah_board board;
    int parent;                 /* -1: a move being scouted */
    int left;                   /* plies to search below it */
    int bound;                  /* the question: is its value above bound? */
    unsigned moves;             /* moves not yet listed (packed, board.h) */
    int waiting;                /* children listed and not yet answered */
    int value;                  /* the best answer so far, then its own */
    int answered;
} scout_node;

typedef struct ab_search {
    kalah_gpu *g;
    uint64_t nodes;
    double deadline;            /* monotonic seconds; 0: none */
    int out_of_time;
    int rc;
    int pv[LINE];               /* the last iteration's line, tried first */
    int pv_length;
    int host_depth, device_plies;
    int expect_high;            /* what the scouts expect (see expand) */
    scout_node *tree;
    size_t tree_count, tree_capacity;
    int *sent;                  /* the tree nodes of g->frontier, in order */
    int *flight;                /* ... and of the launch being answered,
                                 * whose scores are in g->scores */
    size_t sent_capacity;
} ab_search;

static int out_of_time(ab_search *s)
{
    if (!s->out_of_time && kalah_past(s->deadline))
        s->out_of_time = 1;
    return s->out_of_time || s->rc;
}

static int no_memory(ab_search *s)
{
    if (!s->rc)
        s->rc = app_fail(APP_ERR_NO_MEMORY, "kalah gpu alpha-beta: "
                         "no memory for the scouts' tree");
    return -1;
}

/* ---- the scouts' tree ---------------------------------------------------- */

static void expand(ab_search *s, int x);

/* A new node; its index, or -1 when out of memory. Every board is counted
 * here, where it is made. */
static int tree_add(ab_search *s, kalah_board b, int parent, int left,
                    int bound)
{
    if (s->tree_count == s->tree_capacity) {
        size_t cap = s->tree_capacity ? 2 * s->tree_capacity : 1024;
        scout_node *more = realloc(s->tree, cap * sizeof *more);
        if (!more)
            return no_memory(s);
        s->tree = more;
        s->tree_capacity = cap;
    }
    s->nodes++;
    s->tree[s->tree_count] = (scout_node){b, parent, left, bound,
                                          KALAH_NO_MOVE, 0, 0, 0};
    return (int)s->tree_count++;
}

/* Node x's answer v, taken up the tree as far as it decides answers: a
 * child above the bound decides a TOP node, one not above it a BOTTOM
 * node; a node all of whose moves answered otherwise is decided by the
 * best of them; one still waiting for none, with moves left, lists its
 * next (it expected this one to decide). Fail-soft values throughout. */
static void answer(ab_search *s, int x, int v);

/* Lists node x's next move as a child, and expands it. */
static void list_next(ab_search *s, int x)
{
    scout_node *n = &s->tree[x];
    int move = (int)(n->moves & 7);
    n->moves >>= 3;
    n->waiting++;
    int child = tree_add(s, kalah_play(n->board, move), x, n->left - 1,
                         n->bound);
    if (child >= 0)
        expand(s, child);
}

static void answer(ab_search *s, int x, int v)
{
    for (;;) {
        s->tree[x].value = v;
        s->tree[x].answered = 1;
        int p = s->tree[x].parent;
        if (p < 0)
            return;
        scout_node *q = &s->tree[p];
        if (q->answered)
            return;             /* decided already, by another child */
        int top = q->board.to_move == KALAH_TOP;
        q->waiting--;
        q->value = kalah_better(top, v, q->value);
        if (top != (v > q->bound)) {
            if (q->waiting > 0)
                return;
            if (q->moves != KALAH_NO_MOVE) {
                list_next(s, p);
                return;
            }
        }
        x = p;
        v = q->value;
    }
}

/* A node just made: answered at once if the game is over there or no
 * plies are left; sent to the device at its plies; otherwise its moves
 * are listed. The scouts expect their moves not to be better (not above
 * the bound below a TOP node, above it below a BOTTOM one: expect_high),
 * so where one move decides that (a BOTTOM node when expecting "not
 * above"), the most promising is listed alone, the next only if it fails;
 * where every move must, all are listed at once. That lists the least the
 * answer can rest on, and many boards for a launch together. */
static void expand(ab_search *s, int x)
{
    scout_node *n = &s->tree[x];
    if (kalah_game_over(n->board) || n->left == 0) {
        answer(s, x, kalah_evaluate(n->board));
        return;
    }
    kalah_gpu *g = s->g;
    if (n->left <= s->device_plies) {
        size_t i = g->frontier.count;
        if (kalah_list_add(&g->frontier, n->board) ||
            kalah_gpu_make_room(g, g->frontier.count)) {
            no_memory(s);
            return;
        }
        if (g->frontier.count > s->sent_capacity) {
            size_t cap = g->frontier.capacity;
            int *sent = realloc(s->sent, cap * sizeof *sent);
            if (sent)
                s->sent = sent;
            int *flight = realloc(s->flight, cap * sizeof *flight);
            if (flight)
                s->flight = flight;
            if (!sent || !flight) {
                no_memory(s);
                return;
            }
            s->sent_capacity = cap;
        }
        g->bounds[i] = n->bound;
        s->sent[i] = x;
        return;
    }
    int top = n->board.to_move == KALAH_TOP;
    n->moves = kalah_order_moves(n->board);
    n->value = top ? -INF : INF;
    /* Where the children go to the device, all are listed: a launch is
     * dear, a board in it cheap. */
    int one_at_a_time = top == s->expect_high && n->left - 1 > s->device_plies;
    do
        list_next(s, x);
    while (!one_at_a_time && !s->rc && !s->tree[x].answered &&
           s->tree[x].moves != KALAH_NO_MOVE);
}

/* 1 if node x or one above it is answered: its search is no use now. */
static int settled(const ab_search *s, int x)
{
    for (; x >= 0; x = s->tree[x].parent)
        if (s->tree[x].answered)
            return 1;
    return 0;
}

/* The device's values of the frontier boards, `plies` deep, each in the
 * null window of its bound; then the frontier is empty, its nodes in
 * flight[] and their scores in g->scores (which listing the next
 * frontier does not write). */
static int launch(ab_search *s, int plies, size_t *count)
{
    kalah_gpu *g = s->g;
    size_t n = 0;
    for (size_t i = 0; i < g->frontier.count; i++)
        if (!settled(s, s->sent[i])) {
            g->frontier.boards[n] = g->frontier.boards[i];
            g->bounds[n] = g->bounds[i];
            s->flight[n++] = s->sent[i];
        }
    g->frontier.count = 0;
    *count = n;
    int rc = kalah_gpu_launch(g, g->frontier.boards, g->bounds, n, plies,
                              g->scores, g->nodes);
    for (size_t i = 0; i < n && rc == 0; i++)
        s->nodes += g->nodes[i] - 1;    /* tree_add counted the board */
    return rc;
}

/* Whether each of boards[0..n), `depth` plies deep, is above bounds[i]:
 * the fail-soft value in that null window into values[i]. expect_high:
 * what the caller expects the answers to be. */
static void scout_together(ab_search *s, const kalah_board *boards,
                           const int *bounds, int n, int depth,
                           int expect_high, int *values)
{
    if (depth <= s->host_depth) {
        for (int i = 0; i < n; i++)
            values[i] = kalah_alphabeta_window(boards[i], depth, bounds[i],
                                               bounds[i] + 1, &s->nodes);
        return;
    }
    s->tree_count = 0;
    s->expect_high = expect_high;
    s->g->frontier.count = 0;
    /* The moves are the first n nodes; their trees follow. */
    for (int i = 0; i < n && !s->rc; i++)
        tree_add(s, boards[i], -1, depth, bounds[i]);
    for (int i = 0; i < n && !s->rc; i++)
        expand(s, i);
    int plies = depth < s->device_plies ? depth : s->device_plies;
    while (s->g->frontier.count > 0 && !out_of_time(s)) {
        size_t count;
        s->rc = launch(s, plies, &count);
        for (size_t i = 0; i < count && !s->rc; i++)
            if (!settled(s, s->flight[i]))
                answer(s, s->flight[i], s->g->scores[i]);
    }
    for (int i = 0; i < n; i++)
        values[i] = s->tree[i].value;
}

/* ---- principal variation splitting --------------------------------------- */

/* b's fail-soft value `depth` plies deep in (alpha, beta), `ply` plies
 * below the root; on_pv: b is on the last iteration's line. Its line of
 * best moves, as far as it is known, in line[0..*length): at the root,
 * line[0] is the move, the lowest pit among the best. */
static int pv_split(ab_search *s, kalah_board b, int depth, int ply,
                    int alpha, int beta, int on_pv, int *line, int *length)
{
    *length = 0;
    if (ply > 0 && (depth <= s->host_depth || kalah_game_over(b)))
        return kalah_alphabeta_window(b, depth, alpha, beta, &s->nodes);
    s->nodes++;
    on_pv = on_pv && ply < s->pv_length;
    int order[KALAH_PITS], n = kalah_root_order(b, on_pv ? s->pv[ply] : -1,
                                                order);
    if (n == 0)
        return kalah_evaluate(b);       /* not reached: b is not over */
    int top = b.to_move == KALAH_TOP, child[LINE], child_length;

    /* The first move, with the whole window. */
    int best = pv_split(s, kalah_play(b, order[0]), depth - 1, ply + 1,
                        alpha, beta, on_pv && order[0] == s->pv[ply], child,
                        &child_length);
    line[0] = order[0];
    memcpy(line + 1, child, (size_t)child_length * sizeof *child);
    *length = 1 + child_length;
    if (n == 1 || out_of_time(s) || (top ? best >= beta : best <= alpha))
        return best;

    /* The others, together: whether each is better than the best so far
     * (at the root, under the tie-break: a lower pit than the best may
     * equal it). */
    kalah_board rest[KALAH_PITS];
    int bound[KALAH_PITS], value[KALAH_PITS];
    int cut = top ? (best > alpha ? best : alpha) : (best < beta ? best : beta);
    for (int i = 1; i < n; i++) {
        int lower = ply == 0 && order[i] < order[0];
        rest[i - 1] = kalah_play(b, order[i]);
        bound[i - 1] = top ? cut - lower : cut - 1 + lower;
    }
    scout_together(s, rest, bound, n - 1, depth - 1, !top, value);

    /* Those that may be, searched again with the window, in turn. */
    for (int i = 1; i < n && !out_of_time(s); i++) {
        int v = value[i - 1], p = order[i];
        if (top ? v <= bound[i - 1] : v > bound[i - 1]) {
            best = kalah_better(top, v, best);  /* a bound: no better */
            continue;
        }
        if (top ? v >= beta : v <= alpha)
            return v;                   /* a cut without knowing more */
        int lower = ply == 0 && p < line[0];
        int lo = top ? (best > alpha ? best : alpha) - lower : alpha;
        int hi = top ? beta : (best < beta ? best : beta) + lower;
        v = pv_split(s, rest[i - 1], depth - 1, ply + 1, lo, hi, 0, child,
                     &child_length);
        if (top ? v > lo : v < hi) {
            best = v;
            line[0] = p;
            memcpy(line + 1, child, (size_t)child_length * sizeof *child);
            *length = 1 + child_length;
            if (top ? best >= beta : best <= alpha)
                return best;
        } else {
            best = kalah_better(top, v, best);
        }
    }
    return best;
}

/* One search to `depth` (at least 1) from an unfinished b; abandoned
 * (s->out_of_time) when the deadline passes. */
static void search_root(ab_search *s, kalah_board b, int depth,
                        kalah_result *r)
{
    int line[LINE], length;
    s->nodes = 0;
    int score = pv_split(s, b, depth, 0, -INF, INF, 1, line, &length);
    if (out_of_time(s))
        return;
    *r = (kalah_result){line[0], score, depth, s->nodes};
    memcpy(s->pv, line, (size_t)length * sizeof *line);
    s->pv_length = length;
}

static ab_search search_new(kalah_gpu *g)
{
    return (ab_search){.g = g, .host_depth = g->ab_host_depth,
                       .device_plies = g->ab_device_plies};
}

int kalah_gpu_set_alphabeta_split(kalah_gpu *g, int host_depth,
                                  int device_plies)
{
    if (!g || host_depth < 0 || host_depth > KALAH_MAX_DEPTH ||
        device_plies < 1 || device_plies > DEVICE_MAX_PLIES)
        return app_fail(APP_ERR_USAGE, "kalah_gpu_set_alphabeta_"
                        "split: host depth %d (0 to %d), device plies "
                        "%d (1 to %d)", host_depth, KALAH_MAX_DEPTH,
                        device_plies, DEVICE_MAX_PLIES);
    g->ab_host_depth = host_depth;
    g->ab_device_plies = device_plies;
    return 0;
}

static void search_free(ab_search *s)
{
    free(s->tree);
    free(s->sent);
    free(s->flight);
}

static int check(const char *what, kalah_gpu *g, int depth,
                 kalah_result *r)
{
    if (!g || !r || depth < 0 || depth > KALAH_MAX_DEPTH)
        return app_fail(APP_ERR_USAGE, "%s: depth %d (0 to %d)",
                        what, depth, KALAH_MAX_DEPTH);
    return 0;
}

int kalah_gpu_alphabeta(kalah_gpu *g, kalah_board b, int depth,
                        kalah_result *r)
{
    int rc = check("kalah_gpu_alphabeta", g, depth, r);
    if (rc)
        return rc;
    if (depth == 0 || kalah_game_over(b))
        return kalah_minimax(b, depth, r);
    ab_search s = search_new(g);
    search_root(&s, b, depth, r);
    search_free(&s);
    return s.rc;
}

/* The timed search's state across depths: the search, whose principal
 * variation the next depth tries first, and the nodes of all depths. */
typedef struct deepening {
    ab_search s;
    uint64_t nodes;
} deepening;

/* One depth of kalah_gpu_alphabeta_timed (a kalah_depth_search). */
static int alphabeta_depth(void *state, kalah_board b, int depth,
                           double deadline, kalah_result *r)
{
    deepening *d = state;
    if (depth == 0 || kalah_game_over(b)) {
        int rc = kalah_minimax(b, depth, r);
        d->nodes += r->nodes;
        return rc;
    }
    d->s.deadline = deadline;
    search_root(&d->s, b, depth, r);
    d->nodes += d->s.nodes;
    return d->s.rc ? d->s.rc : d->s.out_of_time ? KALAH_STOPPED : 0;
}

int kalah_gpu_alphabeta_timed(kalah_gpu *g, kalah_board b, double seconds,
                              int max_depth, kalah_result *r)
{
    if (!g)
        return app_fail(APP_ERR_USAGE, "kalah_gpu_alphabeta_timed: no GPU "
                        "player");
    deepening d = {search_new(g), 0};
    int rc = kalah_deepen("kalah_gpu_alphabeta_timed", b, seconds, max_depth,
                          1, alphabeta_depth, &d, r);
    search_free(&d.s);
    if (rc == 0)
        r->nodes = d.nodes;
    return rc;
}
