/* A job's rows from its source and receiver lists: explicit tables, pairs, cross products of
 * events and stations, and finite faults at stations, whose table entries (what the output
 * records as each fault's source) are the faults' centroids at the database's planet radius. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engines/extract_internal.h"

/* Source-major rows: every receiver of source 0, then of source 1, ... */
static axb_status cross_rows(axb_job_rows *t, int64_t ns, int64_t nr, axb_error *err)
{
    AXB_CHECK(err, ns >= 1 && nr >= 1, AXB_ERR_ARG, "a cross product of %" PRId64 " sources and %" PRId64 " receivers",
              ns, nr);
    AXB_CHECK(err, ns <= INT64_MAX / nr, AXB_ERR_RANGE, "%" PRId64 " x %" PRId64 " rows", ns, nr);
    const int64_t n = ns * nr;
    t->own_row_source = malloc((size_t)n * sizeof *t->own_row_source);
    t->own_row_receiver = malloc((size_t)n * sizeof *t->own_row_receiver);
    AXB_CHECK(err, t->own_row_source && t->own_row_receiver, AXB_ERR_NOMEM, "row tables of %" PRId64 " rows", n);
    for (int64_t s = 0; s < ns; s++)
        for (int64_t r = 0; r < nr; r++) {
            t->own_row_source[s * nr + r] = s;
            t->own_row_receiver[s * nr + r] = r;
        }
    t->row_source = t->own_row_source;
    t->row_receiver = t->own_row_receiver;
    t->nrows = n;
    return AXB_OK;
}

/* Fault f's entry: its centroid (position, summed tensor) with the origin time of its hypocentre
 * (earliest rupture), named after the fault (the last component of its path). */
static axb_status fault_entry(const axb_extract_job *job, int64_t f, double planet_radius, axb_source *e,
                              axb_error *err)
{
    const int64_t s0 = job->fault_first ? job->fault_first[f] : 0;
    const int64_t s1 = job->fault_first ? job->fault_first[f + 1] : job->nsubfaults;
    const axb_source_list one = {s1 - s0, (axb_source *)job->subfaults + s0};
    AXB_TRY(axb_source_list_centroid(&one, planet_radius, e, err));
    const int64_t h = axb_source_list_hypocentre(&one);
    e->origin_time = one.src[h >= 0 ? h : 0].origin_time;
    e->time_shift = 0;
    if (job->fault_names && job->fault_names[f]) {
        const char *base = strrchr(job->fault_names[f], '/');
        snprintf(e->name, sizeof e->name, "%.63s", base ? base + 1 : job->fault_names[f]);
    } else {
        snprintf(e->name, sizeof e->name, "fault %" PRId64, f);
    }
    return AXB_OK;
}

static axb_status fault_rows(const axb_extract_job *job, double planet_radius, axb_job_rows *t, axb_error *err)
{
    AXB_CHECK(err, job->subfaults && job->nsubfaults >= 1, AXB_ERR_ARG, "finite faults without subfaults");
    const int64_t nf = job->fault_first ? job->nfaults : 1;
    AXB_CHECK(err, nf >= 1, AXB_ERR_ARG, "no finite faults");
    t->own_sources = calloc((size_t)nf, sizeof *t->own_sources);
    AXB_CHECK(err, t->own_sources, AXB_ERR_NOMEM, "table of %" PRId64 " faults", nf);
    for (int64_t f = 0; f < nf; f++) {
        const axb_status st = fault_entry(job, f, planet_radius, &t->own_sources[f], err);
        if (st != AXB_OK)
            return job->fault_names && job->fault_names[f] ? axb_error_prefix(err, "%s", job->fault_names[f])
                                                           : axb_error_prefix(err, "fault %" PRId64, f);
    }
    t->sources = t->own_sources;
    t->nsources = nf;
    return cross_rows(t, nf, job->nreceivers, err);
}

axb_status axb_job_rows_build(const axb_extract_job *job, double planet_radius, axb_job_rows *t, axb_error *err)
{
    memset(t, 0, sizeof *t);
    t->sources = job->sources;
    t->nsources = job->nsources;
    t->receivers = job->receivers;
    t->nreceivers = job->nreceivers;
    AXB_CHECK(err, job->receivers && job->nreceivers >= 1, AXB_ERR_ARG, "no receivers");
    switch (job->layout) {
    case AXB_ROWS_TABLE:
        AXB_CHECK(err, job->row_source && job->row_receiver && job->nrows >= 1, AXB_ERR_ARG, "no row tables");
        t->row_source = job->row_source;
        t->row_receiver = job->row_receiver;
        t->nrows = job->nrows;
        return AXB_OK;
    case AXB_ROWS_PAIRS:
        AXB_CHECK(err, job->nsources == job->nreceivers, AXB_ERR_ARG,
                  "pairs need as many sources as receivers (%" PRId64 " and %" PRId64 ")", job->nsources,
                  job->nreceivers);
        t->own_row_source = malloc((size_t)job->nsources * sizeof *t->own_row_source);
        AXB_CHECK(err, t->own_row_source, AXB_ERR_NOMEM, "row table of %" PRId64 " pairs", job->nsources);
        for (int64_t i = 0; i < job->nsources; i++) t->own_row_source[i] = i;
        t->row_source = t->row_receiver = t->own_row_source;
        t->nrows = job->nsources;
        return AXB_OK;
    case AXB_ROWS_CROSS: return cross_rows(t, job->nsources, job->nreceivers, err);
    case AXB_ROWS_FAULTS: return fault_rows(job, planet_radius, t, err);
    }
    return axb_error_set(err, AXB_ERR_ARG, "unknown row layout %d", (int)job->layout);
}

void axb_job_rows_free(axb_job_rows *t)
{
    free(t->own_sources);
    free(t->own_row_source);
    free(t->own_row_receiver);
    memset(t, 0, sizeof *t);
}
