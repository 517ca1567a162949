/* Strain from displacement at the collocation points of one element: the formulas of the
 * reference notes §2.7 on the stored fields (s, φ, z), with Instaseis' derivative sums in its
 * order, so results agree with it to rounding. Fields are f[i][j][t] with t contiguous: every inner loop runs over samples. */
#include <string.h>

#include "axibulk/sem.h"
#include "core/vector_clones.h"

typedef struct elem_ctx {
    axb_sem_geom g;
    int64_t nt;
    bool unit;          /* the operator: component c of u is the unit basis of its band (see gradient) */
    int64_t band[3][2]; /* samples [lo, hi) where component c can be nonzero (all, but for the operator) */
} elem_ctx;

#define F(base, i, j) ((base) + ((int64_t)(i)*c->g.np1 + (j)) * c->nt)

/* ∂s f and ∂z f at every collocation point; f is component @p comp, zero outside its band. For
 * the operator, f(k, j) is 1 in sample lo + k·np1 + j and 0 elsewhere, so of the sums below only
 * one term is nonzero per sample: they are set directly, to the same bits (the other terms add
 * zeros), at a tenth of the cost. */
AXB_VECTOR_CLONES static void gradient(const elem_ctx *c, int comp, const double *f, double *ds, double *dz)
{
    const int n = c->g.np1;
    const int64_t nt = c->nt, lo = c->band[comp][0], hi = c->band[comp][1];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double *m1 = F(ds, i, j), *m2 = F(dz, i, j);
            memset(m1, 0, (size_t)nt * sizeof *m1);
            memset(m2, 0, (size_t)nt * sizeof *m2);
            if (c->unit)
                for (int k = 0; k < n; k++) {
                    m1[lo + k * n + j] = c->g.dxi[i * n + k];
                    m2[lo + i * n + k] = c->g.g2[j * n + k];
                }
            else
                for (int k = 0; k < n; k++) {
                    const double a = c->g.dxi[i * n + k], b = c->g.g2[j * n + k];
                    const double *fk = F(f, k, j), *fi = F(f, i, k);
                    for (int64_t t = lo; t < hi; t++) {
                        m1[t] += a * fk[t];
                        m2[t] += b * fi[t];
                    }
                }
            const double a11 = c->g.ij[i][j][0][0], a21 = c->g.ij[i][j][1][0];
            const double a12 = c->g.ij[i][j][0][1], a22 = c->g.ij[i][j][1][1];
            for (int64_t t = lo; t < hi; t++) {
                const double x1 = m1[t], x2 = m2[t];
                m1[t] = a11 * x1 + a21 * x2;
                m2[t] = a12 * x1 + a22 * x2;
            }
        }
}

/* f / s; on the axis (i = 0 of axis elements, s = 0) L'Hôpital: ∂s f there. */
AXB_VECTOR_CLONES static void over_s(const elem_ctx *c, const double *f, double *out)
{
    const int n = c->g.np1;
    const int64_t nt = c->nt;
    for (int i = c->g.axis ? 1 : 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            const double s = c->g.s[i][j];
            const double *src = F(f, i, j);
            double *dst = F(out, i, j);
            for (int64_t t = 0; t < nt; t++) dst[t] = src[t] / s;
        }
    if (!c->g.axis) return;
    for (int j = 0; j < n; j++) {
        const double a11 = c->g.ij[0][j][0][0], a21 = c->g.ij[0][j][1][0];
        double *dst = F(out, 0, j);
        for (int64_t t = 0; t < nt; t++) {
            double x1 = 0, x2 = 0;
            for (int k = 0; k < n; k++) {
                x1 += c->g.dxi[k] * F(f, k, j)[t];
                x2 += c->g.g2[j * n + k] * F(f, 0, k)[t];
            }
            dst[t] = a11 * x1 + a21 * x2;
        }
    }
}

AXB_VECTOR_CLONES static void lincomb(const elem_ctx *c, double a, const double *x, double b, const double *y,
                                      double *out)
{
    const int64_t len = (int64_t)c->g.np1 * c->g.np1 * c->nt;
    for (int64_t q = 0; q < len; q++) out[q] = a * x[q] + b * y[q];
}

void axb_sem_geom_init(const axb_mesh *m, const axb_elem_shape *g, bool axis, axb_sem_geom *geo)
{
    const double *xi_pts;
    geo->np1 = m->npol + 1;
    geo->axis = axis;
    axb_sem_xi_basis(m, axis, &xi_pts, &geo->dxi);
    geo->g2 = m->G2;
    enum { NMAX = (AXB_NPOL_MAX + 1) * (AXB_NPOL_MAX + 1) };
    double s[NMAX], z[NMAX], ij[NMAX][2][2];
    axb_sem_map_grid(g, geo->np1, xi_pts, geo->np1, m->gll, s, z, ij);
    for (int i = 0; i < geo->np1; i++)
        for (int j = 0; j < geo->np1; j++) {
            const int q = i * geo->np1 + j;
            geo->s[i][j] = s[q];
            memcpy(geo->ij[i][j], ij[q], sizeof ij[q]);
        }
}

static void ctx_init(elem_ctx *c, const axb_mesh *m, const axb_elem_shape *g, bool axis, int64_t nt)
{
    axb_sem_geom_init(m, g, axis, &c->g);
    c->nt = nt;
    c->unit = false;
}

/* axb_sem_strain on a prepared element, with component c of u nonzero only in samples
 * c->band[c][0] .. c->band[c][1] - 1. */
static void strain_ctx(const elem_ctx *c, axb_excitation exc, const double *u, double *out, double *work)
{
    const int64_t nt = c->nt;
    const int64_t fl = (int64_t)c->g.np1 * c->g.np1 * nt;
    const double *u1 = u, *u2 = u + fl, *u3 = u + 2 * fl;
    double *E[6], *w[6];
    for (int k = 0; k < 6; k++) {
        E[k] = out + k * fl;
        w[k] = work + k * fl;
    }
    if (exc == AXB_EXC_MONOPOLE) {
        gradient(c, 0, u1, E[0], w[0]); /* E0 = ∂s u1, w0 = ∂z u1 */
        gradient(c, 2, u3, w[1], E[2]); /* w1 = ∂s u3, E2 = ∂z u3 */
        over_s(c, u1, E[1]);
        lincomb(c, 0.5, w[0], 0.5, w[1], E[4]);
        memset(E[3], 0, (size_t)fl * sizeof(double));
        memset(E[5], 0, (size_t)fl * sizeof(double));
        return;
    }
    if (exc == AXB_EXC_DIPOLE) {
        /* stored fields are u_s, u_φ, u_z (reference notes §2.7 table) */
        gradient(c, 0, u1, E[0], w[1]); /* E0 = ∂s u_s, w1 = ∂z u_s */
        gradient(c, 2, u3, w[2], E[2]); /* w2 = ∂s u_z, E2 = ∂z u_z */
        lincomb(c, 0.5, w[1], 0.5, w[2], E[4]);
        gradient(c, 1, u2, w[3], w[4]); /* w3 = ∂s u_φ, w4 = ∂z u_φ */
        over_s(c, u3, w[5]);
        lincomb(c, -0.5, w[5], -0.5, w[4], E[3]);
        lincomb(c, 1, u1, -1, u2, w[0]);
        over_s(c, w[0], E[1]); /* E1 = (u_s − u_φ)/s */
        lincomb(c, -0.5, E[1], -0.5, w[3], E[5]);
        return;
    }
    /* quadpole */
    gradient(c, 0, u1, E[0], w[0]); /* E0 = ∂s u1, w0 = ∂z u1 */
    gradient(c, 1, u2, w[1], w[2]); /* w1 = ∂s u2, w2 = ∂z u2 */
    gradient(c, 2, u3, w[3], E[2]); /* w3 = ∂s u3, E2 = ∂z u3 */
    lincomb(c, 0.5, w[0], 0.5, w[3], E[4]);
    lincomb(c, 1, u1, -2, u2, w[4]);
    over_s(c, w[4], E[1]);
    over_s(c, u3, w[5]);
    lincomb(c, -1, w[5], -0.5, w[2], E[3]);
    lincomb(c, 0.5, u2, -1, u1, w[4]);
    over_s(c, w[4], w[5]);
    lincomb(c, 1, w[5], -0.5, w[1], E[5]);
}

void axb_sem_strain(const axb_mesh *m, const axb_elem_shape *g, bool axis, axb_excitation exc, int64_t nt,
                    const double *u, double *out, double *work)
{
    elem_ctx c;
    ctx_init(&c, m, g, axis, nt);
    for (int k = 0; k < 3; k++) {
        c.band[k][0] = 0;
        c.band[k][1] = nt;
    }
    strain_ctx(&c, exc, u, out, work);
}

void axb_sem_strain_operators(const axb_mesh *m, const axb_elem_shape *g, bool axis, int nexc,
                              const axb_excitation *exc, double *const *op, double *scratch)
{
    const int64_t n = (int64_t)(m->npol + 1) * (m->npol + 1), ncol = 3 * n;
    elem_ctx c;
    ctx_init(&c, m, g, axis, ncol);
    /* u[c][a][b][q]: the "samples" are the unit displacements, so the strain of sample q is column
     * q; component c is nonzero in its own n columns only, so its derivatives are taken there */
    c.unit = true;
    for (int k = 0; k < 3; k++) {
        c.band[k][0] = k * n;
        c.band[k][1] = (k + 1) * n;
    }
    double *u = scratch, *work = scratch + 3 * n * ncol;
    memset(u, 0, (size_t)(3 * n * ncol) * sizeof *u);
    for (int64_t q = 0; q < ncol; q++) u[q * ncol + q] = 1.0;
    for (int r = 0; r < nexc; r++) strain_ctx(&c, exc[r], u, op[r], work);
}

void axb_sem_strain_operator(const axb_mesh *m, const axb_elem_shape *g, bool axis, axb_excitation exc, double *op,
                             double *scratch)
{
    axb_sem_strain_operators(m, g, axis, 1, &exc, &op, scratch);
}

/* One term of a strain component: a times the interpolated ∂s (0), ∂z (1) or 1/s (2) of stored
 * component c, in strain component k. */
typedef struct strain_term {
    int k, c, op;
    double a;
} strain_term;

/* The terms of strain_ctx per excitation (u1, u2, u3: the stored s, φ, z fields). */
static const strain_term COMMON[] = {{0, 0, 0, 1.0}, {2, 2, 1, 1.0}, {4, 0, 1, 0.5}, {4, 2, 0, 0.5}};
static const strain_term MONOPOLE[] = {{1, 0, 2, 1.0}};
static const strain_term DIPOLE[] = {
    {3, 2, 2, -0.5}, {3, 1, 1, -0.5},                 /* E3 = −(u_z/s + ∂z u_φ)/2 */
    {1, 0, 2, 1.0},  {1, 1, 2, -1.0},                 /* E1 = (u_s − u_φ)/s */
    {5, 0, 2, -0.5}, {5, 1, 2, 0.5},  {5, 1, 0, -0.5} /* E5 = −E1/2 − ∂s u_φ/2 */
};
static const strain_term QUADPOLE[] = {
    {1, 0, 2, 1.0},  {1, 1, 2, -2.0},                 /* E1 = (u1 − 2 u2)/s */
    {3, 2, 2, -1.0}, {3, 1, 1, -0.5},                 /* E3 = −u3/s − ∂z u2/2 */
    {5, 1, 2, 0.5},  {5, 0, 2, -1.0}, {5, 1, 0, -0.5} /* E5 = (u2/2 − u1)/s − ∂s u2/2 */
};

/* Adds the terms t[0..nterms) to every contraction's out. */
static void add_terms(int n, const strain_term *t, int nterms, const double *const v[3], int ncon,
                      const double (*coef)[6], double *const *out)
{
    for (int e = 0; e < nterms; e++)
        for (int r = 0; r < ncon; r++) {
            const double a = t[e].a * coef[r][t[e].k];
            if (a == 0) continue;
            double *o = out[r] + t[e].c * n;
            const double *x = v[t[e].op];
            for (int q = 0; q < n; q++) o[q] += a * x[q];
        }
}

/* The interpolated ∂s, ∂z and 1/s of one scalar field f, as weights of f at the points: ∂s f at
 * (i, j) is ij00·Σ_k Dξ[i][k] f(k, j) + ij10·Σ_k Dη[j][k] f(i, k), so point (i, j)'s weight spreads
 * along its line of constant η and its line of constant ξ. Inlined with np a constant for
 * AxiSEM's npol 4, so that the compiler unrolls the lines. */
static inline __attribute__((always_inline)) void line_sums(const axb_sem_geom *geo, const int np, const double *wxi,
                                                            const double *weta, double *restrict ds,
                                                            double *restrict dz, double *restrict os)
{
    for (int q = 0; q < np * np; q++) ds[q] = dz[q] = os[q] = 0;
    for (int i = 0; i < np; i++) {
        const bool on_axis = geo->axis && i == 0;
        const double *dx = geo->dxi + i * np;
        for (int j = 0; j < np; j++) {
            const double L = wxi[i] * weta[j];
            const double s1 = L * geo->ij[i][j][0][0], s2 = L * geo->ij[i][j][1][0];
            const double z1 = L * geo->ij[i][j][0][1], z2 = L * geo->ij[i][j][1][1];
            const double *de = geo->g2 + j * np;
            for (int k = 0; k < np; k++) {
                ds[k * np + j] += s1 * dx[k];
                dz[k * np + j] += z1 * dx[k];
                ds[i * np + k] += s2 * de[k];
                dz[i * np + k] += z2 * de[k];
            }
            if (on_axis) /* s = 0: f/s is ∂s f there (L'Hôpital, as over_s) */
                for (int k = 0; k < np; k++) {
                    os[k * np + j] += s1 * dx[k];
                    os[k] += s2 * de[k];
                }
            else
                os[i * np + j] += L / geo->s[i][j];
        }
    }
}

void axb_sem_strain_at(const axb_sem_geom *geo, axb_excitation exc, const double *wxi, const double *weta, int ncon,
                       const double (*coef)[6], double *const *out)
{
    enum { NMAX = (AXB_NPOL_MAX + 1) * (AXB_NPOL_MAX + 1) };
    const int np = geo->np1, n = np * np;
    double ds[NMAX], dz[NMAX], os[NMAX];
    if (np == 5)
        line_sums(geo, 5, wxi, weta, ds, dz, os);
    else
        line_sums(geo, np, wxi, weta, ds, dz, os);
    const double *const v[3] = {ds, dz, os};
    for (int r = 0; r < ncon; r++) memset(out[r], 0, (size_t)(3 * n) * sizeof *out[r]);
#define ADD_TERMS(table) add_terms(n, table, (int)(sizeof table / sizeof *table), v, ncon, coef, out)
    ADD_TERMS(COMMON);
    if (exc == AXB_EXC_MONOPOLE)
        ADD_TERMS(MONOPOLE);
    else if (exc == AXB_EXC_DIPOLE)
        ADD_TERMS(DIPOLE);
    else
        ADD_TERMS(QUADPOLE);
#undef ADD_TERMS
}
