/* The database layer on the real AxiSEM databases in ../shared/data:
 *  - the facts the reference notes state for each database (instaseis-databases.md §1, data README);
 *  - element blocks of the original layout equal, bit for bit, those of Instaseis' merged copies
 *    (another layout of the same data, written by other software, with elements reordered);
 *  - element and point reads equal plain HDF5 hyperslab reads of the same values;
 *  - the original layout's bulk chunk cache (what the kernel engine sizes with --chunk-cache-mb):
 *    elements read a second time come from it without decoding a chunk again when it is large
 *    enough, are decoded again when it is at its smallest, and are the same values either way.
 * Skipped (exit 77) when the shared data are absent. */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "axibulk/db.h"
#include "check.h"
#include "io/hdf5/chunk_reader.h"
#include "test_util.h"

static const char *data_dir;

static axb_db *open_db(check_ctx *T, const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", data_dir, rel);
    axb_db *db = NULL;
    axb_error err = AXB_ERROR_INIT;
    axb_status st = axb_db_open(MPI_COMM_WORLD, path, &db, &err);
    CHECK_MSG(T, st == AXB_OK, "%s: %s", rel, err.msg);
    return db;
}

/* Instaseis' deflated merged copy read raw and decoded by axibulk (merged_raw.c), every element
 * in reverse order with each rank's share: bit-identical to HDF5's own H5Dread of the file (zlib,
 * its filter pipeline), and every element decoded once. */
static void check_merged_raw(check_ctx *T, axb_db *db, const char *rel)
{
    const axb_db_info *in = axb_db_get_info(db);
    const int64_t bf = axb_db_block_floats(db), nel = in->nelem;
    int64_t *ids = malloc((size_t)nel * sizeof *ids), n = 0;
    float *mine = malloc((size_t)nel * (size_t)bf * sizeof *mine);
    float *ref = malloc((size_t)nel * (size_t)bf * sizeof *ref);
    if (!ids || !mine || !ref) MPI_Abort(MPI_COMM_WORLD, 1);
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int64_t e = nel - 1; e >= 0; e--)
        if (e % size == T->rank) ids[n++] = e;
    axb_io_stats before, after;
    axb_db_get_io_stats(db, &before);
    axb_error err = AXB_ERROR_INIT;
    CHECK_MSG(T, axb_db_read_elements(db, n, ids, AXB_IO_INDEPENDENT, mine, &err) == AXB_OK, "%s: %s", rel, err.msg);
    axb_db_get_io_stats(db, &after);
    CHECK_MSG(T, after.chunks_decoded - before.chunks_decoded == n, "%s: %lld chunks decoded for %lld elements", rel,
              (long long)(after.chunks_decoded - before.chunks_decoded), (long long)n);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/merged_output.nc4", data_dir, rel);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT),
          d = f >= 0 ? H5Dopen2(f, "/MergedSnapshots", H5P_DEFAULT) : -1;
    CHECK(T, d >= 0 && H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ref) >= 0);
    if (d >= 0) H5Dclose(d);
    if (f >= 0) H5Fclose(f);
    int64_t differ = 0;
    for (int64_t k = 0; k < n; k++) differ += memcmp(mine + k * bf, ref + ids[k] * bf, (size_t)bf * sizeof *ref) != 0;
    CHECK_MSG(T, differ == 0, "%s: %lld of %lld elements differ from HDF5's reading", rel, (long long)differ,
              (long long)n);
    free(ids);
    free(mine);
    free(ref);
}

/* Facts shared by every 100 s test database (reference notes §1.3-1.5). */
static void check_100s(check_ctx *T, const axb_db *db)
{
    const axb_db_info *i = axb_db_get_info(db);
    CHECK(T, i->file_version == 7 && i->npol == 4 && i->ndumps == 73);
    CHECK(T, i->dt == 24.724845445855724);
    CHECK(T, i->src_shift == 173.07391357421875 && i->src_shift_samples == 7);
    CHECK(T, i->amplitude == 1.0000000200408773e20);
    CHECK(T, i->planet_radius == 6371e3 && i->min_radius == 6000e3 && i->max_radius == 6371e3);
    CHECK(T, i->min_d == 0.0 && i->max_d == 180.0 && i->period == 100.0);
    CHECK_STR(T, i->stf, "errorf");
    CHECK(T, i->stf_map == 0);
    CHECK_STR(T, i->background_model, "prem_iso_light");
    CHECK(T, !i->attenuation);
    CHECK_CLOSE(T, i->length, 72 * 24.724845445855724, 1e-9);
    const double *stf = axb_db_get_stf(db), *stfd = axb_db_get_stf_d(db);
    /* errorf STF: slip rises 0 -> 1e20 with 5e19 at the shift sample; slip rate peaks there
     * (1.974e18) and integrates to the amplitude */
    CHECK_CLOSE(T, stf[7] / 5e19, 1.0, 1e-2);
    CHECK_CLOSE(T, stf[72] / 1e20, 1.0, 1e-3);
    int imax = 0;
    double sum = 0;
    for (int t = 0; t < 73; t++) {
        if (stfd[t] > stfd[imax]) imax = t;
        sum += stfd[t] * i->dt;
    }
    CHECK(T, imax == 7);
    CHECK_CLOSE(T, stfd[7] / 1.974e18, 1.0, 1e-3);
    CHECK_CLOSE(T, sum / 1e20, 1.0, 1e-2);
}

static void check_100s_mesh(check_ctx *T, const axb_db *db, bool original_order)
{
    const axb_mesh *m = axb_db_get_mesh(db);
    CHECK(T, m->has_elements && m->nelem == 192 && m->npoints == 3465);
    int naxis = 0, ntype0 = 0;
    for (int e = 0; e < 192; e++) {
        naxis += m->axis[e];
        ntype0 += m->eltype[e] == 0;
    }
    CHECK(T, naxis == 4 && ntype0 == 192);
    if (original_order) {
        CHECK(T, m->fem[0] == 0 && m->fem[1] == 4 && m->fem[2] == 24 && m->fem[3] == 20);
        long bad = 0;
        for (int q = 0; q < 25; q++) bad += m->sem[q] != q;
        CHECK(T, bad == 0);
    }
    CHECK(T, m->gll[0] == -1 && m->gll[2] == 0 && m->gll[4] == 1);
    CHECK_CLOSE(T, m->gll[1], -sqrt(3.0 / 7.0), 1e-15);
    CHECK_CLOSE(T, m->gll[3], sqrt(3.0 / 7.0), 1e-15);
    CHECK(T, m->glj[1] == -0.507787629558315 && m->glj[2] == 0.13230082077732325 && m->glj[3] == 0.7088201421143251);
    /* G2[i][k] = l_k'(gll_i): rows sum to zero (derivative of a constant), and the stored values
     * are float32-rounded */
    double worst_row = 0;
    long not_f32 = 0;
    for (int r = 0; r < 5; r++) {
        double rs = 0;
        for (int k = 0; k < 5; k++) {
            rs += m->G2[r * 5 + k];
            not_f32 += (double)(float)m->G2[r * 5 + k] != m->G2[r * 5 + k];
        }
        if (fabs(rs) > worst_row) worst_row = fabs(rs);
    }
    CHECK_CLOSE(T, worst_row, 0.0, 1e-5);
    CHECK(T, not_f32 == 0);
    CHECK_CLOSE(T, m->G2[0], -5.0, 1e-6); /* l_0'(-1) = -N(N+1)/4 = -5 for N = 4 */
}

/* Element e of @p b whose sem_mesh equals element e of @p a (the merged copy reorders elements). */
static int64_t *match_elements(const axb_mesh *a, const axb_mesh *b)
{
    int64_t *map = malloc((size_t)a->nelem * sizeof *map);
    int64_t *by_mid = malloc((size_t)b->npoints * sizeof *by_mid);
    for (int64_t p = 0; p < b->npoints; p++) by_mid[p] = -1;
    for (int64_t e = 0; e < b->nelem; e++) by_mid[b->sem[e * 25 + 12]] = e;
    for (int64_t e = 0; e < a->nelem; e++) {
        int64_t f = by_mid[a->sem[e * 25 + 12]];
        map[e] = (f >= 0 && !memcmp(a->sem + e * 25, b->sem + f * 25, 25 * sizeof(int32_t))) ? f : -1;
    }
    free(by_mid);
    return map;
}

/* Compares every element of db @p a with its match in @p b, variables a_vars[k] of a against
 * b_vars[k] of b. Elements are shared among ranks; reads are collective. */
static void compare_layouts(check_ctx *T, axb_db *a, axb_db *b, int nv, const int *a_vars, const int *b_vars, int rank,
                            int size)
{
    const axb_mesh *ma = axb_db_get_mesh(a), *mb = axb_db_get_mesh(b);
    int64_t *map = match_elements(ma, mb);
    long unmatched = 0;
    for (int64_t e = 0; e < ma->nelem; e++) unmatched += map[e] < 0;
    CHECK(T, unmatched == 0 && ma->nelem == mb->nelem);
    int64_t n = 0, *ea = malloc((size_t)ma->nelem * sizeof *ea), *eb = malloc((size_t)ma->nelem * sizeof *eb);
    for (int64_t e = rank; e < ma->nelem; e += size)
        if (map[e] >= 0) {
            ea[n] = e;
            eb[n++] = map[e];
        }
    const int64_t fa = axb_db_block_floats(a), fb = axb_db_block_floats(b);
    const int64_t per = 25 * axb_db_get_info(a)->ndumps;
    float *ba = malloc((size_t)(n ? n : 1) * (size_t)fa * 4), *bb = malloc((size_t)(n ? n : 1) * (size_t)fb * 4);
    axb_error err = AXB_ERROR_INIT;
    CHECK_MSG(T, axb_db_read_elements(a, n, ea, AXB_IO_COLLECTIVE, ba, &err) == AXB_OK, "%s", err.msg);
    CHECK_MSG(T, axb_db_read_elements(b, n, eb, AXB_IO_COLLECTIVE, bb, &err) == AXB_OK, "%s", err.msg);
    long diff = 0;
    double peak = 0;
    for (int64_t k = 0; k < n; k++)
        for (int v = 0; v < nv; v++)
            for (int64_t q = 0; q < per; q++) {
                float x = ba[k * fa + a_vars[v] * per + q], y = bb[k * fb + b_vars[v] * per + q];
                diff += x != y;
                if (fabsf(x) > peak) peak = fabsf(x);
            }
    CHECK_MSG(T, diff == 0, "%ld of %lld values differ between layouts", diff, (long long)(n * nv * per));
    CHECK(T, n == 0 || peak > 0); /* not comparing zeros with zeros */
    free(ba);
    free(bb);
    free(ea);
    free(eb);
    free(map);
}

/* Reads variable @p var at points ids with plain serial HDF5: the independent reference. */
static void raw_points(const char *file, const char *var, int64_t nt, int n, const int64_t *ids, float *out)
{
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = H5Dopen2(f, var, H5P_DEFAULT);
    hid_t fs = H5Dget_space(d);
    hsize_t cnt[2] = {(hsize_t)nt, 1}, md = (hsize_t)nt;
    hid_t ms = H5Screate_simple(1, &md, NULL);
    for (int k = 0; k < n; k++) {
        hsize_t start[2] = {0, (hsize_t)ids[k]};
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
        H5Dread(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, out + (int64_t)k * nt);
    }
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(d);
    H5Fclose(f);
}

static void check_against_raw(check_ctx *T, axb_db *db, int rank)
{
    const axb_db_info *in = axb_db_get_info(db);
    const axb_mesh *m = axb_db_get_mesh(db);
    const int64_t nt = in->ndumps, fb = axb_db_block_floats(db);
    int64_t elems[3] = {m->nelem - 1 - rank, 0, m->nelem / 3 + rank};
    float *blk = malloc(3 * (size_t)fb * 4), *raw = malloc((size_t)nt * 25 * 4);
    axb_error err = AXB_ERROR_INIT;
    CHECK_MSG(T, axb_db_read_elements(db, 3, elems, AXB_IO_INDEPENDENT, blk, &err) == AXB_OK, "%s", err.msg);
    long diff = 0;
    int gv = 0;
    for (int s = 0, f = 0; s < AXB_NSIM; s++) {
        if (!in->has_sim[s]) continue;
        static const char *const dn[3] = {"/Snapshots/disp_s", "/Snapshots/disp_p", "/Snapshots/disp_z"};
        for (int c = 0; c < in->ncomp[s]; c++, gv++) {
            const char *var = dn[in->ncomp[s] == 2 && c == 1 ? 2 : c];
            for (int k = 0; k < 3; k++) {
                int64_t ids[25];
                for (int i = 0; i < 5; i++)
                    for (int j = 0; j < 5; j++) ids[i * 5 + j] = m->sem[(elems[k] * 5 + j) * 5 + i];
                raw_points(in->files[f], var, nt, 25, ids, raw);
                for (int q = 0; q < 25; q++)
                    for (int64_t t = 0; t < nt; t++) diff += raw[q * nt + t] != blk[k * fb + (gv * 25 + q) * nt + t];
            }
        }
        f++;
    }
    CHECK_MSG(T, diff == 0, "%ld values differ from plain HDF5 reads of %s", diff, in->path);
    free(blk);
    free(raw);
}

/* Every stored chunk of every snapshot variable of @p file, decoded by the chunk reader (fletcher32,
 * shuffle, deflate outside HDF5, in a pool of 2 threads), equals HDF5's own decoding of the whole
 * variable, bit for bit. Rank r takes every size-th variable. */
static void decode_all(check_ctx *T, const char *file, int rank, int size, int *nvars)
{
    static const char *const vars[] = {"disp_s",      "disp_p",      "disp_z",      "strain_dsus", "strain_dsuz",
                                       "strain_dpup", "strain_dsup", "strain_dzup", "straintrace"};
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK_MSG(T, f >= 0, "%s: cannot open", file);
    axb_pool *pool = NULL;
    axb_error err = AXB_ERROR_INIT;
    CHECK(T, axb_pool_create(2, &pool, &err) == AXB_OK);
    for (int v = 0; f >= 0 && pool && v < (int)(sizeof vars / sizeof *vars); v++) {
        char path[64];
        snprintf(path, sizeof path, "/Snapshots/%s", vars[v]);
        if (H5Lexists(f, "/Snapshots", H5P_DEFAULT) <= 0 || H5Lexists(f, path, H5P_DEFAULT) <= 0) continue;
        if ((*nvars)++ % size != rank) continue;
        hid_t d = H5Dopen2(f, path, H5P_DEFAULT), fs = H5Dget_space(d);
        hsize_t dims[2];
        H5Sget_simple_extent_dims(fs, dims, NULL);
        H5Sclose(fs);
        const int64_t nt = (int64_t)dims[0], np = (int64_t)dims[1];
        float *ref = malloc((size_t)(nt * np) * sizeof *ref), *got = malloc((size_t)(nt * np) * sizeof *got);
        int64_t *ids = malloc((size_t)np * sizeof *ids);
        for (int64_t p = 0; p < np; p++) ids[p] = p;
        CHECK(T, H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ref) >= 0);
        axb_chunk_reader *r = NULL;
        int idx = -1;
        bool used = false;
        int64_t bytes = 0, calls = 0;
        CHECK(T, axb_chunk_reader_open(file, (int64_t)16 << 20, &r, &err) == AXB_OK);
        if (r) axb_chunk_reader_set_pool(r, pool);
        CHECK(T,
              r && axb_chunk_reader_add(r, d, 1, vars[v], &idx, &err) == AXB_OK && idx == 0 &&
                  axb_chunk_reader_filtered(r, idx));
        CHECK_MSG(
            T, r && axb_chunk_reader_read_cols(r, idx, np, ids, 0, got, &used, &bytes, &calls, &err) == AXB_OK && used,
            "%s %s: %s", file, vars[v], err.msg);
        axb_chunk_stats cs = {0};
        if (r) axb_chunk_reader_stats(r, &cs);
        int64_t diff = 0;
        for (int64_t p = 0; p < np; p++) /* got is [point][t], ref [t][point] */
            for (int64_t t = 0; t < nt; t++) diff += memcmp(&got[p * nt + t], &ref[t * np + p], sizeof(float)) != 0;
        CHECK_MSG(T, diff == 0, "%s %s: %lld values differ from HDF5's decoding", file, vars[v], (long long)diff);
        CHECK_MSG(T, cs.chunks_decoded > 0 && cs.stored_bytes == bytes, "%s %s: %lld chunks, %lld of %lld bytes", file,
                  vars[v], (long long)cs.chunks_decoded, (long long)cs.stored_bytes, (long long)bytes);
        axb_chunk_reader_close(&r);
        free(ref);
        free(got);
        free(ids);
        H5Dclose(d);
    }
    axb_pool_destroy(&pool);
    if (f >= 0) H5Fclose(f);
}

/* Reads @p n elements twice through a freshly opened @p rel with a bulk cache of @p cache bytes;
 * the chunks decoded after the first and after the second pass, and both passes' blocks. */
static void read_twice(check_ctx *T, const char *rel, int64_t cache, int64_t n, const int64_t *ids, float *first,
                       float *second, int64_t decoded[2])
{
    axb_db *db = open_db(T, rel);
    decoded[0] = decoded[1] = -1;
    if (!db) return;
    axb_db_set_bulk_cache(db, cache);
    axb_error err = AXB_ERROR_INIT;
    float *out[2] = {first, second};
    for (int pass = 0; pass < 2; pass++) {
        axb_status st = axb_db_read_elements(db, n, ids, AXB_IO_INDEPENDENT, out[pass], &err);
        CHECK_MSG(T, st == AXB_OK, "%s, pass %d: %s", rel, pass + 1, err.msg);
        axb_io_stats s;
        axb_db_get_io_stats(db, &s);
        decoded[pass] = s.chunks_decoded;
    }
    axb_db_close(&db);
}

static void check_bulk_cache(check_ctx *T, const char *rel, size_t bf, int rank)
{
    /* 96 elements spread over the 4992 (each in its own chunks): about 5 x 96 x 1.5 chunks, more
     * than the smallest cache's 64 slots, far less than 256 MB */
    enum { N = 96 };
    int64_t ids[N];
    for (int k = 0; k < N; k++) ids[k] = (int64_t)k * 51 + rank;
    float *b[4];
    for (int k = 0; k < 4; k++) b[k] = malloc((size_t)N * bf * sizeof(float));
    int64_t small[2], large[2];
    read_twice(T, rel, 1, N, ids, b[0], b[1], small);
    read_twice(T, rel, (int64_t)256 << 20, N, ids, b[2], b[3], large);
    CHECK_MSG(T, small[0] > 64 && small[0] == large[0],
              "first pass: %lld chunks decoded (smallest cache), %lld (256 MB)", (long long)small[0],
              (long long)large[0]);
    CHECK_MSG(T, small[1] - small[0] > 0, "smallest cache: the second pass decoded %lld chunks again",
              (long long)(small[1] - small[0]));
    CHECK_MSG(T, large[1] == large[0], "256 MB cache: the second pass decoded %lld chunks again",
              (long long)(large[1] - large[0]));
    for (int k = 1; k < 4; k++)
        CHECK_MSG(T, memcmp(b[0], b[k], (size_t)N * bf * sizeof(float)) == 0, "bulk cache: read %d differs", k);
    for (int k = 0; k < 4; k++) free(b[k]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    check_ctx T = {0, 0, 0};
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    data_dir = argc > 1 ? argv[1] : "../shared/data";
    struct stat sb;
    char probe[1024];
    snprintf(probe, sizeof probe, "%s/axisem-prem-100s", data_dir);
    if (stat(probe, &sb) != 0) {
        if (T.rank == 0) printf("shared data not found at %s: skipped\n", data_dir);
        MPI_Finalize();
        return CHECK_SKIP;
    }

    axb_db *bwd = open_db(&T, "axisem-prem-100s/100s_db_bwd_displ_only");
    axb_db *fwd = open_db(&T, "axisem-prem-100s/100s_db_fwd");
    axb_db *strain = open_db(&T, "axisem-prem-100s/100s_db_bwd_strain_only");
    axb_db *mbwd = open_db(&T, "instaseis-merged/100s_db_bwd_displ_only");
    axb_db *mvert = open_db(&T, "instaseis-merged/100s_db_bwd_vertical_only/merged_output.nc4");
    axb_db *mfwd = open_db(&T, "instaseis-merged/100s_db_fwd");
    axb_db *p50 = open_db(&T, "axisem-prem-50s/prem_50s_bwd_displ_only");
    if (!bwd || !fwd || !strain || !mbwd || !mvert || !mfwd || !p50) MPI_Abort(MPI_COMM_WORLD, 1);

    check_merged_raw(&T, mbwd, "instaseis-merged/100s_db_bwd_displ_only");
    check_merged_raw(&T, mfwd, "instaseis-merged/100s_db_fwd");
    const axb_db *all100[] = {bwd, fwd, strain, mbwd, mvert, mfwd};
    for (int k = 0; k < 6; k++) check_100s(&T, all100[k]);
    check_100s_mesh(&T, bwd, true);
    check_100s_mesh(&T, fwd, true);
    check_100s_mesh(&T, mbwd, false);
    check_100s_mesh(&T, mfwd, false);

    const axb_db_info *i = axb_db_get_info(bwd);
    CHECK(&T, i->kind == AXB_DB_RECIPROCAL && i->dump == AXB_DUMP_DISPL_ONLY);
    CHECK(&T, i->layout == AXB_LAYOUT_ORIGINAL && i->nfiles == 2 && !i->transposed);
    CHECK(&T, i->nelem == 192 && i->npoints == 3465 && i->nvars == 5);
    CHECK_STR(&T, i->components, "ZNERT");
    CHECK(&T, i->file_bytes[0] == 2459003 && i->file_bytes[1] == 1791399);
    CHECK(&T, i->total_bytes == 2459003 + 1791399);
    CHECK(&T, i->excitation[AXB_SIM_PX] == AXB_EXC_DIPOLE && i->excitation[AXB_SIM_PZ] == AXB_EXC_MONOPOLE);

    i = axb_db_get_info(fwd);
    CHECK(&T, i->kind == AXB_DB_FORWARD && i->nfiles == 4 && i->nvars == 10);
    CHECK(&T, i->source_depth == 12000.0);
    CHECK(&T, i->total_bytes == 1764926 + 2469318 + 2566871 + 1771220);

    i = axb_db_get_info(strain);
    CHECK(&T, i->dump == AXB_DUMP_STRAIN_ONLY && i->nelem == 0 && i->npoints == 1740);
    CHECK(&T, !axb_db_get_mesh(strain)->has_elements && axb_db_point_vars(strain) == 12);

    i = axb_db_get_info(mbwd);
    CHECK(&T, i->layout == AXB_LAYOUT_MERGED && i->chunked && i->deflate == 4 && i->nvars == 5);
    CHECK_STR(&T, i->components, "ZNERT");
    i = axb_db_get_info(mvert);
    CHECK(&T, i->nvars == 2 && i->has_sim[AXB_SIM_PZ] && !i->has_sim[AXB_SIM_PX]);
    CHECK_STR(&T, i->components, "Z");
    i = axb_db_get_info(mfwd);
    CHECK(&T, i->kind == AXB_DB_FORWARD && i->nvars == 10 && i->source_depth == 12000.0);

    /* the 50 s database: AxiSEM file version 10, whole planet, STF in /Snapshots (data README) */
    i = axb_db_get_info(p50);
    CHECK(&T, i->file_version == 10 && i->nelem == 4992 && i->npoints == 81270 && i->ndumps == 146);
    CHECK_CLOSE(&T, i->dt, 12.3473895192055, 1e-12);
    CHECK(&T, i->min_radius == 0.0 && i->max_radius == 6371e3 && i->period == 50.0);
    CHECK(&T, i->src_shift_samples == 7);
    CHECK_STR(&T, i->external_model, "");

    /* layouts against each other: every element, every variable, bit for bit */
    const int all5[5] = {0, 1, 2, 3, 4}, pz_in_bwd[2] = {3, 4}, two[2] = {0, 1};
    const int all10[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    compare_layouts(&T, bwd, mbwd, 5, all5, all5, T.rank, size);
    compare_layouts(&T, bwd, mvert, 2, pz_in_bwd, two, T.rank, size);
    compare_layouts(&T, fwd, mfwd, 10, all10, all10, T.rank, size);

    /* every chunk of every original-layout file decoded outside HDF5 equals HDF5's decoding */
    int ndecoded = 0;
    const axb_db *orig[] = {bwd, fwd, strain, p50};
    for (int k = 0; k < 4; k++) {
        const axb_db_info *oi = axb_db_get_info(orig[k]);
        for (int f = 0; f < oi->nfiles; f++) decode_all(&T, oi->files[f], T.rank, size, &ndecoded);
    }
    /* displ_only bwd 5, fwd 10, strain_only 6 (PX) + 4 (PZ: monopole), 50 s 5 */
    CHECK_MSG(&T, ndecoded == 5 + 10 + 6 + 4 + 5, "%d variables decoded", ndecoded);

    /* element and point reads against plain HDF5 */
    check_against_raw(&T, bwd, T.rank);
    check_against_raw(&T, fwd, T.rank);
    check_against_raw(&T, p50, T.rank);
    {
        const axb_db_info *si = axb_db_get_info(strain);
        int64_t ids[3] = {1739 - T.rank, 0, 777};
        const int nv = axb_db_point_vars(strain);
        float *out = malloc(3 * (size_t)nv * 73 * 4), *raw = malloc(3 * 73 * 4);
        axb_error err = AXB_ERROR_INIT;
        CHECK_MSG(&T, axb_db_read_points(strain, 3, ids, AXB_IO_COLLECTIVE, out, &err) == AXB_OK, "%s", err.msg);
        static const char *const sn[6] = {"strain_dsus", "strain_dsuz", "strain_dpup",
                                          "strain_dsup", "strain_dzup", "straintrace"};
        long diff = 0, nonzero = 0;
        for (int f = 0; f < 2; f++)
            for (int v = 0; v < 6; v++) {
                char var[64];
                snprintf(var, sizeof var, "/Snapshots/%s", sn[v]);
                hid_t fid = H5Fopen(si->files[f], H5F_ACC_RDONLY, H5P_DEFAULT);
                bool present = H5Lexists(fid, var, H5P_DEFAULT) > 0;
                H5Fclose(fid);
                if (present) raw_points(si->files[f], var, 73, 3, ids, raw);
                for (int k = 0; k < 3; k++)
                    for (int t = 0; t < 73; t++) {
                        float want = present ? raw[k * 73 + t] : 0.0f;
                        float got = out[((size_t)k * nv + f * 6 + v) * 73 + t];
                        diff += got != want;
                        nonzero += got != 0;
                    }
            }
        CHECK_MSG(&T, diff == 0, "%ld strain values differ", diff);
        CHECK(&T, nonzero > 0);
        free(out);
        free(raw);
    }

    check_bulk_cache(&T, "axisem-prem-50s/prem_50s_bwd_displ_only", (size_t)axb_db_block_floats(p50), T.rank);

    axb_db *dbs[] = {bwd, fwd, strain, mbwd, mvert, mfwd, p50};
    for (int k = 0; k < 7; k++) axb_db_close(&dbs[k]);
    return test_finish_mpi(&T);
}
