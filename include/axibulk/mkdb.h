/**
 * @file mkdb.h
 * @brief Generating AxiSEM-format wavefield databases (`axibulk mkdb`) whose wavefield comes from
 *        the analytic full-space solution (fullspace.h), in the original layout Instaseis reads.
 *
 * Three steps, each usable on its own (tests drive them separately):
 *  1. axb_mkdb_plan: validate the options and derive everything that follows from them (element
 *     grid, samples, source shift, sizes) without touching the file system;
 *  2. axb_mkdb_mesh_build: the spectral-element mesh of the spherical shell (pure, no MPI);
 *  3. axb_mkdb_run: the whole command, collective over a communicator (ranks own contiguous GLL
 *     point ranges of the snapshot arrays), written to DIR.partial and renamed to DIR
 *     (core/partial.h); the format itself is the original-layout writer's (src/io/db/
 *     original_write.h).
 *
 * Same options -> byte-identical files (no timestamps, no host/user names).
 */
#ifndef AXIBULK_MKDB_H
#define AXIBULK_MKDB_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "axibulk/db.h"
#include "axibulk/mesh.h"
#include "axibulk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The polynomial order AxiSEM (and Instaseis' hard-coded 5-point paths) use. */
#define AXB_MKDB_NPOL 4

/** Options of `axibulk mkdb`. Lengths in km where the name says so, else SI (m/s, kg/m^3, s). */
typedef struct axb_mkdb_opts {
    const char *dir;              /**< output database folder */
    axb_db_kind kind;             /**< reciprocal: PX + PZ forces (the receiver); forward: 4 MT runs */
    axb_dump_type dump;           /**< displ_only or strain_only (reciprocal only) */
    axb_layout layout;            /**< original only for now */
    double period;                /**< dominant period: resolution and STF width */
    double length;                /**< record length (the last sample is at >= length) */
    double rmin_km;               /**< inner radius of the stored shell, > 0 */
    double radius_km;             /**< planet radius R (outer radius), default 6371 */
    double source_depth_km;       /**< depth below R of the forces (reciprocal: where the receiver
                                       is) or of the moment tensors (forward); default 0 */
    double vp, vs, rho;           /**< homogeneous medium */
    double points_per_wavelength; /**< GLL points per shear wavelength at the surface (default 6) */
    double element_km;            /**< element size given directly (0: from the period) */
    double dt;                    /**< sample interval (0: period / 4) */
    double amplitude;             /**< scalar source magnitude (stored as float32) */
    bool force;                   /**< replace an existing DIR */
    bool progress;                /**< sizes and progress lines on the progress stream (rank 0) */
    int64_t memory_bytes;         /**< per rank, snapshot data in flight (default 256 MiB) */
    bool axisem_filters;          /**< chunks and filters as AxiSEM writes them (fletcher32, shuffle,
                                       deflate 2; 8192 values per chunk): the real format, for
                                       benchmarks; default: 112-point chunks with fletcher32 alone
                                       (every file has fletcher32: damage is an error on read) */
} axb_mkdb_opts;

/** Everything derived from the options. */
typedef struct axb_mkdb_plan {
    int npol;
    int ntheta, nrad; /**< elements along colatitude (0..180 deg) and radius */
    int nrad_below;   /**< layers below r_src when r_min < r_src < r_max (a layer boundary lies at
                           r_src), else 0: the layers are then equal across the shell */
    int64_t nelem;
    int64_t npoints; /**< stored points per file */
    int64_t nt;      /**< samples */
    double dt;
    double r_min, r_max; /**< metres */
    double r_src;        /**< source radius (metres): R − the float32 depth, both kinds */
    double src_shift;    /**< STF peak time, a whole number of samples */
    int src_shift_samples;
    double stf_sigma; /**< STF width parameter from the physics */
    float amplitude;  /**< as stored; the wavefield is computed with this value */
    int nsim;
    axb_sim sims[4];     /**< runs written, in folder order */
    int64_t file_bytes;  /**< estimated size of one file with the most variables */
    int64_t total_bytes; /**< estimated size of the database */
} axb_mkdb_plan;

/** Generated mesh: point coordinates plus the element topology of the displ_only layout. */
typedef struct axb_mkdb_mesh {
    int npol;
    int64_t nelem, npoints;
    bool has_elements; /**< false for strain_only (interior points only) */
    double *s, *z;     /**< [npoints] metres */
    double *es, *ez;   /**< [npoints] where the field is evaluated (see mkdb_mesh.c);
                                        NULL for strain_only: there the stored float32 s, z */
    int32_t *sem;      /**< [nelem][npol+1][npol+1], sem[e][j][i], i = xi index */
    int32_t *fem;      /**< [nelem][4] */
    int32_t *axis;     /**< [nelem] */
    int32_t *mid;      /**< [nelem] point index of (npol/2, npol/2) */
    double gll[AXB_NPOL_MAX + 1], glj[AXB_NPOL_MAX + 1];
    double G1[(AXB_NPOL_MAX + 1) * (AXB_NPOL_MAX + 1)]; /**< GLJ derivatives, float32-rounded */
    double G2[(AXB_NPOL_MAX + 1) * (AXB_NPOL_MAX + 1)]; /**< GLL derivatives, float32-rounded */
} axb_mkdb_mesh;

/** Result of a run (identical on every rank). */
typedef struct axb_mkdb_result {
    axb_mkdb_plan plan;
    int64_t bytes_written; /**< size of the files on disk */
    double seconds;
} axb_mkdb_result;

/** Defaults: reciprocal, displ_only, original, R 6371 km, vp 10 km/s, vs 5.77 km/s,
 *  rho 3300 kg/m^3, 40 points per wavelength (seismograms within 1e-4 of the closed form:
 *  docs/mkdb.md), dt = period/4, amplitude 1e20, 256 MiB. The caller
 *  must still set dir, period, length and rmin_km. */
void axb_mkdb_defaults(axb_mkdb_opts *o);

/** Validates @p o and derives the plan (pure; identical on every rank). AXB_ERR_ARG for bad
 *  options, AXB_ERR_UNSUPPORTED for the merged layout and forward strain_only. */
AXB_NODISCARD axb_status axb_mkdb_plan_make(const axb_mkdb_opts *o, axb_mkdb_plan *plan, axb_error *err);

/** GLL and GLJ(0,1) points of order @p npol and their derivative matrices D[i][k] = l_k'(x_i)
 *  rounded to float32 (as AxiSEM stores them). */
AXB_NODISCARD axb_status axb_mkdb_basis(int npol, double *gll, double *glj, double *G1, double *G2, axb_error *err);

/** Builds the mesh of @p plan (displ_only: shared GLL points, element topology; strain_only:
 *  the interior points of every element). Free with axb_mkdb_mesh_free. */
AXB_NODISCARD axb_status axb_mkdb_mesh_build(const axb_mkdb_plan *plan, bool with_elements, axb_mkdb_mesh *m,
                                             axb_error *err);
void axb_mkdb_mesh_free(axb_mkdb_mesh *m);

/** The whole command (collective): plan, report sizes, mesh, every file, rename. */
AXB_NODISCARD axb_status axb_mkdb_run(MPI_Comm comm, const axb_mkdb_opts *o, FILE *progress, axb_mkdb_result *res,
                                      axb_error *err);

#ifdef __cplusplus
}
#endif
#endif
