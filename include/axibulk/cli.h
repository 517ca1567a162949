/**
 * @file cli.h
 * @brief The `axibulk` command as a library call, so tests and embedding programs can run
 *        subcommands in-process on a communicator of their choice.
 */
#ifndef AXIBULK_CLI_H
#define AXIBULK_CLI_H

#include <mpi.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Exit status for errors in the user's input (options, files, values). */
#define AXB_EXIT_INPUT 2
/** Exit status for failures of the machine or of axibulk itself (memory, MPI, HDF5, bugs). */
#define AXB_EXIT_FAILURE 1

/**
 * Runs `axibulk ARGS...` (argv[0] is the program name). Collective over @p comm. Rank 0 writes
 * results to @p out; the one rank that saw the cause of a failure writes one line to @p errout.
 * Every rank returns the same exit status: 0, AXB_EXIT_INPUT or AXB_EXIT_FAILURE.
 */
int axb_cli_run(int argc, char **argv, MPI_Comm comm, FILE *out, FILE *errout);

#ifdef __cplusplus
}
#endif
#endif
