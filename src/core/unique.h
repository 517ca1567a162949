/* Sorted-unique views of index lists: the I/O layer reads each element or point once, in file
 * order, however often and in whatever order the callers asked for it. */
#ifndef AXB_CORE_UNIQUE_H
#define AXB_CORE_UNIQUE_H

#include <stdint.h>

#include "axibulk/status.h"

/* On success *uniq holds the *nu sorted distinct values of in[0..n) and, if inv is not NULL,
 * (*inv)[k] is the position of in[k] in *uniq. Both arrays are malloc'd (NULL when n == 0). */
axb_status axb_unique_i64(const int64_t *in, int64_t n, int64_t **uniq, int64_t *nu, int64_t **inv, axb_error *err);

#endif
