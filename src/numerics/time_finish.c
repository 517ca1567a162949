/* One trace through §2.13 steps 2–4: resampling, differentiation, cut of the samples before the
 * source peak; directly or with the Lanczos weights precomputed once per extraction. */
#include "axibulk/timeproc.h"

#include <stdlib.h>
#include <string.h>

int64_t axb_time_work_len(const axb_time_window *w, int64_t npts_db)
{
    return w->resample ? w->npts_before_shift_removal : npts_db;
}

/* Steps 3 and 4 on work [w->npts_before_shift_removal], which holds the resampled trace. */
static void derive_and_cut(const axb_time_window *w, int n_derivative, double *work, double *out)
{
    const int64_t n = w->npts_before_shift_removal;
    for (int d = 0; d < n_derivative; d++) axb_gradient(work, n, w->dt_out, work);
    for (int d = 0; d < -n_derivative; d++) axb_cumtrapz(work, n, w->dt_out, work);
    /* The cut is ref_sample when the shift is removed, 0 otherwise; the window knows which. */
    memcpy(out, work + (n - w->npts), (size_t)w->npts * sizeof *out);
}

void axb_time_finish(const axb_time_window *w, int64_t npts_db, double dt_db, int kernelwidth, int n_derivative,
                     const double *in, double *out, double *work)
{
    if (w->resample)
        axb_lanczos_resample(in, npts_db, dt_db, w->time_shift_at_beginning, w->dt_out, w->npts_before_shift_removal,
                             kernelwidth, work);
    else
        memcpy(work, in, (size_t)npts_db * sizeof *work);
    derive_and_cut(w, n_derivative, work, out);
}

struct axb_time_plan {
    axb_time_window w;
    int64_t npts_db;
    axb_lanczos_plan *lanczos; /* NULL when the window does not resample */
};

axb_status axb_time_plan_create(const axb_time_window *w, int64_t npts_db, double dt_db, int kernelwidth,
                                axb_time_plan **plan, axb_error *err)
{
    AXB_CHECK(err, plan != NULL && w != NULL, AXB_ERR_ARG, "time plan: NULL argument");
    *plan = NULL;
    AXB_CHECK(err, npts_db >= 2, AXB_ERR_ARG, "time plan: %lld database samples, need 2", (long long)npts_db);
    AXB_CHECK(err,
              w->npts >= 1 && w->npts <= w->npts_before_shift_removal &&
                  (w->resample || w->npts_before_shift_removal == npts_db),
              AXB_ERR_ARG, "time plan: window (%lld of %lld samples) does not fit %lld samples", (long long)w->npts,
              (long long)w->npts_before_shift_removal, (long long)npts_db);
    axb_time_plan *tp = calloc(1, sizeof *tp);
    AXB_CHECK(err, tp != NULL, AXB_ERR_NOMEM, "time plan: out of memory");
    tp->w = *w;
    tp->npts_db = npts_db;
    if (w->resample) {
        axb_status st = axb_lanczos_plan_create(npts_db, dt_db, w->time_shift_at_beginning, w->dt_out,
                                                w->npts_before_shift_removal, kernelwidth, &tp->lanczos, err);
        if (st != AXB_OK) {
            free(tp);
            return st;
        }
    }
    *plan = tp;
    return AXB_OK;
}

void axb_time_plan_finish(const axb_time_plan *plan, int n_derivative, const double *in, double *out, double *work)
{
    if (plan->lanczos != NULL)
        axb_lanczos_plan_apply(plan->lanczos, in, work);
    else
        memcpy(work, in, (size_t)plan->npts_db * sizeof *work);
    derive_and_cut(&plan->w, n_derivative, work, out);
}

const axb_time_window *axb_time_plan_window(const axb_time_plan *plan)
{
    return &plan->w;
}

int64_t axb_time_plan_work_len(const axb_time_plan *plan)
{
    return axb_time_work_len(&plan->w, plan->npts_db);
}

void axb_time_plan_destroy(axb_time_plan **plan)
{
    if (plan == NULL || *plan == NULL) return;
    axb_lanczos_plan_destroy(&(*plan)->lanczos);
    free(*plan);
    *plan = NULL;
}
