/* axibulk repack on the shared databases, on 1 and 2 ranks:
 *  - the output verifies against its source element by element (axb_repack_verify) and equals,
 *    bit for bit after matching elements by their GLL numbering, Instaseis' own merged copies;
 *  - seismograms from the repacked databases equal those from the originals exactly;
 *  - the files are valid netCDF-4 (ncdump -h and -hs succeed);
 *  - the write side's counters: every element compressed once (direct --deflate) into the stored
 *    bytes HDF5 reports, written, synced; no compression counted otherwise;
 *  - strain-only input, merged input, an existing output, a resume without a run and a resume of
 *    another job's record are refused.
 * Skipped (77) without the shared data. */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "axibulk/extract.h"
#include "axibulk/repack.h"
#include "check.h"
#include "core/partial.h"
#include "test_util.h"

static char DATA[600];

/* Element-for-element equality with another merged database (elements matched by sem_mesh). */
static void same_as(check_ctx *T, const char *ours, const char *theirs)
{
    axb_db *a = NULL, *b = NULL;
    axb_error err = AXB_ERROR_INIT;
    if (axb_db_open(MPI_COMM_SELF, ours, &a, &err) || axb_db_open(MPI_COMM_SELF, theirs, &b, &err)) {
        CHECK_MSG(T, 0, "%s", err.msg);
        axb_db_close(&a);
        return;
    }
    const axb_mesh *ma = axb_db_get_mesh(a), *mb = axb_db_get_mesh(b);
    const int64_t n = ma->nelem, bf = axb_db_block_floats(a);
    CHECK(T, n == mb->nelem && bf == axb_db_block_floats(b));
    int64_t *ia = malloc((size_t)n * sizeof *ia), *ib = malloc((size_t)n * sizeof *ib);
    long unmatched = 0, moved = 0;
    for (int64_t e = 0; e < n; e++) {
        ia[e] = e;
        ib[e] = -1;
        for (int64_t f = 0; f < n; f++)
            if (!memcmp(ma->sem + e * 25, mb->sem + f * 25, 25 * sizeof(int32_t))) ib[e] = f;
        unmatched += ib[e] < 0;
        moved += ib[e] != e;
    }
    CHECK(T, unmatched == 0);
    if (!unmatched) {
        float *x = malloc((size_t)(n * bf) * sizeof *x), *y = malloc((size_t)(n * bf) * sizeof *y);
        CHECK(T,
              !axb_db_read_elements(a, n, ia, AXB_IO_INDEPENDENT, x, &err) &&
                  !axb_db_read_elements(b, n, ib, AXB_IO_INDEPENDENT, y, &err));
        CHECK_MSG(T, !memcmp(x, y, (size_t)(n * bf) * sizeof *x), "%s differs from %s", ours, theirs);
        free(x);
        free(y);
    }
    if (T->rank == 0)
        printf("%s: equal to Instaseis' merged copy (%ld of %lld elements in another order)\n", ours, moved,
               (long long)n);
    free(ia);
    free(ib);
    axb_db_close(&a);
    axb_db_close(&b);
}

/* Seismograms of a few pairs from two databases must be identical. */
static void same_seismograms(check_ctx *T, const char *p1, const char *p2, bool fwd)
{
    axb_source src[3] = {{.type = AXB_SRC_MOMENT,
                          .lat = 89.91,
                          .lon = 0,
                          .depth = fwd ? NAN : 12000,
                          .m = {4.71e17, 3.81e15, -4.74e17, 3.99e16, -8.05e16, -1.23e17},
                          .time_shift = NAN},
                         {.type = AXB_SRC_MOMENT,
                          .lat = -20,
                          .lon = 30,
                          .depth = fwd ? NAN : 200e3,
                          .m = {1e18, -2e18, 1e18, 3e17, 0, 5e17},
                          .time_shift = NAN},
                         {.type = fwd ? AXB_SRC_MOMENT : AXB_SRC_FORCE,
                          .lat = 5,
                          .lon = 5,
                          .depth = fwd ? NAN : 5e3,
                          .f = {1e10, 2e10, 3e10},
                          .m = {1e18, 0, 0, 0, 0, 0},
                          .time_shift = NAN}};
    axb_receiver rec[3] = {{.lat = 42.639, .lon = 74.494, .depth = NAN},
                           {.lat = 10, .lon = -150, .depth = NAN},
                           {.lat = 5.5, .lon = 5.2, .depth = NAN}};
    axb_pair_ref pr[3] = {{&src[0], &rec[0]}, {&src[1], &rec[1]}, {&src[2], &rec[2]}};
    double out[2][3 * 5 * 80];
    const char *paths[2] = {p1, p2};
    for (int k = 0; k < 2; k++) {
        axb_db *db = NULL;
        axb_extract_plan *p = NULL;
        axb_error err = AXB_ERROR_INIT;
        axb_extract_opts o = AXB_EXTRACT_OPTS_DEFAULT;
        snprintf(o.components, sizeof o.components, "ZNERT");
        bool ok = !axb_db_open(MPI_COMM_SELF, paths[k], &db, &err) && !axb_extract_plan_create(db, &o, &p, &err) &&
            !axb_extract_pairs(p, 3, pr, out[k], &err);
        CHECK_MSG(T, ok, "%s: %s", paths[k], err.msg);
        axb_extract_plan_destroy(&p);
        axb_db_close(&db);
    }
    CHECK_MSG(T, !memcmp(out[0], out[1], 3 * 5 * 66 * sizeof(double)), "seismograms differ: %s vs %s", p1, p2);
}

/* 1 MB slabs: many per rank, so direct streams carry partial pages across many puts */
static axb_status repack_mode(const char *src, const char *dst, int deflate, bool force, bool resume,
                              axb_repack_write mode, axb_repack_result *r, axb_error *err)
{
    axb_repack_opts o = {.src = src,
                         .dst = dst,
                         .deflate = deflate,
                         .memory_bytes = 1 << 20,
                         .force = force,
                         .resume = resume,
                         .verify = true,
                         .write_mode = mode};
    return axb_repack_run(MPI_COMM_WORLD, &o, NULL, r, err);
}

/* Bytes of the element data as stored in the merged file at @p dst (chunks: their compressed
 * sizes), from HDF5; -1 when it cannot be read. */
static int64_t stored_data_bytes(const char *dst)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/merged_output.nc4", dst);
    int64_t bytes = -1;
    const hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    const hid_t d = f >= 0 ? H5Dopen2(f, "/MergedSnapshots", H5P_DEFAULT) : -1;
    if (d >= 0) bytes = (int64_t)H5Dget_storage_size(d);
    if (d >= 0) H5Dclose(d);
    if (f >= 0) H5Fclose(f);
    return bytes;
}

/* Bytes of the element data of the database at @p path uncompressed; -1 when it cannot be opened. */
static int64_t raw_data_bytes(const char *path)
{
    axb_db *db = NULL;
    axb_error err = AXB_ERROR_INIT;
    if (axb_db_open(MPI_COMM_SELF, path, &db, &err)) return -1;
    const int64_t bytes = axb_db_get_info(db)->nelem * axb_db_block_floats(db) * (int64_t)sizeof(float);
    axb_db_close(&db);
    return bytes;
}

/* The write side's counters of a run that wrote every element of @p dst (the same on every rank:
 * summed over ranks). Direct --deflate: every element compressed once, the stored bytes those
 * HDF5 reports, all written by rank 0, exchanged with more than one rank; otherwise no
 * compression counted and the raw data written. No timing beyond "was measured". */
static void check_write_stats(check_ctx *T, const char *dst, const axb_repack_result *r, int deflate)
{
    const axb_write_stats *w = &r->write_io;
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int64_t stored = stored_data_bytes(dst);
    CHECK_MSG(T, stored > 0, "%s: storage size of the data", dst);
    CHECK_MSG(T, w->write_s > 0 && w->sync_s > 0, "%s: write %g s, sync %g s", dst, w->write_s, w->sync_s);
    if (deflate >= 0 && r->write_mode == AXB_REPACK_WRITE_DIRECT) {
        CHECK_MSG(T,
                  w->compress_s > 0 && w->chunks_encoded == r->elements_written && w->stored_bytes == stored &&
                      w->bytes_written == stored,
                  "%s: compress %g s, %lld chunks of %lld elements, %lld stored and %lld written bytes of %lld", dst,
                  w->compress_s, (long long)w->chunks_encoded, (long long)r->elements_written,
                  (long long)w->stored_bytes, (long long)w->bytes_written, (long long)stored);
        CHECK_MSG(T, (w->exchange_s > 0) == (size > 1), "%s: exchange %g s on %d ranks", dst, w->exchange_s, size);
    } else {
        /* contiguous: the block is the raw data; collective deflate: HDF5 compresses inside the
         * write, which is handed the raw data too */
        const int64_t raw = raw_data_bytes(dst);
        CHECK_MSG(T, raw > 0 && (deflate >= 0 || raw == stored), "%s: %lld raw, %lld stored bytes", dst, (long long)raw,
                  (long long)stored);
        CHECK_MSG(T,
                  w->compress_s == 0 && w->chunks_encoded == 0 && w->stored_bytes == 0 && w->exchange_s == 0 &&
                      w->bytes_written == raw,
                  "%s: compress %g s, %lld chunks, exchange %g s, %lld bytes written of %lld", dst, w->compress_s,
                  (long long)w->chunks_encoded, w->exchange_s, (long long)w->bytes_written, (long long)raw);
    }
}

static axb_status repack(const char *src, const char *dst, int deflate, bool force, bool resume, axb_error *err)
{
    axb_repack_result r;
    return repack_mode(src, dst, deflate, force, resume, AXB_REPACK_WRITE_AUTO, &r, err);
}

int main(int argc, char **argv)
{
    int mpi_thread_level; /* FUNNELED: only this thread calls MPI; repack has a writer thread */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &mpi_thread_level);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    check_ctx T = {0, 0, 0};
    MPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
    snprintf(DATA, sizeof DATA, "%s", argc > 1 ? argv[1] : "../shared/data");
    char src[1024], dst[1024], ref[1024], dir[512], cmd[4200];
    struct stat sb;
    snprintf(src, sizeof src, "%s/axisem-prem-100s", DATA);
    if (stat(src, &sb) != 0) {
        if (T.rank == 0) printf("shared data not found at %s: skipped\n", DATA);
        MPI_Finalize();
        return CHECK_SKIP;
    }
    if (test_scratch_dir(MPI_COMM_WORLD, "repack", dir, sizeof dir)) MPI_Abort(MPI_COMM_WORLD, 1);
    axb_error err = AXB_ERROR_INIT;
    const struct {
        const char *db, *instaseis;
        int deflate;
        bool fwd;
    } cases[] = {
        {"100s_db_bwd_displ_only", "100s_db_bwd_displ_only", -1, false},
        {"100s_db_fwd", "100s_db_fwd", 4, true},
    };
    for (int c = 0; c < 2; c++) {
        snprintf(src, sizeof src, "%s/axisem-prem-100s/%s", DATA, cases[c].db);
        snprintf(dst, sizeof dst, "%s/%s", dir, cases[c].db);
        snprintf(ref, sizeof ref, "%s/instaseis-merged/%s", DATA, cases[c].instaseis);
        axb_repack_result r;
        axb_status st = repack_mode(src, dst, cases[c].deflate, false, false, AXB_REPACK_WRITE_AUTO, &r,
                                    &err); /* verify included */
        CHECK_MSG(&T, st == AXB_OK, "%s: %s", cases[c].db, err.msg);
        if (st) continue;
        /* auto: direct (block streams for contiguous output, chunks compressed by the ranks' threads
         * and stored by rank 0 for deflated) */
        CHECK(&T, r.write_mode == AXB_REPACK_WRITE_DIRECT);
        check_write_stats(&T, dst, &r, cases[c].deflate);
        if (T.rank == 0) {
            same_as(&T, dst, ref);
            same_seismograms(&T, src, dst, cases[c].fwd);
            snprintf(cmd, sizeof cmd,
                     "ncdump -h '%s/merged_output.nc4' > /dev/null && ncdump -hs '%s/merged_output.nc4' > /dev/null",
                     dst, dst);
            CHECK_MSG(&T, system(cmd) == 0, "ncdump failed on %s", dst);
            axb_db *db = NULL;
            CHECK(&T, axb_db_open(MPI_COMM_SELF, dst, &db, &err) == AXB_OK);
            if (db) {
                const axb_db_info *i = axb_db_get_info(db);
                CHECK(&T,
                      i->layout == AXB_LAYOUT_MERGED && i->chunked == (cases[c].deflate >= 0) &&
                          i->deflate == cases[c].deflate);
                axb_db_close(&db);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
        /* a second run needs --force; with it, the result verifies again */
        CHECK(&T, repack(src, dst, cases[c].deflate, false, false, &err) == AXB_ERR_IO || T.rank != 0);
        CHECK_CONTAINS(&T, err.msg, "exists (use --force");
        CHECK_MSG(&T, repack(src, dst, -1, true, false, &err) == AXB_OK, "%s", err.msg);
        /* written collectively (through HDF5, which also compresses; above: direct) the output has the
         * same contents */
        CHECK_MSG(&T,
                  repack_mode(src, dst, cases[c].deflate, true, false, AXB_REPACK_WRITE_COLLECTIVE, &r, &err) == AXB_OK,
                  "%s", err.msg);
        CHECK(&T, r.write_mode == AXB_REPACK_WRITE_COLLECTIVE);
        check_write_stats(&T, dst, &r, cases[c].deflate);
        if (T.rank == 0) same_as(&T, dst, ref);
    }
    /* vertical-only: a PZ-only copy of the database (a symlink) against Instaseis' vertical-only file */
    snprintf(src, sizeof src, "%s/pz_only", dir);
    if (T.rank == 0) {
        snprintf(cmd, sizeof cmd, "mkdir -p '%s' && ln -s '%s/axisem-prem-100s/100s_db_bwd_displ_only/PZ' '%s/PZ'", src,
                 DATA, src);
        CHECK(&T, system(cmd) == 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    snprintf(dst, sizeof dst, "%s/pz_merged", dir);
    CHECK_MSG(&T, repack(src, dst, 2, false, false, &err) == AXB_OK, "%s", err.msg);
    snprintf(ref, sizeof ref, "%s/instaseis-merged/100s_db_bwd_vertical_only", DATA);
    if (T.rank == 0) same_as(&T, dst, ref);

    /* refusals */
    snprintf(src, sizeof src, "%s/axisem-prem-100s/100s_db_bwd_strain_only", DATA);
    snprintf(dst, sizeof dst, "%s/strain", dir);
    CHECK(&T, repack(src, dst, -1, false, false, &err) != AXB_OK);
    CHECK_CONTAINS(&T, err.msg, "strain_only databases cannot be merged");
    snprintf(src, sizeof src, "%s/instaseis-merged/100s_db_fwd", DATA);
    CHECK(&T, repack(src, dst, -1, false, false, &err) != AXB_OK);
    CHECK_CONTAINS(&T, err.msg, "already in the merged layout");
    snprintf(src, sizeof src, "%s/axisem-prem-100s/100s_db_fwd", DATA);
    CHECK(&T, repack(src, dst, -1, false, true, &err) != AXB_OK);
    CHECK_CONTAINS(&T, err.msg, "cannot resume");
    /* a record of another job (another element count) that lists finished work is refused, not
     * trusted (one that lists nothing starts again: repack_resume) */
    snprintf(dst, sizeof dst, "%s/other", dir);
    if (T.rank == 0) {
        char final[1100];
        axb_partial names;
        snprintf(final, sizeof final, "%s/merged_output.nc4", dst);
        FILE *f = NULL;
        CHECK(&T,
              mkdir(dst, 0755) == 0 && !axb_partial_names(final, &names, &err) &&
                  (f = fopen(names.partial, "wb")) != NULL &&
                  !axb_partial_record_start(&names, "repack", "elements=1 storage=contiguous", &err) &&
                  !axb_partial_record_add(&names, 1, (const int64_t[]){0}, &err));
        if (f) fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(&T, repack(src, dst, -1, false, true, &err) != AXB_OK);
    CHECK_CONTAINS(&T, err.msg, "written for another job");

    test_remove_dir(MPI_COMM_WORLD, dir);
    return test_finish_mpi(&T);
}
