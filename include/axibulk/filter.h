/**
 * @file filter.h
 * @brief Frequency-domain filters for extracted traces: Butterworth low-, high- and band-pass
 *        (causal or zero-phase) and a log-Gabor band-pass, applied as one multiplication of the
 *        zero-padded spectrum. The exact transfer functions are in docs/filters.md.
 *
 * Definition. A trace x[0..npts) sampled at dt is zero-padded to nfft >= 2·npts points
 * (axb_filter_plan_nfft), transformed (X_k = Σ x_n e^{−2πi kn/nfft}), multiplied by H_k = H(f_k),
 * f_k = k/(nfft·dt) for 0 <= k <= nfft/2 (H(−f) = conj H(f) for the other half; at the Nyquist bin
 * of an even nfft the real part of H(f_N), since a real filter must be real there), transformed
 * back and truncated to npts. The result is the linear convolution of the zero-extended trace with
 * the filter's sampled impulse response, except for response values at lags beyond
 * nfft − npts (>= npts), i.e. longer than the trace: that padding is what keeps the end of a trace
 * from wrapping around onto its start.
 *
 * Transfer functions (f in Hz, s = i·f/fc normalised, p_k = exp(iπ(2k+N+1)/(2N)), k = 0..N−1, the
 * left-half-plane poles of the order-N analog Butterworth prototype, Π(−p_k) = 1):
 *   lowpass   H(f) = Π_k 1/(s − p_k),                   s = i f/f1,  |H|² = 1/(1 + (f/f1)^{2N})
 *   highpass  H(f) = Π_k s/(1 − p_k s)  (= LP at 1/s),  s = i f/f1,  |H|² = 1/(1 + (f1/f)^{2N})
 *   bandpass  H(f) = Π_k 1/(S − p_k),  S = (f1 f2 − f²)/(i f (f2 − f1))  (2N poles),
 *             |H|² = 1/(1 + ((f² − f1 f2)/(f (f2 − f1)))^{2N}), 1 at f = √(f1 f2), 1/2 at f1, f2
 *   causal    the H above (the analog filter, causal: all poles in the left half plane);
 *   zero-phase |H(f)|² (the same magnitude squared, no phase: like filtering forward and backward);
 *   bilinear  any of these at f_w = tan(π f dt)/(π dt) with the corners mapped alike: the digital
 *             Butterworth filter scipy.signal.butter designs and ObsPy runs.
 * Sampling the analog H only up to Nyquist band-limits its impulse response: where H(f_N) ≠ 0
 * the causal analog filter gets a small precursor before the impulse (from the jump of Im H and
 * the kink of Re H at Nyquist in the sampled spectrum; ≈ (−1)^n·Im H(f_N)/(π n) at n samples
 * before it), with energy below |H(f_N)|²/2: negligible for lowpass and bandpass well below
 * Nyquist, large for highpass (order 4 at f_N/10: 1 % of the energy). With bilinear, H(f_N) is
 * real and the causal response has no precursor (docs/filters.md).
 *
 * Cost model. Everything that is the same for every trace is computed once per plan: nfft, the
 * FFTW plans, the transfer function at every bin (pre-scaled by 1/nfft). axb_filter_apply
 * allocates nothing and calls no libm function per sample: two real FFTs and one multiplication
 * per bin.
 *
 * Threads. A plan holds its FFT scratch buffers, so axb_filter_apply on one plan must not run in
 * two threads at once: use one plan per thread. FFTW's planner is not thread safe, so
 * axb_filter_plan_create and axb_filter_plan_destroy must not run concurrently with each other or
 * with any other FFTW planning in the process; axb_filter_apply may run concurrently on distinct
 * plans. The read-only queries (nfft, response) are thread safe.
 *
 * FFTW wisdom. Planning uses whatever wisdom the process has imported (FFTW uses wisdom of equal
 * or greater rigor in every mode); with fft_measure the planner also measures and adds wisdom the
 * caller may export (fftw_export_wisdom_to_filename) — this module does no I/O itself.
 */
#ifndef AXIBULK_FILTER_H
#define AXIBULK_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "axibulk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Highest Butterworth order accepted (as axb_lowpass's AXB_LOWPASS_MAX_CORNERS). */
#define AXB_FILTER_MAX_ORDER 64

/** Filter kinds. */
typedef enum axb_filter_kind {
    AXB_FILTER_LOWPASS,  /**< Butterworth lowpass, corner f1 */
    AXB_FILTER_HIGHPASS, /**< Butterworth highpass, corner f1 */
    AXB_FILTER_BANDPASS, /**< Butterworth bandpass, corners f1 < f2 (2·order poles) */
    AXB_FILTER_LOGGABOR  /**< log-Gabor band-pass, centre period and relative width */
} axb_filter_kind;

/** What to filter with. Fields that a kind does not use are ignored. */
typedef struct axb_filter_spec {
    axb_filter_kind kind;
    double f1, f2;        /**< corner(s) in Hz: lowpass f1, highpass f1, bandpass f1 < f2; the
                               gain there is 1/√2 (causal) or 1/2 (zero-phase) */
    int order;            /**< Butterworth order N of the lowpass prototype, 1..AXB_FILTER_MAX_ORDER
                               (the bandpass has 2N poles, as scipy's butter(N, [f1, f2])) */
    bool zerophase;       /**< Butterworth: apply |H|² with zero phase instead of the causal H */
    bool bilinear;        /**< Butterworth: the digital filter of the bilinear transform with
                               prewarped corners (scipy's butter, ObsPy's filters): H evaluated at
                               f_w = tan(π f dt)/(π dt) with corners tan(π f1 dt)/(π dt) …, so the
                               causal filter is exactly causal (see the file comment) */
    double period, width; /**< log-Gabor: centre period 1/f0 (s), relative width σ in (0, 1)
                               (0.75 ≈ 1 octave, 0.55 ≈ 2 octaves between the half-amplitude
                               points: 2·√(2 ln 2)·|ln σ| / ln 2 octaves) */
    bool fft_measure;     /**< plan the FFTs with FFTW_MEASURE (slow creation, faster transforms,
                               adds wisdom; results may then differ between runs in the last bits)
                               instead of FFTW_ESTIMATE */
} axb_filter_spec;

/** FFTW plans, buffers and the sampled transfer function for one (spec, npts, dt). */
typedef struct axb_filter_plan axb_filter_plan;

/**
 * Prepares filtering of traces of @p npts samples at spacing @p dt with @p s.
 * nfft = the smallest 2^a·3^b·5^c·7^d >= 2·npts (sizes FFTW transforms fastest).
 * Checks (AXB_ERR_ARG): NULL arguments; npts >= 2; dt finite and > 0; a known kind; Butterworth:
 * order in 1..AXB_FILTER_MAX_ORDER, f1 (and for bandpass f2) finite, in (0, Nyquist), f1 < f2;
 * log-Gabor: period finite with 1/period in (0, Nyquist), width finite in (0, 1).
 * AXB_ERR_RANGE: nfft above FFTW's int; AXB_ERR_NOMEM; AXB_ERR_INTERNAL if FFTW cannot plan.
 * NOT thread safe (FFTW planner). The caller owns @p *plan (axb_filter_plan_destroy); it is NULL
 * on failure.
 */
AXB_NODISCARD axb_status axb_filter_plan_create(const axb_filter_spec *s, int64_t npts, double dt,
                                                axb_filter_plan **plan, axb_error *err);

/**
 * Filters @p x [npts of the plan] in place as described in the file comment. No allocation; the
 * same input always gives the same output with the same plan.
 * Errors (AXB_ERR_ARG): NULL argument, a non-finite sample (@p x is then left unchanged: one NaN
 * would otherwise spread over the whole trace).
 */
AXB_NODISCARD axb_status axb_filter_apply(axb_filter_plan *plan, double *x, axb_error *err);

/** nfft of the plan (zero-padded FFT length, >= 2·npts). */
int64_t axb_filter_plan_nfft(const axb_filter_plan *plan);

/**
 * The transfer function the plan applies, at any frequency @p f (Hz, negative gives the
 * conjugate): H(f) for causal Butterworth, |H(f)|² for zero-phase, G(|f|) for log-Gabor, evaluated
 * as at the bins (without the Nyquist-bin rule). Writes @p re and @p im. Thread safe.
 */
void axb_filter_plan_response(const axb_filter_plan *plan, double f, double *re, double *im);

/** Frees the plan (FFTW plans and buffers) and sets @p *plan to NULL; NULL-safe. Not thread safe
 *  (FFTW planner). */
void axb_filter_plan_destroy(axb_filter_plan **plan);

#ifdef __cplusplus
}
#endif
#endif
