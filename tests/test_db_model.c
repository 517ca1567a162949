/* The background model in the mesh (mesh_vp, mesh_vs, mesh_rho, mesh_xi, mesh_phi, mesh_eta) and
 * axb_db_source_radius, the radius where the solver really put the source:
 *  - shared 100 s PREM databases (prem_iso_light, AxiSEM MESHER/background_models.F90,
 *    prem_light_sub: PREM without the crust, its upper-mantle polynomial continued to the surface)
 *    against PREM's published polynomials (Dziewonski & Anderson 1981, Table 1) at every stored
 *    point inside a layer, to 1e-5 relative (float32 values at float32 coordinates); isotropic, so
 *    xi, phi, eta are NULL; original and Instaseis' merged copies hold identical arrays;
 *  - the 50 s whole-planet database keeps its fluid outer core (vs = 0 accepted);
 *  - mkdb databases (original and merged layouts) hold the options' values; one modified file
 *    with anisotropy kept and bad values refused in one line naming variable and point;
 *  - the memory backend's homogeneous model;
 *  - source radii: the 100 s forward database (12 km asked, axial points at 0 and 37.99 km
 *    depth: the surface), the 50 s mesh against what AxiSEM printed for it (50 km -> 40 km,
 *    100 km -> 92.087 km, reference notes mc-kernel.md §6), mkdb databases (exactly the asked
 *    depth: a layer boundary lies there), refusals.
 * The shared-data parts are skipped (not failed) when ../shared/data is absent. */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "axibulk/db.h"
#include "axibulk/db_memory.h"
#include "axibulk/mkdb.h"
#include "check.h"
#include "io/db/db_internal.h"
#include "test_util.h"

static axb_db *open_db(check_ctx *T, const char *dir, const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    axb_db *db = NULL;
    axb_error err = AXB_ERROR_INIT;
    CHECK_MSG(T, axb_db_open(MPI_COMM_WORLD, path, &db, &err) == AXB_OK, "%s: %s", rel, err.msg);
    return db;
}

/* Isotropic PREM (km/s, g/cm^3) at x = r / 6371 km in the two layers the 100 s databases cover
 * away from discontinuities: 6151-6346.6 km (LVZ and LID, one polynomial; prem_iso_light uses it up
 * to the surface) and 5971-6151 km (transition zone above 400 km). */
static bool prem(double r, double *vp, double *vs, double *rho)
{
    const double x = r / 6371e3;
    if (r > 6152e3) {
        *vp = 4.1875 + 3.9382 * x, *vs = 2.1519 + 2.3481 * x, *rho = 2.6910 + 0.6924 * x;
    } else if (r > 5972e3 && r < 6150e3) {
        *vp = 20.3926 - 12.2569 * x, *vs = 8.9496 - 4.4597 * x, *rho = 7.1089 - 3.8045 * x;
    } else
        return false;
    *vp *= 1e3, *vs *= 1e3, *rho *= 1e3;
    return true;
}

static void check_prem(check_ctx *T, const axb_db *db)
{
    const axb_mesh *m = axb_db_get_mesh(db);
    CHECK(T, m->vp && m->vs && m->rho);
    CHECK(T, !m->xi && !m->phi && !m->eta); /* isotropic: every stored value is 1 */
    if (!m->vp || !m->vs || !m->rho) return;
    double worst = 0, worst_mu = 0;
    int64_t n = 0, surface = -1;
    for (int64_t p = 0; p < m->npoints; p++) {
        const double r = hypot(m->s[p], m->z[p]);
        double vp, vs, rho;
        if (m->s[p] == 0 && m->z[p] == 6371e3f) surface = p;
        worst_mu = fmax(worst_mu, fabs(m->mu[p] / ((double)m->rho[p] * m->vs[p] * m->vs[p]) - 1));
        if (!prem(r, &vp, &vs, &rho)) continue;
        n++;
        worst = fmax(worst, fmax(fabs(m->vp[p] / vp - 1), fmax(fabs(m->vs[p] / vs - 1), fabs(m->rho[p] / rho - 1))));
    }
    CHECK_MSG(T, n > 1000 && worst < 1e-5, "%lld points, worst relative difference to PREM %.2e", (long long)n, worst);
    CHECK_MSG(T, worst_mu < 1e-5, "mu against rho vs^2: %.2e", worst_mu);
    /* the surface point on the axis (displ_only files store it): PREM's upper-mantle values at
     * x = 1 (8.1257, 4.5000, 3.3834) */
    CHECK(T, surface >= 0 || !m->has_elements);
    if (surface >= 0) {
        CHECK_CLOSE(T, m->vp[surface], 8125.7, 0.05);
        CHECK_CLOSE(T, m->vs[surface], 4500.0, 0.05);
        CHECK_CLOSE(T, m->rho[surface], 3383.4, 0.05);
    }
}

static void check_same_model(check_ctx *T, const axb_db *a, const axb_db *b)
{
    const axb_mesh *ma = axb_db_get_mesh(a), *mb = axb_db_get_mesh(b);
    CHECK(T, ma->npoints == mb->npoints);
    if (ma->npoints != mb->npoints || !ma->vp || !mb->vp) return;
    const size_t n = (size_t)ma->npoints * sizeof(float);
    /* repacking permutes elements only; the point arrays keep their order (reference notes §1.7) */
    CHECK(T, !memcmp(ma->s, mb->s, n) && !memcmp(ma->z, mb->z, n));
    CHECK(T, !memcmp(ma->vp, mb->vp, n) && !memcmp(ma->vs, mb->vs, n) && !memcmp(ma->rho, mb->rho, n));
    CHECK(T, !ma->xi == !mb->xi && !ma->phi == !mb->phi && !ma->eta == !mb->eta);
}

static void check_radius(check_ctx *T, const axb_db *db, double want)
{
    double r = 0;
    axb_error err = AXB_ERROR_INIT;
    CHECK_MSG(T, axb_db_source_radius(db, &r, &err) == AXB_OK, "%s", err.msg);
    CHECK_MSG(T, r == want, "source radius %.3f m, expected %.3f m", r, want);
}

static void shared_data(check_ctx *T, const char *dir)
{
    axb_db *bwd = open_db(T, dir, "axisem-prem-100s/100s_db_bwd_displ_only");
    axb_db *fwd = open_db(T, dir, "axisem-prem-100s/100s_db_fwd");
    axb_db *strain = open_db(T, dir, "axisem-prem-100s/100s_db_bwd_strain_only");
    axb_db *mbwd = open_db(T, dir, "instaseis-merged/100s_db_bwd_displ_only");
    axb_db *mfwd = open_db(T, dir, "instaseis-merged/100s_db_fwd");
    axb_db *p50 = open_db(T, dir, "axisem-prem-50s/prem_50s_bwd_displ_only");
    if (!bwd || !fwd || !strain || !mbwd || !mfwd || !p50) MPI_Abort(MPI_COMM_WORLD, 1);

    check_prem(T, bwd);
    check_prem(T, fwd);
    check_prem(T, strain);
    check_prem(T, mfwd);
    check_same_model(T, bwd, mbwd);
    check_same_model(T, fwd, mfwd);
    check_same_model(T, bwd, fwd);

    /* whole planet: the fluid outer core has vs = 0, and vp, rho > 0 everywhere */
    const axb_mesh *m = axb_db_get_mesh(p50);
    int64_t fluid = 0;
    for (int64_t p = 0; m->vs && p < m->npoints; p++) fluid += m->vs[p] == 0;
    CHECK_MSG(T, fluid > 1000, "%lld fluid points", (long long)fluid);

    /* 12 km asked; the nearest axial points are the surface and 37.99 km: AxiSEM used the surface */
    check_radius(T, fwd, 6371e3);
    check_radius(T, mfwd, 6371e3);
    check_radius(T, bwd, 6371e3);
    check_radius(T, p50, 6371e3);
    double r;
    axb_error err = AXB_ERROR_INIT;
    /* strain_only: axial points between 37.99 and 368.92 km depth only, not the surface */
    CHECK(T, axb_db_source_radius(strain, &r, &err) == AXB_ERR_RANGE && isnan(r));
    CHECK_CONTAINS(T, err.msg,
                   "100s_db_bwd_strain_only: the source at radius 6371.000 km (depth 0.000 km) lies "
                   "outside the stored axial points (radii 6002.081 to 6333.012 km)");
    axb_mesh empty = {.npoints = 0};
    CHECK(T, axb_mesh_source_radius(&empty, 6371e3, 0, &r, &err) == AXB_ERR_UNSUPPORTED);
    CHECK_CONTAINS(T, err.msg, "no stored point on the axis");
    /* the rule against what AxiSEM printed on the 50 s mesh ("depth offered"): 50 -> 40 km,
     * 100 -> 92.087 km */
    CHECK(T, axb_mesh_source_radius(m, 6371e3, 50e3, &r, &err) == AXB_OK);
    CHECK_CLOSE(T, (6371e3 - r) / 1e3, 40.0, 1e-3);
    CHECK(T, axb_mesh_source_radius(m, 6371e3, 100e3, &r, &err) == AXB_OK);
    CHECK_CLOSE(T, (6371e3 - r) / 1e3, 92.087, 1e-3);
    /* below the stored shell of the 100 s databases (axial points down to 400 km depth) */
    CHECK(T, axb_mesh_source_radius(axb_db_get_mesh(fwd), 6371e3, 500e3, &r, &err) == AXB_ERR_RANGE);
    CHECK_CONTAINS(T, err.msg, "outside the stored axial points");

    axb_db *all[] = {bwd, fwd, strain, mbwd, mfwd, p50};
    for (int k = 0; k < 6; k++) axb_db_close(&all[k]);
}

static axb_status make(const char *dir, axb_db_kind kind, double depth_km, double rmin_km, axb_layout layout,
                       axb_error *err)
{
    axb_mkdb_opts o;
    axb_mkdb_defaults(&o);
    o.dir = dir;
    o.kind = kind;
    o.period = 100;
    o.length = 600;
    o.rmin_km = rmin_km;
    o.element_km = 300;
    o.source_depth_km = depth_km;
    o.vp = 9000, o.vs = 5000, o.rho = 3000;
    o.layout = layout;
    o.force = true;
    o.progress = false;
    axb_mkdb_result res;
    return axb_mkdb_run(MPI_COMM_WORLD, &o, NULL, &res, err);
}

static void check_mkdb_model(check_ctx *T, const axb_db *db)
{
    const axb_mesh *m = axb_db_get_mesh(db);
    CHECK(T, m->vp && m->vs && m->rho && !m->xi && !m->phi && !m->eta);
    int64_t bad = 0;
    for (int64_t p = 0; m->vp && p < m->npoints; p++)
        bad += m->vp[p] != 9000.0f || m->vs[p] != 5000.0f || m->rho[p] != 3000.0f;
    CHECK_MSG(T, bad == 0, "%lld points differ from the options", (long long)bad);
}

/* Rank 0 writes value @p v at point @p p of /Mesh/@p var in @p file (an mkdb file). */
static void poke(const char *file, const char *var, int64_t p, float v)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        hid_t f = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
        char path[64];
        snprintf(path, sizeof path, "/Mesh/%s", var);
        hid_t d = H5Dopen2(f, path, H5P_DEFAULT), fs = H5Dget_space(d);
        hsize_t start = (hsize_t)p, one = 1;
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &one, NULL);
        hid_t ms = H5Screate_simple(1, &one, NULL);
        H5Dwrite(d, H5T_NATIVE_FLOAT, ms, fs, H5P_DEFAULT, &v);
        H5Sclose(ms);
        H5Sclose(fs);
        H5Dclose(d);
        H5Fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void mkdb_part(check_ctx *T)
{
    char root[600], dir[700];
    CHECK(T, test_scratch_dir(MPI_COMM_WORLD, "dbmodel", root, sizeof root) == 0);
    axb_error err = AXB_ERROR_INIT;

    snprintf(dir, sizeof dir, "%s/fwd", root);
    CHECK_MSG(T, make(dir, AXB_DB_FORWARD, 50, 5800, AXB_LAYOUT_ORIGINAL, &err) == AXB_OK, "%s", err.msg);
    axb_db *db = open_db(T, dir, "");
    if (db) {
        check_mkdb_model(T, db);
        check_radius(T, db, 6321e3); /* exactly the asked 50 km: a layer boundary lies there */
        axb_db_close(&db);
    }
    snprintf(dir, sizeof dir, "%s/rec", root);
    CHECK_MSG(T, make(dir, AXB_DB_RECIPROCAL, 100, 5800, AXB_LAYOUT_MERGED, &err) == AXB_OK, "%s", err.msg);
    db = open_db(T, dir, "");
    if (db) {
        check_mkdb_model(T, db);
        CHECK(T, axb_db_get_info(db)->source_depth == 100e3);
        check_radius(T, db, 6271e3);
        axb_db_close(&db);
    }
    /* a source below the stored shell: the file has no axial point near it */
    snprintf(dir, sizeof dir, "%s/deep", root);
    CHECK_MSG(T, make(dir, AXB_DB_FORWARD, 200, 6300, AXB_LAYOUT_ORIGINAL, &err) == AXB_OK, "%s", err.msg);
    db = open_db(T, dir, "");
    if (db) {
        double r;
        CHECK(T, axb_db_source_radius(db, &r, &err) == AXB_ERR_RANGE);
        CHECK_CONTAINS(T, err.msg, "deep: the source at radius 6171.000 km (depth 200.000 km) lies outside");
        axb_db_close(&db);
    }

    /* anisotropy is kept; bad values are refused in one line naming the variable and point */
    char file[800];
    snprintf(file, sizeof file, "%s/fwd/MZZ/Data/ordered_output.nc4", root);
    snprintf(dir, sizeof dir, "%s/fwd", root);
    poke(file, "mesh_xi", 3, 1.1f);
    poke(file, "mesh_vs", 7, 0.0f); /* fluid */
    db = open_db(T, dir, "");
    if (db) {
        const axb_mesh *m = axb_db_get_mesh(db);
        CHECK(T, m->xi && m->xi[3] == 1.1f && m->xi[4] == 1.0f && !m->phi && !m->eta && m->vs[7] == 0.0f);
        axb_db_close(&db);
    }
    static const struct {
        const char *var;
        float v;
        const char *msg;
    } bad[] = {
        {"mesh_rho", 0.0f, "variable 'Mesh/mesh_rho': 0 at point 5 (s, z) = ("},
        {"mesh_vs", -1.0f, "variable 'Mesh/mesh_vs': -1 at point 5"},
        {"mesh_vp", NAN, "variable 'Mesh/mesh_vp': nan at point 5"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        const float good = !strcmp(bad[k].var, "mesh_rho") ? 3000.0f
            : !strcmp(bad[k].var, "mesh_vs")               ? 5000.0f
                                                           : 9000.0f;
        poke(file, bad[k].var, 5, bad[k].v);
        db = NULL;
        const axb_status st = axb_db_open(MPI_COMM_WORLD, dir, &db, &err);
        CHECK(T, st == (T->rank == 0 ? AXB_ERR_FORMAT : AXB_ERR_REMOTE) && !db);
        if (T->rank == 0) { /* the others hold "rank 0: ..." */
            CHECK_CONTAINS(T, err.msg, bad[k].msg);
            CHECK_CONTAINS(T, err.msg, "ordered_output.nc4");
        }
        CHECK(T, !strchr(err.msg, '\n'));
        poke(file, bad[k].var, 5, good);
    }
    test_remove_dir(MPI_COMM_WORLD, root);
}

static void memory_part(check_ctx *T)
{
    static const char *const names[] = {"fwd", "bwd"};
    for (int k = 0; k < 2; k++) {
        axb_db *db = NULL;
        axb_error err = AXB_ERROR_INIT;
        CHECK_MSG(T, axb_db_open_memory(MPI_COMM_WORLD, names[k], &db, &err) == AXB_OK, "%s", err.msg);
        if (!db) continue;
        const axb_mesh *m = axb_db_get_mesh(db);
        CHECK(T, m->vp && m->vs && m->rho && !m->xi && !m->phi && !m->eta);
        int64_t bad = 0;
        for (int64_t p = 0; m->vp && p < m->npoints; p++)
            bad += m->vp[p] != 8000.0f || m->vs[p] != 4000.0f || m->rho[p] != 3300.0f ||
                m->mu[p] != m->rho[p] * m->vs[p] * m->vs[p];
        CHECK(T, bad == 0);
        /* fwd asks for 10 km; the mesh's axial points are at 0 and 34.5 km depth: the surface,
         * where the memory data's pulse starts */
        check_radius(T, db, 6371e3);
        axb_db_close(&db);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    check_ctx T = {0, 0, 0};
    MPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
    memory_part(&T);
    mkdb_part(&T);
    const char *data_dir = argc > 1 ? argv[1] : "../shared/data";
    char probe[1024];
    struct stat sb;
    snprintf(probe, sizeof probe, "%s/axisem-prem-100s", data_dir);
    const bool have = stat(probe, &sb) == 0;
    if (have)
        shared_data(&T, data_dir);
    else if (T.rank == 0)
        printf("shared data not found at %s: its parts skipped\n", data_dir);
    const int rc = test_finish_mpi(&T);
    return rc == 0 && !have ? CHECK_SKIP : rc;
}
