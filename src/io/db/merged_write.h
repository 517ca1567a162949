/* Writer of the merged layout (merged_output.nc4, read by db_merged.c): the structure defined
 * collectively with netCDF-C, so the file is valid netCDF-4 with dimension scales; global
 * attributes and /Mesh copied from an original-layout file, per-element mesh arrays permuted into
 * the output's element order; element data put as ranges of whole elements, each rank its own,
 * block[nvars][ξ][η][t] per element.
 *
 * Three ways for the element data to reach the file, chosen at begin (merged_strategy.c,
 * merged_chunks.c):
 *  - collective: one collective nc_put_vara per put (any storage; HDF5 compresses deflated
 *    chunks), whose writeback then starts in the background;
 *  - direct, contiguous storage: every rank streams its ranges into the dataset's allocated
 *    block through the block writer (O_DIRECT where the file system allows, pages written by a
 *    helper thread while the caller reads the next range). Falls back to collective when HDF5 did
 *    not put the block where expected;
 *  - direct, deflate: every rank compresses its elements' chunks in @p threads threads (the
 *    caller is one of them; with one, it compresses alone);
 *    rank 0 stores all of them with direct chunk writes through serial HDF5. */
#ifndef AXB_IO_DB_MERGED_WRITE_H
#define AXB_IO_DB_MERGED_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "io/db/db_writer.h"

typedef struct axb_merged_def {
    const char *template_path; /* original-layout file: global attributes and /Mesh are copied */
    int64_t nelem, npoints, ndumps;
    int npol, nvars;
    const int64_t *order;   /* output element k is the template's element order[k] */
    int deflate;            /* -1: contiguous; 0..9: one chunk per element, shuffle + deflate */
    bool direct;            /* direct writes: block streams (contiguous) or chunk writes (deflate) */
    int threads;            /* per rank, compressing chunks (deflate, direct) */
    bool resume;            /* the file exists from a killed run: define only reopens it */
    int64_t inflight_bytes; /* memory for element data in flight on this rank */
    int64_t max_put_bytes;  /* upper bound of one put */
} axb_merged_def;

/* A merged writer for @p path (not collective; define is the first collective step). @p def is
 * copied; the arrays it points to must stay valid until close. */
AXB_NODISCARD axb_status axb_merged_writer_create(MPI_Comm comm, const char *path, const axb_merged_def *def,
                                                  axb_db_writer **out, axb_error *err);

/* After begin: whole elements per put (at least 1). */
int64_t axb_merged_writer_capacity(const axb_db_writer *w);

/* After begin: true when puts are direct; *page_cache_bypassed then tells whether O_DIRECT was
 * granted. */
bool axb_merged_writer_is_direct(const axb_db_writer *w, bool *page_cache_bypassed);

#endif
