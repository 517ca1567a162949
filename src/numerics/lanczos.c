/* Lanczos resampling as ObsPy's lanczos_interpolation computes it. ObsPy passes kernel type 0
 * whatever window the caller names, so the kernel is sinc(u)·sinc(u/a) (reference notes §7.1). */
#include "axibulk/timeproc.h"

#include <math.h>
#include <stdlib.h>

static const double PI = 3.14159265358979323846;

/* ObsPy's sinc: exact 1 near 0 (the cutoff matters only for bit-compatibility). */
static inline double obspy_sinc(double x)
{
    if (fabs(x) < 1e-10) return 1.0;
    return sin(PI * x) / (PI * x);
}

void axb_lanczos_resample(const double *in, int64_t nin, double old_dt, double new_start, double new_dt, int64_t nout,
                          int a, double *out)
{
    /* Same expressions as ObsPy (old_start = 0), so the taps and roundings match. */
    const double q = new_dt / old_dt;
    const double offset = (new_start - 0.0) / old_dt;
    for (int64_t n = 0; n < nout; n++) {
        const double x = q * (double)n + offset;
        const int64_t fl = (int64_t)floor(x);
        double acc = 0.0;
        for (int m = -a; m <= a; m++) {
            const int64_t i = fl - m;
            if (i < 0 || i >= nin) continue;
            const double u = x - (double)i;
            if (-a <= u && u <= a) acc += in[i] * obspy_sinc(u) * obspy_sinc(u / (double)a);
        }
        out[n] = acc;
    }
}

struct axb_lanczos_plan {
    int64_t nin, nout;
    int ntap;       /* 2a+1: row stride of w */
    int64_t *first; /* [nout] highest input index used by output n (taps run downwards) */
    int *count;     /* [nout] taps used */
    double *w;      /* [nout][ntap] weights, first `count` entries of each row used */
};

void axb_lanczos_plan_destroy(axb_lanczos_plan **plan)
{
    if (plan == NULL || *plan == NULL) return;
    free((*plan)->first);
    free((*plan)->count);
    free((*plan)->w);
    free(*plan);
    *plan = NULL;
}

axb_status axb_lanczos_plan_create(int64_t nin, double old_dt, double new_start, double new_dt, int64_t nout, int a,
                                   axb_lanczos_plan **plan, axb_error *err)
{
    AXB_CHECK(err, plan != NULL, AXB_ERR_ARG, "Lanczos plan: NULL argument");
    *plan = NULL;
    AXB_CHECK(err, a >= 1 && a <= 100000, AXB_ERR_ARG, "Lanczos kernel width a = %d is outside 1..100000", a);
    AXB_CHECK(err, nin >= 1 && nout >= 1, AXB_ERR_ARG, "Lanczos resampling needs samples: %lld in, %lld out",
              (long long)nin, (long long)nout);
    AXB_CHECK(err, isfinite(old_dt) && old_dt > 0.0 && isfinite(new_dt) && new_dt > 0.0, AXB_ERR_ARG,
              "Lanczos resampling: sample spacings %g and %g must be positive", old_dt, new_dt);
    AXB_CHECK(err, isfinite(new_start), AXB_ERR_ARG, "Lanczos resampling: start %g is not finite", new_start);
    const double old_end = old_dt * (double)(nin - 1);
    const double new_end = new_start + new_dt * (double)(nout - 1);
    AXB_CHECK(err, new_start >= 0.0 && new_end <= old_end, AXB_ERR_RANGE,
              "Lanczos resampling: the new axis %.9g..%.9g s is not inside the old one 0..%.9g s; "
              "no extrapolation can be performed",
              new_start, new_end, old_end);
    const int ntap = 2 * a + 1;
    AXB_CHECK(err, (double)nout * ntap <= 1e9, AXB_ERR_RANGE,
              "Lanczos plan: %lld output samples with a = %d need too many weights", (long long)nout, a);

    axb_lanczos_plan *lp = calloc(1, sizeof *lp);
    AXB_CHECK(err, lp != NULL, AXB_ERR_NOMEM, "Lanczos plan: out of memory");
    lp->nin = nin;
    lp->nout = nout;
    lp->ntap = ntap;
    lp->first = malloc((size_t)nout * sizeof *lp->first);
    lp->count = malloc((size_t)nout * sizeof *lp->count);
    lp->w = malloc((size_t)nout * (size_t)ntap * sizeof *lp->w);
    if (lp->first == NULL || lp->count == NULL || lp->w == NULL) {
        axb_lanczos_plan_destroy(&lp);
        return axb_error_set(err, AXB_ERR_NOMEM, "Lanczos plan: out of memory for %lld x %d weights", (long long)nout,
                             ntap);
    }

    /* The taps and their order are exactly axb_lanczos_resample's; only the kernel's value is
     * stored so that applying it is a dot product. The used taps are consecutive: the index range
     * and the |u| <= a window are both intervals of m. */
    const double q = new_dt / old_dt;
    const double offset = (new_start - 0.0) / old_dt;
    for (int64_t n = 0; n < nout; n++) {
        const double x = q * (double)n + offset;
        const int64_t fl = (int64_t)floor(x);
        double *row = lp->w + n * ntap;
        int cnt = 0;
        int64_t first = 0;
        for (int m = -a; m <= a; m++) {
            const int64_t i = fl - m;
            if (i < 0 || i >= nin) continue;
            const double u = x - (double)i;
            if (!(-a <= u && u <= a)) continue;
            if (cnt == 0) first = i;
            row[cnt++] = obspy_sinc(u) * obspy_sinc(u / (double)a);
        }
        lp->first[n] = first;
        lp->count[n] = cnt;
    }
    *plan = lp;
    return AXB_OK;
}

void axb_lanczos_plan_apply(const axb_lanczos_plan *plan, const double *in, double *out)
{
    const int ntap = plan->ntap;
    for (int64_t n = 0; n < plan->nout; n++) {
        const double *row = plan->w + n * ntap;
        const double *src = in + plan->first[n];
        const int cnt = plan->count[n];
        double acc = 0.0;
        for (int t = 0; t < cnt; t++) acc += src[-t] * row[t];
        out[n] = acc;
    }
}
