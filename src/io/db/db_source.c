/* Where the solver really put the database's point source (db.h, docs/database-format.md).
 *
 * AxiSEM (SOLVER/source.f90, subroutine find_srcloc) does not put a point source at the depth it
 * was asked for: it loops over every GLL point of every element, skips those off the northern
 * axis (|s| > smallval_dble = 1e-11 m, or z < 1e-11 m), and keeps the one whose z is nearest to
 * zsrc = router − src_depth (a strictly smaller distance replaces the best so far, so among equal
 * distances the first point in its element order wins). The source terms are built at that point
 * and zsrc is moved there, but the attribute 'source depth in km' is written from src_depth
 * (SOLVER/parameters.F90), i.e. the depth that was asked for. The same routine places the single
 * forces of a reciprocal run, so the rule holds for both kinds. */
#include <math.h>

#include "io/db/db_internal.h"

/* AxiSEM's smallval_dble (SOLVER/global_parameters.f90): its test for "on the axis". */
#define AXISEM_SMALLVAL 1e-11

axb_status axb_mesh_source_radius(const axb_mesh *m, double planet_radius, double depth, double *r_used, axb_error *err)
{
    *r_used = NAN;
    const double want = planet_radius - depth;
    /* The stored coordinates are float32 copies of the solver's double ones: one float32 step at
     * the planet radius (0.5 m for the Earth) is the precision of the file. */
    const double ulp = ldexp(1.0, ilogb(planet_radius) - 23);
    int64_t best = -1, nax = 0;
    double z_lo = INFINITY, z_hi = -INFINITY;
    for (int64_t p = 0; p < m->npoints; p++) {
        const double s = m->s[p], z = m->z[p];
        if (fabs(s) > AXISEM_SMALLVAL || z < AXISEM_SMALLVAL) continue;
        nax++;
        if (z < z_lo) z_lo = z;
        if (z > z_hi) z_hi = z;
        const double d = fabs(z - want);
        /* ties between distinct radii: the file does not keep the solver's element order, so
         * the shallower point is taken (a tie needs the asked radius exactly between two points) */
        if (best < 0 || d < fabs(m->z[best] - want) || (d == fabs(m->z[best] - want) && z > m->z[best])) best = p;
    }
    AXB_CHECK(err, nax > 0, AXB_ERR_UNSUPPORTED,
              "no stored point on the axis (strain_only databases store element interiors only), so the "
              "point the solver moved the source to cannot be found");
    /* Points beyond the stored shell exist in the solver's mesh: only a source between the stored
     * axial points has its nearest point among them. */
    AXB_CHECK(err, want >= z_lo - ulp && want <= z_hi + ulp, AXB_ERR_RANGE,
              "the source at radius %.3f km (depth %.3f km) lies outside the stored axial points "
              "(radii %.3f to %.3f km), so the point the solver moved it to is not in the file",
              want / 1e3, depth / 1e3, z_lo / 1e3, z_hi / 1e3);
    const double z = m->z[best];
    /* a point at the asked radius to the file's precision is the asked radius: mkdb databases
     * (and AxiSEM runs whose mesh has a point there) get the header's depth back exactly */
    *r_used = fabs(z - want) <= ulp ? want : z;
    return AXB_OK;
}

axb_status axb_db_source_radius(const axb_db *db, double *r_used, axb_error *err)
{
    const axb_db_info *in = &db->info;
    if (axb_mesh_source_radius(&db->mesh, in->planet_radius, in->source_depth, r_used, err))
        return axb_error_prefix(err, "%s", in->path);
    return AXB_OK;
}
