/* Deflated merged files read without HDF5's filter pipeline: one stored chunk per element
 * (axibulk's `repack --deflate`, Instaseis' repack_db.py), read with pread in runs adjacent on
 * disk and decoded by the rank's worker threads (io/hdf5/chunk_filters.h).
 *
 * Why: through H5Dread every element of such a file is inflated by zlib inside HDF5, serially: a
 * 20,000-pair extraction from a `repack --deflate 2` copy of the 20 s PREM database spent 10.5 s
 * reading, against 0.24 s from the contiguous copy. Internal to libaxibulk. */
#ifndef AXB_IO_DB_MERGED_RAW_H
#define AXB_IO_DB_MERGED_RAW_H

#include <hdf5.h>

#include "axibulk/db.h"
#include "core/pool.h"

typedef struct axb_merged_raw axb_merged_raw;

/* A raw reader of @p dset (the merged variable of @p path, @p nelem elements of @p block_bytes
 * raw bytes), or *out NULL when the dataset is not one this reader knows: not chunked one element
 * per chunk, not little-endian float32, a filter outside fletcher32/shuffle/deflate, or a chunk
 * index it cannot read. HDF5 reads it then. Errors only for lack of memory. */
axb_status axb_merged_raw_open(const char *path, hid_t dset, int64_t nelem, int64_t block_bytes, axb_merged_raw **out,
                               axb_error *err);

/* Elements uniq[0..nu) (sorted, distinct) into buf, block_bytes apart, decoded in @p pool's
 * workers and the calling thread (@p pool NULL: here alone, in up to @p nranges ranges). Reads,
 * bytes and decoding times are added to @p stats. A damaged chunk or one never written is
 * AXB_ERR_FORMAT naming the element. */
axb_status axb_merged_raw_read(axb_merged_raw *r, int64_t nu, const int64_t *uniq, float *buf, axb_pool *pool,
                               int64_t nranges, axb_io_stats *stats, axb_error *err);

void axb_merged_raw_close(axb_merged_raw **r);

#endif
