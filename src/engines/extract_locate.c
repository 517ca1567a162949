/* Where a source–receiver pair falls in the database: checks of §2.2, the rotation into the
 * database frame (§2.3) and the element search (§2.4). */
#include <math.h>

#include "axibulk/geometry.h"
#include "axibulk/sem.h"
#include "engines/extract_internal.h"
#include "numerics/sem_locate.h"

/* Radius of a point at a depth (m; NAN = at the surface). */
static double radius_of(const axb_db_info *in, double depth)
{
    return isnan(depth) ? in->planet_radius : in->planet_radius - depth;
}

static axb_status check_radius(const axb_db_info *in, double depth, const char *what, axb_error *err)
{
    if (isnan(depth)) return AXB_OK;
    const double r = radius_of(in, depth);
    AXB_CHECK(err, isfinite(depth), AXB_ERR_RANGE, "%s depth is not a finite number", what);
    AXB_CHECK(err, r >= in->min_radius, AXB_ERR_RANGE,
              "%s too deep: depth %.1f km puts it at radius %.1f km; the database covers radii "
              "%.1f to %.1f km",
              what, depth / 1e3, r / 1e3, in->min_radius / 1e3, in->max_radius / 1e3);
    AXB_CHECK(err, r <= in->max_radius, AXB_ERR_RANGE,
              "%s too shallow: depth %.1f km puts it at radius %.1f km; the database covers radii "
              "%.1f to %.1f km",
              what, depth / 1e3, r / 1e3, in->min_radius / 1e3, in->max_radius / 1e3);
    return AXB_OK;
}

static axb_status check_position(double lat, double lon, const char *what, axb_error *err)
{
    AXB_CHECK(err, isfinite(lat) && isfinite(lon), AXB_ERR_RANGE, "%s position is not finite", what);
    AXB_CHECK(err, lat >= -90 && lat <= 90, AXB_ERR_RANGE, "%s latitude %g is outside -90..90", what, lat);
    return AXB_OK;
}

/* A reciprocal database holds the wavefield of forces at one point on its pole, at the depth its
 * header names ('source depth in km'; 0 for AxiSEM's usual surface receivers): seismograms from it
 * belong to a receiver at that depth and nowhere else. A receiver without a depth is at the
 * surface. Instaseis ignores the receiver's depth here; silently handing out the seismogram of a
 * receiver at another depth would be wrong, so the pair is refused unless the depths agree within
 * a metre (the float32 header holds the depth to a few centimetres). */
/* A station's burial (STATIONS, StationXML) is site metadata: a borehole sensor some metres down
 * is served by the surface wavefield at the periods of a database. One buried deeper than this
 * is not, and is refused like an explicit depth. */
#define BURIAL_AS_SURFACE_M 1000.0

static axb_status check_receiver_depth(const axb_db_info *in, const axb_receiver *rec, axb_error *err)
{
    if (isnan(rec->depth) && rec->has_site && isfinite(rec->burial))
        AXB_CHECK(err, fabs(rec->burial - in->source_depth) <= BURIAL_AS_SURFACE_M, AXB_ERR_UNSUPPORTED,
                  "the reciprocal database's receiver is at %.1f km depth; station %s.%s is buried %.1f km deep: "
                  "burials within %.0f m of the database's depth are served, deeper ones need a database made "
                  "at their depth",
                  in->source_depth / 1e3, rec->network, rec->station, rec->burial / 1e3, BURIAL_AS_SURFACE_M);
    const double want = isnan(rec->depth) ? 0.0 : rec->depth;
    AXB_CHECK(err, fabs(want - in->source_depth) <= 1.0, AXB_ERR_UNSUPPORTED,
              "the reciprocal database's receiver is at %.1f km depth; this receiver is at %.1f km (%s): a "
              "reciprocal database serves receivers at its own depth only",
              in->source_depth / 1e3, want / 1e3, isnan(rec->depth) ? "no depth given: the surface" : "its depth");
    return AXB_OK;
}

/* A forward database holds the wavefield of sources at the one depth its header names: a source
 * elsewhere would silently get that depth's seismogram (Instaseis warns and does so), so it is
 * refused unless the depths agree within a metre. A source without a depth is at the database's. */
static axb_status check_source_depth(const axb_db_info *in, const axb_source *src, axb_error *err)
{
    if (isnan(src->depth)) return AXB_OK;
    AXB_CHECK(err, fabs(src->depth - in->source_depth) <= 1.0, AXB_ERR_UNSUPPORTED,
              "the forward database's source is at %.1f km depth; this source is at %.1f km: a forward database "
              "serves sources at its own depth only",
              in->source_depth / 1e3, src->depth / 1e3);
    return AXB_OK;
}

axb_status axb_extract_check_pair(const axb_extract_plan *p, const axb_pair_ref *pair, axb_error *err)
{
    const axb_db_info *in = p->info;
    const axb_source *src = pair->src;
    const axb_receiver *rec = pair->rec;
    if (src->type == AXB_SRC_FORCE) {
        AXB_CHECK(err, in->kind == AXB_DB_RECIPROCAL, AXB_ERR_UNSUPPORTED,
                  "forward databases take moment tensors only, not forces");
        AXB_CHECK(err, p->mesh->has_elements, AXB_ERR_UNSUPPORTED,
                  "force sources need a displ_only database (this one is %s)", axb_dump_type_name(in->dump));
    }
    AXB_TRY(check_position(src->lat, src->lon, "source", err));
    AXB_TRY(check_position(rec->lat, rec->lon, "receiver", err));
    if (in->kind == AXB_DB_RECIPROCAL) {
        AXB_TRY(check_receiver_depth(in, rec, err));
        AXB_TRY(check_radius(in, src->depth, "source", err));
    } else {
        AXB_TRY(check_source_depth(in, src, err));
        AXB_TRY(check_radius(in, rec->depth, "receiver", err));
    }
    const double dist = axb_geo_distance_deg(src->lat, src->lon, rec->lat, rec->lon);
    AXB_CHECK(err, dist >= in->min_d && dist <= in->max_d, AXB_ERR_RANGE,
              "epicentral distance %.3f deg is outside the database's %.1f..%.1f deg", dist, in->min_d, in->max_d);
    return AXB_OK;
}

axb_status axb_extract_locate(const axb_extract_plan *p, const axb_pair_ref *pair, axb_loc *loc, axb_error *err)
{
    const axb_db_info *in = p->info;
    const axb_source *src = pair->src;
    const axb_receiver *rec = pair->rec;
    AXB_TRY(axb_extract_check_pair(p, pair, err));
    /* Reciprocal databases put the receiver at the pole (at their depth) and the source in the
     * mesh; forward databases the reverse (their source depth is fixed). */
    double alat, alon, adepth, blat, blon;
    if (in->kind == AXB_DB_RECIPROCAL)
        alat = src->lat, alon = src->lon, adepth = src->depth, blat = rec->lat, blon = rec->lon;
    else
        alat = rec->lat, alon = rec->lon, adepth = rec->depth, blat = src->lat, blon = src->lon;
    double xyz[3];
    axb_geo_cartesian(alat, alon, radius_of(in, adepth), xyz);
    axb_geo_rotate_frame(xyz, blon, 90.0 - blat, &loc->s, &loc->z, &loc->phi);

    int64_t cand[1];
    if (!p->mesh->has_elements) {
        /* strain-only databases store no topology: the nearest stored point is used as is */
        axb_kdtree_nearest(p->tree, loc->s, loc->z, 1, cand, NULL);
        loc->id = cand[0];
        loc->xi = loc->eta = 0;
        return AXB_OK;
    }
    if (axb_sem_locate(p->mesh, p->tree, loc->s, loc->z, 10, &loc->id, &loc->xi, &loc->eta)) return AXB_OK;
    return axb_error_set(err, AXB_ERR_RANGE, "no element of the mesh contains the point (s, z) = (%.1f, %.1f) km",
                         loc->s / 1e3, loc->z / 1e3);
}

axb_status axb_extract_where(const axb_extract_plan *p, const axb_pair_ref *pair, int64_t *id, double *xi, double *eta,
                             axb_error *err)
{
    axb_loc loc;
    AXB_TRY(axb_extract_locate(p, pair, &loc, err));
    *id = loc.id;
    *xi = loc.xi;
    *eta = loc.eta;
    return AXB_OK;
}
