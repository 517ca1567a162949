/* The cross-correlation delay of two traces in a window, for finite-difference checks of kernels. */
#include "support/cc_delay.h"

#include <complex.h>
#include <fftw3.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Delay τ of b against a (b(t) ≈ a(t − τ)) maximising ∫_W a(t − τ) b(t) dt, with a shifted by a
 * band-limited Fourier shift; Newton on the derivative, from τ = 0. Also the least-squares
 * amplitude ratio ∫ a b / ∫ a a over the window. */
double axb_test_cc_delay(const double *a, const double *b, int64_t nt, double dt, int64_t n0, int64_t n1, double *ratio)
{
    const int64_t nfft = 8 * nt, nf = nfft / 2 + 1;
    double *r = fftw_malloc((size_t)nfft * sizeof *r);
    fftw_complex *A = fftw_malloc((size_t)nf * sizeof *A), *X = fftw_malloc((size_t)nf * sizeof *X);
    double *s = malloc((size_t)nfft * sizeof *s), *ds = malloc((size_t)nfft * sizeof *ds),
           *d2 = malloc((size_t)nfft * sizeof *d2);
    fftw_plan p = fftw_plan_dft_r2c_1d((int)nfft, r, A, FFTW_ESTIMATE);
    fftw_plan q = fftw_plan_dft_c2r_1d((int)nfft, X, r, FFTW_ESTIMATE);
    memset(r, 0, (size_t)nfft * sizeof *r);
    memcpy(r, a, (size_t)nt * sizeof *r);
    fftw_execute(p);
    double tau = 0;
    for (int it = 0; it < 30; it++) {
        double *dst[3] = {s, ds, d2};
        for (int d = 0; d < 3; d++) {
            for (int64_t k = 0; k < nf; k++) {
                const double w = 2 * acos(-1.0) * (double)k / ((double)nfft * dt);
                double complex z = A[k] * cexp(-I * w * tau); /* a(t − τ) */
                for (int e = 0; e < d; e++) z *= I * w;       /* d/dt */
                if (k == nf - 1) z = creal(z);
                X[k] = z;
            }
            fftw_execute(q);
            for (int64_t n = 0; n < nfft; n++) dst[d][n] = r[n] / (double)nfft;
        }
        /* Γ(τ) = Σ a(t−τ) b(t); Γ' = −Σ ȧ(t−τ) b; Γ'' = Σ ä(t−τ) b */
        double g1 = 0, g2 = 0;
        for (int64_t n = n0; n <= n1; n++) {
            g1 -= ds[n] * b[n];
            g2 += d2[n] * b[n];
        }
        const double step = -g1 / g2;
        tau += step;
        if (fabs(step) < 1e-12) break;
    }
    double ab = 0, aa = 0;
    for (int64_t n = n0; n <= n1; n++) ab += a[n] * b[n], aa += a[n] * a[n];
    *ratio = ab / aa;
    fftw_destroy_plan(p);
    fftw_destroy_plan(q);
    fftw_free(r);
    fftw_free(A);
    fftw_free(X);
    free(s);
    free(ds);
    free(d2);
    return tau;
}
