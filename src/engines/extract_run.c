/* Running a plan over many pairs: locate every pair, sort them by element, read the elements in
 * batches (each once), compute each element's strain or displacement once, and turn every pair's
 * raw traces into output samples. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engines/extract_internal.h"

typedef struct located {
    axb_loc loc;
    int64_t pair;
} located;

static int by_element(const void *a, const void *b)
{
    const located *x = a, *y = b;
    if (x->loc.id != y->loc.id) return x->loc.id < y->loc.id ? -1 : 1;
    return (x->pair > y->pair) - (x->pair < y->pair);
}

/* Called with each pair's raw traces [ncomp][nt], in element order. */
typedef axb_status (*raw_sink)(axb_extract_plan *p, int64_t pair, const axb_pair_ref *ref,
                               double *raw, void *ctx, axb_error *err);

/* Failures are named "<what> <first + k>". */
static axb_status for_each_raw(axb_extract_plan *p, const char *what, int64_t first, int64_t n,
                               const axb_pair_ref *pairs, raw_sink sink, void *ctx, axb_error *err)
{
    if (n <= 0) return AXB_OK;
    located *L = malloc((size_t)n * sizeof *L);
    if (!L) return axb_error_set(err, AXB_ERR_NOMEM, "locations of %lld pairs", (long long)n);
    axb_status st = AXB_OK;
    for (int64_t k = 0; k < n && !st; k++) {
        L[k].pair = k;
        st = axb_extract_locate(p, &pairs[k], &L[k].loc, err);
        if (st) axb_error_prefix(err, "%s %lld", what, (long long)(first + k));
    }
    if (st) {
        free(L);
        return st;
    }
    qsort(L, (size_t)n, sizeof *L, by_element);

    const bool elements = p->mesh->has_elements;
    const int64_t unit = elements ? axb_db_block_floats(p->db)
                                  : (int64_t)axb_db_point_vars(p->db) * p->nt;
    int64_t per_batch = (p->opts.batch_mb << 20) / (unit * (int64_t)sizeof(float));
    if (per_batch < 1) per_batch = 1;
    int64_t *ids = malloc((size_t)per_batch * sizeof *ids);
    float *buf = malloc((size_t)per_batch * (size_t)unit * sizeof *buf);
    if (!ids || !buf) st = axb_error_set(err, AXB_ERR_NOMEM, "read buffer of %lld elements", (long long)per_batch);

    if (!st && !p->cache_ready) {
        st = axb_elem_cache_init(&p->cache, p->opts.cache_mb << 20, unit, err);
        p->cache_ready = st == AXB_OK;
    }
    const float **blk = malloc((size_t)per_batch * sizeof *blk);
    int64_t *miss = malloc((size_t)per_batch * sizeof *miss);
    if (!st && (!blk || !miss)) st = axb_error_set(err, AXB_ERR_NOMEM, "batch tables of %lld elements", (long long)per_batch);

    for (int64_t a = 0; a < n && !st;) {
        /* the next batch: up to per_batch distinct elements */
        int64_t b = a, nb = 0;
        while (b < n && (nb < per_batch || L[b].loc.id == ids[nb - 1])) {
            if (nb == 0 || L[b].loc.id != ids[nb - 1]) ids[nb++] = L[b].loc.id;
            b++;
        }
        /* cached blocks are used in place; the others are read (in element order) into buf */
        int64_t nm = 0;
        for (int64_t k = 0; k < nb; k++) {
            blk[k] = axb_elem_cache_get(&p->cache, ids[k]);
            if (!blk[k]) miss[nm++] = ids[k];
        }
        p->stats.cache_hits += nb - nm;
        if (nm > 0)
            st = elements ? axb_db_read_elements(p->db, nm, miss, AXB_IO_INDEPENDENT, buf, err)
                          : axb_db_read_points(p->db, nm, miss, AXB_IO_INDEPENDENT, buf, err);
        if (st) break;
        p->stats.elements_read += nm;
        for (int64_t k = 0, m = 0; k < nb; k++)
            if (!blk[k]) blk[k] = buf + (m++) * unit;
        axb_elem_state es = {-1, NULL, false, false};
        int64_t slot = -1;
        for (int64_t k = a; k < b && !st; k++) {
            if (L[k].loc.id != es.elem) {
                slot++;
                es = (axb_elem_state){L[k].loc.id, blk[slot], false, false};
            }
            const axb_pair_ref *ref = &pairs[L[k].pair];
            st = axb_extract_raw(p, ref, &L[k].loc, &es, es.block, p->raw, err);
            if (!st) st = sink(p, L[k].pair, ref, p->raw, ctx, err);
            if (st) axb_error_prefix(err, "%s %lld", what, (long long)(first + L[k].pair));
            p->stats.pairs++;
        }
        /* only now: a put may evict a block this batch was still using */
        for (int64_t m = 0; m < nm && !st; m++) axb_elem_cache_put(&p->cache, miss[m], buf + m * unit);
        a = b;
    }
    free(blk);
    free(miss);
    free(ids);
    free(buf);
    free(L);
    return st;
}

/* Checks a source's sliprate for reconvolution and returns its delay in database samples. */
static axb_status sliprate_ready(const axb_extract_plan *p, const axb_source *src, double *shift,
                                 axb_error *err)
{
    AXB_CHECK(err, src->sliprate && src->nsliprate > 0, AXB_ERR_ARG,
              "STF reconvolution needs a sliprate for every source");
    AXB_CHECK(err, fabs(src->dt - p->info->dt) / p->info->dt <= 1e-7, AXB_ERR_ARG,
              "the source's sliprate is sampled at %g s, the database at %g s (resample it first)",
              src->dt, p->info->dt);
    *shift = isnan(src->time_shift) ? 0.0 : src->time_shift / p->info->dt;
    return AXB_OK;
}

static axb_status n_derivatives(const axb_extract_plan *p, bool force, int *nder, axb_error *err)
{
    *nder = (int)p->opts.quantity - p->info->stf_map + (force ? 1 : 0);
    AXB_CHECK(err, *nder >= 0, AXB_ERR_UNSUPPORTED,
              "%s from a database with a %s source time function would need integration",
              axb_quantity_name(p->opts.quantity), p->info->stf);
    return AXB_OK;
}

axb_status axb_extract_finish(axb_extract_plan *p, const axb_pair_ref *ref, double *raw, double *out,
                              axb_error *err)
{
    int nder;
    AXB_TRY(n_derivatives(p, ref->src->type == AXB_SRC_FORCE, &nder, err));
    double shift = 0;
    if (p->opts.reconvolve_stf) AXB_TRY(sliprate_ready(p, ref->src, &shift, err));
    const int64_t npts = p->win.npts;
    /* one source STF transform per pair, reused for its components */
    if (p->opts.reconvolve_stf)
        AXB_TRY(axb_reconv_set_stf(p->reconv, ref->src->sliprate, ref->src->nsliprate, shift, err));
    for (int k = 0; k < p->ncomp; k++) {
        double *tr = raw + k * p->nt;
        if (p->opts.reconvolve_stf) AXB_TRY(axb_reconv_apply(p->reconv, tr, err));
        axb_time_plan_finish(p->tplan, nder, tr, out + k * npts, p->time_work);
    }
    return AXB_OK;
}

typedef struct pairs_ctx {
    double *out;
} pairs_ctx;

static axb_status finish_pair(axb_extract_plan *p, int64_t pair, const axb_pair_ref *ref, double *raw,
                              void *vctx, axb_error *err)
{
    pairs_ctx *c = vctx;
    return axb_extract_finish(p, ref, raw, c->out + pair * p->ncomp * p->win.npts, err);
}

axb_status axb_extract_pairs_from(axb_extract_plan *p, int64_t first, int64_t n,
                                  const axb_pair_ref *pairs, double *out, axb_error *err)
{
    pairs_ctx c = {out};
    return for_each_raw(p, "pair", first, n, pairs, finish_pair, &c, err);
}

axb_status axb_extract_pairs(axb_extract_plan *p, int64_t n, const axb_pair_ref *pairs, double *out,
                             axb_error *err)
{
    return axb_extract_pairs_from(p, 0, n, pairs, out, err);
}

typedef struct finite_ctx {
    double *sum;                /* [ncomp][nt] */
} finite_ctx;

static axb_status add_subfault(axb_extract_plan *p, int64_t pair, const axb_pair_ref *ref, double *raw,
                               void *vctx, axb_error *err)
{
    (void)pair;
    finite_ctx *c = vctx;
    double shift = 0;
    AXB_TRY(sliprate_ready(p, ref->src, &shift, err));
    AXB_TRY(axb_reconv_set_stf(p->reconv, ref->src->sliprate, ref->src->nsliprate, shift, err));
    for (int k = 0; k < p->ncomp; k++) {
        double *tr = raw + k * p->nt;
        AXB_TRY(axb_reconv_apply(p->reconv, tr, err));
        double *s = c->sum + k * p->nt;
        for (int64_t t = 0; t < p->nt; t++) s[t] += tr[t];
    }
    return AXB_OK;
}

axb_status axb_extract_finite(axb_extract_plan *p, int64_t n, const axb_source *sub,
                              const axb_receiver *rec, double *out, axb_error *err)
{
    AXB_CHECK(err, p->info->kind == AXB_DB_RECIPROCAL, AXB_ERR_UNSUPPORTED,
              "finite sources need a reciprocal database");
    AXB_CHECK(err, p->opts.reconvolve_stf && !p->opts.remove_source_shift, AXB_ERR_ARG,
              "finite sources need a plan with STF reconvolution and without source-shift removal");
    AXB_CHECK(err, n >= 1, AXB_ERR_ARG, "a finite source needs at least one point source");
    for (int64_t k = 0; k < n; k++)
        AXB_CHECK(err, sub[k].type == AXB_SRC_MOMENT, AXB_ERR_ARG,
                  "point source %lld of the finite source is not a moment tensor", (long long)k);
    axb_pair_ref *refs = malloc((size_t)n * sizeof *refs);
    double *sum = calloc((size_t)p->ncomp * (size_t)p->nt, sizeof *sum);
    axb_status st = AXB_OK;
    if (!refs || !sum) st = axb_error_set(err, AXB_ERR_NOMEM, "finite source of %lld points", (long long)n);
    if (!st) {
        for (int64_t k = 0; k < n; k++) refs[k] = (axb_pair_ref){&sub[k], rec};
        finite_ctx c = {sum};
        st = for_each_raw(p, "point source", 0, n, refs, add_subfault, &c, err);
    }
    int nder = 0;
    if (!st) st = n_derivatives(p, false, &nder, err);
    for (int k = 0; k < p->ncomp && !st; k++)
        axb_time_plan_finish(p->tplan, nder, sum + k * p->nt, out + k * p->win.npts, p->time_work);
    free(refs);
    free(sum);
    return st;
}
