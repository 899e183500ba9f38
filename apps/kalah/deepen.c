/*
 * deepen.c: iterative deepening for a time per move, the one loop behind
 * the three timed players (kalah_alphabeta_timed, kalah_gpu_search_timed,
 * kalah_gpu_alphabeta_timed), and the one time check their searches make.
 */
#include "kalah.h"
#include "common/clock.h"
#include "common/error.h"

int kalah_past(double deadline)
{
    return deadline > 0 && clock_seconds() > deadline;
}


int kalah_deepen(const char *what, kalah_board b, double seconds,
                 int max_depth, int can_stop, kalah_depth_search search,
                 void *state, kalah_result *r)
{
    if (!r || max_depth < 0 || max_depth > KALAH_MAX_DEPTH)
        return app_fail(APP_ERR_USAGE, "%s: depth %d (0 to %d), result %p",
                        what, max_depth, KALAH_MAX_DEPTH, (void *)r);
    if (!(seconds > 0 && seconds <= KALAH_MAX_SECONDS))
        return app_fail(APP_ERR_USAGE, "%s: %g seconds (more than 0, at most "
                        "%d)", what, seconds, KALAH_MAX_SECONDS);
    if (max_depth == 0 || kalah_game_over(b))
        return search(state, b, max_depth, 0, r);
    double start = clock_seconds(), deadline = start + seconds;
    /* A depth takes `growth` times the one before: 6 until measured, and
     * measured only where it is more than 3 (a cheap depth says little). */
    double last = 0, growth = 6;
    for (int depth = 1; depth <= max_depth; depth++) {
        double t0 = clock_seconds();
        kalah_result attempt = {-1, 0, depth, 0};
        int rc = search(state, b, depth, can_stop && depth > 1 ? deadline : 0,
                        &attempt);
        if (rc == KALAH_STOPPED)
            break;
        if (rc)
            return rc;
        *r = attempt;
        double took = clock_seconds() - t0;
        if (last > 0 && took > 3 * last)
            growth = took / last;
        last = took;
        double next_ends = clock_seconds() - start + last * growth;
        if (can_stop ? kalah_past(deadline) : next_ends > seconds)
            break;
    }
    return 0;
}
