/* Pointwise kernel numerics; equation numbers refer to docs/kernels.md. */
#include "numerics/kernel_math.h"

#include <math.h>
#include <string.h>

#include <fftw3.h>

unsigned axb_kparam_base_kernels(axb_kparam p)
{
    switch (p) {
    case AXB_KP_VP:
    case AXB_KP_LAMBDA: return 1u << AXB_BK_LAMBDA;
    case AXB_KP_VS: return 1u << AXB_BK_LAMBDA | 1u << AXB_BK_MU;
    case AXB_KP_MU: return 1u << AXB_BK_MU;
    case AXB_KP_RHO: return 1u << AXB_BK_LAMBDA | 1u << AXB_BK_MU | 1u << AXB_BK_RHO;
    case AXB_KP_VPH: return 1u << AXB_BK_A | 1u << AXB_BK_F;
    case AXB_KP_VPV: return 1u << AXB_BK_C;
    case AXB_KP_VSH: return 1u << AXB_BK_N;
    case AXB_KP_VSV: return 1u << AXB_BK_L | 1u << AXB_BK_F;
    case AXB_KP_ETA: return 1u << AXB_BK_F;
    default: return 0;
    }
}

/* Voigt index -> tensor index pair. */
static const int VI[6] = {0, 1, 2, 1, 0, 0}, VJ[6] = {0, 1, 2, 2, 2, 1};

void axb_voigt_rotation(const double Q[3][3], double B[6][6])
{
    for (int p = 0; p < 6; p++) {
        const int a = VI[p], b = VJ[p];
        for (int q = 0; q < 6; q++) {
            const int i = VI[q], j = VJ[q];
            /* an off-diagonal Voigt entry stands for both E_ij and E_ji */
            B[p][q] = i == j ? Q[a][i] * Q[b][i] : Q[a][i] * Q[b][j] + Q[a][j] * Q[b][i];
        }
    }
}

void axb_kmodel_from_axisem(double vp, double vs, double rho, double xi, double phi, double eta, axb_kmodel *m)
{
    m->rho = rho;
    m->vp = vp;
    m->vs = vs;
    m->vph = vp;
    m->vsh = vs;
    m->vpv = vp * sqrt(phi);
    m->vsv = xi > 0 ? vs / sqrt(xi) : vs;
    m->eta = eta;
}

void axb_kernel_products(int64_t nf, const double complex *F, const double complex *Uf, const double complex *B,
                         const double complex *Ub, const double *omega2, unsigned want, double complex *P)
{
    const double complex *f0 = F, *f1 = F + nf, *f2 = F + 2 * nf, *f3 = F + 3 * nf, *f4 = F + 4 * nf, *f5 = F + 5 * nf;
    const double complex *b0 = B, *b1 = B + nf, *b2 = B + 2 * nf, *b3 = B + 3 * nf, *b4 = B + 4 * nf, *b5 = B + 5 * nf;
    if (want & 1u << AXB_BK_LAMBDA) {
        double complex *p = P + AXB_BK_LAMBDA * nf; /* (K1) */
        for (int64_t k = 0; k < nf; k++) p[k] = -(f0[k] + f1[k] + f2[k]) * (b0[k] + b1[k] + b2[k]);
    }
    if (want & 1u << AXB_BK_MU) {
        double complex *p = P + AXB_BK_MU * nf; /* (K2): shear entries count twice in ε:ε */
        for (int64_t k = 0; k < nf; k++)
            p[k] = -2.0 *
                (f0[k] * b0[k] + f1[k] * b1[k] + f2[k] * b2[k] + 2.0 * (f3[k] * b3[k] + f4[k] * b4[k] + f5[k] * b5[k]));
    }
    if (want & 1u << AXB_BK_RHO) {
        double complex *p = P + AXB_BK_RHO * nf; /* (K3): −v^b ∗ v^f, v̂ = 2πif û */
        const double complex *u0 = Uf, *u1 = Uf + nf, *u2 = Uf + 2 * nf, *w0 = Ub, *w1 = Ub + nf, *w2 = Ub + 2 * nf;
        for (int64_t k = 0; k < nf; k++) p[k] = omega2[k] * (u0[k] * w0[k] + u1[k] * w1[k] + u2[k] * w2[k]);
    }
    /* (K5) Love's moduli, index 2 radial */
    if (want & 1u << AXB_BK_A) {
        double complex *p = P + AXB_BK_A * nf;
        for (int64_t k = 0; k < nf; k++) p[k] = -(f0[k] + f1[k]) * (b0[k] + b1[k]);
    }
    if (want & 1u << AXB_BK_C) {
        double complex *p = P + AXB_BK_C * nf;
        for (int64_t k = 0; k < nf; k++) p[k] = -f2[k] * b2[k];
    }
    if (want & 1u << AXB_BK_F) {
        double complex *p = P + AXB_BK_F * nf;
        for (int64_t k = 0; k < nf; k++) p[k] = -((b0[k] + b1[k]) * f2[k] + b2[k] * (f0[k] + f1[k]));
    }
    if (want & 1u << AXB_BK_L) {
        double complex *p = P + AXB_BK_L * nf;
        for (int64_t k = 0; k < nf; k++) p[k] = -4.0 * (b3[k] * f3[k] + b4[k] * f4[k]);
    }
    if (want & 1u << AXB_BK_N) {
        double complex *p = P + AXB_BK_N * nf;
        for (int64_t k = 0; k < nf; k++) p[k] = -(4.0 * b5[k] * f5[k] - 2.0 * (b0[k] * f1[k] + b1[k] * f0[k]));
    }
}

void axb_kernel_dot(int64_t nf, const double complex *P, const double complex *G, unsigned want, double k[AXB_BK_COUNT])
{
    for (int x = 0; x < AXB_BK_COUNT; x++) {
        if (!(want & 1u << x)) continue;
        const double complex *p = P + x * nf;
        double s = 0;
        for (int64_t i = 0; i < nf; i++) s += creal(G[i]) * creal(p[i]) - cimag(G[i]) * cimag(p[i]);
        k[x] = s;
    }
}

double axb_kparam_value(axb_kparam p, const double k[AXB_BK_COUNT], const axb_kmodel *m, int relative)
{
    const double rho = m->rho, vp = m->vp, vs = m->vs;
    /* (P1)-(P10): absolute kernels, then × the parameter for relative ones */
    double K = 0, value = 1;
    switch (p) {
    case AXB_KP_VP: K = 2 * rho * vp * k[AXB_BK_LAMBDA], value = vp; break;
    case AXB_KP_VS: K = 2 * rho * vs * (k[AXB_BK_MU] - 2 * k[AXB_BK_LAMBDA]), value = vs; break;
    case AXB_KP_RHO:
        K = (vp * vp - 2 * vs * vs) * k[AXB_BK_LAMBDA] + vs * vs * k[AXB_BK_MU] + k[AXB_BK_RHO], value = rho;
        break;
    case AXB_KP_LAMBDA: K = k[AXB_BK_LAMBDA], value = rho * (vp * vp - 2 * vs * vs); break;
    case AXB_KP_MU: K = k[AXB_BK_MU], value = rho * vs * vs; break;
    case AXB_KP_VPH: K = 2 * rho * m->vph * (k[AXB_BK_A] + m->eta * k[AXB_BK_F]), value = m->vph; break;
    case AXB_KP_VPV: K = 2 * rho * m->vpv * k[AXB_BK_C], value = m->vpv; break;
    case AXB_KP_VSH: K = 2 * rho * m->vsh * k[AXB_BK_N], value = m->vsh; break;
    case AXB_KP_VSV: K = 2 * rho * m->vsv * (k[AXB_BK_L] - 2 * m->eta * k[AXB_BK_F]), value = m->vsv; break;
    case AXB_KP_ETA: K = rho * (m->vph * m->vph - 2 * m->vsv * m->vsv) * k[AXB_BK_F], value = m->eta; break;
    default: return 0;
    }
    return relative ? K * value : K;
}

axb_status axb_kernel_weights(int64_t nt, double dt, int64_t nfft, const double *u, const double complex *Ts,
                              const double complex *Tk, int64_t n0, int64_t n1, axb_misfit misfit, double *seis,
                              double *vel, double complex *G, axb_error *err)
{
    const int64_t nf = nfft / 2 + 1;
    double *r = fftw_malloc((size_t)nfft * sizeof *r);
    /* complex.h comes before fftw3.h, so fftw_complex is double complex */
    fftw_complex *U = fftw_malloc((size_t)nf * sizeof *U), *X = fftw_malloc((size_t)nf * sizeof *X);
    axb_status st = AXB_OK;
    if (!r || !U || !X) {
        st = axb_error_set(err, AXB_ERR_NOMEM, "kernel weights for %lld samples", (long long)nfft);
        goto done;
    }
    fftw_plan r2c = fftw_plan_dft_r2c_1d((int)nfft, r, U, FFTW_ESTIMATE);
    fftw_plan c2r = fftw_plan_dft_c2r_1d((int)nfft, X, r, FFTW_ESTIMATE);
    memset(r, 0, (size_t)nfft * sizeof *r);
    memcpy(r, u, (size_t)nt * sizeof *r);
    fftw_execute(r2c);
    const double two_pi_df = 2 * acos(-1.0) / ((double)nfft * dt);
    /* the filtered seismogram and its derivative (iω), both real at the Nyquist bin */
    for (int pass = 0; pass < 2; pass++) {
        for (int64_t k = 0; k < nf; k++) {
            double complex h = Ts[k] * U[k];
            if (pass) h *= I * two_pi_df * (double)k;
            if (k == nf - 1) h = creal(h);
            X[k] = h;
        }
        fftw_execute(c2r);
        double *dst = pass ? vel : seis;
        for (int64_t n = 0; n < nt; n++) dst[n] = r[n] / (double)nfft;
    }
    /* w: the window-weighted seismogram (CC: −u̇/∫u̇², AM: u/∫u²), its spectrum W */
    const double *a = misfit == AXB_MISFIT_CC ? vel : seis;
    double norm = 0, peak = 0, wpeak = 0;
    for (int64_t n = n0; n <= n1; n++) norm += a[n] * a[n], wpeak = fmax(wpeak, fabs(a[n]));
    norm *= dt;
    for (int64_t n = 0; n < nt; n++) peak = fmax(peak, fabs(a[n]));
    /* After FFT filtering a window with no signal holds rounding noise (~1e-16 of the peak), never
     * exact zeros: dividing by its energy would scale the kernel by ~1e30. Below 1e-12 of the peak
     * (240 dB down) the window counts as zero. */
    if (!(norm > 0) || !(wpeak > 1e-12 * peak)) {
        st = axb_error_set(err, AXB_ERR_RANGE, "the seismogram%s is zero in the window (%.2g of its peak)",
                           misfit == AXB_MISFIT_CC ? "'s derivative" : "", peak > 0 ? wpeak / peak : 0.0);
        goto plans;
    }
    memset(r, 0, (size_t)nfft * sizeof *r);
    for (int64_t n = n0; n <= n1; n++) r[n] = (misfit == AXB_MISFIT_CC ? -a[n] : a[n]) / norm;
    fftw_execute_dft_r2c(r2c, r, X);
    /* ∫ w K dt = (dt/nfft) Σ_k Z_k conj(W_k) over all k, Z_k = Tk · dt · P_k: Hermitian halves */
    for (int64_t k = 0; k < nf; k++) {
        const double c = (k == 0 || k == nf - 1) ? 1.0 : 2.0;
        double complex t = Tk[k];
        if (k == nf - 1) t = creal(t);
        G[k] = c * dt * dt / (double)nfft * t * conj(X[k]);
    }
plans:
    fftw_destroy_plan(r2c);
    fftw_destroy_plan(c2r);
done:
    fftw_free(r);
    fftw_free(U);
    fftw_free(X);
    return st;
}
