/* Shared by the subcommands: the option table parser and the command signature. */
#ifndef AXB_CLI_INTERNAL_H
#define AXB_CLI_INTERNAL_H

#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>

#include "axibulk/db.h"
#include "axibulk/status.h"

typedef enum axb_opt_kind { AXB_OPT_FLAG, AXB_OPT_STRING, AXB_OPT_INT, AXB_OPT_DOUBLE } axb_opt_kind;

/* One row per option; parsing writes through target (bool*, const char**, long*, double*). */
typedef struct axb_opt {
    const char *name; /* long name without "--" */
    char short_name;  /* 0 for none */
    axb_opt_kind kind;
    void *target;
    const char *metavar;
    const char *help;
} axb_opt;

/* Parses argv[0..argc) (no program name) against @p opts (terminated by a row with NULL name).
 * Positional arguments go to pos[0..*npos), at most maxpos. "--" ends the options.
 * Sets *help when -h/--help is seen (then stops checking the rest). */
axb_status axb_opts_parse(const axb_opt *opts, int argc, char **argv, const char **pos, int maxpos, int *npos,
                          bool *help, axb_error *err);
void axb_opts_print(FILE *out, const axb_opt *opts);
/* Sets option @p name (long name) from text, as a job file does: flags take true/false/yes/no.
 * Unknown names are AXB_ERR_ARG. */
axb_status axb_opts_apply(const axb_opt *opts, const char *name, const char *value, axb_error *err);

typedef struct axb_cmd_env {
    MPI_Comm comm;
    int rank, size;
    FILE *out;    /* rank 0 writes here */
    FILE *errout; /* messages and progress lines: the stream axb_cli_run was given */
} axb_cmd_env;

typedef axb_status (*axb_cmd_fn)(const axb_cmd_env *env, int argc, char **argv, axb_error *err);

axb_status axb_cmd_info(const axb_cmd_env *env, int argc, char **argv, axb_error *err);
axb_status axb_cmd_extract(const axb_cmd_env *env, int argc, char **argv, axb_error *err);
axb_status axb_cmd_repack(const axb_cmd_env *env, int argc, char **argv, axb_error *err);
axb_status axb_cmd_kernel(const axb_cmd_env *env, int argc, char **argv, axb_error *err);
axb_status axb_cmd_mkdb(const axb_cmd_env *env, int argc, char **argv, axb_error *err);

/* "decoded N chunks ...": where a deflated database's reading time went (nothing if no chunk
 * was decoded). */
void axb_cli_print_decoded(FILE *out, const axb_io_stats *io, int threads);

#endif
