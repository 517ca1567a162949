/**
 * @file kernel_output.h
 * @brief The result of a kernel job and its file: one HDF5 file with the mesh, every kernel, its
 *        error estimate, the points used per cell and the reference seismograms, plus an XDMF file
 *        beside it that ParaView opens as is. Layout in docs/output-format.md.
 *
 * Ownership: the writer only reads the result; the engine (kernel.h) owns and frees it.
 */
#ifndef AXIBULK_KERNEL_OUTPUT_H
#define AXIBULK_KERNEL_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "axibulk/invmesh.h"
#include "axibulk/kernel_job.h"
#include "axibulk/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One output column: a kernel for one parameter. */
typedef struct axb_kernel_column {
    char name[96]; /**< "<kernel>_<param>", e.g. "P30_vp" */
    int kernel;    /**< index into job.kernels */
    axb_kparam param;
} axb_kernel_column;

typedef struct axb_kernel_result {
    const axb_invmesh *mesh; /**< the inversion mesh (vertices in m, Earth-centred Cartesian) */
    bool per_vertex;         /**< values per vertex (nitems = nvert) or per cell (nitems = ncell) */
    int ncolumns;
    axb_kernel_column *columns; /**< [ncolumns] */
    double *value;              /**< [ncolumns][nitems] the integrals ∫ K w dV */
    double *error;              /**< [ncolumns][nitems] their Monte Carlo error estimates (1 σ) */
    int64_t *npoints;           /**< [ncell] points evaluated per cell */
    double *volume;             /**< [ncell] m³ */
    /* Reference seismograms, one per kernel: the filtered component, t = 0 at the origin time. */
    int nkernels;
    int64_t seis_npts;
    double seis_dt;
    double *seismogram; /**< [nkernels][seis_npts] m (m/s when deconvolved: the moment released as an impulse) */
    double *velocity;   /**< [nkernels][seis_npts] its time derivative */
    double *integral;   /**< [ncolumns] Σ of the values over the mesh (the volume integral) */
    /* Provenance, written as attributes. */
    const char *fwd_db, *bwd_db;
    double source_depth; /**< m, the depth the kernels used */
    double seconds;      /**< wall time of the computation */
    int nranks;
} axb_kernel_result;

/**
 * Writes @p res to @p h5path (as h5path.partial, renamed when complete) and the XDMF file
 * @p xdmfpath that refers to it by its file name (so the pair can be moved together; it must be in
 * the same folder, AXB_ERR_ARG otherwise). An existing @p h5path or @p xdmfpath is refused
 * (AXB_ERR_IO, naming the file and --force) unless @p force; it stays until the new file replaces
 * it. A leftover .partial is replaced; on failure no .partial is left. Kernel and column names
 * must be distinct and free of '/', ':' and control characters. Serial: call on one rank.
 * @p job supplies the attributes (kernel definitions, receivers, event, options).
 */
AXB_NODISCARD axb_status axb_kernel_output_write(const char *h5path, const char *xdmfpath, const axb_kernel_job *job,
                                                 const axb_kernel_result *res, bool force, axb_error *err);

/** Checks, before any work, that @p h5path and @p xdmfpath can be written: distinct names, the
 *  same existing folder, and (unless @p force) neither exists yet. Serial. */
AXB_NODISCARD axb_status axb_kernel_output_check(const char *h5path, const char *xdmfpath, bool force,
                                                 axb_error *err);

/** Writes the two files exactly at @p h5file (which must not exist) and @p xdmffile, the XDMF one
 *  referring to the HDF5 file as @p h5name: for a caller that publishes them itself (the engine's
 *  checkpointed runs, core/partial). Syncs the HDF5 file. Serial. */
AXB_NODISCARD axb_status axb_kernel_output_write_files(const char *h5file, const char *xdmffile, const char *h5name,
                                                       const axb_kernel_job *job, const axb_kernel_result *res,
                                                       axb_error *err);

/** The XDMF path for an HDF5 output path: "x.h5" -> "x.xdmf", otherwise path + ".xdmf". The
 *  result is written to @p out (size @p n); AXB_ERR_ARG if it does not fit. */
AXB_NODISCARD axb_status axb_kernel_xdmf_path(const char *h5path, char *out, size_t n, axb_error *err);

#ifdef __cplusplus
}
#endif
#endif
