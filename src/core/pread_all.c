/* See pread_all.h. */
#include <errno.h>
#include <unistd.h>

#include "core/pread_all.h"

int axb_pread_all(int fd, void *buf, size_t len, int64_t off)
{
    size_t got = 0;
    while (got < len) {
        const ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)(off + (int64_t)got));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno ? errno : EIO;
        if (n == 0) return -1;
        got += (size_t)n;
    }
    return 0;
}
