/* Asking the kernel to start writing a file's dirty pages now, without waiting for them: every
 * writer that syncs at checkpoints calls it after each piece it wrote, so the disk takes that
 * piece while the next is prepared and the checkpoint's sync waits for little. Best effort: where
 * the system cannot (no sync_file_range, or a file system that refuses it), nothing happens and
 * the sync still covers everything. */
#ifndef AXB_CORE_WRITEBACK_H
#define AXB_CORE_WRITEBACK_H

#include <stdint.h>

/* Bytes [@p offset, @p offset + @p len) of the file open as @p fd; @p len 0: to its end. A negative
 * @p fd is ignored. */
void axb_start_writeback(int fd, int64_t offset, int64_t len);

#endif
