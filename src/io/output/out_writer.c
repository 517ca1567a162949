/* Output front end: descriptor and file-system checks, the .partial file and its commit, status
 * agreement across ranks, and the row bookkeeping shared by every format. */
#include "io/output/out_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/hdf5/h5util.h"

/* Indexed by axb_out_format. */
static const axb_out_ops *const OUT_BACKENDS[] = {&axb_out_bulk_ops, &axb_out_asdf_ops};
static const char *const FORMAT_NAMES[] = {"bulk", "asdf"};
static const char *const PRECISION_NAMES[] = {"float32", "float64"};

/* ---------------------------------------------------------------------------------------------
 * Small public helpers */

axb_status axb_out_format_parse(const char *s, axb_out_format *f, axb_error *err)
{
    for (int i = 0; i < 2; i++)
        if (s && strcmp(s, FORMAT_NAMES[i]) == 0) {
            *f = (axb_out_format)i;
            return AXB_OK;
        }
    return axb_error_set(err, AXB_ERR_ARG, "unknown output format '%s' (expected bulk or asdf)",
                         s ? s : "(null)");
}

const char *axb_out_format_name(axb_out_format f)
{
    return (unsigned)f < 2 ? FORMAT_NAMES[f] : "unknown";
}

axb_status axb_precision_parse(const char *s, axb_precision *p, axb_error *err)
{
    for (int i = 0; i < 2; i++)
        if (s && strcmp(s, PRECISION_NAMES[i]) == 0) {
            *p = (axb_precision)i;
            return AXB_OK;
        }
    return axb_error_set(err, AXB_ERR_ARG, "unknown precision '%s' (expected float32 or float64)",
                         s ? s : "(null)");
}

const char *axb_precision_name(axb_precision p)
{
    return (unsigned)p < 2 ? PRECISION_NAMES[p] : "unknown";
}

char axb_band_code(double dt)
{
    if (dt <= 0.001) return 'F';
    if (dt <= 0.004) return 'C';
    if (dt <= 0.0125) return 'H';
    if (dt <= 0.1) return 'B';
    if (dt < 1) return 'M';
    return 'L';
}

const char *axb_output_units(const char *kind)
{
    if (!kind) return NULL;
    if (strcmp(kind, "displacement") == 0) return "m";
    if (strcmp(kind, "velocity") == 0) return "m/s";
    if (strcmp(kind, "acceleration") == 0) return "m/s^2";
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Agreement */

/* Every rank leaves with a failure if any rank failed. The lowest failing rank's message is
 * broadcast, so every rank can tell the user what went wrong; ranks that did not fail themselves
 * return AXB_ERR_REMOTE with that message. Costs one reduction when all went well. */
static axb_status agree(const axb_output *o, MPI_Comm comm, axb_status st, axb_error *err)
{
    int rank = o ? o->rank : 0, size = o ? o->size : 1;
    if (!o) {
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &size);
    }
    int mine = st != AXB_OK ? rank : size, first = size;
    if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return axb_error_set(err, AXB_ERR_MPI, "status agreement across ranks failed");
    if (first == size) return AXB_OK;
    char msg[AXB_ERRMSG_MAX];
    if (rank == first) memcpy(msg, err->msg, sizeof msg);
    if (MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, first, comm) != MPI_SUCCESS)
        return axb_error_set(err, st ? st : AXB_ERR_MPI, "broadcast of an error message failed");
    if (st == AXB_OK) axb_error_set(err, AXB_ERR_REMOTE, "%s", msg);
    return err->code;
}

/* ---------------------------------------------------------------------------------------------
 * Descriptor checks (every rank, no I/O: the descriptor is identical everywhere, so every rank
 * reaches the same verdict with its own message). */

static axb_status check_components(const char *c, axb_error *err)
{
    size_t n = c ? strlen(c) : 0;
    AXB_CHECK(err, n >= 1 && n <= 5, AXB_ERR_ARG,
              "components '%s': give 1 to 5 distinct letters of ZNERT", c ? c : "");
    for (size_t i = 0; i < n; i++) {
        AXB_CHECK(err, strchr("ZNERT", c[i]) != NULL, AXB_ERR_ARG,
                  "components '%s': unknown component '%c' (expected letters of ZNERT)", c, c[i]);
        AXB_CHECK(err, strchr(c + i + 1, c[i]) == NULL, AXB_ERR_ARG,
                  "components '%s': component '%c' is repeated", c, c[i]);
    }
    return AXB_OK;
}

static axb_status check_rows(const axb_output_desc *d, axb_error *err)
{
    AXB_CHECK(err, d->nsources >= 1 && d->sources, AXB_ERR_ARG, "no sources");
    AXB_CHECK(err, d->nreceivers >= 1 && d->receivers, AXB_ERR_ARG, "no receivers");
    AXB_CHECK(err, d->row_source && d->row_receiver, AXB_ERR_ARG, "row tables missing");
    for (int64_t i = 0; i < d->nrows; i++) {
        AXB_CHECK(err, d->row_source[i] >= 0 && d->row_source[i] < d->nsources, AXB_ERR_ARG,
                  "row %" PRId64 ": source index %" PRId64 " outside 0..%" PRId64, i,
                  d->row_source[i], d->nsources - 1);
        AXB_CHECK(err, d->row_receiver[i] >= 0 && d->row_receiver[i] < d->nreceivers, AXB_ERR_ARG,
                  "row %" PRId64 ": receiver index %" PRId64 " outside 0..%" PRId64, i,
                  d->row_receiver[i], d->nreceivers - 1);
    }
    return AXB_OK;
}

static axb_status check_desc(const axb_output_desc *d, axb_error *err)
{
    AXB_CHECK(err, d, AXB_ERR_ARG, "no output description");
    AXB_CHECK(err, d->path && d->path[0], AXB_ERR_ARG, "output path is empty");
    AXB_CHECK(err, strlen(d->path) + sizeof ".partial" <= OUT_PATH_MAX, AXB_ERR_ARG,
              "output path longer than %d characters", OUT_PATH_MAX - (int)sizeof ".partial");
    AXB_CHECK(err, (unsigned)d->format < 2, AXB_ERR_ARG, "unknown output format %d",
              (int)d->format);
    AXB_CHECK(err, (unsigned)d->precision < 2, AXB_ERR_ARG, "unknown precision %d",
              (int)d->precision);
    AXB_CHECK(err, d->nrows >= 1, AXB_ERR_ARG, "nrows = %" PRId64 ": nothing to write", d->nrows);
    AXB_CHECK(err, d->nsamples >= 1, AXB_ERR_ARG, "nsamples = %" PRId64 " must be at least 1",
              d->nsamples);
    AXB_CHECK(err, d->dt > 0 && isfinite(d->dt), AXB_ERR_ARG, "dt = %g must be positive", d->dt);
    AXB_CHECK(err, isfinite(d->start_offset), AXB_ERR_ARG,
              "start_offset = %g is not finite", d->start_offset);
    AXB_CHECK(err, axb_output_units(d->kind) != NULL, AXB_ERR_ARG,
              "kind '%s' (expected displacement, velocity or acceleration)",
              d->kind ? d->kind : "(null)");
    AXB_CHECK(err, d->database, AXB_ERR_ARG, "database path missing (provenance)");
    AXB_TRY(check_components(d->components, err));
    /* Keeps every dataset's byte size within what hsize_t and size_t products can hold. */
    AXB_CHECK(err, (double)d->nrows * (double)strlen(d->components) * (double)d->nsamples < 0x1p60,
              AXB_ERR_ARG, "output of %" PRId64 " rows x %" PRId64 " samples is too large",
              d->nrows, d->nsamples);
    return check_rows(d, err);
}

/* ---------------------------------------------------------------------------------------------
 * File system (rank 0 only: one process touches the metadata server) */

static void parent_dir(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, size, ".");
    else if (slash == path) snprintf(dir, size, "/");
    else snprintf(dir, size, "%.*s", (int)(slash - path), path);
}

static axb_status check_files(const axb_output *o, axb_error *err)
{
    char dir[OUT_PATH_MAX];
    parent_dir(o->path, dir, sizeof dir);
    struct stat st;
    if (stat(dir, &st) != 0)
        return axb_error_set(err, AXB_ERR_IO, "%s: directory '%s' %s", o->path, dir,
                             errno == ENOENT ? "does not exist" : strerror(errno));
    AXB_CHECK(err, S_ISDIR(st.st_mode), AXB_ERR_IO, "%s: '%s' is not a directory", o->path, dir);
    AXB_CHECK(err, access(dir, W_OK) == 0, AXB_ERR_IO, "%s: directory '%s' is not writable",
              o->path, dir);
    if (stat(o->path, &st) == 0) {
        AXB_CHECK(err, !S_ISDIR(st.st_mode), AXB_ERR_IO, "%s: is a directory", o->path);
        AXB_CHECK(err, o->overwrite, AXB_ERR_IO, "%s: already exists (not overwriting it)",
                  o->path);
    }
    if (stat(o->partial, &st) == 0) {
        AXB_CHECK(err, !S_ISDIR(st.st_mode), AXB_ERR_IO, "%s: is a directory", o->partial);
        AXB_CHECK(err, o->overwrite, AXB_ERR_IO,
                  "%s: exists, left by an unfinished run (not overwriting it)", o->partial);
    }
    return AXB_OK;
}

static axb_time_ns now_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return 0;
    return (axb_time_ns)ts.tv_sec * AXB_NS_PER_S + ts.tv_nsec;
}

/* Rank 0 decides on the files and the creation time; every rank learns both. */
static axb_status prepare_files(axb_output *o, axb_error *err)
{
    axb_status st = o->rank == 0 ? check_files(o, err) : AXB_OK;
    if (o->rank == 0) o->created = now_ns();
    st = agree(o, o->comm, st, err);
    if (st != AXB_OK) return st;
    if (MPI_Bcast(&o->created, 1, MPI_INT64_T, 0, o->comm) != MPI_SUCCESS)
        return axb_error_set(err, AXB_ERR_MPI, "broadcast of the creation time failed");
    return AXB_OK;
}

static axb_status open_file(axb_output *o, axb_error *err)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    bool ok = fapl >= 0 && H5Pset_fapl_mpio(fapl, o->comm, MPI_INFO_NULL) >= 0 &&
              /* Metadata is identical on every rank: reading and flushing it collectively lets one
               * rank do the I/O instead of all of them. */
              H5Pset_all_coll_metadata_ops(fapl, true) >= 0 &&
              H5Pset_coll_metadata_write(fapl, true) >= 0;
    if (ok) {
        o->file = H5Fcreate(o->partial, o->overwrite ? H5F_ACC_TRUNC : H5F_ACC_EXCL, H5P_DEFAULT,
                            fapl);
        ok = o->file >= 0;
    }
    if (fapl >= 0) H5Pclose(fapl);
    if (!ok) {
        char why[512];
        axb_h5_last_error(why, sizeof why);
        return axb_error_set(err, AXB_ERR_HDF5, "%s: cannot create: %s", o->partial, why);
    }
    o->dxpl_coll = H5Pcreate(H5P_DATASET_XFER);
    if (o->dxpl_coll < 0 || H5Pset_dxpl_mpio(o->dxpl_coll, H5FD_MPIO_COLLECTIVE) < 0)
        return axb_error_set(err, AXB_ERR_HDF5, "%s: cannot set up collective transfers",
                             o->partial);
    return AXB_OK;
}

/* Collective: closes whatever is open. Returns this rank's status of the HDF5 close. */
static axb_status close_file(axb_output *o, axb_error *err)
{
    axb_status st = AXB_OK;
    if (o->ops) o->ops->destroy(o);
    if (o->dxpl_coll >= 0) H5Pclose(o->dxpl_coll);
    o->dxpl_coll = H5I_INVALID_HID;
    if (o->file >= 0 && H5Fclose(o->file) < 0) {
        char why[512];
        axb_h5_last_error(why, sizeof why);
        st = axb_error_set(err, AXB_ERR_HDF5, "%s: closing failed: %s", o->partial, why);
    }
    o->file = H5I_INVALID_HID;
    return st;
}

static void free_output(axb_output *o)
{
    if (!o) return;
    if (o->comm != MPI_COMM_NULL) MPI_Comm_free(&o->comm);
    free(o->written);
    free(o->convbuf);
    free(o->unsynced);
    free(o);
}

/* ---------------------------------------------------------------------------------------------
 * Create */

static axb_status new_output(MPI_Comm comm, const axb_output_desc *d, axb_output **out,
                             axb_error *err)
{
    axb_output *o = calloc(1, sizeof *o);
    if (!o) return axb_error_set(err, AXB_ERR_NOMEM, "output");
    o->comm = MPI_COMM_NULL;
    o->file = o->dxpl_coll = H5I_INVALID_HID;
    *out = o;
    if (MPI_Comm_dup(comm, &o->comm) != MPI_SUCCESS)
        return axb_error_set(err, AXB_ERR_MPI, "cannot duplicate the communicator");
    MPI_Comm_rank(o->comm, &o->rank);
    MPI_Comm_size(o->comm, &o->size);
    o->ops = OUT_BACKENDS[d->format];
    snprintf(o->path, sizeof o->path, "%s", d->path);
    snprintf(o->partial, sizeof o->partial, "%s.partial", d->path);
    snprintf(o->log, sizeof o->log, "%s.rows", o->partial);
    o->logging = o->ops->reopen != NULL;
    o->overwrite = d->overwrite;
    o->precision = d->precision;
    o->memtype = d->precision == AXB_FLOAT32 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE;
    o->elsize = d->precision == AXB_FLOAT32 ? sizeof(float) : sizeof(double);
    snprintf(o->components, sizeof o->components, "%s", d->components);
    o->ncomp = (int)strlen(o->components);
    o->nrows = d->nrows;
    o->nsamples = d->nsamples;
    o->dt = d->dt;
    o->start_offset = d->start_offset;
    o->units = axb_output_units(d->kind);
    o->written = calloc((size_t)d->nrows, 1);
    if (!o->written) return axb_error_set(err, AXB_ERR_NOMEM, "row bookkeeping");
    return AXB_OK;
}

axb_status axb_output_create(MPI_Comm comm, const axb_output_desc *d, axb_output **out,
                             axb_error *err)
{
    axb_error local = AXB_ERROR_INIT;
    if (!err) err = &local;
    if (!out) return axb_error_set(err, AXB_ERR_ARG, "no place for the output handle");
    *out = NULL;
    axb_status st = check_desc(d, err);
    if (st == AXB_OK && OUT_BACKENDS[d->format]->check)
        st = OUT_BACKENDS[d->format]->check(d, err);
    if (st != AXB_OK && d && d->path) axb_error_prefix(err, "%s", d->path);
    st = agree(NULL, comm, st, err);
    if (st != AXB_OK) return st;

    axb_output *o = NULL;
    st = agree(NULL, comm, new_output(comm, d, &o, err), err);
    if (st == AXB_OK) st = prepare_files(o, err);
    if (st != AXB_OK) {
        free_output(o);
        return st;
    }
    st = agree(o, o->comm, open_file(o, err), err);
    if (st == AXB_OK) {
        st = o->ops->create(o, d, err);
        if (st != AXB_OK) axb_error_prefix(err, "%s", o->partial);
        st = agree(o, o->comm, st, err);
    }
    if (st == AXB_OK && o->rank == 0) unlink(o->log); /* a record of an earlier, replaced run */
    if (st != AXB_OK) {
        /* The .partial file is ours and holds nothing yet: remove it rather than leave debris. */
        bool created = o->file >= 0;
        axb_error ignored = AXB_ERROR_INIT;
        close_file(o, &ignored);
        MPI_Barrier(o->comm);
        if (created && o->rank == 0) unlink(o->partial);
        free_output(o);
        return st;
    }
    *out = o;
    return AXB_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Write */

typedef struct row_pos {
    int64_t row, pos;           /* row index and its position in the caller's arrays */
} row_pos;

static int cmp_row_pos(const void *a, const void *b)
{
    const row_pos *x = a, *y = b;
    return (x->row > y->row) - (x->row < y->row);
}

static axb_status grow_buffer(axb_output *o, size_t bytes, axb_error *err)
{
    if (bytes <= o->convbuf_size) return AXB_OK;
    void *p = realloc(o->convbuf, bytes);
    if (!p) return axb_error_set(err, AXB_ERR_NOMEM, "write buffer of %zu bytes", bytes);
    o->convbuf = p;
    o->convbuf_size = bytes;
    return AXB_OK;
}

/* Sorts this rank's rows (HDF5 walks a union of hyperslabs in file order, whatever order the
 * selection was built in), checks them, and puts the data in file order and file precision.
 * *outdata is @p data itself when no copy is needed. */
static axb_status prepare_rows(axb_output *o, int64_t n, const int64_t *rows, const double *data,
                               int64_t *sorted, const void **outdata, axb_error *err)
{
    AXB_CHECK(err, n >= 0, AXB_ERR_ARG, "n = %" PRId64 " rows", n);
    if (n == 0) {
        *outdata = NULL;
        return AXB_OK;
    }
    AXB_CHECK(err, rows && data, AXB_ERR_ARG, "rows or data missing for %" PRId64 " rows", n);
    row_pos *rp = malloc((size_t)n * sizeof *rp);
    if (!rp) return axb_error_set(err, AXB_ERR_NOMEM, "row list of %" PRId64 " rows", n);
    bool in_order = true;
    for (int64_t k = 0; k < n; k++) {
        if (rows[k] < 0 || rows[k] >= o->nrows) {
            free(rp);
            return axb_error_set(err, AXB_ERR_ARG, "row %" PRId64 " (entry %" PRId64
                                 ") outside 0..%" PRId64, rows[k], k, o->nrows - 1);
        }
        if (o->written[rows[k]]) {
            free(rp);
            return axb_error_set(err, AXB_ERR_ARG, "row %" PRId64 " was already written by rank %d",
                                 rows[k], o->rank);
        }
        rp[k] = (row_pos){rows[k], k};
        if (k && rows[k] <= rows[k - 1]) in_order = false;
    }
    if (!in_order) qsort(rp, (size_t)n, sizeof *rp, cmp_row_pos);
    for (int64_t k = 0; k < n; k++) {
        if (k && rp[k].row == rp[k - 1].row) {
            int64_t r = rp[k].row;
            free(rp);
            return axb_error_set(err, AXB_ERR_ARG, "row %" PRId64 " appears twice in one write", r);
        }
        sorted[k] = rp[k].row;
    }
    const size_t per = (size_t)o->ncomp * (size_t)o->nsamples;
    if (in_order && o->precision == AXB_FLOAT64) {
        *outdata = data;
        free(rp);
        return AXB_OK;
    }
    axb_status st = grow_buffer(o, (size_t)n * per * o->elsize, err);
    if (st == AXB_OK) {
        for (int64_t k = 0; k < n; k++) {
            const double *src = data + (size_t)rp[k].pos * per;
            if (o->precision == AXB_FLOAT64) {
                memcpy((double *)o->convbuf + (size_t)k * per, src, per * sizeof(double));
            } else {
                float *dst = (float *)o->convbuf + (size_t)k * per;
                for (size_t i = 0; i < per; i++) dst[i] = (float)src[i];
            }
        }
        *outdata = o->convbuf;
    }
    free(rp);
    return st;
}

/* ---------------------------------------------------------------------------------------------
 * The record of rows on disk (formats that can resume). After every write the file is flushed
 * (MPI_File_sync underneath), then rank 0 appends the rows of all ranks as one record:
 * [magic][count][rows...][checksum]. A kill in the middle of an append leaves a torn last record,
 * which the reader recognises and ignores, so only rows that are certainly on disk are trusted. */

#define LOG_MAGIC INT64_C(0x31776f5262786161)
/* MPI counts are int: long row lists go in pieces. */
#define OUT_MPI_CHUNK (1 << 30)

static axb_status log_rows(axb_output *o, int64_t n, const int64_t *rows, axb_error *err)
{
    axb_status st = AXB_OK;
    if (H5Fflush(o->file, H5F_SCOPE_GLOBAL) < 0) st = axb_error_set(err, AXB_ERR_HDF5, "%s: flush failed", o->partial);
    st = agree(o, o->comm, st, err);
    if (st != AXB_OK) return st;
    int cnt = (int)n, *counts = NULL, *displs = NULL;
    int64_t *all = NULL, total = 0;
    if (o->rank == 0) {
        counts = calloc((size_t)o->size, sizeof *counts);
        displs = calloc((size_t)o->size, sizeof *displs);
    }
    MPI_Gather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, o->comm);
    if (o->rank == 0) {
        for (int r = 0; r < o->size; r++) {
            displs[r] = (int)total;
            total += counts[r];
        }
        all = malloc((size_t)(total ? total : 1) * sizeof *all);
    }
    MPI_Gatherv(rows, cnt, MPI_INT64_T, all, counts, displs, MPI_INT64_T, 0, o->comm);
    if (o->rank == 0 && total > 0) {
        FILE *f = fopen(o->log, "ab");
        uint64_t sum = (uint64_t)total;
        for (int64_t k = 0; k < total; k++) sum += (uint64_t)all[k];
        const int64_t head[2] = {LOG_MAGIC, total};
        bool ok = f && fwrite(head, sizeof head, 1, f) == 1 &&
                  fwrite(all, sizeof *all, (size_t)total, f) == (size_t)total &&
                  fwrite(&sum, sizeof sum, 1, f) == 1 && fflush(f) == 0 && fsync(fileno(f)) == 0;
        if (f) ok = fclose(f) == 0 && ok;
        if (!ok) st = axb_error_set(err, AXB_ERR_IO, "%s: cannot record written rows: %s", o->log, strerror(errno));
    }
    free(counts);
    free(displs);
    free(all);
    return agree(o, o->comm, st, err);
}

/* Rank 0: marks in done[] every row of the intact records of the log. */
static axb_status read_log(const axb_output *o, uint8_t *done, int64_t *ndone, axb_error *err)
{
    *ndone = 0;
    FILE *f = fopen(o->log, "rb");
    if (!f) return axb_error_set(err, AXB_ERR_IO, "cannot resume: %s: %s", o->log, strerror(errno));
    int64_t head[2];
    int64_t *rows = NULL;
    while (fread(head, sizeof head, 1, f) == 1 && head[0] == LOG_MAGIC && head[1] > 0 && head[1] <= o->nrows) {
        int64_t *nr = realloc(rows, (size_t)head[1] * sizeof *rows);
        if (!nr) break;
        rows = nr;
        uint64_t sum, check = (uint64_t)head[1];
        if (fread(rows, sizeof *rows, (size_t)head[1], f) != (size_t)head[1] || fread(&sum, sizeof sum, 1, f) != 1) break;
        bool valid = true;
        for (int64_t k = 0; k < head[1]; k++) {
            check += (uint64_t)rows[k];
            valid = valid && rows[k] >= 0 && rows[k] < o->nrows;
        }
        if (!valid || check != sum) break; /* a torn record: nothing after it is trusted */
        for (int64_t k = 0; k < head[1]; k++) *ndone += !done[rows[k]], done[rows[k]] = 1;
    }
    free(rows);
    fclose(f);
    return AXB_OK;
}

axb_status axb_output_resume(MPI_Comm comm, const axb_output_desc *d, uint8_t *done, axb_output **out,
                             axb_error *err)
{
    axb_error local = AXB_ERROR_INIT;
    if (!err) err = &local;
    *out = NULL;
    axb_status st = check_desc(d, err);
    if (st == AXB_OK && OUT_BACKENDS[d->format]->check) st = OUT_BACKENDS[d->format]->check(d, err);
    if (st == AXB_OK && !OUT_BACKENDS[d->format]->reopen)
        st = axb_error_set(err, AXB_ERR_UNSUPPORTED, "the %s format cannot resume", FORMAT_NAMES[d->format]);
    st = agree(NULL, comm, st, err);
    if (st != AXB_OK) return st;
    axb_output *o = NULL;
    st = agree(NULL, comm, new_output(comm, d, &o, err), err);
    if (st == AXB_OK && o->rank == 0) {
        struct stat sb;
        if (stat(o->path, &sb) == 0)
            st = axb_error_set(err, AXB_ERR_ARG, "%s is complete already: nothing to resume", o->path);
        else if (stat(o->partial, &sb) != 0 || stat(o->log, &sb) != 0)
            st = axb_error_set(err, AXB_ERR_IO, "cannot resume: no unfinished %s (or its record %s)", o->partial, o->log);
    }
    if (o) st = agree(o, o->comm, st, err);
    if (st == AXB_OK) {
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_fapl_mpio(fapl, o->comm, MPI_INFO_NULL);
        o->file = H5Fopen(o->partial, H5F_ACC_RDWR, fapl);
        H5Pclose(fapl);
        o->dxpl_coll = H5Pcreate(H5P_DATASET_XFER);
        if (o->file < 0 || o->dxpl_coll < 0 || H5Pset_dxpl_mpio(o->dxpl_coll, H5FD_MPIO_COLLECTIVE) < 0) {
            char why[512];
            axb_h5_last_error(why, sizeof why);
            st = axb_error_set(err, AXB_ERR_HDF5, "cannot resume: %s: %s (damaged by the kill? start again with --force)", o->partial, why);
        }
        st = agree(o, o->comm, st, err);
    }
    if (st == AXB_OK) st = agree(o, o->comm, o->ops->reopen(o, d, err), err);
    int64_t ndone = 0;
    memset(done, 0, (size_t)d->nrows);
    if (st == AXB_OK) st = agree(o, o->comm, o->rank == 0 ? read_log(o, done, &ndone, err) : AXB_OK, err);
    if (st == AXB_OK) {
        for (int64_t off = 0; off < d->nrows; off += OUT_MPI_CHUNK)
            MPI_Bcast(done + off, (int)(d->nrows - off < OUT_MPI_CHUNK ? d->nrows - off : OUT_MPI_CHUNK), MPI_UINT8_T, 0, o->comm);
        /* rows already on disk count as written by rank 0 for the completeness check at close */
        if (o->rank == 0) memcpy(o->written, done, (size_t)d->nrows);
    }
    if (st != AXB_OK) {
        if (o) {
            axb_error ignored = AXB_ERROR_INIT;
            close_file(o, &ignored);
        }
        free_output(o);
        return st;
    }
    *out = o;
    return AXB_OK;
}

axb_status axb_output_write(axb_output *o, int64_t n, const int64_t *rows, const double *data,
                            axb_error *err)
{
    axb_error local = AXB_ERROR_INIT;
    if (!err) err = &local;
    AXB_CHECK(err, o, AXB_ERR_ARG, "output is not open");
    int64_t *sorted = malloc((size_t)(n > 0 ? n : 1) * sizeof *sorted);
    const void *buf = NULL;
    axb_status st = sorted ? prepare_rows(o, n, rows, data, sorted, &buf, err)
                           : axb_error_set(err, AXB_ERR_NOMEM, "row list of %" PRId64 " rows", n);
    if (st != AXB_OK) axb_error_prefix(err, "%s: write", o->path);
    st = agree(o, o->comm, st, err);
    if (st == AXB_OK) {
        st = o->ops->write(o, n, sorted, buf, err);
        if (st != AXB_OK) axb_error_prefix(err, "%s", o->partial);
        st = agree(o, o->comm, st, err);
    }
    if (st == AXB_OK)
        for (int64_t k = 0; k < n; k++) o->written[sorted[k]] = 1;
    if (st == AXB_OK && o->logging) st = log_rows(o, n, sorted, err);
    free(sorted);
    return st;
}

bool axb_output_can_write_local(const axb_output *o)
{
    return o && o->ops->write_local != NULL;
}

axb_status axb_output_write_local(axb_output *o, int64_t n, const int64_t *rows, const double *data,
                                  axb_error *err)
{
    axb_error local = AXB_ERROR_INIT;
    if (!err) err = &local;
    AXB_CHECK(err, o, AXB_ERR_ARG, "output is not open");
    AXB_CHECK(err, o->ops->write_local, AXB_ERR_UNSUPPORTED, "%s: the %s format has no independent writes",
              o->path, o->ops->name);
    if (n == 0) return AXB_OK;
    if (o->nunsynced + n > o->unsynced_cap) {
        int64_t cap = o->unsynced_cap ? o->unsynced_cap : 4096;
        while (cap < o->nunsynced + n) cap *= 2;
        int64_t *p = realloc(o->unsynced, (size_t)cap * sizeof *p);
        if (!p) return axb_error_set(err, AXB_ERR_NOMEM, "%s: list of %" PRId64 " written rows", o->path, cap);
        o->unsynced = p;
        o->unsynced_cap = cap;
    }
    int64_t *sorted = o->unsynced + o->nunsynced;
    const void *buf = NULL;
    axb_status st = prepare_rows(o, n, rows, data, sorted, &buf, err);
    if (st == AXB_OK) st = o->ops->write_local(o, n, sorted, buf, err);
    if (st != AXB_OK) return axb_error_prefix(err, "%s: write", o->partial);
    for (int64_t k = 0; k < n; k++) o->written[sorted[k]] = 1;
    o->nunsynced += n;
    return AXB_OK;
}

axb_status axb_output_sync(axb_output *o, axb_status st, axb_error *err)
{
    axb_error local = AXB_ERROR_INIT;
    if (!err) err = &local;
    AXB_CHECK(err, o, AXB_ERR_ARG, "output is not open");
    st = agree(o, o->comm, st, err);
    if (st == AXB_OK && o->logging) st = log_rows(o, o->nunsynced, o->unsynced, err);
    o->nunsynced = 0;
    return st;
}

/* ---------------------------------------------------------------------------------------------
 * Close */


/* all[r] = OR over ranks of written[r]; *dup = the first row written by more than one rank (or
 * -1), found with an exclusive prefix OR: a rank's row is a duplicate if a lower rank has it. */
static axb_status reduce_written(const axb_output *o, uint8_t *all, int64_t *dup, axb_error *err)
{
    uint8_t *lower = malloc((size_t)OUT_MPI_CHUNK < (size_t)o->nrows ? (size_t)OUT_MPI_CHUNK
                                                                       : (size_t)o->nrows);
    int ok = lower != NULL, okall = 0;
    if (MPI_Allreduce(&ok, &okall, 1, MPI_INT, MPI_MIN, o->comm) != MPI_SUCCESS || !okall) {
        free(lower);
        return axb_error_set(err, ok ? AXB_ERR_REMOTE : AXB_ERR_NOMEM,
                             "%s: no memory to check which rows were written", o->path);
    }
    int64_t mydup = INT64_MAX;
    for (int64_t off = 0; off < o->nrows; off += OUT_MPI_CHUNK) {
        int cnt = (int)(o->nrows - off < OUT_MPI_CHUNK ? o->nrows - off : OUT_MPI_CHUNK);
        if (MPI_Allreduce(o->written + off, all + off, cnt, MPI_UINT8_T, MPI_BOR, o->comm) ||
            MPI_Exscan(o->written + off, lower, cnt, MPI_UINT8_T, MPI_BOR, o->comm)) {
            free(lower);
            return axb_error_set(err, AXB_ERR_MPI, "%s: reduction of written rows failed", o->path);
        }
        if (o->rank == 0) continue;       /* Exscan leaves rank 0's buffer undefined */
        for (int i = 0; i < cnt && mydup == INT64_MAX; i++)
            if (o->written[off + i] && lower[i]) mydup = off + i;
    }
    free(lower);
    int64_t first = INT64_MAX;
    if (MPI_Allreduce(&mydup, &first, 1, MPI_INT64_T, MPI_MIN, o->comm) != MPI_SUCCESS)
        return axb_error_set(err, AXB_ERR_MPI, "%s: reduction of written rows failed", o->path);
    *dup = first == INT64_MAX ? -1 : first;
    return AXB_OK;
}

/* Rank 0: the rename that makes the file visible under its final name, then a sync of the
 * directory so the new name survives a crash. MPI_File_close (in H5Fclose) already synchronised
 * the data of every rank. */
static axb_status commit_file(const axb_output *o, axb_error *err)
{
    if (rename(o->partial, o->path) != 0)
        return axb_error_set(err, AXB_ERR_IO, "%s: cannot rename to %s: %s", o->partial, o->path,
                             strerror(errno));
    char dir[OUT_PATH_MAX];
    parent_dir(o->path, dir, sizeof dir);
    int fd = open(dir, O_RDONLY);
    if (fd >= 0) {
        (void)fsync(fd);            /* best effort: some file systems refuse fsync on directories */
        close(fd);
    }
    return AXB_OK;
}

static axb_status check_complete(const axb_output *o, const uint8_t *all, int64_t dup,
                                 axb_error *err)
{
    int64_t missing = 0, first = -1;
    for (int64_t r = 0; r < o->nrows; r++)
        if (!all[r] && missing++ == 0) first = r;
    if (missing)
        return axb_error_set(err, AXB_ERR_ARG,
                             "%s: not committed: %" PRId64 " of %" PRId64
                             " rows were never written (first: row %" PRId64
                             "); the data written stay in %s", o->path,
                             missing, o->nrows, first, o->partial);
    if (dup >= 0)
        return axb_error_set(err, AXB_ERR_ARG,
                             "%s: not committed: row %" PRId64 " was written by two ranks; the "
                             "data stay in %s", o->path, dup, o->partial);
    return AXB_OK;
}

axb_status axb_output_close(axb_output **po, bool commit, axb_error *err)
{
    axb_error local = AXB_ERROR_INIT;
    if (!err) err = &local;
    AXB_CHECK(err, po && *po, AXB_ERR_ARG, "output is not open");
    axb_output *o = *po;
    *po = NULL;

    uint8_t *all = malloc((size_t)o->nrows);
    int64_t dup = -1;
    axb_status st =
        all ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "%s: row bookkeeping", o->path);
    st = agree(o, o->comm, st, err);
    if (st == AXB_OK) st = reduce_written(o, all, &dup, err);
    if (st == AXB_OK && o->ops->finish) {
        st = o->ops->finish(o, all, err);
        if (st != AXB_OK) axb_error_prefix(err, "%s", o->partial);
    }
    /* The file is closed whatever happened, so no rank keeps it open. */
    axb_error cerr = AXB_ERROR_INIT;
    axb_status cst = close_file(o, &cerr);
    if (st == AXB_OK && cst != AXB_OK) {
        st = cst;
        *err = cerr;
    }
    st = agree(o, o->comm, st, err);
    if (st == AXB_OK && commit) {
        /* Every rank holds the same reduced row flags, so every rank reaches this verdict. */
        st = check_complete(o, all, dup, err);
        if (st == AXB_OK) st = agree(o, o->comm, o->rank == 0 ? commit_file(o, err) : AXB_OK, err);
        if (st == AXB_OK && o->rank == 0) unlink(o->log);
    }
    free(all);
    free_output(o);
    return st;
}
