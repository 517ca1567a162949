#include "numerics/qmc.h"

static double radical_inverse(uint64_t n, unsigned base)
{
    const double inv = 1.0 / base;
    double f = inv, x = 0.0;
    for (; n; n /= base, f *= inv) x += f * (double)(n % base);
    return x;
}

/* Direction numbers v_i = m_i / 2^i of one Sobol' dimension, from its primitive polynomial of
 * degree s with inner coefficients a (bit s-1-j is a_j+1) and initial odd m_1..m_s. */
static void sobol_directions(int s, unsigned a, const uint32_t *m0, uint32_t v[32])
{
    uint32_t m[33];
    for (int i = 1; i <= 32; i++) {
        if (i <= s) {
            m[i] = m0[i - 1];
            continue;
        }
        uint32_t x = m[i - s] ^ (m[i - s] << s);
        for (int j = 1; j < s; j++)
            if ((a >> (s - 1 - j)) & 1u) x ^= m[i - j] << j;
        m[i] = x;
    }
    for (int i = 1; i <= 32; i++) v[i - 1] = m[i] << (32 - i);
}

void axb_qmc_point(axb_qmc_kind kind, uint64_t k, double q[3])
{
    const uint64_t n = k + 1;
    if (kind == AXB_QMC_HALTON) {
        q[0] = radical_inverse(n, 2);
        q[1] = radical_inverse(n, 3);
        q[2] = radical_inverse(n, 5);
        return;
    }
    static const uint32_t one[1] = {1}, m3[2] = {1, 3};
    uint32_t v[3][32];
    for (int i = 0; i < 32; i++) v[0][i] = (uint32_t)1 << (31 - i);
    sobol_directions(1, 0, one, v[1]);
    sobol_directions(2, 1, m3, v[2]);
    for (int d = 0; d < 3; d++) {
        uint32_t x = 0;
        uint64_t b = n;
        for (int i = 0; i < 32 && b; i++, b >>= 1)
            if (b & 1u) x ^= v[d][i];
        q[d] = (double)x / 4294967296.0;
    }
}
