/* Internals shared by the database front end (db.c) and its layout backends. */
#ifndef AXB_IO_DB_INTERNAL_H
#define AXB_IO_DB_INTERNAL_H

#include <hdf5.h>

#include "axibulk/db.h"

/* What discovery found: the files and, for original databases, which run each file holds. */
typedef struct axb_db_found {
    axb_layout layout;
    int nfiles;
    char files[4][AXB_PATH_MAX];
    axb_sim sims[4]; /* original layout: the run held by files[k] */
} axb_db_found;

/*
 * One backend per on-disk layout (the IOR pattern). Splitting metadata from data lets rank 0 read
 * and validate the metadata alone and broadcast it, while every rank opens the data for MPI-IO.
 */
typedef struct axb_db_ops {
    const char *name;
    /* Rank 0 only, serial HDF5: fill db->info, db->mesh, db->stf* and db->impl from the files. */
    axb_status (*read_meta)(axb_db *db, const axb_db_found *found, axb_error *err);
    /* All ranks, after the broadcast: open the data arrays for parallel reading. Collective. */
    axb_status (*open_data)(axb_db *db, axb_error *err);
    axb_status (*read_elements)(axb_db *db, int64_t n, const int64_t *elems, axb_io_mode mode, float *out,
                                axb_error *err);
    /* Optional (NULL: nothing to gain): starts reading what read_elements of the same elements
     * with AXB_IO_INDEPENDENT will need, in the background. Not collective. */
    axb_status (*prefetch_elements)(axb_db *db, int64_t n, const int64_t *elems, axb_error *err);
    /* Optional (NULL: nothing to gain): one later read_elements will ask for these elements. Not
     * collective. */
    axb_status (*expect_elements)(axb_db *db, int64_t n, const int64_t *elems, axb_error *err);
    /* Optional (NULL: the layout stores whole elements only; the front end refuses point reads). */
    axb_status (*read_points)(axb_db *db, int64_t n, const int64_t *ids, axb_io_mode mode, float *out, axb_error *err);
    /* Optional: adds the backend's own counters (time per stage) to @p s. */
    void (*add_stats)(const axb_db *db, axb_io_stats *s);
    /* Frees db->impl and closes what open_data opened. Collective. */
    void (*close)(axb_db *db);
} axb_db_ops;

extern const axb_db_ops axb_db_original_ops;
extern const axb_db_ops axb_db_merged_ops;
extern const axb_db_ops axb_db_memory_ops; /* db_memory.c: "memory:NAME", no files */

struct axb_db {
    MPI_Comm comm; /* duplicated from the caller's */
    int rank;
    const axb_db_ops *ops;
    axb_db_info info;
    axb_mesh mesh;
    double *stf, *stf_d; /* [ndumps] */
    int npoint_vars;     /* strain_only: per-point variables */
    axb_io_stats stats;
    int64_t bulk_cache_bytes; /* see axb_db_set_bulk_cache */
    int threads;              /* see axb_db_set_threads */
    struct axb_pool *pool;    /* see axb_db_worker_pool; destroyed after the backend's close */
    void *impl;               /* backend state, owned by the backend */
};

/* ---- pieces shared by the backends (db_discover.c, db_meta.c, db_mesh.c) ---- */

axb_status axb_db_discover(const char *path, axb_db_found *found, axb_error *err);

/* Reads the global attributes common to every layout into @p info (file-level facts only). */
axb_status axb_db_read_attributes(hid_t fid, axb_db_info *info, axb_error *err);

/* Checks that a second file of the same database agrees with @p info on the shared facts. */
axb_status axb_db_check_consistent(hid_t fid, const axb_db_info *info, axb_error *err);

/* Reads /Mesh: topology (if @p with_elements) and point arrays. Allocates into @p mesh. */
axb_status axb_mesh_read(hid_t fid, const axb_db_info *info, bool with_elements, axb_mesh *mesh, axb_error *err);
void axb_mesh_free(axb_mesh *mesh);

/* The background model arrays of a mesh (vp, vs, rho, xi, phi, eta), each possibly NULL: one list
 * for the reader, the broadcast and the free function. */
#define AXB_MESH_NMODEL 6
void axb_mesh_model_slots(axb_mesh *mesh, float **slots[AXB_MESH_NMODEL]);

/* axb_db_source_radius on a mesh (db_source.c): the radius of the stored axial point AxiSEM
 * moves a source asked for at @p depth below @p planet_radius to. */
axb_status axb_mesh_source_radius(const axb_mesh *mesh, double planet_radius, double depth, double *r_used,
                                  axb_error *err);

/* Finds stf_dump/stf_d_dump in /Snapshots, / or /Surface (Instaseis' order) and reads them. */
axb_status axb_db_read_stf(hid_t fid, int64_t ndumps, double **stf, double **stf_d, axb_error *err);

/* Fills stf_map, kind-independent derived fields (length) and the component list. */
void axb_db_finish_info(axb_db_info *info);

/* Opens @p path for MPI-IO reads over @p comm. Collective. */
axb_status axb_db_open_parallel(MPI_Comm comm, const char *path, hid_t *fid, axb_error *err);

#endif
