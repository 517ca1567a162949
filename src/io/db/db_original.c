/* Backend for AxiSEM's original layout: one ordered_output.nc4 per run, /Snapshots/<var> shaped
 * (samples, points) ("normal") or (points, samples) ("transposed", after repack_db.py transpose).
 * An element needs its 25 points from every variable of every run; we gather all points of a
 * request, sorted and unique, and read each variable with one H5Dread over the union of runs of
 * consecutive points, which HDF5 turns into whole-chunk reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/agree.h"
#include "core/large_alloc.h"
#include "core/unique.h"
#include "io/db/db_integrity.h"
#include "io/db/db_internal.h"
#include "io/db/db_names.h"
#include "io/db/db_pool.h"
#include "io/hdf5/chunk_reader.h"
#include "io/hdf5/h5util.h"

#define NV_MAX 6
/* bulk reads take whole chunks when the request fills at least this share of those it touches */
#define BULK_MIN_FILL 0.25

static const char *const displ_names[3] = {AXB_NC_DISP_S, AXB_NC_DISP_P, AXB_NC_DISP_Z};
static const char *const strain_names[NV_MAX] = {AXB_NC_STRAIN_DSUS, AXB_NC_STRAIN_DSUZ, AXB_NC_STRAIN_DPUP,
                                                 AXB_NC_STRAIN_DSUP, AXB_NC_STRAIN_DZUP, AXB_NC_STRAIN_TRACE};

typedef struct orig_file {
    hid_t fid;
    hid_t dset[NV_MAX]; /* -1 where the run has no such variable */
    int nv;
    axb_sim sim;
    bool plain[NV_MAX]; /* stored without filters (the file says so: the same on every rank) */
    const char *path;
    axb_chunk_reader *raw; /* bulk reads of unfiltered chunks, opened at first use */
    int raw_idx[NV_MAX];   /* each variable's number in raw, -1: through HDF5 */
    bool raw_tried;
} orig_file;

typedef struct orig_impl {
    orig_file f[4];
    /* one variable's columns of a read, kept between reads: at a repack's slab sizes a fresh
     * buffer per read is a fresh mapping, and every page of it a fault */
    float *col;
    size_t col_bytes;
} orig_impl;

/* The variables a run's file holds, in the order they appear in element blocks / point reads. */
static int run_vars(const axb_db_info *info, axb_sim sim, const char **names)
{
    if (info->dump == AXB_DUMP_DISPL_ONLY) {
        int n = 0;
        names[n++] = displ_names[0];
        if (info->ncomp[sim] == 3) names[n++] = displ_names[1];
        names[n++] = displ_names[2];
        return n;
    }
    for (int v = 0; v < NV_MAX; v++) names[v] = strain_names[v];
    return NV_MAX;
}

/* Checks a snapshot variable's shape and tells its orientation. */
static axb_status snapshot_axis(hid_t fid, const char *var, const axb_db_info *info, bool *transposed, axb_error *err)
{
    int r;
    hsize_t d[H5U_MAXRANK];
    AXB_TRY(axb_h5_dims(fid, var, &r, d, err));
    AXB_CHECK(err, r == 2, AXB_ERR_FORMAT, "variable '%s': %d dimensions, expected 2", var, r);
    AXB_CHECK(err, !(d[0] == d[1]), AXB_ERR_UNSUPPORTED,
              "variable '%s': square (%llu x %llu), so its time axis cannot be told", var, (unsigned long long)d[0],
              (unsigned long long)d[1]);
    if ((int64_t)d[0] == info->ndumps && (int64_t)d[1] == info->npoints)
        *transposed = false;
    else if ((int64_t)d[1] == info->ndumps && (int64_t)d[0] == info->npoints)
        *transposed = true;
    else
        return axb_error_set(err, AXB_ERR_FORMAT,
                             "variable '%s': shape (%llu, %llu) does not match %lld samples x %lld "
                             "points",
                             var, (unsigned long long)d[0], (unsigned long long)d[1], (long long)info->ndumps,
                             (long long)info->npoints);
    return AXB_OK;
}

static axb_status check_file(hid_t fid, axb_db_info *info, axb_sim sim, bool first, axb_error *err)
{
    static const char *const exc_name[] = {"monopole", "dipole", "quadpole"};
    char exc[64];
    AXB_TRY(axb_h5_attr_string(fid, AXB_NC_ATT_EXCITATION, exc, sizeof exc, err));
    AXB_CHECK(err, !strcmp(exc, exc_name[info->excitation[sim]]), AXB_ERR_FORMAT,
              "attribute 'excitation type': '%s', but a %s simulation is a %s", exc, axb_sim_name(sim),
              exc_name[info->excitation[sim]]);
    const char *names[NV_MAX];
    int nv = run_vars(info, sim, names);
    int present = 0;
    for (int v = 0; v < nv; v++) {
        char path[128];
        snprintf(path, sizeof path, "/" AXB_NC_GRP_SNAPSHOTS "/%s", names[v]);
        if (info->dump != AXB_DUMP_DISPL_ONLY && !axb_h5_exists(fid, path)) continue; /* read as 0 */
        bool tr = false;
        AXB_TRY(snapshot_axis(fid, path, info, &tr, err));
        if (first && present == 0) info->transposed = tr;
        AXB_CHECK(err, tr == info->transposed, AXB_ERR_UNSUPPORTED,
                  "variable '%s': orientation differs from the database's other snapshot arrays", path);
        present++;
    }
    AXB_CHECK(err, present > 0, AXB_ERR_FORMAT, "group 'Snapshots': none of the %s variables",
              axb_dump_type_name(info->dump));
    AXB_CHECK(err, !(info->transposed && info->dump != AXB_DUMP_DISPL_ONLY), AXB_ERR_UNSUPPORTED,
              "transposed strain arrays are not supported (Instaseis cannot read them either)");
    return AXB_OK;
}

/* Counts the run's snapshot variables present, and those with fletcher32 (which the readers verify,
 * ours and HDF5's). */
static void count_checksums(hid_t fid, const axb_db_info *info, axb_sim sim, int *nvars, int *nf32)
{
    const char *names[NV_MAX];
    const int nv = run_vars(info, sim, names);
    for (int v = 0; v < nv; v++) {
        char path[128];
        snprintf(path, sizeof path, "/" AXB_NC_GRP_SNAPSHOTS "/%s", names[v]);
        const hid_t d = axb_h5_exists(fid, path) ? H5Dopen2(fid, path, H5P_DEFAULT) : -1;
        const hid_t dcpl = d >= 0 ? H5Dget_create_plist(d) : -1;
        if (d >= 0) ++*nvars;
        bool f32 = false;
        for (int i = 0; dcpl >= 0 && i < H5Pget_nfilters(dcpl); i++) {
            unsigned flags, cd[4] = {0};
            size_t ncd = 4;
            f32 = f32 || H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, 0, NULL, NULL) == H5Z_FILTER_FLETCHER32;
        }
        *nf32 += f32;
        if (dcpl >= 0) H5Pclose(dcpl);
        if (d >= 0) H5Dclose(d);
    }
}

static axb_status orig_read_meta(axb_db *db, const axb_db_found *found, axb_error *err)
{
    axb_db_info *info = &db->info;
    for (int k = 0; k < found->nfiles; k++) info->has_sim[found->sims[k]] = true;
    axb_db_finish_info(info);
    info->chunked = true;
    info->deflate = -1;
    int nvars = 0, nf32 = 0;
    for (int k = 0; k < found->nfiles; k++) {
        const char *rel = found->files[k];
        hid_t fid;
        AXB_TRY_CTX(err, axb_h5_open(found->files[k], H5P_DEFAULT, &fid, err), "%s", rel);
        axb_status st;
        if (k == 0) {
            /* Instaseis parses the mesh of the first run in our order (PX, else PZ; MZZ). */
            st = axb_db_read_attributes(fid, info, err);
            if (!st) axb_db_finish_info(info);
            if (!st) st = axb_mesh_read(fid, info, info->dump == AXB_DUMP_DISPL_ONLY, &db->mesh, err);
            if (!st) st = axb_db_read_stf(fid, info->ndumps, &db->stf, &db->stf_d, err);
        } else {
            st = axb_db_check_consistent(fid, info, err);
        }
        if (!st) st = check_file(fid, info, found->sims[k], k == 0, err);
        if (!st) count_checksums(fid, info, found->sims[k], &nvars, &nf32);
        if (!st) {
            hid_t dcpl = -1;
            char path[128];
            const char *names[NV_MAX];
            run_vars(info, found->sims[k], names);
            snprintf(path, sizeof path, "/" AXB_NC_GRP_SNAPSHOTS "/%s", names[0]);
            hid_t d = axb_h5_exists(fid, path) ? H5Dopen2(fid, path, H5P_DEFAULT) : -1;
            if (d >= 0 && (dcpl = H5Dget_create_plist(d)) >= 0) {
                for (int i = 0; i < H5Pget_nfilters(dcpl); i++) {
                    unsigned flags, cd[4] = {0};
                    size_t ncd = 4;
                    if (H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, 0, NULL, NULL) == H5Z_FILTER_DEFLATE)
                        info->deflate = ncd ? (int)cd[0] : 0;
                }
                info->chunked = H5Pget_layout(dcpl) == H5D_CHUNKED;
                H5Pclose(dcpl);
            }
            if (d >= 0) H5Dclose(d);
        }
        H5Fclose(fid);
        if (st) return axb_error_prefix(err, "%s", rel);
        snprintf(info->files[k], AXB_PATH_MAX, "%s", found->files[k]);
        struct stat sb;
        info->file_bytes[k] = stat(found->files[k], &sb) == 0 ? (int64_t)sb.st_size : 0;
        info->total_bytes += info->file_bytes[k];
    }
    info->nfiles = found->nfiles;
    info->layout = AXB_LAYOUT_ORIGINAL;
    info->checksums = nf32 == 0 ? AXB_CHECKSUMS_NONE : nf32 < nvars ? AXB_CHECKSUMS_PARTIAL : AXB_CHECKSUMS_FLETCHER32;
    db->npoint_vars = 0;
    for (int s = 0; s < AXB_NSIM; s++) {
        const char *names[NV_MAX];
        if (info->has_sim[s]) db->npoint_vars += run_vars(info, (axb_sim)s, names);
    }
    return AXB_OK;
}

static void orig_close(axb_db *db)
{
    orig_impl *o = db->impl;
    if (!o) return;
    for (int k = 0; k < 4; k++) axb_chunk_reader_close(&o->f[k].raw);
    free(o->col);
    for (int k = 0; k < 4; k++) {
        for (int v = 0; v < NV_MAX; v++)
            if (o->f[k].dset[v] >= 0) H5Dclose(o->f[k].dset[v]);
        if (o->f[k].fid >= 0) H5Fclose(o->f[k].fid);
    }
    free(o);
    db->impl = NULL;
}

/* Rank-local: the run's snapshot variables of an opened file. */
static axb_status open_vars(const axb_db_info *info, orig_file *f, axb_sim sim, axb_error *err)
{
    const char *rel = f->path;
    const char *names[NV_MAX];
    f->nv = run_vars(info, sim, names);
    /* A chunk (all samples of 112 points) serves many elements; HDF5's default 1 MiB cache
         * would decompress it again for every read that touches it. */
    hid_t dapl = H5Pcreate(H5P_DATASET_ACCESS);
    H5Pset_chunk_cache(dapl, 12421, (size_t)64 << 20, 1.0);
    for (int v = 0; v < f->nv; v++) {
        char path[128];
        snprintf(path, sizeof path, "/" AXB_NC_GRP_SNAPSHOTS "/%s", names[v]);
        if (!axb_h5_exists(f->fid, path)) continue;
        f->dset[v] = H5Dopen2(f->fid, path, dapl);
        if (f->dset[v] < 0) {
            H5Pclose(dapl);
            return axb_error_set(err, AXB_ERR_HDF5, "%s: variable '%s': cannot open", rel, path);
        }
        const hid_t dcpl = H5Dget_create_plist(f->dset[v]);
        f->plain[v] = dcpl >= 0 && H5Pget_nfilters(dcpl) == 0;
        if (dcpl >= 0) H5Pclose(dcpl);
    }
    H5Pclose(dapl);
    return AXB_OK;
}

static axb_status orig_open_data(axb_db *db, axb_error *err)
{
    const axb_db_info *info = &db->info;
    orig_impl *o = calloc(1, sizeof *o);
    if (!o) return axb_error_set(err, AXB_ERR_NOMEM, "database handles");
    for (int k = 0; k < 4; k++) {
        o->f[k].fid = -1;
        for (int v = 0; v < NV_MAX; v++) o->f[k].dset[v] = -1;
    }
    db->impl = o;
    int k = 0;
    for (int s = 0; s < AXB_NSIM; s++) {
        if (!info->has_sim[s]) continue;
        orig_file *f = &o->f[k];
        const char *rel = info->files[k];
        f->path = info->files[k];
        f->sim = (axb_sim)s;
        /* each file's opening is collective: the ranks agree on one before the next */
        axb_status st = axb_db_open_parallel(db->comm, info->files[k], &f->fid, err);
        if (st) axb_error_prefix(err, "%s", rel);
        AXB_TRY(axb_agree(db->comm, st, err));
        AXB_TRY(axb_agree(db->comm, open_vars(info, f, (axb_sim)s, err), err));
        k++;
    }
    return AXB_OK;
}

/* The file's raw chunk reader, at the first raw read: one for all its variables, given their
 * share of the bulk cache; none when no variable qualifies. Not collective (no MPI, and HDF5 only
 * for chunk addresses). */
static axb_status raw_reader(axb_db *db, orig_file *f, axb_error *err)
{
    if (f->raw_tried) return AXB_OK;
    f->raw_tried = true;
    for (int v = 0; v < NV_MAX; v++) f->raw_idx[v] = -1;
    axb_pool *pool;
    AXB_TRY(axb_db_worker_pool(db, &pool, err));
    const int axis = db->info.transposed ? 0 : 1;
    const int64_t cache = db->bulk_cache_bytes / (db->info.nvars > 0 ? db->info.nvars : 1) * f->nv;
    AXB_TRY(axb_chunk_reader_open(f->path, cache, &f->raw, err));
    axb_chunk_reader_set_pool(f->raw, pool);
    bool any = false;
    const char *names[NV_MAX];
    const int nv = run_vars(&db->info, f->sim, names);
    for (int v = 0; v < f->nv && v < nv; v++) {
        if (f->dset[v] >= 0) AXB_TRY(axb_chunk_reader_add(f->raw, f->dset[v], axis, names[v], &f->raw_idx[v], err));
        any = any || f->raw_idx[v] >= 0;
    }
    if (!any) axb_chunk_reader_close(&f->raw);
    return AXB_OK;
}

/* Variable v of file f is filtered and read by the raw reader, whatever the mode: HDF5 would
 * decode whole chunks anyway, serially. Every rank comes to the same answer (the files decide). */
static axb_status raw_filtered(axb_db *db, orig_file *f, int v, bool *yes, axb_error *err)
{
    AXB_TRY(raw_reader(db, f, err));
    *yes = f->raw && axb_chunk_reader_filtered(f->raw, f->raw_idx[v]);
    return AXB_OK;
}

/* Reads columns (points) ids[0..nu) (sorted, distinct) of snapshot variable v of file f into
 * buf[u][t] (*point_major) or buf[t][u]. */
static axb_status read_columns(axb_db *db, orig_file *f, int v, int64_t nu, const int64_t *ids, axb_io_mode mode,
                               float *buf, bool *point_major, axb_error *err)
{
    int64_t bytes = 0, calls = 0;
    const int axis = db->info.transposed ? 0 : 1;
    const hid_t dset = f->dset[v];
    bool filtered = false;
    AXB_TRY(raw_filtered(db, f, v, &filtered, err));
    if (mode == AXB_IO_INDEPENDENT || filtered) {
        /* bulk reads (repack) cover most of the chunks they touch: read them whole, from the
         * file directly where they are stored plainly, else through HDF5; filtered chunks always
         * from the file, decoded by the pool */
        bool used = false;
        if (f->raw)
            AXB_TRY(axb_chunk_reader_read_cols(f->raw, f->raw_idx[v], nu, ids, BULK_MIN_FILL, buf, &used, &bytes,
                                               &calls, err));
        if (!used && !filtered)
            AXB_TRY(axb_h5_read_cols_by_chunk(dset, axis, nu, ids, BULK_MIN_FILL, buf, &used, &bytes, &calls, err));
        AXB_CHECK(err, used || !filtered, AXB_ERR_INTERNAL, "a filtered variable declined by the chunk reader");
        if (used) {
            *point_major = true;
            db->stats.read_calls += calls;
            db->stats.bytes_read += bytes;
            return AXB_OK;
        }
    }
    AXB_TRY(axb_h5_read_runs(dset, axis, nu, ids, mode == AXB_IO_COLLECTIVE, H5T_NATIVE_FLOAT, buf, &bytes, err));
    *point_major = db->info.transposed; /* file order of the selection */
    db->stats.read_calls++;
    db->stats.bytes_read += bytes;
    return AXB_OK;
}

/* Starts the raw reads of points ids[0..nu) of every file (of the filtered variables only unless
 * @p bulk: other reads of unfiltered variables go through HDF5). */
static axb_status prefetch_points(axb_db *db, int64_t nu, const int64_t *ids, bool bulk, axb_error *err)
{
    orig_impl *o = db->impl;
    for (int k = 0; k < db->info.nfiles; k++) {
        int64_t bytes = 0, calls = 0;
        AXB_TRY_CTX(err, raw_reader(db, &o->f[k], err), "%s", db->info.files[k]);
        if (o->f[k].raw)
            AXB_TRY_CTX(err, axb_chunk_reader_prefetch(o->f[k].raw, nu, ids, BULK_MIN_FILL, !bulk, &bytes, &calls, err),
                        "%s", db->info.files[k]);
        db->stats.read_calls += calls;
        db->stats.bytes_read += bytes;
    }
    return AXB_OK;
}

/* NaN or infinity in what was read is refused (no database holds them legitimately; one would
 * turn every seismogram touching the point into NaN): the point and sample are named. */
static axb_status check_finite(const axb_db *db, const orig_file *f, int v, int64_t nu, const int64_t *ids,
                               const float *col, bool point_major, axb_error *err)
{
    const int64_t nt = db->info.ndumps, bad = axb_first_nonfinite(col, nu * nt);
    if (bad < 0) return AXB_OK;
    const char *names[NV_MAX];
    run_vars(&db->info, f->sim, names);
    const int64_t u = point_major ? bad / nt : bad % nu, t = point_major ? bad % nt : bad / nu;
    return axb_error_set(err, AXB_ERR_FORMAT,
                         "variable '" AXB_NC_GRP_SNAPSHOTS "/%s': point %lld, sample %lld is %g: the file is damaged",
                         names[v], (long long)ids[u], (long long)t, (double)col[bad]);
}

/* For every variable of every run: read the unique points once, then hand each (request, var)
 * its series through @p place. This is the one loop both element and point reads share. */
typedef void (*place_fn)(const axb_db *db, const float *col, bool point_major, int64_t nu, int gv, void *ctx);

static axb_status gather(axb_db *db, int64_t nu, const int64_t *uniq, axb_io_mode mode, place_fn place, void *ctx,
                         axb_error *err)
{
    orig_impl *o = db->impl;
    const axb_db_info *info = &db->info;
    const size_t need = (size_t)(nu ? nu : 1) * (size_t)info->ndumps * sizeof(float);
    if (need > o->col_bytes) {
        free(o->col);
        o->col_bytes = 0;
        if (!(o->col = axb_large_alloc(need)))
            return axb_error_set(err, AXB_ERR_NOMEM, "read buffer for %lld points", (long long)nu);
        o->col_bytes = need;
    }
    float *col = o->col;
    /* the chunks of all variables of a file (bulk reads; else the filtered ones), in file order, in
     * the background while the first ones are transposed (a no-op where an earlier
     * prefetch_elements queued them) */
    axb_status st = prefetch_points(db, nu, uniq, mode == AXB_IO_INDEPENDENT, err);
    int gv = 0;
    for (int k = 0; k < info->nfiles; k++) {
        for (int v = 0; v < o->f[k].nv; v++, gv++) {
            bool pm = true;
            if (o->f[k].dset[v] < 0) {
                if (!st) memset(col, 0, (size_t)(nu ? nu : 1) * (size_t)info->ndumps * sizeof *col);
            } else if (!st) {
                st = read_columns(db, &o->f[k], v, nu, uniq, mode, col, &pm, err);
                if (!st) st = check_finite(db, &o->f[k], v, nu, uniq, col, pm, err);
                if (st) axb_error_prefix(err, "%s", info->files[k]);
            } else if (mode == AXB_IO_COLLECTIVE && o->f[k].plain[v]) {
                /* after a failure here, the other ranks still enter the collective reads of
                 * HDF5's path (unfiltered variables): take part, discard the result */
                axb_error ignored = AXB_ERROR_INIT;
                (void)read_columns(db, &o->f[k], v, nu, uniq, mode, col, &pm, &ignored);
            }
            if (!st) place(db, col, pm, nu, gv, ctx);
        }
    }
    return st;
}

typedef struct elem_ctx {
    int64_t n;
    const int64_t *elems;
    const int64_t *inv; /* [n][np1][np1] (request, j, i) -> unique point index */
    float *out;
} elem_ctx;

static void place_elements(const axb_db *db, const float *col, bool tr, int64_t nu, int gv, void *vctx)
{
    const elem_ctx *c = vctx;
    const int np1 = db->info.npol + 1, nv = db->info.nvars;
    const int64_t nt = db->info.ndumps;
    for (int64_t k = 0; k < c->n; k++) {
        for (int i = 0; i < np1; i++) {
            for (int j = 0; j < np1; j++) {
                int64_t u = c->inv[(k * np1 + j) * np1 + i];
                float *dst = c->out + (((k * nv + gv) * np1 + i) * np1 + j) * nt;
                if (tr) {
                    memcpy(dst, col + u * nt, (size_t)nt * sizeof *dst);
                } else {
                    for (int64_t t = 0; t < nt; t++) dst[t] = col[t * nu + u];
                }
            }
        }
    }
}

/* The unique points of elements elems[0..n), sorted; *inv maps (request, j, i) to them. */
static axb_status element_points(const axb_db *db, int64_t n, const int64_t *elems, int64_t **uniq, int64_t *nu,
                                 int64_t **inv, axb_error *err)
{
    const int np1 = db->info.npol + 1;
    const int64_t per = (int64_t)np1 * np1;
    int64_t *pts = malloc((size_t)(n ? n : 1) * (size_t)per * sizeof *pts);
    if (!pts) return axb_error_set(err, AXB_ERR_NOMEM, "point list of %lld elements", (long long)n);
    for (int64_t k = 0; k < n; k++)
        for (int64_t q = 0; q < per; q++) pts[k * per + q] = db->mesh.sem[elems[k] * per + q];
    axb_status st = axb_unique_i64(pts, n * per, uniq, nu, inv, err);
    free(pts);
    return st;
}

static axb_status orig_prefetch_elements(axb_db *db, int64_t n, const int64_t *elems, axb_error *err)
{
    int64_t *uniq, *inv, nu;
    AXB_TRY(element_points(db, n, elems, &uniq, &nu, &inv, err));
    axb_status st = prefetch_points(db, nu, uniq, true, err);
    free(uniq);
    free(inv);
    return st;
}

static axb_status orig_expect_elements(axb_db *db, int64_t n, const int64_t *elems, axb_error *err)
{
    orig_impl *o = db->impl;
    int64_t *uniq, *inv, nu;
    AXB_TRY(element_points(db, n, elems, &uniq, &nu, &inv, err));
    axb_status st = AXB_OK;
    for (int k = 0; k < db->info.nfiles && !st; k++) {
        st = raw_reader(db, &o->f[k], err);
        if (st) axb_error_prefix(err, "%s", db->info.files[k]);
        if (!st && o->f[k].raw) axb_chunk_reader_expect(o->f[k].raw, nu, uniq);
    }
    free(uniq);
    free(inv);
    return st;
}

static axb_status orig_read_elements(axb_db *db, int64_t n, const int64_t *elems, axb_io_mode mode, float *out,
                                     axb_error *err)
{
    int64_t *uniq, *inv, nu;
    AXB_TRY(element_points(db, n, elems, &uniq, &nu, &inv, err));
    elem_ctx c = {n, elems, inv, out};
    axb_status st = gather(db, nu, uniq, mode, place_elements, &c, err);
    free(uniq);
    free(inv);
    return st;
}

typedef struct point_ctx {
    int64_t n;
    const int64_t *inv;
    float *out;
} point_ctx;

static void place_points(const axb_db *db, const float *col, bool tr, int64_t nu, int gv, void *vctx)
{
    const point_ctx *c = vctx;
    const int64_t nt = db->info.ndumps;
    const int nv = db->npoint_vars;
    for (int64_t k = 0; k < c->n; k++) {
        int64_t u = c->inv[k];
        float *dst = c->out + ((int64_t)k * nv + gv) * nt;
        if (tr)
            memcpy(dst, col + u * nt, (size_t)nt * sizeof *dst);
        else
            for (int64_t t = 0; t < nt; t++) dst[t] = col[t * nu + u];
    }
}

static axb_status orig_read_points(axb_db *db, int64_t n, const int64_t *ids, axb_io_mode mode, float *out,
                                   axb_error *err)
{
    int64_t *uniq, *inv, nu;
    AXB_TRY(axb_unique_i64(ids, n, &uniq, &nu, &inv, err));
    point_ctx c = {n, inv, out};
    axb_status st = gather(db, nu, uniq, mode, place_points, &c, err);
    free(uniq);
    free(inv);
    return st;
}

static void orig_add_stats(const axb_db *db, axb_io_stats *s)
{
    const orig_impl *o = db->impl;
    if (!o) return;
    axb_chunk_stats c = {0};
    for (int k = 0; k < 4; k++)
        if (o->f[k].raw) axb_chunk_reader_stats(o->f[k].raw, &c);
    s->read_s += c.read;
    s->checksum_s += c.checksum;
    s->inflate_s += c.inflate;
    s->unshuffle_s += c.unshuffle;
    s->transpose_s += c.transpose;
    s->chunks_decoded += c.chunks_decoded;
    s->stored_bytes += c.stored_bytes;
}

const axb_db_ops axb_db_original_ops = {
    .name = "original",
    .read_meta = orig_read_meta,
    .open_data = orig_open_data,
    .read_elements = orig_read_elements,
    .prefetch_elements = orig_prefetch_elements,
    .expect_elements = orig_expect_elements,
    .read_points = orig_read_points,
    .add_stats = orig_add_stats,
    .close = orig_close,
};
