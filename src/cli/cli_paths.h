/* The path rules of core/paths.h applied to a command's outputs and inputs on every rank. */
#ifndef AXB_CLI_PATHS_H
#define AXB_CLI_PATHS_H

#include <mpi.h>

#include "axibulk/status.h"

typedef struct axb_cli_path {
    const char *what;   /* how the message names it: "-o", "database" */
    const char *path;   /* NULL: not given, skipped */
    const char *suffix; /* outputs: the longest name the command derives from the path (its
                         * length is checked); NULL: no length check */
} axb_cli_path;

/* Checks every output's length and keeps every output apart from every input, unless @p st (this
 * rank's status so far) is already an error; agreed over @p comm, so every rank returns the same
 * status (collective: every rank calls it). Call it before anything is created or removed
 * (--force removes the old output). */
AXB_NODISCARD axb_status axb_cli_check_paths(MPI_Comm comm, axb_status st, const axb_cli_path *outs, int nout,
                                             const axb_cli_path *ins, int nin, axb_error *err);

#endif
