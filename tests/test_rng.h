/* A small deterministic random generator for tests (xorshift64*): the same numbers on every
 * machine and run, so a failing case can be replayed. */
#ifndef AXB_TEST_RNG_H
#define AXB_TEST_RNG_H

#include <stdint.h>

typedef struct rng {
    uint64_t s; /* any non-zero seed */
} rng;

/* uniform in [0, 1) */
static inline double urand(rng *g)
{
    g->s ^= g->s >> 12;
    g->s ^= g->s << 25;
    g->s ^= g->s >> 27;
    return (double)((g->s * 2685821657736338717ULL) >> 11) * 0x1.0p-53;
}

/* uniform in [a, b) */
static inline double urange(rng *g, double a, double b)
{
    return a + (b - a) * urand(g);
}

#endif
