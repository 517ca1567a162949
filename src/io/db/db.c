/* The database front end: picks the backend for what discovery found, lets rank 0 read the
 * metadata, broadcasts it, opens the data on every rank, and keeps all ranks agreeing on success. */
#include <fcntl.h>
#include <unistd.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/db_memory.h"
#include "core/agree.h"
#include "core/mpi_check.h"
#include "core/pool.h"
#include "io/db/db_internal.h"
#include "io/db/db_pool.h"

/* The backends (IOR's table of operations); rank 0 picks one and broadcasts its index. */
enum { BACKEND_ORIGINAL, BACKEND_MERGED, BACKEND_MEMORY };
static const axb_db_ops *const backends[] = {
    [BACKEND_ORIGINAL] = &axb_db_original_ops,
    [BACKEND_MERGED] = &axb_db_merged_ops,
    [BACKEND_MEMORY] = &axb_db_memory_ops,
};

const char *axb_db_kind_name(axb_db_kind k)
{
    return k == AXB_DB_FORWARD ? "forward" : "reciprocal";
}

const char *axb_dump_type_name(axb_dump_type d)
{
    switch (d) {
    case AXB_DUMP_DISPL_ONLY: return "displ_only";
    case AXB_DUMP_STRAIN_ONLY: return "strain_only";
    case AXB_DUMP_FULLFIELDS: return "fullfields";
    }
    return "?";
}

const char *axb_checksums_name(axb_checksums c)
{
    switch (c) {
    case AXB_CHECKSUMS_NONE: return "none";
    case AXB_CHECKSUMS_PARTIAL: return "partial";
    case AXB_CHECKSUMS_FLETCHER32: return "fletcher32";
    case AXB_CHECKSUMS_ELEMENT: return "element-crc32";
    }
    return "?";
}

const char *axb_sim_name(axb_sim s)
{
    static const char *const names[AXB_NSIM] = {"PX", "PZ", "MZZ", "MXX_P_MYY", "MXZ_MYZ", "MXY_MXX_M_MYY"};
    return (unsigned)s < AXB_NSIM ? names[s] : "?";
}

const char *axb_excitation_name(axb_excitation e)
{
    static const char *const names[] = {"monopole", "dipole", "quadpole"};
    return (unsigned)e < 3 ? names[e] : "?";
}

/* MPI counts are int; meshes of large databases exceed 2 GiB, so broadcast in pieces. */
static axb_status bcast_bytes(void *buf, int64_t nbytes, MPI_Comm comm, axb_error *err)
{
    char *p = buf;
    while (nbytes > 0) {
        int chunk = nbytes > (1 << 30) ? (1 << 30) : (int)nbytes;
        AXB_MPI_AGREE(comm, err, MPI_Bcast(p, chunk, MPI_BYTE, 0, comm), "broadcast of the database description");
        p += chunk;
        nbytes -= chunk;
    }
    return AXB_OK;
}

/* Rank 0 read the metadata; every other rank allocates its own arrays of the broadcast sizes.
 * The broadcast struct carried rank 0's pointers, which mean nothing here, except that a NULL
 * model array is absent on rank 0 too (@p has_model records which are not). */
static void forget_pointers(axb_mesh *m, bool has_model[AXB_MESH_NMODEL])
{
    m->sem = m->fem = m->eltype = m->axis = NULL;
    m->mp_s = m->mp_z = NULL;
    m->s = m->z = m->mu = NULL;
    float **model[AXB_MESH_NMODEL];
    axb_mesh_model_slots(m, model);
    for (int k = 0; k < AXB_MESH_NMODEL; k++) {
        has_model[k] = *model[k] != NULL;
        *model[k] = NULL;
    }
}

static axb_status alloc_mesh_copy(axb_db *db, const bool has_model[AXB_MESH_NMODEL], axb_error *err)
{
    axb_mesh *m = &db->mesh;
    const int64_t ne = m->nelem, npt = m->npoints, nt = db->info.ndumps;
    const int64_t per = (int64_t)(m->npol + 1) * (m->npol + 1);
    bool ok = (m->s = malloc((size_t)npt * sizeof(float))) && (m->z = malloc((size_t)npt * sizeof(float))) &&
        (m->mu = malloc((size_t)npt * sizeof(float))) && (db->stf = malloc((size_t)nt * sizeof(double))) &&
        (db->stf_d = malloc((size_t)nt * sizeof(double)));
    float **model[AXB_MESH_NMODEL];
    axb_mesh_model_slots(m, model);
    for (int k = 0; k < AXB_MESH_NMODEL && ok; k++)
        if (has_model[k]) ok = (*model[k] = malloc((size_t)npt * sizeof(float))) != NULL;
    if (ok && m->has_elements)
        ok = (m->sem = malloc((size_t)(ne * per) * sizeof(int32_t))) &&
            (m->fem = malloc((size_t)(ne * 4) * sizeof(int32_t))) &&
            (m->eltype = malloc((size_t)ne * sizeof(int32_t))) && (m->axis = malloc((size_t)ne * sizeof(int32_t))) &&
            (m->mp_s = malloc((size_t)ne * sizeof(double))) && (m->mp_z = malloc((size_t)ne * sizeof(double)));
    return ok ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "copy of the mesh");
}

static axb_status share_metadata(axb_db *db, axb_error *err)
{
    axb_mesh *m = &db->mesh;
    AXB_TRY(bcast_bytes(&db->info, (int64_t)sizeof db->info, db->comm, err));
    AXB_MPI_AGREE(db->comm, err, MPI_Bcast(&db->npoint_vars, 1, MPI_INT, 0, db->comm),
                  "broadcast of the database description");
    /* the struct arrives with rank 0's pointers: forgotten before anything may fail */
    axb_status st = bcast_bytes(m, (int64_t)sizeof *m, db->comm, err);
    bool has_model[AXB_MESH_NMODEL];
    if (db->rank != 0) forget_pointers(m, has_model);
    AXB_TRY(st);
    if (db->rank != 0) st = alloc_mesh_copy(db, has_model, err);
    /* a rank without memory must not leave the others inside the broadcasts below */
    AXB_TRY(axb_agree(db->comm, st, err));
    const int64_t ne = m->nelem, npt = m->npoints, nt = db->info.ndumps;
    const int64_t per = (int64_t)(m->npol + 1) * (m->npol + 1);
    AXB_TRY(bcast_bytes(m->s, npt * 4, db->comm, err));
    AXB_TRY(bcast_bytes(m->z, npt * 4, db->comm, err));
    AXB_TRY(bcast_bytes(m->mu, npt * 4, db->comm, err));
    float **model[AXB_MESH_NMODEL];
    axb_mesh_model_slots(m, model);
    for (int k = 0; k < AXB_MESH_NMODEL; k++)
        if (*model[k]) AXB_TRY(bcast_bytes(*model[k], npt * 4, db->comm, err));
    AXB_TRY(bcast_bytes(db->stf, nt * 8, db->comm, err));
    AXB_TRY(bcast_bytes(db->stf_d, nt * 8, db->comm, err));
    if (m->has_elements) {
        AXB_TRY(bcast_bytes(m->sem, ne * per * 4, db->comm, err));
        AXB_TRY(bcast_bytes(m->fem, ne * 16, db->comm, err));
        AXB_TRY(bcast_bytes(m->eltype, ne * 4, db->comm, err));
        AXB_TRY(bcast_bytes(m->axis, ne * 4, db->comm, err));
        AXB_TRY(bcast_bytes(m->mp_s, ne * 8, db->comm, err));
        AXB_TRY(bcast_bytes(m->mp_z, ne * 8, db->comm, err));
    }
    return AXB_OK;
}

/* Rank 0 only: what @p path names (a memory database, or files on disk) and its metadata. */
static axb_status read_meta(axb_db *db, const char *path, int *backend, axb_error *err)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    AXB_CHECK(err, n < AXB_PATH_MAX, AXB_ERR_ARG, "database path longer than %d characters", AXB_PATH_MAX - 1);
    memcpy(db->info.path, path, n);
    db->info.path[n] = '\0';
    axb_db_found found;
    if (!strncmp(db->info.path, AXB_DB_MEMORY_PREFIX, strlen(AXB_DB_MEMORY_PREFIX))) {
        memset(&found, 0, sizeof found);
        snprintf(found.files[0], AXB_PATH_MAX, "%s", db->info.path + strlen(AXB_DB_MEMORY_PREFIX));
        *backend = BACKEND_MEMORY;
    } else {
        AXB_TRY(axb_db_discover(db->info.path, &found, err));
        *backend = found.layout == AXB_LAYOUT_MERGED ? BACKEND_MERGED : BACKEND_ORIGINAL;
    }
    return backends[*backend]->read_meta(db, &found, err);
}

axb_status axb_db_open(MPI_Comm comm, const char *path, axb_db **out, axb_error *err)
{
    *out = NULL;
    axb_db *db = calloc(1, sizeof *db);
    if (!db) return axb_error_set(err, AXB_ERR_NOMEM, "database");
    db->bulk_cache_bytes = (int64_t)64 << 20;
    db->threads = axb_threads_default(comm);
    const int rc = MPI_Comm_dup(comm, &db->comm);
    if (rc != MPI_SUCCESS) {
        free(db);
        return axb_mpi_error(err, rc, "cannot duplicate the communicator");
    }
    axb_status st = AXB_OK;
    /* failures of collective calls on this communicator come back as codes, never as an abort */
    AXB_MPI_CHECK(st, err, MPI_Comm_set_errhandler(db->comm, MPI_ERRORS_RETURN), "error handler");
    AXB_MPI_CHECK(st, err, MPI_Comm_rank(db->comm, &db->rank), "rank");
    int backend = -1;
    if (!st && db->rank == 0) st = read_meta(db, path, &backend, err);
    /* the index travels before the verdict: one agreement covers rank 0's reading and the broadcast */
    AXB_MPI_CHECK(st, err, MPI_Bcast(&backend, 1, MPI_INT, 0, db->comm), "broadcast of the layout");
    st = axb_agree(db->comm, st, err);
    if (!st) {
        db->ops = backends[backend];
        st = axb_agree(db->comm, share_metadata(db, err), err);
    }
    if (!st) st = axb_agree(db->comm, db->ops->open_data(db, err), err);
    if (st) {
        axb_db_close(&db);
        return st;
    }
    *out = db;
    return AXB_OK;
}

void axb_db_close(axb_db **pdb)
{
    if (!pdb || !*pdb) return;
    axb_db *db = *pdb;
    if (db->ops && db->ops->close) db->ops->close(db);
    axb_pool_destroy(&db->pool); /* after the backend: its readers wait for their tasks */
    axb_mesh_free(&db->mesh);
    free(db->stf);
    free(db->stf_d);
    MPI_Comm_free(&db->comm);
    free(db);
    *pdb = NULL;
}

const axb_db_info *axb_db_get_info(const axb_db *db)
{
    return &db->info;
}
const axb_mesh *axb_db_get_mesh(const axb_db *db)
{
    return &db->mesh;
}
const double *axb_db_get_stf(const axb_db *db)
{
    return db->stf;
}
const double *axb_db_get_stf_d(const axb_db *db)
{
    return db->stf_d;
}
const char *axb_db_layout_name(const axb_db *db)
{
    return db->ops->name;
}
int axb_db_point_vars(const axb_db *db)
{
    return db->npoint_vars;
}

int64_t axb_db_block_floats(const axb_db *db)
{
    const int64_t np1 = db->info.npol + 1;
    return db->info.nvars * np1 * np1 * db->info.ndumps;
}

void axb_db_set_bulk_cache(axb_db *db, int64_t bytes)
{
    db->bulk_cache_bytes = bytes > 0 ? bytes : 0;
}

void axb_db_set_threads(axb_db *db, int n)
{
    if (n > 0) db->threads = n;
}

int axb_db_get_threads(const axb_db *db)
{
    return db->threads;
}

axb_status axb_db_worker_pool(axb_db *db, axb_pool **pool, axb_error *err)
{
    if (!db->pool) AXB_TRY(axb_pool_create(axb_pool_workers(db->threads), &db->pool, err));
    *pool = db->pool;
    return AXB_OK;
}

void axb_db_get_io_stats(const axb_db *db, axb_io_stats *stats)
{
    *stats = db->stats;
    if (db->ops && db->ops->add_stats) db->ops->add_stats(db, stats);
}

axb_status axb_db_sum_io_stats(const axb_db *db, axb_io_stats *all, axb_error *err)
{
    axb_io_stats me;
    axb_db_get_io_stats(db, &me);
    double d[5] = {me.read_s, me.checksum_s, me.inflate_s, me.unshuffle_s, me.transpose_s}, ds[5];
    int64_t n[4] = {me.read_calls, me.bytes_read, me.chunks_decoded, me.stored_bytes}, ns[4];
    axb_status st = AXB_OK;
    AXB_MPI_CHECK(st, err, MPI_Allreduce(d, ds, 5, MPI_DOUBLE, MPI_SUM, db->comm), "read statistics");
    AXB_MPI_CHECK(st, err, MPI_Allreduce(n, ns, 4, MPI_INT64_T, MPI_SUM, db->comm), "read statistics");
    st = axb_agree(db->comm, st, err);
    if (st) return st;
    *all = (axb_io_stats){.read_calls = ns[0],
                          .bytes_read = ns[1],
                          .read_s = ds[0],
                          .checksum_s = ds[1],
                          .inflate_s = ds[2],
                          .unshuffle_s = ds[3],
                          .transpose_s = ds[4],
                          .chunks_decoded = ns[2],
                          .stored_bytes = ns[3]};
    return AXB_OK;
}

void axb_db_drop_page_cache(const axb_db *db)
{
    for (int k = 0; k < db->info.nfiles; k++) {
        int fd = open(db->info.files[k], O_RDONLY);
        if (fd < 0) continue;
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        close(fd);
    }
}

/* Arguments are checked on every rank before any collective read, and the verdict is shared, so
 * one rank's bad request cannot leave the others inside H5Dread. */
static axb_status check_ids(const axb_db *db, int64_t n, const int64_t *ids, int64_t limit, const char *what,
                            axb_io_mode mode, axb_error *err)
{
    axb_status st = AXB_OK;
    if (n < 0 || (n > 0 && !ids)) st = axb_error_set(err, AXB_ERR_ARG, "bad %s list", what);
    for (int64_t k = 0; k < n && !st; k++)
        if (ids[k] < 0 || ids[k] >= limit)
            st = axb_error_set(err, AXB_ERR_RANGE, "%s %lld is outside 0..%lld", what, (long long)ids[k],
                               (long long)limit - 1);
    return mode == AXB_IO_COLLECTIVE ? axb_agree(db->comm, st, err) : st;
}

axb_status axb_db_read_elements(axb_db *db, int64_t n, const int64_t *elems, axb_io_mode mode, float *out,
                                axb_error *err)
{
    if (!db->mesh.has_elements)
        return axb_error_set(err, AXB_ERR_UNSUPPORTED, "element reads need a displ_only database (this one is %s)",
                             axb_dump_type_name(db->info.dump));
    AXB_TRY(check_ids(db, n, elems, db->mesh.nelem, "element", mode, err));
    return db->ops->read_elements(db, n, elems, mode, out, err);
}

axb_status axb_db_prefetch_elements(axb_db *db, int64_t n, const int64_t *elems, axb_error *err)
{
    if (!db->mesh.has_elements || !db->ops->prefetch_elements) return AXB_OK;
    AXB_TRY(check_ids(db, n, elems, db->mesh.nelem, "element", AXB_IO_INDEPENDENT, err));
    return db->ops->prefetch_elements(db, n, elems, err);
}

axb_status axb_db_expect_elements(axb_db *db, int64_t n, const int64_t *elems, axb_error *err)
{
    if (!db->mesh.has_elements || !db->ops->expect_elements) return AXB_OK;
    AXB_TRY(check_ids(db, n, elems, db->mesh.nelem, "element", AXB_IO_INDEPENDENT, err));
    return db->ops->expect_elements(db, n, elems, err);
}

axb_status axb_db_read_points(axb_db *db, int64_t n, const int64_t *ids, axb_io_mode mode, float *out, axb_error *err)
{
    AXB_TRY(check_ids(db, n, ids, db->info.npoints, "point", mode, err));
    /* a layout without point reads leaves the operation out; the verdict is the same on every rank */
    if (!db->ops->read_points)
        return axb_error_set(err, AXB_ERR_UNSUPPORTED, "point reads: a %s database is read by whole elements",
                             db->ops->name);
    return db->ops->read_points(db, n, ids, mode, out, err);
}
