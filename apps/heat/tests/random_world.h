/*
 * random_world.h: the random worlds the heat world's tests step (header
 * only: apps/heat/tests and apps/mpi/tests both use it).
 */
#ifndef HEAT_TESTS_RANDOM_WORLD_H
#define HEAT_TESTS_RANDOM_WORLD_H

#include "common/tests/testing.h"
#include "heat/world.h"

/* A w x h world with a border of insulators and fixed cells, and inside
 * about 15 % insulators and 5 % fixed cells; random temperatures, some of
 * them exactly 0 and 1, subnormal (a device that flushes them to zero
 * would differ), or just below 1. */
static inline void make_random_world(heat_world *world, uint32_t w,
                                     uint32_t h, uint32_t seed)
{
    ck_assert_app(heat_world_alloc(world, w, h, 0.1f + (seed % 7) * 0.05f));
    uint32_t s = seed;
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            size_t i = (size_t)y * w + x;
            uint32_t r = test_random(&s) % 100;
            int border = x == 0 || y == 0 || x == w - 1 || y == h - 1;
            if (border)
                world->properties[i] = r < 70 ? HEAT_CELL_INSULATOR
                                              : HEAT_CELL_FIXED;
            else
                world->properties[i] = r < 15 ? HEAT_CELL_INSULATOR
                                     : r < 20 ? HEAT_CELL_FIXED
                                              : HEAT_CELL_NORMAL;
            uint32_t t = test_random(&s) % 12;
            world->state[i] = t == 0 ? 0.0f : t == 1 ? 1.0f
                            : t == 2 ? 1e-40f       /* subnormal */
                            : t == 3 ? 0.99999994f  /* the float below 1 */
                            : (float)(test_random(&s) % 1000001) / 1e6f;
        }
    }
    ck_assert_app(heat_world_validate(world));
}

#endif /* HEAT_TESTS_RANDOM_WORLD_H */
