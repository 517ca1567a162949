/* How the cells of a kernel job are shared and checkpointed (docs/kernels.md §9).
 *
 * Order: cells that hold the source or a receiver first, one per batch (they take up to
 * AXB_KERNEL_ENDPOINT_FACTOR times the points, so they are spread over the ranks first), then the
 * others along a 3-D Hilbert curve of their centres, in batches of consecutive cells: a batch is
 * compact in space, its points fall into few database elements, and the next batch of the same
 * rank tends to reuse them from the cache. Batches are dealt round robin, so every rank gets a mix
 * of the whole mesh and the same number of batches (±1).
 *
 * Rounds: every rank runs some batches of its own, then all meet at a checkpoint: a status
 * agreement (a failure on one rank stops all), the finished cells' slots gathered on rank 0,
 * written and recorded there (kernel_checkpoint.c), one progress line. The number of batches per
 * round adapts so that a round lasts about round_seconds. Ranks that have run out of batches
 * still attend the checkpoints until all have. */
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
    int64_t nbatch;  /* this rank's batches */
    int64_t *start;  /* [nbatch + 1] into cells */
    int64_t *cells;  /* this rank's cells, batch after batch */
} work;

/* This rank's batches of the cells not done yet. */
static axb_status deal(const axb_kplan *p, const uint8_t *done, work *w, axb_error *err)
{
    const int64_t ncell = p->mesh.ncell, per = p->cells_per_batch;
    double *centre = calloc((size_t)(ncell > 0 ? ncell : 1) * 3, sizeof *centre);
    int64_t *order = malloc((size_t)ncell * sizeof *order);
    uint8_t *ends = malloc((size_t)ncell);
    w->cells = malloc((size_t)ncell * sizeof *w->cells);
    w->start = malloc((size_t)(ncell + 1) * sizeof *w->start);
    axb_status st = centre && order && ends && w->cells && w->start
        ? AXB_OK
        : axb_error_set(err, AXB_ERR_NOMEM, "work list of %lld cells", (long long)ncell);
    for (int64_t c = 0; !st && c < ncell; c++) {
        axb_invmesh_cell_centre(&p->mesh, c, centre + 3 * c);
        ends[c] = axb_kcell_has_endpoint(p, c);
    }
    if (!st) st = axb_hilbert3_order(ncell, centre, order, err);
    if (!st) {
        int64_t gb = 0, n = 0; /* global batch index, this rank's cells */
        w->nbatch = 0;
        for (int64_t c = 0; c < ncell; c++) {
            if (done[c] || !ends[c]) continue;
            if (gb++ % p->size != p->rank) continue;
            w->start[w->nbatch++] = n;
            w->cells[n++] = c;
        }
        int64_t fill = 0;
        bool mine = false;
        for (int64_t i = 0; i < ncell; i++) {
            const int64_t c = order[i];
            if (done[c] || ends[c]) continue;
            if (fill == 0) {
                mine = gb++ % p->size == p->rank;
                if (mine) w->start[w->nbatch++] = n;
            }
            if (mine) w->cells[n++] = c;
            fill = (fill + 1) % per;
        }
        w->start[w->nbatch] = n;
    }
    free(centre);
    free(order);
    free(ends);
    return st;
}

typedef struct round_buf {
    int64_t cap;   /* cells */
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
    if (!st) AXB_MPI_CHECK(st, err, MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, p->comm), "gathering finished cells");
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
    /* batches per round: the bound keeps the buffer and rank 0's gather counts in range */
    int64_t kmax = ROUND_BYTES_MAX / (per * slot * 8);
    const int64_t kint = (int64_t)INT_MAX / ((int64_t)p->size * per * slot);
    if (kint < kmax) kmax = kint;
    if (kmax < 1) kmax = 1;
    int64_t k = 1, pos = 0, finished = 0;
    while (!st) {
        const double t0 = MPI_Wtime();
        axb_status mine = round_reserve(&r, k * per, slot, err);
        for (int64_t i = 0; !mine && i < k && pos < w.nbatch; i++, pos++) {
            const int64_t a = w.start[pos], n = w.start[pos + 1] - a;
            mine = axb_kbatch_run(p, b, (int)n, w.cells + a, r.slot + r.n * slot, ks, err);
            if (!mine) {
                memcpy(r.cell + r.n, w.cells + a, (size_t)n * sizeof *r.cell);
                r.n += n;
            }
        }
        const double t1 = MPI_Wtime();
        int64_t left = w.nbatch - pos;
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
        /* rank 0's round time decides for all (every rank waited for the slowest in it) */
        double dt = MPI_Wtime() - t0;
        AXB_MPI_CHECK(st, err, MPI_Bcast(&dt, 1, MPI_DOUBLE, 0, p->comm), "round length");
        st = axb_agree(p->comm, st, err);
        if (!st) {
            const double f = dt > 0 ? round_seconds / dt : 2.0;
            int64_t next = (int64_t)llround((double)k * fmin(2.0, fmax(0.25, f)));
            k = next < 1 ? 1 : next > kmax ? kmax : next;
        }
    }
    axb_kbatch_free(b);
    free(w.cells);
    free(w.start);
    free(r.cell);
    free(r.slot);
    return st;
}
