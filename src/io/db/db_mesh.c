/* The /Mesh group (reference notes §1.4). Indices are validated here once, so the engines can use
 * them without bounds checks in their hot loops. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/db/db_internal.h"
#include "io/db/db_names.h"
#include "io/hdf5/h5util.h"

void axb_mesh_free(axb_mesh *m)
{
    free(m->sem);
    free(m->fem);
    free(m->eltype);
    free(m->axis);
    free(m->mp_s);
    free(m->mp_z);
    free(m->s);
    free(m->z);
    free(m->mu);
    float **model[AXB_MESH_NMODEL];
    axb_mesh_model_slots(m, model);
    for (int k = 0; k < AXB_MESH_NMODEL; k++) free(*model[k]);
    memset(m, 0, sizeof *m);
}

void axb_mesh_model_slots(axb_mesh *m, float **slots[AXB_MESH_NMODEL])
{
    float **const all[AXB_MESH_NMODEL] = {&m->vp, &m->vs, &m->rho, &m->xi, &m->phi, &m->eta};
    memcpy(slots, all, sizeof all);
}

static void *alloc_n(int64_t n, size_t size)
{
    return n > 0 ? malloc((size_t)n * size) : NULL;
}

static axb_status check_index(const int32_t *idx, int64_t n, int64_t npoints, const char *var, int per_elem,
                              axb_error *err)
{
    for (int64_t k = 0; k < n; k++)
        if (idx[k] < 0 || idx[k] >= npoints)
            return axb_error_set(err, AXB_ERR_FORMAT,
                                 "variable 'Mesh/%s': element %lld refers to GLL point %d, outside "
                                 "0..%lld",
                                 var, (long long)(k / per_elem), idx[k], (long long)npoints - 1);
    return AXB_OK;
}

static axb_status check_finite_f(const float *x, int64_t n, const char *var, axb_error *err)
{
    for (int64_t k = 0; k < n; k++)
        if (!isfinite(x[k]))
            return axb_error_set(err, AXB_ERR_FORMAT, "variable 'Mesh/%s': value %lld is not finite", var,
                                 (long long)k);
    return AXB_OK;
}

/* The model variables in axb_mesh_model_slots order; the first three are the isotropic model. */
static const char *const MODEL_VARS[AXB_MESH_NMODEL] = {AXB_NC_MESH_VP, AXB_NC_MESH_VS,  AXB_NC_MESH_RHO,
                                                        AXB_NC_MESH_XI, AXB_NC_MESH_PHI, AXB_NC_MESH_ETA};

/* A bad model value names the point by index and position, so it can be found in the mesher's
 * output. vs may be 0 (fluid); vp and rho must be positive; the anisotropy ratios positive. */
static axb_status check_model(const axb_mesh *m, int k, const float *x, axb_error *err)
{
    for (int64_t p = 0; p < m->npoints; p++) {
        const bool ok = isfinite(x[p]) && (k == 1 ? x[p] >= 0 : k == 5 || x[p] > 0);
        if (!ok)
            return axb_error_set(err, AXB_ERR_FORMAT,
                                 "variable 'Mesh/%s': %g at point %lld (s, z) = (%.3f, %.3f) km must be %s",
                                 MODEL_VARS[k], (double)x[p], (long long)p, m->s[p] / 1e3, m->z[p] / 1e3,
                                 k == 1       ? "finite and >= 0"
                                     : k == 5 ? "finite"
                                              : "finite and > 0");
    }
    return AXB_OK;
}

static bool all_one(const float *x, int64_t n)
{
    for (int64_t p = 0; p < n; p++)
        if (x[p] != 1.0f) return false;
    return true;
}

/* The background model: vp, vs, rho stay NULL when absent (files before the model was stored);
 * xi, phi, eta also when every value is exactly 1, so users tell an isotropic model by a NULL. */
static axb_status read_model(hid_t fid, axb_mesh *m, axb_error *err)
{
    float **slots[AXB_MESH_NMODEL];
    axb_mesh_model_slots(m, slots);
    hsize_t dp[1] = {(hsize_t)m->npoints};
    for (int k = 0; k < AXB_MESH_NMODEL; k++) {
        char path[64];
        snprintf(path, sizeof path, "/" AXB_NC_GRP_MESH "/%s", MODEL_VARS[k]);
        if (!axb_h5_exists(fid, path)) continue;
        float *x = alloc_n(m->npoints, sizeof(float));
        if (!x) return axb_error_set(err, AXB_ERR_NOMEM, "model of %lld points", (long long)m->npoints);
        *slots[k] = x; /* owned by the mesh from here on: axb_mesh_free releases it on failure */
        AXB_TRY(axb_h5_read(fid, path, H5T_NATIVE_FLOAT, 1, dp, x, err));
        AXB_TRY(check_model(m, k, x, err));
        if (k >= 3 && all_one(x, m->npoints)) {
            free(x);
            *slots[k] = NULL;
        }
    }
    return AXB_OK;
}

axb_status axb_mesh_read(hid_t fid, const axb_db_info *info, bool with_elements, axb_mesh *m, axb_error *err)
{
    memset(m, 0, sizeof *m);
    const int np1 = info->npol + 1;
    const int64_t ne = info->nelem, npt = info->npoints;
    m->npol = info->npol;
    m->npoints = npt;
    m->nelem = with_elements ? ne : 0;
    m->has_elements = with_elements;
    axb_status st = AXB_OK;

    hsize_t dp[1] = {(hsize_t)npt};
    m->s = alloc_n(npt, sizeof(float));
    m->z = alloc_n(npt, sizeof(float));
    m->mu = alloc_n(npt, sizeof(float));
    if (!m->s || !m->z || !m->mu) {
        st = axb_error_set(err, AXB_ERR_NOMEM, "mesh of %lld points", (long long)npt);
        goto fail;
    }
    AXB_TRY_GOTO(st, axb_h5_read(fid, "/" AXB_NC_GRP_MESH "/" AXB_NC_MESH_S, H5T_NATIVE_FLOAT, 1, dp, m->s, err), fail);
    AXB_TRY_GOTO(st, axb_h5_read(fid, "/" AXB_NC_GRP_MESH "/" AXB_NC_MESH_Z, H5T_NATIVE_FLOAT, 1, dp, m->z, err), fail);
    AXB_TRY_GOTO(st, axb_h5_read(fid, "/" AXB_NC_GRP_MESH "/" AXB_NC_MESH_MU, H5T_NATIVE_FLOAT, 1, dp, m->mu, err),
                 fail);
    AXB_TRY_GOTO(st, check_finite_f(m->s, npt, AXB_NC_MESH_S, err), fail);
    AXB_TRY_GOTO(st, check_finite_f(m->z, npt, AXB_NC_MESH_Z, err), fail);
    AXB_TRY_GOTO(st, read_model(fid, m, err), fail);

    if (!with_elements) return AXB_OK;
    if (ne < 1) {
        st = axb_error_set(err, AXB_ERR_FORMAT, "attribute 'nelem_kwf_global': missing or 0 in a displ_only database");
        goto fail;
    }
    m->sem = alloc_n(ne * np1 * np1, sizeof(int32_t));
    m->fem = alloc_n(ne * 4, sizeof(int32_t));
    m->eltype = alloc_n(ne, sizeof(int32_t));
    m->axis = alloc_n(ne, sizeof(int32_t));
    m->mp_s = alloc_n(ne, sizeof(double));
    m->mp_z = alloc_n(ne, sizeof(double));
    if (!m->sem || !m->fem || !m->eltype || !m->axis || !m->mp_s || !m->mp_z) {
        st = axb_error_set(err, AXB_ERR_NOMEM, "mesh of %lld elements", (long long)ne);
        goto fail;
    }
    hsize_t de[1] = {(hsize_t)ne}, df[2] = {(hsize_t)ne, 4}, ds[3] = {(hsize_t)ne, (hsize_t)np1, (hsize_t)np1};
    AXB_TRY_GOTO(st, axb_h5_read(fid, "/" AXB_NC_GRP_MESH "/" AXB_NC_MESH_SEM, H5T_NATIVE_INT32, 3, ds, m->sem, err),
                 fail);
    AXB_TRY_GOTO(st, axb_h5_read(fid, "/" AXB_NC_GRP_MESH "/" AXB_NC_MESH_FEM, H5T_NATIVE_INT32, 2, df, m->fem, err),
                 fail);
    AXB_TRY_GOTO(st,
                 axb_h5_read(fid, "/" AXB_NC_GRP_MESH "/" AXB_NC_MESH_ELTYPE, H5T_NATIVE_INT32, 1, de, m->eltype, err),
                 fail);
    AXB_TRY_GOTO(st, axb_h5_read(fid, "/" AXB_NC_GRP_MESH "/" AXB_NC_MESH_AXIS, H5T_NATIVE_INT32, 1, de, m->axis, err),
                 fail);
    /* Instaseis builds its KD-tree on float64 copies of the stored mid points (float32 in AxiSEM
     * v7 files, float64 in newer ones): reading as double covers both exactly. */
    AXB_TRY_GOTO(st, axb_h5_read(fid, "/" AXB_NC_GRP_MESH "/" AXB_NC_MESH_MP_S, H5T_NATIVE_DOUBLE, 1, de, m->mp_s, err),
                 fail);
    AXB_TRY_GOTO(st, axb_h5_read(fid, "/" AXB_NC_GRP_MESH "/" AXB_NC_MESH_MP_Z, H5T_NATIVE_DOUBLE, 1, de, m->mp_z, err),
                 fail);
    AXB_TRY_GOTO(st, check_index(m->sem, ne * np1 * np1, npt, AXB_NC_MESH_SEM, np1 * np1, err), fail);
    AXB_TRY_GOTO(st, check_index(m->fem, ne * 4, npt, AXB_NC_MESH_FEM, 4, err), fail);
    for (int64_t e = 0; e < ne; e++) {
        if (m->eltype[e] < 0 || m->eltype[e] > 3) {
            st = axb_error_set(err, AXB_ERR_FORMAT, "variable 'Mesh/eltype': element %lld has unknown type %d",
                               (long long)e, m->eltype[e]);
            goto fail;
        }
        if (m->axis[e] != 0 && m->axis[e] != 1) {
            st = axb_error_set(err, AXB_ERR_FORMAT, "variable 'Mesh/axis': element %lld has %d", (long long)e,
                               m->axis[e]);
            goto fail;
        }
    }
    hsize_t d1[1] = {(hsize_t)np1}, d2[2] = {(hsize_t)np1, (hsize_t)np1};
    AXB_TRY_GOTO(st, axb_h5_read(fid, "/" AXB_NC_GRP_MESH "/" AXB_NC_MESH_GLL, H5T_NATIVE_DOUBLE, 1, d1, m->gll, err),
                 fail);
    AXB_TRY_GOTO(st, axb_h5_read(fid, "/" AXB_NC_GRP_MESH "/" AXB_NC_MESH_GLJ, H5T_NATIVE_DOUBLE, 1, d1, m->glj, err),
                 fail);
    /* The derivative matrices are used as stored (float32-rounded values): recomputing them would
     * move seismograms away from Instaseis' by ~1e-7. */
    AXB_TRY_GOTO(st, axb_h5_read(fid, "/" AXB_NC_GRP_MESH "/" AXB_NC_MESH_G1, H5T_NATIVE_DOUBLE, 2, d2, m->G1, err),
                 fail);
    AXB_TRY_GOTO(st, axb_h5_read(fid, "/" AXB_NC_GRP_MESH "/" AXB_NC_MESH_G2, H5T_NATIVE_DOUBLE, 2, d2, m->G2, err),
                 fail);
    return AXB_OK;
fail:
    axb_mesh_free(m);
    return st;
}
