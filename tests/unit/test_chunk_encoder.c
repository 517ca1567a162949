/* The chunk encoder of io/hdf5/chunk_filters.h (the chunks of `repack --deflate N` and of mkdb's
 * compressed merged files) against HDF5's own filter pipeline, the decoder every client of those
 * files uses: each chunk axb_encode_chunk makes is stored with H5Dwrite_chunk in a dataset
 * declared shuffle + deflate, read back with H5Dread (HDF5 inflates with zlib and unshuffles) and
 * must come back bit for bit; the encoder's decoding twin axb_decode_chunk must agree too. Every
 * level 0-9 (1 and 2 are encoded by ISA-L's igzip, the others by libdeflate), on a smooth
 * decaying wavefield like a merged element's, on all zeros, and on random bytes that deflate
 * cannot shrink (igzip then falls back within the encoder's bound). AxiSEM's own pipeline
 * (fletcher32 first, then shuffle and deflate: the decoder puts the data straight into the
 * caller's buffer and checks them there) against HDF5 too, and a chunk whose stream is sound but
 * whose checksum is not must be refused by name. */
#include <hdf5.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "io/hdf5/chunk_filters.h"

enum { NF = 5 * 5 * 5 * 146 }; /* one element of the 50 s PREM database's merged copy */

static void fill(float *v, int kind, uint64_t *x)
{
    for (int i = 0; i < NF; i++) {
        const int t = i % 146, p = i / 146;
        if (kind == 0)
            v[i] = (float)(1e-7 * exp(-0.02 * t) * sin(0.3 * t + 0.1 * p) * (1 + p % 7));
        else if (kind == 1)
            v[i] = 0.0f;
        else {
            uint32_t w;
            *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
            w = (uint32_t)(*x >> 11);
            memcpy(&v[i], &w, sizeof w);
        }
    }
}

/* A file with one chunked dataset of NF floats, shuffle + deflate at @p level. */
static hid_t make_dataset(const char *path, int level, hid_t *file)
{
    const hsize_t n = NF;
    *file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t space = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &n);
    H5Pset_shuffle(dcpl);
    H5Pset_deflate(dcpl, (unsigned)level);
    const hid_t d = H5Dcreate2(*file, "v", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    H5Sclose(space);
    return d;
}

/* HDF5's own Fletcher-32 (exported by the library; tests/unit/test_chunk_reader.c uses it too). */
uint32_t H5_checksum_fletcher32(const void *data, size_t len);

/* Data + their Fletcher-32 (little-endian, as HDF5's filter appends it), shuffled and deflated
 * by the encoder: a chunk of AxiSEM's pipeline. With @p wrong, the checksum is off by one. */
static void checksummed(check_ctx *T, const char *path, const float *in, axb_encoder *enc, axb_decoder *dec, bool wrong)
{
    const size_t raw = NF * sizeof(float);
    unsigned char *plain = malloc(raw + 4), *stored = malloc(axb_encoder_bound(enc, raw + 4));
    float *out = malloc(raw);
    if (!plain || !stored || !out) {
        CHECK_MSG(T, 0, "allocation");
        free(plain), free(stored), free(out);
        return;
    }
    memcpy(plain, in, raw);
    const uint32_t sum = H5_checksum_fletcher32(in, raw) + (wrong ? 1u : 0u);
    for (int b = 0; b < 4; b++) plain[raw + (size_t)b] = (unsigned char)(sum >> (8 * b));
    size_t len = 0;
    axb_error err = AXB_ERROR_INIT;
    CHECK_MSG(T, axb_encode_chunk(enc, plain, raw + 4, stored, &len, &err) == AXB_OK, "%s", err.msg);
    const axb_filters axisem = {3, {H5Z_FILTER_FLETCHER32, H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE}, {0, 4, 0}};
    axb_decode_times times = {0};
    memset(out, 0xab, raw);
    const axb_status st = axb_decode_chunk(dec, &axisem, 0, stored, len, (unsigned char *)out, raw, &times, &err);
    if (wrong) {
        CHECK_MSG(T, st == AXB_ERR_FORMAT, "a wrong checksum decoded: status %d", (int)st);
        CHECK_CONTAINS(T, err.msg, "fletcher32 checksum mismatch");
    } else {
        CHECK_MSG(T, st == AXB_OK && memcmp(in, out, raw) == 0, "AxiSEM's pipeline: %s", err.msg);
        CHECK(T, times.chunks == 1 && times.stored_bytes == (int64_t)len);
    }
    /* HDF5, given the same stored chunk in a dataset declared as AxiSEM declares its own */
    const hsize_t n = NF, off = 0;
    const hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t space = H5Screate_simple(1, &n, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &n);
    H5Pset_fletcher32(dcpl);
    H5Pset_shuffle(dcpl);
    H5Pset_deflate(dcpl, 2);
    const hid_t d = H5Dcreate2(f, "v", H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    const bool read = d >= 0 && H5Dwrite_chunk(d, H5P_DEFAULT, 0, &off, len, stored) >= 0 &&
        H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) >= 0;
    if (wrong)
        CHECK_MSG(T, !read, "HDF5 read a chunk with a wrong checksum");
    else
        CHECK_MSG(T, read && memcmp(in, out, raw) == 0, "HDF5 reads other values from AxiSEM's pipeline");
    if (d >= 0) H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    if (f >= 0) H5Fclose(f);
    free(plain);
    free(stored);
    free(out);
}

int main(void)
{
    check_ctx T = {0, 0, 0};
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    const char *base = getenv("TMPDIR");
    char path[600];
    snprintf(path, sizeof path, "%s/axb-encoder-%ld.h5", base && *base ? base : "/tmp", (long)getpid());
    float *in = malloc(NF * sizeof *in), *back = malloc(NF * sizeof *back), *mine = malloc(NF * sizeof *mine);
    uint64_t x = 88172645463325252u;
    axb_decoder *dec = NULL;
    axb_error err = AXB_ERROR_INIT;
    CHECK(&T, in && back && mine && axb_decoder_create(&dec, &err) == AXB_OK);
    const axb_filters pipeline = {2, {H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE}, {4, 0}};
    for (int level = 0; level <= 9 && dec; level++) {
        axb_encoder *enc = NULL;
        CHECK_MSG(&T, axb_encoder_create(level, &enc, &err) == AXB_OK, "level %d: %s", level, err.msg);
        if (!enc) continue;
        const size_t cap = axb_encoder_bound(enc, NF * sizeof(float));
        unsigned char *stored = malloc(cap);
        for (int kind = 0; kind < 3 && stored; kind++) {
            fill(in, kind, &x);
            size_t len = 0;
            const axb_status st =
                axb_encode_chunk(enc, (const unsigned char *)in, NF * sizeof(float), stored, &len, &err);
            CHECK_MSG(&T, st == AXB_OK && len > 0 && len <= cap, "level %d, data %d: status %d, %zu of %zu bytes: %s",
                      level, kind, (int)st, len, cap, err.msg);
            if (st) continue;
            /* a smooth field shrinks (its exponent and high mantissa planes), zeros to almost
             * nothing (level 0 stores); random bytes cannot */
            const size_t raw = NF * sizeof(float);
            if (level > 0 && kind < 2)
                CHECK_MSG(&T, len < (kind == 0 ? raw * 9 / 10 : raw / 100), "level %d, data %d: %zu bytes", level, kind,
                          len);
            hid_t f = -1;
            const hid_t d = make_dataset(path, level, &f);
            const hsize_t off = 0;
            memset(back, 0xab, NF * sizeof *back);
            CHECK_MSG(&T,
                      d >= 0 && H5Dwrite_chunk(d, H5P_DEFAULT, 0, &off, len, stored) >= 0 &&
                          H5Dread(d, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) >= 0,
                      "level %d, data %d: HDF5 could not store or read the chunk", level, kind);
            CHECK_MSG(&T, memcmp(in, back, NF * sizeof *in) == 0, "level %d, data %d: HDF5 reads other values", level,
                      kind);
            if (d >= 0) H5Dclose(d);
            if (f >= 0) H5Fclose(f);
            memset(mine, 0xab, NF * sizeof *mine);
            axb_decode_times times = {0};
            CHECK_MSG(&T,
                      axb_decode_chunk(dec, &pipeline, 0, stored, len, (unsigned char *)mine, NF * sizeof(float),
                                       &times, &err) == AXB_OK &&
                          memcmp(in, mine, NF * sizeof *in) == 0,
                      "level %d, data %d: axb_decode_chunk: %s", level, kind, err.msg);
        }
        free(stored);
        axb_encoder_free(&enc);
    }
    axb_encoder *enc2 = NULL;
    if (dec && axb_encoder_create(2, &enc2, &err) == AXB_OK) {
        for (int kind = 0; kind < 3; kind += 2) {
            fill(in, kind, &x);
            checksummed(&T, path, in, enc2, dec, false);
            checksummed(&T, path, in, enc2, dec, true);
        }
    }
    axb_encoder_free(&enc2);
    axb_decoder_free(&dec);
    unlink(path);
    free(in);
    free(back);
    free(mine);
    return check_summary(&T);
}
