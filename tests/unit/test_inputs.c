/* Input-file readers (src/io/in_*.c): the shared source/station files against the values written in
 * them and against Instaseis' own readers, small files written here for every format, and every
 * kind of malformed input with the exact message.
 *
 * References. "Instaseis" numbers were printed by running krischer/instaseis (commit dc9d4f1)
 * instaseis/source.py and helpers.py on numpy 1.24 with ObsPy stubbed out (the SRF and .param
 * readers, from_strike_dip_rake, the latitude conversion and resample_sliprate use only numpy),
 * e.g.  fs = FiniteSource.from_usgs_param_file("nepal.param"); print(repr(fs.moment_magnitude)).
 * Values quoted from instaseis/tests/test_source.py (reference notes §5.3) keep that test's
 * tolerance. Epoch seconds were computed with Python's datetime.
 *
 * argv[1] is the shared data directory. Without it the tests on self-written files still run, and
 * the program then exits 77 (skipped) unless something failed. */
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axibulk/inputs.h"
#include "axibulk/source.h"
#include "check.h"
#include "io/input/in_internal.h"

#define CHECK_REL(T, a, b, rtol) CHECK_CLOSE(T, a, b, (rtol)*fabs((double)(b)))

typedef struct tctx {
    check_ctx c;
    char dir[512];   /* scratch directory for written files */
    char data[512];  /* shared data directory, "" when absent */
    char path[1024]; /* the file last written by put() */
} tctx;

/* Writes @p content to DIR/NAME and returns the path (valid until the next put). */
static const char *put_n(tctx *x, const char *name, const char *content, size_t n)
{
    snprintf(x->path, sizeof x->path, "%s/%s", x->dir, name);
    FILE *f = fopen(x->path, "wb");
    if (!f || fwrite(content, 1, n, f) != n) {
        fprintf(stderr, "cannot write %s\n", x->path);
        exit(2);
    }
    fclose(f);
    return x->path;
}

static const char *put(tctx *x, const char *name, const char *content)
{
    return put_n(x, name, content, strlen(content));
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (s) s[n] = '\0';
    fclose(f);
    return s;
}

static void data_path(const tctx *x, const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/sources/%s", x->data, name);
}

/* The status, the error code and the whole one-line message "<path><suffix>". */
static void expect_msg(tctx *x, axb_status st, const axb_error *err, axb_status code, const char *path,
                       const char *suffix)
{
    char want[2048];
    snprintf(want, sizeof want, "%s%s", path, suffix);
    CHECK_MSG(&x->c, st == code && err->code == code, "status %d/%d, expected %d (%s)", (int)st, (int)err->code,
              (int)code, err->msg);
    CHECK_STR(&x->c, err->msg, want);
    CHECK(&x->c, strchr(err->msg, '\n') == NULL);
}

/* ------------------------------------------------------------------------------------------ */
/* pairs files                                                                                */

static void test_pairs(tctx *x)
{
    check_ctx *t = &x->c;
    axb_error err = AXB_ERROR_INIT;
    axb_pair_list l = {0};
    const char *p = put(x, "pairs.txt",
                        "# pairs for a test\n"
                        "mt 10.5 20.25 12000 1e17 -2e17 1e17 3e16 -4e16 5e16 42.639 74.494   # c\n"
                        "force -30 170 0 1.23e10 2.55e10 1.73e10 -10 -20 150.5 IU.ANMO\n"
                        "   \n"
                        "mt 89.91 0.0 12000 4.71e17 3.81e15 -4.74e17 3.99e16 -8.05e16 -1.23e17 "
                        "42.639 74.494 0 TA.Q56A\r\n"
                        "mt 1 2 3 1 0 0 0 0 0 4 5 - IU.COLA\n"
                        "force 1 2 3 1 0 0 4 5 7.5 -\n");
    CHECK(t, axb_read_pairs(p, &l, &err) == AXB_OK);
    CHECK(t, l.n == 5);
    if (l.n == 5) {
        /* '-' in the receiver tail: depth or code not given */
        CHECK(t, isnan(l.pair[3].rec.depth) && l.pair[3].rec.lat == 4 && l.pair[3].rec.lon == 5);
        CHECK_STR(t, l.pair[3].rec.network, "IU");
        CHECK_STR(t, l.pair[3].rec.station, "COLA");
        CHECK(t, l.pair[4].rec.depth == 7.5 && l.pair[4].rec.lat == 4 && l.pair[4].rec.lon == 5);
        CHECK_STR(t, l.pair[4].rec.network, "XX");
        CHECK_STR(t, l.pair[4].rec.station, "R000007");
        const axb_pair *a = &l.pair[0], *b = &l.pair[1], *c = &l.pair[2];
        /* geocentric as written: no conversion */
        CHECK(t, a->src.type == AXB_SRC_MOMENT && a->src.lat == 10.5 && a->src.lon == 20.25 && a->src.depth == 12000.0);
        const double m[6] = {1e17, -2e17, 1e17, 3e16, -4e16, 5e16};
        for (int i = 0; i < 6; i++) CHECK(t, a->src.m[i] == m[i]);
        CHECK(t, a->src.origin_time == 0 && isnan(a->src.time_shift) && !a->src.sliprate);
        CHECK(t, a->rec.lat == 42.639 && a->rec.lon == 74.494 && isnan(a->rec.depth));
        CHECK_STR(t, a->rec.network, "XX"); /* default code from the line number (2) */
        CHECK_STR(t, a->rec.station, "R000002");
        CHECK_STR(t, a->rec.location, "");
        CHECK(t, b->src.type == AXB_SRC_FORCE && b->src.lat == -30 && b->src.lon == 170 && b->src.depth == 0);
        CHECK(t, b->src.f[0] == 1.23e10 && b->src.f[1] == 2.55e10 && b->src.f[2] == 1.73e10);
        CHECK(t, b->rec.lat == -10 && b->rec.lon == -20 && b->rec.depth == 150.5);
        CHECK_STR(t, b->rec.network, "IU");
        CHECK_STR(t, b->rec.station, "ANMO");
        CHECK(t, c->src.lat == 89.91 && c->src.m[0] == 4.71e17 && c->src.m[5] == -1.23e17);
        CHECK(t, c->rec.depth == 0.0);
        CHECK_STR(t, c->rec.network, "TA");
        CHECK_STR(t, c->rec.station, "Q56A");
    }
    axb_pair_list_free(&l);
    axb_pair_list_free(&l); /* twice is allowed */
    CHECK(t, l.n == 0 && l.pair == NULL);

    /* Default codes stay unique past a million lines: the millions go into the network code. */
    {
        const size_t nblank = 999998;
        const char *line = "mt 0 0 0 1 0 0 0 0 0 1 1\n";
        size_t n = nblank + 2 * strlen(line);
        char *big = malloc(n);
        memset(big, '\n', nblank);
        memcpy(big + nblank, line, strlen(line));
        memcpy(big + nblank + strlen(line), line, strlen(line));
        p = put_n(x, "big.txt", big, n);
        free(big);
        CHECK(t, axb_read_pairs(p, &l, &err) == AXB_OK && l.n == 2);
        if (l.n == 2) {
            CHECK_STR(t, l.pair[0].rec.network, "XX"); /* line 999999 */
            CHECK_STR(t, l.pair[0].rec.station, "R999999");
            CHECK_STR(t, l.pair[1].rec.network, "X1"); /* line 1000000 */
            CHECK_STR(t, l.pair[1].rec.station, "R000000");
            CHECK_STR(t, l.pair[1].src.name, "line_1000000");
        }
        axb_pair_list_free(&l);
    }

    /* Malformed line 3 after two good lines: one message, and no half list. */
    static const struct {
        const char *line;
        axb_status code;
        const char *msg;
    } bad[] = {
        {"mt 0 0 1000 abc 2 3 4 5 6 10 20", AXB_ERR_FORMAT, ":3: field 5 (MRR): 'abc' is not a number"},
        {"mt 0 0 1000 1 2 3 4 5 nan 10 20", AXB_ERR_FORMAT, ":3: field 10 (MTP): 'nan' is not a number"},
        {"force 0 0 1000 1 2 inf 10 20", AXB_ERR_FORMAT, ":3: field 7 (FP): 'inf' is not a number"},
        {"mt 0 0 1000 1 2 3 4 5 6 10 1e999", AXB_ERR_FORMAT, ":3: field 12 (REC_LON): '1e999' is not a number"},
        {"mt 0 0 1000 1 2 3 4 5 6 10", AXB_ERR_FORMAT,
         ":3: 'mt' row needs 12 fields, or 14 with REC_DEPTH_M NET.STA ('-' for either not given), found 11"},
        {"force 0 0 1000 1 2 3 10 20 5 XX.A extra", AXB_ERR_FORMAT,
         ":3: 'force' row needs 9 fields, or 11 with REC_DEPTH_M NET.STA ('-' for either not given), found 12"},
        /* issue #19: a row missing one moment used to read MTP as REC_LAT, REC_LAT as REC_LON and
         * REC_LON as the depth - a wrong receiver, exit 0. Every shorter tail is refused now. */
        {"mt 0 0 1000 1 2 3 4 5 10 20 0 IU.ANMO", AXB_ERR_FORMAT,
         ":3: 'mt' row needs 12 fields, or 14 with REC_DEPTH_M NET.STA ('-' for either not given), found 13"},
        {"force 0 0 1000 1 2 10 20 0 IU.ANMO", AXB_ERR_FORMAT,
         ":3: 'force' row needs 9 fields, or 11 with REC_DEPTH_M NET.STA ('-' for either not given), found 10"},
        {"mt 0 0 1000 1 2 3 4 5 6 10 20 IU.ANMO", AXB_ERR_FORMAT,
         ":3: 'mt' row needs 12 fields, or 14 with REC_DEPTH_M NET.STA ('-' for either not given), found 13"},
        {"mt 0 0 1000 1 2 3 4 5 6 10 20 1 2 3 4 5 6 7 8 9", AXB_ERR_FORMAT,
         ":3: 'mt' row needs 12 fields, or 14 with REC_DEPTH_M NET.STA ('-' for either not given), found 21"},
        {"mt 95 0 1000 1 2 3 4 5 6 10 20", AXB_ERR_RANGE, ":3: field 2 (SRC_LAT): 95 is outside -90..90"},
        {"mt 0 0 1000 1 2 3 4 5 6 10 -181", AXB_ERR_RANGE, ":3: field 12 (REC_LON): -181 is outside -180..180"},
        {"mt 0 0 -5 1 2 3 4 5 6 10 20", AXB_ERR_RANGE,
         ":3: field 4 (DEPTH_M): -5 is negative (depths are below the surface)"},
        {"mt 0 0 5 1 2 3 4 5 6 10 20 -1 -", AXB_ERR_RANGE,
         ":3: field 13 (REC_DEPTH_M): -1 is negative (depths are below the surface)"},
        {"moment 0 0 5 1 2 3 4 5 6 10 20", AXB_ERR_FORMAT,
         ":3: field 1: unknown line kind 'moment' (expected 'mt' or 'force')"},
        {"mt 0 0 5 1 2 3 4 5 6 10 20 - ANMO", AXB_ERR_FORMAT,
         ":3: field 14 (NET.STA): 'ANMO' is not a NET.STA code (one '.', printable ASCII)"},
        {"mt 0 0 5 1 2 3 4 5 6 10 20 12 TOOLONGNET.STA", AXB_ERR_RANGE,
         ":3: field 14 (NET.STA): 'TOOLONGNET.STA': network codes may have at most 7 and station "
         "codes 7 characters"},
        {"mt 0 0 5 1 2 3 4 5 6 10 20 IU.ANMO 12", AXB_ERR_FORMAT,
         ":3: field 13 (REC_DEPTH_M): 'IU.ANMO' is not a number"},
        /* issue #19: moments of 1e300 gave inf samples, exit 0 */
        {"mt 0 0 5 1 2 3 4 5 1e300 10 20", AXB_ERR_RANGE,
         ":3: field 10 (MTP): 1e+300 N·m exceeds 1e+30 N·m (non-physical)"},
        {"force 0 0 5 1 -2e30 3 10 20", AXB_ERR_RANGE, ":3: field 6 (FT): -2e+30 N exceeds 1e+30 N (non-physical)"},
        /* issue #19: binary garbage was echoed raw (terminal escapes, invalid UTF-8); now every
         * byte that is not printable is \xNN, and a quoted token is cut */
        {"mt 0 0 5 \x01\xff\x1b[31m\x7f 2 3 4 5 6 10 20", AXB_ERR_FORMAT,
         ":3: field 5 (MRR): '\\x01\\xFF\\x1B[31m\\x7F' is not a number"},
        {"mt 0 0 5 1 2 3 4 5 6 10 20 - A.\xc3\xa9\xc3", AXB_ERR_FORMAT,
         ":3: field 14 (NET.STA): 'A.\xc3\xa9\\xC3' is not a NET.STA code (one '.', printable ASCII)"},
        {"mt 0 0 5 1 2 3 4 5 6 10 20 - "
         "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80"
         "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80"
         "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80"
         "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80"
         "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80",
         AXB_ERR_FORMAT,
         ":3: field 14 (NET.STA): '"
         "\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80"
         "\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80"
         "\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80"
         "\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80\\x80"
         "' is not a NET.STA code (one '.', printable ASCII)"},
        /* a file cut in the middle of the last number */
        {"mt 0 0 5 1 2 3 4 5 6 10 2e", AXB_ERR_FORMAT, ":3: field 12 (REC_LON): '2e' is not a number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char content[512];
        snprintf(content, sizeof content, "# header\nmt 0 0 1000 1 2 3 4 5 6 10 20\n%s", bad[i].line);
        p = put(x, "bad_pairs.txt", content);
        axb_error_clear(&err);
        expect_msg(x, axb_read_pairs(p, &l, &err), &err, bad[i].code, p, bad[i].msg);
        CHECK(t, l.n == 0 && l.pair == NULL);
    }
    p = put(x, "empty.txt", "");
    expect_msg(x, axb_read_pairs(p, &l, &err), &err, AXB_ERR_FORMAT, p,
               ": no pairs (the file is empty or only comments)");
    p = put(x, "comments.txt", "# nothing\n\n   # here\n");
    expect_msg(x, axb_read_pairs(p, &l, &err), &err, AXB_ERR_FORMAT, p,
               ": no pairs (the file is empty or only comments)");
    p = put_n(x, "binary.txt", "mt 0\0 0 1\n", 10);
    expect_msg(x, axb_read_pairs(p, &l, &err), &err, AXB_ERR_FORMAT, p,
               ":1: NUL byte in the line: a binary file, not text");
    /* issue #19 (fuzzing): an endless stream was read into one line until memory ran out */
    {
        const size_t n = (1 << 20) + 10;
        char *big = malloc(n);
        memset(big, 'a', n);
        p = put_n(x, "long.txt", big, n);
        free(big);
        expect_msg(x, axb_read_pairs(p, &l, &err), &err, AXB_ERR_FORMAT, p,
                   ":1: line longer than 1048576 bytes: a binary file or stream, not text");
        axb_source_list sl;
        expect_msg(x, axb_read_cmtsolution("/dev/zero", &sl, &err), &err, AXB_ERR_FORMAT, "/dev/zero",
                   ":1: NUL byte in the line: a binary file, not text");
    }
    char missing[1100];
    snprintf(missing, sizeof missing, "%s/does-not-exist.txt", x->dir);
    expect_msg(x, axb_read_pairs(missing, &l, &err), &err, AXB_ERR_IO, missing,
               ": cannot open: No such file or directory");
}

/* ------------------------------------------------------------------------------------------ */
/* CMTSOLUTION                                                                                */

/* Instaseis' test_parse_cmtsolutions_file event (no trailing newline, as that test writes it). */
static const char CMT1[] = " PDE 2011  8 23 17 51  4.60  37.9400  -77.9300   6.0 5.9 5.8 VIRGINIA\n"
                           "event name:     201108231751A\n"
                           "time shift:      1.00\n"
                           "half duration:   1.8000\n"
                           "latitude:       37.9100\n"
                           "longitude:     -77.9300\n"
                           "depth:          12.0000\n"
                           "Mrr:       4.710000e+24\n"
                           "Mtt:       3.810000e+22\n"
                           "Mpp:      -4.740000e+24\n"
                           "Mrt:       3.990000e+23\n"
                           "Mrp:      -8.050000e+23\n"
                           "Mtp:      -1.230000e+24";

/* The catalog code glued to the year, as GCMT writes it. */
static const char CMT2[] = "PDEW2005  1  1  1  1 59.50  10.0000  20.0000  10.0 5.0 5.0 SOMEWHERE FAR AWAY\n"
                           "event name:     200501010101A\n"
                           "time shift:      0.75\n"
                           "half duration:   1.0\n"
                           "latitude:      -70.0000\n"
                           "longitude:     179.5000\n"
                           "depth:           0.0000\n"
                           "Mrr:       1.0e+23\n"
                           "Mtt:      -2.0e+23\n"
                           "Mpp:       1.0e+23\n"
                           "Mrt:       0.0\n"
                           "Mrp:       0.0\n"
                           "Mtp:       0.0\n";

/* CMT1 with line @p lineno (1-based) replaced by @p repl (NULL: the file ends before it). */
static void cmt_variant(char *out, size_t n, int lineno, const char *repl)
{
    out[0] = '\0';
    const char *s = CMT1;
    for (int i = 1; *s; i++) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (i == lineno && !repl) break;
        size_t k = strlen(out);
        if (i == lineno)
            snprintf(out + k, n - k, "%s\n", repl);
        else
            snprintf(out + k, n - k, "%.*s\n", (int)len, s);
        s += len + (e ? 1 : 0);
    }
}

static void test_cmtsolution(tctx *x)
{
    check_ctx *t = &x->c;
    axb_error err = AXB_ERROR_INIT;
    axb_source_list l = {0};
    const char *p = put(x, "CMTSOLUTION", CMT1);
    CHECK(t, axb_read_cmtsolution(p, &l, &err) == AXB_OK && l.n == 1);
    if (l.n == 1) {
        const axb_source *s = &l.src[0];
        /* Instaseis: lat elliptic_to_geocentric_latitude(37.91) = 37.72359305847237 (the centroid,
         * not the PDE 37.94), depth 12000 m, moments dyne·cm / 1e7 */
        CHECK_CLOSE(t, s->lat, 37.72359305847237, 1e-12);
        CHECK(t, s->lon == -77.93 && s->depth == 12000.0);
        const double m[6] = {4.71e17, 3.81e15, -4.74e17, 3.99e16, -8.05e16, -1.23e17};
        for (int i = 0; i < 6; i++) CHECK_REL(t, s->m[i], m[i], 1e-15);
        /* "hypocentral time + 1 s (the time shift)": 2011-08-23T17:51:05.6 = 1314121865.6 s */
        CHECK(t, s->origin_time == INT64_C(1314121865600000000));
        CHECK(t, isnan(s->time_shift) && !s->sliprate && s->type == AXB_SRC_MOMENT);
        CHECK_STR(t, s->name, "201108231751A");
    }
    axb_source_list_free(&l);

    /* two events, blank lines between and around them */
    char two[2048];
    snprintf(two, sizeof two, "\n%s\n\n\n%s\n\n", CMT1, CMT2);
    p = put(x, "CMTSOLUTION2", two);
    CHECK(t, axb_read_cmtsolution(p, &l, &err) == AXB_OK && l.n == 2);
    if (l.n == 2) {
        CHECK_STR(t, l.src[0].name, "201108231751A");
        const axb_source *s = &l.src[1];
        CHECK_STR(t, s->name, "200501010101A");
        /* Instaseis: elliptic_to_geocentric_latitude(-70.0) = -69.87599343642249 */
        CHECK_CLOSE(t, s->lat, -69.87599343642249, 1e-12);
        CHECK(t, s->lon == 179.5 && s->depth == 0.0);
        CHECK(t, s->m[0] == 1e16 && s->m[1] == -2e16 && s->m[2] == 1e16 && s->m[5] == 0.0);
        /* 2005-01-01T01:01:59.50 + 0.75 s = 01:02:00.25 = 1104541320.25 s */
        CHECK(t, s->origin_time == INT64_C(1104541320250000000));
    }
    axb_source_list_free(&l);

    static const struct {
        int line;
        const char *repl;
        axb_status code;
        const char *msg;
    } bad[] = {
        {7, NULL, AXB_ERR_FORMAT, ":7: unexpected end of file: the 'depth:' line is missing"},
        {8, "Mrr:       4.7x0000e+24", AXB_ERR_FORMAT, ":8: Mrr: '4.7x0000e+24' is not a number"},
        {13, "Mtp:      nan", AXB_ERR_FORMAT, ":13: Mtp: 'nan' is not a number"},
        {5, "latorUTM:       37.9100", AXB_ERR_FORMAT,
         ":5: expected a 'latitude:' line, found 'latorUTM:       37.9100'"},
        {5, "latitude:       37.9 38.0", AXB_ERR_FORMAT, ":5: 'latitude:' needs exactly one value, found 2"},
        {5, "latitude:       91.0", AXB_ERR_RANGE, ":5: latitude: 91 is outside -90..90"},
        {6, "longitude:     -190.0", AXB_ERR_RANGE, ":6: longitude: -190 is outside -180..180"},
        {7, "depth:          -3.0", AXB_ERR_RANGE, ":7: depth: -3 is negative (depths are below the surface)"},
        {1, " PDE 2011 13 23 17 51  4.60  37.9400  -77.9300   6.0 5.9 5.8 X", AXB_ERR_RANGE,
         ":1: hypocentre time: date 2011-13-23 does not exist"},
        /* issue #19: years int64 ns cannot hold used to wrap (1000 -> 2169, 3000 -> 1830) */
        {1, " PDE 1000  8 23 17 51  4.60  37.9400  -77.9300   6.0 5.9 5.8 X", AXB_ERR_RANGE,
         ":1: hypocentre time: year 1000 is outside 1678..2261, the years axibulk's times (int64 "
         "nanoseconds) hold"},
        {1, " PDE 3000  8 23 17 51  4.60  37.9400  -77.9300   6.0 5.9 5.8 X", AXB_ERR_RANGE,
         ":1: hypocentre time: year 3000 is outside 1678..2261, the years axibulk's times (int64 "
         "nanoseconds) hold"},
        /* and a time shift of 9e9 s overflowed int64 (signed overflow under UBSan) */
        {3, "time shift:      9e9", AXB_ERR_RANGE,
         ":3: time shift: an offset of 9e+09 s takes the time outside the years 1678..2261 that axibulk's "
         "times hold"},
        {3, "time shift:      -9.5e9", AXB_ERR_RANGE,
         ":3: time shift: an offset of -9.5e+09 s takes the time outside the years 1678..2261 that axibulk's "
         "times hold"},
        /* issue #19: 1e300 dyne·cm gave inf samples, exit 0 */
        {8, "Mrr:       1e300", AXB_ERR_RANGE, ":8: Mrr: 1e+300 dyne·cm exceeds 1e+30 N·m (non-physical)"},
        {13, "Mtp:      -1.1e37", AXB_ERR_RANGE, ":13: Mtp: -1.1e+37 dyne·cm exceeds 1e+30 N·m (non-physical)"},
        {1, " PDE 2011  8 23 17 51  4.6x  37.9400  -77.9300   6.0 5.9 5.8 X", AXB_ERR_FORMAT,
         ":1: field 7 (second): '4.6x' is not a number"},
        {1, " PDE 2011  8 23", AXB_ERR_FORMAT,
         ":1: hypocentre line: expected [catalog] year month day hour minute second latitude "
         "longitude depth mb Ms, found 4 fields"},
        {2, "event:     201108231751A", AXB_ERR_FORMAT,
         ":2: expected a 'event name:' line, found 'event:     201108231751A'"},
        {2, "event name:", AXB_ERR_FORMAT, ":2: 'event name:' needs exactly one value, found 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char content[2048];
        cmt_variant(content, sizeof content, bad[i].line, bad[i].repl);
        p = put(x, "CMT_bad", content);
        axb_error_clear(&err);
        expect_msg(x, axb_read_cmtsolution(p, &l, &err), &err, bad[i].code, p, bad[i].msg);
        CHECK(t, l.n == 0 && l.src == NULL);
    }
    /* a good event followed by a broken one: nothing is returned */
    snprintf(two, sizeof two, "%s\n\n%.*s", CMT1, (int)(strstr(CMT2, "depth:") - CMT2), CMT2);
    p = put(x, "CMT_half", two);
    CHECK(t, axb_read_cmtsolution(p, &l, &err) == AXB_ERR_FORMAT && l.n == 0 && !l.src);
    CHECK_CONTAINS(t, err.msg, "unexpected end of file");
    p = put(x, "CMT_empty", "\n \n");
    expect_msg(x, axb_read_cmtsolution(p, &l, &err), &err, AXB_ERR_FORMAT, p, ": no events (the file is empty)");
}

/* ------------------------------------------------------------------------------------------ */
/* QuakeML                                                                                    */

#define QML_HEAD                                                                                                       \
    "<?xml version='1.0' encoding='utf-8'?>\n"                                                                         \
    "<q:quakeml xmlns:q=\"http://quakeml.org/xmlns/quakeml/1.2\" "                                                     \
    "xmlns=\"http://quakeml.org/xmlns/bed/1.2\">\n"                                                                    \
    "<eventParameters publicID=\"smi:local/test\">\n"
#define QML_TAIL "</eventParameters>\n</q:quakeml>\n"
#define QML_FM(mrr)                                                                                                    \
    "<focalMechanism publicID=\"smi:fm\"><momentTensor publicID=\"smi:mt\"><tensor>"                                   \
    "<Mrr><value>" mrr "</value></Mrr><Mtt><value>3.81e15</value></Mtt>"                                               \
    "<Mpp><value>-4.74e17</value></Mpp><Mrt><value>3.99e16</value></Mrt>"                                              \
    "<Mrp><value>-8.05e16</value></Mrp><Mtp><value>-1.23e17</value></Mtp>"                                             \
    "</tensor></momentTensor></focalMechanism>\n"

static void test_quakeml(tctx *x)
{
    check_ctx *t = &x->c;
    axb_error err = AXB_ERROR_INIT;
    axb_source_list l = {0};
    char path[1024];
    if (x->data[0]) {
        /* The GCMT file's values (read from the XML by hand) as Instaseis' _assert_src expects:
         * lat elliptic_to_geocentric_latitude(36.97) = 36.78525816408388, lon -3.54, depth
         * 609800 m, the tensor as written, time 2010-04-11T22:08:12.8Z = 1271023692.8 s. The
         * preferredOriginID names no origin of the file, so the first (only) origin is used. */
        data_path(x, "GCMT_event_STRAIT_OF_GIBRALTAR.xml", path, sizeof path);
        CHECK(t, axb_read_quakeml(path, &l, &err) == AXB_OK && l.n == 1);
        if (l.n == 1) {
            const axb_source *s = &l.src[0];
            CHECK_CLOSE(t, s->lat, 36.78525816408388, 1e-12);
            CHECK(t, s->lon == -3.54 && s->depth == 609800.0);
            const double m[6] = {-2.16e18, 5.36e17, 1.62e18, 1.3e16, 3.23e18, 1.75e18};
            for (int i = 0; i < 6; i++) CHECK(t, s->m[i] == m[i]);
            CHECK(t, s->origin_time == INT64_C(1271023692800000000));
            CHECK_STR(t, s->name, "2848764"); /* tail of the event's publicID */
        }
        axb_source_list_free(&l);
        /* quake.xml (Instaseis' Source.parse doctest: 2010-03-24T14:11:31, lat 38.6 printed,
         * depth 4.5 km, Mrr 5.47e15 ... Mtp 1.92e16); geocentric(38.82) = 38.63217177150759 */
        data_path(x, "quake.xml", path, sizeof path);
        CHECK(t, axb_read_quakeml(path, &l, &err) == AXB_OK && l.n == 1);
        if (l.n == 1) {
            const axb_source *s = &l.src[0];
            CHECK_CLOSE(t, s->lat, 38.63217177150759, 1e-12);
            CHECK(t, s->lon == 40.14 && s->depth == 4500.0);
            const double m[6] = {5.47e15, -4.11e16, 3.56e16, 2.26e16, -2.25e16, 1.92e16};
            for (int i = 0; i < 6; i++) CHECK(t, s->m[i] == m[i]);
            CHECK(t, s->origin_time == INT64_C(1269439891000000000));
        }
        axb_source_list_free(&l);
    }

    /* Instaseis' test_higher_level_event_and_receiver_parsing: the event is moved to geographic
     * latitude geocentric_to_elliptic_latitude(89.91) = 89.91060249321797, lon 0, depth 12 km,
     * 2014-01-05 (= 1388880000 s), the standard tensor; the reader must give back 89.91. */
    const char *p = put(x, "higher.xml",
                        QML_HEAD "<event publicID=\"smi:local/event/1\">\n"
                                 "<description><text>GIBRALTAR</text><type>earthquake name</type></description>\n"
                                 "<origin publicID=\"smi:o1\"><time><value>2014-01-05T00:00:00.000000Z</value></time>"
                                 "<latitude><value>89.91060249321797</value></latitude>"
                                 "<longitude><value>0.0</value></longitude><depth><value>12000.0</value></depth>"
                                 "</origin>\n" QML_FM("4.71e17") "</event>\n" QML_TAIL);
    CHECK(t, axb_read_quakeml(p, &l, &err) == AXB_OK && l.n == 1);
    if (l.n == 1) {
        const axb_source *s = &l.src[0];
        CHECK_CLOSE(t, s->lat, 89.91, 1e-12);
        CHECK(t, s->lon == 0.0 && s->depth == 12000.0);
        CHECK(t, s->m[0] == 4.71e17 && s->m[1] == 3.81e15 && s->m[5] == -1.23e17);
        CHECK(t, s->origin_time == INT64_C(1388880000000000000));
        CHECK_STR(t, s->name, "GIBRALTAR");
    }
    axb_source_list_free(&l);

    /* Two events; the second's preferred origin and focal mechanism are the second ones, and its
     * origin has no depth (NAN). */
    p = put(
        x, "two.xml",
        QML_HEAD
        "<event publicID=\"smi:e1\"><origin publicID=\"smi:a\"><time><value>2000-01-01T00:00:00Z"
        "</value></time><latitude><value>0</value></latitude><longitude><value>1</value>"
        "</longitude></origin>\n" QML_FM(
            "1") "</event>\n"
                 "<event publicID=\"smi:e2\"><preferredOriginID>smi:c</preferredOriginID>"
                 "<preferredFocalMechanismID>smi:fm2</preferredFocalMechanismID>"
                 "<origin publicID=\"smi:b\"><time><value>2000-01-01T00:00:00Z</value></time>"
                 "<latitude><value>10</value></latitude><longitude><value>10</value></longitude></origin>\n"
                 "<origin publicID=\"smi:c\"><time><value>2001-01-01T00:00:01.5Z</value></time>"
                 "<latitude><value>-10.5</value></latitude><longitude><value>-20</value></longitude></origin>\n" QML_FM(
                     "2") "<focalMechanism publicID=\"smi:fm2\"><momentTensor><tensor>"
                          "<Mrr><value>7</value></Mrr><Mtt><value>8</value></Mtt><Mpp><value>9</value></Mpp>"
                          "<Mrt><value>10</value></Mrt><Mrp><value>11</value></Mrp><Mtp><value>12</value></Mtp>"
                          "</tensor></momentTensor></focalMechanism>\n</event>\n" QML_TAIL);
    CHECK(t, axb_read_quakeml(p, &l, &err) == AXB_OK && l.n == 2);
    if (l.n == 2) {
        CHECK(t, l.src[0].m[0] == 1 && l.src[0].lon == 1 && isnan(l.src[0].depth));
        CHECK_STR(t, l.src[0].name, "e1");
        const axb_source *s = &l.src[1];
        /* Instaseis: elliptic_to_geocentric_latitude(-10.5) = -10.43125699493292 */
        CHECK_CLOSE(t, s->lat, -10.43125699493292, 1e-12);
        CHECK(t, s->lon == -20 && isnan(s->depth));
        CHECK(t, s->m[0] == 7 && s->m[1] == 8 && s->m[2] == 9 && s->m[3] == 10 && s->m[4] == 11 && s->m[5] == 12);
        CHECK(t, s->origin_time == INT64_C(978307201500000000)); /* 2001-01-01T00:00:01.5 */
    }
    axb_source_list_free(&l);

    /* Malformed documents. */
    static const struct {
        const char *body;
        axb_status code;
        const char *msg;
    } bad[] = {
        {"<event><origin><time><value>2000-01-01</value></time>\n<latitude>\n<value>abc</value>"
         "</latitude><longitude><value>1</value></longitude></origin>" QML_FM("1") "</event>",
         AXB_ERR_FORMAT, ":6: <latitude>: 'abc' is not a number"},
        {"<event><origin><time><value>2000-01-01</value></time><latitude><value>95</value>"
         "</latitude><longitude><value>1</value></longitude></origin>" QML_FM("1") "</event>",
         AXB_ERR_RANGE, ":4: <latitude>: 95 is outside -90..90"},
        {"<event><origin><time><value>2000-01-01</value></time><latitude><value>5</value>"
         "</latitude><longitude><value>1</value></longitude><depth><value>-10</value></depth>"
         "</origin>" QML_FM("1") "</event>",
         AXB_ERR_RANGE, ":4: <depth>: -10 is negative (depths are below the surface)"},
        {"<event><origin><time><value>2000-01-01</value></time><latitude><value>5</value>"
         "</latitude></origin>" QML_FM("1") "</event>",
         AXB_ERR_FORMAT, ":4: <origin> has no <longitude><value>"},
        {"<event><origin><time><value>yesterday</value></time><latitude><value>5</value>"
         "</latitude><longitude><value>1</value></longitude></origin>" QML_FM("1") "</event>",
         AXB_ERR_FORMAT, ":4: <time>: 'yesterday' is not an ISO 8601 time"},
        {"<event><origin><time><value>2000-01-01</value></time><latitude><value>5</value>"
         "</latitude><longitude><value>1</value></longitude></origin></event>",
         AXB_ERR_FORMAT, ":4: event 1 has no <focalMechanism>"},
        {"<event><focalMechanism/></event>", AXB_ERR_FORMAT, ":4: event 1 has no <origin>"},
        {"<event><origin><time><value>2000-01-01</value></time><latitude><value>5</value>"
         "</latitude><longitude><value>1</value></longitude></origin>\n<focalMechanism>"
         "<nodalPlanes/></focalMechanism></event>",
         AXB_ERR_FORMAT, ":5: event 1: <focalMechanism> has no <momentTensor>"},
        {"<event><origin><time><value>2000-01-01</value></time><latitude><value>5</value>"
         "</latitude><longitude><value>1</value></longitude></origin>" QML_FM("inf") "</event>",
         AXB_ERR_FORMAT, ":4: <Mrr>: 'inf' is not a number"},
        /* issue #19 */
        {"<event><origin><time><value>2000-01-01</value></time><latitude><value>5</value>"
         "</latitude><longitude><value>1</value></longitude></origin>" QML_FM("1e300") "</event>",
         AXB_ERR_RANGE,
         ":4: <tensor> Mrr = 1e+300 N·m exceeds 1e+30 N·m (Mw 13.9; the largest earthquakes reach 3e23 N·m)"},
        {"<event><origin><time><value>1500-01-01</value></time><latitude><value>5</value>"
         "</latitude><longitude><value>1</value></longitude></origin>" QML_FM("1") "</event>",
         AXB_ERR_RANGE,
         ":4: <time>: year 1500 is outside 1678..2261, the years axibulk's times (int64 nanoseconds) hold"},
        {"", AXB_ERR_FORMAT, ": no <event> in <eventParameters>"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char content[4096];
        snprintf(content, sizeof content, "%s%s\n%s", QML_HEAD, bad[i].body, QML_TAIL);
        p = put(x, "bad.xml", content);
        axb_error_clear(&err);
        expect_msg(x, axb_read_quakeml(p, &l, &err), &err, bad[i].code, p, bad[i].msg);
        CHECK(t, l.n == 0 && l.src == NULL);
    }
    /* Issue #19 (found by fuzz_quakeml): with an encoding its bytes do not fit, libxml2 printed
     * "encoding error : input conversion failed ..." lines on stderr besides axibulk's message.
     * Nothing may reach stderr; the one message names the file. */
    {
        p = put(x, "sjis.xml",
                "<?xml version=\"1.0\" encoding=\"SHIFT_JIS\"?>\n<quakeml>\x8a\x9d\x93\x96\x9c\xff\xfe</quakeml>\n");
        char cap[1100];
        snprintf(cap, sizeof cap, "%s/stderr.txt", x->dir);
        fflush(stderr);
        const int saved = dup(2);
        FILE *cf = fopen(cap, "w");
        dup2(fileno(cf), 2);
        axb_error_clear(&err);
        const axb_status st = axb_read_quakeml(p, &l, &err);
        axb_receiver_list rl;
        axb_error err2 = AXB_ERROR_INIT;
        const axb_status st2 = axb_read_stationxml(p, &rl, &err2);
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        fclose(cf);
        char *printed = slurp(cap);
        CHECK(t, st == AXB_ERR_FORMAT && st2 == AXB_ERR_FORMAT && l.n == 0);
        CHECK(t, !strncmp(err.msg, p, strlen(p)) && !strncmp(err2.msg, p, strlen(p)));
        CHECK_MSG(t, printed && printed[0] == '\0', "libxml2 wrote to stderr: %.200s", printed ? printed : "?");
        free(printed);
    }
    p = put(x, "truncated.xml", QML_HEAD "<event><origin>\n<time>");
    CHECK(t, axb_read_quakeml(p, &l, &err) == AXB_ERR_FORMAT);
    CHECK_CONTAINS(t, err.msg, "truncated.xml:5: not well-formed XML: Premature end of data");
    p = put(x, "empty.xml", "");
    CHECK(t, axb_read_quakeml(p, &l, &err) == AXB_ERR_FORMAT);
    CHECK_CONTAINS(t, err.msg, "empty.xml:1: not well-formed XML: Document is empty");
    p = put(x, "station.xml", "<FDSNStationXML/>");
    expect_msg(x, axb_read_quakeml(p, &l, &err), &err, AXB_ERR_FORMAT, p,
               ": not a QuakeML file (root element <FDSNStationXML>, expected <quakeml>)");
    char missing[1100];
    snprintf(missing, sizeof missing, "%s/nothing.xml", x->dir);
    expect_msg(x, axb_read_quakeml(missing, &l, &err), &err, AXB_ERR_IO, missing,
               ": cannot open: No such file or directory");
}

/* ------------------------------------------------------------------------------------------ */
/* StationXML and STATIONS                                                                    */

#define SXML_HEAD                                                                                                      \
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"                                                                     \
    "<FDSNStationXML xmlns=\"http://www.fdsn.org/xml/station/1\" schemaVersion=\"1.0\">\n"                             \
    "<Source>test</Source><Created>2020-01-01T00:00:00</Created>\n"
#define SXML_TAIL "</FDSNStationXML>\n"
#define SXML_CHAN(loc, code, lat, lon)                                                                                 \
    "<Channel code=\"" code "\" locationCode=\"" loc "\"><Latitude>" lat "</Latitude><Longitude>" lon                  \
    "</Longitude><Elevation>1</Elevation><Depth>0</Depth></Channel>"

static void test_stationxml(tctx *x)
{
    check_ctx *t = &x->c;
    axb_error err = AXB_ERROR_INIT;
    axb_receiver_list l = {0};
    char path[1024];
    if (x->data[0]) {
        /* TA.Q56A: three BH channels at 39.041, -79.1871 -> one receiver; Instaseis:
         * elliptic_to_geocentric_latitude(39.041) = 38.85285508658109 */
        data_path(x, "TA.Q56A..BH.xml", path, sizeof path);
        CHECK(t, axb_read_stationxml(path, &l, &err) == AXB_OK && l.n == 1);
        if (l.n == 1) {
            CHECK_CLOSE(t, l.rec[0].lat, 38.85285508658109, 1e-12);
            CHECK(t, l.rec[0].lon == -79.1871 && isnan(l.rec[0].depth));
            CHECK_STR(t, l.rec[0].network, "TA");
            CHECK_STR(t, l.rec[0].station, "Q56A");
            CHECK_STR(t, l.rec[0].location, "");
        }
        axb_receiver_list_free(&l);
    }
    /* Instaseis' higher-level test: receiver moved to geographic latitude
     * geocentric_to_elliptic_latitude(42.6390) = 42.83082314080133, lon 74.4940. */
    const char *p =
        put(x, "sta.xml",
            SXML_HEAD "<Network code=\"TA\"><Station code=\"Q56A\">"
                      "<Latitude>42.83082314080133</Latitude><Longitude>74.494</Longitude>"
                      "<Elevation>1</Elevation>" SXML_CHAN("", "BHZ", "42.83082314080133", "74.494")
                          SXML_CHAN("", "BHN", "42.83082314080133", "74.494") "</Station></Network>\n" SXML_TAIL);
    CHECK(t, axb_read_stationxml(p, &l, &err) == AXB_OK && l.n == 1);
    if (l.n == 1) {
        CHECK_CLOSE(t, l.rec[0].lat, 42.639, 1e-12);
        CHECK(t, l.rec[0].lon == 74.494);
        /* site metadata kept for the outputs (#20): latitude as given, station elevation, the
         * first channel's depth below the ground; the receiver itself stays at the surface */
        CHECK(t, l.rec[0].has_site && l.rec[0].geo_lat == 42.83082314080133);
        CHECK(t, l.rec[0].elevation == 1.0 && l.rec[0].burial == 0.0 && isnan(l.rec[0].depth));
    }
    axb_receiver_list_free(&l);

    /* Several networks; a station without channels takes its own coordinates; channels of two
     * location codes collapse; an exact repeat of a station is dropped. */
    p = put(x, "multi.xml",
            SXML_HEAD
            "<Network code=\"IU\">"
            "<Station code=\"ANMO\"><Latitude>34.9459</Latitude><Longitude>-106.4572</Longitude></Station>"
            "<Station code=\"COLA\"><Latitude>0</Latitude><Longitude>0</Longitude>" SXML_CHAN("00", "BHZ", "64.8736",
                                                                                              "-147.8616")
                SXML_CHAN(
                    "10", "BHZ", "64.8736",
                    "-147.8616") "</Station>"
                                 "<Station "
                                 "code=\"ANMO\"><Latitude>34.9459</Latitude><Longitude>-106.4572</Longitude></Station>"
                                 "</Network>\n<Network code=\"II\"><Station code=\"AAK\"><Latitude>42.639</Latitude>"
                                 "<Longitude>74.494</Longitude></Station></Network>\n" SXML_TAIL);
    CHECK(t, axb_read_stationxml(p, &l, &err) == AXB_OK && l.n == 3);
    if (l.n == 3) {
        CHECK_STR(t, l.rec[0].station, "ANMO");
        CHECK_STR(t, l.rec[1].station, "COLA");
        CHECK_STR(t, l.rec[2].network, "II");
        CHECK_STR(t, l.rec[2].station, "AAK");
        CHECK(t, l.rec[0].lat == axb_geocentric_latitude(34.9459) && l.rec[0].lon == -106.4572);
        CHECK(t, l.rec[1].lat == axb_geocentric_latitude(64.8736) && l.rec[1].lon == -147.8616);
        /* no <Elevation>, no channel <Depth>: not given */
        CHECK(t, l.rec[0].has_site && isnan(l.rec[0].elevation) && isnan(l.rec[0].burial));
        /* Instaseis: elliptic_to_geocentric_latitude(42.639) = 42.447282895793926 */
        CHECK_CLOSE(t, l.rec[2].lat, 42.447282895793926, 1e-12);
    }
    axb_receiver_list_free(&l);

    static const struct {
        const char *body;
        axb_status code;
        const char *msg;
    } bad[] = {
        {"<Network code=\"IU\"><Station code=\"COLA\"><Latitude>0</Latitude><Longitude>0</Longitude>"
         "\n" SXML_CHAN("00", "BHZ", "64.8736", "-147.8616") "\n" SXML_CHAN("10", "BHZ", "64.8737",
                                                                            "-147.8616") "</Station></Network>",
         AXB_ERR_FORMAT,
         ":6: the coordinates of the channels of station 'IU.COLA' are not identical "
         "(64.873699999999999, -147.86160000000001) vs (64.873599999999996, -147.86160000000001)"},
        {"<Network code=\"IU\"><Station code=\"ANMO\"><Longitude>0</Longitude></Station></Network>", AXB_ERR_FORMAT,
         ":4: <Station> has no <Latitude>"},
        {"<Network><Station code=\"ANMO\"><Latitude>1</Latitude><Longitude>0</Longitude></Station>"
         "</Network>",
         AXB_ERR_FORMAT, ":4: <Network> has no code"},
        {"<Network code=\"IU\"><Station code=\"ANMO\"><Latitude>north</Latitude><Longitude>0"
         "</Longitude></Station></Network>",
         AXB_ERR_FORMAT, ":4: <Latitude>: 'north' is not a number"},
        {"<Network code=\"IU\"><Station code=\"ANMO\"><Latitude>95</Latitude><Longitude>0"
         "</Longitude></Station></Network>",
         AXB_ERR_RANGE, ":4: station 'IU.ANMO': <Latitude>: 95 is outside -90..90"},
        {"<Network code=\"IU\"><Station code=\"ABCDEFGHIJ\"><Latitude>5</Latitude><Longitude>0"
         "</Longitude></Station></Network>",
         AXB_ERR_RANGE, ":4: <Station>: code 'ABCDEFGHIJ' is longer than 7 characters"},
        {"<Network code=\"IU\"/>", AXB_ERR_FORMAT, ": no <Station> in any <Network>"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char content[4096];
        snprintf(content, sizeof content, "%s%s\n%s", SXML_HEAD, bad[i].body, SXML_TAIL);
        p = put(x, "bad_sta.xml", content);
        axb_error_clear(&err);
        expect_msg(x, axb_read_stationxml(p, &l, &err), &err, bad[i].code, p, bad[i].msg);
        CHECK(t, l.n == 0 && l.rec == NULL);
    }
    p = put(x, "quake_root.xml", QML_HEAD QML_TAIL);
    expect_msg(x, axb_read_stationxml(p, &l, &err), &err, AXB_ERR_FORMAT, p,
               ": not a StationXML file (root element <quakeml>, expected <FDSNStationXML>)");
    p = put(x, "broken.xml", SXML_HEAD "<Network code=\"IU\"></Netw>");
    CHECK(t, axb_read_stationxml(p, &l, &err) == AXB_ERR_FORMAT && l.n == 0);
    CHECK_CONTAINS(t, err.msg, "broken.xml:4: not well-formed XML:");
}

static void test_stations(tctx *x)
{
    check_ctx *t = &x->c;
    axb_error err = AXB_ERROR_INIT;
    axb_receiver_list l = {0};
    const char *p = put(x, "STATIONS",
                        "ANMO IU 34.9459 -106.4572 1850.0 100.0\n"
                        "COLA IU 64.8736 -147.8616 200.0 0.0\n"
                        "\n"
                        "AAK  II 42.6390 74.4940 1645.0 30.0\n"
                        "ANMO IU 34.9459 -106.4572 1850.0 100.0\n");
    CHECK(t, axb_read_stations(p, &l, &err) == AXB_OK && l.n == 3); /* repeat of ANMO dropped */
    if (l.n == 3) {
        CHECK_STR(t, l.rec[0].station, "ANMO");
        CHECK_STR(t, l.rec[0].network, "IU");
        CHECK_STR(t, l.rec[2].station, "AAK");
        CHECK_STR(t, l.rec[2].network, "II");
        CHECK_CLOSE(t, l.rec[2].lat, 42.447282895793926, 1e-12);   /* Instaseis, see above */
        CHECK(t, l.rec[2].lon == 74.494 && isnan(l.rec[2].depth)); /* burial not used */
        CHECK(t, l.rec[1].lat == axb_geocentric_latitude(64.8736));
        /* ... but kept, with elevation and the latitude as given, for the outputs (#20) */
        CHECK(t, l.rec[2].has_site && l.rec[2].geo_lat == 42.639);
        CHECK(t, l.rec[2].elevation == 1645.0 && l.rec[2].burial == 30.0);
        CHECK(t, l.rec[0].elevation == 1850.0 && l.rec[0].burial == 100.0 && isnan(l.rec[0].depth));
    }
    axb_receiver_list_free(&l);
    static const struct {
        const char *line;
        axb_status code;
        const char *msg;
    } bad[] = {
        {"AAK II 42.6390 74.4940 1645.0", AXB_ERR_FORMAT,
         ":2: expected 6 fields (STA NET LAT LON ELEVATION BURIAL), found 5"},
        {"AAK II 42.6390 74.4940 1645.0 x", AXB_ERR_FORMAT, ":2: field 6 (BURIAL): 'x' is not a number"},
        {"AAK II 91 74.4940 1645.0 0", AXB_ERR_RANGE, ":2: field 3 (LAT): 91 is outside -90..90"},
        {"ABCDEFGH II 42 74 0 0", AXB_ERR_RANGE, ":2: field 1 (STA): code 'ABCDEFGH' is longer than 7 characters"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char content[256];
        snprintf(content, sizeof content, "ANMO IU 34.9459 -106.4572 1850.0 100.0\n%s\n", bad[i].line);
        p = put(x, "STATIONS_bad", content);
        axb_error_clear(&err);
        expect_msg(x, axb_read_stations(p, &l, &err), &err, bad[i].code, p, bad[i].msg);
        CHECK(t, l.n == 0 && l.rec == NULL);
    }
    p = put(x, "STATIONS_empty", "");
    expect_msg(x, axb_read_stations(p, &l, &err), &err, AXB_ERR_FORMAT, p, ": no stations (the file is empty)");
}

/* ------------------------------------------------------------------------------------------ */
/* SRF                                                                                        */

static void test_srf_shared(tctx *x)
{
    check_ctx *t = &x->c;
    axb_error err = AXB_ERROR_INIT;
    axb_source_list l = {0};
    char path[1024];
    data_path(x, "strike_slip_eq_10pts.srf", path, sizeof path);
    CHECK(t, axb_read_srf(path, true, &l, &err) == AXB_OK);
    CHECK(t, l.n == 10);
    /* test_source.py: test_parse_srf_file (assert_allclose: rtol 1e-7, atol 0) */
    const double lons[10] = {0.0, 0.99925, 1.99849, 2.99774, 3.99698, 4.99623, 5.99548, 6.99472, 7.99397, 8.99322};
    const double ref[6] = {0.0, -3.91886976e03, 3.91886976e03, -1.19980783e-13, 1.95943488e03, 3.2e19};
    /* the same at full precision from running Instaseis */
    const double full[6] = {
        0.0, -3918.8697572715305, 3918.8697572715305, -1.1998078261294862e-13, 1959.4348786357652, 3.2e+19};
    for (int64_t i = 0; i < l.n && i < 10; i++) {
        const axb_source *s = &l.src[i];
        CHECK(t, s->lat == 0.0 && s->lon == lons[i] && s->depth == 5e4);
        CHECK(t, s->m[0] == 0.0);
        for (int c = 1; c < 6; c++) {
            CHECK_REL(t, s->m[c], ref[c], 1e-7);
            CHECK_REL(t, s->m[c], full[c], 1e-9);
        }
        CHECK(t, s->dt == 5.0 && s->nsliprate == 100);
    }
    if (l.n == 10) {
        /* time shifts from the file; trapz of the raw sliprate is 1.0 (Instaseis), so sample 1
         * stays 8e-5 */
        CHECK(t, l.src[1].time_shift == 24.69136 && l.src[0].time_shift == 0.0);
        CHECK_REL(t, l.src[0].sliprate[1], 8e-5, 1e-12);
        /* test_hypocenter, and M0 3.2e20, rupture duration 222.22222 (Instaseis' printout) */
        const int64_t h = axb_source_list_hypocentre(&l);
        CHECK(t, h == 0);
        if (h == 0) CHECK(t, l.src[h].lat == 0.0 && l.src[h].lon == 0.0 && l.src[h].depth == 50e3);
        CHECK_REL(t, axb_source_list_m0(&l), 3.2e20, 1e-12);
        CHECK_CLOSE(t, axb_moment_mw(axb_source_list_m0(&l)), 7.6034333188799375, 1e-12);
        CHECK_CLOSE(t, axb_source_list_rupture_duration(&l), 222.22222, 1e-9);
        /* test_resample_stf: dt 1, nsamp 10 (rtol 1e-7), and Instaseis' full-precision values */
        const double sr[10] = {0.0,     1.6e-05,  3.2e-05,  4.8e-05,  6.4e-05,
                               8.0e-05, 1.84e-04, 2.88e-04, 3.92e-04, 4.96e-04};
        for (int64_t i = 0; i < l.n; i++) {
            CHECK(t, axb_source_resample_sliprate(&l.src[i], 1.0, 10, &err) == AXB_OK);
            CHECK(t, l.src[i].nsliprate == 10 && l.src[i].dt == 1.0);
            for (int k = 0; k < 10 && l.src[i].nsliprate == 10; k++) CHECK_REL(t, l.src[i].sliprate[k], sr[k], 1e-7);
        }
        CHECK_REL(t, l.src[0].sliprate[1], 1.6000000000000003e-05, 1e-14);
        CHECK_REL(t, l.src[0].sliprate[7], 0.000288, 1e-14);
    }
    axb_source_list_free(&l);

    /* the same file behind four empty lines (test_parse_srf_file's second half) */
    char *text = slurp(path);
    CHECK(t, text != NULL);
    if (text) {
        char *padded = malloc(strlen(text) + 5);
        sprintf(padded, "\n\n\n\n%s", text);
        const char *p = put(x, "padded.srf", padded);
        CHECK(t, axb_read_srf(p, true, &l, &err) == AXB_OK && l.n == 10);
        axb_source_list_free(&l);
        free(padded);
        free(text);
    }

    /* 2 points, the first with slip on u1 and u2 (same rake, Instaseis' quirk): 3 sources of
     * M0 = 1e14 cm² · 1e-4 · 32e9 · 10 cm · 1e-2 = 3.2e19 each; without normalisation the
     * sliprate is the file's (sample 1 = 8e-5). Instaseis gives the same 3 sources; the stray
     * third point line after the two announced points is ignored, as Instaseis does. */
    data_path(x, "strike_slip_eq_2pts.srf", path, sizeof path);
    CHECK(t, axb_read_srf(path, false, &l, &err) == AXB_OK && l.n == 3);
    if (l.n == 3) {
        for (int i = 0; i < 3; i++) CHECK_REL(t, axb_moment_m0(l.src[i].m), 3.2e19, 1e-12);
        CHECK(t, l.src[0].sliprate[1] == 8e-5 && l.src[1].sliprate[1] == 8e-5);
        for (int c = 0; c < 6; c++) CHECK(t, l.src[0].m[c] == l.src[1].m[c]);
        CHECK(t, l.src[2].lon == 0.99925 && l.src[2].time_shift == 24.69136);
        CHECK_STR(t, l.src[0].name, "point_000001");
        CHECK_STR(t, l.src[1].name, "point_000001_u2");
        CHECK_STR(t, l.src[2].name, "point_000002");
    }
    axb_source_list_free(&l);
}

/* A two-point SRF; %s slots replace the lines (see the defaults in test_srf_small). */
static void srf_text(char *out, size_t n, const char *l3, const char *l4, const char *l5, const char *tail)
{
    snprintf(out, n,
             "1.0\n"
             "POINTS 2\n"
             "%s\n%s\n%s\n"
             "1.0 0.0 10.0 90.0 90.0 1.0e10 2.0 0.5\n"
             "0.0 10.0 4 0.0 0 0.0 0\n"
             "0 1\n"
             "1 0\n%s",
             l3, l4, l5, tail);
}

static void test_srf_small(tctx *x)
{
    check_ctx *t = &x->c;
    axb_error err = AXB_ERROR_INIT;
    axb_source_list l = {0};
    const char *L3 = "0.0 0.0 10.0 90.0 90.0 1.0e10 0.0 0.5", *L4 = "0.0 10.0 4 0.0 0 0.0 0", *L5 = "0 1 1 0";
    char text[2048];
    srf_text(text, sizeof text, L3, L4, L5, "");
    const char *p = put(x, "small.srf", text);
    CHECK(t, axb_read_srf(p, true, &l, &err) == AXB_OK && l.n == 2);
    if (l.n == 2) {
        /* M0 = 1e10 cm² → 1e6 m², × 32e9 Pa × 0.1 m = 3.2e15; trapz([0,1,1,0], dx 0.5) = 1 */
        CHECK_REL(t, axb_moment_m0(l.src[0].m), 3.2e15, 1e-14);
        CHECK(t, l.src[1].sliprate[0] == 0 && l.src[1].sliprate[1] == 1 && l.src[1].nsliprate == 4);
        CHECK(t, l.src[1].lon == 1.0 && l.src[1].time_shift == 2.0 && l.src[0].depth == 1e4);
    }
    axb_source_list_free(&l);

    static const struct {
        const char *l3, *l4, *l5, *tail;
        axb_status code;
        const char *msg;
    } bad[] = {
        {NULL, "0.0 10.0 4 0.0 0 1.0 3", NULL, "", AXB_ERR_UNSUPPORTED,
         ":4: point 1: slip along the u3 axis (NT3 = 3) is not supported (as in Instaseis)"},
        {NULL, NULL, "0 1 x 0", "", AXB_ERR_FORMAT, ":5: field 3 (sliprate value 3): 'x' is not a number"},
        {NULL, NULL, "0 1 1 0 7", "", AXB_ERR_FORMAT, ":5: point 1: more than the 4 sliprate values announced"},
        {NULL, NULL, NULL, "PLANE 2\nPOINTS 1\n", AXB_ERR_UNSUPPORTED,
         ":11: a second POINTS block after 2 points (multi-plane SRF files are not supported)"},
        {"0.0 0.0 10.0 90.0 90.0 1.0e10 0.0 0.5 3", NULL, NULL, "", AXB_ERR_FORMAT,
         ":3: point 1: expected 8 values (LON LAT DEP STK DIP AREA TINIT DT) or 10 (SRF 2.0: ... VS "
         "DEN), found 9"},
        {"0.0 100.0 10.0 90.0 90.0 1.0e10 0.0 0.5", NULL, NULL, "", AXB_ERR_RANGE,
         ":3: field 2 (LAT): 100 is outside -90..90"},
        {"0.0 0.0 -1.0 90.0 90.0 1.0e10 0.0 0.5", NULL, NULL, "", AXB_ERR_RANGE,
         ":3: field 3 (DEP): -1 is negative (depths are below the surface)"},
        {"0.0 0.0 10.0 90.0 90.0 1.0e10 0.0 0", NULL, NULL, "", AXB_ERR_RANGE,
         ":4: point 1: sliprate sampling interval DT = 0 is not positive"},
        {NULL, "0.0 10.0 2.5 0.0 0 0.0 0", NULL, "", AXB_ERR_FORMAT, ":4: field 3 (NT1): '2.5' is not a sample count"},
        {NULL, "0.0 -10.0 4 0.0 0 0.0 0", NULL, "", AXB_ERR_RANGE, ":4: point 1: negative slip -10 cm"},
        {NULL, NULL, "0 0 0 0", "", AXB_ERR_RANGE, ":4: point 1: sliprate integrates to 0 and cannot be normalised"},
        /* issue #19: a negative TINIT was taken (the .param reader refuses a negative t_rup) */
        {"0.0 0.0 10.0 90.0 90.0 1.0e10 -0.5 0.5", NULL, NULL, "", AXB_ERR_RANGE,
         ":3: field 7 (TINIT): negative rupture time -0.5 is not supported"},
        /* and moments beyond 1e30 N·m: 1e296 m² · 32 GPa · 0.1 m */
        {"0.0 0.0 10.0 90.0 90.0 1.0e300 0.0 0.5", NULL, NULL, "", AXB_ERR_RANGE,
         ":4: point 1: moment 3.2e+305 N·m (AREA · 32 GPa · SLIP) exceeds 1e+30 N·m"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        srf_text(text, sizeof text, bad[i].l3 ? bad[i].l3 : L3, bad[i].l4 ? bad[i].l4 : L4, bad[i].l5 ? bad[i].l5 : L5,
                 bad[i].tail);
        p = put(x, "bad.srf", text);
        axb_error_clear(&err);
        expect_msg(x, axb_read_srf(p, true, &l, &err), &err, bad[i].code, p, bad[i].msg);
        CHECK(t, l.n == 0 && l.src == NULL);
    }
    /* truncated inside the last block */
    srf_text(text, sizeof text, L3, L4, L5, "");
    text[strlen(text) - 4] = '\0'; /* drop "1 0\n" */
    p = put(x, "cut.srf", text);
    expect_msg(x, axb_read_srf(p, true, &l, &err), &err, AXB_ERR_FORMAT, p,
               ":9: unexpected end of file in point 2 of 2: sliprate values missing");
    p = put(x, "cut2.srf", "POINTS 2\n0.0 0.0 10.0 90.0 90.0 1.0e10 0.0 0.5\n");
    expect_msg(x, axb_read_srf(p, true, &l, &err), &err, AXB_ERR_FORMAT, p,
               ":3: unexpected end of file in point 1 of 2: the slip line missing");
    p = put(x, "nopoints.srf", "1.0\nPLANE 1\n");
    expect_msg(x, axb_read_srf(p, true, &l, &err), &err, AXB_ERR_FORMAT, p, ": no 'POINTS' line (not an SRF file?)");
    p = put(x, "empty.srf", "");
    expect_msg(x, axb_read_srf(p, true, &l, &err), &err, AXB_ERR_FORMAT, p, ": no 'POINTS' line (not an SRF file?)");
    p = put(x, "badpoints.srf", "POINTS x\n");
    expect_msg(x, axb_read_srf(p, true, &l, &err), &err, AXB_ERR_FORMAT, p,
               ":1: 'POINTS' needs one positive number of points, found 'x'");
    p = put(x, "noslip.srf", "POINTS 1\n0 0 1 0 90 1 0 1\n0 0 0 0 0 0 0\n");
    expect_msg(x, axb_read_srf(p, true, &l, &err), &err, AXB_ERR_FORMAT, p, ": none of the 1 points has slip");
}

/* ------------------------------------------------------------------------------------------ */
/* USGS .param                                                                                */

static void check_point(tctx *x, const axb_source *s, double lat, double lon, double depth, double tshift,
                        const double m[6], const int *ks, const double *sr, int nsr)
{
    check_ctx *t = &x->c;
    CHECK_CLOSE(t, s->lat, lat, 1e-12);
    CHECK(t, s->lon == lon);
    CHECK_REL(t, s->depth, depth, 1e-15);
    CHECK(t, s->time_shift == tshift);
    for (int c = 0; c < 6; c++) CHECK_CLOSE(t, s->m[c], m[c], 1e-12 * axb_moment_m0(m));
    CHECK(t, s->nsliprate == 10000 && s->dt == 0.1);
    for (int i = 0; i < nsr && s->nsliprate == 10000; i++)
        CHECK_CLOSE(t, s->sliprate[ks[i]], sr[i], 1e-12 * fabs(sr[i]) + 1e-15);
}

static void test_usgs_shared(tctx *x)
{
    check_ctx *t = &x->c;
    axb_error err = AXB_ERROR_INIT;
    axb_source_list l = {0};
    char path[1024];
    const int ks[8] = {0, 1, 5, 50, 99, 100, 150, 9999};

    /* nepal.param: test_parse_usgs_param_file (Mw to 7 decimals), Instaseis' full values */
    data_path(x, "nepal.param", path, sizeof path);
    CHECK(t, axb_read_usgs_param(path, 10000, 0.1, 1.0, &l, &err) == AXB_OK);
    CHECK(t, l.n == 121);
    CHECK_CLOSE(t, axb_moment_mw(axb_source_list_m0(&l)), 7.87077609, 1.5e-7);
    CHECK_CLOSE(t, axb_moment_mw(axb_source_list_m0(&l)), 7.870776091042924, 1e-12);
    CHECK_REL(t, axb_source_list_m0(&l), 8.0568288217e+20, 1e-12);
    CHECK_CLOSE(t, axb_source_list_rupture_duration(&l), 107.6, 1e-12);
    if (l.n == 121) {
        const int64_t h = axb_source_list_hypocentre(&l);
        CHECK(t, h == 63);
        if (h == 63) {
            CHECK_CLOSE(t, l.src[h].lat, 27.920472231384913, 1e-12);
            CHECK(t, l.src[h].lon == 84.78);
            CHECK_CLOSE(t, l.src[h].depth, 13883.7, 1e-9);
        }
        /* first point: rise 9.6 s, fall 6.4 s */
        check_point(x, &l.src[0], 26.714152559099325, 85.9416, 860.1, 107.6,
                    (const double[6]){5.95370339333728e+17, -4.276340009522675e+17, -1.6773633838146022e+17,
                                      1.2904022047036298e+18, -1.1032769740706867e+18, 2.7956037400573952e+17},
                    ks,
                    (const double[8]){0.0, 3.346328272713778e-05, 0.000834791744695064, 0.06658769557688395,
                                      0.1243235318727988, 0.1237990800252019, 0.00737992097822783, 0.0},
                    8);
        /* last point: rise 1.6 s, fall 1.6 s */
        check_point(
            x, &l.src[120], 28.672198991347226, 84.7286, 26907.3, 41.6,
            (const double[6]){5.3678636613487296e+17, -6.348582979541638e+17, 9.807193181929106e+16,
                              1.9434432299527734e+18, 6.780334379374432e+17, 4.286167484253189e+16},
            ks,
            (const double[8]){0.0, 0.0007523864574692646, 0.018449802445569558, 0.1257671371849801, 0.0, 0.0, 0.0, 0.0},
            8);
        CHECK_STR(t, l.src[120].name, "subfault_000121");
    }
    axb_source_list_free(&l);

    /* chile.param: 5 segments, 400 points, Mw 8.1974653082088 (7 decimals) */
    data_path(x, "chile.param", path, sizeof path);
    CHECK(t, axb_read_usgs_param(path, 10000, 0.1, 1.0, &l, &err) == AXB_OK);
    CHECK(t, l.n == 400);
    CHECK_CLOSE(t, axb_moment_mw(axb_source_list_m0(&l)), 8.1974653082088, 1.5e-7);
    CHECK_CLOSE(t, axb_moment_mw(axb_source_list_m0(&l)), 8.19746530820887, 1e-12);
    CHECK_CLOSE(t, axb_source_list_rupture_duration(&l), 97.6, 1e-9);
    if (l.n == 400) {
        const int64_t h = axb_source_list_hypocentre(&l);
        CHECK(t, h == 51);
        if (h == 51) {
            CHECK_CLOSE(t, l.src[h].lat, -19.56932514537378, 1e-12);
            CHECK(t, l.src[h].lon == -70.9755);
            CHECK_CLOSE(t, l.src[h].depth, 21887.4, 1e-9);
        }
        check_point(x, &l.src[0], -20.76002428280144, -70.8728, 17218.5, 94.0,
                    (const double[6]){5.3704515865193344e+17, -4569028151720879.0, -5.324761305002126e+17,
                                      2.7799317250612324e+16, -1.0753172972389504e+18, 7.13612181371138e+16},
                    ks,
                    (const double[8]){0.0, 2.698177743924569e-06, 6.743347900931084e-05, 0.006529930357088312,
                                      0.023254199237667805, 0.023663657977372063, 0.044956776889267504, 0.0},
                    8);
        check_point(x, &l.src[399], -18.447964750994192, -70.034, 70943.4, 86.0,
                    (const double[6]){6.124079971169697e+18, -1.393332755446505e+16, -6.110146643615233e+18,
                                      -2.5478226073484102e+17, -5.332703631894062e+18, 7.354951876370225e+17},
                    ks,
                    (const double[8]){0.0, 2.0985728748474084e-06, 5.244212895690202e-05, 0.005019343824583409,
                                      0.017251464440078336, 0.017537839005451777, 0.03122175468950487, 0.0},
                    8);
    }
    axb_source_list_free(&l);
}

#define PARAM_HEAD "#Total number of fault_segments=     1\n"
#define PARAM_SEG(n)                                                                                                   \
    "#Fault_segment =   " #n " nx(Along-strike)=  1 Dx= 20.00km ny(downdip)=  1 Dy= 15.00km\n"                         \
    "#Lat. Lon. depth slip rake strike dip t_rup t_ris t_fal mo\n"
#define PARAM_PT "26.869 85.9416 0.8601 18.14968 75.1493 295.0 10.0 107.6 9.6 6.4 1.800902e+25\n"

static void test_usgs_small(tctx *x)
{
    check_ctx *t = &x->c;
    axb_error err = AXB_ERROR_INIT;
    axb_source_list l = {0};
    const char *p = put(x, "one.param", PARAM_HEAD PARAM_SEG(1) PARAM_PT "\n");
    CHECK(t, axb_read_usgs_param(p, 10000, 0.1, 1.0, &l, &err) == AXB_OK && l.n == 1);
    if (l.n == 1) {
        /* nepal.param's first point, as above: M0 = 1.800902e25 dyne·cm · 1e-7 */
        CHECK_REL(t, axb_moment_m0(l.src[0].m), 1.800902e18, 1e-14);
        CHECK_CLOSE(t, l.src[0].sliprate[5], 0.000834791744695064, 1e-15);
    }
    axb_source_list_free(&l);
    /* trise_min raises a 0.5 s rise time to 2 s: peak 2/(2+6.4) at t = 2 s */
    p = put(x, "short.param", PARAM_HEAD PARAM_SEG(1) "0 0 1 1 0 0 90 0 0.5 6.4 1e20\n");
    CHECK(t, axb_read_usgs_param(p, 1000, 0.1, 2.0, &l, &err) == AXB_OK && l.n == 1);
    if (l.n == 1) CHECK_CLOSE(t, l.src[0].sliprate[20], 2.0 / 8.4, 1e-14);
    axb_source_list_free(&l);

    static const struct {
        const char *text;
        int64_t npts;
        axb_status code;
        const char *msg;
    } bad[] = {
        {"", 10000, AXB_ERR_FORMAT, ": the file is empty"},
        {"# some file\n", 10000, AXB_ERR_FORMAT,
         ":1: not a USGS .param file: the first line must start with '#Total number of fault_segments'"},
        {"#Total number of fault_segments= x\n", 10000, AXB_ERR_FORMAT,
         ":1: the number of fault segments must be one positive integer"},
        {PARAM_HEAD PARAM_SEG(1) "26.869 85.9416 0.8601 18.1 75.1 295.0 10.0 107.6 9.6 6.4\n", 10000, AXB_ERR_FORMAT,
         ":4: expected 11 values (lat lon depth slip rake strike dip t_rup t_ris t_fal mo), found 10"},
        {PARAM_HEAD PARAM_SEG(1) "26.869 85.9416 0.8601 x 75.1 295.0 10.0 107.6 9.6 6.4 1e25\n", 10000, AXB_ERR_FORMAT,
         ":4: field 4 (slip): 'x' is not a number"},
        {PARAM_HEAD PARAM_SEG(1) "91 85.9416 0.8601 1 75.1 295.0 10.0 107.6 9.6 6.4 1e25\n", 10000, AXB_ERR_RANGE,
         ":4: field 1 (lat): 91 is outside -90..90"},
        {PARAM_HEAD PARAM_SEG(1) "26.9 85.9416 0.8601 1 75.1 295.0 10.0 -1 9.6 6.4 1e25\n", 10000, AXB_ERR_RANGE,
         ":4: field 8 (t_rup): negative rupture time -1 is not supported"},
        {PARAM_HEAD PARAM_SEG(1) PARAM_PT, 10, AXB_ERR_RANGE,
         ":4: rise + fall time 16 s is longer than the 10 samples at 0.1 s of the sliprate; use more "
         "samples"},
        {PARAM_HEAD PARAM_SEG(1) "26.9 85.9416 0.8601 1 75.1 295.0 10.0 1 9.6 6.4 -1e25\n", 10000, AXB_ERR_RANGE,
         ":4: field 11 (mo): negative moment -1e+25"},
        {"#Total number of fault_segments=     2\n" PARAM_SEG(1) PARAM_PT, 10000, AXB_ERR_FORMAT,
         ": fault segment 2 of 2 has no '#Lat. Lon. depth' table (truncated file?)"},
        {PARAM_HEAD PARAM_SEG(1) PARAM_PT PARAM_SEG(2) PARAM_PT, 10000, AXB_ERR_FORMAT,
         ":5: more fault segments than the 1 declared in the first line"},
        {PARAM_HEAD PARAM_SEG(1), 10000, AXB_ERR_FORMAT, ": no point sources found in the file"},
        /* issue #19: non-physical moments, one point or the sum of many */
        {PARAM_HEAD PARAM_SEG(1) "26.9 85.9416 0.8601 1 75.1 295.0 10.0 1 9.6 6.4 1e300\n", 10000, AXB_ERR_RANGE,
         ":4: field 11 (mo): moment 1e+300 dyne·cm exceeds 1e+30 N·m"},
        {PARAM_HEAD PARAM_SEG(1) "26.9 85.9416 0.8601 1 75.1 295.0 10.0 1 9.6 6.4 6e36\n"
                                 "26.9 85.9416 0.8601 1 75.1 295.0 10.0 1 9.6 6.4 6e36\n",
         10000, AXB_ERR_RANGE, ": the total moment of the 2 point sources, 1.2e+30 N·m, exceeds 1e+30 N·m"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        p = put(x, "bad.param", bad[i].text);
        axb_error_clear(&err);
        expect_msg(x, axb_read_usgs_param(p, bad[i].npts, 0.1, 1.0, &l, &err), &err, bad[i].code, p, bad[i].msg);
        CHECK(t, l.n == 0 && l.src == NULL);
    }
    p = put(x, "ok.param", PARAM_HEAD PARAM_SEG(1) PARAM_PT);
    CHECK(t, axb_read_usgs_param(p, 0, 0.1, 1.0, &l, &err) == AXB_ERR_ARG && l.n == 0);
    CHECK_CONTAINS(t, err.msg, "npts > 1, dt > 0 and trise_min >= 0");
}

/* ------------------------------------------------------------------------------------------ */

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char path[1200];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

/* Numbers of the text formats: axb_in_parse_double (a fast path for short decimals, strtod for
 * the rest) must give strtod's bits for every decimal, and refuse what is not one. Strings of
 * every shape the fast path takes or hands on: 1–20 digits, a point anywhere or none, leading
 * and trailing zeros, exponents with and without sign or leading zeros, out to ±40. */
static void test_parse_double(tctx *x)
{
    uint64_t state = 0x9E3779B97F4A7C15ull;
    char buf[96];
    long bad = 0;
    for (int n = 0; n < 200000; n++) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        uint64_t r = state;
        char *p = buf;
        const int sign = (int)(r % 3);
        r /= 3;
        if (sign == 1) *p++ = '-';
        if (sign == 2) *p++ = '+';
        const int nd = 1 + (int)(r % 20), point = (int)((r / 20) % (unsigned)(nd + 2)) - 1;
        r /= 20 * 22;
        for (int d = 0; d < nd; d++) {
            if (d == point) *p++ = '.';
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            const int zeros = (int)(state % 4) == 0; /* runs of zeros, leading ones included */
            *p++ = zeros ? '0' : (char)('0' + (int)((state >> 8) % 10));
        }
        if (point == nd) *p++ = '.';
        if (r % 2) {
            *p++ = (r / 2) % 2 ? 'e' : 'E';
            const int es = (int)((r / 4) % 3);
            if (es == 1) *p++ = '-';
            if (es == 2) *p++ = '+';
            p += sprintf(p, (r / 12) % 4 ? "%d" : "%03d", (int)((r / 48) % 41));
        }
        *p = '\0';
        char *end;
        const double want = strtod(buf, &end);
        double got = 0;
        const bool ok = axb_in_parse_double(buf, &got);
        if (!ok || memcmp(&got, &want, sizeof got) != 0) {
            if (bad++ < 5) CHECK_MSG(&x->c, 0, "'%s': %.17g, strtod %.17g", buf, ok ? got : NAN, want);
        }
    }
    CHECK_MSG(&x->c, bad == 0, "%ld of 200000 decimals differ from strtod", bad);
    const char *refused[] = {"",     ".",   "+",   "-",   "e5", "1e", "1e+", "1.2.3",   "1e5.0",
                             "0x10", "nan", "inf", "1,5", " 1", "1 ", "--1", "1e99999", "1e400"};
    for (size_t k = 0; k < sizeof refused / sizeof *refused; k++) {
        double v = 0;
        CHECK_MSG(&x->c, !axb_in_parse_double(refused[k], &v), "'%s' was taken as %g", refused[k], v);
    }
    const char *taken[] = {"1.", ".5", "-0", "+7", "1e22", "1e-22", "123456789012345", "1234567890123456e-5"};
    for (size_t k = 0; k < sizeof taken / sizeof *taken; k++) {
        double v = 0;
        CHECK_MSG(&x->c, axb_in_parse_double(taken[k], &v) && v == strtod(taken[k], NULL), "'%s'", taken[k]);
    }
}

int main(int argc, char **argv)
{
    static tctx x; /* large buffers; static to keep them off the stack */
    const char *base = getenv("TMPDIR");
    snprintf(x.dir, sizeof x.dir, "%s/axb-inputs-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(x.dir)) {
        fprintf(stderr, "cannot create a scratch directory in %s\n", base ? base : "/tmp");
        return 2;
    }
    struct stat sb;
    if (argc > 1) {
        char probe[1100];
        snprintf(probe, sizeof probe, "%s/sources/nepal.param", argv[1]);
        if (stat(probe, &sb) == 0) snprintf(x.data, sizeof x.data, "%s", argv[1]);
    }
    test_parse_double(&x);
    test_pairs(&x);
    test_cmtsolution(&x);
    test_quakeml(&x);
    test_stationxml(&x);
    test_stations(&x);
    test_srf_small(&x);
    test_usgs_small(&x);
    if (x.data[0]) {
        test_srf_shared(&x);
        test_usgs_shared(&x);
    }
    remove_dir(x.dir);
    int rc = check_summary(&x.c);
    if (!x.data[0]) {
        printf("shared data not found (%s): the tests on the shared source files were skipped\n",
               argc > 1 ? argv[1] : "no path given");
        if (rc == 0) return CHECK_SKIP;
    }
    return rc;
}
