/* Finite faults in a job: every row sums all subfaults of its fault (each reconvolved with its own
 * slip rate and delayed), so rows, not elements, are split over the ranks, in balanced blocks;
 * each rank computes its block in chunks of bounded memory, written collectively. The plan's
 * element cache serves the elements that the subfaults of neighbouring rows share. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/agree.h"
#include "core/mpi_check.h"
#include "engines/extract_internal.h"

/* Output rows per chunk: at most this many, and at most 64 MB of them. */
#define MAX_CHUNK_ROWS 4096
#define MAX_CHUNK_BYTES ((int64_t)64 << 20)

/* Subfault k's copy with its slip rate resampled to @p dt_db. The rupture time becomes a phase
 * shift over the reconvolution's nfft samples, which is circular: a time of nfft·dt or more would
 * come back as its remainder (TINIT nfft·dt as TINIT 0), and a negative one from the end. */
static axb_status resample_one(const axb_source *o, double dt_db, int64_t nfft, axb_source *s, axb_error *err)
{
    AXB_TRY(axb_extract_check_rupture_time(o->name, o->time_shift, nfft, dt_db, err));
    *s = *o;
    s->sliprate = malloc((size_t)(o->nsliprate > 0 ? o->nsliprate : 1) * sizeof(double));
    if (!s->sliprate) return axb_error_set(err, AXB_ERR_NOMEM, "slip rate of %lld samples", (long long)o->nsliprate);
    if (o->nsliprate > 0) memcpy(s->sliprate, o->sliprate, (size_t)o->nsliprate * sizeof(double));
    const double duration = (double)(o->nsliprate - 1) * o->dt;
    const int64_t nsamp = (int64_t)ceil(duration / dt_db) + 1;
    return axb_source_resample_sliprate(s, dt_db, nsamp > 1 ? nsamp : 1, err);
}

/* Instaseis' resample_sliprate before get_seismograms_finite_source: reconvolution needs every
 * slip rate at the database's dt. */
axb_status axb_extract_subfaults_prepare(axb_job_ctx *c, axb_error *err)
{
    const axb_extract_job *job = c->job;
    const double dt_db = axb_db_get_info(c->db)->dt;
    const axb_reconv_plan *rc = c->plan->lanes[0].reconv;
    const int64_t nfft = rc ? axb_reconv_plan_nfft(rc) : axb_db_get_info(c->db)->ndumps;
    axb_status st = AXB_OK;
    c->subs.src = calloc((size_t)job->nsubfaults, sizeof *c->subs.src);
    if (!c->subs.src) st = axb_error_set(err, AXB_ERR_NOMEM, "%lld subfaults", (long long)job->nsubfaults);
    for (int64_t k = 0; k < job->nsubfaults && st == AXB_OK; k++) {
        c->subs.n = k + 1;
        st = resample_one(&job->subfaults[k], dt_db, nfft, &c->subs.src[k], err);
        if (st != AXB_OK) axb_error_prefix(err, "subfault %lld", (long long)k);
    }
    return axb_agree(c->comm, st, err);
}

/* Rows [a, b) of this rank not on disk yet, computed into data; their indices into rows. */
static axb_status compute_chunk(axb_job_ctx *c, int64_t a, int64_t b, int64_t row_doubles, int64_t *rows, double *data,
                                int64_t *n, axb_error *err)
{
    const axb_extract_job *job = c->job;
    const axb_job_rows *t = &c->rows;
    *n = 0;
    for (int64_t r = a; r < b; r++) {
        if (c->done && c->done[r]) continue;
        const int64_t f = t->row_source[r];
        const int64_t s0 = job->fault_first ? job->fault_first[f] : 0;
        const int64_t s1 = job->fault_first ? job->fault_first[f + 1] : c->subs.n;
        rows[*n] = r;
        AXB_TRY_CTX(err,
                    axb_extract_finite(c->plan, s1 - s0, c->subs.src + s0, &t->receivers[t->row_receiver[r]],
                                       data + *n * row_doubles, err),
                    "row %lld", (long long)r);
        (*n)++;
    }
    return axb_extract_filter_rows(c->filter, *n, axb_extract_ncomp(c->plan), axb_extract_npts(c->plan), data, err);
}

axb_status axb_extract_faults(axb_job_ctx *c, axb_error *err)
{
    const int64_t nrows = c->rows.nrows;
    const int64_t lo = nrows * c->rank / c->size, hi = nrows * (c->rank + 1) / c->size;
    const int64_t row_doubles = (int64_t)axb_extract_ncomp(c->plan) * axb_extract_npts(c->plan);
    int64_t chunk = MAX_CHUNK_BYTES / (row_doubles * (int64_t)sizeof(double));
    if (chunk < 1) chunk = 1;
    if (chunk > MAX_CHUNK_ROWS) chunk = MAX_CHUNK_ROWS;
    int64_t nchunks = (hi - lo + chunk - 1) / chunk, maxchunks = 0;
    double *data = malloc((size_t)chunk * (size_t)row_doubles * sizeof *data);
    int64_t *rows = malloc((size_t)chunk * sizeof *rows);
    axb_status st =
        data && rows ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "buffers for %lld rows", (long long)chunk);
    AXB_MPI_CHECK(st, err, MPI_Allreduce(&nchunks, &maxchunks, 1, MPI_INT64_T, MPI_MAX, c->comm), "number of chunks");
    st = axb_agree(c->comm, st, err);
    for (int64_t k = 0; k < maxchunks && st == AXB_OK; k++) {
        const int64_t a = lo + k * chunk, b = a + chunk < hi ? a + chunk : hi;
        int64_t n = 0;
        double lap = axb_wall_seconds();
        const axb_status ls = compute_chunk(c, a, b, row_doubles, rows, data, &n, err); /* reads included */
        axb_job_lap(&c->times.compute, &lap);
        /* progress counts the rows of the block passed, on disk before or not */
        int64_t passed = b > a ? b - a : 0;
        st = axb_agree_sum(c->comm, ls, &passed, err);
        if (st == AXB_OK) st = axb_output_write(c->out, n, rows, data, err);
        axb_job_lap(&c->times.write, &lap);
        if (st == AXB_OK) axb_job_progress(c, passed, 0, k + 1 == maxchunks);
    }
    free(data);
    free(rows);
    return st;
}
