/* Internals of the merged writer (merged_write.c, merged_define.c, merged_strategy.c): its state
 * and the table of write strategies. */
#ifndef AXB_IO_DB_MERGED_INTERNAL_H
#define AXB_IO_DB_MERGED_INTERNAL_H

#include "io/db/merged_write.h"

/* State of one merged writer. */
typedef struct merged_strategy merged_strategy;
typedef struct merged_impl {
    axb_merged_def def;
    const merged_strategy *how;
    int src;                   /* the template, open from define until begin; -1 when closed */
    int ncid, var, stf, stf_d; /* -1 when closed */
    bool defining;             /* in define mode: a failed run aborts instead of closing */
    int64_t block_bytes;       /* one element's data */
    int64_t per;               /* elements per put */
    /* integrity: where the next put's data are, and this rank's checksums so far: for element e,
     * bit 32 set when put in this run, the low 32 bits its CRC-32 (written by close) */
    const float *put_buf;
    uint64_t *crc;
    /* collective */
    float *buf;
    int wfd; /* read-only descriptor whose writeback a put starts */
    /* direct */
    struct axb_block_writer *rf;
    int64_t data_offset; /* file offset of the dataset's block */
    int64_t stream_next; /* the element the open stream continues with; -1: none */
    /* chunks */
    struct chunks_state *chunks;
    /* this rank's counters (db_writer.h, stats); the block streams' write time is the block
     * writer's, added when asked */
    axb_write_stats stats;
} merged_impl;

/* How puts reach the file. open: the data phase starts (collective; may change m->how); buffer:
 * where the range at @p start goes; put: collective, count may be 0; sync: all puts on disk
 * (collective); close: frees what open made (collective). */
struct merged_strategy {
    const char *name;
    axb_status (*open)(axb_db_writer *w, axb_error *err);
    axb_status (*buffer)(axb_db_writer *w, int64_t start, float **buf, axb_error *err);
    axb_status (*put)(axb_db_writer *w, int64_t start, int64_t count, axb_error *err);
    axb_status (*sync)(axb_db_writer *w, axb_error *err);
    axb_status (*close)(axb_db_writer *w, axb_error *err);
};

extern const merged_strategy axb_merged_collective;
extern const merged_strategy axb_merged_direct;
extern const merged_strategy axb_merged_chunks; /* merged_chunks.c */

/* Defines the whole structure in the open file @p dst after the template @p src (collective). */
AXB_NODISCARD axb_status axb_merged_define(int src, int dst, const axb_merged_def *d, merged_impl *m, const char *path,
                                           axb_error *err);

/* Copies the template's /Mesh data, per-element arrays permuted (rank 0). */
AXB_NODISCARD axb_status axb_merged_copy_mesh(int src, int dst, const axb_merged_def *d, const char *path,
                                              axb_error *err);

/* The strategies' shared pieces (merged_strategy.c): the writer's own slab buffer as the put
 * buffer; the netCDF handle closed once the structure is complete (collective; no-op if closed). */
axb_status axb_merged_own_buffer(axb_db_writer *w, int64_t start, float **buf, axb_error *err);
AXB_NODISCARD axb_status axb_merged_end_netcdf(axb_db_writer *w, axb_error *err);

/* At the end of a successful run: every element's CRC-32 into /MergedChecksums, those of elements
 * put by an earlier (resumed) run computed from the file (collective; netCDF closed). */
AXB_NODISCARD axb_status axb_merged_write_checksums(axb_db_writer *w, axb_error *err);

/* Opens the file for collective puts (collective; after a direct writer gave up). */
AXB_NODISCARD axb_status axb_merged_reopen(axb_db_writer *w, axb_error *err);

#endif
