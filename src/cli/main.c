#include <hdf5.h>
#include <mpi.h>

#include "axibulk/cli.h"

int main(int argc, char **argv)
{
    int mpi_thread_level; /* FUNNELED: only this thread calls MPI; repack has a writer thread */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &mpi_thread_level);
    /* axibulk reports HDF5 failures itself, as one line with context; HDF5's own stack dumps
     * would bury that line under dozens of others. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    /* failing MPI calls return their code (checked by AXB_MPI_TRY and agreed on) instead of
     * aborting the job without a message */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = axb_cli_run(argc, argv, MPI_COMM_WORLD, stdout, stderr);
    MPI_Finalize();
    return rc;
}
