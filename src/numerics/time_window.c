/* Time bookkeeping of Instaseis' `_get_seismogram_times` (reference notes §2.13). The decimal
 * roundings are part of the algorithm: they decide, e.g., whether dt = 12 s hits the STF peak
 * with an integer sample count, so they are reproduced with Python's exact semantics. */
#include "axibulk/timeproc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double axb_py_round(double x, int ndigits)
{
    /* Python rounds the exact binary value to ndigits decimals, ties to even, and reads the
     * decimal back correctly rounded. glibc's printf expands the exact value and rounds in the
     * current (to-nearest-even) mode, and strtod reads back correctly rounded: the same result.
     * A double >= 1e17 has no fractional digits at all, so it is its own rounding (and would not
     * fit the buffer at its full decimal length). */
    if (!isfinite(x) || fabs(x) >= 1e17) return x;
    if (ndigits < 0) ndigits = 0;
    if (ndigits > 30) ndigits = 30;
    char buf[64];
    snprintf(buf, sizeof buf, "%.*f", ndigits, x);
    return strtod(buf, NULL);
}

double axb_py_mod(double x, double y)
{
    double r = fmod(x, y);
    if (r != 0.0) {
        if ((r < 0.0) != (y < 0.0)) r += y;
    } else {
        r = copysign(0.0, y);
    }
    return r;
}

/* Python's int() of a double known to be finite and in range: truncation toward zero. */
static int64_t py_int(double x)
{
    return (int64_t)x;
}

/* Largest sample count we accept: ObsPy's C kernels index with int. */
#define MAX_SAMPLES 2147483647.0

axb_status axb_time_window_compute(const axb_time_params *p, axb_time_window *w, axb_error *err)
{
    AXB_CHECK(err, p != NULL && w != NULL, AXB_ERR_ARG, "time window: NULL argument");
    AXB_CHECK(err, isfinite(p->dt_db) && p->dt_db > 0.0, AXB_ERR_ARG,
              "database sample spacing %g is not a positive finite number", p->dt_db);
    AXB_CHECK(err, p->npts_db >= 2 && (double)p->npts_db <= MAX_SAMPLES, AXB_ERR_ARG,
              "database has %lld samples per trace, need 2 to %.0f", (long long)p->npts_db, MAX_SAMPLES);
    AXB_CHECK(err, isfinite(p->src_shift) && p->src_shift >= 0.0, AXB_ERR_ARG,
              "database source shift %g s is not a finite number >= 0", p->src_shift);
    AXB_CHECK(err, p->src_shift_samples >= 0 && p->src_shift_samples < p->npts_db, AXB_ERR_ARG,
              "database source shift of %d samples is outside 0..%lld", p->src_shift_samples,
              (long long)p->npts_db - 1);
    AXB_CHECK(err, isfinite(p->dt), AXB_ERR_ARG, "dt must be a finite number, got %g", p->dt);
    AXB_CHECK(err, p->dt >= 0.0, AXB_ERR_ARG, "dt must be bigger than 0.");
    AXB_CHECK(err, p->dt <= p->dt_db, AXB_ERR_RANGE,
              "The database is sampled with a sample spacing of %.3f seconds. You must not pass "
              "a 'dt' larger than that as that would be a downsampling operation which Instaseis "
              "does not do.",
              p->dt_db);
    AXB_CHECK(err, p->kernelwidth >= 1, AXB_ERR_ARG, "kernelwidth must be at least 1, got %d", p->kernelwidth);
    AXB_CHECK(err, !(p->reconvolve_stf && p->remove_source_shift), AXB_ERR_ARG,
              "'remove_source_shift' argument not compatible with 'reconvolve_stf'.");

    const bool resample = p->dt > 0.0;
    const double dt = p->dt, dt_db = p->dt_db;
    const double dt_out = resample ? dt : dt_db;
    double shift = 0.0;
    double ref_d, npts_before_d; /* as doubles first: range-checked before any integer cast */
    int samples_cut = 0;

    if (resample) {
        if (!p->reconvolve_stf) {
            /* Pin a sample to the STF peak: integer arithmetic when dt divides the shift to 1e-5
             * samples, else start the axis at the remainder of the shift. */
            const double ratio = axb_py_round(p->src_shift / dt, 5);
            if (isfinite(ratio) && axb_py_mod(ratio, 1.0) == 0.0) {
                ref_d = ratio;
                shift = axb_py_round(p->src_shift_samples * dt_db - ratio * dt, 6);
            } else {
                shift = axb_py_round(axb_py_mod(p->src_shift, dt), 8);
                ref_d = axb_py_round((p->src_shift - shift) / dt, 6);
            }
            const double duration = (double)(p->npts_db - 1) * dt_db - shift;
            npts_before_d = axb_py_round(duration / dt, 6);
        } else {
            ref_d = 0.0;
            npts_before_d = axb_py_round((double)(p->npts_db - 1) * dt_db / dt, 6);
        }
        AXB_CHECK(err,
                  isfinite(ref_d) && fabs(ref_d) <= MAX_SAMPLES && isfinite(npts_before_d) && npts_before_d >= 0.0 &&
                      npts_before_d < MAX_SAMPLES,
                  AXB_ERR_RANGE, "dt = %g s gives %g samples per trace, more than %.0f", dt, npts_before_d + 1.0,
                  MAX_SAMPLES);
        npts_before_d = (double)py_int(npts_before_d) + 1.0;
        /* Lanczos assumes zeros past the last sample: drop the samples within a kernel width of
         * the end, except for the identity resampling that Instaseis' tests compare exactly. */
        if (axb_py_round(dt / dt_db, 6) != 1.0) {
            const double cut = ceil(p->kernelwidth * dt_db / dt);
            AXB_CHECK(err, cut < MAX_SAMPLES, AXB_ERR_RANGE, "kernelwidth %d at dt = %g s cuts %g samples",
                      p->kernelwidth, dt, cut);
            samples_cut = (int)cut;
            npts_before_d -= cut;
        }
    } else {
        ref_d = p->reconvolve_stf ? 0.0 : (double)p->src_shift_samples;
        npts_before_d = (double)p->npts_db;
    }

    const int64_t ref_sample = py_int(ref_d);
    const int64_t npts_before = py_int(npts_before_d);
    const int64_t npts = p->remove_source_shift ? npts_before - ref_sample : npts_before;
    /* Two samples at least: numpy.gradient fails on fewer, and a 1-sample trace is no signal. */
    AXB_CHECK(err, npts_before >= 2, AXB_ERR_RANGE,
              "dt = %g s with kernelwidth %d leaves %lld samples, need at least 2", dt_out, p->kernelwidth,
              (long long)npts_before);
    AXB_CHECK(err, ref_sample >= 0 && npts >= 1, AXB_ERR_RANGE,
              "dt = %g s with kernelwidth %d leaves %lld samples after the source peak at sample "
              "%lld, need at least 1",
              dt_out, p->kernelwidth, (long long)(npts_before - ref_sample), (long long)ref_sample);
    if (resample) {
        /* ObsPy's lanczos_interpolation refuses to extrapolate; the rounding above can in rare
         * cases put the axis (just) outside the database trace, where Instaseis fails too. */
        const double new_end = shift + dt * (double)(npts_before - 1);
        const double old_end = dt_db * (double)(p->npts_db - 1);
        AXB_CHECK(err, shift >= 0.0 && new_end <= old_end, AXB_ERR_RANGE,
                  "dt = %g s: the resampled axis %.9g..%.9g s lies outside the database trace "
                  "0..%.9g s (ObsPy cannot extrapolate)",
                  dt, shift, new_end, old_end);
    }

    w->dt_out = dt_out;
    w->resample = resample;
    w->ref_sample = (int)ref_sample;
    w->time_shift_at_beginning = shift;
    w->npts_before_shift_removal = npts_before;
    w->samples_cut_at_end = samples_cut;
    w->npts = npts;
    w->start_offset = p->remove_source_shift ? 0.0 : -(double)ref_sample * dt_out;
    return AXB_OK;
}
