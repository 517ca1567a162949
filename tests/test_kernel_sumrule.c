/* Sum rules and finite differences of travel-time kernels in a homogeneous full space
 * (docs/kernels.md §7). `axibulk mkdb` makes a forward database (event at depth) and a reciprocal
 * one (receiver buried at the same depth, so the whole sensitivity lies inside the stored ball),
 * both of a small "planet" (R = 700 km, 16 points per wavelength) to keep them small; the receiver
 * is 170° from the event (598 km of ray, 3.5 P wavelengths). Voxels cover the whole ball, so every
 * Fresnel zone is inside. Band-pass 12–22 s (a lowpass keeps the static and near-field parts of
 * step-source seismograms, whose sensitivity reaches far beyond any finite mesh).
 *
 * - Sum rule: a uniform relative change ε of vp delays the direct P wave by −ε T_P, so
 *   ∫ K_vp dV over the grid = −T_P (P window, Z component); ∫ K_vs dV = −T_S (S window, T
 *   component, SH). Bound 1 % and within 3 Monte Carlo error estimates + 0.3 % (the near-field
 *   terms make the exact first-order delay differ from ε T by a few 1e-3, docs §7).
 * - Finite differences: the delay between the closed-form seismograms (fullspace.h) for vp and
 *   vp·(1+ε) (resp. vs), filtered and windowed exactly as the kernel's measurement, found by
 *   maximising their cross-correlation (band-limited Fourier shift, Newton steps), divided by ε,
 *   equals ∫ K dV within 3 % (the trace's delay against itself in the window subtracted).
 *   Amplitude kernels are not checked this way: for a uniform velocity change their integral
 *   comes from the radiation at the source and receiver alone, which no database at this
 *   resolution holds (docs §11); their weights are checked in tests/unit/test_kernel_math.c.
 * - The reference seismogram the engine writes equals the closed form filtered the same way
 *   (1e-3 of its peak).
 * Two ranks; rank independence is checked in test_kernel_engine. */
#include <complex.h>
#include <fftw3.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/filter.h"
#include "axibulk/geometry.h"
#include "axibulk/kernel.h"
#include "axibulk/mkdb.h"
#include "check.h"
#include "numerics/fullspace.h"
#include "support/cc_delay.h"
#include "test_util.h"

#define PERIOD 10.0
#define DT 2.5
#define LENGTH 215.0
#define RADIUS_KM 700.0
#define RMIN_KM 5.0
#define DEPTH_KM 400.0
#define SEP_DEG 170.0
#define PPW 16.0
#define EPS 1e-3
#define WIN_BEFORE 45.0
#define WIN_AFTER 50.0
#define MAX_POINTS 512
/* around the ray: source at longitude 0, receiver at SEP_DEG, both on the equator */
#define GRID                                                                                                           \
    (axb_voxel_grid)                                                                                                   \
    {                                                                                                                  \
        .lat_min = -90, .lat_max = 90, .lon_min = -172.5, .lon_max = 187.5, .depth_min_km = 10, .depth_max_km = 690,   \
        .nlat = 11, .nlon = 24, .ndepth = 12                                                                           \
    }

static axb_status make_db(const char *dir, axb_db_kind kind, axb_error *err)
{
    axb_mkdb_opts o;
    axb_mkdb_defaults(&o);
    o.dir = dir;
    o.kind = kind;
    o.period = PERIOD;
    o.length = LENGTH;
    o.dt = DT;
    o.radius_km = RADIUS_KM;
    o.rmin_km = RMIN_KM;
    o.points_per_wavelength = PPW;
    o.source_depth_km = DEPTH_KM;
    o.force = true;
    axb_mkdb_result r;
    return axb_mkdb_run(MPI_COMM_WORLD, &o, NULL, &r, err);
}

/* The measurement of a kernel on a closed-form seismogram: filtered as the engine filters it. */
typedef struct meas {
    axb_filter_spec filter;
    double t1, t2; /* after the origin */
    char comp;
} meas;

/* Closed-form displacement of the event at the receiver, projected on the component, for medium
 * med; origin at sample ref (the databases' source shift). */
static void seismogram(const axb_fs_medium *med, double shift, axb_fs_tf tf, const double src[3], const double M[3][3],
                       const double rec[3], const double dir[3], int64_t nt, double *u)
{
    axb_fs_stf stf = {PERIOD / 3.5, shift};
    double *w = malloc(3 * (size_t)nt * sizeof *w);
    axb_fs_moment_3d_tf(med, &stf, tf, src, M, rec, nt, DT, w);
    for (int64_t t = 0; t < nt; t++) u[t] = dir[0] * w[t] + dir[1] * w[nt + t] + dir[2] * w[2 * nt + t];
    free(w);
}

/* The filtered impulse response from the closed form with the Gaussian moment-rate history g of
 * width σ centred on the origin: u_g / ĝ with ĝ(f) = e^{−(πσf)²} the Gaussian's analytic spectrum
 * (its delay kept: the origin stays where it is), times the filter's H(f); zero-padded 8×. */
static void filt_deconvolved(const axb_filter_spec *f, double sigma, int64_t nt, double *u)
{
    const int64_t nfft = 8 * nt, nf = nfft / 2 + 1;
    double *r = fftw_malloc((size_t)nfft * sizeof *r);
    fftw_complex *X = fftw_malloc((size_t)nf * sizeof *X);
    fftw_plan p = fftw_plan_dft_r2c_1d((int)nfft, r, X, FFTW_ESTIMATE),
              q = fftw_plan_dft_c2r_1d((int)nfft, X, r, FFTW_ESTIMATE);
    axb_filter_plan *fp = NULL;
    axb_error err = AXB_ERROR_INIT;
    if (axb_filter_plan_create(f, nt, DT, &fp, &err) == AXB_OK) {
        memset(r, 0, (size_t)nfft * sizeof *r);
        memcpy(r, u, (size_t)nt * sizeof *r);
        fftw_execute(p);
        for (int64_t k = 0; k < nf; k++) {
            const double fk = (double)k / ((double)nfft * DT), g = exp(-pow(acos(-1.0) * sigma * fk, 2));
            double re, im;
            axb_filter_plan_response(fp, fk, &re, &im);
            X[k] *= (re + I * im) / g;
            if (k == nf - 1) X[k] = creal(X[k]);
        }
        fftw_execute(q);
        for (int64_t n = 0; n < nt; n++) u[n] = r[n] / (double)nfft;
    }
    axb_filter_plan_destroy(&fp);
    fftw_destroy_plan(p);
    fftw_destroy_plan(q);
    fftw_free(r);
    fftw_free(X);
}

/* Filter in place with the engine's filter (the same plan `axibulk extract` uses). */
static void filt(const axb_filter_spec *f, int64_t nt, double *u)
{
    axb_filter_plan *fp = NULL;
    axb_error err = AXB_ERROR_INIT;
    if (axb_filter_plan_create(f, nt, DT, &fp, &err) == AXB_OK) {
        if (axb_filter_apply(fp, u, &err) != AXB_OK) fprintf(stderr, "%s\n", err.msg);
    }
    axb_filter_plan_destroy(&fp);
}

/* One event and its kernels: the sum rule for the travel-time kernels (expected −T), the finite
 * differences for every kernel, and the engine's reference seismograms against the closed form. */
typedef struct scase {
    const char *what;
    double m[6];     /* rr tt pp rt rp tp, N·m */
    char comp;       /* component */
    bool p_wave;     /* vp and the P window, else vs and the S window */
    double t_expect; /* −T of the sum rule */
    bool deconvolve; /* stf: deconvolve (the filtered impulse response) instead of the database's */
} scase;

static void run_case(check_ctx *T, const scase *sc, const char *fdir, const char *bdir, int rank)
{
    axb_mkdb_opts d;
    axb_mkdb_defaults(&d);
    const double R = RADIUS_KM * 1e3, r0 = R - DEPTH_KM * 1e3;
    axb_receiver rec = {.lat = 0, .lon = SEP_DEG, .depth = DEPTH_KM * 1e3};
    snprintf(rec.network, sizeof rec.network, "XX");
    snprintf(rec.station, sizeof rec.station, "R1");
    axb_kernel_job job;
    axb_kernel_job_defaults(&job);
    snprintf(job.fwd_db, sizeof job.fwd_db, "%s", fdir);
    snprintf(job.bwd_db, sizeof job.bwd_db, "%s", bdir);
    job.event.type = AXB_SRC_MOMENT;
    job.event.lat = 0, job.event.lon = 0, job.event.depth = DEPTH_KM * 1e3;
    memcpy(job.event.m, sc->m, sizeof sc->m);
    job.receivers = &rec;
    job.nreceivers = 1;
    const double L = 2 * r0 * sin(SEP_DEG / 2 * acos(-1.0) / 180);
    const double Tarr = sc->p_wave ? L / d.vp : L / d.vs;
    axb_kernel_def k[2];
    memset(k, 0, sizeof k);
    for (int i = 0; i < 2; i++) {
        /* a band-pass: the static and near-field parts of step-source seismograms (which a lowpass
         * keeps) spread the sensitivity far beyond any finite mesh */
        k[i].filter.kind = AXB_FILTER_BANDPASS;
        k[i].filter.f1 = 1.0 / (2.2 * PERIOD);
        k[i].filter.f2 = 1.0 / (1.2 * PERIOD);
        k[i].filter.order = 6;
        k[i].filter.zerophase = true;
        k[i].receiver = 0;
        k[i].component = sc->comp;
        k[i].t1 = Tarr - WIN_BEFORE, k[i].t2 = Tarr + WIN_AFTER;
        k[i].misfit = i ? AXB_MISFIT_AM : AXB_MISFIT_CC;
        k[i].params = sc->p_wave ? 1u << AXB_KP_VP : 1u << AXB_KP_VS;
        snprintf(k[i].name, sizeof k[i].name, "%s_%s", sc->what, i ? "am" : "cc");
    }
    job.kernels = k;
    job.nkernels = 1; /* the amplitude kernel k[1] is not checked here (see below) */
    job.mesh.kind = AXB_KMESH_VOXELS;
    job.mesh.grid = GRID;
    job.points_per_step = 8;
    job.max_points = MAX_POINTS;
    job.stf = sc->deconvolve ? AXB_KSTF_DECONVOLVE : AXB_KSTF_DATABASE;
    job.rel_error = 2e-2;
    job.abs_error = 0.15;
    axb_kernel_stats ks = {0};
    axb_kernel_run_opts ro = {.progress = getenv("AXB_DEBUG") && rank == 0 ? stderr : NULL, .stats = &ks};
    axb_kernel_result res;
    axb_error err = AXB_ERROR_INIT;
    axb_status st = axb_kernel_run(MPI_COMM_WORLD, &job, &ro, &res, &err);
    if (!st && rank == 0 && getenv("AXB_DEBUG"))
        printf("%s: %.1f s; summed over ranks: locate %.1f read %.1f strain %.1f fft %.1f integrate %.1f wait %.1f "
               "checkpoint %.1f total %.1f s; element reads %lld + %lld\n",
               sc->what, ks.seconds, ks.t_locate, ks.t_read, ks.t_strain, ks.t_fft, ks.t_integrate, ks.t_wait,
               ks.t_checkpoint, ks.t_total, (long long)ks.element_reads[0], (long long)ks.element_reads[1]);
    CHECK_MSG(T, st == AXB_OK, "%s kernel run: %s", sc->what, err.msg);
    if (st) return;
    const int64_t ncell = res.mesh->ncell;
    double sigma[1] = {0}, pts = 0;
    for (int64_t i = 0; i < ncell; i++) pts += (double)res.npoints[i];
    for (int c = 0; c < 1; c++) {
        for (int64_t i = 0; i < ncell; i++) sigma[c] += res.error[c * ncell + i] * res.error[c * ncell + i];
        sigma[c] = sqrt(sigma[c]);
        if (rank == 0 && getenv("AXB_DEBUG"))
            for (int64_t i = 0; i < ncell; i++)
                if (res.error[c * ncell + i] > 0.2 * sigma[c])
                    printf("  cell %lld: %.4g +- %.3g (%lld points)\n", (long long)i, res.value[c * ncell + i],
                           res.error[c * ncell + i], (long long)res.npoints[i]);
    }
    if (rank == 0 && getenv("AXB_DEBUG")) {
        int64_t hist[4] = {0};
        for (int64_t i = 0; i < ncell; i++)
            hist[res.npoints[i] <= 16 ? 0 : res.npoints[i] < MAX_POINTS ? 1 : res.npoints[i] == MAX_POINTS ? 2 : 3]++;
        printf("cells with <=16 points %lld, <max %lld, =max %lld, more %lld\n", (long long)hist[0], (long long)hist[1],
               (long long)hist[2], (long long)hist[3]);
    }
    if (rank == 0)
        printf("%s: %lld cells, %.0f points; travel time %.4f s; CC integral %.5g +- %.3g\n", sc->what,
               (long long)ncell, pts, Tarr, res.integral[0], sigma[0]);
    /* sum rule */
    const double dev = fabs(res.integral[0] + Tarr);
    CHECK_MSG(T, dev < 0.01 * Tarr, "%s sum rule: %.5g vs %.5g", sc->what, res.integral[0], -Tarr);
    CHECK_MSG(T, dev < 3 * sigma[0] + 0.003 * Tarr, "%s sum rule: deviation %.3g beyond the error estimate %.3g",
              sc->what, dev, sigma[0]);
    CHECK_MSG(T, sigma[0] < 0.01 * Tarr, "%s: error estimate %.3g above 1 %%", sc->what, sigma[0]);

    /* finite differences on the closed form, measured as the kernels measure */
    axb_fs_stf stf;
    axb_fs_stf_from_period_dt(PERIOD, DT, &stf);
    const int64_t nt = (int64_t)ceil(LENGTH / DT - 1e-9) + 1, ref = (int64_t)llround(stf.t0 / DT);
    double src[3], rx[3], Ls[3][3], Lr[3][3];
    axb_geo_cartesian(0, 0, r0, src);
    axb_geo_cartesian(rec.lat, rec.lon, r0, rx);
    axb_geo_local_basis(0, 90, Ls);
    axb_geo_local_basis(rec.lon, 90 - rec.lat, Lr);
    const double *m = sc->m;
    const double Ml[3][3] = {{m[1], m[5], m[3]}, {m[5], m[2], m[4]}, {m[3], m[4], m[0]}};
    double M[3][3] = {{0}};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) M[a][b] += Ls[a][i] * Ml[i][j] * Ls[b][j];
    /* R points away from the source: +φ̂ on the equator east of it; T = R × up = −θ̂... here
     * computed from the vectors */
    const double up[3] = {Lr[0][2], Lr[1][2], Lr[2][2]}, east[3] = {Lr[0][1], Lr[1][1], Lr[2][1]};
    const double Tdir[3] = {east[1] * up[2] - east[2] * up[1], east[2] * up[0] - east[0] * up[2],
                            east[0] * up[1] - east[1] * up[0]};
    const double *dir = sc->comp == 'Z' ? up : Tdir;
    double *u0 = malloc((size_t)nt * sizeof *u0), *u1 = malloc((size_t)nt * sizeof *u1);
    axb_fs_medium m0 = {d.vp, d.vs, d.rho}, m1 = m0;
    if (sc->p_wave)
        m1.vp *= 1 + EPS;
    else
        m1.vs *= 1 + EPS;
    const axb_fs_tf tf = sc->deconvolve ? AXB_FS_TF_RATE : AXB_FS_TF_STEP;
    seismogram(&m0, stf.t0, tf, src, M, rx, dir, nt, u0);
    seismogram(&m1, stf.t0, tf, src, M, rx, dir, nt, u1);
    if (sc->deconvolve) {
        filt_deconvolved(&k[0].filter, stf.sigma, nt, u0);
        filt_deconvolved(&k[0].filter, stf.sigma, nt, u1);
    } else {
        filt(&k[0].filter, nt, u0);
        filt(&k[0].filter, nt, u1);
    }
    const int64_t n0 = (int64_t)ceil((k[0].t1 + stf.t0) / DT - 1e-9);
    const int64_t n1 = (int64_t)floor((k[0].t2 + stf.t0) / DT + 1e-9);
    double ratio, r00;
    /* a window that cuts a wavelet short biases the cross-correlation of a trace with itself; the
     * delay is measured against that */
    const double tau00 = axb_test_cc_delay(u0, u0, nt, DT, n0, n1, &r00);
    const double fd = (axb_test_cc_delay(u0, u1, nt, DT, n0, n1, &ratio) - tau00) / EPS;
    if (rank == 0) printf("%s: finite differences: delay/eps %.5g (kernel %.5g)\n", sc->what, fd, res.integral[0]);
    CHECK_MSG(T, fabs(res.integral[0] - fd) < 0.03 * fabs(fd), "%s CC: kernel %.5g vs finite difference %.5g", sc->what,
              res.integral[0], fd);
    /* the engine's reference seismogram is the closed form, filtered */
    double peak = 0, dmax = 0;
    /* deconvolved: the record's end (a step-source trace ends on its static offset) rings through the
     * derivative in 1/ŝ; compare up to three long periods before it, and allow for the engine's
     * source spectrum coming from the stored (float32) STF where this test's is analytic */
    const int64_t nend = sc->deconvolve ? nt - ref - (int64_t)(3.0 / k[0].filter.f1 / DT) : res.seis_npts;
    const double seis_tol = sc->deconvolve ? 3e-3 : 2e-3;
    for (int64_t n = 0; n < nend && n < res.seis_npts && n + ref < nt; n++) {
        peak = fmax(peak, fabs(u0[n + ref]));
        dmax = fmax(dmax, fabs(res.seismogram[n] - u0[n + ref]));
    }
    CHECK_MSG(T, peak > 0 && dmax < seis_tol * peak, "%s: reference seismogram off by %.3g of its peak", sc->what,
              dmax / peak);
    free(u0);
    free(u1);
    axb_kernel_result_free(&res);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    check_ctx T = {0, 0, rank};
    char tmp[512], fdir[600], bdir[600];
    CHECK(&T, test_scratch_dir(MPI_COMM_WORLD, "ksum", tmp, sizeof tmp) == 0);
    snprintf(fdir, sizeof fdir, "%s/fwd", tmp);
    snprintf(bdir, sizeof bdir, "%s/bwd", tmp);
    axb_error err = AXB_ERROR_INIT;
    axb_status st = make_db(fdir, AXB_DB_FORWARD, &err);
    if (!st) st = make_db(bdir, AXB_DB_RECIPROCAL, &err);
    CHECK_MSG(&T, st == AXB_OK, "mkdb: %s", err.msg);
    if (!st) {
        /* an explosion radiates P only; this double couple radiates SH at the receiver (the
         * equatorial plane is the ray plane, T = ±θ̂) and has P nodal there */
        const scase P = {"P", {1e17, 1e17, 1e17, 0, 0, 0}, 'Z', true, 0, false};
        const scase S = {"S", {0, 0, 0, -1e17, 0, 1e17}, 'T', false, 0, false};
        const scase Pd = {"P-deconvolved", {1e17, 1e17, 1e17, 0, 0, 0}, 'Z', true, 0, true};
        run_case(&T, &P, fdir, bdir, rank);
        run_case(&T, &S, fdir, bdir, rank);
        run_case(&T, &Pd, fdir, bdir, rank);
    }
    test_remove_dir(MPI_COMM_WORLD, tmp);
    return test_finish_mpi(&T);
}
