/* How the cells of a kernel job are shared and checkpointed (docs/kernels.md §12).
 *
 * Order: cells that hold the source or a receiver first, one per batch (they take up to
 * AXB_KERNEL_ENDPOINT_FACTOR times the points, so they are spread over the ranks first), then the
 * others along a 3-D Hilbert curve, in batches of consecutive cells. The curve runs through the
 * space the databases see, not the Earth's: (distance from the source, radius, distance from the
 * first kernel's receiver) of each cell's centre. A database is axisymmetric about its pole, so
 * which of its elements a point needs depends on just its distance from the pole and its radius:
 * a batch compact in these coordinates needs few forward elements and few of that receiver's, the
 * next batch of the same rank tends to reuse them from the cache, and the two cells mirrored in
 * the source-receiver plane, which need the same elements, are neighbours on the curve. (Measured
 * on the full-space sum-rule job: half the element reads of a Hilbert curve through the cells'
 * Cartesian centres.) Each rank takes a contiguous run of the curve (1/size of its batches), so
 * its consecutive batches are neighbours and share elements: round-robin batches read 20-30 %
 * more elements on 2 ranks than on one.
 *
 * Rounds: every rank runs some batches of its own, then all meet at a checkpoint: a status
 * agreement (a failure on one rank stops all), the finished cells' slots gathered on rank 0,
 * written and recorded there (kernel_checkpoint.c), one progress line, and the balance: a rank
 * whose run is used up takes the back half of the longest remaining one. A round lasts
 * round_seconds on every rank's own clock (batches differ in cost by orders of magnitude, so equal
 * batch counts per round made ranks wait 25 % of the time on the benchmark), shorter near the end
 * so that ranks run dry at a checkpoint; the stats' "wait" is what remains. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/agree.h"
#include "core/mpi_check.h"
#include "core/progress.h"
#include "engines/kernel_internal.h"
#include "numerics/space_order.h"

/* the round buffer of one rank stays below this */
#define ROUND_BYTES_MAX ((int64_t)256 << 20)

typedef struct work {
    /* this rank's end-point cells, one batch each, run first */
    int64_t nend, end_pos;
    int64_t *ends;
    /* every rank's list: the other cells in curve order, batch after batch */
    int64_t nbatch;
    int64_t *start; /* [nbatch + 1] into cells */
    int64_t *cells;
    int64_t lo, hi; /* this rank's batches [lo, hi) */
} work;

/* Angle (radians) between two Earth-centred vectors. */
static double angle(const double *a, const double *b)
{
    const double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    return atan2(sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
}

/* The cell's place as the databases see it (m): arc from the source, radius, arc from the
 * first channel's receiver, both arcs at the Earth's radius so the axes weigh alike. */
static void database_coords(const axb_kplan *p, const double *x, double *key)
{
    const double R = p->fwd.info->planet_radius;
    const double *xr = p->rec_xyz[p->chan[0].receiver];
    key[0] = R * angle(x, p->src_xyz);
    key[1] = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    key[2] = R * angle(x, xr);
}

/* The work lists: this rank's end-point cells (dealt round robin) and every rank's batches of
 * the other cells not done yet, with this rank's share, a contiguous run of the curve. */
static axb_status deal(const axb_kplan *p, const uint8_t *done, work *w, axb_error *err)
{
    const int64_t ncell = p->mesh.ncell, per = p->cells_per_batch;
    double *centre = calloc((size_t)(ncell > 0 ? ncell : 1) * 3, sizeof *centre);
    int64_t *order = malloc((size_t)(ncell > 0 ? ncell : 1) * sizeof *order);
    uint8_t *ends = malloc((size_t)(ncell > 0 ? ncell : 1));
    w->ends = malloc((size_t)(ncell > 0 ? ncell : 1) * sizeof *w->ends);
    w->cells = malloc((size_t)(ncell > 0 ? ncell : 1) * sizeof *w->cells);
    w->start = malloc((size_t)(ncell + 1) * sizeof *w->start);
    axb_status st = centre && order && ends && w->ends && w->cells && w->start
        ? AXB_OK
        : axb_error_set(err, AXB_ERR_NOMEM, "work list of %lld cells", (long long)ncell);
    for (int64_t c = 0; !st && c < ncell; c++) {
        double x[3];
        axb_invmesh_cell_centre(&p->mesh, c, x);
        database_coords(p, x, centre + 3 * c);
        ends[c] = axb_kcell_has_endpoint(p, c);
    }
    if (!st) st = axb_hilbert3_order(ncell, centre, order, err);
    if (!st) {
        int64_t k = 0;
        for (int64_t c = 0; c < ncell; c++)
            if (!done[c] && ends[c] && k++ % p->size == p->rank) w->ends[w->nend++] = c;
        int64_t n = 0;
        for (int64_t i = 0; i < ncell; i++) {
            const int64_t c = order[i];
            if (done[c] || ends[c]) continue;
            if (n % per == 0) w->start[w->nbatch++] = n;
            w->cells[n++] = c;
        }
        w->start[w->nbatch] = n;
        w->lo = w->nbatch * p->rank / p->size;
        w->hi = w->nbatch * (p->rank + 1) / p->size;
    }
    free(centre);
    free(order);
    free(ends);
    return st;
}

/* At a checkpoint: a rank with nothing left takes the back half of the longest remaining run
 * (every rank computes the same from the same gathered ranges, so no rank is told anything).
 * Each cell's values depend on the cell alone, so this changes no result. Returns in *next the
 * length of the next round: round_seconds, or less when the rank with the least work left would
 * run dry before (at the ranks' mean rate of the last round), so that ranks run dry at a
 * checkpoint, where they get work, not in the middle of a round. */
static axb_status rebalance(const axb_kplan *p, work *w, int64_t nbatch_round, double round_time, double round_seconds,
                            double *next, axb_error *err)
{
    int64_t mine[4] = {w->lo, w->hi, w->nend - w->end_pos, nbatch_round};
    int64_t *all = malloc((size_t)p->size * 4 * sizeof *all);
    axb_status st = all ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "work ranges");
    st = axb_agree(p->comm, st, err);
    if (st) {
        free(all);
        return st;
    }
    AXB_MPI_CHECK(st, err, MPI_Allgather(mine, 4, MPI_INT64_T, all, 4, MPI_INT64_T, p->comm), "sharing work ranges");
    st = axb_agree(p->comm, st, err);
    for (int i = 0; !st && i < p->size; i++) {
        int64_t *ri = all + 4 * i;
        if (ri[1] > ri[0] || ri[2] > 0) continue;
        int q = -1;
        for (int j = 0; j < p->size; j++)
            if (q < 0 || all[4 * j + 1] - all[4 * j] > all[4 * q + 1] - all[4 * q]) q = j;
        int64_t *rq = all + 4 * q;
        if (rq[1] - rq[0] < 2) continue;
        const int64_t mid = rq[0] + (rq[1] - rq[0] + 1) / 2;
        ri[0] = mid;
        ri[1] = rq[1];
        rq[1] = mid;
    }
    int64_t fewest = INT64_MAX, batches = 0, working = 0;
    for (int i = 0; !st && i < p->size; i++) {
        const int64_t left = all[4 * i + 1] - all[4 * i] + all[4 * i + 2];
        if (left > 0 && left < fewest) fewest = left;
        batches += all[4 * i + 3];
        working += all[4 * i + 3] > 0;
    }
    /* the same on every rank: rank 0's round time (all ranks end a round within one batch) */
    double t = round_time;
    if (!st) AXB_MPI_CHECK(st, err, MPI_Bcast(&t, 1, MPI_DOUBLE, 0, p->comm), "round length");
    st = axb_agree(p->comm, st, err);
    if (!st) {
        w->lo = all[4 * p->rank];
        w->hi = all[4 * p->rank + 1];
        const double rate = working && t > 0 ? (double)batches / (double)working / t : 0;
        *next = round_seconds;
        if (rate > 0 && fewest < INT64_MAX) *next = fmin(round_seconds, fmax(0.05, (double)fewest / rate));
    }
    free(all);
    return st;
}

typedef struct round_buf {
    int64_t cap; /* cells */
    int64_t n;
    int64_t *cell; /* [cap] */
    double *slot;  /* [cap][slot] */
} round_buf;

static axb_status round_reserve(round_buf *r, int64_t cells, int64_t slot, axb_error *err)
{
    if (cells <= r->cap) return AXB_OK;
    int64_t *c = realloc(r->cell, (size_t)cells * sizeof *c);
    AXB_CHECK(err, c, AXB_ERR_NOMEM, "kernel round of %lld cells", (long long)cells);
    r->cell = c;
    double *s = realloc(r->slot, (size_t)(cells * slot) * sizeof *s);
    AXB_CHECK(err, s, AXB_ERR_NOMEM, "kernel round of %lld cells", (long long)cells);
    r->slot = s;
    r->cap = cells;
    return AXB_OK;
}

/* Rank 0 receives every rank's finished cells of the round, keeps their slots and checkpoints
 * them; *total: the cells finished in the round (on rank 0). Every step that can fail on one rank
 * is agreed on before the next collective call. */
static axb_status exchange(const axb_kplan *p, round_buf *r, axb_kstore *store, double *slots, int64_t *total,
                           axb_error *err)
{
    const int64_t slot = axb_kslot_size(p);
    int *counts = NULL, *displs = NULL;
    int64_t *ids = NULL;
    double *vals = NULL;
    const int n = (int)r->n;
    int64_t all = 0;
    axb_status st = AXB_OK;
    if (p->rank == 0) {
        counts = malloc((size_t)p->size * sizeof *counts);
        displs = malloc((size_t)p->size * sizeof *displs);
        if (!counts || !displs) st = axb_error_set(err, AXB_ERR_NOMEM, "checkpoint gather");
    }
    st = axb_agree(p->comm, st, err);
    if (!st)
        AXB_MPI_CHECK(st, err, MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, p->comm), "gathering finished cells");
    if (!st && p->rank == 0) {
        for (int q = 0; q < p->size; q++) {
            displs[q] = (int)all;
            all += counts[q];
        }
        ids = malloc((size_t)(all ? all : 1) * sizeof *ids);
        vals = malloc((size_t)(all ? all * slot : 1) * sizeof *vals);
        if (!ids || !vals) st = axb_error_set(err, AXB_ERR_NOMEM, "checkpoint of %lld cells", (long long)all);
    }
    st = axb_agree(p->comm, st, err);
    if (!st) {
        AXB_MPI_CHECK(st, err, MPI_Gatherv(r->cell, n, MPI_INT64_T, ids, counts, displs, MPI_INT64_T, 0, p->comm),
                      "gathering finished cells");
        /* the same counts in doubles: the round's bound keeps them below INT_MAX */
        if (p->rank == 0)
            for (int q = 0; q < p->size; q++) {
                counts[q] *= (int)slot;
                displs[q] *= (int)slot;
            }
        AXB_MPI_CHECK(st, err,
                      MPI_Gatherv(r->slot, n * (int)slot, MPI_DOUBLE, vals, counts, displs, MPI_DOUBLE, 0, p->comm),
                      "gathering cell values");
    }
    if (!st && p->rank == 0) {
        for (int64_t i = 0; i < all; i++) memcpy(slots + ids[i] * slot, vals + i * slot, (size_t)slot * sizeof *vals);
        if (store) st = axb_kstore_add(store, all, ids, vals, err);
    }
    free(counts);
    free(displs);
    free(ids);
    free(vals);
    *total = all;
    r->n = 0;
    return axb_agree(p->comm, st, err);
}

axb_status axb_kernel_work(axb_kplan *p, const uint8_t *done, axb_kstore *store, double *slots, double round_seconds,
                           FILE *progress, axb_kstats *ks, axb_error *err)
{
    const int64_t slot = axb_kslot_size(p), per = p->cells_per_batch;
    work w = {0};
    round_buf r = {0};
    axb_kbatch *b = NULL;
    axb_status st = deal(p, done, &w, err);
    if (!st) st = axb_kbatch_create(p, &b, err);
    st = axb_agree(p->comm, st, err);
    int64_t todo = 0;
    for (int64_t c = 0; c < p->mesh.ncell; c++) todo += !done[c];
    axb_progress prog;
    axb_progress_start(&prog, p->rank == 0 ? progress : NULL, "kernel", "cells", todo);
    prog.rate2_unit = "kernels";
    prog.rate2_per_unit = (double)p->job->nkernels / (double)(p->mesh.ncell > 0 ? p->mesh.ncell : 1);
    /* a round's cells stay below the buffer bound and rank 0's gather counts below INT_MAX */
    int64_t cap = ROUND_BYTES_MAX / (slot * 8);
    const int64_t cap_int = (int64_t)INT_MAX / ((int64_t)p->size * slot);
    if (cap_int < cap) cap = cap_int;
    if (!st && cap < per + 1)
        st = axb_error_set(err, AXB_ERR_RANGE, "%lld values per cell are too many to gather (%d ranks)",
                           (long long)slot, p->size);
    int64_t finished = 0;
    /* rounds end on each rank's own clock: every rank reaches the checkpoint within one batch of
     * the others, whatever its batches cost; the first round is short for an early progress line */
    double length = fmin(round_seconds, 2.0);
    while (!st) {
        const double t0 = MPI_Wtime();
        int64_t nb = 0;
        axb_status mine = AXB_OK;
        while (!mine && (w.end_pos < w.nend || w.lo < w.hi) && r.n + per <= cap &&
               (nb == 0 || MPI_Wtime() - t0 < length)) {
            const int64_t *cells = w.ends + w.end_pos;
            int64_t n = 1;
            if (w.end_pos < w.nend) {
                w.end_pos++;
            } else {
                cells = w.cells + w.start[w.lo];
                n = w.start[w.lo + 1] - w.start[w.lo];
                w.lo++;
            }
            mine = round_reserve(&r, r.n + n, slot, err);
            if (!mine) mine = axb_kbatch_run(p, b, (int)n, cells, r.slot + r.n * slot, ks, err);
            if (!mine) {
                memcpy(r.cell + r.n, cells, (size_t)n * sizeof *r.cell);
                r.n += n;
                nb++;
            }
        }
        const double t1 = MPI_Wtime();
        int64_t left = (w.nend - w.end_pos) + (w.hi - w.lo);
        st = axb_agree_sum(p->comm, mine, &left, err);
        const double t2 = MPI_Wtime();
        ks->t_wait += t2 - t1;
        int64_t got = 0;
        if (!st) st = exchange(p, &r, store, slots, &got, err);
        finished += got;
        ks->t_checkpoint += MPI_Wtime() - t2;
        if (st || left == 0) {
            if (!st) axb_progress_update(&prog, finished, -1, -1, true);
            break;
        }
        axb_progress_update(&prog, finished, -1, -1, false);
        st = rebalance(p, &w, nb, t1 - t0, round_seconds, &length, err);
    }
    axb_kbatch_free(b);
    free(w.ends);
    free(w.cells);
    free(w.start);
    free(r.cell);
    free(r.slot);
    return st;
}
