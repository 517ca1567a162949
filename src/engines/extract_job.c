/* An extraction job across MPI ranks, in phases: open the database and plan, form the rows, open
 * the output (new or resumed), plan the filter, compute and write the rows (element-partitioned
 * for pairs and cross products, by rows for finite faults), close and publish, report. Every phase
 * ends in an agreement, so a failure on one rank ends the job on all without a hang. */
#include <errno.h>
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axibulk/extract_job.h"
#include "axibulk/timefmt.h"
#include "core/agree.h"
#include "core/hash.h"
#include "core/mpi_check.h"
#include "engines/extract_internal.h"

void axb_job_progress(axb_job_ctx *c, int64_t rows, double mb, bool last)
{
    c->rows_done += rows;
    c->mb_read += mb;
    axb_progress_update(&c->prog, c->rows_done, c->mb_read, -1, last);
}

axb_status axb_extract_filter_rows(axb_filter_plan *filter, int64_t n, int ncomp, int64_t npts, double *data,
                                   axb_error *err)
{
    for (int64_t k = 0; filter && k < n * ncomp; k++)
        AXB_TRY_CTX(err, axb_filter_apply(filter, data + k * npts, err), "filter");
    return AXB_OK;
}

/* Filter plan under FFTW wisdom (see axb_extract_job.fftw_wisdom). FFTW keeps wisdom in the
 * library, per process: rank 0 imports the file and plans (measuring what the file lacks), then
 * its whole wisdom goes to the other ranks as a string before they plan, so their MEASURE plans
 * are wisdom hits and pick rank 0's algorithms instead of timing their own. */
static axb_status filter_plan_wise(MPI_Comm comm, const axb_extract_job *job, int64_t npts, double dt,
                                   axb_filter_plan **fp, axb_error *err)
{
    int rank;
    AXB_MPI_TRY(err, MPI_Comm_rank(comm, &rank), "rank");
    axb_filter_spec spec = *job->filter;
    spec.fft_measure = true;
    axb_status st = AXB_OK;
    if (rank == 0) {
        if (access(job->fftw_wisdom, F_OK) == 0 && !fftw_import_wisdom_from_filename(job->fftw_wisdom))
            st = axb_error_set(err, AXB_ERR_FORMAT, "%s: not an FFTW wisdom file (remove it to start afresh)",
                               job->fftw_wisdom);
        if (!st) st = axb_filter_plan_create(&spec, npts, dt, fp, err);
    }
    AXB_TRY(axb_agree(comm, st, err));
    char *w = rank == 0 ? fftw_export_wisdom_to_string() : NULL;
    long long len = w ? (long long)strlen(w) + 1 : 0;
    AXB_MPI_CHECK(st, err, MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, comm), "broadcast of FFTW wisdom");
    if (st == AXB_OK && rank != 0 && len > 0 && !(w = malloc((size_t)len)))
        st = axb_error_set(err, AXB_ERR_NOMEM, "FFTW wisdom of %lld bytes", len);
    st = axb_agree(comm, st, err);
    if (st == AXB_OK && len > 0)
        AXB_MPI_CHECK(st, err, MPI_Bcast(w, (int)len, MPI_CHAR, 0, comm), "broadcast of FFTW wisdom");
    if (rank != 0) {
        if (st == AXB_OK && len > 0 && !fftw_import_wisdom_from_string(w))
            st = axb_error_set(err, AXB_ERR_INTERNAL, "FFTW wisdom from rank 0 not accepted");
        if (st == AXB_OK) st = axb_filter_plan_create(&spec, npts, dt, fp, err);
        free(w);
    } else {
        fftw_free(w);
    }
    return axb_agree(comm, st, err);
}

/* Rank 0 saves the process's wisdom next to the file and renames it over. */
static axb_status save_wisdom(MPI_Comm comm, const char *path, axb_error *err)
{
    int rank;
    AXB_MPI_TRY(err, MPI_Comm_rank(comm, &rank), "rank");
    axb_status st = AXB_OK;
    if (rank == 0) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.partial", path);
        if (!fftw_export_wisdom_to_filename(tmp) || rename(tmp, path) != 0) {
            st = axb_error_set(err, AXB_ERR_IO, "%s: cannot write FFTW wisdom: %s", path, strerror(errno));
            unlink(tmp);
        }
    }
    return axb_agree(comm, st, err);
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

/* Database, plan, rows and (finite faults) subfaults; the progress clock starts here. */
static axb_status job_open(MPI_Comm comm, const axb_extract_job *job, FILE *progress, axb_job_ctx *c, axb_error *err)
{
    memset(c, 0, sizeof *c);
    c->comm = comm;
    c->job = job;
    axb_progress_start(&c->prog, NULL, "extract", "rows", 0);
    AXB_MPI_TRY(err, MPI_Comm_rank(comm, &c->rank), "rank");
    AXB_MPI_TRY(err, MPI_Comm_size(comm, &c->size), "communicator size");
    AXB_TRY(axb_db_open(comm, job->db_path, &c->db, err));
    axb_db_set_threads(c->db, job->threads);
    /* with a core to spare, the next batch is read ahead (extract_partition.c): room for its
     * chunks and those of the batch being computed, and at least 128 MB, since chunks span
     * several elements and small batches share them with their neighbours (with 2 x 4 MB, a
     * quarter of the chunks was decoded twice). Else the default small cache, whose slots stay
     * in the processor's caches. */
    if (axb_db_get_threads(c->db) > 1) {
        const int64_t mb = 2 * (job->opts.batch_mb > 0 ? job->opts.batch_mb : AXB_EXTRACT_BATCH_MB_DEFAULT);
        axb_db_set_bulk_cache(c->db, (mb > 128 ? mb : 128) << 20);
    }
    AXB_TRY(axb_agree(comm, axb_extract_plan_create(c->db, &job->opts, &c->plan, err), err));
    AXB_TRY(axb_agree(comm, axb_job_rows_build(job, axb_db_get_info(c->db)->planet_radius, &c->rows, err), err));
    if (job->subfaults) AXB_TRY(axb_extract_subfaults_prepare(c, err));
    axb_progress_start(&c->prog, job->progress && c->rank == 0 ? progress : NULL, "extract", "rows", c->rows.nrows);
    c->prog.rate_unit = "seismograms";
    return AXB_OK;
}

/* What determines the values beyond the output's shape and tables, as the words a resume must
 * match (each named when it differs): the options, the database (its sampling, extent, source
 * time function, shear modulus and size; not its path, so a moved database resumes), the filter and the
 * sources' slip rates (finite faults, --reconvolve-stf). */
static void job_words(const axb_job_ctx *c, char *buf, size_t size)
{
    const axb_extract_job *job = c->job;
    const axb_extract_opts *o = &job->opts;
    uint64_t ho = axb_hash_str(AXB_HASH_INIT, axb_extract_components(c->plan));
    const int64_t oi[] = {o->quantity, o->kernelwidth, o->remove_source_shift, o->reconvolve_stf};
    ho = axb_hash_bytes(ho, oi, sizeof oi);
    ho = axb_hash_doubles(ho, &o->dt, 1);

    const axb_db_info *in = axb_db_get_info(c->db);
    const int64_t di[] = {in->kind, in->dump, in->npol, in->nelem, in->npoints, in->ndumps, in->total_bytes};
    const double dd[] = {in->dt,         in->period,     in->src_shift,   in->amplitude, in->planet_radius,
                         in->min_radius, in->max_radius, in->source_depth};
    uint64_t hd = axb_hash_bytes(AXB_HASH_INIT, di, sizeof di);
    hd = axb_hash_doubles(hd, dd, sizeof dd / sizeof *dd);
    hd = axb_hash_doubles(hd, axb_db_get_stf(c->db), (size_t)in->ndumps);
    const axb_mesh *mesh = axb_db_get_mesh(c->db); /* the model, as far as the metadata tell it */
    if (mesh->mu) hd = axb_hash_bytes(hd, mesh->mu, (size_t)mesh->npoints * sizeof *mesh->mu);

    char filter[24] = "none";
    if (job->filter) {
        const axb_filter_spec *f = job->filter;
        const int64_t fi[] = {f->kind, f->order, f->zerophase, f->bilinear};
        const double fd[] = {f->f1, f->f2, f->period, f->width};
        uint64_t hf = axb_hash_bytes(AXB_HASH_INIT, fi, sizeof fi);
        snprintf(filter, sizeof filter, "%016llx", (unsigned long long)axb_hash_doubles(hf, fd, 4));
    }

    uint64_t hs = AXB_HASH_INIT;
    const axb_source *lists[2] = {job->subfaults, c->rows.sources};
    const int64_t counts[2] = {job->subfaults ? job->nsubfaults : 0, c->rows.nsources};
    for (int l = 0; l < 2; l++)
        for (int64_t i = 0; i < counts[l]; i++) {
            const axb_source *src = &lists[l][i];
            const double sd[] = {src->lat, src->lon, src->depth, src->time_shift, src->dt};
            hs = axb_hash_doubles(hs, sd, 5);
            hs = axb_hash_doubles(hs, src->m, 6);
            if (src->sliprate) hs = axb_hash_doubles(hs, src->sliprate, (size_t)src->nsliprate);
        }
    snprintf(buf, size, "options=%016llx database=%016llx filter=%s sources=%016llx", (unsigned long long)ho,
             (unsigned long long)hd, filter, (unsigned long long)hs);
}

/* Every row checked against the database before anything is created (each rank a share, then
 * the agreement), so a bad row never leaves an empty PATH.partial in the way of the corrected
 * rerun. The message names the row's source and receiver as the inputs name them. */
static axb_status check_rows(const axb_job_ctx *c, axb_error *err)
{
    const axb_job_rows *t = &c->rows;
    const int64_t lo = t->nrows * c->rank / c->size, hi = t->nrows * (c->rank + 1) / c->size;
    axb_status st = AXB_OK;
    for (int64_t r = lo; r < hi && st == AXB_OK; r++) {
        const axb_source *src = &t->sources[t->row_source[r]];
        const axb_receiver *rec = &t->receivers[t->row_receiver[r]];
        const axb_pair_ref ref = {src, rec};
        st = axb_extract_check_pair(c->plan, &ref, err);
        if (st != AXB_OK)
            axb_error_prefix(err, "row %lld (source %lld%s%.64s%s, receiver %lld%s%s%s%s%s)", (long long)r,
                             (long long)t->row_source[r], src->name[0] ? " '" : "", src->name, src->name[0] ? "'" : "",
                             (long long)t->row_receiver[r], rec->station[0] ? " '" : "", rec->network,
                             rec->network[0] ? "." : "", rec->station, rec->station[0] ? "'" : "");
    }
    return axb_agree(c->comm, st, err);
}

/* PATH.partial created, or reopened with the rows already on disk in c->done. */
static axb_status open_output(axb_job_ctx *c, axb_error *err)
{
    const axb_extract_job *job = c->job;
    const axb_job_rows *t = &c->rows;
    char words[256];
    job_words(c, words, sizeof words);
    const axb_output_desc d = {.path = job->output,
                               .format = job->format,
                               .precision = job->precision,
                               .nrows = t->nrows,
                               .components = axb_extract_components(c->plan),
                               .nsamples = axb_extract_npts(c->plan),
                               .dt = axb_extract_dt(c->plan),
                               .start_offset = axb_extract_start_offset(c->plan),
                               .kind = axb_quantity_name(job->opts.quantity),
                               .database = axb_db_get_info(c->db)->path,
                               .database_kind = axb_db_kind_name(axb_db_get_info(c->db)->kind),
                               .database_model = axb_db_get_info(c->db)->background_model,
                               .database_period = axb_db_get_info(c->db)->period,
                               .database_file_version = axb_db_get_info(c->db)->file_version,
                               .sources = t->sources,
                               .nsources = t->nsources,
                               .receivers = t->receivers,
                               .nreceivers = t->nreceivers,
                               .row_source = t->row_source,
                               .row_receiver = t->row_receiver,
                               .overwrite = job->overwrite,
                               .command = job->command,
                               .job = words,
                               .checkpoint_seconds = job->checkpoint_seconds};
    if (!job->resume) return axb_output_create(c->comm, &d, &c->out, err);
    c->done = malloc((size_t)t->nrows);
    AXB_TRY(axb_agree(c->comm, c->done ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "row flags"), err));
    return axb_output_resume(c->comm, &d, c->done, &c->out, err);
}

static axb_status make_filter(axb_job_ctx *c, axb_error *err)
{
    const axb_extract_job *job = c->job;
    if (!job->filter) return AXB_OK;
    const int64_t npts = axb_extract_npts(c->plan);
    const double dt = axb_extract_dt(c->plan);
    if (job->fftw_wisdom) return filter_plan_wise(c->comm, job, npts, dt, &c->filter, err);
    return axb_agree(c->comm, axb_filter_plan_create(job->filter, npts, dt, &c->filter, err), err);
}

/* Closes the output: published when @p st is AXB_OK, else left as PATH.partial. */
static axb_status close_output(axb_job_ctx *c, axb_status st, axb_error *err)
{
    if (!c->out) return st;
    const axb_status cst = axb_output_close(&c->out, st == AXB_OK, st == AXB_OK ? err : NULL);
    return st != AXB_OK ? st : cst;
}

static axb_status sum_over_ranks(MPI_Comm comm, int64_t mine, int64_t *all, axb_error *err)
{
    AXB_MPI_AGREE(comm, err, MPI_Allreduce(&mine, all, 1, MPI_INT64_T, MPI_SUM, comm), "job statistics");
    return AXB_OK;
}

static axb_status job_result(const axb_job_ctx *c, double t0, axb_extract_job_result *res, axb_error *err)
{
    axb_extract_stats es;
    axb_extract_get_stats(c->plan, &es);
    axb_status st = axb_db_sum_io_stats(c->db, &res->io, err);
    if (st == AXB_OK) st = sum_over_ranks(c->comm, es.elements_read, &res->elements_read, err);
    if (st == AXB_OK) st = sum_over_ranks(c->comm, es.cache_hits, &res->cache_hits, err);
    AXB_TRY(axb_agree(c->comm, st, err));
    res->read_calls = res->io.read_calls;
    res->bytes_read = res->io.bytes_read;
    res->threads = axb_db_get_threads(c->db);
    res->rows = c->rows.nrows;
    res->rows_resumed = 0;
    for (int64_t r = 0; c->done && r < c->rows.nrows; r++) res->rows_resumed += c->done[r] != 0;
    res->ncomp = axb_extract_ncomp(c->plan);
    snprintf(res->components, sizeof res->components, "%s", axb_extract_components(c->plan));
    res->npts = axb_extract_npts(c->plan);
    res->dt = axb_extract_dt(c->plan);
    res->start_offset = axb_extract_start_offset(c->plan);
    res->seconds = axb_wall_seconds() - t0;
    return AXB_OK;
}

static void job_close(axb_job_ctx *c)
{
    axb_filter_plan_destroy(&c->filter);
    free(c->done);
    axb_source_list_free(&c->subs);
    axb_job_rows_free(&c->rows);
    axb_extract_plan_destroy(&c->plan);
    axb_db_close(&c->db);
}

axb_status axb_extract_job_run(MPI_Comm comm, const axb_extract_job *job, FILE *progress, axb_extract_job_result *res,
                               axb_error *err)
{
    memset(res, 0, sizeof *res);
    const double t0 = axb_wall_seconds();
    double lap = t0;
    axb_job_ctx c; /* job_open clears it first, its times included */
    axb_status st = job_open(comm, job, progress, &c, err);
    /* everything that can be refused is checked before the output exists */
    if (st == AXB_OK) st = check_rows(&c, err);
    if (st == AXB_OK) st = make_filter(&c, err);
    if (st == AXB_OK) st = open_output(&c, err);
    axb_job_lap(&c.times.open, &lap);
    if (st == AXB_OK) st = job->subfaults ? axb_extract_faults(&c, err) : axb_extract_partitioned(&c, err);
    /* everything that can fail comes before the output is published: a failed run never leaves
     * a complete-looking file */
    if (st == AXB_OK && c.filter && job->fftw_wisdom) st = save_wisdom(comm, job->fftw_wisdom, err);
    if (st == AXB_OK) st = job_result(&c, t0, res, err);
    lap = axb_wall_seconds();
    st = close_output(&c, st, err);
    axb_job_lap(&c.times.close, &lap);
    res->seconds = lap - t0;
    res->times = c.times;
    axb_extract_times *t = &res->times;
    t->other = res->seconds - (t->open + t->locate + t->read + t->compute + t->write + t->close);
    if (t->other < 0 && t->other > -1e-9) t->other = 0; /* rounding; beyond it, a stage counted twice shows */
    job_close(&c);
    return st;
}
