/* Checked MPI calls. axibulk sets MPI_ERRORS_RETURN on the communicators it is given, so a failing
 * call returns here and becomes an AXB_ERR_MPI with MPI's own reason instead of an abort. */
#ifndef AXB_CORE_MPI_CHECK_H
#define AXB_CORE_MPI_CHECK_H

#include <mpi.h>

#include "axibulk/status.h"

/* Sets AXB_ERR_MPI with "<what>: <MPI's error string>" and returns it. */
axb_status axb_mpi_error(axb_error *err, int rc, const char *what);

/* Return from the current function with AXB_ERR_MPI if @p call fails; @p what names the step.
 * Only for calls local to this rank (MPI_Comm_rank, ...): a collective call checked this way would
 * leave the other ranks waiting in their next collective. Collective calls use AXB_MPI_AGREE
 * (core/agree.h), or AXB_MPI_CHECK within a step that ends in an agreement with no other
 * collective call in between (test_fault_inject checks every one). */
#define AXB_MPI_TRY(err, call, what)                                                                                   \
    do {                                                                                                               \
        int axb_mpi_rc_ = (call);                                                                                      \
        if (axb_mpi_rc_ != MPI_SUCCESS) return axb_mpi_error((err), axb_mpi_rc_, (what));                              \
    } while (0)

/* For functions with cleanup: store the status in @p st (only if it is still AXB_OK) and go on;
 * the caller's next axb_agree carries it to every rank. */
#define AXB_MPI_CHECK(st, err, call, what)                                                                             \
    do {                                                                                                               \
        int axb_mpi_rc_ = (call);                                                                                      \
        if (axb_mpi_rc_ != MPI_SUCCESS && (st) == AXB_OK) (st) = axb_mpi_error((err), axb_mpi_rc_, (what));            \
    } while (0)

#endif
