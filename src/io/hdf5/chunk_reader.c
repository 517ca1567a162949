/* Whole chunks of unfiltered float datasets of one file, read without HDF5 in the data path.
 *
 * Why: a bulk read of the original layout (repack) through H5Dread costs three copies per byte
 * (page cache -> HDF5 -> chunk buffer -> caller) and one 215 KB pread per chunk; perf showed the
 * copies and the page-cache work taking most of a repack's CPU. HDF5 still says where each chunk
 * is (H5Dget_chunk_info_by_coord, once per chunk); runs of chunks adjacent on disk are read with
 * one pread each, with O_DIRECT where the file system allows it, and transposed from a cache slot.
 *
 * One reader serves all variables of a file: writers (AxiSEM, mkdb) put the chunks of the same
 * points of every variable next to each other, so reading variable by variable skips through the
 * file in 0.4-0.9 MB pieces; a prefetch of what all variables need, sorted by file address, reads
 * it in a few long runs. The prefetch runs in a helper thread (no HDF5 or MPI calls there), so the
 * caller transposes one request while the next one's chunks arrive. Compressed datasets (AxiSEM's
 * own output) keep the HDF5 path: inflation, not copying, bounds them. */
#define _GNU_SOURCE /* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/hdf5/chunk_reader.h"
#include "io/hdf5/h5util.h"

#define RC_ALIGN ((int64_t)4096)
#define RC_GROUP_MAX ((int64_t)8 << 20) /* bytes per pread: large enough for full disk speed */
#define RC_MAX_DSETS 8
/* Added to the use stamp of a chunk a prefetch listed, until it is read: such a chunk is replaced
 * only after every chunk already read (stamped by its listing time alone, it would be older than
 * the chunks the current request had just read, and a later prefetch would take its slot first). */
#define RC_LISTED ((int64_t)1 << 40)

enum { SLOT_READY = 0, SLOT_PENDING = 1 };

typedef struct rc_dset {
    hid_t dset; /* not owned */
    int axis, other;
    int64_t cp, nt, np; /* chunk width along axis, length of the other axis, points */
    int64_t nchunks;
    int64_t *addr; /* per chunk: file address, -1 unknown yet */
    int32_t *slot; /* per chunk: cache slot or -1 */
} rc_dset;

/* One pread for the helper: chunks items[first..first+n) (sorted by address, adjacent). */
typedef struct rc_item {
    int64_t addr, chunk;
    int32_t ds, slot;
} rc_item;

typedef struct rc_run {
    int64_t first, n, addr, len;
} rc_run;

/* A file descriptor that falls back from O_DIRECT to the page cache when the file system
 * refuses a transfer (EINVAL at read time: stricter alignment than assumed). */
typedef struct rc_fd {
    int fd;
    bool direct;
} rc_fd;

struct axb_chunk_reader {
    char *path;
    rc_fd main;          /* the caller's reads */
    int64_t chunk_bytes; /* the same for every dataset taken */
    rc_dset ds[RC_MAX_DSETS];
    int nds;
    unsigned char *gbuf; /* caller's group buffer: RC_GROUP_MAX (or one chunk) + 2 pages */
    int64_t gcap;
    /* Chunks already read: a point serves up to four elements, which may fall in different
     * requests, so a chunk is wanted again later. Least recently used is replaced; slots the
     * helper is filling are never. */
    int64_t nslots, clock;
    int64_t nlisted;      /* slots listed by a prefetch and not read since (main thread only) */
    unsigned char *slots; /* nslots x chunk_bytes */
    int32_t *slot_ds;
    int64_t *slot_chunk, *slot_used;
    unsigned char *slot_state; /* SLOT_*, under mu */
    /* the helper */
    pthread_mutex_t mu;
    pthread_cond_t cv; /* work queued, a run done, or stop */
    bool started, stop;
    rc_item *items; /* queued chunks; runs index into it */
    int64_t nitems, icap;
    rc_run *runs;
    int64_t run_head, nruns;
    unsigned char *tbuf; /* helper's group buffer */
    int32_t *hslot;      /* the helper's copy of its run's slots and offsets: the lists may be */
    int64_t *hoff;       /* compacted or moved while it reads */
    rc_fd helper;
    pthread_t thread;
    axb_status th_st; /* the first failure of the helper, kept for every later call */
    char th_msg[AXB_ERRMSG_MAX];
};

static axb_status fd_open(const char *path, rc_fd *f, axb_error *err)
{
    f->fd = -1;
    f->direct = false;
#ifdef O_DIRECT
    f->fd = open(path, O_RDONLY | O_DIRECT);
    f->direct = f->fd >= 0;
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

static void *helper_main(void *arg)
{
    axb_chunk_reader *r = arg;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (!r->stop && r->run_head == r->nruns) pthread_cond_wait(&r->cv, &r->mu);
        if (r->stop) break;
        const rc_run run = r->runs[r->run_head];
        for (int64_t j = 0; j < run.n; j++) {
            r->hslot[j] = r->items[run.first + j].slot;
            r->hoff[j] = r->items[run.first + j].addr - run.addr;
        }
        const bool failed = r->th_st != AXB_OK;
        pthread_mutex_unlock(&r->mu);
        const unsigned char *g = NULL;
        axb_error e = AXB_ERROR_INIT;
        axb_status st = failed ? AXB_OK : read_span(&r->helper, r->path, r->tbuf, run.addr, run.len, &g, &e);
        if (!failed && !st)
            for (int64_t j = 0; j < run.n; j++)
                memcpy(r->slots + (int64_t)r->hslot[j] * r->chunk_bytes, g + r->hoff[j], (size_t)r->chunk_bytes);
        pthread_mutex_lock(&r->mu);
        if (st && r->th_st == AXB_OK) {
            r->th_st = st;
            snprintf(r->th_msg, sizeof r->th_msg, "%s", e.msg);
        }
        /* after a failure the slots are released unfilled; every later wait reports the failure */
        for (int64_t j = 0; j < run.n; j++) r->slot_state[r->hslot[j]] = SLOT_READY;
        r->run_head++;
        pthread_cond_broadcast(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

void axb_chunk_reader_close(axb_chunk_reader **pr)
{
    axb_chunk_reader *r = pr ? *pr : NULL;
    if (!r) return;
    if (r->started) {
        pthread_mutex_lock(&r->mu);
        r->stop = true;
        pthread_cond_broadcast(&r->cv);
        pthread_mutex_unlock(&r->mu);
        pthread_join(r->thread, NULL);
    }
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    if (r->main.fd >= 0) close(r->main.fd);
    if (r->helper.fd >= 0) close(r->helper.fd);
    for (int d = 0; d < r->nds; d++) {
        free(r->ds[d].addr);
        free(r->ds[d].slot);
    }
    free(r->path);
    free(r->gbuf);
    free(r->tbuf);
    free(r->hslot);
    free(r->hoff);
    free(r->slots);
    free(r->slot_ds);
    free(r->slot_chunk);
    free(r->slot_used);
    free(r->slot_state);
    free(r->items);
    free(r->runs);
    free(r);
    *pr = NULL;
}

axb_status axb_chunk_reader_open(const char *path, int64_t cache_bytes, axb_chunk_reader **out, axb_error *err)
{
    *out = NULL;
    axb_chunk_reader *r = calloc(1, sizeof *r);
    if (!r) return axb_error_set(err, AXB_ERR_NOMEM, "raw chunk reader");
    r->main.fd = r->helper.fd = -1;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->nslots = cache_bytes; /* in bytes until the first dataset sets the chunk size */
    r->path = strdup(path);
    axb_status st = r->path ? fd_open(path, &r->main, err) : axb_error_set(err, AXB_ERR_NOMEM, "raw chunk reader");
    if (st) {
        axb_chunk_reader_close(&r);
        return st;
    }
    *out = r;
    return AXB_OK;
}

/* The first dataset fixes the chunk size, and with it the buffers and the cache. */
static axb_status size_cache(axb_chunk_reader *r, int64_t chunk_bytes, int64_t nchunks, axb_error *err)
{
    const int64_t cache_bytes = r->nslots;
    r->chunk_bytes = chunk_bytes;
    r->gcap = chunk_bytes > RC_GROUP_MAX ? chunk_bytes : RC_GROUP_MAX;
    r->nslots = cache_bytes / chunk_bytes;
    if (r->nslots > (int64_t)RC_MAX_DSETS * nchunks) r->nslots = (int64_t)RC_MAX_DSETS * nchunks;
    if (r->nslots > INT32_MAX) r->nslots = INT32_MAX;
    if (posix_memalign((void **)&r->gbuf, (size_t)RC_ALIGN, (size_t)(r->gcap + 2 * RC_ALIGN)) != 0) r->gbuf = NULL;
    if (r->nslots > 0) {
        r->slots = malloc((size_t)(r->nslots * chunk_bytes));
        r->slot_ds = malloc((size_t)r->nslots * sizeof *r->slot_ds);
        r->slot_chunk = malloc((size_t)r->nslots * sizeof *r->slot_chunk);
        r->slot_used = calloc((size_t)r->nslots, sizeof *r->slot_used);
        r->slot_state = calloc((size_t)r->nslots, 1);
    }
    if (!r->gbuf || (r->nslots > 0 && (!r->slots || !r->slot_ds || !r->slot_chunk || !r->slot_used || !r->slot_state)))
        return axb_error_set(err, AXB_ERR_NOMEM, "raw chunk cache of %lld MB", (long long)(cache_bytes >> 20));
    for (int64_t k = 0; k < r->nslots; k++) r->slot_chunk[k] = -1;
    return AXB_OK;
}

axb_status axb_chunk_reader_add(axb_chunk_reader *r, hid_t dset, int axis, int *idx, axb_error *err)
{
    *idx = -1;
    hsize_t dims[2], cdims[2];
    hid_t fs = H5Dget_space(dset), dcpl = H5Dget_create_plist(dset), type = H5Dget_type(dset);
    bool ok = r->nds < RC_MAX_DSETS && fs >= 0 && dcpl >= 0 && type >= 0 && H5Sget_simple_extent_ndims(fs) == 2 &&
        (axis == 0 || axis == 1) && H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 2, cdims) == 2 &&
        H5Pget_nfilters(dcpl) == 0 && H5Tequal(type, H5T_IEEE_F32LE) > 0 &&
        H5Tequal(H5T_NATIVE_FLOAT, H5T_IEEE_F32LE) > 0;
    if (ok) H5Sget_simple_extent_dims(fs, dims, NULL);
    if (fs >= 0) H5Sclose(fs);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (type >= 0) H5Tclose(type);
    if (!ok || cdims[1 - axis] != dims[1 - axis] || cdims[axis] == 0) return AXB_OK; /* not for this path */
    rc_dset *d = &r->ds[r->nds];
    d->dset = dset;
    d->axis = axis;
    d->other = 1 - axis;
    d->cp = (int64_t)cdims[axis];
    d->nt = (int64_t)dims[d->other];
    d->np = (int64_t)dims[axis];
    d->nchunks = (d->np + d->cp - 1) / d->cp;
    const int64_t cb = d->cp * d->nt * (int64_t)sizeof(float); /* edge chunks are stored whole too */
    if (r->chunk_bytes == 0)
        AXB_TRY(size_cache(r, cb, d->nchunks, err));
    else if (cb != r->chunk_bytes)
        return AXB_OK; /* one slot size per reader */
    d->addr = malloc((size_t)d->nchunks * sizeof *d->addr);
    d->slot = malloc((size_t)d->nchunks * sizeof *d->slot);
    if (!d->addr || !d->slot) {
        free(d->addr);
        free(d->slot);
        d->addr = NULL;
        d->slot = NULL;
        return axb_error_set(err, AXB_ERR_NOMEM, "raw chunk index");
    }
    for (int64_t c = 0; c < d->nchunks; c++) {
        d->addr[c] = -1;
        d->slot[c] = -1;
    }
    *idx = r->nds++;
    return AXB_OK;
}

/* The chunk's file address; false when it is not stored whole and unfiltered (then the caller
 * takes HDF5's path, which knows about fill values). */
static bool chunk_addr(const axb_chunk_reader *r, rc_dset *d, int64_t c, int64_t *addr)
{
    if (d->addr[c] < 0) {
        hsize_t off[2] = {0, 0}, size = 0;
        off[d->axis] = (hsize_t)(c * d->cp);
        unsigned mask = 0;
        haddr_t a = HADDR_UNDEF;
        if (H5Dget_chunk_info_by_coord(d->dset, off, &mask, &a, &size) < 0 || a == HADDR_UNDEF ||
            (int64_t)size != r->chunk_bytes || mask != 0)
            return false;
        d->addr[c] = (int64_t)a;
    }
    *addr = d->addr[c];
    return true;
}

/* Slot k is listed by a prefetch and not read since. Main thread only, like nlisted. */
static bool slot_listed(const axb_chunk_reader *r, int64_t k)
{
    return r->slot_used[k] >= RC_LISTED;
}

/* Marks slot k listed (used now, kept until read). */
static void slot_list(axb_chunk_reader *r, int64_t k)
{
    if (!slot_listed(r, k)) r->nlisted++;
    r->slot_used[k] = ++r->clock + RC_LISTED;
}

/* Slot k is read (used: the stamp it gets) or emptied (used: 0). */
static void slot_unlist(axb_chunk_reader *r, int64_t k, int64_t used)
{
    if (slot_listed(r, k)) r->nlisted--;
    r->slot_used[k] = used;
}

/* The least recently used slot the helper is not filling (-1: none), emptied. Under mu. */
static int64_t take_slot(axb_chunk_reader *r)
{
    int64_t best = -1;
    for (int64_t k = 0; k < r->nslots; k++)
        if (r->slot_state[k] == SLOT_READY && (best < 0 || r->slot_used[k] < r->slot_used[best])) best = k;
    if (best < 0) return -1;
    if (r->slot_chunk[best] >= 0) r->ds[r->slot_ds[best]].slot[r->slot_chunk[best]] = -1;
    r->slot_chunk[best] = -1;
    slot_unlist(r, best, 0); /* if listed, it was never read: the cache is too small */
    return best;
}

/* Keeps a copy of chunk c of dataset d (bytes at p). */
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
    r->slot_used[k] = ++r->clock;
    r->ds[d].slot[c] = (int32_t)k;
}

/* Waits until slot k holds its chunk; the helper's failure, if any. */
static axb_status slot_wait(axb_chunk_reader *r, int64_t k, axb_error *err)
{
    pthread_mutex_lock(&r->mu);
    while (r->slot_state[k] == SLOT_PENDING) pthread_cond_wait(&r->cv, &r->mu);
    const axb_status st = r->th_st;
    if (st) axb_error_set(err, st, "%s", r->th_msg);
    pthread_mutex_unlock(&r->mu);
    return st;
}

static int item_cmp(const void *a, const void *b)
{
    const int64_t x = ((const rc_item *)a)->addr, y = ((const rc_item *)b)->addr;
    return (x > y) - (x < y);
}

axb_status axb_chunk_reader_prefetch(axb_chunk_reader *r, int64_t n, const int64_t *ids, double min_fill,
                                     int64_t *bytes, int64_t *calls, axb_error *err)
{
    *bytes = *calls = 0;
    if (n == 0 || r->nslots == 0) return AXB_OK;
    pthread_mutex_lock(&r->mu);
    const axb_status failed = r->th_st;
    if (failed) axb_error_set(err, failed, "%s", r->th_msg);
    pthread_mutex_unlock(&r->mu);
    if (failed) return failed;
    /* the chunks every dataset needs that no earlier prefetch listed: cached ones are marked as
     * listed, the others queued for the helper. A request already listed costs nothing, so a
     * caller may ask again for one that did not fit before. */
    int64_t want = 0;
    for (int di = 0; di < r->nds; di++) {
        rc_dset *d = &r->ds[di];
        if (!axb_h5_chunks_dense(n, ids, d->cp, min_fill)) continue;
        int64_t addr, cnt = 0;
        bool plain = true;
        for (int64_t a = 0; a < n && plain; a++)
            if (a == 0 || ids[a] / d->cp != ids[a - 1] / d->cp) {
                const int64_t c = ids[a] / d->cp;
                plain = chunk_addr(r, d, c, &addr);
                cnt += d->slot[c] < 0 || !slot_listed(r, d->slot[c]);
            }
        if (!plain) continue; /* read_cols declines this dataset too */
        want += cnt;
    }
    /* listed chunks wait in the cache until read: they may fill three quarters of it, the rest
     * keeps chunks read before, for the elements of later requests that share their points */
    if (want == 0 || r->nlisted + want > r->nslots - r->nslots / 4) return AXB_OK;
    pthread_mutex_lock(&r->mu);
    if (r->nitems + want > r->icap) {
        /* drop what the helper has read; the run it is reading stays listed (it works from its own
         * copy of the run's slots, so the lists may move under it) */
        const int64_t i0 = r->run_head < r->nruns ? r->runs[r->run_head].first : r->nitems;
        if (r->nitems > i0) memmove(r->items, r->items + i0, (size_t)(r->nitems - i0) * sizeof *r->items);
        if (r->nruns > r->run_head)
            memmove(r->runs, r->runs + r->run_head, (size_t)(r->nruns - r->run_head) * sizeof *r->runs);
        r->nitems -= i0;
        r->nruns -= r->run_head;
        r->run_head = 0;
        for (int64_t k = 0; k < r->nruns; k++) r->runs[k].first -= i0;
    }
    if (r->nitems + want > r->icap) {
        const int64_t cap = (r->nitems + want) * 2;
        rc_item *ni = realloc(r->items, (size_t)cap * sizeof *ni);
        if (ni) r->items = ni;
        rc_run *nr = ni ? realloc(r->runs, (size_t)cap * sizeof *nr) : NULL;
        if (nr) r->runs = nr;
        if (!ni || !nr) {
            pthread_mutex_unlock(&r->mu);
            return axb_error_set(err, AXB_ERR_NOMEM, "prefetch list");
        }
        r->icap = cap;
    }
    const int64_t base = r->nitems;
    int64_t m = base;
    for (int di = 0; di < r->nds; di++) {
        rc_dset *d = &r->ds[di];
        if (!axb_h5_chunks_dense(n, ids, d->cp, min_fill)) continue;
        bool plain = true;
        for (int64_t a = 0; a < n && plain; a++)
            if (a == 0 || ids[a] / d->cp != ids[a - 1] / d->cp) plain = d->addr[ids[a] / d->cp] >= 0;
        if (!plain) continue;
        for (int64_t a = 0; a < n; a++) {
            const int64_t c = ids[a] / d->cp;
            if (a > 0 && c == ids[a - 1] / d->cp) continue;
            if (d->slot[c] >= 0)
                slot_list(r, d->slot[c]);
            else
                r->items[m++] = (rc_item){d->addr[c], c, (int32_t)di, -1};
        }
    }
    for (int64_t k = base; k < m; k++) {
        rc_item *it = &r->items[k];
        const int64_t s = take_slot(r);
        if (s < 0) { /* all slots in flight: the rest is read when asked for */
            m = k;
            break;
        }
        it->slot = (int32_t)s;
        r->slot_state[s] = SLOT_PENDING;
        r->slot_ds[s] = it->ds;
        r->slot_chunk[s] = it->chunk;
        slot_list(r, s);
        r->ds[it->ds].slot[it->chunk] = (int32_t)s;
    }
    if (m > base) qsort(r->items + base, (size_t)(m - base), sizeof *r->items, item_cmp);
    for (int64_t k = base; k < m;) {
        rc_run run = {k, 1, r->items[k].addr, r->chunk_bytes};
        while (k + run.n < m && r->items[k + run.n].addr == run.addr + run.len && run.len + r->chunk_bytes <= r->gcap) {
            run.n++;
            run.len += r->chunk_bytes;
        }
        r->runs[r->nruns++] = run;
        *bytes += run.len;
        (*calls)++;
        k += run.n;
    }
    r->nitems = m;
    axb_status st = AXB_OK;
    if (m > base && !r->started) {
        /* the helper's own descriptor and buffer: its O_DIRECT fallback must not race ours */
        if (posix_memalign((void **)&r->tbuf, (size_t)RC_ALIGN, (size_t)(r->gcap + 2 * RC_ALIGN)) != 0) r->tbuf = NULL;
        const int64_t per_run = r->gcap / r->chunk_bytes + 1;
        r->hslot = malloc((size_t)per_run * sizeof *r->hslot);
        r->hoff = malloc((size_t)per_run * sizeof *r->hoff);
        st = r->tbuf && r->hslot && r->hoff ? fd_open(r->path, &r->helper, err)
                                            : axb_error_set(err, AXB_ERR_NOMEM, "prefetch buffer");
        if (!st && pthread_create(&r->thread, NULL, helper_main, r) != 0)
            st = axb_error_set(err, AXB_ERR_IO, "cannot start the prefetch thread");
        r->started = !st;
        if (st) { /* nothing will fill the slots: release them */
            for (int64_t k = base; k < m; k++) {
                r->slot_state[r->items[k].slot] = SLOT_READY;
                r->slot_chunk[r->items[k].slot] = -1;
                slot_unlist(r, r->items[k].slot, 0);
                r->ds[r->items[k].ds].slot[r->items[k].chunk] = -1;
            }
            r->nitems = base;
            r->nruns = r->run_head;
        }
    }
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return st;
}

/* out: [u][t] for ids[a..b), all in chunk ci at p. Chunk bytes are little-endian floats at any
 * byte address: memcpy per value (one unaligned load). From a [t][point] chunk this transposes
 * one chunk at a time. */
static void take_cols(const rc_dset *d, const unsigned char *p, int64_t ci, int64_t a, int64_t b, const int64_t *ids,
                      float *buf)
{
    const int64_t cp = d->cp, nt = d->nt;
    for (int64_t u = a; u < b; u++) {
        const int64_t col = ids[u] - ci * cp;
        float *dst = buf + u * nt;
        if (d->axis == 1) {
            for (int64_t t = 0; t < nt; t++)
                memcpy(dst + t, p + (t * cp + col) * (int64_t)sizeof(float), sizeof(float));
        } else {
            memcpy(dst, p + col * nt * (int64_t)sizeof(float), (size_t)nt * sizeof(float));
        }
    }
}

axb_status axb_chunk_reader_read_cols(axb_chunk_reader *r, int idx, int64_t n, const int64_t *ids, double min_fill,
                                      float *buf, bool *used, int64_t *bytes, int64_t *calls, axb_error *err)
{
    *used = false;
    *bytes = *calls = 0;
    if (n == 0 || idx < 0 || idx >= r->nds) return AXB_OK;
    rc_dset *d = &r->ds[idx];
    const int64_t cp = d->cp, cb = r->chunk_bytes;
    if (!axb_h5_chunks_dense(n, ids, cp, min_fill)) return AXB_OK;
    /* every chunk must be stored plainly before anything is read */
    int64_t addr;
    for (int64_t a = 0; a < n; a++)
        if ((a == 0 || ids[a] / cp != ids[a - 1] / cp) && !chunk_addr(r, d, ids[a] / cp, &addr)) return AXB_OK;
    for (int64_t a = 0; a < n;) {
        int64_t c = ids[a] / cp, b = a;
        while (b < n && ids[b] / cp == c) b++;
        if (d->slot[c] >= 0) { /* read before, or queued for the helper */
            const int64_t k = d->slot[c];
            AXB_TRY(slot_wait(r, k, err));
            slot_unlist(r, k, ++r->clock);
            take_cols(d, r->slots + k * cb, c, a, b, ids, buf);
            a = b;
            continue;
        }
        /* a group: chunks of consecutive index, none cached, that follow each other on disk */
        const int64_t g0 = d->addr[c];
        int64_t glen = cb, end = b;
        while (end < n) {
            const int64_t c2 = ids[end] / cp;
            if (c2 != c + 1 || d->slot[c2] >= 0 || d->addr[c2] != g0 + glen || glen + cb > r->gcap) break;
            c = c2;
            glen += cb;
            while (end < n && ids[end] / cp == c) end++;
        }
        const unsigned char *g = NULL;
        AXB_TRY(read_span(&r->main, r->path, r->gbuf, g0, glen, &g, err));
        (*calls)++;
        *bytes += glen;
        for (int64_t u = a; u < end;) {
            const int64_t ci = ids[u] / cp;
            int64_t v = u;
            while (v < end && ids[v] / cp == ci) v++;
            const unsigned char *p = g + (d->addr[ci] - g0);
            take_cols(d, p, ci, u, v, ids, buf);
            cache_put(r, idx, ci, p);
            u = v;
        }
        a = end;
    }
    *used = true;
    return AXB_OK;
}
