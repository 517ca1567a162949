/* Full-space Green's functions in closed form: point force (Aki & Richards eq. 4.23) and force
 * couples (eq. 4.29, its source-side gradient), as per-point coefficients of the five time series
 * of fullspace_stf.c. */
#include <math.h>
#include <string.h>

#include "numerics/fullspace_internal.h"

int axb_fs_geometry(const double src[3], const double rec[3], double gamma[3], double *r)
{
    double d[3] = {rec[0] - src[0], rec[1] - src[1], rec[2] - src[2]};
    double rr = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    *r = rr;
    if (!(rr > 0.0)) {
        gamma[0] = gamma[1] = gamma[2] = 0.0;
        return 0;
    }
    for (int i = 0; i < 3; i++) gamma[i] = d[i] / rr;
    return 1;
}

void axb_fs_force_kernel(const axb_fs_medium *m, const double gamma[3], double r, double F[3][3][AXB_FS_NTF])
{
    const double C = 1.0 / (4.0 * AXB_FS_PI * m->rho);
    const double a2 = m->vp * m->vp, b2 = m->vs * m->vs;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double gg = gamma[i] * gamma[j], d = i == j ? 1.0 : 0.0;
            F[i][j][0] = C * (3.0 * gg - d) / (r * r * r);
            F[i][j][1] = C * gg / (a2 * r);
            F[i][j][2] = -C * (gg - d) / (b2 * r);
            F[i][j][3] = 0.0;
            F[i][j][4] = 0.0;
        }
}

void axb_fs_couple_kernel(const axb_fs_medium *m, const double gamma[3], double r, double K[3][3][3][AXB_FS_NTF])
{
    const double C = 1.0 / (4.0 * AXB_FS_PI * m->rho);
    const double a = m->vp, b = m->vs;
    const double r2 = r * r;
    for (int n = 0; n < 3; n++)
        for (int p = 0; p < 3; p++)
            for (int q = 0; q < 3; q++) {
                const double g = gamma[n] * gamma[p] * gamma[q];
                const double dnp = n == p, dnq = n == q, dpq = p == q;
                /* γ_n δ_pq + γ_p δ_nq + γ_q δ_np, the recurring isotropic combination */
                const double iso = gamma[n] * dpq + gamma[p] * dnq + gamma[q] * dnp;
                K[n][p][q][0] = C * (15.0 * g - 3.0 * iso) / (r2 * r2);
                K[n][p][q][1] = C * (6.0 * g - iso) / (a * a * r2);
                K[n][p][q][2] = -C * (6.0 * g - iso - gamma[q] * dnp) / (b * b * r2);
                K[n][p][q][3] = C * g / (a * a * a * r);
                K[n][p][q][4] = -C * (gamma[n] * gamma[p] - dnp) * gamma[q] / (b * b * b * r);
            }
}

static void zero(int ncomp, int64_t nt, double *out)
{
    memset(out, 0, (size_t)ncomp * (size_t)nt * sizeof *out);
}

void axb_fs_force_3d_tf(const axb_fs_medium *m, const axb_fs_stf *stf, axb_fs_tf tf, const double src[3],
                        const double f[3], const double rec[3], int64_t nt, double dt, double *out)
{
    double gamma[3], r;
    if (!axb_fs_geometry(src, rec, gamma, &r)) {
        zero(3, nt, out);
        return;
    }
    double F[3][3][AXB_FS_NTF], coef[3][AXB_FS_NTF] = {{0}};
    axb_fs_force_kernel(m, gamma, r, F);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < AXB_FS_NTF; k++) coef[i][k] += F[i][j][k] * f[j];
    axb_fs_apply(m, stf, tf, r, 3, (const double(*)[AXB_FS_NTF])coef, nt, dt, out);
}

void axb_fs_moment_3d_tf(const axb_fs_medium *m, const axb_fs_stf *stf, axb_fs_tf tf, const double src[3],
                         const double M[3][3], const double rec[3], int64_t nt, double dt, double *out)
{
    double gamma[3], r;
    if (!axb_fs_geometry(src, rec, gamma, &r)) {
        zero(3, nt, out);
        return;
    }
    double K[3][3][3][AXB_FS_NTF], coef[3][AXB_FS_NTF] = {{0}};
    axb_fs_couple_kernel(m, gamma, r, K);
    for (int n = 0; n < 3; n++)
        for (int p = 0; p < 3; p++)
            for (int q = 0; q < 3; q++)
                for (int k = 0; k < AXB_FS_NTF; k++) coef[n][k] += K[n][p][q][k] * M[p][q];
    axb_fs_apply(m, stf, tf, r, 3, (const double(*)[AXB_FS_NTF])coef, nt, dt, out);
}

void axb_fs_force_strain_3d_tf(const axb_fs_medium *m, const axb_fs_stf *stf, axb_fs_tf tf, const double src[3],
                               const double f[3], const double rec[3], int64_t nt, double dt, double *out)
{
    static const int vi[6] = {0, 1, 2, 1, 0, 0}, vj[6] = {0, 1, 2, 2, 2, 1};
    double gamma[3], r;
    if (!axb_fs_geometry(src, rec, gamma, &r)) {
        zero(6, nt, out);
        return;
    }
    double K[3][3][3][AXB_FS_NTF], grad[3][3][AXB_FS_NTF] = {{{0}}}, coef[6][AXB_FS_NTF];
    axb_fs_couple_kernel(m, gamma, r, K);
    /* G depends on x − ξ, so the receiver gradient is minus the source gradient K */
    for (int n = 0; n < 3; n++)
        for (int q = 0; q < 3; q++)
            for (int p = 0; p < 3; p++)
                for (int k = 0; k < AXB_FS_NTF; k++) grad[n][q][k] -= K[n][p][q][k] * f[p];
    for (int c = 0; c < 6; c++)
        for (int k = 0; k < AXB_FS_NTF; k++) coef[c][k] = 0.5 * (grad[vi[c]][vj[c]][k] + grad[vj[c]][vi[c]][k]);
    axb_fs_apply(m, stf, tf, r, 6, (const double(*)[AXB_FS_NTF])coef, nt, dt, out);
}

void axb_fs_force_3d(const axb_fs_medium *m, const axb_fs_stf *stf, const double src[3], const double f[3],
                     const double rec[3], int64_t nt, double dt, double *out)
{
    axb_fs_force_3d_tf(m, stf, AXB_FS_TF_RATE, src, f, rec, nt, dt, out);
}

void axb_fs_moment_3d(const axb_fs_medium *m, const axb_fs_stf *stf, const double src[3], const double M[3][3],
                      const double rec[3], int64_t nt, double dt, double *out)
{
    axb_fs_moment_3d_tf(m, stf, AXB_FS_TF_STEP, src, M, rec, nt, dt, out);
}
