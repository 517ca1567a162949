/* Cross-rank agreement: the one way a collective phase ends, so that a failure on one rank can
 * never leave the others waiting in a later collective call. Engines and the I/O layer call it
 * after every step that may fail on some ranks only; nothing else reduces a status. */
#ifndef AXB_CORE_AGREE_H
#define AXB_CORE_AGREE_H

#include <mpi.h>
#include <stdint.h>

#include "axibulk/status.h"
#include "core/mpi_check.h"

/* Collective over @p comm. Every rank passes the status of its own step. If every rank succeeded
 * all return AXB_OK. Otherwise one rank holds the cause: the lowest rank whose failure is its own
 * (not AXB_ERR_REMOTE), or, if every failing rank only heard of a failure, the lowest of those. It
 * keeps its status and message; every other rank returns AXB_ERR_REMOTE with the cause's message
 * prefixed by "rank N: ", so whichever rank reports, the user reads the cause. A failing MPI call
 * inside gives AXB_ERR_MPI on the ranks where it failed. */
AXB_NODISCARD axb_status axb_agree(MPI_Comm comm, axb_status st, axb_error *err);

/* axb_agree that also tells every rank which rank holds the cause (-1 when all succeeded) and the
 * cause's own status (AXB_OK when all succeeded): what a final report needs to print one line on
 * one rank and give every rank the same exit code. Either pointer may be NULL. */
AXB_NODISCARD axb_status axb_agree_cause(MPI_Comm comm, axb_status st, axb_error *err, int *cause_rank,
                                         axb_status *cause);

/* axb_agree that also sums *value over all ranks (progress counters that travel with a status,
 * at the cost of one reduction). *value holds the sum on return whatever the status. */
AXB_NODISCARD axb_status axb_agree_sum(MPI_Comm comm, axb_status st, int64_t *value, axb_error *err);

/* A collective MPI call and the agreement on its outcome, returning from the current function on
 * failure: the one way to check a collective call outside a step that already ends in an
 * agreement. AXB_MPI_TRY alone would leave the other ranks waiting in their next collective. */
#define AXB_MPI_AGREE(comm, err, call, what)                                                                           \
    do {                                                                                                               \
        int axb_mpi_rc_ = (call);                                                                                      \
        AXB_TRY(axb_agree((comm), axb_mpi_rc_ == MPI_SUCCESS ? AXB_OK : axb_mpi_error((err), axb_mpi_rc_, (what)),     \
                          (err)));                                                                                     \
    } while (0)

#endif
