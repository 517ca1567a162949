/**
 * @file source.h
 * @brief Sources, receivers and source–receiver pairs, in Instaseis' conventions.
 *
 * Latitudes are geocentric degrees (file readers convert WGS84 geographic latitudes, as Instaseis
 * does); longitudes in degrees; depths in metres below the surface. Moment tensors are in N·m in
 * the (r, θ, φ) = (up, south, east) frame; forces in N.
 *
 * Ownership: a list owns its array and every source's sliprate; axb_*_list_free releases them and
 * leaves an empty list. A list may be freed twice.
 */
#ifndef AXIBULK_SOURCE_H
#define AXIBULK_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "axibulk/status.h"
#include "axibulk/timefmt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum axb_source_type { AXB_SRC_MOMENT = 0, AXB_SRC_FORCE } axb_source_type;

/** Largest moment-tensor component (N·m), force component (N) and total moment of a finite
 *  source the readers accept. The largest earthquake recorded (Chile 1960, Mw 9.5) had M0 ≈ 3e23
 *  N·m; 1e30 (Mw 13.9) leaves room for any scenario while products with Green's functions and
 *  sums over subfaults stay far from overflow (1e300 gave inf samples). */
#define AXB_MAX_MOMENT 1e30

typedef struct axb_source {
    axb_source_type type;
    double lat, lon; /**< geocentric latitude and longitude, degrees */
    double depth;    /**< m below the surface; NAN when not given */
    double m[6];     /**< m_rr, m_tt, m_pp, m_rt, m_rp, m_tp (N·m), moment sources */
    double f[3];     /**< f_r, f_t, f_p (N), force sources */
    axb_time_ns origin_time;
    double time_shift; /**< s after origin_time (finite-source rupture time); NAN if none */
    double dt;         /**< sampling interval of sliprate (s); 0 when there is none */
    int64_t nsliprate;
    double *sliprate; /**< [nsliprate] moment-rate function (unit area if normalised) */
    char name[64];    /**< event or subfault name, for outputs */
} axb_source;

typedef struct axb_receiver {
    double lat, lon; /**< geocentric latitude and longitude, degrees */
    double depth;    /**< m below the surface where the seismogram is computed; NAN when not given */
    char network[8], station[8], location[8];
    /** Site metadata as the input gave it, written to outputs and never used in computing (burial
     *  does not move the receiver; a burial over 1 km from a reciprocal database's receiver depth
     *  is refused: docs/file-formats.md). Valid only when has_site; receivers of
     *  readers without it are zero-initialised, so has_site is false and outputs derive the
     *  geographic latitude from lat. */
    bool has_site;
    double geo_lat;   /**< WGS84 geographic latitude as given, degrees */
    double elevation; /**< m above sea level; NAN when not given */
    double burial;    /**< m below the ground of the sensor; NAN when not given */
} axb_receiver;

typedef struct axb_source_list {
    int64_t n;
    axb_source *src;
} axb_source_list;

typedef struct axb_receiver_list {
    int64_t n;
    axb_receiver *rec;
} axb_receiver_list;

/** An explicit source–receiver pair (pairs files). */
typedef struct axb_pair {
    axb_source src; /**< no sliprate */
    axb_receiver rec;
} axb_pair;

typedef struct axb_pair_list {
    int64_t n;
    axb_pair *pair;
} axb_pair_list;

void axb_source_list_free(axb_source_list *l);
void axb_receiver_list_free(axb_receiver_list *l);
void axb_pair_list_free(axb_pair_list *l);

/* ---- source arithmetic (src/numerics/source_math.c) ---- */

/** WGS84 geographic -> geocentric latitude (degrees), Instaseis' elliptic_to_geocentric_latitude:
 *  returned unchanged within 1e-6 of 0 or ±90. */
double axb_geocentric_latitude(double geographic_deg);
/** The inverse (geocentric_to_elliptic_latitude). */
double axb_geographic_latitude(double geocentric_deg);

/** Moment tensor of a double couple (strike, dip, rake in degrees; Udias/Instaseis convention). */
void axb_moment_from_strike_dip_rake(double strike, double dip, double rake, double m0, double m[6]);

/** Scalar moment M0 = sqrt(Σ diag² + 2 Σ offdiag²)/√2 and moment magnitude 2/3 (log10 M0 − 9.1). */
double axb_moment_m0(const double m[6]);
double axb_moment_mw(double m0);

/** USGS asymmetric cosine slip rate of unit area: npts samples at dt. */
void axb_asymmetric_cosine(double trise, double tfall, int64_t npts, double dt, double *out);

/** Re-sampling of a source's sliprate to dt with nsamp samples; sets src->dt. To a finer or equal
 *  dt: linear interpolation as Instaseis' resample_sliprate (the last value held beyond the old
 *  end). To a coarser dt: the mean over each new sample's interval [(k−½)dt, (k+½)dt] of the
 *  piecewise-linear sliprate (zero outside its samples), so Σ out·dt keeps its trapezoidal
 *  integral, the moment; point values would lose pulses shorter than dt (issue #19). */
AXB_NODISCARD axb_status axb_source_resample_sliprate(axb_source *src, double dt, int64_t nsamp, axb_error *err);

/* ---- finite sources and sliprates (src/numerics/source_math.c) ---- */

/** Divides the sliprate by its trapezoidal integral (Instaseis' normalize_sliprate: numpy.trapz
 *  with spacing src->dt). Fails with AXB_ERR_RANGE when the integral is 0 or not finite, and with
 *  AXB_ERR_ARG when there is no sliprate. */
AXB_NODISCARD axb_status axb_source_normalize_sliprate(axb_source *src, axb_error *err);

/** Total scalar moment of a finite source: Σ M0 of its moment sources (FiniteSource.M0). */
double axb_source_list_m0(const axb_source_list *l);

/** Index of the hypocentre (FiniteSource.find_hypocenter): the source with the smallest
 *  time_shift, the first one on ties; sources whose time_shift is NAN are passed over. -1 if no
 *  source has a time shift. The epicentre has the same latitude and longitude. */
int64_t axb_source_list_hypocentre(const axb_source_list *l);

/** Centroid of a finite source (Instaseis' compute_centroid, without its summed slip rate): the
 *  M0-weighted mean Cartesian position of the point sources at @p planet_radius (m), and the sum
 *  of their tensors rotated into the Earth frame and back into the centroid's frame. Fills lat,
 *  lon, depth, m and name of @p cmt (type moment, no slip rate). AXB_ERR_ARG for an empty list
 *  or zero total moment. */
AXB_NODISCARD axb_status axb_source_list_centroid(const axb_source_list *l, double planet_radius, axb_source *cmt,
                                                  axb_error *err);

/** Rupture duration: max − min time_shift over the sources that have one (0 if none). */
double axb_source_list_rupture_duration(const axb_source_list *l);

#ifdef __cplusplus
}
#endif
#endif
