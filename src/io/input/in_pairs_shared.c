/* A pairs file read by all ranks of a communicator together (axb_read_pairs_shared). Parsing is
 * the cost, a dozen strtod calls a line: with every rank parsing every line it was a serial part
 * of every run, as long on 64 ranks as on one. Here each rank parses an equal block of lines and
 * the parsed pairs are gathered on every rank, so every rank ends with what axb_read_pairs gives.
 * The blocks come from counting the file's newlines with memchr; a rank seeks to its first line,
 * so messages and default codes carry the file's own line numbers. */
#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/agree.h"
#include "core/mpi_check.h"
#include "in_internal.h"

#define SCAN_BLOCK (1 << 20)
#define SCAN_MAX_LINE (1 << 20) /* in_text.c's longest line */

/* The file's line count (a last line without its newline counts) and the byte offset at which
 * line @p want (0-based) starts, -1 past the end. False where the serial reader decides: not a
 * regular file, a NUL byte or an over-long line (its message names the line), a read error. */
static bool scan(const char *path, int64_t want, int64_t *nlines, long *want_off)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) return false;
    FILE *f = fopen(path, "rb");
    char *buf = f ? malloc(SCAN_BLOCK) : NULL;
    bool ok = buf != NULL;
    int64_t n = 0, linelen = 0, off = 0;
    *want_off = want == 0 ? 0 : -1;
    size_t got;
    while (ok && (got = fread(buf, 1, SCAN_BLOCK, f)) > 0) {
        ok = memchr(buf, '\0', got) == NULL;
        for (const char *p = buf, *end = buf + got; ok && p < end;) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            linelen += (nl ? nl + 1 : end) - p;
            ok = linelen <= SCAN_MAX_LINE;
            if (!nl) break;
            n++;
            linelen = 0;
            p = nl + 1;
            if (n == want) *want_off = (long)(off + (p - buf));
        }
        off += (int64_t)got;
    }
    ok = ok && !ferror(f);
    if (linelen > 0) n++;
    *nlines = n;
    free(buf);
    if (f) fclose(f);
    return ok;
}

/* This rank's block of lines; *whole when the serial reader has to read the file instead. */
static axb_status read_block(const char *path, int rank, int size, axb_pair_list *out, bool *whole, axb_error *err)
{
    int64_t nlines = 0;
    long start = 0;
    *whole = !scan(path, 0, &nlines, &start);
    if (*whole) return AXB_OK;
    const int64_t lo = nlines * rank / size, hi = nlines * (rank + 1) / size;
    if (lo > 0) *whole = !scan(path, lo, &nlines, &start);
    if (*whole || lo == hi) return AXB_OK;
    return axb_in_pairs_lines(path, start, lo, hi, out, err);
}

axb_status axb_read_pairs_shared(MPI_Comm comm, const char *path, axb_pair_list *out, axb_error *err)
{
    *out = (axb_pair_list){0};
    int rank = 0, size = 1;
    AXB_MPI_TRY(err, MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    AXB_MPI_TRY(err, MPI_Comm_size(comm, &size), "MPI_Comm_size");
    bool whole = size == 1;
    axb_pair_list mine = {0};
    axb_status st = whole ? AXB_OK : read_block(path, rank, size, &mine, &whole, err);
    int any_whole = whole, n = (int)(mine.n < INT_MAX ? mine.n : INT_MAX);
    if (mine.n >= INT_MAX) any_whole = 1;
    /* the lowest failing rank holds the first bad line in file order: its message is the one */
    AXB_TRY_GOTO(st, axb_agree(comm, st, err), done);
    AXB_MPI_CHECK(st, err, MPI_Allreduce(MPI_IN_PLACE, &any_whole, 1, MPI_INT, MPI_MAX, comm), "pairs file blocks");
    AXB_TRY_GOTO(st, axb_agree(comm, st, err), done);
    if (any_whole) { /* the same on every rank: each reads the file whole, as axb_read_pairs does */
        axb_pair_list_free(&mine);
        st = axb_read_pairs(path, out, err);
        return axb_agree(comm, st, err);
    }
    int *counts = malloc((size_t)size * sizeof *counts), *displs = malloc((size_t)size * sizeof *displs);
    if (!counts || !displs) st = axb_error_set(err, AXB_ERR_NOMEM, "%s: pair counts of %d ranks", path, size);
    AXB_TRY_GOTO(st, axb_agree(comm, st, err), free_counts);
    AXB_MPI_CHECK(st, err, MPI_Allgather(&n, 1, MPI_INT, counts, 1, MPI_INT, comm), "pairs file counts");
    AXB_TRY_GOTO(st, axb_agree(comm, st, err), free_counts);
    int64_t total = 0;
    for (int r = 0; r < size; r++) {
        displs[r] = (int)(total < INT_MAX ? total : INT_MAX);
        total += counts[r];
    }
    if (total == 0)
        st = axb_in_pairs_none(path, err);
    else if (total > INT_MAX)
        st = axb_error_set(err, AXB_ERR_UNSUPPORTED, "%s: more than %d pairs", path, INT_MAX);
    else if (!(out->pair = malloc((size_t)total * sizeof *out->pair)))
        st = axb_error_set(err, AXB_ERR_NOMEM, "%s: %lld pairs", path, (long long)total);
    AXB_TRY_GOTO(st, axb_agree(comm, st, err), free_counts);
    MPI_Datatype pair_type = MPI_DATATYPE_NULL; /* plain bytes: no pointers (a pair has no sliprate) */
    AXB_MPI_CHECK(st, err, MPI_Type_contiguous((int)sizeof(axb_pair), MPI_BYTE, &pair_type), "pair type");
    if (st == AXB_OK) AXB_MPI_CHECK(st, err, MPI_Type_commit(&pair_type), "pair type");
    AXB_TRY_GOTO(st, axb_agree(comm, st, err), free_type);
    AXB_MPI_CHECK(st, err, MPI_Allgatherv(mine.pair, n, pair_type, out->pair, counts, displs, pair_type, comm),
                  "pairs file gather");
    st = axb_agree(comm, st, err);
    if (st == AXB_OK) out->n = total;
free_type:
    if (pair_type != MPI_DATATYPE_NULL) MPI_Type_free(&pair_type);
free_counts:
    free(counts);
    free(displs);
done:
    axb_pair_list_free(&mine);
    if (st != AXB_OK) axb_pair_list_free(out);
    return st;
}
