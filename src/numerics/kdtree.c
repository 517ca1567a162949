/* Implicit balanced KD-tree: the points are permuted so that every range [lo, hi) is split at its
 * middle element by alternating axes; no node structs, one index array. */
#include "numerics/kdtree.h"

#include <stdbool.h>
#include <stdlib.h>

#define KMAX 64

struct axb_kdtree {
    int64_t n;
    double *x, *y; /* coordinates by original index */
    int64_t *perm; /* tree order -> original index */
};

static double coord(const axb_kdtree *t, int64_t i, int axis)
{
    return axis ? t->y[i] : t->x[i];
}

/* Quickselect on perm[lo, hi) so that perm[mid] holds the median along axis. */
static void select_mid(axb_kdtree *t, int64_t lo, int64_t hi, int64_t mid, int axis)
{
    int64_t *p = t->perm;
    while (hi - lo > 1) {
        int64_t a = lo, b = hi - 1, c = lo + (hi - lo) / 2;
        /* median of three as pivot, moved to the end */
        double va = coord(t, p[a], axis), vb = coord(t, p[b], axis), vc = coord(t, p[c], axis);
        int64_t piv = (va < vb) ? ((vb < vc) ? b : (va < vc ? c : a)) : ((va < vc) ? a : (vb < vc ? c : b));
        int64_t tmp = p[piv];
        p[piv] = p[b];
        p[b] = tmp;
        const double pv = coord(t, p[b], axis);
        int64_t store = lo;
        for (int64_t i = lo; i < b; i++)
            if (coord(t, p[i], axis) < pv) {
                tmp = p[i];
                p[i] = p[store];
                p[store] = tmp;
                store++;
            }
        tmp = p[store];
        p[store] = p[b];
        p[b] = tmp;
        if (store == mid) return;
        if (mid < store)
            hi = store;
        else
            lo = store + 1;
    }
}

static void build(axb_kdtree *t, int64_t lo, int64_t hi, int depth)
{
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        select_mid(t, lo, hi, mid, depth & 1);
        build(t, lo, mid, depth + 1);
        lo = mid + 1;
        depth++;
    }
}

axb_status axb_kdtree_create(int64_t n, const double *x, const double *y, axb_kdtree **tree, axb_error *err)
{
    *tree = NULL;
    AXB_CHECK(err, n >= 1, AXB_ERR_ARG, "KD-tree over %lld points", (long long)n);
    axb_kdtree *t = calloc(1, sizeof *t);
    if (t) {
        t->n = n;
        t->x = malloc((size_t)n * sizeof *t->x);
        t->y = malloc((size_t)n * sizeof *t->y);
        t->perm = malloc((size_t)n * sizeof *t->perm);
    }
    if (!t || !t->x || !t->y || !t->perm) {
        axb_kdtree_destroy(&t);
        return axb_error_set(err, AXB_ERR_NOMEM, "KD-tree over %lld points", (long long)n);
    }
    for (int64_t i = 0; i < n; i++) {
        t->x[i] = x[i];
        t->y[i] = y[i];
        t->perm[i] = i;
    }
    build(t, 0, n, 0);
    *tree = t;
    return AXB_OK;
}

void axb_kdtree_destroy(axb_kdtree **tree)
{
    if (!tree || !*tree) return;
    free((*tree)->x);
    free((*tree)->y);
    free((*tree)->perm);
    free(*tree);
    *tree = NULL;
}

typedef struct query {
    double x, y;
    int k, found;
    int64_t idx[KMAX];
    double d2[KMAX]; /* sorted ascending */
} query;

static bool before(double da, int64_t ia, double db, int64_t ib)
{
    return da < db || (da == db && ia < ib);
}

static void offer(query *q, int64_t i, double d)
{
    if (q->found == q->k && !before(d, i, q->d2[q->k - 1], q->idx[q->k - 1])) return;
    int pos = q->found < q->k ? q->found++ : q->k - 1;
    while (pos > 0 && before(d, i, q->d2[pos - 1], q->idx[pos - 1])) {
        q->d2[pos] = q->d2[pos - 1];
        q->idx[pos] = q->idx[pos - 1];
        pos--;
    }
    q->d2[pos] = d;
    q->idx[pos] = i;
}

static void search(const axb_kdtree *t, query *q, int64_t lo, int64_t hi, int depth)
{
    if (hi <= lo) return;
    const int64_t mid = lo + (hi - lo) / 2, i = t->perm[mid];
    const double dx = t->x[i] - q->x, dy = t->y[i] - q->y;
    offer(q, i, dx * dx + dy * dy);
    const double diff = (depth & 1) ? q->y - t->y[i] : q->x - t->x[i];
    const bool left_first = diff < 0;
    search(t, q, left_first ? lo : mid + 1, left_first ? mid : hi, depth + 1);
    /* the far side can only hold a closer point if the splitting line is within reach */
    if (q->found < q->k || diff * diff <= q->d2[q->found - 1])
        search(t, q, left_first ? mid + 1 : lo, left_first ? hi : mid, depth + 1);
}

int axb_kdtree_nearest(const axb_kdtree *tree, double x, double y, int k, int64_t *idx, double *d2)
{
    query q;
    q.x = x;
    q.y = y;
    q.k = k < 1 ? 1 : (k > KMAX ? KMAX : k);
    if (q.k > tree->n) q.k = (int)tree->n;
    q.found = 0;
    search(tree, &q, 0, tree->n, 0);
    for (int r = 0; r < q.found; r++) {
        idx[r] = q.idx[r];
        if (d2) d2[r] = q.d2[r];
    }
    return q.found;
}
