/* USGS finite-fault ".param" files, read as Instaseis' FiniteSource.from_usgs_param_file does:
 *
 *   #Total number of fault_segments=     1
 *   #Fault_segment =   1 nx(Along-strike)=  11 Dx= 20.00km ny(downdip)=  11 Dy= 15.00km
 *   #Boundary of Fault_segment ...   (any lines up to the point table header)
 *   #Lat. Lon. depth slip rake strike dip t_rup t_ris t_fal mo
 *   26.869 85.9416 0.8601 18.14968 75.1493 295 10 107.6 9.6 6.4 1.800902e+25
 *   ...                              (points until the next "#Fault_segment" line or the end)
 *
 * Latitudes WGS84 geographic, depth km, slip cm (not used), angles degrees, times s, mo dyne·cm.
 * Each point becomes a double couple with an asymmetric-cosine sliprate of npts samples at dt,
 * rise and fall times raised to at least trise_min, time_shift t_rup. Stricter than Instaseis: a
 * missing segment or an undeclared extra one is an error (Instaseis would drop it silently);
 * blank lines are skipped. */
#include "in_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { U_LAT, U_LON, U_DEP, U_SLIP, U_RAKE, U_STK, U_DIP, U_TRUP, U_TRIS, U_TFAL, U_MO, U_N };
static const char *const U_NAMES[U_N] = {"lat", "lon",   "depth", "slip",  "rake", "strike",
                                         "dip", "t_rup", "t_ris", "t_fal", "mo"};

typedef struct param_opts {
    int64_t npts;
    double dt, trise_min;
} param_opts;

static axb_status parse_header(axb_in_text *t, int64_t *nseg, axb_error *err)
{
    static const char prefix[] = "#Total number of fault_segments";
    bool eof;
    AXB_TRY(axb_in_text_next(t, &eof, err));
    AXB_CHECK(err, !eof, AXB_ERR_FORMAT, "%s: the file is empty", t->path);
    char *line = t->line;
    while (*line == ' ' || *line == '\t') line++;
    if (strncmp(line, prefix, sizeof prefix - 1))
        return axb_in_err_line(t, AXB_ERR_FORMAT, err, "not a USGS .param file: the first line must start with '%s'",
                               prefix);
    char *eq = strrchr(line, '=');
    char *tok[2];
    int ntok = axb_in_split(eq ? eq + 1 : line + sizeof prefix - 1, tok, 2);
    if (ntok != 1 || !axb_in_parse_int64(tok[0], nseg) || *nseg <= 0)
        return axb_in_err_line(t, AXB_ERR_FORMAT, err, "the number of fault segments must be one positive integer");
    return AXB_OK;
}

static axb_status add_point(const axb_in_text *t, char **tok, const param_opts *o, int64_t index, axb_source *s,
                            axb_error *err)
{
    double v[U_N];
    for (int i = 0; i < U_N; i++) AXB_TRY(axb_in_field_double(t, i + 1, U_NAMES[i], tok[i], &v[i], err));
    axb_status st = axb_in_check_lat(v[U_LAT], "field 1 (lat)", err);
    if (!st) st = axb_in_check_lon(v[U_LON], "field 2 (lon)", err);
    if (!st) st = axb_in_check_depth(v[U_DEP], "field 3 (depth)", err);
    if (st) return axb_error_prefix(err, "%s:%" PRId64, t->path, t->lineno);
    if (v[U_TRUP] < 0)
        return axb_in_err_line(t, AXB_ERR_RANGE, err, "field 8 (t_rup): negative rupture time %g is not supported",
                               v[U_TRUP]);
    /* Checked before trise_min is applied, as Instaseis does. */
    if (v[U_TRIS] + v[U_TFAL] > (double)(o->npts - 1) * o->dt)
        return axb_in_err_line(t, AXB_ERR_RANGE, err,
                               "rise + fall time %g s is longer than the %" PRId64 " samples at %g s of "
                               "the sliprate; use more samples",
                               v[U_TRIS] + v[U_TFAL], o->npts, o->dt);
    if (v[U_MO] < 0) return axb_in_err_line(t, AXB_ERR_RANGE, err, "field 11 (mo): negative moment %g", v[U_MO]);
    if (v[U_MO] * 1e-7 > AXB_MAX_MOMENT)
        return axb_in_err_line(t, AXB_ERR_RANGE, err, "field 11 (mo): moment %g dyne·cm exceeds %g N·m", v[U_MO],
                               AXB_MAX_MOMENT);
    double trise = v[U_TRIS] < o->trise_min ? o->trise_min : v[U_TRIS];
    double tfall = v[U_TFAL] < o->trise_min ? o->trise_min : v[U_TFAL];
    if (!(trise > 0 && tfall > 0))
        return axb_in_err_line(t, AXB_ERR_RANGE, err,
                               "rise time %g s and fall time %g s must be positive (set trise_min > 0)", trise, tfall);
    double *sr = (uint64_t)o->npts <= SIZE_MAX / sizeof *sr ? malloc((size_t)o->npts * sizeof *sr) : NULL;
    AXB_CHECK(err, sr, AXB_ERR_NOMEM, "out of memory for a sliprate of %" PRId64 " samples", o->npts);
    axb_asymmetric_cosine(trise, tfall, o->npts, o->dt, sr);
    *s = axb_in_source_init(AXB_SRC_MOMENT);
    s->lat = axb_geocentric_latitude(v[U_LAT]);
    s->lon = v[U_LON];
    s->depth = v[U_DEP] * 1e3;
    s->time_shift = v[U_TRUP];
    s->sliprate = sr;
    s->nsliprate = o->npts;
    s->dt = o->dt;
    snprintf(s->name, sizeof s->name, "subfault_%06" PRId64, index);
    axb_moment_from_strike_dip_rake(v[U_STK], v[U_DIP], v[U_RAKE], v[U_MO] * 1e-7, s->m);
    return AXB_OK;
}

static axb_status read_all(axb_in_text *t, const param_opts *o, axb_source_list *out, axb_error *err)
{
    int64_t nseg, cap = 0;
    AXB_TRY(parse_header(t, &nseg, err));
    for (int64_t seg = 1; seg <= nseg; seg++) {
        bool eof;
        for (;;) { /* up to the point table of this segment */
            AXB_TRY(axb_in_text_next(t, &eof, err));
            AXB_CHECK(err, !eof, AXB_ERR_FORMAT,
                      "%s: fault segment %" PRId64 " of %" PRId64 " has no '#Lat. Lon. depth' "
                      "table (truncated file?)",
                      t->path, seg, nseg);
            if (strstr(t->line, "#Lat. Lon. depth")) break;
        }
        for (;;) { /* its points */
            AXB_TRY(axb_in_text_next(t, &eof, err));
            if (eof) break;
            if (strstr(t->line, "#Fault_segment")) {
                if (seg == nseg)
                    return axb_in_err_line(t, AXB_ERR_FORMAT, err,
                                           "more fault segments than the %" PRId64 " declared in the "
                                           "first line",
                                           nseg);
                break;
            }
            char *tok[U_N + 1];
            int ntok = axb_in_split(t->line, tok, U_N + 1);
            if (ntok == 0) continue;
            if (ntok != U_N)
                return axb_in_err_line(t, AXB_ERR_FORMAT, err,
                                       "expected 11 values (lat lon depth slip rake strike dip t_rup "
                                       "t_ris t_fal mo), found %d",
                                       ntok);
            AXB_TRY(axb_in_grow((void **)&out->src, &cap, out->n, sizeof *out->src, err));
            AXB_TRY(add_point(t, tok, o, out->n + 1, &out->src[out->n], err));
            out->n++;
        }
    }
    AXB_CHECK(err, out->n > 0, AXB_ERR_FORMAT, "%s: no point sources found in the file", t->path);
    return axb_in_check_total_moment(out, t->path, err);
}

axb_status axb_read_usgs_param(const char *path, int64_t npts, double dt, double trise_min, axb_source_list *out,
                               axb_error *err)
{
    *out = (axb_source_list){0};
    AXB_CHECK(err, npts > 1 && isfinite(dt) && dt > 0 && isfinite(trise_min) && trise_min >= 0, AXB_ERR_ARG,
              "USGS .param sliprates need npts > 1, dt > 0 and trise_min >= 0 (got %" PRId64 ", %g, %g)", npts, dt,
              trise_min);
    const param_opts o = {npts, dt, trise_min};
    axb_in_text t;
    AXB_TRY(axb_in_text_open(&t, path, err));
    axb_status st = read_all(&t, &o, out, err);
    axb_in_text_close(&t);
    if (st) axb_source_list_free(out);
    return st;
}
