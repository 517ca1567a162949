/* Orders of points along a 3-D Hilbert curve: neighbours in space stay neighbours in the order, so
 * work dealt out in runs of it (kernel cells to ranks and batches) touches few database elements.
 * The 2-D element order of merged files is repack's (axb_hilbert_order, include/axibulk/repack.h). */
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

#endif
