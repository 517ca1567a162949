/* Batches over located items: the one rule by which every engine that reads database elements for
 * items located in them (extraction pairs today; a kernel's quadrature points of inversion cells
 * to come) groups its reads. The items are sorted by unit (element, or stored point); a batch
 * takes items in that order until it holds max_units distinct units (bounded bytes of element
 * data) or max_items items (bounded output), never cutting a unit's items for the unit bound.
 * Each unit is read at most once per batch; a unit whose items are cut by the item bound is
 * carried: the caller keeps its block, and the next batch does not read it again.
 *
 * The iterator only looks at the items' unit ids (an int64 field at a fixed offset of each item,
 * so any item struct works) and owns no memory. */
#ifndef AXB_ENGINES_BATCH_ITER_H
#define AXB_ENGINES_BATCH_ITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct axb_batch_iter {
    const char *items;        /* [n] items of @p stride bytes, sorted by unit id */
    size_t stride, id_offset; /* item size; offset of the int64 unit id in an item */
    int64_t n;
    int64_t max_units; /* distinct units per batch, >= 1 */
    int64_t max_items; /* items per batch, >= 1 (INT64_MAX: no bound) */
    int64_t next;      /* first item of the next batch */
    int64_t carry;     /* unit whose block the caller keeps from the last batch, or -1 */
} axb_batch_iter;

typedef struct axb_batch {
    int64_t first, end; /* the batch's items [first, end) */
    int64_t nunits;     /* its distinct units, in item order */
    int64_t nread;      /* units to read: ids[0..nread) (nunits, less a carried first unit) */
    bool carried_in;    /* the first unit is the block kept from the previous batch */
    bool carry_out;     /* the last unit's items continue in the next batch: keep its block */
} axb_batch;

/* Starts over @p n items. @p unit_bytes is one unit's data, @p batch_bytes the budget for a batch's
 * units (at least one unit fits whatever the budget). */
void axb_batch_iter_init(axb_batch_iter *it, const void *items, int64_t n, size_t stride, size_t id_offset,
                         int64_t unit_bytes, int64_t batch_bytes, int64_t max_items);

/* The next batch into *b and the units to read into ids[max_units] (may be NULL); false when every
 * item was taken. */
bool axb_batch_next(axb_batch_iter *it, int64_t *ids, axb_batch *b);

/* The number of batches left, without taking them: collective engines loop the maximum over
 * ranks, ranks with nothing left taking part with empty batches. */
int64_t axb_batch_count(const axb_batch_iter *it);

/* The unit id of item @p k. */
static inline int64_t axb_batch_unit(const axb_batch_iter *it, int64_t k)
{
    int64_t id;
    memcpy(&id, it->items + (size_t)k * it->stride + it->id_offset, sizeof id);
    return id;
}

/* The block of the batch's unit number @p u (0-based, in item order): the carried block when the
 * batch starts with one, else the blocks read, in the order of ids. */
static inline const float *axb_batch_block(const axb_batch *b, int64_t u, const float *read, const float *carried,
                                           int64_t unit_floats)
{
    if (b->carried_in) return u == 0 ? carried : read + (u - 1) * unit_floats;
    return read + u * unit_floats;
}

#endif
