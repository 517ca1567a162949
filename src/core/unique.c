#include "core/unique.h"

#include <stdlib.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t find(const int64_t *u, int64_t nu, int64_t v)
{
    int64_t lo = 0, hi = nu - 1;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (u[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

axb_status axb_unique_i64(const int64_t *in, int64_t n, int64_t **uniq, int64_t *nu, int64_t **inv, axb_error *err)
{
    *uniq = NULL;
    *nu = 0;
    if (inv) *inv = NULL;
    if (n <= 0) return AXB_OK;
    int64_t *u = malloc((size_t)n * sizeof *u);
    int64_t *iv = inv ? malloc((size_t)n * sizeof *iv) : NULL;
    if (!u || (inv && !iv)) {
        free(u);
        free(iv);
        return axb_error_set(err, AXB_ERR_NOMEM, "index list of %lld entries", (long long)n);
    }
    for (int64_t k = 0; k < n; k++) u[k] = in[k];
    qsort(u, (size_t)n, sizeof *u, cmp_i64);
    int64_t m = 0;
    for (int64_t k = 0; k < n; k++)
        if (k == 0 || u[k] != u[m - 1]) u[m++] = u[k];
    if (iv)
        for (int64_t k = 0; k < n; k++) iv[k] = find(u, m, in[k]);
    *uniq = u;
    *nu = m;
    if (inv) *inv = iv;
    return AXB_OK;
}
