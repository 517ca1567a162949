/* The agreement primitive at 1, 2 and 4 ranks: whoever fails, every rank returns, the lowest
 * failing rank keeps its own status and message, every other rank gets AXB_ERR_REMOTE carrying
 * that message; counters travel with the status. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/agree.h"

/* Rank @p bad (or none: -1; every rank: -2) fails with a message naming itself. */
static axb_status step(int rank, int bad, axb_error *err)
{
    if (bad == -2 || rank == bad) return axb_error_set(err, AXB_ERR_FORMAT, "file%d.nc4: broken", rank);
    return AXB_OK;
}

static void test_outcomes(check_ctx *T, MPI_Comm comm, int rank, int size)
{
    axb_error err = AXB_ERROR_INIT;
    CHECK(T, axb_agree(comm, step(rank, -1, &err), &err) == AXB_OK);
    CHECK(T, err.code == AXB_OK && err.msg[0] == '\0');

    for (int bad = 0; bad < size; bad++) {
        axb_error_clear(&err);
        axb_status st = axb_agree(comm, step(rank, bad, &err), &err);
        char want[64];
        snprintf(want, sizeof want, "file%d.nc4: broken", bad);
        if (rank == bad) {
            CHECK(T, st == AXB_ERR_FORMAT && err.code == AXB_ERR_FORMAT);
            CHECK_STR(T, err.msg, want);
        } else {
            char remote[96];
            snprintf(remote, sizeof remote, "rank %d: %s", bad, want);
            CHECK(T, st == AXB_ERR_REMOTE && err.code == AXB_ERR_REMOTE);
            CHECK_STR(T, err.msg, remote);
        }
    }

    /* every rank fails: rank 0's cause is the one everybody hears; rank 0 keeps its own code */
    axb_error_clear(&err);
    axb_status st = axb_agree(comm, step(rank, -2, &err), &err);
    CHECK(T, rank == 0 ? st == AXB_ERR_FORMAT : st == AXB_ERR_REMOTE);
    CHECK_CONTAINS(T, err.msg, "file0.nc4: broken");

    /* a failure with no message still names its code on the other ranks */
    axb_error_clear(&err);
    st = axb_agree(comm, rank == size - 1 ? AXB_ERR_NOMEM : AXB_OK, &err);
    if (size > 1 && rank != size - 1) CHECK_CONTAINS(T, err.msg, axb_strerror(AXB_ERR_NOMEM));
    CHECK(T, st != AXB_OK);
}

/* A rank that only heard of a failure never outranks the one that saw it; the cause's rank and
 * code reach everyone (what the final report prints and exits with). */
static void test_cause(check_ctx *T, MPI_Comm comm, int rank, int size)
{
    axb_error err = AXB_ERROR_INIT;
    int who = -2;
    axb_status code = AXB_ERR_INTERNAL;
    CHECK(T, axb_agree_cause(comm, AXB_OK, &err, &who, &code) == AXB_OK && who == -1 && code == AXB_OK);
    const int cause = size - 1;
    axb_status st = rank == cause ? axb_error_set(&err, AXB_ERR_RANGE, "depth 900 km")
                                  : axb_error_set(&err, AXB_ERR_REMOTE, "heard it");
    st = axb_agree_cause(comm, st, &err, &who, &code);
    CHECK(T, who == cause && code == AXB_ERR_RANGE);
    CHECK(T, rank == cause ? st == AXB_ERR_RANGE : st == AXB_ERR_REMOTE);
    CHECK_CONTAINS(T, err.msg, "depth 900 km");
    /* all hearsay: the lowest rank speaks, with what it heard */
    axb_error_set(&err, AXB_ERR_REMOTE, "rank %d heard", rank);
    st = axb_agree_cause(comm, AXB_ERR_REMOTE, &err, &who, &code);
    CHECK(T, who == 0 && code == AXB_ERR_REMOTE && st == AXB_ERR_REMOTE);
    CHECK_CONTAINS(T, err.msg, "rank 0 heard");
}

static void test_sum(check_ctx *T, MPI_Comm comm, int rank, int size)
{
    axb_error err = AXB_ERROR_INIT;
    int64_t v = rank + 1;
    CHECK(T, axb_agree_sum(comm, AXB_OK, &v, &err) == AXB_OK);
    CHECK(T, v == (int64_t)size * (size + 1) / 2);
    v = 10;
    axb_status st = axb_agree_sum(comm, step(rank, size - 1, &err), &v, &err);
    CHECK(T, st != AXB_OK && v == 10 * (int64_t)size); /* the sum arrives whatever the status */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_ctx T = {0, 0, 0};
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_outcomes(&T, MPI_COMM_WORLD, T.rank, size);
    test_cause(&T, MPI_COMM_WORLD, T.rank, size);
    test_sum(&T, MPI_COMM_WORLD, T.rank, size);
    int failed = T.failed, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    T.failed = any;
    int rc = check_summary(&T);
    MPI_Finalize();
    return rc;
}
