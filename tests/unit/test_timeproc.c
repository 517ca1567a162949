/* Time-axis processing against independent references: Instaseis' test numbers for the time
 * bookkeeping (tests/test_instaseis.py, reference notes §2.13 and §5.3), ObsPy's own Lanczos test
 * values, Python/NumPy/SciPy numbers pasted below, analytic results (polynomial derivatives,
 * Butterworth gains, sinusoids) and properties of the re-convolution (identity, shifts,
 * linearity).
 *
 * The literals marked "Python" were printed by this script (Debian bookworm python3-numpy 1.24.2,
 * python3-scipy 1.10.1; ObsPy is not packaged for Debian, so its two algorithms used here are
 * spelled out: the Lanczos loop of obspy/signal/src/lanczos_resampling.c and
 * obspy.signal.filter.lowpass, which is iirfilter(output='sos') + sosfilt + flips):
 *
 *   import math
 *   import numpy as np
 *   from scipy.signal import iirfilter, sosfilt, windows
 *   def r(x): return repr(float(x))
 *   print("round", [r(round(x, n)) for x, n in [(2.675, 2), (0.125, 2), (0.375, 2), (2.5, 0),
 *         (-0.5, 0), (173.07391357421875 % 12.0, 8), (1.0000005, 6), (-2.5e-7, 6),
 *         (14.000000000123, 6), (1234567.0000005, 6)]])
 *   def sinc(x): return 1.0 if abs(x) < 1e-10 else math.sin(math.pi * x) / (math.pi * x)
 *   def lanczos(data, old_dt, new_start, new_dt, new_npts, a):
 *       dt = float(new_dt) / old_dt; off = (new_start - 0.0) / float(old_dt)
 *       out = [0.0] * new_npts
 *       for idx in range(new_npts):
 *           x = dt * idx + off
 *           for m in range(-a, a + 1):
 *               i = int(math.floor(x)) - m
 *               if i < 0 or i >= len(data): continue
 *               u = x - i
 *               if -a <= u <= a: out[idx] += data[i] * sinc(u) * sinc(u / a)
 *       return out
 *   dtdb = 24.724845445855724
 *   trace = [math.sin(0.3 * i) * math.exp(-((i - 30) / 12.0) ** 2)
 *            + 0.1 * math.cos(0.05 * i ** 1.5) for i in range(73)]
 *   for a in (12, 1):
 *       o = lanczos(trace, dtdb, 5.07391357, 12.0, 145, a)
 *       print("lanczos a=%d" % a, [r(o[k]) for k in range(0, 145, 16)])
 *   g = np.gradient(np.array(trace), 12.0)
 *   print("gradient", [r(g[k]) for k in (0, 1, 36, 71, 72)])
 *   def lowpass(x, freq, df, corners, zerophase):
 *       sos = iirfilter(corners, freq / (0.5 * df), btype='lowpass', ftype='butter',
 *                       output='sos')
 *       if zerophase:
 *           return np.flip(sosfilt(sos, np.flip(sosfilt(sos, x))))
 *       return sosfilt(sos, x)
 *   for n, wn in ((4, 0.1), (3, 0.37), (5, 0.1)):
 *       print("sos", n, wn, [r(v) for v in iirfilter(n, wn, btype='lowpass', ftype='butter',
 *                                                    output='sos').ravel()])
 *   s = np.zeros(1000); s[0] = 1.0
 *   s = lowpass(s, 0.01, 1.0 / dtdb, 4, False)
 *   s /= np.trapz(s, dx=dtdb)
 *   print("stf", [r(s[k]) for k in (0, 1, 5, 20, 60, 200)])
 *   x = np.array([(1.0 if i == 10 else 0.0) + (0.5 if i >= 50 else 0.0)
 *                 + 0.2 * math.sin(0.7 * i) for i in range(200)])
 *   y = lowpass(x, 0.1, 1.0, 3, True)
 *   print("zerophase", [r(y[k]) for k in (0, 10, 49, 120, 199)])
 *   npts, nfft = 73, 256
 *   stf_db = np.zeros(npts); stf_db[1:5] = [0.3, 0.5, 0.2, 0.1]
 *   data = np.array([0.0] + [math.sin(0.21 * i) * math.exp(-((i - 25) / 9.0) ** 2)
 *                            for i in range(1, npts)])
 *   ts = 37.3
 *   D = np.fft.rfft(stf_db, n=nfft)
 *   C = np.fft.rfft(s, n=nfft)
 *   C *= np.exp(-1j * np.fft.rfftfreq(nfft) * 2.0 * np.pi * ts / dtdb)
 *   tlen = max(int(math.ceil(0.05 * npts)), 5)
 *   taper = np.ones_like(data); taper[-tlen:] = windows.hann(tlen * 2)[tlen:]
 *   F = np.fft.rfft(taper * data, n=nfft)
 *   f = C; l = np.abs(D); idx = np.where(l > 0.0); f[idx] /= D[idx]; f[l == 0] = 0
 *   out = np.fft.irfft(F * f)[:npts]
 *   print("reconv", [r(out[k]) for k in (0, 3, 10, 25, 40, 60, 72)])
 *
 * (The re-convolution lines are Instaseis' get_seismograms reconvolve_stf branch verbatim in
 * numbers: nfft = 2·next_pow_2(73) = 256, 1000-sample STF truncated to 256.) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/timeproc.h"
#include "check.h"

static const double PI = 3.14159265358979323846;

/* Instaseis' test database (100s_db_bwd_displ_only), reference notes §2.13 "Test-DB values". */
static const double DT_DB = 24.724845445855724;
static const double SRC_SHIFT = 173.07391357421875;
enum { NPTS_DB = 73, SRC_SHIFT_SAMPLES = 7 };

/* |a − b| <= rel·|b| (+ tiny absolute floor for exact zeros). */
#define CHECK_REL(T, a, b, rel) CHECK_CLOSE(T, a, b, (rel)*fabs((double)(b)) + 1e-300)

/* Running maximum of errors that a NaN turns into +inf (fmax would drop the NaN). */
static double worst(double e, double d)
{
    return isnan(d) ? INFINITY : d > e ? d : e;
}

static double maxabs(const double *x, int64_t n)
{
    double m = 0.0;
    for (int64_t i = 0; i < n; i++)
        if (fabs(x[i]) > m) m = fabs(x[i]);
    return m;
}

/* The Python reference trace. */
static void ref_trace(double *x)
{
    for (int i = 0; i < NPTS_DB; i++)
        x[i] = sin(0.3 * i) * exp(-pow((i - 30) / 12.0, 2)) + 0.1 * cos(0.05 * pow(i, 1.5));
}

static axb_time_params db_params(double dt, int kw, bool remove, bool reconv)
{
    return (axb_time_params){.dt_db = DT_DB,
                             .npts_db = NPTS_DB,
                             .src_shift = SRC_SHIFT,
                             .src_shift_samples = SRC_SHIFT_SAMPLES,
                             .dt = dt,
                             .kernelwidth = kw,
                             .remove_source_shift = remove,
                             .reconvolve_stf = reconv};
}

static axb_status win_compute(axb_time_params p, axb_time_window *w, axb_error *err)
{
    return axb_time_window_compute(&p, w, err);
}

/* ----------------------------------------------------------------------------------------- */

static void test_py_round(check_ctx *T)
{
    /* Python round(); ties to even on the exact binary value (2.675 is below the tie). */
    CHECK(T, axb_py_round(2.675, 2) == 2.67);
    CHECK(T, axb_py_round(0.125, 2) == 0.12);
    CHECK(T, axb_py_round(0.375, 2) == 0.38);
    CHECK(T, axb_py_round(2.5, 0) == 2.0);
    CHECK(T, axb_py_round(-0.5, 0) == 0.0 && signbit(axb_py_round(-0.5, 0)));
    CHECK(T, axb_py_round(axb_py_mod(SRC_SHIFT, 12.0), 8) == 5.07391357);
    CHECK(T, axb_py_round(1.0000005, 6) == 1.000001);
    CHECK(T, axb_py_round(-2.5e-7, 6) == 0.0 && signbit(axb_py_round(-2.5e-7, 6)));
    CHECK(T, axb_py_round(14.000000000123, 6) == 14.0);
    CHECK(T, axb_py_round(1234567.0000005, 6) == 1234567.0);
    CHECK(T, axb_py_round(1e300, 6) == 1e300);
    CHECK(T, isnan(axb_py_round(NAN, 6)));
    /* Python % on floats: sign of the divisor. */
    CHECK(T, axb_py_mod(-1.0, 12.0) == 11.0);
    CHECK(T, axb_py_mod(1.0, -12.0) == -11.0);
    CHECK(T, axb_py_mod(24.0, 12.0) == 0.0);
}

/* test_get_time_information, ..._reconvolve_stf, test_remove_samples_at_end_for_interpolation. */
static void test_window_testdb(check_ctx *T)
{
    axb_error err = AXB_ERROR_INIT;
    axb_time_window w;

    /* dt None: ref 7, npts 66 (73 without removal), shift 0, endtime origin + 65·dt_db. */
    for (int kw = 2; kw <= 5; kw += 3) {
        CHECK(T,
              axb_time_window_compute(&(axb_time_params){.dt_db = DT_DB,
                                                         .npts_db = 73,
                                                         .src_shift = SRC_SHIFT,
                                                         .src_shift_samples = 7,
                                                         .kernelwidth = kw,
                                                         .remove_source_shift = true},
                                      &w, &err) == AXB_OK);
        CHECK(T, !w.resample && w.dt_out == DT_DB && w.ref_sample == 7 && w.npts == 66);
        CHECK(T, w.npts_before_shift_removal == 73 && w.samples_cut_at_end == 0);
        CHECK(T, w.time_shift_at_beginning == 0.0 && w.start_offset == 0.0);
        CHECK(T, w.start_offset + (w.npts - 1) * w.dt_out == 65 * DT_DB);
    }
    CHECK(T,
          axb_time_window_compute(
              &(axb_time_params){
                  .dt_db = DT_DB, .npts_db = 73, .src_shift = SRC_SHIFT, .src_shift_samples = 7, .kernelwidth = 5},
              &w, &err) == AXB_OK);
    CHECK(T, w.ref_sample == 7 && w.npts == 73 && w.npts_before_shift_removal == 73);
    CHECK(T, w.start_offset == -7 * DT_DB);
    CHECK(T, w.start_offset + (w.npts - 1) * w.dt_out == 65 * DT_DB);

    /* dt = db dt, a = 2 or 5: resampled ("identity"), nothing cut, same numbers. */
    for (int rm = 0; rm < 2; rm++)
        for (int kw = 2; kw <= 5; kw += 3) {
            CHECK(T, win_compute(db_params(DT_DB, kw, rm, false), &w, &err) == AXB_OK);
            CHECK(T, w.resample && w.dt_out == DT_DB && w.samples_cut_at_end == 0);
            CHECK(T, w.ref_sample == 7 && w.time_shift_at_beginning == 0.0);
            CHECK(T, w.npts_before_shift_removal == 73 && w.npts == (rm ? 66 : 73));
        }

    /* dt = 12: a = 1/2/7 → cut 3/5/15, ref 14, npts_before 145/143/133, npts 131/129/119;
     * shift ≈ ((7·dt_db)/12 mod 1)·12 to 4 decimals (Instaseis' assertion), = 5.07391357. */
    const int kws[3] = {1, 2, 7}, cut[3] = {3, 5, 15}, before[3] = {145, 143, 133};
    for (int i = 0; i < 3; i++)
        for (int rm = 0; rm < 2; rm++) {
            CHECK(T, win_compute(db_params(12.0, kws[i], rm, false), &w, &err) == AXB_OK);
            CHECK_MSG(T,
                      w.samples_cut_at_end == cut[i] && w.ref_sample == 14 &&
                          w.npts_before_shift_removal == before[i] && w.npts == before[i] - (rm ? 14 : 0),
                      "a=%d rm=%d: cut %d ref %d before %lld npts %lld", kws[i], rm, w.samples_cut_at_end, w.ref_sample,
                      (long long)w.npts_before_shift_removal, (long long)w.npts);
            CHECK(T, w.time_shift_at_beginning == 5.07391357);
            CHECK(T,
                  axb_py_round(w.time_shift_at_beginning, 4) ==
                      axb_py_round(axb_py_mod((7 * DT_DB) / 12.0, 1) * 12.0, 4));
            CHECK(T, w.start_offset == (rm ? 0.0 : -14 * 12.0));
            /* endtime = origin + int((int(65·dt_db/12)·12 − a·dt_db)/12)·12 */
            const double endtime_with_dt = (double)(int)((65 * DT_DB) / 12.0) * 12.0;
            const double endtime_minus_a = endtime_with_dt - kws[i] * DT_DB;
            CHECK(T, w.start_offset + (double)(w.npts - 1) * 12.0 == (double)(int)(endtime_minus_a / 12.0) * 12.0);
        }

    /* test_remove_samples_at_end_for_interpolation: npts = int(65·dt_db/12) + 1 − 3/5/7. */
    const int samples = (int)((65 * DT_DB) / 12.0) + 1;
    for (int kw = 1; kw <= 3; kw++) {
        CHECK(T, win_compute(db_params(12.0, kw, true, false), &w, &err) == AXB_OK);
        CHECK_MSG(T, w.npts == samples - (2 * kw + 1), "a=%d: npts %lld", kw, (long long)w.npts);
    }

    /* Re-convolution: dt None → ref 0, npts 73; dt = 12, a = 1/2/7 → 146/144/134, start 0. */
    CHECK(T, win_compute(db_params(0.0, 12, false, true), &w, &err) == AXB_OK);
    CHECK(T, w.ref_sample == 0 && w.npts == 73 && w.npts_before_shift_removal == 73);
    CHECK(T, w.start_offset == 0.0 && w.start_offset + 72 * w.dt_out == 72 * DT_DB);
    const int rbefore[3] = {146, 144, 134};
    for (int i = 0; i < 3; i++) {
        CHECK(T, win_compute(db_params(12.0, kws[i], false, true), &w, &err) == AXB_OK);
        CHECK(T,
              w.samples_cut_at_end == cut[i] && w.ref_sample == 0 && w.npts == rbefore[i] &&
                  w.npts_before_shift_removal == rbefore[i] && w.time_shift_at_beginning == 0.0 &&
                  w.start_offset == 0.0);
        /* Instaseis' endtime: int((int(72·dt_db/12)·12 − cut)/12)·12, the cut written as
         * ceil(a·dt_db/12)·12 for a = 1 and as a·dt_db for a = 2, 7. */
        const double endtime_with_dt = (double)(int)((72 * DT_DB) / 12.0) * 12.0;
        const double minus_a = endtime_with_dt - (kws[i] == 1 ? ceil(kws[i] * DT_DB / 12.0) * 12.0 : kws[i] * DT_DB);
        CHECK(T, (double)(w.npts - 1) * 12.0 == (double)(int)(minus_a / 12.0) * 12.0);
    }

    /* The integer branch: dt dividing the shift to 1e-5 samples. src_shift/dt = 14 exactly →
     * ref 14, shift = round(7·dt_db − 14·dt, 6) = 0 (src_shift = 7·dt_db here). */
    axb_time_params p = db_params(0.0, 3, true, false);
    p.src_shift = 7 * DT_DB;
    p.dt = p.src_shift / 14.0;
    CHECK(T, axb_time_window_compute(&p, &w, &err) == AXB_OK);
    CHECK(T, w.ref_sample == 14 && w.time_shift_at_beginning == 0.0);
    CHECK(T, w.npts_before_shift_removal == 145 - (int)ceil(3 * DT_DB / p.dt));
}

static void test_window_errors(check_ctx *T)
{
    axb_error err = AXB_ERROR_INIT;
    axb_time_window w = {0};
    axb_time_params p;

    p = db_params(-1.0, 12, true, false);
    CHECK(T, axb_time_window_compute(&p, &w, &err) == AXB_ERR_ARG);
    CHECK_STR(T, err.msg, "dt must be bigger than 0.");
    axb_error_clear(&err);
    p = db_params(25.0, 12, true, false);
    CHECK(T, axb_time_window_compute(&p, &w, &err) == AXB_ERR_RANGE);
    CHECK_CONTAINS(T, err.msg,
                   "The database is sampled with a sample spacing of 24.725 seconds. "
                   "You must not pass a 'dt' larger than that");
    const double bad_dt[3] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 3; i++) {
        axb_error_clear(&err);
        p = db_params(bad_dt[i], 12, true, false);
        CHECK(T, axb_time_window_compute(&p, &w, &err) == AXB_ERR_ARG);
        CHECK_CONTAINS(T, err.msg, "dt must be a finite number");
    }
    axb_error_clear(&err);
    p = db_params(12.0, 12, true, true);
    CHECK(T, axb_time_window_compute(&p, &w, &err) == AXB_ERR_ARG);
    CHECK_STR(T, err.msg, "'remove_source_shift' argument not compatible with 'reconvolve_stf'.");
    axb_error_clear(&err);
    p = db_params(12.0, 0, true, false);
    CHECK(T, axb_time_window_compute(&p, &w, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "kernelwidth must be at least 1");
    axb_error_clear(&err);
    p = db_params(12.0, 12, true, false);
    p.dt_db = NAN;
    CHECK(T, axb_time_window_compute(&p, &w, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "database sample spacing");
    axb_error_clear(&err);
    p = db_params(12.0, 12, true, false);
    p.src_shift = NAN;
    CHECK(T, axb_time_window_compute(&p, &w, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "source shift");
    axb_error_clear(&err);
    p = db_params(12.0, 12, true, false);
    p.src_shift_samples = 73;
    CHECK(T, axb_time_window_compute(&p, &w, &err) == AXB_ERR_ARG);
    axb_error_clear(&err);
    p = db_params(12.0, 12, true, false);
    p.npts_db = 1;
    CHECK(T, axb_time_window_compute(&p, &w, &err) == AXB_ERR_ARG);
    /* A kernel wider than the trace leaves nothing after the peak. */
    axb_error_clear(&err);
    p = db_params(12.0, 70, true, false);
    CHECK(T, axb_time_window_compute(&p, &w, &err) == AXB_ERR_RANGE);
    CHECK_CONTAINS(T, err.msg, "kernelwidth 70");
    /* A denormal dt asks for more samples than anyone can hold. */
    axb_error_clear(&err);
    p = db_params(1e-300, 12, true, false);
    CHECK(T, axb_time_window_compute(&p, &w, &err) == AXB_ERR_RANGE);
    CHECK_CONTAINS(T, err.msg, "samples per trace");
    /* Integer branch with a shift just below zero: ObsPy refuses to extrapolate, so do we. */
    axb_error_clear(&err);
    p = db_params(0.0, 3, true, false);
    p.src_shift = 7 * DT_DB + 2e-6; /* src_shift/dt still 14 to 5 decimals */
    p.dt = 7 * DT_DB / 14.0 + 1e-7;
    CHECK(T, axb_time_window_compute(&p, &w, &err) == AXB_ERR_RANGE);
    CHECK_CONTAINS(T, err.msg, "outside the database trace");
    CHECK(T, axb_time_window_compute(NULL, &w, &err) == AXB_ERR_ARG);
}

/* ----------------------------------------------------------------------------------------- */

static void test_lanczos_obspy(check_ctx *T)
{
    /* obspy/signal/tests/test_interpolation.py test_lanczos_interpolation: the input and
     * expected outputs (8 decimals) of its two scenarios, with its criterion (numpy
     * assert_allclose, atol 1e-9 and the default rtol 1e-7); the literals' rounding puts the
     * actual differences at up to 8e-9. */
    const double data[10] = {0.92961609, 0.31637555, 0.18391881, 0.20456028, 0.56772503,
                             0.5955447,  0.96451452, 0.6531771,  0.74890664, 0.65356987};
    const double exp1[21] = {0.92961609, 0.55712768, 0.31720733, 0.24275977, 0.17825931, 0.16750234, 0.17561933,
                             0.20626905, 0.37726064, 0.5647072,  0.47145546, 0.59222238, 0.58665834, 0.91241347,
                             0.79909224, 0.61631275, 0.61258393, 0.61611633, 0.73239733, 0.56371682, 0.65356987};
    const double exp2[13] = {0.92961609, 0.54632548, 0.14335148, 0.19675436, 0.19030867, 0.41722415, 0.60644459,
                             0.6018648,  0.88751628, 0.90970863, 0.58602723, 0.71521445, 0.83288791};
    double out[21];
    axb_lanczos_resample(data, 10, 1.0, 0.0, 0.45, 21, 1, out);
    for (int i = 0; i < 21; i++) CHECK_CLOSE(T, out[i], exp1[i], 1e-9 + 1e-7 * fabs(exp1[i]));
    axb_lanczos_resample(data, 10, 1.0, 0.0, 0.72, 13, 12, out);
    for (int i = 0; i < 13; i++) CHECK_CLOSE(T, out[i], exp2[i], 1e-9 + 1e-7 * fabs(exp2[i]));

    /* test_lanczos_interpolation_units: a 1000-sample sine period resampled 13.333 s → 17.23 s
     * (start 10 samples in) and back agrees with the original to 1e-4 away from the ends. */
    enum { N = 1000 };
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *z = malloc(N * sizeof *z);
    for (int i = 0; i < N; i++) x[i] = sin(0.0 + i * (2 * PI / (N - 1)));
    const double odt = 13.333, ndt = 17.23;
    const int64_t n1 = (int64_t)(990 * odt / ndt), n2 = (int64_t)(980 * odt / ndt) - 1;
    axb_lanczos_resample(x, N, odt, 10 * odt, ndt, n1, 20, y);
    axb_lanczos_resample(y, n1, ndt, 10 * odt, odt, n2, 20, z);
    double e = 0.0;
    for (int i = 0; i < 400; i++) e = worst(e, fabs(x[220 + i] - z[200 + i]) / (1e-4 + 1e-4 * fabs(z[200 + i])));
    CHECK_MSG(T, e <= 1.0, "round trip error ratio %g", e);
    free(x);
    free(y);
    free(z);
}

static void test_lanczos_python(check_ctx *T)
{
    /* Python (script in the header): ObsPy's loop, Test-DB axis dt_db → 12 s from 5.07391357 s,
     * outputs 0, 16, …, 144. Same IEEE operations → equal up to libm sin differences: 4e-16
     * absolute (the trace's peak is ~0.6, so a few ulps). */
    static const double ref12[10] = {
        0.11062671979275793, 0.06649910225747485,  -0.34351630517069126, 0.6009737331908741,  -0.03333553901079367,
        -0.3357262930386895, 0.044523201538274375, 0.01723200026181823,  0.08601254968514159, -0.04977271222184229};
    static const double ref1[10] = {
        0.09272612823240334,  0.06586654797422759, -0.31166120553249915, 0.484335629866813,   0.014676980452565176,
        -0.34062240582920006, 0.04028738109069843, 0.010713880619175113, 0.06812817735786277, -0.0516617737006801};
    double trace[NPTS_DB], out[145], out_plan[145];
    ref_trace(trace);
    axb_error err = AXB_ERROR_INIT;
    for (int pass = 0; pass < 2; pass++) {
        const int a = pass == 0 ? 12 : 1;
        const double *ref = pass == 0 ? ref12 : ref1;
        axb_lanczos_resample(trace, NPTS_DB, DT_DB, 5.07391357, 12.0, 145, a, out);
        for (int k = 0; k < 10; k++) CHECK_CLOSE(T, out[16 * k], ref[k], 4e-16);
        /* The planned weights give the same numbers to one rounding per tap (~1e-16 of peak). */
        axb_lanczos_plan *lp = NULL;
        CHECK(T, axb_lanczos_plan_create(NPTS_DB, DT_DB, 5.07391357, 12.0, 145, a, &lp, &err) == AXB_OK);
        if (lp == NULL) continue;
        axb_lanczos_plan_apply(lp, trace, out_plan);
        double e = 0.0;
        for (int k = 0; k < 145; k++) e = worst(e, fabs(out_plan[k] - out[k]));
        CHECK_MSG(T, e <= 1e-15, "a=%d: plan vs direct %g", a, e);
        axb_lanczos_plan_destroy(&lp);
        CHECK(T, lp == NULL);
    }
}

static void test_lanczos_properties(check_ctx *T)
{
    double trace[NPTS_DB], out[NPTS_DB];
    ref_trace(trace);
    /* Identity: new_dt == old_dt, start 0. For a = 1 the neighbours' weights are sinc(1)² ~ 1e-33,
     * far below an ulp of the data, so the result is bit for bit the input (Instaseis'
     * test_remove_samples_at_end_for_interpolation compares traces exactly). */
    axb_lanczos_resample(trace, NPTS_DB, DT_DB, 0.0, DT_DB, NPTS_DB, 1, out);
    CHECK(T, memcmp(out, trace, sizeof out) == 0);
    /* a = 12: weights sinc(k)·sinc(k/12) ~ 4e-17 → within 1e-15 of the peak. */
    axb_lanczos_resample(trace, NPTS_DB, DT_DB, 0.0, DT_DB, NPTS_DB, 12, out);
    double e = 0.0;
    for (int i = 0; i < NPTS_DB; i++) e = worst(e, fabs(out[i] - trace[i]));
    CHECK_MSG(T, e <= 1e-15, "identity a=12: %g", e);

    /* Band-limited sinusoid (0.05 cycles per input sample, a tenth of Nyquist) resampled to
     * 0.37 of the spacing from an offset start: Lanczos a = 12 reproduces it to 5e-4 (measured
     * 2.7e-4: the windowed kernel's weights do not sum to exactly 1 between samples) away from
     * the a-sample edges. The error must also be non-zero, or the check compared nothing. */
    enum { N = 400, M = 900 };
    double *x = malloc(N * sizeof *x), *y = malloc(M * sizeof *y);
    const double f = 0.05, dt = 2.0;
    for (int i = 0; i < N; i++) x[i] = sin(2 * PI * f * i + 0.3);
    const double start = 1.7, ndt = 0.37 * dt;
    axb_lanczos_resample(x, N, dt, start, ndt, M, 12, y);
    e = 0.0;
    for (int k = 0; k < M; k++) {
        const double t = (start + k * ndt) / dt; /* in input samples */
        if (t < 12 || t > N - 1 - 12) continue;
        e = worst(e, fabs(y[k] - sin(2 * PI * f * t + 0.3)));
    }
    CHECK_MSG(T, e <= 5e-4 && e > 0.0, "sinusoid a=12: %g", e);
    const double e12 = e;
    /* A larger a is better: a = 40 within 5e-6 (measured 2.6e-6), 100 times better than a = 12. */
    axb_lanczos_resample(x, N, dt, start, ndt, M, 40, y);
    e = 0.0;
    for (int k = 0; k < M; k++) {
        const double t = (start + k * ndt) / dt;
        if (t < 40 || t > N - 1 - 40) continue;
        e = worst(e, fabs(y[k] - sin(2 * PI * f * t + 0.3)));
    }
    CHECK_MSG(T, e <= 5e-6 && e < e12 / 50, "sinusoid a=40: %g", e);
    free(x);
    free(y);

    /* Plan checks are ObsPy's: no extrapolation, a >= 1. */
    axb_error err = AXB_ERROR_INIT;
    axb_lanczos_plan *lp = NULL;
    CHECK(T, axb_lanczos_plan_create(NPTS_DB, DT_DB, 0.0, 12.0, 150, 12, &lp, &err) == AXB_ERR_RANGE && lp == NULL);
    CHECK_CONTAINS(T, err.msg, "no extrapolation");
    axb_error_clear(&err);
    CHECK(T, axb_lanczos_plan_create(NPTS_DB, DT_DB, -1.0, 12.0, 10, 12, &lp, &err) == AXB_ERR_RANGE);
    axb_error_clear(&err);
    CHECK(T, axb_lanczos_plan_create(NPTS_DB, DT_DB, 0.0, 12.0, 10, 0, &lp, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "a = 0");
    axb_error_clear(&err);
    CHECK(T, axb_lanczos_plan_create(NPTS_DB, DT_DB, 0.0, NAN, 10, 3, &lp, &err) == AXB_ERR_ARG);
    /* The last sample exactly at the end of the input is allowed (Instaseis' identity case). */
    CHECK(T, axb_lanczos_plan_create(NPTS_DB, DT_DB, 0.0, DT_DB, NPTS_DB, 3, &lp, &err) == AXB_OK);
    axb_lanczos_plan_destroy(&lp);
    axb_lanczos_plan_destroy(&lp); /* no-op on NULL */
    axb_lanczos_plan_destroy(NULL);
}

/* ----------------------------------------------------------------------------------------- */

static void test_gradient(check_ctx *T)
{
    /* Python numpy.gradient(trace, 12.0) at 0, 1, 36, 71, 72: same expressions → exact. */
    static const double ref[5] = {6.12007552297777e-05, 6.0044010760984534e-05, 0.0048825534661858195,
                                  0.0049102256903177195, 0.004816422714903679};
    static const int at[5] = {0, 1, 36, 71, 72};
    double trace[NPTS_DB], g[NPTS_DB];
    ref_trace(trace);
    axb_gradient(trace, NPTS_DB, 12.0, g);
    for (int k = 0; k < 5; k++) CHECK_MSG(T, g[at[k]] == ref[k], "%.17g vs %.17g", g[at[k]], ref[k]);
    /* In place gives the same bits. */
    double h[NPTS_DB];
    memcpy(h, trace, sizeof h);
    axb_gradient(h, NPTS_DB, 12.0, h);
    CHECK(T, memcmp(h, g, sizeof h) == 0);

    /* Quadratic f = 3x² − 2x + 1 on x = 0.5k: central differences are exact in the interior
     * (f' = 6x − 2), the one-sided ends are off by f''·dx/2 = 1.5 (analytically; 1e-12 for
     * rounding of values up to ~3e3). */
    enum { N = 33 };
    double q[N], dq[N];
    const double dx = 0.5;
    for (int k = 0; k < N; k++) {
        const double x = dx * k;
        q[k] = 3 * x * x - 2 * x + 1;
    }
    axb_gradient(q, N, dx, dq);
    for (int k = 1; k < N - 1; k++) CHECK_CLOSE(T, dq[k], 6 * dx * k - 2, 1e-12);
    CHECK_CLOSE(T, dq[0], -2 + 1.5, 1e-12);
    CHECK_CLOSE(T, dq[N - 1], 6 * dx * (N - 1) - 2 - 1.5, 1e-12);
    /* Tiny lengths: n = 2 is one difference at both ends, n = 1 gives 0 (NumPy raises). */
    double two[2] = {1.0, 4.0}, one[1] = {5.0};
    axb_gradient(two, 2, 0.5, two);
    CHECK(T, two[0] == 6.0 && two[1] == 6.0);
    axb_gradient(one, 1, 0.5, one);
    CHECK(T, one[0] == 0.0);

    /* cumulative trapezoid: exact for a linear function, ∫(2x+1) = x² + x. */
    double lin[N], il[N];
    for (int k = 0; k < N; k++) lin[k] = 2 * dx * k + 1;
    axb_cumtrapz(lin, N, dx, il);
    for (int k = 0; k < N; k++) CHECK_CLOSE(T, il[k], (dx * k) * (dx * k) + dx * k, 1e-12);
}

/* ----------------------------------------------------------------------------------------- */

static void test_time_finish(check_ctx *T)
{
    axb_error err = AXB_ERROR_INIT;
    double trace[NPTS_DB];
    ref_trace(trace);
    /* ObsPy's Lanczos values at outputs 16, 32, …, 112 (Python, see test_lanczos_python). */
    static const double ref12[7] = {0.06649910225747485, -0.34351630517069126, 0.6009737331908741, -0.03333553901079367,
                                    -0.3357262930386895, 0.044523201538274375, 0.01723200026181823};

    /* dt = 12 s, a = 12, shift removed: cut ceil(12·dt_db/12) = 25 at the end, 14 at the start. */
    axb_time_window w;
    CHECK(T, win_compute(db_params(12.0, 12, true, false), &w, &err) == AXB_OK);
    CHECK(T, w.samples_cut_at_end == 25 && w.npts_before_shift_removal == 123 && w.npts == 109);
    CHECK(T, axb_time_work_len(&w, NPTS_DB) == 123);
    double out[200], out_plan[200], work[200], dref[200];
    axb_time_finish(&w, NPTS_DB, DT_DB, 12, 0, trace, out, work);
    for (int k = 1; k <= 7; k++) CHECK_CLOSE(T, out[16 * k - 14], ref12[k - 1], 4e-16);

    /* One derivative: numpy.gradient of the resampled trace at 12 s, then the cut. */
    axb_lanczos_resample(trace, NPTS_DB, DT_DB, w.time_shift_at_beginning, 12.0, 123, 12, dref);
    axb_gradient(dref, 123, 12.0, dref);
    axb_time_finish(&w, NPTS_DB, DT_DB, 12, 1, trace, out, work);
    CHECK(T, memcmp(out, dref + 14, 109 * sizeof *out) == 0);

    /* Planned: same window, same numbers to ~1e-16 of the peak. */
    axb_time_plan *tp = NULL;
    CHECK(T, axb_time_plan_create(&w, NPTS_DB, DT_DB, 12, &tp, &err) == AXB_OK);
    if (tp != NULL) {
        CHECK(T, axb_time_plan_work_len(tp) == 123 && axb_time_plan_window(tp)->npts == 109);
        axb_time_plan_finish(tp, 1, trace, out_plan, work);
        double e = 0.0;
        for (int k = 0; k < 109; k++) e = worst(e, fabs(out_plan[k] - out[k]));
        CHECK_MSG(T, e <= 1e-16 * maxabs(out, 109) * 10, "plan vs direct %g", e);
        axb_time_plan_destroy(&tp);
        CHECK(T, tp == NULL);
    }

    /* No resampling: the cut of 7 samples, derivatives at dt_db. */
    CHECK(T, win_compute(db_params(0.0, 12, true, false), &w, &err) == AXB_OK);
    CHECK(T, axb_time_work_len(&w, NPTS_DB) == NPTS_DB);
    axb_time_finish(&w, NPTS_DB, DT_DB, 12, 0, trace, out, work);
    CHECK(T, memcmp(out, trace + 7, 66 * sizeof *out) == 0);
    double g2[NPTS_DB];
    axb_gradient(trace, NPTS_DB, DT_DB, g2);
    axb_gradient(g2, NPTS_DB, DT_DB, g2);
    axb_time_finish(&w, NPTS_DB, DT_DB, 12, 2, trace, out, work);
    CHECK(T, memcmp(out, g2 + 7, 66 * sizeof *out) == 0);
    CHECK(T, axb_time_plan_create(&w, NPTS_DB, DT_DB, 12, &tp, &err) == AXB_OK);
    if (tp != NULL) {
        axb_time_plan_finish(tp, 2, trace, out_plan, work);
        CHECK(T, memcmp(out_plan, out, 66 * sizeof *out) == 0);
        axb_time_plan_destroy(&tp);
    }
    /* Shift kept: nothing cut. Negative n_derivative integrates: ∫1 dt = t (1e-10 absolute for
     * the rounding of 72 additions up to 1780 s). */
    CHECK(T, win_compute(db_params(0.0, 12, false, false), &w, &err) == AXB_OK);
    double ones[NPTS_DB];
    for (int i = 0; i < NPTS_DB; i++) ones[i] = 1.0;
    axb_time_finish(&w, NPTS_DB, DT_DB, 12, -1, ones, out, work);
    for (int i = 0; i < NPTS_DB; i += 9) CHECK_CLOSE(T, out[i], i * DT_DB, 1e-10);
    /* Identity resampling with a = 1 equals no resampling exactly (Instaseis'
     * test_remove_samples_at_end_for_interpolation: tr == tr_2). */
    axb_time_window wi;
    CHECK(T, win_compute(db_params(DT_DB, 1, true, false), &wi, &err) == AXB_OK);
    CHECK(T, win_compute(db_params(0.0, 1, true, false), &w, &err) == AXB_OK);
    axb_time_finish(&wi, NPTS_DB, DT_DB, 1, 0, trace, out, work);
    axb_time_finish(&w, NPTS_DB, DT_DB, 1, 0, trace, out_plan, work);
    CHECK(T, wi.npts == w.npts && memcmp(out, out_plan, 66 * sizeof *out) == 0);

    /* A window that does not fit the database length is refused by the plan. */
    CHECK(T, axb_time_plan_create(&w, 50, DT_DB, 1, &tp, &err) == AXB_ERR_ARG && tp == NULL);
}

/* ----------------------------------------------------------------------------------------- */

/* Instaseis' taper, written from the spec: 1, then 0.5 − 0.5·cos(2π(L+n)/(2L−1)). */
static void spec_taper(const double *x, int n, double *y)
{
    const int L = (int)fmax(ceil(0.05 * n), 5);
    for (int i = 0; i < n; i++) y[i] = x[i];
    for (int j = 0; j < L; j++) y[n - L + j] *= 0.5 - 0.5 * cos(2 * PI * (L + j) / (2 * L - 1));
}

static void make_stf(double *s, int n)
{
    /* A smooth bump at the start of the trace; its spectrum never vanishes at nfft = 256. */
    for (int i = 0; i < n; i++) s[i] = 0.0;
    const double v[4] = {0.3, 0.5, 0.2, 0.1};
    for (int i = 0; i < 4; i++) s[1 + i] = v[i];
}

static void test_reconv(check_ctx *T)
{
    axb_error err = AXB_ERROR_INIT;
    enum { N = NPTS_DB };
    double stf[N], data[N], x[N], y[N], tx[N];
    make_stf(stf, N);
    for (int i = 0; i < N; i++) data[i] = i == 0 ? 0.0 : sin(0.21 * i) * exp(-pow((i - 25) / 9.0, 2));
    axb_reconv_plan *rp = NULL;
    CHECK(T, axb_reconv_plan_create(N, stf, &rp, &err) == AXB_OK);
    if (rp == NULL) return;
    CHECK(T, axb_reconv_plan_nfft(rp) == 256); /* 2·next_pow_2(73) */
    const double peak = maxabs(data, N);
    spec_taper(data, N, tx);

    /* Re-convolving with the STF used for deconvolution returns the (tapered) input. */
    memcpy(x, data, sizeof x);
    CHECK(T, axb_reconv_execute(rp, stf, N, 0.0, x, &err) == AXB_OK);
    double e = 0.0, e_body = 0.0;
    for (int i = 0; i < N; i++) e = worst(e, fabs(x[i] - tx[i]));
    for (int i = 0; i < N - 5; i++) e_body = worst(e_body, fabs(x[i] - data[i]));
    CHECK_MSG(T, e <= 1e-14 * peak, "same STF: %g", e);
    CHECK_MSG(T, e_body <= 1e-14 * peak, "same STF before the taper: %g", e_body);
    CHECK(T, fabs(x[N - 1]) <= 1e-14 * peak); /* the taper's last value is 0 */

    /* An integer time shift is a circular delay over nfft = 256 (zero padding beyond 73). */
    const int shifts[3] = {5, -3, 200};
    for (int s = 0; s < 3; s++) {
        memcpy(x, data, sizeof x);
        CHECK(T, axb_reconv_execute(rp, stf, N, shifts[s], x, &err) == AXB_OK);
        e = 0.0;
        for (int i = 0; i < N; i++) {
            const int j = ((i - shifts[s]) % 256 + 256) % 256;
            e = worst(e, fabs(x[i] - (j < N ? tx[j] : 0.0)));
        }
        CHECK_MSG(T, e <= 1e-14 * peak, "shift %d: %g", shifts[s], e);
    }

    /* The source STF is used over nfft samples, not npts: the database STF placed at sample 200
     * delays by 200 (circularly, like the shift above), and anything from sample 256 on is cut
     * off (numpy's rfft(x, n) truncates). */
    {
        double late[400] = {0};
        for (int i = 0; i < N; i++) late[200 + i] = stf[i];
        for (int i = 0; i < 50; i++) late[300 + i] = 1.0 + i; /* beyond nfft */
        memcpy(x, data, sizeof x);
        CHECK(T, axb_reconv_execute(rp, late, 400, 0.0, x, &err) == AXB_OK);
        e = 0.0;
        for (int i = 0; i < N; i++) e = worst(e, fabs(x[i] - (i + 56 < N ? tx[i + 56] : 0.0)));
        CHECK_MSG(T, e <= 1e-14 * peak, "STF beyond npts: %g", e);
    }

    /* Linearity in the data and in the source STF (non-integer shift, 2.5 samples). */
    double s1[300], s2[300], s12[300], z[N];
    for (int i = 0; i < 300; i++) {
        s1[i] = exp(-pow((i - 6) / 2.5, 2));
        s2[i] = i < 40 ? sin(0.3 * i) / (1 + i) : 0.0;
        s12[i] = 2.0 * s1[i] - 0.5 * s2[i];
    }
    double other[N];
    for (int i = 0; i < N; i++) other[i] = cos(0.11 * i) * (i < 60 ? 1.0 : 0.0);
    memcpy(x, data, sizeof x);
    memcpy(y, other, sizeof y);
    for (int i = 0; i < N; i++) z[i] = 3.0 * data[i] - 1.5 * other[i];
    CHECK(T, axb_reconv_set_stf(rp, s1, 300, 2.5, &err) == AXB_OK);
    CHECK(T, axb_reconv_apply(rp, x, &err) == AXB_OK);
    CHECK(T, axb_reconv_apply(rp, y, &err) == AXB_OK);
    CHECK(T, axb_reconv_apply(rp, z, &err) == AXB_OK);
    const double sc = maxabs(x, N) + maxabs(y, N);
    e = 0.0;
    for (int i = 0; i < N; i++) e = worst(e, fabs(z[i] - (3.0 * x[i] - 1.5 * y[i])));
    CHECK_MSG(T, e <= 1e-13 * sc, "linear in data: %g", e);
    double a1[N], a2[N], a12[N];
    memcpy(a1, data, sizeof a1);
    memcpy(a2, data, sizeof a2);
    memcpy(a12, data, sizeof a12);
    CHECK(T, axb_reconv_execute(rp, s1, 300, 2.5, a1, &err) == AXB_OK);
    CHECK(T, axb_reconv_execute(rp, s2, 300, 2.5, a2, &err) == AXB_OK);
    CHECK(T, axb_reconv_execute(rp, s12, 300, 2.5, a12, &err) == AXB_OK);
    e = 0.0;
    for (int i = 0; i < N; i++) e = worst(e, fabs(a12[i] - (2.0 * a1[i] - 0.5 * a2[i])));
    CHECK_MSG(T, e <= 1e-13 * (maxabs(a1, N) + maxabs(a2, N)), "linear in the STF: %g", e);
    /* An STF longer than nfft is truncated to nfft samples, as numpy's rfft(x, n) does. */
    memcpy(a2, data, sizeof a2);
    CHECK(T, axb_reconv_execute(rp, s1, 256, 2.5, a2, &err) == AXB_OK);
    CHECK(T, memcmp(a1, a2, sizeof a1) == 0);

    /* Python: Instaseis' recipe with numpy, the Instaseis test STF (1000 samples, truncated)
     * delayed by 37.3 s; 1e-13 of the peak (measured 4e-16: FFTW and numpy's pocketfft round
     * differently). */
    static const double ref[7] = {-4.15654884565117e-08,  2.3470817260631827e-05, 0.0016455226791428162,
                                  -0.03662907843481532,   0.00275952940280501,    1.4737116432769167e-09,
                                  -1.2273775745752502e-13};
    static const int at[7] = {0, 3, 10, 25, 40, 60, 72};
    double *tstf = malloc(1000 * sizeof *tstf);
    for (int i = 0; i < 1000; i++) tstf[i] = i == 0 ? 1.0 : 0.0;
    CHECK(T, axb_lowpass(tstf, 1000, 1.0 / DT_DB, 0.01, 4, false, &err) == AXB_OK);
    double area = 0.0; /* numpy.trapz(s, dx=dt_db) */
    for (int i = 1; i < 1000; i++) area += DT_DB * (tstf[i] + tstf[i - 1]) / 2.0;
    for (int i = 0; i < 1000; i++) tstf[i] /= area;
    memcpy(x, data, sizeof x);
    CHECK(T, axb_reconv_execute(rp, tstf, 1000, 37.3 / DT_DB, x, &err) == AXB_OK);
    for (int k = 0; k < 7; k++) CHECK_CLOSE(T, x[at[k]], ref[k], 1e-13 * 0.03757534554739189);
    free(tstf);
    axb_reconv_plan_destroy(&rp);
    CHECK(T, rp == NULL);

    /* Where the database STF's spectrum is exactly 0 the ratio is set to 0 (Instaseis): STF
     * [1, 1] has D = 0 at Nyquist only, so reconvolving with itself removes exactly the Nyquist
     * component (1/nfft)·Σ(−1)^n x_n·(−1)^i of the tapered trace. */
    double two[N] = {1.0, 1.0};
    CHECK(T, axb_reconv_plan_create(N, two, &rp, &err) == AXB_OK);
    if (rp != NULL) {
        double alt[N], talt[N]; /* the trace plus a strong Nyquist oscillation */
        for (int i = 0; i < N; i++) alt[i] = data[i] + (i == 0 ? 0.0 : i % 2 ? -0.3 : 0.3);
        spec_taper(alt, N, talt);
        double nyq = 0.0;
        for (int i = 0; i < N; i++) nyq += (i % 2 ? -talt[i] : talt[i]);
        nyq /= 256.0;
        memcpy(x, alt, sizeof x);
        CHECK(T, axb_reconv_execute(rp, two, 2, 0.0, x, &err) == AXB_OK);
        e = 0.0;
        for (int i = 0; i < N; i++) e = worst(e, fabs(x[i] - (talt[i] - (i % 2 ? -nyq : nyq))));
        CHECK_MSG(T, e <= 1e-14 * peak && fabs(nyq) > 0.01 * peak, "masked Nyquist: %g (%g)", e, nyq);
        axb_reconv_plan_destroy(&rp);
    }

    /* Errors. */
    axb_error_clear(&err);
    CHECK(T, axb_reconv_plan_create(4, stf, &rp, &err) == AXB_ERR_ARG && rp == NULL);
    CHECK_CONTAINS(T, err.msg, "at least 5 samples");
    axb_error_clear(&err);
    double bad[N];
    memcpy(bad, stf, sizeof bad);
    bad[10] = NAN;
    CHECK(T, axb_reconv_plan_create(N, bad, &rp, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "sample 10 is not finite");
    axb_error_clear(&err);
    CHECK(T, axb_reconv_plan_create(N, stf, &rp, &err) == AXB_OK);
    if (rp != NULL) {
        CHECK(T, axb_reconv_apply(rp, x, &err) == AXB_ERR_ARG);
        CHECK_CONTAINS(T, err.msg, "no source STF set");
        axb_error_clear(&err);
        CHECK(T, axb_reconv_execute(rp, bad, N, 0.0, x, &err) == AXB_ERR_ARG);
        CHECK_CONTAINS(T, err.msg, "source STF sample 10");
        axb_error_clear(&err);
        CHECK(T, axb_reconv_execute(rp, stf, N, NAN, x, &err) == AXB_ERR_ARG);
        axb_error_clear(&err);
        CHECK(T, axb_reconv_execute(rp, stf, 0, 0.0, x, &err) == AXB_ERR_ARG);
        axb_reconv_plan_destroy(&rp);
    }
    axb_reconv_plan_destroy(NULL);
}

/* ----------------------------------------------------------------------------------------- */

/* Amplitude and phase of y against sin(2πf·i) over [i0, i0+len) (len a whole number of periods). */
static void sine_fit(const double *y, int64_t i0, int64_t len, double f, double *amp, double *ph)
{
    double s = 0.0, c = 0.0;
    for (int64_t i = i0; i < i0 + len; i++) {
        s += y[i] * sin(2 * PI * f * (double)i);
        c += y[i] * cos(2 * PI * f * (double)i);
    }
    s *= 2.0 / (double)len;
    c *= 2.0 / (double)len;
    *amp = hypot(s, c);
    *ph = atan2(c, s);
}

static void test_lowpass(check_ctx *T)
{
    axb_error err = AXB_ERROR_INIT;
    /* Python: scipy iirfilter(N, wn, 'lowpass', 'butter', output='sos'), relative 1e-14
     * (measured 1.7e-16). */
    static const double sos4[12] = {0.00041659920440659937,
                                    0.0008331984088131987,
                                    0.00041659920440659937,
                                    1.0,
                                    -1.4796742169311934,
                                    0.5558215432824889,
                                    1.0,
                                    2.0,
                                    1.0,
                                    1.0,
                                    -1.7009643319435257,
                                    0.7884997398152979};
    static const double sos3[12] = {0.08191357748961584,
                                    0.16382715497923167,
                                    0.08191357748961584,
                                    1.0,
                                    -0.20709004442793866,
                                    0.0,
                                    1.0,
                                    1.0,
                                    0.0,
                                    1.0,
                                    -0.5444568739794986,
                                    0.37091719940717044};
    static const double sos5[18] = {5.9795780370003236e-05,
                                    0.00011959156074000647,
                                    5.9795780370003236e-05,
                                    1.0,
                                    -0.726542528005361,
                                    0.0,
                                    1.0,
                                    2.0,
                                    1.0,
                                    1.0,
                                    -1.521690426072246,
                                    0.6000000000000001,
                                    1.0,
                                    1.0,
                                    0.0,
                                    1.0,
                                    -1.7363101655347295,
                                    0.8256645486206606};
    const struct {
        int n;
        double wn;
        const double *ref;
    } cases[3] = {{4, 0.1, sos4}, {3, 0.37, sos3}, {5, 0.1, sos5}};
    for (int c = 0; c < 3; c++) {
        double sos[3][6];
        int ns = 0;
        CHECK(T, axb_butter_lowpass_sos(cases[c].n, cases[c].wn, sos, &ns, &err) == AXB_OK);
        CHECK(T, ns == (cases[c].n + 1) / 2);
        for (int i = 0; i < ns * 6; i++) CHECK_REL(T, sos[i / 6][i % 6], cases[c].ref[i], 1e-14);
    }

    /* Python: Instaseis' test STF (causal, 4 corners, 0.01 Hz at df = 1/dt_db, trapz-normalised)
     * and a zero-phase 3-corner filter of an impulse + step + sine; relative 1e-13 (measured
     * 1.5e-15). */
    static const double stf_ref[6] = {0.003845736151129801,   0.015548233648653554,  -0.0046289463319689386,
                                      -5.868611986796185e-06, 4.650496657041141e-13, 8.423554912517954e-38};
    static const int stf_at[6] = {0, 1, 5, 20, 60, 200};
    double *s = malloc(1000 * sizeof *s);
    for (int i = 0; i < 1000; i++) s[i] = i == 0 ? 1.0 : 0.0;
    CHECK(T, axb_lowpass(s, 1000, 1.0 / DT_DB, 0.01, 4, false, &err) == AXB_OK);
    double area = 0.0;
    for (int i = 1; i < 1000; i++) area += DT_DB * (s[i] + s[i - 1]) / 2.0;
    for (int k = 0; k < 6; k++) CHECK_REL(T, s[stf_at[k]] / area, stf_ref[k], 1e-13);
    free(s);
    static const double zp_ref[5] = {0.07808844606740452, 0.2523625902866174, 0.21525414006600527, 0.5487088513630112,
                                     0.006963237898614574};
    static const int zp_at[5] = {0, 10, 49, 120, 199};
    double x[200];
    for (int i = 0; i < 200; i++) x[i] = (i == 10 ? 1.0 : 0.0) + (i >= 50 ? 0.5 : 0.0) + 0.2 * sin(0.7 * i);
    CHECK(T, axb_lowpass(x, 200, 1.0, 0.1, 3, true, &err) == AXB_OK);
    for (int k = 0; k < 5; k++) CHECK_REL(T, x[zp_at[k]], zp_ref[k], 1e-13);

    /* Analytic gains: DC 1; at the corner 1/√2 (the prewarped bilinear transform maps the analog
     * corner exactly), and (1/√2)² = 1/2 with zero phase for the zero-phase filter. Sampling 1 Hz,
     * corner 0.05 Hz (20-sample period); measured over 400 whole periods after 2000 samples of
     * settling (the slowest pole, |p| ~ 0.86, decays below 1e-100 by then); tolerances 1e-9. */
    enum { L = 12000 };
    double *y = malloc(L * sizeof *y);
    for (int corners = 2; corners <= 6; corners += 2) {
        for (int i = 0; i < L; i++) y[i] = 1.0;
        CHECK(T, axb_lowpass(y, L, 1.0, 0.05, corners, false, &err) == AXB_OK);
        CHECK_CLOSE(T, y[L - 1], 1.0, 1e-9);
        for (int i = 0; i < L; i++) y[i] = sin(2 * PI * 0.05 * i);
        CHECK(T, axb_lowpass(y, L, 1.0, 0.05, corners, false, &err) == AXB_OK);
        double amp, ph;
        sine_fit(y, 2000, 8000, 0.05, &amp, &ph);
        CHECK_CLOSE(T, amp, 1.0 / sqrt(2.0), 1e-9);
        /* a Butterworth of order N lags by N·45° at its corner */
        CHECK_CLOSE(T, remainder(ph + corners * PI / 4, 2 * PI), 0.0, 1e-9);
        for (int i = 0; i < L; i++) y[i] = sin(2 * PI * 0.05 * i);
        CHECK(T, axb_lowpass(y, L, 1.0, 0.05, corners, true, &err) == AXB_OK);
        sine_fit(y, 2000, 8000, 0.05, &amp, &ph);
        CHECK_CLOSE(T, amp, 0.5, 1e-9);
        CHECK_CLOSE(T, ph, 0.0, 1e-9);
    }
    /* Odd order: 3 corners at the corner frequency, also 1/√2. */
    for (int i = 0; i < L; i++) y[i] = sin(2 * PI * 0.05 * i);
    CHECK(T, axb_lowpass(y, L, 1.0, 0.05, 3, false, &err) == AXB_OK);
    double amp3, ph3;
    sine_fit(y, 2000, 8000, 0.05, &amp3, &ph3);
    CHECK_CLOSE(T, amp3, 1.0 / sqrt(2.0), 1e-9);
    free(y);

    /* Errors. */
    double d[4] = {0};
    CHECK(T, axb_lowpass(d, 4, 1.0, 0.5, 4, false, &err) == AXB_ERR_RANGE);
    CHECK_CONTAINS(T, err.msg, "not below the Nyquist frequency");
    axb_error_clear(&err);
    CHECK(T, axb_lowpass(d, 4, 1.0, NAN, 4, false, &err) == AXB_ERR_ARG);
    axb_error_clear(&err);
    CHECK(T, axb_lowpass(d, 4, 0.0, 0.1, 4, false, &err) == AXB_ERR_ARG);
    axb_error_clear(&err);
    CHECK(T, axb_lowpass(d, 4, 1.0, 0.1, 0, false, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "0 corners");
    axb_error_clear(&err);
    CHECK(T, axb_lowpass(NULL, 4, 1.0, 0.1, 4, false, &err) == AXB_ERR_ARG);
    CHECK(T, axb_lowpass(NULL, 0, 1.0, 0.1, 4, false, &err) == AXB_OK);
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv; /* no shared data needed */
    check_ctx T = {0, 0, 0};
    test_py_round(&T);
    test_window_testdb(&T);
    test_window_errors(&T);
    test_lanczos_obspy(&T);
    test_lanczos_python(&T);
    test_lanczos_properties(&T);
    test_gradient(&T);
    test_time_finish(&T);
    test_reconv(&T);
    test_lowpass(&T);
    return check_summary(&T);
}
