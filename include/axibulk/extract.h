/**
 * @file extract.h
 * @brief Seismograms from a wavefield database with Instaseis' algorithm (reference notes §2–3).
 *
 * Plan/execute split: axb_extract_plan_create does every costly setup once (KD-tree over the
 * mesh, time window, FFTW plans for STF reconvolution, buffers); axb_extract_pairs then computes
 * any number of seismograms. Within one call each element (or stored point) is read once and its
 * strain or displacement computed once, whatever the number of pairs that need it.
 *
 * The plan reads with independent MPI-IO and is used by one rank (each rank makes its own plan).
 * The database must outlive the plan.
 */
#ifndef AXIBULK_EXTRACT_H
#define AXIBULK_EXTRACT_H

#include <stdbool.h>
#include <stdint.h>

#include "axibulk/db.h"
#include "axibulk/source.h"
#include "axibulk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum axb_quantity {
    AXB_QUANTITY_DISPLACEMENT = 0,
    AXB_QUANTITY_VELOCITY = 1,
    AXB_QUANTITY_ACCELERATION = 2
} axb_quantity;

/** Element data read per batch and rank when axb_extract_opts.batch_mb is 0 (MB): small enough that
 *  a batch stays in the processor's caches between its read and its seismograms (docs/cli.md). */
#define AXB_EXTRACT_BATCH_MB_DEFAULT 4

typedef struct axb_extract_opts {
    char components[8];       /**< subset of "ZNERT" in output order; "" = database default */
    axb_quantity quantity;    /**< displacement, velocity or acceleration */
    double dt;                /**< output sampling (s); 0 = the database's */
    int kernelwidth;          /**< Lanczos kernel half-width a (samples of the database dt) */
    bool remove_source_shift; /**< start at the origin time (drop samples before the STF peak) */
    bool reconvolve_stf;      /**< convolve with each source's own sliprate (excludes the above) */
    int64_t batch_mb;         /**< element data read per batch (MB); bounds memory; 0: AXB_EXTRACT_BATCH_MB_DEFAULT */
    int64_t cache_mb;         /**< element blocks kept across calls of one plan (MB, per rank; 0: none).
                                     Serves repeats in finite-fault batches and in the library's pair
                                     calls; the partitioned job path reads each element once anyway. */
} axb_extract_opts;

/** Instaseis' defaults: database components, displacement, no resampling, kernel width 12,
 *  source shift removed; 64 MB batches, 256 MB element cache. */
/* clang-format off */
#define AXB_EXTRACT_OPTS_DEFAULT {"", AXB_QUANTITY_DISPLACEMENT, 0.0, 12, true, false, 256, 256}
/* clang-format on */

/** Parses "displacement" / "velocity" / "acceleration". */
AXB_NODISCARD axb_status axb_quantity_parse(const char *s, axb_quantity *kind, axb_error *err);
const char *axb_quantity_name(axb_quantity kind);
const char *axb_quantity_units(axb_quantity kind);

typedef struct axb_extract_plan axb_extract_plan;

/** A source–receiver pair by reference (cross products need no copies). */
typedef struct axb_pair_ref {
    const axb_source *src;
    const axb_receiver *rec;
} axb_pair_ref;

AXB_NODISCARD axb_status axb_extract_plan_create(axb_db *db, const axb_extract_opts *opts, axb_extract_plan **plan,
                                                 axb_error *err);
void axb_extract_plan_destroy(axb_extract_plan **plan);

/** Output geometry of the plan. */
const char *axb_extract_components(const axb_extract_plan *plan);
int axb_extract_ncomp(const axb_extract_plan *plan);
int64_t axb_extract_npts(const axb_extract_plan *plan);
double axb_extract_dt(const axb_extract_plan *plan);
/** Time of the first sample minus the source's origin time (s). */
double axb_extract_start_offset(const axb_extract_plan *plan);

/**
 * Seismograms of n pairs: out + k·ncomp·npts receives pair k's traces [component][sample] in SI
 * units (m, m/s, m/s²). Any failure (a depth or distance outside the database, a force source on
 * a strain-only database, ...) names the pair (0-based index) and the problem.
 */
AXB_NODISCARD axb_status axb_extract_pairs(axb_extract_plan *plan, int64_t n, const axb_pair_ref *pairs, double *out,
                                           axb_error *err);

/** axb_extract_pairs for a slice of a larger list: messages name pair first + k. */
AXB_NODISCARD axb_status axb_extract_pairs_from(axb_extract_plan *plan, int64_t first, int64_t n,
                                                const axb_pair_ref *pairs, double *out, axb_error *err);

/**
 * A finite source (reciprocal databases): the sum over the n point sources, each reconvolved
 * with its own sliprate (at the database dt) and delayed by its time_shift, as Instaseis'
 * get_seismograms_finite_source. The plan must be made with reconvolve_stf = true and
 * remove_source_shift = false; out receives [component][sample], sample 0 at the origin time.
 * Each time_shift (the rupture time; NaN: 0) must lie in [0, nfft·dt) of the reconvolution
 * (AXB_ERR_RANGE otherwise): it is applied as a circular phase shift, which would wrap around.
 */
AXB_NODISCARD axb_status axb_extract_finite(axb_extract_plan *plan, int64_t n, const axb_source *subfaults,
                                            const axb_receiver *rec, double *out, axb_error *err);

/** Number of Green's functions axb_extract_greens computes. */
#define AXB_NGREENS 10

/**
 * The ten Green's functions of Minson & Dreger (2008), Instaseis' "seiscomp" definition, for a
 * source at @p depth (m) and a receiver @p distance (degrees) away: out + k·npts for k in the
 * order TSS, ZSS, RSS, TDS, ZDS, RDS, ZDD, RDD, ZEP, REP (responses to unit tensors in N·m;
 * TSS ← m_tp = −1, SS ← m_tt = 1, m_pp = −1, TDS ← m_rp = −1, DS ← m_rt = 1, DD ← m_rr = 2,
 * m_tt = m_pp = −1, EP ← m_rr = m_tt = m_pp = 1). Needs a reciprocal database with PX and PZ.
 * @p opts gives kind, dt, kernel width and shift removal (its components are ignored); @p npts
 * receives the samples per trace; @p out must hold AXB_NGREENS·npts doubles (query npts first by
 * passing out = NULL).
 */
AXB_NODISCARD axb_status axb_extract_greens(axb_db *db, const axb_extract_opts *opts, double depth, double distance,
                                            double *out, int64_t *npts, axb_error *err);

/** Where a pair falls in the database mesh: the element (displ_only) or stored point
 *  (strain_only), and its reference coordinates. For diagnostics and tests. */
AXB_NODISCARD axb_status axb_extract_where(const axb_extract_plan *plan, const axb_pair_ref *pair, int64_t *id,
                                           double *xi, double *eta, axb_error *err);

/** Counters since the plan was made: pairs computed, elements (or points) read. */
typedef struct axb_extract_stats {
    int64_t pairs, elements_read;
    int64_t cache_hits; /**< element blocks served by the plan's cache instead of a read */
} axb_extract_stats;
void axb_extract_get_stats(const axb_extract_plan *plan, axb_extract_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
