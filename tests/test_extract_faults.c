/* Finite faults meet the database (issue #19), through the command in-process on the shared 100 s
 * PREM database (dt 24.7 s):
 *  - a slip-rate pulse shorter than dt keeps its moment: the 4-sample, 15 s pulse of
 *    docs/file-formats.md used to be read at 0 and 24.7 s as two zeros, a zero seismogram. Delayed
 *    by zeros so that the whole pulse falls in the database sample at 24.7 s, it must give the
 *    same seismograms as an independent reference: the same subfault with a slip rate that is one
 *    sample of unit area at 24.7 s (0, 1, 0 at the database's dt) - equal to rounding;
 *  - the example itself (TINIT 0) gives finite, non-zero seismograms;
 *  - a rupture time at or past the reconvolution's period nfft·dt (which would wrap around to
 *    the start) is refused with one line naming the subfault and that length.
 * argv[1]: the shared data directory; skipped (77) without it. */
#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "axibulk/cli.h"
#include "axibulk/db.h"
#include "check.h"
#include "test_util.h"

/* /seismograms as float64 [rows][comps][npts]; the number of values or -1 */
static int64_t read_bulk(const char *path, double **out)
{
    *out = NULL;
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return -1;
    hid_t d = H5Dopen2(f, "/seismograms", H5P_DEFAULT);
    hid_t s = H5Dget_space(d);
    hsize_t hd[3] = {0, 0, 0};
    H5Sget_simple_extent_dims(s, hd, NULL);
    int64_t n = (int64_t)(hd[0] * hd[1] * hd[2]);
    *out = malloc((size_t)n * sizeof **out);
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out);
    H5Sclose(s);
    H5Dclose(d);
    H5Fclose(f);
    return n;
}

/* One SRF point at 30 km depth under (0, 0): strike 90, dip 90, rake 0, AREA 1e14 cm², SLIP 10
 * cm (M0 3.2e19 N·m), rupture time @p tinit, slip rate @p values at @p dt. */
static void write_srf(int rank, const char *path, double tinit, double dt, int nt, const char *values)
{
    char text[1024];
    snprintf(text, sizeof text, "1.0\nPOINTS 1\n0.0 0.0 30.0 90.0 90.0 1e14 %.17g %.17g\n0.0 10.0 %d 0.0 0 0.0 0\n%s\n",
             tinit, dt, nt, values);
    test_write_text(rank, path, text);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    check_ctx T = {0, 0, 0};
    MPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
    const char *data = argc > 1 ? argv[1] : "../shared/data";
    char db_path[1024];
    snprintf(db_path, sizeof db_path, "%s/axisem-prem-100s/100s_db_bwd_displ_only", data);
    struct stat sb;
    if (stat(db_path, &sb) != 0) {
        if (T.rank == 0) printf("shared data not found at %s: skipped\n", data);
        MPI_Finalize();
        return CHECK_SKIP;
    }
    axb_error err = AXB_ERROR_INIT;
    axb_db *db = NULL;
    if (axb_db_open(MPI_COMM_WORLD, db_path, &db, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const double dt = axb_db_get_info(db)->dt;
    const int64_t ndumps = axb_db_get_info(db)->ndumps;
    axb_db_close(&db);

    char dir[512], sta[1024], srf[1024], ref[1024], o1[1024], o2[1024], msg[2048];
    if (test_scratch_dir(MPI_COMM_WORLD, "xflt", dir, sizeof dir)) MPI_Abort(MPI_COMM_WORLD, 1);
    snprintf(sta, sizeof sta, "%s/STATIONS", dir);
    test_write_text(T.rank, sta, "FAR XX 20.0 30.0 0.0 0.0\n");
    snprintf(srf, sizeof srf, "%s/short.srf", dir);
    snprintf(ref, sizeof ref, "%s/ref.srf", dir);
    snprintf(o1, sizeof o1, "%s/short.h5", dir);
    snprintf(o2, sizeof o2, "%s/ref.h5", dir);

    /* 1. the 15 s pulse of the example after 15 s of zeros, so it lies within the database sample
     *    at dt ([dt/2, 3dt/2] = [12.4, 37.1] s), vs one unit-area sample at dt. (Point values at
     *    0, dt, 2dt gave 0, 0.1, 0: 2.47 times the moment.) */
    write_srf(T.rank, srf, 0.0, 5.0, 7, "0 0 0 0 0.1 0.1 0");
    write_srf(T.rank, ref, 0.0, dt, 3, "0 1 0");
    const char *a1[] = {"extract", "--db",         db_path, "--finite", srf, "--stations",
                        sta,       "--components", "ZNE",   "-o",       o1,  "-q"};
    const char *a2[] = {"extract", "--db",         db_path, "--finite", ref, "--stations",
                        sta,       "--components", "ZNE",   "-o",       o2,  "-q"};
    CHECK(&T, test_cli_capture(a1, 12, msg, sizeof msg) == 0);
    CHECK(&T, test_cli_capture(a2, 12, msg, sizeof msg) == 0);
    if (T.rank == 0) {
        double *x, *y;
        int64_t nx = read_bulk(o1, &x), ny = read_bulk(o2, &y);
        CHECK(&T, nx > 0 && nx == ny);
        double peak = 0, diff = 0;
        for (int64_t i = 0; nx > 0 && nx == ny && i < nx; i++) {
            peak = fmax(peak, fabs(y[i]));
            diff = fmax(diff, fabs(x[i] - y[i]));
        }
        CHECK_MSG(&T, peak > 0 && diff <= 1e-9 * peak, "short pulse vs one sample: max diff %g of peak %g", diff, peak);
        free(x);
        free(y);
    }

    /* 2. the example of docs/file-formats.md as written (TINIT 0): finite and not zero */
    write_srf(T.rank, srf, 0.0, 5.0, 4, "0.0 0.1 0.1 0.0");
    const char *a3[] = {"extract",      "--db", db_path, "--finite", srf,  "--stations", sta,
                        "--components", "ZNE",  "-o",    o1,         "-q", "--force"};
    CHECK(&T, test_cli_capture(a3, 13, msg, sizeof msg) == 0);
    if (T.rank == 0) {
        double *x;
        int64_t n = read_bulk(o1, &x);
        double peak = 0;
        int64_t bad = 0;
        for (int64_t i = 0; i < n; i++) {
            bad += !isfinite(x[i]);
            peak = fmax(peak, fabs(x[i]));
        }
        CHECK_MSG(&T, n > 0 && bad == 0 && peak > 0, "%lld values, %lld not finite, peak %g", (long long)n,
                  (long long)bad, peak);
        free(x);
    }

    /* 3. a rupture time past the reconvolution's period: refused, one line, naming the subfault and
     *    the length (nfft = 2 next_pow_2(ndumps), ObsPy's rule) */
    int64_t nfft = 1;
    while (nfft < ndumps) nfft *= 2;
    nfft *= 2;
    char want[256];
    write_srf(T.rank, srf, (double)nfft * dt, 5.0, 4, "0.0 0.1 0.1 0.0");
    CHECK(&T, test_cli_capture(a3, 13, msg, sizeof msg) == AXB_EXIT_INPUT);
    snprintf(want, sizeof want,
             "'point_000001': rupture time %g s is not shorter than the database's record length %g s",
             (double)nfft * dt, (double)nfft * dt);
    if (T.rank == 0) {
        CHECK_CONTAINS(&T, msg, want);
        CHECK_CONTAINS(&T, msg, "subfault 0");
        CHECK_MSG(&T, strchr(msg, '\n') == strrchr(msg, '\n'), "more than one line: %s", msg);
    }
    test_remove_dir(MPI_COMM_WORLD, dir);
    return test_finish_mpi(&T);
}
