/*
 * kalah_board.c: the Mankalah rules of apps/kalah/kernels/board.h
 * (apps/kalah/SPEC.md), one source read by the host's C compiler
 * and the device's OpenCL C compiler. On the host: the opening position,
 * sowing, the extra turn, the skipped opposing store when a move wraps,
 * full laps, captures and the cases that must not capture, legality, the
 * end of the game and the scores, each against a board worked out by hand;
 * and invariants (48 stones, the opposing store untouched, the extra turn
 * exactly when the count reaches the own store) over thousands of random
 * moves. On the device, through clframe's generated shims: every hand case
 * again, byte for byte, and random positions compared with the host. The
 * move lists the searches share (legal pits in order, and by promise).
 * And the struct's layout on both sides.
 */
#include "common/tests/testing.h"

#include "kalah/kernels/board.h"

#include <stdio.h>
#include <string.h>

/* The sizes per run (support.h). */
enum { MAX_CASES = 2000 };
static const struct {
    int random_positions;   /* device against host */
} run_sizes[] = {
    [TEST_FULL]    = {MAX_CASES},
    [TEST_CHECKED] = {200},
};

/* A board written out cell by cell: BOTTOM's pits 0..5, its store (6),
 * TOP's pits 7..12, its store (13); then who moves. The padding is 0, as
 * kalah_start leaves it, so boards compare byte for byte. */
#define BOARD(mover, ...) {{__VA_ARGS__}, (mover), 0}
#define BOTTOM KALAH_BOTTOM
#define TOP KALAH_TOP

/* ------------------------------------------------------------------------ */
/* The hand-computed cases                                                    */
/* ------------------------------------------------------------------------ */

/* A move: `before` with its mover playing `pit` must give `after`. */
typedef struct play_case {
    const char *why;
    kalah_board before;
    int pit;
    kalah_board after;
} play_case;

/* Sowing that ends in one of the mover's pits or the opponent's, no capture
 * (the last pit was not empty), the turn passes. */
static const play_case sowing_cases[] = {
    {"BOTTOM pit 0 at the start: 4 stones into cells 1..4",
     BOARD(BOTTOM, 4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0), 0,
     BOARD(TOP, 0, 5, 5, 5, 5, 4, 0, 4, 4, 4, 4, 4, 4, 0)},
    /* TOP's pit 0 is cell 7, not cell 0. */
    {"TOP pit 0 at the start: cell 7's 4 stones into cells 8..11",
     BOARD(TOP, 4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0), 0,
     BOARD(BOTTOM, 4, 4, 4, 4, 4, 4, 0, 0, 5, 5, 5, 5, 4, 0)},
    /* Past the own store into the opponent's pits: one stone in the store,
     * the rest beyond it, and the turn still passes. */
    {"BOTTOM pit 5 at the start: cells 6 (own store), 7, 8, 9",
     BOARD(BOTTOM, 4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0), 5,
     BOARD(TOP, 4, 4, 4, 4, 4, 0, 1, 5, 5, 5, 4, 4, 4, 0)},
    {"TOP pit 5 at the start: cells 13 (own store), 0, 1, 2",
     BOARD(TOP, 4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0), 5,
     BOARD(BOTTOM, 5, 5, 5, 4, 4, 4, 0, 4, 4, 4, 4, 4, 0, 1)},
};

/* The last stone in the mover's own store: the same player moves again. */
static const play_case extra_turn_cases[] = {
    {"BOTTOM pit 2 at the start: cells 3, 4, 5, 6 (own store)",
     BOARD(BOTTOM, 4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0), 2,
     BOARD(BOTTOM, 4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0)},
    {"TOP pit 2 at the start: cells 10, 11, 12, 13 (own store)",
     BOARD(TOP, 4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0), 2,
     BOARD(TOP, 4, 4, 4, 4, 4, 4, 0, 4, 4, 0, 5, 5, 5, 1)},
    /* 15 stones from cell 4: 13 make a lap (every cell but 13, the last of
     * them back in cell 4), then cells 5 and 6: 6 and 5 get two each. */
    {"BOTTOM pit 4 with 15 stones: a lap skipping 13, then into the store",
     BOARD(BOTTOM, 0, 1, 0, 2, 15, 1, 10, 3, 0, 4, 1, 2, 0, 9), 4,
     BOARD(BOTTOM, 1, 2, 1, 3, 1, 3, 12, 4, 1, 5, 2, 3, 1, 9)},
};

/* Wrapping from 13 to 0, skipping the opponent's store. */
static const play_case wrap_cases[] = {
    /* 10 stones from cell 5: cells 6..12 (7), not 13, then 0, 1, 2. Cell 2
     * held 3, so no capture. */
    {"BOTTOM pit 5 with 10 stones: 6..12, 13 skipped, 0..2",
     BOARD(BOTTOM, 1, 2, 3, 0, 0, 10, 5, 1, 1, 1, 1, 1, 1, 21), 5,
     BOARD(TOP, 2, 3, 4, 0, 0, 0, 6, 2, 2, 2, 2, 2, 2, 21)},
    /* 9 stones from cell 11: 12, 13, 0..5, not 6, then 7 (held 3). */
    {"TOP pit 4 with 9 stones: 12, 13, 0..5, 6 skipped, 7",
     BOARD(TOP, 2, 0, 1, 3, 0, 2, 14, 3, 1, 0, 2, 9, 0, 11), 4,
     BOARD(BOTTOM, 3, 1, 2, 4, 1, 3, 14, 4, 1, 0, 2, 0, 1, 12)},
};

/* 13 stones: one in each of the 13 cells the mover sows into, the last back
 * in the pit the move emptied, which then holds 1; its opposite pit has just
 * received a stone, so that is a capture. */
static const play_case full_lap_cases[] = {
    /* Sown: {3,1,1,2,4,1,5, 3,2,1,4,3,1,17}; cell 1 holds 1, opposite cell
     * 11 holds 3: 1 + 3 to cell 6 (5 -> 9). */
    {"BOTTOM pit 1 with 13 stones: a lap back into cell 1, captures cell 11",
     BOARD(BOTTOM, 2, 13, 0, 1, 3, 0, 4, 2, 1, 0, 3, 2, 0, 17), 1,
     BOARD(TOP, 3, 0, 1, 2, 4, 1, 9, 3, 2, 1, 4, 0, 1, 17)},
    /* Sown (6 skipped): {2,1,3,6,1,4,12, 1,3,2,1,1,5,6}; cell 10 holds 1,
     * opposite cell 2 holds 3: 1 + 3 to cell 13 (6 -> 10). */
    {"TOP pit 3 with 13 stones: a lap back into cell 10, captures cell 2",
     BOARD(TOP, 1, 0, 2, 5, 0, 3, 12, 0, 2, 1, 13, 0, 4, 5), 3,
     BOARD(BOTTOM, 2, 1, 0, 6, 1, 4, 12, 1, 3, 2, 0, 1, 5, 10)},
};

/* The last stone in an empty pit of the mover's own side, opposite pit not
 * empty: both go to the mover's store. */
static const play_case capture_cases[] = {
    /* Cells 2 and 3; cell 3 was empty, opposite cell 9 holds 7: 8 stones
     * to cell 6 (6 -> 14). */
    {"BOTTOM pit 1 ends in empty cell 3: takes it and cell 9's 7",
     BOARD(BOTTOM, 3, 2, 1, 0, 4, 2, 6, 5, 1, 7, 2, 0, 3, 12), 1,
     BOARD(TOP, 3, 0, 2, 0, 4, 2, 14, 5, 1, 0, 2, 0, 3, 12)},
    /* Cell 8 was empty, opposite cell 4 holds 3: 4 to cell 13 (17 -> 21). */
    {"TOP pit 0 ends in empty cell 8: takes it and cell 4's 3",
     BOARD(TOP, 2, 0, 5, 1, 3, 0, 10, 1, 0, 3, 0, 2, 4, 17), 0,
     BOARD(BOTTOM, 2, 0, 5, 1, 0, 0, 10, 0, 0, 3, 0, 2, 4, 21)},
};

/* An empty pit gets the last stone but nothing is captured. */
static const play_case no_capture_cases[] = {
    /* Cell 3 was empty but opposite cell 9 is empty too. */
    {"BOTTOM pit 1 ends in empty cell 3, opposite cell 9 empty: it stays",
     BOARD(BOTTOM, 1, 2, 0, 0, 2, 0, 8, 4, 2, 0, 5, 3, 1, 20), 1,
     BOARD(TOP, 1, 0, 1, 1, 2, 0, 8, 4, 2, 0, 5, 3, 1, 20)},
    {"TOP pit 0 ends in empty cell 8, opposite cell 4 empty: it stays",
     BOARD(TOP, 3, 0, 1, 2, 0, 4, 9, 1, 0, 2, 6, 0, 5, 15), 0,
     BOARD(BOTTOM, 3, 0, 1, 2, 0, 4, 9, 0, 1, 2, 6, 0, 5, 15)},
    /* Cell 8 is TOP's: landing there takes nothing, though cell 4 is full. */
    {"BOTTOM pit 5 ends in TOP's empty cell 8: no capture of cell 4",
     BOARD(BOTTOM, 2, 1, 3, 0, 4, 3, 7, 2, 0, 1, 3, 2, 5, 15), 5,
     BOARD(TOP, 2, 1, 3, 0, 4, 0, 8, 3, 1, 1, 3, 2, 5, 15)},
    /* Cells 13, 0, 1: cell 1 is BOTTOM's, so cell 11's 5 stay. */
    {"TOP pit 5 ends in BOTTOM's empty cell 1: no capture of cell 11",
     BOARD(TOP, 4, 0, 2, 1, 0, 3, 11, 1, 2, 0, 3, 5, 3, 13), 5,
     BOARD(BOTTOM, 5, 1, 2, 1, 0, 3, 11, 1, 2, 0, 3, 5, 0, 14)},
};

typedef struct play_table {
    const char *name;
    const play_case *cases;
    int n;
} play_table;

#define TABLE(t) {#t, t, (int)(sizeof t / sizeof *t)}
static const play_table play_tables[] = {
    TABLE(sowing_cases), TABLE(extra_turn_cases), TABLE(wrap_cases),
    TABLE(full_lap_cases), TABLE(capture_cases), TABLE(no_capture_cases),
};
enum { PLAY_TABLES = sizeof play_tables / sizeof *play_tables };

/* Positions for legality, the end of the game and the scores. */
static const kalah_board start_bottom =
    BOARD(BOTTOM, 4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0);
/* BOTTOM's cell 3 and TOP's cell 11 are empty: a pit number names a
 * different cell for each mover. */
static const kalah_board holes_bottom =
    BOARD(BOTTOM, 3, 2, 1, 0, 4, 2, 6, 5, 1, 7, 2, 0, 3, 12);
static const kalah_board holes_top =
    BOARD(TOP, 3, 2, 1, 0, 4, 2, 6, 5, 1, 7, 2, 0, 3, 12);
/* BOTTOM's pits are empty; TOP still has stones (and the move). */
static const kalah_board bottom_out =
    BOARD(TOP, 0, 0, 0, 0, 0, 0, 19, 1, 2, 0, 3, 0, 4, 19);
/* TOP's pits are empty; BOTTOM still has stones (and the move). */
static const kalah_board top_out =
    BOARD(BOTTOM, 2, 0, 1, 0, 0, 3, 25, 0, 0, 0, 0, 0, 0, 17);
/* BOTTOM's pits empty, totals 24 and 24. */
static const kalah_board draw =
    BOARD(TOP, 0, 0, 0, 0, 0, 0, 24, 3, 0, 0, 1, 0, 0, 20);
/* One stone a side: full stores do not end the game. */
static const kalah_board last_stones =
    BOARD(BOTTOM, 0, 0, 0, 0, 0, 1, 23, 1, 0, 0, 0, 0, 0, 23);
/* Mid-game, TOP ahead in the stores, BOTTOM in the pits. */
static const kalah_board mid_top =
    BOARD(BOTTOM, 3, 0, 5, 2, 1, 4, 6, 2, 6, 0, 1, 3, 2, 13);
/* Mid-game, BOTTOM ahead in both. */
static const kalah_board mid_bottom =
    BOARD(TOP, 4, 4, 2, 0, 3, 1, 20, 1, 0, 2, 0, 3, 0, 8);

typedef struct legal_case {
    const char *why;
    const kalah_board *board;
    int pit;
    int legal;
} legal_case;

static const legal_case legal_cases[] = {
    {"start, pit 0", &start_bottom, 0, 1},
    {"start, pit 5", &start_bottom, 5, 1},
    {"start, pit -1: out of range", &start_bottom, -1, 0},
    {"start, pit 6: out of range (6 would be the store)", &start_bottom, 6, 0},
    /* Out of range where the cell the number would name holds stones: the
     * range check, not an empty cell, must refuse them. */
    {"BOTTOM, pit 6: cell 6 (own store) holds 6", &holes_bottom, 6, 0},
    {"TOP, pit -1: cell 6 (BOTTOM's store) holds 6", &holes_top, -1, 0},
    {"TOP, pit 6: cell 13 (own store) holds 12", &holes_top, 6, 0},
    {"BOTTOM, pit 3: cell 3 is empty", &holes_bottom, 3, 0},
    {"BOTTOM, pit 4: cell 4 holds 4 (TOP's cell 11 is empty)", &holes_bottom,
     4, 1},
    {"TOP, pit 3: cell 10 holds 2 (BOTTOM's cell 3 is empty)", &holes_top, 3,
     1},
    {"TOP, pit 4: cell 11 is empty", &holes_top, 4, 0},
    {"game over (BOTTOM out), TOP's pit 1 holds 2", &bottom_out, 1, 0},
    {"game over (TOP out), BOTTOM's pit 0 holds 2", &top_out, 0, 0},
    {"one stone a side, BOTTOM's pit 5", &last_stones, 5, 1},
};
enum { LEGAL_CASES = sizeof legal_cases / sizeof *legal_cases };

/* Everything the scoring functions say about one position. */
typedef struct score_case {
    const char *why;
    const kalah_board *board;
    int over;
    int side[2];                /* kalah_side_stones: BOTTOM, TOP */
    int total[2];               /* kalah_total: BOTTOM, TOP */
    int heuristic;              /* 5 (c13 - c6) + sum(7..12) - sum(0..5) */
    int evaluate;
} score_case;

static const score_case score_cases[] = {
    {"start", &start_bottom, 0, {24, 24}, {24, 24}, 0, 0},
    /* 5 (13 - 6) + 14 - 15 = 34 */
    {"mid-game, TOP ahead in stores", &mid_top, 0, {15, 14}, {21, 27}, 34, 34},
    /* 5 (8 - 20) + 6 - 14 = -68 */
    {"mid-game, BOTTOM ahead", &mid_bottom, 0, {14, 6}, {34, 14}, -68, -68},
    /* One stone each side: 5 (23 - 23) + 1 - 1 = 0, not over. */
    {"one stone a side", &last_stones, 0, {1, 1}, {24, 24}, 0, 0},
    /* Over: 1000 (29 - 19); the heuristic would be 5 (19 - 19) + 10. */
    {"BOTTOM's pits empty, TOP wins by 10", &bottom_out, 1, {0, 10}, {19, 29},
     10, 10000},
    /* Over: 1000 (17 - 31); the heuristic would be 5 (17 - 25) - 6. */
    {"TOP's pits empty, BOTTOM wins by 14", &top_out, 1, {6, 0}, {31, 17},
     -46, -14000},
    /* Over, 24 each: 0; the heuristic would be 5 (20 - 24) + 4. */
    {"draw", &draw, 1, {0, 4}, {24, 24}, -16, 0},
};
enum { SCORE_CASES = sizeof score_cases / sizeof *score_cases };

/* ------------------------------------------------------------------------ */
/* Helpers                                                                    */
/* ------------------------------------------------------------------------ */

/* "{c0 .. c5 | s6 | c7 .. c12 | s13} BOTTOM/TOP to move" in one of four
 * static buffers, used in turn. */
static const char *show(const kalah_board *b)
{
    static char text[4][128];
    static int next;
    char *t = text[next++ % 4];
    int n = snprintf(t, sizeof text[0], "{");
    for (int c = 0; c < KALAH_CELLS; c++)
        n += snprintf(t + n, sizeof text[0] - (size_t)n, "%d%s", b->cells[c],
                      c == 5 || c == 6 || c == 12 ? " | "
                      : c == 13                   ? "}" : " ");
    snprintf(t + n, sizeof text[0] - (size_t)n, " %s to move, pad %d",
             b->to_move == TOP ? "TOP" : b->to_move == BOTTOM ? "BOTTOM" : "?",
             b->pad_);
    return t;
}

static void assert_same_board(const kalah_board *got, const kalah_board *want,
                              const char *what, const char *why)
{
    ck_assert_msg(memcmp(got, want, sizeof *got) == 0,
                  "%s: %s:\n got  %s\n want %s", what, why, show(got),
                  show(want));
}

static int stones(const kalah_board *b)
{
    int sum = 0;
    for (int c = 0; c < KALAH_CELLS; c++)
        sum += b->cells[c];
    return sum;
}

/* A random legal pit for the mover: the first legal one from a random
 * pit on. A running game always has one (the mover's pits are not all
 * empty), so finding none is a failure, not an endless search. */
static int random_legal_pit(kalah_board b, uint32_t *seed)
{
    int from = (int)(test_random(seed) % KALAH_PITS);
    for (int i = 0; i < KALAH_PITS; i++)
        if (kalah_is_legal(b, (from + i) % KALAH_PITS))
            return (from + i) % KALAH_PITS;
    ck_abort_msg("no legal move in %s, and the game is not over", show(&b));
    return -1;
}

/* n positions from random games (each from the start, a random side to
 * move first, played to the end), with a random legal pit in pits, or
 * -1 at a finished game. */
static void random_positions(kalah_board *boards, int *pits, int n,
                             uint32_t seed)
{
    kalah_board b = kalah_start((CLF_INT)(test_random(&seed) & 1));
    for (int i = 0; i < n; i++) {
        boards[i] = b;
        if (kalah_game_over(b)) {
            pits[i] = -1;
            b = kalah_start((CLF_INT)(test_random(&seed) & 1));
        } else {
            pits[i] = random_legal_pit(b, &seed);
            b = kalah_play(b, pits[i]);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Host                                                                       */
/* ------------------------------------------------------------------------ */

START_TEST(start_has_four_stones_per_pit_empty_stores_either_side_first)
{
    for (int first = BOTTOM; first <= TOP; first++) {
        kalah_board b = kalah_start(first);
        kalah_board want = BOARD(first, 4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0);
        assert_same_board(&b, &want, "kalah_start", first ? "TOP" : "BOTTOM");
        ck_assert_int_eq(stones(&b), 48);
        ck_assert_int_eq(kalah_side_stones(b, BOTTOM), 24);
        ck_assert_int_eq(kalah_side_stones(b, TOP), 24);
        ck_assert_int_eq(kalah_game_over(b), 0);
    }
}
END_TEST

START_TEST(pit_numbers_count_on_the_movers_side)
{
    for (int p = 0; p < KALAH_PITS; p++) {
        ck_assert_int_eq(kalah_pit_cell(BOTTOM, p), p);
        ck_assert_int_eq(kalah_pit_cell(TOP, p), 7 + p);
    }
    ck_assert_int_eq(kalah_store_cell(BOTTOM), 6);
    ck_assert_int_eq(kalah_store_cell(TOP), 13);
}
END_TEST

static void check_play_table(const play_table *t)
{
    ck_assert_int_gt(t->n, 0);
    for (int i = 0; i < t->n; i++) {
        const play_case *c = &t->cases[i];
        /* The hand-made boards hold the game's 48 stones, and the move is
         * one the rules allow: a typo in a table shows here. */
        ck_assert_msg(stones(&c->before) == 48 && stones(&c->after) == 48,
                      "%s: %s: not 48 stones", t->name, c->why);
        ck_assert_msg(kalah_is_legal(c->before, c->pit), "%s: %s: illegal",
                      t->name, c->why);
        kalah_board got = kalah_play(c->before, c->pit);
        assert_same_board(&got, &c->after, t->name, c->why);
    }
}

START_TEST(sowing_one_stone_a_cell_then_the_turn_passes)
{
    check_play_table(&play_tables[0]);
}
END_TEST

START_TEST(last_stone_in_own_store_keeps_the_move)
{
    check_play_table(&play_tables[1]);
}
END_TEST

START_TEST(wrapping_from_13_to_0_skips_the_opponents_store)
{
    check_play_table(&play_tables[2]);
}
END_TEST

START_TEST(thirteen_stones_lap_back_into_the_emptied_pit_and_capture)
{
    check_play_table(&play_tables[3]);
}
END_TEST

START_TEST(last_stone_in_own_empty_pit_captures_the_opposite_pit)
{
    check_play_table(&play_tables[4]);
}
END_TEST

START_TEST(no_capture_opposite_empty_or_on_the_opponents_side)
{
    check_play_table(&play_tables[5]);
}
END_TEST

START_TEST(legal_moves_are_non_empty_own_pits_0_to_5_of_a_running_game)
{
    for (int i = 0; i < LEGAL_CASES; i++) {
        const legal_case *c = &legal_cases[i];
        ck_assert_msg(kalah_is_legal(*c->board, c->pit) == c->legal,
                      "%s: kalah_is_legal gave %d", c->why,
                      kalah_is_legal(*c->board, c->pit));
    }
}
END_TEST

/* A packed move list (board.h) as pits; their count. */
static int unpack_moves(unsigned list, int pits[KALAH_PITS + 1])
{
    int n = 0;
    for (; list != KALAH_NO_MOVE && n <= KALAH_PITS; list >>= 3)
        pits[n++] = (int)(list & 7);
    return n;
}

/* What kalah_order_moves sorts by: the mover's view one ply on, 2 more for
 * a kept turn (written out again here). */
static int promise(kalah_board b, int pit)
{
    kalah_board c = kalah_play(b, pit);
    int v = kalah_evaluate(c);
    return (b.to_move == TOP ? v : -v) + (c.to_move == b.to_move ? 2 : 0);
}

/* kalah_legal_moves lists the legal pits in order; kalah_order_moves the
 * same pits, most promising first, ties in pit order; on the opening and
 * on random unfinished positions. */
START_TEST(move_lists_hold_the_legal_pits_in_order_and_by_promise)
{
    int pits[KALAH_PITS + 1];
    /* The opening: BOTTOM's pit 2 ends in its store (an extra turn). */
    kalah_board b = kalah_start(BOTTOM);
    ck_assert_int_eq(unpack_moves(kalah_legal_moves(b), pits), 6);
    for (int p = 0; p < 6; p++)
        ck_assert_int_eq(pits[p], p);
    ck_assert_int_eq(unpack_moves(kalah_order_moves(b), pits), 6);
    ck_assert_int_eq(pits[0], 2);
    enum { CASES = 3000 };
    static kalah_board boards[CASES];
    static int played[CASES];
    random_positions(boards, played, CASES, 5);
    for (int i = 0; i < CASES; i++) {
        b = boards[i];
        if (kalah_game_over(b))
            continue;               /* the searches never ask there */
        int n = unpack_moves(kalah_legal_moves(b), pits), k = 0;
        for (int p = 0; p < KALAH_PITS; p++)
            if (kalah_is_legal(b, p)) {
                ck_assert_msg(k < n && pits[k] == p, "legal moves of %s",
                              show(&b));
                k++;
            }
        ck_assert_int_eq(k, n);
        int order[KALAH_PITS + 1], m = unpack_moves(kalah_order_moves(b),
                                                    order);
        ck_assert_int_eq(m, n);
        int seen = 0;
        for (int j = 0; j < m; j++) {
            ck_assert_msg(kalah_is_legal(b, order[j]) &&
                          !(seen & 1 << order[j]), "order of %s", show(&b));
            seen |= 1 << order[j];
            if (j > 0) {
                int a = promise(b, order[j - 1]), c = promise(b, order[j]);
                ck_assert_msg(a > c || (a == c && order[j - 1] < order[j]),
                              "order of %s: pit %d (%d) before pit %d (%d)",
                              show(&b), order[j - 1], a, order[j], c);
            }
        }
    }
}
END_TEST

START_TEST(scores_side_stones_totals_heuristic_and_decisive_value)
{
    for (int i = 0; i < SCORE_CASES; i++) {
        const score_case *c = &score_cases[i];
        kalah_board b = *c->board;
        ck_assert_msg(stones(&b) == 48, "%s: not 48 stones", c->why);
        ck_assert_msg(kalah_game_over(b) == c->over, "%s: game_over %d",
                      c->why, kalah_game_over(b));
        for (int side = BOTTOM; side <= TOP; side++) {
            ck_assert_msg(kalah_side_stones(b, side) == c->side[side],
                          "%s: side_stones(%d) = %d, want %d", c->why, side,
                          kalah_side_stones(b, side), c->side[side]);
            ck_assert_msg(kalah_total(b, side) == c->total[side],
                          "%s: total(%d) = %d, want %d", c->why, side,
                          kalah_total(b, side), c->total[side]);
        }
        ck_assert_msg(kalah_heuristic(b) == c->heuristic,
                      "%s: heuristic %d, want %d", c->why, kalah_heuristic(b),
                      c->heuristic);
        ck_assert_msg(kalah_evaluate(b) == c->evaluate,
                      "%s: evaluate %d, want %d", c->why, kalah_evaluate(b),
                      c->evaluate);
    }
}
END_TEST

/* Over thousands of random moves: 48 stones always; the opponent's store
 * never gains (it is skipped) and the mover's gains one stone a pass, plus
 * 2 or more for a capture; the mover keeps the move exactly when the count
 * reaches the own store (6 - pit cells away, then every 13); fewer than 13
 * stones never come back to their pit; legal moves are exactly the
 * non-empty pits of a running game. */
START_TEST(random_games_keep_48_stones_and_the_turn_rule)
{
    uint32_t seed = 2024;
    int moves = 0, games = 0, extra = 0, captures = 0;
    while (moves < 5000) {
        kalah_board b = kalah_start((CLF_INT)(test_random(&seed) & 1));
        games++;
        while (!kalah_game_over(b)) {
            int side = b.to_move;
            for (int p = 0; p < KALAH_PITS; p++)
                ck_assert_int_eq(kalah_is_legal(b, p),
                                 b.cells[kalah_pit_cell(side, p)] > 0);
            int p = random_legal_pit(b, &seed);
            int sown = b.cells[kalah_pit_cell(side, p)];
            kalah_board a = kalah_play(b, p);
            moves++;
            ck_assert_msg(stones(&a) == 48, "%s pit %d gave %s", show(&b), p,
                          show(&a));
            ck_assert_msg(a.pad_ == 0 && (a.to_move == BOTTOM ||
                                          a.to_move == TOP),
                          "%s pit %d gave %s", show(&b), p, show(&a));
            ck_assert_msg(a.cells[kalah_store_cell(1 - side)] ==
                          b.cells[kalah_store_cell(1 - side)],
                          "opponent's store changed: %s pit %d gave %s",
                          show(&b), p, show(&a));
            /* Sown stones reach the store at 6 - p, 19 - p, ...; a
             * capture adds 2 or more on top. */
            int passes = (sown + 7 + p) / 13;
            int own_gain = a.cells[kalah_store_cell(side)] -
                           b.cells[kalah_store_cell(side)];
            ck_assert_msg(own_gain == passes || own_gain >= passes + 2,
                          "store gained %d, %d passes: %s pit %d gave %s",
                          own_gain, passes, show(&b), p, show(&a));
            int again = sown % 13 == 6 - p;
            ck_assert_msg((a.to_move == side) == again,
                          "%d stones from pit %d: to_move %d: %s gave %s",
                          sown, p, a.to_move, show(&b), show(&a));
            if (sown < 13)
                ck_assert_msg(a.cells[kalah_pit_cell(side, p)] == 0,
                              "%s pit %d gave %s", show(&b), p, show(&a));
            extra += again;
            captures += own_gain > passes;
            b = a;
        }
        ck_assert_msg(kalah_side_stones(b, BOTTOM) == 0 ||
                      kalah_side_stones(b, TOP) == 0, "%s", show(&b));
    }
    /* The random games did reach the rules under test. */
    ck_assert_int_gt(games, 50);
    ck_assert_int_gt(extra, 100);
    ck_assert_int_gt(captures, 100);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Device                                                                     */
/* ------------------------------------------------------------------------ */

/* The shims of board.h's functions, on one context. */
typedef struct shims {
    clctx *ctx;
    clfunction *start, *pit_cell, *store_cell, *side_stones, *game_over,
        *is_legal, *play, *total, *heuristic, *evaluate, *legal_moves,
        *order_moves;
} shims;

/* The shim of one function of board.h, its prototype read from the file:
 * board.h writes them with shared.h's macros (CLF_INLINE CLF_INT ...),
 * which clframe reads as the device compiler does; `prototype` is what it
 * must have read. */
static clfunction *shim(clctx *ctx, const char *name, const char *prototype)
{
    clfunction *f = clfunction_file(ctx, "apps/kalah/kernels/board.h", name, NULL);
    ck_assert_msg(f != NULL, "clfunction_file(%s): %s", name,
                  app_last_error());
    ck_assert_ptr_nonnull(clfunction_prototype(f));
    ck_assert_str_eq(clfunction_prototype(f), prototype);
    return f;
}

static shims shims_new(void)
{
    shims s;
    s.ctx = test_run_context();
    s.start = shim(s.ctx, "kalah_start", "kalah_board kalah_start(int first)");
    s.pit_cell = shim(s.ctx, "kalah_pit_cell",
                      "int kalah_pit_cell(int side, int pit)");
    s.store_cell = shim(s.ctx, "kalah_store_cell",
                        "int kalah_store_cell(int side)");
    s.side_stones = shim(s.ctx, "kalah_side_stones",
                         "int kalah_side_stones(kalah_board b, int side)");
    s.game_over = shim(s.ctx, "kalah_game_over",
                       "int kalah_game_over(kalah_board b)");
    s.is_legal = shim(s.ctx, "kalah_is_legal",
                      "int kalah_is_legal(kalah_board b, int pit)");
    s.play = shim(s.ctx, "kalah_play",
                  "kalah_board kalah_play(kalah_board b, int pit)");
    s.total = shim(s.ctx, "kalah_total",
                   "int kalah_total(kalah_board b, int side)");
    s.heuristic = shim(s.ctx, "kalah_heuristic",
                       "int kalah_heuristic(kalah_board b)");
    s.evaluate = shim(s.ctx, "kalah_evaluate",
                      "int kalah_evaluate(kalah_board b)");
    s.legal_moves = shim(s.ctx, "kalah_legal_moves",
                         "uint kalah_legal_moves(kalah_board b)");
    s.order_moves = shim(s.ctx, "kalah_order_moves",
                         "uint kalah_order_moves(kalah_board b)");
    return s;
}

static void shims_free(shims *s)
{
    clfunction_free(s->start);
    clfunction_free(s->pit_cell);
    clfunction_free(s->store_cell);
    clfunction_free(s->side_stones);
    clfunction_free(s->game_over);
    clfunction_free(s->is_legal);
    clfunction_free(s->play);
    clfunction_free(s->total);
    clfunction_free(s->heuristic);
    clfunction_free(s->evaluate);
    clfunction_free(s->legal_moves);
    clfunction_free(s->order_moves);
    clctx_free(s->ctx);
}

/* The device's kalah_play(b, pit). The result starts as garbage, so a
 * call that writes nothing cannot pass for a right one. */
static kalah_board device_play(clfunction *f, kalah_board b, int pit)
{
    kalah_board got;
    memset(&got, 0xa5, sizeof got);
    ck_assert_app(clfunction_call(f, &got, CLARG_VALUE("kalah_board", &b),
                                 CLARG((cl_int)pit)));
    return got;
}

/* The device's int f(kalah_board b), or f(b, arg) when with_arg. */
static int device_int(clfunction *f, kalah_board b, int with_arg, int arg)
{
    cl_int got = -12345;
    if (with_arg)
        ck_assert_app(clfunction_call(f, &got, CLARG_VALUE("kalah_board", &b),
                                     CLARG((cl_int)arg)));
    else
        ck_assert_app(clfunction_call(f, &got, CLARG_VALUE("kalah_board", &b)));
    return got;
}

/* The device's uint f(kalah_board b): the move lists. */
static unsigned device_moves(clfunction *f, kalah_board b)
{
    cl_uint got = 0xdeadbeef;
    ck_assert_app(clfunction_call(f, &got, CLARG_VALUE("kalah_board", &b)));
    return got;
}

/* The device's f(a, b) for the two int-only functions. */
static int device_ints(clfunction *f, int nargs, int a, int b)
{
    cl_int got = -12345;
    if (nargs == 1)
        ck_assert_app(clfunction_call(f, &got, CLARG((cl_int)a)));
    else
        ck_assert_app(clfunction_call(f, &got, CLARG((cl_int)a),
                                     CLARG((cl_int)b)));
    return got;
}

START_TEST(board_layout_is_the_same_on_host_and_device)
{
    clctx *ctx = test_run_context();
    ck_assert_app(CLFRAME_CHECK_LAYOUT(ctx, "apps/kalah/kernels/board.h",
                                      kalah_board, cells, cells[13], to_move,
                                      pad_));
    clctx_free(ctx);
}
END_TEST

START_TEST(device_start_and_cells_match_the_host)
{
    shims s = shims_new();
    for (int first = BOTTOM; first <= TOP; first++) {
        kalah_board got;
        memset(&got, 0xa5, sizeof got);
        ck_assert_app(clfunction_call(s.start, &got, CLARG((cl_int)first)));
        kalah_board want = BOARD(first, 4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0);
        assert_same_board(&got, &want, "device kalah_start",
                          first ? "TOP" : "BOTTOM");
        ck_assert_int_eq(device_ints(s.store_cell, 1, first, 0),
                         first ? 13 : 6);
        for (int p = 0; p < KALAH_PITS; p++)
            ck_assert_int_eq(device_ints(s.pit_cell, 2, first, p),
                             first ? 7 + p : p);
    }
    shims_free(&s);
}
END_TEST

START_TEST(device_plays_every_hand_computed_move_as_the_host)
{
    shims s = shims_new();
    int n = 0;
    for (int t = 0; t < PLAY_TABLES; t++)
        for (int i = 0; i < play_tables[t].n; i++, n++) {
            const play_case *c = &play_tables[t].cases[i];
            kalah_board got = device_play(s.play, c->before, c->pit);
            kalah_board host = kalah_play(c->before, c->pit);
            assert_same_board(&got, &c->after, play_tables[t].name, c->why);
            assert_same_board(&got, &host, "device vs host", c->why);
        }
    ck_assert_int_eq(n, 17);
    shims_free(&s);
}
END_TEST

START_TEST(device_legality_end_and_scores_of_hand_boards_match)
{
    shims s = shims_new();
    for (int i = 0; i < LEGAL_CASES; i++) {
        const legal_case *c = &legal_cases[i];
        int got = device_int(s.is_legal, *c->board, 1, c->pit);
        ck_assert_msg(got == c->legal, "device: %s: kalah_is_legal gave %d",
                      c->why, got);
    }
    for (int i = 0; i < SCORE_CASES; i++) {
        const score_case *c = &score_cases[i];
        kalah_board b = *c->board;
        ck_assert_msg(device_int(s.game_over, b, 0, 0) == c->over,
                      "device: %s: game_over", c->why);
        for (int side = BOTTOM; side <= TOP; side++) {
            ck_assert_msg(device_int(s.side_stones, b, 1, side) ==
                          c->side[side], "device: %s: side_stones(%d)",
                          c->why, side);
            ck_assert_msg(device_int(s.total, b, 1, side) == c->total[side],
                          "device: %s: total(%d)", c->why, side);
        }
        int h = device_int(s.heuristic, b, 0, 0);
        ck_assert_msg(h == c->heuristic, "device: %s: heuristic %d, want %d",
                      c->why, h, c->heuristic);
        int e = device_int(s.evaluate, b, 0, 0);
        ck_assert_msg(e == c->evaluate, "device: %s: evaluate %d, want %d",
                      c->why, e, c->evaluate);
    }
    shims_free(&s);
}
END_TEST

/* Random positions of random games (the end of each game among them):
 * every function's device result equals the host's. is_legal also gets
 * pits -1..6 at random, most of them legal, some not. */
START_TEST(device_agrees_with_host_on_random_positions)
{
    static kalah_board boards[MAX_CASES];
    static int pits[MAX_CASES];
    const int n = RUN_SIZE(random_positions);
    uint32_t seed = 91;             /* for the pits given to is_legal */
    random_positions(boards, pits, n, 77);
    shims s = shims_new();
    int over = 0, illegal = 0;
    for (int i = 0; i < n; i++) {
        kalah_board b = boards[i];
        int host_over = kalah_game_over(b);
        over += host_over;
        ck_assert_msg(device_int(s.game_over, b, 0, 0) == host_over,
                      "game_over of %s", show(&b));
        ck_assert_msg(device_int(s.evaluate, b, 0, 0) == kalah_evaluate(b),
                      "evaluate of %s: device %d, host %d", show(&b),
                      device_int(s.evaluate, b, 0, 0), kalah_evaluate(b));
        ck_assert_msg(device_moves(s.legal_moves, b) == kalah_legal_moves(b),
                      "legal_moves of %s", show(&b));
        ck_assert_msg(device_moves(s.order_moves, b) == kalah_order_moves(b),
                      "order_moves of %s", show(&b));
        int q = (int)(test_random(&seed) % 8) - 1;
        illegal += !kalah_is_legal(b, q);
        ck_assert_msg(device_int(s.is_legal, b, 1, q) == kalah_is_legal(b, q),
                      "is_legal(%s, %d)", show(&b), q);
        if (pits[i] >= 0) {
            kalah_board got = device_play(s.play, b, pits[i]);
            kalah_board host = kalah_play(b, pits[i]);
            char why[160];
            snprintf(why, sizeof why, "%s pit %d", show(&b), pits[i]);
            assert_same_board(&got, &host, "device vs host", why);
        }
    }
    /* The sample held finished games and illegal moves, not only the
     * common case. */
    ck_assert_int_gt(over, 0);
    ck_assert_int_gt(illegal, n / 20);
    shims_free(&s);
}
END_TEST

Suite *kalah_board_suite(void)
{
    Suite *s = suite_create("kalah_board");
    TCase *host = test_case("host");
    tcase_add_test(host, start_has_four_stones_per_pit_empty_stores_either_side_first);
    tcase_add_test(host, pit_numbers_count_on_the_movers_side);
    tcase_add_test(host, sowing_one_stone_a_cell_then_the_turn_passes);
    tcase_add_test(host, last_stone_in_own_store_keeps_the_move);
    tcase_add_test(host, wrapping_from_13_to_0_skips_the_opponents_store);
    tcase_add_test(host, thirteen_stones_lap_back_into_the_emptied_pit_and_capture);
    tcase_add_test(host, last_stone_in_own_empty_pit_captures_the_opposite_pit);
    tcase_add_test(host, no_capture_opposite_empty_or_on_the_opponents_side);
    tcase_add_test(host, legal_moves_are_non_empty_own_pits_0_to_5_of_a_running_game);
    tcase_add_test(host, scores_side_stones_totals_heuristic_and_decisive_value);
    tcase_add_test(host, move_lists_hold_the_legal_pits_in_order_and_by_promise);
    tcase_add_test(host, random_games_keep_48_stones_and_the_turn_rule);
    suite_add_tcase(s, host);
    TCase *device = test_case("device");
    tcase_add_test(device, board_layout_is_the_same_on_host_and_device);
    tcase_add_test(device, device_start_and_cells_match_the_host);
    tcase_add_test(device, device_plays_every_hand_computed_move_as_the_host);
    tcase_add_test(device, device_legality_end_and_scores_of_hand_boards_match);
    tcase_add_test(device, device_agrees_with_host_on_random_positions);
    suite_add_tcase(s, device);
    return s;
}
