/* axb_read_pairs_shared at 1, 2 and 4 ranks against axb_read_pairs (one process reading the whole
 * file), the reference: every rank ends with the same pairs, field for field and in file order
 * (names and default station codes from the file's line numbers), for files with comments, blank
 * lines, CRLF ends, a last line without its newline, fewer lines than ranks and more; a bad line
 * anywhere gives every rank an error whose message is the serial reader's (the rank that parsed
 * the line holds it, the others hear it as "rank N: ..."); an empty file, a file of comments, a
 * missing file and a non-regular one (/dev/zero) fail as the serial reader fails. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axibulk/inputs.h"
#include "check.h"
#include "test_util.h"

static bool same_doubles(const double *a, const double *b, int n)
{
    return memcmp(a, b, (size_t)n * sizeof *a) == 0; /* NaN equals NaN, -0 differs from 0 */
}

static bool same_pair(const axb_pair *a, const axb_pair *b)
{
    const axb_source *s = &a->src, *t = &b->src;
    const axb_receiver *r = &a->rec, *q = &b->rec;
    return s->type == t->type && same_doubles(&s->lat, &t->lat, 1) && same_doubles(&s->lon, &t->lon, 1) &&
        same_doubles(&s->depth, &t->depth, 1) && same_doubles(s->m, t->m, 6) && same_doubles(s->f, t->f, 3) &&
        !strcmp(s->name, t->name) && !s->sliprate && !t->sliprate && same_doubles(&r->lat, &q->lat, 1) &&
        same_doubles(&r->lon, &q->lon, 1) && same_doubles(&r->depth, &q->depth, 1) && !strcmp(r->network, q->network) &&
        !strcmp(r->station, q->station);
}

/* A file of @p n lines: pairs, every 7th line a comment, every 11th blank, a few with codes and
 * depths, the last one without its newline when @p open_end; CRLF ends when @p crlf. */
static char *make_text(int n, bool crlf, bool open_end)
{
    char *text = malloc((size_t)n * 160 + 1), *p = text;
    if (!text) return NULL;
    for (int i = 0; i < n; i++) {
        if (i % 7 == 3)
            p += sprintf(p, "# comment %d", i);
        else if (i % 11 == 5)
            p += sprintf(p, "   ");
        else if (i % 5 == 0)
            p += sprintf(p, "force %.3f %.3f %d 1e10 -2e10 %d.5e9 %.2f %.2f", -80 + fmod(i * 0.37, 160),
                         -179 + fmod(i * 1.3, 358), 1000 * (i % 600), i % 9, -60 + fmod(i * 0.15, 120),
                         -179 + fmod(i * 0.7, 358));
        else
            p += sprintf(p, "mt %.4f %.4f %d 1e17 2e17 -3e17 4e16 5e16 %de15 %.3f %.3f%s", -80 + fmod(i * 0.23, 160),
                         -179 + fmod(i * 2.9, 358), 500 * (i % 1000), i, -60 + fmod(i * 0.41, 120),
                         -179 + fmod(i * 1.7, 358), i % 4 == 1 ? " 0 IU.S" : (i % 4 == 2 ? " - -" : ""));
        if (i % 4 == 1 && i % 5 != 0 && i % 7 != 3 && i % 11 != 5) p += sprintf(p, "%d", i);
        if (i + 1 < n || !open_end) p += sprintf(p, crlf ? "\r\n" : "\n");
    }
    *p = '\0';
    return text;
}

static void check_same(check_ctx *T, MPI_Comm comm, int rank, const char *path, const char *what)
{
    axb_error e1 = AXB_ERROR_INIT, e2 = AXB_ERROR_INIT;
    axb_pair_list ref = {0}, got = {0};
    const axb_status s1 = axb_read_pairs(path, &ref, &e1);
    const axb_status s2 = axb_read_pairs_shared(comm, path, &got, &e2);
    CHECK_MSG(T, s1 == AXB_OK && ref.n > 0, "%s: serial reader: %s", what, e1.msg);
    CHECK_MSG(T, s2 == AXB_OK && got.n == ref.n, "%s: %lld pairs, serial %lld: %s", what, (long long)got.n,
              (long long)ref.n, e2.msg);
    int64_t differ = 0;
    for (int64_t i = 0; s1 == AXB_OK && s2 == AXB_OK && i < ref.n && i < got.n; i++)
        differ += !same_pair(&ref.pair[i], &got.pair[i]);
    CHECK_MSG(T, differ == 0, "%s: %lld of %lld pairs differ on rank %d", what, (long long)differ, (long long)ref.n,
              rank);
    axb_pair_list_free(&ref);
    axb_pair_list_free(&got);
}

/* The shared reader fails on every rank, with the serial reader's message (or "rank N: " and it). */
static void check_error(check_ctx *T, MPI_Comm comm, const char *path, const char *what)
{
    axb_error e1 = AXB_ERROR_INIT, e2 = AXB_ERROR_INIT;
    axb_pair_list ref = {0}, got = {0};
    const axb_status s1 = axb_read_pairs(path, &ref, &e1);
    const axb_status s2 = axb_read_pairs_shared(comm, path, &got, &e2);
    CHECK_MSG(T, s1 != AXB_OK && s2 != AXB_OK && got.n == 0 && got.pair == NULL, "%s: statuses %d and %d", what,
              (int)s1, (int)s2);
    const size_t n1 = strlen(e1.msg), n2 = strlen(e2.msg);
    const bool same = s2 == s1 ? !strcmp(e1.msg, e2.msg)
                               : s2 == AXB_ERR_REMOTE && !strncmp(e2.msg, "rank ", 5) && n2 > n1 &&
            !strcmp(e2.msg + n2 - n1, e1.msg) && !strncmp(e2.msg + n2 - n1 - 2, ": ", 2);
    CHECK_MSG(T, same, "%s: '%s', serial '%s'", what, e2.msg, e1.msg);
    axb_pair_list_free(&ref);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_ctx T = {0, 0, 0};
    int size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &T.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char dir[512], path[600], what[96];
    if (test_scratch_dir(MPI_COMM_WORLD, "pairs", dir, sizeof dir)) MPI_Abort(MPI_COMM_WORLD, 1);
    snprintf(path, sizeof path, "%s/pairs.txt", dir);

    const int lengths[] = {1, 2, 3, 5, 9, 40, 1000};
    for (size_t k = 0; k < sizeof lengths / sizeof *lengths; k++)
        for (int form = 0; form < 3; form++) {
            char *text = make_text(lengths[k], form == 1, form == 2);
            if (!text) continue;
            test_write_text(T.rank, path, text);
            snprintf(what, sizeof what, "%d lines%s", lengths[k], form == 1 ? ", CRLF" : form == 2 ? ", open end" : "");
            check_same(&T, MPI_COMM_WORLD, T.rank, path, what);
            free(text);
        }

    /* a bad line early, in the middle and last (each in another rank's block with 2 and 4 ranks),
     * and two bad lines: the first in file order is the one reported */
    const int bad_at[][2] = {{0, -1}, {400, -1}, {999, -1}, {300, 800}, {12, 991}};
    for (size_t k = 0; k < sizeof bad_at / sizeof *bad_at; k++) {
        char *text = make_text(1000, false, false);
        if (!text) continue;
        char *line = text;
        for (int l = 0; l < 1000 && line; l++) {
            char *nl = strchr(line, '\n');
            if ((l == bad_at[k][0] || l == bad_at[k][1]) && nl && nl - line > 4)
                memcpy(nl - 4, l == bad_at[k][0] ? " 9e9" : " x7q", 4); /* a latitude or a word */
            line = nl ? nl + 1 : NULL;
        }
        test_write_text(T.rank, path, text);
        snprintf(what, sizeof what, "bad lines %d and %d", bad_at[k][0] + 1, bad_at[k][1] + 1);
        check_error(&T, MPI_COMM_WORLD, path, what);
        free(text);
    }
    test_write_text(T.rank, path, "");
    check_error(&T, MPI_COMM_WORLD, path, "empty file");
    test_write_text(T.rank, path, "# only\n\n# comments\n   \n");
    check_error(&T, MPI_COMM_WORLD, path, "only comments");
    snprintf(path, sizeof path, "%s/missing.txt", dir);
    check_error(&T, MPI_COMM_WORLD, path, "missing file");
    check_error(&T, MPI_COMM_WORLD, "/dev/zero", "/dev/zero");
    int failed = T.failed, all = 0;
    MPI_Allreduce(&failed, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    T.failed = T.rank == 0 ? all : T.failed;
    MPI_Finalize();
    return check_summary(&T);
}
