/* Element checksums and the finiteness check (db_integrity.h). */
#include "io/db/db_integrity.h"

#include <libdeflate.h>
#include <string.h>

#include "core/vector_clones.h"

/* The stored checksum covers the file's little-endian bytes; computing it on the values in memory
 * is the same only on a little-endian machine. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "element checksums assume little-endian floats");

uint32_t axb_elem_crc32(const float *x, int64_t n)
{
    /* libdeflate takes size_t lengths; blocks are far below any limit, but stay exact */
    uint32_t crc = 0;
    const unsigned char *p = (const unsigned char *)x;
    for (size_t left = (size_t)n * sizeof(float); left > 0;) {
        const size_t step = left > ((size_t)1 << 30) ? ((size_t)1 << 30) : left;
        crc = libdeflate_crc32(crc, p, step);
        p += step;
        left -= step;
    }
    return crc;
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
