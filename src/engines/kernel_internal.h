/* Shared by the kernel engine's files: the two databases as field evaluators (kernel_field.c),
 * the plan of a job (kernel_setup.c: checks, mesh, measurements and their weight spectra), the
 * Monte Carlo integration of cells (kernel_cells.c) and the run (kernel_run.c). */
#ifndef AXB_ENGINES_KERNEL_INTERNAL_H
#define AXB_ENGINES_KERNEL_INTERNAL_H

#include <complex.h>
#include <fftw3.h>
#include <mpi.h>

#include "axibulk/db.h"
#include "axibulk/kernel.h"
#include "core/partial.h"
#include "engines/elem_cache.h"
#include "numerics/kdtree.h"
#include "numerics/kernel_math.h"

/* Where a point falls in a database's mesh, in the frame whose pole is the database's source. */
typedef struct axb_kloc {
    int64_t elem;
    double xi, eta;
    double s, z, phi;
} axb_kloc;

/* A database as the kernel engine uses it: located points, and per element the strain of every
 * run at the collocation points (and the displacement when density is asked for), derived once
 * and kept in a bounded cache. */
typedef struct axb_kdb {
    axb_db *db;
    const axb_db_info *info;
    const axb_mesh *mesh;
    axb_kdtree *tree;
    bool forward;
    bool want_displ;
    int np1;
    int64_t nt;
    int nruns; /* runs present, in axb_sim order */
    axb_sim runs[4];
    int64_t fl;   /* np1² · nt */
    int64_t unit; /* floats per cached element: 6·nruns strain + (nvars displacement) */
    axb_elem_cache cache;
    float *blocks;             /* read buffer [cap][block floats] */
    int64_t blocks_cap;        /* elements it holds */
    double *u, *strain, *work; /* one run's displacement [3][fl], its strain [6][fl], scratch [6][fl] */
    float *derived;            /* one element's cached fields [unit] */
    int64_t *want;             /* [cap] elements of the current request */
    int64_t read_calls, elements_read;
    double t_read, t_derive; /* seconds in reads and in deriving strain from them */
} axb_kdb;

/* Opens @p path for the kernel engine (collective): displ_only databases of the @p forward kind.
 * @p cache_bytes bounds the cache; at least @p min_elements elements must fit. */
axb_status axb_kdb_open(MPI_Comm comm, const char *path, bool forward, bool want_displ, int64_t cache_bytes,
                        int threads, int64_t min_elements, axb_kdb *k, axb_error *err);
void axb_kdb_close(axb_kdb *k);

/* Locates Earth-Cartesian point @p x (m) in the frame whose pole is (lon, colat); AXB_ERR_RANGE
 * with the point's radius and the database's radii if the mesh does not contain it. */
axb_status axb_kdb_locate(const axb_kdb *k, double pole_lon, double pole_colat, const double x[3], axb_kloc *loc,
                          axb_error *err);

/* Makes sure the derived fields of the @p n elements are cached (n at most the cache capacity):
 * the missing ones are read in one call and derived. */
axb_status axb_kdb_prepare(axb_kdb *k, int64_t n, const int64_t *elems, axb_error *err);

/* The rotation Q (Q[a][i] = local_a · db_i) from the database's cylindrical basis (ŝ, φ̂, ẑ) at
 * azimuth @p phi of a frame with pole basis @p Rb (axb_geo_local_basis of the pole) to the local
 * basis (θ̂, φ̂, r̂) at Earth-Cartesian point @p x. */
void axb_k_local_rotation(const double Rb[3][3], double phi, const double x[3], double Q[3][3]);

/* Forward field at a located point (its element prepared): strain E[6][nt] (Voigt, local frame)
 * and, if U is not NULL, displacement U[3][nt], of the moment tensor @p m (m_rr, m_tt, m_pp, m_rt,
 * m_rp, m_tp, N·m) at the pole. */
void axb_kdb_forward_field(axb_kdb *k, const axb_kloc *loc, const double m[6], const double Q[3][3], double *E,
                           double *U);

/* Backward field: a unit force @p n (components along x̂ = θ̂, ŷ = φ̂, ẑ = r̂ at the pole, i.e. the
 * receiver) at the pole. */
void axb_kdb_backward_field(axb_kdb *k, const axb_kloc *loc, const double n[3], const double Q[3][3], double *E,
                            double *U);

/* One (receiver, component) pair: the backward field it needs. */
typedef struct axb_kchannel {
    int64_t receiver;
    char component;
    double n[3]; /* force direction in the receiver's frame (x̂ south, ŷ east, ẑ up) */
} axb_kchannel;

/* One kernel definition, ready to evaluate. */
typedef struct axb_kmeas {
    int channel;
    unsigned base;       /* base kernels it needs (AXB_BK_* bits) */
    double complex *G;   /* [nf] weight spectrum: filter, STF, window and seismogram */
    double *seis, *vel;  /* [npts] filtered reference seismogram and its derivative, t = 0 at origin */
    int first_col, ncol; /* its output columns */
} axb_kmeas;

typedef struct axb_kplan {
    MPI_Comm comm;
    int rank, size;
    const axb_kernel_job *job;
    axb_kdb fwd, bwd;
    axb_invmesh mesh;
    double vmesh; /* total volume */
    double src_xyz[3], src_lon, src_colat, src_depth;
    double (*rec_xyz)[3]; /* [nreceivers] */
    int nchan;
    axb_kchannel *chan;
    axb_kmeas *meas; /* [nkernels] */
    int ncol;
    axb_kernel_column *col;
    unsigned base_fwd;               /* union of base kernels (whether displacement is needed) */
    int64_t nt, nfft, nf, npts, ref; /* samples, FFT length, frequencies, output samples, cut */
    double dt, t_shift;
    double *omega2;       /* [nf] (2πf)² */
    fftw_plan r2c;        /* nfft real -> nf complex, fftw_malloc'd buffers */
    int points_per_batch; /* points of one step of a batch of cells */
    int cells_per_batch;
    double vp_max;        /* m/s, the forward mesh's fastest P speed (travel-time skip rule) */
    double *chan_t_end;   /* [nchan] s after the origin: no kernel of the channel can be non-zero at
                             a point whose straight-line source-point-receiver time at vp_max is
                             later (latest window end plus the filters' and source's spread) */
    uint64_t fingerprint; /* of everything that determines the output (a resume must match it) */
} axb_kplan;

axb_status axb_kplan_create(MPI_Comm comm, const axb_kernel_job *job, const axb_kernel_run_opts *opts, axb_kplan *p,
                            axb_error *err);
void axb_kplan_free(axb_kplan *p);

/* Point budget of cells that hold the source or a receiver, relative to max_points. */
#define AXB_KERNEL_ENDPOINT_FACTOR 32

/* Per-rank timers and counters (seconds, counts). */
typedef struct axb_kstats {
    double t_locate, t_field, t_fft, t_integrate, t_checkpoint, t_wait;
    int64_t cells, points, channel_points, channel_cells_skipped;
} axb_kstats;

/* One cell's result as computed, stored and gathered: [points, value[nbasis][ncol],
 * error[nbasis][ncol]] doubles. */
static inline int64_t axb_kslot_size(const axb_kplan *p)
{
    return 1 + 2 * (int64_t)(p->job->per_vertex ? 4 : 1) * p->ncol;
}

/* The scratch of a batch of cells (kernel_cells.c), at most this many cells. */
#define AXB_KBATCH_CELLS_MAX 64
typedef struct axb_kbatch axb_kbatch;
axb_status axb_kbatch_create(const axb_kplan *p, axb_kbatch **b, axb_error *err);
void axb_kbatch_free(axb_kbatch *b);

/* Integrates cells[0..n) (n at most p->cells_per_batch) to convergence and writes their slots to
 * out[i · slot size]. A cell's result depends on the cell alone. */
axb_status axb_kbatch_run(axb_kplan *p, axb_kbatch *b, int n, const int64_t *cells, double *out, axb_kstats *stats,
                          axb_error *err);

/* Whether cell c holds the source or a receiver (such cells get more points: they go first). */
bool axb_kcell_has_endpoint(const axb_kplan *p, int64_t c);

/* The checkpoint of a run (kernel_checkpoint.c; rank 0 only). */
typedef struct axb_kstore {
    axb_partial names;
    char cells[AXB_PARTIAL_PATH_MAX + 32];
    char identity[96];
    int fd;
    int64_t ncell, slot;
} axb_kstore;

/* Starts (NEW, FORCE) or resumes a checkpoint for the output @p output. Resume: marks done[c] for
 * the recorded cells, counts them in *ndone and copies their slots into slots[c · slot]. */
axb_status axb_kstore_begin(axb_kstore *s, const char *output, axb_partial_mode mode, uint64_t fingerprint,
                            int64_t ncell, int64_t slot, uint8_t *done, double *slots, int64_t *ndone, axb_error *err);
/* Stores the slots of @p n finished cells, syncs them, then records the cells. */
axb_status axb_kstore_add(axb_kstore *s, int64_t n, const int64_t *cells, const double *slots, axb_error *err);
/* Writes the output and its XDMF file, publishes both, removes the checkpoint. */
axb_status axb_kstore_publish(axb_kstore *s, const char *xdmf, const axb_kernel_job *job, const axb_kernel_result *res,
                              axb_error *err);
void axb_kstore_close(axb_kstore *s);

/* Shares the cells among the ranks (spatial order, endpoint cells first, batches dealt round
 * robin), integrates them in rounds that end in a checkpoint, and collects every cell's slot on
 * rank 0 in slots[c · slot] (cells with done[c] set are not computed again). @p store: rank 0's
 * checkpoint, or NULL for none. Collective. */
axb_status axb_kernel_work(axb_kplan *p, const uint8_t *done, axb_kstore *store, double *slots, double round_seconds,
                           FILE *progress, axb_kstats *stats, axb_error *err);

#endif
