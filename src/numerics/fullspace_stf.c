/* The errorf source time function and the five time series of the full-space Green's functions
 * in closed form (docs/mkdb-physics.md §2). */
#include <math.h>

#include "numerics/fullspace_internal.h"

/* AxiSEM's errorf: S(t) = ½(1 + erf(decay/t_0·(t − shift))) with t_0 = period, decay = 3.5
 * (SOLVER/source.f90, parameters.F90); its smooth-STF shift is 1.5·t_0 rounded up to the dump step. */
static const double axisem_decay = 3.5;
static const double axisem_shift_periods = 1.5;

void axb_fs_stf_from_period(double period, axb_fs_stf *stf)
{
    stf->sigma = period / axisem_decay;
    stf->t0 = axisem_shift_periods * period;
}

void axb_fs_stf_from_period_dt(double period, double dt, axb_fs_stf *stf)
{
    axb_fs_stf_from_period(period, stf);
    stf->t0 = dt * ceil(axisem_shift_periods * period / dt);
}

void axb_fs_stf_sample(const axb_fs_stf *stf, double amplitude, int64_t nt, double dt, double *stf_dump,
                       double *stf_d_dump)
{
    const double rate_norm = amplitude / (stf->sigma * AXB_FS_SQRT_PI);
    for (int64_t k = 0; k < nt; k++) {
        double y = ((double)k * dt - stf->t0) / stf->sigma;
        /* erfc of −y keeps the tiny early values accurate where 1 + erf would cancel */
        if (stf_dump) stf_dump[k] = 0.5 * amplitude * erfc(-y);
        if (stf_d_dump) stf_d_dump[k] = rate_norm * exp(-y * y);
    }
}

/* Per lag w = t − t0 − τ: the pieces every series needs, from one exp and one erfc. */
typedef struct lag {
    double w, ay; /* lag and |w|/σ */
    double e, c;  /* exp(−y²), erfc(|y|) */
} lag;

static lag lag_at(double w, double sigma)
{
    lag l;
    l.w = w;
    l.ay = fabs(w) / sigma;
    l.e = exp(-l.ay * l.ay);
    l.c = erfc(l.ay);
    return l;
}

static double lag_step(const lag *l)
{
    return l->w >= 0 ? 1.0 - 0.5 * l->c : 0.5 * l->c;
}

/* The step minus its Heaviside limit, D(w) = S(w) − Θ(w), is odd and decays like a Gaussian, so
 * its primitives P(w) = ∫_{−∞}^w D and Q(w) = ∫_{−∞}^w vD(v)dv stay small: the near-field
 * integral is exact-Heaviside part + a correction without large cancelling terms at late times.
 * P(w) = ½σ·ierfc(|y|), ierfc(y) = e^{−y²}/√π − y·erfc(y). */
static double lag_P(const lag *l, double sigma)
{
    return 0.5 * sigma * (l->e / AXB_FS_SQRT_PI - l->ay * l->c);
}

/* Q(w) + [w > 0]·σ²/4 = ±½σ²·j(|y|), j(y) = ∫_y^∞ v·erfc(v) dv = (1 − 2y²)/4·erfc(y) + y·e^{−y²}/(2√π);
 * the constant is added by the caller so equal constants never meet in a subtraction. */
static double lag_Qt(const lag *l, double sigma)
{
    double j = 0.25 * (1.0 - 2.0 * l->ay * l->ay) * l->c + 0.5 * l->ay * l->e / AXB_FS_SQRT_PI;
    return (l->w > 0 ? 0.5 : -0.5) * sigma * sigma * j;
}

/* ½(erf(y_a) − erf(y_b)) for y_a ≥ y_b, through erfc so equal-signed tails do not cancel. */
static double step_diff(const lag *a, const lag *b)
{
    if (b->w >= 0) return 0.5 * (b->c - a->c);
    if (a->w < 0) return 0.5 * (a->c - b->c);
    return 1.0 - 0.5 * (a->c + b->c);
}

void axb_fs_tf_eval(const axb_fs_stf *stf, axb_fs_tf tf, double tau_p, double tau_s, double t, double v[AXB_FS_NTF])
{
    const double sg = stf->sigma;
    const double T = t - stf->t0;
    const lag a = lag_at(T - tau_p, sg), b = lag_at(T - tau_s, sg); /* a.w ≥ b.w */
    const double ga = a.e / (sg * AXB_FS_SQRT_PI), gb = b.e / (sg * AXB_FS_SQRT_PI);

    if (tf == AXB_FS_TF_STEP) {
        double heav = 0.0; /* ∫_{τp}^{τs} τ Θ(T − τ) dτ */
        if (T > tau_p) {
            double hi = T < tau_s ? T : tau_s;
            heav = 0.5 * (hi - tau_p) * (hi + tau_p);
        }
        double jump = 0.25 * sg * sg * ((a.w > 0) - (b.w > 0));
        v[0] = heav + T * (lag_P(&a, sg) - lag_P(&b, sg)) - (lag_Qt(&a, sg) - lag_Qt(&b, sg)) + jump;
        v[1] = lag_step(&a);
        v[2] = lag_step(&b);
        v[3] = ga;
        v[4] = gb;
    } else {
        /* ∫ w g(w) dw = −σ/(2√π)·e^{−w²/σ²} */
        const double rq = -0.5 * sg / AXB_FS_SQRT_PI;
        v[0] = T * step_diff(&a, &b) - rq * (a.e - b.e);
        v[1] = ga;
        v[2] = gb;
        v[3] = -2.0 * a.w / (sg * sg) * ga;
        v[4] = -2.0 * b.w / (sg * sg) * gb;
    }
}

void axb_fs_apply(const axb_fs_medium *m, const axb_fs_stf *stf, axb_fs_tf tf, double r, int ncomp,
                  const double (*coef)[AXB_FS_NTF], int64_t nt, double dt, double *out)
{
    const double tau_p = r / m->vp, tau_s = r / m->vs;
    for (int64_t k = 0; k < nt; k++) {
        double v[AXB_FS_NTF];
        axb_fs_tf_eval(stf, tf, tau_p, tau_s, (double)k * dt, v);
        for (int c = 0; c < ncomp; c++) {
            double acc = 0.0;
            for (int j = 0; j < AXB_FS_NTF; j++) acc += coef[c][j] * v[j];
            out[(int64_t)c * nt + k] = acc;
        }
    }
}
