/* Internals of the full-space module shared by fullspace_*.c (and its unit test).
 *
 * Every full-space field is, per receiver point, a fixed linear combination of five time series
 * (A&R eqs. 4.23/4.29): the near-field integral N(t) = ∫_{r/α}^{r/β} τ X(t − τ) dτ, X(t − r/α),
 * X(t − r/β), Ẋ(t − r/α), Ẋ(t − r/β), with X the source's time history. So a point is described
 * by coefficients c[comp][5] (computed once) and the samples by the five series (one evaluation
 * per sample shared by all components). */
#ifndef AXB_FULLSPACE_INTERNAL_H
#define AXB_FULLSPACE_INTERNAL_H

#include <stdint.h>

#include "numerics/fullspace.h"

enum { AXB_FS_NTF = 5 };

/* Strict C17 math.h has no M_PI. */
#define AXB_FS_PI 3.14159265358979323846
#define AXB_FS_SQRT_PI 1.77245385090551602730

/** The five time series at one instant: [N, X_P, X_S, Ẋ_P, Ẋ_S] (see the file comment). */
void axb_fs_tf_eval(const axb_fs_stf *stf, axb_fs_tf tf, double tau_p, double tau_s, double t, double v[AXB_FS_NTF]);

/** Geometry of a source–receiver pair: distance r and unit vector γ from src to rec.
 *  Returns 0 when they coincide (r = 0). */
int axb_fs_geometry(const double src[3], const double rec[3], double gamma[3], double *r);

/** Force kernel F[i][j][5]: displacement i per unit force j (A&R 4.23). */
void axb_fs_force_kernel(const axb_fs_medium *m, const double gamma[3], double r, double F[3][3][AXB_FS_NTF]);

/** Couple kernel K[n][p][q][5] = ∂G_np/∂ξ_q: displacement n per unit couple M_pq (A&R 4.29).
 *  The receiver-side gradient of the force field is ∂u_n/∂x_q = −Σ_p f_p K[n][p][q]. */
void axb_fs_couple_kernel(const axb_fs_medium *m, const double gamma[3], double r, double K[3][3][3][AXB_FS_NTF]);

/** out[c][k] = Σ_j coef[c][j]·series_j(t_k) for c < ncomp, with τ_P = r/vp, τ_S = r/vs. */
void axb_fs_apply(const axb_fs_medium *m, const axb_fs_stf *stf, axb_fs_tf tf, double r, int ncomp,
                  const double (*coef)[AXB_FS_NTF], int64_t nt, double dt, double *out);

#endif
