/* Frequency-domain filters (filter.h, docs/filters.md): the analog (or bilinear-warped) transfer
 * function sampled at the bins of a zero-padded real FFT. Butterworth responses are evaluated from
 * the factored prototype rather than from |H|² formulas, so the zero-phase response is exactly
 * |H|² of the causal one and both share one code path. */
#include "axibulk/filter.h"

/* complex.h first: fftw3.h then makes fftw_complex the C99 double complex. */
#include <complex.h>
#include <fftw3.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

static const double PI = 3.14159265358979323846;

struct axb_filter_plan {
    axb_filter_spec spec;
    int64_t npts;
    int nfft, nfreq;
    double dt;
    double damp[AXB_FILTER_MAX_ORDER / 2]; /* Butterworth pole pairs: sin((2k+1)π/(2N)) */
    double c1, c2;                         /* Butterworth corners of the analog filter (prewarped if bilinear) */
    fftw_plan r2c, c2r;                    /* made once, executed on the buffers below */
    double *rbuf;                          /* [nfft] time-domain scratch */
    fftw_complex *cbuf;                    /* [nfreq] spectrum scratch */
    double *gain;                          /* [nfreq] real response / nfft (zero-phase, log-Gabor), or NULL */
    fftw_complex *resp;                    /* [nfreq] complex response / nfft (causal Butterworth), or NULL */
};

/* Smallest 2^a 3^b 5^c 7^d >= n, or -1 above INT_MAX: FFTW has hard-coded kernels for these
 * radices, so they cost little more than the power of two while padding far less. */
static int64_t next_fast_size(int64_t n)
{
    for (int64_t m = n < 1 ? 1 : n; m <= INT_MAX; m++) {
        int64_t r = m;
        static const int radix[] = {2, 3, 5, 7};
        for (int i = 0; i < 4; i++)
            while (r % radix[i] == 0) r /= radix[i];
        if (r == 1) return m;
    }
    return -1;
}

/* The normalised lowpass prototype at s = iy: one real-coefficient quadratic
 * s² + 2·c_k·s + 1 per conjugate pole pair (c_k = −Re p_k) and s + 1 for odd orders. Pairing
 * keeps H(0) exactly 1 and H(−y) exactly conj H(y), which separate complex poles would miss by
 * rounding. Large |y| underflows the product gracefully towards 0. */
static double complex lp_prototype(const axb_filter_plan *p, double y)
{
    const int n = p->spec.order;
    double complex h = 1.0;
    for (int k = 0; k < n / 2; k++) h /= CMPLX(1.0 - y * y, 2.0 * p->damp[k] * y);
    if (n % 2 == 1) h /= CMPLX(1.0, y);
    return h;
}

/* H(f) of a Butterworth spec, f >= 0, by the classical transformations of the prototype:
 * highpass s -> 1/s, bandpass s -> (s² + f1 f2)/(s (f2 − f1)); on the imaginary axis both map
 * to another point iY of the imaginary axis, so all three are lp_prototype(Y). */
static double complex butterworth(const axb_filter_plan *p, double f)
{
    /* Bilinear: the analog filter with prewarped corners, seen at the warped frequency, is the
     * digital filter's response on the unit circle. tan(π/2) rounds to a finite 1.6e16, so the
     * Nyquist bin gets the (real) limit, not an infinity. */
    if (p->spec.bilinear) f = tan(PI * f * p->dt) / (PI * p->dt);
    const double c1 = p->c1, c2 = p->c2;
    switch (p->spec.kind) {
    case AXB_FILTER_LOWPASS: return lp_prototype(p, f / c1);
    case AXB_FILTER_HIGHPASS:
        /* 1/(i y) = i·(−1/y); H(−1/y) = conj H(1/y). */
        return f == 0.0 ? 0.0 : conj(lp_prototype(p, c1 / f));
    case AXB_FILTER_BANDPASS:
        if (f == 0.0) return 0.0;
        return lp_prototype(p, (f * f - c1 * c2) / (f * (c2 - c1)));
    case AXB_FILTER_LOGGABOR: break;
    }
    return 0.0;
}

static double log_gabor(const axb_filter_plan *p, double f)
{
    if (f <= 0.0) return 0.0;
    const double lr = log(f * p->spec.period), ls = log(p->spec.width);
    return exp(-(lr * lr) / (2.0 * ls * ls));
}

static double complex response(const axb_filter_plan *p, double f)
{
    const double af = fabs(f);
    double complex h;
    if (p->spec.kind == AXB_FILTER_LOGGABOR) {
        h = log_gabor(p, af);
    } else {
        h = butterworth(p, af);
        if (p->spec.zerophase) {
            const double a = cabs(h);
            h = a * a;
        }
    }
    return f < 0.0 ? conj(h) : h;
}

static axb_status check_spec(const axb_filter_spec *s, double dt, axb_error *err)
{
    const double fn = 0.5 / dt;
    switch (s->kind) {
    case AXB_FILTER_LOWPASS:
    case AXB_FILTER_HIGHPASS:
    case AXB_FILTER_BANDPASS:
        AXB_CHECK(err, s->order >= 1 && s->order <= AXB_FILTER_MAX_ORDER, AXB_ERR_ARG,
                  "Butterworth filter: order %d, need 1..%d", s->order, AXB_FILTER_MAX_ORDER);
        AXB_CHECK(err, isfinite(s->f1) && s->f1 > 0.0 && s->f1 < fn, AXB_ERR_ARG,
                  "Butterworth filter: corner frequency %g Hz is not in (0, %g) Hz (Nyquist)", s->f1, fn);
        if (s->kind == AXB_FILTER_BANDPASS) {
            AXB_CHECK(err, isfinite(s->f2) && s->f2 > 0.0 && s->f2 < fn, AXB_ERR_ARG,
                      "Butterworth bandpass: upper corner %g Hz is not in (0, %g) Hz (Nyquist)", s->f2, fn);
            AXB_CHECK(err, s->f1 < s->f2, AXB_ERR_ARG,
                      "Butterworth bandpass: lower corner %g Hz is not below the upper %g Hz", s->f1, s->f2);
        }
        return AXB_OK;
    case AXB_FILTER_LOGGABOR:
        AXB_CHECK(err, isfinite(s->period) && s->period > 0.0 && 1.0 / s->period < fn, AXB_ERR_ARG,
                  "log-Gabor filter: centre period %g s is not a positive period longer than "
                  "2·dt = %g s",
                  s->period, 2.0 * dt);
        AXB_CHECK(err, isfinite(s->width) && s->width > 0.0 && s->width < 1.0, AXB_ERR_ARG,
                  "log-Gabor filter: relative width %g is not in (0, 1)", s->width);
        return AXB_OK;
    }
    return axb_error_set(err, AXB_ERR_ARG, "filter: unknown kind %d", (int)s->kind);
}

void axb_filter_plan_destroy(axb_filter_plan **plan)
{
    if (plan == NULL || *plan == NULL) return;
    axb_filter_plan *fp = *plan;
    if (fp->r2c != NULL) fftw_destroy_plan(fp->r2c);
    if (fp->c2r != NULL) fftw_destroy_plan(fp->c2r);
    fftw_free(fp->rbuf);
    fftw_free(fp->cbuf);
    fftw_free(fp->gain);
    fftw_free(fp->resp);
    free(fp);
    *plan = NULL;
}

axb_status axb_filter_plan_create(const axb_filter_spec *s, int64_t npts, double dt, axb_filter_plan **plan,
                                  axb_error *err)
{
    AXB_CHECK(err, s != NULL && plan != NULL, AXB_ERR_ARG, "filter plan: NULL argument");
    *plan = NULL;
    AXB_CHECK(err, npts >= 2, AXB_ERR_ARG, "filter: traces of %lld samples, need at least 2", (long long)npts);
    AXB_CHECK(err, isfinite(dt) && dt > 0.0, AXB_ERR_ARG, "filter: sample spacing %g s is not a positive number", dt);
    AXB_TRY(check_spec(s, dt, err));
    const int64_t nfft = npts <= INT_MAX / 2 ? next_fast_size(2 * npts) : -1;
    AXB_CHECK(err, nfft > 0, AXB_ERR_RANGE, "filter: %lld samples need an FFT longer than FFTW's int", (long long)npts);

    axb_filter_plan *fp = calloc(1, sizeof *fp);
    AXB_CHECK(err, fp != NULL, AXB_ERR_NOMEM, "filter plan: out of memory");
    fp->spec = *s;
    fp->npts = npts;
    fp->dt = dt;
    fp->nfft = (int)nfft;
    fp->nfreq = fp->nfft / 2 + 1;
    const bool real_resp = s->kind == AXB_FILTER_LOGGABOR || s->zerophase;
    fp->rbuf = fftw_malloc((size_t)fp->nfft * sizeof *fp->rbuf);
    fp->cbuf = fftw_malloc((size_t)fp->nfreq * sizeof *fp->cbuf);
    if (real_resp)
        fp->gain = fftw_malloc((size_t)fp->nfreq * sizeof *fp->gain);
    else
        fp->resp = fftw_malloc((size_t)fp->nfreq * sizeof *fp->resp);
    if (fp->rbuf == NULL || fp->cbuf == NULL || (fp->gain == NULL && fp->resp == NULL)) {
        axb_filter_plan_destroy(&fp);
        return axb_error_set(err, AXB_ERR_NOMEM, "filter plan: out of memory (nfft %lld)", (long long)nfft);
    }
    /* MEASURE overwrites the arrays it plans on; these are ours and filled only afterwards. */
    const unsigned flags = s->fft_measure ? FFTW_MEASURE : FFTW_ESTIMATE;
    fp->r2c = fftw_plan_dft_r2c_1d(fp->nfft, fp->rbuf, fp->cbuf, flags);
    fp->c2r = fftw_plan_dft_c2r_1d(fp->nfft, fp->cbuf, fp->rbuf, flags);
    if (fp->r2c == NULL || fp->c2r == NULL) {
        axb_filter_plan_destroy(&fp);
        return axb_error_set(err, AXB_ERR_INTERNAL, "FFTW could not plan a real FFT of %lld points", (long long)nfft);
    }

    if (s->kind != AXB_FILTER_LOGGABOR) {
        const int n = s->order;
        /* Prewarping puts the digital filter's corners exactly at f1, f2. */
        fp->c1 = s->bilinear ? tan(PI * s->f1 * dt) / (PI * dt) : s->f1;
        fp->c2 = s->bilinear ? tan(PI * s->f2 * dt) / (PI * dt) : s->f2;
        /* p_k = exp(iπ(2k+N+1)/(2N)) has −Re p_k = sin((2k+1)π/(2N)). */
        for (int k = 0; k < n / 2; k++) fp->damp[k] = sin(PI * (double)(2 * k + 1) / (double)(2 * n));
    }
    /* FFTW's inverse is unnormalised: fold 1/nfft into the response once. */
    const double scale = 1.0 / (double)fp->nfft, df = 1.0 / ((double)fp->nfft * dt);
    for (int k = 0; k < fp->nfreq; k++) {
        double complex h = response(fp, (double)k * df);
        /* The Nyquist bin of a real signal's spectrum is real: a complex H there cannot be
         * applied to a real trace, and c2r would drop its imaginary part anyway. */
        if (2 * k == fp->nfft) h = creal(h);
        if (real_resp) {
            fp->gain[k] = creal(h) * scale;
        } else {
            fp->resp[k] = h * scale;
        }
    }
    *plan = fp;
    return AXB_OK;
}

axb_status axb_filter_apply(axb_filter_plan *plan, double *x, axb_error *err)
{
    AXB_CHECK(err, plan != NULL && x != NULL, AXB_ERR_ARG, "filter: NULL argument");
    const int64_t npts = plan->npts;
    double *r = plan->rbuf;
    bool finite = true;
    for (int64_t i = 0; i < npts; i++) {
        r[i] = x[i];
        finite = finite && isfinite(x[i]);
    }
    if (!finite) {
        for (int64_t i = 0; i < npts; i++)
            AXB_CHECK(err, isfinite(x[i]), AXB_ERR_ARG, "filter: sample %lld is not finite", (long long)i);
    }
    for (int64_t i = npts; i < plan->nfft; i++) r[i] = 0.0;
    fftw_execute_dft_r2c(plan->r2c, r, plan->cbuf);

    fftw_complex *c = plan->cbuf;
    if (plan->gain != NULL) {
        const double *g = plan->gain;
        for (int k = 0; k < plan->nfreq; k++) c[k] *= g[k];
    } else {
        const fftw_complex *h = plan->resp;
        /* Written out: C's complex multiply adds inf/nan recovery we do not need here. */
        for (int k = 0; k < plan->nfreq; k++) {
            const double ar = creal(c[k]), ai = cimag(c[k]), hr = creal(h[k]), hi = cimag(h[k]);
            c[k] = CMPLX(ar * hr - ai * hi, ar * hi + ai * hr);
        }
    }
    fftw_execute_dft_c2r(plan->c2r, c, r);
    for (int64_t i = 0; i < npts; i++) x[i] = r[i];
    return AXB_OK;
}

int64_t axb_filter_plan_nfft(const axb_filter_plan *plan)
{
    return plan->nfft;
}

void axb_filter_plan_response(const axb_filter_plan *plan, double f, double *re, double *im)
{
    const double complex h = response(plan, f);
    *re = creal(h);
    *im = cimag(h);
}
