/* The refusals of Instaseis' sanity checks (notes §2.2) on synthetic databases, so they are
 * tested without shared data: an epicentral distance outside the database's range, source or
 * receiver depths outside its radii, components the database lacks, forces where they cannot be
 * served, a dt larger than the database's, non-finite positions, and the exit status of the
 * command. Each failure must be one line naming the problem, on every rank. */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>

#include "axibulk/cli.h"
#include "axibulk/extract.h"
#include "check.h"
#include "support/minidb.h"
#include "test_util.h"

static axb_status try_pair(const char *dir, const char *comps, double dt, const axb_source *s, const axb_receiver *r,
                           axb_error *err)
{
    axb_db *db = NULL;
    axb_extract_plan *p = NULL;
    axb_extract_opts o = AXB_EXTRACT_OPTS_DEFAULT;
    snprintf(o.components, sizeof o.components, "%s", comps);
    o.dt = dt;
    double out[5 * 64];
    axb_status st = axb_db_open(MPI_COMM_SELF, dir, &db, err);
    if (!st) st = axb_extract_plan_create(db, &o, &p, err);
    if (!st) {
        axb_pair_ref pr = {s, r};
        st = axb_extract_pairs(p, 1, &pr, out, err);
    }
    axb_extract_plan_destroy(&p);
    axb_db_close(&db);
    return st;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    check_ctx T = {0, 0, 0};
    MPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
    char root[512], bwd[700], pz[700], fwd[700];
    if (test_scratch_dir(MPI_COMM_WORLD, "xerr", root, sizeof root)) MPI_Abort(MPI_COMM_WORLD, 1);
    snprintf(bwd, sizeof bwd, "%s/bwd", root);
    snprintf(pz, sizeof pz, "%s/pz", root);
    snprintf(fwd, sizeof fwd, "%s/fwd", root);
    if (T.rank == 0) {
        /* radii 5000..6371 km, distances 0..30 deg (minidb), dt 2.5 s */
        minidb_opts a = {.px = true, .pz = true, .max_distance = 30};
        minidb_opts b = {.pz = true};
        minidb_opts c = {.forward = true};
        if (minidb_write(bwd, &a) || minidb_write(pz, &b) || minidb_write(fwd, &c)) MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    axb_error err = AXB_ERROR_INIT;
    const axb_source mt = {
        .type = AXB_SRC_MOMENT, .lat = 0, .lon = 0, .depth = 10e3, .m = {1e18, 0, -1e18, 0, 0, 0}, .time_shift = NAN};
    const axb_source force = {
        .type = AXB_SRC_FORCE, .lat = 0, .lon = 0, .depth = 10e3, .f = {1e10, 0, 0}, .time_shift = NAN};
    const axb_receiver far = {.lat = 0, .lon = 40, .depth = NAN};

    CHECK(&T, try_pair(bwd, "Z", 0, &mt, &far, &err) == AXB_ERR_RANGE);
    CHECK_CONTAINS(&T, err.msg, "epicentral distance 40.000 deg is outside the database's 0.0..30.0 deg");
    axb_source deep = mt;
    deep.depth = 2000e3;
    CHECK(&T, try_pair(bwd, "Z", 0, &deep, &far, &err) == AXB_ERR_RANGE);
    CHECK_CONTAINS(
        &T, err.msg,
        "source too deep: depth 2000.0 km puts it at radius 4371.0 km; the database covers radii 5000.0 to 6371.0 km");
    axb_source high = mt;
    high.depth = -1;
    CHECK(&T, try_pair(bwd, "Z", 0, &high, &far, &err) == AXB_ERR_RANGE);
    CHECK_CONTAINS(&T, err.msg, "source too shallow");
    /* a station's burial is metadata within 1 km of the database's receiver depth (the pair then
     * fails only later, on its distance), refused beyond */
    axb_receiver bore = far;
    bore.has_site = true;
    bore.burial = 145.5;
    snprintf(bore.network, sizeof bore.network, "IU");
    snprintf(bore.station, sizeof bore.station, "DEEP");
    CHECK(&T, try_pair(bwd, "Z", 0, &mt, &bore, &err) == AXB_ERR_RANGE);
    CHECK_CONTAINS(&T, err.msg, "epicentral distance 40.000 deg");
    bore.burial = 500e3;
    CHECK(&T, try_pair(bwd, "Z", 0, &mt, &bore, &err) == AXB_ERR_UNSUPPORTED);
    CHECK_CONTAINS(&T, err.msg, "receiver is at 0.0 km depth; station IU.DEEP is buried 500.0 km deep");
    axb_receiver buried = far;
    buried.depth = 1500e3;
    axb_source at_db = mt; /* the forward database's own source depth */
    at_db.depth = 25e3;
    CHECK(&T, try_pair(fwd, "Z", 0, &at_db, &buried, &err) == AXB_ERR_RANGE);
    CHECK_CONTAINS(&T, err.msg, "receiver too deep");
    /* a source elsewhere would get the database depth's seismogram (issue #19) */
    CHECK(&T, try_pair(fwd, "Z", 0, &mt, &far, &err) == AXB_ERR_UNSUPPORTED);
    CHECK_CONTAINS(&T, err.msg, "the forward database's source is at 25.0 km depth; this source is at 10.0 km");
    CHECK(&T, try_pair(pz, "ZN", 0, &mt, &far, &err) == AXB_ERR_RANGE);
    CHECK_CONTAINS(&T, err.msg, "component N needs the PX simulation");
    CHECK(&T, try_pair(bwd, "ZX", 0, &mt, &far, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(&T, err.msg, "'X' is not one of Z, N, E, R, T");
    CHECK(&T, try_pair(fwd, "Z", 0, &force, &far, &err) == AXB_ERR_UNSUPPORTED);
    CHECK_CONTAINS(&T, err.msg, "forward databases take moment tensors only");
    CHECK(&T, try_pair(bwd, "Z", 5.0, &mt, &far, &err) == AXB_ERR_RANGE);
    CHECK_CONTAINS(&T, err.msg, "sample spacing of 2.500 seconds");
    CHECK(&T, try_pair(bwd, "Z", -1, &mt, &far, &err) != AXB_OK);
    axb_source nan = mt;
    nan.lon = NAN;
    CHECK(&T, try_pair(bwd, "Z", 0, &nan, &far, &err) == AXB_ERR_RANGE);
    CHECK_CONTAINS(&T, err.msg, "source position is not finite");
    axb_receiver pole = {.lat = 91, .lon = 0, .depth = NAN};
    CHECK(&T, try_pair(bwd, "Z", 0, &mt, &pole, &err) == AXB_ERR_RANGE);
    CHECK_CONTAINS(&T, err.msg, "receiver latitude 91 is outside -90..90");

    /* the command: status 2 on every rank, no output file */
    char pairs[700], out[700];
    snprintf(pairs, sizeof pairs, "%s/pairs.txt", root);
    snprintf(out, sizeof out, "%s/o.h5", root);
    test_write_text(T.rank, pairs, "mt 0 0 10000 1e18 0 -1e18 0 0 0  0 40\n");
    const char *av[] = {"extract", "--db", bwd, "--pairs", pairs, "-o", out, "-q"};
    char msg0[1024];
    int rc = test_cli_capture(av, 8, msg0, sizeof msg0);
    CHECK(&T, rc == AXB_EXIT_INPUT);
    CHECK(&T, access(out, 0) != 0);

    /* every refusal comes before the output exists: no .partial in the way of the corrected rerun,
     * and the message names the row's source and receiver (issue #19) */
    char partial[720], good[700], deep_pairs[700];
    snprintf(partial, sizeof partial, "%s.partial", out);
    snprintf(good, sizeof good, "%s/good.txt", root);
    snprintf(deep_pairs, sizeof deep_pairs, "%s/deep.txt", root);
    test_write_text(T.rank, good, "mt 0 0 10000 1e18 0 -1e18 0 0 0  0 20\n");
    test_write_text(T.rank, deep_pairs,
                    "mt 0 0 10000 1e18 0 -1e18 0 0 0  0 20\nmt 0 0 3000000 1e18 0 -1e18 0 0 0  0 20 0 XX.DEEP\n");
    const char *const cases[][4] = {
        {"--pairs", deep_pairs, NULL, NULL},
        {"--pairs", good, "--lowpass", "0"},
        {"--filter-order", "0", "--lowpass", "0.01"},
        {"--pairs", good, "--bandpass", "0.05,0.01"},
        {"--pairs", good, "--loggabor", "100,1.5"},
        {"--pairs", good, "--batch-mb", "1000000000000"},
        {"--pairs", good, "--dt", "0"},
        {"--pairs", good, "--components", ""},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *bv[16] = {"extract", "--db", bwd, "-o", out, "-q"};
        int n = 6;
        if (k == 2) bv[n++] = "--pairs", bv[n++] = good;
        for (int i = 0; i < 4 && cases[k][i]; i++) bv[n++] = cases[k][i];
        if (k == 5) bv[n++] = "--lowpass", bv[n++] = "0.01"; /* a filter that would be fine */
        char msg[1024];
        rc = test_cli_capture(bv, n, msg, sizeof msg);
        int len = (int)strlen(msg), total = 0;
        MPI_Allreduce(&len, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK_MSG(&T, rc == AXB_EXIT_INPUT, "case %zu: exit %d", k, rc);
        CHECK_MSG(&T, access(partial, 0) != 0 && access(out, 0) != 0, "case %zu left an output", k);
        MPI_Barrier(MPI_COMM_WORLD);
        if (T.rank == 0) unlink(out), unlink(partial);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_MSG(&T, total > 0, "case %zu: no message", k);
        if (k == 0 && msg[0])
            CHECK_CONTAINS(&T, msg, "row 1 (source 1 'line_2', receiver 1 'XX.DEEP'): source too deep");
    }
    /* an output folder where no file can be created (a pseudo file system, even as root): the
     * system's own reason, not "unknown HDF5 error" */
    {
        const char *bv[] = {"extract", "--db", bwd, "--pairs", good, "-o", "/proc/axibulk_test.h5", "-q"};
        char msg[1024];
        rc = test_cli_capture(bv, 8, msg, sizeof msg);
        CHECK(&T, rc == AXB_EXIT_INPUT);
        if (T.rank == 0) CHECK_CONTAINS(&T, msg, "/proc/axibulk_test.h5: cannot create a file in '/proc'");
    }

    test_remove_dir(MPI_COMM_WORLD, root);
    return test_finish_mpi(&T);
}
