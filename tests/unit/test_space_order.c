/* The 3-D Hilbert order: on a 2^k grid the index is a bijection onto 0..8^k−1 and consecutive
 * indices are face neighbours (the defining property of the curve), checked exhaustively for
 * k = 1..4; the order of scattered points is a permutation, deterministic, and keeps neighbours
 * close (mean step between consecutive points of a random cloud far below a random order's). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "numerics/space_order.h"

static void grid_curve(check_ctx *T, int k)
{
    const uint32_t n = 1u << k, shift = 21 - (uint32_t)k;
    const uint64_t cells = (uint64_t)n * n * n;
    int32_t(*at)[3] = malloc(cells * sizeof *at);
    char *seen = calloc(cells, 1);
    bool ok = true;
    for (uint32_t x = 0; x < n; x++)
        for (uint32_t y = 0; y < n; y++)
            for (uint32_t z = 0; z < n; z++) {
                /* a 2^k grid embedded in the 2^21 one: the index of the coarse cell is the top 3k bits */
                const uint64_t d = axb_hilbert3_index(x << shift, y << shift, z << shift) >> (3 * shift);
                if (d >= cells || seen[d]) ok = false;
                if (d < cells) {
                    seen[d] = 1;
                    at[d][0] = (int32_t)x, at[d][1] = (int32_t)y, at[d][2] = (int32_t)z;
                }
            }
    CHECK_MSG(T, ok, "k = %d: the index is not a bijection", k);
    int bad = 0;
    for (uint64_t d = 1; ok && d < cells; d++) {
        const int step = abs(at[d][0] - at[d - 1][0]) + abs(at[d][1] - at[d - 1][1]) + abs(at[d][2] - at[d - 1][2]);
        bad += step != 1;
    }
    CHECK_MSG(T, bad == 0, "k = %d: %d steps of the curve are not to a face neighbour", k, bad);
    free(at);
    free(seen);
}

/* The 2-D order of a full 2^k × 2^k grid of points visits every point once, each step to an edge
 * neighbour (what repack's element order relies on). */
static void grid_curve2(check_ctx *T, int k)
{
    const int n = 1 << k, N = n * n;
    double *xy = malloc((size_t)N * 2 * sizeof *xy);
    int64_t *o = malloc((size_t)N * sizeof *o);
    for (int i = 0; i < N; i++) {
        xy[2 * i] = i % n;
        xy[2 * i + 1] = i / n;
    }
    axb_error err = AXB_ERROR_INIT;
    CHECK(T, axb_hilbert2_order(N, xy, o, &err) == AXB_OK);
    int bad = 0;
    char *seen = calloc((size_t)N, 1);
    for (int i = 0; i < N; i++) {
        if (o[i] < 0 || o[i] >= N || seen[o[i]]++) bad++;
        if (i > 0) {
            const double dx = fabs(xy[2 * o[i]] - xy[2 * o[i - 1]]), dy = fabs(xy[2 * o[i] + 1] - xy[2 * o[i - 1] + 1]);
            if (dx + dy != 1) bad++;
        }
    }
    CHECK_MSG(T, bad == 0, "2-D, k = %d: %d points repeated or steps not to an edge neighbour", k, bad);
    free(seen);
    free(xy);
    free(o);
}

int main(void)
{
    check_ctx T = {0, 0, 0};
    for (int k = 1; k <= 4; k++) grid_curve(&T, k);
    for (int k = 1; k <= 5; k++) grid_curve2(&T, k);
    enum { N = 4000 };
    double *xyz = malloc(3 * N * sizeof *xyz);
    int64_t *o = malloc(N * sizeof *o), *o2 = malloc(N * sizeof *o2);
    srand(3);
    for (int i = 0; i < 3 * N; i++) xyz[i] = (double)rand() / RAND_MAX * 1e6;
    axb_error err = AXB_ERROR_INIT;
    CHECK(&T, axb_hilbert3_order(N, xyz, o, &err) == AXB_OK);
    CHECK(&T, axb_hilbert3_order(N, xyz, o2, &err) == AXB_OK);
    CHECK(&T, memcmp(o, o2, N * sizeof *o) == 0);
    char *seen = calloc(N, 1);
    bool perm = true;
    for (int i = 0; i < N; i++) {
        if (o[i] < 0 || o[i] >= N || seen[o[i]])
            perm = false;
        else
            seen[o[i]] = 1;
    }
    CHECK(&T, perm);
    double step = 0, rstep = 0;
    for (int i = 1; i < N; i++) {
        const double *a = xyz + 3 * o[i - 1], *b = xyz + 3 * o[i], *c = xyz + 3 * (i - 1), *e = xyz + 3 * i;
        step += sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
        rstep += sqrt((c[0] - e[0]) * (c[0] - e[0]) + (c[1] - e[1]) * (c[1] - e[1]) + (c[2] - e[2]) * (c[2] - e[2]));
    }
    /* a random cloud of N points: neighbours along the curve are ~N^(-1/3) apart, random pairs ~0.66 */
    CHECK_MSG(&T, step < 0.15 * rstep, "mean step along the curve %.4g vs %.4g in input order", step / N, rstep / N);
    free(seen);
    free(xyz);
    free(o);
    free(o2);
    return check_summary(&T);
}
