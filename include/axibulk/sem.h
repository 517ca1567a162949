/**
 * @file sem.h
 * @brief Spectral-element numerics of AxiSEM meshes: the mapping of the four element types, its
 *        inverse, Lagrange interpolation on GLL/GLJ points, and strain from displacement at the
 *        collocation points (reference notes §2.4, §2.6, §2.7). Pure functions, no MPI, no I/O.
 *
 * Field arrays are double f[i][j][t] with i the ξ index, j the η index and t (time) fastest, so
 * every operation is a loop over contiguous samples.
 */
#ifndef AXIBULK_SEM_H
#define AXIBULK_SEM_H

#include <stdbool.h>
#include <stdint.h>

#include "axibulk/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Element types of `eltype`. */
enum { AXB_EL_SPHEROIDAL = 0, AXB_EL_LINEAR = 1, AXB_EL_SEMINO = 2, AXB_EL_SEMISO = 3 };

/** An element's shape: its four corners (fem_mesh order, counter-clockwise from (ξ,η)=(−1,−1)). */
typedef struct axb_elem_shape {
    double s[4], z[4];
    int type;
} axb_elem_shape;

/** Fills the shape of element e from the mesh. */
void axb_sem_shape(const axb_mesh *m, int64_t e, axb_elem_shape *g);

/** (s, z) at reference coordinates (ξ, η). */
void axb_sem_map(const axb_elem_shape *g, double xi, double eta, double *s, double *z);

/** Inverse Jacobian at (ξ, η): ij[0][0] = ∂ξ/∂s, ij[0][1] = ∂ξ/∂z, ij[1][0] = ∂η/∂s,
 *  ij[1][1] = ∂η/∂z. */
void axb_sem_inv_jacobian(const axb_elem_shape *g, double xi, double eta, double ij[2][2]);

/** The mapping and its inverse Jacobian at the grid of points (xi[i], eta[j]): s[q], z[q] and
 *  ij[q] for q = i·neta + j, with the element's polar description (curved edges) made once for
 *  all of them; the values of axb_sem_map and axb_sem_inv_jacobian. */
void axb_sem_map_grid(const axb_elem_shape *g, int nxi, const double *xi, int neta, const double *eta, double *s,
                      double *z, double (*ij)[2][2]);

/** Newton inversion of the mapping (at most 10 steps, AxiSEM's convergence test); returns
 *  whether (ξ, η) lies within [−1−tol, 1+tol]². */
bool axb_sem_inside(const axb_elem_shape *g, double s, double z, double tol, double *xi, double *eta);

/** Lagrange basis weights w[k] = ℓ_k(x) for the n points pts. */
void axb_lagrange_weights(const double *pts, int n, double x, double *w);

/** Collocation points and derivative matrix in ξ of an element: GLJ/G1 on axis elements,
 *  GLL/G2 otherwise (η always uses GLL/G2). */
void axb_sem_xi_basis(const axb_mesh *m, bool axis, const double **xi_pts, const double **dxi);

/**
 * Strain (Voigt [ss, φφ, zz, φz, sz, sφ]) at all collocation points of one element from its
 * displacement with the formulas Instaseis uses (reference notes §2.7). @p u holds the stored
 * components u[c][i][j][t] for c = 0..2 (disp_s, disp_p, disp_z; disp_p zero for monopole runs).
 * @p out receives E[6][i][j][t]. @p work needs 6·np1²·nt doubles. For dipole runs the sign
 * flip Instaseis applies after interpolation (E3, E5 · −1) is NOT applied here.
 */
void axb_sem_strain(const axb_mesh *m, const axb_elem_shape *g, bool axis, axb_excitation exc, int64_t nt,
                    const double *u, double *out, double *work);

/**
 * The strain of axb_sem_strain as a matrix: op[k][i][j][q] is the weight of input q = c·np1² + a·np1 + b
 * (component c at collocation point (a, b)) in strain component k at point (i, j). It is
 * axb_sem_strain applied to the 3·np1² unit displacements, so it holds the same formulas (axis
 * treatment included). axb_sem_strain_at gives its rows at one point, interpolated and contracted,
 * without building it (what extraction uses). @p op holds 6·np1²·3·np1² doubles, @p scratch
 * 9·np1²·3·np1².
 */
void axb_sem_strain_operator(const axb_mesh *m, const axb_elem_shape *g, bool axis, axb_excitation exc, double *op,
                             double *scratch);

/**
 * axb_sem_strain_operator for @p nexc excitations of one element (a reciprocal database's PX and
 * PZ runs): op[r] for exc[r], the same bits as one call each, with the element's geometry at its
 * collocation points computed once. @p scratch as for one.
 */
void axb_sem_strain_operators(const axb_mesh *m, const axb_elem_shape *g, bool axis, int nexc,
                              const axb_excitation *exc, double *const *op, double *scratch);

/**
 * An element's geometry at its collocation points: what strain anywhere in it needs. Fill it once
 * per element with axb_sem_geom_init, then ask axb_sem_strain_at for as many points as fall in it.
 */
typedef struct axb_sem_geom {
    int np1;
    bool axis;
    const double *dxi; /**< derivative matrix in ξ (G1 on axis elements, else G2); the mesh's */
    const double *g2;  /**< derivative matrix in η (G2); the mesh's */
    double ij[AXB_NPOL_MAX + 1][AXB_NPOL_MAX + 1][2][2]; /**< inverse Jacobian at each point */
    double s[AXB_NPOL_MAX + 1][AXB_NPOL_MAX + 1];        /**< cylindrical radius of each point */
} axb_sem_geom;

/** Fills @p geo for element shape @p g (on the axis or not); it refers to @p m's matrices. */
void axb_sem_geom_init(const axb_mesh *m, const axb_elem_shape *g, bool axis, axb_sem_geom *geo);

/**
 * The strain operator of axb_sem_strain_operator at one point, contracted: out[r][q] =
 * Σ_k coef[r][k] Σ_ij wxi[i] weta[j] op[k][i][j][q] for each of the @p ncon coefficient vectors
 * (over the 6 Voigt strain components; six unit vectors give the operator's rows) and the 3·np1²
 * inputs q, where wxi, weta are the point's Lagrange weights in the element's ξ and η bases. Each
 * strain term is a derivative along one line of points or a value over s, so the sums are taken
 * along those lines (about 4·np1³ operations and 3·np1² per term) instead of building the
 * operator (6·np1²·3·np1² entries) and contracting it: the same sums in another order, equal to
 * rounding. Each out[r] holds 3·np1² doubles.
 */
void axb_sem_strain_at(const axb_sem_geom *geo, axb_excitation exc, const double *wxi, const double *weta, int ncon,
                       const double (*coef)[6], double *const *out);

/**
 * out[k][t] = Σ_r w[k][r] rows[r][t] for k < nout (1 or 2): linear functionals of float rows
 * (an element's stored samples, t contiguous) evaluated at every sample in one pass over them.
 * With @p add the sums are added to what out holds.
 */
void axb_sem_apply_rows(int64_t nrows, int64_t nt, const float *rows, int nout, const double *const *w,
                        double *const *out, bool add);

/** Σ_ij wxi[i] weta[j] f[i][j][t] for every t: one component interpolated to (ξ, η). */
void axb_sem_interpolate(int np1, int64_t nt, const double *f, const double *wxi, const double *weta, double *out);

#ifdef __cplusplus
}
#endif
#endif
