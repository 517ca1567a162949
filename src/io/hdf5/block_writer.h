/**
 * @file rawfile.h
 * @brief Streams of bytes written straight into a pre-allocated region of an existing file (the
 *        contiguous storage of an HDF5 dataset), bypassing the page cache where the file system
 *        allows it.
 *
 * Why: a repack writes 1.5 times its input, once. Through the page cache every byte is copied,
 * dirtied, written back and evicted, and on the machines measured (docs/benchmarks.md) that kernel
 * work, not the disk, bounds the run: buffered writes reached 380 MB/s where O_DIRECT writes of
 * the same disk reached 1.6 GB/s.
 *
 * O_DIRECT needs file offsets, lengths and memory aligned to AXB_BLOCK_WRITER_ALIGN. A stream hands out
 * its own aligned buffer; the caller fills it after a head of carried-over bytes, and each put
 * hands every whole aligned page to a helper thread, which writes them with O_DIRECT while the
 * caller fills the stream's second buffer (so reading and writing overlap), and carries the
 * partial last page over to that buffer.
 * Pages the stream shares with other writers (its first and last page: other ranks' data, HDF5
 * metadata) are written through the page cache, only the stream's own bytes of them. Several
 * processes may stream into disjoint regions of one file at once.
 *
 * Ownership: the handle owns its two buffers (2 x capacity), its descriptors and its helper
 * thread; axb_block_writer_close frees them. A failed background write is reported by the next put,
 * end or sync. Data are durable only after axb_block_writer_sync. The helper makes no MPI calls.
 */
#ifndef AXIBULK_RAWFILE_H
#define AXIBULK_RAWFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "axibulk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Alignment of direct transfers (offsets, lengths, memory): the page size, which covers the
 *  logical block size of every common device. */
#define AXB_BLOCK_WRITER_ALIGN 4096

typedef struct axb_block_writer axb_block_writer;

/** Opens the existing file @p path for writing streams of up to @p capacity bytes per put.
 *  @p direct asks for O_DIRECT; where the file system refuses it (e.g. tmpfs) the stream writes
 *  through the page cache instead: axb_block_writer_is_direct tells which. */
AXB_NODISCARD axb_status axb_block_writer_open(const char *path, size_t capacity, bool direct, axb_block_writer **out,
                                               axb_error *err);

/** True when whole pages go to the file with O_DIRECT. */
bool axb_block_writer_is_direct(const axb_block_writer *f);

/** Starts a stream at file offset @p offset (any alignment). A stream still open is ended first. */
AXB_NODISCARD axb_status axb_block_writer_begin(axb_block_writer *f, int64_t offset, axb_error *err);

/** The buffer to fill for the next put (it changes with every put: ask again each time): the
 *  caller writes its bytes at buffer + *head (at most the capacity given at open). *head is the stream position's distance from a page boundary, so
 *  data of an element size dividing the offsets stay aligned for their type. */
void *axb_block_writer_buffer(axb_block_writer *f, size_t *head);

/** Appends the @p len bytes just placed after the head to the stream: waits for the previous
 *  put's pages, then starts writing this one's in the background and returns. */
AXB_NODISCARD axb_status axb_block_writer_put(axb_block_writer *f, size_t len, axb_error *err);

/** Writes the stream's carried partial page, if any, and ends it. */
AXB_NODISCARD axb_status axb_block_writer_end(axb_block_writer *f, axb_error *err);

/** Makes everything written so far durable (fdatasync; the open stream's carried bytes are not
 *  written yet and so not included). */
AXB_NODISCARD axb_status axb_block_writer_sync(axb_block_writer *f, axb_error *err);

/** Starts the writeback of page-cache data written so far and returns at once (Linux). */
void axb_block_writer_start_writeback(axb_block_writer *f);

/** Bytes written with O_DIRECT and through the page cache since open. */
void axb_block_writer_counts(const axb_block_writer *f, int64_t *direct_bytes, int64_t *buffered_bytes);

/** Seconds spent in pwrite since open (the helper thread's and the caller's), of writes already
 *  waited for: all of them after end or sync. */
double axb_block_writer_seconds(const axb_block_writer *f);

/** Closes the file (the open stream is NOT ended: call axb_block_writer_end first to keep its tail)
 *  and frees the handle; *f becomes NULL. Safe on NULL. */
void axb_block_writer_close(axb_block_writer **f);

/** File offset and size of the storage of the contiguous, allocated dataset @p dataset in the
 *  HDF5 file @p path (serial open, read-only). AXB_ERR_UNSUPPORTED when the dataset is chunked,
 *  compact or not allocated. */
AXB_NODISCARD axb_status axb_h5_contiguous_extent(const char *path, const char *dataset, int64_t *offset, int64_t *size,
                                                  axb_error *err);

#ifdef __cplusplus
}
#endif
#endif
