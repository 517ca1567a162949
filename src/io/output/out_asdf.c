/* ASDF 1.0.3 as pyasdf writes and reads it (docs/output-format.md): one dataset per trace under
 * /Waveforms/NET.STA, one event per source in /QuakeML, traces linked to their event.
 *
 * Every dataset and attribute, including the StationXML and provenance documents
 * (out_asdf_meta.c), is made in create, which rank 0 runs alone through the serial driver (no MPI
 * call may happen there); a write then only opens this rank's trace datasets and writes them
 * independently (no other rank has to take part). */
#include "io/output/out_internal.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agree.h"
#include "core/mpi_check.h"
#include "io/hdf5/h5util.h"

#define ASDF_FORMAT "ASDF"
#define ASDF_VERSION "1.0.3"
#define ASDF_NAME_MAX 256
/* The name of the provenance document in /Provenance (ASDF 1.0.3 allows any printable ASCII). */
#define OUT_PROV_NAME "axibulk_extract"

typedef struct asdf_impl {
    axb_receiver *rec;          /* copy of the receiver table */
    int64_t *row_src, *row_rec; /* copies of the row tables */
    axb_time_ns *row_start;     /* [nrows] time of each row's first sample */
    axb_time_ns span;           /* last sample minus first */
    char band;
    int tag_level; /* 0: "synthetic"; 1: per source; 2: per row (see pick_tag_level) */
} asdf_impl;

/* ---------------------------------------------------------------------------------------------
 * Checks */

/* pyasdf splits trace names at '.' and "__" and maps '_' to '.' in station attribute names, and
 * HDF5 paths split at '/': codes are letters and digits only. ASDF's own patterns are stricter
 * (upper case; at most 2, 5, 2 characters) but pyasdf reads longer codes, so those pass. */
static bool code_ok(const char *s, bool may_be_empty)
{
    if (!s[0]) return may_be_empty;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s)) return false;
    return true;
}

static axb_status asdf_check(const axb_output_desc *d, axb_error *err)
{
    for (int64_t i = 0; i < d->nreceivers; i++) {
        const axb_receiver *r = &d->receivers[i];
        AXB_CHECK(err, code_ok(r->network, false) && code_ok(r->station, false) && code_ok(r->location, true),
                  AXB_ERR_ARG,
                  "receiver %" PRId64 " '%s.%s.%s': ASDF needs network and station codes (and "
                  "location codes, if any) of letters and digits only",
                  i, r->network, r->station, r->location);
    }
    for (int64_t i = 0; i < d->nsources; i++) {
        const axb_source *s = &d->sources[i];
        bool ok = isfinite(s->lat) && isfinite(s->lon);
        for (int k = 0; k < 6; k++) ok = ok && isfinite(s->m[k]);
        for (int k = 0; k < 3; k++) ok = ok && isfinite(s->f[k]);
        AXB_CHECK(err, ok, AXB_ERR_ARG,
                  "source %" PRId64 " '%s': position, moment tensor and force must be finite for "
                  "QuakeML",
                  i, s->name);
    }
    return AXB_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Names */

/* The time part of a trace name: whole seconds of the first and last sample (as pyasdf formats
 * them, truncated), with nanoseconds added when both fall in the same second. */
static void name_times(axb_time_ns start, axb_time_ns end, char *buf, size_t size)
{
    char s[32], e[32];
    axb_time_format_seconds(start, s, sizeof s);
    axb_time_format_seconds(end, e, sizeof e);
    if (strcmp(s, e) != 0) {
        snprintf(buf, size, "%s__%s", s, e);
        return;
    }
    int64_t sn = start % AXB_NS_PER_S, en = end % AXB_NS_PER_S;
    if (sn < 0) sn += AXB_NS_PER_S;
    if (en < 0) en += AXB_NS_PER_S;
    snprintf(buf, size, "%s.%09" PRId64 "__%s.%09" PRId64, s, sn, e, en);
}

static void station_group(const axb_receiver *r, char *buf, size_t size)
{
    snprintf(buf, size, "/Waveforms/%s.%s", r->network, r->station);
}

/* Full path of the trace of row @p row, component index @p c. */
static void trace_path(const axb_output *o, const asdf_impl *a, int64_t row, int c, char *buf, size_t size)
{
    const axb_receiver *r = &a->rec[a->row_rec[row]];
    char times[96], tag[48];
    name_times(a->row_start[row], a->row_start[row] + a->span, times, sizeof times);
    if (a->tag_level == 0)
        snprintf(tag, sizeof tag, "synthetic");
    else if (a->tag_level == 1)
        snprintf(tag, sizeof tag, "synthetic_s%" PRId64, a->row_src[row]);
    else
        snprintf(tag, sizeof tag, "synthetic_r%" PRId64, row);
    snprintf(buf, size, "/Waveforms/%s.%s/%s.%s.%s.%cX%c__%s__%s", r->network, r->station, r->network, r->station,
             r->location, a->band, o->components[c], times, tag);
}

typedef struct name_key {
    char net[8], sta[8], loc[8];
    char times[96];
    int64_t src;
} name_key;

static int cmp_key_no_src(const name_key *x, const name_key *y)
{
    int c = strcmp(x->net, y->net);
    if (!c) c = strcmp(x->sta, y->sta);
    if (!c) c = strcmp(x->loc, y->loc);
    if (!c) c = strcmp(x->times, y->times);
    return c;
}

static int cmp_key(const void *a, const void *b)
{
    const name_key *x = a, *y = b;
    int c = cmp_key_no_src(x, y);
    return c ? c : (x->src > y->src) - (x->src < y->src);
}

/* ASDF tells traces apart by codes, times and tag only. Rows that share a receiver's codes and a
 * start time (sources with equal origin times are common in bulk runs) would get equal names
 * under the plain "synthetic" tag, so the tag then carries the source index, and if a
 * source-receiver pair itself repeats, the row index. One rule for the whole file keeps names
 * predictable. */
static axb_status pick_tag_level(const axb_output *o, asdf_impl *a, axb_error *err)
{
    name_key *k = calloc((size_t)o->nrows, sizeof *k);
    if (!k) return axb_error_set(err, AXB_ERR_NOMEM, "trace names of %" PRId64 " rows", o->nrows);
    for (int64_t i = 0; i < o->nrows; i++) {
        const axb_receiver *r = &a->rec[a->row_rec[i]];
        memcpy(k[i].net, r->network, sizeof k[i].net);
        memcpy(k[i].sta, r->station, sizeof k[i].sta);
        memcpy(k[i].loc, r->location, sizeof k[i].loc);
        k[i].net[7] = k[i].sta[7] = k[i].loc[7] = '\0';
        name_times(a->row_start[i], a->row_start[i] + a->span, k[i].times, sizeof k[i].times);
        k[i].src = a->row_src[i];
    }
    qsort(k, (size_t)o->nrows, sizeof *k, cmp_key);
    a->tag_level = 0;
    for (int64_t i = 1; i < o->nrows; i++) {
        if (cmp_key(&k[i], &k[i - 1]) == 0) {
            a->tag_level = 2;
            break;
        }
        if (cmp_key_no_src(&k[i], &k[i - 1]) == 0) a->tag_level = 1;
    }
    free(k);
    return AXB_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Create */

static axb_status copy_tables(axb_output *o, const axb_output_desc *d, asdf_impl *a, axb_error *err)
{
    a->rec = malloc((size_t)d->nreceivers * sizeof *a->rec);
    a->row_src = malloc((size_t)d->nrows * sizeof *a->row_src);
    a->row_rec = malloc((size_t)d->nrows * sizeof *a->row_rec);
    a->row_start = malloc((size_t)d->nrows * sizeof *a->row_start);
    if (!a->rec || !a->row_src || !a->row_rec || !a->row_start)
        return axb_error_set(err, AXB_ERR_NOMEM, "ASDF row tables");
    memcpy(a->rec, d->receivers, (size_t)d->nreceivers * sizeof *a->rec);
    memcpy(a->row_src, d->row_source, (size_t)d->nrows * sizeof *a->row_src);
    memcpy(a->row_rec, d->row_receiver, (size_t)d->nrows * sizeof *a->row_rec);
    const axb_time_ns offset = axb_time_from_seconds(d->start_offset);
    for (int64_t i = 0; i < d->nrows; i++) a->row_start[i] = d->sources[d->row_source[i]].origin_time + offset;
    a->span = axb_time_from_seconds((double)(d->nsamples - 1) * d->dt);
    a->band = axb_band_code(d->dt);
    return pick_tag_level(o, a, err);
}

/* What the trace datasets hold, recorded at creation so that --resume refuses another job's
 * unfinished file (e.g. fewer components: its traces would exist but the others stay empty). */
static void trace_layout(const axb_output *o, char *buf, size_t size)
{
    snprintf(buf, size, "%lld rows, components %s, %lld samples at %.17g s from %.17g s, %s", (long long)o->nrows,
             o->components, (long long)o->nsamples, o->dt, o->start_offset, o->elsize == 4 ? "float32" : "float64");
}

static axb_status write_root_attrs(axb_output *o, const axb_output_desc *d, axb_error *err)
{
    char layout[160];
    trace_layout(o, layout, sizeof layout);
    char created[40];
    axb_time_format(o->created, created, sizeof created);
    /* pyasdf decodes these two as fixed-length byte strings; the rest are axibulk's own. */
    AXB_TRY(axb_h5out_attr_fixstr(o->file, "file_format", ASDF_FORMAT, err));
    AXB_TRY(axb_h5out_attr_fixstr(o->file, "file_format_version", ASDF_VERSION, err));
    AXB_TRY(axb_h5out_attr_fixstr(o->file, "creator", OUT_CREATOR, err));
    AXB_TRY(axb_h5out_attr_fixstr(o->file, "creation_time", created, err));
    AXB_TRY(axb_h5out_attr_fixstr(o->file, "database", d->database, err));
    AXB_TRY(axb_h5out_attr_fixstr(o->file, "kind", d->kind, err));
    AXB_TRY(axb_h5out_attr_fixstr(o->file, "units", o->units, err));
    if (d->command) AXB_TRY(axb_h5out_attr_fixstr(o->file, "command", d->command, err));
    AXB_TRY(axb_h5out_attr_fixstr(o->file, "axibulk_traces", layout, err));
    return AXB_OK;
}

/* A byte dataset holding a document, as pyasdf stores XML (int8 array, no terminating NUL). */
static axb_status write_text(axb_output *o, const char *path, char *text, size_t len, axb_error *err)
{
    hsize_t dims[1] = {(hsize_t)len};
    hid_t ds;
    axb_status st = axb_h5out_dataset(o->file, path, H5T_STD_I8LE, 1, dims, &ds, err);
    if (st == AXB_OK) st = axb_h5out_write_root(o, ds, H5T_NATIVE_SCHAR, text, err);
    if (ds >= 0) H5Dclose(ds);
    free(text);
    return st;
}

static axb_status write_quakeml(axb_output *o, const axb_output_desc *d, axb_error *err)
{
    char *text = NULL;
    size_t len = 0;
    axb_status st = axb_quakeml_write(d->sources, d->nsources, OUT_CREATOR, o->created, &text, &len, err);
    if (st != AXB_OK) {
        free(text);
        return st;
    }
    return write_text(o, "QuakeML", text, len, err);
}

static axb_status write_provenance(axb_output *o, const axb_output_desc *d, axb_error *err)
{
    char *text = NULL;
    size_t len = 0;
    AXB_TRY(axb_asdf_provenance(o, d, &text, &len, err));
    return write_text(o, "Provenance/" OUT_PROV_NAME, text, len, err);
}

static int cmp_rec_idx(int64_t i, int64_t j, const axb_receiver *rec)
{
    int c = strcmp(rec[i].network, rec[j].network);
    if (!c) c = strcmp(rec[i].station, rec[j].station);
    return c ? c : (i > j) - (i < j);
}

/* Merge sort of receiver indices by (network, station, index): qsort has no
 * context argument in C17. */
static void sort_recs(int64_t *v, int64_t *tmp, int64_t n, const axb_receiver *rec)
{
    if (n < 2) return;
    const int64_t h = n / 2;
    sort_recs(v, tmp, h, rec);
    sort_recs(v + h, tmp, n - h, rec);
    int64_t i = 0, j = h, k = 0;
    while (i < h && j < n) tmp[k++] = cmp_rec_idx(v[i], v[j], rec) <= 0 ? v[i++] : v[j++];
    while (i < h) tmp[k++] = v[i++];
    while (j < n) tmp[k++] = v[j++];
    memcpy(v, tmp, (size_t)n * sizeof *v);
}

/* /Waveforms/NET.STA/StationXML for every station the rows use. */
static axb_status write_stationxml(axb_output *o, const axb_output_desc *d, const asdf_impl *a, axb_error *err)
{
    const int64_t nr = d->nreceivers;
    axb_time_ns *tmin = malloc((size_t)nr * sizeof *tmin), *tmax = malloc((size_t)nr * sizeof *tmax);
    int64_t *used = malloc((size_t)nr * sizeof *used), *tmp = malloc((size_t)nr * sizeof *tmp);
    bool *seen = calloc((size_t)nr, sizeof *seen);
    axb_status st = tmin && tmax && used && tmp && seen ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "station tables");
    for (int64_t row = 0; st == AXB_OK && row < o->nrows; row++) {
        const int64_t r = a->row_rec[row];
        const axb_time_ns t0 = a->row_start[row], t1 = t0 + a->span;
        if (!seen[r] || t0 < tmin[r]) tmin[r] = t0;
        if (!seen[r] || t1 > tmax[r]) tmax[r] = t1;
        seen[r] = true;
    }
    int64_t nused = 0;
    for (int64_t r = 0; st == AXB_OK && r < nr; r++)
        if (seen[r]) used[nused++] = r;
    /* rows grouped by receiver (counting sort, rows ascending within a receiver) */
    int64_t *off = calloc((size_t)nr + 1, sizeof *off), *rows = malloc((size_t)o->nrows * sizeof *rows);
    if (st == AXB_OK && (!off || !rows)) st = axb_error_set(err, AXB_ERR_NOMEM, "station tables");
    if (st == AXB_OK) {
        for (int64_t row = 0; row < o->nrows; row++) off[a->row_rec[row] + 1]++;
        for (int64_t r = 0; r < nr; r++) off[r + 1] += off[r];
        for (int64_t row = 0; row < o->nrows; row++) rows[off[a->row_rec[row]]++] = row;
        for (int64_t r = nr; r > 0; r--) off[r] = off[r - 1];
        off[0] = 0;
    }
    const asdf_rows t = {tmin, tmax, off, rows, a->row_start, a->span};
    if (st == AXB_OK) sort_recs(used, tmp, nused, a->rec);
    for (int64_t i = 0; st == AXB_OK && i < nused;) {
        int64_t j = i + 1;
        while (j < nused && !strcmp(a->rec[used[j]].network, a->rec[used[i]].network) &&
               !strcmp(a->rec[used[j]].station, a->rec[used[i]].station))
            j++;
        char path[ASDF_NAME_MAX], *text = NULL;
        size_t len = 0;
        station_group(&a->rec[used[i]], path, sizeof path);
        strncat(path, "/StationXML", sizeof path - strlen(path) - 1);
        st = axb_asdf_stationxml(o, d, used + i, j - i, &t, &text, &len, err);
        if (st == AXB_OK) st = write_text(o, path, text, len, err);
        i = j;
    }
    free(tmin);
    free(tmax);
    free(used);
    free(tmp);
    free(seen);
    free(off);
    free(rows);
    return st;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One group per NET.STA among the receivers the rows use, created in sorted order. */
static axb_status create_stations(axb_output *o, const asdf_impl *a, axb_error *err)
{
    char(*names)[40] = malloc((size_t)o->nrows * sizeof *names);
    const char **sorted = malloc((size_t)o->nrows * sizeof *sorted);
    axb_status st = names && sorted ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "station names");
    for (int64_t i = 0; st == AXB_OK && i < o->nrows; i++) {
        station_group(&a->rec[a->row_rec[i]], names[i], sizeof names[i]);
        sorted[i] = names[i];
    }
    if (st == AXB_OK) qsort(sorted, (size_t)o->nrows, sizeof *sorted, cmp_str);
    for (int64_t i = 0; st == AXB_OK && i < o->nrows; i++)
        if (i == 0 || strcmp(sorted[i], sorted[i - 1]) != 0) st = axb_h5out_group(o->file, sorted[i], err);
    free(sorted);
    free(names);
    return st;
}

static axb_status trace_attrs(hid_t ds, const axb_output *o, const asdf_impl *a, const axb_output_desc *d, int64_t row,
                              axb_error *err)
{
    const int64_t isrc = a->row_src[row];
    const axb_source *s = &d->sources[isrc];
    char id[96];
    AXB_TRY(axb_h5out_attr_int64(ds, "starttime", a->row_start[row], err));
    AXB_TRY(axb_h5out_attr_double(ds, "sampling_rate", 1.0 / o->dt, err));
    axb_qml_id(id, sizeof id, "event", isrc);
    AXB_TRY(axb_h5out_attr_fixstr(ds, "event_id", id, err));
    axb_qml_id(id, sizeof id, "origin", isrc);
    AXB_TRY(axb_h5out_attr_fixstr(ds, "origin_id", id, err));
    AXB_TRY(axb_h5out_attr_fixstr(ds, "provenance_id", "{" OUT_PROV_NS "}" OUT_PROV_TRACES, err));
    if (s->type == AXB_SRC_MOMENT) {
        /* Same condition as the magnitude in the QuakeML document. */
        if (axb_moment_m0(s->m) > 0) {
            axb_qml_id(id, sizeof id, "magnitude", isrc);
            AXB_TRY(axb_h5out_attr_fixstr(ds, "magnitude_id", id, err));
        }
        axb_qml_id(id, sizeof id, "focal_mechanism", isrc);
        AXB_TRY(axb_h5out_attr_fixstr(ds, "focal_mechanism_id", id, err));
    }
    return AXB_OK;
}

static axb_status create_traces(axb_output *o, const axb_output_desc *d, const asdf_impl *a, axb_error *err)
{
    hid_t ftype = o->precision == AXB_FLOAT32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
    hsize_t dims[1] = {(hsize_t)o->nsamples};
    char path[ASDF_NAME_MAX];
    for (int64_t row = 0; row < o->nrows; row++) {
        for (int c = 0; c < o->ncomp; c++) {
            trace_path(o, a, row, c, path, sizeof path);
            hid_t ds;
            axb_status st = axb_h5out_dataset(o->file, path, ftype, 1, dims, &ds, err);
            if (st == AXB_OK) st = trace_attrs(ds, o, a, d, row, err);
            if (ds >= 0) H5Dclose(ds);
            if (st != AXB_OK) return st;
        }
    }
    return AXB_OK;
}

static axb_status asdf_create(axb_output *o, const axb_output_desc *d, axb_error *err)
{
    asdf_impl *a = calloc(1, sizeof *a);
    if (!a) return axb_error_set(err, AXB_ERR_NOMEM, "ASDF output");
    o->impl = a;
    AXB_TRY(copy_tables(o, d, a, err));
    AXB_TRY(write_root_attrs(o, d, err));
    /* pyasdf opens /Provenance and /AuxiliaryData unconditionally, so they exist even empty. */
    AXB_TRY(axb_h5out_group(o->file, "Waveforms", err));
    AXB_TRY(axb_h5out_group(o->file, "Provenance", err));
    AXB_TRY(axb_h5out_group(o->file, "AuxiliaryData", err));
    AXB_TRY(write_quakeml(o, d, err));
    AXB_TRY(write_provenance(o, d, err));
    AXB_TRY(create_stations(o, a, err));
    AXB_TRY(write_stationxml(o, d, a, err));
    return create_traces(o, d, a, err);
}

/* ---------------------------------------------------------------------------------------------
 * Write: independent, one dataset per (row, component). */

static axb_status asdf_write(axb_output *o, int64_t n, const int64_t *rows, const void *data, axb_error *err)
{
    const asdf_impl *a = o->impl;
    const size_t trace_bytes = (size_t)o->nsamples * o->elsize;
    char path[ASDF_NAME_MAX];
    for (int64_t k = 0; k < n; k++) {
        for (int c = 0; c < o->ncomp; c++) {
            trace_path(o, a, rows[k], c, path, sizeof path);
            const size_t trace = (size_t)k * (size_t)o->ncomp + (size_t)c;
            const char *buf = (const char *)data + trace * trace_bytes;
            hid_t ds = H5Dopen2(o->file, path, H5P_DEFAULT);
            herr_t rc = ds >= 0 ? H5Dwrite(ds, o->memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) : -1;
            if (ds >= 0) H5Dclose(ds);
            if (rc < 0) return axb_h5_error(err, "cannot write trace '%s'", path);
        }
    }
    return AXB_OK;
}

/* Resume: the names are derived again from the same descriptor; the traces were all created by
 * asdf_create, so the file must hold the first and the last row's traces with this job's length
 * and precision (a different job's file is refused rather than half overwritten). */
static axb_status asdf_reopen(axb_output *o, const axb_output_desc *d, axb_error *err)
{
    asdf_impl *a = calloc(1, sizeof *a);
    if (!a) return axb_error_set(err, AXB_ERR_NOMEM, "ASDF output");
    o->impl = a;
    AXB_TRY(copy_tables(o, d, a, err));
    char want[160], have[160] = "";
    trace_layout(o, want, sizeof want);
    axb_error ignored = AXB_ERROR_INIT;
    if (axb_h5_attr_string(o->file, "axibulk_traces", have, sizeof have, &ignored) != AXB_OK || strcmp(want, have))
        return axb_error_set(err, AXB_ERR_ARG, "cannot resume: the unfinished file holds %s, this job makes %s",
                             have[0] ? have : "unknown traces", want);
    const int64_t probe[2] = {0, o->nrows - 1};
    for (int k = 0; k < 2; k++)
        for (int c = 0; c < o->ncomp; c++) {
            char path[ASDF_NAME_MAX];
            trace_path(o, a, probe[k], c, path, sizeof path);
            hid_t ds =
                H5Lexists(o->file, path, H5P_DEFAULT) > 0 ? H5Dopen2(o->file, path, H5P_DEFAULT) : H5I_INVALID_HID;
            hsize_t n = 0;
            size_t size = 0;
            if (ds >= 0) {
                hid_t s = H5Dget_space(ds), t = H5Dget_type(ds);
                if (H5Sget_simple_extent_ndims(s) == 1) H5Sget_simple_extent_dims(s, &n, NULL);
                size = H5Tget_size(t);
                H5Sclose(s);
                H5Tclose(t);
                H5Dclose(ds);
            }
            AXB_CHECK(err, ds >= 0 && n == (hsize_t)o->nsamples && size == o->elsize, AXB_ERR_ARG,
                      "cannot resume: the unfinished file has no %lld-sample %s trace %s (another job's file?)",
                      (long long)o->nsamples, o->elsize == 4 ? "float32" : "float64", path);
        }
    return AXB_OK;
}

static void asdf_destroy(axb_output *o)
{
    asdf_impl *a = o->impl;
    if (!a) return;
    free(a->rec);
    free(a->row_src);
    free(a->row_rec);
    free(a->row_start);
    free(a);
    o->impl = NULL;
}

const axb_out_ops axb_out_asdf_ops = {
    .name = "asdf",
    .check = asdf_check,
    .create = asdf_create,
    .write = asdf_write,
    .finish = NULL,
    .reopen = asdf_reopen,
    .destroy = asdf_destroy,
};
