/* The database layer against synthetic databases whose every stored value is known
 * (tests/support/minidb.c): each layout, orientation and read mode must deliver exactly the values
 * written, in the documented block order, on any number of ranks. */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>

#include "axibulk/db.h"
#include "check.h"
#include "support/minidb.h"
#include "test_util.h"

/* Canonical variable index (s, phi, z = 0, 1, 2) of block variable c of a run. */
static int canon(int ncomp, int c)
{
    return ncomp == 2 && c == 1 ? 2 : c;
}

static void check_elements(check_ctx *T, axb_db *db, axb_io_mode mode, int rank, int size)
{
    const axb_db_info *in = axb_db_get_info(db);
    const axb_mesh *m = axb_db_get_mesh(db);
    /* Each rank asks for its share in reverse order, plus one repeat: the result must follow the
     * request order and the repeat must not cost a second read. */
    int64_t req[MINIDB_NELEM + 1];
    int n = 0;
    for (int e = MINIDB_NELEM - 1; e >= 0; e--)
        if (e % size == rank) req[n++] = e;
    if (n) req[n] = req[0], n++;
    int64_t bf = axb_db_block_floats(db);
    float *out = malloc((size_t)(n ? n : 1) * (size_t)bf * sizeof *out);
    axb_io_stats before, after;
    axb_db_get_io_stats(db, &before);
    axb_error err = AXB_ERROR_INIT;
    axb_status st = axb_db_read_elements(db, n, req, mode, out, &err);
    CHECK_MSG(T, st == AXB_OK, "%s", err.msg);
    axb_db_get_io_stats(db, &after);
    int64_t calls = after.read_calls - before.read_calls;
    /* merged: one H5Dread, or (deflated, read raw) one pread per run of chunks adjacent in the
     * file, every distinct element decoded once; original: one per variable, or (deflated files,
     * decoded by the chunk reader) one pread per run of adjacent chunks not cached from an earlier
     * read: at most one per chunk touched */
    const int64_t nuniq = n ? n - 1 : 0, decoded = after.chunks_decoded - before.chunks_decoded;
    if (in->layout == AXB_LAYOUT_MERGED && in->deflate >= 0) {
        CHECK_MSG(T, n > 0 ? calls >= 1 && calls <= nuniq : calls == 0, "%lld read calls", (long long)calls);
        CHECK_MSG(T, decoded == nuniq, "%lld elements decoded for %lld distinct ones", (long long)decoded,
                  (long long)nuniq);
        CHECK_MSG(T, after.bytes_read - before.bytes_read == after.stored_bytes - before.stored_bytes,
                  "%lld bytes read, %lld decoded", (long long)(after.bytes_read - before.bytes_read),
                  (long long)(after.stored_bytes - before.stored_bytes));
    } else if (in->layout == AXB_LAYOUT_MERGED || in->deflate < 0) {
        CHECK_MSG(T, calls == (in->layout == AXB_LAYOUT_MERGED ? 1 : in->nvars), "%lld read calls", (long long)calls);
    } else {
        CHECK_MSG(T, n > 0 ? calls <= (int64_t)n * in->nvars * 25 : calls == 0, "%lld read calls", (long long)calls);
    }
    int64_t uniq_bytes = nuniq * bf * 4;
    if (in->layout == AXB_LAYOUT_MERGED && in->deflate < 0)
        CHECK_MSG(T, after.bytes_read - before.bytes_read == uniq_bytes, "%lld bytes vs %lld",
                  (long long)(after.bytes_read - before.bytes_read), (long long)uniq_bytes);
    long bad = 0;
    for (int k = 0; k < n && st == AXB_OK; k++) {
        int64_t e = req[k];
        int gv = 0;
        for (int s = 0; s < AXB_NSIM; s++) {
            if (!in->has_sim[s]) continue;
            CHECK(T, in->var_offset[s] == gv);
            for (int c = 0; c < in->ncomp[s]; c++, gv++)
                for (int i = 0; i < 5; i++)
                    for (int j = 0; j < 5; j++)
                        for (int t = 0; t < in->ndumps; t++) {
                            float want = minidb_value(s, canon(in->ncomp[s], c), t, m->sem[(e * 5 + j) * 5 + i]);
                            float got = out[k * bf + ((gv * 5 + i) * 5 + j) * in->ndumps + t];
                            bad += got != want;
                        }
        }
    }
    CHECK_MSG(T, bad == 0, "%ld values differ from what was written", bad);
    free(out);
}

static void check_points(check_ctx *T, axb_db *db, axb_io_mode mode, int rank)
{
    const axb_db_info *in = axb_db_get_info(db);
    int nv = axb_db_point_vars(db);
    CHECK(T, nv == 12);
    int64_t ids[4] = {MINIDB_NPTS - 1, 3 + rank, 0, 3 + rank};
    float *out = malloc(4 * (size_t)nv * (size_t)in->ndumps * sizeof *out);
    axb_error err = AXB_ERROR_INIT;
    CHECK_MSG(T, axb_db_read_points(db, 4, ids, mode, out, &err) == AXB_OK, "%s", err.msg);
    long bad = 0;
    for (int k = 0; k < 4; k++)
        for (int s = 0, gv = 0; s < 2; s++)
            for (int v = 0; v < 6; v++, gv++)
                for (int t = 0; t < in->ndumps; t++) {
                    bool absent = s == AXB_SIM_PZ && (v == 3 || v == 4);
                    float want = absent ? 0.0f : minidb_value(s, v, t, (int)ids[k]);
                    bad += out[((size_t)k * nv + gv) * in->ndumps + t] != want;
                }
    CHECK_MSG(T, bad == 0, "%ld point values differ", bad);
    free(out);
}

typedef struct config {
    const char *name;
    minidb_opts o;
    const char *components;
    int nvars;
} config;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    check_ctx T = {0, 0, 0};
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char root[512];
    if (test_scratch_dir(MPI_COMM_WORLD, "synth", root, sizeof root)) {
        fprintf(stderr, "cannot make a scratch directory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const config cfgs[] = {
        {"orig_bwd", {.px = true, .pz = true}, "ZNERT", 5},
        {"orig_bwd_transposed", {.px = true, .pz = true, .transposed = true}, "ZNERT", 5},
        {"orig_pz", {.pz = true, .ndumps = 4}, "Z", 2},
        {"orig_px", {.px = true}, "NERT", 3},
        {"orig_fwd", {.forward = true}, "ZNERT", 10},
        {"merged_bwd", {.px = true, .pz = true, .merged = true}, "ZNERT", 5},
        {"merged_bwd_contiguous", {.px = true, .pz = true, .merged = true, .contiguous = true}, "ZNERT", 5},
        {"merged_pz", {.pz = true, .merged = true}, "Z", 2},
        {"merged_fwd", {.forward = true, .merged = true, .ndumps = 17}, "ZNERT", 10},
        {"strain", {.px = true, .pz = true, .strain = true}, "ZNERT", 0},
    };
    for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        char dir[700];
        snprintf(dir, sizeof dir, "%s/%s", root, cfgs[c].name);
        int ok = 1;
        if (T.rank == 0) ok = minidb_write(dir, &cfgs[c].o) == 0;
        MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
        CHECK_MSG(&T, ok, "fixture %s not written", cfgs[c].name);
        if (!ok) continue;
        axb_db *db = NULL;
        axb_error err = AXB_ERROR_INIT;
        axb_status st = axb_db_open(MPI_COMM_WORLD, dir, &db, &err);
        CHECK_MSG(&T, st == AXB_OK, "%s: %s", cfgs[c].name, err.msg);
        if (st) continue;
        const axb_db_info *in = axb_db_get_info(db);
        const axb_mesh *m = axb_db_get_mesh(db);
        int nt = cfgs[c].o.ndumps ? cfgs[c].o.ndumps : 9;
        CHECK_STR(&T, in->components, cfgs[c].components);
        CHECK(&T, in->nvars == cfgs[c].nvars || cfgs[c].o.strain);
        CHECK(&T, in->ndumps == nt);
        CHECK(&T, in->npoints == MINIDB_NPTS);
        CHECK(&T, in->nelem == (cfgs[c].o.strain ? 0 : MINIDB_NELEM));
        CHECK(&T, in->kind == (cfgs[c].o.forward ? AXB_DB_FORWARD : AXB_DB_RECIPROCAL));
        CHECK(&T, in->layout == (cfgs[c].o.merged ? AXB_LAYOUT_MERGED : AXB_LAYOUT_ORIGINAL));
        CHECK(&T, in->transposed == cfgs[c].o.transposed);
        CHECK(&T, in->chunked == !cfgs[c].o.contiguous);
        CHECK(&T, in->dt == 2.5);
        CHECK(&T, in->amplitude == (double)1e20f);
        CHECK(&T, in->src_shift == 5.0 && in->src_shift_samples == 2);
        CHECK(&T, in->min_radius == 5000e3 && in->max_radius == 6371e3);
        CHECK(&T, in->source_depth == (cfgs[c].o.forward ? 25e3 : 0.0));
        CHECK_STR(&T, in->background_model, "minidb_homogeneous");
        CHECK_STR(&T, in->stf, "errorf");
        CHECK(&T, axb_db_get_stf(db)[nt - 1] == (double)1e20f);
        CHECK(&T, m->s[MINIDB_NPTS - 1] == 12000.0f && m->mu[0] == 7.0e10f);
        if (!cfgs[c].o.strain) {
            CHECK(&T, m->G1[7] == 0.5 * 2 - 0.25 * 2 && m->G2[24] == 0.5 * 5 - 0.25 * 4);
            CHECK(&T, m->glj[1] == -0.507787629558315);
            /* every element's stored corners and mid point agree with its sem_mesh */
            long bad = 0;
            for (int64_t e = 0; e < m->nelem; e++) {
                const int32_t *sm = m->sem + e * 25;
                bad += m->fem[e * 4] != sm[0] || m->fem[e * 4 + 1] != sm[4] || m->fem[e * 4 + 2] != sm[24] ||
                    m->fem[e * 4 + 3] != sm[20];
                bad += m->mp_s[e] != m->s[sm[12]] || m->mp_z[e] != m->z[sm[12]];
            }
            CHECK(&T, bad == 0);
            check_elements(&T, db, AXB_IO_COLLECTIVE, T.rank, size);
            check_elements(&T, db, AXB_IO_INDEPENDENT, T.rank, size);
        } else {
            check_points(&T, db, AXB_IO_COLLECTIVE, T.rank);
            check_points(&T, db, AXB_IO_INDEPENDENT, T.rank);
            int64_t e0 = 0;
            float dummy;
            CHECK(&T, axb_db_read_elements(db, 1, &e0, AXB_IO_COLLECTIVE, &dummy, &err) == AXB_ERR_UNSUPPORTED);
        }
        /* a request for an element that does not exist fails on every rank, nobody hangs */
        if (!cfgs[c].o.strain) {
            int64_t bad_e = T.rank == size - 1 ? MINIDB_NELEM : 0;
            float *tmp = malloc((size_t)axb_db_block_floats(db) * sizeof *tmp);
            st = axb_db_read_elements(db, 1, &bad_e, AXB_IO_COLLECTIVE, tmp, &err);
            CHECK(&T, st == (T.rank == size - 1 ? AXB_ERR_RANGE : AXB_ERR_REMOTE));
            free(tmp);
        }
        axb_db_close(&db);
        CHECK(&T, db == NULL);
    }
    test_remove_dir(MPI_COMM_WORLD, root);
    int failed = T.failed, any;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int passed = T.passed, allp;
    MPI_Allreduce(&passed, &allp, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    T.failed = any;
    T.passed = allp;
    int rc = check_summary(&T);
    MPI_Finalize();
    return rc;
}
