/* Finite-difference measurements for the kernel tests (docs/kernels.md §5, §11). */
#ifndef AXB_TESTS_SUPPORT_CC_DELAY_H
#define AXB_TESTS_SUPPORT_CC_DELAY_H

#include <stdint.h>

/* Delay τ of b against a (b(t) ≈ a(t − τ)), sampled at dt, that maximises Σ_{n0..n1} a(t_n − τ)·b(t_n)
 * with a shifted by a band-limited Fourier shift (8× zero padding), by Newton steps from τ = 0;
 * *ratio receives the least-squares amplitude ratio Σ a b / Σ a a over the window. */
double axb_test_cc_delay(const double *a, const double *b, int64_t nt, double dt, int64_t n0, int64_t n1,
                         double *ratio);

#endif
