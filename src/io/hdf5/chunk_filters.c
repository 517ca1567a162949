/* Decoding of fletcher32/shuffle/deflate chunks without HDF5 (see chunk_filters.h).
 *
 * Why not H5Dread_chunk + HDF5's filters: HDF5 runs its filter pipeline serially inside the
 * library lock, one chunk at a time with zlib; AxiSEM's files spend most of a read there. Here
 * each worker thread owns a decoder, and inflation uses libdeflate (whole-buffer inflation, about
 * twice zlib's speed on these chunks: docs/dependencies.md). */
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

#include "axibulk/timefmt.h"
#include "core/vector_clones.h"
#include "io/hdf5/chunk_filters.h"

struct axb_decoder {
    struct libdeflate_decompressor *inflater;
    unsigned char *buf[2];
    size_t cap;
};

bool axb_filters_get(hid_t dcpl, axb_filters *f)
{
    memset(f, 0, sizeof *f);
    const int n = H5Pget_nfilters(dcpl);
    int ndeflate = 0;
    if (n < 0 || n > AXB_FILTERS_MAX) return false;
    for (int i = 0; i < n; i++) {
        unsigned flags = 0, cd[8] = {0};
        size_t ncd = 8;
        const H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, 0, NULL, NULL);
        if (id == H5Z_FILTER_SHUFFLE) {
            /* HDF5 stores the element size as the first parameter when the dataset is created */
            if (ncd < 1 || cd[0] == 0) return false;
            f->elsize[i] = cd[0];
        } else if (id == H5Z_FILTER_DEFLATE) {
            if (ndeflate++) return false; /* the size before a second one would be unknown */
        } else if (id != H5Z_FILTER_FLETCHER32) {
            return false;
        }
        f->id[i] = (int)id;
    }
    f->n = n;
    return true;
}

axb_status axb_decoder_create(axb_decoder **out, axb_error *err)
{
    axb_decoder *d = calloc(1, sizeof *d);
    if (d) d->inflater = libdeflate_alloc_decompressor();
    if (!d || !d->inflater) {
        free(d);
        *out = NULL;
        return axb_error_set(err, AXB_ERR_NOMEM, "chunk decoder");
    }
    *out = d;
    return AXB_OK;
}

void axb_decoder_free(axb_decoder **pd)
{
    axb_decoder *d = pd ? *pd : NULL;
    if (!d) return;
    libdeflate_free_decompressor(d->inflater);
    free(d->buf[0]);
    free(d->buf[1]);
    free(d);
    *pd = NULL;
}

/* Levels 1 and 2, the light compression AxiSEM itself writes, are encoded by ISA-L's igzip: 3.3x
 * libdeflate's level 2 on merged elements of the 50 s PREM database, for a stream 2.8 % longer
 * (docs/dependencies.md). That makes `repack --deflate 2` cost about what a contiguous repack
 * does instead of being bound by compression. Levels 0 and 3-9 ask for a smaller file, which
 * libdeflate gives; it is also the fallback when igzip's stream would not fit the bound. */
#define FAST_LEVEL_MAX 2

struct axb_encoder {
    struct libdeflate_compressor *deflater;
    int isal_level;           /* 1 or 2: igzip's level of the same number; 0: libdeflate only */
    unsigned char *level_buf; /* igzip's hash tables and token buffer, kept between chunks */
    uint32_t level_buf_size;
    unsigned char *buf;
    size_t cap;
};

axb_status axb_encoder_create(int level, axb_encoder **out, axb_error *err)
{
    axb_encoder *e = calloc(1, sizeof *e);
    /* libdeflate's levels run to 12; HDF5's (zlib's) 0-9 mean the same effort below 10 */
    if (e) e->deflater = libdeflate_alloc_compressor(level < 0 ? 0 : level > 9 ? 9 : level);
    if (e && level >= 1 && level <= FAST_LEVEL_MAX) {
        e->isal_level = level;
        e->level_buf_size = level == 1 ? ISAL_DEF_LVL1_DEFAULT : ISAL_DEF_LVL2_DEFAULT;
        e->level_buf = malloc(e->level_buf_size);
    }
    if (!e || !e->deflater || (e->isal_level && !e->level_buf)) {
        if (e) libdeflate_free_compressor(e->deflater);
        if (e) free(e->level_buf);
        free(e);
        *out = NULL;
        return axb_error_set(err, AXB_ERR_NOMEM, "chunk encoder");
    }
    *out = e;
    return AXB_OK;
}

void axb_encoder_free(axb_encoder **pe)
{
    axb_encoder *e = pe ? *pe : NULL;
    if (!e) return;
    libdeflate_free_compressor(e->deflater);
    free(e->level_buf);
    free(e->buf);
    free(e);
    *pe = NULL;
}

size_t axb_encoder_bound(axb_encoder *e, size_t len)
{
    return libdeflate_zlib_compress_bound(e->deflater, len);
}

/* igzip's zlib stream of @p len bytes into @p cap bytes of @p dst; 0 when it does not fit. */
static size_t isal_compress(axb_encoder *e, const unsigned char *src, size_t len, unsigned char *dst, size_t cap)
{
    if (len > UINT32_MAX || cap > UINT32_MAX) return 0;
    struct isal_zstream z;
    isal_deflate_stateless_init(&z);
    z.level = (uint32_t)e->isal_level;
    z.level_buf = e->level_buf;
    z.level_buf_size = e->level_buf_size;
    z.gzip_flag = IGZIP_ZLIB;
    z.next_in = (uint8_t *)(uintptr_t)src; /* igzip's field is not const; it only reads */
    z.avail_in = (uint32_t)len;
    z.next_out = dst;
    z.avail_out = (uint32_t)cap;
    z.end_of_stream = 1;
    z.flush = NO_FLUSH;
    return isal_deflate_stateless(&z) == COMP_OK ? z.total_out : 0;
}

/* The shuffle filter for floats: byte planes, so deflate sees the slowly varying exponents
 * together (the len % 4 bytes left over stay as they are). Through local pointers: a store
 * through e->buf could, as far as C knows, change e->buf itself, which kept the compiler from
 * vectorising the loop when it was written inline (3 GB/s, a tenth of a --deflate 2 repack's
 * compression time). */
static void shuffle4(const unsigned char *restrict src, unsigned char *restrict dst, size_t len)
{
    const size_t n = len / 4;
    unsigned char *b0 = dst, *b1 = dst + n, *b2 = dst + 2 * n, *b3 = dst + 3 * n;
    for (size_t i = 0; i < n; i++) {
        b0[i] = src[4 * i];
        b1[i] = src[4 * i + 1];
        b2[i] = src[4 * i + 2];
        b3[i] = src[4 * i + 3];
    }
    memcpy(dst + 4 * n, src + 4 * n, len - 4 * n);
}

axb_status axb_encode_chunk(axb_encoder *e, const unsigned char *src, size_t len, unsigned char *dst, size_t *outlen,
                            axb_error *err)
{
    if (len > e->cap) {
        unsigned char *nb = realloc(e->buf, len);
        if (!nb) return axb_error_set(err, AXB_ERR_NOMEM, "chunk encoder buffer of %zu bytes", len);
        e->buf = nb;
        e->cap = len;
    }
    shuffle4(src, e->buf, len);
    const size_t bound = axb_encoder_bound(e, len);
    *outlen = e->isal_level ? isal_compress(e, e->buf, len, dst, bound) : 0;
    if (*outlen == 0) *outlen = libdeflate_zlib_compress(e->deflater, e->buf, len, dst, bound);
    if (*outlen == 0)
        return axb_error_set(err, AXB_ERR_INTERNAL, "deflate of a %zu-byte chunk did not fit its bound", len);
    return AXB_OK;
}

/* HDF5's Fletcher-32 adds big-endian 16-bit words into s1 and s1 into s2, folding both now and
 * then (x -> low 16 bits + high 16 bits). A fold keeps a sum's value modulo 65535 and keeps a
 * positive sum positive, so each final half is 0 when every word is 0 and otherwise the sum
 * modulo 65535 in 1..65535. That is computed here from blocks of FL_BLOCK words, whose plain and
 * position-weighted sums have no carried dependency and run in vector registers: 3x the
 * word-by-word loop with AVX2. (Equal to HDF5's own function on every length and pattern in
 * test_chunk_reader.) */
#define FL_BLOCK 256 /* FL_BLOCK * (FL_BLOCK + 1) / 2 * 65535 < 2^32: the weighted sum fits */

AXB_VECTOR_CLONES static void fletcher_block(const unsigned char *p, uint32_t *plain, uint32_t *weighted)
{
    uint32_t a = 0, b = 0;
    for (uint32_t i = 0; i < FL_BLOCK; i++) {
        const uint32_t w = (uint32_t)p[2 * i] << 8 | p[2 * i + 1];
        a += w;
        b += (FL_BLOCK - i) * w;
    }
    *plain = a;
    *weighted = b;
}

uint32_t axb_fletcher32(const unsigned char *p, size_t len)
{
    uint64_t s1 = 0, s2 = 0;
    uint32_t any = 0;
    size_t words = len / 2;
    for (; words >= FL_BLOCK; words -= FL_BLOCK, p += 2 * FL_BLOCK) {
        uint32_t a, b;
        fletcher_block(p, &a, &b);
        s2 = (s2 + FL_BLOCK * s1 + b) % 65535;
        s1 = (s1 + a) % 65535;
        any |= a;
    }
    for (; words; words--, p += 2) {
        const uint32_t w = (uint32_t)p[0] << 8 | p[1];
        s1 += w;
        s2 += s1;
        any |= w;
    }
    if (len % 2) {
        s1 += (uint32_t)p[0] << 8;
        s2 += s1;
        any |= p[0];
    }
    uint32_t r1 = (uint32_t)(s1 % 65535), r2 = (uint32_t)(s2 % 65535);
    if (any && !r1) r1 = 65535;
    if (any && !r2) r2 = 65535;
    return r2 << 16 | r1;
}

/* n elements of size es, stored as es planes of n bytes (and the len % es bytes left over as
 * they were), back to element order. The common float case gets its own loop: the compiler
 * turns it into shuffles of whole vectors. */
static void unshuffle(const unsigned char *src, unsigned char *dst, size_t len, unsigned es)
{
    const size_t n = len / es;
    if (es == 4) {
        const unsigned char *b0 = src, *b1 = src + n, *b2 = src + 2 * n, *b3 = src + 3 * n;
        for (size_t i = 0; i < n; i++) {
            dst[4 * i] = b0[i];
            dst[4 * i + 1] = b1[i];
            dst[4 * i + 2] = b2[i];
            dst[4 * i + 3] = b3[i];
        }
    } else {
        for (unsigned b = 0; b < es; b++)
            for (size_t i = 0; i < n; i++) dst[i * es + b] = src[b * n + i];
    }
    memcpy(dst + n * es, src + n * es, len - n * es);
}

static const char *filter_name(int id)
{
    return id == H5Z_FILTER_DEFLATE ? "deflate" : id == H5Z_FILTER_SHUFFLE ? "shuffle" : "fletcher32";
}

axb_status axb_decode_chunk(axb_decoder *d, const axb_filters *f, unsigned mask, const unsigned char *src,
                            size_t srclen, unsigned char *dst, size_t dstlen, axb_decode_times *t, axb_error *err)
{
    /* the size after each filter, from the raw size forwards (fletcher32 adds 4 bytes, shuffle
     * none): what deflate must produce, as long as no other deflate comes before it
     * (axb_filters_get allows one) */
    size_t after[AXB_FILTERS_MAX];
    size_t sz = dstlen;
    for (int i = 0; i < f->n; i++) {
        if (!(mask & (1u << i)) && f->id[i] == H5Z_FILTER_FLETCHER32) sz += 4;
        after[i] = sz;
    }
    if (sz + 8 > d->cap) {
        const size_t cap = sz + 8;
        for (int b = 0; b < 2; b++) {
            unsigned char *nb = realloc(d->buf[b], cap);
            if (!nb) return axb_error_set(err, AXB_ERR_NOMEM, "chunk decoder buffer of %zu bytes", cap);
            d->buf[b] = nb;
        }
        d->cap = cap;
    }
    const unsigned char *cur = src;
    size_t len = srclen;
    int nb = 0;
    for (int i = f->n - 1; i >= 0; i--) {
        if (mask & (1u << i)) continue;
        size_t want = i > 0 ? after[i - 1] : dstlen; /* the size before filter i */
        unsigned char *out = d->buf[nb];
        const double t0 = axb_wall_seconds();
        switch (f->id[i]) {
        case H5Z_FILTER_DEFLATE: {
            size_t got = 0;
            const enum libdeflate_result r = libdeflate_zlib_decompress(d->inflater, cur, len, out, want, &got);
            if (r != LIBDEFLATE_SUCCESS || got != want)
                return axb_error_set(err, AXB_ERR_FORMAT, "deflate stream damaged (%s)",
                                     r == LIBDEFLATE_SUCCESS                  ? "wrong size"
                                         : r == LIBDEFLATE_INSUFFICIENT_SPACE ? "longer than the chunk"
                                         : r == LIBDEFLATE_SHORT_OUTPUT       ? "shorter than the chunk"
                                                                              : "bad data");
            t->inflate += axb_wall_seconds() - t0;
            break;
        }
        case H5Z_FILTER_SHUFFLE:
            if (len != want) break; /* cannot happen: shuffle keeps the size */
            unshuffle(cur, out, len, f->elsize[i]);
            t->unshuffle += axb_wall_seconds() - t0;
            break;
        default: { /* fletcher32: the checksum trails the data it covers, little-endian: the raw
                    * data when it comes first in the pipeline (the 50 s files), the deflated
                    * stream when it comes last (the 100 s files) */
            if (len < 4) break;
            want = len - 4;
            const uint32_t stored = (uint32_t)cur[want] | (uint32_t)cur[want + 1] << 8 | (uint32_t)cur[want + 2] << 16 |
                (uint32_t)cur[want + 3] << 24;
            const uint32_t sum = axb_fletcher32(cur, want);
            t->checksum += axb_wall_seconds() - t0;
            if (sum != stored)
                return axb_error_set(err, AXB_ERR_FORMAT,
                                     "fletcher32 checksum mismatch (stored %08x, computed %08x): the chunk is damaged",
                                     stored, sum);
            len = want; /* the data stay where they are */
            continue;
        }
        }
        if (len != want && f->id[i] != H5Z_FILTER_DEFLATE)
            return axb_error_set(err, AXB_ERR_FORMAT, "%s: stored chunk of %zu bytes, expected %zu",
                                 filter_name(f->id[i]), len, want + (f->id[i] == H5Z_FILTER_FLETCHER32 ? 4 : 0));
        cur = out;
        len = want;
        nb ^= 1;
    }
    if (len != dstlen)
        return axb_error_set(err, AXB_ERR_FORMAT, "stored chunk of %zu bytes, expected %zu", len, dstlen);
    memcpy(dst, cur, dstlen);
    t->chunks++;
    t->stored_bytes += (int64_t)srclen;
    return AXB_OK;
}
