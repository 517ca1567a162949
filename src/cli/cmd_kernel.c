/* `axibulk kernel --job FILE.yaml`: reads the kernel job (kernel_job.h) and hands it to the engine
 * (axb_kernel_run); everything about the physics is in the job file, the command line only says
 * where the output goes and how loudly. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "axibulk/kernel.h"
#include "axibulk/kernel_job.h"
#include "cli/cli_internal.h"
#include "cli/cli_paths.h"
#include "core/agree.h"

static const char kernel_help[] =
    "usage: axibulk kernel --job FILE.yaml [-o OUT.h5] [--force | --resume] [--cache-mb MB]\n"
    "                      [--chunk-cache-mb MB] [--checkpoint-s S] [--stats FILE.json] [--threads N] [-q]\n"
    "\n"
    "Computes Born sensitivity kernels of cross-correlation travel times or amplitudes, for the\n"
    "kernels a YAML job file lists, from a forward database (the event's wavefield) and a\n"
    "reciprocal database (the receivers'), integrated over the cells of an inversion mesh (voxels\n"
    "or tetrahedra) by quasi-random Monte Carlo until the job's tolerances are met. Writes one HDF5\n"
    "file with the kernels, their error estimates and the reference seismograms, and an XDMF file\n"
    "beside it for ParaView. Run it under MPI to share the cells among ranks; the result does not\n"
    "depend on the number of ranks.\n"
    "\n"
    "While it runs, finished cells are kept in OUT.partial.record and OUT.partial.cells (every\n"
    "--checkpoint-s seconds, with a progress line); a killed run continues with --resume and\n"
    "writes exactly what an uninterrupted run would.\n"
    "\n"
    "The job file's keys are described in docs/cli.md (section 'axibulk kernel'); the physics and\n"
    "conventions in docs/kernels.md. Examples: inputs/kernel_*.yaml.\n"
    "\n"
    "options:\n";

static axb_status write_stats(const char *path, const axb_kernel_stats *s, axb_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f) return axb_error_set(err, AXB_ERR_IO, "--stats %s: cannot create: %s", path, strerror(errno));
    const double sec = s->seconds > 0 ? s->seconds : 1e-9;
    const double frac = s->cells > 0 ? (double)s->cells_computed / (double)s->cells : 0;
    fprintf(f,
            "{\"cells\": %lld, \"cells_computed\": %lld, \"kernels\": %d, \"columns\": %d, \"receivers\": %lld, "
            "\"channels\": %d, \"ranks\": %d, \"seconds\": %.6f, \"cells_per_s\": %.6g, \"kernels_per_s\": %.6g,\n"
            " \"points\": %lld, \"channel_points\": %lld, \"channel_cells_skipped\": %lld,\n",
            (long long)s->cells, (long long)s->cells_computed, s->kernels, s->columns, (long long)s->receivers,
            s->channels, s->ranks, s->seconds, (double)s->cells_computed / sec, frac * s->kernels / sec,
            (long long)s->points, (long long)s->channel_points, (long long)s->channel_cells_skipped);
    const char *db[2] = {"fwd", "bwd"};
    for (int d = 0; d < 2; d++)
        fprintf(f,
                " \"%s\": {\"read_calls\": %lld, \"element_reads\": %lld, \"bytes_read\": %lld, "
                "\"chunks_decoded\": %lld},\n",
                db[d], (long long)s->read_calls[d], (long long)s->element_reads[d], (long long)s->bytes_read[d],
                (long long)s->chunks_decoded[d]);
    const double other =
        s->t_total - s->t_locate - s->t_read - s->t_strain - s->t_fft - s->t_integrate - s->t_wait - s->t_checkpoint;
    fprintf(f,
            " \"time\": {\"locate\": %.6f, \"read\": %.6f, \"strain\": %.6f, \"fft\": %.6f, \"integrate\": %.6f, "
            "\"wait\": %.6f, \"checkpoint\": %.6f, \"other\": %.6f, \"total\": %.6f}}\n",
            s->t_locate, s->t_read, s->t_strain, s->t_fft, s->t_integrate, s->t_wait, s->t_checkpoint, other,
            s->t_total);
    const bool ok = !ferror(f);
    if (fclose(f) != 0 || !ok) return axb_error_set(err, AXB_ERR_IO, "--stats %s: cannot write", path);
    return AXB_OK;
}

axb_status axb_cmd_kernel(const axb_cmd_env *env, int argc, char **argv, axb_error *err)
{
    const char *job_path = NULL, *output = NULL, *stats_path = NULL;
    bool force = false, resume = false, quiet = false, help = false;
    long cache_mb = 0, chunk_cache_mb = 0, threads = -1;
    double checkpoint_s = 20;
    const axb_opt opts[] = {
        {"job", 0, AXB_OPT_STRING, &job_path, "FILE", "the kernel job (YAML; keys in docs/cli.md)"},
        {"output", 'o', AXB_OPT_STRING, &output, "FILE",
         "output HDF5 file (default: the job's 'output'; the XDMF file goes beside it)"},
        {"force", 0, AXB_OPT_FLAG, &force, NULL, "replace an existing output (or start a killed run again)"},
        {"resume", 0, AXB_OPT_FLAG, &resume, NULL, "continue the OUT.partial of a killed run of the same job"},
        {"checkpoint-s", 0, AXB_OPT_DOUBLE, &checkpoint_s, "S",
         "about how often finished cells are made durable and progress shown (default 20)"},
        {"stats", 0, AXB_OPT_STRING, &stats_path, "FILE",
         "write what the run did (counts, reads, time per stage) as JSON to FILE"},
        {"cache-mb", 0, AXB_OPT_INT, &cache_mb, "MB",
         "per database, strain kept between steps (default 256; results do not depend on it)"},
        {"chunk-cache-mb", 0, AXB_OPT_INT, &chunk_cache_mb, "MB",
         "per database on the original layout, decoded chunks kept between reads (default: as --cache-mb)"},
        {"threads", 0, AXB_OPT_INT, &threads, "N",
         "threads per rank and database decoding deflated chunks (default: the rank's cores)"},
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
    AXB_CHECK(err, chunk_cache_mb >= 0 && chunk_cache_mb <= (1L << 24), AXB_ERR_ARG,
              "--chunk-cache-mb %ld: give 0 to 16777216 MB", chunk_cache_mb);
    AXB_CHECK(err, !(force && resume), AXB_ERR_ARG, "--force and --resume exclude each other");
    AXB_CHECK(err, threads == -1 || (threads >= 1 && threads <= 1024), AXB_ERR_ARG, "--threads %ld: give 1 to 1024",
              threads);
    AXB_CHECK(err, checkpoint_s >= 0.1 && checkpoint_s <= 86400, AXB_ERR_ARG,
              "--checkpoint-s %g: give 0.1 to 86400 seconds", checkpoint_s);

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
    char xdmf[AXB_PATH_MAX] = "";
    if (!st) st = axb_kernel_xdmf_path(job.output, xdmf, sizeof xdmf, err);
    {
        /* the longest name beside the output: the checkpoint's OUT.partial.writing */
        const axb_cli_path outs[] = {{"output", job.output, ".partial.writing"}, {"XDMF file", xdmf, NULL}};
        const axb_cli_path ins[] = {{"--job", job_path, NULL},
                                    {"forward database", *job.fwd_db ? job.fwd_db : NULL, NULL},
                                    {"backward database", *job.bwd_db ? job.bwd_db : NULL, NULL},
                                    {"mesh", *job.mesh.path ? job.mesh.path : NULL, NULL},
                                    {"mesh facets", *job.mesh.facets ? job.mesh.facets : NULL, NULL}};
        st = axb_cli_check_paths(env->comm, st, outs, 2, ins, sizeof ins / sizeof *ins, err);
    }
    if (!st) {
        axb_kernel_stats stats;
        const axb_kernel_run_opts ro = {.force = force,
                                        .progress = quiet ? NULL : env->errout,
                                        .write = true,
                                        .cache_bytes = (int64_t)cache_mb << 20,
                                        .chunk_cache_bytes = (int64_t)chunk_cache_mb << 20,
                                        .resume = resume,
                                        .checkpoint_seconds = checkpoint_s,
                                        .stats = &stats,
                                        .threads = threads > 0 ? (int)threads : 0};
        st = axb_kernel_run(env->comm, &job, &ro, NULL, err);
        if (!st && stats_path)
            st = axb_agree(env->comm, env->rank == 0 ? write_stats(stats_path, &stats, err) : AXB_OK, err);
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
