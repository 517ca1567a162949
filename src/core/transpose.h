/* Transposing blocks of 32-bit floats: the original layout stores a variable as [sample][point]
 * chunks, and every reader wants [point][sample] columns. Done one value at a time, the gather
 * strided across the chunk and cost a tenth of a one-core extraction from AxiSEM's 25 s files. */
#ifndef AXB_CORE_TRANSPOSE_H
#define AXB_CORE_TRANSPOSE_H

#include <stdint.h>

/* dst[c * ldd + r] = src[r * lds + c] for r < rows, c < cols. @p src holds little-endian floats at
 * any byte address (a chunk as stored in a file buffer); @p dst is float-aligned; the two do not
 * overlap. Strides are in floats. Values are moved bit for bit, NaN payloads included. */
void axb_transpose_f32(int64_t rows, int64_t cols, const void *src, int64_t lds, float *dst, int64_t ldd);

#endif
