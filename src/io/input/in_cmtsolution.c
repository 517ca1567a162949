/* CMTSOLUTION files (GCMT / SPECFEM), one or many events, read as ObsPy's reader does and turned
 * into a Source as Instaseis' Source.parse does:
 *
 *   PDEW2011  8 23 17 51  4.60  37.9400  -77.9300   6.0 5.9 5.8 VIRGINIA   <- hypocentre line
 *   event name:     201108231751A
 *   time shift:      1.00          <- centroid time - hypocentre time (s)
 *   half duration:   1.8000        (not used by Instaseis)
 *   latitude:       37.9100        <- centroid, WGS84 geographic
 *   longitude:     -77.9300
 *   depth:          12.0000        (km)
 *   Mrr:       4.710000e+24        (dyne·cm) ... Mtt Mpp Mrt Mrp Mtp
 *
 * ObsPy makes the centroid origin (centroid position, time = hypocentre time + time shift) the
 * preferred one and Instaseis takes the preferred origin, so the source sits at the centroid and
 * its origin time is the centroid time. Events are separated by any number of blank lines. */
#include "in_internal.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

enum { V_TSHIFT, V_HDUR, V_LAT, V_LON, V_DEPTH, V_MRR, V_MTT, V_MPP, V_MRT, V_MRP, V_MTP, NVALUES };

static const char *const LABELS[NVALUES] = {"time shift", "half duration", "latitude", "longitude", "depth", "Mrr",
                                            "Mtt",        "Mpp",           "Mrt",      "Mrp",       "Mtp"};

static bool label_equal(const char *a, size_t na, const char *b)
{
    if (strlen(b) != na) return false;
    for (size_t i = 0; i < na; i++)
        if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i])) return false;
    return true;
}

/* Splits "label:   value" and checks the label. *value points at the single token after ':'. */
static axb_status labelled_line(const axb_in_text *t, const char *label, char **value, axb_error *err)
{
    char *line = t->line;
    while (isspace((unsigned char)*line)) line++;
    char *colon = strchr(line, ':');
    size_t n = colon ? (size_t)(colon - line) : 0;
    while (n > 0 && isspace((unsigned char)line[n - 1])) n--;
    if (!colon || !label_equal(line, n, label))
        return axb_in_err_line(t, AXB_ERR_FORMAT, err, "expected a '%s:' line, found '%.60s'", label, line);
    char *tok[2];
    int ntok = axb_in_split(colon + 1, tok, 2);
    if (ntok != 1)
        return axb_in_err_line(t, AXB_ERR_FORMAT, err, "'%s:' needs exactly one value, found %d", label, ntok);
    *value = tok[0];
    return AXB_OK;
}

static axb_status next_line(axb_in_text *t, const char *what, axb_error *err)
{
    bool eof;
    AXB_TRY(axb_in_text_next(t, &eof, err));
    if (eof)
        return axb_error_set(err, AXB_ERR_FORMAT, "%s:%" PRId64 ": unexpected end of file: the '%s:' line is missing",
                             t->path, t->lineno + 1, what);
    return AXB_OK;
}

/* The hypocentre line: [catalog] year month day hour minute second lat lon depth mb ms [region].
 * The catalog code may be glued to the year ("PDEW2011"), hence the split at the first digit. */
static axb_status parse_hypocentre(const axb_in_text *t, axb_time_ns *time, axb_error *err)
{
    enum { MAXTOK = 12 };
    char *tok[MAXTOK];
    int ntok = axb_in_split(t->line, tok, MAXTOK);
    int first = 0;
    if (ntok > 0 && isalpha((unsigned char)tok[0][0])) {
        char *p = tok[0];
        while (*p && !isdigit((unsigned char)*p)) p++;
        if (*p)
            tok[0] = p;
        else
            first = 1;
    }
    static const char *const names[] = {"year",     "month",     "day",   "hour", "minute", "second",
                                        "latitude", "longitude", "depth", "mb",   "Ms"};
    const int need = (int)(sizeof names / sizeof *names);
    if (ntok > MAXTOK) ntok = MAXTOK; /* the region name may have any number of words */
    if (ntok - first < need)
        return axb_in_err_line(t, AXB_ERR_FORMAT, err,
                               "hypocentre line: expected [catalog] year month day hour minute second "
                               "latitude longitude depth mb Ms, found %d fields",
                               ntok);
    int64_t ymdhm[5];
    for (int i = 0; i < 5; i++)
        if (!axb_in_parse_int64(tok[first + i], &ymdhm[i]) || ymdhm[i] < 0 || ymdhm[i] > 9999)
            return axb_in_err_line(t, AXB_ERR_FORMAT, err, "field %d (%s): '%.40s' is not a valid %s", first + i + 1,
                                   names[i], tok[first + i], names[i]);
    double v[6];
    for (int i = 5; i < need; i++)
        AXB_TRY(axb_in_field_double(t, first + i + 1, names[i], tok[first + i], &v[i - 5], err));
    axb_status st = axb_time_from_fields((int)ymdhm[0], (int)ymdhm[1], (int)ymdhm[2], (int)ymdhm[3], (int)ymdhm[4],
                                         v[0], time, err);
    if (st) axb_error_prefix(err, "%s:%" PRId64 ": hypocentre time", t->path, t->lineno);
    return st;
}

static axb_status check(const axb_in_text *t, axb_status st, axb_error *err)
{
    if (st) axb_error_prefix(err, "%s:%" PRId64, t->path, t->lineno);
    return st;
}

/* One event starting at the hypocentre line already in t->line. */
static axb_status read_event(axb_in_text *t, axb_source *s, axb_error *err)
{
    *s = axb_in_source_init(AXB_SRC_MOMENT);
    axb_time_ns hypo_time;
    AXB_TRY(parse_hypocentre(t, &hypo_time, err));

    char *value;
    AXB_TRY(next_line(t, "event name", err));
    AXB_TRY(labelled_line(t, "event name", &value, err));
    AXB_TRY(check(t, axb_in_copy_code(s->name, sizeof s->name, value, "event name", err), err));

    double v[NVALUES];
    int64_t shift_line = 0;
    for (int i = 0; i < NVALUES; i++) {
        AXB_TRY(next_line(t, LABELS[i], err));
        AXB_TRY(labelled_line(t, LABELS[i], &value, err));
        if (i == V_TSHIFT) shift_line = t->lineno;
        if (!axb_in_parse_double(value, &v[i]))
            return axb_in_err_line(t, AXB_ERR_FORMAT, err, "%s: '%.80s' is not a number", LABELS[i], value);
        if (i == V_LAT) AXB_TRY(check(t, axb_in_check_lat(v[i], "latitude", err), err));
        if (i == V_LON) AXB_TRY(check(t, axb_in_check_lon(v[i], "longitude", err), err));
        if (i == V_DEPTH) AXB_TRY(check(t, axb_in_check_depth(v[i], "depth", err), err));
        if (i >= V_MRR && !(fabs(v[i]) / 1e7 <= AXB_MAX_MOMENT))
            return axb_in_err_line(t, AXB_ERR_RANGE, err, "%s: %g dyne·cm exceeds %g N·m (non-physical)", LABELS[i],
                                   v[i], AXB_MAX_MOMENT);
    }
    s->lat = axb_geocentric_latitude(v[V_LAT]);
    s->lon = v[V_LON];
    s->depth = v[V_DEPTH] * 1000.0;
    /* dyne·cm -> N·m, divided as ObsPy does so the values are the same doubles */
    for (int c = 0; c < 6; c++) s->m[c] = v[V_MRR + c] / 1e7;
    axb_status st = axb_time_add_seconds(hypo_time, v[V_TSHIFT], &s->origin_time, err);
    if (st) axb_error_prefix(err, "%s:%" PRId64 ": time shift", t->path, shift_line);
    return st;
}

axb_status axb_read_cmtsolution(const char *path, axb_source_list *out, axb_error *err)
{
    *out = (axb_source_list){0};
    axb_in_text t;
    AXB_TRY(axb_in_text_open(&t, path, err));
    axb_status st = AXB_OK;
    int64_t cap = 0;
    for (;;) {
        bool eof;
        AXB_TRY_GOTO(st, axb_in_text_next(&t, &eof, err), fail);
        if (eof) break;
        if (axb_in_blank(t.line)) continue;
        AXB_TRY_GOTO(st, axb_in_grow((void **)&out->src, &cap, out->n, sizeof *out->src, err), fail);
        AXB_TRY_GOTO(st, read_event(&t, &out->src[out->n], err), fail);
        out->n++;
    }
    if (out->n == 0) {
        st = axb_error_set(err, AXB_ERR_FORMAT, "%s: no events (the file is empty)", path);
        goto fail;
    }
    axb_in_text_close(&t);
    return AXB_OK;
fail:
    axb_in_text_close(&t);
    axb_source_list_free(out);
    return st;
}
