/* Repacking an original-layout database into the merged layout (see repack.h for the plan). The
 * file structure is defined collectively with netCDF-C (so the result is valid netCDF-4 with
 * dimension scales); element data flow slab by slab: one read through the database layer, one
 * collective write of a contiguous range of output elements. */
#define _GNU_SOURCE /* sync_file_range */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "axibulk/timefmt.h"
#include "axibulk/db.h"
#include "io/hdf5/block_writer.h"
#include "axibulk/repack.h"

static axb_status nc_fail(int rc, axb_error *err, const char *what, const char *path)
{
    return axb_error_set(err, AXB_ERR_IO, "%s: %s: %s", path, what, nc_strerror(rc));
}
#define NC_TRY(call, what, path)                                                                   \
    do {                                                                                           \
        int nc_rc_ = (call);                                                                       \
        if (nc_rc_ != NC_NOERR) return nc_fail(nc_rc_, err, (what), (path));                       \
    } while (0)

#define REPACK_SLAB_MAX ((int64_t)128 << 20)
/* slabs listed ahead of the one transposed: with one, the reader went idle whenever a slab needed
 * few new chunks, until the next slab began */
#define REPACK_READ_AHEAD 2

static axb_status agree(MPI_Comm comm, axb_status st, axb_error *err)
{
    int mine = st != AXB_OK, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any && !mine) return axb_error_set(err, AXB_ERR_REMOTE, "failed on another rank");
    return st;
}

/* The rank-0 outcome and message for everyone. */
static axb_status share(MPI_Comm comm, int rank, axb_status st, axb_error *err)
{
    axb_error e = *err;
    e.code = st;
    MPI_Bcast(&e, (int)sizeof e, MPI_BYTE, 0, comm);
    if (rank == 0 || e.code == AXB_OK) return rank == 0 ? st : AXB_OK;
    *err = e;
    err->code = AXB_ERR_REMOTE;
    return AXB_ERR_REMOTE;
}

static bool exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

static int64_t file_size(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 ? (int64_t)sb.st_size : 0;
}

static axb_status mkdir_p(const char *dir, axb_error *err)
{
    char buf[AXB_PATH_MAX];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return axb_error_set(err, AXB_ERR_IO, "%s: cannot create: %s", buf, strerror(errno));
            *p = '/';
        }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return axb_error_set(err, AXB_ERR_IO, "%s: cannot create: %s", buf, strerror(errno));
    return AXB_OK;
}

/* ---- the record of finished elements (rank 0 only), replaced atomically at every checkpoint ---- */

static axb_status done_write(const char *path, int64_t nelem, int deflate, const uint8_t *done,
                             axb_error *err)
{
    char tmp[AXB_PATH_MAX + 128];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) return axb_error_set(err, AXB_ERR_IO, "%s: %s", tmp, strerror(errno));
    fprintf(f, "axibulk-repack-done 1 %lld %d\n", (long long)nelem, deflate);
    bool ok = fwrite(done, 1, (size_t)nelem, f) == (size_t)nelem && fflush(f) == 0 && fsync(fileno(f)) == 0;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) return axb_error_set(err, AXB_ERR_IO, "%s: %s", path, strerror(errno));
    return AXB_OK;
}

/* Starts the writeback of the file's dirty pages and returns at once (Linux; elsewhere the
 * checkpoint's sync does all of it). */
static void start_writeback(int fd)
{
#ifdef SYNC_FILE_RANGE_WRITE
    if (fd >= 0) (void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd;
#endif
}

/* Collective: the data written so far reach the disk (nc_sync, or for direct writes the end of
 * the open stream and fdatasync), then rank 0 records every element any rank has finished
 * (done[] of all ranks OR-ed). */
static axb_status checkpoint(MPI_Comm comm, int rank, int ncid, axb_block_writer *rf, const char *partial,
                             const char *done_path, int64_t nelem, int deflate, uint8_t *done, axb_error *err)
{
    axb_status st = AXB_OK;
    if (rf) {
        st = axb_block_writer_end(rf, err);
        if (!st) st = axb_block_writer_sync(rf, err);
    } else {
        int rc = nc_sync(ncid);
        if (rc != NC_NOERR) st = nc_fail(rc, err, "sync", partial);
    }
    st = agree(comm, st, err);
    if (st) return st;
    for (int64_t off = 0; off < nelem; off += 1 << 30) {
        const int cnt = (int)(nelem - off < (1 << 30) ? nelem - off : (1 << 30));
        MPI_Allreduce(MPI_IN_PLACE, done + off, cnt, MPI_UINT8_T, MPI_BOR, comm);
    }
    return share(comm, rank, rank == 0 ? done_write(done_path, nelem, deflate, done, err) : AXB_OK, err);
}

static axb_status done_read(const char *path, int64_t nelem, int deflate, uint8_t *done, axb_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return axb_error_set(err, AXB_ERR_IO, "cannot resume: %s: %s", path, strerror(errno));
    long long n = -1;
    int d = -2, v = 0;
    axb_status st = AXB_OK;
    if (fscanf(f, "axibulk-repack-done %d %lld %d", &v, &n, &d) != 3 || fgetc(f) != '\n' || v != 1)
        st = axb_error_set(err, AXB_ERR_FORMAT, "cannot resume: %s is not a repack record", path);
    else if (n != nelem || d != deflate)
        st = axb_error_set(err, AXB_ERR_ARG,
                           "cannot resume: %s was started with %lld elements and storage %d, this run "
                           "has %lld and %d", path, n, d, (long long)nelem, deflate);
    else if (fread(done, 1, (size_t)nelem, f) != (size_t)nelem)
        st = axb_error_set(err, AXB_ERR_FORMAT, "cannot resume: %s is truncated", path);
    fclose(f);
    return st;
}

/* ---- file structure ---- */

typedef struct out_ids {
    int ncid, merged, stf, stf_d;
} out_ids;

/* Copies every variable of the source's /Mesh group, permuting per-element arrays into the new
 * element order (the definitions here; the data in write_mesh). */
static axb_status define_file(int src, int dst, const axb_db_info *in, int deflate, out_ids *o,
                              int *src_mesh, int *dst_mesh, const char *path, axb_error *err)
{
    int natts;
    NC_TRY(nc_inq_natts(src, &natts), "attributes", in->files[0]);
    for (int a = 0; a < natts; a++) {
        char name[NC_MAX_NAME + 1];
        NC_TRY(nc_inq_attname(src, NC_GLOBAL, a, name), "attribute name", in->files[0]);
        NC_TRY(nc_copy_att(src, NC_GLOBAL, name, dst, NC_GLOBAL), name, path);
    }
    const char *creator = "axibulk " AXB_VERSION_STRING " repack";
    NC_TRY(nc_put_att_text(dst, NC_GLOBAL, "repacked by", strlen(creator), creator), "attribute", path);
    int d_pts, d_snap, d_ipol, d_jpol, d_nvars, d_elem;
    NC_TRY(nc_def_dim(dst, "gllpoints_all", (size_t)in->npoints, &d_pts), "dimension", path);
    NC_TRY(nc_def_dim(dst, "snapshots", (size_t)in->ndumps, &d_snap), "dimension", path);
    NC_TRY(nc_def_dim(dst, "ipol", (size_t)in->npol + 1, &d_ipol), "dimension", path);
    NC_TRY(nc_def_dim(dst, "jpol", (size_t)in->npol + 1, &d_jpol), "dimension", path);
    NC_TRY(nc_def_dim(dst, "nvars", (size_t)in->nvars, &d_nvars), "dimension", path);
    NC_TRY(nc_def_dim(dst, "elements", (size_t)in->nelem, &d_elem), "dimension", path);
    (void)d_pts;
    NC_TRY(nc_def_var(dst, "stf_dump", NC_FLOAT, 1, &d_snap, &o->stf), "stf_dump", path);
    NC_TRY(nc_def_var(dst, "stf_d_dump", NC_FLOAT, 1, &d_snap, &o->stf_d), "stf_d_dump", path);
    /* Instaseis' axis order (elements, nvars, jpol, ipol, snapshots); jpol is the ξ index */
    const int dims[5] = {d_elem, d_nvars, d_jpol, d_ipol, d_snap};
    NC_TRY(nc_def_var(dst, "MergedSnapshots", NC_FLOAT, 5, dims, &o->merged), "MergedSnapshots", path);
    /* every element is written: filling first would write the whole file twice (parallel HDF5
     * allocates the dataset when it is created) */
    NC_TRY(nc_def_var_fill(dst, o->merged, NC_NOFILL, NULL), "MergedSnapshots fill", path);
    if (deflate < 0) {
        NC_TRY(nc_def_var_chunking(dst, o->merged, NC_CONTIGUOUS, NULL), "MergedSnapshots storage", path);
    } else {
        const size_t chunk[5] = {1, (size_t)in->nvars, (size_t)in->npol + 1, (size_t)in->npol + 1, (size_t)in->ndumps};
        NC_TRY(nc_def_var_chunking(dst, o->merged, NC_CHUNKED, chunk), "MergedSnapshots chunks", path);
        NC_TRY(nc_def_var_deflate(dst, o->merged, 1, 1, deflate), "MergedSnapshots deflate", path);
    }
    NC_TRY(nc_inq_grp_ncid(src, "Mesh", src_mesh), "group Mesh", in->files[0]);
    NC_TRY(nc_def_grp(dst, "Mesh", dst_mesh), "group Mesh", path);
    int ndims, ndimids[NC_MAX_DIMS];
    NC_TRY(nc_inq_dimids(*src_mesh, &ndims, ndimids, 0), "Mesh dimensions", in->files[0]);
    for (int k = 0; k < ndims; k++) {
        char name[NC_MAX_NAME + 1];
        size_t len;
        int id;
        NC_TRY(nc_inq_dim(*src_mesh, ndimids[k], name, &len), "Mesh dimension", in->files[0]);
        NC_TRY(nc_def_dim(*dst_mesh, name, len, &id), "Mesh dimension", path);
    }
    int nvars;
    NC_TRY(nc_inq_varids(*src_mesh, &nvars, NULL), "Mesh variables", in->files[0]);
    int *ids = malloc((size_t)(nvars ? nvars : 1) * sizeof *ids);
    if (!ids) return axb_error_set(err, AXB_ERR_NOMEM, "Mesh variables");
    axb_status st = AXB_OK;
    int rc = nc_inq_varids(*src_mesh, &nvars, ids);
    for (int v = 0; v < nvars && rc == NC_NOERR; v++) {
        char name[NC_MAX_NAME + 1];
        nc_type type;
        int nd, vd[NC_MAX_VAR_DIMS], od[NC_MAX_VAR_DIMS], id;
        rc = nc_inq_var(*src_mesh, ids[v], name, &type, &nd, vd, NULL);
        for (int k = 0; k < nd && rc == NC_NOERR; k++) {
            char dn[NC_MAX_NAME + 1];
            rc = nc_inq_dimname(*src_mesh, vd[k], dn);
            if (rc == NC_NOERR) rc = nc_inq_dimid(*dst_mesh, dn, &od[k]);
            if (rc != NC_NOERR) rc = nc_inq_dimid(dst, dn, &od[k]); /* root dimensions, e.g. gllpoints_all */
        }
        if (rc == NC_NOERR) rc = nc_def_var(*dst_mesh, name, type, nd, od, &id);
        if (rc != NC_NOERR) st = nc_fail(rc, err, name, path);
    }
    if (rc != NC_NOERR && !st) st = nc_fail(rc, err, "Mesh", path);
    free(ids);
    return st;
}

/* Rank 0 copies the mesh; per-element arrays (first dimension "elements") are permuted. */
static axb_status write_mesh(int src_mesh, int dst_mesh, int64_t nelem, const int64_t *order,
                             const char *path, axb_error *err)
{
    int nvars;
    NC_TRY(nc_inq_varids(src_mesh, &nvars, NULL), "Mesh variables", path);
    int ids[256];
    if (nvars > 256) return axb_error_set(err, AXB_ERR_UNSUPPORTED, "more than 256 mesh variables");
    NC_TRY(nc_inq_varids(src_mesh, &nvars, ids), "Mesh variables", path);
    for (int v = 0; v < nvars; v++) {
        char name[NC_MAX_NAME + 1], d0[NC_MAX_NAME + 1] = "";
        nc_type type;
        int nd, vd[NC_MAX_VAR_DIMS], out;
        size_t tsize, total = 1, len0 = 0;
        NC_TRY(nc_inq_var(src_mesh, ids[v], name, &type, &nd, vd, NULL), "Mesh variable", path);
        NC_TRY(nc_inq_type(src_mesh, type, NULL, &tsize), name, path);
        for (int k = 0; k < nd; k++) {
            size_t len;
            NC_TRY(nc_inq_dimlen(src_mesh, vd[k], &len), name, path);
            if (k == 0) {
                len0 = len;
                NC_TRY(nc_inq_dimname(src_mesh, vd[0], d0), name, path);
            }
            total *= len;
        }
        char *a = malloc(total * tsize + 1), *b = malloc(total * tsize + 1);
        if (!a || !b) {
            free(a);
            free(b);
            return axb_error_set(err, AXB_ERR_NOMEM, "Mesh/%s", name);
        }
        int rc = nc_get_var(src_mesh, ids[v], a);
        const char *data = a;
        if (rc == NC_NOERR && nd > 0 && !strcmp(d0, "elements") && (int64_t)len0 == nelem) {
            const size_t row = total / len0 * tsize;
            for (int64_t e = 0; e < nelem; e++) memcpy(b + (size_t)e * row, a + (size_t)order[e] * row, row);
            data = b;
        }
        if (rc == NC_NOERR) rc = nc_inq_varid(dst_mesh, name, &out);
        if (rc == NC_NOERR) rc = nc_put_var(dst_mesh, out, data);
        free(a);
        free(b);
        if (rc != NC_NOERR) return nc_fail(rc, err, name, path);
    }
    return AXB_OK;
}

/* ---- the run ---- */

typedef struct slab {
    int64_t start, count;       /* output element range */
} slab;

static axb_status prepare_dst(const axb_repack_opts *o, const axb_db_info *in, int64_t block_bytes,
                              const char *final, const char *partial, const char *done, axb_error *err)
{
    if (exists(final) && !o->force && !o->resume)
        return axb_error_set(err, AXB_ERR_IO, "%s exists (use --force to replace it)", final);
    if (o->resume) {
        AXB_CHECK(err, exists(partial) && exists(done), AXB_ERR_IO,
                  "cannot resume: no unfinished repack in %s (%s or its record is missing)", o->dst, partial);
        return AXB_OK;
    }
    AXB_CHECK(err, !exists(partial) || o->force, AXB_ERR_IO,
              "%s exists from an unfinished run: use --resume to continue it or --force to start again",
              partial);
    AXB_TRY(mkdir_p(o->dst, err));
    unlink(partial);
    unlink(done);
    struct statvfs vfs;
    const double need = (double)in->nelem * (double)block_bytes * 1.02 + 64.0 * (1 << 20);
    if (statvfs(o->dst, &vfs) == 0) {
        const double have = (double)vfs.f_bavail * (double)vfs.f_frsize;
        AXB_CHECK(err, have >= need, AXB_ERR_IO,
                  "%s: not enough free disk: the merged file needs up to %.2f GB, %.2f GB are free",
                  o->dst, need / 1e9, have / 1e9);
    }
    return AXB_OK;
}

axb_status axb_repack_run(MPI_Comm comm, const axb_repack_opts *o, FILE *progress, axb_repack_result *res,
                          axb_error *err)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    memset(res, 0, sizeof *res);
    const double t0 = axb_wall_seconds();
    AXB_CHECK(err, o->deflate >= -1 && o->deflate <= 9, AXB_ERR_ARG, "--deflate %d: must be 0..9", o->deflate);
    AXB_CHECK(err, o->memory_bytes > 0, AXB_ERR_ARG, "--memory must be positive");
    AXB_CHECK(err, !(o->write_mode == AXB_REPACK_WRITE_DIRECT && o->deflate >= 0), AXB_ERR_ARG,
              "--write-mode direct needs contiguous storage (not --deflate)");
    /* may still fall back to collective below, when the dataset's block is not where expected */
    bool direct = o->deflate < 0 && o->write_mode != AXB_REPACK_WRITE_COLLECTIVE;
    axb_db *db = NULL;
    AXB_TRY(axb_db_open(comm, o->src, &db, err));
    const axb_db_info *in = axb_db_get_info(db);
    const axb_mesh *mesh = axb_db_get_mesh(db);
    /* half of --memory keeps source chunks between slabs (each is wanted by several), half is
     * slabs in flight */
    axb_db_set_bulk_cache(db, o->memory_bytes / 2);
    axb_status st = AXB_OK;
    if (in->dump != AXB_DUMP_DISPL_ONLY)
        st = axb_error_set(err, AXB_ERR_UNSUPPORTED,
                           "%s: %s databases cannot be merged (the merged layout holds displacement only)",
                           o->src, axb_dump_type_name(in->dump));
    else if (in->layout != AXB_LAYOUT_ORIGINAL)
        st = axb_error_set(err, AXB_ERR_UNSUPPORTED, "%s is already in the merged layout", o->src);
    st = agree(comm, st, err);
    char final[AXB_PATH_MAX + 32], partial[AXB_PATH_MAX + 48], done_path[AXB_PATH_MAX + 64];
    snprintf(final, sizeof final, "%s/merged_output.nc4", o->dst);
    snprintf(partial, sizeof partial, "%s.partial", final);
    snprintf(done_path, sizeof done_path, "%s.done", partial);
    const int64_t nelem = in->nelem, block = axb_db_block_floats(db);
    const int64_t block_bytes = block * (int64_t)sizeof(float);
    if (!st) st = share(comm, rank, rank == 0 ? prepare_dst(o, in, block_bytes, final, partial, done_path, err) : AXB_OK, err);

    int64_t *order = NULL;
    uint8_t *done = NULL;
    float *buf = NULL;
    slab *slabs = NULL;
    if (!st) {
        order = malloc((size_t)nelem * sizeof *order);
        done = calloc((size_t)nelem, 1);
        st = order && done ? axb_hilbert_order(nelem, mesh->mp_s, mesh->mp_z, order, err)
                           : axb_error_set(err, AXB_ERR_NOMEM, "element order");
        st = agree(comm, st, err);
    }
    if (!st && o->resume) {
        st = share(comm, rank, rank == 0 ? done_read(done_path, nelem, o->deflate, done, err) : AXB_OK, err);
        if (!st) MPI_Bcast(done, (int)nelem, MPI_BYTE, 0, comm);
    }

    /* the file: structure defined collectively, mesh and STF written by rank 0 */
    out_ids ids = {-1, -1, -1, -1};
    if (!st && !(o->resume && direct)) {
        int rc;
        if (o->resume) {
            rc = nc_open_par(partial, NC_WRITE, comm, MPI_INFO_NULL, &ids.ncid);
        } else {
            /* Large objects (the element data) start on a page boundary, as direct writes of
             * whole pages need. netCDF keeps this setting per process: it is restored at once
             * (1, 1 is HDF5's default, "no alignment"). */
            int thr = 1, al = 1;
            if (nc_get_alignment(&thr, &al) != NC_NOERR || al <= 0) thr = al = 1;
            nc_set_alignment(1 << 20, AXB_BLOCK_WRITER_ALIGN);
            rc = nc_create_par(partial, NC_NETCDF4 | NC_CLOBBER, comm, MPI_INFO_NULL, &ids.ncid);
            nc_set_alignment(thr, al);
        }
        if (rc != NC_NOERR)
            st = axb_error_set(err, AXB_ERR_IO, "%s: cannot %s: %s%s", partial, o->resume ? "open" : "create",
                               nc_strerror(rc), o->resume ? " (damaged by the kill? start again with --force)" : "");
        st = agree(comm, st, err);
    }
    if (!st && !o->resume) {
        int src = -1, src_mesh = -1, dst_mesh = -1;
        int rc = nc_open(in->files[0], NC_NOWRITE, &src);
        st = rc == NC_NOERR ? define_file(src, ids.ncid, in, o->deflate, &ids, &src_mesh, &dst_mesh, partial, err)
                            : nc_fail(rc, err, "open", in->files[0]);
        if (!st && (rc = nc_enddef(ids.ncid)) != NC_NOERR) st = nc_fail(rc, err, "end of definitions", partial);
        st = agree(comm, st, err);
        if (!st && rank == 0) {
            st = write_mesh(src_mesh, dst_mesh, nelem, order, in->files[0], err);
            float *s1 = malloc((size_t)in->ndumps * sizeof *s1), *s2 = malloc((size_t)in->ndumps * sizeof *s2);
            if (!st && s1 && s2) {
                for (int64_t t = 0; t < in->ndumps; t++) {
                    s1[t] = (float)axb_db_get_stf(db)[t];
                    s2[t] = (float)axb_db_get_stf_d(db)[t];
                }
                if ((rc = nc_put_var_float(ids.ncid, ids.stf, s1)) != NC_NOERR ||
                    (rc = nc_put_var_float(ids.ncid, ids.stf_d, s2)) != NC_NOERR)
                    st = nc_fail(rc, err, "stf", partial);
            } else if (!st)
                st = axb_error_set(err, AXB_ERR_NOMEM, "stf");
            free(s1);
            free(s2);
        }
        if (src >= 0) nc_close(src);
        st = agree(comm, st, err);
    } else if (!st && !direct) {
        int rc = nc_inq_varid(ids.ncid, "MergedSnapshots", &ids.merged);
        if (rc != NC_NOERR) st = nc_fail(rc, err, "MergedSnapshots", partial);
        st = agree(comm, st, err);
    }

    /* Direct: the structure is complete and closed; the element data go straight into the
     * dataset's block, allocated when it was defined (parallel HDF5 allocates early; no fill). */
    int64_t data_offset = 0;
    if (!st && direct && ids.ncid >= 0) {
        int rc = nc_close(ids.ncid);
        ids.ncid = -1;
        st = agree(comm, rc == NC_NOERR ? AXB_OK : nc_fail(rc, err, "close after definitions", partial), err);
    }
    if (!st && direct) {
        int64_t ext[2] = {0, 0};
        if (rank == 0) {
            st = axb_h5_contiguous_extent(partial, "/MergedSnapshots", &ext[0], &ext[1], err);
            if (st == AXB_ERR_FORMAT || st == AXB_ERR_IO)
                axb_error_prefix(err, "cannot %s", o->resume ? "resume (damaged by the kill? start again with --force)" : "write");
            /* anything unexpected in where HDF5 put the block: write collectively after all */
            if (st == AXB_ERR_UNSUPPORTED || (!st && (ext[1] != nelem * block_bytes || ext[0] % (int64_t)sizeof(float)))) {
                ext[0] = -1;
                st = AXB_OK;
            }
        }
        st = share(comm, rank, st, err);
        MPI_Bcast(ext, 2, MPI_INT64_T, 0, comm);
        data_offset = ext[0];
        if (!st && data_offset < 0) {
            direct = false;
            int rc = nc_open_par(partial, NC_WRITE, comm, MPI_INFO_NULL, &ids.ncid);
            if (rc == NC_NOERR) rc = nc_inq_varid(ids.ncid, "MergedSnapshots", &ids.merged);
            st = agree(comm, rc == NC_NOERR ? AXB_OK : nc_fail(rc, err, "reopen", partial), err);
        }
    }
    if (!st && !direct) {
        int rc = nc_var_par_access(ids.ncid, ids.merged, NC_COLLECTIVE);
        if (rc != NC_NOERR) st = nc_fail(rc, err, "collective access", partial);
        st = agree(comm, st, err);
    }

    /* this rank's slabs: its contiguous share of output elements, minus those already done */
    /* Slabs of at most REPACK_SLAB_MAX: the disk writes one back while the next is read, and
     * the buffers stay small enough to be reused (measured on a 1.28 GB database, 1 rank: 4.0 s
     * with 128 MB slabs, 5.2-5.9 s with 256 MB-1 GB ones, mostly kernel time in fresh pages). */
    /* direct writes keep two slabs in flight (one written while the next is read) */
    const int64_t budget = direct ? o->memory_bytes / 4 : o->memory_bytes / 2;
    const int64_t slab_bytes = budget < REPACK_SLAB_MAX ? budget : REPACK_SLAB_MAX;
    int64_t per = slab_bytes / block_bytes;
    if (per < 1) per = 1;
    int64_t nslabs = 0, max_slabs = 0;
    const int64_t lo = nelem * rank / size, hi = nelem * (rank + 1) / size;
    axb_block_writer *rf = NULL;
    if (!st) {
        slabs = malloc((size_t)((hi - lo) / per + (hi - lo) + 1) * sizeof *slabs);
        if (direct) /* the writer's buffer, read into directly: no copy */
            st = axb_block_writer_open(partial, (size_t)(per * block_bytes), true, &rf, err);
        else if (!(buf = malloc((size_t)per * (size_t)block_bytes)))
            st = axb_error_set(err, AXB_ERR_NOMEM, "slab buffer of %lld elements (reduce --memory)", (long long)per);
        if (!slabs && !st) st = axb_error_set(err, AXB_ERR_NOMEM, "slab list");
        for (int64_t e = lo; !st && e < hi;) {
            if (done[e]) {
                e++;
                continue;
            }
            int64_t c = 0;
            while (e + c < hi && !done[e + c] && c < per) c++;
            slabs[nslabs++] = (slab){e, c};
            e += c;
        }
        st = agree(comm, st, err);
        MPI_Allreduce(&nslabs, &max_slabs, 1, MPI_INT64_T, MPI_MAX, comm);
    }
    int64_t todo_local = 0, todo = 0, written = 0;
    for (int64_t k = 0; k < nslabs; k++) todo_local += slabs[k].count;
    MPI_Allreduce(&todo_local, &todo, 1, MPI_INT64_T, MPI_SUM, comm);
    /* reads and writes overlap (direct), so rates are over the whole data phase */
    const double t_data = axb_wall_seconds();
    double t_phase = 0, last = t_data, last_ckpt = last;
    const double in_per_elem = nelem ? (double)in->total_bytes / (double)nelem : 0; /* source bytes */
    /* Slabs are not synced one by one: direct writes of a slab run in rawfile's helper thread,
     * collective ones are followed by sync_file_range, which starts their writeback and returns;
     * either way the disk takes a slab while the next is read. At a checkpoint (every
     * checkpoint_seconds, and after the last slab) the file is synced and only then are the
     * slabs since the previous one recorded as done: the record never names data not on disk. */
    const int wfd = st || direct ? -1 : open(partial, O_RDONLY);
    int64_t stream_next = -1; /* direct: the element the open stream continues with */
    for (int64_t k = 0; k < max_slabs && !st; k++) {
        slab s = k < nslabs ? slabs[k] : (slab){0, 0};
        axb_status ls = AXB_OK;
        float *dst = buf;
        if (direct && s.count) {
            if (s.start != stream_next) ls = axb_block_writer_begin(rf, data_offset + s.start * block_bytes, err);
            size_t head = 0;
            dst = (float *)(void *)((char *)axb_block_writer_buffer(rf, &head) + head);
        }
        /* the chunks of the next slabs are read in the background while this one is transposed
         * (the read itself lists the current slab; the first is listed before those after it);
         * asking again for a slab already listed costs nothing, and one that did not fit in the
         * chunk cache before is listed now */
        for (int64_t j = k == 0 ? 0 : k + 1; j <= k + REPACK_READ_AHEAD && j < nslabs && !ls; j++)
            ls = axb_db_prefetch_elements(db, slabs[j].count, order + slabs[j].start, err);
        if (s.count && !ls) ls = axb_db_read_elements(db, s.count, order + s.start, AXB_IO_INDEPENDENT, dst, err);
        st = agree(comm, ls, err);
        if (st) break;
        if (direct) {
            /* every rank writes its own range; they stay in step through agree() */
            if (s.count) ls = axb_block_writer_put(rf, (size_t)(s.count * block_bytes), err);
            if (!axb_block_writer_is_direct(rf)) axb_block_writer_start_writeback(rf);
            stream_next = s.start + s.count;
            st = agree(comm, ls, err);
        } else {
            const size_t start[5] = {(size_t)s.start, 0, 0, 0, 0};
            const size_t count[5] = {(size_t)s.count, (size_t)in->nvars, (size_t)in->npol + 1, (size_t)in->npol + 1, (size_t)in->ndumps};
            int rc = nc_put_vara_float(ids.ncid, ids.merged, start, count, buf);
            st = agree(comm, rc == NC_NOERR ? AXB_OK : nc_fail(rc, err, "write", partial), err);
            start_writeback(wfd);
        }
        if (st) break;
        memset(done + s.start, 1, (size_t)s.count); /* on this rank; recorded at the checkpoint */
        double tc = axb_wall_seconds();
        int ck = k + 1 == max_slabs || tc - last_ckpt >= o->checkpoint_seconds, any = 0;
        MPI_Allreduce(&ck, &any, 1, MPI_INT, MPI_MAX, comm);
        if (any) {
            st = checkpoint(comm, rank, ids.ncid, rf, partial, done_path, nelem, o->deflate, done, err);
            stream_next = -1; /* the checkpoint ended the stream */
            last_ckpt = tc = axb_wall_seconds();
        }
        t_phase = tc - t_data;
        if (st) break;
        int64_t n_here = s.count, n_all = 0;
        MPI_Allreduce(&n_here, &n_all, 1, MPI_INT64_T, MPI_SUM, comm);
        written += n_all;
        if (o->progress && rank == 0 && progress && (tc - last >= 5.0 || (k + 1 == max_slabs && tc - t0 > 5.0))) {
            /* all ranks' elements; read in source bytes */
            const double el = tc - t0, mb = (double)written * (double)block_bytes / 1e6;
            const double mb_in = (double)written * in_per_elem / 1e6;
            char eta[32];
            axb_format_duration(el / (double)written * (double)(todo - written), eta, sizeof eta);
            fprintf(progress, "repack: %lld/%lld elements (%.1f %%), read %.1f MB/s, written %.1f MB/s, ETA %s\n",
                    (long long)written, (long long)todo, 100.0 * (double)written / (double)(todo ? todo : 1),
                    mb_in / (t_phase > 0 ? t_phase : 1e-9), mb / (t_phase > 0 ? t_phase : 1e-9), eta);
            fflush(progress);
            last = tc;
        }
    }
    if (wfd >= 0) close(wfd);
    res->write_mode = direct ? AXB_REPACK_WRITE_DIRECT : AXB_REPACK_WRITE_COLLECTIVE;
    if (rf) res->page_cache_bypassed = axb_block_writer_is_direct(rf);
    axb_block_writer_close(&rf);
    if (ids.ncid >= 0) {
        int rc = nc_close(ids.ncid);
        if (!st && rc != NC_NOERR) st = nc_fail(rc, err, "close", partial);
        st = agree(comm, st, err);
    }
    if (!st && rank == 0) {
        if (rename(partial, final) != 0) st = axb_error_set(err, AXB_ERR_IO, "%s: rename: %s", final, strerror(errno));
        else unlink(done_path);
    }
    st = share(comm, rank, st, err);
    const double secs = axb_wall_seconds() - t0;
    free(order);
    free(done);
    free(buf);
    free(slabs);
    if (!st) {
        res->elements = nelem;
        res->elements_written = written;
        res->bytes_in = in->total_bytes;
        res->bytes_out = file_size(final);
        res->seconds = secs;
        res->read_mb_s = t_phase > 0 ? (double)written * in_per_elem / 1e6 / t_phase : 0;
        res->write_mb_s = t_phase > 0 ? (double)written * (double)block_bytes / 1e6 / t_phase : 0;
    }
    axb_db_close(&db);
    if (!st && o->verify) {
        st = axb_repack_verify(comm, o->src, o->dst, o->memory_bytes, err);
        res->verified = st == AXB_OK;
    }
    return st;
}
