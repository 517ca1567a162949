/* Running (quasi-)Monte Carlo estimates of cell integrals, with MC Kernel's convergence test: an
 * integral I = V·mean(f) over N points has the error estimate σ_I = V·sqrt(var(f)/(N−1)); it has
 * converged once σ_I < abs_tol·V or σ_I < rel_tol·|I| (after at least min_points points). The sums
 * are shifted by the first value so that the variance of nearly constant integrands keeps its
 * digits. MPI-free; one estimate per (cell, kernel, basis function). */
#ifndef AXB_NUMERICS_MC_ESTIMATE_H
#define AXB_NUMERICS_MC_ESTIMATE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct axb_mc_estimate {
    int64_t n;        /* points so far */
    double shift;     /* the first value */
    double sum, sum2; /* Σ (f − shift), Σ (f − shift)² */
} axb_mc_estimate;

typedef struct axb_mc_tolerance {
    double abs_tol;     /* error allowed per unit volume (kernel units) */
    double rel_tol;     /* error allowed relative to |I| */
    int64_t min_points; /* no verdict before this many points (at least 3) */
} axb_mc_tolerance;

/* Adds @p n values (one per point). */
void axb_mc_add(axb_mc_estimate *e, int64_t n, const double *f);

/* The integral V·mean(f) (0 before any point). */
double axb_mc_integral(const axb_mc_estimate *e, double volume);

/* Its error estimate V·sqrt(var/(N−1)) (infinite with fewer than 2 points). */
double axb_mc_error(const axb_mc_estimate *e, double volume);

/* True once the estimate meets @p tol. */
bool axb_mc_converged(const axb_mc_estimate *e, double volume, const axb_mc_tolerance *tol);

#endif
