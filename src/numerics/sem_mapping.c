/* The element mappings of AxiSEM (finite_elem_mapping.f90 as the reference notes §2.4 give it). */
#include <math.h>

#include "core/vector_clones.h"
#include "axibulk/sem.h"

void axb_sem_shape(const axb_mesh *m, int64_t e, axb_elem_shape *g)
{
    for (int k = 0; k < 4; k++) {
        int32_t p = m->fem[e * 4 + k];
        g->s[k] = m->s[p];
        g->z[k] = m->z[p];
    }
    g->type = m->eltype[e];
}

/* Polar description of the curved edges: only corners 1 and 4 radii enter (AxiSEM assumes the
 * others are equal). */
typedef struct polar {
    double r1, r4, t1, t2, t3, t4;
} polar;

static void to_polar(const axb_elem_shape *g, polar *p)
{
    double r[4], t[4];
    for (int k = 0; k < 4; k++) {
        r[k] = sqrt(g->s[k] * g->s[k] + g->z[k] * g->z[k]);
        t[k] = r[k] == 0.0 ? 0.0 : acos(g->z[k] / r[k]);
    }
    p->r1 = r[0];
    p->r4 = r[3];
    p->t1 = t[0];
    p->t2 = t[1];
    p->t3 = t[2];
    p->t4 = t[3];
}

/* Sines and cosines of the angles of the curved top and bottom edges at ξ: they depend on ξ only,
 * so a mapping and its Jacobian at one point, or a column of points, share them. */
typedef struct arcs {
    double st, ct, sb, cb;
} arcs;

static arcs arcs_at(const axb_elem_shape *g, const polar *p, double xi)
{
    arcs a = {0, 0, 0, 0};
    if (g->type == AXB_EL_LINEAR) return a;
    if (g->type != AXB_EL_SEMISO) {
        const double at = ((1 - xi) * p->t4 + (1 + xi) * p->t3) / 2;
        a.st = sin(at);
        a.ct = cos(at);
    }
    if (g->type != AXB_EL_SEMINO) {
        const double ab = ((1 - xi) * p->t1 + (1 + xi) * p->t2) / 2;
        a.sb = sin(ab);
        a.cb = cos(ab);
    }
    return a;
}

/* The mapping with the element's polar description @p p made once (unused for linear elements):
 * to_polar takes four square roots and four arc cosines, more than the mapping itself. */
static void map_with(const axb_elem_shape *g, const polar *pp, const arcs *a, double xi, double eta, double *s,
                     double *z)
{
    const double *sk = g->s, *zk = g->z;
    if (g->type == AXB_EL_LINEAR) {
        const double n1 = (1 - xi) * (1 - eta) / 4, n2 = (1 + xi) * (1 - eta) / 4, n3 = (1 + xi) * (1 + eta) / 4,
                     n4 = (1 - xi) * (1 + eta) / 4;
        *s = n1 * sk[0] + n2 * sk[1] + n3 * sk[2] + n4 * sk[3];
        *z = n1 * zk[0] + n2 * zk[1] + n3 * zk[2] + n4 * zk[3];
        return;
    }
    const polar p = *pp;
    switch (g->type) {
    case AXB_EL_SEMINO:
        *s = (1 + eta) / 2 * p.r4 * a->st + (1 - eta) / 4 * ((1 - xi) * sk[0] + (1 + xi) * sk[1]);
        *z = (1 + eta) / 2 * p.r4 * a->ct + (1 - eta) / 4 * ((1 - xi) * zk[0] + (1 + xi) * zk[1]);
        return;
    case AXB_EL_SEMISO:
        *s = (1 + eta) / 4 * ((1 - xi) * sk[3] + (1 + xi) * sk[2]) + (1 - eta) / 2 * p.r1 * a->sb;
        *z = (1 + eta) / 4 * ((1 - xi) * zk[3] + (1 + xi) * zk[2]) + (1 - eta) / 2 * p.r1 * a->cb;
        return;
    default: /* spheroidal */
        *s = (1 + eta) / 2 * p.r4 * a->st + (1 - eta) / 2 * p.r1 * a->sb;
        *z = (1 + eta) / 2 * p.r4 * a->ct + (1 - eta) / 2 * p.r1 * a->cb;
        return;
    }
}

static void jacobian_with(const axb_elem_shape *g, const polar *pp, const arcs *a, double xi, double eta,
                          double J[2][2])
{
    const double *sk = g->s, *zk = g->z;
    if (g->type == AXB_EL_LINEAR) {
        const double dxi[4] = {-(1 - eta) / 4, (1 - eta) / 4, (1 + eta) / 4, -(1 + eta) / 4};
        const double deta[4] = {-(1 - xi) / 4, -(1 + xi) / 4, (1 + xi) / 4, (1 - xi) / 4};
        J[0][0] = J[0][1] = J[1][0] = J[1][1] = 0;
        for (int k = 0; k < 4; k++) {
            J[0][0] += sk[k] * dxi[k];
            J[0][1] += sk[k] * deta[k];
            J[1][0] += zk[k] * dxi[k];
            J[1][1] += zk[k] * deta[k];
        }
        return;
    }
    const polar p = *pp;
    const double dt = (p.t3 - p.t4) / 2, db = (p.t2 - p.t1) / 2;
    switch (g->type) {
    case AXB_EL_SEMINO:
        J[0][0] = (1 + eta) / 2 * p.r4 * dt * a->ct + (1 - eta) / 4 * (sk[1] - sk[0]);
        J[0][1] = p.r4 / 2 * a->st - ((1 - xi) * sk[0] + (1 + xi) * sk[1]) / 4;
        J[1][0] = -(1 + eta) / 2 * p.r4 * dt * a->st + (1 - eta) / 4 * (zk[1] - zk[0]);
        J[1][1] = p.r4 / 2 * a->ct - ((1 - xi) * zk[0] + (1 + xi) * zk[1]) / 4;
        return;
    case AXB_EL_SEMISO:
        J[0][0] = (1 + eta) / 4 * (sk[2] - sk[3]) + (1 - eta) / 2 * p.r1 * db * a->cb;
        J[0][1] = ((1 - xi) * sk[3] + (1 + xi) * sk[2]) / 4 - p.r1 / 2 * a->sb;
        J[1][0] = (1 + eta) / 4 * (zk[2] - zk[3]) - (1 - eta) / 2 * p.r1 * db * a->sb;
        J[1][1] = ((1 - xi) * zk[3] + (1 + xi) * zk[2]) / 4 - p.r1 / 2 * a->cb;
        return;
    default:
        J[0][0] = (1 + eta) / 2 * p.r4 * dt * a->ct + (1 - eta) / 2 * p.r1 * db * a->cb;
        J[0][1] = (p.r4 * a->st - p.r1 * a->sb) / 2;
        J[1][0] = -(1 + eta) / 2 * p.r4 * dt * a->st - (1 - eta) / 2 * p.r1 * db * a->sb;
        J[1][1] = (p.r4 * a->ct - p.r1 * a->cb) / 2;
        return;
    }
}

static void polar_of(const axb_elem_shape *g, polar *p)
{
    if (g->type != AXB_EL_LINEAR)
        to_polar(g, p);
    else
        *p = (polar){0};
}

void axb_sem_map(const axb_elem_shape *g, double xi, double eta, double *s, double *z)
{
    polar p;
    polar_of(g, &p);
    const arcs a = arcs_at(g, &p, xi);
    map_with(g, &p, &a, xi, eta, s, z);
}

static void inv_jacobian_with(const axb_elem_shape *g, const polar *p, const arcs *a, double xi, double eta,
                              double ij[2][2])
{
    double J[2][2];
    jacobian_with(g, p, a, xi, eta, J);
    const double det = J[0][0] * J[1][1] - J[1][0] * J[0][1];
    ij[0][0] = J[1][1] / det;
    ij[0][1] = -J[0][1] / det;
    ij[1][0] = -J[1][0] / det;
    ij[1][1] = J[0][0] / det;
}

void axb_sem_inv_jacobian(const axb_elem_shape *g, double xi, double eta, double ij[2][2])
{
    polar p;
    polar_of(g, &p);
    const arcs a = arcs_at(g, &p, xi);
    inv_jacobian_with(g, &p, &a, xi, eta, ij);
}

void axb_sem_map_grid(const axb_elem_shape *g, int nxi, const double *xi, int neta, const double *eta, double *s,
                      double *z, double (*ij)[2][2])
{
    polar p;
    polar_of(g, &p);
    for (int i = 0; i < nxi; i++) {
        const arcs a = arcs_at(g, &p, xi[i]);
        for (int j = 0; j < neta; j++) {
            const int q = i * neta + j;
            map_with(g, &p, &a, xi[i], eta[j], &s[q], &z[q]);
            inv_jacobian_with(g, &p, &a, xi[i], eta[j], ij[q]);
        }
    }
}

bool axb_sem_inside(const axb_elem_shape *g, double s, double z, double tol, double *pxi, double *peta)
{
    /* AxiSEM's literal 1e-7**2 evaluated in single precision */
    const double conv = 9.99999982451670044e-15;
    polar p;
    polar_of(g, &p);
    double xi = 0, eta = 0;
    const double norm = s * s + z * z;
    for (int it = 0; it < 10; it++) {
        double s1, z1, ij[2][2];
        const arcs a = arcs_at(g, &p, xi);
        map_with(g, &p, &a, xi, eta, &s1, &z1);
        const double ds = s - s1, dz = z - z1;
        /* a point at the centre of the planet has no scale: test the absolute misfit there */
        if ((ds * ds + dz * dz) < conv * (norm > 0 ? norm : 1.0)) break;
        inv_jacobian_with(g, &p, &a, xi, eta, ij);
        xi += ij[0][0] * ds + ij[0][1] * dz;
        eta += ij[1][0] * ds + ij[1][1] * dz;
    }
    *pxi = xi;
    *peta = eta;
    return xi >= -1 - tol && xi <= 1 + tol && eta >= -1 - tol && eta <= 1 + tol;
}

void axb_lagrange_weights(const double *pts, int n, double x, double *w)
{
    for (int k = 0; k < n; k++) {
        double p = 1;
        for (int m = 0; m < n; m++)
            if (m != k) p *= (x - pts[m]) / (pts[k] - pts[m]);
        w[k] = p;
    }
}

void axb_sem_xi_basis(const axb_mesh *m, bool axis, const double **xi_pts, const double **dxi)
{
    *xi_pts = axis ? m->glj : m->gll;
    *dxi = axis ? m->G1 : m->G2;
}

AXB_VECTOR_CLONES void axb_sem_interpolate(int np1, int64_t nt, const double *f, const double *wxi, const double *weta,
                                           double *out)
{
    if (np1 == 5) {
        /* AxiSEM's npol 4, the hot case: one pass over out per ξ column instead of one per point
         * (five times less load/store traffic on out; the five sources stream) */
        const double e0 = weta[0], e1 = weta[1], e2 = weta[2], e3 = weta[3], e4 = weta[4];
        for (int i = 0; i < 5; i++) {
            const double w = wxi[i];
            const double *s0 = f + (int64_t)i * 5 * nt, *s1 = s0 + nt, *s2 = s1 + nt, *s3 = s2 + nt, *s4 = s3 + nt;
            if (i == 0)
                for (int64_t t = 0; t < nt; t++)
                    out[t] = w * (e0 * s0[t] + e1 * s1[t] + e2 * s2[t] + e3 * s3[t] + e4 * s4[t]);
            else
                for (int64_t t = 0; t < nt; t++)
                    out[t] += w * (e0 * s0[t] + e1 * s1[t] + e2 * s2[t] + e3 * s3[t] + e4 * s4[t]);
        }
        return;
    }
    for (int64_t t = 0; t < nt; t++) out[t] = 0;
    for (int i = 0; i < np1; i++)
        for (int j = 0; j < np1; j++) {
            const double w = wxi[i] * weta[j];
            const double *src = f + ((int64_t)i * np1 + j) * nt;
            for (int64_t t = 0; t < nt; t++) out[t] += w * src[t];
        }
}
