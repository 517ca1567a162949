/* See merged_raw.h. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axibulk/timefmt.h"
#include "core/pread_all.h"
#include "io/db/db_names.h"
#include "io/db/merged_raw.h"
#include "io/hdf5/chunk_filters.h"
#include "io/hdf5/chunk_index.h"

/* stored bytes per pread: long enough for full disk speed */
#define RUN_MAX ((int64_t)8 << 20)

struct axb_merged_raw {
    char path[AXB_PATH_MAX];
    int fd;
    int64_t nelem, block_bytes;
    axb_filters filt;
    int64_t *addr, *size; /* per element: where its chunk is stored, -1: never written */
    uint32_t *mask;
    unsigned char *stage; /* a request's stored chunks, in request order */
    int64_t stage_cap;
    int64_t *at; /* per requested element: its chunk's offset in stage */
    int64_t at_cap;
    /* decoders kept between requests (their buffers are an element each): one per range that
     * ran at once, taken and given back under mu */
    pthread_mutex_t mu;
    axb_decoder **dec;
    int ndec, dec_cap;
};

void axb_merged_raw_close(axb_merged_raw **pr)
{
    axb_merged_raw *r = pr ? *pr : NULL;
    if (!r) return;
    if (r->fd >= 0) close(r->fd);
    for (int k = 0; k < r->ndec; k++) axb_decoder_free(&r->dec[k]);
    free(r->dec);
    pthread_mutex_destroy(&r->mu);
    free(r->addr);
    free(r->size);
    free(r->mask);
    free(r->stage);
    free(r->at);
    free(r);
    *pr = NULL;
}

/* One element per chunk, little-endian float32, filters the decoder knows. */
static bool shape_known(hid_t dset, int64_t block_bytes, axb_filters *f)
{
    hid_t dcpl = H5Dget_create_plist(dset), type = H5Dget_type(dset);
    bool ok = dcpl >= 0 && type >= 0 && H5Pget_layout(dcpl) == H5D_CHUNKED && H5Tequal(type, H5T_IEEE_F32LE) > 0 &&
        axb_filters_get(dcpl, f);
    hsize_t c[5] = {0};
    ok = ok && H5Pget_chunk(dcpl, 5, c) == 5 && c[0] == 1 &&
        (int64_t)(c[1] * c[2] * c[3] * c[4]) * (int64_t)sizeof(float) == block_bytes;
    if (type >= 0) H5Tclose(type);
    if (dcpl >= 0) H5Pclose(dcpl);
    return ok;
}

axb_status axb_merged_raw_open(const char *path, hid_t dset, int64_t nelem, int64_t block_bytes, axb_merged_raw **out,
                               axb_error *err)
{
    *out = NULL;
    axb_filters f;
    if (nelem < 1 || !shape_known(dset, block_bytes, &f)) return AXB_OK;
    axb_merged_raw *r = calloc(1, sizeof *r);
    if (!r) return axb_error_set(err, AXB_ERR_NOMEM, "%s: raw chunk reader", path);
    snprintf(r->path, sizeof r->path, "%s", path);
    pthread_mutex_init(&r->mu, NULL);
    r->fd = open(path, O_RDONLY);
    r->nelem = nelem;
    r->block_bytes = block_bytes;
    r->filt = f;
    r->addr = malloc((size_t)nelem * sizeof *r->addr);
    r->size = malloc((size_t)nelem * sizeof *r->size);
    r->mask = malloc((size_t)nelem * sizeof *r->mask);
    if (!r->addr || !r->size || !r->mask) {
        axb_merged_raw_close(&r);
        return axb_error_set(err, AXB_ERR_NOMEM, "%s: chunk index of %lld elements", path, (long long)nelem);
    }
    bool ok = false;
    axb_status st =
        r->fd >= 0 ? axb_chunk_index_read(dset, r->fd, 0, 1, nelem, r->addr, r->size, r->mask, &ok, err) : AXB_OK;
    if (st || !ok) {
        axb_merged_raw_close(&r);
        return st;
    }
    *out = r;
    return AXB_OK;
}

/* A decoder from the reader's spares, or a new one; NULL without memory. */
static axb_decoder *take_decoder(axb_merged_raw *r)
{
    axb_decoder *d = NULL;
    pthread_mutex_lock(&r->mu);
    if (r->ndec > 0) d = r->dec[--r->ndec];
    pthread_mutex_unlock(&r->mu);
    axb_error scratch = AXB_ERROR_INIT;
    if (!d && axb_decoder_create(&d, &scratch) != AXB_OK) d = NULL;
    return d;
}

static void give_decoder(axb_merged_raw *r, axb_decoder *d)
{
    pthread_mutex_lock(&r->mu);
    if (r->ndec == r->dec_cap) {
        const int cap = r->dec_cap ? 2 * r->dec_cap : 4;
        axb_decoder **n = realloc(r->dec, (size_t)cap * sizeof *n);
        if (n) {
            r->dec = n;
            r->dec_cap = cap;
        }
    }
    if (r->ndec < r->dec_cap)
        r->dec[r->ndec++] = d;
    else
        axb_decoder_free(&d);
    pthread_mutex_unlock(&r->mu);
}

typedef struct decode_ctx {
    axb_merged_raw *r;
    const int64_t *uniq;
    float *buf;
    pthread_mutex_t mu;
    axb_decode_times t; /* under mu */
    bool nomem;         /* under mu */
} decode_ctx;

/* Element k of the request decoded into its block with @p dec. */
static axb_status decode_one(const decode_ctx *x, axb_decoder *dec, int64_t k, axb_decode_times *t, axb_error *err)
{
    const axb_merged_raw *r = x->r;
    const int64_t e = x->uniq[k];
    const axb_status st = axb_decode_chunk(dec, &r->filt, r->mask[e], r->stage + r->at[k], (size_t)r->size[e],
                                           (unsigned char *)(x->buf + k * (r->block_bytes / (int64_t)sizeof(float))),
                                           (size_t)r->block_bytes, t, err);
    return st ? axb_error_prefix(err, "%s: variable '" AXB_NC_VAR_MERGED "': element %lld", r->path, (long long)e)
              : AXB_OK;
}

/* Elements [k0, k1) decoded (axb_range_fn, in the workers): the first that fails, or k1. */
static int64_t decode_some(void *vctx, int64_t k0, int64_t k1)
{
    decode_ctx *x = vctx;
    axb_error scratch = AXB_ERROR_INIT;
    axb_decoder *dec = take_decoder(x->r);
    axb_decode_times t = {0};
    int64_t k = k0;
    while (dec && k < k1 && decode_one(x, dec, k, &t, &scratch) == AXB_OK) k++;
    if (dec) give_decoder(x->r, dec);
    pthread_mutex_lock(&x->mu);
    x->t.inflate += t.inflate;
    x->t.unshuffle += t.unshuffle;
    x->t.checksum += t.checksum;
    x->t.chunks += t.chunks;
    x->t.stored_bytes += t.stored_bytes;
    if (k < k1 && !dec) x->nomem = true;
    pthread_mutex_unlock(&x->mu);
    return k;
}

static axb_status room(axb_merged_raw *r, int64_t nu, int64_t stored, axb_error *err)
{
    if (stored > r->stage_cap) {
        unsigned char *s = realloc(r->stage, (size_t)stored);
        if (!s) return axb_error_set(err, AXB_ERR_NOMEM, "%s: %lld stored bytes", r->path, (long long)stored);
        r->stage = s;
        r->stage_cap = stored;
    }
    if (nu > r->at_cap) {
        int64_t *a = realloc(r->at, (size_t)nu * sizeof *a);
        if (!a) return axb_error_set(err, AXB_ERR_NOMEM, "%s: read list of %lld elements", r->path, (long long)nu);
        r->at = a;
        r->at_cap = nu;
    }
    return AXB_OK;
}

/* Stored bytes [addr, addr + len) of the file into dst. */
static axb_status read_run(const axb_merged_raw *r, int64_t addr, int64_t len, unsigned char *dst, axb_error *err)
{
    const int e = axb_pread_all(r->fd, dst, (size_t)len, addr);
    if (e > 0)
        return axb_error_set(err, AXB_ERR_IO, "%s: read of %lld bytes at offset %lld: %s", r->path, (long long)len,
                             (long long)addr, strerror(e));
    if (e < 0)
        return axb_error_set(err, AXB_ERR_FORMAT,
                             "%s: truncated: element data end at offset %lld, after the file's end", r->path,
                             (long long)(addr + len));
    return AXB_OK;
}

axb_status axb_merged_raw_read(axb_merged_raw *r, int64_t nu, const int64_t *uniq, float *buf, axb_pool *pool,
                               int64_t nranges, axb_io_stats *stats, axb_error *err)
{
    int64_t stored = 0;
    for (int64_t k = 0; k < nu; k++) {
        const int64_t e = uniq[k];
        if (e < 0 || e >= r->nelem || r->addr[e] < 0)
            return axb_error_set(err, AXB_ERR_FORMAT,
                                 "%s: variable '" AXB_NC_VAR_MERGED "': element %lld has no stored data (the file is "
                                 "incomplete)",
                                 r->path, (long long)e);
        stored += r->size[e];
    }
    AXB_TRY(room(r, nu, stored, err));
    /* runs of chunks adjacent in the file, one pread each */
    const double t0 = axb_wall_seconds();
    int64_t pos = 0;
    for (int64_t k = 0; k < nu;) {
        int64_t n = 1, len = r->size[uniq[k]];
        while (k + n < nu && r->addr[uniq[k + n]] == r->addr[uniq[k]] + len && len + r->size[uniq[k + n]] <= RUN_MAX)
            len += r->size[uniq[k + n++]];
        AXB_TRY(read_run(r, r->addr[uniq[k]], len, r->stage + pos, err));
        for (int64_t j = 0; j < n; j++) {
            r->at[k + j] = pos;
            pos += r->size[uniq[k + j]];
        }
        stats->read_calls++;
        k += n;
    }
    stats->read_s += axb_wall_seconds() - t0;
    stats->bytes_read += stored;
    decode_ctx x = {.r = r, .uniq = uniq, .buf = buf};
    pthread_mutex_init(&x.mu, NULL);
    const int64_t bad = axb_pool_first_failure(pool, nu, nranges, 2, decode_some, &x);
    pthread_mutex_destroy(&x.mu);
    stats->inflate_s += x.t.inflate;
    stats->unshuffle_s += x.t.unshuffle;
    stats->checksum_s += x.t.checksum;
    stats->chunks_decoded += x.t.chunks;
    stats->stored_bytes += x.t.stored_bytes;
    if (bad >= nu) return AXB_OK;
    if (x.nomem) return axb_error_set(err, AXB_ERR_NOMEM, "%s: chunk decoder", r->path);
    /* the failure's message, from this thread */
    axb_decoder *dec = take_decoder(r);
    if (!dec) return axb_error_set(err, AXB_ERR_NOMEM, "%s: chunk decoder", r->path);
    axb_decode_times t = {0};
    axb_status st = decode_one(&x, dec, bad, &t, err);
    give_decoder(r, dec);
    return st
        ? st
        : axb_error_set(err, AXB_ERR_FORMAT, "%s: element %lld could not be decoded", r->path, (long long)uniq[bad]);
}
