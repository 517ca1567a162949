/* The state of one repack run, shared by its phases (repack.c: source, output, finish;
 * repack_copy.c: slabs, checkpoints, progress). */
#ifndef AXB_ENGINES_REPACK_INTERNAL_H
#define AXB_ENGINES_REPACK_INTERNAL_H

#include <stdint.h>

#include "axibulk/db.h"
#include "axibulk/repack.h"
#include "core/partial.h"
#include "io/db/db_writer.h"

/* the record's kind; its identity ("elements=N storage=contiguous|deflate-L") refuses a resume of another job */
#define REPACK_RECORD_KIND "repack"

typedef struct repack_slab {
    int64_t start, count; /* output element range */
} repack_slab;

typedef struct repack_job {
    MPI_Comm comm;
    int rank, size;
    const axb_repack_opts *o;
    FILE *progress; /* rank 0's stream, NULL elsewhere or with progress off */
    axb_db *db;
    const axb_db_info *in;
    int64_t nelem, block_bytes;
    axb_partial names;
    char identity[64];
    int64_t *order; /* output element k is source element order[k] */
    bool resume;    /* --resume of a run that recorded something (else it starts again) */
    uint8_t *done;  /* resume: elements already in the file (all ranks') */
    axb_db_writer *w;
    repack_slab *slabs;        /* this rank's, in output order */
    int64_t nslabs, max_slabs; /* this rank's, the most of any rank */
    int64_t todo, written;     /* elements of this run, all ranks */
    double t_data;             /* start of the data phase */
    double t_phase;            /* its length up to the last slab */
} repack_job;

/* This rank's slabs: its contiguous share of output elements minus those done, at most the
 * writer's capacity each (collective). */
AXB_NODISCARD axb_status axb_repack_plan_slabs(repack_job *j, axb_error *err);

/* Every slab read and put, checkpoints and progress lines between them (collective). */
AXB_NODISCARD axb_status axb_repack_copy_slabs(repack_job *j, axb_error *err);

#endif
