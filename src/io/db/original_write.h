/* Writer of AxiSEM's original layout: one run's ordered_output.nc4 (read by db_original.c),
 * written with netCDF-C (netCDF-4/HDF5) so the files are exactly what netCDF tools and Instaseis
 * expect (reference notes §1.2-1.5). Nothing in them varies between runs (no time, host or
 * user), so the same description gives the same bytes.
 *
 * Every rank defines the same metadata (netCDF-4 parallel requires it); rank 0 alone writes the
 * mesh and the STF with independent access; puts of point ranges are collective, each rank owning
 * a contiguous run of whole chunks so no chunk is shared. A put's data are buf[var][t][count]
 * over the run's stored variables (axb_original_rows). */
#ifndef AXB_IO_DB_ORIGINAL_WRITE_H
#define AXB_IO_DB_ORIGINAL_WRITE_H

#include <stdbool.h>
#include <stdint.h>

#include "axibulk/db.h"
#include "io/db/db_writer.h"

typedef struct axb_original_def {
    axb_sim sim;
    axb_dump_type dump; /* displ_only or strain_only */
    int npol;
    int64_t npoints;
    int64_t nelem;              /* 0: no element topology (strain_only) */
    int64_t nt;                 /* samples */
    double dt, period;          /* seconds */
    double r_min, r_max, r_src; /* metres: stored shell, source radius */
    double src_shift;           /* seconds, a whole number of samples */
    int src_shift_samples;
    float amplitude;
    /* the mesh (rank 0 writes it) */
    const double *s, *z;                   /* [npoints] metres */
    double vp, vs, rho;                    /* homogeneous model */
    int32_t eltype;                        /* of every element */
    const int32_t *sem, *fem, *axis, *mid; /* [nelem][npol+1][npol+1], [nelem][4], [nelem], [nelem] */
    const double *G1, *G2, *gll, *glj;
    int64_t chunk_points; /* axb_original_chunk_points */
    int64_t max_points;   /* the largest put */
    bool axisem_filters;  /* shuffle + deflate 2 besides the fletcher32 every file has, as AxiSEM */
} axb_original_def;

/* Points per chunk of the snapshot arrays: unfiltered, 112 (fewer for very long records so a
 * chunk stays <= 16 MiB); with AxiSEM's filters, AxiSEM's own rule of 8192 values per chunk
 * (146 samples: 56 points, 295 samples: 27). */
int64_t axb_original_chunk_points(int64_t nt, int64_t npoints, bool axisem_filters);

/* The variables a run stores, as indices into the dump type's full list (displ_only: s, φ, z;
 * strain_only: dsus, dsuz, dpup, dsup, dzup, trace); returns how many. */
int axb_original_rows(axb_dump_type dump, axb_sim sim, int rows[6]);

/* An original-layout writer for @p path (not collective; define is the first collective step).
 * @p def is copied; the arrays it points to must stay valid until close. */
AXB_NODISCARD axb_status axb_original_writer_create(MPI_Comm comm, const char *path, const axb_original_def *def,
                                                    axb_db_writer **out, axb_error *err);

/* ---- within the original writer (original_attrs.c) ---- */

/* Every global attribute of reference notes §1.3, with AxiSEM's types. */
AXB_NODISCARD axb_status axb_original_attributes(int nc, const axb_original_def *d, axb_error *err);

#endif
