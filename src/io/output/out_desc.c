/* The output descriptor: names of formats and precisions, band codes and units, the checks every
 * rank makes of a descriptor before any file is touched, and the identity a resume must match. */
#include "io/output/out_internal.h"

#include "core/hash.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const FORMAT_NAMES[] = {"bulk", "asdf"};
static const char *const PRECISION_NAMES[] = {"float32", "float64"};

/* ---------------------------------------------------------------------------------------------
 * Small public helpers */

axb_status axb_out_format_parse(const char *s, axb_out_format *f, axb_error *err)
{
    for (int i = 0; i < 2; i++)
        if (s && strcmp(s, FORMAT_NAMES[i]) == 0) {
            *f = (axb_out_format)i;
            return AXB_OK;
        }
    return axb_error_set(err, AXB_ERR_ARG, "unknown output format '%s' (expected bulk or asdf)", s ? s : "(null)");
}

const char *axb_out_format_name(axb_out_format f)
{
    return (unsigned)f < 2 ? FORMAT_NAMES[f] : "unknown";
}

axb_status axb_precision_parse(const char *s, axb_precision *p, axb_error *err)
{
    for (int i = 0; i < 2; i++)
        if (s && strcmp(s, PRECISION_NAMES[i]) == 0) {
            *p = (axb_precision)i;
            return AXB_OK;
        }
    return axb_error_set(err, AXB_ERR_ARG, "unknown precision '%s' (expected float32 or float64)", s ? s : "(null)");
}

const char *axb_precision_name(axb_precision p)
{
    return (unsigned)p < 2 ? PRECISION_NAMES[p] : "unknown";
}

char axb_band_code(double dt)
{
    if (dt <= 0.001) return 'F';
    if (dt <= 0.004) return 'C';
    if (dt <= 0.0125) return 'H';
    if (dt <= 0.1) return 'B';
    if (dt < 1) return 'M';
    return 'L';
}

const char *axb_output_units(const char *kind)
{
    if (!kind) return NULL;
    if (strcmp(kind, "displacement") == 0) return "m";
    if (strcmp(kind, "velocity") == 0) return "m/s";
    if (strcmp(kind, "acceleration") == 0) return "m/s^2";
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Descriptor checks (every rank, no I/O: the descriptor is identical everywhere, so every rank
 * reaches the same verdict with its own message). */

static axb_status check_components(const char *c, axb_error *err)
{
    size_t n = c ? strlen(c) : 0;
    AXB_CHECK(err, n >= 1 && n <= 5, AXB_ERR_ARG, "components '%s': give 1 to 5 distinct letters of ZNERT", c ? c : "");
    for (size_t i = 0; i < n; i++) {
        AXB_CHECK(err, strchr("ZNERT", c[i]) != NULL, AXB_ERR_ARG,
                  "components '%s': unknown component '%c' (expected letters of ZNERT)", c, c[i]);
        AXB_CHECK(err, strchr(c + i + 1, c[i]) == NULL, AXB_ERR_ARG, "components '%s': component '%c' is repeated", c,
                  c[i]);
    }
    return AXB_OK;
}

static axb_status check_rows(const axb_output_desc *d, axb_error *err)
{
    AXB_CHECK(err, d->nsources >= 1 && d->sources, AXB_ERR_ARG, "no sources");
    AXB_CHECK(err, d->nreceivers >= 1 && d->receivers, AXB_ERR_ARG, "no receivers");
    AXB_CHECK(err, d->row_source && d->row_receiver, AXB_ERR_ARG, "row tables missing");
    for (int64_t i = 0; i < d->nrows; i++) {
        AXB_CHECK(err, d->row_source[i] >= 0 && d->row_source[i] < d->nsources, AXB_ERR_ARG,
                  "row %" PRId64 ": source index %" PRId64 " outside 0..%" PRId64, i, d->row_source[i],
                  d->nsources - 1);
        AXB_CHECK(err, d->row_receiver[i] >= 0 && d->row_receiver[i] < d->nreceivers, AXB_ERR_ARG,
                  "row %" PRId64 ": receiver index %" PRId64 " outside 0..%" PRId64, i, d->row_receiver[i],
                  d->nreceivers - 1);
    }
    return AXB_OK;
}

axb_status axb_out_check_desc(const axb_output_desc *d, axb_error *err)
{
    AXB_CHECK(err, d, AXB_ERR_ARG, "no output description");
    AXB_CHECK(err, d->path && d->path[0], AXB_ERR_ARG, "output path is empty");
    AXB_CHECK(err, strlen(d->path) < AXB_PARTIAL_PATH_MAX, AXB_ERR_ARG, "output path longer than %d characters",
              AXB_PARTIAL_PATH_MAX - 1);
    AXB_CHECK(err, (unsigned)d->format < 2, AXB_ERR_ARG, "unknown output format %d", (int)d->format);
    AXB_CHECK(err, (unsigned)d->precision < 2, AXB_ERR_ARG, "unknown precision %d", (int)d->precision);
    AXB_CHECK(err, d->nrows >= 1, AXB_ERR_ARG, "nrows = %" PRId64 ": nothing to write", d->nrows);
    AXB_CHECK(err, d->nsamples >= 1, AXB_ERR_ARG, "nsamples = %" PRId64 " must be at least 1", d->nsamples);
    AXB_CHECK(err, d->dt > 0 && isfinite(d->dt), AXB_ERR_ARG, "dt = %g must be positive", d->dt);
    AXB_CHECK(err, isfinite(d->start_offset), AXB_ERR_ARG, "start_offset = %g is not finite", d->start_offset);
    AXB_CHECK(err, axb_output_units(d->kind) != NULL, AXB_ERR_ARG,
              "kind '%s' (expected displacement, velocity or acceleration)", d->kind ? d->kind : "(null)");
    AXB_CHECK(err, d->database, AXB_ERR_ARG, "database path missing (provenance)");
    AXB_CHECK(err, d->checkpoint_seconds >= 0 && isfinite(d->checkpoint_seconds), AXB_ERR_ARG,
              "checkpoint_seconds = %g must be 0 or more", d->checkpoint_seconds);
    AXB_TRY(check_components(d->components, err));
    /* Keeps every dataset's byte size within what hsize_t and size_t products can hold. */
    AXB_CHECK(err, (double)d->nrows * (double)strlen(d->components) * (double)d->nsamples < 0x1p60, AXB_ERR_ARG,
              "output of %" PRId64 " rows x %" PRId64 " samples is too large", d->nrows, d->nsamples);
    return check_rows(d, err);
}

/* ---------------------------------------------------------------------------------------------
 * Identity */

/* Fields packed one after another, each string behind its length, so that a table's record is
 * hashed in one call (a call per field cost more than the hashing). */
#define PACK_BYTES 256
typedef struct packed {
    unsigned char b[PACK_BYTES];
    size_t n;
} packed;

static void pack(packed *p, const void *x, size_t len)
{
    memcpy(p->b + p->n, x, len);
    p->n += len;
}

static void pack_str(packed *p, const char *s, size_t cap)
{
    const unsigned char len = (unsigned char)strnlen(s, cap);
    pack(p, &len, 1);
    pack(p, s, len);
}

/* A checksum of the tables (not a defence against forgery, only against resuming the unfinished
 * file of another job of the same shape), field by field: the structs hold padding and pointers
 * (slip rates) that say nothing. */
static uint64_t tables_checksum(const axb_output_desc *d)
{
    _Static_assert(sizeof(int) + 13 * sizeof(double) + 1 + sizeof d->sources->name <= PACK_BYTES,
                   "a source's fields fit the packing buffer");
    _Static_assert(6 * sizeof(double) + 3 * (1 + sizeof d->receivers->network) <= PACK_BYTES,
                   "a receiver's fields fit the packing buffer");
    uint64_t h = AXB_HASH_INIT;
    for (int64_t i = 0; i < d->nsources; i++) {
        const axb_source *s = &d->sources[i];
        const int type = (int)s->type;
        packed p = {.n = 0};
        pack(&p, &type, sizeof type);
        pack(&p, &s->lat, sizeof s->lat);
        pack(&p, &s->lon, sizeof s->lon);
        pack(&p, &s->depth, sizeof s->depth);
        pack(&p, s->m, sizeof s->m);
        pack(&p, s->f, sizeof s->f);
        pack(&p, &s->origin_time, sizeof s->origin_time);
        pack_str(&p, s->name, sizeof s->name);
        h = axb_hash_bytes(h, p.b, p.n);
    }
    for (int64_t i = 0; i < d->nreceivers; i++) {
        const axb_receiver *r = &d->receivers[i];
        packed p = {.n = 0};
        pack(&p, &r->lat, sizeof r->lat);
        pack(&p, &r->lon, sizeof r->lon);
        pack(&p, &r->depth, sizeof r->depth);
        pack_str(&p, r->network, sizeof r->network);
        pack_str(&p, r->station, sizeof r->station);
        pack_str(&p, r->location, sizeof r->location);
        /* Site metadata goes into the file at creation: a resume with other values would leave
         * the old ones in place. */
        if (r->has_site) {
            const double site[3] = {r->geo_lat, r->elevation, r->burial};
            pack(&p, site, sizeof site);
        }
        h = axb_hash_bytes(h, p.b, p.n);
    }
    h = axb_hash_bytes(h, d->row_source, (size_t)d->nrows * sizeof *d->row_source);
    return axb_hash_bytes(h, d->row_receiver, (size_t)d->nrows * sizeof *d->row_receiver);
}

void axb_out_identity(const axb_output_desc *d, char *buf, size_t size)
{
    snprintf(buf, size,
             "format=%s precision=%s rows=%" PRId64 " components=%s samples=%" PRId64 " dt=%.17g start=%.17g "
             "kind=%s tables=%016" PRIx64 "%s%s",
             FORMAT_NAMES[d->format], PRECISION_NAMES[d->precision], d->nrows, d->components, d->nsamples, d->dt,
             d->start_offset, d->kind, tables_checksum(d), d->job ? " " : "", d->job ? d->job : "");
}
