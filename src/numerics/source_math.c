/* Source arithmetic in Instaseis' conventions (instaseis/source.py, instaseis/helpers.py): latitude
 * conversion, double couples, moments, sliprates. The operations are written in the order Instaseis
 * (numpy/CPython) evaluates them, so the results agree to the last bits or nearly so. */
#include "axibulk/source.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static const double PI = 3.14159265358979323846;

/* CPython's math.radians/degrees multiply by these constants; numpy's deg2rad does the same. */
static const double DEG2RAD = 3.14159265358979323846 / 180.0;
static const double RAD2DEG = 180.0 / 3.14159265358979323846;

/* WGS84 semi-axes, the defaults of Instaseis' conversion functions. */
static const double WGS84_A = 6378137.0;
static const double WGS84_B = 6356752.314245;

static double wgs84_e2(void)
{
    const double f = (WGS84_A - WGS84_B) / WGS84_A;
    return 2 * f - f * f;
}

/* tan() blows up at the poles and the conversion is the identity at the equator, hence Instaseis'
 * pass-through band of 1e-6 degrees. */
static bool latitude_passthrough(double lat)
{
    return fabs(lat) < 1e-6 || fabs(lat - 90) < 1e-6 || fabs(lat + 90.0) < 1e-6;
}

double axb_geocentric_latitude(double geographic_deg)
{
    if (latitude_passthrough(geographic_deg)) return geographic_deg;
    return atan((1 - wgs84_e2()) * tan(geographic_deg * DEG2RAD)) * RAD2DEG;
}

double axb_geographic_latitude(double geocentric_deg)
{
    if (latitude_passthrough(geocentric_deg)) return geocentric_deg;
    return atan(tan(geocentric_deg * DEG2RAD) / (1 - wgs84_e2())) * RAD2DEG;
}

void axb_moment_from_strike_dip_rake(double strike, double dip, double rake, double m0, double m[6])
{
    /* Udias (17.24) in North-East-Down, mapped to (r, θ, φ): Mtt = Mxx, Mpp = Myy, Mrr = Mzz,
     * Mrt = Mxz, Mrp = −Myz, Mtp = −Mxy. */
    const double phi = strike * DEG2RAD, delta = dip * DEG2RAD, lambd = rake * DEG2RAD;
    const double m_tt =
        (-sin(delta) * cos(lambd) * sin(2.0 * phi) - sin(2.0 * delta) * pow(sin(phi), 2.0) * sin(lambd)) * m0;
    const double m_pp =
        (sin(delta) * cos(lambd) * sin(2.0 * phi) - sin(2.0 * delta) * pow(cos(phi), 2.0) * sin(lambd)) * m0;
    const double m_rr = (sin(2.0 * delta) * sin(lambd)) * m0;
    const double m_rp = (-cos(phi) * sin(lambd) * cos(2.0 * delta) + cos(delta) * cos(lambd) * sin(phi)) * m0;
    const double m_rt = (-sin(lambd) * sin(phi) * cos(2.0 * delta) - cos(delta) * cos(lambd) * cos(phi)) * m0;
    const double m_tp =
        (-sin(delta) * cos(lambd) * cos(2.0 * phi) - sin(2.0 * delta) * sin(2.0 * phi) * sin(lambd) / 2.0) * m0;
    m[0] = m_rr;
    m[1] = m_tt;
    m[2] = m_pp;
    m[3] = m_rt;
    m[4] = m_rp;
    m[5] = m_tp;
}

double axb_moment_m0(const double m[6])
{
    return sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2] + 2 * m[3] * m[3] + 2 * m[4] * m[4] + 2 * m[5] * m[5]) *
        sqrt(0.5);
}

double axb_moment_mw(double m0)
{
    if (m0 <= 0.0) return -INFINITY;
    return 2.0 / 3.0 * (log10(m0) - 9.1);
}

void axb_asymmetric_cosine(double trise, double tfall, int64_t npts, double dt, double *out)
{
    if (tfall == 0.0) tfall = trise; /* Instaseis: a missing fall time equals the rise time */
    /* numpy.linspace(0, npts*dt, npts, endpoint=False) spaces by (npts*dt)/npts, not dt. */
    const double step = ((double)npts * dt) / (double)npts;
    for (int64_t k = 0; k < npts; k++) {
        const double t = (double)k * step;
        double s = 0.0;
        if (t <= trise)
            s = 1.0 - cos(PI * t / trise);
        else if (t <= trise + tfall)
            s = 1.0 - cos(PI * (t - trise + tfall) / tfall);
        out[k] = s / (trise + tfall);
    }
}

/* numpy.interp on the uniform grid xp[j] = j*step_old (n points): constant beyond either end. */
static double interp_uniform(double x, const double *fp, int64_t n, double step_old)
{
    const double last = (double)(n - 1) * step_old;
    if (n == 1 || x >= last) return fp[n - 1];
    if (x < 0.0) return fp[0];
    /* floor(x/step) can be one off from numpy's search on the rounded grid values; fix it up. */
    int64_t j = (int64_t)floor(x / step_old);
    if (j > n - 2) j = n - 2;
    if (j < 0) j = 0;
    while (j > 0 && (double)j * step_old > x) j--;
    while (j < n - 2 && (double)(j + 1) * step_old <= x) j++;
    const double xj = (double)j * step_old, xj1 = (double)(j + 1) * step_old;
    if (xj == x) return fp[j];
    const double slope = (fp[j + 1] - fp[j]) / (xj1 - xj);
    return slope * (x - xj) + fp[j];
}

/* Integral from 0 to x of the piecewise-linear slip rate y (n samples at h, zero outside
 * [0, (n-1)h]); cum[j] is the integral up to sample j. */
static double integral_to(const double *y, const double *cum, int64_t n, double h, double x)
{
    if (x <= 0.0 || n < 2) return 0.0;
    const double end = (double)(n - 1) * h;
    if (x >= end) return cum[n - 1];
    int64_t j = (int64_t)(x / h);
    if (j > n - 2) j = n - 2;
    const double u = x - (double)j * h, yx = y[j] + (y[j + 1] - y[j]) * (u / h);
    return cum[j] + u * (y[j] + yx) / 2.0;
}

/* Coarser sampling: sample k is the mean of the slip rate over [(k-1/2) dt, (k+1/2) dt], so the
 * samples sum (times dt) to the trapezoidal integral of the original. Point values would miss a
 * pulse shorter than dt altogether (the 4-sample, 15 s pulse of docs/file-formats.md read at 0 and
 * 24.7 s gives two zeros: a silent zero seismogram). */
static void cell_averages(const double *y, int64_t n, double h, double dt, int64_t nsamp, double *cum, double *out)
{
    cum[0] = 0.0;
    for (int64_t j = 1; j < n; j++) cum[j] = cum[j - 1] + h * (y[j - 1] + y[j]) / 2.0;
    for (int64_t k = 0; k < nsamp; k++) {
        const double a = ((double)k - 0.5) * dt, b = ((double)k + 0.5) * dt;
        out[k] = (integral_to(y, cum, n, h, b) - integral_to(y, cum, n, h, a)) / dt;
    }
}

axb_status axb_source_resample_sliprate(axb_source *src, double dt, int64_t nsamp, axb_error *err)
{
    AXB_CHECK(err, src->sliprate && src->nsliprate > 0, AXB_ERR_ARG, "source '%s' has no sliprate to resample",
              src->name);
    AXB_CHECK(err, isfinite(src->dt) && src->dt > 0, AXB_ERR_ARG,
              "source '%s': sliprate sampling interval %g is not positive", src->name, src->dt);
    AXB_CHECK(err, isfinite(dt) && dt > 0 && nsamp > 0, AXB_ERR_ARG,
              "resampling a sliprate needs dt > 0 and nsamp > 0 (got %g, %lld)", dt, (long long)nsamp);
    double *out = (uint64_t)nsamp <= SIZE_MAX / sizeof *out ? malloc((size_t)nsamp * sizeof *out) : NULL;
    AXB_CHECK(err, out, AXB_ERR_NOMEM, "out of memory for a sliprate of %lld samples", (long long)nsamp);
    const int64_t n = src->nsliprate;
    const double step_old = (src->dt * (double)n) / (double)n;
    const double step_new = ((double)nsamp * dt) / (double)nsamp;
    if (dt > src->dt) {
        double *cum = malloc((size_t)n * sizeof *cum);
        if (!cum) free(out);
        AXB_CHECK(err, cum, AXB_ERR_NOMEM, "out of memory for a sliprate of %lld samples", (long long)n);
        cell_averages(src->sliprate, n, src->dt, dt, nsamp, cum, out);
        free(cum);
    } else
        for (int64_t k = 0; k < nsamp; k++) out[k] = interp_uniform((double)k * step_new, src->sliprate, n, step_old);
    free(src->sliprate);
    src->sliprate = out;
    src->nsliprate = nsamp;
    src->dt = dt;
    return AXB_OK;
}

axb_status axb_source_normalize_sliprate(axb_source *src, axb_error *err)
{
    AXB_CHECK(err, src->sliprate && src->nsliprate > 0, AXB_ERR_ARG, "source '%s' has no sliprate to normalise",
              src->name);
    /* numpy.trapz(y, dx=dt) = Σ dt·(y[k+1] + y[k])/2 */
    double area = 0.0;
    for (int64_t k = 0; k + 1 < src->nsliprate; k++) area += src->dt * (src->sliprate[k + 1] + src->sliprate[k]) / 2.0;
    AXB_CHECK(err, isfinite(area) && area != 0.0, AXB_ERR_RANGE, "sliprate integrates to %g and cannot be normalised",
              area);
    for (int64_t k = 0; k < src->nsliprate; k++) src->sliprate[k] /= area;
    return AXB_OK;
}

double axb_source_list_m0(const axb_source_list *l)
{
    double sum = 0.0;
    for (int64_t i = 0; i < l->n; i++)
        if (l->src[i].type == AXB_SRC_MOMENT) sum += axb_moment_m0(l->src[i].m);
    return sum;
}

int64_t axb_source_list_hypocentre(const axb_source_list *l)
{
    int64_t best = -1;
    for (int64_t i = 0; i < l->n; i++) {
        const double ts = l->src[i].time_shift;
        if (isnan(ts)) continue;
        if (best < 0 || ts < l->src[best].time_shift) best = i;
    }
    return best;
}

double axb_source_list_rupture_duration(const axb_source_list *l)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int64_t i = 0; i < l->n; i++) {
        const double ts = l->src[i].time_shift;
        if (isnan(ts)) continue;
        lo = fmin(lo, ts);
        hi = fmax(hi, ts);
    }
    return hi >= lo ? hi - lo : 0.0;
}
