/* Finding the element of an AxiSEM mesh that holds a point of the meridional plane: the one search
 * of the extraction and the kernel engine. */
#ifndef AXB_NUMERICS_SEM_LOCATE_H
#define AXB_NUMERICS_SEM_LOCATE_H

#include <stdbool.h>
#include <stdint.h>

#include "axibulk/mesh.h"
#include "numerics/kdtree.h"

/* The element holding (s, z) among the @p ncand (at most 64) elements whose mid points (@p tree)
 * are nearest: the nearest one that contains it at the smallest tolerance of the ladder 1e-3,
 * 1e-2, 5e-2, 8e-2 in reference coordinates, as Instaseis searches. Writes the element and its
 * (ξ, η); false if none contains the point. */
bool axb_sem_locate(const axb_mesh *m, const axb_kdtree *tree, double s, double z, int ncand, int64_t *elem, double *xi,
                    double *eta);

#endif
