/* core/transpose.h against the definition dst[c][r] = src[r][c], value by value: shapes around
 * the 8 x 8 tiles (smaller than a tile, exact multiples, ragged edges, AxiSEM's 295 x 27 and
 * 146 x 56 chunks), a block taken out of a wider matrix (lds > cols, ldd > rows), sources at
 * every byte offset (a chunk stored at an odd file address) and bit patterns that are not
 * ordinary numbers (NaN payloads, infinities, subnormals, -0): they must arrive bit for bit.
 * The destination's padding must stay untouched. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/transpose.h"

static uint32_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*s >> 32);
}

static void check_shape(check_ctx *T, int64_t rows, int64_t cols, int64_t lds, int64_t ldd, size_t offset,
                        uint64_t seed)
{
    const size_t sbytes = (size_t)(rows * lds) * 4 + offset;
    unsigned char *raw = malloc(sbytes);
    uint32_t *want = malloc((size_t)(rows * cols) * sizeof *want);
    const int64_t dn = cols * ldd;
    float *dst = malloc((size_t)dn * sizeof *dst);
    if (!raw || !want || !dst) {
        CHECK_MSG(T, 0, "allocation of a %lld x %lld case", (long long)rows, (long long)cols);
        free(raw), free(want), free(dst);
        return;
    }
    static const uint32_t odd[] = {0x7fc00001u, 0xffa00000u, 0x7f800000u, 0xff800000u, 0x00000001u, 0x80000000u};
    for (size_t i = 0; i < sbytes; i++) raw[i] = (unsigned char)next(&seed);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++) {
            uint32_t v = next(&seed);
            if (v % 17 == 0) v = odd[v % (sizeof odd / sizeof *odd)];
            memcpy(raw + offset + (size_t)(r * lds + c) * 4, &v, 4);
            want[c * rows + r] = v;
        }
    memset(dst, 0xA5, (size_t)dn * sizeof *dst);
    axb_transpose_f32(rows, cols, raw + offset, lds, dst, ldd);
    int64_t bad = 0, pad = 0;
    for (int64_t c = 0; c < cols; c++)
        for (int64_t r = 0; r < ldd; r++) {
            uint32_t got;
            memcpy(&got, dst + c * ldd + r, 4);
            if (r < rows && got != want[c * rows + r]) bad++;
            if (r >= rows && got != 0xA5A5A5A5u) pad++;
        }
    CHECK_MSG(T, bad == 0 && pad == 0, "%lld x %lld (lds %lld, ldd %lld, offset %zu): %lld values wrong, %lld padding",
              (long long)rows, (long long)cols, (long long)lds, (long long)ldd, offset, (long long)bad, (long long)pad);
    free(raw);
    free(want);
    free(dst);
}

int main(void)
{
    check_ctx t = {0};
    uint64_t seed = 12345;
    const int64_t dims[] = {1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 27, 56};
    const int nd = (int)(sizeof dims / sizeof *dims);
    for (int a = 0; a < nd; a++)
        for (int b = 0; b < nd; b++) check_shape(&t, dims[a], dims[b], dims[b], dims[a], 0, seed++);
    /* AxiSEM's chunks: a run of 25 points out of 27 or 56, into columns of a longer buffer */
    for (size_t off = 0; off < 4; off++) {
        check_shape(&t, 295, 25, 27, 295, off, seed++);
        check_shape(&t, 146, 56, 56, 146, off, seed++);
        check_shape(&t, 146, 13, 56, 150, off + 1, seed++);
    }
    check_shape(&t, 363, 27, 27, 363, 0, seed++);
    /* nothing to do: nothing written */
    float untouched = 1.5f;
    axb_transpose_f32(0, 5, &untouched, 5, &untouched, 1);
    axb_transpose_f32(5, 0, &untouched, 1, &untouched, 5);
    CHECK(&t, untouched == 1.5f);
    return check_summary(&t);
}
