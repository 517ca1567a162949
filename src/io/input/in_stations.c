/* SPECFEM STATIONS files: "STA NET LAT LON ELEVATION BURIAL" per line, latitudes WGS84 geographic.
 * As in Instaseis' Receiver._parse_stations_file, elevation and burial do not move the receiver
 * (it sits at the surface: depth NAN; a reciprocal database serves one receiver depth only), but
 * they and the geographic latitude are kept as site metadata for the outputs. Exact duplicates are
 * dropped. Blank lines and lines
 * starting with '#' are skipped. */
#include "in_internal.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

static axb_status parse_line(const axb_in_text *t, char **tok, int ntok, axb_receiver *r, axb_error *err)
{
    static const char *const names[6] = {"STA", "NET", "LAT", "LON", "ELEVATION", "BURIAL"};
    if (ntok != 6)
        return axb_in_err_line(t, AXB_ERR_FORMAT, err, "expected 6 fields (STA NET LAT LON ELEVATION BURIAL), found %d",
                               ntok);
    double v[6];
    for (int i = 2; i < 6; i++) AXB_TRY(axb_in_field_double(t, i + 1, names[i], tok[i], &v[i], err));
    *r = (axb_receiver){.depth = NAN};
    axb_status st = axb_in_copy_code(r->station, sizeof r->station, tok[0], "field 1 (STA): code", err);
    if (!st) st = axb_in_copy_code(r->network, sizeof r->network, tok[1], "field 2 (NET): code", err);
    if (!st) st = axb_in_check_lat(v[2], "field 3 (LAT)", err);
    if (!st) st = axb_in_check_lon(v[3], "field 4 (LON)", err);
    if (st) return axb_error_prefix(err, "%s:%" PRId64, t->path, t->lineno);
    r->lat = axb_geocentric_latitude(v[2]);
    r->lon = v[3];
    r->has_site = true;
    r->geo_lat = v[2];
    r->elevation = v[4];
    r->burial = v[5];
    return AXB_OK;
}

axb_status axb_read_stations(const char *path, axb_receiver_list *out, axb_error *err)
{
    *out = (axb_receiver_list){0};
    axb_in_text t;
    AXB_TRY(axb_in_text_open(&t, path, err));
    axb_status st = AXB_OK;
    int64_t cap = 0;
    for (;;) {
        bool eof;
        AXB_TRY_GOTO(st, axb_in_text_next(&t, &eof, err), fail);
        if (eof) break;
        char *tok[7];
        int ntok = axb_in_split(t.line, tok, 7);
        if (ntok == 0 || tok[0][0] == '#') continue;
        AXB_TRY_GOTO(st, axb_in_grow((void **)&out->rec, &cap, out->n, sizeof *out->rec, err), fail);
        AXB_TRY_GOTO(st, parse_line(&t, tok, ntok, &out->rec[out->n], err), fail);
        out->n++;
    }
    if (out->n == 0) {
        st = axb_error_set(err, AXB_ERR_FORMAT, "%s: no stations (the file is empty)", path);
        goto fail;
    }
    axb_in_text_close(&t);
    axb_in_receivers_dedupe(out);
    return AXB_OK;
fail:
    axb_in_text_close(&t);
    axb_receiver_list_free(out);
    return st;
}
