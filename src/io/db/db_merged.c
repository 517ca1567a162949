/* Backend for the merged ("unrolled") layout: one merged_output.nc4 with
 * /MergedSnapshots (elements, nvars, xi, eta, samples), the whole block of an element contiguous
 * (reference notes §1.7). Written by Instaseis' repack_db.py (element-chunked, deflate) or by
 * `axibulk repack` (chunked or contiguous). A request becomes one H5Dread whose file selection is
 * the union of the requested elements' slabs, merged into runs of consecutive elements; deflated
 * files (one chunk per element) are read raw and decoded in the rank's threads (merged_raw.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/agree.h"
#include "core/mpi_check.h"
#include "core/unique.h"
#include "io/db/db_integrity.h"
#include "io/db/db_internal.h"
#include "io/db/db_names.h"
#include "io/db/db_pool.h"
#include "io/db/merged_raw.h"
#include "io/hdf5/h5util.h"

#define MERGED "/" AXB_NC_VAR_MERGED
#define CHECKSUMS "/" AXB_NC_VAR_MERGED_CRC

typedef struct merged_impl {
    hid_t fid, dset;
    uint32_t *crc;       /* [nelem] the file's element checksums; NULL: the file has none */
    axb_merged_raw *raw; /* filtered chunks read without HDF5; NULL: H5Dread */
} merged_impl;

static axb_status sims_of_nvars(hsize_t nvars, bool *has, axb_error *err)
{
    switch (nvars) {
    case 2: has[AXB_SIM_PZ] = true; return AXB_OK;
    case 3: has[AXB_SIM_PX] = true; return AXB_OK;
    case 5: has[AXB_SIM_PX] = has[AXB_SIM_PZ] = true; return AXB_OK;
    case 10:
        has[AXB_SIM_MZZ] = has[AXB_SIM_MXX_P_MYY] = has[AXB_SIM_MXZ_MYZ] = has[AXB_SIM_MXY_MXX_M_MYY] = true;
        return AXB_OK;
    default:
        return axb_error_set(err, AXB_ERR_FORMAT,
                             "variable '" MERGED "': %llu variables per element; a merged database "
                             "has 2 (PZ), 3 (PX), 5 (PX+PZ) or 10 (forward)",
                             (unsigned long long)nvars);
    }
}

static axb_status merged_describe(hid_t fid, axb_db *db, axb_error *err)
{
    axb_db_info *info = &db->info;
    AXB_TRY(axb_db_read_attributes(fid, info, err));
    AXB_CHECK(err, info->dump == AXB_DUMP_DISPL_ONLY, AXB_ERR_UNSUPPORTED,
              "dump type '%s': merged databases hold displacement only", axb_dump_type_name(info->dump));
    int r;
    hsize_t d[H5U_MAXRANK];
    AXB_TRY(axb_h5_dims(fid, MERGED, &r, d, err));
    const hsize_t np1 = (hsize_t)info->npol + 1;
    AXB_CHECK(err, r == 5 && d[2] == np1 && d[3] == np1 && (int64_t)d[4] == info->ndumps, AXB_ERR_FORMAT,
              "variable '" MERGED "': expected (elements, nvars, %llu, %llu, %lld samples)", (unsigned long long)np1,
              (unsigned long long)np1, (long long)info->ndumps);
    AXB_CHECK(err, (int64_t)d[0] == info->nelem, AXB_ERR_FORMAT,
              "variable '" MERGED "': %llu elements, but attribute 'nelem_kwf_global' says %lld",
              (unsigned long long)d[0], (long long)info->nelem);
    AXB_TRY(sims_of_nvars(d[1], info->has_sim, err));
    axb_db_finish_info(info);

    hid_t ds = H5Dopen2(fid, MERGED, H5P_DEFAULT);
    hid_t dcpl = ds >= 0 ? H5Dget_create_plist(ds) : -1;
    info->chunked = false;
    info->deflate = -1;
    if (dcpl >= 0) {
        info->chunked = H5Pget_layout(dcpl) == H5D_CHUNKED;
        for (int i = 0; i < H5Pget_nfilters(dcpl); i++) {
            unsigned flags, cd[4] = {0};
            size_t ncd = 4;
            if (H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, 0, NULL, NULL) == H5Z_FILTER_DEFLATE)
                info->deflate = ncd ? (int)cd[0] : 0;
        }
        H5Pclose(dcpl);
    }
    if (ds >= 0) H5Dclose(ds);
    info->checksums = axb_h5_exists(fid, CHECKSUMS) ? AXB_CHECKSUMS_ELEMENT : AXB_CHECKSUMS_NONE;
    if (info->checksums == AXB_CHECKSUMS_ELEMENT) {
        AXB_TRY(axb_h5_dims(fid, CHECKSUMS, &r, d, err));
        AXB_CHECK(err, r == 1 && (int64_t)d[0] == info->nelem, AXB_ERR_FORMAT,
                  "variable '" CHECKSUMS "': expected one value per element (%lld)", (long long)info->nelem);
    }
    AXB_TRY(axb_mesh_read(fid, info, true, &db->mesh, err));
    AXB_TRY(axb_db_read_stf(fid, info->ndumps, &db->stf, &db->stf_d, err));
    return AXB_OK;
}

static axb_status merged_read_meta(axb_db *db, const axb_db_found *found, axb_error *err)
{
    axb_db_info *info = &db->info;
    const char *rel = found->files[0];
    hid_t fid;
    AXB_TRY_CTX(err, axb_h5_open(found->files[0], H5P_DEFAULT, &fid, err), "%s", rel);
    axb_status st = merged_describe(fid, db, err);
    H5Fclose(fid);
    if (st) return axb_error_prefix(err, "%s", rel);
    info->layout = AXB_LAYOUT_MERGED;
    info->nfiles = 1;
    snprintf(info->files[0], AXB_PATH_MAX, "%s", found->files[0]);
    struct stat sb;
    info->file_bytes[0] = stat(found->files[0], &sb) == 0 ? (int64_t)sb.st_size : 0;
    info->total_bytes = info->file_bytes[0];
    db->npoint_vars = info->nvars;
    return AXB_OK;
}

static void merged_close(axb_db *db)
{
    merged_impl *m = db->impl;
    if (!m) return;
    axb_merged_raw_close(&m->raw);
    if (m->dset >= 0) H5Dclose(m->dset);
    if (m->fid >= 0) H5Fclose(m->fid);
    free(m->crc);
    free(m);
    db->impl = NULL;
}

static axb_status merged_open_data(axb_db *db, axb_error *err)
{
    merged_impl *m = calloc(1, sizeof *m);
    if (!m) return axb_error_set(err, AXB_ERR_NOMEM, "database handles");
    m->fid = m->dset = -1;
    db->impl = m;
    const char *rel = db->info.files[0];
    AXB_TRY_CTX(err, axb_db_open_parallel(db->comm, db->info.files[0], &m->fid, err), "%s", rel);
    m->dset = H5Dopen2(m->fid, MERGED, H5P_DEFAULT);
    AXB_CHECK(err, m->dset >= 0, AXB_ERR_HDF5, "%s: cannot open " MERGED, rel);
    if (db->info.deflate >= 0) {
        axb_status st = axb_merged_raw_open(rel, m->dset, db->info.nelem,
                                            axb_db_block_floats(db) * (int64_t)sizeof(float), &m->raw, err);
        /* every rank reads the same way: a collective H5Dread needs all of them */
        int raw = st == AXB_OK && m->raw, all = 0;
        AXB_MPI_AGREE(db->comm, err, MPI_Allreduce(&raw, &all, 1, MPI_INT, MPI_MIN, db->comm), "read path");
        AXB_TRY(axb_agree(db->comm, st, err));
        if (!all) axb_merged_raw_close(&m->raw);
    }
    if (db->info.checksums != AXB_CHECKSUMS_ELEMENT) return AXB_OK;
    /* every rank keeps all of them: 4 bytes per element against the element's tens of KB */
    const hsize_t n = (hsize_t)db->info.nelem;
    m->crc = malloc((size_t)(n ? n : 1) * sizeof *m->crc);
    if (!m->crc) return axb_error_set(err, AXB_ERR_NOMEM, "%s: element checksums", rel);
    AXB_TRY_CTX(err, axb_h5_read(m->fid, CHECKSUMS, H5T_NATIVE_UINT32, 1, &n, m->crc, err), "%s", rel);
    return AXB_OK;
}

/* Every element read is checked before anyone uses it: its CRC-32 against the file's (where the
 * file has them) and its values for NaN or infinity (which would turn whole seismograms into NaN). */
static axb_status check_block(const axb_db *db, int64_t elem, const float *x, axb_error *err)
{
    const merged_impl *m = db->impl;
    const int64_t bf = axb_db_block_floats(db), nt = db->info.ndumps, np1 = db->info.npol + 1;
    if (m->crc) {
        const uint32_t c = axb_elem_crc32(x, bf);
        AXB_CHECK(err, c == m->crc[elem], AXB_ERR_FORMAT,
                  "%s: variable '" AXB_NC_VAR_MERGED "': element %lld: checksum %08x, but " AXB_NC_VAR_MERGED_CRC
                  " holds %08x: the file is damaged",
                  db->info.files[0], (long long)elem, c, m->crc[elem]);
    }
    const int64_t bad = axb_first_nonfinite(x, bf);
    if (bad < 0) return AXB_OK;
    const int64_t t = bad % nt, pt = bad / nt, v = pt / (np1 * np1);
    return axb_error_set(err, AXB_ERR_FORMAT,
                         "%s: variable '" AXB_NC_VAR_MERGED "': element %lld: variable %lld, GLL point (xi %lld, "
                         "eta %lld), sample %lld is %g: the file is damaged",
                         db->info.files[0], (long long)elem, (long long)v, (long long)(pt / np1 % np1),
                         (long long)(pt % np1), (long long)t, (double)x[bad]);
}

typedef struct verify_ctx {
    const axb_db *db;
    const int64_t *uniq;
    const float *buf;
} verify_ctx;

/* Blocks [k0, k1) of a read checked (axb_range_fn, in the workers): the first that fails, or k1. */
static int64_t check_some(void *vctx, int64_t k0, int64_t k1)
{
    const verify_ctx *x = vctx;
    const int64_t bf = axb_db_block_floats(x->db);
    axb_error scratch = AXB_ERROR_INIT;
    for (int64_t k = k0; k < k1; k++)
        if (check_block(x->db, x->uniq[k], x->buf + k * bf, &scratch)) return k;
    return k1;
}

/* Blocks per range below which checking is not worth handing to threads (a block is tens of KB). */
#define CHECK_RANGE_MIN 4

/* The checks run in the rank's workers when it has more than one thread (they are a tenth of a
 * warm extraction); the first failing block in read order is reported. */
static axb_status verify_blocks(axb_db *db, int64_t nu, const int64_t *uniq, const float *buf, axb_error *err)
{
    axb_pool *pool = NULL;
    if (db->threads > 1) AXB_TRY(axb_db_worker_pool(db, &pool, err));
    verify_ctx x = {db, uniq, buf};
    const int64_t bad = axb_pool_first_failure(pool, nu, 2 * (int64_t)db->threads, CHECK_RANGE_MIN, check_some, &x);
    return bad < nu ? check_block(db, uniq[bad], buf + bad * axb_db_block_floats(db), err) : AXB_OK;
}

/* One H5Dread of the sorted distinct elements uniq[0..nu) into buf[nu][block]. */
static axb_status read_sorted(axb_db *db, int64_t nu, const int64_t *uniq, axb_io_mode mode, float *buf, axb_error *err)
{
    merged_impl *m = db->impl;
    if (m->raw) {
        axb_pool *pool = NULL;
        if (db->threads > 1) AXB_TRY(axb_db_worker_pool(db, &pool, err));
        AXB_TRY(axb_merged_raw_read(m->raw, nu, uniq, buf, pool, 2 * (int64_t)db->threads, &db->stats, err));
        return verify_blocks(db, nu, uniq, buf, err);
    }
    int64_t bytes = 0;
    AXB_TRY_CTX(err,
                axb_h5_read_runs(m->dset, 0, nu, uniq, mode == AXB_IO_COLLECTIVE, H5T_NATIVE_FLOAT, buf, &bytes, err),
                "%s", db->info.files[0]);
    db->stats.read_calls++;
    db->stats.bytes_read += bytes;
    return verify_blocks(db, nu, uniq, buf, err);
}

static axb_status merged_read_elements(axb_db *db, int64_t n, const int64_t *elems, axb_io_mode mode, float *out,
                                       axb_error *err)
{
    bool sorted_unique = true;
    for (int64_t k = 1; k < n && sorted_unique; k++) sorted_unique = elems[k] > elems[k - 1];
    if (sorted_unique) return read_sorted(db, n, elems, mode, out, err);

    int64_t *uniq, *inv, nu;
    AXB_TRY(axb_unique_i64(elems, n, &uniq, &nu, &inv, err));
    const int64_t bf = axb_db_block_floats(db);
    float *tmp = malloc((size_t)nu * (size_t)bf * sizeof *tmp);
    axb_status st = tmp ? read_sorted(db, nu, uniq, mode, tmp, err)
                        : axb_error_set(err, AXB_ERR_NOMEM, "%lld element blocks", (long long)nu);
    if (!st)
        for (int64_t k = 0; k < n; k++) memcpy(out + k * bf, tmp + inv[k] * bf, (size_t)bf * sizeof *out);
    free(tmp);
    free(uniq);
    free(inv);
    return st;
}

const axb_db_ops axb_db_merged_ops = {
    .name = "merged",
    .read_meta = merged_read_meta,
    .open_data = merged_open_data,
    .read_elements = merged_read_elements,
    .close = merged_close,
};
