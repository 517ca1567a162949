/* The chunk reader: bulk reads of chunked float datasets that bypass HDF5's data path (HDF5 only
 * tells where each chunk is). Unfiltered chunks are copied; chunks filtered with fletcher32,
 * shuffle and deflate (AxiSEM's own output) are verified and decoded by worker threads
 * (io/hdf5/chunk_filters.h), never by HDF5's serial pipeline. */
#ifndef AXB_IO_CHUNK_READER_H
#define AXB_IO_CHUNK_READER_H

#include <hdf5.h>
#include <stdbool.h>
#include <stdint.h>

#include "axibulk/status.h"
#include "core/pool.h"

/* Time per stage of one reader, summed over the threads that did the work (seconds), and what
 * it decoded. */
typedef struct axb_chunk_stats {
    double read, inflate, unshuffle, checksum, transpose;
    int64_t chunks_decoded, stored_bytes;
} axb_chunk_stats;

/* Whole chunks of chunked 2-D little-endian float datasets of one file (all of the other axis in
 * each chunk), read straight from the file @p path: HDF5 only says where each chunk is (and how
 * it was filtered); runs of chunks adjacent on disk are read with one pread each (O_DIRECT where
 * allowed). Decoded chunks are kept (least recently used replaced) in @p cache_bytes, shared by
 * the datasets, since bulk reads of neighbouring elements want them again. The reader owns file
 * descriptors, buffers and the cache; reads queued ahead run as tasks of a thread pool (the one
 * given to axb_chunk_reader_set_pool, else one helper thread of its own), which call neither
 * HDF5 nor MPI. The reader's own functions are for one thread only. */
typedef struct axb_chunk_reader axb_chunk_reader;
axb_status axb_chunk_reader_open(const char *path, int64_t cache_bytes, axb_chunk_reader **out, axb_error *err);
/* Queued reads run on @p pool (not owned; outlives the reader) instead of a helper thread of the
 * reader's own. Before the first prefetch. */
void axb_chunk_reader_set_pool(axb_chunk_reader *r, axb_pool *pool);
/* Takes dataset @p dset (kept, not owned; stays open while the reader is used) of the reader's
 * file, points along @p axis, and @p name for messages; *idx is its number for read_cols, or -1
 * when it does not qualify (other types, filters this reader cannot decode, or another chunk
 * shape than the first dataset taken). */
axb_status axb_chunk_reader_add(axb_chunk_reader *r, hid_t dset, int axis, const char *name, int *idx, axb_error *err);
/* Dataset @p idx is filtered: read_cols always takes it (whole chunks are the unit of decoding,
 * however few points are wanted) and never declines a chunk. */
bool axb_chunk_reader_filtered(const axb_chunk_reader *r, int idx);
/* Dataset @p idx's chunk index was read in one pass (io/hdf5/chunk_index.h), so no chunk costs an
 * HDF5 lookup. */
bool axb_chunk_reader_indexed(const axb_chunk_reader *r, int idx);
/* Starts reading, in the background and in file order across all datasets (only the filtered
 * ones with @p filtered_only), the chunks that read_cols of sorted ids[0..n) will need from each
 * dataset (those that pass its *used rule), unless they are cached or would take more than three
 * quarters of the cache; returns at once. A hint: what is not prefetched is read by read_cols.
 * *bytes and *calls count the reads queued. */
axb_status axb_chunk_reader_prefetch(axb_chunk_reader *r, int64_t n, const int64_t *ids, double min_fill,
                                     bool filtered_only, int64_t *bytes, int64_t *calls, axb_error *err);
/* A hint: a later read_cols of every dataset will ask for sorted ids[0..n) (one call per request
 * announced). A chunk that every announced request has read is the first to make room in the
 * cache, and is not kept at all when read directly; chunks no announcement named stay in least
 * recently used order. Announcing the requests of a whole job lets a small cache decode each
 * chunk about once, and a large one touch only the memory the chunks still wanted need. */
void axb_chunk_reader_expect(axb_chunk_reader *r, int64_t n, const int64_t *ids);
/* Dataset @p idx, as axb_h5_read_cols_by_chunk: buf[u][t] for ids[0..n) (sorted, distinct);
 * *used false where the reader declines (unfiltered: the request fills less than @p min_fill of
 * the chunks it touches, or a touched chunk is not stored whole, e.g. never written). Filtered
 * datasets are always read; a chunk never written, a checksum that fails or a damaged stream is
 * AXB_ERR_FORMAT naming the variable and the chunk. Waits for chunks being prefetched, queueing
 * the next ones of a filtered request ahead so the pool decodes them while this one is copied. */
axb_status axb_chunk_reader_read_cols(axb_chunk_reader *r, int idx, int64_t n, const int64_t *ids, double min_fill,
                                      float *buf, bool *used, int64_t *bytes, int64_t *calls, axb_error *err);
/* Adds the reader's stage times to @p s (waits for its queued reads first). */
void axb_chunk_reader_stats(axb_chunk_reader *r, axb_chunk_stats *s);
void axb_chunk_reader_close(axb_chunk_reader **r);

#endif
