/* SRF (Standard Rupture Format) finite faults, read as Instaseis' FiniteSource.from_srf_file does:
 * everything up to the "POINTS n" line is skipped, then per point
 *   LON LAT DEP[km] STK DIP AREA[cm²] TINIT[s] DT[s]   (SRF 2.0 adds VS DEN; read, not used)
 *   RAKE SLIP1[cm] NT1 SLIP2[cm] NT2 SLIP3[cm] NT3
 *   NT1 sliprate values (cm/s, any number per line), then NT2 values.
 * Each slip component with NT > 0 becomes a double-couple point source with M0 = area·μ·slip,
 * μ = 32 GPa (Instaseis' DEFAULT_MU), time_shift TINIT. Instaseis' quirks are kept: the u2 block
 * uses the same rake as u1, u3 slip is refused, and lines after the last announced point are
 * ignored. Stricter than Instaseis: a block must hold exactly NT values, and a second POINTS block
 * (a multi-plane file, which Instaseis would cut short silently) is an error. */
#include "in_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double DEFAULT_MU = 32e9;

enum { P_LON, P_LAT, P_DEP, P_STK, P_DIP, P_AREA, P_TINIT, P_DT, P_VS, P_DEN };
static const char *const P_NAMES[] = {"LON", "LAT", "DEP", "STK", "DIP", "AREA", "TINIT", "DT", "VS", "DEN"};
enum { S_RAKE, S_SLIP1, S_NT1, S_SLIP2, S_NT2, S_SLIP3, S_NT3 };
static const char *const S_NAMES[] = {"RAKE", "SLIP1", "NT1", "SLIP2", "NT2", "SLIP3", "NT3"};

typedef struct srf_point {
    double lat, lon, depth, strike, dip, area, tinit, dt, rake, slip[3];
    int64_t nt[3];
} srf_point;

/* The next line of point @p ip (1-based) of @p np; the end of the file here is a truncation. */
static axb_status next_line(axb_in_text *t, int64_t ip, int64_t np, const char *what, axb_error *err)
{
    bool eof;
    AXB_TRY(axb_in_text_next(t, &eof, err));
    if (eof)
        return axb_error_set(err, AXB_ERR_FORMAT,
                             "%s:%" PRId64 ": unexpected end of file in point %" PRId64 " of %" PRId64 ": %s missing",
                             t->path, t->lineno + 1, ip, np, what);
    return AXB_OK;
}

static axb_status in_range(const axb_in_text *t, axb_status st, axb_error *err)
{
    if (st) axb_error_prefix(err, "%s:%" PRId64, t->path, t->lineno);
    return st;
}

static axb_status read_point_header(axb_in_text *t, int64_t ip, int64_t np, srf_point *p, axb_error *err)
{
    char *tok[11];
    double v[10];
    AXB_TRY(next_line(t, ip, np, "the point line", err));
    int ntok = axb_in_split(t->line, tok, 11);
    if (ntok != 8 && ntok != 10)
        return axb_in_err_line(t, AXB_ERR_FORMAT, err,
                               "point %" PRId64 ": expected 8 values (LON LAT DEP STK DIP AREA TINIT DT)"
                               " or 10 (SRF 2.0: ... VS DEN), found %d",
                               ip, ntok);
    for (int i = 0; i < ntok; i++) AXB_TRY(axb_in_field_double(t, i + 1, P_NAMES[i], tok[i], &v[i], err));
    AXB_TRY(in_range(t, axb_in_check_lat(v[P_LAT], "field 2 (LAT)", err), err));
    AXB_TRY(in_range(t, axb_in_check_lon(v[P_LON], "field 1 (LON)", err), err));
    AXB_TRY(in_range(t, axb_in_check_depth(v[P_DEP], "field 3 (DEP)", err), err));
    if (v[P_AREA] < 0) return axb_in_err_line(t, AXB_ERR_RANGE, err, "field 6 (AREA): %g is negative", v[P_AREA]);
    /* as the .param reader: rupture times count from the origin */
    if (v[P_TINIT] < 0)
        return axb_in_err_line(t, AXB_ERR_RANGE, err, "field 7 (TINIT): negative rupture time %g is not supported",
                               v[P_TINIT]);
    p->lon = v[P_LON];
    p->lat = v[P_LAT];
    p->depth = v[P_DEP];
    p->strike = v[P_STK];
    p->dip = v[P_DIP];
    p->area = v[P_AREA];
    p->tinit = v[P_TINIT];
    p->dt = v[P_DT];

    AXB_TRY(next_line(t, ip, np, "the slip line", err));
    ntok = axb_in_split(t->line, tok, 11);
    if (ntok != 7)
        return axb_in_err_line(t, AXB_ERR_FORMAT, err,
                               "point %" PRId64 ": expected 7 values (RAKE SLIP1 NT1 SLIP2 NT2 SLIP3 NT3),"
                               " found %d",
                               ip, ntok);
    for (int i = 0; i < 7; i++) AXB_TRY(axb_in_field_double(t, i + 1, S_NAMES[i], tok[i], &v[i], err));
    p->rake = v[S_RAKE];
    for (int c = 0; c < 3; c++) {
        const int ins = S_NT1 + 2 * c;
        double nt = v[ins];
        /* Instaseis reads the counts as floats and truncates; a fraction is a damaged file here. */
        if (nt < 0 || nt != floor(nt) || nt > 1e12)
            return axb_in_err_line(t, AXB_ERR_FORMAT, err, "field %d (%s): '%.60s' is not a sample count", ins + 1,
                                   S_NAMES[ins], tok[ins]);
        p->nt[c] = (int64_t)nt;
        p->slip[c] = v[ins - 1];
    }
    if (p->nt[2] > 0)
        return axb_in_err_line(t, AXB_ERR_UNSUPPORTED, err,
                               "point %" PRId64 ": slip along the u3 axis (NT3 = %" PRId64
                               ") is not supported (as in Instaseis)",
                               ip, p->nt[2]);
    if ((p->nt[0] > 0 || p->nt[1] > 0) && !(p->dt > 0))
        return axb_in_err_line(t, AXB_ERR_RANGE, err,
                               "point %" PRId64 ": sliprate sampling interval DT = %g is not positive", ip, p->dt);
    return AXB_OK;
}

/* Reads @p nt values spread over as many lines as needed. */
static axb_status read_block(axb_in_text *t, int64_t ip, int64_t np, int64_t nt, double **out, axb_error *err)
{
    double *v = NULL;
    int64_t n = 0, cap = 0;
    axb_status st = AXB_OK;
    while (n < nt) {
        AXB_TRY_GOTO(st, next_line(t, ip, np, "sliprate values", err), fail);
        char *cursor = t->line, *tok;
        for (int field = 1; (tok = axb_in_next_token(&cursor)) != NULL; field++) {
            if (n >= nt) {
                st = axb_in_err_line(t, AXB_ERR_FORMAT, err,
                                     "point %" PRId64 ": more than the %" PRId64 " sliprate values announced", ip, nt);
                goto fail;
            }
            AXB_TRY_GOTO(st, axb_in_grow((void **)&v, &cap, n, sizeof *v, err), fail);
            if (!axb_in_parse_double(tok, &v[n])) {
                char name[48];
                snprintf(name, sizeof name, "sliprate value %" PRId64, n + 1);
                st = axb_in_err_number(t, field, name, tok, err);
                goto fail;
            }
            n++;
        }
    }
    *out = v;
    return AXB_OK;
fail:
    free(v);
    return st;
}

static axb_status add_source(axb_source_list *out, int64_t *cap, const srf_point *p, int comp, int64_t ip, double *sr,
                             bool normalize, axb_error *err)
{
    axb_status st = axb_in_grow((void **)&out->src, cap, out->n, sizeof *out->src, err);
    if (st) {
        free(sr);
        return st;
    }
    axb_source *s = &out->src[out->n++]; /* counted at once so the list frees sr on failure */
    *s = axb_in_source_init(AXB_SRC_MOMENT);
    s->sliprate = sr;
    s->nsliprate = p->nt[comp];
    s->dt = p->dt;
    s->lat = axb_geocentric_latitude(p->lat);
    s->lon = p->lon;
    s->depth = p->depth * 1e3;
    s->time_shift = p->tinit;
    snprintf(s->name, sizeof s->name, "point_%06" PRId64 "%s", ip, comp ? "_u2" : "");
    const double area = p->area * 1e-4, slip = p->slip[comp] * 1e-2;
    const double m0 = area * DEFAULT_MU * slip;
    AXB_CHECK(err, m0 >= 0, AXB_ERR_RANGE, "point %" PRId64 ": negative slip %g cm", ip, p->slip[comp]);
    AXB_CHECK(err, m0 <= AXB_MAX_MOMENT, AXB_ERR_RANGE,
              "point %" PRId64 ": moment %g N·m (AREA · 32 GPa · SLIP) exceeds %g N·m", ip, m0, AXB_MAX_MOMENT);
    axb_moment_from_strike_dip_rake(p->strike, p->dip, p->rake, m0, s->m);
    if (normalize) AXB_TRY_CTX(err, axb_source_normalize_sliprate(s, err), "point %" PRId64, ip);
    return AXB_OK;
}

static axb_status find_points(axb_in_text *t, int64_t *np, axb_error *err)
{
    for (;;) {
        bool eof;
        AXB_TRY(axb_in_text_next(t, &eof, err));
        AXB_CHECK(err, !eof, AXB_ERR_FORMAT, "%s: no 'POINTS' line (not an SRF file?)", t->path);
        char *tok[3];
        int ntok = axb_in_split(t->line, tok, 3);
        if (ntok == 0 || strcmp(tok[0], "POINTS")) continue;
        if (ntok != 2 || !axb_in_parse_int64(tok[1], np) || *np <= 0)
            return axb_in_err_line(t, AXB_ERR_FORMAT, err,
                                   "'POINTS' needs one positive number of points, found '%.40s'",
                                   ntok > 1 ? tok[1] : "");
        return AXB_OK;
    }
}

static axb_status read_all(axb_in_text *t, bool normalize, axb_source_list *out, axb_error *err)
{
    int64_t np, cap = 0;
    AXB_TRY(find_points(t, &np, err));
    for (int64_t ip = 1; ip <= np; ip++) {
        srf_point p = {0};
        AXB_TRY(read_point_header(t, ip, np, &p, err));
        const int64_t line = t->lineno;
        for (int c = 0; c < 2; c++) {
            if (p.nt[c] == 0) continue;
            double *sr = NULL;
            AXB_TRY(read_block(t, ip, np, p.nt[c], &sr, err));
            axb_status st = add_source(out, &cap, &p, c, ip, sr, normalize, err);
            if (st) return axb_error_prefix(err, "%s:%" PRId64, t->path, line);
        }
    }
    /* Instaseis ignores whatever follows the announced points (its own test file
     * strike_slip_eq_2pts.srf ends in a stray point line), but a second POINTS block - a multi-plane
     * SRF - would be lost silently, so that is refused. */
    for (;;) {
        bool eof;
        AXB_TRY(axb_in_text_next(t, &eof, err));
        if (eof) break;
        char *tok[1];
        if (axb_in_split(t->line, tok, 1) > 0 && !strcmp(tok[0], "POINTS"))
            return axb_in_err_line(t, AXB_ERR_UNSUPPORTED, err,
                                   "a second POINTS block after %" PRId64 " points (multi-plane SRF "
                                   "files are not supported)",
                                   np);
    }
    AXB_CHECK(err, out->n > 0, AXB_ERR_FORMAT, "%s: none of the %" PRId64 " points has slip", t->path, np);
    return axb_in_check_total_moment(out, t->path, err);
}

axb_status axb_read_srf(const char *path, bool normalize, axb_source_list *out, axb_error *err)
{
    *out = (axb_source_list){0};
    axb_in_text t;
    AXB_TRY(axb_in_text_open(&t, path, err));
    axb_status st = read_all(&t, normalize, out, err);
    axb_in_text_close(&t);
    if (st) axb_source_list_free(out);
    return st;
}
