/* Pointwise numerics of Born sensitivity kernels (docs/kernels.md): frame rotations of strain
 * tensors, the spectral products of forward and backward fields that make the waveform kernels,
 * their reduction to misfit kernels by one dot product with a precomputed weight spectrum, and the
 * chain rule from Lamé/Love moduli to the requested parameters. No MPI, no I/O.
 *
 * Voigt order everywhere: [11, 22, 33, 23, 13, 12] with tensor strain (no factor 2 on the shear
 * components). In the local frame at a point the axes are (θ̂ south, φ̂ east, r̂ up), so index 2
 * is radial — the symmetry axis of radial anisotropy. */
#ifndef AXB_NUMERICS_KERNEL_MATH_H
#define AXB_NUMERICS_KERNEL_MATH_H

#include <complex.h>
#include <stdint.h>

#include "axibulk/kernel_job.h"
#include "axibulk/status.h"

/* Waveform (base) kernels: the isotropic moduli and density, then Love's five moduli. */
enum {
    AXB_BK_LAMBDA = 0, /* −θ^b ∗ θ^f */
    AXB_BK_MU,         /* −2 ε^b :∗ ε^f */
    AXB_BK_RHO,        /* −v^b ∗ v^f */
    AXB_BK_A,
    AXB_BK_C,
    AXB_BK_F,
    AXB_BK_L,
    AXB_BK_N,
    AXB_BK_COUNT
};

/* Which base kernels a parameter needs (bit per AXB_BK_*). */
unsigned axb_kparam_base_kernels(axb_kparam p);

/* B with B·v = Voigt of Q E Qᵀ for every symmetric E with Voigt v: the change of basis of a
 * strain tensor whose old basis vectors, written in the new basis, are the columns of Q
 * (Q[a][i] = new_a · old_i). */
void axb_voigt_rotation(const double Q[3][3], double B[6][6]);

/* Background model at a point (SI units). Isotropic media have vph = vpv = vp, vsh = vsv = vs,
 * eta = 1. */
typedef struct axb_kmodel {
    double rho, vp, vs;
    double vph, vpv, vsh, vsv, eta;
} axb_kmodel;

/* The model from AxiSEM's stored values: vph = vp, vsh = vs, vpv = vph·√phi, vsv = vsh/√xi
 * (xi = (vsh/vsv)², phi = (vpv/vph)²), as AxiSEM and MC Kernel read them. */
void axb_kmodel_from_axisem(double vp, double vs, double rho, double xi, double phi, double eta, axb_kmodel *m);

/* Spectral products of one point: forward spectra F[6][nf] (strain) and Uf[3][nf] (displacement,
 * read only for density), backward B[6][nf], Ub[3][nf]. For each base kernel X in @p want, P[X][nf]
 * receives the spectrum of the waveform kernel (the sign and factors of the table above; density:
 * (2πf)² U^f·U^b from @p omega2[k] = (2πf_k)²), without the STF, filter and window factors. */
void axb_kernel_products(int64_t nf, const double complex *F, const double complex *Uf, const double complex *B,
                         const double complex *Ub, const double *omega2, unsigned want, double complex *P);

/* k[X] = Σ_k Re(G[k] · P[X][k]) for each X in @p want: a waveform kernel reduced to a misfit kernel
 * by the weight spectrum G of one measurement (filter, STF, window and seismogram). */
void axb_kernel_dot(int64_t nf, const double complex *P, const double complex *G, unsigned want,
                    double k[AXB_BK_COUNT]);

/* The parameter kernel of @p p from the misfit-weighted base kernels @p k at a point with model
 * @p m; relative (δp/p) or absolute. */
double axb_kparam_value(axb_kparam p, const double k[AXB_BK_COUNT], const axb_kmodel *m, int relative);

/* One measurement's seismogram and weight spectrum (docs/kernels.md §5). From the raw seismogram
 * @p u [nt] (database sampling, the databases' STF), the transfer functions of the seismogram
 * @p Ts [nf] and of the kernel @p Tk [nf] on the grid f_k = k/(nfft·dt) (nfft even, >= 2·nt, nf =
 * nfft/2 + 1), and the window samples [n0, n1]: writes the filtered seismogram @p seis [nt] and its
 * derivative @p vel [nt] and G [nf] such that the misfit kernel is Σ_k Re(G_k · P_k) for a product
 * spectrum P of raw forward and backward traces (axb_kernel_products). AXB_ERR_RANGE if the
 * seismogram (CC: its derivative) is zero in the window. */
axb_status axb_kernel_weights(int64_t nt, double dt, int64_t nfft, const double *u, const double complex *Ts,
                              const double complex *Tk, int64_t n0, int64_t n1, axb_misfit misfit, double *seis,
                              double *vel, double complex *G, axb_error *err);

#endif
