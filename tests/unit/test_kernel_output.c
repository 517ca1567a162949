/* The kernel output writer (io/output/kernel_out.c) against the known results of
 * tests/support/kernel_fixture.c: every dataset read back with HDF5 equals what was given, bit for
 * bit (tetrahedra per cell and per vertex, voxels); the attributes carry the job; the XDMF file
 * names the HDF5 file by its name and describes topology and arrays; nothing is published before
 * it is complete, an existing output is refused without force (naming the file and --force) and
 * replaced with it, a leftover .partial is replaced; bad names and misplaced files are refused
 * before anything is written. ParaView's reading of the same files: tests/kernel_xdmf_test.sh. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axibulk/version.h"
#include "check.h"
#include "core/partial.h"
#include "io/hdf5/h5util.h"
#include "support/kernel_fixture.h"

static bool exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = calloc(1, 1 << 16);
    if (buf && fread(buf, 1, (1 << 16) - 1, f) == 0) buf[0] = '\0';
    fclose(f);
    return buf;
}

static void touch(const char *p)
{
    FILE *f = fopen(p, "w");
    if (f) {
        fputs("old", f);
        fclose(f);
    }
}

static void check_str_attr(check_ctx *T, hid_t loc, const char *name, const char *want)
{
    char buf[512] = "";
    axb_error err = AXB_ERROR_INIT;
    CHECK_MSG(T, axb_h5_attr_string(loc, name, buf, sizeof buf, &err) == AXB_OK, "%s", err.msg);
    CHECK_MSG(T, strcmp(buf, want) == 0, "attribute %s: '%s' vs '%s'", name, buf, want);
}

static void check_num_attr(check_ctx *T, hid_t loc, const char *name, double want)
{
    double v = NAN;
    axb_error err = AXB_ERROR_INIT;
    CHECK_MSG(T, axb_h5_attr_double(loc, name, &v, &err) == AXB_OK, "%s", err.msg);
    CHECK_MSG(T, v == want, "attribute %s: %.17g vs %.17g", name, v, want);
}

/* Dataset @p name has shape (n0[, n1]) and holds exactly @p want (double or int64). */
static void check_data(check_ctx *T, hid_t f, const char *name, int64_t n0, int n1, const void *want, bool is_int)
{
    const int rank = n1 > 0 ? 2 : 1;
    const hsize_t dims[2] = {(hsize_t)n0, (hsize_t)n1};
    const size_t n = (size_t)n0 * (size_t)(n1 > 0 ? n1 : 1), size = n * 8;
    void *buf = malloc(size ? size : 1);
    axb_error err = AXB_ERROR_INIT;
    axb_status st = axb_h5_read(f, name, is_int ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, rank, dims, buf, &err);
    CHECK_MSG(T, st == AXB_OK, "%s: %s", name, err.msg);
    if (st == AXB_OK) CHECK_MSG(T, memcmp(buf, want, size) == 0, "dataset %s differs from what was written", name);
    /* the stored types are the documented ones, not just convertible */
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT), t = d >= 0 ? H5Dget_type(d) : -1;
    CHECK_MSG(T, t >= 0 && H5Tequal(t, is_int ? H5T_STD_I64LE : H5T_IEEE_F64LE) > 0, "dataset %s: wrong type", name);
    if (t >= 0) H5Tclose(t);
    if (d >= 0) H5Dclose(d);
    free(buf);
}

static void check_file(check_ctx *T, const char *path, const kfix *fx)
{
    const axb_kernel_result *r = &fx->res;
    const axb_invmesh *m = &fx->mesh;
    const int nv = axb_cell_nvert(m->type);
    const int64_t nitems = r->per_vertex ? m->nvert : m->ncell;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    CHECK_MSG(T, f >= 0, "cannot open %s", path);
    if (f < 0) return;

    check_data(T, f, "mesh/vertices", m->nvert, 3, m->vert, false);
    check_data(T, f, "mesh/cells", m->ncell, nv, m->cell, true);
    check_data(T, f, "mesh/volume", m->ncell, 0, r->volume, false);
    check_data(T, f, "mesh/points", m->ncell, 0, r->npoints, true);
    hid_t g = H5Gopen2(f, "mesh", H5P_DEFAULT);
    check_str_attr(T, g, "cell_type", m->type == AXB_CELL_TET ? "tetrahedron" : "hexahedron");
    H5Gclose(g);

    static const char *const units[3] = {"s", "s", "1"}, *const params[3] = {"vp", "vs", "rho"};
    static const char *const kernels[3] = {"P30", "P30", "S40_am"}, *const misfits[3] = {"cc", "cc", "am"};
    for (int c = 0; c < r->ncolumns; c++) {
        char name[160];
        snprintf(name, sizeof name, "kernels/%s", r->columns[c].name);
        check_data(T, f, name, nitems, 0, r->value + c * nitems, false);
        hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
        check_str_attr(T, d, "kernel", kernels[c]);
        check_str_attr(T, d, "parameter", params[c]);
        check_str_attr(T, d, "units", units[c]);
        check_str_attr(T, d, "misfit", misfits[c]);
        check_num_attr(T, d, "integral", r->integral[c]);
        check_num_attr(T, d, "relative", 1);
        H5Dclose(d);
        snprintf(name, sizeof name, "errors/%s", r->columns[c].name);
        check_data(T, f, name, nitems, 0, r->error + c * nitems, false);
    }

    check_data(T, f, "seismograms/P30", r->seis_npts, 0, r->seismogram, false);
    check_data(T, f, "seismograms/P30_velocity", r->seis_npts, 0, r->velocity, false);
    check_data(T, f, "seismograms/S40_am", r->seis_npts, 0, r->seismogram + r->seis_npts, false);
    check_data(T, f, "seismograms/S40_am_velocity", r->seis_npts, 0, r->velocity + r->seis_npts, false);
    hid_t d = H5Dopen2(f, "seismograms/P30", H5P_DEFAULT);
    check_num_attr(T, d, "dt", 0.25);
    check_num_attr(T, d, "t1", 300.0);
    check_num_attr(T, d, "t2", 340.0);
    check_str_attr(T, d, "component", "Z");
    check_str_attr(T, d, "receiver", "XX.STA1.");
    check_num_attr(T, d, "receiver_lat", 40.0);
    check_str_attr(T, d, "filter", "bandpass 0.01-0.02 Hz order 4 zerophase");
    check_str_attr(T, d, "misfit", "cc");
    H5Dclose(d);
    d = H5Dopen2(f, "seismograms/S40_am_velocity", H5P_DEFAULT);
    check_str_attr(T, d, "quantity", "velocity");
    check_str_attr(T, d, "component", "T");
    check_str_attr(T, d, "receiver", "YY.B2.00");
    check_num_attr(T, d, "receiver_depth", 100.0);
    check_str_attr(T, d, "filter", "loggabor T=40 s width 0.5");
    check_str_attr(T, d, "misfit", "am");
    H5Dclose(d);

    check_str_attr(T, f, "axibulk_version", axb_version());
    check_str_attr(T, f, "forward_db", "/data/fwd");
    check_str_attr(T, f, "values", r->per_vertex ? "vertices" : "cells");
    check_str_attr(T, f, "stf", "database");
    check_str_attr(T, f, "points", "sobol");
    check_num_attr(T, f, "relative", 1);
    check_num_attr(T, f, "max_points", 512);
    check_num_attr(T, f, "mask_source_receiver", 1);
    check_num_attr(T, f, "damp_radius", 50e3);
    check_num_attr(T, f, "event_lon", -33.25);
    check_num_attr(T, f, "event_depth", 15000.0);
    check_num_attr(T, f, "source_depth", 15000.0);
    check_num_attr(T, f, "ranks", 3);
    check_num_attr(T, f, "seconds", 12.75);
    double mt[6] = {0};
    hid_t a = H5Aopen(f, "moment_tensor", H5P_DEFAULT);
    CHECK(T, a >= 0 && H5Aread(a, H5T_NATIVE_DOUBLE, mt) >= 0);
    if (a >= 0) H5Aclose(a);
    CHECK(T, memcmp(mt, fx->job.event.m, sizeof mt) == 0);
    H5Fclose(f);
}

static void check_xdmf(check_ctx *T, const char *path, const char *h5name, const kfix *fx)
{
    char *x = slurp(path);
    CHECK_MSG(T, x != NULL, "cannot read %s", path);
    if (!x) return;
    char want[256];
    snprintf(want, sizeof want, "TopologyType=\"%s\" NumberOfElements=\"%lld\"",
             fx->mesh.type == AXB_CELL_TET ? "Tetrahedron" : "Hexahedron", (long long)fx->mesh.ncell);
    CHECK_CONTAINS(T, x, want);
    CHECK_CONTAINS(T, x, "GeometryType=\"XYZ\"");
    snprintf(want, sizeof want, ">%s:/kernels/P30_vp<", h5name);
    CHECK_CONTAINS(T, x, want);
    snprintf(want, sizeof want, ">%s:/errors/S40_am_rho<", h5name);
    CHECK_CONTAINS(T, x, want);
    snprintf(want, sizeof want, "Name=\"P30_vs_error\" AttributeType=\"Scalar\" Center=\"%s\"",
             fx->res.per_vertex ? "Node" : "Cell");
    CHECK_CONTAINS(T, x, want);
    CHECK_CONTAINS(T, x, "Name=\"points\" AttributeType=\"Scalar\" Center=\"Cell\"");
    CHECK_CONTAINS(T, x, "Name=\"volume\" AttributeType=\"Scalar\" Center=\"Cell\"");
    CHECK(T, strstr(x, "/tmp/") == NULL); /* the HDF5 file is named without its folder */
    free(x);
}

static void test_layouts(check_ctx *T, const char *dir)
{
    static const kfix_kind kinds[3] = {KFIX_TET_CELLS, KFIX_TET_VERTICES, KFIX_VOXELS};
    static const char *const names[3] = {"tet.h5", "tetv.h5", "vox.h5"};
    for (int k = 0; k < 3; k++) {
        kfix fx;
        CHECK(T, kfix_make(&fx, kinds[k]) == 0);
        char h5[512], xdmf[512];
        axb_error err = AXB_ERROR_INIT;
        snprintf(h5, sizeof h5, "%s/%s", dir, names[k]);
        CHECK(T, axb_kernel_xdmf_path(h5, xdmf, sizeof xdmf, &err) == AXB_OK);
        axb_status st = axb_kernel_output_write(h5, xdmf, &fx.job, &fx.res, false, &err);
        CHECK_MSG(T, st == AXB_OK, "%s: %s", names[k], err.msg);
        char partial[600];
        snprintf(partial, sizeof partial, "%s.partial", h5);
        CHECK(T, !exists(partial));
        snprintf(partial, sizeof partial, "%s.partial", xdmf);
        CHECK(T, !exists(partial));
        check_file(T, h5, &fx);
        check_xdmf(T, xdmf, names[k], &fx);
        kfix_free(&fx);
    }
}

/* Existing outputs, leftovers, force. */
static void test_existing(check_ctx *T, const char *dir)
{
    kfix fx;
    CHECK(T, kfix_make(&fx, KFIX_TET_CELLS) == 0);
    char h5[512], xdmf[512], partial[600];
    axb_error err = AXB_ERROR_INIT;
    snprintf(h5, sizeof h5, "%s/again.h5", dir);
    snprintf(xdmf, sizeof xdmf, "%s/again.xdmf", dir);
    snprintf(partial, sizeof partial, "%s.partial", h5);

    touch(partial); /* a killed write: nothing to resume, replaced */
    CHECK(T, axb_kernel_output_write(h5, xdmf, &fx.job, &fx.res, false, &err) == AXB_OK);
    CHECK(T, !exists(partial));

    fx.res.value[0] = 42.0; /* a second run with another result */
    CHECK(T, axb_kernel_output_write(h5, xdmf, &fx.job, &fx.res, false, &err) == AXB_ERR_IO);
    CHECK_CONTAINS(T, err.msg, h5);
    CHECK_CONTAINS(T, err.msg, "--force");
    CHECK(T, strchr(err.msg, '\n') == NULL);
    CHECK(T, !exists(partial));
    double v0 = 0;
    hid_t f = H5Fopen(h5, H5F_ACC_RDONLY, H5P_DEFAULT);
    hsize_t dims[1] = {3};
    double vals[3];
    axb_error rerr = AXB_ERROR_INIT;
    CHECK(T, f >= 0 && axb_h5_read(f, "kernels/P30_vp", H5T_NATIVE_DOUBLE, 1, dims, vals, &rerr) == AXB_OK);
    v0 = vals[0];
    if (f >= 0) H5Fclose(f);
    CHECK(T, v0 != 42.0); /* the refused run left the old file alone */

    CHECK(T, axb_kernel_output_write(h5, xdmf, &fx.job, &fx.res, true, &err) == AXB_OK);
    check_file(T, h5, &fx);

    unlink(h5); /* the XDMF file alone is an output too */
    CHECK(T, axb_kernel_output_write(h5, xdmf, &fx.job, &fx.res, false, &err) == AXB_ERR_IO);
    CHECK_CONTAINS(T, err.msg, xdmf);
    CHECK_CONTAINS(T, err.msg, "--force");
    CHECK(T, !exists(h5));
    kfix_free(&fx);
}

/* Refusals before anything is written. */
static void test_refusals(check_ctx *T, const char *dir)
{
    kfix fx;
    CHECK(T, kfix_make(&fx, KFIX_TET_CELLS) == 0);
    char h5[512], xdmf[600], sub[256];
    axb_error err = AXB_ERROR_INIT;
    snprintf(h5, sizeof h5, "%s/bad.h5", dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    mkdir(sub, 0755);

    snprintf(xdmf, sizeof xdmf, "%s/bad.xdmf", sub);
    CHECK(T, axb_kernel_output_write(h5, xdmf, &fx.job, &fx.res, false, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "must be in the folder of");
    /* the same folder by another spelling is fine */
    snprintf(xdmf, sizeof xdmf, "%s/../bad.xdmf", sub);
    CHECK_MSG(T, axb_kernel_output_write(h5, xdmf, &fx.job, &fx.res, false, &err) == AXB_OK, "%s", err.msg);
    unlink(h5);
    unlink(xdmf);

    snprintf(xdmf, sizeof xdmf, "%s/bad.xdmf", dir);
    char nodir[512];
    snprintf(nodir, sizeof nodir, "%s/missing/x.h5", dir);
    CHECK(T, axb_kernel_output_write(nodir, xdmf, &fx.job, &fx.res, false, &err) == AXB_ERR_IO);
    CHECK_CONTAINS(T, err.msg, "does not exist");

    snprintf(fx.col[1].name, sizeof fx.col[1].name, "P30_vp");
    CHECK(T, axb_kernel_output_write(h5, xdmf, &fx.job, &fx.res, false, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "two kernel columns or error columns are named 'P30_vp'");
    snprintf(fx.col[1].name, sizeof fx.col[1].name, "P30/vs");
    CHECK(T, axb_kernel_output_write(h5, xdmf, &fx.job, &fx.res, false, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "P30/vs");
    snprintf(fx.col[1].name, sizeof fx.col[1].name, "P30_vs");
    snprintf(fx.def[1].name, sizeof fx.def[1].name, "P30_velocity");
    CHECK(T, axb_kernel_output_write(h5, xdmf, &fx.job, &fx.res, false, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "seismograms are named 'P30_velocity'");
    snprintf(fx.def[1].name, sizeof fx.def[1].name, "S40_am");
    fx.col[2].kernel = 2;
    CHECK(T, axb_kernel_output_write(h5, xdmf, &fx.job, &fx.res, false, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "S40_am_rho");
    fx.col[2].kernel = 1;
    fx.res.nkernels = 1;
    CHECK(T, axb_kernel_output_write(h5, xdmf, &fx.job, &fx.res, false, &err) == AXB_ERR_ARG);
    fx.res.nkernels = 2;
    CHECK(T, axb_kernel_output_write(h5, h5, &fx.job, &fx.res, false, &err) == AXB_ERR_ARG);
    CHECK(T, !exists(h5) && !exists(xdmf));
    kfix_free(&fx);
}

static void test_xdmf_path(check_ctx *T)
{
    char out[64];
    axb_error err = AXB_ERROR_INIT;
    static const char *const cases[][2] = {
        {"x.h5", "x.xdmf"},        {"dir/k.h5", "dir/k.xdmf"},  {"dir/kern", "dir/kern.xdmf"},
        {"a.hdf5", "a.hdf5.xdmf"}, {"dir/.h5", "dir/.h5.xdmf"}, {"a.h5.h5", "a.h5.xdmf"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK(T, axb_kernel_xdmf_path(cases[i][0], out, sizeof out, &err) == AXB_OK);
        CHECK_STR(T, out, cases[i][1]);
    }
    CHECK(T, axb_kernel_xdmf_path("abc.h5", out, 8, &err) == AXB_ERR_ARG);
    CHECK(T, axb_kernel_xdmf_path("abc.h5", out, 9, &err) == AXB_OK);
    CHECK_STR(T, out, "abc.xdmf");
}

int main(void)
{
    check_ctx T = {0, 0, 0};
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    char dir[] = "/tmp/axb_kout_XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_layouts(&T, dir);
    test_existing(&T, dir);
    test_refusals(&T, dir);
    test_xdmf_path(&T);
    if (!getenv("AXB_KEEP")) axb_remove_tree(dir);
    return check_summary(&T);
}
