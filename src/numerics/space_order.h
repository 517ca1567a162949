/* Orders of points along Hilbert curves: neighbours in space stay neighbours in the order. In 2-D
 * the element order of merged files (repack: elements close in the meridional plane close on
 * disk), in 3-D the kernel cells dealt out in runs (few database elements per batch). */
#ifndef AXB_NUMERICS_SPACE_ORDER_H
#define AXB_NUMERICS_SPACE_ORDER_H

#include <stdint.h>

#include "axibulk/status.h"

/* Index along the Hilbert curve of cell (x, y, z) of a 2^21-per-axis grid (Skilling's transpose
 * form, bits interleaved most significant first): 63 bits. */
uint64_t axb_hilbert3_index(uint32_t x, uint32_t y, uint32_t z);

/* order[0..n) receives the indices of the points (xyz[3·i..3·i+2]) sorted by their Hilbert index in
 * the points' bounding cube (ties by index, so the order is deterministic). */
AXB_NODISCARD axb_status axb_hilbert3_order(int64_t n, const double *xyz, int64_t *order, axb_error *err);

/* The same for 2-D points xy[2·i], xy[2·i+1] on a 2^16-per-axis grid. */
AXB_NODISCARD axb_status axb_hilbert2_order(int64_t n, const double *xy, int64_t *order, axb_error *err);

#endif
