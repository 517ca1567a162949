/* `axibulk kernel` as a library call: plan, check the output and start (or resume) its checkpoint,
 * integrate the cells on every rank (kernel_work.c: each cell has exactly one owner and its
 * values depend on the cell alone, so they do not depend on the rank count or on a resume), let
 * rank 0 assemble per-vertex values in cell order and write. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/agree.h"
#include "core/mpi_check.h"
#include "engines/kernel_internal.h"

/* The result in the output's shape: per cell, or per vertex (Σ over the cells sharing a vertex of
 * their hat-function integrals; errors added in quadrature). */
static axb_status assemble(axb_kplan *p, const double *slots, axb_kernel_result *res, axb_error *err)
{
    const axb_kernel_job *j = p->job;
    const int nbasis = j->per_vertex ? 4 : 1;
    const int64_t slot = axb_kslot_size(p), nv = (int64_t)nbasis * p->ncol;
    const int64_t ncell = p->mesh.ncell, nitems = j->per_vertex ? p->mesh.nvert : ncell;
    memset(res, 0, sizeof *res);
    res->per_vertex = j->per_vertex;
    res->ncolumns = p->ncol;
    res->columns = malloc((size_t)p->ncol * sizeof *res->columns);
    res->value = calloc((size_t)(p->ncol * nitems), sizeof *res->value);
    res->error = calloc((size_t)(p->ncol * nitems), sizeof *res->error);
    res->npoints = malloc((size_t)ncell * sizeof *res->npoints);
    res->volume = malloc((size_t)ncell * sizeof *res->volume);
    res->integral = calloc((size_t)p->ncol, sizeof *res->integral);
    res->seismogram = malloc((size_t)(j->nkernels * p->npts) * sizeof *res->seismogram);
    res->velocity = malloc((size_t)(j->nkernels * p->npts) * sizeof *res->velocity);
    axb_invmesh *mesh = malloc(sizeof *mesh);
    if (!res->columns || !res->value || !res->error || !res->npoints || !res->volume || !res->integral ||
        !res->seismogram || !res->velocity || !mesh) {
        free(mesh);
        return axb_error_set(err, AXB_ERR_NOMEM, "kernel result");
    }
    memcpy(res->columns, p->col, (size_t)p->ncol * sizeof *p->col);
    for (int64_t e = 0; e < ncell; e++) {
        const double *s = slots + e * slot;
        res->npoints[e] = (int64_t)s[0];
        res->volume[e] = axb_invmesh_cell_volume(&p->mesh, e);
        for (int b = 0; b < nbasis; b++) {
            const int64_t item = j->per_vertex ? p->mesh.cell[4 * e + b] : e;
            for (int col = 0; col < p->ncol; col++) {
                const int64_t o = (int64_t)b * p->ncol + col;
                res->value[col * nitems + item] += s[1 + o];
                res->error[col * nitems + item] += s[1 + nv + o] * s[1 + nv + o];
            }
        }
    }
    for (int64_t q = 0; q < p->ncol * nitems; q++) res->error[q] = sqrt(res->error[q]);
    for (int col = 0; col < p->ncol; col++)
        for (int64_t i = 0; i < nitems; i++) res->integral[col] += res->value[col * nitems + i];
    res->nkernels = j->nkernels;
    res->seis_npts = p->npts;
    res->seis_dt = p->dt;
    for (int k = 0; k < j->nkernels; k++) {
        memcpy(res->seismogram + k * p->npts, p->meas[k].seis, (size_t)p->npts * sizeof(double));
        memcpy(res->velocity + k * p->npts, p->meas[k].vel, (size_t)p->npts * sizeof(double));
    }
    /* the result keeps the mesh; the plan no longer owns it */
    *mesh = p->mesh;
    memset(&p->mesh, 0, sizeof p->mesh);
    res->mesh = mesh;
    res->fwd_db = j->fwd_db;
    res->bwd_db = j->bwd_db;
    res->source_depth = p->src_depth;
    res->nranks = p->size;
    return AXB_OK;
}

void axb_kernel_result_free(axb_kernel_result *res)
{
    if (!res) return;
    if (res->mesh) {
        axb_invmesh *m = (axb_invmesh *)res->mesh;
        axb_invmesh_free(m);
        free(m);
    }
    free(res->columns);
    free(res->value);
    free(res->error);
    free(res->npoints);
    free(res->volume);
    free(res->integral);
    free(res->seismogram);
    free(res->velocity);
    memset(res, 0, sizeof *res);
}

static axb_status xdmf_path(const axb_kplan *p, char *xdmf, axb_error *err)
{
    return axb_kernel_xdmf_path(p->job->output, xdmf, AXB_PATH_MAX, err);
}

/* Rank 0: the output can be written (checked before any work), and the checkpoint is started or
 * resumed. */
static axb_status begin(axb_kplan *p, const axb_kernel_run_opts *o, axb_kstore *store, uint8_t *done, double *slots,
                        int64_t *ndone, axb_error *err)
{
    char xdmf[AXB_PATH_MAX];
    AXB_TRY(xdmf_path(p, xdmf, err));
    AXB_TRY(axb_kernel_output_check(p->job->output, xdmf, o->force || o->resume, err));
    const axb_partial_mode mode = o->resume ? AXB_PARTIAL_RESUME : o->force ? AXB_PARTIAL_FORCE : AXB_PARTIAL_NEW;
    return axb_kstore_begin(store, p->job->output, mode, p->fingerprint, p->mesh.ncell, axb_kslot_size(p), done, slots,
                            ndone, err);
}

static void sum_stats(const axb_kplan *p, const axb_kstats *ks, double t_total, int64_t ncell, int64_t ncomputed,
                      axb_kernel_stats *out)
{
    double t[8] = {ks->t_locate,
                   p->fwd.t_read + p->bwd.t_read,
                   p->fwd.t_derive + p->bwd.t_derive + ks->t_field,
                   ks->t_fft,
                   ks->t_integrate,
                   ks->t_wait,
                   ks->t_checkpoint,
                   t_total};
    int64_t c[11] = {ks->points,
                     ks->channel_points,
                     ks->channel_cells_skipped,
                     p->fwd.read_calls,
                     p->bwd.read_calls,
                     p->fwd.elements_read,
                     p->bwd.elements_read,
                     0,
                     0,
                     0,
                     0};
    axb_io_stats io;
    axb_db_get_io_stats(p->fwd.db, &io);
    c[7] = io.bytes_read;
    c[9] = io.chunks_decoded;
    axb_db_get_io_stats(p->bwd.db, &io);
    c[8] = io.bytes_read;
    c[10] = io.chunks_decoded;
    /* statistics only: a failed reduction leaves this rank's own numbers */
    (void)MPI_Reduce(p->rank == 0 ? MPI_IN_PLACE : t, t, 8, MPI_DOUBLE, MPI_SUM, 0, p->comm);
    (void)MPI_Reduce(p->rank == 0 ? MPI_IN_PLACE : c, c, 11, MPI_INT64_T, MPI_SUM, 0, p->comm);
    if (p->rank != 0 || !out) return;
    const axb_kernel_job *j = p->job;
    *out = (axb_kernel_stats){.cells = ncell,
                              .cells_computed = ncomputed,
                              .kernels = j->nkernels,
                              .columns = p->ncol,
                              .channels = p->nchan,
                              .ranks = p->size,
                              .receivers = j->nreceivers,
                              .points = c[0],
                              .channel_points = c[1],
                              .channel_cells_skipped = c[2],
                              .read_calls = {c[3], c[4]},
                              .element_reads = {c[5], c[6]},
                              .bytes_read = {c[7], c[8]},
                              .chunks_decoded = {c[9], c[10]},
                              .t_locate = t[0],
                              .t_read = t[1],
                              .t_strain = t[2],
                              .t_fft = t[3],
                              .t_integrate = t[4],
                              .t_wait = t[5],
                              .t_checkpoint = t[6],
                              .t_total = t[7]};
}

axb_status axb_kernel_run(MPI_Comm comm, const axb_kernel_job *job, const axb_kernel_run_opts *opts,
                          axb_kernel_result *res, axb_error *err)
{
    const axb_kernel_run_opts none = {0};
    const axb_kernel_run_opts *o = opts ? opts : &none;
    AXB_CHECK(err, !o->resume || o->write, AXB_ERR_ARG, "a resume needs the output to be written");
    const double t0 = MPI_Wtime();
    axb_kplan p;
    AXB_TRY(axb_kplan_create(comm, job, o, &p, err));
    const int64_t ncell = p.mesh.ncell, slot = axb_kslot_size(&p);
    /* every rank needs the cells' values only to return them; the output needs them on rank 0 */
    const bool all_slots = p.rank == 0 || res != NULL;
    uint8_t *done = calloc((size_t)ncell, 1);
    double *slots = all_slots ? calloc((size_t)(ncell * slot), sizeof *slots) : NULL;
    axb_status st = done && (!all_slots || slots)
        ? AXB_OK
        : axb_error_set(err, AXB_ERR_NOMEM, "kernel values of %lld cells", (long long)ncell);
    axb_kstore store = {.fd = -1};
    int64_t ndone = 0;
    if (!st && p.rank == 0 && o->write) st = begin(&p, o, &store, done, slots, &ndone, err);
    st = axb_agree(comm, st, err);
    if (!st) AXB_MPI_CHECK(st, err, MPI_Bcast(done, (int)ncell, MPI_UINT8_T, 0, comm), "sharing the finished cells");
    st = axb_agree(comm, st, err);
    axb_kstats ks = {0};
    if (!st)
        st = axb_kernel_work(&p, done, p.rank == 0 && o->write ? &store : NULL, slots,
                             o->checkpoint_seconds > 0 ? o->checkpoint_seconds : 20.0, o->progress, &ks, err);
    if (!st && res && slots)
        AXB_MPI_CHECK(st, err, MPI_Bcast(slots, (int)(ncell * slot), MPI_DOUBLE, 0, comm), "sharing the kernel values");
    st = axb_agree(comm, st, err);
    axb_kernel_result r = {0};
    if (!st && slots) st = assemble(&p, slots, &r, err);
    st = axb_agree(comm, st, err);
    if (!st) {
        r.seconds = MPI_Wtime() - t0;
        if (p.rank == 0 && o->write) {
            char xdmf[AXB_PATH_MAX];
            st = xdmf_path(&p, xdmf, err);
            if (!st) st = axb_kstore_publish(&store, xdmf, job, &r, err);
        }
        st = axb_agree(comm, st, err);
    }
    if (!st) {
        int64_t computed = 0;
        for (int64_t c = 0; c < ncell; c++) computed += !done[c];
        sum_stats(&p, &ks, MPI_Wtime() - t0, ncell, computed, o->stats);
        if (p.rank == 0 && o->stats) o->stats->seconds = MPI_Wtime() - t0;
    }
    if (p.rank == 0) axb_kstore_close(&store);
    free(done);
    free(slots);
    axb_kplan_free(&p);
    if (!st && res)
        *res = r;
    else
        axb_kernel_result_free(&r);
    return st;
}
