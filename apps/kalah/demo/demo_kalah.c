/*
 * demo_kalah.c: Mankalah (apps/kalah): the GPU minimax player's search of
 * the opening to depth 8 (4 plies on the host, 4 on the device), checked
 * against the sequential minimax's move, score and node count, and timed
 * against it. Its kernel column is empty: a search is the host's walks
 * around several kernel launches, and the call is what a move costs. Depth
 * 9 in the benchmark table; the minimax has no OpenMP version.
 */
#include "demo/demo.h"

#include "kalah/kalah.h"

#include <stdio.h>

/* The demo's depth, and the benchmark table's. */
static const int KALAH_DEPTH[2] = {8, 9};

int demo_kalah(demo_result *r, demo_scale scale)
{
    int rc, depth = KALAH_DEPTH[scale];
    kalah_board b = kalah_start(KALAH_BOTTOM);
    kalah_result want, got = {-1, 0, 0, 0};
    snprintf(r->version, sizeof r->version, "gpu");
    snprintf(r->size, sizeof r->size, "opening, depth %d", depth);
    r->kernel_ms = -1;
    double t0 = demo_now_ms();
    rc = kalah_minimax(b, depth, &want);
    r->ref_ms = demo_now_ms() - t0;
    if (rc)
        return demo_fail(r, rc, "kalah: minimax");
    kalah_gpu *gpu = kalah_gpu_new(NULL, &rc);
    if (!gpu)
        return demo_fail(r, rc, "kalah: the GPU player");
    for (int call = 0; call < DEMO_CALLS && rc == 0; call++) {
        t0 = demo_now_ms();
        rc = kalah_gpu_search(gpu, b, depth, &got);
        r->call_ms = demo_now_ms() - t0;
    }
    kalah_gpu_free(gpu);
    if (rc)
        return demo_fail(r, rc, "kalah: GPU search");
    r->ok = got.move == want.move && got.score == want.score &&
            got.nodes == want.nodes;
    snprintf(r->verdict, sizeof r->verdict, r->ok ? "ok" :
             "MISMATCH: pit %d score %d, minimax pit %d score %d",
             got.move + 1, got.score, want.move + 1, want.score);
    snprintf(r->note, sizeof r->note, "kalah: the GPU player and the minimax "
             "both play pit %d (score %d) after %llu boards",
             want.move + 1, want.score, (unsigned long long)want.nodes);
    return 0;
}
