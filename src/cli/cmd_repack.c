/* `axibulk repack SRC DST`: options and a summary around axb_repack_run. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/repack.h"
#include "cli/cli_internal.h"
#include "cli/cli_paths.h"

static const char repack_help[] =
    "usage: axibulk repack SRC DST [--contiguous | --deflate N] [--memory SIZE] [--resume]\n"
    "                      [--threads N] [--verify] [--force]\n"
    "\n"
    "Converts the original-layout AxiSEM database SRC (PX and/or PZ, or the four moment-tensor\n"
    "runs, displ_only) into DST/merged_output.nc4 in the merged layout: one read per element.\n"
    "The file is Instaseis-compatible and valid netCDF-4. Run it under MPI: ranks share the\n"
    "elements. It is written as merged_output.nc4.partial and renamed when complete; a killed run\n"
    "continues with --resume. AxiSEM's deflated, checksummed chunks are verified and decoded by\n"
    "each rank's --threads threads (fletcher32, unshuffle, inflate), not by HDF5.\n"
    "\n"
    "options:\n";

/* "4G", "512M", "64k", "1000000" -> bytes */
static axb_status parse_size(const char *s, int64_t *out, axb_error *err)
{
    char *end;
    double v = strtod(s, &end);
    double mult = 1;
    switch (toupper((unsigned char)*end)) {
    case 'K':
        mult = 1024.0;
        end++;
        break;
    case 'M':
        mult = 1024.0 * 1024;
        end++;
        break;
    case 'G':
        mult = 1024.0 * 1024 * 1024;
        end++;
        break;
    case 'T':
        mult = 1024.0 * 1024 * 1024 * 1024;
        end++;
        break;
    default: break;
    }
    if (toupper((unsigned char)*end) == 'B') end++;
    AXB_CHECK(err, end != s && *end == '\0' && v > 0 && v * mult < 9e18, AXB_ERR_ARG,
              "--memory '%s': expected a size such as 512M or 4G", s);
    *out = (int64_t)(v * mult);
    return AXB_OK;
}

axb_status axb_cmd_repack(const axb_cmd_env *env, int argc, char **argv, axb_error *err)
{
    bool contiguous = false, resume = false, verify = false, force = false, quiet = false, help = false;
    long deflate = -2, threads = -1;
    const char *memory = "1G", *write_mode = "auto";
    double checkpoint = 10;
    const axb_opt opts[] = {
        {"contiguous", 0, AXB_OPT_FLAG, &contiguous, NULL, "no chunking, no compression: fastest for MPI-IO (default)"},
        {"deflate", 0, AXB_OPT_INT, &deflate, "N", "one chunk per element, shuffle + deflate level N (0-9): smaller"},
        {"memory", 0, AXB_OPT_STRING, &memory, "SIZE",
         "per rank: half for slabs in flight, half for source chunks kept between slabs (default 1G)"},
        {"checkpoint", 0, AXB_OPT_DOUBLE, &checkpoint, "S",
         "seconds between syncs that record finished elements for --resume (default 10; 0: every slab)"},
        {"write-mode", 0, AXB_OPT_STRING, &write_mode, "M",
         "auto (default: direct), collective (MPI-IO through HDF5, which also compresses) or direct (contiguous: "
         "each rank writes its range with O_DIRECT; --deflate: ranks compress in --threads threads, rank 0 stores "
         "the chunks)"},
        {"threads", 0, AXB_OPT_INT, &threads, "N",
         "threads per rank decoding deflated source chunks (default: the rank's cores)"},
        {"resume", 0, AXB_OPT_FLAG, &resume, NULL, "continue a killed run from DST/merged_output.nc4.partial"},
        {"verify", 0, AXB_OPT_FLAG, &verify, NULL, "afterwards compare every element with the source"},
        {"force", 0, AXB_OPT_FLAG, &force, NULL, "replace an existing output"},
        {"quiet", 'q', AXB_OPT_FLAG, &quiet, NULL, "no progress lines"},
        {NULL, 0, AXB_OPT_FLAG, NULL, NULL, NULL},
    };
    const char *pos[2];
    int npos;
    AXB_TRY(axb_opts_parse(opts, argc, argv, pos, 2, &npos, &help, err));
    if (help) {
        if (env->rank == 0) {
            fputs(repack_help, env->out);
            axb_opts_print(env->out, opts);
        }
        return AXB_OK;
    }
    AXB_CHECK(err, npos == 2, AXB_ERR_ARG, "usage: axibulk repack SRC DST [options] (see --help)");
    AXB_CHECK(err, !(contiguous && deflate != -2), AXB_ERR_ARG, "--contiguous and --deflate exclude each other");
    AXB_CHECK(err, deflate == -2 || (deflate >= 0 && deflate <= 9), AXB_ERR_ARG, "--deflate %ld: must be 0..9",
              deflate);
    AXB_CHECK(err, !(resume && force), AXB_ERR_ARG, "--resume and --force exclude each other");
    AXB_CHECK(err, checkpoint >= 0 && isfinite(checkpoint), AXB_ERR_ARG, "--checkpoint %g: must be 0 or more seconds",
              checkpoint);
    AXB_CHECK(err, threads == -1 || (threads >= 1 && threads <= 1024), AXB_ERR_ARG, "--threads %ld: give 1 to 1024",
              threads);
    axb_repack_write wm = AXB_REPACK_WRITE_AUTO;
    if (!strcmp(write_mode, "collective"))
        wm = AXB_REPACK_WRITE_COLLECTIVE;
    else if (!strcmp(write_mode, "direct"))
        wm = AXB_REPACK_WRITE_DIRECT;
    else
        AXB_CHECK(err, !strcmp(write_mode, "auto"), AXB_ERR_ARG,
                  "--write-mode '%s': expected auto, collective or direct", write_mode);
    axb_repack_opts o = {pos[0],     pos[1], deflate == -2 ? -1 : (int)deflate, 0, force, resume, verify, !quiet,
                         checkpoint, wm,     threads > 0 ? (int)threads : 0};
    AXB_TRY(parse_size(memory, &o.memory_bytes, err));
    /* the longest name inside DST is the record of merged_output.nc4.partial */
    const axb_cli_path out = {"output folder", o.dst, "/merged_output.nc4.partial.record"};
    const axb_cli_path in = {"database", o.src, NULL};
    AXB_TRY(axb_cli_check_paths(env->comm, AXB_OK, &out, 1, &in, 1, err));
    axb_repack_result r;
    AXB_TRY(axb_repack_run(env->comm, &o, env->errout, &r, err));
    if (env->rank == 0)
        fprintf(env->out,
                "repacked %lld elements (%lld written by this run) into %s/merged_output.nc4 in %.2f s: "
                "%.1f MB/s read, %.1f MB/s written (%s); size %.2f MB vs %.2f MB original (ratio %.3f)%s\n",
                (long long)r.elements, (long long)r.elements_written, o.dst, r.seconds, r.read_mb_s, r.write_mb_s,
                r.write_mode != AXB_REPACK_WRITE_DIRECT ? "collective"
                    : o.deflate >= 0                    ? "direct chunk writes, compressed by the ranks' threads"
                    : r.page_cache_bypassed             ? "direct, O_DIRECT"
                                                        : "direct, through the page cache",
                (double)r.bytes_out / 1e6, (double)r.bytes_in / 1e6,
                r.bytes_in ? (double)r.bytes_out / (double)r.bytes_in : 0.0,
                !r.verified ? ""
                    : r.source_checksums == AXB_CHECKSUMS_FLETCHER32
                    ? "; verified"
                    : "; verified (the source has no checksums on all "
                      "its data: damage it had before cannot be seen)");
    if (env->rank == 0) axb_cli_print_decoded(env->out, &r.io, r.threads); /* where a deflated source's time goes */
    /* and where the output's: compressing chunks (CPU), sending them to rank 0, writing, syncing */
    const axb_write_stats *wr = &r.write_io;
    if (env->rank == 0 && wr->chunks_encoded > 0)
        fprintf(env->out,
                "wrote %lld chunks (%.1f MB stored) compressed by %d threads per rank; seconds summed over ranks: "
                "compress %.2f (CPU, summed over threads), exchange %.2f, write %.2f, sync %.2f\n",
                (long long)wr->chunks_encoded, (double)wr->stored_bytes / 1e6, r.threads, wr->compress_s,
                wr->exchange_s, wr->write_s, wr->sync_s);
    else if (env->rank == 0 && wr->bytes_written > 0)
        fprintf(env->out, "wrote %.1f MB; seconds summed over ranks: write %.2f, sync %.2f\n",
                (double)wr->bytes_written / 1e6, wr->write_s, wr->sync_s);
    return AXB_OK;
}
