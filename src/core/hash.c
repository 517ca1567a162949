#include "core/hash.h"

#include <string.h>

/* Odd 64-bit constants with well-spread bits (the golden ratio's and two of its kin): any odd
 * multiplier is a bijection, these also carry low bits far up. */
#define K1 UINT64_C(0x9e3779b97f4a7c15)
#define K2 UINT64_C(0xc2b2ae3d27d4eb4f)
#define K3 UINT64_C(0x165667b19e3779f9)

static inline uint64_t rotl(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

/* One word into a lane: a bijection of the lane for a fixed word, so a single changed word
 * always changes the lane. */
static inline uint64_t mix_word(uint64_t lane, uint64_t w)
{
    return rotl(lane + w * K2, 31) * K1;
}

/* Every input bit reaches every output bit (the 64-bit finaliser of MurmurHash3's family). */
static inline uint64_t avalanche(uint64_t h)
{
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= K2;
    return h ^ (h >> 29);
}

static inline uint64_t load64(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

/* Why not byte-wise FNV-1a any more: a multiply per byte in one dependency chain ran at about
 * 0.5 GB/s, and an extraction hashes its tables and the database's shear moduli (megabytes for
 * a 20,000-pair job) before any work; four independent lanes over 8-byte words run an order of
 * magnitude faster. The words are read in the machine's byte order: a fingerprint is compared on
 * machines of one kind, and every supported one is little-endian. */
uint64_t axb_hash_bytes(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t a0 = h + K1 + K2, a1 = h + K2, a2 = h, a3 = h - K1;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        a0 = mix_word(a0, load64(p + i));
        a1 = mix_word(a1, load64(p + i + 8));
        a2 = mix_word(a2, load64(p + i + 16));
        a3 = mix_word(a3, load64(p + i + 24));
    }
    uint64_t r = rotl(a0, 1) + rotl(a1, 7) + rotl(a2, 12) + rotl(a3, 18);
    r = (r ^ mix_word(0, a0)) * K1 + K3;
    r = (r ^ mix_word(0, a1)) * K1 + K3;
    r = (r ^ mix_word(0, a2)) * K1 + K3;
    r = (r ^ mix_word(0, a3)) * K1 + K3;
    r += (uint64_t)n;
    for (; i + 8 <= n; i += 8) r = rotl(r ^ mix_word(0, load64(p + i)), 27) * K1 + K3;
    for (; i < n; i++) r = rotl(r ^ (p[i] * K3), 11) * K1;
    return avalanche(r);
}

uint64_t axb_hash_str(uint64_t h, const char *s)
{
    return axb_hash_bytes(h, s, strlen(s) + 1);
}

uint64_t axb_hash_doubles(uint64_t h, const double *v, size_t n)
{
    return axb_hash_bytes(h, v, n * sizeof *v);
}

uint64_t axb_hash_i64(uint64_t h, int64_t v)
{
    return axb_hash_bytes(h, &v, sizeof v);
}
