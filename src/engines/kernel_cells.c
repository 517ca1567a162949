/* Quasi-Monte Carlo integration of the kernels over this rank's cells (docs/kernels.md §8).
 * Cells go in batches; one step draws the next points of every unfinished cell of the batch,
 * evaluates the forward field at all of them (elements read once per step), then per backward
 * channel the backward field, the spectral products and every kernel of that channel. A cell's
 * points depend on the cell alone, so its result does not depend on the batch or the rank. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/geometry.h"
#include "core/progress.h"
#include "engines/kernel_internal.h"
#include "numerics/mc_estimate.h"
#include "numerics/qmc.h"

#define CELLS_PER_BATCH_MAX 64

typedef struct kpoint {
    int cell;    /* index in the batch */
    double x[3]; /* Earth-Cartesian, m */
    double w[4]; /* hat weights (tetrahedra) */
    axb_kmodel model;
    axb_kloc loc;
} kpoint;

/* Scratch of one batch. */
typedef struct kbatch {
    int ncell;
    int64_t cell[CELLS_PER_BATCH_MAX];
    bool done[CELLS_PER_BATCH_MAX];
    bool endpoint[CELLS_PER_BATCH_MAX]; /* holds the source or a receiver (not masked) */
    int64_t n[CELLS_PER_BATCH_MAX];
    double vol[CELLS_PER_BATCH_MAX];
    axb_mc_estimate *est; /* [cell][basis][col] */
    bool *masked;         /* [cell][col] */
    kpoint *pts;
    int npts;
    int64_t *elems;
    double complex *Fs, *Us;  /* forward spectra [pt][6][nf], [pt][3][nf] */
    double complex *Bs, *Ubs; /* one point's backward spectra [6][nf], [3][nf] */
    double complex *P;        /* [AXB_BK_COUNT][nf] */
    double *E, *U, *rbuf;     /* [6][nt], [3][nt], fftw_malloc'd [nfft] */
    double *f;                /* [ncol] integrand of one point */
} kbatch;

static void batch_free(kbatch *b)
{
    free(b->est);
    free(b->masked);
    free(b->pts);
    free(b->elems);
    free(b->Fs);
    free(b->Us);
    free(b->Bs);
    free(b->Ubs);
    free(b->P);
    free(b->E);
    free(b->U);
    fftw_free(b->rbuf);
    free(b->f);
}

static axb_status batch_alloc(const axb_kplan *p, int nbasis, int cells, kbatch *b, axb_error *err)
{
    memset(b, 0, sizeof *b);
    const int64_t np = p->points_per_batch, nf = p->nf, nt = p->nt;
    const bool rho = p->base_fwd & 1u << AXB_BK_RHO;
    b->est = calloc((size_t)cells * nbasis * p->ncol, sizeof *b->est);
    b->masked = calloc((size_t)cells * p->ncol, sizeof *b->masked);
    b->pts = calloc((size_t)np, sizeof *b->pts);
    b->elems = calloc((size_t)np, sizeof *b->elems);
    b->Fs = malloc((size_t)(np * 6 * nf) * sizeof *b->Fs);
    b->Us = rho ? malloc((size_t)(np * 3 * nf) * sizeof *b->Us) : NULL;
    b->Bs = malloc((size_t)(6 * nf) * sizeof *b->Bs);
    b->Ubs = malloc((size_t)(3 * nf) * sizeof *b->Ubs);
    b->P = malloc((size_t)(AXB_BK_COUNT * nf) * sizeof *b->P);
    b->E = malloc((size_t)(6 * nt) * sizeof *b->E);
    b->U = malloc((size_t)(3 * nt) * sizeof *b->U);
    b->rbuf = fftw_malloc((size_t)p->nfft * sizeof *b->rbuf);
    b->f = calloc((size_t)p->ncol, sizeof *b->f);
    if (!b->est || !b->masked || !b->pts || !b->elems || !b->Fs || (rho && !b->Us) || !b->Bs || !b->Ubs || !b->P ||
        !b->E || !b->U || !b->rbuf || !b->f) {
        batch_free(b);
        return axb_error_set(err, AXB_ERR_NOMEM, "kernel batch of %lld points", (long long)np);
    }
    return AXB_OK;
}

/* Spectra of n traces of nt samples (zero-padded to nfft). */
static void spectra(const axb_kplan *p, kbatch *b, int n, const double *x, double complex *out)
{
    for (int c = 0; c < n; c++) {
        memcpy(b->rbuf, x + c * p->nt, (size_t)p->nt * sizeof *b->rbuf);
        memset(b->rbuf + p->nt, 0, (size_t)(p->nfft - p->nt) * sizeof *b->rbuf);
        fftw_execute_dft_r2c(p->r2c, b->rbuf, out + c * p->nf);
    }
}

/* Background model at a located point of the forward mesh: the nearest stored point's values
 * (1-D models are constant along the element's radius between GLL points only up to the mesh's
 * own sampling; docs/kernels.md §6). */
static void model_at(const axb_kdb *k, const axb_kloc *loc, axb_kmodel *m)
{
    const axb_mesh *me = k->mesh;
    const int np1 = k->np1;
    const int i = (int)lround((loc->xi + 1) * 0.5 * (np1 - 1)), j = (int)lround((loc->eta + 1) * 0.5 * (np1 - 1));
    const int ii = i < 0 ? 0 : i >= np1 ? np1 - 1 : i, jj = j < 0 ? 0 : j >= np1 ? np1 - 1 : j;
    const int64_t q = me->sem[(loc->elem * np1 + jj) * np1 + ii];
    axb_kmodel_from_axisem(me->vp[q], me->vs[q], me->rho[q], me->xi ? me->xi[q] : 1.0, me->phi ? me->phi[q] : 1.0,
                           me->eta ? me->eta[q] : 1.0, m);
}

static double dist(const double *a, const double *b)
{
    const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* Draws the next points of every unfinished cell and evaluates the forward field there. */
static axb_status forward_step(axb_kplan *p, kbatch *b, axb_error *err)
{
    const axb_kernel_job *j = p->job;
    const int pps = j->points_per_step;
    const axb_qmc_kind kind = j->points == AXB_KPOINTS_SOBOL ? AXB_QMC_SOBOL : AXB_QMC_HALTON;
    b->npts = 0;
    for (int c = 0; c < b->ncell; c++) {
        if (b->done[c]) continue;
        for (int i = 0; i < pps; i++) {
            kpoint *pt = b->pts + b->npts++;
            double q[3];
            axb_qmc_point(kind, (uint64_t)(b->n[c] + i), q);
            pt->cell = c;
            axb_invmesh_map_point(&p->mesh, b->cell[c], q, pt->x, pt->w);
            AXB_TRY_CTX(err, axb_kdb_locate(&p->fwd, p->src_lon, p->src_colat, pt->x, &pt->loc, err), "cell %lld",
                        (long long)b->cell[c]);
            b->elems[b->npts - 1] = pt->loc.elem;
        }
    }
    AXB_TRY(axb_kdb_prepare(&p->fwd, b->npts, b->elems, err));
    double Rs[3][3];
    axb_geo_local_basis(p->src_lon, p->src_colat, Rs);
    const bool rho = b->Us != NULL;
    for (int i = 0; i < b->npts; i++) {
        kpoint *pt = b->pts + i;
        double Q[3][3];
        axb_k_local_rotation(Rs, pt->loc.phi, pt->x, Q);
        axb_kdb_forward_field(&p->fwd, &pt->loc, j->event.m, Q, b->E, rho ? b->U : NULL);
        spectra(p, b, 6, b->E, b->Fs + (int64_t)i * 6 * p->nf);
        if (rho) spectra(p, b, 3, b->U, b->Us + (int64_t)i * 3 * p->nf);
        model_at(&p->fwd, &pt->loc, &pt->model);
    }
    return AXB_OK;
}

/* The kernels of channel ch at every point of the step, added to the cells' estimates. */
static axb_status channel_step(axb_kplan *p, kbatch *b, int ch, int nbasis, axb_error *err)
{
    const axb_kernel_job *j = p->job;
    const axb_kchannel *chan = p->chan + ch;
    const axb_receiver *rc = j->receivers + chan->receiver;
    const double rlon = rc->lon, rcolat = 90.0 - rc->lat;
    axb_kloc *locs = malloc((size_t)b->npts * sizeof *locs);
    AXB_CHECK(err, locs, AXB_ERR_NOMEM, "kernel step");
    axb_status st = AXB_OK;
    for (int i = 0; !st && i < b->npts; i++) {
        st = axb_kdb_locate(&p->bwd, rlon, rcolat, b->pts[i].x, locs + i, err);
        b->elems[i] = locs[i].elem;
    }
    if (!st) st = axb_kdb_prepare(&p->bwd, b->npts, b->elems, err);
    if (st) {
        free(locs);
        return st;
    }
    unsigned want = 0;
    for (int k = 0; k < j->nkernels; k++)
        if (p->meas[k].channel == ch) want |= p->meas[k].base;
    const bool rho = want & 1u << AXB_BK_RHO;
    double Rr[3][3];
    axb_geo_local_basis(rlon, rcolat, Rr);
    const double *xr = p->rec_xyz[chan->receiver];
    for (int i = 0; i < b->npts; i++) {
        const kpoint *pt = b->pts + i;
        double Q[3][3];
        axb_k_local_rotation(Rr, locs[i].phi, pt->x, Q);
        axb_kdb_backward_field(&p->bwd, locs + i, chan->n, Q, b->E, rho ? b->U : NULL);
        spectra(p, b, 6, b->E, b->Bs);
        if (rho) spectra(p, b, 3, b->U, b->Ubs);
        axb_kernel_products(p->nf, b->Fs + (int64_t)i * 6 * p->nf, rho ? b->Us + (int64_t)i * 3 * p->nf : NULL, b->Bs,
                            b->Ubs, p->omega2, want, b->P);
        double damp = 1.0;
        if (j->damp_radius > 0)
            damp = fmin(1.0, dist(pt->x, p->src_xyz) / j->damp_radius) * fmin(1.0, dist(pt->x, xr) / j->damp_radius);
        const int c = pt->cell;
        for (int k = 0; k < j->nkernels; k++) {
            const axb_kmeas *m = p->meas + k;
            if (m->channel != ch) continue;
            double kb[AXB_BK_COUNT] = {0};
            axb_kernel_dot(p->nf, b->P, m->G, m->base, kb);
            for (int q = 0; q < m->ncol; q++) {
                const int col = m->first_col + q;
                const double v = damp * axb_kparam_value(p->col[col].param, kb, &pt->model, !j->absolute);
                for (int e = 0; e < nbasis; e++) {
                    const double f = nbasis > 1 ? v * pt->w[e] : v;
                    axb_mc_add(b->est + ((int64_t)c * nbasis + e) * p->ncol + col, 1, &f);
                }
            }
        }
    }
    free(locs);
    return AXB_OK;
}

/* Marks the columns a cell must not integrate (its kernels' receiver or the source inside it,
 * when masking) and whether it holds an end point at all: there the fields are nearly singular
 * and the integrand's variance large, so such cells get AXB_KERNEL_ENDPOINT_FACTOR times the
 * points. */
static void set_masks(const axb_kplan *p, kbatch *b, int c)
{
    bool *mk = b->masked + (int64_t)c * p->ncol;
    memset(mk, 0, (size_t)p->ncol * sizeof *mk);
    const bool src = axb_invmesh_contains(&p->mesh, b->cell[c], p->src_xyz);
    bool any = src;
    for (int col = 0; col < p->ncol; col++) {
        const int64_t r = p->job->kernels[p->col[col].kernel].receiver;
        const bool hit = src || axb_invmesh_contains(&p->mesh, b->cell[c], p->rec_xyz[r]);
        any = any || hit;
        mk[col] = p->job->mask_source_receiver && hit;
    }
    bool all_masked = true;
    for (int col = 0; col < p->ncol; col++) all_masked = all_masked && mk[col];
    b->endpoint[c] = any && !all_masked;
}

/* Converged when every unmasked estimate of the cell meets the tolerances. */
static bool cell_converged(const axb_kplan *p, const kbatch *b, int c, int nbasis)
{
    const axb_kernel_job *j = p->job;
    if (b->n[c] >= (b->endpoint[c] ? AXB_KERNEL_ENDPOINT_FACTOR : 1) * j->max_points) return true;
    /* the whole mesh's error budget shared so that the cells' errors, added in quadrature, stay
     * within abs_error: σ_c < abs_error·√(V_c/V_mesh), i.e. per unit volume abs_error/√(V_c·V_mesh) */
    const axb_mc_tolerance tol = {j->abs_error / sqrt(b->vol[c] * p->vmesh), j->rel_error, j->min_points};
    for (int e = 0; e < nbasis; e++)
        for (int col = 0; col < p->ncol; col++) {
            if (b->masked[(int64_t)c * p->ncol + col]) continue;
            if (!axb_mc_converged(b->est + ((int64_t)c * nbasis + e) * p->ncol + col, b->vol[c], &tol)) return false;
        }
    return true;
}

static void store_cell(const axb_kplan *p, const kbatch *b, int c, int nbasis, axb_kcells *out)
{
    const int64_t cell = b->cell[c];
    out->points[cell] = b->n[c];
    for (int e = 0; e < nbasis; e++)
        for (int col = 0; col < p->ncol; col++) {
            const axb_mc_estimate *es = b->est + ((int64_t)c * nbasis + e) * p->ncol + col;
            const int64_t o = (cell * nbasis + e) * p->ncol + col;
            const bool masked = b->masked[(int64_t)c * p->ncol + col];
            out->value[o] = masked ? 0.0 : axb_mc_integral(es, b->vol[c]);
            out->error[o] = masked ? 0.0 : axb_mc_error(es, b->vol[c]);
        }
}

static axb_status run_batch(axb_kplan *p, kbatch *b, int nbasis, axb_kcells *out, axb_error *err)
{
    for (int c = 0; c < b->ncell; c++) {
        b->done[c] = false;
        b->n[c] = 0;
        b->vol[c] = axb_invmesh_cell_volume(&p->mesh, b->cell[c]);
        memset(b->est + (int64_t)c * nbasis * p->ncol, 0, (size_t)nbasis * p->ncol * sizeof *b->est);
        set_masks(p, b, c);
    }
    for (;;) {
        int active = 0;
        for (int c = 0; c < b->ncell; c++) active += !b->done[c];
        if (!active) return AXB_OK;
        AXB_TRY(forward_step(p, b, err));
        for (int ch = 0; ch < p->nchan; ch++) AXB_TRY(channel_step(p, b, ch, nbasis, err));
        for (int c = 0; c < b->ncell; c++) {
            if (b->done[c]) continue;
            b->n[c] += p->job->points_per_step;
            if (cell_converged(p, b, c, nbasis)) {
                b->done[c] = true;
                store_cell(p, b, c, nbasis, out);
            }
        }
    }
}

axb_status axb_kernel_cells(axb_kplan *p, axb_kcells *out, FILE *progress, axb_error *err)
{
    const int64_t ncell = p->mesh.ncell;
    const int nbasis = p->job->per_vertex ? 4 : 1;
    AXB_CHECK(err, p->job->points_per_step >= 1 && p->job->max_points >= p->job->points_per_step, AXB_ERR_ARG,
              "points-per-step must be at least 1 and max-points at least points-per-step");
    int cells = p->points_per_batch / p->job->points_per_step;
    if (cells > CELLS_PER_BATCH_MAX) cells = CELLS_PER_BATCH_MAX;
    if (cells < 1) cells = 1;
    out->nbasis = nbasis;
    out->value = calloc((size_t)(ncell * nbasis * p->ncol), sizeof *out->value);
    out->error = calloc((size_t)(ncell * nbasis * p->ncol), sizeof *out->error);
    out->points = calloc((size_t)ncell, sizeof *out->points);
    AXB_CHECK(err, out->value && out->error && out->points, AXB_ERR_NOMEM, "kernel values of %lld cells",
              (long long)ncell);
    kbatch b;
    AXB_TRY(batch_alloc(p, nbasis, cells, &b, err));
    /* round robin: the expensive cells near the source and receivers spread over the ranks */
    const int64_t mine = ncell / p->size + (p->rank < ncell % p->size);
    axb_progress prog;
    axb_progress_start(&prog, p->rank == 0 ? progress : NULL, "kernel", "cells (rank 0)", mine);
    axb_status st = AXB_OK;
    int64_t done = 0;
    for (int64_t c0 = p->rank; !st && c0 < ncell; c0 += (int64_t)cells * p->size) {
        b.ncell = 0;
        for (int64_t c = c0; c < ncell && b.ncell < cells; c += p->size) b.cell[b.ncell++] = c;
        st = run_batch(p, &b, nbasis, out, err);
        done += b.ncell;
        const double mb = (double)(p->fwd.elements_read * axb_db_block_floats(p->fwd.db) +
                                   p->bwd.elements_read * axb_db_block_floats(p->bwd.db)) *
            4.0 / 1e6;
        axb_progress_update(&prog, done, mb, -1, done == mine);
    }
    batch_free(&b);
    return st;
}
