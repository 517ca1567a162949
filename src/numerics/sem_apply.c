/* Linear functionals of an element's stored samples: the last step of an extraction, where a
 * pair's interpolation weights, strain operator and source are already one weight per stored row,
 * so the samples are read once, as floats, straight from the database block. */
#include <string.h>

#include "axibulk/sem.h"
#include "core/vector_clones.h"

/* Five rows per pass over the accumulators (AxiSEM's np1): the sums stay in registers across
 * the rows and the accumulators are loaded and stored a fifth as often. */
AXB_VECTOR_CLONES static void apply1(int64_t nrows, int64_t nt, const float *restrict rows, const double *restrict w,
                                     double *restrict out, bool add)
{
    if (!add) memset(out, 0, (size_t)nt * sizeof *out);
    int64_t r = 0;
    for (; r + 5 <= nrows; r += 5) {
        const float *s0 = rows + r * nt, *s1 = s0 + nt, *s2 = s1 + nt, *s3 = s2 + nt, *s4 = s3 + nt;
        const double a0 = w[r], a1 = w[r + 1], a2 = w[r + 2], a3 = w[r + 3], a4 = w[r + 4];
        for (int64_t t = 0; t < nt; t++) out[t] += a0 * s0[t] + a1 * s1[t] + a2 * s2[t] + a3 * s3[t] + a4 * s4[t];
    }
    for (; r < nrows; r++) {
        const float *s = rows + r * nt;
        const double a = w[r];
        for (int64_t t = 0; t < nt; t++) out[t] += a * s[t];
    }
}

AXB_VECTOR_CLONES static void apply2(int64_t nrows, int64_t nt, const float *restrict rows, const double *restrict w,
                                     const double *restrict v, double *restrict out, double *restrict out2, bool add)
{
    if (!add) {
        memset(out, 0, (size_t)nt * sizeof *out);
        memset(out2, 0, (size_t)nt * sizeof *out2);
    }
    int64_t r = 0;
    for (; r + 5 <= nrows; r += 5) {
        const float *s0 = rows + r * nt, *s1 = s0 + nt, *s2 = s1 + nt, *s3 = s2 + nt, *s4 = s3 + nt;
        const double a0 = w[r], a1 = w[r + 1], a2 = w[r + 2], a3 = w[r + 3], a4 = w[r + 4];
        const double b0 = v[r], b1 = v[r + 1], b2 = v[r + 2], b3 = v[r + 3], b4 = v[r + 4];
        for (int64_t t = 0; t < nt; t++) {
            const double x0 = s0[t], x1 = s1[t], x2 = s2[t], x3 = s3[t], x4 = s4[t];
            out[t] += a0 * x0 + a1 * x1 + a2 * x2 + a3 * x3 + a4 * x4;
            out2[t] += b0 * x0 + b1 * x1 + b2 * x2 + b3 * x3 + b4 * x4;
        }
    }
    for (; r < nrows; r++) {
        const float *s = rows + r * nt;
        const double a = w[r], b = v[r];
        for (int64_t t = 0; t < nt; t++) {
            out[t] += a * s[t];
            out2[t] += b * s[t];
        }
    }
}

void axb_sem_apply_rows(int64_t nrows, int64_t nt, const float *rows, int nout, const double *const *w,
                        double *const *out, bool add)
{
    if (nout == 2)
        apply2(nrows, nt, rows, w[0], w[1], out[0], out[1], add);
    else
        apply1(nrows, nt, rows, w[0], out[0], add);
}
