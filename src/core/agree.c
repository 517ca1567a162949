#include "core/agree.h"

#include <string.h>

#include "core/mpi_check.h"

axb_status axb_agree_cause(MPI_Comm comm, axb_status st, axb_error *err, int *cause_rank, axb_status *cause_code)
{
    int rank = 0, size = 1;
    if (cause_rank) *cause_rank = -1;
    if (cause_code) *cause_code = AXB_OK;
    AXB_MPI_TRY(err, MPI_Comm_rank(comm, &rank), "rank");
    AXB_MPI_TRY(err, MPI_Comm_size(comm, &size), "communicator size");
    /* one key orders the candidates: own causes (rank), then hearsay (size + rank), then success */
    const int mine = st == AXB_OK ? 2 * size : st == AXB_ERR_REMOTE ? size + rank : rank;
    int key = 2 * size;
    AXB_MPI_TRY(err, MPI_Allreduce(&mine, &key, 1, MPI_INT, MPI_MIN, comm), "status agreement");
    if (key == 2 * size) return AXB_OK;
    const int first = key < size ? key : key - size;
    /* the cause travels whole: code and message of the lowest failing rank */
    axb_error cause = AXB_ERROR_INIT;
    if (rank == first) {
        cause.code = st;
        if (err) memcpy(cause.msg, err->msg, sizeof cause.msg);
    }
    AXB_MPI_TRY(err, MPI_Bcast(&cause, (int)sizeof cause, MPI_BYTE, first, comm), "error broadcast");
    if (cause_rank) *cause_rank = first;
    if (cause_code) *cause_code = cause.code;
    if (rank == first) return st;
    if (!err) return AXB_ERR_REMOTE;
    memcpy(err->msg, cause.msg, sizeof err->msg);
    err->code = AXB_ERR_REMOTE;
    if (!err->msg[0]) return axb_error_set(err, AXB_ERR_REMOTE, "rank %d: %s", first, axb_strerror(cause.code));
    axb_error_prefix(err, "rank %d", first);
    err->code = AXB_ERR_REMOTE;
    return AXB_ERR_REMOTE;
}

axb_status axb_agree(MPI_Comm comm, axb_status st, axb_error *err)
{
    return axb_agree_cause(comm, st, err, NULL, NULL);
}

axb_status axb_agree_sum(MPI_Comm comm, axb_status st, int64_t *value, axb_error *err)
{
    int64_t sum = 0;
    const int rc = MPI_Allreduce(value, &sum, 1, MPI_INT64_T, MPI_SUM, comm);
    if (rc == MPI_SUCCESS)
        *value = sum;
    else if (st == AXB_OK)
        st = axb_mpi_error(err, rc, "counter reduction");
    return axb_agree(comm, st, err);
}
