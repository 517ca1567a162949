/* Whole chunks of chunked float datasets of one file, read without HDF5 in the data path.
 *
 * Why: a bulk read of the original layout through H5Dread costs three copies per byte (page cache
 * -> HDF5 -> chunk buffer -> caller), one pread per chunk, and for AxiSEM's deflated,
 * fletcher32-checked files a serial filter pipeline inside the library: perf showed HDF5's
 * selection code, zlib and malloc taking 85 % of an extraction from such a file. HDF5 still says
 * where each chunk is and how it was filtered (H5Dget_chunk_info_by_coord, once per chunk); runs
 * of chunks adjacent on disk are read with one pread each, with O_DIRECT where the file system
 * allows it, and decoded (chunk_filters.c) or copied into a cache slot, from which the caller
 * transposes.
 *
 * One reader serves all variables of a file: writers (AxiSEM, mkdb) put the chunks of the same
 * points of every variable next to each other, so a prefetch of what all variables need, sorted
 * by file address, reads it in a few long runs. Reads queued ahead are tasks of a thread pool
 * (no HDF5 or MPI calls there); the caller transposes one request while the next one's chunks
 * arrive, and while it waits it runs queued tasks itself. */
#define _GNU_SOURCE /* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axibulk/timefmt.h"
#include "core/large_alloc.h"
#include "io/hdf5/chunk_filters.h"
#include "io/hdf5/chunk_index.h"
#include "io/hdf5/chunk_reader.h"
#include "io/hdf5/h5util.h"

#define RC_ALIGN ((int64_t)4096)
#define RC_GROUP_MAX ((int64_t)8 << 20) /* bytes per pread: large enough for full disk speed */
/* stored bytes per task of filtered chunks: small enough that a request's chunks spread over
 * the workers, large enough for sequential reads */
#define RC_TASK_FILTERED ((int64_t)1 << 20)
#define RC_MAX_DSETS 8
/* filtered datasets: at least this many slots, so decoding can run ahead of the caller */
#define RC_MIN_SLOTS_FILTERED 64
/* Added to the use stamp of a chunk a prefetch listed, until it is read: such a chunk is replaced
 * only after every chunk already read (stamped by its listing time alone, it would be older than
 * the chunks the current request had just read, and a later prefetch would take its slot first). */
#define RC_LISTED ((int64_t)1 << 40)

enum { SLOT_READY = 0, SLOT_PENDING = 1 };

typedef struct rc_dset {
    hid_t dset; /* not owned */
    char name[64];
    int axis, other;
    int64_t cp, nt, np; /* chunk width along axis, length of the other axis, points */
    int64_t nchunks;
    bool filtered;
    bool indexed; /* addr/size/mask of every chunk known (chunk_index.h): no HDF5 lookups */
    axb_filters filt;
    int64_t *addr;  /* per chunk: file address, -1 unknown yet */
    int64_t *size;  /* per chunk: bytes stored */
    uint32_t *mask; /* per chunk: filters skipped */
    int32_t *slot;  /* per chunk: cache slot or -1 */
    int32_t *uses;  /* per chunk: requests still expected to read it (axb_chunk_reader_expect); 0: none known */
} rc_dset;

/* One chunk of a queued read. */
typedef struct rc_item {
    int64_t addr, size, chunk;
    int32_t ds, slot;
    uint32_t mask;
} rc_item;

/* A file descriptor that falls back from O_DIRECT to the page cache when the file system
 * refuses a transfer (EINVAL at read time: stricter alignment than assumed). */
typedef struct rc_fd {
    int fd;
    bool direct;
} rc_fd;

/* What a thread needs to read and decode; one per pool worker, one for a helping caller. Used by
 * that thread only, set up at its first task. */
typedef struct rc_worker {
    rc_fd f;
    unsigned char *buf;
    axb_decoder *dec;
    bool ready;
} rc_worker;

struct axb_chunk_reader {
    char *path;
    rc_fd main;          /* the caller's own reads */
    int64_t chunk_bytes; /* decoded; the same for every dataset taken */
    rc_dset ds[RC_MAX_DSETS];
    int nds;
    bool any_filtered;
    unsigned char *gbuf; /* caller's group buffer: RC_GROUP_MAX (or one chunk) + 2 pages */
    int64_t gcap;
    axb_decoder *mdec;     /* the caller's decoder and ... */
    unsigned char *mchunk; /* ... one decoded chunk */
    /* Chunks already read: a point serves up to four elements, which may fall in different
     * requests, so a chunk is wanted again later. Least recently used is replaced; slots being
     * filled are never. */
    int64_t nslots, clock;
    int64_t nlisted;      /* slots listed by a prefetch and not read since (caller only) */
    unsigned char *slots; /* nslots x chunk_bytes */
    int32_t *slot_ds;
    int64_t *slot_chunk, *slot_used;
    /* The slots as a binary min-heap on (slot_used, index), and each slot's place in it (caller
     * only, like slot_used): the least recently used slot in O(1), kept in O(log nslots) per use,
     * where a scan of all slots per chunk cost more the larger the cache (--memory). */
    int64_t *heap, *heap_pos;
    unsigned char *slot_state; /* SLOT_*, under mu */
    rc_item *items;            /* scratch of the caller's queueing */
    int64_t icap;
    /* the tasks */
    axb_pool *pool, *own_pool;
    axb_task_group *group; /* this reader's queued reads */
    rc_worker *w;          /* [pool size + 1] */
    int nw;
    pthread_mutex_t mu;
    pthread_cond_t cv;  /* a task done */
    axb_chunk_stats st; /* under mu (the caller's own share too) */
    axb_status th_st;   /* the first failure of a task, kept for every later call */
    char th_msg[AXB_ERRMSG_MAX];
};

/* A run of chunks adjacent on disk, for one task. */
typedef struct rc_task {
    axb_chunk_reader *r;
    int64_t addr, len, n;
    rc_item items[];
} rc_task;

/* O_DIRECT (@p direct) suits long sequential reads of plain chunks, which are copied once and
 * would only crowd the page cache; deflated chunks are read in small pieces, often again, and
 * decoding costs far more than the page cache's copy: those go through the cache. */
static axb_status fd_open(const char *path, bool direct, rc_fd *f, axb_error *err)
{
    f->fd = -1;
    f->direct = false;
#ifdef O_DIRECT
    if (direct) f->fd = open(path, O_RDONLY | O_DIRECT);
    f->direct = f->fd >= 0;
#else
    (void)direct;
#endif
    if (f->fd < 0) f->fd = open(path, O_RDONLY);
    if (f->fd < 0) return axb_error_set(err, AXB_ERR_IO, "cannot open for reading: %s", strerror(errno));
    return AXB_OK;
}

/* Reads file bytes [off, off + len) into buf (RC_ALIGN-aligned, len + 2 pages long); returns
 * where they start in it. */
static axb_status read_span(rc_fd *f, const char *path, unsigned char *buf, int64_t off, int64_t len,
                            const unsigned char **at, axb_error *err)
{
    const int64_t a = f->direct ? off / RC_ALIGN * RC_ALIGN : off;
    int64_t want = off + len - a;
    if (f->direct) want = (want + RC_ALIGN - 1) / RC_ALIGN * RC_ALIGN;
    int64_t got = 0;
    while (got < off + len - a) {
        const ssize_t n = pread(f->fd, buf + got, (size_t)(want - got), (off_t)(a + got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EINVAL && f->direct) {
            const int fd = open(path, O_RDONLY);
            if (fd < 0) return axb_error_set(err, AXB_ERR_IO, "cannot open for reading: %s", strerror(errno));
            close(f->fd);
            f->fd = fd;
            f->direct = false;
            return read_span(f, path, buf, off, len, at, err);
        }
        if (n < 0)
            return axb_error_set(err, AXB_ERR_IO, "read of %lld bytes at offset %lld: %s", (long long)len,
                                 (long long)off, strerror(errno));
        if (n == 0)
            return axb_error_set(err, AXB_ERR_FORMAT, "truncated: chunk data end at offset %lld, after the file's end",
                                 (long long)(off + len));
        got += n;
    }
    *at = buf + (off - a);
    return AXB_OK;
}

/* Chunk c of dataset d, stored at p, into dst (chunk_bytes): copied, or decoded with @p dec. */
static axb_status put_chunk(const axb_chunk_reader *r, const rc_dset *d, int64_t c, uint32_t mask,
                            const unsigned char *p, int64_t size, axb_decoder *dec, unsigned char *dst,
                            axb_chunk_stats *st, axb_error *err)
{
    if (!d->filtered) {
        memcpy(dst, p, (size_t)r->chunk_bytes);
        return AXB_OK;
    }
    axb_decode_times t = {0};
    const axb_status s = axb_decode_chunk(dec, &d->filt, mask, p, (size_t)size, dst, (size_t)r->chunk_bytes, &t, err);
    st->inflate += t.inflate;
    st->unshuffle += t.unshuffle;
    st->checksum += t.checksum;
    st->chunks_decoded += t.chunks;
    st->stored_bytes += t.stored_bytes;
    if (s)
        return axb_error_prefix(err, "variable '%s', chunk %lld (points %lld-%lld)", d->name, (long long)c,
                                (long long)(c * d->cp), (long long)((c + 1) * d->cp - 1));
    return AXB_OK;
}

/* The decoding stages are timed chunk by chunk on the wall clock (a thread CPU clock is a system
 * call). A thread that waited for a core meanwhile scales them down to the @p cpu seconds it used
 * while they ran, so the split reports work done, not time spent queued behind other threads. */
static void stages_to_cpu(axb_chunk_stats *st, double *t_tr, double cpu)
{
    const double wall = st->inflate + st->unshuffle + st->checksum + *t_tr;
    if (!(wall > cpu) || cpu < 0) return;
    const double f = cpu / wall;
    st->inflate *= f;
    st->unshuffle *= f;
    st->checksum *= f;
    *t_tr *= f;
}

static axb_status worker_ready(axb_chunk_reader *r, rc_worker *w, axb_error *err)
{
    if (w->ready) return AXB_OK;
    if (!w->buf) w->buf = axb_large_alloc((size_t)(r->gcap + 2 * RC_ALIGN)); /* page-aligned: O_DIRECT */
    if (!w->buf) return axb_error_set(err, AXB_ERR_NOMEM, "read buffer");
    if (r->any_filtered && !w->dec) AXB_TRY(axb_decoder_create(&w->dec, err));
    if (w->f.fd < 0) AXB_TRY(fd_open(r->path, !r->any_filtered, &w->f, err));
    w->ready = true;
    return AXB_OK;
}

static void run_task(void *arg, int worker)
{
    rc_task *t = arg;
    axb_chunk_reader *r = t->r;
    rc_worker *w = &r->w[worker];
    axb_chunk_stats st = {0};
    axb_error e = AXB_ERROR_INIT;
    pthread_mutex_lock(&r->mu);
    const bool failed = r->th_st != AXB_OK;
    pthread_mutex_unlock(&r->mu);
    axb_status s = AXB_OK;
    if (!failed) {
        const unsigned char *g = NULL;
        s = worker_ready(r, w, &e);
        const double t0 = axb_wall_seconds();
        if (!s) s = read_span(&w->f, r->path, w->buf, t->addr, t->len, &g, &e);
        st.read += axb_wall_seconds() - t0;
        const double c0 = axb_thread_cpu_seconds();
        for (int64_t j = 0; j < t->n && !s; j++) {
            const rc_item *it = &t->items[j];
            s = put_chunk(r, &r->ds[it->ds], it->chunk, it->mask, g + (it->addr - t->addr), it->size, w->dec,
                          r->slots + (int64_t)it->slot * r->chunk_bytes, &st, &e);
        }
        double none = 0;
        stages_to_cpu(&st, &none, axb_thread_cpu_seconds() - c0);
    }
    pthread_mutex_lock(&r->mu);
    if (s && r->th_st == AXB_OK) {
        r->th_st = s;
        snprintf(r->th_msg, sizeof r->th_msg, "%s", e.msg);
    }
    r->st.read += st.read;
    r->st.inflate += st.inflate;
    r->st.unshuffle += st.unshuffle;
    r->st.checksum += st.checksum;
    r->st.chunks_decoded += st.chunks_decoded;
    r->st.stored_bytes += st.stored_bytes;
    /* after a failure the slots are released unfilled; every later wait reports the failure */
    for (int64_t j = 0; j < t->n; j++) r->slot_state[t->items[j].slot] = SLOT_READY;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    free(t);
}

/* Waits until no task of this reader is queued or running (helping the pool meanwhile). */
static void drain(axb_chunk_reader *r)
{
    if (r->group) axb_task_group_wait(r->group);
}

void axb_chunk_reader_close(axb_chunk_reader **pr)
{
    axb_chunk_reader *r = pr ? *pr : NULL;
    if (!r) return;
    axb_task_group_free(&r->group);
    axb_pool_destroy(&r->own_pool);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    if (r->main.fd >= 0) close(r->main.fd);
    for (int k = 0; k < r->nw; k++) {
        if (r->w[k].f.fd >= 0) close(r->w[k].f.fd);
        free(r->w[k].buf);
        axb_decoder_free(&r->w[k].dec);
    }
    free(r->w);
    for (int d = 0; d < r->nds; d++) {
        free(r->ds[d].addr);
        free(r->ds[d].size);
        free(r->ds[d].mask);
        free(r->ds[d].slot);
        free(r->ds[d].uses);
    }
    axb_decoder_free(&r->mdec);
    free(r->mchunk);
    free(r->path);
    free(r->gbuf);
    free(r->slots);
    free(r->slot_ds);
    free(r->slot_chunk);
    free(r->slot_used);
    free(r->slot_state);
    free(r->heap);
    free(r->heap_pos);
    free(r->items);
    free(r);
    *pr = NULL;
}

axb_status axb_chunk_reader_open(const char *path, int64_t cache_bytes, axb_chunk_reader **out, axb_error *err)
{
    *out = NULL;
    axb_chunk_reader *r = calloc(1, sizeof *r);
    if (!r) return axb_error_set(err, AXB_ERR_NOMEM, "raw chunk reader");
    r->main.fd = -1;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->nslots = cache_bytes; /* in bytes until the first dataset sets the chunk size */
    r->path = strdup(path);
    axb_status st =
        r->path ? fd_open(path, true, &r->main, err) : axb_error_set(err, AXB_ERR_NOMEM, "raw chunk reader");
    if (st) {
        axb_chunk_reader_close(&r);
        return st;
    }
    *out = r;
    return AXB_OK;
}

void axb_chunk_reader_set_pool(axb_chunk_reader *r, axb_pool *pool)
{
    if (!r->w) r->pool = pool;
}

/* The pool and per-thread state, at the first task. */
static axb_status ensure_pool(axb_chunk_reader *r, axb_error *err)
{
    if (r->w) return AXB_OK;
    if (!r->pool) {
        AXB_TRY(axb_pool_create(1, &r->own_pool, err));
        r->pool = r->own_pool;
    }
    AXB_TRY(axb_task_group_create(r->pool, &r->group, err));
    /* the caller waits for its chunks, maybe while the pool also computes an extraction batch */
    axb_task_group_urgent(r->group);
    const int nw = axb_pool_size(r->pool) + 1;
    r->w = calloc((size_t)nw, sizeof *r->w);
    if (!r->w) return axb_error_set(err, AXB_ERR_NOMEM, "reader threads");
    for (int k = 0; k < nw; k++) r->w[k].f.fd = -1;
    r->nw = nw;
    return AXB_OK;
}

/* The first dataset fixes the chunk size, and with it the buffers and the cache. */
static axb_status size_cache(axb_chunk_reader *r, int64_t chunk_bytes, int64_t nchunks, bool filtered, axb_error *err)
{
    const int64_t cache_bytes = r->nslots;
    r->chunk_bytes = chunk_bytes;
    r->gcap = chunk_bytes > RC_GROUP_MAX ? chunk_bytes : RC_GROUP_MAX;
    r->nslots = cache_bytes / chunk_bytes;
    if (filtered && r->nslots < RC_MIN_SLOTS_FILTERED) r->nslots = RC_MIN_SLOTS_FILTERED;
    if (r->nslots > (int64_t)RC_MAX_DSETS * nchunks) r->nslots = (int64_t)RC_MAX_DSETS * nchunks;
    if (r->nslots > INT32_MAX) r->nslots = INT32_MAX;
    r->gbuf = axb_large_alloc((size_t)(r->gcap + 2 * RC_ALIGN)); /* page-aligned: O_DIRECT */
    r->mchunk = malloc((size_t)chunk_bytes);
    if (r->nslots > 0) {
        r->slots = axb_large_alloc((size_t)(r->nslots * chunk_bytes));
        r->slot_ds = malloc((size_t)r->nslots * sizeof *r->slot_ds);
        r->slot_chunk = malloc((size_t)r->nslots * sizeof *r->slot_chunk);
        r->slot_used = calloc((size_t)r->nslots, sizeof *r->slot_used);
        r->slot_state = calloc((size_t)r->nslots, 1);
        r->heap = malloc((size_t)r->nslots * sizeof *r->heap);
        r->heap_pos = malloc((size_t)r->nslots * sizeof *r->heap_pos);
    }
    if (!r->gbuf || !r->mchunk ||
        (r->nslots > 0 &&
         (!r->slots || !r->slot_ds || !r->slot_chunk || !r->slot_used || !r->slot_state || !r->heap || !r->heap_pos)))
        return axb_error_set(err, AXB_ERR_NOMEM, "raw chunk cache of %lld MB", (long long)(cache_bytes >> 20));
    for (int64_t k = 0; k < r->nslots; k++) {
        r->slot_chunk[k] = -1;
        r->heap[k] = r->heap_pos[k] = k; /* all stamps 0: index order is a heap */
    }
    return AXB_OK;
}

/* The whole chunk index in one pass (chunk_index.h); where it cannot be read, chunk_addr asks HDF5. */
static axb_status read_index(axb_chunk_reader *r, rc_dset *d, axb_error *err)
{
    const int fd = open(r->path, O_RDONLY);
    if (fd < 0) return AXB_OK;
    bool ok = false;
    axb_status st = axb_chunk_index_read(d->dset, fd, d->axis, d->cp, d->nchunks, d->addr, d->size, d->mask, &ok, err);
    close(fd);
    if (st || !ok) {
        for (int64_t c = 0; c < d->nchunks; c++) d->addr[c] = -1;
        return st;
    }
    d->indexed = true;
    return AXB_OK;
}

axb_status axb_chunk_reader_add(axb_chunk_reader *r, hid_t dset, int axis, const char *name, int *idx, axb_error *err)
{
    *idx = -1;
    hsize_t dims[2], cdims[2];
    axb_filters filt = {0};
    hid_t fs = H5Dget_space(dset), dcpl = H5Dget_create_plist(dset), type = H5Dget_type(dset);
    bool ok = r->nds < RC_MAX_DSETS && r->nw == 0 && fs >= 0 && dcpl >= 0 && type >= 0 &&
        H5Sget_simple_extent_ndims(fs) == 2 && (axis == 0 || axis == 1) && H5Pget_layout(dcpl) == H5D_CHUNKED &&
        H5Pget_chunk(dcpl, 2, cdims) == 2 && axb_filters_get(dcpl, &filt) && H5Tequal(type, H5T_IEEE_F32LE) > 0 &&
        H5Tequal(H5T_NATIVE_FLOAT, H5T_IEEE_F32LE) > 0;
    if (ok) H5Sget_simple_extent_dims(fs, dims, NULL);
    if (fs >= 0) H5Sclose(fs);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (type >= 0) H5Tclose(type);
    if (!ok || cdims[1 - axis] != dims[1 - axis] || cdims[axis] == 0) return AXB_OK; /* not for this path */
    rc_dset *d = &r->ds[r->nds];
    d->dset = dset;
    snprintf(d->name, sizeof d->name, "%s", name);
    d->axis = axis;
    d->other = 1 - axis;
    d->cp = (int64_t)cdims[axis];
    d->nt = (int64_t)dims[d->other];
    d->np = (int64_t)dims[axis];
    d->nchunks = (d->np + d->cp - 1) / d->cp;
    d->filt = filt;
    d->filtered = filt.n > 0;
    const int64_t cb = d->cp * d->nt * (int64_t)sizeof(float); /* edge chunks are stored whole too */
    if (r->chunk_bytes == 0)
        AXB_TRY(size_cache(r, cb, d->nchunks, d->filtered, err));
    else if (cb != r->chunk_bytes)
        return AXB_OK; /* one slot size per reader */
    if (d->filtered && !r->mdec) AXB_TRY(axb_decoder_create(&r->mdec, err));
    if (d->filtered && r->main.direct) { /* see fd_open */
        close(r->main.fd);
        AXB_TRY(fd_open(r->path, false, &r->main, err));
    }
    r->any_filtered = r->any_filtered || d->filtered;
    d->addr = malloc((size_t)d->nchunks * sizeof *d->addr);
    d->size = malloc((size_t)d->nchunks * sizeof *d->size);
    d->mask = malloc((size_t)d->nchunks * sizeof *d->mask);
    d->slot = malloc((size_t)d->nchunks * sizeof *d->slot);
    d->uses = calloc((size_t)d->nchunks, sizeof *d->uses);
    if (!d->addr || !d->size || !d->mask || !d->slot || !d->uses) {
        free(d->addr);
        free(d->size);
        free(d->mask);
        free(d->slot);
        free(d->uses);
        memset(d, 0, sizeof *d);
        return axb_error_set(err, AXB_ERR_NOMEM, "raw chunk index");
    }
    for (int64_t c = 0; c < d->nchunks; c++) {
        d->addr[c] = -1;
        d->slot[c] = -1;
    }
    AXB_TRY(read_index(r, d, err));
    *idx = r->nds++;
    return AXB_OK;
}

bool axb_chunk_reader_indexed(const axb_chunk_reader *r, int idx)
{
    return idx >= 0 && idx < r->nds && r->ds[idx].indexed;
}

bool axb_chunk_reader_filtered(const axb_chunk_reader *r, int idx)
{
    return idx >= 0 && idx < r->nds && r->ds[idx].filtered;
}

/* Where chunk c is and how it was stored; false when it cannot be taken from the file as it is:
 * never written, or (unfiltered) not stored whole and plain. The caller then takes HDF5's path,
 * which knows about fill values, or (filtered) reports it. */
static bool chunk_addr(const axb_chunk_reader *r, rc_dset *d, int64_t c, int64_t *addr)
{
    if (d->indexed) {
        if (d->addr[c] < 0 || d->size[c] <= 0) return false;
        if (!d->filtered && (d->size[c] != r->chunk_bytes || d->mask[c] != 0)) return false;
    } else if (d->addr[c] < 0) {
        hsize_t off[2] = {0, 0}, size = 0;
        off[d->axis] = (hsize_t)(c * d->cp);
        unsigned mask = 0;
        haddr_t a = HADDR_UNDEF;
        if (H5Dget_chunk_info_by_coord(d->dset, off, &mask, &a, &size) < 0 || a == HADDR_UNDEF || size == 0)
            return false;
        if (!d->filtered && ((int64_t)size != r->chunk_bytes || mask != 0)) return false;
        d->addr[c] = (int64_t)a;
        d->size[c] = (int64_t)size;
        d->mask[c] = mask;
    }
    *addr = d->addr[c];
    return true;
}

static axb_status chunk_missing(const rc_dset *d, int64_t c, axb_error *err)
{
    return axb_error_set(err, AXB_ERR_FORMAT,
                         "variable '%s', chunk %lld (points %lld-%lld): not stored (a run that never finished "
                         "writing?)",
                         d->name, (long long)c, (long long)(c * d->cp), (long long)((c + 1) * d->cp - 1));
}

/* Slot a is used before slot b: older stamp, or the lower index of two equal ones. */
static bool heap_before(const axb_chunk_reader *r, int64_t a, int64_t b)
{
    return r->slot_used[a] < r->slot_used[b] || (r->slot_used[a] == r->slot_used[b] && a < b);
}

static void heap_swap(axb_chunk_reader *r, int64_t i, int64_t j)
{
    const int64_t a = r->heap[i], b = r->heap[j];
    r->heap[i] = b;
    r->heap[j] = a;
    r->heap_pos[b] = i;
    r->heap_pos[a] = j;
}

/* Slot k's stamp becomes @p used, and the heap follows. */
static void set_used(axb_chunk_reader *r, int64_t k, int64_t used)
{
    r->slot_used[k] = used;
    int64_t i = r->heap_pos[k];
    while (i > 0 && heap_before(r, r->heap[i], r->heap[(i - 1) / 2])) {
        heap_swap(r, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    for (;;) {
        const int64_t a = 2 * i + 1, b = a + 1;
        int64_t m = i;
        if (a < r->nslots && heap_before(r, r->heap[a], r->heap[m])) m = a;
        if (b < r->nslots && heap_before(r, r->heap[b], r->heap[m])) m = b;
        if (m == i) return;
        heap_swap(r, i, m);
        i = m;
    }
}

/* Slot k is listed by a prefetch and not read since. Caller only, like nlisted. */
static bool slot_listed(const axb_chunk_reader *r, int64_t k)
{
    return r->slot_used[k] >= RC_LISTED;
}

/* Marks slot k listed (used now, kept until read). */
static void slot_list(axb_chunk_reader *r, int64_t k)
{
    if (!slot_listed(r, k)) r->nlisted++;
    set_used(r, k, ++r->clock + RC_LISTED);
}

/* Slot k is read (used: the stamp it gets) or emptied (used: 0). */
static void slot_unlist(axb_chunk_reader *r, int64_t k, int64_t used)
{
    if (slot_listed(r, k)) r->nlisted--;
    set_used(r, k, used);
}

/* The least recently used slot no task is filling (-1: none), emptied. Under mu. A slot being
 * filled is always listed (list_new), so the heap's first slot is free unless every slot is
 * listed; only then are they searched for one no task holds. */
static int64_t take_slot(axb_chunk_reader *r)
{
    int64_t best = r->nslots > 0 && !slot_listed(r, r->heap[0]) ? r->heap[0] : -1;
    if (best < 0)
        for (int64_t k = 0; k < r->nslots; k++)
            if (r->slot_state[k] == SLOT_READY && (best < 0 || r->slot_used[k] < r->slot_used[best])) best = k;
    if (best < 0) return -1;
    if (r->slot_chunk[best] >= 0) r->ds[r->slot_ds[best]].slot[r->slot_chunk[best]] = -1;
    r->slot_chunk[best] = -1;
    slot_unlist(r, best, 0); /* if listed, it was never read: the cache is too small */
    return best;
}

/* Keeps a copy of chunk c of dataset d (decoded bytes at p). */
static void cache_put(axb_chunk_reader *r, int d, int64_t c, const unsigned char *p)
{
    if (r->nslots == 0 || r->ds[d].slot[c] >= 0) return;
    pthread_mutex_lock(&r->mu);
    const int64_t k = take_slot(r);
    pthread_mutex_unlock(&r->mu);
    if (k < 0) return;
    memcpy(r->slots + k * r->chunk_bytes, p, (size_t)r->chunk_bytes);
    r->slot_ds[k] = d;
    r->slot_chunk[k] = c;
    set_used(r, k, ++r->clock);
    r->ds[d].slot[c] = (int32_t)k;
}

/* Chunk c of dataset d has been read by one more request; true when no request expected later
 * needs it (then its slot, if any, is the first to be reused: a known future beats recency). */
static bool spent(axb_chunk_reader *r, rc_dset *d, int64_t c)
{
    if (d->uses[c] == 0 || --d->uses[c] > 0) return false;
    const int64_t k = d->slot[c];
    if (k >= 0 && !slot_listed(r, k)) set_used(r, k, -1);
    return true;
}

/* Waits until slot k holds its chunk, running queued tasks meanwhile; a task's failure, if any. */
static axb_status slot_wait(axb_chunk_reader *r, int64_t k, axb_error *err)
{
    pthread_mutex_lock(&r->mu);
    while (r->slot_state[k] == SLOT_PENDING) {
        pthread_mutex_unlock(&r->mu);
        const bool helped = r->pool && axb_pool_help(r->pool);
        pthread_mutex_lock(&r->mu);
        if (!helped && r->slot_state[k] == SLOT_PENDING) pthread_cond_wait(&r->cv, &r->mu);
    }
    const axb_status st = r->th_st;
    if (st) axb_error_set(err, st, "%s", r->th_msg);
    pthread_mutex_unlock(&r->mu);
    return st;
}

static axb_status task_failure(axb_chunk_reader *r, axb_error *err)
{
    pthread_mutex_lock(&r->mu);
    const axb_status failed = r->th_st;
    if (failed) axb_error_set(err, failed, "%s", r->th_msg);
    pthread_mutex_unlock(&r->mu);
    return failed;
}

static int item_cmp(const void *a, const void *b)
{
    const int64_t x = ((const rc_item *)a)->addr, y = ((const rc_item *)b)->addr;
    return (x > y) - (x < y);
}

static axb_status items_room(axb_chunk_reader *r, int64_t n, axb_error *err)
{
    if (n <= r->icap) return AXB_OK;
    rc_item *ni = realloc(r->items, (size_t)n * sizeof *ni);
    if (!ni) return axb_error_set(err, AXB_ERR_NOMEM, "read queue of %lld chunks", (long long)n);
    r->items = ni;
    r->icap = n;
    return AXB_OK;
}

/* Queues reads of items[0..m) (chunks with a slot each, marked pending): sorted by address, in
 * runs adjacent on disk, one task per run. */
static axb_status submit(axb_chunk_reader *r, int64_t m, int64_t *bytes, int64_t *calls, axb_error *err)
{
    if (m > 1) qsort(r->items, (size_t)m, sizeof *r->items, item_cmp);
    for (int64_t k = 0; k < m;) {
        const rc_dset *d0 = &r->ds[r->items[k].ds];
        const int64_t cap = d0->filtered && r->gcap > RC_TASK_FILTERED ? RC_TASK_FILTERED : r->gcap;
        int64_t n = 1, len = r->items[k].size;
        while (k + n < m && r->items[k + n].addr == r->items[k].addr + len && len + r->items[k + n].size <= cap) {
            len += r->items[k + n].size;
            n++;
        }
        rc_task *t = malloc(sizeof *t + (size_t)n * sizeof(rc_item));
        axb_status st = t ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "read task");
        if (t) {
            *t = (rc_task){r, r->items[k].addr, len, n};
            memcpy(t->items, r->items + k, (size_t)n * sizeof(rc_item));
            /* the kernel starts reading now: a task may wait in the queue while its thread
             * decodes, and with one thread a rank would otherwise leave the disk idle for all the
             * time it computes (O_DIRECT reads bypass the page cache: no hint for them) */
            if (!r->main.direct) (void)posix_fadvise(r->main.fd, (off_t)t->addr, (off_t)len, POSIX_FADV_WILLNEED);
            st = axb_task_group_submit(r->group, run_task, t, err);
            if (st) free(t);
        }
        if (st) { /* nothing will fill these slots: release them */
            pthread_mutex_lock(&r->mu);
            for (int64_t j = k; j < m; j++) {
                const rc_item *it = &r->items[j];
                r->slot_state[it->slot] = SLOT_READY;
                r->slot_chunk[it->slot] = -1;
                slot_unlist(r, it->slot, 0);
                r->ds[it->ds].slot[it->chunk] = -1;
            }
            pthread_mutex_unlock(&r->mu);
            return st;
        }
        *bytes += len;
        (*calls)++;
        k += n;
    }
    return AXB_OK;
}

/* Gives chunk c of dataset di a slot and makes it items[*m] (pending); false when every slot is
 * being filled. Under mu. */
static bool list_new(axb_chunk_reader *r, int di, int64_t c, int64_t *m)
{
    rc_dset *d = &r->ds[di];
    const int64_t s = take_slot(r);
    if (s < 0) return false;
    r->items[(*m)++] = (rc_item){d->addr[c], d->size[c], c, (int32_t)di, (int32_t)s, d->mask[c]};
    r->slot_state[s] = SLOT_PENDING;
    r->slot_ds[s] = di;
    r->slot_chunk[s] = c;
    slot_list(r, s);
    d->slot[c] = (int32_t)s;
    return true;
}

/* A dataset of prefetch: all its chunks touched by ids are known; false if one is not stored. */
static bool chunks_known(const axb_chunk_reader *r, rc_dset *d, int64_t n, const int64_t *ids)
{
    int64_t addr;
    for (int64_t a = 0; a < n; a++)
        if ((a == 0 || ids[a] / d->cp != ids[a - 1] / d->cp) && !chunk_addr(r, d, ids[a] / d->cp, &addr)) return false;
    return true;
}

static bool dset_takes(const rc_dset *d, int64_t n, const int64_t *ids, double min_fill)
{
    return d->filtered || axb_h5_chunks_dense(n, ids, d->cp, min_fill);
}

axb_status axb_chunk_reader_prefetch(axb_chunk_reader *r, int64_t n, const int64_t *ids, double min_fill,
                                     bool filtered_only, int64_t *bytes, int64_t *calls, axb_error *err)
{
    *bytes = *calls = 0;
    if (n == 0 || r->nslots == 0) return AXB_OK;
    AXB_TRY(task_failure(r, err));
    /* the chunks every dataset needs that no earlier prefetch listed: cached ones are marked as
     * listed, the others queued. A request already listed costs nothing, so a caller may ask
     * again for one that did not fit before. */
    int64_t want = 0;
    bool take[RC_MAX_DSETS] = {false};
    for (int di = 0; di < r->nds; di++) {
        rc_dset *d = &r->ds[di];
        if ((filtered_only && !d->filtered) || !dset_takes(d, n, ids, min_fill) || !chunks_known(r, d, n, ids))
            continue; /* read_cols declines it (or reports the missing chunk) */
        take[di] = true;
        for (int64_t a = 0; a < n; a++)
            if (a == 0 || ids[a] / d->cp != ids[a - 1] / d->cp) {
                const int64_t c = ids[a] / d->cp;
                want += d->slot[c] < 0 || !slot_listed(r, d->slot[c]);
            }
    }
    /* listed chunks wait in the cache until read: they may fill three quarters of it, the rest
     * keeps chunks read before, for the elements of later requests that share their points */
    if (want == 0 || r->nlisted + want > r->nslots - r->nslots / 4) return AXB_OK;
    AXB_TRY(ensure_pool(r, err));
    AXB_TRY(items_room(r, want, err));
    int64_t m = 0;
    pthread_mutex_lock(&r->mu);
    bool room = true;
    for (int di = 0; di < r->nds && room; di++) {
        if (!take[di]) continue;
        rc_dset *d = &r->ds[di];
        for (int64_t a = 0; a < n && room; a++) {
            const int64_t c = ids[a] / d->cp;
            if (a > 0 && c == ids[a - 1] / d->cp) continue;
            if (d->slot[c] >= 0)
                slot_list(r, d->slot[c]);
            else
                room = list_new(r, di, c, &m); /* all slots in flight: the rest is read when asked for */
        }
    }
    pthread_mutex_unlock(&r->mu);
    return submit(r, m, bytes, calls, err);
}

/* Filtered requests: queues the chunks of ids[from..) not cached or queued, as far as a quarter
 * of the cache allows, so the pool decodes ahead of the caller; returns where it stopped. */
static axb_status queue_ahead(axb_chunk_reader *r, int idx, int64_t n, const int64_t *ids, int64_t from, int64_t *upto,
                              int64_t *bytes, int64_t *calls, axb_error *err)
{
    rc_dset *d = &r->ds[idx];
    int64_t budget = r->nslots / 4 - r->nlisted;
    *upto = from;
    if (budget <= 0 || from >= n) return AXB_OK;
    AXB_TRY(ensure_pool(r, err));
    AXB_TRY(items_room(r, budget, err));
    int64_t m = 0, a = from;
    pthread_mutex_lock(&r->mu);
    for (; a < n && m < budget; a++) {
        const int64_t c = ids[a] / d->cp;
        if (a > from && c == ids[a - 1] / d->cp) continue;
        if (d->slot[c] >= 0) {
            slot_list(r, d->slot[c]);
            budget--;
        } else if (!list_new(r, idx, c, &m)) {
            break;
        }
    }
    pthread_mutex_unlock(&r->mu);
    while (a < n && a > from && ids[a] / d->cp == ids[a - 1] / d->cp) a++; /* whole chunks */
    *upto = a;
    int64_t b = 0, k = 0;
    AXB_TRY(submit(r, m, &b, &k, err));
    *bytes += b;
    *calls += k;
    return AXB_OK;
}

void axb_chunk_reader_expect(axb_chunk_reader *r, int64_t n, const int64_t *ids)
{
    for (int di = 0; di < r->nds; di++) {
        rc_dset *d = &r->ds[di];
        for (int64_t a = 0; a < n; a++) {
            const int64_t c = ids[a] / d->cp;
            if ((a == 0 || c != ids[a - 1] / d->cp) && c >= 0 && c < d->nchunks && d->uses[c] < INT32_MAX) d->uses[c]++;
        }
    }
}

axb_status axb_chunk_reader_read_cols(axb_chunk_reader *r, int idx, int64_t n, const int64_t *ids, double min_fill,
                                      float *buf, bool *used, int64_t *bytes, int64_t *calls, axb_error *err)
{
    *used = false;
    *bytes = *calls = 0;
    if (idx < 0 || idx >= r->nds) return AXB_OK;
    rc_dset *d = &r->ds[idx];
    if (n == 0) { /* nothing to read; a filtered dataset never goes to HDF5 (collective reads) */
        *used = d->filtered;
        return AXB_OK;
    }
    const int64_t cp = d->cp, cb = r->chunk_bytes;
    if (!dset_takes(d, n, ids, min_fill)) return AXB_OK;
    /* every chunk must be stored before anything is read */
    int64_t addr;
    for (int64_t a = 0; a < n; a++)
        if ((a == 0 || ids[a] / cp != ids[a - 1] / cp) && !chunk_addr(r, d, ids[a] / cp, &addr))
            return d->filtered ? chunk_missing(d, ids[a] / cp, err) : AXB_OK;
    AXB_TRY(task_failure(r, err));
    double t_tr = 0, t_rd = 0;
    const double c0 = axb_thread_cpu_seconds();
    axb_chunk_stats st = {0};
    int64_t queued = 0, refill = 0; /* ids[..queued) are cached or queued; queue more from refill on */
    axb_status s = AXB_OK;
    for (int64_t a = 0; a < n && !s;) {
        int64_t c = ids[a] / cp, b = a;
        while (b < n && ids[b] / cp == c) b++;
        if (d->filtered && r->nslots > 0 && queued < n && a >= refill) {
            const int64_t from = a > queued ? a : queued;
            s = queue_ahead(r, idx, n, ids, from, &queued, bytes, calls, err);
            refill = queued > from ? a + (queued - a) / 2 : n; /* half the window read: queue more */
            if (queued <= from) queued = n;                    /* nothing fits: the rest is read here */
        }
        if (s) break;
        if (d->slot[c] >= 0) { /* read before, or queued */
            const int64_t k = d->slot[c];
            s = slot_wait(r, k, err);
            if (s) break;
            slot_unlist(r, k, ++r->clock);
            const double t0 = axb_wall_seconds();
            axb_h5_take_cols(r->slots + k * cb, d->axis, cp, d->nt, c * cp, a, b, ids, buf);
            t_tr += axb_wall_seconds() - t0;
            (void)spent(r, d, c);
            a = b;
            continue;
        }
        /* a group: chunks of consecutive index, none cached, that follow each other on disk */
        const int64_t g0 = d->addr[c];
        int64_t glen = d->size[c], end = b;
        while (end < n) {
            const int64_t c2 = ids[end] / cp;
            if (c2 != c + 1 || d->slot[c2] >= 0 || d->addr[c2] != g0 + glen || glen + d->size[c2] > r->gcap) break;
            c = c2;
            glen += d->size[c2];
            while (end < n && ids[end] / cp == c) end++;
        }
        const unsigned char *g = NULL;
        const double t0 = axb_wall_seconds();
        s = read_span(&r->main, r->path, r->gbuf, g0, glen, &g, err);
        t_rd += axb_wall_seconds() - t0;
        if (s) break;
        (*calls)++;
        *bytes += glen;
        for (int64_t u = a; u < end && !s;) {
            const int64_t ci = ids[u] / cp;
            int64_t v = u;
            while (v < end && ids[v] / cp == ci) v++;
            const unsigned char *p = g + (d->addr[ci] - g0);
            if (d->filtered) {
                s = put_chunk(r, d, ci, d->mask[ci], p, d->size[ci], r->mdec, r->mchunk, &st, err);
                p = r->mchunk;
            }
            if (s) break;
            const double t1 = axb_wall_seconds();
            axb_h5_take_cols(p, d->axis, cp, d->nt, ci * cp, u, v, ids, buf);
            t_tr += axb_wall_seconds() - t1;
            if (!spent(r, d, ci)) cache_put(r, idx, ci, p); /* one no later request needs is not kept */
            u = v;
        }
        a = end;
    }
    stages_to_cpu(&st, &t_tr, axb_thread_cpu_seconds() - c0); /* includes the reads' copying: a bound */
    pthread_mutex_lock(&r->mu);
    r->st.read += t_rd;
    r->st.transpose += t_tr;
    r->st.inflate += st.inflate;
    r->st.unshuffle += st.unshuffle;
    r->st.checksum += st.checksum;
    r->st.chunks_decoded += st.chunks_decoded;
    r->st.stored_bytes += st.stored_bytes;
    pthread_mutex_unlock(&r->mu);
    if (s) return s;
    *used = true;
    return AXB_OK;
}

void axb_chunk_reader_stats(axb_chunk_reader *r, axb_chunk_stats *s)
{
    drain(r);
    pthread_mutex_lock(&r->mu);
    s->read += r->st.read;
    s->inflate += r->st.inflate;
    s->unshuffle += r->st.unshuffle;
    s->checksum += r->st.checksum;
    s->transpose += r->st.transpose;
    s->chunks_decoded += r->st.chunks_decoded;
    s->stored_bytes += r->st.stored_bytes;
    pthread_mutex_unlock(&r->mu);
}
