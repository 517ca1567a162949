/* FDSN StationXML: one receiver per station, as Instaseis' Receiver.parse does on ObsPy's inventory:
 * the channels' coordinates when the station has channels (they must all be the same), else the
 * station's own; latitude WGS84 geographic -> geocentric; network and station codes, empty
 * location code (channels of all location codes collapse into one receiver), no depth (NAN);
 * exact duplicates dropped. The geographic latitude, the station's elevation and the first
 * channel's depth below the ground are kept as site metadata for the outputs (not used in
 * computing, as for STATIONS files). */
#include <math.h>
#include <string.h>

#include "in_internal.h"
#include "in_xml.h"

/* A required <name>number</name> child. */
static axb_status coordinate(const char *path, const xmlNode *parent, const char *name, double *v, axb_error *err)
{
    xmlNodePtr n = axb_xml_child(parent, name);
    AXB_CHECK(err, n, AXB_ERR_FORMAT, "%s:%ld: <%s> has no <%s>", path, xmlGetLineNo(parent),
              (const char *)parent->name, name);
    return axb_xml_double(path, n, v, err);
}

static axb_status code_attr(const char *path, const xmlNode *node, char *dst, size_t size, axb_error *err)
{
    char buf[64];
    AXB_CHECK(err, axb_xml_attr(node, "code", buf, sizeof buf) && buf[0], AXB_ERR_FORMAT, "%s:%ld: <%s> has no code",
              path, xmlGetLineNo(node), (const char *)node->name);
    AXB_TRY_CTX(err, axb_in_copy_code(dst, size, buf, "code", err), "%s:%ld: <%s>", path, xmlGetLineNo(node),
                (const char *)node->name);
    return AXB_OK;
}

static axb_status read_station(const char *path, const xmlNode *sta, const char *net, axb_receiver *r, axb_error *err)
{
    *r = (axb_receiver){.depth = NAN};
    memcpy(r->network, net, sizeof r->network);
    AXB_TRY(code_attr(path, sta, r->station, sizeof r->station, err));
    double lat, lon;
    xmlNodePtr ch = axb_xml_child(sta, "Channel");
    if (!ch) {
        AXB_TRY(coordinate(path, sta, "Latitude", &lat, err));
        AXB_TRY(coordinate(path, sta, "Longitude", &lon, err));
    }
    for (bool first = true; ch; ch = axb_xml_next(ch, "Channel"), first = false) {
        double clat, clon;
        AXB_TRY(coordinate(path, ch, "Latitude", &clat, err));
        AXB_TRY(coordinate(path, ch, "Longitude", &clon, err));
        if (first) {
            lat = clat;
            lon = clon;
        }
        AXB_CHECK(err, clat == lat && clon == lon, AXB_ERR_FORMAT,
                  "%s:%ld: the coordinates of the channels of station '%s.%s' are not identical "
                  "(%.17g, %.17g) vs (%.17g, %.17g)",
                  path, xmlGetLineNo(ch), r->network, r->station, clat, clon, lat, lon);
    }
    axb_status st = axb_in_check_lat(lat, "<Latitude>", err);
    if (!st) st = axb_in_check_lon(lon, "<Longitude>", err);
    if (st) return axb_error_prefix(err, "%s:%ld: station '%s.%s'", path, xmlGetLineNo(sta), r->network, r->station);
    r->lat = axb_geocentric_latitude(lat);
    r->lon = lon;
    r->has_site = true;
    r->geo_lat = lat;
    r->elevation = r->burial = NAN;
    xmlNodePtr n = axb_xml_child(sta, "Elevation");
    if (n) AXB_TRY(axb_xml_double(path, n, &r->elevation, err));
    ch = axb_xml_child(sta, "Channel");
    n = ch ? axb_xml_child(ch, "Depth") : NULL;
    if (n) AXB_TRY(axb_xml_double(path, n, &r->burial, err));
    return AXB_OK;
}

static axb_status read_inventory(const char *path, xmlDocPtr doc, axb_receiver_list *out, axb_error *err)
{
    xmlNodePtr root = xmlDocGetRootElement(doc);
    AXB_CHECK(err, axb_xml_is(root, "FDSNStationXML"), AXB_ERR_FORMAT,
              "%s: not a StationXML file (root element <%s>, expected <FDSNStationXML>)", path,
              root ? (const char *)root->name : "");
    int64_t cap = 0;
    for (xmlNodePtr net = axb_xml_child(root, "Network"); net; net = axb_xml_next(net, "Network")) {
        char code[8];
        AXB_TRY(code_attr(path, net, code, sizeof code, err));
        for (xmlNodePtr sta = axb_xml_child(net, "Station"); sta; sta = axb_xml_next(sta, "Station")) {
            AXB_TRY(axb_in_grow((void **)&out->rec, &cap, out->n, sizeof *out->rec, err));
            AXB_TRY(read_station(path, sta, code, &out->rec[out->n], err));
            out->n++;
        }
    }
    AXB_CHECK(err, out->n > 0, AXB_ERR_FORMAT, "%s: no <Station> in any <Network>", path);
    return AXB_OK;
}

axb_status axb_read_stationxml(const char *path, axb_receiver_list *out, axb_error *err)
{
    *out = (axb_receiver_list){0};
    xmlDocPtr doc;
    AXB_TRY(axb_xml_read(path, &doc, err));
    axb_status st = read_inventory(path, doc, out, err);
    xmlFreeDoc(doc);
    if (st)
        axb_receiver_list_free(out);
    else
        axb_in_receivers_dedupe(out);
    return st;
}
