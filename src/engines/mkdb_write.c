/* One run's file of `axibulk mkdb`: the analytic wavefield evaluated point by point and handed to
 * the original-layout writer (io/db/original_write.h), which owns the format. Ranks own
 * contiguous runs of whole chunks and write them in collective rounds. */
#include <stdlib.h>

#include "core/agree.h"
#include "core/mpi_check.h"
#include "engines/mkdb_internal.h"
#include "io/db/original_write.h"
#include "numerics/fullspace.h"
#include "axibulk/sem.h"

/* The file's description from the plan and the mesh. */
static void describe(const axb_mkdb_opts *o, const axb_mkdb_plan *p, const axb_mkdb_mesh *m, axb_sim sim,
                     int64_t max_points, axb_original_def *d)
{
    *d = (axb_original_def){.sim = sim,
                            .dump = o->dump,
                            .npol = p->npol,
                            .npoints = m->npoints,
                            .nelem = m->has_elements ? m->nelem : 0,
                            .nt = p->nt,
                            .dt = p->dt,
                            .period = o->period,
                            .r_min = p->r_min,
                            .r_max = p->r_max,
                            .r_src = p->r_src,
                            .src_shift = p->src_shift,
                            .src_shift_samples = p->src_shift_samples,
                            .amplitude = p->amplitude,
                            .s = m->s,
                            .z = m->z,
                            .vp = o->vp,
                            .vs = o->vs,
                            .rho = o->rho,
                            .eltype = AXB_EL_SPHEROIDAL,
                            .sem = m->sem,
                            .fem = m->fem,
                            .axis = m->axis,
                            .mid = m->mid,
                            .G1 = m->G1,
                            .G2 = m->G2,
                            .gll = m->gll,
                            .glj = m->glj,
                            .chunk_points = axb_original_chunk_points(p->nt, m->npoints, o->axisem_filters),
                            .max_points = max_points,
                            .axisem_filters = o->axisem_filters};
}

/* The source time function as stored (float32). */
static axb_status write_stf(axb_db_writer *w, const axb_mkdb_opts *o, const axb_mkdb_plan *p, axb_error *err)
{
    double *a = malloc((size_t)p->nt * 2 * sizeof *a);
    float *f = malloc((size_t)p->nt * 2 * sizeof *f);
    axb_status st = a && f ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "STF buffers");
    if (!st) {
        axb_fs_stf stf;
        axb_fs_stf_from_period(o->period, &stf);
        stf.t0 = p->src_shift;
        axb_fs_stf_sample(&stf, p->amplitude, p->nt, p->dt, a, a + p->nt);
        for (int64_t t = 0; t < 2 * p->nt; t++) f[t] = (float)a[t];
        st = axb_db_writer_write_stf(w, f, f + p->nt, err);
    }
    free(a);
    free(f);
    return st;
}

/* A file's snapshot rounds: this rank's points [p0, p1) in blocks of whole chunks. */
typedef struct rounds {
    int64_t p0, p1, block, n;
} rounds;

static rounds plan_rounds(const axb_mkdb_opts *o, int64_t nt, int64_t npt, int64_t cp, int nv, int rank, int size)
{
    const int64_t nchunks = (npt + cp - 1) / cp;
    const int64_t c0 = nchunks * rank / size, c1 = nchunks * (rank + 1) / size;
    const int64_t max_own = (nchunks + size - 1) / size * cp;
    rounds r = {c0 * cp, c1 * cp < npt ? c1 * cp : npt, 0, 0};
    /* block: whole chunks within the memory budget */
    const int64_t per_point = (int64_t)nv * nt * 4;
    r.block = o->memory_bytes / (per_point > 0 ? per_point : 1) / cp * cp;
    if (r.block < cp) r.block = cp;
    if (r.block > max_own) r.block = max_own > 0 ? max_own : cp;
    r.n = max_own > 0 ? (max_own + r.block - 1) / r.block : 0;
    return r;
}

/* The field of points [start, start+cnt) into buf[var][t][cnt]. */
typedef struct field {
    const axb_mkdb_opts *o;
    const axb_mkdb_plan *p;
    const axb_mkdb_mesh *m;
    axb_sim sim;
    axb_fs_medium med;
    axb_fs_stf stf;
    int nv, rows[6];
    double *phys; /* [6][nt] */
} field;

static void evaluate(const field *f, int64_t start, int64_t cnt, float *buf)
{
    const int64_t nt = f->p->nt;
    for (int64_t q = 0; q < cnt; q++) {
        /* where readers put the point: mapped from float32 corners (mkdb_mesh.c), or for
         * strain_only (nearest stored point, no mapping) the float32 coordinates */
        const int64_t pt = start + q;
        const double s = f->m->es ? f->m->es[pt] : (double)(float)f->m->s[pt];
        const double z = f->m->ez ? f->m->ez[pt] : (double)(float)f->m->z[pt];
        if (f->o->dump == AXB_DUMP_DISPL_ONLY)
            axb_fs_sim_displ(&f->med, &f->stf, f->sim, f->p->r_src, f->p->amplitude, s, z, nt, f->p->dt, f->phys);
        else
            axb_fs_sim_strain(&f->med, &f->stf, f->sim, f->p->r_src, f->p->amplitude, s, z, nt, f->p->dt, f->phys);
        for (int k = 0; k < f->nv; k++) {
            const double *src = f->phys + (int64_t)f->rows[k] * nt;
            float *dst = buf + (int64_t)k * nt * cnt + q;
            for (int64_t t = 0; t < nt; t++) dst[t * cnt] = (float)src[t];
        }
    }
}

static axb_status write_snapshots(axb_db_writer *w, const field *f, const rounds *r, mkdb_progress *pr, axb_error *err)
{
    const double mb_per_point = (double)f->nv * (double)f->p->nt * 4 / 1e6;
    for (int64_t k = 0; k < r->n; k++) {
        int64_t start = r->p0 + k * r->block;
        const int64_t cnt = start < r->p1 ? (r->p1 - start < r->block ? r->p1 - start : r->block) : 0;
        if (cnt == 0) start = 0;
        float *buf = NULL;
        AXB_TRY(axb_db_writer_buffer(w, start, &buf, err));
        evaluate(f, start, cnt, buf);
        AXB_TRY(axb_db_writer_put(w, start, cnt, err));
        pr->points += cnt * w->size;
        pr->mb += (double)(cnt * w->size) * mb_per_point;
        axb_progress_update(&pr->line, pr->points, -1, pr->mb, pr->points >= pr->line.total);
    }
    return AXB_OK;
}

static axb_status write_body(axb_db_writer *w, const field *f, const rounds *r, mkdb_progress *pr, axb_error *err)
{
    AXB_TRY(axb_db_writer_define(w, err));
    axb_status st = AXB_OK;
    if (w->rank == 0) {
        st = axb_db_writer_write_mesh(w, err);
        if (!st) st = write_stf(w, f->o, f->p, err);
    }
    AXB_TRY(axb_agree(w->comm, st, err));
    AXB_TRY(axb_db_writer_begin(w, err));
    return write_snapshots(w, f, r, pr, err);
}

axb_status axb_mkdb_write_file(MPI_Comm comm, const axb_mkdb_opts *o, const axb_mkdb_plan *plan, const axb_mkdb_mesh *m,
                               axb_sim sim, const char *path, mkdb_progress *pr, axb_error *err)
{
    int rank, size;
    AXB_MPI_TRY(err, MPI_Comm_rank(comm, &rank), "rank");
    AXB_MPI_TRY(err, MPI_Comm_size(comm, &size), "communicator size");
    field f = {.o = o, .p = plan, .m = m, .sim = sim, .med = {o->vp, o->vs, o->rho}};
    f.nv = axb_original_rows(o->dump, sim, f.rows);
    axb_fs_stf_from_period(o->period, &f.stf);
    f.stf.t0 = plan->src_shift;
    const int64_t cp = axb_original_chunk_points(plan->nt, m->npoints, o->axisem_filters);
    const rounds r = plan_rounds(o, plan->nt, m->npoints, cp, f.nv, rank, size);
    f.phys = malloc((size_t)(6 * plan->nt) * sizeof *f.phys);
    axb_original_def def;
    describe(o, plan, m, sim, r.block, &def);
    axb_db_writer *w = NULL;
    axb_status st = f.phys ? axb_original_writer_create(comm, path, &def, &w, err)
                           : axb_error_set(err, AXB_ERR_NOMEM, "field of one point");
    st = axb_agree(comm, st, err);
    if (!st) st = write_body(w, &f, &r, pr, err);
    st = axb_db_writer_close(&w, st, err);
    free(f.phys);
    return st;
}
