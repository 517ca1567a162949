/* Seismograms computed in-process with libaxibulk: open a database, make an extraction plan,
 * compute three source-receiver pairs, print their peaks.
 *
 *   mpirun -n 2 ./extract_inprocess [DATABASE]
 *
 * Without DATABASE the program first writes a small analytic one with the mkdb API
 * (axb_mkdb_run: a homogeneous full space, reciprocal, 100 s period) into extract_inprocess_db/
 * under the current folder. "memory:bwd" names the library's in-memory test database.
 *
 * Build: find_package(axibulk) + target_link_libraries(... axibulk::axibulk) (CMakeLists.txt
 * beside this file), or  cc extract_inprocess.c $(pkg-config --cflags --libs axibulk).
 * Exit status 0 when every seismogram is finite and not zero. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <axibulk/axibulk.h>

/* Collective: every rank writes its share of the database's points. */
static axb_status make_database(const char *dir, axb_error *err)
{
    axb_mkdb_opts o;
    axb_mkdb_defaults(&o);
    o.dir = dir;
    o.kind = AXB_DB_RECIPROCAL;
    o.period = 100.0;
    o.length = 1100.0;
    o.rmin_km = 5800.0;
    o.points_per_wavelength = 6.0;
    o.force = true;
    axb_mkdb_result res;
    return axb_mkdb_run(MPI_COMM_WORLD, &o, NULL, &res, err);
}

/* Each rank makes its own plan over the shared database and computes the pairs it is given; here
 * rank 0 computes all of them (a whole job over many ranks is axb_extract_job_run). */
static axb_status extract(axb_db *db, int rank, int *bad, axb_error *err)
{
    axb_extract_opts opts = AXB_EXTRACT_OPTS_DEFAULT;
    snprintf(opts.components, sizeof opts.components, "ZNE");
    axb_extract_plan *plan = NULL;
    AXB_TRY(axb_extract_plan_create(db, &opts, &plan, err));
    const axb_source src = {.type = AXB_SRC_MOMENT,
                            .lat = 0.0,
                            .lon = 0.0,
                            .depth = 20e3,
                            .m = {1e18, -0.5e18, -0.5e18, 0, 2e17, 0},
                            .time_shift = NAN};
    const axb_receiver rec[3] = {{.lat = 5, .lon = 5, .depth = NAN},
                                 {.lat = -10, .lon = 12, .depth = NAN},
                                 {.lat = 20, .lon = -3, .depth = NAN}};
    const axb_pair_ref pairs[3] = {{&src, &rec[0]}, {&src, &rec[1]}, {&src, &rec[2]}};
    const int nc = axb_extract_ncomp(plan);
    const int64_t npts = axb_extract_npts(plan);
    double *out = malloc((size_t)(3 * nc * npts) * sizeof *out);
    axb_status st = out ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "seismograms");
    if (!st && rank == 0) st = axb_extract_pairs(plan, 3, pairs, out, err);
    if (!st && rank == 0) {
        printf("%d pairs x %d components x %lld samples, dt %.2f s\n", 3, nc, (long long)npts, axb_extract_dt(plan));
        for (int k = 0; k < 3; k++)
            for (int c = 0; c < nc; c++) {
                double peak = 0;
                for (int64_t t = 0; t < npts; t++) peak = fmax(peak, fabs(out[(k * nc + c) * npts + t]));
                printf("pair %d %c: peak %.6e m\n", k, axb_extract_components(plan)[c], peak);
                *bad += !(isfinite(peak) && peak > 0);
            }
    }
    free(out);
    axb_extract_plan_destroy(&plan);
    return st;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) printf("axibulk %s (headers %s)\n", axb_version(), AXB_VERSION_STRING);
    axb_error err = AXB_ERROR_INIT;
    const char *path = argc > 1 ? argv[1] : "extract_inprocess_db";
    axb_status st = argc > 1 ? AXB_OK : make_database(path, &err);
    axb_db *db = NULL;
    if (!st) st = axb_db_open(MPI_COMM_WORLD, path, &db, &err);
    int bad = 0;
    if (!st) st = extract(db, rank, &bad, &err);
    axb_db_close(&db);
    /* only the rank that saw the cause prints it; the others carry AXB_ERR_REMOTE */
    if (st && st != AXB_ERR_REMOTE) fprintf(stderr, "extract_inprocess: %s\n", err.msg);
    MPI_Finalize();
    return st || bad ? 1 : 0;
}
