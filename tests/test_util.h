/* Helpers shared by the MPI tests: a per-run scratch directory made by rank 0. */
#ifndef AXB_TESTS_UTIL_H
#define AXB_TESTS_UTIL_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Rank 0 creates a fresh directory under $TMPDIR (or /tmp) and broadcasts its name. */
static inline int test_scratch_dir(MPI_Comm comm, const char *tag, char *buf, size_t n)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    char tmp[512] = "";
    if (rank == 0) {
        const char *base = getenv("TMPDIR");
        snprintf(tmp, sizeof tmp, "%s/axb-%s-XXXXXX", base && *base ? base : "/tmp", tag);
        if (!mkdtemp(tmp)) tmp[0] = '\0';
    }
    MPI_Bcast(tmp, (int)sizeof tmp, MPI_CHAR, 0, comm);
    snprintf(buf, n, "%s", tmp);
    return tmp[0] ? 0 : -1;
}

/* rm -rf of a scratch directory (rank 0 only; after a barrier). */
static inline void test_remove_dir(MPI_Comm comm, const char *dir)
{
    int rank;
    MPI_Barrier(comm);
    MPI_Comm_rank(comm, &rank);
    if (rank == 0 && dir[0] && strstr(dir, "/axb-")) {
        const size_t n = strlen(dir) + 16;
        char *cmd = malloc(n);
        if (cmd) snprintf(cmd, n, "rm -rf '%s'", dir);
        if (!cmd || system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
        free(cmd);
    }
}

/* Sums the pass/fail counts of all ranks, prints the summary on rank 0, finalizes MPI and returns
 * the exit code: the common end of every MPI test program. */
#include "check.h"
static inline int test_finish_mpi(check_ctx *t)
{
    int f = t->failed, p = t->passed;
    MPI_Allreduce(MPI_IN_PLACE, &f, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &p, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    t->failed = f;
    t->passed = p;
    int rc = check_summary(t);
    MPI_Finalize();
    return rc;
}
/* `axibulk ARGS...` in-process on MPI_COMM_WORLD (args[0..n), without the program name): the exit
 * status, and this rank's stderr in @p msg (stdout dropped). */
#include "axibulk/cli.h"
static inline int test_cli_capture(const char *const *args, int n, char *msg, size_t size)
{
    char *argv[40];
    int argc = 0;
    argv[argc++] = "axibulk";
    for (int i = 0; i < n && argc < 39; i++) argv[argc++] = (char *)args[i];
    argv[argc] = NULL;
    FILE *devnull = fopen("/dev/null", "w"), *errs = tmpfile();
    int rc = axb_cli_run(argc, argv, MPI_COMM_WORLD, devnull, errs);
    rewind(errs);
    size_t k = fread(msg, 1, size - 1, errs);
    msg[k] = '\0';
    fclose(errs);
    fclose(devnull);
    return rc;
}

/* `axibulk LINE` in-process on MPI_COMM_WORLD, LINE split at blanks: the exit status, and this
 * rank's stdout and stderr in @p outbuf and @p errbuf (either may be NULL: dropped). */
static inline int test_cli_line(const char *line, char *outbuf, size_t outn, char *errbuf, size_t errn)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "axibulk %s", line);
    char *argv[64];
    int argc = 0;
    for (char *tok = strtok(copy, " "); tok && argc < 63; tok = strtok(NULL, " ")) argv[argc++] = tok;
    argv[argc] = NULL;
    FILE *o = tmpfile(), *e = tmpfile();
    const int rc = axb_cli_run(argc, argv, MPI_COMM_WORLD, o, e);
    FILE *fs[2] = {o, e};
    char *bufs[2] = {outbuf, errbuf};
    size_t ns[2] = {outn, errn};
    for (int k = 0; k < 2; k++) {
        rewind(fs[k]);
        const size_t n = bufs[k] ? fread(bufs[k], 1, ns[k] - 1, fs[k]) : 0;
        if (bufs[k]) bufs[k][n] = '\0';
        fclose(fs[k]);
    }
    return rc;
}

/* Rank 0 writes a small text file; every rank returns once it is there. */
static inline void test_write_text(int rank, const char *path, const char *text)
{
    if (rank == 0) {
        FILE *f = fopen(path, "w");
        if (f) {
            fputs(text, f);
            fclose(f);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

#endif
