#include "engines/batch_iter.h"

void axb_batch_iter_init(axb_batch_iter *it, const void *items, int64_t n, size_t stride, size_t id_offset,
                         int64_t unit_bytes, int64_t batch_bytes, int64_t max_items)
{
    const int64_t units = unit_bytes > 0 ? batch_bytes / unit_bytes : 1;
    *it = (axb_batch_iter){.items = items,
                           .stride = stride,
                           .id_offset = id_offset,
                           .n = n,
                           .max_units = units > 1 ? units : 1,
                           .max_items = max_items > 1 ? max_items : 1,
                           .next = 0,
                           .carry = -1};
}

bool axb_batch_next(axb_batch_iter *it, int64_t *ids, axb_batch *b)
{
    const int64_t a = it->next;
    if (a >= it->n) return false;
    *b = (axb_batch){.first = a, .carried_in = axb_batch_unit(it, a) == it->carry};
    int64_t k = a, prev = -1;
    /* a unit already in the batch takes its further items whatever the unit bound */
    while (k < it->n && k - a < it->max_items) {
        const int64_t id = axb_batch_unit(it, k);
        if (id != prev) {
            if (b->nunits == it->max_units) break;
            if (!(k == a && b->carried_in)) {
                if (ids) ids[b->nread] = id;
                b->nread++;
            }
            b->nunits++;
            prev = id;
        }
        k++;
    }
    b->end = k;
    b->carry_out = k < it->n && axb_batch_unit(it, k) == prev;
    /* a carried unit that fills a whole batch stays carried */
    it->carry = b->carry_out ? prev : -1;
    it->next = k;
    return true;
}

int64_t axb_batch_count(const axb_batch_iter *it)
{
    axb_batch_iter copy = *it;
    axb_batch b;
    int64_t n = 0;
    while (axb_batch_next(&copy, NULL, &b)) n++;
    return n;
}
