/* The two ways element data reach a merged file (merged_write.h). Puts are not synced one by one:
 * direct puts are written by the block writer's helper thread, collective ones are followed by
 * the start of their writeback; either way the disk takes one range while the caller reads the
 * next. sync (a checkpoint) waits for all of it. */
#include <fcntl.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdlib.h>
#include <unistd.h>

#include "axibulk/timefmt.h"
#include "core/agree.h"
#include "core/large_alloc.h"
#include "core/mpi_check.h"
#include "core/writeback.h"
#include "io/db/db_names.h"
#include "io/db/merged_internal.h"
#include "io/hdf5/block_writer.h"
#include "io/hdf5/nc_check.h"

/* Elements per put within @p budget bytes and the def's bound. */
static int64_t elements_per_put(const merged_impl *m, int64_t budget)
{
    const int64_t bytes = budget < m->def.max_put_bytes ? budget : m->def.max_put_bytes;
    const int64_t per = bytes / m->block_bytes;
    return per < 1 ? 1 : per;
}

/* ---- collective: nc_put_vara of all ranks' ranges at once ---- */

static axb_status coll_open(axb_db_writer *w, axb_error *err)
{
    merged_impl *m = w->impl;
    const int rc = nc_var_par_access(m->ncid, m->var, NC_COLLECTIVE);
    AXB_TRY(axb_agree(w->comm, rc == NC_NOERR ? AXB_OK : axb_nc_error(err, rc, "%s: collective access", w->path), err));
    m->per = elements_per_put(m, m->def.inflight_bytes);
    m->buf = axb_large_alloc((size_t)m->per * (size_t)m->block_bytes);
    /* best effort: without it, puts are written back when the kernel decides */
    m->wfd = open(w->path, O_RDONLY);
    axb_status st = m->buf
        ? AXB_OK
        : axb_error_set(err, AXB_ERR_NOMEM, "slab buffer of %lld elements (reduce --memory)", (long long)m->per);
    return axb_agree(w->comm, st, err);
}

axb_status axb_merged_own_buffer(axb_db_writer *w, int64_t start, float **buf, axb_error *err)
{
    (void)start;
    (void)err;
    *buf = ((merged_impl *)w->impl)->buf;
    return AXB_OK;
}

axb_status axb_merged_end_netcdf(axb_db_writer *w, axb_error *err)
{
    merged_impl *m = w->impl;
    if (m->ncid < 0) return AXB_OK;
    const int rc = nc_close(m->ncid);
    m->ncid = -1;
    return axb_agree(w->comm, rc == NC_NOERR ? AXB_OK : axb_nc_error(err, rc, "%s: close after definitions", w->path),
                     err);
}

static axb_status coll_put(axb_db_writer *w, int64_t start, int64_t count, axb_error *err)
{
    merged_impl *m = w->impl;
    const size_t np1 = (size_t)m->def.npol + 1;
    const size_t first[5] = {(size_t)start, 0, 0, 0, 0};
    const size_t n[5] = {(size_t)count, (size_t)m->def.nvars, np1, np1, (size_t)m->def.ndumps};
    const double t0 = axb_wall_seconds();
    const int rc = nc_put_vara_float(m->ncid, m->var, first, n, m->buf);
    m->stats.write_s += axb_wall_seconds() - t0;
    if (rc == NC_NOERR) m->stats.bytes_written += count * m->block_bytes;
    axb_status st = rc == NC_NOERR ? AXB_OK
                                   : axb_nc_error(err, rc, "%s: writing elements %lld..%lld", w->path, (long long)start,
                                                  (long long)(start + count - 1));
    st = axb_agree(w->comm, st, err);
    axb_start_writeback(m->wfd, 0, 0);
    return st;
}

static axb_status coll_sync(axb_db_writer *w, axb_error *err)
{
    merged_impl *m = w->impl;
    const double t0 = axb_wall_seconds();
    const int rc = nc_sync(m->ncid);
    m->stats.sync_s += axb_wall_seconds() - t0;
    return axb_agree(w->comm, rc == NC_NOERR ? AXB_OK : axb_nc_error(err, rc, "%s: sync", w->path), err);
}

static axb_status coll_close(axb_db_writer *w, axb_error *err)
{
    (void)err;
    merged_impl *m = w->impl;
    if (m->wfd >= 0) close(m->wfd);
    m->wfd = -1;
    free(m->buf);
    m->buf = NULL;
    return AXB_OK;
}

const merged_strategy axb_merged_collective = {
    .name = "collective",
    .open = coll_open,
    .buffer = axb_merged_own_buffer,
    .put = coll_put,
    .sync = coll_sync,
    .close = coll_close,
};

/* ---- direct: every rank streams its ranges into the dataset's block ---- */

/* Rank 0: where HDF5 put the block, or -1 when it is not the contiguous block expected (then the
 * writes go through netCDF after all). */
static axb_status find_block(axb_db_writer *w, int64_t *offset, axb_error *err)
{
    merged_impl *m = w->impl;
    int64_t size = 0;
    axb_status st = axb_h5_contiguous_extent(w->path, "/" AXB_NC_VAR_MERGED, offset, &size, err);
    if (st == AXB_ERR_FORMAT || st == AXB_ERR_IO)
        return axb_error_prefix(err, "cannot %s",
                                m->def.resume ? "resume (damaged by the kill? start again with --force)" : "write");
    if (st == AXB_ERR_UNSUPPORTED ||
        (!st && (size != m->def.nelem * m->block_bytes || *offset % (int64_t)sizeof(float)))) {
        *offset = -1;
        return AXB_OK;
    }
    return st;
}

/* The structure is complete and closed: the element data go straight into the dataset's block,
 * allocated when it was defined (parallel HDF5 allocates early; no fill). */
static axb_status direct_open(axb_db_writer *w, axb_error *err)
{
    merged_impl *m = w->impl;
    AXB_TRY(axb_merged_end_netcdf(w, err));
    int64_t offset = 0;
    AXB_TRY(axb_agree(w->comm, w->rank == 0 ? find_block(w, &offset, err) : AXB_OK, err));
    AXB_MPI_AGREE(w->comm, err, MPI_Bcast(&offset, 1, MPI_INT64_T, 0, w->comm), "block offset");
    if (offset < 0) {
        m->how = &axb_merged_collective;
        AXB_TRY(axb_merged_reopen(w, err));
        return m->how->open(w, err);
    }
    m->data_offset = offset;
    /* two ranges in flight: one written while the next is read into the other buffer */
    m->per = elements_per_put(m, m->def.inflight_bytes / 2);
    return axb_agree(w->comm, axb_block_writer_open(w->path, (size_t)(m->per * m->block_bytes), true, &m->rf, err),
                     err);
}

/* The block writer's buffer, read into directly: no copy. */
static axb_status direct_buffer(axb_db_writer *w, int64_t start, float **buf, axb_error *err)
{
    merged_impl *m = w->impl;
    if (start != m->stream_next) AXB_TRY(axb_block_writer_begin(m->rf, m->data_offset + start * m->block_bytes, err));
    m->stream_next = start;
    size_t head = 0;
    *buf = (float *)(void *)((char *)axb_block_writer_buffer(m->rf, &head) + head);
    return AXB_OK;
}

static axb_status direct_put(axb_db_writer *w, int64_t start, int64_t count, axb_error *err)
{
    merged_impl *m = w->impl;
    axb_status st = AXB_OK;
    if (count > 0) {
        st = axb_block_writer_put(m->rf, (size_t)(count * m->block_bytes), err);
        if (!axb_block_writer_is_direct(m->rf)) axb_block_writer_start_writeback(m->rf);
        m->stream_next = start + count;
    }
    /* every rank writes its own range; they stay in step through the agreement */
    return axb_agree(w->comm, st, err);
}

/* The end of the open stream and fdatasync. */
static axb_status direct_sync(axb_db_writer *w, axb_error *err)
{
    merged_impl *m = w->impl;
    const double t0 = axb_wall_seconds();
    axb_status st = axb_block_writer_end(m->rf, err);
    if (!st) st = axb_block_writer_sync(m->rf, err);
    m->stats.sync_s += axb_wall_seconds() - t0;
    m->stream_next = -1;
    return axb_agree(w->comm, st, err);
}

static axb_status direct_close(axb_db_writer *w, axb_error *err)
{
    (void)err;
    axb_block_writer_close(&((merged_impl *)w->impl)->rf);
    return AXB_OK;
}

const merged_strategy axb_merged_direct = {
    .name = "direct",
    .open = direct_open,
    .buffer = direct_buffer,
    .put = direct_put,
    .sync = direct_sync,
    .close = direct_close,
};
