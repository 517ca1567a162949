/* `axibulk kernel` as a library call: plan, integrate the cells on every rank, gather the values
 * (each cell has exactly one owner, so a sum over ranks is exact and the result does not depend on
 * the rank count), assemble per-vertex values in cell order, write on rank 0. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/agree.h"
#include "core/mpi_check.h"
#include "engines/kernel_internal.h"

static axb_status gather(const axb_kplan *p, axb_kcells *c, axb_error *err)
{
    const int64_t n = p->mesh.ncell * c->nbasis * p->ncol;
    AXB_MPI_TRY(err, MPI_Allreduce(MPI_IN_PLACE, c->value, (int)n, MPI_DOUBLE, MPI_SUM, p->comm),
                "gathering kernel values");
    AXB_MPI_TRY(err, MPI_Allreduce(MPI_IN_PLACE, c->error, (int)n, MPI_DOUBLE, MPI_SUM, p->comm),
                "gathering kernel errors");
    AXB_MPI_TRY(err, MPI_Allreduce(MPI_IN_PLACE, c->points, (int)p->mesh.ncell, MPI_INT64_T, MPI_SUM, p->comm),
                "gathering point counts");
    return AXB_OK;
}

/* The result in the output's shape: per cell, or per vertex (Σ over the cells sharing a vertex of
 * their hat-function integrals; errors added in quadrature). */
static axb_status assemble(axb_kplan *p, const axb_kcells *c, axb_kernel_result *res, axb_error *err)
{
    const axb_kernel_job *j = p->job;
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
        res->npoints[e] = c->points[e];
        res->volume[e] = axb_invmesh_cell_volume(&p->mesh, e);
        for (int b = 0; b < c->nbasis; b++) {
            const int64_t item = j->per_vertex ? p->mesh.cell[4 * e + b] : e;
            for (int col = 0; col < p->ncol; col++) {
                const int64_t o = (e * c->nbasis + b) * p->ncol + col;
                res->value[col * nitems + item] += c->value[o];
                res->error[col * nitems + item] += c->error[o] * c->error[o];
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

static axb_status write_result(const axb_kplan *p, const axb_kernel_run_opts *o, const axb_kernel_result *res,
                               axb_error *err)
{
    if (p->rank != 0 || !o->write) return AXB_OK;
    char xdmf[AXB_PATH_MAX];
    AXB_TRY(axb_kernel_xdmf_path(p->job->output, xdmf, sizeof xdmf, err));
    return axb_kernel_output_write(p->job->output, xdmf, p->job, res, o->force, err);
}

axb_status axb_kernel_run(MPI_Comm comm, const axb_kernel_job *job, const axb_kernel_run_opts *opts,
                          axb_kernel_result *res, axb_error *err)
{
    const axb_kernel_run_opts none = {false, NULL, false, 0};
    const axb_kernel_run_opts *o = opts ? opts : &none;
    const double t0 = MPI_Wtime();
    axb_kplan p;
    AXB_TRY(axb_kplan_create(comm, job, o, &p, err));
    axb_kcells cells = {0};
    axb_status st = axb_kernel_cells(&p, &cells, o->progress, err);
    st = axb_agree(comm, st, err);
    if (!st) st = gather(&p, &cells, err);
    axb_kernel_result r = {0};
    if (!st) st = assemble(&p, &cells, &r, err);
    st = axb_agree(comm, st, err);
    if (!st) {
        r.seconds = MPI_Wtime() - t0;
        st = axb_agree(comm, write_result(&p, o, &r, err), err);
    }
    free(cells.value);
    free(cells.error);
    free(cells.points);
    axb_kplan_free(&p);
    if (!st && res)
        *res = r;
    else
        axb_kernel_result_free(&r);
    return st;
}
