/* Instaseis parity: seismograms from the shared AxiSEM databases against the reference arrays of
 * Instaseis' own test suite (../shared/data/instaseis-reference.json, notes §5.1–5.2), for every
 * database kind and both layouts; and original vs merged layouts against each other.
 * Tolerances are relative to each trace's peak (early samples are numerical noise):
 *   BWD_TEST_DATA 1e-6 (made by an older Instaseis, differs from today's by up to 5.7e-7),
 *   strain-only, force and forward 1e-8, original vs merged layout 1e-12.
 * The force set carries Instaseis' force R sign, the forward set its T sign; both are asserted
 * through these arrays. Further: reciprocity, axis elements, identity resampling, a finite source
 * of one point, and the refusals of §2.2 (more_tests).
 * Skipped (77) without the shared data. */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "axibulk/extract.h"
#include "axibulk/timeproc.h"
#include "check.h"
#include "test_util.h"

static const char *data_dir;

/* Reads the 66 values of key "SET.C" from the flat reference JSON. */
static int ref_array(const char *json, const char *key, double *out)
{
    char pat[96];
    snprintf(pat, sizeof pat, "\"%s\": [", key);
    const char *p = strstr(json, pat);
    if (!p) return -1;
    p += strlen(pat);
    int n = 0;
    while (n < 66) {
        char *end;
        out[n++] = strtod(p, &end);
        p = strchr(end, n < 66 ? ',' : ']');
        if (!p) return -1;
        p++;
    }
    return n;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (fread(b, 1, (size_t)n, f) != (size_t)n) n = 0;
    b[n] = '\0';
    fclose(f);
    return b;
}

static double peak(const double *x, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
    return m;
}

/* Runs one extraction; returns 0 and fills out [5][npts] (ZNERT) on success. */
static int extract_c(check_ctx *T, const char *db_rel, const char *comps, const axb_source *src,
                     const axb_receiver *rec, axb_quantity kind, double *out, int64_t *npts, axb_error *err_out)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", data_dir, db_rel);
    axb_db *db = NULL;
    axb_error err = AXB_ERROR_INIT;
    if (axb_db_open(MPI_COMM_SELF, path, &db, &err)) {
        CHECK_MSG(T, 0, "%s: %s", db_rel, err.msg);
        return -1;
    }
    axb_extract_opts o = AXB_EXTRACT_OPTS_DEFAULT;
    snprintf(o.components, sizeof o.components, "%s", comps);
    o.quantity = kind;
    axb_extract_plan *plan = NULL;
    axb_status st = axb_extract_plan_create(db, &o, &plan, &err);
    if (err_out) *err_out = err;
    if (err_out && st) { /* the caller expects this to fail */
        axb_db_close(&db);
        return -1;
    }
    CHECK_MSG(T, st == AXB_OK, "%s: plan: %s", db_rel, err.msg);
    if (!st) {
        *npts = axb_extract_npts(plan);
        axb_pair_ref pr = {src, rec};
        st = axb_extract_pairs(plan, 1, &pr, out, &err);
        CHECK_MSG(T, st == AXB_OK, "%s: %s", db_rel, err.msg);
    }
    axb_extract_plan_destroy(&plan);
    axb_db_close(&db);
    return st ? -1 : 0;
}

/* One extraction with full options; finite = true sums the single source as a finite source. */
static axb_status run_opts(const char *db_rel, const axb_extract_opts *o, const axb_source *src,
                           const axb_receiver *rec, bool finite, double *out, int64_t *npts, axb_error *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", data_dir, db_rel);
    axb_db *db = NULL;
    axb_status st = axb_db_open(MPI_COMM_SELF, path, &db, err);
    axb_extract_plan *plan = NULL;
    if (!st) st = axb_extract_plan_create(db, o, &plan, err);
    if (!st) {
        *npts = axb_extract_npts(plan);
        axb_pair_ref pr = {src, rec};
        st = finite ? axb_extract_finite(plan, 1, src, rec, out, err) : axb_extract_pairs(plan, 1, &pr, out, err);
    }
    axb_extract_plan_destroy(&plan);
    axb_db_close(&db);
    return st;
}

static int extract(check_ctx *T, const char *db_rel, const axb_source *src, const axb_receiver *rec, axb_quantity kind,
                   double *out, int64_t *npts)
{
    return extract_c(T, db_rel, "ZNERT", src, rec, kind, out, npts, NULL);
}

/* Compares all five components with the reference set; returns the worst relative error. */
static double compare_set(check_ctx *T, const char *json, const char *set, const double *got, int64_t npts, double tol,
                          const char *what)
{
    static const char comps[] = "ZNERT";
    double worst = 0;
    CHECK_MSG(T, npts == 66, "%s: %lld samples", what, (long long)npts);
    if (npts != 66) return INFINITY;
    for (int c = 0; c < 5; c++) {
        char key[64];
        double ref[66];
        snprintf(key, sizeof key, "%s.%c", set, comps[c]);
        CHECK_MSG(T, ref_array(json, key, ref) == 66, "reference %s missing", key);
        double pk = peak(ref, 66), e = 0;
        for (int i = 0; i < 66; i++) e = fmax(e, fabs(got[c * 66 + i] - ref[i]));
        e /= pk;
        worst = fmax(worst, e);
        CHECK_MSG(T, e <= tol, "%s %c: max error %.3g of peak (tolerance %g)", what, comps[c], e, tol);
    }
    if (T->rank == 0) printf("%-44s max error %.2e of peak\n", what, worst);
    return worst;
}

static void compare_layouts(check_ctx *T, const double *a, const double *b, int n, double tol, const char *what)
{
    double e = 0, pk = peak(a, n);
    for (int i = 0; i < n; i++) e = fmax(e, fabs(a[i] - b[i]));
    CHECK_MSG(T, e <= tol * pk, "%s: layouts differ by %.3g of peak", what, e / pk);
}

/* numpy.allclose-style: |a - b| <= atol + rtol |b| everywhere */
static bool allclose(const double *a, const double *b, int64_t n, double rtol, double atol, double *worst)
{
    bool ok = true;
    *worst = 0;
    for (int64_t i = 0; i < n; i++) {
        double d = fabs(a[i] - b[i]);
        ok = ok && d <= atol + rtol * fabs(b[i]);
        *worst = fmax(*worst, d);
    }
    return ok;
}

static void lowpass_all(double *x, int ncomp, int64_t npts, double dt, double freq, int passes)
{
    axb_error err = AXB_ERROR_INIT;
    for (int p = 0; p < passes; p++)
        for (int c = 0; c < ncomp; c++)
            if (axb_lowpass(x + c * npts, npts, 1.0 / dt, freq, 4, false, &err)) abort();
}

/* Reciprocity, axis elements, resampling, finite sources and the refusals of §2.2. */
static void more_tests(check_ctx *T, const char *json, const axb_source *mt_std, const axb_receiver *rec_std)
{
    axb_error err = AXB_ERROR_INIT;
    double a[5 * 512], b[5 * 512], ref[66];
    int64_t na = 0, nb = 0;
    const axb_extract_opts def = AXB_EXTRACT_OPTS_DEFAULT;
    axb_extract_opts o = def;
    snprintf(o.components, sizeof o.components, "ZNERT");

    /* reciprocity (Instaseis test_fwd_vs_bwd): the forward database against the reciprocal one,
     * both low-passed at 0.002 Hz (4 corners, causal); rtol 1e-3, atol 1e-10. As in Instaseis the
     * reciprocal source is at the surface: AxiSEM put the forward run's nominal 12 km source on
     * the nearest GLL point of this coarse mesh, the surface (with the reciprocal source at 12 km
     * the difference grows to ~5 % of the peak at every distance). */
    axb_source s43 = {.type = AXB_SRC_MOMENT,
                      .lat = 4,
                      .lon = 3,
                      .depth = NAN,
                      .m = {4.71e17, 3.81e17, -4.74e17, 3.99e17, -8.05e17, -1.23e17},
                      .time_shift = NAN};
    axb_receiver r1020 = {.lat = 10, .lon = 20, .depth = NAN};
    {
        axb_source sb = s43;
        sb.depth = 0.0;
        axb_status s1 = run_opts("axisem-prem-100s/100s_db_fwd", &o, &s43, &r1020, false, a, &na, &err);
        CHECK_MSG(T, s1 == AXB_OK, "%s", err.msg);
        axb_status s2 = run_opts("axisem-prem-100s/100s_db_bwd_displ_only", &o, &sb, &r1020, false, b, &nb, &err);
        CHECK_MSG(T, s2 == AXB_OK, "%s", err.msg);
        if (!s1 && !s2 && na == nb) {
            lowpass_all(a, 5, na, 24.724845445855724, 0.002, 1);
            lowpass_all(b, 5, nb, 24.724845445855724, 0.002, 1);
            double worst;
            bool ok = allclose(a, b, 5 * na, 1e-3, 1e-10, &worst);
            CHECK_MSG(T, ok, "forward vs reciprocal: max difference %g", worst);
            if (T->rank == 0)
                printf("reciprocity (fwd vs bwd, low-passed)         max |diff| %.2e (peak %.2e)\n", worst,
                       peak(b, 5 * (int)nb));
        }
    }

    /* axis elements: at the GLL points of the mesh's axis elements (GLJ basis in xi, G1), strain
     * computed here from displacement (displ_only database) equals the strain AxiSEM itself stored
     * at the same points (strain_only database of the same run), to its float32 precision; the
     * receiver is at the pole, so the database frame is the Earth frame. Non-axis elements too. */
    {
        char pd[1024], ps[1024];
        snprintf(pd, sizeof pd, "%s/axisem-prem-100s/100s_db_bwd_displ_only", data_dir);
        snprintf(ps, sizeof ps, "%s/axisem-prem-100s/100s_db_bwd_strain_only", data_dir);
        axb_db *dd = NULL, *ds = NULL;
        axb_extract_plan *pdp = NULL, *psp = NULL;
        bool ok = !axb_db_open(MPI_COMM_SELF, pd, &dd, &err) && !axb_db_open(MPI_COMM_SELF, ps, &ds, &err) &&
            !axb_extract_plan_create(dd, &o, &pdp, &err) && !axb_extract_plan_create(ds, &o, &psp, &err);
        CHECK_MSG(T, ok, "%s", err.msg);
        const axb_mesh *m = ok ? axb_db_get_mesh(dd) : NULL;
        int npoints = 0, naxis = 0;
        double worst_axis = 0, worst_other = 0;
        const double R = 6371e3, pi = 3.14159265358979323846;
        for (int64_t e = 0; ok && e < m->nelem; e++) {
            if (!m->axis[e] && e % 31) continue; /* all axis elements, some others */
            for (int i = 1; i <= 3; i++)
                for (int j = 1; j <= 3; j++) {
                    int32_t pt = m->sem[(e * 5 + j) * 5 + i];
                    const double r = hypot(m->s[pt], m->z[pt]);
                    if (R - r > 370e3 || R - r < 1e3) continue;
                    axb_source src = *mt_std;
                    src.lat = 90 - atan2(m->s[pt], m->z[pt]) * 180 / pi;
                    src.lon = 0;
                    src.depth = R - r;
                    axb_receiver pole = {.lat = 90, .lon = 0, .depth = NAN};
                    axb_pair_ref pr = {&src, &pole};
                    int64_t id;
                    double xi, eta;
                    if (axb_extract_where(pdp, &pr, &id, &xi, &eta, &err) || id != e) continue;
                    if (axb_extract_pairs(pdp, 1, &pr, a, &err) || axb_extract_pairs(psp, 1, &pr, b, &err)) {
                        CHECK_MSG(T, 0, "%s", err.msg);
                        continue;
                    }
                    for (int c = 0; c < 5; c++) {
                        const double pk = peak(b + c * 66, 66);
                        double d = 0;
                        for (int k = 0; k < 66; k++) d = fmax(d, fabs(a[c * 66 + k] - b[c * 66 + k]));
                        if (m->axis[e])
                            worst_axis = fmax(worst_axis, d / pk);
                        else
                            worst_other = fmax(worst_other, d / pk);
                    }
                    npoints++;
                    naxis += m->axis[e];
                }
        }
        CHECK_MSG(T, naxis >= 12, "only %d points in axis elements", naxis);
        /* 1e-4: both fields are stored in float32 and the point is found to AxiSEM's 1e-7 mapping
         * tolerance (measured 3e-5); a GLL instead of GLJ basis on axis elements gives >= 5e-2 */
        CHECK_MSG(T, worst_axis <= 1e-4, "axis elements: displ_only vs stored strain differ by %.3g of peak",
                  worst_axis);
        CHECK_MSG(T, worst_other <= 1e-4, "other elements: displ_only vs stored strain differ by %.3g of peak",
                  worst_other);
        if (T->rank == 0)
            printf("strain from displacement vs AxiSEM's stored strain at %d GLL points: axis elements %.1e, others "
                   "%.1e of peak\n",
                   npoints, worst_axis, worst_other);
        axb_extract_plan_destroy(&pdp);
        axb_extract_plan_destroy(&psp);
        axb_db_close(&dd);
        axb_db_close(&ds);
    }

    /* Green's functions against ordinary seismograms (Instaseis test_get_greens_vs_get_seismogram):
     * Z, R, T of a general tensor rebuilt from the ten functions with Minson & Dreger (2008)
     * eqs. (6)-(8) (z up: Mxx = m_tt, Myy = m_pp, Mzz = m_rr, Mxz = m_rt, Myz = m_rp, Mxy = m_tp);
     * rtol 1e-3, atol 1e-10 */
    {
        char pd[1024];
        snprintf(pd, sizeof pd, "%s/axisem-prem-100s/100s_db_bwd_displ_only", data_dir);
        axb_db *dd = NULL;
        int64_t ng = 0;
        static double g[AXB_NGREENS * 256];
        const double Mxx = 1e20, Myy = 0.5e20, Mzz = 0.3e20, Mxz = 0.7e20, Myz = 0.4e20, Mxy = 0.6e20;
        const double azd = 177.0, az = azd * 3.14159265358979323846 / 180;
        bool ok = !axb_db_open(MPI_COMM_SELF, pd, &dd, &err) &&
            !axb_extract_greens(dd, &def, 1000, 20, NULL, &ng, &err) && ng <= 256 &&
            !axb_extract_greens(dd, &def, 1000, 20, g, &ng, &err);
        CHECK_MSG(T, ok, "greens: %s", err.msg);
        axb_db_close(&dd);
        axb_source gs = {.type = AXB_SRC_MOMENT,
                         .lat = 90,
                         .lon = 0,
                         .depth = 1000,
                         .m = {Mzz, Mxx, Myy, Mxz, Myz, Mxy},
                         .time_shift = NAN};
        axb_receiver gr = {.lat = 70, .lon = azd, .depth = NAN};
        axb_extract_opts ozrt = def;
        snprintf(ozrt.components, sizeof ozrt.components, "ZRT");
        if (ok && !run_opts("axisem-prem-100s/100s_db_bwd_displ_only", &ozrt, &gs, &gr, false, a, &na, &err) &&
            na == ng) {
            const double *TSS = g, *ZSS = g + ng, *RSS = g + 2 * ng, *TDS = g + 3 * ng, *ZDS = g + 4 * ng,
                         *RDS = g + 5 * ng, *ZDD = g + 6 * ng, *RDD = g + 7 * ng, *ZEP = g + 8 * ng, *REP = g + 9 * ng;
            const double c2 = cos(2 * az), s2 = sin(2 * az), c1 = cos(az), s1 = sin(az);
            for (int64_t i = 0; i < ng; i++) {
                b[i] = Mxx * (ZSS[i] / 2 * c2 - ZDD[i] / 6 + ZEP[i] / 3) +
                    Myy * (-ZSS[i] / 2 * c2 - ZDD[i] / 6 + ZEP[i] / 3) + Mzz * (ZDD[i] / 3 + ZEP[i] / 3) +
                    Mxy * ZSS[i] * s2 + Mxz * ZDS[i] * c1 + Myz * ZDS[i] * s1;
                b[ng + i] = Mxx * (RSS[i] / 2 * c2 - RDD[i] / 6 + REP[i] / 3) +
                    Myy * (-RSS[i] / 2 * c2 - RDD[i] / 6 + REP[i] / 3) + Mzz * (RDD[i] / 3 + REP[i] / 3) +
                    Mxy * RSS[i] * s2 + Mxz * RDS[i] * c1 + Myz * RDS[i] * s1;
                b[2 * ng + i] = Mxx * TSS[i] / 2 * s2 - Myy * TSS[i] / 2 * s2 - Mxy * TSS[i] * c2 + Mxz * TDS[i] * s1 -
                    Myz * TDS[i] * c1;
            }
            double worst;
            CHECK_MSG(T, allclose(a, b, 3 * ng, 1e-3, 1e-10, &worst), "Green's functions vs seismograms: %g", worst);
            if (T->rank == 0)
                printf("Green's functions vs seismograms             max |diff| %.2e (peak %.2e)\n", worst,
                       peak(a, 3 * (int)ng));
        } else
            CHECK_MSG(T, 0, "greens reference: %s", err.msg);
    }

    /* identity resampling: dt equal to the database's, kernel width 5, reproduces BWD Z */
    axb_extract_opts oz = def;
    snprintf(oz.components, sizeof oz.components, "Z");
    axb_extract_opts oi = oz;
    oi.dt = 24.724845445855724;
    oi.kernelwidth = 5;
    if (!run_opts("axisem-prem-100s/100s_db_bwd_displ_only", &oz, mt_std, rec_std, false, a, &na, &err) &&
        !run_opts("axisem-prem-100s/100s_db_bwd_displ_only", &oi, mt_std, rec_std, false, b, &nb, &err)) {
        CHECK(T, na == 66 && nb == 66);
        compare_layouts(T, a, b, 66, 1e-12, "identity resampling vs none");
        ref_array(json, "BWD_TEST_DATA.Z", ref);
        double e = 0;
        for (int i = 0; i < 66; i++) e = fmax(e, fabs(b[i] - ref[i]));
        CHECK_MSG(T, e <= 1e-6 * peak(ref, 66), "identity resampling vs BWD_TEST_DATA.Z: %g", e / peak(ref, 66));
    } else
        CHECK_MSG(T, 0, "%s", err.msg);

    /* finite source of one point source = that point source reconvolved (test_finite_source):
     * sliprate a low-passed Dirac at the database dt, normalised; dt = db dt / 4, kernel width 1 */
    static double sr[1000];
    memset(sr, 0, sizeof sr);
    sr[0] = 1;
    if (axb_lowpass(sr, 1000, 1.0 / 24.724845445855724, 0.01, 4, false, &err)) CHECK_MSG(T, 0, "%s", err.msg);
    double area = 0;
    for (int i = 0; i < 999; i++) area += 0.5 * (sr[i] + sr[i + 1]) * 24.724845445855724;
    for (int i = 0; i < 1000; i++) sr[i] /= area;
    axb_source fs = *mt_std;
    fs.sliprate = sr;
    fs.nsliprate = 1000;
    fs.dt = 24.724845445855724;
    axb_extract_opts of = def;
    snprintf(of.components, sizeof of.components, "ZNERT");
    of.reconvolve_stf = true;
    of.remove_source_shift = false;
    of.dt = 24.724845445855724 / 4;
    of.kernelwidth = 1;
    axb_status s1 = run_opts("axisem-prem-100s/100s_db_bwd_displ_only", &of, &fs, rec_std, true, a, &na, &err);
    CHECK_MSG(T, s1 == AXB_OK, "finite: %s", err.msg);
    axb_status s2 = run_opts("axisem-prem-100s/100s_db_bwd_displ_only", &of, &fs, rec_std, false, b, &nb, &err);
    CHECK_MSG(T, s2 == AXB_OK, "reconvolved point source: %s", err.msg);
    if (!s1 && !s2) {
        CHECK(T, na == nb && na > 66 * 4);
        compare_layouts(T, a, b, (int)(5 * na), 1e-12, "finite source of one point vs reconvolved point source");
    }
    /* through the library too, a rupture time the reconvolution's circular shift would wrap
     * (1e6 s, beyond any record of this database) or a negative one is refused, naming it */
    const double bad_ts[] = {1e6, -10.0, INFINITY};
    for (int k = 0; k < 3; k++) {
        axb_source late = fs;
        late.time_shift = bad_ts[k];
        axb_error_clear(&err);
        CHECK_MSG(T,
                  run_opts("axisem-prem-100s/100s_db_bwd_displ_only", &of, &late, rec_std, true, a, &na, &err) ==
                      AXB_ERR_RANGE,
                  "rupture time %g accepted", bad_ts[k]);
        CHECK_CONTAINS(T, err.msg, "point source 0: ");
        CHECK_CONTAINS(T, err.msg, "rupture time");
    }

    /* refusals of §2.2, each a clear message */
    axb_source deep = *mt_std;
    deep.depth = 1000e3;
    CHECK(T,
          run_opts("axisem-prem-100s/100s_db_bwd_displ_only", &o, &deep, rec_std, false, a, &na, &err) ==
              AXB_ERR_RANGE);
    CHECK_CONTAINS(T, err.msg, "source too deep: depth 1000.0 km");
    axb_source above = *mt_std;
    above.depth = -5000;
    CHECK(T,
          run_opts("axisem-prem-100s/100s_db_bwd_displ_only", &o, &above, rec_std, false, a, &na, &err) ==
              AXB_ERR_RANGE);
    CHECK_CONTAINS(T, err.msg, "source too shallow");
    axb_extract_opts big = o;
    big.dt = 30;
    CHECK(T, run_opts("axisem-prem-100s/100s_db_bwd_displ_only", &big, mt_std, rec_std, false, a, &na, &err) != AXB_OK);
    CHECK_CONTAINS(T, err.msg, "24.725");
    axb_source f = {.type = AXB_SRC_FORCE, .lat = 89.91, .lon = 0, .depth = 12000, .f = {1, 2, 3}, .time_shift = NAN};
    CHECK(T,
          run_opts("axisem-prem-100s/100s_db_bwd_strain_only", &o, &f, rec_std, false, a, &na, &err) ==
              AXB_ERR_UNSUPPORTED);
    CHECK_CONTAINS(T, err.msg, "force sources need a displ_only database");
    CHECK(T, run_opts("axisem-prem-100s/100s_db_fwd", &o, &f, rec_std, false, a, &na, &err) == AXB_ERR_UNSUPPORTED);
    axb_source nanlat = *mt_std;
    nanlat.lat = NAN;
    CHECK(T,
          run_opts("axisem-prem-100s/100s_db_bwd_displ_only", &o, &nanlat, rec_std, false, a, &na, &err) ==
              AXB_ERR_RANGE);
    CHECK_CONTAINS(T, err.msg, "source position is not finite");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    check_ctx T = {0, 0, 0};
    MPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
    data_dir = argc > 1 ? argv[1] : "../shared/data";
    char jp[1024];
    snprintf(jp, sizeof jp, "%s/instaseis-reference.json", data_dir);
    char *json = slurp(jp);
    if (!json) {
        if (T.rank == 0) printf("shared data not found at %s: skipped\n", data_dir);
        MPI_Finalize();
        return CHECK_SKIP;
    }
    /* the standard geometry of the reference tests (notes §5.1) */
    axb_source mt = {.type = AXB_SRC_MOMENT,
                     .lat = 89.91,
                     .lon = 0.0,
                     .depth = 12000.0,
                     .m = {4.71e17, 3.81e15, -4.74e17, 3.99e16, -8.05e16, -1.23e17},
                     .time_shift = NAN};
    axb_source mt_fwd = mt;
    mt_fwd.depth = NAN;
    axb_source force = {.type = AXB_SRC_FORCE,
                        .lat = 89.91,
                        .lon = 0.0,
                        .depth = 12000.0,
                        .f = {1.23e10, 2.55e10, 1.73e10},
                        .time_shift = NAN};
    axb_receiver rec = {.lat = 42.6390, .lon = 74.4940, .depth = NAN};

    double a[5 * 128], b[5 * 128];
    int64_t na = 0, nb = 0;
    if (!extract(&T, "axisem-prem-100s/100s_db_bwd_displ_only", &mt, &rec, AXB_QUANTITY_DISPLACEMENT, a, &na))
        compare_set(&T, json, "BWD_TEST_DATA", a, na, 1e-6, "bwd displ_only, original");
    if (!extract(&T, "instaseis-merged/100s_db_bwd_displ_only", &mt, &rec, AXB_QUANTITY_DISPLACEMENT, b, &nb)) {
        compare_set(&T, json, "BWD_TEST_DATA", b, nb, 1e-6, "bwd displ_only, merged");
        if (na == nb) compare_layouts(&T, a, b, (int)(5 * na), 1e-12, "bwd original vs merged");
    }
    /* a vertical-only database serves Z (equal to the full database's) and refuses N */
    axb_error e = AXB_ERROR_INIT;
    if (!extract_c(&T, "instaseis-merged/100s_db_bwd_vertical_only", "Z", &mt, &rec, AXB_QUANTITY_DISPLACEMENT, b, &nb,
                   NULL))
        compare_layouts(&T, a, b, (int)nb, 1e-12, "vertical-only merged vs full original, Z");
    CHECK(&T,
          extract_c(&T, "instaseis-merged/100s_db_bwd_vertical_only", "ZN", &mt, &rec, AXB_QUANTITY_DISPLACEMENT, b,
                    &nb, &e) != 0);
    CHECK_CONTAINS(&T, e.msg, "component N needs the PX simulation");
    if (!extract(&T, "axisem-prem-100s/100s_db_bwd_strain_only", &mt, &rec, AXB_QUANTITY_DISPLACEMENT, a, &na))
        compare_set(&T, json, "BWD_STRAIN_ONLY_TEST_DATA", a, na, 1e-8, "bwd strain_only");
    if (!extract(&T, "axisem-prem-100s/100s_db_bwd_displ_only", &force, &rec, AXB_QUANTITY_VELOCITY, a, &na))
        compare_set(&T, json, "BWD_FORCE_TEST_DATA", a, na, 1e-8, "bwd force (velocity), original");
    if (!extract(&T, "instaseis-merged/100s_db_bwd_displ_only", &force, &rec, AXB_QUANTITY_VELOCITY, b, &nb)) {
        compare_set(&T, json, "BWD_FORCE_TEST_DATA", b, nb, 1e-8, "bwd force (velocity), merged");
        if (na == nb) compare_layouts(&T, a, b, (int)(5 * na), 1e-12, "force original vs merged");
    }
    if (!extract(&T, "axisem-prem-100s/100s_db_fwd", &mt_fwd, &rec, AXB_QUANTITY_DISPLACEMENT, a, &na))
        compare_set(&T, json, "FWD_TEST_DATA", a, na, 1e-8, "fwd, original");
    if (!extract(&T, "instaseis-merged/100s_db_fwd", &mt_fwd, &rec, AXB_QUANTITY_DISPLACEMENT, b, &nb)) {
        compare_set(&T, json, "FWD_TEST_DATA", b, nb, 1e-8, "fwd, merged");
        if (na == nb) compare_layouts(&T, a, b, (int)(5 * na), 1e-12, "fwd original vs merged");
    }
    more_tests(&T, json, &mt, &rec);
    free(json);
    return test_finish_mpi(&T);
}
