/* Summary lines printed by more than one subcommand, worded once so scripts and the benchmark
 * parse one format. */
#include "cli/cli_internal.h"

void axb_cli_print_decoded(FILE *out, const axb_io_stats *io, int threads)
{
    if (io->chunks_decoded <= 0) return;
    fprintf(out,
            "decoded %lld chunks (%.1f MB stored) with %d threads per rank; seconds summed over threads: "
            "read %.2f (wall), checksum %.2f, inflate %.2f, unshuffle %.2f, transpose %.2f (CPU)\n",
            (long long)io->chunks_decoded, (double)io->stored_bytes / 1e6, threads, io->read_s, io->checksum_s,
            io->inflate_s, io->unshuffle_s, io->transpose_s);
}
