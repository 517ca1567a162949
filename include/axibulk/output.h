/**
 * @file output.h
 * @brief Seismogram output files written collectively by all MPI ranks, in two formats behind one
 *        interface: axibulk's own bulk layout (one 3-D array) and ASDF 1.0.3 (one dataset per
 *        trace, readable by pyasdf). docs/output-format.md describes both layouts exactly.
 *
 * Life cycle (every call is collective over the communicator given to create):
 *
 *     axb_output_create(comm, &desc, &out, &err);       creates PATH.partial
 *     axb_output_write(out, n, rows, data, &err);        any number of times, each rank its rows
 *     axb_output_close(&out, true, &err);                PATH.partial -> PATH
 *
 * (core/partial.h: PATH.partial and its record PATH.partial.record, published by rename.) *
 * Nothing is lost: the data go to PATH.partial, and only a commit of a complete file renames it
 * to PATH (an existing PATH, when overwriting, stays intact until that rename). A failure on one
 * rank is agreed on by all ranks before any collective phase is left: the rank that saw the cause
 * returns its code and message; the others return AXB_ERR_REMOTE with the same message.
 *
 * Ownership: the descriptor and every array it points to belong to the caller and are read only
 * during axb_output_create (the writer copies what it needs). The output handle is owned by the
 * caller and released by axb_output_close, which always frees it and sets it to NULL.
 */
#ifndef AXIBULK_OUTPUT_H
#define AXIBULK_OUTPUT_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "axibulk/source.h"
#include "axibulk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum axb_out_format { AXB_OUT_BULK = 0, AXB_OUT_ASDF } axb_out_format;
typedef enum axb_precision { AXB_FLOAT32 = 0, AXB_FLOAT64 } axb_precision;

/** What to write. Every rank passes an identical descriptor. */
typedef struct axb_output_desc {
    const char *path; /**< final name; data go to PATH.partial, renamed to PATH on commit */
    axb_out_format format;
    axb_precision precision;    /**< sample type in the file; writes always pass float64 */
    int64_t nrows;              /**< one row = one source–receiver seismogram set; >= 1 */
    const char *components;     /**< distinct letters of "ZNERT" in output order; ncomp = strlen */
    int64_t nsamples;           /**< samples per trace, >= 1 */
    double dt;                  /**< sampling interval, s, > 0 */
    double start_offset;        /**< first sample's time minus the row's source origin time, s */
    const char *kind;           /**< "displacement" | "velocity" | "acceleration" */
    const char *database;       /**< database path, recorded as provenance */
    const char *database_kind;  /**< "forward" | "reciprocal", provenance; NULL = not recorded */
    const char *database_model; /**< background model name, provenance; NULL = not recorded */
    double database_period;     /**< dominant period (s), provenance; 0 = not recorded */
    int database_file_version;  /**< database file version, provenance; 0 = not recorded */
    const axb_source *sources;  /**< [nsources], identical on all ranks (sliprates not used) */
    int64_t nsources;
    const axb_receiver *receivers; /**< [nreceivers], identical on all ranks */
    int64_t nreceivers;
    const int64_t *row_source;   /**< [nrows] index into sources */
    const int64_t *row_receiver; /**< [nrows] index into receivers */
    bool overwrite;              /**< replace an existing PATH (on commit) and PATH.partial */
    const char *command;         /**< optional command line recorded as provenance; NULL = none */
    const char *job;             /**< what else determines the values, as "key=value" words (options, database,
                          filter, slip rates); part of the identity a resume must match; NULL = none */
    double checkpoint_seconds;   /**< formats that can resume: seconds between the records of the rows on
                                    disk (a file flush each); a kill loses at most this much work. 0 (what
                                    a zero-initialised descriptor gives): after every write. Finite, >= 0;
                                    not part of the identity */
} axb_output_desc;

typedef struct axb_output axb_output;

/**
 * Creates PATH.partial with every dataset and table the format needs (collective). Refused, with
 * one line naming the problem: a directory of PATH that does not exist; PATH or PATH.partial that
 * exists without desc->overwrite; an inconsistent descriptor (nsamples or dt out of range, unknown
 * or repeated component letters, unknown kind, a row index outside the source or receiver table,
 * and for ASDF station codes that cannot form ASDF names). Codes: AXB_ERR_IO (file system),
 * AXB_ERR_ARG (descriptor), AXB_ERR_HDF5, AXB_ERR_MPI, AXB_ERR_NOMEM, AXB_ERR_REMOTE.
 * On failure *out is NULL and this call leaves no PATH.partial behind (one that existed before
 * is kept, unless overwrite was set and the new file had replaced it).
 */
AXB_NODISCARD axb_status axb_output_create(MPI_Comm comm, const axb_output_desc *d, axb_output **out, axb_error *err);

/**
 * Reopens PATH.partial of an earlier run with the same descriptor to finish it (collective; every
 * format with a reopen, today bulk and ASDF). At checkpoints (axb_output_write and
 * axb_output_sync, once desc->checkpoint_seconds have passed since the last one; 0: every call)
 * the file is flushed and the rows written since the last checkpoint are appended to
 * PATH.partial.record (core/partial.h: torn lists ignored), whose header names the descriptor's
 * identity (format, precision, shape, sampling, kind, a checksum of the tables); done[nrows]
 * (caller's) receives 1 for the rows recorded, which need not be written again. Refused: a
 * complete PATH, no unfinished file or record, a record of another identity, a file of another
 * shape. Killed before its first checkpoint (a record without rows): starts again from nothing.
 */
AXB_NODISCARD axb_status axb_output_resume(MPI_Comm comm, const axb_output_desc *d, uint8_t *done, axb_output **out,
                                           axb_error *err);

/**
 * Writes rows (collective: every rank calls, each with its own rows — any subset, any order, n may
 * be 0). @p data holds [n][ncomp][nsamples] float64 in the order of @p rows, converted to the file
 * precision (float32 by round-to-nearest). A row index outside 0..nrows-1, a row repeated within
 * the call, or a row this rank already wrote fails (AXB_ERR_ARG) on every rank before anything is
 * written. A row written by two different ranks is detected by axb_output_close. Afterwards, when
 * a checkpoint is due (the ranks agree; see axb_output_resume), the file is flushed and the rows
 * written since the last checkpoint are recorded as on disk.
 */
AXB_NODISCARD axb_status axb_output_write(axb_output *o, int64_t n, const int64_t *rows, const double *data,
                                          axb_error *err);

/**
 * Writes rows from this rank alone (independent: the other ranks need not call, and none waits
 * for this one), with the checks and conversion of axb_output_write. For a rank schedule in which
 * ranks write while others compute (one node, where every write to the file takes the same
 * kernel lock). The rows count as on disk, for a resume, only after a later checkpoint (of
 * axb_output_sync or axb_output_write).
 * The rows are copied (in the file's precision) into a stage of up to 64 MB per rank and written
 * in file order when the stage is full, at the next checkpoint, at an axb_output_write or when
 * the file is committed, so scattered rows of many calls join into long writes; @p data may be
 * reused as soon as the call returns. A failure to write staged rows (a full disk) is reported
 * by the call that writes them.
 * A failure is this rank's alone: pass it to the next axb_output_sync, which every rank calls.
 * AXB_ERR_UNSUPPORTED for a format without independent writes (see axb_output_can_write_local).
 */
AXB_NODISCARD axb_status axb_output_write_local(axb_output *o, int64_t n, const int64_t *rows, const double *data,
                                                axb_error *err);

/** Whether axb_output_write_local works for this file's format (bulk: yes; ASDF: no). */
bool axb_output_can_write_local(const axb_output *o);

/**
 * Collective: agrees on @p st (each rank's status since its last sync, e.g. of
 * axb_output_write_local: one failure fails every rank), then, as axb_output_write does after its
 * transfer, flushes the file and records the rows written since the last checkpoint as on disk if
 * a checkpoint is due.
 */
AXB_NODISCARD axb_status axb_output_sync(axb_output *o, axb_status st, axb_error *err);

/**
 * Closes the file (collective) and frees *o, setting it to NULL in every case.
 * commit = true: checks that every row was written exactly once over all ranks, flushes the file
 * (rows written since the last checkpoint included), then renames
 * PATH.partial to PATH (replacing an existing PATH only if the descriptor allowed overwriting). If
 * a row is missing or was written twice, nothing is renamed, the data stay in PATH.partial and the
 * call fails with AXB_ERR_ARG naming the first such row.
 * commit = false: leaves PATH.partial (for inspection or a later resume) and PATH untouched.
 */
AXB_NODISCARD axb_status axb_output_close(axb_output **o, bool commit, axb_error *err);

/* ---- helpers ---- */

/** "bulk" / "asdf" (case-sensitive) into a format. */
AXB_NODISCARD axb_status axb_out_format_parse(const char *s, axb_out_format *f, axb_error *err);
const char *axb_out_format_name(axb_out_format f);
/** "float32" / "float64" into a precision. */
AXB_NODISCARD axb_status axb_precision_parse(const char *s, axb_precision *p, axb_error *err);
const char *axb_precision_name(axb_precision p);

/** SEED band code for a sampling interval, Instaseis' rule: <= 0.001 s F, <= 0.004 C,
 *  <= 0.0125 H, <= 0.1 B, < 1 M, else L. ASDF channel codes are band + 'X' + component. */
char axb_band_code(double dt);

/** Units of a kind: "m", "m/s", "m/s^2"; NULL for an unknown kind. */
const char *axb_output_units(const char *kind);

#ifdef __cplusplus
}
#endif
#endif
