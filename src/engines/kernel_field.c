/* The forward and backward wavefields of a kernel at arbitrary points (docs/kernels.md §4): the
 * point is rotated into the database's frame, located, and the strain of every run — computed at
 * the element's collocation points with the extraction's formulas (sem.h) and cached per element
 * — is interpolated, combined with the source's azimuth factors and turned into the local frame
 * (θ̂, φ̂, r̂) at the point. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/geometry.h"
#include "axibulk/sem.h"
#include "engines/batch_iter.h"
#include "engines/kernel_internal.h"
#include "numerics/sem_locate.h"

static void *alloc_n(int64_t n, size_t size)
{
    return n > 0 ? malloc((size_t)n * size) : NULL;
}

axb_status axb_kdb_open(MPI_Comm comm, const char *path, bool forward, bool want_displ, int64_t cache_bytes,
                        int threads, int64_t min_elements, axb_kdb *k, axb_error *err)
{
    memset(k, 0, sizeof *k);
    k->forward = forward;
    k->want_displ = want_displ;
    AXB_TRY(axb_db_open(comm, path, &k->db, err));
    axb_db_set_threads(k->db, threads);
    k->info = axb_db_get_info(k->db);
    k->mesh = axb_db_get_mesh(k->db);
    const axb_db_info *in = k->info;
    const char *want = forward ? "forward" : "reciprocal (backward)";
    axb_status st = AXB_OK;
    if ((in->kind == AXB_DB_FORWARD) != forward)
        st = axb_error_set(err, AXB_ERR_ARG, "%s: this is a %s database, the job needs a %s one here", path,
                           axb_db_kind_name(in->kind), want);
    else if (!k->mesh->has_elements)
        st = axb_error_set(err, AXB_ERR_UNSUPPORTED,
                           "%s: kernels need a displ_only database (element topology to interpolate strain%s); this "
                           "one is %s",
                           path, want_displ ? ", and velocities for density" : "", axb_dump_type_name(in->dump));
    if (st) {
        axb_db_close(&k->db);
        return st;
    }
    for (int s = 0; s < AXB_NSIM; s++)
        if (in->has_sim[s]) k->runs[k->nruns++] = (axb_sim)s;
    k->np1 = in->npol + 1;
    k->nt = in->ndumps;
    k->fl = (int64_t)k->np1 * k->np1 * k->nt;
    k->unit = (6 * k->nruns + (want_displ ? in->nvars : 0)) * k->fl;
    int64_t cap = cache_bytes / (k->unit * (int64_t)sizeof(float));
    if (cap < 2 * min_elements) cap = 2 * min_elements; /* axb_kdb_prepare needs twice a step */
    st = axb_elem_cache_init(&k->cache, cap * k->unit * (int64_t)sizeof(float), k->unit, err);
    if (!st) st = axb_kdtree_create(k->mesh->nelem, k->mesh->mp_s, k->mesh->mp_z, &k->tree, err);
    if (!st) {
        k->blocks_cap = 16;
        k->blocks = alloc_n(k->blocks_cap * axb_db_block_floats(k->db), sizeof(float));
        k->u = alloc_n(3 * k->fl, sizeof(double));
        k->strain = alloc_n(6 * k->fl, sizeof(double));
        k->work = alloc_n(6 * k->fl, sizeof(double));
        k->derived = alloc_n(k->unit, sizeof(float));
        k->want = alloc_n(2 * k->cache.cap + k->blocks_cap, sizeof(int64_t)); /* wanted, missing, one read */
        if (!k->blocks || !k->u || !k->strain || !k->work || !k->derived || !k->want)
            st = axb_error_set(err, AXB_ERR_NOMEM, "%s: kernel field buffers", path);
    }
    if (st) axb_kdb_close(k);
    return st;
}

void axb_kdb_close(axb_kdb *k)
{
    axb_db_close(&k->db);
    axb_kdtree_destroy(&k->tree);
    axb_elem_cache_free(&k->cache);
    free(k->blocks);
    free(k->u);
    free(k->strain);
    free(k->work);
    free(k->derived);
    free(k->want);
    memset(k, 0, sizeof *k);
}

axb_status axb_kdb_locate(const axb_kdb *k, double pole_lon, double pole_colat, const double x[3], axb_kloc *loc,
                          axb_error *err)
{
    axb_geo_rotate_frame(x, pole_lon, pole_colat, &loc->s, &loc->z, &loc->phi);
    if (axb_sem_locate(k->mesh, k->tree, loc->s, loc->z, 12, &loc->elem, &loc->xi, &loc->eta)) return AXB_OK;
    const double r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    return axb_error_set(err, AXB_ERR_RANGE,
                         "%s: no element holds the point at radius %.1f km, %.2f deg from the pole (the database "
                         "covers radii %.1f to %.1f km)",
                         k->info->path, r / 1e3, atan2(loc->s, loc->z) * 180 / acos(-1.0), k->info->min_radius / 1e3,
                         k->info->max_radius / 1e3);
}

/* Strain of every run (and the displacement, if wanted) of one element block into k->derived. */
static void derive(axb_kdb *k, int64_t elem, const float *block)
{
    const axb_db_info *in = k->info;
    const int64_t fl = k->fl;
    axb_elem_shape g;
    axb_sem_shape(k->mesh, elem, &g);
    const bool axis = k->mesh->axis[elem] != 0;
    float *out = k->derived;
    for (int r = 0; r < k->nruns; r++) {
        const axb_sim s = k->runs[r];
        const float *src = block + (int64_t)in->var_offset[s] * fl;
        const bool three = in->ncomp[s] == 3;
        for (int64_t q = 0; q < fl; q++) k->u[q] = src[q];
        for (int64_t q = 0; q < fl; q++) k->u[fl + q] = three ? src[fl + q] : 0.0;
        const float *uz = src + (three ? 2 : 1) * fl;
        for (int64_t q = 0; q < fl; q++) k->u[2 * fl + q] = uz[q];
        axb_sem_strain(k->mesh, &g, axis, in->excitation[s], k->nt, k->u, k->strain, k->work);
        for (int64_t q = 0; q < 6 * fl; q++) out[q] = (float)k->strain[q];
        out += 6 * fl;
    }
    if (k->want_displ) memcpy(out, block, (size_t)(in->nvars * fl) * sizeof(float));
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Reads and derives the missing ones among the sorted distinct elements k->want[0..nw). */
static axb_status fill_missing(axb_kdb *k, int64_t nw, int64_t *missing, int64_t *inserted, axb_error *err)
{
    int64_t nm = 0;
    for (int64_t i = 0; i < nw; i++)
        if (!axb_elem_cache_get(&k->cache, k->want[i])) missing[nm++] = k->want[i];
    /* the engines' one grouping rule for element reads: distinct ids in file order, a bounded
     * number of blocks per read */
    const int64_t bf = axb_db_block_floats(k->db);
    const int64_t block_bytes = bf * (int64_t)sizeof(float);
    axb_batch_iter it;
    axb_batch_iter_init(&it, missing, nm, sizeof *missing, 0, block_bytes, k->blocks_cap * block_bytes, INT64_MAX);
    axb_batch b;
    while (axb_batch_next(&it, k->want + 2 * k->cache.cap, &b)) {
        const int64_t *ids = k->want + 2 * k->cache.cap;
        const double t0 = MPI_Wtime();
        AXB_TRY(axb_db_read_elements(k->db, b.nread, ids, AXB_IO_INDEPENDENT, k->blocks, err));
        const double t1 = MPI_Wtime();
        k->read_calls++;
        k->elements_read += b.nread;
        for (int64_t j = 0; j < b.nread; j++) {
            derive(k, ids[j], k->blocks + j * bf);
            axb_elem_cache_put(&k->cache, ids[j], k->derived);
        }
        k->t_read += t1 - t0;
        k->t_derive += MPI_Wtime() - t1;
    }
    *inserted = nm;
    return AXB_OK;
}

axb_status axb_kdb_prepare(axb_kdb *k, int64_t n, const int64_t *elems, axb_error *err)
{
    /* the distinct elements, in file order */
    int64_t nw = 0;
    for (int64_t i = 0; i < n; i++) k->want[nw++] = elems[i];
    qsort(k->want, (size_t)nw, sizeof *k->want, cmp_i64);
    int64_t u = 0;
    for (int64_t i = 0; i < nw; i++)
        if (i == 0 || k->want[i] != k->want[i - 1]) k->want[u++] = k->want[i];
    nw = u;
    AXB_CHECK(err, 2 * nw <= k->cache.cap, AXB_ERR_INTERNAL, "kernel step needs %lld elements, the cache holds %lld",
              (long long)nw, (long long)k->cache.cap);
    int64_t *missing = k->want + nw;
    /* FIFO eviction may drop an element this step still needs when others come in; repeat until
     * all are present (the cache holds twice the step, so this ends) */
    for (int64_t pass = 0; pass <= nw; pass++) {
        int64_t inserted;
        AXB_TRY(fill_missing(k, nw, missing, &inserted, err));
        if (!inserted) return AXB_OK;
    }
    return axb_error_set(err, AXB_ERR_INTERNAL, "element cache does not settle");
}

void axb_k_local_rotation(const double Rb[3][3], double phi, const double x[3], double Q[3][3])
{
    const double c = cos(phi), s = sin(phi);
    /* the cylindrical basis of the database frame, in Earth-Cartesian coordinates */
    const double dbv[3][3] = {{c, s, 0}, {-s, c, 0}, {0, 0, 1}};
    double e[3][3];
    for (int i = 0; i < 3; i++)
        for (int m = 0; m < 3; m++) e[i][m] = Rb[m][0] * dbv[i][0] + Rb[m][1] * dbv[i][1] + Rb[m][2] * dbv[i][2];
    const double r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    const double colat = acos(fmax(-1.0, fmin(1.0, x[2] / r))) * 180 / acos(-1.0);
    const double lon = atan2(x[1], x[0]) * 180 / acos(-1.0);
    double L[3][3];
    axb_geo_local_basis(lon, colat, L);
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < 3; i++) Q[a][i] = L[0][a] * e[i][0] + L[1][a] * e[i][1] + L[2][a] * e[i][2];
}

/* Interpolation weights of the located point. */
static void weights(const axb_kdb *k, const axb_kloc *loc, double *wxi, double *weta)
{
    const double *xi_pts, *dxi;
    axb_sem_xi_basis(k->mesh, k->mesh->axis[loc->elem] != 0, &xi_pts, &dxi);
    axb_lagrange_weights(xi_pts, k->np1, loc->xi, wxi);
    axb_lagrange_weights(k->mesh->gll, k->np1, loc->eta, weta);
}

/* Σ_ij wxi[i] weta[j] f[i][j][t] for float data. */
static void interp_f(int np1, int64_t nt, const float *f, const double *wxi, const double *weta, double *out)
{
    memset(out, 0, (size_t)nt * sizeof *out);
    for (int i = 0; i < np1; i++)
        for (int j = 0; j < np1; j++) {
            const double w = wxi[i] * weta[j];
            const float *src = f + ((int64_t)i * np1 + j) * nt;
            for (int64_t t = 0; t < nt; t++) out[t] += w * src[t];
        }
}

/* Adds a·(interpolated component) to dst. */
static void axpy(int64_t nt, double a, const double *x, double *dst)
{
    if (a == 0) return;
    for (int64_t t = 0; t < nt; t++) dst[t] += a * x[t];
}

/* Rotates E[6][nt] and U[3][nt] from the database's cylindrical basis to the local one. */
static void to_local(int64_t nt, const double Q[3][3], double *E, double *U, double *tmp)
{
    double B[6][6];
    axb_voigt_rotation(Q, B);
    for (int64_t t = 0; t < nt; t++) {
        double v[6], w[6] = {0};
        for (int q = 0; q < 6; q++) v[q] = E[q * nt + t];
        for (int p = 0; p < 6; p++)
            for (int q = 0; q < 6; q++) w[p] += B[p][q] * v[q];
        for (int p = 0; p < 6; p++) tmp[p] = w[p];
        for (int p = 0; p < 6; p++) E[p * nt + t] = tmp[p];
    }
    if (!U) return;
    for (int64_t t = 0; t < nt; t++) {
        const double u0 = U[t], u1 = U[nt + t], u2 = U[2 * nt + t];
        for (int a = 0; a < 3; a++) tmp[a] = Q[a][0] * u0 + Q[a][1] * u1 + Q[a][2] * u2;
        for (int a = 0; a < 3; a++) U[a * nt + t] = tmp[a];
    }
}

/* Interpolated strain of run r (its index in k->runs) into S[6][nt], raw (no sign flip). */
static void run_strain(const axb_kdb *k, const float *d, int r, const double *wxi, const double *weta, double *S)
{
    for (int c = 0; c < 6; c++) interp_f(k->np1, k->nt, d + (6 * r + c) * k->fl, wxi, weta, S + c * k->nt);
}

/* Index of a run in k->runs, -1 if absent. */
static int run_index(const axb_kdb *k, axb_sim s)
{
    for (int r = 0; r < k->nruns; r++)
        if (k->runs[r] == s) return r;
    return -1;
}

void axb_kdb_forward_field(axb_kdb *k, const axb_kloc *loc, const double m_in[6], const double Q[3][3], double *E,
                           double *U)
{
    const axb_db_info *in = k->info;
    const int64_t nt = k->nt;
    const float *d = axb_elem_cache_get(&k->cache, loc->elem);
    double wxi[AXB_NPOL_MAX + 1], weta[AXB_NPOL_MAX + 1];
    weights(k, loc, wxi, weta);
    double m[6];
    for (int q = 0; q < 6; q++) m[q] = m_in[q] / in->amplitude;
    /* azimuth factors of the four runs, as the forward extraction (§2.11) */
    const double cp = cos(loc->phi), sp = sin(loc->phi), c2 = cos(2 * loc->phi), s2 = sin(2 * loc->phi);
    const double a1 = m[3] * cp + m[4] * sp, a2 = -m[3] * sp + m[4] * cp;
    const double b1 = (m[1] - m[2]) * c2 + 2 * m[5] * s2, b2 = -(m[1] - m[2]) * s2 + 2 * m[5] * c2;
    const axb_sim sims[4] = {AXB_SIM_MZZ, AXB_SIM_MXX_P_MYY, AXB_SIM_MXZ_MYZ, AXB_SIM_MXY_MXX_M_MYY};
    const double f1[4] = {m[0], m[1] + m[2], a1, b1}, f2[4] = {0, 0, a2, b2};
    double *S = k->work; /* [6][nt] scratch, then [3][nt] */
    memset(E, 0, 6 * (size_t)nt * sizeof *E);
    for (int j = 0; j < 4; j++) {
        const int r = run_index(k, sims[j]);
        if (r < 0) continue;
        run_strain(k, d, r, wxi, weta, S);
        /* cos-type entries take the first factor; φz and sφ the second with the sign flip of
         * the multipole runs (docs/kernels.md §4) */
        for (int c = 0; c < 6; c++) axpy(nt, (c == 3 || c == 5) ? -f2[j] : f1[j], S + c * nt, E + c * nt);
    }
    if (U) {
        memset(U, 0, 3 * (size_t)nt * sizeof *U);
        const float *disp = d + 6 * k->nruns * k->fl;
        for (int j = 0; j < 4; j++) {
            const axb_sim s = sims[j];
            if (!in->has_sim[s]) continue;
            const int o = in->var_offset[s];
            const bool three = in->ncomp[s] == 3;
            interp_f(k->np1, nt, disp + o * k->fl, wxi, weta, S);
            axpy(nt, f1[j], S, U);
            if (three) {
                interp_f(k->np1, nt, disp + (o + 1) * k->fl, wxi, weta, S);
                axpy(nt, f2[j], S, U + nt);
            }
            interp_f(k->np1, nt, disp + (o + (three ? 2 : 1)) * k->fl, wxi, weta, S);
            axpy(nt, f1[j], S, U + 2 * nt);
        }
    }
    to_local(nt, Q, E, U, S);
}

void axb_kdb_backward_field(axb_kdb *k, const axb_kloc *loc, const double n[3], const double Q[3][3], double *E,
                            double *U)
{
    const axb_db_info *in = k->info;
    const int64_t nt = k->nt;
    const float *d = axb_elem_cache_get(&k->cache, loc->elem);
    double wxi[AXB_NPOL_MAX + 1], weta[AXB_NPOL_MAX + 1];
    weights(k, loc, wxi, weta);
    const double amp = in->amplitude, c = cos(loc->phi), s = sin(loc->phi);
    double *S = k->work;
    memset(E, 0, 6 * (size_t)nt * sizeof *E);
    const int rz = run_index(k, AXB_SIM_PZ), rx = run_index(k, AXB_SIM_PX);
    if (n[2] != 0 && rz >= 0) {
        run_strain(k, d, rz, wxi, weta, S);
        for (int q = 0; q < 6; q++) axpy(nt, n[2] / amp, S + q * nt, E + q * nt);
    }
    /* the x̂ force: cos φ on ss, φφ, zz, sz and sin φ on φz, sφ; the ŷ force is the x̂ one turned
     * by 90°: sin φ and −cos φ */
    const double hx = n[0] / amp, hy = n[1] / amp;
    if ((hx != 0 || hy != 0) && rx >= 0) {
        run_strain(k, d, rx, wxi, weta, S);
        for (int q = 0; q < 6; q++) {
            const bool odd = q == 3 || q == 5;
            axpy(nt, odd ? hx * s - hy * c : hx * c + hy * s, S + q * nt, E + q * nt);
        }
    }
    if (U) {
        memset(U, 0, 3 * (size_t)nt * sizeof *U);
        const float *disp = d + 6 * k->nruns * k->fl;
        if (n[2] != 0 && in->has_sim[AXB_SIM_PZ]) {
            const int o = in->var_offset[AXB_SIM_PZ];
            interp_f(k->np1, nt, disp + o * k->fl, wxi, weta, S);
            axpy(nt, n[2] / amp, S, U);
            interp_f(k->np1, nt, disp + (o + 1) * k->fl, wxi, weta, S);
            axpy(nt, n[2] / amp, S, U + 2 * nt);
        }
        if ((hx != 0 || hy != 0) && in->has_sim[AXB_SIM_PX]) {
            const int o = in->var_offset[AXB_SIM_PX];
            interp_f(k->np1, nt, disp + o * k->fl, wxi, weta, S);
            axpy(nt, hx * c + hy * s, S, U);
            interp_f(k->np1, nt, disp + (o + 1) * k->fl, wxi, weta, S);
            axpy(nt, -hx * s + hy * c, S, U + nt);
            interp_f(k->np1, nt, disp + (o + 2) * k->fl, wxi, weta, S);
            axpy(nt, hx * c + hy * s, S, U + 2 * nt);
        }
    }
    to_local(nt, Q, E, U, S);
}
