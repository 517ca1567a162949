#include "core/hash.h"

#include <string.h>

#define FNV_PRIME UINT64_C(0x100000001b3)

uint64_t axb_hash_bytes(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * FNV_PRIME;
    return h;
}

uint64_t axb_hash_str(uint64_t h, const char *s) { return axb_hash_bytes(h, s, strlen(s) + 1); }

uint64_t axb_hash_doubles(uint64_t h, const double *v, size_t n) { return axb_hash_bytes(h, v, n * sizeof *v); }

uint64_t axb_hash_i64(uint64_t h, int64_t v) { return axb_hash_bytes(h, &v, sizeof v); }
