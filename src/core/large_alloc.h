/* Buffers of megabytes that a job keeps for its whole run: chunk caches, batch blocks, row
 * buffers. Their first touch costs one page fault per 4 KiB page, and on a virtual machine a fault
 * costs microseconds: the 128 MB chunk cache of an original-layout extraction took 32,900 of its
 * 55,100 faults, which cost a fifth of the run (docs/benchmarks.md). Linux backs memory with 2 MiB pages where it is told to
 * (transparent huge pages in "madvise" mode, Debian's default): 512 times fewer faults and TLB
 * entries. */
#ifndef AXB_CORE_LARGE_ALLOC_H
#define AXB_CORE_LARGE_ALLOC_H

#include <stddef.h>

/* At least @p bytes, or NULL. Every block starts on a page (4 KiB) boundary, so O_DIRECT can
 * transfer from it; blocks of 2 MiB and more start on a 2 MiB boundary and are advised for huge
 * pages. Released with free(), so a caller owns it exactly as malloc'd memory. Contents are
 * undefined, as malloc's. */
void *axb_large_alloc(size_t bytes);

#endif
