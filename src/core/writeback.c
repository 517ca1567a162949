#define _GNU_SOURCE /* sync_file_range */
#include "core/writeback.h"

#include <fcntl.h>

void axb_start_writeback(int fd, int64_t offset, int64_t len)
{
#ifdef SYNC_FILE_RANGE_WRITE
    if (fd >= 0) (void)sync_file_range(fd, (off64_t)offset, (off64_t)len, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd;
    (void)offset;
    (void)len;
#endif
}
