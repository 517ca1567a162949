/**
 * @file kernel.h
 * @brief Born sensitivity kernels (`axibulk kernel`): a forward database (the event's wavefield)
 *        and a reciprocal database (the receiver's), combined at quasi-random points inside the
 *        cells of an inversion mesh and integrated per cell until the Monte Carlo error meets the
 *        job's tolerances. Theory and conventions: docs/kernels.md.
 *
 * Collective over the communicator: the cells are shared among all ranks (rank 0 works too), each
 * cell's points depend on the cell alone, so the output is identical for any rank count. Rank 0
 * gathers the result and writes it (kernel_output.h).
 */
#ifndef AXIBULK_KERNEL_H
#define AXIBULK_KERNEL_H

#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>

#include "axibulk/kernel_job.h"
#include "axibulk/kernel_output.h"
#include "axibulk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a run did, for benchmarks and reports (--stats). Times are seconds summed over ranks. */
typedef struct axb_kernel_stats {
    int64_t cells;          /**< of the mesh */
    int64_t cells_computed; /**< by this run (a resumed run skips the finished ones) */
    int kernels, columns, channels, ranks;
    int64_t receivers;
    double seconds;                                         /**< wall time of the whole run (rank 0) */
    int64_t points;                                         /**< points evaluated (forward field) */
    int64_t channel_points;                                 /**< backward-field evaluations (point × channel) */
    int64_t channel_cells_skipped;                          /**< (cell, channel) pairs the travel-time rule skipped */
    int64_t read_calls[2], element_reads[2], bytes_read[2]; /**< forward, backward database */
    double t_locate;                                        /**< finding points in the databases' meshes */
    double t_read;                                          /**< reading element blocks */
    double t_strain;           /**< strain from blocks (per element) and fields at the points */
    double t_fft;              /**< spectra of the fields */
    double t_integrate;        /**< spectral products, kernel dot products, Monte Carlo sums */
    double t_wait;             /**< waiting for the slowest rank at checkpoints */
    double t_checkpoint;       /**< gathering and storing finished cells */
    double t_total;            /**< the ranks' whole run times */
    int64_t chunks_decoded[2]; /**< forward, backward: deflated chunks decoded (original layout; last, so the
                                    fields before it keep their places) */
} axb_kernel_stats;

/** Run options that are not part of the job's physics. */
typedef struct axb_kernel_run_opts {
    bool force;                /**< replace an existing output */
    FILE *progress;            /**< progress lines (rank 0), NULL for none */
    bool write;                /**< write the output file (false: only return the result) */
    int64_t cache_bytes;       /**< per database, the strain derived from element blocks kept between
                              steps (0: 256 MB); at least two steps' elements are always kept.
                              Results do not depend on it, only the reads do. */
    bool resume;               /**< continue the OUTPUT.partial of a killed run of the same job (needs
                                  write); the output is identical to an uninterrupted run's */
    double checkpoint_seconds; /**< about how often finished cells are made durable and progress
                                    is shown (0: 20 s) */
    axb_kernel_stats *stats;   /**< filled on rank 0 if not NULL */
    int threads;               /**< per rank and database, decoding original-layout chunks (0: the
                                    default of axb_db_set_threads) */
    int64_t chunk_cache_bytes; /**< per database on the original layout, decoded chunks kept between
                                    element reads (0: as much as cache_bytes). A chunk holds all
                                    samples of several elements' points, and a step's elements are
                                    read again in later steps, so without it every read decodes
                                    its chunks afresh. Results do not depend on it. */
} axb_kernel_run_opts;

/**
 * Runs @p job: opens and checks the databases against each other and the job (one-line errors,
 * AXB_ERR_ARG/RANGE/UNSUPPORTED/FORMAT for bad jobs), builds the mesh, computes every kernel and
 * writes the output. While it runs, OUTPUT.partial (empty until the end), OUTPUT.partial.record
 * (the finished cells) and OUTPUT.partial.cells (their values) make a kill resumable. If @p res is not NULL it receives the gathered result (on every rank; free
 * with axb_kernel_result_free).
 */
AXB_NODISCARD axb_status axb_kernel_run(MPI_Comm comm, const axb_kernel_job *job, const axb_kernel_run_opts *opts,
                                        axb_kernel_result *res, axb_error *err);

/** Frees what axb_kernel_run put into @p res (including its mesh); NULL-safe. */
void axb_kernel_result_free(axb_kernel_result *res);

#ifdef __cplusplus
}
#endif
#endif
