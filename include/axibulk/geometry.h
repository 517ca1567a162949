/**
 * @file geometry.h
 * @brief Positions and rotations between the Earth frame and a database's axisymmetric frame,
 *        in Instaseis' conventions (reference notes §2.1, §2.3, §2.9–2.11). Pure functions.
 *
 * Latitudes are geocentric degrees; colatitude = 90 − latitude. Rotation matrices are 3×3,
 * row-major, double m[3][3].
 */
#ifndef AXIBULK_GEOMETRY_H
#define AXIBULK_GEOMETRY_H

#ifdef __cplusplus
extern "C" {
#endif

/** Earth-frame Cartesian position (z through the north pole) of a point at radius r (m). */
void axb_geo_cartesian(double lat_deg, double lon_deg, double r, double xyz[3]);

/** Rotates point xyz so that the pole (lon_b, colat_b in degrees) moves onto the +z axis and
 *  returns its cylindrical coordinates in that frame: s ≥ 0, z, and φ in [0, 2π). */
void axb_geo_rotate_frame(const double xyz[3], double lon_b_deg, double colat_b_deg, double *s, double *z, double *phi);

/** Great-circle distance in degrees (ObsPy's locations2degrees, atan2 form). */
double axb_geo_distance_deg(double lat1, double lon1, double lat2, double lon2);

/** R(λ, θ): columns are θ̂, φ̂, r̂ at longitude λ, colatitude θ (degrees), in Earth Cartesian. */
void axb_geo_local_basis(double lon_deg, double colat_deg, double R[3][3]);

/**
 * Moment tensor of a source (m_rr, m_tt, m_pp, m_rt, m_rp, m_tp, any unit) in the reciprocal
 * database frame of receiver rec at azimuth φ (radians, from axb_geo_rotate_frame), as Voigt
 * [m_ss, m_φφ, m_zz, m_φz, m_sz, m_sφ]. The middle rotation is done in long double, as Instaseis
 * does it in float128.
 */
void axb_geo_tensor_to_db_frame(const double m[6], double src_lon, double src_colat, double rec_lon, double rec_colat,
                                double phi, double voigt[6]);

/** Force (f_r, f_t, f_p) in the reciprocal database frame: (f_s, f_φ, f_z). */
void axb_geo_force_to_db_frame(const double f[3], double src_lon, double src_colat, double rec_lon, double rec_colat,
                               double phi, double fc[3]);

/** Forward databases: the matrix P with (N, E, Z) = P (u_s, u_φ, u_z) at the receiver. */
void axb_geo_forward_nez(double src_lon, double src_colat, double rec_lon, double rec_colat, double phi,
                         double P[3][3]);

#ifdef __cplusplus
}
#endif
#endif
