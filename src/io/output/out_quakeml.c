/* QuakeML 1.2 text for the sources of an output file: one event per source, so every trace can
 * name the event it belongs to. Latitudes go back to WGS84 geographic (QuakeML's convention; the
 * readers convert to geocentric), so reading the document back gives the same sources. */
#include "io/output/out_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/source.h"

void axb_qml_id(char *buf, size_t size, const char *what, int64_t isrc)
{
    snprintf(buf, size, OUT_QML_ID_PREFIX "%s/%" PRId64, what, isrc);
}

/* <name><value>v</value></name>; %.17g keeps every double exactly. */
static void sb_value(sbuf *b, const char *indent, const char *name, double v)
{
    axb_sb_printf(b, "%s<%s><value>%.17g</value></%s>\n", indent, name, v, name);
}

static void write_event(sbuf *b, const axb_source *s, int64_t i)
{
    char ev[96], org[96], mag[96], fm[96], mt[96], when[40];
    axb_qml_id(ev, sizeof ev, "event", i);
    axb_qml_id(org, sizeof org, "origin", i);
    axb_qml_id(mag, sizeof mag, "magnitude", i);
    axb_qml_id(fm, sizeof fm, "focal_mechanism", i);
    axb_qml_id(mt, sizeof mt, "moment_tensor", i);
    axb_time_format(s->origin_time, when, sizeof when);
    const bool moment = s->type == AXB_SRC_MOMENT;
    const double m0 = moment ? axb_moment_m0(s->m) : 0;
    const bool has_mag = moment && m0 > 0;

    axb_sb_printf(b, "    <event publicID=\"%s\">\n", ev);
    axb_sb_printf(b, "      <preferredOriginID>%s</preferredOriginID>\n", org);
    if (has_mag) axb_sb_printf(b, "      <preferredMagnitudeID>%s</preferredMagnitudeID>\n", mag);
    if (moment) axb_sb_printf(b, "      <preferredFocalMechanismID>%s</preferredFocalMechanismID>\n", fm);
    if (s->name[0]) {
        axb_sb_printf(b, "      <description>\n        <text>");
        axb_sb_text(b, s->name);
        axb_sb_printf(b, "</text>\n        <type>earthquake name</type>\n      </description>\n");
    }
    if (!moment)
        axb_sb_printf(b,
                      "      <comment>\n        <text>force source: f_r = %.17g N, f_t = %.17g N, "
                      "f_p = %.17g N ((r, theta, phi) frame)</text>\n      </comment>\n",
                      s->f[0], s->f[1], s->f[2]);
    axb_sb_printf(b, "      <origin publicID=\"%s\">\n", org);
    axb_sb_printf(b, "        <time><value>%s</value></time>\n", when);
    sb_value(b, "        ", "latitude", axb_geographic_latitude(s->lat));
    sb_value(b, "        ", "longitude", s->lon);
    if (isfinite(s->depth)) sb_value(b, "        ", "depth", s->depth);
    axb_sb_printf(b, "      </origin>\n");
    if (has_mag) {
        axb_sb_printf(b, "      <magnitude publicID=\"%s\">\n", mag);
        sb_value(b, "        ", "mag", axb_moment_mw(m0));
        axb_sb_printf(b, "        <type>Mw</type>\n        <originID>%s</originID>\n", org);
        axb_sb_printf(b, "      </magnitude>\n");
    }
    if (moment) {
        static const char *const comp[6] = {"Mrr", "Mtt", "Mpp", "Mrt", "Mrp", "Mtp"};
        axb_sb_printf(b, "      <focalMechanism publicID=\"%s\">\n", fm);
        axb_sb_printf(b, "        <momentTensor publicID=\"%s\">\n", mt);
        axb_sb_printf(b, "          <derivedOriginID>%s</derivedOriginID>\n", org);
        if (has_mag) axb_sb_printf(b, "          <momentMagnitudeID>%s</momentMagnitudeID>\n", mag);
        sb_value(b, "          ", "scalarMoment", m0);
        axb_sb_printf(b, "          <tensor>\n");
        for (int k = 0; k < 6; k++) sb_value(b, "            ", comp[k], s->m[k]);
        axb_sb_printf(b, "          </tensor>\n        </momentTensor>\n      </focalMechanism>\n");
    }
    axb_sb_printf(b, "    </event>\n");
}

axb_status axb_quakeml_write(const axb_source *src, int64_t n, const char *creator, axb_time_ns created, char **text,
                             size_t *len, axb_error *err)
{
    *text = NULL;
    *len = 0;
    char when[40];
    axb_time_format(created, when, sizeof when);
    sbuf b = {NULL, 0, 0, false};
    axb_sb_printf(&b,
                  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<q:quakeml xmlns:q=\"http://quakeml.org/xmlns/quakeml/1.2\" "
                  "xmlns=\"http://quakeml.org/xmlns/bed/1.2\">\n"
                  "  <eventParameters publicID=\"" OUT_QML_ID_PREFIX "catalog\">\n"
                  "    <creationInfo>\n      <author>");
    axb_sb_text(&b, creator);
    axb_sb_printf(&b, "</author>\n      <creationTime>%s</creationTime>\n    </creationInfo>\n", when);
    for (int64_t i = 0; i < n; i++) write_event(&b, &src[i], i);
    axb_sb_printf(&b, "  </eventParameters>\n</q:quakeml>\n");
    if (b.failed) {
        free(b.p);
        return axb_error_set(err, AXB_ERR_NOMEM, "QuakeML document of %" PRId64 " events", n);
    }
    *text = b.p;
    *len = b.len;
    return AXB_OK;
}
