/*
 * mwc64x.h: the MWC64X random number generator (D. B. Thomas), one source
 * for the host and the device (clframe/shared.h's idiom, docs/sharing.md),
 * so that the host's twin draws the device's numbers bit for bit; a
 * simulation may give each agent its own stream.
 *
 * A multiply-with-carry generator with base 2^32 and multiplier
 * MWC64X_A: the state is two 32-bit words (x, c); a step computes the
 * 64-bit t = A x + c and makes x = t mod 2^32, c = t / 2^32; a draw is
 * x ^ c, taken before the step.
 *
 * Jumping ahead: z = A x + c (below M = A 2^32 - 1) follows z' = A z mod
 * M, because z' 2^32 = (A x' + c') 2^32 = A 2^32 x' + t - x' = t (mod M).
 * So d steps multiply z by A^d mod M, a few thousand operations for any
 * d < 2^64, and a state is back from z as (x, c) = (z / A, z mod A). M is
 * prime, and so is (M - 1) / 2: the period is (M - 1) / 2, about 2^63.
 * Stream k of a seed starts MWC64X_STREAM_GAP (2^40) draws after stream
 * k - 1: more than a run of the simulation uses, and 2^23 streams fit.
 */
#ifndef KERNELS_LIB_MWC64X_H
#define KERNELS_LIB_MWC64X_H

#include "clframe/shared.h"

#define MWC64X_A 4294883355u
#define MWC64X_M 18446383549859758079ul      /* A 2^32 - 1 */
#define MWC64X_STREAM_GAP ((CLF_ULONG)1 << 40)

typedef struct mwc64x_state {
    CLF_UINT x;
    CLF_UINT c;
} mwc64x_state;

CLF_STATIC_ASSERT_SIZE(mwc64x_state, 8);

/* The draw of state s: what mwc64x_next returns before it steps. */
CLF_INLINE CLF_UINT mwc64x_draw(mwc64x_state s)
{
    return s.x ^ s.c;
}

/* The state one step after s. */
CLF_INLINE mwc64x_state mwc64x_step(mwc64x_state s)
{
    CLF_ULONG t = (CLF_ULONG)MWC64X_A * s.x + s.c;
    mwc64x_state next;
    next.x = (CLF_UINT)t;
    next.c = (CLF_UINT)(t >> 32);
    return next;
}

/* (a + b) mod M for a, b < M: the sum may pass 2^64, and then wraps. */
CLF_INLINE CLF_ULONG mwc64x_add_mod_(CLF_ULONG a, CLF_ULONG b)
{
    CLF_ULONG sum = a + b;
    return sum >= MWC64X_M || sum < a ? sum - MWC64X_M : sum;
}

/* (a b) mod M for a, b < M, by doubling and adding: 64 rounds, no 128-bit
 * arithmetic, which OpenCL C lacks. */
CLF_INLINE CLF_ULONG mwc64x_mul_mod_(CLF_ULONG a, CLF_ULONG b)
{
    CLF_ULONG product = 0;
    for (; a != 0; a >>= 1) {
        if (a & 1)
            product = mwc64x_add_mod_(product, b);
        b = mwc64x_add_mod_(b, b);
    }
    return product;
}

/* A^d mod M. */
CLF_INLINE CLF_ULONG mwc64x_pow_a_(CLF_ULONG d)
{
    CLF_ULONG power = 1, square = MWC64X_A;
    for (; d != 0; d >>= 1) {
        if (d & 1)
            power = mwc64x_mul_mod_(power, square);
        square = mwc64x_mul_mod_(square, square);
    }
    return power;
}

/* A^d mod M: what mwc64x_jump multiplies by to move d steps. */
CLF_INLINE CLF_ULONG mwc64x_power(CLF_ULONG d)
{
    return mwc64x_pow_a_(d);
}

/* The state d steps after s, given power = mwc64x_power(d): a program
 * that makes many jumps of one distance (a stream per agent) computes the
 * power once, and each jump is then one product mod M. */
CLF_INLINE mwc64x_state mwc64x_jump(mwc64x_state s, CLF_ULONG power)
{
    CLF_ULONG z = (CLF_ULONG)MWC64X_A * s.x + s.c;
    z = mwc64x_mul_mod_(z % MWC64X_M, power);
    mwc64x_state r;
    r.x = (CLF_UINT)(z / MWC64X_A);
    r.c = (CLF_UINT)(z % MWC64X_A);
    return r;
}

/* The state `distance` steps after s. */
CLF_INLINE mwc64x_state mwc64x_skip(mwc64x_state s, CLF_ULONG distance)
{
    return mwc64x_jump(s, mwc64x_pow_a_(distance));
}

/* The first state of stream `stream` of `seed`: the seed picks a start
 * (never the all-zero state, which would stay zero), and each stream
 * begins MWC64X_STREAM_GAP steps after the one before. */
CLF_INLINE mwc64x_state mwc64x_stream(CLF_ULONG seed, CLF_ULONG stream)
{
    mwc64x_state s;
    CLF_ULONG z = seed % (MWC64X_M - 1) + 1;
    s.x = (CLF_UINT)(z / MWC64X_A);
    s.c = (CLF_UINT)(z % MWC64X_A);
    return mwc64x_skip(s, stream * MWC64X_STREAM_GAP);
}

#endif /* KERNELS_LIB_MWC64X_H */
