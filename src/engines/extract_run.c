/* Running a plan over many pairs: locate every pair, sort them by element, read the elements in
 * batches (each once), compute each element's strain or displacement once, and turn every pair's
 * raw traces into output samples. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/large_alloc.h"
#include "engines/batch_iter.h"
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
typedef axb_status (*raw_sink)(axb_extract_plan *p, int64_t pair, const axb_pair_ref *ref, double *raw, void *ctx,
                               axb_error *err);

/* The plan's element cache, made on first use. */
static axb_status cache_ready(axb_extract_plan *p, int64_t unit, axb_error *err)
{
    if (p->cache_ready) return AXB_OK;
    AXB_TRY(axb_elem_cache_init(&p->cache, p->opts.cache_mb << 20, unit, err));
    p->cache_ready = true;
    return AXB_OK;
}

/* A walk over located pairs: what every batch needs. */
typedef struct walk {
    axb_extract_plan *p;
    const char *what; /* failures are named "<what> <first + k>" */
    int64_t first;
    const axb_pair_ref *pairs;
    located *L; /* sorted by element */
    raw_sink sink;
    void *ctx;
    int64_t unit;        /* floats per block */
    int64_t *ids, *miss; /* [max_units] units of a batch, those not cached */
    const float **blk;   /* [max_units] each unit's block */
    float *buf;          /* [max_units][unit] blocks read */
} walk;

/* One batch: cached blocks are used in place, the others read (in element order) into buf and
 * put in the cache once the batch no longer needs the blocks a put may evict. */
static axb_status run_batch(walk *w, const axb_batch *bt, axb_error *err)
{
    axb_extract_plan *p = w->p;
    int64_t nm = 0;
    for (int64_t k = 0; k < bt->nread; k++) {
        w->blk[k] = axb_elem_cache_get(&p->cache, w->ids[k]);
        if (!w->blk[k]) w->miss[nm++] = w->ids[k];
    }
    p->stats.cache_hits += bt->nread - nm;
    if (nm > 0)
        AXB_TRY(p->mesh->has_elements ? axb_db_read_elements(p->db, nm, w->miss, AXB_IO_INDEPENDENT, w->buf, err)
                                      : axb_db_read_points(p->db, nm, w->miss, AXB_IO_INDEPENDENT, w->buf, err));
    p->stats.elements_read += nm;
    for (int64_t k = 0, m = 0; k < bt->nread; k++)
        if (!w->blk[k]) w->blk[k] = w->buf + (m++) * w->unit;
    axb_elem_state es = {-1, NULL, false};
    int64_t slot = -1;
    for (int64_t k = bt->first; k < bt->end; k++) {
        const located *l = &w->L[k];
        if (l->loc.id != es.elem) es = (axb_elem_state){l->loc.id, w->blk[++slot], false};
        const axb_pair_ref *ref = &w->pairs[l->pair];
        axb_status st = axb_extract_raw(p, &p->lanes[0], ref, &l->loc, &es, err);
        if (st == AXB_OK) st = w->sink(p, l->pair, ref, p->lanes[0].raw, w->ctx, err);
        p->stats.pairs++;
        if (st != AXB_OK) return axb_error_prefix(err, "%s %lld", w->what, (long long)(w->first + l->pair));
    }
    for (int64_t m = 0; m < nm; m++) axb_elem_cache_put(&p->cache, w->miss[m], w->buf + m * w->unit);
    return AXB_OK;
}

/* Every pair located (failures named "<what> <first + k>"), then sorted by element. */
static axb_status locate_all(walk *w, int64_t n, axb_error *err)
{
    w->L = malloc((size_t)n * sizeof *w->L);
    if (!w->L) return axb_error_set(err, AXB_ERR_NOMEM, "locations of %lld pairs", (long long)n);
    for (int64_t k = 0; k < n; k++) {
        w->L[k].pair = k;
        AXB_TRY_CTX(err, axb_extract_locate(w->p, &w->pairs[k], &w->L[k].loc, err), "%s %lld", w->what,
                    (long long)(w->first + k));
    }
    qsort(w->L, (size_t)n, sizeof *w->L, by_element);
    return AXB_OK;
}

/* Locates every pair, sorts them by element and walks them in batches (engines/batch_iter.h, no
 * item bound: one plan's output is the caller's). */
static axb_status for_each_raw(axb_extract_plan *p, const char *what, int64_t first, int64_t n,
                               const axb_pair_ref *pairs, raw_sink sink, void *ctx, axb_error *err)
{
    if (n <= 0) return AXB_OK;
    walk w = {.p = p, .what = what, .first = first, .pairs = pairs, .sink = sink, .ctx = ctx};
    w.unit = p->mesh->has_elements ? axb_db_block_floats(p->db) : (int64_t)axb_db_point_vars(p->db) * p->nt;
    axb_status st = locate_all(&w, n, err);
    axb_batch_iter it;
    axb_batch_iter_init(&it, w.L, n, sizeof *w.L, offsetof(located, loc) + offsetof(axb_loc, id),
                        w.unit * (int64_t)sizeof(float), p->opts.batch_mb << 20, INT64_MAX);
    const int64_t per = it.max_units;
    w.ids = malloc((size_t)per * sizeof *w.ids);
    w.miss = malloc((size_t)per * sizeof *w.miss);
    w.buf = axb_large_alloc((size_t)per * (size_t)w.unit * sizeof *w.buf);
    w.blk = malloc((size_t)per * sizeof *w.blk);
    if (st == AXB_OK && (!w.ids || !w.miss || !w.buf || !w.blk))
        st = axb_error_set(err, AXB_ERR_NOMEM, "read buffer of %lld elements", (long long)per);
    if (st == AXB_OK) st = cache_ready(p, w.unit, err);
    axb_batch bt;
    while (st == AXB_OK && axb_batch_next(&it, w.ids, &bt)) st = run_batch(&w, &bt, err);
    free(w.blk);
    free(w.miss);
    free(w.ids);
    free(w.buf);
    free(w.L);
    return st;
}

/* Checks a source's sliprate for reconvolution and returns its delay in database samples. */
static axb_status sliprate_ready(const axb_extract_plan *p, const axb_source *src, double *shift, axb_error *err)
{
    AXB_CHECK(err, src->sliprate && src->nsliprate > 0, AXB_ERR_ARG,
              "STF reconvolution needs a sliprate for every source");
    AXB_CHECK(err, fabs(src->dt - p->info->dt) / p->info->dt <= 1e-7, AXB_ERR_ARG,
              "the source's sliprate is sampled at %g s, the database at %g s (resample it first)", src->dt,
              p->info->dt);
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

axb_status axb_extract_finish(const axb_extract_plan *p, axb_extract_lane *ln, const axb_pair_ref *ref, double *raw,
                              double *out, axb_error *err)
{
    int nder;
    AXB_TRY(n_derivatives(p, ref->src->type == AXB_SRC_FORCE, &nder, err));
    double shift = 0;
    if (p->opts.reconvolve_stf) AXB_TRY(sliprate_ready(p, ref->src, &shift, err));
    const int64_t npts = p->win.npts;
    /* one source STF transform per pair, reused for its components */
    if (p->opts.reconvolve_stf)
        AXB_TRY(axb_reconv_set_stf(ln->reconv, ref->src->sliprate, ref->src->nsliprate, shift, err));
    for (int k = 0; k < p->ncomp; k++) {
        double *tr = raw + k * p->nt;
        if (p->opts.reconvolve_stf) AXB_TRY(axb_reconv_apply(ln->reconv, tr, err));
        axb_time_plan_finish(p->tplan, nder, tr, out + k * npts, ln->time_work);
    }
    return AXB_OK;
}

typedef struct pairs_ctx {
    double *out;
} pairs_ctx;

static axb_status finish_pair(axb_extract_plan *p, int64_t pair, const axb_pair_ref *ref, double *raw, void *vctx,
                              axb_error *err)
{
    pairs_ctx *c = vctx;
    return axb_extract_finish(p, &p->lanes[0], ref, raw, c->out + pair * p->ncomp * p->win.npts, err);
}

axb_status axb_extract_pairs_from(axb_extract_plan *p, int64_t first, int64_t n, const axb_pair_ref *pairs, double *out,
                                  axb_error *err)
{
    pairs_ctx c = {out};
    return for_each_raw(p, "pair", first, n, pairs, finish_pair, &c, err);
}

axb_status axb_extract_pairs(axb_extract_plan *p, int64_t n, const axb_pair_ref *pairs, double *out, axb_error *err)
{
    return axb_extract_pairs_from(p, 0, n, pairs, out, err);
}

typedef struct finite_ctx {
    double *sum; /* [ncomp][nt] */
} finite_ctx;

static axb_status add_subfault(axb_extract_plan *p, int64_t pair, const axb_pair_ref *ref, double *raw, void *vctx,
                               axb_error *err)
{
    (void)pair;
    finite_ctx *c = vctx;
    double shift = 0;
    AXB_TRY(sliprate_ready(p, ref->src, &shift, err));
    axb_reconv_plan *rc = p->lanes[0].reconv;
    AXB_TRY(axb_reconv_set_stf(rc, ref->src->sliprate, ref->src->nsliprate, shift, err));
    for (int k = 0; k < p->ncomp; k++) {
        double *tr = raw + k * p->nt;
        AXB_TRY(axb_reconv_apply(rc, tr, err));
        double *s = c->sum + k * p->nt;
        for (int64_t t = 0; t < p->nt; t++) s[t] += tr[t];
    }
    return AXB_OK;
}

axb_status axb_extract_check_rupture_time(const char *name, double time_shift, int64_t nfft, double dt, axb_error *err)
{
    const double ts = isnan(time_shift) ? 0.0 : time_shift, period = (double)nfft * dt;
    AXB_CHECK(err, isfinite(ts), AXB_ERR_RANGE, "'%s': rupture time is not a finite number", name);
    AXB_CHECK(err, ts >= 0.0, AXB_ERR_RANGE, "'%s': rupture time %g s is negative", name, ts);
    AXB_CHECK(err, ts < period, AXB_ERR_RANGE,
              "'%s': rupture time %g s is not shorter than the database's record length %g s (nfft %lld x dt %g "
              "s), beyond which it would wrap around to the start",
              name, ts, period, (long long)nfft, dt);
    return AXB_OK;
}

axb_status axb_extract_finite(axb_extract_plan *p, int64_t n, const axb_source *sub, const axb_receiver *rec,
                              double *out, axb_error *err)
{
    AXB_CHECK(err, p->info->kind == AXB_DB_RECIPROCAL, AXB_ERR_UNSUPPORTED,
              "finite sources need a reciprocal database");
    AXB_CHECK(err, p->opts.reconvolve_stf && !p->opts.remove_source_shift, AXB_ERR_ARG,
              "finite sources need a plan with STF reconvolution and without source-shift removal");
    AXB_CHECK(err, n >= 1, AXB_ERR_ARG, "a finite source needs at least one point source");
    for (int64_t k = 0; k < n; k++) {
        AXB_CHECK(err, sub[k].type == AXB_SRC_MOMENT, AXB_ERR_ARG,
                  "point source %lld of the finite source is not a moment tensor", (long long)k);
        /* library callers too: the job path checks the same when it resamples (extract_faults.c) */
        if (axb_extract_check_rupture_time(sub[k].name, sub[k].time_shift, axb_reconv_plan_nfft(p->lanes[0].reconv),
                                           p->info->dt, err))
            return axb_error_prefix(err, "point source %lld", (long long)k);
    }
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
        axb_time_plan_finish(p->tplan, nder, sum + k * p->nt, out + k * p->win.npts, p->lanes[0].time_work);
    free(refs);
    free(sum);
    return st;
}
