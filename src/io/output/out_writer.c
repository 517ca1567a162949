/* Output life cycle: the folder checks, PATH.partial and its record (core/partial.h), creation,
 * resumption, and the close that checks every row was written once before the file is published.
 * Every collective step ends in an agreement (core/agree.h), so no rank is left waiting. */
#include "io/output/out_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/agree.h"
#include "core/mpi_check.h"
#include "core/paths.h"
#include "io/hdf5/h5util.h"

/* Indexed by axb_out_format. */
static const axb_out_ops *const OUT_BACKENDS[] = {&axb_out_bulk_ops, &axb_out_asdf_ops};

/* ---------------------------------------------------------------------------------------------
 * File system (rank 0 only: one process touches the metadata server) */

/* The folder must exist and be writable and PATH must not be a folder: said here in the writer's
 * words, before axb_partial_prepare decides about PATH and PATH.partial themselves. */
static axb_status check_folder(const axb_output *o, axb_error *err)
{
    char dir[AXB_PARTIAL_PATH_MAX];
    axb_path_parent(o->path, dir, sizeof dir);
    struct stat st;
    if (stat(dir, &st) != 0)
        return axb_error_set(err, AXB_ERR_IO, "%s: directory '%s' %s", o->path, dir,
                             errno == ENOENT ? "does not exist" : strerror(errno));
    AXB_CHECK(err, S_ISDIR(st.st_mode), AXB_ERR_IO, "%s: '%s' is not a directory", o->path, dir);
    AXB_CHECK(err, access(dir, W_OK) == 0, AXB_ERR_IO, "%s: directory '%s' is not writable", o->path, dir);
    AXB_CHECK(err, stat(o->path, &st) != 0 || !S_ISDIR(st.st_mode), AXB_ERR_IO, "%s: is a directory", o->path);
    AXB_CHECK(err, stat(o->partial, &st) != 0 || !S_ISDIR(st.st_mode), AXB_ERR_IO, "%s: is a directory", o->partial);
    /* a file must be creatable there (a read-only or pseudo file system such as /proc passes the
     * checks above as root): asked of the system itself, whose reason is then the message */
    char probe[AXB_PARTIAL_PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s.probe", o->partial);
    const int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0 && errno != EEXIST)
        return axb_error_set(err, AXB_ERR_IO, "%s: cannot create a file in '%s': %s", o->path, dir, strerror(errno));
    if (fd >= 0) {
        close(fd);
        unlink(probe);
    }
    /* the traces' bytes (and ASDF's per-trace metadata) must fit: a disk that fills up during
     * the run fails it late, after hours; a resume continues once there is room */
    const double traces = (double)o->nrows * o->ncomp;
    const double need = traces * ((double)o->nsamples * (double)o->elsize) +
        (o->ops == &axb_out_asdf_ops ? traces * 2048.0 : 0) + 4.0 * (1 << 20);
    AXB_TRY(axb_path_check_room(o->path, dir, "the output", need, err));
    return AXB_OK;
}

static axb_time_ns now_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return 0;
    return (axb_time_ns)ts.tv_sec * AXB_NS_PER_S + ts.tv_nsec;
}

/* Rank 0 checks the folder and clears what an earlier run left (NEW refuses PATH or
 * PATH.partial, FORCE removes PATH.partial and its record; PATH goes only at publication) and
 * reads the clock; every rank learns the outcome and the creation time. */
static axb_status prepare_files(axb_output *o, axb_error *err)
{
    axb_status st = AXB_OK;
    if (o->rank == 0) {
        st = check_folder(o, err);
        if (st == AXB_OK) st = axb_partial_prepare(&o->names, o->overwrite ? AXB_PARTIAL_FORCE : AXB_PARTIAL_NEW, err);
        o->created = now_ns();
    }
    AXB_TRY(axb_agree(o->comm, st, err));
    AXB_MPI_AGREE(o->comm, err, MPI_Bcast(&o->created, 1, MPI_INT64_T, 0, o->comm), "broadcast of the creation time");
    return AXB_OK;
}

/* @p create: rank 0 alone creates the file through HDF5's serial driver (create_file); otherwise
 * every rank opens it for parallel writing. */
static axb_status open_file(axb_output *o, bool create, axb_error *err)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    bool ok = fapl >= 0 &&
        (create ||
         (H5Pset_fapl_mpio(fapl, o->comm, MPI_INFO_NULL) >= 0 &&
          /* Metadata is identical on every rank: reading and flushing it collectively lets one
           * rank do the I/O instead of all of them. */
          H5Pset_all_coll_metadata_ops(fapl, true) >= 0 && H5Pset_coll_metadata_write(fapl, true) >= 0));
    if (ok) {
        o->file =
            create ? H5Fcreate(o->partial, H5F_ACC_EXCL, H5P_DEFAULT, fapl) : H5Fopen(o->partial, H5F_ACC_RDWR, fapl);
        ok = o->file >= 0;
    }
    if (fapl >= 0) H5Pclose(fapl);
    if (!ok && create) return axb_h5_error(err, "%s: cannot create", o->partial);
    if (!ok) return axb_h5_error(err, "cannot resume: %s (damaged by the kill? start again with --force)", o->partial);
    o->dxpl_coll = H5Pcreate(H5P_DATASET_XFER);
    AXB_H5_TRY(err, o->dxpl_coll, "%s: cannot set up collective transfers", o->partial);
    if (!create)
        AXB_H5_TRY(err, H5Pset_dxpl_mpio(o->dxpl_coll, H5FD_MPIO_COLLECTIVE), "%s: cannot set up collective transfers",
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
    if (o->file >= 0 && H5Fclose(o->file) < 0) st = axb_h5_error(err, "%s: closing failed", o->partial);
    o->file = H5I_INVALID_HID;
    return st;
}

/* Rank 0: the file's whole structure (datasets allocated, tables and metadata written) through
 * the serial driver, then closed. Parallel HDF5 needs every rank to make the same metadata calls
 * in the same order; a rank that failed one (a full disk, say) could not take part in the rest,
 * and the others would wait in the collective close for ever. One rank cannot disagree with
 * itself. The data phase then writes raw data only. */
static axb_status create_file(axb_output *o, const axb_output_desc *d, axb_error *err)
{
    axb_status st = open_file(o, true, err);
    if (st == AXB_OK) {
        st = o->ops->create(o, d, err);
        if (st != AXB_OK) axb_error_prefix(err, "%s", o->partial);
    }
    axb_error cerr = AXB_ERROR_INIT;
    const axb_status cst = close_file(o, &cerr);
    if (st == AXB_OK && cst != AXB_OK) {
        st = cst;
        *err = cerr;
    }
    return st;
}

static void free_output(axb_output *o)
{
    if (!o) return;
    if (o->comm != MPI_COMM_NULL) MPI_Comm_free(&o->comm);
    free(o->written);
    free(o->convbuf);
    free(o->stage);
    free(o->stage_rows);
    free(o->runbuf);
    free(o->pending);
    free(o);
}

/* Closes and frees an output that failed to open; with @p remove, the .partial it created (it
 * holds nothing yet) goes too, rather than be left as debris. */
static void abandon(axb_output *o, bool remove)
{
    if (!o) return;
    axb_error ignored = AXB_ERROR_INIT;
    (void)close_file(o, &ignored);
    if (remove && o->comm != MPI_COMM_NULL) {
        /* every rank has closed the file before rank 0 removes it */
        (void)MPI_Barrier(o->comm);
        /* only called once the folder was prepared: a .partial there now is this run's */
        if (o->rank == 0) unlink(o->partial);
    }
    free_output(o);
}

/* ---------------------------------------------------------------------------------------------
 * Create and resume */

static axb_status new_output(MPI_Comm comm, const axb_output_desc *d, axb_output **out, axb_error *err)
{
    axb_output *o = calloc(1, sizeof *o);
    if (!o) return axb_error_set(err, AXB_ERR_NOMEM, "output");
    o->comm = MPI_COMM_NULL;
    o->file = o->dxpl_coll = H5I_INVALID_HID;
    *out = o;
    AXB_MPI_AGREE(comm, err, MPI_Comm_dup(comm, &o->comm), "cannot duplicate the communicator");
    AXB_MPI_TRY(err, MPI_Comm_rank(o->comm, &o->rank), "rank");
    AXB_MPI_TRY(err, MPI_Comm_size(o->comm, &o->size), "communicator size");
    o->ops = OUT_BACKENDS[d->format];
    AXB_TRY(axb_partial_names(d->path, &o->names, err));
    o->path = o->names.final;
    o->partial = o->names.partial;
    axb_out_identity(d, o->identity, sizeof o->identity);
    o->recording = o->ops->reopen != NULL;
    o->checkpoint_seconds = d->checkpoint_seconds;
    o->last_record = axb_wall_seconds();
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

/* Descriptor checks (every rank reaches the same verdict) and the handle. */
static axb_status start_output(MPI_Comm comm, const axb_output_desc *d, bool resume, axb_output **out, axb_error *err)
{
    *out = NULL;
    axb_status st = axb_out_check_desc(d, err);
    if (st == AXB_OK && OUT_BACKENDS[d->format]->check) st = OUT_BACKENDS[d->format]->check(d, err);
    if (st == AXB_OK && resume && !OUT_BACKENDS[d->format]->reopen)
        st = axb_error_set(err, AXB_ERR_UNSUPPORTED, "the %s format cannot resume", axb_out_format_name(d->format));
    if (st != AXB_OK && d && d->path) axb_error_prefix(err, "%s", d->path);
    AXB_TRY(axb_agree(comm, st, err));
    axb_output *o = NULL;
    st = axb_agree(comm, new_output(comm, d, &o, err), err);
    if (st != AXB_OK) {
        abandon(o, false);
        return st;
    }
    *out = o;
    return AXB_OK;
}

axb_status axb_output_create(MPI_Comm comm, const axb_output_desc *d, axb_output **out, axb_error *err)
{
    axb_error local = AXB_ERROR_INIT;
    if (!err) err = &local;
    if (!out) return axb_error_set(err, AXB_ERR_ARG, "no place for the output handle");
    axb_output *o = NULL;
    AXB_TRY(start_output(comm, d, false, &o, err));
    axb_status st = prepare_files(o, err);
    if (st != AXB_OK) {
        abandon(o, false);
        return st;
    }
    st = axb_agree(o->comm, o->rank == 0 ? create_file(o, d, err) : AXB_OK, err);
    if (st == AXB_OK) st = axb_agree(o->comm, open_file(o, false, err), err);
    if (st == AXB_OK) st = axb_agree(o->comm, o->ops->reopen(o, d, err), err);
    if (st == AXB_OK && o->recording) {
        const axb_status rs =
            o->rank == 0 ? axb_partial_record_start(&o->names, OUT_RECORD_KIND, o->identity, err) : AXB_OK;
        st = axb_agree(o->comm, rs, err);
    }
    if (st != AXB_OK) {
        abandon(o, true);
        return st;
    }
    *out = o;
    return AXB_OK;
}

/* Rank 0: the record must be this job's; its rows are marked in done[], then every rank gets them.
 * Rows already on disk count as written by rank 0 for the completeness check at close. */
static axb_status read_record(axb_output *o, uint8_t *done, axb_error *err)
{
    memset(done, 0, (size_t)o->nrows);
    int64_t ndone = 0;
    axb_status st = AXB_OK;
    if (o->rank == 0) {
        st = axb_partial_prepare(&o->names, AXB_PARTIAL_RESUME, err);
        if (st == AXB_OK)
            st = axb_partial_record_read(&o->names, OUT_RECORD_KIND, o->identity, o->nrows, done, &ndone, err);
    }
    AXB_TRY(axb_agree(o->comm, st, err));
    for (int64_t off = 0; off < o->nrows; off += OUT_MPI_CHUNK) {
        const int cnt = (int)(o->nrows - off < OUT_MPI_CHUNK ? o->nrows - off : OUT_MPI_CHUNK);
        AXB_MPI_CHECK(st, err, MPI_Bcast(done + off, cnt, MPI_UINT8_T, 0, o->comm), "broadcast of the rows on disk");
    }
    if (o->rank == 0) memcpy(o->written, done, (size_t)o->nrows);
    return axb_agree(o->comm, st, err);
}

axb_status axb_output_resume(MPI_Comm comm, const axb_output_desc *d, uint8_t *done, axb_output **out, axb_error *err)
{
    axb_error local = AXB_ERROR_INIT;
    if (!err) err = &local;
    if (!out) return axb_error_set(err, AXB_ERR_ARG, "no place for the output handle");
    /* killed before its first record: nothing in PATH.partial can be trusted, so the run starts
     * again from nothing (replacing the leftover) */
    int rank = 0, fresh = 0;
    AXB_MPI_TRY(err, MPI_Comm_rank(comm, &rank), "rank");
    axb_partial names;
    if (rank == 0 && d && d->path && axb_partial_names(d->path, &names, NULL) == AXB_OK)
        fresh = axb_partial_nothing_recorded(&names);
    AXB_MPI_AGREE(comm, err, MPI_Bcast(&fresh, 1, MPI_INT, 0, comm), "resume decision");
    if (fresh) {
        axb_output_desc again = *d;
        again.overwrite = true;
        memset(done, 0, (size_t)d->nrows);
        return axb_output_create(comm, &again, out, err);
    }
    axb_output *o = NULL;
    AXB_TRY(start_output(comm, d, true, &o, err));
    axb_status st = read_record(o, done, err);
    if (st == AXB_OK) st = axb_agree(o->comm, open_file(o, false, err), err);
    if (st == AXB_OK) st = axb_agree(o->comm, o->ops->reopen(o, d, err), err);
    if (st != AXB_OK) {
        abandon(o, false);
        return st;
    }
    *out = o;
    return AXB_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Close */

/* all[r] = OR over ranks of written[r]; *dup = the first row written by more than one rank (or
 * -1), found with an exclusive prefix OR: a rank's row is a duplicate if a lower rank has it. */
static axb_status reduce_written(const axb_output *o, uint8_t *all, int64_t *dup, axb_error *err)
{
    uint8_t *lower = malloc((size_t)OUT_MPI_CHUNK < (size_t)o->nrows ? (size_t)OUT_MPI_CHUNK : (size_t)o->nrows);
    axb_status st =
        lower ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "%s: no memory to check which rows were written", o->path);
    st = axb_agree(o->comm, st, err);
    if (st != AXB_OK) {
        free(lower);
        return st;
    }
    int64_t mydup = INT64_MAX;
    /* every rank takes part in every piece, whatever failed before */
    for (int64_t off = 0; off < o->nrows; off += OUT_MPI_CHUNK) {
        const int cnt = (int)(o->nrows - off < OUT_MPI_CHUNK ? o->nrows - off : OUT_MPI_CHUNK);
        AXB_MPI_CHECK(st, err, MPI_Allreduce(o->written + off, all + off, cnt, MPI_UINT8_T, MPI_BOR, o->comm),
                      "reduction of written rows");
        AXB_MPI_CHECK(st, err, MPI_Exscan(o->written + off, lower, cnt, MPI_UINT8_T, MPI_BOR, o->comm),
                      "reduction of written rows");
        if (o->rank == 0 || st != AXB_OK) continue; /* Exscan leaves rank 0's buffer undefined */
        for (int i = 0; i < cnt && mydup == INT64_MAX; i++)
            if (o->written[off + i] && lower[i]) mydup = off + i;
    }
    free(lower);
    AXB_TRY(axb_agree(o->comm, st, err));
    int64_t first = INT64_MAX;
    AXB_MPI_AGREE(o->comm, err, MPI_Allreduce(&mydup, &first, 1, MPI_INT64_T, MPI_MIN, o->comm),
                  "reduction of written rows");
    *dup = first == INT64_MAX ? -1 : first;
    return AXB_OK;
}

static axb_status check_complete(const axb_output *o, const uint8_t *all, int64_t dup, axb_error *err)
{
    int64_t missing = 0, first = -1;
    for (int64_t r = 0; r < o->nrows; r++)
        if (!all[r] && missing++ == 0) first = r;
    if (missing)
        return axb_error_set(err, AXB_ERR_ARG,
                             "%s: not committed: %" PRId64 " of %" PRId64
                             " rows were never written (first: row %" PRId64 "); the data written stay in %s",
                             o->path, missing, o->nrows, first, o->partial);
    if (dup >= 0)
        return axb_error_set(err, AXB_ERR_ARG,
                             "%s: not committed: row %" PRId64 " was written by two ranks; the data stay in %s",
                             o->path, dup, o->partial);
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
    axb_status st = all ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "%s: row bookkeeping", o->path);
    /* staged rows of a failed run are left out: unrecorded, a resume computes them again */
    if (st == AXB_OK && commit) st = axb_out_flush_stage(o, err);
    st = axb_agree(o->comm, st, err);
    if (st == AXB_OK) st = reduce_written(o, all, &dup, err);
    if (st == AXB_OK && o->ops->finish) {
        st = o->ops->finish(o, all, err);
        if (st != AXB_OK) axb_error_prefix(err, "%s", o->partial);
    }
    /* Rows written since the last checkpoint may be in the page cache only (closing the file
     * does not fsync it): on disk before the rename publishes them. */
    if (commit) {
        st = axb_agree(o->comm, st, err);
        if (st == AXB_OK && H5Fflush(o->file, H5F_SCOPE_GLOBAL) < 0) st = axb_h5_error(err, "%s: flush", o->partial);
    }
    /* The file is closed whatever happened, so no rank keeps it open. MPI_File_close (in
     * H5Fclose) synchronises every rank's data before the rename. */
    axb_error cerr = AXB_ERROR_INIT;
    const axb_status cst = close_file(o, &cerr);
    if (st == AXB_OK && cst != AXB_OK) {
        st = cst;
        *err = cerr;
    }
    st = axb_agree(o->comm, st, err);
    if (st == AXB_OK && commit) {
        /* Every rank holds the same reduced row flags, so every rank reaches this verdict. */
        st = check_complete(o, all, dup, err);
        if (st == AXB_OK) st = axb_agree(o->comm, o->rank == 0 ? axb_partial_publish(&o->names, err) : AXB_OK, err);
    }
    free(all);
    free_output(o);
    return st;
}
