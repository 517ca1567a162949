/* Shared by the extraction engine's files: the plan and the location of a pair in the mesh. */
#ifndef AXB_ENGINES_EXTRACT_INTERNAL_H
#define AXB_ENGINES_EXTRACT_INTERNAL_H

#include <stdio.h>

#include "axibulk/extract.h"
#include "axibulk/extract_job.h"
#include "axibulk/sem.h"
#include "axibulk/timefmt.h"
#include "axibulk/timeproc.h"
#include "core/progress.h"
#include "engines/elem_cache.h"
#include "numerics/kdtree.h"

/* What one thread needs to compute pairs: the scratch of one pair and its element, and the
 * re-convolution plan (which holds FFT buffers). Lane 0 serves the serial paths; a job computing
 * a batch in the rank's worker threads uses one lane per worker (axb_extract_plan_lanes). */
typedef struct axb_extract_lane {
    axb_sem_geom geom;       /* the element of the pairs being computed (axb_elem_state.have_geom) */
    double *op_weights;      /* [3][3·np1²] one pair's weights of the stored rows */
    double *traces;          /* [14][nt] scratch traces of one pair */
    double *raw;             /* [ncomp][nt] one pair before time processing */
    double *time_work;       /* scratch of axb_time_plan_finish */
    axb_reconv_plan *reconv; /* only when reconvolving */
} axb_extract_lane;

struct axb_extract_plan {
    axb_db *db;
    const axb_db_info *info;
    const axb_mesh *mesh;
    axb_extract_opts opts;
    char comps[8];
    int ncomp;
    bool need_px, need_pz; /* reciprocal: runs that feed the requested components */
    int np1;
    int64_t nt; /* database samples */
    axb_time_window win;
    axb_time_plan *tplan; /* Lanczos weights precomputed once */
    axb_kdtree *tree;     /* element mid points, or stored points for strain_only */
    double *deconv;       /* [nt] the database STF to divide out (reconvolving), for every lane's plan */
    axb_extract_lane *lanes;
    int nlanes;
    axb_elem_cache cache; /* made on first use by the plan-level path */
    bool cache_ready;
    axb_extract_stats stats;
};

/* Makes sure the plan has at least @p n lanes (FFTW planning: call from one thread, never while
 * lanes compute). */
axb_status axb_extract_plan_lanes(axb_extract_plan *p, int n, axb_error *err);

/* Where a pair falls: element (displ_only) or stored point (strain_only), reference coordinates
 * and the azimuth in the database frame. */
typedef struct axb_loc {
    int64_t id;
    double xi, eta;
    double s, z, phi;
} axb_loc;

/* The checks of a pair against the database (kinds, positions, depths, distance) without locating
 * it: what a job verifies for every row before it creates its output. */
axb_status axb_extract_check_pair(const axb_extract_plan *p, const axb_pair_ref *pair, axb_error *err);
axb_status axb_extract_locate(const axb_extract_plan *p, const axb_pair_ref *pair, axb_loc *loc, axb_error *err);

/* Per-element derived fields, computed lazily for the element whose block is given. */
typedef struct axb_elem_state {
    int64_t elem;
    const float *block; /* [nvars][np1][np1][nt] from the database; strain_only: the point's [nv][nt] */
    bool have_geom;     /* the lane's geom is this element's */
} axb_elem_state;

/* Raw traces [ncomp][nt] (database sampling, before any time processing) of one pair whose
 * element (displ_only) or point (strain_only) data is in @p es, into ln->raw. */
axb_status axb_extract_raw(const axb_extract_plan *p, axb_extract_lane *ln, const axb_pair_ref *pair,
                           const axb_loc *loc, axb_elem_state *es, axb_error *err);

/* A subfault's rupture time (time_shift; NaN: 0) against the reconvolution's record of nfft
 * samples of dt seconds: the shift is a circular phase shift there, so a time below 0 or of
 * nfft·dt or more would wrap around silently. AXB_ERR_RANGE naming @p name. */
axb_status axb_extract_check_rupture_time(const char *name, double time_shift, int64_t nfft, double dt, axb_error *err);

/* Turns one pair's raw traces [ncomp][nt] into output samples out [ncomp][npts]: reconvolution
 * with the source's slip rate (if the plan reconvolves), resampling, differentiation, cut. */
axb_status axb_extract_finish(const axb_extract_plan *p, axb_extract_lane *ln, const axb_pair_ref *pair, double *raw,
                              double *out, axb_error *err);

/* A job's rows: sources, receivers and the row tables, the caller's or built by the engine from
 * the job's lists (extract_rows.c). */
typedef struct axb_job_rows {
    const axb_source *sources;
    int64_t nsources;
    const axb_receiver *receivers;
    int64_t nreceivers;
    const int64_t *row_source, *row_receiver;
    int64_t nrows;
    axb_source *own_sources; /* what the engine made (fault table entries), or NULL */
    int64_t *own_row_source, *own_row_receiver;
} axb_job_rows;

/* Rows of @p job (every layout of axb_row_layout); fault table entries use @p planet_radius (m). */
axb_status axb_job_rows_build(const axb_extract_job *job, double planet_radius, axb_job_rows *t, axb_error *err);
void axb_job_rows_free(axb_job_rows *t);

/* An extraction job while it runs: extract_job.c opens what it needs in phases, the row engines
 * (extract_partition.c, extract_faults.c) compute and write the rows. */
typedef struct axb_job_ctx {
    MPI_Comm comm;
    int rank, size;
    const axb_extract_job *job;
    axb_job_rows rows;
    axb_db *db;
    axb_extract_plan *plan;
    axb_output *out;
    uint8_t *done;           /* [nrows] rows already on disk (resume), or NULL */
    axb_filter_plan *filter; /* NULL: no filter */
    axb_source_list subs;    /* finite faults: the subfaults, slip rates at the database's dt */
    axb_progress prog;       /* rank 0 prints, the others are silent */
    int64_t rows_done;       /* computed in this run, summed over ranks */
    double mb_read;          /* element data read in this run, summed over ranks */
    axb_extract_times times; /* this rank's main thread, per stage (axb_job_lap) */
} axb_job_ctx;

/* Adds the seconds since *@p since to the stage @p acc and moves *@p since to now. */
static inline void axb_job_lap(double *acc, double *since)
{
    const double now = axb_wall_seconds();
    *acc += now - *since;
    *since = now;
}

/* Counts a step's rows and MB (already summed over ranks) and reports progress. */
void axb_job_progress(axb_job_ctx *c, int64_t rows, double mb, bool last);

/* The element-partitioned extraction of a job's rows (pairs and cross products). Collective. */
axb_status axb_extract_partitioned(axb_job_ctx *c, axb_error *err);

/* Finite faults: the subfaults' slip rates resampled to the database's dt (collective), then the
 * rows split in balanced blocks over the ranks, each summing all its fault's subfaults. */
axb_status axb_extract_subfaults_prepare(axb_job_ctx *c, axb_error *err);
axb_status axb_extract_faults(axb_job_ctx *c, axb_error *err);

/* Filters every trace of n rows [n][ncomp][npts] in place (filter may be NULL: nothing to do). */
axb_status axb_extract_filter_rows(axb_filter_plan *filter, int64_t n, int ncomp, int64_t npts, double *data,
                                   axb_error *err);

#endif
