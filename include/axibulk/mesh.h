/**
 * @file mesh.h
 * @brief The AxiSEM mesh as stored in a database, without any I/O or MPI, so the numerics layer
 *        can use it (db.h fills it; sem.h computes on it).
 */
#ifndef AXIBULK_MESH_H
#define AXIBULK_MESH_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Largest polynomial order supported (AxiSEM uses 4). */
#define AXB_NPOL_MAX 8

/** The AxiSEM sub-simulations. The order is the variable order of the merged layout. */
typedef enum axb_sim {
    AXB_SIM_PX = 0,        /**< horizontal force at the pole (dipole) */
    AXB_SIM_PZ,            /**< vertical force at the pole (monopole) */
    AXB_SIM_MZZ,           /**< forward: m_rr (monopole) */
    AXB_SIM_MXX_P_MYY,     /**< forward: m_tt + m_pp (monopole) */
    AXB_SIM_MXZ_MYZ,       /**< forward: m_rt, m_rp (dipole) */
    AXB_SIM_MXY_MXX_M_MYY, /**< forward: m_tt - m_pp, m_tp (quadpole) */
    AXB_NSIM
} axb_sim;

typedef enum axb_excitation { AXB_EXC_MONOPOLE = 0, AXB_EXC_DIPOLE, AXB_EXC_QUADPOLE } axb_excitation;

/** The mesh, as stored. Element arrays are empty for strain_only databases (has_elements false).
 *  sem[(e*(npol+1) + j)*(npol+1) + i] is the GLL point at xi-index i, eta-index j of element e. */
typedef struct axb_mesh {
    int npol;
    int64_t nelem, npoints;
    bool has_elements;
    int32_t *sem;        /**< [nelem][npol+1][npol+1] point indices (0-based) */
    int32_t *fem;        /**< [nelem][4] corner point indices, counter-clockwise */
    int32_t *eltype;     /**< [nelem] 0 spheroidal, 1 linear, 2 semino, 3 semiso */
    int32_t *axis;       /**< [nelem] 1 if the element touches the symmetry axis */
    double *mp_s, *mp_z; /**< [nelem] element mid points */
    float *s, *z, *mu;   /**< [npoints] coordinates and shear modulus of stored points */
    /** [npoints] the background model at the stored points (mesh_vp, mesh_vs, mesh_rho, mesh_xi,
     *  mesh_phi, mesh_eta: SI units; xi = (vsh/vsv)², phi = (vpv/vph)², eta = F/(A − 2L)).
     *  vp, vs, rho are NULL only if the file lacks them; xi, phi, eta are NULL when absent or
     *  everywhere 1 (isotropic). */
    float *vp, *vs, *rho, *xi, *phi, *eta;
    double gll[AXB_NPOL_MAX + 1];                       /**< GLL points */
    double glj[AXB_NPOL_MAX + 1];                       /**< GLJ(0,1) points used in xi on axis elements */
    double G1[(AXB_NPOL_MAX + 1) * (AXB_NPOL_MAX + 1)]; /**< GLJ derivative matrix, as stored */
    double G2[(AXB_NPOL_MAX + 1) * (AXB_NPOL_MAX + 1)]; /**< GLL derivative matrix, as stored */
} axb_mesh;

#ifdef __cplusplus
}
#endif
#endif
