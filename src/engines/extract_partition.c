/* Element-sorted extraction across ranks. Every rank locates its share of the rows; a global
 * histogram of pairs per element splits the element numbering into contiguous ranges of about
 * equal work (pairs to compute plus a cost per element read); the located pairs move to the rank
 * owning their element; each rank then walks its elements in file order, in batches: one read per
 * batch (collective by default: ranks that are done take part with nothing to read), every pair
 * of a batch computed from that one read, rows written collectively. Results do not depend on
 * the number of ranks or the batch size: each row is computed from the same element data. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "engines/extract_internal.h"

/* Reading an element costs about as much as computing this many pairs from it (interpolation,
 * rotation and time processing of one pair vs. fetching and converting a block): the weight that
 * balances bytes read against pairs computed. */
#define READ_COST_PAIRS 8

typedef struct rec {
    int64_t row;
    axb_loc loc;
} rec;

static int by_unit(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    if (x->loc.id != y->loc.id) return x->loc.id < y->loc.id ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

static int64_t owner_of(const int64_t *bounds, int size, int64_t id)
{
    int lo = 0, hi = size - 1; /* bounds[r] = first unit of rank r; bounds[0] = 0 */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (bounds[mid] <= id) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* AUTO: independent writes when every rank is on one node (MPI_COMM_TYPE_SHARED spans them all):
 * there the file's writes serialise in one kernel whoever issues them, so collective aggregation
 * only adds a copy; across nodes MPI-IO's aggregation pays. */
static bool use_independent_writes(MPI_Comm comm, axb_write_mode mode, const axb_output *out)
{
    if (mode == AXB_WRITE_COLLECTIVE || !axb_output_can_write_local(out)) return false;
    if (mode == AXB_WRITE_INDEPENDENT) return true;
    int size, nsize = 0, one = 0, all = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm node = MPI_COMM_NULL;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &nsize);
        MPI_Comm_free(&node);
    }
    one = nsize == size;
    MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_MIN, comm);
    return all != 0;
}

axb_status axb_extract_partitioned(MPI_Comm comm, axb_db *db, axb_extract_plan *p,
                                   const axb_extract_job *job, axb_output *out,
                                   axb_filter_plan *filter, const uint8_t *done_rows,
                                   axb_extract_progress *prog, axb_error *err)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const bool elems = p->mesh->has_elements;
    const int64_t nunits = elems ? p->mesh->nelem : p->info->npoints;
    const int64_t unit = elems ? axb_db_block_floats(db) : (int64_t)axb_db_point_vars(db) * p->nt;
    const axb_io_mode mode = job->independent_reads ? AXB_IO_INDEPENDENT : AXB_IO_COLLECTIVE;
    const int64_t lo = job->nrows * rank / size, hi = job->nrows * (rank + 1) / size;

    /* 1. locate this rank's rows (those not on disk already, when resuming) */
    rec *mine = malloc((size_t)(hi - lo + 1) * sizeof *mine);
    int64_t *count = calloc((size_t)nunits, sizeof *count), nmine = 0;
    axb_status st = mine && count ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "pair locations");
    for (int64_t r = lo; r < hi && !st; r++) {
        if (done_rows && done_rows[r]) continue;
        const axb_pair_ref ref = {&job->sources[job->row_source[r]], &job->receivers[job->row_receiver[r]]};
        mine[nmine].row = r;
        st = axb_extract_locate(p, &ref, &mine[nmine].loc, err);
        if (st) axb_error_prefix(err, "row %lld", (long long)r);
        else count[mine[nmine++].loc.id]++;
    }
    st = axb_extract_agree(comm, st, NULL, err);

    /* 2. the work per element over all ranks, and contiguous element ranges of equal work */
    int64_t *bounds = malloc((size_t)size * sizeof *bounds);
    if (!st && !bounds) st = axb_error_set(err, AXB_ERR_NOMEM, "bounds");
    st = axb_extract_agree(comm, st, NULL, err);
    for (int64_t off = 0; !st && off < nunits; off += 1 << 27) {
        const int64_t k = nunits - off < (1 << 27) ? nunits - off : (1 << 27);
        MPI_Allreduce(MPI_IN_PLACE, count + off, (int)k, MPI_INT64_T, MPI_SUM, comm);
    }
    if (!st) {
        double total = 0;
        for (int64_t u = 0; u < nunits; u++) total += (double)count[u] + (count[u] ? READ_COST_PAIRS : 0);
        double acc = 0;
        int r = 1;
        bounds[0] = 0;
        for (int64_t u = 0; u < nunits && r < size; u++) {
            acc += (double)count[u] + (count[u] ? READ_COST_PAIRS : 0);
            while (r < size && acc >= total * r / size) bounds[r++] = u + 1;
        }
        while (r < size) bounds[r++] = nunits;
    }

    /* 3. move every located pair to the rank that owns its element */
    rec *recv = NULL;
    int64_t nrecv = 0;
    if (!st) {
        qsort(mine, (size_t)nmine, sizeof *mine, by_unit);
        int *sc = calloc((size_t)size, sizeof *sc), *rc = calloc((size_t)size, sizeof *rc);
        int *sd = calloc((size_t)size, sizeof *sd), *rd = calloc((size_t)size, sizeof *rd);
        int64_t s_total = 0, r_total = 0;
        if (!sc || !rc || !sd || !rd) st = axb_error_set(err, AXB_ERR_NOMEM, "exchange counts");
        for (int64_t k = 0; !st && k < nmine; k++) sc[owner_of(bounds, size, mine[k].loc.id)] += (int)sizeof(rec);
        if (!st) MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm);
        for (int q = 0; !st && q < size; q++) {
            sd[q] = (int)s_total;
            rd[q] = (int)r_total;
            s_total += sc[q];
            r_total += rc[q];
        }
        if (!st && (s_total > INT_MAX || r_total > INT_MAX))
            st = axb_error_set(err, AXB_ERR_UNSUPPORTED, "more than %d pairs per rank in one job", INT_MAX / (int)sizeof(rec));
        st = axb_extract_agree(comm, st, NULL, err);
        if (!st) {
            nrecv = r_total / (int64_t)sizeof(rec);
            recv = malloc((size_t)(nrecv ? nrecv : 1) * sizeof *recv);
            st = axb_extract_agree(comm, recv ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "received pairs"), NULL, err);
        }
        if (!st) {
            MPI_Alltoallv(mine, sc, sd, MPI_BYTE, recv, rc, rd, MPI_BYTE, comm);
            qsort(recv, (size_t)nrecv, sizeof *recv, by_unit);
        }
        free(sc);
        free(rc);
        free(sd);
        free(rd);
    }
    free(mine);
    free(count);
    free(bounds);

    /* 4. batches in file order: at most per_batch distinct elements and max_rows rows each */
    const int64_t row_doubles = (int64_t)p->ncomp * p->win.npts;
    int64_t per_batch = (p->opts.batch_mb << 20) / (unit * (int64_t)sizeof(float));
    if (per_batch < 1) per_batch = 1;
    int64_t max_rows = ((int64_t)64 << 20) / (row_doubles * (int64_t)sizeof(double));
    if (max_rows < 1) max_rows = 1;
    if (max_rows > 4096) max_rows = 4096;
    int64_t nb = 0;
    for (int64_t a = 0; a < nrecv;) {
        int64_t b = a, distinct = 0;
        while (b < nrecv && b - a < max_rows && (distinct < per_batch || recv[b].loc.id == recv[b - 1].loc.id)) {
            if (b == a || recv[b].loc.id != recv[b - 1].loc.id) distinct++;
            b++;
        }
        nb++;
        a = b;
    }
    int64_t nbmax = 0;
    MPI_Allreduce(&nb, &nbmax, 1, MPI_INT64_T, MPI_MAX, comm);
    /* Independent writes, odd ranks one batch behind: each rank's rows then reach the file while
     * the ranks of the other parity compute, instead of all ranks queueing on the file at once. */
    const bool independent = use_independent_writes(comm, job->write_mode, out);
    const bool late = independent && rank % 2 == 1;
    float *blocks = NULL, *carry = NULL;
    int64_t *ids = NULL, *rows = NULL, *rows2 = NULL, carry_id = -1;
    double *data = NULL, *data2 = NULL;
    if (!st) {
        blocks = malloc((size_t)(per_batch * unit) * sizeof *blocks);
        carry = malloc((size_t)unit * sizeof *carry);
        ids = malloc((size_t)per_batch * sizeof *ids);
        rows = malloc((size_t)max_rows * sizeof *rows);
        data = malloc((size_t)(max_rows * row_doubles) * sizeof *data);
        if (late) {
            rows2 = malloc((size_t)max_rows * sizeof *rows2);
            data2 = malloc((size_t)(max_rows * row_doubles) * sizeof *data2);
        }
        if (!blocks || !carry || !ids || !rows || !data || (late && (!rows2 || !data2)))
            st = axb_error_set(err, AXB_ERR_NOMEM, "batch buffers");
        st = axb_extract_agree(comm, st, NULL, err);
    }
    int64_t npend = 0;          /* late ranks: rows of the previous batch, in rows2/data2 */
    int64_t a = 0, rows_done = 0;
    for (int64_t bi = 0; bi < nbmax && !st; bi++) {
        /* this batch's records [a, b) and the distinct elements to read (not the carried one) */
        int64_t b = a, distinct = 0, nread = 0;
        while (b < nrecv && b - a < max_rows && (distinct < per_batch || recv[b].loc.id == recv[b - 1].loc.id)) {
            const bool first = b == a || recv[b].loc.id != recv[b - 1].loc.id;
            if (first) {
                distinct++;
                if (recv[b].loc.id != carry_id) ids[nread++] = recv[b].loc.id;
            }
            b++;
        }
        if (job->cold_batches) axb_db_drop_page_cache(db); /* benchmarks: every batch from storage */
        axb_status ls = elems ? axb_db_read_elements(db, nread, ids, mode, blocks, err)
                              : axb_db_read_points(db, nread, ids, mode, blocks, err);
        p->stats.elements_read += nread;
        if (!ls && npend > 0) ls = axb_output_write_local(out, npend, rows2, data2, err);
        npend = 0;
        int64_t slot = -1;
        axb_elem_state es = {-1, NULL, false, false};
        for (int64_t k = a; k < b && !ls; k++) {
            const axb_loc *loc = &recv[k].loc;
            if (loc->id != es.elem) {
                const float *blk = loc->id == carry_id ? carry : blocks + (++slot) * unit;
                es = (axb_elem_state){loc->id, blk, false, false};
            }
            const int64_t r = recv[k].row;
            const axb_pair_ref ref = {&job->sources[job->row_source[r]], &job->receivers[job->row_receiver[r]]};
            ls = axb_extract_raw(p, &ref, loc, &es, es.block, p->raw, err);
            if (!ls) ls = axb_extract_finish(p, &ref, p->raw, data + (k - a) * row_doubles, err);
            if (ls) axb_error_prefix(err, "row %lld", (long long)r);
            rows[k - a] = r;
            p->stats.pairs++;
        }
        /* an element whose pairs continue in the next batch is kept, not read again */
        if (!ls && b > a && b < nrecv && recv[b].loc.id == recv[b - 1].loc.id && es.block != carry) {
            memcpy(carry, es.block, (size_t)unit * sizeof *carry);
            carry_id = es.elem;
        }
        if (!ls) ls = axb_extract_filter_rows(filter, b - a, p->ncomp, p->win.npts, data, err);
        if (!ls && independent && !late) ls = axb_output_write_local(out, b - a, rows, data, err);
        if (!ls && late) {      /* written at the start of the next batch */
            double *td = data;
            data = data2;
            data2 = td;
            int64_t *tr = rows;
            rows = rows2;
            rows2 = tr;
            npend = b - a;
        }
        int64_t done = b - a;
        st = axb_extract_agree(comm, ls, &done, err);
        if (!st) st = independent ? axb_output_sync(out, AXB_OK, err) : axb_output_write(out, b - a, rows, data, err);
        double bytes = (double)nread * (double)unit * (double)sizeof(float);
        MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_DOUBLE, MPI_SUM, comm);
        prog->bytes += bytes;
        rows_done += done;
        if (!st) axb_extract_progress_step(prog, rows_done, bi + 1 == nbmax);
        a = b;
    }
    if (!st && independent) {   /* the late ranks' last batch */
        axb_status ls = npend > 0 ? axb_output_write_local(out, npend, rows2, data2, err) : AXB_OK;
        st = axb_output_sync(out, ls, err);
    }
    free(recv);
    free(blocks);
    free(rows2);
    free(data2);
    free(carry);
    free(ids);
    free(rows);
    free(data);
    return st;
}
