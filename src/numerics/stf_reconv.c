/* Re-convolution of a trace with a user STF (Instaseis `get_seismograms(reconvolve_stf=True)`,
 * reference notes §2.13 step 1 and §7.8): divide out the database's STF and multiply in the
 * source's, in the frequency domain over nfft = 2·next_pow_2(npts) points, so the convolution is
 * circular over nfft and the user STF is truncated to nfft samples, as in Instaseis. */
#include "axibulk/timeproc.h"

#include <fftw3.h>
#include <math.h>
#include <stdlib.h>

static const double PI = 3.14159265358979323846;

struct axb_reconv_plan {
    int64_t npts;
    int nfft, nfreq;
    int tlen;           /* tapered samples at the end */
    fftw_plan r2c, c2r; /* made once (FFTW_ESTIMATE), executed on the buffers below */
    double *rbuf;       /* [nfft] time-domain scratch */
    fftw_complex *cbuf; /* [nfreq] spectrum scratch */
    fftw_complex *d;    /* [nfreq] rfft(deconvolution STF) */
    fftw_complex *h;    /* [nfreq] source STF / database STF, set by axb_reconv_set_stf */
    double *taper;      /* [tlen] taper of the last tlen samples */
    int have_stf;
};

void axb_reconv_plan_destroy(axb_reconv_plan **plan)
{
    if (plan == NULL || *plan == NULL) return;
    axb_reconv_plan *rp = *plan;
    if (rp->r2c != NULL) fftw_destroy_plan(rp->r2c);
    if (rp->c2r != NULL) fftw_destroy_plan(rp->c2r);
    fftw_free(rp->rbuf);
    fftw_free(rp->cbuf);
    fftw_free(rp->d);
    fftw_free(rp->h);
    free(rp->taper);
    free(rp);
    *plan = NULL;
}

int64_t axb_reconv_plan_nfft(const axb_reconv_plan *plan)
{
    return plan->nfft;
}

axb_status axb_reconv_plan_create(int64_t npts, const double *deconv_stf, axb_reconv_plan **plan, axb_error *err)
{
    AXB_CHECK(err, plan != NULL && deconv_stf != NULL, AXB_ERR_ARG, "re-convolution plan: NULL argument");
    *plan = NULL;
    AXB_CHECK(err, npts >= 5, AXB_ERR_ARG,
              "re-convolution needs at least 5 samples per trace (the end taper), got %lld", (long long)npts);
    for (int64_t i = 0; i < npts; i++)
        AXB_CHECK(err, isfinite(deconv_stf[i]), AXB_ERR_ARG, "database source time function: sample %lld is not finite",
                  (long long)i);
    /* ObsPy's next_pow_2 (log/ceil/pow), which Instaseis uses, kept for its exact results. */
    const double nfft_d = 2.0 * pow(2.0, ceil(log((double)npts) / log(2.0)));
    AXB_CHECK(err, nfft_d <= 2147483647.0, AXB_ERR_RANGE,
              "re-convolution of %lld samples needs an FFT of %.0f points, more than FFTW's int", (long long)npts,
              nfft_d);

    axb_reconv_plan *rp = calloc(1, sizeof *rp);
    AXB_CHECK(err, rp != NULL, AXB_ERR_NOMEM, "re-convolution plan: out of memory");
    rp->npts = npts;
    rp->nfft = (int)nfft_d;
    rp->nfreq = rp->nfft / 2 + 1;
    /* ceil of 5 % of the trace, at least 5 samples (Instaseis). */
    const double tl = ceil(0.05 * (double)npts);
    rp->tlen = tl > 5.0 ? (int)tl : 5;
    rp->rbuf = fftw_malloc((size_t)rp->nfft * sizeof *rp->rbuf);
    rp->cbuf = fftw_malloc((size_t)rp->nfreq * sizeof *rp->cbuf);
    rp->d = fftw_malloc((size_t)rp->nfreq * sizeof *rp->d);
    rp->h = fftw_malloc((size_t)rp->nfreq * sizeof *rp->h);
    rp->taper = malloc((size_t)rp->tlen * sizeof *rp->taper);
    if (rp->rbuf == NULL || rp->cbuf == NULL || rp->d == NULL || rp->h == NULL || rp->taper == NULL) {
        axb_reconv_plan_destroy(&rp);
        return axb_error_set(err, AXB_ERR_NOMEM, "re-convolution plan: out of memory (nfft %.0f)", nfft_d);
    }
    rp->r2c = fftw_plan_dft_r2c_1d(rp->nfft, rp->rbuf, rp->cbuf, FFTW_ESTIMATE);
    rp->c2r = fftw_plan_dft_c2r_1d(rp->nfft, rp->cbuf, rp->rbuf, FFTW_ESTIMATE);
    if (rp->r2c == NULL || rp->c2r == NULL) {
        axb_reconv_plan_destroy(&rp);
        return axb_error_set(err, AXB_ERR_INTERNAL, "FFTW could not plan a real FFT of %.0f points", nfft_d);
    }

    /* Second half of scipy.signal.hann(2L, sym=True), evaluated as scipy does:
     * 0.5 + 0.5·cos(linspace(−π, π, 2L)), the last point pinned to π like numpy's linspace. */
    const int m = 2 * rp->tlen;
    const double step = (PI - -PI) / (double)(m - 1);
    for (int j = 0; j < rp->tlen; j++) {
        const int i = rp->tlen + j;
        const double fac = (i == m - 1) ? PI : (double)i * step + -PI;
        rp->taper[j] = 0.5 + 0.5 * cos(fac);
    }

    for (int64_t i = 0; i < npts; i++) rp->rbuf[i] = deconv_stf[i];
    for (int64_t i = npts; i < rp->nfft; i++) rp->rbuf[i] = 0.0;
    fftw_execute_dft_r2c(rp->r2c, rp->rbuf, rp->d);
    *plan = rp;
    return AXB_OK;
}

axb_status axb_reconv_set_stf(axb_reconv_plan *plan, const double *sliprate, int64_t nsliprate, double shift_samples,
                              axb_error *err)
{
    AXB_CHECK(err, plan != NULL && sliprate != NULL, AXB_ERR_ARG, "re-convolution: NULL argument");
    AXB_CHECK(err, nsliprate >= 1, AXB_ERR_ARG, "re-convolution: the source STF has %lld samples",
              (long long)nsliprate);
    AXB_CHECK(err, isfinite(shift_samples), AXB_ERR_ARG,
              "re-convolution: source time shift of %g samples is not finite", shift_samples);
    plan->have_stf = 0;
    /* rfft(x, n) zero-pads shorter inputs and truncates longer ones. */
    const int64_t nuse = nsliprate < plan->nfft ? nsliprate : plan->nfft;
    for (int64_t i = 0; i < nuse; i++) {
        AXB_CHECK(err, isfinite(sliprate[i]), AXB_ERR_ARG, "re-convolution: source STF sample %lld is not finite",
                  (long long)i);
        plan->rbuf[i] = sliprate[i];
    }
    for (int64_t i = nuse; i < plan->nfft; i++) plan->rbuf[i] = 0.0;
    fftw_execute_dft_r2c(plan->r2c, plan->rbuf, plan->h);

    fftw_complex *h = plan->h;
    const fftw_complex *d = plan->d;
    const double df = 1.0 / (double)plan->nfft; /* numpy.fft.rfftfreq(nfft)[k] = k·df */
    for (int k = 0; k < plan->nfreq; k++) {
        double cr = h[k][0], ci = h[k][1];
        if (shift_samples != 0.0) {
            /* Delay by shift_samples: multiply by exp(−2πi·f·shift). */
            const double phi = -((double)k * df * 2.0 * PI) * shift_samples;
            const double er = cos(phi), ei = sin(phi);
            const double tr = cr * er - ci * ei;
            ci = cr * ei + ci * er;
            cr = tr;
        }
        /* Divide by D where D ≠ 0 (numpy's |D| > 0), else 0, with numpy's complex division
         * (Smith's method) so the rounding matches Instaseis. */
        const double dr = d[k][0], di = d[k][1];
        if (dr == 0.0 && di == 0.0) {
            h[k][0] = 0.0;
            h[k][1] = 0.0;
        } else if (fabs(dr) >= fabs(di)) {
            const double rat = di / dr, scl = 1.0 / (dr + di * rat);
            h[k][0] = (cr + ci * rat) * scl;
            h[k][1] = (ci - cr * rat) * scl;
        } else {
            const double rat = dr / di, scl = 1.0 / (di + dr * rat);
            h[k][0] = (cr * rat + ci) * scl;
            h[k][1] = (ci * rat - cr) * scl;
        }
    }
    plan->have_stf = 1;
    return AXB_OK;
}

axb_status axb_reconv_apply(axb_reconv_plan *plan, double *data, axb_error *err)
{
    AXB_CHECK(err, plan != NULL && data != NULL, AXB_ERR_ARG, "re-convolution: NULL argument");
    AXB_CHECK(err, plan->have_stf, AXB_ERR_ARG, "re-convolution: no source STF set (axb_reconv_set_stf)");
    const int64_t npts = plan->npts, body = npts - plan->tlen;
    double *r = plan->rbuf;
    for (int64_t i = 0; i < body; i++) r[i] = data[i];
    for (int j = 0; j < plan->tlen; j++) r[body + j] = plan->taper[j] * data[body + j];
    for (int64_t i = npts; i < plan->nfft; i++) r[i] = 0.0;
    fftw_execute_dft_r2c(plan->r2c, r, plan->cbuf);

    fftw_complex *c = plan->cbuf;
    const fftw_complex *h = plan->h;
    for (int k = 0; k < plan->nfreq; k++) {
        const double ar = c[k][0], ai = c[k][1];
        c[k][0] = ar * h[k][0] - ai * h[k][1];
        c[k][1] = ar * h[k][1] + ai * h[k][0];
    }
    fftw_execute_dft_c2r(plan->c2r, c, r);
    /* FFTW's inverse is unnormalised; numpy's irfft scales by 1/n (exact: n is a power of 2). */
    const double scale = 1.0 / (double)plan->nfft;
    for (int64_t i = 0; i < npts; i++) data[i] = r[i] * scale;
    return AXB_OK;
}

axb_status axb_reconv_execute(axb_reconv_plan *plan, const double *sliprate, int64_t nsliprate, double shift_samples,
                              double *data, axb_error *err)
{
    AXB_TRY(axb_reconv_set_stf(plan, sliprate, nsliprate, shift_samples, err));
    return axb_reconv_apply(plan, data, err);
}
