/* The batch iterator of the engines (src/engines/batch_iter.c) against its rules, on random sorted
 * item lists and bounds: batches cover the items in order; a batch holds at most max_units
 * distinct units and max_items items; a unit's items are cut only by the item bound, and then the
 * unit is carried (not listed for reading in the next batch); every other unit of a batch is
 * listed once, in order; axb_batch_count foretells the number of batches. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engines/batch_iter.h"

typedef struct item {
    double payload; /* the id sits at an offset, as in the engines' structs */
    int64_t unit;
} item;

static void check_list(check_ctx *T, const item *it, int64_t n, int64_t max_units, int64_t max_items)
{
    axb_batch_iter bi;
    const int64_t unit_bytes = 1000;
    axb_batch_iter_init(&bi, it, n, sizeof *it, offsetof(item, unit), unit_bytes, max_units * unit_bytes, max_items);
    const int64_t predicted = axb_batch_count(&bi);
    int64_t *ids = malloc((size_t)max_units * sizeof *ids);
    axb_batch b;
    int64_t next = 0, nb = 0, prev_last = -1;
    bool prev_carry = false;
    while (axb_batch_next(&bi, ids, &b)) {
        nb++;
        CHECK_MSG(T, b.first == next && b.end > b.first, "batch %lld covers [%lld, %lld)", (long long)nb,
                  (long long)b.first, (long long)b.end);
        CHECK(T, b.end - b.first <= max_items);
        CHECK(T, b.nunits <= max_units);
        CHECK(T, b.carried_in == (prev_carry && it[b.first].unit == prev_last));
        CHECK(T, b.carried_in == prev_carry);
        int64_t u = 0, listed = 0;
        for (int64_t k = b.first; k < b.end; k++) {
            if (k > b.first && it[k].unit == it[k - 1].unit) continue;
            if (!(u == 0 && b.carried_in)) {
                CHECK_MSG(T, listed < b.nread && ids[listed] == it[k].unit, "unit %lld listed", (long long)it[k].unit);
                listed++;
            }
            u++;
        }
        CHECK(T, u == b.nunits && listed == b.nread);
        const bool cut = b.end < n && it[b.end].unit == it[b.end - 1].unit;
        CHECK(T, b.carry_out == cut);
        /* a cut only where the item bound forced it */
        if (cut) CHECK(T, b.end - b.first == max_items);
        /* a batch that stops at a unit boundary before the item bound is full of units */
        if (!cut && b.end < n && b.end - b.first < max_items) CHECK(T, b.nunits == max_units);
        prev_carry = b.carry_out;
        prev_last = it[b.end - 1].unit;
        next = b.end;
    }
    CHECK(T, next == n);
    CHECK(T, nb == predicted);
    free(ids);
}

int main(void)
{
    check_ctx T = {0, 0, 0};
    srand(7);
    item *it = malloc(4000 * sizeof *it);
    for (int trial = 0; trial < 2000; trial++) {
        const int64_t n = rand() % 4000;
        int64_t u = rand() % 5;
        for (int64_t k = 0; k < n; k++) {
            if (rand() % 4 == 0) u += 1 + rand() % 3; /* runs of items per unit, gaps between units */
            it[k] = (item){(double)k, u};
        }
        const int64_t max_units = 1 + rand() % 20;
        const int64_t max_items = trial % 3 == 0 ? INT64_MAX : 1 + rand() % 50;
        check_list(&T, it, n, max_units, max_items);
    }
    /* no items: no batch */
    axb_batch_iter bi;
    axb_batch b;
    axb_batch_iter_init(&bi, it, 0, sizeof *it, offsetof(item, unit), 8, 8, 4);
    CHECK(&T, !axb_batch_next(&bi, NULL, &b) && axb_batch_count(&bi) == 0);
    free(it);
    return check_summary(&T);
}
