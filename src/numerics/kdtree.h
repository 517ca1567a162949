/**
 * @file kdtree.h
 * @brief A static 2-D KD-tree for k-nearest-neighbour queries (element mid points, or all stored
 *        points of strain-only databases). Built once per database, queried per source–receiver
 *        pair; queries are read-only and may run concurrently.
 */
#ifndef AXIBULK_KDTREE_H
#define AXIBULK_KDTREE_H

#include <stdint.h>

#include "axibulk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct axb_kdtree axb_kdtree;

/** Builds the tree over n points (x[i], y[i]); the coordinates are copied. */
AXB_NODISCARD axb_status axb_kdtree_create(int64_t n, const double *x, const double *y, axb_kdtree **tree,
                                           axb_error *err);
void axb_kdtree_destroy(axb_kdtree **tree);

/** The min(k, n) points nearest to (x, y), closest first (equal distances: lower index first).
 *  idx receives their indices, d2 (may be NULL) their squared distances. Returns the count.
 *  k is at most 64. */
int axb_kdtree_nearest(const axb_kdtree *tree, double x, double y, int k, int64_t *idx, double *d2);

#ifdef __cplusplus
}
#endif
#endif
