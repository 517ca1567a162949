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

typedef enum axb_excitation {
    AXB_EXC_MONOPOLE = 0,
    AXB_EXC_DIPOLE,
    AXB_EXC_QUADPOLE
} axb_excitation;

/** The mesh, as stored. Element arrays are empty for strain_only databases (has_elements false).
 *  sem[(e*(npol+1) + j)*(npol+1) + i] is the GLL point at xi-index i, eta-index j of element e. */
typedef struct axb_mesh {
    int npol;
    int64_t nelem, npoints;
    bool has_elements;
    int32_t *sem;                  /**< [nelem][npol+1][npol+1] point indices (0-based) */
    int32_t *fem;                  /**< [nelem][4] corner point indices, counter-clockwise */
    int32_t *eltype;               /**< [nelem] 0 spheroidal, 1 linear, 2 semino, 3 semiso */
    int32_t *axis;                 /**< [nelem] 1 if the element touches the symmetry axis */
    double *mp_s, *mp_z;           /**< [nelem] element mid points */
    float *s, *z, *mu;             /**< [npoints] coordinates and shear modulus of stored points */
    double gll[AXB_NPOL_MAX + 1];  /**< GLL points */
    double glj[AXB_NPOL_MAX + 1];  /**< GLJ(0,1) points used in xi on axis elements */
    double G1[(AXB_NPOL_MAX + 1) * (AXB_NPOL_MAX + 1)]; /**< GLJ derivative matrix, as stored */
    double G2[(AXB_NPOL_MAX + 1) * (AXB_NPOL_MAX + 1)]; /**< GLL derivative matrix, as stored */
} axb_mesh;

#ifdef __cplusplus
}
#endif
#endif
