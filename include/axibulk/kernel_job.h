/**
 * @file kernel_job.h
 * @brief What a sensitivity-kernel job asks for (`axibulk kernel --job FILE.yaml`): the two
 *        databases, the event, the receivers, the inversion mesh and a list of kernels. Plain data,
 *        filled by the job-file reader (axb_kernel_job_read) or by a library caller; the engine
 *        (kernel.h) validates it against the databases. The physics and every convention are in
 *        docs/kernels.md.
 *
 * Ownership: axb_kernel_job_read allocates receivers, kernels and the event's arrays;
 * axb_kernel_job_free releases them. A caller that fills the struct itself owns its arrays.
 */
#ifndef AXIBULK_KERNEL_JOB_H
#define AXIBULK_KERNEL_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "axibulk/db.h"
#include "axibulk/filter.h"
#include "axibulk/invmesh.h"
#include "axibulk/source.h"
#include "axibulk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Misfit whose sensitivity is computed. */
typedef enum axb_misfit {
    AXB_MISFIT_CC = 0, /**< cross-correlation travel time δT (s), Dahlen, Hung & Nolet 2000 */
    AXB_MISFIT_AM      /**< amplitude δ ln A, least-squares amplitude ratio (Sigloch & Nolet 2006) */
} axb_misfit;

/** Model parameters. The kernel of p is K_p with δ(misfit) = ∫ K_p δp/p dV (relative, default) or
 *  ∫ K_p δp dV (absolute). rho is density at fixed vp and vs; lambda, mu are Lamé parameters at
 *  fixed density; vph..eta are Love's radially anisotropic parameters at fixed density
 *  (docs/kernels.md §6). */
typedef enum axb_kparam {
    AXB_KP_VP = 0,
    AXB_KP_VS,
    AXB_KP_RHO,
    AXB_KP_LAMBDA,
    AXB_KP_MU,
    AXB_KP_VPH,
    AXB_KP_VPV,
    AXB_KP_VSH,
    AXB_KP_VSV,
    AXB_KP_ETA,
    AXB_KP_COUNT
} axb_kparam;

/** "vp", "vs", ... for a parameter; NULL outside the enum. */
const char *axb_kparam_name(axb_kparam p);
/** The parameter called @p name (case-insensitive); AXB_ERR_ARG naming the known ones otherwise. */
AXB_NODISCARD axb_status axb_kparam_parse(const char *name, axb_kparam *p, axb_error *err);

/** Which source time function the measured seismogram carries. */
typedef enum axb_kernel_stf {
    AXB_KSTF_DATABASE = 0, /**< the databases' own (what `axibulk extract` writes by default) */
    AXB_KSTF_DECONVOLVE    /**< none: the impulse response, filtered (the filter must suppress what
                                deconvolution amplifies) */
} axb_kernel_stf;

/** Quasi-random points for the Monte Carlo integration inside cells. */
typedef enum axb_kernel_points { AXB_KPOINTS_HALTON = 0, AXB_KPOINTS_SOBOL } axb_kernel_points;

/** One kernel: a measurement on one filtered, windowed seismogram component, for some parameters. */
typedef struct axb_kernel_def {
    char name[64];          /**< output name; the datasets are "<name>_<param>" */
    int64_t receiver;       /**< index into axb_kernel_job.receivers */
    char component;         /**< 'Z', 'R', 'T', 'N' or 'E' (R away from the source, T = R × Z as
                                 ObsPy's rotate_ne_rt) */
    axb_filter_spec filter; /**< filter.h: Butterworth (causal or zero-phase) or log-Gabor */
    double t1, t2;          /**< window in s after the event's origin time, t1 < t2 */
    axb_misfit misfit;
    uint32_t params; /**< bit (1u << axb_kparam) per requested parameter, at least one */
} axb_kernel_def;

/** How the inversion mesh is given. */
typedef enum axb_kernel_mesh_kind {
    AXB_KMESH_VOXELS = 0, /**< regular spherical grid (voxels) */
    AXB_KMESH_TET,        /**< Sigloch/Nolet vertices + facets files */
    AXB_KMESH_ABAQUS,     /**< Abaqus .inp, C3D4 elements */
    AXB_KMESH_GMSH        /**< Gmsh .msh 4.1 ASCII tetrahedra */
} axb_kernel_mesh_kind;

typedef struct axb_kernel_mesh_spec {
    axb_kernel_mesh_kind kind;
    axb_voxel_grid grid;       /**< VOXELS */
    char path[AXB_PATH_MAX];   /**< ABAQUS, GMSH: the file; TET: the vertices file */
    char facets[AXB_PATH_MAX]; /**< TET: the facets file */
} axb_kernel_mesh_spec;

/** A whole job. Lengths in m, times in s, angles in degrees. */
typedef struct axb_kernel_job {
    char fwd_db[AXB_PATH_MAX]; /**< forward database (MZZ, MXX_P_MYY, MXZ_MYZ, MXY_MXX_M_MYY) */
    char bwd_db[AXB_PATH_MAX]; /**< reciprocal (backward) database (PZ, and PX for R/T/N/E) */
    axb_source event;          /**< the event: a moment tensor (N·m) and its origin time */
    axb_receiver *receivers;
    int64_t nreceivers;
    axb_kernel_def *kernels;
    int nkernels;
    axb_kernel_mesh_spec mesh;
    bool per_vertex; /**< values per vertex with linear hat functions (tetrahedra only)
                                    instead of per cell */
    bool absolute;   /**< kernels for δp instead of δp/p */
    axb_kernel_stf stf;
    axb_kernel_points points;
    int points_per_step;       /**< points per cell per Monte Carlo step (default 8) */
    int64_t max_points;        /**< cap per cell (default 512) */
    int64_t min_points;        /**< no convergence verdict before this many (default 16) */
    double abs_error;          /**< allowed error of a kernel's integral over the whole mesh (s for CC,
                                    1 for AM; default 1e-3), shared among cells by volume */
    double rel_error;          /**< allowed error relative to a cell's value (default 1e-2) */
    bool mask_source_receiver; /**< cells holding the source or the kernel's receiver give 0 */
    bool travel_time_skip;     /**< a receiver's kernels are 0 without reading its field in cells
                                    no scattered wave can reach it before the kernels' windows end
                                    (default true; docs/kernels.md §8) */
    double damp_radius;        /**< m; within it of the source or receiver the integrand is scaled
                                    by distance/radius (0: off) */
    char output[AXB_PATH_MAX]; /**< output HDF5 file; the XDMF file is written beside it */
} axb_kernel_job;

/** Sets every field to its default (no databases, no receivers, no kernels, voxel mesh kind with
 *  an empty grid). */
void axb_kernel_job_defaults(axb_kernel_job *job);

/** Reads a kernel job file (YAML; format in docs/cli.md). Paths in the file are taken relative to
 *  the file's folder. Errors name the file, line and key. */
AXB_NODISCARD axb_status axb_kernel_job_read(const char *path, axb_kernel_job *job, axb_error *err);

/** Frees what axb_kernel_job_read allocated and zeroes the arrays' pointers; NULL-safe. */
void axb_kernel_job_free(axb_kernel_job *job);

#ifdef __cplusplus
}
#endif
#endif
