/* Raw chunk reads (io/h5util.h h5u_rawchunks_*) against values known in closed form: a chunked,
 * unfiltered float dataset holding v(t, p) = p + t / 1000, in both orientations ((samples,
 * points) and (points, samples)), with a partial edge chunk and chunks written out of order
 * (so neighbours in index are not always neighbours on disk). Sets of points of every kind
 * (single, whole chunks, spanning chunks, the edge) are read with a cache too small to keep all,
 * so hits, misses and evictions all occur. A deflated dataset is not taken; a chunk never
 * written makes the reader decline (HDF5 knows its fill value); a truncated file is an error. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "io/h5util.h"

#define NT 37
#define NP 1000 /* 9 chunks of 112, the last one partial */
#define CP 112

static float value(int64_t t, int64_t p) { return (float)p + (float)t / 1000.0f; }

/* axis 1: (NT, NP); axis 0: (NP, NT). Chunks written in reverse order; deflate: level 1. */
static void make(const char *path, int axis, bool deflate, bool skip_chunk)
{
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[2], chunk[2];
    dims[axis] = NP, dims[1 - axis] = NT;
    chunk[axis] = CP, chunk[1 - axis] = NT;
    hid_t sp = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    if (deflate) H5Pset_deflate(dcpl, 1);
    hid_t d = H5Dcreate2(f, "v", H5T_IEEE_F32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    float *buf = malloc(NT * CP * sizeof *buf);
    for (int64_t c = (NP + CP - 1) / CP - 1; c >= 0; c--) {
        if (skip_chunk && c == 3) continue;
        const int64_t p0 = c * CP, w = p0 + CP <= NP ? CP : NP - p0;
        hsize_t start[2], count[2];
        start[axis] = (hsize_t)p0, start[1 - axis] = 0;
        count[axis] = (hsize_t)w, count[1 - axis] = NT;
        for (int64_t t = 0; t < NT; t++)
            for (int64_t u = 0; u < w; u++) buf[axis == 1 ? t * w + u : u * NT + t] = value(t, p0 + u);
        hid_t ms = H5Screate_simple(2, count, NULL);
        H5Sselect_hyperslab(sp, H5S_SELECT_SET, start, NULL, count, NULL);
        H5Dwrite(d, H5T_NATIVE_FLOAT, ms, sp, H5P_DEFAULT, buf);
        H5Sclose(ms);
    }
    free(buf);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(sp);
    H5Fclose(f);
}

static void read_sets(check_ctx *T, const char *path, int axis)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, "v", H5P_DEFAULT);
    axb_error err = AXB_ERROR_INIT;
    h5u_rawchunks *r = NULL;
    /* room for 3 chunks */
    CHECK_MSG(T, h5u_rawchunks_open(d, path, axis, 3 * CP * NT * 4, &r, &err) == AXB_OK && r, "%s", err.msg);
    int64_t ids[NP];
    float *buf = malloc(NP * NT * sizeof *buf);
    const struct { int64_t first, step, n; } sets[] = {
        {0, 1, NP}, {5, 1, 1}, {100, 1, 30}, {224, 1, 112}, {900, 1, 100}, {0, 3, 334}, {7, 2, 400}, {999, 1, 1}, {0, 1, NP}};
    for (size_t s = 0; r && s < sizeof sets / sizeof *sets; s++) {
        int64_t n = 0;
        for (int64_t p = sets[s].first; p < NP && n < sets[s].n; p += sets[s].step) ids[n++] = p;
        bool used = false;
        int64_t bytes = 0, calls = 0;
        /* min_fill 0: every set is read, however sparse */
        CHECK_MSG(T, h5u_rawchunks_read_cols(r, n, ids, 0.0, buf, &used, &bytes, &calls, &err) == AXB_OK, "%s", err.msg);
        CHECK_MSG(T, used, "set %zu not read", s);
        if (!used) continue;
        int64_t bad = -1;
        for (int64_t u = 0; u < n && bad < 0; u++)
            for (int64_t t = 0; t < NT; t++)
                if (buf[u * NT + t] != value(t, ids[u])) bad = u;
        CHECK_MSG(T, bad < 0, "axis %d, set %zu: point %lld wrong", axis, s, bad >= 0 ? (long long)ids[bad] : -1LL);
    }
    /* a sparse set (under the fill rule) is declined, not read */
    ids[0] = 0, ids[1] = 500;
    bool used = true;
    int64_t bytes = 0, calls = 0;
    CHECK(T, r && h5u_rawchunks_read_cols(r, 2, ids, 0.25, buf, &used, &bytes, &calls, &err) == AXB_OK && !used);
    h5u_rawchunks_close(&r);
    CHECK(T, r == NULL);
    free(buf);
    H5Dclose(d);
    H5Fclose(f);
}

int main(void)
{
    check_ctx T = {0, 0, 0};
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    const char *base = getenv("TMPDIR");
    char dir[512], path[600], cmd[700];
    snprintf(dir, sizeof dir, "%s/axb-rawchunks-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir)) return 1;
    for (int axis = 0; axis < 2; axis++) {
        snprintf(path, sizeof path, "%s/plain%d.h5", dir, axis);
        make(path, axis, false, false);
        read_sets(&T, path, axis);
    }
    axb_error err = AXB_ERROR_INIT;
    h5u_rawchunks *r = NULL;
    /* deflated: not for this reader */
    snprintf(path, sizeof path, "%s/deflate.h5", dir);
    make(path, 1, true, false);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, "v", H5P_DEFAULT);
    CHECK(&T, h5u_rawchunks_open(d, path, 1, 1 << 20, &r, &err) == AXB_OK && r == NULL);
    H5Dclose(d);
    H5Fclose(f);
    /* chunk 3 never written: declined where it is touched */
    snprintf(path, sizeof path, "%s/hole.h5", dir);
    make(path, 1, false, true);
    f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, "v", H5P_DEFAULT);
    CHECK(&T, h5u_rawchunks_open(d, path, 1, 1 << 20, &r, &err) == AXB_OK && r != NULL);
    int64_t ids[CP];
    float *buf = malloc(CP * NT * sizeof *buf);
    bool used = true;
    int64_t bytes, calls;
    for (int64_t u = 0; u < CP; u++) ids[u] = 3 * CP + u;
    CHECK(&T, r && h5u_rawchunks_read_cols(r, CP, ids, 0.25, buf, &used, &bytes, &calls, &err) == AXB_OK && !used);
    for (int64_t u = 0; u < CP; u++) ids[u] = 4 * CP + u;
    CHECK(&T, r && h5u_rawchunks_read_cols(r, CP, ids, 0.25, buf, &used, &bytes, &calls, &err) == AXB_OK && used &&
                  buf[5 * NT + 7] == value(7, 4 * CP + 5));
    /* the file cut short behind HDF5's back: the chunk data are gone */
    h5u_rawchunks_close(&r);
    CHECK(&T, h5u_rawchunks_open(d, path, 1, 0, &r, &err) == AXB_OK && r != NULL);
    haddr_t a = HADDR_UNDEF;
    hsize_t off[2] = {0, 0}, sz = 0;
    unsigned mask = 0;
    CHECK(&T, H5Dget_chunk_info_by_coord(d, off, &mask, &a, &sz) >= 0 && a != HADDR_UNDEF);
    CHECK(&T, truncate(path, (off_t)(a + 100)) == 0);
    for (int64_t u = 0; u < CP; u++) ids[u] = u;
    CHECK(&T, r && h5u_rawchunks_read_cols(r, CP, ids, 0.25, buf, &used, &bytes, &calls, &err) == AXB_ERR_FORMAT);
    CHECK_CONTAINS(&T, err.msg, "truncated");
    h5u_rawchunks_close(&r);
    free(buf);
    H5Dclose(d);
    H5Fclose(f);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_summary(&T);
}
