/* Element checksums and the finiteness check (db_integrity.h). */
#include "io/db/db_integrity.h"

#include <isa-l/crc.h>
#include <string.h>

#include "core/vector_clones.h"

/* The stored checksum covers the file's little-endian bytes; computing it on the values in memory
 * is the same only on a little-endian machine. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "element checksums assume little-endian floats");

uint32_t axb_elem_crc32(const float *x, int64_t n)
{
    /* ISA-L's gzip CRC-32 (the same polynomial and conditioning as zlib's and libdeflate's) folds
     * 64 bytes at a time with carry-less multiplies where the CPU has them: 54 GB/s on an
     * element in cache here against libdeflate 1.14's 13, which made the check a tenth of a
     * one-core extraction (docs/dependencies.md) */
    return crc32_gzip_refl(0, (const unsigned char *)x, (uint64_t)n * sizeof(float));
}

/* Every element an extraction reads passes here (5 % of a one-core run on the 25 s database):
 * compiled for the widest vectors the CPU has. */
AXB_VECTOR_CLONES int64_t axb_first_nonfinite(const float *x, int64_t n)
{
    /* a float is NaN or infinite when its exponent bits are all set; OR-ing a flag per value over
     * blocks without a branch lets the compiler vectorise the common case (all finite) */
    const int64_t blk = 1024;
    for (int64_t b = 0; b < n; b += blk) {
        const int64_t e = b + blk < n ? b + blk : n;
        uint32_t any = 0;
        for (int64_t k = b; k < e; k++) {
            uint32_t u;
            memcpy(&u, x + k, sizeof u);
            any |= (uint32_t)((u & 0x7f800000u) == 0x7f800000u);
        }
        if (any)
            for (int64_t k = b; k < e; k++) {
                uint32_t u;
                memcpy(&u, x + k, sizeof u);
                if ((u & 0x7f800000u) == 0x7f800000u) return k;
            }
    }
    return -1;
}
