/* Geometry of inversion-mesh cells: voxel grids, volumes, centres and the volume-uniform map from
 * the unit cube into a cell that quasi-Monte Carlo integration draws its points through. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/geometry.h"
#include "axibulk/invmesh.h"

int axb_cell_nvert(axb_cell_type t)
{
    return t == AXB_CELL_VOXEL ? 8 : 4;
}

void axb_invmesh_free(axb_invmesh *m)
{
    if (!m) return;
    free(m->vert);
    free(m->cell);
    free(m->voxel);
    memset(m, 0, sizeof *m);
}

static const double DEG = 3.14159265358979323846 / 180.0;

axb_status axb_invmesh_voxels(const axb_voxel_grid *g, double radius_m, axb_invmesh *out, axb_error *err)
{
    memset(out, 0, sizeof *out);
    AXB_CHECK(err, g->nlat >= 1 && g->nlon >= 1 && g->ndepth >= 1, AXB_ERR_ARG,
              "voxel grid: counts must be at least 1 (got %lld x %lld x %lld)", (long long)g->nlat, (long long)g->nlon,
              (long long)g->ndepth);
    AXB_CHECK(err, g->lat_min >= -90 && g->lat_max <= 90 && g->lat_min < g->lat_max, AXB_ERR_ARG,
              "voxel grid: latitudes %g..%g must be increasing within -90..90", g->lat_min, g->lat_max);
    AXB_CHECK(err, g->lon_min < g->lon_max && g->lon_max - g->lon_min <= 360, AXB_ERR_ARG,
              "voxel grid: longitudes %g..%g must be increasing and span at most 360", g->lon_min, g->lon_max);
    AXB_CHECK(err,
              radius_m > 0 && g->depth_min_km >= 0 && g->depth_min_km < g->depth_max_km &&
                  g->depth_max_km * 1e3 < radius_m,
              AXB_ERR_ARG, "voxel grid: depths %g..%g km must be increasing within 0..%g km", g->depth_min_km,
              g->depth_max_km, radius_m / 1e3);
    const double cells = (double)g->nlat * (double)g->nlon * (double)g->ndepth;
    AXB_CHECK(err, cells <= 1e9, AXB_ERR_ARG, "voxel grid: %.3g cells is too many", cells);
    const int64_t na = g->nlat + 1, no = g->nlon + 1, nd = g->ndepth + 1;
    out->type = AXB_CELL_VOXEL;
    out->nvert = na * no * nd;
    out->ncell = g->nlat * g->nlon * g->ndepth;
    out->vert = malloc((size_t)out->nvert * 3 * sizeof *out->vert);
    out->cell = malloc((size_t)out->ncell * 8 * sizeof *out->cell);
    out->voxel = malloc((size_t)out->ncell * 6 * sizeof *out->voxel);
    if (!out->vert || !out->cell || !out->voxel) {
        axb_invmesh_free(out);
        return axb_error_set(err, AXB_ERR_NOMEM, "voxel grid of %.3g cells", cells);
    }
    /* vertex (i lat, j lon, k depth), depth index k = 0 at the surface side */
#define VID(i, j, k) (((k)*na + (i)) * no + (j))
    for (int64_t k = 0; k < nd; k++) {
        const double depth = g->depth_min_km + (g->depth_max_km - g->depth_min_km) * (double)k / (double)g->ndepth;
        for (int64_t i = 0; i < na; i++) {
            const double lat = g->lat_min + (g->lat_max - g->lat_min) * (double)i / (double)g->nlat;
            for (int64_t j = 0; j < no; j++) {
                const double lon = g->lon_min + (g->lon_max - g->lon_min) * (double)j / (double)g->nlon;
                axb_geo_cartesian(lat, lon, radius_m - depth * 1e3, out->vert + 3 * VID(i, j, k));
            }
        }
    }
    int64_t c = 0;
    for (int64_t k = 0; k < g->ndepth; k++)
        for (int64_t i = 0; i < g->nlat; i++)
            for (int64_t j = 0; j < g->nlon; j++, c++) {
                /* inner face (deeper, k + 1) first, counter-clockwise seen from outside: with
                 * latitude north and longitude east that is (i,j) (i,j+1) (i+1,j+1) (i+1,j) */
                int64_t *v = out->cell + 8 * c;
                const int64_t ks[2] = {k + 1, k};
                for (int f = 0; f < 2; f++) {
                    v[4 * f + 0] = VID(i, j, ks[f]);
                    v[4 * f + 1] = VID(i, j + 1, ks[f]);
                    v[4 * f + 2] = VID(i + 1, j + 1, ks[f]);
                    v[4 * f + 3] = VID(i + 1, j, ks[f]);
                }
                double *b = out->voxel + 6 * c;
                const double d0 = g->depth_min_km + (g->depth_max_km - g->depth_min_km) * (double)k / (double)g->ndepth;
                const double d1 =
                    g->depth_min_km + (g->depth_max_km - g->depth_min_km) * (double)(k + 1) / (double)g->ndepth;
                const double la0 = g->lat_min + (g->lat_max - g->lat_min) * (double)i / (double)g->nlat;
                const double la1 = g->lat_min + (g->lat_max - g->lat_min) * (double)(i + 1) / (double)g->nlat;
                const double lo0 = g->lon_min + (g->lon_max - g->lon_min) * (double)j / (double)g->nlon;
                const double lo1 = g->lon_min + (g->lon_max - g->lon_min) * (double)(j + 1) / (double)g->nlon;
                b[0] = radius_m - d1 * 1e3;
                b[1] = radius_m - d0 * 1e3;
                b[2] = (90.0 - la1) * DEG; /* colatitude grows southwards */
                b[3] = (90.0 - la0) * DEG;
                b[4] = lo0 * DEG;
                b[5] = lo1 * DEG;
            }
#undef VID
    return AXB_OK;
}

static double tet_det(const double *a, const double *b, const double *c, const double *d)
{
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const double w[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) + u[2] * (v[0] * w[1] - v[1] * w[0]);
}

double axb_invmesh_cell_volume(const axb_invmesh *m, int64_t c)
{
    if (m->type == AXB_CELL_VOXEL) {
        const double *b = m->voxel + 6 * c;
        return (b[1] * b[1] * b[1] - b[0] * b[0] * b[0]) / 3.0 * (cos(b[2]) - cos(b[3])) * (b[5] - b[4]);
    }
    const int64_t *v = m->cell + 4 * c;
    return fabs(tet_det(m->vert + 3 * v[0], m->vert + 3 * v[1], m->vert + 3 * v[2], m->vert + 3 * v[3])) / 6.0;
}

/* Rocchini & Cignoni's folding of the unit cube onto the corner simplex s, t, u >= 0,
 * s + t + u <= 1: piecewise linear with unit Jacobian, so uniform stays uniform. */
static void fold_to_simplex(const double q[3], double stu[3])
{
    double s = q[0], t = q[1], u = q[2];
    if (s + t > 1.0) {
        s = 1.0 - s;
        t = 1.0 - t;
    }
    if (t + u > 1.0) {
        const double tmp = u;
        u = 1.0 - s - t;
        t = 1.0 - tmp;
    } else if (s + t + u > 1.0) {
        const double tmp = u;
        u = s + t + u - 1.0;
        s = 1.0 - t - tmp;
    }
    stu[0] = s;
    stu[1] = t;
    stu[2] = u;
}

void axb_invmesh_map_point(const axb_invmesh *m, int64_t c, const double q[3], double x[3], double *w)
{
    if (m->type == AXB_CELL_VOXEL) {
        /* uniform in volume: r³, cos(colatitude) and longitude are uniform */
        const double *b = m->voxel + 6 * c;
        const double r0c = b[0] * b[0] * b[0], r1c = b[1] * b[1] * b[1];
        const double r = cbrt(r0c + q[0] * (r1c - r0c));
        const double ct = cos(b[2]) - q[1] * (cos(b[2]) - cos(b[3]));
        const double st = sqrt(fmax(0.0, 1.0 - ct * ct));
        const double lon = b[4] + q[2] * (b[5] - b[4]);
        x[0] = r * st * cos(lon);
        x[1] = r * st * sin(lon);
        x[2] = r * ct;
        return;
    }
    double stu[3];
    fold_to_simplex(q, stu);
    const double bw[4] = {1.0 - stu[0] - stu[1] - stu[2], stu[0], stu[1], stu[2]};
    const int64_t *v = m->cell + 4 * c;
    for (int d = 0; d < 3; d++)
        x[d] = bw[0] * m->vert[3 * v[0] + d] + bw[1] * m->vert[3 * v[1] + d] + bw[2] * m->vert[3 * v[2] + d] +
            bw[3] * m->vert[3 * v[3] + d];
    if (w) memcpy(w, bw, sizeof bw);
}

void axb_invmesh_cell_centre(const axb_invmesh *m, int64_t c, double x[3])
{
    if (m->type == AXB_CELL_VOXEL) {
        const double *b = m->voxel + 6 * c;
        const double r = 0.5 * (b[0] + b[1]), th = 0.5 * (b[2] + b[3]), lon = 0.5 * (b[4] + b[5]);
        x[0] = r * sin(th) * cos(lon);
        x[1] = r * sin(th) * sin(lon);
        x[2] = r * cos(th);
        return;
    }
    const int64_t *v = m->cell + 4 * c;
    for (int d = 0; d < 3; d++)
        x[d] = 0.25 * (m->vert[3 * v[0] + d] + m->vert[3 * v[1] + d] + m->vert[3 * v[2] + d] + m->vert[3 * v[3] + d]);
}

bool axb_invmesh_contains(const axb_invmesh *m, int64_t c, const double x[3])
{
    if (m->type == AXB_CELL_VOXEL) {
        const double *b = m->voxel + 6 * c;
        const double r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        if (r < b[0] || r > b[1] || r == 0) return false;
        const double th = acos(fmax(-1.0, fmin(1.0, x[2] / r)));
        double lon = atan2(x[1], x[0]);
        /* the cell's longitudes may start anywhere: bring lon into [l0, l0 + 2π) */
        const double two_pi = 2 * acos(-1.0);
        while (lon < b[4]) lon += two_pi;
        while (lon >= b[4] + two_pi) lon -= two_pi;
        return th >= b[2] && th <= b[3] && lon <= b[5];
    }
    /* x inside iff replacing each vertex by x keeps the orientation (all four sub-volumes agree) */
    const int64_t *v = m->cell + 4 * c;
    const double *p[4] = {m->vert + 3 * v[0], m->vert + 3 * v[1], m->vert + 3 * v[2], m->vert + 3 * v[3]};
    const double d = tet_det(p[0], p[1], p[2], p[3]);
    for (int k = 0; k < 4; k++) {
        const double *q[4] = {p[0], p[1], p[2], p[3]};
        q[k] = x;
        if (tet_det(q[0], q[1], q[2], q[3]) * d < 0) return false;
    }
    return true;
}
