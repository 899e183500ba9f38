/*
 * gpu.c: the GPU minimax player's host side (the seed's layered search).
 * A search to `depth` plies gives the device the bottom `device_plies`
 * (kernels/kalah/search.cl: one work-group per board, 4 plies at most)
 * and keeps the top `host_plies = depth - device_plies` (at least 1, so
 * that the host chooses the move):
 *
 *   1. the host walks its plies depth first and lists the boards at the
 *      frontier (those where the game is over are scored on the host);
 *   2. the device scores the list, in launches of up to BATCH boards;
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
#include "kalah.h"
#include "common/clock.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define KALAH_SEARCH_KERNELS "kernels/kalah/search.cl"

enum { MAX_DEVICE_PLIES = 4, GROUP = 256, BATCH = 1 << 18, TASK_PLIES = 3,
       PARALLEL_PLIES = 2 };

/* Boards, growing as they are listed. */
typedef struct board_list {
    kalah_board *boards;
    size_t count, capacity;
} board_list;

/* One subtree of the host's plies. */
typedef struct task {
    kalah_board root;
    board_list frontier;        /* walk 1's, until joined */
    size_t first;               /* its first board in the joined frontier */
    uint64_t nodes;             /* walk 1's */
    int score;                  /* walk 2's */
    int rc;
} task;

struct kalah_gpu {
    clctx *ctx;
    clkernel *kernel;           /* built at the first use */
    size_t group;               /* work-items per board */
    int most_plies;             /* device plies at most */
    board_list tasks_top;       /* the task roots, in order */
    task *tasks;
    board_list frontier;        /* joined, in task order */
    int *scores;
    cl_uint *nodes;
    size_t scored;              /* room in scores and nodes */
};

kalah_gpu *kalah_gpu_new(clctx *ctx, int *error)
{
    int rc = 0;
    kalah_gpu *g = calloc(1, sizeof *g);
    if (!g)
        rc = clframe_fail(CLFRAME_ERR_NO_MEMORY, "kalah gpu: no memory");
    else if (!(g->ctx = ctx ? ctx : clctx_default()))
        rc = CLFRAME_ERR_NO_DEVICE;
    if (rc == 0) {
        size_t most = clctx_max_work_group_size(g->ctx);
        g->group = most < GROUP ? most : GROUP;
        g->most_plies = MAX_DEVICE_PLIES;
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
    free(g->tasks_top.boards);
    free(g->tasks);
    free(g->frontier.boards);
    free(g->scores);
    free(g->nodes);
    free(g);
}

int kalah_gpu_set_device_plies(kalah_gpu *g, int plies)
{
    if (!g || plies < 1 || plies > MAX_DEVICE_PLIES)
        return clframe_fail(CLFRAME_ERR_USAGE, "kalah_gpu_set_device_plies: "
                            "%d (1 to %d)", plies, MAX_DEVICE_PLIES);
    g->most_plies = plies;
    return 0;
}

static clkernel *search_kernel(kalah_gpu *g)
{
    if (!g->kernel) {
        g->kernel = clkernel_file(g->ctx, KALAH_SEARCH_KERNELS,
                                  "kalah_search", NULL);
        /* A device that runs this kernel in smaller groups gets them. */
        size_t most = clkernel_max_group_size(g->kernel);
        if (most && most < g->group)
            g->group = most;
    }
    return g->kernel;
}

/* Appends b; 0, or -1 when out of memory (the caller says so). */
static int list_add(board_list *l, kalah_board b)
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

/* Walk 1 below a task: the frontier boards `plies` below b, in pit
 * order; every board visited is counted. */
static int collect(kalah_board b, int plies, board_list *out,
                   uint64_t *nodes)
{
    (*nodes)++;
    if (kalah_game_over(b))
        return 0;
    if (plies == 0)
        return list_add(out, b);
    int rc = 0;
    for (int p = 0; p < KALAH_PITS && rc == 0; p++)
        if (b.cells[kalah_pit_cell(b.to_move, p)])
            rc = collect(kalah_play(b, p), plies - 1, out, nodes);
    return rc;
}

/* Walk 2 below a task: b's score from the scores at *next on. */
static int reduce(kalah_board b, int plies, const int **next)
{
    if (kalah_game_over(b))
        return kalah_evaluate(b);
    if (plies == 0)
        return *(*next)++;
    int top = b.to_move == KALAH_TOP, best = top ? INT_MIN : INT_MAX;
    for (int p = 0; p < KALAH_PITS; p++) {
        if (!b.cells[kalah_pit_cell(b.to_move, p)])
            continue;
        best = kalah_better(top, reduce(kalah_play(b, p), plies - 1, next),
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
        return list_add(tasks, b);
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
    int parallel = plies >= PARALLEL_PLIES;
    long n = (long)g->tasks_top.count;
    task *tasks = realloc(g->tasks, (n ? (size_t)n : 1) * sizeof *tasks);
    if (!tasks)
        return clframe_fail(CLFRAME_ERR_NO_MEMORY, "kalah gpu: no memory "
                            "for %ld tasks", n);
    g->tasks = tasks;
    #pragma omp parallel for schedule(dynamic) if (parallel)
    for (long i = 0; i < n; i++) {
        tasks[i] = (task){.root = g->tasks_top.boards[i]};
        tasks[i].rc = collect(tasks[i].root, plies, &tasks[i].frontier,
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
    return failed ? clframe_fail(CLFRAME_ERR_NO_MEMORY, "kalah gpu: no "
                                 "memory for the frontier") : 0;
}

/* Step 2: the device scores the frontier (`plies` deep), or the host when
 * plies is 0. */
static int score_frontier(kalah_gpu *g, int plies, uint64_t *nodes)
{
    size_t count = g->frontier.count;
    if (count > g->scored) {
        int *scores = realloc(g->scores, count * sizeof *scores);
        if (scores)
            g->scores = scores;
        cl_uint *counts = realloc(g->nodes, count * sizeof *counts);
        if (counts)
            g->nodes = counts;
        if (!scores || !counts)
            return clframe_fail(CLFRAME_ERR_NO_MEMORY, "kalah gpu: no "
                                "memory for %zu scores", count);
        g->scored = count;
    }
    if (plies == 0) {
        for (size_t i = 0; i < count; i++)
            g->scores[i] = kalah_evaluate(g->frontier.boards[i]);
        return 0;
    }
    clkernel *k = search_kernel(g);
    if (!k)
        return CLFRAME_ERR_BUILD;       /* clframe said why */
    int rc = 0;
    for (size_t done = 0; done < count && rc == 0; done += BATCH) {
        cl_uint n = (cl_uint)(count - done < BATCH ? count - done : BATCH);
        rc = clkernel_global(k, (size_t)n * g->group);
        if (rc == 0)
            rc = clkernel_local(k, g->group);
        if (rc == 0)
            rc = clkernel_call(k, CLARG_TYPED("kalah_board",
                                              g->frontier.boards + done, n,
                                              CLARG_TO_DEVICE),
                               CLARG_OUT(g->scores + done, n),
                               CLARG_OUT(g->nodes + done, n), CLARG(n),
                               CLARG(plies));
    }
    for (size_t i = 0; i < count && rc == 0; i++)
        *nodes += g->nodes[i] - 1;      /* the frontier board is counted */
    return rc;
}

int kalah_gpu_search(kalah_gpu *g, kalah_board b, int depth,
                     kalah_result *r)
{
    if (!g || !r || depth < 0 || depth > KALAH_GPU_MAX_DEPTH)
        return clframe_fail(CLFRAME_ERR_USAGE, "kalah_gpu_search: depth %d "
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
        return clframe_fail(CLFRAME_ERR_NO_MEMORY, "kalah gpu: no memory for "
                            "the tasks");
    rc = collect_tasks(g, host_plies - task_plies, &nodes);
    if (rc == 0)
        rc = score_frontier(g, device_plies, &nodes);
    if (rc)
        return rc;
    long n = (long)g->tasks_top.count;
    int parallel = host_plies - task_plies >= PARALLEL_PLIES;
    #pragma omp parallel for schedule(dynamic) if (parallel)
    for (long i = 0; i < n; i++) {
        const int *next = g->scores + g->tasks[i].first;
        g->tasks[i].score = reduce(g->tasks[i].root,
                                   host_plies - task_plies, &next);
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

/* Deepening for a time per move: a GPU search cannot be stopped half way,
 * so the next depth is started only when its expected time (the last one
 * times the growth from the one before, at least 3) still fits. */
int kalah_gpu_search_timed(kalah_gpu *g, kalah_board b, double seconds,
                           int max_depth, kalah_result *r)
{
    if (!g || !r || !(seconds > 0 && seconds <= 3600) || max_depth < 1 ||
        max_depth > KALAH_MAX_DEPTH)
        return clframe_fail(CLFRAME_ERR_USAGE, "kalah_gpu_search_timed: %g "
                            "seconds (more than 0, at most 3600), depth %d "
                            "(1 to %d)", seconds, max_depth, KALAH_MAX_DEPTH);
    if (max_depth > KALAH_GPU_MAX_DEPTH)
        max_depth = KALAH_GPU_MAX_DEPTH;
    double start = clock_seconds(), last = 0, growth = 6;
    int rc = 0;
    for (int depth = 1; depth <= max_depth && rc == 0; depth++) {
        double t0 = clock_seconds();
        kalah_result attempt;
        rc = kalah_gpu_search(g, b, depth, &attempt);
        if (rc)
            break;
        *r = attempt;
        double took = clock_seconds() - t0;
        if (last > 0 && took > 3 * last)
            growth = took / last;
        last = took;
        if (clock_seconds() - start + last * (growth > 3 ? growth : 3) > seconds ||
            kalah_game_over(b))
            break;
    }
    return rc;
}
