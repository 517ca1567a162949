/* Writers of database layouts, one per layout next to its reader (the IOR backend pattern: one
 * table of operations per layout, one designated-initializer instance each). The engines (repack,
 * mkdb) only orchestrate: what a file holds and how its bytes reach the disk is decided here.
 *
 * A writer is made by its layout's constructor (merged_write.h, original_write.h), which takes the
 * layout's own description; every later step goes through the table:
 *
 *   define       collective: the file's structure (dimensions, attributes, variables)
 *   write_mesh   rank 0 only: the /Mesh group's data
 *   write_stf    rank 0 only: the source time function
 *   begin        collective: metadata done, the data phase starts
 *   buffer       where the caller puts the data of the next range (so it can read into it)
 *   put          collective: the range from the buffer goes to the file (count may be 0)
 *   checkpoint   collective: everything put so far is on disk
 *   stats        optional, not collective: this rank's write counters so far (axb_write_stats;
 *                zeros from a layout without the op)
 *   close        collective: the file is complete and closed
 *
 * Collective operations end with an agreement (core/agree.h): they return the same status on
 * every rank. Rank-0-only operations leave the agreement to the caller. */
#ifndef AXB_IO_DB_WRITER_H
#define AXB_IO_DB_WRITER_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "axibulk/db.h" /* axb_write_stats */
#include "axibulk/status.h"

typedef struct axb_db_writer axb_db_writer;

typedef struct axb_db_writer_ops {
    const char *name;
    axb_status (*define)(axb_db_writer *w, axb_error *err);
    axb_status (*write_mesh)(axb_db_writer *w, axb_error *err);
    axb_status (*write_stf)(axb_db_writer *w, const float *stf, const float *stf_d, axb_error *err);
    axb_status (*begin)(axb_db_writer *w, axb_error *err);
    axb_status (*buffer)(axb_db_writer *w, int64_t start, float **buf, axb_error *err);
    axb_status (*put)(axb_db_writer *w, int64_t start, int64_t count, axb_error *err);
    axb_status (*checkpoint)(axb_db_writer *w, axb_error *err);
    void (*stats)(const axb_db_writer *w, axb_write_stats *s); /* may be NULL */
    /* frees impl whatever the outcome */
    axb_status (*close)(axb_db_writer *w, axb_error *err);
} axb_db_writer_ops;

struct axb_db_writer {
    const axb_db_writer_ops *ops;
    MPI_Comm comm; /* the caller's, not duplicated: the writer lives within one call */
    int rank, size;
    const char *path; /* owned by the caller, valid until close */
    bool failed;      /* set by axb_db_writer_close when the run failed: close only cleans up */
    void *impl;       /* the layout's state */
};

/* For the constructors: a writer of @p ops over @p impl (taken over: freed by close). */
AXB_NODISCARD axb_status axb_db_writer_new(MPI_Comm comm, const char *path, const axb_db_writer_ops *ops, void *impl,
                                           axb_db_writer **out, axb_error *err);

AXB_NODISCARD axb_status axb_db_writer_define(axb_db_writer *w, axb_error *err);
AXB_NODISCARD axb_status axb_db_writer_write_mesh(axb_db_writer *w, axb_error *err);
AXB_NODISCARD axb_status axb_db_writer_write_stf(axb_db_writer *w, const float *stf, const float *stf_d,
                                                 axb_error *err);
AXB_NODISCARD axb_status axb_db_writer_begin(axb_db_writer *w, axb_error *err);
/* The buffer for the range starting at @p start; valid until the next put. */
AXB_NODISCARD axb_status axb_db_writer_buffer(axb_db_writer *w, int64_t start, float **buf, axb_error *err);
AXB_NODISCARD axb_status axb_db_writer_put(axb_db_writer *w, int64_t start, int64_t count, axb_error *err);
AXB_NODISCARD axb_status axb_db_writer_checkpoint(axb_db_writer *w, axb_error *err);
/* This rank's write counters so far (zeros where the layout keeps none). */
void axb_db_writer_get_stats(const axb_db_writer *w, axb_write_stats *s);
/* The write counters of all ranks, summed in one reduction (every rank receives them; counts
 * travel as doubles, exact below 2^53). Collective, agreed. */
AXB_NODISCARD axb_status axb_db_writer_sum_stats(const axb_db_writer *w, axb_write_stats *all, axb_error *err);
/* Collective; *w becomes NULL. Safe on NULL. On a failed run pass a status: the file is closed
 * anyway and that status kept (a failing close then adds nothing). */
AXB_NODISCARD axb_status axb_db_writer_close(axb_db_writer **w, axb_status st, axb_error *err);

#endif
