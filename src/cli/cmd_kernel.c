/* `axibulk kernel --job FILE.yaml`: reads the kernel job (kernel_job.h) and hands it to the engine
 * (axb_kernel_run); everything about the physics is in the job file, the command line only says
 * where the output goes and how loudly. */
#include <stdio.h>
#include <string.h>

#include "axibulk/kernel.h"
#include "axibulk/kernel_job.h"
#include "cli/cli_internal.h"
#include "core/agree.h"

static const char kernel_help[] =
    "usage: axibulk kernel --job FILE.yaml [-o OUT.h5] [--force] [--cache-mb MB] [-q]\n"
    "\n"
    "Computes Born sensitivity kernels of cross-correlation travel times or amplitudes, for the\n"
    "kernels a YAML job file lists, from a forward database (the event's wavefield) and a\n"
    "reciprocal database (the receivers'), integrated over the cells of an inversion mesh (voxels\n"
    "or tetrahedra) by quasi-random Monte Carlo until the job's tolerances are met. Writes one HDF5\n"
    "file with the kernels, their error estimates and the reference seismograms, and an XDMF file\n"
    "beside it for ParaView. Run it under MPI to share the cells among ranks; the result does not\n"
    "depend on the number of ranks.\n"
    "\n"
    "The job file's keys are described in docs/cli.md (section 'axibulk kernel'); the physics and\n"
    "conventions in docs/kernels.md. Examples: inputs/kernel_*.yaml.\n"
    "\n"
    "options:\n";

axb_status axb_cmd_kernel(const axb_cmd_env *env, int argc, char **argv, axb_error *err)
{
    const char *job_path = NULL, *output = NULL;
    bool force = false, quiet = false, help = false;
    long cache_mb = 0;
    const axb_opt opts[] = {
        {"job", 0, AXB_OPT_STRING, &job_path, "FILE", "the kernel job (YAML; keys in docs/cli.md)"},
        {"output", 'o', AXB_OPT_STRING, &output, "FILE",
         "output HDF5 file (default: the job's 'output'; the XDMF file goes beside it)"},
        {"force", 0, AXB_OPT_FLAG, &force, NULL, "replace an existing output"},
        {"cache-mb", 0, AXB_OPT_INT, &cache_mb, "MB",
         "per database, strain kept between steps (default 256; results do not depend on it)"},
        {"quiet", 'q', AXB_OPT_FLAG, &quiet, NULL, "no progress lines"},
        {NULL, 0, AXB_OPT_FLAG, NULL, NULL, NULL},
    };
    const char *pos[1];
    int npos;
    AXB_TRY(axb_opts_parse(opts, argc, argv, pos, 0, &npos, &help, err));
    if (help) {
        if (env->rank == 0) {
            fputs(kernel_help, env->out);
            axb_opts_print(env->out, opts);
        }
        return AXB_OK;
    }
    AXB_CHECK(err, job_path, AXB_ERR_ARG, "missing --job (the kernel job file; see 'axibulk kernel --help')");
    AXB_CHECK(err, cache_mb >= 0 && cache_mb <= (1L << 24), AXB_ERR_ARG, "--cache-mb %ld: give 0 to 16777216 MB",
              cache_mb);

    /* Every rank reads the job itself (a small file; no broadcast of a struct with pointers). The
     * agreement then makes sure no rank enters the engine's collective calls while another could
     * not read the job (a file system that one node sees differently). */
    axb_kernel_job job;
    axb_status st = axb_kernel_job_read(job_path, &job, err);
    if (!st && output) {
        const size_t len = strlen(output);
        if (len == 0 || len >= sizeof job.output)
            st = axb_error_set(err, AXB_ERR_ARG, "-o/--output: %s path", len ? "too long a" : "an empty");
        else
            memcpy(job.output, output, len + 1);
    }
    st = axb_agree(env->comm, st, err);
    if (!st) {
        const axb_kernel_run_opts ro = {force, quiet ? NULL : env->errout, true, (int64_t)cache_mb << 20};
        st = axb_kernel_run(env->comm, &job, &ro, NULL, err);
    }
    if (!st && env->rank == 0) {
        int ncols = 0;
        for (int i = 0; i < job.nkernels; i++)
            for (int p = 0; p < AXB_KP_COUNT; p++) ncols += (job.kernels[i].params >> p) & 1u;
        fprintf(env->out, "wrote %d kernels (%d parameter columns) to %s\n", job.nkernels, ncols, job.output);
    }
    axb_kernel_job_free(&job);
    return st;
}
