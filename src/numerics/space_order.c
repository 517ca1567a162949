/* 3-D Hilbert order (J. Skilling, "Programming the Hilbert curve", AIP Conf. Proc. 707, 2004: the
 * curve's index in "transposed" form, computed from the axes by undoing the excess work of the
 * Gray code bit by bit). */
#include "numerics/space_order.h"

#include <stdlib.h>

#define BITS 21

uint64_t axb_hilbert3_index(uint32_t x, uint32_t y, uint32_t z)
{
    uint32_t X[3] = {x, y, z};
    const uint32_t M = 1u << (BITS - 1);
    /* inverse undo: reflect and swap the lower bits for every higher bit set */
    for (uint32_t Q = M; Q > 1; Q >>= 1) {
        const uint32_t P = Q - 1;
        for (int i = 0; i < 3; i++) {
            if (X[i] & Q) {
                X[0] ^= P;
            } else {
                const uint32_t t = (X[0] ^ X[i]) & P;
                X[0] ^= t;
                X[i] ^= t;
            }
        }
    }
    /* Gray encode */
    for (int i = 1; i < 3; i++) X[i] ^= X[i - 1];
    uint32_t t = 0;
    for (uint32_t Q = M; Q > 1; Q >>= 1)
        if (X[2] & Q) t ^= Q - 1;
    for (int i = 0; i < 3; i++) X[i] ^= t;
    /* the transposed index: bit b of X[0], X[1], X[2] are the index's bits 3b+2, 3b+1, 3b */
    uint64_t d = 0;
    for (int b = BITS - 1; b >= 0; b--)
        for (int i = 0; i < 3; i++) d = d << 1 | ((X[i] >> b) & 1u);
    return d;
}

/* Index of cell (x, y) along the Hilbert curve of a 2^16 grid (the classic rotate-and-add). */
static uint64_t hilbert2_index(uint32_t x, uint32_t y)
{
    uint64_t d = 0;
    for (uint32_t s = 1u << 15; s > 0; s >>= 1) {
        const uint32_t rx = (x & s) ? 1 : 0, ry = (y & s) ? 1 : 0;
        d += (uint64_t)s * s * ((3 * rx) ^ ry);
        if (ry == 0) {
            if (rx == 1) {
                x = s - 1 - (x & (s - 1)) + (x & ~(s - 1));
                y = s - 1 - (y & (s - 1)) + (y & ~(s - 1));
            }
            const uint32_t t = x;
            x = y;
            y = t;
        }
    }
    return d;
}

typedef struct keyed {
    uint64_t key;
    int64_t idx;
} keyed;

static int by_key(const void *a, const void *b)
{
    const keyed *p = a, *q = b;
    if (p->key != q->key) return p->key < q->key ? -1 : 1;
    return (p->idx > q->idx) - (p->idx < q->idx);
}

/* The one ordering of both curves: points (dim coordinates each, xyz[dim·i + d]) scaled into the
 * grid of their bounding cube (one scale for all axes keeps the curve's locality isotropic),
 * sorted by curve index, ties by point index so the order is deterministic. */
static axb_status curve_order(int dim, int64_t n, const double *xyz, int64_t *order, axb_error *err)
{
    if (n <= 0) return AXB_OK;
    double lo[3], hi[3];
    for (int d = 0; d < dim; d++) lo[d] = hi[d] = xyz[d];
    for (int64_t i = 1; i < n; i++)
        for (int d = 0; d < dim; d++) {
            const double v = xyz[dim * i + d];
            lo[d] = v < lo[d] ? v : lo[d];
            hi[d] = v > hi[d] ? v : hi[d];
        }
    double span = 0;
    for (int d = 0; d < dim; d++) span = hi[d] - lo[d] > span ? hi[d] - lo[d] : span;
    if (span <= 0) span = 1;
    keyed *k = malloc((size_t)n * sizeof *k);
    if (!k) return axb_error_set(err, AXB_ERR_NOMEM, "Hilbert order of %lld points", (long long)n);
    const double cells = dim == 3 ? (double)((1u << BITS) - 1) : 65535.0;
    for (int64_t i = 0; i < n; i++) {
        uint32_t g[3] = {0, 0, 0};
        for (int d = 0; d < dim; d++) g[d] = (uint32_t)((xyz[dim * i + d] - lo[d]) / span * cells);
        k[i] = (keyed){dim == 3 ? axb_hilbert3_index(g[0], g[1], g[2]) : hilbert2_index(g[0], g[1]), i};
    }
    qsort(k, (size_t)n, sizeof *k, by_key);
    for (int64_t i = 0; i < n; i++) order[i] = k[i].idx;
    free(k);
    return AXB_OK;
}

axb_status axb_hilbert3_order(int64_t n, const double *xyz, int64_t *order, axb_error *err)
{
    return curve_order(3, n, xyz, order, err);
}

axb_status axb_hilbert2_order(int64_t n, const double *xy, int64_t *order, axb_error *err)
{
    return curve_order(2, n, xy, order, err);
}
