/* The chunk index of a chunked dataset read in one pass from the file (HDF5's version-1 B-tree),
 * instead of one H5Dget_chunk_info_by_coord per chunk, which HDF5 1.10 answers by walking the
 * index from its start (O(n^2) for a whole dataset). */
#ifndef AXB_IO_CHUNK_INDEX_H
#define AXB_IO_CHUNK_INDEX_H

#include <hdf5.h>
#include <stdbool.h>
#include <stdint.h>

#include "axibulk/status.h"

/* For a dataset chunked along @p axis only (chunks of @p cp along it, the whole of every other
 * axis, @p nchunks of them): addr[c], size[c], mask[c] of every stored chunk, addr[c] = -1 for
 * chunks never written, read through @p fd (the dataset's file, opened without O_DIRECT), and
 * checked against HDF5's own lookup at the first and last chunk. *ok is false when the index is
 * not one this reader knows (other layout versions, 4-byte addresses, another index type) or does
 * not agree with HDF5: the caller then asks HDF5 chunk by chunk. */
axb_status axb_chunk_index_read(hid_t dset, int fd, int axis, int64_t cp, int64_t nchunks, int64_t *addr, int64_t *size,
                                uint32_t *mask, bool *ok, axb_error *err);

#endif
