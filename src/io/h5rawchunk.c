/* Whole chunks of an unfiltered float dataset, read from the file without HDF5 in the data path.
 *
 * Why: a bulk read of the original layout (repack) through H5Dread costs three copies per byte
 * (page cache -> HDF5 -> chunk buffer -> caller) and one 215 KB pread per chunk; perf showed the
 * copies and the page-cache work taking most of a repack's CPU. HDF5 still says where each chunk
 * is (H5Dget_chunk_info_by_coord, once per chunk); runs of chunks adjacent on disk are then read
 * with one pread each, with O_DIRECT where the file system allows it (no page-cache copy, no
 * cache pollution), and transposed straight from that buffer. Compressed datasets (AxiSEM's own
 * output) keep the HDF5 path: inflation, not copying, bounds them. */
#define _GNU_SOURCE /* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/h5util.h"

#define RC_ALIGN ((int64_t)4096)
#define RC_GROUP_MAX ((int64_t)8 << 20) /* bytes per pread: large enough for full disk speed */

struct h5u_rawchunks {
    hid_t dset;            /* not owned */
    char *path;
    int fd;
    bool direct;
    int axis, other;
    int64_t cp, nt, np;    /* chunk width along axis, length of the other axis, points */
    int64_t nchunks, chunk_bytes;
    int64_t *addr;         /* per chunk: file address, -1 unknown yet */
    unsigned char *gbuf;   /* RC_GROUP_MAX (or one chunk) + 2 pages, aligned */
    int64_t gcap;
    /* Chunks already read: a point serves up to four elements, which may fall in different
     * slabs, so a chunk is wanted again by later reads. Least recently used is replaced. */
    int64_t nslots, clock;
    unsigned char *slots;  /* nslots x chunk_bytes */
    int64_t *slot_chunk, *slot_used; /* per slot: chunk (-1 free), last use */
    int32_t *chunk_slot;   /* per chunk: slot or -1 */
};

void h5u_rawchunks_close(h5u_rawchunks **pr)
{
    h5u_rawchunks *r = pr ? *pr : NULL;
    if (!r) return;
    if (r->fd >= 0) close(r->fd);
    free(r->path);
    free(r->addr);
    free(r->gbuf);
    free(r->slots);
    free(r->slot_chunk);
    free(r->slot_used);
    free(r->chunk_slot);
    free(r);
    *pr = NULL;
}

axb_status h5u_rawchunks_open(hid_t dset, const char *path, int axis, int64_t cache_bytes, h5u_rawchunks **out,
                              axb_error *err)
{
    *out = NULL;
    hsize_t dims[2], cdims[2];
    hid_t fs = H5Dget_space(dset), dcpl = H5Dget_create_plist(dset), type = H5Dget_type(dset);
    bool ok = fs >= 0 && dcpl >= 0 && type >= 0 && H5Sget_simple_extent_ndims(fs) == 2 && (axis == 0 || axis == 1) &&
              H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 2, cdims) == 2 && H5Pget_nfilters(dcpl) == 0 &&
              H5Tequal(type, H5T_IEEE_F32LE) > 0 && H5Tequal(H5T_NATIVE_FLOAT, H5T_IEEE_F32LE) > 0;
    if (ok) H5Sget_simple_extent_dims(fs, dims, NULL);
    if (fs >= 0) H5Sclose(fs);
    if (dcpl >= 0) H5Pclose(dcpl);
    if (type >= 0) H5Tclose(type);
    if (!ok || cdims[1 - axis] != dims[1 - axis] || cdims[axis] == 0) return AXB_OK; /* not for this path */
    h5u_rawchunks *r = calloc(1, sizeof *r);
    if (!r) return axb_error_set(err, AXB_ERR_NOMEM, "raw chunk reader");
    r->dset = dset;
    r->fd = -1;
    r->path = strdup(path);
    r->axis = axis;
    r->other = 1 - axis;
    r->cp = (int64_t)cdims[axis];
    r->nt = (int64_t)dims[r->other];
    r->np = (int64_t)dims[axis];
    r->nchunks = (r->np + r->cp - 1) / r->cp;
    r->chunk_bytes = r->cp * r->nt * (int64_t)sizeof(float); /* edge chunks are stored whole too */
    r->gcap = r->chunk_bytes > RC_GROUP_MAX ? r->chunk_bytes : RC_GROUP_MAX;
    r->addr = malloc((size_t)r->nchunks * sizeof *r->addr);
    if (!r->addr || !r->path || posix_memalign((void **)&r->gbuf, (size_t)RC_ALIGN, (size_t)(r->gcap + 2 * RC_ALIGN)) != 0) {
        h5u_rawchunks_close(&r);
        return axb_error_set(err, AXB_ERR_NOMEM, "raw chunk reader buffer");
    }
    r->nslots = cache_bytes / r->chunk_bytes;
    if (r->nslots > r->nchunks) r->nslots = r->nchunks;
    r->chunk_slot = malloc((size_t)r->nchunks * sizeof *r->chunk_slot);
    if (r->nslots > 0) {
        r->slots = malloc((size_t)(r->nslots * r->chunk_bytes));
        r->slot_chunk = malloc((size_t)r->nslots * sizeof *r->slot_chunk);
        r->slot_used = calloc((size_t)r->nslots, sizeof *r->slot_used);
    }
    if (!r->chunk_slot || (r->nslots > 0 && (!r->slots || !r->slot_chunk || !r->slot_used))) {
        h5u_rawchunks_close(&r);
        return axb_error_set(err, AXB_ERR_NOMEM, "raw chunk cache of %lld MB", (long long)(cache_bytes >> 20));
    }
    for (int64_t c = 0; c < r->nchunks; c++) {
        r->addr[c] = -1;
        r->chunk_slot[c] = -1;
    }
    for (int64_t k = 0; k < r->nslots; k++) r->slot_chunk[k] = -1;
#ifdef O_DIRECT
    r->fd = open(path, O_RDONLY | O_DIRECT);
    r->direct = r->fd >= 0;
#endif
    if (r->fd < 0) r->fd = open(path, O_RDONLY);
    if (r->fd < 0) {
        axb_status st = axb_error_set(err, AXB_ERR_IO, "cannot open for reading: %s", strerror(errno));
        h5u_rawchunks_close(&r);
        return st;
    }
    *out = r;
    return AXB_OK;
}

/* The chunk's file address; false when it is not stored whole and unfiltered (then the caller
 * takes HDF5's path, which knows about fill values). */
static bool chunk_addr(h5u_rawchunks *r, int64_t c, int64_t *addr)
{
    if (r->addr[c] < 0) {
        hsize_t off[2] = {0, 0}, size = 0;
        off[r->axis] = (hsize_t)(c * r->cp);
        unsigned mask = 0;
        haddr_t a = HADDR_UNDEF;
        if (H5Dget_chunk_info_by_coord(r->dset, off, &mask, &a, &size) < 0 || a == HADDR_UNDEF ||
            (int64_t)size != r->chunk_bytes || mask != 0)
            return false;
        r->addr[c] = (int64_t)a;
    }
    *addr = r->addr[c];
    return true;
}

/* Reads file bytes [off, off + len) into r->gbuf; returns where they start in it. */
static axb_status read_span(h5u_rawchunks *r, int64_t off, int64_t len, const unsigned char **at, axb_error *err)
{
    const int64_t a = r->direct ? off / RC_ALIGN * RC_ALIGN : off;
    int64_t want = off + len - a;
    if (r->direct) want = (want + RC_ALIGN - 1) / RC_ALIGN * RC_ALIGN;
    int64_t got = 0;
    while (got < off + len - a) {
        const ssize_t n = pread(r->fd, r->gbuf + got, (size_t)(want - got), (off_t)(a + got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EINVAL && r->direct) {
            /* O_DIRECT accepted at open, refused at read time (stricter alignment): read through
             * the page cache from now on */
            const int fd = open(r->path, O_RDONLY);
            if (fd < 0) return axb_error_set(err, AXB_ERR_IO, "cannot open for reading: %s", strerror(errno));
            close(r->fd);
            r->fd = fd;
            r->direct = false;
            return read_span(r, off, len, at, err);
        }
        if (n < 0) return axb_error_set(err, AXB_ERR_IO, "read of %lld bytes at offset %lld: %s", (long long)len, (long long)off, strerror(errno));
        if (n == 0) return axb_error_set(err, AXB_ERR_FORMAT, "truncated: chunk data end at offset %lld, after the file's end", (long long)(off + len));
        got += n;
    }
    *at = r->gbuf + (off - a);
    return AXB_OK;
}

/* Keeps a copy of chunk c (bytes at p) in the least recently used slot. */
static void cache_put(h5u_rawchunks *r, int64_t c, const unsigned char *p)
{
    if (r->nslots == 0 || r->chunk_slot[c] >= 0) return;
    int64_t best = 0;
    for (int64_t k = 1; k < r->nslots; k++)
        if (r->slot_used[k] < r->slot_used[best]) best = k;
    if (r->slot_chunk[best] >= 0) r->chunk_slot[r->slot_chunk[best]] = -1;
    memcpy(r->slots + best * r->chunk_bytes, p, (size_t)r->chunk_bytes);
    r->slot_chunk[best] = c;
    r->slot_used[best] = ++r->clock;
    r->chunk_slot[c] = (int32_t)best;
}

/* out: [u][t] for ids[a..b), all in chunk ci at p. Chunk bytes are little-endian floats at any
 * byte address: memcpy per value (one unaligned load). From a [t][point] chunk this transposes
 * one chunk at a time. */
static void take_cols(const h5u_rawchunks *r, const unsigned char *p, int64_t ci, int64_t a, int64_t b,
                      const int64_t *ids, float *buf)
{
    const int64_t cp = r->cp, nt = r->nt;
    for (int64_t u = a; u < b; u++) {
        const int64_t col = ids[u] - ci * cp;
        float *dst = buf + u * nt;
        if (r->axis == 1) {
            for (int64_t t = 0; t < nt; t++) memcpy(dst + t, p + (t * cp + col) * (int64_t)sizeof(float), sizeof(float));
        } else {
            memcpy(dst, p + col * nt * (int64_t)sizeof(float), (size_t)nt * sizeof(float));
        }
    }
}

axb_status h5u_rawchunks_read_cols(h5u_rawchunks *r, int64_t n, const int64_t *ids, double min_fill, float *buf,
                                   bool *used, int64_t *bytes, int64_t *calls, axb_error *err)
{
    *used = false;
    *bytes = *calls = 0;
    if (n == 0) return AXB_OK;
    const int64_t cp = r->cp, cb = r->chunk_bytes;
    if (!h5u_chunks_dense(n, ids, cp, min_fill)) return AXB_OK;
    /* every chunk must be stored plainly before anything is read */
    int64_t addr;
    for (int64_t a = 0; a < n; a++)
        if ((a == 0 || ids[a] / cp != ids[a - 1] / cp) && !chunk_addr(r, ids[a] / cp, &addr)) return AXB_OK;
    for (int64_t a = 0; a < n;) {
        int64_t c = ids[a] / cp, b = a;
        while (b < n && ids[b] / cp == c) b++;
        if (r->chunk_slot[c] >= 0) { /* read before */
            const int64_t k = r->chunk_slot[c];
            r->slot_used[k] = ++r->clock;
            take_cols(r, r->slots + k * cb, c, a, b, ids, buf);
            a = b;
            continue;
        }
        /* a group: chunks of consecutive index, none cached, that follow each other on disk */
        const int64_t g0 = r->addr[c];
        int64_t glen = cb, end = b;
        while (end < n) {
            const int64_t c2 = ids[end] / cp;
            if (c2 != c + 1 || r->chunk_slot[c2] >= 0 || r->addr[c2] != g0 + glen || glen + cb > r->gcap) break;
            c = c2;
            glen += cb;
            while (end < n && ids[end] / cp == c) end++;
        }
        const unsigned char *g = NULL;
        AXB_TRY(read_span(r, g0, glen, &g, err));
        (*calls)++;
        *bytes += glen;
        for (int64_t u = a; u < end;) {
            const int64_t ci = ids[u] / cp;
            int64_t v = u;
            while (v < end && ids[v] / cp == ci) v++;
            const unsigned char *p = g + (r->addr[ci] - g0);
            take_cols(r, p, ci, u, v, ids, buf);
            cache_put(r, ci, p);
            u = v;
        }
        a = end;
    }
    *used = true;
    return AXB_OK;
}
