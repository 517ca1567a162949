/* Unit tests of the core utilities: error propagation, sorted-unique index lists, the option
 * parser, the JSON writer and the fingerprint hash. No files, no MPI communication beyond init. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/status.h"
#include "check.h"
#include "cli/cli_internal.h"
#include "cli/json.h"
#include "core/hash.h"
#include "core/unique.h"

static axb_status inner(axb_error *err, int v)
{
    AXB_CHECK(err, v >= 0, AXB_ERR_RANGE, "value %d is negative", v);
    return AXB_OK;
}

static axb_status outer(axb_error *err, int v)
{
    AXB_TRY_CTX(err, inner(err, v), "element %d", 17);
    return AXB_OK;
}

static void test_status(check_ctx *T)
{
    axb_error err = AXB_ERROR_INIT;
    CHECK(T, outer(&err, 3) == AXB_OK && err.code == AXB_OK);
    CHECK(T, outer(&err, -2) == AXB_ERR_RANGE);
    CHECK(T, err.code == AXB_ERR_RANGE);
    axb_error_prefix(&err, "%s", "PZ/Data/ordered_output.nc4");
    CHECK_STR(T, err.msg, "PZ/Data/ordered_output.nc4: element 17: value -2 is negative");
    /* messages stay one line even if a file held control characters */
    axb_error_set(&err, AXB_ERR_FORMAT, "bad\nname\t'%s'", "x\ry");
    CHECK(T, strchr(err.msg, '\n') == NULL && strchr(err.msg, '\r') == NULL);
    /* overlong messages are cut, marked and still terminated */
    char big[3000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    axb_error_set(&err, AXB_ERR_IO, "%s", big);
    CHECK(T, strlen(err.msg) == AXB_ERRMSG_MAX - 1);
    CHECK(T, !strcmp(err.msg + AXB_ERRMSG_MAX - 4, "..."));
    axb_error_prefix(&err, "ctx");
    CHECK(T, strlen(err.msg) == AXB_ERRMSG_MAX - 1 && !strncmp(err.msg, "ctx: aaa", 8));
    axb_error_clear(&err);
    CHECK(T, err.code == AXB_OK && err.msg[0] == '\0');
    CHECK(T, axb_error_set(NULL, AXB_ERR_IO, "x") == AXB_ERR_IO);
    for (int c = AXB_OK; c <= AXB_ERR_INTERNAL; c++) CHECK(T, strlen(axb_strerror((axb_status)c)) > 0);
}

static void test_unique(check_ctx *T)
{
    const int64_t in[] = {7, 3, 7, 9, 3, 3, 0};
    int64_t *u, *inv, nu;
    axb_error err = AXB_ERROR_INIT;
    CHECK(T, axb_unique_i64(in, 7, &u, &nu, &inv, &err) == AXB_OK);
    CHECK(T, nu == 4 && u[0] == 0 && u[1] == 3 && u[2] == 7 && u[3] == 9);
    long bad = 0;
    for (int k = 0; k < 7; k++) bad += u[inv[k]] != in[k];
    CHECK(T, bad == 0);
    free(u);
    free(inv);
    CHECK(T, axb_unique_i64(in, 0, &u, &nu, &inv, &err) == AXB_OK && nu == 0 && !u && !inv);
}

static void test_options(check_ctx *T)
{
    bool flag = false, help = false;
    const char *db = NULL;
    long n = 0;
    double x = 0;
    const axb_opt opts[] = {
        {"json", 0, AXB_OPT_FLAG, &flag, NULL, "j"}, {"db", 'd', AXB_OPT_STRING, &db, "DIR", "d"},
        {"count", 0, AXB_OPT_INT, &n, "N", "n"},     {"dt", 0, AXB_OPT_DOUBLE, &x, "S", "x"},
        {NULL, 0, AXB_OPT_FLAG, NULL, NULL, NULL},
    };
    char *argv1[] = {"--json", "-d", "/x", "pos1", "--count=12", "--dt", "0.25", "--", "--json"};
    const char *pos[4];
    int npos;
    axb_error err = AXB_ERROR_INIT;
    CHECK(T, axb_opts_parse(opts, 9, argv1, pos, 4, &npos, &help, &err) == AXB_OK);
    CHECK(T, flag && !help && db && !strcmp(db, "/x") && n == 12 && x == 0.25);
    CHECK(T, npos == 2 && !strcmp(pos[0], "pos1") && !strcmp(pos[1], "--json"));

    char *bad1[] = {"--nope"};
    CHECK(T, axb_opts_parse(opts, 1, bad1, pos, 4, &npos, &help, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "unknown option '--nope'");
    char *bad2[] = {"--count", "12x"};
    CHECK(T, axb_opts_parse(opts, 2, bad2, pos, 4, &npos, &help, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "'12x' is not an integer");
    char *bad3[] = {"--dt", "nan"};
    CHECK(T, axb_opts_parse(opts, 2, bad3, pos, 4, &npos, &help, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "not a finite number");
    char *bad4[] = {"--db"};
    CHECK(T, axb_opts_parse(opts, 1, bad4, pos, 4, &npos, &help, &err) == AXB_ERR_ARG);
    CHECK_CONTAINS(T, err.msg, "needs a value");
    char *bad5[] = {"a", "b"};
    CHECK(T, axb_opts_parse(opts, 2, bad5, pos, 1, &npos, &help, &err) == AXB_ERR_ARG);
    char *bad6[] = {"--json=1"};
    CHECK(T, axb_opts_parse(opts, 1, bad6, pos, 1, &npos, &help, &err) == AXB_ERR_ARG);
    char *h[] = {"x", "--help", "--nope"};
    CHECK(T, axb_opts_parse(opts, 3, h, pos, 4, &npos, &help, &err) == AXB_OK && help);
}

static void test_json(check_ctx *T)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    axb_json j;
    axb_json_begin(&j, f);
    axb_json_str(&j, "s", "a\"b\\c\n");
    axb_json_num(&j, "x", 0.1);
    axb_json_num(&j, "nan", NAN);
    axb_json_array(&j, "a");
    axb_json_int(&j, NULL, -3);
    axb_json_bool(&j, NULL, true);
    axb_json_end_array(&j);
    axb_json_array(&j, "empty");
    axb_json_end_array(&j);
    axb_json_end(&j);
    fclose(f);
    const char *want = "{\n  \"s\": \"a\\\"b\\\\c\\u000a\",\n  \"x\": 0.10000000000000001,\n"
                       "  \"nan\": null,\n  \"a\": [\n    -3,\n    true\n  ],\n  \"empty\": []\n}\n";
    CHECK_STR(T, buf, want);
    free(buf);
}

/* What a fingerprint must tell apart: every single-bit change of a buffer at every length around
 * the hash's 32- and 8-byte steps, lengths (a zero byte more), a different starting value, and
 * the order of two pieces. Distinct results are counted against all others of the same buffer. */
static void test_hash(check_ctx *T)
{
    unsigned char buf[80];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)(i * 37 + 11);
    long same = 0, changed = 0;
    uint64_t *seen = malloc((8 * sizeof buf + 1) * sizeof *seen);
    for (size_t n = 0; n <= sizeof buf; n += (n < 40 ? 1 : 13)) {
        const uint64_t h0 = axb_hash_bytes(AXB_HASH_INIT, buf, n);
        CHECK(T, axb_hash_bytes(AXB_HASH_INIT, buf, n) == h0); /* deterministic */
        size_t ns = 0;
        seen[ns++] = h0;
        for (size_t bit = 0; bit < 8 * n; bit++) {
            buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
            const uint64_t h = axb_hash_bytes(AXB_HASH_INIT, buf, n);
            buf[bit / 8] ^= (unsigned char)(1u << (bit % 8));
            changed++;
            for (size_t k = 0; k < ns; k++) same += seen[k] == h;
            seen[ns++] = h;
        }
        if (n < sizeof buf) {
            const unsigned char saved = buf[n];
            buf[n] = 0;
            CHECK_MSG(T, axb_hash_bytes(AXB_HASH_INIT, buf, n + 1) != h0, "length %zu and %zu + a zero byte", n, n);
            buf[n] = saved;
        }
        CHECK(T, axb_hash_bytes(AXB_HASH_INIT + 1, buf, n) != h0);
    }
    free(seen);
    CHECK_MSG(T, changed > 8000 && same == 0, "%ld of %ld one-bit changes collided", same, changed);
    const uint64_t ab = axb_hash_bytes(axb_hash_bytes(AXB_HASH_INIT, "ab", 2), "c", 1);
    const uint64_t ba = axb_hash_bytes(axb_hash_bytes(AXB_HASH_INIT, "c", 1), "ab", 2);
    CHECK(T, ab != ba);
    CHECK(T, axb_hash_str(AXB_HASH_INIT, "ab") != axb_hash_str(AXB_HASH_INIT, "ba"));
    const double zero = 0.0, negzero = -0.0;
    CHECK(T, axb_hash_doubles(AXB_HASH_INIT, &zero, 1) != axb_hash_doubles(AXB_HASH_INIT, &negzero, 1));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    check_ctx T = {0, 0, 0};
    test_status(&T);
    test_unique(&T);
    test_options(&T);
    test_json(&T);
    test_hash(&T);
    int rc = check_summary(&T);
    MPI_Finalize();
    return rc;
}
