/**
 * @file db_memory.h
 * @brief In-memory wavefield databases: a small fixed mesh whose element data are computed from a
 *        closed form when read, so code above the database layer (the extraction, the CLI, a user's
 *        program) runs without HDF5 files and without shared data (IOR's DUMMY backend).
 *
 * axb_db_open(comm, "memory:NAME", ...) or axb_db_open_memory(comm, "NAME", ...) opens one; it
 * goes through the same collective steps as a database on disk (rank 0 builds the description and
 * broadcasts it, every rank agrees), so a missing agreement shows up as a hang in seconds. NAME is
 * one of
 *  - "bwd": reciprocal, PX and PZ (components ZNERT);
 *  - "pz":  reciprocal, PZ only (Z);
 *  - "px":  reciprocal, PX only (NERT);
 *  - "fwd": forward, the four moment-tensor runs, source at 10 km depth.
 *
 * Every database: npol 4, AXB_DB_MEMORY_NTHETA × AXB_DB_MEMORY_NRAD spheroidal elements on a
 * regular (colatitude, radius) grid covering 0..40 degrees and radii 5371..6371 km (planet radius
 * 6371 km), the first column on the axis (GLJ points in ξ), AXB_DB_MEMORY_NDUMPS samples every
 * 1 s, dominant period 10 s, STF "errorf" shifted by 5 s, amplitude 1e20, displ_only, read like
 * the merged layout (one read per request) but reported as info.layout AXB_LAYOUT_MEMORY; no
 * files; axb_db_layout_name gives "memory"), a homogeneous isotropic background model (vp
 * 8000 m/s, vs 4000 m/s, rho 3300 kg/m³, mu = rho·vs² at every point; xi, phi, eta NULL). Element reads return (float) axb_db_memory_value at each GLL point's stored (s, z).
 */
#ifndef AXIBULK_DB_MEMORY_H
#define AXIBULK_DB_MEMORY_H

#include <mpi.h>
#include <stdint.h>

#include "axibulk/db.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Path prefix that selects an in-memory database in axb_db_open. */
#define AXB_DB_MEMORY_PREFIX "memory:"
/** Element columns in colatitude, layers in radius, and time samples of every memory database. */
#define AXB_DB_MEMORY_NTHETA 10
#define AXB_DB_MEMORY_NRAD 5
#define AXB_DB_MEMORY_NDUMPS 64

/**
 * The stored value of component @p comp (0-based within the run: s, [phi,] z) of run @p sim at
 * (@p s, @p z) in metres and sample @p t: with τ = t·dt, d the distance from the pole point
 * (0, planet radius) and c = 200 km/s,
 *   1e-9 · (1 + sim + comp/2) · exp(−((τ − 10 − d/c) / 4)²) · cos(2π (τ − d/c) / 10 + comp),
 * a pulse leaving the pole. Defined for any database description; the data of memory databases.
 */
double axb_db_memory_value(const axb_db_info *info, axb_sim sim, int comp, double s, double z, int64_t t);

/** axb_db_open of "memory:" @p name. Collective over @p comm. */
AXB_NODISCARD axb_status axb_db_open_memory(MPI_Comm comm, const char *name, axb_db **db, axb_error *err);

#ifdef __cplusplus
}
#endif
#endif
