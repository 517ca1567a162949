/* The in-memory database backend through the public API only (axibulk/axibulk.h), on 1 and 2
 * ranks: its description; its mesh (every stored GLL point where the element mapping of the
 * corners puts it); element reads, collective and independent, in any order with repeats, equal to
 * the documented closed form; refusals without hangs (a bad element on one rank, an unknown name);
 * and an extraction job over all ranks whose rows equal, bit for bit, the same pairs computed by
 * one rank alone, and whose time per stage covers every stage once. No file is read, so the whole
 * test takes a second. */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/axibulk.h"
#include "check.h"
#include "test_util.h"

/* The formula of db_memory.h written out again, so a change of either shows up here. */
static double formula(const axb_db_info *in, int sim, int comp, double s, double z, int64_t t)
{
    const double tau = (double)t * in->dt, d = hypot(s, z - in->planet_radius) / 200e3;
    const double e = (tau - 10.0 - d) / 4.0;
    return 1e-9 * (1 + sim + comp / 2.0) * exp(-e * e) * cos(2 * 3.14159265358979323846 * (tau - d) / 10.0 + comp);
}

static void check_description(check_ctx *T, const axb_db *db)
{
    const axb_db_info *in = axb_db_get_info(db);
    const axb_mesh *m = axb_db_get_mesh(db);
    CHECK_STR(T, axb_db_layout_name(db), "memory");
    CHECK(T, axb_db_get_info(db)->layout == AXB_LAYOUT_MEMORY);
    CHECK_STR(T, in->path, "memory:bwd");
    CHECK_STR(T, in->components, "ZNERT");
    CHECK(T, in->kind == AXB_DB_RECIPROCAL && in->dump == AXB_DUMP_DISPL_ONLY && in->nvars == 5);
    CHECK(T, in->nelem == AXB_DB_MEMORY_NTHETA * AXB_DB_MEMORY_NRAD && in->npol == 4);
    CHECK(T, in->npoints == (4 * AXB_DB_MEMORY_NTHETA + 1) * (4 * AXB_DB_MEMORY_NRAD + 1));
    CHECK(T, in->ndumps == AXB_DB_MEMORY_NDUMPS && in->dt == 1.0 && in->nfiles == 0);
    CHECK(T, m->has_elements && m->nelem == in->nelem && m->npoints == in->npoints);
    /* every stored point lies where the readers' mapping of the element's corners puts it */
    double worst = 0;
    int axis = 0;
    for (int64_t e = 0; e < m->nelem; e++) {
        axb_elem_shape g;
        axb_sem_shape(m, e, &g);
        axis += m->axis[e];
        const double *xi = m->axis[e] ? m->glj : m->gll;
        for (int j = 0; j < 5; j++)
            for (int i = 0; i < 5; i++) {
                double s, z;
                axb_sem_map(&g, xi[i], m->gll[j], &s, &z);
                const int32_t p = m->sem[(e * 5 + j) * 5 + i];
                worst = fmax(worst, hypot(s - m->s[p], z - m->z[p]));
            }
    }
    CHECK_MSG(T, worst < 1.0, "GLL points %.3f m from the mapping", worst);
    CHECK(T, axis == AXB_DB_MEMORY_NRAD);
    const double *stf = axb_db_get_stf(db), *stf_d = axb_db_get_stf_d(db);
    CHECK(T, stf[0] >= 0 && fabs(stf[in->ndumps - 1] - in->amplitude) < 1e-6 * in->amplitude);
    CHECK(T, stf_d[in->src_shift_samples] > stf_d[0]);
}

/* Each rank asks for its share in reverse order plus a repeat; every value must be the closed
 * form at the point's stored coordinates. */
static void check_reads(check_ctx *T, axb_db *db, axb_io_mode mode, int rank, int size)
{
    const axb_db_info *in = axb_db_get_info(db);
    const axb_mesh *m = axb_db_get_mesh(db);
    int64_t req[64], n = 0;
    for (int64_t e = in->nelem - 1; e >= 0; e--)
        if (e % size == rank) req[n++] = e;
    req[n] = req[0];
    n++;
    const int64_t bf = axb_db_block_floats(db), nt = in->ndumps;
    float *out = malloc((size_t)(n * bf) * sizeof *out);
    axb_error err = AXB_ERROR_INIT;
    CHECK_MSG(T, axb_db_read_elements(db, n, req, mode, out, &err) == AXB_OK, "%s", err.msg);
    int64_t exact_bad = 0;
    double rel = 0;
    for (int64_t k = 0; k < n; k++)
        for (int sim = 0; sim < AXB_NSIM; sim++)
            for (int c = 0; c < in->ncomp[sim]; c++)
                for (int i = 0; i < 5; i++)
                    for (int j = 0; j < 5; j++) {
                        const int32_t p = m->sem[(req[k] * 5 + j) * 5 + i];
                        const float *x = out + k * bf + (((in->var_offset[sim] + c) * 5 + i) * 5 + j) * nt;
                        for (int64_t t = 0; t < nt; t++) {
                            const double v = axb_db_memory_value(in, (axb_sim)sim, c, m->s[p], m->z[p], t);
                            exact_bad += x[t] != (float)v;
                            rel = fmax(rel, fabs(x[t] - formula(in, sim, c, m->s[p], m->z[p], t)) / 1e-8);
                        }
                    }
    CHECK_MSG(T, exact_bad == 0, "%lld values differ from axb_db_memory_value", (long long)exact_bad);
    CHECK_MSG(T, rel < 1e-6, "closed form off by %g of the scale", rel);
    free(out);
}

/* Rows of an extraction job over all ranks vs the same pairs on this rank alone. */
static void check_job(check_ctx *T, const char *dir)
{
    enum { NS = 3, NR = 4 };
    axb_source src[NS];
    axb_receiver rec[NR];
    const double depth[NS] = {50e3, 300e3, 700e3};
    for (int k = 0; k < NS; k++)
        src[k] = (axb_source){.type = AXB_SRC_MOMENT,
                              .lat = 10.0 * k,
                              .lon = 5.0,
                              .depth = depth[k],
                              .m = {1e18, -0.5e18, -0.5e18, 2e17, -3e17, 1e17},
                              .time_shift = NAN};
    for (int r = 0; r < NR; r++) rec[r] = (axb_receiver){.lat = 3.0 * r - 4.0, .lon = 12.0 + 4.0 * r, .depth = NAN};
    int64_t rs[NS * NR], rr[NS * NR];
    axb_pair_ref pairs[NS * NR];
    for (int k = 0; k < NS * NR; k++) {
        rs[k] = k / NR;
        rr[k] = k % NR;
        pairs[k] = (axb_pair_ref){&src[rs[k]], &rec[rr[k]]};
    }
    char out[900];
    snprintf(out, sizeof out, "%s/job.h5", dir);
    axb_extract_job job = {.db_path = "memory:bwd",
                           .opts = AXB_EXTRACT_OPTS_DEFAULT,
                           .nrows = NS * NR,
                           .sources = src,
                           .nsources = NS,
                           .receivers = rec,
                           .nreceivers = NR,
                           .row_source = rs,
                           .row_receiver = rr,
                           .output = out,
                           .format = AXB_OUT_BULK,
                           .precision = AXB_FLOAT64};
    snprintf(job.opts.components, sizeof job.opts.components, "ZNE");
    axb_extract_job_result res;
    axb_error err = AXB_ERROR_INIT;
    axb_status st = axb_extract_job_run(MPI_COMM_WORLD, &job, NULL, &res, &err);
    CHECK_MSG(T, st == AXB_OK, "job: %s", err.msg);
    if (st || T->rank != 0) return;
    /* the time per stage: every stage this job has was timed, and their sum does not pass the
     * job's clock (a stage counted twice, or a lap across two stages, makes `other` negative) */
    const axb_extract_times *tm = &res.times;
    const double stage[] = {tm->open, tm->locate, tm->read, tm->compute, tm->write, tm->close, tm->other};
    double sum = 0;
    for (int k = 0; k < 7; k++) {
        CHECK_MSG(T, isfinite(stage[k]) && stage[k] >= 0, "stage %d: %g s", k, stage[k]);
        sum += stage[k];
    }
    CHECK_MSG(T, tm->open > 0 && tm->locate > 0 && tm->read > 0 && tm->compute > 0 && tm->write > 0 && tm->close > 0,
              "a stage of the job untimed: open %g, locate %g, read %g, compute %g, write %g, close %g", tm->open,
              tm->locate, tm->read, tm->compute, tm->write, tm->close);
    CHECK_MSG(T, fabs(sum - res.seconds) <= 1e-6 * (1 + res.seconds), "stages add up to %.9f s, the job took %.9f s",
              sum, res.seconds);

    axb_db *db = NULL;
    axb_extract_plan *p = NULL;
    CHECK_MSG(T, axb_db_open(MPI_COMM_SELF, "memory:bwd", &db, &err) == AXB_OK, "%s", err.msg);
    CHECK_MSG(T, axb_extract_plan_create(db, &job.opts, &p, &err) == AXB_OK, "%s", err.msg);
    const int64_t npts = axb_extract_npts(p), n = NS * NR * 3 * npts;
    double *ref = malloc((size_t)n * sizeof *ref), *got = malloc((size_t)n * sizeof *got);
    CHECK_MSG(T, axb_extract_pairs(p, NS * NR, pairs, ref, &err) == AXB_OK, "%s", err.msg);
    axb_extract_plan_destroy(&p);
    axb_db_close(&db);

    hid_t f = H5Fopen(out, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d = f >= 0 ? H5Dopen2(f, "/seismograms", H5P_DEFAULT) : -1;
    hid_t s = d >= 0 ? H5Dget_space(d) : -1;
    hsize_t dims[3] = {0, 0, 0};
    if (s >= 0) H5Sget_simple_extent_dims(s, dims, NULL);
    CHECK(T, dims[0] == NS * NR && dims[1] == 3 && (int64_t)dims[2] == npts);
    if (dims[0] * dims[1] * dims[2] == (hsize_t)n)
        CHECK(T, H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, got) >= 0);
    if (s >= 0) H5Sclose(s);
    if (d >= 0) H5Dclose(d);
    if (f >= 0) H5Fclose(f);
    int64_t diff = 0;
    double pk = 0;
    for (int64_t k = 0; k < n; k++) {
        diff += memcmp(&got[k], &ref[k], sizeof got[k]) != 0;
        pk = fmax(pk, fabs(ref[k]));
    }
    CHECK_MSG(T, diff == 0, "%lld samples differ from the one-rank computation", (long long)diff);
    CHECK_MSG(T, pk > 0 && isfinite(pk), "peak %g", pk);
    free(ref);
    free(got);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    check_ctx T = {0, 0, 0};
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(&T, strcmp(axb_version(), AXB_VERSION_STRING) == 0);
    axb_error err = AXB_ERROR_INIT;
    axb_db *db = NULL;
    axb_status st = axb_db_open(MPI_COMM_WORLD, "memory:bwd", &db, &err);
    CHECK_MSG(&T, st == AXB_OK, "%s", err.msg);
    if (st) return test_finish_mpi(&T);
    check_description(&T, db);
    check_reads(&T, db, AXB_IO_COLLECTIVE, T.rank, size);
    check_reads(&T, db, AXB_IO_INDEPENDENT, T.rank, size);
    /* an element that does not exist, asked for by the last rank only: every rank fails */
    int64_t bad = T.rank == size - 1 ? axb_db_get_info(db)->nelem : 0;
    float *tmp = malloc((size_t)axb_db_block_floats(db) * sizeof *tmp);
    st = axb_db_read_elements(db, 1, &bad, AXB_IO_COLLECTIVE, tmp, &err);
    CHECK(&T, st == (T.rank == size - 1 ? AXB_ERR_RANGE : AXB_ERR_REMOTE));
    free(tmp);
    int64_t zero = 0;
    float one;
    CHECK(&T, axb_db_read_points(db, 1, &zero, AXB_IO_INDEPENDENT, &one, &err) == AXB_ERR_UNSUPPORTED);
    axb_db_close(&db);
    CHECK(&T, db == NULL);

    /* the explicit open function; the other kinds describe themselves */
    const char *names[3] = {"pz", "px", "fwd"}, *comps[3] = {"Z", "NERT", "ZNERT"};
    for (int k = 0; k < 3; k++) {
        st = axb_db_open_memory(MPI_COMM_WORLD, names[k], &db, &err);
        CHECK_MSG(&T, st == AXB_OK, "%s: %s", names[k], err.msg);
        if (st) continue;
        CHECK_STR(&T, axb_db_get_info(db)->components, comps[k]);
        CHECK(&T, (axb_db_get_info(db)->kind == AXB_DB_FORWARD) == (k == 2));
        axb_db_close(&db);
    }
    axb_error_clear(&err);
    st = axb_db_open(MPI_COMM_WORLD, "memory:nope", &db, &err);
    CHECK(&T, db == NULL && st == (T.rank == 0 ? AXB_ERR_ARG : AXB_ERR_REMOTE));
    CHECK_CONTAINS(&T, err.msg, "memory database 'nope': expected memory:bwd");

    char dir[512];
    if (test_scratch_dir(MPI_COMM_WORLD, "memdb", dir, sizeof dir) == 0) {
        check_job(&T, dir);
        test_remove_dir(MPI_COMM_WORLD, dir);
    } else {
        CHECK(&T, !"scratch directory");
    }
    return test_finish_mpi(&T);
}
