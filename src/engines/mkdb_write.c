/* One AxiSEM ordered_output.nc4 of `axibulk mkdb`, written with netCDF-C (netCDF-4/HDF5) so the
 * files are exactly what netCDF tools and Instaseis expect (reference notes §1.2-1.5).
 *
 * Every rank defines the same metadata (netCDF-4 parallel requires it); rank 0 alone writes the
 * mesh and the STF with independent access; the snapshot arrays are written collectively in rounds
 * of point blocks, each rank owning a contiguous run of whole chunks so no chunk is shared. */
#include <math.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/timefmt.h"
#include "numerics/fullspace.h"
#include "axibulk/mkdb.h"
#include "axibulk/sem.h"

#define NC_TRY(call, ...)                                                                          \
    do {                                                                                           \
        int nc_rc_ = (call);                                                                       \
        if (nc_rc_ != NC_NOERR) {                                                                  \
            axb_error_set(err, AXB_ERR_IO, __VA_ARGS__);                                           \
            return axb_error_prefix(err, "%s", nc_strerror(nc_rc_));                               \
        }                                                                                          \
    } while (0)

/* What AxiSEM writes for each run. */
typedef struct sim_desc {
    const char *source_type, *sim_type;
    axb_excitation exc;
} sim_desc;

static const sim_desc SIMS[AXB_NSIM] = {
    [AXB_SIM_PX] = {"thetaforce", "force", AXB_EXC_DIPOLE},
    [AXB_SIM_PZ] = {"vertforce", "force", AXB_EXC_MONOPOLE},
    [AXB_SIM_MZZ] = {"mrr", "moment", AXB_EXC_MONOPOLE},
    [AXB_SIM_MXX_P_MYY] = {"mtt_p_mpp", "moment", AXB_EXC_MONOPOLE},
    [AXB_SIM_MXZ_MYZ] = {"mtr", "moment", AXB_EXC_DIPOLE},
    [AXB_SIM_MXY_MXX_M_MYY] = {"mtp", "moment", AXB_EXC_QUADPOLE},
};

/* Stored variables of a run: names and the row of the physics output each one takes. */
typedef struct var_set {
    int n;
    const char *name[6];
    int src[6];
    int nphys;                     /* rows the physics function returns */
} var_set;

static void variables_of(axb_dump_type dump, axb_excitation exc, var_set *v)
{
    const bool mono = exc == AXB_EXC_MONOPOLE;
    if (dump == AXB_DUMP_DISPL_ONLY) {
        static const char *const names[3] = {"disp_s", "disp_p", "disp_z"};
        v->nphys = 3;
        v->n = 0;
        for (int c = 0; c < 3; c++) {
            if (mono && c == 1) continue;
            v->name[v->n] = names[c];
            v->src[v->n++] = c;
        }
        return;
    }
    static const char *const names[6] = {"strain_dsus", "strain_dsuz", "strain_dpup",
                                         "strain_dsup", "strain_dzup", "straintrace"};
    v->nphys = 6;
    v->n = 0;
    for (int c = 0; c < 6; c++) {
        if (mono && (c == 3 || c == 4)) continue; /* zero for monopole runs: AxiSEM omits them */
        v->name[v->n] = names[c];
        v->src[v->n++] = c;
    }
}

static axb_status att_int(int nc, int var, const char *name, int value, axb_error *err)
{
    NC_TRY(nc_put_att_int(nc, var, name, NC_INT, 1, &value), "attribute '%s'", name);
    return AXB_OK;
}

static axb_status att_float(int nc, const char *name, double value, axb_error *err)
{
    float f = (float)value;
    NC_TRY(nc_put_att_float(nc, NC_GLOBAL, name, NC_FLOAT, 1, &f), "attribute '%s'", name);
    return AXB_OK;
}

static axb_status att_double(int nc, const char *name, double value, axb_error *err)
{
    NC_TRY(nc_put_att_double(nc, NC_GLOBAL, name, NC_DOUBLE, 1, &value), "attribute '%s'", name);
    return AXB_OK;
}

static axb_status att_text(int nc, const char *name, const char *value, axb_error *err)
{
    NC_TRY(nc_put_att_text(nc, NC_GLOBAL, name, strlen(value), value), "attribute '%s'", name);
    return AXB_OK;
}

/* All global attributes of reference notes §1.3, with AxiSEM's types. Nothing that varies between
 * runs (time, host, user) so the same options give the same bytes. */
static axb_status define_attributes(int nc, const axb_mkdb_opts *o, const axb_mkdb_plan *p,
                                    const axb_mkdb_mesh *m, axb_sim sim, axb_error *err)
{
    const sim_desc *d = &SIMS[sim];
    const bool displ = o->dump == AXB_DUMP_DISPL_ONLY;
    const int nt = (int)p->nt;
    AXB_TRY(att_int(nc, NC_GLOBAL, "npoints", (int)m->npoints, err));
    if (displ) AXB_TRY(att_int(nc, NC_GLOBAL, "nelem_kwf_global", (int)m->nelem, err));
    AXB_TRY(att_int(nc, NC_GLOBAL, "file version", 10, err));
    AXB_TRY(att_text(nc, "background model", "homogeneous_fullspace", err));
    AXB_TRY(att_text(nc, "external model name", "none", err));
    AXB_TRY(att_int(nc, NC_GLOBAL, "attenuation", 0, err));
    AXB_TRY(att_double(nc, "planet radius", p->r_max / 1e3, err));
    AXB_TRY(att_text(nc, "datetime", "1970-01-01T00:00:00+0000", err));
    AXB_TRY(att_text(nc, "git commit hash", "axibulk-" AXB_VERSION_STRING, err));
    AXB_TRY(att_text(nc, "user name", "axibulk", err));
    AXB_TRY(att_text(nc, "host name", "axibulk", err));
    AXB_TRY(att_text(nc, "compiler brand", "axibulk mkdb (analytic full space)", err));
    AXB_TRY(att_text(nc, "compiler version", AXB_VERSION_STRING, err));
    AXB_TRY(att_text(nc, "FFLAGS", "FFLAGS = ", err));
    AXB_TRY(att_text(nc, "CFLAGS", "CFLAGS = ", err));
    AXB_TRY(att_text(nc, "LDFLAGS", "LDFLAGS = ", err));
    AXB_TRY(att_text(nc, "OpenMP", "no", err));
    AXB_TRY(att_text(nc, "time scheme", "analytic", err));
    AXB_TRY(att_float(nc, "time step in sec", p->dt, err));
    AXB_TRY(att_int(nc, NC_GLOBAL, "number of time steps", nt - 1, err));
    AXB_TRY(att_int(nc, NC_GLOBAL, "npol", p->npol, err));
    AXB_TRY(att_text(nc, "excitation type", axb_excitation_name(d->exc), err));
    AXB_TRY(att_text(nc, "source type", d->source_type, err));
    /* slip is an error function (integral of the Gaussian slip rate): Instaseis' STF_MAP 0 */
    AXB_TRY(att_text(nc, "source time function", "errorf", err));
    AXB_TRY(att_text(nc, "simulation type", d->sim_type, err));
    AXB_TRY(att_float(nc, "dominant source period", o->period, err));
    AXB_TRY(att_float(nc, "source depth in km", (p->r_max - p->r_src) / 1e3, err));
    AXB_TRY(att_float(nc, "Source colatitude", 0.0, err));
    AXB_TRY(att_float(nc, "Source longitude", 0.0, err));
    AXB_TRY(att_float(nc, "scalar source magnitude", p->amplitude, err));
    AXB_TRY(att_int(nc, NC_GLOBAL, "number of receivers", 0, err));
    AXB_TRY(att_int(nc, NC_GLOBAL, "length of seismogram  in time samples", nt, err));
    AXB_TRY(att_float(nc, "seismogram sampling in sec", p->dt, err));
    AXB_TRY(att_int(nc, NC_GLOBAL, "number of strain dumps", nt, err));
    AXB_TRY(att_double(nc, "strain dump sampling rate in sec", p->dt, err));
    AXB_TRY(att_text(nc, "dump type (displ_only, displ_velo, fullfields)",
                     axb_dump_type_name(o->dump), err));
    AXB_TRY(att_double(nc, "kernel wavefield rmin", p->r_min / 1e3, err));
    AXB_TRY(att_double(nc, "kernel wavefield rmax", p->r_max / 1e3, err));
    AXB_TRY(att_double(nc, "kernel wavefield colatmin", 0.0, err));
    AXB_TRY(att_double(nc, "kernel wavefield colatmax", 180.0, err));
    AXB_TRY(att_int(nc, NC_GLOBAL, "number of snapshot dumps", 0, err));
    AXB_TRY(att_float(nc, "snapshot dump sampling rate in sec", 0.0, err));
    AXB_TRY(att_text(nc, "receiver components", "cyl", err));
    const int b = displ ? 0 : 1, e = displ ? p->npol : p->npol - 1;
    AXB_TRY(att_int(nc, NC_GLOBAL, "ibeg", b, err));
    AXB_TRY(att_int(nc, NC_GLOBAL, "iend", e, err));
    AXB_TRY(att_int(nc, NC_GLOBAL, "jbeg", b, err));
    AXB_TRY(att_int(nc, NC_GLOBAL, "jend", e, err));
    AXB_TRY(att_float(nc, "source shift factor in sec", p->src_shift, err));
    AXB_TRY(att_int(nc, NC_GLOBAL, "source shift factor for deltat", p->src_shift_samples, err));
    AXB_TRY(att_int(nc, NC_GLOBAL, "source shift factor for seis_dt", p->src_shift_samples, err));
    AXB_TRY(att_int(nc, NC_GLOBAL, "source shift factor for deltat_coarse", p->src_shift_samples, err));
    AXB_TRY(att_text(nc, "receiver file type", "stations", err));
    AXB_TRY(att_float(nc, "receiver spacing (0 if not even)", 0.0, err));
    AXB_TRY(att_text(nc, "use netcdf for wavefield output?", " T", err));
    AXB_TRY(att_int(nc, NC_GLOBAL, "percent completed", 100, err));
    AXB_TRY(att_int(nc, NC_GLOBAL, "finalized", 1, err));
    return AXB_OK;
}

/* Variable ids of one file. */
typedef struct ids {
    int snap, mesh;
    int data[6], stf, stf_d;
    int midpoint, eltype, axis, fem, sem, mp_s, mp_z, G0, G1, G2, gll, glj;
    int model[10];                 /* mesh_S, mesh_Z, vp, vs, rho, lambda, mu, xi, phi, eta */
} ids;

static const char *const MODEL_NAMES[10] = {"mesh_S", "mesh_Z", "mesh_vp", "mesh_vs", "mesh_rho",
                                            "mesh_lambda", "mesh_mu", "mesh_xi", "mesh_phi", "mesh_eta"};

static axb_status def_var(int grp, const char *name, nc_type t, int nd, const int *dims, int *id,
                          axb_error *err)
{
    NC_TRY(nc_def_var(grp, name, t, nd, dims, id), "variable '%s'", name);
    return AXB_OK;
}

static axb_status define_all(int nc, const axb_mkdb_opts *o, const axb_mkdb_plan *p,
                             const axb_mkdb_mesh *m, axb_sim sim, const var_set *vs,
                             size_t chunk_points, ids *v, axb_error *err)
{
    int d_pts, d_t;
    NC_TRY(nc_def_dim(nc, "gllpoints_all", (size_t)m->npoints, &d_pts), "dimension gllpoints_all");
    NC_TRY(nc_def_dim(nc, "snapshots", (size_t)p->nt, &d_t), "dimension snapshots");
    AXB_TRY(define_attributes(nc, o, p, m, sim, err));

    NC_TRY(nc_def_grp(nc, "Snapshots", &v->snap), "group Snapshots");
    const int d2[2] = {d_t, d_pts};
    const size_t chunks[2] = {(size_t)p->nt, chunk_points};
    for (int k = 0; k < vs->n; k++) {
        AXB_TRY(def_var(v->snap, vs->name[k], NC_FLOAT, 2, d2, &v->data[k], err));
        NC_TRY(nc_def_var_chunking(v->snap, v->data[k], NC_CHUNKED, chunks), "chunking of '%s'",
               vs->name[k]);
        /* every value is written: filling first would double the I/O */
        NC_TRY(nc_def_var_fill(v->snap, v->data[k], NC_NOFILL, NULL), "fill of '%s'", vs->name[k]);
    }
    AXB_TRY(def_var(v->snap, "stf_dump", NC_FLOAT, 1, &d_t, &v->stf, err));
    AXB_TRY(def_var(v->snap, "stf_d_dump", NC_FLOAT, 1, &d_t, &v->stf_d, err));
    AXB_TRY(att_int(v->snap, NC_GLOBAL, "nstrain", (int)p->nt, err));

    NC_TRY(nc_def_grp(nc, "Mesh", &v->mesh), "group Mesh");
    const int g = v->mesh;
    if (m->has_elements) {
        int d_e, d_c, d_n;
        NC_TRY(nc_def_dim(g, "elements", (size_t)m->nelem, &d_e), "dimension elements");
        NC_TRY(nc_def_dim(g, "control_points", 4, &d_c), "dimension control_points");
        NC_TRY(nc_def_dim(g, "npol", (size_t)p->npol + 1, &d_n), "dimension npol");
        const int dfem[2] = {d_e, d_c}, dsem[3] = {d_e, d_n, d_n}, dnn[2] = {d_n, d_n};
        AXB_TRY(def_var(g, "midpoint_mesh", NC_INT, 1, &d_e, &v->midpoint, err));
        AXB_TRY(def_var(g, "eltype", NC_INT, 1, &d_e, &v->eltype, err));
        AXB_TRY(def_var(g, "axis", NC_INT, 1, &d_e, &v->axis, err));
        AXB_TRY(def_var(g, "fem_mesh", NC_INT, 2, dfem, &v->fem, err));
        AXB_TRY(def_var(g, "sem_mesh", NC_INT, 3, dsem, &v->sem, err));
        AXB_TRY(def_var(g, "mp_mesh_S", NC_FLOAT, 1, &d_e, &v->mp_s, err));
        AXB_TRY(def_var(g, "mp_mesh_Z", NC_FLOAT, 1, &d_e, &v->mp_z, err));
        AXB_TRY(def_var(g, "G0", NC_DOUBLE, 1, &d_n, &v->G0, err));
        AXB_TRY(def_var(g, "G1", NC_DOUBLE, 2, dnn, &v->G1, err));
        AXB_TRY(def_var(g, "G2", NC_DOUBLE, 2, dnn, &v->G2, err));
        AXB_TRY(def_var(g, "gll", NC_DOUBLE, 1, &d_n, &v->gll, err));
        AXB_TRY(def_var(g, "glj", NC_DOUBLE, 1, &d_n, &v->glj, err));
    }
    for (int k = 0; k < 10; k++) AXB_TRY(def_var(g, MODEL_NAMES[k], NC_FLOAT, 1, &d_pts, &v->model[k], err));
    NC_TRY(nc_enddef(nc), "end of definitions");
    return AXB_OK;
}

static axb_status put_ints(int g, int var, const int32_t *x, axb_error *err)
{
    NC_TRY(nc_put_var_int(g, var, x), "writing a Mesh variable");
    return AXB_OK;
}

/* Rank 0: the mesh, model and STF (independent access). */
static axb_status write_mesh(const ids *v, const axb_mkdb_opts *o, const axb_mkdb_plan *p,
                             const axb_mkdb_mesh *m, axb_error *err)
{
    const int g = v->mesh, np1 = p->npol + 1;
    const int64_t n = m->npoints, ne = m->nelem;
    float *buf = malloc((size_t)(n > ne ? n : ne) * sizeof *buf);
    int32_t *ibuf = malloc((size_t)(ne > 0 ? ne : 1) * sizeof *ibuf);
    if (!buf || !ibuf) {
        free(buf);
        free(ibuf);
        return axb_error_set(err, AXB_ERR_NOMEM, "mesh buffers");
    }
    axb_status st = AXB_OK;
    const double lambda = o->rho * (o->vp * o->vp - 2 * o->vs * o->vs), mu = o->rho * o->vs * o->vs;
    const double model[8] = {o->vp, o->vs, o->rho, lambda, mu, 1.0, 1.0, 1.0};
    for (int k = 0; k < 10 && !st; k++) {
        for (int64_t i = 0; i < n; i++)
            buf[i] = (float)(k == 0 ? m->s[i] : k == 1 ? m->z[i] : model[k - 2]);
        int rc = nc_put_var_float(g, v->model[k], buf);
        if (rc) st = axb_error_set(err, AXB_ERR_IO, "netCDF: %s: writing Mesh/%s", nc_strerror(rc), MODEL_NAMES[k]);
    }
    if (!st && m->has_elements) {
        for (int64_t e = 0; e < ne; e++) ibuf[e] = AXB_EL_SPHEROIDAL;
        st = put_ints(g, v->eltype, ibuf, err);
        if (!st) st = put_ints(g, v->axis, m->axis, err);
        if (!st) st = put_ints(g, v->midpoint, m->mid, err);
        if (!st) st = put_ints(g, v->fem, m->fem, err);
        if (!st) st = put_ints(g, v->sem, m->sem, err);
        for (int c = 0; c < 2 && !st; c++) {
            for (int64_t e = 0; e < ne; e++) buf[e] = (float)(c == 0 ? m->s[m->mid[e]] : m->z[m->mid[e]]);
            int rc = nc_put_var_float(g, c == 0 ? v->mp_s : v->mp_z, buf);
            if (rc) st = axb_error_set(err, AXB_ERR_IO, "netCDF: %s: writing Mesh/mp_mesh", nc_strerror(rc));
        }
        int rc = 0;
        if (!st) rc = nc_put_var_double(g, v->G0, m->G1); /* G0 = first row of G1 */
        if (!rc) rc = nc_put_var_double(g, v->G1, m->G1);
        if (!rc) rc = nc_put_var_double(g, v->G2, m->G2);
        if (!rc) rc = nc_put_var_double(g, v->gll, m->gll);
        if (!rc) rc = nc_put_var_double(g, v->glj, m->glj);
        if (!st && rc) st = axb_error_set(err, AXB_ERR_IO, "netCDF: %s: writing Mesh/G*", nc_strerror(rc));
        (void)np1;
    }
    free(buf);
    free(ibuf);
    return st;
}

static axb_status write_stf(const ids *v, const axb_mkdb_opts *o, const axb_mkdb_plan *p,
                            axb_error *err)
{
    double *a = malloc((size_t)p->nt * 2 * sizeof *a);
    float *f = malloc((size_t)p->nt * sizeof *f);
    if (!a || !f) {
        free(a);
        free(f);
        return axb_error_set(err, AXB_ERR_NOMEM, "STF buffers");
    }
    axb_fs_stf stf;
    axb_fs_stf_from_period(o->period, &stf);
    stf.t0 = p->src_shift;
    axb_fs_stf_sample(&stf, p->amplitude, p->nt, p->dt, a, a + p->nt);
    int rc = 0;
    for (int c = 0; c < 2 && !rc; c++) {
        for (int64_t t = 0; t < p->nt; t++) f[t] = (float)a[c * p->nt + t];
        rc = nc_put_var_float(v->snap, c == 0 ? v->stf : v->stf_d, f);
    }
    free(a);
    free(f);
    if (rc) return axb_error_set(err, AXB_ERR_IO, "netCDF: %s: writing Snapshots/stf_dump", nc_strerror(rc));
    return AXB_OK;
}

/* The same status on every rank: a rank that saw no failure itself gets AXB_ERR_REMOTE. */
static axb_status agree(MPI_Comm comm, axb_status st, axb_error *err)
{
    int mine = st != AXB_OK, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any && st == AXB_OK) return axb_error_set(err, AXB_ERR_REMOTE, "failed on another rank");
    return st;
}

typedef struct progress_ctx {
    FILE *out;
    const char *name;
    double t_start, last;
    int64_t *done, total;
    int size;
    int64_t bytes_per_point;
} progress_ctx;

/* Rank 0 extrapolates from its own share: ranks own equal shares and run at equal speed. */
static void progress_step(progress_ctx *pc, int64_t pts, bool final)
{
    *pc->done += pts * pc->size;
    if (!pc->out) return;
    const double now = MPI_Wtime();
    if (!(now - pc->last >= 5.0 || (final && now - pc->t_start > 5.0))) return;
    pc->last = now;
    const double el = now - pc->t_start;
    const double frac = pc->total > 0 ? (double)*pc->done / (double)pc->total : 1.0;
    char eta[48];
    axb_format_duration(frac > 0 ? el / frac * (1 - frac) : -1, eta, sizeof eta);
    fprintf(pc->out, "mkdb: %s %5.1f %% of the database, %.1f MB/s, elapsed %.0f s, ETA %s\n",
            pc->name, 100 * (frac > 1 ? 1 : frac),
            (double)*pc->done * (double)pc->bytes_per_point / 1e6 / (el > 0 ? el : 1e-9), el, eta);
    fflush(pc->out);
}

/* Fills the slab of points [p0, p0+cnt) for every variable and writes it (collective). */
static axb_status write_snapshots(MPI_Comm comm, const ids *v, const axb_mkdb_opts *o,
                                  const axb_mkdb_plan *p, const axb_mkdb_mesh *m, axb_sim sim,
                                  const var_set *vs, size_t cp, progress_ctx *pc, axb_error *err)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int64_t nt = p->nt, npt = m->npoints;
    const int64_t nchunks = (npt + (int64_t)cp - 1) / (int64_t)cp;
    const int64_t c0 = nchunks * rank / size, c1 = nchunks * (rank + 1) / size;
    const int64_t p0 = c0 * (int64_t)cp, p1 = c1 * (int64_t)cp < npt ? c1 * (int64_t)cp : npt;
    const int64_t max_own = (nchunks + size - 1) / size * (int64_t)cp;
    /* block: whole chunks within the memory budget */
    int64_t per_point = (int64_t)vs->n * nt * 4;
    int64_t block = o->memory_bytes / (per_point > 0 ? per_point : 1) / (int64_t)cp * (int64_t)cp;
    if (block < (int64_t)cp) block = (int64_t)cp;
    if (block > max_own) block = max_own > 0 ? max_own : (int64_t)cp;
    const int64_t rounds = max_own > 0 ? (max_own + block - 1) / block : 0;

    float *buf = malloc((size_t)(vs->n * nt * block) * sizeof *buf);
    double *phys = malloc((size_t)(vs->nphys * nt) * sizeof *phys);
    axb_status st = AXB_OK;
    if (!buf || !phys) st = axb_error_set(err, AXB_ERR_NOMEM, "snapshot block of %lld points", (long long)block);
    st = agree(comm, st, err);
    for (int k = 0; k < vs->n && !st; k++) {
        int rc = nc_var_par_access(v->snap, v->data[k], NC_COLLECTIVE);
        if (rc && size > 1) st = axb_error_set(err, AXB_ERR_IO, "netCDF: %s: collective access", nc_strerror(rc));
    }
    axb_fs_medium med = {o->vp, o->vs, o->rho};
    axb_fs_stf stf;
    axb_fs_stf_from_period(o->period, &stf);
    stf.t0 = p->src_shift;
    for (int64_t r = 0; r < rounds && !st; r++) {
        int64_t start = p0 + r * block;
        int64_t cnt = start < p1 ? (p1 - start < block ? p1 - start : block) : 0;
        if (cnt == 0) start = 0;
        for (int64_t q = 0; q < cnt; q++) {
            /* where readers put the point: mapped from float32 corners (mkdb_mesh.c), or for
             * strain_only (nearest stored point, no mapping) the float32 coordinates */
            const int64_t pt = start + q;
            const double s = m->es ? m->es[pt] : (double)(float)m->s[pt];
            const double z = m->ez ? m->ez[pt] : (double)(float)m->z[pt];
            if (o->dump == AXB_DUMP_DISPL_ONLY)
                axb_fs_sim_displ(&med, &stf, sim, p->r_src, p->amplitude, s, z, nt, p->dt, phys);
            else
                axb_fs_sim_strain(&med, &stf, sim, p->r_src, p->amplitude, s, z, nt, p->dt, phys);
            for (int k = 0; k < vs->n; k++) {
                const double *src = phys + (int64_t)vs->src[k] * nt;
                float *dst = buf + (int64_t)k * nt * cnt + q;
                for (int64_t t = 0; t < nt; t++) dst[t * cnt] = (float)src[t];
            }
        }
        const size_t st2[2] = {0, (size_t)start}, ct2[2] = {(size_t)nt, (size_t)cnt};
        for (int k = 0; k < vs->n && !st; k++) {
            int rc = nc_put_vara_float(v->snap, v->data[k], st2, ct2, buf + (int64_t)k * nt * cnt);
            if (rc) st = axb_error_set(err, AXB_ERR_IO, "netCDF: %s: writing Snapshots/%s points %lld..%lld",
                                       nc_strerror(rc), vs->name[k], (long long)start, (long long)(start + cnt));
        }
        st = agree(comm, st, err);
        if (!st) progress_step(pc, cnt, r + 1 == rounds);
    }
    free(buf);
    free(phys);
    return st;
}

static axb_status write_body(MPI_Comm comm, int nc, const axb_mkdb_opts *o, const axb_mkdb_plan *p,
                             const axb_mkdb_mesh *m, axb_sim sim, progress_ctx *pc, axb_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    var_set vs;
    variables_of(o->dump, SIMS[sim].exc, &vs);
    /* AxiSEM's 112-point chunks, fewer for very long records so a chunk stays <= 16 MiB */
    int64_t cp = (16 << 20) / (p->nt * 4);
    if (cp > 112) cp = 112;
    if (cp < 1) cp = 1;
    if (cp > m->npoints) cp = m->npoints;
    ids v;
    axb_status st = agree(comm, define_all(nc, o, p, m, sim, &vs, (size_t)cp, &v, err), err);
    if (st) return st;
    if (rank == 0) {
        st = write_mesh(&v, o, p, m, err);
        if (!st) st = write_stf(&v, o, p, err);
    }
    AXB_TRY(agree(comm, st, err));
    pc->bytes_per_point = (int64_t)vs.n * p->nt * 4;
    return write_snapshots(comm, &v, o, p, m, sim, &vs, (size_t)cp, pc, err);
}

axb_status axb_mkdb_write_file(MPI_Comm comm, const axb_mkdb_opts *o, const axb_mkdb_plan *plan,
                               const axb_mkdb_mesh *m, axb_sim sim, const char *path,
                               FILE *progress, double t_start, int64_t *done, int64_t total,
                               axb_error *err)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int nc = -1, rc;
    /* MPI-IO even on one rank: the serial driver lays the file out differently, and with the same
     * driver the bytes do not depend on the number of ranks (checked for 1, 2, 3 ranks) */
    rc = nc_create_par(path, NC_NETCDF4 | NC_CLOBBER, comm, MPI_INFO_NULL, &nc);
    axb_status st = AXB_OK;
    if (rc) st = axb_error_set(err, AXB_ERR_IO, "%s: cannot create: %s", path, nc_strerror(rc));
    st = agree(comm, st, err);
    if (st) {
        if (rc == NC_NOERR) nc_close(nc);
        return st;
    }
    progress_ctx pc = {rank == 0 ? progress : NULL, axb_sim_name(sim), t_start, t_start, done, total, size, 0};
    st = write_body(comm, nc, o, plan, m, sim, &pc, err);
    rc = nc_close(nc);
    if (!st && rc) st = axb_error_set(err, AXB_ERR_IO, "%s: closing: %s", path, nc_strerror(rc));
    st = agree(comm, st, err);
    if (st && st != AXB_ERR_REMOTE) axb_error_prefix(err, "%s", path);
    return st;
}
