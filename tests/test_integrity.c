/* Damage in a database is an error, never silent garbage (issue #19, defect 8): a small mkdb
 * database and its contiguous and deflated merged copies are damaged on purpose (flipped bytes in
 * the data, NaN written through HDF5 so that HDF5's own checksum stays right) and extraction,
 * element reads and `repack --verify` must fail with one line naming the file, the variable and
 * the element (or chunk, or point), status 2. The stored checksums are compared with a CRC-32
 * computed here, independently, and files without checksums (Instaseis' merged copies) must still
 * read. argv[1] (optional): the shared data folder. */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "axibulk/cli.h"
#include "axibulk/db.h"
#include "check.h"
#include "support/ref_crc32.h"
#include "test_util.h"

static char dir[512];

/* Rank 0 copies database folder dir/FROM to dir/TO; every rank waits for it. */
static void copy_db(const char *from, const char *to)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        char cmd[2200];
        snprintf(cmd, sizeof cmd, "cp -r '%s/%s' '%s/%s'", dir, from, dir, to);
        if (system(cmd) != 0) fprintf(stderr, "failed: %s\n", cmd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* XORs 64 bytes at byte @p at of every stored chunk of variable @p var (or of the contiguous
 * block when @p stride > 0: at + k * stride for every k while inside it). Rank 0. */
static int flip(const char *file, const char *var, hsize_t at, hsize_t stride)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT), d = H5Dopen2(f, var, H5P_DEFAULT);
    if (f < 0 || d < 0) return -1;
    hsize_t offs[4096], n = 0;
    if (stride) {
        const haddr_t base = H5Dget_offset(d);
        const hsize_t size = H5Dget_storage_size(d);
        for (hsize_t p = at; p + 64 <= size && n < 4096; p += stride) offs[n++] = base + p;
    } else {
        hid_t sp = H5Dget_space(d);
        H5Dget_num_chunks(d, sp, &n);
        for (hsize_t k = 0; k < n && k < 4096; k++) {
            haddr_t addr;
            hsize_t size;
            unsigned mask;
            H5Dget_chunk_info(d, sp, k, NULL, &mask, &addr, &size);
            offs[k] = addr + at;
        }
        H5Sclose(sp);
    }
    H5Dclose(d);
    H5Fclose(f);
    FILE *fp = fopen(file, "r+b");
    if (!fp) return -1;
    for (hsize_t k = 0; k < n; k++) {
        unsigned char b[64];
        if (fseek(fp, (long)offs[k], SEEK_SET) || fread(b, 1, 64, fp) != 64) break;
        for (int i = 0; i < 64; i++) b[i] ^= 0x5a;
        if (fseek(fp, (long)offs[k], SEEK_SET) || fwrite(b, 1, 64, fp) != 64) break;
    }
    fclose(fp);
    return (int)n;
}

/* Writes @p value at index @p at of dataset @p var through HDF5 (filters and their checksums
 * updated as for any write), for every element when @p every_elem. Optionally removes
 * /MergedChecksums (a file without checksums). Rank 0. */
static int poke(const char *file, const char *var, int rank, const hsize_t *at, bool every_elem, float value,
                bool drop_crc)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT), d = H5Dopen2(f, var, H5P_DEFAULT);
    if (f < 0 || d < 0) return -1;
    hid_t sp = H5Dget_space(d);
    hsize_t dims[8], one[8], pos[8];
    H5Sget_simple_extent_dims(sp, dims, NULL);
    for (int k = 0; k < rank; k++) one[k] = 1;
    hid_t ms = H5Screate_simple(rank, one, NULL);
    int rc = 0;
    for (hsize_t e = 0; e < (every_elem ? dims[0] : 1); e++) {
        memcpy(pos, at, (size_t)rank * sizeof *pos);
        if (every_elem) pos[0] = e;
        H5Sselect_hyperslab(sp, H5S_SELECT_SET, pos, NULL, one, NULL);
        if (H5Dwrite(d, H5T_NATIVE_FLOAT, ms, sp, H5P_DEFAULT, &value) < 0) rc = -1;
    }
    H5Sclose(ms);
    H5Sclose(sp);
    H5Dclose(d);
    if (drop_crc && H5Ldelete(f, "MergedChecksums", H5P_DEFAULT) < 0) rc = -1;
    H5Fclose(f);
    return rc;
}

/* The stored checksums against the reference over the data as HDF5 reads them. Rank 0. */
static void check_stored_crcs(check_ctx *T, const char *file)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = f >= 0 ? H5Dopen2(f, "MergedSnapshots", H5P_DEFAULT) : -1;
    hid_t c = f >= 0 ? H5Dopen2(f, "MergedChecksums", H5P_DEFAULT) : -1;
    CHECK_MSG(T, d >= 0 && c >= 0, "%s: MergedSnapshots and MergedChecksums", file);
    if (d < 0 || c < 0) return;
    hsize_t dims[5];
    hid_t sp = H5Dget_space(d);
    H5Sget_simple_extent_dims(sp, dims, NULL);
    H5Sclose(sp);
    const size_t block = (size_t)(dims[1] * dims[2] * dims[3] * dims[4]);
    float *x = malloc((size_t)dims[0] * block * sizeof *x);
    uint32_t *crc = malloc((size_t)dims[0] * sizeof *crc);
    H5Dread(d, H5T_IEEE_F32LE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x);
    H5Dread(c, H5T_STD_U32LE, H5S_ALL, H5S_ALL, H5P_DEFAULT, crc);
    int wrong = 0;
    for (hsize_t e = 0; e < dims[0]; e++)
        wrong += axb_test_crc32((const unsigned char *)(x + e * block), block * sizeof(float)) != crc[e];
    CHECK_MSG(T, wrong == 0, "%s: %d of %llu stored checksums differ from CRC-32 of the elements", file, wrong,
              (unsigned long long)dims[0]);
    free(x);
    free(crc);
    H5Dclose(c);
    H5Dclose(d);
    H5Fclose(f);
}

/* One line on stderr naming all of @p needles, status 2. */
static void expect_error(check_ctx *T, const char *what, const char *line, const char *const *needles)
{
    char out[4096], errs[4096];
    const int rc = test_cli_line(line, out, sizeof out, errs, sizeof errs);
    if (T->rank != 0) return;
    CHECK_MSG(T, rc == 2, "%s: exit %d, expected 2 (%s)", what, rc, errs);
    const char *nl = strchr(errs, '\n');
    CHECK_MSG(T, nl && nl[1] == '\0', "%s: not one line: '%s'", what, errs);
    for (int k = 0; needles[k]; k++)
        CHECK_MSG(T, strstr(errs, needles[k]), "%s: '%s' not in '%s'", what, needles[k], errs);
}

static void write_pairs(const char *path)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        FILE *f = fopen(path, "w");
        /* sources all over the sphere and depths: every element is read by some row */
        for (int k = 0; f && k < 500; k++)
            fprintf(f, "mt %.3f %.3f %.1f 1e19 -5e18 -5e18 2e18 0 1e18 10 20\n", -89 + 178.0 * k / 499.0,
                    fmod(k * 137.5, 360.0) - 180, fmod(k * 7919.0, 370e3));
        if (f) fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Extraction and element reads of intact files work; `info` says what protects them. */
static void check_intact(check_ctx *T, const char *pairs)
{
    char line[2048], out[4096], errs[4096];
    const char *dbs[3][2] = {
        {"db", "fletcher32 on every chunk"}, {"m", "CRC-32 of every element"}, {"md", "CRC-32 of every element"}};
    for (int k = 0; k < 3; k++) {
        snprintf(line, sizeof line, "extract -q --db %s/%s --pairs %s -o %s/%s.h5", dir, dbs[k][0], pairs, dir,
                 dbs[k][0]);
        const int rc = test_cli_line(line, out, sizeof out, errs, sizeof errs);
        CHECK_MSG(T, rc == 0, "extract from intact %s: %s", dbs[k][0], errs);
        snprintf(line, sizeof line, "info %s/%s", dir, dbs[k][0]);
        CHECK(T, test_cli_line(line, out, sizeof out, errs, sizeof errs) == 0);
        if (T->rank == 0) CHECK_CONTAINS(T, out, dbs[k][1]);
    }
    if (T->rank != 0) return;
    char file[1024];
    snprintf(file, sizeof file, "%s/m/merged_output.nc4", dir);
    check_stored_crcs(T, file);
    snprintf(file, sizeof file, "%s/md/merged_output.nc4", dir);
    check_stored_crcs(T, file);
}

/* Flipped bytes: extraction, element reads and repack --verify refuse. */
static void check_flipped(check_ctx *T, const char *pairs)
{
    char line[2048], a[1024], b[1024];
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* the mkdb database: 64 bytes of every chunk of PZ's disp_z */
    copy_db("db", "dbflip");
    snprintf(a, sizeof a, "%s/dbflip/PZ/Data/ordered_output.nc4", dir);
    if (rank == 0) CHECK(T, flip(a, "/Snapshots/disp_z", 200, 0) > 0);
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(line, sizeof line, "extract -q --db %s/dbflip --pairs %s -o %s/x1.h5", dir, pairs, dir);
    expect_error(T, "flipped mkdb", line,
                 (const char *const[]){"PZ/Data/ordered_output.nc4", "'disp_z'", "chunk ", "checksum", NULL});
    /* repack --verify of that source (before: it passed, copying the damage) */
    snprintf(line, sizeof line, "repack -q %s/dbflip %s/mflip --verify", dir, dir);
    expect_error(T, "repack --verify of a flipped source", line,
                 (const char *const[]){"PZ/Data/ordered_output.nc4", "'disp_z'", "checksum", NULL});

    /* the contiguous merged file: 64 bytes inside every element's block */
    copy_db("m", "mflip2");
    snprintf(b, sizeof b, "%s/mflip2/merged_output.nc4", dir);
    axb_db *db = NULL;
    axb_error err = AXB_ERROR_INIT;
    snprintf(line, sizeof line, "%s/m", dir);
    CHECK(T, axb_db_open(MPI_COMM_WORLD, line, &db, &err) == AXB_OK);
    const int64_t block = db ? axb_db_block_floats(db) * (int64_t)sizeof(float) : 0;
    axb_db_close(&db);
    if (rank == 0) CHECK(T, flip(b, "/MergedSnapshots", 1000, (hsize_t)block) > 0);
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(line, sizeof line, "extract -q --db %s/mflip2 --pairs %s -o %s/x2.h5", dir, pairs, dir);
    expect_error(T, "flipped merged", line,
                 (const char *const[]){"mflip2/merged_output.nc4", "'MergedSnapshots'", "element ", "checksum", NULL});
    /* the element named is the one read */
    snprintf(line, sizeof line, "%s/mflip2", dir);
    CHECK(T, axb_db_open(MPI_COMM_WORLD, line, &db, &err) == AXB_OK);
    if (db) {
        float *buf = malloc((size_t)block);
        const int64_t e = 7;
        CHECK(T, axb_db_read_elements(db, 1, &e, AXB_IO_INDEPENDENT, buf, &err) == AXB_ERR_FORMAT);
        CHECK_CONTAINS(T, err.msg, "'MergedSnapshots': element 7: checksum");
        free(buf);
        axb_db_close(&db);
    }
}

/* NaN and infinity in the data: refused where no checksum catches them (written through HDF5,
 * which keeps fletcher32 right; a merged file without checksums). */
static void check_nonfinite(check_ctx *T, const char *pairs)
{
    char line[2048], a[1024];
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    copy_db("db", "dbnan");
    snprintf(a, sizeof a, "%s/dbnan/PZ/Data/ordered_output.nc4", dir);
    const hsize_t tp[2] = {10, 0}; /* sample 10 of every point */
    if (rank == 0) {
        hid_t f = H5Fopen(a, H5F_ACC_RDWR, H5P_DEFAULT), d = H5Dopen2(f, "/Snapshots/disp_z", H5P_DEFAULT);
        hid_t sp = H5Dget_space(d);
        hsize_t dims[2];
        H5Sget_simple_extent_dims(sp, dims, NULL);
        float *row = malloc(dims[1] * sizeof *row);
        for (hsize_t k = 0; k < dims[1]; k++) row[k] = NAN;
        const hsize_t cnt[2] = {1, dims[1]};
        hid_t ms = H5Screate_simple(2, cnt, NULL);
        H5Sselect_hyperslab(sp, H5S_SELECT_SET, tp, NULL, cnt, NULL);
        CHECK(T, H5Dwrite(d, H5T_NATIVE_FLOAT, ms, sp, H5P_DEFAULT, row) >= 0);
        free(row);
        H5Sclose(ms);
        H5Sclose(sp);
        H5Dclose(d);
        H5Fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(line, sizeof line, "extract -q --db %s/dbnan --pairs %s -o %s/x3.h5", dir, pairs, dir);
    expect_error(T, "NaN in mkdb", line,
                 (const char *const[]){"PZ/Data/ordered_output.nc4", "'Snapshots/disp_z'", "sample 10 is nan", NULL});

    /* merged: with checksums the CRC catches it; without, the finiteness check */
    const hsize_t at[5] = {0, 1, 2, 3, 5};
    copy_db("m", "mnan");
    snprintf(a, sizeof a, "%s/mnan/merged_output.nc4", dir);
    if (rank == 0) CHECK(T, poke(a, "/MergedSnapshots", 5, at, true, NAN, false) == 0);
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(line, sizeof line, "extract -q --db %s/mnan --pairs %s -o %s/x4.h5", dir, pairs, dir);
    expect_error(T, "NaN in merged", line,
                 (const char *const[]){"mnan/merged_output.nc4", "'MergedSnapshots'", "checksum", NULL});
    copy_db("md", "minf");
    snprintf(a, sizeof a, "%s/minf/merged_output.nc4", dir);
    if (rank == 0) CHECK(T, poke(a, "/MergedSnapshots", 5, at, true, -INFINITY, true) == 0);
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(line, sizeof line, "extract -q --db %s/minf --pairs %s -o %s/x5.h5", dir, pairs, dir);
    expect_error(T, "inf in merged without checksums", line,
                 (const char *const[]){"minf/merged_output.nc4", "'MergedSnapshots'", "element ",
                                       "variable 1, GLL point (xi 2, eta 3), sample 5 is -inf", NULL});
    /* the deflated merged file, read raw and decoded by axibulk: 64 bytes inside every element's
     * stored chunk */
    copy_db("md", "mdflip");
    snprintf(a, sizeof a, "%s/mdflip/merged_output.nc4", dir);
    if (rank == 0) CHECK(T, flip(a, "/MergedSnapshots", 100, 0) > 0);
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(line, sizeof line, "extract -q --db %s/mdflip --pairs %s -o %s/x6.h5", dir, pairs, dir);
    expect_error(T, "flipped deflated merged", line,
                 (const char *const[]){"mdflip/merged_output.nc4", "'MergedSnapshots'", "element ", "damaged", NULL});
    char out[4096], errs[4096];
    snprintf(line, sizeof line, "info %s/minf", dir);
    CHECK(T, test_cli_line(line, out, sizeof out, errs, sizeof errs) == 0);
    if (rank == 0) CHECK_CONTAINS(T, out, "checksums         none: damage to the data cannot be detected");
}

/* Instaseis' merged files have no checksums: they read as before, and info says so. */
static void check_unchecked(check_ctx *T, const char *data)
{
    char path[1024], out[4096], errs[4096], line[1200];
    struct stat sb;
    snprintf(path, sizeof path, "%s/instaseis-merged/100s_db_bwd_displ_only", data);
    if (stat(path, &sb) != 0) {
        if (T->rank == 0) printf("shared data not found at %s: Instaseis' merged files not checked\n", data);
        return;
    }
    axb_db *db = NULL;
    axb_error err = AXB_ERROR_INIT;
    CHECK_MSG(T, axb_db_open(MPI_COMM_WORLD, path, &db, &err) == AXB_OK, "%s", err.msg);
    if (!db) return;
    const axb_db_info *i = axb_db_get_info(db);
    CHECK(T, i->checksums == AXB_CHECKSUMS_NONE);
    const int64_t n = i->nelem, bf = axb_db_block_floats(db);
    int64_t *ids = malloc((size_t)n * sizeof *ids);
    float *buf = malloc((size_t)(n * bf) * sizeof *buf);
    for (int64_t e = 0; e < n; e++) ids[e] = e;
    CHECK_MSG(T, axb_db_read_elements(db, n, ids, AXB_IO_COLLECTIVE, buf, &err) == AXB_OK, "%s", err.msg);
    free(ids);
    free(buf);
    axb_db_close(&db);
    snprintf(line, sizeof line, "info --json %s", path);
    CHECK(T, test_cli_line(line, out, sizeof out, errs, sizeof errs) == 0);
    if (T->rank == 0) CHECK_CONTAINS(T, out, "\"checksums\": \"none\"");
}

int main(int argc, char **argv)
{
    int level;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &level);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    check_ctx T = {0, 0, 0};
    MPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
    const char *data = argc > 1 ? argv[1] : "../shared/data";
    if (test_scratch_dir(MPI_COMM_WORLD, "integrity", dir, sizeof dir)) MPI_Abort(MPI_COMM_WORLD, 1);
    char line[2048], out[4096], errs[4096], pairs[700];
    snprintf(line, sizeof line, "mkdb -q -o %s/db --period 100 --length 1800 --rmin-km 6000 --points-per-wavelength 6",
             dir);
    CHECK_MSG(&T, test_cli_line(line, out, sizeof out, errs, sizeof errs) == 0, "mkdb: %s", errs);
    snprintf(line, sizeof line, "repack -q %s/db %s/m --verify", dir, dir);
    CHECK_MSG(&T, test_cli_line(line, out, sizeof out, errs, sizeof errs) == 0, "repack: %s", errs);
    if (T.rank == 0) CHECK_MSG(&T, strstr(out, "; verified\n"), "a checksummed source verified plainly: %s", out);
    snprintf(line, sizeof line, "repack -q %s/db %s/md --deflate 1 --verify", dir, dir);
    CHECK_MSG(&T, test_cli_line(line, out, sizeof out, errs, sizeof errs) == 0, "repack --deflate: %s", errs);
    snprintf(pairs, sizeof pairs, "%s/pairs.txt", dir);
    write_pairs(pairs);
    check_intact(&T, pairs);
    check_flipped(&T, pairs);
    check_nonfinite(&T, pairs);
    check_unchecked(&T, data);
    if (!T.failed) test_remove_dir(MPI_COMM_WORLD, dir);
    return test_finish_mpi(&T);
}
