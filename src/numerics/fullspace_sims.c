/* The fields AxiSEM stores per sub-simulation, from the 3-D full-space fields of each run's source
 * at the pole (docs/mkdb-physics.md §3). Database frame: pole on +z, x = south (θ̂) at the pole,
 * y = east. A stored amplitude function is a cylindrical component at azimuth φ = 0 of the source
 * whose azimuthal factor is 1 there (cos mφ for u_s, u_z); for u_φ, of the same source turned by
 * 90°/m (the sin mφ partner), which is what Instaseis' combination formulas multiply. */
#include <math.h>
#include <string.h>

#include "numerics/fullspace_internal.h"

typedef double row[AXB_FS_NTF];

static void force_row(const double F[3][3][AXB_FS_NTF], int comp, int dir, double scale, row out)
{
    for (int k = 0; k < AXB_FS_NTF; k++) out[k] = scale * F[comp][dir][k];
}

static void couple_row(const double K[3][3][3][AXB_FS_NTF], int comp, const double M[3][3], double scale, row out)
{
    for (int k = 0; k < AXB_FS_NTF; k++) {
        double acc = 0.0;
        for (int p = 0; p < 3; p++)
            for (int q = 0; q < 3; q++) acc += K[comp][p][q][k] * M[p][q];
        out[k] = scale * acc;
    }
}

/* Tensor strain ε_ij of a unit force along @p dir: −½(K[i][dir][j] + K[j][dir][i]). */
static void strain_row(const double K[3][3][3][AXB_FS_NTF], int dir, int i, int j, double scale, row out)
{
    for (int k = 0; k < AXB_FS_NTF; k++) out[k] = -0.5 * scale * (K[i][dir][j][k] + K[j][dir][i][k]);
}

enum { X = 0, Y = 1, Z = 2 };

/* The three rows (u_s, u_φ, u_z) of @p sim at a point with kernels F, K. Returns 0 for an unknown
 * sim. */
static int displ_rows(axb_sim sim, const double F[3][3][AXB_FS_NTF], const double K[3][3][3][AXB_FS_NTF],
                      double amplitude, row coef[3])
{
    /* (M for u_s, u_z; M for u_φ), Cartesian in the database frame (r, θ, φ) = (z, x, y) */
    static const double mzz[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 1}};
    static const double mxx_p_myy[3][3] = {{0.5, 0, 0}, {0, 0.5, 0}, {0, 0, 0}};
    static const double mxz[3][3] = {{0, 0, 1}, {0, 0, 0}, {1, 0, 0}};
    static const double myz[3][3] = {{0, 0, 0}, {0, 0, 1}, {0, 1, 0}};
    static const double mxx_m_myy[3][3] = {{0.5, 0, 0}, {0, -0.5, 0}, {0, 0, 0}};
    static const double mxy[3][3] = {{0, 0.5, 0}, {0.5, 0, 0}, {0, 0, 0}};
    memset(coef, 0, 3 * sizeof(row));
    const double(*msz)[3] = NULL, (*mp)[3] = NULL;
    switch (sim) {
    case AXB_SIM_PZ:
        force_row(F, X, Z, amplitude, coef[0]);
        force_row(F, Z, Z, amplitude, coef[2]);
        return 1;
    case AXB_SIM_PX:
        force_row(F, X, X, amplitude, coef[0]);
        force_row(F, Y, Y, amplitude, coef[1]);
        force_row(F, Z, X, amplitude, coef[2]);
        return 1;
    case AXB_SIM_MZZ: msz = mzz; break;
    case AXB_SIM_MXX_P_MYY: msz = mxx_p_myy; break;
    case AXB_SIM_MXZ_MYZ: msz = mxz, mp = myz; break;
    case AXB_SIM_MXY_MXX_M_MYY: msz = mxx_m_myy, mp = mxy; break;
    default: return 0;
    }
    couple_row(K, X, msz, amplitude, coef[0]);
    couple_row(K, Z, msz, amplitude, coef[2]);
    if (mp) couple_row(K, Y, mp, amplitude, coef[1]);
    return 1;
}

/* The six stored strain rows (dsus, dsuz, dpup, dsup, dzup, trace) of PX or PZ. */
static int strain_rows(axb_sim sim, const double K[3][3][3][AXB_FS_NTF], double amplitude, row coef[6])
{
    if (sim != AXB_SIM_PX && sim != AXB_SIM_PZ) return 0;
    const int dir = sim == AXB_SIM_PX ? X : Z;
    row ezz;
    memset(coef, 0, 6 * sizeof(row));
    strain_row(K, dir, X, X, amplitude, coef[0]);
    strain_row(K, dir, X, Z, amplitude, coef[1]);
    strain_row(K, dir, Y, Y, amplitude, coef[2]);
    strain_row(K, dir, Z, Z, amplitude, ezz);
    for (int k = 0; k < AXB_FS_NTF; k++) coef[5][k] = coef[0][k] + coef[2][k] + ezz[k];
    if (sim == AXB_SIM_PX) {
        /* ε_sφ and ε_φz of the x̂ force vary as sin φ; their coefficients are minus the ŷ force's
         * ε_xy, ε_yz at φ = 0. Instaseis negates dsup, dzup again (§2.8), matching its E3/E5 flip. */
        row exy, eyz;
        strain_row(K, Y, X, Y, amplitude, exy);
        strain_row(K, Y, Y, Z, amplitude, eyz);
        for (int k = 0; k < AXB_FS_NTF; k++) {
            coef[3][k] = -exy[k];
            coef[4][k] = -eyz[k];
        }
    }
    return 1;
}

static void fill(int64_t n, double v, double *out)
{
    for (int64_t k = 0; k < n; k++) out[k] = v;
}

/* Shared driver: nrow rows per sim; the time series are evaluated once for all sims (they depend
 * on r only). Unknown sims get NaN rows, the source point zeros. */
static void sims_field(const axb_fs_medium *m, const axb_fs_stf *stf, int nsim, const axb_sim *sims, double r_src,
                       double amplitude, double s, double z, int64_t nt, double dt, int strain, double *out)
{
    const int nrow = strain ? 6 : 3;
    if (nsim > AXB_NSIM) { /* the row buffer holds AXB_NSIM sims; take longer lists in parts */
        sims_field(m, stf, AXB_NSIM, sims, r_src, amplitude, s, z, nt, dt, strain, out);
        sims_field(m, stf, nsim - AXB_NSIM, sims + AXB_NSIM, r_src, amplitude, s, z, nt, dt, strain,
                   out + (int64_t)AXB_NSIM * nrow * nt);
        return;
    }
    const double src[3] = {0.0, 0.0, r_src}, rec[3] = {s, 0.0, z};
    double gamma[3], r;
    if (!axb_fs_geometry(src, rec, gamma, &r)) {
        for (int i = 0; i < nsim; i++) {
            int ok = strain ? (sims[i] == AXB_SIM_PX || sims[i] == AXB_SIM_PZ)
                            : (sims[i] >= AXB_SIM_PX && sims[i] < AXB_NSIM);
            fill(nrow * nt, ok ? 0.0 : NAN, out + (int64_t)i * nrow * nt);
        }
        return;
    }
    double F[3][3][AXB_FS_NTF], K[3][3][3][AXB_FS_NTF];
    axb_fs_force_kernel(m, gamma, r, F);
    axb_fs_couple_kernel(m, gamma, r, K);
    row coef[6 * AXB_NSIM];
    int nok = 0, okmap[AXB_NSIM];
    for (int i = 0; i < nsim; i++) {
        int ok = strain ? strain_rows(sims[i], K, amplitude, coef + nok * nrow)
                        : displ_rows(sims[i], F, K, amplitude, coef + nok * nrow);
        okmap[i] = ok ? nok++ : -1;
    }
    /* compute the valid sims packed, then spread them to their slots from the back */
    axb_fs_apply(m, stf, AXB_FS_TF_STEP, r, nok * nrow, (const double(*)[AXB_FS_NTF])coef, nt, dt, out);
    for (int i = nsim - 1; i >= 0; i--) {
        double *dst = out + (int64_t)i * nrow * nt;
        if (okmap[i] < 0)
            fill(nrow * nt, NAN, dst);
        else if (okmap[i] != i)
            memmove(dst, out + (int64_t)okmap[i] * nrow * nt, (size_t)(nrow * nt) * sizeof *out);
    }
}

void axb_fs_sims_displ(const axb_fs_medium *m, const axb_fs_stf *stf, int nsim, const axb_sim *sims, double r_src,
                       double amplitude, double s, double z, int64_t nt, double dt, double *out)
{
    sims_field(m, stf, nsim, sims, r_src, amplitude, s, z, nt, dt, 0, out);
}

void axb_fs_sims_strain(const axb_fs_medium *m, const axb_fs_stf *stf, int nsim, const axb_sim *sims, double r_src,
                        double amplitude, double s, double z, int64_t nt, double dt, double *out)
{
    sims_field(m, stf, nsim, sims, r_src, amplitude, s, z, nt, dt, 1, out);
}

void axb_fs_sim_displ(const axb_fs_medium *m, const axb_fs_stf *stf, axb_sim sim, double r_src, double amplitude,
                      double s, double z, int64_t nt, double dt, double *out)
{
    sims_field(m, stf, 1, &sim, r_src, amplitude, s, z, nt, dt, 0, out);
}

void axb_fs_sim_strain(const axb_fs_medium *m, const axb_fs_stf *stf, axb_sim sim, double r_src, double amplitude,
                       double s, double z, int64_t nt, double dt, double *out)
{
    sims_field(m, stf, 1, &sim, r_src, amplitude, s, z, nt, dt, 1, out);
}
