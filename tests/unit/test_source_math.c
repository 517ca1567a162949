/* Source arithmetic (src/numerics/source_math.c) against closed forms derived here and values of
 * Instaseis' own functions. "Instaseis" literals below were printed by instaseis/source.py and
 * instaseis/helpers.py (krischer/instaseis at dc9d4f1, numpy 1.24, ObsPy stubbed out since these
 * functions only use numpy/math), e.g.
 *   python3 -c "from instaseis.helpers import elliptic_to_geocentric_latitude as f; print(repr(f(45.0)))"
 * No shared data is needed; argv[1] is ignored. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/source.h"
#include "check.h"

#define CHECK_REL(T, a, b, rtol) CHECK_CLOSE(T, a, b, (rtol)*fabs((double)(b)))

static const double PI = 3.14159265358979323846;

/* Geocentric latitude from its definition: tan ψ = (b²/a²) tan φ on the WGS84 ellipsoid (the
 * direction from the centre to the point), written independently of the e² form in the library. */
static double geocentric_ref(double geographic)
{
    const double a = 6378137.0, b = 6356752.314245;
    return atan((b / a) * (b / a) * tan(geographic * PI / 180.0)) * 180.0 / PI;
}

static void test_latitude(check_ctx *t)
{
    /* Instaseis' doctests: 45 -> 44.80757678401642, inverse 45 -> 45.19242321598358. */
    CHECK_CLOSE(t, axb_geocentric_latitude(45.0), 44.80757678401642, 1e-12);
    CHECK_CLOSE(t, axb_geocentric_latitude(-45.0), -44.80757678401642, 1e-12);
    CHECK_CLOSE(t, axb_geographic_latitude(45.0), 45.19242321598358, 1e-12);
    /* Instaseis values used by the QuakeML/StationXML tests of test_inputs.c. */
    CHECK_CLOSE(t, axb_geocentric_latitude(36.97), 36.78525816408388, 1e-12);
    CHECK_CLOSE(t, axb_geographic_latitude(89.91), 89.91060249321797, 1e-12);
    for (double lat = -89.5; lat <= 89.5; lat += 0.5) {
        CHECK_CLOSE(t, axb_geocentric_latitude(lat), geocentric_ref(lat), 1e-11);
        CHECK_CLOSE(t, axb_geographic_latitude(axb_geocentric_latitude(lat)), lat, 1e-11);
        /* geocentric latitudes are closer to the equator, by at most ~0.19° (at 45°) */
        if (lat != 0) CHECK(t, fabs(axb_geocentric_latitude(lat)) < fabs(lat));
        CHECK(t, fabs(axb_geocentric_latitude(lat) - lat) < 0.193);
    }
    /* pass-through band of 1e-6° at the equator and the poles, exact */
    const double same[] = {0.0, 90.0, -90.0, 5e-7, -5e-7, 90.0 - 5e-7, -90.0 + 5e-7};
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        CHECK(t, axb_geocentric_latitude(same[i]) == same[i]);
        CHECK(t, axb_geographic_latitude(same[i]) == same[i]);
    }
}

static void check_tensor(check_ctx *t, const double m[6], const double ref[6], double atol)
{
    for (int c = 0; c < 6; c++) CHECK_CLOSE(t, m[c], ref[c], atol);
}

static void test_strike_dip_rake(check_ctx *t)
{
    const double M0 = 1e19, atol = 1e-15 * M0; /* cos(π/2) ≈ 6e-17, not 0, in doubles */
    double m[6];

    /* Vertical strike-slip on a N-S fault (strike 0, dip 90, rake 0): slip northwards on a plane
     * with normal east. In NED, Mxy = M0 and all else 0 (Aki & Richards 4.88 with δ = 90°, λ = 0,
     * φ = 0: Mxy = M0 cos2φ). (r, θ, φ) = (up, south, east): Mtp = −Mxy = −M0. */
    axb_moment_from_strike_dip_rake(0, 90, 0, M0, m);
    check_tensor(t, m, (const double[6]){0, 0, 0, 0, 0, -M0}, atol);
    /* The same on an E-W fault (strike 90): cos2φ = −1, so Mxy = −M0 and Mtp = +M0. */
    axb_moment_from_strike_dip_rake(90, 90, 0, M0, m);
    check_tensor(t, m, (const double[6]){0, 0, 0, 0, 0, M0}, atol);

    /* 45° thrust on a N-striking fault (dip 45° to the east, rake 90): φ = 0, sin2δ = 1, sinλ = 1,
     * cosλ = 0, so m_rr = M0 sin2δ sinλ = M0 (vertical extension), m_pp = −M0 sin2δ cos²φ sinλ
     * = −M0 (E-W shortening), m_tt = −M0 sin2δ sin²φ sinλ = 0, and the off-diagonal terms carry
     * cos2δ = 0 or cosλ = 0 or sin2φ = 0. */
    axb_moment_from_strike_dip_rake(0, 45, 90, M0, m);
    check_tensor(t, m, (const double[6]){M0, 0, -M0, 0, 0, 0}, atol);

    /* 45° normal fault striking east (dip 45 to the south, rake −90): N-S extension, vertical
     * shortening: m_rr = −M0, m_tt (south-south) = +M0, the rest 0. */
    axb_moment_from_strike_dip_rake(90, 45, -90, M0, m);
    check_tensor(t, m, (const double[6]){-M0, M0, 0, 0, 0, 0}, atol);

    /* Instaseis' docstring example from_strike_dip_rake(strike 79, dip 10, rake 20, M0 1e17),
     * full precision from running it: */
    axb_moment_from_strike_dip_rake(79, 10, 20, 1e17, m);
    const double ref[6] = {1.16977778440511e+16,   -1.7384561518645494e+16, 5686783674594394.0,
                           -4.920667030548107e+16, 8.470892403465307e+16,   1.2938374674435482e+16};
    for (int c = 0; c < 6; c++) CHECK_REL(t, m[c], ref[c], 1e-13);

    /* A double couple has the scalar moment it was built with, whatever the angles; trace 0. */
    for (int k = 0; k < 200; k++) {
        const double strike = 360.0 * k / 200.0, dip = 90.0 * ((k * 37) % 200) / 200.0,
                     rake = -180.0 + 360.0 * ((k * 53) % 200) / 200.0;
        axb_moment_from_strike_dip_rake(strike, dip, rake, 3.3e18, m);
        CHECK_REL(t, axb_moment_m0(m), 3.3e18, 1e-14);
        CHECK_CLOSE(t, m[0] + m[1] + m[2], 0.0, 1e-14 * 3.3e18);
    }
}

static void test_moment(check_ctx *t)
{
    /* M0 = sqrt(Σ diag² + 2 Σ off²)/√2: for diag (1,2,3) and off (4,5,6):
     * (1 + 4 + 9 + 2(16 + 25 + 36)) / 2 = (14 + 154)/2 = 84 -> sqrt(84). */
    CHECK_CLOSE(t, axb_moment_m0((const double[6]){1, 2, 3, 4, 5, 6}), sqrt(84.0), 1e-14);
    /* Mw = 2/3 (log10 M0 − 9.1): 1e17 -> 2/3·7.9 = 5.2666…, 10^(1.5·6+9.1) -> 6 */
    CHECK_CLOSE(t, axb_moment_mw(1e17), 2.0 / 3.0 * 7.9, 1e-14);
    CHECK_CLOSE(t, axb_moment_mw(pow(10.0, 18.1)), 6.0, 1e-13);
    CHECK(t, isinf(axb_moment_mw(0.0)) && axb_moment_mw(0.0) < 0);
    /* Instaseis' standard source (§5.1): Mw 5.73 in its printout, M0 4.96e17 */
    const double std[6] = {4.71e17, 3.81e15, -4.74e17, 3.99e16, -8.05e16, -1.23e17};
    CHECK_CLOSE(t, axb_moment_m0(std), 4.96e17, 0.005e17);
    CHECK_CLOSE(t, axb_moment_mw(axb_moment_m0(std)), 5.73, 0.005);
}

static void test_asymmetric_cosine(check_ctx *t)
{
    /* trise 2 s, tfall 3 s, dt 0.5 s: (1 − cos(πt/2))/5 up to t = 2, then (1 − cos(π(t+1)/3))/5
     * up to t = 5, then 0. Literal values at t = 0, 1, 2, 3.5, 5, 6: 0, 0.2, 0.4, 0.2, 0, 0. */
    double s[20];
    axb_asymmetric_cosine(2.0, 3.0, 20, 0.5, s);
    CHECK_CLOSE(t, s[0], 0.0, 1e-16);
    CHECK_CLOSE(t, s[2], 0.2, 1e-15);
    CHECK_CLOSE(t, s[4], 0.4, 1e-15);
    CHECK_CLOSE(t, s[7], 0.2, 1e-15);
    CHECK_CLOSE(t, s[10], 0.0, 1e-15);
    CHECK(t, s[12] == 0.0 && s[19] == 0.0);
    for (int k = 0; k < 20; k++) {
        const double tk = 0.5 * k;
        const double ref = tk <= 2 ? (1 - cos(PI * tk / 2)) / 5 : tk <= 5 ? (1 - cos(PI * (tk + 1) / 3)) / 5 : 0.0;
        CHECK_CLOSE(t, s[k], ref, 1e-15);
    }
    /* unit area: ∫ rise = trise, ∫ fall = tfall, divided by their sum; trapezoid at dt = 1 ms */
    enum { N = 6000 };
    double *f = malloc(N * sizeof *f);
    axb_asymmetric_cosine(2.0, 3.0, N, 0.001, f);
    double area = 0;
    for (int k = 0; k + 1 < N; k++) area += 0.001 * (f[k] + f[k + 1]) / 2;
    CHECK_CLOSE(t, area, 1.0, 1e-6);
    /* tfall 0 means tfall = trise (Instaseis' default): symmetric, peak 2/(2·trise) at trise */
    axb_asymmetric_cosine(1.5, 0.0, N, 0.001, f);
    CHECK_CLOSE(t, f[1500], 2.0 / 3.0, 1e-12);
    CHECK_CLOSE(t, f[1000], f[2000], 1e-12);
    free(f);
}

static void test_sliprate(check_ctx *t)
{
    axb_error err = AXB_ERROR_INIT;
    /* [0, 1, 4, 9] at 2 s, resampled to 0.5 s, 16 samples: linear between the knots, the last
     * value held after t = 6 s: t = 0.5 -> 0.25, 3 -> 2.5, 4.5 -> 5.25, 6..7.5 -> 9. */
    axb_source s = {.type = AXB_SRC_MOMENT, .dt = 2.0, .nsliprate = 4};
    s.sliprate = malloc(4 * sizeof(double));
    memcpy(s.sliprate, (const double[4]){0, 1, 4, 9}, 4 * sizeof(double));
    CHECK(t, axb_source_resample_sliprate(&s, 0.5, 16, &err) == AXB_OK);
    CHECK(t, s.nsliprate == 16 && s.dt == 0.5);
    const double ref[16] = {0, 0.25, 0.5, 0.75, 1, 1.75, 2.5, 3.25, 4, 5.25, 6.5, 7.75, 9, 9, 9, 9};
    for (int k = 0; k < 16; k++) CHECK_CLOSE(t, s.sliprate[k], ref[k], 1e-15);

    /* Issue #19: to a coarser dt the samples are interval means, so the moment is kept. The SRF
     * example of docs/file-formats.md, [0, 0.1, 0.1, 0] at 5 s (integral 1), on the 100 s
     * database (dt 24.724845445855724 s, 2 samples) used to give [0, 0] - a zero seismogram. The
     * means over [-dt/2, dt/2] and [dt/2, 3dt/2] of the piecewise-linear pulse, integrated by hand
     * (Python): 0.0376314530706473 and 0.0028136935811234128. */
    {
        const double dtdb = 24.724845445855724;
        axb_source c = {.type = AXB_SRC_MOMENT, .dt = 5.0, .nsliprate = 4};
        c.sliprate = malloc(4 * sizeof(double));
        memcpy(c.sliprate, (const double[4]){0, 0.1, 0.1, 0}, 4 * sizeof(double));
        CHECK(t, axb_source_resample_sliprate(&c, dtdb, 2, &err) == AXB_OK);
        CHECK(t, c.nsliprate == 2 && c.dt == dtdb);
        CHECK_CLOSE(t, c.sliprate[0], 0.0376314530706473, 1e-15);
        CHECK_CLOSE(t, c.sliprate[1], 0.0028136935811234128, 1e-15);
        CHECK_CLOSE(t, (c.sliprate[0] + c.sliprate[1]) * dtdb, 1.0, 1e-14);
        /* more samples than the pulse needs: zeros after it, the same integral */
        free(c.sliprate);
        c.sliprate = malloc(4 * sizeof(double));
        memcpy(c.sliprate, (const double[4]){0, 0.1, 0.1, 0}, 4 * sizeof(double));
        c.dt = 5.0;
        c.nsliprate = 4;
        CHECK(t, axb_source_resample_sliprate(&c, 7.0, 6, &err) == AXB_OK);
        double sum = 0;
        for (int k = 0; k < 6; k++) sum += c.sliprate[k] * 7.0;
        CHECK_CLOSE(t, sum, 1.0, 1e-14);
        CHECK(t, c.sliprate[4] == 0.0 && c.sliprate[5] == 0.0); /* [24.5, 38.5] lies after 15 s */
        free(c.sliprate);
    }

    /* normalise: [0, 2, 2, 0] at 1 s integrates (trapezoid) to 1 + 2 + 1 = 4 */
    free(s.sliprate);
    s.sliprate = malloc(4 * sizeof(double));
    memcpy(s.sliprate, (const double[4]){0, 2, 2, 0}, 4 * sizeof(double));
    s.nsliprate = 4;
    s.dt = 1.0;
    CHECK(t, axb_source_normalize_sliprate(&s, &err) == AXB_OK);
    CHECK(t, s.sliprate[1] == 0.5 && s.sliprate[2] == 0.5 && s.sliprate[0] == 0.0);
    memset(s.sliprate, 0, 4 * sizeof(double));
    CHECK(t, axb_source_normalize_sliprate(&s, &err) == AXB_ERR_RANGE);
    CHECK_CONTAINS(t, err.msg, "integrates to 0");

    /* bad arguments */
    axb_error_clear(&err);
    CHECK(t, axb_source_resample_sliprate(&s, 0.0, 10, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(t, err.msg, "dt > 0");
    CHECK(t, axb_source_resample_sliprate(&s, 1.0, 0, &err) == AXB_ERR_ARG);
    free(s.sliprate);
    s.sliprate = NULL;
    s.nsliprate = 0;
    snprintf(s.name, sizeof s.name, "p1");
    CHECK(t, axb_source_resample_sliprate(&s, 1.0, 10, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(t, err.msg, "source 'p1' has no sliprate");
    CHECK(t, axb_source_normalize_sliprate(&s, &err) == AXB_ERR_ARG);
}

static void test_finite_helpers(check_ctx *t)
{
    axb_source src[5] = {0};
    const double ts[5] = {5, 2, NAN, 2, 7};
    for (int i = 0; i < 5; i++) {
        src[i].type = AXB_SRC_MOMENT;
        src[i].time_shift = ts[i];
        axb_moment_from_strike_dip_rake(10.0 * i, 45, 30, 1e18 * (i + 1), src[i].m);
    }
    src[4].type = AXB_SRC_FORCE; /* forces carry no moment */
    axb_source_list l = {5, src};
    /* smallest time shift, first of the tie (index 1 before 3), NAN passed over */
    CHECK(t, axb_source_list_hypocentre(&l) == 1);
    CHECK_CLOSE(t, axb_source_list_rupture_duration(&l), 5.0, 0);
    CHECK_REL(t, axb_source_list_m0(&l), 1e18 * (1 + 2 + 3 + 4), 1e-14);
    for (int i = 0; i < 5; i++) src[i].time_shift = NAN;
    CHECK(t, axb_source_list_hypocentre(&l) == -1);
    CHECK(t, axb_source_list_rupture_duration(&l) == 0.0);
    axb_source_list empty = {0};
    CHECK(t, axb_source_list_hypocentre(&empty) == -1 && axb_source_list_m0(&empty) == 0.0);
    axb_source_list_free(&empty);
    axb_source_list_free(&empty); /* freeing twice is allowed */
}

int main(void)
{
    check_ctx t = {0};
    test_latitude(&t);
    test_strike_dip_rake(&t);
    test_moment(&t);
    test_asymmetric_cosine(&t);
    test_sliprate(&t);
    test_finite_helpers(&t);
    return check_summary(&t);
}
