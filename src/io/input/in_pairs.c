/* Pairs files: explicit source–receiver pairs, one per line (docs/file-formats.md).
 *   mt    SRC_LAT SRC_LON DEPTH_M MRR MTT MPP MRT MRP MTP  REC_LAT REC_LON [REC_DEPTH_M NET.STA]
 *   force SRC_LAT SRC_LON DEPTH_M FR FT FP                 REC_LAT REC_LON [REC_DEPTH_M NET.STA]
 * Latitudes are geocentric already (no conversion), depths in m, moments in N·m, forces in N.
 * A row has exactly 12 or 14 fields (mt), 9 or 11 (force): the receiver tail comes whole, '-'
 * standing for a value not given. With a tail of one field a row missing a moment would read the
 * next numbers as the receiver and still have a valid count. */
#include "in_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 14

static const char *const MT_NAMES[MAX_TOKENS] = {"kind",    "SRC_LAT", "SRC_LON",     "DEPTH_M", "MRR",
                                                 "MTT",     "MPP",     "MRT",         "MRP",     "MTP",
                                                 "REC_LAT", "REC_LON", "REC_DEPTH_M", "NET.STA"};
static const char *const FORCE_NAMES[MAX_TOKENS] = {"kind", "SRC_LAT", "SRC_LON", "DEPTH_M",     "FR",     "FT",
                                                    "FP",   "REC_LAT", "REC_LON", "REC_DEPTH_M", "NET.STA"};

/* NET.STA: exactly one dot, both parts non-empty and short enough for the receiver's fields. */
static axb_status parse_code(const axb_in_text *t, int field, const char *tok, axb_receiver *rec, axb_error *err)
{
    const char *dot = strchr(tok, '.');
    size_t nnet = dot ? (size_t)(dot - tok) : 0;
    size_t nsta = dot ? strlen(dot + 1) : 0;
    bool ascii = true; /* codes name datasets and traces in the outputs */
    for (const char *c = tok; *c; c++) ascii = ascii && *c > 0x20 && *c < 0x7F;
    if (!dot || strchr(dot + 1, '.') || nnet == 0 || nsta == 0 || !ascii)
        return axb_in_err_line(t, AXB_ERR_FORMAT, err,
                               "field %d (NET.STA): '%.80s' is not a NET.STA code (one '.', printable ASCII)", field,
                               tok);
    if (nnet >= sizeof rec->network || nsta >= sizeof rec->station)
        return axb_in_err_line(t, AXB_ERR_RANGE, err,
                               "field %d (NET.STA): '%.80s': network codes may have at most %zu and "
                               "station codes %zu characters",
                               field, tok, sizeof rec->network - 1, sizeof rec->station - 1);
    memcpy(rec->network, tok, nnet);
    rec->network[nnet] = '\0';
    memcpy(rec->station, dot + 1, nsta + 1);
    return AXB_OK;
}

/* @p prefix, then @p v in decimal with at least @p width digits, as snprintf's "%s%0*u" would
 * write it (truncated to @p size): three names per line, where snprintf was a fifth of reading. */
static void put_number(char *dst, size_t size, const char *prefix, uint64_t v, int width)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n < width) digits[n++] = '0';
    size_t k = 0;
    for (; *prefix && k + 1 < size; prefix++) dst[k++] = *prefix;
    while (n > 0 && k + 1 < size) dst[k++] = digits[--n];
    dst[k] = '\0';
}

/* A unique, stable default code from the line number: XX.R000123; from line 10^6 on the millions
 * move into the network code (X12.R345678) so the station code keeps its 7 characters. */
static void default_code(int64_t lineno, axb_receiver *rec)
{
    const uint64_t n = (uint64_t)lineno;
    const unsigned hi = (unsigned)(n / 1000000 % 1000000), lo = (unsigned)(n % 1000000);
    if (hi == 0)
        memcpy(rec->network, "XX", 3);
    else
        put_number(rec->network, sizeof rec->network, "X", hi, 0);
    put_number(rec->station, sizeof rec->station, "R", lo, 6);
}

/* The field's name goes into the message only when the value fails: formatting it for every
 * value was a third of reading a pairs file. */
static axb_status check_coord(const axb_in_text *t, int field, const char *name, double v, bool is_lat, axb_error *err)
{
    axb_status st = is_lat ? axb_in_check_lat(v, "", err) : axb_in_check_lon(v, "", err);
    if (st == AXB_OK) return AXB_OK;
    char what[64];
    snprintf(what, sizeof what, "field %d (%s)", field, name);
    (void)(is_lat ? axb_in_check_lat(v, what, err) : axb_in_check_lon(v, what, err));
    return axb_error_prefix(err, "%s:%" PRId64, t->path, t->lineno);
}

static axb_status check_depth(const axb_in_text *t, int field, const char *name, double v, axb_error *err)
{
    if (axb_in_check_depth(v, "", err) == AXB_OK) return AXB_OK;
    char what[64];
    snprintf(what, sizeof what, "field %d (%s)", field, name);
    (void)axb_in_check_depth(v, what, err);
    return axb_error_prefix(err, "%s:%" PRId64, t->path, t->lineno);
}

/* @p ntok is the line's count of fields; only the first MAX_TOKENS are in @p tok, and a line
 * with more is refused by its count before any of them is read. */
static axb_status parse_line(const axb_in_text *t, char **tok, int ntok, axb_pair *p, axb_error *err)
{
    const bool mt = !strcmp(tok[0], "mt");
    if (!mt && strcmp(tok[0], "force"))
        return axb_in_err_line(t, AXB_ERR_FORMAT, err, "field 1: unknown line kind '%.40s' (expected 'mt' or 'force')",
                               tok[0]);
    const char *const *names = mt ? MT_NAMES : FORCE_NAMES;
    const int ncomp = mt ? 6 : 3;
    const int nreq = 4 + ncomp + 2; /* kind, 3 source coordinates, components, 2 receiver coords */
    if (ntok != nreq && ntok != nreq + 2)
        return axb_in_err_line(t, AXB_ERR_FORMAT, err,
                               "'%s' row needs %d fields, or %d with REC_DEPTH_M NET.STA ('-' for either not "
                               "given), found %d",
                               tok[0], nreq, nreq + 2, ntok);
    double v[MAX_TOKENS];
    for (int i = 1; i < nreq; i++) AXB_TRY(axb_in_field_double(t, i + 1, names[i], tok[i], &v[i], err));

    *p = (axb_pair){.src = axb_in_source_init(mt ? AXB_SRC_MOMENT : AXB_SRC_FORCE)};
    axb_source *s = &p->src;
    axb_receiver *r = &p->rec;
    AXB_TRY(check_coord(t, 2, names[1], v[1], true, err));
    AXB_TRY(check_coord(t, 3, names[2], v[2], false, err));
    AXB_TRY(check_depth(t, 4, names[3], v[3], err));
    s->lat = v[1];
    s->lon = v[2];
    s->depth = v[3];
    for (int c = 0; c < ncomp; c++) {
        if (mt)
            s->m[c] = v[4 + c];
        else
            s->f[c] = v[4 + c];
    }
    for (int c = 0; c < ncomp; c++)
        if (fabs(v[4 + c]) > AXB_MAX_MOMENT)
            return axb_in_err_line(t, AXB_ERR_RANGE, err, "field %d (%s): %g %s exceeds %g %s (non-physical)", 5 + c,
                                   names[4 + c], v[4 + c], mt ? "N·m" : "N", AXB_MAX_MOMENT, mt ? "N·m" : "N");
    const int irl = 4 + ncomp; /* index of REC_LAT */
    AXB_TRY(check_coord(t, irl + 1, names[irl], v[irl], true, err));
    AXB_TRY(check_coord(t, irl + 2, names[irl + 1], v[irl + 1], false, err));
    r->lat = v[irl];
    r->lon = v[irl + 1];
    r->depth = NAN;
    put_number(s->name, sizeof s->name, "line_", (uint64_t)t->lineno, 0);

    /* The tail: REC_DEPTH_M NET.STA, each '-' when not given. */
    bool have_code = false;
    if (ntok == nreq + 2) {
        const int id = nreq, ic = nreq + 1;
        if (strcmp(tok[id], "-")) {
            if (!axb_in_parse_double(tok[id], &v[id])) return axb_in_err_number(t, id + 1, "REC_DEPTH_M", tok[id], err);
            AXB_TRY(check_depth(t, id + 1, "REC_DEPTH_M", v[id], err));
            r->depth = v[id];
        }
        if (strcmp(tok[ic], "-")) {
            AXB_TRY(parse_code(t, ic + 1, tok[ic], r, err));
            have_code = true;
        }
    }
    if (!have_code) default_code(t->lineno, r);
    return AXB_OK;
}

axb_status axb_in_pairs_lines(const char *path, long offset, int64_t lo, int64_t hi, axb_pair_list *out, axb_error *err)
{
    *out = (axb_pair_list){0};
    axb_in_text t;
    AXB_TRY(axb_in_text_open(&t, path, err));
    axb_status st = AXB_OK;
    int64_t cap = 0;
    if (offset > 0 && fseek(t.fp, offset, SEEK_SET) != 0) {
        st = axb_error_set(err, AXB_ERR_IO, "%s: cannot seek to line %" PRId64 ": %s", path, lo + 1, strerror(errno));
        goto fail;
    }
    t.lineno = lo;
    while (t.lineno < hi) {
        bool eof;
        AXB_TRY_GOTO(st, axb_in_text_next(&t, &eof, err), fail);
        if (eof) break;
        char *hash = strchr(t.line, '#');
        if (hash) *hash = '\0';
        char *tok[MAX_TOKENS];
        int ntok = axb_in_split(t.line, tok, MAX_TOKENS);
        if (ntok == 0) continue;
        AXB_TRY_GOTO(st, axb_in_grow((void **)&out->pair, &cap, out->n, sizeof *out->pair, err), fail);
        AXB_TRY_GOTO(st, parse_line(&t, tok, ntok, &out->pair[out->n], err), fail);
        out->n++;
    }
    axb_in_text_close(&t);
    return AXB_OK;
fail:
    axb_in_text_close(&t);
    axb_pair_list_free(out);
    return st;
}

axb_status axb_in_pairs_none(const char *path, axb_error *err)
{
    return axb_error_set(err, AXB_ERR_FORMAT, "%s: no pairs (the file is empty or only comments)", path);
}

axb_status axb_read_pairs(const char *path, axb_pair_list *out, axb_error *err)
{
    AXB_TRY(axb_in_pairs_lines(path, 0, 0, INT64_MAX, out, err));
    if (out->n > 0) return AXB_OK;
    axb_pair_list_free(out);
    return axb_in_pairs_none(path, err);
}
