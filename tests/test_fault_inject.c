/* One rank fails at every step of mkdb, repack and extract in turn (support/fault_inject.h): the
 * n-th MPI, HDF5 or netCDF call libaxibulk makes on that rank reports failure after it ran, for
 * every n of a small job's run and for each rank. Every such run must end on every rank within
 * seconds (an alarm turns a hang into a failure), with one error line over all ranks, the same
 * non-zero exit status everywhere, no output under its final name, and no HDF5 object left
 * open. Needs no shared data: the database is made by mkdb. */
#include <execinfo.h>
#include <ftw.h>
#include <hdf5.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axibulk/cli.h"
#include "check.h"
#include "support/fault_inject.h"

/* what the alarm reports: the step and call a hang happened in (test-program state) */
static char current[200];
static int current_rank;

static void on_alarm(int sig)
{
    (void)sig;
    static const char hang[] = "test_fault_inject: hang (10 s) in ";
    const char *fired = fault_fired();
    sleep((unsigned)current_rank); /* one rank's report after the other's */
    if (write(2, hang, sizeof hang - 1) < 0 || write(2, current, strlen(current)) < 0) _exit(3);
    if (fired && (write(2, ", failed call ", 14) < 0 || write(2, fired, strlen(fired)) < 0)) _exit(3);
    if (write(2, "\n", 1) < 0) _exit(3);
    void *frames[32];
    backtrace_symbols_fd(frames, backtrace(frames, 32), 2);
    _exit(3);
}

typedef struct run_result {
    int rc;
    int lines; /* error lines written by this rank (progress lines aside) */
    char text[4096];
} run_result;

static run_result run_cli(const char *const *args)
{
    char *argv[48];
    int argc = 0;
    argv[argc++] = "axibulk";
    for (; args[argc - 1] && argc < 47; argc++) argv[argc] = (char *)args[argc - 1];
    argv[argc] = NULL;
    FILE *devnull = fopen("/dev/null", "w");
    FILE *errf = tmpfile();
    run_result r = {0, 0, ""};
    r.rc = axb_cli_run(argc, argv, MPI_COMM_WORLD, devnull, errf);
    fclose(devnull);
    rewind(errf);
    size_t n = fread(r.text, 1, sizeof r.text - 1, errf);
    r.text[n] = '\0';
    fclose(errf);
    for (const char *p = r.text; (p = strstr(p, "axibulk")); p++)
        if ((p == r.text || p[-1] == '\n') && strstr(p, ": error") < strchr(p, '\n') && strstr(p, ": error")) r.lines++;
    return r;
}

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path) == 0 ? 0 : -1;
}

/* @p path and @p path.partial, whatever they are (no shell: thousands of runs) */
static void remove_tree(const char *path)
{
    char partial[1100];
    snprintf(partial, sizeof partial, "%s.partial", path);
    const char *both[2] = {path, partial};
    for (int k = 0; k < 2; k++) {
        struct stat sb;
        if (lstat(both[k], &sb) != 0) continue;
        if (nftw(both[k], remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
            fprintf(stderr, "could not remove %s\n", both[k]);
    }
}

typedef struct step {
    const char *name;
    const char *args[24];
    const char *output; /* what a successful run leaves (removed between runs) */
} step;

/* Runs @p s once clean (it must succeed) and then once per counted call of each rank with that
 * call failing. Returns the number of injected runs. */
static long sweep(check_ctx *T, const step *s, int rank, int size, long stride)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) remove_tree(s->output);
    MPI_Barrier(MPI_COMM_WORLD);
    fault_arm(0);
    run_result clean = run_cli(s->args);
    CHECK_MSG(T, clean.rc == 0, "%s: the run without a fault failed: %s", s->name, clean.text);
    long calls = fault_calls();
    CHECK_MSG(T, calls > 0, "%s: no calls counted (are the symbols exported?)", s->name);
    long runs = 0;
    for (int victim = 0; victim < size; victim++) {
        long n_max = calls;
        MPI_Bcast(&n_max, 1, MPI_LONG, victim, MPI_COMM_WORLD);
        for (long n = 1; n <= n_max; n += stride) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0) remove_tree(s->output);
            MPI_Barrier(MPI_COMM_WORLD);
            fault_arm(rank == victim ? n : 0);
            snprintf(current, sizeof current, "%s, call %ld of rank %d (this is rank %d)", s->name, n, victim, rank);
            alarm(10); /* a hang ends the test, and mpiexec ends the other ranks */
            run_result r = run_cli(s->args);
            alarm(0);
            const char *fired = fault_fired();
            int fired_any = fired != NULL, rc_min = r.rc, rc_max = r.rc, lines = r.lines;
            MPI_Allreduce(MPI_IN_PLACE, &fired_any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            MPI_Allreduce(MPI_IN_PLACE, &rc_min, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            MPI_Allreduce(MPI_IN_PLACE, &rc_max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            MPI_Allreduce(MPI_IN_PLACE, &lines, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            ssize_t open_objects = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
            CHECK_MSG(T, open_objects == 0, "%s: %zd HDF5 objects left open after a fault in call %ld (%s) of rank %d",
                      s->name, open_objects, n, fired ? fired : "-", victim);
            if (!fired_any) continue; /* this run made fewer calls: nothing failed */
            runs++;
            char what[160];
            snprintf(what, sizeof what, "%s, call %ld of rank %d (%s)", s->name, n, victim, fired ? fired : "remote");
            CHECK_MSG(T, rc_min == rc_max, "%s: exit status differs between ranks (%d, %d)", what, rc_min, rc_max);
            if (rank == victim && r.rc == 0) {
                /* a failure the library may ignore (closing what it only read, say) must leave a
                 * complete output; anything else must fail */
                CHECK_MSG(T, exists(s->output), "%s: exit 0 without the output", what);
            } else if (rc_max != 0) {
                CHECK_MSG(T, lines == 1, "%s: %d error lines (want 1); this rank: %s", what, lines, r.text);
                CHECK_MSG(T, !exists(s->output), "%s: failed but left %s", what, s->output);
            }
        }
    }
    if (rank == 0) printf("%s: %ld calls on rank 0, %ld runs with a fault\n", s->name, calls, runs);
    return runs;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    signal(SIGALRM, on_alarm);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    current_rank = rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_ctx T = {0, 0, rank};
    const char *inputs = argc > 1 ? argv[1] : "inputs";
    /* every call in the release build; every stride-th in the slower sanitizer build */
    const long stride = argc > 2 ? atol(argv[2]) : 1;
    if (stride < 1) MPI_Abort(MPI_COMM_WORLD, 2);

    char dir[256] = "/tmp/axb_fault_XXXXXX";
    if (rank == 0 && !mkdtemp(dir)) dir[0] = '\0';
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!dir[0]) {
        fprintf(stderr, "no temporary folder\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char db[300], merged[300], merged_file[340], bulk[300], asdf[300], cmt[512], sta[512];
    snprintf(db, sizeof db, "%s/db", dir);
    snprintf(merged, sizeof merged, "%s/merged", dir);
    snprintf(merged_file, sizeof merged_file, "%s/merged_output.nc4", merged);
    snprintf(bulk, sizeof bulk, "%s/out.h5", dir);
    snprintf(asdf, sizeof asdf, "%s/out.asdf.h5", dir);
    snprintf(cmt, sizeof cmt, "%s/CMTSOLUTION", inputs);
    snprintf(sta, sizeof sta, "%s/STATIONS", dir);
    /* two stations: every ASDF trace's creation is a step, and two show the pattern */
    if (rank == 0) {
        FILE *f = fopen(sta, "w");
        if (!f || fputs("ANMO IU 34.9459 -106.4572 1850.0 0.0\nKONO IU 59.6491 9.5982 216.0 0.0\n", f) < 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    const step mkdb = {"mkdb",
                       {"mkdb", "-o", db, "--period", "100", "--length", "300", "--rmin-km", "5800",
                        "--points-per-wavelength", "6", NULL},
                       db};
    sweep(&T, &mkdb, rank, size, stride);
    /* the later steps read the database a fault-free mkdb writes */
    if (rank == 0) remove_tree(db);
    MPI_Barrier(MPI_COMM_WORLD);
    fault_arm(0);
    run_result made = run_cli(mkdb.args);
    CHECK_MSG(&T, made.rc == 0, "mkdb: %s", made.text);

    const step repack = {"repack", {"repack", db, merged, "--threads", "1", NULL}, merged_file};
    const step repack_deflate = {
        "repack --deflate", {"repack", db, merged, "--deflate", "1", "--threads", "1", NULL}, merged_file};
    /* two threads: rank 0 stores its chunks while its worker still compresses them. Every 5th
     * call only (4 threads on the 2 cores took 30 s for all); the calls are the one-thread
     * sweep's, and its runs of chunk writes and receives are long enough to be hit */
    const step repack_deflate_threads = {"repack --deflate (two threads)",
                                         {"repack", db, merged, "--deflate", "1", "--threads", "2", NULL},
                                         merged_file};
    sweep(&T, &repack_deflate, rank, size, stride);
    sweep(&T, &repack_deflate_threads, rank, size, 5 * stride);
    sweep(&T, &repack, rank, size, stride);
    if (rank == 0) remove_tree(merged_file);
    MPI_Barrier(MPI_COMM_WORLD);
    fault_arm(0);
    made = run_cli(repack.args);
    CHECK_MSG(&T, made.rc == 0, "repack: %s", made.text);

    /* checkpoints after every batch (the flush and record after writes and syncs) in two steps,
     * at the default interval (the vote on whether one is due) in the third */
    const step bulk_orig = {"extract bulk (original layout)",
                            {"extract", "--db", db, "--cmt", cmt, "--stations", sta, "-o", bulk, "--threads", "1",
                             "--checkpoint", "0", "-q", NULL},
                            bulk};
    const step bulk_merged = {
        "extract bulk (merged layout)",
        {"extract", "--db", merged, "--cmt", cmt, "--stations", sta, "-o", bulk, "--threads", "1", "-q", NULL},
        bulk};
    /* two threads per rank: the next batch is read (collectively) while the workers compute */
    const step bulk_threads = {"extract bulk (merged layout, two threads)",
                               {"extract", "--db", merged, "--cmt", cmt, "--stations", sta, "-o", bulk, "--threads",
                                "2", "--checkpoint", "0", "-q", NULL},
                               bulk};
    const step asdf_step = {"extract asdf",
                            {"extract", "--db", merged, "--cmt", cmt, "--stations", sta, "-o", asdf, "--format", "asdf",
                             "--threads", "1", "--checkpoint", "0", "-q", NULL},
                            asdf};
    sweep(&T, &bulk_orig, rank, size, stride);
    sweep(&T, &bulk_merged, rank, size, stride);
    sweep(&T, &bulk_threads, rank, size, stride);
    sweep(&T, &asdf_step, rank, size, stride);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) remove_tree(dir);
    int rc = check_summary(&T);
    MPI_Finalize();
    return rc;
}
