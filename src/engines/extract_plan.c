/* Planning an extraction: options checked against the database, the output time window, the
 * KD-tree, FFTW reconvolution plans and every scratch buffer, once. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/extract_internal.h"

const char *axb_quantity_name(axb_quantity k)
{
    return k == AXB_QUANTITY_VELOCITY ? "velocity" : k == AXB_QUANTITY_ACCELERATION ? "acceleration" : "displacement";
}

const char *axb_quantity_units(axb_quantity k)
{
    return k == AXB_QUANTITY_VELOCITY ? "m/s" : k == AXB_QUANTITY_ACCELERATION ? "m/s^2" : "m";
}

axb_status axb_quantity_parse(const char *s, axb_quantity *kind, axb_error *err)
{
    for (int k = 0; k < 3; k++)
        if (!strcmp(s, axb_quantity_name((axb_quantity)k))) {
            *kind = (axb_quantity)k;
            return AXB_OK;
        }
    return axb_error_set(err, AXB_ERR_ARG, "unknown kind '%s' (displacement, velocity or acceleration)", s);
}

static axb_status check_components(axb_extract_plan *p, axb_error *err)
{
    const axb_db_info *in = p->info;
    const char *c = p->opts.components;
    if (!c[0]) {
        /* Instaseis' defaults */
        if (in->kind == AXB_DB_FORWARD || (in->has_sim[AXB_SIM_PX] && in->has_sim[AXB_SIM_PZ]))
            c = "ZNE";
        else if (in->has_sim[AXB_SIM_PX])
            c = "NE";
        else
            c = "Z";
    }
    AXB_CHECK(err, strlen(c) <= 5, AXB_ERR_ARG, "components '%s': at most five of Z, N, E, R, T", c);
    for (const char *q = c; *q; q++) {
        AXB_CHECK(err, strchr("ZNERT", *q), AXB_ERR_ARG, "components '%s': '%c' is not one of Z, N, E, R, T", c, *q);
        AXB_CHECK(err, !strchr(q + 1, *q), AXB_ERR_ARG, "components '%s': '%c' twice", c, *q);
        if (in->kind == AXB_DB_RECIPROCAL) {
            bool vert = *q == 'Z';
            AXB_CHECK(err, !vert || in->has_sim[AXB_SIM_PZ], AXB_ERR_RANGE,
                      "component Z needs the PZ simulation; this database is horizontal only");
            AXB_CHECK(err, vert || in->has_sim[AXB_SIM_PX], AXB_ERR_RANGE,
                      "component %c needs the PX simulation; this database is vertical only", *q);
            if (vert)
                p->need_pz = true;
            else
                p->need_px = true;
        }
    }
    snprintf(p->comps, sizeof p->comps, "%s", c);
    p->ncomp = (int)strlen(c);
    return AXB_OK;
}

static axb_status build_tree(axb_extract_plan *p, axb_error *err)
{
    const axb_mesh *m = p->mesh;
    if (m->has_elements) return axb_kdtree_create(m->nelem, m->mp_s, m->mp_z, &p->tree, err);
    double *x = malloc((size_t)m->npoints * sizeof *x), *y = malloc((size_t)m->npoints * sizeof *y);
    axb_status st;
    if (!x || !y)
        st = axb_error_set(err, AXB_ERR_NOMEM, "KD-tree of %lld points", (long long)m->npoints);
    else {
        for (int64_t i = 0; i < m->npoints; i++) {
            x[i] = m->s[i];
            y[i] = m->z[i];
        }
        st = axb_kdtree_create(m->npoints, x, y, &p->tree, err);
    }
    free(x);
    free(y);
    return st;
}

static double *alloc_doubles(int64_t n)
{
    return malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
}

static void lane_free(axb_extract_lane *ln)
{
    free(ln->op_weights);
    free(ln->traces);
    free(ln->raw);
    free(ln->time_work);
    axb_reconv_plan_destroy(&ln->reconv);
}

static axb_status lane_init(const axb_extract_plan *p, axb_extract_lane *ln, axb_error *err)
{
    const int64_t n = (int64_t)p->np1 * p->np1;
    ln->op_weights = alloc_doubles(3 * 3 * n);
    ln->traces = alloc_doubles(14 * p->nt);
    ln->raw = alloc_doubles((int64_t)p->ncomp * p->nt);
    ln->time_work = alloc_doubles(axb_time_plan_work_len(p->tplan));
    AXB_CHECK(err, ln->op_weights && ln->traces && ln->raw && ln->time_work, AXB_ERR_NOMEM,
              "extraction buffers for %lld samples", (long long)p->nt);
    return p->deconv ? axb_reconv_plan_create(p->nt, p->deconv, &ln->reconv, err) : AXB_OK;
}

axb_status axb_extract_plan_lanes(axb_extract_plan *p, int n, axb_error *err)
{
    if (n <= p->nlanes) return AXB_OK;
    axb_extract_lane *l = realloc(p->lanes, (size_t)n * sizeof *l);
    if (!l) return axb_error_set(err, AXB_ERR_NOMEM, "%d extraction lanes", n);
    p->lanes = l;
    for (; p->nlanes < n; p->nlanes++) {
        memset(&l[p->nlanes], 0, sizeof *l);
        const axb_status st = lane_init(p, &l[p->nlanes], err);
        if (st) {
            lane_free(&l[p->nlanes]);
            return st;
        }
    }
    return AXB_OK;
}

axb_status axb_extract_plan_create(axb_db *db, const axb_extract_opts *opts, axb_extract_plan **out, axb_error *err)
{
    *out = NULL;
    axb_extract_plan *p = calloc(1, sizeof *p);
    if (!p) return axb_error_set(err, AXB_ERR_NOMEM, "extraction plan");
    p->db = db;
    p->info = axb_db_get_info(db);
    p->mesh = axb_db_get_mesh(db);
    p->opts = *opts;
    p->np1 = p->info->npol + 1;
    p->nt = p->info->ndumps;
    axb_status st = check_components(p, err);
    if (!st && p->opts.batch_mb <= 0) p->opts.batch_mb = AXB_EXTRACT_BATCH_MB_DEFAULT;
    if (!st) {
        axb_time_params tp = {p->info->dt,
                              p->nt,
                              p->info->src_shift,
                              p->info->src_shift_samples,
                              opts->dt,
                              opts->kernelwidth,
                              opts->remove_source_shift,
                              opts->reconvolve_stf};
        st = axb_time_window_compute(&tp, &p->win, err);
        if (!st) st = axb_time_plan_create(&p->win, p->nt, p->info->dt, opts->kernelwidth, &p->tplan, err);
    }
    if (!st && opts->reconvolve_stf) {
        /* the database's own STF is divided out: the moment rate for step-like STFs (errorf,
         * quheavi), the moment function for Gaussian ones */
        if (p->info->stf_map > 1)
            st = axb_error_set(err, AXB_ERR_UNSUPPORTED,
                               "STF reconvolution needs a database with an errorf, quheavi, dirac_0 "
                               "or gauss_0 source time function (this one: %s)",
                               p->info->stf);
        else {
            const double *d = p->info->stf_map == 0 ? axb_db_get_stf_d(db) : axb_db_get_stf(db);
            p->deconv = alloc_doubles(p->nt);
            if (!p->deconv)
                st = axb_error_set(err, AXB_ERR_NOMEM, "STF");
            else
                for (int64_t t = 0; t < p->nt; t++) p->deconv[t] = d[t] / p->info->amplitude;
        }
    }
    if (!st) st = build_tree(p, err);
    if (!st) st = axb_extract_plan_lanes(p, 1, err);
    if (st) {
        axb_extract_plan_destroy(&p);
        return st;
    }
    *out = p;
    return AXB_OK;
}

void axb_extract_plan_destroy(axb_extract_plan **pp)
{
    if (!pp || !*pp) return;
    axb_extract_plan *p = *pp;
    axb_kdtree_destroy(&p->tree);
    axb_time_plan_destroy(&p->tplan);
    for (int k = 0; k < p->nlanes; k++) lane_free(&p->lanes[k]);
    free(p->lanes);
    free(p->deconv);
    axb_elem_cache_free(&p->cache);
    free(p);
    *pp = NULL;
}

const char *axb_extract_components(const axb_extract_plan *p)
{
    return p->comps;
}
int axb_extract_ncomp(const axb_extract_plan *p)
{
    return p->ncomp;
}
int64_t axb_extract_npts(const axb_extract_plan *p)
{
    return p->win.npts;
}
double axb_extract_dt(const axb_extract_plan *p)
{
    return p->win.dt_out;
}
double axb_extract_start_offset(const axb_extract_plan *p)
{
    return p->win.start_offset;
}
void axb_extract_get_stats(const axb_extract_plan *p, axb_extract_stats *s)
{
    *s = p->stats;
}
