/* Full-space wavefields and their AxiSEM decomposition (src/numerics/fullspace_*.c).
 *
 * References, all independent of the code under test:
 *  - Kelvin's static solution in its Poisson-ratio form, G_ij = ((3 − 4ν)δ_ij + γ_iγ_j) /
 *    (16πμ(1 − ν) r), and finite differences of it for the static moment-tensor field;
 *  - A&R's far-field terms alone (eqs. 4.24/4.32 without near terms) at large distance;
 *  - composite Simpson quadrature of the near-field integral ∫ τ X(t − τ) dτ;
 *  - finite differences (in space and time) of the force field for the couple field, the strain
 *    and the Gaussian-history force;
 *  - Instaseis' combination formulas (reference notes §2.3, §2.8–2.11), re-implemented here with
 *    their own rotations, against the direct 3-D fields (reciprocity for PX/PZ).
 * Tolerances are stated per check; "rel. peak" = relative to the largest |value| of the reference
 * traces. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numerics/fullspace.h"
#include "check.h"
#include "test_rng.h"
#include "numerics/fullspace_internal.h"

#define PI 3.14159265358979323846
#define NT 300
#define DT 0.05

/* ---------------------------------------------------------------- helpers */

static double maxabs(const double *x, int64_t n)
{
    double m = 0.0;
    for (int64_t i = 0; i < n; i++)
        if (fabs(x[i]) > m) m = fabs(x[i]);
    return m;
}

static double maxdiff(const double *a, const double *b, int64_t n)
{
    double m = 0.0;
    for (int64_t i = 0; i < n; i++)
        if (fabs(a[i] - b[i]) > m || a[i] != a[i] || b[i] != b[i]) m = fmax(m, fabs(a[i] - b[i]));
    if (m != m) return INFINITY;
    for (int64_t i = 0; i < n; i++)
        if (a[i] != a[i] || b[i] != b[i]) return INFINITY;
    return m;
}

static const axb_fs_medium MED = {6000.0, 3464.1016151377544, 2700.0}; /* vp/vs = √3, ν = 1/4 */

/* ---------------------------------------------------------------- 1. Green's functions */

/* Simpson quadrature of ∫_{τp}^{τs} τ X(T + t0 − τ) dτ, X = S or g. */
static double near_quad(const axb_fs_stf *stf, axb_fs_tf tf, double tp, double ts, double t)
{
    const int n = 20000;
    const double h = (ts - tp) / n;
    double acc = 0.0;
    for (int i = 0; i <= n; i++) {
        double tau = tp + i * h, y = (t - tau - stf->t0) / stf->sigma;
        double X = tf == AXB_FS_TF_STEP ? 0.5 * (1.0 + erf(y)) : exp(-y * y) / (stf->sigma * sqrt(PI));
        double w = (i == 0 || i == n) ? 1.0 : (i % 2 ? 4.0 : 2.0);
        acc += w * tau * X;
    }
    return acc * h / 3.0;
}

static void test_near_field_integral(check_ctx *T)
{
    const axb_fs_stf stf = {0.5, 3.0};
    const double pairs[3][2] = {{1.0, 1.7}, {0.05, 0.0866}, {3.0, 5.2}};
    const double times[] = {0.0, 3.5, 4.2, 5.5, 7.0, 9.3, 40.0, 2000.0};
    for (int tf = 0; tf < 2; tf++)
        for (int p = 0; p < 3; p++) {
            double tp = pairs[p][0], ts = pairs[p][1];
            double scale = 0.5 * (ts * ts - tp * tp) * (tf == AXB_FS_TF_STEP ? 1.0 : 1.0 / stf.sigma);
            for (size_t i = 0; i < sizeof times / sizeof *times; i++) {
                double v[AXB_FS_NTF];
                axb_fs_tf_eval(&stf, (axb_fs_tf)tf, tp, ts, times[i], v);
                double q = near_quad(&stf, (axb_fs_tf)tf, tp, ts, times[i]);
                /* Simpson with 20000 panels: error ≪ 1e-11 of the integral's scale */
                CHECK_MSG(T, fabs(v[0] - q) <= 1e-11 * scale, "tf %d τ=(%g,%g) t=%g: %.17g vs %.17g", tf, tp, ts,
                          times[i], v[0], q);
            }
        }
    /* late-time step limit is exact: (τs² − τp²)/2 */
    double v[AXB_FS_NTF];
    axb_fs_tf_eval(&stf, AXB_FS_TF_STEP, 0.3, 0.52, 5000.0, v);
    CHECK_CLOSE(T, v[0], 0.5 * (0.52 * 0.52 - 0.3 * 0.3), 1e-15);
    CHECK_CLOSE(T, v[1], 1.0, 0.0);
    CHECK_CLOSE(T, v[3], 0.0, 0.0);
}

static void kelvin(const axb_fs_medium *m, const double src[3], const double rec[3], double G[3][3])
{
    const double mu = m->rho * m->vs * m->vs, lam = m->rho * m->vp * m->vp - 2.0 * mu;
    const double nu = lam / (2.0 * (lam + mu));
    double d[3] = {rec[0] - src[0], rec[1] - src[1], rec[2] - src[2]};
    double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            G[i][j] = ((3.0 - 4.0 * nu) * (i == j) + d[i] * d[j] / (r * r)) / (16.0 * PI * mu * (1.0 - nu) * r);
}

static void test_static(check_ctx *T, rng *g)
{
    const axb_fs_stf stf = {0.4, 2.0};
    for (int trial = 0; trial < 5; trial++) {
        double src[3], rec[3], f[3], M[3][3];
        for (int i = 0; i < 3; i++) {
            src[i] = urange(g, -5e3, 5e3);
            rec[i] = urange(g, -5e3, 5e3);
            f[i] = urange(g, -1, 1);
        }
        for (int i = 0; i < 3; i++)
            for (int j = 0; j <= i; j++) M[i][j] = M[j][i] = urange(g, -1e15, 1e15);
        /* one sample at a time long after the S arrival (t = dt·1) */
        const double tlate = 200.0;
        double u[2 * 3], G[3][3];
        axb_fs_force_3d_tf(&MED, &stf, AXB_FS_TF_STEP, src, f, rec, 2, tlate, u);
        kelvin(&MED, src, rec, G);
        for (int i = 0; i < 3; i++) {
            double ref = G[i][0] * f[0] + G[i][1] * f[1] + G[i][2] * f[2];
            double sc = fabs(G[0][0]) + fabs(G[1][1]) + fabs(G[2][2]);
            CHECK_MSG(T, fabs(u[i * 2 + 1] - ref) <= 1e-12 * sc, "Kelvin %d: %.17g vs %.17g", i, u[i * 2 + 1], ref);
        }
        /* moment: u_n = M_pq ∂G_np/∂ξ_q by a 4-point difference of Kelvin in the source position */
        double um[2 * 3], ref[3] = {0, 0, 0};
        axb_fs_moment_3d_tf(&MED, &stf, AXB_FS_TF_STEP, src, (const double(*)[3])M, rec, 2, tlate, um);
        double d[3] = {rec[0] - src[0], rec[1] - src[1], rec[2] - src[2]};
        double h = 2e-3 * sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]); /* truncation ~(h/r)⁴ */
        for (int q = 0; q < 3; q++) {
            double dG[3][3] = {{0}};
            const double w[4] = {1.0, -8.0, 8.0, -1.0}, o[4] = {-2, -1, 1, 2};
            for (int k = 0; k < 4; k++) {
                double s2[3] = {src[0], src[1], src[2]}, Gk[3][3];
                s2[q] += o[k] * h;
                kelvin(&MED, s2, rec, Gk);
                for (int n = 0; n < 3; n++)
                    for (int p = 0; p < 3; p++) dG[n][p] += w[k] * Gk[n][p] / (12.0 * h);
            }
            for (int n = 0; n < 3; n++)
                for (int p = 0; p < 3; p++) ref[n] += M[p][q] * dG[n][p];
        }
        double pk = maxabs(ref, 3);
        for (int n = 0; n < 3; n++)
            CHECK_MSG(T, fabs(um[n * 2 + 1] - ref[n]) <= 1e-9 * pk, "static moment %d: %.17g vs %.17g", n,
                      um[n * 2 + 1], ref[n]);
        /* and the Gaussian-history fields vanish long after the pulse */
        axb_fs_force_3d(&MED, &stf, src, f, rec, 2, tlate, u);
        CHECK(T, fabs(u[1]) + fabs(u[3]) + fabs(u[5]) < 1e-30);
    }
}

/* Far field (A&R 4.24, 4.32): at r = 20000 km the near and intermediate terms are ~ασ/r ≈ 1e-4
 * of the far field at the P and S peaks, so the check is 1e-3. Peaks arrive at t0 + r/α, t0 + r/β. */
static void test_far_field(check_ctx *T)
{
    const axb_fs_stf stf = {0.5, 3.0};
    const double r = 2e7, gam[3] = {0.48, -0.6, 0.64}; /* unit */
    const double src[3] = {100.0, -50.0, 20.0};
    const double rec[3] = {src[0] + r * gam[0], src[1] + r * gam[1], src[2] + r * gam[2]};
    const double f[3] = {0.3, 0.9, -0.2};
    const double gmax = 1.0 / (stf.sigma * sqrt(PI)), C = 1.0 / (4.0 * PI * MED.rho);
    const double fg = f[0] * gam[0] + f[1] * gam[1] + f[2] * gam[2];
    double u[6];
    /* P peak: u = γ(γ·f)/(4πρα²r)·g */
    axb_fs_force_3d(&MED, &stf, src, f, rec, 2, stf.t0 + r / MED.vp, u);
    double refP = C * fg / (MED.vp * MED.vp * r) * gmax;
    for (int i = 0; i < 3; i++) CHECK_CLOSE(T, u[2 * i + 1], refP * gam[i], 1e-3 * fabs(refP));
    /* S peak: u = (f − γ(γ·f))/(4πρβ²r)·g */
    axb_fs_force_3d(&MED, &stf, src, f, rec, 2, stf.t0 + r / MED.vs, u);
    double refS = C / (MED.vs * MED.vs * r) * gmax;
    for (int i = 0; i < 3; i++) CHECK_CLOSE(T, u[2 * i + 1], refS * (f[i] - fg * gam[i]), 1e-3 * refS);
    /* moment tensor: P far field γ (γMγ)/(4πρα³r)·Ṁ, S far field (M γ − γ(γMγ))/(4πρβ³r)·Ṁ */
    const double M[3][3] = {{1.0, 0.3, -0.4}, {0.3, -0.5, 0.2}, {-0.4, 0.2, 0.7}};
    double Mg[3], gMg = 0.0;
    for (int i = 0; i < 3; i++) {
        Mg[i] = M[i][0] * gam[0] + M[i][1] * gam[1] + M[i][2] * gam[2];
        gMg += gam[i] * Mg[i];
    }
    axb_fs_moment_3d(&MED, &stf, src, M, rec, 2, stf.t0 + r / MED.vp, u);
    /* the neglected terms scale with |M|, not with γMγ */
    double unitMP = C / (MED.vp * MED.vp * MED.vp * r) * gmax, refMP = unitMP * gMg;
    for (int i = 0; i < 3; i++) CHECK_CLOSE(T, u[2 * i + 1], refMP * gam[i], 1e-3 * unitMP);
    axb_fs_moment_3d(&MED, &stf, src, M, rec, 2, stf.t0 + r / MED.vs, u);
    double refMS = C / (MED.vs * MED.vs * MED.vs * r) * gmax;
    for (int i = 0; i < 3; i++)
        CHECK_CLOSE(T, u[2 * i + 1], refMS * (Mg[i] - gMg * gam[i]), 1e-3 * refMS * maxabs(Mg, 3));

    /* arrival times: the radial pulse of the force peaks at t0 + r/α within a sample of 0.01 s,
     * here at a distance where the S pulse is well separated */
    enum { N = 4000 };
    static double tr[3 * N];
    const double r2 = 3e5, rec2[3] = {src[0] + r2 * gam[0], src[1] + r2 * gam[1], src[2] + r2 * gam[2]};
    axb_fs_force_3d(&MED, &stf, src, f, rec2, N, 0.05, tr);
    int kp = 0, ks = 0;
    double bp = 0.0, bs = 0.0;
    for (int k = 0; k < N; k++) {
        double rad = tr[k] * gam[0] + tr[N + k] * gam[1] + tr[2 * N + k] * gam[2];
        double tx = tr[k] - rad * gam[0];
        if (fabs(rad) > bp) bp = fabs(rad), kp = k;
        if (fabs(tx) > bs) bs = fabs(tx), ks = k;
    }
    CHECK_CLOSE(T, kp * 0.05, stf.t0 + r2 / MED.vp, 0.05);
    CHECK_CLOSE(T, ks * 0.05, stf.t0 + r2 / MED.vs, 0.05);
}

static void test_symmetries(check_ctx *T, rng *g)
{
    const axb_fs_stf stf = {0.5, 3.0};
    static double a[3 * NT], b[3 * NT], c[3 * NT];
    for (int trial = 0; trial < 4; trial++) {
        double x[3], y[3];
        for (int i = 0; i < 3; i++) x[i] = urange(g, -2e4, 2e4), y[i] = urange(g, -2e4, 2e4);
        /* reciprocity G_ij(x, y) = G_ji(y, x) */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double ei[3] = {i == 0, i == 1, i == 2}, ej[3] = {j == 0, j == 1, j == 2};
                axb_fs_force_3d(&MED, &stf, y, ej, x, NT, DT, a); /* u_i(x) of force j at y */
                axb_fs_force_3d(&MED, &stf, x, ei, y, NT, DT, b); /* u_j(y) of force i at x */
                double pk = fmax(maxabs(a, 3 * NT), maxabs(b, 3 * NT));
                CHECK_MSG(T, maxdiff(a + i * NT, b + j * NT, NT) <= 1e-13 * pk, "reciprocity %d%d", i, j);
            }
        /* a couple field is odd in the source–receiver vector, a force field even */
        double M[3][3], d[3], xp[3], xm[3], f[3];
        for (int i = 0; i < 3; i++) {
            f[i] = urange(g, -1, 1);
            for (int j = 0; j <= i; j++) M[i][j] = M[j][i] = urange(g, -1, 1);
            d[i] = y[i] - x[i];
            xp[i] = x[i] + d[i];
            xm[i] = x[i] - d[i];
        }
        axb_fs_moment_3d(&MED, &stf, x, (const double(*)[3])M, xp, NT, DT, a);
        axb_fs_moment_3d(&MED, &stf, x, (const double(*)[3])M, xm, NT, DT, b);
        for (int i = 0; i < 3 * NT; i++) c[i] = -b[i];
        CHECK(T, maxdiff(a, c, 3 * NT) <= 1e-13 * maxabs(a, 3 * NT));
        axb_fs_force_3d(&MED, &stf, x, f, xp, NT, DT, a);
        axb_fs_force_3d(&MED, &stf, x, f, xm, NT, DT, b);
        CHECK(T, maxdiff(a, b, 3 * NT) <= 1e-13 * maxabs(a, 3 * NT));
    }
}

/* Dynamic consistency by finite differences (4-point stencils, h small against the shortest
 * wavelength βσ ≈ 1.7 km, so truncation ~(h/βσ)⁴ and rounding ~1e-16·λ/h): the couple field is the
 * source gradient of the force field, the strain the symmetric receiver gradient, and the
 * Gaussian-history force the time derivative of the step-history force (shifting t0 shifts t).
 * Tolerance 1e-8 rel. peak. */
static void test_finite_differences(check_ctx *T, rng *g)
{
    const axb_fs_stf stf = {0.5, 3.0};
    static double u[3 * NT], ref[6 * NT], tmp[6 * NT];
    const double w[4] = {1.0, -8.0, 8.0, -1.0}, o[4] = {-2, -1, 1, 2};
    for (int trial = 0; trial < 3; trial++) {
        double src[3], rec[3], f[3], M[3][3];
        for (int i = 0; i < 3; i++) {
            src[i] = urange(g, -1e4, 1e4);
            rec[i] = urange(g, -1e4, 1e4);
            f[i] = urange(g, -1, 1);
            for (int j = 0; j < 3; j++) M[i][j] = urange(g, -1, 1); /* non-symmetric on purpose */
        }
        const double h = 1.0;
        /* couple: u_n = Σ_pq M_pq ∂G_np/∂ξ_q */
        memset(ref, 0, sizeof ref);
        for (int p = 0; p < 3; p++)
            for (int q = 0; q < 3; q++)
                for (int k = 0; k < 4; k++) {
                    double s2[3] = {src[0], src[1], src[2]}, ep[3] = {p == 0, p == 1, p == 2};
                    s2[q] += o[k] * h;
                    axb_fs_force_3d_tf(&MED, &stf, AXB_FS_TF_STEP, s2, ep, rec, NT, DT, tmp);
                    for (int i = 0; i < 3 * NT; i++) ref[i] += M[p][q] * w[k] * tmp[i] / (12.0 * h);
                }
        axb_fs_moment_3d_tf(&MED, &stf, AXB_FS_TF_STEP, src, (const double(*)[3])M, rec, NT, DT, u);
        CHECK_MSG(T, maxdiff(u, ref, 3 * NT) <= 1e-8 * maxabs(ref, 3 * NT), "couple FD: %g",
                  maxdiff(u, ref, 3 * NT) / maxabs(ref, 3 * NT));
        /* same for the Gaussian history (exercises Ẋ of the rate series) */
        memset(ref, 0, sizeof ref);
        for (int p = 0; p < 3; p++)
            for (int q = 0; q < 3; q++)
                for (int k = 0; k < 4; k++) {
                    double s2[3] = {src[0], src[1], src[2]}, ep[3] = {p == 0, p == 1, p == 2};
                    s2[q] += o[k] * h;
                    axb_fs_force_3d(&MED, &stf, s2, ep, rec, NT, DT, tmp);
                    for (int i = 0; i < 3 * NT; i++) ref[i] += M[p][q] * w[k] * tmp[i] / (12.0 * h);
                }
        axb_fs_moment_3d_tf(&MED, &stf, AXB_FS_TF_RATE, src, (const double(*)[3])M, rec, NT, DT, u);
        CHECK_MSG(T, maxdiff(u, ref, 3 * NT) <= 1e-8 * maxabs(ref, 3 * NT), "couple FD rate: %g",
                  maxdiff(u, ref, 3 * NT) / maxabs(ref, 3 * NT));
        /* strain: ε_ij = ½(∂_i u_j + ∂_j u_i) in the receiver position */
        static double grad[3][3 * NT];
        for (int q = 0; q < 3; q++) {
            memset(grad[q], 0, sizeof grad[q]);
            for (int k = 0; k < 4; k++) {
                double r2[3] = {rec[0], rec[1], rec[2]};
                r2[q] += o[k] * h;
                axb_fs_force_3d_tf(&MED, &stf, AXB_FS_TF_STEP, src, f, r2, NT, DT, tmp);
                for (int i = 0; i < 3 * NT; i++) grad[q][i] += w[k] * tmp[i] / (12.0 * h);
            }
        }
        static const int vi[6] = {0, 1, 2, 1, 0, 0}, vj[6] = {0, 1, 2, 2, 2, 1};
        for (int c = 0; c < 6; c++)
            for (int k = 0; k < NT; k++) /* ∂_j u_i = grad[j][i*NT+k] */
                ref[c * NT + k] = 0.5 * (grad[vj[c]][vi[c] * NT + k] + grad[vi[c]][vj[c] * NT + k]);
        axb_fs_force_strain_3d_tf(&MED, &stf, AXB_FS_TF_STEP, src, f, rec, NT, DT, tmp);
        CHECK_MSG(T, maxdiff(tmp, ref, 6 * NT) <= 1e-8 * maxabs(ref, 6 * NT), "strain FD: %g",
                  maxdiff(tmp, ref, 6 * NT) / maxabs(ref, 6 * NT));
        /* time: d/dt of the step-history field = the Gaussian-history field */
        const double ht = 1e-3;
        memset(ref, 0, sizeof ref);
        for (int k = 0; k < 4; k++) {
            axb_fs_stf s2 = stf;
            s2.t0 -= o[k] * ht; /* u(t; t0 − δ) = u(t + δ; t0) */
            axb_fs_force_3d_tf(&MED, &s2, AXB_FS_TF_STEP, src, f, rec, NT, DT, tmp);
            for (int i = 0; i < 3 * NT; i++) ref[i] += w[k] * tmp[i] / (12.0 * ht);
        }
        axb_fs_force_3d(&MED, &stf, src, f, rec, NT, DT, u);
        CHECK_MSG(T, maxdiff(u, ref, 3 * NT) <= 1e-8 * maxabs(ref, 3 * NT), "time FD: %g",
                  maxdiff(u, ref, 3 * NT) / maxabs(ref, 3 * NT));
    }
}

/* ---------------------------------------------------------------- 2. STF */

static void test_stf(check_ctx *T)
{
    axb_fs_stf stf;
    /* Instaseis' test DB (notes §1.3–1.4): T = 100 s, dt = 24.7248… s, shift 173.0739 s (float32),
     * stf_d_dump peak 1.974e18 at sample 7 for amplitude 1e20 */
    const double dtdb = 24.724845445855724;
    axb_fs_stf_from_period_dt(100.0, dtdb, &stf);
    CHECK_CLOSE(T, stf.t0, 173.07391357421875, 1e-4);
    CHECK_CLOSE(T, stf.sigma, 100.0 / 3.5, 1e-12);
    double sd[73], sdd[73];
    axb_fs_stf_sample(&stf, 1e20, 73, dtdb, sd, sdd);
    CHECK_CLOSE(T, sdd[7], 1.974e18, 0.001e18);
    CHECK_CLOSE(T, sd[7], 5e19, 1e7);
    CHECK_CLOSE(T, sd[72], 1e20, 1e6);
    CHECK(T, sd[0] < 1e20 * 1e-6);

    axb_fs_stf_from_period(2.0, &stf);
    CHECK_CLOSE(T, stf.t0, 3.0, 1e-15);
    enum { N = 400 };
    const double dt = 0.05, amp = 3e17;
    double s[N], d[N];
    axb_fs_stf_sample(&stf, amp, N, dt, s, d);
    int kmax = 0;
    double run = 0.0, worst = 0.0;
    /* Euler–Maclaurin: cumulative trapezoid − exact ≈ −dt²/12·g'(t), |g'| ≤ √2e^{−½}/(σ²√π) */
    const double bound = 1.05 * dt * dt / 12.0 * sqrt(2.0) * exp(-0.5) / (stf.sigma * stf.sigma * sqrt(PI)) * amp;
    for (int k = 1; k < N; k++) {
        run += 0.5 * dt * (d[k] + d[k - 1]);
        worst = fmax(worst, fabs(run + s[0] - s[k]));
        if (d[k] > d[kmax]) kmax = k;
    }
    CHECK_MSG(T, fabs(run + s[0] - amp) <= 1e-12 * amp, "trapezoid %.17g vs %.17g", run + s[0], amp);
    CHECK_MSG(T, worst <= bound && worst > 0.1 * bound, "running integral %g vs bound %g", worst, bound);
    CHECK(T, kmax == (int)lround(stf.t0 / dt));
    CHECK_CLOSE(T, d[kmax], amp / (stf.sigma * sqrt(PI)), 1e-12 * amp / stf.sigma);
}

/* ---------------------------------------------------------------- 3. decomposition */

typedef struct fields {
    double pz[3 * NT], px[3 * NT], fw[4][3 * NT], ez[6 * NT], ex[6 * NT];
} fields;

static void load_fields(const axb_fs_stf *stf, double r_src, double amp, double s, double z, fields *F, int forward)
{
    if (forward) {
        for (int i = 0; i < 4; i++)
            axb_fs_sim_displ(&MED, stf, (axb_sim)(AXB_SIM_MZZ + i), r_src, amp, s, z, NT, DT, F->fw[i]);
        return;
    }
    axb_fs_sim_displ(&MED, stf, AXB_SIM_PZ, r_src, amp, s, z, NT, DT, F->pz);
    axb_fs_sim_displ(&MED, stf, AXB_SIM_PX, r_src, amp, s, z, NT, DT, F->px);
    axb_fs_sim_strain(&MED, stf, AXB_SIM_PZ, r_src, amp, s, z, NT, DT, F->ez);
    axb_fs_sim_strain(&MED, stf, AXB_SIM_PX, r_src, amp, s, z, NT, DT, F->ex);
}

/* §2.8: stored strain → Voigt E = [dsus, dpup, trace − dsus − dpup, −dzup, dsuz, −dsup] */
static void stored_to_voigt(const double *st, int k, double E[6])
{
    double dsus = st[k], dsuz = st[NT + k], dpup = st[2 * NT + k], dsup = st[3 * NT + k], dzup = st[4 * NT + k],
           tr = st[5 * NT + k];
    E[0] = dsus, E[1] = dpup, E[2] = tr - dsus - dpup, E[3] = -dzup, E[4] = dsuz, E[5] = -dsup;
}

/* §2.9 with m = Voigt [m_ss, m_φφ, m_zz, m_φz, m_sz, m_sφ]/amp → (Z, N, E) */
static void combine_moment(const fields *F, const double m[6], double phi, double *zne)
{
    for (int k = 0; k < NT; k++) {
        double EZ[6], EX[6];
        stored_to_voigt(F->ez, k, EZ);
        stored_to_voigt(F->ex, k, EX);
        double Z = m[0] * EZ[0] + m[1] * EZ[1] + m[2] * EZ[2] + 2 * m[4] * EZ[4];
        double A = m[0] * EX[0] + m[1] * EX[1] + m[2] * EX[2] + 2 * m[4] * EX[4];
        double B = 2 * m[3] * EX[3] + 2 * m[5] * EX[5];
        zne[k] = Z;
        zne[NT + k] = -(A * cos(phi) - B * sin(phi));
        zne[2 * NT + k] = A * sin(phi) + B * cos(phi);
    }
}

/* §2.10 with f = (f_s, f_φ, f_z)/amp → (Z, N, E) */
static void combine_force(const fields *F, const double f[3], double phi, double *zne)
{
    for (int k = 0; k < NT; k++) {
        const double *uz = F->pz, *ux = F->px;
        double Z = uz[k] * f[0] + uz[2 * NT + k] * f[2];
        double R = ux[k] * f[0] + ux[2 * NT + k] * f[2], Tt = ux[NT + k] * f[1];
        zne[k] = Z;
        zne[NT + k] = -(cos(phi) * R - sin(phi) * Tt);
        zne[2 * NT + k] = sin(phi) * R + cos(phi) * Tt;
    }
}

/* §2.11 with m = [m_rr, m_tt, m_pp, m_rt, m_rp, m_tp]/amp → (u_s, u_φ, u_z) */
static void combine_forward(const fields *F, const double m[6], double phi, double *u)
{
    double a1 = m[3] * cos(phi) + m[4] * sin(phi), a2 = -m[3] * sin(phi) + m[4] * cos(phi);
    double b1 = (m[1] - m[2]) * cos(2 * phi) + 2 * m[5] * sin(2 * phi);
    double b2 = -(m[1] - m[2]) * sin(2 * phi) + 2 * m[5] * cos(2 * phi);
    for (int k = 0; k < NT; k++)
        for (int c = 0; c < 3; c += 2)
            u[c * NT + k] = F->fw[0][c * NT + k] * m[0] + F->fw[1][c * NT + k] * (m[1] + m[2]) +
                F->fw[2][c * NT + k] * a1 + F->fw[3][c * NT + k] * b1;
    for (int k = 0; k < NT; k++) u[NT + k] = F->fw[2][NT + k] * a2 + F->fw[3][NT + k] * b2;
}

static void check_traces(check_ctx *T, const char *what, const double *got, const double *ref, double tol)
{
    double pk = maxabs(ref, 3 * NT), e = maxdiff(got, ref, 3 * NT);
    CHECK_MSG(T, e <= tol * pk && pk > 0, "%s: error %.3g of peak %.3g", what, e / pk, pk);
}

/* In the database frame (pole on +z, x = south): points (s, φ, z), including s = 0. */
static void test_decomposition_dbframe(check_ctx *T, rng *g)
{
    axb_fs_stf stf;
    axb_fs_stf_from_period(2.0, &stf);
    static fields F;
    static double got[3 * NT], ref[3 * NT], d[3 * NT];
    const double amp = 1e20;
    for (int trial = 0; trial < 12; trial++) {
        double r_src = urange(g, 5e4, 1e5);
        double s = trial % 4 == 0 ? 0.0 : urange(g, 0, 3e4), z = r_src + urange(g, -3e4, 3e4);
        double phi = urange(g, 0, 2 * PI), c = cos(phi), sn = sin(phi);
        if (s == 0 && fabs(z - r_src) < 3e3) z = r_src - 1e4;
        double P[3] = {s * c, s * sn, z}, pole[3] = {0, 0, r_src};
        char what[64];
        load_fields(&stf, r_src, amp, s, z, &F, 0);

        /* reciprocal force: receiver at the pole records the force at P; N = −x, E = y, Z = z */
        double f[3] = {urange(g, -1, 1), urange(g, -1, 1), urange(g, -1, 1)};
        axb_fs_force_3d_tf(&MED, &stf, AXB_FS_TF_STEP, P, f, pole, NT, DT, d);
        for (int k = 0; k < NT; k++) ref[k] = d[2 * NT + k], ref[NT + k] = -d[k], ref[2 * NT + k] = d[NT + k];
        double fc[3] = {(c * f[0] + sn * f[1]) / amp, (-sn * f[0] + c * f[1]) / amp, f[2] / amp};
        combine_force(&F, fc, phi, got);
        snprintf(what, sizeof what, "db-frame force s=%g", s);
        check_traces(T, what, got, ref, 1e-10);

        /* reciprocal moment tensor through the stored strain (§2.8, §2.9) */
        double M[3][3];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j <= i; j++) M[i][j] = M[j][i] = urange(g, -1e18, 1e18);
        axb_fs_moment_3d(&MED, &stf, P, (const double(*)[3])M, pole, NT, DT, d);
        for (int k = 0; k < NT; k++) ref[k] = d[2 * NT + k], ref[NT + k] = -d[k], ref[2 * NT + k] = d[NT + k];
        const double Q[3][3] = {{c, sn, 0}, {-sn, c, 0}, {0, 0, 1}};
        double MC[3][3] = {{0}};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++) MC[i][j] += Q[i][a] * M[a][b] * Q[j][b];
        double mv[6] = {MC[0][0] / amp, MC[1][1] / amp, MC[2][2] / amp, MC[1][2] / amp, MC[0][2] / amp, MC[0][1] / amp};
        combine_moment(&F, mv, phi, got);
        snprintf(what, sizeof what, "db-frame moment s=%g", s);
        check_traces(T, what, got, ref, 1e-10);

        /* forward: source at the pole, m in (r, θ, φ) = (z, x, y); compare (u_s, u_φ, u_z) */
        double m[6];
        for (int i = 0; i < 6; i++) m[i] = urange(g, -1e18, 1e18);
        const double Mf[3][3] = {{m[1], m[5], m[3]}, {m[5], m[2], m[4]}, {m[3], m[4], m[0]}};
        axb_fs_moment_3d(&MED, &stf, pole, Mf, P, NT, DT, d);
        for (int k = 0; k < NT; k++) {
            ref[k] = c * d[k] + sn * d[NT + k];
            ref[NT + k] = -sn * d[k] + c * d[NT + k];
            ref[2 * NT + k] = d[2 * NT + k];
        }
        load_fields(&stf, r_src, amp, s, z, &F, 1);
        double mn[6];
        for (int i = 0; i < 6; i++) mn[i] = m[i] / amp;
        combine_forward(&F, mn, phi, got);
        snprintf(what, sizeof what, "db-frame forward s=%g", s);
        check_traces(T, what, got, ref, 1e-10);
    }
}

/* Earth frame, Instaseis' full path: §2.1 positions, §2.3 rotation, §2.9–2.11 rotations. */
static void local_basis(double lon, double colat, double R[3][3])
{
    double cl = cos(lon), sl = sin(lon), ct = cos(colat), st = sin(colat);
    const double B[3][3] = {{ct * cl, -sl, st * cl}, {ct * sl, cl, st * sl}, {-st, 0, ct}};
    memcpy(R, B, sizeof B);
}

static void rotate_frame(const double x[3], double lon, double colat, double *s, double *z, double *phi)
{
    double x1 = x[0] * cos(lon) + x[1] * sin(lon), y1 = -x[0] * sin(lon) + x[1] * cos(lon), z1 = x[2];
    double x2 = x1 * cos(colat) - z1 * sin(colat), z2 = x1 * sin(colat) + z1 * cos(colat);
    *s = sqrt(x2 * x2 + y1 * y1);
    *z = z2;
    *phi = atan2(y1, x2);
    if (*phi < 0) *phi += 2 * PI;
}

static void cart(double lat, double lon, double r, double x[3])
{
    x[0] = r * cos(lat) * cos(lon), x[1] = r * cos(lat) * sin(lon), x[2] = r * sin(lat);
}

/* (Z, N, E) of an Earth-Cartesian displacement at the receiver (columns of R: θ̂, φ̂, r̂) */
static void to_zne(const double *d, const double R[3][3], double *zne)
{
    for (int k = 0; k < NT; k++) {
        double v[3] = {d[k], d[NT + k], d[2 * NT + k]}, loc[3] = {0, 0, 0};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) loc[i] += R[j][i] * v[j];
        zne[k] = loc[2], zne[NT + k] = -loc[0], zne[2 * NT + k] = loc[1];
    }
}

static void test_decomposition_earth(check_ctx *T, rng *g)
{
    axb_fs_stf stf;
    axb_fs_stf_from_period(2.0, &stf);
    static fields F;
    static double got[3 * NT], ref[3 * NT], d[3 * NT], u[3 * NT];
    const double amp = 1e20, RE = 1e5, deg = PI / 180;
    for (int trial = 0; trial < 10; trial++) {
        double rlat = urange(g, -80, 80) * deg, rlon = urange(g, -180, 180) * deg;
        double slat = rlat + urange(g, -15, 15) * deg, slon = rlon + urange(g, -15, 15) * deg / cos(rlat);
        double depth = urange(g, 2e3, 3e4);
        double xs[3], xr[3], Rs[3][3], Rr[3][3];
        cart(slat, slon, RE - depth, xs);
        cart(rlat, rlon, RE, xr);
        local_basis(slon, PI / 2 - slat, Rs);
        local_basis(rlon, PI / 2 - rlat, Rr);
        double mt[6]; /* m_rr, m_tt, m_pp, m_rt, m_rp, m_tp */
        for (int i = 0; i < 6; i++) mt[i] = urange(g, -1e18, 1e18);
        const double A[3][3] = {{mt[1], mt[5], mt[3]}, {mt[5], mt[2], mt[4]}, {mt[3], mt[4], mt[0]}};
        double ME[3][3] = {{0}};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++) ME[i][j] += Rs[i][a] * A[a][b] * Rs[j][b];
        axb_fs_moment_3d(&MED, &stf, xs, (const double(*)[3])ME, xr, NT, DT, d);
        to_zne(d, Rr, ref);

        /* reciprocal: pole = receiver */
        double s, z, phi;
        rotate_frame(xs, rlon, PI / 2 - rlat, &s, &z, &phi);
        load_fields(&stf, RE, amp, s, z, &F, 0);
        double MR[3][3] = {{0}}, MC[3][3] = {{0}};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++) MR[i][j] += Rr[a][i] * ME[a][b] * Rr[b][j];
        const double Q[3][3] = {{cos(phi), sin(phi), 0}, {-sin(phi), cos(phi), 0}, {0, 0, 1}};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++) MC[i][j] += Q[i][a] * MR[a][b] * Q[j][b];
        double mv[6] = {MC[0][0] / amp, MC[1][1] / amp, MC[2][2] / amp, MC[1][2] / amp, MC[0][2] / amp, MC[0][1] / amp};
        combine_moment(&F, mv, phi, got);
        check_traces(T, "earth reciprocal moment", got, ref, 1e-10);

        /* reciprocal force f = (f_t, f_p, f_r) */
        double ftpr[3] = {urange(g, -1, 1), urange(g, -1, 1), urange(g, -1, 1)}, fE[3] = {0}, fR[3] = {0};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) fE[i] += Rs[i][j] * ftpr[j];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) fR[i] += Rr[j][i] * fE[j];
        axb_fs_force_3d_tf(&MED, &stf, AXB_FS_TF_STEP, xs, fE, xr, NT, DT, d);
        to_zne(d, Rr, ref);
        double fc[3] = {(cos(phi) * fR[0] + sin(phi) * fR[1]) / amp, (-sin(phi) * fR[0] + cos(phi) * fR[1]) / amp,
                        fR[2] / amp};
        combine_force(&F, fc, phi, got);
        check_traces(T, "earth reciprocal force", got, ref, 1e-10);

        /* forward: pole = source; receiver anywhere (here also below the surface) */
        double xr2[3];
        cart(rlat, rlon, RE - urange(g, 0, 2e4), xr2);
        axb_fs_moment_3d(&MED, &stf, xs, (const double(*)[3])ME, xr2, NT, DT, d);
        to_zne(d, Rr, ref);
        rotate_frame(xr2, slon, PI / 2 - slat, &s, &z, &phi);
        load_fields(&stf, RE - depth, amp, s, z, &F, 1);
        double mn[6];
        for (int i = 0; i < 6; i++) mn[i] = mt[i] / amp;
        combine_forward(&F, mn, phi, u);
        /* P = diag(−1, 1, 1) R_rᵀ R_s C(φ); (N, E, Z) = P u */
        const double C[3][3] = {{cos(phi), -sin(phi), 0}, {sin(phi), cos(phi), 0}, {0, 0, 1}};
        double RC[3][3] = {{0}}, P[3][3] = {{0}};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                for (int a = 0; a < 3; a++) RC[i][j] += Rs[i][a] * C[a][j];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                for (int a = 0; a < 3; a++) P[i][j] += Rr[a][i] * RC[a][j];
        for (int j = 0; j < 3; j++) P[0][j] = -P[0][j];
        for (int k = 0; k < NT; k++) {
            double v[3] = {u[k], u[NT + k], u[2 * NT + k]}, nez[3] = {0, 0, 0};
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) nez[i] += P[i][j] * v[j];
            got[k] = nez[2], got[NT + k] = nez[0], got[2 * NT + k] = nez[1];
        }
        check_traces(T, "earth forward", got, ref, 1e-10);
    }
}

/* displ_only databases: the §2.7 strain formulas applied to the stored displacements (derivatives
 * by 4-point differences in s and z, h = 1 m) must give the stored-strain Voigt E of §2.8
 * (dipole E3/E5 flipped). Tolerance 1e-8 rel. peak (difference truncation). */
static void test_strain_formulas(check_ctx *T, rng *g)
{
    axb_fs_stf stf;
    axb_fs_stf_from_period(2.0, &stf);
    static double U[2][5][3 * NT], st[6 * NT], Eref[6 * NT], Egot[6 * NT];
    const double w[4] = {1.0, -8.0, 8.0, -1.0}, o[4] = {-2, -1, 1, 2}, h = 1.0;
    for (int trial = 0; trial < 4; trial++) {
        double r_src = 8e4, s = urange(g, 3e3, 3e4), z = r_src + urange(g, -3e4, 3e4);
        for (int dip = 0; dip < 2; dip++) {
            axb_sim sim = dip ? AXB_SIM_PX : AXB_SIM_PZ;
            /* U[0]: along s, U[1]: along z; index 4 = the point itself */
            for (int dir = 0; dir < 2; dir++)
                for (int k = 0; k < 4; k++)
                    axb_fs_sim_displ(&MED, &stf, sim, r_src, 1.0, s + (dir == 0) * o[k] * h, z + (dir == 1) * o[k] * h,
                                     NT, DT, U[dir][k]);
            axb_fs_sim_displ(&MED, &stf, sim, r_src, 1.0, s, z, NT, DT, U[0][4]);
            axb_fs_sim_strain(&MED, &stf, sim, r_src, 1.0, s, z, NT, DT, st);
            for (int k = 0; k < NT; k++) {
                double ds[3] = {0, 0, 0}, dz[3] = {0, 0, 0}, u[3];
                for (int c = 0; c < 3; c++) {
                    for (int j = 0; j < 4; j++) {
                        ds[c] += w[j] * U[0][j][c * NT + k] / (12 * h);
                        dz[c] += w[j] * U[1][j][c * NT + k] / (12 * h);
                    }
                    u[c] = U[0][4][c * NT + k];
                }
                double E[6];
                E[0] = ds[0], E[2] = dz[2], E[4] = 0.5 * (dz[0] + ds[2]);
                if (dip) {
                    E[1] = (u[0] - u[1]) / s;
                    E[3] = -(-0.5 * (u[2] / s + dz[1])); /* flipped */
                    E[5] = -(-0.5 * (u[0] - u[1]) / s - 0.5 * ds[1]);
                } else {
                    E[1] = u[0] / s, E[3] = 0, E[5] = 0;
                }
                double Es[6];
                stored_to_voigt(st, k, Es);
                for (int c = 0; c < 6; c++) Eref[c * NT + k] = E[c], Egot[c * NT + k] = Es[c];
            }
            double pk = maxabs(Eref, 6 * NT), e = maxdiff(Egot, Eref, 6 * NT);
            CHECK_MSG(T, e <= 1e-8 * pk, "§2.7 vs stored strain (%s): %.3g", dip ? "PX" : "PZ", e / pk);
        }
    }
    /* stored strain is only defined for PX/PZ */
    axb_fs_sim_strain(&MED, &stf, AXB_SIM_MZZ, 8e4, 1.0, 1e4, 7e4, NT, DT, st);
    CHECK(T, isnan(st[0]) && isnan(st[6 * NT - 1]));
    /* on the axis the monopole u_s and dipole u_s − u_φ vanish (regular fields) */
    axb_fs_sim_displ(&MED, &stf, AXB_SIM_PZ, 8e4, 1.0, 0.0, 6e4, NT, DT, U[0][0]);
    CHECK(T, maxabs(U[0][0], NT) == 0.0 && maxabs(U[0][0] + 2 * NT, NT) > 0);
    axb_fs_sim_displ(&MED, &stf, AXB_SIM_PX, 8e4, 1.0, 0.0, 6e4, NT, DT, U[0][0]);
    for (int k = 0; k < NT; k++) U[0][1][k] = U[0][0][k] - U[0][0][NT + k];
    CHECK(T, maxabs(U[0][1], NT) <= 1e-15 * maxabs(U[0][0], NT) && maxabs(U[0][0], NT) > 0);
    /* the source point itself is singular: zeros */
    axb_fs_sim_displ(&MED, &stf, AXB_SIM_PX, 8e4, 1.0, 0.0, 8e4, NT, DT, U[0][0]);
    CHECK(T, maxabs(U[0][0], 3 * NT) == 0.0);
}

/* The multi-run calls equal the single-run calls exactly (same arithmetic, shared series),
 * unknown runs give NaN in their own slot only. */
static void test_multi(check_ctx *T)
{
    axb_fs_stf stf;
    axb_fs_stf_from_period(2.0, &stf);
    static double one[6 * NT], many[8 * 9 * NT]; /* displacement then strain */
    const axb_sim sims[8] = {AXB_SIM_MXY_MXX_M_MYY, AXB_SIM_PZ,      (axb_sim)17,       AXB_SIM_PX,
                             AXB_SIM_MZZ,           AXB_SIM_MXZ_MYZ, AXB_SIM_MXX_P_MYY, AXB_SIM_PX};
    const double pts[3][2] = {{1.2e4, 7.1e4}, {0.0, 9.3e4}, {0.0, 8e4}}; /* last: the source */
    for (int p = 0; p < 3; p++) {
        axb_fs_sims_displ(&MED, &stf, 8, sims, 8e4, 1e20, pts[p][0], pts[p][1], NT, DT, many);
        axb_fs_sims_strain(&MED, &stf, 8, sims, 8e4, 1e20, pts[p][0], pts[p][1], NT, DT, many + 8 * 3 * NT);
        int same = 1;
        for (int i = 0; i < 8; i++) {
            axb_fs_sim_displ(&MED, &stf, sims[i], 8e4, 1e20, pts[p][0], pts[p][1], NT, DT, one);
            same &= i == 2 ? isnan(many[i * 3 * NT]) && isnan(one[0])
                           : memcmp(one, many + i * 3 * NT, 3 * NT * sizeof *one) == 0;
        }
        CHECK_MSG(T, same, "sims_displ point %d", p);
        same = 1;
        const double *ms = many + 8 * 3 * NT;
        for (int i = 0; i < 8; i++) {
            axb_fs_sim_strain(&MED, &stf, sims[i], 8e4, 1e20, pts[p][0], pts[p][1], NT, DT, one);
            int ok = sims[i] == AXB_SIM_PX || sims[i] == AXB_SIM_PZ;
            same &= ok ? memcmp(one, ms + i * 6 * NT, 6 * NT * sizeof *one) == 0
                       : isnan(ms[i * 6 * NT]) && isnan(ms[i * 6 * NT + 6 * NT - 1]) && isnan(one[0]);
        }
        CHECK_MSG(T, same, "sims_strain point %d", p);
    }
}

int main(void)
{
    check_ctx T = {0, 0, 0};
    rng g = {0x9E3779B97F4A7C15ULL};
    test_near_field_integral(&T);
    test_static(&T, &g);
    test_far_field(&T);
    test_symmetries(&T, &g);
    test_finite_differences(&T, &g);
    test_stf(&T);
    test_decomposition_dbframe(&T, &g);
    test_decomposition_earth(&T, &g);
    test_strain_formulas(&T, &g);
    test_multi(&T);
    return check_summary(&T);
}
