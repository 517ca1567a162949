/* io/db/db_integrity.h: the checks every element read passes.
 *
 * axb_elem_crc32 against the bit-by-bit CRC-32 of support/ref_crc32.h (zlib's), on every float
 * count from 0 to 1,100 (lengths below, at and past the 64-byte blocks an accelerated CRC folds,
 * with every tail), from blocks that start 16-byte aligned and 4 bytes past it, and on one
 * element of the 25 s database's size
 * (147,500 bytes); the 256-bit folding used on CPUs without AVX-512 also directly, byte by byte
 * from 0 to 4,400 at offsets 0-3, where the CPU has it; plus the standard check value of "123456789" (0xCBF43926), which the reference
 * must give first. A flipped bit anywhere must change it.
 *
 * axb_first_nonfinite: the index of the first NaN or infinity (either sign, quiet or signalling,
 * with any payload) placed before, at and after the scan's 1,024-value blocks; -1 when all values
 * are finite, the largest finite floats, subnormals and negative zero among them. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "io/db/db_integrity.h"
#include "support/ref_crc32.h"

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void crc_matches_reference(check_ctx *T)
{
    CHECK_MSG(T, axb_test_crc32((const unsigned char *)"123456789", 9) == 0xcbf43926u, "the reference is not CRC-32");
    const int64_t nmax = 1100, big = 147500 / 4;
    float *buf = malloc((size_t)(big + 1) * sizeof *buf);
    CHECK(T, buf != NULL);
    if (!buf) return;
    uint64_t s = 0x9e3779b97f4a7c15u; /* xorshift: any bit pattern, NaNs included */
    for (int64_t i = 0; i < big + 1; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        buf[i] = from_bits((uint32_t)(s >> 16));
    }
    int wrong = 0;
    for (int off = 0; off <= 1; off++)
        for (int64_t n = 0; n <= nmax; n++) {
            const float *x = off ? buf + 1 : buf; /* malloc's block is 16-byte aligned */
            const uint32_t mine = axb_elem_crc32(x, n), ref = axb_test_crc32((const unsigned char *)x, (size_t)n * 4);
            if (mine != ref && wrong++ < 5)
                fprintf(stderr, "%lld floats at offset %d: %08x, reference %08x\n", (long long)n, 4 * off, mine, ref);
        }
    CHECK_MSG(T, wrong == 0, "%d of %lld lengths differ from the reference", wrong, 2 * (long long)(nmax + 1));
    const uint32_t whole = axb_elem_crc32(buf, big);
    CHECK(T, whole == axb_test_crc32((const unsigned char *)buf, (size_t)big * 4));
    /* one flipped bit, at the start, in the middle and in the last byte */
    const size_t at[3] = {0, (size_t)big * 2 + 1, (size_t)big * 4 - 1};
    for (int k = 0; k < 3; k++) {
        unsigned char *b = (unsigned char *)buf;
        b[at[k]] ^= 0x10;
        CHECK_MSG(T, axb_elem_crc32(buf, big) != whole, "a bit flipped at byte %zu goes unnoticed", at[k]);
        b[at[k]] ^= 0x10;
    }
    free(buf);
}

/* The 256-bit folding itself, on every byte length from 0 to 4,400 at byte offsets 0 to 3 (the
 * element check takes it only without AVX-512, so it is called directly here wherever the CPU
 * has its instructions). */
static void fold_matches_reference(check_ctx *T)
{
    if (!axb_crc32_fold_available()) {
        printf("the CPU has no VPCLMULQDQ with AVX2: the 256-bit folding is not exercised here\n");
        return;
    }
    const size_t nmax = 4400;
    unsigned char *buf = malloc(nmax + 4);
    CHECK(T, buf != NULL);
    if (!buf) return;
    uint64_t s = 0x243f6a8885a308d3u;
    for (size_t i = 0; i < nmax + 4; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        buf[i] = (unsigned char)(s >> 24);
    }
    int wrong = 0;
    for (size_t off = 0; off < 4; off++)
        for (size_t n = 0; n <= nmax; n++) {
            const uint32_t mine = axb_crc32_fold(buf + off, n), ref = axb_test_crc32(buf + off, n);
            if (mine != ref && wrong++ < 5)
                fprintf(stderr, "fold: %zu bytes at offset %zu: %08x, reference %08x\n", n, off, mine, ref);
        }
    CHECK_MSG(T, wrong == 0, "the folding differs from the reference on %d lengths", wrong);
    free(buf);
}

/* Value i of the all-finite array: the extremes of the finite floats among ordinary ones. */
static float finite_value(int64_t i)
{
    const uint32_t special[5] = {0x80000000u /* -0 */, 0x7f7fffffu, 0xff7fffffu, 0x00000001u, 0x807fffffu};
    return i % 6 == 0 ? (float)i * 0.25f : from_bits(special[i % 6 - 1]);
}

static void nonfinite_found_first(check_ctx *T)
{
    const int64_t n = 3000;
    float *x = malloc((size_t)n * sizeof *x);
    CHECK(T, x != NULL);
    if (!x) return;
    for (int64_t i = 0; i < n; i++) x[i] = finite_value(i);
    CHECK(T, axb_first_nonfinite(x, n) == -1);
    CHECK(T, axb_first_nonfinite(x, 0) == -1);
    const uint32_t bad[5] = {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u};
    const int64_t pos[8] = {0, 1, 1023, 1024, 1025, 2047, 2048, n - 1};
    for (int k = 0; k < 5; k++)
        for (int p = 0; p < 8; p++) {
            x[pos[p]] = from_bits(bad[k]);
            const int64_t got = axb_first_nonfinite(x, n);
            CHECK_MSG(T, got == pos[p], "%08x at %lld: found at %lld", bad[k], (long long)pos[p], (long long)got);
            /* a later one does not hide it, an earlier one comes first */
            if (pos[p] + 5 < n) {
                x[pos[p] + 5] = from_bits(bad[(k + 1) % 5]);
                CHECK(T, axb_first_nonfinite(x, n) == pos[p]);
                x[pos[p] + 5] = finite_value(pos[p] + 5);
            }
            /* a scan that stops before it does not see it */
            CHECK(T, axb_first_nonfinite(x, pos[p]) == -1);
            x[pos[p]] = finite_value(pos[p]);
        }
    free(x);
}

int main(void)
{
    check_ctx t = {0};
    crc_matches_reference(&t);
    fold_matches_reference(&t);
    nonfinite_found_first(&t);
    return check_summary(&t);
}
