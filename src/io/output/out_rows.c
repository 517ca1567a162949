/* Writing rows: checks, sorting and precision conversion of each rank's rows, the collective and
 * the independent write, and the record of the rows on disk that a resume trusts. */
#include "io/output/out_internal.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/agree.h"
#include "core/large_alloc.h"
#include "core/mpi_check.h"
#include "io/hdf5/h5util.h"

/* ---------------------------------------------------------------------------------------------
 * Write */

typedef struct row_pos {
    int64_t row, pos; /* row index and its position in the caller's arrays */
} row_pos;

static int cmp_row_pos(const void *a, const void *b)
{
    const row_pos *x = a, *y = b;
    return (x->row > y->row) - (x->row < y->row);
}

static axb_status grow_buffer(axb_output *o, size_t bytes, axb_error *err)
{
    if (bytes <= o->convbuf_size) return AXB_OK;
    void *p = realloc(o->convbuf, bytes);
    if (!p) return axb_error_set(err, AXB_ERR_NOMEM, "write buffer of %zu bytes", bytes);
    o->convbuf = p;
    o->convbuf_size = bytes;
    return AXB_OK;
}

/* axb_out_prepare_rows into @p dst (NULL: the conversion buffer, or @p data itself when no copy
 * is needed). Sorted because HDF5 walks a union of hyperslabs in file order, whatever order the
 * selection was built in. */
static axb_status prepare_into(axb_output *o, int64_t n, const int64_t *rows, const double *data, int64_t *sorted,
                               void *dst, const void **outdata, axb_error *err)
{
    AXB_CHECK(err, n >= 0, AXB_ERR_ARG, "n = %" PRId64 " rows", n);
    if (n == 0) {
        *outdata = NULL;
        return AXB_OK;
    }
    AXB_CHECK(err, rows && data, AXB_ERR_ARG, "rows or data missing for %" PRId64 " rows", n);
    row_pos *rp = malloc((size_t)n * sizeof *rp);
    if (!rp) return axb_error_set(err, AXB_ERR_NOMEM, "row list of %" PRId64 " rows", n);
    bool in_order = true;
    for (int64_t k = 0; k < n; k++) {
        if (rows[k] < 0 || rows[k] >= o->nrows) {
            free(rp);
            return axb_error_set(err, AXB_ERR_ARG, "row %" PRId64 " (entry %" PRId64 ") outside 0..%" PRId64, rows[k],
                                 k, o->nrows - 1);
        }
        if (o->written[rows[k]]) {
            free(rp);
            return axb_error_set(err, AXB_ERR_ARG, "row %" PRId64 " was already written by rank %d", rows[k], o->rank);
        }
        rp[k] = (row_pos){rows[k], k};
        if (k && rows[k] <= rows[k - 1]) in_order = false;
    }
    if (!in_order) qsort(rp, (size_t)n, sizeof *rp, cmp_row_pos);
    for (int64_t k = 0; k < n; k++) {
        if (k && rp[k].row == rp[k - 1].row) {
            int64_t r = rp[k].row;
            free(rp);
            return axb_error_set(err, AXB_ERR_ARG, "row %" PRId64 " appears twice in one write", r);
        }
        sorted[k] = rp[k].row;
    }
    const size_t per = (size_t)o->ncomp * (size_t)o->nsamples;
    if (!dst && in_order && o->precision == AXB_FLOAT64) {
        *outdata = data;
        free(rp);
        return AXB_OK;
    }
    axb_status st = dst ? AXB_OK : grow_buffer(o, (size_t)n * per * o->elsize, err);
    if (st == AXB_OK) {
        char *base = dst ? dst : o->convbuf;
        for (int64_t k = 0; k < n; k++) {
            const double *src = data + (size_t)rp[k].pos * per;
            if (o->precision == AXB_FLOAT64) {
                memcpy((double *)base + (size_t)k * per, src, per * sizeof(double));
            } else {
                float *f = (float *)base + (size_t)k * per;
                for (size_t i = 0; i < per; i++) f[i] = (float)src[i];
            }
        }
        *outdata = base;
    }
    free(rp);
    return st;
}

axb_status axb_out_prepare_rows(axb_output *o, int64_t n, const int64_t *rows, const double *data, int64_t *sorted,
                                const void **outdata, axb_error *err)
{
    return prepare_into(o, n, rows, data, sorted, NULL, outdata, err);
}

/* ---------------------------------------------------------------------------------------------
 * The stage of independent writes. Rows come in the order their elements are read, so a batch's
 * rows are scattered over the file: one write call per row (1.7-3.5 KB) and dirty pages all over
 * it for the final sync. Held back and written in file order, the rows of many batches join into
 * runs: on this project's 2-core machine, 20,000 rows of 1.7 KB took 93 ms as single writes plus a
 * 55 ms fsync, against 42 + 29 ms as one write. The stage is written before every record (a resume
 * trusts only rows on disk), before the file is closed, and when it is full. */

static size_t row_bytes(const axb_output *o)
{
    return (size_t)o->ncomp * (size_t)o->nsamples * o->elsize;
}

/* The stage, made on first use: OUT_STAGE_BYTES, or this rank's share of the file if less (with
 * room for an uneven split). 0 rows when a single row is larger: such rows are written at once. */
static axb_status stage_ready(axb_output *o, axb_error *err)
{
    if (o->stage_cap > 0 || o->stage) return AXB_OK;
    const int64_t rb = (int64_t)row_bytes(o);
    int64_t cap = OUT_STAGE_BYTES / rb, share = 2 * (o->nrows / o->size + 1);
    if (cap > share) cap = share;
    const int64_t run = OUT_RUN_BYTES > rb ? OUT_RUN_BYTES : rb;
    if (cap < 2) return AXB_OK;
    o->stage = axb_large_alloc((size_t)(cap * rb));
    o->stage_rows = malloc((size_t)cap * sizeof *o->stage_rows);
    o->runbuf = axb_large_alloc((size_t)run);
    if (!o->stage || !o->stage_rows || !o->runbuf)
        return axb_error_set(err, AXB_ERR_NOMEM, "%s: write stage of %" PRId64 " rows", o->path, cap);
    o->stage_cap = cap;
    return AXB_OK;
}

/* Writes the staged rows in file order, in runs gathered into the run buffer (the backend joins
 * consecutive rows of one call into one write). Local to this rank; the stage is empty after it,
 * whatever happened. */
static axb_status stage_flush(axb_output *o, axb_error *err)
{
    const int64_t n = o->nstaged;
    o->nstaged = 0;
    if (n == 0) return AXB_OK;
    row_pos *rp = malloc((size_t)n * sizeof *rp);
    if (!rp) return axb_error_set(err, AXB_ERR_NOMEM, "%s: order of %" PRId64 " staged rows", o->path, n);
    for (int64_t k = 0; k < n; k++) rp[k] = (row_pos){o->stage_rows[k], k};
    qsort(rp, (size_t)n, sizeof *rp, cmp_row_pos);
    const size_t rb = row_bytes(o);
    const int64_t per_run = (int64_t)((size_t)(OUT_RUN_BYTES > (int64_t)rb ? OUT_RUN_BYTES : (int64_t)rb) / rb);
    int64_t *rows = o->stage_rows; /* reused in place: position k gets the k-th row in file order */
    axb_status st = AXB_OK;
    for (int64_t k = 0; k < n && st == AXB_OK; k += per_run) {
        const int64_t m = n - k < per_run ? n - k : per_run;
        for (int64_t i = 0; i < m; i++) {
            memcpy((char *)o->runbuf + (size_t)i * rb, (const char *)o->stage + (size_t)rp[k + i].pos * rb, rb);
            rows[k + i] = rp[k + i].row; /* rp keeps the positions still to be read */
        }
        st = o->ops->write_local(o, m, rows + k, o->runbuf, err);
    }
    free(rp);
    return st;
}

/* ---------------------------------------------------------------------------------------------
 * The record of rows on disk (formats that can resume). Written rows wait in o->pending; at a
 * checkpoint the file is flushed (MPI_File_sync underneath), then rank 0 appends the pending rows
 * of all ranks as one list to PATH.partial.record (core/partial.h), so a resume trusts only rows
 * certainly on disk. A flush after every write costs a tenth of a short run; checkpoints every
 * checkpoint_seconds bound what a kill loses instead. */

/* Rank 0's gather buffers; the ranks agree on their allocation before the gathers use them. */
static axb_status gather_rows(axb_output *o, int n, const int64_t *rows, int64_t **all, int64_t *total, axb_error *err)
{
    int *counts = NULL, *displs = NULL;
    axb_status st = AXB_OK;
    if (o->rank == 0) {
        counts = calloc((size_t)o->size, sizeof *counts);
        displs = calloc((size_t)o->size, sizeof *displs);
        if (!counts || !displs) st = axb_error_set(err, AXB_ERR_NOMEM, "%s: row counts", o->partial);
    }
    st = axb_agree(o->comm, st, err);
    if (st == AXB_OK)
        AXB_MPI_CHECK(st, err, MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, o->comm),
                      "gathering the counts of rows written");
    if (st == AXB_OK && o->rank == 0) {
        for (int r = 0; r < o->size && st == AXB_OK; r++) {
            if (*total + counts[r] > INT_MAX)
                st = axb_error_set(err, AXB_ERR_UNSUPPORTED, "%s: more than %d rows between two checkpoints",
                                   o->partial, INT_MAX);
            displs[r] = (int)*total;
            *total += counts[r];
        }
        *all = st == AXB_OK ? malloc((size_t)(*total ? *total : 1) * sizeof **all) : NULL;
        if (st == AXB_OK && !*all)
            st = axb_error_set(err, AXB_ERR_NOMEM, "%s: list of %" PRId64 " rows", o->partial, *total);
    }
    st = axb_agree(o->comm, st, err);
    if (st == AXB_OK)
        AXB_MPI_CHECK(st, err, MPI_Gatherv(rows, n, MPI_INT64_T, *all, counts, displs, MPI_INT64_T, 0, o->comm),
                      "gathering the rows written");
    free(counts);
    free(displs);
    return st;
}

static axb_status record_rows(axb_output *o, int64_t n, const int64_t *rows, axb_error *err)
{
    /* the staged writes are this rank's alone and the flush is collective: agreed in between, so
     * a rank whose write failed does not leave the others waiting inside H5Fflush */
    axb_status st = stage_flush(o, err);
    if (st != AXB_OK)
        axb_error_prefix(err, "%s: write", o->partial);
    else if (n > INT_MAX)
        st = axb_error_set(err, AXB_ERR_UNSUPPORTED, "%s: more than %d rows between two checkpoints", o->partial,
                           INT_MAX);
    AXB_TRY(axb_agree(o->comm, st, err));
    if (H5Fflush(o->file, H5F_SCOPE_GLOBAL) < 0) st = axb_h5_error(err, "%s: flush", o->partial);
    AXB_TRY(axb_agree(o->comm, st, err));
    int64_t *all = NULL, total = 0;
    st = gather_rows(o, (int)n, rows, &all, &total, err);
    if (st == AXB_OK && o->rank == 0) st = axb_partial_record_add(&o->names, total, all, err);
    free(all);
    return axb_agree(o->comm, st, err);
}

/* Collective, after an agreed success: records the pending rows when a checkpoint is due. Each
 * rank reads its own clock and the ranks take the latest, so the flush inside is called by every
 * rank or by none. An interval of 0 (the same on every rank) needs no vote. */
static axb_status checkpoint(axb_output *o, axb_error *err)
{
    if (!o->recording) {
        o->npending = 0;
        return AXB_OK;
    }
    if (o->checkpoint_seconds > 0) {
        int due = axb_wall_seconds() - o->last_record >= o->checkpoint_seconds, any = 0;
        AXB_MPI_AGREE(o->comm, err, MPI_Allreduce(&due, &any, 1, MPI_INT, MPI_MAX, o->comm), "checkpoint decision");
        if (!any) return AXB_OK;
    }
    const axb_status st = record_rows(o, o->npending, o->pending, err);
    o->npending = 0;
    o->last_record = axb_wall_seconds();
    return st;
}

/* Room for @p n more pending rows (this rank only). */
static axb_status reserve_pending(axb_output *o, int64_t n, axb_error *err)
{
    if (o->npending + n <= o->pending_cap) return AXB_OK;
    int64_t cap = o->pending_cap ? o->pending_cap : 4096;
    while (cap < o->npending + n) cap *= 2;
    int64_t *p = realloc(o->pending, (size_t)cap * sizeof *p);
    if (!p) return axb_error_set(err, AXB_ERR_NOMEM, "%s: list of %" PRId64 " written rows", o->path, cap);
    o->pending = p;
    o->pending_cap = cap;
    return AXB_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Writes */

axb_status axb_output_write(axb_output *o, int64_t n, const int64_t *rows, const double *data, axb_error *err)
{
    axb_error local = AXB_ERROR_INIT;
    if (!err) err = &local;
    AXB_CHECK(err, o, AXB_ERR_ARG, "output is not open");
    /* the sorted rows go straight into the pending list; they count as pending only once every
     * rank's transfer succeeded */
    axb_status st = stage_flush(o, err); /* rows of both kinds of write in one file: staged ones first */
    if (st == AXB_OK) st = reserve_pending(o, n > 0 ? n : 1, err);
    int64_t *sorted = st == AXB_OK ? o->pending + o->npending : NULL;
    const void *buf = NULL;
    if (st == AXB_OK) st = axb_out_prepare_rows(o, n, rows, data, sorted, &buf, err);
    if (st != AXB_OK) axb_error_prefix(err, "%s: write", o->path);
    st = axb_agree(o->comm, st, err);
    if (st == AXB_OK) {
        st = o->ops->write(o, n, sorted, buf, err);
        if (st != AXB_OK) axb_error_prefix(err, "%s", o->partial);
        st = axb_agree(o->comm, st, err);
    }
    if (st != AXB_OK) return st;
    for (int64_t k = 0; k < n; k++) o->written[sorted[k]] = 1;
    o->npending += n;
    return checkpoint(o, err);
}

bool axb_output_can_write_local(const axb_output *o)
{
    return o && o->ops->write_local != NULL;
}

axb_status axb_output_write_local(axb_output *o, int64_t n, const int64_t *rows, const double *data, axb_error *err)
{
    axb_error local = AXB_ERROR_INIT;
    if (!err) err = &local;
    AXB_CHECK(err, o, AXB_ERR_ARG, "output is not open");
    AXB_CHECK(err, o->ops->write_local, AXB_ERR_UNSUPPORTED, "%s: the %s format has no independent writes", o->path,
              o->ops->name);
    if (n == 0) return AXB_OK;
    AXB_TRY(reserve_pending(o, n, err));
    int64_t *sorted = o->pending + o->npending;
    const void *buf = NULL;
    axb_status st = stage_ready(o, err);
    if (st == AXB_OK && o->nstaged + n > o->stage_cap) st = stage_flush(o, err);
    if (st == AXB_OK && n <= o->stage_cap) { /* staged: written in file order later */
        void *dst = (char *)o->stage + (size_t)o->nstaged * row_bytes(o);
        st = prepare_into(o, n, rows, data, sorted, dst, &buf, err);
        if (st == AXB_OK) {
            memcpy(o->stage_rows + o->nstaged, sorted, (size_t)n * sizeof *sorted);
            o->nstaged += n;
        }
    } else if (st == AXB_OK) {
        st = axb_out_prepare_rows(o, n, rows, data, sorted, &buf, err);
        if (st == AXB_OK) st = o->ops->write_local(o, n, sorted, buf, err);
    }
    if (st != AXB_OK) return axb_error_prefix(err, "%s: write", o->partial);
    for (int64_t k = 0; k < n; k++) o->written[sorted[k]] = 1;
    o->npending += n;
    return AXB_OK;
}

axb_status axb_out_flush_stage(axb_output *o, axb_error *err)
{
    const axb_status st = stage_flush(o, err);
    return st ? axb_error_prefix(err, "%s: write", o->partial) : AXB_OK;
}

axb_status axb_output_sync(axb_output *o, axb_status st, axb_error *err)
{
    axb_error local = AXB_ERROR_INIT;
    if (!err) err = &local;
    AXB_CHECK(err, o, AXB_ERR_ARG, "output is not open");
    AXB_TRY(axb_agree(o->comm, st, err));
    return checkpoint(o, err);
}
