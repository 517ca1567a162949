/* The merged file's structure and mesh, after an original-layout template (merged_write.h). */
#include <netcdf.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/status.h"
#include "io/db/db_names.h"
#include "io/db/merged_internal.h"
#include "io/hdf5/nc_check.h"

/* Global attributes of the template, then the creator. */
static axb_status copy_attributes(int src, int dst, const char *tpl, const char *path, axb_error *err)
{
    int natts;
    AXB_NC_TRY(err, nc_inq_natts(src, &natts), "%s: attributes", tpl);
    for (int a = 0; a < natts; a++) {
        char name[NC_MAX_NAME + 1];
        AXB_NC_TRY(err, nc_inq_attname(src, NC_GLOBAL, a, name), "%s: attribute name", tpl);
        AXB_NC_TRY(err, nc_copy_att(src, NC_GLOBAL, name, dst, NC_GLOBAL), "%s: attribute '%s'", path, name);
    }
    const char *creator = "axibulk " AXB_VERSION_STRING " repack";
    AXB_NC_TRY(err, nc_put_att_text(dst, NC_GLOBAL, "repacked by", strlen(creator), creator), "%s: attribute", path);
    return AXB_OK;
}

static axb_status define_data(int dst, const axb_merged_def *d, merged_impl *m, const char *path, axb_error *err)
{
    int d_pts, d_snap, d_ipol, d_jpol, d_nvars, d_elem;
    AXB_NC_TRY(err, nc_def_dim(dst, AXB_NC_DIM_POINTS, (size_t)d->npoints, &d_pts), "%s: dimension", path);
    AXB_NC_TRY(err, nc_def_dim(dst, AXB_NC_DIM_SNAPSHOTS, (size_t)d->ndumps, &d_snap), "%s: dimension", path);
    AXB_NC_TRY(err, nc_def_dim(dst, AXB_NC_DIM_IPOL, (size_t)d->npol + 1, &d_ipol), "%s: dimension", path);
    AXB_NC_TRY(err, nc_def_dim(dst, AXB_NC_DIM_JPOL, (size_t)d->npol + 1, &d_jpol), "%s: dimension", path);
    AXB_NC_TRY(err, nc_def_dim(dst, AXB_NC_DIM_NVARS, (size_t)d->nvars, &d_nvars), "%s: dimension", path);
    AXB_NC_TRY(err, nc_def_dim(dst, AXB_NC_DIM_ELEMENTS, (size_t)d->nelem, &d_elem), "%s: dimension", path);
    AXB_NC_TRY(err, nc_def_var(dst, AXB_NC_VAR_STF, NC_FLOAT, 1, &d_snap, &m->stf), "%s: " AXB_NC_VAR_STF, path);
    AXB_NC_TRY(err, nc_def_var(dst, AXB_NC_VAR_STF_D, NC_FLOAT, 1, &d_snap, &m->stf_d), "%s: " AXB_NC_VAR_STF_D, path);
    /* Instaseis' axis order (elements, nvars, jpol, ipol, snapshots); jpol is the ξ index */
    const int dims[5] = {d_elem, d_nvars, d_jpol, d_ipol, d_snap};
    AXB_NC_TRY(err, nc_def_var(dst, AXB_NC_VAR_MERGED, NC_FLOAT, 5, dims, &m->var), "%s: " AXB_NC_VAR_MERGED, path);
    /* every element is written: filling first would write the whole file twice (parallel HDF5
     * allocates the dataset when it is created) */
    AXB_NC_TRY(err, nc_def_var_fill(dst, m->var, NC_NOFILL, NULL), "%s: " AXB_NC_VAR_MERGED " fill", path);
    /* one CRC-32 per element, written at the end (merged_checksums.c), verified by every read */
    int crc;
    AXB_NC_TRY(err, nc_def_var(dst, AXB_NC_VAR_MERGED_CRC, NC_UINT, 1, &d_elem, &crc), "%s: " AXB_NC_VAR_MERGED_CRC,
               path);
    AXB_NC_TRY(err, nc_def_var_chunking(dst, crc, NC_CONTIGUOUS, NULL), "%s: " AXB_NC_VAR_MERGED_CRC " storage", path);
    AXB_NC_TRY(err,
               nc_put_att_text(dst, crc, AXB_NC_ATT_CRC_ALGORITHM, strlen(AXB_NC_CRC_ALGORITHM), AXB_NC_CRC_ALGORITHM),
               "%s: " AXB_NC_VAR_MERGED_CRC " attribute", path);
    if (d->deflate < 0) {
        AXB_NC_TRY(err, nc_def_var_chunking(dst, m->var, NC_CONTIGUOUS, NULL), "%s: " AXB_NC_VAR_MERGED " storage",
                   path);
        return AXB_OK;
    }
    const size_t np1 = (size_t)d->npol + 1;
    const size_t chunk[5] = {1, (size_t)d->nvars, np1, np1, (size_t)d->ndumps};
    AXB_NC_TRY(err, nc_def_var_chunking(dst, m->var, NC_CHUNKED, chunk), "%s: " AXB_NC_VAR_MERGED " chunks", path);
    AXB_NC_TRY(err, nc_def_var_deflate(dst, m->var, 1, 1, d->deflate), "%s: " AXB_NC_VAR_MERGED " deflate", path);
    return AXB_OK;
}

/* One /Mesh variable of the template defined alike in @p dst_mesh; its dimensions are the
 * group's own or the root's (gllpoints_all). */
static axb_status define_mesh_var(int src_mesh, int id, int dst, int dst_mesh, const char *path, axb_error *err)
{
    char name[NC_MAX_NAME + 1];
    nc_type type;
    int nd, vd[NC_MAX_VAR_DIMS], od[NC_MAX_VAR_DIMS], out;
    AXB_NC_TRY(err, nc_inq_var(src_mesh, id, name, &type, &nd, vd, NULL), "%s: " AXB_NC_GRP_MESH " variable", path);
    for (int k = 0; k < nd; k++) {
        char dn[NC_MAX_NAME + 1];
        AXB_NC_TRY(err, nc_inq_dimname(src_mesh, vd[k], dn), "%s: %s", path, name);
        if (nc_inq_dimid(dst_mesh, dn, &od[k]) != NC_NOERR)
            AXB_NC_TRY(err, nc_inq_dimid(dst, dn, &od[k]), "%s: %s: dimension %s", path, name, dn);
    }
    AXB_NC_TRY(err, nc_def_var(dst_mesh, name, type, nd, od, &out), "%s: %s", path, name);
    return AXB_OK;
}

static axb_status define_mesh(int src, int dst, const char *tpl, const char *path, axb_error *err)
{
    int src_mesh, dst_mesh;
    AXB_NC_TRY(err, nc_inq_grp_ncid(src, AXB_NC_GRP_MESH, &src_mesh), "%s: group " AXB_NC_GRP_MESH, tpl);
    AXB_NC_TRY(err, nc_def_grp(dst, AXB_NC_GRP_MESH, &dst_mesh), "%s: group " AXB_NC_GRP_MESH, path);
    int ndims, ndimids[NC_MAX_DIMS];
    AXB_NC_TRY(err, nc_inq_dimids(src_mesh, &ndims, ndimids, 0), "%s: " AXB_NC_GRP_MESH " dimensions", tpl);
    for (int k = 0; k < ndims; k++) {
        char name[NC_MAX_NAME + 1];
        size_t len;
        int id;
        AXB_NC_TRY(err, nc_inq_dim(src_mesh, ndimids[k], name, &len), "%s: " AXB_NC_GRP_MESH " dimension", tpl);
        AXB_NC_TRY(err, nc_def_dim(dst_mesh, name, len, &id), "%s: " AXB_NC_GRP_MESH " dimension %s", path, name);
    }
    int nvars;
    AXB_NC_TRY(err, nc_inq_varids(src_mesh, &nvars, NULL), "%s: " AXB_NC_GRP_MESH " variables", tpl);
    int *ids = malloc((size_t)(nvars ? nvars : 1) * sizeof *ids);
    if (!ids) return axb_error_set(err, AXB_ERR_NOMEM, "%s: " AXB_NC_GRP_MESH " variables", path);
    int rc = nc_inq_varids(src_mesh, &nvars, ids);
    axb_status st = rc == NC_NOERR ? AXB_OK : axb_nc_error(err, rc, "%s: " AXB_NC_GRP_MESH " variables", tpl);
    for (int v = 0; v < nvars && !st; v++) st = define_mesh_var(src_mesh, ids[v], dst, dst_mesh, path, err);
    free(ids);
    return st;
}

axb_status axb_merged_define(int src, int dst, const axb_merged_def *d, merged_impl *m, const char *path,
                             axb_error *err)
{
    AXB_TRY(copy_attributes(src, dst, d->template_path, path, err));
    AXB_TRY(define_data(dst, d, m, path, err));
    return define_mesh(src, dst, d->template_path, path, err);
}

/* One /Mesh variable: read whole, rows permuted when its first dimension is the elements. */
static axb_status copy_mesh_var(int src_mesh, int id, int dst_mesh, const axb_merged_def *d, const char *tpl,
                                const char *path, axb_error *err)
{
    char name[NC_MAX_NAME + 1], d0[NC_MAX_NAME + 1] = "";
    nc_type type;
    int nd, vd[NC_MAX_VAR_DIMS], out;
    size_t tsize, total = 1, len0 = 0;
    AXB_NC_TRY(err, nc_inq_var(src_mesh, id, name, &type, &nd, vd, NULL), "%s: " AXB_NC_GRP_MESH " variable", tpl);
    AXB_NC_TRY(err, nc_inq_type(src_mesh, type, NULL, &tsize), "%s: %s", tpl, name);
    for (int k = 0; k < nd; k++) {
        size_t len;
        AXB_NC_TRY(err, nc_inq_dimlen(src_mesh, vd[k], &len), "%s: %s", tpl, name);
        if (k == 0) {
            len0 = len;
            AXB_NC_TRY(err, nc_inq_dimname(src_mesh, vd[0], d0), "%s: %s", tpl, name);
        }
        total *= len;
    }
    char *a = malloc(total * tsize + 1), *b = malloc(total * tsize + 1);
    if (!a || !b) {
        free(a);
        free(b);
        return axb_error_set(err, AXB_ERR_NOMEM, "%s: " AXB_NC_GRP_MESH "/%s", path, name);
    }
    int rc = nc_get_var(src_mesh, id, a);
    axb_status st = rc == NC_NOERR ? AXB_OK : axb_nc_error(err, rc, "%s: " AXB_NC_GRP_MESH "/%s", tpl, name);
    const char *data = a;
    if (!st && nd > 0 && !strcmp(d0, AXB_NC_DIM_ELEMENTS) && (int64_t)len0 == d->nelem) {
        const size_t row = total / len0 * tsize;
        for (int64_t e = 0; e < d->nelem; e++) memcpy(b + (size_t)e * row, a + (size_t)d->order[e] * row, row);
        data = b;
    }
    if (!st && (rc = nc_inq_varid(dst_mesh, name, &out)) == NC_NOERR) rc = nc_put_var(dst_mesh, out, data);
    if (!st && rc != NC_NOERR) st = axb_nc_error(err, rc, "%s: " AXB_NC_GRP_MESH "/%s", path, name);
    free(a);
    free(b);
    return st;
}

axb_status axb_merged_copy_mesh(int src, int dst, const axb_merged_def *d, const char *path, axb_error *err)
{
    const char *tpl = d->template_path;
    int src_mesh, dst_mesh, nvars, ids[256];
    AXB_NC_TRY(err, nc_inq_grp_ncid(src, AXB_NC_GRP_MESH, &src_mesh), "%s: group " AXB_NC_GRP_MESH, tpl);
    AXB_NC_TRY(err, nc_inq_grp_ncid(dst, AXB_NC_GRP_MESH, &dst_mesh), "%s: group " AXB_NC_GRP_MESH, path);
    AXB_NC_TRY(err, nc_inq_varids(src_mesh, &nvars, NULL), "%s: " AXB_NC_GRP_MESH " variables", tpl);
    AXB_CHECK(err, nvars <= 256, AXB_ERR_UNSUPPORTED, "%s: more than 256 mesh variables", tpl);
    AXB_NC_TRY(err, nc_inq_varids(src_mesh, &nvars, ids), "%s: " AXB_NC_GRP_MESH " variables", tpl);
    for (int v = 0; v < nvars; v++) AXB_TRY(copy_mesh_var(src_mesh, ids[v], dst_mesh, d, tpl, path, err));
    return AXB_OK;
}
