/**
 * @file fullspace.h
 * @brief Closed-form wavefields of a homogeneous, isotropic, unbounded elastic medium, and their
 *        decomposition into the (s, φ, z) fields AxiSEM stores per sub-simulation, so that
 *        Instaseis' combination formulas (reference notes §2.9–2.11) rebuild the true 3-D field.
 *        The physics behind `axibulk mkdb`. Pure numerics: no MPI, no I/O, no allocation.
 *
 * Formulas, conventions and their derivation: docs/mkdb-physics.md.
 *
 * Time: every output is sampled at t_k = k·dt, k = 0..nt-1, and written as out[c*nt + k]
 * (component-major, [ncomp][nt]). Units are SI throughout.
 *
 * Source time functions. The errorf STF has the moment (slip) function
 *   S(t) = ½(1 + erf((t − t0)/σ))
 * and the moment rate g(t) = S'(t) = exp(−((t − t0)/σ)²)/(σ√π) (unit area). A field can be asked
 * for either time history (::axb_fs_tf):
 *  - AXB_FS_TF_STEP: the source strength follows S(t) — moment tensors (N·m) and the forces of the
 *    reciprocal databases PX/PZ (what AxiSEM stores, so that the reciprocal moment-tensor formula
 *    needs no time derivative);
 *  - AXB_FS_TF_RATE: the source strength follows g(t) (in 1/s, times N or N·m) — the force history
 *    Instaseis assumes for a ForceSource, which it obtains by differentiating the database once.
 *
 * Points where the receiver coincides with the source are singular; the output there is 0.
 */
#ifndef AXIBULK_FULLSPACE_H
#define AXIBULK_FULLSPACE_H

#include <stdint.h>

#include "axibulk/mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Homogeneous medium: P and S velocity (m/s), density (kg/m³). Requires vp > vs > 0, rho > 0. */
typedef struct axb_fs_medium {
    double vp, vs, rho;
} axb_fs_medium;

/** errorf source time function: S(t) = ½(1 + erf((t − t0)/σ)); σ > 0 (s), t0 (s). */
typedef struct axb_fs_stf {
    double sigma, t0;
} axb_fs_stf;

/** Which time history the source strength follows (see the file comment). */
typedef enum axb_fs_tf {
    AXB_FS_TF_STEP = 0, /**< S(t): smooth step (moment / slip) */
    AXB_FS_TF_RATE = 1  /**< g(t) = S'(t): Gaussian (moment rate / slip rate) */
} axb_fs_tf;

/** AxiSEM's errorf for dominant period T (its t_0 = T, decay = 3.5): σ = T/3.5, and the
 *  unrounded shift t0 = 1.5·T. AxiSEM rounds the shift up to the dump step; see
 *  axb_fs_stf_from_period_dt. */
void axb_fs_stf_from_period(double period, axb_fs_stf *stf);

/** As axb_fs_stf_from_period, with AxiSEM's shift t0 = dt·⌈1.5·T/dt⌉ for the dump step dt
 *  (the database's `source shift factor in sec`; 173.07 s for T = 100 s, dt = 24.72 s). */
void axb_fs_stf_from_period_dt(double period, double dt, axb_fs_stf *stf);

/** stf_dump[k] = amplitude·S(t_k), stf_d_dump[k] = amplitude·g(t_k), t_k = k·dt (either may be
 *  NULL). */
void axb_fs_stf_sample(const axb_fs_stf *stf, double amplitude, int64_t nt, double dt, double *stf_dump,
                       double *stf_d_dump);

/**
 * Displacement out[3][nt] (Cartesian x, y, z; m) at rec of a point force f (N, Cartesian) at src
 * whose history is the moment-rate shape g(t) — Instaseis' ForceSource convention (one time
 * derivative of the database's step-force fields). Aki & Richards eq. 4.23.
 */
void axb_fs_force_3d(const axb_fs_medium *m, const axb_fs_stf *stf, const double src[3], const double f[3],
                     const double rec[3], int64_t nt, double dt, double *out);

/** Displacement out[3][nt] at rec of a point moment tensor M (N·m, Cartesian, symmetric) at src
 *  with moment function S(t). Aki & Richards eq. 4.29. */
void axb_fs_moment_3d(const axb_fs_medium *m, const axb_fs_stf *stf, const double src[3], const double M[3][3],
                      const double rec[3], int64_t nt, double dt, double *out);

/** axb_fs_force_3d with the time history chosen by @p tf. */
void axb_fs_force_3d_tf(const axb_fs_medium *m, const axb_fs_stf *stf, axb_fs_tf tf, const double src[3],
                        const double f[3], const double rec[3], int64_t nt, double dt, double *out);

/** axb_fs_moment_3d with the time history chosen by @p tf (M need not be symmetric: M_pq is a
 *  force couple, force along p, arm along q). */
void axb_fs_moment_3d_tf(const axb_fs_medium *m, const axb_fs_stf *stf, axb_fs_tf tf, const double src[3],
                         const double M[3][3], const double rec[3], int64_t nt, double dt, double *out);

/** Strain out[6][nt] at rec of a point force f at src, Voigt order (xx, yy, zz, yz, xz, xy) of the
 *  tensor strain ε_ij = ½(∂_i u_j + ∂_j u_i) (no factor 2 on shear components). */
void axb_fs_force_strain_3d_tf(const axb_fs_medium *m, const axb_fs_stf *stf, axb_fs_tf tf, const double src[3],
                               const double f[3], const double rec[3], int64_t nt, double dt, double *out);

/**
 * The field of AxiSEM sub-simulation @p sim with its source on the +z axis at radius r_src,
 * scaled by @p amplitude (the database's `scalar source magnitude`), at the meridional point
 * (s ≥ 0, z), as AxiSEM stores it: out[3][nt] = (u_s, u_φ, u_z), the φ-free amplitude functions
 * (u_φ = 0 for monopole runs). Works on the axis s = 0. Time history S(t) for all six runs.
 *  PZ: force +ẑ;  PX: force +x̂ (south at the pole);  MZZ: M = ẑẑ;  MXX_P_MYY: M = (x̂x̂+ŷŷ)/2;
 *  MXZ_MYZ: M = x̂ẑ+ẑx̂ (u_s, u_z), ŷẑ+ẑŷ (u_φ);  MXY_MXX_M_MYY: M = (x̂x̂−ŷŷ)/2 (u_s, u_z),
 *  (x̂ŷ+ŷx̂)/2 (u_φ). Evaluated at azimuth φ = 0 (ŝ = x̂, φ̂ = ŷ). See docs/mkdb-physics.md.
 */
void axb_fs_sim_displ(const axb_fs_medium *m, const axb_fs_stf *stf, axb_sim sim, double r_src, double amplitude,
                      double s, double z, int64_t nt, double dt, double *out);

/**
 * The strain variables of a strain_only reciprocal database (PX or PZ only), out[6][nt] =
 * (strain_dsus, strain_dsuz, strain_dpup, strain_dsup, strain_dzup, straintrace), defined so that
 * Instaseis' E = [dsus, dpup, trace − dsus − dpup, −dzup, dsuz, −dsup] (§2.8) is the strain the
 * §2.7 formulas give from axb_fs_sim_displ after the dipole E3/E5 sign flip. dsup = dzup = 0 for
 * PZ. Any other @p sim fills out with NaN (strain_only databases are reciprocal only).
 */
void axb_fs_sim_strain(const axb_fs_medium *m, const axb_fs_stf *stf, axb_sim sim, double r_src, double amplitude,
                       double s, double z, int64_t nt, double dt, double *out);

/**
 * Several runs at one point: out[nsim][3][nt] for sims[0..nsim-1], identical to nsim calls of
 * axb_fs_sim_displ but with the erfc/exp time series evaluated once (they depend on the distance
 * only) — the writer's per-point call for a PX+PZ or a four-run forward database.
 */
void axb_fs_sims_displ(const axb_fs_medium *m, const axb_fs_stf *stf, int nsim, const axb_sim *sims, double r_src,
                       double amplitude, double s, double z, int64_t nt, double dt, double *out);

/** As axb_fs_sims_displ for the stored strain: out[nsim][6][nt] (PX/PZ; others NaN). */
void axb_fs_sims_strain(const axb_fs_medium *m, const axb_fs_stf *stf, int nsim, const axb_sim *sims, double r_src,
                        double amplitude, double s, double z, int64_t nt, double dt, double *out);

#ifdef __cplusplus
}
#endif
#endif
