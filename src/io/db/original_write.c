/* The original-layout writer's operations (original_write.h). */
#include "io/db/original_write.h"

#include <netcdf.h>
#include <netcdf_par.h>
#include <stdlib.h>

#include "core/agree.h"
#include "io/db/db_names.h"
#include "io/hdf5/nc_check.h"

static const char *const DISPL_NAMES[3] = {AXB_NC_DISP_S, AXB_NC_DISP_P, AXB_NC_DISP_Z};
static const char *const STRAIN_NAMES[6] = {AXB_NC_STRAIN_DSUS, AXB_NC_STRAIN_DSUZ, AXB_NC_STRAIN_DPUP,
                                            AXB_NC_STRAIN_DSUP, AXB_NC_STRAIN_DZUP, AXB_NC_STRAIN_TRACE};

/* mesh_S, mesh_Z, then the model: vp, vs, rho, lambda, mu, xi, phi, eta */
#define NMODEL 10
static const char *const MODEL_NAMES[NMODEL] = {AXB_NC_MESH_S,   AXB_NC_MESH_Z,      AXB_NC_MESH_VP, AXB_NC_MESH_VS,
                                                AXB_NC_MESH_RHO, AXB_NC_MESH_LAMBDA, AXB_NC_MESH_MU, AXB_NC_MESH_XI,
                                                AXB_NC_MESH_PHI, AXB_NC_MESH_ETA};

typedef struct orig_impl {
    axb_original_def def;
    int nv, rows[6];
    const char *names[6];
    int ncid;       /* -1 when closed */
    bool defining;  /* in define mode: a failed run aborts instead of closing */
    int snap, mesh; /* groups */
    int data[6], stf, stf_d;
    int midpoint, eltype, axis, fem, sem, mp_s, mp_z, G0, G1, G2, gll, glj;
    int model[NMODEL];
    float *buf; /* [nv][nt][max_points] */
} orig_impl;

int64_t axb_original_chunk_points(int64_t nt, int64_t npoints, bool axisem_filters)
{
    int64_t cp = axisem_filters ? 8192 / nt : (16 << 20) / (nt * 4);
    if (cp > 112) cp = 112;
    if (cp < 1) cp = 1;
    return cp > npoints ? npoints : cp;
}

static axb_status def_var(int grp, const char *name, nc_type t, int nd, const int *dims, int *id, axb_error *err)
{
    AXB_NC_TRY(err, nc_def_var(grp, name, t, nd, dims, id), "variable '%s'", name);
    return AXB_OK;
}

static axb_status define_snapshots(orig_impl *o, int d_t, int d_pts, axb_error *err)
{
    const axb_original_def *d = &o->def;
    AXB_NC_TRY(err, nc_def_grp(o->ncid, AXB_NC_GRP_SNAPSHOTS, &o->snap), "group " AXB_NC_GRP_SNAPSHOTS);
    const int d2[2] = {d_t, d_pts};
    const size_t chunks[2] = {(size_t)d->nt, (size_t)d->chunk_points};
    for (int k = 0; k < o->nv; k++) {
        AXB_TRY(def_var(o->snap, o->names[k], NC_FLOAT, 2, d2, &o->data[k], err));
        AXB_NC_TRY(err, nc_def_var_chunking(o->snap, o->data[k], NC_CHUNKED, chunks), "chunking of '%s'", o->names[k]);
        /* every value is written: filling first would double the I/O */
        AXB_NC_TRY(err, nc_def_var_fill(o->snap, o->data[k], NC_NOFILL, NULL), "fill of '%s'", o->names[k]);
        /* fletcher32 on every chunk, filtered or not: damage is an error on read, not wrong numbers
         * (netCDF orders the filters as AxiSEM's files have them) */
        AXB_NC_TRY(err, nc_def_var_fletcher32(o->snap, o->data[k], NC_FLETCHER32), "checksum of '%s'", o->names[k]);
        if (d->axisem_filters)
            AXB_NC_TRY(err, nc_def_var_deflate(o->snap, o->data[k], 1, 1, 2), "deflate of '%s'", o->names[k]);
    }
    AXB_TRY(def_var(o->snap, AXB_NC_VAR_STF, NC_FLOAT, 1, &d_t, &o->stf, err));
    AXB_TRY(def_var(o->snap, AXB_NC_VAR_STF_D, NC_FLOAT, 1, &d_t, &o->stf_d, err));
    const int nstrain = (int)d->nt;
    AXB_NC_TRY(err, nc_put_att_int(o->snap, NC_GLOBAL, "nstrain", NC_INT, 1, &nstrain), "attribute 'nstrain'");
    return AXB_OK;
}

static axb_status define_elements(orig_impl *o, axb_error *err)
{
    const int g = o->mesh;
    int d_e, d_c, d_n;
    AXB_NC_TRY(err, nc_def_dim(g, AXB_NC_DIM_ELEMENTS, (size_t)o->def.nelem, &d_e), "dimension " AXB_NC_DIM_ELEMENTS);
    AXB_NC_TRY(err, nc_def_dim(g, AXB_NC_DIM_CONTROL, 4, &d_c), "dimension " AXB_NC_DIM_CONTROL);
    AXB_NC_TRY(err, nc_def_dim(g, AXB_NC_DIM_NPOL, (size_t)o->def.npol + 1, &d_n), "dimension " AXB_NC_DIM_NPOL);
    const int dfem[2] = {d_e, d_c}, dsem[3] = {d_e, d_n, d_n}, dnn[2] = {d_n, d_n};
    AXB_TRY(def_var(g, AXB_NC_MESH_MIDPOINT, NC_INT, 1, &d_e, &o->midpoint, err));
    AXB_TRY(def_var(g, AXB_NC_MESH_ELTYPE, NC_INT, 1, &d_e, &o->eltype, err));
    AXB_TRY(def_var(g, AXB_NC_MESH_AXIS, NC_INT, 1, &d_e, &o->axis, err));
    AXB_TRY(def_var(g, AXB_NC_MESH_FEM, NC_INT, 2, dfem, &o->fem, err));
    AXB_TRY(def_var(g, AXB_NC_MESH_SEM, NC_INT, 3, dsem, &o->sem, err));
    AXB_TRY(def_var(g, AXB_NC_MESH_MP_S, NC_FLOAT, 1, &d_e, &o->mp_s, err));
    AXB_TRY(def_var(g, AXB_NC_MESH_MP_Z, NC_FLOAT, 1, &d_e, &o->mp_z, err));
    AXB_TRY(def_var(g, AXB_NC_MESH_G0, NC_DOUBLE, 1, &d_n, &o->G0, err));
    AXB_TRY(def_var(g, AXB_NC_MESH_G1, NC_DOUBLE, 2, dnn, &o->G1, err));
    AXB_TRY(def_var(g, AXB_NC_MESH_G2, NC_DOUBLE, 2, dnn, &o->G2, err));
    AXB_TRY(def_var(g, AXB_NC_MESH_GLL, NC_DOUBLE, 1, &d_n, &o->gll, err));
    AXB_TRY(def_var(g, AXB_NC_MESH_GLJ, NC_DOUBLE, 1, &d_n, &o->glj, err));
    return AXB_OK;
}

static axb_status define_all(orig_impl *o, axb_error *err)
{
    const axb_original_def *d = &o->def;
    int d_pts, d_t;
    AXB_NC_TRY(err, nc_def_dim(o->ncid, AXB_NC_DIM_POINTS, (size_t)d->npoints, &d_pts), "dimension " AXB_NC_DIM_POINTS);
    AXB_NC_TRY(err, nc_def_dim(o->ncid, AXB_NC_DIM_SNAPSHOTS, (size_t)d->nt, &d_t), "dimension " AXB_NC_DIM_SNAPSHOTS);
    AXB_TRY(axb_original_attributes(o->ncid, d, err));
    AXB_TRY(define_snapshots(o, d_t, d_pts, err));
    AXB_NC_TRY(err, nc_def_grp(o->ncid, AXB_NC_GRP_MESH, &o->mesh), "group " AXB_NC_GRP_MESH);
    if (d->nelem > 0) AXB_TRY(define_elements(o, err));
    for (int k = 0; k < NMODEL; k++) AXB_TRY(def_var(o->mesh, MODEL_NAMES[k], NC_FLOAT, 1, &d_pts, &o->model[k], err));
    return AXB_OK;
}

/* MPI-IO even on one rank: the serial driver lays the file out differently, and with the same
 * driver the bytes do not depend on the number of ranks (checked for 1, 2, 3 ranks). */
static axb_status orig_define(axb_db_writer *w, axb_error *err)
{
    orig_impl *o = w->impl;
    const int rc = nc_create_par(w->path, NC_NETCDF4 | NC_CLOBBER, w->comm, MPI_INFO_NULL, &o->ncid);
    if (rc != NC_NOERR) o->ncid = -1;
    o->defining = rc == NC_NOERR;
    AXB_TRY(axb_agree(w->comm, rc == NC_NOERR ? AXB_OK : axb_nc_error(err, rc, "%s: cannot create", w->path), err));
    /* definitions are local until nc_enddef, which is collective: every rank must reach it */
    axb_status st = define_all(o, err);
    if (st) axb_error_prefix(err, "%s", w->path);
    AXB_TRY(axb_agree(w->comm, st, err));
    const int end = nc_enddef(o->ncid);
    o->defining = false;
    return axb_agree(w->comm, end == NC_NOERR ? AXB_OK : axb_nc_error(err, end, "%s: end of definitions", w->path),
                     err);
}

static axb_status put_floats(int g, int var, const char *name, const float *x, axb_error *err)
{
    AXB_NC_TRY(err, nc_put_var_float(g, var, x), "writing " AXB_NC_GRP_MESH "/%s", name);
    return AXB_OK;
}

static axb_status put_ints(int g, int var, const char *name, const int32_t *x, axb_error *err)
{
    AXB_NC_TRY(err, nc_put_var_int(g, var, x), "writing " AXB_NC_GRP_MESH "/%s", name);
    return AXB_OK;
}

static axb_status put_doubles(int g, int var, const char *name, const double *x, axb_error *err)
{
    AXB_NC_TRY(err, nc_put_var_double(g, var, x), "writing " AXB_NC_GRP_MESH "/%s", name);
    return AXB_OK;
}

/* Point coordinates and the homogeneous model, float32 as AxiSEM stores them. */
static axb_status write_points(const orig_impl *o, float *buf, axb_error *err)
{
    const axb_original_def *d = &o->def;
    const double lambda = d->rho * (d->vp * d->vp - 2 * d->vs * d->vs), mu = d->rho * d->vs * d->vs;
    const double model[8] = {d->vp, d->vs, d->rho, lambda, mu, 1.0, 1.0, 1.0};
    for (int k = 0; k < NMODEL; k++) {
        for (int64_t i = 0; i < d->npoints; i++) buf[i] = (float)(k == 0 ? d->s[i] : k == 1 ? d->z[i] : model[k - 2]);
        AXB_TRY(put_floats(o->mesh, o->model[k], MODEL_NAMES[k], buf, err));
    }
    return AXB_OK;
}

/* Element topology, mid points and the basis. */
static axb_status write_elements(const orig_impl *o, float *buf, int32_t *ibuf, axb_error *err)
{
    const axb_original_def *d = &o->def;
    const int g = o->mesh;
    for (int64_t e = 0; e < d->nelem; e++) ibuf[e] = d->eltype;
    AXB_TRY(put_ints(g, o->eltype, AXB_NC_MESH_ELTYPE, ibuf, err));
    AXB_TRY(put_ints(g, o->axis, AXB_NC_MESH_AXIS, d->axis, err));
    AXB_TRY(put_ints(g, o->midpoint, AXB_NC_MESH_MIDPOINT, d->mid, err));
    AXB_TRY(put_ints(g, o->fem, AXB_NC_MESH_FEM, d->fem, err));
    AXB_TRY(put_ints(g, o->sem, AXB_NC_MESH_SEM, d->sem, err));
    for (int c = 0; c < 2; c++) {
        for (int64_t e = 0; e < d->nelem; e++) buf[e] = (float)(c == 0 ? d->s[d->mid[e]] : d->z[d->mid[e]]);
        AXB_TRY(put_floats(g, c == 0 ? o->mp_s : o->mp_z, c == 0 ? AXB_NC_MESH_MP_S : AXB_NC_MESH_MP_Z, buf, err));
    }
    AXB_TRY(put_doubles(g, o->G0, AXB_NC_MESH_G0, d->G1, err)); /* G0 = first row of G1 */
    AXB_TRY(put_doubles(g, o->G1, AXB_NC_MESH_G1, d->G1, err));
    AXB_TRY(put_doubles(g, o->G2, AXB_NC_MESH_G2, d->G2, err));
    AXB_TRY(put_doubles(g, o->gll, AXB_NC_MESH_GLL, d->gll, err));
    AXB_TRY(put_doubles(g, o->glj, AXB_NC_MESH_GLJ, d->glj, err));
    return AXB_OK;
}

static axb_status orig_write_mesh(axb_db_writer *w, axb_error *err)
{
    const orig_impl *o = w->impl;
    const int64_t n = o->def.npoints, ne = o->def.nelem;
    float *buf = malloc((size_t)(n > ne ? n : ne) * sizeof *buf);
    int32_t *ibuf = malloc((size_t)(ne > 0 ? ne : 1) * sizeof *ibuf);
    axb_status st = buf && ibuf ? write_points(o, buf, err) : axb_error_set(err, AXB_ERR_NOMEM, "mesh buffers");
    if (!st && ne > 0) st = write_elements(o, buf, ibuf, err);
    free(buf);
    free(ibuf);
    return st ? axb_error_prefix(err, "%s", w->path) : AXB_OK;
}

static axb_status orig_write_stf(axb_db_writer *w, const float *stf, const float *stf_d, axb_error *err)
{
    const orig_impl *o = w->impl;
    AXB_NC_TRY(err, nc_put_var_float(o->snap, o->stf, stf), "%s: writing " AXB_NC_GRP_SNAPSHOTS "/" AXB_NC_VAR_STF,
               w->path);
    AXB_NC_TRY(err, nc_put_var_float(o->snap, o->stf_d, stf_d),
               "%s: writing " AXB_NC_GRP_SNAPSHOTS "/" AXB_NC_VAR_STF_D, w->path);
    return AXB_OK;
}

static axb_status orig_begin(axb_db_writer *w, axb_error *err)
{
    orig_impl *o = w->impl;
    axb_status st = AXB_OK;
    for (int k = 0; k < o->nv && !st; k++) {
        const int rc = nc_var_par_access(o->snap, o->data[k], NC_COLLECTIVE);
        if (rc != NC_NOERR) st = axb_nc_error(err, rc, "%s: collective access to '%s'", w->path, o->names[k]);
    }
    const size_t n = (size_t)o->nv * (size_t)o->def.nt * (size_t)o->def.max_points;
    if (!st && !(o->buf = malloc((n ? n : 1) * sizeof *o->buf)))
        st = axb_error_set(err, AXB_ERR_NOMEM, "snapshot block of %lld points", (long long)o->def.max_points);
    return axb_agree(w->comm, st, err);
}

static axb_status orig_buffer(axb_db_writer *w, int64_t start, float **buf, axb_error *err)
{
    (void)start;
    (void)err;
    *buf = ((orig_impl *)w->impl)->buf;
    return AXB_OK;
}

static axb_status orig_put(axb_db_writer *w, int64_t start, int64_t count, axb_error *err)
{
    const orig_impl *o = w->impl;
    const size_t first[2] = {0, (size_t)start}, n[2] = {(size_t)o->def.nt, (size_t)count};
    /* each write is collective: a rank that failed one must not leave the others in the next */
    for (int k = 0; k < o->nv; k++) {
        const int rc = nc_put_vara_float(o->snap, o->data[k], first, n, o->buf + (int64_t)k * o->def.nt * count);
        axb_status st = AXB_OK;
        if (rc != NC_NOERR)
            st = axb_nc_error(err, rc, "%s: writing " AXB_NC_GRP_SNAPSHOTS "/%s points %lld..%lld", w->path,
                              o->names[k], (long long)start, (long long)(start + count));
        AXB_TRY(axb_agree(w->comm, st, err));
    }
    return AXB_OK;
}

static axb_status orig_checkpoint(axb_db_writer *w, axb_error *err)
{
    const orig_impl *o = w->impl;
    const int rc = nc_sync(o->ncid);
    return axb_agree(w->comm, rc == NC_NOERR ? AXB_OK : axb_nc_error(err, rc, "%s: sync", w->path), err);
}

static axb_status orig_close(axb_db_writer *w, axb_error *err)
{
    orig_impl *o = w->impl;
    axb_status st = AXB_OK;
    if (o->ncid >= 0) {
        /* ranks that failed while defining hold different definitions; closing would try to
         * create them collectively, so the unfinished file is dropped */
        const int rc = o->defining ? nc_abort(o->ncid) : nc_close(o->ncid);
        st = axb_agree(w->comm, rc == NC_NOERR ? AXB_OK : axb_nc_error(err, rc, "%s: closing", w->path), err);
    }
    free(o->buf);
    free(o);
    w->impl = NULL;
    return st;
}

static const axb_db_writer_ops original_ops = {
    .name = "original",
    .define = orig_define,
    .write_mesh = orig_write_mesh,
    .write_stf = orig_write_stf,
    .begin = orig_begin,
    .buffer = orig_buffer,
    .put = orig_put,
    .checkpoint = orig_checkpoint,
    .close = orig_close,
};

axb_status axb_original_writer_create(MPI_Comm comm, const char *path, const axb_original_def *def, axb_db_writer **out,
                                      axb_error *err)
{
    orig_impl *o = calloc(1, sizeof *o);
    if (!o) return axb_error_set(err, AXB_ERR_NOMEM, "%s: writer", path);
    o->def = *def;
    o->ncid = -1;
    o->nv = axb_original_rows(def->dump, def->sim, o->rows);
    for (int k = 0; k < o->nv; k++)
        o->names[k] = def->dump == AXB_DUMP_DISPL_ONLY ? DISPL_NAMES[o->rows[k]] : STRAIN_NAMES[o->rows[k]];
    axb_status st = axb_db_writer_new(comm, path, &original_ops, o, out, err);
    if (st) free(o);
    return st;
}
