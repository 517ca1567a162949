/* Reading a whole byte range of a file: pread until it is all there, through short reads and
 * interrupted calls, for the readers that bypass HDF5 (the chunk index, merged elements, kernel
 * checkpoints); each names its file and range in its own message. The chunk reader keeps its own
 * loop: with O_DIRECT it reads whole aligned blocks, may pass the file's end and falls back to
 * buffered reads. */
#ifndef AXB_CORE_PREAD_ALL_H
#define AXB_CORE_PREAD_ALL_H

#include <stddef.h>
#include <stdint.h>

/* Bytes [@p off, @p off + @p len) of @p fd into @p buf: 0 when all were read, the errno of a
 * failed read, or -1 when the file ends first. */
int axb_pread_all(int fd, void *buf, size_t len, int64_t off);

#endif
