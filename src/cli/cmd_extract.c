/* `axibulk extract`: options (command line over YAML job file), input files, and a summary; the
 * work itself is axb_extract_job_run. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axibulk/extract_job.h"
#include "axibulk/inputs.h"
#include "axibulk/jobfile.h"
#include "cli/cli_internal.h"
#include "core/agree.h"
#include "cli/cli_paths.h"

typedef struct extract_args {
    const char *db, *pairs, *cmt, *stations, *finite, *finite_list, *wisdom, *components, *kind, *output, *precision,
        *format, *origin_time, *job, *lowpass, *highpass, *bandpass, *loggabor, *write_mode;
    double dt, checkpoint;
    long kernelwidth, batch_mb, cache_mb, filter_order, threads;
    bool no_remove_shift, reconvolve, force, quiet, independent, cold_batches, zerophase, resume;
    axb_filter_spec filter;
} extract_args;

static const char extract_help[] =
    "usage: axibulk extract --db DB (--pairs FILE | --cmt FILE --stations FILE |\n"
    "                        --finite FILE --stations FILE | --finite-list FILE --stations FILE)\n"
    "                        -o OUT.h5 [options]\n"
    "       axibulk extract --job FILE.yaml [options]\n"
    "\n"
    "Computes seismograms from an AxiSEM database with Instaseis' algorithm, for explicit\n"
    "source-receiver pairs, for every source at every station (cross product), or for finite\n"
    "faults (one, or a list: one row per fault and station) at every station, and writes them\n"
    "to one HDF5 file. Run it under MPI to share the\n"
    "rows among ranks. Latitudes in files are geographic (converted to geocentric) except in\n"
    "pairs files, which are geocentric. See docs/cli.md and docs/file-formats.md.\n"
    "\n"
    "options:\n";

#define NOPTS 35

static void set_options(extract_args *a, axb_opt *o)
{
    const axb_opt table[] = {
        {"db", 0, AXB_OPT_STRING, &a->db, "DIR", "the database (folder, or merged_output.nc4)"},
        {"pairs", 0, AXB_OPT_STRING, &a->pairs, "FILE", "source-receiver pairs, one per line"},
        {"cmt", 0, AXB_OPT_STRING, &a->cmt, "FILE", "sources: CMTSOLUTION or QuakeML (with --stations)"},
        {"stations", 0, AXB_OPT_STRING, &a->stations, "FILE", "receivers: STATIONS or StationXML"},
        {"finite", 0, AXB_OPT_STRING, &a->finite, "FILE", "a finite fault: SRF (.srf) or USGS (.param)"},
        {"finite-list", 0, AXB_OPT_STRING, &a->finite_list, "FILE",
         "many finite faults: one SRF/.param path per line (with --stations)"},
        {"components", 0, AXB_OPT_STRING, &a->components, "ZNERT",
         "components in output order (default: the database's)"},
        {"kind", 0, AXB_OPT_STRING, &a->kind, "KIND", "displacement (default), velocity or acceleration"},
        {"dt", 0, AXB_OPT_DOUBLE, &a->dt, "S", "output sample interval (<= the database's; Lanczos resampling)"},
        {"kernelwidth", 0, AXB_OPT_INT, &a->kernelwidth, "N", "Lanczos kernel half-width (default 12)"},
        {"no-remove-source-shift", 0, AXB_OPT_FLAG, &a->no_remove_shift, NULL,
         "keep the samples before the source time function's peak"},
        {"reconvolve-stf", 0, AXB_OPT_FLAG, &a->reconvolve, NULL,
         "reconvolve with the sources' own slip rates (implied by --finite, --finite-list)"},
        {"origin-time", 0, AXB_OPT_STRING, &a->origin_time, "TIME",
         "origin time of pairs-file sources (ISO 8601; default 1970-01-01T00:00:00)"},
        {"output", 'o', AXB_OPT_STRING, &a->output, "FILE", "output HDF5 file"},
        {"format", 0, AXB_OPT_STRING, &a->format, "FMT", "bulk (default) or asdf"},
        {"precision", 0, AXB_OPT_STRING, &a->precision, "P", "float32 (default) or float64"},
        {"force", 0, AXB_OPT_FLAG, &a->force, NULL, "overwrite an existing output file"},
        {"resume", 0, AXB_OPT_FLAG, &a->resume, NULL, "finish OUTPUT.partial of a killed run of the same job"},
        {"checkpoint", 0, AXB_OPT_DOUBLE, &a->checkpoint, "S",
         "seconds between syncs that record finished rows for --resume (default 10; 0: every batch)"},
        {"batch-mb", 0, AXB_OPT_INT, &a->batch_mb, "MB", "element data read per batch and rank (default 4)"},
        {"cache-mb", 0, AXB_OPT_INT, &a->cache_mb, "MB",
         "element blocks kept for repeats across finite faults, per rank (default 256; 0: off)"},
        {"independent-reads", 0, AXB_OPT_FLAG, &a->independent, NULL,
         "independent instead of collective MPI-IO reads (for comparisons)"},
        {"write-mode", 0, AXB_OPT_STRING, &a->write_mode, "M",
         "auto (default: independent on one node, else collective), collective or independent"},
        {"threads", 0, AXB_OPT_INT, &a->threads, "N",
         "threads per rank computing seismograms and decoding original-layout chunks (default: the rank's "
         "cores)"},
        {"cold-batches", 0, AXB_OPT_FLAG, &a->cold_batches, NULL,
         "drop the database's page cache before every batch read (cold-cache benchmarks)"},
        {"lowpass", 0, AXB_OPT_STRING, &a->lowpass, "F", "Butterworth lowpass, corner F Hz (docs/filters.md)"},
        {"highpass", 0, AXB_OPT_STRING, &a->highpass, "F", "Butterworth highpass, corner F Hz"},
        {"bandpass", 0, AXB_OPT_STRING, &a->bandpass, "F1,F2", "Butterworth bandpass between F1 and F2 Hz"},
        {"loggabor", 0, AXB_OPT_STRING, &a->loggabor, "T,W",
         "log-Gabor band-pass: centre period T s, relative width W in (0,1)"},
        {"filter-order", 0, AXB_OPT_INT, &a->filter_order, "N", "Butterworth order (default 4)"},
        {"zerophase", 0, AXB_OPT_FLAG, &a->zerophase, NULL, "zero-phase Butterworth (|H|^2) instead of causal"},
        {"fftw-wisdom", 0, AXB_OPT_STRING, &a->wisdom, "FILE",
         "plan filter FFTs with FFTW_MEASURE, reusing and updating this wisdom file"},
        {"quiet", 'q', AXB_OPT_FLAG, &a->quiet, NULL, "no progress messages"},
        {"job", 0, AXB_OPT_STRING, &a->job, "FILE", "read options from a YAML job file (the command line wins)"},
        {NULL, 0, AXB_OPT_FLAG, NULL, NULL, NULL},
    };
    _Static_assert(sizeof table / sizeof table[0] == NOPTS, "NOPTS must count the option table");
    memcpy(o, table, sizeof table);
}

/* Applies a job file: its keys are option names; "remove-source-shift: false" is accepted too. */
static axb_status apply_job(const axb_job *job, const char *path, const axb_opt *opts, axb_error *err)
{
    for (int i = 0; i < job->n; i++) {
        const axb_job_entry *e = &job->e[i];
        axb_status st;
        if (!strcmp(e->key, "job"))
            st = axb_error_set(err, AXB_ERR_ARG, "a job file cannot name another job file");
        else if (!strcmp(e->key, "remove-source-shift")) {
            bool keep;
            axb_opt one[2] = {{"remove-source-shift", 0, AXB_OPT_FLAG, &keep, NULL, ""},
                              {NULL, 0, AXB_OPT_FLAG, NULL, NULL, NULL}};
            st = axb_opts_apply(one, e->key, e->value, err);
            if (!st) st = axb_opts_apply(opts, "no-remove-source-shift", keep ? "false" : "true", err);
        } else
            st = axb_opts_apply(opts, e->key, e->value, err);
        if (st) return axb_error_prefix(err, "%s:%d", path, e->line);
    }
    return AXB_OK;
}

typedef struct inputs {
    axb_pair_list pairs;
    axb_source_list sources;
    axb_fault_list faults;
    axb_receiver_list receivers;
    axb_source *src_table;   /* pairs: copies of the pairs' sources */
    axb_receiver *rec_table; /* pairs: copies of the pairs' receivers */
} inputs;

static void inputs_free(inputs *in)
{
    axb_pair_list_free(&in->pairs);
    axb_source_list_free(&in->sources);
    axb_fault_list_free(&in->faults);
    axb_receiver_list_free(&in->receivers);
    free(in->src_table);
    free(in->rec_table);
}

/* A pairs file: the pairs' sources (with the origin time of --origin-time) and receivers as two
 * lists, row i = pair i. */
static axb_status read_pairs(MPI_Comm comm, const extract_args *a, inputs *in, axb_extract_job *job, axb_error *err)
{
    AXB_TRY(axb_read_pairs_shared(comm, a->pairs, &in->pairs, err));
    AXB_CHECK(err, in->pairs.n > 0, AXB_ERR_ARG, "%s: no pairs", a->pairs);
    axb_time_ns t0 = 0;
    if (a->origin_time) AXB_TRY_CTX(err, axb_time_parse(a->origin_time, &t0, err), "--origin-time");
    const int64_t n = in->pairs.n;
    /* Each rank holds every row, so a large job's peak is these tables:
     * the receivers are copied out, then the sources are packed in place at the front of the
     * pairs' own block (a source is smaller than a pair and comes first in it) and the block is
     * shrunk, so a row is never held twice (1,000,000 pairs: peak 778 -> 496 MB). Pairs have no
     * sliprates, so nothing else is owned. */
    in->rec_table = malloc((size_t)n * sizeof *in->rec_table);
    AXB_CHECK(err, in->rec_table, AXB_ERR_NOMEM, "receiver table of %lld pairs", (long long)n);
    for (int64_t i = 0; i < n; i++) in->rec_table[i] = in->pairs.pair[i].rec;
    unsigned char *block = (unsigned char *)in->pairs.pair;
    for (int64_t i = 0; i < n; i++) {
        axb_source s = in->pairs.pair[i].src;
        s.origin_time = t0;
        memcpy(block + (size_t)i * sizeof s, &s, sizeof s); /* behind pair i: pairs i.. are intact */
    }
    void *shrunk = realloc(block, (size_t)n * sizeof(axb_source));
    in->src_table = shrunk ? shrunk : (axb_source *)(void *)block;
    in->pairs = (axb_pair_list){0};
    job->layout = AXB_ROWS_PAIRS;
    job->sources = in->src_table;
    job->nsources = n;
    job->receivers = in->rec_table;
    job->nreceivers = n;
    return AXB_OK;
}

/* Collective (a pairs file is read by the ranks together): every rank calls it or none. */
static axb_status read_inputs(MPI_Comm comm, const extract_args *a, inputs *in, axb_extract_job *job, axb_error *err)
{
    const int nsel = (a->pairs != NULL) + (a->cmt != NULL) + (a->finite != NULL) + (a->finite_list != NULL);
    AXB_CHECK(err, nsel == 1, AXB_ERR_ARG,
              "give exactly one of --pairs, --cmt, --finite or --finite-list (the last three with --stations)");
    AXB_CHECK(err, !a->pairs || !a->stations, AXB_ERR_ARG,
              "--stations goes with --cmt, --finite or --finite-list, not --pairs");
    AXB_CHECK(err, a->pairs || a->stations, AXB_ERR_ARG, "--%s needs --stations",
              a->cmt          ? "cmt"
                  : a->finite ? "finite"
                              : "finite-list");
    if (a->pairs) return read_pairs(comm, a, in, job, err);
    if (axb_file_looks_xml(a->stations))
        AXB_TRY(axb_read_stationxml(a->stations, &in->receivers, err));
    else
        AXB_TRY(axb_read_stations(a->stations, &in->receivers, err));
    AXB_CHECK(err, in->receivers.n > 0, AXB_ERR_ARG, "%s: no stations", a->stations);
    job->receivers = in->receivers.rec;
    job->nreceivers = in->receivers.n;
    if (a->cmt) {
        if (axb_file_looks_xml(a->cmt))
            AXB_TRY(axb_read_quakeml(a->cmt, &in->sources, err));
        else
            AXB_TRY(axb_read_cmtsolution(a->cmt, &in->sources, err));
        AXB_CHECK(err, in->sources.n > 0, AXB_ERR_ARG, "%s: no events", a->cmt);
        job->layout = AXB_ROWS_CROSS;
        job->sources = in->sources.src;
        job->nsources = in->sources.n;
        return AXB_OK;
    }
    axb_fault_list *fl = &in->faults;
    AXB_TRY(a->finite_list ? axb_read_fault_list(a->finite_list, fl, err) : axb_read_fault_file(a->finite, fl, err));
    job->layout = AXB_ROWS_FAULTS;
    job->subfaults = fl->sub.src;
    job->nsubfaults = fl->sub.n;
    job->fault_first = fl->first;
    job->nfaults = fl->n;
    job->fault_names = (const char *const *)fl->path;
    return AXB_OK;
}

/* The one filter option given: kind, corner(s) or period and width, order, phase. */
static axb_status parse_filter(const extract_args *a, axb_filter_spec *f, axb_error *err)
{
    memset(f, 0, sizeof *f);
    f->order = (int)a->filter_order;
    f->zerophase = a->zerophase;
    char *end = NULL;
    const char *v = a->lowpass ? a->lowpass : a->highpass ? a->highpass : a->bandpass ? a->bandpass : a->loggabor;
    f->kind = a->lowpass ? AXB_FILTER_LOWPASS
        : a->highpass    ? AXB_FILTER_HIGHPASS
        : a->bandpass    ? AXB_FILTER_BANDPASS
                         : AXB_FILTER_LOGGABOR;
    double x = strtod(v, &end), y = 0;
    const bool two = f->kind == AXB_FILTER_BANDPASS || f->kind == AXB_FILTER_LOGGABOR;
    bool ok = end != v;
    if (ok && two) {
        ok = *end == ',';
        const char *w = end + 1;
        if (ok) y = strtod(w, &end), ok = end != w;
    }
    AXB_CHECK(err, ok && *end == '\0', AXB_ERR_ARG, "filter '%s': expected %s", v,
              two ? (f->kind == AXB_FILTER_LOGGABOR ? "PERIOD,WIDTH" : "F1,F2") : "a frequency in Hz");
    if (f->kind == AXB_FILTER_LOGGABOR)
        f->period = x, f->width = y;
    else
        f->f1 = x, f->f2 = y;
    return AXB_OK;
}

static axb_status build_job(extract_args *a, axb_extract_job *job, axb_error *err)
{
    AXB_CHECK(err, a->db, AXB_ERR_ARG, "missing --db (the database)");
    AXB_CHECK(err, a->output, AXB_ERR_ARG, "missing -o/--output (the HDF5 file to write)");
    job->db_path = a->db;
    job->output = a->output;
    job->overwrite = a->force;
    job->resume = a->resume;
    AXB_CHECK(err, !(a->resume && a->force), AXB_ERR_ARG, "--resume and --force exclude each other");
    AXB_CHECK(err, a->checkpoint >= 0 && isfinite(a->checkpoint), AXB_ERR_ARG,
              "--checkpoint %g: must be 0 or more seconds", a->checkpoint);
    job->checkpoint_seconds = a->checkpoint;
    job->progress = !a->quiet;
    job->independent_reads = a->independent;
    job->cold_batches = a->cold_batches;
    AXB_CHECK(err, a->threads == -1 || (a->threads >= 1 && a->threads <= 1024), AXB_ERR_ARG,
              "--threads %ld: give 1 to 1024", a->threads);
    job->threads = a->threads > 0 ? (int)a->threads : 0;
    if (a->write_mode) AXB_TRY_CTX(err, axb_write_mode_parse(a->write_mode, &job->write_mode, err), "--write-mode");
    const int nfilters = (a->lowpass != NULL) + (a->highpass != NULL) + (a->bandpass != NULL) + (a->loggabor != NULL);
    AXB_CHECK(err, nfilters <= 1, AXB_ERR_ARG, "give at most one of --lowpass, --highpass, --bandpass, --loggabor");
    if (nfilters) {
        AXB_TRY(parse_filter(a, &a->filter, err));
        job->filter = &a->filter;
    }
    AXB_CHECK(err, !a->wisdom || nfilters, AXB_ERR_ARG,
              "--fftw-wisdom goes with a filter (the only FFTs worth measuring)");
    job->fftw_wisdom = a->wisdom;
    axb_extract_opts o = AXB_EXTRACT_OPTS_DEFAULT;
    if (a->components) {
        AXB_CHECK(err, a->components[0], AXB_ERR_ARG, "--components '': give one to five of Z, N, E, R, T");
        AXB_CHECK(err, strlen(a->components) < sizeof o.components, AXB_ERR_ARG,
                  "--components '%s': at most five of Z, N, E, R, T", a->components);
        snprintf(o.components, sizeof o.components, "%s", a->components);
    }
    if (a->kind) AXB_TRY(axb_quantity_parse(a->kind, &o.quantity, err));
    /* NAN: not given (the database's dt); a given one must be a real interval, 0 included */
    AXB_CHECK(err, isnan(a->dt) || (a->dt > 0 && isfinite(a->dt)), AXB_ERR_ARG, "--dt %g: must be bigger than 0",
              a->dt);
    o.dt = isnan(a->dt) ? 0 : a->dt;
    AXB_CHECK(err, a->kernelwidth >= 1 && a->kernelwidth <= 1000, AXB_ERR_ARG, "--kernelwidth %ld: must be 1..1000",
              a->kernelwidth);
    o.kernelwidth = (int)a->kernelwidth;
    /* memory budgets beyond the node's memory would fail only once the output exists */
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    const long node_mb = pages > 0 && page > 0 ? (long)((double)pages * (double)page / 1e6) : LONG_MAX;
    AXB_CHECK(err, a->batch_mb >= 1 && a->batch_mb <= node_mb, AXB_ERR_ARG,
              "--batch-mb %ld: give 1 to %ld (this node's memory in MB)", a->batch_mb, node_mb);
    o.batch_mb = a->batch_mb;
    AXB_CHECK(err, a->cache_mb >= 0 && a->cache_mb <= node_mb, AXB_ERR_ARG,
              "--cache-mb %ld: give 0 to %ld (this node's memory in MB)", a->cache_mb, node_mb);
    o.cache_mb = a->cache_mb;
    o.reconvolve_stf = a->reconvolve || a->finite || a->finite_list;
    o.remove_source_shift = !a->no_remove_shift && !o.reconvolve_stf;
    AXB_CHECK(err, !(a->reconvolve && !a->finite && !a->finite_list), AXB_ERR_ARG,
              "--reconvolve-stf needs sources with slip rates: use --finite (point sources from "
              "CMTSOLUTION, QuakeML or pairs files have none)");
    job->opts = o;
    job->format = AXB_OUT_BULK;
    job->precision = AXB_FLOAT32;
    if (a->format) AXB_TRY_CTX(err, axb_out_format_parse(a->format, &job->format, err), "--format");
    if (a->precision) AXB_TRY_CTX(err, axb_precision_parse(a->precision, &job->precision, err), "--precision");
    return AXB_OK;
}

axb_status axb_cmd_extract(const axb_cmd_env *env, int argc, char **argv, axb_error *err)
{
    extract_args a = {0};
    a.dt = NAN;
    a.checkpoint = 10;
    a.kernelwidth = 12;
    a.batch_mb = AXB_EXTRACT_BATCH_MB_DEFAULT;
    a.cache_mb = 256;
    a.threads = -1;
    a.filter_order = 4;
    axb_opt opts[NOPTS];
    set_options(&a, opts);
    const char *pos[1];
    int npos;
    bool help;
    /* The job file is applied first so that the command line overrides it: find --job before
     * parsing the rest. */
    axb_job jf = {0, NULL};
    const char *job_path = NULL;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--job") && i + 1 < argc)
            job_path = argv[i + 1];
        else if (!strncmp(argv[i], "--job=", 6))
            job_path = argv[i] + 6;
    }
    axb_status st = AXB_OK;
    if (job_path) {
        st = axb_job_read(job_path, &jf, err);
        if (!st) st = apply_job(&jf, job_path, opts, err);
    }
    if (!st) st = axb_opts_parse(opts, argc, argv, pos, 0, &npos, &help, err);
    if (!st && help) {
        if (env->rank == 0) {
            fputs(extract_help, env->out);
            axb_opts_print(env->out, opts);
        }
        axb_job_free(&jf);
        return AXB_OK;
    }
    axb_extract_job job;
    memset(&job, 0, sizeof job);
    inputs in;
    memset(&in, 0, sizeof in);
    if (!st) st = build_job(&a, &job, err);
    st = axb_agree(env->comm, st, err); /* read_inputs is collective */
    if (!st) st = read_inputs(env->comm, &a, &in, &job, err);
    const axb_cli_path out = {"-o", a.output, ".partial.record"}; /* the longest name beside it */
    const axb_cli_path ins[] = {{"database", a.db, NULL},
                                {"--job", job_path, NULL},
                                {"--pairs", a.pairs, NULL},
                                {"--stations", a.stations, NULL},
                                {"--cmt", a.cmt, NULL},
                                {"--finite", a.finite, NULL},
                                {"--finite-list", a.finite_list, NULL}};
    st = axb_cli_check_paths(env->comm, st, &out, 1, ins, sizeof ins / sizeof *ins, err);
    /* the command line, recorded in the output as provenance */
    char cmdline[2048] = "axibulk extract";
    for (int i = 0; i < argc; i++) {
        size_t len = strlen(cmdline);
        snprintf(cmdline + len, sizeof cmdline - len, " %s", argv[i]);
    }
    job.command = cmdline;
    axb_extract_job_result res = {0};
    if (!st) st = axb_extract_job_run(env->comm, &job, env->errout, &res, err);
    if (!st && env->rank == 0) {
        char cached[64] = "", resumed[64] = "";
        if (res.rows_resumed > 0)
            snprintf(resumed, sizeof resumed, " (%lld of them written before the resume)", (long long)res.rows_resumed);
        if (res.cache_hits > 0)
            snprintf(cached, sizeof cached, ", %lld from the element cache", (long long)res.cache_hits);
        fprintf(env->out,
                "wrote %lld rows%s x %d components (%s) x %lld samples at %g s to %s in %.2f s "
                "(%.1f rows/s, %lld element reads in %lld read calls, %.1f MB%s)\n",
                (long long)res.rows, resumed, res.ncomp, res.components, (long long)res.npts, res.dt, a.output,
                res.seconds, (double)(res.rows - res.rows_resumed) / (res.seconds > 0 ? res.seconds : 1),
                (long long)res.elements_read, (long long)res.read_calls, (double)res.bytes_read / 1e6, cached);
        axb_cli_print_decoded(env->out, &res.io, res.threads); /* where a deflated database's time goes */
        const axb_extract_times *t = &res.times;               /* and where the job's went */
        fprintf(env->out,
                "time on rank 0 (s): open %.3f, locate %.3f, read %.3f, compute %.3f, write %.3f, close %.3f, "
                "other %.3f\n",
                t->open, t->locate, t->read, t->compute, t->write, t->close, t->other);
    }
    inputs_free(&in);
    axb_job_free(&jf);
    return st;
}
