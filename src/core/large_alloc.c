/* Why 2 MiB-aligned blocks from posix_memalign rather than mmap: free() must release them, so that
 * every caller keeps malloc's ownership rules (and the sanitizers see them as heap blocks). Only
 * whole 2 MiB pages inside the block are advised; the kernel backs each on its first touch, or
 * falls back to 4 KiB pages where it has no huge page free. */
#define _GNU_SOURCE /* madvise, MADV_HUGEPAGE */
#include "core/large_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define SMALL_PAGE ((size_t)4096)
#define HUGE_PAGE ((size_t)2 << 20)

void *axb_large_alloc(size_t bytes)
{
    void *p = NULL;
    if (bytes < HUGE_PAGE) return posix_memalign(&p, SMALL_PAGE, bytes ? bytes : 1) == 0 ? p : NULL;
    if (posix_memalign(&p, HUGE_PAGE, bytes) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    /* advice only: a kernel without THP (or with it "never") says EINVAL and nothing changes */
    (void)madvise(p, bytes / HUGE_PAGE * HUGE_PAGE, MADV_HUGEPAGE);
#endif
    return p;
}
