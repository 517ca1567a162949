/* The database front end: picks the backend for what discovery found, lets rank 0 read the
 * metadata, broadcasts it, opens the data on every rank, and keeps all ranks agreeing on success. */
#include <fcntl.h>
#include <unistd.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/db/db_internal.h"

static const axb_db_ops *const layouts[] = {
    [AXB_LAYOUT_ORIGINAL] = &axb_db_original_ops,
    [AXB_LAYOUT_MERGED] = &axb_db_merged_ops,
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

const char *axb_sim_name(axb_sim s)
{
    static const char *const names[AXB_NSIM] = {"PX", "PZ", "MZZ", "MXX_P_MYY", "MXZ_MYZ",
                                                "MXY_MXX_M_MYY"};
    return (unsigned)s < AXB_NSIM ? names[s] : "?";
}

const char *axb_excitation_name(axb_excitation e)
{
    static const char *const names[] = {"monopole", "dipole", "quadpole"};
    return (unsigned)e < 3 ? names[e] : "?";
}

/* MPI counts are int; meshes of large databases exceed 2 GiB, so broadcast in pieces. */
static int bcast_bytes(void *buf, int64_t nbytes, MPI_Comm comm)
{
    char *p = buf;
    while (nbytes > 0) {
        int chunk = nbytes > (1 << 30) ? (1 << 30) : (int)nbytes;
        int rc = MPI_Bcast(p, chunk, MPI_BYTE, 0, comm);
        if (rc != MPI_SUCCESS) return rc;
        p += chunk;
        nbytes -= chunk;
    }
    return MPI_SUCCESS;
}

/* Shares rank 0's outcome. The status is passed explicitly: err->code may be left over from an
 * earlier failure when the caller reuses its error object. */
static axb_status bcast_status(axb_status st, axb_error *err, int rank, MPI_Comm comm)
{
    axb_error e = *err;
    e.code = st;
    if (MPI_Bcast(&e, (int)sizeof e, MPI_BYTE, 0, comm) != MPI_SUCCESS)
        return axb_error_set(err, AXB_ERR_MPI, "broadcast of the open status failed");
    if (rank == 0) return st;
    if (e.code == AXB_OK) return AXB_OK;
    /* Every rank carries the message, but only the rank that saw the cause reports it. */
    *err = e;
    err->code = AXB_ERR_REMOTE;
    return AXB_ERR_REMOTE;
}

static axb_status share_metadata(axb_db *db, axb_error *err)
{
    axb_mesh *m = &db->mesh;
    if (bcast_bytes(&db->info, (int64_t)sizeof db->info, db->comm) ||
        MPI_Bcast(&db->npoint_vars, 1, MPI_INT, 0, db->comm) ||
        bcast_bytes(m, (int64_t)sizeof *m, db->comm))
        return axb_error_set(err, AXB_ERR_MPI, "broadcast of the database description failed");
    const int64_t ne = m->nelem, npt = m->npoints, nt = db->info.ndumps;
    const int64_t per = (int64_t)(m->npol + 1) * (m->npol + 1);
    if (db->rank != 0) {
        /* The broadcast copied rank 0's pointers; replace them with this rank's own arrays. */
        axb_mesh fresh = *m;
        fresh.sem = fresh.fem = fresh.eltype = fresh.axis = NULL;
        fresh.mp_s = fresh.mp_z = NULL;
        fresh.s = fresh.z = fresh.mu = NULL;
        *m = fresh;
        bool ok = (m->s = malloc((size_t)npt * sizeof(float))) && (m->z = malloc((size_t)npt * sizeof(float))) &&
                  (m->mu = malloc((size_t)npt * sizeof(float))) &&
                  (db->stf = malloc((size_t)nt * sizeof(double))) &&
                  (db->stf_d = malloc((size_t)nt * sizeof(double)));
        if (ok && m->has_elements)
            ok = (m->sem = malloc((size_t)(ne * per) * sizeof(int32_t))) &&
                 (m->fem = malloc((size_t)(ne * 4) * sizeof(int32_t))) &&
                 (m->eltype = malloc((size_t)ne * sizeof(int32_t))) &&
                 (m->axis = malloc((size_t)ne * sizeof(int32_t))) &&
                 (m->mp_s = malloc((size_t)ne * sizeof(double))) &&
                 (m->mp_z = malloc((size_t)ne * sizeof(double)));
        int okall, okl = ok;
        MPI_Allreduce(&okl, &okall, 1, MPI_INT, MPI_MIN, db->comm);
        if (!ok) return axb_error_set(err, AXB_ERR_NOMEM, "copy of the mesh");
        if (!okall) return axb_error_set(err, AXB_ERR_REMOTE, "out of memory on another rank");
    } else {
        int okall, okl = 1;
        MPI_Allreduce(&okl, &okall, 1, MPI_INT, MPI_MIN, db->comm);
        if (!okall) return axb_error_set(err, AXB_ERR_REMOTE, "out of memory on another rank");
    }
    int rc = bcast_bytes(m->s, npt * 4, db->comm) | bcast_bytes(m->z, npt * 4, db->comm) |
             bcast_bytes(m->mu, npt * 4, db->comm) | bcast_bytes(db->stf, nt * 8, db->comm) |
             bcast_bytes(db->stf_d, nt * 8, db->comm);
    if (m->has_elements)
        rc |= bcast_bytes(m->sem, ne * per * 4, db->comm) | bcast_bytes(m->fem, ne * 16, db->comm) |
              bcast_bytes(m->eltype, ne * 4, db->comm) | bcast_bytes(m->axis, ne * 4, db->comm) |
              bcast_bytes(m->mp_s, ne * 8, db->comm) | bcast_bytes(m->mp_z, ne * 8, db->comm);
    if (rc != MPI_SUCCESS) return axb_error_set(err, AXB_ERR_MPI, "broadcast of the mesh failed");
    return AXB_OK;
}

/* Agrees on one outcome across ranks: a rank that succeeded while another failed gets
 * AXB_ERR_REMOTE, so every rank leaves the collective phase together. */
static axb_status agree(MPI_Comm comm, axb_status st, axb_error *err)
{
    int mine = st != AXB_OK, any = 0;
    if (MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return axb_error_set(err, AXB_ERR_MPI, "status reduction failed");
    if (any && !mine) return axb_error_set(err, AXB_ERR_REMOTE, "failed on another rank");
    return st;
}

axb_status axb_db_open(MPI_Comm comm, const char *path, axb_db **out, axb_error *err)
{
    *out = NULL;
    axb_db *db = calloc(1, sizeof *db);
    if (!db) return axb_error_set(err, AXB_ERR_NOMEM, "database");
    db->bulk_cache_bytes = (int64_t)64 << 20;
    if (MPI_Comm_dup(comm, &db->comm) != MPI_SUCCESS) {
        free(db);
        return axb_error_set(err, AXB_ERR_MPI, "cannot duplicate the communicator");
    }
    MPI_Comm_rank(db->comm, &db->rank);
    axb_status st = AXB_OK;
    int layout = -1;
    if (db->rank == 0) {
        size_t n = strlen(path);
        while (n > 1 && path[n - 1] == '/') n--;
        if (n >= AXB_PATH_MAX) {
            st = axb_error_set(err, AXB_ERR_ARG, "database path longer than %d characters", AXB_PATH_MAX - 1);
        } else {
            memcpy(db->info.path, path, n);
            db->info.path[n] = '\0';
            axb_db_found found;
            st = axb_db_discover(db->info.path, &found, err);
            if (!st) {
                layout = (int)found.layout;
                st = layouts[layout]->read_meta(db, &found, err);
            }
        }
    }
    if (MPI_Bcast(&layout, 1, MPI_INT, 0, db->comm) != MPI_SUCCESS)
        st = axb_error_set(err, AXB_ERR_MPI, "broadcast failed");
    st = bcast_status(st, err, db->rank, db->comm);
    if (!st) {
        db->ops = layouts[layout];
        st = agree(db->comm, share_metadata(db, err), err);
    }
    if (!st) st = agree(db->comm, db->ops->open_data(db, err), err);
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
    axb_mesh_free(&db->mesh);
    free(db->stf);
    free(db->stf_d);
    MPI_Comm_free(&db->comm);
    free(db);
    *pdb = NULL;
}

const axb_db_info *axb_db_get_info(const axb_db *db) { return &db->info; }
const axb_mesh *axb_db_get_mesh(const axb_db *db) { return &db->mesh; }
const double *axb_db_get_stf(const axb_db *db) { return db->stf; }
const double *axb_db_get_stf_d(const axb_db *db) { return db->stf_d; }
const char *axb_db_layout_name(const axb_db *db) { return db->ops->name; }
int axb_db_point_vars(const axb_db *db) { return db->npoint_vars; }

int64_t axb_db_block_floats(const axb_db *db)
{
    const int64_t np1 = db->info.npol + 1;
    return db->info.nvars * np1 * np1 * db->info.ndumps;
}

void axb_db_set_bulk_cache(axb_db *db, int64_t bytes) { db->bulk_cache_bytes = bytes > 0 ? bytes : 0; }

void axb_db_get_io_stats(const axb_db *db, axb_io_stats *stats) { *stats = db->stats; }

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
static axb_status check_ids(const axb_db *db, int64_t n, const int64_t *ids, int64_t limit,
                            const char *what, axb_io_mode mode, axb_error *err)
{
    axb_status st = AXB_OK;
    if (n < 0 || (n > 0 && !ids)) st = axb_error_set(err, AXB_ERR_ARG, "bad %s list", what);
    for (int64_t k = 0; k < n && !st; k++)
        if (ids[k] < 0 || ids[k] >= limit)
            st = axb_error_set(err, AXB_ERR_RANGE, "%s %lld is outside 0..%lld", what,
                               (long long)ids[k], (long long)limit - 1);
    return mode == AXB_IO_COLLECTIVE ? agree(db->comm, st, err) : st;
}

axb_status axb_db_read_elements(axb_db *db, int64_t n, const int64_t *elems, axb_io_mode mode,
                                float *out, axb_error *err)
{
    if (!db->mesh.has_elements)
        return axb_error_set(err, AXB_ERR_UNSUPPORTED,
                             "element reads need a displ_only database (this one is %s)",
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

axb_status axb_db_read_points(axb_db *db, int64_t n, const int64_t *ids, axb_io_mode mode,
                              float *out, axb_error *err)
{
    AXB_TRY(check_ids(db, n, ids, db->info.npoints, "point", mode, err));
    return db->ops->read_points(db, n, ids, mode, out, err);
}
