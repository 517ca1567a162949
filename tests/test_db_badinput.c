/* Every kind of bad database input is refused with a status that says what kind of problem it is
 * and a message naming the file and the problem, on every rank (none hangs, none crashes). The
 * broken databases are made here, from the synthetic writer, then damaged on purpose. */
#include <fcntl.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axibulk/db.h"
#include "check.h"
#include "support/minidb.h"
#include "test_util.h"

typedef enum damage {
    NONE,
    TEXT_FILE,
    EMPTY_FILE,
    TRUNCATE,
    EXTRA_FILE,
    NO_FILES,
    MISSING_DIR,
    DROP_MXY,
    DROP_TWO_FWD,
    FILE_IS_DIR,  /* PZ/Data/ordered_output.nc4 is a folder */
    FILE_LOOP,    /* ... is a symlink to itself */
    FILE_DANGLES, /* ... is a symlink to nothing */
    NO_DATA_DIR   /* PZ/ without Data/ */
} damage;

typedef struct bad_case {
    const char *name;
    minidb_opts o;
    damage d;
    axb_status want;
    const char *msg1, *msg2; /* substrings the message must contain */
} bad_case;

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

static int make_case(const char *dir, const bad_case *c)
{
    char p[1024];
    if (c->d == MISSING_DIR) return 0;
    if (c->d == NO_FILES) return mkdir(dir, 0755);
    if (minidb_write(dir, &c->o)) return -1;
    snprintf(p, sizeof p, "%s/PZ/Data/ordered_output.nc4", dir);
    switch (c->d) {
    case TEXT_FILE: return write_text(p, "netcdf ordered_output {\n dimensions: ...\n");
    case EMPTY_FILE: return write_text(p, "");
    case TRUNCATE: {
        struct stat sb;
        if (stat(p, &sb)) return -1;
        return truncate(p, sb.st_size / 2);
    }
    case EXTRA_FILE: {
        snprintf(p, sizeof p, "%s/PZ/old/Data", dir);
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s/PZ/Data/ordered_output.nc4' '%s/'", p, dir, p);
        return system(cmd);
    }
    case FILE_IS_DIR: return unlink(p) || mkdir(p, 0755);
    case FILE_LOOP: return unlink(p) || symlink("ordered_output.nc4", p);
    case FILE_DANGLES: return unlink(p) || symlink("no_such_file.nc4", p);
    case NO_DATA_DIR: {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "rm -rf '%s/PZ/Data'", dir);
        return system(cmd);
    }
    case DROP_MXY:
    case DROP_TWO_FWD: {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "rm -rf '%s/MXY_MXX_M_MYY'%s%s%s", dir, c->d == DROP_TWO_FWD ? " '" : "",
                 c->d == DROP_TWO_FWD ? dir : "", c->d == DROP_TWO_FWD ? "/MXZ_MYZ'" : "");
        return system(cmd);
    }
    default: return 0;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    check_ctx T = {0, 0, 0};
    MPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
    char root[512];
    if (test_scratch_dir(MPI_COMM_WORLD, "bad", root, sizeof root)) MPI_Abort(MPI_COMM_WORLD, 1);
    const minidb_opts bwd = {.px = true, .pz = true};
    const bad_case cases[] = {
        {"missing_dir", bwd, MISSING_DIR, AXB_ERR_IO, "missing_dir", "No such file or directory"},
        {"no_files", bwd, NO_FILES, AXB_ERR_IO, "no AxiSEM database file", "no_files"},
        {"three_files", bwd, EXTRA_FILE, AXB_ERR_FORMAT, "found 3 database files", "PZ/old/Data"},
        {"text_file", bwd, TEXT_FILE, AXB_ERR_FORMAT, "PZ/Data/ordered_output.nc4", "not an HDF5"},
        {"empty_file", bwd, EMPTY_FILE, AXB_ERR_FORMAT, "PZ/Data/ordered_output.nc4", "file is empty"},
        {"truncated", bwd, TRUNCATE, AXB_ERR_FORMAT, "PZ/Data/ordered_output.nc4", "truncated"},
        {"no_sem_mesh",
         {.px = true, .pz = true, .omit_var = "/Mesh/sem_mesh"},
         NONE,
         AXB_ERR_FORMAT,
         "PX/Data/ordered_output.nc4",
         "variable '/Mesh/sem_mesh': not found"},
        {"no_disp_z",
         {.pz = true, .omit_var = "/Snapshots/disp_z"},
         NONE,
         AXB_ERR_FORMAT,
         "PZ/Data/ordered_output.nc4",
         "'/Snapshots/disp_z': not found"},
        {"no_npol",
         {.pz = true, .omit_attr = "npol"},
         NONE,
         AXB_ERR_FORMAT,
         "ordered_output.nc4",
         "attribute 'npol': not found"},
        {"no_stf",
         {.pz = true, .omit_var = "/Surface/stf_d_dump"},
         NONE,
         AXB_ERR_FORMAT,
         "ordered_output.nc4",
         "no usable source time function"},
        {"version6",
         {.pz = true, .file_version = 6},
         NONE,
         AXB_ERR_UNSUPPORTED,
         "'file version': 6",
         "older than version 7"},
        {"dump_type",
         {.pz = true, .dump_type = "displ_velo"},
         NONE,
         AXB_ERR_UNSUPPORTED,
         "ordered_output.nc4",
         "unknown dump type 'displ_velo'"},
        {"nan_dt",
         {.pz = true, .nan_attr = "strain dump sampling rate in sec"},
         NONE,
         AXB_ERR_FORMAT,
         "'strain dump sampling rate in sec'",
         "not a finite number"},
        {"bad_sem", {.pz = true, .bad_sem = true}, NONE, AXB_ERR_FORMAT, "sem_mesh", "element 1"},
        {"disagree",
         {.px = true, .pz = true, .pz_ndumps = 11},
         NONE,
         AXB_ERR_FORMAT,
         "PZ/Data/ordered_output.nc4",
         "number of samples differs"},
        {"excitation",
         {.px = true, .pz = true, .wrong_excitation = "dipole"},
         NONE,
         AXB_ERR_FORMAT,
         "PZ/Data",
         "a PZ simulation is a monopole"},
        {"fwd_three", {.forward = true}, DROP_MXY, AXB_ERR_FORMAT, "found 3 database files", "MZZ"},
        {"fwd_two", {.forward = true}, DROP_TWO_FWD, AXB_ERR_FORMAT, "needs all four", "MXZ_MYZ"},
        {"merged_strain",
         {.pz = true, .merged = true, .dump_type = "strain_only"},
         NONE,
         AXB_ERR_UNSUPPORTED,
         "merged_output.nc4",
         "displacement only"},
        /* members that cannot be used are refused, not skipped (a PX-only database opened before) */
        {"file_is_dir", bwd, FILE_IS_DIR, AXB_ERR_FORMAT, "PZ/Data/ordered_output.nc4", "not a regular file"},
        {"file_loop", bwd, FILE_LOOP, AXB_ERR_IO, "PZ/Data/ordered_output.nc4", "a symlink loop"},
        {"file_dangles", bwd, FILE_DANGLES, AXB_ERR_IO, "PZ/Data/ordered_output.nc4", "No such file or directory"},
        {"no_data_dir", bwd, NO_DATA_DIR, AXB_ERR_FORMAT, "simulation folder PZ holds no database file",
         "PZ/Data/ordered_output.nc4"},
        {"merged_no_data",
         {.px = true, .pz = true, .merged = true, .omit_var = "/MergedSnapshots"},
         NONE,
         AXB_ERR_FORMAT,
         "merged_output.nc4",
         "'/MergedSnapshots': not found"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const bad_case *c = &cases[k];
        char dir[700];
        snprintf(dir, sizeof dir, "%s/%s", root, c->name);
        int ok = 1;
        if (T.rank == 0) ok = make_case(dir, c) == 0;
        MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
        CHECK_MSG(&T, ok, "could not make case %s", c->name);
        if (!ok) continue;
        axb_db *db = NULL;
        axb_error err = AXB_ERROR_INIT;
        axb_status st = axb_db_open(MPI_COMM_WORLD, dir, &db, &err);
        CHECK_MSG(&T, db == NULL, "%s: opened", c->name);
        if (db) axb_db_close(&db);
        /* rank 0 saw the cause; the others were told, and carry the same text */
        axb_status want = T.rank == 0 ? c->want : AXB_ERR_REMOTE;
        CHECK_MSG(&T, st == want, "%s: status %d (%s), want %d; message: %s", c->name, (int)st, axb_strerror(st),
                  (int)want, err.msg);
        CHECK_CONTAINS(&T, err.msg, c->msg1);
        CHECK_CONTAINS(&T, err.msg, c->msg2);
        CHECK(&T, strchr(err.msg, '\n') == NULL);
        if (T.rank == 0 && getenv("AXB_TEST_VERBOSE")) printf("%-15s %s\n", c->name, err.msg);
    }
    /* a database whose file paths are longer than Open MPI's I/O can open: one line naming the
     * file and the limit (Open MPI aborted with "buffer overflow detected" before) */
    {
        char deep[700];
        int len = snprintf(deep, sizeof deep, "%s/", root);
        while (len < 250) deep[len++] = 'x';
        deep[len] = '\0';
        int ok = 1;
        if (T.rank == 0) ok = minidb_write(deep, &bwd) == 0;
        MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
        CHECK(&T, ok);
        axb_error err = AXB_ERROR_INIT;
        axb_db *db = NULL;
        const axb_status st = axb_db_open(MPI_COMM_WORLD, deep, &db, &err);
        CHECK_MSG(&T, db == NULL, "long path: opened");
        if (db) axb_db_close(&db);
        CHECK_MSG(&T, st == (T.rank == 0 ? AXB_ERR_ARG : AXB_ERR_REMOTE), "long path: status %d: %s", (int)st, err.msg);
        CHECK_CONTAINS(&T, err.msg, "xxx/PX/Data/ordered_output.nc4");
        CHECK_CONTAINS(&T, err.msg, "more than the 238 that Open MPI's I/O can open");
        CHECK(&T, strchr(err.msg, '\n') == NULL);
        if (T.rank == 0 && getenv("AXB_TEST_VERBOSE")) printf("%-15s %s\n", "long_path", err.msg);
    }
    /* an error object left over from a failure must not make the next open fail */
    {
        char good[700];
        snprintf(good, sizeof good, "%s/good", root);
        int ok = 1;
        if (T.rank == 0) ok = minidb_write(good, &bwd) == 0;
        MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
        axb_error err = AXB_ERROR_INIT;
        axb_db *db = NULL;
        CHECK(&T, axb_db_open(MPI_COMM_WORLD, "/nonexistent/db", &db, &err) != AXB_OK);
        CHECK_MSG(&T, ok && axb_db_open(MPI_COMM_WORLD, good, &db, &err) == AXB_OK, "reused error: %s", err.msg);
        axb_db_close(&db);
    }
    test_remove_dir(MPI_COMM_WORLD, root);
    return test_finish_mpi(&T);
}
