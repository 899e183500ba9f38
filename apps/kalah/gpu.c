/*
 * gpu.c: the GPU minimax player's host side (the seed's layered search).
 * A search to `depth` plies gives the device the bottom `device_plies`
 * (apps/kalah/kernels/search.cl: one work-group per board, or on a CPU
 * device one work-item per board, 4 plies at most)
 * and keeps the top `host_plies = depth - device_plies` (at least 1, so
 * that the host chooses the move):
 *
 *   1. the host walks its plies depth first and lists the boards at the
 *      frontier (those where the game is over are scored on the host);
 *   2. the device scores the list, in launches of up to KALAH_GPU_BATCH
 *      boards;
 *   3. the host walks the same plies again in the same order, taking each
 *      frontier board's score from the list, and takes the max or min
 *      upwards, the lowest pit winning ties at the root.
 *
 * Both walks visit the moves in pit order, so the i-th frontier board of
 * the second walk is the i-th of the first: no board is stored twice.
 *
 * The host's walks are the slow part at depth 13 (millions of nodes), so
 * they run in parallel (OpenMP): the boards TASK_PLIES below the root are
 * tasks, listed in order; each task walks its subtree into a list of its
 * own, and the lists are joined in task order, so the frontier is the one
 * a single walk would make. The second walk gives each task its slice of
 * the scores, and the top plies are reduced from the tasks' scores. Tasks
 * shallower than PARALLEL_PLIES run on one thread: threads would cost
 * more than such walks, and OpenMP's idle threads spin for a while after
 * a parallel loop, taking the cores from a CPU device's kernel.
 */
#include "gpu_internal.h"
#include "common/clock.h"
#include "common/error.h"
#include "clframe.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* apps/kalah/kernels, compiled in (scripts/embed-sources). */
extern const clframe_source kalah_kernel_sources[];
#define KALAH_SEARCH_KERNELS "apps/kalah/kernels/search.cl"
#define KALAH_ALPHABETA_KERNELS "apps/kalah/kernels/alphabeta.cl"

enum { MAX_DEVICE_PLIES = KALAH_GPU_GROUP_PLIES, GROUP = 256, AB_GROUP = 64, TASK_PLIES = 3,
       PARALLEL_PLIES = 2 };

/* One subtree of the host's plies. */
typedef struct task {
    kalah_board root;
    board_list frontier;        /* walk 1's, until joined */
    size_t first;               /* its first board in the joined frontier */
    uint64_t nodes;             /* walk 1's */
    int score;                  /* walk 2's */
    int rc;
} task;

kalah_gpu *kalah_gpu_new(clctx *ctx, int *error)
{
    int rc = 0;
    kalah_gpu *g = calloc(1, sizeof *g);
    if (!g)
        rc = app_fail(APP_ERR_NO_MEMORY, "kalah gpu: no memory");
    else if (!(g->ctx = ctx ? ctx : clctx_default()))
        rc = CLFRAME_ERR_NO_DEVICE;
    if (rc == 0) {
        size_t most = clctx_max_work_group_size(g->ctx);
        g->group = most < GROUP ? most : GROUP;
        g->item = !(clctx_device_type(g->ctx) & CL_DEVICE_TYPE_GPU);
        g->most_plies = MAX_DEVICE_PLIES;
        g->ab_host_depth = KALAH_GPU_AB_HOST_DEPTH;
        g->ab_device_plies = KALAH_GPU_AB_DEVICE_PLIES;
    }
    if (rc) {
        free(g);
        g = NULL;
    }
    if (error)
        *error = rc;
    return g;
}

void kalah_gpu_free(kalah_gpu *g)
{
    if (!g)
        return;
    clkernel_free(g->kernel);
    clkernel_free(g->ab_kernel);
    free(g->tasks_top.boards);
    free(g->tasks);
    free(g->frontier.boards);
    free(g->bounds);
    free(g->scores);
    free(g->nodes);
    free(g);
}

kalah_gpu_counts kalah_gpu_counts_of(const kalah_gpu *g)
{
    return g ? g->counts : (kalah_gpu_counts){0, 0, 0};
}

int kalah_gpu_set_device_plies(kalah_gpu *g, int plies)
{
    if (!g || plies < 1 || plies > MAX_DEVICE_PLIES)
        return app_fail(APP_ERR_USAGE, "kalah_gpu_set_device_plies: "
                        "%d (1 to %d)", plies, MAX_DEVICE_PLIES);
    g->most_plies = plies;
    return 0;
}

clkernel *kalah_gpu_kernel(kalah_gpu *g, clkernel **slot, const char *path,
                           const char *name)
{
    if (!*slot && !g->build_failed) {
        *slot = clframe_add_sources(kalah_kernel_sources) ? NULL
                : clkernel_file(g->ctx, path, name, NULL);
        g->build_failed = !*slot;
    }
    return *slot;
}

int kalah_gpu_set_item_search(kalah_gpu *g, int item)
{
    if (!g || (item != 0 && item != 1))
        return app_fail(APP_ERR_USAGE, "kalah_gpu_set_item_search: %d "
                        "(0 or 1)", item);
    if (g->item != item) {
        clkernel_free(g->kernel);       /* the other one, built when used */
        g->kernel = NULL;
        g->item = item;
    }
    return 0;
}

static clkernel *search_kernel(kalah_gpu *g)
{
    clkernel *k = g->kernel;
    if (!k && (k = kalah_gpu_kernel(g, &g->kernel, KALAH_SEARCH_KERNELS,
                                    g->item ? "kalah_search_item"
                                            : "kalah_search")) &&
        !g->item) {
        /* A device that runs this kernel in smaller groups gets them. */
        size_t most = clkernel_max_group_size(k);
        if (most && most < g->group)
            g->group = most;
    }
    return k;
}

int kalah_list_add(board_list *l, kalah_board b)
{
    if (l->count == l->capacity) {
        size_t cap = l->capacity ? 2 * l->capacity : 256;
        kalah_board *more = realloc(l->boards, cap * sizeof *more);
        if (!more)
            return -1;
        l->boards = more;
        l->capacity = cap;
    }
    l->boards[l->count++] = b;
    return 0;
}

int kalah_frontier_collect(kalah_board b, int plies, board_list *out,
                           uint64_t *nodes)
{
    (*nodes)++;
    if (kalah_game_over(b))
        return 0;
    if (plies == 0)
        return kalah_list_add(out, b);
    int rc = 0;
    for (int p = 0; p < KALAH_PITS && rc == 0; p++)
        if (b.cells[kalah_pit_cell(b.to_move, p)])
            rc = kalah_frontier_collect(kalah_play(b, p), plies - 1, out,
                                        nodes);
    return rc;
}

int kalah_frontier_reduce(kalah_board b, int plies, const int **next)
{
    if (kalah_game_over(b))
        return kalah_evaluate(b);
    if (plies == 0)
        return *(*next)++;
    int top = b.to_move == KALAH_TOP, best = top ? INT_MIN : INT_MAX;
    for (int p = 0; p < KALAH_PITS; p++) {
        if (!b.cells[kalah_pit_cell(b.to_move, p)])
            continue;
        best = kalah_better(top, kalah_frontier_reduce(kalah_play(b, p),
                                                       plies - 1, next),
                            best);
    }
    return best;
}

/* The top plies, walk 1: the task roots `plies` below b (b counted, as
 * are the boards above the tasks; the tasks count their own roots). */
static int list_tasks(kalah_board b, int plies, board_list *tasks,
                      uint64_t *nodes)
{
    if (plies == 0)
        return kalah_list_add(tasks, b);
    (*nodes)++;
    if (kalah_game_over(b))
        return 0;
    int rc = 0;
    for (int p = 0; p < KALAH_PITS && rc == 0; p++)
        if (b.cells[kalah_pit_cell(b.to_move, p)])
            rc = list_tasks(kalah_play(b, p), plies - 1, tasks, nodes);
    return rc;
}

/* The top plies, walk 2: b's score from the tasks' scores in order. */
static int reduce_tasks(kalah_board b, int plies, const task **next)
{
    if (plies == 0)
        return (*next)++->score;
    if (kalah_game_over(b))
        return kalah_evaluate(b);
    int top = b.to_move == KALAH_TOP, best = top ? INT_MIN : INT_MAX;
    for (int p = 0; p < KALAH_PITS; p++) {
        if (!b.cells[kalah_pit_cell(b.to_move, p)])
            continue;
        best = kalah_better(top, reduce_tasks(kalah_play(b, p), plies - 1,
                                              next), best);
    }
    return best;
}

/* Walk 1 of every task, in parallel, and their lists joined in order. */
static int collect_tasks(kalah_gpu *g, int plies, uint64_t *nodes)
{
    long n = (long)g->tasks_top.count;
    task *tasks = realloc(g->tasks, (n ? (size_t)n : 1) * sizeof *tasks);
    if (!tasks)
        return app_fail(APP_ERR_NO_MEMORY, "kalah gpu: no memory "
                        "for %ld tasks", n);
    g->tasks = tasks;
    #pragma omp parallel for schedule(dynamic) if (plies >= PARALLEL_PLIES)
    for (long i = 0; i < n; i++) {
        tasks[i] = (task){.root = g->tasks_top.boards[i]};
        tasks[i].rc = kalah_frontier_collect(tasks[i].root, plies,
                                             &tasks[i].frontier,
                                             &tasks[i].nodes);
    }
    /* Each task's slice starts where the ones before it end. */
    int failed = 0;
    size_t total = 0;
    for (long i = 0; i < n; i++) {
        failed |= tasks[i].rc;
        tasks[i].first = total;
        total += tasks[i].frontier.count;
        *nodes += tasks[i].nodes;
    }
    if (!failed && total > g->frontier.capacity) {
        kalah_board *all = realloc(g->frontier.boards, total * sizeof *all);
        failed = !all;
        if (all) {
            g->frontier.boards = all;
            g->frontier.capacity = total;
        }
    }
    for (long i = 0; i < n; i++) {
        if (!failed && tasks[i].frontier.count)
            memcpy(g->frontier.boards + tasks[i].first,
                   tasks[i].frontier.boards,
                   tasks[i].frontier.count * sizeof *tasks[i].frontier.boards);
        free(tasks[i].frontier.boards);
    }
    g->frontier.count = failed ? 0 : total;
    return failed ? app_fail(APP_ERR_NO_MEMORY, "kalah gpu: no "
                             "memory for the frontier") : 0;
}

int kalah_gpu_launch(kalah_gpu *g, const kalah_board *boards,
                     const int *bounds, size_t count, int plies, int *scores,
                     cl_uint *nodes)
{
    int whole = plies <= KALAH_GPU_GROUP_PLIES;
    clkernel *k = count == 0 ? NULL
                  : whole ? search_kernel(g)
                          : kalah_gpu_kernel(g, &g->ab_kernel,
                                             KALAH_ALPHABETA_KERNELS,
                                             "kalah_alphabeta");
    if (count && !k)
        return CLFRAME_ERR_BUILD;       /* clframe said why */
    int rc = 0;
    double t0 = clock_seconds();
    for (size_t done = 0; done < count && rc == 0; done += KALAH_GPU_BATCH) {
        cl_uint n = (cl_uint)(count - done < KALAH_GPU_BATCH
                                  ? count - done : KALAH_GPU_BATCH);
        g->counts.launches++;
        g->counts.boards += n;
        int per_item = !whole || g->item;
        size_t group = per_item ? AB_GROUP : g->group;
        rc = clkernel_global(k, per_item ? (n + group - 1) / group * group
                                         : n * group);
        if (rc == 0)
            rc = clkernel_local(k, group);
        clarg frontier = CLARG_TYPED("kalah_board", boards + done, n,
                                     CLARG_TO_DEVICE);
        if (rc == 0 && whole)
            rc = clkernel_call(k, frontier, CLARG_OUT(scores + done, n),
                               CLARG_OUT(nodes + done, n), CLARG(n),
                               CLARG(plies));
        else if (rc == 0)
            rc = clkernel_call(k, frontier, CLARG_IN(bounds + done, n),
                               CLARG_OUT(scores + done, n),
                               CLARG_OUT(nodes + done, n), CLARG(n),
                               CLARG(plies));
    }
    g->counts.seconds += clock_seconds() - t0;
    return rc;
}

int kalah_gpu_make_room(kalah_gpu *g, size_t count)
{
    if (count <= g->scored)
        return 0;
    int *bounds = realloc(g->bounds, count * sizeof *bounds);
    if (bounds)
        g->bounds = bounds;
    int *scores = realloc(g->scores, count * sizeof *scores);
    if (scores)
        g->scores = scores;
    cl_uint *counts = realloc(g->nodes, count * sizeof *counts);
    if (counts)
        g->nodes = counts;
    if (!bounds || !scores || !counts)
        return app_fail(APP_ERR_NO_MEMORY, "kalah gpu: no memory "
                        "for %zu scores", count);
    g->scored = count;
    return 0;
}

/* Step 2: the device scores the frontier (`plies` deep), or the host when
 * plies is 0. */
static int score_frontier(kalah_gpu *g, int plies, uint64_t *nodes)
{
    size_t count = g->frontier.count;
    int rc = kalah_gpu_make_room(g, count);
    if (rc)
        return rc;
    if (plies == 0) {
        for (size_t i = 0; i < count; i++)
            g->scores[i] = kalah_evaluate(g->frontier.boards[i]);
        return 0;
    }
    rc = kalah_gpu_launch(g, g->frontier.boards, NULL, count, plies,
                          g->scores, g->nodes);
    for (size_t i = 0; i < count && rc == 0; i++)
        *nodes += g->nodes[i] - 1;      /* the frontier board is counted */
    return rc;
}

int kalah_gpu_search(kalah_gpu *g, kalah_board b, int depth,
                     kalah_result *r)
{
    if (!g || !r || depth < 0 || depth > KALAH_GPU_MAX_DEPTH)
        return app_fail(APP_ERR_USAGE, "kalah_gpu_search: depth %d "
                        "(0 to %d)", depth, KALAH_GPU_MAX_DEPTH);
    *r = (kalah_result){-1, 0, depth, 0};
    if (depth == 0 || kalah_game_over(b))
        return kalah_minimax(b, depth, r);
    int device_plies = depth - 1 < g->most_plies ? depth - 1
                                                 : g->most_plies;
    int host_plies = depth - device_plies;
    /* Tasks at most TASK_PLIES below the root, at least one ply. */
    int task_plies = host_plies < TASK_PLIES ? host_plies : TASK_PLIES;
    uint64_t nodes = 1;
    int rc = 0;
    g->tasks_top.count = 0;
    for (int p = 0; p < KALAH_PITS && rc == 0; p++)
        if (kalah_is_legal(b, p))
            rc = list_tasks(kalah_play(b, p), task_plies - 1, &g->tasks_top,
                            &nodes);
    if (rc)
        return app_fail(APP_ERR_NO_MEMORY, "kalah gpu: no memory for "
                        "the tasks");
    rc = collect_tasks(g, host_plies - task_plies, &nodes);
    if (rc == 0)
        rc = score_frontier(g, device_plies, &nodes);
    if (rc)
        return rc;
    long n = (long)g->tasks_top.count;
    #pragma omp parallel for schedule(dynamic) \
        if (host_plies - task_plies >= PARALLEL_PLIES)
    for (long i = 0; i < n; i++) {
        const int *next = g->scores + g->tasks[i].first;
        g->tasks[i].score = kalah_frontier_reduce(g->tasks[i].root,
                                                  host_plies - task_plies,
                                                  &next);
    }
    const task *next = g->tasks;
    int top = b.to_move == KALAH_TOP;
    for (int p = 0; p < KALAH_PITS; p++) {
        if (!kalah_is_legal(b, p))
            continue;
        kalah_consider(r, top, p, reduce_tasks(kalah_play(b, p),
                                               task_plies - 1, &next));
    }
    r->nodes = nodes;
    return 0;
}

/* One depth of kalah_gpu_search_timed (a kalah_depth_search): the device's
 * launches run to their end, so there is no deadline to heed. */
static int search_depth(void *g, kalah_board b, int depth, double deadline,
                        kalah_result *r)
{
    (void)deadline;
    return kalah_gpu_search(g, b, depth, r);
}

int kalah_gpu_search_timed(kalah_gpu *g, kalah_board b, double seconds,
                           int max_depth, kalah_result *r)
{
    if (!g || max_depth < 1 || max_depth > KALAH_MAX_DEPTH)
        return app_fail(APP_ERR_USAGE, "kalah_gpu_search_timed: depth %d "
                        "(1 to %d)", max_depth, KALAH_MAX_DEPTH);
    return kalah_deepen("kalah_gpu_search_timed", b, seconds,
                        max_depth < KALAH_GPU_MAX_DEPTH ? max_depth
                                                        : KALAH_GPU_MAX_DEPTH,
                        0, search_depth, g, r);
}
