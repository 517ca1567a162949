/**
 * @file repack.h
 * @brief Conversion of an original-layout database (AxiSEM's ordered_output.nc4 files) into one
 *        merged_output.nc4 in the unrolled-merge layout Instaseis reads (reference notes §1.7).
 *
 * Collective over the communicator. Ranks own contiguous ranges of output elements (elements are
 * put in Hilbert-curve order of their mid points, so neighbours in space are neighbours on disk);
 * each range is processed in slabs bounded by memory_bytes (and 128 MB): one read of the slab's
 * elements through the database layer, then one write of the slab, in lockstep over the ranks.
 * The file format and both ways of writing it belong to the merged writer (src/io/db/
 * merged_write.h): direct (contiguous storage: every rank streams its range into the dataset's
 * allocated block with O_DIRECT through the block writer) or a collective MPI-IO write through
 * netCDF/HDF5 (always for deflated output), whose writeback then starts in the background. The
 * file is written as DST/merged_output.nc4.partial and renamed when complete; at every checkpoint
 * (synced file) the elements then on disk are appended to DST/merged_output.nc4.partial.record
 * (core/partial.h, kind "repack", identity "elements=N storage=D"), so a killed run can resume.
 */
#ifndef AXIBULK_REPACK_H
#define AXIBULK_REPACK_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "axibulk/db.h"
#include "axibulk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How slabs reach the file. */
typedef enum axb_repack_write {
    AXB_REPACK_WRITE_AUTO = 0,   /**< direct for contiguous storage, collective for deflate */
    AXB_REPACK_WRITE_COLLECTIVE, /**< collective MPI-IO writes through netCDF/HDF5 */
    AXB_REPACK_WRITE_DIRECT      /**< each rank writes its range into the dataset's block (O_DIRECT) */
} axb_repack_write;

typedef struct axb_repack_opts {
    const char *src;      /**< original-layout database folder */
    const char *dst;      /**< output folder; receives merged_output.nc4 */
    int deflate;          /**< -1: contiguous, no compression; 0..9: element chunks, shuffle + deflate */
    int64_t memory_bytes; /**< per rank, for element data in flight */
    bool force;           /**< replace an existing output */
    bool resume;          /**< continue a killed run from its .partial file */
    bool verify;          /**< compare every element of the output with the source */
    bool progress;        /**< progress lines on the progress stream (rank 0) */
    /** Seconds between checkpoints: the file is synced and the finished elements recorded for
     *  --resume (a kill loses at most this much work). 0: after every slab. Between checkpoints
     *  the written slabs go to disk in the background while the next slabs are read. */
    double checkpoint_seconds;
    axb_repack_write write_mode;
    int threads; /**< per rank, decoding deflated source chunks (0: the default of axb_db_set_threads) */
} axb_repack_opts;

typedef struct axb_repack_result {
    int64_t elements, elements_written; /**< all elements; written by this run (not resumed) */
    int64_t bytes_in, bytes_out;        /**< size of the source files, of the output file */
    double seconds;
    double read_mb_s, write_mb_s; /**< source MB per second of reading, output MB per second
                                             of writing (all ranks, over rank 0's time in each) */
    bool verified;
    /** What protected the source's data (its damage is detected only where it has checksums) */
    axb_checksums source_checksums;
    axb_repack_write write_mode; /**< the mode used: collective or direct */
    bool page_cache_bypassed;    /**< direct mode got O_DIRECT from the file system */
    axb_io_stats io;             /**< the source's read counters and time per stage, summed over ranks */
    /** the output's write counters and time per stage (compress, exchange, write, sync) of the
     *  data phase up to its last checkpoint, summed over ranks */
    axb_write_stats write_io;
    int threads; /**< decoding threads per rank (and, for --deflate with direct writes, compressing ones) */
} axb_repack_result;

/** Runs the conversion (collective). Refuses strain-only input, an existing output without force
 *  (or resume), too little free disk, and databases whose files disagree. */
AXB_NODISCARD axb_status axb_repack_run(MPI_Comm comm, const axb_repack_opts *o, FILE *progress, axb_repack_result *res,
                                        axb_error *err);

/** Compares every element of the merged database @p dst with the original @p src (collective).
 *  AXB_ERR_FORMAT naming the first differing element when they differ. */
AXB_NODISCARD axb_status axb_repack_verify(MPI_Comm comm, const char *src, const char *dst, int64_t memory_bytes,
                                           axb_error *err);

/** Hilbert-curve order of n points (x, y): order[k] is the index of the k-th point along the
 *  curve (2^16 × 2^16 grid over the bounding box; ties by index). */
AXB_NODISCARD axb_status axb_hilbert_order(int64_t n, const double *x, const double *y, int64_t *order, axb_error *err);

#ifdef __cplusplus
}
#endif
#endif
