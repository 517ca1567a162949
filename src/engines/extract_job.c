/* An extraction job across MPI ranks. Rows are split into contiguous blocks (balanced counts);
 * each rank computes its rows in chunks of bounded memory; before every collective write the
 * ranks agree on success, so a failure on one rank ends the job on all without a hang. */
#include <errno.h>
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "axibulk/timefmt.h"
#include "axibulk/extract_job.h"
#include "engines/extract_internal.h"

void axb_extract_progress_step(axb_extract_progress *pr, int64_t done_total, bool last)
{
    pr->done = done_total;
    if (!pr->f) return;
    const double t = axb_wall_seconds();
    if (!(t - pr->last >= 5.0 || (pr->reported && last))) return;
    const double rate = (double)pr->done / (t - pr->t0);
    char eta[32];
    axb_format_duration((double)(pr->total - pr->done) / rate, eta, sizeof eta);
    fprintf(pr->f, "extract: %lld/%lld rows (%.1f %%), %.1f seismograms/s, read %.1f MB/s, ETA %s\n",
            (long long)pr->done, (long long)pr->total,
            100.0 * (double)pr->done / (double)(pr->total ? pr->total : 1), rate,
            pr->bytes / 1e6 / (t - pr->t0), eta);
    fflush(pr->f);
    pr->last = t;
    pr->reported = true;
}

axb_status axb_extract_filter_rows(axb_filter_plan *filter, int64_t n, int ncomp, int64_t npts,
                                   double *data, axb_error *err)
{
    for (int64_t k = 0; filter && k < n * ncomp; k++)
        AXB_TRY_CTX(err, axb_filter_apply(filter, data + k * npts, err), "filter");
    return AXB_OK;
}

/* Status of all ranks: the first failure wins; ranks that did not fail get AXB_ERR_REMOTE. */
axb_status axb_extract_agree(MPI_Comm comm, axb_status st, int64_t *done, axb_error *err)
{
    int64_t in[2] = {st != AXB_OK, done ? *done : 0}, out[2];
    if (MPI_Allreduce(in, out, 2, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
        return axb_error_set(err, AXB_ERR_MPI, "status reduction failed");
    if (done) *done = out[1];
    if (out[0] && st == AXB_OK) return axb_error_set(err, AXB_ERR_REMOTE, "failed on another rank");
    return st;
}

/* Filter plan under FFTW wisdom (see axb_extract_job.fftw_wisdom). FFTW keeps wisdom in the
 * library, per process: rank 0 imports the file and plans (measuring what the file lacks), then
 * its whole wisdom goes to the other ranks as a string before they plan, so their MEASURE plans
 * are wisdom hits and pick rank 0's algorithms instead of timing their own. */
static axb_status filter_plan_wise(MPI_Comm comm, const axb_extract_job *job, int64_t npts, double dt,
                                   axb_filter_plan **fp, axb_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    axb_filter_spec spec = *job->filter;
    spec.fft_measure = true;
    axb_status st = AXB_OK;
    if (rank == 0) {
        if (access(job->fftw_wisdom, F_OK) == 0 && !fftw_import_wisdom_from_filename(job->fftw_wisdom))
            st = axb_error_set(err, AXB_ERR_FORMAT, "%s: not an FFTW wisdom file (remove it to start afresh)",
                               job->fftw_wisdom);
        if (!st) st = axb_filter_plan_create(&spec, npts, dt, fp, err);
    }
    AXB_TRY(axb_extract_agree(comm, st, NULL, err));
    char *w = rank == 0 ? fftw_export_wisdom_to_string() : NULL;
    long long len = w ? (long long)strlen(w) + 1 : 0;
    MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, comm);
    if (rank != 0 && len > 0) w = malloc((size_t)len);
    if (len > 0 && w) MPI_Bcast(w, (int)len, MPI_CHAR, 0, comm);
    if (rank != 0) {
        if (len > 0 && (!w || !fftw_import_wisdom_from_string(w)))
            st = axb_error_set(err, AXB_ERR_INTERNAL, "FFTW wisdom from rank 0 not accepted");
        if (!st) st = axb_filter_plan_create(&spec, npts, dt, fp, err);
        free(w);
    } else {
        fftw_free(w);
    }
    return axb_extract_agree(comm, st, NULL, err);
}

/* Rank 0 saves the process's wisdom next to the file and renames it over. */
static axb_status save_wisdom(MPI_Comm comm, const char *path, axb_error *err)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    axb_status st = AXB_OK;
    if (rank == 0) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.partial", path);
        if (!fftw_export_wisdom_to_filename(tmp) || rename(tmp, path) != 0) {
            st = axb_error_set(err, AXB_ERR_IO, "%s: cannot write FFTW wisdom: %s", path, strerror(errno));
            unlink(tmp);
        }
    }
    return axb_extract_agree(comm, st, NULL, err);
}

axb_status axb_write_mode_parse(const char *s, axb_write_mode *m, axb_error *err)
{
    static const char *const names[] = {"auto", "collective", "independent"};
    for (int i = 0; i < 3; i++)
        if (s && !strcmp(s, names[i])) {
            *m = (axb_write_mode)i;
            return AXB_OK;
        }
    return axb_error_set(err, AXB_ERR_ARG, "unknown write mode '%s' (expected auto, collective or independent)",
                         s ? s : "(null)");
}

axb_status axb_extract_job_run(MPI_Comm comm, const axb_extract_job *job, FILE *progress,
                               axb_extract_job_result *res, axb_error *err)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    memset(res, 0, sizeof *res);
    const double t0 = axb_wall_seconds();
    axb_db *db = NULL;
    AXB_TRY(axb_db_open(comm, job->db_path, &db, err));

    axb_extract_plan *plan = NULL;
    axb_status st = axb_extract_agree(comm, axb_extract_plan_create(db, &job->opts, &plan, err), NULL, err);
    /* Finite faults: every subfault's slip rate resampled to the database's dt, as reconvolution
     * requires (Instaseis' resample_sliprate before get_seismograms_finite_source). */
    axb_source_list subs = {0, NULL};
    if (!st && job->subfaults) {
        const double dt_db = axb_db_get_info(db)->dt;
        axb_status ls = AXB_OK;
        subs.src = calloc((size_t)job->nsubfaults, sizeof *subs.src);
        if (!subs.src) ls = axb_error_set(err, AXB_ERR_NOMEM, "%lld subfaults", (long long)job->nsubfaults);
        for (int64_t k = 0; k < job->nsubfaults && !ls; k++) {
            const axb_source *o = &job->subfaults[k];
            subs.src[k] = *o;
            subs.src[k].sliprate = malloc((size_t)(o->nsliprate > 0 ? o->nsliprate : 1) * sizeof(double));
            subs.n = k + 1;
            if (!subs.src[k].sliprate) {
                ls = axb_error_set(err, AXB_ERR_NOMEM, "subfault %lld", (long long)k);
                break;
            }
            if (o->nsliprate > 0) memcpy(subs.src[k].sliprate, o->sliprate, (size_t)o->nsliprate * sizeof(double));
            const double duration = (double)(o->nsliprate - 1) * o->dt;
            const int64_t nsamp = (int64_t)ceil(duration / dt_db) + 1;
            ls = axb_source_resample_sliprate(&subs.src[k], dt_db, nsamp > 1 ? nsamp : 1, err);
            if (ls) axb_error_prefix(err, "subfault %lld", (long long)k);
        }
        st = axb_extract_agree(comm, ls, NULL, err);
    }
    axb_output *out = NULL;
    uint8_t *done = NULL;       /* rows already on disk (resume) */
    if (!st) {
        const axb_db_info *info = axb_db_get_info(db);
        axb_output_desc d = {0};
        d.path = job->output;
        d.format = job->format;
        d.precision = job->precision;
        d.overwrite = job->overwrite;
        d.nrows = job->nrows;
        d.components = axb_extract_components(plan);
        d.nsamples = axb_extract_npts(plan);
        d.dt = axb_extract_dt(plan);
        d.start_offset = axb_extract_start_offset(plan);
        d.kind = axb_quantity_name(job->opts.quantity);
        d.database = info->path;
        d.sources = job->sources;
        d.nsources = job->nsources;
        d.receivers = job->receivers;
        d.nreceivers = job->nreceivers;
        d.row_source = job->row_source;
        d.row_receiver = job->row_receiver;
        d.command = job->command;
        st = axb_extract_agree(comm, st, NULL, err);
        if (!st && job->resume) {
            done = malloc((size_t)job->nrows);
            st = axb_extract_agree(comm, done ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "row flags"), NULL, err);
            if (!st) st = axb_output_resume(comm, &d, done, &out, err);
        } else if (!st)
            st = axb_output_create(comm, &d, &out, err);
    }
    const int ncomp = st ? 0 : axb_extract_ncomp(plan);
    const int64_t npts = st ? 0 : axb_extract_npts(plan);
    axb_extract_progress prog = {job->progress && rank == 0 ? progress : NULL, t0, t0, false, job->nrows, 0, 0};
    axb_filter_plan *filter = NULL;
    if (!st && job->filter && job->fftw_wisdom)
        st = filter_plan_wise(comm, job, npts, axb_extract_dt(plan), &filter, err);
    else if (!st && job->filter)
        st = axb_extract_agree(comm, axb_filter_plan_create(job->filter, npts, axb_extract_dt(plan), &filter, err), NULL, err);
    if (!job->subfaults) {
        if (!st) st = axb_extract_partitioned(comm, db, plan, job, out, filter, done, &prog, err);
    } else {
        /* finite faults: every row sums all subfaults, so rows are split in balanced blocks */
        const int64_t lo = job->nrows * rank / size, hi = job->nrows * (rank + 1) / size;
        const int64_t row_doubles = ncomp > 0 && npts > 0 ? (int64_t)ncomp * npts : 1;
        int64_t chunk = ((int64_t)64 << 20) / (row_doubles * (int64_t)sizeof(double));
        if (chunk < 1) chunk = 1;
        if (chunk > 4096) chunk = 4096;
        int64_t nchunks = (hi - lo + chunk - 1) / chunk, maxchunks = 0;
        MPI_Allreduce(&nchunks, &maxchunks, 1, MPI_INT64_T, MPI_MAX, comm);
        double *data = NULL;
        int64_t *rows = NULL;
        if (!st) {
            data = malloc((size_t)chunk * (size_t)row_doubles * sizeof *data);
            rows = malloc((size_t)chunk * sizeof *rows);
            if (!data || !rows) st = axb_error_set(err, AXB_ERR_NOMEM, "buffers for %lld rows", (long long)chunk);
            st = axb_extract_agree(comm, st, NULL, err);
        }
        for (int64_t c = 0; c < maxchunks && !st; c++) {
            const int64_t a = lo + c * chunk, b = a + chunk < hi ? a + chunk : hi;
            int64_t n = 0;
            axb_status local = AXB_OK;
            for (int64_t r = a; r < b && !local; r++) {
                if (done && done[r]) continue;
                rows[n] = r;
                const int64_t f = job->row_source[r];
                const int64_t s0 = job->fault_first ? job->fault_first[f] : 0;
                const int64_t s1 = job->fault_first ? job->fault_first[f + 1] : subs.n;
                local = axb_extract_finite(plan, s1 - s0, subs.src + s0, &job->receivers[job->row_receiver[r]],
                                           data + n * row_doubles, err);
                if (local) axb_error_prefix(err, "row %lld", (long long)r);
                n++;
            }
            if (!local) local = axb_extract_filter_rows(filter, n, ncomp, npts, data, err);
            int64_t upto = b > lo ? b - lo : 0;
            st = axb_extract_agree(comm, local, &upto, err);
            if (!st) st = axb_output_write(out, n, rows, data, err);
            if (!st) axb_extract_progress_step(&prog, upto, c + 1 == maxchunks);
        }
        free(data);
        free(rows);
    }
    if (out) {
        axb_status cst = axb_output_close(&out, st == AXB_OK, st ? NULL : err);
        if (!st) st = cst;
    }
    if (!st && filter && job->fftw_wisdom) st = save_wisdom(comm, job->fftw_wisdom, err);
    if (!st) {
        axb_extract_stats es;
        axb_extract_get_stats(plan, &es);
        int64_t er = es.elements_read, ch = es.cache_hits;
        MPI_Allreduce(&er, &res->elements_read, 1, MPI_INT64_T, MPI_SUM, comm);
        MPI_Allreduce(&ch, &res->cache_hits, 1, MPI_INT64_T, MPI_SUM, comm);
        axb_io_stats io;
        axb_db_get_io_stats(db, &io);
        MPI_Allreduce(&io.read_calls, &res->read_calls, 1, MPI_INT64_T, MPI_SUM, comm);
        MPI_Allreduce(&io.bytes_read, &res->bytes_read, 1, MPI_INT64_T, MPI_SUM, comm);
        res->rows = job->nrows;
        res->ncomp = ncomp;
        snprintf(res->components, sizeof res->components, "%s", axb_extract_components(plan));
        res->npts = npts;
        res->dt = axb_extract_dt(plan);
        res->start_offset = axb_extract_start_offset(plan);
        res->seconds = axb_wall_seconds() - t0;
    }
    axb_filter_plan_destroy(&filter);
    free(done);
    axb_source_list_free(&subs);
    axb_extract_plan_destroy(&plan);
    axb_db_close(&db);
    return st;
}
