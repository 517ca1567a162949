/* The /Mesh group (reference notes §1.4). Indices are validated here once, so the engines can use
 * them without bounds checks in their hot loops. */
#include <math.h>
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
    memset(m, 0, sizeof *m);
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
