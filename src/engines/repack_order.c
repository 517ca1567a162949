/* Element order for merged files: a Hilbert curve over the element mid points keeps elements that
 * are close in space close on disk, so event-style and finite-fault reads touch neighbouring
 * blocks (Instaseis uses a KD-tree's leaf order for the same purpose). */
#include <stdlib.h>

#include "axibulk/repack.h"

/* Index of cell (x, y) along the Hilbert curve of a 2^16 grid (the classic rotate-and-add). */
static uint64_t hilbert_index(uint32_t x, uint32_t y)
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

axb_status axb_hilbert_order(int64_t n, const double *x, const double *y, int64_t *order, axb_error *err)
{
    if (n <= 0) return AXB_OK;
    double x0 = x[0], x1 = x[0], y0 = y[0], y1 = y[0];
    for (int64_t i = 1; i < n; i++) {
        x0 = x[i] < x0 ? x[i] : x0;
        x1 = x[i] > x1 ? x[i] : x1;
        y0 = y[i] < y0 ? y[i] : y0;
        y1 = y[i] > y1 ? y[i] : y1;
    }
    /* one scale for both axes keeps the curve's locality isotropic */
    double span = (x1 - x0) > (y1 - y0) ? (x1 - x0) : (y1 - y0);
    if (span <= 0) span = 1;
    keyed *k = malloc((size_t)n * sizeof *k);
    if (!k) return axb_error_set(err, AXB_ERR_NOMEM, "element order of %lld elements", (long long)n);
    for (int64_t i = 0; i < n; i++) {
        const uint32_t gx = (uint32_t)((x[i] - x0) / span * 65535.0);
        const uint32_t gy = (uint32_t)((y[i] - y0) / span * 65535.0);
        k[i] = (keyed){hilbert_index(gx, gy), i};
    }
    qsort(k, (size_t)n, sizeof *k, by_key);
    for (int64_t i = 0; i < n; i++) order[i] = k[i].idx;
    free(k);
    return AXB_OK;
}
