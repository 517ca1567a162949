#include "core/mpi_check.h"

axb_status axb_mpi_error(axb_error *err, int rc, const char *what)
{
    char why[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (MPI_Error_string(rc, why, &len) != MPI_SUCCESS) why[0] = '\0';
    return axb_error_set(err, AXB_ERR_MPI, "%s: %s", what, why[0] ? why : "MPI call failed");
}
