/* The documents an ASDF file holds beside its traces so that readers need nothing else: one FDSN
 * StationXML 1.1 document per station (what pyasdf's validate() looks for, and where ObsPy finds
 * coordinates and orientations) and one W3C PROV-XML document in SEIS-PROV's vocabulary saying
 * which program, database and options made the traces (docs/output-format.md). */
#include "io/output/out_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/source.h"

static axb_status finish_text(sbuf *b, const char *what, char **text, size_t *len, axb_error *err)
{
    if (b->failed) {
        free(b->p);
        return axb_error_set(err, AXB_ERR_NOMEM, "%s", what);
    }
    *text = b->p;
    *len = b->len;
    return AXB_OK;
}

/* ---------------------------------------------------------------------------------------------
 * StationXML */

static double geographic_lat(const axb_receiver *r)
{
    return r->has_site ? r->geo_lat : axb_geographic_latitude(r->lat);
}

/* StationXML requires an elevation; an input without one puts the station at sea level. */
static double elevation(const axb_receiver *r)
{
    return r->has_site && isfinite(r->elevation) ? r->elevation : 0.0;
}

/* The sensor's depth below the ground: the input's burial, else the depth the seismogram was
 * computed at, else the surface. */
static double sensor_depth(const axb_receiver *r)
{
    if (r->has_site && isfinite(r->burial)) return r->burial;
    return isfinite(r->depth) ? r->depth : 0.0;
}

static void dates(sbuf *b, axb_time_ns start, axb_time_ns end)
{
    /* Microseconds, truncated: the end date moves up one so that it still covers the last
     * sample. */
    char s[40], e[40];
    axb_time_format(start, s, sizeof s);
    axb_time_format(end + 1000, e, sizeof e);
    axb_sb_printf(b, " startDate=\"%s\" endDate=\"%s\"", s, e);
}

/* Azimuth (degrees clockwise from north, 0..360) of the radial direction at the receiver, away
 * from the source: the back azimuth plus 180 degrees, on the sphere of geocentric latitudes, the
 * frame the seismograms are rotated in (R = N cos(az) + E sin(az), T = R rotated 90 degrees
 * clockwise: tests/asdf_check.py checks both on the traces). */
static double radial_azimuth(const axb_source *s, const axb_receiver *r)
{
    const double d2r = 3.14159265358979323846 / 180.0;
    const double ls = s->lat * d2r, lr = r->lat * d2r, dl = (s->lon - r->lon) * d2r;
    const double baz = atan2(sin(dl) * cos(ls), cos(lr) * sin(ls) - sin(lr) * cos(ls) * cos(dl)) / d2r;
    return fmod(baz + 180.0 + 360.0, 360.0);
}

static void channel_head(sbuf *b, const axb_output *o, const axb_receiver *r, char comp, axb_time_ns t0, axb_time_ns t1)
{
    axb_sb_printf(b, "      <Channel code=\"%cX%c\" locationCode=\"%s\"", axb_band_code(o->dt), comp, r->location);
    dates(b, t0, t1);
    axb_sb_printf(b, ">\n");
}

static void channel_tail(sbuf *b, const axb_output *o, const axb_receiver *r, double azimuth, int dip)
{
    axb_sb_printf(b, "        <Latitude>%.17g</Latitude>\n        <Longitude>%.17g</Longitude>\n", geographic_lat(r),
                  r->lon);
    axb_sb_printf(b, "        <Elevation>%.17g</Elevation>\n        <Depth>%.17g</Depth>\n", elevation(r),
                  sensor_depth(r));
    axb_sb_printf(b, "        <Azimuth>%.17g</Azimuth>\n        <Dip>%d</Dip>\n", azimuth, dip);
    axb_sb_printf(b, "        <Type>SYNTHESIZED</Type>\n        <SampleRate>%.17g</SampleRate>\n", 1.0 / o->dt);
    axb_sb_printf(b, "      </Channel>\n");
}

/* Z, N, E: one epoch over all the receiver's traces. R, T: one epoch per row, since the direction
 * depends on the row's source; the epoch's comment names the event. Rows whose sources share an
 * origin time give overlapping R/T epochs: the comment tells them apart. */
static void channels(sbuf *b, const axb_output *o, const axb_output_desc *d, int64_t irec, char comp,
                     const asdf_rows *t)
{
    const axb_receiver *r = &d->receivers[irec];
    if (comp != 'R' && comp != 'T') {
        channel_head(b, o, r, comp, t->tmin[irec], t->tmax[irec]);
        channel_tail(b, o, r, comp == 'E' ? 90.0 : 0.0, comp == 'Z' ? -90 : 0);
        return;
    }
    for (int64_t k = t->off[irec]; k < t->off[irec + 1]; k++) {
        const int64_t row = t->rows[k], isrc = d->row_source[row];
        char id[96];
        axb_qml_id(id, sizeof id, "event", isrc);
        channel_head(b, o, r, comp, t->row_start[row], t->row_start[row] + t->span);
        axb_sb_printf(b, "        <Comment><Value>%s component for event %s</Value></Comment>\n",
                      comp == 'R' ? "radial (away from the source)" : "transverse (radial turned 90 degrees clockwise)",
                      id);
        double az = radial_azimuth(&d->sources[isrc], r) + (comp == 'T' ? 90.0 : 0.0);
        channel_tail(b, o, r, az >= 360.0 ? az - 360.0 : az, 0);
    }
}

axb_status axb_asdf_stationxml(const axb_output *o, const axb_output_desc *d, const int64_t *recs, int64_t nrecs,
                               const asdf_rows *t, char **text, size_t *len, axb_error *err)
{
    *text = NULL;
    *len = 0;
    const axb_receiver *first = &d->receivers[recs[0]];
    axb_time_ns t0 = t->tmin[recs[0]], t1 = t->tmax[recs[0]];
    for (int64_t k = 1; k < nrecs; k++) {
        if (t->tmin[recs[k]] < t0) t0 = t->tmin[recs[k]];
        if (t->tmax[recs[k]] > t1) t1 = t->tmax[recs[k]];
    }
    char when[40];
    axb_time_format(o->created, when, sizeof when);
    sbuf b = {NULL, 0, 0, false};
    axb_sb_printf(&b,
                  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<FDSNStationXML xmlns=\"http://www.fdsn.org/xml/station/1\" schemaVersion=\"1.1\">\n"
                  "  <Source>" OUT_CREATOR "</Source>\n  <Module>" OUT_CREATOR "</Module>\n");
    axb_sb_printf(&b, "  <Created>%s</Created>\n", when);
    axb_sb_printf(&b, "  <Network code=\"%s\"", first->network);
    dates(&b, t0, t1);
    axb_sb_printf(&b, ">\n    <Station code=\"%s\"", first->station);
    dates(&b, t0, t1);
    axb_sb_printf(&b, ">\n      <Latitude>%.17g</Latitude>\n      <Longitude>%.17g</Longitude>\n",
                  geographic_lat(first), first->lon);
    axb_sb_printf(&b, "      <Elevation>%.17g</Elevation>\n      <Site><Name>%s.%s</Name></Site>\n", elevation(first),
                  first->network, first->station);
    axb_sb_printf(&b, "      <CreationDate>%s</CreationDate>\n", when);
    for (int64_t k = 0; k < nrecs; k++)
        for (int c = 0; c < o->ncomp; c++) channels(&b, o, d, recs[k], o->components[c], t);
    axb_sb_printf(&b, "    </Station>\n  </Network>\n</FDSNStationXML>\n");
    return finish_text(&b, "StationXML document", text, len, err);
}

/* ---------------------------------------------------------------------------------------------
 * Provenance */

/* <seis_prov:NAME>text</seis_prov:NAME>, a string attribute of a PROV element. */
static void prov_attr(sbuf *b, const char *name, const char *value)
{
    axb_sb_printf(b, "    <seis_prov:%s>", name);
    axb_sb_text(b, value);
    axb_sb_printf(b, "</seis_prov:%s>\n", name);
}

axb_status axb_asdf_provenance(const axb_output *o, const axb_output_desc *d, char **text, size_t *len, axb_error *err)
{
    *text = NULL;
    *len = 0;
    char when[40], num[64];
    axb_time_format(o->created, when, sizeof when);
    sbuf b = {NULL, 0, 0, false};
    axb_sb_printf(&b,
                  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<prov:document xmlns:prov=\"http://www.w3.org/ns/prov#\" "
                  "xmlns:seis_prov=\"" OUT_PROV_NS "\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" "
                  "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n");
    /* The program. */
    axb_sb_printf(&b,
                  "  <prov:softwareAgent prov:id=\"seis_prov:sp001_sa_a8b1c0e\">\n"
                  "    <prov:label>axibulk</prov:label>\n");
    prov_attr(&b, "software_name", "axibulk");
    prov_attr(&b, "software_version", AXB_VERSION_STRING);
    axb_sb_printf(&b, "  </prov:softwareAgent>\n");
    /* The database it read. */
    axb_sb_printf(&b,
                  "  <prov:entity prov:id=\"seis_prov:sp002_gf_a8b1c0e\">\n"
                  "    <prov:label>Green's function database</prov:label>\n");
    prov_attr(&b, "path", d->database);
    if (d->database_kind) prov_attr(&b, "database_kind", d->database_kind);
    if (d->database_model) prov_attr(&b, "model", d->database_model);
    if (d->database_period > 0) {
        snprintf(num, sizeof num, "%.17g", d->database_period);
        prov_attr(&b, "dominant_period_s", num);
    }
    if (d->database_file_version > 0) {
        snprintf(num, sizeof num, "%d", d->database_file_version);
        prov_attr(&b, "file_version", num);
    }
    axb_sb_printf(&b, "  </prov:entity>\n");
    /* The run, with its options. */
    axb_sb_printf(&b,
                  "  <prov:activity prov:id=\"seis_prov:sp003_ws_a8b1c0e\">\n"
                  "    <prov:startTime>%s</prov:startTime>\n"
                  "    <prov:label>Waveform Simulation</prov:label>\n"
                  "    <prov:type xsi:type=\"xsd:string\">seis_prov:waveform_simulation</prov:type>\n",
                  when);
    if (d->command) prov_attr(&b, "command_line", d->command);
    if (d->job) prov_attr(&b, "options", d->job);
    prov_attr(&b, "quantity", d->kind);
    snprintf(num, sizeof num, "%.17g", d->dt);
    prov_attr(&b, "sampling_interval_s", num);
    prov_attr(&b, "components", d->components);
    axb_sb_printf(&b, "  </prov:activity>\n");
    /* What it made: every trace of the file. */
    axb_sb_printf(&b,
                  "  <prov:entity prov:id=\"seis_prov:" OUT_PROV_TRACES "\">\n"
                  "    <prov:label>Waveform Trace</prov:label>\n"
                  "    <prov:type xsi:type=\"xsd:string\">seis_prov:waveform_trace</prov:type>\n"
                  "  </prov:entity>\n");
    axb_sb_printf(&b,
                  "  <prov:wasAssociatedWith>\n    <prov:activity prov:ref=\"seis_prov:sp003_ws_a8b1c0e\"/>\n"
                  "    <prov:agent prov:ref=\"seis_prov:sp001_sa_a8b1c0e\"/>\n  </prov:wasAssociatedWith>\n");
    axb_sb_printf(&b,
                  "  <prov:used>\n    <prov:activity prov:ref=\"seis_prov:sp003_ws_a8b1c0e\"/>\n"
                  "    <prov:entity prov:ref=\"seis_prov:sp002_gf_a8b1c0e\"/>\n  </prov:used>\n");
    axb_sb_printf(&b,
                  "  <prov:wasGeneratedBy>\n    <prov:entity prov:ref=\"seis_prov:" OUT_PROV_TRACES "\"/>\n"
                  "    <prov:activity prov:ref=\"seis_prov:sp003_ws_a8b1c0e\"/>\n  </prov:wasGeneratedBy>\n");
    axb_sb_printf(&b, "</prov:document>\n");
    return finish_text(&b, "provenance document", text, len, err);
}
