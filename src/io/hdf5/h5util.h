/* Small, checked wrappers around HDF5 for reading AxiSEM/netCDF-4 files. Each failure names the
 * object (attribute, dataset) and, where HDF5 gives one, the library's own reason; the caller
 * prefixes the file name. */
#ifndef AXB_IO_H5UTIL_H
#define AXB_IO_H5UTIL_H

#include <hdf5.h>
#include <stdbool.h>
#include <stdint.h>

#include "axibulk/status.h"

#define H5U_MAXRANK 8

/* Opens @p path read-only with file access property list @p fapl (H5P_DEFAULT for serial).
 * Distinguishes a missing file, a non-HDF5 file and a damaged one. */
axb_status axb_h5_open(const char *path, hid_t fapl, hid_t *fid, axb_error *err);

/* Copies the innermost HDF5 error description of the current error stack into @p buf. */
void axb_h5_last_error(char *buf, size_t size);

/* Sets AXB_ERR_HDF5 with "<context>: <HDF5's innermost reason>" and returns it. */
axb_status axb_h5_error(axb_error *err, const char *fmt, ...) AXB_PRINTF(2, 3);

/* Checked HDF5 call (HDF5 signals failure with a negative return): return from the current
 * function with AXB_ERR_HDF5 and the printf-style context if @p call fails. */
#define AXB_H5_TRY(err, call, ...)                                                                                     \
    do {                                                                                                               \
        if ((call) < 0) return axb_h5_error((err), __VA_ARGS__);                                                       \
    } while (0)

bool axb_h5_exists(hid_t loc, const char *path);
bool axb_h5_attr_exists(hid_t loc, const char *name);

/* Numeric attributes: AxiSEM stores them as 1-element arrays; element 0 is taken. */
axb_status axb_h5_attr_double(hid_t loc, const char *name, double *out, axb_error *err);
axb_status axb_h5_attr_int(hid_t loc, const char *name, long long *out, axb_error *err);
/* String attributes: fixed-length scalar (AxiSEM) or variable-length, scalar or 1-element array
 * (netCDF4-python's setncattr_string). Trailing blanks are kept, NULs end the string. */
axb_status axb_h5_attr_string(hid_t loc, const char *name, char *buf, size_t size, axb_error *err);

/* Rank and dimensions of dataset @p name. */
axb_status axb_h5_dims(hid_t loc, const char *name, int *rank, hsize_t *dims, axb_error *err);

/* Reads a whole dataset whose shape must be exactly @p dims (rank @p rank) as @p memtype. */
axb_status axb_h5_read(hid_t loc, const char *name, hid_t memtype, int rank, const hsize_t *dims, void *buf,
                       axb_error *err);

/* Reads, with one H5Dread, every element of dataset @p dset whose index along dimension @p axis is
 * in ids[0..n) (sorted, distinct; all of every other dimension), into @p buf in file order, as
 * @p memtype. Consecutive indices are merged into runs first (HDF5 builds unions of many small
 * selections slowly). Collective: every rank calls, n may be 0. *bytes receives the size read. */
axb_status axb_h5_read_runs(hid_t dset, int axis, int64_t n, const int64_t *ids, bool collective, hid_t memtype,
                            void *buf, int64_t *bytes, axb_error *err);

/* As axb_h5_read_runs for a 2-D float dataset (independent I/O), but reading whole chunks, each
 * with one H5Dread into a buffer of the chunk's own shape, then copying the wanted columns out,
 * always index-major: buf[u][other axis], whatever the file's orientation.
 * A partial selection of a chunk makes HDF5 issue one small read per row of the chunk (hundreds
 * of 448-byte reads for AxiSEM's (snapshots, 112) chunks); a whole chunk is one read (or one
 * inflate). Returns false in *used (and reads nothing) when the dataset is not chunked with
 * whole rows along the other axis, when n is 0, or when the ids fill less than @p min_fill of
 * the chunks they touch. *bytes receives the size read from the file, *calls the number of
 * H5Dread calls. */
axb_status axb_h5_read_cols_by_chunk(hid_t dset, int axis, int64_t n, const int64_t *ids, double min_fill, float *buf,
                                     bool *used, int64_t *bytes, int64_t *calls, axb_error *err);

/* Columns ids[a..b) (sorted, distinct, all inside the chunk whose first index is @p c0) of a
 * decoded chunk into buf[u][t], u in [a, b): the chunk is [t][w] along @p axis 1 (w its width) or
 * [point][t] along axis 0, little-endian floats at any byte address. A run of consecutive ids
 * moves as one block (core/transpose.h): an element's points are numbered together. */
void axb_h5_take_cols(const void *chunk, int axis, int64_t w, int64_t nt, int64_t c0, int64_t a, int64_t b,
                      const int64_t *ids, float *buf);

/* True when sorted ids[0..n) fill at least @p min_fill of the chunks of @p cp indices they touch:
 * the rule for reading whole chunks (axb_h5_read_cols_by_chunk, axb_chunk_reader_read_cols). */
bool axb_h5_chunks_dense(int64_t n, const int64_t *ids, int64_t cp, double min_fill);

/* File offset of dataset @p dset's storage when it is one contiguous, allocated block; false
 * (and *offset untouched) otherwise. */
bool axb_h5_contiguous_offset(hid_t dset, int64_t *offset);

#endif
