/* SEM numerics against independent references: brute-force nearest neighbours, the forward
 * mapping (inverse must recover (ξ, η)), finite-difference Jacobians, polynomial exactness of
 * Lagrange interpolation and of strain for displacement fields with analytic derivatives. */
#include <math.h>
#include <string.h>
#include <stdlib.h>

#include "axibulk/geometry.h"
#include "numerics/kdtree.h"
#include "axibulk/sem.h"
#include "check.h"

static uint64_t rng_state = 88172645463325252ULL;
static double urand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

static void test_kdtree(check_ctx *T)
{
    enum { N = 3000 };
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    for (int i = 0; i < N; i++) {
        x[i] = urand() * 6371e3;
        y[i] = (urand() * 2 - 1) * 6371e3;
    }
    x[17] = x[18];                /* a tie in one coordinate */
    x[41] = x[40], y[41] = y[40]; /* one point twice */
    x[51] = x[50];                /* two points the same distance from their midpoint */
    axb_kdtree *t;
    axb_error err = AXB_ERROR_INIT;
    CHECK(T, axb_kdtree_create(N, x, y, &t, &err) == AXB_OK);
    long bad = 0;
    for (int q = 0; q < 300; q++) {
        double qx = urand() * 6.5e6, qy = (urand() * 2 - 1) * 6.5e6;
        int64_t idx[10];
        double d2[10];
        int n = axb_kdtree_nearest(t, qx, qy, 10, idx, d2);
        bad += n != 10;
        /* brute force: the 10 smallest distances, ties by index */
        char *used = calloc(N, 1);
        for (int r = 0; r < 10; r++) {
            int best = -1;
            double bd = 0;
            for (int i = 0; i < N; i++) {
                if (used[i]) continue;
                double d = (x[i] - qx) * (x[i] - qx) + (y[i] - qy) * (y[i] - qy);
                if (best < 0 || d < bd) best = i, bd = d;
            }
            used[best] = 1;
            bad += idx[r] != best || d2[r] != bd;
        }
        free(used);
    }
    CHECK_MSG(T, bad == 0, "%ld mismatches against brute force", bad);
    int64_t one;
    CHECK(T, axb_kdtree_nearest(t, x[123], y[123], 1, &one, NULL) == 1 && one == 123);
    /* the element search trusts a one-point search to find the first of the longer one: also
     * where distances tie (40 and 41 are one point, 50 and 51 mirror each other about the query) */
    long first = 0;
    for (int q = 0; q < 300; q++) {
        double qx = urand() * 6.5e6, qy = (urand() * 2 - 1) * 6.5e6;
        if (q == 0) qx = x[40], qy = y[40];
        if (q == 1) qx = x[50], qy = 0.5 * (y[50] + y[51]);
        int64_t idx[10], nearest = -1;
        axb_kdtree_nearest(t, qx, qy, 10, idx, NULL);
        first += axb_kdtree_nearest(t, qx, qy, 1, &nearest, NULL) != 1 || nearest != idx[0];
    }
    CHECK_MSG(T, first == 0, "%ld one-point searches differ from the first of ten", first);
    axb_kdtree_destroy(&t);
    CHECK(T, t == NULL);
    free(x);
    free(y);
}

/* A curved element between radii r1 < r2 and colatitudes t1 < t2 (corner order of fem_mesh). */
static axb_elem_shape curved(double r1, double r2, double t1, double t2, int type)
{
    axb_elem_shape g;
    const double r[4] = {r1, r1, r2, r2}, th[4] = {t1, t2, t2, t1};
    for (int k = 0; k < 4; k++) {
        g.s[k] = r[k] * sin(th[k]);
        g.z[k] = r[k] * cos(th[k]);
    }
    g.type = type;
    return g;
}

static void test_mapping(check_ctx *T)
{
    for (int type = 0; type < 4; type++) {
        axb_elem_shape g = curved(5.9e6, 6.1e6, 0.3, 0.42, type);
        double worst = 0, worst_j = 0;
        for (int q = 0; q < 200; q++) {
            double xi = urand() * 2 - 1, eta = urand() * 2 - 1, s, z, xr, er;
            axb_sem_map(&g, xi, eta, &s, &z);
            bool in = axb_sem_inside(&g, s, z, 1e-3, &xr, &er);
            CHECK(T, in);
            /* AxiSEM stops at a relative misfit of 1e-7 in distance (~0.6 m here), so (ξ, η) is
             * recovered to ~1e-5 and the misfit of the mapped point is what to check */
            double s2, z2;
            axb_sem_map(&g, xr, er, &s2, &z2);
            worst = fmax(worst, hypot(s2 - s, z2 - z) / hypot(s, z));
            CHECK(T, fabs(xr - xi) < 1e-4 && fabs(er - eta) < 1e-4);
            /* inverse Jacobian against central differences of the mapping */
            const double h = 1e-6;
            double sp, zp, sm, zm, sq, zq, sn, zn, ij[2][2];
            axb_sem_map(&g, xi + h, eta, &sp, &zp);
            axb_sem_map(&g, xi - h, eta, &sm, &zm);
            axb_sem_map(&g, xi, eta + h, &sq, &zq);
            axb_sem_map(&g, xi, eta - h, &sn, &zn);
            double J[2][2] = {{(sp - sm) / (2 * h), (sq - sn) / (2 * h)}, {(zp - zm) / (2 * h), (zq - zn) / (2 * h)}};
            axb_sem_inv_jacobian(&g, xi, eta, ij);
            /* ij · J must be the identity */
            for (int a = 0; a < 2; a++)
                for (int b = 0; b < 2; b++) {
                    double p = ij[a][0] * J[0][b] + ij[a][1] * J[1][b];
                    worst_j = fmax(worst_j, fabs(p - (a == b)));
                }
        }
        CHECK_MSG(T, worst < 1e-7, "type %d: inverse mapping misfit %g", type, worst);
        CHECK_MSG(T, worst_j < 1e-6, "type %d: Jacobian off by %g", type, worst_j);
        /* corners map to the corners; a point outside is not inside */
        const double cx[4] = {-1, 1, 1, -1}, ce[4] = {-1, -1, 1, 1};
        for (int k = 0; k < 4; k++) {
            double s, z;
            axb_sem_map(&g, cx[k], ce[k], &s, &z);
            CHECK_CLOSE(T, s, g.s[k], 1e-6);
            CHECK_CLOSE(T, z, g.z[k], 1e-6);
        }
        double xi, eta;
        CHECK(T, !axb_sem_inside(&g, 6.5e6 * sin(0.36), 6.5e6 * cos(0.36), 1e-3, &xi, &eta));
    }
    /* spheroidal edges are arcs: the mid point of the top edge lies at radius r2 */
    axb_elem_shape g = curved(5.9e6, 6.1e6, 0.3, 0.42, AXB_EL_SPHEROIDAL);
    double s, z;
    axb_sem_map(&g, 0.3, 1, &s, &z);
    CHECK_CLOSE(T, hypot(s, z), 6.1e6, 1e-6);
    axb_sem_map(&g, 0.3, -1, &s, &z);
    CHECK_CLOSE(T, hypot(s, z), 5.9e6, 1e-6);
}

static const double GLL[5] = {-1, -0.6546536707079771437983, 0, 0.6546536707079771437983, 1};
static const double GLJ[5] = {-1, -0.507787629558315, 0.13230082077732325, 0.7088201421143251, 1};

/* D[i][k] = l_k'(p_i) computed from the product formula, independently of any stored matrix. */
static void deriv_matrix(const double *p, double *D)
{
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < 5; k++) {
            double sum = 0;
            for (int m = 0; m < 5; m++) {
                if (m == k) continue;
                double prod = 1 / (p[k] - p[m]);
                for (int n = 0; n < 5; n++)
                    if (n != k && n != m) prod *= (p[i] - p[n]) / (p[k] - p[n]);
                sum += prod;
            }
            D[i * 5 + k] = sum;
        }
}

static void test_lagrange(check_ctx *T)
{
    double w[5], worst = 0;
    for (int q = 0; q < 50; q++) {
        double x = urand() * 2 - 1, sum = 0, val = 0;
        axb_lagrange_weights(GLL, 5, x, w);
        for (int k = 0; k < 5; k++) {
            sum += w[k];
            double pk = GLL[k];
            val += w[k] * (3 * pk * pk * pk * pk - pk * pk * pk + 2 * pk - 5);
        }
        worst = fmax(worst, fabs(sum - 1));
        worst = fmax(worst, fabs(val - (3 * x * x * x * x - x * x * x + 2 * x - 5)));
    }
    CHECK_MSG(T, worst < 1e-13, "Lagrange interpolation of a quartic off by %g", worst);
    axb_lagrange_weights(GLL, 5, GLL[3], w);
    CHECK(T, w[3] == 1 && w[0] == 0 && w[1] == 0 && w[2] == 0 && w[4] == 0);
}

/* An npol-4 mesh basis and a rectangular linear element (affine map, so polynomials of degree ≤ 4
 * in s and z are represented exactly and their derivatives are exact), on the axis or not. */
static void test_element(bool axis, axb_mesh *m, axb_elem_shape *g)
{
    *m = (axb_mesh){0};
    m->npol = 4;
    for (int k = 0; k < 5; k++) {
        m->gll[k] = GLL[k];
        m->glj[k] = GLJ[k];
    }
    deriv_matrix(GLL, m->G2);
    deriv_matrix(GLJ, m->G1);
    const double s0 = axis ? 0.0 : 1.0, s1 = s0 + 1.5, z0 = 3.0, z1 = 4.0;
    *g = (axb_elem_shape){{s0, s1, s1, s0}, {z0, z0, z1, z1}, AXB_EL_LINEAR};
}

/* The strain of u_s = a s², u_φ = a s z, u_z = a s z² at (s, z): ∂s u_s = 2as, u_s/s = as,
 * ∂z u_z = 2asz, ∂z u_s = 0, ∂s u_z = az², u_φ/s = az, ∂z u_φ = as, ∂s u_φ = az, u_z/s = az² (all
 * finite at s = 0); the dipole and quadpole terms as in the reference notes §2.7 table. */
static void analytic_strain(int exc, double a, double s, double z, double want[6])
{
    want[0] = 2 * a * s;
    want[2] = 2 * a * s * z;
    want[4] = 0.5 * (0 + a * z * z);
    if (exc == AXB_EXC_MONOPOLE) {
        want[1] = a * s;
        want[3] = 0;
        want[5] = 0;
    } else if (exc == AXB_EXC_DIPOLE) {
        want[1] = a * s - a * z;
        want[3] = -0.5 * (a * z * z + a * s);
        want[5] = -0.5 * (a * s - a * z) - 0.5 * a * z;
    } else {
        want[1] = a * s - 2 * a * z;
        want[3] = -a * z * z - 0.5 * a * s;
        want[5] = (0.5 * a * z - a * s) - 0.5 * a * z;
    }
}

/* Strain of analytic fields on test_element. */
static void test_strain(check_ctx *T, bool axis)
{
    axb_mesh m;
    axb_elem_shape g;
    test_element(axis, &m, &g);
    const int64_t nt = 3;
    const int64_t fl = 25 * nt;
    double *u = calloc(3 * fl, sizeof *u), *E = calloc(6 * fl, sizeof *E), *w = calloc(6 * fl, sizeof *w);
    const double *xp = axis ? GLJ : GLL;
    for (int exc = 0; exc < 3; exc++) {
        /* u_s = a s², u_φ = a s z, u_z = a s z² with a = t + 1 (so samples differ) */
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 5; j++)
                for (int64_t t = 0; t < nt; t++) {
                    double s, z, a = (double)t + 1;
                    axb_sem_map(&g, xp[i], GLL[j], &s, &z);
                    double us = a * s * s, up = a * s * z, uz = a * s * z * z;
                    int64_t q = (i * 5 + j) * nt + t;
                    u[q] = us;
                    u[fl + q] = exc == AXB_EXC_MONOPOLE ? 0 : up;
                    u[2 * fl + q] = uz;
                }
        axb_sem_strain(&m, &g, axis, (axb_excitation)exc, nt, u, E, w);
        double worst = 0;
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 5; j++)
                for (int64_t t = 0; t < nt; t++) {
                    double s, z, a = (double)t + 1;
                    axb_sem_map(&g, xp[i], GLL[j], &s, &z);
                    double want[6];
                    analytic_strain(exc, a, s, z, want);
                    for (int c = 0; c < 6; c++) worst = fmax(worst, fabs(E[c * fl + (i * 5 + j) * nt + t] - want[c]));
                }
        CHECK_MSG(T, worst < 1e-10, "%s element, excitation %d: strain off by %g", axis ? "axis" : "interior", exc,
                  worst);
    }
    free(u);
    free(E);
    free(w);
}

static void test_geometry(check_ctx *T)
{
    CHECK_CLOSE(T, axb_geo_distance_deg(0, 0, 0, 90), 90, 1e-12);
    CHECK_CLOSE(T, axb_geo_distance_deg(10, 20, -10, -160), 180, 1e-9);
    CHECK_CLOSE(T, axb_geo_distance_deg(89.91, 0, 42.639, 74.494), axb_geo_distance_deg(42.639, 74.494, 89.91, 0),
                1e-12);
    /* rotating to a pole: colatitude in the new frame = epicentral distance */
    double worst = 0;
    for (int q = 0; q < 100; q++) {
        double la = urand() * 180 - 90, lo = urand() * 360 - 180, lb = urand() * 180 - 90, lob = urand() * 360 - 180;
        double xyz[3], s, z, phi;
        axb_geo_cartesian(la, lo, 6e6, xyz);
        axb_geo_rotate_frame(xyz, lob, 90 - lb, &s, &z, &phi);
        worst = fmax(worst, fabs(atan2(s, z) * 180 / 3.14159265358979323846 - axb_geo_distance_deg(la, lo, lb, lob)));
        worst = fmax(worst, fabs(hypot(s, z) - 6e6) / 6e6 * 180);
        CHECK(T, phi >= 0 && phi < 2 * 3.14159265358979323846);
    }
    CHECK_MSG(T, worst < 1e-9, "rotation vs distance: %g deg", worst);
    /* a point due south of the pole (same longitude) has φ = 0: x points south at the pole */
    double xyz[3], s, z, phi;
    axb_geo_cartesian(30, 40, 6e6, xyz);
    axb_geo_rotate_frame(xyz, 40, 90 - 50, &s, &z, &phi);
    CHECK_CLOSE(T, phi, 0, 1e-12);
    axb_geo_cartesian(50, 41, 6e6, xyz); /* east of the pole: φ near 90° */
    axb_geo_rotate_frame(xyz, 40, 90 - 50, &s, &z, &phi);
    CHECK_CLOSE(T, phi, 3.14159265358979323846 / 2, 0.01);
    /* rotations preserve tensor invariants (trace, Frobenius norm) */
    const double m[6] = {4.71e17, 3.81e15, -4.74e17, 3.99e16, -8.05e16, -1.23e17};
    double v[6];
    axb_geo_tensor_to_db_frame(m, 0.0, 0.09, 74.494, 90 - 42.639, 1.234, v);
    CHECK_CLOSE(T, v[0] + v[1] + v[2], m[0] + m[1] + m[2], 1e3);
    double n1 = m[0] * m[0] + m[1] * m[1] + m[2] * m[2] + 2 * (m[3] * m[3] + m[4] * m[4] + m[5] * m[5]);
    double n2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + 2 * (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
    CHECK_CLOSE(T, n2 / n1, 1, 1e-14);
    double P[3][3];
    axb_geo_forward_nez(10, 80, 74.494, 47.361, 2.5, P);
    double orth = 0;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double d = 0;
            for (int k = 0; k < 3; k++) d += P[a][k] * P[b][k];
            orth = fmax(orth, fabs(d - (a == b)));
        }
    CHECK_MSG(T, orth < 1e-14, "forward rotation not orthogonal: %g", orth);
}

/* The strain operator of an element, applied as extraction applies it (interpolated to a point,
 * then one weighted pass over float rows), against the analytic strain of test_strain's fields at
 * that point; and axb_sem_apply_rows against a plain double sum. */
static void test_strain_operator(check_ctx *T, bool axis)
{
    axb_mesh m;
    axb_elem_shape g;
    test_element(axis, &m, &g);
    enum { N = 25, NC = 75, NT = 4 };
    double *op = calloc(6 * N * NC, sizeof *op), *scratch = calloc(9 * N * NC, sizeof *scratch);
    double I[6][NC], out[6][NT], wxi[5], weta[5];
    float rows[NC * NT];
    const double *xp = axis ? GLJ : GLL;
    const double xi = -0.3, eta = 0.45; /* not a collocation point */
    axb_lagrange_weights(xp, 5, xi, wxi);
    axb_lagrange_weights(GLL, 5, eta, weta);
    double s, z;
    axb_sem_map(&g, xi, eta, &s, &z);
    for (int exc = 0; exc < 3; exc++) {
        axb_sem_strain_operator(&m, &g, axis, (axb_excitation)exc, op, scratch);
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 5; j++) {
                double ps, pz;
                axb_sem_map(&g, xp[i], GLL[j], &ps, &pz);
                for (int t = 0; t < NT; t++) {
                    const double a = t + 1;
                    rows[(0 * N + i * 5 + j) * NT + t] = (float)(a * ps * ps);
                    rows[(1 * N + i * 5 + j) * NT + t] = exc == AXB_EXC_MONOPOLE ? 0.0f : (float)(a * ps * pz);
                    rows[(2 * N + i * 5 + j) * NT + t] = (float)(a * ps * pz * pz);
                }
            }
        for (int k = 0; k < 6; k++) {
            axb_sem_interpolate(5, NC, op + k * N * NC, wxi, weta, I[k]);
            const double *w[1] = {I[k]};
            double *o[1] = {out[k]};
            axb_sem_apply_rows(NC, NT, rows, 1, w, o, false);
        }
        double worst = 0;
        for (int t = 0; t < NT; t++) {
            const double a = t + 1;
            double want[6];
            analytic_strain(exc, a, s, z, want);
            for (int k = 0; k < 6; k++) worst = fmax(worst, fabs(out[k][t] - want[k]) / (a * 20));
        }
        /* the rows are floats: ~1e-7 of the field */
        CHECK_MSG(T, worst < 1e-5, "%s element, excitation %d: strain operator off by %g of the field",
                  axis ? "axis" : "interior", exc, worst);
    }
    /* two outputs, row counts that are not multiples of five */
    double w2[2][NC], ref[2][NT], got[2][NT];
    for (int nrows = 1; nrows <= NC; nrows += 7) {
        for (int r = 0; r < nrows; r++)
            for (int k = 0; k < 2; k++) w2[k][r] = urand() - 0.5;
        for (int q = 0; q < nrows * NT; q++) rows[q] = (float)(urand() - 0.5);
        double worst = 0;
        for (int k = 0; k < 2; k++)
            for (int t = 0; t < NT; t++) {
                ref[k][t] = 0;
                for (int r = 0; r < nrows; r++) ref[k][t] += w2[k][r] * rows[r * NT + t];
            }
        const double *w[2] = {w2[0], w2[1]};
        double *o[2] = {got[0], got[1]};
        axb_sem_apply_rows(nrows, NT, rows, 2, w, o, false);
        for (int k = 0; k < 2; k++)
            for (int t = 0; t < NT; t++) worst = fmax(worst, fabs(got[k][t] - ref[k][t]));
        /* added to what is there: twice the sums */
        axb_sem_apply_rows(nrows, NT, rows, 2, w, o, true);
        for (int k = 0; k < 2; k++)
            for (int t = 0; t < NT; t++) worst = fmax(worst, fabs(got[k][t] - 2 * ref[k][t]));
        CHECK_MSG(T, worst < 1e-13, "apply_rows over %d rows off by %g", nrows, worst);
    }
    free(op);
    free(scratch);
}

/* The operator is the dense strain of the 75 unit displacements: axb_sem_strain_operators (which
 * sets the derivatives of unit inputs directly, and shares the geometry between excitations) must
 * give exactly the bits of axb_sem_strain's general sums on the identity matrix, for every
 * excitation, alone or two at once. */
static void test_operator_bits(check_ctx *T, bool axis)
{
    axb_mesh m;
    axb_elem_shape g;
    test_element(axis, &m, &g);
    enum { N = 25, NC = 75 };
    double *u = calloc(3 * N * NC, sizeof *u), *dense = calloc(6 * N * NC, sizeof *dense);
    double *work = calloc(6 * N * NC, sizeof *work), *scratch = calloc(9 * N * NC, sizeof *scratch);
    double *op[2] = {calloc(6 * N * NC, sizeof(double)), calloc(6 * N * NC, sizeof(double))};
    CHECK(T, u && dense && work && scratch && op[0] && op[1]);
    if (!u || !dense || !work || !scratch || !op[0] || !op[1]) return;
    for (int q = 0; q < NC; q++) u[q * NC + q] = 1.0;
    for (int exc = 0; exc < 3; exc++) {
        axb_sem_strain(&m, &g, axis, (axb_excitation)exc, NC, u, dense, work);
        axb_sem_strain_operator(&m, &g, axis, (axb_excitation)exc, op[0], scratch);
        CHECK_MSG(T, !memcmp(op[0], dense, 6 * N * NC * sizeof *dense),
                  "%s element, excitation %d: operator differs from the strain of the unit displacements",
                  axis ? "axis" : "interior", exc);
        const axb_excitation two[2] = {(axb_excitation)exc, (axb_excitation)((exc + 1) % 3)};
        axb_sem_strain_operators(&m, &g, axis, 2, two, op, scratch);
        CHECK_MSG(T, !memcmp(op[0], dense, 6 * N * NC * sizeof *dense),
                  "%s element, excitations %d and %d at once: the first differs", axis ? "axis" : "interior", exc,
                  (exc + 1) % 3);
        axb_sem_strain(&m, &g, axis, two[1], NC, u, dense, work);
        CHECK_MSG(T, !memcmp(op[1], dense, 6 * N * NC * sizeof *dense),
                  "%s element, excitations %d and %d at once: the second differs", axis ? "axis" : "interior", exc,
                  (exc + 1) % 3);
    }
    free(u);
    free(dense);
    free(work);
    free(scratch);
    free(op[0]);
    free(op[1]);
}

/* axb_sem_strain_at against its definition: the dense operator's rows interpolated to the point,
 * on straight and curved elements, on the axis and off it, for every excitation and at points
 * inside, on the edges and at a corner. Another order of the same sums: equal to rounding. */
static void test_strain_at(check_ctx *T, bool axis)
{
    axb_mesh m;
    axb_elem_shape straight;
    test_element(axis, &m, &straight);
    enum { N = 25, NC = 75 };
    const axb_elem_shape shapes[3] = {straight,
                                      curved(5.0e6, 5.6e6, axis ? 0.0 : 0.3, axis ? 0.12 : 0.42, AXB_EL_SPHEROIDAL),
                                      curved(3.48e6, 3.9e6, axis ? 0.0 : 1.1, axis ? 0.2 : 1.3, AXB_EL_SEMINO)};
    const double pts[5][2] = {{-0.3, 0.45}, {0.71, -0.88}, {-1.0, 0.2}, {1.0, 1.0}, {0.05, -1.0}};
    double *op = calloc(6 * N * NC, sizeof *op), *scratch = calloc(9 * N * NC, sizeof *scratch);
    CHECK(T, op && scratch);
    if (!op || !scratch) return;
    const double *xp = axis ? GLJ : GLL;
    for (int e = 0; e < 3; e++) {
        axb_sem_geom geo;
        axb_sem_geom_init(&m, &shapes[e], axis, &geo);
        for (int exc = 0; exc < 3; exc++) {
            axb_sem_strain_operator(&m, &shapes[e], axis, (axb_excitation)exc, op, scratch);
            for (int p = 0; p < 5; p++) {
                double wxi[5], weta[5], want[6 * NC], got[6 * NC];
                axb_lagrange_weights(xp, 5, pts[p][0], wxi);
                axb_lagrange_weights(GLL, 5, pts[p][1], weta);
                double scale = 0, worst = 0;
                for (int k = 0; k < 6; k++) axb_sem_interpolate(5, NC, op + k * N * NC, wxi, weta, want + k * NC);
                for (int q = 0; q < 6 * NC; q++) scale = fmax(scale, fabs(want[q]));
                /* six unit vectors: the rows themselves */
                double unit[6][6] = {{0}};
                double *rows[6];
                for (int k = 0; k < 6; k++) {
                    unit[k][k] = 1;
                    rows[k] = got + k * NC;
                }
                axb_sem_strain_at(&geo, (axb_excitation)exc, wxi, weta, 6, unit, rows);
                for (int q = 0; q < 6 * NC; q++) worst = fmax(worst, fabs(got[q] - want[q]) / scale);
                /* two contractions at once, as extraction asks for a moment tensor's R and T */
                double coef[2][6], two[2][NC];
                for (int r = 0; r < 2; r++)
                    for (int k = 0; k < 6; k++) coef[r][k] = urand() - 0.5;
                double *o2[2] = {two[0], two[1]};
                axb_sem_strain_at(&geo, (axb_excitation)exc, wxi, weta, 2, coef, o2);
                for (int r = 0; r < 2; r++)
                    for (int q = 0; q < NC; q++) {
                        double ref = 0;
                        for (int k = 0; k < 6; k++) ref += coef[r][k] * want[k * NC + q];
                        worst = fmax(worst, fabs(two[r][q] - ref) / scale);
                    }
                CHECK_MSG(T, worst < 1e-13 && scale > 0,
                          "%s element %d, excitation %d, point (%g, %g): strain operator at the point off by %g "
                          "of its largest weight",
                          axis ? "axis" : "interior", e, exc, pts[p][0], pts[p][1], worst);
            }
        }
    }
    free(op);
    free(scratch);
}

/* axb_sem_map_grid gives the bits of axb_sem_map and axb_sem_inv_jacobian point by point, for
 * all four element types. */
static void test_map_grid(check_ctx *T)
{
    const axb_elem_shape shapes[4] = {curved(5.0e6, 5.6e6, 0.3, 0.42, AXB_EL_SPHEROIDAL),
                                      curved(3.48e6, 3.9e6, 1.1, 1.3, AXB_EL_SEMINO),
                                      curved(3.48e6, 3.9e6, 0.0, 0.2, AXB_EL_SEMISO),
                                      {{0, 1.5, 1.6, 0.1}, {3, 3.1, 4, 4.2}, AXB_EL_LINEAR}};
    double s[25], z[25], ij[25][2][2];
    for (int e = 0; e < 4; e++) {
        axb_sem_map_grid(&shapes[e], 5, GLJ, 5, GLL, s, z, ij);
        int same = 1;
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 5; j++) {
                double s1, z1, ij1[2][2];
                axb_sem_map(&shapes[e], GLJ[i], GLL[j], &s1, &z1);
                axb_sem_inv_jacobian(&shapes[e], GLJ[i], GLL[j], ij1);
                same &= s1 == s[i * 5 + j] && z1 == z[i * 5 + j] && !memcmp(ij1, ij[i * 5 + j], sizeof ij1);
            }
        CHECK_MSG(T, same, "element type %d: the grid differs from the point-by-point mapping", shapes[e].type);
    }
}

int main(void)
{
    check_ctx T = {0, 0, 0};
    test_kdtree(&T);
    test_mapping(&T);
    test_lagrange(&T);
    test_strain(&T, false);
    test_strain(&T, true);
    test_strain_operator(&T, false);
    test_strain_operator(&T, true);
    test_operator_bits(&T, false);
    test_operator_bits(&T, true);
    test_strain_at(&T, false);
    test_strain_at(&T, true);
    test_map_grid(&T);
    test_geometry(&T);
    return check_summary(&T);
}
