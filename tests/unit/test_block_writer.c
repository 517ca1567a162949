/* Direct streams (axibulk/rawfile.h) against a byte-for-byte model of the file: streams at odd
 * offsets, puts of odd sizes (smaller than a page, spanning pages, larger than the capacity is
 * refused), a stream ended and restarted mid-page (a checkpoint), and two handles writing
 * neighbouring regions that share a page, interleaved. Bytes no stream owns must stay untouched.
 * Run with O_DIRECT and without (the fallback where a file system refuses it). The dataset
 * offset reported for an HDF5 file is checked by reading the raw bytes there. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/hdf5/block_writer.h"
#include "check.h"

#define FSIZE (3 * 1024 * 1024 + 123)
#define CAP 300000

static unsigned char pattern(int64_t off, int salt)
{
    return (unsigned char)((off * 2654435761u + (uint64_t)salt) >> 7);
}

static int make_file(const char *path, unsigned char fill)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    for (int64_t k = 0; k < FSIZE; k++) fputc(fill, f);
    return fclose(f);
}

/* a put of n pattern bytes at the stream's position *pos */
static axb_status put(axb_block_writer *w, int64_t *pos, size_t n, int salt, unsigned char *model, axb_error *err)
{
    size_t head;
    unsigned char *b = (unsigned char *)axb_block_writer_buffer(w, &head) + head;
    for (size_t k = 0; k < n && k < CAP; k++) b[k] = model[*pos + (int64_t)k] = pattern(*pos + (int64_t)k, salt);
    axb_status st = axb_block_writer_put(w, n, err);
    if (!st) *pos += (int64_t)n;
    return st;
}

static void run(check_ctx *T, const char *dir, bool direct)
{
    char path[600];
    snprintf(path, sizeof path, "%s/raw%d.bin", dir, (int)direct);
    unsigned char *model = malloc(FSIZE), *got = malloc(FSIZE);
    memset(model, 0xEE, FSIZE);
    CHECK(T, make_file(path, 0xEE) == 0);
    axb_error err = AXB_ERROR_INIT;
    axb_block_writer *a = NULL, *b = NULL;
    CHECK_MSG(T, axb_block_writer_open(path, CAP, direct, &a, &err) == AXB_OK, "%s", err.msg);
    CHECK_MSG(T, axb_block_writer_open(path, CAP, direct, &b, &err) == AXB_OK, "%s", err.msg);
    if (!a || !b) goto out;
    if (!direct) CHECK(T, !axb_block_writer_is_direct(a));
    printf("%s: O_DIRECT %s\n", path, axb_block_writer_is_direct(a) ? "used" : "not used");
    /* a: [1001, 1001093), then a restart mid-page, up to 1700002; b: [1700002, 3004099) */
    int64_t pa = 1001, pb = 1700002;
    const size_t sizes_a[] = {3, 4093, 1, 5000, 299999, 4096, 8192, 12, 300000, 300000, 78696};
    const size_t sizes_b[] = {2, 4094, 100000, 300000, 300000, 300000, 300000, 1};
    CHECK(T, axb_block_writer_begin(a, pa, &err) == AXB_OK);
    CHECK(T, axb_block_writer_begin(b, pb, &err) == AXB_OK);
    size_t ia = 0, ib = 0;
    while (ia < sizeof sizes_a / sizeof *sizes_a || ib < sizeof sizes_b / sizeof *sizes_b) {
        if (ia < sizeof sizes_a / sizeof *sizes_a)
            CHECK_MSG(T, put(a, &pa, sizes_a[ia++], 1, model, &err) == AXB_OK, "%s", err.msg);
        if (ib < sizeof sizes_b / sizeof *sizes_b)
            CHECK_MSG(T, put(b, &pb, sizes_b[ib++], 2, model, &err) == AXB_OK, "%s", err.msg);
    }
    CHECK(T, pa == 1001093 && pb == 3004099);
    /* a checkpoint: the stream ends (tail written), the file is synced, a new stream goes on */
    CHECK(T, axb_block_writer_end(a, &err) == AXB_OK && axb_block_writer_sync(a, &err) == AXB_OK);
    CHECK(T, axb_block_writer_begin(a, pa, &err) == AXB_OK);
    while (pa < 1700002) {
        const size_t n = (size_t)(1700002 - pa) < 123457 ? (size_t)(1700002 - pa) : 123457;
        CHECK_MSG(T, put(a, &pa, n, 3, model, &err) == AXB_OK, "%s", err.msg);
    }
    CHECK(T, axb_block_writer_put(a, CAP + 1, &err) == AXB_ERR_INTERNAL); /* more than the buffer holds */
    CHECK(T, axb_block_writer_end(a, &err) == AXB_OK && axb_block_writer_end(b, &err) == AXB_OK);
    CHECK(T, axb_block_writer_sync(b, &err) == AXB_OK);
    int64_t d = 0, p = 0, d2 = 0, p2 = 0;
    axb_block_writer_counts(a, &d, &p);
    axb_block_writer_counts(b, &d2, &p2);
    CHECK_MSG(T, d + p + d2 + p2 == (1700002 - 1001) + (pb - 1700002), "%lld bytes counted",
              (long long)(d + p + d2 + p2));
    /* with O_DIRECT only the shared pages at the ends of the three streams go through the cache */
    if (axb_block_writer_is_direct(a))
        CHECK_MSG(T, p + p2 <= 6 * AXB_BLOCK_WRITER_ALIGN, "%lld buffered bytes", (long long)(p + p2));
    else
        CHECK(T, d + d2 == 0);
    axb_block_writer_close(&a);
    axb_block_writer_close(&b);
    CHECK(T, a == NULL && b == NULL);
    FILE *f = fopen(path, "rb");
    CHECK(T, f && fread(got, 1, FSIZE, f) == FSIZE && fgetc(f) == EOF);
    if (f) fclose(f);
    int64_t first_bad = -1;
    for (int64_t k = 0; k < FSIZE && first_bad < 0; k++)
        if (got[k] != model[k]) first_bad = k;
    CHECK_MSG(T, first_bad < 0, "byte %lld differs: %02x, expected %02x", (long long)first_bad,
              first_bad >= 0 ? got[first_bad] : 0, first_bad >= 0 ? model[first_bad] : 0);
out:
    axb_block_writer_close(&a);
    axb_block_writer_close(&b);
    free(model);
    free(got);
}

/* The block HDF5 allocated for a contiguous dataset holds exactly what H5Dwrite wrote. */
static void extent(check_ctx *T, const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/x.h5", dir);
    float v[1000];
    for (int k = 0; k < 1000; k++) v[k] = (float)k * 0.5f - 7.0f;
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t n = 1000, c = 100;
    hid_t sp = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &c);
    hid_t d1 = H5Dcreate2(f, "contig", H5T_IEEE_F32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t d2 = H5Dcreate2(f, "chunked", H5T_IEEE_F32LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(T,
          H5Dwrite(d1, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0 &&
              H5Dwrite(d2, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0);
    H5Dclose(d1);
    H5Dclose(d2);
    H5Pclose(dcpl);
    H5Sclose(sp);
    H5Fclose(f);
    axb_error err = AXB_ERROR_INIT;
    int64_t off = -1, size = -1;
    CHECK_MSG(T, axb_h5_contiguous_extent(path, "/contig", &off, &size, &err) == AXB_OK, "%s", err.msg);
    CHECK(T, size == 4000);
    float w[1000] = {0};
    FILE *fp = fopen(path, "rb");
    CHECK(T, fp && off > 0 && fseek(fp, off, SEEK_SET) == 0 && fread(w, 4, 1000, fp) == 1000);
    if (fp) fclose(fp);
    CHECK(T, !memcmp(v, w, sizeof v));
    CHECK(T, axb_h5_contiguous_extent(path, "/chunked", &off, &size, &err) == AXB_ERR_UNSUPPORTED);
    CHECK_CONTAINS(T, err.msg, "not one contiguous allocated block");
    CHECK(T, axb_h5_contiguous_extent(path, "/nothing", &off, &size, &err) == AXB_ERR_FORMAT);
    CHECK_CONTAINS(T, err.msg, "no dataset '/nothing'");
    snprintf(path, sizeof path, "%s/raw1.bin", dir); /* not HDF5 */
    CHECK(T, axb_h5_contiguous_extent(path, "/contig", &off, &size, &err) == AXB_ERR_FORMAT);
    CHECK_CONTAINS(T, err.msg, "raw1.bin");
}

int main(void)
{
    check_ctx T = {0, 0, 0};
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    const char *base = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/axb-rawfile-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "no scratch directory\n");
        return 1;
    }
    run(&T, dir, true);
    run(&T, dir, false);
    extent(&T, dir);
    axb_error err = AXB_ERROR_INIT;
    axb_block_writer *w = NULL;
    CHECK(&T, axb_block_writer_open("/nonexistent/x", CAP, true, &w, &err) == AXB_ERR_IO && w == NULL);
    CHECK_CONTAINS(&T, err.msg, "/nonexistent/x: cannot open for writing");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_summary(&T);
}
