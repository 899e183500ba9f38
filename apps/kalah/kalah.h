/*
 * kalah.h: Mankalah on the host, on top of the rules that the host and the
 * device share (apps/kalah/kernels/board.h): boards as text, the searches, the
 * players behind one interface (the GPU minimax player among them), and
 * games between two of them.
 *
 * Every search scores from TOP's point of view (TOP maximises, BOTTOM
 * minimises), counts depth in plies (an extra turn uses a ply and keeps the
 * player), scores leaves with kalah_evaluate, and breaks ties between moves
 * by the lowest pit: so two searches to the same depth choose the same move
 * with the same score, and the tests compare both.
 */
#ifndef APPS_KALAH_H
#define APPS_KALAH_H

#include "kalah/kernels/board.h"
#include "common/text.h"

#include <stdint.h>
#include <stdio.h>

/* clframe's context (clframe.h), which the OpenCL versions run on. */
typedef struct clctx clctx;

/* ---- boards as text (board.c) -------------------------------------------- */

/* "bottom" or "top". */
const char *kalah_side_name(int side);
/* Reads a board: cells is "c0 c1 ... c13" (14 whole numbers, 48 stones in
 * all, as in every game), to_move "top" or "bottom", and the player to move
 * must have a legal move. 0, or APP_ERR_BAD_INPUT with a message that
 * says what is wrong (how many cells, which one, the total). */
int kalah_board_parse(const char *cells, const char *to_move,
                      kalah_board *b);
/* The 14 counts as kalah_board_parse reads them, into buf. */
const char *kalah_board_format(kalah_board b, char *buf, size_t size);
/* The board as the players see it: TOP's pits right to left above,
 * BOTTOM's left to right below, the stores at the ends. */
void kalah_board_print(FILE *f, kalah_board b);

/* ---- searches (search.c) ------------------------------------------------- */

typedef struct kalah_result {
    int move;               /* pit 0..5 of the player to move; -1: game over */
    int score;              /* from TOP's point of view */
    int depth;              /* plies searched */
    uint64_t nodes;         /* boards visited */
} kalah_result;

/* v if it is better than best for the side to move (TOP: larger). */
static inline int kalah_better(int top, int v, int best)
{
    return top ? (v > best ? v : best) : (v < best ? v : best);
}

/* The root's choice under the common tie-break: pit p, scoring v, replaces
 * r's move if there is none yet or v is strictly better for the side to
 * move (so the lowest pit keeps a tie when pits come in order). */
static inline void kalah_consider(kalah_result *r, int top, int p, int v)
{
    if (r->move < 0 || (top ? v > r->score : v < r->score)) {
        r->move = p;
        r->score = v;
    }
}

/* The sequential minimax of the seed: every node to `depth` plies (0 to
 * KALAH_MAX_DEPTH). The reference every other search is checked against. */
#define KALAH_MAX_DEPTH 40
int kalah_minimax(kalah_board b, int depth, kalah_result *r);
/* Alpha-beta to `depth`, searching each node's most promising moves first
 * (by a one-ply look ahead): the same move and score as kalah_minimax,
 * from far fewer nodes. */
int kalah_alphabeta(kalah_board b, int depth, kalah_result *r);
/* b's moves into order[], most promising first (kalah_order_moves), but
 * `first` (a previous search's choice; -1: none) before all if it is one
 * of them: how the alpha-beta searches order a node they search again.
 * Their count. */
int kalah_root_order(kalah_board b, int first, int order[KALAH_PITS]);
/* b's value to `depth` (0 to KALAH_MAX_DEPTH) if it lies strictly between
 * alpha and beta; otherwise a bound on the same side of the window
 * (fail-soft): the building block of the GPU alpha-beta player's host
 * side. Adds the boards visited to *nodes. */
int kalah_alphabeta_window(kalah_board b, int depth, int alpha, int beta,
                           uint64_t *nodes);
/* Iterative deepening alpha-beta: depths 1, 2, ... up to max_depth while
 * `seconds` of wall time last; the result of the deepest search that
 * finished (a search running out of time is abandoned), with the nodes of
 * every depth. Depth 1 always finishes. */
int kalah_alphabeta_timed(kalah_board b, double seconds, int max_depth,
                          kalah_result *r);

/* ---- iterative deepening for a time per move (deepen.c) ------------------ */

/* The most seconds a timed search (and a timed player) may be given. */
#define KALAH_MAX_SECONDS 3600

/* 1 when deadline (seconds on the monotonic clock; 0: none) has passed:
 * the time check of every search that stops at a deadline. */
int kalah_past(double deadline);

/* One search to `depth` for kalah_deepen: fills *r and returns 0, or
 * returns KALAH_STOPPED when deadline (0: none) passed before it finished
 * (*r is then no result), or a negative code when it failed. */
typedef int (*kalah_depth_search)(void *state, kalah_board b, int depth,
                                  double deadline, kalah_result *r);
enum { KALAH_STOPPED = 1 };

/* Iterative deepening for `seconds` of wall time (more than 0, at most
 * KALAH_MAX_SECONDS): searches b to depths 1, 2, ... max_depth (0 to
 * KALAH_MAX_DEPTH) with search(state, ...) and leaves in *r the deepest
 * search that finished. Depth 1 always finishes: it gets no deadline. A
 * search that can stop half way (can_stop) gets the deadline from depth 2
 * on, and the next depth starts while there is time left; one that cannot
 * (the GPU minimax: a launch runs to its end) starts the next depth only
 * when its expected time (the last depth's times the growth from the one
 * before, at least 3) still fits. A finished game, or max_depth 0, is one
 * search to max_depth. `what` names the caller in messages. 0, or a
 * negative code (*r then holds the deepest result before the failure). */
int kalah_deepen(const char *what, kalah_board b, double seconds,
                 int max_depth, int can_stop, kalah_depth_search search,
                 void *state, kalah_result *r);

/* ---- the GPU minimax player (gpu.c) -------------------------------------- */

/* The seed's layered search: the host searches the top plies, the device
 * (apps/kalah/kernels/search.cl) the bottom 4 from every board of the host's
 * frontier, one work-group per board on a GPU, one work-item per board on
 * any other device (common/versions.h says why). The same move and score
 * as kalah_minimax to the same depth. */
typedef struct kalah_gpu kalah_gpu;
/* The deepest GPU search: 10 host plies list up to ~10^7 frontier boards
 * (160 MB) at the opening. */
#define KALAH_GPU_MAX_DEPTH 14
/* ctx: NULL for clframe's default. NULL on error, code in *error. */
kalah_gpu *kalah_gpu_new(clctx *ctx, int *error);
void kalah_gpu_free(kalah_gpu *g);
/* The most plies the device searches below the host's frontier, 1 to 4
 * (4 unless set): the split between host and device. */
int kalah_gpu_set_device_plies(kalah_gpu *g, int plies);
/* A work-item per frontier board (1) or a work-group (0), whatever the
 * device: for tests and benchmarks. 0 or APP_ERR_USAGE. */
int kalah_gpu_set_item_search(kalah_gpu *g, int item);
int kalah_gpu_search(kalah_gpu *g, kalah_board b, int depth,
                     kalah_result *r);
/* Deepening one ply at a time while the next search is expected to end
 * within `seconds` (a search on the device cannot be stopped half way, so
 * it may run over by a little); the deepest search's result. Depth 1
 * always runs. */
int kalah_gpu_search_timed(kalah_gpu *g, kalah_board b, double seconds,
                           int max_depth, kalah_result *r);

/* ---- the GPU alpha-beta player (gpu_alphabeta.c) ------------------------- */

/* Alpha-beta above the device and on it: the host splits the search at
 * its principal variation, and the device searches the other moves'
 * subtrees with alpha-beta, a board per work-item
 * (apps/kalah/kernels/alphabeta.cl), tens of thousands at a launch. Uses the
 * same kalah_gpu object as the minimax player. The same move and score as
 * kalah_minimax to the same depth (0 to KALAH_MAX_DEPTH). */
int kalah_gpu_alphabeta(kalah_gpu *g, kalah_board b, int depth,
                        kalah_result *r);
/* The split between host and device: the host's alpha-beta searches
 * alone where `host_depth` plies or fewer are left, and the device
 * searches `device_plies` (1 to 24) below each board it is given.
 * KALAH_GPU_AB_HOST_DEPTH and KALAH_GPU_AB_DEVICE_PLIES unless set. */
#define KALAH_GPU_AB_HOST_DEPTH 12
#define KALAH_GPU_AB_DEVICE_PLIES 4
int kalah_gpu_set_alphabeta_split(kalah_gpu *g, int host_depth,
                                  int device_plies);
/* What the GPU players' launches have cost since the kalah_gpu was made:
 * for seeing where a search's time goes. */
typedef struct kalah_gpu_counts {
    uint64_t launches;      /* kernel calls */
    uint64_t boards;        /* boards they searched */
    double seconds;         /* wall time in them (copies in and out too) */
} kalah_gpu_counts;
kalah_gpu_counts kalah_gpu_counts_of(const kalah_gpu *g);
/* Iterative deepening for `seconds` of wall time, as
 * kalah_alphabeta_timed: a depth that runs out of time is abandoned
 * between launches (so a search may run over by a launch). Depth 1
 * always finishes. */
int kalah_gpu_alphabeta_timed(kalah_gpu *g, kalah_board b, double seconds,
                              int max_depth, kalah_result *r);

/* ---- players (player.c) -------------------------------------------------- */

typedef enum kalah_player_kind {
    KALAH_HUMAN,            /* reads moves (pit 1..6) from a stream */
    KALAH_RANDOM,           /* a uniformly random legal move */
    KALAH_MINIMAX,          /* kalah_minimax to a depth */
    KALAH_ALPHABETA,        /* kalah_alphabeta to a depth, or timed */
    KALAH_GPU,              /* kalah_gpu_search to a depth, or timed */
    KALAH_GPU_ALPHABETA,    /* kalah_gpu_alphabeta to a depth, or timed */
    KALAH_PLAYER_KINDS
} kalah_player_kind;

typedef struct kalah_player {
    kalah_player_kind kind;
    int depth;              /* plies (minimax, alphabeta) */
    double seconds;         /* > 0: alphabeta, gpu, gpuab by time a move */
    uint32_t seed;          /* random's state */
    FILE *in, *out;         /* human: where moves come from, prompts go */
    text_reader lines;      /* human: the lines read from `in` so far */
    char name[32];          /* "alphabeta:9", as parsed */
    clctx *ctx;             /* gpu, gpuab: the device (NULL: the default) */
    kalah_gpu *gpu;         /* gpu, gpuab: made at its first move */
} kalah_player;

/* Parses PLAYER[:depth|:time]: "human", "random", "minimax:D" (D plies,
 * default 8), "alphabeta:D" or "alphabeta:Ts" (T seconds a move), "gpu:D"
 * or "gpu:Ts" (the GPU minimax player), "gpuab:D" or "gpuab:Ts" (the GPU
 * alpha-beta player).
 * 0, or APP_ERR_BAD_INPUT with a message. A human reads stdin and
 * prompts on stdout; random starts from seed 1 (kalah_player_seed changes
 * it). Release a player with kalah_player_release. */
int kalah_player_parse(const char *spec, kalah_player *p);
void kalah_player_release(kalah_player *p);
void kalah_player_seed(kalah_player *p, uint32_t seed);
/* The player's move on b (which must not be finished), in r. A human who
 * types something that is not a legal move (a line of more than
 * KALAH_HUMAN_LINE_MAX characters included) is told why and asked again;
 * the end of the input is APP_ERR_IO, input that is not text (a NUL byte:
 * /dev/zero) or KALAH_HUMAN_TRIES answers refused in a row
 * APP_ERR_BAD_INPUT, so that a stream that never holds a move ends the
 * game rather than asking for ever. */
enum { KALAH_HUMAN_LINE_MAX = 127, KALAH_HUMAN_TRIES = 100 };
int kalah_player_move(kalah_player *p, kalah_board b, kalah_result *r);

/* ---- games (game.c) ------------------------------------------------------ */

typedef struct kalah_game {
    kalah_board final;      /* the finished board */
    int top_total, bottom_total;
    int moves[2];           /* moves made by BOTTOM, TOP */
    double seconds[2];      /* their thinking time */
} kalah_game;

/* Plays a game from `start` (kalah_start(first) for a whole game) to its
 * end; players[side] moves for side (KALAH_BOTTOM, KALAH_TOP). With log,
 * each move and board is printed there. 0, or the failing player's code
 * (a player whose move is not legal fails the game). */
int kalah_play_game(kalah_player *players[2], kalah_board start, FILE *log,
                    kalah_game *g);

#endif /* APPS_KALAH_H */
