/**
 * @file db.h
 * @brief Opening AxiSEM wavefield databases and reading their element data.
 *
 * One API over every on-disk layout. A layout is a backend (a struct of operations, see
 * src/io/db_internal.h); today there are two:
 *  - "original": AxiSEM's ordered_output.nc4 files, one per sub-simulation (PX/PZ, or the four
 *    moment-tensor runs), one time series per GLL point;
 *  - "merged": one merged_output.nc4 with /MergedSnapshots (elements, nvars, 5, 5, samples), as
 *    written by Instaseis' repack_db.py or by `axibulk repack`, chunked or contiguous.
 *
 * Opening is collective over the communicator. Rank 0 alone reads and validates the metadata and
 * mesh and broadcasts them, so a 1000-rank job does not hit the file system 1000 times; then every
 * rank opens the data files for MPI-IO. An error on any rank is reported on every rank (ranks that
 * did not see the cause get AXB_ERR_REMOTE), so no rank is left waiting in a collective call.
 *
 * Ownership: axb_db_open allocates the database; axb_db_close(&db) frees it and sets db to NULL.
 * The info, mesh and STF pointers returned by the getters belong to the database and stay valid
 * until it is closed.
 */
#ifndef AXIBULK_DB_H
#define AXIBULK_DB_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "axibulk/mesh.h"
#include "axibulk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Longest path axibulk stores for a database file. */
#define AXB_PATH_MAX 1024

/** Reciprocal: sources anywhere, receiver at the DB pole. Forward: source at the pole. */
typedef enum axb_db_kind { AXB_DB_RECIPROCAL = 0, AXB_DB_FORWARD = 1 } axb_db_kind;

/** What was stored per GLL point. */
typedef enum axb_dump_type {
    AXB_DUMP_DISPL_ONLY = 0, /**< displacement (s, phi, z) */
    AXB_DUMP_STRAIN_ONLY,    /**< strain components at interior points, no element topology */
    AXB_DUMP_FULLFIELDS      /**< strain and velocity; read like strain_only */
} axb_dump_type;

/** On-disk layout, i.e. which backend serves the database. */
typedef enum axb_layout {
    AXB_LAYOUT_ORIGINAL = 0,
    AXB_LAYOUT_MERGED,
    AXB_LAYOUT_MEMORY /**< synthetic, no files (db_memory.h); read like the merged layout */
} axb_layout;

/** What the data arrays carry to detect damage (verified on every read where present). */
typedef enum axb_checksums {
    AXB_CHECKSUMS_NONE = 0,   /**< nothing: damage cannot be detected (plain AxiSEM files, Instaseis' merged copies) */
    AXB_CHECKSUMS_PARTIAL,    /**< original layout: some snapshot arrays with fletcher32, some without */
    AXB_CHECKSUMS_FLETCHER32, /**< original layout: HDF5's fletcher32 on every chunk of every snapshot array */
    AXB_CHECKSUMS_ELEMENT     /**< merged layout: axibulk's CRC-32 of every element (MergedChecksums) */
} axb_checksums;

/** Collective (all ranks of the DB communicator call, each with its own selection, possibly
 *  empty) or independent MPI-IO for the data reads. */
typedef enum axb_io_mode { AXB_IO_COLLECTIVE = 0, AXB_IO_INDEPENDENT } axb_io_mode;

/** Everything about a database that fits in a plain struct (it is broadcast as bytes).
 *  Lengths in metres, times in seconds, angles in degrees. */
typedef struct axb_db_info {
    char path[AXB_PATH_MAX]; /**< the directory (or file) given to axb_db_open */
    axb_db_kind kind;
    axb_dump_type dump;
    axb_layout layout;
    bool chunked;    /**< data arrays chunked (always for original files) */
    int deflate;     /**< deflate level of the data arrays, -1 if uncompressed */
    bool transposed; /**< original layout: snapshot arrays stored (points, time) */
    axb_checksums checksums;

    bool has_sim[AXB_NSIM]; /**< which sub-simulations the database holds */
    axb_excitation excitation[AXB_NSIM];
    int ncomp[AXB_NSIM];      /**< displacement components of that run: 2 (s,z) or 3 (s,phi,z) */
    int var_offset[AXB_NSIM]; /**< index of the run's first variable in an element block */
    int nvars;                /**< displacement variables per element block (displ_only) */
    char components[8];       /**< seismogram components it can serve, e.g. "ZNERT" */

    int file_version;
    int npol;              /**< polynomial order; npol+1 GLL points per direction */
    int64_t nelem;         /**< elements (0 for strain_only: no topology stored) */
    int64_t npoints;       /**< stored GLL points */
    int64_t ndumps;        /**< time samples */
    double dt;             /**< sample interval */
    double length;         /**< dt * (ndumps - 1) */
    double period;         /**< dominant source period */
    char stf[32];          /**< source time function name ("errorf", "gauss_0", ...) */
    int stf_map;           /**< Instaseis' STF_MAP: errorf/quheavi 0, dirac_0/gauss_0 1, ... */
    double src_shift;      /**< time of the STF peak after the first sample */
    int src_shift_samples; /**< the same in samples */
    double amplitude;      /**< scalar source magnitude (float32 in the file, exact here) */
    double planet_radius;
    double min_radius, max_radius; /**< radii between which the wavefield was stored */
    double min_d, max_d;           /**< epicentral distance range */
    double source_depth;           /**< forward databases: depth of the source */
    char background_model[64];
    char external_model[64];
    bool attenuation;

    int nfiles;
    char files[4][AXB_PATH_MAX]; /**< data files, in axb_sim order of the runs they hold */
    int64_t file_bytes[4];
    int64_t total_bytes;
} axb_db_info;

/** Counters of data reads issued by this rank (metadata reads are not counted). */
typedef struct axb_io_stats {
    int64_t read_calls; /**< H5Dread calls (or preads of raw chunks) on data arrays */
    int64_t bytes_read; /**< bytes delivered by those calls (as stored) */
    /* Original layout, raw chunk reads: seconds per stage summed over the threads that did them
     * (so they may add up to more than the wall-clock time), and the chunks decoded. read_s is
     * wall time (waiting for the disk is the point); the others are CPU time, so threads that
     * outnumber the cores do not inflate them. */
    double read_s;          /**< preads of chunk data (wall) */
    double checksum_s;      /**< fletcher32 verification */
    double inflate_s;       /**< deflate decoding */
    double unshuffle_s;     /**< byte unshuffling */
    double transpose_s;     /**< chunk to point-major copies */
    int64_t chunks_decoded; /**< filtered chunks decoded */
    int64_t stored_bytes;   /**< their bytes as stored */
} axb_io_stats;

/** Counters of a database writer's element data on this rank, per stage of the way to the disk,
 *  so the stage that bounds a conversion is visible (layouts that do not keep them report
 *  zeros). Seconds are wall-clock time of the thread doing the stage, except compress_s: CPU
 *  time summed over the compressing threads, so it does not grow when they outnumber the cores;
 *  write_s includes the block writer's helper thread. */
typedef struct axb_write_stats {
    double compress_s;      /**< shuffling and deflating chunks (merged --deflate, direct) */
    double exchange_s;      /**< sending stored chunks to rank 0; on rank 0 receiving them */
    double write_s;         /**< handing element data to the file: direct chunk writes, the block
                                 streams' pwrite calls, collective puts (with HDF5's compression) */
    double sync_s;          /**< checkpoints: writes still in flight, flush and fdatasync */
    int64_t chunks_encoded; /**< chunks compressed by this rank */
    int64_t stored_bytes;   /**< their bytes as stored */
    int64_t bytes_written;  /**< element data bytes this rank handed to the file (as stored) */
} axb_write_stats;

typedef struct axb_db axb_db;

/** Finds the database files under @p path (a directory, or a merged_output.nc4 file) the way
 *  Instaseis does, validates them and opens them. Collective over @p comm. */
AXB_NODISCARD axb_status axb_db_open(MPI_Comm comm, const char *path, axb_db **db, axb_error *err);

/** Closes the files and frees everything. Collective. Accepts a pointer to NULL. */
void axb_db_close(axb_db **db);

const axb_db_info *axb_db_get_info(const axb_db *db);
const axb_mesh *axb_db_get_mesh(const axb_db *db);
/** STF arrays (slip stf_dump and slip rate stf_d_dump, [ndumps], scaled by amplitude as stored). */
const double *axb_db_get_stf(const axb_db *db);
const double *axb_db_get_stf_d(const axb_db *db);
/** Name of the backend serving the database ("original", "merged"). */
const char *axb_db_layout_name(const axb_db *db);

/** Floats in one element block: nvars * (npol+1)^2 * ndumps. */
int64_t axb_db_block_floats(const axb_db *db);

/**
 * Reads whole elements (displ_only databases). For request k, out + k*axb_db_block_floats(db)
 * receives block[v][i_xi][j_eta][t] (the merged layout's order) for every displacement variable v
 * in axb_sim order (s, [phi,] z per run). Repeated element ids are read once. With
 * AXB_IO_COLLECTIVE every rank of the communicator must call, with n = 0 if it needs nothing.
 */
AXB_NODISCARD axb_status axb_db_read_elements(axb_db *db, int64_t n, const int64_t *elems, axb_io_mode mode, float *out,
                                              axb_error *err);

/**
 * A hint for bulk reads: starts reading, in the background, what a following
 * axb_db_read_elements(db, n, elems, AXB_IO_INDEPENDENT, ...) will need, so that the caller's
 * work on an earlier request overlaps the reads of the next. Effective for the original layout
 * with unfiltered chunks and a bulk cache (axb_db_set_bulk_cache) of at least twice the request's
 * chunks; a no-op elsewhere. Not collective; the data read count in the I/O statistics now.
 */
AXB_NODISCARD axb_status axb_db_prefetch_elements(axb_db *db, int64_t n, const int64_t *elems, axb_error *err);

/**
 * A hint for bulk reads: one later axb_db_read_elements(db, n, elems, ...) will ask for exactly
 * these elements; call it once per such request, in any order, before the reads. The original
 * layout then reuses first the cache room of chunks no announced request still needs (and does
 * not keep them), so a job that announces all its requests decodes each chunk about once with a
 * small cache. Results do not depend on it. A no-op elsewhere; not collective.
 */
AXB_NODISCARD axb_status axb_db_expect_elements(axb_db *db, int64_t n, const int64_t *elems, axb_error *err);

/** Number of per-point variables of a strain_only database (6 per run: dsus dsuz dpup dsup dzup
 *  trace, absent ones read as zero). */
int axb_db_point_vars(const axb_db *db);

/**
 * Reads the time series of stored points (strain_only/fullfields databases, original layout):
 * out + k*nv*ndumps receives [v][t] for point ids[k], nv = axb_db_point_vars(db), runs in axb_sim
 * order. Collectivity as for axb_db_read_elements.
 */
AXB_NODISCARD axb_status axb_db_read_points(axb_db *db, int64_t n, const int64_t *ids, axb_io_mode mode, float *out,
                                            axb_error *err);

/** This rank's read counters. Waits for reads queued in the background first. */
void axb_db_get_io_stats(const axb_db *db, axb_io_stats *stats);

/** The read counters of all ranks, summed (every rank receives them). Collective. */
AXB_NODISCARD axb_status axb_db_sum_io_stats(const axb_db *db, axb_io_stats *all, axb_error *err);

/** Threads this rank uses to read and decode an original-layout database's chunks (fletcher32,
 *  unshuffle, inflate), in addition to the caller's own thread, which helps while it waits.
 *  Default: the CPUs of the rank's affinity mask, shared among the ranks of the node that have
 *  the same mask (so mpirun -np N on N cores does not oversubscribe). Set before the first read;
 *  n < 1 keeps the default. */
void axb_db_set_threads(axb_db *db, int n);
int axb_db_get_threads(const axb_db *db);

/**
 * The radius (m) at which the solver really put the database's point source: forward databases
 * their moment tensors, reciprocal databases their PX/PZ forces (the receiver). AxiSEM moves a
 * point source to the GLL point on the northern axis (s = 0, z > 0) whose z is nearest to
 * R − depth, and writes the depth it was asked for into 'source depth in km' (SOLVER/source.f90,
 * subroutine find_srcloc; SOLVER/parameters.F90); this applies the same rule to the axial points
 * stored in the file and info.source_depth. A point within one float32 step of R − depth (the
 * precision of the stored coordinates) counts as R − depth itself, so databases whose mesh has a
 * point at the asked depth, such as every mkdb database, return exactly R − depth. Among two
 * points equally far, the shallower one (the file does not keep the solver's element order).
 * Not collective (the mesh is on every rank). AXB_ERR_UNSUPPORTED when no axial point is stored
 * (strain_only files store element interiors only); AXB_ERR_RANGE when R − depth lies beyond the
 * stored axial points (the solver's point might be one the file does not hold). Example: the
 * 100 s PREM forward database asks for 12 km, its axial points near the surface are at 0 and
 * 37.99 km depth, so the source was at the surface (6371 km).
 */
AXB_NODISCARD axb_status axb_db_source_radius(const axb_db *db, double *r_used, axb_error *err);

/** Memory for stored chunks kept between independent (bulk) reads of an original-layout
 *  database, shared by its variables (default 64 MB). A point serves up to four elements, so
 *  reading elements slab by slab wants many chunks again: on a 5 GB database in 128 MB slabs, 0
 *  re-read 66 % of the input, 64 MB 22 %, 256 MB 2 %. Set before the first such read; no effect
 *  on the merged layout. */
void axb_db_set_bulk_cache(axb_db *db, int64_t bytes);

/** Asks the kernel to drop the page cache of the database's data files
 *  (posix_fadvise DONTNEED; no root needed, clean pages only). For cold-cache benchmarks: the next
 *  reads come from the storage again. Harmless to results; errors are ignored (advice only). */
void axb_db_drop_page_cache(const axb_db *db);

/** Text for enum values ("reciprocal", "displ_only", "PX", "dipole", ...). */
const char *axb_db_kind_name(axb_db_kind k);
const char *axb_dump_type_name(axb_dump_type d);
const char *axb_sim_name(axb_sim s);
const char *axb_excitation_name(axb_excitation e);
const char *axb_checksums_name(axb_checksums c);

#ifdef __cplusplus
}
#endif
#endif
