/* The data phase of a repack: slab by slab, one read through the database layer and one put
 * through the merged writer, in lockstep over the ranks. */
#include <stdlib.h>

#include "axibulk/timefmt.h"
#include "core/agree.h"
#include "core/mpi_check.h"
#include "core/progress.h"
#include "engines/repack_internal.h"
#include "io/db/merged_write.h"

/* slabs listed ahead of the one transposed: with one, the reader went idle whenever a slab needed
 * few new chunks, until the next slab began */
#define REPACK_READ_AHEAD 2

axb_status axb_repack_plan_slabs(repack_job *j, axb_error *err)
{
    const int64_t per = axb_merged_writer_capacity(j->w);
    const int64_t lo = j->nelem * j->rank / j->size, hi = j->nelem * (j->rank + 1) / j->size;
    j->slabs = malloc((size_t)((hi - lo) / per + (hi - lo) + 1) * sizeof *j->slabs);
    axb_status st = j->slabs ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "slab list");
    int64_t mine = 0;
    for (int64_t e = lo; !st && e < hi;) {
        if (j->done[e]) {
            e++;
            continue;
        }
        int64_t c = 0;
        while (e + c < hi && !j->done[e + c] && c < per) c++;
        j->slabs[j->nslabs++] = (repack_slab){e, c};
        mine += c;
        e += c;
    }
    AXB_TRY(axb_agree(j->comm, st, err));
    AXB_MPI_AGREE(j->comm, err, MPI_Allreduce(&j->nslabs, &j->max_slabs, 1, MPI_INT64_T, MPI_MAX, j->comm),
                  "slab count");
    j->todo = mine;
    /* every slab's read announced: the chunk cache then keeps only chunks a later slab needs */
    for (int64_t k = 0; k < j->nslabs && !st; k++)
        st = axb_db_expect_elements(j->db, j->slabs[k].count, j->order + j->slabs[k].start, err);
    return axb_agree_sum(j->comm, st, &j->todo, err);
}

/* The elements of this rank's slabs [from, to), as a list (*units freed by the caller). */
static axb_status slab_units(const repack_job *j, int64_t from, int64_t to, int64_t **units, int64_t *n, axb_error *err)
{
    *n = 0;
    for (int64_t k = from; k < to && k < j->nslabs; k++) *n += j->slabs[k].count;
    *units = malloc((size_t)(*n ? *n : 1) * sizeof **units);
    if (!*units) return axb_error_set(err, AXB_ERR_NOMEM, "list of %lld finished elements", (long long)*n);
    int64_t u = 0;
    for (int64_t k = from; k < to && k < j->nslabs; k++)
        for (int64_t c = 0; c < j->slabs[k].count; c++) (*units)[u++] = j->slabs[k].start + c;
    return AXB_OK;
}

/* Rank 0 appends the elements every rank finished in slabs [from, to) to the record. */
static axb_status record_slabs(repack_job *j, int64_t from, int64_t to, axb_error *err)
{
    int64_t *mine = NULL, *all = NULL;
    int *counts = NULL, *displs = NULL;
    int64_t n = 0;
    axb_status st = slab_units(j, from, to, &mine, &n, err);
    if (!st && j->rank == 0) {
        counts = calloc((size_t)j->size, sizeof *counts);
        displs = calloc((size_t)j->size, sizeof *displs);
        all = malloc((size_t)(j->nelem ? j->nelem : 1) * sizeof *all);
        if (!counts || !displs || !all) st = axb_error_set(err, AXB_ERR_NOMEM, "finished elements of all ranks");
    }
    st = axb_agree(j->comm, st, err);
    const int cnt = (int)n;
    if (!st) AXB_MPI_CHECK(st, err, MPI_Gather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, j->comm), "finished elements");
    int total = 0;
    for (int r = 0; !st && j->rank == 0 && r < j->size; r++) {
        displs[r] = total;
        total += counts[r];
    }
    if (!st)
        AXB_MPI_CHECK(st, err, MPI_Gatherv(mine, cnt, MPI_INT64_T, all, counts, displs, MPI_INT64_T, 0, j->comm),
                      "finished elements");
    if (!st && j->rank == 0) st = axb_partial_record_add(&j->names, total, all, err);
    free(mine);
    free(all);
    free(counts);
    free(displs);
    return axb_agree(j->comm, st, err);
}

/* Collective: the data put so far reach the disk, and only then are slabs [from, to) recorded as
 * done: the record never names data not on disk. */
static axb_status checkpoint(repack_job *j, int64_t from, int64_t to, axb_error *err)
{
    AXB_TRY(axb_db_writer_checkpoint(j->w, err));
    return record_slabs(j, from, to, err);
}

/* The chunks of the next slabs are read in the background while this one is transposed (the
 * read itself lists the current slab; the first is listed before those after it); asking again
 * for a slab already listed costs nothing, and one that did not fit in the chunk cache before is
 * listed now. */
static axb_status read_ahead(const repack_job *j, int64_t k, axb_error *err)
{
    for (int64_t s = k == 0 ? 0 : k + 1; s <= k + REPACK_READ_AHEAD && s < j->nslabs; s++)
        AXB_TRY(axb_db_prefetch_elements(j->db, j->slabs[s].count, j->order + j->slabs[s].start, err));
    return AXB_OK;
}

/* Slab @p s read into the writer's buffer (agreed). */
static axb_status read_slab(repack_job *j, int64_t k, repack_slab s, axb_error *err)
{
    float *dst = NULL;
    axb_status st = s.count ? axb_db_writer_buffer(j->w, s.start, &dst, err) : AXB_OK;
    if (!st) st = read_ahead(j, k, err);
    if (!st && s.count) st = axb_db_read_elements(j->db, s.count, j->order + s.start, AXB_IO_INDEPENDENT, dst, err);
    return axb_agree(j->comm, st, err);
}

axb_status axb_repack_copy_slabs(repack_job *j, axb_error *err)
{
    /* reads and writes overlap (direct), so rates are over the whole data phase; read in source
     * bytes */
    const double in_per_elem = j->nelem ? (double)j->in->total_bytes / (double)j->nelem : 0;
    axb_progress pr;
    axb_progress_start(&pr, j->progress, "repack", "elements", j->todo);
    j->t_data = pr.t0;
    double last_ckpt = j->t_data;
    int64_t ck_from = 0; /* the first slab not recorded yet */
    /* Checkpoints every checkpoint_seconds and after the last slab; between them the disk takes
     * the slabs in the background while the next ones are read. */
    for (int64_t k = 0; k < j->max_slabs; k++) {
        const repack_slab s = k < j->nslabs ? j->slabs[k] : (repack_slab){0, 0};
        AXB_TRY(read_slab(j, k, s, err));
        AXB_TRY(axb_db_writer_put(j->w, s.start, s.count, err));
        double tc = axb_wall_seconds();
        int ck = k + 1 == j->max_slabs || tc - last_ckpt >= j->o->checkpoint_seconds, any = 0;
        AXB_MPI_AGREE(j->comm, err, MPI_Allreduce(&ck, &any, 1, MPI_INT, MPI_MAX, j->comm), "checkpoint decision");
        if (any) {
            AXB_TRY(checkpoint(j, ck_from, k + 1, err));
            ck_from = k + 1;
            last_ckpt = tc = axb_wall_seconds();
        }
        j->t_phase = tc - j->t_data;
        int64_t n_all = 0;
        AXB_MPI_AGREE(j->comm, err, MPI_Allreduce(&s.count, &n_all, 1, MPI_INT64_T, MPI_SUM, j->comm),
                      "progress count");
        j->written += n_all;
        axb_progress_update(&pr, j->written, (double)j->written * in_per_elem / 1e6,
                            (double)j->written * (double)j->block_bytes / 1e6, k + 1 == j->max_slabs);
    }
    return AXB_OK;
}
