/* A job's rows from its lists (src/engines/extract_rows.c): the pairs' identity rows, the
 * source-major cross product, and finite faults at stations, whose table entries are each fault's
 * centroid at the database's planet radius (not a fixed 6371 km), with the hypocentre's origin
 * time and the file's last path component as name. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "engines/extract_internal.h"

static axb_source sub(double lat, double lon, double depth, double scale, axb_time_ns t, double shift)
{
    axb_source s = {
        .type = AXB_SRC_MOMENT, .lat = lat, .lon = lon, .depth = depth, .origin_time = t, .time_shift = shift};
    const double m[6] = {1e18, -5e17, -5e17, 2e17, -1e17, 3e17};
    for (int k = 0; k < 6; k++) s.m[k] = scale * m[k];
    return s;
}

int main(void)
{
    check_ctx T = {0, 0, 0};
    axb_error err = AXB_ERROR_INIT;
    axb_receiver rec[3] = {{.lat = 1}, {.lat = 2}, {.lat = 3}};
    axb_source src[2] = {sub(0, 0, 1e3, 1, 0, NAN), sub(10, 20, 2e3, 1, 0, NAN)};
    axb_job_rows t;

    axb_extract_job job = {.layout = AXB_ROWS_CROSS, .sources = src, .nsources = 2, .receivers = rec, .nreceivers = 3};
    CHECK_MSG(&T, axb_job_rows_build(&job, 6371e3, &t, &err) == AXB_OK, "%s", err.msg);
    CHECK(&T, t.nrows == 6);
    for (int64_t r = 0; r < t.nrows; r++) CHECK(&T, t.row_source[r] == r / 3 && t.row_receiver[r] == r % 3);
    axb_job_rows_free(&t);

    axb_source two[3] = {src[0], src[1], src[0]};
    job = (axb_extract_job){.layout = AXB_ROWS_PAIRS, .sources = two, .nsources = 3, .receivers = rec, .nreceivers = 3};
    CHECK(&T, axb_job_rows_build(&job, 6371e3, &t, &err) == AXB_OK);
    CHECK(&T, t.nrows == 3 && t.row_source[2] == 2 && t.row_receiver[2] == 2);
    axb_job_rows_free(&t);
    job.nsources = 2;
    CHECK(&T, axb_job_rows_build(&job, 6371e3, &t, &err) == AXB_ERR_ARG);
    axb_job_rows_free(&t);

    /* two faults: [a, b] far apart (the centroid's depth depends on the radius; b ruptures first), [c] alone */
    axb_source subs[3] = {sub(0, 0, 100e3, 1, 5000, 3.0), sub(0, 40, 10e3, 2, 3000, 1.0), sub(-5, 5, 30e3, 1, 7, 0)};
    const int64_t first[3] = {0, 2, 3};
    const char *names[2] = {"/data/faults/one.srf", "two.param"};
    job = (axb_extract_job){.layout = AXB_ROWS_FAULTS,
                            .receivers = rec,
                            .nreceivers = 3,
                            .subfaults = subs,
                            .nsubfaults = 3,
                            .fault_first = first,
                            .nfaults = 2,
                            .fault_names = names};
    const double radii[2] = {6371e3, 3389.5e3};
    for (int k = 0; k < 2; k++) {
        CHECK_MSG(&T, axb_job_rows_build(&job, radii[k], &t, &err) == AXB_OK, "%s", err.msg);
        CHECK(&T, t.nsources == 2 && t.nrows == 6 && t.row_source[4] == 1 && t.row_receiver[4] == 1);
        axb_source want;
        const axb_source_list one = {2, subs};
        CHECK(&T, axb_source_list_centroid(&one, radii[k], &want, &err) == AXB_OK);
        CHECK_MSG(&T, t.sources[0].depth == want.depth && t.sources[0].lat == want.lat && t.sources[0].lon == want.lon,
                  "radius %g: centroid depth %.17g, want %.17g", radii[k], t.sources[0].depth, want.depth);
        CHECK(&T, t.sources[0].origin_time == 3000 && t.sources[0].time_shift == 0);
        CHECK(&T, !strcmp(t.sources[0].name, "one.srf") && !strcmp(t.sources[1].name, "two.param"));
        CHECK(&T, fabs(t.sources[1].depth - 30e3) < 1e-6);
        axb_job_rows_free(&t);
    }
    /* the radius matters: the same fault's centroid is shallower on the smaller planet */
    axb_job_rows a, b;
    CHECK(&T,
          axb_job_rows_build(&job, radii[0], &a, &err) == AXB_OK &&
              axb_job_rows_build(&job, radii[1], &b, &err) == AXB_OK);
    CHECK_MSG(&T, a.sources[0].depth != b.sources[0].depth, "depth %g on both radii", a.sources[0].depth);
    axb_job_rows_free(&a);
    axb_job_rows_free(&b);
    return check_summary(&T);
}
