/**
 * @file timeproc.h
 * @brief Time-axis processing of extracted traces, exactly as Instaseis does it
 *        (`BaseInstaseisDB.get_seismograms`, `_get_seismogram_times`; reference notes §2.13):
 *        time bookkeeping, STF re-convolution, Lanczos resampling, differentiation, cut of the
 *        samples before the source peak; plus the ObsPy Butterworth lowpass Instaseis' tests use.
 *
 * Order per trace: re-convolution (axb_reconv_*, on the database-sampled trace) → resampling →
 * n_derivative gradients at the output spacing → cut of the first ref_sample samples
 * (axb_time_finish or axb_time_plan_finish do the last three).
 *
 * Cost model. Everything that is the same for every trace of an extraction is computed once in a
 * window or a plan: the window (axb_time_window_compute), the Lanczos weights
 * (axb_lanczos_plan / axb_time_plan), the FFTW plans, the taper and 1/rfft(deconvolution STF)
 * (axb_reconv_plan). The per-trace functions allocate nothing and call no libm function per sample.
 *
 * Threads. Plans are immutable after creation except axb_reconv_plan, which holds its FFT scratch
 * buffers: use one axb_reconv_plan per thread. FFTW's planner is not thread safe, so
 * axb_reconv_plan_create and axb_reconv_plan_destroy must not run concurrently with each other
 * (or with any other FFTW planning in the process); axb_reconv_execute may run concurrently on
 * distinct plans.
 *
 * Floating point: the code relies on IEEE double without FMA contraction (ISO C mode, as built),
 * which is what makes the results agree with NumPy/ObsPy to the last bits where documented.
 */
#ifndef AXIBULK_TIMEPROC_H
#define AXIBULK_TIMEPROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "axibulk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------- */
/** @name Time bookkeeping (`_get_seismogram_times`) */
/** @{ */

/** What the database and the user request say about the time axis. */
typedef struct axb_time_params {
    double dt_db;             /**< database sample spacing (s), > 0 */
    int64_t npts_db;          /**< database samples per trace (ndumps), >= 2 */
    double src_shift;         /**< `source shift factor in sec` (time of the STF peak), >= 0 */
    int src_shift_samples;    /**< `source shift factor for deltat`, 0 <= . < npts_db */
    double dt;                /**< requested output spacing (s); 0 = the database's, no resampling */
    int kernelwidth;          /**< Lanczos a (Instaseis default 12), >= 1 */
    bool remove_source_shift; /**< cut the samples before the STF peak (Instaseis default true) */
    bool reconvolve_stf;      /**< the trace is re-convolved; excludes remove_source_shift */
} axb_time_params;

/** The resulting time axis (all fields named as Instaseis' `time_information` keys). */
typedef struct axb_time_window {
    double dt_out;                     /**< output sample spacing: dt, or dt_db when dt is 0 */
    bool resample;                     /**< Lanczos resampling runs (dt given; also for dt == dt_db) */
    int ref_sample;                    /**< sample at the origin time before the cut */
    double time_shift_at_beginning;    /**< start of the resampled axis after database sample 0 (s) */
    int64_t npts_before_shift_removal; /**< samples after resampling (and the end cut) */
    int samples_cut_at_end;            /**< samples dropped at the end for the kernel's boundary effect */
    int64_t npts;                      /**< final samples per trace */
    double start_offset;               /**< starttime − origin time (s): 0, or −ref_sample·dt_out when the
                                  shift is kept (origin_time − ref_sample·dt_out in Instaseis) */
} axb_time_window;

/**
 * Computes the time axis of Instaseis' `_get_seismogram_times`, with its decimal roundings
 * (Python's round-half-even `round(x, n)`, see axb_py_round).
 *
 * Checks (AXB_ERR_ARG unless noted): finite, positive dt_db; npts_db >= 2; finite src_shift >= 0;
 * src_shift_samples in [0, npts_db); dt finite and not negative ("dt must be bigger than 0.");
 * dt <= dt_db (AXB_ERR_RANGE, Instaseis' message "The database is sampled with a sample spacing of
 * 24.725 seconds. You must not pass a 'dt' larger than that ..."); kernelwidth >= 1;
 * reconvolve_stf and remove_source_shift not both; and (AXB_ERR_RANGE) the resulting window must
 * have at least 2 samples before and 1 after the cut (numpy.gradient needs 2) and lie inside the
 * database trace, as ObsPy's lanczos_interpolation requires (Instaseis fails there too). Sample
 * counts above INT32_MAX are refused. @p w is written only on success.
 */
AXB_NODISCARD axb_status axb_time_window_compute(const axb_time_params *p, axb_time_window *w, axb_error *err);

/** Python 3's `round(x, ndigits)` for a float: the exact binary value rounded to @p ndigits
 *  decimals (ties to even), read back to the nearest double. Non-finite @p x is returned as is.
 *  @p ndigits in [0, 30]. */
double axb_py_round(double x, int ndigits);

/** Python's `x % y` for floats (result has the sign of @p y). */
double axb_py_mod(double x, double y);
/** @} */

/* ------------------------------------------------------------------------------------------- */
/** @name Lanczos resampling (ObsPy `lanczos_interpolation`, plain Lanczos kernel, §2.13 step 2) */
/** @{ */

/**
 * Direct evaluation, operation for operation as ObsPy's C routine (old_start = 0): output n at
 * x = (new_dt/old_dt)·n + new_start/old_dt (in input samples) is Σ in[i]·sinc(x−i)·sinc((x−i)/a)
 * over i = floor(x)+a … floor(x)−a inside [0, nin) with |x−i| <= a, i.e. bit-identical to ObsPy
 * for the same libm. Costs 2(2a+1) sin() per output sample: per-trace code should use
 * axb_lanczos_plan instead.
 * Preconditions (not checked; axb_lanczos_plan_create checks them): a >= 1, old_dt > 0,
 * new_dt > 0, new_start >= 0, new_start + (nout−1)·new_dt <= (nin−1)·old_dt. Samples outside
 * the input count as zero. @p out [nout] must not overlap @p in [nin].
 */
void axb_lanczos_resample(const double *in, int64_t nin, double old_dt, double new_start, double new_dt, int64_t nout,
                          int a, double *out);

/** Precomputed Lanczos weights for one (input length, output axis, a); immutable. */
typedef struct axb_lanczos_plan axb_lanczos_plan;

/**
 * Precomputes the weights of axb_lanczos_resample: (2a+1)·nout doubles. Checks ObsPy's
 * conditions (AXB_ERR_ARG: a >= 1, positive finite spacings, nin >= 1, nout >= 1; AXB_ERR_RANGE:
 * the output axis inside the input axis). The caller owns @p *plan (axb_lanczos_plan_destroy).
 */
AXB_NODISCARD axb_status axb_lanczos_plan_create(int64_t nin, double old_dt, double new_start, double new_dt,
                                                 int64_t nout, int a, axb_lanczos_plan **plan, axb_error *err);
/** Resamples @p in [nin of the plan] into @p out [nout of the plan], no allocation, no libm call.
 *  Same taps and summation order as ObsPy; each term may differ from ObsPy's by one rounding
 *  (the kernel's two factors are multiplied before the datum), so results agree to ~1e-16 of the
 *  trace's scale. Thread safe (the plan is read only). @p out must not overlap @p in. */
void axb_lanczos_plan_apply(const axb_lanczos_plan *plan, const double *in, double *out);
/** Frees the plan and sets @p *plan to NULL; NULL or *plan == NULL is a no-op. */
void axb_lanczos_plan_destroy(axb_lanczos_plan **plan);
/** @} */

/* ------------------------------------------------------------------------------------------- */
/** @name Differentiation and integration (§2.13 step 3, `_diff_and_integrate`) */
/** @{ */

/** `numpy.gradient(in, dx)` (edge_order 1): interior (f[k+1]−f[k−1])/(2dx), ends
 *  (f[1]−f[0])/dx and (f[n−1]−f[n−2])/dx, bit-identical to NumPy. @p out may equal @p in
 *  (in place), otherwise they must not overlap. n == 1 gives 0 (NumPy would raise); n <= 0 does
 *  nothing. */
void axb_gradient(const double *in, int64_t n, double dx, double *out);

/** `scipy.integrate.cumulative_trapezoid(in, dx=dx, initial=0)`: out[0] = 0,
 *  out[k] = out[k−1] + dx·(f[k]+f[k−1])/2 (Instaseis' branch for negative n_derivative, unreachable
 *  with today's STF map). @p out may equal @p in. */
void axb_cumtrapz(const double *in, int64_t n, double dx, double *out);
/** @} */

/* ------------------------------------------------------------------------------------------- */
/** @name One trace through resampling, differentiation and cut (§2.13 steps 2–4) */
/** @{ */

/** Doubles of scratch that axb_time_finish / axb_time_plan_finish need in @p work:
 *  w->npts_before_shift_removal when resampling, else npts_db. */
int64_t axb_time_work_len(const axb_time_window *w, int64_t npts_db);

/**
 * in [npts_db] → out [w->npts]: Lanczos resampling (axb_lanczos_resample, if w->resample, with
 * old_dt = dt_db, new_start = time_shift_at_beginning, new_dt = dt_out,
 * npts = npts_before_shift_removal, a = kernelwidth), then @p n_derivative times axb_gradient
 * at dt_out (negative: −n_derivative times axb_cumtrapz), then the cut of the first
 * npts_before_shift_removal − npts samples (= ref_sample when remove_source_shift, else 0).
 * @p work: axb_time_work_len(w, npts_db) doubles. No allocation; @p in, @p out, @p work distinct.
 * @p w must come from axb_time_window_compute with the same npts_db, dt_db and kernelwidth.
 * Uses the direct Lanczos evaluation (sin() per tap); the same computation with precomputed
 * weights is axb_time_plan_finish.
 */
void axb_time_finish(const axb_time_window *w, int64_t npts_db, double dt_db, int kernelwidth, int n_derivative,
                     const double *in, double *out, double *work);

/** axb_time_finish with the Lanczos weights precomputed once per extraction; immutable. */
typedef struct axb_time_plan axb_time_plan;
/** Copies @p w and, if it resamples, builds its axb_lanczos_plan. The caller owns @p *plan. */
AXB_NODISCARD axb_status axb_time_plan_create(const axb_time_window *w, int64_t npts_db, double dt_db, int kernelwidth,
                                              axb_time_plan **plan, axb_error *err);
/** Same as axb_time_finish for the plan's window (results within ~1e-16 of the trace's scale of
 *  it, see axb_lanczos_plan_apply). Thread safe. @p work: axb_time_plan_work_len doubles. */
void axb_time_plan_finish(const axb_time_plan *plan, int n_derivative, const double *in, double *out, double *work);
/** The window the plan was made for (owned by the plan). */
const axb_time_window *axb_time_plan_window(const axb_time_plan *plan);
/** Doubles of scratch axb_time_plan_finish needs. */
int64_t axb_time_plan_work_len(const axb_time_plan *plan);
/** Frees the plan and sets @p *plan to NULL; NULL or *plan == NULL is a no-op. */
void axb_time_plan_destroy(axb_time_plan **plan);
/** @} */

/* ------------------------------------------------------------------------------------------- */
/** @name STF re-convolution (§2.13 step 1, FFTW double precision) */
/** @{ */

/** FFTW plans, buffers, the end taper and 1/rfft(deconvolution STF) for one trace length. */
typedef struct axb_reconv_plan axb_reconv_plan;

/**
 * Prepares re-convolution of traces of @p npts database samples (>= 5, the taper's minimum):
 * nfft = 2·next_pow_2(npts) (next_pow_2(n) = smallest power of two >= n, as ObsPy's),
 * D = rfft(deconv_stf, nfft) with @p deconv_stf [npts] the database's STF the data are the response
 * to (`info.sliprate`, i.e. stf_d_dump/amplitude, for errorf/quheavi databases; `info.slip` for
 * dirac_0/gauss_0), and its reciprocal where D ≠ 0 (0 elsewhere, as Instaseis). FFTW plans are made
 * here with FFTW_ESTIMATE, once, and reused by every execute. NOT thread safe (FFTW planner).
 * Errors: AXB_ERR_ARG (npts < 5, NULL, non-finite STF value), AXB_ERR_RANGE (nfft above INT_MAX),
 * AXB_ERR_NOMEM. The caller owns @p *plan (axb_reconv_plan_destroy).
 */
AXB_NODISCARD axb_status axb_reconv_plan_create(int64_t npts, const double *deconv_stf, axb_reconv_plan **plan,
                                                axb_error *err);

/** nfft of the plan. */
int64_t axb_reconv_plan_nfft(const axb_reconv_plan *plan);

/**
 * Sets the source's STF: H = rfft(sliprate, nfft) · exp(−2πi·(k/nfft)·shift_samples) / D
 * (@p sliprate zero-padded, or truncated to nfft samples as numpy does; @p shift_samples =
 * source time_shift / dt_db, 0 for none — a circular delay over nfft). @p sliprate must be
 * sampled at dt_db (Instaseis requires |source.dt − dt_db|/dt_db <= 1e-7; the caller checks it).
 * Kept in the plan until the next call; one FFT plus 2 libm calls per frequency.
 * Errors: AXB_ERR_ARG (NULL, nsliprate < 1, non-finite shift).
 */
AXB_NODISCARD axb_status axb_reconv_set_stf(axb_reconv_plan *plan, const double *sliprate, int64_t nsliprate,
                                            double shift_samples, axb_error *err);

/**
 * Re-convolves @p data [npts] in place with the STF of the last axb_reconv_set_stf:
 * data = irfft(rfft(taper·data, nfft) · H, nfft)[0:npts], taper = 1 except the last
 * L = max(ceil(0.05·npts), 5) samples, which carry the falling half of a symmetric Hann window of
 * length 2L (scipy.signal.hann). Two FFTs, no allocation.
 * Errors: AXB_ERR_ARG (NULL, or no STF set).
 */
AXB_NODISCARD axb_status axb_reconv_apply(axb_reconv_plan *plan, double *data, axb_error *err);

/** axb_reconv_set_stf followed by axb_reconv_apply: one trace with its own source STF.
 *  When many traces share a source, call set_stf once and apply per trace (one FFT less each). */
AXB_NODISCARD axb_status axb_reconv_execute(axb_reconv_plan *plan, const double *sliprate, int64_t nsliprate,
                                            double shift_samples, double *data, axb_error *err);

/** Frees the plan (FFTW plans and buffers) and sets @p *plan to NULL; NULL-safe. Not thread safe
 *  (FFTW planner). */
void axb_reconv_plan_destroy(axb_reconv_plan **plan);
/** @} */

/* ------------------------------------------------------------------------------------------- */
/** @name Butterworth lowpass (obspy.signal.filter.lowpass) */
/** @{ */

/** Largest number of corners (filter order) axb_lowpass accepts. */
#define AXB_LOWPASS_MAX_CORNERS 64

/**
 * Second-order sections of scipy's `iirfilter(corners, wn, btype='lowpass', ftype='butter',
 * output='sos')`: analog Butterworth prototype, prewarped bilinear transform (fs = 2),
 * `zpk2sos` with its 'nearest' pairing and section order (poles closest to the unit circle last,
 * gain in the first section). Rows are [b0, b1, b2, 1, a1, a2]. @p sos must have
 * (corners+1)/2 rows; @p nsections receives that number.
 * Errors: AXB_ERR_ARG (corners outside 1..AXB_LOWPASS_MAX_CORNERS, wn not in (0, 1)).
 */
AXB_NODISCARD axb_status axb_butter_lowpass_sos(int corners, double wn, double (*sos)[6], int *nsections,
                                                axb_error *err);

/**
 * In place, as ObsPy's `lowpass(x, freq, df=sampling_rate, corners, zerophase)`: the sections of
 * axb_butter_lowpass_sos(corners, freq/(sampling_rate/2)) run by scipy's `sosfilt` (transposed
 * direct form II, zero initial state); zerophase: that forward pass, then the same filter over the
 * result from the last sample to the first (ObsPy's flip/filter/flip), so the gain is squared and
 * the phase cancels. No allocation.
 * Errors (AXB_ERR_ARG): NULL data with n > 0, n < 0, non-finite or non-positive sampling_rate or
 * freq, corners outside 1..AXB_LOWPASS_MAX_CORNERS; (AXB_ERR_RANGE) freq >= Nyquist (ObsPy would
 * clamp to Nyquist and scipy then rejects it).
 */
AXB_NODISCARD axb_status axb_lowpass(double *x, int64_t n, double sampling_rate, double freq, int corners,
                                     bool zerophase, axb_error *err);
/** @} */

#ifdef __cplusplus
}
#endif
#endif
