/* Bounded per-rank cache of element-sized float blocks keyed by element id: the extraction keeps
 * database blocks in it (elem_cache.c explains why), the kernel engine the strain and displacement
 * it derived from them. cap 0: disabled. */
#ifndef AXB_ENGINES_ELEM_CACHE_H
#define AXB_ENGINES_ELEM_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "axibulk/status.h"

typedef struct axb_elem_cache {
    int64_t cap, n, next, unit; /* blocks, used, next FIFO victim, floats per block */
    int bits;
    int64_t tsize;
    int64_t *ids;   /* [cap] element of each slot */
    int64_t *table; /* [tsize] slot or -1 */
    float *data;    /* [cap][unit] */
    int64_t hits, misses;
} axb_elem_cache;
axb_status axb_elem_cache_init(axb_elem_cache *c, int64_t bytes, int64_t unit, axb_error *err);
void axb_elem_cache_free(axb_elem_cache *c);
/* The cached block of element id, or NULL; valid until the next put. */
const float *axb_elem_cache_get(axb_elem_cache *c, int64_t id);
/* Copies a block in, evicting the oldest when full; id must not be cached already. */
void axb_elem_cache_put(axb_elem_cache *c, int64_t id, const float *block);

#endif
