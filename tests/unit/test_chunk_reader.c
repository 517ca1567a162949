/* Raw chunk reads (io/h5util.h axb_chunk_reader_*) against values known in closed form: chunked,
 * unfiltered float datasets holding v_d(t, p) = 10000 d + p + t / 1000, in both orientations
 * ((samples, points) and (points, samples)), with a partial edge chunk and chunks written out of
 * order and alternating between the datasets (so neighbours in index are not always neighbours on
 * disk, and one variable's chunks sit between another's). Sets of points of every kind (single,
 * whole chunks, spanning chunks, the edge) are read, with and without a prefetch, with prefetches
 * queued two requests ahead, and with a cache too small to keep all, so hits, misses, evictions
 * and waits for the helper thread all occur. Datasets that do not qualify (deflate, another chunk
 * shape) are not taken; a chunk never written makes the reader decline (HDF5 knows its fill
 * value); a truncated file is an error, whether the caller or the helper finds it. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "io/hdf5/chunk_filters.h"
#include "io/hdf5/chunk_reader.h"
#include "io/hdf5/h5util.h"

#define NT 37
#define NP 1000 /* 9 chunks of 112, the last one partial */
#define CP 112
#define ND 4 /* datasets in a file */
#define NR 3 /* the reader takes v0, v1 and v3: v2's chunks lie between theirs on disk */
static const int taken[NR] = {0, 1, 3};
#define NCHUNK ((NP + CP - 1) / CP)

static float value(int d, int64_t t, int64_t p)
{
    return (float)(10000 * d) + (float)p + (float)t / 1000.0f;
}

enum { PLAIN = 0, DEFLATE = 1, AXISEM = 2, SCALEOFFSET = 3 };

/* Datasets v0..v{nd-1}; axis 1: (NT, NP); axis 0: (NP, NT). Chunks written in reverse order, the
 * datasets' chunks alternating; filters: none, deflate level 1, AxiSEM's pipeline (fletcher32,
 * shuffle, deflate 2, in this order) or one the reader cannot decode (scale-offset); skip_chunk:
 * chunk 3 of every dataset never written; odd: one more dataset "w" with another chunk width. */
static void make(const char *path, int axis, int nd, int filters, bool skip_chunk, bool odd)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[2], chunk[2];
    dims[axis] = NP, dims[1 - axis] = NT;
    chunk[axis] = CP, chunk[1 - axis] = NT;
    hid_t sp = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    if (filters == DEFLATE) H5Pset_deflate(dcpl, 1);
    if (filters == AXISEM) {
        H5Pset_fletcher32(dcpl);
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, 2);
    }
    if (filters == SCALEOFFSET) H5Pset_scaleoffset(dcpl, H5Z_SO_FLOAT_DSCALE, 3);
    hid_t d[ND];
    for (int k = 0; k < nd; k++) {
        char name[16];
        snprintf(name, sizeof name, "v%d", k);
        d[k] = H5Dcreate2(f, name, H5T_IEEE_F32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    }
    float *buf = malloc(NT * CP * sizeof *buf);
    for (int64_t c = NCHUNK - 1; c >= 0; c--) {
        if (skip_chunk && c == 3) continue;
        for (int k = 0; k < nd; k++) {
            const int64_t p0 = c * CP, w = p0 + CP <= NP ? CP : NP - p0;
            hsize_t start[2], count[2];
            start[axis] = (hsize_t)p0, start[1 - axis] = 0;
            count[axis] = (hsize_t)w, count[1 - axis] = NT;
            for (int64_t t = 0; t < NT; t++)
                for (int64_t u = 0; u < w; u++) buf[axis == 1 ? t * w + u : u * NT + t] = value(k, t, p0 + u);
            hid_t ms = H5Screate_simple(2, count, NULL);
            H5Sselect_hyperslab(sp, H5S_SELECT_SET, start, NULL, count, NULL);
            H5Dwrite(d[k], H5T_NATIVE_FLOAT, ms, sp, H5P_DEFAULT, buf);
            H5Sclose(ms);
        }
    }
    if (odd) {
        chunk[axis] = CP / 2;
        H5Pset_chunk(dcpl, 2, chunk);
        hid_t w = H5Dcreate2(f, "w", H5T_IEEE_F32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Dclose(w);
    }
    free(buf);
    for (int k = 0; k < nd; k++) H5Dclose(d[k]);
    H5Pclose(dcpl);
    H5Sclose(sp);
    H5Fclose(f);
}

typedef struct set {
    int64_t first, step, n;
} set;

static int64_t fill_ids(set s, int64_t *ids)
{
    int64_t n = 0;
    for (int64_t p = s.first; p < NP && n < s.n; p += s.step) ids[n++] = p;
    return n;
}

/* Reads set s from every dataset and compares; "what" names the case in messages. Returns the
 * bytes the caller read itself (not from the cache). */
static int64_t read_check(check_ctx *T, axb_chunk_reader *r, const int *idx, int nd, set s, const char *what)
{
    int64_t own = 0;
    int64_t ids[NP];
    const int64_t n = fill_ids(s, ids);
    float *buf = malloc(NP * NT * sizeof *buf);
    axb_error err = AXB_ERROR_INIT;
    for (int k = 0; k < nd; k++) {
        bool used = false;
        int64_t bytes = 0, calls = 0;
        /* min_fill 0: every set is read, however sparse */
        CHECK_MSG(T, axb_chunk_reader_read_cols(r, idx[k], n, ids, 0.0, buf, &used, &bytes, &calls, &err) == AXB_OK,
                  "%s", err.msg);
        CHECK_MSG(T, used, "%s: set from %lld not read", what, (long long)s.first);
        if (!used) continue;
        own += bytes;
        int64_t bad = -1;
        for (int64_t u = 0; u < n && bad < 0; u++)
            for (int64_t t = 0; t < NT; t++)
                if (buf[u * NT + t] != value(nd == NR ? taken[k] : k, t, ids[u])) bad = u;
        CHECK_MSG(T, bad < 0, "%s, dataset %d: point %lld wrong", what, k, bad >= 0 ? (long long)ids[bad] : -1LL);
    }
    free(buf);
    return own;
}

static void prefetch(check_ctx *T, axb_chunk_reader *r, set s, int64_t *bytes_sum)
{
    int64_t ids[NP], bytes = 0, calls = 0;
    const int64_t n = fill_ids(s, ids);
    axb_error err = AXB_ERROR_INIT;
    CHECK_MSG(T, axb_chunk_reader_prefetch(r, n, ids, 0.0, false, &bytes, &calls, &err) == AXB_OK, "%s", err.msg);
    *bytes_sum += bytes;
}

static const set sets[] = {{0, 1, NP},  {5, 1, 1},   {100, 1, 30}, {224, 1, 112}, {900, 1, 100},
                           {0, 3, 334}, {7, 2, 400}, {999, 1, 1},  {0, 1, NP}};
#define NSETS ((int)(sizeof sets / sizeof *sets))

static int cmp_addr(const void *a, const void *b)
{
    const haddr_t x = *(const haddr_t *)a, y = *(const haddr_t *)b;
    return (x > y) - (x < y);
}

/* Runs of chunks of the taken datasets that follow each other in the file. */
static int64_t adjacent_runs(const hid_t *d, int axis)
{
    haddr_t a[NR * NCHUNK];
    int n = 0;
    for (int k = 0; k < NR; k++)
        for (int64_t c = 0; c < NCHUNK; c++) {
            hsize_t off[2] = {0, 0}, sz = 0;
            unsigned mask = 0;
            off[axis] = (hsize_t)(c * CP);
            a[n] = HADDR_UNDEF;
            H5Dget_chunk_info_by_coord(d[taken[k]], off, &mask, &a[n], &sz);
            n++;
        }
    qsort(a, (size_t)n, sizeof *a, cmp_addr);
    int64_t runs = 1;
    for (int i = 1; i < n; i++) runs += a[i] != a[i - 1] + CP * NT * 4;
    return runs;
}

/* The file's datasets v0..v{ND-1} opened into d; the file's id. */
static hid_t open_datasets(const char *path, hid_t d[ND])
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    for (int k = 0; k < ND; k++) {
        char name[16];
        snprintf(name, sizeof name, "v%d", k);
        d[k] = H5Dopen2(f, name, H5P_DEFAULT);
    }
    return f;
}

static void close_datasets(hid_t f, const hid_t d[ND])
{
    for (int k = 0; k < ND; k++) H5Dclose(d[k]);
    H5Fclose(f);
}

/* A reader over the taken datasets (points along @p axis) with @p cache bytes; idx[k] their
 * numbers. NULL (a failed check) when it cannot be opened. */
static axb_chunk_reader *reader_on(check_ctx *T, const char *path, int64_t cache, const hid_t d[ND], int axis,
                                   int idx[NR])
{
    axb_error err = AXB_ERROR_INIT;
    axb_chunk_reader *r = NULL;
    CHECK_MSG(T, axb_chunk_reader_open(path, cache, &r, &err) == AXB_OK && r, "%s", err.msg);
    for (int k = 0; r && k < NR; k++)
        CHECK(T, axb_chunk_reader_add(r, d[taken[k]], axis, "v", &idx[k], &err) == AXB_OK);
    return r;
}

static void read_sets(check_ctx *T, const char *path, int axis, bool filtered)
{
    hid_t d[ND], f = open_datasets(path, d);
    axb_error err = AXB_ERROR_INIT;
    const int64_t chunk_bytes = CP * NT * 4;
    int idx[NR];
    /* caches: none; 3 chunks (too small to prefetch anything, evicting); all chunks of all
     * datasets (prefetches taken) */
    const int64_t caches[] = {0, 3 * chunk_bytes, 2 * NR * NCHUNK * chunk_bytes};
    for (int c = 0; c < 3; c++) {
        axb_chunk_reader *r = NULL;
        CHECK_MSG(T, axb_chunk_reader_open(path, caches[c], &r, &err) == AXB_OK && r, "%s", err.msg);
        if (!r) continue;
        for (int k = 0; k < NR; k++) {
            CHECK(T, axb_chunk_reader_add(r, d[taken[k]], axis, "v", &idx[k], &err) == AXB_OK);
            CHECK(T, idx[k] == k);
            CHECK(T, axb_chunk_reader_filtered(r, idx[k]) == filtered);
            CHECK(T, axb_chunk_reader_indexed(r, idx[k])); /* the index in one pass, not chunk by chunk */
        }
        char what[64];
        /* plain reads */
        for (int s = 0; s < NSETS; s++) {
            snprintf(what, sizeof what, "axis %d, cache %d, set %d", axis, c, s);
            read_check(T, r, idx, NR, sets[s], what);
        }
        /* each set prefetched before it is read, and the next one too (two requests queued) */
        int64_t queued = 0;
        prefetch(T, r, sets[0], &queued);
        for (int s = 0; s < NSETS; s++) {
            if (s + 1 < NSETS) prefetch(T, r, sets[s + 1], &queued);
            snprintf(what, sizeof what, "axis %d, cache %d, prefetched set %d", axis, c, s);
            read_check(T, r, idx, NR, sets[s], what);
        }
        /* the big cache holds everything after the plain reads: nothing is queued again; from a
         * fresh reader the first prefetch queues every chunk of every dataset, in long runs */
        if (c == 2) {
            CHECK_MSG(T, queued == 0, "%lld bytes queued again", (long long)queued);
            axb_chunk_reader_close(&r);
            r = reader_on(T, path, caches[c], d, axis, idx);
            int64_t ids[NP], bytes = 0, calls = 0;
            const int64_t n = fill_ids(sets[0], ids);
            CHECK(T, r && axb_chunk_reader_prefetch(r, n, ids, 0.0, false, &bytes, &calls, &err) == AXB_OK);
            if (!filtered) {
                CHECK_MSG(T, bytes == NR * NCHUNK * chunk_bytes, "%lld bytes queued", (long long)bytes);
                /* one read per run of chunks adjacent on disk, as HDF5 placed them */
                const int64_t runs = adjacent_runs(d, axis);
                CHECK_MSG(T, runs >= 2, "%lld runs: the layout has no gap to test", (long long)runs);
                CHECK_MSG(T, calls == runs, "%lld reads, %lld runs", (long long)calls, (long long)runs);
            } else { /* stored sizes vary: every chunk queued, compressed */
                CHECK_MSG(T, bytes > 0 && bytes < NR * NCHUNK * chunk_bytes && calls >= 1, "%lld bytes in %lld reads",
                          (long long)bytes, (long long)calls);
            }
            if (r) read_check(T, r, idx, NR, sets[0], "one prefetch of everything");
        }
        /* a sparse set (under the fill rule) is declined, not read, unless filtered (HDF5 would
         * decode the whole chunks too): then it is read */
        int64_t ids[2] = {0, 500}, bytes = 0, calls = 0;
        bool used = !filtered;
        float buf[2 * NT];
        CHECK(T,
              r && axb_chunk_reader_read_cols(r, idx[0], 2, ids, 0.25, buf, &used, &bytes, &calls, &err) == AXB_OK &&
                  used == filtered);
        if (filtered) CHECK(T, buf[NT + 5] == value(0, 5, 500) && buf[3] == value(0, 3, 0));
        if (!filtered)
            CHECK(T,
                  r && axb_chunk_reader_prefetch(r, 2, ids, 0.25, false, &bytes, &calls, &err) == AXB_OK && bytes == 0);
        axb_chunk_reader_close(&r);
        CHECK(T, r == NULL);
    }
    close_datasets(f, d);
}

/* Chunks a prefetch listed stay in the cache until they are read, though chunks read after the
 * listing are newer; the listed ones may fill three quarters of the cache, and a request that did
 * not fit is listed when asked for again (only its chunks not listed yet count). Sets of two whole chunks: 6 chunks over the 3 datasets,
 * in a cache of 16. */
static void listed_kept(check_ctx *T, const char *path)
{
    hid_t d[ND], f = open_datasets(path, d);
    int idx[NR];
    axb_chunk_reader *r = reader_on(T, path, 16 * CP * NT * 4, d, 1, idx);
    if (r) {
        const set a = {0, 1, 2 * CP}, x = {2 * CP, 1, 2 * CP}, b = {4 * CP, 1, 2 * CP}, c = {6 * CP, 1, 2 * CP};
        int64_t q = 0;
        prefetch(T, r, a, &q);
        CHECK_MSG(T, q == 6 * CP * NT * 4, "a: %lld bytes queued", (long long)q);
        nanosleep(&(struct timespec){0, 200000000}, NULL); /* the helper has read a's chunks: evictable */
        /* x read directly: 6 chunks newer than a's; then b fills the cache (6 + 6 listed of the
         * 12 allowed) and must take x's slots, not a's */
        CHECK(T, read_check(T, r, idx, NR, x, "x, read directly") == 6 * CP * NT * 4);
        q = 0;
        prefetch(T, r, b, &q);
        CHECK_MSG(T, q == 6 * CP * NT * 4, "b: %lld bytes queued", (long long)q);
        q = 0;
        prefetch(T, r, b, &q); /* already listed: nothing more */
        CHECK_MSG(T, q == 0, "b again: %lld bytes queued", (long long)q);
        prefetch(T, r, c, &q); /* 12 listed already: c does not fit */
        CHECK_MSG(T, q == 0, "c over the limit: %lld bytes queued", (long long)q);
        CHECK_MSG(T, read_check(T, r, idx, NR, a, "a, listed before x was read") == 0, "a's chunks were evicted");
        /* a is read: room for c now, asked for together with b (listed): only c's chunks count */
        const set bc = {4 * CP, 1, 4 * CP};
        prefetch(T, r, bc, &q);
        CHECK_MSG(T, q == 6 * CP * NT * 4, "b and c: %lld bytes queued", (long long)q);
        CHECK(T, read_check(T, r, idx, NR, b, "b") == 0);
        CHECK(T, read_check(T, r, idx, NR, c, "c") == 0);
        /* cached chunks count as listed too: b and c again (nothing to read), then x does not fit
         * until they are read */
        q = 0;
        prefetch(T, r, bc, &q);
        prefetch(T, r, x, &q);
        CHECK_MSG(T, q == 0, "b, c cached and listed, then x: %lld bytes queued", (long long)q);
        CHECK(T, read_check(T, r, idx, NR, bc, "b and c again") == 0);
        prefetch(T, r, x, &q);
        CHECK_MSG(T, q > 0, "x after b and c were read: nothing queued");
        CHECK(T, read_check(T, r, idx, NR, x, "x prefetched") == 0);
    }
    axb_chunk_reader_close(&r);
    close_datasets(f, d);
}

/* The least recently used chunks make room, whatever order their slots are in: a cache of six
 * chunks, sets of one whole chunk (three chunks over the datasets). A and B fill it, A is read
 * again (from the cache), C takes B's slots; then A is still cached and B is read again. A
 * fourth set D after that takes A's slots (A was used before C and B). */
static void lru_order(check_ctx *T, const char *path)
{
    hid_t d[ND], f = open_datasets(path, d);
    int idx[NR];
    const int64_t chunk = CP * NT * 4, three = 3 * chunk;
    axb_chunk_reader *r = reader_on(T, path, 6 * chunk, d, 1, idx);
    if (r) {
        const set a = {0, 1, CP}, b = {3 * CP, 1, CP}, c = {5 * CP, 1, CP}, dd = {7 * CP, 1, CP};
        CHECK(T, read_check(T, r, idx, NR, a, "A") == three);
        CHECK(T, read_check(T, r, idx, NR, b, "B") == three);
        CHECK_MSG(T, read_check(T, r, idx, NR, a, "A again") == 0, "A was not kept");
        CHECK(T, read_check(T, r, idx, NR, c, "C") == three);
        CHECK_MSG(T, read_check(T, r, idx, NR, a, "A after C") == 0, "C took A's slots, not B's (older)");
        CHECK_MSG(T, read_check(T, r, idx, NR, b, "B after C") == three, "B was kept though older than A");
        CHECK(T, read_check(T, r, idx, NR, dd, "D") == three);
        CHECK_MSG(T, read_check(T, r, idx, NR, a, "A after D") == three, "D did not take the oldest slots (A's)");
    }
    axb_chunk_reader_close(&r);
    close_datasets(f, d);
}

/* Announced requests (axb_chunk_reader_expect) decide before recency: a cache of six chunks, sets
 * of one whole chunk (three chunks over the datasets), requests A, B, C, A. Least recently used
 * alone, C takes A's slots (A is older than B) and the second A is read again; announced, B and C
 * are not kept (no later request needs them) and the second A comes from the cache. */
static void announced(check_ctx *T, const char *path)
{
    hid_t d[ND], f = open_datasets(path, d);
    const int64_t chunk = CP * NT * 4, three = 3 * chunk;
    const set a = {0, 1, CP}, b = {3 * CP, 1, CP}, c = {5 * CP, 1, CP};
    for (int announce = 0; announce < 2; announce++) {
        int idx[NR];
        axb_chunk_reader *r = reader_on(T, path, 6 * chunk, d, 1, idx);
        if (!r) continue;
        if (announce) {
            const set order[4] = {a, b, c, a};
            for (int q = 0; q < 4; q++) {
                int64_t ids[NP];
                axb_chunk_reader_expect(r, fill_ids(order[q], ids), ids);
            }
        }
        CHECK(T, read_check(T, r, idx, NR, a, "A") == three);
        CHECK(T, read_check(T, r, idx, NR, b, "B") == three);
        CHECK(T, read_check(T, r, idx, NR, c, "C") == three);
        const int64_t again = read_check(T, r, idx, NR, a, "A again");
        CHECK_MSG(T, again == (announce ? 0 : three), "%s: A again read %lld bytes",
                  announce ? "announced" : "least recently used", (long long)again);
        axb_chunk_reader_close(&r);
    }
    close_datasets(f, d);
}

/* The file cut short behind HDF5's back. */
static void truncated(check_ctx *T, const char *dir, bool with_prefetch)
{
    char path[600];
    snprintf(path, sizeof path, "%s/cut%d.h5", dir, with_prefetch);
    make(path, 1, 1, PLAIN, false, false);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, "v0", H5P_DEFAULT);
    axb_error err = AXB_ERROR_INIT;
    axb_chunk_reader *r = NULL;
    int idx = -1;
    CHECK(T, axb_chunk_reader_open(path, with_prefetch ? (int64_t)1 << 20 : 0, &r, &err) == AXB_OK && r);
    CHECK(T, r && axb_chunk_reader_add(r, d, 1, "v", &idx, &err) == AXB_OK && idx == 0);
    haddr_t a = HADDR_UNDEF;
    hsize_t off[2] = {0, 0}, sz = 0;
    unsigned mask = 0;
    CHECK(T, H5Dget_chunk_info_by_coord(d, off, &mask, &a, &sz) >= 0 && a != HADDR_UNDEF);
    int64_t ids[CP], bytes, calls;
    for (int64_t u = 0; u < CP; u++) ids[u] = u;
    float *buf = malloc(CP * NT * sizeof *buf);
    bool used = false;
    CHECK(T, truncate(path, (off_t)(a + 100)) == 0);
    /* HDF5 still knows where chunk 0 is (its index was read above); the data are gone: the
     * helper thread finds that, and the read waiting for the chunk reports it */
    if (with_prefetch)
        CHECK(T, r && axb_chunk_reader_prefetch(r, CP, ids, 0.25, false, &bytes, &calls, &err) == AXB_OK && bytes > 0);
    axb_status st = r ? axb_chunk_reader_read_cols(r, idx, CP, ids, 0.25, buf, &used, &bytes, &calls, &err) : AXB_OK;
    CHECK_MSG(T, st == AXB_ERR_FORMAT, "status %d", (int)st);
    CHECK_CONTAINS(T, err.msg, "truncated");
    if (with_prefetch) { /* the helper's failure stays: every later call reports it */
        err = (axb_error)AXB_ERROR_INIT;
        CHECK(T, r && axb_chunk_reader_prefetch(r, CP, ids, 0.25, false, &bytes, &calls, &err) == AXB_ERR_FORMAT);
        CHECK_CONTAINS(T, err.msg, "truncated");
    }
    axb_chunk_reader_close(&r);
    free(buf);
    H5Dclose(d);
    H5Fclose(f);
}

/* AxiSEM's filters with one byte of chunk 2 flipped behind HDF5's back: an error naming the
 * variable and the chunk, from the caller's own read or from a pool task's; never values. A chunk
 * never written is an error too (HDF5 would return fill values). */
static void damaged(check_ctx *T, const char *dir, bool with_prefetch)
{
    char path[600];
    snprintf(path, sizeof path, "%s/damaged%d.h5", dir, with_prefetch);
    make(path, 1, 1, AXISEM, false, false);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, "v0", H5P_DEFAULT);
    haddr_t a = HADDR_UNDEF;
    hsize_t off[2] = {0, 2 * CP}, sz = 0;
    unsigned mask = 0;
    CHECK(T, H5Dget_chunk_info_by_coord(d, off, &mask, &a, &sz) >= 0 && a != HADDR_UNDEF && sz > 100);
    FILE *fp = fopen(path, "r+b");
    CHECK(T, fp != NULL);
    if (fp) { /* the deflate stream's last bytes hold the stored checksum's bits */
        fseek(fp, (long)(a + sz - 7), SEEK_SET);
        int ch = fgetc(fp);
        fseek(fp, (long)(a + sz - 7), SEEK_SET);
        fputc(ch ^ 0x10, fp);
        fclose(fp);
    }
    axb_error err = AXB_ERROR_INIT;
    axb_chunk_reader *r = NULL;
    int idx = -1;
    CHECK(T, axb_chunk_reader_open(path, (int64_t)1 << 20, &r, &err) == AXB_OK && r);
    CHECK(T, r && axb_chunk_reader_add(r, d, 1, "v0", &idx, &err) == AXB_OK && idx == 0);
    int64_t ids[3 * CP], bytes, calls;
    for (int64_t u = 0; u < 3 * CP; u++) ids[u] = u;
    float *buf = malloc(3 * CP * NT * sizeof *buf);
    bool used = false;
    if (with_prefetch)
        CHECK(T, r && axb_chunk_reader_prefetch(r, 3 * CP, ids, 0, false, &bytes, &calls, &err) == AXB_OK);
    axb_status st = r ? axb_chunk_reader_read_cols(r, idx, 3 * CP, ids, 0, buf, &used, &bytes, &calls, &err) : AXB_OK;
    CHECK_MSG(T, st == AXB_ERR_FORMAT && !used, "status %d", (int)st);
    CHECK_CONTAINS(T, err.msg, "variable 'v0', chunk 2 (points 224-335)");
    axb_chunk_reader_close(&r);
    /* HDF5 agrees that the chunk is damaged */
    float *all = malloc(NP * NT * sizeof *all);
    CHECK(T, all && H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, all) < 0);
    free(all);
    free(buf);
    H5Dclose(d);
    H5Fclose(f);

    snprintf(path, sizeof path, "%s/hole-axisem%d.h5", dir, with_prefetch);
    make(path, 1, 1, AXISEM, true, false);
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, "v0", H5P_DEFAULT);
    err = (axb_error)AXB_ERROR_INIT;
    CHECK(T, axb_chunk_reader_open(path, (int64_t)1 << 20, &r, &err) == AXB_OK && r);
    CHECK(T, r && axb_chunk_reader_add(r, d, 1, "v0", &idx, &err) == AXB_OK && idx == 0);
    int64_t one = 3 * CP + 5;
    float col[NT];
    st = r ? axb_chunk_reader_read_cols(r, idx, 1, &one, 0, col, &used, &bytes, &calls, &err) : AXB_OK;
    CHECK_MSG(T, st == AXB_ERR_FORMAT, "status %d", (int)st);
    CHECK_CONTAINS(T, err.msg, "chunk 3 (points 336-447): not stored");
    axb_chunk_reader_close(&r);
    H5Dclose(d);
    H5Fclose(f);
}

/* HDF5's own Fletcher-32 (exported by libhdf5, not in its public headers): the reference. */
uint32_t H5_checksum_fletcher32(const void *data, size_t len);

/* axb_fletcher32 equals HDF5's on every length from 0 to past a few blocks and on long buffers,
 * for the patterns where its folds matter: all zero, all 0xff (sums that are multiples of
 * 65535), sparse and random bytes. */
static void fletcher_matches_hdf5(check_ctx *T)
{
    enum { MAX = 70000 };
    unsigned char *buf = malloc(MAX);
    if (!buf) return;
    uint64_t x = 88172645463325252u;
    long bad = 0, runs = 0;
    for (int pattern = 0; pattern < 4; pattern++)
        for (size_t len = 0; len < MAX; len = len < 2100 ? len + 1 : len * 3 / 2 + 7) {
            for (size_t i = 0; i < len; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                buf[i] = pattern == 0 ? 0
                    : pattern == 1    ? 0xff
                    : pattern == 2    ? (x % 97 == 0 ? (unsigned char)x : 0)
                                      : (unsigned char)(x >> 24);
            }
            const uint32_t mine = axb_fletcher32(buf, len), ref = H5_checksum_fletcher32(buf, len);
            if (mine != ref && bad++ < 3)
                fprintf(stderr, "fletcher32 of %zu bytes (pattern %d): %08x, HDF5 %08x\n", len, pattern, mine, ref);
            runs++;
        }
    CHECK_MSG(T, bad == 0, "%ld of %ld checksums differ from HDF5's", bad, runs);
    free(buf);
}

int main(void)
{
    check_ctx T = {0, 0, 0};
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    fletcher_matches_hdf5(&T);
    const char *base = getenv("TMPDIR");
    char dir[512], path[600], cmd[700];
    snprintf(dir, sizeof dir, "%s/axb-rawchunks-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir)) return 1;
    for (int axis = 0; axis < 2; axis++) {
        snprintf(path, sizeof path, "%s/plain%d.h5", dir, axis);
        make(path, axis, ND, PLAIN, false, false);
        read_sets(&T, path, axis, false);
        /* AxiSEM's filters: decoded by the reader, values as written */
        snprintf(path, sizeof path, "%s/axisem%d.h5", dir, axis);
        make(path, axis, ND, AXISEM, false, false);
        read_sets(&T, path, axis, true);
        snprintf(path, sizeof path, "%s/plain%d.h5", dir, axis);
    }
    listed_kept(&T, path); /* axis 1 */
    lru_order(&T, path);
    announced(&T, path);
    axb_error err = AXB_ERROR_INIT;
    axb_chunk_reader *r = NULL;
    int idx = 0;
    /* deflate alone is decoded; a filter the reader does not know (scale-offset), or another chunk
     * shape than the first dataset's: not for this reader */
    snprintf(path, sizeof path, "%s/deflate.h5", dir);
    make(path, 1, 1, DEFLATE, false, false);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, "v0", H5P_DEFAULT);
    CHECK(&T, axb_chunk_reader_open(path, 1 << 20, &r, &err) == AXB_OK && r != NULL);
    CHECK(&T, r && axb_chunk_reader_add(r, d, 1, "v", &idx, &err) == AXB_OK && idx == 0);
    if (r) read_check(&T, r, &idx, 1, sets[0], "deflate only");
    axb_chunk_reader_close(&r);
    H5Dclose(d);
    H5Fclose(f);
    snprintf(path, sizeof path, "%s/scaleoffset.h5", dir);
    make(path, 1, 1, SCALEOFFSET, false, false);
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, "v0", H5P_DEFAULT);
    CHECK(&T, axb_chunk_reader_open(path, 1 << 20, &r, &err) == AXB_OK && r != NULL);
    CHECK(&T, r && axb_chunk_reader_add(r, d, 1, "v", &idx, &err) == AXB_OK && idx == -1);
    axb_chunk_reader_close(&r);
    H5Dclose(d);
    H5Fclose(f);
    damaged(&T, dir, false);
    damaged(&T, dir, true);
    snprintf(path, sizeof path, "%s/odd.h5", dir);
    make(path, 1, 1, PLAIN, false, true);
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, "v0", H5P_DEFAULT);
    hid_t w = H5Dopen2(f, "w", H5P_DEFAULT);
    CHECK(&T, axb_chunk_reader_open(path, 1 << 20, &r, &err) == AXB_OK && r != NULL);
    CHECK(&T, r && axb_chunk_reader_add(r, d, 1, "v", &idx, &err) == AXB_OK && idx == 0);
    CHECK(&T, r && axb_chunk_reader_add(r, w, 1, "v", &idx, &err) == AXB_OK && idx == -1);
    axb_chunk_reader_close(&r);
    H5Dclose(w);
    H5Dclose(d);
    H5Fclose(f);
    /* chunk 3 never written: declined where it is touched, by reads and prefetches */
    snprintf(path, sizeof path, "%s/hole.h5", dir);
    make(path, 1, 1, PLAIN, true, false);
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, "v0", H5P_DEFAULT);
    CHECK(&T, axb_chunk_reader_open(path, 1 << 20, &r, &err) == AXB_OK && r != NULL);
    CHECK(&T, r && axb_chunk_reader_add(r, d, 1, "v", &idx, &err) == AXB_OK && idx == 0);
    int64_t ids[CP];
    float *buf = malloc(CP * NT * sizeof *buf);
    bool used = true;
    int64_t bytes, calls;
    for (int64_t u = 0; u < CP; u++) ids[u] = 3 * CP + u;
    CHECK(&T, r && axb_chunk_reader_prefetch(r, CP, ids, 0.25, false, &bytes, &calls, &err) == AXB_OK && bytes == 0);
    CHECK(&T,
          r && axb_chunk_reader_read_cols(r, idx, CP, ids, 0.25, buf, &used, &bytes, &calls, &err) == AXB_OK && !used);
    for (int64_t u = 0; u < CP; u++) ids[u] = 4 * CP + u;
    CHECK(&T,
          r && axb_chunk_reader_read_cols(r, idx, CP, ids, 0.25, buf, &used, &bytes, &calls, &err) == AXB_OK && used &&
              buf[5 * NT + 7] == value(0, 7, 4 * CP + 5));
    axb_chunk_reader_close(&r);
    free(buf);
    H5Dclose(d);
    H5Fclose(f);
    truncated(&T, dir, false);
    truncated(&T, dir, true);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (getenv("KEEP"))
        printf("%s\n", dir);
    else if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_summary(&T);
}
