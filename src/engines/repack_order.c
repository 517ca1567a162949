/* Element order for merged files: a Hilbert curve over the element mid points keeps elements that
 * are close in space close on disk, so event-style and finite-fault reads touch neighbouring
 * blocks (Instaseis uses a KD-tree's leaf order for the same purpose). */
#include <stdlib.h>

#include "axibulk/repack.h"
#include "numerics/space_order.h"

axb_status axb_hilbert_order(int64_t n, const double *x, const double *y, int64_t *order, axb_error *err)
{
    if (n <= 0) return AXB_OK;
    double *xy = malloc((size_t)n * 2 * sizeof *xy);
    if (!xy) return axb_error_set(err, AXB_ERR_NOMEM, "element order of %lld elements", (long long)n);
    for (int64_t i = 0; i < n; i++) {
        xy[2 * i] = x[i];
        xy[2 * i + 1] = y[i];
    }
    const axb_status st = axb_hilbert2_order(n, xy, order, err);
    free(xy);
    return st;
}
