/* `axibulk` command dispatch, --help/--version, and the one place where a status becomes a
 * message and an exit code. */
#include <fftw3.h>
#include <hdf5.h>
#include <limits.h>
#include <netcdf.h>
#include <stdio.h>
#include <string.h>

#include "axibulk/cli.h"
#include "core/agree.h"
#include "cli/cli_internal.h"

typedef struct axb_cmd {
    const char *name;
    const char *summary;
    axb_cmd_fn fn;
} axb_cmd;

static const axb_cmd commands[] = {
    {"info", "describe a wavefield database (kind, mesh, sampling, STF, sizes)", axb_cmd_info},
    {"extract", "seismograms for source-receiver pairs, catalogues or finite faults", axb_cmd_extract},
    {"repack", "convert a database to the merged layout (one read per element)", axb_cmd_repack},
    {"kernel", "Born sensitivity kernels on an inversion mesh (a YAML job)", axb_cmd_kernel},
    {"mkdb", "generate an AxiSEM-format database from the analytic full-space solution", axb_cmd_mkdb},
    {NULL, NULL, NULL},
};

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: axibulk [--version] [--help] COMMAND [ARGS...]\n"
            "\n"
            "Bulk seismograms and Born sensitivity kernels from AxiSEM wavefield databases.\n"
            "Run under MPI (mpirun -np N axibulk ..., or srun) to share the work between ranks.\n"
            "\n"
            "commands:\n");
    for (const axb_cmd *c = commands; c->name; c++) fprintf(out, "  %-10s %s\n", c->name, c->summary);
    fprintf(out, "\n'axibulk COMMAND --help' describes a command.\n");
}

static void print_version(FILE *out)
{
    char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(mpi, &len);
    char *nl = strchr(mpi, '\n');
    if (nl) *nl = '\0';
    char *comma = strchr(mpi, ',');
    if (comma) *comma = '\0';
    unsigned maj, min, rel;
    H5get_libversion(&maj, &min, &rel);
    char nc[64];
    snprintf(nc, sizeof nc, "%s", nc_inq_libvers());
    char *sp = strchr(nc, ' ');
    if (sp) *sp = '\0';
    fprintf(out, "axibulk %s\n", AXB_VERSION_STRING);
    fprintf(out, "  MPI     %s\n", mpi);
    fprintf(out, "  HDF5    %u.%u.%u (parallel)\n", maj, min, rel);
    fprintf(out, "  netCDF  %s\n", nc);
    fprintf(out, "  FFTW    %s\n", fftw_version);
}

static int exit_code(axb_status st)
{
    switch (st) {
    case AXB_OK: return 0;
    case AXB_ERR_NOMEM:
    case AXB_ERR_RESOURCE:
    case AXB_ERR_MPI:
    case AXB_ERR_HDF5:
    case AXB_ERR_INTERNAL: return AXB_EXIT_FAILURE;
    default: return AXB_EXIT_INPUT;
    }
}

/* Exactly one rank reports: the rank the agreement names as holding the cause (the lowest that
 * saw it itself, not AXB_ERR_REMOTE). All ranks return the exit code of that cause. If the
 * agreement itself fails (MPI broken), every failing rank reports for itself. */
static int report(const axb_cmd_env *env, const char *cmd, axb_status st, axb_error *err, FILE *errout)
{
    const axb_error own = *err;
    int reporter = -1;
    axb_status cause = AXB_OK;
    if (axb_agree_cause(env->comm, st, err, &reporter, &cause) == AXB_ERR_MPI && reporter < 0) {
        /* no agreement possible (MPI broken): each failing rank says what it knows */
        if (st != AXB_OK) *err = own;
        reporter = env->rank;
        cause = st != AXB_OK ? st : AXB_ERR_MPI;
    }
    if (cause == AXB_OK) return 0;
    if (env->rank == reporter) {
        const char *msg = err->msg[0] ? err->msg : axb_strerror(cause);
        if (env->size > 1)
            fprintf(errout, "axibulk%s%s: error (rank %d): %s\n", cmd ? " " : "", cmd ? cmd : "", env->rank, msg);
        else
            fprintf(errout, "axibulk%s%s: error: %s\n", cmd ? " " : "", cmd ? cmd : "", msg);
        fflush(errout);
    }
    return exit_code(cause);
}

int axb_cli_run(int argc, char **argv, MPI_Comm comm, FILE *out, FILE *errout)
{
    axb_cmd_env env = {comm, 0, 1, out, errout};
    axb_error err = AXB_ERROR_INIT;
    if (MPI_Comm_rank(comm, &env.rank) != MPI_SUCCESS || MPI_Comm_size(comm, &env.size) != MPI_SUCCESS) {
        /* no communicator to agree over: this process reports for itself */
        fprintf(errout, "axibulk: error: the MPI communicator is not usable\n");
        return AXB_EXIT_FAILURE;
    }
    FILE *o = env.rank == 0 ? out : NULL;

    if (argc < 2) {
        if (o) print_usage(o);
        axb_error_set(&err, AXB_ERR_ARG, "no command given");
        return report(&env, NULL, AXB_ERR_ARG, &err, errout);
    }
    const char *name = argv[1];
    if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
        if (o) print_usage(o);
        return 0;
    }
    if (!strcmp(name, "--version") || !strcmp(name, "version")) {
        if (o) print_version(o);
        return 0;
    }
    for (const axb_cmd *c = commands; c->name; c++) {
        if (strcmp(c->name, name)) continue;
        axb_status st = c->fn(&env, argc - 2, argv + 2, &err);
        if (o) fflush(o);
        return report(&env, c->name, st, &err, errout);
    }
    axb_error_set(&err, AXB_ERR_ARG, "unknown command '%s' (try 'axibulk --help')", name);
    return report(&env, NULL, AXB_ERR_ARG, &err, errout);
}
