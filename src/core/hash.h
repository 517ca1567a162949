/* A 64-bit hash over words in four lanes: fingerprints of what determines an output (so a resume of another job is
 * refused) and checksums of checkpointed values (so damaged ones are never trusted). Not a
 * cryptographic hash: it guards against accidents, not against an attacker. */
#ifndef AXB_CORE_HASH_H
#define AXB_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define AXB_HASH_INIT UINT64_C(0xcbf29ce484222325)

/* Continues hash @p h (start with AXB_HASH_INIT) over @p n bytes. A chain of calls is a
 * deterministic function of its pieces, not of their concatenation: callers split their data the
 * same way every time. */
uint64_t axb_hash_bytes(uint64_t h, const void *data, size_t n);

/* Continues @p h over a string's bytes and its terminating zero (so "ab","c" differs from "a","bc"). */
uint64_t axb_hash_str(uint64_t h, const char *s);

/* Continues @p h over doubles by value (the bytes of each, so -0.0 and 0.0 differ; NaN payloads
 * count). */
uint64_t axb_hash_doubles(uint64_t h, const double *v, size_t n);

uint64_t axb_hash_i64(uint64_t h, int64_t v);

#endif
