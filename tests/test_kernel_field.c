/* The kernel engine's wavefields against the closed form: `axibulk mkdb` databases of a
 * homogeneous full space (forward: the event's moment tensor at depth; backward: forces at the
 * receiver), evaluated by the kernel engine at random points of the shell (location, collocation
 * strain, interpolation, azimuth factors, rotation into the local (θ, φ, r) frame), compared with
 * the strain and displacement of the same sources computed directly (fullspace.h; strain of the
 * moment tensor by central differences of its displacement, 100 m steps). Every component of the
 * forward field, and the backward field for Z, N, E, R and T (R and T from the geometry here:
 * away from the source in the receiver's tangent plane, T = R × up). Error = max |difference| over
 * all components and samples relative to the largest value of the reference, per point; bound 1e-3
 * at the databases' 40 points per wavelength. No shared data needed. */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axibulk/geometry.h"
#include "axibulk/mkdb.h"
#include "check.h"
#include "engines/kernel_internal.h"
#include "numerics/fullspace.h"
#include "test_util.h"

#define PERIOD 100.0
#define LENGTH 900.0
#define RMIN_KM 5700.0
#define SRC_DEPTH_KM 150.0
#define TOL 1e-3

static const double PI = 3.14159265358979323846;

static const double SRC_LAT = 10, SRC_LON = 20, REC_LAT = 22, REC_LON = 31;

static axb_status make_db(const char *dir, axb_db_kind kind, axb_error *err)
{
    axb_mkdb_opts o;
    axb_mkdb_defaults(&o);
    o.dir = dir;
    o.kind = kind;
    o.period = PERIOD;
    o.length = LENGTH;
    o.rmin_km = RMIN_KM;
    o.source_depth_km = kind == AXB_DB_FORWARD ? SRC_DEPTH_KM : 0;
    o.force = true;
    axb_mkdb_result r;
    return axb_mkdb_run(MPI_COMM_WORLD, &o, NULL, &r, err);
}

/* Cartesian symmetric tensor (Voigt xx yy zz yz xz xy) -> local Voigt at point x. */
static void cart_to_local(const double x[3], const double v[6], double out[6])
{
    const double r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    double L[3][3];
    axb_geo_local_basis(atan2(x[1], x[0]) * 180 / PI, acos(x[2] / r) * 180 / PI, L);
    const double A[3][3] = {{v[0], v[5], v[4]}, {v[5], v[1], v[3]}, {v[4], v[3], v[2]}};
    double B[3][3] = {{0}};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) B[a][b] += L[i][a] * A[i][j] * L[j][b];
    out[0] = B[0][0], out[1] = B[1][1], out[2] = B[2][2], out[3] = B[1][2], out[4] = B[0][2], out[5] = B[0][1];
}

static void vec_to_local(const double x[3], const double v[3], double out[3])
{
    const double r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    double L[3][3];
    axb_geo_local_basis(atan2(x[1], x[0]) * 180 / PI, acos(x[2] / r) * 180 / PI, L);
    for (int a = 0; a < 3; a++) out[a] = L[0][a] * v[0] + L[1][a] * v[1] + L[2][a] * v[2];
}

/* Worst relative difference of got [n][nt] against ref [n][nt]. */
static double rel_err(int n, int64_t nt, const double *got, const double *ref)
{
    double peak = 0, d = 0;
    for (int64_t q = 0; q < n * nt; q++) {
        peak = fmax(peak, fabs(ref[q]));
        d = fmax(d, fabs(got[q] - ref[q]));
    }
    return d / peak;
}

/* Analytic strain (local Voigt [6][nt]) and displacement (local [3][nt]) of the moment tensor. */
static void moment_ref(const axb_fs_medium *med, const axb_fs_stf *stf, const double src[3], const double M[3][3],
                       const double x[3], int64_t nt, double dt, double *E, double *U)
{
    double *up = malloc(3 * (size_t)nt * sizeof *up), *um = malloc(3 * (size_t)nt * sizeof *um);
    double *g = calloc(9 * (size_t)nt, sizeof *g); /* g[i][j][t] = ∂_i u_j */
    const double h = 100.0;
    for (int i = 0; i < 3; i++) {
        double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
        xp[i] += h, xm[i] -= h;
        axb_fs_moment_3d_tf(med, stf, AXB_FS_TF_STEP, src, M, xp, nt, dt, up);
        axb_fs_moment_3d_tf(med, stf, AXB_FS_TF_STEP, src, M, xm, nt, dt, um);
        for (int j = 0; j < 3; j++)
            for (int64_t t = 0; t < nt; t++) g[(i * 3 + j) * nt + t] = (up[j * nt + t] - um[j * nt + t]) / (2 * h);
    }
    axb_fs_moment_3d_tf(med, stf, AXB_FS_TF_STEP, src, M, x, nt, dt, up);
    for (int64_t t = 0; t < nt; t++) {
        const double v[6] = {g[0 * nt + t],
                             g[4 * nt + t],
                             g[8 * nt + t],
                             0.5 * (g[5 * nt + t] + g[7 * nt + t]),
                             0.5 * (g[2 * nt + t] + g[6 * nt + t]),
                             0.5 * (g[1 * nt + t] + g[3 * nt + t])};
        double o[6];
        cart_to_local(x, v, o);
        for (int q = 0; q < 6; q++) E[q * nt + t] = o[q];
        const double u[3] = {up[t], up[nt + t], up[2 * nt + t]};
        double ul[3];
        vec_to_local(x, u, ul);
        for (int q = 0; q < 3; q++) U[q * nt + t] = ul[q];
    }
    free(up);
    free(um);
    free(g);
}

static void force_ref(const axb_fs_medium *med, const axb_fs_stf *stf, const double rec[3], const double f[3],
                      const double x[3], int64_t nt, double dt, double *E, double *U)
{
    double *s = malloc(6 * (size_t)nt * sizeof *s), *u = malloc(3 * (size_t)nt * sizeof *u);
    axb_fs_force_strain_3d_tf(med, stf, AXB_FS_TF_STEP, rec, f, x, nt, dt, s);
    axb_fs_force_3d_tf(med, stf, AXB_FS_TF_STEP, rec, f, x, nt, dt, u);
    for (int64_t t = 0; t < nt; t++) {
        const double v[6] = {s[t], s[nt + t], s[2 * nt + t], s[3 * nt + t], s[4 * nt + t], s[5 * nt + t]};
        double o[6];
        cart_to_local(x, v, o);
        for (int q = 0; q < 6; q++) E[q * nt + t] = o[q];
        const double w[3] = {u[t], u[nt + t], u[2 * nt + t]};
        double ul[3];
        vec_to_local(x, w, ul);
        for (int q = 0; q < 3; q++) U[q * nt + t] = ul[q];
    }
    free(s);
    free(u);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_ctx T = {0, 0, 0};
    char tmp[512];
    CHECK(&T, test_scratch_dir(MPI_COMM_WORLD, "kfield", tmp, sizeof tmp) == 0);
    char fdir[600], bdir[600];
    snprintf(fdir, sizeof fdir, "%s/fwd", tmp);
    snprintf(bdir, sizeof bdir, "%s/bwd", tmp);
    axb_error err = AXB_ERROR_INIT;
    axb_status st = make_db(fdir, AXB_DB_FORWARD, &err);
    if (!st) st = make_db(bdir, AXB_DB_RECIPROCAL, &err);
    CHECK_MSG(&T, st == AXB_OK, "mkdb: %s", err.msg);
    axb_kdb fwd, bwd;
    if (!st) st = axb_kdb_open(MPI_COMM_WORLD, fdir, true, true, 64 << 20, 0, 4, &fwd, &err);
    if (!st) st = axb_kdb_open(MPI_COMM_WORLD, bdir, false, true, 64 << 20, 0, 4, &bwd, &err);
    CHECK_MSG(&T, st == AXB_OK, "open: %s", err.msg);
    if (st) goto out;
    const axb_db_info *in = fwd.info;
    const int64_t nt = in->ndumps;
    const double dt = in->dt;
    axb_mkdb_opts d;
    axb_mkdb_defaults(&d);
    const axb_fs_medium med = {d.vp, d.vs, d.rho};
    axb_fs_stf stf;
    axb_fs_stf_from_period_dt(PERIOD, dt, &stf);
    const double R = in->planet_radius;
    double src[3], rec[3];
    axb_geo_cartesian(SRC_LAT, SRC_LON, R - SRC_DEPTH_KM * 1e3, src);
    axb_geo_cartesian(REC_LAT, REC_LON, R, rec);
    /* moment tensor (N·m, rr tt pp rt rp tp) with every component */
    const double m[6] = {1.1e17, -0.4e17, -0.7e17, 0.55e17, -0.35e17, 0.8e17};
    double Ls[3][3], Lr[3][3];
    axb_geo_local_basis(SRC_LON, 90 - SRC_LAT, Ls);
    axb_geo_local_basis(REC_LON, 90 - REC_LAT, Lr);
    const double Ml[3][3] = {{m[1], m[5], m[3]}, {m[5], m[2], m[4]}, {m[3], m[4], m[0]}};
    double M[3][3] = {{0}};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) M[a][b] += Ls[a][i] * Ml[i][j] * Ls[b][j];
    /* R: away from the source in the receiver's tangent plane; T = R × up */
    double up[3] = {Lr[0][2], Lr[1][2], Lr[2][2]}, Rv[3];
    const double dx[3] = {rec[0] - src[0], rec[1] - src[1], rec[2] - src[2]};
    const double dn = dx[0] * up[0] + dx[1] * up[1] + dx[2] * up[2];
    for (int q = 0; q < 3; q++) Rv[q] = dx[q] - dn * up[q];
    const double rn = sqrt(Rv[0] * Rv[0] + Rv[1] * Rv[1] + Rv[2] * Rv[2]);
    for (int q = 0; q < 3; q++) Rv[q] /= rn;
    const double Tv[3] = {Rv[1] * up[2] - Rv[2] * up[1], Rv[2] * up[0] - Rv[0] * up[2], Rv[0] * up[1] - Rv[1] * up[0]};
    const char comps[] = "ZNERT";
    double *E = malloc(6 * (size_t)nt * sizeof *E), *U = malloc(3 * (size_t)nt * sizeof *U);
    double *Er = malloc(6 * (size_t)nt * sizeof *Er), *Ur = malloc(3 * (size_t)nt * sizeof *Ur);
    srand(7);
    double worst_f = 0, worst_b = 0;
    for (int k = 0; k < 12; k++) {
        /* points between the source and the receiver, off the great circle, at any depth */
        const double a = (double)rand() / RAND_MAX,
                     lat = SRC_LAT + a * (REC_LAT - SRC_LAT) + 6 * ((double)rand() / RAND_MAX - 0.5);
        const double lon = SRC_LON + a * (REC_LON - SRC_LON) + 6 * ((double)rand() / RAND_MAX - 0.5);
        const double r = (RMIN_KM + 60 + (6371 - RMIN_KM - 120) * (double)rand() / RAND_MAX) * 1e3;
        double x[3];
        axb_geo_cartesian(lat, lon, r, x);
        axb_kloc loc;
        double Q[3][3];
        st = axb_kdb_locate(&fwd, SRC_LON, 90 - SRC_LAT, x, &loc, &err);
        if (!st) st = axb_kdb_prepare(&fwd, 1, &loc.elem, &err);
        CHECK_MSG(&T, st == AXB_OK, "forward point %d: %s", k, err.msg);
        if (st) break;
        axb_k_local_rotation(Ls, loc.phi, x, Q);
        axb_kdb_forward_field(&fwd, &loc, m, Q, E, U);
        moment_ref(&med, &stf, src, M, x, nt, dt, Er, Ur);
        const double ef = fmax(rel_err(6, nt, E, Er), rel_err(3, nt, U, Ur));
        worst_f = fmax(worst_f, ef);
        CHECK_MSG(&T, ef < TOL, "forward field at point %d (lat %.2f lon %.2f r %.0f km): %.3g", k, lat, lon, r / 1e3,
                  ef);
        st = axb_kdb_locate(&bwd, REC_LON, 90 - REC_LAT, x, &loc, &err);
        if (!st) st = axb_kdb_prepare(&bwd, 1, &loc.elem, &err);
        CHECK_MSG(&T, st == AXB_OK, "backward point %d: %s", k, err.msg);
        if (st) break;
        axb_k_local_rotation(Lr, loc.phi, x, Q);
        double sr, zr, phis;
        axb_geo_rotate_frame(src, REC_LON, 90 - REC_LAT, &sr, &zr, &phis);
        for (int c = 0; c < 5; c++) {
            double n[3] = {0}, f[3];
            const double *dir;
            const double north[3] = {-Lr[0][0], -Lr[1][0], -Lr[2][0]}, east[3] = {Lr[0][1], Lr[1][1], Lr[2][1]};
            switch (comps[c]) {
            case 'Z': n[2] = 1, dir = up; break;
            case 'N': n[0] = -1, dir = north; break;
            case 'E': n[1] = 1, dir = east; break;
            case 'R': n[0] = -cos(phis), n[1] = -sin(phis), dir = Rv; break;
            default: n[0] = -sin(phis), n[1] = cos(phis), dir = Tv; break;
            }
            for (int q = 0; q < 3; q++) f[q] = dir[q];
            axb_kdb_backward_field(&bwd, &loc, n, Q, E, U);
            force_ref(&med, &stf, rec, f, x, nt, dt, Er, Ur);
            const double eb = fmax(rel_err(6, nt, E, Er), rel_err(3, nt, U, Ur));
            worst_b = fmax(worst_b, eb);
            CHECK_MSG(&T, eb < TOL, "backward %c field at point %d: %.3g", comps[c], k, eb);
        }
    }
    printf("worst relative error: forward %.3g, backward %.3g (bound %g)\n", worst_f, worst_b, TOL);
    free(E);
    free(U);
    free(Er);
    free(Ur);
    axb_kdb_close(&fwd);
    axb_kdb_close(&bwd);
out:
    test_remove_dir(MPI_COMM_WORLD, tmp);
    return test_finish_mpi(&T);
}
