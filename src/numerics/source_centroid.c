/* The centroid moment tensor of a finite source (Instaseis' FiniteSource.compute_centroid). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "axibulk/geometry.h"
#include "axibulk/source.h"

/* m (m_rr, m_tt, m_pp, m_rt, m_rp, m_tp) as a matrix in the local (θ, φ, r) axes */
static void local_matrix(const double m[6], double A[3][3])
{
    A[0][0] = m[1];
    A[1][1] = m[2];
    A[2][2] = m[0];
    A[1][2] = A[2][1] = m[4];
    A[0][2] = A[2][0] = m[3];
    A[0][1] = A[1][0] = m[5];
}

axb_status axb_source_list_centroid(const axb_source_list *l, double planet_radius, axb_source *cmt, axb_error *err)
{
    AXB_CHECK(err, l->n > 0, AXB_ERR_ARG, "a centroid needs at least one point source");
    const double m0 = axb_source_list_m0(l);
    AXB_CHECK(err, m0 > 0 && isfinite(m0), AXB_ERR_ARG, "a centroid needs a positive total moment");
    double pos[3] = {0, 0, 0}, E[3][3] = {{0}};
    for (int64_t k = 0; k < l->n; k++) {
        const axb_source *s = &l->src[k];
        const double w = axb_moment_m0(s->m) / m0, r = planet_radius - (isnan(s->depth) ? 0 : s->depth);
        double xyz[3], R[3][3], A[3][3];
        axb_geo_cartesian(s->lat, s->lon, r, xyz);
        for (int i = 0; i < 3; i++) pos[i] += w * xyz[i];
        axb_geo_local_basis(s->lon, 90.0 - s->lat, R);
        local_matrix(s->m, A);
        /* E += R A Rᵀ */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double v = 0;
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++) v += R[i][a] * A[a][b] * R[j][b];
                E[i][j] += v;
            }
    }
    const double r = sqrt(pos[0] * pos[0] + pos[1] * pos[1] + pos[2] * pos[2]);
    const double lon = atan2(pos[1], pos[0]) * 180.0 / 3.14159265358979323846;
    const double colat = acos(pos[2] / r) * 180.0 / 3.14159265358979323846;
    double R[3][3], C[3][3];
    axb_geo_local_basis(lon, colat, R);
    /* back into the centroid's local frame: Rᵀ E R */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double v = 0;
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) v += R[a][i] * E[a][b] * R[b][j];
            C[i][j] = v;
        }
    memset(cmt, 0, sizeof *cmt);
    cmt->type = AXB_SRC_MOMENT;
    cmt->lat = 90.0 - colat;
    cmt->lon = lon;
    cmt->depth = planet_radius - r;
    cmt->m[0] = C[2][2];
    cmt->m[1] = C[0][0];
    cmt->m[2] = C[1][1];
    cmt->m[3] = C[0][2];
    cmt->m[4] = C[1][2];
    cmt->m[5] = C[0][1];
    cmt->time_shift = NAN;
    snprintf(cmt->name, sizeof cmt->name, "centroid");
    return AXB_OK;
}
