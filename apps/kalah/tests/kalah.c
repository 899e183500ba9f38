/*
 * kalah.c: Mankalah on the host (apps/kalah). Alpha-beta against the
 * sequential minimax on thousands of random positions (same move, same
 * score, fewer nodes) and the GPU players against it too (the minimax
 * player: same move, score and node count; the alpha-beta player at many
 * splits between host and device: same move and score; on the CPU device
 * in CI); positions whose best
 * move is worked out by hand;
 * the timed search; games between every kind of player end legally with
 * 48 stones; boards and players as text, with every error; the human
 * player's prompts; and bin/kalah's commands and exit statuses.
 */
#include "common/tests/testing.h"
#include "kalah/kalah.h"
#include "common/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sizes per run (support.h): positions searched, search depths and
 * the timed searches' seconds. */
static const struct {
    int host_positions;     /* alpha-beta against minimax on the host */
    int item_positions;     /* the device's search against minimax, */
    int split_rounds;       /* and its alpha-beta's, rounds of splits */
    int max_depth;          /* deeper searches go 3 plies less deep */
    double seconds;         /* of the timed searches */
    int game_depth;         /* of the players of whole games */
} run_sizes[] = {
    [TEST_FULL]    = {1500, 1400, 70, 7, 0.2, 6},
    [TEST_CHECKED] = {60, 14, 2, 5, 0.01, 3},
};

/* Player `kind` searching game_depth plies, parsed into p. */
static int parse_player(const char *kind, kalah_player *p)
{
    char text[64];
    snprintf(text, sizeof text, "%s:%d", kind, RUN_SIZE(game_depth));
    return kalah_player_parse(text, p);
}

/* A position reached by `moves` random legal moves from the opening (the
 * opening again if the game ended on the way). */
static kalah_board random_position(int moves, uint32_t *state)
{
    kalah_board b = kalah_start(test_random(state) % 2);
    for (int m = 0; m < moves && !kalah_game_over(b); m++) {
        int pit;
        do
            pit = (int)(test_random(state) % KALAH_PITS);
        while (!kalah_is_legal(b, pit));
        b = kalah_play(b, pit);
    }
    return b;
}

static kalah_board board_of(const char *cells, const char *to_move)
{
    kalah_board b;
    ck_assert_app(kalah_board_parse(cells, to_move, &b));
    return b;
}

/* ---- searches ------------------------------------------------------------ */

START_TEST(alphabeta_matches_minimax_on_random_positions)
{
    uint32_t state = 2024;
    int positions = RUN_SIZE(host_positions), max_depth = 7;
    uint64_t nodes_ab = 0, nodes_mm = 0;
    for (int i = 0; i < positions; i++) {
        kalah_board b = random_position((int)(test_random(&state) % 60),
                                        &state);
        int depth = 1 + i % max_depth;
        kalah_result mm, ab;
        ck_assert_app(kalah_minimax(b, depth, &mm));
        ck_assert_app(kalah_alphabeta(b, depth, &ab));
        char text[64];
        ck_assert_msg(mm.move == ab.move && mm.score == ab.score,
                      "board %s (%s to move), depth %d: minimax pit %d score "
                      "%d, alphabeta pit %d score %d",
                      kalah_board_format(b, text, sizeof text),
                      kalah_side_name(b.to_move), depth, mm.move, mm.score,
                      ab.move, ab.score);
        ck_assert_uint_le(ab.nodes, mm.nodes);
        nodes_ab += ab.nodes;
        nodes_mm += mm.nodes;
        if (kalah_game_over(b))
            ck_assert_int_eq(mm.move, -1);
        else
            ck_assert(kalah_is_legal(b, mm.move));
    }
    /* Pruning that prunes nothing would pass the comparisons above. */
    ck_assert_msg(nodes_ab * 3 < nodes_mm, "alphabeta %llu nodes, minimax "
                  "%llu", (unsigned long long)nodes_ab,
                  (unsigned long long)nodes_mm);
}
END_TEST

START_TEST(searches_find_moves_worked_out_by_hand)
{
    kalah_result r;
    /* BOTTOM to move. Pit 6 (1 stone) into the store is an extra turn
     * (heuristic -38), pits 3-5 sow along the side (-34); pit 1 (1 stone)
     * lands in empty pit 2 opposite TOP's 10 stones in cell 11, a capture
     * of 11 into a store of 21 (-98), BOTTOM's best at depth 1. */
    kalah_board b = board_of("1 0 3 3 3 1 10 4 4 4 4 10 1 0", "bottom");
    ck_assert_app(kalah_minimax(b, 1, &r));
    ck_assert_int_eq(r.move, 0);
    ck_assert_int_eq(r.score, kalah_evaluate(kalah_play(b, 0)));
    ck_assert_int_eq(kalah_play(b, 0).cells[KALAH_BOTTOM_STORE], 21);
    /* The last move of a game: TOP takes its last stone into its store,
     * ending the game; the score is decisive. TOP 25 + 1, BOTTOM 22. */
    b = board_of("10 4 4 2 1 1 0 0 0 0 0 0 1 25", "top");
    ck_assert_app(kalah_minimax(b, 3, &r));
    ck_assert_int_eq(r.move, 5);
    ck_assert_int_eq(r.score, KALAH_WIN * (26 - 22));
    ck_assert_app(kalah_alphabeta(b, 3, &r));
    ck_assert_int_eq(r.score, KALAH_WIN * (26 - 22));
    /* Ties go to the lowest pit: a symmetric position where pits 1 and 2
     * (one stone each, neither reaching anything) score the same at depth
     * 1; both searches pick pit 1 (index 0). */
    b = board_of("1 1 0 0 0 0 22 0 0 0 0 1 1 22", "bottom");
    kalah_result a;
    ck_assert_app(kalah_minimax(b, 1, &r));
    ck_assert_app(kalah_alphabeta(b, 1, &a));
    ck_assert_int_eq(kalah_evaluate(kalah_play(b, 0)),
                     kalah_evaluate(kalah_play(b, 1)));
    ck_assert_int_eq(r.move, 0);
    ck_assert_int_eq(a.move, 0);
    /* Depth 0 and a finished game: the evaluation, no move. */
    ck_assert_app(kalah_minimax(kalah_start(KALAH_TOP), 0, &r));
    ck_assert_int_eq(r.move, -1);
    ck_assert_int_eq(r.score, 0);
    b.cells[0] = b.cells[1] = 0;
    b.cells[KALAH_BOTTOM_STORE] = 24;
    ck_assert(kalah_game_over(b));
    ck_assert_app(kalah_alphabeta(b, 5, &r));
    ck_assert_int_eq(r.move, -1);
    ck_assert_int_eq(r.score, KALAH_WIN * (24 - 24));
    /* Bad depths. */
    ck_assert_app_fails(kalah_minimax(b, -1, &r), APP_ERR_USAGE, "depth -1");
    ck_assert_app_fails(kalah_alphabeta(b, 41, &r), APP_ERR_USAGE, "0 to 40");
}
END_TEST

START_TEST(timed_search_deepens_within_its_time)
{
    kalah_board b = kalah_start(KALAH_BOTTOM);
    kalah_result timed, fixed;
    ck_assert_app(kalah_alphabeta_timed(b, 0.05, KALAH_MAX_DEPTH, &timed));
    ck_assert_int_ge(timed.depth, 1);
    ck_assert(kalah_is_legal(b, timed.move));
    /* What it reports is the fixed-depth search to its depth. */
    ck_assert_app(kalah_alphabeta(b, timed.depth, &fixed));
    ck_assert_int_eq(timed.move, fixed.move);
    ck_assert_int_eq(timed.score, fixed.score);
    /* A cap on the depth holds. */
    ck_assert_app(kalah_alphabeta_timed(b, 10, 3, &timed));
    ck_assert_int_eq(timed.depth, 3);
    ck_assert_app_fails(kalah_alphabeta_timed(b, 0, 3, &timed),
                        APP_ERR_USAGE, "seconds");
}
END_TEST

/* ---- the GPU player ---------------------------------------------------------- */

/* The GPU player against the sequential minimax on random positions at
 * depths 1 to 7 (1 is the host alone; 2 to 5 put 1 to 4 plies on the
 * device; 6 and 7 split 2 + 4 and 3 + 4): the same move, score and node
 * count, with a work-group per frontier board and with a work-item. Fewer
 * positions under Oclgrind and valgrind, which simulate or watch every
 * work-item. */
START_TEST(gpu_player_matches_minimax_on_random_positions)
{
    clctx *own = test_run_context();
    int rc;
    kalah_gpu *gpu = kalah_gpu_new(own, &rc);
    ck_assert_app_made(gpu);
    uint32_t state = 77;
    int positions = RUN_SIZE(item_positions);
    for (int i = 0; i < 2 * positions; i++) {
        if (i % positions == 0)
            ck_assert_app(kalah_gpu_set_item_search(gpu, i / positions));
        kalah_board b = random_position((int)(test_random(&state) % 50),
                                        &state);
        int depth = 1 + i % 7;
        if (depth > RUN_SIZE(max_depth))
            depth -= 3;
        kalah_result mm, dev;
        ck_assert_app(kalah_minimax(b, depth, &mm));
        ck_assert_app(kalah_gpu_search(gpu, b, depth, &dev));
        char text[64];
        ck_assert_msg(mm.move == dev.move && mm.score == dev.score &&
                      mm.nodes == dev.nodes,
                      "board %s (%s to move), depth %d, item search %d: "
                      "minimax pit %d score %d nodes %llu, gpu pit %d score "
                      "%d nodes %llu", kalah_board_format(b, text, sizeof text),
                      kalah_side_name(b.to_move), depth, i / positions,
                      mm.move, mm.score,
                      (unsigned long long)mm.nodes, dev.move, dev.score,
                      (unsigned long long)dev.nodes);
    }
    kalah_gpu_free(gpu);
    clctx_free(own);
}
END_TEST

/* The timed GPU player: what it reports is the search to its depth. */
START_TEST(timed_gpu_search_deepens_within_its_time)
{
    clctx *own = test_run_context();
    int rc;
    kalah_gpu *gpu = kalah_gpu_new(own, &rc);
    ck_assert_app_made(gpu);
    kalah_board b = kalah_start(KALAH_TOP);
    kalah_result timed, fixed;
    ck_assert_app(kalah_gpu_search_timed(gpu, b, RUN_SIZE(seconds), 6,
                                        &timed));
    ck_assert_int_ge(timed.depth, 1);
    ck_assert_int_le(timed.depth, 6);
    ck_assert_app(kalah_minimax(b, timed.depth, &fixed));
    ck_assert_int_eq(timed.move, fixed.move);
    ck_assert_int_eq(timed.score, fixed.score);
    ck_assert_app_fails(kalah_gpu_search_timed(gpu, b, 0, 6, &timed),
                        APP_ERR_USAGE, "seconds");
    ck_assert_app_fails(kalah_gpu_search(gpu, b, 15, &timed), APP_ERR_USAGE,
                        "0 to 14");
    ck_assert_app_fails(kalah_gpu_set_item_search(gpu, 2), APP_ERR_USAGE,
                        "0 or 1");
    kalah_gpu_free(gpu);
    clctx_free(own);
}
END_TEST

/* The GPU alpha-beta player at every split between host and device that
 * puts each part of it to work (the scouts' tree, both kernels, the host's
 * alpha-beta): minimax's move and score. */
START_TEST(gpu_alphabeta_matches_minimax_on_random_positions)
{
    static const int splits[][2] = {{0, 1}, {1, 2}, {0, 3}, {2, 4}, {0, 5},
                                    {1, 6}, {3, 2}, {6, 6}};
    enum { SPLITS = sizeof splits / sizeof *splits };
    clctx *own = test_run_context();
    int rc;
    kalah_gpu *gpu = kalah_gpu_new(own, &rc);
    ck_assert_app_made(gpu);
    uint32_t state = 31;
    int positions = RUN_SIZE(split_rounds) * SPLITS;
    for (int i = 0; i < positions; i++) {
        kalah_board b = random_position((int)(test_random(&state) % 50),
                                        &state);
        int depth = 1 + (i / SPLITS) % 7, split = i % SPLITS;
        if (depth > RUN_SIZE(max_depth))
            depth -= 3;
        ck_assert_app(kalah_gpu_set_alphabeta_split(gpu, splits[split][0],
                                                   splits[split][1]));
        kalah_result mm, dev;
        ck_assert_app(kalah_minimax(b, depth, &mm));
        ck_assert_app(kalah_gpu_alphabeta(gpu, b, depth, &dev));
        char text[64];
        ck_assert_msg(mm.move == dev.move && mm.score == dev.score,
                      "board %s (%s to move), depth %d, split %d,%d: minimax "
                      "pit %d score %d, gpuab pit %d score %d",
                      kalah_board_format(b, text, sizeof text),
                      kalah_side_name(b.to_move), depth, splits[split][0],
                      splits[split][1], mm.move, mm.score, dev.move,
                      dev.score);
    }
    kalah_gpu_counts counts = kalah_gpu_counts_of(gpu);
    ck_assert_uint_gt(counts.launches, 0);
    ck_assert_uint_ge(counts.boards, counts.launches);
    ck_assert_app_fails(kalah_gpu_set_alphabeta_split(gpu, 4, 25),
                        APP_ERR_USAGE, "1 to 24");
    ck_assert_app_fails(kalah_gpu_set_alphabeta_split(gpu, -1, 4),
                        APP_ERR_USAGE, "0 to 40");
    kalah_gpu_free(gpu);
    clctx_free(own);
}
END_TEST

/* The timed GPU alpha-beta player: what it reports is the search to its
 * depth, and it keeps to its time within a launch. */
START_TEST(timed_gpu_alphabeta_deepens_within_its_time)
{
    clctx *own = test_run_context();
    int rc;
    kalah_gpu *gpu = kalah_gpu_new(own, &rc);
    ck_assert_app_made(gpu);
    ck_assert_app(kalah_gpu_set_alphabeta_split(gpu, 1, 3));
    kalah_board b = kalah_start(KALAH_BOTTOM);
    kalah_result timed, fixed;
    ck_assert_app(kalah_gpu_alphabeta_timed(gpu, b, RUN_SIZE(seconds), 7,
                                           &timed));
    ck_assert_int_ge(timed.depth, 1);
    ck_assert_int_le(timed.depth, 7);
    ck_assert_app(kalah_minimax(b, timed.depth, &fixed));
    ck_assert_int_eq(timed.move, fixed.move);
    ck_assert_int_eq(timed.score, fixed.score);
    /* Deep enough never to finish: the time bounds it. */
    double t0 = clock_ms();
    ck_assert_app(kalah_gpu_alphabeta_timed(gpu, b, 0.05, 40, &timed));
    ck_assert_int_lt(timed.depth, 40);
    ck_assert_msg(clock_ms() - t0 < 5000, "took %.0f ms for 50",
                  clock_ms() - t0);
    ck_assert_app_fails(kalah_gpu_alphabeta_timed(gpu, b, 0, 6, &timed),
                        APP_ERR_USAGE, "seconds");
    ck_assert_app_fails(kalah_gpu_alphabeta(gpu, b, 41, &timed),
                        APP_ERR_USAGE, "0 to 40");
    kalah_gpu_free(gpu);
    clctx_free(own);
}
END_TEST

START_TEST(gpu_player_plays_a_game)
{
    kalah_player gpu, ab;
    ck_assert_app(parse_player("gpu", &gpu));
    ck_assert_app(parse_player("alphabeta", &ab));
    gpu.ctx = test_run_context();
    kalah_player *players[2] = {&ab, &gpu};
    kalah_game g;
    ck_assert_app(kalah_play_game(players, kalah_start(KALAH_TOP), NULL, &g));
    ck_assert_int_eq(g.top_total + g.bottom_total, 48);
    /* Equal depths, equal searches: the game is the minimax game. */
    kalah_player mm;
    ck_assert_app(parse_player("minimax", &mm));
    kalah_player *same[2] = {&ab, &mm};
    kalah_game h;
    ck_assert_app(kalah_play_game(same, kalah_start(KALAH_TOP), NULL, &h));
    ck_assert_mem_eq(&g.final, &h.final, sizeof g.final);
    ck_assert_int_eq(g.moves[KALAH_TOP], h.moves[KALAH_TOP]);
    /* And so is the GPU alpha-beta player's. */
    kalah_player gpuab;
    ck_assert_app(parse_player("gpuab", &gpuab));
    gpuab.ctx = gpu.ctx;
    kalah_player *again[2] = {&ab, &gpuab};
    kalah_game k;
    ck_assert_app(kalah_play_game(again, kalah_start(KALAH_TOP), NULL, &k));
    ck_assert_mem_eq(&k.final, &h.final, sizeof k.final);
    clctx *own = gpu.ctx;
    kalah_player_release(&gpu);
    kalah_player_release(&gpuab);
    clctx_free(own);
}
END_TEST

/* ---- games ----------------------------------------------------------------- */

START_TEST(games_between_any_players_end_legally)
{
    static const char *const specs[] = {"random", "minimax:2", "alphabeta:3",
                                        "alphabeta:0.001s"};
    enum { KINDS = sizeof specs / sizeof *specs };
    for (int t = 0; t < KINDS; t++)
        for (int u = 0; u < KINDS; u++)
            for (int first = 0; first < 2; first++) {
                kalah_player top, bottom;
                ck_assert_app(kalah_player_parse(specs[t], &top));
                ck_assert_app(kalah_player_parse(specs[u], &bottom));
                kalah_player_seed(&top, 7u + (uint32_t)(t * 8 + u));
                kalah_player_seed(&bottom, 99u + (uint32_t)first);
                kalah_player *players[2] = {&bottom, &top};
                kalah_game g;
                ck_assert_app(kalah_play_game(players, kalah_start(first),
                                             NULL, &g));
                ck_assert(kalah_game_over(g.final));
                ck_assert_int_eq(g.top_total + g.bottom_total, 48);
                ck_assert_int_eq(g.top_total, kalah_total(g.final, 1));
                ck_assert_int_gt(g.moves[0] + g.moves[1], 0);
            }
    /* A strong player beats a random one from either side. */
    kalah_player strong, weak;
    ck_assert_app(kalah_player_parse("alphabeta:6", &strong));
    ck_assert_app(kalah_player_parse("random", &weak));
    for (int side = 0; side < 2; side++) {
        kalah_player *players[2];
        players[side] = &strong;
        players[1 - side] = &weak;
        kalah_game g;
        ck_assert_app(kalah_play_game(players, kalah_start(KALAH_BOTTOM),
                                     NULL, &g));
        int mine = side == KALAH_TOP ? g.top_total : g.bottom_total;
        ck_assert_int_gt(mine, 24);
    }
}
END_TEST

/* ---- text ---------------------------------------------------------------- */

START_TEST(boards_are_read_and_refused_with_reasons)
{
    kalah_board b = board_of("4 4 4 4 4 4 0 4 4 4 4 4 4 0", "top");
    kalah_board start = kalah_start(KALAH_TOP);
    ck_assert_mem_eq(&b, &start, sizeof b);
    char text[64];
    ck_assert_str_eq(kalah_board_format(b, text, sizeof text),
                     "4 4 4 4 4 4 0 4 4 4 4 4 4 0");
    static const struct {
        const char *cells, *to_move, *says;
    } bad[] = {
        {"4 4 4 4 4 4 0 4 4 4 4 4 4", "top", "13 cells, expected 14"},
        {"4 4 4 4 4 4 0 4 4 4 4 4 4 0 0", "top", "more than 14 cells"},
        {"4 4 4 4 4 4 0 4 4 4 4 4 -4 8", "top", "cell 12 is \"-4\""},
        {"4 4 4 4 4 4 0 4 4 4 4 4 4 x", "top", "cell 13 is \"x\""},
        {"4 4 4 4 4 4 0 4 4 4 4 4 4 1", "top", "49 stones in all"},
        {"49 0 0 0 0 0 0 0 0 0 0 0 0 0", "top", "cell 0 is \"49\""},
        {"0 0 0 0 0 0 24 4 4 4 4 4 4 0", "bottom", "bottom has no legal"},
        {"0 0 0 0 0 0 24 4 4 4 4 4 4 0", "top", "top has no legal"},
        {"4 4 4 4 4 4 0 4 4 4 4 4 4 0", "left", "\"top\" or \"bottom\""},
        {"", "top", "0 cells"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_app_fails(kalah_board_parse(bad[i].cells, bad[i].to_move, &b),
                            APP_ERR_BAD_INPUT, bad[i].says);
}
END_TEST

START_TEST(players_are_read_and_refused_with_reasons)
{
    kalah_player p;
    ck_assert_app(kalah_player_parse("minimax:5", &p));
    ck_assert_int_eq(p.kind, KALAH_MINIMAX);
    ck_assert_int_eq(p.depth, 5);
    ck_assert_app(kalah_player_parse("alphabeta:0.25s", &p));
    ck_assert_int_eq(p.kind, KALAH_ALPHABETA);
    ck_assert(p.seconds == 0.25);
    ck_assert_app(kalah_player_parse("alphabeta", &p));
    ck_assert_int_eq(p.depth, 8);
    ck_assert_app(kalah_player_parse("human", &p));
    ck_assert_int_eq(p.kind, KALAH_HUMAN);
    ck_assert_app(kalah_player_parse("gpu:0.5s", &p));
    ck_assert_int_eq(p.kind, KALAH_GPU);
    ck_assert(p.seconds == 0.5);
    ck_assert_app(kalah_player_parse("gpuab:18", &p));
    ck_assert_int_eq(p.kind, KALAH_GPU_ALPHABETA);
    ck_assert_int_eq(p.depth, 18);
    ck_assert_app(kalah_player_parse("gpuab:0.1s", &p));
    ck_assert(p.seconds > 0.0999 && p.seconds < 0.1001);
    static const struct {
        const char *spec, *says;
    } bad[] = {
        {"gpu-ish", "expected human, random"}, {"minimax:0", "1 to 40"},
        {"gpu:0", "1 to 14"},                  {"gpu:15", "1 to 14"},
        {"gpu:-1s", "more than 0"},
        {"minimax:41", "1 to 40"},             {"minimax:2s", "1 to 40"},
        {"alphabeta:0s", "more than 0"},       {"alphabeta:x", "0.5s"},
        {"gpuab:41", "1 to 40"},               {"gpuab:0s", "more than 0"},
        {"random:3", "takes no depth"},        {"human:1", "takes no depth"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_app_fails(kalah_player_parse(bad[i].spec, &p),
                            APP_ERR_BAD_INPUT, bad[i].says);
}
END_TEST

/* The moves a human player makes from `input` on the position of the
 * test above, into moves (up to max; -1 after the last), the code of the
 * first failure returned; what it was told in *said (caller frees). */
static int human_plays(const char *input, size_t len, int *moves, int max,
                       char **said)
{
    const char *in_path = test_tmp_path("kalah", "human-in.txt");
    const char *out_path = test_tmp_path("kalah", "human-out.txt");
    FILE *in = fopen(in_path, "wb");
    ck_assert_ptr_nonnull(in);
    ck_assert_uint_eq(fwrite(input, 1, len, in), len);
    fclose(in);
    kalah_board b = board_of("1 0 3 3 3 1 10 4 4 4 4 10 1 0", "bottom");
    kalah_player p;
    ck_assert_app(kalah_player_parse("human", &p));
    p.in = fopen(in_path, "rb");
    p.out = fopen(out_path, "w");
    int rc = 0, n = 0;
    kalah_result r;
    while (n < max && (rc = kalah_player_move(&p, b, &r)) == 0)
        moves[n++] = r.move;
    if (n < max)
        moves[n] = -1;
    fclose(p.in);
    fclose(p.out);
    size_t size;
    *said = test_read_file(out_path, &size);
    return rc;
}

/* A line longer than 127 characters is refused whole, not cut by fgets
 * with its tail ("3") played as the next move. */
START_TEST(a_human_line_too_long_is_refused_whole)
{
    char input[200];
    memset(input, 'x', 127);
    strcpy(input + 127, "3\n4\n");
    int moves[2];
    char *said;
    ck_assert_int_eq(human_plays(input, strlen(input), moves, 2, &said),
                     APP_ERR_IO);
    ck_assert_int_eq(moves[0], 3);
    ck_assert_int_eq(moves[1], -1);
    ck_assert_msg(strstr(said, "<stdin>:1: the line is longer than 127 "
                           "characters: type a number from 1 to 6"),
                  "%s", said);
    free(said);
}
END_TEST

/* Input that never holds a move ends the game: answers refused 100 times
 * in a row, or bytes that are not text. */
START_TEST(a_human_input_without_moves_ends_the_game)
{
    char input[400] = "4\n";
    for (int i = 0; i < 150; i++)
        strcat(input, "7\n");
    int moves[2];
    char *said;
    ck_assert_app_fails(human_plays(input, strlen(input), moves, 2, &said),
                        APP_ERR_BAD_INPUT, "human player (bottom): no legal "
                        "move in 100 answers in a row");
    ck_assert_int_eq(moves[0], 3);
    free(said);
    ck_assert_app_fails(human_plays("4\n\0\n", 4, moves, 2, &said),
                        APP_ERR_BAD_INPUT, "human player (bottom): <stdin>:2: "
                        "a NUL byte at byte offset 2");
    free(said);
}
END_TEST

START_TEST(a_human_is_asked_again_until_the_move_is_legal)
{
    const char *in_path = test_tmp_path("kalah", "human-in.txt");
    const char *out_path = test_tmp_path("kalah", "human-out.txt");
    FILE *in = fopen(in_path, "w");
    ck_assert_ptr_nonnull(in);
    fputs("seven\n0\n2\n4\n", in);      /* not a pit, out of range, empty */
    fclose(in);
    kalah_board b = board_of("1 0 3 3 3 1 10 4 4 4 4 10 1 0", "bottom");
    kalah_player p;
    ck_assert_app(kalah_player_parse("human", &p));
    p.in = fopen(in_path, "r");
    p.out = fopen(out_path, "w");
    kalah_result r;
    ck_assert_app(kalah_player_move(&p, b, &r));
    ck_assert_int_eq(r.move, 3);
    /* The input ends: an error, not a made-up move. */
    ck_assert_app_fails(kalah_player_move(&p, b, &r), APP_ERR_IO,
                        "input ended");
    fclose(p.in);
    fclose(p.out);
    size_t size;
    char *said = test_read_file(out_path, &size);
    ck_assert_msg(strstr(said, "\"seven\" is not a pit") &&
                  strstr(said, "\"0\" is not a pit") &&
                  strstr(said, "pit 2 is empty"), "%s", said);
    free(said);
}
END_TEST

/* ---- bin/kalah ----------------------------------------------------------- */

START_TEST(program_plays_analyses_and_refuses_bad_input)
{
    const char *kalah = test_program("kalah");
    const char *out = test_tmp_path("kalah", "out.txt");
    size_t size;
    ck_assert_int_eq(test_run("%s --top alphabeta:4 --bottom random --seed 3 "
                              "> %s", kalah, out), 0);
    char *text = test_read_file(out, &size);
    ck_assert_msg(strstr(text, "plays pit") && strstr(text, "final: top "),
                  "%s", text);
    free(text);
    /* analyse says what the library says. */
    ck_assert_int_eq(test_run("%s analyse --board \"1 0 3 3 3 1 10 4 4 4 4 10 "
                              "1 0\" --to-move bottom --player minimax:6 > %s",
                              kalah, out), 0);
    text = test_read_file(out, &size);
    kalah_result r;
    ck_assert_app(kalah_minimax(board_of("1 0 3 3 3 1 10 4 4 4 4 10 1 0",
                                        "bottom"), 6, &r));
    char expected[64];
    snprintf(expected, sizeof expected, "move %d score %d depth 6 ",
             r.move + 1, r.score);
    ck_assert_msg(strncmp(text, expected, strlen(expected)) == 0,
                  "said \"%s\", expected \"%s...\"", text, expected);
    free(text);
    /* A human at the keyboard trying pits 1 to 6 in turn: empty ones are
     * refused, the game goes on to its end. */
    ck_assert_int_eq(test_run("for i in $(seq 300); do printf '1\\n2\\n3"
                              "\\n4\\n5\\n6\\n'; done | %s --top human "
                              "--bottom alphabeta:2 --first top > %s 2>&1",
                              kalah, out), 0);
    text = test_read_file(out, &size);
    ck_assert_msg(strstr(text, "final: "), "%s", text);
    free(text);
    ck_assert_int_eq(test_run("printf 'x\\n' | %s --top human --bottom random "
                              "--first top > %s 2>&1", kalah, out), 1);
    text = test_read_file(out, &size);
    ck_assert_msg(strstr(text, "\"x\" is not a pit") &&
                  strstr(text, "input ended"), "%s", text);
    free(text);
    /* /dev/zero is not a human: the game ends at its first byte, where
     * the player was asked again for ever. */
    const char *argv[] = {kalah, "--top", "human", "--bottom", "random",
                          "--first", "top", NULL};
    test_exit e = test_spawn(argv, "/dev/zero", out, 10, 0);
    text = test_read_file(out, &size);
    ck_assert_msg(e.status == 1 && strstr(text, "human player (top): "
                                          "<stdin>:1: a NUL byte at byte "
                                          "offset 0"),
                  "exit status %d%s, said: %.300s", e.status,
                  e.timed_out ? " (killed after 10 s)" : "", text);
    free(text);
    /* A tournament: every game counted once for each player. */
    ck_assert_int_eq(test_run("%s tournament --top alphabeta:3 --bottom "
                              "random --games 6 --opening 4 --quiet > %s",
                              kalah, out), 0);
    text = test_read_file(out, &size);
    ck_assert_msg(strstr(text, "tournament: 6 games") &&
                  strstr(text, "alphabeta:3") && strstr(text, "random"),
                  "%s", text);
    int wins[2], losses[2], draws[2];
    const char *line = strstr(text, "\n  ");
    ck_assert_ptr_nonnull(line);
    ck_assert_int_eq(sscanf(line, " %*s %d wins %d losses %d draws", &wins[0],
                            &losses[0], &draws[0]), 3);
    line = strstr(line + 1, "\n  ");
    ck_assert_ptr_nonnull(line);
    ck_assert_int_eq(sscanf(line, " %*s %d wins %d losses %d draws", &wins[1],
                            &losses[1], &draws[1]), 3);
    ck_assert_int_eq(wins[0] + losses[0] + draws[0], 6);
    ck_assert_int_eq(wins[0], losses[1]);
    ck_assert_int_eq(draws[0], draws[1]);
    free(text);
    static const char *const bad[] = {
        "", "--top random", "--top random --bottom nobody",
        "--top random --bottom random --first left", "frobnicate",
        "analyse --board \"4 4 4\" --to-move top --player minimax:3",
        "analyse --board \"4 4 4 4 4 4 0 4 4 4 4 4 -4 8\" --to-move top "
        "--player minimax:3",
        "analyse --board \"0 0 0 0 0 0 24 4 4 4 4 4 4 0\" --to-move bottom "
        "--player minimax:3",
        "analyse --board \"4 4 4 4 4 4 0 4 4 4 4 4 4 0\" --to-move top "
        "--player random",
        "tournament --top random --bottom random --games 0",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(test_run("%s %s > /dev/null 2>&1", kalah, bad[i]) == 2,
                      "kalah %s did not exit with 2", bad[i]);
}
END_TEST

/* What the program writes to standard output is its result: lost there
 * ("> /dev/full"), it is a failure with a message, not exit status 0. */
START_TEST(the_program_fails_when_its_output_is_lost)
{
    static const char *const kalah_args[] = {
        "analyse --board '4 4 4 4 4 4 0 4 4 4 4 4 4 0' --to-move top --player minimax:2",
        "--help",
        NULL};
    test_assert_lost_output_fails("kalah", kalah_args);
}
END_TEST

Suite *kalah_suite(void)
{
    Suite *s = suite_create("kalah");
    TCase *tc = test_case("host");
    tcase_add_test(tc, alphabeta_matches_minimax_on_random_positions);
    tcase_add_test(tc, searches_find_moves_worked_out_by_hand);
    tcase_add_test(tc, timed_search_deepens_within_its_time);
    tcase_add_test(tc, games_between_any_players_end_legally);
    tcase_add_test(tc, boards_are_read_and_refused_with_reasons);
    tcase_add_test(tc, players_are_read_and_refused_with_reasons);
    tcase_add_test(tc, a_human_is_asked_again_until_the_move_is_legal);
    tcase_add_test(tc, a_human_line_too_long_is_refused_whole);
    tcase_add_test(tc, a_human_input_without_moves_ends_the_game);
    suite_add_tcase(s, tc);

    TCase *gpu = test_case("gpu player");
    tcase_add_test(gpu, gpu_player_matches_minimax_on_random_positions);
    tcase_add_test(gpu, timed_gpu_search_deepens_within_its_time);
    tcase_add_test(gpu, gpu_alphabeta_matches_minimax_on_random_positions);
    tcase_add_test(gpu, timed_gpu_alphabeta_deepens_within_its_time);
    tcase_add_test(gpu, gpu_player_plays_a_game);
    suite_add_tcase(s, gpu);

    TCase *programs = test_case("programs");
    tcase_add_test(programs, program_plays_analyses_and_refuses_bad_input);
    tcase_add_test(programs, the_program_fails_when_its_output_is_lost);
    tcase_set_tags(programs, "no-oclgrind");
    suite_add_tcase(s, programs);
    return s;
}
