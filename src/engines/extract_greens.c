/* Minson & Dreger Green's functions (reference notes §2.14) from six unit moment tensors at the
 * pole, computed in one call so the element is read once. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/extract.h"

axb_status axb_extract_greens(axb_db *db, const axb_extract_opts *opts, double depth, double distance, double *out,
                              int64_t *npts, axb_error *err)
{
    const axb_db_info *in = axb_db_get_info(db);
    AXB_CHECK(err, in->kind == AXB_DB_RECIPROCAL, AXB_ERR_UNSUPPORTED, "Green's functions need a reciprocal database");
    AXB_CHECK(err, in->has_sim[AXB_SIM_PX] && in->has_sim[AXB_SIM_PZ], AXB_ERR_UNSUPPORTED,
              "Green's functions need a database with both vertical and horizontal components");
    AXB_CHECK(err, isfinite(distance) && distance >= 0 && distance <= 180, AXB_ERR_RANGE,
              "epicentral distance %g deg should be in [0, 180]", distance);
    axb_extract_opts o = *opts;
    snprintf(o.components, sizeof o.components, "ZRT");
    axb_extract_plan *plan = NULL;
    AXB_TRY(axb_extract_plan_create(db, &o, &plan, err));
    const int64_t n = axb_extract_npts(plan);
    *npts = n;
    if (!out) {
        axb_extract_plan_destroy(&plan);
        return AXB_OK;
    }
    /* unit tensors (m_rr, m_tt, m_pp, m_rt, m_rp, m_tp) */
    static const double tensors[6][6] = {
        {0, 0, 0, 0, 0, -1},  /* TSS */
        {0, 1, -1, 0, 0, 0},  /* ZSS, RSS */
        {0, 0, 0, 0, -1, 0},  /* TDS */
        {0, 0, 0, 1, 0, 0},   /* ZDS, RDS */
        {2, -1, -1, 0, 0, 0}, /* ZDD, RDD */
        {1, 1, 1, 0, 0, 0},   /* ZEP, REP */
    };
    axb_source src[6];
    axb_pair_ref pairs[6];
    const axb_receiver rec = {.lat = 90.0 - distance, .lon = 0.0, .depth = NAN};
    for (int k = 0; k < 6; k++) {
        src[k] = (axb_source){.type = AXB_SRC_MOMENT, .lat = 90.0, .lon = 0.0, .depth = depth, .time_shift = NAN};
        memcpy(src[k].m, tensors[k], sizeof src[k].m);
        pairs[k] = (axb_pair_ref){&src[k], &rec};
    }
    double *zrt = malloc(6 * 3 * (size_t)n * sizeof *zrt);
    axb_status st =
        zrt ? axb_extract_pairs(plan, 6, pairs, zrt, err) : axb_error_set(err, AXB_ERR_NOMEM, "Green's functions");
    if (!st) {
        /* (pair, component Z=0 R=1 T=2) of each output trace */
        static const int pick[AXB_NGREENS][2] = {{0, 2}, {1, 0}, {1, 1}, {2, 2}, {3, 0},
                                                 {3, 1}, {4, 0}, {4, 1}, {5, 0}, {5, 1}};
        for (int g = 0; g < AXB_NGREENS; g++)
            memcpy(out + g * n, zrt + (pick[g][0] * 3 + pick[g][1]) * n, (size_t)n * sizeof *out);
    }
    free(zrt);
    axb_extract_plan_destroy(&plan);
    return st;
}
