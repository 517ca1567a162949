#include "numerics/mc_estimate.h"

#include <math.h>

void axb_mc_add(axb_mc_estimate *e, int64_t n, const double *f)
{
    if (n <= 0) return;
    if (e->n == 0) e->shift = f[0];
    for (int64_t k = 0; k < n; k++) {
        const double d = f[k] - e->shift;
        e->sum += d;
        e->sum2 += d * d;
    }
    e->n += n;
}

double axb_mc_integral(const axb_mc_estimate *e, double volume)
{
    return e->n ? volume * (e->shift + e->sum / (double)e->n) : 0.0;
}

double axb_mc_error(const axb_mc_estimate *e, double volume)
{
    if (e->n < 2) return INFINITY;
    const double n = (double)e->n, mean = e->sum / n;
    const double var = fmax(0.0, e->sum2 / n - mean * mean);
    return fabs(volume) * sqrt(var / (n - 1.0));
}

bool axb_mc_converged(const axb_mc_estimate *e, double volume, const axb_mc_tolerance *tol)
{
    const int64_t min_n = tol->min_points > 3 ? tol->min_points : 3;
    if (e->n < min_n) return false;
    const double err = axb_mc_error(e, volume);
    return err < tol->abs_tol * fabs(volume) || err < tol->rel_tol * fabs(axb_mc_integral(e, volume));
}
