/* The whole pipeline against the closed-form solution: databases made by `axibulk mkdb` for a
 * homogeneous full space, seismograms extracted through the ordinary engine (mesh, element
 * search, interpolation, strain, rotations, time processing), compared with the same Green's
 * function evaluated directly at the source and receiver with no mesh (fullspace.h), projected on
 * the receiver's Z, N, E, and R, T by ObsPy's back-azimuth rotation (forces: Instaseis' opposite
 * R sign). Moment tensors and forces, reciprocal and forward databases. The error relative to
 * each component's peak (measured at the S arrival, where the wavelength is shortest) must fall
 * as the resolution grows; the bounds below are the measured errors with a margin (regression
 * guards), not the 1e-4 the mkdb issue asks at the default resolution (not reached yet:
 * docs/mkdb.md). Forward and reciprocal databases must agree with each other (reciprocity) as
 * closely as each agrees with the closed form. No shared data needed: everything is made here. */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/extract.h"
#include "axibulk/fullspace.h"
#include "axibulk/geometry.h"
#include "axibulk/mkdb.h"
#include "axibulk/timeproc.h"
#include "check.h"
#include "test_util.h"

static const double PI = 3.14159265358979323846;
#define PERIOD 50.0
#define LENGTH 900.0

static axb_status make_db(const char *dir, axb_db_kind kind, axb_dump_type dump, double ppw, double src_depth_km,
                          axb_error *err)
{
    axb_mkdb_opts o;
    axb_mkdb_defaults(&o);
    o.dir = dir;
    o.kind = kind;
    o.dump = dump;
    o.period = PERIOD;
    o.length = LENGTH;
    o.rmin_km = 5000;
    o.points_per_wavelength = ppw;
    o.source_depth_km = kind == AXB_DB_FORWARD ? src_depth_km : 0;
    o.force = true;
    o.progress = false;
    axb_mkdb_result r;
    return axb_mkdb_run(MPI_COMM_WORLD, &o, NULL, &r, err);
}

/* Extracts ZNERT (no shift removal: sample k is at t = k·dt after the start of the database
 * trace, the time axis of the direct solution). */
static axb_status extract(const char *dir, const axb_source *s, const axb_receiver *r, double *out,
                          int64_t *npts, double *dt, axb_error *err)
{
    axb_db *db = NULL;
    axb_extract_plan *p = NULL;
    axb_extract_opts o = AXB_EXTRACT_OPTS_DEFAULT;
    snprintf(o.components, sizeof o.components, "ZNERT");
    o.remove_source_shift = false;
    axb_status st = axb_db_open(MPI_COMM_SELF, dir, &db, err);
    if (!st) st = axb_extract_plan_create(db, &o, &p, err);
    if (!st) {
        *npts = axb_extract_npts(p);
        *dt = axb_extract_dt(p);
        axb_pair_ref pr = {s, r};
        st = axb_extract_pairs(p, 1, &pr, out, err);
    }
    axb_extract_plan_destroy(&p);
    axb_db_close(&db);
    return st;
}

/* The direct solution, projected on Z, N, E, R, T of the receiver. */
static void direct(const axb_source *s, const axb_receiver *r, double src_r, double rec_r, int64_t nt, double dt,
                   double *out)
{
    axb_fs_medium med = {10000, 5770, 3300};
    axb_fs_stf stf;
    axb_fs_stf_from_period_dt(PERIOD, dt, &stf);
    double xs[3], xr[3], Rs[3][3], Rr[3][3];
    axb_geo_cartesian(s->lat, s->lon, src_r, xs);
    axb_geo_cartesian(r->lat, r->lon, rec_r, xr);
    axb_geo_local_basis(s->lon, 90 - s->lat, Rs);
    axb_geo_local_basis(r->lon, 90 - r->lat, Rr);
    double *u = malloc(3 * (size_t)nt * sizeof *u);
    if (s->type == AXB_SRC_MOMENT) {
        /* local (θ, φ, r) tensor into Earth Cartesian */
        const double A[3][3] = {{s->m[1], s->m[5], s->m[3]}, {s->m[5], s->m[2], s->m[4]}, {s->m[3], s->m[4], s->m[0]}};
        double M[3][3];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                M[i][j] = 0;
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++) M[i][j] += Rs[i][a] * A[a][b] * Rs[j][b];
            }
        axb_fs_moment_3d_tf(&med, &stf, AXB_FS_TF_STEP, xs, M, xr, nt, dt, u);
    } else {
        const double fl[3] = {s->f[1], s->f[2], s->f[0]};
        double f[3] = {0, 0, 0};
        for (int i = 0; i < 3; i++)
            for (int a = 0; a < 3; a++) f[i] += Rs[i][a] * fl[a];
        axb_fs_force_3d_tf(&med, &stf, AXB_FS_TF_STEP, xs, f, xr, nt, dt, u);
        /* Instaseis differentiates force seismograms once (numpy.gradient) */
        for (int c = 0; c < 3; c++) axb_gradient(u + c * nt, nt, dt, u + c * nt);
    }
    /* back azimuth (receiver to source, clockwise from north) for R and T as ObsPy rotates */
    const double la = r->lat * PI / 180, lb = s->lat * PI / 180, dl = (s->lon - r->lon) * PI / 180;
    const double baz = atan2(sin(dl) * cos(lb), cos(la) * sin(lb) - sin(la) * cos(lb) * cos(dl));
    for (int64_t t = 0; t < nt; t++) {
        double th = 0, ph = 0, rr = 0;
        for (int i = 0; i < 3; i++) {
            th += u[i * nt + t] * Rr[i][0];
            ph += u[i * nt + t] * Rr[i][1];
            rr += u[i * nt + t] * Rr[i][2];
        }
        const double N = -th, E = ph;
        out[0 * nt + t] = rr;
        out[1 * nt + t] = N;
        out[2 * nt + t] = E;
        out[3 * nt + t] = -E * sin(baz) - N * cos(baz);
        out[4 * nt + t] = -E * cos(baz) + N * sin(baz);
    }
    free(u);
}

/* max |a - b| / max |b| per component, worst of the given components */
static double rel_error(const double *a, const double *b, int64_t nt, const char *comps, const int *sign)
{
    double worst = 0;
    if (getenv("AXB_VERBOSE"))
        for (int c = 0; c < 5; c++) {
            double pk = 0, e = 0;
            int64_t at = 0;
            for (int64_t t = 0; t < nt; t++) pk = fmax(pk, fabs(b[c * nt + t]));
            for (int64_t t = 0; t < nt; t++)
                if (fabs(a[c * nt + t] - sign[c] * b[c * nt + t]) > e) e = fabs(a[c * nt + t] - sign[c] * b[c * nt + t]), at = t;
            printf("   %c peak %.3e err %.3e (rel %.2e) at sample %lld of %lld\n", "ZNERT"[c], pk, e, e / pk, (long long)at, (long long)nt);
        }
    for (int c = 0; c < 5; c++) {
        if (!strchr(comps, "ZNERT"[c])) continue;
        double pk = 0, e = 0;
        for (int64_t t = 0; t < nt; t++) pk = fmax(pk, fabs(b[c * nt + t]));
        for (int64_t t = 0; t < nt; t++) e = fmax(e, fabs(a[c * nt + t] - sign[c] * b[c * nt + t]));
        worst = fmax(worst, e / pk);
    }
    return worst;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    check_ctx T = {0, 0, 0};
    MPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
    char dir[512], db[700];
    if (test_scratch_dir(MPI_COMM_WORLD, "mkdbx", dir, sizeof dir)) MPI_Abort(MPI_COMM_WORLD, 1);
    axb_error err = AXB_ERROR_INIT;
    const double R = 6371e3, depth = 300e3;
    const axb_source mt = {.type = AXB_SRC_MOMENT, .lat = 10, .lon = 20, .depth = depth,
                           .m = {1e18, -3e17, -7e17, 4e17, -2e17, 5e17}, .time_shift = NAN};
    const axb_source fs = {.type = AXB_SRC_FORCE, .lat = 10, .lon = 20, .depth = depth,
                           .f = {1e12, -2e12, 1.5e12}, .time_shift = NAN};
    const axb_receiver rec = {.lat = 25, .lon = 38, .depth = NAN};
    const int same[5] = {1, 1, 1, 1, 1}, force_r[5] = {1, 1, 1, -1, 1};
    static double a[5 * 4096], b[5 * 4096];
    int64_t n = 0;
    double dt = 0;

    /* convergence with resolution (GLL points per S wavelength), reciprocal displ_only */
    const double ppws[3] = {4, 6, 9};
    double err_mt[3] = {1, 1, 1}, err_f[3] = {1, 1, 1};
    for (int k = 0; k < 3; k++) {
        snprintf(db, sizeof db, "%s/recip_%g", dir, ppws[k]);
        axb_status st = make_db(db, AXB_DB_RECIPROCAL, AXB_DUMP_DISPL_ONLY, ppws[k], 0, &err);
        CHECK_MSG(&T, st == AXB_OK, "mkdb: %s", err.msg);
        if (st || T.rank) continue;
        if (!extract(db, &mt, &rec, a, &n, &dt, &err)) {
            direct(&mt, &rec, R - depth, R, n, dt, b);
            err_mt[k] = rel_error(a, b, n, "ZNERT", same);
        } else CHECK_MSG(&T, 0, "extract: %s", err.msg);
        if (!extract(db, &fs, &rec, a, &n, &dt, &err)) {
            direct(&fs, &rec, R - depth, R, n, dt, b);
            err_f[k] = rel_error(a, b, n, "ZNERT", force_r);
        } else CHECK_MSG(&T, 0, "extract: %s", err.msg);
        printf("reciprocal, %g points per wavelength: moment tensor %.2e, force %.2e of peak\n", ppws[k], err_mt[k], err_f[k]);
    }
    if (T.rank == 0) {
        /* measured: moment tensor 1.7e-1, 2.2e-2, 9.5e-3; force 8.0e-3, 5.0e-3, 6.5e-4 */
        CHECK_MSG(&T, err_mt[1] < 0.5 * err_mt[0] && err_mt[2] < 0.7 * err_mt[1], "no convergence (moment tensor)");
        CHECK_MSG(&T, err_f[1] < err_f[0] && err_f[2] < 0.3 * err_f[1], "no convergence (force)");
        CHECK_MSG(&T, err_mt[2] < 1.5e-2 && err_f[2] < 1e-3, "error at 9 points per wavelength: %g, %g", err_mt[2], err_f[2]);
    }

    /* forward database (source at 300 km) and strain_only at the default resolution */
    snprintf(db, sizeof db, "%s/fwd", dir);
    CHECK_MSG(&T, make_db(db, AXB_DB_FORWARD, AXB_DUMP_DISPL_ONLY, 6, depth / 1e3, &err) == AXB_OK, "%s", err.msg);
    if (T.rank == 0) {
        axb_source mtf = mt;
        mtf.depth = NAN;
        if (!extract(db, &mtf, &rec, a, &n, &dt, &err)) {
            direct(&mt, &rec, R - depth, R, n, dt, b);
            double e = rel_error(a, b, n, "ZNERT", same);
            printf("forward, 6 points per wavelength: moment tensor %.2e of peak\n", e);
            CHECK_MSG(&T, e < 5e-2, "forward database vs closed form: %g (measured 3.6e-2)", e);
            /* reciprocity: the reciprocal database at the same resolution gives the same
             * seismogram to within the discretisation errors of both */
            snprintf(db, sizeof db, "%s/recip_6", dir);
            static double c6[5 * 4096];
            int64_t n6;
            double dt6;
            if (!extract(db, &mt, &rec, c6, &n6, &dt6, &err) && n6 == n) {
                double r = rel_error(a, c6, n, "ZNERT", same);
                printf("reciprocity (forward vs reciprocal mkdb databases): %.2e of peak\n", r);
                CHECK_MSG(&T, r < 5e-2, "forward vs reciprocal: %g", r);
            } else CHECK_MSG(&T, 0, "%s", err.msg);
        } else CHECK_MSG(&T, 0, "extract: %s", err.msg);
    }
    test_remove_dir(MPI_COMM_WORLD, dir);
    return test_finish_mpi(&T);
}
