/* The bulk layout: all seismograms in one (rows, components, samples) array, written by every rank
 * in one collective transfer per call, with the source and receiver tables beside it
 * (docs/output-format.md). */
#define _GNU_SOURCE /* fallocate */
#include "io/output/out_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/agree.h"
#include "core/mpi_check.h"
#include "core/writeback.h"
#include "io/hdf5/h5util.h"

#define BULK_FORMAT "axibulk-seismograms"
#define BULK_VERSION "1.1"

typedef struct bulk_impl {
    hid_t seis;      /* /seismograms */
    hid_t written;   /* /row_written, filled at close */
    MPI_File fh;     /* HDF5's own MPI-IO handle of the file (not ours to close) */
    MPI_Offset base; /* file offset of /seismograms' first byte */
    int wfd;         /* the file read-only, to start the writeback of rows written; -1: none */
} bulk_impl;

/* In-memory rows of the tables; HDF5 packs them in the file. */
typedef struct bulk_source {
    char name[64];
    char type[8];
    double lat, lon, depth;
    double m[6], f[3];
    int64_t origin_time;
    double time_shift;
} bulk_source;

typedef struct bulk_receiver {
    char network[8], station[8], location[8];
    double lat, lon, depth;
    double geo_lat, elevation, burial; /* since 1.1 */
} bulk_receiver;

static hid_t fixed_string(size_t n)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, n) < 0 || H5Tset_strpad(t, H5T_STR_NULLPAD) < 0)) {
        H5Tclose(t);
        return H5I_INVALID_HID;
    }
    return t;
}

/* The compound types: memory layout as the structs, file layout packed. */
static hid_t source_type(void)
{
    static const char *const mnames[6] = {"m_rr", "m_tt", "m_pp", "m_rt", "m_rp", "m_tp"};
    static const char *const fnames[3] = {"f_r", "f_t", "f_p"};
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(bulk_source));
    hid_t s64 = fixed_string(64), s8 = fixed_string(8);
    herr_t rc = t >= 0 && s64 >= 0 && s8 >= 0 ? 0 : -1;
    if (rc >= 0) rc = H5Tinsert(t, "name", offsetof(bulk_source, name), s64);
    if (rc >= 0) rc = H5Tinsert(t, "type", offsetof(bulk_source, type), s8);
    if (rc >= 0) rc = H5Tinsert(t, "latitude", offsetof(bulk_source, lat), H5T_NATIVE_DOUBLE);
    if (rc >= 0) rc = H5Tinsert(t, "longitude", offsetof(bulk_source, lon), H5T_NATIVE_DOUBLE);
    if (rc >= 0) rc = H5Tinsert(t, "depth", offsetof(bulk_source, depth), H5T_NATIVE_DOUBLE);
    for (int i = 0; i < 6 && rc >= 0; i++)
        rc = H5Tinsert(t, mnames[i], offsetof(bulk_source, m) + (size_t)i * sizeof(double), H5T_NATIVE_DOUBLE);
    for (int i = 0; i < 3 && rc >= 0; i++)
        rc = H5Tinsert(t, fnames[i], offsetof(bulk_source, f) + (size_t)i * sizeof(double), H5T_NATIVE_DOUBLE);
    if (rc >= 0) rc = H5Tinsert(t, "origin_time", offsetof(bulk_source, origin_time), H5T_NATIVE_INT64);
    if (rc >= 0) rc = H5Tinsert(t, "time_shift", offsetof(bulk_source, time_shift), H5T_NATIVE_DOUBLE);
    if (s64 >= 0) H5Tclose(s64);
    if (s8 >= 0) H5Tclose(s8);
    if (rc < 0 && t >= 0) {
        H5Tclose(t);
        t = H5I_INVALID_HID;
    }
    return t;
}

static hid_t receiver_type(void)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(bulk_receiver));
    hid_t s8 = fixed_string(8);
    herr_t rc = t >= 0 && s8 >= 0 ? 0 : -1;
    if (rc >= 0) rc = H5Tinsert(t, "network", offsetof(bulk_receiver, network), s8);
    if (rc >= 0) rc = H5Tinsert(t, "station", offsetof(bulk_receiver, station), s8);
    if (rc >= 0) rc = H5Tinsert(t, "location", offsetof(bulk_receiver, location), s8);
    if (rc >= 0) rc = H5Tinsert(t, "latitude", offsetof(bulk_receiver, lat), H5T_NATIVE_DOUBLE);
    if (rc >= 0) rc = H5Tinsert(t, "longitude", offsetof(bulk_receiver, lon), H5T_NATIVE_DOUBLE);
    if (rc >= 0) rc = H5Tinsert(t, "depth", offsetof(bulk_receiver, depth), H5T_NATIVE_DOUBLE);
    if (rc >= 0) rc = H5Tinsert(t, "latitude_geographic", offsetof(bulk_receiver, geo_lat), H5T_NATIVE_DOUBLE);
    if (rc >= 0) rc = H5Tinsert(t, "elevation", offsetof(bulk_receiver, elevation), H5T_NATIVE_DOUBLE);
    if (rc >= 0) rc = H5Tinsert(t, "burial", offsetof(bulk_receiver, burial), H5T_NATIVE_DOUBLE);
    if (s8 >= 0) H5Tclose(s8);
    if (rc < 0 && t >= 0) {
        H5Tclose(t);
        t = H5I_INVALID_HID;
    }
    return t;
}

/* A 1-D table written whole by rank 0. @p memtype describes @p buf; the file type is the same,
 * packed when it is a compound (no padding in the file). */
static axb_status write_table(axb_output *o, const char *name, hid_t memtype, int64_t n, const void *buf,
                              const char *units, axb_error *err)
{
    hid_t ftype = H5Tcopy(memtype);
    if (ftype < 0 || (H5Tget_class(ftype) == H5T_COMPOUND && H5Tpack(ftype) < 0)) {
        if (ftype >= 0) H5Tclose(ftype);
        return axb_h5_error(err, "%s", name);
    }
    hsize_t dims[1] = {(hsize_t)n};
    hid_t d;
    axb_status st = axb_h5out_dataset(o->file, name, ftype, 1, dims, &d, err);
    if (st == AXB_OK && units) st = axb_h5out_attr_str(d, "units", units, err);
    if (st == AXB_OK) st = axb_h5out_write_root(o, d, memtype, buf, err);
    if (d >= 0) H5Dclose(d);
    H5Tclose(ftype);
    return st;
}

/* Fixed-size, NUL-padded copy (the file stores the padding, so it must not be garbage). */
static void copy_code(char *dst, size_t size, const char *src)
{
    size_t n = strnlen(src, size - 1);
    memset(dst, 0, size);
    memcpy(dst, src, n);
}

static axb_status write_sources(axb_output *o, const axb_output_desc *d, axb_error *err)
{
    bulk_source *t = calloc((size_t)d->nsources, sizeof *t);
    hid_t type = source_type();
    axb_status st = AXB_OK;
    if (!t)
        st = axb_error_set(err, AXB_ERR_NOMEM, "source table");
    else if (type < 0)
        st = axb_h5_error(err, "source table type");
    for (int64_t i = 0; st == AXB_OK && i < d->nsources; i++) {
        const axb_source *s = &d->sources[i];
        copy_code(t[i].name, sizeof t[i].name, s->name);
        copy_code(t[i].type, sizeof t[i].type, s->type == AXB_SRC_FORCE ? "force" : "moment");
        t[i].lat = s->lat;
        t[i].lon = s->lon;
        t[i].depth = s->depth;
        for (int k = 0; k < 6; k++) t[i].m[k] = s->type == AXB_SRC_FORCE ? 0 : s->m[k];
        for (int k = 0; k < 3; k++) t[i].f[k] = s->type == AXB_SRC_FORCE ? s->f[k] : 0;
        t[i].origin_time = s->origin_time;
        t[i].time_shift = s->time_shift;
    }
    if (st == AXB_OK)
        st = write_table(o, "sources", type, d->nsources, t,
                         "latitude: degrees (geocentric); longitude: degrees; depth: m below the "
                         "surface, NaN if not given; m_*: N m, (r, theta, phi) frame; f_*: N; "
                         "origin_time: ns since 1970-01-01T00:00:00Z; time_shift: s, NaN if none",
                         err);
    if (type >= 0) H5Tclose(type);
    free(t);
    return st;
}

static axb_status write_receivers(axb_output *o, const axb_output_desc *d, axb_error *err)
{
    bulk_receiver *t = calloc((size_t)d->nreceivers, sizeof *t);
    hid_t type = receiver_type();
    axb_status st = AXB_OK;
    if (!t)
        st = axb_error_set(err, AXB_ERR_NOMEM, "receiver table");
    else if (type < 0)
        st = axb_h5_error(err, "receiver table type");
    for (int64_t i = 0; st == AXB_OK && i < d->nreceivers; i++) {
        const axb_receiver *r = &d->receivers[i];
        copy_code(t[i].network, sizeof t[i].network, r->network);
        copy_code(t[i].station, sizeof t[i].station, r->station);
        copy_code(t[i].location, sizeof t[i].location, r->location);
        t[i].lat = r->lat;
        t[i].lon = r->lon;
        t[i].depth = r->depth;
        t[i].geo_lat = r->has_site ? r->geo_lat : axb_geographic_latitude(r->lat);
        t[i].elevation = r->has_site ? r->elevation : NAN;
        t[i].burial = r->has_site ? r->burial : NAN;
    }
    if (st == AXB_OK)
        st = write_table(o, "receivers", type, d->nreceivers, t,
                         "latitude: degrees (geocentric); longitude: degrees; depth: m below the "
                         "surface where the seismogram was computed, NaN if not given (the surface); "
                         "latitude_geographic: degrees (WGS84); elevation: m above sea level and "
                         "burial: m below the ground of the sensor, as the input gave them, NaN if "
                         "not given (metadata only)",
                         err);
    if (type >= 0) H5Tclose(type);
    free(t);
    return st;
}

static axb_status write_file_attrs(axb_output *o, const axb_output_desc *d, axb_error *err)
{
    char created[40];
    axb_time_format(o->created, created, sizeof created);
    AXB_TRY(axb_h5out_attr_str(o->file, "file_format", BULK_FORMAT, err));
    AXB_TRY(axb_h5out_attr_str(o->file, "file_format_version", BULK_VERSION, err));
    AXB_TRY(axb_h5out_attr_str(o->file, "creator", OUT_CREATOR, err));
    AXB_TRY(axb_h5out_attr_str(o->file, "creation_time", created, err));
    AXB_TRY(axb_h5out_attr_str(o->file, "database", d->database, err));
    if (d->command) AXB_TRY(axb_h5out_attr_str(o->file, "command", d->command, err));
    return AXB_OK;
}

static axb_status write_seis_attrs(axb_output *o, const axb_output_desc *d, hid_t seis, axb_error *err)
{
    AXB_TRY(axb_h5out_attr_str(seis, "dimensions", "row, component, sample", err));
    AXB_TRY(axb_h5out_attr_str(seis, "components", o->components, err));
    AXB_TRY(axb_h5out_attr_str(seis, "kind", d->kind, err));
    AXB_TRY(axb_h5out_attr_str(seis, "units", o->units, err));
    AXB_TRY(axb_h5out_attr_double(seis, "dt", o->dt, err));
    AXB_TRY(axb_h5out_attr_double(seis, "sampling_rate", 1.0 / o->dt, err));
    AXB_TRY(axb_h5out_attr_int64(seis, "npts", o->nsamples, err));
    AXB_TRY(axb_h5out_attr_double(seis, "start_offset", o->start_offset, err));
    return AXB_OK;
}

/* Where independent writes go: /seismograms is contiguous and allocated at creation
 * (axb_h5out_dataset), so row r starts at a fixed file offset, base + r * row bytes, which HDF5 never
 * moves. Independent rows are written there through the file's MPI-IO handle: an independent
 * H5Dwrite would still make collective metadata calls. */
static axb_status direct_target(axb_output *o, bulk_impl *b, axb_error *err)
{
    int64_t addr = 0;
    AXB_CHECK(err, axb_h5_contiguous_offset(b->seis, &addr), AXB_ERR_ARG,
              "dataset 'seismograms' is not one contiguous allocated block");
    hid_t fapl = H5Fget_access_plist(o->file);
    void *handle = NULL;
    const herr_t rc = fapl >= 0 ? H5Fget_vfd_handle(o->file, fapl, &handle) : -1;
    if (fapl >= 0) H5Pclose(fapl);
    if (rc < 0 || !handle) return axb_h5_error(err, "no MPI-IO handle for the file");
    b->fh = *(MPI_File *)handle;
    b->base = (MPI_Offset)addr;
    b->wfd = open(o->partial, O_RDONLY); /* best effort: without it the final sync does it all */
    return AXB_OK;
}

/* Rank 0, at creation: the disk blocks of /seismograms, reserved at once. Rows arrive in the
 * order their elements are read, not in row order, and a file system that allocates each row's
 * blocks as it comes spends more on random writes into a hole than on the copy (ext4: 4.0 against
 * 2.6 µs per 3.5 KB row) and leaves the file in fragments for whoever reads it next. Only a full
 * disk is an error: a file system without fallocate (some parallel ones) just allocates as
 * before. */
static axb_status reserve_blocks(const axb_output *o, hid_t seis, axb_error *err)
{
    int64_t addr = 0;
    const hsize_t bytes = H5Dget_storage_size(seis);
    if (!axb_h5_contiguous_offset(seis, &addr) || bytes == 0) return AXB_OK;
#ifdef FALLOC_FL_KEEP_SIZE
    const int fd = open(o->partial, O_WRONLY);
    if (fd < 0) return AXB_OK; /* the writes that follow report whatever is wrong */
    const int rc = fallocate(fd, FALLOC_FL_KEEP_SIZE, (off_t)addr, (off_t)bytes);
    const int e = errno;
    close(fd);
#else
    const int rc = 0, e = 0;
#endif
    if (rc != 0 && (e == ENOSPC || e == EDQUOT))
        return axb_error_set(err, AXB_ERR_RESOURCE, "dataset 'seismograms': not enough free disk for %.3f GB: %s",
                             (double)bytes / 1e9, strerror(e));
    return AXB_OK;
}

static axb_status bulk_create(axb_output *o, const axb_output_desc *d, axb_error *err)
{
    bulk_impl *b = malloc(sizeof *b);
    if (!b) return axb_error_set(err, AXB_ERR_NOMEM, "bulk output");
    b->seis = b->written = H5I_INVALID_HID;
    b->wfd = -1;
    o->impl = b;
    AXB_TRY(write_file_attrs(o, d, err));
    hsize_t dims[3] = {(hsize_t)o->nrows, (hsize_t)o->ncomp, (hsize_t)o->nsamples};
    hid_t ftype = o->precision == AXB_FLOAT32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE;
    AXB_TRY(axb_h5out_dataset(o->file, "seismograms", ftype, 3, dims, &b->seis, err));
    AXB_TRY(reserve_blocks(o, b->seis, err));
    AXB_TRY(write_seis_attrs(o, d, b->seis, err));
    AXB_TRY(write_table(o, "row_source", H5T_NATIVE_INT64, o->nrows, d->row_source, NULL, err));
    AXB_TRY(write_table(o, "row_receiver", H5T_NATIVE_INT64, o->nrows, d->row_receiver, NULL, err));
    AXB_TRY(axb_h5out_dataset(o->file, "row_written", H5T_STD_U8LE, 1, dims, &b->written, err));
    AXB_TRY(write_sources(o, d, err));
    return write_receivers(o, d, err);
}

static axb_status check_reopened(axb_output *o, bulk_impl *b, axb_error *err);

/* Every rank opens the datasets; the MPI-IO handle is asked for only once all have them, since
 * HDF5 duplicates the file's communicator (a collective call) to hand it out. */
static axb_status bulk_reopen(axb_output *o, const axb_output_desc *d, axb_error *err)
{
    (void)d;
    bulk_impl *b = malloc(sizeof *b);
    if (!b) return axb_agree(o->comm, axb_error_set(err, AXB_ERR_NOMEM, "bulk output"), err);
    b->seis = b->written = H5I_INVALID_HID;
    b->wfd = -1;
    o->impl = b;
    AXB_TRY(axb_agree(o->comm, check_reopened(o, b, err), err));
    return direct_target(o, b, err);
}

static axb_status check_reopened(axb_output *o, bulk_impl *b, axb_error *err)
{
    b->seis = H5Dopen2(o->file, "seismograms", H5P_DEFAULT);
    b->written = H5Dopen2(o->file, "row_written", H5P_DEFAULT);
    if (b->seis < 0 || b->written < 0) return axb_h5_error(err, "cannot resume: no /seismograms in the file");
    hid_t s = H5Dget_space(b->seis);
    hsize_t dims[3] = {0, 0, 0};
    int rank = H5Sget_simple_extent_ndims(s);
    if (rank == 3) H5Sget_simple_extent_dims(s, dims, NULL);
    H5Sclose(s);
    hid_t t = H5Dget_type(b->seis);
    const size_t size = H5Tget_size(t);
    H5Tclose(t);
    AXB_CHECK(err,
              rank == 3 && dims[0] == (hsize_t)o->nrows && dims[1] == (hsize_t)o->ncomp &&
                  dims[2] == (hsize_t)o->nsamples && size == o->elsize,
              AXB_ERR_ARG,
              "cannot resume: the unfinished file holds %llu x %llu x %llu %s values, this job makes "
              "%lld x %d x %lld %s values",
              (unsigned long long)dims[0], (unsigned long long)dims[1], (unsigned long long)dims[2],
              size == 4 ? "float32" : "float64", (long long)o->nrows, o->ncomp, (long long)o->nsamples,
              o->elsize == 4 ? "float32" : "float64");
    return AXB_OK;
}

/* A run of rows in arithmetic progression: first, first + stride, ... (count rows). */
typedef struct row_run {
    int64_t first, stride, count;
} row_run;

/* Sorted distinct rows as maximal arithmetic runs: one run for a contiguous block or for a
 * round-robin share, at most n/2 + 1 runs in any case. */
static int64_t make_runs(int64_t n, const int64_t *rows, row_run *runs)
{
    int64_t nr = 0;
    for (int64_t k = 0; k < n;) {
        int64_t j = k + 1;
        int64_t stride = j < n ? rows[j] - rows[k] : 1;
        while (j < n && rows[j] - rows[j - 1] == stride) j++;
        runs[nr++] = (row_run){rows[k], stride, j - k};
        k = j;
    }
    return nr;
}

/* HDF5 1.10 builds a union of hyperslabs in time quadratic in its number of pieces (25 000
 * scattered rows took over a minute), so one transfer takes at most this many runs, and after
 * its first run at most this many rows; the ranks agree on the number of transfers and a rank
 * with fewer joins the others with empty ones. A single run of any length is one cheap piece. */
#define BULK_RUNS_PER_WRITE 256
#define BULK_ROWS_PER_WRITE 4096

/* Number of runs the next transfer takes, starting at run @p k. */
static int64_t next_group(int64_t k, int64_t nruns, const row_run *runs)
{
    int64_t j = k, rows = 0;
    while (j < nruns && j - k < BULK_RUNS_PER_WRITE && (j == k || rows + runs[j].count <= BULK_ROWS_PER_WRITE))
        rows += runs[j++].count;
    return j - k;
}

static herr_t select_runs(hid_t fspace, int64_t n, const row_run *runs, hsize_t ncomp, hsize_t nsamples, hsize_t *nrows)
{
    *nrows = 0;
    if (n == 0) return H5Sselect_none(fspace);
    for (int64_t k = 0; k < n; k++) {
        const row_run *r = &runs[k];
        hsize_t start[3] = {(hsize_t)r->first, 0, 0};
        hsize_t stride[3] = {(hsize_t)r->stride, 1, 1};
        hsize_t count[3] = {(hsize_t)r->count, 1, 1};
        hsize_t block[3] = {1, ncomp, nsamples};
        if (r->stride == 1) { /* a contiguous block: one piece, not count pieces */
            stride[0] = 1;
            count[0] = 1;
            block[0] = (hsize_t)r->count;
        }
        if (H5Sselect_hyperslab(fspace, k ? H5S_SELECT_OR : H5S_SELECT_SET, start, stride, count, block) < 0) return -1;
        *nrows += (hsize_t)r->count;
    }
    return 0;
}

static axb_status bulk_write(axb_output *o, int64_t n, const int64_t *rows, const void *data, axb_error *err)
{
    bulk_impl *b = o->impl;
    row_run *runs = malloc((size_t)(n > 0 ? n : 1) * sizeof *runs);
    int64_t nruns = runs ? make_runs(n, rows, runs) : 0;
    int64_t mine = 0, ncalls = 0;
    for (int64_t k = 0; runs && k < nruns; mine++) k += next_group(k, nruns, runs);
    axb_status st = runs ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "row runs of a write of %lld rows", (long long)n);
    AXB_MPI_CHECK(st, err, MPI_Allreduce(&mine, &ncalls, 1, MPI_INT64_T, MPI_MAX, o->comm),
                  "agreement on the number of transfers");
    st = axb_agree(o->comm, st, err);
    if (st != AXB_OK) {
        free(runs);
        return st;
    }
    const hsize_t per = (hsize_t)o->ncomp * (hsize_t)o->nsamples;
    const char *p = data;
    herr_t rc = 0;
    for (int64_t call = 0, done = 0; call < ncalls; call++) {
        int64_t take = next_group(done, nruns, runs);
        hsize_t nrows = 0;
        hid_t fspace = H5Dget_space(b->seis);
        herr_t rci = fspace >= 0 ? 0 : -1;
        if (rci >= 0) rci = select_runs(fspace, take, runs + done, (hsize_t)o->ncomp, (hsize_t)o->nsamples, &nrows);
        hsize_t mdim[1] = {nrows > 0 ? nrows * per : 1};
        hid_t mspace = H5Screate_simple(1, mdim, NULL);
        if (rci >= 0 && mspace >= 0 && nrows == 0) rci = H5Sselect_none(mspace);
        /* Even a rank that already failed takes part, so that no other rank waits for it. */
        if (rci < 0 || mspace < 0) {
            rc = -1;
            if (fspace >= 0) H5Sselect_none(fspace);
            if (mspace >= 0) H5Sselect_none(mspace);
        }
        if (fspace >= 0 && mspace >= 0 &&
            H5Dwrite(b->seis, o->memtype, mspace, fspace, o->dxpl_coll, nrows ? p : NULL) < 0)
            rc = -1;
        if (mspace >= 0) H5Sclose(mspace);
        if (fspace >= 0) H5Sclose(fspace);
        p += nrows * per * o->elsize;
        done += take;
    }
    free(runs);
    return rc < 0 ? axb_h5_error(err, "dataset 'seismograms': write failed") : AXB_OK;
}

#define BULK_PAGE ((int64_t)4096)
#define BULK_HINT_BYTES ((int64_t)64 << 10) /* runs hinted to the disk: at least 16 whole pages */

/* One MPI_File_write_at per run of consecutive rows, straight from the caller's buffer. */
static axb_status bulk_write_local(axb_output *o, int64_t n, const int64_t *rows, const void *data, axb_error *err)
{
    const bulk_impl *b = o->impl;
    const int64_t row_bytes = o->ncomp * o->nsamples * (int64_t)o->elsize;
    const char *p = data;
    for (int64_t k = 0; k < n;) {
        int64_t j = k + 1;
        /* a run stays below 1 GiB: MPI counts are int */
        while (j < n && rows[j] == rows[j - 1] + 1 && (j - k + 1) * row_bytes <= (INT64_C(1) << 30)) j++;
        const int64_t bytes = (j - k) * row_bytes;
        MPI_Status status;
        int count = 0;
        int rc =
            MPI_File_write_at(b->fh, b->base + (MPI_Offset)(rows[k] * row_bytes), p, (int)bytes, MPI_BYTE, &status);
        if (rc == MPI_SUCCESS) rc = MPI_Get_count(&status, MPI_BYTE, &count);
        if (rc != MPI_SUCCESS) {
            char what[96];
            snprintf(what, sizeof what, "dataset 'seismograms': writing rows %lld..%lld", (long long)rows[k],
                     (long long)rows[j - 1]);
            return axb_mpi_error(err, rc, what);
        }
        if (count != (int)bytes) /* MPI-IO reports a full disk as a short write */
            return axb_error_set(err, AXB_ERR_RESOURCE,
                                 "dataset 'seismograms': writing rows %lld..%lld: only %d of %lld bytes written "
                                 "(disk full?)",
                                 (long long)rows[k], (long long)rows[j - 1], count, (long long)bytes);
        /* the disk takes a long run while the next ones are gathered and copied: the sync before
         * the rename (or at a checkpoint) then waits for the last runs only. Only the whole pages
         * of a long run: the pages at its ends hold rows still to come, and every hint costs the
         * caller a request to the disk, so short runs are left to the kernel's writeback (a job
         * of 1,000,000 rows of 556 bytes, scattered, spent half of its time in these hints) */
        const int64_t first = b->base + rows[k] * row_bytes;
        const int64_t lo = (first + BULK_PAGE - 1) / BULK_PAGE * BULK_PAGE,
                      hi = (first + bytes) / BULK_PAGE * BULK_PAGE;
        if (hi - lo >= BULK_HINT_BYTES) axb_start_writeback(b->wfd, lo, hi - lo);
        p += bytes;
        k = j;
    }
    return AXB_OK;
}

static axb_status bulk_finish(axb_output *o, const uint8_t *written, axb_error *err)
{
    bulk_impl *b = o->impl;
    return axb_h5out_write_root(o, b->written, H5T_NATIVE_UINT8, written, err);
}

static void bulk_destroy(axb_output *o)
{
    bulk_impl *b = o->impl;
    if (!b) return;
    if (b->seis >= 0) H5Dclose(b->seis);
    if (b->written >= 0) H5Dclose(b->written);
    if (b->wfd >= 0) close(b->wfd);
    free(b);
    o->impl = NULL;
}

const axb_out_ops axb_out_bulk_ops = {
    .reopen = bulk_reopen,
    .name = "bulk",
    .check = NULL,
    .create = bulk_create,
    .write = bulk_write,
    .write_local = bulk_write_local,
    .finish = bulk_finish,
    .destroy = bulk_destroy,
};
