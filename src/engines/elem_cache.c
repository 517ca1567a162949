/* Per-rank cache of element blocks (the displacement, or strain_only point data, exactly as read)
 * for the plan-level extraction path: finite faults and the library's pair calls. Batches of
 * rupture scenarios ask the same receiver for nearby sources fault after fault, so the same
 * elements come back in later calls; Instaseis keeps such a cache for its one-request-at-a-time
 * use too. The element-partitioned job path does not need it: there every element falls into
 * exactly one batch by construction.
 *
 * FIFO replacement (O(1), no per-hit bookkeeping), an open-addressing hash from element id to
 * slot with backward-shift deletion so evictions leave no tombstones. */
#include <stdlib.h>
#include <string.h>

#include "core/large_alloc.h"
#include "engines/elem_cache.h"

static int64_t hslot(const axb_elem_cache *c, int64_t id)
{
    return (int64_t)(((uint64_t)id * 0x9E3779B97F4A7C15ull) >> (64 - c->bits));
}

axb_status axb_elem_cache_init(axb_elem_cache *c, int64_t bytes, int64_t unit, axb_error *err)
{
    memset(c, 0, sizeof *c);
    c->unit = unit;
    const int64_t cap = unit > 0 ? bytes / (unit * (int64_t)sizeof(float)) : 0;
    if (cap < 1) return AXB_OK; /* disabled */
    int bits = 1;
    while (((int64_t)1 << bits) < 2 * cap) bits++;
    c->bits = bits;
    c->tsize = (int64_t)1 << bits;
    c->ids = malloc((size_t)cap * sizeof *c->ids);
    c->table = malloc((size_t)c->tsize * sizeof *c->table);
    c->data = axb_large_alloc((size_t)cap * (size_t)unit * sizeof *c->data);
    if (!c->ids || !c->table || !c->data) {
        axb_elem_cache_free(c);
        return axb_error_set(err, AXB_ERR_NOMEM, "element cache of %lld blocks (lower the cache size)", (long long)cap);
    }
    for (int64_t k = 0; k < c->tsize; k++) c->table[k] = -1;
    c->cap = cap;
    return AXB_OK;
}

void axb_elem_cache_free(axb_elem_cache *c)
{
    free(c->ids);
    free(c->table);
    free(c->data);
    memset(c, 0, sizeof *c);
}

const float *axb_elem_cache_get(axb_elem_cache *c, int64_t id)
{
    if (c->cap == 0) return NULL;
    const int64_t mask = c->tsize - 1;
    for (int64_t i = hslot(c, id); c->table[i] >= 0; i = (i + 1) & mask)
        if (c->ids[c->table[i]] == id) {
            c->hits++;
            return c->data + c->table[i] * c->unit;
        }
    c->misses++;
    return NULL;
}

/* Removes the table entry of slot s (present by construction). */
static void unlink_slot(axb_elem_cache *c, int64_t s)
{
    const int64_t mask = c->tsize - 1;
    int64_t i = hslot(c, c->ids[s]);
    while (c->table[i] != s) i = (i + 1) & mask;
    for (int64_t j = (i + 1) & mask; c->table[j] >= 0; j = (j + 1) & mask) {
        const int64_t k = hslot(c, c->ids[c->table[j]]);
        /* move j's entry into the hole at i unless its home lies cyclically in (i, j] */
        const bool stays = i <= j ? (k > i && k <= j) : (k > i || k <= j);
        if (!stays) {
            c->table[i] = c->table[j];
            i = j;
        }
    }
    c->table[i] = -1;
}

void axb_elem_cache_put(axb_elem_cache *c, int64_t id, const float *block)
{
    if (c->cap == 0) return;
    int64_t s;
    if (c->n < c->cap) {
        s = c->n++;
    } else {
        s = c->next; /* the oldest */
        c->next = (c->next + 1) % c->cap;
        unlink_slot(c, s);
    }
    c->ids[s] = id;
    memcpy(c->data + s * c->unit, block, (size_t)c->unit * sizeof *block);
    const int64_t mask = c->tsize - 1;
    int64_t i = hslot(c, id);
    while (c->table[i] >= 0) i = (i + 1) & mask;
    c->table[i] = s;
}
