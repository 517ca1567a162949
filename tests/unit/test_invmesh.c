/* Inversion meshes: the three tetrahedral file formats describe the same cells; voxel grids tile
 * their shell sector exactly; the quasi-random sequences and the cube-to-cell maps integrate
 * polynomials to their closed forms; malformed files are refused with file and line. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axibulk/invmesh.h"
#include "check.h"
#include "numerics/mc_estimate.h"
#include "numerics/qmc.h"

static const double PI = 3.14159265358979323846;

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_qmc(check_ctx *T)
{
    double q[3];
    axb_qmc_point(AXB_QMC_HALTON, 0, q);
    CHECK(T, q[0] == 0.5 && fabs(q[1] - 1.0 / 3) < 1e-15 && fabs(q[2] - 0.2) < 1e-15);
    axb_qmc_point(AXB_QMC_HALTON, 1, q);
    CHECK(T, q[0] == 0.25 && fabs(q[1] - 2.0 / 3) < 1e-15 && fabs(q[2] - 0.4) < 1e-15);
    /* Sobol': the first points of dimensions 1-3 (Joe & Kuo's direction numbers) */
    axb_qmc_point(AXB_QMC_SOBOL, 0, q);
    CHECK(T, q[0] == 0.5 && q[1] == 0.5 && q[2] == 0.5);
    axb_qmc_point(AXB_QMC_SOBOL, 1, q);
    CHECK(T, q[0] == 0.25 && q[1] == 0.75 && q[2] == 0.75);
    axb_qmc_point(AXB_QMC_SOBOL, 2, q);
    CHECK(T, q[0] == 0.75 && q[1] == 0.25 && q[2] == 0.25);
    axb_qmc_point(AXB_QMC_SOBOL, 6, q); /* n = 7 = v1 ^ v2 ^ v3 */
    CHECK(T, q[0] == 0.875 && q[1] == 0.875 && q[2] == 0.125);
    /* the mean of x y z over the cube is 1/8; the error falls with the point count */
    for (int kind = 0; kind < 2; kind++) {
        double err_n[2];
        long outside = 0;
        const int ns[2] = {128, 8192};
        for (int i = 0; i < 2; i++) {
            double s = 0;
            for (int k = 0; k < ns[i]; k++) {
                axb_qmc_point((axb_qmc_kind)kind, (uint64_t)k, q);
                outside += !(q[0] >= 0 && q[0] < 1 && q[1] >= 0 && q[1] < 1 && q[2] >= 0 && q[2] < 1);
                s += q[0] * q[1] * q[2];
            }
            err_n[i] = fabs(s / ns[i] - 0.125);
        }
        CHECK(T, outside == 0);
        CHECK_MSG(T, err_n[1] < 2e-4 && err_n[1] < err_n[0] / 8, "kind %d: errors %g (128) %g (8192)", kind, err_n[0],
                  err_n[1]);
    }
}

static void test_tet_map(check_ctx *T)
{
    double vert[12] = {0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4};
    int64_t cell[4] = {0, 1, 2, 3};
    axb_invmesh m = {AXB_CELL_TET, 4, 1, vert, cell, NULL};
    CHECK_CLOSE(T, axb_invmesh_cell_volume(&m, 0), 4.0, 1e-14);
    double c[3];
    axb_invmesh_cell_centre(&m, 0, c);
    CHECK(T, c[0] == 0.5 && c[1] == 0.75 && c[2] == 1.0);
    /* ∫ x² dV = V/10 (Σ x_i² + Σ_{i<j} x_i x_j) = 4/10 · 4; mean of x = 1/2 */
    const int n = 1 << 14;
    double sx = 0, sxx = 0, worst = 0;
    for (int k = 0; k < n; k++) {
        double q[3], x[3], w[4];
        axb_qmc_point(AXB_QMC_SOBOL, (uint64_t)k, q);
        axb_invmesh_map_point(&m, 0, q, x, w);
        double back[3] = {0, 0, 0}, wsum = 0;
        for (int j = 0; j < 4; j++) {
            worst = fmax(worst, -w[j]);
            wsum += w[j];
            for (int d = 0; d < 3; d++) back[d] += w[j] * vert[3 * j + d];
        }
        worst = fmax(worst, fabs(wsum - 1) + fabs(back[0] - x[0]) + fabs(back[1] - x[1]) + fabs(back[2] - x[2]));
        sx += x[0];
        sxx += x[0] * x[0];
    }
    CHECK_MSG(T, worst < 1e-12, "barycentric weights outside the cell or inconsistent: %g", worst);
    CHECK_CLOSE(T, sx / n, 0.5, 2e-3);
    CHECK_CLOSE(T, 4.0 * sxx / n, 1.6, 5e-3);
}

static void test_voxels(check_ctx *T)
{
    const double R = 6371e3;
    axb_voxel_grid g = {-10, 10, 0, 20, 0, 1000, 2, 2, 2};
    axb_invmesh m;
    axb_error err = AXB_ERROR_INIT;
    CHECK(T, axb_invmesh_voxels(&g, R, &m, &err) == AXB_OK);
    CHECK(T, m.ncell == 8 && m.nvert == 27 && m.type == AXB_CELL_VOXEL);
    const double r0 = R - 1000e3;
    const double exact = (R * R * R - r0 * r0 * r0) / 3 * (2 * sin(10 * PI / 180)) * (20 * PI / 180);
    double total = 0;
    for (int64_t c = 0; c < m.ncell; c++) total += axb_invmesh_cell_volume(&m, c);
    CHECK_CLOSE(T, total / exact, 1.0, 1e-13);
    /* vertex order: inner face then outer, right-handed as VTK's hexahedron */
    long bad = 0;
    for (int64_t c = 0; c < m.ncell; c++) {
        const int64_t *v = m.cell + 8 * c;
        const double *p0 = m.vert + 3 * v[0], *p1 = m.vert + 3 * v[1], *p3 = m.vert + 3 * v[3], *p4 = m.vert + 3 * v[4];
        const double a[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        const double b[3] = {p3[0] - p0[0], p3[1] - p0[1], p3[2] - p0[2]};
        const double h[3] = {p4[0] - p0[0], p4[1] - p0[1], p4[2] - p0[2]};
        const double triple = (a[1] * b[2] - a[2] * b[1]) * h[0] + (a[2] * b[0] - a[0] * b[2]) * h[1] +
            (a[0] * b[1] - a[1] * b[0]) * h[2];
        bad += !(triple > 0) || !(hypot(hypot(p4[0], p4[1]), p4[2]) > hypot(hypot(p0[0], p0[1]), p0[2]));
    }
    CHECK(T, bad == 0);
    /* the deepest north-east cell: points stay inside it; mean of r² = 3/5 (r1⁵-r0⁵)/(r1³-r0³) */
    const int64_t c = 7;
    const double *b = m.voxel + 6 * c;
    CHECK_CLOSE(T, b[0], r0, 1e-6);
    const int n = 1 << 13;
    double s = 0;
    long outside = 0;
    for (int k = 0; k < n; k++) {
        double q[3], x[3];
        axb_qmc_point(AXB_QMC_HALTON, (uint64_t)k, q);
        axb_invmesh_map_point(&m, c, q, x, NULL);
        const double r = hypot(hypot(x[0], x[1]), x[2]), th = acos(x[2] / r), lon = atan2(x[1], x[0]);
        outside += r < b[0] - 1e-6 || r > b[1] + 1e-6 || th < b[2] - 1e-12 || th > b[3] + 1e-12 || lon < b[4] - 1e-12 ||
            lon > b[5] + 1e-12;
        s += r * r;
    }
    CHECK(T, outside == 0);
    const double want = 0.6 * (pow(b[1], 5) - pow(b[0], 5)) / (pow(b[1], 3) - pow(b[0], 3));
    CHECK_CLOSE(T, s / n / want, 1.0, 5e-5);
    double cc[3];
    axb_invmesh_cell_centre(&m, c, cc);
    CHECK_CLOSE(T, hypot(hypot(cc[0], cc[1]), cc[2]), 0.5 * (b[0] + b[1]), 1e-6);
    axb_invmesh_free(&m);
    CHECK(T, m.vert == NULL && m.ncell == 0);
    /* refusals */
    axb_voxel_grid bad_g = g;
    bad_g.depth_max_km = 7000;
    CHECK(T, axb_invmesh_voxels(&bad_g, R, &m, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "depths");
    bad_g = g;
    bad_g.nlat = 0;
    CHECK(T, axb_invmesh_voxels(&bad_g, R, &m, &err) == AXB_ERR_ARG);
    bad_g = g;
    bad_g.lat_max = 95;
    CHECK(T, axb_invmesh_voxels(&bad_g, R, &m, &err) == AXB_ERR_ARG);
}

/* Two tetrahedra sharing a face, in km (the readers convert to m). */
static const double TWO_TETS[5][3] = {{0, 0, 6000}, {100, 0, 6000}, {0, 100, 6000}, {0, 0, 6100}, {100, 100, 6100}};

static bool same_mesh(const axb_invmesh *a)
{
    static const int64_t cells[2][4] = {{0, 1, 2, 3}, {1, 2, 3, 4}};
    if (a->nvert != 5 || a->ncell != 2) return false;
    for (int v = 0; v < 5; v++)
        for (int d = 0; d < 3; d++)
            if (fabs(a->vert[3 * v + d] - TWO_TETS[v][d] * 1e3) > 1e-6) return false;
    for (int c = 0; c < 2; c++)
        for (int j = 0; j < 4; j++)
            if (a->cell[4 * c + j] != cells[c][j]) return false;
    return true;
}

static void test_readers(check_ctx *T, const char *dir)
{
    char v[600], f[600], inp[600], msh[600];
    snprintf(v, sizeof v, "%s/vertices", dir);
    snprintf(f, sizeof f, "%s/facets", dir);
    snprintf(inp, sizeof inp, "%s/mesh.inp", dir);
    snprintf(msh, sizeof msh, "%s/mesh.msh", dir);
    axb_invmesh m;
    axb_error err = AXB_ERROR_INIT;

    write_file(v, "3\n5\n0 0 6000\n100 0 6000\n0 100 6000\n0 0 6100\n100 100 6100\n");
    write_file(f, "2\n0 1 2 3\n1 2 3 4\n");
    CHECK(T, axb_read_tet_mesh(v, f, &m, &err) == AXB_OK && same_mesh(&m));
    axb_invmesh_free(&m);

    /* node ids as written, in another order; comments, an unrelated block */
    write_file(inp,
               "** Cubit export\n*HEADING\nmesh\n*NODE\n 20, 100, 100, 6100\n 7, 0, 0, 6000\n 8, 100, 0, 6000\n"
               " 9, 0, 100, 6000\n 11, 0, 0, 6100\n*ELEMENT, TYPE=C3D4, ELSET=EB1\n1, 7, 8, 9, 11\n2, 8, 9, 11, 20\n"
               "*NSET, NSET=ALL\n7, 8\n");
    CHECK(T, axb_read_abaqus_mesh(inp, &m, &err) == AXB_OK);
    /* the same cells, vertices in the order written */
    bool ok = m.ncell == 2 && m.nvert == 5;
    for (int c = 0; ok && c < 2; c++) {
        static const int64_t want[2][4] = {{0, 1, 2, 3}, {1, 2, 3, 4}};
        for (int j = 0; j < 4; j++) {
            const double *x = m.vert + 3 * m.cell[4 * c + j];
            ok = ok && fabs(x[0] - TWO_TETS[want[c][j]][0] * 1e3) < 1e-6 &&
                fabs(x[2] - TWO_TETS[want[c][j]][2] * 1e3) < 1e-6;
        }
    }
    CHECK(T, ok);
    axb_invmesh_free(&m);

    write_file(
        msh,
        "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 0 1 1\n1 0 0 0 1 1 1 0 0\n1 0 0 0 1 1 1 0 0\n$EndEntities\n"
        "$Nodes\n2 5 1 5\n2 1 0 3\n1\n2\n3\n0 0 6000\n100 0 6000\n0 100 6000\n3 1 0 2\n4\n5\n0 0 6100\n100 100 "
        "6100\n$EndNodes\n"
        "$Elements\n2 3 1 3\n2 1 2 1\n1 1 2 3\n3 1 4 2\n2 1 2 3 4\n3 2 3 4 5\n$EndElements\n");
    CHECK(T, axb_read_gmsh_mesh(msh, &m, &err) == AXB_OK && same_mesh(&m));
    if (err.msg[0]) fprintf(stderr, "%s\n", err.msg);
    axb_invmesh_free(&m);

    /* refusals: each names the file and the problem */
    write_file(f, "2\n0 1 2 3\n1 2 3 9\n");
    CHECK(T, axb_read_tet_mesh(v, f, &m, &err) == AXB_ERR_FORMAT);
    CHECK_CONTAINS(T, err.msg, "facets:3: vertex index '9'");
    CHECK(T, m.vert == NULL && m.cell == NULL);
    write_file(f, "2\n0 1 2 3\n0 1 2 0\n");
    CHECK(T, axb_read_tet_mesh(v, f, &m, &err) == AXB_ERR_FORMAT);
    CHECK_CONTAINS(T, err.msg, "cell 1: degenerate");
    write_file(v, "3\n5\n0 0 6000\n100 0 6000\n0 100 6000\n50 50 6000\n100 100 6100\n");
    write_file(f, "1\n0 1 2 3\n");
    CHECK(T, axb_read_tet_mesh(v, f, &m, &err) == AXB_ERR_FORMAT); /* four coplanar points */
    CHECK_CONTAINS(T, err.msg, "degenerate");
    write_file(v, "3\n2\n0 0 nan\n");
    CHECK(T, axb_read_tet_mesh(v, f, &m, &err) == AXB_ERR_FORMAT);
    CHECK_CONTAINS(T, err.msg, "vertices:3:");
    write_file(v, "3\n0\n");
    write_file(f, "0\n");
    CHECK(T, axb_read_tet_mesh(v, f, &m, &err) == AXB_ERR_FORMAT);
    CHECK_CONTAINS(T, err.msg, "no cells");

    write_file(inp, "*NODE\n1, 0, 0, 0\n*ELEMENT, TYPE=C3D8R\n1, 1, 1, 1, 1, 1, 1, 1, 1\n");
    CHECK(T, axb_read_abaqus_mesh(inp, &m, &err) == AXB_ERR_UNSUPPORTED);
    CHECK_CONTAINS(T, err.msg, "C3D8R");
    write_file(inp, "*NODE\n1, 0, 0, 6000\n2, 100, 0, 6000\n3, 0, 100, 6000\n*ELEMENT, TYPE=C3D4\n1, 1, 2, 3, 4\n");
    CHECK(T, axb_read_abaqus_mesh(inp, &m, &err) == AXB_ERR_FORMAT);
    CHECK_CONTAINS(T, err.msg, "node 4, which is not defined");
    write_file(inp, "*NODE\n1, 0, 0\n");
    CHECK(T, axb_read_abaqus_mesh(inp, &m, &err) == AXB_ERR_FORMAT);
    CHECK_CONTAINS(T, err.msg, "mesh.inp:2:");

    write_file(msh, "$MeshFormat\n4.1 1 8\n");
    CHECK(T, axb_read_gmsh_mesh(msh, &m, &err) == AXB_ERR_UNSUPPORTED);
    CHECK_CONTAINS(T, err.msg, "binary");
    write_file(msh, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n");
    CHECK(T, axb_read_gmsh_mesh(msh, &m, &err) == AXB_ERR_UNSUPPORTED);
    CHECK_CONTAINS(T, err.msg, "only 4.1");
    write_file(msh,
               "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 1 1 1\n3 1 0 1\n1\n0 0 0\n$EndNodes\n"
               "$Elements\n1 1 1 1\n3 1 5 1\n1 1 1 1 1 1 1 1 1\n$EndElements\n");
    CHECK(T, axb_read_gmsh_mesh(msh, &m, &err) == AXB_ERR_UNSUPPORTED);
    CHECK_CONTAINS(T, err.msg, "3-D element type 5");
    write_file(msh, "hello\n");
    CHECK(T, axb_read_gmsh_mesh(msh, &m, &err) == AXB_ERR_FORMAT);
    CHECK_CONTAINS(T, err.msg, "not a Gmsh file");
    CHECK(T, axb_read_gmsh_mesh("/nonexistent/x.msh", &m, &err) == AXB_ERR_IO);
    unlink(v);
    unlink(f);
    unlink(inp);
    unlink(msh);
}

/* The estimate against numbers worked by hand, the shift that keeps a near-constant integrand's
 * variance, and the convergence test's two criteria and its minimum point count. */
static void test_mc_estimate(check_ctx *T)
{
    axb_mc_estimate e = {0};
    CHECK(T, axb_mc_integral(&e, 2.0) == 0.0 && isinf(axb_mc_error(&e, 2.0)));
    const double f[4] = {1, 2, 3, 4};
    axb_mc_add(&e, 4, f);
    /* mean 2.5, population variance 1.25: I = 5, error = 2·sqrt(1.25/3) */
    CHECK_CLOSE(T, axb_mc_integral(&e, 2.0), 5.0, 1e-15);
    CHECK_CLOSE(T, axb_mc_error(&e, 2.0), 2.0 * sqrt(1.25 / 3.0), 1e-15);
    axb_mc_tolerance tol = {0.0, 0.5, 3};
    CHECK(T, axb_mc_converged(&e, 2.0, &tol)); /* 1.29 < 0.5·5 */
    tol.rel_tol = 0.2;
    CHECK(T, !axb_mc_converged(&e, 2.0, &tol));
    tol.abs_tol = 0.7; /* 1.29 < 0.7·2 */
    CHECK(T, axb_mc_converged(&e, 2.0, &tol));
    tol.min_points = 5;
    CHECK(T, !axb_mc_converged(&e, 2.0, &tol));
    /* a value of 1e8 with noise of 1e-4: the variance keeps its digits */
    axb_mc_estimate c = {0};
    double g[1000];
    for (int k = 0; k < 1000; k++) g[k] = 1e8 + ((k % 2) ? 1e-4 : -1e-4);
    axb_mc_add(&c, 500, g);
    axb_mc_add(&c, 500, g + 500);
    CHECK_CLOSE(T, axb_mc_integral(&c, 1.0), 1e8, 1e-6);
    CHECK_CLOSE(T, axb_mc_error(&c, 1.0) / (1e-4 / sqrt(999.0)), 1.0,
                1e-4); /* 1e-4 on top of 1e8 is rounded to 1.5e-8 */
    /* QMC over a tetrahedron: the estimated error brackets the true error of ∫x² dV */
    double vert[12] = {0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4};
    int64_t cell[4] = {0, 1, 2, 3};
    axb_invmesh m = {AXB_CELL_TET, 4, 1, vert, cell, NULL};
    axb_mc_estimate t = {0};
    for (int k = 0; k < 4096; k++) {
        double q[3], x[3];
        axb_qmc_point(AXB_QMC_HALTON, (uint64_t)k, q);
        axb_invmesh_map_point(&m, 0, q, x, NULL);
        const double v = x[0] * x[0];
        axb_mc_add(&t, 1, &v);
    }
    const double V = axb_invmesh_cell_volume(&m, 0), true_err = fabs(axb_mc_integral(&t, V) - 1.6);
    CHECK_MSG(T, true_err < axb_mc_error(&t, V), "true error %g, estimate %g", true_err, axb_mc_error(&t, V));
}

int main(void)
{
    check_ctx T = {0, 0, 0};
    char dir[] = "/tmp/axb-invmesh-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    test_qmc(&T);
    test_tet_map(&T);
    test_voxels(&T);
    test_mc_estimate(&T);
    test_readers(&T, dir);
    rmdir(dir);
    return check_summary(&T);
}
