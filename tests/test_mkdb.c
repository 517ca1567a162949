/* `axibulk mkdb`: generated databases open in our reader, describe themselves correctly, every GLL
 * point is recovered by the element mapping, the stored values are the physics at the stored
 * coordinates, ncdump reads every file, the bytes are reproducible, and bad input is refused.
 * argv[1] (optional): the shared data folder, for comparing G1/G2/gll/glj with AxiSEM's. */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/cli.h"
#include "axibulk/db.h"
#include "axibulk/extract.h"
#include "numerics/fullspace.h"
#include "axibulk/mkdb.h"
#include "axibulk/sem.h"
#include "check.h"
#include "test_util.h"

static void check_basis(check_ctx *T, const char *shared)
{
    double gll[AXB_NPOL_MAX + 1], glj[AXB_NPOL_MAX + 1], G1[81], G2[81];
    axb_error err = AXB_ERROR_INIT;
    CHECK(T, axb_mkdb_basis(4, gll, glj, G1, G2, &err) == AXB_OK);
    const double egll[5] = {-1, -sqrt(3.0 / 7), 0, sqrt(3.0 / 7), 1};
    const double eglj[5] = {-1, -0.507787629558315, 0.13230082077732325, 0.7088201421143251, 1};
    for (int i = 0; i < 5; i++) {
        CHECK_CLOSE(T, gll[i], egll[i], 1e-15);
        CHECK_CLOSE(T, glj[i], eglj[i], 1e-14);
    }
    if (!shared) return;
    /* AxiSEM's stored (float32-rounded) matrices: ours must be the same numbers */
    char path[700];
    snprintf(path, sizeof path, "%s/axisem-prem-100s/100s_db_bwd_displ_only", shared);
    axb_db *db = NULL;
    if (axb_db_open(MPI_COMM_WORLD, path, &db, &err) != AXB_OK) {
        if (T->rank == 0) printf("shared database not found: G1/G2 comparison skipped\n");
        return;
    }
    const axb_mesh *m = axb_db_get_mesh(db);
    double worst1 = 0, worst2 = 0;
    for (int k = 0; k < 25; k++) {
        worst1 = fmax(worst1, fabs(G1[k] - m->G1[k]));
        worst2 = fmax(worst2, fabs(G2[k] - m->G2[k]));
    }
    if (T->rank == 0) printf("G1, G2 vs AxiSEM's: largest differences %g, %g\n", worst1, worst2);
    /* one float32 ulp at most (AxiSEM computes them in its own double arithmetic) */
    CHECK_MSG(T, worst1 <= 1e-6, "G1 differs from AxiSEM's by %g", worst1);
    CHECK_MSG(T, worst2 <= 1e-6, "G2 differs from AxiSEM's by %g", worst2);
    for (int i = 0; i < 5; i++) {
        CHECK_CLOSE(T, gll[i], m->gll[i], 1e-15);
        CHECK_CLOSE(T, glj[i], m->glj[i], 1e-14);
    }
    axb_db_close(&db);
}

static void check_plan(check_ctx *T)
{
    axb_mkdb_opts o;
    axb_mkdb_defaults(&o);
    o.dir = "x";
    o.period = 100;
    o.length = 1800;
    o.rmin_km = 6000;
    CHECK(T, o.points_per_wavelength == 40);
    o.points_per_wavelength = 6;
    axb_mkdb_plan p;
    axb_error err = AXB_ERROR_INIT;
    CHECK(T, axb_mkdb_plan_make(&o, &p, &err) == AXB_OK);
    /* h = 4 * 5770 * 100 / 6 = 384.67 km: ceil(pi*6371/h) = 53 -> 54 (even); ceil(371/h) = 1 */
    CHECK(T, p.ntheta == 54 && p.nrad == 1 && p.nelem == 54);
    CHECK(T, p.npoints == (54 * 4 + 1) * (1 * 4 + 1));
    CHECK_CLOSE(T, p.dt, 25.0, 0);
    CHECK(T, p.nt == 73);
    CHECK(T, p.src_shift_samples == 6); /* ceil(1.5 * 100 / 25) */
    CHECK_CLOSE(T, p.src_shift, 150.0, 1e-9);
    o.element_km = 100;
    CHECK(T, axb_mkdb_plan_make(&o, &p, &err) == AXB_OK);
    CHECK(T, p.ntheta == 202 && p.nrad == 4); /* ceil(200.15) -> 201 -> 202, ceil(3.71) */
    o.dump = AXB_DUMP_STRAIN_ONLY;
    CHECK(T, axb_mkdb_plan_make(&o, &p, &err) == AXB_OK);
    CHECK(T, p.npoints == 202 * 4 * 9);
}

/* Every GLL point of every element is found again by inverting that element's mapping. */
static void check_mesh(check_ctx *T, const axb_db *db, const axb_db_info *in)
{
    const axb_mesh *m = axb_db_get_mesh(db);
    const int np1 = m->npol + 1;
    double worst = 0;
    int64_t naxis = 0, bad_axis = 0, bad_fem = 0, bad_r = 0;
    for (int64_t e = 0; e < m->nelem; e++) {
        axb_elem_shape g;
        axb_sem_shape(m, e, &g);
        const double *xp = m->axis[e] ? m->glj : m->gll;
        naxis += m->axis[e];
        const int32_t *sem = m->sem + e * np1 * np1;
        if (m->fem[e * 4] != sem[0] || m->fem[e * 4 + 1] != sem[np1 - 1] || m->fem[e * 4 + 2] != sem[np1 * np1 - 1] ||
            m->fem[e * 4 + 3] != sem[(np1 - 1) * np1])
            bad_fem++;
        if (m->eltype[e] != 0) bad_fem++;
        for (int j = 0; j < np1; j++)
            for (int i = 0; i < np1; i++) {
                const int32_t p = sem[j * np1 + i];
                double xi, eta;
                bool in_el = axb_sem_inside(&g, m->s[p], m->z[p], 1e-3, &xi, &eta);
                if (!in_el) worst = 1;
                worst = fmax(worst, fmax(fabs(xi - xp[i]), fabs(eta - m->gll[j])));
                if (m->axis[e] && i == 0 && m->s[p] != 0.0f) bad_axis++;
                const double r = hypot(m->s[p], m->z[p]);
                if (r < in->min_radius * (1 - 1e-6) || r > in->max_radius * (1 + 1e-6)) bad_r++;
            }
    }
    /* float32 coordinates of points 1e6 m from the centre: ~1e-7 relative */
    CHECK_MSG(T, worst < 2e-5, "worst (xi, eta) misfit %g", worst);
    CHECK_MSG(T, naxis >= 2 && naxis % 2 == 0, "%lld axis elements", (long long)naxis);
    CHECK(T, bad_axis == 0 && bad_fem == 0 && bad_r == 0);
}

/* The stored values are the physics evaluated where a reader's mapping puts each point: the
 * element's float32 corners mapped to the point's (ξ, η), from the first element holding it. */
static void check_values_displ(check_ctx *T, axb_db *db, const axb_db_info *in, double vp, double vs, double rho,
                               double r_src)
{
    const axb_mesh *m = axb_db_get_mesh(db);
    const int np1 = m->npol + 1;
    const int64_t nt = in->ndumps, bf = axb_db_block_floats(db);
    float *blk = malloc((size_t)bf * sizeof *blk);
    double *phys = malloc((size_t)(3 * nt) * sizeof *phys);
    axb_fs_medium med = {vp, vs, rho};
    axb_fs_stf stf;
    axb_fs_stf_from_period(in->period, &stf);
    stf.t0 = in->src_shift;
    int64_t mismatches = 0, checked = 0;
    int64_t *first = malloc((size_t)m->npoints * sizeof *first);
    for (int64_t p = 0; p < m->npoints; p++) first[p] = -1;
    for (int64_t e = 0; e < m->nelem; e++)
        for (int k = 0; k < np1 * np1; k++)
            if (first[m->sem[e * np1 * np1 + k]] < 0) first[m->sem[e * np1 * np1 + k]] = e;
    for (int64_t e = 0; e < m->nelem; e++) {
        axb_error err = AXB_ERROR_INIT;
        axb_elem_shape g;
        axb_sem_shape(m, e, &g);
        const double *xp = m->axis[e] ? m->glj : m->gll;
        if (axb_db_read_elements(db, 1, &e, AXB_IO_INDEPENDENT, blk, &err) != AXB_OK) {
            CHECK_MSG(T, 0, "read element %lld: %s", (long long)e, err.msg);
            break;
        }
        for (int sim = 0; sim < AXB_NSIM; sim++) {
            if (!in->has_sim[sim]) continue;
            for (int i = 0; i < np1; i++)
                for (int j = 0; j < np1; j++) {
                    const int32_t p = m->sem[(e * np1 + j) * np1 + i];
                    if (first[p] != e) continue; /* an earlier element holds it */
                    double ps, pz;
                    axb_sem_map(&g, xp[i], m->gll[j], &ps, &pz);
                    axb_fs_sim_displ(&med, &stf, (axb_sim)sim, r_src, (double)(float)in->amplitude, ps, pz, nt, in->dt,
                                     phys);
                    for (int c = 0; c < in->ncomp[sim]; c++) {
                        const int row = in->ncomp[sim] == 2 && c == 1 ? 2 : c;
                        const float *got =
                            blk + ((int64_t)(in->var_offset[sim] + c) * np1 * np1 + (int64_t)i * np1 + j) * nt;
                        for (int64_t t = 0; t < nt; t++, checked++)
                            if (got[t] != (float)phys[row * nt + t]) mismatches++;
                    }
                }
        }
    }
    CHECK_MSG(T, mismatches == 0 && checked > 0, "%lld of %lld samples differ from the physics", (long long)mismatches,
              (long long)checked);
    free(first);
    free(blk);
    free(phys);
}

static void check_values_strain(check_ctx *T, axb_db *db, const axb_db_info *in, double vp, double vs, double rho,
                                double r_src)
{
    const axb_mesh *m = axb_db_get_mesh(db);
    const int nv = axb_db_point_vars(db);
    const int64_t nt = in->ndumps;
    float *got = malloc((size_t)(nv * nt) * sizeof *got);
    double *phys = malloc((size_t)(6 * nt) * sizeof *phys);
    axb_fs_medium med = {vp, vs, rho};
    axb_fs_stf stf;
    axb_fs_stf_from_period(in->period, &stf);
    stf.t0 = in->src_shift;
    int64_t mismatches = 0, checked = 0;
    for (int64_t p = 0; p < m->npoints; p += 7) {
        axb_error err = AXB_ERROR_INIT;
        if (axb_db_read_points(db, 1, &p, AXB_IO_INDEPENDENT, got, &err) != AXB_OK) {
            CHECK_MSG(T, 0, "read point %lld: %s", (long long)p, err.msg);
            break;
        }
        int run = 0;
        for (int sim = 0; sim < AXB_NSIM; sim++) {
            if (!in->has_sim[sim]) continue;
            axb_fs_sim_strain(&med, &stf, (axb_sim)sim, r_src, (double)(float)in->amplitude, m->s[p], m->z[p], nt,
                              in->dt, phys);
            const bool mono = in->excitation[sim] == AXB_EXC_MONOPOLE;
            for (int v = 0; v < 6; v++) {
                if (mono && (v == 3 || v == 4)) continue;
                const float *g = got + ((int64_t)run * 6 + v) * nt;
                for (int64_t t = 0; t < nt; t++, checked++)
                    if (g[t] != (float)phys[v * nt + t]) mismatches++;
            }
            run++;
        }
    }
    CHECK_MSG(T, mismatches == 0 && checked > 0, "%lld of %lld strain samples differ", (long long)mismatches,
              (long long)checked);
    free(got);
    free(phys);
}

/* One pair extracted from @p dir (each rank alone). */
static axb_status extract_one(const char *dir, double rec_depth, axb_error *err)
{
    axb_db *db = NULL;
    axb_extract_plan *p = NULL;
    axb_extract_opts o = AXB_EXTRACT_OPTS_DEFAULT;
    snprintf(o.components, sizeof o.components, "Z");
    const axb_source src = {
        .type = AXB_SRC_MOMENT, .lat = 10, .lon = 20, .depth = 50e3, .m = {1e18, 0, -1e18, 0, 0, 0}, .time_shift = NAN};
    const axb_receiver rec = {.lat = 0, .lon = 0, .depth = rec_depth};
    axb_status st = axb_db_open(MPI_COMM_SELF, dir, &db, err);
    if (!st) st = axb_extract_plan_create(db, &o, &p, err);
    double *out = NULL;
    if (!st && !(out = malloc((size_t)axb_db_get_info(db)->ndumps * 4 * sizeof *out)))
        st = axb_error_set(err, AXB_ERR_NOMEM, "trace");
    if (!st) {
        axb_pair_ref pr = {&src, &rec};
        st = axb_extract_pairs(p, 1, &pr, out, err);
    }
    free(out);
    axb_extract_plan_destroy(&p);
    axb_db_close(&db);
    return st;
}

/* A reciprocal database serves receivers at its own depth only: extraction refuses others in one
 * line instead of handing out the seismogram of a receiver elsewhere. */
static void check_receiver_depths(check_ctx *T, const char *root)
{
    char deep[700], surf[700];
    snprintf(deep, sizeof deep, "%s/recdeep", root);
    snprintf(surf, sizeof surf, "%s/rec", root);
    axb_error err = AXB_ERROR_INIT;
    CHECK_MSG(T, extract_one(deep, 100e3, &err) == AXB_OK, "%s", err.msg);
    CHECK_MSG(T, extract_one(deep, 100e3 + 0.9, &err) == AXB_OK, "%s", err.msg);
    CHECK(T, extract_one(deep, NAN, &err) == AXB_ERR_UNSUPPORTED);
    CHECK_CONTAINS(T, err.msg,
                   "the reciprocal database's receiver is at 100.0 km depth; this receiver is at 0.0 km "
                   "(no depth given: the surface)");
    CHECK(T, !strchr(err.msg, '\n'));
    CHECK(T, extract_one(deep, 90e3, &err) == AXB_ERR_UNSUPPORTED);
    CHECK_CONTAINS(T, err.msg, "this receiver is at 90.0 km (its depth)");
    CHECK_MSG(T, extract_one(surf, NAN, &err) == AXB_OK, "%s", err.msg);
    CHECK_MSG(T, extract_one(surf, 0.5, &err) == AXB_OK, "%s", err.msg);
    CHECK(T, extract_one(surf, 2.0, &err) == AXB_ERR_UNSUPPORTED);
    CHECK_CONTAINS(T, err.msg, "the reciprocal database's receiver is at 0.0 km depth");
}

static void check_info(check_ctx *T, axb_db *db, const axb_db_info *in, axb_db_kind kind, axb_dump_type dump,
                       int64_t nelem, int64_t npoints, double rmin_km)
{
    CHECK(T, in->kind == kind && in->dump == dump && in->file_version == 10 && in->npol == 4);
    CHECK(T, in->nelem == (dump == AXB_DUMP_DISPL_ONLY ? nelem : 0));
    CHECK_MSG(T, in->npoints == npoints, "%lld points", (long long)in->npoints);
    CHECK_CLOSE(T, in->dt, 25.0, 0);
    CHECK(T, in->ndumps == 73);
    CHECK(T, in->src_shift_samples == 6);
    CHECK_CLOSE(T, in->src_shift, 150.0, 0);
    CHECK_CLOSE(T, in->min_radius, rmin_km * 1e3, 1e-6);
    CHECK_CLOSE(T, in->max_radius, 6371e3, 1e-6);
    CHECK_CLOSE(T, in->amplitude, (double)1e20f, 0);
    CHECK(T, !strcmp(in->stf, "errorf") && in->stf_map == 0);
    /* slip rate peaks at the source shift, slip integrates to the amplitude */
    const double *sd = axb_db_get_stf_d(db), *s = axb_db_get_stf(db);
    int64_t imax = 0;
    for (int64_t t = 1; t < in->ndumps; t++)
        if (sd[t] > sd[imax]) imax = t;
    CHECK_MSG(T, imax == in->src_shift_samples, "STF rate peak at sample %lld", (long long)imax);
    CHECK_CLOSE(T, s[in->ndumps - 1] / in->amplitude, 1.0, 1e-6);
}

static long file_bytes(const char *path, unsigned char **buf)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    *buf = malloc((size_t)n);
    if (fread(*buf, 1, (size_t)n, f) != (size_t)n) n = -1;
    fclose(f);
    return n;
}

static bool same_files(const char *a, const char *b)
{
    unsigned char *x = NULL, *y = NULL;
    long na = file_bytes(a, &x), nb = file_bytes(b, &y);
    bool same = na > 0 && na == nb && memcmp(x, y, (size_t)na) == 0;
    free(x);
    free(y);
    return same;
}

/* The snapshot arrays of an --axisem-filters file carry AxiSEM's pipeline, in AxiSEM's order
 * (h5dump -pH of the shared 50 s files: fletcher32, shuffle, deflate 2), in chunks of 8192 values. */
static void check_axisem_filters(check_ctx *T, const char *file, const char *var, int64_t nt)
{
    char path[64];
    snprintf(path, sizeof path, "/Snapshots/%s", var);
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT), d = f >= 0 ? H5Dopen2(f, path, H5P_DEFAULT) : -1;
    hid_t pl = d >= 0 ? H5Dget_create_plist(d) : -1;
    CHECK_MSG(T, pl >= 0, "%s: %s", file, path);
    if (pl >= 0) {
        const H5Z_filter_t want[3] = {H5Z_FILTER_FLETCHER32, H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE};
        CHECK_MSG(T, H5Pget_nfilters(pl) == 3, "%s: %d filters", file, H5Pget_nfilters(pl));
        for (unsigned i = 0; i < 3 && H5Pget_nfilters(pl) == 3; i++) {
            unsigned flags, cd[4];
            size_t ncd = 4;
            const H5Z_filter_t id = H5Pget_filter2(pl, i, &flags, &ncd, cd, 0, NULL, NULL);
            CHECK_MSG(T, id == want[i], "%s: filter %u is %d", file, i, (int)id);
            if (id == H5Z_FILTER_DEFLATE) CHECK(T, ncd >= 1 && cd[0] == 2);
        }
        hsize_t ch[2] = {0, 0};
        CHECK(T, H5Pget_chunk(pl, 2, ch) == 2 && (int64_t)ch[0] == nt && (int64_t)ch[1] == 8192 / nt);
        H5Pclose(pl);
    }
    if (d >= 0) H5Dclose(d);
    if (f >= 0) H5Fclose(f);
}

int main(int argc, char **argv)
{
    int mpi_thread_level; /* FUNNELED: only this thread calls MPI; repack has a writer thread */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &mpi_thread_level);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    check_ctx T = {0, 0, 0};
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *shared = argc > 1 ? argv[1] : NULL;
    char root[512], line[2048], out[8192], errb[4096];
    if (test_scratch_dir(MPI_COMM_WORLD, "mkdb", root, sizeof root)) MPI_Abort(MPI_COMM_WORLD, 1);

    check_basis(&T, shared);
    check_plan(&T);

    const char *common = "--period 100 --length 1800 --rmin-km 6000 --points-per-wavelength 6 -q";
    struct {
        const char *name, *extra;
        axb_db_kind kind;
        axb_dump_type dump;
        int64_t nelem, npoints;
        double r_src;
    } cases[] = {
        {"rec", "", AXB_DB_RECIPROCAL, AXB_DUMP_DISPL_ONLY, 54, 1085, 6371e3},
        /* a layer boundary at the source: 6000..6321 km in 2 layers, 6321..6371 km in 1 */
        {"fwd", "--kind forward --source-depth-km 50 --element-km 200", AXB_DB_FORWARD, AXB_DUMP_DISPL_ONLY, 102 * 3,
         (102 * 4 + 1) * (3 * 4 + 1), 6321e3},
        {"strain", "--dump strain_only", AXB_DB_RECIPROCAL, AXB_DUMP_STRAIN_ONLY, 54, 54 * 9, 6371e3},
        /* the receiver buried at 100 km: forces at 6271 km, a layer boundary there (6000..6271 km
         * in 2 layers, 6271..6371 km in 1) */
        {"recdeep", "--source-depth-km 100 --element-km 200", AXB_DB_RECIPROCAL, AXB_DUMP_DISPL_ONLY, 102 * 3,
         (102 * 4 + 1) * (3 * 4 + 1), 6271e3},
        {"straindeep", "--dump strain_only --source-depth-km 100 --element-km 200", AXB_DB_RECIPROCAL,
         AXB_DUMP_STRAIN_ONLY, 102 * 3, 102 * 3 * 9, 6271e3},
        /* AxiSEM's chunks and filters: the same values through the decoding path */
        {"recaxisem", "--axisem-filters", AXB_DB_RECIPROCAL, AXB_DUMP_DISPL_ONLY, 54, 1085, 6371e3},
        {"strainaxisem", "--dump strain_only --axisem-filters", AXB_DB_RECIPROCAL, AXB_DUMP_STRAIN_ONLY, 54, 54 * 9,
         6371e3},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        snprintf(line, sizeof line, "mkdb -o %s/%s %s %s", root, cases[c].name, common, cases[c].extra);
        int rc = test_cli_line(line, out, sizeof out, errb, sizeof errb);
        CHECK_MSG(&T, rc == 0, "%s: exit %d: %s", line, rc, errb);
        if (rc) continue;
        if (T.rank == 0) CHECK_CONTAINS(&T, out, "wrote ");
        char dir[700];
        snprintf(dir, sizeof dir, "%s/%s", root, cases[c].name);
        axb_db *db = NULL;
        axb_error err = AXB_ERROR_INIT;
        axb_status st = axb_db_open(MPI_COMM_WORLD, dir, &db, &err);
        CHECK_MSG(&T, st == AXB_OK, "%s: %s", dir, err.msg);
        if (st) continue;
        const axb_db_info *in = axb_db_get_info(db);
        check_info(&T, db, in, cases[c].kind, cases[c].dump, cases[c].nelem, cases[c].npoints, 6000);
        /* 'source depth in km' records where the forces or moment tensors are, both kinds */
        CHECK_CLOSE(&T, in->source_depth, 6371e3 - cases[c].r_src, 1e-3);
        if (cases[c].dump == AXB_DUMP_DISPL_ONLY) {
            check_mesh(&T, db, in);
            check_values_displ(&T, db, in, 10000, 5770, 3300, cases[c].r_src);
        } else {
            check_values_strain(&T, db, in, 10000, 5770, 3300, cases[c].r_src);
        }
        if (T.rank == 0)
            for (int k = 0; k < in->nfiles; k++) {
                snprintf(line, sizeof line, "ncdump -h '%s' > /dev/null", in->files[k]);
                CHECK_MSG(&T, system(line) == 0, "%s", line);
                if (strstr(cases[c].extra, "--axisem-filters"))
                    check_axisem_filters(&T, in->files[k],
                                         cases[c].dump == AXB_DUMP_DISPL_ONLY ? "disp_s" : "strain_dsus", in->ndumps);
            }
        axb_db_close(&db);
        snprintf(line, sizeof line, "info %s", dir);
        rc = test_cli_line(line, out, sizeof out, errb, sizeof errb);
        CHECK(&T, rc == 0);
        if (T.rank == 0) {
            char want[64];
            snprintf(want, sizeof want, "%lld (npol 4)", (long long)cases[c].npoints);
            CHECK_CONTAINS(&T, out, want);
        }
    }

    check_receiver_depths(&T, root);

    /* the same options give the same bytes */
    snprintf(line, sizeof line, "mkdb -o %s/again %s", root, common);
    CHECK(&T, test_cli_line(line, out, sizeof out, errb, sizeof errb) == 0);
    if (T.rank == 0)
        for (int k = 0; k < 2; k++) {
            char a[700], b[700];
            snprintf(a, sizeof a, "%s/rec/%s/Data/ordered_output.nc4", root, k ? "PZ" : "PX");
            snprintf(b, sizeof b, "%s/again/%s/Data/ordered_output.nc4", root, k ? "PZ" : "PX");
            CHECK_MSG(&T, same_files(a, b), "%s and %s differ", a, b);
        }

    /* refusals: one line, exit 2, every rank */
    const char *bad[] = {
        "--period 100 --length 1800 --rmin-km 6371",
        "--period 100 --length 1800 --rmin-km 7000",
        "--period -100 --length 1800 --rmin-km 6000",
        "--period nan --length 1800 --rmin-km 6000",
        "--period 100 --length 1800 --rmin-km 6000 --vs 10000",
        "--period 100 --length 1800 --rmin-km 6000 --vs 20000",
        "--period 100 --length 100 --rmin-km 6000",
        "--period 100 --length 1800 --rmin-km 6000 --layout merged --dump strain_only",
        "--period 100 --length 1800 --rmin-km 6000 --kind forward --dump strain_only",
        "--period 100 --length 1800 --rmin-km 6000 --source-depth-km 6371",
        "--period 100 --length 1800 --rmin-km 6000 --source-depth-km -1",
        "--period 100 --length 1800 --rmin-km 6000 --kind sideways",
        "--period 100 --length 1800",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        snprintf(line, sizeof line, "mkdb -q -o %s/bad %s", root, bad[k]);
        int rc = test_cli_line(line, out, sizeof out, errb, sizeof errb);
        CHECK_MSG(&T, rc == 2, "'%s': exit %d", bad[k], rc);
        if (T.rank == 0) {
            CHECK_MSG(&T, strchr(errb, '\n') == errb + strlen(errb) - 1, "'%s': not one line: %s", bad[k], errb);
        }
    }
    snprintf(line, sizeof line, "mkdb -q -o /proc/axb-mkdb-nowhere/db %s", common);
    CHECK(&T, test_cli_line(line, out, sizeof out, errb, sizeof errb) == 2);
    snprintf(line, sizeof line, "mkdb -o %s/rec %s", root, common);
    CHECK(&T, test_cli_line(line, out, sizeof out, errb, sizeof errb) == 2);
    if (T.rank == 0) CHECK_CONTAINS(&T, errb, "--force");
    snprintf(line, sizeof line, "mkdb -o %s/rec %s --layout merged", root, common);
    CHECK(&T, test_cli_line(line, out, sizeof out, errb, sizeof errb) == 2);
    if (T.rank == 0) CHECK_CONTAINS(&T, errb, "--force");
    snprintf(line, sizeof line, "mkdb -o %s/rec %s --force", root, common);
    CHECK(&T, test_cli_line(line, out, sizeof out, errb, sizeof errb) == 0);
    if (T.rank == 0) {
        char a[700], b[700];
        snprintf(a, sizeof a, "%s/rec/PX/Data/ordered_output.nc4", root);
        snprintf(b, sizeof b, "%s/again/PX/Data/ordered_output.nc4", root);
        CHECK(&T, same_files(a, b));
    }

    test_remove_dir(MPI_COMM_WORLD, root);
    int rc = check_summary(&T);
    MPI_Finalize();
    return rc;
}
