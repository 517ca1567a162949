/* The merged writer's operations (merged_write.h); the ways element data reach the file are in
 * merged_strategy.c. */
#include "io/db/merged_internal.h"

#include <netcdf.h>
#include <netcdf_par.h>
#include <stdlib.h>

#include "core/agree.h"
#include "io/db/db_integrity.h"
#include "io/db/db_names.h"
#include "io/hdf5/block_writer.h"
#include "io/hdf5/nc_check.h"

static merged_impl *impl_of(const axb_db_writer *w)
{
    return w->impl;
}

/* The new file, its large objects (the element data) on a page boundary as direct writes of
 * whole pages need. netCDF keeps the alignment per process: it is restored at once (1, 1 is
 * HDF5's default, "no alignment"). */
static axb_status create_aligned(axb_db_writer *w, int *ncid, axb_error *err)
{
    int thr = 1, al = 1;
    if (nc_get_alignment(&thr, &al) != NC_NOERR || al <= 0) thr = al = 1;
    AXB_NC_TRY(err, nc_set_alignment(1 << 20, AXB_BLOCK_WRITER_ALIGN), "%s: alignment", w->path);
    const int rc = nc_create_par(w->path, NC_NETCDF4 | NC_CLOBBER, w->comm, MPI_INFO_NULL, ncid);
    const int rc2 = nc_set_alignment(thr, al);
    if (rc != NC_NOERR) {
        *ncid = -1;
        return axb_nc_error(err, rc, "%s: cannot create", w->path);
    }
    if (rc2 != NC_NOERR) return axb_nc_error(err, rc2, "%s: restoring the alignment", w->path);
    return AXB_OK;
}

static axb_status define_new(axb_db_writer *w, axb_error *err)
{
    merged_impl *m = impl_of(w);
    AXB_TRY(axb_agree(w->comm, create_aligned(w, &m->ncid, err), err));
    int rc = nc_open(m->def.template_path, NC_NOWRITE, &m->src);
    axb_status st = rc == NC_NOERR ? axb_merged_define(m->src, m->ncid, &m->def, m, w->path, err)
                                   : axb_nc_error(err, rc, "%s: open", m->def.template_path);
    if (rc != NC_NOERR) m->src = -1;
    /* definitions are local until nc_enddef, which is collective: every rank must reach it */
    m->defining = true;
    AXB_TRY(axb_agree(w->comm, st, err));
    rc = nc_enddef(m->ncid);
    m->defining = false;
    return axb_agree(w->comm, rc == NC_NOERR ? AXB_OK : axb_nc_error(err, rc, "%s: end of definitions", w->path), err);
}

axb_status axb_merged_reopen(axb_db_writer *w, axb_error *err)
{
    merged_impl *m = impl_of(w);
    int rc = nc_open_par(w->path, NC_WRITE, w->comm, MPI_INFO_NULL, &m->ncid);
    if (rc != NC_NOERR) {
        m->ncid = -1;
        return axb_agree(
            w->comm, axb_nc_error(err, rc, "%s: cannot open (damaged by the kill? start again with --force)", w->path),
            err);
    }
    rc = nc_inq_varid(m->ncid, AXB_NC_VAR_MERGED, &m->var);
    return axb_agree(w->comm, rc == NC_NOERR ? AXB_OK : axb_nc_error(err, rc, "%s: " AXB_NC_VAR_MERGED, w->path), err);
}

/* Resuming: the structure is there. Direct writes need no netCDF handle (begin finds the block);
 * collective ones reopen the file. */
static axb_status merged_define(axb_db_writer *w, axb_error *err)
{
    merged_impl *m = impl_of(w);
    if (!m->def.resume) return define_new(w, err);
    return m->def.direct ? AXB_OK : axb_merged_reopen(w, err);
}

static axb_status merged_write_mesh(axb_db_writer *w, axb_error *err)
{
    merged_impl *m = impl_of(w);
    return axb_merged_copy_mesh(m->src, m->ncid, &m->def, w->path, err);
}

static axb_status merged_write_stf(axb_db_writer *w, const float *stf, const float *stf_d, axb_error *err)
{
    merged_impl *m = impl_of(w);
    AXB_NC_TRY(err, nc_put_var_float(m->ncid, m->stf, stf), "%s: " AXB_NC_VAR_STF, w->path);
    AXB_NC_TRY(err, nc_put_var_float(m->ncid, m->stf_d, stf_d), "%s: " AXB_NC_VAR_STF_D, w->path);
    return AXB_OK;
}

/* The template is done with; the strategy asked for opens (and may hand over to collective). */
static axb_status merged_begin(axb_db_writer *w, axb_error *err)
{
    merged_impl *m = impl_of(w);
    if (m->src >= 0) {
        const int rc = nc_close(m->src);
        m->src = -1;
        AXB_TRY(axb_agree(w->comm, rc == NC_NOERR ? AXB_OK : axb_nc_error(err, rc, "%s: close", m->def.template_path),
                          err));
    }
    m->how = !m->def.direct ? &axb_merged_collective : m->def.deflate >= 0 ? &axb_merged_chunks : &axb_merged_direct;
    m->crc = calloc((size_t)(m->def.nelem ? m->def.nelem : 1), sizeof *m->crc);
    AXB_TRY(axb_agree(w->comm, m->crc ? AXB_OK : axb_error_set(err, AXB_ERR_NOMEM, "element checksums"), err));
    return m->how->open(w, err);
}

static axb_status merged_buffer(axb_db_writer *w, int64_t start, float **buf, axb_error *err)
{
    merged_impl *m = impl_of(w);
    AXB_TRY(m->how->buffer(w, start, buf, err));
    m->put_buf = *buf;
    return AXB_OK;
}

/* The checksums are taken from the data as they go to the file (the same bytes whichever way
 * they are stored); the strategy may hand the buffer to a helper thread, so they are taken first. */
static axb_status merged_put(axb_db_writer *w, int64_t start, int64_t count, axb_error *err)
{
    merged_impl *m = impl_of(w);
    const int64_t bf = m->block_bytes / (int64_t)sizeof(float);
    for (int64_t k = 0; k < count && m->put_buf; k++)
        m->crc[start + k] = (uint64_t)1 << 32 | axb_elem_crc32(m->put_buf + k * bf, bf);
    return m->how->put(w, start, count, err);
}

static axb_status merged_checkpoint(axb_db_writer *w, axb_error *err)
{
    return impl_of(w)->how->sync(w, err);
}

static void merged_stats(const axb_db_writer *w, axb_write_stats *s)
{
    const merged_impl *m = impl_of(w);
    *s = m->stats;
    if (m->rf) {
        int64_t direct = 0, buffered = 0;
        axb_block_writer_counts(m->rf, &direct, &buffered);
        s->write_s += axb_block_writer_seconds(m->rf);
        s->bytes_written += direct + buffered;
    }
}

static axb_status merged_close(axb_db_writer *w, axb_error *err)
{
    merged_impl *m = impl_of(w);
    axb_status st = m->how ? m->how->close(w, err) : AXB_OK;
    if (m->src >= 0) nc_close(m->src); /* only after a failed define: nothing was written to it */
    if (m->ncid >= 0) {
        /* ranks that failed while defining hold different definitions; closing would try to
         * create them collectively, so the unfinished file is dropped */
        const int rc = m->defining ? nc_abort(m->ncid) : nc_close(m->ncid);
        if (!st && rc != NC_NOERR) st = axb_nc_error(err, rc, "%s: close", w->path);
        st = axb_agree(w->comm, st, err);
    }
    /* the checksums only complete a file whose every element was written */
    int64_t skip = w->failed || st || !m->crc;
    const axb_status ss = axb_agree_sum(w->comm, AXB_OK, &skip, err);
    if (ss && !st) st = ss;
    if (!ss && !skip) st = axb_merged_write_checksums(w, err);
    free(m->crc);
    free(m);
    w->impl = NULL;
    return st;
}

static const axb_db_writer_ops merged_ops = {
    .name = "merged",
    .define = merged_define,
    .write_mesh = merged_write_mesh,
    .write_stf = merged_write_stf,
    .begin = merged_begin,
    .buffer = merged_buffer,
    .put = merged_put,
    .checkpoint = merged_checkpoint,
    .stats = merged_stats,
    .close = merged_close,
};

axb_status axb_merged_writer_create(MPI_Comm comm, const char *path, const axb_merged_def *def, axb_db_writer **out,
                                    axb_error *err)
{
    merged_impl *m = calloc(1, sizeof *m);
    if (!m) return axb_error_set(err, AXB_ERR_NOMEM, "%s: writer", path);
    *m = (merged_impl){
        .def = *def, .src = -1, .ncid = -1, .var = -1, .stf = -1, .stf_d = -1, .wfd = -1, .stream_next = -1};
    const int64_t np1 = def->npol + 1;
    m->block_bytes = (int64_t)def->nvars * np1 * np1 * def->ndumps * (int64_t)sizeof(float);
    axb_status st = axb_db_writer_new(comm, path, &merged_ops, m, out, err);
    if (st) free(m);
    return st;
}

int64_t axb_merged_writer_capacity(const axb_db_writer *w)
{
    return impl_of(w)->per;
}

bool axb_merged_writer_is_direct(const axb_db_writer *w, bool *page_cache_bypassed)
{
    const merged_impl *m = impl_of(w);
    *page_cache_bypassed = m->rf && axb_block_writer_is_direct(m->rf);
    return m->how == &axb_merged_direct || m->how == &axb_merged_chunks;
}
