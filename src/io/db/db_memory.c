/* Backend for in-memory databases (axibulk/db_memory.h): the description and mesh are built from
 * constants, element blocks are computed from a closed form when read. No file is touched, so the
 * engines can be tested where HDF5 files would make each case slow or need shared data. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/db_memory.h"
#include "axibulk/mkdb.h"
#include "axibulk/sem.h"
#include "io/db/db_internal.h"

#define NPOL 4
#define NT AXB_DB_MEMORY_NTHETA
#define NR AXB_DB_MEMORY_NRAD
#define MAX_DEG 40.0
#define RMIN 5371e3
#define RMAX 6371e3
#define SPEED 200e3
/* the background model: homogeneous and isotropic (xi, phi, eta absent), mu = rho vs^2 */
#define MODEL_VP 8000.0f
#define MODEL_VS 4000.0f
#define MODEL_RHO 3300.0f

static const double pi = 3.14159265358979323846;

double axb_db_memory_value(const axb_db_info *info, axb_sim sim, int comp, double s, double z, int64_t t)
{
    const double tau = (double)t * info->dt;
    const double dz = z - info->planet_radius;
    const double lag = sqrt(s * s + dz * dz) / SPEED;
    const double env = (tau - 10.0 - lag) / 4.0;
    return 1e-9 * (1.0 + (double)sim + 0.5 * comp) * exp(-env * env) * cos(2.0 * pi * (tau - lag) / 10.0 + comp);
}

static axb_status runs_of(const char *name, bool *has, axb_error *err)
{
    if (!strcmp(name, "bwd"))
        has[AXB_SIM_PX] = has[AXB_SIM_PZ] = true;
    else if (!strcmp(name, "pz"))
        has[AXB_SIM_PZ] = true;
    else if (!strcmp(name, "px"))
        has[AXB_SIM_PX] = true;
    else if (!strcmp(name, "fwd"))
        has[AXB_SIM_MZZ] = has[AXB_SIM_MXX_P_MYY] = has[AXB_SIM_MXZ_MYZ] = has[AXB_SIM_MXY_MXX_M_MYY] = true;
    else
        return axb_error_set(err, AXB_ERR_ARG,
                             "memory database '%s': expected memory:bwd, memory:pz, memory:px or "
                             "memory:fwd",
                             name);
    return AXB_OK;
}

static void describe(axb_db_info *info)
{
    info->dump = AXB_DUMP_DISPL_ONLY;
    /* one block per element read at once, as in the merged layout; nothing on disk */
    info->layout = AXB_LAYOUT_MEMORY;
    info->chunked = false;
    info->deflate = -1;
    info->file_version = 7;
    info->npol = NPOL;
    info->nelem = (int64_t)NT * NR;
    info->npoints = (int64_t)(NT * NPOL + 1) * (NR * NPOL + 1);
    info->ndumps = AXB_DB_MEMORY_NDUMPS;
    info->dt = 1.0;
    info->period = 10.0;
    snprintf(info->stf, sizeof info->stf, "errorf");
    info->stf_map = 0;
    info->src_shift = 5.0;
    info->src_shift_samples = 5;
    info->amplitude = 1e20;
    info->planet_radius = RMAX;
    info->min_radius = RMIN;
    info->max_radius = RMAX;
    info->min_d = 0.0;
    info->max_d = MAX_DEG;
    snprintf(info->background_model, sizeof info->background_model, "memory_analytic");
    info->nfiles = 0;
    axb_db_finish_info(info);
    info->source_depth = info->kind == AXB_DB_FORWARD ? 10e3 : 0.0;
}

/* Global node columns run from the axis (a = 0) to 40 degrees, node rows from RMIN up; a node is
 * shared by the elements around it, and its colatitude follows the GLJ points in the axis column
 * so that the stored points are where the readers' mapping of the corners puts them. */
static axb_status build_mesh(axb_mesh *m, axb_error *err)
{
    const int np1 = NPOL + 1, na = NT * NPOL + 1, nb = NR * NPOL + 1;
    const double dth = MAX_DEG / NT * pi / 180.0, dr = (RMAX - RMIN) / NR;
    m->npol = NPOL;
    m->nelem = (int64_t)NT * NR;
    m->npoints = (int64_t)na * nb;
    m->has_elements = true;
    AXB_TRY(axb_mkdb_basis(NPOL, m->gll, m->glj, m->G1, m->G2, err));
    m->s = malloc((size_t)m->npoints * sizeof *m->s);
    m->z = malloc((size_t)m->npoints * sizeof *m->z);
    m->mu = malloc((size_t)m->npoints * sizeof *m->mu);
    m->vp = malloc((size_t)m->npoints * sizeof *m->vp);
    m->vs = malloc((size_t)m->npoints * sizeof *m->vs);
    m->rho = malloc((size_t)m->npoints * sizeof *m->rho);
    m->sem = malloc((size_t)m->nelem * np1 * np1 * sizeof *m->sem);
    m->fem = malloc((size_t)m->nelem * 4 * sizeof *m->fem);
    m->eltype = malloc((size_t)m->nelem * sizeof *m->eltype);
    m->axis = malloc((size_t)m->nelem * sizeof *m->axis);
    m->mp_s = malloc((size_t)m->nelem * sizeof *m->mp_s);
    m->mp_z = malloc((size_t)m->nelem * sizeof *m->mp_z);
    if (!m->s || !m->z || !m->mu || !m->vp || !m->vs || !m->rho || !m->sem || !m->fem || !m->eltype || !m->axis ||
        !m->mp_s || !m->mp_z)
        return axb_error_set(err, AXB_ERR_NOMEM, "memory database mesh");
    for (int b = 0; b < nb; b++) {
        const int l = b == nb - 1 ? NR - 1 : b / NPOL, j = b - l * NPOL;
        const double r = b == nb - 1 ? RMAX : RMIN + (l + (1 + m->gll[j]) / 2) * dr;
        for (int a = 0; a < na; a++) {
            const int k = a == na - 1 ? NT - 1 : a / NPOL, i = a - k * NPOL;
            const double *x = k == 0 ? m->glj : m->gll;
            const double th = (k + (1 + x[i]) / 2) * dth;
            const int64_t p = (int64_t)b * na + a;
            m->s[p] = a == 0 ? 0.0f : (float)(r * sin(th));
            m->z[p] = (float)(r * cos(th));
            m->mu[p] = MODEL_RHO * MODEL_VS * MODEL_VS; /* 5.28e10 Pa */
            m->vp[p] = MODEL_VP;
            m->vs[p] = MODEL_VS;
            m->rho[p] = MODEL_RHO;
        }
    }
    for (int k = 0; k < NT; k++)
        for (int l = 0; l < NR; l++) {
            const int64_t e = (int64_t)k * NR + l;
            const int a0 = k * NPOL, b0 = l * NPOL;
            for (int j = 0; j < np1; j++)
                for (int i = 0; i < np1; i++) m->sem[(e * np1 + j) * np1 + i] = (int32_t)((b0 + j) * na + a0 + i);
            m->fem[e * 4 + 0] = (int32_t)(b0 * na + a0);
            m->fem[e * 4 + 1] = (int32_t)(b0 * na + a0 + NPOL);
            m->fem[e * 4 + 2] = (int32_t)((b0 + NPOL) * na + a0 + NPOL);
            m->fem[e * 4 + 3] = (int32_t)((b0 + NPOL) * na + a0);
            m->eltype[e] = AXB_EL_SPHEROIDAL;
            m->axis[e] = k == 0;
            axb_elem_shape g;
            axb_sem_shape(m, e, &g);
            axb_sem_map(&g, 0.0, 0.0, &m->mp_s[e], &m->mp_z[e]);
        }
    return AXB_OK;
}

/* Slip and slip rate of an error-function source, scaled by the amplitude as files store them. */
static axb_status build_stf(const axb_db_info *info, double **stf, double **stf_d, axb_error *err)
{
    *stf = malloc((size_t)info->ndumps * sizeof **stf);
    *stf_d = malloc((size_t)info->ndumps * sizeof **stf_d);
    AXB_CHECK(err, *stf && *stf_d, AXB_ERR_NOMEM, "memory database STF");
    const double w = info->period / 3.5;
    for (int64_t t = 0; t < info->ndumps; t++) {
        const double x = ((double)t * info->dt - info->src_shift) / w;
        (*stf)[t] = info->amplitude * 0.5 * (1.0 + erf(x));
        (*stf_d)[t] = info->amplitude * exp(-x * x) / (w * sqrt(pi));
    }
    return AXB_OK;
}

static axb_status memory_read_meta(axb_db *db, const axb_db_found *found, axb_error *err)
{
    AXB_TRY(runs_of(found->files[0], db->info.has_sim, err));
    describe(&db->info);
    AXB_TRY(build_mesh(&db->mesh, err));
    AXB_TRY(build_stf(&db->info, &db->stf, &db->stf_d, err));
    db->npoint_vars = db->info.nvars;
    return AXB_OK;
}

static axb_status memory_open_data(axb_db *db, axb_error *err)
{
    (void)db;
    (void)err;
    return AXB_OK;
}

static axb_status memory_read_elements(axb_db *db, int64_t n, const int64_t *elems, axb_io_mode mode, float *out,
                                       axb_error *err)
{
    (void)mode;
    (void)err;
    const axb_db_info *in = &db->info;
    const axb_mesh *m = &db->mesh;
    const int np1 = in->npol + 1;
    const int64_t nt = in->ndumps, bf = axb_db_block_floats(db);
    for (int64_t k = 0; k < n; k++) {
        float *blk = out + k * bf;
        for (int sim = 0; sim < AXB_NSIM; sim++)
            for (int c = 0; c < in->ncomp[sim]; c++) {
                const int v = in->var_offset[sim] + c;
                for (int i = 0; i < np1; i++)
                    for (int j = 0; j < np1; j++) {
                        const int32_t p = m->sem[(elems[k] * np1 + j) * np1 + i];
                        float *dst = blk + (((int64_t)v * np1 + i) * np1 + j) * nt;
                        for (int64_t t = 0; t < nt; t++)
                            dst[t] = (float)axb_db_memory_value(in, (axb_sim)sim, c, m->s[p], m->z[p], t);
                    }
            }
    }
    db->stats.read_calls++;
    db->stats.bytes_read += n * bf * (int64_t)sizeof(float);
    return AXB_OK;
}

static void memory_close(axb_db *db)
{
    db->impl = NULL;
}

const axb_db_ops axb_db_memory_ops = {
    .name = "memory",
    .read_meta = memory_read_meta,
    .open_data = memory_open_data,
    .read_elements = memory_read_elements,
    .close = memory_close,
};

axb_status axb_db_open_memory(MPI_Comm comm, const char *name, axb_db **db, axb_error *err)
{
    char path[AXB_PATH_MAX];
    if (snprintf(path, sizeof path, "%s%s", AXB_DB_MEMORY_PREFIX, name ? name : "") >= (int)sizeof path) {
        *db = NULL;
        return axb_error_set(err, AXB_ERR_ARG, "memory database name too long");
    }
    return axb_db_open(comm, path, db, err);
}
