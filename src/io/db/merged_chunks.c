/* The third way element data reach a merged file (merged_write.h): deflated element chunks,
 * compressed by worker threads on every rank and stored with direct chunk writes.
 *
 * Why: through netCDF, a deflated merged file is compressed by HDF5's filter pipeline, serially
 * inside the library with zlib, one chunk after another: perf showed zlib taking two thirds of a
 * repack --deflate, which ran at a fifth of the contiguous speed. Here every rank shuffles and
 * deflates its own elements with libdeflate in its thread pool, and the stored chunks go to the
 * file with H5Dwrite_chunk. Parallel HDF5 1.10 cannot allocate chunks from several processes at
 * once (a direct chunk write from each rank corrupts the chunk index), so rank 0 alone opens the
 * finished structure with serial HDF5 and writes every rank's chunks, received over MPI: a third
 * to a half of the raw bytes travel, and the disk sees one sequential writer. */
#include <fcntl.h>
#include <hdf5.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axibulk/timefmt.h"
#include "core/agree.h"
#include "core/large_alloc.h"
#include "core/mpi_check.h"
#include "core/pool.h"
#include "core/writeback.h"
#include "io/db/db_names.h"
#include "io/db/merged_internal.h"
#include "io/hdf5/chunk_filters.h"

/* Elements per compression task: enough work to outweigh the queueing */
#define ELEMS_PER_TASK 4

typedef struct chunks_state {
    axb_pool *pool; /* NULL with a budget of one thread: the caller compresses alone */
    axb_task_group *group;
    axb_encoder **enc; /* per pool worker + the helping caller (the last), made at first use */
    int nenc;
    size_t cap;          /* bound of one stored chunk */
    unsigned char *cbuf; /* per element of a put: its stored chunk, cap bytes apart */
    int64_t *csize;      /* per element: stored bytes */
    unsigned char *rbuf; /* rank 0: one other rank's chunks */
    int64_t *rsize;      /* rank 0: their sizes */
    bool owed;           /* rank 0: the other ranks' last put is not received yet */
    /* other ranks: the put before, still being sent while this one is compressed (its buffers are
     * swapped with cbuf and csize; head, and the sends of both, by put parity) */
    unsigned char *cbuf_sent;
    int64_t *csize_sent;
    int64_t head[2][2];
    MPI_Request *req[2];
    int nreq[2], cur;
    hid_t fid, dset;          /* rank 0: the file through serial HDF5 */
    int fd;                   /* rank 0: for fdatasync at checkpoints */
    pthread_mutex_t mu;       /* guards st, msg, task_done and the compression counters (m->stats) */
    pthread_cond_t cv;        /* a task of the put is done */
    unsigned char *task_done; /* per task of the put (ELEMS_PER_TASK elements from k * ELEMS_PER_TASK) */
    axb_status st;            /* the first task failure */
    char msg[AXB_ERRMSG_MAX];
    axb_status pending; /* this rank's sends (or rank 0's writes) of the last put, agreed at the next call */
    axb_error pending_err;
} chunks_state;

typedef struct chunk_task {
    merged_impl *m;
    int64_t first, n; /* elements of the put's buffer */
} chunk_task;

static void compress_task(void *arg, int worker)
{
    chunk_task *t = arg;
    merged_impl *m = t->m;
    chunks_state *c = m->chunks;
    axb_error e = AXB_ERROR_INIT;
    axb_status st = AXB_OK;
    const double t0 = axb_thread_cpu_seconds();
    int64_t done = 0, stored = 0;
    if (!c->enc[worker]) st = axb_encoder_create(m->def.deflate, &c->enc[worker], &e);
    for (int64_t k = t->first; k < t->first + t->n && !st; k++) {
        size_t out = 0;
        st = axb_encode_chunk(c->enc[worker], (const unsigned char *)m->buf + k * m->block_bytes,
                              (size_t)m->block_bytes, c->cbuf + (size_t)k * c->cap, &out, &e);
        c->csize[k] = (int64_t)out;
        done += !st;
        stored += st ? 0 : (int64_t)out;
    }
    const double dt = axb_thread_cpu_seconds() - t0; /* CPU: the caller helping makes threads > cores */
    pthread_mutex_lock(&c->mu);
    m->stats.compress_s += dt;
    m->stats.chunks_encoded += done;
    m->stats.stored_bytes += stored;
    if (st && !c->st) {
        c->st = st;
        memcpy(c->msg, e.msg, sizeof c->msg);
    }
    c->task_done[t->first / ELEMS_PER_TASK] = 1;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    free(t);
}

/* Queues the compression of the put's @p count elements in the pool; without a pool the caller
 * does every task itself, now. */
static axb_status compress_submit(merged_impl *m, int64_t count, axb_error *err)
{
    chunks_state *c = m->chunks;
    memset(c->task_done, 0, (size_t)((count + ELEMS_PER_TASK - 1) / ELEMS_PER_TASK));
    axb_status st = AXB_OK;
    for (int64_t k = 0; k < count && !st; k += ELEMS_PER_TASK) {
        chunk_task *t = malloc(sizeof *t);
        if (!t) {
            st = axb_error_set(err, AXB_ERR_NOMEM, "compression task");
            break;
        }
        *t = (chunk_task){m, k, count - k < ELEMS_PER_TASK ? count - k : ELEMS_PER_TASK};
        if (!c->pool) {
            compress_task(t, c->nenc - 1); /* frees t */
            continue;
        }
        st = axb_task_group_submit(c->group, compress_task, t, err);
        if (st) free(t);
    }
    return st;
}

/* Waits for the put's compression (helping); @p st or the first task failure. */
static axb_status compress_wait(merged_impl *m, axb_status st, axb_error *err)
{
    chunks_state *c = m->chunks;
    if (c->group) axb_task_group_wait(c->group);
    pthread_mutex_lock(&c->mu);
    if (!st && c->st) st = axb_error_set(err, c->st, "%s", c->msg);
    c->st = AXB_OK;
    pthread_mutex_unlock(&c->mu);
    return st;
}

/* Waits until task @p k of the put is compressed, running queued tasks meanwhile; false if a task
 * failed (compress_wait reports it). */
static bool compress_wait_task(chunks_state *c, int64_t k)
{
    pthread_mutex_lock(&c->mu);
    while (!c->task_done[k] && !c->st) {
        pthread_mutex_unlock(&c->mu);
        const bool helped = axb_pool_help(c->pool);
        pthread_mutex_lock(&c->mu);
        if (!helped && !c->task_done[k] && !c->st) pthread_cond_wait(&c->cv, &c->mu);
    }
    const bool ok = !c->st;
    pthread_mutex_unlock(&c->mu);
    return ok;
}

/* Rank 0: the stored chunks of elements [start, start + n), sizes[k] bytes each, at data + k * cap. */
static axb_status write_chunks(const axb_db_writer *w, int64_t start, int64_t n, const int64_t *sizes,
                               const unsigned char *data, size_t cap, axb_error *err)
{
    merged_impl *m = w->impl;
    chunks_state *c = m->chunks;
    const double t0 = axb_wall_seconds();
    axb_status st = AXB_OK;
    for (int64_t k = 0; k < n && !st; k++) {
        const hsize_t off[5] = {(hsize_t)(start + k), 0, 0, 0, 0};
        if (H5Dwrite_chunk(c->dset, H5P_DEFAULT, 0, off, (size_t)sizes[k], data + (size_t)k * cap) < 0)
            st = axb_error_set(err, AXB_ERR_HDF5, "%s: writing the chunk of element %lld", w->path,
                               (long long)(start + k));
        else
            m->stats.bytes_written += sizes[k];
    }
    m->stats.write_s += axb_wall_seconds() - t0;
    return st;
}

static axb_status chunks_open(axb_db_writer *w, axb_error *err)
{
    merged_impl *m = w->impl;
    AXB_TRY(axb_merged_end_netcdf(w, err)); /* the structure is complete: netCDF's part is done */
    chunks_state *c = calloc(1, sizeof *c);
    axb_status st = c ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "%s: writer state", w->path);
    if (c) {
        m->chunks = c;
        c->fid = c->dset = -1;
        c->fd = -1;
        pthread_mutex_init(&c->mu, NULL);
        pthread_cond_init(&c->cv, NULL);
        /* a budget of one thread is the caller alone: a worker beside it compressed on the same
         * core, two busy threads where --threads said one (no faster for it: docs/benchmarks.md) */
        if (m->def.threads > 1) st = axb_pool_create(axb_pool_workers(m->def.threads), &c->pool, err);
        if (!st && c->pool) st = axb_task_group_create(c->pool, &c->group, err);
    }
    axb_encoder *probe = NULL;
    if (!st) st = axb_encoder_create(m->def.deflate, &probe, err);
    if (!st) {
        c->cap = axb_encoder_bound(probe, (size_t)m->block_bytes);
        c->nenc = (c->pool ? axb_pool_size(c->pool) : 0) + 1;
        c->enc = calloc((size_t)c->nenc, sizeof *c->enc);
        /* raw and stored buffers: the memory for data in flight, shared */
        /* the same on every rank (rank 0 needs as much again to receive) */
        const int64_t budget = m->def.inflight_bytes / 4;
        m->per = budget / (m->block_bytes + (int64_t)c->cap);
        if (m->per < 1) m->per = 1;
        if (m->per * m->block_bytes > m->def.max_put_bytes) m->per = m->def.max_put_bytes / m->block_bytes;
        if (m->per < 1) m->per = 1;
        m->buf = axb_large_alloc((size_t)m->per * (size_t)m->block_bytes);
        c->cbuf = axb_large_alloc((size_t)m->per * c->cap);
        c->csize = malloc((size_t)m->per * sizeof *c->csize);
        c->task_done = malloc((size_t)((m->per + ELEMS_PER_TASK - 1) / ELEMS_PER_TASK));
        if (!c->enc || !m->buf || !c->cbuf || !c->csize || !c->task_done)
            st = axb_error_set(err, AXB_ERR_NOMEM, "buffers for %lld elements (reduce --memory)", (long long)m->per);
    }
    axb_encoder_free(&probe);
    /* the others send one put while they compress the next */
    if (!st && w->rank != 0) {
        c->cbuf_sent = axb_large_alloc((size_t)m->per * c->cap);
        c->csize_sent = malloc((size_t)m->per * sizeof *c->csize_sent);
        for (int b = 0; b < 2; b++) c->req[b] = malloc((size_t)(m->per + 2) * sizeof *c->req[b]);
        if (!c->cbuf_sent || !c->csize_sent || !c->req[0] || !c->req[1])
            st = axb_error_set(err, AXB_ERR_NOMEM, "send buffers (reduce --memory)");
    }
    /* every rank's put size is the same (the same def), so rank 0 can size its receive buffer */
    if (!st && w->rank == 0) {
        c->rbuf = axb_large_alloc((size_t)m->per * c->cap);
        c->rsize = malloc((size_t)m->per * sizeof *c->rsize);
        if (!c->rbuf || !c->rsize) st = axb_error_set(err, AXB_ERR_NOMEM, "receive buffers (reduce --memory)");
        if (!st) {
            c->fid = H5Fopen(w->path, H5F_ACC_RDWR, H5P_DEFAULT);
            c->dset = c->fid >= 0 ? H5Dopen2(c->fid, "/" AXB_NC_VAR_MERGED, H5P_DEFAULT) : -1;
            c->fd = open(w->path, O_RDONLY);
            if (c->fid < 0 || c->dset < 0)
                st = axb_error_set(err, AXB_ERR_HDF5, "%s: cannot open for chunk writes%s", w->path,
                                   m->def.resume ? " (damaged by the kill? start again with --force)" : "");
        }
    }
    return axb_agree(w->comm, st, err);
}

/* The last put's sends and writes agreed together with @p st (every rank calls it at the same
 * points: the next put, sync, close). */
static axb_status agree_pending(const axb_db_writer *w, axb_status st, axb_error *err)
{
    chunks_state *c = ((merged_impl *)w->impl)->chunks;
    if (!st && c->pending) {
        st = c->pending;
        *err = c->pending_err;
    }
    c->pending = AXB_OK;
    return axb_agree(w->comm, st, err);
}

/* Rank 0: its own chunks of the put, each task's stored as soon as it is compressed. The caller
 * writes while the workers compress: a write to the page cache costs about what a compression
 * does (12 of 40 s in a repack of the 3.5 GB 20 s PREM database), and written after the whole
 * put was compressed it left the workers idle. */
static axb_status write_own(axb_db_writer *w, int64_t start, int64_t count, axb_error *err)
{
    merged_impl *m = w->impl;
    chunks_state *c = m->chunks;
    if (!c->pool) return write_chunks(w, start, count, c->csize, c->cbuf, c->cap, err);
    axb_status st = AXB_OK;
    for (int64_t k0 = 0; k0 < count && !st; k0 += ELEMS_PER_TASK) {
        if (!compress_wait_task(c, k0 / ELEMS_PER_TASK)) break;
        const int64_t n = count - k0 < ELEMS_PER_TASK ? count - k0 : ELEMS_PER_TASK;
        st = write_chunks(w, start + k0, n, c->csize + k0, c->cbuf + (size_t)k0 * c->cap, c->cap, err);
    }
    return st;
}

/* Other ranks: the sends of the put two calls back complete (its buffers are this put's). */
static axb_status sends_wait(chunks_state *c, int b, axb_error *err)
{
    axb_status st = AXB_OK;
    if (c->nreq[b] > 0) AXB_MPI_CHECK(st, err, MPI_Waitall(c->nreq[b], c->req[b], MPI_STATUSES_IGNORE), "chunks");
    c->nreq[b] = 0;
    return st;
}

/* Other ranks: compress, then send without waiting: rank 0 receives the put during its next one
 * (a failed compression sends no chunks, and its rank reports it). */
static axb_status put_send(axb_db_writer *w, int64_t start, int64_t count, axb_error *err)
{
    merged_impl *m = w->impl;
    chunks_state *c = m->chunks;
    const int b = c->cur;
    double t0 = axb_wall_seconds();
    axb_status st = sends_wait(c, b, err);
    m->stats.exchange_s += axb_wall_seconds() - t0;
    if (!st) st = compress_wait(m, compress_submit(m, count, err), err);
    t0 = axb_wall_seconds();
    c->head[b][0] = start;
    c->head[b][1] = st ? 0 : count;
    count = c->head[b][1];
    MPI_Request *rq = c->req[b];
    int n = 0;
    /* every message is sent even after a failed one: rank 0 receives them all either way, and
     * the next agreement carries the failure */
    rq[n] = MPI_REQUEST_NULL;
    AXB_MPI_CHECK(st, err, MPI_Isend(c->head[b], 2, MPI_INT64_T, 0, 0, w->comm, &rq[n++]), "chunk sizes");
    if (count > 0) {
        rq[n] = MPI_REQUEST_NULL;
        AXB_MPI_CHECK(st, err, MPI_Isend(c->csize, (int)count, MPI_INT64_T, 0, 1, w->comm, &rq[n++]), "chunk sizes");
    }
    /* whole slots, so rank 0 finds chunk k at k * cap: at most per * cap, checked at open */
    for (int64_t k = 0; k < count; k++) {
        rq[n] = MPI_REQUEST_NULL;
        AXB_MPI_CHECK(st, err,
                      MPI_Isend(c->cbuf + (size_t)k * c->cap, (int)c->csize[k], MPI_BYTE, 0, 2, w->comm, &rq[n++]),
                      "chunks");
    }
    c->nreq[b] = n;
    /* the next put compresses into the other buffers while these are sent */
    unsigned char *cb = c->cbuf;
    c->cbuf = c->cbuf_sent;
    c->cbuf_sent = cb;
    int64_t *cs = c->csize;
    c->csize = c->csize_sent;
    c->csize_sent = cs;
    c->cur = b ^ 1;
    m->stats.exchange_s += axb_wall_seconds() - t0;
    return st;
}

/* Rank 0: every other rank's last put received in rank order, and written when @p keep (else
 * dropped: a failure ends the run). */
static axb_status receive_others(axb_db_writer *w, bool keep, axb_error *err)
{
    merged_impl *m = w->impl;
    chunks_state *c = m->chunks;
    axb_status st = AXB_OK;
    int size = 1;
    MPI_Comm_size(w->comm, &size);
    c->owed = false;
    for (int r = 1; r < size; r++) {
        const double tr = axb_wall_seconds();
        int64_t head[2] = {0, 0};
        /* receive every message even after a failure: the sender must not block */
        axb_status rs = AXB_OK;
        AXB_MPI_CHECK(rs, err, MPI_Recv(head, 2, MPI_INT64_T, r, 0, w->comm, MPI_STATUS_IGNORE), "chunk sizes");
        if (head[1] < 0) head[1] = 0;
        if (head[1] > m->per) { /* cannot happen (the same per everywhere); receive it anyway */
            unsigned char *nb = realloc(c->rbuf, (size_t)head[1] * c->cap);
            if (nb) c->rbuf = nb;
            int64_t *ns = nb ? realloc(c->rsize, (size_t)head[1] * sizeof *ns) : NULL;
            if (ns) c->rsize = ns;
            if (!ns) {
                rs = axb_error_set(err, AXB_ERR_NOMEM, "receive buffers for rank %d", r);
                head[1] = 0;
            }
        }
        if (head[1] > 0)
            AXB_MPI_CHECK(rs, err, MPI_Recv(c->rsize, (int)head[1], MPI_INT64_T, r, 1, w->comm, MPI_STATUS_IGNORE),
                          "chunk sizes");
        for (int64_t k = 0; k < head[1]; k++) {
            if (c->rsize[k] < 0 || c->rsize[k] > (int64_t)c->cap) c->rsize[k] = (int64_t)c->cap; /* never past a slot */
            AXB_MPI_CHECK(
                rs, err,
                MPI_Recv(c->rbuf + (size_t)k * c->cap, (int)c->rsize[k], MPI_BYTE, r, 2, w->comm, MPI_STATUS_IGNORE),
                "chunks");
        }
        m->stats.exchange_s += axb_wall_seconds() - tr;
        if (!rs && !st && keep) st = write_chunks(w, head[0], head[1], c->rsize, c->rbuf, c->cap, err);
        if (rs && !st) st = rs;
    }
    return st;
}

/* Rank 0: its compression queued, the other ranks' put before received and written (the
 * workers compress meanwhile), then its own. Receiving a put late lets the other ranks compress
 * their next one while rank 0 writes: received at once, the senders waited for rank 0's own
 * compression and then for its writes, and with one thread per rank two ranks repacked the
 * 146 MB database no faster than one. */
static axb_status put_receive(axb_db_writer *w, int64_t start, int64_t count, axb_error *err)
{
    merged_impl *m = w->impl;
    chunks_state *c = m->chunks;
    axb_status st = compress_submit(m, count, err);
    if (c->owed) {
        const axb_status rs = receive_others(w, !st, err);
        if (!st) st = rs;
    }
    c->owed = true;
    if (!st) st = write_own(w, start, count, err);
    st = compress_wait(m, st, err);
    /* the disk starts on this put's chunks now, so that a checkpoint's sync (and the last one,
     * before the rename) waits for little more than the chunk index, as with the other strategies */
    if (!st) axb_start_writeback(c->fd, 0, 0);
    return st;
}

/* Every rank compresses its range; each other rank's chunks are received by rank 0 in rank order
 * and written during the next put (or the sync), and rank 0's own now. Collective. A rank does not
 * wait for rank 0's writes: it reads and compresses its next range meanwhile (with 2 ranks the
 * other rank idled through them, and a 146 MB database's repack took 1.6 times as long as with
 * one). So a put's failures, in compression as in sends and writes, are agreed at the next call
 * (put, sync or close), before anything is recorded as done. */
static axb_status chunks_put(axb_db_writer *w, int64_t start, int64_t count, axb_error *err)
{
    merged_impl *m = w->impl;
    chunks_state *c = m->chunks;
    AXB_TRY(agree_pending(w, AXB_OK, err));
    c->pending_err = (axb_error)AXB_ERROR_INIT;
    c->pending =
        w->rank == 0 ? put_receive(w, start, count, &c->pending_err) : put_send(w, start, count, &c->pending_err);
    return AXB_OK;
}

static axb_status chunks_sync(axb_db_writer *w, axb_error *err)
{
    merged_impl *m = w->impl;
    chunks_state *c = m->chunks;
    AXB_TRY(agree_pending(w, AXB_OK, err));
    axb_status st = AXB_OK;
    if (w->rank == 0) {
        /* the other ranks' last put first: a sync makes every put so far durable */
        if (c->owed) st = receive_others(w, true, err);
        const double t0 = axb_wall_seconds();
        if (!st && H5Fflush(c->fid, H5F_SCOPE_LOCAL) < 0) st = axb_error_set(err, AXB_ERR_HDF5, "%s: flush", w->path);
        if (!st && c->fd >= 0 && fdatasync(c->fd) != 0) st = axb_error_set(err, AXB_ERR_IO, "%s: sync failed", w->path);
        m->stats.sync_s += axb_wall_seconds() - t0;
    } else {
        st = sends_wait(c, 0, err);
        const axb_status s1 = sends_wait(c, 1, err);
        if (!st) st = s1;
    }
    return axb_agree(w->comm, st, err);
}

static axb_status chunks_close(axb_db_writer *w, axb_error *err)
{
    merged_impl *m = w->impl;
    chunks_state *c = m->chunks;
    axb_status st = AXB_OK;
    if (c) {
        if (c->pending) { /* a put's sends or writes failed after its agreement, and no sync followed */
            st = c->pending;
            *err = c->pending_err;
        }
        /* a failure ended the run between a put and a sync: its sends are received and dropped,
         * so that no rank waits for them (every rank made the same puts: each began agreed) */
        axb_error ignored = AXB_ERROR_INIT;
        if (w->rank == 0 && c->owed) (void)receive_others(w, false, &ignored);
        for (int b = 0; w->rank != 0 && b < 2; b++) (void)sends_wait(c, b, &ignored);
        axb_task_group_free(&c->group);
        axb_pool_destroy(&c->pool);
        for (int k = 0; c->enc && k < c->nenc; k++) axb_encoder_free(&c->enc[k]);
        free(c->enc);
        if (c->dset >= 0) H5Dclose(c->dset);
        if (c->fid >= 0 && H5Fclose(c->fid) < 0) st = axb_error_set(err, AXB_ERR_HDF5, "%s: close", w->path);
        if (c->fd >= 0) close(c->fd);
        free(c->cbuf);
        free(c->csize);
        free(c->rbuf);
        free(c->rsize);
        free(c->cbuf_sent);
        free(c->csize_sent);
        free(c->req[0]);
        free(c->req[1]);
        free(c->task_done);
        pthread_mutex_destroy(&c->mu);
        pthread_cond_destroy(&c->cv);
        free(c);
        m->chunks = NULL;
    }
    free(m->buf);
    m->buf = NULL;
    return axb_agree(w->comm, st, err);
}

const merged_strategy axb_merged_chunks = {
    .name = "chunks",
    .open = chunks_open,
    .buffer = axb_merged_own_buffer,
    .put = chunks_put,
    .sync = chunks_sync,
    .close = chunks_close,
};
