/* The chunk reader: bulk reads of unfiltered chunked float datasets that bypass HDF5's data path
 * (HDF5 only tells where each chunk is; runs of adjacent chunks are read with one pread, through
 * an LRU cache and a helper thread that reads listed chunks in file order). */
#ifndef AXB_IO_CHUNK_READER_H
#define AXB_IO_CHUNK_READER_H

#include <hdf5.h>
#include <stdbool.h>
#include <stdint.h>

#include "axibulk/status.h"

/* Whole chunks of unfiltered, chunked 2-D little-endian float datasets of one file (all of the
 * other axis in each chunk), read straight from the file @p path: HDF5 only says where each chunk
 * is; runs of chunks adjacent on disk are read with one pread each (at most 8 MB, O_DIRECT where
 * allowed). Chunks read are kept (least recently used replaced) in @p cache_bytes, shared by the
 * datasets, since bulk reads of neighbouring elements want them again. The reader owns a file
 * descriptor, 8 MB buffers, the cache and, after the first prefetch, one helper thread (which
 * calls neither HDF5 nor MPI). Not for use from several threads. */
typedef struct axb_chunk_reader axb_chunk_reader;
axb_status axb_chunk_reader_open(const char *path, int64_t cache_bytes, axb_chunk_reader **out, axb_error *err);
/* Takes dataset @p dset (kept, not owned; stays open while the reader is used) of the reader's
 * file, points along @p axis; *idx is its number for read_cols, or -1 when it does not qualify
 * (filters, other types or chunk shapes than the first dataset taken). */
axb_status axb_chunk_reader_add(axb_chunk_reader *r, hid_t dset, int axis, int *idx, axb_error *err);
/* Starts reading, in the background and in file order across all datasets, the chunks that
 * read_cols of sorted ids[0..n) will need from each dataset (those that pass its *used rule),
 * unless they are cached or would take more than half the cache; returns at once. A hint: what
 * is not prefetched is read by read_cols. *bytes and *calls count the reads queued. */
axb_status axb_chunk_reader_prefetch(axb_chunk_reader *r, int64_t n, const int64_t *ids, double min_fill,
                                     int64_t *bytes, int64_t *calls, axb_error *err);
/* Dataset @p idx, as axb_h5_read_cols_by_chunk (same *used rule; also false when a touched chunk is
 * not stored whole and unfiltered, e.g. never written); waits for chunks being prefetched. */
axb_status axb_chunk_reader_read_cols(axb_chunk_reader *r, int idx, int64_t n, const int64_t *ids, double min_fill,
                                      float *buf, bool *used, int64_t *bytes, int64_t *calls, axb_error *err);
void axb_chunk_reader_close(axb_chunk_reader **r);

#endif
