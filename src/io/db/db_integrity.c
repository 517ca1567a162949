/* Element checksums and the finiteness check (db_integrity.h). */
#include "io/db/db_integrity.h"

#include <isa-l/crc.h>
#include <string.h>

#include "core/vector_clones.h"

/* The stored checksum covers the file's little-endian bytes; computing it on the values in memory
 * is the same only on a little-endian machine. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "element checksums assume little-endian floats");

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* Fold constants of the gzip polynomial for lanes D bits apart: reflect32(x^(D+32) mod P) << 1
 * multiplies a 128-bit lane's low half, reflect32(x^(D-32) mod P) << 1 its high half (the same
 * convention as the 512- and 128-bit constants of the published PCLMULQDQ folding). */
#define K1024_LO 0x1e88ef372
#define K1024_HI 0x14a7fe880
#define K256_LO 0x0f1da05aa
#define K256_HI 0x15a546366
#define K128_LO 0x1751997d0
#define K128_HI 0x0ccaa009e

/* Each 128-bit lane of y moved D bits on (k: that distance's constants) and added to d. */
#define FOLD256(y, k, d)                                                                                               \
    _mm256_xor_si256(                                                                                                  \
        _mm256_xor_si256(_mm256_clmulepi64_epi128((y), (k), 0x00), _mm256_clmulepi64_epi128((y), (k), 0x11)), (d))

/* CRC-32 of p[0..n), n >= 128, with 256-bit carry-less multiplies: four 32-byte accumulators fold
 * 128 bytes per step, then fold into one 16-byte value that, followed by the tail, has the
 * message's CRC. Why: ISA-L 2.30 uses such wide multiplies only with AVX-512; CPUs that have
 * VPCLMULQDQ with AVX2 alone (AMD Zen 3, Intel's client cores) got its 16-byte folding at
 * about 9 GB/s, a sixth of a one-core merged extraction on the 20 s PREM database. */
__attribute__((target("avx2,pclmul,vpclmulqdq"))) static uint32_t crc32_fold(const unsigned char *p, size_t n)
{
    const __m256i k1024 = _mm256_set_epi64x(K1024_HI, K1024_LO, K1024_HI, K1024_LO);
    const __m256i k256 = _mm256_set_epi64x(K256_HI, K256_LO, K256_HI, K256_LO);
    const __m128i k128 = _mm_set_epi64x(K128_HI, K128_LO);
    __m256i y0 = _mm256_loadu_si256((const __m256i *)p), y1 = _mm256_loadu_si256((const __m256i *)(p + 32));
    __m256i y2 = _mm256_loadu_si256((const __m256i *)(p + 64)), y3 = _mm256_loadu_si256((const __m256i *)(p + 96));
    /* zlib's initial value, all ones, is the same as the first four bytes inverted */
    y0 = _mm256_xor_si256(y0, _mm256_set_epi32(0, 0, 0, 0, 0, 0, 0, -1));
    p += 128;
    n -= 128;
    for (; n >= 128; p += 128, n -= 128) {
        y0 = FOLD256(y0, k1024, _mm256_loadu_si256((const __m256i *)p));
        y1 = FOLD256(y1, k1024, _mm256_loadu_si256((const __m256i *)(p + 32)));
        y2 = FOLD256(y2, k1024, _mm256_loadu_si256((const __m256i *)(p + 64)));
        y3 = FOLD256(y3, k1024, _mm256_loadu_si256((const __m256i *)(p + 96)));
    }
    __m256i y = FOLD256(y0, k256, y1);
    y = FOLD256(y, k256, y2);
    y = FOLD256(y, k256, y3);
    const __m128i lo = _mm256_castsi256_si128(y);
    const __m128i x =
        _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(lo, k128, 0x00), _mm_clmulepi64_si128(lo, k128, 0x11)),
                      _mm256_extracti128_si256(y, 1));
    /* the folded value and the tail: their CRC with no initial inversion (ISA-L inverts the value
     * it is given, so all ones) and zlib's final one */
    unsigned char rest[16 + 128];
    _mm_storeu_si128((__m128i *)rest, x);
    memcpy(rest + 16, p, n);
    return crc32_gzip_refl(0xffffffffu, rest, 16 + n);
}

bool axb_crc32_fold_available(void)
{
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("vpclmulqdq");
}

uint32_t axb_crc32_fold(const void *p, size_t n)
{
    return n >= 128 ? crc32_fold(p, n) : crc32_gzip_refl(0, p, n);
}
#else
bool axb_crc32_fold_available(void)
{
    return false;
}

uint32_t axb_crc32_fold(const void *p, size_t n)
{
    return crc32_gzip_refl(0, p, n);
}
#endif

uint32_t axb_elem_crc32(const float *x, int64_t n)
{
    /* ISA-L's gzip CRC-32 (the same polynomial and conditioning as zlib's and libdeflate's) folds
     * 64 bytes at a time with AVX-512 carry-less multiplies where the CPU has them: 54 GB/s on an
     * element in cache on such a machine against libdeflate 1.14's 13, which made the check a
     * tenth of a one-core extraction (docs/dependencies.md). Without AVX-512 but with VPCLMULQDQ,
     * the 256-bit folding above. */
    const size_t len = (size_t)n * sizeof(float);
#if defined(__x86_64__) && defined(__GNUC__)
    if (len >= 256 && !__builtin_cpu_supports("avx512f") && axb_crc32_fold_available())
        return crc32_fold((const unsigned char *)x, len);
#endif
    return crc32_gzip_refl(0, (const unsigned char *)x, (uint64_t)len);
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
