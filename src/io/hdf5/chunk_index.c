/* The whole chunk index of a dataset in one pass (chunk_index.h).
 *
 * Why: HDF5 1.10's H5Dget_chunk_info_by_coord walks the chunk index from its start for every
 * call: measured on the 25 s PREM database, 1.8 us for the first chunks of a variable, 80 us for
 * the last (10,578 chunks); a whole index costs O(n^2), hours per variable on a 2 s database. The
 * index is a version-1 B-tree whose nodes list every chunk's offset, stored size and filter mask
 * (HDF5 file format specification, "Data Layout Message" version 3 and "Version 1 B-trees"), so
 * one walk over it gives all of them. Only that well-defined case is read here; anything else
 * (another layout message or index type, a signature that does not match) says "not read" and
 * the caller asks HDF5 chunk by chunk. Every read is bounds-checked: a damaged file gives "not
 * read" or an error, never a wild access. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/pread_all.h"
#include "io/hdf5/chunk_index.h"

#define MAX_RANK 8
#define MAX_DEPTH 32

typedef struct walker {
    int fd;
    int rank;        /* dimensionality of the keys (the dataset's rank + 1) */
    int axis;        /* the chunked axis */
    int64_t cp;      /* chunk width along it */
    int64_t nchunks; /* along it */
    int64_t *addr, *size;
    uint32_t *mask;
    int64_t found;
} walker;

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static bool read_at(int fd, int64_t off, void *buf, size_t len)
{
    return axb_pread_all(fd, buf, len, off) == 0;
}

/* A version-1 B-tree node of raw-data chunks at @p at, and everything under it. */
static bool walk(walker *w, int64_t at, int depth)
{
    if (depth > MAX_DEPTH) return false;
    unsigned char head[24];
    if (!read_at(w->fd, at, head, sizeof head) || memcmp(head, "TREE", 4) != 0 || head[4] != 1) return false;
    const int level = head[5];
    const int n = (int)le(head + 6, 2);
    const size_t key = 8 + 8 * (size_t)w->rank;
    const size_t len = (size_t)(n + 1) * key + (size_t)n * 8;
    unsigned char *b = malloc(len ? len : 1);
    bool ok = b && read_at(w->fd, at + 24, b, len);
    for (int i = 0; ok && i < n; i++) {
        const unsigned char *k = b + (size_t)i * (key + 8);
        const int64_t child = (int64_t)le(k + key, 8);
        if (level > 0) {
            ok = walk(w, child, depth + 1);
            continue;
        }
        /* a chunk: its offsets are multiples of the chunk shape; only the chunked axis varies */
        int64_t c = -1;
        for (int d = 0; d < w->rank - 1; d++) {
            const int64_t off = (int64_t)le(k + 8 + 8 * (size_t)d, 8);
            if (d == w->axis) {
                c = off % w->cp == 0 ? off / w->cp : -1;
            } else if (off != 0) {
                c = -1;
                break;
            }
        }
        if (c < 0 || c >= w->nchunks || w->addr[c] >= 0) {
            ok = false;
            break;
        }
        w->size[c] = (int64_t)le(k, 4);
        w->mask[c] = (uint32_t)le(k + 4, 4);
        w->addr[c] = child;
        w->found++;
    }
    free(b);
    return ok;
}

/* The layout message's B-tree address (version 3, chunked), from a message body @p m of @p len. */
static bool layout_btree(const unsigned char *m, size_t len, int rank, int64_t *btree)
{
    if (len < 3 || m[0] != 3 || m[1] != 2) return false; /* version 3, chunked */
    if (m[2] != rank + 1 || len < 3 + 8 + 4 * (size_t)m[2]) return false;
    *btree = (int64_t)le(m + 3, 8);
    return true;
}

/* Scans the messages in [p, end) of an object header (version @p v) for the layout message; a
 * continuation message adds a block to @p conts. */
typedef struct cont {
    int64_t at, len;
} cont;

static bool scan(const unsigned char *p, const unsigned char *end, int v, bool v2_creation_order, int rank,
                 int64_t *btree, cont *conts, int *nconts)
{
    const ptrdiff_t head = v == 1 ? 8 : 4 + (v2_creation_order ? 2 : 0);
    while (end - p >= head) {
        const int type = v == 1 ? (int)le(p, 2) : p[0];
        const size_t size = (size_t)le(p + (v == 1 ? 2 : 1), 2);
        p += head;
        if ((size_t)(end - p) < size) return false;
        if (type == 8) return layout_btree(p, size, rank, btree);
        if (type == 0x10 && size >= 16 && *nconts < 16)
            conts[(*nconts)++] = (cont){(int64_t)le(p, 8), (int64_t)le(p + 8, 8)};
        p += size;
    }
    return false;
}

/* The B-tree address from the object header at @p oh (versions 1 and 2). */
static bool find_btree(int fd, int64_t oh, int rank, int64_t *btree)
{
    unsigned char pre[48]; /* the longest version-2 prefix is 34 bytes */
    if (!read_at(fd, oh, pre, sizeof pre)) return false;
    cont conts[16];
    int nconts = 0, v;
    bool order = false;
    int64_t first, len;
    if (memcmp(pre, "OHDR", 4) == 0) {
        v = 2;
        if (pre[4] != 2) return false;
        const unsigned flags = pre[5];
        size_t o = 6 + ((flags & 0x20) ? 16 : 0) + ((flags & 0x10) ? 4 : 0);
        const int w = 1 << (flags & 3);
        len = (int64_t)le(pre + o, w);
        first = oh + (int64_t)o + w;
        order = flags & 0x04; /* messages carry a creation order */
        /* chunk 0 holds the messages (and a gap); its checksum follows it */
    } else {
        v = 1;
        if (pre[0] != 1) return false;
        len = (int64_t)le(pre + 8, 4);
        first = oh + 16;
    }
    conts[nconts++] = (cont){first, len};
    for (int i = 0; i < nconts && i < 16; i++) {
        if (conts[i].len <= 0 || conts[i].len > (1 << 24)) return false;
        unsigned char *b = malloc((size_t)conts[i].len);
        if (!b || !read_at(fd, conts[i].at, b, (size_t)conts[i].len)) {
            free(b);
            return false;
        }
        const unsigned char *p = b, *end = b + conts[i].len;
        if (i > 0 && v == 2) { /* a continuation block: signature, messages, checksum */
            if (end - p < 8 || memcmp(p, "OCHK", 4) != 0) {
                free(b);
                return false;
            }
            p += 4;
            end -= 4;
        }
        const bool hit = scan(p, end, v, order, rank, btree, conts, &nconts);
        free(b);
        if (hit) return true;
    }
    return false;
}

/* HDF5's own answer for chunk c (along @p axis) agrees with the index read from the file. */
static bool probe_ok(hid_t dset, int axis, int64_t cp, int64_t c, const int64_t *addr, const int64_t *size,
                     const uint32_t *mask)
{
    hsize_t off[MAX_RANK] = {0}, sz = 0;
    off[axis] = (hsize_t)(c * cp);
    unsigned m = 0;
    haddr_t a = HADDR_UNDEF;
    const bool stored = H5Dget_chunk_info_by_coord(dset, off, &m, &a, &sz) >= 0 && a != HADDR_UNDEF;
    return stored ? addr[c] == (int64_t)a && size[c] == (int64_t)sz && mask[c] == m : addr[c] < 0;
}

axb_status axb_chunk_index_read(hid_t dset, int fd, int axis, int64_t cp, int64_t nchunks, int64_t *addr, int64_t *size,
                                uint32_t *mask, bool *ok, axb_error *err)
{
    *ok = false;
    hid_t fs = H5Dget_space(dset);
    const int rank = fs >= 0 ? H5Sget_simple_extent_ndims(fs) : -1;
    if (fs >= 0) H5Sclose(fs);
    if (rank < 1 || rank >= MAX_RANK || axis < 0 || axis >= rank) return AXB_OK;
    /* 8-byte file addresses and lengths, the only ones this reader knows */
    hid_t fid = H5Iget_file_id(dset), fcpl = fid >= 0 ? H5Fget_create_plist(fid) : -1;
    size_t sa = 0, ss = 0;
    const bool sizes = fcpl >= 0 && H5Pget_sizes(fcpl, &sa, &ss) >= 0 && sa == 8 && ss == 8;
    if (fcpl >= 0) H5Pclose(fcpl);
    if (fid >= 0) H5Fclose(fid);
    H5O_info_t oi;
    if (!sizes || H5Oget_info2(dset, &oi, H5O_INFO_BASIC) < 0 || oi.addr == HADDR_UNDEF) return AXB_OK;
    int64_t btree = -1;
    if (!find_btree(fd, (int64_t)oi.addr, rank, &btree) || btree < 0) return AXB_OK;
    for (int64_t c = 0; c < nchunks; c++) addr[c] = -1;
    walker w = {fd, rank + 1, axis, cp, nchunks, addr, size, mask, 0};
    if (btree == (int64_t)HADDR_UNDEF || (uint64_t)btree == UINT64_MAX) { /* no chunk written yet */
        *ok = true;
        return AXB_OK;
    }
    if (!walk(&w, btree, 0)) {
        for (int64_t c = 0; c < nchunks; c++) addr[c] = -1;
        return AXB_OK;
    }
    (void)err;
    /* checked against HDF5 at the first and last chunk (the last is the one HDF5's own lookup
     * finds slowest) */
    if (nchunks > 0 &&
        (!probe_ok(dset, axis, cp, 0, addr, size, mask) || !probe_ok(dset, axis, cp, nchunks - 1, addr, size, mask))) {
        for (int64_t c = 0; c < nchunks; c++) addr[c] = -1;
        return AXB_OK;
    }
    *ok = true;
    return AXB_OK;
}
