/* QuakeML 1.2: every event becomes a moment-tensor source, chosen as Instaseis' Source.parse does
 * on ObsPy's event objects: the preferred origin (or the first one when the preferred id is missing
 * or names no origin of the event), the preferred focal mechanism (or the first), whose moment
 * tensor must be present. Latitude WGS84 geographic -> geocentric; depth in m (NAN when absent);
 * moments already in N·m; origin time from the origin. Instaseis accepts exactly one event per
 * file; axibulk reads all of them in file order. */
#include <string.h>

#include "in_internal.h"
#include "in_xml.h"

static const char *const TENSOR[6] = {"Mrr", "Mtt", "Mpp", "Mrt", "Mrp", "Mtp"};

/* The child called @p name whose publicID equals the text of <preferred_tag>, else the first. */
static xmlNodePtr preferred(const char *path, const xmlNode *event, const char *preferred_tag, const char *name,
                            axb_error *err, axb_status *st)
{
    xmlNodePtr first = axb_xml_child(event, name);
    xmlNodePtr pref = axb_xml_child(event, preferred_tag);
    *st = AXB_OK;
    if (!first || !pref) return first;
    char id[1024], pid[1024];
    if ((*st = axb_xml_text(path, pref, id, sizeof id, err)) != AXB_OK) return NULL;
    for (xmlNodePtr c = first; c; c = axb_xml_next(c, name))
        if (axb_xml_attr(c, "publicID", pid, sizeof pid) && !strcmp(pid, id)) return c;
    return first;
}

/* A required <name><value>number</value></name> child. */
static axb_status value(const char *path, const xmlNode *parent, const char *name, double *v, axb_error *err)
{
    xmlNodePtr n = axb_xml_value_node(parent, name);
    AXB_CHECK(err, n, AXB_ERR_FORMAT, "%s:%ld: <%s> has no <%s><value>", path, xmlGetLineNo(parent),
              (const char *)parent->name, name);
    return axb_xml_double(path, n, v, err);
}

/* An "earthquake name" description if there is one, else the tail of the event's publicID. */
static void event_name(const xmlNode *event, int64_t index, char *name, size_t size)
{
    char text[256], type[64];
    for (xmlNodePtr d = axb_xml_child(event, "description"); d; d = axb_xml_next(d, "description")) {
        xmlNodePtr tn = axb_xml_child(d, "type"), xn = axb_xml_child(d, "text");
        if (!tn || !xn || axb_xml_text("", tn, type, sizeof type, NULL) || strcmp(type, "earthquake name") ||
            axb_xml_text("", xn, text, sizeof text, NULL) || !*text)
            continue;
        snprintf(name, size, "%.*s", (int)(size - 1), text);
        return;
    }
    char id[1024];
    if (axb_xml_attr(event, "publicID", id, sizeof id)) {
        size_t n = strlen(id), k = n;
        while (k > 0 && !strchr("/=#?:", id[k - 1])) k--;
        if (k < n) {
            snprintf(name, size, "%s", id + (n - k >= size ? n - size + 1 : k));
            return;
        }
    }
    snprintf(name, size, "event_%lld", (long long)index);
}

static axb_status read_event(const char *path, const xmlNode *event, int64_t index, axb_source *s, axb_error *err)
{
    axb_status st;
    const long line = xmlGetLineNo(event);
    xmlNodePtr org = preferred(path, event, "preferredOriginID", "origin", err, &st);
    AXB_TRY(st);
    AXB_CHECK(err, org, AXB_ERR_FORMAT, "%s:%ld: event %lld has no <origin>", path, line, (long long)index);
    xmlNodePtr fm = preferred(path, event, "preferredFocalMechanismID", "focalMechanism", err, &st);
    AXB_TRY(st);
    AXB_CHECK(err, fm, AXB_ERR_FORMAT, "%s:%ld: event %lld has no <focalMechanism>", path, line, (long long)index);
    xmlNodePtr mt = axb_xml_child(fm, "momentTensor");
    AXB_CHECK(err, mt, AXB_ERR_FORMAT, "%s:%ld: event %lld: <focalMechanism> has no <momentTensor>", path,
              xmlGetLineNo(fm), (long long)index);
    xmlNodePtr tensor = axb_xml_child(mt, "tensor");
    AXB_CHECK(err, tensor, AXB_ERR_FORMAT, "%s:%ld: event %lld: <momentTensor> has no <tensor>", path, xmlGetLineNo(mt),
              (long long)index);

    *s = axb_in_source_init(AXB_SRC_MOMENT);
    double lat, lon;
    AXB_TRY(value(path, org, "latitude", &lat, err));
    AXB_TRY(value(path, org, "longitude", &lon, err));
    st = axb_in_check_lat(lat, "<latitude>", err);
    if (!st) st = axb_in_check_lon(lon, "<longitude>", err);
    if (st) return axb_error_prefix(err, "%s:%ld", path, xmlGetLineNo(org));
    s->lat = axb_geocentric_latitude(lat);
    s->lon = lon;
    if (axb_xml_value_node(org, "depth")) {
        AXB_TRY(value(path, org, "depth", &s->depth, err));
        AXB_TRY_CTX(err, axb_in_check_depth(s->depth, "<depth>", err), "%s:%ld", path, xmlGetLineNo(org));
    }
    xmlNodePtr tn = axb_xml_value_node(org, "time");
    AXB_CHECK(err, tn, AXB_ERR_FORMAT, "%s:%ld: <origin> has no <time><value>", path, xmlGetLineNo(org));
    char text[64];
    AXB_TRY(axb_xml_text(path, tn, text, sizeof text, err));
    AXB_TRY_CTX(err, axb_time_parse(text, &s->origin_time, err), "%s:%ld: <time>", path, xmlGetLineNo(tn));
    for (int c = 0; c < 6; c++) AXB_TRY(value(path, tensor, TENSOR[c], &s->m[c], err));
    AXB_TRY_CTX(err, axb_in_check_moment(s->m, "<tensor>", err), "%s:%ld", path, xmlGetLineNo(tensor));
    event_name(event, index, s->name, sizeof s->name);
    return AXB_OK;
}

static axb_status read_events(const char *path, xmlDocPtr doc, axb_source_list *out, axb_error *err)
{
    xmlNodePtr root = xmlDocGetRootElement(doc);
    AXB_CHECK(err, axb_xml_is(root, "quakeml"), AXB_ERR_FORMAT,
              "%s: not a QuakeML file (root element <%s>, expected <quakeml>)", path,
              root ? (const char *)root->name : "");
    int64_t cap = 0;
    for (xmlNodePtr ep = axb_xml_child(root, "eventParameters"); ep; ep = axb_xml_next(ep, "eventParameters"))
        for (xmlNodePtr ev = axb_xml_child(ep, "event"); ev; ev = axb_xml_next(ev, "event")) {
            AXB_TRY(axb_in_grow((void **)&out->src, &cap, out->n, sizeof *out->src, err));
            AXB_TRY(read_event(path, ev, out->n + 1, &out->src[out->n], err));
            out->n++;
        }
    AXB_CHECK(err, out->n > 0, AXB_ERR_FORMAT, "%s: no <event> in <eventParameters>", path);
    return AXB_OK;
}

axb_status axb_read_quakeml(const char *path, axb_source_list *out, axb_error *err)
{
    *out = (axb_source_list){0};
    xmlDocPtr doc;
    AXB_TRY(axb_xml_read(path, &doc, err));
    axb_status st = read_events(path, doc, out, err);
    xmlFreeDoc(doc);
    if (st) axb_source_list_free(out);
    return st;
}
