/* Butterworth lowpass as obspy.signal.filter.lowpass computes it: scipy's iirfilter design
 * (buttap → lp2lp_zpk with prewarping → bilinear_zpk → zpk2sos) and sosfilt. The design follows
 * scipy's arithmetic step by step (including numpy's complex division) so the sections agree
 * with scipy's to the last bits; Instaseis' tests filter with it (test STF, test_fwd_vs_bwd). */
#include "axibulk/timeproc.h"

#include <math.h>

static const double PI = 3.14159265358979323846;

typedef struct cplx {
    double re, im;
} cplx;

static cplx c_mul(cplx a, cplx b)
{
    return (cplx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

/* numpy's complex division (Smith's method, its loops' exact expressions). */
static cplx c_div(cplx a, cplx b)
{
    if (fabs(b.re) >= fabs(b.im)) {
        const double rat = b.im / b.re, scl = 1.0 / (b.re + b.im * rat);
        return (cplx){(a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl};
    }
    const double rat = b.re / b.im, scl = 1.0 / (b.im + b.re * rat);
    return (cplx){(a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl};
}

/* Distance to the unit circle: zpk2sos builds the sections so that the least damped poles come
 * last. */
static double circle_distance(cplx p)
{
    return fabs(1.0 - hypot(p.re, p.im));
}

axb_status axb_butter_lowpass_sos(int corners, double wn, double (*sos)[6], int *nsections, axb_error *err)
{
    AXB_CHECK(err, sos != NULL && nsections != NULL, AXB_ERR_ARG, "Butterworth design: NULL argument");
    AXB_CHECK(err, corners >= 1 && corners <= AXB_LOWPASS_MAX_CORNERS, AXB_ERR_ARG,
              "Butterworth filter: %d corners, need 1..%d", corners, AXB_LOWPASS_MAX_CORNERS);
    AXB_CHECK(err, isfinite(wn) && wn > 0.0 && wn < 1.0, AXB_ERR_ARG,
              "Digital filter critical frequencies must be 0 < Wn < 1, got %g", wn);
    const int n = corners;

    /* buttap: p = −exp(iπm/(2N)), m = −N+1, −N+3, …, N−1; prewarp to fs = 2; lp2lp; bilinear.
     * Only the poles with positive imaginary part (m < 0) and the real one (m = 0, odd N) are
     * kept, which is what zpk2sos's _cplxreal reduces the list to (the conjugates are exact). */
    const double warped = 2.0 * 2.0 * tan(PI * wn / 2.0);
    const double fs2 = 4.0;
    cplx pc[AXB_LOWPASS_MAX_CORNERS / 2]; /* complex poles, positive imaginary part */
    int npc = 0;
    double preal[2]; /* the real pole (odd N) and the pole at 0 zpk2sos pads odd orders with */
    int npr = 0;
    cplx den = {1.0, 0.0}; /* prod(fs2 − p) over all N poles, in buttap's order */
    for (int m = -n + 1; m <= n - 1; m += 2) {
        /* numpy divides a complex by 2N as a complex: times the reciprocal. */
        const double theta = (PI * (double)m) * (1.0 / (double)(2 * n));
        const cplx pa = {-(cos(theta) * warped), -(sin(theta) * warped)};
        den = c_mul(den, (cplx){fs2 - pa.re, -pa.im});
        const cplx pz = c_div((cplx){fs2 + pa.re, pa.im}, (cplx){fs2 - pa.re, -pa.im});
        if (m < 0)
            pc[npc++] = pz;
        else if (m == 0)
            preal[npr++] = pz.re;
    }
    const double k = pow(warped, (double)n) * c_div((cplx){1.0, 0.0}, den).re;

    /* All N zeros are at −1; odd orders get one more at 0 (zpk2sos's padding). */
    int nzm1 = n, nz0 = 0;
    if (n % 2 == 1) {
        preal[npr++] = 0.0;
        nz0 = 1;
    }

    /* zpk2sos, 'nearest' pairing: fill sections from the last, each time with the remaining pole
     * closest to the unit circle and the zero(s) nearest to it. */
    const int nsec = (n + 1) / 2;
    for (int si = nsec - 1; si >= 0; si--) {
        int best = -1, best_is_real = 0;
        double best_dist = INFINITY;
        for (int i = 0; i < npc; i++) { /* complex ones precede the reals in scipy's list */
            const double dd = circle_distance(pc[i]);
            if (dd < best_dist) best_dist = dd, best = i, best_is_real = 0;
        }
        for (int i = 0; i < npr; i++) {
            const double dd = fabs(1.0 - fabs(preal[i]));
            if (dd < best_dist) best_dist = dd, best = i, best_is_real = 1;
        }
        double a1, a2;
        cplx p1;
        if (!best_is_real) {
            p1 = pc[best];
            pc[best] = pc[--npc];
            /* poly([p1, conj p1]) = [1, −p2 − p1, (−p1)(−p2)] */
            a1 = -p1.re + -p1.re;
            a2 = p1.re * p1.re + p1.im * p1.im;
        } else {
            /* Paired with the other real pole closest to the circle (here the only other). */
            const double r1 = preal[best];
            preal[best] = preal[--npr];
            int j2 = 0;
            for (int i = 1; i < npr; i++)
                if (fabs(1.0 - fabs(preal[i])) < fabs(1.0 - fabs(preal[j2]))) j2 = i;
            const double r2 = npr > 0 ? preal[j2] : 0.0;
            if (npr > 0) preal[j2] = preal[--npr];
            p1 = (cplx){r1, 0.0};
            a1 = -r2 + -r1;
            a2 = r1 * r2;
        }
        /* Nearest zero to p1 first, then the nearest remaining real one: the zeros are −1 and
         * (odd N) one 0. */
        double z[2];
        for (int q = 0; q < 2; q++) {
            const double d_m1 = hypot(-1.0 - p1.re, -p1.im), d_0 = hypot(p1.re, p1.im);
            if (nz0 > 0 && (nzm1 == 0 || d_0 < d_m1)) {
                z[q] = 0.0;
                nz0--;
            } else {
                z[q] = -1.0;
                nzm1--;
            }
        }
        sos[si][0] = 1.0;
        sos[si][1] = -z[1] + -z[0];
        sos[si][2] = z[0] * z[1];
        sos[si][3] = 1.0;
        sos[si][4] = a1;
        sos[si][5] = a2;
    }
    for (int j = 0; j < 3; j++) sos[0][j] *= k;
    *nsections = nsec;
    return AXB_OK;
}

axb_status axb_lowpass(double *x, int64_t n, double sampling_rate, double freq, int corners, bool zerophase,
                       axb_error *err)
{
    AXB_CHECK(err, n >= 0 && (x != NULL || n == 0), AXB_ERR_ARG, "lowpass: no data (%lld samples)", (long long)n);
    AXB_CHECK(err, isfinite(sampling_rate) && sampling_rate > 0.0, AXB_ERR_ARG,
              "lowpass: sampling rate %g Hz is not a positive number", sampling_rate);
    AXB_CHECK(err, isfinite(freq) && freq > 0.0, AXB_ERR_ARG,
              "lowpass: corner frequency %g Hz is not a positive number", freq);
    const double fe = 0.5 * sampling_rate;
    AXB_CHECK(err, freq < fe, AXB_ERR_RANGE, "lowpass: corner frequency %g Hz is not below the Nyquist frequency %g Hz",
              freq, fe);
    double sos[AXB_LOWPASS_MAX_CORNERS / 2][6];
    int nsec = 0;
    AXB_TRY(axb_butter_lowpass_sos(corners, freq / fe, sos, &nsec, err));

    /* scipy's sosfilt: transposed direct form II per section, zero initial state. The reverse
     * pass is ObsPy's flip → filter → flip done in place. */
    for (int pass = 0; pass < (zerophase ? 2 : 1); pass++) {
        double zi[AXB_LOWPASS_MAX_CORNERS / 2][2] = {{0.0}};
        const int64_t start = pass == 0 ? 0 : n - 1, step = pass == 0 ? 1 : -1;
        for (int64_t c = 0, i = start; c < n; c++, i += step) {
            double xc = x[i];
            for (int s = 0; s < nsec; s++) {
                const double xn = sos[s][0] * xc + zi[s][0];
                zi[s][0] = sos[s][1] * xc - sos[s][4] * xn + zi[s][1];
                zi[s][1] = sos[s][2] * xc - sos[s][5] * xn;
                xc = xn;
            }
            x[i] = xc;
        }
    }
    return AXB_OK;
}
