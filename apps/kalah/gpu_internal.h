/*
 * gpu_internal.h: what the two GPU players share (gpu.c, the minimax
 * player, and gpu_alphabeta.c, the alpha-beta player): the object that
 * holds their device, kernels and buffers, and the host's walks that list
 * the boards some plies below a node (the frontier the device searches)
 * and take the node's value back from the frontier's scores.
 */
#ifndef APPS_KALAH_GPU_INTERNAL_H
#define APPS_KALAH_GPU_INTERNAL_H

#include "kalah.h"

/* clframe's kernel (clframe.h), which gpu.c builds and calls. */
typedef struct clkernel clkernel;

/* Boards, growing as they are listed. */
typedef struct board_list {
    kalah_board *boards;
    size_t count, capacity;
} board_list;

struct task;                    /* gpu.c's subtrees of the host's plies */

struct kalah_gpu {
    clctx *ctx;
    clkernel *kernel;           /* the minimax kernel, built at first use */
    int item;                   /* it is kalah_search_item, not
                                   kalah_search (a work-group a board) */
    clkernel *ab_kernel;        /* the alpha-beta kernel, likewise */
    int build_failed;           /* a kernel did not build: not tried again */
    size_t group;               /* work-items per board (minimax) */
    int most_plies;             /* device plies at most (minimax) */
    int ab_host_depth;          /* alpha-beta: kalah_gpu_set_alphabeta_split */
    int ab_device_plies;
    board_list tasks_top;       /* the task roots, in order */
    struct task *tasks;
    board_list frontier;        /* the boards the device searches */
    int *bounds;                /* and their bounds (alpha-beta) */
    int *scores;                /* and their scores */
    cl_uint *nodes;             /* and the boards each search visited */
    size_t scored;              /* room in scores and nodes */
    kalah_gpu_counts counts;    /* kalah_gpu_counts_of */
};

/* Launches search at most this many boards. */
enum { KALAH_GPU_BATCH = 1 << 18 };

/* The kernel `name` of `path` in *slot, built at the first call; NULL
 * after a failed build, then and at every later call (clframe said why). */
clkernel *kalah_gpu_kernel(kalah_gpu *g, clkernel **slot, const char *path,
                           const char *name);
/* scores[i] = boards[i]'s value `plies` deep, for i < count: exact up to
 * KALAH_GPU_GROUP_PLIES plies (search.cl: a work-group searches a board's
 * whole tree); deeper, fail-soft in the null window (bounds[i],
 * bounds[i] + 1) (alphabeta.cl: a work-item searches a board by
 * alpha-beta). nodes[i] = the boards its search visited, boards[i]
 * included. In launches of at most KALAH_GPU_BATCH boards, counted in
 * g->counts. 0 or a negative code. */
#define KALAH_GPU_GROUP_PLIES 4
int kalah_gpu_launch(kalah_gpu *g, const kalah_board *boards,
                     const int *bounds, size_t count, int plies, int *scores,
                     cl_uint *nodes);
/* Room for `count` bounds, scores and node counts; 0 or
 * APP_ERR_NO_MEMORY. */
int kalah_gpu_make_room(kalah_gpu *g, size_t count);

/* Appends b; 0, or -1 when out of memory (the caller says so). */
int kalah_list_add(board_list *l, kalah_board b);
/* The boards `plies` below b where the game goes on, in pit order, onto
 * out; every board visited is counted in *nodes. 0, or -1 when out of
 * memory. */
int kalah_frontier_collect(kalah_board b, int plies, board_list *out,
                           uint64_t *nodes);
/* b's value from the scores of its frontier (as kalah_frontier_collect
 * listed it), read from *next on: max or min upwards, finished games
 * scored on the host. Fail-soft scores in one window give b's fail-soft
 * value in that window. */
int kalah_frontier_reduce(kalah_board b, int plies, const int **next);

#endif /* APPS_KALAH_GPU_INTERNAL_H */
