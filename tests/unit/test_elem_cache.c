/* The extraction's element cache (src/engines/elem_cache.c) against a plain model: a FIFO of
 * (id, block) kept in an array and searched linearly. Random ids from a small range make hits,
 * misses, evictions and hash collisions (the table is only twice the capacity) all frequent; every
 * get must agree with the model on presence and, when present, on the block's contents. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "engines/elem_cache.h"

#define UNIT 7

static void block_of(int64_t id, int64_t version, float *b)
{
    for (int k = 0; k < UNIT; k++) b[k] = (float)(id * 1000 + version * 10 + k);
}

int main(void)
{
    check_ctx T = {0, 0, 0};
    axb_error err = AXB_ERROR_INIT;
    const int caps[3] = {1, 5, 64};
    for (int c = 0; c < 3; c++) {
        axb_elem_cache cache;
        CHECK(&T, axb_elem_cache_init(&cache, (int64_t)caps[c] * UNIT * (int64_t)sizeof(float), UNIT, &err) == AXB_OK);
        CHECK(&T, cache.cap == caps[c]);
        int64_t model_id[64], model_ver[64], nmodel = 0, next = 0, version = 0;
        long wrong = 0, hits = 0, gets = 0;
        srand(11 + c);
        for (int step = 0; step < 200000; step++) {
            const int64_t id = rand() % (3 * caps[c] + 2) - 1; /* includes -1 and 0 */
            const float *got = axb_elem_cache_get(&cache, id);
            gets++;
            int64_t m = -1;
            for (int64_t k = 0; k < nmodel; k++)
                if (model_id[k] == id) m = k;
            if ((got != NULL) != (m >= 0)) {
                wrong++;
                continue;
            }
            if (got) {
                hits++;
                float want[UNIT];
                block_of(id, model_ver[m], want);
                if (memcmp(got, want, sizeof want)) wrong++;
                continue;
            }
            float b[UNIT];
            block_of(id, ++version, b);
            axb_elem_cache_put(&cache, id, b);
            if (nmodel < caps[c]) {
                model_id[nmodel] = id;
                model_ver[nmodel++] = version;
            } else {
                model_id[next] = id; /* FIFO: the oldest slot is reused */
                model_ver[next] = version;
                next = (next + 1) % caps[c];
            }
        }
        CHECK_MSG(&T, wrong == 0, "capacity %d: %ld of %ld gets disagree with the model", caps[c], wrong, gets);
        CHECK_MSG(&T, hits > gets / 10 && hits < gets, "capacity %d: %ld hits of %ld (not exercised)", caps[c], hits,
                  gets);
        CHECK(&T, cache.hits == hits && cache.misses == gets - hits);
        axb_elem_cache_free(&cache);
    }
    /* disabled: never stores, never finds */
    axb_elem_cache off;
    CHECK(&T, axb_elem_cache_init(&off, 0, UNIT, &err) == AXB_OK && off.cap == 0);
    float b[UNIT] = {0};
    axb_elem_cache_put(&off, 3, b);
    CHECK(&T, axb_elem_cache_get(&off, 3) == NULL);
    axb_elem_cache_free(&off);
    return check_summary(&T);
}
