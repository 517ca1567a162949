/* Quasi-Monte Carlo integration of the kernels over a batch of cells (docs/kernels.md §8). One
 * step draws the next points of every unfinished cell of the batch, evaluates the forward field at
 * all of them (elements read once per step), then per backward channel the backward field, the
 * spectral products and every kernel of that channel, at the points of the cells where the
 * channel is still needed: not skipped by the travel-time rule and not yet converged. A cell's
 * points depend on the cell alone, so its result does not depend on the batch or the rank. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/timefmt.h"
#include "axibulk/geometry.h"
#include "engines/kernel_internal.h"
#include "numerics/mc_estimate.h"
#include "numerics/qmc.h"

typedef struct kpoint {
    int cell;    /* index in the batch */
    double x[3]; /* Earth-Cartesian, m */
    double w[4]; /* hat weights (tetrahedra) */
    axb_kmodel model;
    axb_kloc loc;
} kpoint;

/* Scratch of one batch. */
struct axb_kbatch {
    int cap; /* cells it can hold */
    int ncell;
    int64_t cell[AXB_KBATCH_CELLS_MAX];
    bool done[AXB_KBATCH_CELLS_MAX];
    bool endpoint[AXB_KBATCH_CELLS_MAX]; /* holds the source or a receiver (not masked) */
    int64_t n[AXB_KBATCH_CELLS_MAX];
    double vol[AXB_KBATCH_CELLS_MAX];
    axb_mc_estimate *est; /* [cell][basis][col] */
    bool *masked;         /* [cell][col] */
    uint8_t *chan_off;    /* [cell][chan] 1: skipped by the travel-time rule, 2: converged */
    kpoint *pts;
    int npts;
    int64_t *elems;
    double complex *Fs, *Us;  /* forward spectra [pt][6][nf], [pt][3][nf] */
    double complex *Bs, *Ubs; /* one point's backward spectra [6][nf], [3][nf] */
    double complex *P;        /* [AXB_BK_COUNT][nf] */
    double *E, *U, *rbuf;     /* [6][nt], [3][nt], fftw_malloc'd [nfft] */
    double *f;                /* [ncol] integrand of one point */
    axb_kloc *locs;           /* [points] backward locations of one channel's points */
    int *sel;                 /* [points] the points of one channel */
};
typedef struct axb_kbatch kbatch;

static void batch_free(kbatch *b)
{
    free(b->est);
    free(b->masked);
    free(b->chan_off);
    free(b->locs);
    free(b->sel);
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
    b->chan_off = calloc((size_t)cells * p->nchan, sizeof *b->chan_off);
    b->locs = calloc((size_t)np, sizeof *b->locs);
    b->sel = calloc((size_t)np, sizeof *b->sel);
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
    b->cap = cells;
    if (!b->est || !b->masked || !b->chan_off || !b->locs || !b->sel || !b->pts || !b->elems || !b->Fs ||
        (rho && !b->Us) || !b->Bs || !b->Ubs || !b->P || !b->E || !b->U || !b->rbuf || !b->f) {
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
static axb_status forward_step(axb_kplan *p, kbatch *b, axb_kstats *ks, axb_error *err)
{
    const axb_kernel_job *j = p->job;
    const int pps = j->points_per_step;
    const axb_qmc_kind kind = j->points == AXB_KPOINTS_SOBOL ? AXB_QMC_SOBOL : AXB_QMC_HALTON;
    double t = axb_wall_seconds();
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
    ks->points += b->npts;
    ks->t_locate += axb_wall_seconds() - t;
    AXB_TRY(axb_kdb_prepare(&p->fwd, b->npts, b->elems, err));
    double Rs[3][3];
    axb_geo_local_basis(p->src_lon, p->src_colat, Rs);
    const bool rho = b->Us != NULL;
    for (int i = 0; i < b->npts; i++) {
        kpoint *pt = b->pts + i;
        double Q[3][3];
        t = axb_wall_seconds();
        axb_k_local_rotation(Rs, pt->loc.phi, pt->x, Q);
        axb_kdb_forward_field(&p->fwd, &pt->loc, j->event.m, Q, b->E, rho ? b->U : NULL);
        model_at(&p->fwd, &pt->loc, &pt->model);
        const double t1 = axb_wall_seconds();
        spectra(p, b, 6, b->E, b->Fs + (int64_t)i * 6 * p->nf);
        if (rho) spectra(p, b, 3, b->U, b->Us + (int64_t)i * 3 * p->nf);
        ks->t_field += t1 - t;
        ks->t_fft += axb_wall_seconds() - t1;
    }
    return AXB_OK;
}

/* The kernels of channel ch at the points of the cells that still need it, added to the cells'
 * estimates. */
static axb_status channel_step(axb_kplan *p, kbatch *b, int ch, int nbasis, axb_kstats *ks, axb_error *err)
{
    const axb_kernel_job *j = p->job;
    const axb_kchannel *chan = p->chan + ch;
    const axb_receiver *rc = j->receivers + chan->receiver;
    const double rlon = rc->lon, rcolat = 90.0 - rc->lat;
    double t = axb_wall_seconds();
    int nsel = 0;
    for (int i = 0; i < b->npts; i++) {
        const int c = b->pts[i].cell;
        if (b->chan_off[(int64_t)c * p->nchan + ch]) continue;
        AXB_TRY(axb_kdb_locate(&p->bwd, rlon, rcolat, b->pts[i].x, b->locs + nsel, err));
        b->elems[nsel] = b->locs[nsel].elem;
        b->sel[nsel++] = i;
    }
    ks->t_locate += axb_wall_seconds() - t;
    if (nsel == 0) return AXB_OK;
    ks->channel_points += nsel;
    AXB_TRY(axb_kdb_prepare(&p->bwd, nsel, b->elems, err));
    unsigned want = 0;
    for (int k = 0; k < j->nkernels; k++)
        if (p->meas[k].channel == ch) want |= p->meas[k].base;
    const bool rho = want & 1u << AXB_BK_RHO;
    double Rr[3][3];
    axb_geo_local_basis(rlon, rcolat, Rr);
    const double *xr = p->rec_xyz[chan->receiver];
    for (int s = 0; s < nsel; s++) {
        const int i = b->sel[s];
        const kpoint *pt = b->pts + i;
        const axb_kloc *loc = b->locs + s;
        double Q[3][3];
        t = axb_wall_seconds();
        axb_k_local_rotation(Rr, loc->phi, pt->x, Q);
        axb_kdb_backward_field(&p->bwd, loc, chan->n, Q, b->E, rho ? b->U : NULL);
        const double t1 = axb_wall_seconds();
        spectra(p, b, 6, b->E, b->Bs);
        if (rho) spectra(p, b, 3, b->U, b->Ubs);
        const double t2 = axb_wall_seconds();
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
        ks->t_field += t1 - t;
        ks->t_fft += t2 - t1;
        ks->t_integrate += axb_wall_seconds() - t2;
    }
    return AXB_OK;
}

bool axb_kcell_has_endpoint(const axb_kplan *p, int64_t c)
{
    if (axb_invmesh_contains(&p->mesh, c, p->src_xyz)) return true;
    for (int ch = 0; ch < p->nchan; ch++)
        if (axb_invmesh_contains(&p->mesh, c, p->rec_xyz[p->chan[ch].receiver])) return true;
    return false;
}

/* The largest distance from the cell's centre to its vertices, with a margin for the curved faces
 * of voxels. */
static double cell_radius(const axb_invmesh *m, int64_t c, const double *centre)
{
    const int nv = axb_cell_nvert(m->type);
    double r = 0;
    for (int v = 0; v < nv; v++) r = fmax(r, dist(centre, m->vert + 3 * m->cell[c * nv + v]));
    return 1.01 * r;
}

/* Marks the columns a cell must not integrate (its kernels' receiver or the source inside it,
 * when masking) and whether it holds an end point at all: there the fields are nearly singular
 * and the integrand's variance large, so such cells get AXB_KERNEL_ENDPOINT_FACTOR times the
 * points. Then the channels the travel-time rule skips: no point of the cell is close enough to
 * the source and receiver for a wave at vp_max to arrive before the channel's kernels end. */
static void set_masks(const axb_kplan *p, kbatch *b, int c, axb_kstats *ks)
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
    uint8_t *off = b->chan_off + (int64_t)c * p->nchan;
    memset(off, 0, (size_t)p->nchan);
    if (!p->job->travel_time_skip) return;
    double centre[3];
    axb_invmesh_cell_centre(&p->mesh, b->cell[c], centre);
    const double rad = cell_radius(&p->mesh, b->cell[c], centre), ds = dist(centre, p->src_xyz);
    for (int ch = 0; ch < p->nchan; ch++) {
        const double d = ds + dist(centre, p->rec_xyz[p->chan[ch].receiver]) - 2 * rad;
        if (d / p->vp_max > p->chan_t_end[ch]) {
            off[ch] = 1;
            ks->channel_cells_skipped++;
        }
    }
}

static bool column_converged(const axb_kplan *p, const kbatch *b, int c, int nbasis, int col,
                             const axb_mc_tolerance *tol)
{
    if (b->masked[(int64_t)c * p->ncol + col]) return true;
    for (int e = 0; e < nbasis; e++)
        if (!axb_mc_converged(b->est + ((int64_t)c * nbasis + e) * p->ncol + col, b->vol[c], tol)) return false;
    return true;
}

/* Marks the channels whose kernels have all converged in cell c (they get no more points) and
 * tells whether the cell is finished: every channel off, or its point budget spent. */
static bool cell_converged(const axb_kplan *p, kbatch *b, int c, int nbasis)
{
    const axb_kernel_job *j = p->job;
    /* the whole mesh's error budget shared so that the cells' errors, added in quadrature, stay
     * within abs_error: σ_c < abs_error·√(V_c/V_mesh), i.e. per unit volume abs_error/√(V_c·V_mesh) */
    const axb_mc_tolerance tol = {j->abs_error / sqrt(b->vol[c] * p->vmesh), j->rel_error, j->min_points};
    uint8_t *off = b->chan_off + (int64_t)c * p->nchan;
    bool all = true;
    for (int ch = 0; ch < p->nchan; ch++) {
        if (off[ch]) continue;
        bool conv = true;
        for (int k = 0; conv && k < j->nkernels; k++) {
            const axb_kmeas *m = p->meas + k;
            if (m->channel != ch) continue;
            for (int q = 0; conv && q < m->ncol; q++) conv = column_converged(p, b, c, nbasis, m->first_col + q, &tol);
        }
        if (conv)
            off[ch] = 2;
        else
            all = false;
    }
    return all || b->n[c] >= (b->endpoint[c] ? AXB_KERNEL_ENDPOINT_FACTOR : 1) * j->max_points;
}

static void store_cell(const axb_kplan *p, const kbatch *b, int c, int nbasis, double *slot)
{
    const int64_t nv = (int64_t)nbasis * p->ncol;
    slot[0] = (double)b->n[c];
    for (int e = 0; e < nbasis; e++)
        for (int col = 0; col < p->ncol; col++) {
            const axb_mc_estimate *es = b->est + ((int64_t)c * nbasis + e) * p->ncol + col;
            const int64_t o = (int64_t)e * p->ncol + col;
            const bool zero = b->masked[(int64_t)c * p->ncol + col] || es->n == 0;
            slot[1 + o] = zero ? 0.0 : axb_mc_integral(es, b->vol[c]);
            slot[1 + nv + o] = zero ? 0.0 : axb_mc_error(es, b->vol[c]);
        }
}

axb_status axb_kbatch_run(axb_kplan *p, kbatch *b, int n, const int64_t *cells, double *out, axb_kstats *ks,
                          axb_error *err)
{
    const int nbasis = p->job->per_vertex ? 4 : 1;
    const int64_t slot = axb_kslot_size(p);
    AXB_CHECK(err, n >= 0 && n <= b->cap, AXB_ERR_INTERNAL, "kernel batch of %d cells (at most %d)", n, b->cap);
    b->ncell = n;
    for (int c = 0; c < n; c++) {
        b->cell[c] = cells[c];
        b->done[c] = false;
        b->n[c] = 0;
        b->vol[c] = axb_invmesh_cell_volume(&p->mesh, b->cell[c]);
        memset(b->est + (int64_t)c * nbasis * p->ncol, 0, (size_t)nbasis * p->ncol * sizeof *b->est);
        set_masks(p, b, c, ks);
        /* nothing to integrate (every channel skipped): the cell is finished with zeros */
        bool any = false;
        for (int ch = 0; ch < p->nchan; ch++) any = any || !b->chan_off[(int64_t)c * p->nchan + ch];
        if (!any) {
            b->done[c] = true;
            store_cell(p, b, c, nbasis, out + c * slot);
        }
    }
    for (;;) {
        int active = 0;
        for (int c = 0; c < n; c++) active += !b->done[c];
        if (!active) break;
        AXB_TRY(forward_step(p, b, ks, err));
        for (int ch = 0; ch < p->nchan; ch++) AXB_TRY(channel_step(p, b, ch, nbasis, ks, err));
        for (int c = 0; c < n; c++) {
            if (b->done[c]) continue;
            b->n[c] += p->job->points_per_step;
            if (cell_converged(p, b, c, nbasis)) {
                b->done[c] = true;
                store_cell(p, b, c, nbasis, out + c * slot);
            }
        }
    }
    ks->cells += n;
    return AXB_OK;
}

axb_status axb_kbatch_create(const axb_kplan *p, kbatch **out, axb_error *err)
{
    AXB_CHECK(err, p->job->points_per_step >= 1 && p->job->max_points >= p->job->points_per_step, AXB_ERR_ARG,
              "points-per-step must be at least 1 and max-points at least points-per-step");
    const int nbasis = p->job->per_vertex ? 4 : 1;
    int cells = p->cells_per_batch;
    if (cells > AXB_KBATCH_CELLS_MAX) cells = AXB_KBATCH_CELLS_MAX;
    if (cells < 1) cells = 1;
    kbatch *b = malloc(sizeof *b);
    AXB_CHECK(err, b, AXB_ERR_NOMEM, "kernel batch");
    axb_status st = batch_alloc(p, nbasis, cells, b, err);
    if (st) {
        free(b);
        return st;
    }
    *out = b;
    return AXB_OK;
}

void axb_kbatch_free(kbatch *b)
{
    if (!b) return;
    batch_free(b);
    free(b);
}
