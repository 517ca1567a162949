/* Cross-rank agreement: the one way a collective phase ends, so that a failure on one rank can
 * never leave the others waiting in a later collective call. Engines and the I/O layer call it
 * after every step that may fail on some ranks only; nothing else reduces a status. */
#ifndef AXB_CORE_AGREE_H
#define AXB_CORE_AGREE_H

#include <mpi.h>
#include <stdint.h>

#include "axibulk/status.h"

/* Collective over @p comm. Every rank passes the status of its own step. If every rank succeeded
 * all return AXB_OK. Otherwise the lowest failing rank keeps its status and message, and every
 * other rank returns AXB_ERR_REMOTE with that rank's message prefixed by "rank N: ", so whichever
 * rank reports, the user reads the cause. A failing MPI_Allreduce itself gives AXB_ERR_MPI. */
AXB_NODISCARD axb_status axb_agree(MPI_Comm comm, axb_status st, axb_error *err);

/* axb_agree that also sums *value over all ranks (progress counters that travel with a status,
 * at the cost of one reduction). *value holds the sum on return whatever the status. */
AXB_NODISCARD axb_status axb_agree_sum(MPI_Comm comm, axb_status st, int64_t *value, axb_error *err);

#endif
