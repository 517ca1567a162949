/* The mesh of `axibulk mkdb`: a spherical shell rmin <= r <= R in the meridional half-plane,
 * cut into a regular colatitude x radius grid of spheroidal elements (reference notes §1.4).
 *
 * Orientation: η grows with radius (spheroidal mapping: corner 1/2 radius at η = -1). ξ must start
 * at the symmetry axis on axis elements (GLJ points in ξ, ξ = -1 on s = 0), so columns in the
 * northern half run ξ with growing colatitude and columns in the southern half run it with
 * falling colatitude; each half then has its axis at ξ = -1. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/mkdb.h"
#include "axibulk/sem.h"

static const double PI = 3.14159265358979323846;

/* Jacobi polynomial P_n^(a,b)(x) by the three-term recurrence. */
static double jacobi(int n, double a, double b, double x)
{
    double p0 = 1.0, p1 = ((a - b) + (a + b + 2) * x) / 2;
    if (n == 0) return p0;
    for (int k = 2; k <= n; k++) {
        const double c = 2.0 * k + a + b;
        const double a1 = 2.0 * k * (k + a + b) * (c - 2);
        const double a2 = (c - 1) * (a * a - b * b);
        const double a3 = (c - 2) * (c - 1) * c;
        const double a4 = 2.0 * (k + a - 1) * (k + b - 1) * c;
        const double p2 = ((a2 + a3 * x) * p1 - a4 * p0) / a1;
        p0 = p1;
        p1 = p2;
    }
    return p1;
}

static double jacobi_deriv(int n, double a, double b, double x)
{
    return n == 0 ? 0.0 : (n + a + b + 1) / 2 * jacobi(n - 1, a + 1, b + 1, x);
}

/* The n roots of P_n^(a,b), ascending: Newton from Chebyshev guesses, deflating the roots
 * already found so each start converges to a new one. */
static axb_status jacobi_roots(int n, double a, double b, double *x, axb_error *err)
{
    for (int k = 0; k < n; k++) {
        double r = -cos((2.0 * k + 1) * PI / (2.0 * n));
        if (k > 0 && r < x[k - 1]) r = (r + x[k - 1]) / 2;
        int it;
        for (it = 0; it < 100; it++) {
            double defl = 0;
            for (int j = 0; j < k; j++) defl += 1.0 / (r - x[j]);
            const double p = jacobi(n, a, b, r);
            const double delta = p / (jacobi_deriv(n, a, b, r) - defl * p);
            r -= delta;
            if (fabs(delta) < 1e-16) break;
        }
        if (!isfinite(r)) return axb_error_set(err, AXB_ERR_INTERNAL, "Jacobi root %d of %d", k, n);
        x[k] = r;
    }
    for (int i = 1; i < n; i++) /* insertion sort: n is tiny */
        for (int j = i; j > 0 && x[j] < x[j - 1]; j--) {
            double t = x[j];
            x[j] = x[j - 1];
            x[j - 1] = t;
        }
    return AXB_OK;
}

/* D[i][k] = l_k'(x_i) of the Lagrange basis on the n points x, float32-rounded. */
static void deriv_matrix(const double *x, int n, double *D)
{
    double c[AXB_NPOL_MAX + 1];
    for (int i = 0; i < n; i++) {
        c[i] = 1.0;
        for (int j = 0; j < n; j++)
            if (j != i) c[i] *= x[i] - x[j];
    }
    for (int i = 0; i < n; i++) {
        double diag = 0;
        for (int k = 0; k < n; k++) {
            if (k == i) continue;
            D[i * n + k] = c[i] / (c[k] * (x[i] - x[k]));
            diag += 1.0 / (x[i] - x[k]);
        }
        /* interior GLL diagonals are exactly 0 (AxiSEM stores 0); the sum leaves ~1e-16 */
        D[i * n + i] = fabs(diag) < 1e-12 ? 0.0 : diag;
    }
    for (int k = 0; k < n * n; k++) D[k] = (double)(float)D[k];
}

axb_status axb_mkdb_basis(int npol, double *gll, double *glj, double *G1, double *G2, axb_error *err)
{
    AXB_CHECK(err, npol >= 2 && npol <= AXB_NPOL_MAX, AXB_ERR_ARG, "npol %d outside 2..%d", npol, AXB_NPOL_MAX);
    /* interior GLL points: roots of P'_N ∝ P_{N-1}^(1,1); GLJ(0,1): roots of P_{N-1}^(1,2) */
    gll[0] = glj[0] = -1.0;
    gll[npol] = glj[npol] = 1.0;
    AXB_TRY(jacobi_roots(npol - 1, 1.0, 1.0, gll + 1, err));
    AXB_TRY(jacobi_roots(npol - 1, 1.0, 2.0, glj + 1, err));
    /* the GLL points are symmetric: make them exactly so (the middle one exactly 0) */
    for (int i = 0; i <= npol / 2; i++) {
        double v = (gll[npol - i] - gll[i]) / 2;
        gll[i] = -v;
        gll[npol - i] = v;
    }
    if (npol % 2 == 0) gll[npol / 2] = 0.0;
    deriv_matrix(gll, npol + 1, G2);
    deriv_matrix(glj, npol + 1, G1);
    return AXB_OK;
}

void axb_mkdb_mesh_free(axb_mkdb_mesh *m)
{
    free(m->s);
    free(m->z);
    free(m->es);
    free(m->ez);
    free(m->sem);
    free(m->fem);
    free(m->axis);
    free(m->mid);
    memset(m, 0, sizeof *m);
}

/* Geometry of one element column/layer, shared by both storage kinds. Layers 0..nbelow-1 span
 * rmin..rsplit, the others rsplit..rmax (nbelow 0: one span rmin..rmax). */
typedef struct grid {
    int npol, ntheta, nrad, nbelow;
    double dtheta, rmin, rsplit, rmax;
} grid;

/* Colatitude of ξ-node i of column k and its global column index; ξ runs away from the nearer
 * axis (see the file comment). */
static void column_node(const grid *g, const double *pts, int k, int i, double *theta, int64_t *a)
{
    const bool south = 2 * k + 1 > g->ntheta;
    const int N = g->npol;
    const double frac = (1 + pts[i]) / 2;
    if (!south) {
        *a = (int64_t)k * N + i;
        *theta = i == 0 ? k * g->dtheta : i == N ? (k + 1) * g->dtheta : (k + frac) * g->dtheta;
    } else {
        *a = (int64_t)(k + 1) * N - i;
        *theta = i == 0 ? (k + 1) * g->dtheta : i == N ? k * g->dtheta : (k + 1 - frac) * g->dtheta;
    }
    if (*a == 0) *theta = 0.0;
    if (*a == (int64_t)g->ntheta * N) *theta = PI;
}

static double layer_node(const grid *g, const double *gll, int l, int j)
{
    if (l == g->nrad - 1 && j == g->npol) return g->rmax;
    if (l == 0 && j == 0) return g->rmin;
    /* the split radius exactly, from both layers that share it */
    if (g->nbelow > 0 && ((l == g->nbelow - 1 && j == g->npol) || (l == g->nbelow && j == 0))) return g->rsplit;
    const bool low = l < g->nbelow;
    const double r0 = low ? g->rmin : g->nbelow > 0 ? g->rsplit : g->rmin, r1 = low ? g->rsplit : g->rmax;
    const int n = low ? g->nbelow : g->nrad - g->nbelow, k = low ? l : l - g->nbelow;
    return r0 + (k + (1 + gll[j]) / 2) * ((r1 - r0) / n);
}

static void place(const grid *g, double theta, int64_t a, double r, double *s, double *z)
{
    /* points on the axis must have s exactly 0 (sin(pi) is not) */
    const bool on_axis = a == 0 || a == (int64_t)g->ntheta * g->npol;
    *s = on_axis ? 0.0 : r * sin(theta);
    *z = r * cos(theta);
}

/* Readers never see the exact grid, only float32 corners (fem_mesh into mesh_S/Z) through which
 * they map every GLL point. Evaluating the field at the float32-rounded point coordinates instead
 * puts ~0.5 m of independent jitter on each point; differentiated over a small element it became
 * a strain error of order 10 · jitter / h (1e-4 of the peak at 30 points per wavelength, growing
 * with resolution). So the field is evaluated where the readers' mapping puts each point: the
 * spheroidal map of the element's float32 corners, from the first element that holds the point
 * (neighbours agree along shared edges, which depend on the two shared corners only). */
static axb_status eval_points(axb_mkdb_mesh *m, axb_error *err)
{
    const int N = m->npol, np1 = N + 1;
    m->es = malloc((size_t)m->npoints * sizeof *m->es);
    m->ez = malloc((size_t)m->npoints * sizeof *m->ez);
    char *done = calloc((size_t)m->npoints, 1);
    if (!m->es || !m->ez || !done) {
        free(done);
        return axb_error_set(err, AXB_ERR_NOMEM, "mesh evaluation points (%lld)", (long long)m->npoints);
    }
    for (int64_t e = 0; e < m->nelem; e++) {
        axb_elem_shape g = {.type = AXB_EL_SPHEROIDAL};
        for (int c = 0; c < 4; c++) {
            g.s[c] = (double)(float)m->s[m->fem[e * 4 + c]];
            g.z[c] = (double)(float)m->z[m->fem[e * 4 + c]];
        }
        const double *xi_pts = m->axis[e] ? m->glj : m->gll;
        for (int j = 0; j < np1; j++)
            for (int i = 0; i < np1; i++) {
                const int32_t p = m->sem[(e * np1 + j) * np1 + i];
                if (done[p]) continue;
                done[p] = 1;
                axb_sem_map(&g, xi_pts[i], m->gll[j], &m->es[p], &m->ez[p]);
            }
    }
    free(done);
    return AXB_OK;
}

/* The arrays of a mesh of @p ne elements and @p npt points; *id: a grid-node numbering of
 * @p ngrid nodes, all -1 (elements only). */
static axb_status alloc_mesh(axb_mkdb_mesh *m, bool with_elements, int64_t ne, int64_t npt, int64_t ngrid, int32_t **id,
                             axb_error *err)
{
    const int64_t np1 = m->npol + 1;
    *id = NULL;
    m->s = malloc((size_t)npt * sizeof *m->s);
    m->z = malloc((size_t)npt * sizeof *m->z);
    if (with_elements) {
        m->sem = malloc((size_t)(ne * np1 * np1) * sizeof *m->sem);
        m->fem = malloc((size_t)(ne * 4) * sizeof *m->fem);
        m->axis = malloc((size_t)ne * sizeof *m->axis);
        m->mid = malloc((size_t)ne * sizeof *m->mid);
        *id = malloc((size_t)ngrid * sizeof **id);
    }
    if (!m->s || !m->z || (with_elements && (!m->sem || !m->fem || !m->axis || !m->mid || !*id))) {
        free(*id);
        *id = NULL;
        axb_mkdb_mesh_free(m);
        return axb_error_set(err, AXB_ERR_NOMEM, "mesh of %lld elements", (long long)ne);
    }
    if (*id)
        for (int64_t k = 0; k < ngrid; k++) (*id)[k] = -1;
    return AXB_OK;
}

/* Corners, axis flag and mid point of element @p e from its sem row. */
static void element_facts(axb_mkdb_mesh *m, int64_t e, bool axis)
{
    const int N = m->npol, np1 = N + 1;
    const int32_t *sem = m->sem + e * np1 * np1;
    m->fem[e * 4 + 0] = sem[0];
    m->fem[e * 4 + 1] = sem[N];
    m->fem[e * 4 + 2] = sem[N * np1 + N];
    m->fem[e * 4 + 3] = sem[N * np1];
    m->axis[e] = axis;
    m->mid[e] = sem[(N / 2) * np1 + N / 2];
}

/* Numbers and places every point, element by element (displ_only: shared points once, through
 * the grid-node numbering @p id; strain_only: the interior points of each element). Returns the
 * number of points placed. */
static int64_t number_points(const grid *g, axb_mkdb_mesh *m, bool with_elements, int64_t ncol, int32_t *id)
{
    const int N = g->npol, np1 = N + 1;
    int64_t next = 0;
    for (int k = 0; k < g->ntheta; k++) {
        const bool axis = k == 0 || k == g->ntheta - 1;
        const double *xi_pts = axis ? m->glj : m->gll;
        for (int l = 0; l < g->nrad; l++) {
            const int64_t e = (int64_t)k * g->nrad + l;
            for (int j = 0; j < np1; j++) {
                const double r = layer_node(g, m->gll, l, j);
                for (int i = 0; i < np1; i++) {
                    double theta;
                    int64_t a;
                    column_node(g, xi_pts, k, i, &theta, &a);
                    if (!with_elements) {
                        if (i == 0 || i == N || j == 0 || j == N) continue;
                        place(g, theta, a, r, &m->s[next], &m->z[next]);
                        next++;
                        continue;
                    }
                    const int64_t gi = ((int64_t)l * N + j) * ncol + a;
                    if (id[gi] < 0) {
                        id[gi] = (int32_t)next;
                        place(g, theta, a, r, &m->s[next], &m->z[next]);
                        next++;
                    }
                    m->sem[(e * np1 + j) * np1 + i] = id[gi];
                }
            }
            if (with_elements) element_facts(m, e, axis);
        }
    }
    return next;
}

axb_status axb_mkdb_mesh_build(const axb_mkdb_plan *plan, bool with_elements, axb_mkdb_mesh *m, axb_error *err)
{
    memset(m, 0, sizeof *m);
    const int N = plan->npol;
    m->npol = N;
    AXB_TRY(axb_mkdb_basis(N, m->gll, m->glj, m->G1, m->G2, err));
    const grid g = {.npol = N,
                    .ntheta = plan->ntheta,
                    .nrad = plan->nrad,
                    .nbelow = plan->nrad_below,
                    .dtheta = PI / plan->ntheta,
                    .rmin = plan->r_min,
                    .rsplit = plan->r_src,
                    .rmax = plan->r_max};
    const int64_t ne = (int64_t)g.ntheta * g.nrad;
    const int64_t ncol = (int64_t)g.ntheta * N + 1, nrow = (int64_t)g.nrad * N + 1;
    const int64_t npt = with_elements ? ncol * nrow : ne * (N - 1) * (N - 1);
    AXB_CHECK(err, npt < INT32_MAX, AXB_ERR_RANGE,
              "%lld GLL points do not fit the int32 indices of the format: use a longer period", (long long)npt);
    m->nelem = with_elements ? ne : 0;
    m->has_elements = with_elements;
    int32_t *id = NULL;
    AXB_TRY(alloc_mesh(m, with_elements, ne, npt, ncol * nrow, &id, err));
    const int64_t next = number_points(&g, m, with_elements, ncol, id);
    free(id);
    if (next != npt) {
        axb_mkdb_mesh_free(m);
        return axb_error_set(err, AXB_ERR_INTERNAL, "mesh: numbered %lld of %lld points", (long long)next,
                             (long long)npt);
    }
    m->npoints = npt;
    if (with_elements) {
        axb_status st = eval_points(m, err);
        if (st) {
            axb_mkdb_mesh_free(m);
            return st;
        }
    }
    return AXB_OK;
}
