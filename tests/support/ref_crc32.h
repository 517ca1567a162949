/* A reference CRC-32 for the tests that check axibulk's element checksums. */
#ifndef AXB_TESTS_SUPPORT_REF_CRC32_H
#define AXB_TESTS_SUPPORT_REF_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* zlib's CRC-32 (reflected polynomial 0xEDB88320, initial and final inversion) of p[0..n), bit by
 * bit: independent of the table-driven and carry-less-multiply code it checks. */
uint32_t axb_test_crc32(const unsigned char *p, size_t n);

#endif
