/**
 * @file extract_job.h
 * @brief A whole extraction job under MPI, written collectively into one output file (as
 *        PATH.partial, renamed when complete). Pairs and cross products are partitioned by
 *        element: pairs are grouped by the element they need, element ranges of equal work are
 *        given to the ranks, and each rank reads its elements in file order in batches, one
 *        (collective) read per batch, every element at most once per batch. Finite faults (a sum
 *        over subfaults per row) are split by rows.
 */
#ifndef AXIBULK_EXTRACT_JOB_H
#define AXIBULK_EXTRACT_JOB_H

#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>

#include "axibulk/extract.h"
#include "axibulk/filter.h"
#include "axibulk/output.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How the ranks write their rows of the bulk output.
 *  COLLECTIVE: every batch is one collective write of all ranks (MPI-IO can aggregate them).
 *  INDEPENDENT: each rank writes its rows by itself, odd ranks one batch later than even ones, so
 *  that on one node (where every write to the file takes the same kernel lock) one half of the
 *  ranks writes while the other half computes; the ranks still agree once per batch and record
 *  the rows on disk at checkpoints.
 *  AUTO (default): INDEPENDENT when all ranks share one node, else COLLECTIVE. Formats without
 *  independent writes (ASDF) always write collectively. */
typedef enum axb_write_mode { AXB_WRITE_AUTO = 0, AXB_WRITE_COLLECTIVE, AXB_WRITE_INDEPENDENT } axb_write_mode;

/** "auto" / "collective" / "independent" into a write mode. */
AXB_NODISCARD axb_status axb_write_mode_parse(const char *s, axb_write_mode *m, axb_error *err);

/** How a job's rows are formed from its source and receiver lists. */
typedef enum axb_row_layout {
    AXB_ROWS_TABLE = 0, /**< row r is sources[row_source[r]] at receivers[row_receiver[r]], r < nrows */
    AXB_ROWS_PAIRS,     /**< row r is sources[r] at receivers[r] (nsources == nreceivers) */
    AXB_ROWS_CROSS,     /**< every source at every receiver, source-major: row s·nreceivers + r */
    AXB_ROWS_FAULTS     /**< every finite fault at every receiver, fault-major; the engine makes each
                             fault's entry of the output's source table: its centroid at the
                             database's planet radius, with its hypocentre's origin time */
} axb_row_layout;

typedef struct axb_extract_job {
    const char *db_path;
    axb_extract_opts opts;
    axb_row_layout layout;
    /* Lists (every rank passes the same): sources (TABLE, PAIRS, CROSS; with subfaults in TABLE,
     * one entry per fault) and receivers (every layout). */
    const axb_source *sources;
    int64_t nsources;
    const axb_receiver *receivers;
    int64_t nreceivers;
    /* TABLE only: the rows. */
    int64_t nrows;
    const int64_t *row_source, *row_receiver;
    /* Finite faults (TABLE or FAULTS): fault f is subfaults[fault_first[f]] ..
     * subfaults[fault_first[f+1] - 1], f < nfaults; fault_first NULL: one fault, all subfaults.
     * fault_names[f] (FAULTS; may be NULL): the fault's file, whose last path component names its
     * table entry and whose whole path prefixes its errors. */
    const axb_source *subfaults;
    int64_t nsubfaults;
    const int64_t *fault_first;
    int64_t nfaults;
    const char *const *fault_names;
    const char *output;
    axb_out_format format;
    axb_precision precision;
    bool overwrite;
    bool progress;                 /**< rank 0 reports progress on the stream given to axb_extract_job_run */
    const char *command;           /**< command line, recorded in the output (may be NULL) */
    bool independent_reads;        /**< independent instead of collective MPI-IO element reads */
    bool cold_batches;             /**< drop the database files' page cache before every batch read
                                     (cold-cache benchmarks of unbuffered access) */
    int threads;                   /**< per rank, computing each batch's seismograms and decoding
                                     original-layout chunks (0: default, axb_db_set_threads) */
    const axb_filter_spec *filter; /**< applied to every trace after time processing; NULL: none */
    bool resume;                   /**< finish the unfinished OUTPUT.partial of an earlier identical run */
    /** Seconds between checkpoints (axb_output_desc.checkpoint_seconds): the output flushed and its
     *  rows recorded for a resume, so a kill loses at most this much work. 0: after every batch. */
    double checkpoint_seconds;
    /** With a filter: FFTW wisdom file. Filter FFTs are then planned with FFTW_MEASURE (faster
     *  transforms), importing this file when it exists and saving the grown wisdom to it at the
     *  end (rank 0, via a temporary name). Rank 0 plans first and hands its wisdom to the other
     *  ranks, so all ranks run the same algorithms and results stay identical for any rank count.
     *  NULL: FFTW_ESTIMATE, nothing stored. */
    const char *fftw_wisdom;
    axb_write_mode write_mode;
} axb_extract_job;

/** Where the job's time went: wall-clock seconds of rank 0's main thread per stage, which together
 *  with `other` (the rest, e.g. the filter's planning) make up the job's `seconds`. With worker
 *  threads the main thread reads the next batch and writes the last while the workers compute, so
 *  `compute` is the time it waited for them beyond its own reads and writes. */
typedef struct axb_extract_times {
    double open;    /**< database, plan, rows (and subfaults) opened; every row checked; the output created */
    double locate;  /**< rows located in the mesh, shared out by element, batches planned */
    double read;    /**< element data read (and on the original layout decoded, or handed to the decoders) */
    double compute; /**< seismograms: interpolation, strain, time processing, filters (finite faults: reads too) */
    double write;   /**< rows written (or staged), the agreement of every batch, checkpoints */
    double close;   /**< the output completed: last writes, flush, sync to disk, rename */
    double other;
} axb_extract_times;

typedef struct axb_extract_job_result {
    int64_t rows;         /**< rows in the output */
    int64_t rows_resumed; /**< of those, rows an earlier run had written (--resume) */
    int ncomp;
    char components[8];
    int64_t npts;
    double dt, start_offset, seconds;
    int64_t elements_read;   /**< summed over ranks */
    int64_t cache_hits;      /**< element blocks served by the plans' caches, summed over ranks */
    int64_t read_calls;      /**< data H5Dread calls, summed over ranks */
    int64_t bytes_read;      /**< bytes of element data read, summed over ranks */
    axb_io_stats io;         /**< the databases' read counters and time per stage, summed over ranks */
    int threads;             /**< decoding threads per rank (rank 0's) */
    axb_extract_times times; /**< rank 0's time per stage */
} axb_extract_job_result;

/** Runs the job. Collective over @p comm; every rank returns the same status. Progress lines (when
 *  job->progress) go to @p progress on rank 0; NULL: none. */
AXB_NODISCARD axb_status axb_extract_job_run(MPI_Comm comm, const axb_extract_job *job, FILE *progress,
                                             axb_extract_job_result *res, axb_error *err);

#ifdef __cplusplus
}
#endif
#endif
