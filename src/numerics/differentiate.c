/* Differentiation and integration of traces (Instaseis' `_diff_and_integrate`, §2.13 step 3). */
#include "axibulk/timeproc.h"

void axb_gradient(const double *in, int64_t n, double dx, double *out)
{
    if (n <= 0) return;
    if (n == 1) {
        out[0] = 0.0;
        return;
    }
    /* NumPy's expressions and operand order, so results are bit-identical. The two previous
     * inputs are carried in registers, which also makes in == out safe. */
    const double two_dx = 2. * dx;
    double prev = in[0], cur = in[1];
    out[0] = (cur - prev) / dx;
    for (int64_t k = 1; k < n - 1; k++) {
        const double next = in[k + 1];
        out[k] = (next - prev) / two_dx;
        prev = cur;
        cur = next;
    }
    out[n - 1] = (cur - prev) / dx;
}

void axb_cumtrapz(const double *in, int64_t n, double dx, double *out)
{
    if (n <= 0) return;
    /* scipy: cumsum(dx * (y[1:] + y[:-1]) / 2.0) behind an initial 0. */
    double prev = in[0], sum = 0.0;
    out[0] = 0.0;
    for (int64_t k = 1; k < n; k++) {
        const double cur = in[k];
        sum += dx * (cur + prev) / 2.0;
        out[k] = sum;
        prev = cur;
    }
}
