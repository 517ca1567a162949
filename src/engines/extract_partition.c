/* Element-sorted extraction across ranks. Every rank locates its share of the rows; a global
 * histogram of pairs per element splits the element numbering into contiguous ranges of about
 * equal work (pairs to compute plus a cost per element read); the located pairs move to the rank
 * owning their element; each rank then walks its elements in file order, in batches
 * (engines/batch_iter.h): one read per batch (collective by default: ranks that are done take
 * part with nothing to read), every pair of a batch computed from that one read, rows written
 * collectively or, on one node, independently. Results do not depend on the number of ranks or
 * the batch size: each row is computed from the same element data. */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/agree.h"
#include "core/large_alloc.h"
#include "core/mpi_check.h"
#include "engines/batch_iter.h"
#include "engines/extract_internal.h"
#include "io/db/db_pool.h"

/* Reading an element costs about as much as computing this many pairs from it (interpolation,
 * rotation and time processing of one pair vs. fetching and converting a block): the weight that
 * balances bytes read against pairs computed. */
#define READ_COST_PAIRS 8
/* Output rows per batch: at most this many, and at most 64 MB of them. */
#define MAX_BATCH_ROWS 4096
#define MAX_BATCH_ROW_BYTES ((int64_t)64 << 20)

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

static int owner_of(const int64_t *bounds, int size, int64_t id)
{
    int lo = 0, hi = size - 1; /* bounds[r] = first unit of rank r; bounds[0] = 0 */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (bounds[mid] <= id)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static axb_pair_ref pair_of(const axb_job_rows *t, int64_t r)
{
    return (axb_pair_ref){&t->sources[t->row_source[r]], &t->receivers[t->row_receiver[r]]};
}

/* ---------------------------------------------------------------------------------------------
 * 1-3: locate, split the elements, move the pairs */

typedef struct locate_ctx {
    const axb_job_ctx *c;
    rec *m;
} locate_ctx;

/* Records [k0, k1) located (axb_range_fn, in the workers): the first that fails, or k1. */
static int64_t locate_some(void *vctx, int64_t k0, int64_t k1)
{
    const locate_ctx *x = vctx;
    axb_error scratch = AXB_ERROR_INIT;
    for (int64_t k = k0; k < k1; k++) {
        const axb_pair_ref ref = pair_of(&x->c->rows, x->m[k].row);
        if (axb_extract_locate(x->c->plan, &ref, &x->m[k].loc, &scratch)) return k;
    }
    return k1;
}

/* Rows per range below which locating is not worth handing to threads. */
#define MIN_LOCATE_ROWS 256

/* Every record of m[n] located (their rows set), in the rank's workers when it has more than one
 * thread; a failure names the first failing row. */
static axb_status locate_all(const axb_job_ctx *c, rec *m, int64_t n, axb_error *err)
{
    const int threads = axb_db_get_threads(c->db);
    axb_pool *pool = NULL;
    if (threads > 1) AXB_TRY(axb_db_worker_pool(c->db, &pool, err));
    locate_ctx x = {c, m};
    const int64_t bad = axb_pool_first_failure(pool, n, 4 * (int64_t)threads, MIN_LOCATE_ROWS, locate_some, &x);
    if (bad == n) return AXB_OK;
    const axb_pair_ref ref = pair_of(&c->rows, m[bad].row);
    AXB_TRY_CTX(err, axb_extract_locate(c->plan, &ref, &m[bad].loc, err), "row %lld", (long long)m[bad].row);
    return axb_error_set(err, AXB_ERR_INTERNAL, "row %lld: located only on the second try", (long long)m[bad].row);
}

/* This rank's block of rows (less those on disk already) located, and count[unit] of them. */
static axb_status locate_rows(const axb_job_ctx *c, int64_t *count, rec **mine, int64_t *nmine, axb_error *err)
{
    const int64_t lo = c->rows.nrows * c->rank / c->size, hi = c->rows.nrows * (c->rank + 1) / c->size;
    *nmine = 0;
    *mine = malloc((size_t)(hi - lo + 1) * sizeof **mine);
    if (!*mine) return axb_error_set(err, AXB_ERR_NOMEM, "locations of %lld rows", (long long)(hi - lo));
    for (int64_t r = lo; r < hi; r++)
        if (!c->done || !c->done[r]) (*mine)[(*nmine)++].row = r;
    AXB_TRY(locate_all(c, *mine, *nmine, err));
    for (int64_t k = 0; k < *nmine; k++) count[(*mine)[k].loc.id]++;
    return AXB_OK;
}

/* count[] summed over ranks, then bounds[r] = first unit of rank r: contiguous ranges of equal work. */
static axb_status split_units(const axb_job_ctx *c, int64_t *count, int64_t nunits, int64_t *bounds, axb_error *err)
{
    axb_status st = AXB_OK;
    for (int64_t off = 0; off < nunits; off += 1 << 27) { /* every rank takes part in every piece */
        const int k = (int)(nunits - off < (1 << 27) ? nunits - off : (1 << 27));
        AXB_MPI_CHECK(st, err, MPI_Allreduce(MPI_IN_PLACE, count + off, k, MPI_INT64_T, MPI_SUM, c->comm),
                      "histogram of pairs per element");
    }
    AXB_TRY(st);
    double total = 0;
    for (int64_t u = 0; u < nunits; u++) total += (double)count[u] + (count[u] ? READ_COST_PAIRS : 0);
    double acc = 0;
    int r = 1;
    bounds[0] = 0;
    for (int64_t u = 0; u < nunits && r < c->size; u++) {
        acc += (double)count[u] + (count[u] ? READ_COST_PAIRS : 0);
        while (r < c->size && acc >= total * r / c->size) bounds[r++] = u + 1;
    }
    while (r < c->size) bounds[r++] = nunits;
    return AXB_OK;
}

/* Byte counts and displacements of the exchange (MPI counts are int). */
static axb_status exchange_counts(const axb_job_ctx *c, const int64_t *bounds, const rec *mine, int64_t nmine, int *sc,
                                  int *sd, int *rc, int *rd, int64_t *nrecv, axb_error *err)
{
    for (int64_t k = 0; k < nmine; k++) sc[owner_of(bounds, c->size, mine[k].loc.id)] += (int)sizeof(rec);
    AXB_MPI_AGREE(c->comm, err, MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, c->comm), "exchange of pair counts");
    int64_t s_total = 0, r_total = 0;
    for (int q = 0; q < c->size; q++) {
        sd[q] = (int)s_total;
        rd[q] = (int)r_total;
        s_total += sc[q];
        r_total += rc[q];
    }
    AXB_CHECK(err, s_total <= INT_MAX && r_total <= INT_MAX, AXB_ERR_UNSUPPORTED,
              "more than %d pairs per rank in one job", INT_MAX / (int)sizeof(rec));
    *nrecv = r_total / (int64_t)sizeof(rec);
    return AXB_OK;
}

/* Every located pair to the rank that owns its element; *recv sorted by element. */
static axb_status exchange(const axb_job_ctx *c, const int64_t *bounds, rec *mine, int64_t nmine, rec **recv,
                           int64_t *nrecv, axb_error *err)
{
    qsort(mine, (size_t)nmine, sizeof *mine, by_unit);
    int *sc = calloc((size_t)c->size, sizeof *sc), *rc = calloc((size_t)c->size, sizeof *rc);
    int *sd = calloc((size_t)c->size, sizeof *sd), *rd = calloc((size_t)c->size, sizeof *rd);
    axb_status st = sc && rc && sd && rd ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "exchange counts");
    st = axb_agree(c->comm, st, err);
    if (st == AXB_OK) st = axb_agree(c->comm, exchange_counts(c, bounds, mine, nmine, sc, sd, rc, rd, nrecv, err), err);
    if (st == AXB_OK) {
        *recv = malloc((size_t)(*nrecv ? *nrecv : 1) * sizeof **recv);
        st = axb_agree(c->comm, *recv ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "received pairs"), err);
    }
    if (st == AXB_OK) {
        AXB_MPI_CHECK(st, err, MPI_Alltoallv(mine, sc, sd, MPI_BYTE, *recv, rc, rd, MPI_BYTE, c->comm),
                      "exchange of located pairs");
        st = axb_agree(c->comm, st, err);
    }
    /* each sender's part is sorted already; with one rank (or one sender) the whole is */
    bool sorted = true;
    for (int64_t k = 1; st == AXB_OK && k < *nrecv && sorted; k++) sorted = by_unit(&(*recv)[k - 1], &(*recv)[k]) < 0;
    if (st == AXB_OK && !sorted) qsort(*recv, (size_t)*nrecv, sizeof **recv, by_unit);
    free(sc);
    free(rc);
    free(sd);
    free(rd);
    return st;
}

/* Phases 1-3: *recv holds this rank's pairs, sorted by element. */
static axb_status distribute(const axb_job_ctx *c, int64_t nunits, rec **recv, int64_t *nrecv, axb_error *err)
{
    *recv = NULL;
    *nrecv = 0;
    rec *mine = NULL;
    int64_t nmine = 0;
    int64_t *count = calloc((size_t)nunits, sizeof *count);
    int64_t *bounds = malloc((size_t)c->size * sizeof *bounds);
    axb_status st = count && bounds ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "pairs per element");
    if (st == AXB_OK) st = locate_rows(c, count, &mine, &nmine, err);
    st = axb_agree(c->comm, st, err);
    if (st == AXB_OK) st = axb_agree(c->comm, split_units(c, count, nunits, bounds, err), err);
    if (st == AXB_OK) st = exchange(c, bounds, mine, nmine, recv, nrecv, err);
    free(mine);
    free(count);
    free(bounds);
    return st;
}

/* ---------------------------------------------------------------------------------------------
 * 4: batches */

/* A rank's batch loop: element blocks, the carried block, rows and their samples. Independent
 * writes, odd ranks one batch behind: each rank's rows then reach the file while the ranks of the
 * other parity compute, instead of all ranks queueing on the file at once. Ranks with worker
 * threads are all one batch behind, and when every rank has workers, reads are one batch ahead:
 * the main thread writes the last batch and reads the next while the workers compute. */
typedef struct batch_run {
    const rec *recv;
    axb_batch_iter it;
    int64_t unit; /* floats per element block (or stored point) */
    int64_t row_doubles;
    bool elems, independent, late;
    axb_io_mode mode;
    float *blocks, *carry;
    int64_t *ids, *next_ids, *rows, *rows2;
    double *data, *data2; /* late ranks: rows2/data2 hold the previous batch until written */
    int64_t npend;
    axb_task_group *group; /* the batch's pairs in the rank's worker threads, or NULL: one thread */
    bool pipelined;        /* every rank has workers: the next batch is read while they compute */
    float *spare;          /* pipelined: the blocks of the batch read ahead (into next_ids' order) */
    axb_batch ahead;       /* pipelined: that batch (empty when the rank has none left) */
    bool ahead_any;
} batch_run;

/* AUTO: independent writes when every rank is on one node (MPI_COMM_TYPE_SHARED spans them all):
 * there the file's writes serialise in one kernel whoever issues them, so collective aggregation
 * only adds a copy; across nodes MPI-IO's aggregation pays. */
static axb_status use_independent_writes(const axb_job_ctx *c, bool *independent, axb_error *err)
{
    const axb_write_mode mode = c->job->write_mode;
    *independent = mode != AXB_WRITE_COLLECTIVE && axb_output_can_write_local(c->out);
    if (!*independent || mode == AXB_WRITE_INDEPENDENT) return AXB_OK;
    int nsize = 0, one = 0, all = 0;
    MPI_Comm node = MPI_COMM_NULL;
    axb_status st = AXB_OK;
    AXB_MPI_CHECK(st, err, MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
                  "ranks per node");
    if (node != MPI_COMM_NULL) {
        AXB_MPI_CHECK(st, err, MPI_Comm_size(node, &nsize), "ranks per node");
        AXB_MPI_CHECK(st, err, MPI_Comm_free(&node), "ranks per node");
    }
    one = nsize == c->size;
    AXB_MPI_CHECK(st, err, MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_MIN, c->comm), "ranks per node");
    *independent = all != 0;
    return axb_agree(c->comm, st, err);
}

static void batch_run_free(batch_run *b)
{
    axb_task_group_free(&b->group);
    free(b->blocks);
    free(b->spare);
    free(b->carry);
    free(b->ids);
    free(b->next_ids);
    free(b->rows);
    free(b->rows2);
    free(b->data);
    free(b->data2);
}

/* A rank with more than one thread computes each batch's pairs in its worker pool, the one it
 * decodes chunks with (io/db/db_pool.h): a lane per worker and one for the helping main thread. */
static axb_status start_workers(const axb_job_ctx *c, batch_run *b, axb_error *err)
{
    axb_pool *pool;
    AXB_TRY(axb_db_worker_pool(c->db, &pool, err));
    AXB_TRY(axb_extract_plan_lanes(c->plan, axb_pool_size(pool) + 1, err));
    return axb_task_group_create(pool, &b->group, err);
}

static axb_status batch_run_init(const axb_job_ctx *c, const rec *recv, int64_t nrecv, batch_run *b, axb_error *err)
{
    const axb_extract_plan *p = c->plan;
    memset(b, 0, sizeof *b);
    b->recv = recv;
    b->elems = p->mesh->has_elements;
    b->unit = b->elems ? axb_db_block_floats(c->db) : (int64_t)axb_db_point_vars(c->db) * p->nt;
    b->row_doubles = (int64_t)p->ncomp * p->win.npts;
    b->mode = c->job->independent_reads ? AXB_IO_INDEPENDENT : AXB_IO_COLLECTIVE;
    int64_t max_rows = MAX_BATCH_ROW_BYTES / (b->row_doubles * (int64_t)sizeof(double));
    if (max_rows > MAX_BATCH_ROWS) max_rows = MAX_BATCH_ROWS;
    axb_batch_iter_init(&b->it, recv, nrecv, sizeof *recv, offsetof(rec, loc) + offsetof(axb_loc, id),
                        b->unit * (int64_t)sizeof(float), p->opts.batch_mb << 20, max_rows);
    AXB_TRY(use_independent_writes(c, &b->independent, err));
    /* with worker threads, every rank writes a batch while its workers compute the next one */
    b->late = b->independent && (c->rank % 2 == 1 || axb_db_get_threads(c->db) > 1);
    const int64_t per = b->it.max_units, nrows = b->it.max_items;
    b->blocks = axb_large_alloc((size_t)(per * b->unit) * sizeof *b->blocks);
    b->carry = malloc((size_t)b->unit * sizeof *b->carry);
    b->ids = malloc((size_t)per * sizeof *b->ids);
    b->next_ids = malloc((size_t)per * sizeof *b->next_ids);
    b->rows = malloc((size_t)nrows * sizeof *b->rows);
    b->data = axb_large_alloc((size_t)(nrows * b->row_doubles) * sizeof *b->data);
    if (b->late) {
        b->rows2 = malloc((size_t)nrows * sizeof *b->rows2);
        b->data2 = axb_large_alloc((size_t)(nrows * b->row_doubles) * sizeof *b->data2);
    }
    axb_status st = AXB_OK;
    if (!b->blocks || !b->carry || !b->ids || !b->next_ids || !b->rows || !b->data ||
        (b->late && (!b->rows2 || !b->data2)))
        st = axb_error_set(err, AXB_ERR_NOMEM, "batch buffers of %lld elements and %lld rows", (long long)per,
                           (long long)nrows);
    if (st == AXB_OK && axb_db_get_threads(c->db) > 1) st = start_workers(c, b, err);
    AXB_TRY(axb_agree(c->comm, st, err));
    /* reads may be collective: ranks read ahead all or none */
    int mine = b->group != NULL, all = 0;
    AXB_MPI_CHECK(st, err, MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, c->comm), "threads of every rank");
    AXB_TRY(axb_agree(c->comm, st, err));
    b->pipelined = all != 0;
    if (b->pipelined && !(b->spare = axb_large_alloc((size_t)(per * b->unit) * sizeof *b->spare)))
        st = axb_error_set(err, AXB_ERR_NOMEM, "read-ahead buffer of %lld elements", (long long)per);
    return axb_agree(c->comm, st, err);
}

/* Reads a batch's blocks (an empty read when it has none: reads may be collective). */
static axb_status read_blocks(axb_job_ctx *c, batch_run *b, const axb_batch *bt, const int64_t *ids, float *blocks,
                              axb_error *err)
{
    if (c->job->cold_batches) axb_db_drop_page_cache(c->db); /* benchmarks: every batch from storage */
    c->plan->stats.elements_read += bt->nread;
    return b->elems ? axb_db_read_elements(c->db, bt->nread, ids, b->mode, blocks, err)
                    : axb_db_read_points(c->db, bt->nread, ids, b->mode, blocks, err);
}

/* Pipelined: takes the next batch and reads it into the spare blocks. */
static axb_status read_ahead(axb_job_ctx *c, batch_run *b, axb_error *err)
{
    b->ahead = (axb_batch){0};
    b->ahead_any = axb_batch_next(&b->it, b->next_ids, &b->ahead);
    return read_blocks(c, b, &b->ahead, b->next_ids, b->spare, err);
}

/* The rows the last batch kept back (late ranks), now written. */
static axb_status flush_pending(axb_job_ctx *c, batch_run *b, axb_error *err)
{
    const int64_t n = b->npend;
    b->npend = 0;
    return n > 0 ? axb_output_write_local(c->out, n, b->rows2, b->data2, err) : AXB_OK;
}

/* The main thread's part of a batch while the workers compute it: the rows kept back from the
 * last batch written, and (pipelined, unless this is the last round) the next batch read. Every
 * rank reads, whatever failed before: the read may be collective. */
static axb_status overlap_io(axb_job_ctx *c, batch_run *b, bool read_next, axb_error *err)
{
    double lap = axb_wall_seconds();
    axb_status st = flush_pending(c, b, err);
    axb_job_lap(&c->times.write, &lap);
    if (b->pipelined && read_next) {
        axb_error later = AXB_ERROR_INIT;
        const axb_status rs = read_ahead(c, b, st ? &later : err);
        if (st == AXB_OK) st = rs;
        axb_job_lap(&c->times.read, &lap);
    }
    return st;
}

/* Rows are computed in element order, so their sources and receivers lie scattered in memory:
 * waiting for them was half of axb_extract_raw's own time in a 200,000-row job. The row PAIR_AHEAD
 * places ahead has its source and receiver fetched, and the one twice as far its table entries.
 * (In the loop itself: in a function of their own GCC finds the prefetches free of side effects
 * and drops the call.) */
#define PAIR_AHEAD 8

/* Pairs [k0, k1) of a batch on one lane, the first of them in the batch's u0-th element. Each
 * range computes its elements' operators itself, so ranges may split an element (one event's
 * stations all fall in its source's element) at the cost of computing them twice. */
static axb_status compute_pairs(const axb_job_ctx *c, batch_run *b, const axb_batch *bt, int64_t k0, int64_t k1,
                                int64_t u0, axb_extract_lane *ln, axb_error *err)
{
    const axb_extract_plan *p = c->plan;
    int64_t u = u0 - 1;
    axb_elem_state es = {-1, NULL, false};
    for (int64_t k = k0; k < k1; k++) {
        if (k + 2 * PAIR_AHEAD < k1) {
            const int64_t ra = b->recv[k + 2 * PAIR_AHEAD].row;
            __builtin_prefetch(&c->rows.row_source[ra]);
            __builtin_prefetch(&c->rows.row_receiver[ra]);
        }
        if (k + PAIR_AHEAD < k1) {
            const int64_t ra = b->recv[k + PAIR_AHEAD].row;
            __builtin_prefetch(&c->rows.sources[c->rows.row_source[ra]]);
            __builtin_prefetch(&c->rows.receivers[c->rows.row_receiver[ra]]);
        }
        const axb_loc *loc = &b->recv[k].loc;
        if (loc->id != es.elem) {
            u++;
            es = (axb_elem_state){loc->id, axb_batch_block(bt, u, b->blocks, b->carry, b->unit), false};
        }
        const int64_t r = b->recv[k].row;
        const axb_pair_ref ref = pair_of(&c->rows, r);
        double *out = b->data + (k - bt->first) * b->row_doubles;
        axb_status st = axb_extract_raw(p, ln, &ref, loc, &es, err);
        if (st == AXB_OK) st = axb_extract_finish(p, ln, &ref, ln->raw, out, err);
        if (st != AXB_OK) return axb_error_prefix(err, "row %lld", (long long)r);
        b->rows[k - bt->first] = r;
    }
    return AXB_OK;
}

/* A range of a batch computed by a worker thread (compute_pairs on the worker's lane). */
typedef struct piece {
    const axb_job_ctx *c;
    batch_run *b;
    const axb_batch *bt;
    int64_t k0, k1, u0;
    axb_status st;
    axb_error err;
} piece;

static void piece_run(void *arg, int worker) /* the pieces belong to compute_threaded */
{
    piece *q = arg;
    q->st = compute_pairs(q->c, q->b, q->bt, q->k0, q->k1, q->u0, &q->c->plan->lanes[worker], &q->err);
}

/* Pairs per piece below which a batch is not worth handing to threads. */
#define MIN_PIECE_PAIRS 8

/* The batch's pairs in equal ranges over the rank's workers while this thread does overlap_io;
 * the first failure in row order is the batch's. */
static axb_status compute_threaded(axb_job_ctx *c, batch_run *b, const axb_batch *bt, bool read_next, axb_error *err)
{
    const int64_t n = bt->end - bt->first;
    int64_t np = 4 * (int64_t)c->plan->nlanes; /* a few per lane: ranges differ in cost */
    if (np > n / MIN_PIECE_PAIRS) np = n / MIN_PIECE_PAIRS;
    piece *pc = np >= 2 ? calloc((size_t)np, sizeof *pc) : NULL; /* none: all here, after the I/O */
    axb_status st = AXB_OK;
    int64_t u = 0, k = bt->first, submitted = 0;
    for (int64_t i = 0; pc && i < np && st == AXB_OK; i++) {
        const int64_t k1 = bt->first + n * (i + 1) / np;
        pc[i] = (piece){.c = c, .b = b, .bt = bt, .k0 = k, .k1 = k1, .u0 = u};
        for (; k < k1; k++) /* the element of the next piece's first pair */
            if (k + 1 < bt->end && b->recv[k + 1].loc.id != b->recv[k].loc.id) u++;
        st = axb_task_group_submit(b->group, piece_run, &pc[i], err);
        if (st == AXB_OK) submitted++;
    }
    axb_error ioerr = AXB_ERROR_INIT;
    const axb_status io = overlap_io(c, b, read_next, &ioerr);
    axb_task_group_wait(b->group);
    if (st == AXB_OK && io) {
        *err = ioerr;
        st = io;
    }
    for (int64_t i = 0; i < submitted && st == AXB_OK; i++)
        if (pc[i].st) {
            *err = pc[i].err;
            st = pc[i].st;
        }
    if (st == AXB_OK && submitted == 0) st = compute_pairs(c, b, bt, bt->first, bt->end, 0, &c->plan->lanes[0], err);
    free(pc);
    return st;
}

/* Every pair of the batch, from the blocks read and the carried one; the block of an element that
 * continues in the next batch is kept. */
static axb_status compute_batch(axb_job_ctx *c, batch_run *b, const axb_batch *bt, bool read_next, axb_error *err)
{
    axb_extract_plan *p = c->plan;
    const int64_t n = bt->end - bt->first;
    if (b->group)
        AXB_TRY(compute_threaded(c, b, bt, read_next, err));
    else {
        AXB_TRY(overlap_io(c, b, read_next, err));
        AXB_TRY(compute_pairs(c, b, bt, bt->first, bt->end, 0, &p->lanes[0], err));
    }
    p->stats.pairs += n;
    if (bt->carry_out) {
        const float *last = axb_batch_block(bt, bt->nunits - 1, b->blocks, b->carry, b->unit);
        if (last != b->carry) memcpy(b->carry, last, (size_t)b->unit * sizeof *b->carry);
    }
    return axb_extract_filter_rows(c->filter, n, p->ncomp, p->win.npts, b->data, err);
}

/* Independent writes: early ranks write now; late ranks keep the batch for the next round. */
static axb_status write_own(axb_job_ctx *c, batch_run *b, int64_t n, axb_error *err)
{
    if (!b->late) return axb_output_write_local(c->out, n, b->rows, b->data, err);
    double *td = b->data;
    b->data = b->data2;
    b->data2 = td;
    int64_t *tr = b->rows;
    b->rows = b->rows2;
    b->rows2 = tr;
    b->npend = n;
    return AXB_OK;
}

/* One batch on this rank (an empty one when it has none left): read (pipelined: take the batch
 * read during the last one), compute, write. */
static axb_status run_batch(axb_job_ctx *c, batch_run *b, bool last, axb_error *err)
{
    axb_batch bt = {0};
    bool any;
    axb_status ls = AXB_OK;
    axb_extract_times *tm = &c->times;
    double lap = axb_wall_seconds();
    if (b->pipelined) {
        bt = b->ahead;
        any = b->ahead_any;
        float *t = b->blocks; /* the spare blocks hold it; this batch's become the next spare */
        b->blocks = b->spare;
        b->spare = t;
    } else {
        any = axb_batch_next(&b->it, b->ids, &bt);
        ls = read_blocks(c, b, &bt, b->ids, b->blocks, err);
    }
    if (ls == AXB_OK && !b->pipelined && b->elems && axb_db_get_threads(c->db) > 1) {
        /* the next batch's elements are read and decoded in the background while this one is
         * computed (original layout; a no-op elsewhere). Only with a core to spare: a rank's one
         * core would just switch between decoding and computing, and lose its caches. */
        axb_batch_iter ahead = b->it;
        axb_batch nb;
        if (axb_batch_next(&ahead, b->next_ids, &nb)) ls = axb_db_prefetch_elements(c->db, nb.nread, b->next_ids, err);
    }
    axb_job_lap(&tm->read, &lap);
    const int64_t n = bt.end - bt.first;
    const double io0 = tm->read + tm->write; /* overlap_io's part of compute_batch is its own */
    if (ls == AXB_OK) ls = any ? compute_batch(c, b, &bt, !last, err) : overlap_io(c, b, !last, err);
    const double io = tm->read + tm->write - io0;
    axb_job_lap(&tm->compute, &lap);
    tm->compute -= io;
    if (ls == AXB_OK && b->independent) ls = write_own(c, b, n, err);
    double mb = (double)bt.nread * (double)b->unit * (double)sizeof(float) / 1e6, mb_all = 0;
    AXB_MPI_CHECK(ls, err, MPI_Reduce(&mb, &mb_all, 1, MPI_DOUBLE, MPI_SUM, 0, c->comm), "bytes read");
    int64_t done = n;
    AXB_TRY(axb_agree_sum(c->comm, ls, &done, err));
    AXB_TRY(b->independent ? axb_output_sync(c->out, AXB_OK, err) : axb_output_write(c->out, n, b->rows, b->data, err));
    axb_job_progress(c, done, mb_all, last);
    axb_job_lap(&tm->write, &lap);
    return AXB_OK;
}

/* Every batch's element read announced to the database (original layout: its chunk cache then
 * keeps only chunks a later batch needs, and first reuses the room of the others). */
static axb_status announce_batches(const axb_job_ctx *c, batch_run *b, axb_error *err)
{
    axb_batch_iter it = b->it;
    axb_batch bt;
    axb_status st = AXB_OK;
    while (st == AXB_OK && axb_batch_next(&it, b->next_ids, &bt))
        st = axb_db_expect_elements(c->db, bt.nread, b->next_ids, err);
    return st;
}

axb_status axb_extract_partitioned(axb_job_ctx *c, axb_error *err)
{
    const axb_extract_plan *p = c->plan;
    const int64_t nunits = p->mesh->has_elements ? p->mesh->nelem : p->info->npoints;
    rec *recv = NULL;
    int64_t nrecv = 0;
    batch_run b;
    memset(&b, 0, sizeof b);
    double lap = axb_wall_seconds();
    axb_status st = distribute(c, nunits, &recv, &nrecv, err);
    if (st == AXB_OK) st = batch_run_init(c, recv, nrecv, &b, err);
    int64_t nb = st == AXB_OK ? axb_batch_count(&b.it) : 0, nbmax = 0;
    if (st == AXB_OK) {
        AXB_MPI_CHECK(st, err, MPI_Allreduce(&nb, &nbmax, 1, MPI_INT64_T, MPI_MAX, c->comm), "number of batches");
        st = axb_agree(c->comm, st, err);
    }
    if (st == AXB_OK && b.elems) st = axb_agree(c->comm, announce_batches(c, &b, err), err);
    axb_job_lap(&c->times.locate, &lap);
    if (st == AXB_OK && b.pipelined && nbmax > 0) st = axb_agree(c->comm, read_ahead(c, &b, err), err);
    axb_job_lap(&c->times.read, &lap);
    for (int64_t bi = 0; bi < nbmax && st == AXB_OK; bi++) st = run_batch(c, &b, bi + 1 == nbmax, err);
    lap = axb_wall_seconds();
    if (st == AXB_OK && b.independent) { /* the late ranks' last batch */
        const axb_status ls = flush_pending(c, &b, err);
        st = axb_output_sync(c->out, ls, err);
    }
    axb_job_lap(&c->times.write, &lap);
    batch_run_free(&b);
    free(recv);
    return st;
}
