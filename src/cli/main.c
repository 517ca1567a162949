#define _POSIX_C_SOURCE 200809L /* setenv */
#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>

#include "axibulk/cli.h"

/* Started without a launcher (no mpirun, no srun with PMI), Open MPI runs as a singleton: it forks
 * a runtime daemon and initialises every network transport it was built with (UCX among them),
 * about 0.3 s on a workstation, where a 20,000-seismogram extraction takes 0.2 s. One process only
 * talks to itself, so such a run starts isolated with the self transport, unless the user set
 * these parameters. Under a launcher nothing changes: the cluster's settings decide. Other MPI
 * implementations ignore the variables. */
static void singleton_defaults(void)
{
    static const char *const launched[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "PMI_FD",
                                           "SLURM_PROCID"};
    for (size_t k = 0; k < sizeof launched / sizeof *launched; k++)
        if (getenv(launched[k])) return;
    setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
    setenv("OMPI_MCA_pml", "ob1", 0);
    setenv("OMPI_MCA_btl", "self", 0);
    /* hwloc's discovery of PCI and other I/O devices (reading every device's config space in
     * sysfs) only serves the placement of network transports: 10 ms of a lone process's start */
    setenv("HWLOC_COMPONENTS", "-pci,-linuxio,-opencl,-gl", 0);
}

int main(int argc, char **argv)
{
    singleton_defaults();
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
