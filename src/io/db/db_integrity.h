/* Integrity of element data as read from a database: the per-element checksum of merged files
 * (written by merged_write.c, verified by db_merged.c) and the refusal of non-finite values,
 * which no database legitimately holds and which would otherwise turn whole seismograms into NaN. */
#ifndef AXB_IO_DB_INTEGRITY_H
#define AXB_IO_DB_INTEGRITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CRC-32 (the zlib/gzip polynomial) of the @p n float32 values at @p x, as little-endian bytes
 * (the machine's order: axibulk builds only where floats are little-endian, see below). */
uint32_t axb_elem_crc32(const float *x, int64_t n);

/* The same CRC-32 (zlib's, initial value 0) of p[0..n) by the 256-bit carry-less folding that
 * axb_elem_crc32 uses on CPUs with VPCLMULQDQ and AVX2 but no AVX-512; callable (for tests)
 * wherever axb_crc32_fold_available() says the CPU has those instructions. */
bool axb_crc32_fold_available(void);
uint32_t axb_crc32_fold(const void *p, size_t n);

/* Index of the first NaN or infinity among x[0..n), or -1 when there is none. */
int64_t axb_first_nonfinite(const float *x, int64_t n);

#endif
