/* Low-discrepancy point sequences in the unit cube for quasi-Monte Carlo integration over cells.
 * Stateless: point k is computed from k alone, so ranks and iterations draw disjoint, reproducible
 * parts of one sequence without sharing state, and a result does not depend on the rank count. */
#ifndef AXB_NUMERICS_QMC_H
#define AXB_NUMERICS_QMC_H

#include <stdint.h>

typedef enum axb_qmc_kind {
    AXB_QMC_HALTON = 0, /* radical inverses in bases 2, 3, 5 */
    AXB_QMC_SOBOL       /* Sobol' dimensions 1-3 (primitive polynomials 1, x + 1, x² + x + 1) */
} axb_qmc_kind;

/* Point @p k (0, 1, 2, ...) of the 3-D sequence, in [0, 1)³. The origin (the sequences' own
 * point 0) is skipped: it lies on a cell's corner. */
void axb_qmc_point(axb_qmc_kind kind, uint64_t k, double q[3]);

#endif
