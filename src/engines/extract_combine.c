/* From element (or point) data to the raw traces of one pair: strain or displacement at the
 * collocation points (once per element), interpolation to (ξ, η), and the source combinations
 * of reference notes §2.8–2.11, at the database sampling. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "axibulk/geometry.h"
#include "axibulk/sem.h"
#include "engines/extract_internal.h"

/* The element's geometry at its collocation points, for the strain of every pair in it. */
static void element_geom(const axb_extract_plan *p, axb_extract_lane *ln, axb_elem_state *es)
{
    axb_elem_shape g;
    axb_sem_shape(p->mesh, es->elem, &g);
    axb_sem_geom_init(p->mesh, &g, p->mesh->axis[es->elem] != 0, &ln->geom);
    es->have_geom = true;
}

/* Interpolation weights of (ξ, η) in the element's basis. */
static void weights(const axb_extract_plan *p, int64_t elem, const axb_loc *loc, double *wxi, double *weta)
{
    const double *xi_pts, *dxi;
    axb_sem_xi_basis(p->mesh, p->mesh->axis[elem] != 0, &xi_pts, &dxi);
    axb_lagrange_weights(xi_pts, p->np1, loc->xi, wxi);
    axb_lagrange_weights(p->mesh->gll, p->np1, loc->eta, weta);
}

/* Writes component c of the pair: the trace for letter comp. */
static double *comp_out(const axb_extract_plan *p, double *raw, char comp)
{
    const char *q = strchr(p->comps, comp);
    return q ? raw + (q - p->comps) * p->nt : NULL;
}

/* The source's moment tensor in the database frame, over the database's amplitude. */
static void db_tensor(const axb_extract_plan *p, const axb_source *src, const axb_receiver *rec, const axb_loc *loc,
                      double m[6])
{
    axb_geo_tensor_to_db_frame(src->m, src->lon, 90.0 - src->lat, rec->lon, 90.0 - rec->lat, loc->phi, m);
    for (int k = 0; k < 6; k++) m[k] /= p->info->amplitude;
}

/* R, T, N, E of a reciprocal moment tensor pair (§2.9) from PX's two sums A (radial, negated) and
 * B (transverse). */
static void horizontals(const axb_extract_plan *p, const axb_loc *loc, const double *A, const double *B, double *raw)
{
    double *N = comp_out(p, raw, 'N'), *E = comp_out(p, raw, 'E'), *R = comp_out(p, raw, 'R'),
           *T = comp_out(p, raw, 'T');
    const double c = cos(loc->phi), s = sin(loc->phi);
    for (int64_t t = 0; t < p->nt; t++) {
        if (R) R[t] = -A[t];
        if (T) T[t] = B[t];
        if (N) N[t] = -(A[t] * c - B[t] * s);
        if (E) E[t] = A[t] * s + B[t] * c;
    }
}

/* Moment tensor on a reciprocal database from stored strain at a point (strain_only): Voigt strain of
 * PZ (ez) and PX (ex). */
static void combine_mt(const axb_extract_plan *p, axb_extract_lane *ln, const axb_source *src, const axb_receiver *rec,
                       const axb_loc *loc, const double *ez, const double *ex, double *raw)
{
    const int64_t nt = p->nt;
    double m[6];
    db_tensor(p, src, rec, loc, m);
    double *Z = comp_out(p, raw, 'Z');
    if (Z)
        for (int64_t t = 0; t < nt; t++)
            Z[t] = m[0] * ez[t] + m[1] * ez[nt + t] + m[2] * ez[2 * nt + t] + 2 * m[4] * ez[4 * nt + t];
    if (!p->need_px) return;
    double *A = ln->traces, *B = A + nt;
    for (int64_t t = 0; t < nt; t++) {
        A[t] = m[0] * ex[t] + m[1] * ex[nt + t] + m[2] * ex[2 * nt + t] + 2 * m[4] * ex[4 * nt + t];
        B[t] = 2 * m[3] * ex[3 * nt + t] + 2 * m[5] * ex[5 * nt + t];
    }
    horizontals(p, loc, A, B, raw);
}

/* Moment tensor on a reciprocal database with elements (§2.9). The traces are linear in the stored
 * samples: the strain operator, interpolated to (ξ, η) and contracted with the tensor, gives one
 * weight per stored row (what Instaseis computes as strain at every point and sample, then
 * interpolation, then the contraction, in another order of the same sums). Dipole runs get
 * Instaseis' sign flip of E3 and E5. */
static void element_mt(const axb_extract_plan *p, axb_extract_lane *ln, const axb_pair_ref *pair, const axb_loc *loc,
                       const axb_elem_state *es, const double *wxi, const double *weta, double *raw)
{
    const axb_db_info *in = p->info;
    const int np1 = p->np1;
    const int64_t nt = p->nt, n = (int64_t)np1 * np1, ncol = 3 * n;
    double m[6];
    db_tensor(p, pair->src, pair->rec, loc, m);
    double *wa = ln->op_weights, *wb = wa + ncol;
    /* E0 m0 + E1 m1 + E2 m2 + 2 E4 m4 (Z, and the radial sum of PX), 2 E3 m3 + 2 E5 m5 (transverse) */
    const double f = in->excitation[AXB_SIM_PX] != AXB_EXC_MONOPOLE ? -1.0 : 1.0;
    const double coef[2][6] = {{m[0], m[1], m[2], 0, 2 * m[4], 0}, {0, 0, 0, f * 2 * m[3], 0, f * 2 * m[5]}};
    double *ow[2] = {wa, wb};
    double *Z = comp_out(p, raw, 'Z');
    if (Z) {
        axb_sem_strain_at(&ln->geom, in->excitation[AXB_SIM_PZ], wxi, weta, 1, coef, ow);
        /* PZ stores u_s and u_z: the weights of components 0 and 2, one after the other */
        memmove(wa + n, wa + 2 * n, (size_t)n * sizeof *wa);
        const double *w[1] = {wa};
        double *out[1] = {Z};
        axb_sem_apply_rows(2 * n, nt, es->block + in->var_offset[AXB_SIM_PZ] * n * nt, 1, w, out, false);
    }
    if (!p->need_px) return;
    axb_sem_strain_at(&ln->geom, in->excitation[AXB_SIM_PX], wxi, weta, 2, coef, ow);
    double *A = ln->traces, *B = A + nt;
    const double *w[2] = {wa, wb};
    double *out[2] = {A, B};
    axb_sem_apply_rows(ncol, nt, es->block + in->var_offset[AXB_SIM_PX] * n * nt, 2, w, out, false);
    horizontals(p, loc, A, B, raw);
}

/* Stored strain at a point of a strain-only run in Voigt order (§2.8). */
static void point_strain(const axb_extract_plan *p, const float *point, int run_off, double *out)
{
    const int64_t nt = p->nt;
    const float *dsus = point + (run_off + 0) * nt, *dsuz = point + (run_off + 1) * nt,
                *dpup = point + (run_off + 2) * nt, *dsup = point + (run_off + 3) * nt,
                *dzup = point + (run_off + 4) * nt, *tr = point + (run_off + 5) * nt;
    for (int64_t t = 0; t < nt; t++) {
        out[t] = dsus[t];
        out[nt + t] = dpup[t];
        out[2 * nt + t] = (double)tr[t] - dsus[t] - dpup[t];
        out[3 * nt + t] = -(double)dzup[t];
        out[4 * nt + t] = dsuz[t];
        out[5 * nt + t] = -(double)dsup[t];
    }
}

/* c · wxi[i] · weta[j] for the element's points q = i·np1 + j: interpolation and a factor at once. */
static void point_weights(int np1, const double *wxi, const double *weta, double c, double *w)
{
    for (int i = 0; i < np1; i++)
        for (int j = 0; j < np1; j++) w[i * np1 + j] = c * wxi[i] * weta[j];
}

/* Adds c × (variable v interpolated to (ξ, η)) to out, straight from the stored floats; @p add
 * false starts out afresh. */
static void add_var(const axb_extract_plan *p, const float *block, int v, const double *wxi, const double *weta,
                    double c, double *out, bool add)
{
    const int64_t n = (int64_t)p->np1 * p->np1;
    double w[(AXB_NPOL_MAX + 1) * (AXB_NPOL_MAX + 1)];
    point_weights(p->np1, wxi, weta, c, w);
    const double *wv[1] = {w};
    double *o[1] = {out};
    axb_sem_apply_rows(n, p->nt, block + v * n * p->nt, 1, wv, o, add);
}

/* Force on a reciprocal database (§2.10), from interpolated displacement of PZ (s, z) and PX. */
static void combine_force(const axb_extract_plan *p, axb_extract_lane *ln, const axb_source *src,
                          const axb_receiver *rec, const axb_loc *loc, const float *block, const double *wxi,
                          const double *weta, double *raw)
{
    const axb_db_info *in = p->info;
    const int64_t nt = p->nt;
    double f[3];
    axb_geo_force_to_db_frame(src->f, src->lon, 90.0 - src->lat, rec->lon, 90.0 - rec->lat, loc->phi, f);
    for (int k = 0; k < 3; k++) f[k] /= in->amplitude;
    double *Z = comp_out(p, raw, 'Z');
    if (Z) {
        const int o = in->var_offset[AXB_SIM_PZ];
        add_var(p, block, o, wxi, weta, f[0], Z, false);
        add_var(p, block, o + 1, wxi, weta, f[2], Z, true);
    }
    if (!p->need_px) return;
    /* R keeps Instaseis' sign for forces (opposite to moment tensors, notes §2.10) */
    const int o = in->var_offset[AXB_SIM_PX];
    double *r = ln->traces, *tt = r + nt;
    add_var(p, block, o, wxi, weta, f[0], r, false);
    add_var(p, block, o + 2, wxi, weta, f[2], r, true);
    add_var(p, block, o + 1, wxi, weta, f[1], tt, false);
    double *N = comp_out(p, raw, 'N'), *E = comp_out(p, raw, 'E'), *R = comp_out(p, raw, 'R'),
           *T = comp_out(p, raw, 'T');
    const double c = cos(loc->phi), s = sin(loc->phi);
    for (int64_t t = 0; t < nt; t++) {
        if (R) R[t] = r[t];
        if (T) T[t] = tt[t];
        if (N) N[t] = -(c * r[t] - s * tt[t]);
        if (E) E[t] = s * r[t] + c * tt[t];
    }
}

/* Moment tensor on a forward database (§2.11). */
static void combine_forward(const axb_extract_plan *p, axb_extract_lane *ln, const axb_source *src,
                            const axb_receiver *rec, const axb_loc *loc, const float *block, const double *wxi,
                            const double *weta, double *raw)
{
    const axb_db_info *in = p->info;
    const int64_t nt = p->nt;
    double m[6];
    for (int k = 0; k < 6; k++) m[k] = src->m[k] / in->amplitude;
    const double cp = cos(loc->phi), sp = sin(loc->phi), c2 = cos(2 * loc->phi), s2 = sin(2 * loc->phi);
    const double a1 = m[3] * cp + m[4] * sp, a2 = -m[3] * sp + m[4] * cp;
    const double b1 = (m[1] - m[2]) * c2 + 2 * m[5] * s2, b2 = -(m[1] - m[2]) * s2 + 2 * m[5] * c2;
    /* weights of the ten stored variables in u_s, u_φ, u_z (variable order of axb_sim) */
    const double wsz[3][10] = {{m[0], 0, m[1] + m[2], 0, a1, 0, 0, b1, 0, 0},
                               {0, 0, 0, 0, 0, a2, 0, 0, b2, 0},
                               {0, m[0], 0, m[1] + m[2], 0, 0, a1, 0, 0, b1}};
    double *u[3] = {ln->traces, ln->traces + nt, ln->traces + 2 * nt}; /* u_s, u_φ, u_z */
    for (int k = 0; k < 3; k++) {
        bool started = false;
        for (int v = 0; v < 10; v++)
            if (wsz[k][v] != 0) {
                add_var(p, block, v, wxi, weta, wsz[k][v], u[k], started);
                started = true;
            }
        if (!started) memset(u[k], 0, (size_t)nt * sizeof *u[k]);
    }
    double P[3][3];
    axb_geo_forward_nez(src->lon, 90.0 - src->lat, rec->lon, 90.0 - rec->lat, loc->phi, P);
    const double col = atan2(loc->s, loc->z), cc = cos(col), sc = sin(col);
    double *out[5];
    const char *letters = "NEZRT";
    for (int k = 0; k < 5; k++) out[k] = comp_out(p, raw, letters[k]);
    const double *us = u[0], *up = u[1], *uz = u[2];
    for (int64_t t = 0; t < nt; t++) {
        const double s = us[t], f = up[t], z = uz[t];
        for (int k = 0; k < 3; k++)
            if (out[k]) out[k][t] = P[k][0] * s + P[k][1] * f + P[k][2] * z;
        if (out[3]) out[3][t] = s * cc - z * sc;
        if (out[4]) out[4][t] = -f; /* "for consistency with reciprocal mode" */
    }
}

axb_status axb_extract_raw(const axb_extract_plan *p, axb_extract_lane *ln, const axb_pair_ref *pair,
                           const axb_loc *loc, axb_elem_state *es, axb_error *err)
{
    double *raw = ln->raw;
    const axb_db_info *in = p->info;
    const axb_source *src = pair->src;
    const bool force = src->type == AXB_SRC_FORCE;
    if (in->kind == AXB_DB_FORWARD) {
        AXB_CHECK(err, !force, AXB_ERR_UNSUPPORTED, "forward databases take moment tensors only, not forces");
        double wxi[AXB_NPOL_MAX + 1], weta[AXB_NPOL_MAX + 1];
        weights(p, es->elem, loc, wxi, weta);
        combine_forward(p, ln, src, pair->rec, loc, es->block, wxi, weta, raw);
        return AXB_OK;
    }
    if (!p->mesh->has_elements) {
        AXB_CHECK(err, !force, AXB_ERR_UNSUPPORTED, "force sources need a displ_only database (this one is %s)",
                  axb_dump_type_name(in->dump));
        /* the stored strain, 12 traces; combine_mt's sums go to the two after them */
        double *ez = ln->traces + 2 * p->nt, *ex = ez + 6 * p->nt;
        const int off_x = 0, off_z = in->has_sim[AXB_SIM_PX] ? 6 : 0;
        if (p->need_pz) point_strain(p, es->block, off_z, ez);
        if (p->need_px) point_strain(p, es->block, off_x, ex);
        combine_mt(p, ln, src, pair->rec, loc, ez, ex, raw);
        return AXB_OK;
    }
    double wxi[AXB_NPOL_MAX + 1], weta[AXB_NPOL_MAX + 1];
    weights(p, es->elem, loc, wxi, weta);
    if (force) {
        combine_force(p, ln, src, pair->rec, loc, es->block, wxi, weta, raw);
        return AXB_OK;
    }
    if (!es->have_geom) element_geom(p, ln, es);
    element_mt(p, ln, pair, loc, es, wxi, weta, raw);
    return AXB_OK;
}
