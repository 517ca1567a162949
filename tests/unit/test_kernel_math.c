/* Pointwise kernel numerics (src/numerics/kernel_math.c) against references computed here,
 * independently of the module:
 *  - Voigt rotation: plain 3×3 products Q E Qᵀ;
 *  - waveform and misfit kernels: the textbook time-domain formulas of docs/kernels.md (K6), (K18),
 *    (K19), (K23) — explicit discrete convolution of the forward and backward traces, explicit
 *    convolution with the analytic impulse response of the kernel's transfer function, explicit
 *    window sums — against the one-dot-product shortcut Σ_k Re(G_k P_k) (K20). The bilinear
 *    coefficients of each base kernel are not copied from the docs but differentiated out of the
 *    full elastic tensor C_ijkl (isotropic from Kronecker deltas, Love's medium from its Voigt
 *    matrix), contracted over all nine index pairs;
 *  - the chain rules (K21), (K24): central finite differences of the Born bilinear form
 *    ρω² U^f·U^b − g : C(model) : e, C_ijkl built from the model parameters;
 *  - spectra by a direct O(n²) DFT (no FFTW).
 * Tolerances are stated per check. */
#include "numerics/kernel_math.h"

#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "test_rng.h"

#define PI 3.14159265358979323846
#define NT 100
#define DT 0.1
#define NFFT 512 /* > 2·NT, and the impulse responses below die out long before they could wrap */
#define NF (NFFT / 2 + 1)
#define NCONV (2 * NT - 1)

/* ---------------------------------------------------------------- helpers */

/* Voigt index <-> tensor pair, [11, 22, 33, 23, 13, 12] (the header's order, restated here). */
static const int TI_[6] = {0, 1, 2, 1, 0, 0}, TJ_[6] = {0, 1, 2, 2, 2, 1};

static int voigt_of(int i, int j)
{
    return i == j ? i : 6 - i - j;
}

static void tensor_of(const double v[6], double E[3][3])
{
    for (int p = 0; p < 6; p++) E[TI_[p]][TJ_[p]] = E[TJ_[p]][TI_[p]] = v[p];
}

static void random_rotation(rng *g, double Q[3][3])
{
    double q[4], n = 0;
    for (int i = 0; i < 4; i++) {
        q[i] = urange(g, -1, 1);
        n += q[i] * q[i];
    }
    n = sqrt(n);
    const double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
    const double R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                            {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                            {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) Q[i][j] = R[i][j];
}

static void rotation_about_radial(double angle, double Q[3][3])
{
    const double c = cos(angle), s = sin(angle);
    const double R[3][3] = {{c, -s, 0}, {s, c, 0}, {0, 0, 1}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) Q[i][j] = R[i][j];
}

static void matmul(const double A[3][3], const double B[3][3], double C[3][3])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++) s += A[i][k] * B[k][j];
            C[i][j] = s;
        }
}

/* ---------------------------------------------------------------- elastic tensors */

typedef double ctensor[3][3][3][3];

static void iso_tensor(double lam, double mu, ctensor C)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                for (int l = 0; l < 3; l++)
                    C[i][j][k][l] = lam * (i == j) * (k == l) + mu * ((i == k) * (j == l) + (i == l) * (j == k));
}

/* Love's radially anisotropic medium, symmetry axis = index 2, from its Voigt matrix (docs §6). */
static void ti_tensor(double A, double Cc, double F, double L, double N, ctensor C)
{
    const double V[6][6] = {{A, A - 2 * N, F, 0, 0, 0}, {A - 2 * N, A, F, 0, 0, 0}, {F, F, Cc, 0, 0, 0},
                            {0, 0, 0, L, 0, 0},         {0, 0, 0, 0, L, 0},         {0, 0, 0, 0, 0, N}};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                for (int l = 0; l < 3; l++) C[i][j][k][l] = V[voigt_of(i, j)][voigt_of(k, l)];
}

/* g : C : e over all 81 index combinations (tensor strains as Voigt vectors). */
static double bform(ctensor C, const double gv[6], const double ev[6])
{
    double g[3][3], e[3][3], s = 0;
    tensor_of(gv, g);
    tensor_of(ev, e);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                for (int l = 0; l < 3; l++) s += g[i][j] * C[i][j][k][l] * e[k][l];
    return s;
}

/* The tensor ∂C/∂X of base kernel X (C is linear in each modulus: set X = 1, the others 0). */
static void unit_tensor(int x, ctensor C)
{
    switch (x) {
    case AXB_BK_LAMBDA: iso_tensor(1, 0, C); break;
    case AXB_BK_MU: iso_tensor(0, 1, C); break;
    case AXB_BK_A: ti_tensor(1, 0, 0, 0, 0, C); break;
    case AXB_BK_C: ti_tensor(0, 1, 0, 0, 0, C); break;
    case AXB_BK_F: ti_tensor(0, 0, 1, 0, 0, C); break;
    case AXB_BK_L: ti_tensor(0, 0, 0, 1, 0, C); break;
    case AXB_BK_N: ti_tensor(0, 0, 0, 0, 1, C); break;
    default: break;
    }
}

/* M[i][j] = −∂B/∂X for forward Voigt component i, backward j: by (K4) the waveform kernel of an
 * elastic modulus X is Σ_ij M[i][j] f_i ∗ b_j. */
static void base_coefficients(int x, double M[6][6])
{
    static ctensor C;
    unit_tensor(x, C);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            double e[6] = {0}, g[6] = {0};
            e[i] = 1;
            g[j] = 1;
            M[i][j] = -bform(C, g, e);
        }
}

/* ---------------------------------------------------------------- 1. Voigt rotation */

static void test_voigt_rotation(check_ctx *T, rng *g)
{
    double worst = 0, worst_tr = 0, worst_comp = 0, worst_inv = 0;
    for (int trial = 0; trial < 50; trial++) {
        double Q[3][3], Q2[3][3], Q21[3][3], Qt[3][3], v[6], E[3][3], QE[3][3], R[3][3];
        random_rotation(g, Q);
        random_rotation(g, Q2);
        for (int p = 0; p < 6; p++) v[p] = urange(g, -1, 1);
        tensor_of(v, E);
        double B[6][6], B2[6][6], B21[6][6], Bt[6][6];
        axb_voigt_rotation(Q, B);
        /* reference: R = Q E Qᵀ with plain matrix products */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) Qt[i][j] = Q[j][i];
        matmul(Q, E, QE);
        matmul(QE, Qt, R);
        double tr0 = 0, tr1 = 0;
        for (int p = 0; p < 6; p++) {
            double bv = 0;
            for (int q = 0; q < 6; q++) bv += B[p][q] * v[q];
            worst = fmax(worst, fabs(bv - R[TI_[p]][TJ_[p]]));
            if (p < 3) tr0 += v[p], tr1 += bv;
        }
        worst_tr = fmax(worst_tr, fabs(tr1 - tr0));
        /* composition: rotating by Q then Q2 is rotating by Q2·Q */
        matmul(Q2, Q, Q21);
        axb_voigt_rotation(Q2, B2);
        axb_voigt_rotation(Q21, B21);
        axb_voigt_rotation(Qt, Bt);
        for (int p = 0; p < 6; p++)
            for (int q = 0; q < 6; q++) {
                double c = 0, id = 0;
                for (int r = 0; r < 6; r++) c += B2[p][r] * B[r][q], id += Bt[p][r] * B[r][q];
                worst_comp = fmax(worst_comp, fabs(c - B21[p][q]));
                worst_inv = fmax(worst_inv, fabs(id - (p == q)));
            }
    }
    /* entries are O(1): a few roundings of sums of nine products */
    CHECK_MSG(T, worst <= 1e-14, "B·v vs Voigt(Q E Qᵀ): %.3g", worst);
    CHECK_MSG(T, worst_tr <= 1e-14, "trace: %.3g", worst_tr);
    CHECK_MSG(T, worst_comp <= 1e-14, "B(Q2 Q1) vs B(Q2) B(Q1): %.3g", worst_comp);
    CHECK_MSG(T, worst_inv <= 1e-14, "B(Qᵀ) B(Q) vs identity: %.3g", worst_inv);
}

/* ---------------------------------------------------------------- 2. shortcut vs time domain */

/* A zero-phase Gaussian band-pass G(f) = e^{−(f−f0)²/2s²} + e^{−(f+f0)²/2s²}, times (2πif)^p and
 * a delay e^{−2πif·t0}. Its impulse response is the p-th derivative of
 * g(t − t0), g(t) = 2s√(2π) cos(2πf0 t) e^{−2π²s²t²} = Re(2s√(2π) z), z = e^{iω0 t − a t²}. */
typedef struct bandpass {
    double f0, s, t0;
    int p;
} bandpass;

static double complex bp_response(const bandpass *b, double f)
{
    const double G = exp(-0.5 * pow((f - b->f0) / b->s, 2)) + exp(-0.5 * pow((f + b->f0) / b->s, 2));
    double complex d = 1; /* (2πif)^p by products: cpow(0, 0) is NaN in glibc */
    for (int q = 0; q < b->p; q++) d *= 2 * PI * I * f;
    return d * G * cexp(-2 * PI * I * f * b->t0);
}

/* d-th time derivative of the impulse response at t: z^{(n)} = P_n z with
 * P_{n+1} = P_n' + (iω0 − 2at) P_n, a polynomial of degree n (n <= 4 here). */
static double bp_impulse(const bandpass *b, int d, double t)
{
    const int n = b->p + d;
    const double a = 2 * PI * PI * b->s * b->s, w0 = 2 * PI * b->f0;
    t -= b->t0;
    double complex c[6] = {1, 0, 0, 0, 0, 0}; /* coefficients of P_n in t */
    for (int m = 0; m < n; m++) {
        double complex nc[6] = {0};
        for (int q = 1; q <= m; q++) nc[q - 1] += q * c[q];
        for (int q = 0; q <= m; q++) {
            nc[q] += I * w0 * c[q];
            nc[q + 1] += -2 * a * c[q];
        }
        for (int q = 0; q < 6; q++) c[q] = nc[q];
    }
    double complex P = 0;
    for (int q = n; q >= 0; q--) P = P * t + c[q];
    return creal(2 * b->s * sqrt(2 * PI) * P * cexp(I * w0 * t - a * t * t));
}

/* Direct DFT of a real trace of nt samples zero-padded to NFFT, bins 0..NF−1 (no dt factor, like
 * FFTW's r2c). */
static void dft(const double *x, int nt, double complex *X)
{
    for (int k = 0; k < NF; k++) {
        double complex s = 0;
        for (int n = 0; n < nt; n++) s += x[n] * cexp(-2 * PI * I * (double)((k * n) % NFFT) / NFFT);
        X[k] = s;
    }
}

/* A smooth random trace: a few Gaussian pulses. */
static void smooth_trace(rng *g, double *x)
{
    double c[4], w[4], a[4];
    for (int j = 0; j < 4; j++) c[j] = urange(g, 0, NT * DT), w[j] = urange(g, 0.2, 1.0), a[j] = urange(g, -1, 1);
    for (int n = 0; n < NT; n++) {
        x[n] = 0;
        for (int j = 0; j < 4; j++) x[n] += a[j] * exp(-pow((n * DT - c[j]) / w[j], 2));
    }
}

/* Linear convolution dt Σ_τ x(τ) y(t − τ) of two NT-sample traces, NCONV samples. */
static void convolve(const double *x, const double *y, double *c)
{
    for (int m = 0; m < NCONV; m++) {
        double s = 0;
        for (int t = 0; t < NT; t++)
            if (m - t >= 0 && m - t < NT) s += x[t] * y[m - t];
        c[m] = DT * s;
    }
}

/* The misfit integral of a (filtered) waveform kernel Kt on [n0, n1] (K18)/(K19), and in *scale
 * the same with |·| everywhere (the size of the sum before cancellation). */
static double misfit_td(axb_misfit mf, const double *seis, const double *vel, const double *Kt, int n0, int n1,
                        double *scale)
{
    const double *a = mf == AXB_MISFIT_CC ? vel : seis;
    double num = 0, den = 0, abs_num = 0;
    for (int n = n0; n <= n1; n++) {
        num += DT * a[n] * Kt[n];
        abs_num += DT * fabs(a[n] * Kt[n]);
        den += DT * a[n] * a[n];
    }
    *scale = abs_num / den;
    return (mf == AXB_MISFIT_CC ? -num : num) / den;
}

static void test_time_domain(check_ctx *T, rng *g)
{
    /* 4–5 s wide impulse responses (to 1e-16), vanishing (< 1e-20) at the Nyquist frequency 5 Hz */
    /* Tk has the factor iω and a delay so that it is not real: a zero-phase real Tk could not tell
     * Tk from its conjugate, nor a lag from a lead */
    const bandpass bk = {1.0, 0.3, 0.7, 1}, bs = {1.2, 0.35, -0.4, 0};
    static double f[6][NT], b[6][NT], uf[3][NT], ub[3][NT], u[NT];
    static double complex F[6 * NF], Bs[6 * NF], Uf[3 * NF], Ub[3 * NF], P[AXB_BK_COUNT * NF], G[NF], Ts[NF], Tk[NF];
    static double omega2[NF], cc[6][6][NCONV], cuu[NCONV], tmp[NCONV], seis[NT], vel[NT], Kt[AXB_BK_COUNT][NT];
    for (int i = 0; i < 6; i++) smooth_trace(g, f[i]), smooth_trace(g, b[i]);
    for (int i = 0; i < 3; i++) smooth_trace(g, uf[i]), smooth_trace(g, ub[i]);
    smooth_trace(g, u);
    for (int i = 0; i < 6; i++) dft(f[i], NT, F + i * NF), dft(b[i], NT, Bs + i * NF);
    for (int i = 0; i < 3; i++) dft(uf[i], NT, Uf + i * NF), dft(ub[i], NT, Ub + i * NF);
    for (int k = 0; k < NF; k++) {
        const double fk = k / (NFFT * DT);
        omega2[k] = pow(2 * PI * fk, 2);
        Ts[k] = bp_response(&bs, fk);
        Tk[k] = bp_response(&bk, fk);
    }
    const unsigned all = (1u << AXB_BK_COUNT) - 1;
    axb_kernel_products(NF, F, Uf, Bs, Ub, omega2, all, P);

    /* time domain: pairwise convolutions f_i ∗ b_j and U^f·U^b */
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) convolve(f[i], b[j], cc[i][j]);
    for (int m = 0; m < NCONV; m++) cuu[m] = 0;
    for (int i = 0; i < 3; i++) {
        convolve(uf[i], ub[i], tmp);
        for (int m = 0; m < NCONV; m++) cuu[m] += tmp[m];
    }
    /* filtered waveform kernels at the record's samples: dt Σ_m h(t_n − t_m) c(t_m); density:
     * K_ρ' = −v^b ∗ v^f = −∂²_t (u^b ∗ u^f), so the impulse response's second derivative */
    for (int x = 0; x < AXB_BK_COUNT; x++) {
        double M[6][6] = {{0}};
        if (x != AXB_BK_RHO) base_coefficients(x, M);
        for (int m = 0; m < NCONV; m++) {
            double s = 0;
            if (x == AXB_BK_RHO)
                s = cuu[m];
            else
                for (int i = 0; i < 6; i++)
                    for (int j = 0; j < 6; j++) s += M[i][j] * cc[i][j][m];
            tmp[m] = s;
        }
        for (int n = 0; n < NT; n++) {
            double s = 0;
            for (int m = 0; m < NCONV; m++)
                s += x == AXB_BK_RHO ? -bp_impulse(&bk, 2, (n - m) * DT) * tmp[m]
                                     : bp_impulse(&bk, 0, (n - m) * DT) * tmp[m];
            Kt[x][n] = DT * s;
        }
    }
    /* the reference seismogram and its derivative by convolution with Ts's impulse response */
    double seis_ref[NT], vel_ref[NT];
    for (int n = 0; n < NT; n++) {
        double s = 0, v = 0;
        for (int m = 0; m < NT; m++) {
            s += bp_impulse(&bs, 0, (n - m) * DT) * u[m];
            v += bp_impulse(&bs, 1, (n - m) * DT) * u[m];
        }
        seis_ref[n] = DT * s, vel_ref[n] = DT * v;
    }

    const int n0 = 20, n1 = 80;
    for (int mf = 0; mf < 2; mf++) {
        axb_error err = AXB_ERROR_INIT;
        axb_status st = axb_kernel_weights(NT, DT, NFFT, u, Ts, Tk, n0, n1, (axb_misfit)mf, seis, vel, G, &err);
        CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
        if (st) continue;
        double smax = 0, vmax = 0, sdiff = 0, vdiff = 0;
        for (int n = 0; n < NT; n++) {
            smax = fmax(smax, fabs(seis_ref[n])), vmax = fmax(vmax, fabs(vel_ref[n]));
            sdiff = fmax(sdiff, fabs(seis[n] - seis_ref[n])), vdiff = fmax(vdiff, fabs(vel[n] - vel_ref[n]));
        }
        /* circular FFT filtering vs linear convolution: equal up to rounding, the impulse response
         * tails and the filter beyond Nyquist being < 1e-16 */
        CHECK_MSG(T, smax > 1e-3 && sdiff <= 1e-12 * smax, "seismogram: %.3g of %.3g", sdiff, smax);
        CHECK_MSG(T, vmax > 1e-3 && vdiff <= 1e-12 * vmax, "velocity: %.3g of %.3g", vdiff, vmax);

        double k[AXB_BK_COUNT];
        axb_kernel_dot(NF, P, G, all, k);
        for (int x = 0; x < AXB_BK_COUNT; x++) {
            double scale;
            const double ref = misfit_td((axb_misfit)mf, seis, vel, Kt[x], n0, n1, &scale);
            /* 1e-10 of the sum's size before cancellation; a tolerance, not a cancellation artefact:
             * every ref is well above it */
            CHECK_MSG(T, fabs(ref) > 1e-3 * scale && fabs(k[x] - ref) <= 1e-10 * scale,
                      "misfit %d base %d: shortcut %.17g vs time domain %.17g (scale %.3g)", mf, x, k[x], ref, scale);
        }
    }

    /* The measurement's definition itself: a pure delay δu_H = −δT u̇_H is measured as δT (CC), a
     * pure scaling δu_H = a u_H as δ ln A = a (AM). With Tk = Ts, the product spectrum
     * P = −δT (iω) U / dt is exactly that δu_H after the kernel's dt·Tk. */
    const double dT = 0.37, amp = -0.021;
    static double complex Uspec[NF], Pd[NF];
    dft(u, NT, Uspec);
    for (int mf = 0; mf < 2; mf++) {
        axb_error err = AXB_ERROR_INIT;
        axb_status st = axb_kernel_weights(NT, DT, NFFT, u, Ts, Ts, n0, n1, (axb_misfit)mf, seis, vel, G, &err);
        CHECK(T, st == AXB_OK);
        for (int k = 0; k < NF; k++) {
            const double w = 2 * PI * k / (NFFT * DT);
            Pd[k] = (mf == AXB_MISFIT_CC ? -dT * I * w : amp) * Uspec[k] / DT;
        }
        double kd[AXB_BK_COUNT] = {0};
        axb_kernel_dot(NF, Pd, G, 1u << AXB_BK_LAMBDA, kd);
        CHECK_CLOSE(T, kd[AXB_BK_LAMBDA], mf == AXB_MISFIT_CC ? dT : amp, 1e-12);
    }
}

/* ---------------------------------------------------------------- 3. rotation invariance */

static void rotate_fields(const double Q[3][3], int nf, const double complex *E, const double complex *U,
                          double complex *E2, double complex *U2)
{
    double B[6][6];
    axb_voigt_rotation(Q, B);
    for (int k = 0; k < nf; k++) {
        for (int p = 0; p < 6; p++) {
            double complex s = 0;
            for (int q = 0; q < 6; q++) s += B[p][q] * E[q * nf + k];
            E2[p * nf + k] = s;
        }
        for (int a = 0; a < 3; a++) U2[a * nf + k] = Q[a][0] * U[k] + Q[a][1] * U[nf + k] + Q[a][2] * U[2 * nf + k];
    }
}

static void test_rotation_invariance(check_ctx *T, rng *g)
{
    enum { nf = 4 };
    double complex F[6 * nf], Bb[6 * nf], Uf[3 * nf], Ub[3 * nf], F2[6 * nf], B2[6 * nf], Uf2[3 * nf], Ub2[3 * nf];
    double complex P[AXB_BK_COUNT * nf], P2[AXB_BK_COUNT * nf];
    double omega2[nf];
    const unsigned all = (1u << AXB_BK_COUNT) - 1;
    for (int trial = 0; trial < 20; trial++) {
        for (int i = 0; i < 6 * nf; i++) F[i] = urange(g, -1, 1) + I * urange(g, -1, 1);
        for (int i = 0; i < 6 * nf; i++) Bb[i] = urange(g, -1, 1) + I * urange(g, -1, 1);
        for (int i = 0; i < 3 * nf; i++) Uf[i] = urange(g, -1, 1) + I * urange(g, -1, 1);
        for (int i = 0; i < 3 * nf; i++) Ub[i] = urange(g, -1, 1) + I * urange(g, -1, 1);
        for (int k = 0; k < nf; k++) omega2[k] = urange(g, 0.5, 2);
        axb_kernel_products(nf, F, Uf, Bb, Ub, omega2, all, P);
        double Qg[3][3], Qz[3][3];
        random_rotation(g, Qg);
        rotation_about_radial(urange(g, 0, 2 * PI), Qz);
        for (int which = 0; which < 2; which++) {
            const double(*Q)[3] = which ? Qz : Qg;
            rotate_fields(Q, nf, F, Uf, F2, Uf2);
            rotate_fields(Q, nf, Bb, Ub, B2, Ub2);
            axb_kernel_products(nf, F2, Uf2, B2, Ub2, omega2, all, P2);
            for (int x = 0; x < AXB_BK_COUNT; x++) {
                double d = 0;
                for (int k = 0; k < nf; k++) d = fmax(d, cabs(P2[x * nf + k] - P[x * nf + k]));
                const bool iso = x == AXB_BK_LAMBDA || x == AXB_BK_MU || x == AXB_BK_RHO;
                /* products of O(1) entries summed over ≲ 36 terms: 1e-13 is rounding */
                if (iso || which == 1)
                    CHECK_MSG(T, d <= 1e-13, "trial %d base %d rotation %d: changed by %.3g", trial, x, which, d);
                else /* a rotation that tilts r̂ mixes radial and horizontal moduli: O(1) change */
                    CHECK_MSG(T, d > 1e-3, "trial %d base %d: unchanged (%.3g) by a general rotation", trial, x, d);
            }
        }
    }
}

/* ---------------------------------------------------------------- 4. chain rules */

/* The Born functional at one frequency: ρ ω² U^f·U^b − g : C : e, whose first-order change under
 * a model perturbation is Σ K_X δX by (K4) (the density term is −δρ v^b·v^f with v = iω U). */
typedef struct born_pt {
    double g[6], e[6], uf[3], ub[3], w2;
} born_pt;

static double born_iso(const born_pt *b, double rho, double lam, double mu)
{
    static ctensor C;
    iso_tensor(lam, mu, C);
    const double uu = b->uf[0] * b->ub[0] + b->uf[1] * b->ub[1] + b->uf[2] * b->ub[2];
    return rho * b->w2 * uu - bform(C, b->g, b->e);
}

static double born_ti(const born_pt *b, double rho, double vph, double vpv, double vsh, double vsv, double eta)
{
    static ctensor C;
    const double A = rho * vph * vph, Cc = rho * vpv * vpv, L = rho * vsv * vsv, N = rho * vsh * vsh;
    ti_tensor(A, Cc, eta * (A - 2 * L), L, N, C);
    const double uu = b->uf[0] * b->ub[0] + b->uf[1] * b->ub[1] + b->uf[2] * b->ub[2];
    return rho * b->w2 * uu - bform(C, b->g, b->e);
}

static double param_of(axb_kparam p, const axb_kmodel *m)
{
    switch (p) {
    case AXB_KP_VP: return m->vp;
    case AXB_KP_VS: return m->vs;
    case AXB_KP_RHO: return m->rho;
    case AXB_KP_LAMBDA: return m->rho * (m->vp * m->vp - 2 * m->vs * m->vs);
    case AXB_KP_MU: return m->rho * m->vs * m->vs;
    case AXB_KP_VPH: return m->vph;
    case AXB_KP_VPV: return m->vpv;
    case AXB_KP_VSH: return m->vsh;
    case AXB_KP_VSV: return m->vsv;
    case AXB_KP_ETA: return m->eta;
    default: return NAN;
    }
}

/* The functional with parameter p set to v, the others of its parametrisation held fixed (docs §1:
 * rho at fixed vp, vs; lambda, mu at fixed density; Love's at fixed density). */
static double born_at(const born_pt *b, const axb_kmodel *m, axb_kparam p, double v)
{
    double rho = m->rho, vp = m->vp, vs = m->vs;
    switch (p) {
    case AXB_KP_VP: vp = v; break;
    case AXB_KP_VS: vs = v; break;
    case AXB_KP_RHO: rho = v; break;
    case AXB_KP_LAMBDA: return born_iso(b, rho, v, rho * vs * vs);
    case AXB_KP_MU: return born_iso(b, rho, rho * (vp * vp - 2 * vs * vs), v);
    default: {
        double x[5] = {m->vph, m->vpv, m->vsh, m->vsv, m->eta};
        x[p - AXB_KP_VPH] = v;
        return born_ti(b, m->rho, x[0], x[1], x[2], x[3], x[4]);
    }
    }
    return born_iso(b, rho, rho * (vp * vp - 2 * vs * vs), rho * vs * vs);
}

static void base_kernels_of(const born_pt *b, double k[AXB_BK_COUNT])
{
    double complex F[6], Bb[6], Uf[3], Ub[3], P[AXB_BK_COUNT], G = 1;
    for (int i = 0; i < 6; i++) F[i] = b->e[i], Bb[i] = b->g[i];
    for (int i = 0; i < 3; i++) Uf[i] = b->uf[i], Ub[i] = b->ub[i];
    const unsigned all = (1u << AXB_BK_COUNT) - 1;
    axb_kernel_products(1, F, Uf, Bb, Ub, &b->w2, all, P);
    axb_kernel_dot(1, P, &G, all, k);
}

static void test_chain_rules(check_ctx *T, rng *g)
{
    const axb_kmodel iso = {3300, 8000, 4500, 8000, 8000, 4500, 4500, 1.0};
    const axb_kmodel ani = {3300, 8000, 4500, 8100, 7900, 4600, 4400, 0.9};
    for (int trial = 0; trial < 10; trial++) {
        born_pt b;
        for (int i = 0; i < 6; i++) b.g[i] = urange(g, -1, 1), b.e[i] = urange(g, -1, 1);
        for (int i = 0; i < 3; i++) b.uf[i] = urange(g, -1, 1), b.ub[i] = urange(g, -1, 1);
        b.w2 = urange(g, 1e7, 1e8); /* ρω²|U|² of the order of the elastic terms for vs ~ 4.5 km/s */
        double k[AXB_BK_COUNT];
        base_kernels_of(&b, k);

        /* linearity: δλ moves A, C, F; δμ moves A, C by 2δμ and L, N by δμ */
        const double sl = fabs(k[AXB_BK_A]) + fabs(k[AXB_BK_C]) + fabs(k[AXB_BK_F]);
        const double sm = 2 * fabs(k[AXB_BK_A]) + 2 * fabs(k[AXB_BK_C]) + fabs(k[AXB_BK_L]) + fabs(k[AXB_BK_N]);
        CHECK_CLOSE(T, k[AXB_BK_LAMBDA], k[AXB_BK_A] + k[AXB_BK_C] + k[AXB_BK_F], 1e-12 * sl);
        CHECK_CLOSE(T, k[AXB_BK_MU], 2 * k[AXB_BK_A] + 2 * k[AXB_BK_C] + k[AXB_BK_L] + k[AXB_BK_N], 1e-12 * sm);

        /* isotropic limit (K25) */
        const double vph = axb_kparam_value(AXB_KP_VPH, k, &iso, 0), vpv = axb_kparam_value(AXB_KP_VPV, k, &iso, 0);
        const double vsh = axb_kparam_value(AXB_KP_VSH, k, &iso, 0), vsv = axb_kparam_value(AXB_KP_VSV, k, &iso, 0);
        CHECK_CLOSE(T, vph + vpv, axb_kparam_value(AXB_KP_VP, k, &iso, 0), 1e-12 * (fabs(vph) + fabs(vpv)));
        CHECK_CLOSE(T, vsh + vsv, axb_kparam_value(AXB_KP_VS, k, &iso, 0), 1e-12 * (fabs(vsh) + fabs(vsv)));

        for (int mi = 0; mi < 2; mi++) {
            const axb_kmodel *m = mi ? &ani : &iso;
            /* density at fixed vp, vs (K21), relative */
            const double krho =
                (m->vp * m->vp - 2 * m->vs * m->vs) * k[AXB_BK_LAMBDA] + m->vs * m->vs * k[AXB_BK_MU] + k[AXB_BK_RHO];
            CHECK_CLOSE(T, axb_kparam_value(AXB_KP_RHO, k, m, 1), krho * m->rho, 1e-13 * fabs(krho * m->rho));
            for (int p = 0; p < AXB_KP_COUNT; p++) {
                const double abs_k = axb_kparam_value((axb_kparam)p, k, m, 0);
                const double rel_k = axb_kparam_value((axb_kparam)p, k, m, 1), v = param_of((axb_kparam)p, m);
                CHECK_CLOSE(T, rel_k, abs_k * v, 1e-14 * fabs(abs_k * v)); /* (K26) */
                /* central difference, relative step 1e-6: the functional is at most quadratic in
                 * each parameter, so the difference is exact up to rounding (~1e-16/1e-6) */
                const double h = 1e-6 * v;
                const double fd =
                    (born_at(&b, m, (axb_kparam)p, v + h) - born_at(&b, m, (axb_kparam)p, v - h)) / (2 * h);
                CHECK_MSG(T, fabs(fd - abs_k) <= 1e-6 * fabs(abs_k), "model %d param %d: chain rule %.12g vs fd %.12g",
                          mi, p, abs_k, fd);
                /* the parameter reads only the base kernels it declares */
                const unsigned need = axb_kparam_base_kernels((axb_kparam)p);
                double kn[AXB_BK_COUNT];
                for (int x = 0; x < AXB_BK_COUNT; x++) kn[x] = need & 1u << x ? k[x] : NAN;
                CHECK_MSG(T, axb_kparam_value((axb_kparam)p, kn, m, 1) == rel_k, "param %d reads an undeclared kernel",
                          p);
            }
        }
    }
    /* AxiSEM's stored (vp, vs, xi, phi, eta) back to Love's velocities */
    axb_kmodel m;
    const double xi = pow(4600.0 / 4400.0, 2), phi = pow(7900.0 / 8100.0, 2);
    axb_kmodel_from_axisem(8100, 4600, 3300, xi, phi, 0.9, &m);
    CHECK_CLOSE(T, m.vph, 8100, 1e-9);
    CHECK_CLOSE(T, m.vpv, 7900, 1e-9);
    CHECK_CLOSE(T, m.vsh, 4600, 1e-9);
    CHECK_CLOSE(T, m.vsv, 4400, 1e-9);
    CHECK_CLOSE(T, m.eta, 0.9, 0);
    CHECK_CLOSE(T, m.rho, 3300, 0);
}

/* ---------------------------------------------------------------- 5. refusals */

static void test_refusals(check_ctx *T, rng *g)
{
    static double u[NT], zero[NT], seis[NT], vel[NT];
    static double complex Ts[NF], Tdc[NF], G[NF];
    smooth_trace(g, u);
    for (int k = 0; k < NF; k++) Ts[k] = exp(-pow(k / 40.0, 2)), Tdc[k] = k == 0;
    for (int mf = 0; mf < 2; mf++) {
        axb_error err = AXB_ERROR_INIT;
        axb_status st = axb_kernel_weights(NT, DT, NFFT, zero, Ts, Ts, 10, 60, (axb_misfit)mf, seis, vel, G, &err);
        CHECK(T, st == AXB_ERR_RANGE && err.code == AXB_ERR_RANGE);
    }
    /* a DC-only filter: the seismogram is a nonzero constant, its derivative exactly zero, so CC
     * (normalised by ∫u̇²) is refused and AM is not */
    axb_error err = AXB_ERROR_INIT;
    CHECK(T, axb_kernel_weights(NT, DT, NFFT, u, Tdc, Tdc, 10, 60, AXB_MISFIT_CC, seis, vel, G, &err) == AXB_ERR_RANGE);
    err = (axb_error)AXB_ERROR_INIT;
    CHECK(T, axb_kernel_weights(NT, DT, NFFT, u, Tdc, Tdc, 10, 60, AXB_MISFIT_AM, seis, vel, G, &err) == AXB_OK);
    CHECK(T, fabs(seis[30]) > 0 && vel[30] == 0);

    /* A window the signal never reaches: a pulse on samples 70–89, low-passed (impulse response
     * ~e^{−(0.49 n)²}, nothing left 40 samples away), window 10–30. The FFT leaves rounding noise
     * (~1e-17) there, not zeros; the window must still count as empty (before the fix it was
     * accepted, with weights ~6e12 for a unit pulse). A genuine signal 1e-8 of the peak is kept. */
    static double pulse[NT];
    for (int n = 70; n < 90; n++) pulse[n] = exp(-pow((n - 80) / 4.0, 2));
    for (int mf = 0; mf < 2; mf++) {
        err = (axb_error)AXB_ERROR_INIT;
        axb_status st = axb_kernel_weights(NT, DT, NFFT, pulse, Ts, Ts, 10, 30, (axb_misfit)mf, seis, vel, G, &err);
        CHECK_MSG(T, st == AXB_ERR_RANGE, "misfit %d: noise-only window accepted (%s)", mf, err.msg);
    }
    pulse[20] = 1e-8;
    for (int mf = 0; mf < 2; mf++) {
        err = (axb_error)AXB_ERROR_INIT;
        axb_status st = axb_kernel_weights(NT, DT, NFFT, pulse, Ts, Ts, 10, 30, (axb_misfit)mf, seis, vel, G, &err);
        CHECK_MSG(T, st == AXB_OK, "misfit %d: a 1e-8 signal refused (%s)", mf, err.msg);
    }
}

int main(void)
{
    check_ctx T = {0, 0, 0};
    rng g = {0x9E3779B97F4A7C15ULL};
    test_voigt_rotation(&T, &g);
    test_time_domain(&T, &g);
    test_rotation_invariance(&T, &g);
    test_chain_rules(&T, &g);
    test_refusals(&T, &g);
    return check_summary(&T);
}
