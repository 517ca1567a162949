/* HDF5 filter pipelines decoded outside HDF5: the filters AxiSEM and netCDF-4 use (fletcher32,
 * shuffle, deflate), so stored chunks can be verified and decoded in worker threads instead of
 * HDF5's serial filter pipeline. Bit-identical to HDF5's own decoding (tests/test_chunk_filters.c
 * compares them chunk by chunk). */
#ifndef AXB_IO_CHUNK_FILTERS_H
#define AXB_IO_CHUNK_FILTERS_H

#include <hdf5.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "axibulk/status.h"

#define AXB_FILTERS_MAX 8

/* A dataset's pipeline in write order (HDF5 decodes it backwards). */
typedef struct axb_filters {
    int n;
    int id[AXB_FILTERS_MAX];          /* H5Z_FILTER_FLETCHER32, _SHUFFLE or _DEFLATE */
    unsigned elsize[AXB_FILTERS_MAX]; /* shuffle: the element size */
} axb_filters;

/* Seconds spent per stage (one decoder's share). */
typedef struct axb_decode_times {
    double inflate, unshuffle, checksum;
    int64_t chunks, stored_bytes;
} axb_decode_times;

/* The pipeline of a dataset creation property list; false when it holds a filter this decoder does
 * not know (szip, n-bit, scale-offset, plugins, ...): such datasets keep HDF5's path. */
bool axb_filters_get(hid_t dcpl, axb_filters *f);

/* One thread's decoder: the inflater and two scratch buffers. Not for use by several threads.
 * Stage times are added to the caller's @p t (its own, or one under its lock). */
typedef struct axb_decoder axb_decoder;
axb_status axb_decoder_create(axb_decoder **out, axb_error *err);
void axb_decoder_free(axb_decoder **d);

/* Decodes one stored chunk: @p src (@p srclen bytes as stored, @p mask the chunk's filter mask:
 * bit i set = filter i was skipped when it was written) into @p dst, exactly @p dstlen bytes.
 * A fletcher32 mismatch, a damaged deflate stream or a size that does not come out right is
 * AXB_ERR_FORMAT ("fletcher32 checksum mismatch", ...); the caller names file, variable, chunk. */
axb_status axb_decode_chunk(axb_decoder *d, const axb_filters *f, unsigned mask, const unsigned char *src,
                            size_t srclen, unsigned char *dst, size_t dstlen, axb_decode_times *t, axb_error *err);

/* One thread's encoder for the pipeline shuffle (element size 4) + deflate at one level, the
 * chunks of merged files: the zlib streams HDF5's deflate filter reads. Levels 1 and 2 are
 * encoded by ISA-L's igzip (fast), the others by libdeflate (chunk_filters.c says why). */
typedef struct axb_encoder axb_encoder;
axb_status axb_encoder_create(int level, axb_encoder **out, axb_error *err);
void axb_encoder_free(axb_encoder **e);
/* The largest stored chunk of @p len raw bytes. */
size_t axb_encoder_bound(axb_encoder *e, size_t len);
/* Shuffles and deflates @p len bytes of @p src into @p dst (axb_encoder_bound bytes); *outlen. */
axb_status axb_encode_chunk(axb_encoder *e, const unsigned char *src, size_t len, unsigned char *dst, size_t *outlen,
                            axb_error *err);

/* HDF5's fletcher32 of @p len bytes (16-bit big-endian words, an odd last byte padded). */
uint32_t axb_fletcher32(const unsigned char *p, size_t len);

#endif
