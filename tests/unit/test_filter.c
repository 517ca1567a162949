/* Frequency-domain filters (filter.h) against references computed here independently of the
 * module: the causal Butterworth response from the Butterworth polynomial's coefficients
 * (a_k = a_{k−1}·cos((k−1)π/2N)/sin(kπ/2N), not the poles the module uses), the zero-phase
 * response from the closed forms |H|² = 1/(1 + x^{2N}), the log-Gabor formula, and a direct
 * O(n²) DFT (no FFTW). Checked: the response function, apply against the definition
 * (zero-pad, DFT, multiply, inverse DFT, truncate), gains and phases measured on long sinusoids,
 * zero-phase impulse responses (symmetry, spectrum = |H|²), causal impulse responses (nothing
 * before the impulse, nothing wrapped around), DC and peak gains, plan reuse, argument checks. */
#include "axibulk/filter.h"

#include <complex.h>
#include <stdlib.h>

#include "check.h"

static const double PI = 3.14159265358979323846;

/* ---- references ----------------------------------------------------------------------------- */

/* 1/B_N(s), B_N the normalised Butterworth polynomial, by Horner. */
static double complex inv_butter_poly(int n, double complex s)
{
    double a[AXB_FILTER_MAX_ORDER + 1];
    const double g = PI / (2.0 * n);
    a[0] = 1.0;
    for (int k = 1; k <= n; k++) a[k] = a[k - 1] * cos((k - 1) * g) / sin(k * g);
    double complex b = a[n];
    for (int k = n - 1; k >= 0; k--) b = b * s + a[k];
    return 1.0 / b;
}

/* Causal H(f), f >= 0, by the frequency transformations of the lowpass prototype. */
static double complex ref_causal(const axb_filter_spec *s, double f)
{
    switch (s->kind) {
    case AXB_FILTER_LOWPASS: return inv_butter_poly(s->order, I * f / s->f1);
    case AXB_FILTER_HIGHPASS: return f == 0.0 ? 0.0 : inv_butter_poly(s->order, s->f1 / (I * f));
    case AXB_FILTER_BANDPASS:
        return f == 0.0 ? 0.0 : inv_butter_poly(s->order, (s->f1 * s->f2 - f * f) / (I * f * (s->f2 - s->f1)));
    default: return 0.0;
    }
}

/* Zero-phase |H(f)|² (closed forms) or log-Gabor G(f), f >= 0. */
static double ref_real(const axb_filter_spec *s, double f)
{
    double x = 0.0;
    switch (s->kind) {
    case AXB_FILTER_LOWPASS: x = f / s->f1; break;
    case AXB_FILTER_HIGHPASS:
        if (f == 0.0) return 0.0;
        x = s->f1 / f;
        break;
    case AXB_FILTER_BANDPASS:
        if (f == 0.0) return 0.0;
        x = (f * f - s->f1 * s->f2) / (f * (s->f2 - s->f1));
        break;
    case AXB_FILTER_LOGGABOR: {
        if (f == 0.0) return 0.0;
        const double l = log(f * s->period), w = log(s->width);
        return exp(-l * l / (2.0 * w * w));
    }
    }
    return 1.0 / (1.0 + pow(x * x, s->order));
}

static double warp(double f, double dt)
{
    return tan(PI * f * dt) / (PI * dt);
}

/* What the plan should apply at f >= 0 (dt only matters for bilinear specs). */
static double complex ref_response_dt(const axb_filter_spec *s, double dt, double f)
{
    if (s->kind != AXB_FILTER_LOGGABOR && s->bilinear) {
        axb_filter_spec w = *s;
        w.bilinear = false;
        w.f1 = warp(s->f1, dt);
        w.f2 = warp(s->f2, dt);
        return ref_response_dt(&w, dt, warp(f, dt));
    }
    if (s->kind == AXB_FILTER_LOGGABOR || s->zerophase) return ref_real(s, f);
    return ref_causal(s, f);
}
static double complex ref_response(const axb_filter_spec *s, double f)
{
    return ref_response_dt(s, 1.0, f);
}

/* The bilinear Butterworth lowpass or highpass in the time domain: the textbook digital biquads
 * (s -> (1/K)(1 − z⁻¹)/(1 + z⁻¹), K = tan(π fc dt)) run as a recursion from rest. */
static void iir_reference(const axb_filter_spec *s, double dt, const double *x, double *y, int n)
{
    const int order = s->order;
    const double K = tan(PI * s->f1 * dt);
    const bool hp = s->kind == AXB_FILTER_HIGHPASS;
    for (int i = 0; i < n; i++) y[i] = x[i];
    for (int sec = 0; sec < (order + 1) / 2; sec++) {
        double b[3], a[3];
        if (2 * sec + 1 == order) { /* the first-order factor of odd orders */
            const double g = hp ? 1.0 : K;
            b[0] = g, b[1] = hp ? -g : g, b[2] = 0.0;
            a[0] = 1.0 + K, a[1] = K - 1.0, a[2] = 0.0;
        } else {
            const double c = sin((2 * sec + 1) * PI / (2.0 * order)), g = hp ? 1.0 : K * K;
            b[0] = g, b[1] = hp ? -2.0 * g : 2.0 * g, b[2] = g;
            a[0] = 1.0 + 2.0 * c * K + K * K, a[1] = 2.0 * K * K - 2.0;
            a[2] = 1.0 - 2.0 * c * K + K * K;
        }
        double x1 = 0, x2 = 0, y1 = 0, y2 = 0;
        for (int i = 0; i < n; i++) {
            const double xi = y[i];
            const double yi = (b[0] * xi + b[1] * x1 + b[2] * x2 - a[1] * y1 - a[2] * y2) / a[0];
            x2 = x1, x1 = xi, y2 = y1, y1 = yi;
            y[i] = yi;
        }
    }
}

/* Σ x[m] e^{sign·2πi jm/n} with the angle reduced exactly (jm mod n). */
static double complex dft_bin(const double complex *x, int n, int j, int sign)
{
    double complex acc = 0.0;
    for (int m = 0; m < n; m++) {
        const double ang = sign * 2.0 * PI * (double)(((long long)j * m) % n) / n;
        acc += x[m] * CMPLX(cos(ang), sin(ang));
    }
    return acc;
}

/* The documented definition, by direct DFTs: zero-pad to nfft, multiply bin k by H(k/(nfft dt))
 * (Hermitian, real part at the Nyquist bin), invert, keep npts samples. */
static void apply_by_definition(const axb_filter_spec *s, int npts, double dt, int nfft, const double *x, double *y)
{
    double complex *a = calloc((size_t)nfft, sizeof *a), *b = calloc((size_t)nfft, sizeof *b);
    for (int m = 0; m < npts; m++) a[m] = x[m];
    for (int k = 0; k < nfft; k++) {
        const int kk = k <= nfft / 2 ? k : nfft - k;
        double complex h = ref_response(s, kk / (nfft * dt));
        if (2 * k == nfft) h = creal(h);
        if (k != kk) h = conj(h);
        b[k] = dft_bin(a, nfft, k, -1) * h;
    }
    for (int m = 0; m < npts; m++) y[m] = creal(dft_bin(b, nfft, m, +1)) / nfft;
    free(a);
    free(b);
}

/* Least-squares A sin(ωt) + B cos(ωt) over y[n0..n1): gain √(A²+B²), phase atan2(B, A), so
 * that y ≈ gain·sin(ωt + phase). */
static void fit_sine(const double *y, int n0, int n1, double w, double dt, double *gain, double *phase)
{
    double ss = 0, sc = 0, cc = 0, ys = 0, yc = 0;
    for (int n = n0; n < n1; n++) {
        const double sn = sin(w * n * dt), cn = cos(w * n * dt);
        ss += sn * sn, sc += sn * cn, cc += cn * cn, ys += y[n] * sn, yc += y[n] * cn;
    }
    const double det = ss * cc - sc * sc;
    const double a = (ys * cc - yc * sc) / det, b = (yc * ss - ys * sc) / det;
    *gain = hypot(a, b);
    *phase = atan2(b, a);
}

static double wrap_pi(double a)
{
    return remainder(a, 2.0 * PI);
}

/* ---- the specs used throughout (dt = 1 s, Nyquist 0.5 Hz) ------------------------------------ */

static axb_filter_spec spec_lp(int order, double fc, bool zp)
{
    return (axb_filter_spec){.kind = AXB_FILTER_LOWPASS, .f1 = fc, .order = order, .zerophase = zp};
}
static axb_filter_spec spec_hp(int order, double fc, bool zp)
{
    return (axb_filter_spec){.kind = AXB_FILTER_HIGHPASS, .f1 = fc, .order = order, .zerophase = zp};
}
static axb_filter_spec spec_bp(int order, double f1, double f2, bool zp)
{
    return (axb_filter_spec){.kind = AXB_FILTER_BANDPASS, .f1 = f1, .f2 = f2, .order = order, .zerophase = zp};
}
static axb_filter_spec spec_lg(double period, double width)
{
    return (axb_filter_spec){.kind = AXB_FILTER_LOGGABOR, .period = period, .width = width};
}

/* ---- tests ------------------------------------------------------------------------------------- */

static void test_args(check_ctx *T)
{
    axb_filter_plan *p = (axb_filter_plan *)&p; /* must be reset to NULL on failure */
    axb_error err = AXB_ERROR_INIT;
    axb_filter_spec s = spec_lp(4, 0.1, false);
    CHECK(T, axb_filter_plan_create(&s, 1, 1.0, &p, &err) == AXB_ERR_ARG);
    CHECK(T, p == NULL);
    CHECK_CONTAINS(T, err.msg, "traces of 1 samples, need at least 2");
    CHECK(T, axb_filter_plan_create(&s, 100, 0.0, &p, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "sample spacing 0 s");
    CHECK(T, axb_filter_plan_create(&s, 100, NAN, &p, &err) == AXB_ERR_ARG);
    s.order = 0;
    CHECK(T, axb_filter_plan_create(&s, 100, 1.0, &p, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "order 0, need 1..64");
    s.order = 65;
    CHECK(T, axb_filter_plan_create(&s, 100, 1.0, &p, &err) == AXB_ERR_ARG);
    s = spec_lp(4, 0.5, false);
    CHECK(T, axb_filter_plan_create(&s, 100, 1.0, &p, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "corner frequency 0.5 Hz is not in (0, 0.5) Hz (Nyquist)");
    s = spec_hp(4, -1.0, false);
    CHECK(T, axb_filter_plan_create(&s, 100, 1.0, &p, &err) == AXB_ERR_ARG);
    s = spec_hp(4, INFINITY, false);
    CHECK(T, axb_filter_plan_create(&s, 100, 1.0, &p, &err) == AXB_ERR_ARG);
    s = spec_bp(4, 0.2, 0.1, false);
    CHECK(T, axb_filter_plan_create(&s, 100, 1.0, &p, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "lower corner 0.2 Hz is not below the upper 0.1 Hz");
    s = spec_bp(4, 0.1, 0.6, false);
    CHECK(T, axb_filter_plan_create(&s, 100, 1.0, &p, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "upper corner 0.6 Hz");
    s = spec_lg(1.5, 0.5);
    CHECK(T, axb_filter_plan_create(&s, 100, 1.0, &p, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "centre period 1.5 s");
    s = spec_lg(20.0, 1.0);
    CHECK(T, axb_filter_plan_create(&s, 100, 1.0, &p, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "relative width 1 is not in (0, 1)");
    s = spec_lg(20.0, 0.5);
    s.kind = (axb_filter_kind)17;
    CHECK(T, axb_filter_plan_create(&s, 100, 1.0, &p, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "unknown kind 17");
    CHECK(T, axb_filter_plan_create(NULL, 100, 1.0, &p, &err) == AXB_ERR_ARG);
    CHECK(T, axb_filter_plan_create(&s, 100, 1.0, NULL, &err) == AXB_ERR_ARG);

    /* A non-finite sample is refused and the trace left as it was. */
    s = spec_lp(2, 0.1, true);
    CHECK(T, axb_filter_plan_create(&s, 8, 1.0, &p, &err) == AXB_OK);
    double x[8] = {1, 2, 3, 4, 5, NAN, 7, 8};
    CHECK(T, axb_filter_apply(p, x, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "sample 5 is not finite");
    CHECK(T, x[0] == 1.0 && x[4] == 5.0 && isnan(x[5]) && x[7] == 8.0);
    CHECK(T, axb_filter_apply(p, NULL, &err) == AXB_ERR_ARG);
    axb_filter_plan_destroy(&p);
    CHECK(T, p == NULL);
    axb_filter_plan_destroy(&p); /* NULL-safe */
    axb_filter_plan_destroy(NULL);
}

static void test_nfft(check_ctx *T)
{
    /* Smallest 7-smooth number >= 2·npts. */
    const long long cases[][2] = {{2, 4},      {5, 10},      {11, 24},     {13, 27},
                                  {500, 1000}, {1025, 2058}, {4097, 8232}, {100000, 200000}};
    axb_filter_spec s = spec_lp(2, 0.1, false);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        axb_filter_plan *p = NULL;
        axb_error err = AXB_ERROR_INIT;
        CHECK(T, axb_filter_plan_create(&s, cases[i][0], 1.0, &p, &err) == AXB_OK);
        if (p == NULL) continue;
        CHECK_MSG(T, axb_filter_plan_nfft(p) == cases[i][1], "npts %lld: nfft %lld, want %lld", cases[i][0],
                  (long long)axb_filter_plan_nfft(p), cases[i][1]);
        axb_filter_plan_destroy(&p);
    }
}

/* The response function against the independent references, and its landmark values. */
static void test_response(check_ctx *T)
{
    axb_filter_spec specs[] = {spec_lp(1, 0.1, false),       spec_lp(4, 0.1, false),
                               spec_lp(7, 0.03, true),       spec_hp(1, 0.1, false),
                               spec_hp(5, 0.05, false),      spec_hp(4, 0.05, true),
                               spec_bp(1, 0.02, 0.2, false), spec_bp(4, 0.02, 0.08, false),
                               spec_bp(3, 0.1, 0.12, true),  spec_lg(20.0, 0.5),
                               spec_lg(7.0, 0.75),           spec_lp(3, 0.2, false),
                               spec_hp(4, 0.3, true),        spec_bp(5, 0.1, 0.4, false)};
    for (size_t i = 11; i < sizeof specs / sizeof specs[0]; i++) specs[i].bilinear = true;
    double worst = 0.0;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        const axb_filter_spec *s = &specs[i];
        axb_filter_plan *p = NULL;
        axb_error err = AXB_ERROR_INIT;
        CHECK(T, axb_filter_plan_create(s, 64, 1.0, &p, &err) == AXB_OK);
        if (p == NULL) continue;
        for (int j = 0; j <= 1000; j++) {
            const double f = 0.5 * j / 1000.0;
            double re, im;
            axb_filter_plan_response(p, f, &re, &im);
            const double complex ref = ref_response(s, f);
            const double e = cabs(CMPLX(re, im) - ref);
            worst = fmax(worst, e);
            CHECK_MSG(T, e <= 1e-13, "spec %zu f %g: (%.17g, %.17g) vs (%.17g, %.17g)", i, f, re, im, creal(ref),
                      cimag(ref));
            double re2, im2; /* negative frequencies: the conjugate */
            axb_filter_plan_response(p, -f, &re2, &im2);
            CHECK_MSG(T, re2 == re && im2 == -im, "spec %zu f %g: %g %g %g %g", i, f, re, im, re2, im2);
        }
        double re, im, re1, im1;
        axb_filter_plan_response(p, 0.0, &re, &im);
        const double dc = s->kind == AXB_FILTER_LOWPASS ? 1.0 : 0.0;
        CHECK_CLOSE(T, re, dc, 1e-15);
        CHECK_CLOSE(T, im, 0.0, 1e-15);
        const double half = s->zerophase ? 0.5 : sqrt(0.5);
        if (s->kind != AXB_FILTER_LOGGABOR) { /* corner gains */
            axb_filter_plan_response(p, s->f1, &re, &im);
            CHECK_CLOSE(T, hypot(re, im), half, 1e-14);
        }
        if (s->kind == AXB_FILTER_BANDPASS) {
            axb_filter_plan_response(p, s->f2, &re, &im);
            CHECK_CLOSE(T, hypot(re, im), half, 1e-14);
            /* The peak, 1 with zero phase, is at the geometric mean of the corners: |H| is
             * symmetric under f -> f1 f2 / f and falls monotonically away from f0 (a plain
             * argmax would land anywhere on the maximally flat top for higher orders).
             * Bilinear: the same in warped frequency (dt = 1). */
            const double w1 = s->bilinear ? warp(s->f1, 1.0) : s->f1;
            const double w2 = s->bilinear ? warp(s->f2, 1.0) : s->f2, w0 = sqrt(w1 * w2);
            const double f0 = s->bilinear ? atan(PI * w0) / PI : w0;
            axb_filter_plan_response(p, f0, &re, &im);
            CHECK_CLOSE(T, re, 1.0, 1e-14);
            CHECK_CLOSE(T, im, 0.0, 1e-14);
            double prev_up = 1.0, prev_dn = 1.0;
            bool mono = true;
            for (int j = 1; j <= 1000; j++) {
                const double r = 1.0 + 0.01 * j;
                const double fu = s->bilinear ? atan(PI * w0 * r) / PI : w0 * r;
                const double fd = s->bilinear ? atan(PI * w0 / r) / PI : w0 / r;
                axb_filter_plan_response(p, fu, &re, &im);
                axb_filter_plan_response(p, fd, &re1, &im1);
                const double up = hypot(re, im), dn = hypot(re1, im1);
                CHECK_CLOSE(T, up, dn, 1e-14);
                mono = mono && up <= prev_up + 1e-15 && dn <= prev_dn + 1e-15;
                prev_up = up, prev_dn = dn;
            }
            CHECK_MSG(T, mono && prev_up < 0.5, "spec %zu: monotone %d, gain %g at 11·f0", i, (int)mono, prev_up);
        }
        if (s->kind == AXB_FILTER_LOGGABOR) {
            const double f0 = 1.0 / s->period;
            axb_filter_plan_response(p, f0, &re, &im);
            CHECK_CLOSE(T, re, 1.0, 1e-15);
            /* The half-amplitude points are at f0·exp(±√(2 ln 2)·|ln σ|). */
            const double r = exp(sqrt(2.0 * log(2.0)) * fabs(log(s->width)));
            axb_filter_plan_response(p, f0 * r, &re, &im);
            axb_filter_plan_response(p, f0 / r, &re1, &im1);
            CHECK_CLOSE(T, re, 0.5, 1e-14);
            CHECK_CLOSE(T, re1, 0.5, 1e-14);
        }
        axb_filter_plan_destroy(&p);
    }
    printf("response vs references: max |error| %.3g\n", worst);
}

/* apply() equals the documented definition computed with direct DFTs, for odd and even nfft. */
static void test_definition(check_ctx *T)
{
    axb_filter_spec specs[] = {spec_lp(3, 0.1, false), spec_lp(3, 0.1, true),        spec_hp(2, 0.15, false),
                               spec_hp(2, 0.15, true), spec_bp(2, 0.05, 0.2, false), spec_bp(2, 0.05, 0.2, true),
                               spec_lg(5.0, 0.6),      spec_bp(2, 0.05, 0.2, false), spec_hp(3, 0.2, false)};
    specs[7].bilinear = specs[8].bilinear = true;
    const int sizes[] = {13, 50}; /* nfft 27 (odd, no Nyquist bin) and 100 */
    unsigned seed = 12345u;
    double worst = 0.0;
    for (size_t si = 0; si < 2; si++) {
        const int n = sizes[si];
        double x[50], y[50], ref[50];
        for (int i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            x[i] = (double)(seed >> 8) / (double)(1u << 24) - 0.5;
        }
        for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
            axb_filter_plan *p = NULL;
            axb_error err = AXB_ERROR_INIT;
            CHECK(T, axb_filter_plan_create(&specs[i], n, 1.0, &p, &err) == AXB_OK);
            if (p == NULL) continue;
            for (int k = 0; k < n; k++) y[k] = x[k];
            CHECK(T, axb_filter_apply(p, y, &err) == AXB_OK);
            apply_by_definition(&specs[i], n, 1.0, (int)axb_filter_plan_nfft(p), x, ref);
            double e = 0.0;
            for (int k = 0; k < n; k++) e = fmax(e, fabs(y[k] - ref[k]));
            worst = fmax(worst, e);
            CHECK_MSG(T, e <= 1e-13, "npts %d spec %zu: max error %g", n, i, e);
            axb_filter_plan_destroy(&p);
        }
    }
    printf("apply vs definition (direct DFT): max |error| %.3g\n", worst);
}

/* Long sinusoids: in the middle of the trace (transients at both ends decayed) the output is
 * |H|·sin(ωt + arg H) for the causal filters, |H|²·sin(ωt) for the zero-phase ones. */
static void test_sinusoids(check_ctx *T)
{
    enum { N = 8192 };
    const double dt = 0.5; /* Nyquist 1 Hz */
    axb_filter_spec specs[] = {spec_lp(4, 0.1, false),       spec_lp(4, 0.1, true),       spec_lp(1, 0.2, false),
                               spec_hp(4, 0.1, false),       spec_hp(4, 0.1, true),       spec_hp(2, 0.05, false),
                               spec_bp(4, 0.05, 0.2, false), spec_bp(4, 0.05, 0.2, true), spec_bp(2, 0.1, 0.15, false),
                               spec_lg(10.0, 0.5),           spec_lg(4.0, 0.75),          spec_lp(4, 0.1, false),
                               spec_hp(3, 0.1, true),        spec_bp(2, 0.05, 0.3, false)};
    for (size_t i = 11; i < sizeof specs / sizeof specs[0]; i++) specs[i].bilinear = true;
    const double freqs[] = {0.02, 0.05, 0.0707, 0.1, 0.125, 0.2, 0.3, 0.5};
    double *x = malloc(N * sizeof *x);
    double worst_g = 0.0, worst_p = 0.0;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        axb_filter_plan *p = NULL;
        axb_error err = AXB_ERROR_INIT;
        CHECK(T, axb_filter_plan_create(&specs[i], N, dt, &p, &err) == AXB_OK);
        if (p == NULL) continue;
        for (size_t j = 0; j < sizeof freqs / sizeof freqs[0]; j++) {
            const double w = 2.0 * PI * freqs[j];
            for (int n = 0; n < N; n++) x[n] = sin(w * n * dt);
            CHECK(T, axb_filter_apply(p, x, &err) == AXB_OK);
            double g, ph;
            fit_sine(x, N / 4, 3 * N / 4, w, dt, &g, &ph);
            const double complex h = ref_response_dt(&specs[i], dt, freqs[j]);
            const double eg = fabs(g - cabs(h));
            worst_g = fmax(worst_g, eg);
            CHECK_MSG(T, eg <= 1e-6, "spec %zu, %g Hz: gain %.10g, |H| %.10g", i, freqs[j], g, cabs(h));
            if (cabs(h) > 1e-3) { /* the phase of a vanishing output means nothing */
                const double ep = fabs(wrap_pi(ph - carg(h)));
                worst_p = fmax(worst_p, ep);
                CHECK_MSG(T, ep <= 1e-5, "spec %zu, %g Hz: phase %.10g, arg H %.10g", i, freqs[j], ph, carg(h));
            }
        }
        axb_filter_plan_destroy(&p);
    }
    free(x);
    printf("sinusoids: max gain error %.3g, max phase error %.3g rad\n", worst_g, worst_p);
}

/* Zero-phase impulse responses: symmetric about the impulse, DC gain H(0), and their spectrum
 * (direct DFT over the trace, bins on the FFT grid since nfft = 2·npts) is |H|² times the
 * impulse's delay. */
static void test_zerophase_impulse(check_ctx *T)
{
    enum { N = 2000, T0 = 1000 };
    /* Chosen with |H(f_N)|² <= 1e-7 and responses decayed within ±T0: the kink of the sampled
     * |H|² at Nyquist adds a ~1/n² tail, and log-Gabor filters have slowly (log-normally)
     * decaying tails (docs/filters.md), which the trace would truncate. */
    axb_filter_spec bl = spec_hp(2, 0.05, true);
    bl.bilinear = true;
    const axb_filter_spec specs[] = {spec_lp(4, 0.05, true), spec_hp(4, 0.05, true), spec_bp(4, 0.02, 0.08, true),
                                     spec_lg(30.0, 0.7),     spec_lg(20.0, 0.75),    bl};
    static double y[N];
    static double complex yc[N];
    double worst_sym = 0.0, worst_spec = 0.0;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        axb_filter_plan *p = NULL;
        axb_error err = AXB_ERROR_INIT;
        CHECK(T, axb_filter_plan_create(&specs[i], N, 1.0, &p, &err) == AXB_OK);
        if (p == NULL) continue;
        CHECK(T, axb_filter_plan_nfft(p) == 2 * N);
        for (int n = 0; n < N; n++) y[n] = n == T0 ? 1.0 : 0.0;
        CHECK(T, axb_filter_apply(p, y, &err) == AXB_OK);
        double peak = 0.0, sym = 0.0, sum = 0.0;
        for (int n = 0; n < N; n++) peak = fmax(peak, fabs(y[n])), sum += y[n];
        for (int k = 1; k < T0; k++) sym = fmax(sym, fabs(y[T0 + k] - y[T0 - k]));
        worst_sym = fmax(worst_sym, sym / peak);
        CHECK_MSG(T, sym <= 1e-14 * peak, "spec %zu: asymmetry %g (peak %g)", i, sym, peak);
        CHECK_CLOSE(T, sum, creal(ref_response(&specs[i], 0.0)), 1e-10);
        for (int n = 0; n < N; n++) yc[n] = y[n];
        double e = 0.0;
        for (int j = 0; j <= N / 2; j++) {
            const double complex got = dft_bin(yc, N, j, -1);
            const double ang = -2.0 * PI * (double)((j * T0) % N) / N;
            const double complex want = ref_response(&specs[i], j / (N * 1.0)) * CMPLX(cos(ang), sin(ang));
            e = fmax(e, cabs(got - want));
        }
        worst_spec = fmax(worst_spec, e);
        CHECK_MSG(T, e <= 1e-10, "spec %zu: spectrum error %g", i, e);
        axb_filter_plan_destroy(&p);
    }
    printf("zero-phase impulse: max asymmetry %.3g of peak, max spectrum error %.3g\n", worst_sym, worst_spec);
}

/* Causal impulse responses near the end of the trace: without padding their tails would wrap
 * onto the start. The analog filters keep only the band-limiting precursor the documentation
 * describes (energy below |H(f_N)|²/2), < 1e-6 of the response for lowpass and bandpass well
 * below Nyquist; the bilinear ones have none. The spectrum of an impulse early in the trace is H
 * up to the truncation of that precursor (< 0.7·|H(f_N)|). */
static void test_causal_impulse(check_ctx *T)
{
    enum { N = 1000 };
    axb_filter_spec specs[] = {spec_lp(4, 0.05, false),      spec_lp(6, 0.1, false),  spec_bp(4, 0.02, 0.08, false),
                               spec_bp(2, 0.05, 0.1, false), spec_hp(4, 0.05, false), spec_hp(2, 0.01, false),
                               spec_lp(1, 0.01, false),      spec_lp(4, 0.05, false), spec_hp(4, 0.05, false),
                               spec_bp(3, 0.02, 0.3, false), spec_lp(1, 0.2, false)};
    const size_t nanalog = 7;
    for (size_t i = nanalog; i < sizeof specs / sizeof specs[0]; i++) specs[i].bilinear = true;
    double y[N];
    double complex yc[N];
    double worst = 0.0, worst_bl = 0.0, worst_ratio = 0.0, worst_spec = 0.0, worst_spec_an = 0.0;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        axb_filter_plan *p = NULL;
        axb_error err = AXB_ERROR_INIT;
        CHECK(T, axb_filter_plan_create(&specs[i], N, 1.0, &p, &err) == AXB_OK);
        if (p == NULL) continue;
        const int t0 = N - 10;
        for (int n = 0; n < N; n++) y[n] = n == t0 ? 1.0 : 0.0;
        CHECK(T, axb_filter_apply(p, y, &err) == AXB_OK);
        double before = 0.0, total = 0.0;
        for (int n = 0; n < N; n++) total += y[n] * y[n];
        for (int n = 0; n < t0; n++) before += y[n] * y[n];
        const double complex hn = ref_response(&specs[i], 0.5);
        const double hn2 = creal(hn * conj(hn));
        if (specs[i].bilinear) {
            worst_bl = fmax(worst_bl, before / total);
            CHECK_MSG(T, before <= 1e-20 * total, "spec %zu: %g of the energy before", i, before / total);
        } else {
            /* The precursor is the band-limiting one, bounded by |H(f_N)|² (not a wrapped-around
             * tail, which would carry most of the response's energy here) ... */
            worst_ratio = fmax(worst_ratio, before / hn2);
            CHECK_MSG(T, before <= 0.5 * hn2, "spec %zu: energy before %g, |H(fN)|² %g", i, before, hn2);
            /* ... and negligible where the filter is small at Nyquist. */
            if (hn2 < 1e-6) {
                worst = fmax(worst, before / total);
                CHECK_MSG(T, before < 1e-6 * total, "spec %zu: %g of the energy before", i, before / total);
            }
        }

        const int t1 = 100; /* response decays within the remaining 900 samples */
        for (int n = 0; n < N; n++) y[n] = n == t1 ? 1.0 : 0.0;
        CHECK(T, axb_filter_apply(p, y, &err) == AXB_OK);
        for (int n = 0; n < N; n++) yc[n] = y[n];
        double e = 0.0;
        for (int j = 0; j <= N / 2; j++) {
            const double complex got = dft_bin(yc, N, j, -1);
            const double ang = -2.0 * PI * (double)((j * t1) % N) / N;
            double complex h = ref_response(&specs[i], j / (N * 1.0));
            if (2 * j == N) h = creal(h);
            e = fmax(e, cabs(got - h * CMPLX(cos(ang), sin(ang))));
        }
        if (specs[i].bilinear) {
            worst_spec = fmax(worst_spec, e);
            CHECK_MSG(T, e <= 1e-10, "spec %zu: causal spectrum error %g", i, e);
        } else {
            worst_spec_an = fmax(worst_spec_an, e / sqrt(hn2));
            CHECK_MSG(T, e <= 0.7 * sqrt(hn2), "spec %zu: causal spectrum error %g", i, e);
        }
        axb_filter_plan_destroy(&p);
    }
    printf("causal impulse, analog: energy before <= %.3g of total where |H(fN)|² < 1e-6, <= "
           "%.3g·|H(fN)|² everywhere, spectrum error <= %.3g·|H(fN)|; bilinear: energy before "
           "<= %.3g of total, spectrum error %.3g\n",
           worst, worst_ratio, worst_spec_an, worst_bl, worst_spec);
}

/* The bilinear lowpass and highpass equal a time-domain recursion (causal), and run forward
 * then backward over a trace padded with enough zeros that nothing is lost at the end
 * (zero-phase). */
static void test_bilinear_vs_iir(check_ctx *T)
{
    enum { N = 600, PAD = 4000 };
    static double x[N], y[N], ref[N + PAD], tmp[N + PAD];
    for (int n = 0; n < N; n++) x[n] = sin(0.03 * n) + 0.5 * sin(1.7 * n) + (n == 200) - (n > 400);
    const double dt = 0.25;
    double worst = 0.0;
    for (int order = 1; order <= 5; order++) {
        for (int kind = 0; kind < 2; kind++) {
            for (int zp = 0; zp < 2; zp++) {
                axb_filter_spec s = kind == 0 ? spec_lp(order, 0.3, zp) : spec_hp(order, 0.2, zp);
                s.bilinear = true;
                axb_filter_plan *p = NULL;
                axb_error err = AXB_ERROR_INIT;
                CHECK(T, axb_filter_plan_create(&s, N, dt, &p, &err) == AXB_OK);
                if (p == NULL) continue;
                memcpy(y, x, sizeof y);
                CHECK(T, axb_filter_apply(p, y, &err) == AXB_OK);
                for (int n = 0; n < N + PAD; n++) tmp[n] = n < N ? x[n] : 0.0;
                iir_reference(&s, dt, tmp, ref, N + PAD);
                if (zp) {
                    for (int n = 0; n < N + PAD; n++) tmp[n] = ref[N + PAD - 1 - n];
                    iir_reference(&s, dt, tmp, ref, N + PAD);
                    for (int n = 0; n < N + PAD; n++) tmp[n] = ref[N + PAD - 1 - n];
                    memcpy(ref, tmp, sizeof ref);
                }
                double e = 0.0;
                for (int n = 0; n < N; n++) e = fmax(e, fabs(y[n] - ref[n]));
                worst = fmax(worst, e);
                CHECK_MSG(T, e <= 1e-12, "order %d %s%s: max difference %g", order, kind ? "highpass" : "lowpass",
                          zp ? " zero-phase" : "", e);
                axb_filter_plan_destroy(&p);
            }
        }
    }
    printf("bilinear vs time-domain recursion: max |difference| %.3g\n", worst);
}

/* One plan, many traces: the same input gives bit-identical output, interleaved with others; a
 * FFTW_MEASURE plan gives the same result to rounding. */
static void test_reuse(check_ctx *T)
{
    enum { N = 777 };
    double a[N], b[N], c[N], x[N];
    for (int n = 0; n < N; n++) x[n] = sin(0.05 * n) + 0.3 * cos(0.9 * n) + (n == 300);
    const axb_filter_spec specs[] = {spec_bp(4, 0.01, 0.1, false), spec_lg(20.0, 0.55)};
    for (size_t i = 0; i < 2; i++) {
        axb_filter_plan *p = NULL, *pm = NULL;
        axb_error err = AXB_ERROR_INIT;
        CHECK(T, axb_filter_plan_create(&specs[i], N, 1.0, &p, &err) == AXB_OK);
        axb_filter_spec sm = specs[i];
        sm.fft_measure = true;
        CHECK(T, axb_filter_plan_create(&sm, N, 1.0, &pm, &err) == AXB_OK);
        if (p == NULL || pm == NULL) {
            axb_filter_plan_destroy(&p);
            axb_filter_plan_destroy(&pm);
            continue;
        }
        memcpy(a, x, sizeof a);
        CHECK(T, axb_filter_apply(p, a, &err) == AXB_OK);
        for (int n = 0; n < N; n++) b[n] = cos(0.2 * n);
        CHECK(T, axb_filter_apply(p, b, &err) == AXB_OK);
        memcpy(b, x, sizeof b);
        CHECK(T, axb_filter_apply(p, b, &err) == AXB_OK);
        CHECK(T, memcmp(a, b, sizeof a) == 0);
        memcpy(c, x, sizeof c);
        CHECK(T, axb_filter_apply(pm, c, &err) == AXB_OK);
        double e = 0.0;
        for (int n = 0; n < N; n++) e = fmax(e, fabs(c[n] - a[n]));
        CHECK_MSG(T, e <= 1e-13, "FFTW_MEASURE vs FFTW_ESTIMATE: %g", e);
        axb_filter_plan_destroy(&p);
        axb_filter_plan_destroy(&pm);
    }
}

int main(void)
{
    check_ctx t = {0, 0, 0};
    test_args(&t);
    test_nfft(&t);
    test_response(&t);
    test_definition(&t);
    test_sinusoids(&t);
    test_zerophase_impulse(&t);
    test_causal_impulse(&t);
    test_bilinear_vs_iir(&t);
    test_reuse(&t);
    return check_summary(&t);
}
